"""Inside the snippet's process: run one snippet as `python snippet.py` would, recording its output.

Every write to sys.stdout / sys.stderr becomes one JSON line ``["out"|"err", text]`` in an
events file, flushed as it happens, so the order of print() calls and log records is kept and a
snippet killed at its timeout still leaves what it printed. This module imports nothing heavy:
the executors (executors.py) call it in a fresh interpreter or in a forked child.

    python -m fieldguide.runner EVENTS_FILE SNIPPET_FILE
"""

from __future__ import annotations

import io
import json
import os
import runpy
import sys
import traceback


class _Recorder(io.TextIOBase):
    def __init__(self, stream: str, sink, original) -> None:
        self._stream = stream
        self._sink = sink
        self._original = original

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return "utf-8"

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return False

    def fileno(self) -> int:
        return self._original.fileno()

    def write(self, text: str) -> int:
        if text:
            self._sink.write(json.dumps([self._stream, text]) + "\n")
            self._sink.flush()
        return len(text)


def install(events_path: str) -> None:
    """Route sys.stdout and sys.stderr into the events file (before anything logs)."""
    sink = open(events_path, "w", encoding="utf-8")  # noqa: SIM115 - lives as long as the process
    sys.stdout = _Recorder("out", sink, sys.__stdout__)
    sys.stderr = _Recorder("err", sink, sys.__stderr__)


def run(snippet: str) -> int:
    """Run the snippet as __main__ with the argv and sys.path `python snippet.py` gives it."""
    snippet = os.path.abspath(snippet)
    sys.argv = [snippet]
    sys.path[0] = os.path.dirname(snippet)
    try:
        runpy.run_path(snippet, run_name="__main__")
    except SystemExit as exc:
        if exc.code is None:
            return 0
        if isinstance(exc.code, int):
            return exc.code
        print(exc.code, file=sys.stderr)
        return 1
    except BaseException:  # noqa: BLE001 - report like the interpreter does
        traceback.print_exc()
        return 1
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
    return 0


def main() -> None:
    events_path, snippet = sys.argv[1], sys.argv[2]
    install(events_path)
    code = run(snippet)
    sys.exit(code)


if __name__ == "__main__":
    main()
