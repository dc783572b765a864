"""What `mkdocs serve` keeps from one rebuild to the next, so an edit costs what it changes.

Everything kept is kept by its inputs, so nothing shown is older than a full build would show:

    PageMemo    a page's rendering, by its Markdown, the build's stamp and every lookup its code
                made in the live record (run/record.py counts them): an edit re-renders the pages
                whose code read what changed; a page whose code walked over all results, logged a
                warning or failed a fence is rendered again every time.

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

The watcher is told of a save by the kernel (inotify, watch_by_events) where every watched path
allows it, instead of polling the trees: nothing is spent between saves, and a save is seen at
once. Elsewhere (no inotify, its watch limit reached) it polls every 0.15 s
instead of MkDocs' 0.5 s (poll_faster).

The site directory itself is swapped in by plugin.py as in any build; the previous one is
removed in the background (nothing serves it any more).
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import json
import logging
import os
import re
import shutil
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from mkdocs.structure.files import File

from ..guide import claims
from ..run import record
from .workdirs import make_owned

_log = logging.getLogger("mkdocs.plugins.fieldguide")


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


class EventsOrPolling:
    """MkDocs' polling observer until the server starts it; then, when inotify can watch every path
    scheduled by then, an inotify observer with the same watches and handlers is started instead.

    Only events that change a file reach the handlers: with inotify the build's own reads of
    docs/ and snippets/ (opened, closed without writing) would otherwise ask for a rebuild.
    """

    def __init__(self, polling) -> None:
        self.current = polling
        self.kind = "polling"

    def __getattr__(self, name):  # schedule, unschedule, stop, join, is_alive, emitters...
        return getattr(self.current, name)

    def start(self) -> None:
        polling = self.current
        events = _inotify_copy(polling)
        if events is not None:
            try:
                events.start()
            except OSError as exc:  # e.g. fs.inotify.max_user_watches reached
                with contextlib.suppress(Exception):
                    events.stop()
                _log.info(f"fieldguide: watching for changes by polling: inotify failed ({exc})")
            else:
                self.current, self.kind = events, "inotify"
                _log.debug("fieldguide: watching for changes by inotify")
                return
        polling.start()


_CHANGES = ("created", "deleted", "modified", "moved", "closed")  # not "opened", "closed_no_write"


def _inotify_copy(polling):
    """An inotify observer with every watch and handler of `polling`; None where there is none."""
    try:
        from watchdog import events as ev
        from watchdog.observers.inotify import InotifyObserver
    except ImportError:  # not Linux
        return None
    handlers = getattr(polling, "_handlers", None)
    if not isinstance(handlers, dict):
        return None
    changes = [
        cls
        for cls in vars(ev).values()
        if isinstance(cls, type) and issubclass(cls, ev.FileSystemEvent) and getattr(cls, "event_type", "") in _CHANGES
    ]
    events = InotifyObserver()
    try:
        for watch, scheduled in list(handlers.items()):
            for handler in scheduled:
                events.schedule(
                    handler,
                    getattr(watch, "raw_path", watch.path),
                    recursive=watch.is_recursive,
                    event_filter=changes,
                )
    except (OSError, TypeError) as exc:
        _log.info(f"fieldguide: watching for changes by polling: {exc}")
        return None
    return events


def watch_by_events(server) -> None:
    """Let `server` (MkDocs' LiveReloadServer) watch by inotify once it starts, where it can."""
    observer = getattr(server, "observer", None)
    if observer is None or isinstance(observer, EventsOrPolling) or observer.is_alive():
        return
    server.observer = EventsOrPolling(observer)


def on_saved(server, directory: Path, callback) -> None:
    """Call `callback(path)` from the watcher's thread for each Python file saved under `directory`
    (created, changed or moved there), as soon as the file watcher sees it: by inotify, once the
    file is closed after writing (a save's first write event may come before its last write)."""
    observer = getattr(server, "observer", None)
    if observer is None:
        return
    from watchdog.events import FileSystemEventHandler

    class Saved(FileSystemEventHandler):
        def on_any_event(self, event) -> None:
            if getattr(server.observer, "kind", "polling") == "inotify":
                saved = ("closed", "moved")
            else:
                saved = ("created", "modified", "moved")
            if event.is_directory or event.event_type not in saved:
                return
            path = getattr(event, "dest_path", "") or event.src_path
            if str(path).endswith(".py"):
                try:
                    callback(Path(path).resolve())
                except Exception as exc:  # noqa: BLE001 - a watcher thread must not die of it
                    _log.debug("running %s ahead of the rebuild failed: %s", path, exc)

    observer.schedule(Saved(), str(directory), recursive=True)


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


_SEARCH_ATTRIBUTE = r"\s?data-search-\w+=\"[^\"]+\""  # what material's search strips from each page
_SEARCH_VALUED = re.compile(r"data-search-\w+=\"[^\"]+\"")  # (in every match of it: found by its literal start)


class _SearchRe:
    """The `re` that material's search plugin calls: its removal of valued `data-search-*` attributes
    from a page returns the page as it is when the text has none, found from the literal they start
    with, instead of trying the pattern (which opens with an optional space) at every character of
    every page's HTML on each rebuild. A page with one is substituted as before."""

    def __init__(self, module) -> None:
        self._re = module

    def __getattr__(self, name):
        return getattr(self._re, name)

    def sub(self, pattern, repl, string, *args, **kwargs):
        if pattern == _SEARCH_ATTRIBUTE and not args and not kwargs and isinstance(string, str):
            if _SEARCH_VALUED.search(string) is None:
                return string
        return self._re.sub(pattern, repl, string, *args, **kwargs)


def skip_idle_search_strip() -> None:
    """Serve only (this process serves one site): see _SearchRe."""
    try:
        from material.plugins.search import plugin as search_plugin
    except ImportError:
        return
    if getattr(search_plugin, "re", None) is re:
        search_plugin.re = _SearchRe(re)


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


# Where a warning logged during a render can arrive: the root logger, and MkDocs' own, which the
# mkdocs CLI keeps from propagating to the root (markdown-exec and MkDocs' link checks log there).
_WARNING_LOGGERS = ("", "mkdocs")


@contextlib.contextmanager
def _watching_warnings():
    """A handler on every logger a render's warnings reach; `.seen` says whether one was logged."""
    warned = _Warned()
    loggers = [logging.getLogger(name or None) for name in _WARNING_LOGGERS]
    for logger in loggers:
        logger.addHandler(warned)
    try:
        yield warned
    finally:
        for logger in loggers:
            logger.removeHandler(warned)


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
            with _watching_warnings() as warned:
                markup = original(self, text, stash, id_prefix)
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
_EXEC_IDS = re.compile(r'id="exec-\d+--')


def _reported_headings(converter, markup) -> bool:
    """Whether the conversion passed headings to the page's table of contents (markdown-exec keeps them by markup)."""
    md = getattr(converter, "_original_md", None)
    try:
        inserter = md.treeprocessors["markdown_exec_insert_headings"]
    except (AttributeError, KeyError, TypeError):
        return False
    return bool(getattr(inserter, "headings", {}).get(markup))


@dataclass
class _PageEntry:
    deps: dict[tuple, str]  # each lookup its code made in the live build -> the fingerprint of what it found
    content: str
    toc: object
    title: str | None
    anchors: set[str]
    links: dict[str, dict[str, str]] | None  # by the linked file's src_uri
    rendered: int
    page_anchors: dict[str, int]
    places: list[tuple[str, str]]
    claims: list
    uncovered: list


class PageMemo:
    """A page's rendering (its Markdown to HTML, with everything its fences and code did), kept by
    the page's Markdown, the build's stamp and what its code read from the live record.

    The stamp is everything else a page can read: the site's configuration and engine, the files of
    the site (links), docs/, records/ and the drills, the live build's header, the base record, and
    the places no text covered so far. The reads are the live record's lookups the page's code made
    while it rendered (run/record.py counts them, memos included: explain, releases); a page whose
    code walked over every result is never kept. A kept page is reused only when each of its
    lookups finds the same result in the new record; its side effects on the build (fences counted,
    snippet places, claims to check, uncovered places) are replayed. A page that logged a warning
    or failed a fence is never kept, so a served build warns and fails where a full build does.
    """

    def __init__(self) -> None:
        self._entries: dict[str, tuple[tuple, _PageEntry]] = {}  # page -> its last rendering (one per page)
        self._stamp: str | None = None
        self._live = None
        self._found: dict[int, tuple[object, str]] = {}

    def begin_build(self, stamp: str, live) -> None:
        self._stamp, self._live, self._found = stamp, live, {}

    def end_build(self) -> None:
        self._live, self._found = None, {}

    def install(self, page, files, state) -> None:
        """Render `page` through the memo (its render() is called by MkDocs after on_page_markdown)."""
        if self._live is None or self._stamp is None:
            return
        if "--8<--" in page.markdown:  # an included file (pymdownx.snippets) is read inside render: not in the key
            _log.debug("page memo: %s is never kept (it includes a file)", page.file.src_uri)
            return
        original = page.render
        key = (page.file.src_uri, page.url, page.markdown, self._stamp, _uncovered_key(state.uncovered))

        def render(config, files_=files, _page=page):
            kept, entry = self._entries.pop(page.file.src_uri, (None, None))
            if kept == key and self._still(entry) and self._apply(entry, _page, files_, state):
                self._entries[page.file.src_uri] = (key, entry)
                _log.debug("page memo: %s kept", page.file.src_uri)
                return
            _log.debug(
                "page memo: %s rendered (%s)",
                page.file.src_uri,
                "first time" if kept is None else "its text or the build changed" if kept != key else "a read changed",
            )
            places_before, uncovered_before = set(state.places), len(state.uncovered)
            started = time.perf_counter()
            with _watching_warnings() as warned, record.reading() as reads:
                original(config, files_)
            _log.debug("page memo: %s took %.2f s", page.file.src_uri, time.perf_counter() - started)
            if warned.seen or state.errors or reads.everything:
                why = "it warned" if warned.seen else "a fence failed" if state.errors else "it read every result"
                _log.debug("page memo: %s not kept (%s)", page.file.src_uri, why)
                return
            if _EXEC_IDS.search(_page.content or ""):  # markdown-exec's counter numbered them: not replayed
                _log.debug("page memo: %s not kept (markdown-exec numbered its ids)", page.file.src_uri)
                return
            links = _page.links_to_anchors
            self._entries[page.file.src_uri] = (
                key,
                _PageEntry(
                    deps={k: self._print(v) for k, v in reads.lookups.items()},
                    content=_page.content,
                    toc=copy.deepcopy(_page.toc),
                    title=_page._title_from_render,
                    anchors=set(_page.present_anchor_ids or ()),
                    links=None if links is None else {f.src_uri: dict(a) for f, a in links.items()},
                    rendered=state.rendered,
                    page_anchors=dict(state.anchors),
                    places=[(k, v) for k, v in state.places.items() if k not in places_before],
                    claims=list(claims.page_claims()),
                    uncovered=list(state.uncovered[uncovered_before:]),
                ),
            )

        page.render = render

    # -- reuse ------------------------------------------------------------------------------------
    def _print(self, found) -> str:
        if isinstance(found, str):
            return "value:" + found
        hit = self._found.get(id(found))
        if hit is None or hit[0] is not found:
            hit = self._found[id(found)] = (found, record.fingerprint(found))
        return hit[1]

    def _still(self, entry: _PageEntry) -> bool:
        """Whether each lookup the page made finds the same thing in the live record now."""
        live = self._live
        with record.unread():
            for key, was in entry.deps.items():
                if key[0] == "find":
                    try:
                        found = live.find(key[1], **dict(key[2]))
                    except LookupError:
                        found = record.MISS
                elif key[0] == "lookup":
                    found = live.lookup(key[1], dict(key[2])) or record.MISS
                elif key[0] == "built_at":
                    found = live.built_at
                elif key[0] == "logs":
                    views = repr(live.log_views()).encode("utf-8", "surrogatepass")
                    found = hashlib.sha256(views).hexdigest()
                elif key[0] == "derived":
                    found = record.derived(key[1], key[2], live)
                    if found is None:
                        return False
                elif key[0] == "ids":
                    found = "\n".join(i.command_line() for i in live.ids())
                else:
                    return False
                if self._print(found) != was:
                    return False
        return True

    def _apply(self, entry: _PageEntry, page, files, state) -> bool:
        links = None
        if entry.links is not None:
            links = {}
            for src_uri, anchors in entry.links.items():
                file = files.get_file_from_path(src_uri)
                if file is None:
                    return False
                links[file] = dict(anchors)
        page.content = entry.content
        page.toc = copy.deepcopy(entry.toc)
        page._title_from_render = entry.title
        page.present_anchor_ids = set(entry.anchors)
        if links is not None:
            page.links_to_anchors = links
        state.rendered = entry.rendered
        state.anchors = dict(entry.page_anchors)
        for k, v in entry.places:
            state.places.setdefault(k, v)
        claims.replay_page_claims(entry.claims)
        state.uncovered.extend(entry.uncovered)
        return True


def _uncovered_key(uncovered: list) -> str:
    return hashlib.sha256(repr(uncovered).encode("utf-8", "surrogatepass")).hexdigest()


def tree_stamp(*dirs: Path) -> str:
    """Every file's path, size and modification time under `dirs` (what page code reads from disk)."""
    h = hashlib.sha256()
    for d in dirs:
        for base, subdirs, names in os.walk(d):
            subdirs.sort()
            for name in sorted(names):
                path = os.path.join(base, name)
                try:
                    st = os.stat(path)
                except OSError:
                    continue
                h.update(f"{path}\0{st.st_size}\0{st.st_mtime_ns}\n".encode("utf-8", "surrogateescape"))
    return h.hexdigest()


def files_stamp(files) -> str:
    """The site's files as links see them (a page's links and anchors are resolved against them)."""
    h = hashlib.sha256()
    for f in sorted(files, key=lambda f: f.src_uri):
        h.update(f"{f.src_uri}\0{f.dest_uri}\0{f.url}\n".encode("utf-8", "surrogateescape"))
    return h.hexdigest()
