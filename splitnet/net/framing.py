"""Length-prefixed frames on a byte stream (``protocol/WIRE.md``, "Framing").

::

    frame = length (4 bytes, big-endian, 1 … MAX_FRAME) ‖ payload

A length of 0 or above the cap is refused *before* anything is read or allocated:
:class:`FrameTooLarge`. The stream cannot be resynchronised after a framing error, so the
connection is closed. :class:`FrameDecoder` is the sans-IO form (tests, fuzzing, relays);
:func:`read_frame` / :func:`write_frame` work on asyncio streams.

End of stream: a clean close *between* frames raises ``asyncio.IncompleteReadError`` with an
empty ``partial``; a close *inside* a frame raises :class:`ClosedMidFrame` — both a
:class:`FrameError` ("connection closed mid-frame") and an ``IncompleteReadError``, so code
that treats every end of stream alike keeps working.

>>> d = FrameDecoder()
>>> d.feed(encode_frame(b"hi") + encode_frame(b"there")[:3])
[b'hi']
>>> d.feed(encode_frame(b"there")[3:])
[b'there']
>>> FrameDecoder().feed((300_000).to_bytes(4, "big"))
Traceback (most recent call last):
...
splitnet.net.framing.FrameTooLarge: frame length 300000 is outside 1…262144
"""

from __future__ import annotations

import asyncio
from typing import Final

from splitnet.errors import SplitnetError

__all__ = [
    "HEADER_LEN",
    "MAX_FRAME",
    "ClosedMidFrame",
    "FrameDecoder",
    "FrameError",
    "FrameTooLarge",
    "encode_frame",
    "read_frame",
    "write_frame",
]

HEADER_LEN: Final = 4

#: Largest payload, 256 KiB. Derived from the largest legal message: a shuffle is 104
#: ElGamal ciphertexts × 64 bytes (6.6 KB) plus a proof of a correct shuffle (~20 KB) plus
#: msgpack overhead — about 27 KB. The session layer bounds an author message at
#: ``session.log.MAX_MSG`` (192 KiB, 7× that) and a log record at ``MAX_RECORD``
#: (193 KiB); a frame carries one record inside a small wire map and, on a secure channel,
#: an AEAD tag, which all fits under 256 KiB. Anything larger is refused unread, so a peer
#: can make us buffer at most 256 KiB + 4 bytes per connection.
MAX_FRAME: Final = 256 * 1024


class FrameError(SplitnetError):
    """The byte stream is not a sequence of valid frames (close the connection)."""


class FrameTooLarge(FrameError):
    """A length prefix of 0 or above the cap; ``length`` is what it announced."""

    def __init__(self, length: int, limit: int) -> None:
        super().__init__(f"frame length {length} is outside 1…{limit}")
        self.length = length
        self.limit = limit


class ClosedMidFrame(FrameError, asyncio.IncompleteReadError):
    """The stream ended inside a frame: ``partial`` bytes of the ``expected`` were read."""

    def __init__(self, partial: bytes, expected: int | None, part: str = "payload") -> None:
        asyncio.IncompleteReadError.__init__(self, partial, expected)
        self.args = (f"connection closed mid-frame ({len(partial)} of {expected} {part} bytes)",)

    def __str__(self) -> str:
        return str(self.args[0])


def encode_frame(payload: bytes, *, max_len: int = MAX_FRAME) -> bytes:
    """``length ‖ payload``; raises :class:`FrameTooLarge` for an empty or oversize payload."""
    if not isinstance(payload, bytes | bytearray | memoryview):
        raise TypeError(f"a frame payload is bytes, not {type(payload).__name__}")
    n = len(payload)
    if not 1 <= n <= max_len:
        raise FrameTooLarge(n, max_len)
    return n.to_bytes(HEADER_LEN, "big") + bytes(payload)


class FrameDecoder:
    """Feed bytes as they arrive; get complete payloads back (sans-IO).

    After a :class:`FrameError` the decoder is dead: every later call raises again (a
    stream cannot be resynchronised). Call :meth:`eof` when the stream ends.
    """

    def __init__(self, max_len: int = MAX_FRAME) -> None:
        self.max_len = max_len
        self._buf = bytearray()
        self._error: FrameError | None = None

    def feed(self, data: bytes) -> list[bytes]:
        """The payloads completed by *data* (possibly none), in order."""
        if self._error is not None:
            raise self._error
        self._buf += data
        out: list[bytes] = []
        buf, pos = self._buf, 0
        while len(buf) - pos >= HEADER_LEN:
            n = int.from_bytes(buf[pos : pos + HEADER_LEN], "big")
            if not 1 <= n <= self.max_len:
                del buf[:pos]
                self._error = FrameTooLarge(n, self.max_len)
                raise self._error
            if len(buf) - pos - HEADER_LEN < n:
                break
            out.append(bytes(buf[pos + HEADER_LEN : pos + HEADER_LEN + n]))
            pos += HEADER_LEN + n
        del buf[:pos]  # one compaction per feed, not one per frame
        return out

    @property
    def pending(self) -> int:
        """Bytes held for an incomplete frame."""
        return len(self._buf)

    def eof(self) -> None:
        """The stream ended: raises :class:`ClosedMidFrame` if it ended inside a frame."""
        if self._error is not None:
            raise self._error
        if self._buf:
            if len(self._buf) < HEADER_LEN:
                self._error = ClosedMidFrame(bytes(self._buf), HEADER_LEN, "length")
            else:
                n = int.from_bytes(self._buf[:HEADER_LEN], "big")
                self._error = ClosedMidFrame(bytes(self._buf[HEADER_LEN:]), n)
            raise self._error


async def read_frame(reader: asyncio.StreamReader, max_len: int = MAX_FRAME) -> bytes:
    """The next payload from *reader*.

    Raises :class:`FrameTooLarge` (nothing of the payload read), :class:`ClosedMidFrame`
    when the stream ends inside a frame, and ``asyncio.IncompleteReadError`` with an empty
    ``partial`` on a clean close between frames. Time limits are the caller's
    (``asyncio.timeout``).
    """
    try:
        head = await reader.readexactly(HEADER_LEN)
    except asyncio.IncompleteReadError as e:
        if e.partial:
            raise ClosedMidFrame(e.partial, HEADER_LEN, "length") from None
        raise
    n = int.from_bytes(head, "big")
    if not 1 <= n <= max_len:
        raise FrameTooLarge(n, max_len)
    try:
        return await reader.readexactly(n)
    except asyncio.IncompleteReadError as e:
        raise ClosedMidFrame(e.partial, n) from None


async def write_frame(
    writer: asyncio.StreamWriter, payload: bytes, *, max_len: int = MAX_FRAME
) -> None:
    """Write one frame (a single ``write`` call) and wait for the buffer to drain."""
    writer.write(encode_frame(payload, max_len=max_len))
    await writer.drain()
