"""Directories a build process owns beside the site (a partial site, serve's file store).

Each is named ``<prefix><pid>-<random>``, so one left behind by a process that was killed can be
told from one a running build still uses, and is removed by the next build that makes one. It is
made with the modes of any directory (0777 less the umask, 0755 as a rule), not tempfile's 0700:
the partial site becomes `site/` (and each copy of `nox -s publish`'s tree), which a web server
running as another user must be able to read.
"""

from __future__ import annotations

import os
import secrets
import shutil
from pathlib import Path


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, someone else's
        return True
    return True


def make_owned(parent: Path, prefix: str) -> Path:
    """A new directory `<prefix><our pid>-…` in `parent`, after removing any whose process is gone."""
    for stale in parent.glob(f"{prefix}*"):
        pid = stale.name[len(prefix) :].split("-", 1)[0]
        if not (pid.isdigit() and pid_alive(int(pid))):
            shutil.rmtree(stale, ignore_errors=True)
    while True:
        path = parent / f"{prefix}{os.getpid()}-{secrets.token_hex(4)}"
        try:
            path.mkdir()  # (mode 0o777, less the umask, as mkdocs makes the folders inside it)
        except FileExistsError:
            continue
        return path
