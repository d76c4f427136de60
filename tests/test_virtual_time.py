"""The test clock and the in-memory network the timing tests run on
(tests/virtual_time.py, tests/memnet.py): exact instants, no wall clock, no sockets."""

from __future__ import annotations

import asyncio
import time

import pytest

from splitnet.net.framing import MAX_FRAME, FrameTooLarge
from splitnet.net.wire import ChannelClosed, WireError
from tests.memnet import MemoryNet
from tests.virtual_time import LoopStalled, VirtualLoop, run_virtual, virtual_time


# ---------------------------------------------------------------------- the clock
@virtual_time
async def test_timers_run_at_exactly_their_time_and_only_when_the_test_moves_it(
        clock: VirtualLoop) -> None:
    seen: list[tuple[str, float]] = []

    async def sleeper(name: str, *waits: float) -> None:
        for w in waits:
            await asyncio.sleep(w)
            seen.append((name, clock.time()))

    tasks = [asyncio.ensure_future(sleeper("a", 1.0, 1.0, 1.0)),
             asyncio.ensure_future(sleeper("b", 2.5))]
    clock.call_later(0.5, lambda: seen.append(("cb", clock.time())))
    start = time.monotonic()
    await clock.advance(2.0)
    assert seen == [("cb", 0.5), ("a", 1.0), ("a", 2.0)] and clock.time() == 2.0
    await clock.advance(0.4)
    assert len(seen) == 3  # b is due at 2.5, not before
    await clock.advance(0.6)
    assert seen[3:] == [("b", 2.5), ("a", 3.0)]
    await asyncio.gather(*tasks)
    assert time.monotonic() - start < 30  # (only a bound for a loop that would hang)


@virtual_time
async def test_timeouts_fire_at_the_virtual_instant(clock: VirtualLoop) -> None:
    never = asyncio.Event()

    async def wait() -> float:
        try:
            async with asyncio.timeout(10.0):
                await never.wait()
        except TimeoutError:
            return clock.time()
        return -1.0

    t = asyncio.ensure_future(wait())
    await clock.advance(9.999)
    assert not t.done()
    await clock.advance(0.001)
    assert t.done() and t.result() == 10.0


@virtual_time
async def test_run_until_moves_time_to_the_result_and_is_bounded(clock: VirtualLoop) -> None:
    async def later() -> str:
        await asyncio.sleep(42.0)
        return "done"

    assert await clock.run_until(later(), within=60.0) == "done"
    assert clock.time() == 42.0
    with pytest.raises(TimeoutError, match="within 10 s"):
        await clock.run_until(later(), within=10.0)
    assert clock.time() == 42.0  # it gave up at the next timer past the bound
    assert await clock.until(lambda: clock.time() >= 0, "now", within=0.0) == 42.0


def test_a_stalled_loop_fails_at_once_instead_of_hanging() -> None:
    async def main(clock: VirtualLoop) -> None:
        await asyncio.Event().wait()  # nothing will ever set it, no timer can help

    with pytest.raises(LoopStalled, match="would block"):
        run_virtual(main)


@virtual_time
async def test_executor_work_runs_inline_at_that_instant(clock: VirtualLoop) -> None:
    await clock.advance(3.0)
    assert await asyncio.to_thread(lambda: clock.time()) == 3.0
    with pytest.raises(ZeroDivisionError):
        await asyncio.to_thread(lambda: 1 // 0)


def test_left_over_tasks_are_cancelled_and_awaited() -> None:
    ended: list[float] = []
    left: list[asyncio.Task[None]] = []

    async def main(clock: VirtualLoop) -> None:
        async def forever() -> None:
            try:
                await asyncio.sleep(1e9)
            finally:
                await asyncio.sleep(1.0)  # its own clean-up takes loop time
                ended.append(clock.time())

        left.append(asyncio.ensure_future(forever()))  # left running on purpose
        await clock.advance(5.0)

    run_virtual(main)
    assert ended == [6.0]


# ---------------------------------------------------------------------- the network
async def _served(net: MemoryNet, port: int = 0) -> tuple[int, asyncio.Queue[object]]:
    """A listener whose handler puts each connection's server end in a queue."""
    got: asyncio.Queue[object] = asyncio.Queue()

    async def serve(ch: object) -> None:
        await got.put(ch)

    _, port = await net.listen(serve, "127.0.0.1", port)  # type: ignore[arg-type]
    return port, got


@virtual_time
async def test_frames_arrive_whole_in_order_then_end_of_stream(clock: VirtualLoop) -> None:
    net = MemoryNet()
    port, got = await _served(net)
    client = await net.connector("127.0.0.1", port)()
    server = await got.get()
    for i in range(1, 50):
        client.send(bytes([i]) * i)
    client.close()  # after what was sent
    for i in range(1, 50):
        assert await server.recv() == bytes([i]) * i  # type: ignore[attr-defined]
    with pytest.raises(ChannelClosed):
        await server.recv()  # type: ignore[attr-defined]
    with pytest.raises(ChannelClosed):
        client.send(b"x")
    await net.close()


@virtual_time
async def test_nobody_listening_is_connection_refused(clock: VirtualLoop) -> None:
    net = MemoryNet()
    with pytest.raises(ConnectionRefusedError) as e:
        await net.connector("127.0.0.1", 7499)()
    assert e.value.strerror == "Connection refused"
    listener, port = await net.listen(lambda ch: asyncio.sleep(0), "127.0.0.1", 7499)
    assert port == 7499
    with pytest.raises(OSError, match="in use"):
        await net.listen(lambda ch: asyncio.sleep(0), "127.0.0.1", 7499)
    listener.close()
    with pytest.raises(ConnectionRefusedError):
        await net.connector("127.0.0.1", 7499)()


@virtual_time
async def test_a_reader_that_does_not_read_makes_the_sender_slow(clock: VirtualLoop) -> None:
    net = MemoryNet(max_buffer=10_000)
    port, got = await _served(net)
    client = await net.connector("127.0.0.1", port)()
    await got.get()
    with pytest.raises(WireError) as e:
        for _ in range(100):
            client.send(b"x" * 1000)
    assert e.value.code == "slow" and e.value.fatal and client.closed
    with pytest.raises(FrameTooLarge):
        (await net.connector("127.0.0.1", port)()).send(b"x" * (MAX_FRAME + 1))


@virtual_time
async def test_drain_waits_for_the_reader(clock: VirtualLoop) -> None:
    net = MemoryNet(max_buffer=4_000)
    port, got = await _served(net)
    client = await net.connector("127.0.0.1", port)()
    server = await got.get()
    for _ in range(4):
        client.send(b"y" * 1000)
    drained = asyncio.ensure_future(client.drain())
    await clock.settle()
    assert not drained.done()
    for _ in range(2):
        await server.recv()  # type: ignore[attr-defined]
    await clock.settle()
    assert drained.done()


@virtual_time
async def test_injected_delay_loss_and_a_cut_cable(clock: VirtualLoop) -> None:
    net = MemoryNet()
    port, got = await _served(net)
    client = await net.connector("127.0.0.1", port)()
    server = await got.get()
    client.delay = 0.25
    client.drop = lambda p: p == b"lost"
    for p in (b"one", b"lost", b"two"):
        client.send(p)
    arrivals: list[tuple[bytes, float]] = []

    async def read() -> None:
        while True:
            arrivals.append((await server.recv(), clock.time()))  # type: ignore[attr-defined]

    reader = asyncio.ensure_future(read())
    await clock.advance(0.2)
    assert arrivals == []
    await clock.advance(0.05)
    assert arrivals == [(b"one", 0.25), (b"two", 0.25)]  # in order, the lost one lost
    client.link.cut()
    client.send(b"into the void")
    client.close()  # not even the end of the stream gets through
    await clock.advance(100.0)
    assert len(arrivals) == 2 and not reader.done()
    reader.cancel()


@virtual_time
async def test_a_delayed_frame_lands_when_another_timer_a_hair_earlier_moves_the_clock(
        clock: VirtualLoop) -> None:
    """Two sums for one instant can differ in the last bit (0.1 s retries plus 0.125 s
    hops did, in a game): the clock then stops at the earlier one, and asyncio runs every
    timer within its clock resolution there — the frame must land then, not have its
    timer scheduled again for the same instant, forever (the loop never idles)."""
    net = MemoryNet()
    port, got = await _served(net)
    client = await net.connector("127.0.0.1", port)()
    server = await got.get()
    client.delay = 0.3
    client.send(b"one")
    early = asyncio.get_running_loop().call_at(0.3 - 1e-12, lambda: None)
    await clock.advance(0.3)
    assert early.when() < 0.3
    assert await clock.run_until(server.recv(), within=0.0) == b"one"  # type: ignore[attr-defined]
