"""`mkdocs serve` (real server, real HTTP): an edit reaches the served pages, and what is served
after edits is what a full build of the same files gives, page for page.

The serve loop keeps work between rebuilds (serving.py, the facts of each record, the generated
files); this is the check that none of it ever shows something older than a full build would.
No timing is asserted here: the latency lives in `nox -s bench`.
"""

from __future__ import annotations

import json
import re
import time
import urllib.request

from conftest import ROOT, copy_of_site_cache, mkdocs_build

from fieldguide.tools import bench
from fieldguide.tools.bench_serve import mkdocs_serve


def _fetch(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=30) as resp:
        return resp.read()


def _wait_for_text(url: str, text: str, proc, seconds: float = 240) -> str:
    deadline = time.monotonic() + seconds
    page = ""
    while time.monotonic() < deadline:
        assert proc.poll() is None, "mkdocs serve exited"
        try:
            page = _fetch(url).decode("utf-8")
        except OSError:
            page = ""
        if text in page:
            return page
        time.sleep(0.2)
    raise AssertionError(f"{url} never showed {text!r}")


_LIVERELOAD = re.compile(rb"<script>\s*var livereload = .*?</script>", re.S)
_CANONICAL = re.compile(rb'<link rel="canonical" href="[^"]*">')
_BUILT_AT = re.compile(rb"\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00")
_BLANK_LINES = re.compile(rb"\n[ \t]*(?=\n)")
_ROOT = re.compile(rb'var site = "[^"]*"')  # 404.html: the site's address (serve's own)
REPORT = "build/report/"  # what this build executed and what came from the cache: serve ran the edits itself


def _comparable(name: str, data: bytes) -> bytes:
    """A file as a build writes it, whoever wrote it: without the live-reload script and the
    canonical link (from its own address) that serve adds, the build's time and blank lines,
    and the build report (what this build executed: serve ran the edits, the full build reused them)."""
    if name.endswith(".html"):
        data = _LIVERELOAD.sub(b"", data)
        data = _CANONICAL.sub(b"", data)
        data = _BUILT_AT.sub(b"<built-at>", data)
        data = _BLANK_LINES.sub(b"", data)
        data = _ROOT.sub(b"var site = ...", data)
    if name == "search/search_index.json":  # the pages' text, as above
        index = json.loads(_BUILT_AT.sub(b"<built-at>", data))
        index["docs"] = [d for d in index["docs"] if not d["location"].startswith(REPORT)]
        data = json.dumps(index, sort_keys=True).encode()
    return data


def test_serve_edits_reach_pages_and_match_a_full_build(tmp_path, built_site, site_cache):
    site = bench.copy_site(tmp_path / "site")
    env = {"FIELDGUIDE_CACHE_DIR": str(copy_of_site_cache(site_cache, tmp_path / "cache"))}
    home_snippet = site / "snippets" / "start" / "first_compile.py"
    fact_snippet = site / "snippets" / "releases" / "rebuild_loop.py"
    with mkdocs_serve(site, env, tmp_path / "serve.log") as (base, proc):
        # 1. the snippet shown on the home page prints something new: the home page shows it
        home_snippet.write_text(home_snippet.read_text() + 'print("served-" + str(6007 * 7))\n')
        _wait_for_text(f"{base}/", "served-42049", proc)
        #    (the saved snippet ran as soon as the watcher saw it, ahead of the rebuild, which reused it)
        assert "ahead of the rebuild: [1/1] snippets/start/first_compile.py ran" in (tmp_path / "serve.log").read_text()
        # 2. a snippet whose output is a fact shown on another page (the Across releases
        #    page's live column): the page shows the new value, not the one it showed before
        #    (a loop of 2193 models that each added a graph: an outcome the fact names, with a new value)
        fact_snippet.write_text(
            'print("lowered config.recompile_limit to 4 and config.accumulated_recompile_limit to 8")\n'
            'print(f"after {731 * 3} rebuilds unique_graphs={731 * 3}")\n'
        )
        releases = _wait_for_text(f"{base}/releases/", "2193", proc)
        cell = r'torch-[\d.]+/releases/rebuild_loop\.py\.TORCH_LOGS=recompiles\.txt">2193</a>'
        assert re.search(cell, releases), "the live column's fact did not change"
        # 3. everything served equals a full build of the same files
        full = tmp_path / "full"
        proc_build = mkdocs_build(site, full, env)
        assert proc_build.returncode == 0, proc_build.stdout + proc_build.stderr
        # times, serve's own address, and what was executed rather than reused
        skip = {"record.json", "sitemap.xml", "sitemap.xml.gz", f"{REPORT}index.html"}
        names = sorted(p.relative_to(full).as_posix() for p in full.rglob("*") if p.is_file())
        assert any(n.startswith("outputs/") for n in names) and "search/search_index.json" in names
        differ = [
            name
            for name in names
            if name not in skip
            and _comparable(name, _fetch(f"{base}/{name}")) != _comparable(name, (full / name).read_bytes())
        ]
        assert not differ, f"served after edits but not what a full build gives: {differ[:10]}"


def test_a_snippet_that_fails_ahead_of_the_rebuild_is_reported_once(tmp_path, site_cache):
    """A saved snippet runs ahead of its rebuild; when it fails, the rebuild reports that failure
    instead of running it again (a snippet that timed out would cost its timeout twice)."""
    site = bench.copy_site(tmp_path / "site")
    env = {"FIELDGUIDE_CACHE_DIR": str(copy_of_site_cache(site_cache, tmp_path / "cache"))}
    snippet = site / "snippets" / "start" / "first_compile.py"
    log = tmp_path / "serve.log"
    with mkdocs_serve(site, env, log) as (base, proc):
        before = len(log.read_text())
        snippet.write_text(snippet.read_text() + "raise SystemExit(3)\n")
        deadline = time.perf_counter() + 240
        while "snippet(s) failed" not in log.read_text()[before:] and time.perf_counter() < deadline:
            assert proc.poll() is None, log.read_text()[-2000:]
            time.sleep(0.2)
        time.sleep(1.0)
        after = log.read_text()[before:]
    assert "snippet(s) failed" in after and "start/first_compile.py" in after, after[-2000:]
    runs = re.findall(r"\] snippets/start/first_compile\.py ran", after)  # the run ahead, and any other
    assert len(runs) == 1 and "ahead of the rebuild: [1/1] snippets/start/first_compile.py ran" in after, after[-2000:]


def test_printed_markdown_is_kept_only_where_its_html_is_the_texts_alone():
    """serving.memoize_exec_markdown: page code's printed Markdown converts once per text, except
    where the HTML depends on more than the text (a nested fence that runs, markdown-exec's
    numbered ids, headings for the page's contents); a new stamp (mkdocs.yml changed) forgets all."""
    import markdown
    from markdown_exec._internal.rendering import MarkdownConverter

    from fieldguide.site import serving

    serving.memoize_exec_markdown("stamp-1")
    md = markdown.Markdown(extensions=["toc", "attr_list", "tables"])
    calls = []
    assert getattr(MarkdownConverter.convert, "fieldguide_memo", None) is not None

    def converted(text: str, **kw) -> str:
        before = len(MarkdownConverter.convert.fieldguide_memo)
        html = str(MarkdownConverter(md).convert(text, **kw))
        calls.append(len(MarkdownConverter.convert.fieldguide_memo) - before)
        return html

    table = "| a | b |\n|---|---|\n| 1 | 2 |\n"
    first = converted(table)
    counter = MarkdownConverter.counter
    assert converted(table) == first and MarkdownConverter.counter == counter + 1  # a hit still counts
    assert calls == [1, 0]
    converted("## A heading\n\ntext\n")  # reported to the page's contents, with a numbered id
    converted('```snippet path="start/first_compile.py"\n```\n')
    converted('--8<-- "README.md"\n')
    converted("text\n{: #named }\n")  # an id numbered by markdown-exec's counter
    assert calls[2:] == [0, 0, 0, 0]
    converted("*kept*\n", id_prefix="")  # an id prefix given: kept by it
    assert calls[-1] == 1
    serving.memoize_exec_markdown("stamp-2")
    assert MarkdownConverter.convert.fieldguide_memo == {}


def _watched_live():
    from fieldguide.guide import releases
    from fieldguide.run.record import BuildRecord

    default, _ = releases.releases_list(ROOT)
    live = BuildRecord.read(releases.record_file(ROOT, default))
    live.watch()
    return live


def test_a_watched_build_counts_what_code_reads_and_a_record_from_a_file_does_not():
    """What serve's page memo keeps a page by (run/record.py): each lookup with what it found, a
    read of built_at, the ids or the logs of all results; a walk over all results is everything."""
    from fieldguide.guide import releases
    from fieldguide.run import record

    live = _watched_live()
    with record.unread():
        path = live.snippets[0].path
    with record.reading() as reads:
        live.find(path.removeprefix("snippets/"))
        live.lookup("snippets/no/such.py", {})
        _ = live.built_at
        live.ids()
        live.log_views()
    kinds = sorted(k[0] for k in reads.lookups)
    assert kinds == ["built_at", "find", "ids", "logs", "lookup"] and not reads.everything
    assert reads.lookups[("lookup", "snippets/no/such.py", ())] == record.MISS
    with record.reading() as reads:
        [s.path for s in live.snippets]
    assert reads.everything
    with record.reading() as reads, record.unread():
        [s.path for s in live.snippets]
    assert not reads.everything and not reads.lookups
    default, _ = releases.releases_list(ROOT)
    from_file = record.BuildRecord.read(releases.record_file(ROOT, default))
    with record.reading() as reads:
        [s.path for s in from_file.snippets]
        from_file.find(path.removeprefix("snippets/"))
    assert not reads.everything and not reads.lookups


def test_a_fact_reused_from_its_memo_and_a_note_across_releases_count_the_facts_own_reads():
    """explain's memo of a fact's outcome keeps what the fact read, and a later use counts it again;
    a note across releases counts the live results its fact reads (and the sources whose staleness
    it shows), not the whole matrix it is drawn from."""
    from fieldguide.guide import explain, releases
    from fieldguide.guide.claims import FACTS
    from fieldguide.run import context, record, settings

    live = _watched_live()
    name = next(n for n, f in FACTS.items() if len(f.runs) == 1)
    fact = FACTS[name]
    with record.reading() as first:
        explain.outcome_on(fact, live)
    with record.reading() as again:
        explain.outcome_on(fact, live)  # from the memo
    assert first.lookups and again.lookups.keys() == first.lookups.keys()
    ctx = context.BuildContext(settings.load(ROOT), live, None, context.RenderState(ROOT / "snippets"))
    context.activate(ctx)
    try:
        with record.reading() as note:
            releases.across(name)
    finally:
        context.activate(None)
    assert not note.everything
    run_path = fact.runs[0].path
    assert {k[1].removeprefix("snippets/") for k in note.lookups} == {run_path}, note.lookups.keys()
