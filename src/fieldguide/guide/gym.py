"""The gym: guess-the-verdict drills whose answer keys are measured at build time.

A drill is data plus snippets: ``snippets/gym/gym-<N>.toml`` lists its scenarios, each a snippet
that calls a compiled function once, prints ``before: <unique_graphs>``, calls it again and
prints ``after: <unique_graphs>``, run with ``TORCH_LOGS=recompiles,guards``. The plugin collects
those snippets like any page's; this module turns their results into the answer key.

A scenario's verdict is read from its log: the last call **reuses** an entry (no new graph),
**recompiles** (a guard of an existing entry of the same code failed: the recompiles channel
logged ``Recompiling function ...`` with the failed guard, or with no failure line that names one,
as torch 2.4 to 2.9 do for a backend check, or, where torch 2.2 to 2.4 log
nothing for a new module instance, the dumps show the earlier entry's identity guard on another
object) or **compiles new code** (a function compiled for the first time: a frame with no earlier
entry, or one whose earlier entry prints the very same guards, as after ``torch._dynamo.reset()``).
The finer `outcome` names which of these the log showed; a log that fits none is ``unrecognised``.

The reveal's words are not here: each drill's TOML holds one text per outcome (``[reveal]``, and
a scenario's own ``[scenario.reveal]`` first), with ``{slot}`` values filled from the measurement.
This module computes verdicts, failed and passed guards, and short labelled tables; a scenario
whose outcome on any measured release has no text fails the build (`check_reveals`).
"""

from __future__ import annotations

import base64
import functools
import html
import json
import re
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ..run.fences import SnippetFence
from ..run.memo import PinnedMemo
from ..run.record import BuildRecord, SnippetResult
from .parse.guard_dump import Guard, parse_check_tensor, parse_guards_log
from .parse.recompiles import Recompile, parse_recompiles

GYM_PAGE = "gym/index.md"
REUSES, RECOMPILES, NEW_CODE, UNRECOGNISED = "reuses", "recompiles", "compiles new code", "unrecognised"
VERDICTS = {REUSES: "Reuses the entry", RECOMPILES: "Recompiles", NEW_CODE: "Compiles new code"}  # the choices

# outcome (what the log showed) -> its verdict, and the slots a text for it may name
OUTCOMES = {
    "reuses": REUSES,
    "recompiles": RECOMPILES,  # `Recompiling function` with failed guards, logged for the last call
    # `Recompiling function`, and no failure line with a text: 2.4 prints none for a backend check, 2.5-2.9 `- 0/0:`
    "recompiles: no reason printed": RECOMPILES,
    "recompiles: identity guard, not logged": RECOMPILES,  # no line logged; the earlier entry's id guard differs
    "compiles new code: another function": NEW_CODE,  # a frame (name and first line) with no earlier entry
    "compiles new code: same guards": NEW_CODE,  # the earlier entry of the frame prints the same guards
    UNRECOGNISED: UNRECOGNISED,
}
_COMMON = ("torch", "before", "after", "new")
SLOTS = {
    "reuses": _COMMON + ("frame", "focus"),
    "recompiles": _COMMON + ("function", "functions", "failures"),
    "recompiles: no reason printed": _COMMON + ("function", "functions", "failures"),
    "recompiles: identity guard, not logged": _COMMON + ("frame",),
    "compiles new code: another function": _COMMON + ("frame", "line", "earlier_lines"),
    "compiles new code: same guards": _COMMON + ("frame", "guards"),
    UNRECOGNISED: _COMMON + ("reason",),
}


class DrillError(ValueError):
    """A drill that cannot be rendered: bad data, a measurement without a verdict, a missing text."""


@dataclass(frozen=True)
class Scenario:
    id: str
    title: str
    snippet: str
    explained: str
    guard: str = ""  # for a reuse: the source whose guards (of the newest entry) the call passed
    reveal: tuple[tuple[str, str], ...] = ()  # this scenario's own texts, outcome -> Markdown
    timeout: float = 120.0  # seconds; a scenario that starts processes of its own may need more

    @property
    def fence(self) -> SnippetFence:
        # guards too: a reuse is explained by the guards the call passed
        return SnippetFence(path=self.snippet, logs=("recompiles", "guards"), timeout=self.timeout, show="none")


@dataclass(frozen=True)
class Drill:
    number: int
    title: str
    lesson: str
    intro: str
    scenarios: tuple[Scenario, ...]
    source: str
    lesson_number: int = 0  # its lesson's place in the course (the gym lists drills by lesson)
    reveal: tuple[tuple[str, str], ...] = ()  # the drill's texts, outcome -> Markdown

    @property
    def label(self) -> str:
        return f"GYM·{self.number}"

    @property
    def anchor(self) -> str:
        return f"gym-{self.number}"

    def text(self, scenario: Scenario, outcome: str) -> str | None:
        """The text written for `outcome`: the scenario's own, else the drill's; None if neither."""
        return dict(scenario.reveal).get(outcome, dict(self.reveal).get(outcome))


def load_drill(path: Path) -> Drill:
    return _parse_drill(path.name, path.read_text(encoding="utf-8"))


def _texts(table: object, where: str) -> tuple[tuple[str, str], ...]:
    if not isinstance(table, dict):
        raise TypeError(f"{where}: reveal must be a table of outcome = text")
    for outcome, text in table.items():
        if outcome not in OUTCOMES:
            raise ValueError(f"{where}: no outcome is named {outcome!r} (outcomes: {', '.join(OUTCOMES)})")
        if not isinstance(text, str) or not text.strip():
            raise ValueError(f"{where}: the text for {outcome!r} is empty")
        unknown = [s for s in _slots_in(text) if s not in SLOTS[outcome]]
        if unknown:
            raise ValueError(
                f"{where}: the text for {outcome!r} names {', '.join(unknown)}, which that outcome does not "
                f"measure (its slots: {', '.join(SLOTS[outcome])})"
            )
    return tuple((k, v) for k, v in table.items())


@functools.lru_cache(maxsize=64)
def _parse_drill(name: str, text: str) -> Drill:
    """A drill from its file's name and text (kept by content: the pages read the drills many times a build)."""
    try:
        data = tomllib.loads(text)
        # Drills may carry more fields than these; the page reads only what it needs.
        scenarios = tuple(
            Scenario(
                str(s["id"]),
                s["title"],
                s["snippet"],
                s["explained"],
                s.get("guard", ""),
                _texts(s.get("reveal", {}), f"scenario {s['id']}"),
                float(s.get("timeout", 120.0)),
            )
            for s in data["scenario"]
        )
        drill = Drill(
            int(data["number"]),
            data["title"],
            data["lesson"],
            data.get("intro", ""),
            scenarios,
            name,
            int(data.get("lesson_number", 0)),
            _texts(data.get("reveal", {}), "reveal"),
        )
    except (tomllib.TOMLDecodeError, KeyError, TypeError, ValueError) as exc:
        raise DrillError(f"{name}: not a valid drill ({type(exc).__name__}: {exc})") from None
    for s in scenarios:
        if not 0 < s.timeout < float("inf"):
            raise DrillError(
                f"{name}: scenario {s.id!r}: timeout must be a positive number of seconds, got {s.timeout}"
            )
    ids = [s.id for s in scenarios]
    if len(set(ids)) != len(ids) or not ids:
        raise DrillError(f"{name}: scenario ids must be present and unique, got {ids}")
    return drill


def load_drills(snippets_dir: Path) -> list[Drill]:
    drills = [load_drill(p) for p in sorted((snippets_dir / "gym").glob("gym-*.toml"))]
    return sorted(drills, key=lambda d: d.number)


# -- measuring ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Entry:
    """One guard dump (`TORCH_LOGS=guards`): the entry compiled for one frame."""

    frame: str  # the function the guards' comments name ("f", "torch_dynamo_resume_in_f_at_9"), "" if none
    guards: tuple[Guard, ...]
    new: bool = False  # compiled during the last call
    line: int = 0  # the first line of the frame's own file its guards cite (tells two resume functions apart)

    @property
    def flat(self) -> bool:
        return any(g.flat for g in self.guards)

    @property
    def code(self) -> tuple[str, int]:
        """Which code the entry is for, as far as its dump shows: the function's name and first cited line."""
        return self.frame, self.line


@dataclass(frozen=True)
class Answer:
    verdict: str  # "reuses" | "recompiles" | "compiles new code" | "unrecognised"
    before: int
    after: int
    failing_guard: str  # the first failure line logged for the last call, "" when none logged
    guards: tuple[Guard, ...] = ()  # for a reuse: the dump of the entry whose guards on the focus held
    earlier: tuple[str, ...] = ()  # guard failures logged before the last call (what made the entries)
    passed_guards: tuple[str, ...] = ()  # for a reuse: that entry's guards on the scenario's `guard` source
    recompiles: tuple[Recompile, ...] = ()  # logged for the last call: the function and every failure line
    entries: tuple[Entry, ...] = ()  # every dump the snippet logged, in order
    frame: str = ""  # for a reuse: the frame of `guards`
    outcome: str = ""  # which reading of the log gave the verdict (a key of OUTCOMES)
    reason: str = ""  # for "unrecognised": what did not fit
    differences: tuple[tuple[str, str], ...] = ()  # identity outcome: (earlier entry's guard, new entry's)

    @property
    def new_graphs(self) -> int:
        return self.after - self.before

    @property
    def new_entries(self) -> tuple[Entry, ...]:
        return tuple(e for e in self.entries if e.new)

    @property
    def why(self) -> str:
        """The measured reason for the verdict: the failed guard, the guards the call passed, the new code."""
        if self.outcome in ("recompiles", "recompiles: no reason printed"):
            return self.failing_guard
        if self.verdict == RECOMPILES:
            return "; ".join(f"{a} -> {b}" for a, b in self.differences)
        if self.verdict == NEW_CODE:
            return ", ".join(f"{e.frame}:{e.line}" for e in self.new_entries)
        if self.verdict == REUSES:
            return "; ".join(self.passed_guards)
        return self.reason


_FRAME = re.compile(r"(?P<file>[\w./-]+\.py):(?P<line>\d+) in (?P<name>\w+)\s*(?:\(HINT:.*\))?\s*$")


def _cited(dump) -> list[re.Match]:
    return [m for g in dump if "_dynamo/" not in g.comment and (m := _FRAME.search(g.comment))]


def frame_of(dump: list[Guard] | tuple[Guard, ...]) -> str:
    """The function a dump's entry belongs to, as its guards' comments name it (the user code's line)."""
    names = [m.group("name") for m in _cited(dump)]
    # a tie between a module's frame and a function it inlined goes to the one citing the guard on
    # `L['self']` itself (the module whose forward was compiled); then to the name cited first
    # (never to set order, which changes with PYTHONHASHSEED)
    own = [
        m.group("name")
        for g in dump
        if "_dynamo/" not in g.comment
        and re.search(r"L\[['\"]self['\"]\](?![.\[])", g.predicate)
        and (m := _FRAME.search(g.comment))
    ]
    return max(dict.fromkeys(names), key=lambda n: (names.count(n), own.count(n))) if names else ""


def first_line_of(dump, frame: str) -> int:
    """The lowest line of `frame`'s own code its guards cite (0 if none): two resume functions of one
    function share a name (`torch_dynamo_resume_in_clip_at_8`) and start at different lines."""
    cited = [m for m in _cited(dump) if m.group("name") == frame]
    files = [m.group("file") for m in cited]
    if not files:
        return 0
    own = max(set(files), key=files.count)
    return min(int(m.group("line")) for m in cited if m.group("file") == own)


def _same_guards(a: Entry, b: Entry) -> bool:
    return sorted(g.predicate for g in a.guards) == sorted(g.predicate for g in b.guards)


def _id_differences(old: Entry, new: Entry) -> list[tuple[str, str]]:
    return [(o, n) for o, n in _differences(old, new) if o.startswith("___check_obj_id(")]


def _unlogged(entries: tuple[Entry, ...]) -> tuple[str, str, tuple[tuple[str, str], ...]]:
    """(outcome, reason, id differences) for a new graph the recompiles channel logged nothing for."""
    new = [e for e in entries if e.new]
    if not new:
        return UNRECOGNISED, "a new graph, and no new guard dump for it", ()
    kinds, diffs = set(), []
    for entry in new:
        older = [e for e in entries if not e.new and e.code == entry.code]
        if not older:
            kinds.add("compiles new code: another function")
        elif any(_same_guards(o, entry) for o in older):
            kinds.add("compiles new code: same guards")
        elif all(_id_differences(o, entry) for o in older):
            kinds.add("recompiles: identity guard, not logged")
            diffs += _differences(older[-1], entry)
        else:
            return (
                UNRECOGNISED,
                f"a new entry of {entry.frame or 'an unnamed frame'} that differs from the earlier one in no identity guard, and no recompile logged",
                (),
            )
    if len(kinds) != 1:
        return UNRECOGNISED, f"new entries of different kinds: {', '.join(sorted(kinds))}", ()
    return kinds.pop(), "", tuple(diffs)


_EMPTY_REASON = re.compile(r"^(?:\d+/\d+:)?\s*$")  # `- 0/0:` with nothing after it (its space stripped or not)


# A scenario's answer on one result, kept: the committed records are the same objects from one build
# (and `mkdocs serve` rebuild) to the next, and the reveal check measures every scenario on every
# record each time. Each entry pins its result, so an id is never taken for another object's.
_ANSWERS = PinnedMemo(4096)


def measure(scenario: Scenario, result: SnippetResult | None) -> Answer:
    if result is None:
        raise DrillError(f"scenario {scenario.id!r}: snippets/{scenario.snippet} has no measurement in this build")
    return _ANSWERS.get(result, scenario, lambda: _measure(scenario, result))


def _measure(scenario: Scenario, result: SnippetResult) -> Answer:
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
    first_call, _, last_call = result.output.partition(before.group(0))  # logged before / after "before:"
    recompiles = tuple(parse_recompiles(last_call))
    failures = [f for r in recompiles for f in r.failures]
    earlier = tuple(r.failures[0].reason for r in parse_recompiles(first_call) if r.failures)
    # the dumps as the guards channel logged them; those logged after "before:" are the last call's new entries
    old = sum(line.strip() == "GUARDS:" for line in first_call.splitlines())
    entries = []
    for i, d in enumerate(parse_guards_log(result.log("guards"))):
        name = frame_of(d)
        entries.append(Entry(name, tuple(d), i >= old, first_line_of(d, name)))
    entries = tuple(entries)
    common = dict(before=b, after=a, earlier=earlier, recompiles=recompiles, entries=entries)
    if a > b:
        if recompiles and all(_EMPTY_REASON.match(f.reason) for f in failures):  # no failure line has a text
            return Answer(RECOMPILES, failing_guard="", outcome="recompiles: no reason printed", **common)
        if failures:  # a guard of a cached entry failed, and the log says which
            return Answer(RECOMPILES, failing_guard=failures[0].reason, outcome="recompiles", **common)
        outcome, reason, diffs = _unlogged(entries)
        return Answer(OUTCOMES[outcome], failing_guard="", outcome=outcome, reason=reason, differences=diffs, **common)
    if recompiles:  # guards failed, yet no graph was added (a cache limit, for example)
        return Answer(
            UNRECOGNISED,
            failing_guard="",
            outcome=UNRECOGNISED,
            reason="a recompile logged, and no new graph",
            **common,
        )
    chosen = passed_entry(scenario, entries)
    return Answer(
        REUSES,
        failing_guard="",
        guards=chosen.guards if chosen else (),
        passed_guards=passed_guards(scenario, result),
        frame=chosen.frame if chosen else "",
        outcome="reuses",
        **common,
    )


def _focus_guards(focus: str, dump) -> list[str]:
    checks = [g for g in dump if "_dynamo_" not in g.predicate]  # bookkeeping of marks, not a property
    found = [g.predicate for g in checks if focus and g.source == focus]
    return found or [g.predicate for g in checks if focus and focus in g.predicate]


def passed_entry(scenario: Scenario, entries: tuple[Entry, ...]) -> Entry | None:
    """The entry a reusing call passed, as far as the dumps show it: the newest entry with guards on
    the scenario's focus (dynamo tries a frame's newest entry first); else the only entry of the
    first frame compiled. None when the dumps do not tell (several entries, none on the focus)."""
    for entry in reversed(entries):
        if _focus_guards(scenario.guard, entry.guards):
            return entry
    if entries:
        first = [e for e in entries if e.frame == entries[0].frame]
        if len(first) == 1:
            return first[0]
    return None


def passed_guards(scenario: Scenario, result: SnippetResult) -> tuple[str, ...]:
    """The guards a reusing call was checked against and passed: those on the scenario's `guard`
    (a source such as ``L['x']``, or else text of the check), from the newest entry that has any.
    Without a match, the size of the newest entry's guard set, so a reuse always has its reason."""
    dumps = parse_guards_log(result.log("guards"))
    if not dumps:
        return ()
    for dump in reversed(dumps):  # dynamo tries the newest entry first
        found = _focus_guards(scenario.guard, dump)
        if found:
            return tuple(found)
    return (f"all {len(dumps[-1])} guards, newest entry",)


def find_result(build: BuildRecord, scenario: Scenario) -> SnippetResult | None:
    return build.lookup(f"snippets/{scenario.snippet}", scenario.fence.run_env)


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


# -- the texts: one per outcome, written in the drill's TOML -------------------------------------
_SLOT = re.compile(r"\{\{|\}\}|\{(?P<name>[A-Za-z_]\w*)(?::(?P<fmt>code))?\}")


def _slots_in(text: str) -> list[str]:
    return [m.group("name") for m in _SLOT.finditer(text) if m.group("name")]


def where(location: str) -> str:
    """A logged function's file, as a reader can place it: a snippet's path as printed, a path into
    torch from its `torch/` folder on (the environment before it differs per machine), else nothing."""
    if location.startswith("snippets/"):
        return location
    cut = location.rfind("/torch/")
    return location[cut + 1 :] if cut >= 0 else ""


def _functions(recompiles) -> str:
    """The logged functions, each once: a function of torch's own code with its file (a snippet's
    `step` and torch's `SGD.step` are two functions)."""
    named = dict.fromkeys(
        r.function + (f" ({where(r.where)})" if where(r.where).startswith("torch/") else "") for r in recompiles
    )
    return ", ".join(named)


def slots(answer: Answer, torch: str, scenario: Scenario) -> dict[str, str]:
    """The values a text for the answer's outcome may inline (every value measured, none a sentence)."""
    out = {"torch": torch, "before": str(answer.before), "after": str(answer.after), "new": str(answer.new_graphs)}
    new = answer.new_entries
    if answer.outcome == "reuses":
        out |= {"frame": answer.frame, "focus": scenario.guard}
    elif answer.outcome in ("recompiles", "recompiles: no reason printed"):
        logged = [r for r in answer.recompiles if r.failures or answer.outcome != "recompiles"]
        out |= {
            "function": logged[0].function,
            "functions": _functions(logged),
            "failures": str(sum(len(r.failures) for r in logged)),
        }
    elif answer.outcome == "recompiles: identity guard, not logged":
        out |= {"frame": new[0].frame}
    elif answer.outcome == "compiles new code: another function":
        earlier = [e for e in answer.entries if not e.new and e.frame == new[0].frame]
        out |= {
            "frame": new[0].frame,
            "line": str(new[0].line),
            "earlier_lines": ", ".join(dict.fromkeys(str(e.line) for e in earlier)),
        }
    elif answer.outcome == "compiles new code: same guards":
        out |= {"frame": new[0].frame, "guards": str(len(new[0].guards))}
    else:
        out |= {"reason": answer.reason}
    return out


def _fill(text: str, values: dict[str, str]) -> str:
    def sub(m: re.Match) -> str:
        if m.group(0) in ("{{", "}}"):
            return m.group(0)[0]
        # a value the log did not give (a frame its guards name no function of) is said so, not left blank
        value = html.escape(values[m.group("name")] or "(none in the log)")
        # the text goes through Markdown next: no underscore or star in a value may start emphasis
        value = value.replace("_", "&#95;").replace("*", "&#42;")
        return f"<code>{value}</code>" if m.group("fmt") == "code" else value

    return _SLOT.sub(sub, text)


def _markdown(text: str) -> str:
    import markdown  # MkDocs' own converter; imported here so the measuring stage does not need it

    return markdown.markdown(text)


def uncovered(drill: Drill, scenario: Scenario, answer: Answer) -> bool:
    """Whether the answer's outcome is one the drill did not foresee: `unrecognised`, or an outcome
    neither the scenario nor the drill has a text for (only a record no committed release holds
    gets here with a textless outcome: check_reveals fails the build on the rest)."""
    return answer.outcome == UNRECOGNISED or drill.text(scenario, answer.outcome) is None


def reveal_text(drill: Drill, scenario: Scenario, answer: Answer, torch: str) -> str:
    """The text the drill's TOML holds for the answer's outcome, its slots filled, as HTML; for an
    outcome no text was written for, the drill's `unrecognised` text, or a notice that says so
    (never the text of another outcome)."""
    if uncovered(drill, scenario, answer):
        own = drill.text(scenario, UNRECOGNISED)
        if own is not None:
            return _markdown(_fill(own, {**slots(answer, torch, scenario), "reason": answer.reason}))
        taken = (
            "fits none of the outcomes this drill explains"
            if answer.outcome == UNRECOGNISED
            else f"took the outcome <code>{html.escape(answer.outcome)}</code>, which no text of this drill was written for"
        )
        reason = f" ({html.escape(answer.reason)})" if answer.reason else ""
        return (
            f'<div class="admonition warning fg-unrecognised"><p class="admonition-title">Not explained on torch '
            f"{html.escape(torch)}</p><p>What this torch logged for this scenario {taken}{reason}. The verdict "
            "above is what its log shows; the build report lists every scenario in this case.</p></div>"
        )
    text = drill.text(scenario, answer.outcome)
    return _markdown(_fill(text, slots(answer, torch, scenario)))


def check_reveals(drills: Iterable[Drill], records: Iterable[tuple[str, BuildRecord]]) -> list[str]:
    """Every (scenario, outcome) a record took without a text, with the releases that took it."""
    records = list(records)
    problems = []
    for drill in drills:
        for s in drill.scenarios:
            taken: dict[str, list[str]] = {}
            why: dict[str, str] = {}
            for release, build in records:
                result = find_result(build, s)
                if result is None:
                    continue
                answer = measure(s, result)
                taken.setdefault(answer.outcome, []).append(release)
                if answer.reason:
                    why.setdefault(answer.outcome, f"{release}: {answer.reason}")
            for outcome, releases in taken.items():
                if drill.text(s, outcome) is None:
                    detail = f" ({why[outcome]})" if outcome in why else ""
                    problems.append(
                        f"{drill.source}: scenario {s.id!r} took the outcome {outcome!r} on torch "
                        f"{', '.join(releases)}, and has no text for it{detail}"
                    )
    return problems


# -- the measured tables beside the text ---------------------------------------------------------
def _code_html(text: str) -> str:
    return f"<code>{html.escape(text)}</code>"


def _pre(lines: Iterable[str]) -> str:
    return f"<pre><code>{html.escape(chr(10).join(lines))}</code></pre>"


def _rows(rows: list[tuple[str, str]]) -> str:
    if not rows:
        return ""
    body = "".join(f'<tr><th scope="row">{k}</th><td>{v}</td></tr>' for k, v in rows)
    return f'<table class="gym-measured"><tbody>{body}</tbody></table>'


def _symbolic(guard: Guard) -> list[str]:
    """'dimension 0 of L['x']' for each size a tensor check prints as None."""
    try:
        fields = parse_check_tensor(guard.predicate)
    except ValueError:
        return []
    source = fields.get("source", guard.source)
    sizes = [v.strip() for v in fields.get("size", "").strip("[]").split(",") if v.strip()]
    return [f"{i} of {_code_html(source)}" for i, v in enumerate(sizes) if v == "None"]


def _on(focus: str, guard: Guard) -> bool:
    """Whether a guard checks the source a scenario names (``L['n']``, ``scale``, ``k``)."""
    if guard.source == focus or guard.kind == focus:  # a source, or a kind of guard (GLOBAL_STATE)
        return True
    return re.search(rf"(?<![\w]){re.escape(focus)}(?![\w])", guard.predicate) is not None


def _kinds(entry: Entry) -> str:
    """'10 (5 TENSOR_MATCH, ...)'; the flat (pre-2.4) format prints no kinds."""
    n = len(entry.guards)
    if entry.flat:
        return f"{n} (printed without kind labels)"
    kinds: dict[str, int] = {}
    for g in entry.guards:
        kinds[g.kind] = kinds.get(g.kind, 0) + 1
    by_kind = ", ".join(f"{k} {_code_html(n)}" for n, k in sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0])))
    return f"{n} ({by_kind})"


def _frame_html(frame: str) -> str:
    return _code_html(frame) if frame else "(unnamed)"


def _at(entry: Entry) -> str:
    return _frame_html(entry.frame) + (f", line {entry.line}" if entry.line else "")


def _differences(old: Entry, new: Entry) -> list[tuple[str, str]]:
    """Guards on the same source and check whose printed values differ between two entries of a frame."""

    def key(g: Guard) -> tuple[str, str]:
        return g.source, re.split(r"[(\s]", g.predicate, maxsplit=1)[0]

    olds: dict[tuple[str, str], list[str]] = {}
    for g in old.guards:
        if g.source:
            olds.setdefault(key(g), []).append(g.predicate)
    out = []
    for g in new.guards:
        before = olds.get(key(g), [])
        if g.source and before and g.predicate not in before and len(before) == 1:
            out.append((before[0], g.predicate))
    return out


def _listing(entry: Entry, label: str) -> str:
    return (
        f"<details><summary>{label}: {len(entry.guards)} guards (<code>TORCH_LOGS=guards</code>)</summary>"
        + _pre(g.predicate for g in entry.guards)
        + "</details>"
    )


def measured(answer: Answer, focus: str = "") -> str:
    """What the log showed, as labelled tables and verbatim log lines (no sentences): the text
    written for the outcome comes first and refers to these."""
    rows: list[tuple[str, str]] = [("new graphs", str(answer.new_graphs))]
    out = []
    if answer.outcome in ("recompiles", "recompiles: no reason printed"):
        logged = [r for r in answer.recompiles if r.failures or answer.outcome != "recompiles"]
        out.append(
            "<p><code>TORCH_LOGS=recompiles</code>, last call:</p>"
            + _pre(
                line
                for r in logged
                for line in [f"Recompiling function {r.function}" + (f" in {where(r.where)}" if where(r.where) else "")]
                + [f"- {f.entry + ': ' if f.entry else ''}{f.reason}" for f in r.failures]
            )
        )
    elif answer.outcome == "recompiles: identity guard, not logged":
        new = answer.new_entries[0]
        older = [e for e in answer.entries if not e.new and e.code == new.code]
        rows.append(("entries of " + _frame_html(new.frame), f"{len(older)} earlier, 1 new"))
        out.append("<p>Guards that differ (<code>TORCH_LOGS=guards</code>):</p>")
        out.append(_pre(f"earlier: {o}\nnew:     {n}" for o, n in answer.differences))
    elif answer.outcome.startswith("compiles new code"):
        for e in answer.entries:
            rows.append(("new entry" if e.new else "earlier entry", _at(e) + f", {len(e.guards)} guards"))
        for e in answer.new_entries:
            out.append(_listing(e, "The new entry of " + _frame_html(e.frame)))
    elif answer.outcome == "reuses":
        frames: dict[str, int] = {}
        for entry in answer.entries:
            frames[entry.frame] = frames.get(entry.frame, 0) + 1
        rows.append(("entries in the dumps", ", ".join(f"{_frame_html(k)}: {v}" for k, v in frames.items())))
        if answer.earlier:
            rows.append(("logged before the last call", _pre(answer.earlier)))
        if answer.guards:
            chosen = Entry(answer.frame, answer.guards)
            rows.append(("entry shown", _frame_html(answer.frame)))
            rows.append(("its guards", _kinds(chosen)))
            if focus:
                mine = [g.predicate for g in answer.guards if _on(focus, g)]
                rows.append((f"its guards on {_code_html(focus)}", _pre(mine) if mine else "none"))
            symbolic = [d for g in answer.guards if g.predicate.startswith("check_tensor(") for d in _symbolic(g)]
            ranges = [g.predicate for g in answer.guards if re.search(r"\.size\(\)|sym_size|\.shape\[", g.predicate)]
            if symbolic:
                rows.append(("sizes printed as <code>None</code> (dimension)", ", ".join(symbolic)))
            if ranges:
                rows.append(("size guards", _pre(ranges)))
            out.append(_listing(chosen, "The entry shown"))
    else:
        rows.append(("not recognised", html.escape(answer.reason)))
        if answer.recompiles:
            out.append(_pre(f"Recompiling function {r.function}: {'; '.join(r.reasons)}" for r in answer.recompiles))
    return _rows(rows) + "".join(out)


def render_drill(drill: Drill, build: BuildRecord, snippets_dir: Path) -> str:
    """Markdown (with HTML blocks) for one drill; raises DrillError when a verdict or a text is missing."""
    key = answer_key(drill, build)
    e = html.escape
    out = [
        f"## {drill.label}: {drill.title} {{ #{drill.anchor} }}",
        "",
        drill.intro,
        "",
        f'<div class="gym-drill" data-drill="{drill.anchor}" data-torch="{e(build.torch)}" markdown="block">',
        "",
    ]
    for i, s in enumerate(drill.scenarios, 1):
        answer = key[s.id]
        reveal = (
            f"<!-- gym {e(answer.outcome)} -->"
            + reveal_text(drill, s, answer, build.torch)
            + measured(answer, s.guard)
            + f'<p><a href="{e(site_link(s.explained))}">Why: the chapter section</a></p>'
        )
        payload = {
            "verdict": answer.verdict,
            "outcome": answer.outcome,
            "before": answer.before,
            "after": answer.after,
            "guard": answer.failing_guard,
            "html": reveal,
        }
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
