"""A joiner of a LAN game: connects to the host, joins its lobby, then keeps its own copy
of the log — verifying every record, writing it, applying it to its own core — sends the
messages its seat owes and acknowledges its head. It reconnects by itself (bounded, with
back-off) and resumes from its saved transcript and seeds after a restart.

This is the asyncio shell over the joiner's sans-IO parts (NETWORK.md §11): its session
(join_state.py), its link to the host — when to dial, wait, stop or give up
(join_link.py) —, its rematch answers (join_rematch.py), its clocks on the host
(waits.py), its acks (join_acks.py) and its checks of what the host sends
(join_checks.py). Why it is still over 600 lines: what is left is the I/O each of those
machines is fed from and acts through — one connection's handshake and frame loop, the
record intake that feeds the table and the clocks in one step, the ack task, and the
documented state the front ends read (``net_status``, ``lobby_*``, ``offer``, …) —
split further, one frame's handling would be spread over several modules. The next
part to move is the record intake with its clock checks (a seat's, which a watcher
would not need).
"""
from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

from splitnet.game.rematch import PreviousGame, Rematch
from splitnet.game.table import GameError, PledgeRefused
from splitnet.games import FIRST
from splitnet.net.addrs import host_port
from splitnet.net.config import EvidenceBudget, NetSettings
from splitnet.net.frames import Ack as AckFrame
from splitnet.net.frames import (
    Acks,
    Answer,
    BotLevel,
    Bye,
    Clock,
    Evidence,
    Frame,
    GameName,
    Hello,
    HostError,
    Lobby,
    Msg,
    Need,
    Offer,
    Peers,
    Ping,
    Pong,
    Presence,
    Rec,
    Watching,
    Welcome,
)
from splitnet.net.framing import FrameTooLarge
from splitnet.net.join_acks import AckBook
from splitnet.net.join_checks import (
    _CLOSED_BY_HOST,
    _write_private,
    check_challenge,
    check_limits,
    judge_refused_move,
    take_evidence,
)
from splitnet.net.join_checks import HostClosed as HostClosed
from splitnet.net.join_checks import HostGone as HostGone
from splitnet.net.join_checks import HostLeft as HostLeft
from splitnet.net.join_checks import PeerFatal as PeerFatal
from splitnet.net.join_checks import RematchNotYet as RematchNotYet
from splitnet.net.join_checks import refused_by_host as refused_by_host
from splitnet.net.join_link import ByeMeans, Cause, End, Finish, Link, Log, Quit, Step, Wait, bye
from splitnet.net.join_rematch import AnswerState, RematchSide
from splitnet.net.join_state import JoinEvent, JoinMachine, JoinState
from splitnet.net.store import GameFiles, GameMeta, meta_now
from splitnet.net.table import SeedMaker, Table, TableParts
from splitnet.net.waits import HostView, HostWatch
from splitnet.net.watching import WatchingBoard
from splitnet.net.wire import (
    NET_PROTOCOL,
    Channel,
    ChannelClosed,
    ChannelWrap,
    Connect,
    ErrorCode,
    StreamChannel,
    WireError,
    binding_of,
    decode_frame,
    encode_typed,
    plain,
    sign_hello,
)
from splitnet.session.identity import Identity
from splitnet.session.log import (
    TAG_FORK_ACKS,
    TAG_FORK_RECORDS,
    Ack,
    LogError,
    detect_fork,
    fork_evidence,
    make_ack,
    prove_equivocation,
)
from splitnet.text import shown

_log = logging.getLogger("splitnet.net")

#: a connection's ignored bad frames from the host that each get a log line
MAX_BAD_FRAME_LINES = 8


class PeerNode:
    """One joiner. ``run()`` returns when the game is over (or raises :class:`PeerFatal`)."""

    def __init__(self, identity: Identity, data_dir: Path, name: str, host: str, port: int,
                 net: NetSettings | None = None, *, seed_maker: SeedMaker | None = None,
                 wrap: ChannelWrap = plain, resume: GameMeta | None = None,
                 code: str = "",
                 connect: Connect | None = None,
                 rematch_of: PreviousGame | None = None,
                 parts: TableParts | None = None, bot_level: str | None = None,
                 leaves_after: bool = False,
                 rejoin_rematch: Callable[[bytes], PreviousGame | None] | None = None,
                 where: str | None = None) -> None:
        self.identity = identity
        self.key = identity.public_key_bytes()
        self.data_dir = data_dir
        self.name = name
        self.host = host
        self.port = port
        #: how the lines that name the host say where it is (default ``host:port``; a
        #: wormhole guest: its invitation, not the stand-in address it keeps)
        self.where = where or f"{host}:{port}"
        self.net = net or NetSettings()
        self.seed_maker = seed_maker
        #: what the game's table is assembled with from above net/ (the open-hand player)
        self.parts = parts
        self.wrap = wrap
        #: opens a fresh connection to the host (default: TCP to host:port); e.g. a
        #: wormhole subchannel (:class:`splitnet.net.wormhole.WormholeConnector`), or an
        #: in-memory one in the tests
        self.connect = connect
        #: the join code, kept in the game's meta file so a restart reconnects by itself
        self.code = code
        #: a bot's level, said to the host in each lobby it is let into (a ``bot``
        #: frame, NETWORK.md §4: the host's lobby lists it); None for a person
        self.bot_level = bot_level
        self.table: Table | None = None
        if resume is not None:
            self.table = Table.load(identity, GameFiles(data_dir, resume.gid), seed_maker,
                                    parts)
            self.name = resume.name
        self.lobby_players: list[str] = []
        self.lobby_keys: list[bytes] = []  # identity keys, in the order of lobby_players
        self.lobby_seats: int | None = None
        #: the game the host's lobby is for, in words, and its seat limit (a "game" frame;
        #: none: the first game's, NETWORK.md §4)
        self.lobby_game = FIRST.title
        self.lobby_max = FIRST.max_players
        self.host_key: bytes | None = None
        self.ch: Channel | None = None
        self.target = 0
        self.epoch = 0
        self.states: dict[int, tuple[Presence, int]] = {}
        self.net_status: str | None = "connecting…"
        self.listeners: list[Callable[[], None]] = []
        #: (code, reason, kind, counter) of every error frame the host sent us
        self.refusals: list[tuple[str, str, str | None, int | None]] = []
        self.error_hooks: list[Callable[[HostError], None]] = []
        #: other seats' refused messages with a failed proof: (seat, kind, reason), as
        #: many of each seat as ``net.max_evidence``/``max_evidence_bytes`` allow
        self.evidence: list[tuple[int, str, str]] = []
        self.evidence_kept = EvidenceBudget(self.net)
        self.frame_hooks: list[Callable[[Frame], None]] = []
        self.fatal: str | None = None
        #: the exception behind a fatal refusal of the connection (e.g. the join-code
        #: layer's WrongCode), for a caller that may ask the user again
        self.fatal_cause: BaseException | None = None
        #: the code of the host's fatal refusal that ended this node, if one did
        self.fatal_code: ErrorCode | None = None
        #: connecting → lobby → playing → finished, or failed (join_state.py)
        self.session = JoinMachine(resumed=self.table is not None)
        self._inflight: set[int] = set()  # counters sent on this connection, not logged
        #: our moves among them: counter → (msg bytes, sig, body), to check a refusal
        self._moves_inflight: dict[int, tuple[bytes, bytes, dict[str, Any]]] = {}
        #: this peer's clocks on its host (NETWORK.md §7; waits.py): what it holds the
        #: host's orders, give-ups and call-offs against
        self.clocks = HostWatch(self.net)
        self._finished_at: float | None = None
        self._ack_task: asyncio.Task[None] | None = None
        #: our acks and the other seats' relayed ones (join_acks.py, NETWORK.md §6)
        self.acks = AckBook()
        self.task: asyncio.Task[None] | None = None
        self.started_evt = asyncio.Event()
        #: the host of our finished game said it offers no rematch of it (its ``answer``
        #: no, before its bye: §13): nothing to look for
        self.host_offers_no_rematch = False
        #: its attempts, their bound and what it does between them (join_link.py); made
        #: anew by each run()
        self.link = Link(self.net, self.where, rematch=rematch_of is not None)
        #: the host said (``welcome.ready`` false) it restarted and waits for every seat:
        #: what the status line and the clocks go by, never the status's text
        self.host_resuming = False
        #: this seat will not stay for a rematch: as its game ends (before its final
        #: ack) it tells the host so (``answer`` no), and a rematch offered after it
        #: ends at once naming it instead of waiting for it (§13)
        self.leaves_after = leaves_after
        #: a joiner started afresh (its program restarted in a rematch lobby: its game is
        #: over, so there is none to resume) that the host offers the rematch of game G:
        #: this gives our own finished copy of G, or None if this data dir holds none.
        #: It then looks for that rematch as the node before it did (``rematch_of``);
        #: without a copy, or with ``leaves_after``, it says no (§13)
        self.rejoin_rematch = rejoin_rematch
        #: looking for the rematch of a finished game, and our answers to its offer
        #: (NETWORK.md §13, join_rematch.py)
        self.rematch = RematchSide(rematch_of, leaves_after=leaves_after,
                                   rejoin=rejoin_rematch is not None,
                                   started=self.table is not None, where=self.where)
        #: how many watch, as the host last said (``watching``, NETWORK.md §14.10): what
        #: the screens show, changed at most every few seconds; nothing else reads it
        self.watching = WatchingBoard()
        self._watching_timer: asyncio.TimerHandle | None = None
        self._bad_frames = 0  # frames from the host ignored on this connection
        if self.table is not None:
            self._attach()

    _resuming = "the host restarted: waiting for every player to reconnect"

    # ------------------------------------------------------------------ plumbing
    @property
    def rematch_of(self) -> PreviousGame | None:
        """The finished game whose rematch this node looks for (or plays), if any."""
        return self.rematch.prev

    @property
    def offer(self) -> Rematch | None:
        """The host's rematch offer, once it came (§13)."""
        return self.rematch.offer

    @offer.setter
    def offer(self, offer: Rematch | None) -> None:
        self.rematch.hold(offer)

    @property
    def offer_agreed(self) -> list[int]:
        """The seats that agreed to the offer so far (the host's last word)."""
        return self.rematch.agreed

    def subscribe(self, callback: Callable[[], None]) -> None:
        self.listeners.append(callback)

    def watching_status(self) -> str:
        """``'2 watching (Cy, Di)'`` as the host last said, or ``''``."""
        return self.watching.line()

    def _changed(self) -> None:
        for cb in list(self.listeners):
            cb()

    def start(self) -> asyncio.Task[None]:
        if self.task is None:
            self.task = asyncio.get_running_loop().create_task(self.run())
        return self.task

    @staticmethod
    def _now() -> float:
        """The joiner's clock: the running event loop's time (monotonic; every timeout
        and back-off is measured on it, so a test's loop with virtual time drives them)."""
        return asyncio.get_running_loop().time()

    @property
    def ready(self) -> bool:
        return self.synced and self.ch is not None

    @property
    def synced(self) -> bool:
        """Caught up with the host on this connection (the session is PLAYING)."""
        return self.session.state is JoinState.PLAYING

    @property
    def done(self) -> bool:
        """Our copy of the game's log is complete (the session is FINISHED)."""
        return self.session.state is JoinState.FINISHED

    def _over(self) -> None:
        """The game is over here: nothing left to fetch."""
        self.session.fire(JoinEvent.OVER)

    @property
    def _finished_here(self) -> bool:
        return self.table is not None and self.table.core.finished

    def _attach(self) -> None:
        assert self.table is not None
        self.table.listeners.append(lambda entry: self._changed())
        self.started_evt.set()

    def seat_states(self) -> dict[int, tuple[Presence, int]]:
        return dict(self.states)

    def send_frame(self, frame: Frame) -> None:
        if self.ch is None:
            raise ChannelClosed("not connected")
        self.ch.send(encode_typed(frame))

    def send_game(self, kind: str, body: dict[str, Any]) -> bool:
        """Sign and send one of our seat's messages; False when not connected (nothing
        was signed: the log, not memory, says what was sent)."""
        table = self.table
        if table is None or not self.ready:
            return False
        counter = table.author.counter
        msg, sig = table.author.message(kind, body, seen=table.log.seen())
        try:
            self.send_frame(Msg(msg, sig))
        except (ChannelClosed, WireError):
            table.author.counter = counter
            return False
        self._inflight.add(counter)
        if kind == "move":
            self._moves_inflight[counter] = (msg, sig, body)
        self.clocks.sent(self._now())
        return True

    # ------------------------------------------------------------------ connecting
    def offer_wait_left(self) -> float | None:
        """Seconds this rematch node still looks for the host's offer before it gives
        up (``rematch_wait``, from its start: §13); None once offered, or not looking."""
        if self.rematch.since is None:
            return None  # (not looking: asks no clock, so a screen may ask before run)
        return self.rematch.wait_left(self._now(), self.net.rematch_wait)

    def accepts_left(self) -> float | None:
        """Seconds before an honest host calls off the game some seat has not accepted
        yet (the header's ``answer_s`` from when this peer got it, or came back: NETWORK.md
        §4); None when every seat has, or there is no game."""
        t = self.table
        if t is None or t.started or self.fatal is not None:
            return None
        return self.clocks.accepts_left(self._now(), t.core.limits.answer_s)

    def offer_left(self) -> float | None:
        """Seconds the host's rematch lobby still waits for every yes, as its last
        ``clock`` said (§13); None before one, or once the rematch began."""
        if self.rematch.until is None:
            return None
        return self.rematch.offer_left(self._now())

    async def run(self) -> None:
        """The thin shell over :class:`~splitnet.net.join_link.Link`: each attempt's
        outcome goes to the link, which says what to do next (NETWORK.md §11.9)."""
        self.rematch.look_from(self._now())
        if self._finished_here and self._finished_at is None:
            self._finished_at = self._now()  # resumed on a finished log
        # a rematch's offer is waited for at most rematch_wait (§13)
        link = self.link = Link(self.net, self.where, rematch=self.rematch_of is not None,
                                in_game=self.table is not None, now=self._now())
        try:
            while True:
                link.dialing(self._now())
                try:
                    raw = await self._open()
                except (OSError, TimeoutError) as e:
                    step = link.unreachable(self._now(), _reason(e), self._log_view())
                else:
                    step = await self._connected(raw)
                if isinstance(step, Finish):
                    if not self.session.final:
                        self._over()
                    break
                if isinstance(step, Quit):
                    raise HostGone(step.line)
                self.net_status = step.status
                self._changed()
                await asyncio.sleep(step.seconds)
        except PeerFatal as e:
            link.fault()
            self.fatal = self.net_status = str(e)
            self.session.fire(JoinEvent.FAIL)
            _log.error("%s", e)
            self._changed()
            raise
        finally:
            if self._watching_timer is not None:
                self._watching_timer.cancel()
                self._watching_timer = None
            ack, self._ack_task = self._ack_task, None
            if ack is not None:
                ack.cancel()
                await asyncio.wait([ack])
            if self.table is not None:
                self.table.close()

    async def _open(self) -> Channel:
        """A fresh connection to the host (its own connector's, or TCP)."""
        if self.connect is not None:
            return await self.connect()  # keeps its own clock
        async with asyncio.timeout(self.net.connect_timeout):
            reader, writer = await asyncio.open_connection(self.host, self.port,
                                                           limit=1 << 20)
        return StreamChannel(reader, writer, max_buffer=self.net.max_send_buffer)

    def _log_view(self) -> Log:
        """Our copy of the log, as the link asks of it."""
        return Log(finished=self._finished_here, confirmed=not self.unconfirmed(),
                   finished_at=self._finished_at, over=self.session.final)

    async def _connected(self, raw: Channel) -> Step:
        """One connection, from its handshake to its end: how it ended, for the link."""
        end = End(Cause.LOST)
        try:
            await self._session(raw)
        except asyncio.CancelledError:
            self._stopping()  # (a seat stopped in the rematch lobby says so)
            raise
        except RematchNotYet:
            end = End(Cause.NOT_YET)  # its end screen is up: the offer may still come
            _log.info("the host is still on the game we finished; waiting for its "
                      "rematch offer")
        except HostLeft as e:
            end = End(Cause.HOST_LEFT, e.reason)
        except (ChannelClosed, ConnectionError, TimeoutError,
                asyncio.IncompleteReadError) as e:
            if not self.session.final:
                _log.info("connection to the host lost (%s); reconnecting",
                          type(e).__name__)
        except WireError as e:
            if e.fatal:
                self.fatal_cause, self.fatal_code = e.__cause__, e.code
                raise PeerFatal(f"{e.code}: {e.reason}") from None
            _log.warning("host connection: %s", e)
            end = End(Cause.SENT_AWAY, e.reason)
        finally:
            self.ch = None
            self._inflight.clear()
            self._moves_inflight.clear()
            self.clocks.lost()  # (no wait is seen live across the gap)
            self.watching.lost()  # (the next host says again; this one may not)
            raw.close()
            self.epoch += 1
        step = self.link.ended(self._now(), end, self._log_view())
        if not self.session.final and not isinstance(step, Finish):
            if self.session.state is JoinState.LOBBY:
                self.lobby_players, self.lobby_keys = [], []
            self.session.fire(JoinEvent.LOST)
            self.host_resuming = False
            self.net_status = step.status if isinstance(step, Wait) else None
        self._changed()
        return step

    async def _recv(self, ch: Channel, timeout: float) -> Frame:
        while True:
            try:
                # asyncio.timeout, not wait_for: on 3.11 wait_for can swallow a cancel
                # that arrives as a frame does, and the node would never stop
                async with asyncio.timeout(timeout):
                    payload = await ch.recv()
            except FrameTooLarge as e:
                raise WireError(ErrorCode.TOO_BIG, str(e)) from None
            try:
                f = decode_frame(payload, from_host=True)
            except WireError as e:
                # ignored, each one; said in a line for the first few of a connection
                # only (a host sending thousands prints no thousands of lines)
                self._bad_frames += 1
                if self._bad_frames <= MAX_BAD_FRAME_LINES:
                    _log.warning("ignored a bad frame from the host: %s", e)
                elif self._bad_frames == MAX_BAD_FRAME_LINES + 1:
                    _log.warning("ignoring more bad frames from the host on this "
                                 "connection without a line each")
                continue
            for hook in self.frame_hooks:
                hook(f)
            return f

    async def _session(self, raw: Channel) -> None:
        async with asyncio.timeout(self.net.handshake_timeout):
            ch = await self.wrap(raw, "client")
        self._bad_frames = 0
        until = self._now() + self.net.handshake_timeout
        f = await self._recv(ch, self.net.handshake_timeout)
        while isinstance(f, Watching):  # (no news before the welcome: §14.10)
            f = await self._recv(ch, max(0.0, until - self._now()))
        table = self.table
        bind = binding_of(ch)
        f = check_challenge(f, bind, prev=self.rematch_of if table is None else None,
                            game_host=(None if table is None
                                       else table.log.header.key(table.host_seat)))
        self.host_key = f.key
        game = table.game_id if table else None
        have = len(table.log) if table else 0
        head = table.log.head() if table else None
        ch.send(encode_typed(Hello(NET_PROTOCOL, self.name, self.key,
                                   sign_hello(self.identity, f.nonce, f.key, self.name,
                                              game, have, bind),
                                   game, have, head, bind)))
        w = await self._recv(ch, self.net.handshake_timeout)
        # the host pings every connection, also this one already; a ``watching`` before
        # the welcome is no news of a game we are in (§14.10). Neither holds us past the
        # handshake's bound
        until = self._now() + self.net.handshake_timeout
        while isinstance(w, Ping | Watching):
            if isinstance(w, Ping):
                ch.send(encode_typed(Pong(w.n)))
            w = await self._recv(ch, max(0.0, until - self._now()))
        if isinstance(w, HostError):
            if w.fatal and w.code == ErrorCode.CLOSED.value and table is not None:
                self._called_off(w.reason)
            raise refused_by_host(w, fatal=w.fatal)
        if not isinstance(w, Welcome):
            raise WireError(ErrorCode.PROTOCOL, f"expected welcome, got {w.T!r}")
        self.ch = ch
        self.link.welcomed(self._now())
        lobby = table is None and w.seat is None
        self.session.fire(JoinEvent.LOBBY if lobby else JoinEvent.PLAY)
        if lobby and self.bot_level is not None:
            ch.send(encode_typed(BotLevel(self.bot_level)))
        self.acks.acked = -1  # a restarted host knows none of our acks: send ours again
        self._host_ready(w.ready)
        self.target = w.count
        if table is not None and len(table.log) >= self.target:
            self._synced()
        elif table is None:
            self.net_status = None
        self._changed()
        while not self.done:
            timeout = self.link.read_timeout(self._now(), self._log_view())
            if timeout is None:
                self._over()  # the host never said bye; our copy is complete
                return
            began = self._now()
            frame = await self._recv(ch, timeout)
            if self._now() - began > timeout + self.clocks.late():
                self._slept(self._now() - began)
            self._handle(ch, frame)
            self._watch()

    # ------------------------------------------------------------------ frames
    def _host_ready(self, ready: bool) -> None:
        """The host's welcome says whether it holds messages until every seat is back
        (``ready`` false: it restarted, §7)."""
        self.host_resuming = not ready
        self.net_status = self._resuming if self.host_resuming else None

    def _handle(self, ch: Channel, f: Frame) -> None:
        match f:
            case Rec(seq, record):
                self._on_record(seq, record)
            case Ping(n):
                ch.send(encode_typed(Pong(n)))
            case Acks(acks):
                for raw in acks:
                    self._on_ack(raw)
            case Peers(peers):
                self.states = {p.seat: (p.state, p.quiet) for p in peers}
                self._changed()
            case Offer():
                self._on_offer(ch, f)
            case Lobby(players, seats):
                if (line := self.rematch.lobby()) is not None:
                    raise PeerFatal(line)
                self.lobby_players = [p.name for p in players]
                self.lobby_keys = [p.key for p in players]
                self.lobby_seats = seats
                self._changed()
            case GameName(game, most):
                self.lobby_game, self.lobby_max = shown(game, limit=16), most
                self._changed()
            case Need(start):
                self._hand_back(ch, start)
            case Clock(left):
                if self.rematch.clock(self._now(), left):
                    self._changed()
            case Watching(count, names):
                self._on_watching(count, names)
            case HostError():
                self._on_error(f)
            case Bye(reason):
                means, line = bye(reason, finished=self._finished_here,
                                  lobby=self.session.state is JoinState.LOBBY,
                                  rematch=self.rematch_of is not None)
                if means is ByeMeans.OVER:
                    self._over()
                elif means is ByeMeans.CLOSED:  # no game will start (§4; §13 says why)
                    raise HostClosed(line)
                else:  # keep trying: a host that shut down may resume the game
                    raise HostLeft(line)
            case Evidence():
                self._on_evidence(f)
            case Answer(game, yes):  # (the host offers no rematch of our finished game)
                if (not yes and self._finished_here and self.table is not None
                        and game == self.table.game_id):
                    self.host_offers_no_rematch = True
            case Welcome(count=count, ready=ready):  # a restarted host has every seat back
                self.target = max(self.target, count)
                self._host_ready(ready)
                self._changed()
            case _:  # (a challenge again, pong: nothing to do)
                pass

    def _on_watching(self, count: int, names: tuple[str, ...]) -> None:
        """The host's word on who watches (§14.10): shown at most every few seconds —
        a flood of them redraws nothing more often — and nothing else changes."""
        later = self.watching.heard(count, names, now=self._now())
        if later == 0.0:
            self._changed()
        elif later is not None and self._watching_timer is None:
            self._watching_timer = asyncio.get_running_loop().call_later(
                later, self._watching_due)

    def _watching_due(self) -> None:
        self._watching_timer = None
        if self.watching.flush(now=self._now()):
            self._changed()

    def _on_error(self, f: HostError) -> None:
        self.refusals.append((f.code, f.reason, f.kind, f.counter))
        for hook in self.error_hooks:
            hook(f)
        if not f.fatal and (f.code, f.reason) == ("schema",
                                                           "unknown frame type 'bot'"):
            # a host from before the bot frame (NETWORK.md §4): only its lobby misses it
            _log.warning("the host runs an older splitnet that does not list a bot's level "
                         "(%s): it plays on without", self.bot_level)
            return
        _log.warning("the host refused %s: %s: %s", f.kind or "a frame", f.code,
                     f.reason)
        ours = f.counter is not None and f.counter in self._inflight
        if ours:
            # first: a fatal refusal must not hide one (join_checks.judge_refused_move)
            judge_refused_move(self.table, f, None if f.counter is None
                               else self._moves_inflight.get(f.counter), self.send_game)
        if f.fatal and f.code == ErrorCode.CLOSED.value and self.table is not None:
            self._called_off(f.reason)
        if f.fatal:
            if ErrorCode.received(f.code) in _CLOSED_BY_HOST:
                raise ChannelClosed(f"closed by the host: {f.code}")
            raise refused_by_host(f, fatal=True)
        self._changed()
        if ours:
            # One of our own messages was refused: every later one in flight is doomed
            # (counters must be consecutive). Start over from the log: reconnect, catch
            # up, forget what was never logged.
            raise ChannelClosed(f"the host refused our message {f.counter} "
                                f"({f.code}); resynchronising")

    def _called_off(self, reason: str) -> NoReturn:
        """The host called off a game not yet begun: some seat did not accept the header
        within the answer wait (NETWORK.md §4). Nothing secret has flowed, so it costs
        nobody anything — but it is the host's word, held against what this peer knows:
        a call-off after every seat accepted, one while our own accept is not ordered
        long after we sent it, or one much sooner than the header's ``answer_s`` since
        this peer got the header live, names the host. Otherwise the game is saved as
        over and this peer stops with the host's reason."""
        table = self.table
        assert table is not None
        why = shown(reason, limit=200)
        fault = self.clocks.call_off_fault(
            self._now(), why, started=table.started,
            ours_accepted=table.seat in table.log.accepted, host=table.host_seat,
            answer_s=table.core.limits.answer_s)
        if fault is not None:
            raise PeerFatal(fault)
        self._mark_finished()
        raise HostClosed(f"the game did not start: the host called it off: {why}")

    def _on_evidence(self, f: Evidence) -> None:
        """The host shows another seat's refused message (join_checks.take_evidence)."""
        kept = None if self.table is None else take_evidence(self.table, f,
                                                             self.evidence_kept)
        if kept is not None:
            self.evidence.append(kept)
            self._changed()

    def _on_record(self, seq: int, record: bytes) -> None:
        if self.table is None:
            if seq != 0:
                raise WireError(ErrorCode.PROTOCOL, f"record {seq} before the game header")
            self._start(record)
            return
        table = self.table
        n = len(table.log)
        if seq < n:
            mine = table.log.entries[seq].record
            if mine == record:
                return
            at = prove_equivocation(mine, record, table.log.header.key(table.host_seat))
            if at is None:  # not both the host's: no proof, but not our log either
                self._fork(f"the host sent another record for seq {seq} than the one we "
                           "hold (not validly signed: no proof)")
            evidence = table.files.transcript.with_suffix(".fork")
            with contextlib.suppress(OSError):
                _write_private(evidence, fork_evidence(TAG_FORK_RECORDS, mine, record))
            self._fork(f"the host signed two different records for seq {at} — it "
                       f"equivocated (the proof: {evidence}; splitnet verify shows it)")
        if seq > n:
            raise PeerFatal(f"the host skipped records {n}…{seq - 1} [host at fault]")
        seen = self.clocks.seen(self._now(), set(table.core.waiting_for()),
                                table.core.owed_step) if self.synced else {}
        try:
            entry = table.add_record(record)
        except LogError as e:
            raise PeerFatal(f"bad record from the host: {e}") from None
        except GameError as e:
            raise PeerFatal(f"the host ordered a message the game refuses: {e} "
                            f"[host seat {table.host_seat} at fault]") from None
        if entry.author == table.seat:
            self._inflight.discard(entry.counter)
            self.clocks.ordered_ours(self._now(), bool(self._inflight))
        if entry.author == table.host_seat and entry.kind != "chat":
            self.clocks.host_owes_since = None  # it answered; its clock starts again
        if entry.kind in ("timeout", "abandon") and entry.author == table.host_seat:
            self._check_give_up(entry.kind, entry.body, seen)
        self._note_waits(entry.author)
        verdict = table.core.verdict
        if entry.kind == "timeout" and verdict is not None and verdict.seat == table.seat:
            # (a message sent just now crossed it: we were late; one long unordered not)
            if (fault := self.clocks.timed_us_out_fault(self._now(),
                                                        table.host_seat)) is not None:
                raise PeerFatal(fault)
        if table.core.finished and self._finished_at is None:
            self._finished_at = self._now()
        if not self.synced and len(table.log) >= self.target:
            self._synced()
        elif self.synced:
            self._pump()
        for a in self.acks.due(len(table.log)):
            self._compare_ack(a)
        self._schedule_ack(now=table.core.finished)

    def _note_waits(self, author: int | None = None) -> None:
        """Start this peer's own clock on a seat when, in sync on a live connection, it
        sees the game *begin* to wait for it (:meth:`HostWatch.note_waits
        <splitnet.net.waits.HostWatch.note_waits>`): a seat already awaited when this
        peer (re)synced has no clock until then, so an honest host is never named for a
        wait this peer saw only the end of."""
        table = self.table
        live = table is not None and self.synced and not table.core.finished
        waiting = set(table.core.waiting_for()) if table is not None and live else set()
        self.clocks.note_waits(self._now(), live, waiting, author)

    def _check_give_up(self, kind: str, body: dict[str, object],
                       seen: dict[int, tuple[float, str]]) -> None:
        """The host's ``timeout`` or ``abandon`` of a seat, held against this peer's own
        clock (GAME.md "limits", NETWORK.md §7): a seat given up sooner than agreed, or
        ours while the host had not ordered a message we sent, names the host."""
        table = self.table
        assert table is not None
        fault = self.clocks.give_up_fault(
            self._now(), kind, body, seen, ours=table.seat, host=table.host_seat,
            names=tuple(table.names), limits=table.core.limits,
            in_flight=bool(self._inflight))
        if fault is not None:
            raise PeerFatal(fault)

    def _watch(self) -> None:
        """A host that stalls the game is named (NETWORK.md §7): one that does not order
        our message within ``answer_timeout`` (plus ``host_timeout``), does not call off
        a game some seat has not accepted, or whose own seat owes the game a message
        longer than its limit plus ``host_timeout`` (:meth:`HostWatch.tick
        <splitnet.net.waits.HostWatch.tick>`)."""
        table = self.table
        view = None
        if table is not None:
            live = self.synced and not table.core.finished and not self.host_resuming
            host = table.host_seat
            view = HostView(
                live=live, started=table.started, limits=table.core.limits,
                names=tuple(table.names), accepted=frozenset(table.log.accepted), host=host,
                host_owes=(table.core.owed_step(host)
                           if live and table.started and host in table.core.waiting_for()
                           else None))
        fault, changed = self.clocks.tick(self._now(), view)
        if changed:
            self._changed()
        if fault is not None:
            raise PeerFatal(fault)

    def _slept(self, gap: float) -> None:
        """This program did not run for ``gap`` s — stopped (Ctrl-Z, then ``fg``), its
        machine asleep: its clocks on the host start again, and what it reads for
        ``host_timeout`` after starts none (:meth:`HostWatch.slept
        <splitnet.net.waits.HostWatch.slept>`; NETWORK.md §7)."""
        _log.warning("this program was not running for %.0f s (stopped or asleep): its "
                     "clocks on the host start again", gap)
        self.clocks.slept(self._now())

    def _on_offer(self, ch: Channel, f: Offer) -> None:
        """The host's rematch offer (§13): it must be of the game we finished, ending at
        our final head, with the next first dealer; we agree once per connection."""
        side = self.rematch
        copy = (self.rejoin_rematch(f.game) if side.wants_copy()
                and self.rejoin_rematch is not None else None)
        reply = side.offered(f.game, f.head, f.first_dealer, f.agreed, conn=ch, copy=copy)
        if reply.stop is not None:
            if reply.send is not None:
                with contextlib.suppress(ChannelClosed, WireError, ConnectionError):
                    ch.send(encode_typed(reply.send))
            raise PeerFatal(reply.stop)
        if side.looking:
            self.link.rematch = True  # (started afresh: its give-up line is a rematch's)
        if reply.send is not None:
            ch.send(encode_typed(reply.send))
        if side.state is AnswerState.OFFERED:
            self._changed()

    async def decline(self, why: str = "") -> None:
        """Say no to the rematch (or leave its lobby): the host ends it for everyone."""
        ch = self.ch
        frame = self.rematch.decline(why) if ch is not None else None
        if ch is not None and frame is not None:
            # (a host that reads nothing: the answer was queued, the wait given up)
            with contextlib.suppress(ChannelClosed, WireError, ConnectionError, TimeoutError):
                ch.send(encode_typed(frame))
                await asyncio.wait_for(ch.drain(), 2.0)

    def _stopping(self) -> None:
        """This node is stopped (its program ends: Ctrl-C, SIGTERM, its own wait) while
        it is in a rematch lobby: it says so with a ``bye`` as it goes, so the host ends
        the rematch at once instead of waiting for a seat that will not come back. (A
        process killed outright says nothing: its seat merely dropped, §13.)"""
        ch, frame = self.ch, self.rematch.stopping()
        if ch is None or frame is None:
            return
        with contextlib.suppress(ChannelClosed, WireError, ConnectionError):
            ch.send(encode_typed(frame))

    def _start(self, header: bytes) -> None:
        """The host started the game: verify the header, save the meta file, accept."""
        check_limits(header, self.net.limits())
        self.table = Table.from_header(self.identity, self.data_dir, header, self.seed_maker,
                                       follows=self.rematch_of, parts=self.parts)
        self.rematch.started()
        table = self.table
        table.files.save_meta(meta_now(game_id=table.game_id.hex(), role="peer",
                                       seat=table.seat, name=self.name,
                                       host=host_port(self.host, self.port), port=self.port,
                                       code=self.code))
        _log.info("game %s started: seat %d of %s", table.game_id.hex(), table.seat,
                  ", ".join(table.names))
        self._attach()
        if self.session.state is JoinState.CATCHING_UP:
            # welcomed back to our seat before we held the header (our connection was lost
            # as the lobby filled): the header is record 0 of those we are catching up on
            if len(table.log) >= self.target:
                self._synced()
            return
        self.session.fire(JoinEvent.PLAY)
        self.target = 1
        # (just woken, the header may have waited unread: not got live, §7)
        self.clocks.got_header(self._now())
        self._synced()

    def _synced(self) -> None:
        """Caught up with the host: resume our counter, forget unlogged messages (the
        host never got them), accept the header if we have not yet, send what we owe."""
        table = self.table
        assert table is not None
        self.session.fire(JoinEvent.SYNCED)
        # from here on this peer sees waits begin (its own clock, NETWORK.md §7); the
        # seats awaited now it saw only the end of
        self.clocks.synced(self._now(), set(table.core.waiting_for()), table.core.finished,
                           table.started)
        if not self.host_resuming:
            self.net_status = None
        table.author.counter = table.log.next_counter(table.seat)
        table.core.forget_unlogged()
        if table.seat not in table.log.accepted:
            counter = table.author.counter
            msg, sig = table.author.accept(table.log.header_hash)
            self.send_frame(Msg(msg, sig))
            # watched as every message of ours (_watch): a host that never orders it
            # would stall the game before it starts, and no other clock runs then
            self._inflight.add(counter)
            self.clocks.sent(self._now())
        self._pump()
        self._schedule_ack(now=True)
        self._changed()

    def _pump(self) -> None:
        table = self.table
        if table is None or not self.ready or not table.started:
            return
        try:
            out = table.core.outbox()
        except PledgeRefused as e:  # GAME.md "Pledges": nothing was made or sent
            raise PeerFatal(str(e)) from None
        if table.core.refused is not None:  # (refused to make a move)
            raise PeerFatal(str(table.core.refused))
        for kind, body in out:
            if not self.send_game(kind, body):
                return

    def _hand_back(self, ch: Channel, start: int) -> None:
        """The host restarted with fewer records than we hold (its unsynced tail was
        lost): hand back the records it signed."""
        table = self.table
        if table is None:
            return
        for e in table.log.entries[start:]:
            ch.send(encode_typed(Rec(e.seq, e.record)))

    # ------------------------------------------------------------------ acks
    def _schedule_ack(self, now: bool = False) -> None:
        if self._ack_task is not None and not self._ack_task.done():
            return
        # kept in _ack_task: one at a time, cancelled and awaited when run() ends
        self._ack_task = asyncio.get_running_loop().create_task(
            self._ack(0.0 if now else self.net.ack_interval))

    async def _ack(self, delay: float) -> None:
        if delay:
            await asyncio.sleep(delay)
        table = self.table
        if table is None:
            return
        durable = await asyncio.to_thread(table.transcript.sync)
        seq = self.acks.to_ack(durable=durable, length=len(table.log))
        if seq is None or self.ch is None:
            return
        ack = make_ack(self.identity, table.game_id, seq, table.log.hash_at(seq),
                       seat=table.seat)
        last = table.core.finished and seq == len(table.log) - 1
        with contextlib.suppress(ChannelClosed, WireError):
            if last and self.leaves_after and table.core.verdict is None:
                # before the final ack: the host has it before its game is done (§13)
                self.send_frame(Answer(table.game_id, False))
            self.send_frame(AckFrame(ack))
            self.acks.acked = seq
        if table.core.finished and seq == len(table.log) - 1:
            self._mark_finished()
        self._ack_task = None
        if seq < len(table.log) - 1:
            self._schedule_ack(now=table.core.finished)

    def _mark_finished(self) -> None:
        table = self.table
        assert table is not None
        with contextlib.suppress(OSError, ValueError):
            table.files.mark_finished()

    def _on_ack(self, raw: bytes) -> None:
        table = self.table
        if table is None:
            return
        a = self.acks.relayed(table.log, raw)
        if a is not None:
            self._compare_ack(a)

    def unconfirmed(self) -> list[int]:
        """Seats (not us, not the host, not an open-handed one) whose signed ack of our
        last record we have not seen. At the end of a game an honest host has relayed
        every seat's final ack (a restarted host too: it keeps them on file): a seat
        missing here left early, or the host withheld its acks — which would hide a fork
        (SECURITY.md §4): compare transcripts with that player. An open-handed seat
        (R8.6) holds no key share and sends nothing: its ack is compared if it comes,
        never awaited."""
        table = self.table
        if table is None:
            return []
        return self.acks.unconfirmed(n=table.n, last=len(table.log) - 1,
                                     skip={table.seat, table.host_seat, *table.core.open_seats})

    def _compare_ack(self, a: Ack) -> None:
        table = self.table
        assert table is not None
        if self.acks.matches(table.log, a):
            return
        raw = make_ack(self.identity, table.game_id, a.seq, table.log.hash_at(a.seq),
                       seat=table.seat)
        mine = table.log.check_ack(raw)
        fork = detect_fork([mine, a], host=table.host_seat)
        why = fork.reason if fork else f"seat {a.seat} acked another head at seq {a.seq}"
        evidence = table.files.transcript.with_suffix(".fork")
        with contextlib.suppress(OSError):
            _write_private(evidence, fork_evidence(TAG_FORK_ACKS, raw, a.raw))
        self._fork(why + f" (evidence: {evidence})")

    def _fork(self, why: str) -> None:
        raise PeerFatal(f"fork: {why}")


def _reason(e: BaseException) -> str:
    """A failed connect in words ("connection refused", "timed out")."""
    if isinstance(e, TimeoutError):
        return "no answer"
    if isinstance(e, OSError) and e.strerror:
        return e.strerror.lower()
    return type(e).__name__

