"""Render code for lesson 5, "Recompiles in real code" (docs/realcode.md).

Each case compares a failing pattern with its fix, both measured; every number, reason and
verdict below is read from the two runs.
"""

from __future__ import annotations

import re

from ..parse.recompiles import parse_recompiles
from ..record import SnippetResult
from ..report import relative_link
from .. import tlparse
from .common import STEP_RE, code, plural, shorten, steps, table

_LIMIT = re.compile(r"hit config\.(\w+) \((\d+)\)")


def limit_hit(result: SnippetResult) -> tuple[str, int] | None:
    """(limit name, value) from the warning torch printed when a function hit its recompile limit."""
    m = _LIMIT.search(result.output + result.stderr)
    return (m.group(1), int(m.group(2))) if m else None


def first_reasons(result: SnippetResult) -> list[str]:
    """The newest entry's failed guard of each recompile, in order."""
    return [r.failures[0].reason for r in parse_recompiles(result.output) if r.failures]


def _final(result: SnippetResult) -> int:
    s = steps(result.stdout)
    return s[-1][1] if s else 0


def _limit_sentence(result: SnippetResult) -> str:
    hit = limit_hit(result)
    if not hit:
        return ""
    return (f" It hit `{hit[0]}` ({hit[1]}): torch stopped compiling that function and ran the remaining calls "
            "without a compiled entry, which is the warning shown in the output.")


# -- learning-rate schedules --------------------------------------------------------------------
def lr_table(floats: SnippetResult, tensors: SnippetResult) -> str:
    a, b = steps(floats.stdout), steps(tensors.stdout)
    rows = [[la, str(ga), str(gb)] for (la, ga), (_, gb) in zip(a, b)]
    return table(["epoch", "unique_graphs, lr as a float", "unique_graphs, lr in a tensor"], rows, "-rr")


def lr_summary(floats: SnippetResult, tensors: SnippetResult) -> str:
    n = len(steps(floats.stdout))
    f_graphs, t_graphs = _final(floats), _final(tensors)
    reasons = first_reasons(floats)
    text = [f"Over {plural(n, 'epoch')}, the float version compiled {plural(f_graphs, 'graph')}"]
    if reasons:
        text[0] += f"; the first recompile failed on {code(shorten(reasons[0], 80))}, the learning rate baked in as a constant"
    text[0] += "."
    if f_graphs < n and f_graphs > 1 and not limit_hit(floats):
        text.append(
            f"It then stopped recompiling: after {plural(f_graphs - 1, 'recompile')}, this torch treated the float as a "
            "symbol (the same automatic dynamism as for sizes), so later values reused that entry."
        )
    elif f_graphs >= n:
        text.append("Every new value was a new entry: this torch keeps specializing on the float.")
    elif limit_hit(floats):
        text.append(f"Each new value recompiled ({plural(len(reasons), 'recompile')} logged) until the limit.")
    text.append(_limit_sentence(floats).strip())
    text.append(
        f"The tensor version compiled {plural(t_graphs, 'graph')} for the same {plural(n, 'learning rate')}: "
        "a value inside a tensor is data, and no guard reads it."
    )
    return " ".join(t for t in text if t)


# -- train() / eval() ---------------------------------------------------------------------------
def phase_steps(result: SnippetResult) -> list[dict]:
    out, pending = [], []
    for line in result.output.splitlines():
        m = re.match(r"^(?P<label>.+?):\s+unique_graphs=(?P<graphs>\d+)\s*$", line)
        if m:
            fails = [f.reason for r in parse_recompiles("\n".join(pending)) for f in r.failures[:1]]
            out.append({"label": m.group("label").strip(), "graphs": int(m.group("graphs")), "reasons": fails})
            pending = []
        else:
            pending.append(line)
    return out


def train_eval_table(loop: SnippetResult, warm: SnippetResult) -> str:
    rows = []
    for name, res in (("validate every epoch", loop), ("both modes warmed up first", warm)):
        for s in phase_steps(res):
            rows.append([name, s["label"], str(s["graphs"]), "<br>".join(code(shorten(r, 70)) for r in s["reasons"]) or "—"])
    return table(["loop", "after", "unique_graphs", "recompile reason logged"], rows, "--r-")


def train_eval_summary(loop: SnippetResult, warm: SnippetResult) -> str:
    a, b = phase_steps(loop), phase_steps(warm)
    if not a or not b:
        return "The runs printed no phases on this torch; see their output."
    during_a = [s for s in a[1:] if s["graphs"] > a[0]["graphs"]]
    first_growth = next((s for s in a if s["reasons"]), None)
    text = [f"The loop ended with {plural(a[-1]['graphs'], 'graph')}"]
    if first_growth:
        text[0] += (f"; the compile for validation happened at {code(first_growth['label'])}, in the middle of training, "
                    f"logged as {code(shorten(first_growth['reasons'][0], 80))}")
    text[0] += "."
    if during_a and a[-1]["graphs"] == during_a[0]["graphs"]:
        text.append("After that, toggling back and forth reused the two entries: one per mode, not one per toggle.")
    warm_start = b[0]["graphs"]
    grew = any(s["graphs"] > warm_start for s in b[1:])
    text.append(
        f"With both modes compiled before the loop ({plural(warm_start, 'graph')} at warm-up), "
        + ("the loop itself compiled nothing." if not grew else "the loop still compiled on this torch; see the table.")
    )
    return " ".join(text)


# -- per-layer attributes and regional compilation ----------------------------------------------
def layer_table(fail: SnippetResult, fix: SnippetResult) -> str:
    a, b = steps(fail.stdout), steps(fix.stdout)
    rows = [[la, str(ga), str(gb)] for (la, ga), (_, gb) in zip(a, b)]
    return table(["block", "unique_graphs, layer_idx read in forward", "unique_graphs, a buffer"], rows, "-rr")


def layer_summary(fail: SnippetResult, fix: SnippetResult) -> str:
    blocks = len(steps(fail.stdout))
    reasons = first_reasons(fail)
    text = [f"Compiled block by block, the {plural(blocks, 'block')} that read `layer_idx` made {plural(_final(fail), 'graph')}"]
    if reasons:
        text[0] += f"; the first recompile failed on {code(shorten(reasons[0], 70))}"
    text[0] += "."
    if len(reasons) >= 2 and _final(fail) >= min(blocks, 3):
        text.append(f"Every new block recompiled ({plural(len(reasons), 'recompile')} logged), each for its own index.")
    elif len(reasons) == 1 and _final(fail) < blocks:
        text.append("After that one recompile, this torch made the integer symbolic, and the later blocks reused "
                    "that entry.")
    text.append(_limit_sentence(fail).strip())
    text.append(
        f"With the per-layer number in a buffer, the same {plural(blocks, 'block')} made {plural(_final(fix), 'graph')}: "
        "the buffer is a tensor input, so every block passes the same guards."
    )
    return " ".join(t for t in text if t)


# -- guard overhead -----------------------------------------------------------------------------
def guard_overhead(result: SnippetResult) -> dict:
    out = result.stdout
    times = {m.group(1): float(m.group(2)) for m in re.finditer(r"^(.+?): ([\d.]+) us per call$", out, re.M)}
    filt = re.search(r"guard_filter_fn: (\d+) guards offered, (\d+) kept", out)
    latencies = re.findall(r"Guard eval latency = ([\d.]+) ?(\w+)", result.log("guards"))
    return {
        "times": times,
        "offered": int(filt.group(1)) if filt else None,
        "kept": int(filt.group(2)) if filt else None,
        "latencies": latencies,
        "available": "does not exist in this torch" not in out,
    }


def guard_overhead_table(result: SnippetResult) -> str:
    g = guard_overhead(result)
    rows = [[label, f"{us:.1f}"] for label, us in g["times"].items()]
    return table(["model", "median µs per call (this build's machine)"], rows, "-r")


def guard_overhead_summary(result: SnippetResult) -> str:
    g = guard_overhead(result)
    text = []
    if g["latencies"]:
        lat = ", then ".join(f"{v} {u}" for v, u in g["latencies"])
        text.append(
            f"`TORCH_LOGS=guards` ends each dump with a *Guard eval latency* line: the time this torch measured to "
            f"evaluate that entry's guards once, right after building them. Here: {lat}."
        )
    else:
        text.append("This torch's guard dump has no *Guard eval latency* line.")
    if not g["available"]:
        text.append("`guard_filter_fn` and the `skip_guard_on_*_unsafe` helpers do not exist in this torch, so the "
                    "filtered model was not compiled.")
    elif g["offered"] is not None:
        text.append(
            f"The filter was offered {plural(g['offered'], 'guard')} and kept {g['kept']}: the rest were checks on "
            "module attributes, which the compiled model no longer re-checks on each call. That is the unsafe part: "
            "change such an attribute after compiling, and the compiled code will not notice."
        )
    return " ".join(text)


# -- diagnosis ----------------------------------------------------------------------------------
def log_block(result: SnippetResult, channel: str) -> str:
    text = result.log(channel).rstrip("\n")
    if not text:
        return f"*(nothing on the `{channel}` channel on this torch)*\n"
    return f'```text title="{channel}"\n{text}\n```\n'


def set_logs_summary(result: SnippetResult) -> str:
    plain = parse_recompiles(result.log("recompiles"))
    verbose = result.log("recompiles_verbose")
    entries = len(re.findall(r"^\s*guard \d+ failures:", verbose, re.M))
    text = [f"`recompiles=True` logged {plural(len(plain), 'recompile')}."]
    if verbose:
        text.append(
            f"`recompiles_verbose=True` logged the next one with a section per cache entry ({entries} here), "
            "each listing what failed against that entry." if entries else
            "`recompiles_verbose=True` logged the next one; see the block above for its format on this torch."
        )
    else:
        text.append("`recompiles_verbose` logged nothing on this torch.")
    return " ".join(text)


def stance_results(result: SnippetResult) -> dict[str, str]:
    return {m.group(1): m.group(2) for m in re.finditer(r"^(test_\w+): (PASSED|FAILED.*)$", result.stdout, re.M)}


def stance_summary(result: SnippetResult) -> str:
    if "does not exist in this torch" in result.stdout:
        return "`torch.compiler.set_stance` does not exist in this torch: this kind of test needs a newer release."
    r = stance_results(result)
    fixed, marked = r.get("test_fixed_batch_size", ""), r.get("test_batch_marked_dynamic", "")
    text = []
    if fixed.startswith("FAILED"):
        text.append(f"`test_fixed_batch_size` failed, as a test should when its code recompiles: {code(shorten(fixed[len('FAILED, '):], 110))}.")
    elif fixed:
        text.append("`test_fixed_batch_size` passed on this torch: the short batch did not recompile.")
    if marked == "PASSED":
        text.append("`test_batch_marked_dynamic`, with the batch dimension marked dynamic before the warm-up, passed.")
    elif marked:
        text.append(f"`test_batch_marked_dynamic` did not pass on this torch: {code(shorten(marked, 110))}.")
    return " ".join(text)


def trace_summary(result: SnippetResult, page_url: str) -> str:
    m = re.search(r"^trace files written: (\d+)", result.stdout, re.M)
    written = int(m.group(1)) if m else 0
    if not any(n.startswith("trace/") for n in result.artifacts):
        return (f"This torch wrote {plural(written, 'trace file')} under `TORCH_TRACE`, so there is no tlparse report "
                "for this build.")
    link = relative_link(page_url, tlparse.report_path(result) + "index.html")
    raw = relative_link(page_url, tlparse.report_path(result) + "raw.log")
    return (
        f"This torch wrote {plural(written, 'trace file')}. The build ran tlparse on the recorded trace: "
        f"[open the tlparse report of this run]({link}){{ .md-button }} (or [the trace itself]({raw})). "
        "Its index lists every compile by compile id, with each one's graph, guards and, for a recompile, the reason."
    )


def lr_claim(floats: SnippetResult, tensors: SnippetResult) -> str:
    """The last epoch's counts of both versions, as a claim resting on the lines they printed."""
    from ..claims import claim, line_of

    a, b = steps(floats.stdout), steps(tensors.stdout)
    if not a or not b:
        return ""
    return claim(
        "After the last epoch, `unique_graphs` was {f} with the float and {t} with the tensor.",
        evidence=[line_of(floats, a[-1][0]), line_of(tensors, b[-1][0])], f=a[-1][1], t=b[-1][1],
    ).markdown()
