"""The course: lessons 1, 2, 4 (marks) and 5 render from the record, on this build and on every
release record that measured them; every drill is balanced and explains every answer; the
tlparse report is built from a recorded trace and opens offline."""

from __future__ import annotations

import json
import re
from collections import Counter

import pytest
from browser import serve, settled, watch_offline
from conftest import ROOT

from fieldguide.guide import gym, links
from fieldguide.guide.chapters import breaks, capture, dynamic, marks, realcode
from fieldguide.guide.explain import render_page
from fieldguide.guide.parse.recompiles import parse_recompiles
from fieldguide.run.record import BuildRecord
from fieldguide.site import tlparse

DRILLS = gym.load_drills(ROOT / "snippets")
MAX_SHARE = 0.6  # no answer may be right for more than this share of a drill's scenarios
LESSONS = {"capture.md": 1, "breaks.md": 2, "guards.md": 3, "dynamic.md": 4, "realcode.md": 5, "nextprocess.md": 6}


def release_records() -> list[BuildRecord]:
    """Release records (records/torch-*.json.gz, measured by `nox -s matrix`) that have this course's snippets."""
    out = []
    for path in sorted((ROOT / "records").glob("torch-*.json.gz")):
        build = BuildRecord.read(path)
        if any(s.path == "snippets/capture/counters.py" for s in build.snippets):
            out.append(build)
    return out


RELEASES = release_records()


@pytest.fixture(scope="module")
def live(site_record) -> BuildRecord:
    return BuildRecord.from_json(site_record)


def builds(live) -> list[BuildRecord]:
    return [live, *RELEASES]


def has(build: BuildRecord, path: str) -> bool:
    return any(s.path == f"snippets/{path}" for s in build.snippets)


# -- the drills --------------------------------------------------------------------------------
def test_a_drill_per_lesson_numbered_with_the_guards_drill_as_gym_10():
    by_lesson = {d.lesson: d for d in DRILLS}
    assert set(by_lesson) == set(LESSONS)
    for page, n in LESSONS.items():
        assert by_lesson[page].number == 7 + n and by_lesson[page].lesson_number == n
        assert all(s.explained.split("#")[0] in LESSONS for s in by_lesson[page].scenarios)


@pytest.mark.parametrize("drill", DRILLS, ids=[d.label for d in DRILLS])
def test_drill_is_balanced_on_the_default_torch(live, drill):
    key = gym.answer_key(drill, live)
    counts = Counter(a.verdict for a in key.values())
    verdict, n = counts.most_common(1)[0]
    assert n / len(key) <= MAX_SHARE, f"{drill.label}: always answering {verdict!r} scores {n}/{len(key)}"


@pytest.mark.parametrize("drill", DRILLS, ids=[d.label for d in DRILLS])
def test_every_answer_has_its_measured_why(live, drill):
    for sid, answer in gym.answer_key(drill, live).items():
        assert answer.why, f"{drill.label} {sid}: no reason"
        result = gym.find_result(live, next(s for s in drill.scenarios if s.id == sid))
        if answer.verdict == "recompiles" and answer.failing_guard:
            assert answer.failing_guard in result.log("recompiles")
        elif answer.verdict == "reuses":
            for guard in answer.passed_guards:
                assert guard in result.log("guards") or guard.startswith("all "), (drill.label, sid, guard)


def test_the_surprising_scenarios_are_in_the_gym():
    ids = {(d.number, s.id) for d in DRILLS for s in d.scenarios}
    for wanted in [
        (10, "third-instance"),
        (12, "threads"),
        (12, "train-eval"),
        (12, "inference-tensor"),
        (10, "contiguous"),
        (11, "third-int"),
    ]:
        assert wanted in ids


@pytest.mark.parametrize("drill", DRILLS, ids=[d.label for d in DRILLS])
def test_every_drill_in_a_browser(browser, built_site, live, drill):
    """Answer every scenario by mouse; each reveal shows the measured verdict and its reason."""
    key = gym.answer_key(drill, live)
    with serve(built_site) as base:
        page = browser.new_page()
        errors = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(f"{base}/gym/")
        page.evaluate("localStorage.clear()")
        page.reload()
        root = page.locator(f'.gym-drill[data-drill="{drill.anchor}"]')
        assert root.locator(".gym-scenario").count() == len(drill.scenarios)
        for scenario in drill.scenarios:
            section = root.locator(f'.gym-scenario[data-scenario="{scenario.id}"]')
            assert section.locator(".gym-reveal").is_hidden()
            section.locator('.gym-choice[data-choice="reuses"]').click()
            reveal = section.locator(".gym-reveal")
            assert reveal.is_visible()
            text = reveal.inner_text()
            answer = key[scenario.id]
            assert gym.VERDICTS[answer.verdict].lower() in text
            # a recompile shows the guard that failed; a reuse lists the guards it passed (collapsed)
            shown = (
                answer.failing_guard
                if answer.verdict == "recompiles"
                else (answer.guards[0].predicate if answer.guards else "")
            )
            if shown:
                assert shown.split("\n")[0][:60] in reveal.text_content(), (scenario.id, shown)
        reuses = sum(a.verdict == "reuses" for a in key.values())
        assert f"{reuses} correct" in root.locator(".gym-score").inner_text()
        page.close()
        assert errors == []


# -- lesson 1 ------------------------------------------------------------------------------------
CAPTURE_PAGE = ROOT / "docs" / "capture.md"


def test_capture_counters_follow_the_record(live):
    for build in builds(live):
        r = build.find("capture/counters.py")
        steps = capture.counter_steps(r)
        assert len(steps) == 3, build.torch
        first = capture.first_call_counts(r)
        shape = (steps[0]["frames"], steps[0]["graphs"], steps[0]["breaks"])
        assert first.outcome == {(2, 2, 1): "split at the break", (1, 1, 0): "one graph, no break"}.get(
            shape, "unrecognised"
        )
        counts = capture.float64_counts(r)
        assert counts.value["graphs"] == (steps[1]["graphs"], steps[2]["graphs"]), build.torch
        names = capture.float64_recompiled(r)
        assert names.value == steps[2]["recompiled"]
        page = render_page(CAPTURE_PAGE.read_text(), build).markdown
        assert f"fg-explain capture: first call of a function with one break = {first.outcome} " in page
        assert f"from {steps[1]['graphs']} to {steps[2]['graphs']}" in page
        table = capture.counters_table(r)
        assert all(re.search(rf"\| {s['frames']}<sup[^|]*\| {s['graphs']} \| {s['breaks']} \|", table) for s in steps)


def test_capture_explain_fullgraph_reset_and_shorthand(live):
    for build in builds(live):
        n = capture.explain_numbers(build.find("capture/explain.py"))
        assert capture.explain_counts(build.find("capture/explain.py")).value == (n["graphs"], n["breaks"])
        full = build.find("capture/fullgraph.py")
        raised = re.search(r"^smooth: raised (\S+)", full.stdout, re.M)
        verdict = capture.fullgraph_verdict(full)
        assert verdict.outcome == ("raised" if raised else "compiled as one graph"), build.torch
        if raised:
            assert verdict.slots["error"] == raised.group(1)
        reset = build.find("capture/reset.py")
        steps = capture.reset_steps(reset)
        assert capture.reset_counter(reset).outcome == ("kept" if steps[2][1] == steps[1][1] else "changed")
        # after reset() the cache is empty: a compile there is new code, never a recompile, unless a guard failure is logged
        after = capture.after_reset(reset)
        if steps[3][1] > steps[2][1] and "Recompiling function" not in reset.output:
            assert after.outcome == "compiles new code", build.torch
        short = build.find("capture/shorthand.py")
        verdicts = [s["verdict"] for s in capture.shorthand_steps(short)]
        predicted = verdicts[1:] == ["reuses", "recompiles", "recompiles"]
        assert verdicts[0] == "compiles new code", build.torch
        assert (capture.shorthand_missed(short).outcome == "every call") == predicted, build.torch
        page = render_page(CAPTURE_PAGE.read_text(), build).markdown
        shorthand = "every call" if predicted else "missed some"
        for outcome in (f"the same tensor after reset() = {after.outcome} ", f"the shorthand predicted = {shorthand} "):
            assert "fg-explain capture: " + outcome in page, (build.torch, outcome)


def test_shorthand_verdict_changes_with_the_measurement(live):
    r = live.find("capture/shorthand.py")
    # the same run, with the float64 call reported as a reuse: the outcome must be that the shorthand missed it
    fake = type(r)(
        **{
            **r.__dict__,
            "output": r.output.replace(
                "4x4 float64                  unique_graphs=2", "4x4 float64                  unique_graphs=1"
            ),
        }
    )
    if fake.output != r.output:
        missed = capture.shorthand_missed(fake)
        assert missed.outcome == "missed some" and "4x4 float64" in str(missed.slots["missed"])


# -- lesson 2 ------------------------------------------------------------------------------------
def test_breaks_follow_the_record(live):
    for build in builds(live):
        found = breaks.causes(build.find("breaks/causes.py"))
        assert [c["fn"] for c in found] == list(breaks.CAUSES), build.torch
        broke = sum(c["breaks"] > 0 for c in found)
        counts = breaks.cause_counts(build.find("breaks/causes.py"))
        assert counts.outcome == ("all broke" if broke == len(found) else "some broke" if broke else "none broke")
        ids = build.find("breaks/compile_ids.py")
        calls = breaks.compile_id_steps(ids)
        assert len(calls) == 3
        all_ids = [cid for c in calls for cid, _ in c["graphs"]]
        measured = breaks.compile_ids(ids)
        assert all(f"`[{i}]`" in str(measured.slots["ids"]) for i in all_ids)
        logged = build.find("breaks/logged.py")
        assert breaks.logged_count(logged).value == len(breaks.logged_breaks(logged))
        page = render_page((ROOT / "docs" / "breaks.md").read_text(), build).markdown
        assert f"fg-explain breaks: explain() per cause (graphs/breaks) = {counts.outcome} " in page


def test_compile_ids_name_frame_and_compile(live):
    calls = breaks.compile_id_steps(live.find("breaks/compile_ids.py"))
    first = [cid for cid, _ in calls[0]["graphs"]]
    assert first == ["0/0", "1/0"]  # two frames, first compile of each
    assert calls[1]["graphs"] == []  # same tensor: nothing compiled
    assert [cid for cid, _ in calls[2]["graphs"]] == ["0/1", "1/1"]
    assert any("resume" in f for f in calls[2]["recompiled"])


# -- lesson 4: the marks -------------------------------------------------------------------------
def test_marks_follow_the_record(live):
    for build in builds(live):
        runs = marks.mark_runs(build.find("dynamic/zero_one.py"))
        unbacked = marks.mark_unbacked_sizes(build.find("dynamic/zero_one.py"))
        if runs.get("mark_unbacked") == []:
            assert unbacked.outcome == "does not exist", build.torch
            assert "not in this torch" in marks.marks_table(build.find("dynamic/zero_one.py"))
        same = [(r["rows"], r["graphs"]) for r in runs["mark_dynamic"]] == [
            (r["rows"], r["graphs"]) for r in runs["maybe_mark_dynamic"]
        ]
        assert marks.maybe_against_mark(build.find("dynamic/zero_one.py")).outcome == (
            "measured the same" if same else "measured differently"
        )
        table = marks.marks_table(build.find("dynamic/zero_one.py"))
        for mark, rs in runs.items():
            if not rs:
                continue
            row = next(line for line in table.splitlines() if line.startswith(f"| `{mark}` |"))
            cells = [c.strip() for c in row.strip().strip("|").split("|")][1:]
            assert [c for c in cells if c.isdigit()] == [str(r["graphs"]) for r in rs if r["graphs"] is not None], (
                build.torch,
                mark,
            )
        st = marks.mark_runs(build.find("dynamic/mark_static.py"))
        plain = st["dynamic=True"][-1]["graphs"]
        assert marks.mark_static(build.find("dynamic/mark_static.py")).slots["plain"].value == plain


def test_unbacked_keeps_one_graph_on_the_default_torch(live):
    runs = marks.mark_runs(live.find("dynamic/zero_one.py"))
    if runs.get("mark_unbacked"):
        graphs = {r["graphs"] for r in runs["mark_unbacked"]}
        outcome = marks.mark_unbacked_sizes(live.find("dynamic/zero_one.py")).outcome
        assert (outcome == "one graph for every size") == (graphs == {1})


def test_marks_page_says_what_each_release_measured(live):
    """The marks section's texts are chosen by outcome: on 2.2.2 the absent mark_unbacked is said to be
    absent, and the two marks that measured the same are not said to differ."""
    page = (ROOT / "docs" / "dynamic.md").read_text()
    for build in builds(live):
        text = render_page(page, build).markdown
        unbacked = marks.mark_unbacked_sizes(build.find("dynamic/zero_one.py")).outcome
        assert f"fg-explain marks: mark_unbacked at rows 4, 5, 1, 0 = {unbacked} " in text
        if unbacked == "does not exist":
            assert "never specialized" not in text
        if marks.maybe_against_mark(build.find("dynamic/zero_one.py")).outcome == "measured the same":
            assert "measured the same as `mark_dynamic` here" in text


# -- lesson 5 ------------------------------------------------------------------------------------
def test_realcode_cases_follow_the_record(live):
    for build in builds(live):
        f, t = build.find("realcode/lr_float.py"), build.find("realcode/lr_tensor.py")
        lr = realcode.lr_graphs(f, t)
        assert lr.value == (realcode._final(f), realcode._final(t))
        assert (lr.outcome == "a graph per value until the limit") == (realcode.limit_hit(f) is not None), build.torch
        assert (realcode.lr_limit(f).outcome == "hit, then stayed") == (realcode.limit_hit(f) is not None)
        li, lb = build.find("realcode/layer_idx.py"), build.find("realcode/layer_idx_buffer.py")
        layer = realcode.layer_graphs(li, lb)
        assert layer.value == (realcode._final(li), realcode._final(lb))
        assert (layer.outcome == "a recompile per block until the limit") == (realcode.limit_hit(li) is not None)
        go = build.find("realcode/guard_overhead.py")
        g = realcode.guard_overhead(go)
        filt = realcode.guard_filter(go)
        assert filt.outcome == ("filtered" if g["available"] else "absent"), build.torch
        if g["available"]:
            assert (filt.slots["offered"], filt.slots["kept"]) == (str(g["offered"]), str(g["kept"]))
        # two medians of one run each: the outcome names single runs, never a direction
        assert realcode.guard_timings(go).outcome == ("single runs" if g["available"] else "no filtered run")
        lat = realcode.latency_line(go)
        assert all(f"{v} {u}" in str(lat.slots.get("lat", "")) for v, u in g["latencies"])
        st = build.find("realcode/stance_test.py")
        stance = realcode.stance_test(st).outcome
        assert stance.startswith("with error_on_recompile: ") == ("does not exist in this torch" in st.stdout)
        tr = build.find("realcode/trace.py", TORCH_TRACE="trace")
        assert realcode.trace_files(tr).outcome == ("report built" if tr.artifacts else "no trace file")
        page = render_page((ROOT / "docs" / "realcode.md").read_text(), build).markdown
        assert f"fg-explain realcode: graphs over 10 epochs (lr as a float, lr in a tensor) = {lr.outcome} " in page
        assert f"the float version compiled {realcode._final(f)} graph" in page


def test_optimizer_settings_follow_the_record(live):
    """The optimizer-settings section reads each run's own lines: the graph count is the last step's, a
    step that raised is `raised` (never a count), the types are the printed ones, and the page names the
    outcome each fact took, with no sentence of another outcome's text."""
    names = ("optim_onecycle", "optim_onecycle_tensor", "optim_onecycle_fixed", "optim_weight_decay")
    courses = (realcode.onecycle_graphs, realcode.onecycle_tensor_graphs, realcode.onecycle_fixed_graphs)
    courses += (realcode.weight_decay_graphs,)
    for build in builds(live):
        runs = [build.find(f"realcode/{n}.py", TORCH_LOGS="recompiles") for n in names]
        page = render_page((ROOT / "docs" / "realcode.md").read_text(), build).markdown
        for r, course in zip(runs, courses, strict=True):
            m = course(r)
            if " raised " in r.stdout:
                assert m.outcome == "raised" and m.value.startswith("raised "), (build.torch, r.path)
            else:
                logged = sum(1 for x in parse_recompiles(r.output) if x.failures)
                assert m.value == (realcode._final(r), logged), (build.torch, r.path)
                assert (m.outcome == "one graph") == (logged == 0 and m.value[0] == 1)
            assert f"= {m.outcome} " in page
        printed = re.findall(r"^step \d+: lr=\S+ \((\w+)\) beta1=\S+ \((\w+)\)", runs[1].stdout, re.M)
        types = realcode.onecycle_tensor_types(runs[1])
        assert types.value == f"lr {printed[0][0]}, beta1 {printed[0][1]}", build.torch
        fixed = realcode.onecycle_fixed_types(runs[2])
        assert fixed.outcome == ("a tensor" if "(Tensor)" in runs[2].stdout else "a float")
        if fixed.outcome == "a float":
            assert "reached the step inside a tensor" not in page
        if realcode.onecycle_fixed_graphs(runs[2]).outcome != "one graph":
            assert "this is the version that keeps the" not in page
        plateau = build.find("realcode/optim_plateau_tensor.py", TORCH_LOGS="recompiles")
        graphs = realcode.plateau_graphs(plateau)
        logged = sum(1 for x in parse_recompiles(plateau.output) if x.failures)
        assert graphs.value == (realcode._final(plateau), logged), build.torch
        assert f"= {graphs.outcome} " in page
        floats = "(float)" in plateau.stdout
        assert realcode.plateau_types(plateau).outcome == ("a float" if floats else "a tensor"), build.torch
        if graphs.outcome != "one graph":
            assert "a tensor learning rate is a remedy" not in page


def test_instances_optimizers_and_weight_decay_follow_each_record(live):
    """Many instances through one function, one optimizer per parameter and the weight-decay remedies: each
    outcome is the one the run's own lines show (a limit warning, the graphs of the last step, the printed
    comparisons with eager), and the page renders that outcome's text, not another's."""
    for build in builds(live):
        dyn = render_page((ROOT / "docs" / "dynamic.md").read_text(), build).markdown
        rc = render_page((ROOT / "docs" / "realcode.md").read_text(), build).markdown
        inst = build.find("dynamic/instances.py", TORCH_LOGS="recompiles")
        m = dynamic.instances(inst)
        hit = re.search(r"hit (config\.\w+)", inst.output)
        assert (m.outcome == "one entry for all") == (hit is None and "layer 5: unique_graphs=1 " in inst.stdout)
        if hit:
            acc = re.search(r"lowered config\.(\w+) to 4", inst.stdout).group(1)
            named = hit.group(1) == f"config.{acc}"
            assert m.outcome.startswith("an entry per instance, up to ")
            assert (m.outcome == "an entry per instance, up to the accumulated limit") == named, build.torch
        assert f"= {m.outcome} " in dyn, build.torch
        remedy = dynamic.instances_remedy(build.find("dynamic/instances_remedy.py", TORCH_LOGS="recompiles"))
        assert f"= {remedy.outcome} " in dyn
        if remedy.outcome != "one entry for all":
            assert "served the other five" not in dyn

        per = build.find("realcode/optim_per_param.py")
        pm = realcode.per_param(per)
        warnings = len(re.findall(r"hit config\.\w+ \(\d+\)", per.output))
        final = int(re.findall(r"unique_graphs=(\d+)", per.stdout)[-1])
        if pm.outcome == "a graph per optimizer, then the limit":
            assert warnings == 1 and final == 8, build.torch
        elif "compiling went on" in pm.outcome:
            assert warnings >= 1 and final == 12, build.torch
            assert ("per frame" in pm.outcome) == (warnings > 1)
        assert f"= {pm.outcome} " in rc
        fixed = realcode.per_param_fixed(build.find("realcode/optim_per_param_fixed.py", TORCH_LOGS="recompiles"))
        assert f"= {fixed.outcome} " in rc

        wd = build.find("realcode/optim_weight_decay_tensor.py", TORCH_LOGS="recompiles")
        wm = realcode.wd_tensor(wd)
        assert wm.outcome.startswith("no graph") == all(g == "0" for g in re.findall(r"unique_graphs=(\d+)", wd.stdout))
        if "weight decay's value" in wm.outcome:
            assert "(at: if weight_decay" in wd.stdout
        assert f"= {wm.outcome} " in rc
        wf = build.find("realcode/optim_weight_decay_fixed.py", TORCH_LOGS="recompiles")
        fm = realcode.wd_fixed(wf)
        assert (fm.outcome == "no recompile, the same weights") == (
            "schedule: False" not in wf.stdout and not parse_recompiles(wf.output)
        ), build.torch
        if "the same weights" in fm.outcome:
            assert "schedule: False" not in wf.stdout and len(parse_recompiles(wf.output)) <= 1
        assert f"= {fm.outcome} " in rc


def test_realcode_train_eval_names_only_the_first_failed_guard(live):
    """The loop changes grad mode and the modules' mode at one call: where the log names grad mode, the page
    says it is the first failed guard and claims nothing about eval()'s share (GYM·12 shows eval() alone)."""
    for build in builds(live):
        te = build.find("realcode/train_eval.py", TORCH_LOGS="recompiles")
        reason = realcode.train_eval_reason(te)
        page = render_page((ROOT / "docs" / "realcode.md").read_text(), build).markdown
        assert f"fg-explain realcode: train/validate, the recompile's reason = {reason.outcome} " in page
        assert "whatever `eval()` does" not in page and "enough to need a second entry" not in page
        if reason.outcome == "grad mode named":
            assert "as the first failed guard" in page
        assert "re-checks" not in page and "is less than" not in page and "is more than" not in page


def test_default_torch_measures_the_failing_patterns_and_their_fixes(live):
    f, t = live.find("realcode/lr_float.py"), live.find("realcode/lr_tensor.py")
    assert realcode._final(f) > realcode._final(t) == 1
    li, lb = live.find("realcode/layer_idx.py"), live.find("realcode/layer_idx_buffer.py")
    assert realcode._final(li) > realcode._final(lb) == 1
    assert "self.layer_idx ==" in realcode.first_reasons(li)[0]
    warm = realcode.phase_steps(live.find("realcode/train_eval_warm.py"))
    assert len({s["graphs"] for s in warm}) == 1  # nothing compiled during the loop
    assert realcode.stance_results(live.find("realcode/stance_test.py")) == {
        "test_fixed_batch_size": realcode.stance_results(live.find("realcode/stance_test.py"))["test_fixed_batch_size"],
        "test_batch_marked_dynamic": "PASSED",
    }


def test_pages_show_this_builds_words(built_site, live):
    page = (built_site / "realcode" / "index.html").read_text()
    f, t = live.find("realcode/lr_float.py"), live.find("realcode/lr_tensor.py")
    assert f"the float version compiled {realcode._final(f)} graph" in page
    assert f"{realcode._final(t)} graph" in page
    assert "pytorch/pytorch/issues/130467" in page and "issues/128071" in page and "issues/110803" in page
    cap = (built_site / "capture" / "index.html").read_text()
    assert "Lesson 1" in cap
    nav = (built_site / "index.html").read_text()
    for n, title in enumerate(
        [
            "What torch.compile captures",
            "Graph breaks",
            "What a guard checks",
            "Dynamic shapes and the cache limits",
            "Recompiles in real code",
            "The next process",
        ],
        1,
    ):
        assert f"{n}. {title}" in nav
    guards = (built_site / "guards" / "index.html").read_text()
    assert "lesson four" not in guards.lower() and 'href="../capture/#the-shorthand"' in guards
    for chapter in ("capture", "breaks", "realcode", "nextprocess"):
        assert (built_site / "notebooks" / chapter / "index.html").exists()
        assert (built_site / "downloads" / f"{chapter}-snippets.zip").exists()


# -- every lesson page states its measurements as claims with their evidence ---------------------
def _claim_builds(live) -> list[BuildRecord]:
    """The live build and two releases whose lessons read differently (the oldest, and one in between)."""
    picked = [b for b in RELEASES if b.torch.split("+")[0] in ("2.2.2", "2.5.1")]
    return [live, *picked]


def _sentences(live):
    """Whole sentences each lesson page must print, built from the facts (never typed), per build."""

    def capture_page(b):
        first = capture.first_call_counts(b.find("capture/counters.py")).value
        counts = capture.float64_counts(b.find("capture/counters.py")).value
        graphs, brk = capture.explain_counts(b.find("capture/explain.py")).value
        return [
            f"The first call made dynamo compile {first['frames']} frame{'s' * (first['frames'] != 1)} into "
            f"{first['graphs']} graph{'s' * (first['graphs'] != 1)}, with {first['breaks']} graph break",
            f"The float64 tensor took `unique_graphs` from {counts['graphs'][0]} to {counts['graphs'][1]}",
            f"`explain` counted {graphs} graph{'s' * (graphs != 1)} and {brk} graph break",
        ]

    def breaks_page(b):
        ids = breaks.compile_ids(b.find("breaks/compile_ids.py")).value
        n = breaks.logged_count(b.find("breaks/logged.py")).value
        return [
            f"The first call compiled the graph before the break as `[{ids[0][0]}]` and the one after it as `[{ids[0][1]}]`.",
            "The channel reported one graph break." if n == 1 else f"The channel reported {n} graph breaks.",
        ]

    def realcode_page(b):
        f, t = realcode.lr_graphs(b.find("realcode/lr_float.py"), b.find("realcode/lr_tensor.py")).value
        li, lb = realcode.layer_graphs(b.find("realcode/layer_idx.py"), b.find("realcode/layer_idx_buffer.py")).value
        return [
            f"After the last epoch, `unique_graphs` was {f} with the float and {t} with the tensor.",
            f"the 12 blocks that read `layer_idx` made {li} graph",
            f"With the per-layer number in a buffer, the same 12 blocks made {lb} graph",
        ]

    def nextprocess_page(b):
        from fieldguide.guide.chapters import nextprocess

        found = nextprocess.processes(b.find("nextprocess/restart.py"))
        first, second = found[nextprocess.FIRST], found[nextprocess.SECOND]
        graphs = lambda n: f"{n} graph{'s' * (n != 1)}"  # noqa: E731
        if second.graphs == 1:
            said = f"The second process, run with the same `TORCH_COMPILE_JOB_ID`, captured {graphs(second.graphs)} where the first"
        else:
            said = f"The second process captured {graphs(second.graphs)}, as the first did ({graphs(first.graphs)})"
        return [said]

    return {
        "capture.md": capture_page,
        "breaks.md": breaks_page,
        "realcode.md": realcode_page,
        "nextprocess.md": nextprocess_page,
    }


@pytest.mark.parametrize("page", ["capture.md", "breaks.md", "realcode.md", "nextprocess.md"])
def test_each_lesson_page_prints_its_measurements_as_claims_with_evidence(live, page):
    """What the page's code prints (not its source listing): the measured sentences, each followed by its
    evidence markers, every evidence line in an output the page displays, and the other releases' values."""
    from fieldguide.guide.claims import problems
    from fieldguide.guide.explain import render_page

    minimum = {"capture.md": 10, "breaks.md": 7, "realcode.md": 14, "nextprocess.md": 6}[page]
    for build in _claim_builds(live):
        rendered = render_page((ROOT / "docs" / page).read_text(), build)
        assert len(rendered.claims) >= minimum, (page, build.torch, len(rendered.claims))
        for c in rendered.claims:
            assert c.evidence and problems(c, rendered.displayed) == [], (page, build.torch, c.text)
        for sentence in _sentences(live)[page](build):
            at = rendered.markdown.find(sentence)
            assert at >= 0, f"docs/{page} on torch {build.torch} does not print: {sentence}"
            claim_end = rendered.markdown.find('<sup class="fg-ev">', at)
            assert claim_end > at and "\n" not in rendered.markdown[at:claim_end], (page, build.torch, sentence)
        assert "On the releases this guide records" in rendered.markdown


def test_lesson_five_says_so_where_the_fix_does_not_help(live):
    """Where the buffer does not keep the blocks on one graph (a release guarding modules by identity), the page
    must not claim that every block passed the guards of one entry."""
    for build in builds(live):
        li, lb = build.find("realcode/layer_idx.py"), build.find("realcode/layer_idx_buffer.py")
        measured = realcode.buffer_graphs(lb)
        page = render_page((ROOT / "docs" / "realcode.md").read_text(), build).markdown
        _, buffer_graphs = realcode.layer_graphs(li, lb).value
        assert ("every block passed the guards" in page) == (buffer_graphs == 1), build.torch
        if buffer_graphs >= len(realcode.steps(lb.stdout)):
            assert measured.outcome == "a graph per block" and "the buffer did" in page, build.torch


# -- tlparse -------------------------------------------------------------------------------------
def test_tlparse_report_built_from_the_recorded_trace_and_linked(built_site, live):
    traced = live.find("realcode/trace.py", TORCH_TRACE="trace")
    assert traced.artifact("trace/0.log"), "the record keeps the trace torch wrote"
    report = built_site / links.report_path(traced) / "index.html"
    assert report.exists()
    page = (built_site / "realcode" / "index.html").read_text()
    assert 'href="../tlparse/realcode-trace/index.html"' in page
    for html in report.parent.rglob("*.html"):
        assert not re.search(r"""(?:href|src)=['"](?:https?:)?//""", html.read_text()), html
    # the stacks it shows are the snippet's, as `python file.py` has them: no frame of the engine
    for page in report.parent.rglob("*"):
        if page.is_file():
            text = page.read_text(errors="replace")
            assert "fieldguide/run/runner.py" not in text and "<frozen runpy>" not in text, page
    assert "loss_fn" in (report.parent / "raw.log").read_text()


def test_sanitize_turns_off_host_links_into_text():
    assert tlparse.sanitize("see <a href='https://ui.perfetto.dev/'>Perfetto</a>.") == "see Perfetto."
    assert tlparse.sanitize('<a href="raw.log">raw</a>') == '<a href="raw.log">raw</a>'


def test_report_pages_keep_only_links_that_lead_somewhere(tmp_path):
    """tlparse 0.4 writes a subpage's links as if from the report's root, and links files it never wrote."""
    report = tmp_path / "report"
    (report / "-_0_0_0").mkdir(parents=True)
    (report / "-_0_0_0" / "graph_1.txt").write_text("graph")
    sub = report / "-_0_0_0" / "metrics.html"
    html = '<a href="-_0_0_0/graph_1.txt">graph</a> <a href="graph_1.txt#l2">here</a> <a href="missing.json">gone</a> <a href="..">up</a>'
    assert tlparse.repair_links(html, sub, report) == (
        '<a href="graph_1.txt">graph</a> <a href="graph_1.txt#l2">here</a> gone <a href="..">up</a>'
    )


def test_report_pages_get_what_every_page_of_the_site_has():
    page = tlparse.accessible("<html>\n<head>\n</head>\n<body>\n<p>x</p>\n</body>\n</html>", "tlparse report of a.py")
    assert '<html lang="en">' in page and "<title>tlparse report of a.py</title>" in page
    assert "<main>\n<h1>tlparse report of a.py</h1>\n\n<p>x</p>\n</main>\n</body>" in page
    titled = tlparse.accessible(
        "<html lang='fr'><head><title>Metrics</title></head><body><h1>M</h1></body></html>", "x"
    )
    assert "lang='fr'" in titled and "<title>Metrics</title>" in titled and titled.count("<h1") == 1


def test_tlparse_report_opens_offline_in_a_browser(browser, built_site):
    with serve(built_site) as base:
        page = browser.new_page()
        outside, errors = watch_offline(page)
        page.goto(f"{base}/realcode/")
        page.locator('a[href="../tlparse/realcode-trace/index.html"]').click()
        page.wait_for_load_state("networkidle")
        assert page.url.endswith("/tlparse/realcode-trace/index.html")
        body = page.inner_text("body")
        assert "0/0" in body or "[0/0]" in body  # the report lists compiles by compile id
        links = page.locator("a").evaluate_all("els => els.map(e => e.getAttribute('href'))")
        for href in links:
            if href and not href.startswith("#"):
                page.goto(f"{base}/tlparse/realcode-trace/{href}")
                page.wait_for_load_state("networkidle")
        page.close()
    assert outside == [] and errors == [], (outside, errors)


@pytest.mark.parametrize("lesson", ["capture", "breaks", "realcode", "dynamic", "nextprocess"])
def test_lesson_pages_have_no_serious_accessibility_violations(browser, built_site, lesson):
    from axe_playwright_python.sync_playwright import Axe

    with serve(built_site) as base:
        page = browser.new_page()
        page.goto(f"{base}/{lesson}/")
        settled(page)  # contrast is measured once the colour transitions have ended
        results = Axe().run(page)
        page.close()
    violations = [v for v in results.response["violations"] if v["impact"] in ("serious", "critical")]
    assert not violations, json.dumps([{k: v[k] for k in ("id", "impact", "help")} for v in violations], indent=1)


def test_links_printed_by_lesson_code_are_site_urls(built_site):
    """Markdown printed by page code skips MkDocs' link rewriting: no .md link may reach the HTML."""
    for lesson in ("capture", "breaks", "realcode", "nextprocess", "gym"):
        html = (built_site / lesson / "index.html").read_text()
        assert not re.search(r'href="[^"#]*\.md(?:#[^"]*)?"', html), lesson
