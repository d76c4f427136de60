"""In-memory tables of DeckRound peers for the fair-deck tests (no tests in here).

Each peer is a separate DeckRound holding only its own seed; a message goes to every
peer *and* to an observer holding no secret, exactly as the signed log would deliver it.
"""

from __future__ import annotations

import copy
import hashlib
from typing import Any

from splitnet.crypto.deck import DeckRound, Message

GID = bytes(range(16))
HAND = 9


def seed_for(i: int, tag: bytes = b"seat") -> bytes:
    """The test-vector seeds: SHA-256(tag ‖ u64(i))."""
    return hashlib.sha256(tag + i.to_bytes(8, "big")).digest()


def snapshot(deck: DeckRound) -> dict[str, Any]:
    """Every attribute of a DeckRound, deep-copied (the shared card table left out)."""
    return {k: copy.deepcopy(v) for k, v in vars(deck).items() if k != "_table"}


class Table:
    def __init__(
        self,
        n: int,
        *,
        round_no: int = 1,
        game_id: bytes = GID,
        tag: bytes = b"seat",
        observer: bool = True,
        **kw: Any,
    ) -> None:
        self.n = n
        self.peers = [DeckRound(game_id, round_no, n, i, seed_for(i, tag), **kw) for i in range(n)]
        self.observer = DeckRound(game_id, round_no, n, None, None, **kw) if observer else None
        self.owner: dict[int, int] = {}
        self.public: set[int] = set()
        self.log: list[tuple[str, int, Message, tuple[str, ...]]] = []

    @property
    def everyone(self) -> list[DeckRound]:
        return self.peers + ([self.observer] if self.observer is not None else [])

    def send(self, kind: str, seat: int, msg: Message, *extra: str) -> None:
        self.log.append((kind, seat, msg, extra))
        for p in self.everyone:
            getattr(p, f"on_{kind}")(seat, msg, *extra)

    def commit(self) -> None:
        for i, p in enumerate(self.peers):
            self.send("commit", i, p.commit_message())

    def shuffle(self) -> None:
        for i, p in enumerate(self.peers):
            assert p.next_shuffler() == i
            self.send("shuffle", i, p.shuffle_message())

    def setup(self) -> Table:
        self.commit()
        self.shuffle()
        return self

    def deal(self, hand: int = HAND, *, batch: bool = False) -> int:
        """Deal ``hand`` cards each, one at a time from seat 0 (R3.3); returns the
        first-discard slot (made public).  ``batch``: receivers check all N deal
        messages at once with on_shares_batch."""
        self.owner = {s: s % self.n for s in range(hand * self.n)}
        discard = hand * self.n
        msgs = []
        for i, p in enumerate(self.peers):
            slots = [s for s, o in self.owner.items() if o != i] + [discard]
            msgs.append((i, p.shares_message(slots, "deal")))
        if batch:
            for seat, msg in msgs:
                self.log.append(("shares", seat, msg, ("deal",)))
            for p in self.everyone:
                p.on_shares_batch(msgs, "deal")
        else:
            for seat, msg in msgs:
                self.send("shares", seat, msg, "deal")
        self.public.add(discard)
        return discard

    def draw(self, slot: int, drawer: int) -> None:
        """A private draw (R8.3): every other seat sends its share for ``slot``."""
        for i, p in enumerate(self.peers):
            if i != drawer:
                self.send("shares", i, p.shares_message([slot], "draw"), "draw")
        self.owner[slot] = drawer

    def reveal(self, slots: list[int], holder: int) -> None:
        """A public reveal (R8.2) by the holder."""
        self.send("shares", holder, self.peers[holder].shares_message(slots, "reveal"), "reveal")
        self.public.update(slots)

    def open_all(self) -> None:
        for i, p in enumerate(self.peers):
            self.send("open", i, p.open_message())
