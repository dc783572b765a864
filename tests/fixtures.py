"""Records of other torch releases (the committed records/) and logs captured from real runs (tests/fixtures/)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from fieldguide.run import logs
from fieldguide.run.record import BuildRecord

FIXTURES = Path(__file__).parent / "fixtures"
RECORDS = Path(__file__).resolve().parent.parent / "records"  # the committed release records
OTHER_TORCHES = ["2.2.2", "2.14.1"]


def record(version: str) -> BuildRecord:
    with gzip.open(RECORDS / f"torch-{version}.json.gz", "rt", encoding="utf-8") as fh:
        return BuildRecord.from_json(json.load(fh))


def raw_log(version: str, name: str) -> str:
    return (FIXTURES / "logs" / f"torch-{version}-{name}.stderr.txt").read_text()


def channel(version: str, name: str, chan: str) -> str:
    return logs.channels(logs.parse([("err", raw_log(version, name))])).get(chan, "")
