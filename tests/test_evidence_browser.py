"""The evidence a reader sees: each claim's marker leads to the output line it rests on.

A real browser (Debian's chromium through Playwright) follows markers by mouse and by keyboard,
into a collapsed output block too, and a screenshot of the page shows the line highlighted.
"""

from __future__ import annotations

import base64

import pytest
from browser import serve, settled

HIGHLIGHT = (0xFF, 0xE5, 0x8F)  # .fg-evidence-line.fg-ev-active in fieldguide.css


def open_page(browser, base, path):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(f"{base}/{path}/")
    return page, errors


def active_line(page):
    return page.locator(".fg-evidence-line.fg-ev-active")


def highlighted_pixels(page, png: bytes) -> int:
    """Pixels of the highlight colour in a screenshot, counted by the browser's own PNG decoder."""
    return page.evaluate(
        """async ([data, rgb]) => {
            const img = new Image();
            img.src = "data:image/png;base64," + data;
            await img.decode();
            const canvas = document.createElement("canvas");
            canvas.width = img.width; canvas.height = img.height;
            const ctx = canvas.getContext("2d");
            ctx.drawImage(img, 0, 0);
            const px = ctx.getImageData(0, 0, img.width, img.height).data;
            let n = 0;
            for (let i = 0; i < px.length; i += 4) {
                if (Math.abs(px[i] - rgb[0]) < 6 && Math.abs(px[i + 1] - rgb[1]) < 6 && Math.abs(px[i + 2] - rgb[2]) < 6) n++;
            }
            return n;
        }""",
        [base64.b64encode(png).decode(), list(HIGHLIGHT)],
    )


@pytest.mark.parametrize("path", ["capture", "breaks", "guards", "dynamic", "realcode", "nextprocess"])
def test_every_marker_finds_its_line(browser, built_site, path):
    with serve(built_site) as base:
        page, errors = open_page(browser, base, path)
        markers = page.locator(".fg-ev a")
        assert markers.count() > (6 if path == "nextprocess" else 20)  # lesson 6 has few claims, each on its lines
        assert page.locator(".fg-ev a.fg-ev-missing").count() == 0
        assert markers.first.inner_text() == "[1]"
        assert errors == []


def test_following_a_marker_by_mouse_highlights_its_line_in_a_screenshot(browser, built_site):
    with serve(built_site) as base:
        page, _ = open_page(browser, base, "guards")
        before = highlighted_pixels(page, page.screenshot())
        marker = page.locator(".fg-ev a").first
        want = marker.get_attribute("data-line")
        marker.click()
        line = active_line(page)
        assert line.count() == 1 and want in line.inner_text()
        assert line.is_visible() and line.evaluate("el => document.activeElement === el")
        assert page.url.endswith("#" + marker.get_attribute("href")[1:])
        box = line.bounding_box()
        assert 0 <= box["y"] < 900  # scrolled into view
        after = highlighted_pixels(page, page.screenshot())
        assert before == 0 and after > 500, (before, after)


def test_following_a_marker_by_keyboard_into_a_collapsed_block_and_back(browser, built_site):
    with serve(built_site) as base:
        page, _ = open_page(browser, base, "dynamic")
        run = "TORCH_LOGS=guards python snippets/dynamic/three_modes.py"
        marker = page.locator(f'.fg-ev a[data-run="{run}"]').first
        block = page.locator("details", has=page.locator(".filename", has_text=run))
        assert not block.evaluate("el => el.open")
        marker.focus()
        page.keyboard.press("Enter")
        line = active_line(page)
        assert line.count() == 1 and marker.get_attribute("data-line") in line.inner_text()
        assert block.evaluate("el => el.open") and line.is_visible()
        assert line.evaluate("el => document.activeElement === el")
        page.keyboard.press("Escape")
        assert marker.evaluate("el => document.activeElement === el")


def test_a_link_to_an_evidence_line_opens_highlighted(browser, built_site):
    with serve(built_site) as base:
        page, _ = open_page(browser, base, "guards")
        href = page.locator(".fg-ev a").nth(3).get_attribute("href")
        page.goto(f"{base}/guards/{href}")
        line = active_line(page)
        assert line.count() == 1 and line.get_attribute("id") == href[1:] and line.is_visible()


@pytest.mark.parametrize("path", ["guards", "dynamic"])
def test_markers_and_a_highlighted_line_pass_the_accessibility_check(browser, built_site, path):
    from axe_playwright_python.sync_playwright import Axe

    with serve(built_site) as base:
        page, _ = open_page(browser, base, path)
        page.locator(".fg-ev a").first.click()
        settled(page)  # contrast is measured once the colour transitions have ended
        results = Axe().run(page)
        serious = [v["id"] for v in results.response["violations"] if v["impact"] in ("serious", "critical")]
        assert serious == []
