"""The release matrix, rendered: every named fact, one column per measured torch release.

The releases are listed in records/releases.toml; each has a committed record
(records/torch-X.Y.Z.json.gz, written by `nox -s matrix`). The column of the release this site
was built with comes from the live build, never from its committed record. An entry whose
snippet changed after its release was measured is *stale*: it is never shown as that release's
value, only named, with the command that measures it again.

Renders only: reads records, never executes.
"""

from __future__ import annotations

import dataclasses
import functools
import html
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from packaging.version import InvalidVersion, Version

from ..run.context import BuildContext, ReplayState, active
from ..run.memo import PinnedMemo
from ..run.record import BuildRecord, SnippetResult, note_derived, note_everything, unread
from .claims import FACTS
from .explain import outcome_on
from .facts import facts_with_sources


@dataclass
class Column:
    release: str
    build: BuildRecord | None  # None: listed, not measured yet
    live: bool = False  # this build's own release, executed now
    recorded: bool = True  # False: the live build of a release records/releases.toml does not list
    stale: set[tuple] = field(default_factory=set)  # entry keys whose snippet changed since
    missing: list[str] = field(default_factory=list)  # today's snippets the record has no entry for

    @property
    def measured(self) -> str:
        return self.build.built_at if self.build else ""


@dataclass
class Cell:
    value: str | None  # None: no value (not measured, stale, or the release has no such thing)
    state: str  # "ok", "stale", "missing" (the snippet did not run on it), "unmeasured"
    sources: list[SnippetResult] = field(default_factory=list)
    changed: bool = False  # differs from the nearest measured release before it


def _key(s: SnippetResult) -> tuple:
    return (s.path, tuple(sorted(s.env.items())))


def releases_list(root: Path) -> tuple[str, list[str]]:
    data = tomllib.loads((root / "records" / "releases.toml").read_text(encoding="utf-8"))
    return data["default"], list(data["releases"])


def record_file(root: Path, release: str) -> Path:
    return root / "records" / f"torch-{release}.json.gz"


def committed(root: Path) -> list[tuple[str, BuildRecord]]:
    """(release, its committed record) for every listed release that has one, oldest first."""
    _, listed = releases_list(root)
    return [(r, read_record(record_file(root, r))) for r in listed if record_file(root, r).exists()]


_CURRENT = PinnedMemo(32)


def current(root: Path, live: BuildRecord, replay: ReplayState | None = None) -> list[tuple[str, BuildRecord]]:
    """committed(root), each record without the entries that are stale against today's sources
    (their snippet changed since the release was measured): what the checks of texts hold each
    release to. A stale entry measured the snippet as it was, so no text of today's page is judged
    by it; until `nox -s matrix` measures it again, that release simply has no measurement of it.
    Today's sources are the live build's digests, or under a copy rendered from a record (`replay`,
    nox -s publish) the digests of today's snippets it carries, as columns() reads them."""
    today = replay.today if replay is not None else _today(root, live)
    out = []
    for release, build in committed(root):
        stale = frozenset(_key(s) for s in build.snippets if _key(s) in today and s.digest != today[_key(s)])
        if not stale:
            out.append((release, build))
            continue
        kept = _CURRENT.get(build, stale, functools.partial(_without, build, stale))
        out.append((release, kept))
    return out


def _today(root: Path, live: BuildRecord) -> dict:
    """The live build's source digest of each snippet run. What a page does with them here is to
    compare them with the records' (which entries are stale, which are missing), so under serve's
    page memo the page has read that comparison, not every result: editing a snippet that no
    record holds, or one already stale, leaves the releases pages as they were."""
    with unread():
        today = {_key(s): s.digest for s in live.snippets}
    note_derived("releases: stale and missing entries", str(root), live, _staleness)
    return today


def _staleness(root: str, live: BuildRecord) -> str:
    """Per listed release with a record: its entries stale against the live build, and the live
    build's snippets it does not hold; and the set of the live build's snippets."""
    today = {_key(s): s.digest for s in live.snippets}
    lines = [repr(sorted(today))]
    _, listed = releases_list(Path(root))
    for release in listed:
        path = record_file(Path(root), release)
        if not path.exists():
            lines.append(f"{release}: no record")
            continue
        build = read_record(path)
        stale = sorted(_key(s) for s in build.snippets if _key(s) in today and s.digest != today[_key(s)])
        have = {_key(s) for s in build.snippets}
        lines.append(f"{release}: stale {stale!r} missing {sorted(k for k in today if k not in have)!r}")
    return "\n".join(lines)


def _without(build: BuildRecord, stale: frozenset) -> BuildRecord:
    return dataclasses.replace(build, snippets=[s for s in build.snippets if _key(s) not in stale])


@functools.lru_cache(maxsize=32)
def _read(path: str, mtime_ns: int) -> BuildRecord:
    return BuildRecord.read(Path(path))


def read_record(path: Path) -> BuildRecord:
    """A committed record, read once per build (the page and the plugin both need it)."""
    return _read(str(path), path.stat().st_mtime_ns)


def of_build(build: BuildContext) -> list[Column]:
    """The columns of the build in progress (page code: `releases.of_build(context.active())`)."""
    return columns(build.settings.root, build.record, build.render.replay if build.render else None)


def columns(root: Path, live: BuildRecord, replay: ReplayState | None = None) -> list[Column]:
    """One column per listed release, oldest first; the live build stands in for its own release
    (a copy rendered from a record, `replay`, has no live column: nox -s publish)."""
    _, listed = releases_list(root)
    today = _today(root, live)
    live_release = live.torch.split("+")[0]
    if replay is not None:
        today, live_release = replay.today, None
    out = []
    for release in listed:
        if release == live_release:
            out.append(Column(release, live, live=True))
            continue
        path = record_file(root, release)
        if not path.exists():
            out.append(Column(release, None))
            continue
        build = read_record(path)
        stale = {_key(s) for s in build.snippets if _key(s) in today and s.digest != today[_key(s)]}
        have = {_key(s) for s in build.snippets}
        missing = sorted(" ".join([p, *(f"{k}={v}" for k, v in env)]) for p, env in today if (p, env) not in have)
        out.append(Column(release, build, stale=stale, missing=missing))
    if live_release is not None and live_release not in listed:
        # a torch no record holds (a new release, a patch release, a reader's own build): its own
        # column, in version order, marked as this build's and not recorded
        col = Column(live_release, live, live=True, recorded=False)
        later = [i for i, c in enumerate(out) if _order(c.release) > _order(live_release)]
        out.insert(later[0] if later else len(out), col)
    return out


def _order(release: str) -> tuple:
    try:
        return (0, Version(release))
    except InvalidVersion:
        return (1, release)  # not a version number: after every release


# facts_with_sources of one record object: a pure function of the record and the gym's drill
# files, so it is kept for as long as the very same object is in use (read_record returns one
# object per committed file version; each build makes a new live record). The pages ask for the
# matrix several times per build, and `mkdocs serve` asks again on every rebuild.
_FACTS_MEMO = PinnedMemo(48)


def _drills_stamp(snippets_dir: Path | None) -> tuple:
    if snippets_dir is None:
        return ()
    return tuple((p.name, p.read_bytes()) for p in sorted((snippets_dir / "gym").glob("gym-*.toml")))


def record_facts(build: BuildRecord, snippets_dir: Path | None) -> dict:
    """facts_with_sources(build, snippets_dir), computed once per record object and drill set."""
    extra = (str(snippets_dir), _drills_stamp(snippets_dir))
    return _FACTS_MEMO.get(build, extra, lambda: facts_with_sources(build, snippets_dir))


_ROWS_MEMO: list[tuple] = []  # [(key, cols, rows)]: the last matrix (a page asks for it several times)


def fact_rows(cols: list[Column], snippets_dir: Path | None) -> dict[str, list[Cell]]:
    """fact name -> one cell per column, in the order facts are defined (the live build's first)."""
    key = (
        tuple((c.release, id(c.build), c.live, frozenset(c.stale)) for c in cols),
        str(snippets_dir),
        _drills_stamp(snippets_dir),
    )
    if _ROWS_MEMO and _ROWS_MEMO[0][0] == key:  # the same record objects (the memo pins them)
        return _ROWS_MEMO[0][2]
    rows = _fact_rows(cols, snippets_dir)
    _ROWS_MEMO[:] = [(key, list(cols), rows)]
    return rows


def _fact_rows(cols: list[Column], snippets_dir: Path | None) -> dict[str, list[Cell]]:
    per_column = [record_facts(c.build, snippets_dir) if c.build else {} for c in cols]
    names: list[str] = []
    for found in sorted(per_column, key=lambda f: -len(f)):
        names += [n for n in found if n not in names]
    rows: dict[str, list[Cell]] = {}
    for name in names:
        cells, previous = [], None
        for col, found in zip(cols, per_column, strict=True):
            if col.build is None:
                cells.append(Cell(None, "unmeasured"))
                continue
            if name not in found:
                cells.append(Cell(None, "missing"))
                continue
            value, sources = found[name]
            if any(_key(s) in col.stale for s in sources):
                cells.append(Cell(None, "stale", sources))
                continue
            cells.append(Cell(value, "ok", sources, changed=previous is not None and value != previous))
            if (
                col.recorded
            ):  # a ▲ compares recorded releases (an unrecorded live column is compared, never compared to)
                previous = value
        rows[name] = cells
    return rows


def output_path(release: str, result: SnippetResult) -> str:
    """Where a release's output of one snippet is published (site-relative)."""
    env = "".join(f".{k}={v}" for k, v in sorted(result.env.items()))
    return f"outputs/torch-{release}/{result.path.removeprefix('snippets/')}{env}.txt"


def output_files(cols: list[Column]) -> dict[str, str]:
    """Every measured output of every release, as plain text files the matrix cells link to."""
    files = {}
    for col in cols:
        if col.build is None:
            continue
        for s in col.build.snippets:
            head = f"# torch {col.release}, measured {s.measured_at or col.measured}: {s.path}"
            head += "".join(f" {k}={v}" for k, v in sorted(s.env.items()))
            if _key(s) in col.stale:
                head += f"\n# STALE: this snippet changed after torch {col.release} was measured; re-measure with `nox -s matrix -- {col.release}`"
            files[output_path(col.release, s)] = f"{head}\n\n{s.output}"
    return files


# -- rendering ---------------------------------------------------------------------------------
def _cell_html(col: Column, cell: Cell, prefix: str) -> str:
    e = html.escape
    if cell.state == "unmeasured":
        return f'<td class="fg-cell-none" title="torch {e(col.release)} is not measured yet">not measured</td>'
    if cell.state == "missing":
        return f'<td class="fg-cell-none" title="no result on torch {e(col.release)}">—</td>'
    link = prefix + output_path(col.release, cell.sources[0]) if cell.sources else ""
    if cell.state == "stale":
        return (
            f'<td class="fg-cell-stale"><a href="{e(link)}">stale</a>'
            f"<br><small>re-measure: <code>nox -s matrix -- {e(col.release)}</code></small></td>"
        )
    mark = ' <span class="fg-changed" title="changed from the release before">▲</span>' if cell.changed else ""
    cls = ' class="fg-cell-changed"' if cell.changed else ""
    return f'<td{cls} data-value="{e(cell.value or "")}"><a href="{e(link)}">{e(cell.value or "")}</a>{mark}</td>'


GYM_ROW = "GYM·"  # rows named after a gym scenario ("GYM·10 twin-module"): the drills' answer keys


def split_gym(rows: dict[str, list[Cell]]) -> tuple[dict[str, list[Cell]], dict[str, list[Cell]]]:
    """(the facts, the gym's answers): the page shows the answers only behind a spoiler."""
    facts = {n: c for n, c in rows.items() if not n.startswith(GYM_ROW)}
    return facts, {n: c for n, c in rows.items() if n.startswith(GYM_ROW)}


def gym_spoiler(cols: list[Column], rows: dict[str, list[Cell]], prefix: str = "../") -> str:
    """The gym's verdicts per release, collapsed behind a labelled spoiler and kept out of search:
    they are the drills' answer keys."""
    _, answers = split_gym(rows)
    if not answers:
        return ""
    return (
        '<details class="fg-spoiler" data-search-exclude><summary>Spoiler: the gym\'s answers on every release '
        f"({len(answers)} scenarios; open after you have done the drills)</summary>"
        + matrix_table(cols, answers, prefix, label="Gym answers by torch release")
        + "</details>"
    )


def _live_label(col: Column) -> str:
    if not col.live:
        return ""
    if col.recorded:
        return " (this build)"
    exact = col.build.torch_build.get("version") or col.build.torch
    return f" (this build: torch {exact}, not recorded)"


def _live_attrs(col: Column) -> str:
    if not col.live or col.recorded:
        return ""
    exact = col.build.torch_build.get("version") or col.build.torch
    return f' data-live="true" data-recorded="{str(col.recorded).lower()}" title="torch {html.escape(exact)}, run by this build"'


def matrix_table(
    cols: list[Column], rows: dict[str, list[Cell]], prefix: str = "../", label: str = "Facts by torch release"
) -> str:
    """The Across releases table as HTML (links relative to the page by `prefix`). The table has a
    class so that material leaves it unwrapped: its header row sticks (fieldguide-reader.js/.css)."""
    e = html.escape
    head = "".join(
        f'<th scope="col" data-release="{e(c.release)}"{_live_attrs(c)}>{e(c.release)}{_live_label(c)}</th>'
        for c in cols
    )
    body = []
    for name, cells in rows.items():
        tds = "".join(_cell_html(c, cell, prefix) for c, cell in zip(cols, cells, strict=True))
        body.append(f'<tr><th scope="row">{e(name)}</th>{tds}</tr>')
    return (
        f'<div class="fg-matrix" tabindex="0" role="region" aria-label="{e(label)}">'
        f'<table class="fg-matrix-table"><thead><tr><th scope="col">fact</th>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table></div>"
    )


def _span(releases: list[str]) -> str:
    return releases[0] if len(releases) == 1 else f"{releases[0]} to {releases[-1]}"


def history(cols: list[Column], rows: dict[str, list[Cell]], name: str) -> str:
    """One sentence for one fact across the recorded releases, from the matrix (never typed); the
    live build of a torch no record holds is named after it, apart, never counted among them."""
    cells = rows.get(name)
    if not cells:
        return f"No measured release answers “{name}”."
    unrecorded = [(c, cell) for c, cell in zip(cols, cells, strict=True) if not c.recorded]
    if unrecorded:
        keep = [i for i, c in enumerate(cols) if c.recorded]
        told = history([cols[i] for i in keep], {name: [cells[i] for i in keep]}, name)
        for col, cell in unrecorded:
            exact = col.build.torch_build.get("version") or col.build.torch
            shown = f"`{cell.value}`" if cell.state == "ok" else "no value"
            told += f" This build (torch {exact}, not recorded): {shown}."
        return told
    runs: list[tuple[str, list[str]]] = []
    for col, cell in zip(cols, cells, strict=True):
        if cell.state != "ok":
            continue
        if runs and runs[-1][0] == cell.value:
            runs[-1][1].append(col.release)
        else:
            runs.append((cell.value, [col.release]))
    if not runs:
        return f"No current measurement answers “{name}”."
    measured = [r for _, rs in runs for r in rs]
    unmeasured = [c.release for c, cell in zip(cols, cells, strict=True) if cell.state != "ok"]
    gap = f" No current measurement for {', '.join(unmeasured)}." if unmeasured else ""
    if len(runs) == 1:
        where = "on every measured release" if len(measured) > 1 else "on the one release measured"
        return f"**{name}**: `{runs[0][0]}` {where} ({_span(measured)}).{gap}"
    parts = []
    for i, (value, rels) in enumerate(runs):
        last = i == len(runs) - 1 and rels[-1] == cols[-1].release and len(rels) > 1
        parts.append(f"`{value}` {'from ' + rels[0] + ' on' if last else 'on ' + _span(rels)}")
    return f"**{name}**: " + "; ".join(parts) + "." + gap


def first_release(cols: list[Column], rows: dict[str, list[Cell]], name: str, value: str) -> str | None:
    """The first measured release whose value of a fact is `value`, or None."""
    for col, cell in zip(cols, rows.get(name, []), strict=False):
        if cell.state == "ok" and cell.value == value:
            return col.release
    return None


def stale_summary(cols: list[Column]) -> list[tuple[str, list[str]]]:
    """(release, [stale entries]) for every release with stale entries: for the build report."""
    out = []
    for col in cols:
        if col.stale:
            out.append((col.release, sorted(p + "".join(f" {k}={v}" for k, v in env) for p, env in col.stale)))
    return out


# -- other releases, from the committed records (never typed) ------------------------------------
_matrix_cache: dict[tuple, tuple] = {}


def _note_rows(names: tuple[str, ...], rows: dict[str, list[Cell]], live: BuildRecord) -> None:
    """What notes on these facts read from the live build (serve's page memo keeps a page by its reads):
    each fact's own reads there, and the live entries whose digests decide whether another release's
    sources of it are stale. A row that is not a lesson's fact counts as reading everything."""
    for name in names:
        f = FACTS.get(name)
        if f is None:
            note_everything()
            continue
        outcome_on(f, live)
        for cell in rows.get(name, ()):
            for s in cell.sources:
                live.lookup(s.path, s.env)


def _matrix():
    """The release matrix for the build in progress: (columns, fact rows), computed once per build."""
    build_context = active()
    build = build_context.record
    key = (id(build), build.torch, build.built_at, len(build.snippets))
    if key not in _matrix_cache:
        cols = of_build(build_context)
        _matrix_cache.clear()
        _matrix_cache[key] = (cols, fact_rows(cols, build_context.settings.snippets_dir))
    return _matrix_cache[key]


def across(*names: str) -> str:
    """How the releases this guide measures answer the same facts: a collapsed note, one line per fact,
    rendered from the committed release records by the Across releases page's own code."""
    with unread():  # the matrix reads every fact; the note reads only its own rows (_note_rows)
        cols, rows = _matrix()
    _note_rows(names, rows, active().record)
    lines = [f"    - {history(cols, rows, name)}" for name in names]
    return (
        '??? abstract "On the releases this guide records"\n\n'
        + "\n".join(lines)
        + ("\n\n    Each value links from the [Across releases](../releases/) table to the output it was read from.\n")
    )
