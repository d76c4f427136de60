"""Two asyncio helpers for the commands and front ends, so that no task is left behind
and nothing is swallowed that should not be:

* :func:`until` — wait until an event is set or one of some futures is done; the waiter
  on the event is stopped before it returns (no loose ``ensure_future``).
* :func:`stop` — cancel a task and wait until it has finished. Its cancellation, and the
  exceptions the caller names as expected (already reported elsewhere), are absorbed;
  any other exception the task ended with — a programming error — propagates, and so
  does a cancellation of the caller itself (Ctrl-C, SIGTERM).
"""

from __future__ import annotations

import asyncio
from typing import Any


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
