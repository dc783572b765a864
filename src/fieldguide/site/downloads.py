"""Chapter downloads: each snippet as a .py file, a zip of a chapter's snippets, and its notebook.

The plugin puts the files into the site (site_files); chapter pages link to them (chapter_links).
"""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

from ..run import record
from ..run.context import active, current
from ..guide.links import relative_link


def chapter_paths(chapter: str, build: record.BuildRecord | None = None) -> list[str]:
    """snippets/<chapter>/*.py that ran in this build, in path order."""
    build = build or current()
    return sorted({i.display for i in build.ids() if i.path.startswith(f"{chapter}/")})


def zip_bytes(files: list[Path], root: Path) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for f in sorted(files):
            info = zipfile.ZipInfo(str(f.relative_to(root)), date_time=(2020, 1, 1, 0, 0, 0))  # reproducible
            zf.writestr(info, f.read_bytes())
    return buf.getvalue()


def chapter_links(chapter: str, page_url: str | None = None, notebook: bool = True) -> str:
    """The chapter's downloads, as links from its page (page_url defaults to the registered chapter's)."""
    build = current()
    registered = active().chapter(chapter)  # a chapter of mkdocs.yml's list: its zip and notebook exist
    page_url = page_url or registered.url
    lines = [
        "Every example in this chapter is a plain Python file. Download them and run them on your own "
        "torch; the command above each output on this page is the one to use.",
        "",
    ]
    for path in chapter_paths(chapter, build):
        cmd = " or ".join(f"`{i.command_line()}`" for i in build.ids() if i.display == path)
        lines.append(f"- [{path.split('/')[-1]}]({relative_link(page_url, path)}): {cmd}")
    lines.append("")
    zip_url = relative_link(page_url, registered.snippets_zip)
    lines.append(f"[Download all of them as a zip]({zip_url}){{ .md-button }}")
    if notebook:
        nb_url = relative_link(page_url, registered.notebook.removesuffix(".py") + "/")
        lines.append(f"[Open the chapter as a notebook]({nb_url}){{ .md-button }}")
    return "\n".join(lines) + "\n"
