"""Three asyncio helpers for the commands and front ends, so that no task is left behind
and nothing is swallowed that should not be:

* :func:`run` — ``asyncio.run`` for a command that Ctrl-C and SIGTERM stop: the main task
  is cancelled, and cancelled again while it still runs (a cancellation can be lost).
* :func:`until` — wait until an event is set or one of some futures is done; the waiter
  on the event is stopped before it returns (no loose ``ensure_future``).
* :func:`stop` — cancel a task and wait until it has finished. Its cancellation, and the
  exceptions the caller names as expected (already reported elsewhere), are absorbed;
  any other exception the task ended with — a programming error — propagates, and so
  does a cancellation of the caller itself (Ctrl-C, SIGTERM).
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

#: seconds a stopped command's main task has to finish (its clean shutdown: a host's bye
#: to every seat, drained) before it is cancelled again, and how many times at most
RECANCEL_AFTER = 2.5
RECANCELS = 8


def run(main: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(main)``, where SIGINT (Ctrl-C) and SIGTERM cancel the main task —
    its ``finally`` blocks run, a host says bye — and then raise KeyboardInterrupt here.

    A cancellation can be lost: in Python 3.11 an ``asyncio.wait_for`` whose awaited
    future finishes at the moment it is cancelled returns the result and drops the
    cancellation (python/cpython issue 86296), and a command then goes on as if no signal
    had come — on a loaded machine now and then. So while the task still runs it is
    cancelled again every :data:`RECANCEL_AFTER` seconds, at most :data:`RECANCELS`
    times (what a second Ctrl-C would do); a second signal cancels it again at once."""
    async def guarded() -> T:
        loop = asyncio.get_running_loop()
        task = asyncio.current_task()
        assert task is not None
        stopped = [False]
        later: list[asyncio.TimerHandle] = []

        def cancel(again: int = 0) -> None:
            if task.done():
                return
            stopped[0] = True
            task.cancel()
            if again < RECANCELS:
                later.append(loop.call_later(RECANCEL_AFTER, cancel, again + 1))

        installed = []
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.add_signal_handler(sig, cancel)
                installed.append(sig)
        try:
            return await main
        except asyncio.CancelledError:
            if stopped[0]:
                raise KeyboardInterrupt from None
            raise
        finally:
            for h in later:
                h.cancel()
            for sig in installed:
                loop.remove_signal_handler(sig)

    return asyncio.run(guarded())


async def stop(task: asyncio.Future[Any], *expected: type[BaseException]) -> None:
    """Cancel ``task`` (if it is still running) and wait until it has finished.

    >>> async def main() -> bool:
    ...     t = asyncio.create_task(asyncio.sleep(60))
    ...     await stop(t)
    ...     return t.cancelled()
    >>> asyncio.run(main())
    True
    """
    if not task.done():
        task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        me = asyncio.current_task()
        if me is not None and me.cancelling():
            raise  # the caller is being cancelled: that goes on
    except expected:
        pass


async def until(event: asyncio.Event, *others: asyncio.Future[Any]) -> None:
    """Wait until ``event`` is set or one of ``others`` is done (their results are the
    caller's to read)."""
    waiter = asyncio.create_task(event.wait())
    try:
        await asyncio.wait([waiter, *others], return_when=asyncio.FIRST_COMPLETED)
    finally:
        await stop(waiter)
