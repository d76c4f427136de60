"""Length-prefixed frames: the cap, end-of-stream cases, sans-IO decoder (127.0.0.1 only)."""

from __future__ import annotations

import asyncio
import doctest
import itertools
from collections.abc import AsyncIterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from splitnet.net import framing
from splitnet.net.framing import (
    HEADER_LEN,
    MAX_FRAME,
    ClosedMidFrame,
    FrameDecoder,
    FrameError,
    FrameTooLarge,
    encode_frame,
    read_frame,
    write_frame,
)
from splitnet.session.log import MAX_MSG, MAX_RECORD

Pair = tuple[asyncio.StreamReader, asyncio.StreamWriter, asyncio.StreamWriter]


@pytest.fixture
async def pair() -> AsyncIterator[Pair]:
    """(reader on the server side, the server's writer, a client writer) over loopback."""
    accepted: asyncio.Future[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = (
        asyncio.get_running_loop().create_future()
    )

    async def on_client(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
        accepted.set_result((r, w))

    server = await asyncio.start_server(on_client, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    _, client_w = await asyncio.open_connection("127.0.0.1", port)
    server_r, server_w = await accepted
    yield server_r, server_w, client_w
    for w in (client_w, server_w):
        w.close()
    server.close()
    await server.wait_closed()


def test_doctests() -> None:
    assert doctest.testmod(framing).failed == 0


def test_cap_fits_the_largest_record() -> None:
    # a record (≤ MAX_RECORD) in a wire map plus AEAD overhead must fit, with margin
    assert MAX_MSG < MAX_RECORD and MAX_RECORD + 4096 < MAX_FRAME
    # and the largest real message (104 × 64-byte ciphertexts + ~20 KB proof) is far below
    assert 104 * 64 + 20_000 < MAX_MSG // 4


# ---------------------------------------------------------------- asyncio streams


async def test_roundtrip(pair: Pair) -> None:
    r, _, w = pair
    payloads = [b"x", b"hello", bytes(MAX_FRAME), b"\x00" * 1000]
    for p in payloads:
        await write_frame(w, p)
    for p in payloads:
        assert await read_frame(r) == p


async def test_oversize_length_refused_before_the_payload(pair: Pair) -> None:
    r, _, w = pair
    w.write((MAX_FRAME + 1).to_bytes(4, "big"))  # a header and no payload at all
    await w.drain()
    with pytest.raises(FrameTooLarge) as ei:
        await asyncio.wait_for(read_frame(r), timeout=5)
    assert (ei.value.length, ei.value.limit) == (MAX_FRAME + 1, MAX_FRAME)
    assert isinstance(ei.value, FrameError)


@pytest.mark.parametrize("length", [0, 0xFFFFFFFF, 2 * MAX_FRAME])
async def test_bad_lengths(pair: Pair, length: int) -> None:
    r, _, w = pair
    w.write(length.to_bytes(4, "big") + b"payload")
    await w.drain()
    with pytest.raises(FrameTooLarge):
        await asyncio.wait_for(read_frame(r), timeout=5)


async def test_custom_cap(pair: Pair) -> None:
    r, _, w = pair
    await write_frame(w, b"12345")
    with pytest.raises(FrameTooLarge):
        await read_frame(r, max_len=4)


@pytest.mark.parametrize(
    ("data", "part"),
    [
        (b"\x00", "length"),
        (b"\x00\x00\x01", "length"),
        (b"\x00\x00\x00\x05", "payload"),
        (b"\x00\x00\x00\x05abc", "payload"),
    ],
)
async def test_eof_mid_frame(pair: Pair, data: bytes, part: str) -> None:
    r, _, w = pair
    await write_frame(w, b"complete")
    w.write(data)
    await w.drain()
    w.close()
    assert await read_frame(r) == b"complete"
    with pytest.raises(FrameError, match="connection closed mid-frame") as ei:
        await asyncio.wait_for(read_frame(r), timeout=5)
    assert isinstance(ei.value, ClosedMidFrame) and part in str(ei.value)
    # also an IncompleteReadError, so "any end of stream" handlers keep working
    assert isinstance(ei.value, asyncio.IncompleteReadError)


async def test_clean_eof_between_frames(pair: Pair) -> None:
    r, _, w = pair
    await write_frame(w, b"last")
    w.close()
    assert await read_frame(r) == b"last"
    with pytest.raises(asyncio.IncompleteReadError) as ei:
        await asyncio.wait_for(read_frame(r), timeout=5)
    assert ei.value.partial == b"" and not isinstance(ei.value, FrameError)


async def test_write_frame_refuses_without_writing(pair: Pair) -> None:
    r, _, w = pair
    for bad in (b"", bytes(MAX_FRAME + 1)):
        with pytest.raises(FrameTooLarge):
            await write_frame(w, bad)
    with pytest.raises(TypeError):
        await write_frame(w, "text")  # type: ignore[arg-type]
    await write_frame(w, b"ok")
    assert await read_frame(r) == b"ok"  # nothing of the refused frames was sent


async def test_partial_delivery(pair: Pair) -> None:
    """A frame trickling in byte by byte is assembled."""
    r, _, w = pair
    data = encode_frame(b"slowly")
    task = asyncio.create_task(read_frame(r))
    for i in range(len(data)):
        w.write(data[i : i + 1])
        await w.drain()
        await asyncio.sleep(0)
    assert await asyncio.wait_for(task, timeout=5) == b"slowly"


# ---------------------------------------------------------------- sans-IO decoder


@given(
    st.lists(st.binary(min_size=1, max_size=300), max_size=8),
    st.lists(st.integers(0, 3000), max_size=10),
)
def test_decoder_any_split(frames: list[bytes], cuts: list[int]) -> None:
    stream = b"".join(encode_frame(f) for f in frames)
    points = sorted({min(c, len(stream)) for c in cuts} | {0, len(stream)})
    d = FrameDecoder()
    got: list[bytes] = []
    for a, b in itertools.pairwise(points):
        got += d.feed(stream[a:b])
    assert got == frames and d.pending == 0
    d.eof()


def test_decoder_cap_and_dead_after_error() -> None:
    d = FrameDecoder(max_len=10)
    assert d.feed(encode_frame(b"0123456789")) == [b"0123456789"]
    with pytest.raises(FrameTooLarge):
        d.feed(encode_frame(b"x") + (11).to_bytes(4, "big"))
    with pytest.raises(FrameTooLarge):
        d.feed(encode_frame(b"x"))  # no resync after an error
    with pytest.raises(FrameTooLarge):
        FrameDecoder().feed(bytes(4))  # a zero length is refused too


def test_decoder_refuses_the_header_before_the_payload_arrives() -> None:
    with pytest.raises(FrameTooLarge):
        FrameDecoder().feed((MAX_FRAME + 1).to_bytes(4, "big"))


@pytest.mark.parametrize(
    "tail", [b"\x00", b"\x00\x00\x00", b"\x00\x00\x00\x09", b"\x00\x00\x00\x09ab"]
)
def test_decoder_eof_mid_frame(tail: bytes) -> None:
    d = FrameDecoder()
    assert d.feed(encode_frame(b"done") + tail) == [b"done"]
    assert d.pending == len(tail)
    with pytest.raises(ClosedMidFrame, match="connection closed mid-frame"):
        d.eof()


def test_encode_frame() -> None:
    assert encode_frame(b"ab") == b"\x00\x00\x00\x02ab"
    assert len(encode_frame(bytes(MAX_FRAME))) == HEADER_LEN + MAX_FRAME
    for bad in (b"", bytes(MAX_FRAME + 1)):
        with pytest.raises(FrameTooLarge):
            encode_frame(bad)
