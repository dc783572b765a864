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

from fieldguide.chapters import dynamic as dyn
from fieldguide.chapters import guards as g
from fieldguide.claims import Run
from fieldguide.record import BuildRecord

OLD = record("2.2.2")  # flat dumps, identity guards, stale helper, config hash, no stances
NEW = record("2.14.1")


@pytest.fixture(scope="module")
def live(site_record) -> BuildRecord:
    return BuildRecord.from_json(site_record)


def current(release: str, *runs: Run) -> BuildRecord:
    """The committed record of a release when it holds today's `runs`; else skip (re-measure it)."""
    from fieldguide.execute import source_digest  # noqa: F401  (digests are compared by measure)
    from fieldguide.measure import site_jobs, stale_entries

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


def test_dump_summary_counts_come_from_the_dump():
    old = plain(g.dump_summary(OLD.find("guards/anatomy.py")))
    new = plain(g.dump_summary(NEW.find("guards/anatomy.py")))
    assert "a flat list of Python predicates" in old and "**7 checks**" in old
    assert "4 about your arguments" in old and "3 ambient state" in old and "globals" not in old
    assert "a tree of guard managers" in new
    n = len(g.first_dump(NEW.find("guards/anatomy.py")))
    assert f"**{n} checks**" in new


def test_reading_notes_follow_the_format():
    assert "flat list" in g.reading_notes(OLD.find("guards/anatomy.py"))
    assert "no check on the globals" in g.reading_notes(OLD.find("guards/anatomy.py"))
    new = g.reading_notes(NEW.find("guards/anatomy.py"))
    assert "Read the tree" in new and "`G['torch']`" in new


def test_guard_table_rows_equal_the_dump(live):
    for build in (OLD, NEW, live):
        result = build.find("guards/anatomy.py")
        table = g.guard_table(result)
        assert table.count("\n") == len(g.first_dump(result)) + 2


def test_item8_ambient_table_shows_the_label_this_torch_printed(live):
    old = plain(g.ambient_table(OLD.find("guards/anatomy.py")))
    new = plain(g.ambient_table(live.find("guards/anatomy.py")))
    assert "| a hash of the dynamo config at compile time | `___compile_config_hash()" in old
    assert "| a hash of the dynamo config at compile time | not in this dump |" in new
    hooks = next(row for row in new.splitlines() if row.startswith("| active saved-tensor hooks"))
    printed = next(x for x in g.first_dump(live.find("guards/anatomy.py")) if x.family == "SAVED_TENSORS_HOOKS")
    assert f"`{printed.kind}`: " in hooks and "SAVED_TENSORS_HOOKS" not in hooks
    assert "SAVED_TENSORS_HOOKS" not in new


def test_config_and_backend_verdicts():
    old = plain(g.config_and_backend(OLD.find("guards/ambient.py"), OLD.find("guards/anatomy.py")))
    new = plain(g.config_and_backend(NEW.find("guards/ambient.py"), NEW.find("guards/anatomy.py")))
    assert "**Config hash: present.**" in old and "**compiled a new graph** (unique_graphs 1 → 2)" in old
    assert "**Config hash: not in this torch's dump.**" in new and "**reused the existing entry**" in new
    assert "___skip_backend_check" in old
    assert "BACKEND_MATCH failure" in new
    assert "2.2" not in new and "2.3" not in new  # what older releases did is the Across releases page's


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
    silent = g.silent_builders(explain, anatomy).value
    printed_kinds = {x.family for x in g.first_dump(anatomy)}
    if "TORCH_FUNCTION_MODE_STACK" in printed_kinds:
        assert "TORCH_FUNCTION_STATE" not in silent
    summary = plain(g.explain_summary(explain, anatomy))
    assert "Builders that printed nothing of their own: " + ", ".join(f"`{s}`" for s in silent) in summary
    page = (ROOT / "docs" / "guards.md").read_text()
    assert "emit nothing of their own" not in page


def test_explain_summary_numbers():
    old = plain(g.explain_summary(OLD.find("guards/explain.py"), OLD.find("guards/anatomy.py")))
    new = plain(g.explain_summary(NEW.find("guards/explain.py"), NEW.find("guards/anatomy.py")))
    assert "**10 guard objects**" in old and "printed **7 checks**" in old
    assert "`FUNCTION_MATCH`" in old  # G['torch'] printed nothing on the flat dump
    assert f"**{len(g.explain_objects(NEW.find('guards/explain.py')))} guard objects**" in new
    assert "`GLOBAL_STATE` line holds it" in new


def test_five_calls_and_no_grad_reason():
    for build in (OLD, NEW):
        r = build.find("guards/five_calls.py")
        assert "compiled **5 graphs**" in g.five_calls_summary(r)
        assert "(1, 2, 3, 4)" in g.five_calls_summary(r)
    assert "reports only `___check_global_state()`" in g.no_grad_reason(OLD.find("guards/five_calls.py"))
    assert "names the field that changed: `GLOBAL_STATE changed: grad_mode`" in g.no_grad_reason(
        NEW.find("guards/five_calls.py")
    )


def test_module_regime():
    assert g.module_regime(OLD.find("guards/module_guards.py")) == "identity"
    assert g.module_regime(NEW.find("guards/module_guards.py")) == "type"
    assert (
        g.second_entry_pins_k(OLD.find("guards/module_guards.py")).value == "neither entry does"
    )  # identity: k unguarded
    assert g.second_entry_pins_k(NEW.find("guards/module_guards.py")).value == "no, only the first"


def test_item3_members_differing_in_a_float_attribute_follow_the_count(live):
    for build in measured(live, g.MODULE_GUARDS, g.MODULE_COUNTS):
        counts = g.module_counts(build.find("guards/module_counts.py"))
        varied = counts[g.ENSEMBLE_K]
        verdict = plain(g.module_verdict(build.find("guards/module_guards.py"), build.find("guards/module_counts.py")))
        assert "still compile separately" not in verdict
        if varied < 4:
            assert f"did **not** compile one graph each: {varied} graph" in verdict
            if g.second_entry_pins_k(build.find("guards/module_guards.py")).value == "no, only the first":
                assert "no longer compare `k` with a value" in verdict
        else:
            assert f"compiled one graph each: {varied} graphs" in verdict


def test_module_verdict_on_an_identity_release():
    build = current("2.2.2", g.MODULE_GUARDS, g.MODULE_COUNTS)
    verdict = plain(g.module_verdict(build.find("guards/module_guards.py"), build.find("guards/module_counts.py")))
    assert "**This build guards modules by identity.**" in verdict


def test_item4_the_helper_verdict_quotes_the_run_it_displays(live):
    for build in measured(live, g.HELPER):
        result = g.HELPER.find(build)
        verdict = g.helper_verdict(result)
        for quoted in re.findall(r"`(___check_obj_id\(G\['helper'\].*?)`", verdict):
            assert quoted in result.output
        assert "Back at the first shape" in verdict  # the last printed line is explained too


def test_stale_helper_verdict_follows_the_run():
    old, new = g.HELPER.find(OLD), g.HELPER.find(NEW)  # measured before the page showed guards with it
    assert g.helper_is_stale(old) and not g.helper_is_stale(new)
    old_v, new_v = plain(g.helper_verdict(old)), plain(g.helper_verdict(new))
    assert "kept running the old body" in old_v and "`[2.0, 2.0, 2.0]`" not in old_v and "[2.0, 2.0, 2.0]" in old_v
    assert "recompiled at once" in new_v
    for v in (old_v, new_v):
        assert "Back at the first shape" in v


def test_item10_every_measured_torch_has_a_change_no_guard_sees(live):
    assert g.unseen_changes(live.find("guards/unguarded.py")).value
    verdict = plain(g.unguarded_verdict(live.find("guards/unguarded.py")))
    assert "still returns" in verdict
    for release in ("2.2.2", "2.14.1"):
        try:
            build = current(release, g.UNGUARDED)
        except pytest.skip.Exception:
            continue
        assert g.unseen_changes(build.find("guards/unguarded.py")).value, release


def test_item7_dispatch_keys_are_read_from_three_tensors(live):
    for build in measured(live, g.DISPATCH):
        result = build.find("guards/dispatch_keys.py")
        keys = g.dispatch_keys(result)
        text = plain(g.dispatch_keys_summary(result))
        if keys["plain"] is None:
            assert "does not offer `torch._C._dispatch_keys`" in text
            continue
        if keys["plain"] == keys["requires_grad=True"]:
            assert "**the same dispatch keys**" in text
        lost = [k for k in keys["plain"] if k not in keys["inference_mode"]]
        for k in lost:
            assert f"`{k}`" in text
    assert "one that needs autograd, carries different keys" not in g.FIELD_MEANING["dispatch key set"]


def test_item11_guard_eval_latency_is_explained_beside_per_call_timings(live):
    for build in measured(live, g.ANATOMY):
        result = build.find("guards/anatomy.py")
        note = plain(g.latency_note(result))
        timings = g.call_timings(result)
        assert f"{timings['compiled']:.1f} µs" in note and f"{timings['eager']:.1f} µs" in note
        m = re.search(r"Guard eval latency = ([\d.]+) us", result.output)
        if m:
            assert f"`Guard eval latency = {m.group(1)} us`" in note
        else:
            assert "prints no guard eval latency line" in note
    old = (
        plain(g.latency_note(OLD.find("guards/anatomy.py")))
        if "compiled call" in OLD.find("guards/anatomy.py").stdout
        else ""
    )
    assert "Guard eval latency =" not in old


# -- lesson four -------------------------------------------------------------------------------
def test_static_to_dynamic():
    for build in (OLD, NEW):
        text = dyn.static_to_dynamic_summary(build.find("dynamic/new_sizes.py"))
        assert "automatic dynamic shapes" in text and "`size=[None, 3]`" in text
        assert "2 <= L['x'].size()[0]" in text and "sizes 0 and 1 are specialized" in text


def test_item5_modes_table_reads_the_last_entry_of_the_run_it_counts(live):
    for build in measured(live, dyn.THREE_MODES):
        result = build.find("dynamic/three_modes.py", TORCH_LOGS="guards")
        table = plain(dyn.modes_table(result))
        static = next(row for row in table.splitlines() if row.startswith("| dynamic=False |"))
        graphs = dyn.mode_graphs(result).value["dynamic=False"]
        if graphs == 5:  # one static entry per size: the last one is the last size, 8 rows
            assert "`size=[8, 3]`" in static, build.torch
        assert "| dynamic=True | 1 |" in table


def test_scalar_readings_follow_counts():
    old = dyn.scalars_summary(OLD.find("dynamic/scalars.py"))
    new = dyn.scalars_summary(NEW.find("dynamic/scalars.py"))
    assert "a Python float was **burned in as a constant**" in old
    assert "a Python int was a constant for its first 2 values, then **became a symbol** (3 graphs" in old
    assert "a Python float was a constant for its first value, then **became a symbol** (2 graphs" in new


def test_limits_names_and_verdict():
    old, new = OLD.find("dynamic/limits.py"), NEW.find("dynamic/limits.py")
    assert list(dyn.limit_config(old)) == ["cache_size_limit", "accumulated_cache_size_limit"]
    assert "recompile_limit" in dyn.limit_config(new)
    assert "**did not run the compiled entry**" in dyn.limit_verdict(
        old
    ) and "frame runs as plain Python" in dyn.limit_verdict(old)
    assert "keep serving" in dyn.limit_verdict(new)
    assert "2.7" not in dyn.limit_verdict(new) and "2.4" not in dyn.limit_verdict(old)
    assert "hit config.cache_size_limit (2)" in dyn.limit_warning(old)
    assert "hit config.recompile_limit (2)" in dyn.limit_warning(new)
    assert "guards modules by identity" in dyn.accumulated_note(old, "identity")
    assert "(`accumulated_cache_size_limit`, 64)" in dyn.accumulated_note(old, "identity")
    assert "(`accumulated_recompile_limit`, 256)" in dyn.accumulated_note(new, "type")


def test_item9_stances_on_the_release_records(live):
    for build in measured(live, dyn.STANCES)[1:]:
        text = plain(dyn.stance_summary(build.find("dynamic/stances.py")))
        assert "was still correct" not in text
        if dyn.stance_available(build.find("dynamic/stances.py")).value == "present":
            assert "equals eager double(x)" in text


def test_item9_stances_claim_only_what_was_printed(live):
    assert "**This torch has no `torch.compiler.set_stance`**" in dyn.stance_summary(OLD.find("dynamic/stances.py"))
    assert "2.6" not in dyn.stance_summary(OLD.find("dynamic/stances.py"))
    result = live.find("dynamic/stances.py")
    text = plain(dyn.stance_summary(result))
    assert "raised `RuntimeError`" in text and "/work/" not in text
    assert "was still correct" not in text
    assert "equals eager double(x): True" in result.stdout
    assert "its result equals the eager function's (`equals eager double(x): True`)" in text


def test_item6_cache_walk_states_the_measured_slope(live):
    for build in (NEW, live):
        r = build.find("dynamic/cache_walk.py")
        eager, rows = dyn.walk_timings(r)
        table = dyn.walk_table(r)
        assert all(f"{t:.1f}" in table for _, t in rows)
        summary = plain(dyn.walk_summary(r))
        assert f"slope of **{dyn.walk_slope(r):.2f} µs per entry**" in summary and "this machine's figures" in summary
    assert "A few microseconds per entry" not in (ROOT / "docs" / "dynamic.md").read_text()


def test_cache_walk_table_is_from_the_measurement():
    """Every row of the table against the snippet's own printed lines, read here independently."""
    r = NEW.find("dynamic/cache_walk.py")
    printed = [line.split() for line in r.stdout.splitlines() if line.strip()]
    eager = next(float(cols[1]) for cols in printed if cols[0] == "eager")
    entries = [(int(cols[0].split("=")[1]), float(cols[1])) for cols in printed if cols[0].startswith("entries=")]
    assert len(entries) == 5
    table = re.sub(r'<sup class="fg-ev">.*?</sup>', "", dyn.walk_table(r))  # evidence markers aside
    rows = [line for line in table.splitlines() if line.startswith("| ") and "---" not in line][1:]
    expected = [f"| eager (no compile) | {eager:.1f} | — |"] + [
        f"| {n} {'entry' if n == 1 else 'entries'} | {t:.1f} | {t / entries[0][1]:.2f}× |" for n, t in entries
    ]
    assert rows == expected
    assert "this machine's figures" in dyn.walk_summary(r)


def _page_text(built_site, page: str) -> str:
    import html

    raw = (built_site / page / "index.html").read_text()
    raw = re.sub(r"<sup class=\"fg-ev\">.*?</sup>", "", raw)  # the evidence markers
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", raw)))


def _plain(markdown: str) -> str:
    return re.sub(r"\s+", " ", plain(markdown).replace("**", "").replace("`", "").replace("\\|", "|"))


def test_pages_show_the_verdicts_of_this_builds_measurements(built_site, live):
    """The built pages carry exactly what the renderers compute from this build's record."""
    guards_page = _page_text(built_site, "guards")
    r = live.find
    for rendered in (
        g.dump_summary(r("guards/anatomy.py")),
        g.latency_note(r("guards/anatomy.py")),
        g.config_and_backend(r("guards/ambient.py"), r("guards/anatomy.py")).split("\n\n")[1],
        g.five_calls_summary(r("guards/five_calls.py")),
        g.no_grad_reason(r("guards/five_calls.py")),
        g.dispatch_keys_summary(r("guards/dispatch_keys.py")),
        g.module_verdict(r("guards/module_guards.py"), r("guards/module_counts.py")),
        g.helper_verdict(r("guards/stale_helper.py")),
        g.unguarded_verdict(r("guards/unguarded.py")),
    ):
        assert _plain(rendered) in guards_page, rendered[:120]
    dynamic_page = _page_text(built_site, "dynamic")
    for rendered in (
        dyn.static_to_dynamic_summary(r("dynamic/new_sizes.py")),
        dyn.scalars_summary(r("dynamic/scalars.py")),
        dyn.limit_verdict(r("dynamic/limits.py")),
        dyn.stance_summary(r("dynamic/stances.py")),
        dyn.walk_summary(r("dynamic/cache_walk.py")),
    ):
        assert _plain(rendered) in dynamic_page, rendered[:120]
    assert f"Measured on torch {live.torch}" in guards_page and f"Measured on torch {live.torch}" in dynamic_page


def test_cache_list_growth_on_other_torches():
    for build in (OLD, NEW):
        r = build.find("dynamic/cache_list.py")
        assert [lines for _, _, lines in dyn.list_growth(r)] == [0, 1, 2, 3, 4]
        assert "(1, 2, 3, 4)" in dyn.list_growth_summary(r)
