"""Stage 4 — render: the snippet fence's formatter, registered with pymdownx.superfences.

Rendering never executes anything: the plugin ran every snippet before pages are rendered, and
the formatter reads the result from the current build record.

Whatever a snippet's source, output, title, path or environment contain, the page shows it as
text: source and output are highlighted by the same highlighter as every other code block on the
site (superfences' own), which escapes them, and are never passed through Markdown again (so no
backtick run, HTML, `--8<--` include or markdown-exec comment in them is interpreted). The source
shown is the file's exact text, checked against the digest of the source that ran.

Any error while rendering a fence is kept in the RenderState and fails the build (plugin.py),
naming the page: superfences itself would swallow it and print the raw fence.
"""

from __future__ import annotations

import base64
import html
import re
import secrets
import shlex
from pathlib import Path
from typing import Any

from ..run import record
from ..run.collect import read_source, source_digest
from ..run.context import RenderState, ReplayState, active, current
from ..run.fences import FenceError, SnippetFence, parse_options


def compute(torch_build: dict[str, str]) -> str:
    """What a torch build computes on, as torch.version says: CUDA x, ROCm x, XPU x, or CPU."""
    for key, name in (("cuda", "CUDA"), ("hip", "ROCm"), ("xpu", "XPU")):
        value = torch_build.get(key, "None")
        if value not in ("None", "", "False"):
            return f"{name} {value}"
    return "CPU" if torch_build else ""


def release_banner(
    build: record.BuildRecord,
    *,
    live: bool,
    replay: ReplayState | None = None,
    recorded: bool = True,
    uncovered: int = 0,
) -> dict:
    """Which torch a copy of the site shows and when it was measured (the header banner's data):
    the version exactly as `torch.__version__` prints it, and its build (torch.version's cuda/hip/xpu
    and git_version), where the record holds them."""
    dates = sorted({s.measured_at[:10] for s in build.snippets if s.measured_at}) or [build.built_at[:10]]
    measured = dates[0] if len(dates) == 1 or live else f"{dates[0]} to {dates[-1]}"
    counts = {}
    if replay is not None:
        for status in replay.status.values():
            counts[status] = counts.get(status, 0) + 1
    tb = build.torch_build
    return {
        "torch": tb.get("version") or build.torch,
        "compute": compute(tb),
        "git": tb.get("git_version", ""),
        "recorded": recorded,
        "uncovered": uncovered,
        "live": live,
        "measured": measured,  # when the outputs were made (a cache hit keeps its run's date)
        "changed": counts.get("stale", 0),
        "unverified": counts.get("unverified", 0),
        "missing": counts.get("missing", 0),
        "failed": counts.get("failed", 0),
        "command": f"nox -s matrix -- {build.torch.split('+')[0]}",
    }


NOTICES = {
    "stale": "This example was edited after torch {torch} was measured: the output below was printed by "
    "the earlier version of the example, not by the source shown.",
    "unverified": "This output comes from a record of torch {torch} made before records kept a digest of "
    "the source that ran, so it cannot be confirmed to match the source shown.",
    "missing": "This example was added after torch {torch} was measured: there is no torch {torch} output for it yet.",
    "failed": "This example did not run to its end on torch {torch} (it exited with another code than expected): "
    "the output below is what it printed before it stopped.",
}


def notice_html(status: str, torch: str, command: str) -> str:
    title = {"missing": "Not measured on this release", "failed": f"Failed on torch {torch}"}.get(
        status, f"Changed since torch {torch} was measured"
    )
    body = html.escape(NOTICES[status].format(torch=torch))
    return (
        f'<div class="admonition warning fg-replay-notice" data-status="{status}">'
        f'<p class="admonition-title">{html.escape(title)}</p>'
        f"<p>{body} <code>{html.escape(command)}</code> measures it again.</p></div>"
    )


_EXEC_BLOCK = re.compile(
    r'^(?P<fence>`{3,})python (?P<opts>[^\n]*exec="on"[^\n]*)\n(?P<code>.*?)\n(?P=fence)[ \t]*$', re.M | re.S
)
_H1 = re.compile(r"^# .*$", re.M)


def replay_page_markdown(markdown: str, page: str, state: ReplayState | None) -> str:
    """A page of a replayed copy: a notice under its title listing its examples that changed (or
    were added) since the record was measured; page code that cannot be rendered from such an
    entry prints a notice in its place instead of failing the build (see guarded)."""
    notes = state.pages.get(page) if state else None
    if not state or not notes:
        return markdown
    changed = sorted({label for status, label in notes if status in ("stale", "unverified")})
    missing = sorted({label for status, label in notes if status == "missing"})
    failed = sorted({label for status, label in notes if status == "failed"})
    title = (
        f"Examples on this page changed since torch {state.torch} was measured"
        if changed or missing
        else f"Examples on this page failed on torch {state.torch}"
    )
    lines = [f'!!! warning "{title}"', ""]
    if changed:
        lines.append(
            f"    These examples were edited after torch {state.torch} was measured (or its record cannot confirm "
            "the source that ran), so their outputs, and the statements on this page that rest on them, come "
            "from the earlier versions: " + ", ".join(f"`{x}`" for x in changed) + "."
        )
    if missing:
        lines.append(
            ("" if not changed else "\n") + f"    These examples were added after torch {state.torch} was measured and "
            "have no output for it: " + ", ".join(f"`{x}`" for x in missing) + "."
        )
    if failed:
        lines.append(
            ("" if not (changed or missing) else "\n") + f"    These examples did not run to their end on torch "
            f"{state.torch}; what they printed before stopping is shown: " + ", ".join(f"`{x}`" for x in failed) + "."
        )
    lines.append(f"\n    `{state.command}` measures them again.")
    banner = "\n".join(lines) + "\n"
    markdown = _EXEC_BLOCK.sub(_guard_block, markdown)
    m = _H1.search(markdown)
    at = m.end() + 1 if m else 0
    return markdown[:at] + "\n" + banner + "\n" + markdown[at:]


def _guard_block(m: re.Match) -> str:
    code = base64.b64encode(m.group("code").encode("utf-8")).decode("ascii")
    call = f'__import__("fieldguide.site.render", fromlist=["guarded"]).guarded("{code}", globals())'
    return f"{m.group('fence')}python {m.group('opts')}\n{call}\n{m.group('fence')}"


def guarded(code_b64: str, scope: dict) -> None:
    """Run one block of page code on a replayed page whose examples changed since its record was
    measured: when the code cannot be rendered from those entries (an output an older example
    did not print, a result the record lacks), the block says so instead of failing the build.

    Only replayed copies get here: the live build and the tests of the chapter renderers against
    every committed record still fail on any error.
    """
    code = base64.b64decode(code_b64).decode("utf-8")
    try:
        exec(compile(code, "<page code>", "exec"), scope)  # page code, as markdown-exec would run it
    except Exception as exc:  # noqa: BLE001 - reported on the page, see above
        state = active().render
        replay = state.replay if state else None
        torch = replay.torch if replay else "this release"
        scope["print"](f'!!! warning "Not rendered for torch {torch}"')
        scope["print"](
            f"    This part of the page rests on examples listed at the top of the page (changed, added or "
            f"failed since torch {torch} was measured), and their recorded outputs do not carry what it reads "
            f"(`{type(exc).__name__}`). `nox -s matrix -- {torch}` measures them again.\n"
        )


def command_line(path: str, env: dict[str, str]) -> str:
    """The command a reader runs to get the same output."""
    prefix = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
    return f"{prefix} python {path}".strip()


def source_lines(fence: SnippetFence, snippets_dir: Path) -> str:
    text = read_source(snippets_dir / fence.path)
    if fence.lines:
        start, end = fence.lines
        text = "\n".join(text.splitlines()[start - 1 : end])
    return text.rstrip("\n")


_BLOCK_START = re.compile(r'^(<div class="[^"]*highlight[^"]*">)')


def code_html(md, code: str, language: str, title: str) -> str:
    """A highlighted, escaped code block as the site's other code blocks look, with a text title."""
    fences = md.preprocessors["fenced_code_block"]
    block = fences.highlight(src=code, language=language, options={}, md=md, classes=[], id_value="", attrs={})
    if title:
        span = f'<span class="filename">{html.escape(title)}</span>'
        block, n = _BLOCK_START.subn(lambda m: m.group(1) + span, block, count=1)
        if not n:
            block = f"<p>{span}</p>{block}"
    return block


def validator(language: str, inputs: dict[str, str], options: dict[str, Any], attrs: dict[str, Any], md) -> bool:
    try:
        options["fence"] = parse_options(dict(inputs))
    except FenceError as exc:  # collect.py reports these first, with the page and line
        options["fence_error"] = str(exc)
    inputs.clear()
    return True


# Marks each fence's rendering in the page's HTML: the plugin counts the marks that reached the
# page (a formatter call is not enough: superfences formats a fence inside an indented code block,
# then puts the fence's raw text back) and removes them. A per-build nonce: a page cannot fake one.
SHOWN_MARK = f"<!--fieldguide-shown-{secrets.token_hex(8)}-->"


def formatter(
    source: str, language: str, css_class: str, options: dict[str, Any], md, state: RenderState, **kwargs: Any
) -> str:
    state.rendered += 1
    try:
        return SHOWN_MARK + _render(options, md, state)
    except Exception as exc:  # noqa: BLE001 - reported by the plugin as a build failure
        state.errors.append(
            f"{type(exc).__name__}: {exc}" if not isinstance(exc, (FenceError, LookupError)) else str(exc)
        )
        return f'<p class="fieldguide-error">{html.escape(str(exc))}</p>'


def _render(options: dict[str, Any], md, state: RenderState) -> str:
    if "fence_error" in options:
        raise FenceError(options["fence_error"])
    fence: SnippetFence = options["fence"]
    env = fence.run_env
    display = f"snippets/{fence.path}"
    result = current().lookup(display, env)
    # a copy rendered from a release's record (nox -s publish): entries measured from another
    # version of the example are shown under a notice, missing ones as a notice
    replay = state.replay
    status = replay.status.get((display, tuple(sorted(env.items())))) if replay else None
    if result is None and status == "missing" and fence.show != "none":
        return _anchored(display, env, notice_html("missing", replay.torch, replay.command), state)
    if result is None and status == "missing":
        return ""
    if result is None:
        raise LookupError(f"{display} with env {env} was not executed in this build")
    if fence.show == "none":  # executed for the chapter's data; the page renders it its own way
        return ""
    if (
        not status
        and result.digest
        and source_digest(state.snippets_dir / fence.path, state.snippets_dir) != result.digest
    ):
        raise LookupError(
            f"{display} changed on disk after it ran, so the page would not show the source that ran; build again"
        )
    parts = []
    if fence.show in ("both", "source"):
        title = fence.title or (display + (f" (lines {fence.lines[0]}-{fence.lines[1]})" if fence.lines else ""))
        parts.append(code_html(md, source_lines(fence, state.snippets_dir), "python", title))
    if fence.show in ("both", "output"):
        if status:
            parts.append(notice_html(status, replay.torch, replay.command))
        body = result.output.rstrip("\n") if result.output.strip() else "(this snippet printed nothing)"
        parts.append(code_html(md, body, "text", "$ " + command_line(result.path, result.env)))
    return _anchored(display, env, "\n".join(parts), state)


def place_key(display: str, env: dict[str, str]) -> str:
    """A snippet run named as the Across releases page's output files name it: guards/x.py.TORCH_LOGS=guards"""
    return display.removeprefix("snippets/") + "".join(f".{k}={v}" for k, v in sorted(env.items()))


def snippet_anchor(display: str, env: dict[str, str], anchors: dict[str, int]) -> str:
    """A stable id for a snippet's block: the same on every release's copy of a page."""
    words = [display.removeprefix("snippets/").removesuffix(".py")] + [v for _, v in sorted(env.items())]
    base = "out-" + re.sub(r"[^a-z0-9]+", "-", " ".join(words).lower()).strip("-")
    anchors[base] = anchors.get(base, 0) + 1
    return base if anchors[base] == 1 else f"{base}-{anchors[base]}"


def _anchored(display: str, env: dict[str, str], inner: str, state: RenderState) -> str:
    """The block wrapped in an element other releases' copies can link to (see assets/release-selector.js)."""
    anchor = snippet_anchor(display, env, state.anchors)
    state.places.setdefault(place_key(display, env), f"{state.page_url}#{anchor}")
    return f'<div class="fg-snippet" id="{anchor}" data-snippet="{html.escape(display)}">{inner}</div>'
