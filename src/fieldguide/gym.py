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
from .parse.recompiles import Recompile, parse_recompiles
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
            Scenario(str(s["id"]), s["title"], s["snippet"], s["explained"], s.get("guard", ""))
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
        )
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
class Entry:
    """One guard dump (`TORCH_LOGS=guards`): the entry compiled for one frame."""

    frame: str  # the function the guards' comments name ("f", "torch_dynamo_resume_in_f_at_9"), "" if none
    guards: tuple[Guard, ...]
    new: bool = False  # compiled during the last call

    @property
    def flat(self) -> bool:
        return any(g.flat for g in self.guards)


@dataclass(frozen=True)
class Answer:
    verdict: str  # "reuses" | "recompiles"
    before: int
    after: int
    failing_guard: str  # the first failure line logged for the last call, "" when reused or none logged
    guards: tuple[Guard, ...] = ()  # for a reuse: the dump of the entry whose guards on the focus held
    earlier: tuple[str, ...] = ()  # guard failures logged before the last call (what made the entries)
    passed_guards: tuple[str, ...] = ()  # for a reuse: that entry's guards on the scenario's `guard` source
    recompiles: tuple[Recompile, ...] = ()  # logged for the last call: the function and every failure line
    entries: tuple[Entry, ...] = ()  # every dump the snippet logged, in order
    frame: str = ""  # for a reuse: the frame of `guards`

    @property
    def new_graphs(self) -> int:
        return self.after - self.before

    @property
    def why(self) -> str:
        """The measured reason for the verdict: the failed guard, or the guards the call passed."""
        if self.verdict == "recompiles":
            return self.failing_guard or "TORCH_LOGS=recompiles logged no guard failure for the last call"
        return "; ".join(self.passed_guards)


_FRAME = re.compile(r"\.py:\d+ in (\w+)\s*$")


def frame_of(dump: list[Guard] | tuple[Guard, ...]) -> str:
    """The function a dump's entry belongs to, as its guards' comments name it (the user code's line)."""
    names = [m.group(1) for g in dump if "_dynamo/" not in g.comment and (m := _FRAME.search(g.comment))]
    return max(set(names), key=names.count) if names else ""


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
    first_call, _, last_call = result.output.partition(before.group(0))  # logged before / after "before:"
    recompiles = tuple(parse_recompiles(last_call))
    failures = [f for r in recompiles for f in r.failures]
    earlier = tuple(r.failures[0].reason for r in parse_recompiles(first_call) if r.failures)
    # the dumps as the guards channel logged them; those logged after "before:" are the last call's new entries
    old = sum(line.strip() == "GUARDS:" for line in first_call.splitlines())
    entries = tuple(
        Entry(frame_of(d), tuple(d), i >= old) for i, d in enumerate(parse_guards_log(result.log("guards")))
    )
    if a > b:  # a new graph; torch does not always log a reason for it (a new frame, not a guard failure)
        return Answer(
            "recompiles",
            b,
            a,
            failures[0].reason if failures else "",
            (),
            earlier,
            recompiles=recompiles,
            entries=entries,
        )
    chosen = passed_entry(scenario, entries)
    return Answer(
        "reuses",
        b,
        a,
        "",
        chosen.guards if chosen else (),
        earlier,
        passed_guards(scenario, result),
        recompiles,
        entries,
        chosen.frame if chosen else "",
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
    shown = ", ".join(
        f"{k} {_code_html(fields[k])}" for k in ("dtype", "requires_grad", "size", "stride") if k in fields
    )
    return f"the tensor check on {_code_html(source)}" + (f" ({shown})" if shown else ""), symbolic


def _on(focus: str, guard: Guard) -> bool:
    """Whether a guard checks the source a scenario names (``L['n']``, ``scale``, ``k``)."""
    if guard.source == focus or guard.kind == focus:  # a source, or a kind of guard (GLOBAL_STATE)
        return True
    return re.search(rf"(?<![\w]){re.escape(focus)}(?![\w])", guard.predicate) is not None


_TYPE_ONLY = re.compile(r"^___check_type_id\(|^not math\.isnan\(")


def what_changed(line: str) -> str:
    """'What changed', in words, for one failure line: its message kind's text, or else what the
    line literally compares (never the generic text of an unrecognised message)."""
    named = re.match(r"^GLOBAL_STATE changed: (.+)$", line)
    if named:  # the log names the state: say that, not the kind's example
        return (
            "State outside the arguments changed since the entry was compiled; the log names it: "
            + ", ".join(_code_html(n.strip()) for n in named.group(1).split(","))
            + "."
        )
    if line.strip() == "___check_global_state()":  # the check failed; this torch's log names no state
        return (
            "State outside the arguments changed since the entry was compiled: the ambient-state check "
            "<code>___check_global_state()</code> failed. This torch's log does not name which state."
        )
    kind = messages.kind_of(messages.normalize("- " + line))
    if kind is not messages.OTHER:
        return html.escape(kind.text)
    m = re.match(r"^tensor '(.+?)' (.+?) mismatch\. expected (.+?), actual (.+)$", line)
    if m:
        return (
            f"The tensor check on {_code_html(m.group(1))} compares its {html.escape(m.group(2))}: the entry "
            f"expects {_code_html(m.group(3))}, the call passed {_code_html(m.group(4))}."
        )
    m = re.match(r"^(.+?) (==|!=|<=|>=|<|>) (.+)$", line)
    if m:
        return (
            f"The failed guard compares {_code_html(m.group(1))} with {_code_html(m.group(3))} "
            f"(<code>{html.escape(m.group(2))}</code>), and for the last call that comparison was false."
        )
    return f"The log does not say; it prints the failed guard only as {_code_html(line)}."


def _kinds(entry: Entry) -> str:
    """'10 guards in its dump (5 TENSOR_MATCH, ...)'; the flat (pre-2.4) format prints no kinds."""
    n = len(entry.guards)
    if entry.flat:
        return f"{n} guards in its dump (this torch prints them without kind labels)"
    kinds: dict[str, int] = {}
    for g in entry.guards:
        kinds[g.kind] = kinds.get(g.kind, 0) + 1
    by_kind = ", ".join(f"{k} {_code_html(n)}" for n, k in sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0])))
    return f"{n} guards in its dump ({by_kind})"


def _frame_html(frame: str) -> str:
    return _code_html(frame) if frame else "a function the dumps do not name"


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


def _explain_recompile(answer: Answer) -> str:
    e = html.escape
    out = []
    n = answer.new_graphs
    graphs = f"{n} new graph{'s' if n != 1 else ''}"
    logged = [r for r in answer.recompiles if r.failures]
    if logged:
        for r in logged:
            out.append(
                f"<p><code>TORCH_LOGS=recompiles</code> logged <code>Recompiling function {e(r.function)}"
                f"{' in ' + e(r.where) if r.where.startswith('snippets/') else ''}</code>: "  # not a path into torch's install
                "the call did not pass the guards of any cached entry of that function. The guard failure"
                + ("s it printed, one per cached entry" if len(r.failures) > 1 else " it printed")
                + ":</p><pre><code>"
                + e("\n".join(f"- {f.entry + ': ' if f.entry else ''}{f.reason}" for f in r.failures))
                + "</code></pre>"
            )
        said = []
        for r in logged:
            for f in r.failures:
                text = what_changed(f.reason)
                if text not in said:
                    said.append(text)
        out.append("".join(f"<p><strong>What changed:</strong> {t}</p>" for t in said))
        out.append(f"<p>For the last call torch compiled {graphs}.</p>")
        return "".join(out)
    out.append(
        f"<p><code>TORCH_LOGS=recompiles</code> logged no guard failure for the last call, and torch compiled "
        f"{graphs} for it.</p>"
    )
    for new in [x for x in answer.entries if x.new]:
        older = [x for x in answer.entries if not x.new and x.frame == new.frame]
        where = _frame_html(new.frame)
        if not older:
            out.append(
                f"<p>The new entry is for {where}, a frame with no earlier entry in this snippet's guard dumps: "
                "nothing cached there to check.</p>"
            )
            continue
        diffs = _differences(older[-1], new)
        if diffs:
            out.append(
                f"<p>The guard dumps show the measured difference: the earlier entry of {where} and the new one "
                "print these guards with different values:</p><pre><code>"
                + e("\n".join(f"earlier: {o}\nnew:     {n_}" for o, n_ in diffs))
                + "</code></pre>"
            )
        else:
            out.append(
                f"<p>The new entry is for {where}. The dumps hold an earlier entry logged under that name, and "
                "it prints the same guards on the call's values as the new one: no guard in these dumps tells "
                f"them apart ({len(new.guards)} guards in the new dump).</p>"
            )
    return "".join(out)


def explain(answer: Answer, focus: str = "") -> str:
    """The reveal's explanation in words, from the measurement: what changed and which guard caught it,
    or for a reuse, which guards passed and what was already symbolic. `focus` is the source the
    scenario changes (the drill's `guard` field): its guards are shown first."""
    e = html.escape
    if answer.verdict == "recompiles":
        return _explain_recompile(answer)
    logged = [r for r in answer.recompiles if r.failures]
    if logged:  # guards failed, yet no graph was added (a cache limit, for example): show what was logged
        out = [
            "<p>Nothing new was compiled for the last call, yet <code>TORCH_LOGS=recompiles</code> logged guard "
            "failures for it:</p><pre><code>"
            + e(
                "\n".join(
                    f"Recompiling function {r.function}\n" + "\n".join(f"- {f.reason}" for f in r.failures)
                    for r in logged
                )
            )
            + "</code></pre>"
        ]
    else:
        out = [
            "<p>The last call passed the guards of a cached entry in every compiled frame it ran, and nothing new "
            "was compiled: <code>TORCH_LOGS=recompiles</code> logged no guard failure for it.</p>"
        ]
    if answer.earlier:
        out.append(
            "<p>Before it, this snippet recompiled; <code>TORCH_LOGS=recompiles</code> logged:</p><pre><code>"
            + e("\n".join(answer.earlier))
            + "</code></pre>"
        )
    frames: dict[str, list[Entry]] = {}
    for entry in answer.entries:
        frames.setdefault(entry.frame, []).append(entry)
    if len(answer.entries) > 1:
        out.append(
            "<p>The guard dumps (<code>TORCH_LOGS=guards</code>) hold "
            + ", ".join(f"{len(v)} entr{'ies' if len(v) > 1 else 'y'} for {_frame_html(k)}" for k, v in frames.items())
            + ".</p>"
        )
    if not answer.guards:
        out.append("<p>The dumps do not show which of them the call passed.</p>" if answer.entries else "")
        return "".join(out)
    where = _frame_html(answer.frame)
    in_entry = f"in the entry of {where}" if answer.frame else "in one of its entries"
    chosen = Entry(answer.frame, answer.guards)
    if focus:
        mine = [g.predicate for g in answer.guards if _on(focus, g)]
        if mine:
            on = (
                f"on {_code_html(focus)}" if re.match(r"^[LG]\[", focus) else f"whose line mentions {_code_html(focus)}"
            )
            out.append(
                f"<p>The guards {on} {in_entry} held for the last call:</p>"
                f"<pre><code>{e(chr(10).join(mine))}</code></pre>"
            )
            if all(_TYPE_ONLY.search(m) for m in mine):
                out.append(
                    f"<p>They check the type of {_code_html(focus)}"
                    + (" and that it is not NaN" if any("isnan" in m for m in mine) else "")
                    + ", not its value: this entry does not depend on the exact value.</p>"
                )
        else:
            out.append(
                f"<p>No line of the guard dump {in_entry.replace('in the entry', 'of the entry')} "
                f"mentions {_code_html(focus)}.</p>"
            )
    tensors, symbolic = [], []
    for g in answer.guards:
        if g.predicate.startswith("check_tensor("):
            text, sym = _tensor_summary(g)
            symbolic += sym
            if "_modules" not in g.source and "_parameters" not in g.source:  # the arguments, not the weights
                tensors.append(text)
    ranges = [g.predicate for g in answer.guards if re.search(r"\.size\(\)|sym_size|\.shape\[", g.predicate)]
    out.append(
        f"<p><strong>{'The entry of ' + where if answer.frame else 'That entry'}</strong>: {_kinds(chosen)}"
        + (", among them " + "; ".join(tensors[:3]) if tensors else "")
        + ".</p>"
    )
    if symbolic:
        out.append(
            "<p><strong>Already symbolic:</strong> " + ", ".join(symbolic) + " (its size is printed as "
            "<code>None</code> in the tensor check), so a new size there passes the check"
            + (", and the range guard " + ", ".join(_code_html(r) for r in ranges) + " held" if ranges else "")
            + ".</p>"
        )
    elif ranges:
        out.append(
            "<p><strong>Already symbolic:</strong> the entry guards sizes by range, not by value: "
            + ", ".join(_code_html(r) for r in ranges)
            + ".</p>"
        )
    elif tensors:
        out.append("<p>No tensor size was symbolic in this entry: each tensor check compares exact sizes.</p>")
    listing = "\n".join(g.predicate for g in answer.guards)
    out.append(
        f"<details><summary>The {len(answer.guards)} guards of {'the entry of ' + where if answer.frame else 'that entry'} "
        f"(<code>TORCH_LOGS=guards</code>)</summary><pre><code>{e(listing)}</code></pre></details>"
    )
    return "".join(out)


def render_drill(drill: Drill, build: BuildRecord, snippets_dir: Path) -> str:
    """Markdown (with HTML blocks) for one drill; raises DrillError when a verdict is missing."""
    key = answer_key(drill, build)
    e = html.escape
    out = [
        f"## {drill.label}: {drill.title} {{ #{drill.anchor} }}",
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
            f"<code>unique_graphs</code> was {answer.before} before the last call and {answer.after} after it.</p>"
            + explain(answer, s.guard)
            + f'<p><a href="{e(site_link(s.explained))}">Why: the chapter section that explains it</a></p>'
        )
        payload = {
            "verdict": answer.verdict,
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
