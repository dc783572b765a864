"""What `mkdocs serve` keeps from one rebuild to the next, so an edit costs what it changes.

A rebuild still renders every page from the new record (nothing shown is older than a full build
would show); this module only keeps *content-addressed* work, which cannot go stale:

    FileStore   the generated files (every release's outputs, snippet copies, zips, notebooks):
                each content is written once per session, under its hash, and every rebuild
                hard-links it into the new site instead of writing ~1,400 small files again.

    SearchMemo  the search index's entries of a page, by the page's HTML, URL, title, metadata
                and table of contents (the search plugin parses every page's HTML again).

    memoize_highlighting
                Pygments' output for a code block, by the code and the highlighter's options.

    memoize_exec_markdown
                the HTML of the Markdown a page's python block printed, by that text (the
                block's code still runs on every rebuild).

The watcher polls every 0.15 s instead of MkDocs' 0.5 s (poll_faster): on average a third of a
second sooner from a save to the start of the rebuild.

The site directory itself is swapped in by plugin.py as in any build; the previous one is
removed in the background (nothing serves it any more).
"""

from __future__ import annotations

import copy
import hashlib
import json
import logging
import os
import re
import shutil
import threading
from pathlib import Path

from mkdocs.structure.files import File

from .workdirs import make_owned


class FileStore:
    """Contents by hash, in a directory on the site's filesystem (hard links need one filesystem)."""

    PREFIX = ".fieldguide-serve-store-"

    def __init__(self, parent: Path) -> None:
        self.dir = make_owned(parent, self.PREFIX)  # (and removes one left by a serve that was killed)
        self._lock = threading.Lock()

    def path_of(self, content: bytes) -> Path:
        path = self.dir / hashlib.sha256(content).hexdigest()
        with self._lock:
            if not path.exists():
                tmp = path.with_suffix(".tmp")
                tmp.write_bytes(content)
                os.chmod(tmp, 0o444)  # a link into the site must never be written through
                os.replace(tmp, path)
        return path

    def close(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)


class StoredFile(File):
    """A generated file whose copy into the site is a hard link to its content in a FileStore."""

    store: FileStore | None = None

    def copy_file(self, dirty: bool = False) -> None:
        content = self._content
        if self.store is None:
            return super().copy_file(dirty)
        if content is None:
            content = Path(self.abs_src_path).read_bytes()
        elif isinstance(content, str):
            content = content.encode("utf-8")
        dest = self.abs_dest_path
        try:
            stored = self.store.path_of(content)
            try:
                os.link(stored, dest)
            except FileNotFoundError:  # its folder is not there yet
                os.makedirs(os.path.dirname(dest), exist_ok=True)
                os.link(stored, dest)
            except FileExistsError:
                os.unlink(dest)
                os.link(stored, dest)
        except OSError:  # another filesystem, no hard links: write it as any build does
            super().copy_file(dirty)


def generated(config, src_uri: str, store: FileStore | None, **kwargs) -> File:
    """File.generated, linked from `store` when there is one (serve); a plain generated file otherwise."""
    if store is None:
        return File.generated(config, src_uri, **kwargs)
    file = StoredFile.generated(config, src_uri, **kwargs)
    file.store = store
    return file


def remove_later(path: Path) -> None:
    """Remove a directory in the background: a served site that was just replaced."""
    threading.Thread(target=shutil.rmtree, args=(path,), kwargs={"ignore_errors": True}, daemon=True).start()


POLL_SECONDS = 0.15


def poll_faster(server, seconds: float = POLL_SECONDS) -> None:
    """Make MkDocs' file watcher (a watchdog PollingObserver, 0.5 s) poll every `seconds`.

    Called from on_serve, before the observer starts: the watches scheduled so far and those
    scheduled later (the snippets) all poll at the new interval. Watchdog keeps the interval in
    `_timeout` (observer and emitters); without it, serving simply polls at MkDocs' pace.
    """
    observer = getattr(server, "observer", None)
    if observer is None or not hasattr(observer, "_timeout"):
        return
    observer._timeout = seconds
    for emitter in getattr(observer, "emitters", ()):
        if hasattr(emitter, "_timeout"):
            emitter._timeout = seconds


class SearchMemo:
    """The search plugin's index entries of a page, kept by everything the plugin reads from it.

    Material's search plugin parses each page's HTML again on every rebuild (a sixth of a
    rebuild). Its entries are a function of the page's content, URL, title, metadata and table of
    contents only, so a page whose HTML came out the same gets the same entries without parsing.
    """

    MAX = 400

    def __init__(self) -> None:
        self._memo: dict[tuple, list[dict]] = {}

    def install(self, config) -> None:
        """Wrap the search index of this build (material's search plugin makes one per build)."""
        for plugin in config.plugins.values():
            if not type(plugin).__module__.startswith("material.plugins.search"):
                continue
            index = getattr(plugin, "search_index", None)
            add = getattr(index, "add_entry_from_context", None)
            if (
                add is None
                or not isinstance(getattr(index, "entries", None), list)
                or getattr(add, "fieldguide_memo", False)
            ):
                continue

            def memo_add(page, _add=add, _index=index):
                key = _page_key(page)
                if key is None:
                    return _add(page)
                entries = self._memo.get(key)
                if entries is None:
                    start = len(_index.entries)
                    _add(page)
                    entries = copy.deepcopy(_index.entries[start:])
                    if len(self._memo) >= self.MAX:
                        self._memo.clear()
                    self._memo[key] = entries
                    return None
                _index.entries.extend(copy.deepcopy(entries))
                return None

            memo_add.fieldguide_memo = True
            index.add_entry_from_context = memo_add


def _toc_key(toc) -> tuple:
    return tuple((t.id, t.url, t.title, t.level, _toc_key(t.children)) for t in toc)


def _page_key(page) -> tuple | None:
    try:
        meta = json.dumps(page.meta, sort_keys=True, default=repr)
        return (page.url, page.title, page.content, meta, _toc_key(page.toc))
    except (AttributeError, TypeError, ValueError):  # something this memo does not know: no memo
        return None


_HIGHLIGHT_MAX = 4000


def memoize_highlighting() -> None:
    """Pygments' highlighting of a code block, kept by the code, the lexer and formatter classes and
    their options (everything its output is made of); each rebuild highlights every block again.

    Wraps the `highlight` that pymdownx.highlight calls (serve only: this process serves one site).
    A lexer with filters, or options that cannot be compared, is highlighted as usual.
    """
    try:
        from pymdownx import highlight as pymdownx_highlight
    except ImportError:
        return
    original = getattr(pymdownx_highlight, "highlight", None)
    if original is None or getattr(original, "fieldguide_memo", False):
        return
    memo: dict[tuple, str] = {}

    def highlight(code, lexer, formatter, outfile=None):
        options = (getattr(lexer, "options", None), getattr(formatter, "options", None))
        if outfile is not None or getattr(lexer, "filters", True) or not all(isinstance(o, dict) for o in options):
            return original(code, lexer, formatter, outfile)
        try:
            key = (
                code,
                type(lexer),
                repr(sorted(options[0].items())),
                type(formatter),
                repr(sorted(options[1].items())),
            )
        except TypeError:
            return original(code, lexer, formatter, outfile)
        html = memo.get(key)
        if html is None:
            html = original(code, lexer, formatter)
            if len(memo) >= _HIGHLIGHT_MAX:
                memo.clear()
            memo[key] = html
        return html

    highlight.fieldguide_memo = True
    pymdownx_highlight.highlight = highlight


_EXEC_MAX = 2000
# a fence inside printed Markdown runs something of its own (a snippet block, another exec block):
# its conversion is not a function of the text alone
_NESTED_FENCE = re.compile(r"^[ \t>]*(`{3,}|~{3,})[ \t]*(snippet\b|[^\n]*\bexec=)", re.M)


class _Warned(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.seen = False

    def emit(self, record) -> None:
        self.seen = True


def memoize_exec_markdown(stamp: str) -> None:
    """markdown-exec's conversion of the Markdown a page's python block printed, kept by that text.

    Page code runs on every rebuild (its output is read from the new record); what is kept is the
    conversion of its output to HTML (a new Markdown instance per block, two fifths of a rebuild),
    which is a function of the text and the site's Markdown configuration (`stamp`: mkdocs.yml's
    content; a new stamp forgets everything). A conversion is not kept when its output is not that
    pure function: text with an include (`--8<--`) or a nested fence that runs something, output
    with ids numbered by markdown-exec's counter, headings reported to the page's table of
    contents, or a warning logged while converting.
    """
    try:
        from markdown_exec._internal import rendering
        from markupsafe import Markup
    except ImportError:
        return
    converter = getattr(rendering, "MarkdownConverter", None)
    original = getattr(converter, "convert", None)
    if original is None:
        return
    memo: dict[tuple, str] = getattr(original, "fieldguide_memo", None)
    if memo is None:
        memo = {}

        def convert(self, text, stash=None, id_prefix=None):
            key = (_exec_stamp[0], text, id_prefix, getattr(self, "_update_toc", None))
            if stash or "--8<--" in text or _NESTED_FENCE.search(text):
                return original(self, text, stash, id_prefix)
            html = memo.get(key)
            if html is not None:
                converter.counter += 1  # as the conversion does: later blocks number their ids as before
                return Markup(html)
            auto = None if id_prefix is not None else f"exec-{converter.counter + 1}--"
            warned = _Warned()
            root = logging.getLogger()
            root.addHandler(warned)
            try:
                markup = original(self, text, stash, id_prefix)
            finally:
                root.removeHandler(warned)
            headings = _reported_headings(self, markup)
            if not warned.seen and not headings and not (auto and auto in markup):
                if len(memo) >= _EXEC_MAX:
                    memo.clear()
                memo[key] = str(markup)
            return markup

        convert.fieldguide_memo = memo
        converter.convert = convert
    if _exec_stamp[0] != stamp:
        memo.clear()
        _exec_stamp[0] = stamp


_exec_stamp = [""]


def _reported_headings(converter, markup) -> bool:
    """Whether the conversion passed headings to the page's table of contents (markdown-exec keeps them by markup)."""
    md = getattr(converter, "_original_md", None)
    try:
        inserter = md.treeprocessors["markdown_exec_insert_headings"]
    except (AttributeError, KeyError, TypeError):
        return False
    return bool(getattr(inserter, "headings", {}).get(markup))
