"""The host's watch on its seats (protocol/NETWORK.md §7), sans-IO: each guest seat's
presence — the state of a small machine of its own — and since when the game waits for
it; what is due (a ``timeout`` that stops the game, or an ``abandon`` that gives a seat
up for good, R8.6/S5.7) follows from them, the game core's view and the clock alone.

Presence, one machine per guest seat (the host's own seat has none)::

            back                 quiet (≥ silent_after)
    GONE ---------> OK  <-------------------------------> SILENT
      ^             |            heard (< silent_after)     |
      +--dropped----+-------------------dropped-------------+

``back`` from any state (a seat that reconnects on a new connection is OK at once);
``heard`` and ``quiet`` only while connected (OK or SILENT). :class:`SeatWatch` is driven
by :class:`~splitnet.net.host.HostNode` — its connections, drops and heartbeats, and the
entries it orders — and tells it what to broadcast (``peers``) and what to order; it owns
no I/O, no clock (every call is given ``now``) and no game rule (the core says whom the
game waits for, at which step, and whether a seat may be given up).

>>> from splitnet.net.config import NetSettings
>>> w = SeatWatch(NetSettings(answer_timeout=60.0, move_timeout=60.0))
>>> w.reset({1: Presence.OK, 2: Presence.OK})
>>> w.heard(2, 40.0)  # quiet past silent_after: SILENT (the peers frame is due)
True
>>> w.states[2]
(<Presence.SILENT: 'silent'>, 40)
>>> w.dropped(2), w.presence(2).value
(True, 'gone')
>>> w.heard(2, 0.0)  # a seat not connected is heard from by no heartbeat
Traceback (most recent call last):
...
splitnet.net.machine.IllegalTransition: seat 2: heard is not allowed in state gone
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Final, Literal, Protocol

from splitnet.net.config import NetSettings
from splitnet.net.frames import Presence
from splitnet.net.machine import Machine


class PresenceEvent(Enum):
    BACK = "back"  #: its connection is (again) the seat's
    HEARD = "heard"  #: a heartbeat found it quiet for less than ``silent_after``
    QUIET = "quiet"  #: a heartbeat found it quiet for ``silent_after`` or longer
    DROPPED = "dropped"  #: its connection is gone


_P, _E = Presence, PresenceEvent
PRESENCE_TABLE: Final[Mapping[tuple[Presence, PresenceEvent], Presence]] = {
    (_P.GONE, _E.BACK): _P.OK, (_P.OK, _E.BACK): _P.OK, (_P.SILENT, _E.BACK): _P.OK,
    (_P.OK, _E.HEARD): _P.OK, (_P.SILENT, _E.HEARD): _P.OK,
    (_P.OK, _E.QUIET): _P.SILENT, (_P.SILENT, _E.QUIET): _P.SILENT,
    (_P.OK, _E.DROPPED): _P.GONE, (_P.SILENT, _E.DROPPED): _P.GONE,
}


class WaitView(Protocol):
    """What the watch asks of the game's core (:class:`~splitnet.game.table.NetCore`)."""

    def owed_step(self, seat: int) -> str: ...

    def abandon_refusal(self, seat: int) -> str | None: ...

    @property
    def round_number(self) -> int | None: ...


@dataclass(frozen=True)
class Due:
    """What the host orders now: ``kind`` "timeout" (the game stops naming ``seat``,
    which owed its ``step`` for ``waited`` s) or "abandon" (the seat, gone, is given up
    and the game goes on); the body of that entry is :meth:`body`."""

    kind: Literal["timeout", "abandon"]
    seat: int
    round_no: int
    waited: int
    step: str

    def body(self) -> dict[str, int]:
        return {"round": self.round_no, "seat": self.seat, "waited": self.waited}


class SeatWatch:
    """Every guest seat's presence and its owed-message clock (module docstring)."""

    def __init__(self, net: NetSettings) -> None:
        self.net = net
        self._seats: dict[int, Machine[Presence, PresenceEvent]] = {}
        self._quiet: dict[int, int] = {}
        #: seat → since when the game waits for a message of it (NETWORK.md §7)
        self.owed_since: dict[int, float] = {}

    # ------------------------------------------------------------------ presence
    def reset(self, seats: Mapping[int, Presence]) -> None:
        """A new game (its connected seats OK) or a restart (every guest GONE)."""
        self._seats = {s: Machine(f"seat {s}", p, PRESENCE_TABLE) for s, p in seats.items()}
        self._quiet = {s: 0 for s in seats}

    @property
    def states(self) -> dict[int, tuple[Presence, int]]:
        """seat → (presence, seconds quiet): what the ``peers`` frame tells."""
        return {s: (m.state, self._quiet[s]) for s, m in sorted(self._seats.items())}

    def presence(self, seat: int) -> Presence:
        m = self._seats.get(seat)
        return Presence.OK if m is None else m.state

    def back(self, seat: int) -> bool:
        """The seat's connection is its own (again): True if the peers frame is due."""
        return self._fire(seat, PresenceEvent.BACK, 0)

    def dropped(self, seat: int) -> bool:
        return self._fire(seat, PresenceEvent.DROPPED, 0)

    def heard(self, seat: int, quiet: float) -> bool:
        """A heartbeat found the connected seat quiet for ``quiet`` s: True if the peers
        frame is due (a new state, or a silent seat's quiet time in a new 5 s step)."""
        if quiet > self.net.silent_after:
            return self._fire(seat, PresenceEvent.QUIET, int(quiet))
        return self._fire(seat, PresenceEvent.HEARD, 0)

    def _fire(self, seat: int, event: PresenceEvent, quiet: int) -> bool:
        m = self._seats.get(seat)
        if m is None:
            m = self._seats[seat] = Machine(f"seat {seat}", Presence.GONE, PRESENCE_TABLE)
            self._quiet[seat] = 0
        old, old_quiet = m.state, self._quiet[seat]
        new = m.fire(event)
        self._quiet[seat] = quiet
        return new is not old or (new is not Presence.OK and old_quiet // 5 != quiet // 5)

    # ------------------------------------------------------------------ the clocks
    def track(self, now: float, waiting: set[int], answered: int | None = None) -> None:
        """The game waits for ``waiting`` now; ``answered``: that seat's message was just
        ordered (its clock starts again if it owes the next one)."""
        for s in list(self.owed_since):
            if s not in waiting or s == answered:
                del self.owed_since[s]
        for s in waiting:
            self.owed_since.setdefault(s, now)

    def clear(self) -> None:
        """Nothing is owed (no game under way, or it is over)."""
        self.owed_since.clear()

    def restart(self, now: float) -> None:
        """Every seat gets its whole wait again (the host was not running, or every seat
        is back after a restart)."""
        for s in self.owed_since:
            self.owed_since[s] = now

    def due(self, now: float, core: WaitView) -> Due | None:
        """What the host orders now, if anything: a seat not present (GONE or SILENT)
        that the game may give up (``core.abandon_refusal``) is, once ``open_hand_after``
        has passed with ``--open-hand-after`` set; any seat that owes a message longer
        than its limit (``answer_timeout``, ``move_timeout`` for a move) is timed out.
        The lowest seat first, one at a time."""
        for seat, since in sorted(self.owed_since.items()):
            step = core.owed_step(seat)
            r = core.round_number
            assert r is not None
            waited = now - since
            after = self.net.open_hand_after
            if (after is not None and self.presence(seat) is not Presence.OK
                    and core.abandon_refusal(seat) is None):
                # given up instead of stopping the game, where the game's core allows it;
                # resumed as usual if it is back before this
                if waited <= after:
                    continue
                return Due("abandon", seat, r, int(waited), step)
            if waited > self.net.answer_limit(step):
                return Due("timeout", seat, r, int(waited), step)
        return None
