"""Errors of the fair-deck protocol.

Two kinds, never mixed up:

* :class:`CheatDetected` — something a *peer* sent is wrong (malformed, out of turn,
  a proof that does not verify, an opening that does not match).  It names the seat at
  fault when that can be known, the protocol step, and the reason in words.  The game
  must stop.  It is a :class:`splitnet.errors.Blame` (so a :class:`ValueError`: bad
  input), like the log's ``LogError`` and the game's ``GameError``.
* :class:`DeckUsageError` — the *local caller* used the API wrongly (asked for a shuffle
  when it is not its turn, passed a slot outside 0…103, …).  A programming error, not a
  peer's fault, so it is a :class:`RuntimeError` and never a ``ValueError``.

>>> e = CheatDetected(2, "shares", "the proof does not verify")
>>> str(e)
'seat 2 cheated at step shares: the proof does not verify'
>>> (e.seat, e.step, e.reason)
(2, 'shares', 'the proof does not verify')
>>> str(CheatDetected(None, "decrypt", "slot 7 decrypts to no card"))
'cheating detected at step decrypt (seat unknown): slot 7 decrypts to no card'
"""

from __future__ import annotations

from splitnet.errors import Blame


class CheatDetected(Blame):
    """A peer's message breaks the protocol. ``seat`` is the seat at fault (or None)."""

    def __init__(self, seat: int | None, step: str, reason: str) -> None:
        if seat is None:
            text = f"cheating detected at step {step} (seat unknown): {reason}"
        else:
            text = f"seat {seat} cheated at step {step}: {reason}"
        super().__init__(seat, step, reason, text=text)


class DeckUsageError(RuntimeError):
    """The local caller asked for something the protocol state does not allow."""
