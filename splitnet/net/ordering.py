"""What becomes of a joiner's message and ack at the host (protocol/NETWORK.md §5, §6,
§11.8), sans-IO.

A message (:func:`route`): refused before the game (``not-started``) or once it was
called off (``closed``, fatal), held while a restarted host waits for its seats (at
most ``max_held``, then ``slow``, fatal), else checked by the seat's table and ordered
or refused — the check itself is the game core's, not the network's::

    no seat / no game ──▶ NOT_STARTED     called off ──▶ CALLED_OFF
    resuming ──▶ HOLD (TOO_MANY past max_held)     else ──▶ CHECK

>>> route(seated=True, called_off=False, ready=False, held=3, max_held=3).name
'TOO_MANY'

The host's book of its seats' acks (:class:`AckBook`): which ack of a seat it takes,
which one it must keep on file before relaying it (a final ack), which acks a seat that
comes back is shown, and whose final ack the finished game still waits for. The host
does the I/O (the ``acks`` frames, ``GAME_ID.acks``); the log's checks (signature, seat,
head at its seq) are given as their results.

Each guest seat's acks, as the book sees them::

    NONE ──ack (seq s)──▶ ACKED(s) ──a later seq──▶ ACKED(s') ──the last record──▶ FINAL
                                                                (kept on file first)

An ack of a seq no later than the seat's highest is relayed but changes nothing here;
``FINAL`` is an ack of the finished log's last record — on file before anyone sees it
relayed, read back (each checked again) by a host restarted after it.

>>> book = AckBook(host=0)
>>> book.take(1, 4, b"ack-1-4", last=9, finished=False)
Take(keep=False, relay=True)
>>> book.take(1, 9, b"ack-1-9", last=9, finished=True)  # its final ack: on file first
Take(keep=True, relay=True)
>>> book.take(1, 9, b"ack-1-9", last=9, finished=True)  # again: relayed, not kept twice
Take(keep=False, relay=True)
>>> book.missing(range(3), last=9, excused=set())
[2]
>>> book.shown_to(2)
(b'ack-1-9',)
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass
from enum import Enum

from splitnet.net.wire import ErrorCode, WireError


class Route(Enum):
    NOT_STARTED = "not-started"  #: no game, or the connection holds no seat: refused
    CALLED_OFF = "called-off"  #: the game was called off: refused, fatal
    HOLD = "hold"  #: a restarted host waits for its seats: kept for later
    TOO_MANY = "too-many"  #: … but it holds ``max_held`` already: refused, fatal
    CHECK = "check"  #: checked by the table, then ordered or refused


def route(*, seated: bool, called_off: bool, ready: bool, held: int,
          max_held: int) -> Route:
    """What becomes of an author message on a connection (``seated``: in a game, and
    the connection holds a seat of it)."""
    if not seated:
        return Route.NOT_STARTED
    if called_off:
        return Route.CALLED_OFF
    if not ready:
        return Route.TOO_MANY if held >= max_held else Route.HOLD
    return Route.CHECK


@dataclass(frozen=True)
class Take:
    """What the host does with an ack it took: ``keep`` it on file (``GAME_ID.acks``)
    first — the seat's first ack of the finished log's last record —, then ``relay`` it
    to every other seat."""

    keep: bool
    relay: bool = True


def judge_ack(conn_seat: int, seat: int, seq: int, head: bytes, count: int,
              head_at: bytes | None) -> WireError | None:
    """A signed ack (its signature checked: ``seat``, ``seq``, ``head``) on the
    connection of ``conn_seat``, against the host's log of ``count`` records whose hash
    at ``seq`` is ``head_at`` (None: no such record). The refusal, or None (§6)."""
    if seat != conn_seat:
        return WireError(ErrorCode.NOT_YOUR_SEAT, f"an ack signed by seat {seat}")
    if seq >= count or head_at != head:
        return WireError(ErrorCode.FORK, f"your ack of seq {seq} does not match the host's log")
    return None


class AckBook:
    """Every guest seat's highest ack (module docstring); ``host``: the host's seat,
    which acks nothing."""

    def __init__(self, host: int) -> None:
        self.host = host
        #: seat → highest acked seq
        self.acked: dict[int, int] = {}
        #: seat → that ack, signed (to relay again to a seat coming back)
        self.last: dict[int, bytes] = {}

    def take(self, seat: int, seq: int, raw: bytes, *, last: int, finished: bool) -> Take:
        """A checked ack (:func:`judge_ack`) of ``seq`` by ``seat``; ``last``: the seq of
        the log's last record, ``finished``: the game is over."""
        if seq <= self.acked.get(seat, -1):
            return Take(keep=False)
        self.acked[seat] = seq
        self.last[seat] = raw
        return Take(keep=finished and seq == last)

    def load(self, seat: int, seq: int, raw: bytes) -> None:
        """A kept final ack read back (checked again against the log) by a restarted
        host: it counts as taken, and is relayed to seats that come back."""
        if seq > self.acked.get(seat, -1):
            self.acked[seat] = seq
            self.last[seat] = raw

    def shown_to(self, seat: int) -> tuple[bytes, ...]:
        """The latest ack of every other seat: what a seat coming back compares (§6)."""
        return tuple(raw for s, raw in sorted(self.last.items()) if s != seat)

    def missing(self, seats: Iterable[int], *, last: int,
                excused: Collection[int]) -> list[int]:
        """The guest seats among ``seats`` whose ack of record ``last`` the finished game
        still waits for; ``excused``: those it does not wait for (open-handed and gone)."""
        return [s for s in seats if s != self.host and s not in excused
                and self.acked.get(s, -1) < last]
