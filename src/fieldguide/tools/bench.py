"""Build-speed benchmark: `nox -s bench` (python -m fieldguide.tools.bench).

Runs, side by side on a copy of the site (the working tree is never touched):

  cold (warm executor)      every snippet executed, workers import torch once, children forked
  cold (fresh processes)    every snippet executed, one new interpreter each
  nothing changed           a rebuild where every result comes from the cache
  execution disabled        a build that replays the record: no cache, no execution
  one snippet changed       a rebuild after editing one snippet
  one copy per release      each measured release rendered from its record, one build after another
  publish                   `nox -s publish`'s whole multi-release tree (the default release live)
  serve: edit to page       under `mkdocs serve`, from saving a snippet to the served page
                            showing its new output (median of several edits; bench_serve.py),
                            quiet and with one busy process per core beside it

and prints seconds, peak memory (proportional set size of the whole process tree, so pages
shared by forked children count once) and the ratios the targets are stated in.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from . import bench_serve
from .bench_serve import TARGET_SECONDS, serve_latency

ROOT = Path.cwd()
TARGETS = {
    "cold": 0.35,
    "cold_seconds": 180.0,  # the default cold build (warm executor) on the 2-core build machine
    "unchanged": 1.2,
    "peak_gb": 3.0,
    "publish": 1.5,
    "serve": TARGET_SECONDS,
}


def added_since(days: int) -> dict[str, str]:
    """Snippet files first committed in the last `days` days: path -> date (empty without git history)."""
    try:
        out = subprocess.run(
            [
                "git",
                "log",
                "--diff-filter=A",
                f"--since={days} days ago",
                "--format=@%as",
                "--name-only",
                "--",
                "snippets",
            ],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return {}
    added, date = {}, ""
    for line in out.splitlines():
        if line.startswith("@"):
            date = line[1:]
        elif line.strip():
            added.setdefault(line.strip(), date)
    return added


def snippet_shares(record: Path, new: dict[str, str], top: int = 10) -> str:
    """Where a cold build's execution time goes: by folder, the slowest runs, and the newly added snippets.

    Seconds are each run's own wall time; runs overlap (one worker per core), so the shares are of the
    summed snippet time, not of the build's wall time."""
    runs = json.loads(record.read_text())["snippets"]
    total = sum(r["seconds"] for r in runs) or 1.0
    by_folder: dict[str, float] = {}
    for r in runs:
        folder = r["path"].split("/")[1] if r["path"].count("/") >= 2 else r["path"]
        by_folder[folder] = by_folder.get(folder, 0.0) + r["seconds"]

    def row(name: str, secs: float) -> str:
        return f"| {name} | {secs:.1f} | {100 * secs / total:.0f} % |"

    lines = [f"Snippet time in the cold build: {total:.0f} s summed over {len(runs)} runs.", ""]
    lines += ["| folder | seconds | share |", "|---|---:|---:|"]
    lines += [row(f, t) for f, t in sorted(by_folder.items(), key=lambda kv: -kv[1])]
    lines += ["", f"| the {top} slowest runs | seconds | share |", "|---|---:|---:|"]
    lines += [row(r["path"], r["seconds"]) for r in sorted(runs, key=lambda r: -r["seconds"])[:top]]
    fresh = [r for r in runs if r["path"] in new]
    if fresh:
        lines += ["", "| snippets added recently (first commit) | seconds | share |", "|---|---:|---:|"]
        lines += [
            row(f"{r['path']} ({new[r['path']]})", r["seconds"]) for r in sorted(fresh, key=lambda r: -r["seconds"])
        ]
        lines.append(row(f"all {len(fresh)} of them", sum(r["seconds"] for r in fresh)))
    return "\n".join(lines)


def _tree(pid: int) -> list[int]:
    pids, frontier = [pid], [pid]
    while frontier:
        nxt = []
        for p in frontier:
            for task in Path(f"/proc/{p}/task").glob("*") if Path(f"/proc/{p}/task").exists() else []:
                try:  # children are listed per thread: snippets are started from pool threads
                    nxt += [int(c) for c in (task / "children").read_text().split()]
                except OSError:
                    continue
        pids += nxt
        frontier = nxt
    return pids


def _pss_kb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def run_build(site: Path, out: Path, env: dict[str, str], command: list[str] | None = None) -> dict:
    full_env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "DISABLE_MKDOCS_2_WARNING": "true", **env}
    start = time.perf_counter()
    proc = subprocess.Popen(
        command or [sys.executable, "-m", "mkdocs", "build", "-q", "--site-dir", str(out)],
        cwd=site,
        env=full_env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    peak = 0
    stop = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not stop.is_set():
            peak = max(peak, sum(_pss_kb(p) for p in _tree(proc.pid)))
            stop.wait(0.25)  # PSS is costly to read; sampling faster slows the builds it measures

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    output, _ = proc.communicate()
    stop.set()
    sampler.join()
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"bench: a build failed ({env}):\n{output[-3000:]}")
    return {"seconds": round(seconds, 2), "peak_mb": round(peak / 1024), "log": output.strip().splitlines()[-1:]}


def serve_log() -> Path:
    """Where the serve measurement's `mkdocs serve` writes its output: kept after the run (its
    temporary site is not), so a failure can be read."""
    path = ROOT / "build" / "bench" / "serve.log"
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def copy_site(dest: Path) -> Path:
    for name in ("docs", "snippets", "overrides", "records"):  # records: the releases publish renders
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, dest / name)
    for name in ("mkdocs.yml", "README.md"):  # the contributor page includes the README
        shutil.copy(ROOT / name, dest / name)
    return dest


def publish_releases(site: Path, live_record: Path) -> list[tuple[str, Path]]:
    """What publish renders, each with the record a copy is rendered from (the default: this build's)."""
    from ..site.publish import plan

    copies, _ = plan(site, None, {}, live=True)
    return [(c.release, c.record or live_record) for c in copies]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=0, help="worker processes (default: one per core)")
    parser.add_argument("--json", help="also write the results here")
    parser.add_argument("--publish-only", action="store_true", help="only the publish build and its baseline")
    parser.add_argument("--serve-edits", type=int, default=5, help="edits timed under mkdocs serve (0: skip)")
    parser.add_argument("--only-serve", action="store_true", help="only the serve measurement")
    parser.add_argument(
        "--quiet-only", action="store_true", help="time the serve edits without the loaded run beside them"
    )
    parser.add_argument("--cache-from", help="with --only-serve: start from a copy of this (warm) execution cache")
    parser.add_argument(
        "--new-days", type=int, default=3, help="report the share of snippets first committed in this many days"
    )
    args = parser.parse_args(argv)
    workers = {"FIELDGUIDE_WORKERS": str(args.workers)} if args.workers else {}
    results = {}
    with tempfile.TemporaryDirectory(prefix="fieldguide-bench-") as tmp:
        site = copy_site(Path(tmp) / "site")
        cache = {"FIELDGUIDE_CACHE_DIR": str(Path(tmp) / "cache"), **workers}

        def step(name: str, **env: str) -> None:
            print(f"bench: {name} ...", file=sys.stderr, flush=True)
            results[name] = run_build(site, Path(tmp) / f"out-{len(results)}", {**cache, **env})

        if args.only_serve:
            if args.cache_from:
                shutil.copytree(args.cache_from, Path(tmp) / "cache", ignore=shutil.ignore_patterns("generated"))
            print("bench: serve: edit to page ...", file=sys.stderr, flush=True)
            serve = serve_latency(
                site,
                {**cache, "FIELDGUIDE_EXECUTOR": "warm"},
                args.serve_edits,
                serve_log(),
                loaded=not args.quiet_only,
            )
            print("\n".join(bench_serve.report_lines(serve)))
            print("targets met" if bench_serve.met(serve) else "targets NOT met", file=sys.stderr)
            return 0
        if not args.publish_only:
            step("cold, fresh processes", FIELDGUIDE_EXECUTOR="fresh", FIELDGUIDE_REFRESH="1")
        step("cold, warm executor", FIELDGUIDE_EXECUTOR="warm", FIELDGUIDE_REFRESH="1")
        record = Path(tmp) / f"out-{len(results) - 1}" / "record.json"
        n = len(json.loads(record.read_text())["snippets"])
        shares = snippet_shares(record, added_since(args.new_days))
        if not args.publish_only:
            step("nothing changed", FIELDGUIDE_EXECUTOR="warm")
            step("execution disabled", FIELDGUIDE_REPLAY=str(record))
            snippet = site / "snippets" / "guards" / "anatomy.py"
            original = snippet.read_text()
            snippet.write_text(original + "# edited by the benchmark\n")
            step("one snippet changed", FIELDGUIDE_EXECUTOR="warm")
            snippet.write_text(original)
        releases = publish_releases(site, record)
        print(f"bench: one copy per release ({len(releases)}) ...", file=sys.stderr, flush=True)
        copies = [
            run_build(site, Path(tmp) / "copies" / r, {**cache, "FIELDGUIDE_REPLAY": str(p)}) for r, p in releases
        ]
        results[f"one copy per release, from records ({len(releases)})"] = {
            "seconds": round(sum(c["seconds"] for c in copies), 2),
            "peak_mb": max(c["peak_mb"] for c in copies),
        }
        print("bench: publish ...", file=sys.stderr, flush=True)
        cmd = [sys.executable, "-m", "fieldguide.site.publish", "--out", str(Path(tmp) / "public")]
        results["publish (the whole tree)"] = run_build(site, Path(tmp) / "public", cache, cmd)
        serve = None
        if args.serve_edits and not args.publish_only:
            print("bench: serve: edit to page ...", file=sys.stderr, flush=True)
            serve = serve_latency(
                site,
                {**cache, "FIELDGUIDE_EXECUTOR": "warm"},
                args.serve_edits,
                serve_log(),
                loaded=not args.quiet_only,
            )
    baseline = results[f"one copy per release, from records ({len(releases)})"]["seconds"]
    publish = results["publish (the whole tree)"]["seconds"] / baseline
    peak = max(r["peak_mb"] for r in results.values()) / 1024
    lines = ["| build | seconds | peak memory (MB, PSS) |", "|---|---:|---:|"]
    lines += [f"| {name} | {r['seconds']:.2f} | {r['peak_mb']} |" for name, r in results.items()]
    lines += ["", "| ratio | measured | target |", "|---|---:|---:|"]
    ratios = {"publish": publish, "peak_gb": peak}
    met = publish <= TARGETS["publish"] and peak <= TARGETS["peak_gb"]
    if not args.publish_only:
        cold = results["cold, warm executor"]["seconds"] / results["cold, fresh processes"]["seconds"]
        unchanged = results["nothing changed"]["seconds"] / results["execution disabled"]["seconds"]
        ratios.update(cold=cold, unchanged=unchanged)
        met = met and cold <= TARGETS["cold"] and unchanged <= TARGETS["unchanged"]
    cold_seconds = results["cold, warm executor"]["seconds"]
    met = met and cold_seconds <= TARGETS["cold_seconds"]
    lines.append(f"| cold build, warm executor (seconds) | {cold_seconds:.0f} | ≤ {TARGETS['cold_seconds']:.0f} |")
    if not args.publish_only:
        lines += [
            f"| cold build, warm executor ÷ fresh processes | {cold:.2f} | ≤ {TARGETS['cold']} |",
            f"| nothing changed ÷ execution disabled | {unchanged:.2f} | ≤ {TARGETS['unchanged']} |",
        ]
    lines += [
        f"| publish ÷ one copy per release from its record | {publish:.2f} | ≤ {TARGETS['publish']} |",
        f"| peak memory of any build (GB) | {peak:.2f} | ≤ {TARGETS['peak_gb']} |",
    ]
    if serve:
        met = met and bench_serve.met(serve)
        lines += bench_serve.report_lines(serve)
    lines += [
        "",
        f"{os.cpu_count()} cores; workers: {args.workers or 'one per core'}; snippet runs per build: {n}; "
        f"releases published: {len(releases)}.",
    ]
    lines += ["", shares]
    report = "\n".join(lines)
    print(report)
    if args.json:
        Path(args.json).write_text(json.dumps({"results": results, "serve": serve, "ratios": ratios}, indent=1))
    print("targets met" if met else "targets NOT met", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
