"""Every cause ends in what to do (#31 item 1): each section of lessons 2-6 ends in a `### What to do`
heading whose explain blocks state facts measured by a snippet that runs in that same section, on this
build; each kind of message on *Find a message* ends in a link to one of those headings."""

from __future__ import annotations

import re
from dataclasses import dataclass

import pytest
from conftest import ROOT
from markdown.extensions.toc import slugify

from fieldguide.guide import facts  # noqa: F401 - registers every chapter's facts
from fieldguide.guide.claims import FACTS, UNRECOGNISED
from fieldguide.guide.explain import find_blocks
from fieldguide.run.fences import find_fences
from fieldguide.run.record import BuildRecord

LESSONS = ("breaks", "guards", "dynamic", "realcode", "nextprocess")
NOT_A_CAUSE = {"where-next", "run-it-yourself"}  # sections that point elsewhere and explain no cause
_HEADING = re.compile(r"^(#{1,6}) (.*?)(?:\s*\{ #([\w-]+) \})?\s*$")
_FIX = re.compile(r"^What to do\b")


@dataclass
class Section:
    page: str
    level: int
    anchor: str
    title: str
    text: str  # its Markdown, heading included, up to the next heading of its level or higher
    subsections: list[Section]

    @property
    def ref(self) -> str:
        return f"{self.page}#{self.anchor}"


def sections(page: str, level: int = 2) -> list[Section]:
    """The sections of docs/<page> at `level`, each with its subsections one level down."""
    lines = (ROOT / "docs" / page).read_text().splitlines()
    heads, fence = [], None
    for i, line in enumerate(lines):
        opened = re.match(r"^\s*(`{3,}|~{3,})", line)
        if opened and fence is None:
            fence = opened.group(1)
            continue
        if fence is not None:
            fence = None if line.strip() == fence else fence
            continue
        m = _HEADING.match(line)
        if m:
            heads.append((i, len(m.group(1)), m.group(3) or slugify(m.group(2), "-"), m.group(2)))

    def build(level: int, lo: int, hi: int) -> list[Section]:
        out = []
        mine = [h for h in heads if lo <= h[0] < hi and h[1] == level]
        for i, lvl, anchor, title in mine:
            end = next((h[0] for h in heads if h[0] > i and h[1] <= lvl), len(lines))
            out.append(Section(page, lvl, anchor, title, "\n".join(lines[i:end]), build(lvl + 1, i + 1, end)))
        return out

    return build(level, 0, len(lines))


def lesson_sections() -> list[Section]:
    return [s for page in LESSONS for s in sections(f"{page}.md") if s.anchor not in NOT_A_CAUSE]


def fix_of(section: Section) -> Section | None:
    """The section's `What to do` subsection, if it is the last one."""
    last = section.subsections[-1] if section.subsections else None
    return last if last and _FIX.match(last.title) else None


@pytest.fixture(scope="module")
def live(site_record) -> BuildRecord:
    return BuildRecord.from_json(site_record)


@pytest.mark.parametrize("section", lesson_sections(), ids=lambda s: s.ref)
def test_section_ends_in_a_remedy_run_in_it(section: Section, live: BuildRecord, built_site):
    """The section's last subsection is `What to do`; one of its explain blocks states a fact that reads a
    snippet fenced in this section (and any other run it reads is fenced on the same page), whose runs
    ran without error on this build and whose outcome has a text; the built page carries the heading."""
    fix = fix_of(section)
    assert fix, f"{section.ref} does not end in a `### What to do` subsection"
    here = {f.fence.path for f in find_fences(section.text) if f.fence is not None}
    on_page = {f.fence.path for f in find_fences((ROOT / "docs" / section.page).read_text()) if f.fence is not None}
    stated = [b.fact for b in find_blocks(fix.text)]
    assert stated, f"{section.ref}: `What to do` explains no measured fact"
    run_here = [
        name
        for name in stated
        if name in FACTS and (paths := {r.path for r in FACTS[name].runs}) <= on_page and paths & here
    ]
    assert run_here, f"{section.ref}: no fact of `What to do` ({stated}) reads a snippet run in the section"
    for name in run_here:
        f = FACTS[name]
        for r in f.runs:
            ran = r.find(live)
            assert ran.exit_code == 0, f"{r.path} failed on this build"
        m = f.on(live)
        assert m.outcome != UNRECOGNISED, f"{name}: this build's outcome is unrecognised ({m.value!r})"
    html = (built_site / section.page.removesuffix(".md") / "index.html").read_text()
    assert f'id="{fix.anchor}"' in html, f"the built page has no #{fix.anchor}"


def test_every_message_kind_ends_in_a_link_to_a_remedy():
    """Each kind on *Find a message* ends in a `What to do` paragraph linking a lesson's `What to do`."""
    fixes = {f"{s.page}#{fix.anchor}": s for s in lesson_sections() if (fix := fix_of(s))}
    kinds = [k for s in sections("messages.md") for k in s.subsections if k.anchor.startswith("kind-")]
    assert len(kinds) >= 20
    for kind in kinds:
        paragraphs = [p.strip() for p in re.split(r"\n\s*\n", kind.text) if p.strip()]
        last = paragraphs[-1]
        assert last.startswith("**What to do"), f"#{kind.anchor} does not end in **What to do**"
        linked = re.findall(r"\]\(([a-z]+\.md#[\w-]+)\)", last)
        assert linked, f"#{kind.anchor}: its What to do links no section"
        remedies = [ref for ref in linked if ref in fixes]
        assert remedies, f"#{kind.anchor} links no lesson's `What to do` ({linked})"
