"""The messages index and "Paste your log": patterns made from real records, matched in a real browser.

The logs pasted are real: torch 2.2.2 and 2.14.1 runs of the guide's snippets (test fixtures: raw
stderr with logger prefixes, and the recompile logs their records hold). The page must know 2.2's
wording from the committed record of 2.2.2, never from text typed into the code.
"""

from __future__ import annotations

import json
import re
import urllib.request
from pathlib import Path
from urllib.parse import urljoin, urlparse

import pytest

from browser import chromium, serve
from conftest import ROOT
from fieldguide import logs, messages
from fieldguide.parse.recompiles import parse_recompiles
from fieldguide.record import BuildRecord

FIXTURES = ROOT / "tests" / "fixtures"
FIXTURE_RECORDS = {r: BuildRecord.read(ROOT / "records" / f"torch-{r}.json.gz") for r in ("2.2.2", "2.14.1")}


def stripped(raw: str) -> str:
    """A raw stderr log without its logger prefixes (as fieldguide.logs reads it)."""
    return "".join(line.text + "\n" for line in logs.parse([("err", raw)]))


def real_logs() -> dict[str, str]:
    """Real recompile logs of releases other than the default: raw stderr, and every record's recompile log."""
    out = {}
    for path in sorted((FIXTURES / "logs").glob("torch-*.txt")):
        text = path.read_text()
        if not path.name.startswith("torch-2.13.0") and "Recompiling function" in text:
            out[path.stem] = text
    for release, rec in FIXTURE_RECORDS.items():
        out[f"record-{release}"] = "".join(
            s.logs["recompiles"] + "".join(t for c, t in s.logs.items() if c == "dynamo") for s in rec.snippets if s.logs.get("recompiles")
        )
    return out


LOGS = real_logs()


def test_the_fixtures_hold_both_releases():
    assert any("2.2.2" in k for k in LOGS) and any("2.14.1" in k for k in LOGS)
    assert all(parse_recompiles(stripped(text)) for text in LOGS.values())


@pytest.mark.parametrize("release", sorted(FIXTURE_RECORDS))
def test_every_printed_line_matches_its_own_pattern(release):
    rec = FIXTURE_RECORDS[release]
    found = messages.collect(rec)
    assert found
    for result in rec.snippets:
        for _role, line in messages._lines(result):
            pattern = messages.normalize(line)
            assert re.match(messages.to_regex(pattern), messages.message_text(line)), (line, pattern)


def test_placeholders_hide_names_sizes_ids_and_paths(site_record):
    """The same failure printed by different programs and releases is one pattern."""
    rec = BuildRecord.from_json(site_record)
    here = messages.collect(rec)
    both = messages.collect(rec, list(FIXTURE_RECORDS.values()))
    printed = [m for m in both.values() if len({r for rs in m.snippets.values() for r in rs}) == 3]
    assert printed, "no message pattern is shared by the three releases"
    for m in here.values():
        text = re.sub(r"https?://\S+", "", m.pattern)  # addresses torch prints stay as printed
        assert "/work/" not in text and not re.search(r"\b\d{6,}\b", text) and "0x" not in text, m.pattern
    size = [m for m in here.values() if m.role == "reason" and "size mismatch" in m.example]
    assert len(size) == 1, [m.pattern for m in size]  # several sizes and names, one pattern


def test_the_index_lists_every_message_this_build_printed(built_site, site_record):
    html = (built_site / "messages" / "index.html").read_text()
    data = json.loads(re.search(r'<script[^>]*id="message-patterns"[^>]*>(.*?)</script>', html, re.S).group(1))
    patterns = {p["pattern"]: p for p in data["patterns"]}
    rec = BuildRecord.from_json(site_record)
    for result in rec.snippets:
        for role, line in messages._lines(result):
            pattern = messages.normalize(line)
            if messages._TRACE.match(messages.message_text(line)):
                continue
            assert pattern in patterns, line
            entry = patterns[pattern]
            assert entry["snippets"], pattern
            if role == "reason":
                assert entry["sections"], f"{pattern}: no section explains it"
    for p in data["patterns"]:  # every link of the index leads to an existing page and anchor
        for link in p["sections"] + p["snippets"]:
            assert_target_exists(built_site, "messages/", link["href"])


def assert_target_exists(site: Path, from_url: str, href: str) -> None:
    url = urlparse(urljoin(f"http://x/{from_url}", href))
    target = site / url.path.lstrip("/")
    if url.path.endswith("/"):
        target = target / "index.html"
    assert target.exists(), f"{href} (from {from_url}) leads nowhere"
    if url.fragment:
        assert re.search(rf'id="{re.escape(url.fragment)}"', target.read_text()), f"{href}: no #{url.fragment}"


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


@pytest.mark.parametrize("name", sorted(LOGS))
def test_pasted_real_log_annotates_every_reason_with_a_working_link(browser, built_site, name):
    raw = LOGS[name]
    release = re.search(r"(\d+\.\d+\.\d+)", name).group(1)
    if not (ROOT / "records" / f"torch-{release}.json.gz").exists() and release != "2.14.1":
        pytest.fail(f"records/torch-{release}.json.gz is not committed: the page can know {release}'s wording only from it")
    reasons = [f.reason for r in parse_recompiles(stripped(raw)) for f in r.failures]
    assert reasons
    with serve(built_site) as base:
        page = browser.new_page()
        errors, requests = [], []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(f"{base}/messages/")
        page.wait_for_load_state("networkidle")
        page.on("request", lambda r: requests.append(r.url))
        page.fill("#fg-log", raw)
        page.click("#fg-explain")
        items = page.locator("#fg-lines > li")
        rows = items.evaluate_all(
            """els => els.map(li => ({
                match: li.dataset.match, role: li.dataset.role || "", line: li.querySelector('.fg-line').textContent,
                links: Array.from(li.querySelectorAll('a.fg-section')).map(a => a.href)}))"""
        )
        assert requests == [], f"pasting made requests: {requests}"  # nothing leaves the page
        assert errors == []
        annotated = [r for r in rows if r["role"] == "reason"]
        assert len(annotated) == len(reasons), ([r["line"] for r in annotated], reasons)
        for row, reason in zip(annotated, reasons):
            assert reason in row["line"]
            assert row["match"] == "exact", row
            assert row["links"], f"no section link for {reason!r}"
        assert not [r for r in rows if r["match"] == "none"], [r["line"] for r in rows if r["match"] == "none"]
        for href in {h for r in annotated for h in r["links"]}:  # the links work: page and anchor exist
            url = urlparse(href)
            body = urllib.request.urlopen(href.split("#")[0]).read().decode()
            assert f'id="{url.fragment}"' in body, href
        summary = page.locator("#fg-summary").inner_text()
        assert re.match(r"\d+ of \d+ lines recognised", summary)
        page.close()


def test_the_page_says_what_to_do_without_javascript(browser, built_site):
    with serve(built_site) as base:
        context = browser.new_context(java_script_enabled=False)
        page = context.new_page()
        page.goto(f"{base}/messages/")
        assert "needs JavaScript" in page.locator(".fg-noscript").inner_text()
        assert page.locator("table.messages").count() >= 3  # the index itself needs no script
        assert page.locator("#fg-log").is_hidden() and page.locator("#fg-explain").is_hidden()
        context.close()


@pytest.mark.parametrize("release", ["2.2.2", "2.14.1"])
def test_a_pasted_guard_dump_is_named_and_linked(browser, built_site, release):
    raw = (FIXTURES / "logs" / f"torch-{release}-anatomy.stderr.txt").read_text()
    with serve(built_site) as base:
        page = browser.new_page()
        page.goto(f"{base}/messages/")
        page.fill("#fg-log", raw)
        page.click("#fg-explain")
        rows = page.locator("#fg-lines > li").evaluate_all(
            "els => els.map(li => ({match: li.dataset.match, links: Array.from(li.querySelectorAll('a.fg-section')).map(a => a.href)}))"
        )
        dump = [r for r in rows if r["match"] == "dump"]
        assert len(dump) >= 5 and not [r for r in rows if r["match"] == "none"], rows[:5]
        for href in {h for r in dump for h in r["links"]}:
            assert f'id="{urlparse(href).fragment}"' in urllib.request.urlopen(href.split("#")[0]).read().decode(), href
        assert all(r["links"] for r in dump)
        page.close()
