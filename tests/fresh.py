"""A reader's fresh runs of the site's snippets, the side the fidelity test compares the build with.

A fresh run is `python snippets/...py` from the repository's root, one new interpreter each, with
the environment a snippet gets (`child_env`: a fixed base plus its fence's variables). Nothing of
the engine runs in it: two pipes, no capture, no namespace.

Each run costs a torch import (about 3.5 s of CPU here, five minutes for the site), so the runs
under the default torch are measured once and committed (`REFERENCE`), each under the key of what
its output depends on: the snippet's source and the local modules it imports, its environment,
torch and Python (the engine's cache key material, without the engine, which a fresh run does not
use). The fidelity test takes a run from there while its key is current, and runs the others
itself. Measuring them again is always safe: a fresh run goes through none of the engine, only
the fixed environment every snippet gets (`child_env`).

    python tests/fresh.py            # measure the runs whose key is not in the reference (nox -s fresh)
    python tests/fresh.py --all      # measure every run again
    python tests/fresh.py --check    # exit 1 when a run of today's snippets is missing
"""

from __future__ import annotations

import argparse
import gzip
import json
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "tests" / "fixtures" / "fresh-runs.json.gz"
SCHEMA = 1
READER = "a fresh python run"  # the key's engine: no engine at all


def fresh_run(path: str, env: dict[str, str]) -> dict:
    """One snippet run as a reader runs it: a new interpreter, from the repository's root."""
    from fieldguide.executors import child_env

    with tempfile.TemporaryDirectory(prefix="fidelity-") as tmp:
        if "TORCH_TRACE" in env:  # a reader's trace directory, here a private one (as the engine does)
            env = {**env, "TORCH_TRACE": f"{tmp}/trace"}
        start = time.monotonic()
        proc = subprocess.run(
            [sys.executable, path],
            cwd=ROOT,
            env=child_env(env),
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
    return {
        "exit_code": proc.returncode,
        "events": [("out", proc.stdout), ("err", proc.stderr)],
        "seconds": time.monotonic() - start,
    }


def site_jobs() -> list:
    """The jobs of today's pages, as collected from the files on disk (what a build runs)."""
    from fieldguide.measure import site_jobs as jobs

    return jobs(ROOT)


def run_key(job, snippets_dir: Path = ROOT / "snippets") -> str:
    """What a fresh run's output depends on, hashed (a fresh run has no engine: READER stands in)."""
    from fieldguide.cache import Toolchain, cache_key
    from fieldguide.collect import sources
    from fieldguide.execute import current_toolchain

    toolchain = current_toolchain()
    source, imports = sources(job.file, snippets_dir)
    return cache_key(source, imports, job.env, Toolchain(toolchain.torch, toolchain.python, READER), path=job.path)


def split(jobs: list, reference: dict, snippets_dir: Path = ROOT / "snippets") -> tuple[list, list]:
    """([(job, its committed run)] for the jobs the reference holds, [the jobs to run now])."""
    committed, todo = [], []
    for job in jobs:
        run = reference.get(run_key(job, snippets_dir))
        if run is None:
            todo.append(job)
        else:
            committed.append((job, run))
    return committed, todo


def load_reference(path: Path = REFERENCE) -> dict:
    """key -> committed run ({"path", "env", "exit_code", "events"}), events as this checkout and
    interpreter would have printed them ({} when there is no reference)."""
    from fieldguide.execute import from_portable

    try:
        data = json.loads(gzip.decompress(path.read_bytes()))
    except FileNotFoundError:
        return {}
    if data.get("schema") != SCHEMA:
        raise SystemExit(f"{path}: schema {data.get('schema')!r} is not {SCHEMA}; measure it again: nox -s fresh")
    return {
        key: {**run, "events": from_portable([tuple(e) for e in run["events"]])} for key, run in data["runs"].items()
    }


def portable(run: dict) -> dict:
    """A run as stored: no checkout's path, the interpreter's installation as a placeholder."""
    from fieldguide.execute import to_portable

    return {"exit_code": run["exit_code"], "events": [list(e) for e in to_portable(run["events"], ROOT)]}


def write_reference(runs: dict, path: Path = REFERENCE) -> None:
    """key -> {"path", "env", "exit_code", "events"} (portable), written byte-identically for the
    same runs (no timestamp in the gzip header, keys sorted), so an unchanged run is no diff."""
    from fieldguide.execute import current_toolchain

    toolchain = current_toolchain()
    data = {
        "schema": SCHEMA,
        "what": "python snippets/...py from the repository's root, one new interpreter each (tests/fresh.py)",
        "torch": toolchain.torch,
        "python": toolchain.python,
        "runs": runs,
    }
    text = json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    path.write_bytes(gzip.compress(text.encode("utf-8"), mtime=0))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python tests/fresh.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--all", action="store_true", help="measure every run again, not only the missing ones")
    parser.add_argument("--check", action="store_true", help="measure nothing; exit 1 when a run is missing")
    parser.add_argument("--jobs", type=int, default=0, help="runs at once (default: one per core)")
    args = parser.parse_args(argv)
    import os

    jobs = site_jobs()
    keys = {run_key(job): job for job in jobs}
    try:
        with gzip.open(REFERENCE, "rt", encoding="utf-8") as f:
            stored = json.load(f)["runs"]
    except FileNotFoundError:
        stored = {}
    todo = [(key, job) for key, job in keys.items() if args.all or key not in stored]
    rel = REFERENCE.relative_to(ROOT)
    if args.check:
        for _, job in todo:
            print(f"missing: {job.display_path} {job.env or ''}".rstrip())
        print(f"{rel}: {len(keys) - len(todo)} of {len(keys)} runs current")
        return 1 if todo else 0
    runs = {key: stored[key] for key in keys if key in stored and not args.all}
    workers = args.jobs or os.cpu_count() or 1
    print(f"{rel}: measuring {len(todo)} of {len(keys)} runs, {workers} at once", flush=True)
    started = time.monotonic()

    def measure(item):
        key, job = item
        return key, job, fresh_run(job.display_path, dict(job.env))

    with ThreadPoolExecutor(workers) as pool:
        for n, (key, job, run) in enumerate(pool.map(measure, todo), 1):
            runs[key] = {"path": job.display_path, "env": dict(job.env), **portable(run)}
            status = "" if run["exit_code"] == 0 else f", exit {run['exit_code']}"
            print(f"[{n}/{len(todo)}] {job.display_path} {job.env or ''} {run['seconds']:.1f} s{status}", flush=True)
    write_reference(runs)
    dropped = len(stored) - len(set(stored) & set(keys))
    print(
        f"{rel}: {len(runs)} runs ({len(todo)} measured in {time.monotonic() - started:.0f} s"
        f"{f', {dropped} no longer used dropped' if dropped else ''})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
