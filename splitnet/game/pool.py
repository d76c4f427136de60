"""A :class:`~splitnet.game.checks.HopChecker` that checks shuffle proofs in worker
processes, so a peer uses the machine's other core(s) while it shuffles or waits.

The group library holds the GIL for the whole of a scalar multiplication, so threads
would not run two checks at once: the workers are processes, started once (before the
first round: :meth:`ProofPool.start`) and reused for every hop of every round. A check is
a pure function of the hop's bytes (:func:`~splitnet.game.checks.check_hop`), so nothing
but its arguments and its one-line verdict cross the process boundary. Should the pool
fail (a worker killed, no way to start processes), the check runs in the calling thread
instead: a broken pool costs time, never a wrong verdict. With two workers or more,
each check is cut in parts, one per worker (:func:`~splitnet.game.checks.check_hop_part`),
so that a check alone in the queue uses every core; the verdict is the whole check's.

The pool also holds the peer's **helper**: one more worker process (:class:`Helper`), at
the peer's own priority, that computes half of each costly phase of the peer's own shuffle
and proof — and of the check that is on its critical path, the last hop's — while the
peer's thread computes the other half (a :class:`~splitnet.crypto.split.Splitter`: the
same bytes; a broken helper makes the peer compute its half too). What crosses to the
helper are chunks of those computations, the seat's re-masks and proof nonces among them:
over a pipe between this process and its own child, never a file (protocol/SECURITY.md
§2.1, "Two cores").

The game core never creates one: it is injected by whoever assembles peers
(``splitnet play``: one pool shared by you and the bots, see ``share``).

Every worker and the helper die with the peer, however it ends — ``kill -9`` too, which
runs no clean-up: each reads its jobs from a pipe of its own to the peer (end of file:
the peer is gone) and watches, between and during jobs, that its parent is still the
process that started it (:func:`_watch_parent`). Nothing here uses a named semaphore or
shared memory (no ``multiprocessing`` queue), so the resource tracker that the ``spawn``
start method runs beside them has nothing to clean up or warn about: it ends, silently,
with the last of them — no line of it lands on a full-screen table later.
"""

from __future__ import annotations

import atexit
import contextlib
import multiprocessing
import os
import pickle
import queue
import signal
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any, Final, TypeVar

from splitnet.crypto.deck import HopCheck, HopMemo
from splitnet.crypto.split import Splitter
from splitnet.game.checks import (
    Done,
    HopVerdict,
    OpenedHops,
    check_hop,
    check_hop_part,
    verdict_of_parts,
)

_A = TypeVar("_A")
_R = TypeVar("_R")

#: How much lower than the peer's own process the workers run (a niceness difference).
NICER = 5


def _lower(pid: int, parent: int) -> None:
    """Put process ``pid`` at ``NICER`` below ``parent``'s priority (absolute, so doing it
    twice changes nothing); silently nothing where priorities are not available."""
    with contextlib.suppress(OSError, AttributeError):
        want = min(19, os.getpriority(os.PRIO_PROCESS, parent) + NICER)
        if os.getpriority(os.PRIO_PROCESS, pid) < want:
            os.setpriority(os.PRIO_PROCESS, pid, want)


#: How often a worker or the helper looks whether the peer that started it is still there
#: (seconds): how long one outlives a peer that was killed in the middle of a job.
PARENT_WATCH: Final = 0.2


def _watch_parent() -> None:
    """In a worker or the helper: exit the moment the peer that started it is gone. A
    killed peer (``kill -9`` runs no clean-up) closes its end of the pipe, which says so
    only at the next read — a check can run for seconds; so a thread also looks every
    :data:`PARENT_WATCH` s whether the parent is still the same process (an orphan is
    given another). The job's chunks die with the process: nothing is kept anywhere."""
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_WATCH)
        os._exit(0)

    threading.Thread(target=watch, name="splitnet-watch-parent", daemon=True).start()


def _init_worker() -> None:
    """Each worker, at start: it dies with the peer (:func:`_watch_parent`), runs at a
    lower priority than the peer's own thread, whose proving is on every later seat's
    critical path (the parent lowers it too, as soon as the worker exists, so even the
    worker's start-up yields to the peer's: at launch, the first table), and has the
    proof code imported before the first hop."""
    _watch_parent()
    _lower(os.getpid(), os.getppid())
    import splitnet.crypto.shuffle_proof  # noqa: F401

    # Ctrl-C at the terminal reaches the whole process group: the peer's process decides
    # what happens (the workers stop with it), a worker never prints a traceback.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _worker_main(conn: Connection) -> None:
    """A check worker: run each job it is sent — ``(function, arguments)`` — and send
    back ``(True, result)`` or ``(False, the exception)``, until the pipe closes."""
    _init_worker()
    try:
        while True:
            fn, args = pickle.loads(conn.recv_bytes())
            try:
                reply: tuple[bool, Any] = (True, fn(*args))
            except Exception as e:  # the peer's future raises it
                reply = (False, e)
            try:
                data = pickle.dumps(reply, protocol=pickle.HIGHEST_PROTOCOL)
            except Exception as e:  # an exception that does not pickle: its words
                data = pickle.dumps((False, RuntimeError(repr(e)[:200])))
            conn.send_bytes(data)
    except (EOFError, OSError, ValueError):
        return


# ---------------------------------------------------------------------- the helper

#: How long the peer waits for its helper's half of a phase before it computes that half
#: itself (a hung helper costs this once; it is then stopped and not used again).
HELPER_TIMEOUT: Final = 10.0


@dataclass(frozen=True)
class SplitCall:
    """One phase split with the helper, for a benchmark's accounting (seconds)."""

    #: CPU of the chunk the peer's thread computed
    local: float
    #: CPU of the helper's chunk, as the helper measured it (its ``time.thread_time``)
    remote: float
    #: the cost of crossing: the peer's CPU pickling, sending, receiving and unpickling,
    #: plus the helper's unpickling and pickling
    ipc: float
    #: wall-clock time from the first byte sent to the helper's results unpickled
    wall: float


def _helper_main(conn: Connection) -> None:
    """The helper process: run each chunk function it is sent and send back its results,
    its CPU time on them and its own pickling cost, until the pipe closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the peer's process decides (as above)
    _watch_parent()
    import splitnet.crypto.shuffle_proof  # noqa: F401  (and the re-mask: crypto.elgamal)

    try:
        conn.send_bytes(b"ready")
        while True:
            conn.send_bytes(_serve(conn.recv_bytes()))
    except (EOFError, OSError, ValueError):
        return


def _serve(data: bytes) -> bytes:
    """One phase's chunks: the reply to send. Everything it held (the chunks carry a
    hop's secrets) is gone when it returns: the helper keeps nothing between phases."""
    tt = time.thread_time
    t0 = tt()
    reply: tuple[bool, bytes | str, float, float]
    try:
        fn, chunks = pickle.loads(data)
        t1 = tt()
        results = [fn(c) for c in chunks]
        t2 = tt()
        payload = pickle.dumps(results, protocol=pickle.HIGHEST_PROTOCOL)
        reply = (True, payload, t2 - t1, (t1 - t0) + (tt() - t2))
    except Exception as e:  # the peer computes the chunk itself (and sees the error)
        reply = (False, repr(e)[:200], 0.0, 0.0)
    return pickle.dumps(reply, protocol=pickle.HIGHEST_PROTOCOL)


class Helper:
    """A :class:`~splitnet.crypto.split.Splitter` backed by one worker process at the
    peer's own priority: of a phase cut in two, the peer's thread computes the first chunk
    while the helper computes the second. Started once (:meth:`start`) and reused; one
    phase at a time (a second thread meanwhile computes in its own thread), and only once
    the helper has said it is ready: a helper still starting delays nothing. If it
    fails — killed, stopped, unable to start, not answering within ``timeout`` — the peer
    computes the chunk itself: the same bytes, only later; a helper that failed is not
    used again. ``record``: a list to which each split phase's :class:`SplitCall` is
    appended (for the benchmark)."""

    def __init__(self, timeout: float = HELPER_TIMEOUT) -> None:
        self.timeout = timeout
        self._proc: Any = None
        self._conn: Connection | None = None
        self._broken = False
        self._ready = False
        self._lock = threading.Lock()
        #: phases split with the helper, and phases it failed (computed here instead)
        self.calls = 0
        self.fallbacks = 0
        self.record: list[SplitCall] | None = None

    def start(self) -> Helper:
        """Start the helper process now (idempotent); returns self."""
        with self._lock:
            if self._proc is None and not self._broken:
                try:
                    ctx = multiprocessing.get_context("spawn")  # nothing inherited
                    mine, theirs = ctx.Pipe(duplex=True)
                    proc = ctx.Process(target=_helper_main, args=(theirs,), daemon=True,
                                       name="splitnet-helper")
                    proc.start()
                    theirs.close()
                    self._proc, self._conn = proc, mine
                except (OSError, RuntimeError, ValueError):
                    self._broken = True
        return self

    @property
    def pid(self) -> int | None:
        proc = self._proc
        return proc.pid if proc is not None and not self._broken else None

    @property
    def parts(self) -> int:
        """2 while the helper runs and is ready, else 1 (nothing is cut that nobody would
        share)."""
        return 2 if self._conn is not None and not self._broken and self.ready() else 1

    def ready(self, timeout: float = 0.0) -> bool:
        """Whether the helper is up (waiting up to ``timeout`` for it to say so)."""
        if self._ready:
            return True
        conn = self._conn
        if conn is None or not self._lock.acquire(timeout > 0, timeout if timeout > 0 else -1):
            return False
        try:
            if conn.poll(timeout) and conn.recv_bytes() == b"ready":
                self._ready = True
        except (EOFError, OSError):
            self._fail()
        finally:
            self._lock.release()
        return self._ready

    def map(self, fn: Callable[[_A], _R], chunks: Sequence[_A]) -> list[_R]:
        if (len(chunks) < 2 or self._conn is None or not self._ready
                or not self._lock.acquire(blocking=False)):
            return [fn(c) for c in chunks]
        try:
            return self._map(fn, chunks)
        finally:
            self._lock.release()

    def _map(self, fn: Callable[[_A], _R], chunks: Sequence[_A]) -> list[_R]:
        conn = self._conn
        if conn is None:  # stopped meanwhile
            return [fn(c) for c in chunks]
        tt = time.thread_time
        w0, c0 = time.perf_counter(), tt()
        try:
            conn.send_bytes(pickle.dumps((fn, list(chunks[1:])),
                                         protocol=pickle.HIGHEST_PROTOCOL))
        except (OSError, ValueError, pickle.PicklingError, AttributeError, TypeError):
            self._fail()
            return [fn(c) for c in chunks]
        c1 = tt()
        try:
            mine = fn(chunks[0])
        except Exception:
            self._answer(conn, len(chunks) - 1)  # keep the pipe in step, then raise
            raise
        except BaseException:  # Ctrl-C, exit: do not wait for the helper's half
            self._stop()
            raise
        c2 = tt()
        answer = self._answer(conn, len(chunks) - 1)
        if answer is None:
            return [mine, *(fn(c) for c in chunks[1:])]
        theirs, remote, overhead = answer
        c3 = tt()
        self.calls += 1
        if self.record is not None:
            self.record.append(SplitCall(c2 - c1, remote, (c1 - c0) + (c3 - c2) + overhead,
                                         time.perf_counter() - w0))
        return [mine, *theirs]

    def _answer(self, conn: Connection, count: int) -> tuple[list[Any], float, float] | None:
        """The helper's ``count`` results, or None (then the caller computes them: the
        helper failed, and is dropped, or its chunk raised)."""
        try:
            if not conn.poll(self.timeout):
                raise TimeoutError("the helper does not answer")
            ok, payload, remote, overhead = pickle.loads(conn.recv_bytes())
            if not ok:
                return None  # the chunk raised there: it raises here too
            results = pickle.loads(payload)
            if not isinstance(results, list) or len(results) != count:
                raise TypeError("the helper sent no list of its results")
            return results, float(remote), float(overhead)
        except Exception:
            self._fail()
            return None

    def _fail(self) -> None:
        self.fallbacks += 1
        self._stop()

    def _stop(self) -> None:
        conn, proc = self._conn, self._proc
        self._conn = None
        self._broken = True
        if conn is not None:
            with contextlib.suppress(OSError):
                conn.close()
        if proc is not None:
            proc.join(timeout=0.5)
            if proc.is_alive():
                with contextlib.suppress(OSError, AttributeError):
                    proc.kill()
                proc.join(timeout=1.0)

    def close(self) -> None:
        """Stop the helper (later phases are computed in the peer's thread)."""
        with self._lock:
            self._stop()


# ---------------------------------------------------------------------- the check pool

_Job = tuple["Future[Any]", Callable[..., Any], tuple[Any, ...]]


class _Workers:
    """``count`` worker processes (:func:`_worker_main`), each fed through its own pipe
    by a thread of ours that takes jobs from one queue; ``submit`` returns a
    :class:`~concurrent.futures.Future`. Should a worker fail (killed, its pipe broken),
    the whole pool is broken, as a ``ProcessPoolExecutor`` would be: every job not done
    raises, and so does ``submit`` (the caller then checks in its own thread)."""

    def __init__(self, count: int) -> None:
        ctx = multiprocessing.get_context("spawn")  # nothing inherited
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._broken = False
        self._threads = 0
        self.procs: list[Any] = []
        try:
            for _ in range(count):
                mine, theirs = ctx.Pipe(duplex=True)
                proc = ctx.Process(target=_worker_main, args=(theirs,), daemon=True,
                                   name="splitnet-check")
                try:
                    proc.start()
                finally:
                    theirs.close()
                self.procs.append(proc)
                threading.Thread(target=self._feed, args=(mine,), name="splitnet-checks",
                                 daemon=True).start()
                self._threads += 1
        except BaseException:
            self.shutdown()
            raise

    def submit(self, fn: Callable[..., _R], *args: Any) -> Future[_R]:
        future: Future[_R] = Future()
        with self._lock:
            if self._broken:
                raise RuntimeError("the check workers stopped")
            self._jobs.put((future, fn, args))
        return future

    def _feed(self, conn: Connection) -> None:
        """One worker's thread: its jobs there and back, until the pool stops (the end
        of its pipe then ends the worker)."""
        try:
            while (job := self._jobs.get()) is not None:
                future, fn, args = job
                if not future.set_running_or_notify_cancel():
                    continue
                if self._broken:
                    future.set_exception(RuntimeError("the check workers stopped"))
                    continue
                try:
                    conn.send_bytes(pickle.dumps((fn, args),
                                                 protocol=pickle.HIGHEST_PROTOCOL))
                    ok, value = pickle.loads(conn.recv_bytes())
                except Exception as e:  # the worker is gone (or the job did not pickle)
                    future.set_exception(RuntimeError(f"the check worker failed: {e!r}"))
                    self._stop()  # (this thread fails the jobs it takes from now on)
                    continue
                if ok:
                    future.set_result(value)
                else:
                    future.set_exception(value)
        finally:
            with contextlib.suppress(OSError):
                conn.close()

    def _stop(self) -> None:
        """No more jobs: every one waiting raises; each thread ends at its None."""
        with self._lock:
            if self._broken:
                return
            self._broken = True
            for _ in range(self._threads):
                self._jobs.put(None)

    def pids(self) -> list[int]:
        return sorted(p.pid for p in self.procs if p.pid is not None)

    def shutdown(self) -> None:
        """Stop the workers without waiting: each ends at the end of its pipe, once its
        thread has given back the job in hand; the jobs waiting raise."""
        self._stop()


class _Pending:
    """A check running in the pool, whole (``future``) or in parts (``parts``: each a
    worker's partial sum); falls back to checking here if the pool breaks."""

    def __init__(self, future: Future[str | None] | None, game_id: bytes,
                 hop: HopCheck, parts: list[Future[bytes | None]] | None = None) -> None:
        self.future = future
        self.parts = parts
        self.game_id = game_id
        self.hop = hop
        self._verdict: tuple[str | None] | None = None
        self.inline = False

    def result(self) -> str | None:
        if self._verdict is None:
            verdict: str | None
            try:
                if self.parts is not None:
                    verdict = verdict_of_parts(self.game_id, self.hop,
                                               [f.result() for f in self.parts])
                elif self.future is None:
                    raise RuntimeError("no pool")
                else:
                    verdict = self.future.result()
            except Exception:  # any pool failure: check here instead
                self.inline = True
                verdict = check_hop(self.game_id, self.hop)
            self._verdict = (verdict,)
        return self._verdict[0]


class ProofPool:
    """Shuffle-proof checks in ``workers`` processes (default: one per core). They run at
    a lower priority, so the peer's own shuffle and proof, which the next seats wait for,
    take a core first, and the checks use every core the moment it is idle. ``share``:
    the peers of one process that use this pool check each hop once (verdicts kept by
    :meth:`HopCheck.digest`, the last ``keep``). ``helper``: also start the peer's
    :class:`Helper` (:attr:`splitter`), through which the peer's own hop and the check on
    its critical path (``submit(…, last=True)``) use both cores. ``split``: with two
    workers or more, each other check is cut in parts, one per worker (a check alone
    in the queue then uses every core; :func:`~splitnet.game.checks.check_hop_part`)."""

    def __init__(self, workers: int | None = None, *, share: bool = False,
                 keep: int = 64, helper: bool = True, split: bool = True) -> None:
        self.workers = workers if workers is not None else max(1, os.cpu_count() or 1)
        self.share = share
        self.keep = keep
        # one core: nothing would run beside the peer's thread, a helper would only add IPC
        self.helper: Helper | None = Helper() if helper and (os.cpu_count() or 1) > 1 else None
        self.split = split and self.workers >= 2
        self._executor: _Workers | None = None
        self._broken = False
        self._lock = threading.Lock()
        self._seen: OrderedDict[bytes, HopVerdict] = OrderedDict()
        #: checks sent to the pool (the rest were shared verdicts)
        self.submitted = 0
        self._opened = OpenedHops(keep) if share else None

    def start(self) -> ProofPool:
        """Start the workers now (in the lobby / before the first round) rather than at
        the first hop; returns self. Idempotent."""
        with self._lock:
            if self._executor is None and not self._broken:
                try:
                    self._executor = _Workers(self.workers)
                except (OSError, RuntimeError, ValueError):
                    self._broken = True
                    self._executor = None
            for pid in self.pids():
                _lower(pid, os.getpid())
        if self.helper is not None and not self._broken:
            self.helper.start()
        return self

    @property
    def splitter(self) -> Splitter | None:
        """The helper, for the peer's own shuffle and proof (None: without a helper)."""
        return self.helper

    @property
    def hop_memo(self) -> HopMemo | None:
        """Shared (``share``): each opened seat's hop recomputed once for the process."""
        return self._opened

    def submit(self, game_id: bytes, hop: HopCheck, *, last: bool = False) -> HopVerdict:
        """Check ``hop`` in a worker (return at once); ``last``: the hop whose verdict the
        peer waits for next (the chain's last), checked now in this thread and the helper,
        side by side — not queued behind the earlier hops' checks in the workers, whose
        lower priority would also let it wait."""
        key = hop.digest(game_id) if self.share else b""
        if self.share and key in self._seen:
            return self._seen[key]
        self.start()
        if last:
            done: HopVerdict = Done(check_hop(game_id, hop, splitter=self.splitter))
            if self.share:
                self._seen[key] = done
                while len(self._seen) > self.keep:
                    self._seen.popitem(last=False)
            return done
        future: Future[str | None] | None = None
        parts: list[Future[bytes | None]] | None = None
        if self._executor is not None:
            try:
                if self.split:
                    parts = [self._executor.submit(check_hop_part, game_id, hop, k,
                                                   self.workers)
                             for k in range(self.workers)]
                else:
                    future = self._executor.submit(check_hop, game_id, hop)
                self.submitted += 1
            except RuntimeError:  # shut down or broken: check in this thread
                future, parts = None, None
        pending = _Pending(future, game_id, hop, parts)
        if self.share:
            self._seen[key] = pending
            while len(self._seen) > self.keep:
                self._seen.popitem(last=False)
        return pending

    def pids(self) -> list[int]:
        """The worker processes' ids (for a benchmark's CPU accounting)."""
        ex = self._executor
        return ex.pids() if ex is not None else []

    def close(self) -> None:
        """Stop the workers and the helper (pending checks fall back to the calling
        thread)."""
        with self._lock:
            ex, self._executor = self._executor, None
            self._broken = True
        if ex is not None:
            ex.shutdown()
        if self.helper is not None:
            self.helper.close()


_shared: ProofPool | None = None


def shared_pool() -> ProofPool:
    """The process's one pool for in-process games (``splitnet play``: you and the bots
    share its verdicts), started on first use and stopped at exit."""
    global _shared
    if _shared is None:
        _shared = ProofPool(share=True).start()
        atexit.register(_shared.close)
    return _shared
