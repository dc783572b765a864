"""Chapter render code: each verdict follows the measurement it is given.

The live build (torch 2.13 in CI) is one side; records captured on other releases are the
others: the fixtures (torch 2.2.2 and 2.14.1) and, where they hold today's snippets, the committed
release records. Feeding a renderer another torch's result must change its words and numbers
with it. The issue-10 items are checked on the live build, where they were found.
"""

from __future__ import annotations

import re

import pytest
from conftest import ROOT
from fixtures import record

from fieldguide.guide.chapters import dynamic as dyn
from fieldguide.guide.chapters import guards as g
from fieldguide.guide.claims import Run
from fieldguide.run.record import BuildRecord

OLD = record("2.2.2")  # flat dumps, identity guards, stale helper, config hash, no stances
NEW = record("2.14.1")


@pytest.fixture(scope="module")
def live(site_record) -> BuildRecord:
    return BuildRecord.from_json(site_record)


def current(release: str, *runs: Run) -> BuildRecord:
    """The committed record of a release when it holds today's `runs`; else skip (re-measure it)."""
    from fieldguide.guide.jobs import site_jobs, stale_entries
    from fieldguide.run.execute import source_digest  # noqa: F401  (digests are compared by measure)

    path = ROOT / "records" / f"torch-{release}.json.gz"
    if not path.exists():
        pytest.skip(f"records/torch-{release}.json.gz is not measured yet (nox -s matrix -- {release})")
    build = BuildRecord.read(path)
    gaps = stale_entries(build, site_jobs(ROOT), ROOT / "snippets")
    wanted = {f"snippets/{r.path}" + "".join(f" {k}={v}" for k, v in r.env) for r in runs}
    if wanted & set(gaps["missing"] + gaps["stale"]):
        pytest.skip(f"records/torch-{release}.json.gz predates today's snippets (nox -s matrix -- {release})")
    return build


def measured(live: BuildRecord, *runs: Run) -> list[BuildRecord]:
    """The live build, and the 2.2.2 and 2.14.1 release records where they hold today's `runs`."""
    out = [live]
    for release in ("2.2.2", "2.14.1"):
        try:
            out.append(current(release, *runs))
        except pytest.skip.Exception:
            pass
    return out


def plain(markdown: str) -> str:
    """A render without its evidence markers."""
    return re.sub(r'<sup class="fg-ev">.*?</sup>', "", markdown)


def test_dump_format_counts_come_from_the_dump():
    old, new = g.dump_format(OLD.find("guards/anatomy.py")), g.dump_format(NEW.find("guards/anatomy.py"))
    assert old.outcome == "flat list" and str(old.slots["n"]) == "7"
    assert str(old.slots["parts"]) == "4 about your arguments, 3 ambient state"
    assert new.outcome == "tree"
    assert str(new.slots["n"]) == str(len(g.first_dump(NEW.find("guards/anatomy.py"))))


def test_reading_notes_follow_the_format():
    anatomy = OLD.find("guards/anatomy.py")
    assert g.global_checks(anatomy).outcome == "not in the dump"
    comments = g.comment_sources(anatomy)  # issue 22: three of seven lines cite dynamo's own code
    assert comments.outcome == "your code and dynamo's" and comments.value == {"snippet": 4, "dynamo": 3}
    assert g.global_checks(NEW.find("guards/anatomy.py")).value == ["G['torch']", "G['torch'].sin"]
    assert g.global_state_check(anatomy, OLD.find("guards/five_calls.py")).outcome == "logged, not printed"


def test_guard_table_rows_equal_the_dump(live):
    for build in (OLD, NEW, live):
        result = build.find("guards/anatomy.py")
        table = g.guard_table(result)
        assert table.count("\n") == len(g.first_dump(result)) + 2


def test_item8_ambient_table_shows_the_label_this_torch_printed(live):
    old = plain(g.ambient_table(OLD.find("guards/anatomy.py")))
    new = plain(g.ambient_table(live.find("guards/anatomy.py")))
    assert "| `CONFIG_HASH_MATCH` | `___compile_config_hash()" in old
    assert "| `TORCH_FUNCTION_MODE_STACK` | (this dump has no such line) |" in old  # issue 22: not "not in this dump"
    assert "| `CONFIG_HASH_MATCH` | (this dump has no such line) |" in new
    hooks = next(row for row in new.splitlines() if row.startswith("| `SAVED_TENSORS_HOOKS`"))
    printed = next(x for x in g.first_dump(live.find("guards/anatomy.py")) if x.family == "SAVED_TENSORS_HOOKS")
    assert f"`{printed.kind}`: " in hooks


def test_config_and_backend_outcomes():
    old_amb, new_amb = OLD.find("guards/ambient.py"), NEW.find("guards/ambient.py")
    flip = g.config_flip(old_amb)  # issue 22: a new graph with no guard failure logged is not "recompiles"
    assert flip.outcome == "compiles a new graph, no guard failure logged"
    assert flip.slots["message"] == "Current config does not match config saved when compiling"
    assert g.config_flip(new_amb).outcome == "reuses the entry"
    assert g.backend_switch(old_amb).outcome == g.backend_switch(new_amb).outcome == "recompiles"
    assert g.backend_reason(old_amb, OLD.find("guards/anatomy.py")).outcome == "a printed backend check failed"
    new_reason = g.backend_reason(new_amb, NEW.find("guards/anatomy.py"))
    assert new_reason.outcome == "an unprinted backend check failed" and "BACKEND_MATCH failure" in new_reason.value


def test_item1_explain_matches_each_builder_to_the_lines_of_its_own_source(live):
    explain, anatomy = live.find("guards/explain.py"), live.find("guards/anatomy.py")
    matched, left = g.match_objects(explain, anatomy)
    dump = g.first_dump(anatomy)
    assert sum(len(mine) for _, _, mine in matched) + len(left) == len(dump)  # every printed line counted once
    for builder, name, mine in matched:
        assert all(x.source == name for x in mine if name), (builder, name)
    by_builder = {b: mine for b, _, mine in matched}
    if "MODULE_MATCH" in by_builder:
        assert [x.source for x in by_builder["MODULE_MATCH"]] == ["G['torch']"]
        assert [x.source for x in by_builder["BUILTIN_MATCH"]] == ["G['torch'].sin"]
    table = plain(g.explain_table(explain, anatomy))
    counts = [int(row.split("|")[3]) for row in table.splitlines()[2:]]
    assert sum(counts) == len(dump) - len(left)


def test_item2_which_builders_print_nothing_comes_from_the_measurement(live):
    explain, anatomy = live.find("guards/explain.py"), live.find("guards/anatomy.py")
    silent = g.silent_builders(explain, anatomy)
    printed_kinds = {x.family for x in g.first_dump(anatomy)}
    if "TORCH_FUNCTION_MODE_STACK" in printed_kinds:
        assert "TORCH_FUNCTION_STATE" not in silent.value
    assert str(silent.slots["names"]) == ", ".join(f"`{s}`" for s in silent.value)
    page = (ROOT / "docs" / "guards.md").read_text()
    assert "emit nothing of their own" not in page


def test_explain_counts():
    old = g.explain_count(OLD.find("guards/explain.py"), OLD.find("guards/anatomy.py"))
    assert old.value == 10 and str(old.slots["printed"]) == "7"
    assert "FUNCTION_MATCH" in g.silent_builders(OLD.find("guards/explain.py"), OLD.find("guards/anatomy.py")).value
    new = g.explain_count(NEW.find("guards/explain.py"), NEW.find("guards/anatomy.py"))
    assert new.value == len(g.explain_objects(NEW.find("guards/explain.py")))
    held = g.silent_in_global_state(NEW.find("guards/explain.py"), NEW.find("guards/anatomy.py"))
    assert held.outcome == "shown in GLOBAL_STATE"


def test_five_calls_and_no_grad_reason():
    for build in (OLD, NEW):
        r = build.find("guards/five_calls.py")
        assert g.five_calls_graphs(r).value == 5
        assert g.failure_lines(r).value == [1, 2, 3, 4] and g.failure_lines(r).outcome == "one per entry"
    assert g.no_grad_failure(OLD.find("guards/five_calls.py")).outcome == "the whole global state"
    new = g.no_grad_failure(NEW.find("guards/five_calls.py"))
    assert new.outcome == "names the field" and new.value == "GLOBAL_STATE changed: grad_mode"


def test_module_regime():
    assert g.module_regime(OLD.find("guards/module_guards.py")) == "identity"
    assert g.module_regime(NEW.find("guards/module_guards.py")) == "type"
    assert g.second_entry_pins_k(OLD.find("guards/module_guards.py")).outcome == "k not guarded"
    assert g.second_entry_pins_k(NEW.find("guards/module_guards.py")).outcome == "attribute became symbolic"


def test_item3_the_second_module_entry_takes_its_own_outcome_on_each_release():
    """Issue 22: the 2.8 `please file a bug` lambda guard is not explained as 2.13's symbolic float."""
    expected = {"2.2.2": "k not guarded", "2.5.1": "value guard", "2.8.0": "lambda guard, unknown var"}
    expected["2.13.0"] = "attribute became symbolic"
    for release, outcome in expected.items():
        build = current(release, g.MODULE_GUARDS, g.MODULE_COUNTS)
        pinned = g.second_entry_pins_k(build.find("guards/module_guards.py"))
        assert pinned.outcome == outcome, release
        varied = g.ensemble_k_graphs(build.find("guards/module_counts.py"))
        assert varied.outcome == ("one per value" if varied.value == 4 else "fewer than values"), release
    page = (ROOT / "docs" / "guards.md").read_text()
    assert "[lambda guard, unknown var]" in page and "{comment:code}" in page


def test_item4_the_helper_guard_is_the_one_in_the_run_it_displays(live):
    for build in measured(live, g.HELPER):
        result = g.HELPER.find(build)
        m = g.helper_stale(result)
        if "guard" in m.slots:
            assert m.slots["guard"] in result.output
        assert g.helper_back(result).outcome != "unrecognised"  # the last printed line is explained too


def test_stale_helper_follows_the_run():
    old, new = g.HELPER.find(OLD), g.HELPER.find(NEW)  # measured before the page showed guards with it
    assert g.helper_is_stale(old) and not g.helper_is_stale(new)
    assert g.helper_stale(old).outcome == "keeps the old body, no guard on the helper"
    assert g.helper_stale(old).slots["same"] == "[2.0, 2.0, 2.0]"


def test_item10_every_measured_torch_has_a_change_no_guard_sees(live):
    assert g.unseen_changes(live.find("guards/unguarded.py")).value
    assert g.constant_result(live.find("guards/unguarded.py")).outcome == "stale"
    for release in ("2.2.2", "2.14.1"):
        try:
            build = current(release, g.UNGUARDED)
        except pytest.skip.Exception:
            continue
        assert g.unseen_changes(build.find("guards/unguarded.py")).value, release


def test_item7_dispatch_keys_are_read_from_three_tensors(live):
    for build in measured(live, g.DISPATCH, g.ANATOMY):
        result = build.find("guards/dispatch_keys.py")
        keys = g.dispatch_keys(result)
        if keys["plain"] is None:
            assert g.grad_changes_keys(result).outcome == "not measured"
            continue
        if keys["plain"] == keys["requires_grad=True"]:
            assert g.grad_changes_keys(result).outcome == "no"
        lost = [k for k in keys["plain"] if k not in keys["inference_mode"]]
        assert g.inference_lost(result).value == lost
        # issue 22: the guard's key set is compared after thread-local include/exclude keys
        versus = g.guard_vs_tensor_keys(build.find("guards/anatomy.py"), result)
        assert versus.outcome == "differ" and "`AutocastCPU`" in str(versus.slots["only_printed"])


def test_item11_guard_eval_latency_and_timings_draw_no_direction(live):
    for build in measured(live, g.ANATOMY):
        result = build.find("guards/anatomy.py")
        timings = g.call_timings(result)
        t = g.per_call_timings(result)
        assert t.slots == {"eager": f"{timings['eager']:.1f}", "compiled": f"{timings['compiled']:.1f}"}
        m = re.search(r"Guard eval latency = ([\d.]+) us", result.output)
        assert g.latency_line(result).outcome == ("printed" if m else "not printed")
    page = (ROOT / "docs" / "guards.md").read_text()
    assert "more than" not in page and "less than" not in page
    assert "Everything about recompiles comes down to" not in page


# -- lesson four -------------------------------------------------------------------------------
def test_static_to_dynamic():
    for build in (OLD, NEW):
        r = build.find("dynamic/new_sizes.py", TORCH_LOGS="recompiles,guards")
        first = dyn.first_new_size(r)
        assert first.outcome == "became symbolic" and first.slots["size"] == "size=[None, 3]"
        assert "2 <= L['x'].size()[0]" in str(first.slots["guards"])
        one = dyn.single_row(r)
        assert one.outcome == "own entry" and one.slots["size"] == "size=[1, 3]"
        assert "compiled new code (first call)" in dyn.static_to_dynamic(r)


def test_item5_modes_table_reads_the_last_entry_of_the_run_it_counts(live):
    for build in measured(live, dyn.THREE_MODES):
        result = build.find("dynamic/three_modes.py", TORCH_LOGS="guards")
        table = plain(dyn.modes_table(result))
        static = next(row for row in table.splitlines() if row.startswith("| dynamic=False |"))
        graphs = dyn.mode_graphs(result).value["dynamic=False"]
        if graphs == 5:  # one static entry per size: the last one is the last size, 8 rows
            assert "`size=[8, 3]`" in static, build.torch
        assert "| dynamic=True | 1 |" in table
        assert dyn.modes_outcome(result).outcome == "each as asked", build.torch


def test_scalar_outcomes_follow_counts():
    old, new = OLD.find("dynamic/scalars.py"), NEW.find("dynamic/scalars.py")
    assert dyn.scalar_float(old).outcome == "a graph per value"
    m = dyn.scalar_int(old)
    assert m.outcome == "constant, then one entry for the rest" and str(m.slots["constant_for"]) == "its first 2 values"
    assert m.slots["guard"] == "L['amount'] == 1"
    m = dyn.scalar_float(new)
    assert m.outcome == "constant, then one entry for the rest" and str(m.slots["constant_for"]) == "its first value"
    assert dyn.scalar_tensor(new).outcome == "one graph"
    assert "reading" not in dyn.scalars_table(new)  # the explanation is the page's, per outcome


def test_limits_names_and_outcomes():
    old, new = OLD.find("dynamic/limits.py"), NEW.find("dynamic/limits.py")
    assert list(dyn.limit_config(old)) == ["cache_size_limit", "accumulated_cache_size_limit"]
    assert "recompile_limit" in dyn.limit_config(new)
    assert dyn.limit_names(old).outcome == "cache_size_limit only"
    assert dyn.limit_names(new).outcome == "recompile_limit and cache_size_limit"
    assert dyn.after_limit(old).outcome == "fall back to eager"
    assert dyn.after_limit(new).outcome == "keep serving"
    assert dyn.new_sizes_past_limit(old).outcome == "nothing compiled or served"
    warned_old, warned_new = dyn.limit_warned(old), dyn.limit_warned(new)
    assert warned_old.slots["hit"] == "config.cache_size_limit (2)"
    assert warned_new.slots["hit"] == "config.recompile_limit (2)"
    assert warned_old.slots["acc"] == "accumulated_cache_size_limit" and warned_old.slots["acc_value"] == "64"
    assert warned_new.slots["acc"] == "accumulated_recompile_limit" and warned_new.slots["acc_value"] == "256"
    assert "hit config.cache_size_limit (2)" in dyn.limit_warning(old)
    assert "hit config.recompile_limit (2)" in dyn.limit_warning(new)


def test_item9_stances_on_the_release_records(live):
    for build in measured(live, dyn.STANCES):
        m = dyn.stance_available(build.find("dynamic/stances.py"))
        assert m.outcome in ("absent", "raised, then ran eagerly, then compiled"), (build.torch, m)
        if m.outcome != "absent":
            assert m.slots["equal"] == "equals eager double(x): True"


def test_item9_stances_claim_only_what_was_printed(live):
    old = dyn.stance_available(OLD.find("dynamic/stances.py"))
    assert old.outcome == "absent" and old.slots["line"] == "torch.compiler.set_stance does not exist in this torch"
    result = live.find("dynamic/stances.py")
    m = dyn.stance_available(result)
    assert m.outcome == "raised, then ran eagerly, then compiled"
    assert m.slots["error"] == "RuntimeError" and "/work/" not in str(m.slots["message"])
    assert "equals eager double(x): True" in result.stdout


def test_item6_cache_walk_draws_no_direction_from_single_runs(live):
    for build in (NEW, live):
        r = build.find("dynamic/cache_walk.py")
        eager, rows = dyn.walk_timings(r)
        table = dyn.walk_table(r)
        assert all(f"{t:.1f}" in table for _, _, t in rows)
        m = dyn.walk_cost(r)
        assert m.outcome == "single runs, a graph per size" and m.slots["t0"] == f"{rows[0][2]:.1f}"
    text = (ROOT / "docs" / "dynamic.md").read_text()
    assert "A few microseconds per entry" not in text and "as the cache grew" not in text


def test_cache_walk_table_is_from_the_measurement():
    """Every row of the table against the snippet's own printed lines, read here independently."""
    r = NEW.find("dynamic/cache_walk.py")
    printed = [line.split() for line in r.stdout.splitlines() if line.strip()]
    eager = next(float(cols[1]) for cols in printed if cols[0] == "eager")
    entries = [
        (int(cols[0].split("=")[1]), int(cols[2].split("=")[1]), float(cols[3]))
        for cols in printed
        if cols[0].startswith("sizes=")
    ]
    assert len(entries) == 5
    table = re.sub(r'<sup class="fg-ev">.*?</sup>', "", dyn.walk_table(r))  # evidence markers aside
    rows = [line for line in table.splitlines() if line.startswith("| ") and "---" not in line][1:]
    expected = [f"| eager (no compile) | — | {eager:.1f} |"] + [
        f"| {n} {'size' if n == 1 else 'sizes'} | {g} | {t:.1f} |" for n, g, t in entries
    ]
    assert rows == expected


def _page_text(built_site, page: str) -> str:
    import html

    raw = (built_site / page / "index.html").read_text()
    raw = re.sub(r"<sup class=\"fg-ev\">.*?</sup>", "", raw)  # the evidence markers
    raw = raw.replace("<br>", " ")  # a cell's lines read as words apart
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", raw)))


def _plain(markdown: str) -> str:
    text = plain(markdown).replace("**", "").replace("`", "").replace("\\|", "|").replace("<br>", " ")
    return re.sub(r"\s+", " ", text)


def test_pages_show_the_verdicts_of_this_builds_measurements(built_site, live):
    """The built pages carry exactly what the renderers compute from this build's record."""
    from fieldguide.guide import explain

    guards_page = _page_text(built_site, "guards")
    r = live.find
    _, explained = explain.render_blocks((ROOT / "docs" / "guards.md").read_text(), live, live.torch)
    assert explained and all(e.claim is not None for e in explained)
    for e in explained:
        text = _plain(re.sub(r"\[([^\]]+)\]\([^)]+\)", r"\1", e.claim.text))  # a link reads as its words
        assert text in guards_page, e.claim.text[:120]
    dynamic_page = _page_text(built_site, "dynamic")
    for rendered in (
        dyn.static_to_dynamic(r("dynamic/new_sizes.py", TORCH_LOGS="recompiles,guards")),
        dyn.scalars_table(r("dynamic/scalars.py", TORCH_LOGS="recompiles")),
        dyn.limit_names_table(r("dynamic/limits.py", TORCH_LOGS="recompiles")),
        dyn.walk_table(r("dynamic/cache_walk.py")),
    ):
        for row in rendered.splitlines()[2:]:  # each table row, as the page shows it
            cells = [c.strip() for c in _plain(row).strip().strip("|").split(" | ")]
            assert " ".join(cells) in dynamic_page, row[:120]
    assert f"Measured on torch {live.torch}" in guards_page and f"Measured on torch {live.torch}" in dynamic_page


def test_cache_list_growth_on_other_torches():
    for build, outcome in ((OLD, "one line per entry"), (NEW, "one line per entry, named by compile id")):
        r = build.find("dynamic/cache_list.py")
        assert [lines for _, _, lines in dyn.list_growth(r)] == [0, 1, 2, 3, 4]
        m = dyn.list_walk(r)
        assert m.outcome == outcome and str(m.slots["counts"]) == "1, 2, 3, 4"


# -- lesson 5, a limit warning, line by line ------------------------------------------------------
LIMIT_WARNING_FACTS = (
    "realcode: the limit warning, its first line",
    "realcode: the limit warning, its function: line",
    "realcode: the limit warning, its last reason: line",
    "realcode: the limit warning, the compile id in its last reason",
    "realcode: the limit warning, the lines after it",
    "realcode: the functions the limit warnings name past the limit",
)


def _release_records() -> list[tuple[str, BuildRecord]]:
    import tomllib

    releases = tomllib.loads((ROOT / "records" / "releases.toml").read_text())["releases"]
    return [
        (r, BuildRecord.read(ROOT / "records" / f"torch-{r}.json.gz"))
        for r in releases
        if (ROOT / "records" / f"torch-{r}.json.gz").exists()
    ]


@pytest.mark.parametrize("name", LIMIT_WARNING_FACTS)
def test_limit_warning_facts_take_a_named_outcome_on_every_record(name):
    """Each fact of "A limit warning, line by line" takes a named outcome on every committed release record,
    its evidence lines are lines of the run's output, and each value it quotes occurs in that evidence.
    Broken on purpose: the last reason compared with the block's failures with its compile id left on (2.5 on:
    unrecognised); the hint lines read from the line after the warning's first (function: is no hint:
    unrecognised)."""
    from fieldguide.guide import facts  # noqa: F401  (every chapter's facts registered)
    from fieldguide.guide.claims import FACTS, UNRECOGNISED, _occurs
    from fieldguide.guide.explain import outcome_on

    f = FACTS[name]
    records = _release_records()
    assert records
    for release, rec in records:
        m = outcome_on(f, rec)
        assert m is not None, (release, name)
        assert m.outcome != UNRECOGNISED and m.outcome in f.outcomes, (release, m.value)
        outputs = "\n".join(r.find(rec).output for r in f.runs)
        assert m.evidence, (release, name)
        for ev in m.evidence:
            assert any(ev.line in line for line in outputs.splitlines()), (release, ev.line)
        joined = "\n".join(ev.line for ev in m.evidence)
        for slot, value in m.slots.items():
            if isinstance(value, str) and value:
                assert _occurs(value, joined), (release, slot, value)


def _limits_result(release: str):
    """dynamic/limits.py's run in a committed release record."""
    rec = BuildRecord.read(ROOT / "records" / f"torch-{release}.json.gz")
    return rec.find("dynamic/limits.py", TORCH_LOGS="recompiles")


def test_limit_warning_last_reason_follows_the_line_it_quotes():
    """Which failure the `last reason:` line quotes is read from the output, not from the release: the 2.2.2
    record's warning made to quote the newest entry's failure reads as that, and a quote of no failure of the
    block, or a warning without its last reason, is unrecognised (a LookupError), never the nearest outcome."""
    from dataclasses import replace

    from fieldguide.guide.chapters import realcode as rc

    old = _limits_result("2.2.2")
    assert rc.warning_last_reason(old).outcome == "the oldest entry's failure"
    assert rc.warning_reason_id(old).outcome == "without a compile id"
    newest = "last reason: tensor 'L['x']' size mismatch at index 0. expected 3, actual 4"
    swapped = old.output.replace("last reason: tensor 'L['x']' size mismatch at index 0. expected 2, actual 4", newest)
    assert swapped != old.output
    m = rc.warning_last_reason(replace(old, output=swapped))
    assert m.outcome == "the newest entry's failure" and m.slots["size"] == "3" and str(m.slots["pos"]) == "first"
    elsewhere = old.output.replace("expected 2, actual 4\nTo log", "expected 7, actual 4\nTo log")
    with pytest.raises(LookupError):
        rc.warning_last_reason(replace(old, output=elsewhere))
    without = "\n".join(ln for ln in old.output.splitlines() if "last reason:" not in ln)
    for measure in (rc.warning_last_reason, rc.warning_function_line, rc.warning_first_line):
        with pytest.raises(LookupError):
            measure(replace(old, output=without))


def test_limit_warning_first_line_and_hints_follow_the_output():
    """The limit's name and value are the warning's (checked against the name the snippet lowered), and the
    address is read from the `To diagnose` line as printed: another address is that address."""
    from dataclasses import replace

    from fieldguide.guide.chapters import realcode as rc

    old, new = _limits_result("2.2.2"), _limits_result("2.13.0")
    assert rc.warning_first_line(old).outcome == "cache_size_limit"
    assert rc.warning_first_line(new).outcome == "recompile_limit"
    accumulated = old.output.replace("hit config.cache_size_limit (2)", "hit config.accumulated_cache_size_limit (2)")
    with pytest.raises(LookupError):
        rc.warning_first_line(replace(old, output=accumulated))
    moved = re.sub(r"see https://\S+", "see https://example.org/recompiles.html.", new.output)
    assert rc.warning_hints(replace(new, output=moved)).value == "https://example.org/recompiles.html"
    no_hints = "\n".join(ln for ln in new.output.splitlines() if not ln.startswith("To "))
    with pytest.raises(LookupError):
        rc.warning_hints(replace(new, output=no_hints))


# -- lesson 1, the backend ------------------------------------------------------------------------
def _backend_records(live: BuildRecord) -> list[BuildRecord]:
    """The live build, and every committed release record that holds today's capture/backends.py run."""
    from fieldguide.guide.chapters import capture as cap

    out = [live]
    for path in sorted((ROOT / "records").glob("torch-*.json.gz")):
        release = path.name.removeprefix("torch-").removesuffix(".json.gz")
        try:
            out.append(current(release, cap.BACKENDS))
        except pytest.skip.Exception:
            pass
    return out


def test_backend_comparison_takes_a_named_outcome_resting_on_printed_lines(live):
    """On the live build and every committed record that measured it: the fact takes one of its named
    outcomes (not `unrecognised`), its evidence lines occur in the run's output (each as often as its
    occurrence number says), and the per-backend table lists the three backends the snippet compiles."""
    from fieldguide.guide.chapters import capture as cap

    for build in _backend_records(live):
        result = cap.BACKENDS.find(build)
        m = cap.backends_compared(result)
        assert m.outcome in cap.backends_compared.outcomes and m.outcome != "unrecognised", (build.torch, m.value)
        lines = result.output.splitlines()
        for ev in m.evidence:
            assert sum(ev.line in ln for ln in lines) > ev.nth, (build.torch, ev.line)
        assert [f"backend={n}" for n in cap.BACKEND_NAMES] == [e.line for e in m.evidence[:3]]
        table = cap.backends_table(result)
        assert all(f"`{n}`" in table for n in cap.BACKEND_NAMES), table
        differs = cap.backend_differences_table(result)
        lines_differ = ("the same checks, other printed lines differ", "guards differ", "guards and reasons differ")
        assert bool(differs) == (m.outcome in lines_differ), (build.torch, m.outcome)


def test_backend_comparison_of_an_output_it_cannot_read_is_unrecognised(live):
    """The live run's output with its inductor part cut off, or with a line of no known shape inside a
    dump, is `unrecognised`, never the nearest named outcome."""
    import dataclasses

    from fieldguide.guide.chapters import capture as cap

    result = cap.BACKENDS.find(live)
    cut = result.output[: result.output.index("backend=inductor")]
    assert cap.backends_compared(dataclasses.replace(result, output=cut)).outcome == "unrecognised"
    lines = result.output.splitlines()
    first_dump = lines.index("GUARDS:")
    odd = "\n".join(lines[: first_dump + 1] + ["something torch never printed before"] + lines[first_dump + 1 :])
    m = cap.backends_compared(dataclasses.replace(result, output=odd))
    assert m.outcome == "unrecognised" and "something torch never printed" in str(m.value)
    # a line logged between the blocks (2.8's inductor warns that no CUDA runtime was found) is no guard and
    # no reason: it is set aside, and the comparison's outcome is the live run's
    at = lines.index("backend=inductor") + 1
    warned = "\n".join(lines[:at] + ["No CUDA runtime is found, using CUDA_HOME='/usr/local'"] + lines[at:])
    assert (
        cap.backends_compared(dataclasses.replace(result, output=warned)).outcome
        == cap.backends_compared(result).outcome
    )


def test_backend_normaliser_sets_aside_ids_addresses_line_numbers_and_entry_ids():
    from fieldguide.guide.chapters import capture as cap

    a = "(___skip_backend_check() or ___current_backend() == ___lookup_backend(139869463260816))  # _dynamo/output_graph.py:385 in init_ambient_guards"
    b = "(___skip_backend_check() or ___current_backend() == ___lookup_backend(139869469285584))  # _dynamo/output_graph.py:391 in init_ambient_guards"
    assert cap.normalize_guard_line(a) == cap.normalize_guard_line(b)
    assert cap.normalize_guard_line("- 0/0: tensor 'x' size mismatch") == "tensor 'x' size mismatch"
    assert cap.normalize_guard_line("BACKEND_MATCH (id=0x7f00aa11bb20)") == "BACKEND_MATCH (id=<addr>)"
    assert cap.normalize_guard_line("L['alpha'] == 2.0") != cap.normalize_guard_line("L['alpha'] == 3.0")


def test_dynamic_true_cases_follow_each_release_and_name_the_guard_alone():
    """2.2.2 has no range for mark_dynamic and no allow_unspec_int_on_nn_module; 2.8.0 prints a hint
    after the guard without a `#` (the slot is the guard alone); 2.13.0 has both settings."""
    old = current("2.2.2", dyn.STILL, dyn.REMEDIES)
    mid = current("2.8.0", dyn.STILL, dyn.REMEDIES)
    new = current("2.13.0", dyn.STILL, dyn.REMEDIES)
    by = {f.name: f for f in [*dyn.STILL_FACTS, dyn.still_range_marked, *dyn.REMEDY_FACTS]}
    ranged = "dynamic=True: a size outside mark_dynamic's range, not marked"
    assert by[ranged].on(old).outcome == "a range refused"
    assert by[ranged].on(new).outcome == "compiles again"
    assert "max" not in str(by[ranged].on(old).slots.get("guard", ""))
    assert by["dynamic=True: a size outside mark_dynamic's range, marked"].on(new).outcome == "raised"
    unspec = "dynamic=True remedy: allow_unspec_int_on_nn_module"
    assert by[unspec].on(old).outcome == "not in this torch" and by[unspec].on(new).outcome == "one graph"
    # 2.2.2 compiles one graph for k = 2, 3, 4 and returns the first k's results: the page says so
    assert by["dynamic=True: an int module attribute"].on(old).outcome == "one graph"
    assert dyn.still_attribute_results.on(old).outcome == "stale values"
    assert dyn.still_attribute_results.on(new).outcome == "as eager"
    attribute = by["dynamic=True: an int module attribute"].on(mid)
    assert attribute.outcome == "a graph per value" and attribute.slots["guard"] == "self.k == 2"
    for build in (old, mid, new):
        rows = plain(dyn.still_table(dyn.STILL.find(build)))
        assert "140" not in rows  # no object id
        assert rows.count("\n") == 2 + len(dyn.STILL_CASES) + 1  # header, rule, one row per case
        assert "HINT" not in rows


def test_the_limit_cases_say_what_ran_compiled_and_what_raised():
    """At a limit of 2 the static run leaves 2 of its 4 calls uncompiled on every release measured;
    where the setting that raises exists, each call past the limit raises (both are named)."""
    for release in ("2.2.2", "2.13.0"):
        build = current(release, dyn.LIMIT_REMEDIES)
        by = {f.name: f.on(build) for f in dyn.LIMIT_FACTS}
        assert by["limits: the limit as it stands"].outcome == "calls ran uncompiled"
        assert by["limits: mark_dynamic"].outcome == "every call compiled"
    new = {f.name: f.on(current("2.13.0", dyn.LIMIT_REMEDIES)) for f in dyn.LIMIT_FACTS}
    raised = new["limits: a setting that raises at the limit"]
    assert raised.outcome == "raised" and str(raised.slots["raised_at"]) == "`rows=4` and `rows=5`"
