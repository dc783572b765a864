"""Stable placeholders for what changes from run to run, so two builds' outputs can be compared.

Replaced: object ids and addresses, hashes, timestamps, pids, guard-eval latencies and other
timings, absolute paths (repository, site-packages, home, temp), and torch-internal
``file.py:line`` references. What a guard checks (sizes, strides, constants, names) is kept.
"""

from __future__ import annotations

import functools
import re
import sys
import sysconfig
from pathlib import Path

_RULES: list[tuple[re.Pattern[str], str]] = [
    # timestamps and dates
    (re.compile(r"\b\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?\b"), "<timestamp>"),
    (re.compile(r"\b\d{2}:\d{2}:\d{2}\.\d+\b"), "<time>"),
    # latencies and durations
    (re.compile(r"(Guard eval latency = )[\d.]+( ?[uµm]?s)"), r"\1<latency>\2"),
    # (leading padding too: a right-aligned timing gains a space when it loses a digit)
    (re.compile(r"[ \t]*\b\d+(?:\.\d+)?(?:e-?\d+)? ?(?:us|µs|ms|ns)\b"), " <duration>"),
    # addresses and ids
    (re.compile(r"\b0x[0-9a-fA-F]{6,}\b"), "<addr>"),
    (re.compile(r"(___check_obj_id\([^,]+, )\d+"), r"\1<id>"),
    (re.compile(r"(___check_type_id\([^,]+, )\d+"), r"\1<id>"),
    (re.compile(r"(___lookup_backend\()\d+"), r"\1<id>"),
    (re.compile(r"(___check_current_backend\()\d+"), r"\1<id>"),
    (re.compile(r"(\bid[ (=:]+)\d{9,}"), r"\1<id>"),
    (re.compile(r"\b\d{12,}\b"), "<id>"),
    # ids inside a name dynamo makes up for a global (G['__optimizer_<id>_<id>_c4'] in a guard dump)
    (re.compile(r"(?<=_)\d{12,}(?=_|\b)"), "<id>"),
    # hashes (config hash, cache keys); torch 2.2's config-hash recompile reason prints short ones
    (re.compile(r"\b((?:Saved|Current) hash: )[0-9a-f]+\b"), r"\1<hash>"),
    (re.compile(r"\b[0-9a-f]{32,64}\b"), "<hash>"),
    # pids
    (re.compile(r"\bpid[ =:]+\d+", re.I), "pid <pid>"),
    # torch-internal source references: _dynamo/output_graph.py:1135
    (re.compile(r"((?:torch/)?_[a-z_]+/[\w/]+\.py):\d+"), r"\1:<line>"),
]


def _path_rules(root: Path | None) -> list[tuple[str, str]]:
    rules = []
    if root is not None:
        rules.append((str(root.resolve()) + "/", ""))
    for key in ("purelib", "platlib", "stdlib"):
        path = sysconfig.get_paths().get(key)
        if path:
            rules.append((path + "/", "<python>/"))
    rules.append((sys.prefix + "/", "<prefix>/"))
    rules.append((str(Path.home()) + "/", "<home>/"))
    return sorted(set(rules), key=lambda r: -len(r[0]))


_TEMP = re.compile(r"/tmp/[\w.-]+/")
# A recorded path has the repository's root stripped (execute.py); an environment inside the
# repository (.nox/...) then reads as a relative site-packages path, the same place as <python>/.
_REPO_ENV = re.compile(r"(?<![\w/.])\.nox/[\w.+-]+/lib/python[\d.]+/site-packages/")
_ABS = re.compile(r"(?<![\w.<])/(?:[\w.-]+/)+(?=[\w.-]+\.py\b)")


# a set of strings as Python prints it: its order follows the process's string hashes (torch 2.2's
# `set(L['self'].param_groups[0].keys()) == {'lr', 'betas', ...}` guard), so it is sorted
_STRING_SET = re.compile(r"\{('[^'{}]*'(?:, '[^'{}]*')+)\}")


def _sorted_set(m: re.Match[str]) -> str:
    return "{" + ", ".join(sorted(re.findall(r"'[^']*'", m.group(1)))) + "}"


@functools.lru_cache(maxsize=4096)  # a pure function of its arguments; every build normalizes every result again
def normalize_text(text: str, root: Path | None = None) -> str:
    for prefix, placeholder in _path_rules(root):
        text = text.replace(prefix, placeholder)
    text = _REPO_ENV.sub("<python>/", text)
    text = _TEMP.sub("<tmp>/", text)
    text = _ABS.sub("<path>/", text)
    for pattern, repl in _RULES:
        text = pattern.sub(repl, text)
    return _STRING_SET.sub(_sorted_set, text)


def normalize_output(stdout: str, logs: dict[str, str], root: Path | None = None) -> dict:
    return {
        "stdout": normalize_text(stdout, root),
        "logs": {k: normalize_text(v, root) for k, v in sorted(logs.items())},
    }
