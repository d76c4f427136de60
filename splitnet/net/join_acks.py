"""A joiner's acknowledgements (protocol/NETWORK.md §6), sans-IO: which seq it acks
next, the other seats' acks the host relays — compared with its own log as soon as it
holds their seq — and which seats have confirmed its last record.

>>> book = AckBook()
>>> book.to_ack(durable=3, length=5), book.to_ack(durable=0, length=5)
(2, None)
>>> book.acked = 2; book.to_ack(durable=3, length=5) is None  # acked already
True
>>> book.confirmed = {1: 4, 2: 3}
>>> book.unconfirmed(n=4, skip={0, 3}, last=4)  # seat 2 has not acked record 4
[2]
"""

from __future__ import annotations

import logging

from splitnet.session.log import Ack, Log, LogError

_log = logging.getLogger("splitnet.net")


class AckBook:
    """What a joiner knows of the acks on its game (module doc)."""

    def __init__(self) -> None:
        #: the last seq we acked on this connection (-1: none; a new connection acks again)
        self.acked = -1
        #: seat → its relayed ack of a seq our log does not hold yet
        self.pending: dict[int, Ack] = {}
        #: seat → the highest seq at which that seat's relayed ack matched our log
        self.confirmed: dict[int, int] = {}

    def to_ack(self, *, durable: int, length: int) -> int | None:
        """The seq to ack now (our log holds ``length`` records, ``durable`` of them on
        disk), or None: nothing new since the last ack."""
        seq = min(durable, length) - 1
        return None if seq <= self.acked else seq

    def relayed(self, log: Log, raw: bytes) -> Ack | None:
        """A seat's ack the host relayed: returned to compare now, or None (not valid:
        ignored; of a seq we do not hold yet: kept until :meth:`due`)."""
        try:
            a = log.check_ack(raw)
        except LogError as e:
            _log.warning("the host relayed a bad ack: %s", e)
            return None
        if a.seq < len(log):
            return a
        self.pending[a.seat] = a
        return None

    def due(self, length: int) -> list[Ack]:
        """The kept acks our log (``length`` records) now holds the seq of."""
        out = [a for a in self.pending.values() if a.seq < length]
        for a in out:
            del self.pending[a.seat]
        return out

    def matches(self, log: Log, a: Ack) -> bool:
        """Does the seat's ack name our record at its seq? (False: a fork, §6.)"""
        if log.hash_at(a.seq) != a.head:
            return False
        self.confirmed[a.seat] = max(self.confirmed.get(a.seat, -1), a.seq)
        return True

    def unconfirmed(self, *, n: int, skip: set[int], last: int) -> list[int]:
        """Seats of ``n`` (but ``skip``) whose ack of record ``last`` we have not seen."""
        return [s for s in range(n) if s not in skip and self.confirmed.get(s, -1) < last]
