"""Parse `TORCH_LOGS=recompiles` output: which function recompiled and which guard failed, per entry.

torch 2.13::

    Recompiling function f in /path/f.py:6
        triggered by the following guard failure(s):
        - 0/1: tensor 'x' requires_grad mismatch. expected requires_grad=0
        - 0/0: tensor 'x' requires_grad mismatch. expected requires_grad=0
        - User stack trace:            (2.11 on: each failure is followed by the user code's stack,
        -   File "/path/f.py", line 7, in f        its lines indented past the dash; the next
        -     return x * 2                           failure, of an older entry, follows it)
        - 0/0: ...

torch 2.2 prints the same without the ``0/1:`` entry ids, and names tensors ``L['x']``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_HEAD = re.compile(r"^Recompiling function (?P<function>\S+) in (?P<where>.+?)\s*$")
_FAILURE = re.compile(r"^\s*- (?:(?P<entry>\d+/\d+): )?(?P<reason>.*?)\s*$")
_TRACE_LINE = re.compile(r"^\s*-\s{2,}")  # a line of a "User stack trace": indented past its dash


@dataclass
class Failure:
    reason: str  # the failed guard, as printed (trailing "# user code" comment removed)
    entry: str = ""  # the cache entry it failed against ("0/1"), on torch >= 2.5
    comment: str = ""


@dataclass
class Recompile:
    function: str
    where: str
    failures: list[Failure] = field(default_factory=list)

    @property
    def reasons(self) -> list[str]:
        return [f.reason for f in self.failures]


def _split(reason: str) -> tuple[str, str]:
    m = re.search(r"\s{2,}# ", reason)
    return (reason[: m.start()].rstrip(), reason[m.end() :].strip()) if m else (reason, "")


def parse_recompiles(text: str) -> list[Recompile]:
    result: list[Recompile] = []
    in_trace = False
    for line in text.splitlines():
        head = _HEAD.match(line.strip())
        if head:
            result.append(Recompile(head.group("function"), head.group("where")))
            in_trace = False
            continue
        if not result or "triggered by the following guard failure" in line:
            continue
        m = _FAILURE.match(line)
        if not m or (in_trace and _TRACE_LINE.match(line)):
            continue
        in_trace = False
        if m.group("reason").startswith("User stack trace"):
            in_trace = True
            continue
        reason, comment = _split(m.group("reason"))
        result[-1].failures.append(Failure(reason, m.group("entry") or "", comment))
    return result


def attribute_to_steps(output: str, step_pattern: str) -> list[dict]:
    """Tie recompile messages to the printed step that followed them.

    `output` is a run's interleaved output (stdout and the recompiles channel, in order);
    `step_pattern` a regex with named groups ``label`` and ``graphs`` that matches the line a
    snippet prints after each call. Returns one dict per step: label, graphs, recompiles, and
    groups (every named group of the step's line, as printed).
    """
    pattern = re.compile(step_pattern)
    steps, pending = [], []
    for line in output.splitlines():
        m = pattern.match(line)
        if m:
            steps.append(
                {
                    "label": m.group("label").strip(),
                    "graphs": int(m.group("graphs")),
                    "recompiles": parse_recompiles("\n".join(pending)),
                    "groups": m.groupdict(),
                }
            )
            pending = []
        else:
            pending.append(line)
    return steps
