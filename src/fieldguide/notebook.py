"""Generate a chapter's notebook (a jupytext percent-format .py) from its snippets, at build time.

The notebook walks through the chapter's examples in page order. Each example starts from what a
fresh process would give it (empty dynamo caches and counters) and turns on the same log channels
the page used. The plugin writes it under the cache directory and hands it to mkdocs-jupyter as
the page ``notebooks/<chapter>.py``, so there is no copy of the snippets to keep in sync.
"""

from __future__ import annotations

from pathlib import Path

from .fences import find_fences

HEADER = '''# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # {title}
#
# The examples of the chapter, one per cell, to run on your own torch. Generated from the
# files under `snippets/{chapter}/`; the chapter on the site shows what the build's torch printed.

# %%
import torch
from torch._dynamo.utils import counters


def fresh_start(**channels):
    """Empty dynamo caches and counters, and the given TORCH_LOGS channels, like a fresh process."""
    torch._dynamo.reset()
    counters.clear()
    torch._logging.set_logs(**{{name: True for name in channels}})
'''


def page_snippets(page: Path) -> list[tuple[str, tuple[str, ...]]]:
    """(snippet path, channels) in page order, each snippet once (its first, shown fence)."""
    seen, out = set(), []
    for found in find_fences(page.read_text(encoding="utf-8")):
        fence = found.fence
        if fence is None or fence.path in seen or fence.show == "none":
            continue
        seen.add(fence.path)
        out.append((fence.path, fence.shown_channels()))
    return out


def render(chapter: str, title: str, page: Path, snippets_dir: Path) -> str:
    parts = [HEADER.format(title=title, chapter=chapter)]
    for path, channels in page_snippets(page):
        source = (snippets_dir / path).read_text(encoding="utf-8").rstrip("\n")
        logs = ", ".join(f"{c}=True" for c in channels)
        parts.append(f"\n# %% [markdown]\n# ## `{path.split('/')[-1]}`\n\n# %%\nfresh_start({logs})\n{source}\n")
    return "".join(parts)


def generate(chapters, docs_dir: Path, snippets_dir: Path, out_dir: Path) -> list[str]:
    """Write each chapter's notebook (settings.Chapter.notebook) under out_dir; return their site paths."""
    written = []
    for chapter in chapters:
        page = docs_dir / chapter.page
        if not page.exists() or not page_snippets(page):
            continue
        path = out_dir / chapter.notebook
        text = render(chapter.slug, f"Lesson {chapter.number}: {chapter.title}", page, snippets_dir)
        if not path.exists() or path.read_text(encoding="utf-8") != text:  # keep mkdocs-jupyter's cache warm
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        written.append(chapter.notebook)
    return written
