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
