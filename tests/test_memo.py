"""The memo kept per object (run/memo.py): by identity, pinned, bounded."""

from __future__ import annotations

from fieldguide.run.memo import PinnedMemo


class Thing:
    pass


def test_a_value_is_computed_once_per_object_and_extra_and_never_for_another_object():
    memo, calls = PinnedMemo(2), []
    a, b = Thing(), Thing()

    def compute(tag):
        calls.append(tag)
        return tag

    assert memo.get(a, "x", lambda: compute("a-x")) == "a-x"
    assert memo.get(a, "x", lambda: compute("again")) == "a-x"  # kept
    assert memo.get(a, "y", lambda: compute("a-y")) == "a-y"  # another extra: its own entry
    assert memo.get(b, "x", lambda: compute("b-x")) == "b-x"  # another object, whatever its id
    assert len(memo) == 2 and calls == ["a-x", "a-y", "b-x"]  # the oldest went first
    assert memo.get(a, "x", lambda: compute("a-x again")) == "a-x again"
