"""A :class:`~splitnet.game.checks.HopChecker` that checks shuffle proofs in worker
processes, so a peer uses the machine's other core(s) while it shuffles or waits.

The group library holds the GIL for the whole of a scalar multiplication, so threads
would not run two checks at once: the workers are processes, started once (before the
first round: :meth:`ProofPool.start`) and reused for every hop of every round. A check is
a pure function of the hop's bytes (:func:`~splitnet.game.checks.check_hop`), so nothing
but its arguments and its one-line verdict cross the process boundary. Should the pool
fail (a worker killed, no way to start processes), the check runs in the calling thread
instead: a broken pool costs time, never a wrong verdict.

The game core never creates one: it is injected by whoever assembles peers
(``splitnet play``: one pool shared by you and the bots, see ``share``).
"""

from __future__ import annotations

import atexit
import contextlib
import multiprocessing
import os
import signal
import threading
from collections import OrderedDict
from concurrent.futures import Future, ProcessPoolExecutor

from splitnet.crypto.deck import HopCheck
from splitnet.game.checks import HopVerdict, check_hop

#: How much lower than the peer's own process the workers run (a niceness difference).
NICER = 5


def _lower(pid: int, parent: int) -> None:
    """Put process ``pid`` at ``NICER`` below ``parent``'s priority (absolute, so doing it
    twice changes nothing); silently nothing where priorities are not available."""
    with contextlib.suppress(OSError, AttributeError):
        want = min(19, os.getpriority(os.PRIO_PROCESS, parent) + NICER)
        if os.getpriority(os.PRIO_PROCESS, pid) < want:
            os.setpriority(os.PRIO_PROCESS, pid, want)


def _init_worker() -> None:
    """Each worker, at start: a lower priority than the peer's own thread, whose proving
    is on every later seat's critical path (the parent lowers it too, as soon as the
    worker exists, so even the worker's start-up yields to the peer's: at launch, the
    first table), and the proof code imported before the first hop."""
    _lower(os.getpid(), os.getppid())
    import splitnet.crypto.shuffle_proof  # noqa: F401

    # Ctrl-C at the terminal reaches the whole process group: the peer's process decides
    # what happens (the workers stop with it), a worker never prints a traceback.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _pid() -> int:
    return os.getpid()


class _Pending:
    """A check running in the pool; falls back to checking here if the pool breaks."""

    def __init__(self, future: Future[str | None] | None, game_id: bytes,
                 hop: HopCheck) -> None:
        self.future = future
        self.game_id = game_id
        self.hop = hop
        self._verdict: tuple[str | None] | None = None
        self.inline = False

    def result(self) -> str | None:
        if self._verdict is None:
            verdict: str | None
            try:
                if self.future is None:
                    raise RuntimeError("no pool")
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
    :meth:`HopCheck.digest`, the last ``keep``)."""

    def __init__(self, workers: int | None = None, *, share: bool = False,
                 keep: int = 64) -> None:
        self.workers = workers if workers is not None else max(1, os.cpu_count() or 1)
        self.share = share
        self.keep = keep
        self._executor: ProcessPoolExecutor | None = None
        self._broken = False
        self._lock = threading.Lock()
        self._seen: OrderedDict[bytes, _Pending] = OrderedDict()
        #: checks sent to the pool (the rest were shared verdicts)
        self.submitted = 0

    def start(self) -> ProofPool:
        """Start the workers now (in the lobby / before the first round) rather than at
        the first hop; returns self. Idempotent."""
        with self._lock:
            if self._executor is None and not self._broken:
                try:
                    ctx = multiprocessing.get_context("spawn")  # nothing inherited
                    self._executor = ProcessPoolExecutor(self.workers, mp_context=ctx,
                                                         initializer=_init_worker)
                    for _ in range(self.workers):
                        self._executor.submit(_pid)
                except (OSError, RuntimeError, ValueError):
                    self._broken = True
                    self._executor = None
            for pid in self.pids():
                _lower(pid, os.getpid())
        return self

    def submit(self, game_id: bytes, hop: HopCheck) -> HopVerdict:
        key = hop.digest(game_id) if self.share else b""
        if self.share and key in self._seen:
            return self._seen[key]
        self.start()
        future: Future[str | None] | None = None
        if self._executor is not None:
            try:
                future = self._executor.submit(check_hop, game_id, hop)
                self.submitted += 1
            except RuntimeError:  # shut down or broken: check in this thread
                future = None
        pending = _Pending(future, game_id, hop)
        if self.share:
            self._seen[key] = pending
            while len(self._seen) > self.keep:
                self._seen.popitem(last=False)
        return pending

    def pids(self) -> list[int]:
        """The worker processes' ids (for a benchmark's CPU accounting)."""
        ex = self._executor
        procs = getattr(ex, "_processes", None) if ex is not None else None
        return sorted(procs) if isinstance(procs, dict) else []

    def close(self) -> None:
        """Stop the workers (pending checks fall back to the calling thread)."""
        with self._lock:
            ex, self._executor = self._executor, None
            self._broken = True
        if ex is not None:
            ex.shutdown(wait=False, cancel_futures=True)


_shared: ProofPool | None = None


def shared_pool() -> ProofPool:
    """The process's one pool for in-process games (``splitnet play``: you and the bots
    share its verdicts), started on first use and stopped at exit."""
    global _shared
    if _shared is None:
        _shared = ProofPool(share=True).start()
        atexit.register(_shared.close)
    return _shared
