"""The error family of splitnet: what the program says when something it was given is
wrong, and whom the game blames.

* :class:`SplitnetError` — *bad input*: a file, a message, a setting, a command or a move
  that was refused. Its text is one line naming what was wrong, and raising it means
  nothing was changed (the state, the log and the saved files are as they were). It is a
  :class:`ValueError`, so ``except ValueError`` keeps working. Every module's own error
  (``SettingsError``, ``DecodeError``, ``TranscriptError``, ``FrameError`` …) derives
  from it, and so does :class:`IllegalMove`, the base of each game's own (Split's,
  Splito's: the rule it breaks first, ``"R4.2: …"``) — an illegal move is bad input
  until the game core finds a peer made it, and then its ``GameError`` is the verdict.
* :class:`Blame` — a *verdict*: input that proves a seat at fault (or proves someone is,
  when ``seat`` is None). It carries what the game needs to stop and say so, the same
  on every peer: ``seat``, ``step`` (the protocol step or log check that failed) and
  ``reason`` (words, citing the rule R1…R8 where one applies). Its layers each raise
  their own kind, one class each so that a layer can catch what is its own:
  ``CheatDetected`` (the fair deck, :mod:`splitnet.crypto.errors`), ``LogError`` (the
  signed log, :mod:`splitnet.session.log`) and ``GameError`` (the game core,
  :mod:`splitnet.games.split.core`); code that only reports a verdict catches :class:`Blame`.

Programming errors (the local caller misusing an API) are never in this family: they
are ``RuntimeError``/``TypeError``, so that no bug becomes a verdict against a peer.

This module imports nothing, so that every layer (the pure ones included) can use it.

>>> e = Blame(2, "shares", "the proof does not verify")
>>> str(e), (e.seat, e.step, e.reason), isinstance(e, ValueError)
('seat 2 at shares: the proof does not verify', (2, 'shares', 'the proof does not verify'), True)
>>> str(Blame(None, "decrypt", "slot 7 decrypts to no card"))
'an unknown seat at decrypt: slot 7 decrypts to no card'
>>> str(SplitnetError("first line\\nsecond line"))
'first line second line'
"""

from __future__ import annotations

import re
from typing import Any, TypeVar

__all__ = ["Blame", "IllegalMove", "SplitnetError"]

_BREAKS = re.compile(r"[\r\n\v\f\x1c-\x1e\x85\u2028\u2029]+")

_E = TypeVar("_E", bound=BaseException)


def _restore(cls: type[_E], args: tuple[Any, ...], state: dict[str, Any]) -> _E:
    """Unpickle an error of any constructor signature (errors cross process pools)."""
    e = cls.__new__(cls, *args)
    e.args = args
    e.__dict__.update(state)
    return e


class SplitnetError(ValueError):
    """Bad input, refused: ``str(e)`` is one line saying what was wrong; nothing changed."""

    def __str__(self) -> str:
        return _BREAKS.sub(" ", super().__str__())

    def __reduce__(self) -> tuple[Any, ...]:
        return (_restore, (type(self), self.args, dict(self.__dict__)))


class IllegalMove(SplitnetError):
    """A move a game's rules forbid, whatever the game: each game's own ``IllegalMove``
    derives from it, so the layers above a game (the network's error codes, NETWORK.md
    §8) know a refused move by its class, never by its wording. ``rule`` is the rule
    number the move breaks first, cited first in the message (``"R4.2: …"``, ``"S6.1:
    …"``); ``reason`` is the rest. It is not a verdict: a game core turns a peer's
    illegal move into a :class:`Blame` naming it.

    >>> e = IllegalMove("R4.2", "a match needs two halves of one colour")
    >>> str(e), e.rule
    ('R4.2: a match needs two halves of one colour', 'R4.2')
    """

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(f"{rule}: {message}")
        self.rule = rule
        self.reason = message


class Blame(SplitnetError):
    """A verdict: ``seat`` (None when the input proves nothing about anyone yet) is at
    fault at protocol ``step``, for ``reason``. ``text`` replaces the default wording
    (``seat S at STEP: REASON``) where a layer has its own."""

    seat: int | None
    step: str
    reason: str

    def __init__(self, seat: int | None, step: str, reason: str, *,
                 text: str | None = None) -> None:
        self.seat = seat
        self.step = step
        self.reason = reason
        if text is None:
            who = f"seat {seat}" if seat is not None else "an unknown seat"
            text = f"{who} at {step}: {reason}"
        super().__init__(text)
