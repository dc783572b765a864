"""Serve latency: from saving a snippet to the served page showing its new output (part of `nox -s bench`).

Starts `mkdocs serve` on a copy of the site, waits for the first build, then edits one snippet
several times. Each edit makes the snippet print a new token that appears only in its output
(the source prints an expression, the page shows its value; the tokens are new in every run, so
the execution cache never has them), and the clock runs from the save to the first response of
the served page that contains the token. Reports the median, quiet and then under load: the
same edits again with one busy process per core beside the server (a stand-in for a second build
on the same machine), at the server's own priority.
"""

from __future__ import annotations

import contextlib
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

SNIPPET = "start/first_compile.py"  # shown on the home page
PAGE = "/"
TARGET_SECONDS = 2.5


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url: str) -> str:
    try:
        with urllib.request.urlopen(url, timeout=5) as resp:
            return resp.read().decode("utf-8", errors="replace")
    except OSError:
        return ""


def _wait_for(url: str, token: str, deadline: float, proc: subprocess.Popen) -> float | None:
    while time.perf_counter() < deadline:
        if proc.poll() is not None:
            return None
        if token in _get(url):
            return time.perf_counter()
        time.sleep(0.05)
    return None


@contextlib.contextmanager
def _sigint_not_ignored():
    """Serve is stopped with Ctrl-C, as a reader stops it. A shell's background job (`&` without job
    control) starts with SIGINT ignored, which a child inherits and Python then honours; for the
    time of the spawn, a handler stands in (handlers, unlike SIG_IGN, are reset by exec)."""
    previous = signal.getsignal(signal.SIGINT)
    if previous != signal.SIG_IGN or threading.current_thread() is not threading.main_thread():
        yield  # (only the main thread may set a handler; a thread's caller keeps what it inherited)
        return
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


@contextlib.contextmanager
def mkdocs_serve(site: Path, env: dict[str, str], log: Path | None = None, timeout: float = 300):
    """`mkdocs serve` of `site` on a free port, up and with its first build done: yields (base URL, process)."""
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    out = open(log or os.devnull, "w")  # noqa: SIM115
    with _sigint_not_ignored():
        proc = subprocess.Popen(
            [sys.executable, "-m", "mkdocs", "serve", "--dev-addr", f"127.0.0.1:{port}"],
            cwd=site,
            env={**os.environ, "NO_MKDOCS_2_WARNING": "1", "DISABLE_MKDOCS_2_WARNING": "true", **env},
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        if _wait_for(f"{base}/", "<html", time.perf_counter() + timeout, proc) is None:
            raise RuntimeError(f"mkdocs serve did not come up (see {log})")
        yield base, proc
    finally:  # Ctrl-C first: serve then removes its temporary site and stops its workers itself
        for sig, wait in ((signal.SIGINT, 20), (signal.SIGTERM, 10), (signal.SIGKILL, None)):
            try:
                os.killpg(proc.pid, sig)
                proc.wait(timeout=wait)
                break
            except ProcessLookupError:
                break
            except subprocess.TimeoutExpired:
                continue
        out.close()


@contextlib.contextmanager
def cpu_load(processes: int | None = None):
    """One busy process per core (or `processes`) for the time of the block, at normal priority."""
    n = processes or os.cpu_count() or 1
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"], start_new_session=True) for _ in range(n)]
    try:
        yield n
    finally:
        for proc in busy:
            proc.kill()
        for proc in busy:
            proc.wait()


def _edits(url: str, snippet: Path, original: str, edits: int, proc, log) -> list[float]:
    times: list[float] = []
    salt = random.randrange(10**6, 10**7)  # a new source every run: the cache never has the edit
    for i in range(edits):
        value = 7919 * (salt + i)
        token = f"bench-edit-{value}"
        snippet.write_text(original + f'print("bench-edit-" + str(7919 * {salt + i}))\n')
        saved = time.perf_counter()
        seen = _wait_for(url, token, saved + 120, proc)
        if seen is None:
            raise SystemExit(f"bench: the served page never showed edit {i + 1} (see {log})")
        times.append(round(seen - saved, 2))
        time.sleep(0.5)
    return times


def serve_latency(
    site: Path, env: dict[str, str], edits: int = 5, log: Path | None = None, loaded: bool = True
) -> dict:
    """Median seconds from saving a snippet to the served page containing its new output, quiet and
    (with `loaded`) with one busy process per core beside the server."""
    snippet = site / "snippets" / SNIPPET
    original = snippet.read_text()
    out: dict = {"target": TARGET_SECONDS}
    try:
        with mkdocs_serve(site, env, log) as (base, proc):
            url = f"{base}{PAGE}"
            time.sleep(1.0)  # let the watcher settle after the first build
            out["edits"] = _edits(url, snippet, original, edits, proc, log)
            out["median"] = statistics.median(out["edits"])
            if loaded:
                with cpu_load() as n:
                    time.sleep(1.0)
                    out["loaded_edits"] = _edits(url, snippet, original, edits, proc, log)
                out["loaded_median"] = statistics.median(out["loaded_edits"])
                out["load"] = f"{n} busy process{'es' if n != 1 else ''} beside the server"
    except RuntimeError as exc:
        raise SystemExit(f"bench: {exc}") from None
    finally:
        snippet.write_text(original)
    return out


def report_lines(serve: dict) -> list[str]:
    """The serve rows of bench's table: quiet, and under load where it was measured."""
    rows = [
        f"| serve: save to updated page, seconds (median of {len(serve['edits'])}; edits {serve['edits']}) "
        f"| {serve['median']:.2f} | ≤ {serve['target']} |"
    ]
    if "loaded_median" in serve:
        rows.append(
            f"| serve, under load ({serve['load']}), seconds (median of {len(serve['loaded_edits'])}; "
            f"edits {serve['loaded_edits']}) | {serve['loaded_median']:.2f} | ≤ {serve['target']} |"
        )
    return rows


def met(serve: dict) -> bool:
    return serve["median"] <= serve["target"] and serve.get("loaded_median", 0) <= serve["target"]
