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
"""

from __future__ import annotations

import functools
import html
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from markdown.extensions.toc import slugify

from .fences import find_fences
from .record import BuildRecord, requested_channels
from .report import relative_link

PAGE_URL = "messages/"

# -- one line, normalized ----------------------------------------------------------------------
_ENTRY = re.compile(r"^-\s+(?:\d+/\d+:\s+)?")
_COMMENT = re.compile(r"\s{2,}#\s.*$")
_TRACE = re.compile(r'^(?:User stack trace:|File ".*", line \d+|\s)')
_QUOTED = re.compile(r"'(?:[^'\[\]]|\[[^\]]*\])*'")
_PATH = re.compile(r"(?:[A-Za-z]:)?(?:[\w.~-]*/)+[\w.-]+\.py(?::\d+)?")
_NUMBER = re.compile(r"(?<![\w<])-?\d+(?:\.\d+)?(?![\w>])")
_EXPR_LINE = re.compile(r" == | != | <= | >= | < | > |^___|^\(|^not |^isinstance\(|^hasattr\(|^len\(")
_CHAIN = re.compile(
    r"""(?<![\w.'"<])(?:[LG]\[(?:'[^']*'|"[^"]*")\]|[A-Za-z_]\w*)(?:\.\w+|\[(?:'[^']*'|"[^"]*"|\d+)\])*"""
)
_KEEP = {"and", "or", "not", "is", "in", "None", "True", "False", "type", "class", "id", "isinstance", "hasattr", "len"}
PLACEHOLDERS = {
    "id": r"\S+?",
    "n": r"-?\d+(?:\.\d+)?",
    "name": r".+?",
    "file": r".+?",
    "expr": r".+?",
    "value": r"\S+?",
    "state": r".+?",
}
_PLACEHOLDER = re.compile(r"<(" + "|".join(PLACEHOLDERS) + r")>")


def _protect(text: str, pattern: re.Pattern, repl) -> str:
    return pattern.sub(repl, text)


def _expression(text: str) -> str:
    """A guard predicate: user-side names become <expr>, torch's helpers (___x) stay."""

    def chain(m: re.Match) -> str:
        s, end = m.group(0), m.end()
        if s.startswith("___") or s in _KEEP or s.startswith("<"):
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
    text = re.sub(r"(?<![\w/])\d{6,}\b", "<id>", text)
    text = re.sub(r"\b(hash: )\w+", r"\1<id>", text)
    text = _PATH.sub("<file>", text)
    text = re.sub(r"^(Recompiling function )\S+", r"\1<name>", text)
    text = re.sub(r"^(function: )'[^']*'", r"\1'<name>'", text)
    text = re.sub(r"(GLOBAL_STATE changed: ).+$", r"\1<state>", text)
    text = re.sub(r"\b(expected|actual) [A-Z]\w*", r"\1 <value>", text)
    if whole and _EXPR_LINE.search(text) and not text.startswith("tensor "):
        return _expression(_QUOTED.sub("'<name>'", text) if "[" not in text else text)
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
@dataclass(frozen=True)
class Kind:
    id: str
    title: str
    text: str
    test: re.Pattern


KINDS = [
    Kind("header", "A recompile starts", "One recompile of the function named, defined at the file and line shown. "
         "The lines below it name the guards that failed: no entry already in the function's cache accepted the call.",
         re.compile(r"^Recompiling function |^triggered by the following guard failure")),
    Kind("limit", "The cache limit was hit", "The function recompiled until its cache reached the limit named; "
         "torch then stops compiling new entries for it. The section explains what happens to the calls after that.",
         re.compile(r"hit config\.\w*limit|last reason: |^function: |^To (?:log|diagnose) ")),
    Kind("size", "A tensor size differs", "A tensor argument's size in this dimension is not the one the cached "
         "entry was compiled for: the entry guarded that size as a constant.", re.compile(r"size mismatch")),
    Kind("stride", "A tensor stride differs", "Same sizes, another memory layout: the tensor's strides differ from "
         "the ones the entry was compiled for (a transposed or sliced view, for example).", re.compile(r"stride mismatch")),
    Kind("requires-grad", "requires_grad differs", "The tensor's requires_grad flag is not the one the entry was "
         "compiled for.", re.compile(r"requires_grad mismatch")),
    Kind("dtype", "A tensor dtype differs", "The tensor has another dtype than the entry was compiled for.",
         re.compile(r"dtype mismatch")),
    Kind("device", "A tensor device differs", "The tensor lives on another device than the entry was compiled for.",
         re.compile(r"device mismatch|DispatchKeySet mismatch")),
    Kind("global-state", "Ambient state changed", "State outside the arguments changed since the entry was compiled: "
         "grad mode (a call under torch.no_grad()), for example.", re.compile(r"GLOBAL_STATE|___check_global_state")),
    Kind("backend", "Another backend", "The function is called through a torch.compile with another backend than "
         "the one its entry was compiled for.", re.compile(r"BACKEND_MATCH|backend")),
    Kind("object-id", "Another object", "The graph depends on an object by identity (a function's code, a module, "
         "a global), and the object found now is a different one.", re.compile(r"___check_obj_id|ID_MATCH")),
    Kind("type-id", "Another type", "A value now has another type than the entry was compiled for.",
         re.compile(r"___check_type_id|TYPE_MATCH")),
    Kind("size-range", "A size outside the dynamic range", "A dynamic (symbolic) size carries a range, and this "
         "value is outside it: the guard states the range the entry was compiled for.",
         re.compile(r"<= <expr>\.size\(\)|<expr>\.size\(\)\[<n>\] [<>]=?")),
    Kind("value", "A Python value changed", "A Python value the graph used (a global, an attribute, an int "
         "argument) was baked in as a constant, and it has another value now.", re.compile(r"^<expr> == ")),
    Kind("config", "Config restored", "dynamo compares the config an entry was compiled under with the current one "
         "and logs the difference.", re.compile(r"config saved when compiling|^Saved hash|^Restoring saved config|^\* \w+=")),
]
OTHER = Kind("other", "Other message", "A message this build's snippets printed; the section linked shows it in context.", re.compile(""))


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


def page_sections(markdown: str) -> list[tuple[int, str, str]]:
    """(line, anchor, title) of every heading, in order (fenced code skipped)."""
    out, in_code = [], False
    for i, line in enumerate(markdown.splitlines(), 1):
        if re.match(r"^\s*(```|~~~)", line):
            in_code = not in_code
            continue
        m = None if in_code else _HEADING.match(line)
        if m:
            title = m.group(2).strip()
            out.append((i, m.group(3) or slugify(title, "-"), re.sub(r"[`*_]", "", title)))
    return out


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
    from . import gym  # the gym's data, not its rendering

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

    @property
    def regex(self) -> str:
        return to_regex(self.pattern)


def _lines(result) -> list[tuple[str, str]]:
    """(role, line) of every message line a result printed: its recompile log and unrequested channels."""
    out, in_trace = [], False
    for line in result.logs.get("recompiles", "").splitlines():
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith("Recompiling function") or stripped.startswith("triggered by"):
            out.append(("header", stripped))
            in_trace = False
        elif stripped.startswith("- "):
            body = message_text(stripped)
            if body.startswith("User stack trace") or in_trace:
                in_trace = True
                continue
            out.append(("reason", stripped))
        else:
            out.append(("note", stripped))
    asked = set(requested_channels(result.env))
    for channel, text in result.logs.items():
        if channel in asked or channel in ("recompiles", "guards"):
            continue
        out += [("warning", line.strip()) for line in text.splitlines() if line.strip()]
    return out


def collect(build: BuildRecord, others: list[BuildRecord] = ()) -> dict[str, Message]:
    """pattern -> Message, from this build's record first, then the other releases' records."""
    found: dict[str, Message] = {}
    for rec, here in [(build, True), *((o, False) for o in others)]:
        for result in rec.snippets:
            for role, line in _lines(result):
                pattern = normalize(line)
                if not pattern or _TRACE.match(message_text(line)):
                    continue
                msg = found.get(pattern)
                if msg is None:
                    msg = found[pattern] = Message(pattern, kind_of(pattern), role, message_text(line))
                msg.snippets.setdefault(result.path, set()).add(rec.torch)
                msg.here = msg.here or here
    return found


def release_records(root: Path, exclude: str = "") -> list[BuildRecord]:
    """The committed measurements of other releases (records/torch-*.json.gz), oldest first."""
    from .releases import read_record  # one object per committed file version, read once

    out = []
    for path in sorted((root / "records").glob("torch-*.json*")):
        try:
            rec = read_record(path)
        except (OSError, ValueError, KeyError, TypeError):
            continue
        if rec.torch.split("+")[0] != exclude.split("+")[0]:
            out.append(rec)
    return sorted(out, key=lambda r: tuple(int(p) for p in re.findall(r"\d+", r.torch.split("+")[0])[:3]))


def sections_for(msg: Message, sections: dict[str, list[Section]]) -> list[Section]:
    """The sections that show the snippets that printed a message: chapters first, the most printing first."""
    scored: dict[Section, int] = {}
    for path, releases in msg.snippets.items():
        for sec in sections.get(path, []):
            scored[sec] = scored.get(sec, 0) + len(releases)
    return sorted(scored, key=lambda s: (s.page.startswith("gym/"), -scored[s], s.page, s.anchor))


ROLE_ORDER = {"header": 0, "reason": 1, "warning": 2, "note": 3}
ROLE_LABEL = {"header": "recompile header", "reason": "guard failure", "warning": "warning", "note": "log note"}


@dataclass
class Index:
    torch: str
    releases: list[str]
    messages: list[Message]
    sections: dict[str, list[Section]]
    dumps: list[Section] = field(default_factory=list)


def build_index(build: BuildRecord, root: Path, docs_dir: Path, page_urls: dict[str, str]) -> Index:
    others = release_records(root, exclude=build.torch)
    found = collect(build, others)
    sections = snippet_sections(docs_dir, page_urls)
    for path, secs in gym_sections(root / "snippets", docs_dir).items():
        sections[path] = secs + [s for s in sections.get(path, []) if s not in secs]
    order = [k.id for k in KINDS] + [OTHER.id]
    msgs = sorted(found.values(), key=lambda m: (order.index(m.kind.id), ROLE_ORDER[m.role], not m.here, m.pattern))
    return Index(build.torch, [o.torch for o in others], msgs, sections, dump_sections(docs_dir, page_urls))


def _link(section: Section, page_url: str) -> str:
    return relative_link(page_url, section.page) + (f"#{section.anchor}" if section.anchor else "")


def _releases_text(msg: Message, torch: str) -> str:
    releases = sorted({r for rs in msg.snippets.values() for r in rs}, key=lambda r: [int(x) for x in re.findall(r"\d+", r)[:3]])
    return ", ".join(("this build, " if r == torch else "") + r.split("+")[0] for r in releases)


def data(index: Index, page_url: str = PAGE_URL) -> dict:
    """What assets/messages.js needs: kinds (explanation and links) and patterns (regex, kind)."""
    kinds = {}
    for k in [*KINDS, OTHER]:
        kinds[k.id] = {"title": k.title, "text": k.text}
    patterns = []
    for i, m in enumerate(index.messages):
        secs = sections_for(m, index.sections)
        patterns.append({
            "id": f"m{i + 1}",
            "re": m.regex,
            "pattern": m.pattern,
            "kind": m.kind.id,
            "role": m.role,
            "sections": [{"title": s.title, "href": _link(s, page_url)} for s in secs[:3]],
            "snippets": [{"path": p, "href": relative_link(page_url, p)} for p in sorted(m.snippets)][:3],
            "releases": _releases_text(m, index.torch),
        })
    dumps = [{"title": s.title, "href": _link(s, page_url)} for s in index.dumps[:2]]
    return {"torch": index.torch, "kinds": kinds, "patterns": patterns, "dumps": dumps}


def render(index: Index, page_url: str = PAGE_URL) -> str:
    """The index as HTML blocks (one table per kind) plus the patterns as JSON for the matcher."""
    e = html.escape
    out = []
    payload = json.dumps(data(index, page_url), separators=(",", ":")).replace("</", "<\\/")
    out.append(f'<script type="application/json" id="message-patterns">{payload}</script>')
    n_here = sum(m.here for m in index.messages)
    out.append(
        f"<p>{n_here} patterns printed by this build (torch <code>{e(index.torch)}</code>)"
        + (f", and {len(index.messages) - n_here} more worded differently by the other measured releases "
           f"({e(', '.join(r.split('+')[0] for r in index.releases))})" if index.releases and len(index.messages) > n_here else "")
        + ".</p>"
    )
    by_kind: dict[str, list[tuple[int, Message]]] = {}
    for i, m in enumerate(index.messages):
        by_kind.setdefault(m.kind.id, []).append((i, m))
    for kind in [*KINDS, OTHER]:
        items = by_kind.get(kind.id)
        if not items:
            continue
        out.append(f'<h2 id="kind-{kind.id}">{e(kind.title)}</h2>')
        out.append(f"<p>{e(kind.text)}</p>")
        out.append('<div class="fg-scroll" role="region" tabindex="0" aria-label="' + e(kind.title) + ' patterns">'
                   '<table class="messages"><thead><tr><th scope="col">pattern</th><th scope="col">explained in</th>'
                   '<th scope="col">printed by</th><th scope="col">torch</th></tr></thead><tbody>')
        for i, m in items:
            secs = sections_for(m, index.sections)
            where = "<br>".join(f'<a href="{e(_link(s, page_url))}">{e(s.title)}</a>' for s in secs[:3]) or "—"
            snips = "<br>".join(f'<a href="{e(relative_link(page_url, p))}"><code>{e(p.removeprefix("snippets/"))}</code></a>' for p in sorted(m.snippets)[:3])
            more = len(m.snippets) - 3
            if more > 0:
                snips += f"<br>and {more} more"
            out.append(
                f'<tr id="m{i + 1}"><td><code>{e(m.pattern)}</code><br><span class="fg-role">{ROLE_LABEL[m.role]}</span></td>'
                f"<td>{where}</td><td>{snips}</td><td>{e(_releases_text(m, index.torch))}</td></tr>"
            )
        out.append("</tbody></table></div>")
    return "\n".join(out) + "\n"


def page_url(src: str) -> str:
    """The site URL of a docs page (use_directory_urls): "guards.md" -> "guards/", "gym/index.md" -> "gym/"."""
    stem = src[: -len(".md")]
    if stem == "index":
        return "./"
    return (stem[: -len("/index")] if stem.endswith("/index") else stem) + "/"


def render_page(build: BuildRecord, snippets_dir: Path) -> str:
    """The messages index for the page docs/messages.md (the project root is the snippets' parent)."""
    root = snippets_dir.parent
    docs = root / "docs"
    urls = {p.relative_to(docs).as_posix(): page_url(p.relative_to(docs).as_posix()) for p in docs.rglob("*.md")}
    return render(build_index(build, root, docs, urls))
