"""The "Build report" page: the build record as a page (reads the record, never executes)."""

from __future__ import annotations

from ..guide.links import relative_link
from ..run.record import BuildRecord


def summary(build: BuildRecord) -> str:
    ran = sum(1 for s in build.snippets if not s.cached)
    return (
        f"| measured | this build |\n|---|---|\n| torch | `{build.torch}` |\n| Python | `{build.python}` |\n"
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
        if col.live:
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
