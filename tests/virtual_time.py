"""An asyncio event loop whose clock stands still until the test moves it (no tests in
here; tests/test_virtual_time.py tests it).

The host and the joiner measure every timeout, heartbeat and back-off on their event
loop's own time (``loop.time()``, ``asyncio.sleep``, ``asyncio.timeout``). On a
:class:`VirtualLoop` that time is a number only the test changes:
:meth:`VirtualLoop.advance` moves it to each pending timer in order, runs everything
that became due there until the loop is idle, and stops at exactly the time asked for.
Nothing depends on the wall clock or on how loaded the machine is, and a minute of
protocol time takes milliseconds.

Two more things make a run deterministic: work sent to the default executor
(``asyncio.to_thread``, e.g. a transcript's fsync) runs inline, at the instant it was
asked for; and a loop that would block — every task waiting, none for a timer the test
can reach — raises :class:`LoopStalled` at once instead of hanging the suite.

Use :func:`virtual_time` on an ``async def`` test that takes a ``clock`` argument::

    @virtual_time
    async def test_x(tmp_path: Path, clock: VirtualLoop) -> None:
        ...
        await clock.advance(5.0)            # exactly 5 s later
        await clock.run_until(node.done.wait(), within=60.0)
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import inspect
import selectors
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

__all__ = ["LoopStalled", "VirtualLoop", "run_virtual", "virtual_time"]


class LoopStalled(AssertionError):
    """Every task waits and no timer is due: only the test could move time, and the
    test itself is waiting (for something that needs time, or a deadlock)."""


class _NoBlockSelector(selectors.DefaultSelector):  # type: ignore[misc,valid-type]
    """The loop's selector: a poll is fine, a wait means the loop stalled."""

    def select(self, timeout: float | None = None) -> list[tuple[Any, int]]:
        ready: list[tuple[Any, int]] = super().select(0)
        if ready or timeout == 0:
            return ready
        raise LoopStalled("the event loop would block: every task waits and the clock "
                          "stands still (advance it, or await through clock.run_until)")


class VirtualLoop(asyncio.SelectorEventLoop):
    """An event loop whose :meth:`time` is virtual, moved only by :meth:`advance`."""

    def __init__(self, start: float = 0.0) -> None:
        super().__init__(selector=_NoBlockSelector())
        self._now = float(start)

    # ------------------------------------------------------------------ the clock
    def time(self) -> float:
        return self._now

    def _next_timer(self) -> float | None:
        """When the earliest pending (not cancelled) timer is due."""
        pending = [h.when() for h in self._scheduled  # type: ignore[attr-defined]
                   if not h.cancelled()]
        return min(pending, default=None)

    def _busy(self) -> bool:
        """Is anything runnable now: a ready callback, or a timer due at this instant?"""
        if self._ready:  # type: ignore[attr-defined]
            return True
        when = self._next_timer()
        return when is not None and when <= self._now + self._clock_resolution  # type: ignore[attr-defined]

    async def settle(self, *, limit: int = 100_000) -> None:
        """Run every callback runnable at this instant (and those they schedule for it)
        until the loop is idle. ``limit`` bounds a loop that never idles (a busy loop)."""
        for _ in range(limit):
            await asyncio.sleep(0)
            if not self._busy():
                return
        raise AssertionError(f"the loop never went idle at t={self._now:g} "
                             f"({limit} rounds): a task that never waits?")

    async def advance(self, seconds: float) -> None:
        """Move the clock ``seconds`` forward, stopping at every timer due on the way in
        order (each runs at exactly its own time), then settle at the end time."""
        if seconds < 0:
            raise ValueError("time does not go back")
        end = self._now + seconds
        await self.settle()
        while (when := self._next_timer()) is not None and when <= end:
            self._now = max(self._now, when)
            await self.settle()
        self._now = end
        await self.settle()

    async def advance_to(self, when: float) -> None:
        await self.advance(max(0.0, when - self._now))

    async def run_until(self, aw: Awaitable[T], *, within: float) -> T:
        """Await ``aw`` while moving the clock timer by timer, for at most ``within``
        seconds of loop time; :class:`TimeoutError` (and ``aw`` cancelled) after that."""
        fut = asyncio.ensure_future(aw)
        end = self._now + within
        try:
            while True:
                await self.settle()
                if fut.done():
                    return fut.result()
                when = self._next_timer()
                if when is None or when > end:
                    raise TimeoutError(f"not done within {within:g} s of loop time "
                                       f"(now t={self._now:g})")
                self._now = max(self._now, when)
        finally:
            if not fut.done():
                fut.cancel()
                await asyncio.wait([fut])

    async def until(self, pred: Callable[[], bool], what: str, *, within: float) -> float:
        """Move the clock timer by timer until ``pred()`` holds; the time it first did.
        :class:`AssertionError` naming ``what`` if not within ``within`` s."""
        end = self._now + within
        while True:
            await self.settle()
            if pred():
                return self._now
            when = self._next_timer()
            if when is None or when > end:
                raise AssertionError(f"not within {within:g} s of loop time: {what} "
                                     f"(now t={self._now:g})")
            self._now = max(self._now, when)

    # ------------------------------------------------------------------ determinism
    def run_in_executor(self, executor: concurrent.futures.Executor | None,
                        func: Callable[..., T], *args: Any) -> asyncio.Future[T]:
        """Run it here and now (e.g. ``asyncio.to_thread``): no thread finishing at an
        arbitrary point of the run."""
        fut: asyncio.Future[T] = self.create_future()
        try:
            fut.set_result(func(*args))
        except BaseException as e:  # handed to the awaiting task, as an executor would
            fut.set_exception(e)
        return fut


def run_virtual(main: Callable[[VirtualLoop], Coroutine[Any, Any, T]], *,
                start: float = 0.0, cleanup: float = 120.0) -> T:
    """Run ``main(loop)`` on a fresh :class:`VirtualLoop`; then cancel every task still
    running (``main``'s own too, if it stalled) and let them end, moving the clock at
    most ``cleanup`` s, and close the loop."""
    loop = VirtualLoop(start)
    task = loop.create_task(main(loop))
    try:
        result = loop.run_until_complete(task)
    except BaseException:
        _cancel_all(loop, cleanup, quiet=True)
        raise
    else:
        _cancel_all(loop, cleanup, quiet=False)  # a test whose tasks hang there fails
        return result
    finally:
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.close()


def _cancel_all(loop: VirtualLoop, within: float, *, quiet: bool) -> None:
    rest = [t for t in asyncio.all_tasks(loop) if not t.done()]
    for t in rest:
        t.cancel()
    if not rest:
        return
    try:
        loop.run_until_complete(loop.run_until(asyncio.wait(rest), within=within))
    except (LoopStalled, TimeoutError):
        if not quiet:
            raise
    for t in rest:
        if t.done() and not t.cancelled() and t.exception() is not None and not quiet:
            raise AssertionError(f"a task left running failed as it was cancelled: "
                                 f"{t.exception()!r}")


def virtual_time(test: Callable[..., Coroutine[Any, Any, None]]) -> Callable[..., None]:
    """Run an ``async def`` test taking a ``clock`` argument on a :class:`VirtualLoop`
    (pytest sees a plain test without that argument)."""
    sig = inspect.signature(test)
    if "clock" not in sig.parameters:
        raise TypeError(f"{test.__name__} takes no 'clock' argument")

    @functools.wraps(test)
    def wrapper(*args: Any, **kwargs: Any) -> None:
        run_virtual(lambda loop: test(*args, clock=loop, **kwargs))

    params = [p for p in sig.parameters.values() if p.name != "clock"]
    wrapper.__signature__ = sig.replace(parameters=params)  # type: ignore[attr-defined]
    return wrapper


#: seconds of loop time any one wait of :func:`until` / :func:`within` may take
LIMIT = 30.0


def running() -> VirtualLoop:
    """The virtual loop the calling test runs on."""
    loop = asyncio.get_running_loop()
    assert isinstance(loop, VirtualLoop)
    return loop


async def until(pred: Callable[[], bool], what: str, limit: float = LIMIT) -> float:
    """Move the clock until ``pred()``; the loop time at which it first held."""
    return await running().until(pred, what, within=limit)


async def within(aw: Awaitable[T], limit: float = LIMIT) -> T:
    """Await ``aw``, moving the clock for at most ``limit`` s."""
    return await running().run_until(aw, within=limit)
