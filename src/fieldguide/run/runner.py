"""Inside the snippet's process: run one snippet as `python snippet.py` would, recording its output.

Every write to stdout or stderr becomes one JSON line ``["out"|"err", text]`` in an events file,
written as it happens, so the order of print() calls and log records is kept and a snippet killed
at its timeout still leaves what it printed. Both levels are captured, in the order written:

* Python-level writes (print, logging, `sys.stdout.buffer.write`): sys.stdout and sys.stderr are
  real text streams (encoding, `buffer`, `reconfigure`, `fileno` work as in `python file.py`);
* writes at the file-descriptor level (`os.write(1, ...)`, C/C++ libraries, child processes):
  fds 1 and 2 are pipes read back by the snippet's own process, before each Python-level write
  and by a background reader, so they land in their place among the Python-level writes.

The snippet's process tree (`start_snippet`), forked by its supervisor (the warm worker, or the
fresh executor's `python -m fieldguide.run.runner`):

    supervisor ── top (a session leader; exits as the snippet did: its code, or its signal)
                   └─ init: PID 1 of a new PID namespace
                       └─ the snippet (PID 2), and everything it starts

* When the snippet ends, its init ends, and the kernel kills every process left in the namespace,
  wherever it went (double fork, `setsid`). At the timeout the supervisor kills the top's process
  group (the top and the init), with the same effect.
* The snippet cannot signal anything outside its namespace (a pid names only processes inside
  it), nor its init (PID 1 receives no signal it has no handler for from inside). It has a /proc
  of its own namespace, so it cannot open its supervisor's fds or memory either.
* The top and the init die with their parent (PR_SET_PDEATHSIG): whatever kills the supervisor
  (the OOM killer, an administrator), the snippet's tree dies with it.
* The namespace also gives the snippet a mount namespace in which the repository is a read-only
  bind mount: a write by any means (Python, C code, `sh -c 'echo > file'`) fails with EROFS.
  The snippet then gives up every capability (bounding set included, and no_new_privs), so it
  cannot remount it read-write or unmount it.
* As root the namespaces are made directly; a non-root builder gets them inside a new user
  namespace in which it keeps its own uid and gid (`unshare -rm true` working means it can).

The fallback, where the kernel allows no namespace (no privilege, user namespaces disabled): the
top is the snippet's process itself, and the supervisor is a child subreaper that kills what the
snippet abandoned when it ends (base.supervise). That does not hold against a snippet that kills
its own supervisor (its daemons then re-parent to init), and the repository is guarded only by an
audit hook refusing Python-level writes (`os.open`, `open`, `os.remove`, ...): C code and child
processes get through. The tests show both limits and are skipped only where no namespace exists.
Where a user namespace is allowed but gets no capabilities (AppArmor's restriction on Ubuntu
24.04), the PID namespace holds and the repository falls back to the audit hook alone.

In the snippet's process, before it runs: its address space is capped (`confine`), output past a
limit stops it, and files it reads under the repository are reported, so the cache can tell when
a data file changed.

The fresh executor runs this module as the snippet's supervisor:

    python -m fieldguide.run.runner REQUEST_JSON RESULT_FILE
"""

from __future__ import annotations

import _thread
import errno
import io
import json
import json.encoder
import os
import runpy
import select
import signal
import sys
import traceback
import types

from .executors.base import EXIT_OUTPUT_LIMIT, become_subreaper, supervise, terminate_on_signal

_encode = getattr(json.encoder, "c_encode_basestring_ascii", None) or json.encoder.py_encode_basestring_ascii


class _Capture:
    """Records both streams of this process into the events file, in the order written."""

    def __init__(self, events_path: str, limit: int) -> None:
        self.sink = os.open(events_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND, 0o600)
        self.limit = limit
        self.total = 0
        self.lock = _thread.allocate_lock()
        self.pending = {"out": b"", "err": b""}  # an incomplete UTF-8 sequence at the end of a write
        self.pipes: dict[str, int] = {}
        for fd, stream in ((1, "out"), (2, "err")):
            read, write = os.pipe()
            os.dup2(write, fd)
            os.close(write)
            os.set_blocking(read, False)
            self.pipes[stream] = read
        self.owner = os.getpid()
        self.hidden = False
        os.register_at_fork(before=self.lock.acquire, after_in_parent=self.lock.release, after_in_child=self._forked)
        _thread.start_new_thread(self._reader, ())  # not a threading.Thread: invisible to the snippet

    def _forked(self) -> None:
        """In a process the snippet forks: write events directly; the original process drains the fds."""
        self.lock.release()
        for fd in self.pipes.values():
            os.close(fd)
        self.pipes = {}

    def _write_line(self, item: list) -> None:
        # JSON by the C encoder: no Python frame on the write path for torch.compile to see
        data = ("[" + ", ".join(_encode(str(x)) for x in item) + "]\n").encode("utf-8")
        while data:
            data = data[os.write(self.sink, data) :]

    def _emit(self, stream: str, data: bytes) -> None:
        self.total += len(data)
        if self.total > self.limit:
            self._write_line(["limit", "output"])
            os._exit(EXIT_OUTPUT_LIMIT)
        text = self._decode(stream, data)
        if text:
            self._write_line([stream, text])

    def _decode(self, stream: str, data: bytes, final: bool = False) -> str:
        data = self.pending[stream] + data
        cut = len(data)
        if not final:  # keep back a trailing sequence that the next write may complete
            for back in range(1, min(3, len(data)) + 1):
                byte = data[-back]
                if byte & 0xC0 != 0x80:  # a lead byte (or ASCII): complete if its sequence fits
                    need = 2 if byte & 0xE0 == 0xC0 else 3 if byte & 0xF0 == 0xE0 else 4 if byte & 0xF8 == 0xF0 else 1
                    if need > back:
                        cut = len(data) - back
                    break
        self.pending[stream] = data[cut:]
        return data[:cut].decode("utf-8", "replace")

    def _drain(self) -> None:
        for stream, fd in self.pipes.items():
            while True:
                try:
                    data = os.read(fd, 65536)
                except BlockingIOError:
                    break
                except OSError:
                    break
                if not data:
                    break
                self._emit(stream, data)

    def _reader(self) -> None:
        while self.pipes and os.getpid() == self.owner:
            try:
                select.select(list(self.pipes.values()), [], [])
            except (OSError, ValueError):
                return
            with self.lock:
                self._drain()

    def record(self, stream: str, data: bytes) -> None:
        if not self.hidden and "torch._dynamo.eval_frame" in sys.modules:
            hide_from_dynamo()
        with self.lock:
            self._drain()  # fd-level writes made before this one come first
            self._emit(stream, data)

    def read(self, path: str) -> None:
        self._write_line(["read", path])

    def close(self) -> None:
        with self.lock:
            self._drain()
            for stream in self.pending:
                tail = self._decode(stream, b"", final=True)
                if tail:
                    self._write_line([stream, tail])


class _Sink(io.BufferedIOBase):
    """The binary layer under sys.stdout / sys.stderr: every write is recorded at once."""

    def __init__(self, capture: _Capture, stream: str, fd: int) -> None:
        super().__init__()
        self._capture, self._stream, self._fd = capture, stream, fd

    @property
    def name(self) -> str:
        return f"<std{self._stream}>"

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return False

    def fileno(self) -> int:
        return self._fd

    def write(self, data) -> int:
        data = bytes(data)
        if data:
            self._capture.record(self._stream, data)
        return len(data)


_capture: _Capture | None = None


def hide_from_dynamo() -> None:
    """Keep torch.compile from seeing the capture's own Python frames (a print inside a compiled
    function would otherwise count them in `counters["frames"]`, which `python file.py` has not)."""
    skip_code = getattr(sys.modules.get("torch._dynamo.eval_frame"), "skip_code", None)
    if skip_code is None:  # not imported yet, or still being imported: try again at the next event
        return
    if _capture is not None:
        _capture.hidden = True
    members = [m for cls in (_Capture, _Sink) for m in vars(cls).values()] + [_audit, _inside]
    codes = [c for c in (getattr(getattr(m, "fget", m), "__code__", None) for m in members) if c is not None]
    while codes:  # with the code nested in them (a generator expression is a frame of its own)
        code = codes.pop()
        codes += [c for c in code.co_consts if isinstance(c, types.CodeType)]
        try:
            skip_code(code)
        except Exception:  # noqa: BLE001 - an older torch without this API: nothing to hide from
            return


def install(events_path: str, limit: int) -> _Capture:
    """Route fds 1 and 2, sys.stdout and sys.stderr into the events file (before anything logs)."""
    global _capture
    sys.stdout.flush()
    sys.stderr.flush()
    _capture = _Capture(events_path, limit)
    streams = []
    for fd, stream, like in ((1, "out", sys.__stdout__), (2, "err", sys.__stderr__)):
        encoding = getattr(like, "encoding", None) or "utf-8"
        errors = getattr(like, "errors", None) or "strict"
        text = io.TextIOWrapper(
            _Sink(_capture, stream, fd),
            encoding=encoding,
            errors=errors,
            write_through=True,
        )
        text.mode = "w"  # type: ignore[misc]
        streams.append(text)
    sys.stdout, sys.stderr = streams
    sys.__stdout__, sys.__stderr__ = streams  # type: ignore[misc]
    if "torch._dynamo.eval_frame" in sys.modules:  # a warm worker's child: hide before the first write
        hide_from_dynamo()
    return _capture


# -- confinement --------------------------------------------------------------------------------
_CLONE_NEWNS, _CLONE_NEWUSER, _CLONE_NEWPID = 0x00020000, 0x10000000, 0x20000000
_MS_RDONLY, _MS_REMOUNT, _MS_BIND, _MS_REC, _MS_PRIVATE = 1, 32, 4096, 16384, 1 << 18
_MS_NOSUID, _MS_NODEV, _MS_NOEXEC = 2, 4, 8
# statvfs flags of a mount -> the mount flags a remount inside a user namespace must keep (locked)
_KEPT_FLAGS = {2: 2, 4: 4, 8: 8, 16: 16, 64: 64, 1024: 1024, 2048: 2048, 4096: 1 << 21}
_PR_SET_PDEATHSIG, _PR_CAPBSET_DROP, _PR_SET_NO_NEW_PRIVS, _PR_CAP_AMBIENT = 1, 24, 38, 47
_WRITE_EVENTS = {
    "os.remove": 0,
    "os.rmdir": 0,
    "os.mkdir": 0,
    "os.rename": (0, 1),
    "os.symlink": 1,
    "os.link": 1,
    "os.chmod": 0,
    "os.chown": 0,
    "os.truncate": 0,
    "os.utime": 0,
    "shutil.rmtree": 0,
    "os.chflags": 0,
}


def _inside(path, root: str) -> bool:
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    if not isinstance(path, str):
        return False
    path = os.path.abspath(path)
    return path == root or path.startswith(root + os.sep)


def _libc():
    import ctypes

    return ctypes.CDLL(None, use_errno=True)


def _unshare(flags: int) -> bool:
    try:
        return _libc().unshare(flags) == 0
    except (OSError, AttributeError):
        return False


def _map_ids(uid: int, gid: int) -> bool:
    """In a new user namespace: be the same user and group as outside it (one id each)."""
    try:
        for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1")):
            with open(f"/proc/self/{name}", "w", encoding="ascii") as fh:
                fh.write(text)
        return True
    except OSError:
        return False


def _mount_read_only(root: str) -> bool:
    """In this process's own mount namespace: the repository as a read-only bind mount."""
    try:
        libc = _libc()
        r = root.encode()
        # inside a user namespace a remount must keep the flags the mount has (nosuid, nodev, ...)
        have = os.statvfs(root).f_flag
        keep = sum(ms for st, ms in _KEPT_FLAGS.items() if have & st)
        return (
            libc.mount(r, r, None, _MS_BIND | _MS_REC, None) == 0
            and libc.mount(None, r, None, _MS_BIND | _MS_REMOUNT | _MS_RDONLY | keep, None) == 0
        )
    except (OSError, AttributeError):
        return False


def isolate(root: str) -> tuple[bool, bool, bool]:
    """Unshare this (single-threaded, just forked) process's namespaces, as far as the kernel allows.

    Returns (its next child is PID 1 of a new PID namespace, the repository is read-only by a
    mount, this process has a private mount namespace). As root: a mount and a PID namespace.
    Otherwise (or as a root that may not make them, in a container): a user namespace in which this
    process keeps its own uid and gid, owning the mount and PID namespaces. Whatever is refused
    (none of it; or mounts, where a user namespace gets no capabilities, as under AppArmor's
    restriction) is left out, and the caller falls back to the subreaper and the audit hook.
    """
    uid, gid = os.geteuid(), os.getegid()
    every = _CLONE_NEWUSER | _CLONE_NEWNS | _CLONE_NEWPID
    # (root without CAP_SYS_ADMIN, as in a container, may still make a user namespace)
    attempts = [_CLONE_NEWNS | _CLONE_NEWPID, every, _CLONE_NEWNS, _CLONE_NEWPID] if uid == 0 else [every]
    for flags in attempts:
        if _unshare(flags):
            break
    else:
        return False, False, False
    if flags & _CLONE_NEWUSER:
        _map_ids(uid, gid)  # refused: the snippet sees the overflow uid, and runs all the same
    private = read_only = False
    if flags & _CLONE_NEWNS:
        # nothing mounted in here may propagate out (the read-only repository, the new /proc)
        try:
            private = _libc().mount(b"none", b"/", None, _MS_REC | _MS_PRIVATE, None) == 0
        except (OSError, AttributeError):
            private = False
        read_only = private and bool(root) and _mount_read_only(root)
    return bool(flags & _CLONE_NEWPID), read_only, private


def _die_with_parent(parent: int | None) -> None:
    """SIGKILL this process when its parent dies (whatever kills the parent)."""
    try:
        _libc().prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass
    if parent is not None and os.getppid() != parent:  # the parent died before the prctl
        os._exit(70)


def drop_privileges() -> None:
    """No capabilities, now or after an exec: the snippet cannot undo its read-only mount."""
    try:
        import ctypes

        libc = _libc()
        libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
        libc.prctl(_PR_CAP_AMBIENT, 4, 0, 0, 0)  # PR_CAP_AMBIENT_CLEAR_ALL
        for cap in range(64):
            if libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 and ctypes.get_errno() == errno.EINVAL:
                break  # past the last capability this kernel knows

        class Header(ctypes.Structure):
            _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

        class Data(ctypes.Structure):
            _fields_ = [
                ("effective", ctypes.c_uint32),
                ("permitted", ctypes.c_uint32),
                ("inheritable", ctypes.c_uint32),
            ]

        libc.capset(ctypes.byref(Header(0x20080522, 0)), (Data * 2)())  # _LINUX_CAPABILITY_VERSION_3
    except (OSError, AttributeError):
        pass


def confine(request: dict) -> None:
    """Capped memory. Single-threaded only."""
    limit = request.get("memory_limit")
    if limit:
        import resource

        # The cap is on what the snippet maps beyond the interpreter it starts in: a CUDA build of
        # torch maps several GB of address space at import (4.4 GB for 2.8 on the CPU), so a fixed
        # cap would fail every snippet there. A fresh interpreter has yet to import torch.
        cap = _mapped_bytes() + limit + (0 if "torch" in sys.modules else TORCH_IMPORT_ALLOWANCE)
        try:
            soft, hard = resource.getrlimit(resource.RLIMIT_AS)
            if hard == resource.RLIM_INFINITY or hard > cap:
                resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
        except (ValueError, OSError):
            pass


TORCH_IMPORT_ALLOWANCE = 8 * 1024**3


def _mapped_bytes() -> int:
    """This process's address space now (VmSize), in bytes."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError):
        pass
    return 0


def watch(root: str, read_only: bool, capture: _Capture | None) -> None:
    """Report files read under the repository; without a read-only mount, refuse writes to it."""
    if not root:
        return
    skip = tuple(
        os.path.join(p, "")
        for p in {
            sys.prefix,
            sys.base_prefix,
            sys.exec_prefix,
            os.path.dirname(os.path.dirname(os.path.dirname(__file__))),
        }
    )
    _WATCH.update(root=root, read_only=read_only, capture=capture, skip=skip, seen=set())
    sys.addaudithook(_audit)


_WATCH: dict = {}


def _audit(event: str, args: tuple) -> None:
    w = _WATCH
    if _capture is not None and not _capture.hidden and "torch._dynamo.eval_frame" in sys.modules:
        hide_from_dynamo()  # a fresh process: as soon as the snippet has imported torch.compile's engine
    if event == "open":
        path, mode, flags = args
        if isinstance(path, int) or path is None or not _inside(path, w["root"]):
            return
        writing = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
            isinstance(flags, int) and flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND)
        )
        if writing and not w["read_only"]:
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), path)
        full = os.path.abspath(os.fsdecode(path))
        if not writing and full not in w["seen"] and not full.startswith(w["skip"]):
            w["seen"].add(full)
            if w["capture"] is not None:
                w["capture"].read(os.path.relpath(full, w["root"]))
    elif event in _WRITE_EVENTS and not w["read_only"]:
        where = _WRITE_EVENTS[event]
        for i in where if isinstance(where, tuple) else (where,):
            if i < len(args) and _inside(args[i], w["root"]):
                raise OSError(errno.EROFS, os.strerror(errno.EROFS), args[i])


# -- running ------------------------------------------------------------------------------------
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
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except (OSError, ValueError):
            pass
    return 0


def _at_exit() -> None:
    """What the interpreter runs at exit (atexit handlers), whose output `python file.py` shows too."""
    import atexit

    try:
        atexit._run_exitfuncs()
    except BaseException:  # noqa: BLE001 - the interpreter prints these and exits all the same
        traceback.print_exc()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def start_snippet(request: dict, prepare=None, close=()) -> int:
    """Fork the snippet's process tree; return the pid its supervisor waits for and kills.

    That process (a session leader) exits as the snippet did, exit code or signal. Where the kernel
    allows it, it is outside and the snippet inside a new PID namespace (see the module docstring);
    otherwise it is the snippet's process itself. `close`: fds of the supervisor the tree must not
    hold. `prepare` as for become_snippet.
    """
    parent = os.getpid()
    pid = os.fork()
    if pid:
        return pid
    try:
        for fd in close:
            os.close(fd)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)  # not the supervisor's stdin (the warm worker's requests)
        os.close(null)
        os.setsid()  # own process group and session: the supervisor kills the group at the timeout
        signal.signal(signal.SIGTERM, signal.SIG_DFL)  # not the supervisor's handler
        _die_with_parent(parent)
        pid_namespace, read_only, private = isolate(request.get("root") or "")
    except BaseException:  # noqa: BLE001
        traceback.print_exc()
        os._exit(70)
    if not pid_namespace:
        become_snippet(request, prepare, read_only)
    _outside(request, prepare, read_only, private)


def _outside(request: dict, prepare, read_only: bool, private: bool) -> None:
    """The tree's top, in the supervisor's PID namespace: start its init, exit as the snippet did."""
    code = 70
    try:
        report, status_fd = os.pipe()
        init = os.fork()
        if init == 0:
            os.close(report)
            _init(request, prepare, read_only, status_fd, private)
        os.close(status_fd)
        _, raw = os.waitpid(init, 0)
        with os.fdopen(report, "rb") as fh:
            said = fh.read()
        status = int(said) if said else raw  # the init reports the snippet's status, unless killed
        if os.WIFSIGNALED(status):
            import resource

            sig = os.WTERMSIG(status)
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
            if sig != signal.SIGKILL:
                signal.signal(sig, signal.SIG_DFL)
            signal.pthread_sigmask(signal.SIG_UNBLOCK, [sig])
            os.kill(os.getpid(), sig)  # end by the snippet's signal, as `python file.py` would
            code = 128 + sig
        else:
            code = os.waitstatus_to_exitcode(status)
    except BaseException:  # noqa: BLE001
        traceback.print_exc()
    finally:
        os._exit(code)


def _init(request: dict, prepare, read_only: bool, status_fd: int, private: bool) -> None:
    """PID 1 of the snippet's PID namespace: fork the snippet, reap orphans, and when the snippet
    ends, end: the kernel then kills every process left in the namespace. Signals from inside it
    cannot reach this process (it handles none)."""
    status = None
    try:
        _die_with_parent(None)  # (its parent is outside the namespace: getppid() is 0 in here)
        for sig in signal.valid_signals():
            if callable(signal.getsignal(sig)):  # SIGINT's KeyboardInterrupt, a supervisor's SIGTERM
                signal.signal(sig, signal.SIG_DFL)
        try:  # a /proc of this namespace: the snippet sees (and can open) only its own processes
            if private:
                _libc().mount(b"proc", b"/proc", b"proc", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC, None)
        except (OSError, AttributeError):
            pass
        child = os.fork()
        if child == 0:
            os.close(status_fd)
            become_snippet(request, prepare, read_only)
        while status is None:
            try:
                pid, raw = os.wait()
            except ChildProcessError:
                break
            if pid == child:
                status = raw
    except BaseException:  # noqa: BLE001
        traceback.print_exc()
    finally:
        if status is not None:
            try:
                os.write(status_fd, str(status).encode())
            except OSError:
                pass
        os._exit(0 if status is not None else 70)


def become_snippet(request: dict, prepare=None, read_only: bool = False) -> None:
    """In a freshly forked child: turn this process into the snippet's. Never returns.

    `prepare` runs after the streams are installed and before the snippet (the warm worker resets
    what the fork carried over there). `read_only`: the repository is already a read-only mount.
    """
    code = 70
    try:
        if os.getpgrp() != os.getpid():
            os.setsid()  # own process group and session
        signal.signal(signal.SIGTERM, signal.SIG_DFL)  # not the supervisor's handler
        os.chdir(request["cwd"])  # after the read-only mount: a cwd taken before it would still write
        os.environ.clear()
        os.environ.update(request["env"])
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        sys.stdin = open(0, closefd=False)  # noqa: SIM115
        confine(request)
        drop_privileges()
        capture = install(request["events"], request.get("output_limit") or 1 << 62)
        watch(request.get("root") or "", read_only, capture)
        if prepare is not None:
            prepare()
        code = run(request["file"])
        _at_exit()
        capture.close()
    except BaseException:  # noqa: BLE001
        try:
            traceback.print_exc()
            if _capture is not None:
                _capture.close()
        except BaseException:  # noqa: BLE001
            pass
    finally:
        os._exit(code if isinstance(code, int) else 1)


def main() -> None:
    """The fresh executor's supervisor: start the snippet, wait for it, kill what it left behind."""
    request = json.loads(sys.argv[1])
    result_file = sys.argv[2]
    become_subreaper()
    terminate_on_signal()
    pid = start_snippet(request)
    code, timed_out = supervise(pid, request["timeout"])
    with open(result_file, "w", encoding="utf-8") as fh:
        json.dump({"exit": code, "timed_out": timed_out}, fh)


if __name__ == "__main__":
    main()
