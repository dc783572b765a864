"""The MkDocs plugin that wires the pipeline stages into a build.

    on_config  register the ``snippet`` fence (render.py) with pymdownx.superfences
    on_files   collect (collect.py) -> execute (execute.py) -> current record (record.py)
    pages      render from the record; chapter code reads it through fieldguide.record
    on_post_build  write site/record.json
"""

from __future__ import annotations

import os
from pathlib import Path

from mkdocs.config import config_options as c
from mkdocs.config.base import Config
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin
from mkdocs.structure.files import File

from . import downloads, gym, notebook, record, releases, render
from .cache import Cache
from .collect import CollectError
from .execute import ExecutionFailed, current_toolchain, execute
from .executors import make_executor
from .fences import FENCE_NAME
from .measure import jobs_for_pages

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
        render.SNIPPETS_DIR = self.snippets_dir
        fences = config["mdx_configs"].setdefault("pymdownx.superfences", {}).setdefault("custom_fences", [])
        if not any(f.get("name") == FENCE_NAME for f in fences):
            fences.append({"name": FENCE_NAME, "class": FENCE_NAME, "validator": render.validator, "format": render.formatter})
        return config

    def on_files(self, files, config):
        docs = Path(config["docs_dir"]).resolve()
        docs_label = os.path.relpath(docs, self.root)
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
        if replay:  # execution disabled: render from an earlier build's record
            build = self._replay(Path(replay), jobs)
        else:
            build = record.BuildRecord.new(current_toolchain().torch, self._execute(jobs))
        for result in build.snippets:
            result.pages = [urls[p] for p in result.pages]
        record.set_current(build)
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
        executor = make_executor(executor_name, cwd=self.root, workers=workers)
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
        """An earlier record's results, for a build with execution disabled (FIELDGUIDE_REPLAY)."""
        try:
            old = record.BuildRecord.read(path)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise PluginError(f"fieldguide: cannot replay {path}: {exc}") from None
        by_key = {(s.path, tuple(sorted(s.env.items()))): s for s in old.snippets}
        results, missing = [], []
        for job in jobs:
            found = by_key.get((job.display_path, job.key[1]))
            if found is None:
                missing.append(job.display_path)
                continue
            found.pages, found.cached = list(job.pages), True
            results.append(found)
        if missing:
            raise PluginError(f"fieldguide: {path} has no result for: {', '.join(missing)}")
        old.snippets = results
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

    def on_serve(self, server, config, builder):
        server.watch(str(self.snippets_dir))
        return server

    def on_post_build(self, config):
        build = record.current()
        build.write(Path(config["site_dir"]) / record.RECORD_NAME)
