"""splitnet.aio.run: Ctrl-C and SIGTERM stop a command even when a cancellation is lost.

In Python 3.11 ``asyncio.wait_for`` drops a cancellation that arrives as its future
finishes (python/cpython issue 86296): a host or ``browse`` then went on after Ctrl-C,
seen on a loaded machine as ``test_a_host_stopped_during_handshakes_prints_no_traceback``
and ``test_cli_browse_follows_games_until_interrupted`` failing now and then. The main
task below swallows its first cancellation the way that race does."""

from __future__ import annotations

import asyncio
import os
import signal

import pytest

from splitnet import aio


async def loses_the_first_cancellation(sig: int, events: list[str]) -> str:
    asyncio.get_running_loop().call_soon(os.kill, os.getpid(), sig)
    try:
        await asyncio.sleep(30)
    except asyncio.CancelledError:
        events.append("first cancellation swallowed")
    try:
        await asyncio.sleep(30)
    finally:
        events.append("cleaned up")
    return "went on"  # pragma: no cover - what the lost cancellation used to give


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_stops_the_command_even_if_its_cancellation_is_lost(
        sig: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(aio, "RECANCEL_AFTER", 0.01)
    events: list[str] = []
    with pytest.raises(KeyboardInterrupt):
        aio.run(loses_the_first_cancellation(sig, events))
    assert events == ["first cancellation swallowed", "cleaned up"]
    # the handlers are gone with the loop: Python's own again
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_command_that_ends_returns_its_value_and_a_plain_cancellation_propagates() -> None:
    async def fine() -> int:
        await asyncio.sleep(0)
        return 7

    async def cancelled() -> None:
        t = asyncio.current_task()
        assert t is not None
        t.cancel()
        await asyncio.sleep(1)

    assert aio.run(fine()) == 7
    with pytest.raises(asyncio.CancelledError):  # no signal: not a Ctrl-C
        aio.run(cancelled())
