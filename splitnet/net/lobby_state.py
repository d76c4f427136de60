"""The host's lobby, as a state machine (protocol/NETWORK.md §11.1).

::

    OPEN ──fill──▶ FULL ──start──▶ STARTING ──started──▶ STARTED
     ▲ │◀─unfill──┘                    ▲
     │ └─────────start (the host's own choice)
     └── close ──▶ CLOSED  (from OPEN, FULL)

The lobby is ``FULL`` when ``seats`` players (the host included) are in — only with
``--seats N``; without it the lobby stays ``OPEN`` until the host starts it. A game
starts by itself **only** from ``FULL`` (:meth:`LobbyMachine.auto_start`), so it always
has the seats it was opened for; from ``OPEN`` only by the host's explicit choice
(:meth:`LobbyMachine.begin`). A member who leaves a full lobby makes it ``OPEN`` again.

>>> m = LobbyMachine(seats=3)
>>> m.players(2).name, m.auto_start()
('OPEN', False)
>>> m.players(3).name, m.auto_start()
('FULL', True)
>>> m.players(2).name  # someone left before the start ran: no game with 2 of 3
'OPEN'
"""

from __future__ import annotations

from enum import Enum

from splitnet.games import FIRST
from splitnet.net.machine import Machine

#: a lobby's limits unless its game says (the first game's: Split's 2–6, R3.1); every
#: game's tables seat two at least
MAX_PLAYERS = FIRST.max_players
MIN_PLAYERS = 2


class LobbyState(Enum):
    OPEN = "open"  #: players may join; not (or no longer) full
    FULL = "full"  #: ``seats`` players are in: the game starts now
    STARTING = "starting"  #: the header is being made
    STARTED = "started"  #: the game runs (final for the lobby)
    CLOSED = "closed"  #: the host closed its lobby (final)


class LobbyEvent(Enum):
    FILL = "fill"
    UNFILL = "unfill"
    START = "start"
    STARTED = "started"
    CLOSE = "close"


_S = LobbyState
_E = LobbyEvent
TABLE: dict[tuple[LobbyState, LobbyEvent], LobbyState] = {
    (_S.OPEN, _E.FILL): _S.FULL,
    (_S.FULL, _E.UNFILL): _S.OPEN,
    (_S.OPEN, _E.START): _S.STARTING,  # the host's explicit choice only
    (_S.FULL, _E.START): _S.STARTING,
    (_S.STARTING, _E.STARTED): _S.STARTED,
    (_S.OPEN, _E.CLOSE): _S.CLOSED,
    (_S.FULL, _E.CLOSE): _S.CLOSED,
}


class LobbyMachine(Machine[LobbyState, LobbyEvent]):
    """``seats``: the auto-start count (``--seats``), or None (the host starts it)."""

    def __init__(self, seats: int | None, *, started: bool = False,
                 max_players: int = MAX_PLAYERS, game: str = FIRST.title,
                 rule: str = FIRST.seat_rule) -> None:
        super().__init__("lobby", LobbyState.STARTED if started else LobbyState.OPEN, TABLE)
        self.seats = seats
        self.count = 1  # the host
        #: the game's seat limit (Split 2–6 by R3.1, Splito 2–8 by S2.1) and its words
        self.max_players = max_players
        self.game = game
        self.rule = rule

    @property
    def limit(self) -> int:
        """How many players (the host included) may be in."""
        return self.seats or self.max_players

    @property
    def accepting(self) -> bool:
        return self.state is LobbyState.OPEN and self.count < self.limit

    def players(self, count: int) -> LobbyState:
        """The lobby now holds ``count`` players (the host included)."""
        self.count = count
        full = self.seats is not None and count >= self.seats
        if full and self.state is LobbyState.OPEN:
            self.fire(LobbyEvent.FILL)
        elif not full and self.state is LobbyState.FULL:
            self.fire(LobbyEvent.UNFILL)
        return self.state

    def auto_start(self) -> bool:
        """Start by itself now? Only a full lobby does."""
        return self.state is LobbyState.FULL

    def can_begin(self) -> bool:
        """May the host start the game now (R3.1: 2 to 6 players; Splito S2.1: 2 to 8)?"""
        return (self.can(LobbyEvent.START)
                and MIN_PLAYERS <= self.count <= self.max_players)

    def begin(self) -> None:
        if not MIN_PLAYERS <= self.count <= self.max_players:
            raise ValueError(f"{self.game} needs {MIN_PLAYERS} to {self.max_players} players "
                             f"({self.rule}); {self.count} in the lobby")
        self.fire(LobbyEvent.START)
