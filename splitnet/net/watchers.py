"""The host's watchers (protocol/NETWORK.md §14): spectators who get the log, live, and
nothing else — no seat, no slot of the players', no say in the game's timing.

One machine per watcher connection, after its watch-code handshake (SECURE.md §12) and
the host's ``challenge``::

    GREETING --admit--> CATCHING_UP --caught-up--> LIVE --caught-up--> LIVE
        |                    |                      |
        +-------drop---------+---------drop---------+-----slow------> GONE

``admit``: its ``watch`` frame is accepted (``welcome``; the records from its ``have``
on follow). ``caught-up``: it reports (a ``ping`` whose ``n`` is the records it holds)
that it holds the whole log. ``slow``: a LIVE watcher that falls more than ``max_lag``
records behind the head is dropped — it reruns its command and resumes from what it
has. ``drop``: it left, said bye, was quiet for ``drop_after``, refused its input too
often, or the host stopped. ``GONE`` is final.

What a watcher may send after its ``watch``: ``ping`` (its progress, answered with
``pong``), ``pong``, ``bye``. Anything else is refused with an ``error`` (not fatal, up
to ``max_errors``), logged, and changes nothing.

Flow: the host sends a watcher at most ``window`` records beyond what it reported it
holds, so each watcher's queue is bounded and nothing the host orders ever waits for a
watcher: the ordering path only wakes the watchers' own writer tasks.

:class:`WatchDesk` is the sans-IO part (every call gets ``now``); :class:`Watchers` its
asyncio shell, hooked into :class:`~splitnet.net.host.HostNode` at three places (a
``watch`` frame at the handshake, the host's change listeners for new records, its
close).

>>> desk = WatchDesk(limit=1)
>>> w = desk.arrive("10.0.0.5:4000", now=0.0)
>>> desk.admit(w, "Cy", have=0, count=3, now=0.0).state.value
'catching-up'
>>> list(desk.due(w, 3))
[0, 1, 2]
>>> desk.sent(w, 3)
>>> desk.heard(w, "msg", now=1.0)
'a watcher does not send msg frames: it only watches'
>>> desk.progress(w, 3, count=3, now=1.0).state.value
'live'
>>> desk.admit(desk.arrive("10.0.0.6:4000", now=2.0), "Di", have=0, count=3, now=2.0)
Traceback (most recent call last):
...
splitnet.net.wire.WireError: full: 1 watcher already (the host takes at most 1)
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING, Final

from splitnet.net.frames import (
    Bye,
    Frame,
    Hello,
    HostError,
    Ping,
    Pong,
    Rec,
    Watch,
    Watching,
    Welcome,
)
from splitnet.net.machine import Machine
from splitnet.net.watching import WatchingTold, watching_line
from splitnet.net.wire import (
    MAX_WATCHING_NAMES,
    NET_PROTOCOL,
    ChannelClosed,
    ErrorCode,
    WireError,
    decode_frame,
    encode_typed,
)
from splitnet.text import shown

if TYPE_CHECKING:
    from splitnet.net.host import Conn, HostNode

_log = logging.getLogger("splitnet.net.watchers")

__all__ = ["DEFAULT_WATCHERS", "WatchDesk", "WatchEvent", "WatchState", "Watcher", "Watchers"]

#: how many watchers a host takes unless told (``--watchers N``; ``--no-watchers``: 0)
DEFAULT_WATCHERS: Final = 4
#: records a host sends a watcher beyond what it reported it holds
WINDOW: Final = 64
#: a LIVE watcher further behind the head than this is dropped (it comes back)
MAX_LAG: Final = 2 * WINDOW
#: the departed watchers a host keeps for its log lines (the oldest forgotten)
MAX_LEFT: Final = 64
#: the addresses a host keeps refusing after it removed a watcher there (the oldest
#: forgotten: a host removing more than this many is flooded anyway)
MAX_REMOVED: Final = 64
#: the host's ``bye`` to a watcher at the end of the game: a rematch is another game,
#: watched by running the command again (NETWORK.md §14.6)
GAME_OVER: Final = ("game over — if the table plays a rematch, run splitnet watch again "
                    "to watch it")
#: what a watcher closed by the host is told, by the code of its ``error``
TOLD: Final = {
    ErrorCode.SLOW: None,  # (its reason says how far behind)
    ErrorCode.REPLACED: "a newer watcher with this name from this address took over",
    ErrorCode.REMOVED: "the host removed you from watching this game",
}


class WatchState(Enum):
    GREETING = "greeting"  #: handshake done, ``challenge`` sent, no ``watch`` yet
    CATCHING_UP = "catching-up"  #: welcomed; the log so far goes out at its pace
    LIVE = "live"  #: holds the whole log; each new record goes out as it is ordered
    GONE = "gone"  #: closed (final)


class WatchEvent(Enum):
    ADMIT = "admit"  #: its ``watch`` frame was accepted
    CAUGHT_UP = "caught-up"  #: it reported holding the whole log
    SLOW = "slow"  #: LIVE and more than ``max_lag`` records behind
    DROP = "drop"  #: closed, by either side


_S, _E = WatchState, WatchEvent
TABLE: Final[dict[tuple[WatchState, WatchEvent], WatchState]] = {
    (_S.GREETING, _E.ADMIT): _S.CATCHING_UP,
    (_S.CATCHING_UP, _E.CAUGHT_UP): _S.LIVE,
    (_S.LIVE, _E.CAUGHT_UP): _S.LIVE,
    (_S.LIVE, _E.SLOW): _S.GONE,
    (_S.GREETING, _E.DROP): _S.GONE,
    (_S.CATCHING_UP, _E.DROP): _S.GONE,
    (_S.LIVE, _E.DROP): _S.GONE,
    (_S.GONE, _E.DROP): _S.GONE,  # closing twice is closing once
}

#: what a watcher may send after its ``watch`` frame
ALLOWED: Final = frozenset({"ping", "pong", "bye"})


@dataclass(eq=False)
class Watcher:
    """One watcher connection as the desk sees it."""

    peer: str
    heard_at: float
    name: str = "?"
    #: records it reported holding (its ``watch.have``, then each ``ping``)
    have: int = 0
    #: records handed to its connection so far (the next seq to send)
    sent: int = 0
    refused: int = 0
    why: str = ""
    #: the ``error`` code it is closed with, if the host tells it why (slow, replaced,
    #: removed); None: it is closed without one
    code: ErrorCode | None = None
    m: Machine[WatchState, WatchEvent] = field(
        default_factory=lambda: Machine("watcher", WatchState.GREETING, TABLE))

    @property
    def state(self) -> WatchState:
        return self.m.state

    @property
    def gone(self) -> bool:
        return self.m.state is WatchState.GONE


class WatchDesk:
    """Every watcher of one host (sans-IO): who is admitted, what each is owed, who is
    slow or quiet. ``limit`` watchers at most (0: none)."""

    def __init__(self, limit: int = DEFAULT_WATCHERS, *, window: int = WINDOW,
                 max_lag: int = MAX_LAG, drop_after: float = 60.0,
                 max_errors: int = 64) -> None:
        self.limit = limit
        self.window = window
        self.max_lag = max_lag
        self.drop_after = drop_after
        self.max_errors = max_errors
        self.watchers: list[Watcher] = []
        #: the addresses (without port) of the watchers the host removed: refused for
        #: the rest of this game, the oldest forgotten past MAX_REMOVED
        self.removed: dict[str, None] = {}

    @property
    def active(self) -> list[Watcher]:
        """The watchers admitted and not gone, in arrival order."""
        return [w for w in self.watchers if w.state in (WatchState.CATCHING_UP,
                                                        WatchState.LIVE)]

    def names(self) -> list[str]:
        return [w.name for w in self.active]

    def arrive(self, peer: str, *, now: float) -> Watcher:
        w = Watcher(peer, now)
        self.watchers.append(w)
        return w

    def admit(self, w: Watcher, name: str, *, have: int, count: int, now: float,
              head_ok: bool = True) -> Watcher:
        """Its ``watch`` frame: admitted, or :class:`WireError` (fatal) saying why — no
        watching here, every watcher slot taken, or records the host does not have."""
        if self.limit <= 0:
            raise WireError(ErrorCode.CLOSED, "this game takes no watchers", fatal=True)
        if _address(w.peer) in self.removed:
            raise WireError(ErrorCode.REMOVED, "the host removed a watcher at this address "
                            "from watching this game", fatal=True)
        if have > count or not head_ok:
            raise WireError(ErrorCode.FORK, f"your {have} records are not this host's log "
                            f"(it has {count})", fatal=True)
        host = _address(w.peer)
        for old in self.active:  # the same watcher again (rerun): the new one takes over
            if old.name == name and _address(old.peer) == host:
                old.code = ErrorCode.REPLACED
                self.drop(old, "replaced by a newer connection")
        if len(self.active) >= self.limit:
            raise WireError(ErrorCode.FULL, f"{len(self.active)} watcher"
                            f"{'s' if len(self.active) != 1 else ''} already (the host "
                            f"takes at most {self.limit})", fatal=True)
        taken = {x.lower() for x in self.names()}
        shown, k = name, 2
        while shown.lower() in taken:
            shown = f"{name[:28]}-{k}"
            k += 1
        w.name, w.have, w.sent, w.heard_at = shown, have, have, now
        w.m.fire(WatchEvent.ADMIT)
        if have == count:
            w.m.fire(WatchEvent.CAUGHT_UP)
        return w

    def due(self, w: Watcher, count: int) -> range:
        """The records to hand to ``w``'s connection now (of a log of ``count``): from
        what it was sent, up to ``window`` beyond what it reported holding."""
        if w.state not in (WatchState.CATCHING_UP, WatchState.LIVE):
            return range(0)
        return range(w.sent, min(count, w.have + self.window))

    def sent(self, w: Watcher, upto: int) -> None:
        w.sent = max(w.sent, upto)

    def progress(self, w: Watcher, have: int, *, count: int, now: float) -> Watcher:
        """Its ``ping``: it holds ``have`` records (never more than it was sent)."""
        w.heard_at = now
        if w.state in (WatchState.CATCHING_UP, WatchState.LIVE):
            w.have = max(w.have, min(have, w.sent))
            if w.have >= count:
                w.m.fire(WatchEvent.CAUGHT_UP)
        return w

    def heard(self, w: Watcher, kind: str, *, now: float) -> str | None:
        """Any other frame from it: None if allowed, else the one-line refusal (counted;
        past ``max_errors`` it is dropped)."""
        w.heard_at = now
        if kind in ALLOWED:
            return None
        w.refused += 1
        if w.refused > self.max_errors:
            self.drop(w, f"more than {self.max_errors} refused frames")
        return f"a watcher does not send {kind} frames: it only watches"

    def ordered(self, count: int) -> list[Watcher]:
        """A new record (the log now has ``count``): the LIVE watchers that fell more than
        ``max_lag`` behind are dropped and returned."""
        slow = [w for w in self.active
                if w.state is WatchState.LIVE and count - w.have > self.max_lag]
        for w in slow:
            w.why = f"more than {self.max_lag} records behind: too slow"
            w.code = ErrorCode.SLOW
            w.m.fire(WatchEvent.SLOW)
        return slow

    def quiet(self, now: float) -> list[Watcher]:
        """A heartbeat: the watchers quiet for ``drop_after`` are dropped and returned."""
        out = [w for w in self.watchers if not w.gone and now - w.heard_at > self.drop_after]
        for w in out:
            self.drop(w, f"nothing heard for {now - w.heard_at:.0f} s")
        return out

    def find(self, name: str) -> Watcher:
        """The admitted watcher listed as ``name`` (any case), or ValueError saying who
        watches."""
        for w in self.active:
            if w.name.lower() == name.strip().lower():
                return w
        names = ", ".join(self.names()) or "nobody"
        raise ValueError(f"no watcher named {shown(name, limit=32)!r} (watching: "
                         f"{shown(names, limit=300)})")

    def remove(self, w: Watcher) -> None:
        """The host removes ``w``: it is dropped, and its address refused for the rest
        of this game (its rerun too: a watch code is no name, the address is all the
        host knows of it)."""
        self.removed[_address(w.peer)] = None
        while len(self.removed) > MAX_REMOVED:
            del self.removed[next(iter(self.removed))]
        w.code = ErrorCode.REMOVED
        self.drop(w, "removed by the host")

    def drop(self, w: Watcher, why: str) -> None:
        if not w.gone:
            w.why = why
        w.m.fire(WatchEvent.DROP)
        self.watchers = [x for x in self.watchers if not x.gone or x is w]

    def forget(self, w: Watcher) -> None:
        with contextlib.suppress(ValueError):
            self.watchers.remove(w)


def _address(peer: str) -> str:
    """``ADDR`` of ``ADDR:PORT``."""
    return peer.rsplit(":", 1)[0]


class Watchers:
    """The desk's asyncio shell at a host: each watcher connection's reader, writer and
    heartbeat. It reads the host's log, key and clock; it never writes the log, never
    touches a seat, never delays the host (every send to a watcher is its own task's)."""

    def __init__(self, host: HostNode, limit: int = DEFAULT_WATCHERS) -> None:
        self.host = host
        self.desk = WatchDesk(limit, drop_after=host.net.drop_after,
                              max_errors=host.net.max_errors)
        self._wake: dict[Watcher, asyncio.Event] = {}
        self._conns: dict[Watcher, Conn] = {}
        #: told of every watcher that comes or goes (the host's lobby counts them)
        self.listeners: list[Callable[[], None]] = []
        #: (name, why) of the last MAX_LEFT watchers that left or were dropped
        self.left: deque[tuple[str, str]] = deque(maxlen=MAX_LEFT)
        #: what each player connection was last told of who watches (§14.10)
        self._told = WatchingTold()
        #: who watches as the players were last told ("" : nobody), at most one change a
        #: heartbeat: what the host's own screens show, so that watchers coming and
        #: going fast redraw them no more often than the players'
        self.told_line = ""
        #: the host stops after its game: these are sent the rest at once, then bye
        self._flush: set[Watcher] = set()
        host.subscribe(self._stirred)

    @property
    def count(self) -> int:
        return len(self.desk.active)

    def names(self) -> list[str]:
        return self.desk.names()

    def status(self) -> str:
        """``'2 watching (Cy, Di)'``, or ``''`` with nobody watching."""
        names = self.names()
        return watching_line(len(names), names)

    def tell_players(self, conns: list[Conn]) -> None:
        """A heartbeat: each player connection (a lobby member or a seat) whose last word
        on who watches is not what is true now gets a ``watching`` frame (§14.10) — at
        most one a heartbeat each, never one to a connection still in its handshake."""
        names = self.names()
        now = WatchingTold.said(len(names), names[:MAX_WATCHING_NAMES])
        frame = Watching(*now)
        for c in self._told.due(conns, now):
            c.send(frame)
        line = self.status()
        if line != self.told_line:
            self.told_line = line
            self.host._changed()

    def remove(self, name: str) -> str:
        """The host removes the watcher listed as ``name``: it is told so and closed, and
        its address is refused for the rest of this game. The line to show; ValueError
        (one line) when nobody watches by that name."""
        w = self.desk.find(name)
        self.desk.remove(w)
        self._close(w)
        self._changed()
        return (f"{w.name} no longer watches: removed, and not let back in from "
                f"{_address(w.peer)} during this game")

    def _changed(self) -> None:
        for cb in list(self.listeners):
            cb()
        self.host._changed()

    def _count(self) -> int:
        t = self.host.table
        return 0 if t is None else len(t.log)

    def _over(self) -> bool:
        return self.host.done.is_set()

    def _stirred(self) -> None:
        """The host changed (a record was ordered, the game ended): wake every writer,
        and drop the LIVE watchers too far behind."""
        for w in self.desk.ordered(self._count()):
            self._close(w)
        for ev in self._wake.values():
            ev.set()

    def _close(self, w: Watcher) -> None:
        conn = self._conns.get(w)
        _log.info("watcher %s (%s) dropped: %s", w.name, w.peer, w.why)
        if conn is not None:
            if w.code is not None:
                conn.send(HostError(w.code.value, TOLD.get(w.code) or w.why, True, None,
                                    None, None))
            conn.close()
        ev = self._wake.get(w)
        if ev is not None:
            ev.set()

    def close(self) -> None:
        """The host stops: every watcher connection closes — after the game, once it has
        been sent the rest of the log and ``bye`` (the host waits a moment for its
        handlers to end; a watcher still short of the end comes back for it)."""
        over = self._over()
        for w in list(self._conns):
            if over and w.state in (WatchState.CATCHING_UP, WatchState.LIVE):
                self._flush.add(w)
                ev = self._wake.get(w)
                if ev is not None:
                    ev.set()
                continue
            self.desk.drop(w, "the host stopped")
            self._close(w)

    async def serve(self, conn: Conn, first: Frame) -> None:
        """One watcher connection, from its first frame after the ``challenge`` to its
        end (the host's handler hands it over and returns when this does)."""
        host = self.host
        now = host._now()
        w = self.desk.arrive(conn.peer, now=now)
        self._conns[w] = conn
        try:
            if isinstance(first, Hello):
                raise WireError(ErrorCode.AUTH, "a watch code gives no seat: this "
                                "connection may only watch", fatal=True)
            if not isinstance(first, Watch):
                raise WireError(ErrorCode.PROTOCOL, f"expected watch, got {first.T!r}",
                                fatal=True)
            if first.v != NET_PROTOCOL:
                raise WireError(ErrorCode.VERSION, f"this host speaks {NET_PROTOCOL}, not "
                                f"{first.v!r}", fatal=True)
            table = host.table
            count = self._count()
            game = table.game_id if table is not None else None
            if first.game is not None and first.game != game:
                raise WireError(ErrorCode.UNKNOWN_GAME, "this host plays another game"
                                if game else "this host is in its lobby", fatal=True)
            head_ok = (first.have == 0 or table is None or first.have > count
                       or table.log.hash_at(first.have - 1) == first.head)
            self.desk.admit(w, first.name, have=first.have, count=count, now=now,
                            head_ok=head_ok)
        except WireError as e:
            _log.warning("watcher refused from %s: %s: %s", conn.peer, e.code, e.reason)
            conn.send(HostError(e.code.value, e.reason[:500], True, None, None, None))
            with contextlib.suppress(Exception):
                await asyncio.wait_for(conn.ch.drain(), 1.0)
            self.desk.drop(w, e.reason)
            self._forget(w, conn)
            return
        for old in [x for x in self._conns if x.gone and x is not w]:
            self._close(old)  # (replaced by this one: told so, closed)
        _log.info("%s (%s) is watching from record %d", w.name, conn.peer, w.have)
        conn.send(Welcome(None, game, count, host.ready))
        self._wake[w] = asyncio.Event()
        self._changed()
        tasks = [asyncio.ensure_future(self._write(w, conn)),
                 asyncio.ensure_future(self._beat(w, conn))]
        try:
            await self._read(w, conn)
        finally:
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            self.desk.drop(w, w.why or "disconnected")
            self.left.append((w.name, w.why))
            self._forget(w, conn)
            self._changed()

    def _forget(self, w: Watcher, conn: Conn) -> None:
        conn.close()
        self._flush.discard(w)
        self._conns.pop(w, None)
        self._wake.pop(w, None)
        self.desk.forget(w)

    async def _read(self, w: Watcher, conn: Conn) -> None:
        while not w.gone:
            try:
                payload = await conn.ch.recv()
            except (ChannelClosed, ConnectionError, asyncio.IncompleteReadError):
                return
            except Exception as e:  # a frame too big or tampered with: no resync
                self.desk.drop(w, f"{type(e).__name__}: {e}")
                return
            now = self.host._now()
            try:
                f = decode_frame(payload, from_host=False)
            except WireError as e:
                self._refuse(w, conn, f"{e.code}: {e.reason}", now)
                continue
            match f:
                case Ping(n):
                    self.desk.progress(w, n, count=self._count(), now=now)
                    conn.send(Pong(n))
                    ev = self._wake.get(w)
                    if ev is not None:
                        ev.set()  # the window opened
                case Bye():
                    self.desk.drop(w, "said bye")
                    return
                case _:
                    why = self.desk.heard(w, f.T, now=now)
                    if why is not None:
                        self._refuse(w, conn, why, now)

    def _refuse(self, w: Watcher, conn: Conn, why: str, now: float) -> None:
        _log.warning("refused from watcher %s (%s): %s", w.name, conn.peer, why)
        if not w.gone and why.startswith(("garbage", "schema", "protocol", "too-big")):
            self.desk.heard(w, "?", now=now)  # counted like any refused frame
        conn.send(HostError(ErrorCode.PROTOCOL.value, why[:500], w.gone, None, None, None))
        if w.gone:
            conn.close()

    async def _write(self, w: Watcher, conn: Conn) -> None:
        ev = self._wake[w]
        while not w.gone:
            ev.clear()
            table = self.host.table
            if table is not None:
                entries = table.log.entries
                due = (range(w.sent, len(entries)) if w in self._flush
                       else self.desk.due(w, len(entries)))
                for seq in due:
                    conn.send(Rec(seq, entries[seq].record))
                self.desk.sent(w, due.stop if due else w.sent)
                if conn.closed:
                    self.desk.drop(w, w.why or "slow: its connection's buffer is full")
                    return
                await conn.ch.drain()
                if (self._over() and w.sent >= len(entries)
                        and (w.have >= len(entries) or w in self._flush)):
                    conn.send(Bye(GAME_OVER))
                    with contextlib.suppress(Exception):
                        await asyncio.wait_for(conn.ch.drain(), 2.0)
                    self.desk.drop(w, "the game is over")
                    conn.close()
                    return
            await ev.wait()

    async def _beat(self, w: Watcher, conn: Conn) -> None:
        n = 0
        while not w.gone:
            await asyncio.sleep(self.host.net.ping_interval)
            if self.desk.quiet(self.host._now()):
                for q in [x for x in list(self._conns) if x.gone]:
                    self._close(q)
                continue
            n = (n + 1) % (2**31)
            try:  # (a Conn pings only seats and members: a watcher's own heartbeat)
                conn.ch.send(encode_typed(Ping(n)))
            except (WireError, ChannelClosed):
                self.desk.drop(w, "slow: its connection's buffer is full")
                self._close(w)
