"""Explanations are written per outcome, in the page, and the build holds them to every release.

A page's explain block holds one text per named outcome of a fact; the build renders the text of
the outcome the fact took, and fails when any committed release took an outcome the block has no
text for, naming the fact, the outcome and the releases. What only the live build took without a
text (a torch no record holds) shows the `unrecognised` text instead (tests/test_outcomes.py).
"""

from __future__ import annotations

import re

import pytest
from conftest import ROOT, mkdocs_build

from fieldguide.guide import explain, releases
from fieldguide.guide.claims import FACTS, UNRECOGNISED, Derived, Fact, Measured, line_of, run
from fieldguide.guide.explain import ExplainError, find_blocks
from fieldguide.guide.explain import render_blocks as render_page
from fieldguide.run.record import BuildRecord
from fieldguide.tools import bench

BREAKS = (ROOT / "docs" / "breaks.md").read_text()
COUNT_FACT = "breaks: graph breaks on the graph_breaks channel"


def committed() -> list[tuple[str, BuildRecord]]:
    _, listed = releases.releases_list(ROOT)
    return [(r, releases.read_record(releases.record_file(ROOT, r))) for r in listed]


def without_text(page: str, fact_name: str, outcome: str) -> str:
    """The page with one outcome's text taken out of the fact's block."""
    start = page.index(f'```explain fact="{fact_name}"')
    end = page.index("```", page.index("\n", start)) + 3
    block = page[start:end]
    cut = re.sub(rf"\[{re.escape(outcome)}\]\n.*?(?=\n\[|\n```)", "", block, flags=re.S)
    assert cut != block, "the outcome's text was not found"
    return page[:start] + cut + page[end:]


def test_removing_one_outcomes_text_fails_the_build_naming_fact_outcome_and_releases(tmp_path, built_site):
    """Breakage checked: with the coverage check in explain.check() skipped, this build passes."""
    site = bench.copy_site(tmp_path / "copy")
    page = site / "docs" / "breaks.md"
    page.write_text(without_text(page.read_text(), COUNT_FACT, "one"))
    proc = mkdocs_build(site, tmp_path / "out", {"FIELDGUIDE_REPLAY": str(built_site / "record.json")})
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    took = [r for r, b in committed() if explain.outcome_on(explain.FACTS[COUNT_FACT], b).outcome == "one"]
    assert took, "no committed release takes the outcome this test removes"
    assert f"fact '{COUNT_FACT}' took the outcome 'one' on torch {', '.join(took)}" in out, out[-3000:]
    assert "docs/breaks.md" in out


def test_every_block_of_every_page_covers_every_committed_release():
    """The same check the build makes, without a build: every outcome any release took has a text."""
    records = committed()
    problems = []
    for page in sorted((ROOT / "docs").rglob("*.md")):
        for block in find_blocks(page.read_text()):
            problems += [f"{page.relative_to(ROOT)}: {p}" for p in explain.check(block, records)]
    assert problems == []


def test_the_text_shown_is_the_one_written_for_the_outcome_taken():
    records = dict(committed())
    build = records["2.13.0"]
    rendered = render_page(BREAKS, build, build.torch, records.items())[1]
    by_fact = {r.block.fact: r for r in rendered}
    count = by_fact[COUNT_FACT]
    assert count.outcome == explain.outcome_on(explain.FACTS[COUNT_FACT], build).outcome
    measured = explain.outcome_on(explain.FACTS[COUNT_FACT], build)
    assert count.claim.text == explain.fill(count.block.texts[count.outcome], measured).text
    assert f"<!-- fg-explain {COUNT_FACT} = {count.outcome} -->" in count.markdown


# -- the block syntax and its errors, on a fact of this test's own -------------------------------
def _measure_parity(result) -> Measured:
    n = result.output.count("Graph break")
    if n > 99:
        raise ValueError("more graph breaks than this fact can read")
    return Measured(n, (line_of(result, "Graph break"),), "even" if n % 2 == 0 else "odd", {"n": Derived(n)})


_parity = Fact(
    "test: parity of the first count",
    (run("breaks/logged.py", "graph_breaks"),),
    _measure_parity,
    outcomes=("even", "odd", UNRECOGNISED),
)


@pytest.fixture(autouse=True)
def _registered(monkeypatch):
    monkeypatch.setitem(FACTS, _parity.name, _parity)


def _page(body: str) -> str:
    return f'# T\n\n```explain fact="test: parity of the first count"\n{body}\n```\n\nafter\n'


def _one_record():
    return [("2.13.0", releases.read_record(releases.record_file(ROOT, "2.13.0")))]


def test_a_heading_naming_an_undeclared_outcome_fails():
    page = _page("[odd]\nOdd: {n}.\n\n[even]\nEven.\n\n[odd-ish]\nNo such outcome.")
    with pytest.raises(ExplainError, match=r"has no outcome 'odd-ish' \(its outcomes: even, odd, unrecognised\)"):
        render_page(page, _one_record()[0][1], "2.13.0", _one_record())


def test_a_slot_the_fact_does_not_measure_fails():
    page = _page("[odd]\nOdd: {count}.\n\n[even]\nEven.")
    with pytest.raises(ExplainError, match=r"names \{count\}, which it does not measure"):
        render_page(page, _one_record()[0][1], "2.13.0", _one_record())


def test_text_before_a_heading_and_unclosed_blocks_fail():
    with pytest.raises(ExplainError, match="text before the first"):
        render_page(_page("Loose text.\n[odd]\nOdd."), _one_record()[0][1], "2.13.0", _one_record())
    with pytest.raises(ExplainError, match="not closed"):
        render_page('```explain fact="x"\n[a]\ntext\n', _one_record()[0][1], "2.13.0", _one_record())


def test_a_measurement_that_raises_is_unrecognised_never_a_known_outcome():
    build = _one_record()[0][1]
    result = build.find("breaks/logged.py", TORCH_LOGS="graph_breaks")
    flooded = type(result)(**{**result.__dict__, "output": "Graph break\n" * 100})
    only = BuildRecord.new(build.torch, [flooded])
    m = explain.outcome_on(_parity, only)
    assert m.outcome == UNRECOGNISED and "more graph breaks" in str(m.value)
    page = _page("[odd]\nOdd.\n\n[even]\nEven.")
    with pytest.raises(ExplainError, match=r"took the outcome 'unrecognised' on torch 9\.9\.9"):
        render_page(page, only, "9.9.9", [("9.9.9", only)])


def test_a_live_torch_no_record_holds_gets_a_notice_not_a_borrowed_text():
    build = _one_record()[0][1]
    taken = explain.outcome_on(_parity, build).outcome
    other = "even" if taken == "odd" else "odd"
    page = _page(f"[{other}]\nOnly the other outcome has text.")
    text, rendered = render_page(page, build, "9.9.9")  # no committed record to check against
    assert "Not explained on torch 9.9.9" in text and f"took the outcome <code>{taken}</code>" in text
    assert f"fg-explain {_parity.name} = unrecognised (measured: {taken})" in text
    assert "Only the other outcome has text" not in text and rendered[0].claim is None and rendered[0].uncovered


def test_blocks_shown_inside_other_code_blocks_are_examples_not_blocks():
    page = '````markdown\n```explain fact="nothing"\n[a]\ntext\n```\n````\n'
    assert find_blocks(page) == []


def test_the_review_view_lays_out_each_explanation_with_its_outcome_and_evidence(tmp_path):
    from fieldguide.tools import review

    out = tmp_path / "review.md"
    assert review.main(["2.2.2", "--out", str(out), "--docs", str(ROOT / "docs")]) == 0
    text = out.read_text()
    build = releases.read_record(releases.record_file(ROOT, "2.2.2"))
    measured = explain.outcome_on(explain.FACTS[COUNT_FACT], build)
    section = text[text.index(f"{COUNT_FACT} (line") :]
    section = section[: section.index("\n### ")]
    assert f"Outcome: **{measured.outcome}**" in section
    assert all(f"`{ev.line}`" in section for ev in measured.evidence)
    assert "2.2.2" in section.split("Across releases:")[1]


def test_order_outcomes_are_declared_outcomes_of_a_fact_that_varies():
    """`orders` (outcomes that only say which timing came out lower) are named outcomes, on a timing."""
    from fieldguide.guide.claims import fact

    with pytest.raises(ValueError, match="orders"):
        fact("test: orders outside the outcomes", outcomes=("a", "b"), varies=True, orders=("c",))
    with pytest.raises(ValueError, match="orders"):
        fact("test: orders on a fact that does not vary", outcomes=("a", "b"), orders=("a", "b"))
    ordered = [f for f in FACTS.values() if f.orders]
    assert ordered and all(f.varies and set(f.orders) <= set(f.outcomes) for f in ordered)
