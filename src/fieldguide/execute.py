"""Stage 2 — execute: run every collected job, isolated, cached and in parallel.

Scheduling only: how a process is made lives in executors.py, what its output means in
record.py, where results are kept in cache.py.
"""

from __future__ import annotations

import hashlib
import json
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path

from .cache import Cache, Toolchain, cache_key
from .collect import Job, local_imports
from .executors import RawRun
from .progress import Progress
from .record import SnippetResult, python_version, result_from_run
from .settings import default_workers

STDERR_TAIL = 15


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
    return Toolchain(torch=torch_version, python=python_version())


def _sources(job: Job, snippets_dir: Path) -> tuple[str, dict[str, str]]:
    imports = {
        str(p.relative_to(snippets_dir)): p.read_text(encoding="utf-8") for p in local_imports(job.file, snippets_dir)
    }
    return job.file.read_text(encoding="utf-8"), imports


def job_key(job: Job, snippets_dir: Path, toolchain: Toolchain) -> str:
    source, imports = _sources(job, snippets_dir)
    return cache_key(source, imports, job.env, toolchain)


def source_digest(job: Job, snippets_dir: Path) -> str:
    """What a result was measured from: the snippet's source and its local imports (no toolchain).

    A committed release record whose entry has another digest than today's source is stale.
    """
    source, imports = _sources(job, snippets_dir)
    material = json.dumps({"source": source, "imports": sorted(imports.items())}, sort_keys=True)
    return hashlib.sha256(material.encode("utf-8")).hexdigest()[:16]


def _now() -> str:
    return datetime.now(timezone.utc).replace(microsecond=0).isoformat()


def failure_message(job: Job, result: SnippetResult, timed_out: bool) -> str:
    pages = ", ".join(job.pages) or "(no page)"
    if timed_out:
        what = f"ran past its timeout of {job.timeout:g}s and was killed (with its child processes)"
    else:
        what = f"exited with code {result.exit_code}, but its fence declares exit={job.exit}"
    tail = (result.stderr or result.output).rstrip("\n").splitlines()[-STDERR_TAIL:]
    body = "\n".join("    " + t for t in tail) or "    (no output)"
    return f"{pages}: {job.display_path} {what}.\n  ran as: {job.id.command_line()}\n  last lines of stderr:\n{body}"


def _result(job: Job, raw: RawRun, root: Path, cached: bool, digest: str, measured_at: str) -> SnippetResult:
    result = result_from_run(
        job.display_path, job.env, raw.events, raw.exit_code, raw.seconds, root, raw.executor, digest, measured_at,
        artifacts=raw.artifacts,
    )
    result.pages = list(job.pages)
    result.cached = cached
    return result




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
    """
    toolchain = current_toolchain()
    progress = progress or Progress(len(jobs))
    keys = [job_key(job, snippets_dir, toolchain) for job in jobs]
    digests = [source_digest(job, snippets_dir) for job in jobs]
    results: list[SnippetResult | None] = [None] * len(jobs)
    failures: list[str] = []
    to_run = []
    for i, (job, key) in enumerate(zip(jobs, keys)):
        payload = None if (refresh or cache is None) else cache.get(key)
        try:
            # The cache keeps what execution produced; the record stage interprets it on every build,
            # so a change to log parsing or normalization never leaves stale results behind.
            raw = RawRun([tuple(e) for e in payload["events"]], payload["exit_code"], payload["seconds"], False, payload["executor"], dict(payload.get("artifacts", {}))) if payload else None
        except (KeyError, TypeError, ValueError):
            raw = None  # an entry of another shape: run again
        if raw is not None:
            results[i] = _result(job, raw, root, True, digests[i], payload.get("measured_at", ""))
            progress.finish(job.display_path, True, 0.0)
        else:
            to_run.append(i)

    def run_one(i: int) -> None:
        job = jobs[i]
        progress.start(job.display_path)
        measured_at = _now()
        raw = executor.run(job.file, job.env, job.timeout)
        # Cached as a reader would see it from the repository's root: no checkout's absolute path.
        raw.events = [(stream, text.replace(f"{root.resolve()}/", "")) for stream, text in raw.events]
        raw.artifacts = {name: text.replace(f"{root.resolve()}/", "") for name, text in raw.artifacts.items()}
        result = _result(job, raw, root, False, digests[i], measured_at)
        progress.finish(job.display_path, False, raw.seconds)
        if raw.timed_out or raw.exit_code != job.exit:
            failures.append(failure_message(job, result, raw.timed_out))
            if failed is not None:
                results[i] = result
            return
        if cache is not None:
            cache.put(keys[i], {"events": raw.events, "exit_code": raw.exit_code, "seconds": raw.seconds, "executor": raw.executor, "measured_at": measured_at, "artifacts": raw.artifacts})
        results[i] = result

    if to_run:
        with ThreadPoolExecutor(max_workers=workers or default_workers()) as pool:
            list(pool.map(run_one, to_run))
    progress.close()
    if failed is not None:
        failed.extend(sorted(failures))
    elif failures:
        raise ExecutionFailed(f"{len(failures)} snippet(s) failed:\n" + "\n".join(sorted(failures)))
    return [r for r in results if r is not None]
