"""The guide on a torch it has never seen: outcomes no text foresaw are shown as `unrecognised` and listed.

A record whose outputs are altered so that two facts take outcomes no explain block has a text
for stands in for a new torch (a build renders it with FIELDGUIDE_REPLAY, executing nothing):
those two facts, and only those, are listed on the build report and at the end of the build, and
their pages carry the `unrecognised` text, never the text of another outcome; with
strict_outcomes the build fails, naming each fact, its page and the value measured.
"""

from __future__ import annotations

import dataclasses
import html
import re

import pytest
from conftest import ROOT, mkdocs_build

from fieldguide.guide import explain, gym, outcomes, releases
from fieldguide.guide.claims import FACTS, UNRECOGNISED
from fieldguide.run.record import BuildRecord

# Two snippets each read by one fact that one explain block explains (and by nothing else the
# pages measure, no table included): altering their output makes exactly those two facts unforeseen.
ALTERED = {
    "snippets/dynamic/first_size_one.py": ("marks: a first call with one row", "dynamic.md", "dynamic/"),
    "snippets/realcode/stance_test.py": (
        "realcode: a fail_on_recompile test (fixed batch size, batch marked dynamic)",
        "realcode.md",
        "realcode/",
    ),
}
OTHER = "this torch printed something else\n"


def altered_record(torch: str = "2.13.0") -> BuildRecord:
    build = releases.read_record(releases.record_file(ROOT, torch))
    build = dataclasses.replace(build, snippets=list(build.snippets))
    for i, s in enumerate(build.snippets):
        if s.path in ALTERED:
            build.snippets[i] = dataclasses.replace(s, stdout=OTHER, output=OTHER, logs={k: "" for k in s.logs})
    return build


def pages() -> dict[str, str]:
    return {f"docs/{p.relative_to(ROOT / 'docs')}": p.read_text() for p in sorted((ROOT / "docs").rglob("*.md"))}


def block_of(fact: str, page: str) -> explain.Block:
    return next(b for b in explain.find_blocks((ROOT / "docs" / page).read_text()) if b.fact == fact)


def test_the_survey_lists_exactly_the_facts_whose_outcome_no_text_covers():
    committed = releases.read_record(releases.record_file(ROOT, "2.13.0"))
    assert outcomes.survey(pages(), committed, ROOT / "snippets") == []
    found = outcomes.survey(pages(), altered_record(), ROOT / "snippets")
    assert sorted(u.name for u in found) == sorted(name for name, _, _ in ALTERED.values())
    for u in found:
        _, page, url = next(v for v in ALTERED.values() if v[0] == u.name)
        assert (u.kind, u.page, u.outcome) == ("explain", page, UNRECOGNISED)
        assert u.url.startswith(url + "#") and u.section and u.needs.startswith(f"docs/{page}, line ")
        assert u.value  # the reason the measurement fits no named outcome


def _phrases(text: str) -> list[str]:
    """Stretches of a text that survive rendering as they are (no markup, no slot), 30 characters or more."""
    return [p.strip() for p in re.split(r"[`{}*_\[\]()<>|\n]", text) if len(p.strip()) >= 30]


@pytest.fixture(scope="module")
def altered_build(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("altered")
    record = tmp / "record.json"
    altered_record().write(record)
    out = tmp / "site"
    proc = mkdocs_build(ROOT, out, {"FIELDGUIDE_REPLAY": str(record), "FIELDGUIDE_CACHE": "0"})
    return proc, out, record


def test_a_new_outcome_shows_the_unrecognised_text_and_is_listed_on_the_report(altered_build):
    proc, out, _ = altered_build
    assert proc.returncode == 0, proc.stderr[-3000:]
    log = proc.stdout + proc.stderr
    assert "2 fact(s) took an outcome on torch 2.13.0+cpu that no text covers" in log
    for name, page, url in ALTERED.values():
        assert name in log
        text = (out / url / "index.html").read_text()
        assert f"fg-explain {name} = {UNRECOGNISED} (measured: {UNRECOGNISED})" in text
        assert "fg-unrecognised" in text and "Not explained on torch" in text
        block = block_of(name, page)
        for outcome, written in block.texts.items():  # no other outcome's words on the page
            for phrase in _phrases(written):
                assert html.escape(phrase, quote=False) not in text, (name, outcome, phrase)
    report = (out / "build" / "report" / "index.html").read_text()
    section = report[report.index('id="outcomes-no-text-covers"') : report.index('id="snippets"')]
    listed = [html.unescape(re.sub(r"<[^>]+>", "", m)) for m in re.findall(r"<tr>\s*<td><code>(.*?)</code>", section)]
    assert sorted(listed) == sorted(name for name, _, _ in ALTERED.values())
    for _, _, url in ALTERED.values():
        assert f'href="../../{url}#' in section
    from fieldguide.tools import diff

    written = BuildRecord.read(out / "record.json").uncovered  # the record keeps the list: diff reports it
    assert sorted(u["name"] for u in written) == sorted(listed)
    committed = releases.read_record(releases.record_file(ROOT, "2.13.0"))
    md = diff.to_markdown(diff.compare(committed, BuildRecord.read(out / "record.json"), ROOT / "snippets"))
    assert "### Outcomes no text covers on torch `2.13.0+cpu` (2)" in md
    assert all(f"`{name}`" in md for name, _, _ in ALTERED.values())
    index = (out / "index.html").read_text()
    assert (
        'href="../build/report/#outcomes-no-text-covers"' in index or "build/report/#outcomes-no-text-covers" in index
    )


def test_strict_outcomes_fails_the_build_naming_fact_page_and_value(altered_build, tmp_path):
    _, _, record = altered_build
    proc = mkdocs_build(
        ROOT,
        tmp_path / "site",
        {"FIELDGUIDE_REPLAY": str(record), "FIELDGUIDE_CACHE": "0", "FIELDGUIDE_STRICT_OUTCOMES": "1"},
    )
    log = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert "2 fact(s) took an outcome on torch 2.13.0+cpu that no text covers" in log
    found = outcomes.survey(pages(), BuildRecord.read(record), ROOT / "snippets")
    for u in found:
        assert repr(u.name) in log and f"on {u.page}" in log and repr(u.value) in log
    assert not (tmp_path / "site").exists()


def test_a_block_s_own_unrecognised_text_is_used_before_the_notice():
    name, page, _ = ALTERED["snippets/dynamic/first_size_one.py"]
    block = block_of(name, page)
    m = explain.outcome_on(FACTS[name], altered_record())
    assert m.outcome == UNRECOGNISED and explain.uncovered(block, m)
    notice = explain.render(block, altered_record(), "2.99.0")
    assert notice.uncovered and notice.claim is None and "Not explained on torch 2.99.0" in notice.markdown
    own = dataclasses.replace(block, texts={**block.texts, UNRECOGNISED: "The page's own words for the unforeseen."})
    shown = explain.render(own, altered_record(), "2.99.0")
    assert shown.uncovered and "The page's own words for the unforeseen." in shown.markdown
    assert "Not explained" not in shown.markdown


def test_a_measured_value_cannot_put_markup_on_the_page():
    m = explain.Measured("<script>x</script> [a](b) *c* `d` {e}\nnext", (), UNRECOGNISED)
    text = explain.unrecognised_notice("a fact", m, "2.99.0")
    assert "<script>" not in text and "](" not in text and "*c*" not in text and "`d`" not in text
    assert len(text.strip().splitlines()) == 2  # the admonition's title line and one body line


def test_a_scenario_outcome_no_drill_text_covers_gets_the_notice_never_another_text():
    build = releases.read_record(releases.record_file(ROOT, "2.13.0"))
    drill = gym.load_drills(ROOT / "snippets")[0]
    s = drill.scenarios[0]
    answer = gym.measure(s, gym.find_result(build, s))
    assert not gym.uncovered(drill, s, answer)
    new = dataclasses.replace(answer, outcome=answer.outcome + ": a reading no text foresaw")
    assert gym.uncovered(drill, s, new)
    shown = gym.reveal_text(drill, s, new, "2.99.0")
    assert "fg-unrecognised" in shown and "Not explained on torch 2.99.0" in shown
    written = drill.text(s, answer.outcome)
    assert all(html.escape(p, quote=False) not in shown for p in _phrases(written))
