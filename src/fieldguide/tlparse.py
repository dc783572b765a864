"""tlparse reports, built from the traces a build recorded (stage 4, render: nothing executes a snippet).

A fence that sets ``TORCH_TRACE`` gets a private trace directory per run (executors.py) and its
record keeps the trace files (record.py, ``artifacts``). After the pages are written, the plugin
runs tlparse, a registry package that works offline on one trace file, on each recorded trace
and publishes its HTML report under ``site/tlparse/<chapter>-<snippet>/``. The report links to
no other host once sanitized here: a link off the site becomes plain text.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from .record import BuildRecord, SnippetResult

REPORTS_DIR = "tlparse"
_OFF_HOST = re.compile(r"<a\s[^>]*href=['\"](?:https?:)?//[^'\"]*['\"][^>]*>(.*?)</a>", re.I | re.S)


class TlparseError(RuntimeError):
    """tlparse is missing or failed on a recorded trace."""


def trace_results(build: BuildRecord) -> list[SnippetResult]:
    """Results that recorded a trace (a fence that set TORCH_TRACE, on a torch that wrote one)."""
    return [s for s in build.snippets if any(n.startswith("trace/") for n in s.artifacts)]


def report_path(result: SnippetResult) -> str:
    """Where a result's report goes in the site: tlparse/realcode-trace/ for snippets/realcode/trace.py."""
    parts = Path(result.path).with_suffix("").parts[1:]  # drop "snippets"
    return f"{REPORTS_DIR}/{'-'.join(parts)}/"


def tlparse_binary() -> str:
    """The tlparse of the environment that builds the site (a dependency in pyproject.toml)."""
    here = Path(sys.executable).parent / "tlparse"
    found = str(here) if here.exists() else shutil.which("tlparse")
    if not found:
        raise TlparseError("tlparse is not installed in the environment that builds the site (pip install tlparse)")
    return found


# tlparse 0.4's pages end with a script whose early exit returns an undefined name, a
# ReferenceError on every page opened without a query string; it should just return.
_EARLY_RETURN = "if (queryParams.size === 0) return url;"


def sanitize(html: str) -> str:
    """A link to another host becomes its text: the published report requests nothing off the site.
    (And the report's own script error above is fixed, so the page loads without one.)"""
    return _OFF_HOST.sub(lambda m: m.group(1), html).replace(_EARLY_RETURN, "if (queryParams.size === 0) return;")


def build_report(result: SnippetResult, site_dir: Path) -> Path:
    """Run tlparse on the first trace file the result recorded; return the report's directory."""
    names = sorted(n for n in result.artifacts if n.startswith("trace/"))
    out = Path(site_dir) / report_path(result)
    with tempfile.TemporaryDirectory(prefix="fieldguide-tlparse-") as tmp:
        trace = Path(tmp) / "trace.log"
        trace.write_text(result.artifact(names[0]), encoding="utf-8")
        proc = subprocess.run(
            [tlparse_binary(), str(trace), "-o", str(out), "--overwrite", "--no-browser"],
            capture_output=True, text=True, timeout=300, check=False,
        )
    if proc.returncode != 0 or not (out / "index.html").exists():
        raise TlparseError(f"tlparse failed on the trace of {result.path} (exit {proc.returncode}):\n{proc.stderr[-2000:]}")
    for page in out.rglob("*.html"):
        page.write_text(sanitize(page.read_text(encoding="utf-8")), encoding="utf-8")
    return out


def build_reports(build: BuildRecord, site_dir: Path) -> list[Path]:
    return [build_report(r, site_dir) for r in trace_results(build)]
