"""The messages index and "Paste your log": patterns made from real records, matched in a real browser.

The logs pasted are real: torch 2.2.2 and 2.14.1 runs of the guide's snippets (test fixtures: raw
stderr with logger prefixes, and the recompile logs their records hold). The page must know 2.2's
wording from the committed record of 2.2.2, never from text typed into the code.
"""

from __future__ import annotations

import html
import json
import re
import shutil
import urllib.request
from pathlib import Path
from urllib.parse import urljoin, urlparse

import pytest
from browser import serve
from conftest import ROOT

from fieldguide.guide import messages
from fieldguide.guide.parse.recompiles import parse_recompiles
from fieldguide.run import logs
from fieldguide.run.record import BuildRecord

FIXTURES = ROOT / "tests" / "fixtures"
FIXTURE_RECORDS = {r: BuildRecord.read(ROOT / "records" / f"torch-{r}.json.gz") for r in ("2.2.2", "2.14.1")}


def stripped(raw: str) -> str:
    """A raw stderr log without its logger prefixes (as fieldguide.run.logs reads it)."""
    return "".join(line.text + "\n" for line in logs.parse([("err", raw)]))


def real_logs() -> dict[str, str]:
    """Real recompile logs of releases other than the default: raw stderr, and every record's recompile log."""
    out = {}
    for path in sorted((FIXTURES / "logs").glob("torch-*.txt")):
        text = path.read_text()
        if not path.name.startswith("torch-2.13.0") and "Recompiling function" in text:
            out[path.stem] = text
    for release, rec in FIXTURE_RECORDS.items():
        out[f"record-{release}"] = "".join(
            s.logs["recompiles"] + "".join(t for c, t in s.logs.items() if c == "dynamo")
            for s in rec.snippets
            if s.logs.get("recompiles")
        )
    return out


LOGS = real_logs()


# The answer shows the pasted lines in groups (li.fg-group: the lines read one way, then one note): each line,
# in the order pasted, with how it was read (its li's data) and its group's links and place in the answer.
LINE_ROWS = """els => els.map(code => {
    const li = code.closest('li'), d = li.dataset, g = code.closest('.fg-group');
    return {n: +d.n, match: d.match, kind: d.kind || "", role: d.role || "", pattern: d.pattern || "",
            cause: d.cause || "", last_reason: d.lastReason === "true", line: code.textContent,
            group: Array.from(g.parentNode.children).indexOf(g),
            links: Array.from(g.querySelectorAll('.fg-note a.fg-section')).map(a => a.href)};
}).sort((a, b) => a.n - b.n)"""


def test_the_fixtures_hold_both_releases():
    assert any("2.2.2" in k for k in LOGS) and any("2.14.1" in k for k in LOGS)
    assert all(parse_recompiles(stripped(text)) for text in LOGS.values())


@pytest.mark.parametrize("release", sorted(FIXTURE_RECORDS))
def test_every_printed_line_matches_its_own_pattern(release):
    rec = FIXTURE_RECORDS[release]
    found = messages.collect(rec)
    assert found
    for result in rec.snippets:
        for _role, line in messages._lines(result):
            pattern = messages.normalize(line)
            assert re.match(messages.to_regex(pattern), messages.message_text(line)), (line, pattern)


def test_placeholders_hide_names_sizes_ids_and_paths(site_record):
    """The same failure printed by different programs and releases is one pattern."""
    rec = BuildRecord.from_json(site_record)
    here = messages.collect(rec)
    both = messages.collect(rec, list(FIXTURE_RECORDS.values()))
    printed = [m for m in both.values() if len({r for rs in m.snippets.values() for r in rs}) == 3]
    assert printed, "no message pattern is shared by the three releases"
    for m in here.values():
        text = re.sub(r"https?://\S+", "", m.pattern)  # addresses torch prints stay as printed
        assert "/work/" not in text and not re.search(r"\b\d{6,}\b", text) and "0x" not in text, m.pattern
    size = [m for m in here.values() if m.role == "reason" and "size mismatch" in m.example]
    assert len(size) == 1, [m.pattern for m in size]  # several sizes and names, one pattern


def test_the_index_lists_every_message_this_build_printed(built_site, site_record):
    html = (built_site / "messages" / "index.html").read_text()
    data = json.loads(re.search(r'<script[^>]*id="message-patterns"[^>]*>(.*?)</script>', html, re.S).group(1))
    patterns = {p["pattern"]: p for p in data["patterns"]}
    rec = BuildRecord.from_json(site_record)
    for result in rec.snippets:
        for role, line in messages._lines(result):
            pattern = messages.normalize(line)
            if messages._TRACE.match(messages.message_text(line)):
                continue
            assert pattern in patterns, line
            entry = patterns[pattern]
            assert entry["snippets"], pattern
            if role == "reason":
                assert entry["sections"], f"{pattern}: no section explains it"
    for p in data["patterns"]:  # every link of the index leads to an existing page and anchor
        for link in p["sections"] + p["snippets"]:
            assert_target_exists(built_site, "messages/", link["href"])


def assert_target_exists(site: Path, from_url: str, href: str) -> None:
    url = urlparse(urljoin(f"http://x/{from_url}", href))
    target = site / url.path.lstrip("/")
    if url.path.endswith("/"):
        target = target / "index.html"
    assert target.exists(), f"{href} (from {from_url}) leads nowhere"
    if url.fragment:
        assert re.search(rf'id="{re.escape(url.fragment)}"', target.read_text()), f"{href}: no #{url.fragment}"


@pytest.mark.parametrize("name", sorted(LOGS))
def test_pasted_real_log_annotates_every_reason_with_a_working_link(browser, built_site, name):
    raw = LOGS[name]
    release = re.search(r"(\d+\.\d+\.\d+)", name).group(1)
    if not (ROOT / "records" / f"torch-{release}.json.gz").exists() and release != "2.14.1":
        pytest.fail(
            f"records/torch-{release}.json.gz is not committed: the page can know {release}'s wording only from it"
        )
    reasons = [f.reason for r in parse_recompiles(stripped(raw)) for f in r.failures]
    assert reasons
    with serve(built_site) as base:
        page = browser.new_page()
        errors, requests = [], []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(f"{base}/messages/")
        page.wait_for_load_state("networkidle")
        page.on("request", lambda r: requests.append(r.url))
        page.fill("#fg-log", raw)
        page.click("#fg-explain")
        rows = page.locator("#fg-lines .fg-line").evaluate_all(LINE_ROWS)
        assert requests == [], f"pasting made requests: {requests}"  # nothing leaves the page
        assert errors == []
        annotated = [r for r in rows if r["role"] == "reason"]
        # every failure the parser reads is annotated, in order (the parser stops at a failure's stack
        # trace, 2.11 on; the page also annotates the failures of the older entries after it)
        lines = iter(r["line"] for r in annotated)
        assert all(any(reason in line for line in lines) for reason in reasons), (
            [r["line"] for r in annotated],
            reasons,
        )
        assert len(annotated) == len(re.findall(r"^\s*- (?!User stack trace|\s|\d+/\d+:\s*$)", stripped(raw), re.M))
        for row in annotated:
            assert row["match"] == "exact", row
            assert row["links"], f"no section link for {row['line']!r}"
        assert not [r for r in rows if r["match"] == "none"], [r["line"] for r in rows if r["match"] == "none"]
        for href in {h for r in annotated for h in r["links"]}:  # the links work: page and anchor exist
            url = urlparse(href)
            body = urllib.request.urlopen(href.split("#")[0]).read().decode()
            assert f'id="{url.fragment}"' in body, href
        summary = page.locator("#fg-summary").inner_text()
        assert re.match(r"\d+ of \d+ lines recognised", summary)
        page.close()


def test_the_page_says_what_to_do_without_javascript(browser, built_site):
    with serve(built_site) as base:
        context = browser.new_context(java_script_enabled=False)
        page = context.new_page()
        page.goto(f"{base}/messages/")
        assert "needs JavaScript" in page.locator(".fg-noscript").inner_text()
        assert page.locator("table.messages").count() >= 3  # the index itself needs no script
        assert page.locator("#fg-log").is_hidden() and page.locator("#fg-explain").is_hidden()
        context.close()


@pytest.mark.parametrize("release", ["2.2.2", "2.14.1"])
def test_a_pasted_guard_dump_is_named_and_linked(browser, built_site, release):
    raw = (FIXTURES / "logs" / f"torch-{release}-anatomy.stderr.txt").read_text()
    with serve(built_site) as base:
        page = browser.new_page()
        page.goto(f"{base}/messages/")
        page.fill("#fg-log", raw)
        page.click("#fg-explain")
        rows = page.locator("#fg-lines .fg-line").evaluate_all(LINE_ROWS)
        dump = [r for r in rows if r["match"] == "dump"]
        assert len(dump) >= 5 and not [r for r in rows if r["match"] == "none"], rows[:5]
        for href in {h for r in dump for h in r["links"]}:
            assert f'id="{urlparse(href).fragment}"' in urllib.request.urlopen(href.split("#")[0]).read().decode(), href
        assert all(r["links"] for r in dump)
        page.close()


# -- one rule for the table and the paste box ----------------------------------------------------
RELEASES = sorted(
    p.name.removeprefix("torch-").removesuffix(".json.gz") for p in (ROOT / "records").glob("torch-*.json.gz")
)


class Indexes(dict):
    """release -> (record, the page data its build would ship), from the committed records, made when asked."""

    def __missing__(self, release):
        rec = BuildRecord.read(ROOT / "records" / f"torch-{release}.json.gz")
        self[release] = (rec, messages.data(messages.index_for(rec, ROOT)))
        return self[release]


@pytest.fixture(scope="module")
def indexes():
    return Indexes()


def record_line(rec: BuildRecord, snippet: str, contains: str) -> str:
    """A line a snippet printed in the record, as printed."""
    result = next(r for r in rec.snippets if r.path == f"snippets/{snippet}")
    return next(line for _role, line in messages._lines(result) if contains in line)


@pytest.mark.parametrize("release", RELEASES)
def test_every_printed_line_is_matched_to_its_own_row(indexes, release):
    """The paste box's rule (data order, the first pattern matching wins) gives every line the pattern, and so
    the kind, its row has in the table: `___stack0 == 2.0` is not a "Python value" because `<expr> == <n>`
    matches it too."""
    rec, payload = indexes[release]
    for result in rec.snippets:
        for _role, line in messages._lines(result):
            pattern = messages.normalize(line)
            if not pattern or messages._TRACE.match(messages.message_text(line)):
                continue
            entry = messages.match(messages.message_text(line), payload)
            assert entry is not None and entry["pattern"] == pattern, (line, pattern, entry and entry["pattern"])
            assert entry["kind"] == messages.kind_of(entry.get("part_of", pattern)).id


def test_resume_values_and_list_lengths_have_kinds_of_their_own(indexes):
    rec, payload = indexes["2.13.0"]
    stack = messages.message_text(record_line(rec, "gym/g9_item.py", "___stack0 =="))
    length = messages.message_text(record_line(rec, "gym/g8_list_len.py", "len("))
    assert messages.match(stack, payload)["kind"] == "resume-value"
    assert messages.match(length, payload)["kind"] == "list-length"
    kinds = {k.id: k for k in messages.KINDS}
    # the section each kind names exists, and is the first one the pattern links to
    stack_entry = messages.match(stack, payload)
    assert stack_entry["sections"][0]["href"].endswith("breaks/#resume-functions")
    assert "Resume functions" in (ROOT / "docs" / "breaks.md").read_text()
    texts = messages.kind_texts(ROOT / "docs")  # the page says what each kind means
    # the lesson section that runs a list's lengths explains the kind, and the kind's text links it
    assert kinds["list-length"].explained == "guards.md#input-kinds-fix"
    assert "guards its length" in texts["list-length"].text
    assert "(guards.md#input-kinds-fix)" in (ROOT / "docs" / "messages.md").read_text()
    length_entry = messages.match(length, payload)
    assert length_entry["sections"][0]["href"].endswith("guards/#input-kinds-fix")


def test_a_dispatch_key_set_mismatch_matches_whatever_the_keys(indexes):
    """The real line (CPU keys, an inference-mode tensor) and the same line with CUDA's keys: one pattern,
    of the device / dispatch key set kind, the wording torch prints ("dispatch key set mismatch")."""
    rec, payload = indexes["2.13.0"]
    line = messages.message_text(record_line(rec, "gym/g12_inference_mode.py", "dispatch key set mismatch"))
    cuda = line.replace("AutogradCPU", "AutogradCUDA").replace("(CPU,", "(CUDA,")
    assert cuda != line
    for text in (line, cuda):
        entry = messages.match(text, payload)
        assert entry and entry["kind"] == "device" and "<keys>" in entry["pattern"], text


JUNK = re.compile(r"^[~^]+$|^<n>/<n>:$|^or:$|^to include these|line \d+>|\(HINT: |(?:<expr> ){3}")


@pytest.mark.parametrize("release", RELEASES)
def test_no_continuation_source_or_caret_line_is_a_message(indexes, release):
    rec, payload = indexes[release]
    index = messages.index_for(rec, ROOT)
    sources = {ln.strip() for p in (ROOT / "snippets").rglob("*.py") for ln in p.read_text().splitlines() if ln.strip()}
    for m in index.messages:
        assert not JUNK.search(m.pattern), m.pattern
        assert re.search(r"\w", m.pattern), m.pattern  # a reason's repr closing on its own line is its part
        assert m.example.split("  #")[0].strip() not in sources, f"a line of a snippet's source: {m.pattern}"
        for part in m.parts:
            # A bracket alone on its line (the ")" closing the optimizer's repr in a limit warning's last
            # reason) says nothing about where it came from: only lines with a word are checked for source.
            assert not re.match(r"^[~^]+$", part), (m.pattern, part)
            assert not re.search(r"\w", part) or part.split("  #")[0] not in sources, (m.pattern, part)
    graph_break = [m for m in index.messages if m.pattern.startswith("Graph break from")]
    if release != "2.2.2":  # 2.2.2 printed no such warning
        assert graph_break and "or:" in graph_break[0].parts
    # 2.10.0 to 2.12.1 print the optimizer's repr inside an ID_MATCH reason, one "- " line each: one reason
    repr_lines = [m for m in index.messages if m.pattern.startswith(("Parameter Group", "lr: "))]
    assert not repr_lines, [m.pattern for m in repr_lines]
    limit = [m for m in index.messages if m.kind.id == "limit"]
    assert limit and all(m.pattern.startswith("torch._dynamo hit") for m in limit)  # its other lines are its parts
    page = messages.counts_table(index)
    here = re.search(r"\(this build\) \| (\d+) \|", page)
    assert here and int(here.group(1)) == sum(m.here for m in index.messages) == len(
        {messages.normalize(line) for r in rec.snippets for _, line, _ in messages._messages(r)} - {""}
    )


def test_the_torch_column_names_this_build_once(indexes):
    rec, payload = indexes["2.13.0"]
    index = messages.index_for(rec, ROOT)
    page = messages.render(index) + messages.counts_table(index)
    assert "this build," not in page and "2.13.0 (this build)" in page
    assert "this build" not in index.texts["other"].text  # it also lists what only other releases printed


def test_a_build_no_record_holds_is_named_not_recorded(indexes):
    import dataclasses

    rec, _ = indexes["2.13.0"]
    index = messages.index_for(dataclasses.replace(rec, torch="2.12.0"), ROOT)  # not in records/releases.toml
    page = messages.render(index) + messages.counts_table(index)
    assert "2.12.0 (this build, not recorded)" in page and "2.12.0 (this build)" not in page


def test_a_following_line_names_the_releases_that_printed_it(indexes):
    """A row's torch column is every release that printed its first line; a line that followed it on some
    of them only (the limit warning's hint and last reason are worded per release) names those releases, so
    a copy built on one torch does not say its torch printed another release's follow-up lines."""
    rec, _ = indexes["2.13.0"]
    index = messages.index_for(rec, ROOT)
    printed: dict[tuple[str, str], set[str]] = {}
    for r in [rec, *messages.release_records(ROOT, exclude=rec.torch)]:
        for result in r.log_views():
            for _role, head, rest in messages._messages(result):
                for part in filter(None, map(messages.normalize, rest)):
                    printed.setdefault((messages.normalize(head), part), set()).add(r.torch)
    narrower = 0
    for i, m in enumerate(index.messages):
        row = {t for ts in m.snippets.values() for t in ts}
        cell = re.search(rf'<tr id="m{i + 1}".*?</td>', messages.kind_table(index, m.kind.id), re.S).group(0)
        for part, releases in m.parts.items():
            assert releases == printed[(m.pattern, part)], (m.pattern, part)
            shown = f'<code class="fg-part">{html.escape(part)}</code>'
            if releases == row:
                assert shown + "<br>" in cell + "<br>" or cell.endswith(shown + "</td>"), (m.pattern, part)
            else:
                narrower += 1
                label = re.search(re.escape(shown) + r' <span class="fg-role">\(on (.*?)\)</span>', cell)
                assert label, (m.pattern, part)
                names = [n.split(" (")[0] for n in html.unescape(label.group(1)).split(", ")]
                assert names == [r.split("+")[0] for r in sorted(releases, key=messages._version)], (m.pattern, part)
    assert narrower, "no follow-up line is printed by fewer releases than its row: the records changed, check the test"


def test_the_page_explains_every_kind_the_index_shows_and_no_other(indexes):
    """What a kind means is written in docs/messages.md, one heading {#kind-ID} per kind a release printed or a
    cause of the paste box names; the build fails when a kind shown has no text there, and messages.py holds
    none."""
    rec, payload = indexes["2.13.0"]
    index = messages.index_for(rec, ROOT)
    shown = {m.kind.id for m in index.messages}
    named = {c.kind for c in messages.CAUSES}
    assert set(index.texts) == shown | named and set(payload["kinds"]) == shown | named
    assert named - shown == {"stance", "nn-module", "next-process"}  # no example logs these: text, no table
    assert all(
        messages._site_links(" ".join(index.texts[k].text.split()), "messages/") == payload["kinds"][k]["text"]
        for k in shown
    )
    page = (ROOT / "docs" / "messages.md").read_text()
    assert all(f'messages.kind_table(index, "{k}")' in page for k in shown)
    assert not any(f'messages.kind_table(index, "{k}")' in page for k in named - shown)
    del index.texts["size"]
    with pytest.raises(messages.PageError, match="kind 'size'"):
        messages.check_texts(index)
    index = messages.index_for(rec, ROOT)
    del index.texts["stance"]  # a kind only a cause names needs its text too
    with pytest.raises(messages.PageError, match="kind 'stance'"):
        messages.check_texts(index)
    # the 2.2-2.6 spelling of a resume function's value is that kind, not "a Python value"
    old, _ = indexes["2.2.2"]
    line = messages.message_text(record_line(old, "gym/g9_item.py", "___stack0'] =="))
    assert messages.kind_of(messages.normalize("- " + line)).id == "resume-value"


@pytest.mark.parametrize("release", ["2.2.2", "2.13.0", "2.14.1"])
def test_the_placeholder_is_a_recompile_that_build_printed(indexes, release):
    rec, _ = indexes[release]
    example = messages.paste_example(rec)
    assert example.startswith("Recompiling function") and len(example.splitlines()) == 3
    assert any(example in r.logs.get("recompiles", "") for r in rec.snippets)
    assert html.escape(example) in messages.paste_form(rec)


def paste(browser, base: str, text: str):
    """(one row per pasted line, in order: what the answer says of it; the summary)."""
    page = browser.new_page()
    page.goto(f"{base}/messages/")
    page.fill("#fg-log", text)
    page.click("#fg-explain")
    rows = page.locator("#fg-lines .fg-line").evaluate_all(LINE_ROWS)
    summary = page.locator("#fg-summary").inner_text()
    page.close()
    return rows, summary


def page_data(site: Path) -> dict:
    text = (site / "messages" / "index.html").read_text()
    return json.loads(re.search(r'<script[^>]*id="message-patterns"[^>]*>(.*?)</script>', text, re.S).group(1))


def test_the_browser_gives_each_pasted_line_the_kind_of_its_row(browser, built_site, site_record):
    """Every line this build printed, pasted: the browser reads each one as fieldguide.guide.messages.explain does
    (the same pattern, cause and links; a limit warning's `last reason:` line as the guard it quotes), and that
    pattern's row in the table (same id) is under the same kind."""
    rec = BuildRecord.from_json(site_record)
    payload = page_data(built_site)
    lines = []
    for result in rec.snippets:
        for _role, line in messages._lines(result):
            text = messages.message_text(line)
            if messages.normalize(line) and not messages._TRACE.match(text) and line not in lines:
                lines.append(line)
    table = dict(
        re.findall(r'<tr id="(m\d+)" data-kind="([\w-]+)"', (built_site / "messages" / "index.html").read_text())
    )
    with serve(built_site) as base:
        rows, _ = paste(browser, base, "\n".join(lines))
    assert sorted(r["line"] for r in rows) == sorted(lines)
    by_line = {r["line"]: r for r in rows}
    for line in lines:
        row, expected = by_line[line], messages.explain(messages.message_text(line), payload)
        assert row["match"] == expected["how"] == "exact", (line, row, expected)
        assert row["pattern"] == expected["pattern"]["id"], (line, row, expected["pattern"]["pattern"])
        assert row["cause"] == (expected["cause"]["id"] if expected["cause"] else ""), (line, row)
        assert row["last_reason"] == expected["last_reason"], (line, row)
        assert [urlparse(h).fragment for h in row["links"]] == [
            urlparse(s["href"]).fragment for s in expected["sections"]
        ], (line, row)
        assert table[row["pattern"]] == row["kind"] == expected["kind"], (line, row)
    kinds = {messages.message_text(ln): by_line[ln]["kind"] for ln in lines}
    assert any(k == "resume-value" for t, k in kinds.items() if t.startswith("___stack0 =="))
    assert any(k == "list-length" for t, k in kinds.items() if t.startswith("len("))


def test_a_guard_dump_with_its_shape_guard_function_and_program_output(browser, built_site):
    """A real TORCH_LOGS=recompiles,guards run (torch 2.13.0, gym/g11_new_size.py): every line of both dumps,
    shape guard function included, is the dump; the prints between them are the program's, not the dump's."""
    raw = (FIXTURES / "logs" / "torch-2.13.0-g11_new_size.stderr.txt").read_text()
    assert "Python shape guard function:" in raw and "def ___make_guard_fn" in raw
    with serve(built_site) as base:
        rows, summary = paste(browser, base, raw)
        by_line = {r["line"]: r for r in rows}
        assert by_line["before: 1"]["match"] == "output" and by_line["after: 2"]["match"] == "output"
        assert not [r for r in rows if r["match"] == "none"], [r["line"] for r in rows if r["match"] == "none"]
        shape = [
            r for r in rows if "___make_guard_fn" in r["line"] or r["line"].strip() in ("def guard(L):", "return guard")
        ]
        assert len(shape) == 3 and all(r["match"] == "dump" for r in shape)
        assert re.match(r"3 of 3 lines recognised, and a guard dump of \d+ lines", summary), summary
        # the same log without its logger prefixes (as this guide shows logs): the prints are not the dump
        rows, _ = paste(browser, base, stripped(raw))
        assert {r["line"]: r for r in rows}["before: 1"]["match"] != "dump"
        assert all(r["match"] == "dump" for r in rows if "___make_guard_fn" in r["line"] or "return guard" in r["line"])


@pytest.mark.parametrize("release", ["2.2.2", "2.13.0", "2.14.1"])
def test_a_dump_alone_is_summarised_as_a_dump(browser, built_site, release):
    raw = (FIXTURES / "logs" / f"torch-{release}-anatomy.stderr.txt").read_text()
    with serve(built_site) as base:
        rows, summary = paste(browser, base, raw)
    assert rows and all(r["match"] == "dump" for r in rows)
    assert summary.startswith(f"This is a guard dump of {len(rows)} lines"), summary


def test_a_failure_printed_without_a_reason_is_named_so(browser, built_site, indexes):
    """torch 2.5.1 printed `- 0/0:` and nothing else for guards/ambient.py's backend change: a line of the
    log, not an unknown message."""
    rec, _ = indexes["2.5.1"]
    log = next(r for r in rec.snippets if r.path == "snippets/guards/ambient.py").logs["recompiles"]
    assert re.search(r"^\s*- \d+/\d+:\s*$", log, re.M)
    with serve(built_site) as base:
        rows, _ = paste(browser, base, log)
    assert [r["match"] for r in rows if re.match(r"^\s*- \d+/\d+:\s*$", r["line"])] == ["empty"]
    assert not [r for r in rows if r["match"] == "none"], rows


@pytest.mark.parametrize("name", ["g9_item", "layer_idx"])
def test_a_real_log_with_warnings_traces_and_prints(browser, built_site, name):
    """Real TORCH_LOGS=recompiles runs (torch 2.13.0): a graph-break warning of several lines, stack traces
    with source and caret lines, a limit warning, the program's prints. Each warning line is recognised as its
    message, each trace line as a trace (a failure after a trace is a failure again), each print as output."""
    raw = (FIXTURES / "logs" / f"torch-2.13.0-{name}.stderr.txt").read_text()
    reasons = re.findall(r"^\s*- \d+/\d+: (.*)$", stripped(raw), re.M)  # after a stack trace too
    with serve(built_site) as base:
        rows, summary = paste(browser, base, raw)
    assert not [r for r in rows if r["match"] == "none"], [r["line"] for r in rows if r["match"] == "none"]
    assert [r["line"] for r in rows if r["match"] == "output"] == [
        ln for ln in raw.splitlines() if ln.strip() and not logs.classify(ln)
    ]
    failures = [r for r in rows if re.match(r"^\s*- \d+/\d+: ", r["line"])]
    assert len(failures) == len(reasons) and all(r["match"] == "exact" for r in failures), failures
    assert all(r["match"] == "trace" for r in rows if re.search(r"\^\^\^|File \"|User stack trace", r["line"]))
    if name == "g9_item":
        assert {r["kind"] for r in rows if r["line"].startswith(("Graph break", "or:", "to include"))} == {
            "graph-break"
        }
        assert [r["kind"] for r in failures] == ["resume-value"]
    else:
        assert any(r["kind"] == "limit" for r in rows)
    assert re.match(r"(\d+) of \1 lines recognised", summary), summary


# -- lines of programs the guide does not contain ---------------------------------------------------
# Written from the wording the committed records hold (records/torch-*.json.gz: 2.2's `L['x']` sources
# without entry ids, 2.5's `L['self'].layer_idx`, 2.7+'s bare `self.` and `fn._modules[..]`, 2.8+'s HINT,
# 2.11+'s `, type=<...>` after an id), with other names, ids, sizes and files. Each line is paired with the
# section its answer must link first (None: any, or none for a line the guide has nothing on).
LR, TRAIN, LAYER = (
    "realcode.md#learning-rate-schedules",
    "realcode.md#train-and-eval",
    "realcode.md#per-layer-attributes",
)
MODULES, AMBIENT, TENSOR = (
    "guards.md#modules-identity-or-type",
    "guards.md#ambient-state",
    "guards.md#what-the-tensor-check-compares",
)
LIMIT, SIZES = "realcode.md#limit-warning", "dynamic.md#from-static-to-dynamic"
BACKEND = "capture.md#the-backend"
NEXT = "nextprocess.md#what-a-second-process-compiles"
NEW_PREFIX = "V1202 09:14:07.221000 40213 torch/_dynamo/guards.py:3102] [3/1] [__recompiles] "
RANK_PREFIX = "[rank1]:V1202 09:14:09.870000 40213 torch/_dynamo/guards.py:3102] [5/2] [__recompiles] "
WARN_PREFIX = "W1202 09:16:02.118000 40213 torch/_dynamo/convert_frame.py:1994] [7/8] "
FOREIGN_NEW = [
    (NEW_PREFIX + "Recompiling function training_step in /home/ana/proj/trainer.py:88", None),
    (NEW_PREFIX + "    triggered by the following guard failure(s):", None),
    (NEW_PREFIX + "    - 3/0: opt.param_groups[0]['lr'] == 0.00095", LR),
    (NEW_PREFIX + "    - 3/1: L['optimizer'].param_groups[1]['lr'] == 2e-05", LR),
    (NEW_PREFIX + "    - 3/2: L['peak_lr'] == 0.0004", LR),
    (RANK_PREFIX + "    - 5/0: self._modules['decoder'].training == False", TRAIN),
    (RANK_PREFIX + "    - 5/1: ___check_obj_id(L['model'].training, 9391248)", TRAIN),
    (RANK_PREFIX + "    - 5/0: ___check_obj_id(model._modules['2'].training, 140552209123456)", TRAIN),
    (NEW_PREFIX + "    - 2/0: L['self']._modules['blocks']._modules['11'].layer_idx == 11", LAYER),
    (
        NEW_PREFIX + "    - 2/3: self.depth == 3                                     (HINT: torch.compile considers "
        "integer attributes of the nn.Module to be static. If you are observing recompilation, you might want to "
        "make this integer dynamic using torch._dynamo.config.allow_unspec_int_on_nn_module = True, or convert "
        "this integer into a tensor.)",
        LAYER,
    ),
    (NEW_PREFIX + "    - 4/0: L['self'].step == 41", "realcode.md#module-counter"),
    (NEW_PREFIX + "    - 0/0: list(L['fn']._forward_pre_hooks.keys())[0] == 12", "realcode.md#hooks"),
    (NEW_PREFIX + "    - 0/1: len(L['self']._forward_hooks) == 2", "realcode.md#hooks"),
    (
        NEW_PREFIX + "    - 1/0: ___check_obj_id(L['self']._modules['attn1'].processor, 140301185210592)",
        "realcode.md#per-layer-objects",
    ),
    (
        NEW_PREFIX + "    - 1/1: ___check_obj_id(self._modules['attn'].processor, 139872201613904), "
        "type=<class 'diffusers.models.attention_processor.AttnProcessor2_0'>  # hidden = self.attn(x)  # unet.py:310 in forward",
        "realcode.md#per-layer-objects",
    ),
    (NEW_PREFIX + "    - 6/0: ___check_obj_id(L['self']._modules['encoder'], 140011223344556)", MODULES),
    (NEW_PREFIX + "    - 6/1: L['self'].scale == 0.125", MODULES),
    (NEW_PREFIX + "    - 0/0: GLOBAL_STATE changed: grad_mode", "realcode.md#inference-mode-and-autocast"),
    (NEW_PREFIX + "    - 0/0: tensor 'hidden_states' size mismatch at index 1. expected 77, actual 154", SIZES),
    (NEW_PREFIX + "    - 2/1: 4 <= L['tokens'].size()[1]", SIZES),
    (NEW_PREFIX + "    - 0/0: tensor 'L['img']' stride mismatch at index 0. expected 150528, actual 3", TENSOR),
    (NEW_PREFIX + "    - 0/1: tensor 'q' dtype mismatch. expected BFloat16, actual Float", TENSOR),
    (NEW_PREFIX + "    - 1/0: ___stack0 == 0.75", "breaks.md#resume-functions"),
    (NEW_PREFIX + "    - 0/0: L['temperature'] == 0.7", "dynamic.md#scalars"),
    (
        NEW_PREFIX + "    - 0/0: BACKEND_MATCH failure: torch.compile detected different backend callables. Cached "
        "backend: _TorchCompileWrapper(compiler='inductor', dynamic=None) (id=0x7f00aa11bb20). New backend: "
        "_TorchCompileWrapper(compiler='aot_eager', dynamic=None) (id=0x7f00aa11cc40).",
        BACKEND,
    ),
    (NEW_PREFIX.replace("[3/1]", "[9/1]") + "Recompiling function decode_step in /home/ana/proj/serve.py:212", None),
    (
        NEW_PREFIX.replace("[3/1]", "[9/1]") + "    - 9/0: BACKEND_MATCH failure: torch.compile detected different "
        "backend callables. Cached backend: _TorchCompileWrapper(compiler='cudagraphs', dynamic=True) "
        "(id=0x7f31c0de9a10). New backend: _TorchCompileWrapper(compiler='inductor', dynamic=True) (id=0x7f31c0dea2b0). "
        "If this is unexpected, wrap your backend in functools.partial (or reuse the same cached backend) to avoid "
        "creating a new backend function each time.",
        BACKEND,
    ),
    (
        NEW_PREFIX
        + "    - 2/0: ___check_current_backend(140233118820624)  # y = self.head(h)  # heads.py:41 in forward",
        BACKEND,
    ),
    (NEW_PREFIX + "    - 0/0: ___check_foobar(L['x'], 77)", None),
    (WARN_PREFIX + "torch._dynamo hit config.recompile_limit (8)", LIMIT),
    (WARN_PREFIX + "   function: 'forward' (/home/ana/proj/model.py:40)", LIMIT),
    (WARN_PREFIX + "   last reason: 2/7: L['self'].layer_idx == 7", LAYER),
    (WARN_PREFIX + "   last reason: 0/7: self._modules['norm'].training == True", TRAIN),
    (WARN_PREFIX + "torch._dynamo hit config.accumulated_recompile_limit (256)", "dynamic.md#accumulated-limit"),
    (WARN_PREFIX + "torch._dynamo hit config.accumulated_cache_size_limit (64)", "dynamic.md#accumulated-limit"),
    (
        WARN_PREFIX
        + "   last reason: 0/7: ___check_obj_id(L['opt'], 140054477991056), type=<class 'torch.optim.adamw.AdamW'>",
        "realcode.md#optimizer-per-parameter",
    ),
    (
        NEW_PREFIX + "    - 2/3: ___dict_param_key_ids(L['self'].state) == {140040850413968, 140040908327248}",
        "realcode.md#optimizer-per-parameter",
    ),
    (NEW_PREFIX + "    - 0/2: ___check_obj_id(optimizer, 139898872735888)", "realcode.md#optimizer-per-parameter"),
    # a whole limit warning of another program: its lines continue the record unprefixed, or each prefixed
    (WARN_PREFIX + "torch._dynamo hit config.recompile_limit (16)", LIMIT),
    ("   function: 'decode_step' (/opt/svc/generate.py:211)", LIMIT),
    ("   last reason: 4/15: tensor 'past_key_values' size mismatch at index 2. expected 511, actual 512", SIZES),
    ('To log all recompilation reasons, use TORCH_LOGS="recompiles".', LIMIT),
    ("To diagnose recompilation issues, see https://docs.pytorch.org/docs/stable/torch.compiler_faq.html", LIMIT),
    (WARN_PREFIX + "   function: '<lambda>' (C:/work/nets/blocks.py:9)", LIMIT),
    (WARN_PREFIX + "   last reason: 1/3: L['self']._modules['head'].training == True", TRAIN),
    (
        "RuntimeError: Detected recompile when torch.compile stance is 'fail_on_recompile'. filename: "
        "'tests/test_encoder.py', function name: 'encode', line number: 27",
        "realcode.md#fail-on-recompile",
    ),
    # what a restarted job keeps: the profile's log lines
    (
        "I1202 09:20:11.004000 40213 torch/_dynamo/pgo.py:1040] [0/0] put_code_state: wrote local "
        "/tmp/torchinductor_ana/dynamo/code_state_pretrain_None_.pkl, 3 entries",
        NEXT,
    ),
    ("I1202 09:21:40.551000 51877 torch/_dynamo/pgo.py:976] put_code_state: no cache key, skipping", NEXT),
]
# the caches' counters as a program prints them (no logger prefix: pasted alone, not inside a log, where the
# paste box calls an unprefixed line the program's own output)
FOREIGN_PRINTED = [
    ("inductor: {'fxgraph_cache_miss': 14, 'fxgraph_cache_hit': 3, 'fxgraph_lookup_write_file': 3}", NEXT),
    ("aot_autograd: {'autograd_cache_bypass': 2, 'autograd_cache_saved': 12}", NEXT),
]
OLD_PREFIX = "[2024-05-14 10:21:07,118] torch._dynamo.guards.__recompiles: [DEBUG] "
FOREIGN_OLD = [
    (OLD_PREFIX + "Recompiling function forward in /srv/app/model.py:57", None),
    (OLD_PREFIX + "    triggered by the following guard failure(s):", None),
    (OLD_PREFIX + "    - L['model'].training == False", TRAIN),
    (OLD_PREFIX + "    - ___check_global_state()", "realcode.md#inference-mode-and-autocast"),
    (OLD_PREFIX + "    - L['optim'].param_groups[0]['lr'] == 0.00125", LR),
    (OLD_PREFIX + "    - __nn_module_guard_3(L['self'])", MODULES),
    (OLD_PREFIX + "    - L['self'].layer_id == 5", LAYER),
    (OLD_PREFIX + "    - tensor 'L['batch']' size mismatch at index 0. expected 32, actual 17", SIZES),
    (OLD_PREFIX + "    - L['___stack0'] == 3.5", "breaks.md#resume-functions"),
    (OLD_PREFIX + "Recompiling function predict in /srv/app/infer.py:12", None),
    (
        OLD_PREFIX + "    - (___skip_backend_check() or ___current_backend() == ___lookup_backend(140233118820624))"
        "  # _dynamo/output_graph.py:385 in init_ambient_guards",
        BACKEND,
    ),
    (
        "[2024-05-14 10:22:00,001] torch._dynamo.convert_frame: [WARNING] torch._dynamo hit config.cache_size_limit (8)",
        LIMIT,
    ),
    ("   function: 'forward' (/srv/app/model.py:57)", LIMIT),
    ("   last reason: L['self'].layer_id == 7", LAYER),
    ('To log all recompilation reasons, use TORCH_LOGS="recompiles".', LIMIT),
    (
        "[2024-06-02 08:00:13,402] torch._dynamo.convert_frame: [WARNING] torch._dynamo hit "
        "config.cache_size_limit (64)",
        LIMIT,
    ),
    ("   function: 'training_step' (/srv/app/trainer.py:120)", LIMIT),
    ("   last reason: tensor 'L['images']' size mismatch at index 0. expected 64, actual 37", SIZES),
    ("To diagnose recompilation issues, see https://pytorch.org/docs/master/compile/troubleshooting.html.", LIMIT),
    ("To diagnose recompilation issues, see https://example.org/pytorch/recompiles.html.", LIMIT),
    (
        "[2024-05-14 10:22:05,500] [3/0] torch._dynamo.symbolic_convert.__graph_breaks: [DEBUG] Graph break: "
        "call_function BuiltinVariable(print) [ConstantVariable(str), TensorVariable()] {} from user code at:",
        "breaks.md#reading-graph-breaks",
    ),
]


def linked(ref: str) -> str:
    """The site URL a docs reference is linked as today: a lesson-5 section still being written is linked as the
    older section its cause names until it exists (messages.CAUSES, until_written)."""
    docs = ROOT / "docs"
    sec = messages.find_section(docs, ref)
    if sec is None:
        sec = messages.find_section(docs, next(c.until_written for c in messages.CAUSES if c.section == ref))
    return sec.url


def unprefixed(line: str) -> str:
    found = logs.classify(line.removeprefix("[rank1]:"))
    return found.text if found and found.stream == "log" else line


@pytest.mark.parametrize(
    "line,ref",
    FOREIGN_NEW + FOREIGN_OLD + FOREIGN_PRINTED,
    ids=[f"{unprefixed(ln).strip()[:48]}" for ln, _ in FOREIGN_NEW + FOREIGN_OLD + FOREIGN_PRINTED],
)
def test_a_foreign_line_links_the_section_of_what_it_checks_first(indexes, line, ref):
    """A line of another program (other names, ids, sizes; both prefixes) is read by what it checks: its first
    link is the section that explains that cause, not the section of the guide's line of the same shape.
    Broken on purpose: the learning-rate cause deleted from CAUSES (the lr lines then linked Scalars, as
    <expr> == <n> does); `last reason:` read as a limit line (its guard's section no longer first); the
    __nn_module_guard_N cause and the fail_on_recompile kind removed (those lines: no answer)."""
    _, payload = indexes["2.13.0"]
    found = messages.explain(messages.message_text(unprefixed(line)), payload)
    if ref is None:
        if "___check_foobar" in line:
            assert found is None
        return
    assert found and found["sections"], line
    assert found["sections"][0]["href"].endswith(linked(ref)), (line, [s["href"] for s in found["sections"]])
    if "last reason:" in line:  # read as the guard it quotes; the limit's section comes next
        assert found["last_reason"] and found["sections"][1]["href"].endswith(linked(LIMIT)), found["sections"]


def test_a_cause_links_a_section_that_exists(tmp_path):
    """Every cause links a section of the guide: one that does not exist fails the build (PageError), and a
    cause whose lesson-5 section is being written links its older section until the anchor exists, then the
    new one by itself. Broken on purpose: cause_sections skipping a missing section instead of raising (DID
    NOT RAISE); until_written ignored (the four causes waiting for their sections raised PageError)."""
    docs = tmp_path / "docs"
    shutil.copytree(ROOT / "docs", docs)
    now = messages.cause_sections(docs)
    assert set(now) == {c.id for c in messages.CAUSES}
    for c in messages.CAUSES:
        assert now[c.id].url == linked(c.section), c.id
    realcode = docs / "realcode.md"
    if "{ #hooks }" not in realcode.read_text():  # written: the cause links it
        realcode.write_text(realcode.read_text() + "\n## Hooks { #hooks }\n\nText.\n")
        assert messages.cause_sections(docs)["hooks"].url == "realcode/#hooks"
    realcode.write_text(realcode.read_text().replace("{ #learning-rate-schedules }", "{ #lr }"))
    with pytest.raises(messages.PageError, match="'learning-rate' links docs/realcode.md#learning-rate-schedules"):
        messages.cause_sections(docs)
    for c in messages.CAUSES:  # each cause's rule is a regular expression JavaScript reads the same way
        assert "(?P<" not in c.test and "(?<" not in c.test and "\\Z" not in c.test, c.id


@pytest.mark.parametrize("lines", [FOREIGN_NEW, FOREIGN_OLD], ids=["torch-2.3-on prefix", "torch-2.2 prefix"])
def test_a_pasted_foreign_log_is_answered_in_groups_with_the_right_first_link(browser, built_site, lines):
    """The browser reads a foreign log as messages.explain does: each line's group links the section of what the
    line checks first; lines read one way are one group, and a kind's text is shown once; a line the guide has
    nothing on says so, with the words to search for. Broken on purpose: grouping by line (one group a line,
    the group assertion failed); the cause regexes not shipped to the page (the first links were the
    patterns' again); the kind text shown in every group (the once-per-kind assertion failed)."""
    with serve(built_site) as base:
        page = browser.new_page()
        page.goto(f"{base}/messages/")
        page.fill("#fg-log", "\n".join(line for line, _ in lines))
        page.click("#fg-explain")
        rows = page.locator("#fg-lines .fg-line").evaluate_all(LINE_ROWS)
        groups = page.locator("#fg-lines > li.fg-group")
        notes = groups.evaluate_all("els => els.map(g => g.querySelector('.fg-note').textContent)")
        search = page.locator(".fg-search").all_inner_texts()
        summary = page.locator("#fg-summary").inner_text()
        page.close()
    assert len(rows) == len(lines)
    for (line, ref), row in zip(lines, rows, strict=True):
        if ref is not None:
            assert row["links"] and row["links"][0].endswith(linked(ref)), (line, row)
        if "last reason:" in line:
            assert row["last_reason"] and row["links"][1].endswith(linked(LIMIT)), row
    unknown = [r for r in rows if r["match"] == "none"]
    assert [r["line"].strip() for r in unknown] == [
        unprefixed(ln).strip() for ln, _ in lines if "___check_foobar" in ln
    ]
    assert [r for r in rows if r["match"] == "output"] == []  # the fail_on_recompile error is no print
    if unknown:
        assert search == ["___check_foobar"] and "no section" in notes[unknown[0]["group"]]
    assert summary.startswith(f"{len(lines) - len(unknown)} of {len(lines)} lines recognised"), summary
    # compact: the lines read one way (kind, cause, links) are one group, and lines read two ways are not
    answers = {(r["match"], r["kind"], r["cause"], r["last_reason"], tuple(r["links"])) for r in rows}
    assert len(notes) == len(answers) < len(rows) - 1
    assert all(
        len({r["group"] for r in rows if (r["match"], r["kind"], r["cause"], r["last_reason"], tuple(r["links"])) == a})
        == 1
        for a in answers
    )
    lr_groups = {r["group"] for r, (_, ref) in zip(rows, lines, strict=True) if ref == LR and not r["last_reason"]}
    assert len(lr_groups) == 1
    texts = json.loads(
        re.search(
            r'<script[^>]*id="message-patterns"[^>]*>(.*?)</script>',
            (built_site / "messages/index.html").read_text(),
            re.S,
        ).group(1)
    )["kinds"]
    for kind in {r["kind"] for r in rows if r["kind"]}:
        words = re.sub(r"\[([^\]]+)\]\([^)]+\)", r"\1", texts[kind]["text"]).replace("`", "")
        assert sum(words in n for n in notes) == 1, kind  # each kind's text once, whatever its groups
