"""Chapter render code: each verdict follows the measurement it is given.

The live build (torch 2.13 in CI) is one side; records captured on torch 2.2.2 and 2.14.1 are the
others. Feeding a renderer another torch's result must change its words and numbers with it.
"""

from __future__ import annotations

import re

import pytest

from fieldguide.chapters import dynamic as dyn
from fieldguide.chapters import guards as g
from fieldguide.record import BuildRecord

from fixtures import record

OLD = record("2.2.2")  # flat dumps, identity guards, stale helper, config hash, no stances
NEW = record("2.14.1")


@pytest.fixture(scope="module")
def live(site_record) -> BuildRecord:
    return BuildRecord.from_json(site_record)


def test_dump_summary_counts_come_from_the_dump():
    old = g.dump_summary(OLD.find("guards/anatomy.py"))
    new = g.dump_summary(NEW.find("guards/anatomy.py"))
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


def test_ambient_table_marks_what_is_present():
    old = g.ambient_table(OLD.find("guards/anatomy.py"))
    new = g.ambient_table(NEW.find("guards/anatomy.py"))
    assert "| `CONFIG_HASH_MATCH` | **yes** |" in old and "| `CONFIG_HASH_MATCH` | no |" in new
    assert "| `GLOBAL_STATE` | no |" in old and "| `GLOBAL_STATE` | **yes** |" in new


def test_config_and_backend_verdicts():
    old = g.config_and_backend(OLD.find("guards/ambient.py"), OLD.find("guards/anatomy.py"))
    new = g.config_and_backend(NEW.find("guards/ambient.py"), NEW.find("guards/anatomy.py"))
    assert "**Config hash: present.**" in old and "**compiled a new graph** (unique_graphs 1 → 2)" in old
    assert "**Config hash: not in this torch's dump.**" in new and "**reused the existing entry**" in new
    assert "___skip_backend_check" in old
    assert "BACKEND_MATCH failure" in new


def test_explain_summary_numbers():
    old = g.explain_summary(OLD.find("guards/explain.py"), OLD.find("guards/anatomy.py"))
    new = g.explain_summary(NEW.find("guards/explain.py"), NEW.find("guards/anatomy.py"))
    assert "**10 guard objects**" in old and "printed **7 checks**" in old and "never printed" in old
    assert f"**{len(g.explain_objects(NEW.find('guards/explain.py')))} guard objects**" in new
    assert "its own `GLOBAL_STATE` line" in new


def test_five_calls_and_no_grad_reason():
    for build in (OLD, NEW):
        r = build.find("guards/five_calls.py")
        assert "compiled **5 graphs**" in g.five_calls_summary(r)
        assert "(1, 2, 3, 4)" in g.five_calls_summary(r)
    assert "reports only `___check_global_state()`" in g.no_grad_reason(OLD.find("guards/five_calls.py"))
    assert "names the field that changed: `GLOBAL_STATE changed: grad_mode`" in g.no_grad_reason(NEW.find("guards/five_calls.py"))


def test_module_regime_and_counts():
    assert g.module_regime(OLD.find("guards/module_guards.py")) == "identity"
    assert g.module_regime(NEW.find("guards/module_guards.py")) == "type"
    old = g.module_verdict(OLD.find("guards/module_guards.py"), OLD.find("guards/module_counts.py"))
    new = g.module_verdict(NEW.find("guards/module_guards.py"), NEW.find("guards/module_counts.py"))
    assert "**This build guards modules by identity.**" in old and "compiled 16 graphs" in old and "compiled 5, one per rebuild" in old
    assert "**This build guards modules by type and attributes.**" in new and re.search(r"ensemble compiled 1 graph\b", new)


def test_stale_helper_verdict():
    old_r = OLD.find("guards/stale_helper.py", TORCH_LOGS="recompiles")
    new_r = NEW.find("guards/stale_helper.py", TORCH_LOGS="recompiles")
    assert g.helper_is_stale(old_r) and not g.helper_is_stale(new_r)
    old = g.helper_verdict(old_r, OLD.find("guards/stale_helper.py", TORCH_LOGS="guards"))
    new = g.helper_verdict(new_r, NEW.find("guards/stale_helper.py", TORCH_LOGS="guards"))
    assert "kept running the old body" in old and "`[2.0, 2.0, 2.0]`" in old
    assert "recompiled at once" in new and "G['helper'].__code__" in new


def test_live_build_verdicts_are_consistent_with_its_own_counts(live):
    """Whatever torch CI runs, the words and the numbers they cite agree."""
    counts = g.module_counts(live.find("guards/module_counts.py"))
    verdict = g.module_verdict(live.find("guards/module_guards.py"), live.find("guards/module_counts.py"))
    if g.module_regime(live.find("guards/module_guards.py")) == "identity":
        assert counts["ensemble of 16 identical members"] == 16
    else:
        n = counts["ensemble of 16 identical members"]
        phrase = f"ensemble compiled {n} {'graph' if n == 1 else 'graphs'}"
        assert re.search(rf"\b{phrase}\b", verdict), verdict  # a whole phrase: "1 graph" never matches "1 graphs"


# -- lesson four -------------------------------------------------------------------------------
def test_static_to_dynamic():
    for build in (OLD, NEW):
        text = dyn.static_to_dynamic_summary(build.find("dynamic/new_sizes.py"))
        assert "automatic dynamic shapes" in text and "`size=[None, 3]`" in text
        assert "2 <= L['x'].size()[0]" in text and "sizes 0 and 1 are specialized" in text


def test_modes_table_counts():
    for build in (OLD, NEW):
        table = dyn.modes_table(build.find("dynamic/three_modes.py"), build.find("dynamic/mode_guards.py"))
        assert "| dynamic=False | 5 | `size=[5, 3]` | — |" in table
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
    assert "**did not run the compiled entry**" in dyn.limit_verdict(old) and "frame runs as plain Python" in dyn.limit_verdict(old)
    assert "keep serving" in dyn.limit_verdict(new)
    assert "hit config.cache_size_limit (2)" in dyn.limit_warning(old)
    assert "hit config.recompile_limit (2)" in dyn.limit_warning(new)
    assert "guards modules by identity" in dyn.accumulated_note(old, "identity")
    assert "(`accumulated_cache_size_limit`, 64)" in dyn.accumulated_note(old, "identity")
    assert "(`accumulated_recompile_limit`, 256)" in dyn.accumulated_note(new, "type")


def test_stances():
    assert "**This torch has no `torch.compiler.set_stance`**" in dyn.stance_summary(OLD.find("dynamic/stances.py"))
    new = dyn.stance_summary(NEW.find("dynamic/stances.py"))
    assert "raised `RuntimeError`" in new and "stayed at 1" in new and "/work/" not in new


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
    import re

    raw = (built_site / page / "index.html").read_text()
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", raw)))


def _plain(markdown: str) -> str:
    import re

    return re.sub(r"\s+", " ", markdown.replace("**", "").replace("`", ""))


def test_pages_show_the_verdicts_of_this_builds_measurements(built_site, live):
    """The built pages carry exactly what the renderers compute from this build's record."""
    guards_page = _page_text(built_site, "guards")
    r = live.find
    for rendered in (
        g.dump_summary(r("guards/anatomy.py")),
        g.config_and_backend(r("guards/ambient.py"), r("guards/anatomy.py")).split("\n\n")[1],
        g.five_calls_summary(r("guards/five_calls.py")),
        g.no_grad_reason(r("guards/five_calls.py")),
        g.module_verdict(r("guards/module_guards.py"), r("guards/module_counts.py")),
        g.helper_verdict(r("guards/stale_helper.py", TORCH_LOGS="recompiles"), r("guards/stale_helper.py", TORCH_LOGS="guards")),
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
