"""The MkDocs plugin that wires the pipeline stages into a build.

    on_startup     remember the command; under `mkdocs serve` the plugin (and its executor) live
                   for the whole session, so rebuilds reuse warm workers that imported torch once
    on_config      resolve the settings once (settings.py); register the ``snippet`` fence
                   (render.py); put the chapters (settings.chapters) into the nav; build into a
                   temporary directory next to site_dir
    on_files       collect (collect.py) -> execute (execute.py) -> record (record.py); activate the
                   build context (context.py) that pages render from; add downloads and notebooks
    pages          render from the record; a fence that fails to render, or a claim whose evidence
                   the page does not show (claims.py), fails the build, naming the page
    on_post_build  write record.json; prune the cache to its size cap; swap the finished site
                   into site_dir
    on_shutdown    stop the executor's workers

A build that fails or is interrupted leaves the previous site_dir as it was (never empty).

Under `mkdocs serve` the plugin also starts the warm workers in the background after the first
build (so the first edit does not pay for importing torch) and keeps the theme's compiled
templates between rebuilds (a Jinja2 bytecode cache in memory): an edit to one snippet costs
that snippet's run plus rendering, not a torch import and a template compile. What it keeps is
kept by its inputs only (serving.py: generated files hard-linked from a store; search entries,
highlighted code and the HTML of the Markdown that page code printed, by their inputs; a page's
rendering, by its Markdown and the lookups its code made in the live record, which the record
counts while the page renders), so a served page is always what a full build of the same files
shows: a rebuild renders again the pages whose code read something that changed.
"""

from __future__ import annotations

import atexit
import dataclasses
import functools
import hashlib
import json
import logging
import os
import re
import shutil
import sys
import tempfile
import threading
from pathlib import Path

import jinja2
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, event_priority

from ..guide import claims, explain, gym, outcomes, releases
from ..run import context, record
from . import downloads, notebook, notfound, render, serving, tlparse
from ..run.cache import Cache
from ..run.collect import CollectError
from ..run.execute import ExecutionFailed, current_toolchain, execute, job_key, source_digest
from ..run.executors import make_executor
from ..run.fences import FENCE_NAME, find_fences
from ..run.identity import SnippetId
from ..guide.jobs import jobs_for_pages
from ..run.progress import Progress, log
from ..run.settings import FieldGuideConfig, Settings, SettingsError
from .workdirs import make_owned

NAV_CHAPTERS = "fieldguide:chapters"  # placeholders in mkdocs.yml's nav, filled from the chapters option
NAV_NOTEBOOKS = "fieldguide:notebooks"
PARTIAL_PREFIX = ".fieldguide-partial-"
REPORT_PAGE = "build/report.md"


def _fail(message: str) -> PluginError:
    return PluginError(f"fieldguide: {message}")


def engine_fingerprint() -> str:
    """Changes when the engine's code changes (a warm worker imported the old one)."""
    here = Path(__file__).resolve().parents[1]  # the whole package, every stage
    stats = sorted((str(p.relative_to(here)), p.stat().st_mtime_ns, p.stat().st_size) for p in here.rglob("*.py"))
    return hashlib.sha256(repr(stats).encode()).hexdigest()[:16]


_CELL_EDGE = re.compile(r"(</t[hd]>|</tr>|<br ?/?>)(?=\S)")
_PRE = re.compile(r"(<pre\b.*?</pre>)", re.S)


@functools.lru_cache(maxsize=64)  # (serve: a page kept from the last rebuild has the same HTML)
def _spaced_cells(html: str) -> str:
    """A line break between adjacent table cells and after a <br> (outside code blocks): the page
    looks the same, and search's index no longer runs one cell's words into the next's
    ("pattern explained in", not "patternexplained in")."""
    parts = _PRE.split(html)
    return "".join(p if i % 2 else _CELL_EDGE.sub("\\1\n", p) for i, p in enumerate(parts))


class _WarningCount(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.count = 0

    def emit(self, record) -> None:
        self.count += 1


def _remove(path: Path | None) -> None:
    if path is not None and path.exists():
        shutil.rmtree(path, ignore_errors=True)


class FieldGuidePlugin(BasePlugin[FieldGuideConfig]):
    def __init__(self) -> None:
        self.command = "build"
        self._executor = None
        self._executor_key: tuple | None = None
        self.settings: Settings | None = None
        self.build: context.BuildContext | None = None
        self._templates = _MemoryBytecodeCache()
        self._prewarmed = False
        self._store: serving.FileStore | None = None  # serve: generated files, kept by content
        self._swaps = 0
        self._search = serving.SearchMemo()
        self._pages = serving.PageMemo()
        self._pages_stamp: str | None = None
        self._pages_for = None
        self._jobs: list = []  # serve: the last build's jobs, which a saved snippet runs ahead of its rebuild
        self._ahead: threading.Thread | None = None
        self._ahead_failed: tuple[set[str], str] | None = None  # (the job keys, the message) of a failed run ahead

    def on_startup(self, *, command, dirty) -> None:
        # Defining on_startup keeps this object for the whole `mkdocs serve` session.
        self.command = command

    def on_shutdown(self) -> None:
        self._close_executor()
        if self._store is not None:
            self._store.close()

    def on_config(self, config):
        if "pymdownx.superfences" not in config["markdown_extensions"]:
            raise _fail("the 'pymdownx.superfences' markdown extension is required")
        root = Path(config["config_file_path"]).resolve().parent
        try:
            self.settings = settings = Settings.resolve(self.config, root)
        except SettingsError as exc:
            raise _fail(str(exc)) from None
        self.render_state = render.RenderState(settings.snippets_dir)
        if not settings.publish:
            # the release selector reads ../versions.json, which only a published tree has
            # (nox -s publish sets FIELDGUIDE_PUBLISH): a single build would request it in vain
            config["extra"].pop("version", None)
        self.expected: dict[str, int] = {}
        fences = config["mdx_configs"].setdefault("pymdownx.superfences", {}).setdefault("custom_fences", [])
        fences[:] = [f for f in fences if f.get("name") != FENCE_NAME]
        fences.append(
            {
                "name": FENCE_NAME,
                "class": FENCE_NAME,
                "validator": render.validator,
                "format": functools.partial(render.formatter, state=self.render_state),
            }
        )
        if config["nav"]:
            config["nav"] = self._nav(config["nav"])
        self._build_into_partial(config)
        return config

    def _nav(self, nav: list) -> list:
        """Fill the nav's placeholders with one entry per chapter (its page, or its notebook)."""
        chapters = self.settings.chapters
        fill = {
            NAV_CHAPTERS: [{f"{ch.number}. {ch.title}": ch.page} for ch in chapters],
            NAV_NOTEBOOKS: [{f"Notebook {ch.number}: {ch.title}": notebook.page_of(ch)} for ch in chapters],
        }

        def walk(items):
            out = []
            for item in items:
                if isinstance(item, dict):
                    ((title, value),) = item.items()
                    if isinstance(value, str) and value in fill:
                        out.append({title: fill[value]})
                    elif isinstance(value, list):
                        out.append({title: walk(value)})
                    else:
                        out.append(item)
                else:
                    out.append(item)
            return out

        return walk(nav)

    # -- the site directory: replaced only by a finished build -----------------------------------
    def _build_into_partial(self, config) -> None:
        self.final_site = Path(config["site_dir"]).resolve()
        parent = self.final_site.parent
        parent.mkdir(parents=True, exist_ok=True)
        self.partial = make_owned(parent, PARTIAL_PREFIX)  # (and removes one left by a build that was killed)
        if self.command == "serve" and self._store is None:
            self._store = serving.FileStore(parent)
        atexit.register(_remove, self.partial)
        config["site_dir"] = str(self.partial)
        self.warnings = _WarningCount()
        logging.getLogger("mkdocs").addHandler(self.warnings)
        self.strict = bool(config.get("strict"))

    def _swap_into_place(self) -> None:
        old = None
        if self.final_site.exists():
            self._swaps += 1
            old = self.final_site.with_name(f"{PARTIAL_PREFIX}{os.getpid()}-old-{self._swaps}")
            _remove(old)
            os.rename(self.final_site, old)
        os.rename(self.partial, self.final_site)
        if old is not None and self.command == "serve":  # nothing serves it any more
            serving.remove_later(old)
        else:
            _remove(old)

    def on_build_error(self, error, **kwargs):
        self._end_page_memo()
        logging.getLogger("mkdocs").removeHandler(self.warnings)
        _remove(getattr(self, "partial", None))
        context.activate(None)

    # -- pages: every fence the collector found is rendered, any render error fails the build, and
    #    every claim's evidence is on its page ---------------------------------------------------
    def on_page_markdown(self, markdown, page, config, files):
        state = self.render_state
        state.start_page(page.file.src_uri, page.url)
        self.expected[page.file.src_uri] = len(find_fences(markdown))
        if state.replay is not None:  # a copy rendered from a record: say what changed since
            markdown = render.replay_page_markdown(markdown, f"{self.docs_label}/{page.file.src_uri}", state.replay)
        self._page_markdown = markdown
        claims.begin_page()  # collect the claims this page's code renders
        markdown = self._explain(markdown, f"{self.docs_label}/{page.file.src_uri}")
        # Search ranks a chapter's section above the other pages that mention the same name
        # (notebooks are not indexed at all: notebook.py); a page's own front matter wins.
        if page.file.src_uri in {ch.page for ch in self.settings.chapters}:
            page.meta.setdefault("search", {}).setdefault("boost", notebook.CHAPTER_SEARCH_BOOST)
        if context.active().record.watched:
            page.markdown = markdown  # (what MkDocs sets it to on return: the memo keys the page by it)
            self._begin_page_memo(config, files)
            self._pages.install(page, files, state)
        return markdown

    def _begin_page_memo(self, config, files) -> None:
        """serve: the stamp of this build's pages, once per build (before its first page renders)."""
        active = context.active()
        if self._pages_stamp is not None and self._pages_for is active.record:
            return
        settings = self.settings
        base = settings.base_record
        base_stat = os.stat(base) if base and os.path.exists(base) else None
        live = active.record
        stamp = "\n".join(
            [
                self._markdown_stamp(config),
                serving.files_stamp(files),
                serving.tree_stamp(settings.root / "docs", settings.root / "records", settings.snippets_dir / "gym"),
                repr((live.torch, live.python, live.platform, sorted(live.torch_build.items()), live.uncovered)),
                repr((base, base_stat and (base_stat.st_size, base_stat.st_mtime_ns))),
                repr(settings),
            ]
        )
        self._pages_stamp, self._pages_for = hashlib.sha256(stamp.encode()).hexdigest(), live
        self._pages.begin_build(self._pages_stamp, live)
        if self.command == "serve":  # before any page converts: a changed mkdocs.yml clears the kept HTML now
            serving.memoize_exec_markdown(self._markdown_stamp(config))

    def _explain(self, markdown: str, where: str) -> str:
        """The page's explain blocks, each replaced by the text written for the outcome its fact took
        on this build; a block missing the text of an outcome any measured release took fails the build."""
        if explain.BLOCK_NAME not in markdown:
            return markdown
        active = context.active()
        build = active.record
        if getattr(self, "_explain_for", None) is not build:
            # every outcome a committed record took needs its text (the build fails without it); what
            # this build alone took without a text shows the `unrecognised` text, listed by the survey
            replay = active.render.replay if active.render else None
            self._explain_records = releases.current(self.settings.root, build, replay) if self._has_releases() else []
            self._explain_for = build
        try:
            markdown, _ = explain.render_blocks(markdown, build, build.torch, self._explain_records)
        except explain.ExplainError as exc:
            raise _fail(
                f"{where}: explanations that cannot be rendered:\n  " + str(exc).replace("\n", "\n  ")
            ) from None
        return markdown

    def _has_releases(self) -> bool:
        return (self.settings.root / "records" / "releases.toml").exists()

    def on_page_content(self, html, page, config, files):
        state, where = self.render_state, f"{self.docs_label}/{page.file.src_uri}"
        if state.errors:
            raise _fail(f"{where}: a snippet fence failed to render:\n  " + "\n  ".join(state.errors))
        expected = self.expected.get(page.file.src_uri, 0)
        shown = html.count(render.SHOWN_MARK)  # formatted and on the page, not put back as raw text
        html = _spaced_cells(html.replace(render.SHOWN_MARK, ""))
        if state.rendered != expected or shown != expected:
            raise _fail(
                f"{where}: {expected} snippet fence(s) collected but {shown} rendered; "
                'write each fence as ```snippet path="..."``` on a line of its own, outside indented code'
            )
        if state.replay is not None:  # a copy from a record: its notices say what cannot be checked
            claims.begin_page()  # (forget this page's claims)
            return html
        wrong = claims.end_page(getattr(self, "_page_markdown", ""), context.active().record)
        if wrong:
            raise _fail(f"{where}: claims without their evidence on the page:\n" + "\n".join(wrong))
        return html

    def on_page_context(self, context, page, config, nav):
        """A page's `toc_depth: N` (front matter) keeps its contents list to headings of level N and
        above: the gym lists its drills, not each of their fifty scenarios, which a keyboard reader
        would otherwise Tab through before reaching the first question."""
        depth = page.meta.get("toc_depth")
        if isinstance(depth, int) and page.toc:

            def trim(items) -> None:
                for item in items:
                    if item.level >= depth:
                        item.children = []
                    else:
                        trim(item.children)

            trim(page.toc.items)
        return context

    def on_files(self, files, config):
        settings = self.settings
        docs = Path(config["docs_dir"]).resolve()
        docs_label = self.docs_label = os.path.relpath(docs, settings.root)
        pages, urls = {}, {}
        for file in files.documentation_pages():
            name = f"{docs_label}/{file.src_uri}"
            pages[name] = Path(file.abs_src_path).read_text(encoding="utf-8")
            urls[name] = file.url or "./"
        missing = [ch.page for ch in settings.chapters if f"{docs_label}/{ch.page}" not in pages]
        if missing:
            raise _fail(f"chapters listed in mkdocs.yml have no page: {', '.join(missing)}")
        try:
            jobs = jobs_for_pages(pages, docs_label, settings.snippets_dir)
            self._jobs = jobs
        except gym.DrillError as exc:
            raise _fail(str(exc)) from None
        except CollectError as exc:
            raise _fail(f"bad snippet fence(s):\n{exc}") from None
        base = self._base()  # a bad base record fails the build before anything runs
        if settings.replay:  # execution disabled: render from an earlier build's record
            build = self._replay(settings.replay, jobs)
        else:
            toolchain = current_toolchain()
            build = record.BuildRecord.new(toolchain.torch, self._execute(jobs), dict(toolchain.build))
            if self.command == "serve":
                build.watch()  # (before anything reads it: the pages' reads are what serve keeps them by)
        for result in build.snippets:
            result.pages = [urls[p] for p in result.pages]
        self.build = context.BuildContext(settings, build, base, self.render_state)
        context.activate(self.build)
        self._survey(pages, build, docs_label)
        listed = releases.releases_list(settings.root)[1] if self._has_releases() else []
        config["extra"]["fieldguide_release"] = render.release_banner(
            build,
            live=not settings.replay,
            replay=self.render_state.replay,
            recorded=build.torch.split("+")[0] in listed or not listed,
            uncovered=len(self.render_state.uncovered),
        )
        self._add_downloads(files, config, build.snippets)
        self._add_release_outputs(files, config, build)
        self._add_notebooks(files, config, docs)
        # the build report lists what the other pages met unforeseen while they rendered (a table
        # that cannot read this torch's output): it renders last
        report = files.get_file_from_path(REPORT_PAGE)
        if report is not None:
            files.remove(report)
            files.append(report)
        return files

    def _survey(self, pages: dict[str, str], build: record.BuildRecord, docs_label: str) -> None:
        """The explanations and drill scenarios whose outcome on this build no text covers: listed
        for the report and the end of the build; with strict_outcomes, the build fails on them."""
        try:
            found = outcomes.survey(pages, build, self.settings.snippets_dir, docs_label)
        except gym.DrillError as exc:
            raise _fail(str(exc)) from None
        self.render_state.uncovered = found
        self._explained = any(explain.BLOCK_NAME in text for text in pages.values())
        if found and self.settings.strict_outcomes:
            raise _fail(
                f"{len(found)} fact(s) took an outcome on torch {build.torch} that no text covers "
                "(strict_outcomes; without it the pages show the `unrecognised` text and the build report "
                "lists them):\n  " + "\n  ".join(u.line() for u in found)
            )

    def _add_notebooks(self, files, config, docs: Path) -> None:
        """Each chapter's notebook (.ipynb and its page), from the snippets and this build's outputs."""
        for src_uri, content in notebook.generate(
            self.settings.chapters, docs, self.settings.snippets_dir, context.current()
        ).items():
            files.append(serving.generated(config, src_uri, self._store, content=content))

    def _executor_for(self, settings: Settings):
        """The executor, kept across the rebuilds of one `mkdocs serve` while nothing it depends on changed."""
        key = (
            settings.executor,
            settings.workers,
            str(settings.root),
            sys.executable,
            current_toolchain().torch,
            engine_fingerprint(),
        )
        if self._executor is not None and key != self._executor_key:
            self._close_executor()
        if self._executor is None:
            try:
                self._executor = make_executor(
                    settings.executor, cwd=settings.root, workers=settings.workers, root=settings.root
                )
            except ValueError as exc:
                raise _fail(str(exc)) from None
            self._executor_key = key
        return self._executor

    def _close_executor(self) -> None:
        if self._executor is not None:
            self._executor.close()
        self._executor, self._executor_key = None, None

    def _run(self, jobs, progress=None):
        settings = self.settings
        return execute(
            jobs,
            root=settings.root,
            snippets_dir=settings.snippets_dir,
            executor=self._executor_for(settings),
            cache=Cache(settings.cache_dir) if settings.cache else None,
            workers=settings.workers,
            refresh=settings.refresh,
            progress=progress,
        )

    def _run_ahead(self, path: Path) -> None:
        """serve: a saved snippet starts running when the watcher sees it, while MkDocs waits out its
        build delay and loads the configuration; the rebuild then finds its result in the cache (the
        cache's own checks decide: a file changed again since is run again by the rebuild)."""
        settings = self.settings
        if settings is None or settings.replay or not settings.cache or settings.refresh:
            return
        jobs = [job for job in self._jobs if job.file.resolve() == path]
        if not jobs:
            return
        previous = self._ahead

        def run() -> None:
            if previous is not None:
                previous.join()
            keys: set[str] = set()
            try:
                keys = {job_key(job, settings.snippets_dir, current_toolchain()) for job in jobs}
                self._run(jobs, Progress(len(jobs), label="ahead of the rebuild: "))
            except ExecutionFailed as exc:  # the rebuild reports it (a snippet that timed out is not run twice)
                self._ahead_failed = (keys, str(exc))
            except Exception as exc:  # noqa: BLE001 - the rebuild runs it again and reports what failed
                log.debug(f"running {path.name} ahead of the rebuild failed: {exc}")

        self._ahead = threading.Thread(target=run, name="fieldguide-ahead", daemon=True)
        self._ahead.start()

    def _execute(self, jobs):
        ahead, self._ahead = self._ahead, None
        if ahead is not None:  # a saved snippet's run started by the watcher: its result is in the cache
            ahead.join()
            failed, self._ahead_failed = self._ahead_failed, None
            if failed is not None:  # it failed: while the pages still run those very sources, that is this build's failure
                toolchain = current_toolchain()
                if failed[0] <= {job_key(job, self.settings.snippets_dir, toolchain) for job in jobs}:
                    raise _fail(failed[1])
        try:
            return self._run(jobs)
        except ExecutionFailed as exc:
            raise _fail(str(exc)) from None
        except KeyboardInterrupt:
            _remove(self.partial)
            self._close_executor()
            raise
        finally:
            if self.command != "serve":  # a one-off build frees its workers as soon as it is done
                self._close_executor()

    def _base(self) -> record.BuildRecord | None:
        base = self.settings.base_record
        if not base:
            return None
        try:
            return record.BuildRecord.read(base)
        except (OSError, ValueError) as exc:
            raise _fail(f"the base record {base} cannot be read: {exc}") from None

    def _replay(self, path: Path, jobs) -> record.BuildRecord:
        """An earlier record's results, for a build with execution disabled (FIELDGUIDE_REPLAY).

        The record may be a site's record.json or a committed release record (.json.gz). Entries
        measured from another source than today's snippet (stale) are rendered under a notice;
        snippets the record has no entry for (added after it was measured) render as a notice.
        """
        try:
            old = record.BuildRecord.read(path)
        except (OSError, ValueError) as exc:
            raise _fail(f"cannot replay {path}: {exc}") from None
        by_id: dict[SnippetId, record.SnippetResult] = {s.id: s for s in old.snippets}
        state = render.ReplayState(torch=old.torch)
        results = []
        for job in jobs:
            key = (job.display_path, job.key[1])
            found = by_id.get(job.id)
            label = job.id.label()
            state.today[key] = digest = source_digest(job, self.settings.snippets_dir)
            if found is None:
                state.mark(key, "missing", label, job.pages)
                continue
            if found.digest != digest:
                state.mark(key, "stale" if found.digest else "unverified", label, job.pages)
            elif found.exit_code != job.exit:  # recorded as failed on that release (nox -s matrix)
                state.mark(key, "failed", label, job.pages)
            found.pages, found.cached = list(job.pages), True
            results.append(found)
        old.snippets = results
        self.render_state.replay = state
        return old

    def _add_downloads(self, files, config, results) -> None:
        """Each executed snippet as a file of the site, and a zip of each chapter's snippets."""
        root = self.settings.root
        chapters: dict[str, list[Path]] = {}
        for path in sorted({r.path for r in results}):
            source = root / path
            files.append(serving.generated(config, path, self._store, abs_src_path=str(source)))
            chapters.setdefault(SnippetId.of(path).path.split("/")[0], []).append(source)
        for chapter, sources in chapters.items():
            content = downloads.zip_bytes(sources, root)
            files.append(serving.generated(config, f"downloads/{chapter}-snippets.zip", self._store, content=content))

    def _add_release_outputs(self, files, config, build) -> None:
        """Every measured release's output of every snippet, for the Across releases page to link to."""
        root = self.settings.root
        if not (root / "records" / "releases.toml").exists():
            return
        columns = releases.columns(root, build, self.render_state.replay)
        for path, text in releases.output_files(columns).items():
            files.append(serving.generated(config, path, self._store, content=text))

    def on_env(self, env, config, files):
        # every page's Markdown is rendered by now: the banner counts what they all met unforeseen
        banner = config["extra"].get("fieldguide_release")
        if banner is not None:
            banner["uncovered"] = len(self.render_state.uncovered)
        if self.command == "serve":
            env.bytecode_cache = self._templates
            self._search.install(config)
            serving.memoize_highlighting()
            serving.skip_idle_search_strip()
            serving.memoize_exec_markdown(self._markdown_stamp(config))
        return env

    @staticmethod
    def _markdown_stamp(config) -> str:
        """What the conversion of a python block's printed Markdown depends on besides the text: the
        site's Markdown configuration, written in mkdocs.yml (and the engine that registers its fence)."""
        path = Path(config["config_file_path"])
        data = path.read_bytes() if path.is_file() else b""
        return hashlib.sha256(data + engine_fingerprint().encode()).hexdigest()

    def _prewarm(self) -> None:
        """Start the executor's workers now (serve only), by running an empty snippet through one."""
        if self._prewarmed or self.command != "serve" or self.settings.replay:
            return
        self._prewarmed = True
        executor = self._executor_for(self.settings)

        def run() -> None:
            with tempfile.TemporaryDirectory(prefix="fieldguide-prewarm-") as tmp:
                empty = Path(tmp) / "empty.py"
                empty.write_text("")
                try:
                    executor.run(empty, {}, 120)
                except Exception as exc:  # noqa: BLE001 - a failed prewarm only costs the first edit
                    log.debug(f"prewarming the executor failed: {exc}")

        threading.Thread(target=run, name="fieldguide-prewarm", daemon=True).start()

    def on_post_template(self, output_content, template_name, config):
        if template_name == "404.html":  # its assets are requested once it knows where the root is
            return notfound.defer_assets(output_content)
        return output_content

    def on_serve(self, server, config, builder):
        self._prewarm()
        serving.poll_faster(server)  # (where it polls)
        serving.watch_by_events(server)
        server.watch(str(self.settings.snippets_dir))
        serving.on_saved(server, self.settings.snippets_dir, self._run_ahead)
        return server

    def _end_page_memo(self) -> None:
        self._pages.end_build()
        self._pages_stamp = self._pages_for = None

    @event_priority(-100)  # after every other plugin has written its files
    def on_post_build(self, config):
        self._end_page_memo()
        build = context.active().record
        build.uncovered = [dataclasses.asdict(u) for u in self.render_state.uncovered]
        build.write(Path(config["site_dir"]) / record.RECORD_NAME)
        try:  # the tlparse report of every recorded trace, linked from its page
            tlparse.build_reports(build, Path(config["site_dir"]))
        except tlparse.TlparseError as exc:
            raise PluginError(f"fieldguide: {exc}") from None
        # where each output is shown, for links from other releases' copies (nox -s publish)
        places = json.dumps(dict(sorted(self.render_state.places.items())), indent=1)
        (Path(config["site_dir"]) / "snippet-places.json").write_text(places + "\n", encoding="utf-8")
        settings = self.settings
        found = self.render_state.uncovered
        if found and settings.strict_outcomes:  # (the explanations' failed the build before rendering)
            raise _fail(
                f"{len(found)} place(s) could not read what torch {build.torch} printed (strict_outcomes):\n  "
                + "\n  ".join(u.line() for u in found)
            )
        if found:
            log.info(
                f"{len(found)} fact(s) took an outcome on torch {build.torch} that no text covers; their pages show "
                "the `unrecognised` text (listed on build/report/; --strict-outcomes fails the build on them):"
            )
            for u in found:
                log.info(f"  {u.line()}")
        elif self.render_state.replay is None and getattr(self, "_explained", False):
            log.info(f"every explanation and drill scenario has a text for the outcome it took on torch {build.torch}")
        if settings.cache and settings.cache_max_mb > 0 and not settings.replay:
            removed = Cache(settings.cache_dir).prune(max_bytes=settings.cache_max_mb * 1024 * 1024)
            if removed:
                log.info(f"cache: pruned {removed} least recently used entries (cache_max_mb={settings.cache_max_mb})")
        context.activate(None)
        logging.getLogger("mkdocs").removeHandler(self.warnings)
        if self.strict and self.warnings.count:
            return  # mkdocs aborts this build now; on_build_error removes it, site_dir stays as it was
        self._swap_into_place()
        config["site_dir"] = str(self.final_site)


class _MemoryBytecodeCache(jinja2.BytecodeCache):
    """Compiled templates kept in memory across the rebuilds of one `mkdocs serve` (keyed by source checksum)."""

    def __init__(self) -> None:
        self._store: dict[str, bytes] = {}

    def load_bytecode(self, bucket) -> None:
        code = self._store.get(bucket.key)
        if code is not None:
            bucket.bytecode_from_string(code)

    def dump_bytecode(self, bucket) -> None:
        self._store[bucket.key] = bucket.bytecode_to_string()
