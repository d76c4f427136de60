"""The host's rematch lobby (protocol/NETWORK.md §13), as a sans-IO state machine
(§11.6): the offer of the next game to a finished game's seats, their answers, the wait
for every yes and the end without a game.

::

                 yes · arrive · drop · beat (time left)
                 ┌────┐
                 ▼    │       fill (every seat said yes)
    ─────────▶ WAITING ────────────────────────────────▶ AGREED ──start──▶ STARTED
                 │   ◀─────── unfill (a seat gone before the start ran) ──┘
                 │                           (AGREED to itself: arrive · yes · drop)
                 │ no · leave · late · left-after · call-off · close
                 ▼
               ENDED ◀── no · leave · call-off · close (from AGREED)
                 └─┐ arrive (refused with the reason) · yes · no · leave · drop
                   └─▶ ENDED (nothing else changes)

``WAITING``: offered, waiting for every seat's yes (the host's own counts from the
start: it offers). ``AGREED``: every seat said yes — the host starts the rematch now.
``ENDED``: no rematch, for the one-line reason :attr:`RematchLobby.why` (a seat
declined, left, left after the game and is not back, did not agree within
``rematch_wait``, or the host's user called it off; ``close``: the host stopped in its
rematch lobby, no reason of a seat's). A seat that comes back after the end is refused
with that reason, and the lobby notes it as told (:attr:`RematchLobby.told`).

The machine owns no I/O and no clock: :class:`~splitnet.net.host.HostNode` tells it what
happened (a seat's hello, its answer, its bye, its connection's end, a heartbeat at time
``now``) and does what it returns — send the offer (to one seat or all), the clock, start
the rematch's table, end the lobby telling who.

>>> offer = Rematch(b"G" * 16, b"H" * 32, 1)
>>> lobby = RematchLobby(b"G" * 16, offer, host=0, names=("Host", "Ana", "Bo"), wait=60)
>>> lobby.offered(0.0)
>>> lobby.arrive(1, None)
Admit(seat=1, name='Ana', was_leaving=False)
>>> lobby.answer(1, b"G" * 16, True)
[SendOffer(to=None)]
>>> lobby.arrive(2, None), lobby.answer(2, b"G" * 16, True)
(Admit(seat=2, name='Bo', was_leaving=False), [SendOffer(to=None), StartRematch()])
>>> lobby.state.name, sorted(lobby.agreed)
('AGREED', [0, 1, 2])
>>> lobby.started(); lobby.state.name
'STARTED'
>>> lobby.answer(1, b"G" * 16, False)
Traceback (most recent call last):
...
splitnet.net.machine.IllegalTransition: rematch lobby: no is not allowed in state started
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Final

from splitnet.game.rematch import PreviousGame, Rematch
from splitnet.net.machine import Machine
from splitnet.net.waits import Countdown
from splitnet.net.wire import ErrorCode, WireError


class RematchState(Enum):
    WAITING = "waiting"  #: offered: waiting for every seat's yes
    AGREED = "agreed"  #: every seat said yes: the rematch starts now
    STARTED = "started"  #: the rematch game started (final)
    ENDED = "ended"  #: no rematch (final; seats coming back are told why)


class RematchEvent(Enum):
    ARRIVE = "arrive"  #: a seat of the finished game is (back) in the lobby
    YES = "yes"  #: a seat agrees (again: no change)
    NO = "no"  #: a seat declines
    LEAVE = "leave"  #: a seat said bye in the lobby
    DROP = "drop"  #: a seat's connection ended: its yes goes with it
    BEAT = "beat"  #: a heartbeat: the time left, in steps
    FILL = "fill"  #: the last yes is in
    UNFILL = "unfill"  #: a seat's yes went before the start ran
    START = "start"  #: the rematch's header is made
    LATE = "late"  #: ``rematch_wait`` passed without every yes
    LEFT_AFTER = "left-after"  #: a seat that left after the game is not back
    CALL_OFF = "call-off"  #: the host's user ended the rematch lobby
    CLOSE = "close"  #: the host stops in its rematch lobby (no reason of a seat's)


_S, _E = RematchState, RematchEvent
TABLE: Final[Mapping[tuple[RematchState, RematchEvent], RematchState]] = {
    (_S.WAITING, _E.ARRIVE): _S.WAITING,
    (_S.WAITING, _E.YES): _S.WAITING,
    (_S.WAITING, _E.DROP): _S.WAITING,
    (_S.WAITING, _E.BEAT): _S.WAITING,
    (_S.WAITING, _E.FILL): _S.AGREED,
    (_S.AGREED, _E.ARRIVE): _S.AGREED,  # (a seat's newer connection: it agreed already)
    (_S.AGREED, _E.YES): _S.AGREED,  # (said again: no change)
    (_S.AGREED, _E.DROP): _S.AGREED,  # then unfill, unless that seat had not agreed
    (_S.AGREED, _E.UNFILL): _S.WAITING,
    (_S.AGREED, _E.START): _S.STARTED,
    (_S.WAITING, _E.NO): _S.ENDED,
    (_S.WAITING, _E.LEAVE): _S.ENDED,
    (_S.WAITING, _E.LATE): _S.ENDED,
    (_S.WAITING, _E.LEFT_AFTER): _S.ENDED,
    (_S.WAITING, _E.CALL_OFF): _S.ENDED,
    (_S.WAITING, _E.CLOSE): _S.ENDED,
    (_S.AGREED, _E.NO): _S.ENDED,
    (_S.AGREED, _E.LEAVE): _S.ENDED,
    (_S.AGREED, _E.CALL_OFF): _S.ENDED,
    (_S.AGREED, _E.CLOSE): _S.ENDED,
    # ended: a seat coming back is refused with the reason; the rest changes nothing
    (_S.ENDED, _E.ARRIVE): _S.ENDED,
    (_S.ENDED, _E.YES): _S.ENDED,
    (_S.ENDED, _E.NO): _S.ENDED,
    (_S.ENDED, _E.LEAVE): _S.ENDED,
    (_S.ENDED, _E.DROP): _S.ENDED,
}


# ---------------------------------------------------------------------- decisions
@dataclass(frozen=True)
class Admit:
    """Let the seat in under its name of the finished game (then the offer goes to it);
    ``was_leaving``: it had said, as that game ended, that it leaves."""

    seat: int
    name: str
    was_leaving: bool


@dataclass(frozen=True)
class SendOffer:
    """Send the offer, with the seats that agreed so far, and the clock: to seat ``to``,
    or (None) to every member."""

    to: int | None = None


@dataclass(frozen=True)
class SendClock:
    """Tell every member the whole seconds the lobby still waits (a new 15 s step)."""

    left: int


@dataclass(frozen=True)
class StartRematch:
    """Every seat agreed: make the rematch's header and start it now."""


@dataclass(frozen=True)
class EndRematch:
    """No rematch: tell every member ``why`` (a bye) — ``gone``: the seats that know it
    already — ; ``by_host``: the host's own user called it off."""

    why: str
    gone: tuple[int, ...]
    by_host: bool = False


@dataclass(frozen=True)
class Refuse:
    """Refuse the frame with this error (nothing changes)."""

    error: WireError


@dataclass(frozen=True)
class Redraw:
    """Only the screens change (the time left)."""


Decision = SendOffer | SendClock | StartRematch | EndRematch | Refuse | Redraw


class RematchLobby(Machine[RematchState, RematchEvent]):
    """One rematch lobby: the finished game ``game`` (its id), the ``offer``, the
    host's seat, each seat's ``names`` of that game, ``wait`` (``rematch_wait``, s) and
    ``left``: the seats that said as that game ended that they leave (seat → name)."""

    def __init__(self, game: bytes, offer: Rematch, *, host: int, names: tuple[str, ...],
                 wait: float, left: Mapping[int, str] | None = None,
                 keys: Mapping[bytes, int] | None = None) -> None:
        super().__init__("rematch lobby", RematchState.WAITING, TABLE)
        self.game = game
        self.offer = offer
        self.host = host
        self.names = names
        self.wait = wait
        #: each seat's identity key in the finished game (key → seat)
        self.keys: dict[bytes, int] = dict(keys or {})
        #: the seats that agreed so far (the host's own: it offers)
        self.agreed: set[int] = {host}
        #: the seats in the lobby now (a connection each)
        self.here: set[int] = set()
        #: seats that left after the finished game, until each is back (seat → name)
        self.left_after: dict[int, str] = dict(left or {})
        #: why it ended without a game (None: it has not, or the host stopped: close)
        self.why: str | None = None
        self.by_host = False
        #: the seats told why it ended (a bye, or a refusal after the end), and those
        #: that ended it
        self.told: set[int] = set()
        self.clock = Countdown()  # (from the offer, on the host's clock)

    @classmethod
    def of(cls, prev: PreviousGame, wait: float,
           left: Mapping[int, str] | None = None) -> RematchLobby:
        """The rematch lobby of the finished game ``prev``."""
        h = prev.header
        return cls(prev.game_id, prev.next(), host=h.host,
                   names=tuple(p.name for p in h.players), wait=wait, left=left,
                   keys={p.key: p.seat for p in h.players})

    # ------------------------------------------------------------------ views
    def seat_of(self, key: bytes) -> int | None:
        """The seat this identity key held in the finished game (and holds again)."""
        return self.keys.get(key)

    @property
    def seats(self) -> frozenset[int]:
        """The guest seats: those that must agree (and be told if it ends)."""
        return frozenset(range(len(self.names))) - {self.host}

    @property
    def waiting(self) -> bool:
        """Still waiting for every yes (its clock runs, its heartbeat acts)."""
        return self.state is RematchState.WAITING or self.state is RematchState.AGREED

    @property
    def all_told(self) -> bool:
        return self.seats <= self.told

    def left_s(self, now: float) -> float | None:
        """Seconds it still waits for every yes (None: not waiting any more)."""
        return self.clock.left(now, self.wait) if self.waiting else None

    # ------------------------------------------------------------------ events
    def offered(self, now: float) -> None:
        """The offer is made (the lobby listens): its wait starts."""
        self.clock.start(now)

    def slept(self, gap: float) -> None:
        """The host's program did not run for ``gap`` s: the wait moves by as much."""
        self.clock.shift(gap)

    def arrive(self, seat: int | None, game: bytes | None) -> Admit | WireError:
        """A hello proving the key of ``seat`` of the finished game (None: no seat of
        it), asking for ``game`` (a joiner resuming a game; None for a lobby)."""
        if game is not None:
            return WireError(ErrorCode.UNKNOWN_GAME, f"no game {game.hex()} here (this host "
                             f"offers a rematch of game {self.game.hex()})", fatal=True)
        if seat is None or seat == self.host or seat not in self.seats:
            return WireError(ErrorCode.STARTED, f"this host offers a rematch of game "
                             f"{self.game.hex()} to its players only", fatal=True)
        self.fire(RematchEvent.ARRIVE)
        if self.state is RematchState.ENDED:
            self.told.add(seat)  # (a seat that came back after the end: told why now)
            return WireError(ErrorCode.CLOSED, self.why or "the host closed the game",
                             fatal=True)
        self.here.add(seat)
        return Admit(seat, self.names[seat], self.left_after.pop(seat, None) is not None)

    def answer(self, seat: int, game: bytes, yes: bool) -> list[Decision]:
        """A member's ``answer {game, yes}`` to the offer."""
        if game != self.game:
            return [Refuse(WireError(ErrorCode.PROTOCOL, f"the rematch offered is of game "
                                     f"{self.game.hex()}, not {game.hex()}"))]
        ended = self.state is RematchState.ENDED
        if not yes:
            self.fire(RematchEvent.NO)
            return [] if ended else self._end(f"{self.names[seat]} declined the rematch", [seat])
        self.fire(RematchEvent.YES)
        if ended or seat in self.agreed:
            return []
        self.agreed.add(seat)
        out: list[Decision] = [SendOffer()]
        if self.agreed >= self.seats:
            self.fire(RematchEvent.FILL)
            out.append(StartRematch())
        return out

    def leave(self, seat: int | None, reason: str) -> list[Decision]:
        """A member's ``bye``: it leaves the rematch lobby, which ends."""
        ended = self.state is RematchState.ENDED
        self.fire(RematchEvent.LEAVE)
        if ended:
            return []
        name = "?" if seat is None else self.names[seat]
        why = (f"{name} left: no rematch ({reason[:80]!r})" if reason
               else f"{name} left: no rematch")
        return self._end(why, [] if seat is None else [seat])

    def dropped(self, seat: int | None) -> list[Decision]:
        """A member's connection ended: its yes goes with it until it is back (it
        answers again); the others are shown who agreed."""
        self.fire(RematchEvent.DROP)
        if self.state is RematchState.ENDED:
            return []
        if seat is not None:
            self.here.discard(seat)
            if seat != self.host:
                self.agreed.discard(seat)
        if self.state is RematchState.AGREED and not self.agreed >= self.seats:
            self.fire(RematchEvent.UNFILL)
        return [SendOffer()]

    def beat(self, now: float) -> list[Decision]:
        """A heartbeat at ``now``: a seat that left after the game and is not back ends
        the lobby at once; so does ``wait`` without every yes; else the screens are told
        the time left (the joiners in 15 s steps)."""
        if self.state is not RematchState.WAITING:
            return []
        gone = sorted(s for s in self.left_after if s not in self.here)
        if gone:
            self.fire(RematchEvent.LEFT_AFTER)
            names = [self.names[s] for s in gone]
            return self._end(f"no rematch: {', '.join(names)} left after the game", gone)
        if self.clock.over(now, self.wait):
            self.fire(RematchEvent.LATE)
            late = [n for s, n in enumerate(self.names) if s not in self.agreed]
            return self._end(f"no rematch: {', '.join(late)} did not agree within "
                             f"{self.wait:g} s", [])
        self.fire(RematchEvent.BEAT)
        out: list[Decision] = []
        left = self.left_s(now)
        if self.clock.step_changed(now, self.wait) and left is not None:
            out.append(SendClock(math.ceil(left)))
        return [*out, Redraw()]

    def call_off(self, why: str, *, gone: Collection[int] = (),
                 by_host: bool = False) -> list[Decision]:
        """End it for ``why`` (the host's user, ``by_host``, or its program for another
        reason); nothing if it is over already."""
        if not self.can(RematchEvent.CALL_OFF):
            return []
        self.fire(RematchEvent.CALL_OFF)
        return self._end(why, list(gone), by_host=by_host)

    def close(self) -> None:
        """The host stops in its rematch lobby (it says bye to each member itself)."""
        if self.can(RematchEvent.CLOSE):
            self.fire(RematchEvent.CLOSE)

    def started(self) -> None:
        self.fire(RematchEvent.START)

    def told_seat(self, seat: int) -> None:
        """The end's bye went out to ``seat``."""
        self.told.add(seat)

    def _end(self, why: str, gone: Collection[int], *,
             by_host: bool = False) -> list[Decision]:
        self.why = why
        self.by_host = by_host
        self.told |= set(gone)
        return [EndRematch(why, tuple(gone), by_host)]

