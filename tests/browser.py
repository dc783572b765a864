"""Serve a built site on localhost and drive Debian's chromium with Playwright (no browser download)."""

from __future__ import annotations

import functools
import http.server
import os
import threading
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import unquote, urlparse

CHROMIUM = os.environ.get("FIELDGUIDE_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]


@contextmanager
def serve(site: Path):
    handler = functools.partial(_QuietHandler, directory=str(site))
    with _running(http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)) as base:
        yield base


@contextmanager
def _running(server: http.server.ThreadingHTTPServer):
    """Serve in a thread; yield the server's address; stop and close it at the end."""
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


@contextmanager
def serve_like_pages(site: Path, prefix: str):
    """Serve the site at /<prefix>/ and answer any missing address (outside /<prefix>/ too) with
    the 404.html at its root, as GitHub Pages serves a project's site; yields the root's URL."""

    class Handler(_QuietHandler):
        def translate_path(self, path):
            path = urlparse(path).path
            if not path.startswith(f"/{prefix}/"):
                return str(site / "__nowhere__")
            return str(site / unquote(path[len(prefix) + 2 :]))

        def send_error(self, code, message=None, explain=None):
            if code != 404 or not (site / "404.html").is_file():  # (the host's own page, as Pages does)
                return super().send_error(code, message, explain)
            body = (site / "404.html").read_bytes()
            self.send_response(404)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

    with _running(http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)) as base:
        yield f"{base}/{prefix}/"


def watch_failures(page) -> list[str]:
    """Every request of the page (its own address excepted) that failed or was answered >= 400,
    filled as the page runs."""
    failed: list[str] = []
    page.on("requestfailed", lambda r: failed.append(f"{r.url} ({r.failure})"))

    def response(r) -> None:
        if r.status >= 400 and r.request.resource_type != "document":
            failed.append(f"{r.url} ({r.status})")

    page.on("response", response)
    return failed


@contextmanager
def chromium():
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        raise RuntimeError(
            f"{CHROMIUM} not found: install Debian's chromium (apt-get install chromium), as the README says"
        )
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


def watch_offline(page) -> tuple[list[str], list[str]]:
    """(requests to any host but this machine's, uncaught page errors), filled as the page runs."""
    from urllib.parse import urlparse

    outside: list[str] = []
    errors: list[str] = []

    def request(r) -> None:
        if urlparse(r.url).hostname not in ("127.0.0.1", None) and not r.url.startswith("data:"):
            outside.append(r.url)

    page.on("request", request)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    return outside, errors


def axe_violations(page) -> list[dict]:
    """The page's moderate, serious and critical axe violations."""
    from axe_playwright_python.sync_playwright import Axe

    settled(page)
    results = Axe().run(page)
    return [
        {"id": v["id"], "impact": v["impact"], "nodes": [n["target"] for n in v["nodes"][:3]]}
        for v in results.response["violations"]
        if v["impact"] in ("moderate", "serious", "critical")
    ]


def settled(page) -> None:
    """Wait until the page's CSS transitions and finite animations have ended (the theme fades
    colours in): waited for as such, not for a fixed pause a loaded machine can outlast (issue 25)."""
    page.evaluate("() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")
    page.wait_for_function(
        "() => document.getAnimations().every(a => a.playState !== 'running'"
        " || a.effect === null || a.effect.getComputedTiming().iterations === Infinity)"
    )


def axe_sweep(site: Path, scheme: str, log: Path) -> dict:
    """{page: its serious and moderate axe violations} over every page of a built site, with the
    system preferring `scheme`, plus two interactive states (a gym answer revealed, a log
    explained). Its own browser, so that it can run in a thread of its own."""
    pages = sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html"))
    found = {}
    with serve(site) as base, chromium() as browser:
        context = browser.new_context(color_scheme=scheme)
        page = context.new_page()
        # every page, the published tlparse report's included (tlparse.publishable holds it to these rules)
        tlparse_pages = [p for p in pages if p.startswith("tlparse/") and p.endswith(".html")]
        assert tlparse_pages, "the site has no tlparse report to check"
        guide = [p for p in pages if p.endswith("index.html") and not p.startswith("tlparse/")]
        # (the report has one scheme of its own, whatever the system prefers: checked once, in light)
        for path in guide + ["404.html"] + (tlparse_pages if scheme == "light" else []):
            page.goto(f"{base}/{path}")
            page.wait_for_load_state("networkidle")
            want = "slate" if scheme == "dark" else "default"  # the system's preference is followed
            if not path.startswith("tlparse/"):
                assert page.evaluate("document.body.getAttribute('data-md-color-scheme')") == want, path
            if violations := axe_violations(page):
                found[path] = violations
        # the interactive states: a gym answer revealed, a log explained
        page.goto(f"{base}/gym/")
        page.locator(".gym-scenario").first.locator(".gym-choice").first.click()
        page.locator(".gym-scenario").nth(4).locator(".gym-choice").last.click()
        settled(page)  # the theme's colour transitions end before contrast is measured
        if violations := axe_violations(page):
            found["gym/ (answered)"] = violations
        page.goto(f"{base}/messages/")
        page.fill("#fg-log", log.read_text() + "\nnot a torch line\n")
        page.click("#fg-explain")
        page.wait_for_load_state("networkidle")
        settled(page)
        if violations := axe_violations(page):
            found["messages/ (a log explained)"] = violations
        context.close()
    return found
