"""The "Build report" page: the build record as a page (reads the record, never executes)."""

from __future__ import annotations

import html

from ..guide.claims import literal
from ..guide.links import relative_link
from ..run.record import BuildRecord
from .render import compute


def summary(build: BuildRecord) -> str:
    ran = sum(1 for s in build.snippets if not s.cached)
    tb = build.torch_build
    torch_rows = f"| torch | `{tb.get('version') or build.torch}` |\n"
    if tb:
        torch_rows += f"| torch build | {compute(tb)}; `torch.version.git_version` `{tb.get('git_version', '?')}` |\n"
    return (
        f"| measured | this build |\n|---|---|\n{torch_rows}| Python | `{build.python}` |\n"
        f"| platform | {build.platform} |\n| built at | {build.built_at} |\n"
        f"| snippets | {len(build.snippets)} ({ran} executed in this build, {len(build.snippets) - ran} from the cache) |\n"
    )


def snippet_table(build: BuildRecord, page_url: str) -> str:
    rows = ["| snippet | environment | seconds | cache | exit | shown on |", "|---|---|---:|---|---:|---|"]
    for s in sorted(build.snippets, key=lambda s: -s.seconds):
        env = " ".join(f"`{k}={v}`" for k, v in s.env.items()) or "—"
        pages = ", ".join(
            f"[{'home' if p in ('', './') else p.strip('/')}]({relative_link(page_url, p)})" for p in s.pages
        )
        cache = "hit" if s.cached else "executed"
        rows.append(f"| `{s.path}` | {env} | {s.seconds:.2f} | {cache} | {s.exit_code} | {pages} |")
    total = sum(s.seconds for s in build.snippets)
    rows.append(f"| **total** | | **{total:.2f}** | | | |")
    return "\n".join(rows) + "\n"


def release_records(cols) -> str:
    """The committed release records against today's snippets: stale or missing entries, by release."""
    rows = ["| torch | measured | stale or missing entries |", "|---|---|---|"]
    for col in cols:
        if col.live and not col.recorded:
            rows.append(
                f"| `{col.release}` | this build (not listed in `records/releases.toml`, no committed record) | "
                f"`nox -s matrix -- {col.release}` writes its record; listing it takes the line that command "
                "prints, in `records/releases.toml` |"
            )
        elif col.live:
            rows.append(f"| `{col.release}` | this build | — |")
        elif col.build is None:
            rows.append(f"| `{col.release}` | not measured | run `nox -s matrix -- {col.release}` |")
        else:
            gaps = sorted(" ".join([p, *(f"{k}={v}" for k, v in env)]) for p, env in col.stale)
            gaps += [f"{g} (missing)" for g in col.missing]
            text = (
                ", ".join(f"`{g}`" for g in gaps) + f"; `nox -s matrix -- {col.release}` measures them again"
                if gaps
                else "none"
            )
            rows.append(f"| `{col.release}` | {col.measured[:10]} | {text} |")
    return "\n".join(rows) + "\n"


def uncovered_table(found: list, torch: str, page_url: str) -> str:
    """The explanations and drill scenarios whose outcome on this build no text covers
    (guide.outcomes.survey): each with its page and section, the outcome and value measured, and
    where the missing text goes."""
    if not found:
        return (
            f"None: every explanation and drill scenario on these pages has a text for the outcome it took on "
            f"torch `{torch}`, and every measured table could read its output. This checks those texts and "
            "tables only: the prose around them is not checked against this torch.\n"
        )
    rows = [
        f"{len(found)} on torch `{torch}`. Each page shows the `unrecognised` text in its place (never the text of "
        "another outcome); `nox -s docs -- --strict-outcomes` fails the build on any of them.",
        "",
        "| fact or scenario | page, section | outcome measured | value measured | text needed in |",
        "|---|---|---|---|---|",
    ]
    for u in found:
        where = f"[{u.page.removesuffix('.md')}" + (f" § {html.escape(u.section)}" if u.section else "") + "]"
        where += f"({relative_link(page_url, u.url)})"
        rows.append(
            f"| {literal(u.name)} | {where} | {literal(u.outcome)} | {literal(u.value[:300])} | `{u.needs}` |"
        )
    return "\n".join(rows) + "\n"
