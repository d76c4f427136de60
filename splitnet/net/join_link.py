"""A joiner's link to its host, as a state machine (protocol/NETWORK.md §11.9): what the
joiner does after each attempt — wait and dial again, stop because its copy of the log
is complete, or give up with one line — and what its status line says meanwhile.

::

     ┌──────────────────────── retry (the back-off is over) ─────────────────────┐
     ▼                                                                            │
  DIALING ──welcomed──▶ IN ──ended──▶ BACKING_OFF ──out of time──▶ GAVE_UP       │
     │                   │                 ▲  └──────────────────────────────────┘
     └─ unreachable, ended (no welcome) ───┘
     complete (BACKING_OFF) ──▶ DONE          fault (DIALING, IN, BACKING_OFF) ──▶ FAILED

``DIALING`` is one attempt: opening the connection, the handshake, until the host's
welcome. ``IN``: welcomed (into the lobby or a seat: :mod:`splitnet.net.join_state`
says which). ``complete``: the joiner's copy of a finished log needs nothing more (every
seat's final ack relayed, or ``final_wait`` passed since the end, or the host's bye
after it), decided as each connection ends (one still open at the end of
``final_wait`` is ended for it: :meth:`Link.read_timeout`). ``out of time``: the
:class:`~splitnet.net.join_state.Retry` bound ran out; a finished log is then
``complete`` instead. The link names no game and no seat (a joiner that only reads the
log can use it as it is); it owns no I/O and no clock: each call is given ``now`` and
returns a :class:`Step` for the asyncio shell (:class:`~splitnet.net.peer.PeerNode`).

>>> from splitnet.net.config import NetSettings
>>> link = Link(NetSettings(retry_first=0.5), "10.0.0.2:7420", rematch=False)
>>> link.dialing(0.0)
>>> link.unreachable(0.0, "refused", Log()).status
'cannot reach 10.0.0.2:7420 — is the game still open? (refused) — retrying (1)'
>>> link.dialing(0.5); link.welcomed(0.6); link.state
<LinkState.IN: 'in'>
>>> link.ended(9.0, End(Cause.HOST_LEFT, "restarting"), Log())
Wait(seconds=0.5, status='the host left (restarting) — retrying')
>>> link.dialing(9.5)
>>> link.ended(9.5, End(Cause.LOST), Log(finished=True, confirmed=True))
Finish()
>>> link.dialing(10.0)
Traceback (most recent call last):
...
splitnet.net.machine.IllegalTransition: link: retry is not allowed in state done
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Final

from splitnet.net.config import NetSettings
from splitnet.net.join_state import GiveUp, Retry
from splitnet.net.machine import Machine


class LinkState(Enum):
    DIALING = "dialing"  #: an attempt: connecting, the handshake, until the welcome
    IN = "in"  #: welcomed on this connection
    BACKING_OFF = "backing-off"  #: between attempts
    DONE = "done"  #: our copy of the log is complete: nothing more to fetch (final)
    GAVE_UP = "gave-up"  #: the retry bound ran out (final)
    FAILED = "failed"  #: a fault, or the host closed the game (final)


class LinkEvent(Enum):
    WELCOMED = "welcomed"  #: the host's welcome on this connection
    UNREACHABLE = "unreachable"  #: the connection did not open
    ENDED = "ended"  #: the connection ended (how: an :class:`End`)
    RETRY = "retry"  #: the back-off is over: the next attempt
    COMPLETE = "complete"  #: nothing left to fetch
    OUT_OF_TIME = "out-of-time"  #: the retry bound ran out
    FAULT = "fault"  #: the joiner stops (a fault, a refusal, the host closed the game)


_S, _E = LinkState, LinkEvent
TABLE: Final[dict[tuple[LinkState, LinkEvent], LinkState]] = {
    (_S.DIALING, _E.WELCOMED): _S.IN,
    (_S.DIALING, _E.UNREACHABLE): _S.BACKING_OFF,
    (_S.DIALING, _E.ENDED): _S.BACKING_OFF,  # sent away, or closed before a welcome
    (_S.IN, _E.ENDED): _S.BACKING_OFF,
    (_S.BACKING_OFF, _E.RETRY): _S.DIALING,
    (_S.BACKING_OFF, _E.COMPLETE): _S.DONE,
    (_S.BACKING_OFF, _E.OUT_OF_TIME): _S.GAVE_UP,
    (_S.DIALING, _E.FAULT): _S.FAILED,
    (_S.IN, _E.FAULT): _S.FAILED,
    (_S.BACKING_OFF, _E.FAULT): _S.FAILED,
}


class Cause(Enum):
    """How a connection ended."""

    LOST = "lost"  #: dropped, closed or silent (also before any welcome)
    SENT_AWAY = "sent-away"  #: the host's error that ends this connection only (reason)
    HOST_LEFT = "host-left"  #: its bye in a game not over: a host that shut down may resume
    NOT_YET = "not-yet"  #: still on the game we finished: the rematch is not offered yet


@dataclass(frozen=True)
class End:
    cause: Cause
    reason: str = ""


@dataclass(frozen=True)
class Log:
    """What the link asks of the joiner's copy of the log (none: all False)."""

    finished: bool = False  #: it holds the whole game
    confirmed: bool = False  #: every seat that must confirm it did (§6)
    finished_at: float | None = None  #: when it finished here, on the joiner's clock
    over: bool = False  #: the session already ended it (the host's bye after the end)


@dataclass(frozen=True)
class Wait:
    """Show ``status``, wait ``seconds``, then :meth:`Link.dialing` again."""

    seconds: float
    status: str


@dataclass(frozen=True)
class Finish:
    """Our copy is complete: the joiner's session is over."""


@dataclass(frozen=True)
class Quit:
    """Give up with ``line`` (the bound of the state it was in ran out)."""

    line: str


Step = Wait | Finish | Quit


class Link(Machine[LinkState, LinkEvent]):
    """The joiner's attempts, their bound and its status between them (module doc).
    ``rematch``: it looks for a rematch offer (its bound for a host never reached is then
    ``rematch_wait``); ``in_game``: it resumes a game (the long bound counts at once)."""

    def __init__(self, net: NetSettings, where: str, *, rematch: bool,
                 in_game: bool = False, now: float = 0.0) -> None:
        super().__init__("link", LinkState.DIALING, TABLE)
        self.net, self.where, self.rematch = net, where, rematch
        self._t = now
        self.retry = Retry(lambda: self._t, first=net.retry_first, most=net.retry_max,
                           never_reached=net.rematch_wait if rematch else net.first_contact,
                           total=net.retry_total)
        if in_game:
            self.retry.good()  # we were in this game: the long bound counts from now
        self.began = now  #: when the current attempt began (the bound is on that: Retry)
        self.turned_away = 0  #: attempts in a row the host sent away before its welcome
        self.refused: str | None = None  #: its reason, the last time
        self.not_yet = False  #: the last attempt met the game we finished (§13)
        #: the line that says why the last connection ended, kept while it reconnects
        self.kept: str | None = None

    @property
    def final(self) -> bool:
        return self.state in (LinkState.DONE, LinkState.GAVE_UP, LinkState.FAILED)

    def complete(self, now: float, log: Log) -> bool:
        """Is there nothing more to wait for? Our log is finished and confirmed, or
        ``final_wait`` has passed since the end (a host that crashed after the last record
        may come back to relay the final acks: until then we keep reconnecting, so that
        our own final ack reaches it too)."""
        if log.over:
            return True
        if not log.finished:
            return False
        return (log.confirmed or log.finished_at is None
                or now - log.finished_at > self.net.final_wait)

    def read_timeout(self, now: float, log: Log) -> float | None:
        """How long to wait for the host's next frame while ``IN`` (``host_timeout``; on
        a finished log, what is left of ``final_wait``); None: the final wait is over."""
        if log.finished_at is None:
            return self.net.host_timeout
        left = log.finished_at + self.net.final_wait - now
        return None if left <= 0 else left  # (None: the host never said bye; complete)

    def _give_up(self) -> GiveUp:
        n = self.net
        return GiveUp(self.where, n.rematch_wait, n.first_contact, n.retry_total,
                      rematch=self.rematch, reached=self.retry.reached)

    # ------------------------------------------------------------------ events
    def dialing(self, now: float) -> None:
        """An attempt begins (the first, or after a :class:`Wait`)."""
        self._t = self.began = now
        if self.state is not LinkState.DIALING:
            self.fire(LinkEvent.RETRY)

    def welcomed(self, now: float) -> None:
        self._t = now
        self.fire(LinkEvent.WELCOMED)
        self.turned_away, self.refused, self.not_yet, self.kept = 0, None, False, None

    def unreachable(self, now: float, why: str, log: Log) -> Step:
        """The connection did not open (``why``: the error, in words)."""
        self._t = now
        self.fire(LinkEvent.UNREACHABLE)
        self.not_yet, self.kept = False, None
        if self.complete(now, log):
            return self._finish()  # our copy is complete; the host has left
        wait = self.retry.failed(self.began)
        if wait is None:
            return self._finish() if log.finished else self._quit(
                self._give_up().unreachable(why))
        return Wait(wait, self._give_up().retrying(why, self.retry.fails))

    def ended(self, now: float, end: End, log: Log) -> Step:
        """The connection of this attempt ended, welcomed or not."""
        self._t = now
        was_in = self.state is LinkState.IN
        self.fire(LinkEvent.ENDED)
        if was_in:
            self.retry.good()  # it did let us in: the bound counts from its end
        self.not_yet = end.cause is Cause.NOT_YET
        if end.cause is Cause.SENT_AWAY and not was_in:
            self.refused = end.reason
            self.turned_away += 1
        else:
            self.refused = None
        if end.cause is Cause.HOST_LEFT:
            self.kept = f"the host left ({end.reason}) — retrying"
        elif end.cause is Cause.NOT_YET:
            self.kept = "waiting for the host to offer the rematch…"
        if self.complete(now, log):
            return self._finish()  # nothing left to fetch: the game is over here
        wait = self.retry.failed(self.began)
        if wait is None and log.finished:
            return self._finish()  # complete; its confirmations will not come
        if wait is None:
            # the bound that ran out is the one of the state we are in (Retry): never
            # let in, a rematch's wait for its offer or the first contact
            return self._quit(self._give_up().turned_away(self.refused, self.not_yet))
        status = self.kept or "connection to the host lost — reconnecting…"
        if self.refused is not None:
            status = f"{self.refused} — retrying ({self.turned_away})"
        return Wait(wait, status)

    def fault(self) -> None:
        """The joiner stops (its reason is its own: a fault, the host closed the game)."""
        if not self.final:
            self.fire(LinkEvent.FAULT)

    def _finish(self) -> Finish:
        self.fire(LinkEvent.COMPLETE)
        return Finish()

    def _quit(self, line: str) -> Quit:
        self.fire(LinkEvent.OUT_OF_TIME)
        return Quit(line)


class ByeMeans(Enum):
    OVER = "over"  #: our copy is finished: the host is done with us
    CLOSED = "closed"  #: in the lobby: no game will start (the joiner stops)
    LEFT = "left"  #: in a game not over: the host shut down, and may resume it


def bye(reason: str, *, finished: bool, lobby: bool, rematch: bool) -> tuple[ByeMeans, str]:
    """What the host's ``bye`` means where the joiner is, and its line (NETWORK.md §4,
    §7, §13). ``finished``: our log holds the whole game; ``lobby``: welcomed into a
    lobby; ``rematch``: that lobby is the rematch's (the host says why it ends).

    >>> bye("Bo declined the rematch", finished=False, lobby=True, rematch=True)
    (<ByeMeans.CLOSED: 'closed'>, 'Bo declined the rematch')
    >>> bye("restarting", finished=False, lobby=False, rematch=False)[0]
    <ByeMeans.LEFT: 'left'>
    """
    if finished:
        return ByeMeans.OVER, reason
    if lobby and rematch:
        return ByeMeans.CLOSED, reason or "no rematch"
    if lobby:
        return ByeMeans.CLOSED, "the host closed the game"
    return ByeMeans.LEFT, reason
