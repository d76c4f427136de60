"""A joiner's session, as a state machine with a bounded retry (protocol/NETWORK.md
§11.3).

::

    CONNECTING ──lobby──▶ LOBBY ──play──▶ CATCHING_UP ──synced──▶ PLAYING ──over──▶ FINISHED
      ▲  │  ▲               │                │  ▲                   │
      │  │  └─────lost──────┘◀─────lost──────┘  │ ◀──────lost───────┘
      │  └─────────────────────play─────────────┘
      └─ fail (CONNECTING, LOBBY, CATCHING_UP, PLAYING) ──▶ FAILED
         over (CONNECTING, CATCHING_UP: our copy of a finished log is complete) ──▶ FINISHED

``LOBBY`` is reached only on the host's ``welcome``: before it nothing says "joined".
A ``bye`` in the lobby is the host closing its game: ``FAILED`` at once, with "the host
closed the game". While ``CONNECTING``, :class:`Retry` bounds the attempts: a host never
reached gives up after ``first_contact``, one that was reached after ``retry_total``
since the last good connection — bounds on when an attempt *starts*: one that began in
time and then took long (a host that accepted but was not running: a stalled process, a
loaded machine, up to ``handshake_timeout``) is followed by one more, so a slow attempt
never spends the next one's turn. The clock is injected.

>>> t = [0.0]
>>> r = Retry(lambda: t[0], first=1.0, most=2.0, never_reached=5.0, total=60.0)
>>> [r.failed() for _ in range(3)]
[1.0, 2.0, 2.0]
>>> t[0] = 6.0
>>> r.failed() is None  # never reached, past first_contact: give up
True
>>> r = Retry(lambda: t[0], first=1.0, most=2.0, never_reached=5.0, total=60.0)
>>> t[0] = 16.0  # one attempt began at 6.0 (in time) and hung until now: one more
>>> r.failed(started=6.0), r.failed(started=17.0)
(1.0, None)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum

from splitnet.net.machine import Machine


class JoinState(Enum):
    CONNECTING = "connecting"  #: no welcome on this connection (yet)
    LOBBY = "lobby"  #: welcomed into the host's lobby
    CATCHING_UP = "catching-up"  #: in the game (its header, or welcomed back to our
    #: seat), receiving the records we miss; we send nothing yet
    PLAYING = "playing"  #: caught up with the host's log: we send what we owe
    FINISHED = "finished"  #: our copy of the log is complete (final)
    FAILED = "failed"  #: stopped: unreachable, closed by the host, refused, a fault (final)


class JoinEvent(Enum):
    LOBBY = "lobby"  #: the host's welcome into its lobby
    PLAY = "play"  #: the game's header, or a welcome back to our seat
    SYNCED = "synced"  #: we hold every record the host had when it welcomed us
    LOST = "lost"  #: the connection ended
    OVER = "over"  #: the log is finished
    FAIL = "fail"  #: give up


_S = JoinState
_E = JoinEvent
TABLE: dict[tuple[JoinState, JoinEvent], JoinState] = {
    (_S.CONNECTING, _E.LOBBY): _S.LOBBY,
    (_S.CONNECTING, _E.PLAY): _S.CATCHING_UP,
    (_S.LOBBY, _E.PLAY): _S.CATCHING_UP,
    (_S.CATCHING_UP, _E.SYNCED): _S.PLAYING,
    (_S.LOBBY, _E.LOST): _S.CONNECTING,
    (_S.CATCHING_UP, _E.LOST): _S.CONNECTING,
    (_S.PLAYING, _E.LOST): _S.CONNECTING,
    (_S.CONNECTING, _E.LOST): _S.CONNECTING,  # an attempt that got no welcome
    (_S.PLAYING, _E.OVER): _S.FINISHED,
    (_S.CATCHING_UP, _E.OVER): _S.FINISHED,
    (_S.CONNECTING, _E.OVER): _S.FINISHED,
    (_S.FINISHED, _E.OVER): _S.FINISHED,
    (_S.FINISHED, _E.LOST): _S.FINISHED,  # the host left after the end: nothing changes
    (_S.CONNECTING, _E.FAIL): _S.FAILED,
    (_S.LOBBY, _E.FAIL): _S.FAILED,
    (_S.CATCHING_UP, _E.FAIL): _S.FAILED,
    (_S.PLAYING, _E.FAIL): _S.FAILED,
    (_S.FAILED, _E.FAIL): _S.FAILED,
}


class JoinMachine(Machine[JoinState, JoinEvent]):
    def __init__(self, *, resumed: bool = False) -> None:
        super().__init__("join", JoinState.CONNECTING, TABLE)
        #: a game of ours exists (resumed from disk, or started here): a lost connection
        #: goes back to CONNECTING and then PLAYING, never to the lobby
        self.in_game = resumed

    @property
    def final(self) -> bool:
        return self.state in (JoinState.FINISHED, JoinState.FAILED)

    def fire(self, event: JoinEvent) -> JoinState:
        new = super().fire(event)
        if new is JoinState.CATCHING_UP:
            self.in_game = True
        return new


class Retry:
    """Reconnect back-off (``first`` doubling to ``most``) within a bound: a host never
    reached is given up after ``never_reached`` s; one reached before, ``total`` s after
    the last good connection. ``failed(started)`` (when the attempt that failed began;
    default: now) returns the wait before the next attempt, or None to give up — only
    once an attempt that began past the bound failed; ``good()`` records a good
    connection."""

    def __init__(self, clock: Callable[[], float], *, first: float, most: float,
                 never_reached: float, total: float) -> None:
        self.clock = clock
        self.first = first
        self.most = most
        self.never_reached = never_reached
        self.total = total
        self.since = clock()
        self.reached = False
        self.fails = 0

    def good(self) -> None:
        self.reached = True
        self.since = self.clock()
        self.fails = 0

    def failed(self, started: float | None = None) -> float | None:
        bound = self.total if self.reached else self.never_reached
        if (self.clock() if started is None else started) - self.since > bound:
            return None
        self.fails += 1
        return float(min(self.most, self.first * 2 ** min(self.fails - 1, 10)))


@dataclass(frozen=True)
class GiveUp:
    """What a joiner says when its reconnect bound (:class:`Retry`) runs out, in one line
    (NETWORK.md §7, §13): sans-IO, from where it is, the bounds, and what the attempts
    met. ``rematch``: it looks for a rematch offer; ``reached``: the host let it in since
    the bound began."""

    where: str
    rematch_wait: float
    first_contact: float
    retry_total: float
    rematch: bool
    reached: bool

    def unreachable(self, why: str) -> str:
        """Nothing took the connection (``why``: the error) for the whole bound."""
        if self.rematch and not self.reached:
            return (f"no rematch: the host at {self.where} did not offer one within "
                    f"{self.rematch_wait:g} s")
        if self.reached:
            return (f"cannot reach the host at {self.where} again ({why}) for "
                    f"{self.retry_total:g} s: giving up")
        return (f"cannot reach {self.where} — is the game still open? ({why}; tried for "
                f"{self.first_contact:g} s)")

    def retrying(self, why: str, fails: int) -> str:
        """The status line while it tries again after a connection that did not open."""
        if not self.reached and not self.rematch:
            return (f"cannot reach {self.where} — is the game still open? ({why}) — "
                    f"retrying ({fails})")
        if not self.reached:
            return "waiting for the host to offer the rematch…"
        return f"cannot reach the host at {self.where} — retrying ({fails})"

    def turned_away(self, refused: str | None, not_yet: bool) -> str:
        """Connections opened, but the bound ran out all the same: the host sent us away
        (``refused``: its last reason), was still on the game we finished (``not_yet``,
        a rematch), or closed them before letting us in; or let us in and then lost us."""
        if self.rematch and not self.reached:
            return (f"no rematch: the host at {self.where} did not offer one within "
                    f"{self.rematch_wait:g} s"
                    + (" (it was still on the game we finished)" if not_yet else ""))
        bound = self.retry_total if self.reached else self.first_contact
        if refused is not None:
            return f"the host at {self.where} kept sending us away for {bound:g} s: {refused}"
        if not self.reached:
            return (f"cannot get into the game at {self.where}: the connection kept closing "
                    f"before the host let us in (tried for {bound:g} s)")
        return f"lost the host at {self.where} and could not get back in for {bound:g} s"
