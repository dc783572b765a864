"""Measure one torch release: every snippet the site uses, under the torch of this interpreter.

    python -m fieldguide.tools.measure records/torch-2.8.0.json.gz [--refresh]
    python -m fieldguide.tools.measure records/torch-2.8.0.json.gz --check

The same stages as a build (collect -> execute -> record), without MkDocs: the pages' fences
and the gym's scenarios are collected from the files on disk, executed by the same engine
(isolation, cache, normalization), and written as a compressed record. `nox -s matrix` runs
this once per release of records/releases.toml, each in that release's own environment.

`--check` executes nothing and needs no torch: it compares the record's entries with today's
snippets (by source digest) and exits 1 when any entry is stale or missing.
"""

from __future__ import annotations

import argparse
import fnmatch
import logging
import sys
from pathlib import Path

from ..guide import gym
from ..guide.jobs import jobs_for_pages, page_texts, site_jobs, stale_entries  # noqa: F401  (site_jobs: for callers)
from ..run.cache import Cache
from ..run.collect import CollectError
from ..run.execute import ExecutionFailed, current_toolchain, execute
from ..run.executors import make_executor
from ..run.record import BuildRecord
from ..run.settings import load as load_settings

ROOT_MARKERS = ("mkdocs.yml", "snippets")


def measure(
    root: Path, out: Path, *, refresh: bool = False, workers: int | None = None, only: list[str] | None = None
) -> BuildRecord:
    """Measure the site's jobs into `out`. With `only` (glob patterns of snippet paths), run just
    those again, and whatever the existing record lacks or has stale or failed; keep the rest."""
    all_jobs = jobs = site_jobs(root)
    toolchain = current_toolchain()
    kept: dict = {}
    if only and out.exists():
        old = BuildRecord.read(out)
        gaps = stale_entries(old, all_jobs, root / "snippets")
        redo = {label for names in gaps.values() for label in names}
        chosen = [j for j in all_jobs if j.id.label() in redo or any(fnmatch.fnmatch(j.display_path, p) for p in only)]
        kept = {s.id: s for s in old.snippets if s.id in {j.id for j in all_jobs} - {j.id for j in chosen}}
        jobs, refresh = chosen, True
    print(f"fieldguide: measuring {len(jobs)} snippet runs under torch {toolchain.torch}", file=sys.stderr, flush=True)
    settings = load_settings(root)  # mkdocs.yml's options and FIELDGUIDE_* variables, as for a build
    workers = workers or settings.workers
    executor = make_executor(settings.executor, cwd=root, workers=workers)
    failed: list[str] = []
    try:
        results = execute(
            jobs,
            root=root,
            snippets_dir=root / "snippets",
            executor=executor,
            cache=Cache(settings.cache_dir) if settings.cache else None,
            workers=workers,
            refresh=refresh,
            failed=failed,
        )
    finally:
        executor.close()
    # A snippet that fails on this release is recorded as failed (its exit code and stderr kept),
    # so the other measurements of the release are not lost; the command still reports it.
    if kept:  # in the jobs' order, as a full measurement writes them
        ran = {r.id: r for r in results}
        results = [ran.get(j.id) or kept[j.id] for j in all_jobs if j.id in ran or j.id in kept]
    build = BuildRecord.new(toolchain.torch, results, dict(toolchain.build))
    build.write(out)
    if failed:
        raise ExecutionFailed(
            f"{len(failed)} snippet(s) failed on torch {toolchain.torch} (recorded as failed in {out}):\n"
            + "\n".join(failed)
        )
    return build


def find_root(start: Path) -> Path:
    for d in (start, *start.parents):
        if all((d / m).exists() for m in ROOT_MARKERS):
            return d
    raise SystemExit(f"fieldguide measure: no mkdocs.yml and snippets/ above {start}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="fieldguide-measure", description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="the record to write (records/torch-X.Y.Z.json.gz)")
    parser.add_argument("--refresh", action="store_true", help="run every snippet again, ignoring the cache")
    parser.add_argument("--check", action="store_true", help="only report stale or missing entries (exit 1 if any)")
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument(
        "--only",
        action="append",
        metavar="GLOB",
        help="run only snippets matching this path glob again (and what is stale); keep the rest",
    )
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")  # the engine logs progress (prefixed "fieldguide: ")
    root = find_root(Path.cwd())
    try:
        if args.check:
            if not args.out.exists():
                print(f"{args.out}: not measured yet")
                return 1
            gaps = stale_entries(BuildRecord.read(args.out), site_jobs(root), root / "snippets")
            for kind, names in gaps.items():
                for name in names:
                    print(f"{args.out}: {kind}: {name}")
            return 1 if any(gaps.values()) else 0
        build = measure(root, args.out.resolve(), refresh=args.refresh, workers=args.workers, only=args.only)
    except (CollectError, ExecutionFailed, gym.DrillError) as exc:
        print(f"fieldguide measure: {exc}", file=sys.stderr)
        return 1
    print(f"fieldguide: wrote {args.out} ({len(build.snippets)} results, torch {build.torch})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
