"""The site works offline: a browser loading every page requests nothing from another host."""

from __future__ import annotations

from urllib.parse import urlparse

from browser import chromium, serve


def test_every_page_loads_only_local_resources(built_site):
    pages = sorted(p.relative_to(built_site).as_posix() for p in built_site.rglob("index.html"))
    assert len(pages) >= 8
    outside, errors = [], []
    with serve(built_site) as base, chromium() as browser:
        page = browser.new_page()
        page.on("request", lambda r: outside.append(r.url) if urlparse(r.url).hostname not in ("127.0.0.1", None) and not r.url.startswith("data:") else None)
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        for path in pages:
            page.goto(f"{base}/{path}")
            page.wait_for_load_state("networkidle")
    assert outside == [], outside
    assert errors == [], errors
