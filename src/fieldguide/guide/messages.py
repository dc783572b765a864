"""The messages index: every message this build's snippets printed, as a pattern a reader can match.

Stage 4 (render): reads the build record, and the committed records of other releases
(``records/torch-*.json.gz``) for their wording; it never executes anything.

A message is one line torch printed in a snippet's ``TORCH_LOGS=recompiles`` output (a recompile
header, a guard failure, ...) or in a log channel the snippet did not ask for (a warning such as
``torch._dynamo hit config.recompile_limit``). Each line is normalized to a *pattern*: what varies
from one program to the next (tensor and variable names, sizes, object ids, file paths) becomes a
placeholder. Lines with the same pattern are one entry of the index, linked to the section of the
guide whose snippet printed it (for a gym scenario: the section the drill names) and to that
snippet. The page ships the patterns as regular expressions, and ``assets/messages.js`` matches a
reader's pasted log against them in the browser.

This module matches and groups; it holds no explanation. What each kind of message means is written in
the page (docs/messages.md, a heading ``{ #kind-ID }`` per kind, its text under it), read from there
for the paste box, and checked: a kind the index shows without a text there fails the build.
"""

from __future__ import annotations

import functools
import html
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from markdown.extensions.toc import slugify

from ..run.fences import find_fences
from ..run.record import BuildRecord, requested_channels
from . import gym
from .links import relative_link
from .releases import read_record, releases_list

PAGE_URL = "messages/"

# -- one line, normalized ----------------------------------------------------------------------
_ENTRY = re.compile(r"^-\s+(?:\d+/\d+:(?:\s+|$))?")
_COMMENT = re.compile(r"\s{2,}(?:#\s|\(HINT: ).*$")  # a user-code comment, or torch's hint after the guard
_CARET = re.compile(r"^[~^]+$")  # the caret line under a source line in a traceback
_TRACE = re.compile(r'^(?:User stack trace:|File ".*", line \d+|\s)')
_QUOTED = re.compile(r"'(?:[^'\[\]]|\[[^\]]*\])*'")
_PATH = re.compile(r"(?:[A-Za-z]:)?(?:[\w.~-]*/)+[\w.-]+\.py(?::\d+)?")
_NUMBER = re.compile(r"(?<![\w<])-?\d+(?:\.\d+)?(?:e[-+]?\d+)?(?![\w>])")
_EXPR_LINE = re.compile(r" == | != | <= | >= | < | > |^___|^\(|^not |^isinstance\(|^hasattr\(|^len\(")
_CHAIN = re.compile(
    r"""(?<![\w.'"<])(?:[LG]\[(?:'[^']*'|"[^"]*")\]|[A-Za-z_]\w*)(?:\.\w+|\[(?:'[^']*'|"[^"]*"|\d+)\])*"""
)
_STACK = re.compile(r"L\['___stack\d+'\]")  # a value left across a graph break (torch 2.2-2.6 spell it so)
_KEEP = {"and", "or", "not", "is", "in", "None", "True", "False", "type", "class", "id", "isinstance", "hasattr", "len"}
PLACEHOLDERS = {
    "id": r"\S+?",
    "n": r"-?\d+(?:\.\d+)?(?:e[-+]?\d+)?",
    "name": r".+?",
    "file": r".+?",
    "expr": r"(?!___|len\()(?:.+?)",  # never a torch helper (___stack0) or len(): those stay in a pattern
    "value": r"\S+?",
    "state": r".+?",
    "keys": r"DispatchKeySet\([^()]*\)",
}
_PLACEHOLDER = re.compile(r"<(" + "|".join(PLACEHOLDERS) + r")>")


def _protect(text: str, pattern: re.Pattern, repl) -> str:
    return pattern.sub(repl, text)


def _expression(text: str) -> str:
    """A guard predicate: user-side names become <expr>, torch's helpers (___x) stay."""

    def chain(m: re.Match) -> str:
        s, end = m.group(0), m.end()
        if s.startswith("___") or s in _KEEP or s.startswith("<") or _STACK.fullmatch(s):
            return s
        if end < len(m.string) and m.string[end] == "(":  # a call: keep the method name
            head, dot, method = s.rpartition(".")
            return f"<expr>.{method}" if dot else s
        return "<expr>"

    text = _CHAIN.sub(chain, text)
    return _NUMBER.sub("<n>", text)


@functools.lru_cache(maxsize=16384)  # a pure function of the line; the page normalizes every release's lines
def normalize(line: str) -> str:
    """The pattern of one printed message line (entry id, user-code comment and spaces dropped)."""
    text = message_text(line)
    head, sep, rest = text.partition("last reason: ")
    if sep:  # the hit-limit warning quotes a guard failure: normalize it as one
        return _normalize_part(head) + sep + normalize("- " + rest)
    parts = re.split(r"(https?://\S+)", text)  # addresses stay as printed
    return "".join(p if i % 2 else _normalize_part(p, len(parts) == 1) for i, p in enumerate(parts))


def _normalize_part(text: str, whole: bool = False) -> str:
    text = re.sub(r"0x[0-9a-fA-F]+", "<id>", text)
    text = re.sub(r"(?<![\w/.])\d{6,}\b", "<id>", text)  # an object id (not a float's decimals)
    text = re.sub(r"DispatchKeySet\([^()]*\)", "<keys>", text)
    text = re.sub(r"\b(hash: )\w+", r"\1<id>", text)
    text = _PATH.sub("<file>", text)
    text = re.sub(r"^(Recompiling function )\S+", r"\1<name>", text)
    text = re.sub(r"^(function: )'[^']*'", r"\1'<name>'", text)
    text = re.sub(r"(GLOBAL_STATE changed: ).+$", r"\1<state>", text)
    text = re.sub(r"\b(expected|actual) [A-Z]\w*", r"\1 <value>", text)
    if whole and _EXPR_LINE.search(text) and not text.startswith("tensor "):
        head, sep, kind = text.partition(", type=<")  # ID_MATCH names the object's type after the guard
        kind = re.sub(r"^(code object )\S+( at .*, line )\d+>$", r"\1<name>\2<n>>", kind)
        return _expression(re.sub(r"(?<!\[)" + _QUOTED.pattern, "'<name>'", head)) + sep + kind
    text = _QUOTED.sub("'<name>'", text)
    return _NUMBER.sub("<n>", text)


def to_regex(pattern: str) -> str:
    """A regular expression (valid in Python and JavaScript) matching the lines of a pattern."""
    parts, pos = [], 0
    for m in _PLACEHOLDER.finditer(pattern):
        parts.append(re.escape(pattern[pos : m.start()]))
        parts.append("(?:" + PLACEHOLDERS[m.group(1)] + ")")
        pos = m.end()
    parts.append(re.escape(pattern[pos:]))
    # Python's re.escape escapes characters JavaScript's u-less regexes read the same way;
    # only drop the escapes JavaScript would reject ("\ " is fine, "\'" and '\"' are fine too).
    return "^" + "".join(parts) + r"\s*$"


def message_text(line: str) -> str:
    """What the matcher compares: a printed line without entry id, user-code comment and spaces."""
    text = _COMMENT.sub("", _ENTRY.sub("", line.strip())).strip()
    return re.sub(r"^(last reason: )\d+/\d+: ", r"\1", text)


# -- what a pattern means ----------------------------------------------------------------------
# A kind is matched here; what it means is written in the page (docs/messages.md): a heading with the
# anchor "kind-ID" and the paragraphs under it, up to the table the page prints for that kind.
@dataclass(frozen=True)
class Kind:
    id: str
    test: re.Pattern  # searched in a pattern (a normalized line), never in a raw line
    explained: str = ""  # a docs page and anchor that teaches this kind ("breaks.md#resume-functions"), if one does

    @property
    def title(self) -> str:
        return kind_texts()[self.id].title

    @property
    def text(self) -> str:
        """The page's explanation of this kind as plain text (inline code marks dropped)."""
        return kind_texts()[self.id].plain


# What outlives a process: the caches' counters (lesson 6's runs print them), the automatic-dynamic profile's
# log lines (torch's pgo module) and the artifact calls. No example logs these as a log line.
_NEXT_PROCESS = (
    r"\b(?:fxgraph|autograd)_cache_(?:hit|miss|bypass|saved)\b|\b(?:get|put)_code_state\b"
    r"|TORCH_COMPILE_JOB_ID|\b(?:save|load)_cache_artifacts\b"
)

KINDS = [
    Kind(
        "header", re.compile(r"^Recompiling function |^triggered by the following guard failure|^guard <n> failures:$")
    ),
    Kind(
        "limit",
        re.compile(r"hit config\.\w*limit|last reason: |^function: |^To (?:log|diagnose) "),
        "realcode.md#limit-warning",
    ),
    Kind("size", re.compile(r"size mismatch")),
    Kind("stride", re.compile(r"stride mismatch")),
    Kind("requires-grad", re.compile(r"requires_grad mismatch")),
    Kind("dtype", re.compile(r"dtype mismatch")),
    Kind("device", re.compile(r"device mismatch|DispatchKeySet mismatch|dispatch key set mismatch")),
    Kind("global-state", re.compile(r"GLOBAL_STATE|___check_global_state")),
    Kind("backend", re.compile(r"BACKEND_MATCH|backend"), "capture.md#the-backend"),
    Kind("object-id", re.compile(r"___check_obj_id|ID_MATCH")),
    Kind("type-id", re.compile(r"___check_type_id|TYPE_MATCH")),
    Kind("size-range", re.compile(r"<= <expr>\.size\(\)|<expr>\.size\(\)\[<n>\] [<>]=?")),
    # torch 2.2-2.6 print L['___stack0'], later releases ___stack0 (normalize keeps both)
    Kind("resume-value", re.compile(r"^(?:L\['___stack\d+'\]|___stack\d+) (?:==|!=) "), "breaks.md#resume-functions"),
    Kind("list-length", re.compile(r"^len\(<expr>\) (?:==|!=) "), "guards.md#input-kinds-fix"),
    Kind("value", re.compile(r"^<expr> == ")),
    Kind("config", re.compile(r"config saved when compiling|^Saved hash|^Restoring saved config|^\* \w+=")),
    Kind("graph-break", re.compile(r"^Graph break"), "breaks.md#what-breaks-a-graph"),
    # no example logs these two: they are here for the causes below (a pasted line), not for the index
    Kind("stance", re.compile(r"Detected recompile when torch\.compile stance is"), "realcode.md#fail-on-recompile"),
    Kind("nn-module", re.compile(r"__nn_module_guard_\d+"), "guards.md#modules-identity-or-type"),
    Kind("next-process", re.compile(_NEXT_PROCESS), "nextprocess.md#what-a-second-process-compiles"),
]
OTHER = Kind("other", re.compile(""))


# -- what a pasted line checks -----------------------------------------------------------------
# A kind says what a message's words mean; a cause says which section of the guide explains why a program
# printed it, read from what the line checks (the guard and the shape of its source), not from the
# wording the guide's own snippets printed. A pattern such as `<expr> == <n>` is a learning rate, a layer
# index or a flag; `L['opt'].param_groups[0]['lr'] == 0.0003` is a learning rate whatever the program.
#
# The paste box (assets/messages.js) tries the causes in order on each line's message text (logger
# prefix, entry id and user-code comment dropped; a `last reason:` line is read as the guard it quotes):
# the first cause that matches gives the line its link. A cause names the kind whose text (in
# docs/messages.md) explains a line that no measured pattern matches. Adding a cause is one rule here and
# one section of the guide; the section must exist (PageError). A cause whose section is being written
# names the section it links until then (`until_written`, which must exist): the page switches to the new
# section by itself once docs/ has its anchor.
@dataclass(frozen=True)
class Cause:
    id: str
    test: str  # a regular expression, valid in Python and JavaScript, searched in a line's message text
    section: str  # the docs page and anchor that explains it: "realcode.md#learning-rate-schedules"
    kind: str  # the kind of message it is (for a line no measured pattern matches)
    until_written: str = ""  # while `section` does not exist yet: the section linked instead


_MODULE = r"(?:L\[['\"]self['\"]\]|self\b|[^\s(),=]*\._modules\[[^\]]+\])"  # a module: self, or a submodule
_ATTRS = r"(?:\.\w+|\[[^\]]+\])*"  # attributes and items read from it
CAUSES = [
    # errors and warnings, whatever the program
    Cause(
        "fail-on-recompile",
        r"Detected recompile when torch\.compile stance is",
        "realcode.md#fail-on-recompile",
        "stance",
    ),
    Cause(
        "accumulated-limit",
        r"torch\._dynamo hit config\.accumulated_\w*limit",
        "dynamic.md#accumulated-limit",
        "limit",
    ),
    Cause(
        "limit",
        # the warning's first line, and its hints (their address changes from one release to the next)
        r"torch\._dynamo hit config\.\w*limit|^To log all recompilation reasons|^To diagnose recompilation issues",
        "realcode.md#limit-warning",
        "limit",
    ),
    Cause(
        "graph-break-log",
        r"^Graph [Bb]reak(?::.* from user code at|:? [Rr]eason:| in user code at )",
        "breaks.md#reading-graph-breaks",
        "graph-break",
    ),
    Cause("graph-break", r"^Graph break from ", "breaks.md#what-breaks-a-graph", "graph-break"),
    # guards, by what they check: the most specific first
    Cause(
        "hooks",
        r"_(?:forward|backward)(?:_pre)?_hooks\b|_hooks_with_kwargs\b",
        "realcode.md#hooks",
        "value",
    ),
    Cause(
        "learning-rate",
        r"\bparam_groups\b|(?:^|\.|\[['\"])(?:\w+_)?(?:lr|learning_rate)(?:['\"]\])? == ",
        "realcode.md#learning-rate-schedules",
        "value",
    ),
    # an optimizer object checked by identity, or the keys of its state (one optimizer per parameter)
    Cause(
        "optimizer",
        r"___check_obj_id\((?:L\[['\"])?(?:\w*optim\w*|opt)\b|type=<class 'torch\.optim\.|___dict_param_key_ids\(",
        "realcode.md#optimizer-per-parameter",
        "object-id",
    ),
    Cause("training", r"\.training\b|\[['\"]training['\"]\]", "realcode.md#train-and-eval", "value"),
    Cause("nn-module", r"__nn_module_guard_\d+", "guards.md#modules-identity-or-type", "nn-module"),
    Cause("next-process", _NEXT_PROCESS, "nextprocess.md#what-a-second-process-compiles", "next-process"),
    Cause("code-object", r"___check_obj_id\([^,]*\.__code__\b", "guards.md#what-guards-do-not-cover", "object-id"),
    Cause(
        "per-layer-objects",
        rf"___check_obj_id\({_MODULE}{_ATTRS}\.(?!_modules\b)\w+\s*,",
        "realcode.md#per-layer-objects",
        "object-id",
    ),
    Cause(
        "module-identity", rf"___check_(?:obj|type)_id\({_MODULE}", "guards.md#modules-identity-or-type", "object-id"
    ),
    Cause(
        "module-counter",
        rf"^{_MODULE}{_ATTRS}\.\w*(?:step|count|call|iter|epoch|update)\w* == -?\d+$",
        "realcode.md#module-counter",
        "value",
    ),
    Cause("layer-index", rf"^{_MODULE}{_ATTRS}\.\w+ == -?\d+$", "realcode.md#per-layer-attributes", "value"),
    Cause("module-attribute", rf"^{_MODULE}{_ATTRS}\.\w+ == ", "guards.md#modules-identity-or-type", "value"),
    Cause(
        "inference-mode-and-autocast",
        r"GLOBAL_STATE changed: .*\b(?:grad_mode|autocast|inference)|___check_global_state\(\)|autocast|inference_mode"
        r"|_get_grad_enabled|is_grad_enabled",
        "realcode.md#inference-mode-and-autocast",
        "global-state",
    ),
    Cause(
        "global-state",
        r"GLOBAL_STATE changed|___check_global_state\(\)|autocast|inference_mode|_get_grad_enabled|is_grad_enabled"
        r"|___check_torch_function_mode_stack|\bnum_threads\b|deterministic_algorithms|CURRENT_DEVICE",
        "guards.md#ambient-state",
        "global-state",
    ),
    # 2.10 on: BACKEND_MATCH failure; 2.3: ___check_current_backend(id); 2.2: ___current_backend() == ___lookup_backend(id)
    Cause(
        "backend",
        r"BACKEND_MATCH|___check_current_backend\(|___current_backend\(\)|___lookup_backend\(",
        "capture.md#the-backend",
        "backend",
    ),
    Cause(
        "config",
        r"config saved when compiling|^Saved hash: |^Restoring saved config|^\* \w+=.*\(prev: ",
        "guards.md#ambient-state",
        "config",
    ),
    Cause(
        "resume-value", r"^(?:L\[['\"])?___stack\d+(?:['\"]\])? [=!]= ", "breaks.md#resume-functions", "resume-value"
    ),
    Cause(
        "size",
        r"size mismatch at index \d+|\.size\(\)\[\d+\]|\bsym_size\b",
        "dynamic.md#from-static-to-dynamic",
        "size",
    ),
    Cause(
        "stride",
        r"stride mismatch at index \d+|\.stride\(\)\[\d+\]",
        "guards.md#what-the-tensor-check-compares",
        "stride",
    ),
    Cause("dtype", r"dtype mismatch", "guards.md#what-the-tensor-check-compares", "dtype"),
    Cause("requires-grad", r"requires_grad mismatch", "guards.md#what-the-tensor-check-compares", "requires-grad"),
    Cause(
        "device",
        r"device mismatch|dispatch key set mismatch|DispatchKeySet mismatch",
        "guards.md#what-the-tensor-check-compares",
        "device",
    ),
    Cause("scalar", r"^(?:L\[['\"]\w+['\"]\]|[A-Za-z_]\w*) == -?\d", "dynamic.md#scalars", "value"),
]


@dataclass(frozen=True)
class KindText:
    """What the page says a kind of message means: its heading and the Markdown under it."""

    title: str
    text: str  # Markdown: paragraphs with inline code

    @property
    def plain(self) -> str:
        return re.sub(r"`([^`]*)`", r"\1", " ".join(self.text.split()))


PAGE = "messages.md"
_KIND_HEADING = re.compile(r"^#{2,6}\s+(?P<title>.*?)\s*\{\s*#kind-(?P<id>[\w-]+)[^}]*\}\s*$")


class PageError(ValueError):
    """The messages page does not explain a kind the index shows, or explains one that does not exist."""


def read_kind_texts(markdown: str) -> dict[str, KindText]:
    """kind id -> its heading and text, from the page's headings {#kind-ID} (fenced code is not text)."""
    out: dict[str, KindText] = {}
    current: tuple[str, str] | None = None
    body: list[str] = []
    in_code = False

    def close():
        if current:
            out[current[0]] = KindText(current[1], "\n".join(body).strip())

    for line in markdown.splitlines():
        if re.match(r"^\s*(```|~~~)", line):
            in_code = not in_code
            if current:  # the kind's text ends where its table's code block starts
                close()
                current = None
            continue
        if in_code:
            continue
        m = _KIND_HEADING.match(line)
        if m or line.startswith("#"):
            close()
            current, body = ((m.group("id"), m.group("title")) if m else None), []
            continue
        if current:
            body.append(line)
    close()
    return out


_DOCS_DIR = Path(__file__).resolve().parents[3] / "docs"  # the checkout's docs (the package is installed editable)


@functools.lru_cache(maxsize=4)
def _page_texts(path: Path, mtime: float) -> dict[str, KindText]:
    return read_kind_texts(path.read_text(encoding="utf-8"))


def kind_texts(docs_dir: Path | None = None) -> dict[str, KindText]:
    """The page's explanation of each kind (docs/messages.md): a copy, so a caller cannot change the cached one."""
    path = (docs_dir or _DOCS_DIR) / PAGE
    return dict(_page_texts(path, path.stat().st_mtime))


def kind_of(pattern: str) -> Kind:
    return next((k for k in KINDS if k.test.search(pattern)), OTHER)


# -- where a snippet is explained --------------------------------------------------------------
@dataclass(frozen=True)
class Section:
    page: str  # site URL of the page, "guards/"
    anchor: str
    title: str

    @property
    def url(self) -> str:
        return self.page + (f"#{self.anchor}" if self.anchor else "")


_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*(?:\{\s*#([\w-]+)[^}]*\})?\s*$")


@functools.lru_cache(maxsize=64)  # by the page's text: the index reads every page several times a build
def page_sections(markdown: str) -> tuple[tuple[int, str, str], ...]:
    """(line, anchor, title) of every heading, in order (fenced code skipped). A heading that is only
    "What to do" is titled by the heading it sits under too ("Five calls, one shape: what to do"), so
    a link to it says which cause it is for."""
    out, in_code = [], False
    parents: list[tuple[int, str]] = []  # (level, plain title) of the headings above this line
    for i, line in enumerate(markdown.splitlines(), 1):
        if re.match(r"^\s*(```|~~~)", line):
            in_code = not in_code
            continue
        m = None if in_code else _HEADING.match(line)
        if m:
            title = m.group(2).strip()
            plain = re.sub(
                r"(?<!\w)_|_(?!\w)|\*", "", re.sub(r"`([^`]*)`", lambda c: c.group(1).replace("_", "\0"), title)
            )
            plain = plain.replace("\0", "_")  # code keeps its underscores
            level = len(m.group(1))
            parents = [(lv, t) for lv, t in parents if lv < level]
            shown = f"{parents[-1][1]}: what to do" if plain == "What to do" and parents else plain
            parents.append((level, plain))
            out.append((i, m.group(3) or slugify(title, "-"), shown))
    return tuple(out)


def snippet_sections(docs_dir: Path, page_urls: dict[str, str]) -> dict[str, list[Section]]:
    """snippet path (snippets/x/y.py) -> the sections whose fences show it, in page order."""
    found: dict[str, list[Section]] = {}
    for src, url in sorted(page_urls.items()):
        path = docs_dir / src
        if not path.exists():
            continue
        text = path.read_text(encoding="utf-8")
        heads = page_sections(text)
        for f in find_fences(text):
            if f.fence is None:
                continue
            before = [h for h in heads if h[0] < f.line]
            anchor, title = (before[-1][1], before[-1][2]) if before else ("", heads[0][2] if heads else src)
            if len(before) == 1 and before[0][0] == heads[0][0]:  # under the page title: the page itself
                anchor = ""
            sec = Section(url, anchor, title)
            lst = found.setdefault(f"snippets/{f.fence.path}", [])
            if sec not in lst:
                lst.append(sec)
    return found


def dump_sections(docs_dir: Path, page_urls: dict[str, str]) -> list[Section]:
    """The sections whose page shows a guard dump (a fence showing the guards channel's output)."""
    out: list[Section] = []
    for src, url in sorted(page_urls.items()):
        path = docs_dir / src
        if not path.exists() or src.startswith(("gym/", "build/")):
            continue
        text = path.read_text(encoding="utf-8")
        heads = page_sections(text)
        for f in find_fences(text):
            if f.fence is None or "guards" not in f.fence.shown_channels() or f.fence.show not in ("both", "output"):
                continue
            before = [h for h in heads if h[0] < f.line]
            if before:
                sec = Section(url, before[-1][1], before[-1][2])
                if sec not in out:
                    out.append(sec)
    return out


def gym_sections(snippets_dir: Path, docs_dir: Path) -> dict[str, list[Section]]:
    """A gym scenario's snippet -> the section its drill says explains it."""

    out: dict[str, list[Section]] = {}
    try:
        drills = gym.load_drills(snippets_dir)
    except gym.DrillError:
        return out
    for d in drills:
        for s in d.scenarios:
            page, _, anchor = s.explained.partition("#")
            url = page[: -len(".md")] + "/" if page.endswith(".md") else page
            if url == "index/":
                url = "./"
            title = anchor.replace("-", " ").capitalize() if anchor else page
            md = docs_dir / page
            if md.exists():
                title = next((t for _, a, t in page_sections(md.read_text(encoding="utf-8")) if a == anchor), title)
            out.setdefault(f"snippets/{s.snippet}", []).append(Section(url, anchor, title))
    return out


# -- the index ---------------------------------------------------------------------------------
@dataclass
class Message:
    pattern: str
    kind: Kind
    role: str  # "header", "reason", "warning", "note"
    example: str  # one line as printed (this build's when it printed one)
    snippets: dict[str, set[str]] = field(default_factory=dict)  # snippet path -> torch releases
    here: bool = False  # printed by this build
    # the patterns of the lines that continue a multi-line warning -> the releases that printed each (a row's
    # releases need not have printed every line that followed it on another release)
    parts: dict[str, set[str]] = field(default_factory=dict)

    @property
    def regex(self) -> str:
        return to_regex(self.pattern)


# A line that starts a new message in a warning channel (the lines after it, up to a blank line or the
# next such line, continue it: a warning torch logs is one record of several lines).
_WARNING_HEAD = re.compile(r"^(?:torch\._dynamo hit |Graph break|Recompiling function |\S.*:\d+: \w*Warning: )")
_FRAME = re.compile(r'^(\s*)File ".*", line \d+')
_RECOMPILE_CHANNELS = ("recompiles", "recompiles_verbose")


def _depth(text: str) -> int:
    """How many more brackets a line opens than it closes."""
    return sum(text.count(c) for c in "([{") - sum(text.count(c) for c in ")]}")


def _recompile_lines(text: str) -> list[tuple[str, str, list[str]]]:
    out, in_trace = [], False
    open_parts: list[str] | None = None  # a reason whose object repr spans lines ("type=SGD (" ... ")")
    depth = 0
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped:
            continue
        if open_parts is not None and stripped.startswith("- "):  # each line of the repr, "- "-prefixed
            open_parts.append(stripped)
            depth += _depth(_COMMENT.sub("", stripped))
            if depth <= 0:
                open_parts = None
            continue
        open_parts = None
        if stripped.startswith(("Recompiling function", "triggered by")) or re.match(
            r"^guard \d+ failures:$", stripped
        ):
            out.append(("header", stripped, []))
            in_trace = False
        elif stripped.startswith("- "):
            body = message_text(stripped)
            in_trace = in_trace and re.match(r"^-\s{2,}", stripped) is not None  # "-   File", "-     source"
            if body.startswith("User stack trace") or in_trace:
                in_trace = True
                continue
            if body:  # "- 0/0:" alone: an entry with no reason printed
                out.append(("reason", stripped, []))
                depth = _depth(_COMMENT.sub("", stripped))
                if depth > 0:
                    open_parts = out[-1][2]
        else:
            out.append(("note", stripped, []))
    return out


def _warning_messages(text: str) -> list[tuple[str, str, list[str]]]:
    """The warnings of a channel, each (role, first line, continuation lines); tracebacks (frame, source
    and caret lines) are left out: they are the reader's code, not torch's message."""
    out: list[tuple[str, str, list[str]]] = []
    current: list[str] | None = None
    frame_indent = -1  # inside a traceback frame: the indent of its File line
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped:
            current, frame_indent = None, -1
            continue
        indent = len(line) - len(line.lstrip())
        if frame_indent >= 0 and indent > frame_indent:  # the frame's source and caret lines
            continue
        frame_indent = -1
        m = _FRAME.match(line)
        if m:
            frame_indent = len(m.group(1))
            continue
        if stripped.startswith("User stack trace:") or _CARET.match(stripped):
            continue
        if current is None or _WARNING_HEAD.match(stripped):
            current = []
            out.append(("warning", stripped, current))
        else:
            current.append(stripped)
    return out


def _messages(result) -> list[tuple[str, str, list[str]]]:
    """(role, line, continuation lines) of every message a result printed: its recompile log (and the
    recompiles_verbose one set_logs turns on) and the warnings of the channels it did not ask for."""
    out = []
    for channel in _RECOMPILE_CHANNELS:
        out += _recompile_lines(result.logs.get(channel, ""))
    asked = set(requested_channels(result.env))
    for channel, text in result.logs.items():
        if channel in asked or channel in ("guards", *_RECOMPILE_CHANNELS):
            continue
        out += _warning_messages(text)
    return out


def _lines(result) -> list[tuple[str, str]]:
    """(role, line) of every message line a result printed, continuation lines included."""
    return [(role, line) for role, head, parts in _messages(result) for line in (head, *parts)]


def collect(build: BuildRecord, others: list[BuildRecord] = ()) -> dict[str, Message]:
    """pattern -> Message, from this build's record first, then the other releases' records."""
    found: dict[str, Message] = {}
    for rec, here in [(build, True), *((o, False) for o in others)]:
        for result in rec.log_views():
            for role, line, rest in _messages(result):
                pattern = normalize(line)
                if not pattern or _TRACE.match(message_text(line)):
                    continue
                msg = found.get(pattern)
                if msg is None:
                    msg = found[pattern] = Message(pattern, kind_of(pattern), role, message_text(line))
                msg.snippets.setdefault(result.path, set()).add(rec.torch)
                msg.here = msg.here or here
                for part in map(normalize, rest):
                    if part:
                        msg.parts.setdefault(part, set()).add(rec.torch)
    return found


def release_records(root: Path, exclude: str = "") -> list[BuildRecord]:
    """The committed measurements of other releases (records/torch-*.json.gz), oldest first."""

    out = []
    for path in sorted((root / "records").glob("torch-*.json*")):
        try:
            rec = read_record(path)
        except (OSError, ValueError, KeyError, TypeError):
            continue
        if rec.torch.split("+")[0] != exclude.split("+")[0]:
            out.append(rec)
    return sorted(out, key=lambda r: tuple(int(p) for p in re.findall(r"\d+", r.torch.split("+")[0])[:3]))


def sections_for(
    msg: Message, sections: dict[str, list[Section]], kinds: dict[str, Section] | None = None
) -> list[Section]:
    """The section that teaches the message's kind (if one does), then the sections that show the snippets
    that printed it: chapters first, the most printing first."""
    scored: dict[Section, int] = {}
    for path, releases in msg.snippets.items():
        for sec in sections.get(path, []):
            scored[sec] = scored.get(sec, 0) + len(releases)
    found = sorted(scored, key=lambda s: (s.page.startswith("gym/"), -scored[s], s.page, s.anchor))
    first = (kinds or {}).get(msg.kind.id)
    return ([first] if first else []) + [s for s in found if s != first]


ROLE_ORDER = {"header": 0, "reason": 1, "warning": 2, "note": 3}
ROLE_LABEL = {"header": "recompile header", "reason": "guard failure", "warning": "warning", "note": "log note"}


@dataclass
class Index:
    torch: str
    releases: list[str]
    messages: list[Message]
    sections: dict[str, list[Section]]
    dumps: list[Section] = field(default_factory=list)
    kinds: dict[str, Section] = field(default_factory=dict)  # kind id -> the section that teaches it
    texts: dict[str, KindText] = field(default_factory=dict)  # kind id -> what the page says it means
    causes: dict[str, Section] = field(default_factory=dict)  # cause id -> its section (the causes in use)
    recorded: bool = True  # the build's release has a committed record (False: a torch the guide never saw)


def find_section(docs_dir: Path, ref: str) -> Section | None:
    """The section a docs reference ("dynamic.md#two-limits") names, its title read from the page; None when
    the page or its anchor does not exist."""
    page, _, anchor = ref.partition("#")
    md = docs_dir / page
    if not page or not md.exists():
        return None
    heads = page_sections(md.read_text(encoding="utf-8"))
    title = next((t for _, a, t in heads if a == anchor), None) if anchor else (heads[0][2] if heads else page)
    if title is None and page.startswith("gym/") and re.fullmatch(r"gym-\d+", anchor):
        title = anchor.replace("gym-", "GYM·") + " drill"  # the gym's drill headings are rendered: "gym-8" -> "GYM·8"
    return Section(page_url(page), anchor, title) if title else None


def kind_sections(docs_dir: Path) -> dict[str, Section]:
    """kind id -> the section its `explained` names (title read from the page; a missing page is left out)."""
    out = {}
    for k in KINDS:
        sec = find_section(docs_dir, k.explained) if k.explained else None
        if sec:
            out[k.id] = sec
    return out


def cause_sections(docs_dir: Path) -> dict[str, Section]:
    """cause id -> the section the paste box links for it: its own, or while that is being written the one
    named `until_written`. Raises PageError when the section to link does not exist (a link to nowhere)."""
    out, missing = {}, []
    for c in CAUSES:
        sec = find_section(docs_dir, c.section) or (
            find_section(docs_dir, c.until_written) if c.until_written else None
        )
        if sec:
            out[c.id] = sec
        else:
            missing.append(
                f"the cause {c.id!r} links docs/{c.section}"
                + (f" (until it is written, docs/{c.until_written})" if c.until_written else "")
                + ", and that section does not exist"
            )
    if missing:
        raise PageError("\n".join(missing))
    return out


def build_index(build: BuildRecord, root: Path, docs_dir: Path, page_urls: dict[str, str]) -> Index:
    others = release_records(root, exclude=build.torch)
    found = collect(build, others)
    sections = snippet_sections(docs_dir, page_urls)
    for path, secs in gym_sections(root / "snippets", docs_dir).items():
        sections[path] = secs + [s for s in sections.get(path, []) if s not in secs]
    order = [k.id for k in KINDS] + [OTHER.id]
    msgs = sorted(found.values(), key=lambda m: (order.index(m.kind.id), ROLE_ORDER[m.role], not m.here, m.pattern))
    return Index(
        build.torch,
        [o.torch for o in others],
        msgs,
        sections,
        dump_sections(docs_dir, page_urls),
        kind_sections(docs_dir),
        kind_texts(docs_dir),
        cause_sections(docs_dir),
        recorded=_recorded(root, build.torch),
    )


def _recorded(root: Path, torch: str) -> bool:
    """Whether the build's release is one the guide records: listed in records/releases.toml, the
    rule the banner and the Across releases page follow (a root without the list records every one)."""
    if not (root / "records" / "releases.toml").exists():
        return True
    return torch.split("+")[0] in releases_list(root)[1]


def check_texts(index: Index) -> None:
    """Raise PageError when a kind the index shows, or a cause in use names, has no text in the page, or the
    page explains a kind that does not exist or that neither a measured message nor a cause has (its text
    would stand over an empty table)."""
    shown = {m.kind.id for m in index.messages}
    named = {c.kind for c in CAUSES if c.id in index.causes}
    known = {k.id for k in [*KINDS, OTHER]}
    problems = [
        f"no heading {{#kind-{k}}} in docs/{PAGE} explains the kind {k!r}"
        for k in sorted((shown | named) - set(index.texts))
    ]
    problems += [
        f"docs/{PAGE} explains {{#kind-{k}}}, which is not a kind of messages.py"
        for k in sorted(set(index.texts) - known)
    ]
    problems += [
        f"docs/{PAGE} explains {{#kind-{k}}}, and no release measured a message of that kind, nor does a cause name it"
        for k in sorted((set(index.texts) & known) - shown - named)
    ]
    problems += [f"docs/{PAGE}: the kind {k!r} has a heading and no text" for k, t in index.texts.items() if not t.text]
    if problems:
        raise PageError("\n".join(problems))


def _link(section: Section, page_url: str) -> str:
    return relative_link(page_url, section.page) + (f"#{section.anchor}" if section.anchor else "")


def _version(release: str) -> list[int]:
    return [int(x) for x in re.findall(r"\d+", release.split("+")[0])[:3]]


def _this_build(index: Index) -> str:
    return " (this build)" if index.recorded else " (this build, not recorded)"


def _releases_text(msg: Message, index: Index) -> str:
    return _release_list({r for rs in msg.snippets.values() for r in rs}, index)


def _release_list(releases: set[str], index: Index) -> str:
    return ", ".join(
        r.split("+")[0] + (_this_build(index) if r == index.torch else "") for r in sorted(releases, key=_version)
    )


def specificity(pattern: str) -> tuple[int, int]:
    """How specific a pattern is: its literal characters, then fewer placeholders. A line that several
    patterns match is the most specific one's (``___stack0 == <n>`` rather than ``<expr> == <n>``)."""
    literal = _PLACEHOLDER.sub("", pattern)
    return (len(literal), -len(_PLACEHOLDER.findall(pattern)))


def data(index: Index, page_url: str = PAGE_URL) -> dict:
    """What assets/messages.js needs: kinds (the page's title and text, Markdown with inline code), placeholders, and every pattern (regex, kind,
    links) in the order a line is matched: the most specific first, the first pattern matching wins.
    A continuation line of a multi-line warning is a pattern too, ``part_of`` the warning's row."""
    kinds = {
        k: {"title": t.title, "text": _site_links(" ".join(t.text.split()), page_url)} for k, t in index.texts.items()
    }
    patterns = []
    for i, m in enumerate(index.messages):
        secs = sections_for(m, index.sections, index.kinds)
        entry = {
            "id": f"m{i + 1}",
            "kind": m.kind.id,
            "role": m.role,
            "sections": [{"title": s.title, "href": _link(s, page_url)} for s in secs[:3]],
            "snippets": [{"path": p, "href": relative_link(page_url, p)} for p in sorted(m.snippets)][:3],
            "releases": _releases_text(m, index),
        }
        patterns.append({**entry, "re": m.regex, "pattern": m.pattern})
        for part, releases in m.parts.items():
            patterns.append(
                {
                    **entry,
                    "re": to_regex(part),
                    "pattern": part,
                    "part_of": m.pattern,
                    "releases": _release_list(releases, index),
                }
            )
    seen, ordered = set(), []
    for p in sorted(patterns, key=lambda p: specificity(p["pattern"]), reverse=True):  # stable: rows keep their order
        if p["pattern"] not in seen:
            seen.add(p["pattern"])
            ordered.append(p)
    dumps = [{"title": s.title, "href": _link(s, page_url)} for s in index.dumps[:2]]
    causes = [
        {"id": c.id, "re": c.test, "kind": c.kind, "section": _section_link(index.causes[c.id], page_url)}
        for c in CAUSES
        if c.id in index.causes
    ]
    limit = index.kinds.get("limit")
    return {
        "torch": index.torch,
        "kinds": kinds,
        "placeholders": sorted(PLACEHOLDERS),
        "patterns": ordered,
        "causes": causes,
        "limit": _section_link(limit, page_url) if limit else None,
        "dumps": dumps,
    }


def _section_link(section: Section, page_url: str) -> dict:
    return {"title": section.title, "href": _link(section, page_url)}


_MD_LINK = re.compile(r"\]\(([\w/-]+\.md)(#[\w-]+)?\)")


def _site_links(text: str, from_url: str) -> str:
    """A kind's Markdown text with its links to docs pages (`[Two limits](dynamic.md#two-limits)`) made links
    from the page at from_url ("../dynamic/#two-limits"), as the paste box shows them."""
    return _MD_LINK.sub(lambda m: f"]({relative_link(from_url, page_url(m.group(1)))}{m.group(2) or ''})", text)


def match(text: str, payload: dict) -> dict | None:
    """The pattern entry a line's message text (message_text) is matched to: what assets/messages.js does."""
    return next((p for p in payload["patterns"] if re.search(p["re"], text)), None)


_LAST_REASON = re.compile(r"^last reason: (.+)$")


def _read(text: str, payload: dict) -> dict | None:
    exact = match(text, payload)
    cause = next((c for c in payload["causes"] if re.search(c["re"], text)), None)
    if exact and cause and exact["sections"] and exact["sections"][0]["href"] == cause["section"]["href"]:
        cause = None  # it would link the section the pattern links first: the line keeps its row's links
    if exact:
        return {"how": "exact", "pattern": exact, "cause": cause, "kind": exact["kind"]}
    if cause:
        return {"how": "cause", "pattern": None, "cause": cause, "kind": cause["kind"]}
    for p in payload["patterns"]:  # a line that starts as a pattern does, up to its first placeholder
        head = _PLACEHOLDER.split(p["pattern"])[0]
        if len(head) >= 16 and text.startswith(head):
            return {"how": "similar", "pattern": p, "cause": None, "kind": p["kind"]}
    return None


def explain(text: str, payload: dict) -> dict | None:
    """How the paste box reads a line's message text (message_text): what assets/messages.js does.

    ``how`` is "exact" (a measured pattern matches it), "cause" (no pattern does, a cause does) or "similar" (it
    starts as a pattern does); ``kind`` is the kind whose text explains it; ``sections`` its links, the
    cause's section first. A limit warning's ``last reason:`` line is read as the guard failure it quotes
    (``last_reason``), with the limit's section after the guard's. None: the guide has nothing on the line."""
    last = _LAST_REASON.match(text)
    found = _read(last.group(1), payload) if last else None
    if found:
        found["last_reason"] = True
    else:
        found = _read(text, payload)
        if not found:
            return None
        found["last_reason"] = False
    if found["cause"]:  # the section that explains what the line checks (the pattern's are of other lines alike)
        links = [found["cause"]["section"]]
    else:
        links = list(found["pattern"]["sections"])
    if found["last_reason"] and payload["limit"]:
        links.insert(1, payload["limit"])
    found["sections"] = [s for i, s in enumerate(links) if s["href"] not in {o["href"] for o in links[:i]}][:3]
    return found


def payload(index: Index, page_url: str = PAGE_URL) -> str:
    """The patterns as JSON for the matcher (assets/messages.js), in a script element."""
    text = json.dumps(data(index, page_url), separators=(",", ":")).replace("</", "<\\/")
    return f'<script type="application/json" id="message-patterns">{text}</script>'


def counts_table(index: Index) -> str:
    """How many patterns this build printed, and how many only the other releases printed (or worded so)."""
    here = sum(m.here for m in index.messages)
    rows = [[f"torch {index.torch.split('+')[0]}{_this_build(index)}", str(here)]]
    if index.releases:
        others = ", ".join(r.split("+")[0] for r in index.releases)
        rows.append([f"only the other releases ({others})", str(len(index.messages) - here)])
    return "| printed by | patterns |\n| --- | ---: |\n" + "".join(f"| {a} | {b} |\n" for a, b in rows)


def kind_table(index: Index, kind_id: str, page_url: str = PAGE_URL) -> str:
    """The patterns of one kind as an HTML table (row ids as in data(): m1, m2, ...)."""
    e = html.escape
    items = [(i, m) for i, m in enumerate(index.messages) if m.kind.id == kind_id]
    if not items:
        raise PageError(f"docs/{PAGE} prints a table for the kind {kind_id!r}, and no release measured one")
    title = index.texts[kind_id].title if kind_id in index.texts else kind_id
    out = [
        '<div class="fg-scroll" role="region" tabindex="0" aria-label="' + e(title) + ' patterns">'
        '<table class="messages"><thead><tr><th scope="col">pattern</th><th scope="col">explained in</th>'
        '<th scope="col">printed by</th><th scope="col">torch</th></tr></thead><tbody>'
    ]
    for i, m in items:
        secs = sections_for(m, index.sections, index.kinds)
        where = "<br>".join(f'<a href="{e(_link(s, page_url))}">{e(s.title)}</a>' for s in secs[:3]) or "—"
        snips = "<br>".join(
            f'<a href="{e(relative_link(page_url, p))}"><code>{e(p.removeprefix("snippets/"))}</code></a>'
            for p in sorted(m.snippets)[:3]
        )
        more = len(m.snippets) - 3
        if more > 0:
            snips += f"<br>and {more} more"
        parts = ""
        if m.parts:
            row = {r for rs in m.snippets.values() for r in rs}
            parts = '<br><span class="fg-role">followed by:</span>' + "".join(
                f'<br><code class="fg-part">{e(p)}</code>'
                + ("" if releases == row else f' <span class="fg-role">(on {e(_release_list(releases, index))})</span>')
                for p, releases in m.parts.items()
            )
        out.append(
            f'<tr id="m{i + 1}" data-kind="{e(m.kind.id)}"><td><code>{e(m.pattern)}</code><br>'
            f'<span class="fg-role">{ROLE_LABEL[m.role]}</span>{parts}</td>'
            f"<td>{where}</td><td>{snips}</td><td>{e(_releases_text(m, index))}</td></tr>"
        )
    out.append("</tbody></table></div>")
    return "\n".join(out) + "\n"


def render(index: Index, page_url: str = PAGE_URL) -> str:
    """The payload and every kind's table, in the index's kind order (the page prints them one by one)."""
    kinds = list(dict.fromkeys(m.kind.id for m in index.messages))
    return payload(index, page_url) + "\n" + "".join(kind_table(index, k, page_url) for k in kinds)


def page_url(src: str) -> str:
    """The site URL of a docs page (use_directory_urls): "guards.md" -> "guards/", "gym/index.md" -> "gym/"."""
    stem = src[: -len(".md")]
    if stem == "index":
        return "./"
    return (stem[: -len("/index")] if stem.endswith("/index") else stem) + "/"


def paste_example(build: BuildRecord) -> str:
    """A recompile as this build printed it (header, trigger line and first failure, as a reader would paste
    them), for the paste box's placeholder: the size mismatch of the first snippet that printed one, else the
    first recompile any snippet printed."""
    blocks = []
    for result in sorted(build.log_views(), key=lambda r: r.path):
        lines = [ln.rstrip() for ln in result.logs.get("recompiles", "").splitlines() if ln.strip()]
        for i, ln in enumerate(lines):
            if ln.startswith("Recompiling function") and i + 2 < len(lines) and lines[i + 2].strip().startswith("- "):
                blocks.append(lines[i : i + 3])
    if not blocks:
        return ""
    block = next((b for b in blocks if "size mismatch" in b[2]), blocks[0])
    return "\n".join(block)


def paste_form(build: BuildRecord) -> str:
    """The "Paste your log" form (its no-JavaScript note is in the page); its placeholder is a recompile this
    build measured."""
    e = html.escape
    return (
        '<div class="fg-paste">\n<label for="fg-log">Your log</label>\n'
        f'<textarea id="fg-log" rows="10" spellcheck="false" placeholder="{e(paste_example(build))}"></textarea>\n'
        '<p><button type="button" class="md-button md-button--primary" id="fg-explain">Explain each line</button>\n'
        '<button type="button" class="md-button" id="fg-clear">Clear</button></p>\n'
        '<p id="fg-summary" aria-live="polite"></p>\n<ol id="fg-lines" class="fg-lines"></ol>\n</div>\n'
    )


def index_for(build: BuildRecord, root: Path) -> Index:
    """The messages index of a build, with the committed records under root, its docs' sections and the
    page's explanation of each kind (checked: every kind shown has one)."""
    docs = root / "docs"
    urls = {p.relative_to(docs).as_posix(): page_url(p.relative_to(docs).as_posix()) for p in docs.rglob("*.md")}
    index = build_index(build, root, docs, urls)
    check_texts(index)
    return index
