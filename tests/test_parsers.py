"""Log-prefix stripping, guard-dump and recompile parsers, on logs captured from real runs."""

from __future__ import annotations

import pytest
from fixtures import channel, raw_log

from fieldguide.guide.parse.guard_dump import parse_check_tensor, parse_guards_log, tensor_check
from fieldguide.guide.parse.recompiles import parse_recompiles
from fieldguide.run import logs

VERSIONS = ["2.2.2", "2.13.0", "2.14.1"]


def test_both_prefix_styles_are_stripped():
    new = "V1129 10:33:16.244000 2379 torch/_dynamo/guards.py:4786] [0/0] [__guards] GUARDS:"
    old = "[2026-11-29 10:43:55,614] [0/0] torch._dynamo.guards.__guards: [DEBUG] GUARDS:"
    warn = "W1129 10:33:16.244000 2379 torch/_dynamo/convert_frame.py:1000] [0/8] torch._dynamo hit config.recompile_limit (8)"
    assert logs.classify(new) == logs.Line("log", "GUARDS:", "guards", "DEBUG", "0/0")
    assert logs.classify(old) == logs.Line("log", "GUARDS:", "guards", "DEBUG", "0/0")
    w = logs.classify(warn)
    assert (w.channel, w.level, w.text) == ("dynamo", "WARNING", "torch._dynamo hit config.recompile_limit (8)")
    assert logs.classify("just a line") is None


@pytest.mark.parametrize("version", VERSIONS)
def test_no_prefix_survives(version):
    for name in ("anatomy", "five_calls"):
        lines = logs.parse([("err", raw_log(version, name))])
        assert lines and all(line.stream == "log" for line in lines if line.text.strip()), name
        assert not any("torch/_dynamo/guards.py:" in ln.text or "torch._dynamo.guards" in ln.text for ln in lines)


@pytest.mark.parametrize("version", VERSIONS)
def test_guard_dump_parses_on_every_format(version):
    dumps = parse_guards_log(channel(version, "anatomy", "guards"))
    assert len(dumps) == 1
    guards = dumps[0]
    assert guards[0].flat == (version == "2.2.2")
    check = tensor_check(guards)
    fields = parse_check_tensor(check.predicate)
    assert fields == {
        "source": "L['x']",
        "type": "Tensor",
        "dispatch key set": "DispatchKeySet(CPU, BackendSelect, ADInplaceOrView, AutogradCPU)",
        "dtype": "torch.float32",
        "device": "None",
        "requires_grad": "False",
        "size": "[4]",
        "stride": "[1]",
    }
    alpha = [g for g in guards if g.source == "L['alpha']"]
    assert any(g.predicate.startswith("L['alpha'] == 2.0") for g in alpha)
    assert {g.group for g in guards} >= {"argument", "ambient"}


def test_flat_dump_kinds_are_inferred():
    guards = parse_guards_log(channel("2.2.2", "anatomy", "guards"))[0]
    assert [g.kind for g in guards] == [
        "DIMENSION_DYNAMIC_MARKING_GUARD",
        "TYPE_MATCH",
        "EQUALS_MATCH",
        "DEFAULT_DEVICE",
        "BACKEND_MATCH",
        "CONFIG_HASH_MATCH",
        "TENSOR_MATCH",
    ]
    assert [g.group for g in guards] == ["argument"] * 3 + ["ambient"] * 3 + ["argument"]


def test_tree_dump_keeps_labels_and_skips_managers():
    guards = parse_guards_log(channel("2.13.0", "anatomy", "guards"))[0]
    kinds = [g.kind for g in guards]
    assert "GuardManager" not in kinds and "RootGuardManager" not in kinds
    assert {"GLOBAL_STATE", "DEFAULT_DEVICE", "TENSOR_MATCH", "EQUALS_MATCH", "ID_MATCH"} <= set(kinds)
    assert [g.source for g in guards if g.kind == "ID_MATCH"] == ["G['torch']", "G['torch'].sin"]


@pytest.mark.parametrize("version", VERSIONS)
def test_recompile_reasons_one_line_per_entry(version):
    recompiles = parse_recompiles(channel(version, "five_calls", "recompiles"))
    assert [len(r.failures) for r in recompiles] == [1, 2, 3, 4]
    assert all(r.function == "scaled" for r in recompiles)
    first = recompiles[0].failures[0]
    assert "stride mismatch at index 0. expected 4, actual 1" in first.reason
    assert first.entry == ("" if version == "2.2.2" else "0/0")
    last = recompiles[-1]
    assert last.failures[-1].reason == "G['scale'] == 3.0"
    assert not any("User stack trace" in f.reason or "File " in f.reason for f in last.failures)


def test_every_entrys_failure_is_read_past_the_user_stack_traces():
    """From 2.11 on each failure is followed by a stack trace; the older entries' failures come after it."""
    recompiles = parse_recompiles(channel("2.13.0", "layer_idx", "recompiles"))
    assert [[f.entry for f in r.failures] for r in recompiles[:3]] == [["0/0"], ["0/1", "0/0"], ["0/2", "0/1", "0/0"]]
    assert [f.reason for f in recompiles[2].failures] == [f"self.layer_idx == {i}" for i in (2, 1, 0)]


def test_grad_mode_reason_per_release():
    old = parse_recompiles(channel("2.2.2", "five_calls", "recompiles"))[2].failures[0].reason
    new = parse_recompiles(channel("2.13.0", "five_calls", "recompiles"))[2].failures[0].reason
    assert old == "___check_global_state()"
    assert new == "GLOBAL_STATE changed: grad_mode"


def test_a_recorded_site_packages_path_under_the_repository_normalizes_like_a_fresh_one():
    from pathlib import Path

    from fieldguide.run.normalize import normalize_text

    root = Path("/work/repo")
    recorded = "Recompiling function inner in .nox/torch-2.13.0/lib/python3.11/site-packages/torch/_dynamo/external_utils.py:67"
    assert "<python>" in normalize_text(recorded, root) and ".nox" not in normalize_text(recorded, root)
