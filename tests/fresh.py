"""A reader's fresh runs of the site's snippets, the side the fidelity test compares the build with.

A fresh run is `python snippets/...py` from the repository's root, one new interpreter each, with
the environment a snippet gets (`child_env`: a fixed base plus its fence's variables). Nothing of
the engine runs in it: two pipes, no capture, no namespace.

Each run costs a torch import (about 3.5 s of CPU here, five minutes for the site), so the runs
under the default torch are measured once and committed (`REFERENCE`), each under the key of what
its output depends on: the snippet's source and the local modules it imports, its environment,
torch and Python (the engine's cache key material), and in place of the engine's version, how the
run is made (`fresh_run`, `child_env`), the platform and the versions of torch's dependencies
(`reader_material`). The fidelity test takes a run from there while its key is current, and runs
the others itself. Measuring a run again never makes the test pass wrongly: it is a reader's run.

Not in the key: a data file a snippet reads (the engine's cache checks those at run time; these
runs are not watched). After changing one, measure its readers again (`--all`).

    python tests/fresh.py            # measure the runs whose key is not in the reference (nox -s fresh)
    python tests/fresh.py --all      # measure every run again
    python tests/fresh.py --check    # exit 1 when a run of today's snippets is missing
"""

from __future__ import annotations

import argparse
import functools
import gzip
import hashlib
import inspect
import json
import platform
import re
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "tests" / "fixtures" / "fresh-runs.json.gz"
SCHEMA = 1


def fresh_run(path: str, env: dict[str, str]) -> dict:
    """One snippet run as a reader runs it: a new interpreter, from the repository's root."""
    from fieldguide.run.executors import child_env

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
    from fieldguide.guide.jobs import site_jobs as jobs

    return jobs(ROOT)


@functools.lru_cache(maxsize=1)
def reader() -> str:
    """reader_material(), hashed: it stands in the key where the engine's version would be."""
    return hashlib.sha256(json.dumps(reader_material(), sort_keys=True).encode()).hexdigest()


def reader_material() -> dict:
    """What a fresh run depends on besides its snippet, its environment, torch and Python (the
    parts of the key the engine's cache also has): how it is run (this file's `fresh_run` and the
    fixed environment `child_env` gives every snippet), the platform, and the versions of torch's
    dependencies, theirs, and numpy."""
    from importlib import metadata

    from fieldguide.run.executors import base

    versions: dict[str, str | None] = {}
    todo = ["torch", "numpy"]
    while todo:
        name = re.sub(r"[-_.]+", "-", todo.pop()).lower()
        if name in versions:
            continue
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
            continue
        versions[name] = dist.version
        todo += [re.split(r"[\s;<>=!~\[(]", r, maxsplit=1)[0] for r in dist.requires or [] if "extra ==" not in r]
    return {
        "run": inspect.getsource(fresh_run),
        "env": inspect.getsource(base.child_env),
        "platform": [platform.system(), platform.machine()],
        "versions": sorted(versions.items()),
    }


def run_key(job, snippets_dir: Path = ROOT / "snippets") -> str:
    """What a fresh run's output depends on, hashed: the engine's cache key of the job, with
    `reader()` where the engine's version would be (a fresh run does not go through the engine)."""
    from fieldguide.run.cache import Toolchain
    from fieldguide.run.execute import current_toolchain, job_key

    toolchain = current_toolchain()
    return job_key(job, snippets_dir, Toolchain(toolchain.torch, toolchain.python, reader(), toolchain.build))


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


def _stored(path: Path) -> dict:
    """The reference as stored ({} when there is none)."""
    try:
        data = json.loads(gzip.decompress(path.read_bytes()))
    except FileNotFoundError:
        return {}
    if data.get("schema") != SCHEMA:
        raise SystemExit(
            f"{path}: schema {data.get('schema')!r} is not {SCHEMA}; measure it again: nox -s fresh -- --all"
        )
    return data["runs"]


def load_reference(path: Path = REFERENCE) -> dict:
    """key -> committed run ({"path", "env", "exit_code", "events"}), its output as this checkout
    and interpreter would have printed it."""
    marks = _places()
    out = {}
    for key, run in _stored(path).items():
        events = []
        for stream, text in run["events"]:
            for place, mark in marks:
                text = text.replace(mark, place)
            events.append((stream, text))
        out[key] = {**run, "events": events}
    return out


def portable(run: dict) -> dict:
    """A run as stored: the checkout's path and the interpreter's installation as placeholders,
    which load_reference() gives back as this machine's (a run reads as if it had run here)."""
    events = []
    for stream, text in run["events"]:
        for place, mark in _places():
            text = text.replace(place, mark)
        events.append([stream, text])
    return {"exit_code": run["exit_code"], "events": events}


def _places() -> list[tuple[str, str]]:
    """(path on this machine, its placeholder), longest first (the checkout may hold the interpreter)."""
    places = {str(ROOT): "\x00root\x00", sys.prefix: "\x00prefix\x00", sys.base_prefix: "\x00base_prefix\x00"}
    return sorted(places.items(), key=lambda pm: -len(pm[0]))


def write_reference(runs: dict, path: Path = REFERENCE) -> None:
    """key -> {"path", "env", "exit_code", "events"} (portable), written byte-identically for the
    same runs (no timestamp in the gzip header, keys sorted), so an unchanged run is no diff."""
    from fieldguide.run.execute import current_toolchain

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
    stored = _stored(REFERENCE)
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
