"""``splitnet`` command lines run as real processes, forked from a server that has the
program imported already: each run skips the interpreter's start and the imports (about
half a second of a loaded core per command line), nothing else.

A forked run is a process of its own, as ``python -m splitnet.cli`` is: its own stdin,
stdout and stderr (the file descriptors the test gives it: ``/dev/null``, a pipe, a
file), its own working directory and environment, signals (``SIGTERM`` to a host that
listens), and the interpreter's own way out: the child ends as ``python -m splitnet.cli``
does after its imports, with ``sys.exit(main(argv))`` at the top level of the
interpreter, so an uncaught exception prints its traceback to stderr and exits 1, and
threads still running are waited for. A run that does not end is killed by the caller's
bounded wait, as a real process is (``test_the_forked_runs_are_real_processes``).

The server (one per test process, started on first use) is single-threaded: it only
accepts requests, forks and reports exit statuses, so forking it is safe. It ends when
the test process that started it ends (its stdin pipe closes).

What a forked run does not show, the real ``python -m splitnet.cli`` does: that the
module runs as ``__main__`` and imports without error on a cold start. The tests that
use this keep a few real-process cases for that whole path.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import select
import selectors
import signal
import socket
import subprocess
import sys
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
_FDS = 3  # stdin, stdout, stderr
#: forked runs need fork, pidfds and SOCK_SEQPACKET (Linux 5.3); elsewhere, or with
#: SPLITNET_TEST_FORK=0, every run is the whole ``python -m splitnet.cli`` instead
FORK = (sys.platform.startswith("linux") and hasattr(os, "pidfd_open")
        and os.environ.get("SPLITNET_TEST_FORK", "1") != "0")
MAIN = "splitnet.cli:main"


def whole_command(call: str = MAIN) -> list[str]:
    """The command line that runs ``call`` in a fresh interpreter."""
    if call == MAIN:
        return [sys.executable, "-m", "splitnet.cli"]
    module, _, name = call.partition(":")
    return [sys.executable, "-c", f"import sys; sys.path.insert(0, {str(ROOT)!r}); "
            f"from {module} import {name}; sys.exit({name}(sys.argv[1:]))"]


class Child:
    """A forked run, as much of ``subprocess.Popen`` as the tests use."""

    def __init__(self, conn: socket.socket, pid: int, pidfd: int) -> None:
        self._conn = conn
        self.pid = pid
        self._pidfd = pidfd
        self.returncode: int | None = None
        self._closing = threading.Lock()  # a signal from a timer thread, the close in wait

    def send_signal(self, sig: int) -> None:
        with self._closing:
            if self.returncode is None:  # a pidfd: never a later process with the same pid
                with contextlib.suppress(ProcessLookupError):
                    signal.pidfd_send_signal(self._pidfd, sig)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def wait(self, timeout: float | None = None) -> int:
        """The exit code (negative: the signal that ended it), as ``Popen.wait``."""
        if self.returncode is None:
            self._conn.settimeout(timeout)
            try:
                data = self._conn.recv(64)
            except TimeoutError:
                raise subprocess.TimeoutExpired(["splitnet"], timeout or 0.0) from None
            if not data:
                raise RuntimeError("the fork server ended before the run did")
            with self._closing:
                self.returncode = int(json.loads(data))
                self._conn.close()
                os.close(self._pidfd)
        return self.returncode

    def poll(self) -> int | None:
        if self.returncode is None and select.select([self._conn], [], [], 0)[0]:
            return self.wait()
        return self.returncode


class Server:
    def __init__(self) -> None:
        self._dir = tempfile.mkdtemp(prefix="splitnet-fork-")
        self.path = os.path.join(self._dir, "s")
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(
            [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]))
        self._proc = subprocess.Popen(
            [sys.executable, "-u", "-m", "tests.forked_cli", self.path], cwd=ROOT, env=env,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert self._proc.stdout is not None
        ready = self._proc.stdout.readline()  # written once it listens (or EOF: it died)
        if ready.strip() != "ready":
            raise RuntimeError(f"the fork server did not start: {ready!r}")

    def spawn(self, args: Sequence[str], *, stdin: int, stdout: int, stderr: int,
              cwd: str | os.PathLike[str] | None = None, env: dict[str, str] | None = None,
              call: str = MAIN) -> Child:
        """``splitnet ARGS`` with these file descriptors as its 0, 1 and 2 (the caller
        keeps its own copies and closes them)."""
        job = {"args": list(args), "cwd": str(cwd or os.getcwd()),
               "env": dict(os.environ if env is None else env), "call": call}
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            conn.connect(self.path)
            socket.send_fds(conn, [json.dumps(job).encode()], [stdin, stdout, stderr])
            msg, fds, _, _ = socket.recv_fds(conn, 64, 1)
        except BaseException:
            conn.close()
            raise
        if not msg or len(fds) != 1:
            conn.close()
            raise RuntimeError("the fork server did not start the run")
        return Child(conn, int(json.loads(msg)), fds[0])

    def close(self) -> None:
        with contextlib.suppress(OSError):
            assert self._proc.stdin is not None
            self._proc.stdin.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._proc.wait(10)
        if self._proc.poll() is None:
            self._proc.kill()
            self._proc.wait()
        with contextlib.suppress(OSError):
            os.unlink(self.path)
            os.rmdir(self._dir)


_server: Server | None = None
_lock = threading.Lock()


def server() -> Server:
    """This test process's fork server (started on first use, ended with the process)."""
    global _server
    with _lock:
        if _server is None:
            import atexit
            _server = Server()
            atexit.register(_server.close)
        return _server


def popen(args: Sequence[str], *, stdout: int, stderr: int, stdin: int | None = None,
          cwd: str | os.PathLike[str] | None = None, env: dict[str, str] | None = None,
          call: str = MAIN) -> Child | subprocess.Popen[bytes]:
    """As ``subprocess.Popen(["python", "-m", "splitnet.cli", *args], stdout=…,
    stderr=…)``: stdin is this process's own unless given, the directory this one's."""
    if not FORK:
        return subprocess.Popen([*whole_command(call), *args], stdin=stdin, stdout=stdout,
                                stderr=stderr, cwd=cwd, env=env)
    if stdin is not None:
        return server().spawn(args, stdin=stdin, stdout=stdout, stderr=stderr, cwd=cwd,
                              env=env, call=call)
    try:
        os.fstat(0)
    except OSError:  # no stdin here: the child gets none either (/dev/null)
        with open(os.devnull) as null:
            return server().spawn(args, stdin=null.fileno(), stdout=stdout, stderr=stderr,
                                  cwd=cwd, env=env, call=call)
    return server().spawn(args, stdin=0, stdout=stdout, stderr=stderr, cwd=cwd, env=env,
                          call=call)


def run(args: Sequence[str], *, timeout: float, cwd: str | os.PathLike[str] | None = None,
        env: dict[str, str] | None = None, input: str | None = None,
        call: str = MAIN) -> subprocess.CompletedProcess[str]:
    """As ``subprocess.run(["python", "-m", "splitnet.cli", *args], capture_output=True,
    text=True, stdin=DEVNULL, timeout=timeout)`` (``input``: a pipe it is written to, as
    ``subprocess.run(input=…)``): a run still going after ``timeout`` is killed and
    ``subprocess.TimeoutExpired`` raised."""
    if not FORK:
        return subprocess.run([*whole_command(call), *args], input=input, cwd=cwd, env=env,
                              stdin=subprocess.DEVNULL if input is None else None,
                              capture_output=True, text=True, errors="replace",
                              timeout=timeout, check=False)
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    if input is None:
        stdin, feed = os.open(os.devnull, os.O_RDONLY), None
    else:
        stdin, feed = os.pipe()
    try:
        child = server().spawn(args, stdin=stdin, stdout=out_w, stderr=err_w, cwd=cwd,
                               env=env, call=call)
    except BaseException:
        for fd in (out_r, err_r, *([] if feed is None else [feed])):
            os.close(fd)
        raise
    finally:
        for fd in (out_w, err_w, stdin):
            os.close(fd)
    if feed is not None:
        assert input is not None
        threading.Thread(target=_feed, args=(feed, input.encode()), daemon=True).start()
    chunks: dict[int, list[bytes]] = {out_r: [], err_r: []}
    deadline = _now() + timeout
    with selectors.DefaultSelector() as sel:
        for fd in chunks:
            sel.register(fd, selectors.EVENT_READ)
        try:
            while sel.get_map():
                left = deadline - _now()
                if left <= 0:
                    child.kill()
                    child.wait()
                    raise subprocess.TimeoutExpired(["splitnet", *args], timeout)
                for key, _ in sel.select(left):
                    fd = key.fd
                    data = os.read(fd, 65536)
                    if data:
                        chunks[fd].append(data)
                    else:
                        sel.unregister(fd)
            left = max(deadline - _now(), 0.0)
            try:
                rc = child.wait(left)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
                raise subprocess.TimeoutExpired(["splitnet", *args], timeout) from None
        finally:
            os.close(out_r)
            os.close(err_r)

    def text(fd: int) -> str:
        return b"".join(chunks[fd]).decode(errors="replace")

    return subprocess.CompletedProcess(["splitnet", *args], rc, text(out_r), text(err_r))


def _feed(fd: int, data: bytes) -> None:
    """Write all of ``data`` to the run's stdin, then close it (its end of input); a run
    that stops reading first (it ended) closes the pipe: the rest is dropped."""
    with contextlib.suppress(OSError), open(fd, "wb") as f:
        f.write(data)


def _now() -> float:
    import time
    return time.monotonic()


# ------------------------------------------------------------------ the server's side


def _serve(path: str) -> dict[str, Any]:
    """Accept requests and fork; returns only in a forked child, with its request."""
    import importlib

    import splitnet.cli
    splitnet.cli.build_parser(["host"])  # the network stack too (host, join, bot)
    for name in ("splitnet.app.lan", "splitnet.app.saved", "splitnet.verify",
                 "splitnet.replay", "splitnet.games.split.front.selfplay", "splitnet.localfiles",
                 "splitnet.net.discovery", "splitnet.bench.split"):
        with contextlib.suppress(ImportError):
            importlib.import_module(name)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    listener.bind(path)
    listener.listen(64)
    # What the imports made lives as long as every run: out of the cyclic collector's
    # reach (gc.freeze, as a pre-forking server does), a run's collections, and the
    # interpreter's at its exit, no longer walk it (a run's exit took 60-80 ms of CPU
    # walking and copying those pages, 25-35 ms now). A run's own objects are collected
    # as ever.
    gc.collect()
    gc.freeze()
    print("ready", flush=True)
    runs: dict[int, tuple[int, socket.socket]] = {}  # pidfd → (pid, connection)
    while True:
        ready, _, _ = select.select([listener, sys.stdin, *runs], [], [])
        for r in ready:
            if r is sys.stdin:
                if not os.read(0, 4096):  # the test process is gone: so are we
                    for pid, _ in runs.values():
                        with contextlib.suppress(ProcessLookupError):
                            os.kill(pid, signal.SIGKILL)
                    os._exit(0)
            elif r is listener:
                conn, _ = listener.accept()
                try:
                    msg, fds, _, _ = socket.recv_fds(conn, 1 << 20, _FDS)
                except OSError:
                    conn.close()
                    continue
                if len(fds) != _FDS:
                    for fd in fds:
                        os.close(fd)
                    conn.close()
                    continue
                pid = os.fork()
                if pid == 0:
                    listener.close()
                    for pidfd, (_, c) in runs.items():
                        os.close(pidfd)
                        c.close()
                    conn.close()
                    for target, fd in enumerate(fds):
                        os.dup2(fd, target)
                    for fd in fds:
                        if fd > 2:
                            os.close(fd)
                    job: dict[str, Any] = json.loads(msg)
                    return job
                for fd in fds:
                    os.close(fd)
                pidfd = os.pidfd_open(pid)
                try:
                    socket.send_fds(conn, [str(pid).encode()], [pidfd])
                except OSError:
                    pass
                runs[pidfd] = (pid, conn)
            else:
                assert isinstance(r, int)
                pid, conn = runs.pop(r)
                _, status = os.waitpid(pid, 0)
                with contextlib.suppress(OSError):
                    conn.send(str(os.waitstatus_to_exitcode(status)).encode())
                conn.close()
                os.close(r)


def _child(job: dict[str, Any]) -> None:
    import importlib
    os.chdir(job["cwd"])
    os.environ.clear()
    os.environ.update(job["env"])
    if os.environ.get("PYTHONFAULTHANDLER"):  # what the interpreter does with it at start
        import faulthandler
        faulthandler.enable()
    module, _, name = job["call"].partition(":")
    mod = importlib.import_module(module)
    sys.argv = [str(getattr(mod, "__file__", module)), *job["args"]]
    func = getattr(mod, name)
    sys.exit(func(job["args"]))  # at the top level, as `python -m splitnet.cli` does


# Stand-ins called in a forked run by test_bad_arguments.py::test_the_forked_runs_are_real_
# processes: an uncaught exception, what the run was given, a run that never ends itself.
def _boom(args: list[str]) -> int:
    raise RuntimeError("an uncaught exception")


def _probe(args: list[str]) -> int:
    print(json.dumps({"cwd": os.getcwd(), "probe": os.environ.get("SPLITNET_PROBE"),
                      "stdin": sys.stdin.read()}))
    return 0


def _hang(args: list[str]) -> int:
    print("waiting", flush=True)
    threading.Event().wait()
    return 0


if __name__ == "__main__":
    _child(_serve(sys.argv[1]))
