"""Stage 2 — execute: run every collected job, isolated, cached and in parallel.

Scheduling only: how a process is made lives in executors/, what its output means in
record.py, where results are kept in cache.py.

A result's verdict does not depend on where it came from: a cached run is checked exactly as a
fresh one (exit code, timeout, limits), and a cache entry is used only while every file the run
read is unchanged. What is cached is portable: the repository's path is removed and the
interpreter's prefix replaced by a placeholder, so a result reads the same whichever checkout,
folder or machine produced it.
"""

from __future__ import annotations

import ast
import copy
import functools
import os
import re
import sys
import threading
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path

from . import collect
from .cache import Cache, Toolchain, cache_key, file_hash
from .collect import Job, sources
from .executors.base import MEMORY_LIMIT, RawRun
from .executors.warm import WorkerError
from .progress import Progress
from .record import SnippetResult, python_version, result_from_run
from .settings import default_workers

STDERR_TAIL = 15
SIGNAL_CHECK = 0.2  # seconds between the main thread's looks at pending signals while snippets run


class ExecutionFailed(Exception):
    """One or more snippets failed; the message names page, snippet and the end of stderr."""


def current_toolchain() -> Toolchain:
    try:
        torch_version = metadata.version("torch")
    except metadata.PackageNotFoundError:
        raise ExecutionFailed(
            "torch is not installed in the environment that builds the site; build with `nox -s docs`, "
            "which installs it"
        ) from None
    return Toolchain(torch=torch_version, python=python_version(), build=tuple(sorted(torch_build().items())))


_BUILD_FIELDS = ("__version__", "git_version", "cuda", "hip", "rocm", "xpu", "debug")


def torch_build() -> dict[str, str]:
    """torch.version's attributes as that build prints them (`torch.__version__`, `git_version`,
    `cuda`, ...), read from torch/version.py without importing torch (seconds here); {} when the
    file cannot be read. A None attribute reads "None", as print(torch.version.cuda) shows it."""
    try:
        path = metadata.distribution("torch").locate_file("torch/version.py")
        tree = ast.parse(Path(str(path)).read_text(encoding="utf-8"))
    except (metadata.PackageNotFoundError, OSError, SyntaxError, ValueError):
        return {}
    found: dict[str, str] = {}
    for node in tree.body:
        target = node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 else None
        if isinstance(node, ast.AnnAssign):
            target = node.target
        value = getattr(node, "value", None)
        if isinstance(target, ast.Name) and target.id in _BUILD_FIELDS and isinstance(value, ast.Constant):
            found["version" if target.id == "__version__" else target.id] = str(value.value)
    return found


def job_key(job: Job, snippets_dir: Path, toolchain: Toolchain) -> str:
    source, imports = sources(job.file, snippets_dir)
    return cache_key(source, imports, job.env, toolchain, path=job.path)


def source_digest(job: Job, snippets_dir: Path) -> str:
    """What a result was measured from: the snippet's source and its local imports (no toolchain).

    A committed release record whose entry has another digest than today's source is stale.
    """
    return collect.source_digest(job.file, snippets_dir)


def _now() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat()


# -- portable cache entries -------------------------------------------------------------------
@functools.lru_cache(maxsize=1)  # (the interpreter's installation does not move while it runs)
def _machine_paths() -> list[tuple[str, str]]:
    """(path of this machine, placeholder) for the interpreter's installation, longest first."""
    pairs = {
        os.path.realpath(p): f"\x00{name}\x00" for name, p in (("base_prefix", sys.base_prefix), ("prefix", sys.prefix))
    }
    return sorted(pairs.items(), key=lambda kv: -len(kv[0]))


def to_portable(events: list[tuple[str, str]], root: Path) -> list[tuple[str, str]]:
    """Events as stored: no checkout's path (paths in it shown relative to the repository, as a
    reader sees them from its root; the checkout itself as "."), the interpreter's installation
    as a placeholder."""
    prefix = f"{root.resolve()}/"
    bare = re.compile(re.escape(str(root.resolve())) + r"(?![\w.-])")  # the checkout itself (a cwd): "."
    out = []
    for stream, text in events:
        text = bare.sub(".", text.replace(prefix, ""))
        for path, mark in _machine_paths():
            text = text.replace(path, mark)
        out.append((stream, text))
    return out


def from_portable(events: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Stored events as this build would have printed them itself."""
    out = []
    for stream, text in events:
        for path, mark in _machine_paths():
            text = text.replace(mark, path)
        out.append((stream, text))
    return out


def reads_manifest(reads: list[str], root: Path) -> dict[str, str | None]:
    return {rel: file_hash(root / rel) for rel in sorted(set(reads))}


def reads_unchanged(manifest: dict, root: Path) -> bool:
    return all(file_hash(root / rel) == digest for rel, digest in manifest.items())


# -- verdicts ---------------------------------------------------------------------------------
def verdict(job: Job, raw: RawRun) -> str:
    """Why this run fails its fence ("" if it passes). The same for a cached and a fresh run."""
    if raw.failure:
        return raw.failure
    if raw.timed_out:
        return f"ran past its timeout of {job.timeout:g}s and was killed (with every process it started)"
    if raw.exit_code != job.exit:
        return f"exited with code {raw.exit_code}, but its fence declares exit={job.exit}"
    return ""


def failure_message(job: Job, result: SnippetResult, what: str) -> str:
    pages = ", ".join(job.pages) or "(no page)"
    if result.stderr.strip():
        label, text = "last lines of stderr", result.stderr
    elif result.output.strip():
        label, text = "last lines of its output (nothing on stderr)", result.output
    else:
        label, text = "output", ""
    tail = text.rstrip("\n").splitlines()[-STDERR_TAIL:]
    body = "\n".join("    " + t for t in tail) or "    (it printed nothing)"
    note = ""
    if "MemoryError" in result.stderr:
        note = f"\n  (a snippet may map {MEMORY_LIMIT / 1024**3:g} GB of address space beyond the interpreter it starts in)"
    return f"{pages}: {job.display_path} {what}.\n  ran as: {job.id.command_line()}\n  {label}:\n{body}{note}"


# The results read from cache entries, by the entry's checksum: each rebuild of `mkdocs serve` reads
# the same entries again, and interpreting one (parsing its logs) is most of what a cached run costs.
_READ: dict[tuple, SnippetResult] = {}
_READ_MAX = 4096


def _result(
    job: Job, raw: RawRun, root: Path, cached: bool, digest: str, measured_at: str, entry: str = ""
) -> SnippetResult:
    memo = (entry, job.display_path, tuple(sorted(job.env.items())), str(root), digest, measured_at) if entry else None
    kept = _READ.get(memo) if memo else None
    if kept is not None:
        result = copy.deepcopy(kept)  # (the caller may change what it is given)
        result.pages = list(job.pages)
        result.cached = cached
        return result
    result = result_from_run(
        job.display_path,
        job.env,
        raw.events,
        raw.exit_code,
        raw.seconds,
        root,
        raw.executor,
        digest,
        measured_at,
        artifacts=raw.artifacts,
    )
    result.pages = list(job.pages)
    result.cached = cached
    if memo:
        if len(_READ) >= _READ_MAX:
            _READ.clear()
        _READ[memo] = copy.deepcopy(result)
    return result


def _from_cache(payload: dict | None, root: Path) -> RawRun | None:
    if not payload:
        return None
    try:
        # The cache keeps what execution produced; the record stage interprets it on every build,
        # so a change to log parsing or normalization never leaves stale results behind.
        if not reads_unchanged(payload["reads"], root):
            return None  # a file the snippet read has changed since
        events = from_portable([(str(s), str(t)) for s, t in payload["events"]])
        artifacts = {str(k): from_portable([("", str(v))])[0][1] for k, v in dict(payload.get("artifacts", {})).items()}
        return RawRun(
            events,
            payload["exit_code"],
            payload["seconds"],
            bool(payload["timed_out"]),
            payload["executor"],
            payload["failure"],
            artifacts=artifacts,
        )
    except (KeyError, TypeError, ValueError, AttributeError):
        return None  # an entry of another shape: run again


def execute(
    jobs: list[Job],
    *,
    root: Path,
    snippets_dir: Path,
    executor,
    cache: Cache | None,
    workers: int | None = None,
    refresh: bool = False,
    progress: Progress | None = None,
    failed: list[str] | None = None,
) -> list[SnippetResult]:
    """Results for jobs, in the jobs' order whatever the scheduling. Raises ExecutionFailed.

    With a `failed` list (a release measurement), a failing snippet does not stop the others: its
    message goes to the list and its result, with its exit code, stays in the results (uncached).

    On KeyboardInterrupt every running snippet is stopped (with what it started) before it propagates.
    """
    toolchain = current_toolchain()
    progress = progress or Progress(len(jobs))
    read = [sources(job.file, snippets_dir) for job in jobs]  # (once: the key and the digest both need them)
    keys = [
        cache_key(source, imports, job.env, toolchain, path=job.path)
        for job, (source, imports) in zip(jobs, read, strict=True)
    ]
    digests = [collect.digest_of(source, imports) for source, imports in read]
    results: list[SnippetResult | None] = [None] * len(jobs)
    failures: list[str] = []
    cache_problem: list[str] = []
    lock = threading.Lock()
    to_run = []

    def conclude(i: int, raw: RawRun, cached: bool, measured_at: str, entry: str = "") -> bool:
        job = jobs[i]
        result = _result(job, raw, root, cached, digests[i], measured_at, entry)
        what = verdict(job, raw)
        with lock:
            if what:
                failures.append(failure_message(job, result, what))
            if not what or failed is not None:
                results[i] = result
        return not what

    for i, key in enumerate(keys):
        found = None if (refresh or cache is None) else cache.entry(key)
        payload, checksum = found if found else (None, "")
        raw = _from_cache(payload, root)
        if raw is not None:
            conclude(i, raw, True, payload.get("measured_at", ""), checksum)
            progress.finish(jobs[i].display_path, True, 0.0)
        else:
            to_run.append(i)

    def run_one(i: int) -> None:
        job = jobs[i]
        progress.start(job.display_path)
        measured_at = _now()
        raw = executor.run(job.file, job.env, job.timeout)
        portable = to_portable(raw.events, root)
        raw.events = from_portable(portable)
        portable_artifacts = {name: to_portable([("", text)], root)[0][1] for name, text in raw.artifacts.items()}
        raw.artifacts = {name: from_portable([("", text)])[0][1] for name, text in portable_artifacts.items()}
        progress.finish(job.display_path, False, raw.seconds)
        if conclude(i, raw, False, measured_at) and cache is not None and not cache_problem:
            entry = {
                "events": portable,
                "exit_code": raw.exit_code,
                "seconds": raw.seconds,
                "timed_out": raw.timed_out,
                "executor": raw.executor,
                "failure": raw.failure,
                "measured_at": measured_at,
                "reads": reads_manifest(raw.reads, root),
                "artifacts": portable_artifacts,
            }
            try:
                cache.put(keys[i], entry)
            except OSError as exc:
                with lock:
                    if not cache_problem:
                        cache_problem.append(str(exc))
                        progress.warn(f"{exc}; results of this build are not cached")

    if to_run:
        pool = ThreadPoolExecutor(max_workers=workers or default_workers())
        futures = [pool.submit(run_one, i) for i in to_run]
        try:
            # Waited in slices: the kernel may deliver Ctrl-C to a worker thread, and an untimed wait
            # would keep the main thread, the only one that runs Python's signal handlers, asleep.
            pending = futures
            while pending and not any(f.done() and f.exception() is not None for f in futures):
                _, pending = wait(pending, timeout=SIGNAL_CHECK, return_when=FIRST_EXCEPTION)
            for future in futures:
                if future.done() and future.exception() is not None:
                    raise future.exception()
        except BaseException as exc:
            abort = getattr(executor, "abort", None)
            if abort is not None:
                abort()  # every running snippet, and what it started, is killed now
            pool.shutdown(wait=True, cancel_futures=True)
            progress.close()
            if isinstance(exc, WorkerError):
                raise ExecutionFailed(str(exc)) from None
            raise
        pool.shutdown(wait=True)
    progress.close()
    if failed is not None:
        failed.extend(sorted(failures))
    elif failures:
        raise ExecutionFailed(f"{len(failures)} snippet(s) failed:\n" + "\n".join(sorted(failures)))
    return [r for r in results if r is not None]
