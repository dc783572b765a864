"""The MkDocs plugin that wires the pipeline stages into a build.

    on_config  register the ``snippet`` fence (render.py) with pymdownx.superfences; build into a
               temporary directory next to site_dir
    on_files   collect (collect.py) -> execute (execute.py) -> current record (record.py)
    pages      render from the record; chapter code reads it through fieldguide.record; a fence
               that fails to render fails the build, naming the page
    on_post_build  write record.json, then swap the finished site into site_dir

A build that fails or is interrupted leaves the previous site_dir as it was (never empty).
"""

from __future__ import annotations

import atexit
import functools
import json
import logging
import os
import shutil
import tempfile
from pathlib import Path

from mkdocs.config import config_options as c
from mkdocs.config.base import Config
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, event_priority
from mkdocs.structure.files import File

from . import claims, downloads, gym, notebook, record, releases, render
from .cache import Cache
from .collect import CollectError
from .execute import ExecutionFailed, current_toolchain, execute, source_digest
from .executors import make_executor
from .fences import FENCE_NAME, find_fences
from .measure import jobs_for_pages

PARTIAL_PREFIX = ".fieldguide-partial-"


class _WarningCount(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.count = 0

    def emit(self, record) -> None:
        self.count += 1


def _remove(path: Path | None) -> None:
    if path is not None and path.exists():
        shutil.rmtree(path, ignore_errors=True)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True

def _env_flag(name: str) -> bool:
    return os.environ.get(name, "").lower() in {"1", "true", "yes", "on"}


class FieldGuideConfig(Config):
    snippets_dir = c.Type(str, default="snippets")
    cache_dir = c.Type(str, default=".fieldguide-cache")
    executor = c.Choice(("warm", "fresh"), default="warm")
    workers = c.Type(int, default=0)
    refresh = c.Type(bool, default=False)
    base_record = c.Type(str, default="")


class FieldGuidePlugin(BasePlugin[FieldGuideConfig]):
    def on_config(self, config):
        if "pymdownx.superfences" not in config["markdown_extensions"]:
            raise PluginError("fieldguide: the 'pymdownx.superfences' markdown extension is required")
        self.root = Path(config["config_file_path"]).resolve().parent
        self.snippets_dir = (self.root / self.config.snippets_dir).resolve()
        self.render_state = render.RenderState(self.snippets_dir)
        render.SNIPPETS_DIR = self.snippets_dir
        if not _env_flag("FIELDGUIDE_PUBLISH"):
            # the release selector reads ../versions.json, which only a published tree has
            # (nox -s publish sets FIELDGUIDE_PUBLISH): a single build would request it in vain
            config["extra"].pop("version", None)
        self.expected: dict[str, int] = {}
        fences = config["mdx_configs"].setdefault("pymdownx.superfences", {}).setdefault("custom_fences", [])
        fences[:] = [f for f in fences if f.get("name") != FENCE_NAME]
        fences.append({
            "name": FENCE_NAME, "class": FENCE_NAME, "validator": render.validator,
            "format": functools.partial(render.formatter, state=self.render_state),
        })
        self._build_into_partial(config)
        return config

    # -- the site directory: replaced only by a finished build -----------------------------------
    def _build_into_partial(self, config) -> None:
        self.final_site = Path(config["site_dir"]).resolve()
        parent = self.final_site.parent
        parent.mkdir(parents=True, exist_ok=True)
        for stale in parent.glob(f"{PARTIAL_PREFIX}*"):  # left by a build that was killed
            pid = stale.name[len(PARTIAL_PREFIX):].split("-", 1)[0]
            if not (pid.isdigit() and _pid_alive(int(pid))):
                _remove(stale)
        self.partial = Path(tempfile.mkdtemp(prefix=f"{PARTIAL_PREFIX}{os.getpid()}-", dir=parent))
        atexit.register(_remove, self.partial)
        config["site_dir"] = str(self.partial)
        self.warnings = _WarningCount()
        logging.getLogger("mkdocs").addHandler(self.warnings)
        self.strict = bool(config.get("strict"))

    def _swap_into_place(self) -> None:
        old = None
        if self.final_site.exists():
            old = self.final_site.with_name(f"{PARTIAL_PREFIX}{os.getpid()}-old")
            _remove(old)
            os.rename(self.final_site, old)
        os.rename(self.partial, self.final_site)
        _remove(old)

    def on_build_error(self, error, **kwargs):
        logging.getLogger("mkdocs").removeHandler(self.warnings)
        _remove(getattr(self, "partial", None))

    # -- pages: every fence the collector found is rendered, and any render error fails the build --
    def on_page_markdown(self, markdown, page, config, files):
        self.render_state.start_page(page.file.src_uri)
        self.expected[page.file.src_uri] = len(find_fences(markdown))
        render._ANCHORS.clear()
        render.PAGE_URL = page.url
        if render.REPLAY is not None:  # a copy rendered from a record: say what changed since
            return render.replay_page_markdown(markdown, f"{self.docs_label}/{page.file.src_uri}")
        return markdown

    def on_page_content(self, html, page, config, files):
        state, where = self.render_state, f"{os.path.relpath(config['docs_dir'], self.root)}/{page.file.src_uri}"
        if state.errors:
            raise PluginError(f"fieldguide: {where}: a snippet fence failed to render:\n  " + "\n  ".join(state.errors))
        expected = self.expected.get(page.file.src_uri, 0)
        if state.rendered != expected:
            raise PluginError(
                f"fieldguide: {where}: {expected} snippet fence(s) collected but {state.rendered} rendered; "
                "write each fence as ```snippet path=\"...\"``` on a line of its own"
            )
        return html

    def on_files(self, files, config):
        docs = Path(config["docs_dir"]).resolve()
        docs_label = self.docs_label = os.path.relpath(docs, self.root)
        pages, urls = {}, {}
        for file in files.documentation_pages():
            name = f"{docs_label}/{file.src_uri}"
            pages[name] = Path(file.abs_src_path).read_text(encoding="utf-8")
            urls[name] = file.url or "./"
        try:
            jobs = jobs_for_pages(pages, docs_label, self.snippets_dir)
        except gym.DrillError as exc:
            raise PluginError(f"fieldguide: {exc}") from None
        except CollectError as exc:
            raise PluginError(f"fieldguide: bad snippet fence(s):\n{exc}") from None
        replay = os.environ.get("FIELDGUIDE_REPLAY")
        render.REPLAY = None
        if replay:  # execution disabled: render from an earlier build's record
            build = self._replay(Path(replay), jobs)
        else:
            build = record.BuildRecord.new(current_toolchain().torch, self._execute(jobs))
        config["extra"]["fieldguide_release"] = render.release_banner(build, live=not replay)
        for result in build.snippets:
            result.pages = [urls[p] for p in result.pages]
        record.set_current(build)
        render.PLACES.clear()
        self._set_base()
        self._add_downloads(files, config, build.snippets)
        self._add_release_outputs(files, config, build)
        self._add_notebooks(files, config, docs)
        return files

    def _add_notebooks(self, files, config, docs: Path) -> None:
        """Each chapter's notebook, generated from its snippets, as a page for mkdocs-jupyter."""
        out = self.root / (os.environ.get("FIELDGUIDE_CACHE_DIR") or self.config.cache_dir) / "generated"
        for src_uri in notebook.generate(docs, self.snippets_dir, out):
            files.append(File(src_uri, str(out), config["site_dir"], config["use_directory_urls"]))

    def _execute(self, jobs):
        executor_name = os.environ.get("FIELDGUIDE_EXECUTOR") or self.config.executor
        workers = int(os.environ.get("FIELDGUIDE_WORKERS") or self.config.workers or 0) or None
        refresh = self.config.refresh or _env_flag("FIELDGUIDE_REFRESH")
        cache_dir = self.root / (os.environ.get("FIELDGUIDE_CACHE_DIR") or self.config.cache_dir)
        try:
            executor = make_executor(executor_name, cwd=self.root, workers=workers, root=self.root)
        except ValueError as exc:
            raise PluginError(f"fieldguide: {exc}") from None
        try:
            return execute(
                jobs,
                root=self.root,
                snippets_dir=self.snippets_dir,
                executor=executor,
                cache=None if _env_flag("FIELDGUIDE_NO_CACHE") else Cache(cache_dir),
                workers=workers,
                refresh=refresh,
            )
        except ExecutionFailed as exc:
            raise PluginError(f"fieldguide: {exc}") from None
        except KeyboardInterrupt:
            _remove(self.partial)
            raise
        finally:
            executor.close()

    def _set_base(self) -> None:
        base = os.environ.get("FIELDGUIDE_BASE_RECORD") or self.config.base_record
        if base:
            try:
                record.set_base(record.BuildRecord.read(Path(base)))
            except (OSError, ValueError, KeyError, TypeError) as exc:
                raise PluginError(f"fieldguide: the base record {base} cannot be read: {exc}") from None
        else:
            record.set_base(None)

    def _replay(self, path: Path, jobs) -> record.BuildRecord:
        """An earlier record's results, for a build with execution disabled (FIELDGUIDE_REPLAY).

        The record may be a site's record.json or a committed release record (.json.gz). Entries
        measured from another source than today's snippet (stale) are rendered under a notice;
        snippets the record has no entry for (added after it was measured) render as a notice.
        """
        try:
            old = record.BuildRecord.read(path)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise PluginError(f"fieldguide: cannot replay {path}: {exc}") from None
        by_key = {(s.path, tuple(sorted(s.env.items()))): s for s in old.snippets}
        state = render.ReplayState(torch=old.torch)
        results = []
        for job in jobs:
            key = (job.display_path, job.key[1])
            found = by_key.get(key)
            label = job.display_path + "".join(f" {k}={v}" for k, v in job.env.items())
            state.today[key] = digest = source_digest(job, self.snippets_dir)
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
        render.REPLAY = state
        return old

    def _add_downloads(self, files, config, results) -> None:
        """Each executed snippet as a file of the site, and a zip of each chapter's snippets."""
        chapters: dict[str, list[Path]] = {}
        for path in sorted({r.path for r in results}):
            source = self.root / path
            files.append(File.generated(config, path, abs_src_path=str(source)))
            chapters.setdefault(path.split("/")[1], []).append(source)
        for chapter, sources in chapters.items():
            content = downloads.zip_bytes(sources, self.root)
            files.append(File.generated(config, f"downloads/{chapter}-snippets.zip", content=content))

    def _add_release_outputs(self, files, config, build) -> None:
        """Every measured release's output of every snippet, for the Across releases page to link to."""
        if not (self.root / "records" / "releases.toml").exists():
            return
        for path, text in releases.output_files(releases.columns(self.root, build)).items():
            files.append(File.generated(config, path, content=text))

    def on_page_markdown(self, markdown, page, config, files):
        self._page_markdown = markdown
        claims.begin_page()  # collect the claims this page's code renders
        return markdown

    def on_page_content(self, html, page, config, files):
        wrong = claims.end_page(getattr(self, "_page_markdown", ""), record.current())
        if wrong:
            raise PluginError(f"fieldguide: {page.file.src_uri}: claims without their evidence on the page:\n" + "\n".join(wrong))
        return html

    def on_serve(self, server, config, builder):
        server.watch(str(self.snippets_dir))
        return server

    @event_priority(-100)  # after every other plugin has written its files
    def on_post_build(self, config):
        build = record.current()
        build.write(Path(config["site_dir"]) / record.RECORD_NAME)
        # where each output is shown, for links from other releases' copies (nox -s publish)
        places = json.dumps(dict(sorted(render.PLACES.items())), indent=1)
        (Path(config["site_dir"]) / "snippet-places.json").write_text(places + "\n", encoding="utf-8")
        logging.getLogger("mkdocs").removeHandler(self.warnings)
        if self.strict and self.warnings.count:
            return  # mkdocs aborts this build now; on_build_error removes it, site_dir stays as it was
        self._swap_into_place()
        config["site_dir"] = str(self.final_site)
