"""The gym: guess-the-verdict drills whose answer keys are measured at build time.

A drill is data plus snippets: ``snippets/gym/gym-<N>.toml`` lists its scenarios, each a snippet
that calls a compiled function once, prints ``before: <unique_graphs>``, calls it again and
prints ``after: <unique_graphs>``, run with ``TORCH_LOGS=recompiles,guards``. The plugin collects
those snippets like any page's; this module turns their results into the answer key and the
page. A scenario whose measurement is missing or yields no verdict fails the build.
"""

from __future__ import annotations

import base64
import functools
import html
import json
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from . import messages
from .fences import SnippetFence
from .parse.guard_dump import Guard, parse_check_tensor, parse_guards_log
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
    return _parse_drill(path.name, path.read_text(encoding="utf-8"))


@functools.lru_cache(maxsize=64)
def _parse_drill(name: str, text: str) -> Drill:
    """A drill from its file's name and text (kept by content: the pages read the drills many times a build)."""
    try:
        data = tomllib.loads(text)
        # Drills may carry more fields than these; the page reads only what it needs.
        scenarios = tuple(
            Scenario(str(s["id"]), s["title"], s["snippet"], s["explained"], s.get("guard", "")) for s in data["scenario"]
        )
        drill = Drill(int(data["number"]), data["title"], data["lesson"], data.get("intro", ""), scenarios, name,
                      int(data.get("lesson_number", 0)))
    except (tomllib.TOMLDecodeError, KeyError, TypeError, ValueError) as exc:
        raise DrillError(f"{name}: not a valid drill ({type(exc).__name__}: {exc})") from None
    ids = [s.id for s in scenarios]
    if len(set(ids)) != len(ids) or not ids:
        raise DrillError(f"{name}: scenario ids must be present and unique, got {ids}")
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
    guards: tuple[Guard, ...] = ()  # the newest entry's guards, when the drill logs "guards"
    earlier: tuple[str, ...] = ()  # guard failures logged before the second call (what made the entries)
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
    first_call, _, second_call = result.output.partition(before.group(0))  # logged before / after "before:"
    recompiles = parse_recompiles(second_call)
    failures = [f for r in recompiles for f in r.failures]
    earlier = tuple(r.failures[0].reason for r in parse_recompiles(first_call) if r.failures)
    entries = parse_guards_log(result.log("guards"))
    guards = tuple(entries[-1]) if entries else ()  # for a reuse: the entry that was reused
    if a > b:  # a new graph; torch does not always log a reason for it (a new frame, not a guard failure)
        return Answer("recompiles", b, a, failures[0].reason if failures else "", guards, earlier)
    return Answer("reuses", b, a, "", guards, earlier, passed_guards(scenario, result))
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


# The key is not readable in the page before the reader answers: each scenario's answer and
# its explanation travel XOR-ed with the scenario's name and base64-encoded in a data attribute,
# decoded by gym.js when the reader answers. Not a secret from a determined reader (anything the
# browser can decode, they can); it keeps answers out of the search index and out of sight in the
# page source, and the page keeps working offline and opened from disk (nothing is fetched).
def encode(payload: dict, salt: str) -> str:
    raw = json.dumps(payload, separators=(",", ":")).encode("utf-8")
    key = salt.encode("utf-8") or b"gym"
    return base64.b64encode(bytes(b ^ key[i % len(key)] for i, b in enumerate(raw))).decode("ascii")


def decode(blob: str, salt: str) -> dict:
    raw = base64.b64decode(blob)
    key = salt.encode("utf-8") or b"gym"
    return json.loads(bytes(b ^ key[i % len(key)] for i, b in enumerate(raw)).decode("utf-8"))


def _code_html(text: str) -> str:
    return f"<code>{html.escape(text)}</code>"


def _tensor_summary(guard: Guard) -> tuple[str, list[str]]:
    """'the tensor check on L['x'] (...)' and the symbolic dimensions it shows (size None)."""
    try:
        fields = parse_check_tensor(guard.predicate)
    except ValueError:
        return f"the tensor check on {_code_html(guard.source or guard.predicate)}", []
    source = fields.get("source", guard.source)
    sizes = [v.strip() for v in fields.get("size", "").strip("[]").split(",") if v.strip()]
    symbolic = [f"dimension {i} of {_code_html(source)}" for i, v in enumerate(sizes) if v == "None"]
    shown = ", ".join(f"{k} {_code_html(fields[k])}" for k in ("dtype", "requires_grad", "size", "stride") if k in fields)
    return f"the tensor check on {_code_html(source)}" + (f" ({shown})" if shown else ""), symbolic


def _on(focus: str, guard: Guard) -> bool:
    """Whether a guard checks the source a scenario names (``L['n']``, ``scale``, ``k``)."""
    if guard.source == focus or guard.kind == focus:  # a source, or a kind of guard (GLOBAL_STATE)
        return True
    return re.search(rf"(?<![\w]){re.escape(focus)}(?![\w])", guard.predicate) is not None


def explain(answer: Answer, focus: str = "") -> str:
    """The reveal's explanation in words, from the measurement: what changed and which guard caught it,
    or for a reuse, which guards passed and what was already symbolic. `focus` is the source the
    scenario changes (the drill's `guard` field): its guards are shown first."""
    e = html.escape
    out = []
    if answer.verdict == "recompiles":
        out.append("<p>The second call did not pass the guards of any cached entry, so torch compiled a new graph.</p>"
                   if answer.failing_guard else "")
        if answer.failing_guard:
            kind = messages.kind_of(messages.normalize("- " + answer.failing_guard))
            out.append(f"<p><strong>What changed:</strong> {e(kind.text)}</p>")
            out.append(
                "<p><strong>The guard that caught it</strong>, as <code>TORCH_LOGS=recompiles</code> printed its "
                f"failure:</p><pre><code>{e(answer.failing_guard)}</code></pre>"
            )
        else:
            out.append("<p>This torch compiled the new graph without logging a guard failure for it in "
                       "<code>TORCH_LOGS=recompiles</code>: no cached entry's guards were checked and failed.</p>")
        return "".join(out)
    out.append("<p>The second call passed the guards of a cached entry and ran its graph: nothing new was compiled.</p>")
    if not answer.guards:
        out.append("<p>No guard of that entry failed: <code>TORCH_LOGS=recompiles</code> logged nothing for the second call.</p>")
        if answer.earlier:
            out.append("<p>The entry it reused was compiled after an earlier recompile in this snippet, which "
                       "<code>TORCH_LOGS=recompiles</code> logged as:</p><pre><code>"
                       + e("\n".join(answer.earlier)) + "</code></pre>")
        return "".join(out)
    tensors, symbolic = [], []
    for g in answer.guards:
        if g.predicate.startswith("check_tensor("):
            text, sym = _tensor_summary(g)
            symbolic += sym
            if "_modules" not in g.source and "_parameters" not in g.source:  # the arguments, not the weights
                tensors.append(text)
    ranges = [g.predicate for g in answer.guards if re.search(r"\.size\(\)|sym_size|\.shape\[", g.predicate)]
    kinds: dict[str, int] = {}
    for g in answer.guards:
        kinds[g.kind] = kinds.get(g.kind, 0) + 1
    by_kind = ", ".join(f"{n} {_code_html(k)}" for k, n in sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0])))
    out.append(f"<p><strong>Every guard of the entry passed</strong>: {len(answer.guards)} in its dump ({by_kind}).</p>")
    if focus:
        mine = [g.predicate for g in answer.guards if _on(focus, g)]
        if mine:
            out.append(f"<p>The guards on {_code_html(focus)}, what this scenario changes, all held:</p>"
                       f"<pre><code>{e(chr(10).join(mine))}</code></pre>")
            if not any(" == " in m or m.startswith("check_tensor(") for m in mine) and focus.upper() != focus:
                out.append(f"<p>None of them compares the value of {_code_html(focus)}: the entry does not "
                           "depend on its exact value.</p>")
        else:
            out.append(f"<p>The entry's dump has no guard on {_code_html(focus)}, what this scenario changes: "
                       "the call was not checked on it.</p>")
    if tensors:
        out.append("<p>Among them " + "; ".join(tensors[:3]) + ".</p>")
    if symbolic:
        out.append("<p><strong>Already symbolic:</strong> " + ", ".join(symbolic) + " (its size is printed as "
                   "<code>None</code> in the tensor check), so a new size there passes the check"
                   + (", and the range guard " + ", ".join(_code_html(r) for r in ranges) + " held" if ranges else "")
                   + ".</p>")
    elif ranges:
        out.append("<p><strong>Already symbolic:</strong> the entry guards sizes by range, not by value: "
                   + ", ".join(_code_html(r) for r in ranges) + ".</p>")
    elif tensors:
        out.append("<p>No tensor size was symbolic in this entry: each tensor check compares exact sizes.</p>")
    listing = "\n".join(g.predicate for g in answer.guards)
    out.append(f"<details><summary>The {len(answer.guards)} guards that passed (<code>TORCH_LOGS=guards</code>)</summary>"
               f"<pre><code>{e(listing)}</code></pre></details>")
    return "".join(out)


def render_drill(drill: Drill, build: BuildRecord, snippets_dir: Path) -> str:
    """Markdown (with HTML blocks) for one drill; raises DrillError when a verdict is missing."""
    key = answer_key(drill, build)
    e = html.escape
    out = [
        f'## {drill.label}: {drill.title} {{ #{drill.anchor} }}',
        "",
        drill.intro,
        "",
        f'<div class="gym-drill" data-drill="{drill.anchor}" data-torch="{e(build.torch)}" markdown="block">',
        "",
        '<noscript><p class="gym-noscript"><strong>The gym needs JavaScript</strong> to check your answers, and it '
        "is off in this browser. You can still read each scenario and decide; the chapter sections linked in the "
        "table above explain them.</p></noscript>",
        "",
    ]
    for i, s in enumerate(drill.scenarios, 1):
        answer = key[s.id]
        reveal = (
            f"<p>Measured on torch <code>{e(build.torch)}</code>: <strong>{e(VERDICTS[answer.verdict].lower())}</strong>. "
            f"<code>unique_graphs</code> was {answer.before} before the second call and {answer.after} after it.</p>"
            + explain(answer, s.guard)
            + f'<p><a href="{e(site_link(s.explained))}">Why: the chapter section that explains it</a></p>'
        )
        payload = {"verdict": answer.verdict, "before": answer.before, "after": answer.after,
                   "guard": answer.failing_guard, "html": reveal}
        salt = f"{drill.anchor}/{s.id}"
        out += [
            # data-search-exclude: a scenario (its question, code and answer panel) stays out of the search index
            f'<section class="gym-scenario" data-scenario="{e(s.id)}" data-key="{encode(payload, salt)}" '
            f'aria-labelledby="{drill.anchor}-{e(s.id)}" data-search-exclude markdown="block">',
            "",
            f'<h3 id="{drill.anchor}-{e(s.id)}" data-search-exclude>{i}. {e(s.title)}</h3>',
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
            '<div class="gym-reveal" hidden tabindex="-1"><p class="gym-result"></p><div class="gym-explain"></div></div>',
            "",
            "</section>",
            "",
        ]
    out += [
        '<div class="gym-end">',
        f'<p class="gym-score" aria-live="polite">Score: 0 of {len(drill.scenarios)} answered</p>',
        '<p><button type="button" class="md-button gym-reset">Reset this drill</button></p>',
        "</div>",
        "",
        "</div>",
        "",
    ]
    return "\n".join(out)
