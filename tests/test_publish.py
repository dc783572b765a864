"""The published tree (nox -s publish): one copy per release, the release selector, replayed records.

The browser test publishes only what it needs: the default release, built live, and 2.2.2 rendered
from the committed record of torch 2.2.2 (records/), then switches between them in
Debian's chromium, served from 127.0.0.1.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import subprocess
import sys
import tomllib
import urllib.request
from pathlib import Path

import pytest
from browser import axe_violations, serve, serve_like_pages, settled, watch_failures, watch_offline
from conftest import QUIET, ROOT, UMASK, mkdocs_build, shared_dir, shared_once, unreadable

from fieldguide.guide.chapters import guards as ch
from fieldguide.guide.jobs import site_jobs, stale_entries
from fieldguide.run.record import BuildRecord

FIXTURE_222 = ROOT / "tests" / "fixtures" / "records" / "torch-2.2.2.json.gz"


def _record_222() -> Path:
    """2.2.2's committed record when the guards page's entries in it are current, else the older
    fixture captured on 2.2.2 (whose entries predate source digests: rendered as unverified)."""
    committed = ROOT / "records" / "torch-2.2.2.json.gz"
    if committed.exists():
        gaps = stale_entries(BuildRecord.read(committed), site_jobs(ROOT), ROOT / "snippets")
        if not any(label.startswith("snippets/guards/") for label in gaps["stale"] + gaps["missing"]):
            return committed
    return FIXTURE_222


RECORD_222 = _record_222()
DEFAULT = tomllib.loads((ROOT / "records" / "releases.toml").read_text())["default"]
SECTION = "modules-identity-or-type"


def publish(out: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "fieldguide.site.publish", "--out", str(out), *args],
        cwd=ROOT,
        env={**os.environ, **QUIET},
        capture_output=True,
        text=True,
        umask=UMASK,
    )


@pytest.fixture(scope="session")
def tree(built_site) -> Path:  # after built_site: the live copy reuses its execution cache
    """The published tree of the default release and 2.2.2, made once for the run (every worker's)."""

    def make() -> dict:
        out = shared_dir() / "public"
        proc = publish(out, "--release", DEFAULT, "--release", "2.2.2", "--record", f"2.2.2={RECORD_222}")
        return {"out": str(out), "returncode": proc.returncode, "log": proc.stdout + proc.stderr}

    made = shared_once("publish-tree", make)
    assert made["returncode"] == 0, made["log"]
    return Path(made["out"])


def test_tree_is_laid_out_as_mike_does(tree):
    versions = json.loads((tree / "versions.json").read_text())
    assert [v["version"] for v in versions] == sorted(
        [DEFAULT, "2.2.2"], key=lambda v: tuple(map(int, v.split("."))), reverse=True
    )
    assert versions[0]["aliases"] == ["latest"] and all(v["aliases"] == [] for v in versions[1:])
    assert all(v["title"] == f"torch {v['version']}" for v in versions)
    for v in versions:
        assert (tree / v["version"] / "guards" / "index.html").exists()
        assert json.loads((tree / v["version"] / "record.json").read_text())["torch"].split("+")[0] == v["version"]
    newest = versions[0]["version"]
    assert f"../../{newest}/guards/" in (tree / "latest" / "guards" / "index.html").read_text()
    assert (tree / "index.html").exists() and (tree / ".nojekyll").exists()


def test_tree_is_readable_by_a_web_server(tree):
    """Every copy's folder, the aliases and the root's files have a plain build's modes (0755,
    0644 under umask 022). Broken on purpose once: make_owned() back on tempfile.mkdtemp left each
    release's folder 0700, which a server running as another user answers 403 for."""
    assert unreadable(tree) == []


def test_every_page_names_its_torch_and_when_it_was_measured(tree):
    rec = BuildRecord.read(RECORD_222)
    first_day = min([s.measured_at[:10] for s in rec.snippets if s.measured_at] or [rec.built_at[:10]])
    for release in (DEFAULT, "2.2.2"):
        # the guide's pages (a tlparse report is torch's own HTML, published beside them)
        pages = [
            p for p in (tree / release).rglob("index.html") if "tlparse" not in p.relative_to(tree / release).parts
        ]
        assert len(pages) >= 8
        for page in pages:
            text = page.read_text()
            assert f'class="fg-release" data-torch="{release}' in text, page  # 2.13.0 or 2.13.0+cpu
    old = (tree / "2.2.2" / "guards" / "index.html").read_text()
    assert f"measured on {first_day}" in old and "rendered from its record" in old
    assert 'data-live="true"' in (tree / DEFAULT / "guards" / "index.html").read_text()
    # Across releases: a replayed copy has no live build, so no column claims to be "this build"
    assert (
        f'data-release="{DEFAULT}">{DEFAULT} (this build)</th>'
        in (tree / DEFAULT / "releases" / "index.html").read_text()
    )
    assert "(this build)</th>" not in (tree / "2.2.2" / "releases" / "index.html").read_text()


@pytest.mark.skipif(RECORD_222 != FIXTURE_222, reason="2.2.2's committed record is current: nothing to mark")
def test_outputs_that_cannot_be_matched_to_todays_source_are_marked(tree):
    """The fixture predates source digests: no output of it is presented as today's example's."""
    old = (tree / "2.2.2" / "guards" / "index.html").read_text()
    blocks = old.split('class="fg-snippet"')[1:]
    with_output = [b for b in blocks if 'class="filename">$ ' in b]  # show="source" blocks print no output
    assert with_output and all('fg-replay-notice" data-status="unverified"' in b for b in with_output)
    assert "nox -s matrix -- 2.2.2" in old
    assert "fg-replay-notice" not in (tree / DEFAULT / "guards" / "index.html").read_text()


def test_replay_marks_stale_and_missing_entries_and_still_builds(tmp_path, built_site):
    data = json.loads((built_site / "record.json").read_text())
    anatomy = next(s for s in data["snippets"] if s["path"] == "snippets/guards/anatomy.py")
    anatomy["digest"] = "0" * 16  # measured from another version of the example
    five = next(s for s in data["snippets"] if s["path"] == "snippets/guards/five_calls.py")
    five["exit_code"] = 1  # recorded as failed on that release
    data["snippets"] = [
        s for s in data["snippets"] if s["path"] not in ("snippets/guards/module_counts.py", "snippets/gym/g11_int.py")
    ]
    data["torch"] = "2.9.1"
    rec = tmp_path / "torch-2.9.1.json.gz"
    rec.write_bytes(gzip.compress(json.dumps(data).encode()))
    site = tmp_path / "site"
    proc = mkdocs_build(ROOT, site, {"FIELDGUIDE_REPLAY": str(rec), "FIELDGUIDE_CACHE_DIR": str(tmp_path / "cache")})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    guards = (site / "guards" / "index.html").read_text()
    stale = guards.split('id="out-guards-anatomy-guards"', 1)[1].split('class="fg-snippet"', 1)[0]
    assert 'data-status="stale"' in stale and "printed by the earlier version of the example" in stale
    missing = guards.split('id="out-guards-module-counts"', 1)[1].split('class="fg-snippet"', 1)[0]
    assert 'data-status="missing"' in missing and "nox -s matrix -- 2.9.1" in missing
    assert "Not rendered for torch 2.9.1" in guards  # the verdict that reads module_counts says so
    assert "Examples on this page changed since torch 2.9.1 was measured" in guards
    failed = guards.split('id="out-guards-five-calls-recompiles"', 1)[1].split('class="fg-snippet"', 1)[0]
    assert 'data-status="failed"' in failed and "did not run to its end on torch 2.9.1" in failed
    banner = (site / "guards" / "index.html").read_text().split('class="fg-release"', 1)[1].split("</p>", 1)[0]
    assert "1 example run failed on this release" in " ".join(banner.split())
    assert "Not rendered for torch 2.9.1" in (site / "gym" / "index.html").read_text()
    assert "Examples on this page changed" not in (site / "dynamic" / "index.html").read_text()


def test_publish_refuses_unknown_releases_and_skips_unmeasured_ones(tmp_path):
    proc = publish(tmp_path, "--release", "1.13.1")
    assert proc.returncode != 0 and "not in records/releases.toml" in proc.stderr
    from fieldguide.site.publish import plan

    copies, skipped = plan(ROOT, None, {}, live=True)
    assert [c.release for c in copies if c.live] == [DEFAULT]
    assert all(c.record and c.record.exists() for c in copies if not c.live)
    assert set(skipped) | {c.release for c in copies} == set(
        tomllib.loads((ROOT / "records" / "releases.toml").read_text())["releases"]
    )


def _section_in_view(page, anchor: str) -> bool:
    return page.evaluate(
        "(id) => { const r = document.getElementById(id).getBoundingClientRect(); return r.top >= -2 && r.top < innerHeight / 2; }",
        anchor,
    )


def _switch(page, title: str) -> None:
    # material shows the selector in the header's first line, which gives way to the page title
    # once the reader scrolls past it: back to the top (the section stays in the address's hash)
    page.evaluate("window.scrollTo(0, 0)")
    page.wait_for_function("!document.querySelector('.md-header__title--active')")
    page.locator(".md-version__current").focus()  # opens the list, as hovering does
    page.locator(".md-version__link", has_text=title).first.click()


def test_switching_releases_keeps_page_and_section_offline_and_accessible(tree, browser):
    from axe_playwright_python.sync_playwright import Axe

    rec = BuildRecord.read(RECORD_222)
    anatomy = rec.find("guards/anatomy.py")
    mguards, mcounts = rec.find("guards/module_guards.py"), rec.find("guards/module_counts.py")
    assert ch.first_dump(anatomy)[0].flat and ch.module_regime(mguards) == "identity"
    ensemble = ch.module_counts(mcounts)["ensemble of 16 identical members"]
    first_guard = anatomy.output.splitlines()[1].split("#")[0].strip()

    with serve(tree) as base:
        page = browser.new_page()
        outside, errors = watch_offline(page)

        def axe_clean() -> None:
            settled(page)  # contrast is measured once the colour transitions have ended
            violations = [v for v in Axe().run(page).response["violations"] if v["impact"] in ("serious", "critical")]
            assert not violations, json.dumps(
                [{k: v[k] for k in ("id", "impact", "help")} for v in violations], indent=1
            )

        page.goto(f"{base}/{DEFAULT}/guards/#{SECTION}")
        page.wait_for_selector(".md-version__current")
        assert page.locator(".fg-release").get_attribute("data-torch").split("+")[0] == DEFAULT
        axe_clean()

        _switch(page, "torch 2.2.2")
        page.wait_for_url(f"{base}/2.2.2/guards/#{SECTION}")
        page.wait_for_selector(".md-version__current")
        assert "torch 2.2.2" in page.locator(".md-version__current").inner_text()
        assert "torch 2.2.2" in page.locator(".fg-release").inner_text()
        assert _section_in_view(page, SECTION)
        dump = page.locator("#out-guards-anatomy-guards").inner_text()
        assert first_guard in dump and "GuardManager" not in dump  # the flat dump of 2.2.2
        assert "flat list of Python predicates" in page.locator("article").inner_text()
        section = page.evaluate(
            "(id) => { let t = '', n = document.getElementById(id).nextElementSibling;"
            " while (n && n.tagName !== 'H2') { t += n.innerText + '\\n'; n = n.nextElementSibling; } return t; }",
            SECTION,
        )
        assert ensemble == 16  # 2.2.2 guarded modules by identity: one graph per member
        assert "___check_obj_id(L['self']" in section  # the identity guard on self, from its dump
        counts_row = page.locator("tr", has_text="ensemble of 16 identical members").first.inner_text()
        assert re.match(rf"{ensemble}\b", counts_row.split()[-1]), counts_row  # then its evidence marker
        if "Not rendered for torch 2.2.2" in section:  # the verdict reads what an older example did not print
            assert RECORD_222 == FIXTURE_222, "2.2.2's current record must render the module verdict"
        else:
            assert "identity" in section and f"compiled {ensemble} graphs" in section
        other = page.locator("#out-guards-anatomy-guards .fg-other-releases a", has_text=f"torch {DEFAULT}")
        assert other.get_attribute("href").endswith(f"/{DEFAULT}/guards/#out-guards-anatomy-guards")
        axe_clean()

        page.goto(f"{base}/")  # the choice persists: the root sends the reader back to 2.2.2
        page.wait_for_url(f"{base}/2.2.2/")

        page.goto(f"{base}/2.2.2/guards/#{SECTION}")
        page.wait_for_selector(".md-version__current")
        _switch(page, f"torch {DEFAULT}")
        page.wait_for_url(f"{base}/{DEFAULT}/guards/#{SECTION}")
        page.wait_for_selector(".md-version__current")
        assert _section_in_view(page, SECTION)
        assert page.locator(".fg-release").get_attribute("data-torch").split("+")[0] == DEFAULT

        # the Across releases page: a value links to where that release's copy shows its output
        page.goto(f"{base}/{DEFAULT}/releases/")
        on_page = page.locator(f'.fg-matrix a.fg-on-page[data-version="{DEFAULT}"]').first
        on_page.wait_for(state="attached")
        target = on_page.get_attribute("href")
        on_page.click()
        page.wait_for_url(target)
        anchor = target.split("#", 1)[1]
        assert page.locator(f"#{anchor}.fg-snippet").count() == 1
    assert outside == [], outside
    assert errors == [], errors


NEWEST = max(DEFAULT, "2.2.2", key=lambda v: tuple(map(int, v.split("."))))


@pytest.mark.parametrize(
    ("missing", "page", "asked"),
    [
        ("2.2.2/guards/old-name/", "guards/", "2.2.2/guards/"),  # a mistyped page of a copy
        ("2.1.0/guards/", "guards/", None),  # a release with no copy: the same page on the newest
        ("guards/", "guards/", None),  # an address without a release
        ("nope/", "", None),  # nothing the tree knows: the newest home page
        ("nope/deeper/x.html", "", None),  # the same, deeper: the server is asked where the tree is
    ],
)
def test_root_404_leads_to_the_newest_release_and_the_same_page(tree, browser, missing, page, asked):
    """The tree's root 404.html, as GitHub Pages serves it for any missing address of a project
    site (a python http.server under /field-guide/ answering with the root's 404.html): the styled
    page, its assets and pages from the newest release's copy, a link to the same (or nearest)
    page there and on the release asked for, no request failing (but the probes of an address that
    names nothing the tree has, deeper than one folder), no axe finding. Broken on purpose
    once each: without the root 404.html (publish not writing it) the server's plain page came
    back; with the assets left as tags (defer_assets a no-op) 13 requests of the page failed."""
    with serve_like_pages(tree, "field-guide") as root:
        context = browser.new_context(color_scheme="dark" if asked else "light")
        tab = context.new_page()
        outside, errors = watch_offline(tab)
        failed = watch_failures(tab)
        response = tab.goto(root + missing)
        assert response.status == 404
        tab.wait_for_load_state("networkidle")
        assert tab.locator("h1").first.inner_text() == "Page not found"  # not the server's own page
        assert errors == [] and outside == []
        # Nothing is asked of the missing address. An address that names no release and no page
        # leaves the tree's folder to be found by asking each folder above it, nearest first,
        # for versions.json: the folders between it and the tree answer 404.
        probes = {"nope/deeper/x.html": [f"{root}nope/deeper/versions.json (404)", f"{root}nope/versions.json (404)"]}
        assert failed == probes.get(missing, [])
        assert tab.evaluate("getComputedStyle(document.querySelector('.md-header')).position") == "sticky"  # styled
        assert tab.evaluate("document.baseURI") == f"{root}{NEWEST}/"
        assert tab.locator(".fg-404-nearest a.fg-404-page").evaluate("a => a.href") == f"{root}{NEWEST}/{page}"
        if asked:
            assert tab.locator(".fg-404-nearest a.fg-404-asked").evaluate("a => a.href") == root + asked
        else:
            assert tab.locator(".fg-404-nearest a.fg-404-asked").count() == 0
        if missing.startswith("2.1.0/"):
            assert "no copy for torch 2.1.0" in tab.locator(".fg-404-nearest").inner_text()
            releases = tab.locator(".fg-404-nearest a.fg-404-release").evaluate_all("els => els.map(a => a.href)")
            assert releases == [f"{root}{NEWEST}/", f"{root}2.2.2/"]
        pages = tab.locator(".fg-404-pages a").evaluate_all("els => els.map(a => a.href)")
        assert len(pages) >= 6 and all(href.startswith(f"{root}{NEWEST}/") for href in pages), pages
        for href in pages + tab.locator(".fg-404-nearest a").evaluate_all("els => els.map(a => a.href)"):
            assert urllib.request.urlopen(href).status == 200, href
        assert axe_violations(tab) == []


def test_right_after_switching_into_a_section_on_a_phone_the_header_names_the_release(tree, browser):
    """Switching releases lands on the section, scrolled past the banner and the selector: the
    header's page-title line names the release switched to. (Seen failing with the header badge's
    script in fieldguide-reader.js removed.)"""
    with serve(tree) as base:
        context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
        page = context.new_page()
        page.goto(f"{base}/{DEFAULT}/guards/#{SECTION}")
        page.wait_for_selector(".md-version__current")
        _switch(page, "torch 2.2.2")
        page.wait_for_url(f"{base}/2.2.2/guards/#{SECTION}")
        page.wait_for_selector(".md-version__current", state="attached")
        assert _section_in_view(page, SECTION)
        page.wait_for_function("document.querySelector('.md-header__title--active')")
        page.wait_for_timeout(400)  # material's header animation
        badge = page.locator(".fg-header-release")
        assert badge.inner_text() == "torch 2.2.2"
        where = badge.bounding_box()
        assert where["x"] >= 0 and where["x"] + where["width"] <= 390 and 0 <= where["y"] < 48, where
        assert page.evaluate(
            "([x, y]) => document.elementFromPoint(x, y).classList.contains('fg-header-release')",
            [where["x"] + where["width"] / 2, where["y"] + where["height"] / 2],
        )
        context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_release_selector_is_named_by_what_it_shows(tree, browser, scheme):
    """axe, with its label-content-name-mismatch rule on (off by default: experimental), finds
    nothing serious on the published pages, where the selector is: its name starts with the
    release it shows. (Seen failing with release-selector.js's nameSelector() not called: material
    names it "Select version".)"""
    from axe_playwright_python.sync_playwright import Axe

    with serve(tree) as base:
        context = browser.new_context(color_scheme=scheme)
        page = context.new_page()
        for path in ("", "guards/", "releases/", "gym/"):
            page.goto(f"{base}/2.2.2/{path}")
            page.wait_for_selector(".md-version__current")
            page.wait_for_load_state("networkidle")
            selector = page.locator(".md-version__current")
            assert selector.get_attribute("aria-label").startswith(selector.inner_text().strip()), path
            results = Axe().run(page, options={"rules": {"label-content-name-mismatch": {"enabled": True}}})
            serious = [v for v in results.response["violations"] if v["impact"] in ("serious", "critical")]
            assert not serious, (path, [(v["id"], [n["target"] for n in v["nodes"][:3]]) for v in serious])
        context.close()
