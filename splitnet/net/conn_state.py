"""One accepted connection at the host, as a state machine (protocol/NETWORK.md §11.2).

::

    HANDSHAKING ──admit──▶ MEMBER ──seat──▶ SEATED
         │  └──────────────seat───────────────▲│
         └──drop──▶ GONE ◀──drop── MEMBER      └──drop──▶ GONE

``HANDSHAKING`` covers the join-code handshake and the challenge/hello exchange; the
hello accepted, a connection is a lobby ``MEMBER`` or, in a game, ``SEATED`` (a member
becomes seated when the game starts). ``GONE`` is final. The host pings only a
connection whose state allows it (:meth:`ConnMachine.may_ping`): a joiner never gets a
``ping`` where it waits for its ``welcome``.

>>> m = ConnMachine()
>>> m.may_ping
False
>>> m.fire(ConnEvent.ADMIT).name, m.may_ping
('MEMBER', True)
>>> m.fire(ConnEvent.DROP).name, m.may_ping
('GONE', False)
"""

from __future__ import annotations

from enum import Enum

from splitnet.net.machine import Machine


class ConnState(Enum):
    HANDSHAKING = "handshaking"  #: join code, challenge sent, hello not yet accepted
    MEMBER = "member"  #: in the lobby
    SEATED = "seated"  #: holds a seat of the game (at start, or back after a reconnect)
    GONE = "gone"  #: closed (final)


class ConnEvent(Enum):
    ADMIT = "admit"  #: its hello let it into the lobby
    SEAT = "seat"  #: it holds a seat: the game started, or it came back to its seat
    DROP = "drop"  #: closed, by either side


_T = ConnState
_E = ConnEvent
TABLE: dict[tuple[ConnState, ConnEvent], ConnState] = {
    (_T.HANDSHAKING, _E.ADMIT): _T.MEMBER,
    (_T.HANDSHAKING, _E.SEAT): _T.SEATED,
    (_T.MEMBER, _E.ADMIT): _T.MEMBER,  # the same player's lobby hello again: no change
    (_T.MEMBER, _E.SEAT): _T.SEATED,
    (_T.HANDSHAKING, _E.DROP): _T.GONE,
    (_T.MEMBER, _E.DROP): _T.GONE,
    (_T.SEATED, _E.DROP): _T.GONE,
    (_T.GONE, _E.DROP): _T.GONE,  # closing twice is closing once
}

#: states in which the host's heartbeat may ping (never during the handshake)
PING_STATES = frozenset({ConnState.MEMBER, ConnState.SEATED})


class ConnMachine(Machine[ConnState, ConnEvent]):
    def __init__(self) -> None:
        super().__init__("connection", ConnState.HANDSHAKING, TABLE)

    @property
    def may_ping(self) -> bool:
        return self.state in PING_STATES

    @property
    def gone(self) -> bool:
        return self.state is ConnState.GONE
