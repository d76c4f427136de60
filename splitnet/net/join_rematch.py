"""A joiner's answers to a rematch offer (protocol/NETWORK.md §13, steps 2–5), as a
state machine (§11.10), sans-IO: it is given the host's frames, the time and what the
joiner's data dir holds, and returns what to send and whether to stop.

::

    IDLE ──look (an offer of a game whose finished copy we hold)──▶ LOOKING
     │                                                               │ ▲
     │                                                         offer │ │ (offer again,
     │                                                               ▼ │  as agreed changes)
     │                                                            OFFERED
     ├─start (a game's header) ─▶ STARTED ◀── start ── LOOKING, OFFERED
     └─no (we say no: leaving, no copy) ─▶ DECLINED ◀── no ── LOOKING, OFFERED

``IDLE``: no finished game to look for the rematch of (a joiner started afresh: its
program may have been killed in a rematch lobby, step 5). ``LOOKING``: it looks for the
offer of the rematch of ``prev``, for ``rematch_wait`` from when it began. ``OFFERED``:
the host's offer follows our game; our yes goes out once per connection. ``STARTED``:
a game's header (the rematch's, or any game this joiner plays): nothing to answer any
more. ``DECLINED``: we said no (or left), and stop.

>>> side = RematchSide(None, leaves_after=False, rejoin=True, where="h:1")
>>> side.wants_copy()  # started afresh: the shell looks for our copy of the game offered
True
>>> reply = side.offered(b"G" * 16, b"", 1, (0,), conn=1, copy=None)
>>> reply.send, side.state.value
(Answer(game=b'GGGGGGGGGGGGGGGG', yes=False), 'declined')
>>> reply.stop.endswith("so this seat cannot check it: we said no")
True
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Final

from splitnet.game.rematch import PreviousGame, Rematch, RematchError
from splitnet.net.frames import Answer, Bye, Frame
from splitnet.net.machine import Machine

_log = logging.getLogger("splitnet.net")


class AnswerState(Enum):
    IDLE = "idle"  #: no finished game to look for the rematch of
    LOOKING = "looking"  #: looking for the host's offer
    OFFERED = "offered"  #: the host's offer follows our game: we agree
    STARTED = "started"  #: a game's header came (final)
    DECLINED = "declined"  #: we said no, or stop (final)


class AnswerEvent(Enum):
    LOOK = "look"  #: the host offers the rematch of a game we hold finished
    OFFER = "offer"  #: an offer that follows our game
    START = "start"  #: a game's header
    NO = "no"  #: we say no (or stop)


_S, _E = AnswerState, AnswerEvent
TABLE: Final[dict[tuple[AnswerState, AnswerEvent], AnswerState]] = {
    (_S.IDLE, _E.LOOK): _S.LOOKING,
    (_S.LOOKING, _E.OFFER): _S.OFFERED,
    (_S.OFFERED, _E.OFFER): _S.OFFERED,
    (_S.IDLE, _E.START): _S.STARTED,
    (_S.LOOKING, _E.START): _S.STARTED,
    (_S.OFFERED, _E.START): _S.STARTED,
    (_S.IDLE, _E.NO): _S.DECLINED,
    (_S.LOOKING, _E.NO): _S.DECLINED,
    (_S.OFFERED, _E.NO): _S.DECLINED,
}


@dataclass(frozen=True)
class Reply:
    """What the joiner does with an offer: send ``send`` (if any), then stop with
    ``stop`` (if any: one line; ``fault``: the host is at fault, nothing to send)."""

    send: Frame | None = None
    stop: str | None = None


_NOTHING: Final = Reply()


class RematchSide(Machine[AnswerState, AnswerEvent]):
    """One joiner's part of §13 (module doc). ``prev``: the finished game it looks for
    the rematch of (None: it does not look); ``leaves_after``: this seat does not stay
    for rematches (it says no to any offer); ``rejoin``: it may find the finished game an
    offer names in its data dir (``copy`` of :meth:`offered`); ``started``: it plays a
    game already (resumed from disk)."""

    def __init__(self, prev: PreviousGame | None, *, leaves_after: bool, rejoin: bool,
                 started: bool = False, where: str = "") -> None:
        first = (AnswerState.STARTED if started else
                 AnswerState.LOOKING if prev is not None else AnswerState.IDLE)
        super().__init__("rematch", first, TABLE)
        self.prev, self.leaves_after, self.rejoin, self.where = prev, leaves_after, rejoin, where
        #: the host's offer, once it came; the seats that agreed so far
        self.offer: Rematch | None = None
        self.agreed: list[int] = []
        self.since: float | None = None  #: when it began to look (its own wait, §13)
        self.until: float | None = None  #: when the host's lobby stops waiting (its clock)
        self._answered: object = None  # the connection our yes went out on

    @property
    def looking(self) -> bool:
        return self.state in (AnswerState.LOOKING, AnswerState.OFFERED)

    def look_from(self, now: float) -> None:
        """The joiner starts: its own wait for the offer counts from ``now``."""
        if self.state is AnswerState.LOOKING:
            self.since = now

    def wants_copy(self) -> bool:
        """Should the shell look in its data dir for the finished game an offer names?"""
        return self.state is AnswerState.IDLE and self.rejoin and not self.leaves_after

    def hold(self, offer: Rematch | None) -> None:
        """The offer its player sees (a screen may hold it before it answers)."""
        self.offer = offer
        if offer is not None and self.state is AnswerState.LOOKING:
            self.fire(AnswerEvent.OFFER)

    def offered(self, game: bytes, head: bytes, first_dealer: int, agreed: Sequence[int],
                *, conn: object, copy: PreviousGame | None) -> Reply:
        """The host's ``rematch`` frame on connection ``conn``: it must be of the game we
        finished, ending at our final head, with the next first dealer; we agree once per
        connection. ``copy``: our finished copy of ``game`` (asked for by
        :meth:`wants_copy`)."""
        if self.state is AnswerState.IDLE:
            if not self.rejoin and not self.leaves_after:
                return _NOTHING  # (a node that knows nothing of rematches: it ignores it)
            if copy is None or copy.game_id != game or self.leaves_after:
                why = ("this seat does not stay for rematches" if self.leaves_after else
                       "this data dir holds no finished copy of it, so this seat cannot "
                       "check it")
                self.fire(AnswerEvent.NO)
                return Reply(Answer(game, False), f"no rematch: the host at {self.where} "
                             f"offers the rematch of game {game.hex()}, but {why}: we said no")
            _log.info("the host offers the rematch of our game %s: back in its lobby",
                      game.hex())
            self.prev = copy
            self.fire(AnswerEvent.LOOK)
        prev = self.prev
        if not self.looking or prev is None:
            return _NOTHING  # no rematch asked for here: nothing to answer
        if self.leaves_after:  # (its player quit at the end screen: it came to say no)
            self.fire(AnswerEvent.NO)
            return Reply(Answer(prev.game_id, False),
                         "no rematch: this seat does not stay for rematches: we said no")
        try:
            prev.check_offer(game, head, first_dealer)
        except RematchError as e:
            self.fire(AnswerEvent.NO)
            return Reply(None, f"no rematch: the host's offer does not follow our game: {e} "
                               f"[host seat {prev.header.host} at fault]")
        self.offer, self.agreed = Rematch(game, head, first_dealer), list(agreed)
        self.fire(AnswerEvent.OFFER)
        if self._answered is conn:
            return _NOTHING
        self._answered = conn
        return Reply(Answer(prev.game_id, True))

    def lobby(self) -> str | None:
        """The host's ``lobby`` frame: with no offer before it, the host opened some
        other game — the line to stop with."""
        if self.state is AnswerState.LOOKING and self.offer is None:
            return f"no rematch: the host at {self.where} opened a new game instead"
        return None

    def clock(self, now: float, left: float) -> bool:
        """The host's ``clock``: its rematch lobby waits ``left`` s more. True if kept."""
        if not self.looking:
            return False
        self.until = now + left
        return True

    def started(self) -> None:
        """A game's header: from here on, a game like any other."""
        if self.state in (AnswerState.IDLE, AnswerState.LOOKING, AnswerState.OFFERED):
            self.fire(AnswerEvent.START)

    def wait_left(self, now: float, wait: float) -> float | None:
        """Seconds it still looks for the offer (``wait``: rematch_wait); None once
        offered, or not looking."""
        if self.since is None or self.offer is not None or not self.looking:
            return None
        return max(0.0, self.since + wait - now)

    def offer_left(self, now: float) -> float | None:
        """Seconds the host's rematch lobby still waits for every yes, by its last
        ``clock``; None before one, or once a game began."""
        if self.until is None or self.offer is None or not self.looking:
            return None
        return max(0.0, self.until - now)

    def decline(self, why: str) -> Frame | None:
        """Its player says no (or leaves the rematch lobby): what to send the host."""
        if not self.looking:
            return None
        frame: Frame = Answer(self.prev.game_id, False) if (
            self.offer is not None and self.prev is not None) else Bye(why[:200])
        return frame

    def stopping(self) -> Frame | None:
        """Its program stops in the rematch lobby: it says so as it goes (§13)."""
        return Bye("stopped") if self.looking else None
