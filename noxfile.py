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
import json
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
# The versions of torch's dependencies (and numpy) in the default environment: the committed fresh
# runs of the fidelity test are keyed on them, so a new release of one on the registry must not
# change them behind the fixture's back (the test would then run every snippet fresh again). One
# file per default release: a new default installs unpinned until its file is written.
DEFAULT_PINS = ROOT / "tests" / f"default-torch-deps-{DEFAULT_TORCH}.txt"


# A release as the package registry names it: 2.12.0, 2.16.0rc1, 2.16.0.dev20261201, 2.13.0+cpu
_RELEASE = re.compile(r"(\d+)\.(\d+)\.(\d+)(?:(?:a|b|rc)\d+)?(?:\.post\d+)?(?:\.dev\d+)?(?:\+[A-Za-z0-9.]+)?")
INSTALLED = "installed"


def _parse_version(text: str) -> tuple[int, ...]:
    m = _RELEASE.fullmatch(text)
    if not m:
        raise ValueError(
            f"--torch {text!r} is not a release number like {DEFAULT_TORCH}, a torch wheel (PATH.whl) "
            f"or `{INSTALLED}` (the torch of an existing environment)"
        )
    return tuple(int(p) for p in m.groups())


def _check_supported(session: nox.Session, version: str, where: str = "") -> None:
    try:
        parsed = _parse_version(version)
    except ValueError as exc:
        session.error(str(exc))
    if parsed[:2] < OLDEST_SUPPORTED:
        session.error(f"torch {version}{where} is older than the oldest release this guide supports (2.2)")


def _registry_versions(session: nox.Session) -> list[str] | None:
    """The torch versions the package registry offers (`pip index versions torch`), or None when
    it cannot be asked (then the install itself says whether the release exists)."""
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "pip", "index", "versions", "torch"], capture_output=True, text=True, timeout=120
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    m = re.search(r"^Available versions: (.*)$", proc.stdout, re.M)
    return [v.strip() for v in m.group(1).split(",")] if proc.returncode == 0 and m else None


def check_torch_version(session: nox.Session, version: str) -> None:
    """Fail with a clear message, before anything is built, on a malformed, unsupported or unavailable
    release. A release records/releases.toml does not list is built all the same (live, from its own
    runs), after a note that no committed record of it exists."""
    _check_supported(session, version)
    if version in RELEASES:
        return
    offered = _registry_versions(session)
    if offered is not None and version not in offered:
        near = [v for v in offered if v.split("+")[0].rsplit(".", 1)[0] == version.rsplit(".", 1)[0]]
        session.error(
            f"torch {version} is not on the package registry (`pip index versions torch`"
            + (f"; of {version.rsplit('.', 1)[0]}, it offers {', '.join(near)}" if near else "")
            + ")"
        )
    session.log(
        f"torch {version} is not one of the releases this guide records ({', '.join(RELEASES)}): the site is "
        "built from its own runs, and the explanations whose outcome no text covers are listed at the end of "
        f"the build and on its build report (to record it: `nox -s matrix -- {version}`)"
    )


def _numpy_spec(version: str) -> str:
    # torch before 2.4 was built against NumPy 1.x: with NumPy 2 it warns on import
    return "numpy<2" if _parse_version(version)[:2] < (2, 4) else "numpy"


def _install(session, python: Path, wanted: list[str], env: dict | None, use_uv: bool) -> None:
    if use_uv:  # one shared download cache, environments hard-linked from it: minutes and little disk a release
        session.run("uv", "pip", "install", "-q", "--python", str(python), *wanted, external=True, env=env)
    else:
        session.run(
            str(python), "-m", "pip", "install", "--disable-pip-version-check", "-q", *wanted, external=True, env=env
        )


def _environment(
    session,
    venv: Path,
    want: str,
    wanted: list[str],
    *,
    base: str = sys.executable,
    env=None,
    use_uv=False,
    overlay: list[str] | None = None,
) -> str:
    """The interpreter of `venv`, made (or refreshed) when its stamp is not `want`. An environment this
    call created and could not finish is removed again (no half-made environment is reused)."""
    python = venv / "bin" / "python"
    stamp = venv / "fieldguide.stamp"
    if stamp.exists() and stamp.read_text() == want and python.exists():
        return str(python)
    made = not python.exists()
    if made:
        session.log(f"creating the environment {venv.relative_to(ROOT)}")
        session.run(base, "-m", "venv", str(venv), external=True)
    try:
        if overlay is not None:  # another environment's packages (its torch), after this one's own
            site = subprocess.run(
                [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                capture_output=True,
                text=True,
                check=True,
            ).stdout.strip()
            lines = "".join(f"import site; site.addsitedir({p!r})\n" for p in overlay)
            Path(site, "fieldguide-torch-from.pth").write_text(lines, encoding="utf-8")
        _install(session, python, wanted, env, use_uv)
    except BaseException:
        if made:
            shutil.rmtree(venv, ignore_errors=True)
        raise
    stamp.write_text(want)
    return str(python)


def _project_hash(*parts: str) -> str:
    return hashlib.sha256((ROOT / "pyproject.toml").read_bytes() + "".join(parts).encode()).hexdigest()


def torch_python(
    session: nox.Session, version: str, *, extras: str = "[test]", env: dict | None = None, use_uv: bool = False
) -> str:
    """The interpreter of the environment for one torch release, made (or refreshed) on demand."""
    check_torch_version(session, version)
    wanted = [f"torch=={version}", _numpy_spec(version), "-e", f"{ROOT}{extras}"]
    pins = ""
    if version == DEFAULT_TORCH and DEFAULT_PINS.exists():  # the default build's torch dependencies, pinned
        wanted = ["-c", str(DEFAULT_PINS), *wanted]
        pins = DEFAULT_PINS.read_text(encoding="utf-8")
    return _environment(
        session, venv_dir(version), _project_hash(version, extras, pins), wanted, env=env, use_uv=use_uv
    )


_WHEEL = re.compile(r"torch-(?P<version>[^-]+)-[^-]+-[^-]+-[^-]+\.whl")


def wheel_python(session: nox.Session, wheel: str) -> str:
    """An environment with a local torch wheel installed (`--torch PATH.whl`), one per wheel's content."""
    path = Path(wheel).expanduser().resolve()
    if not path.is_file():
        session.error(f"--torch {wheel}: no such file")
    m = _WHEEL.fullmatch(path.name)
    if not m:
        session.error(f"--torch {wheel}: not a torch wheel (expected a file named torch-VERSION-...-PLATFORM.whl)")
    version = m["version"].replace("_", "-")
    _check_supported(session, version, f" ({path.name})")
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    venv = ROOT / ".nox" / f"torch-wheel-{digest[:12]}"
    wanted = [str(path), _numpy_spec(version), "-e", f"{ROOT}[test]"]
    session.log(f"torch {version} from the wheel {path}")
    return _environment(session, venv, _project_hash(digest, "[test]"), wanted)


_PROBE = """
import json, site, sys, sysconfig
from importlib import metadata
try:
    version = metadata.version("torch")
except metadata.PackageNotFoundError:
    version = None
paths = list(dict.fromkeys([sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"], *site.getsitepackages()]))
if site.ENABLE_USER_SITE:
    paths.append(site.getusersitepackages())
print(json.dumps({"torch": version, "python": list(sys.version_info[:3]), "paths": paths,
                  "numpy": next((d.version for d in metadata.distributions(name="numpy")), None)}))
"""


def installed_python(session: nox.Session, python: str | None) -> str:
    """An environment that uses the torch already installed in `python`'s environment (`--torch
    installed`, `--python PATH`), without changing that environment: a venv of the same interpreter
    under .nox/ holds the guide's own packages and reads every other package from there."""
    target = str(Path(python).expanduser()) if python else sys.executable
    if python and not Path(target).exists():
        session.error(f"--python {python}: no such interpreter")
    try:
        probe = subprocess.run([target, "-c", _PROBE], capture_output=True, text=True, check=True, timeout=120)
        found = json.loads(probe.stdout)
    except (OSError, subprocess.SubprocessError, ValueError) as exc:
        session.error(f"--python {target}: cannot be asked which torch it has ({exc})")
    if found["torch"] is None:
        session.error(
            f"no torch is installed in {target}'s environment"
            + ("" if python else " (the interpreter running nox): name the one that has it, --python PATH/bin/python")
        )
    if tuple(found["python"][:2]) < (3, 11):
        session.error(
            f"{target} is Python {'.'.join(map(str, found['python']))}; the guide's build needs 3.11 or newer"
        )
    _check_supported(session, found["torch"].split("+")[0], f" (installed in {target})")
    real = str(Path(target).resolve())
    venv = ROOT / ".nox" / f"torch-installed-{hashlib.sha256(real.encode()).hexdigest()[:12]}"
    constraints = venv.parent / f"{venv.name}.constraints.txt"
    venv.parent.mkdir(parents=True, exist_ok=True)
    pins = [f"torch=={found['torch']}"] + ([f"numpy=={found['numpy']}"] if found["numpy"] else [])
    constraints.write_text("\n".join(pins) + "\n", encoding="utf-8")
    session.log(f"torch {found['torch']} as installed in {target} (that environment is not changed)")
    wanted = ["-c", str(constraints), "-e", f"{ROOT}"]
    want = _project_hash(real, found["torch"], json.dumps(found["paths"]))
    # the interpreter's own base: a venv made from a venv's python would not see that venv's packages
    return _environment(session, venv, want, wanted, base=target, overlay=found["paths"])


def resolve_torch(session: nox.Session, spec: str, python: str | None = None) -> str:
    """The interpreter a build runs with, for `--torch SPEC` (a release, a wheel, `installed`) and `--python`."""
    if python is not None and spec not in (INSTALLED, DEFAULT_TORCH):
        session.error(f"--python uses the torch installed there: drop --torch {spec}, or use --torch {INSTALLED}")
    if spec == INSTALLED or python is not None:
        return installed_python(session, python)
    if spec.endswith(".whl"):
        return wheel_python(session, spec)
    return torch_python(session, spec)


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
        "--torch",
        default=DEFAULT_TORCH,
        metavar="X.Y.Z|PATH.whl|installed",
        help=f"the torch to build with: a release from the package registry, listed in records/releases.toml or "
        f"not (default {DEFAULT_TORCH}); a local wheel; or `{INSTALLED}`, the torch of an existing environment",
    )
    parser.add_argument(
        "--python",
        metavar="PATH",
        help=f"with --torch {INSTALLED}: the interpreter of the environment whose torch to use "
        "(default: the one running nox); that environment is read, never changed",
    )
    parser.add_argument(
        "--strict-outcomes",
        action="store_true",
        help="fail the build when a fact takes an outcome no text on its page covers (the default lists them)",
    )


def _torch_env(args) -> dict:
    return {"FIELDGUIDE_STRICT_OUTCOMES": "1"} if args.strict_outcomes else {}


def _torch_of(python: str) -> str:
    """The torch an environment has, as its distribution names it (asked without importing torch)."""
    proc = subprocess.run(
        [python, "-c", "from importlib import metadata; print(metadata.version('torch'))"],
        capture_output=True,
        text=True,
    )
    return f"torch {proc.stdout.strip()}" if proc.returncode == 0 else "its torch"


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
    python = resolve_torch(session, args.torch, args.python)
    site_dir = Path(args.site_dir)
    build_site(
        session, python, site_dir, refresh=args.refresh, base=args.base, extra_env=_torch_env(args), args=mkdocs_args
    )
    session.log(f"built {site_dir}/ against {_torch_of(python)}; open {site_dir}/index.html or run `nox -s serve`")


@nox.session
def serve(session: nox.Session) -> None:
    """Serve with live reload: nox -s serve [-- --torch X.Y.Z] [--dev-addr HOST:PORT]"""
    parser = argparse.ArgumentParser(prog="nox -s serve --", description="Serve the site with live reload.")
    _torch_option(parser)
    parser.add_argument("--dev-addr", default=None, metavar="HOST:PORT", help="where to serve (default 127.0.0.1:8000)")
    args, mkdocs_args = _parse(session, parser, known_only=True)
    python = resolve_torch(session, args.torch, args.python)
    addr = ["--dev-addr", args.dev_addr] if args.dev_addr else []
    env = {**QUIET_ENV, **_torch_env(args)}
    session.run(python, "-m", "mkdocs", "serve", "--strict", *addr, *mkdocs_args, env=env, external=True)


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

    def record_of(given: str) -> str:
        if given in RELEASES or (_RELEASE.fullmatch(given) and record_path(given).exists()):
            return str(record_path(given))
        if _RELEASE.fullmatch(given) and not Path(given).exists():  # a release with neither record nor file
            built = ROOT / "build" / "upgrade" / f"torch-{given}" / "record.json"
            session.error(
                f"torch {given} has no committed record: measure it with `nox -s matrix -- {given}`, or pass the "
                f"record.json of a build of it"
                + (
                    f" ({built.relative_to(ROOT)}, from `nox -s upgrade -- {given}`)"
                    if built.exists()
                    else f" (`nox -s upgrade -- {given}` writes one)"
                )
            )
        return given

    args = [record_of(a) if not a.startswith("-") else a for a in session.posargs]
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
    done, skipped, failed, unlisted = [], [], [], []
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
            if version not in RELEASES:
                unlisted.append(version)
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
    for version in unlisted:
        listed = sorted({*RELEASES, version}, key=lambda v: _parse_version(v))
        session.log(
            f"torch {version} is measured but not listed: to make it one of the guide's releases, commit "
            f"{record_path(version).relative_to(ROOT)} and put this line in {RELEASES_FILE.relative_to(ROOT)}:\n"
            f"releases = [{', '.join(repr(v).replace(chr(39), chr(34)) for v in listed)}]"
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
