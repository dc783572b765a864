"""The triage page: a symptom, the line to look for (quoted from this build's run), the section with the
remedy; and public questions the guide does not quote, each reaching a section whose remedy ran."""

from __future__ import annotations

import re
import tomllib

import pytest
from conftest import ROOT
from markdown.extensions.toc import slugify

from fieldguide.guide import triage
from fieldguide.run.record import BuildRecord

QUESTIONS = tomllib.loads((ROOT / "tests" / "fixtures" / "questions.toml").read_text())["question"]
_HEADING = re.compile(r"^(#{2,4}) (.*?)(?:\s*\{ #([\w-]+) \})?\s*$")


@pytest.fixture(scope="module")
def live(site_record) -> BuildRecord:
    return BuildRecord.from_json(site_record)


def section_source(section: str) -> str:
    """The Markdown of docs/<page>'s section `anchor`: from its heading to the next one of its level or higher."""
    page, anchor = section.split("#")
    lines = (ROOT / "docs" / page).read_text().splitlines()
    start = level = None
    for i, line in enumerate(lines):
        m = _HEADING.match(line)
        if not m:
            continue
        if start is not None and len(m.group(1)) <= level:
            return "\n".join(lines[start:i])
        if (m.group(3) or slugify(m.group(2), "-")) == anchor:
            start, level = i, len(m.group(1))
    assert start is not None, f"docs/{page} has no section #{anchor}"
    return "\n".join(lines[start:])


def _rows(live: BuildRecord) -> list[triage.Row]:
    """The rows the page builds: its exec blocks run against `live`, printing nothing (the page holds the
    sentences; this reads them from there)."""
    namespace: dict = {"print": lambda *a, **k: None, "_live": live}
    for block in re.findall(
        r'```python exec="on" session="triage"\n(.*?)```', (ROOT / "docs" / "triage.md").read_text(), re.S
    ):
        exec(block.replace("current()", "_live"), namespace)  # noqa: S102 - the page's own blocks
    return [r for v in namespace.values() if isinstance(v, list) for r in v if isinstance(r, triage.Row)]


def test_public_questions_reach_a_section_whose_remedy_ran(built_site, live):
    """At least 12 questions from public reports, none cited by the guide, each linked from the triage page to
    a section that holds its remedy's snippet, whose run this build recorded."""
    assert len(QUESTIONS) >= 12
    assert len({q["source"] for q in QUESTIONS}) == len(QUESTIONS)
    cited = "\n".join(p.read_text() for p in (ROOT / "docs").rglob("*.md"))
    page = (built_site / "triage" / "index.html").read_text()
    for q in QUESTIONS:
        number = re.search(r"(\d+)/?$", q["source"]).group(1)
        assert q["source"] not in cited and f"issues/{number})" not in cited, f"the guide already cites {q['source']}"
        name, anchor = q["section"].split("#")
        assert f'href="../{name.removesuffix(".md")}/#{anchor}"' in page, f"triage does not link {q['section']}"
        assert f'path="{q["remedy"]}"' in section_source(q["section"]), f"{q['remedy']} is not run in {q['section']}"
        ran = [s for s in live.snippets if s.path == f"snippets/{q['remedy']}"]
        assert ran and all(s.exit_code == 0 for s in ran), f"{q['remedy']} did not run on this build"


def test_each_triage_row_quotes_its_runs_own_line(built_site, live):
    """Every row's quoted line is a line of its run's output on this build (or the row says it printed none),
    and the row links a section that runs that snippet."""
    rows = _rows(live)
    assert len(rows) >= 12
    page = (built_site / "triage" / "index.html").read_text()
    for row in rows:
        result = triage._result(live, row)
        if row.guards:  # a row for several causes quotes one failed guard per cause
            lines = [ln for _, ln in triage.looked_for_each(result, row.guards)]
            assert any(lines), row.run
        else:
            lines = [triage.looked_for(result, row.look)]
        assert f'path="{row.run}"' in section_source(row.section), f"{row.run} does not run in {row.section}"
        for line in lines:
            assert line is None or line in result.output, row.run
            shown = line if line is None or len(line) <= triage.WIDTH else line[: triage.WIDTH - 1]
            assert shown is None or triage.html.escape(shown).replace("|", "&#124;") in page, row.run
    home = (built_site / "index.html").read_text()
    messages = (built_site / "messages" / "index.html").read_text()
    assert 'href="triage/"' in home and 'href="../triage/"' in messages


def test_each_triage_row_links_the_remedies_of_its_section(built_site, live):
    """Each row's last column also links the "What to do" heading where its section runs the remedies."""
    page = (built_site / "triage" / "index.html").read_text()
    for row in _rows(live):
        name, anchor = row.fix_section.split("#")
        heading = section_source(row.fix_section).splitlines()[0]
        assert re.match(r"^#{2,4} What to do\b", heading), f"{row.fix_section} is not a What to do heading: {heading}"
        assert f'href="../{name.removesuffix(".md")}/#{anchor}"' in page, f"triage does not link {row.fix_section}"
