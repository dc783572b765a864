"""serve's page memo (site/serving.py PageMemo): a page's rendering is reused only while nothing it
read changed, and never where a full build would differ: an included file, a warning.

Driven as plugin.py drives it (install on the page, then MkDocs' page.render), one page, several
builds, with the logging MkDocs' command line sets up (its `mkdocs` logger does not propagate)."""

from __future__ import annotations

import logging
import types
from pathlib import Path

import pytest

from fieldguide.guide import claims
from fieldguide.run import context, record
from fieldguide.run.context import RenderState
from fieldguide.site import serving


def _live(output: str) -> record.BuildRecord:
    result = record.SnippetResult(
        path="snippets/a/x.py", env={}, stdout=output, logs={}, output=output, stderr="", exit_code=0,
        seconds=0.1, normalized={},
    )  # fmt: skip
    live = record.BuildRecord.new("2.13.0", [result])
    live.watch()
    return live


class _Files:
    def get_file_from_path(self, path):
        return None


def _build(memo: serving.PageMemo, live, markdown: str, body) -> tuple[str, bool]:
    """One build of page p.md: (its HTML, whether it was rendered rather than reused)."""
    state = RenderState(Path("/tmp"))
    state.start_page("p.md", "p/")
    claims.begin_page()
    memo.begin_build("one stamp", live)
    context.activate(context.BuildContext(settings=None, record=live, base=None, render=state))
    rendered = []
    page = types.SimpleNamespace(
        file=types.SimpleNamespace(src_uri="p.md"), url="p/", markdown=markdown, content=None, toc=[],
        _title_from_render=None, present_anchor_ids=set(), links_to_anchors=None,
    )  # fmt: skip

    def render(config, files):
        rendered.append(True)
        page.content = body(live)

    page.render = render
    try:
        memo.install(page, _Files(), state)
        page.render({}, _Files())
    finally:
        memo.end_build()
        context.activate(None)
    return page.content, bool(rendered)


@pytest.fixture
def cli_logging():
    """The `mkdocs` logger as the mkdocs command line leaves it: its own handler, no propagation."""
    logger = logging.getLogger("mkdocs")
    saved = logger.propagate
    logger.propagate = False
    try:
        yield logger
    finally:
        logger.propagate = saved


def test_a_page_is_reused_while_what_it_read_is_unchanged_and_rendered_when_it_changes(cli_logging):
    memo = serving.PageMemo()

    def body(live):
        return "<p>" + context.current().find("a/x.py").stdout.strip() + "</p>"

    assert _build(memo, _live("one\n"), "# Page", body) == ("<p>one</p>", True)
    assert _build(memo, _live("one\n"), "# Page", body) == ("<p>one</p>", False)  # reused
    assert _build(memo, _live("two\n"), "# Page", body) == ("<p>two</p>", True)  # what it read changed


def test_a_page_that_includes_a_file_is_rendered_on_every_build(cli_logging, tmp_path):
    """pymdownx.snippets reads the included file inside the render: the page's Markdown holds only
    the `--8<--` line, so the memo cannot see an edit of README.md (broken on purpose: without the
    `--8<--` check the second build served the old text)."""
    included = tmp_path / "README.md"
    memo = serving.PageMemo()
    for text in ("old rule", "new rule"):
        included.write_text(text)
        html, rendered = _build(memo, _live("one\n"), f'--8<-- "{included}"', lambda live: included.read_text())
        assert (html, rendered) == (text, True)


def test_a_page_that_warned_through_mkdocs_logger_is_never_kept(cli_logging):
    """markdown-exec and MkDocs' link checks warn through `mkdocs.*`, which under the command line
    never reaches the root logger: a page that warned is rendered again, and warns again, on the next
    build (broken on purpose: watching the root logger only, the second build reused the page and
    its warning was gone, so --strict passed)."""
    memo = serving.PageMemo()
    warnings = []

    class Count(logging.Handler):
        def emit(self, rec):
            warnings.append(rec.getMessage())

    counter = Count(logging.WARNING)
    cli_logging.addHandler(counter)
    try:

        def body(live):
            logging.getLogger("mkdocs.plugins.markdown_exec").warning(
                "Execution of python code block exited with errors"
            )
            return "<p>Traceback</p>"

        for _ in range(2):
            assert _build(memo, _live("one\n"), "# Page", body) == ("<p>Traceback</p>", True)
    finally:
        cli_logging.removeHandler(counter)
    assert len(warnings) == 2


def test_the_plugins_post_build_runs_after_every_other_plugin():
    from fieldguide.site.plugin import FieldGuidePlugin

    assert getattr(FieldGuidePlugin.on_post_build, "mkdocs_priority", None) == -100


def test_a_page_with_ids_markdown_exec_numbered_is_never_kept(cli_logging):
    """markdown-exec numbers auto ids by a counter across the build's pages; a reused page would keep
    the numbers of the build it was made in."""
    memo = serving.PageMemo()
    for _ in range(2):
        html, rendered = _build(memo, _live("one\n"), "# Page", lambda live: '<h2 id="exec-3--a">A</h2>')
        assert rendered


def test_whatever_tells_page_code_about_all_results_counts_as_reading_them_all():
    """len(), `in`, a copy or a sum of a watched build's results, and a lookup that misses (its message
    names every result), change when any result does."""
    live = _live("one\n")
    reads_of = [len, bool, lambda s: s[0] in s, lambda s: s.copy(), lambda s: s + [], lambda s: s.count(None)]
    for read in reads_of:
        with record.reading() as reads:
            read(live.snippets)
        assert reads.everything
    with record.reading() as reads, pytest.raises(LookupError):
        live.find("a/missing.py")
    assert reads.everything


def _digested(output: str, digest: str) -> record.BuildRecord:
    live = _live(output)
    live.snippets[0].digest = digest
    return live


def test_a_page_that_compared_digests_with_the_records_is_kept_while_the_comparison_is(cli_logging, tmp_path):
    """The releases pages walk the live build's digests only to find stale and missing entries (guide/
    releases.py): a page that read that comparison is kept while it is the same (a snippet edited
    again, still stale), and rendered when it changes (the edit that made the entry stale)."""
    from fieldguide.guide import releases

    (tmp_path / "records").mkdir()
    (tmp_path / "records" / "releases.toml").write_text('default = "2.13.0"\nreleases = ["2.12.1", "2.13.0"]\n')
    measured = _digested("one\n", "as-measured")
    measured.torch = "2.12.1"
    measured.snippets.watched = False
    measured.write(releases.record_file(tmp_path, "2.12.1"))
    memo = serving.PageMemo()

    def body(live):
        cols = releases.columns(tmp_path, live)
        return "<p>" + ";".join(f"{c.release}:{sorted(c.stale)}" for c in cols) + "</p>"

    same = _build(memo, _digested("one\n", "as-measured"), "# Page", body)
    assert same[1] and "2.12.1:[]" in same[0]
    assert not _build(memo, _digested("one\n", "as-measured"), "# Page", body)[1]  # reused
    edited = _build(memo, _digested("one\n", "edited once"), "# Page", body)
    assert edited[1] and "2.12.1:[('snippets/a/x.py', ())]" in edited[0]  # now stale: rendered
    assert not _build(memo, _digested("one\n", "edited twice"), "# Page", body)[1]  # still stale: reused
    assert _build(memo, _digested("one\n", "as-measured"), "# Page", body)[1]  # measured again: rendered
