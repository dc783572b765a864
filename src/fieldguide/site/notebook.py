"""Each chapter's notebook: its examples with this build's measured outputs (stage 4, render).

For a chapter page ``docs/<chapter>.md`` whose fences show snippets, this module makes

* ``notebooks/<chapter>.ipynb``: a Jupyter notebook (nbformat 4), one code cell per example run
  in page order (a snippet the page ran under two environments gets two cells), each carrying
  the output that run printed in this build, taken from the record. Nothing is re-executed.
* ``notebooks/<chapter>.md``: the same notebook as a page of the site, with a download link,
  styled by the site's own CSS (no per-page notebook stylesheet), low in search results.

Each example starts from what a fresh process gives it (empty dynamo caches and counters) and
turns on the same log channels its run used, so running the notebook reproduces the outputs on
the reader's torch.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from ..run.fences import find_fences
from ..run.record import BuildRecord, SnippetResult, requested_channels

SETUP = '''import torch
from torch._dynamo.utils import counters


def fresh_start(**channels):
    """Empty dynamo caches and counters, and the given TORCH_LOGS channels, like a fresh process."""
    torch._dynamo.reset()
    counters.clear()
    torch._logging.set_logs(**{name: True for name in channels})
'''


@dataclass(frozen=True)
class Example:
    path: str  # relative to snippets/
    env: tuple[tuple[str, str], ...]

    @property
    def channels(self) -> list[str]:
        return requested_channels(dict(self.env))

    @property
    def label(self) -> str:
        extra = " ".join(f"{k}={v}" for k, v in self.env)
        return self.path.split("/")[-1] + (f" ({extra})" if extra else "")


def page_examples(page: Path) -> list[Example]:
    """Every example run a chapter page makes, in page order, each (snippet, environment) once."""
    seen, out = set(), []
    for found in find_fences(page.read_text(encoding="utf-8")):
        fence = found.fence
        if fence is None:
            continue
        ex = Example(fence.path, tuple(sorted(fence.run_env.items())))
        if ex not in seen:
            seen.add(ex)
            out.append(ex)
    return out


def chapter_title(page: Path) -> str:
    m = re.search(r"^#\s+(.+?)\s*$", page.read_text(encoding="utf-8"), re.M)
    return m.group(1) if m else page.stem


CHAPTER_SEARCH_BOOST = 2.0  # chapters' sections rank above other pages naming the same API


def page_of(chapter) -> str:
    """The site page of a chapter's notebook (settings.Chapter): notebooks/<slug>.md, beside its .ipynb."""
    return f"notebooks/{chapter.slug}.md"


def _result(build: BuildRecord, ex: Example) -> SnippetResult | None:
    want = f"snippets/{ex.path}"
    return next((s for s in build.snippets if s.path == want and tuple(sorted(s.env.items())) == ex.env), None)


def _cell_source(ex: Example, snippets_dir: Path) -> str:
    logs = ", ".join(f"{c}=True" for c in ex.channels)
    source = (snippets_dir / ex.path).read_text(encoding="utf-8").rstrip("\n")
    return f"fresh_start({logs})\n{source}"


def _lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def ipynb(chapter: str, title: str, examples: list[Example], build: BuildRecord, snippets_dir: Path) -> dict:
    """The notebook as nbformat 4 JSON, outputs from the record."""
    cells = [
        _markdown(
            f"# Notebook: {title}\n\n"
            f"The examples of the chapter *{title}*, one per cell. Under each cell is the output it printed "
            f"when the field guide was built, on torch {build.torch} (run as a script, logger prefixes removed); "
            "run the cells to see what your torch prints."
        ),
        _code(SETUP, []),
    ]
    for n, ex in enumerate(examples, 1):
        result = _result(build, ex)
        cells.append(_markdown(f"## {n}. `{ex.label}`"))
        outputs = []
        if result is not None and result.output:
            outputs.append({"output_type": "stream", "name": "stdout", "text": _lines(result.output)})
        cells.append(_code(_cell_source(ex, snippets_dir), outputs, n))
    for i, cell in enumerate(cells):  # stable ids: the same build gives the same file
        cell["id"] = f"cell-{i}"
    return {
        "cells": cells,
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python"},
            "fieldguide": {"chapter": chapter, "torch": build.torch},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def _markdown(text: str) -> dict:
    return {"cell_type": "markdown", "id": "", "metadata": {}, "source": _lines(text)}


def _code(source: str, outputs: list, count: int | None = None) -> dict:
    return {
        "cell_type": "code",
        "execution_count": count,
        "id": "",
        "metadata": {},
        "outputs": outputs,
        "source": _lines(source),
    }


def _fenced(lang: str, body: str, title: str = "") -> str:
    ticks = "`" * max(3, max((len(m) + 1 for m in re.findall(r"`{3,}", body)), default=3))
    attr = f' title="{title}"' if title else ""
    return f"{ticks}{lang}{attr}\n{body.rstrip(chr(10))}\n{ticks}"


def page(chapter: str, title: str, examples: list[Example], build: BuildRecord, snippets_dir: Path) -> str:
    """The notebook as a site page (Markdown): every cell, its measured output, a download link."""
    out = [
        "---",
        "search:",
        "  exclude: true  # the chapter explains and is found; its notebook only repeats the code",
        "---",
        "",
        f"# Notebook: {title}",
        "",
        f"The examples of [the chapter](../{chapter}.md), one cell each, as a Jupyter notebook. Under each "
        f"cell is the output it printed when this site was built, on torch `{build.torch}`: nothing here "
        "was re-run to make the page.",
        "",
        f"[Download {chapter}.ipynb]({chapter}.ipynb){{ .md-button download }}",
        "",
        "## Setup",
        "",
        "Each example starts from what a fresh process would give it.",
        "",
        _fenced("python", SETUP),
        "",
    ]
    for n, ex in enumerate(examples, 1):
        result = _result(build, ex)
        out += [f"## {n}. `{ex.label}`", "", _fenced("python", _cell_source(ex, snippets_dir)), ""]
        if result is not None:
            body = result.output if result.output.strip() else "(this cell printed nothing)"
            out += [_fenced("text", body, "measured output"), ""]
    return "\n".join(out)


def generate(chapters, docs_dir: Path, snippets_dir: Path, build: BuildRecord) -> dict[str, str]:
    """site path -> content, for every chapter's notebook page and .ipynb (settings.chapters, in order)."""
    files = {}
    for chapter in chapters:
        md = docs_dir / chapter.page
        if not md.exists():
            continue
        examples = page_examples(md)
        if not examples:
            continue
        title = f"Lesson {chapter.number}: {chapter.title}"
        files[page_of(chapter)] = page(chapter.slug, title, examples, build, snippets_dir)
        files[f"notebooks/{chapter.slug}.ipynb"] = (
            json.dumps(ipynb(chapter.slug, title, examples, build, snippets_dir), indent=1) + "\n"
        )
    return files
