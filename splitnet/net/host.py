"""The host of a LAN game: the lobby, then the ordering of every message.

The host is one of the players (seat 0). It listens; every joiner connects to it. It has
no more power over the cards than anyone else: it validates each message (signature and
counter against the log, then its own game core, which refuses anything out of turn,
illegal or with a failed proof), orders it into the signed hash-chained log, writes the
record and broadcasts it. A refused message gets an ``error`` frame back and changes
nothing — for anyone. Frames, handshake and every code: protocol/NETWORK.md.

Why this file is over 600 lines: ``HostNode`` is the one asyncio coordinator of the host
— every frame in and out, the timers, the files — and what it decides is in the sans-IO
parts it wires (protocol/NETWORK.md §11): the lobby (``lobby_state.py``), each
connection (``conn_state.py``, ``host_conn.py``), the game (``game_state.py``), the
seats' presence and clocks (``waits.py``), the rematch lobby (``rematch_lobby.py``),
admission (``admission.py``), a message's route and the acks (``ordering.py``), the
accept wait (``accepts.py``). What is left is that wiring, kept on one class because
the tests' rogue hosts subclass it and override its hooks (``_on_msg``, ``_on_ack``,
``_beat``, ``_handshake``, ``_offer_frame``, ``_rematch_table``, ``_check_accepts``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import os
import secrets
from collections.abc import Awaitable, Callable, Collection, Coroutine, Mapping
from pathlib import Path
from typing import Any

from splitnet.durable import open_private
from splitnet.errors import SplitnetError
from splitnet.game.rematch import PreviousGame, Rematch
from splitnet.game.table import PledgeRefused
from splitnet.net.accepts import AcceptWait, CallOff, accept_wait
from splitnet.net.admission import (
    AdmissionView,
    BackToLobby,
    BackToSeat,
    JoinLobby,
    LetIn,
    Phase,
    Refused,
    Slot,
    ToRematch,
    check_hello,
    decide,
    player_keys,
    slot_for,
)
from splitnet.net.config import EvidenceBudget, NetSettings
from splitnet.net.conn_state import ConnEvent, ConnState
from splitnet.net.frames import (
    Ack,
    Acks,
    Answer,
    BotLevel,
    Bye,
    Challenge,
    Clock,
    Evidence,
    Frame,
    GameName,
    Hello,
    HostError,
    Lobby,
    LobbyPlayer,
    Msg,
    Need,
    Offer,
    Peers,
    PeerState,
    Ping,
    Pong,
    Presence,
    Rec,
    Watch,
    Welcome,
)
from splitnet.net.framing import FrameTooLarge
from splitnet.net.game_state import GameEvent, GameMachine, GameState
from splitnet.net.host_conn import Conn, Member, drain, kind_counter
from splitnet.net.lobby_state import MAX_PLAYERS, LobbyEvent, LobbyMachine, LobbyState
from splitnet.net.ordering import AckBook, Route, judge_ack, route
from splitnet.net.rematch_lobby import (
    Decision,
    EndRematch,
    Redraw,
    Refuse,
    RematchLobby,
    SendClock,
    SendOffer,
    StartRematch,
)
from splitnet.net.store import (
    GameFiles,
    GameMeta,
    append_final_ack,
    meta_now,
    read_final_acks,
    sync_final_acks,
)
from splitnet.net.table import SPLIT, GameChoice, SeedMaker, Table, TableParts, choice_of
from splitnet.net.waits import SeatWatch
from splitnet.net.watchers import Watchers
from splitnet.net.wire import (
    NET_PROTOCOL,
    Channel,
    ChannelClosed,
    ChannelWrap,
    ErrorCode,
    Listen,
    Listening,
    StreamChannel,
    WireError,
    binding_of,
    decode_frame,
    encode_typed,
    plain,
    sign_challenge,
)
from splitnet.session.identity import Identity
from splitnet.session.log import (
    Entry,
    LogError,
    Player,
    make_refusal,
    new_game_id,
)

_log = logging.getLogger("splitnet.net")

__all__ = ["MAX_PLAYERS", "Conn", "HostNode", "Member"]  # (Conn, Member: host_conn.py)


class HostNode:
    """Listens, runs the lobby, then orders the game's log."""

    def __init__(self, identity: Identity, data_dir: Path, name: str,
                 net: NetSettings | None = None, *, seats: int | None = None,
                 proofs: bool = True, seed_maker: SeedMaker | None = None,
                 game_id_maker: Callable[[], bytes] | None = None,
                 wrap: ChannelWrap = plain, code: str = "",
                 busy: Callable[[Channel, str], None] | None = None,
                 rematch_of: PreviousGame | None = None,
                 parts: TableParts | None = None,
                 choice: GameChoice = SPLIT,
                 left: Mapping[int, str] | None = None) -> None:
        self.identity = identity
        self.key = identity.public_key_bytes()
        self.data_dir = data_dir
        self.name = name
        self.net = net or NetSettings()
        self.seats = seats
        self.proofs = proofs
        self.seed_maker = seed_maker
        #: what the game's table is assembled with from above net/ (the open-hand player)
        self.parts = parts
        self.game_id_maker = game_id_maker
        self.wrap = wrap
        #: tells a connection still in the handshake that there is no slot for it (the
        #: wrap's own refusal, e.g. SECURE.md REFUSE busy; default: an ``error`` frame)
        self.busy = busy or self._busy_frame
        #: connections in the join-code handshake (``wrap``), oldest first
        self._securing: dict[Channel, None] = {}
        #: the join code, kept in the game's meta file so a restarted host reuses it
        self.code = code
        self.members: list[Member] = []  # joiners in join order (the host is seat 0)
        #: the keys let into this lobby, oldest first: its members and those whose
        #: connection dropped since (at most MAX_ADMITTED; a member is never dropped)
        self._admitted = LetIn()
        #: open → full → starting → started, or closed (lobby_state.py)
        #: the game this host opens its lobby for (Split unless told; NETWORK.md §4)
        self.choice = choice
        self.lobby = LobbyMachine(seats, max_players=choice.max_players, game=choice.name,
                                  rule=choice.rule)
        self.table: Table | None = None
        self.conns: dict[int, Conn] = {}
        self.all_conns: set[Conn] = set()
        #: connections past the watch code, before their ``watch``: a pool of their own
        #: (the watchers' places and two more, the oldest dropped), never the players'
        #: connection slots (NETWORK.md §3.5, §14)
        self._watch_greeting: dict[Conn, None] = {}
        #: lobby → ordering → finishing → done; resuming after a restart (game_state.py)
        self.game = GameMachine()
        self._held: list[tuple[Conn, bytes, bytes]] = []
        #: each guest seat's presence and since when the game waits for it (waits.py)
        self.watch = SeatWatch(self.net)
        #: each seat's highest ack, and which to keep and relay (ack_book.py)
        self.book = AckBook(host=0)
        self.listeners: list[Callable[[], None]] = []
        self.server: Listening | None = None
        self.port = 0
        self.bind = ""
        self.epoch = 0
        self.net_status: str | None = None
        self.fatal: str | None = None
        #: the host's wait for every seat's accept of the header (its clock for
        #: calling the game off, :meth:`_check_accepts`)
        self._accepts = AcceptWait()
        #: the time of the last heartbeat (a much later one: the program was not running)
        self._last_beat: float | None = None
        #: why the host called its game off (:meth:`call_off`), told to every seat
        self.called_off_why = ""
        self.done = asyncio.Event()
        self.started = asyncio.Event()
        #: set on every change the host's screens are told of (an ack, a seat's state)
        self._stirred = asyncio.Event()
        self._pumping = False
        self._tasks: set[asyncio.Task[Any]] = set()
        self._serving: set[asyncio.Task[Any]] = set()
        self.on_entry_hooks: list[Callable[[Entry], None]] = []
        #: spectators (watchers.py, NETWORK.md §14): the log, live; no seat, no slot
        self.watchers = Watchers(self)
        #: called when the host closes its lobby (e.g. to mark its saved lobby closed)
        self.on_close: list[Callable[[], None]] = []
        #: refused messages with a failed proof: (seat, kind, reason), the first
        #: ``net.max_evidence`` of each seat within ``net.max_evidence_bytes``
        self.evidence: list[tuple[int, str, str]] = []
        self.evidence_kept = EvidenceBudget(self.net)
        #: a rematch lobby (NETWORK.md §13): the finished game whose seats it is for, and
        #: its machine — the offer, the answers, the wait, the end (rematch_lobby.py)
        self.rematch_of = rematch_of
        self.rematch: RematchLobby | None = None
        #: set before this game ends, when the host knows it will offer no rematch of it
        #: (a bot host whose ``--rematches`` are spent): each seat is told so before the
        #: host's bye (§13)
        self.offers_no_rematch = False
        #: seats of this game that said, as it ended, that they leave (no rematch): seat →
        #: name (:attr:`left_after`; a rematch lobby's machine is given those of the game
        #: before, ``left``, and ends at once if one is not back)
        self._left_after: dict[int, str] = {} if rematch_of is not None else dict(left or {})
        self.called_off = False  # (the host's own user ended the rematch lobby)
        if rematch_of is not None:  # the game of the game before (Split or Splito)
            self.rematch = RematchLobby.of(rematch_of, self.net.rematch_wait, left)
            self.seats = rematch_of.n
            self.choice = choice = choice_of(rematch_of.header.settings)
            self.lobby = LobbyMachine(rematch_of.n, max_players=choice.max_players,
                                      game=choice.name, rule=choice.rule)

    # ------------------------------------------------------------------ life cycle
    async def listen(self, bind: str, port: int, *, transport: Listen | None = None) -> int:
        """Accept connections on ``bind``:``port`` (0: any free port) and start the
        heartbeat; returns the port. ``transport``: TCP by default (in memory in the
        tests; wormhole subchannels come through :meth:`serve_channel` as well)."""
        listen = transport or self._tcp_listen
        self.server, self.port = await listen(self.serve_channel, bind, port)
        self.bind = bind
        if self.rematch is not None:
            self.rematch.offered(self._now())  # the rematch lobby's wait starts (§13)
        self._spawn(self._heartbeat())
        return self.port

    async def _tcp_listen(self, serve: Callable[[Channel], Awaitable[None]], bind: str,
                          port: int) -> tuple[Listening, int]:
        async def accepted(reader: asyncio.StreamReader,
                           writer: asyncio.StreamWriter) -> None:
            await serve(StreamChannel(reader, writer, max_buffer=self.net.max_send_buffer))

        server = await asyncio.start_server(accepted, bind, port, limit=1 << 20)
        return server, int(server.sockets[0].getsockname()[1])

    @staticmethod
    def _now() -> float:
        """The host's clock: the running event loop's time (monotonic; every timeout
        and heartbeat is measured on it, so a test's loop with virtual time drives them)."""
        return asyncio.get_running_loop().time()

    @classmethod
    def resume(cls, identity: Identity, data_dir: Path, meta: GameMeta,
               net: NetSettings | None = None, *, seed_maker: SeedMaker | None = None,
               wrap: ChannelWrap = plain,
               busy: Callable[[Channel, str], None] | None = None,
               parts: TableParts | None = None) -> HostNode:
        """A host restarted on its unfinished game: the log and core rebuilt from the
        transcript and saved seeds. It orders nothing until every seat is back."""
        files = GameFiles(data_dir, meta.gid)
        table = Table.load(identity, files, seed_maker, parts)
        node = cls(identity, data_dir, meta.name, net, proofs=table.proofs,
                   seed_maker=seed_maker, wrap=wrap, busy=busy, parts=parts)
        node.lobby = LobbyMachine(None, started=True)
        node.game = GameMachine(resuming=True)
        node._adopt(table)
        node.watch.reset({s: Presence.GONE for s in range(table.n) if s != table.host_seat})
        node.started.set()
        node._load_final_acks()
        if table.core.finished:
            node.game.fire(GameEvent.FINISH)
            node._spawn(node._finish())
        elif table.n == 1:
            node.game.fire(GameEvent.ALL_BACK)
        return node

    @property
    def ready(self) -> bool:
        """False while a restarted host waits for every seat (it orders nothing)."""
        return self.game.ready

    @property
    def acked(self) -> dict[int, int]:
        """seat → its highest acked seq."""
        return self.book.acked

    def _adopt(self, table: Table) -> None:
        self.table = table
        self.book.host = table.host_seat
        table.transcript.start_syncer()
        table.listeners.append(self._on_entry)

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        """Run a timer of the host (heartbeat, the end of the game) as a task it keeps
        until it ends, and cancels and awaits in :meth:`close`."""
        t = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(t)
        t.add_done_callback(self._tasks.discard)

    async def close(self) -> None:
        """Stop listening, end every connection handler (cleanly: their channels close
        under them), stop the timers, close the transcript."""
        if self.server is not None:
            self.server.close()
        if self.lobby.can(LobbyEvent.CLOSE):
            # stopping the host in its lobby closes the game: its members stop at once
            # (a host that crashes sends nothing; its players wait for it to come back)
            self.lobby.fire(LobbyEvent.CLOSE)
            if self.rematch is not None:
                self.rematch.close()
            self.called_off = True
            why = ("the host called off the rematch" if self.rematch is not None
                   else "the host closed the game")
            for m in self.members:
                if m.conn is not None:
                    m.conn.send(Bye(why))
            for m in self.members:
                if m.conn is not None:
                    await drain(m.conn.ch, 1.0)
            for cb in list(self.on_close):
                cb()
        elif not self.done.is_set():
            for c in list(self.conns.values()):
                c.send(Bye("the host is shutting down; it may resume the game"))
            for c in list(self.conns.values()):
                await drain(c.ch, 1.0)
        for c in list(self.all_conns):
            c.close()
        self.watchers.close()
        for c in list(self._watch_greeting):  # past the watch code, no ``watch`` yet
            c.close()
        for raw in list(self._securing):  # still in the join-code handshake
            raw.close()
        serving = [t for t in self._serving if not t.done()]
        if serving:
            await asyncio.wait(serving, timeout=2.0)
        # a handler still running is one whose other side neither reads nor closes (a
        # watcher owed the end of the log that pings and never reads): it ends now
        late = [t for t in serving if not t.done()]
        for t in late:
            t.cancel()
        if late:
            await asyncio.wait(late)
        me = asyncio.current_task()
        timers = [t for t in self._tasks if t is not me]
        for t in timers:
            t.cancel()
        if timers:
            await asyncio.wait(timers)  # (their ends are theirs: nothing is left running)
        if self.table is not None:
            self.table.close()

    def subscribe(self, callback: Callable[[], None]) -> None:
        self.listeners.append(callback)

    def watching_status(self) -> str:
        """``'2 watching (Cy, Di)'``, or ``''``: as the players were last told (the
        host's own screens, §14.10)."""
        return self.watchers.told_line

    def _changed(self) -> None:
        self._stirred.set()  # (whatever waits for a change looks again: _finish)
        for cb in list(self.listeners):
            cb()

    def player_keys(self) -> set[bytes]:
        """The identity keys that hold a place here: the game's seats but the host's, or
        the keys let into the lobby — its members, and a member whose connection dropped
        (the host took it out of the lobby; its reconnect brings it back). Their
        reconnects pass the join-code attempt limits (their JOIN proves the key, signed
        over that very handshake under the right code's key: SECURE.md §3, §7)."""
        return player_keys(self._seat_keys(), self._admitted.keys,
                           {m.key for m in self.members})

    def _seat_keys(self) -> dict[bytes, int] | None:
        """The guest seats by key of the game, or of the finished game a rematch lobby
        is for; None in a first lobby."""
        table = self.table
        h = (table.log.header if table is not None
             else None if self.rematch_of is None else self.rematch_of.header)
        if h is None:
            return None
        return {p.key: p.seat for p in h.players if p.seat != h.host}

    def _admission(self) -> AdmissionView:
        """What the decision on a hello reads of this host now (admission.py)."""
        table = self.table
        if table is not None:
            phase = Phase.CALLED_OFF if self.game.state is GameState.CALLED_OFF else Phase.GAME
            return AdmissionView(phase, game=table.game_id, seats=self._seat_keys() or {},
                                 names=tuple(table.names), count=len(table.log),
                                 hash_at=table.log.hash_at, ready=self.ready,
                                 called_off_why=self.called_off_why)
        if self.rematch is not None:
            return AdmissionView(Phase.REMATCH, seats=self._seat_keys() or {})
        return AdmissionView(Phase.CLOSED if self.lobby.state is LobbyState.CLOSED
                             else Phase.LOBBY, members=frozenset(m.key for m in self.members),
                             taken=tuple(self.lobby_names), accepting=self.lobby.accepting,
                             limit=self.lobby.limit)

    # ------------------------------------------------------------------ lobby
    @property
    def lobby_names(self) -> list[str]:
        return [self.name] + [m.name for m in self.members]

    @property
    def can_start(self) -> bool:
        if self.rematch is not None:
            return False  # a rematch starts by itself once every seat agreed (§13)
        return self.lobby.can_begin()

    def _count(self, *, start: bool = True) -> None:
        """Tell the lobby machine how many players are in (in a rematch lobby a seat
        counts once it agreed); with ``start``, a full one starts now."""
        self.lobby.players(len(self.agreed) if self.rematch is not None
                           else 1 + len(self.members))
        if start and self.lobby.auto_start():
            self._start_now(auto=True)

    def _lobby_frame(self) -> None:
        players = (LobbyPlayer(self.name, self.key),
                   *(LobbyPlayer(m.name, m.key) for m in self.members))
        for m in self.members:
            if m.conn is not None:
                if self.choice.spec.named:  # (the first game's host sends none: its wire)
                    m.conn.send(GameName(self.choice.name, self.choice.max_players))
                m.conn.send(Lobby(players, self.seats))
        self._changed()

    async def start(self) -> None:
        """The host's explicit choice: start the game with the players in the lobby now
        (host seat 0, joiners in join order); the header goes to everyone, who each sign
        their accept. (A ``--seats`` lobby starts by itself when it is full.)"""
        if self.lobby.state is not LobbyState.OPEN and self.lobby.state is not LobbyState.FULL:
            return  # started (or closed) already
        self._start_now(auto=False)

    def _start_now(self, *, auto: bool) -> None:
        # members whose connection ended but whose handler has not yet noticed leave
        # first: nobody gets a seat they cannot take, and a full lobby is full again
        gone = [m for m in self.members if m.conn is None or m.conn.closed]
        if gone:
            for m in gone:
                self.members.remove(m)
                if self.rematch is not None:  # (its yes goes; the lobby frame tells the rest)
                    self.rematch.dropped(self.rematch.seat_of(m.key))
            self._count(start=False)
            self._lobby_frame()
            if auto and not self.lobby.auto_start():
                return  # not full any more: wait for the seats it was opened for
        if self.rematch is not None and not self.lobby.auto_start():
            raise ValueError("a rematch starts when every seat has agreed")
        self.lobby.begin()  # ValueError: too few or too many players for the game (R3.1, S2.1)
        players = [Player(0, self.name, self.key)] + [
            Player(i + 1, m.name, m.key) for i, m in enumerate(self.members)]
        game_id = self.game_id_maker() if self.game_id_maker else new_game_id()
        if self.rematch_of is not None:  # the same seats, rules and order (GAME.md)
            table = self._rematch_table(game_id)
        else:
            made = self.choice.header_for(len(players), self.proofs)
            table = Table.new_host(self.identity, self.data_dir, game_id, players,
                                   self.proofs, self.seed_maker, parts=self.parts,
                                   header=made, limits=self.net.limits())
        table.files.save_meta(meta_now(game_id=game_id.hex(), role="host", seat=0,
                                       name=self.name, host="", port=self.port,
                                       bind=self.bind, code=self.code))
        self._adopt(table)
        if self.rematch is not None:
            self.rematch.started()
        self.lobby.fire(LobbyEvent.STARTED)
        self.game.fire(GameEvent.START)
        seats: dict[int, Presence] = {}
        header = table.log.entries[0]
        for i, m in enumerate(self.members):
            seat = i + 1 if self.rematch is None else self.rematch.seat_of(m.key)
            assert m.conn is not None and seat is not None
            m.conn.m.fire(ConnEvent.SEAT)
            m.conn.seat = seat
            self.conns[seat] = m.conn
            seats[seat] = Presence.OK
            m.conn.send(Rec(0, header.record))
        self.watch.reset(seats)
        _log.info("game %s started: %s", game_id.hex(), ", ".join(table.names))
        self.started.set()
        self._broadcast_states()
        self._changed()

    # ------------------------------------------------------------------ a rematch
    def _rematch_table(self, game_id: bytes) -> Table:
        """The rematch's table: the previous game's seats (names, keys, order) and rules,
        its header naming that game (GAME.md "Rematch")."""
        prev = self.rematch_of
        assert prev is not None and self.offer is not None
        if game_id == prev.game_id:
            raise ValueError("a rematch needs a new game id")
        return Table.new_rematch(self.identity, self.data_dir, game_id, prev,
                                 self.seed_maker, self.parts)

    # (what the rematch lobby's machine knows, as the screens and commands read it)
    @property
    def offer(self) -> Rematch | None:
        return None if self.rematch is None else self.rematch.offer

    @offer.setter
    def offer(self, offer: Rematch) -> None:
        assert self.rematch is not None
        self.rematch.offer = offer

    @property
    def agreed(self) -> set[int]:
        """The seats that agreed to the rematch so far (the host's own: it offers)."""
        return set() if self.rematch is None else self.rematch.agreed

    @property
    def no_rematch(self) -> str | None:
        """Why the rematch lobby ended without a game (a seat declined, left or did not
        answer; the host's user called it off), if it did."""
        return None if self.rematch is None else self.rematch.why

    @property
    def told(self) -> set[int]:
        """The seats an ended rematch lobby has told why (its bye, or the refusal of a
        seat that came back after the end), with those that ended it."""
        return set() if self.rematch is None else self.rematch.told

    @property
    def left_after(self) -> dict[int, str]:
        """Seats of the finished game that said, as it ended, that they leave: seat →
        name. In a rematch lobby those of the game before not back yet; once a game
        runs, its own (``HostNode(left=…)`` of the rematch lobby that follows it)."""
        if self.rematch is not None and self.table is None:
            return self.rematch.left_after
        return self._left_after

    def _in_rematch_lobby(self, conn: Conn) -> bool:
        return (self.rematch is not None and self.table is None
                and any(m.conn is conn for m in self.members))

    def _rematch_do(self, decisions: list[Decision]) -> None:
        """Carry out what the rematch lobby's machine decided."""
        for d in decisions:
            match d:
                case SendOffer(to):
                    self._offer_frame(None if to is None else self._member_conn(to))
                case SendClock(left):
                    for m in self.members:
                        if m.conn is not None:
                            m.conn.send(Clock(left))
                case StartRematch():
                    self._count()  # (the lobby, full of yeses, starts the rematch now)
                case EndRematch(why, _, by_host):
                    self._ended_rematch(why, by_host)
                case Refuse():
                    raise AssertionError("a refusal is the caller's")
                case Redraw():
                    self._changed()  # (the time left, on the screens)

    def _member_conn(self, seat: int) -> Conn | None:
        lobby = self.rematch
        assert lobby is not None
        return next((m.conn for m in self.members if lobby.seat_of(m.key) == seat), None)

    def _offer_frame(self, only: Conn | None = None) -> None:
        """The rematch offer, with the seats that agreed so far, to one member or all."""
        offer = self.offer
        if offer is None or self.table is not None:
            return
        frame = Offer(offer.game, offer.head, offer.first_dealer, tuple(sorted(self.agreed)))
        left = self.rematch_left()
        for m in self.members:
            if m.conn is not None and (only is None or m.conn is only):
                m.conn.send(frame)
                if left is not None:
                    m.conn.send(Clock(math.ceil(left)))
        self._changed()

    def _join_rematch(self, conn: Conn, hello: Hello) -> None:
        """A seat of the finished game back for the rematch it is offered (§13): only
        those seats, each under its name of that game; the offer goes to it at once."""
        lobby = self.rematch
        assert lobby is not None and conn.key is not None
        admit = lobby.arrive(lobby.seat_of(conn.key), hello.game)
        if isinstance(admit, WireError):
            if admit.code is ErrorCode.CLOSED:
                self._stirred.set()  # (a seat told after the end: tell_the_rest looks again)
            raise admit
        conn.name = admit.name
        if admit.was_leaving:
            _log.info("%s is back after it said it left", conn.who())
        for m in self.members:
            if m.key == conn.key:  # the same player reconnecting
                if m.conn is not None and m.conn is not conn:
                    self._refuse(m.conn, WireError(ErrorCode.REPLACED, "a newer connection of this "
                                                   "player took over", fatal=True))
                m.conn = conn
                break
        else:
            self.members.append(Member(conn.name, conn.key, conn))
        conn.m.fire(ConnEvent.ADMIT)
        _log.info("%s is here for the rematch", conn.who())
        conn.send(Welcome(None, None, 0, True))
        self._offer_frame(only=conn)
        self._lobby_frame()

    def _on_answer(self, conn: Conn, game: bytes, yes: bool) -> None:
        if self._leaving_after(conn, game, yes):
            return
        lobby = self.rematch
        if lobby is None or not self._in_rematch_lobby(conn):
            self._refuse(conn, WireError(ErrorCode.PROTOCOL, "no rematch was offered"))
            return
        assert conn.key is not None
        seat = lobby.seat_of(conn.key)
        assert seat is not None
        decisions = lobby.answer(seat, game, yes)
        for d in decisions:
            if isinstance(d, Refuse):
                self._refuse(conn, d.error)
                return
        if yes and decisions:
            _log.info("%s agrees to the rematch", conn.who())
            self._count(start=False)  # (its yes counts: the lobby machine is told)
        self._rematch_do(decisions)

    def _leaving_after(self, conn: Conn, game: bytes, yes: bool) -> bool:
        """A seat of this finished game says, as the game ends, that it leaves: no
        rematch with it (§13). Its rematch lobby, if the host's user offers one, ends at
        once naming it. True if the ``answer`` was that."""
        table = self.table
        if (table is None or not table.core.finished or conn.seat is None
                or game != table.game_id or yes):
            return False
        if conn.seat not in self._left_after:
            _log.info("%s leaves after the game: no rematch with it", conn.who())
            self._left_after[conn.seat] = table.names[conn.seat]
            self._changed()
        return True

    def rematch_left(self) -> float | None:
        """Seconds the rematch lobby still waits for every yes (None: not one, or over)."""
        if self.rematch is None or self.table is not None:
            return None
        return self.rematch.left_s(self._now())

    def end_rematch(self, why: str, *, gone: Collection[int] = (),
                    by_host: bool = False) -> None:
        """The rematch lobby ends without a game (``why``, one line: a seat declined,
        left or did not answer — ``gone``: those that know it —; the host's user called
        it off, ``by_host``): every member is told."""
        if self.rematch is None or not self.lobby.can(LobbyEvent.CLOSE):
            return
        self._rematch_do(self.rematch.call_off(why, gone=gone, by_host=by_host))

    def _ended_rematch(self, why: str, by_host: bool) -> None:
        """The rematch lobby's machine ended it: every member gets the bye saying why."""
        lobby = self.rematch
        assert lobby is not None
        if self.lobby.can(LobbyEvent.CLOSE):
            self.lobby.fire(LobbyEvent.CLOSE)
        self.called_off = by_host
        _log.info("%s", why)
        for m in self.members:
            if m.conn is not None:
                m.conn.send(Bye(why[:200]))
                seat = lobby.seat_of(m.key)
                if seat is not None and not m.conn.closed:
                    lobby.told_seat(seat)
        for cb in list(self.on_close):  # (a saved rematch lobby is over: not offered again)
            cb()
        self.done.set()
        self._changed()

    async def tell_the_rest(self, limit: float) -> None:
        """After a rematch lobby ended without a game: go on refusing, with its reason,
        the seats still coming back for it (a joiner retries every ``retry_max`` s at
        most), until each seat was told or ``limit`` s have passed."""
        lobby = self.rematch
        if lobby is None or self.table is not None or lobby.why is None:
            return
        await self._until(lambda: lobby.all_told, limit)

    # ------------------------------------------------------------------ connections
    async def serve_channel(self, raw: Channel) -> None:
        """Serve one fresh connection from any transport (TCP here, a wormhole
        subchannel from :mod:`splitnet.net.wormhole`) until it ends."""
        me = asyncio.current_task()
        if me is not None:
            self._serving.add(me)
            me.add_done_callback(self._serving.discard)
        conn: Conn | None = None
        try:
            if not self._admit(raw):
                await raw.drain()
                return
            self._securing[raw] = None
            try:
                async with asyncio.timeout(self.net.handshake_timeout):
                    ch = await self.wrap(raw, "host")
            finally:
                self._securing.pop(raw, None)
            if getattr(raw, "closed", False):  # evicted (busy) as the handshake finished
                return
            conn = Conn(ch, raw.peer, last_heard=self._now())
            if getattr(ch, "watcher", False):
                self._greet_watcher(conn)
            else:
                self.all_conns.add(conn)
            await self._handshake(conn)
            while not conn.closed:
                frame = await self._recv(conn)
                self._handle(conn, frame)
        except (ChannelClosed, ConnectionError, asyncio.IncompleteReadError):
            pass
        except TimeoutError:
            if conn is not None:
                self._refuse(conn, WireError(ErrorCode.PROTOCOL, "no hello within "
                                             f"{self.net.handshake_timeout:g} s", fatal=True))
        except WireError as e:
            if conn is not None:
                self._refuse(conn, e)
        except (SplitnetError, OSError) as e:  # e.g. the join-code handshake failing
            _log.warning("connection from %s failed: %s: %s", raw.peer, type(e).__name__, e)
        except asyncio.CancelledError:
            # the host is shutting down. End normally: asyncio's stream server (3.11)
            # calls exception() on a cancelled handler and prints a traceback
            pass
        finally:
            if conn is not None:
                self._watch_greeting.pop(conn, None)
                self._dropped(conn)
            raw.close()

    def _greet_watcher(self, conn: Conn) -> None:
        """Keep a connection past the watch code in the watchers' own pool until its
        ``watch`` comes: someone who holds the watch code and never sends it fills that
        pool, whose oldest is dropped, and never the players' slots (SECURITY.md row 132)."""
        pool = self._watch_greeting
        while pool and len(pool) >= self.watchers.desk.limit + 2:
            oldest = next(iter(pool))
            del pool[oldest]
            _log.warning("watchers' handshakes full: dropping the oldest (%s) for %s",
                         oldest.peer, conn.peer)
            oldest.close()
        pool[conn] = None

    def _admit(self, raw: Channel) -> bool:
        """Room for one more connection? At most ``max_conns`` connections that are not
        (yet) a lobby member or a seat. When they are all taken, the oldest one still in
        the join-code handshake is dropped with "busy" to make room — a reconnecting
        player's handshake takes one round trip, so someone holding every slot cannot
        keep it out; only when every slot is past the handshake (invited) is the new
        connection itself told "busy" (NETWORK.md §3, §8)."""
        greeting = sum(1 for c in self.all_conns if c.m.state is ConnState.HANDSHAKING)
        slot = slot_for(len(self._securing), greeting, self.net.max_conns)
        if slot is Slot.TAKE:
            return True
        if slot is Slot.EVICT:
            oldest = next(iter(self._securing))
            del self._securing[oldest]
            _log.warning("all %d connection slots in use: dropping the oldest handshake "
                         "(%s) for %s", self.net.max_conns, oldest.peer, raw.peer)
            self.busy(oldest, "every connection slot is in use; yours was the oldest "
                      "still in its handshake")
            oldest.close()
            return True
        _log.warning("all %d connection slots in use: refusing %s", self.net.max_conns,
                     raw.peer)
        self.busy(raw, f"all {self.net.max_conns} connection slots are in use")
        return False

    def _busy_frame(self, raw: Channel, reason: str) -> None:
        self._refuse(Conn(raw, raw.peer), WireError(ErrorCode.BUSY, reason, fatal=True))

    async def _recv(self, conn: Conn) -> Frame:
        """The next valid frame; refused ones are answered here and skipped."""
        while True:
            try:
                payload = await conn.ch.recv()
            except FrameTooLarge as e:
                raise WireError(ErrorCode.TOO_BIG, f"{e}; closing (a stream cannot resync)",
                                fatal=True) from None
            conn.last_heard = self._now()
            try:
                return decode_frame(payload, from_host=False)
            except WireError as e:
                self._refuse(conn, e)
                if conn.closed:
                    raise ChannelClosed("closed after errors") from None

    def _refuse(self, conn: Conn, e: WireError, kind: str | None = None,
                counter: int | None = None, refusal: bytes | None = None) -> None:
        conn.errors += 1
        fatal = e.fatal or conn.errors > self.net.max_errors
        _log.warning("refused from %s: %s: %s%s", conn.who(), e.code, e.reason,
                     " (closing)" if fatal else "")
        code = e.code if conn.errors <= self.net.max_errors else ErrorCode.TOO_MANY_ERRORS
        conn.send(HostError(code.value, e.reason[:500], fatal, kind, counter, refusal))
        if fatal:
            conn.close()

    async def _handshake(self, conn: Conn) -> None:
        nonce = secrets.token_bytes(32)
        game = self.table.game_id if self.table else None
        bind = binding_of(conn.ch)
        conn.send(Challenge(NET_PROTOCOL, nonce, self.key, game, bind,
                            sign_challenge(self.identity, nonce, game, bind)))
        async with asyncio.timeout(self.net.handshake_timeout):
            hello = await self._recv(conn)
        if isinstance(hello, Watch) or getattr(conn.ch, "watcher", False):  # watchers.py
            self.all_conns.discard(conn)  # a watcher holds none of the players' slots
            self._watch_greeting.pop(conn, None)  # (now one of the watchers' places)
            return await self.watchers.serve(conn, hello)
        if not isinstance(hello, Hello):
            raise WireError(ErrorCode.PROTOCOL, f"expected hello, got {hello.T!r}", fatal=True)
        bad = check_hello(hello, nonce, bind, self.key)
        if bad is not None:
            raise bad
        conn.key = hello.key
        conn.name = hello.name
        self._let_through(conn, hello)

    def _let_through(self, conn: Conn, hello: Hello) -> None:
        """Decide on the connection's checked hello from this host's state, and do what
        that says (admission.py): a lobby member, a seat back, the rematch lobby's, or
        a fatal refusal."""
        outcome = decide(self._admission(), hello)
        match outcome:
            case Refused(error, name):
                if name is not None:
                    conn.name = name
                raise error
            case ToRematch():
                self._join_rematch(conn, hello)
            case JoinLobby() | BackToLobby():
                self._join_lobby(conn, outcome)
            case BackToSeat():
                self._rejoin(conn, hello, outcome)

    def _join_lobby(self, conn: Conn, outcome: JoinLobby | BackToLobby) -> None:
        """A new member, or a member's new connection (the older one is replaced)."""
        assert conn.key is not None
        conn.name = outcome.name
        if isinstance(outcome, BackToLobby):  # the same player reconnecting to the lobby
            m = next(m for m in self.members if m.key == conn.key)
            if m.conn is not None and m.conn is not conn:
                self._refuse(m.conn, WireError(ErrorCode.REPLACED, "a newer connection of this "
                                               "player took over", fatal=True))
            m.conn = conn
            m.name = conn.name
        else:
            self.members.append(Member(conn.name, conn.key, conn))
        self._admitted.add(conn.key, {m.key for m in self.members})
        conn.m.fire(ConnEvent.ADMIT)
        _log.info("%s joined the lobby", conn.who())
        conn.send(Welcome(None, None, 0, True))
        # the count first: the lobby frame tells the screens, which read it (a host's
        # screen drawn before it rose offered no start with 2 players, R3.1)
        self._count(start=False)
        self._lobby_frame()
        self._count()  # full: the game starts now, with exactly these seats

    def _rejoin(self, conn: Conn, hello: Hello, back: BackToSeat) -> None:
        """A seat's new connection (the older one is replaced): its records, or a
        restarted host's request for those it lost."""
        table = self.table
        assert table is not None
        seat, have, count = back.seat, hello.have, len(table.log)
        conn.name = back.name
        old = self.conns.get(seat)
        if old is not None and old is not conn:
            self._refuse(old, WireError(ErrorCode.REPLACED, "a newer connection for this seat took "
                                        "over", fatal=True))
        conn.seat = seat
        conn.m.fire(ConnEvent.SEAT)
        self.conns[seat] = conn
        self.epoch += 1
        conn.send(Welcome(seat, table.game_id, count, self.ready))
        if back.need is not None:  # a restarted host lost its unsynced tail: take it back
            conn.want_from, conn.want_to = back.need
            conn.send(Need(count))
        else:
            for e in table.log.entries[have:]:
                conn.send(Rec(e.seq, e.record))
        # the other seats' acks so far: a seat that was away still compares them (§6)
        acks = self.book.shown_to(seat)
        if acks:
            conn.send(Acks(acks))
        _log.info("%s is back (seat %d, had %d of %d records)", conn.who(), seat, have, count)
        if self.watch.back(seat):
            self._states_changed()
        self._check_ready()

    def _dropped(self, conn: Conn) -> None:
        conn.m.fire(ConnEvent.DROP)
        self.all_conns.discard(conn)
        if self.table is None:
            for m in self.members:
                if m.conn is conn:
                    self.members.remove(m)
                    _log.info("%s left the lobby", conn.who())
                    if self.rematch is not None:  # its answer goes with it (§13)
                        self._rematch_do(self.rematch.dropped(self.rematch.seat_of(m.key)))
                    if self.lobby.state in (LobbyState.OPEN, LobbyState.FULL):
                        self._count(start=False)
                    self._lobby_frame()
                    break
            return
        if conn.seat is not None and self.conns.get(conn.seat) is conn:
            del self.conns[conn.seat]
            _log.info("%s disconnected", conn.who())
            if self.watch.dropped(conn.seat):
                self._states_changed()

    # ------------------------------------------------------------------ frames
    def _handle(self, conn: Conn, f: Frame) -> None:
        match f:
            case Ping(n):
                conn.send(Pong(n))
            case Pong():
                pass
            case Bye(reason):
                if self._in_rematch_lobby(conn):  # a seat leaving ends the rematch (§13)
                    assert self.rematch is not None and conn.key is not None
                    self._rematch_do(self.rematch.leave(self.rematch.seat_of(conn.key), reason))
                conn.close()
            case Answer(game, yes):
                self._on_answer(conn, game, yes)
            case BotLevel(level):
                self._on_bot(conn, level)
            case Msg(msg, sig):
                self._on_msg(conn, msg, sig)
            case Ack(ack):
                self._on_ack(conn, ack)
            case Rec(seq, record):
                self._on_returned(conn, seq, record)
            case _:
                self._refuse(conn, WireError(ErrorCode.PROTOCOL,
                                             f"unexpected {f.T!r} after the hello"))

    def _on_bot(self, conn: Conn, level: str) -> None:
        """A lobby member says it is a bot of ``level``: its lobby line says so. Once the
        game has started there is no lobby to show it in (a ``--seats`` lobby starts at
        the last hello, before that player's frame comes): nothing to do."""
        member = next((m for m in self.members if m.conn is conn), None)
        if member is None or self.table is not None:
            return
        member.level = level
        self._changed()

    def _on_msg(self, conn: Conn, msg: bytes, sig: bytes) -> None:
        table = self.table
        match route(seated=table is not None and conn.seat is not None,
                    called_off=self.game.state is GameState.CALLED_OFF, ready=self.ready,
                    held=len(self._held), max_held=self.net.max_held):
            case Route.NOT_STARTED:
                self._refuse(conn, WireError(ErrorCode.NOT_STARTED, "the game has not started"))
                return
            case Route.CALLED_OFF:
                self._refuse(conn, WireError(ErrorCode.CLOSED, self.called_off_why, fatal=True))
                return
            case Route.TOO_MANY:
                self._refuse(conn, WireError(ErrorCode.SLOW, "too many messages while the host "
                                             "resumes", fatal=True))
                return
            case Route.HOLD:
                self._held.append((conn, msg, sig))
                return
        assert table is not None and conn.seat is not None
        try:
            table.check(msg, sig, conn.seat)
        except WireError as e:
            kind, counter = kind_counter(msg)
            # Signed, naming the message and the log head: a refusal of a move the mover
            # finds legal at that head is the host's signed word against itself (GAME.md
            # "accuse"; SECURITY.md).
            refusal = make_refusal(self.identity, table.game_id, len(table.log),
                                   table.log.head(), conn.seat, msg, sig, e.code.value,
                                   e.reason)
            self._refuse(conn, e, kind, counter, refusal)
            if e.code is ErrorCode.CHEAT:
                self._publish_evidence(conn.seat, msg, sig, e)
            return
        table.order(msg, sig)
        self._pump()

    def _publish_evidence(self, seat: int, msg: bytes, sig: bytes, e: WireError) -> None:
        """A message whose proof fails is refused like any other, but it is signed by
        its author: every seat gets it, so nobody has to take the host's word."""
        table = self.table
        assert table is not None
        if not self.evidence_kept.admit(seat, len(msg) + len(sig)):
            if self.evidence_kept.dropped[seat] == 1:
                _log.warning("seat %d's further failed proofs are refused but not kept: its "
                             "first is proof enough", seat)
            return
        kind, _ = kind_counter(msg)
        self.evidence.append((seat, kind or "?", e.reason))
        path = table.files.transcript.with_suffix(".evidence")
        shown_all = Evidence(msg, sig, e.code.value, e.reason[:500])
        with contextlib.suppress(OSError), os.fdopen(
                open_private(path, os.O_WRONLY | os.O_APPEND), "ab") as f:
            f.write(encode_typed(shown_all))  # (the frame as it goes out: NETWORK.md §7)
        for s, c in self.conns.items():
            if s != seat:
                c.send(shown_all)
        self._changed()

    def _on_ack(self, conn: Conn, raw: bytes) -> None:
        table = self.table
        if table is None or conn.seat is None:
            self._refuse(conn, WireError(ErrorCode.NOT_STARTED, "nothing to acknowledge yet"))
            return
        try:
            ack = table.log.check_ack(raw)
        except LogError as e:
            self._refuse(conn, WireError(ErrorCode.ACK, e.reason))
            return
        count = len(table.log)
        bad = judge_ack(conn.seat, ack.seat, ack.seq, ack.head, count,
                        table.log.hash_at(ack.seq) if ack.seq < count else None)
        if bad is not None:
            self._refuse(conn, bad)
            return
        if self.book.take(ack.seat, ack.seq, raw, last=count - 1,
                          finished=table.core.finished).keep:
            self._keep_final_ack(raw)  # on file before anyone sees it relayed
        for seat, c in self.conns.items():
            if seat != ack.seat:
                c.send(Acks((raw,)))
        if self.game.state is GameState.FINISHING:
            self._changed()

    def _keep_final_ack(self, raw: bytes) -> None:
        """A seat's signed ack of the finished log's last record goes to ``GAME_ID.acks``
        before it is relayed: a joiner that has seen every final ack ends and leaves, so
        a host killed after that and restarted must know them without it (NETWORK.md §6)."""
        table = self.table
        assert table is not None
        try:
            append_final_ack(table.files.acks, raw)
        except OSError as e:  # the game goes on; a restart would wait for this seat
            _log.warning("could not keep a final ack in %s: %s", table.files.acks, e)

    def _load_final_acks(self) -> None:
        """A restarted host's record of the seats that confirmed its finished log: each
        kept ack is checked again (signature, seat of this game, the head at its seq)."""
        table = self.table
        assert table is not None
        for raw in read_final_acks(table.files.acks):
            try:
                ack = table.log.check_ack(raw)
            except LogError as e:
                _log.warning("%s: ignored an ack: %s", table.files.acks, e.reason)
                continue
            if (ack.seat == table.host_seat or ack.seq >= len(table.log)
                    or table.log.hash_at(ack.seq) != ack.head):
                _log.warning("%s: ignored seat %d's ack of seq %d: not this log's head "
                             "there", table.files.acks, ack.seat, ack.seq)
                continue
            self.book.load(ack.seat, ack.seq, raw)

    def missing_final_acks(self) -> list[int]:
        """The seats whose ack of the last record the finished game still waits for:
        every seat but the host's — an open-handed one (R8.6: abandoned, it holds no key
        share and sends nothing) only while it is connected, watching: it gets the whole
        log before the bye, but one that is gone is never waited for."""
        table = self.table
        if table is None:
            return []
        gone_open = {s for s in table.core.open_seats if s not in self.conns}
        return self.book.missing(range(table.n), last=len(table.log) - 1, excused=gone_open)

    def _on_returned(self, conn: Conn, seq: int, record: bytes) -> None:
        """A record this (restarted) host signed before and lost, handed back."""
        table = self.table
        if table is None or conn.want_to == 0 or seq >= conn.want_to:
            self._refuse(conn, WireError(ErrorCode.PROTOCOL, "no records were asked for"))
            return
        if seq < len(table.log):  # another peer handed it back first
            if table.log.entries[seq].record != record:
                self._refuse(conn, WireError(ErrorCode.FORK, f"your record {seq} differs from the "
                                             "host's", fatal=True))
        elif conn.want_from is None:
            return
        elif seq > len(table.log):
            self._refuse(conn, WireError(ErrorCode.PROTOCOL, f"record {seq} handed back before "
                                         f"record {len(table.log)}", fatal=True))
            return
        else:
            try:
                table.add_own_record(record)
            except (LogError, ValueError) as e:
                self._refuse(conn, WireError(ErrorCode.PROTOCOL, f"returned record {seq}: {e}",
                                             fatal=True))
                return
            _log.warning("took back record %d (lost from the host's transcript) from %s",
                         seq, conn.who())
        if conn.want_from is not None and len(table.log) >= conn.want_to:
            conn.want_from = None
            self._check_ready()

    # ------------------------------------------------------------------ ordering
    def _on_entry(self, entry: Entry) -> None:
        """Every ordered (or handed back) entry: broadcast it, note timings."""
        table = self.table
        assert table is not None
        table.transcript.kick()
        for c in self.conns.values():
            c.send(Rec(entry.seq, entry.record))
        for hook in self.on_entry_hooks:
            hook(entry)
        self._track_owed(None if entry.kind == "chat" else entry.author)
        if table.core.finished and self.game.can(GameEvent.FINISH):
            self.game.fire(GameEvent.FINISH)
            self._spawn(self._finish())
        self._changed()

    def send_game(self, kind: str, body: dict[str, Any]) -> bool:
        """The host's own seat says something (a move, a chat): checked like anyone's."""
        table = self.table
        if table is None or not self.ready:
            return False
        msg, sig = table.author.message(kind, body, seen=table.log.seen())
        try:
            table.check(msg, sig, table.seat)
        except WireError:
            table.author.counter = table.log.next_counter(table.seat)
            raise
        table.order(msg, sig)
        self._pump()
        return True

    def _pump(self) -> None:
        """Order every protocol message the host's own seat owes now."""
        table = self.table
        if self._pumping or table is None or not self.ready or not table.started:
            return
        self._pumping = True
        try:
            for _ in range(10_000):
                try:
                    out = table.core.outbox()
                    if table.core.refused is not None:  # (refused to make a move)
                        raise table.core.refused
                except PledgeRefused as e:  # GAME.md "Pledges": nothing was made or sent
                    self.fatal = str(e)
                    _log.error("%s", self.fatal)
                    self.done.set()
                    self._changed()
                    return
                if not out:
                    break
                for kind, body in out:
                    msg, sig = table.author.message(kind, body, seen=table.log.seen())
                    try:
                        table.check(msg, sig, table.seat)
                    except WireError as e:  # a bug of ours, never a peer's fault
                        table.author.counter = table.log.next_counter(table.seat)
                        self.fatal = f"the host's own {kind} was refused: {e}"
                        _log.error("%s", self.fatal)
                        self.game.fire(GameEvent.FAIL)
                        self.done.set()
                        self._changed()
                        return
                    table.order(msg, sig)
        finally:
            self._pumping = False

    def _check_ready(self) -> None:
        table = self.table
        if self.game.state is not GameState.RESUMING or table is None:
            return
        back = all(s in self.conns for s in range(table.n) if s != table.host_seat)
        owed = any(c.want_from is not None for c in self.conns.values())
        if not back or owed:
            return
        self.game.fire(GameEvent.ALL_BACK)
        self.watch.restart(self._now())  # every seat's clock starts now
        # records handed back may hold our own messages: continue after them
        table.author.counter = table.log.next_counter(table.seat)
        _log.info("every seat is back: the game goes on at record %d", len(table.log))
        for c in self.conns.values():
            c.send(Welcome(c.seat, table.game_id, len(table.log), True))
        held, self._held = self._held, []
        for conn, msg, sig in held:
            if not conn.closed:
                self._on_msg(conn, msg, sig)
        self._pump()
        self._changed()

    # ------------------------------------------------------------------ heartbeats
    async def _heartbeat(self) -> None:
        self._last_beat = self._now()
        while True:
            await asyncio.sleep(self.net.ping_interval)
            self._beat(self._now())

    def _beat(self, now: float) -> None:
        """One heartbeat at time ``now``: ping every connection past its hello, drop the
        ones quiet too long, update the seats' states and the game's timeouts."""
        last, self._last_beat = self._last_beat, now
        if last is not None and now - last > self.net.ping_interval + self.net.host_timeout:
            self._slept(now - last)
        for c in list(self.all_conns):
            if not c.m.may_ping:
                continue  # still in its handshake (bounded by handshake_timeout)
            quiet = now - c.last_heard
            if quiet > self.net.drop_after:
                self._refuse(c, WireError(ErrorCode.SLOW, f"nothing heard for {quiet:.0f} s",
                                          fatal=True))
                continue
            c.ping_n = (c.ping_n + 1) % (2**31)
            c.send(Ping(c.ping_n))
        # who watches, to the players' screens (§14.10): only what changed, at most once
        # a heartbeat, never to a connection still in its handshake
        self.watchers.tell_players([c for c in self.all_conns if c.m.may_ping])
        if self.rematch is not None and self.table is None:
            self._rematch_do(self.rematch.beat(now))
        if self.table is not None:
            if self._check_accepts(now):
                return
            if any([self.watch.heard(seat, now - c.last_heard)
                    for seat, c in sorted(self.conns.items())]):
                self._states_changed()
            self._check_timeouts()

    def _slept(self, gap: float) -> None:
        """The host's program did not run for ``gap`` s — stopped (Ctrl-Z, then ``fg``),
        its machine asleep: its heartbeat comes every ``ping_interval`` while it runs.
        The seats were not quiet, nor slow to answer, for that time: it was not
        listening. Every connection counts as heard now and every seat gets its whole
        wait again (NETWORK.md §7), so nobody is dropped, timed out or given up for the
        host's own absence."""
        _log.warning("the host's program was not running for %.0f s (stopped or asleep): "
                     "every seat gets its whole wait again", gap)
        now = self._now()
        for c in self.all_conns:
            c.last_heard = max(c.last_heard, now)
        self.watch.restart(now)
        self._accepts.restart(now)
        if self.rematch is not None:
            self.rematch.slept(gap)

    # ------------------------------------------------------------------ timeouts
    def _check_accepts(self, now: float) -> bool:
        """Every seat accepts the header within the accept wait of the start (or of a
        restart), or the host calls the game off (True; NETWORK.md §4, accepts.py)."""
        table = self.table
        pending = table is not None and not table.started and not self.game.final
        missing = ([] if table is None or not pending else
                   [table.names[s] for s in range(table.n) if s not in table.log.accepted])
        wait = 0.0 if table is None else self._accept_wait(table)
        match self._accepts.beat(now, pending=pending, wait=wait, missing=missing):
            case CallOff(why):
                self.call_off(why)
                return True
            case "redraw":  # (the screens show it in steps)
                self._changed()
        return False

    def accepts_left(self) -> float | None:
        """Seconds before the host calls off the game some seat has not accepted yet
        (:meth:`_check_accepts`); None when every seat has, or there is no game."""
        table = self.table
        if table is None:
            return None
        return self._accepts.left(self._now(), pending=not table.started and not self.game.final,
                                  wait=self._accept_wait(table))

    def _accept_wait(self, table: Table) -> float:
        """The accept wait under this game's header, with the settings this host runs
        with now (accepts.py)."""
        return accept_wait(self.net.answer_timeout, table.core.limits.answer_s)

    def call_off(self, why: str) -> None:
        """End a game no seat has begun to play (some accept is missing): every joiner
        is told ``why`` in a fatal ``closed`` error, the game is saved as over (nobody is
        offered to resume it), and the host's node is done with ``fatal`` = "the game did
        not start: ``why``"."""
        table = self.table
        assert table is not None and not table.started
        self.game.fire(GameEvent.CALL_OFF)
        self.called_off_why = why[:500]
        self.fatal = f"the game did not start: {why}"
        _log.warning("%s", self.fatal)
        for c in list(self.conns.values()):
            c.send(HostError(ErrorCode.CLOSED.value, self.called_off_why, True, None, None,
                             None))
        with contextlib.suppress(OSError, ValueError):
            table.files.mark_finished()
        self._spawn(self._called_off())

    async def _called_off(self) -> None:
        for c in list(self.conns.values()):
            await drain(c.ch, 2.0)
        for c in list(self.conns.values()):
            c.close()
        self.done.set()
        self._changed()

    def _track_owed(self, answered: int | None = None) -> None:
        """Note since when the game waits for each seat; ``answered``: that seat's
        message was just ordered (its clock starts again if it owes the next one)."""
        table = self.table
        if table is None or not self.ready or not table.started or table.core.finished:
            self.watch.clear()
            return
        waiting = set(table.core.waiting_for()) - {table.host_seat}
        self.watch.track(self._now(), waiting, answered)

    def _check_timeouts(self) -> None:
        """A seat that owed a message longer than its limit ends the game, or — gone,
        with ``--open-hand-after``, where the game allows it — is given up
        (:meth:`SeatWatch.due <splitnet.net.waits.SeatWatch.due>`): the host orders the
        ``timeout`` or ``abandon`` (GAME.md), every peer applies it."""
        self._track_owed()
        table = self.table
        if table is None:
            return
        due = self.watch.due(self._now(), table.core)
        if due is None:
            return
        if due.kind == "abandon":
            _log.warning("%s gone for %d s: given up as gone for good (abandon), the "
                         "game goes on", table.names[due.seat], due.waited)
        else:
            _log.warning("%s owed its %s for %d s: timed out, the game stops",
                         table.names[due.seat], due.step, due.waited)
        try:
            self.send_game(due.kind, due.body())
        except WireError as e:  # pragma: no cover - our own core said it may
            _log.error("the host's own %s was refused: %s", due.kind, e)

    def _states_changed(self) -> None:
        self._broadcast_states()
        self._changed()

    def _broadcast_states(self) -> None:
        peers = Peers(tuple(PeerState(s, st, q) for s, (st, q) in self.watch.states.items()))
        for c in self.conns.values():
            c.send(peers)

    def seat_states(self) -> dict[int, tuple[Presence, int]]:
        return self.watch.states

    async def _until(self, done: Callable[[], bool], limit: float) -> None:
        """Wait until ``done()`` holds or ``limit`` s have passed, looking again at each
        change (:meth:`_changed`, or a ``_stirred.set()`` where only a waiter cares), never
        on a poll."""
        deadline = self._now() + limit
        while not done():
            self._stirred.clear()
            try:  # (at the deadline itself, not a remainder: a remainder within the
                # clock's resolution fires at once without time passing — a busy loop)
                async with asyncio.timeout_at(deadline):
                    await self._stirred.wait()
            except TimeoutError:
                return

    # ------------------------------------------------------------------ the end
    async def _finish(self) -> None:
        """The game is over: wait (bounded) until every seat that must confirm it acked
        the last record (:meth:`missing_final_acks`) — at once when they all did before
        a restart (their acks are on file) — then say bye."""
        table = self.table
        assert table is not None
        # woken by the next ack, or a seat that leaves or is back
        await self._until(lambda: not self.missing_final_acks(), self.net.final_wait)
        if self.missing_final_acks():
            missing = [table.names[s] for s in self.missing_final_acks()]
            _log.warning("no final ack from %s", ", ".join(missing))
        await asyncio.to_thread(table.transcript.sync)
        await asyncio.to_thread(sync_final_acks, table.files.acks)
        table.files.mark_finished()
        self.game.fire(GameEvent.BYE)
        for c in list(self.conns.values()):
            if self.offers_no_rematch:  # no offer follows (§13): the seats need not look
                c.send(Answer(table.game_id, False))
            c.send(Bye("game over"))
        for c in list(self.conns.values()):
            with contextlib.suppress(Exception):
                await asyncio.wait_for(c.ch.drain(), 2.0)
        self.done.set()
        self._changed()

