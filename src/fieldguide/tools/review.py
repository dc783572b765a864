"""The review view: one release's explanations laid out for an audit.

    python -m fieldguide.tools.review RELEASE [--record FILE] [--out FILE] [--docs DIR]

For every page and every explain block on it, in page order: the fact, the outcome it took on
RELEASE, the text the page shows for that outcome (slots filled), the output lines it rests on
(with the command that printed them), and which releases took each of the fact's outcomes. A
reviewer reads each text against its evidence instead of hunting through the built pages.
RELEASE's committed record is read (records/torch-RELEASE.json.gz) unless --record names another
(a site's record.json, for the live build). Renders only: nothing is executed.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..guide import facts  # noqa: F401  (registers every chapter's facts)
from ..guide.claims import FACTS
from ..guide.explain import ExplainError, fill, find_blocks, outcome_on
from ..guide.releases import read_record, record_file, releases_list
from ..run.record import BuildRecord

ROOT = Path.cwd()


def _quote(text: str) -> str:
    return "\n".join("> " + ln if ln.strip() else ">" for ln in text.strip().splitlines())


def review(release: str, build: BuildRecord, docs: Path, records: list[tuple[str, BuildRecord]]) -> str:
    out = [f"# Review: the explanations of torch {release}", ""]
    out.append(
        f"Record: torch `{build.torch}`, measured {build.built_at}. For each explain block: the outcome "
        "its fact took on this release, the text the page shows for it, and the lines it rests on."
    )
    count = 0
    for page in sorted(docs.rglob("*.md")):
        blocks = find_blocks(page.read_text(encoding="utf-8"))
        if not blocks:
            continue
        out += ["", f"## {page.relative_to(docs.parent)}", ""]
        for block in blocks:
            count += 1
            f = FACTS.get(block.fact)
            out.append(f"### {count}. {block.fact} (line {block.line})")
            out.append("")
            if f is None:
                out += ["**No such fact.**", ""]
                continue
            m = outcome_on(f, build)
            if m is None:
                out += ["**Not measured:** this record has no run the fact reads.", ""]
                continue
            out.append(f"Outcome: **{m.outcome}**" + (f" ({m.value})" if m.outcome == "unrecognised" else ""))
            out.append("")
            text = block.texts.get(m.outcome)
            if text is None:
                out += ["**The page has no text for this outcome.**", ""]
            else:
                out += [_quote(fill(text, m).text), ""]
            if m.evidence:
                out.append("Evidence:")
                out.append("")
                for ev in m.evidence:
                    out.append(f"- `{ev.run}`: `{ev.line}`")
                out.append("")
            taken: dict[str, list[str]] = {}
            for r, b in records:
                other = outcome_on(f, b)
                if other is not None:
                    taken.setdefault(other.outcome, []).append(r)
            out.append("Across releases: " + "; ".join(f"{o}: {', '.join(rs)}" for o, rs in taken.items()))
            out.append("")
    if not count:
        out += ["", "No page has an explain block."]
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="fieldguide-review", description=__doc__.splitlines()[0])
    parser.add_argument("release", help="a release of records/releases.toml")
    parser.add_argument("--record", help="read this record instead of the release's committed one")
    parser.add_argument("--out", help="write the review here (default: build/review/torch-RELEASE.md)")
    parser.add_argument("--docs", default="docs", help="the pages' directory")
    args = parser.parse_args(argv)
    _, listed = releases_list(ROOT)
    if args.release not in listed and not args.record:
        parser.error(f"torch {args.release} is not in records/releases.toml (listed: {', '.join(listed)})")
    path = Path(args.record) if args.record else record_file(ROOT, args.release)
    if not path.exists():
        parser.error(f"no record at {path}: measure it with `nox -s matrix -- {args.release}`")
    try:
        build = BuildRecord.read(path / "record.json" if path.is_dir() else path)
    except (OSError, ValueError) as exc:
        parser.error(f"cannot read {path}: {exc}")
    records = [(r, read_record(record_file(ROOT, r))) for r in listed if record_file(ROOT, r).exists()]
    try:
        text = review(args.release, build, Path(args.docs), records)
    except ExplainError as exc:
        print(f"review: {exc}", file=sys.stderr)
        return 1
    out = Path(args.out or f"build/review/torch-{args.release}.md")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    print(f"review of torch {args.release}: {text.count(chr(10) + '### ')} explanations -> {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
