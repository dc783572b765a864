"""Split a run's output into stdout and torch log channels, with the logger prefixes stripped.

Two prefix styles are understood:

* torch >= 2.3 (glog-like):
  ``V1129 10:33:16.244000 2379 torch/_dynamo/guards.py:4786] [0/0] [__guards] GUARDS:``
* torch 2.2 (logging default):
  ``[2026-11-29 10:43:55,614] [0/0] torch._dynamo.guards.__guards: [DEBUG] GUARDS:``

An artifact logger (``[__guards]``, ``torch._dynamo.guards.__guards``) gives its channel name
(``guards``); any other torch logger gives its component (``dynamo``, ``inductor``, ...).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_NEW = re.compile(
    r"^(?P<level>[VIWEDCF])\d{4} \d{2}:\d{2}:\d{2}\.\d+\s+\d+\s+(?P<where>[^\]\s]+):\d+\]\s?"
    r"(?:\[(?P<cid>[^\]]*\d[^\]]*)\]\s?)?(?:\[__(?P<artifact>\w+)\]\s?)?(?P<text>.*)$"
)
_OLD = re.compile(
    r"^\[\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}[,.]\d+\]\s(?:\[(?P<cid>[^\]]*)\]\s)?"
    r"(?P<logger>[\w.]+):\s\[(?P<level>[A-Z]+)\]\s?(?P<text>.*)$"
)
_WARNING_LINE = re.compile(r"^\S.*:\d+: \w*Warning: ")
_LEVELS = {"V": "DEBUG", "D": "DEBUG", "I": "INFO", "W": "WARNING", "E": "ERROR", "C": "CRITICAL", "F": "CRITICAL"}


@dataclass(frozen=True)
class Line:
    stream: str  # "out", "log" or "err" (stderr that is not a torch log record)
    text: str
    channel: str = ""  # for "log": the channel
    level: str = ""  # for "log": DEBUG / INFO / WARNING / ERROR
    compile_id: str = ""  # for "log": e.g. "0/1"


def _component(dotted: str) -> str:
    parts = [p for p in re.split(r"[./]", dotted) if p and p != "torch" and p != "py"]
    return parts[0].lstrip("_") if parts else "torch"


def classify(line: str) -> Line | None:
    """A torch log record's first line, or None when the line has no logger prefix."""
    m = _NEW.match(line)
    if m:
        channel = m.group("artifact") or _component(m.group("where"))
        return Line("log", m.group("text"), channel, _LEVELS[m.group("level")], m.group("cid") or "")
    m = _OLD.match(line)
    if m:
        logger = m.group("logger")
        last = logger.rsplit(".", 1)[-1]
        channel = last[2:] if last.startswith("__") else _component(logger)
        return Line("log", m.group("text"), channel, m.group("level"), m.group("cid") or "")
    return None


def split_lines(events: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Join the written chunks into whole lines per stream, keeping the order lines completed in."""
    pending = {"out": "", "err": ""}
    lines = []
    for stream, chunk in events:
        buf = pending.get(stream, "") + chunk
        *done, rest = buf.split("\n")
        lines.extend((stream, d) for d in done)
        pending[stream] = rest
    lines.extend((s, rest) for s, rest in pending.items() if rest)
    return lines


_ENGINE_FRAME = re.compile(
    r'^(?P<indent>\s*)File "(?:<frozen runpy>|[^"]*fieldguide/(?:run/)?(?:runner|executors/\w+)\.py)", line \d+, in '
)


def without_engine_frames(lines: list[Line]) -> list[Line]:
    """Drop the engine's own frames (the runner, the warm worker, runpy) from every traceback a run
    printed, with their source and caret lines: `python file.py` has none of them above the
    snippet's frames (a torch log's "User code traceback", a Python traceback on stderr)."""
    out: list[Line] = []
    skipping = None  # the indentation of the engine frame being dropped
    for line in lines:
        m = _ENGINE_FRAME.match(line.text)
        if m:
            skipping = len(m.group("indent"))
            continue
        if skipping is not None:
            body = line.text[: len(line.text) - len(line.text.lstrip())]
            if line.text.strip() and len(body) > skipping and not line.text.lstrip().startswith("File "):
                continue  # the frame's source line, or its ^^^ markers
            skipping = None
        out.append(line)
    return out


def parse(events: list[tuple[str, str]]) -> list[Line]:
    """Every line of the run, classified. Unprefixed stderr lines that follow a log record
    (torch 2.2 prints multi-line records that way) continue that record's channel."""
    result: list[Line] = []
    last_log: Line | None = None
    for stream, text in split_lines(events):
        if stream == "out":
            result.append(Line("out", text))
            last_log = None
            continue
        record = classify(text)
        if record is not None:
            result.append(record)
            last_log = record
        elif last_log is not None and not _WARNING_LINE.match(text) and not text.startswith("Traceback"):
            result.append(Line("log", text, last_log.channel, last_log.level, last_log.compile_id))
        else:
            result.append(Line("err", text))
            last_log = None
    return result


def stdout_text(lines: list[Line]) -> str:
    return "".join(line.text + "\n" for line in lines if line.stream == "out")


def stderr_text(lines: list[Line]) -> str:
    return "".join(line.text + "\n" for line in lines if line.stream == "err")


def channels(lines: list[Line]) -> dict[str, str]:
    out: dict[str, str] = {}
    for line in lines:
        if line.stream == "log":
            out[line.channel] = out.get(line.channel, "") + line.text + "\n"
    return dict(sorted(out.items()))


def display_text(lines: list[Line]) -> str:
    """What the page shows: stdout and every torch log record, in printed order, as `python file.py
    2>&1` shows them. Every record is shown, whoever turned its channel on: the fence's TORCH_LOGS,
    or the snippet itself with `torch._logging.set_logs` (a reader running it sees those too)."""
    keep = [line.text for line in lines if line.stream in ("out", "log")]
    return "\n".join(keep).rstrip("\n") + ("\n" if keep else "")
