"""The network-level adversary (no tests in here; tests/test_adversary_net.py runs it):
whole LAN games of a real :class:`~splitnet.net.host.HostNode` and two (or more) real
:class:`~splitnet.net.peer.PeerNode` joiners over the in-memory network on the virtual
clock (tests/memnet.py, tests/virtual_time.py; tests/test_attacks_net.py's :class:`Lan`),
one of them dishonest, choosing from a seeded :class:`random.Random` at every frame
it sends and, as the host, at every message it orders.

A dishonest host (:class:`RogueHost`), at each frame to one guest (a record, a ping, a
relayed ack, a ``peers`` or ``evidence`` frame; never the header), and at each guest
message it is to order:

    drop       the frame is not sent to that guest / the message is never ordered
    delay      the frame and every later one to that guest are held 0.05–3 s, then sent
               in order / the message is ordered 0.05–3 s later
    duplicate  the frame is sent twice / the message is given to the ordering twice
    replay     an old record is sent to that guest again after the frame / before
               ordering the message, an old message of that seat is given to the
               ordering again — or, blindly, signed into a record at the head and sent
               to every guest
    reorder    the frame is held and sent after the next one to that guest
    refuse     a legal message gets an ``error`` frame: with the host's valid signed
               refusal, with none, or with one whose signature is broken
    stall      the host goes quiet for 3–12 s — longer than any guest's ``host_timeout``
               and answer wait — as a stopped program does (Ctrl-Z, a machine asleep): it
               sends no frame to anyone (the handshakes of new connections too), orders
               no message and runs no heartbeat, then sends and orders all of it in order
               (at most twice a game)

A dishonest guest (:class:`RogueGuest`), at each frame it sends and each message its
seat makes:

    twice      the frame is sent twice
    replay     an old message of its own (in the log already) is sent first
    range      the message goes out with one integer field out of range (signed, with
               its counter), instead of the right one
    turn       a move out of turn goes out instead (a draw when another seat is to
               move; on its turn, a move for the next round; Splito: a commitment for
               the next turn)
    garbage    a frame of random bytes is sent first
    silence    this frame and every later one are held 0.25–3 s, then sent in order

A dishonest watcher (side ``watcher``: every seat honest; a plan with ``watch``, its
Wes), at each frame it sends and each it reads (NETWORK.md §14):

    garbage    a frame of random bytes is sent first
    game       a game frame is sent first: a record it holds sent back as a ``msg``, an
               ``ack``, a ``bye``, a ``rec``
    lie        a ``ping`` claiming records it never had (or fewer) is sent first
    twice      the frame is sent twice
    deaf       it reads nothing for 0.5–20 s
    drop       it drops its connection (and comes back, as its node does)
    storm      it opens 3–8 more connections to the host that say nothing, closed
               0.5–20 s later

The **oracle** (:func:`judge`), when the game is over (every wait bounded by virtual
time): each honest node either finished a game its transcript shows fair
(``verify_records``), the same transcript as every other honest node that finished, or
stopped with a verdict or a fatal line naming the dishonest party — the host's own
``timeout`` of an honest seat excepted, which is its word (SECURITY.md §4, row 26),
counted apart — or, before every seat accepted the header, stopped by the host's
call-off (NETWORK.md §4, row 116: the game never began, nothing was lost), counted apart
— an honest host's only if the seats it says did not accept are the dishonest one; no
honest node is left waiting (since row 116 every wait before the start has a clock
too); no task raised anything but
:class:`~splitnet.net.peer.PeerFatal`; every honest transcript on disk reads without
repair, equals that node's log and is a prefix of the longest honest one (the host signs
one log). A plan with ``rematch`` plays the rematch of a game
every seat finished (NETWORK.md §13), the same seat dishonest in it and in its lobby;
both games are judged so, each honest seat's pair must chain (``chain_problem``), and a
rematch that did not begin must have ended every honest node with a "no rematch" line
(the host dishonest: or one naming it) — an honest host's only for a reason that names
the dishonest seat. A plan with ``watch`` has two honest watchers follow its (first) game — Wes from
the start, killed and run again mid-game, Xi joining mid-game (NETWORK.md §14) — judged
by :func:`_judge_watchers`. What each seat can read of the cards is
not checked here: the cores and the log these nodes run are the ones
``splitnet/adversary.py`` plays whole games on with an oracle on every entry (R8, S7).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hashlib
import random
import traceback
from collections import Counter
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from splitnet.adversary import _leaves, _set
from splitnet.app.lan_session import LAN_PARTS, LanSeat, NetSession
from splitnet.game.rematch import PreviousGame
from splitnet.game.table import PROTOCOL
from splitnet.games.split.bots import make_bot
from splitnet.games.split.core import GameCore
from splitnet.games.split.local import game_settings
from splitnet.games.split.rules import DrawPile, Settings, action_to_dict
from splitnet.games.splito import SPLITO as SPLITO_GAME
from splitnet.games.splito.core import ROUND, SplitoCore, splito_header
from splitnet.games.splito.front.lan import SplitoNetSession, splito_bot
from splitnet.games.splito.settings import SplitoSettings
from splitnet.net.config import NetSettings
from splitnet.net.frames import Ack, Bye, Frame, Msg, Ping, Rec, Watching
from splitnet.net.host import Conn, HostNode
from splitnet.net.peer import PeerFatal, PeerNode
from splitnet.net.table import GameChoice, Table
from splitnet.net.watcher import WatchFatal, WatchNode
from splitnet.net.wire import (
    Channel,
    ChannelClosed,
    Connect,
    ErrorCode,
    WireError,
    encode_typed,
)
from splitnet.session.codec import encode
from splitnet.session.identity import Identity
from splitnet.session.log import TAG_ENTRY, make_refusal, parse_message
from splitnet.session.transcript import TranscriptError, read_transcript
from splitnet.verify import LiveVerifier, chain_problem, verify_records
from tests.test_attacks_net import Lan
from tests.virtual_time import until, within

#: what a dishonest host may do (module docstring) …
HOST_KINDS = ("drop", "delay", "duplicate", "replay", "reorder", "refuse", "stall")
#: … to a frame, and to a message it orders
FRAME_KINDS = ("drop", "delay", "duplicate", "replay", "reorder", "stall")
ORDER_KINDS = ("drop", "delay", "duplicate", "replay", "refuse")
#: what a dishonest watcher may do (module docstring), at each frame it sends or reads
WATCHER_KINDS = ("garbage", "game", "lie", "twice", "deaf", "drop", "storm")
#: what a dishonest guest may do, to its frames and to its messages
GUEST_KINDS = ("twice", "replay", "range", "turn", "garbage", "silence")
WIRE_KINDS = ("twice", "garbage", "silence")
MESSAGE_KINDS = ("replay", "range", "turn")

#: short timings, whole seconds where the header agrees them (an answer 2 s, a move 4 s:
#: a peer holds a host's timeout against its own clock less host_timeout)
NET = NetSettings(ping_interval=0.125, silent_after=0.5, host_timeout=0.75,
                  ack_interval=0.0625, final_wait=3.0, retry_first=0.0625,
                  answer_timeout=2.0, move_timeout=4.0, rematch_wait=20.0)
#: seconds of loop time a whole game may take
GAME_LIMIT = 300.0
#: seconds of loop time a watcher may take to end after the players' game
WATCH_LIMIT = 30.0
#: how long a dishonest host's stall lasts (s), and how many a game may have
STALL = (3.0, 12.0)
MAX_STALLS = 2
#: what a fatal line of a joiner says when it names the host
HOST_AT_FAULT = ("[host seat 0 at fault]", "[host at fault]", "[seat 0 at fault]")


def _bytes(seed: int, *what: object) -> bytes:
    return hashlib.sha256(repr((seed, *what)).encode()).digest()


@dataclass(frozen=True)
class Plan:
    """One game: which side deviates and how, Split (``rounds``, ``proofs``, a seat gone
    ``open_hand`` s given up, R8.6) or Splito."""

    seed: int
    side: str  # "host" or "guest"
    kinds: tuple[str, ...]
    rate: float = 0.02
    game: str = "split"
    proofs: bool = False
    rounds: int = 1
    #: Split: the host gives a seat gone this long up, played open-handed (R8.6)
    open_hand: float | None = None
    #: the host's seat and seats − 1 joiners (Split 2–6, R1; Splito 2–8, S1)
    seats: int = 3
    #: a rematch follows a game every seat finished (NETWORK.md §13), the same seat
    #: dishonest in it — in its lobby too (a dishonest host's frames there)
    rematch: bool = False
    #: two honest watchers follow the (first) game (NETWORK.md §14): one from the start,
    #: killed and run again mid-game, one joining mid-game
    watch: bool = False
    #: seconds each bot thinks before a move (0: at once, the whole game in an instant of
    #: loop time; a watcher's plan paces it so that watching is live)
    pace: float = 0.0

    @property
    def net(self) -> NetSettings:
        return dataclasses.replace(NET, open_hand_after=self.open_hand)

    @property
    def adversary(self) -> int:
        """The dishonest seat: the host's, or one of the guests; -1 for a dishonest
        watcher (side "watcher": every seat is honest)."""
        if self.side == "watcher":
            return -1
        return 0 if self.side == "host" else 1 + self.seed % (self.seats - 1)

    def choice(self) -> GameChoice:
        if self.game == "splito":
            return GameChoice(SPLITO_GAME, 8,
                              lambda n: splito_header(SplitoSettings.standard(n), PROTOCOL))
        return GameChoice(header=lambda n: game_settings(Settings(rounds=self.rounds),
                                                         self.proofs))


class Policy:
    """The adversary's choices, from one seeded :class:`random.Random`: at each point it
    may deviate, one of the kinds it may use there at ``rate`` (:meth:`pick`); what it
    did (:attr:`used`, :attr:`notes`) and its pending timers (:attr:`timers`)."""

    def __init__(self, plan: Plan) -> None:
        self.rng = random.Random(plan.seed)
        self.rate = plan.rate
        self.kinds = plan.kinds
        self.used: Counter[str] = Counter()
        self.notes: list[str] = []
        self.timers: list[asyncio.TimerHandle] = []
        self.t0 = asyncio.get_running_loop().time()

    def pick(self, here: Collection[str]) -> str | None:
        kinds = [k for k in self.kinds if k in here]
        if not kinds or self.rng.random() >= self.rate:
            return None
        return self.rng.choice(kinds)

    def did(self, kind: str, what: str) -> None:
        self.used[kind] += 1
        self.notes.append(f"t={asyncio.get_running_loop().time() - self.t0:.3f} {kind}: "
                          f"{what}")

    def later(self, delay: float, fn: Callable[[], None]) -> None:
        self.timers.append(asyncio.get_running_loop().call_later(delay, fn))

    def stop(self) -> None:
        for t in self.timers:
            t.cancel()


# ------------------------------------------------------------------ the dishonest host
class _Outgoing:
    """What a dishonest host sends one guest: every frame of the connection passes here
    (its ``send``), and the policy picks what becomes of it."""

    def __init__(self, host: RogueHost, conn: Conn) -> None:
        self.host, self.conn, self.policy = host, conn, host.policy
        self.plain = conn.send
        self.held: list[Frame] | None = None  # (delayed)
        self.swap: Frame | None = None  # (to go after the next)
        self.recs: list[Rec] = []
        conn.send = self.send  # type: ignore[method-assign]

    def send(self, f: Frame) -> None:
        if self.held is not None:
            self.held.append(f)
            return
        lobby = self.host.rematch_of is not None and self.host.table is None
        # (not a ``watching``: informational, NETWORK.md §14.8 — the plans' seeded draws
        # stay on the frames that carry the game)
        game = (not isinstance(f, Bye | Watching) and not (isinstance(f, Rec) and f.seq == 0)
                and (lobby or (self.conn.seat is not None and self.host.table is not None)))
        kind = self.policy.pick(FRAME_KINDS) if game else None
        what = f"{f.T} {f.seq if isinstance(f, Rec) else ''} to seat {self.conn.seat}"
        if kind == "stall" and self.policy.used["stall"] < MAX_STALLS:
            self.host.stall(what)
            self.send(f)  # (held with everything else until the stall ends)
            return
        if kind == "drop":
            self.policy.did(kind, what)
            return
        if kind == "delay":
            delay = self.policy.rng.uniform(0.05, 3.0)
            self.held = [*([self.swap] if self.swap else []), f]
            self.swap = None
            self.policy.later(delay, self._release)
            self.policy.did(kind, f"{what}, {delay:.2f} s")
            return
        if kind == "reorder" and self.swap is None:
            self.swap = f
            self.policy.did(kind, what)
            return
        self._put(f)
        if kind == "duplicate":
            self._put(f)
            self.policy.did(kind, what)
        elif kind == "replay" and self.recs:
            old = self.policy.rng.choice(self.recs)
            self._put(old)
            self.policy.did(kind, f"rec {old.seq} again after {what}")
        if self.swap is not None:
            swapped, self.swap = self.swap, None
            self._put(swapped)

    def _put(self, f: Frame) -> None:
        self.plain(f)
        if isinstance(f, Rec):
            self.recs.append(f)

    def hold(self) -> None:
        if self.held is None:
            self.held = [*([self.swap] if self.swap else [])]
            self.swap = None

    def _release(self) -> None:
        if self.host.stalled:
            return  # (a delay ending within a stall: the stall's end sends it all)
        held, self.held = self.held or [], None
        for f in held:
            self._put(f)


class RogueHost(HostNode):
    """A host that deviates as its :attr:`policy` picks (module docstring)."""

    policy: Policy

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.outgoing: list[_Outgoing] = []
        self.stalled = False
        #: the messages that came in during a stall, to order when it ends
        self._unheard: list[tuple[Conn, bytes, bytes]] = []

    async def _handshake(self, conn: Conn) -> None:
        self.outgoing.append(_Outgoing(self, conn))
        if self.stalled:
            self.outgoing[-1].hold()
        await super()._handshake(conn)

    def stall(self, what: str) -> None:
        """Go quiet (module docstring, ``stall``): every connection's frames held, every
        message that comes in kept, until the stall ends."""
        length = self.policy.rng.uniform(*STALL)
        self.stalled = True
        for out in self.outgoing:
            out.hold()
        self.policy.did("stall", f"{length:.2f} s, at {what}")
        self.policy.later(length, self._unstall)

    def _unstall(self) -> None:
        self.stalled = False
        for out in self.outgoing:
            out._release()
        unheard, self._unheard = self._unheard, []
        for conn, msg, sig in unheard:
            if not conn.closed:
                HostNode._on_msg(self, conn, msg, sig)

    def _beat(self, now: float) -> None:
        if not self.stalled:  # (as a stopped program: its heartbeat does not run)
            super()._beat(now)

    def _on_msg(self, conn: Conn, msg: bytes, sig: bytes) -> None:
        if self.stalled:
            self._unheard.append((conn, msg, sig))
            return
        table, seat = self.table, conn.seat
        kind = (self.policy.pick(ORDER_KINDS)
                if table is not None and seat is not None and self.ready else None)
        if kind is None or table is None or seat is None:
            super()._on_msg(conn, msg, sig)
            return
        m = parse_message(msg)
        what = f"seat {seat}'s {m.kind} {m.counter}"
        rng = self.policy.rng
        if kind == "drop":
            self.policy.did(kind, what)
        elif kind == "delay":
            delay = rng.uniform(0.05, 3.0)
            self.policy.later(delay, lambda: HostNode._on_msg(self, conn, msg, sig))
            self.policy.did(kind, f"{what}, {delay:.2f} s")
        elif kind == "duplicate":
            super()._on_msg(conn, msg, sig)
            super()._on_msg(conn, msg, sig)
            self.policy.did(kind, what)
        elif kind == "replay":
            self._replay(conn, seat, what, blind=rng.random() < 0.5)
            super()._on_msg(conn, msg, sig)
        else:
            self._refuse_legal(conn, seat, msg, sig, what)

    def _replay(self, conn: Conn, seat: int, what: str, *, blind: bool) -> None:
        """An old message of ``seat`` ordered again: checked (the host's own check
        refuses it), or blindly — a record of it at the head, signed, to every guest."""
        table = self.table
        assert table is not None
        old = [e for e in table.log.entries if e.author == seat and e.seq > 0]
        if not old:
            return
        e = self.policy.rng.choice(old)
        self.policy.did("replay", f"seat {seat}'s entry {e.seq} ({e.kind}) again, "
                        f"{'blind' if blind else 'checked'}, before {what}")
        if not blind:
            super()._on_msg(conn, e.msg_bytes, e.sig)
            return
        n = len(table.log)
        entry = encode([TAG_ENTRY, n, table.log.head(), e.msg_bytes, e.sig])
        record = encode([entry, self.identity.sign(entry)])
        for c in list(self.conns.values()):
            c.send(Rec(n, record))

    def _refuse_legal(self, conn: Conn, seat: int, msg: bytes, sig: bytes,
                      what: str) -> None:
        table = self.table
        assert table is not None
        m = parse_message(msg)
        how = self.policy.rng.choice(("signed", "unsigned", "broken"))
        e = WireError(ErrorCode.ILLEGAL, "R2.1: halves of different ranks never match")
        refusal: bytes | None = make_refusal(self.identity, table.game_id, len(table.log),
                                             table.log.head(), seat, msg, sig,
                                             e.code.value, e.reason)
        if how == "unsigned":
            refusal = None
        elif how == "broken" and refusal is not None:
            refusal = refusal[:-1] + bytes([refusal[-1] ^ 1])
        self.policy.did("refuse", f"{what} ({how})")
        self._refuse(conn, e, m.kind, m.counter, refusal)


# ------------------------------------------------------------------ the dishonest guest
class _Faulty:
    """A dishonest guest's connection (its ``wrap``): every frame it sends passes here."""

    def __init__(self, inner: Channel, node: RogueGuest) -> None:
        self.inner, self.node, self.policy = inner, node, node.policy
        self.peer = inner.peer
        self.held: list[bytes] | None = None

    def send(self, payload: bytes) -> None:
        if self.held is not None:
            self.held.append(payload)
            return
        kind = (self.policy.pick(WIRE_KINDS)
                if self.node.table is not None or self.node.rematch_of is not None else None)
        if kind == "silence":
            delay = self.policy.rng.uniform(0.25, 3.0)
            self.held = [payload]
            self.policy.later(delay, self._release)
            self.policy.did(kind, f"{delay:.2f} s")
            return
        if kind == "garbage":
            rng = self.policy.rng
            self.inner.send(rng.randbytes(rng.randint(1, 48)))
            self.policy.did(kind, "a frame of random bytes")
        self.inner.send(payload)
        if kind == "twice":
            self.inner.send(payload)
            self.policy.did(kind, f"a frame of {len(payload)} bytes")

    def _release(self) -> None:
        held, self.held = self.held or [], None
        with contextlib.suppress(ChannelClosed, WireError):
            for payload in held:
                self.inner.send(payload)

    async def recv(self) -> bytes:
        return await self.inner.recv()

    async def drain(self) -> None:
        await self.inner.drain()

    def close(self) -> None:
        self.inner.close()

    async def wait_closed(self) -> None:
        await self.inner.wait_closed()


class RogueGuest(PeerNode):
    """A joiner that deviates as its :attr:`policy` picks (module docstring)."""

    def __init__(self, *args: Any, policy: Policy, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.policy = policy
        self.wrap = self._faulty

    async def _faulty(self, raw: Channel, role: str) -> Channel:
        return _Faulty(raw, self)

    def send_game(self, kind: str, body: dict[str, Any]) -> bool:
        table = self.table
        dev = (self.policy.pick(MESSAGE_KINDS)
               if table is not None and self.ready and table.started else None)
        if table is None or dev is None:
            return super().send_game(kind, body)
        if dev == "replay":
            old = [e for e in table.log.entries if e.author == table.seat and e.seq > 0]
            if old:
                e = self.policy.rng.choice(old)
                with contextlib.suppress(ChannelClosed, WireError):
                    self.send_frame(Msg(e.msg_bytes, e.sig))
                self.policy.did(dev, f"entry {e.seq} ({e.kind}) again, before its {kind}")
            return super().send_game(kind, body)
        bad = self._out_of_range(kind, body) if dev == "range" else self._out_of_turn(table)
        if bad is None:
            return super().send_game(kind, body)
        return self._instead(dev, kind, *bad)

    def _out_of_range(self, kind: str, body: dict[str, Any]
                      ) -> tuple[str, dict[str, Any]] | None:
        ints = [path for path, v in _leaves(body)
                if isinstance(v, int) and not isinstance(v, bool)]
        ints.append(("round",))
        path = self.policy.rng.choice(ints)
        value = self.policy.rng.choice((-1, -(2**63), 10**9, 2**53, 2**64 - 1))
        return kind, _set(body, path, value)

    def _out_of_turn(self, table: Table) -> tuple[str, dict[str, Any]] | None:
        seat = table.seat
        split = table.core if isinstance(table.core, GameCore) else None
        splito = table.core if isinstance(table.core, SplitoCore) else None
        if split is not None:
            r = split.round
            if r is None:
                return None
            mine = split.engine.turn == seat
            return "move", {"round": r.number + 1 if mine else r.number,
                            "move": action_to_dict(DrawPile(seat))}
        assert splito is not None
        return "move", {"round": ROUND, "turn": splito.engine.turn + 1,
                        "commit": self.policy.rng.randbytes(32)}

    def _instead(self, dev: str, kind: str, bad_kind: str, bad: dict[str, Any]) -> bool:
        """Send ``bad`` in place of the seat's ``kind``, with its counter: the host
        refuses it, and this node (whose own core finds it no move of its) resynchronises
        and sends the right one again."""
        sent = super().send_game(bad_kind, bad)
        if sent:
            self.policy.did(dev, f"a {bad_kind} {str(bad)[:80]} instead of its {kind}")
        return sent


# ------------------------------------------------------------------ a game
@dataclass
class Game:
    """A game played: its plan, the nodes by seat, what the adversary did, and what went
    wrong in the process (tasks that raised, a game that did not end in time)."""

    plan: Plan
    nodes: list[HostNode | PeerNode]
    policy: Policy
    crashes: list[str] = field(default_factory=list)
    hang: str | None = None
    #: honest seats named by the dishonest host's own timeout (its word, SECURITY.md §4),
    #: and of those the victims that did not themselves stop naming the host
    host_word: int = 0
    unanswered: int = 0
    #: honest seats stopped by the host's call-off of a game some seat did not accept
    #: (NETWORK.md §4): the game never began
    called_off: int = 0
    #: a rematch: the game before it (its nodes, judged too), and whether the rematch
    #: began on every honest seat
    first: Game | None = None
    rematch_began: bool = False
    #: the honest watchers of this game (Plan.watch), each as it was last run
    watchers: list[Spectator] = field(default_factory=list)

    def outcome(self, seat: int) -> str:
        node = self.nodes[seat]
        core = node.table.core if node.table is not None else None
        if node.fatal is not None:
            return f"fatal: {node.fatal}"
        if core is None:
            return "no game"
        if core.verdict is not None:
            return f"verdict: {core.verdict}"
        return "finished" if core.finished else "not finished"

    def describe(self) -> str:
        lines = [f"{self.plan}: used {dict(self.policy.used)}"]
        lines += [f"  seat {s}{' (adversary)' if s == self.plan.adversary else ''}: "
                  f"{self.outcome(s)}" for s in range(len(self.nodes))]
        return "\n".join(lines + [f"  {n}" for n in self.policy.notes[-12:]])


class Spectator:
    """An honest watcher (NETWORK.md §14) as ``splitnet watch`` runs one: a
    :class:`WatchNode` checking each record with verify's :class:`LiveVerifier`; ``again``
    is the same command run again after a kill (the same data dir: it resumes)."""

    def __init__(self, tmp: Path, name: str, connect: Connect, net: NetSettings) -> None:
        self.tmp, self.name, self.connect, self.net = tmp, name, connect, net
        self.runs = 0
        self.v = LiveVerifier()
        self.node = self._node()

    def _node(self) -> WatchNode:
        self.runs += 1
        self.v = LiveVerifier()

        def check(rec: bytes) -> str | None:
            failed = self.v.feed(rec)
            return None if failed is None else failed.summary

        return WatchNode(self.tmp / self.name, self.name, lambda: self.connect(),
                         check=check, net=self.net)

    def again(self) -> None:
        self.node.stop()
        self.node = self._node()
        self.node.start()

    async def end(self, limit: float) -> None:
        """Wait (``limit`` s of loop time at most) for its run to end, then stop it."""
        task = self.node.task
        if task is not None and not task.done():
            with contextlib.suppress(TimeoutError):
                await within(asyncio.wait([task]), limit)
        self.node.stop()
        if task is not None:
            await asyncio.gather(task, return_exceptions=True)


class _RogueChannel:
    """A dishonest watcher's connection (module docstring): every frame it sends and
    every one it reads passes here, and the policy picks what becomes of it."""

    def __init__(self, ch: Channel, policy: Policy, spectator: Spectator, lan: Lan) -> None:
        self.ch, self.policy, self.spectator, self.lan = ch, policy, spectator, lan
        self.peer = ch.peer

    def send(self, payload: bytes) -> None:
        rng, ch = self.policy.rng, self.ch
        kind = self.policy.pick([k for k in WATCHER_KINDS if k != "deaf"])
        if kind == "garbage":
            ch.send(rng.randbytes(rng.randint(1, 64)))
        elif kind == "game":  # a game frame: a seat's record sent back as a message
            recs = self.spectator.node.log.records()
            ch.send(encode_typed(rng.choice([
                Msg(rng.choice(recs) if recs else b"\x00", bytes(64)), Ack(bytes(32)),
                Bye("leaving"), Rec(0, recs[0] if recs else b"\x00")])))
        elif kind == "lie":  # a ping claiming records it never had (or fewer)
            ch.send(encode_typed(Ping(rng.choice([0, 10**9, 2**31 - 1,
                                                  rng.randint(0, 500)]))))
        elif kind == "drop":
            self.policy.did(kind, f"{self.spectator.name} drops its connection")
            ch.close()
            return
        elif kind == "storm":  # half-open connections that say nothing, closed later
            n = rng.randint(3, 8)
            for _ in range(n):
                task = asyncio.ensure_future(self.lan.mem.connector(
                    "127.0.0.1", self.lan.host.port)())
                self.policy.later(rng.uniform(0.5, 20.0),
                                  lambda t=task: t.done() and not t.cancelled()
                                  and t.exception() is None and t.result().close())
            self.policy.did(kind, f"{self.spectator.name}: {n} half-open connections")
        if kind is not None and kind not in ("drop", "storm"):
            self.policy.did(kind, f"{self.spectator.name} before a frame it sends")
        ch.send(payload)
        if kind == "twice":
            ch.send(payload)

    async def recv(self) -> bytes:
        if self.policy.rng.random() < 0.125 and self.policy.pick(("deaf",)) == "deaf":
            quiet = self.policy.rng.uniform(0.5, 20.0)
            self.policy.did("deaf", f"{self.spectator.name} reads nothing for {quiet:.1f} s")
            await asyncio.sleep(quiet)
        return await self.ch.recv()

    async def drain(self) -> None:
        await self.ch.drain()

    def close(self) -> None:
        self.ch.close()

    async def wait_closed(self) -> None:
        await self.ch.wait_closed()


async def _watch(game: Game, lan: Lan) -> None:
    """The plan's watchers: Wes from now on (the deal is under way), killed when the
    host's log reaches a seeded length and run again; Xi from another such length.
    Bounded: each waits at most GAME_LIMIT s of loop time."""
    rng = random.Random(game.plan.seed * 7 + 1)
    port = lan.host.port
    plain = lan.mem.connector("127.0.0.1", port)
    wes, xi = (Spectator(lan.tmp, n, plain, game.plan.net) for n in ("Wes", "Xi"))
    if game.plan.side == "watcher":  # Wes is the dishonest one
        async def rogue() -> Channel:
            return _RogueChannel(await plain(), game.policy, wes, lan)  # type: ignore[return-value]
        wes.connect = rogue
    game.watchers += [wes, xi]
    wes.node.start()
    kill, join = rng.randint(8, 30), rng.randint(5, 40)

    def length() -> int:
        t = lan.host.table
        return len(t.log) if t is not None else 0

    for _ in range(int(GAME_LIMIT / 0.05)):
        if wes.runs == 1 and length() >= kill:
            wes.again()
            game.policy.notes.append(f"watcher Wes killed and run again at {length()}")
        if xi.node.task is None and length() >= join:
            xi.node.start()
            game.policy.notes.append(f"watcher Xi joined at {length()}")
        if wes.runs > 1 and xi.node.task is not None:
            return
        await asyncio.sleep(0.05)


def _crash_watch(crashes: list[str]) -> None:
    """Note every task of this loop that ends with an exception other than a joiner's
    PeerFatal or a watcher's WatchFatal, and every error the loop itself reports."""
    loop = asyncio.get_running_loop()

    def done(t: asyncio.Task[Any]) -> None:
        if t.cancelled():
            return
        e = t.exception()
        if e is not None and not isinstance(e, PeerFatal | WatchFatal):
            crashes.append("".join(traceback.format_exception(e)))

    def factory(loop: asyncio.AbstractEventLoop, coro: Any, **kw: Any) -> asyncio.Task[Any]:
        t: asyncio.Task[Any] = asyncio.Task(coro, loop=loop, **kw)
        t.add_done_callback(done)
        return t

    def handler(loop: asyncio.AbstractEventLoop, ctx: dict[str, Any]) -> None:
        e = ctx.get("exception")
        if e is None or not isinstance(e, PeerFatal | WatchFatal):
            crashes.append(f"{ctx.get('message')}: "
                           + ("".join(traceback.format_exception(e)) if e else ""))

    loop.set_task_factory(factory)
    loop.set_exception_handler(handler)


async def play(tmp: Path, plan: Plan) -> Game:
    """Play ``plan`` to its end (or GAME_LIMIT s of loop time) and close every node."""
    crashes: list[str] = []
    _crash_watch(crashes)
    policy = Policy(plan)
    ids = [Identity.from_seed(_bytes(plan.seed, "identity", s)) for s in range(plan.seats)]

    def seeds(game_id: bytes, seat: int) -> Callable[[int], bytes]:
        return lambda rnd: _bytes(plan.seed, game_id, seat, rnd)

    kind = RogueHost if plan.side == "host" else HostNode
    host = kind(ids[0], tmp / "p0", "Host", plan.net, seats=plan.seats,
                proofs=plan.proofs,
                seed_maker=seeds, game_id_maker=lambda: _bytes(plan.seed, "game")[:16],
                parts=LAN_PARTS, choice=plan.choice())
    if isinstance(host, RogueHost):
        host.policy = policy

    def make_peer(seat: int, name: str, port: int, connect: Connect,
                  rematch_of: PreviousGame | None = None) -> PeerNode:
        args = (ids[seat], tmp / f"p{seat}", name, "127.0.0.1", port, plan.net)
        kw: dict[str, Any] = {"seed_maker": seeds, "connect": connect, "parts": LAN_PARTS,
                              "rematch_of": rematch_of}
        if seat == plan.adversary:
            return RogueGuest(*args, policy=policy, **kw)
        return PeerNode(*args, **kw)

    lan = await Lan.start(tmp, host, make_peer=make_peer)
    game = Game(plan, [host, *lan.peers], policy, crashes)
    watching = asyncio.ensure_future(_watch(game, lan)) if plan.watch else None
    try:
        await _play_out(game, [asyncio.ensure_future(host.done.wait()), *lan.tasks])
        if watching is not None:  # each watcher's run to its end: told the game is over
            watching.cancel()
            for w in game.watchers:
                await w.end(WATCH_LIMIT)
        if plan.rematch and all(_finished_clean(n) for n in game.nodes):
            try:  # every seat's node ends with its game (its final acks) first
                await within(asyncio.wait(lan.tasks), GAME_LIMIT)
            except TimeoutError as e:
                game.hang = f"{e}: a joiner did not end after its game"
            else:
                game = await _rematch(game, lan, kind, seeds, make_peer)
    finally:
        policy.stop()
        for w in game.watchers if game.first is None else game.first.watchers:
            w.node.stop()
        try:
            await lan.close()
        except AssertionError as e:  # a connection handler raised
            crashes.append(str(e))
    return game


def _finished_clean(node: HostNode | PeerNode) -> bool:
    table = node.table
    return (node.fatal is None and table is not None and table.core.finished
            and table.core.verdict is None)


async def _play_out(game: Game, tasks: list[asyncio.Future[Any]]) -> None:
    """Bots play the game on every node that holds one, to its end (or GAME_LIMIT s)."""
    plan = game.plan
    sessions: list[LanSeat[Any]] = []
    for seat, (node, task) in enumerate(zip(game.nodes, tasks, strict=True)):
        if node.table is None:
            continue
        bot_seed = plan.seed * 10 + seat + (1000 if game.first is not None else 0)
        if plan.game == "splito":
            sessions.append(SplitoNetSession(node, task, bot=splito_bot("random", bot_seed),
                                             bot_delay=plan.pace))
        else:
            sessions.append(NetSession(node, task, bot=make_bot("random", bot_seed),
                                       bot_delay=plan.pace))
    runs = [asyncio.ensure_future(s.run()) for s in sessions]
    try:
        # (no node holds a game: the rematch never began, so each node's own end)
        await within(asyncio.wait(runs or tasks), GAME_LIMIT)
    except TimeoutError as e:
        game.hang = f"{e}: " + "; ".join(game.outcome(s) for s in range(plan.seats))
    finally:
        for r in runs:
            r.cancel()
        if runs:
            await asyncio.wait(runs)
        tasks[0].cancel()


async def _rematch(first: Game, lan: Lan, host_kind: type[HostNode],
                   seeds: Callable[[bytes, int], Callable[[int], bytes]],
                   make_peer: Callable[..., PeerNode]) -> Game:
    """The rematch of the finished ``first`` game (NETWORK.md §13): the host's node for
    it at the same address, every joiner's looking for its offer; played out if it
    begins on every seat, else each node's end awaited (bounded)."""
    plan, old = first.plan, first.nodes[0]
    assert isinstance(old, HostNode)
    prev = [PreviousGame(n.table.log.header, n.table.log.head())
            for n in first.nodes if n.table is not None]
    await old.close()
    host = host_kind(old.identity, lan.tmp / "p0", old.name, plan.net, proofs=plan.proofs,
                     seed_maker=seeds, parts=LAN_PARTS, rematch_of=prev[0],
                     game_id_maker=lambda: _bytes(plan.seed, "rematch")[:16])
    if isinstance(host, RogueHost):
        host.policy = first.policy
    port = await host.listen("127.0.0.1", old.port, transport=lan.mem.listen)
    lan.host = host  # (closed with the Lan)
    peers = []
    for seat, p in enumerate(first.nodes[1:], 1):
        peers.append(make_peer(seat, p.name, port, lan.mem.connector("127.0.0.1", port),
                               prev[seat]))
    tasks = [p.start() for p in peers]
    lan.tasks = tasks
    game = Game(plan, [host, *peers], first.policy, first.crashes, first=first)
    host_done = asyncio.ensure_future(host.done.wait())
    everyone = [host_done, *tasks]

    def settled() -> bool:
        return all(n.table is not None or t.done() for n, t in zip(game.nodes, everyone,
                                                                    strict=True))
    try:
        await until(settled, "the rematch begins or ends", GAME_LIMIT)
    except AssertionError as e:
        game.hang = f"{e}: " + "; ".join(game.outcome(s) for s in range(plan.seats))
        host_done.cancel()
        return game
    game.rematch_began = all(n.table is not None for s, n in enumerate(game.nodes)
                             if s != plan.adversary)
    await _play_out(game, everyone)
    return game


# ------------------------------------------------------------------ the oracle
def _stopped_by_host_word(table: Table) -> bool:
    """Did the game stop at the host's own ``timeout`` (its word, SECURITY.md §4)?"""
    last = next((e for e in reversed(table.log.entries) if e.kind != "chat"), None)
    return last is not None and last.kind == "timeout" and last.author == table.host_seat


def _names_host(line: str) -> bool:
    return any(tag in line for tag in HOST_AT_FAULT) or line.startswith("fork:")


def judge(game: Game) -> list[str]:
    """What the oracle finds wrong with a game played (module docstring), and with the
    game before it if it is a rematch; [] if nothing."""
    if game.first is None:
        return _judge(game)
    bad = [f"game 1: {b}" for b in _judge(game.first)]
    if not game.rematch_began and game.hang is None:
        return bad + [f"rematch: {b}" for b in _no_rematch(game)]
    bad += [f"rematch: {b}" for b in _judge(game, crashes=False)]
    for s in range(len(game.nodes)):
        one, two = game.first.nodes[s].table, game.nodes[s].table
        if s != game.plan.adversary and one is not None and two is not None \
                and _finished_clean(game.nodes[s]):
            why = chain_problem(one.log.records(), two.log.records())
            if why is not None:
                bad.append(f"rematch: honest seat {s}'s two games do not chain: {why}")
    return bad


def _no_rematch(game: Game) -> list[str]:
    """The rematch did not begin on every honest seat: each honest node must have ended
    saying so (or, the host dishonest, naming it); an honest host only for a reason that
    names the dishonest seat."""
    adv, bad = game.plan.adversary, []
    culprit = game.nodes[adv].name
    for s, node in enumerate(game.nodes):
        if s == adv:
            continue
        if isinstance(node, HostNode):
            why = node.no_rematch or ""
            if culprit not in why:
                bad.append(f"the honest host ended the rematch: {why or 'no reason'}")
        elif node.fatal is None:
            bad.append(f"honest seat {s} neither began the rematch nor stopped")
        elif not (node.fatal.startswith("no rematch") or (adv == 0
                  and _names_host(node.fatal))):
            bad.append(f"honest seat {s} stopped: {node.fatal}")
    return bad


def _judge(game: Game, *, crashes: bool = True) -> list[str]:
    adv = game.plan.adversary
    bad = [f"a task raised: {c}" for c in game.crashes] if crashes else []
    honest = [s for s in range(len(game.nodes)) if s != adv]
    tables = {s: t for s in honest if (t := game.nodes[s].table) is not None}
    if game.hang is not None:
        bad.append(f"the game did not end: {game.hang}")
    host = game.nodes[0]
    if adv != 0 and isinstance(host, HostNode) and host.called_off_why:
        # an honest host calls off only a game its dishonest guest did not accept
        culprit = game.nodes[adv].name
        if host.called_off_why != f"{culprit} did not accept it within {NET.answer_timeout:g} s":
            bad.append(f"the honest host called the game off: {host.called_off_why}")
    transcripts: dict[int, list[bytes]] = {}
    clean: list[int] = []
    victims: set[int] = set()
    for s in honest:
        node, who, table = game.nodes[s], f"honest seat {s}", tables.get(s)
        if table is None:
            bad.append(f"{who} has no game")
            continue
        core = table.core
        word = adv == 0 and _stopped_by_host_word(table)

        def named_ok(seat: int | None, word: bool = word) -> bool:
            return seat is None or seat == adv or word

        if node.fatal is not None and node.fatal.startswith("the game did not start: ") \
                and not table.started:
            game.called_off += 1  # (the host's word; an honest host's is checked above)
        elif node.fatal is not None and (s == 0 or adv != 0 or not _names_host(node.fatal)):
            bad.append(f"{who} stopped: {node.fatal}")
        if core.verdict is not None:
            if not named_ok(core.verdict.seat):
                bad.append(f"{who}'s game stopped naming an honest seat: {core.verdict}")
            elif core.verdict.seat not in (None, adv):
                game.host_word += 1
                victims.add(core.verdict.seat)
        elif not core.finished and node.fatal is None:
            bad.append(f"{who} neither finished nor stopped")
        try:
            recs = read_transcript(table.files.transcript)
        except (OSError, TranscriptError) as e:
            bad.append(f"{who}'s transcript does not read: {e}")
            continue
        transcripts[s] = recs
        if recs != table.log.records():
            bad.append(f"{who}'s transcript on disk is not its log "
                       f"({len(recs)} records, {len(table.log)} entries)")
        v = verify_records(recs)
        finished = core.finished and core.verdict is None
        if finished:
            clean.append(s)
            if not v.ok:
                bad.append(f"{who} finished, but its transcript: {v.summary}")
        elif v.ok:
            bad.append(f"{who}'s transcript verifies as a whole game it did not finish")
        elif not v.incomplete and (v.seq != len(recs) - 1 or not named_ok(v.seat)):
            bad.append(f"{who}'s transcript fails: {v.summary}")
    game.unanswered = sum(1 for v in victims
                          if not _names_host(game.nodes[v].fatal or ""))
    if transcripts:
        longest = max(transcripts.values(), key=len)
        for s, recs in transcripts.items():
            if recs != longest[: len(recs)]:
                bad.append(f"honest seat {s}'s transcript is not a prefix of the others'")
    if len({len(transcripts[s]) for s in clean if s in transcripts}) > 1:
        bad.append("the honest seats that finished hold different transcripts")
    return bad + _judge_watchers(game, tables)


def _judge_watchers(game: Game, tables: dict[int, Table]) -> list[str]:
    """Each honest watcher: its saved file reads without repair and is what it took (and
    the one bad record it refused, if any); what it took is a prefix of the host's log
    (the one log the host signs); its live verdict is ``verify``'s on that file; a bad
    record it stopped at names the dishonest seat, or the seat an honest player's own
    game names; and at an honest host whose game ended, it was told the game is over
    and holds the whole log."""
    bad: list[str] = []
    adv = game.plan.adversary
    host = game.nodes[0].table
    host_recs = host.log.records() if host is not None else []
    named = {adv} | {t.core.verdict.seat for t in tables.values()
                     if t.core.verdict is not None}
    for w in game.watchers:
        if game.plan.side == "watcher" and w.name == "Wes":
            continue  # (the dishonest one: whatever it made of its game is its own)
        node, who = w.node, f"watcher {w.name}"
        took = node.log.records()
        if took != host_recs[: len(took)]:
            bad.append(f"{who} took records that are not the host's log")
        if node.path is None:
            if took:
                bad.append(f"{who} saved nothing of the {len(took)} records it took")
            continue
        try:
            saved = read_transcript(node.path)
        except (OSError, TranscriptError) as e:
            bad.append(f"{who}'s file does not read: {e}")
            continue
        if saved[: len(took)] != took or len(saved) - len(took) > (node.failed is not None):
            bad.append(f"{who}'s file is not what it took ({len(saved)} records, "
                       f"{len(took)} taken)")
        live, whole = w.v.verdict(), verify_records(saved)
        if (live.ok, live.seq, live.seat, live.incomplete) != (whole.ok, whole.seq,
                                                               whole.seat, whole.incomplete):
            bad.append(f"{who}'s live verdict ({live.summary}) is not verify's on its "
                       f"file ({whole.summary})")
        failed = w.v.failed
        if node.failed is not None and failed is not None and failed.seat not in named:
            at = w.v.log.entries[failed.seq] if failed.seq is not None \
                and failed.seq < len(w.v.log) else None
            word = (adv == 0 and at is not None and at.kind == "timeout"
                    and at.author == host.host_seat)  # (the host's word, row 26)
            if not word:
                bad.append(f"{who} stopped naming an honest seat: {node.failed}")
        if adv != 0 and host is not None and host.core.finished and game.hang is None \
                and (saved != host_recs or not (node.over or node.failed is not None)):
            bad.append(f"{who} was not told the honest host's game to its end "
                       f"({len(took)} of {len(host_recs)} records, {node.status})")
    return bad
