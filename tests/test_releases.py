"""The Across releases page: facts per release from the committed records, stale entries never shown as current,
and no release number typed into a chapter."""

from __future__ import annotations

import copy
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from conftest import ROOT

from fieldguide.guide import releases
from fieldguide.run.record import BuildRecord

DEFAULT, LISTED = releases.releases_list(ROOT)
RELEASE_RE = re.compile(r"(?<![\w.])2\.\d{1,2}(?:\.\d+)?(?![\w.]*\d)")


def live_record() -> BuildRecord:
    """A stand-in for the live build in unit tests: the default release's committed record."""
    return BuildRecord.read(releases.record_file(ROOT, DEFAULT))


class _Table(HTMLParser):
    def __init__(self):
        super().__init__()
        self.headers, self.rows, self.links, self._row, self._in = [], [], [], None, None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "tr":
            self._row = []
        elif tag in ("th", "td"):
            self._in = tag
            if self._row is not None:
                self._row.append("")
        elif tag == "a" and "href" in a:
            self.links.append(a["href"])

    def handle_endtag(self, tag):
        if tag == "tr" and self._row is not None:
            self.rows.append(self._row)
            self._row = None

    def handle_data(self, data):
        if self._row is not None and self._row:
            self._row[-1] += data


def test_one_column_per_listed_release_oldest_first_the_live_build_standing_in_for_its_own():
    live = live_record()
    cols = releases.columns(ROOT, live)
    assert [c.release for c in cols] == LISTED
    (own,) = [c for c in cols if c.live]
    assert own.release == DEFAULT and own.build is live


def test_a_live_torch_no_record_holds_gets_its_own_column_in_version_order_marked_not_recorded():
    """`nox -s docs -- --torch 2.12.0` (a release between two listed ones): the other columns keep
    their committed records, and the live build is a column of its own, never one of theirs."""
    from packaging.version import Version

    live = copy.copy(live_record())
    live.torch = "2.12.0"
    cols = releases.columns(ROOT, live)
    assert [c.release for c in cols] == sorted({*LISTED, "2.12.0"}, key=Version)
    (own,) = [c for c in cols if c.live]
    assert (own.release, own.recorded, own.build) == ("2.12.0", False, live)
    assert all(c.build is releases.read_record(releases.record_file(ROOT, c.release)) for c in cols if not c.live)
    head = releases.matrix_table(cols, {})
    assert '<th scope="col" data-release="2.12.0" data-live="true" data-recorded="false"' in head
    exact = live.torch_build.get("version") or live.torch
    assert f"2.12.0 (this build: torch {exact}, not recorded)" in head and head.count("(this build") == 1


def test_a_changed_snippet_makes_its_cells_stale_never_the_old_value():
    live = live_record()
    old = copy.deepcopy(BuildRecord.read(releases.record_file(ROOT, LISTED[0])))
    # that release was measured from another version of anatomy.py than today's
    for s in old.snippets:
        if s.path == "snippets/guards/anatomy.py":
            s.digest = "0" * 16
    cols = [
        releases.Column(
            LISTED[0], old, stale={(s.path, tuple(sorted(s.env.items()))) for s in old.snippets if s.digest == "0" * 16}
        ),
        releases.Column(DEFAULT, live, live=True),
    ]
    rows = releases.fact_rows(cols, ROOT / "snippets")
    cell = rows["guards: dump format"][0]
    assert cell.state == "stale" and cell.value is None
    html = releases.matrix_table(cols, rows)
    assert f"nox -s matrix -- {LISTED[0]}" in html
    text = releases.output_files(cols)[releases.output_path(LISTED[0], cell.sources[0])]
    assert "STALE" in text.splitlines()[1]
    assert LISTED[0] in releases.history(cols, rows, "guards: dump format")  # named as not currently measured


def test_history_names_each_run_of_equal_values_from_the_records():
    cols = releases.columns(ROOT, live_record())
    rows = releases.fact_rows(cols, ROOT / "snippets")
    for name, cells in rows.items():
        sentence = releases.history(cols, rows, name)
        values = {c.value for c in cells if c.state == "ok"}
        for v in values:
            assert f"`{v}`" in sentence, (name, v, sentence)
        first = next((col.release for col, c in zip(cols, cells, strict=True) if c.state == "ok"), None)
        if first:
            assert first in sentence


def test_built_page_has_every_release_and_every_cell_links_an_existing_output(built_site):
    page = (built_site / "releases" / "index.html").read_text()
    table = _Table()
    table.feed(page[page.index('<div class="fg-matrix"') : page.index("</table>")])
    header = [h.strip() for h in table.rows[0]]
    assert header[0] == "fact" and [h.split(" ")[0] for h in header[1:]] == LISTED
    assert f"{DEFAULT} (this build)" in header
    assert len(table.rows) > 10
    outputs = [link for link in table.links if "outputs/torch-" in link]
    assert outputs
    for link in outputs:
        target = (built_site / "releases" / link).resolve()
        assert target.is_file(), link
        assert target.read_text().startswith("# torch ")


CODE_BLOCK = re.compile(r"^(```|~~~).*?^\1", re.S | re.M)


@pytest.mark.parametrize("page", sorted(p.name for p in (ROOT / "docs").glob("*.md") if p.name != "releases.md"))
def test_no_release_number_is_typed_into_chapter_prose(page):
    text = CODE_BLOCK.sub("", (ROOT / "docs" / page).read_text())
    text = re.sub(r"`[^`\n]*`", "", text)  # inline code: names and commands, not claims
    assert not RELEASE_RE.findall(text), f"docs/{page} types a torch release into its prose: render it from the records"


def _string_constants(path: Path):
    import ast

    tree = ast.parse(path.read_text())
    docstrings = {
        id(n.body[0].value)
        for n in ast.walk(tree)
        if isinstance(n, (ast.Module, ast.FunctionDef, ast.ClassDef)) and n.body and isinstance(n.body[0], ast.Expr)
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            yield node.lineno, node.value


@pytest.mark.parametrize(
    "module", sorted(p.name for p in (ROOT / "src" / "fieldguide" / "guide" / "chapters").glob("*.py"))
)
def test_no_release_number_is_typed_into_chapter_code_strings(module):
    found = [
        (line, s)
        for line, s in _string_constants(ROOT / "src" / "fieldguide" / "guide" / "chapters" / module)
        if RELEASE_RE.search(s)
    ]
    assert not found, f"chapters/{module} types torch releases into its strings: {found[:5]}"


def _records_copy(root: Path, release: str, alter) -> None:
    """A records/ folder under `root`: releases.toml and every committed record as they are, but
    `release`'s record rewritten through `alter(data)` (its JSON, changed in place)."""
    import gzip
    import json
    import shutil

    (root / "records").mkdir()
    shutil.copy(ROOT / "records" / "releases.toml", root / "records" / "releases.toml")
    for r in LISTED:
        src = releases.record_file(ROOT, r)
        if not src.exists():
            continue
        if r == release:
            data = json.loads(gzip.decompress(src.read_bytes()))
            alter(data)
            releases.record_file(root, r).write_bytes(gzip.compress(json.dumps(data).encode()))
        else:
            releases.record_file(root, r).symlink_to(src)


def test_an_entry_measured_from_another_source_is_stale_in_the_table_never_current(tmp_path):
    """The promise (README, *The release matrix*): an entry whose snippet changed after its release
    was measured is shown as stale, never as that release's output. Staleness is decided by the
    committed record's source digests against today's: here one committed record's copy has one
    entry's digest altered, and every cell read from that entry (and only those) turns stale,
    with no value, in the live build's table and in a copy replayed from a record (publish).

    Checked against the breakage: releases.columns made to treat every entry as current whatever
    its digest (`stale = set()`) -> the cells keep their old value ("ok") and this test fails."""
    from fieldguide.run.context import ReplayState

    live = live_record()
    snippets = ROOT / "snippets"
    before_cols = releases.columns(ROOT, live)
    before = releases.fact_rows(before_cols, snippets)
    i, release = next((i, c.release) for i, c in enumerate(before_cols) if not c.live and c.build is not None)
    # an entry of that release that is current today and that a fact's cell reads
    name, cell = next(
        (n, cells[i])
        for n, cells in before.items()
        if cells[i].state == "ok" and cells[i].value and not n.startswith(releases.GYM_ROW)
    )
    target = releases._key(cell.sources[0])

    def alter(data):
        (entry,) = [s for s in data["snippets"] if (s["path"], tuple(sorted(s.get("env", {}).items()))) == target]
        entry["digest"] = "0" * 16  # measured from another version of the snippet than today's

    _records_copy(tmp_path, release, alter)
    today = {releases._key(s): s.digest for s in live.snippets}
    for replay in (None, ReplayState(torch=DEFAULT, today=today)):
        cols = releases.columns(tmp_path, live, replay)
        assert cols[i].release == release and cols[i].stale == {target}, cols[i].stale
        rows = releases.fact_rows(cols, snippets)
        hit = 0
        for n, cells in rows.items():
            if any(releases._key(s) == target for s in cells[i].sources):
                hit += 1
                assert (cells[i].state, cells[i].value) == ("stale", None), (n, cells[i])
            else:
                assert (cells[i].state, cells[i].value) == (before[n][i].state, before[n][i].value), n
        assert hit and rows[name][i].state == "stale"
        tds = re.findall(r"<td([^>]*)>(.*?)</td>", releases.matrix_table(cols, {name: rows[name]}))
        attrs, shown = tds[i]
        assert 'class="fg-cell-stale"' in attrs and "data-value" not in attrs, tds[i]
        assert re.sub(r"<[^>]+>", "", shown).startswith("stale"), shown
        assert release in releases.history(cols, rows, name).split("No current measurement for", 1)[1]


def test_each_column_of_the_built_table_is_its_own_releases_measurement(built_site, site_record):
    """The promise (README, *The release matrix*): each column is read from that release's own run,
    the default release's from this build. Every value the built Across releases page shows (the
    facts and the gym's answers behind the spoiler) equals the fact evaluated on its own column's
    record, and the columns differ where the releases do (so a page showing one record's values in
    every column cannot pass).

    Checked against the breakage: releases._fact_rows made to evaluate every column's facts on the
    live build's record (all fourteen columns show the default release's values) -> the 2.2.2
    column's values differ from 2.2.2's own facts and this test fails."""
    from html import unescape

    from fieldguide.guide.facts import facts_with_sources

    page = (built_site / "releases" / "index.html").read_text()
    own = {
        r: facts_with_sources(BuildRecord.read(releases.record_file(ROOT, r)), ROOT / "snippets")
        for r in LISTED
        if r != DEFAULT and releases.record_file(ROOT, r).exists()
    }
    own[DEFAULT] = facts_with_sources(BuildRecord.from_json(site_record), ROOT / "snippets")
    compared, differ = 0, 0
    for table in re.findall(r'<div class="fg-matrix".*?</table>', page, re.S):
        header = re.findall(r'<th scope="col" data-release="([^"]+)"', table)
        assert header == LISTED
        for name, cells in re.findall(r'<tr><th scope="row">(.*?)</th>(.*?)</tr>', table, re.S):
            name = unescape(name)
            tds = re.findall(r"<td([^>]*)>", cells)
            assert len(tds) == len(header), name
            live_value = own[DEFAULT].get(name, (None,))[0]
            for release, td in zip(header, tds, strict=True):
                m = re.search(r'data-value="([^"]*)"', td)
                if m is None:  # stale, missing, not measured: no value shown
                    continue
                assert release in own, (name, release)
                assert name in own[release], (name, release)
                assert unescape(m.group(1)) == own[release][name][0], (name, release)
                compared += 1
                differ += unescape(m.group(1)) != live_value
    assert compared > 100, compared
    assert differ > 10, f"only {differ} values differ from the live build's: the columns are not told apart"


def test_the_text_checks_hold_a_release_only_to_its_current_entries(tmp_path):
    """releases.current drops the entries a snippet edit made stale (their outputs answer for the
    old source); the others, and a record with none, stay the very same objects."""
    import dataclasses
    import shutil

    (tmp_path / "records").mkdir()
    shutil.copy(ROOT / "records" / "torch-2.2.2.json.gz", tmp_path / "records")
    (tmp_path / "records" / "releases.toml").write_text('default = "2.2.2"\nreleases = ["2.2.2"]\n')
    old = BuildRecord.read(tmp_path / "records" / "torch-2.2.2.json.gz")
    live = dataclasses.replace(old, snippets=[dataclasses.replace(s) for s in old.snippets])
    assert releases.current(tmp_path, live)[0][1] is releases.committed(tmp_path)[0][1]
    live.snippets[0].digest = "0" * 16  # today's source of that snippet differs from the measured one
    ((_, pruned),) = releases.current(tmp_path, live)
    assert len(pruned.snippets) == len(old.snippets) - 1
    edited = (live.snippets[0].path, live.snippets[0].env)
    assert edited not in [(s.path, s.env) for s in pruned.snippets]
    assert releases.current(tmp_path, live)[0][1] is pruned  # kept for as long as nothing changes


def test_a_copy_rendered_from_a_record_holds_the_releases_to_todays_sources(tmp_path):
    """Under replay (nox -s publish) the live record is a release's own, measured from the sources
    of its day: current() judges staleness by the replay's `today`, as the table's columns do."""
    import shutil

    from fieldguide.run.context import ReplayState

    (tmp_path / "records").mkdir()
    shutil.copy(ROOT / "records" / "torch-2.2.2.json.gz", tmp_path / "records")
    (tmp_path / "records" / "releases.toml").write_text('default = "2.2.2"\nreleases = ["2.2.2"]\n')
    old = BuildRecord.read(tmp_path / "records" / "torch-2.2.2.json.gz")
    today = {releases._key(s): s.digest for s in old.snippets}
    first = releases._key(old.snippets[0])
    today[first] = "0" * 16  # today's source of that snippet is not the one 2.2.2 was measured from
    ((_, pruned),) = releases.current(tmp_path, old, ReplayState(torch="2.2.2", today=today))
    assert first not in {releases._key(s) for s in pruned.snippets}
    assert len(pruned.snippets) == len(old.snippets) - 1
    assert releases.current(tmp_path, old)[0][1] is releases.committed(tmp_path)[0][1]  # live: nothing stale
