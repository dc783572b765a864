"""The gym: guess-the-verdict drills whose answer keys are measured at build time.

A drill is data plus snippets: ``snippets/gym/gym-<N>.toml`` lists its scenarios, each a snippet
that calls a compiled function once, prints ``before: <unique_graphs>``, calls it again and
prints ``after: <unique_graphs>``, run with ``TORCH_LOGS=recompiles,guards``. The plugin collects
those snippets like any page's; this module turns their results into the answer key and the
page. A scenario whose measurement is missing or yields no verdict fails the build.
"""

from __future__ import annotations

import html
import json
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from .fences import SnippetFence
from .parse.guard_dump import parse_guards_log
from .parse.recompiles import parse_recompiles
from .record import BuildRecord, SnippetResult

GYM_PAGE = "gym/index.md"
VERDICTS = {"reuses": "Reuses the entry", "recompiles": "Recompiles"}


class DrillError(ValueError):
    """A drill that cannot be rendered: bad data, or a measurement without a verdict."""


@dataclass(frozen=True)
class Scenario:
    id: str
    title: str
    snippet: str
    explained: str
    guard: str = ""  # for a reuse: the source whose guards (of the newest entry) the call passed

    @property
    def fence(self) -> SnippetFence:
        # guards too: a reuse is explained by the guards the call passed
        return SnippetFence(path=self.snippet, logs=("recompiles", "guards"), timeout=120.0, show="none")


@dataclass(frozen=True)
class Drill:
    number: int
    title: str
    lesson: str
    intro: str
    scenarios: tuple[Scenario, ...]
    source: str
    lesson_number: int = 0  # its lesson's place in the course (the gym lists drills by lesson)

    @property
    def label(self) -> str:
        return f"GYM·{self.number}"

    @property
    def anchor(self) -> str:
        return f"gym-{self.number}"


def load_drill(path: Path) -> Drill:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        scenarios = tuple(
            Scenario(s["id"], s["title"], s["snippet"], s["explained"], s.get("guard", "")) for s in data["scenario"]
        )
        drill = Drill(int(data["number"]), data["title"], data["lesson"], data.get("intro", ""), scenarios, path.name,
                      int(data.get("lesson_number", 0)))
    except (tomllib.TOMLDecodeError, KeyError, TypeError, ValueError) as exc:
        raise DrillError(f"{path.name}: not a valid drill ({type(exc).__name__}: {exc})") from None
    ids = [s.id for s in scenarios]
    if len(set(ids)) != len(ids) or not ids:
        raise DrillError(f"{path.name}: scenario ids must be present and unique, got {ids}")
    return drill


def load_drills(snippets_dir: Path) -> list[Drill]:
    drills = [load_drill(p) for p in sorted((snippets_dir / "gym").glob("gym-*.toml"))]
    return sorted(drills, key=lambda d: d.number)


# -- measuring ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Answer:
    verdict: str  # "reuses" | "recompiles"
    before: int
    after: int
    failing_guard: str  # the newest entry's failure line, "" when reused
    passed_guards: tuple[str, ...] = ()  # for a reuse: the newest entry's guards on the scenario's `guard` source

    @property
    def why(self) -> str:
        """The measured reason for the verdict: the failed guard, or the guards the call passed."""
        if self.verdict == "recompiles":
            return self.failing_guard or "TORCH_LOGS=recompiles logged no guard failure for it (a first compile of a frame logs none)"
        return "; ".join(self.passed_guards)


def measure(scenario: Scenario, result: SnippetResult | None) -> Answer:
    if result is None:
        raise DrillError(f"scenario {scenario.id!r}: snippets/{scenario.snippet} has no measurement in this build")
    before = re.search(r"^before:\s*(\d+)\s*$", result.stdout, re.M)
    after = re.search(r"^after:\s*(\d+)\s*$", result.stdout, re.M)
    if not before or not after:
        raise DrillError(
            f"scenario {scenario.id!r}: snippets/{scenario.snippet} printed no 'before: N' / 'after: N' "
            f"counters, so it yields no verdict; it printed:\n{result.stdout}"
        )
    b, a = int(before.group(1)), int(after.group(1))
    if a < b:
        raise DrillError(f"scenario {scenario.id!r}: unique_graphs went down, from {b} to {a}")
    second_call = result.output.split(before.group(0), 1)[-1]  # recompile lines logged after "before:"
    recompiles = parse_recompiles(second_call)
    failures = [f for r in recompiles for f in r.failures]
    if a > b:  # a new graph; torch does not always log a reason for it (a new frame, not a guard failure)
        return Answer("recompiles", b, a, failures[0].reason if failures else "")
    return Answer("reuses", b, a, "", passed_guards(scenario, result))


def passed_guards(scenario: Scenario, result: SnippetResult) -> tuple[str, ...]:
    """The guards a reusing call was checked against and passed: those on the scenario's `guard`
    (a source such as ``L['x']``, or else text of the check), from the newest entry that has any.
    Without a match, the size of the newest entry's guard set, so a reuse always has its reason."""
    dumps = parse_guards_log(result.log("guards"))
    if not dumps:
        return ()
    for dump in reversed(dumps):  # dynamo tries the newest entry first
        checks = [g for g in dump if "_dynamo_" not in g.predicate]  # bookkeeping of marks, not a property
        found = [g.predicate for g in checks if scenario.guard and g.source == scenario.guard]
        found = found or [g.predicate for g in checks if scenario.guard and scenario.guard in g.predicate]
        if found:
            return tuple(found)
    return (f"all {len(dumps[-1])} guards of the newest entry",)


def find_result(build: BuildRecord, scenario: Scenario) -> SnippetResult | None:
    path = f"snippets/{scenario.snippet}"
    return next((s for s in build.snippets if s.path == path and s.env == scenario.fence.run_env), None)


def answer_key(drill: Drill, build: BuildRecord) -> dict[str, Answer]:
    return {s.id: measure(s, find_result(build, s)) for s in drill.scenarios}


# -- rendering ---------------------------------------------------------------------------------
def site_link(doc_path: str) -> str:
    """A docs-relative .md link ("guards.md#x") as a URL from the gym page ("../guards/#x").

    Markdown printed by page code is converted outside MkDocs' link rewriting, so links are
    written as final URLs here.
    """
    page, _, anchor = doc_path.partition("#")
    url = "../" + (page[: -len(".md")] + "/" if page.endswith(".md") else page)
    return url + (f"#{anchor}" if anchor else "")


def index_table(drills: list[Drill]) -> str:
    rows = ["| drill | lesson | scenarios |", "|---|---|---:|"]
    for d in drills:
        number = f"{d.lesson_number}. " if d.lesson_number else ""
        rows.append(f"| [{d.label}](#{d.anchor}) | {number}[{d.title}]({site_link(d.lesson)}) | {len(d.scenarios)} |")
    return "\n".join(rows) + "\n"


def _code(snippets_dir: Path, scenario: Scenario) -> str:
    return (snippets_dir / scenario.snippet).read_text(encoding="utf-8").rstrip("\n")


def render_drill(drill: Drill, build: BuildRecord, snippets_dir: Path) -> str:
    """Markdown (with HTML blocks) for one drill; raises DrillError when a verdict is missing."""
    key = answer_key(drill, build)
    e = html.escape
    payload = {sid: {"verdict": a.verdict, "before": a.before, "after": a.after, "guard": a.failing_guard} for sid, a in key.items()}
    out = [
        f'## {drill.label}: {drill.title} {{ #{drill.anchor} }}',
        "",
        drill.intro,
        "",
        f'<div class="gym-drill" data-drill="{drill.anchor}" data-torch="{e(build.torch)}" markdown="block">',
        "",
        f'<script type="application/json" class="gym-key">{json.dumps(payload)}</script>',
        f'<p class="gym-score" aria-live="polite">Score: 0 of {len(drill.scenarios)} answered</p>',
        "",
    ]
    for i, s in enumerate(drill.scenarios, 1):
        answer = key[s.id]
        reveal = [
            '<p class="gym-result"></p>',
            f"<p>Measured on torch <code>{e(build.torch)}</code>: <strong>{e(VERDICTS[answer.verdict].lower())}</strong>. "
            f"<code>unique_graphs</code> was {answer.before} before the second call and {answer.after} after it.</p>",
        ]
        if answer.failing_guard:
            reveal.append(f"<p>The guard that failed, from <code>TORCH_LOGS=recompiles</code>:</p><pre><code>{e(answer.failing_guard)}</code></pre>")
        elif answer.passed_guards:
            reveal.append(
                "<p>The guards it was checked against and passed, from <code>TORCH_LOGS=guards</code>:</p><pre><code>"
                + "&#10;".join(e(g) for g in answer.passed_guards) + "</code></pre>"
            )
        elif answer.verdict == "recompiles":
            reveal.append("<p>This torch compiled a new graph without logging a guard failure for it in <code>TORCH_LOGS=recompiles</code>.</p>")
        reveal.append(f'<p><a href="{e(site_link(s.explained))}">Why: the chapter section that explains it</a></p>')
        out += [
            f'<section class="gym-scenario" data-scenario="{e(s.id)}" aria-labelledby="{drill.anchor}-{e(s.id)}" markdown="block">',
            "",
            f'<h3 id="{drill.anchor}-{e(s.id)}">{i}. {e(s.title)}</h3>',
            "",
            f'```python title="snippets/{s.snippet}"',
            _code(snippets_dir, s),
            "```",
            "",
            f'<div class="gym-choices" role="group" aria-label="Your verdict for scenario {i}">'
            + "".join(
                f'<button type="button" class="md-button gym-choice" data-choice="{v}">{label}</button>'
                for v, label in VERDICTS.items()
            )
            + "</div>",
            f'<div class="gym-reveal" hidden tabindex="-1">{"".join(reveal)}</div>',
            "",
            "</section>",
            "",
        ]
    out += ['<p><button type="button" class="md-button gym-reset">Reset this drill</button></p>', "", "</div>", ""]
    return "\n".join(out)
