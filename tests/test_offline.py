"""The site works offline: a browser loading every page requests nothing from another host."""

from __future__ import annotations

from browser import serve, watch_offline


def test_every_page_loads_only_local_resources(built_site, browser):
    pages = sorted(p.relative_to(built_site).as_posix() for p in built_site.rglob("index.html"))
    assert len(pages) >= 8
    with serve(built_site) as base:
        page = browser.new_page()
        outside, errors = watch_offline(page)
        for path in pages:
            page.goto(f"{base}/{path}")
            page.wait_for_load_state("networkidle")
    assert outside == [], outside
    assert errors == [], errors


def test_the_site_reads_from_disk(built_site, browser):
    """Opened as files (file://): folder links lead to pages, the gym answers, the messages page matches."""
    root = built_site.resolve().as_uri()
    page = browser.new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(f"{root}/index.html")
    page.locator("nav.md-nav--primary a[href*='guards/']").first.click()
    page.wait_for_load_state()
    assert page.url.endswith("/guards/index.html"), page.url
    assert "What a guard checks" in page.locator("h1").first.inner_text()  # "Lesson 3: What a guard checks"
    page.locator("nav.md-nav--primary a[href*='gym/']").first.click()
    page.wait_for_load_state()
    assert page.url.endswith("/gym/index.html"), page.url
    page.locator(".gym-scenario").first.locator(".gym-choice").first.click()
    assert page.locator(".gym-scenario").first.locator(".gym-reveal").is_visible()
    page.goto(f"{root}/messages/index.html")
    log = next(
        s
        for s in __import__("json").loads((built_site / "record.json").read_text())["snippets"]
        if s["logs"].get("recompiles")
    )
    page.fill("#fg-log", log["logs"]["recompiles"])
    page.click("#fg-explain")
    assert page.locator('#fg-lines li[data-match="exact"] .fg-line').count() >= 3
    assert errors == []
