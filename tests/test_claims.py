"""Claims and their evidence: every sentence about torch rests on output its page displays.

Each chapter is rendered (its `python exec` blocks run, as during a build) from the record of
every torch the tests hold: the live build and every captured record that is current for
today's snippets. Every claim must carry evidence; every evidence line must occur verbatim in
an output block of the same page; every value a claim quotes must occur in its evidence.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path

import pytest
from conftest import FRESH, ROOT
from fixtures import FIXTURES

from fieldguide.guide import claims
from fieldguide.guide.claims import Derived, Evidence, claim, problems
from fieldguide.guide.explain import render_page
from fieldguide.guide.jobs import site_jobs, stale_entries
from fieldguide.run.record import BuildRecord

# every page whose code renders from the chapter modules (the ones that state facts about torch)
CHAPTERS = sorted(p.name for p in (ROOT / "docs").glob("*.md") if "fieldguide.guide.chapters" in p.read_text())


def captured_records() -> dict[str, Path]:
    """Every record the repository holds: committed releases (records/) and test fixtures."""
    found = {
        p.name.removesuffix(".json.gz"): p for p in sorted((FIXTURES / "records").glob("torch-*.json.gz"))
    }  # a second 2.2.2
    found.update(
        {"records/" + p.name.removesuffix(".json.gz"): p for p in sorted((ROOT / "records").glob("torch-*.json.gz"))}
    )
    return found


RECORDS = captured_records()


def _current(build: BuildRecord) -> list[str]:
    """What today's pages need that this record lacks or holds from older snippets."""
    gaps = stale_entries(build, site_jobs(ROOT), ROOT / "snippets")
    chapter_runs = gaps["missing"] + gaps["stale"]
    return [g for g in chapter_runs if g.startswith(("snippets/guards/", "snippets/dynamic/"))]


@pytest.fixture(scope="module")
def live(site_record) -> BuildRecord:
    return BuildRecord.from_json(site_record)


def check_pages(build: BuildRecord) -> list[str]:
    found = []
    for page in CHAPTERS:
        rendered = render_page((ROOT / "docs" / page).read_text(), build)
        assert rendered.claims, f"docs/{page} rendered no claim from torch {build.torch}"
        for c in rendered.claims:
            found += [
                f"docs/{page} (torch {build.torch}): {p} — in: {c.text[:120]}" for p in problems(c, rendered.displayed)
            ]
    return found


def test_every_claim_of_the_live_build_rests_on_its_pages_output(live):
    assert {"guards.md", "dynamic.md"} <= set(CHAPTERS)
    assert check_pages(live) == []


@pytest.mark.parametrize("name", sorted(RECORDS))
def test_every_claim_of_a_captured_record_rests_on_its_pages_output(name):
    build = BuildRecord.read(RECORDS[name])
    gaps = _current(build)
    if gaps:
        pytest.skip(
            f"{name} predates today's snippets ({len(gaps)} chapter runs missing or stale, e.g. {gaps[0]}): "
            f"re-measure it with nox -s matrix"
        )
    assert check_pages(build) == []


def _tamper(build: BuildRecord, path: str, old: str, new: str, field: str = "stdout") -> BuildRecord:
    """A deliberately wrong record: what the chapter code reads differs from what the page displays."""
    wrong = copy.deepcopy(build)
    result = next(s for s in wrong.snippets if s.path == f"snippets/{path}")
    text = getattr(result, field) if field != "logs" else result.logs["guards"]
    assert old in text, (path, old)
    if field == "logs":
        result.logs["guards"] = text.replace(old, new)
    else:
        setattr(result, field, text.replace(old, new))
    return wrong


def test_a_sentence_quoting_a_count_the_output_does_not_show_fails(live):
    line = next(ln for ln in live.find("guards/module_counts.py").stdout.splitlines() if ln.startswith("ensemble of 4"))
    count = line.split("graphs=")[1]
    wrong = _tamper(live, "guards/module_counts.py", line, line.replace(f"graphs={count}", f"graphs={int(count) + 7}"))
    found = check_pages(wrong)
    assert any(f"quoted value '{int(count) + 7}' does not occur" in p for p in found), found


def test_a_sentence_read_from_another_run_than_the_one_shown_fails(live):
    """Issue 10, item 4: the quoted guard id must be the one in the log displayed above it."""
    result = live.find("guards/stale_helper.py")
    m = re.search(r"___check_obj_id\(G\['helper'\]\.__code__, (\d+)\)", result.log("guards"))
    assert m, "this torch printed no guard on the helper's code object"
    wrong = _tamper(live, "guards/stale_helper.py", m.group(1), "123456789", field="logs")
    found = check_pages(wrong)
    assert any("123456789" in p for p in found), found


def test_a_claim_without_evidence_or_with_an_unquoted_value_fails():
    assert problems(claim("Dynamo compiled {n} graphs.", n=3), {}) == [
        "no evidence",
        "quoted value '3' does not occur in the claim's evidence",
    ]
    ev = Evidence("python snippets/x.py", "entries=16  graphs=2")
    shown = {"python snippets/x.py": "entries=16  graphs=2\n"}
    assert problems(claim("{n} graphs", evidence=[ev], n=2), shown) == []
    assert problems(claim("{n} graphs", evidence=[ev], n=1), shown)  # "1" is not a digit of "16"
    assert problems(claim("slope {s}", evidence=[ev], s=Derived(0.7, "0.70")), shown) == []
    assert problems(claim("{n} graphs", evidence=[ev], n=2), {}) == [
        f"evidence from a run the page does not display: {ev.run}"
    ]


def test_every_fact_is_defined_once_and_evaluates_on_any_record(live):
    from fieldguide.guide import facts

    assert len(claims.FACTS) == len(set(claims.FACTS)) > 20
    values = facts.facts(live)
    for name, f in claims.FACTS.items():
        measured = facts.evaluate(f, live)
        if any(r.path.startswith("releases/") for r in f.runs) and measured is None:
            continue  # measured for the Across releases page
        assert measured is not None, name
        assert values[name] == f.show(measured.value)
        assert measured.evidence, f"fact {name!r} has no evidence"


def test_markers_survive_markdown_and_name_their_line():
    ev = Evidence("TORCH_LOGS=guards python snippets/a.py", "| +- GLOBAL_STATE: ___check_global_state() `x` *y* \\z")
    html = claims.markers_for([ev])
    for raw in ("|", "`", "*", "\\", "_"):
        assert raw not in html.split('data-line="')[1].split('"')[0]
    assert f'href="#{ev.anchor}"' in html and 'data-nth="0"' in html


SCRATCH_MKDOCS = """
site_name: scratch
docs_dir: docs
plugins:
  - markdown-exec
  - fieldguide:
      cache_dir: cache
markdown_extensions:
  - pymdownx.superfences
"""

CLAIMING_PAGE = """
# Scratch

```snippet path="count.py" show="{show}"
```

```python exec="on"
from fieldguide.guide.claims import claim, line_of
from fieldguide.run.context import result
r = result("count.py")
print(claim("It compiled {{n}} graphs.", n=2, evidence=[line_of(r, "graphs=")]).markdown())
```
"""


def test_the_build_fails_on_a_claim_whose_evidence_the_page_does_not_show(scratch):
    """The same page with show="both" is what every chapter does; the site's own build covers it."""
    (scratch.root / "mkdocs.yml").write_text(SCRATCH_MKDOCS)
    scratch.snippet("count.py", 'print("compiled graphs=2")\n')
    scratch.page("index.md", CLAIMING_PAGE.format(show="source"))
    proc = scratch.build(**FRESH)
    assert proc.returncode != 0, proc.stdout + proc.stderr
    assert "claims without their evidence on the page" in proc.stderr
    assert "evidence from a run the page does not display: python snippets/count.py" in proc.stderr


# -- the lessons' facts (lessons 1, 2 and 5) on every committed release ---------------------------
LESSON_RUNS = ("capture/", "breaks/", "realcode/")


def lesson_facts() -> dict:
    from fieldguide.guide import facts  # noqa: F401  (importing it registers every chapter's facts)

    return {n: f for n, f in claims.FACTS.items() if all(r.path.startswith(LESSON_RUNS) for r in f.runs)}


def test_each_lesson_states_its_facts():
    found = lesson_facts()
    for prefix in ("capture: ", "breaks: ", "realcode: "):
        assert sum(n.startswith(prefix) for n in found) >= 7, prefix


@pytest.mark.parametrize("name", sorted(n for n in RECORDS if n.startswith("records/")))
def test_every_lesson_fact_is_evaluated_on_every_committed_record(name):
    """Each fact of lessons 1, 2 and 5 has a value on every release, resting on lines of the output it read."""
    from fieldguide.guide import facts

    build = BuildRecord.read(RECORDS[name])
    for fact_name, f in lesson_facts().items():
        measured = facts.evaluate(f, build)
        assert measured is not None, f"{name}: “{fact_name}” has no value"
        assert measured.evidence, f"{name}: “{fact_name}” has no evidence"
        outputs = {claims.command(r): r.output for r in (run.find(build) for run in f.runs)}
        for ev in measured.evidence:
            assert ev.run in outputs, (fact_name, ev.run)
            assert ev.line and ev.line in outputs[ev.run], (
                f"{name}: “{fact_name}” rests on {ev.line!r}, not in {ev.run}"
            )


def test_lesson_facts_fill_their_rows_of_the_across_releases_table():
    from fieldguide.guide import releases

    default, _ = releases.releases_list(ROOT)
    cols = releases.columns(ROOT, BuildRecord.read(releases.record_file(ROOT, default)))
    rows = releases.fact_rows(cols, ROOT / "snippets")
    for fact_name in lesson_facts():
        cells = rows[fact_name]
        assert [c.state for c in cells] == ["ok"] * len(cols), (fact_name, [c.state for c in cells])
        assert all(c.value for c in cells), (fact_name, [c.value for c in cells])
