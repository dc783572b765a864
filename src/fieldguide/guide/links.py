"""Where things are in the site, as the guide's pages and the site's code both link to them."""

from __future__ import annotations

import posixpath
from pathlib import Path

from ..run.record import SnippetResult

REPORTS_DIR = "tlparse"


def relative_link(from_url: str, to_url: str) -> str:
    """A link from one site-relative page URL to another ("build/report/" -> "guards/")."""
    base = posixpath.dirname(from_url.rstrip("/") + "/x") if from_url not in ("", "./") else ""
    target = to_url if to_url not in ("./", "") else ""
    rel = posixpath.relpath(target or ".", base or ".")
    return "./" if rel == "." else rel + ("/" if target.endswith("/") and not rel.endswith("/") else "")


def report_path(result: SnippetResult) -> str:
    """Where a result's report goes in the site: tlparse/realcode-trace/ for snippets/realcode/trace.py."""
    parts = Path(result.path).with_suffix("").parts[1:]  # drop "snippets"
    return f"{REPORTS_DIR}/{'-'.join(parts)}/"
