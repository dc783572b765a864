"""tlparse reports, built from the traces a build recorded (stage 4, render: nothing executes a snippet).

A fence that sets ``TORCH_TRACE`` gets a private trace directory per run (executors.py) and its
record keeps the trace files (record.py, ``artifacts``). After the pages are written, the plugin
runs tlparse, a registry package that works offline on one trace file, on each recorded trace
and publishes its HTML report under ``site/tlparse/<chapter>-<snippet>/``.

The report is tlparse's HTML, published as a page of the site, so it is held to the site's rules
here (`publishable`): it links to no other host (such a link becomes plain text), every link it
keeps leads to a file of the report (tlparse 0.4 writes a subpage's links as if from the report's
root; those are rewritten, and a link to a file it did not write becomes plain text), and it has
what the accessibility checks ask of every page (a language, a title, one main landmark with a
level-one heading, readable contrast).
"""

from __future__ import annotations

import html as html_lib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from ..guide.links import report_path
from ..run.record import BuildRecord, SnippetResult

_OFF_HOST = re.compile(r"<a\s[^>]*href=['\"](?:https?:)?//[^'\"]*['\"][^>]*>(.*?)</a>", re.I | re.S)


class TlparseError(RuntimeError):
    """tlparse is missing or failed on a recorded trace."""


def trace_results(build: BuildRecord) -> list[SnippetResult]:
    """Results that recorded a trace (a fence that set TORCH_TRACE, on a torch that wrote one)."""
    return [s for s in build.snippets if any(n.startswith("trace/") for n in s.artifacts)]


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


_LINK = re.compile(r"""(?P<attr>\b(?:href|src))=(?P<q>['"])(?P<url>[^'"]*)(?P=q)""", re.I)
_ANCHOR = re.compile(r"<a\s[^>]*>(.*?)</a>", re.I | re.S)
_CONTRAST = "<style>/* fieldguide: white on #ff0000 reads at 4.0:1; #c00000 reads at 5.9:1 */ .status-error { background-color: #c00000 !important; }</style>"


def _local(url: str) -> bool:
    return (
        bool(url)
        and not url.startswith(("#", "data:", "javascript:", "mailto:"))
        and "://" not in url
        and not url.startswith("//")
    )


def repair_links(text: str, page: Path, report: Path) -> str:
    """Each relative link of a report page leads to a file of the report: one written as if from the
    report's root is made relative to the page; one to a file that does not exist becomes its text."""

    def fixed(url: str) -> str | None:
        path, sep, rest = (re.split(r"([?#])", url, maxsplit=1) + ["", ""])[:3]
        if not path or (page.parent / path).exists():
            return url
        if (report / path).exists():
            return os.path.relpath(report / path, page.parent) + sep + rest
        return None

    def anchor(m: re.Match) -> str:
        link = _LINK.search(m.group(0))
        if (
            link
            and link.group("attr").lower() == "href"
            and _local(link.group("url"))
            and fixed(link.group("url")) is None
        ):
            return m.group(1)  # a dead link: keep what it said
        return m.group(0)

    text = _ANCHOR.sub(anchor, text)

    def attr(m: re.Match) -> str:
        url = m.group("url")
        new = fixed(url) if _local(url) else url
        return m.group(0) if new in (None, url) else f"{m.group('attr')}={m.group('q')}{new}{m.group('q')}"

    return _LINK.sub(attr, text)


def accessible(text: str, heading: str) -> str:
    """What the site's accessibility checks ask of every page, added where tlparse leaves it out."""
    if not re.search(r"<html[^>]*\blang=", text, re.I):
        text = re.sub(r"<html(?=[\s>])", '<html lang="en"', text, count=1, flags=re.I)
    title = re.search(r"<title>(.*?)</title>", text, re.I | re.S)
    if not title or not title.group(1).strip():
        text = re.sub(r"<title>\s*</title>", "", text, flags=re.I)
        text = re.sub(r"<head>", f"<head>\n<title>{html_lib.escape(heading)}</title>", text, count=1, flags=re.I)
    else:
        heading = html_lib.unescape(title.group(1).strip())
    text = re.sub(r"</head>", _CONTRAST + "\n</head>", text, count=1, flags=re.I)
    if not re.search(r"<main[\s>]", text, re.I):
        h1 = "" if re.search(r"<h1[\s>]", text, re.I) else f"<h1>{html_lib.escape(heading)}</h1>\n"
        text = re.sub(r"<body([^>]*)>", lambda m: f"<body{m.group(1)}>\n<main>\n{h1}", text, count=1, flags=re.I)
        text = re.sub(r"</body>", "</main>\n</body>", text, count=1, flags=re.I)
    return text


def publishable(text: str, page: Path, report: Path, source: str) -> str:
    """One page of a report as the site publishes it (see the module's docstring)."""
    heading = f"tlparse report of {source}" if page.parent == report else f"{page.stem.replace('_', ' ')} ({source})"
    return accessible(repair_links(sanitize(text), page, report), heading)


_STRING = re.compile(r'^(?P<head>[^{]*\] )(?P<body>\{"str": \[.*\]\})\s*$')
_ENVELOPE = re.compile(r"^(?P<head>[^{]*\] )(?P<body>\{.*\})\s*$")


def _engine_file(name: str) -> bool:
    return name == "<frozen runpy>" or bool(re.search(r"(?:^|/)fieldguide/(?:run/)?(?:runner|executors/\w+)\.py$", name))


def without_engine_frames(trace: str) -> str:
    """The trace with the engine's own frames (the runner, the warm worker, runpy) dropped from
    every stack it records, as logs.without_engine_frames does for tracebacks: `python file.py`
    has none of them below the snippet's frames, nor their names in the trace's string table.
    Nothing else in the trace changes."""
    engine: set[int] = set()
    for line in trace.splitlines():
        m = _STRING.match(line)
        if m:
            name, index = json.loads(m.group("body"))["str"]
            if _engine_file(name):
                engine.add(index)
    if not engine:
        return trace

    def engine_frame(frame) -> bool:
        if isinstance(frame, dict):  # {"line": .., "name": .., "filename": <string table index>}
            return frame.get("filename") in engine
        m = re.search(r"Filename: (.*)$", frame) if isinstance(frame, str) else None  # "Line: 8, Name: f, Filename: x"
        return bool(m) and _engine_file(m.group(1).strip())

    def strip(node):
        if isinstance(node, dict):
            return {
                k: [f for f in v if not engine_frame(f)]
                if k in ("stack", "stack_trace") and isinstance(v, list)
                else strip(v)
                for k, v in node.items()
            }
        if isinstance(node, list):
            return [strip(v) for v in node]
        return node

    out = []
    for line in trace.split("\n"):
        named = _STRING.match(line)
        if named and json.loads(named.group("body"))["str"][1] in engine:
            continue  # the engine file's entry in the string table: no stack refers to it any more
        m = _ENVELOPE.match(line)
        if m and ('"stack"' in m.group("body") or '"stack_trace"' in m.group("body")):
            try:
                body = json.loads(m.group("body"))
            except ValueError:
                out.append(line)
                continue
            line = m.group("head") + json.dumps(strip(body))
        out.append(line)
    return "\n".join(out)


def build_report(result: SnippetResult, site_dir: Path) -> Path:
    """Run tlparse on the first trace file the result recorded; return the report's directory."""
    names = sorted(n for n in result.artifacts if n.startswith("trace/"))
    out = Path(site_dir) / report_path(result)
    with tempfile.TemporaryDirectory(prefix="fieldguide-tlparse-") as tmp:
        trace = Path(tmp) / "trace.log"
        trace.write_text(without_engine_frames(result.artifact(names[0])), encoding="utf-8")
        proc = subprocess.run(
            [tlparse_binary(), str(trace), "-o", str(out), "--overwrite", "--no-browser"],
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
    if proc.returncode != 0 or not (out / "index.html").exists():
        raise TlparseError(
            f"tlparse failed on the trace of {result.path} (exit {proc.returncode}):\n{proc.stderr[-2000:]}"
        )
    for page in out.rglob("*.html"):
        page.write_text(publishable(page.read_text(encoding="utf-8"), page, out, result.path), encoding="utf-8")
    return out


def build_reports(build: BuildRecord, site_dir: Path) -> list[Path]:
    return [build_report(r, site_dir) for r in trace_results(build)]
