"""Publish: the guide once per measured torch release, laid out for mkdocs-material's version selector.

    python -m fieldguide.site.publish [--out public] [--release X.Y.Z ...] [--record X.Y.Z=PATH] [--jobs N]

`nox -s publish` runs this. Each release of records/releases.toml that has a committed record
(records/torch-X.Y.Z.json.gz) is rendered from that record (FIELDGUIDE_REPLAY: nothing executes,
no torch needed); the default release is built live, as `nox -s docs` builds it. The tree is the
one mike deploys:

    public/
      versions.json        [{"version": "2.15.0", "title": "torch 2.15.0", "aliases": ["latest"]}, ...]
      index.html           to the reader's last chosen release, else the newest
      404.html             the newest copy's not-found page, for any missing address of the tree
      latest/...           redirects to the newest release, page for page (mike's alias layout)
      2.15.0/ 2.14.1/ ...  one complete copy of the site each

Copies are built by --jobs worker processes (default: one per core), each building its share one
after another in one Python process (MkDocs, the theme and the plugins imported once, not once
per copy); identical files across copies (the theme's assets, the downloads) are hard-linked, so
the tree costs little more disk than one copy.
"""

from __future__ import annotations

import argparse
import hashlib
import html
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from packaging.version import InvalidVersion, Version

from . import notfound

QUIET = {"NO_MKDOCS_2_WARNING": "1", "DISABLE_MKDOCS_2_WARNING": "true"}
LATEST = "latest"


@dataclass
class Copy:
    release: str
    record: Path | None  # None: the live build of the default release

    @property
    def live(self) -> bool:
        return self.record is None


def version_key(release: str) -> tuple:
    """Release numbers in order (2.16.0rc1 before 2.16.0; one that is not a version number last)."""
    try:
        return (0, Version(release))
    except InvalidVersion:
        return (1, release)


def read_releases(root: Path) -> tuple[str, list[str]]:
    data = tomllib.loads((root / "records" / "releases.toml").read_text(encoding="utf-8"))
    return data["default"], list(data["releases"])


def record_path(root: Path, release: str) -> Path:
    return root / "records" / f"torch-{release}.json.gz"


def plan(
    root: Path, wanted: list[str] | None, records: dict[str, Path], *, live: bool = True
) -> tuple[list[Copy], list[str]]:
    """The copies to build, and the releases skipped for want of a record."""
    default, releases = read_releases(root)
    if live and default not in releases:  # a torch bump to a release not recorded yet: its live copy too
        releases = sorted([*releases, default], key=version_key)
    chosen = wanted or releases
    unknown = [r for r in chosen if r not in releases]
    if unknown:
        raise SystemExit(f"publish: not in records/releases.toml: {', '.join(unknown)}")
    copies, skipped = [], []
    for release in chosen:
        if release == default and live:
            copies.append(Copy(release, None))
            continue
        path = records.get(release) or record_path(root, release)
        if path.exists():
            copies.append(Copy(release, path.resolve()))
        else:
            skipped.append(release)
    copies.sort(key=lambda c: version_key(c.release), reverse=True)
    copies.sort(key=lambda c: not c.live)  # the live build starts first (newest first after it)
    return copies, skipped


def build_batch(root: Path, batch: list[Copy], out: Path, scratch: Path, python: str = sys.executable) -> list[dict]:
    """Build some copies one after another in one process: MkDocs, the theme and the plugins are
    imported once per batch, not once per copy (most of a replayed copy's cost)."""
    spec = scratch / f"batch-{batch[0].release}.json"
    spec.write_text(json.dumps([{"release": c.release, "record": str(c.record) if c.record else None} for c in batch]))
    proc = subprocess.run(
        [python, "-m", "fieldguide.site.publish", "--batch", str(spec), "--out", str(out), "--scratch", str(scratch)],
        cwd=root,
        env={**os.environ, **QUIET},
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        raise SystemExit(
            f"publish: building {', '.join(c.release for c in batch)} failed:\n{(proc.stdout + proc.stderr)[-4000:]}"
        )
    return [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]


def run_batch(root: Path, spec: Path, out: Path, scratch: Path) -> int:
    """The worker side of build_batch: MkDocs builds in this process, one per copy."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    try:  # markdown-exec keeps each session's globals between builds; every copy starts afresh
        from markdown_exec._internal.formatters.python import _sessions_globals
    except ImportError:  # pragma: no cover - another markdown-exec layout
        _sessions_globals = {}
    from ..run import settings as fg_settings

    live_cache = fg_settings.load(root).cache_dir  # the caller's cache (FIELDGUIDE_CACHE_DIR included)
    fg_settings.drop_overrides(
        "FIELDGUIDE_REPLAY", "FIELDGUIDE_CACHE_DIR", "FIELDGUIDE_PUBLISH"
    )  # each copy's own, below
    for item in json.loads(spec.read_text()):
        release, rec = item["release"], item["record"]
        _sessions_globals.clear()
        start = time.perf_counter()
        config = load_config(config_file=str(root / "mkdocs.yml"), site_dir=str(out / release), strict=True)
        options = config.plugins["fieldguide"].config
        options["publish"] = True  # the release selector in the header (see plugin.on_config)
        # a replay executes nothing; a scratch of its own keeps copies from sharing generated files
        options["replay"] = rec or ""
        options["cache_dir"] = str(scratch / release) if rec else str(live_cache)
        config.plugins.on_startup(command="build", dirty=False)
        try:
            build(config)
        except Exception as exc:  # noqa: BLE001 - reported with the release it belongs to
            print(f"publish: torch {release}: {type(exc).__name__}: {exc}", file=sys.stderr)
            return 1
        finally:
            config.plugins.on_shutdown()
        print(
            json.dumps({"release": release, "live": rec is None, "seconds": round(time.perf_counter() - start, 2)}),
            flush=True,
        )
    return 0


def batches(copies: list[Copy], jobs: int) -> list[list[Copy]]:
    """Copies dealt round-robin to `jobs` workers; the live build (slowest) is dealt first."""
    out = [copies[i::jobs] for i in range(jobs)]
    return [b for b in out if b]


def versions_json(releases: list[str]) -> list[dict]:
    """mike's versions.json: newest first, the newest aliased `latest`."""
    ordered = sorted(releases, key=version_key, reverse=True)
    return [{"version": r, "title": f"torch {r}", "aliases": [LATEST] if i == 0 else []} for i, r in enumerate(ordered)]


REDIRECT = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Redirecting</title>
<noscript><meta http-equiv="refresh" content="0; url={url}"></noscript>
<script>location.replace("{url}" + location.search + location.hash);</script>
</head><body><p><a href="{url}">{text}</a></p></body></html>
"""

ROOT_INDEX = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>The torch.compile field guide</title>
<noscript><meta http-equiv="refresh" content="0; url={newest}/"></noscript>
<script>
(function () {{
  var versions = {versions};
  var chosen = null;
  try {{ chosen = localStorage.getItem("fieldguide.release"); }} catch (e) {{}}
  var target = versions.indexOf(chosen) >= 0 ? chosen : "{newest}";
  location.replace(target + "/" + location.search + location.hash);
}})();
</script>
</head><body><p><a href="{newest}/">The guide on torch {newest}</a></p></body></html>
"""


def write_aliases(out: Path, newest: str) -> int:
    """latest/<page> redirects to <newest>/<page>, as mike's redirect aliases do."""
    alias = out / LATEST
    shutil.rmtree(alias, ignore_errors=True)
    n = 0
    for page in sorted((out / newest).rglob("index.html")):
        rel = page.parent.relative_to(out / newest)
        depth = len(rel.parts) + 1
        url = "../" * depth + newest + "/" + (rel.as_posix() + "/" if rel.parts else "")
        target = alias / rel / "index.html"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(REDIRECT.format(url=html.escape(url), text=f"torch {newest}"), encoding="utf-8")
        n += 1
    return n


def link_duplicates(out: Path, releases: list[str]) -> int:
    """Hard-link files that are byte-identical across copies (theme assets, downloads): bytes saved."""
    seen: dict[tuple[int, str], Path] = {}
    saved = 0
    for release in releases:
        for path in sorted((out / release).rglob("*")):
            if not path.is_file() or path.is_symlink():
                continue
            size = path.stat().st_size
            if size < 4096:
                continue
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
            first = seen.setdefault((size, digest), path)
            if first is not path and not first.samefile(path):
                tmp = path.with_name(path.name + ".link")
                os.link(first, tmp)
                os.replace(tmp, path)
                saved += size
    return saved


def publish(
    root: Path, out: Path, copies: list[Copy], *, jobs: int | None = None, python: str = sys.executable
) -> dict:
    out.mkdir(parents=True, exist_ok=True)
    for copy in copies:
        shutil.rmtree(out / copy.release, ignore_errors=True)
    jobs = jobs or os.cpu_count() or 1
    start = time.perf_counter()
    work = batches(copies, jobs)
    with tempfile.TemporaryDirectory(prefix="fieldguide-publish-") as scratch, ThreadPoolExecutor(len(work)) as pool:
        built = [c for done in pool.map(lambda b: build_batch(root, b, out, Path(scratch), python), work) for c in done]
    releases = [c.release for c in copies]
    versions = versions_json(releases)
    (out / "versions.json").write_text(json.dumps(versions, indent=1) + "\n", encoding="utf-8")
    newest = versions[0]["version"]
    aliases = write_aliases(out, newest)
    (out / "index.html").write_text(
        ROOT_INDEX.format(newest=newest, versions=json.dumps([v["version"] for v in versions])), encoding="utf-8"
    )
    # GitHub Pages answers a missing address with the root's 404.html only: the newest copy's,
    # which leads to the newest release's pages and to the same address there
    (out / "404.html").write_text(
        notfound.tree_page(
            (out / newest / "404.html").read_text(encoding="utf-8"),
            newest=newest,
            releases=[v["version"] for v in versions],
            aliases=[LATEST],
        ),
        encoding="utf-8",
    )
    (out / ".nojekyll").write_text("")  # GitHub Pages: serve the tree as it is
    saved = link_duplicates(out, releases)
    return {
        "copies": built,
        "newest": newest,
        "alias_pages": aliases,
        "linked_mb": round(saved / 2**20, 1),
        "seconds": round(time.perf_counter() - start, 2),
    }


def _record_arg(text: str) -> tuple[str, Path]:
    release, sep, path = text.partition("=")
    if not sep or not path:
        raise argparse.ArgumentTypeError(f"--record wants RELEASE=PATH, not {text!r}")
    return release, Path(path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="nox -s publish --", description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path("public"), help="where the tree goes (default: public/)")
    parser.add_argument(
        "--release",
        action="append",
        dest="releases",
        metavar="X.Y.Z",
        help="publish only these releases (repeatable; default: every release with a record)",
    )
    parser.add_argument(
        "--record",
        action="append",
        type=_record_arg,
        default=[],
        metavar="X.Y.Z=PATH",
        help="render this release from another record than records/torch-X.Y.Z.json.gz",
    )
    parser.add_argument("--no-live", action="store_true", help="render the default release from its record too")
    parser.add_argument("--jobs", type=int, default=0, help="copies built at once (default: one per core)")
    parser.add_argument("--json", type=Path, help="also write a summary (timings) here")
    parser.add_argument("--batch", type=Path, help=argparse.SUPPRESS)  # worker: build the copies listed here
    parser.add_argument("--scratch", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    root = Path.cwd()
    if args.batch:
        return run_batch(root, args.batch, args.out.resolve(), args.scratch)
    copies, skipped = plan(root, args.releases, dict(args.record), live=not args.no_live)
    for release in skipped:
        print(
            f"publish: torch {release}: no record ({record_path(root, release).relative_to(root)}); "
            f"skipped (`nox -s matrix -- {release}` measures it)",
            file=sys.stderr,
        )
    if not copies:
        raise SystemExit("publish: nothing to publish")
    print(
        f"publish: {len(copies)} copies ({', '.join(c.release + (' live' if c.live else '') for c in copies)}) -> {args.out}/",
        file=sys.stderr,
        flush=True,
    )
    summary = publish(root, args.out.resolve(), copies, jobs=args.jobs or None)
    summary["skipped"] = skipped
    for c in summary["copies"]:
        print(f"publish: torch {c['release']}{' (live)' if c['live'] else ''}: {c['seconds']} s", file=sys.stderr)
    print(
        f"publish: wrote {args.out}/ in {summary['seconds']} s (newest: {summary['newest']}, aliased {LATEST}; "
        f"{summary['linked_mb']} MB shared between copies)",
        file=sys.stderr,
    )
    if args.json:
        args.json.write_text(json.dumps(summary, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
