"""The build's settings, resolved once: mkdocs.yml plugin options, with FIELDGUIDE_* variables as overrides.

    plugins:
      - fieldguide:
          executor: warm        # every option below has a default; the variable, when set, wins
          chapters:             # the lessons, in order (see README, "Writing a page")
            - {slug: guards, title: What a guard checks}

`Settings.resolve` is the only place that reads these variables; the plugin resolves them once
per build and passes the result to the stages that need it (execute, cache, notebooks). `OPTIONS`
is the table in the README (a test compares the two).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from mkdocs.config import config_options as c
from mkdocs.config.base import Config


@dataclass(frozen=True)
class Option:
    name: str  # the mkdocs.yml option ("" when it is a variable only)
    env: str  # the FIELDGUIDE_* variable that overrides it ("" when it has none)
    default: str  # as the README states it
    effect: str


OPTIONS: tuple[Option, ...] = (
    Option("snippets_dir", "", "snippets", "where the examples live, relative to mkdocs.yml"),
    Option("chapters", "", "[]", "the lessons, in order: `{slug, title}` each (see *Writing a page*)"),
    Option(
        "executor",
        "FIELDGUIDE_EXECUTOR",
        "warm",
        "`warm` (workers import torch once and fork) or `fresh` (one new interpreter per snippet)",
    ),
    Option("workers", "FIELDGUIDE_WORKERS", "0", "parallel workers; 0 means one per core, at most 8"),
    Option("refresh", "FIELDGUIDE_REFRESH", "false", "ignore cached results and run every snippet (`--refresh`)"),
    Option(
        "cache",
        "FIELDGUIDE_CACHE",
        "true",
        "read and write the execution cache (`FIELDGUIDE_NO_CACHE=1` also turns it off)",
    ),
    Option(
        "cache_dir",
        "FIELDGUIDE_CACHE_DIR",
        ".fieldguide-cache",
        "where the execution cache lives, relative to mkdocs.yml",
    ),
    Option(
        "cache_max_mb",
        "FIELDGUIDE_CACHE_MAX_MB",
        "512",
        "after a build, the least recently used entries are pruned down to this size; 0 keeps everything",
    ),
    Option(
        "base_record",
        "FIELDGUIDE_BASE_RECORD",
        "",
        "an older `record.json` to render *What changed* against (`--base`)",
    ),
    Option(
        "replay",
        "FIELDGUIDE_REPLAY",
        "",
        "render from an existing record (`record.json` or a release's `.json.gz`), executing nothing (no torch needed)",
    ),
    Option(
        "strict_outcomes",
        "FIELDGUIDE_STRICT_OUTCOMES",
        "false",
        "fail the build when a fact or a drill scenario takes an outcome no text covers (`--strict-outcomes`); "
        "otherwise the pages show the `unrecognised` text and the build report lists them",
    ),
    Option(
        "publish",
        "FIELDGUIDE_PUBLISH",
        "false",
        "a copy of the published tree: keep the release selector (`extra.version`); `nox -s publish` sets it",
    ),
)
TRUE = {"1", "true", "yes", "on"}
FALSE = {"0", "false", "no", "off", ""}


class ChapterConfig(Config):
    slug = c.Type(str)
    title = c.Type(str)


class FieldGuideConfig(Config):
    """The plugin's options in mkdocs.yml (one per row of OPTIONS that has a name)."""

    snippets_dir = c.Type(str, default="snippets")
    chapters = c.ListOfItems(c.SubConfig(ChapterConfig), default=[])
    executor = c.Choice(("warm", "fresh"), default="warm")
    workers = c.Type(int, default=0)
    refresh = c.Type(bool, default=False)
    cache = c.Type(bool, default=True)
    cache_dir = c.Type(str, default=".fieldguide-cache")
    cache_max_mb = c.Type(int, default=512)
    base_record = c.Type(str, default="")
    replay = c.Type(str, default="")
    publish = c.Type(bool, default=False)
    strict_outcomes = c.Type(bool, default=False)


class SettingsError(ValueError):
    """A variable or option that cannot be honoured (named in the message)."""


@dataclass(frozen=True)
class Chapter:
    """One lesson: its page docs/<slug>.md, its examples snippets/<slug>/, its notebook and downloads."""

    slug: str
    title: str
    number: int  # 1-based, from its position in the chapters list

    @property
    def page(self) -> str:
        return f"{self.slug}.md"

    @property
    def url(self) -> str:
        return f"{self.slug}/"  # the site uses directory URLs

    @property
    def notebook(self) -> str:
        return f"notebooks/{self.slug}.py"

    @property
    def snippets_zip(self) -> str:
        return f"downloads/{self.slug}-snippets.zip"


def default_workers() -> int:
    """One worker per core this process may use, at most 8 (the one statement of the default)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return max(1, min(cores, 8))


@dataclass(frozen=True)
class Settings:
    root: Path
    snippets_dir: Path
    chapters: tuple[Chapter, ...]
    executor: str
    workers: int  # resolved: never 0
    refresh: bool
    cache: bool
    cache_dir: Path
    cache_max_mb: int
    base_record: Path | None
    replay: Path | None
    publish: bool = False
    strict_outcomes: bool = False

    @classmethod
    def resolve(cls, options: Mapping, root: Path, environ: Mapping[str, str] | None = None) -> Settings:
        """Options from mkdocs.yml (a mapping; missing ones take their defaults), overridden by variables."""
        environ = os.environ if environ is None else environ
        root = Path(root).resolve()
        defaults = FieldGuideConfig()
        defaults.load_dict({})
        defaults.validate()

        def get(name: str):
            value = options.get(name, defaults[name]) if options else defaults[name]
            env = next((o.env for o in OPTIONS if o.name == name), "")
            raw = environ.get(env) if env else None
            if raw is None:
                return value
            if isinstance(defaults[name], bool):
                if raw.lower() in TRUE:
                    return True
                if raw.lower() in FALSE:
                    return False
                raise SettingsError(f"{env}={raw!r}: expected 1 or 0")
            if isinstance(defaults[name], int):
                try:
                    return int(raw or 0)
                except ValueError:
                    raise SettingsError(f"{env}={raw!r}: expected a whole number") from None
            return raw

        executor = get("executor")
        if executor not in ("warm", "fresh"):
            raise SettingsError(f"FIELDGUIDE_EXECUTOR={executor!r}: use 'warm' or 'fresh'")
        workers = get("workers")
        if workers < 0:
            raise SettingsError(f"workers={workers}: expected 0 (one per core) or more")
        cache = get("cache") and environ.get("FIELDGUIDE_NO_CACHE", "").lower() not in TRUE
        chapters = tuple(
            Chapter(ch["slug"], ch["title"], n)
            for n, ch in enumerate(options.get("chapters", []) if options else [], 1)
        )

        def path(value: str) -> Path | None:
            return (root / value).resolve() if value else None

        return cls(
            root=root,
            snippets_dir=path(get("snippets_dir")),
            chapters=chapters,
            executor=executor,
            workers=workers or default_workers(),
            refresh=get("refresh"),
            cache=cache,
            cache_dir=path(get("cache_dir")),
            cache_max_mb=get("cache_max_mb"),
            base_record=path(get("base_record")),
            replay=path(get("replay")),
            publish=get("publish"),
            strict_outcomes=get("strict_outcomes"),
        )

    def chapter(self, slug: str) -> Chapter:
        for ch in self.chapters:
            if ch.slug == slug:
                return ch
        raise LookupError(f"no chapter {slug!r} in mkdocs.yml's fieldguide chapters: {[c.slug for c in self.chapters]}")


def drop_overrides(*names: str) -> None:
    """Forget FIELDGUIDE_* variables in this process, so options set in code take effect (publish's copies)."""
    for name in names:
        os.environ.pop(name, None)


def load(root: Path, environ: Mapping[str, str] | None = None) -> Settings:
    """The settings of the site at root, outside a build (measure, the cache command, page tests):
    the fieldguide plugin's options from root/mkdocs.yml, overridden by the variables, as in a build."""
    import yaml

    options: dict = {}
    config = Path(root) / "mkdocs.yml"
    if config.exists():
        data = yaml.load(config.read_text(encoding="utf-8"), Loader=_Loader) or {}
        for plugin in data.get("plugins", []):
            if isinstance(plugin, dict) and "fieldguide" in plugin:
                options = plugin["fieldguide"] or {}
    return Settings.resolve(options, root, environ)


def _ignore_tags(loader, suffix, node):  # mkdocs.yml may hold !!python/name: and !ENV tags we do not need
    return None


try:
    import yaml as _yaml

    class _Loader(_yaml.SafeLoader):
        pass

    _Loader.add_multi_constructor("!", _ignore_tags)
    _Loader.add_multi_constructor("tag:yaml.org,2002:python/", _ignore_tags)
except ImportError:  # pragma: no cover - mkdocs depends on PyYAML
    _Loader = None
