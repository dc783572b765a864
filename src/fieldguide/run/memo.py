"""Values kept per object: a memo whose keys hold an object's identity, for results computed from
objects that stay the same across the builds of one process (the committed records, read once per
file version, and the results in them), while a new object starts afresh.

Each entry pins the object it was computed from, so an id is never taken for another object's
after the first is gone; the oldest entries go first once the memo holds `size`.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any


class PinnedMemo:
    def __init__(self, size: int) -> None:
        self.size = size
        self._entries: dict[tuple, tuple[object, Any]] = {}

    def get(self, obj: object, extra: Hashable, compute: Callable[[], Any]) -> Any:
        """compute()'s value for `obj` (by identity) and `extra`, computed once while kept."""
        key = (id(obj), extra)
        hit = self._entries.get(key)
        if hit is not None and hit[0] is obj:
            return hit[1]
        value = compute()
        self._entries[key] = (obj, value)
        while len(self._entries) > self.size:
            self._entries.pop(next(iter(self._entries)))
        return value

    def __len__(self) -> int:
        return len(self._entries)
