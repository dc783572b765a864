"""Parse a `TORCH_LOGS=guards` dump into guards: kind, source expression and group.

Tree format (torch >= 2.4)::

    TREE_GUARD_MANAGER:
    +- RootGuardManager
    | +- GLOBAL_STATE: ___check_global_state() against {...}
    | +- GuardManager: source=L['x'], accessed_by=...
    | | +- TENSOR_MATCH: check_tensor(L['x'], Tensor, ...)  # return torch.sin(x) * alpha  # f.py:4 in f

Flat format (torch 2.2-2.3)::

    GUARDS:
    ___check_type_id(L['alpha'], 4570165824)                      # return ...  # f.py:5 in f
    check_tensor(L['x'], Tensor, DispatchKeySet(...), torch.float32, ..., size=[4], stride=[1])  # ...
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

_LEAF = re.compile(r"^[| ]*\+- (?P<kind>[A-Z][A-Z0-9_]*): (?P<body>.*)$")
_SOURCE = re.compile(r"""\b[LG]\[(?:'[^']*'|"[^"]*")\](?:\.\w+|\[(?:'[^']*'|"[^"]*"|\d+)\])*""")

# On the flat format a guard has no label: infer one from the predicate.
_FLAT_KINDS = [
    (re.compile(r"^check_tensor\("), "TENSOR_MATCH"),
    (re.compile(r"^___check_type_id\("), "TYPE_MATCH"),
    (re.compile(r"^___check_obj_id\("), "ID_MATCH"),
    (re.compile(r"^hasattr\(.*_dynamo_\w*indices"), "DIMENSION_DYNAMIC_MARKING_GUARD"),
    (re.compile(r"^utils_device\.CURRENT_DEVICE"), "DEFAULT_DEVICE"),
    (re.compile(r"___skip_backend_check|___check_current_backend|___current_backend"), "BACKEND_MATCH"),
    (re.compile(r"^___compile_config_hash"), "CONFIG_HASH_MATCH"),
    (re.compile(r"^___check_global_state"), "GLOBAL_STATE"),
    (re.compile(r"^___check_torch_function_mode_stack"), "TORCH_FUNCTION_MODE_STACK"),
    (re.compile(r"top_saved_tensors_hooks"), "SAVED_TENSORS_HOOKS"),
    (re.compile(r"^___dict_contains|^not ___dict_contains"), "DICT_CONTAINS"),
    (re.compile(r"^len\("), "LENGTH_CHECK"),
    (re.compile(r" == "), "EQUALS_MATCH"),
]

AMBIENT_KINDS = {
    "GLOBAL_STATE",
    "DEFAULT_DEVICE",
    "TORCH_FUNCTION_MODE_STACK",
    "BACKEND_MATCH",
    "CONFIG_HASH_MATCH",
    "SAVED_TENSORS_HOOKS",
    "GRAD_MODE",
    "DETERMINISTIC_ALGORITHMS",
}


@dataclass(frozen=True)
class Guard:
    kind: str  # as labelled by torch (tree) or inferred from the predicate (flat)
    predicate: str  # the check itself, without the trailing "# user code" comment
    comment: str  # where it came from, as torch printed it
    source: str  # L['x'], G['torch'].sin, ... ; "" for ambient state
    flat: bool  # True when read from the flat (pre-2.4) format

    @property
    def group(self) -> str:
        if self.source.startswith("L["):
            return "argument"
        if self.source.startswith("G["):
            return "global"
        return "ambient"

    @property
    def family(self) -> str:
        """A release-independent name: the saved-tensors-hooks lambda is the same guard on every torch."""
        if "top_saved_tensors_hooks" in self.predicate:
            return "SAVED_TENSORS_HOOKS"
        if self.kind == "LAMBDA_GUARD" and _flat_kind(self.predicate) in AMBIENT_KINDS:
            return _flat_kind(self.predicate)
        return self.kind


def _flat_kind(predicate: str) -> str:
    for pattern, kind in _FLAT_KINDS:
        if pattern.search(predicate):
            return kind
    return "LAMBDA_GUARD"


def _split_comment(body: str) -> tuple[str, str]:
    m = re.search(r"\s{2,}# |\s# (?=.*\.py:\d+)", body)
    if m:
        return body[: m.start()].rstrip(), body[m.end() :].strip()
    return body.rstrip(), ""


def _source_of(predicate: str, kind: str) -> str:
    if kind in AMBIENT_KINDS:
        return ""
    m = _SOURCE.search(predicate)
    return m.group(0) if m else ""


def split_dumps(text: str) -> list[str]:
    """A channel's text holds one dump per compiled entry; each starts at 'GUARDS:'."""
    dumps, current = [], None
    for line in text.splitlines():
        if line.strip() == "GUARDS:":
            if current is not None:
                dumps.append("\n".join(current))
            current = []
        elif current is not None:
            current.append(line)
    if current is not None:
        dumps.append("\n".join(current))
    return dumps


def is_tree(dump: str) -> bool:
    return "TREE_GUARD_MANAGER" in dump or "RootGuardManager" in dump


def parse_dump(dump: str) -> list[Guard]:
    """The guards of one dump (the text after a 'GUARDS:' line), in printed order."""
    guards = []
    tree = is_tree(dump)
    for raw in dump.splitlines():
        line = raw.rstrip()
        if not line.strip() or line.startswith("Guard eval latency"):
            continue
        if tree:
            m = _LEAF.match(line)
            if not m or m.group("kind") in ("GuardManager", "RootGuardManager", "DictGuardManager"):
                continue
            kind = m.group("kind")
            predicate, comment = _split_comment(m.group("body"))
            guards.append(Guard(kind, predicate, comment, _source_of(predicate, kind), False))
        else:
            if line.strip() in ("TREE_GUARD_MANAGER:",):
                continue
            predicate, comment = _split_comment(line.strip())
            kind = _flat_kind(predicate)
            guards.append(Guard(kind, predicate, comment, _source_of(predicate, kind), True))
    return guards


def parse_guards_log(text: str) -> list[list[Guard]]:
    """Every dump in a guards channel, parsed; one list per compiled entry (new lists on every call)."""
    return [list(dump) for dump in _parsed_log(text)]


@functools.lru_cache(maxsize=2048)
def _parsed_log(text: str) -> tuple[tuple[Guard, ...], ...]:
    # by the text itself: the pages, the drills and the survey parse the same logs many times
    return tuple(tuple(parse_dump(d)) for d in split_dumps(text))


# -- the tensor check ------------------------------------------------------------------------
TENSOR_FIELDS = ("type", "dispatch key set", "dtype", "device", "requires_grad", "size", "stride")


def _top_level_split(text: str) -> list[str]:
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


def parse_check_tensor(predicate: str) -> dict[str, str]:
    """The fields of `check_tensor(L['x'], Tensor, DispatchKeySet(...), torch.float32, device=None, ...)`."""
    m = re.search(r"check_tensor\((.*)\)\s*$", predicate)
    if not m:
        raise ValueError(f"not a check_tensor predicate: {predicate!r}")
    args = _top_level_split(m.group(1))
    positional = [a for a in args if "=" not in a.split("(")[0]]
    named = dict(a.split("=", 1) for a in args if "=" in a.split("(")[0])
    fields = {"source": positional[0]}
    for name, value in zip(("type", "dispatch key set", "dtype"), positional[1:], strict=False):
        fields[name] = value
    for name in ("device", "requires_grad", "size", "stride"):
        if name in named:
            fields[name] = named[name].strip()
    return fields


def tensor_check(guards: list[Guard]) -> Guard | None:
    return next((g for g in guards if g.predicate.startswith("check_tensor(")), None)
