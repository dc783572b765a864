"""Stage 3 — record: results of a build, as data. Written to site/record.json.

The field names of record.json are a contract read by the diff tooling and CI:
schema, torch, python, platform, built_at, snippets[] with path, pages, env, stdout, logs,
exit_code, seconds, cached, normalized. (Extra fields: output, stderr, executor, digest, measured_at;
at the top, torch_build: torch.version's build attributes as printed, and uncovered: the places whose
outcome no text covers; both absent from older records.)

`schema` is the version of this shape. Version 1 (records written before the field existed,
such as the committed tests/fixtures/records) has only the contract's fields required; version 2
requires every field. A record of a newer schema, or one missing a required field, is refused on
load with a RecordError naming the file, the snippet and the field: nothing is silently defaulted.
"""

from __future__ import annotations

import base64
import contextvars
import functools
import gzip
import hashlib
import json
import os
import platform
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import NamedTuple

from . import logs as logparse
from .identity import SnippetId
from .normalize import normalize_output

RECORD_NAME = "record.json"
SCHEMA_VERSION = 2
REQUIRED_TOP = ("torch", "python", "platform", "built_at", "snippets")
REQUIRED_V1 = ("path", "pages", "env", "stdout", "logs", "exit_code", "seconds", "cached", "normalized")
REQUIRED_V2 = (*REQUIRED_V1, "output", "stderr", "executor", "digest", "measured_at", "artifacts")


class RecordError(ValueError):
    """A record that cannot be read as this version of the schema (the message says why)."""


@dataclass
class SnippetResult:
    path: str  # as a reader types it: snippets/guards/anatomy.py
    env: dict[str, str]
    stdout: str
    logs: dict[str, str]
    output: str  # what the page shows: stdout and every torch log record, prefix-stripped, in printed order
    stderr: str  # stderr that is not a torch log record (warnings, tracebacks)
    exit_code: int | None
    seconds: float
    normalized: dict
    pages: list[str] = field(default_factory=list)
    cached: bool = False
    executor: str = ""
    digest: str = ""  # of the source that ran (the snippet and its local imports): see execute.source_digest
    measured_at: str = ""  # when this result was executed (UTC, ISO 8601)
    artifacts: dict[str, str] = field(default_factory=dict)  # files the run wrote (a TORCH_TRACE): name -> packed text

    def artifact(self, name: str) -> str:
        """The text of a file the run wrote (see pack_artifact); "" when it wrote none by that name."""
        packed = self.artifacts.get(name)
        return unpack_artifact(packed) if packed else ""

    def json(self) -> dict | list | None:
        """The last line of stdout that parses as JSON: measurements a snippet reports as data."""
        for line in reversed(self.stdout.splitlines()):
            line = line.strip()
            if line.startswith(("{", "[")):
                try:
                    return json.loads(line)
                except ValueError:
                    continue
        return None

    def log(self, channel: str) -> str:
        return self.logs.get(channel, "")

    @property
    def id(self) -> SnippetId:
        return SnippetId.of(self.path, self.env)


def pack_artifact(text: str) -> str:
    """gzip + base64: a trace is large and repetitive, and a record is JSON."""
    return base64.b64encode(gzip.compress(text.encode("utf-8"), mtime=0)).decode("ascii")


def unpack_artifact(packed: str) -> str:
    return gzip.decompress(base64.b64decode(packed)).decode("utf-8")


def requested_channels(env: dict[str, str]) -> list[str]:
    return [c.strip().lstrip("+-") for c in env.get("TORCH_LOGS", "").split(",") if c.strip()]


def result_from_run(
    display_path: str,
    env: dict[str, str],
    events,
    exit_code,
    seconds,
    root,
    executor="",
    digest="",
    measured_at="",
    artifacts: dict[str, str] | None = None,
) -> SnippetResult:
    # Paths inside the repository are shown as a reader who runs from its root sees them, in every
    # field: a result reads the same whichever checkout or folder produced it.
    events = [(stream, _relative_paths(text, root)) for stream, text in events]
    lines = logparse.without_engine_frames(logparse.parse(events))
    stdout = logparse.stdout_text(lines)
    channels = logparse.channels(lines)
    return SnippetResult(
        path=display_path,
        env=dict(env),
        stdout=stdout,
        logs=channels,
        output=logparse.display_text(lines),
        stderr=logparse.stderr_text(lines),
        exit_code=exit_code,
        seconds=round(seconds, 3),
        normalized=normalize_output(stdout, channels, root),
        executor=executor,
        digest=digest,
        measured_at=measured_at,
        artifacts={name: pack_artifact(_relative_paths(text, root)) for name, text in (artifacts or {}).items()},
    )


def _relative_paths(text: str, root) -> str:
    """Show paths inside the repository as a reader who runs from its root would see them."""
    return text.replace(_resolved(str(root)) + "/", "") if root else text


@functools.lru_cache(maxsize=8)
def _resolved(root: str) -> str:
    return str(Path(root).resolve())


# -- what page code read from the live build (serve's page memo: site/serving.py) -----------------
# A build the plugin watches (the live record of a `mkdocs serve` rebuild) notes every lookup made
# while a `reading()` is active: find() and lookup() with what they found, a read of built_at, and
# any walk over its results (then the reader read everything). Records read from a file are never
# watched: they change only with their file.
class Reads:
    """The lookups a computation made in watched builds: key -> what it found (a result, or the miss)."""

    def __init__(self) -> None:
        self.lookups: dict[tuple, object] = {}
        self.everything = False

    def merge(self, other: Reads) -> None:
        for key, found in other.lookups.items():
            self.lookups.setdefault(key, found)
        self.everything = self.everything or other.everything


_READERS: contextvars.ContextVar[tuple[Reads, ...]] = contextvars.ContextVar("fieldguide_reads", default=())


@contextmanager
def reading() -> Iterator[Reads]:
    """Collect what the code inside reads from watched builds (nested readers each see it)."""
    reads = Reads()
    token = _READERS.set((*_READERS.get(), reads))
    try:
        yield reads
    finally:
        _READERS.reset(token)


@contextmanager
def unread() -> Iterator[None]:
    """Code inside is not counted as the active readers' reading (a memo that notes its own uses)."""
    token = _READERS.set(())
    try:
        yield
    finally:
        _READERS.reset(token)


def note(reads: Reads) -> None:
    """Count what an earlier computation read (its result is reused) as the active readers' reading."""
    for r in _READERS.get():
        r.merge(reads)


def note_everything() -> None:
    for r in _READERS.get():
        r.everything = True


def _note(key: tuple, found: object) -> None:
    for r in _READERS.get():
        r.lookups.setdefault(key, found)


_DERIVED: dict[str, Callable[[str, BuildRecord], str]] = {}


def note_derived(name: str, arg: str, build: BuildRecord, summary: Callable[[str, BuildRecord], str]) -> None:
    """Count as read, instead of every result of the watched `build`, only `summary(arg, build)`: a
    page whose code walked the results just to compute what that summary prints is kept while the
    summary of the next build prints the same (serve's page memo asks derived() for it)."""
    if not build.watched or not _READERS.get():
        return
    _DERIVED[name] = summary
    with unread():
        value = summary(arg, build)
    _note(("derived", name, arg), value)


def derived(name: str, arg: str, build: BuildRecord) -> str | None:
    """What the summary noted under `name` prints for `build` now (None: no such summary)."""
    summary = _DERIVED.get(name)
    if summary is None:
        return None
    with unread():
        return summary(arg, build)


class _Results(list):
    """A record's results; walking over those of a watched build counts as reading all of them."""

    watched = False

    def __iter__(self):
        if self.watched:
            note_everything()
        return super().__iter__()

    def __getitem__(self, index):
        if self.watched:
            note_everything()
        return super().__getitem__(index)

    def __reversed__(self):
        if self.watched:
            note_everything()
        return super().__reversed__()

    # Whatever else tells a reader about the results (how many, whether one is there, a copy of them)
    # reads them all as well: a page that printed len(build.snippets) changes when a snippet is added.
    def _all(name):
        def read(self, *args):
            if self.watched:
                note_everything()
            return getattr(list, name)(self, *args)

        read.__name__ = name
        return read

    __len__ = _all("__len__")
    __contains__ = _all("__contains__")
    __eq__ = _all("__eq__")
    __ne__ = _all("__ne__")
    __add__ = _all("__add__")
    __mul__ = _all("__mul__")
    __rmul__ = _all("__rmul__")
    copy = _all("copy")
    index = _all("index")
    count = _all("count")
    __hash__ = None
    del _all


MISS = "(no result)"


class LogView(NamedTuple):
    """What a reader of torch's log records needs of a result (and nothing it did not read)."""

    path: str
    env: dict[str, str]
    logs: dict[str, str]


@dataclass
class BuildRecord:
    torch: str
    python: str
    platform: str
    built_at: str
    snippets: list[SnippetResult]
    # torch.version's build attributes as printed (version, git_version, cuda, hip, ...); {} in
    # records written before the field existed
    torch_build: dict[str, str] = field(default_factory=dict)
    # the places whose outcome on this build no text covers (guide's Uncovered, as dicts: kind, name,
    # page, section, anchor, outcome, value, needs); [] in records written before the field existed
    uncovered: list[dict] = field(default_factory=list)

    def __setattr__(self, name: str, value) -> None:
        if name == "snippets" and not isinstance(value, _Results):  # (a list given later stays watched)
            was = self.__dict__.get("snippets")
            value = _Results(value)
            value.watched = bool(getattr(was, "watched", False))
        super().__setattr__(name, value)

    def watch(self) -> None:
        """Note what page code reads from this build (the plugin's live record under `mkdocs serve`)."""
        self.snippets.watched = True

    @property
    def watched(self) -> bool:
        return self.snippets.watched

    @classmethod
    def new(
        cls, torch_version: str, snippets: list[SnippetResult], torch_build: dict[str, str] | None = None
    ) -> BuildRecord:
        return cls(
            torch=torch_version,
            python=platform.python_version(),
            platform=f"{platform.system()} {platform.machine()}",
            built_at=datetime.now(UTC).replace(microsecond=0).isoformat(),
            snippets=snippets,
            torch_build=dict(torch_build or {}),
        )

    def to_json(self) -> dict:
        return {
            "schema": SCHEMA_VERSION,
            "torch": self.torch,
            "python": self.python,
            "platform": self.platform,
            "built_at": self.built_at,
            **({"torch_build": dict(self.torch_build)} if self.torch_build else {}),
            **({"uncovered": list(self.uncovered)} if self.uncovered else {}),
            "snippets": [asdict(s) for s in self.snippets],
        }

    def write(self, path: Path) -> None:
        """Write as JSON; a path ending in .gz is gzip-compressed (the committed release records)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        text = json.dumps(self.to_json(), indent=1, sort_keys=False) + "\n"
        if path.suffix == ".gz":
            # mtime=0: the same record always compresses to the same bytes (no churn in git)
            tmp.write_bytes(gzip.compress(text.encode("utf-8"), mtime=0))
        else:
            tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)

    @classmethod
    def read(cls, path: Path) -> BuildRecord:
        """Read a record.json (or .json.gz); raises RecordError (a ValueError) naming what is wrong."""
        raw = Path(path).read_bytes()
        try:
            if raw[:2] == b"\x1f\x8b":
                raw = gzip.decompress(raw)
            data = json.loads(raw.decode("utf-8"))
        except (OSError, EOFError, UnicodeDecodeError, ValueError) as exc:
            raise RecordError(f"{path} is not a build record: {exc}") from None
        try:
            return cls.from_json(data)
        except RecordError as exc:
            raise RecordError(f"{path} is not a build record: {exc}") from None

    @classmethod
    def from_json(cls, data: dict) -> BuildRecord:
        if not isinstance(data, dict):
            raise RecordError("not a build record (expected a JSON object)")
        schema = data.get("schema", 1)  # records written before the field existed are version 1
        if not isinstance(schema, int) or not 1 <= schema <= SCHEMA_VERSION:
            raise RecordError(
                f"record schema {schema!r} is not one this code reads (1 to {SCHEMA_VERSION}); "
                "a newer record needs a newer fieldguide"
            )
        missing = [k for k in REQUIRED_TOP if k not in data]
        if missing:
            raise RecordError(f"schema {schema} record without required field(s): {', '.join(missing)}")
        required = REQUIRED_V1 if schema == 1 else REQUIRED_V2
        fields = SnippetResult.__dataclass_fields__
        snippets = []
        for i, s in enumerate(data["snippets"]):
            missing = [k for k in required if not isinstance(s, dict) or k not in s]
            if missing:
                name = s.get("path", f"#{i}") if isinstance(s, dict) else f"#{i}"
                raise RecordError(f"snippet {name}: schema {schema} requires {', '.join(missing)}")
            # Version 1 only: the extras a record of then could lack default to what can be derived.
            values = {"output": s["stdout"], "stderr": "", **{k: v for k, v in s.items() if k in fields}}
            snippets.append(SnippetResult(**values))
        build = data.get("torch_build") or {}
        if not isinstance(build, dict) or not all(isinstance(v, str) for v in build.values()):
            raise RecordError("torch_build must be an object of strings")
        uncovered = data.get("uncovered") or []
        if not isinstance(uncovered, list) or not all(isinstance(u, dict) for u in uncovered):
            raise RecordError("uncovered must be a list of objects")
        return cls(data["torch"], data["python"], data["platform"], data["built_at"], snippets, dict(build), uncovered)

    # -- lookup, for chapter code ------------------------------------------------------------
    def find(self, path: str, **env: str) -> SnippetResult:
        """The result for snippets/<path>; env narrows it when a snippet ran under several environments."""
        want = SnippetId.of(path).display
        results = list.__iter__(self.snippets)
        matches = [s for s in results if s.path == want and all(s.env.get(k) == v for k, v in env.items())]
        key = ("find", path, tuple(sorted(env.items())))
        if not matches:
            if self.watched:
                note_everything()  # the message below names every result that ran
            ran = sorted({s.path for s in list.__iter__(self.snippets)})
            raise LookupError(f"no result for {want} {env or ''} in this build; results exist for: {', '.join(ran)}")
        if len(matches) > 1:
            if self.watched:
                _note(key, MISS)
            raise LookupError(f"{want} ran under several environments; name one of: {[m.env for m in matches]}")
        if self.watched:
            _note(key, matches[0])
        return matches[0]

    def ids(self) -> list[SnippetId]:
        """Which snippets ran under which environments (what they printed not read), in record order."""
        found = [s.id for s in list.__iter__(self.snippets)]
        if self.watched:
            _note(("ids",), "\n".join(i.command_line() for i in found))
        return found

    def log_views(self) -> list[LogView]:
        """Every result's torch logs, with its path and environment (its printed output not read)."""
        views = [LogView(s.path, s.env, s.logs) for s in list.__iter__(self.snippets)]
        if self.watched:
            _note(("logs",), hashlib.sha256(repr(views).encode("utf-8", "surrogatepass")).hexdigest())
        return views

    def lookup(self, display: str, env: dict[str, str]) -> SnippetResult | None:
        """The result of snippets/... run under exactly `env`, or None."""
        found = next((s for s in list.__iter__(self.snippets) if s.path == display and s.env == env), None)
        if self.watched:
            _note(("lookup", display, tuple(sorted(env.items()))), MISS if found is None else found)
        return found


def fingerprint(result: SnippetResult) -> str:
    """Everything a result holds, as one digest (two equal digests: the same result for any page)."""
    values = tuple(getattr(result, f) for f in SnippetResult.__dataclass_fields__)
    return hashlib.sha256(repr(values).encode("utf-8", "surrogatepass")).hexdigest()


def _get_built_at(self: BuildRecord) -> str:
    if self.__dict__["snippets"].watched:
        _note(("built_at",), self.__dict__["_built_at"])
    return self.__dict__["_built_at"]


def _set_built_at(self: BuildRecord, value: str) -> None:
    self.__dict__["_built_at"] = value


BuildRecord.built_at = property(_get_built_at, _set_built_at)  # (after the dataclass made its fields)


def python_version() -> str:
    return sys.version.split()[0]
