"""The host's game after its lobby — ordering, resuming after a restart, the end — as a
state machine (protocol/NETWORK.md §11.4).

::

    LOBBY ──start──▶ ORDERING ──finish──▶ FINISHING ──bye──▶ DONE
                        ▲    ├──fail──▶ FAILED              ▲
                        │    └──call off──▶ CALLED_OFF      │
    RESUMING ──all back─┘                      ▲            │
        ├──────call off (a seat never accepted)┘            │
        └────────────finish (the log was finished)──▶ FINISHING

A host restarted on its game is ``RESUMING``: it orders nothing until every seat is back
(their messages are held) — ``welcome.ready`` is false exactly then. ``FINISHING`` waits
(bounded) for the seats' final acks, ``DONE`` has said bye. ``FAILED``: the host's own
message was refused by its own core — a bug, never a peer's fault. ``CALLED_OFF``: some
seat did not accept the header within the answer wait, so the game never began (nothing
secret had flowed: NETWORK.md §4).

>>> m = GameMachine(resuming=True)
>>> m.ready
False
>>> m.fire(GameEvent.FINISH).name, m.ready
('FINISHING', True)
"""

from __future__ import annotations

from enum import Enum

from splitnet.net.machine import Machine


class GameState(Enum):
    LOBBY = "lobby"  #: no game yet (the lobby machine runs)
    RESUMING = "resuming"  #: restarted: waiting for every seat, ordering nothing
    ORDERING = "ordering"  #: the game runs
    FINISHING = "finishing"  #: the log is finished: waiting for the final acks
    DONE = "done"  #: bye said (final)
    FAILED = "failed"  #: stopped on the host's own fault (final)
    CALLED_OFF = "called-off"  #: a seat never accepted the header: no game (final)


class GameEvent(Enum):
    START = "start"
    ALL_BACK = "all-back"
    FINISH = "finish"
    BYE = "bye"
    FAIL = "fail"
    CALL_OFF = "call-off"


_S = GameState
_E = GameEvent
TABLE: dict[tuple[GameState, GameEvent], GameState] = {
    (_S.LOBBY, _E.START): _S.ORDERING,
    (_S.RESUMING, _E.ALL_BACK): _S.ORDERING,
    (_S.RESUMING, _E.FINISH): _S.FINISHING,
    (_S.ORDERING, _E.FINISH): _S.FINISHING,
    (_S.FINISHING, _E.BYE): _S.DONE,
    (_S.ORDERING, _E.FAIL): _S.FAILED,
    (_S.ORDERING, _E.CALL_OFF): _S.CALLED_OFF,
    (_S.RESUMING, _E.CALL_OFF): _S.CALLED_OFF,
}


class GameMachine(Machine[GameState, GameEvent]):
    def __init__(self, *, resuming: bool = False) -> None:
        super().__init__("game", GameState.RESUMING if resuming else GameState.LOBBY, TABLE)

    @property
    def ready(self) -> bool:
        """Not waiting for seats after a restart (``welcome.ready``)."""
        return self.state is not GameState.RESUMING

    @property
    def final(self) -> bool:
        return self.state in (GameState.DONE, GameState.FAILED, GameState.CALLED_OFF)
