"""Every workflow of the field guide.

    nox -s docs                      build site/ against the default torch
    nox -s docs -- --torch 2.14.1    build it against another torch release
    nox -s docs -- --refresh         run every snippet again, ignoring the cache
    nox -s docs -- --base OLD.json   also render "What changed" against an older record
    nox -s serve                     serve with live reload (re-executes only what changed)
    nox -s tests                     the test suite
    nox -s lint                      ruff check and ruff format --check (config in pyproject.toml)
    nox -s bench                     build-speed benchmark
    nox -s diff -- OLD NEW           compare two record.json files
    nox -s upgrade -- 2.14.1         build against another torch and diff it against the default
    nox -s publish                   the published site: one copy per measured release (public/)
    nox -s cache -- info|prune|clear inspect, prune or clear the execution cache

Each torch release gets its own environment under .nox/torch-<version>, made once and reused.
"""

from __future__ import annotations

import argparse
import hashlib
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import nox

ROOT = Path(__file__).resolve().parent
RELEASES_FILE = ROOT / "records" / "releases.toml"
OLDEST_SUPPORTED = (2, 2)
nox.options.sessions = ["docs"]
nox.options.default_venv_backend = "none"
QUIET_ENV = {"NO_MKDOCS_2_WARNING": "1", "DISABLE_MKDOCS_2_WARNING": "true"}


def _releases() -> tuple[str, list[str]]:
    """(default release, every measured release) from records/releases.toml."""
    data = tomllib.loads(RELEASES_FILE.read_text(encoding="utf-8"))
    return data["default"], list(data["releases"])


DEFAULT_TORCH, RELEASES = _releases()


def _parse_version(text: str) -> tuple[int, ...]:
    if not re.fullmatch(r"\d+\.\d+\.\d+", text):
        raise ValueError(f"--torch {text!r} is not a release number like {DEFAULT_TORCH}")
    return tuple(int(p) for p in text.split("."))


def check_torch_version(session: nox.Session, version: str) -> None:
    """Fail with a clear message, before anything is built, on a malformed or unlisted release."""
    try:
        parsed = _parse_version(version)
    except ValueError as exc:
        session.error(str(exc))
    if parsed[:2] < OLDEST_SUPPORTED:
        session.error(f"torch {version} is older than the oldest release this guide supports (2.2)")
    if version not in RELEASES:
        session.error(
            f"torch {version} is not one of the releases this guide measures ({', '.join(RELEASES)}); "
            f"to add it, list it in {RELEASES_FILE.relative_to(ROOT)} and run `nox -s matrix -- {version}`"
        )


def _numpy_spec(version: str) -> str:
    # torch before 2.4 was built against NumPy 1.x: with NumPy 2 it warns on import
    return "numpy<2" if _parse_version(version)[:2] < (2, 4) else "numpy"


def torch_python(
    session: nox.Session, version: str, *, extras: str = "[test]", env: dict | None = None, use_uv: bool = False
) -> str:
    """The interpreter of the environment for one torch release, made (or refreshed) on demand."""
    check_torch_version(session, version)
    venv = venv_dir(version)
    python = venv / "bin" / "python"
    stamp = venv / "fieldguide.stamp"
    want = hashlib.sha256((ROOT / "pyproject.toml").read_bytes() + version.encode() + extras.encode()).hexdigest()
    if stamp.exists() and stamp.read_text() == want and python.exists():
        return str(python)
    if not python.exists():
        session.log(f"creating the environment for torch {version} in {venv.relative_to(ROOT)}")
        session.run(sys.executable, "-m", "venv", str(venv), external=True)
    wanted = [f"torch=={version}", _numpy_spec(version), "-e", f"{ROOT}{extras}"]
    if use_uv:  # one shared download cache, environments hard-linked from it: minutes and little disk a release
        session.run("uv", "pip", "install", "-q", "--python", str(python), *wanted, external=True, env=env)
    else:
        session.run(
            str(python), "-m", "pip", "install", "--disable-pip-version-check", "-q", *wanted, external=True, env=env
        )
    stamp.write_text(want)
    return str(python)


def venv_dir(version: str) -> Path:
    return ROOT / ".nox" / f"torch-{version}"


def _parse(session: nox.Session, parser: argparse.ArgumentParser, known_only: bool = False):
    """Session arguments (after --) through argparse; a usage error ends the session with its message."""
    try:
        if known_only:
            return parser.parse_known_args(session.posargs)
        return parser.parse_args(session.posargs)
    except SystemExit as exc:
        if exc.code:
            session.error(f"{parser.prog}: bad arguments (see above)")
        raise


def _torch_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--torch", default=DEFAULT_TORCH, metavar="X.Y.Z", help=f"the torch release (default {DEFAULT_TORCH})"
    )


def build_site(session, python: str, site_dir: Path, *, refresh=False, base=None, extra_env=None, args=()):
    env = {**QUIET_ENV, "FIELDGUIDE_REFRESH": "1" if refresh else "0", **(extra_env or {})}
    if base:
        env["FIELDGUIDE_BASE_RECORD"] = str(Path(base).resolve())
    session.run(python, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site_dir), *args, env=env, external=True)


@nox.session
def docs(session: nox.Session) -> None:
    """Build the site: nox -s docs [-- --torch X.Y.Z] [--refresh] [--base OLD/record.json] [--site-dir DIR]"""
    parser = argparse.ArgumentParser(prog="nox -s docs --", description="Build the site into site/.")
    _torch_option(parser)
    parser.add_argument("--refresh", action="store_true", help="run every snippet again, ignoring the cache")
    parser.add_argument("--base", help="an older record.json to render 'What changed' against")
    parser.add_argument("--site-dir", default="site", help="where to build (default site/)")
    args, mkdocs_args = _parse(session, parser, known_only=True)  # the rest goes to mkdocs build
    python = torch_python(session, args.torch)
    site_dir = Path(args.site_dir)
    build_site(session, python, site_dir, refresh=args.refresh, base=args.base, args=mkdocs_args)
    session.log(f"built {site_dir}/ against torch {args.torch}; open {site_dir}/index.html or run `nox -s serve`")


@nox.session
def serve(session: nox.Session) -> None:
    """Serve with live reload: nox -s serve [-- --torch X.Y.Z] [--dev-addr HOST:PORT]"""
    parser = argparse.ArgumentParser(prog="nox -s serve --", description="Serve the site with live reload.")
    _torch_option(parser)
    parser.add_argument("--dev-addr", default=None, metavar="HOST:PORT", help="where to serve (default 127.0.0.1:8000)")
    args, mkdocs_args = _parse(session, parser, known_only=True)
    python = torch_python(session, args.torch)
    addr = ["--dev-addr", args.dev_addr] if args.dev_addr else []
    session.run(python, "-m", "mkdocs", "serve", "--strict", *addr, *mkdocs_args, env=QUIET_ENV, external=True)


@nox.session
def tests(session: nox.Session) -> None:
    """The test suite, against the default torch: nox -s tests [-- PYTEST ARGS]"""
    python = torch_python(session, DEFAULT_TORCH)
    # one xdist worker per core, taking the tests in the order tests/conftest.py gives them
    # (its pytest_xdist_make_scheduler); `-- -n 0` runs them in one process. Tests that run nox
    # run it with the interpreter running this session (`python3 -m nox` needs no nox on PATH).
    env = {**QUIET_ENV, "FIELDGUIDE_NOX_PYTHON": sys.executable}
    session.run(python, "-m", "pytest", "-n", "auto", *session.posargs, env=env, external=True)


@nox.session
def fresh(session: nox.Session) -> None:
    """A reader's fresh runs for the fidelity test: nox -s fresh [-- --all | --check]"""
    python = torch_python(session, DEFAULT_TORCH)
    session.run(python, "tests/fresh.py", *session.posargs, env=QUIET_ENV, external=True)


@nox.session(venv_backend="venv")
def lint(session: nox.Session) -> None:
    """ruff check and ruff format --check over the code, the tests and the snippets: nox -s lint [-- --fix]"""
    session.install("--disable-pip-version-check", "-q", "ruff==0.17.6")
    fix = "--fix" in session.posargs
    session.run("ruff", "check", *(["--fix"] if fix else []), ".")
    session.run("ruff", "format", *([] if fix else ["--check"]), ".")


@nox.session
def bench(session: nox.Session) -> None:
    """Build-speed benchmark (cold, warm, nothing changed, one snippet changed; seconds and peak RSS)."""
    python = torch_python(session, DEFAULT_TORCH)
    session.run(python, "-m", "fieldguide.tools.bench", *session.posargs, env=QUIET_ENV, external=True)


@nox.session
def diff(session: nox.Session) -> None:
    """Compare two builds: nox -s diff -- OLD NEW [--html OUT] [--fail-on-change]; OLD and NEW are record.json
    files, site folders, or measured releases (nox -s diff -- 2.5.1 2.9.1 compares their committed records)."""
    python = torch_python(session, DEFAULT_TORCH)
    args = [str(record_path(a)) if a in RELEASES else a for a in session.posargs]
    for a, given in zip(args, session.posargs, strict=True):
        if given in RELEASES and not Path(a).exists():
            session.error(f"torch {given} has no committed record yet: measure it with `nox -s matrix -- {given}`")
    session.run(python, "-m", "fieldguide.tools.diff", *args, external=True)


@nox.session
def review(session: nox.Session) -> None:
    """One release's explanations for an audit: nox -s review -- RELEASE [--record FILE] [--out FILE]
    writes build/review/torch-RELEASE.md (each explain block's outcome, its text and its evidence)."""
    if not session.posargs:
        session.error(f"name a release: nox -s review -- {DEFAULT_TORCH} (listed: {', '.join(RELEASES)})")
    python = torch_python(session, DEFAULT_TORCH)
    session.run(python, "-m", "fieldguide.tools.review", *session.posargs, external=True)


@nox.session
def upgrade(session: nox.Session) -> None:
    """Build against another torch and report what changed: nox -s upgrade -- 2.14.1 [--refresh]"""
    parser = argparse.ArgumentParser(prog="nox -s upgrade --", description="Build against another torch and diff it.")
    parser.add_argument("release", metavar="X.Y.Z", help="the torch release to compare with the default")
    parser.add_argument("--refresh", action="store_true", help="run every snippet again, ignoring the cache")
    args = _parse(session, parser)
    new, refresh = args.release, args.refresh
    check_torch_version(session, new)
    out = ROOT / "build" / "upgrade"
    base_site, new_site = out / f"torch-{DEFAULT_TORCH}", out / f"torch-{new}"
    build_site(session, torch_python(session, DEFAULT_TORCH), base_site, refresh=refresh)
    build_site(session, torch_python(session, new), new_site, refresh=refresh, base=base_site / "record.json")
    report = out / f"diff-{DEFAULT_TORCH}-to-{new}"
    session.run(
        torch_python(session, DEFAULT_TORCH),
        "-m",
        "fieldguide.tools.diff",
        str(base_site / "record.json"),
        str(new_site / "record.json"),
        "--html",
        f"{report}.html",
        "--markdown",
        f"{report}.md",
        external=True,
    )
    session.log(f"report: {report}.md and {report}.html; site built against {new}: {new_site}/")


@nox.session
def cache(session: nox.Session) -> None:
    """Inspect or clear the execution cache: nox -s cache -- info | prune [--max-mb N] [--older-than DAYS] | clear"""
    python = torch_python(session, DEFAULT_TORCH)
    session.run(python, "-m", "fieldguide.run.cache", *(session.posargs or ["info"]), external=True)


MATRIX_PIP_CACHE = ROOT / ".nox" / "pip-cache"


def record_path(version: str) -> Path:
    return ROOT / "records" / f"torch-{version}.json.gz"


@nox.session
def matrix(session: nox.Session) -> None:
    """Measure releases into records/: nox -s matrix [-- X.Y.Z ...] [--refresh] [--discard [--keep-downloads]]"""
    parser = argparse.ArgumentParser(prog="nox -s matrix --", description="Measure every snippet under each release.")
    parser.add_argument("releases", nargs="*", help=f"releases to measure (default: all of {RELEASES_FILE.name})")
    parser.add_argument("--refresh", action="store_true", help="measure again even where the record is up to date")
    parser.add_argument(
        "--discard", action="store_true", help="remove each release's environment and downloads after measuring it"
    )
    parser.add_argument("--keep-downloads", action="store_true", help="with --discard: keep pip's download cache")
    parser.add_argument("--pip", action="store_true", help="install with pip even where uv is available")
    parser.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="GLOB",
        help="measure again only snippets matching this path glob (plus stale ones); keep the rest",
    )
    args = parser.parse_args(session.posargs)
    wanted = args.releases or RELEASES
    for version in wanted:
        check_torch_version(session, version)
    pip_env = {"PIP_CACHE_DIR": str(MATRIX_PIP_CACHE)}
    use_uv = shutil.which("uv") is not None and not args.pip
    if use_uv:
        session.log("installing releases with uv (its cache is shared; --pip installs with pip instead)")
    done, skipped, failed = [], [], []
    for n, version in enumerate(wanted, 1):
        out = record_path(version)
        session.log(f"[{n}/{len(wanted)}] torch {version} -> {out.relative_to(ROOT)}")
        # Any environment that has fieldguide can tell whether the record is current (no torch is run).
        checker = next(
            (p for p in (venv_dir(v) / "bin" / "python" for v in (version, DEFAULT_TORCH)) if p.exists()), None
        )
        if not args.refresh and not args.only and out.exists() and checker:
            check = subprocess.run(
                [str(checker), "-m", "fieldguide.tools.measure", str(out), "--check"],
                cwd=ROOT,
                capture_output=True,
                text=True,
            )
            if check.returncode == 0:
                session.log(f"[{n}/{len(wanted)}] torch {version}: up to date, skipped (--refresh measures it again)")
                skipped.append(version)
                continue
            session.log(check.stdout.strip())
        try:
            if version == DEFAULT_TORCH:  # the default build's own environment, as tests and CI use it
                python = torch_python(session, version)
            else:
                python = torch_python(session, version, extras="", env=pip_env, use_uv=use_uv)
            cmd = [python, "-m", "fieldguide.tools.measure", str(out)] + (["--refresh"] if args.refresh else [])
            cmd += [a for glob in args.only for a in ("--only", glob)]
            session.run(*cmd, env=QUIET_ENV, external=True)
            done.append(version)
        except nox.command.CommandFailed as exc:
            session.warn(f"torch {version}: not measured ({exc.reason or 'install or measurement failed'}); going on")
            failed.append(version)
        finally:
            if args.discard and version != DEFAULT_TORCH:
                shutil.rmtree(venv_dir(version), ignore_errors=True)
                if not args.keep_downloads:
                    shutil.rmtree(MATRIX_PIP_CACHE, ignore_errors=True)
    session.log(
        f"measured: {', '.join(done) or '-'}; up to date: {', '.join(skipped) or '-'}; failed: {', '.join(failed) or '-'}"
    )
    if failed:
        hint = " (for a release above this machine's pip cap, run that one with PIP_CONSTRAINT=/dev/null)"
        session.error(f"{len(failed)} release(s) not measured: {', '.join(failed)}{hint}")


@nox.session
def publish(session: nox.Session) -> None:
    """The published site, one copy per measured release: nox -s publish [-- --out DIR] [--release X.Y.Z ...]"""
    parser = argparse.ArgumentParser(
        prog="nox -s publish --", description="Build one copy of the guide per measured release."
    )
    parser.add_argument("--out", default="public", help="where the tree goes (default: public/)")
    parser.add_argument(
        "--release", action="append", default=[], metavar="X.Y.Z", help="only these releases (repeatable)"
    )
    parser.add_argument(
        "--record", action="append", default=[], metavar="X.Y.Z=PATH", help="render a release from this record"
    )
    parser.add_argument("--jobs", type=int, default=0, help="copies built at once (default: one per core)")
    args = parser.parse_args(session.posargs)
    for version in args.release:
        check_torch_version(session, version)
    # Only the default release executes (live, in its own environment); every other copy is
    # rendered from its committed record, which needs no torch of its own.
    python = torch_python(session, DEFAULT_TORCH)
    cmd = [python, "-m", "fieldguide.site.publish", "--out", args.out]
    cmd += [a for v in args.release for a in ("--release", v)] + [a for r in args.record for a in ("--record", r)]
    cmd += ["--jobs", str(args.jobs)] if args.jobs else []
    session.run(*cmd, env=QUIET_ENV, external=True)
    session.log(f"published {args.out}/; serve it with: python -m http.server -d {args.out} 8000")
