"""The normalizer: run-to-run noise becomes placeholders; what a guard checks is kept."""

from __future__ import annotations

from pathlib import Path

from fieldguide.run.normalize import normalize_output, normalize_text


def test_noise_becomes_placeholders():
    text = (
        "[2026-11-29 11:21:32,750] compiled at 0x7f3a2b4c5d60\n"
        "___check_obj_id(L['self'], 140234567890123)\n"
        "___check_obj_id(L['mod'], 94567890123)\n"  # (an id too short for the generic long-number rule)
        "___check_type_id(L['x'], 94567890123)\n"
        "Guard eval latency = 12.34 us\n"
        "  took    5.2 ms and 310ns\n"
        "pid=12345 hash 0123456789abcdef0123456789abcdef\n"
        '  File "torch/_dynamo/output_graph.py:1135"\n'
        "source=G['__optimizer_139709857603280_139709846046496_c4']()\n"  # ids in a name dynamo made up
    )
    out = normalize_text(text)
    assert out.splitlines() == [
        "[<timestamp>] compiled at <addr>",
        "___check_obj_id(L['self'], <id>)",
        "___check_obj_id(L['mod'], <id>)",
        "___check_type_id(L['x'], <id>)",
        "Guard eval latency = <latency> us",
        "  took <duration> and <duration>",
        "pid <pid> hash <hash>",
        '  File "torch/_dynamo/output_graph.py:<line>"',
        "source=G['__optimizer_<id>_<id>_c4']()",
    ]


def test_a_printed_set_of_strings_is_sorted():
    """torch 2.2 guards a dict's keys as a set literal, printed in the process's hash order."""
    a = "set(L['self'].param_groups[0].keys()) == {'lr', 'betas', 'eps'}  # for group in"
    b = "set(L['self'].param_groups[0].keys()) == {'eps', 'lr', 'betas'}  # for group in"
    assert (
        normalize_text(a)
        == normalize_text(b)
        == "set(L['self'].param_groups[0].keys()) == {'betas', 'eps', 'lr'}  # for group in"
    )
    assert normalize_text("{'a': 1, 'b': 2}") == "{'a': 1, 'b': 2}"  # a dict keeps its order


def test_what_a_guard_checks_is_kept():
    guard = "check_tensor(L['x'], Tensor, DispatchKeySet(CPU), torch.float32, device=None, requires_grad=False, size=[4, 3], stride=[3, 1])"
    assert normalize_text(guard) == guard
    assert normalize_text("L['alpha'] == 2.5") == "L['alpha'] == 2.5"
    assert normalize_text("unique_graphs=3 after 128 calls") == "unique_graphs=3 after 128 calls"


def test_paths_of_the_checkout_and_temp_dirs(tmp_path):
    root = tmp_path / "checkout"
    text = f"{root}/snippets/guards/anatomy.py:3 and /tmp/pytest-of-x/fieldguide-abc/events.jsonl and /opt/other/lib/mod.py"
    assert (
        normalize_text(text, root)
        == "snippets/guards/anatomy.py:3 and <tmp>/fieldguide-abc/events.jsonl and <path>/mod.py"
    )


def test_normalize_output_covers_stdout_and_every_channel_sorted():
    out = normalize_output("at 0xdeadbeef00\n", {"recompiles": "id=123456789012\n", "guards": "x\n"}, Path("/nowhere"))
    assert out == {"stdout": "at <addr>\n", "logs": {"guards": "x\n", "recompiles": "id=<id>\n"}}
    assert list(out["logs"]) == ["guards", "recompiles"]
