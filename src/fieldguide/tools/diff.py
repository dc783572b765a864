"""Stage 5 — diff: compare the records of two builds (a pull request's base and head, or two torch releases).

    python -m fieldguide.tools.diff OLD/record.json NEW/record.json [--html OUT.html] [--markdown OUT.md] [--fail-on-change]

Prints a Markdown report (fit for a pull-request comment or a CI job summary): the torch versions
of both sides, every verdict or count that changed, added and removed snippets, and per page and
snippet a unified diff of the normalized output. With no change it says so in one line.
"""

from __future__ import annotations

import argparse
import difflib
import html
import sys
from dataclasses import dataclass, field
from pathlib import Path

from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup

from ..guide.facts import comparable
from ..run.identity import SnippetId, code_fence
from ..run.normalize import normalize_output
from ..run.record import BuildRecord, SnippetResult


@dataclass
class SnippetDiff:
    path: str
    env: dict[str, str]
    pages: list[str]
    parts: dict[str, str]  # "stdout" or "logs:<channel>" -> unified diff text


@dataclass
class Report:
    old: BuildRecord
    new: BuildRecord
    facts: list[tuple[str, str | None, str | None]] = field(default_factory=list)
    added: list[SnippetResult] = field(default_factory=list)
    removed: list[SnippetResult] = field(default_factory=list)
    changed: list[SnippetDiff] = field(default_factory=list)

    @property
    def has_changes(self) -> bool:
        return bool(self.facts or self.added or self.removed or self.changed)


def _key(s: SnippetResult) -> SnippetId:
    return s.id


def _unified(old: str, new: str, label: str) -> str:
    lines = difflib.unified_diff(
        old.splitlines(keepends=True), new.splitlines(keepends=True), f"old/{label}", f"new/{label}", n=2
    )
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def load(path: str | Path) -> BuildRecord:
    path = Path(path)
    if path.is_dir():
        path = path / "record.json"
    try:
        return BuildRecord.read(path)
    except FileNotFoundError:
        raise SystemExit(f"fieldguide diff: {path} does not exist (build the site first: nox -s docs)") from None
    except ValueError as exc:  # record.RecordError: says which file, snippet and field
        raise SystemExit(f"fieldguide diff: {exc}") from None


def compare(old: BuildRecord, new: BuildRecord, snippets_dir: Path | None = None) -> Report:
    report = Report(old, new)
    before, after = comparable(old, snippets_dir), comparable(new, snippets_dir)
    for name in list(before) + [n for n in after if n not in before]:
        if before.get(name) != after.get(name):
            report.facts.append((name, before.get(name), after.get(name)))
    olds, news = {_key(s): s for s in old.snippets}, {_key(s): s for s in new.snippets}
    report.added = [news[k] for k in sorted(news.keys() - olds.keys())]
    report.removed = [olds[k] for k in sorted(olds.keys() - news.keys())]
    for key in sorted(olds.keys() & news.keys()):
        # Both sides normalized here, by today's rules: records made by older engines stored
        # their `normalized` with the rules of their day, which would show as changes.
        o, n = olds[key], news[key]
        on, nn = normalize_output(o.stdout, o.logs), normalize_output(n.stdout, n.logs)
        parts = {}
        label = o.id.path
        if on["stdout"] != nn["stdout"]:
            parts["stdout"] = _unified(on["stdout"], nn["stdout"], f"{label} (stdout)")
        channels = sorted(set(on["logs"]) | set(nn["logs"]))
        for ch in channels:
            a, b = on["logs"].get(ch, ""), nn["logs"].get(ch, "")
            if a != b:
                parts[f"logs:{ch}"] = _unified(a, b, f"{label} (TORCH_LOGS {ch})")
        if parts:
            report.changed.append(SnippetDiff(n.path, n.env, n.pages, parts))
    return report


def _env(env: dict[str, str]) -> str:
    return " ".join(f"{k}={v}" for k, v in env.items())


def _fence(text: str, lang: str = "diff") -> str:
    return code_fence(text.rstrip(), lang)


def to_markdown(report: Report, for_site: bool = False) -> str:
    o, n = report.old, report.new
    head = f"torch `{o.torch}` → `{n.torch}`" if o.torch != n.torch else f"torch `{n.torch}` on both sides"
    if not report.has_changes:
        return f"**Generated outputs: no change** ({head}, {len(n.snippets)} snippets compared).\n" + _uncovered(n)
    out = [f"## Generated outputs changed ({head})", ""]
    out.append(
        f"{len(report.facts)} verdict(s) or count(s) changed, {len(report.changed)} snippet output(s) changed, "
        f"{len(report.added)} added, {len(report.removed)} removed."
    )
    if report.facts:
        out += ["", "### Verdicts, counts and gym answers", "", "| what | before | after |", "|---|---|---|"]
        for name, a, b in report.facts:
            cell = lambda v: "—" if v is None else f"`{v}`".replace("|", "\\|")  # noqa: E731
            out.append(f"| {name} | {cell(a)} | {cell(b)} |")
    if report.added or report.removed:
        out += ["", "### Snippets added and removed", ""]
        out += [f"- added: `{s.path}` {_env(s.env)} (on {', '.join(s.pages)})" for s in report.added]
        out += [f"- removed: `{s.path}` {_env(s.env)} (was on {', '.join(s.pages)})" for s in report.removed]
    if report.changed:
        out += ["", "### Output diffs, by page", ""]
        by_page: dict[str, list[SnippetDiff]] = {}
        for d in report.changed:
            by_page.setdefault(d.pages[0] if d.pages else "(no page)", []).append(d)
        for page in sorted(by_page):
            out += [f"#### Page `{page}`", ""]
            for d in by_page[page]:
                title = f"{d.path} {_env(d.env)}: {', '.join(d.parts)}"
                if for_site:  # pymdownx.details: a collapsible block whose body is indented markdown
                    out += [f'??? note "{title.replace(chr(34), chr(39))}"', ""]
                    out += ["    " + line for text in d.parts.values() for line in (_fence(text) + "\n").splitlines()]
                    out += [""]
                else:
                    out += [
                        f"<details><summary><code>{d.path}</code> {html.escape(_env(d.env))}: {', '.join(d.parts)}</summary>",
                        "",
                    ]
                    for text in d.parts.values():
                        out += [_fence(text), ""]
                    out += ["</details>", ""]
    return "\n".join(out).rstrip() + "\n" + _uncovered(n)


def _uncovered(build: BuildRecord) -> str:
    """The places whose outcome on the new build no text covers (the build's own list, in its record):
    what a torch bump leaves unexplained."""
    found = build.uncovered
    if not found:
        return ""
    cell = lambda v: "`" + str(v).replace("`", "'").replace("|", "\\|") + "`"  # noqa: E731
    out = [
        "",
        f"### Outcomes no text covers on torch `{build.torch}` ({len(found)})",
        "",
        "Each page shows the `unrecognised` text there; the text goes where the last column says.",
        "",
        "| fact or scenario | page, section | outcome | value measured | text needed in |",
        "|---|---|---|---|---|",
    ]
    for u in found:
        where = u.get("page", "") + (f" § {u['section']}" if u.get("section") else "")
        out.append(
            f"| {cell(u.get('name', ''))} | {where.replace('|', '/')} | {cell(u.get('outcome', ''))} | "
            f"{cell(str(u.get('value', ''))[:200])} | {cell(u.get('needs', ''))} |"
        )
    return "\n".join(out) + "\n"


_TEMPLATES = Environment(
    loader=PackageLoader("fieldguide.tools", "templates"),
    autoescape=select_autoescape(["html"]),
    keep_trailing_newline=True,
)


def _line_class(line: str) -> str:
    if line.startswith("+") and not line.startswith("+++"):
        return "add"
    if line.startswith("-") and not line.startswith("---"):
        return "del"
    return ""


def to_html(report: Report) -> str:
    """A standalone page (templates/diff.html, styled by templates/diff.css): works offline, as a CI artifact."""
    css = (Path(__file__).parent / "templates" / "diff.css").read_text(encoding="utf-8")
    return _TEMPLATES.get_template("diff.html").render(
        report=report, old=report.old, new=report.new, css=Markup(css), env=_env, line_class=_line_class
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="fieldguide-diff", description=__doc__.split("\n\n")[0])
    parser.add_argument("old", help="the base build's record.json (or its site directory)")
    parser.add_argument("new", help="the new build's record.json (or its site directory)")
    parser.add_argument("--html", help="also write the report as an HTML page here")
    parser.add_argument("--markdown", help="also write the Markdown report here")
    parser.add_argument("--snippets", default="snippets", help="the snippets directory (for the gym's drills)")
    parser.add_argument("--fail-on-change", action="store_true", help="exit with 1 when anything changed")
    args = parser.parse_args(argv)
    report = compare(load(args.old), load(args.new), Path(args.snippets))
    markdown = to_markdown(report)
    sys.stdout.write(markdown)
    if args.markdown:
        Path(args.markdown).write_text(markdown, encoding="utf-8")
    if args.html:
        Path(args.html).write_text(to_html(report), encoding="utf-8")
    return 1 if (args.fail_on_change and report.has_changes) else 0


if __name__ == "__main__":
    raise SystemExit(main())
