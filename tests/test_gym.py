"""The gym: answer key equals the measurement; the page works in a real browser, by mouse and keyboard."""

from __future__ import annotations

import json
import re
from html import escape as html_escape

import pytest
from browser import serve, settled
from conftest import FRESH, ROOT

from fieldguide.guide import gym
from fieldguide.run.record import BuildRecord, SnippetResult

DRILL = gym.load_drill(ROOT / "snippets" / "gym" / "gym-10.toml")
DRILLS = gym.load_drills(ROOT / "snippets")


def page_key(built_site, drill=DRILL) -> dict:
    """The answer key as the page carries it: each scenario's data-key, decoded as gym.js decodes it."""
    html = (built_site / "gym" / "index.html").read_text()
    start = html.index(f'data-drill="{drill.anchor}"')
    end = html.find('class="gym-drill"', start + 1)
    key = {}
    for m in re.finditer(r'<section ([^>]*class="gym-scenario"[^>]*)>', html[start : end if end > 0 else None]):
        attrs = dict(re.findall(r'([\w-]+)="([^"]*)"', m.group(1)))
        key[attrs["data-scenario"]] = gym.decode(attrs["data-key"], f"{drill.anchor}/{attrs['data-scenario']}")
    assert key, f"the gym page embeds no answer key for {drill.label}"
    return key


def measured(site_record, scenario) -> dict:
    s = next(s for s in site_record["snippets"] if s["path"] == f"snippets/{scenario.snippet}")
    before = int(re.search(r"^before:\s*(\d+)$", s["stdout"], re.M).group(1))
    after = int(re.search(r"^after:\s*(\d+)$", s["stdout"], re.M).group(1))
    return {
        "before": before,
        "after": after,
        "new": after > before,
        "log": s["logs"].get("recompiles", ""),
    }


def test_gym_10_covers_the_guards_chapter():
    assert len(DRILL.scenarios) >= 8
    assert {s.explained.split("#")[0] for s in DRILL.scenarios} == {"guards.md"}


def test_gym_index_lists_every_drill(built_site):
    html = (built_site / "gym" / "index.html").read_text()
    assert [d.number for d in DRILLS] == sorted(d.number for d in DRILLS) and len(DRILLS) >= 2
    for d in DRILLS:
        assert f'<a href="#{d.anchor}">{d.label}</a>' in html
        assert f'id="{d.anchor}"' in html
    assert len(gym.load_drill(ROOT / "snippets" / "gym" / "gym-11.toml").scenarios) >= 6


@pytest.mark.parametrize("drill", DRILLS, ids=[d.label for d in DRILLS])
def test_answer_key_equals_the_measured_counters(built_site, site_record, drill):
    key = page_key(built_site, drill)
    assert list(key) == [s.id for s in drill.scenarios]
    for scenario in drill.scenarios:
        m = measured(site_record, scenario)
        answer = key[scenario.id]
        assert (answer["before"], answer["after"]) == (m["before"], m["after"]), scenario.id
        assert (answer["verdict"] == "reuses") == (not m["new"]), scenario.id
        assert answer["verdict"] in gym.VERDICTS, scenario.id  # never "unrecognised" on the default torch
        if answer["outcome"] == "recompiles":  # read from the log: a `Recompiling function` with its failed guard
            assert "Recompiling function" in m["log"] and answer["guard"] and answer["guard"] in m["log"]
        else:
            assert answer["guard"] == ""


def test_a_scenario_without_a_verdict_fails_the_drill():
    scenario = DRILL.scenarios[0]
    silent = SnippetResult(
        f"snippets/{scenario.snippet}", dict(scenario.fence.run_env), "nothing useful\n", {}, "", "", 0, 0.1, {}
    )
    build = BuildRecord("x", "3", "p", "t", [silent])
    with pytest.raises(gym.DrillError, match="yields no verdict"):
        gym.answer_key(DRILL, build)
    with pytest.raises(gym.DrillError, match="has no measurement in this build"):
        gym.answer_key(DRILL, BuildRecord("x", "3", "p", "t", []))


def test_missing_measurement_fails_the_build(scratch):
    """A drill whose snippet does not print its counters stops a --strict build."""
    scratch.snippet("gym/g1_silent.py", "print('no counters here')\n")
    (scratch.root / "snippets" / "gym" / "gym-1.toml").write_text(
        'number = 1\ntitle = "T"\nlesson = "index.md"\n[[scenario]]\nid = "a"\ntitle = "A"\n'
        'snippet = "gym/g1_silent.py"\nexplained = "index.md"\n'
    )
    (scratch.root / "docs" / "gym").mkdir()
    scratch.page("gym/index.md", (ROOT / "docs" / "gym" / "index.md").read_text())
    scratch.page("index.md", "# scratch\n")
    (scratch.root / "mkdocs.yml").write_text(
        (scratch.root / "mkdocs.yml").read_text().replace("plugins:\n", "plugins:\n  - markdown-exec\n")
    )
    proc = scratch.build(**FRESH)
    assert proc.returncode != 0
    assert "yields no verdict" in proc.stdout + proc.stderr


def open_gym(browser, base):
    page = browser.new_page()
    errors = []
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(f"{base}/gym/")
    return page, errors


def test_answering_revealing_scoring_persistence_and_reset(browser, built_site, site_record):
    key = page_key(built_site)
    with serve(built_site) as base:
        page, errors = open_gym(browser, base)
        drill = page.locator('.gym-drill[data-drill="gym-10"]')
        sections = drill.locator(".gym-scenario")
        n = len(DRILL.scenarios)
        assert sections.count() == n
        for i in range(n):  # nothing is revealed before an answer
            assert sections.nth(i).locator(".gym-reveal").is_hidden()
        right = 0
        for i, scenario in enumerate(DRILL.scenarios):
            choice = "recompiles" if i % 2 == 0 else "reuses"
            section = drill.locator(f'.gym-scenario[data-scenario="{scenario.id}"]')
            section.locator(f'.gym-choice[data-choice="{choice}"]').click()
            reveal = section.locator(".gym-reveal")
            assert reveal.is_visible()
            m = measured(site_record, scenario)
            text = reveal.inner_text()
            assert f"was {m['before']} before the last call and {m['after']} after it" in text
            verdict = key[scenario.id]["verdict"]
            assert gym.VERDICTS[verdict].lower() in text
            if key[scenario.id]["outcome"] == "recompiles":
                assert key[scenario.id]["guard"] in text and "first failed guard" in text
            elif verdict == "reuses":
                assert "nothing new was compiled" in text
            assert reveal.locator("a", has_text="Why").count() == 1
            right += choice == verdict
            assert ("Correct." in text) == (choice == verdict)
        score = drill.locator(".gym-score")
        assert score.inner_text() == f"Score: {right} correct of {n} answered ({n} scenarios)"
        other = page.locator('.gym-drill[data-drill="gym-11"] .gym-score')
        assert other.inner_text().startswith("Score: 0 correct of 0 answered")  # drills keep separate scores

        page.reload()
        drill = page.locator('.gym-drill[data-drill="gym-10"]')
        assert drill.locator(".gym-score").inner_text() == f"Score: {right} correct of {n} answered ({n} scenarios)"
        assert all(drill.locator(".gym-reveal").nth(i).is_visible() for i in range(n))

        drill.locator(".gym-reset").click()
        assert drill.locator(".gym-score").inner_text() == f"Score: 0 correct of 0 answered ({n} scenarios)"
        assert all(drill.locator(".gym-reveal").nth(i).is_hidden() for i in range(n))
        page.reload()
        assert all(page.locator('.gym-drill[data-drill="gym-10"] .gym-reveal').nth(i).is_hidden() for i in range(n))
        assert errors == []


def test_keyboard_only(browser, built_site, site_record):
    with serve(built_site) as base:
        page, errors = open_gym(browser, base)
        page.evaluate("localStorage.clear()")
        page.reload()
        for _ in range(200):  # tab until the first choice of the first scenario has focus
            page.keyboard.press("Tab")
            if page.evaluate("document.activeElement.classList.contains('gym-choice')"):
                break
        else:
            pytest.fail("no gym choice is reachable with Tab")
        first = page.locator(".gym-scenario").first
        page.keyboard.press("Enter")
        assert first.locator(".gym-reveal").is_visible()
        assert page.evaluate("document.activeElement.classList.contains('gym-reveal')"), (
            "focus should move to the reveal"
        )
        for _ in range(60):  # on to the next scenario's first choice, answered with Space
            page.keyboard.press("Tab")
            if page.evaluate(
                "document.activeElement.classList.contains('gym-choice') && !document.activeElement.disabled"
            ):
                break
        page.keyboard.press(" ")
        assert page.locator(".gym-scenario").nth(1).locator(".gym-reveal").is_visible()
        assert page.locator(".gym-score").first.get_attribute("data-answered") == "2"
        assert errors == []


def test_no_serious_accessibility_violations(browser, built_site):
    from axe_playwright_python.sync_playwright import Axe

    with serve(built_site) as base:
        page, errors = open_gym(browser, base)
        page.locator(".gym-scenario").first.locator(".gym-choice").first.click()  # with a reveal open too
        settled(page)  # contrast is measured once the colour transitions have ended
        results = Axe().run(page)
        violations = [v for v in results.response["violations"] if v["impact"] in ("serious", "critical")]
        assert not violations, json.dumps([{k: v[k] for k in ("id", "impact", "help")} for v in violations], indent=1)
        assert errors == []


def test_the_key_is_not_readable_before_answering(built_site, site_record):
    """Neither the page source nor the search index holds a verdict or a failing guard in clear."""
    html = (built_site / "gym" / "index.html").read_text()
    index = (built_site / "search" / "search_index.json").read_text()
    assert "gym-key" not in html and "Measured on torch" not in html
    gym_docs = [d for d in json.loads(index)["docs"] if d["location"].startswith("gym/")]
    gym_text = " ".join(d["title"] + " " + d["text"] for d in gym_docs)
    assert gym_docs and "Measured on torch" not in gym_text
    for drill in DRILLS:
        for scenario in drill.scenarios:
            guard = page_key(built_site, drill)[scenario.id]["guard"]
            if guard:
                for form in (guard, html_escape(guard)):
                    assert form not in html and form not in gym_text, guard


def test_score_stays_in_view_while_answering_and_ends_each_drill(browser, built_site):
    """The score sticks to the bottom of the screen while its drill is in view, so the reader sees
    it change as they answer; scrolled to the drill's end, it sits after the last scenario.
    (Seen failing with .gym-end's `position: sticky` removed: the score was ~5,000 px below.)"""
    with serve(built_site) as base:
        page, errors = open_gym(browser, base)
        page.evaluate("localStorage.clear()")
        page.reload()
        height = page.viewport_size["height"]
        for drill in DRILLS:
            box = page.locator(f'.gym-drill[data-drill="{drill.anchor}"]')
            first = box.locator(".gym-scenario").first
            first.locator(".gym-choice").first.scroll_into_view_if_needed()
            first.locator(".gym-choice").first.click()
            score = box.locator(".gym-score")
            assert score.get_attribute("data-answered") == "1"
            where = score.bounding_box()
            assert 0 <= where["y"] and where["y"] + where["height"] <= height, (drill.label, where)
            hit = page.evaluate(
                "([x, y]) => document.elementFromPoint(x, y).closest('.gym-end') !== null",
                [where["x"] + 2, where["y"] + where["height"] / 2],
            )
            assert hit, f"{drill.label}: the score is covered"
            last = box.locator(".gym-scenario").last
            last.scroll_into_view_if_needed()
            page.evaluate("window.scrollBy(0, innerHeight)")
            end, last_box = score.bounding_box(), last.bounding_box()
            assert 0 <= end["y"] - (last_box["y"] + last_box["height"]) < 80, (drill.label, last_box, end)
        assert errors == []


def test_the_first_question_is_a_few_keys_away(browser, built_site):
    """The contents list names the drills, not their fifty scenarios, and a second skip link leads
    to the first unanswered question. (Seen failing without `toc_depth: 2` in docs/gym/index.md:
    93 Tab presses; and with gym.js's skipLink() not called.)"""
    with serve(built_site) as base:
        page, errors = open_gym(browser, base)
        page.evaluate("localStorage.clear()")
        page.reload()
        page.wait_for_load_state("networkidle")

        def tabs_to_a_choice(limit: int) -> int:
            for n in range(1, limit + 1):
                page.keyboard.press("Tab")
                if page.evaluate("document.activeElement.classList.contains('gym-choice')"):
                    return n
            return limit + 1

        assert tabs_to_a_choice(60) <= 60
        page.reload()
        page.wait_for_load_state("networkidle")
        page.keyboard.press("Tab")
        page.keyboard.press("Tab")
        assert page.evaluate("document.activeElement.textContent") == "Skip to the first unanswered question"
        page.keyboard.press("Enter")
        assert tabs_to_a_choice(4) <= 4
        first = page.locator(".gym-scenario").first
        assert first.locator(".gym-choice").first.evaluate("b => b === document.activeElement")
        page.keyboard.press("Enter")  # answered: the link now leads to the second scenario
        page.evaluate("window.scrollTo(0, 0)")
        page.reload()
        page.wait_for_load_state("networkidle")
        page.keyboard.press("Tab")
        page.keyboard.press("Tab")
        page.keyboard.press("Enter")
        assert tabs_to_a_choice(4) <= 4
        second = page.locator(".gym-scenario").nth(1)
        assert second.locator(".gym-choice").first.evaluate("b => b === document.activeElement")
        assert errors == []


def test_without_javascript_the_page_says_so(browser, built_site):
    with serve(built_site) as base:
        context = browser.new_context(java_script_enabled=False)
        page = context.new_page()
        page.goto(f"{base}/gym/")
        notes = page.locator(".gym-noscript")
        assert notes.count() == 1  # one note, above the drills
        assert "needs JavaScript" in notes.first.inner_text() and notes.first.is_visible()
        assert page.locator(".gym-choice").first.is_hidden()  # no button that cannot work
        assert page.locator(".gym-scenario pre").first.is_visible()  # the scenarios can still be read
        context.close()


def test_a_reuse_is_explained_by_the_guards_that_passed(built_site, site_record):
    """A reuse's reveal names the guards of the entry that passed, those on the scenario's `guard` first."""
    build = BuildRecord.from_json(site_record)
    reuses = 0
    for drill in DRILLS:
        key, answers = page_key(built_site, drill), gym.answer_key(drill, build)
        for scenario in drill.scenarios:
            answer, reveal = answers[scenario.id], key[scenario.id]["html"]
            if answer.verdict != "reuses":
                continue
            reuses += 1
            assert answer.guards, f"{scenario.id}: the guards channel was measured but no dump was parsed"
            assert f"{len(answer.guards)} guards (<code>TORCH_LOGS=guards</code>)" in reveal
            tensor = next(
                (g for g in answer.guards if re.search(r"check_tensor\(.*size=\[[^\]]*None", g.predicate)), None
            )
            if tensor is not None:  # a dimension the measurement shows as symbolic
                assert "printed as <code>None</code>" in reveal, scenario.id
            if scenario.guard:
                on = [g for g in answer.guards if gym._on(scenario.guard, g)]
                assert all(html_escape(g.predicate) in reveal for g in on), scenario.id
                assert on or "none</td>" in reveal
    assert reuses, "no drill has a reuse scenario to explain"


# -- the reveals, read against the measurement: the default torch's record and the oldest release's ---------
from fieldguide.guide import releases as _releases  # noqa: E402
from fieldguide.guide.parse.guard_dump import parse_guards_log  # noqa: E402

DEFAULT_TORCH, _LISTED = _releases.releases_list(ROOT)
REVIEWED = {r: BuildRecord.read(_releases.record_file(ROOT, r)) for r in (DEFAULT_TORCH, "2.2.2")}


def reveals(release):
    """(drill, scenario, answer, the reveal's explanation as HTML) for every scenario, from a committed record."""
    build = REVIEWED[release]
    for drill in DRILLS:
        key = gym.answer_key(drill, build)
        for s in drill.scenarios:
            yield (
                drill,
                s,
                key[s.id],
                gym.reveal_text(drill, s, key[s.id], build.torch) + gym.measured(key[s.id], s.guard),
            )


def find(release, drill_number, sid):
    return next((s, a, h) for d, s, a, h in reveals(release) if d.number == drill_number and s.id == sid)


@pytest.mark.parametrize("release", list(REVIEWED))
def test_a_reuse_describes_the_entry_the_call_passed(release):
    """Not the newest dump (a resume function's, or the other mode's entry): the one with guards on the focus."""
    for number, sid in ((8, "break-again"), (9, "print-again")):
        s, answer, reveal = find(release, number, sid)
        assert answer.verdict == "reuses"
        tensor = next(g.predicate for g in answer.guards if g.predicate.startswith("check_tensor(L['x']"))
        assert html_escape(tensor) in reveal and "not checked" not in reveal, (sid, reveal)
        newest = gym.frame_of(parse_guards_log(gym.find_result(REVIEWED[release], s).log("guards"))[-1])
        assert (
            answer.frame != newest
        )  # the resume function's entry was logged last; the call's `x` is checked in the first
    s, answer, reveal = find(release, 12, "eval-back")  # train, eval, train again: the train-mode entry
    assert "training == True" in " ".join(g.predicate for g in answer.guards)
    assert "training == False" not in reveal
    for _drill, s, _answer, reveal in reveals(release):
        assert "not checked" not in reveal and "what this scenario changes" not in reveal, s.id


@pytest.mark.parametrize("release", list(REVIEWED))
def test_a_reuse_shows_the_guards_on_its_focus_or_says_none(release):
    for _drill, s, answer, reveal in reveals(release):
        if answer.verdict != "reuses" or not s.guard:
            continue
        mine = [g.predicate for g in answer.guards if gym._on(s.guard, g)]
        assert all(html_escape(m) in reveal for m in mine) and (mine or "none</td>" in reveal), s.id
        assert "not its value" not in reveal  # no interpretation chosen by code
    s, answer, reveal = find(DEFAULT_TORCH, 12, "threads-same")
    state = [g.predicate for g in answer.guards if "num_threads" in g.predicate]
    if state:  # printed as ___check_global_state() against {... "num_threads": ...}
        assert html_escape(state[0]) in reveal


def test_a_recompile_without_a_logged_failure_shows_the_identity_guards_that_differ():
    """torch 2.2 logs no failure for a new module instance; its dumps show the two ids."""
    for number, sid in ((10, "twin-module"), (10, "other-module"), (12, "layer-idx"), (12, "block-no-idx")):
        s, answer, reveal = find("2.2.2", number, sid)
        assert answer.verdict == "recompiles" and not answer.failing_guard, sid
        assert answer.outcome == "recompiles: identity guard, not logged", sid
        assert "logged no <code>Recompiling function</code> line" in reveal
        ids = [
            g.predicate for e in answer.entries for g in e.guards if g.predicate.startswith("___check_obj_id(L['self']")
        ]
        assert len(set(ids)) == 2 and all(html_escape(i) in reveal for i in ids), (sid, ids)


@pytest.mark.parametrize("release", list(REVIEWED))
def test_a_first_compile_is_not_called_a_recompile(release):
    """After torch.compiler.reset(), and for the other resume function, the log shows new code."""
    s, answer, reveal = find(release, 8, "reset")
    assert (answer.verdict, answer.outcome) == ("compiles new code", "compiles new code: same guards")
    assert not answer.recompiles and "a first compile rather than a recompile" in reveal
    s, answer, reveal = find(release, 9, "branch-flip")
    assert (answer.verdict, answer.outcome) == ("compiles new code", "compiles new code: another function")
    (new,) = answer.new_entries
    earlier = [e for e in answer.entries if not e.new and e.frame == new.frame]
    assert (new.line, [e.line for e in earlier]) == (10, [9]), (new, earlier)
    assert "no guard in these dumps tells" not in reveal and "cites line 9" in reveal


def test_every_outcome_on_every_release_has_its_text():
    records = [(r, BuildRecord.read(_releases.record_file(ROOT, r))) for r in _LISTED]
    assert gym.check_reveals(DRILLS, records) == []
    drill = next(d for d in DRILLS if d.number == 8)
    bare = gym.Drill(drill.number, drill.title, drill.lesson, drill.intro, drill.scenarios, drill.source)
    problems = gym.check_reveals([bare], records[:1])
    assert any("'keyword' took the outcome 'reuses' on torch 2.2.2" in p for p in problems), problems


def test_reveals_in_the_drills_name_only_outcomes_and_slots_that_exist(tmp_path):
    path = tmp_path / "gym-1.toml"
    base = 'number = 1\ntitle = "T"\nlesson = "x.md"\n[[scenario]]\nid = "a"\ntitle = "A"\nsnippet = "s.py"\nexplained = "x.md"\n'
    path.write_text(base + '[reveal]\n"recompiles sometimes" = "x"\n')
    with pytest.raises(gym.DrillError, match="no outcome is named"):
        gym.load_drill(path)
    path.write_text(base + '[reveal]\nreuses = "{failures}"\n')
    with pytest.raises(gym.DrillError, match="does not measure"):
        gym.load_drill(path)


def test_a_scenario_timeout_is_its_fences_and_a_bad_one_is_named(tmp_path):
    """A scenario that starts processes of its own (GYM·13) gets more than the default 120 s."""
    path = tmp_path / "gym-1.toml"
    base = 'number = 1\ntitle = "T"\nlesson = "x.md"\n[[scenario]]\nid = "a"\ntitle = "A"\nsnippet = "s.py"\nexplained = "x.md"\n'
    path.write_text(base)
    assert gym.load_drill(path).scenarios[0].fence.timeout == 120.0
    path.write_text(base + "timeout = 300\n")
    assert gym.load_drill(path).scenarios[0].fence.timeout == 300.0
    for bad in ("0", "-5", '"nan"', '"soon"'):
        path.write_text(base + f"timeout = {bad}\n")
        with pytest.raises(gym.DrillError, match="gym-1.toml"):
            gym.load_drill(path)


@pytest.mark.parametrize("release", list(REVIEWED))
def test_a_recompile_shows_every_function_and_failure_logged_and_every_new_graph(release):
    seen_two = False
    for _drill, s, answer, reveal in reveals(release):
        if answer.outcome != "recompiles":
            continue
        assert f"new graphs</th><td>{answer.after - answer.before}<" in reveal, s.id
        assert "the first failed guard" in reveal and "held for the last call" not in reveal, s.id
        for r in answer.recompiles:
            assert html_escape(f"Recompiling function {r.function}") in reveal or not r.failures, s.id
            assert "site-packages" not in reveal, s.id  # no path into this machine's torch install
            for f in r.failures:
                assert html_escape(f.reason) in reveal, (s.id, f.reason)
        seen_two |= sum(len(r.failures) for r in answer.recompiles) > 1
    assert seen_two  # some scenario logs two failures for its last call (gym-11 static)
    s, answer, reveal = find(release, 9, "break-dtype")  # the function and its resume function both recompile
    assert len(answer.recompiles) == 2 and "new graphs</th><td>2<" in reveal


def test_flat_dumps_show_no_inferred_kind_labels():
    for _drill, s, answer, reveal in reveals("2.2.2"):
        if answer.guards and all(g.flat for g in answer.guards):
            assert not any(g.kind in reveal for g in answer.guards), s.id
            assert "without kind labels" in reveal


def test_the_counts_name_the_last_call(built_site):
    for drill in DRILLS:
        for payload in page_key(built_site, drill).values():
            assert "before the last call" in payload["html"] and "second call" not in payload["html"]
    assert "second call" not in (ROOT / "docs" / "gym" / "index.md").read_text()
    assert all("second call" not in d.intro for d in DRILLS)


def guess_patterns(n):
    """What a reader who does not think might answer: constant, alternating, in pairs, one half then the other."""
    a, b = "reuses", "recompiles"
    out = {}
    for x, y in ((a, b), (b, a)):
        out[f"always {x}"] = [x] * n
        out[f"alternating from {x}"] = [x if i % 2 == 0 else y for i in range(n)]
        out[f"pairs from {x}"] = [x if (i // 2) % 2 == 0 else y for i in range(n)]
        for h in {n // 2, (n + 1) // 2}:
            out[f"{h} {x} then {y}"] = [x] * h + [y] * (n - h)
    return out


@pytest.mark.parametrize("drill", DRILLS, ids=[d.label for d in DRILLS])
def test_no_simple_guessing_pattern_scores_well_on_the_default_torch(drill):
    key = gym.answer_key(drill, REVIEWED[DEFAULT_TORCH])
    truth = [key[s.id].verdict for s in drill.scenarios]
    for name, guess in guess_patterns(len(truth)).items():
        score = sum(g == t for g, t in zip(guess, truth, strict=True)) / len(truth)
        assert score <= 0.7, f"{drill.label}: answering '{name}' scores {score:.0%}"


def test_each_scenario_links_the_section_that_teaches_it(built_site):
    for drill in DRILLS:
        for s in drill.scenarios:
            page, _, anchor = s.explained.partition("#")
            html = (built_site / page.removesuffix(".md") / "index.html").read_text()
            assert f'id="{anchor}"' in html, s.explained
    by_id = {(d.number, s.id): s.explained for d in DRILLS for s in d.scenarios}
    assert by_id[(9, "branch-flip")] == "breaks.md#resume-functions"
    for sid in ("list-length", "string-arg", "keyword"):  # not about shapes and dtypes, not about frames
        assert by_id[(8, sid)] not in ("capture.md#the-shorthand", "capture.md#a-frame-a-graph-an-entry"), sid


def test_answers_are_stored_per_torch_release(browser, built_site, site_record):
    torch = site_record["torch"]
    with serve(built_site) as base:
        page, errors = open_gym(browser, base)
        page.evaluate("localStorage.clear()")
        other = json.dumps({DRILL.scenarios[0].id: "reuses"})
        page.evaluate(f"localStorage.setItem('fieldguide-gym:0.0.0:gym-10', '{other}')")
        page.reload()
        drill = page.locator('.gym-drill[data-drill="gym-10"]')
        assert drill.locator(".gym-score").get_attribute("data-answered") == "0"  # another release's answers
        drill.locator(".gym-choice").first.click()
        stored = page.evaluate(f"localStorage.getItem('fieldguide-gym:{torch}:gym-10')")
        assert stored and DRILL.scenarios[0].id in stored
        assert page.evaluate("localStorage.getItem('fieldguide-gym:gym-10')") is None
        assert errors == []


def test_the_releases_page_keeps_the_gym_answers_behind_a_spoiler_and_out_of_search(built_site):
    page = (built_site / "releases" / "index.html").read_text()
    spoiler = page.index('class="fg-spoiler"')
    first_table = page[page.index('<div class="fg-matrix"') : page.index("</table>")]
    assert "GYM·" not in first_table and "GYM·" in page[spoiler:]
    assert re.search(r'<details class="fg-spoiler" data-search-exclude><summary>Spoiler: the gym', page)
    index = json.loads((built_site / "search" / "search_index.json").read_text())["docs"]
    releases_text = " ".join(d["text"] for d in index if d["location"].startswith("releases/"))
    assert releases_text and "GYM·" not in releases_text


# -- the answers stay hidden until the reader answers ----------------------------------------------
def _without_key(markdown: str) -> str:
    """A drill's page source without what may depend on the answers: the encoded key and the torch."""
    return re.sub(r' data-(key|torch)="[^"]*"', "", markdown)


def test_a_scenario_is_written_the_same_whatever_its_answer():
    """The promise (docs/gym/index.md, README *Drills*): the answers stay hidden until the reader
    answers. A drill rendered from two releases' records whose answers differ is the same page,
    but for the encoded key and the torch it names: no verdict, outcome, count or guard reaches
    the page in clear, as text, attribute, class or comment.

    Checked against the breakage: gym.render_drill made to write each scenario's verdict into its
    section as plain text (`<p>{answer.verdict}</p>` after the title) -> the two renderings differ."""
    differ = []
    for drill in DRILLS:
        pages = {r: gym.render_drill(drill, REVIEWED[r], ROOT / "snippets") for r in REVIEWED}
        keys = {r: gym.answer_key(drill, REVIEWED[r]) for r in REVIEWED}
        differ += [
            s.id
            for s in drill.scenarios
            if len({(k[s.id].verdict, k[s.id].outcome, k[s.id].before, k[s.id].after) for k in keys.values()}) > 1
        ]
        old, new = (_without_key(p) for p in pages.values())
        assert old == new, f"{drill.label}: the page differs where the answers do"
    assert differ, "no scenario's answer differs between the releases compared: the test shows nothing"


SECTION_SKELETON = """section => {
    const copy = section.cloneNode(true);
    copy.querySelectorAll('h3, .highlight, pre').forEach(e => e.remove());  // its title and code
    const strip = e => ['data-key', 'data-scenario', 'aria-labelledby', 'id', 'aria-label'].forEach(a => e.removeAttribute(a));
    strip(copy);
    copy.querySelectorAll('*').forEach(strip);
    return copy.outerHTML;
}"""


def test_before_answering_no_scenario_shows_or_holds_its_answer(browser, built_site):
    """What the browser has before any answer (text a reader or a screen reader gets, hidden text
    included, attributes and comments): every scenario of every drill is the same element but for
    its title, its code and its encoded key, whatever its answer; its reveal is hidden and empty,
    and the page's text names no scenario's measured counts.

    Checked against breakages, on a copy of the built page: each scenario's verdict written in
    clear after its title (`<p>reuses</p>`) -> "text beside the title, the code and the choices";
    the verdict as an attribute of the section (`data-v="reuses"`) -> the scenarios' elements
    differ. test_the_key_is_not_readable_before_answering passes both."""
    key = {(d.anchor, sid): v for d in DRILLS for sid, v in page_key(built_site, d).items()}
    assert len({v["verdict"] for v in key.values()}) == 3  # the skeletons below differ if anything tells them apart
    with serve(built_site) as base:
        page, errors = open_gym(browser, base)
        page.evaluate("localStorage.clear()")
        page.reload()
        sections = page.locator(".gym-scenario")
        assert sections.count() == len(key)
        skeletons = {}
        for i in range(sections.count()):
            section = sections.nth(i)
            drill = section.evaluate("s => s.closest('.gym-drill').getAttribute('data-drill')")
            answer = key[(drill, section.get_attribute("data-scenario"))]
            skeletons.setdefault(section.evaluate(SECTION_SKELETON), []).append(answer["verdict"])
            reveal = section.locator(".gym-reveal")
            assert reveal.is_hidden() and reveal.evaluate("r => r.textContent.trim()") == ""
            rest = section.evaluate(
                "s => { const c = s.cloneNode(true);"
                " c.querySelectorAll('h3, .highlight, pre, .gym-choices').forEach(e => e.remove());"
                " return c.textContent.trim(); }"
            )
            assert rest == "", f"{drill} {i}: text beside the title, the code and the choices: {rest!r}"
        assert len(skeletons) == 1, {s[:300]: v for s, v in skeletons.items()}
        body = page.evaluate("document.body.textContent")
        assert "before the last call" not in body and "Correct." not in body
        assert errors == []


def test_a_recompile_whose_log_names_no_guard_is_an_outcome_of_its_own(site_record):
    """torch 2.4 logs `Recompiling function` with no failure line for a backend check, 2.5 to 2.9 a `- 0/0:`
    with nothing after it (guards/ambient.py's records). GYM·8's other-backend run of this build, with its
    BACKEND_MATCH line cut to each of those shapes, is `recompiles: no reason printed`: a recompile, whose
    reveal claims no guard the log did not print."""
    import dataclasses

    drill = next(d for d in DRILLS if d.number == 8)
    s = next(x for x in drill.scenarios if x.id == "other-backend")
    build = BuildRecord.from_json(site_record)
    result = gym.find_result(build, s)
    assert gym.measure(s, result).outcome == "recompiles"
    for cut in ("    - 0/0: ", ""):
        output = re.sub(r"^\s*- \d+/\d+: BACKEND_MATCH.*$", cut, result.output, flags=re.M)
        answer = gym.measure(s, dataclasses.replace(result, output=output))
        assert (answer.verdict, answer.outcome) == ("recompiles", "recompiles: no reason printed"), cut
        reveal = gym.reveal_text(drill, s, answer, build.torch) + gym.measured(answer)
        assert "a check of the backend" not in reveal and "Recompiling function double" in reveal


def test_a_slot_the_log_left_empty_is_said_so_not_left_blank():
    """A frame whose guards name no function (GYM·13 on 2.2.2) rendered "the new entry of  does"."""
    assert gym._fill("the entry of {frame:code} does", {"frame": ""}) == (
        "the entry of <code>(none in the log)</code> does"
    )
    assert gym._fill("the entry of {frame:code}", {"frame": "forward"}) == "the entry of <code>forward</code>"
