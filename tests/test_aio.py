"""splitnet.aio: waiting leaves no task behind; stopping a task absorbs only its own
cancellation and what the caller expects — a programming error and the caller's own
cancellation (Ctrl-C, SIGTERM) propagate."""

from __future__ import annotations

import asyncio

import pytest

from splitnet.aio import stop, until


class Expected(Exception):
    pass


def _others() -> set[asyncio.Task[object]]:
    return asyncio.all_tasks() - {asyncio.current_task()}  # type: ignore[operator]


def test_until_returns_on_the_event_or_a_future_and_leaves_no_task() -> None:
    async def main() -> None:
        ev = asyncio.Event()
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        asyncio.get_running_loop().call_soon(ev.set)
        await until(ev, fut)
        assert ev.is_set() and not fut.done() and _others() == set()
        ev.clear()
        asyncio.get_running_loop().call_soon(fut.set_result, None)
        await until(ev, fut)
        assert fut.done() and not ev.is_set() and _others() == set()

    asyncio.run(main())


def test_stop_cancels_and_waits_absorbing_only_cancellation_and_the_expected() -> None:
    async def fails(exc: BaseException) -> None:
        await asyncio.sleep(0)
        raise exc

    async def main() -> None:
        sleeper = asyncio.create_task(asyncio.sleep(60))
        await stop(sleeper)
        assert sleeper.cancelled() and _others() == set()
        t = asyncio.create_task(fails(Expected("reported elsewhere")))
        await asyncio.sleep(0.01)
        await stop(t, Expected)  # already over, with what the caller expects
        bug = asyncio.create_task(fails(TypeError("a programming error")))
        await asyncio.sleep(0.01)
        with pytest.raises(TypeError, match="a programming error"):
            await stop(bug, Expected)

    asyncio.run(main())


def test_the_callers_own_cancellation_goes_on() -> None:
    async def main() -> None:
        inner = asyncio.create_task(asyncio.sleep(60))

        async def stopper() -> None:
            async def slow_inner() -> None:
                try:
                    await asyncio.sleep(60)
                finally:
                    await asyncio.sleep(0.05)  # takes a moment to wind down

            t = asyncio.create_task(slow_inner())
            await asyncio.sleep(0)
            await stop(t)

        outer = asyncio.create_task(stopper())
        await asyncio.sleep(0.01)
        outer.cancel()  # while it waits for its task to wind down
        with pytest.raises(asyncio.CancelledError):
            await outer
        assert outer.cancelled()
        await stop(inner)

    asyncio.run(main())
