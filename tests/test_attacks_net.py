"""Attacks that are about the network, over the in-memory network on a virtual clock
(tests/memnet.py, tests/virtual_time.py: no sockets, no wall clock): a host that shows
two peers different orders, a host that drops a peer's message or forges a record, a
seat (or the host's own seat) that stops answering, and replays of messages on the wire.

Each game runs in this process: a :class:`~splitnet.net.host.HostNode` (seat 0) and two
:class:`~splitnet.net.peer.PeerNode` joiners (seats 1, 2 in join order), each with its
own data dir, no shuffle proofs (not the point here), short timings (seconds of loop
time, which the test moves: a timeout fires at exactly its instant). Most attacks happen
before the first move, where the nodes run by themselves; the game then waits for a move
nobody makes. Each test checks where the attack is detected, which seat is named, and
that the honest peers' transcripts on disk verify up to the verdict. The table of
attacks is protocol/SECURITY.md.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest

from splitnet.app.lan_session import NetSession
from splitnet.games.split.bots import make_bot
from splitnet.net.config import NetSettings
from splitnet.net.frames import Acks, Evidence, Frame, Msg, Rec
from splitnet.net.host import Conn, HostNode
from splitnet.net.peer import PeerFatal, PeerNode
from splitnet.net.wire import Connect, WireError
from splitnet.session.codec import decode, encode
from splitnet.session.identity import Identity
from splitnet.session.log import (
    TAG_ENTRY,
    Author,
    Log,
    LogError,
    parse_message,
    prove_equivocation,
)
from splitnet.session.transcript import read_transcript
from splitnet.verify import verify_records
from tests.memnet import MemoryNet
from tests.virtual_time import VirtualLoop, until, virtual_time, within

T = TypeVar("T")

#: fast heartbeats, short answer timeout; no move timeout unless a test wants one (the
#: game waits for the first move, which nobody makes); final_wait short. Binary fractions:
#: the instants they add up to are exact
FAST = dict(ping_interval=0.125, silent_after=0.5, host_timeout=0.75, ack_interval=0.0625,
            final_wait=3.0, retry_first=0.0625, answer_timeout=1.5, move_timeout=60.0)
BEAT = FAST["ping_interval"]


#: a joiner's node as a test makes it: (seat, name, port, connect) → node
MakePeer = Callable[[int, str, int, Connect], PeerNode]


def seats_of(tmp: Path, kinds: dict[int, type[PeerNode]],
             settings: NetSettings | None = None) -> MakePeer:
    """For :meth:`Lan.start`: each joiner's node of the class ``kinds`` names for its
    seat (a plain PeerNode for the others), with its own identity and data dir."""
    def make(seat: int, name: str, port: int, connect: Connect) -> PeerNode:
        return kinds.get(seat, PeerNode)(Identity.generate(), tmp / f"p{seat}", name,
                                         "127.0.0.1", port, settings or net(),
                                         connect=connect)
    return make


def net(**change: float) -> NetSettings:
    return NetSettings(**{**FAST, **change})  # type: ignore[arg-type]


class Withholding(PeerNode):
    """A joiner whose node never sends the messages ``withholds`` picks."""

    withholds: Callable[[str, dict[str, Any]], bool] | None = None

    def _attach(self) -> None:
        super()._attach()
        assert self.table is not None
        real, keep = self.table.core.outbox, self.withholds
        if keep is not None:
            self.table.core.outbox = lambda: [  # type: ignore[method-assign]
                (k, b) for k, b in real() if not keep(k, b)]


class Lan:
    """A host and its joiners (two, unless the host has more seats) in this process."""

    def __init__(self, host: HostNode, peers: list[PeerNode], tasks: list[asyncio.Task[None]],
                 tmp: Path, mem: MemoryNet) -> None:
        self.host, self.peers, self.tasks, self.tmp = host, peers, tasks, tmp
        self.mem = mem

    @classmethod
    async def start(cls, tmp: Path, host: HostNode | None = None,
                    peer_net: NetSettings | None = None,
                    bo_withholds: Callable[[str, dict[str, Any]], bool] | None = None,
                    parts: Any = None, make_peer: MakePeer | None = None) -> Lan:
        """``bo_withholds(kind, body)``: messages Bo's node makes but never sends (set
        before its game starts: on this network the deal runs in an instant).
        ``make_peer(seat, name, port, connect)``: each joiner's node, made by the test
        (its own class, identity, seeds)."""
        host = host or HostNode(Identity.generate(), tmp / "p0", "Host", net(), seats=3,
                                proofs=False)
        mem = MemoryNet()
        port = await host.listen("127.0.0.1", 0, transport=mem.listen)
        peers, tasks = [], []
        names = ["Ana", "Bo", "Cy", "Di", "Ed", "Flo", "Gus"][: host.seats - 1]
        for i, name in enumerate(names, 1):
            kind = Withholding if i == 2 and bo_withholds else PeerNode
            p = make_peer(i, name, port, mem.connector("127.0.0.1", port)) if make_peer \
                else kind(Identity.generate(), tmp / f"p{i}", name, "127.0.0.1", port,
                          peer_net or net(), connect=mem.connector("127.0.0.1", port),
                          **({} if parts is None else {"parts": parts}))
            if isinstance(p, Withholding):
                p.withholds = bo_withholds
            peers.append(p)
            tasks.append(p.start())
            await until(lambda i=i: len(host.members) >= i, "a joiner in the lobby")
        await within(host.started.wait())
        for p in peers:
            await within(p.started_evt.wait())
        return cls(host, peers, tasks, tmp, mem)

    def records(self, seat: int) -> list[bytes]:
        """The transcript on seat's disk."""
        files = sorted((self.tmp / f"p{seat}" / "games").glob("*.splitlog"))
        assert len(files) == 1
        return read_transcript(files[0], repair=True)

    async def stopped(self, node: PeerNode) -> str:
        """Wait for a joiner to stop on a fatal verdict; its reason."""
        task = self.tasks[self.peers.index(node)]
        await within(asyncio.wait([task]))
        assert task.done(), "the joiner did not stop"
        assert node.fatal is not None, node.table and node.table.core.verdict
        e = task.exception()  # its line, never a traceback
        assert isinstance(e, PeerFatal) and str(e) == node.fatal, repr(e)
        return node.fatal

    async def close(self) -> None:
        await self.host.close()
        for t in self.tasks:
            t.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        await self.mem.close()


def _msg_of(record: bytes) -> bytes:
    """The author message inside a record."""
    entry_bytes = decode(record, max_len=1 << 20)[0]
    msg: bytes = decode(entry_bytes, max_len=1 << 20)[3]
    return msg


def prefix_verifies(records: list[bytes]) -> None:
    """A transcript that stops early: every record in it verifies (an incomplete game)."""
    v = verify_records(records)
    assert v.reason == "the game did not finish", v.summary


def stopped_at_last(records: list[bytes], seat: int, step: str) -> None:
    """A transcript that ends with the entry stopping the game, naming ``seat``."""
    prefix_verifies(records[:-1])
    v = verify_records(records)
    assert (v.ok, v.seq, v.seat) == (False, len(records) - 1, seat), v.summary
    assert f"at {step}:" in v.reason, v.reason


# ------------------------------------------------------------------ a seat that stops
@virtual_time
async def test_a_seat_that_never_sends_its_deal_shares_is_timed_out(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """Bo (seat 2) commits and shuffles but never sends its deal shares. After
    ``answer_timeout`` the host orders a ``timeout`` naming seat 2; every peer stops with
    that verdict (Bo too: it sent nothing, so it cannot say otherwise); all three
    transcripts are identical and verify up to the timeout, which names seat 2."""
    host = HostNode(Identity.generate(), tmp_path / "p0", "Host", net(), seats=3, proofs=False)
    lan = await Lan.start(tmp_path, host, bo_withholds=lambda k, b: (
        k == "shares" and b.get("purpose") == "deal"))
    try:
        sessions = [NetSession(p, t, bot=make_bot("random", i + 1))
                    for i, (p, t) in enumerate(zip(lan.peers, lan.tasks, strict=True))]
        runs = [asyncio.ensure_future(s.run()) for s in sessions]
        table = host.table
        assert table is not None
        await until(lambda: table.core.waiting_for() == [2], "the deal waits for Bo")
        owed = host.watch.owed_since[2]  # since when the host waits for Bo's shares
        ended = await until(lambda: table.core.finished, "the timeout")
        # at the first heartbeat past answer_timeout, not a moment before, nor later
        assert owed + FAST["answer_timeout"] < ended <= owed + FAST["answer_timeout"] + BEAT
        assert ended % BEAT == 0
        await within(host.done.wait())  # game over: final acks, bye
        await within(asyncio.wait(runs))
        for session in sessions:  # what each player is told
            assert (session.verdict or "").startswith("game stopped: seat 2 at shares: "
                                                      "did not answer"), session.verdict
        for node in (host, *lan.peers):
            assert node.table is not None
            v = node.table.core.verdict
            assert v is not None and (v.seat, v.step) == (2, "shares"), v
            assert "did not answer" in v.reason
        await within(asyncio.wait(lan.tasks))
        assert all(p.fatal is None for p in lan.peers)
        recs = [lan.records(s) for s in range(3)]
        assert recs[0] == recs[1] == recs[2]
        assert parse_message(_msg_of(recs[0][-1])).kind == "timeout"
        stopped_at_last(recs[0], 2, "shares")
    finally:
        await lan.close()


@pytest.mark.parametrize("screen", [None, PeerNode._resuming], ids=["as-is", "rewritten"])
@virtual_time
async def test_a_host_that_never_plays_its_turn_is_named_by_the_joiners(
        tmp_path: Path, clock: VirtualLoop, screen: str | None) -> None:
    """The host's own seat owes a move and never makes it; nobody but the host could time
    it out. Each joiner stops after ``move_timeout`` + ``host_timeout``, naming the host.
    ``rewritten``: something else writes the joiner's status line (as a wormhole's
    progress does) — here the very words of a restarted host's wait: the joiner's clocks
    go by the host's welcome, never by the text it shows (issue 22), so they still run."""
    host = HostNode(Identity.generate(), tmp_path / "p0", "Host", net(), seats=3, proofs=False)
    lan = await Lan.start(tmp_path, host, peer_net=net(move_timeout=1.5))
    if screen is not None:
        for p in lan.peers:
            p.subscribe(lambda p=p: setattr(p, "net_status", screen))
    sessions = [NetSession(p, t, bot=make_bot("random", i + 1))
                for i, (p, t) in enumerate(zip(lan.peers, lan.tasks, strict=True))]
    runs = [asyncio.ensure_future(s.run()) for s in sessions]
    try:
        await until(lambda: all(p.clocks.host_owes_since is not None for p in lan.peers),
                    "the joiners see the host owe its move")
        limit = 1.5 + FAST["host_timeout"]  # move_timeout + host_timeout
        sinces = [p.clocks.host_owes_since for p in lan.peers]
        for p, since in zip(lan.peers, sinces, strict=True):
            assert since is not None
            at = await until(lambda p=p: p.task is not None and p.task.done(), "it stops")
            # at the first frame (a ping) past the limit
            assert since + limit < at <= since + limit + BEAT and at % BEAT == 0
            why = await lan.stopped(p)
            assert "host seat 0 at fault" in why and "owed its move" in why, why
        await within(asyncio.wait(runs))
        assert all("host seat 0 at fault" in (s.verdict or "") for s in sessions)
        for s in (1, 2):
            prefix_verifies(lan.records(s))
    finally:
        await lan.close()


# ------------------------------------------------------------------ a host that drops
class DroppingHost(HostNode):
    """Orders everything but seat 2's commit, which it silently ignores — no error, no
    refusal, nothing in the log. Optionally it never declares the timeout either."""

    declares = True

    def _on_msg(self, conn: Conn, msg: bytes, sig: bytes) -> None:
        m = parse_message(msg)
        if conn.seat == 2 and m.kind == "commit":
            return
        super()._on_msg(conn, msg, sig)

    def _check_timeouts(self) -> None:
        if self.declares:
            super()._check_timeouts()


@pytest.mark.parametrize("declares", [True, False], ids=["then-times-it-out", "then-stalls"])
@virtual_time
async def test_a_host_that_drops_a_peers_message_is_named_by_that_peer(
        tmp_path: Path, clock: VirtualLoop, declares: bool) -> None:
    """The host drops Bo's commit. Then either it times Bo out — Ana and the transcript
    carry the host's word (seat 2 did not answer: nobody else can tell), but Bo knows it
    sent the commit and stops naming the host — or it stalls, and Bo's own watchdog names
    the host after ``answer_timeout`` + ``host_timeout``."""
    host = DroppingHost(Identity.generate(), tmp_path / "p0", "Host", net(), seats=3,
                        proofs=False)
    host.declares = declares
    lan = await Lan.start(tmp_path, host)
    ana, bo = lan.peers
    try:
        why = await lan.stopped(bo)
        assert "host seat 0 at fault" in why, why
        if declares:
            assert "timed us out" in why and "dropped it" in why, why
            await until(lambda: ana.table is not None and ana.table.core.finished, "Ana")
            assert ana.table is not None and ana.table.core.verdict is not None
            assert ana.table.core.verdict.seat == 2  # the host's word, all Ana can see
            recs = lan.records(2)
            assert recs == lan.records(1)[: len(recs)]
            stopped_at_last(recs, 2, "commit")  # Bo's own copy holds the host's claim
        else:
            assert "has not ordered our message" in why, why
            prefix_verifies(lan.records(2))
        assert not any(parse_message(_msg_of(r)).kind == "commit"
                       and parse_message(_msg_of(r)).author == 2 for r in lan.records(2))
    finally:
        await lan.close()


# ------------------------------------------------------------------ a host that forks
class ForkingHost(HostNode):
    """Shows Bo (seat 2) the two joiners' commits in the opposite order from everyone
    else, and keeps Bo's chain going as far as it can: every later record is re-signed on
    Bo's chain while its message fits there — only until the first message made after
    the fork, which names an entry of the other chain as seen (TRANSCRIPT.md §3); Bo gets
    nothing more. Both chains are valid logs; only comparing heads can tell.
    ``relay_all``: it relays every ack (as the protocol says) instead of refusing those
    that do not match its log."""

    relay_all = True

    def __init__(self, *a: Any, **kw: Any) -> None:
        super().__init__(*a, **kw)
        self.held: list[tuple[Conn, bytes, bytes]] = []
        self.fork_at: int | None = None
        self.bo_log: Log | None = None
        self.bo_records: dict[int, bytes] = {}
        self.acked_past: dict[int, int] = {}
        self.pending: list[tuple[int, bytes]] = []

    def _on_msg(self, conn: Conn, msg: bytes, sig: bytes) -> None:
        table = self.table
        if self.fork_at is not None or table is None or parse_message(msg).kind != "commit":
            super()._on_msg(conn, msg, sig)
            return
        self.held.append((conn, msg, sig))
        if len(self.held) < 2:
            return
        (c1, m1, s1), (c2, m2, s2) = sorted(self.held, key=lambda h: h[0].seat or 0)
        self.fork_at = len(table.log)
        self.bo_log = Log.from_records(table.log.records())
        for m, s in ((m2, s2), (m1, s1)):  # Bo's order
            seq = len(self.bo_log)
            self.bo_records[seq] = self.bo_log.order(m, s, self.identity)
        self.show_bo_its_chain()
        super()._on_msg(c1, m1, s1)
        super()._on_msg(c2, m2, s2)

    def show_bo_its_chain(self) -> None:
        """From the fork on, every record sent to Bo is its chain's (none, once its chain
        cannot go on)."""
        bo = self.conns[2]
        plain_send = bo.send

        def send_to_bo(f: Frame) -> None:
            if isinstance(f, Rec) and self.fork_at is not None and f.seq >= self.fork_at:
                record = self._bo_record(f.seq)
                if record is None:
                    return  # it cannot be ordered on Bo's chain
                f = Rec(f.seq, record)
            plain_send(f)

        bo.send = send_to_bo  # type: ignore[method-assign]

    def _bo_record(self, seq: int) -> bytes | None:
        """Bo's record at ``seq``, or None once a message made after the fork comes: its
        ``seen`` is not on Bo's chain, so no record can hold it there."""
        assert self.bo_log is not None and self.table is not None
        while seq not in self.bo_records:
            e = self.table.log.entries[len(self.bo_log)]
            try:
                record = self.bo_log.order(e.msg_bytes, e.sig, self.identity)
            except LogError as err:
                assert err.code == "seen", err
                return None
            self.bo_records[e.seq] = record
        return self.bo_records[seq]

    def _on_ack(self, conn: Conn, raw: bytes) -> None:
        """Relays every ack — after the fork, only once both joiners have acked past it
        (so that each has committed to its head before it sees the other's)."""
        if not self.relay_all or self.table is None:
            super()._on_ack(conn, raw)
            return
        if self.fork_at is not None and conn.seat is not None:
            ack = self.table.log.check_ack(raw)
            self.acked_past[conn.seat] = max(self.acked_past.get(conn.seat, -1), ack.seq)
            self.pending.append((conn.seat, raw))
            if min(self.acked_past.get(s, -1) for s in (1, 2)) < self.fork_at:
                return
        else:
            self.pending.append((conn.seat or 0, raw))
        for author, ack_raw in self.pending:
            for seat, c in self.conns.items():
                if seat != author:
                    c.send(Acks((ack_raw,)))
        self.pending = []


@pytest.mark.parametrize("relay_all", [True, False], ids=["relays-acks", "hides-acks"])
@virtual_time
async def test_a_host_that_shows_peers_different_orders_is_caught(
        tmp_path: Path, clock: VirtualLoop, relay_all: bool) -> None:
    """Ana and Bo get the same commits in different orders, each as a valid signed chain.
    Bo's chain stops at the first message made after the fork (the host's shuffle names
    an entry of the other chain as seen: no record can hold it there), so Bo is stuck
    and stops naming the host, whose seat never sends its shuffle on Bo's chain (Ana's
    acks are of seqs Bo never reaches). The acks cross (the host relays them): Ana, whose head at
    Bo's acked seq differs, stops naming the host and writes the two acks to
    ``GAME.fork``. A host that relays only the acks matching its own log deceives Ana
    (who sees nothing wrong), not Bo. Each peer's transcript verifies (both chains are
    valid); the two records at the fork seq, both host-signed, convict the host."""
    host = ForkingHost(Identity.generate(), tmp_path / "p0", "Host", net(), seats=3,
                       proofs=False)
    host.relay_all = relay_all
    lan = await Lan.start(tmp_path, host)
    ana, bo = lan.peers
    try:
        why = await lan.stopped(bo)  # its chain goes no further than the fork
        assert why == "the host's seat (Host) owed its shuffle for 2 s [host seat 0 at fault]"
        if relay_all:
            why = await lan.stopped(ana)
            assert why.startswith("fork:") and "host 0" in why, why
            assert ana.table is not None
            assert ana.table.files.transcript.with_suffix(".fork").exists()
        else:
            # Ana saw nothing wrong: only the two transcripts, compared, show the fork
            assert ana.fatal is None
        a, b = lan.records(1), lan.records(2)
        at = host.fork_at
        assert at is not None and a[:at] == b[:at] and a[at] != b[at]
        assert prove_equivocation(a[at], b[at], host.key) == at
        prefix_verifies(b)
        prefix_verifies(a[: at + 2])
    finally:
        await lan.close()


# ------------------------------------------------------------------ forged and replayed
@virtual_time
async def test_a_record_with_a_forged_author_signature_stops_the_peer_naming_the_host(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """When the game waits for the first move, the host sends Ana a record holding a chat
    'by Bo' that Bo never signed. Ana refuses it — the host signed the entry, so the host
    is at fault, not Bo — and its transcript holds every record before it, which
    verify."""
    lan = await Lan.start(tmp_path)
    host, ana = lan.host, lan.peers[0]
    try:
        assert host.table is not None
        table = host.table
        await until(lambda: table.core.round is not None and table.core.round.stage == "play"
                    and all(p.table is not None and len(p.table.log) == len(table.log)
                            for p in lan.peers), "the deal")
        seq = len(table.log)
        msg = Author(Identity.generate(), table.game_id, 2,
                     table.log.next_counter(2)).message("chat", {"text": "I give up"},
                                                        seen=table.log.seen())[0]
        forged = os.urandom(64)
        entry = encode([TAG_ENTRY, seq, table.log.head(), msg, forged])
        host.conns[1].send(Rec(seq, encode([entry, host.identity.sign(entry)])))
        why = await lan.stopped(ana)
        assert "bad record from the host" in why and "signature does not verify" in why, why
        recs = lan.records(1)
        assert len(recs) == seq and recs == table.log.records()[:seq]
        prefix_verifies(recs)
    finally:
        await lan.close()


@virtual_time
async def test_replayed_messages_on_the_wire_are_refused_and_the_game_goes_on(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """Bo sends its commit as signed for another game, and its accept of this game again
    (already in the log). The host refuses both ('game-id', 'replay'); nothing reaches
    anyone's log; Bo's next real message is ordered and every transcript is the same."""
    lan = await Lan.start(tmp_path)
    host, (ana, bo) = lan.host, lan.peers
    try:
        assert host.table is not None and bo.table is not None
        table = bo.table
        await until(lambda: host.table is not None and host.table.core.round is not None
                    and host.table.core.round.stage == "play"
                    and all(p.table is not None and len(p.table.log) == len(table.log)
                            for p in lan.peers), "the deal")
        errors: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        bo.error_hooks.append(errors.put_nowait)
        mine = next(e for e in table.log.entries if e.kind == "commit" and e.author == 2)
        other = Author(table.identity, os.urandom(16), 2, table.log.next_counter(2))
        msg, sig = other.message("commit", dict(mine.body), seen=table.log.seen())
        bo.send_frame(Msg(msg, sig))
        accept = next(e for e in table.log.entries if e.kind == "accept" and e.author == 2)
        bo.send_frame(Msg(accept.msg_bytes, accept.sig))
        codes = [(await within(errors.get())).code for _ in range(2)]
        assert codes == ["game-id", "replay"]
        n = len(host.table.log)
        assert bo.send_game("chat", {"text": "sorry"})
        await until(lambda: all(len(lan.records(s)) == n + 1 for s in range(3)), "the chat")
        recs = [lan.records(s) for s in range(3)]
        assert recs[0] == recs[1] == recs[2]
        assert parse_message(_msg_of(recs[0][-1])).kind == "chat"
        prefix_verifies(recs[0])
        assert bo.fatal is None and ana.fatal is None
    finally:
        await lan.close()


@pytest.mark.slow
@virtual_time
async def test_a_seat_that_never_opens_its_seed_is_timed_out(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """The round is played out (bots), then Bo keeps its seed to itself — the classic
    abort of a player who saw how the round went. After ``answer_timeout`` the host times
    it out at the opening; every seat's transcript verifies up to that entry."""
    lan = await Lan.start(tmp_path, bo_withholds=lambda k, b: k == "open")
    host, (ana, bo) = lan.host, lan.peers
    try:
        host_task = asyncio.ensure_future(host.done.wait())
        sessions = [NetSession(host, host_task, bot=make_bot("heuristic", 0)),
                    *(NetSession(p, t, bot=make_bot("heuristic", i + 1))
                      for i, (p, t) in enumerate(zip(lan.peers, lan.tasks, strict=True)))]
        await within(asyncio.gather(*(s.run() for s in sessions)), 120)
        for s in sessions:
            assert (s.verdict or "").startswith("game stopped: seat 2 at open"), s.verdict
        assert ana.unconfirmed() == [] and bo.unconfirmed() == []  # honest host: relayed
        recs = [lan.records(s) for s in range(3)]
        assert recs[0] == recs[1] == recs[2]
        stopped_at_last(recs[0], 2, "open")
    finally:
        await lan.close()


@virtual_time
async def test_evidence_the_host_forged_is_ignored(tmp_path: Path, clock: VirtualLoop) -> None:
    """The host shows Ana 'evidence' against Bo: a message Bo never signed. Ana keeps
    evidence only if the author's signature verifies; this is dropped."""
    lan = await Lan.start(tmp_path)
    host, ana = lan.host, lan.peers[0]
    try:
        assert host.table is not None
        table = host.table
        msg = Author(Identity.generate(), table.game_id, 2,
                     table.log.next_counter(2)).message("chat", {"text": "I cheat"},
                                                        seen=table.log.seen())[0]
        host.conns[1].send(Evidence(msg, os.urandom(64), "cheat",
                                    "seat 2 at shares: a wrong share"))
        n = len(table.log)
        assert lan.peers[1].send_game("chat", {"text": "hello"})  # a frame after it
        await until(lambda: ana.table is not None and len(ana.table.log) > n, "the chat")
        assert ana.evidence == [] and ana.fatal is None
    finally:
        await lan.close()


class SilentForkingHost(ForkingHost):
    """Forks as ForkingHost does and relays no ack at all, so no peer can compare heads
    during the game (it still counts them, to finish)."""

    def _on_ack(self, conn: Conn, raw: bytes) -> None:
        if self.table is not None and conn.seat is not None:
            ack = self.table.log.check_ack(raw)
            self.acked[conn.seat] = max(self.acked.get(conn.seat, -1), ack.seq)


@virtual_time
async def test_a_fork_hidden_by_withholding_every_ack_goes_no_further_than_the_next_message(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """A host that forks Ana's and Bo's logs (the order of two commits) and relays no ack
    at all. Before every message named the entry its author had seen (splitnet/4), both
    chains went on unnoticed to two whole games, flagged only at the end ('Not confirmed
    by …'). Now Bo's chain stops at the first message made after the fork: Bo stops
    naming the host, whose shuffle never comes there. On Ana's chain the game then waits
    for Bo's shuffle, which Bo never made on it, and the host's `timeout` names Bo — the
    host's word, which is all a fork still buys (SECURITY.md §4). The two transcripts,
    each a valid chain, convict the host."""
    host = SilentForkingHost(Identity.generate(), tmp_path / "p0", "Host", net(), seats=3,
                             proofs=False)
    lan = await Lan.start(tmp_path, host)
    ana, bo = lan.peers
    try:
        why = await lan.stopped(bo)
        assert why == "the host's seat (Host) owed its shuffle for 2 s [host seat 0 at fault]"
        await until(lambda: ana.table is not None and ana.table.core.verdict is not None,
                    "Ana's game stops")
        assert ana.table is not None and ana.table.core.verdict is not None
        v = ana.table.core.verdict
        assert (v.seat, v.step) == (2, "shuffle") and "did not answer" in v.reason, v
        assert ana.fatal is None  # Ana cannot tell that the host framed Bo
        a, b = lan.records(1), lan.records(2)
        at = host.fork_at
        assert at is not None and a[:at] == b[:at] and a[at] != b[at]
        assert prove_equivocation(a[at], b[at], host.key) == at
        assert len(b) == at + 2  # Bo's chain: the two commits, and nothing after them
        prefix_verifies(b)
        stopped_at_last(a, 2, "shuffle")
    finally:
        await lan.close()


class ReplayingHost(HostNode):
    """Starts its game under the id of an earlier game (the header is new, the id is
    not) and, when Bo commits, orders Bo's commit from that earlier game instead: signed
    by Bo, for this game id, round and seat, with the right counter and proof — but made
    having seen an entry of the earlier game's log, which no check of its own lets it
    order: it makes the record by hand and sends it to everyone. (``resigned``: the old
    commit's body signed again by Bo's key for this log, as by a thief of that key —
    valid to every check but its author's own.)"""

    old: tuple[bytes, bytes] | None = None
    #: Bo's key, stolen: the old commit is signed again for this log
    stolen: Identity | None = None

    def _on_msg(self, conn: Conn, msg: bytes, sig: bytes) -> None:
        table = self.table
        if (self.old is None or table is None or conn.seat != 2
                or parse_message(msg).kind != "commit"):
            super()._on_msg(conn, msg, sig)
            return
        counter = parse_message(msg).counter
        msg, sig = self.old
        self.old = None
        if self.stolen is not None:
            body = dict(parse_message(msg).body)
            super()._on_msg(conn, *Author(self.stolen, table.game_id, 2, counter).message(
                "commit", body, seen=table.log.seen()))
            return
        with pytest.raises(WireError) as refused:  # the host's own check refuses it
            table.check(msg, sig, 2)
        assert refused.value.code == "seen", refused.value
        entry = encode([TAG_ENTRY, len(table.log), table.log.head(), msg, sig])
        record = encode([entry, self.identity.sign(entry)])
        for c in self.conns.values():
            c.send(Rec(len(table.log), record))


@pytest.mark.parametrize("resigned", [False, True], ids=["verbatim", "re-signed"])
@virtual_time
async def test_a_message_from_an_earlier_game_with_the_same_id_is_refused(
        tmp_path: Path, clock: VirtualLoop, resigned: bool) -> None:
    """Bo's commit of an earlier game under this game id names an entry of that game's
    log as seen (its header is another): every peer refuses the record, naming the host,
    before anything is built on it. The same commit signed again for this log (by Bo's
    key, stolen) passes every check but one: Bo's own node checks every entry in its name
    against what it would make (each protocol message is a function of its seed and the
    log), and stops naming the host."""
    from splitnet.games.split.local import LocalGame
    from splitnet.games.split.rules import Settings

    ids = [Identity.generate() for _ in range(3)]
    old_id = os.urandom(16)

    class Earlier:
        def game_id(self) -> bytes:
            return old_id

        def identity(self, seat: int) -> Identity:
            return ids[seat]

        def round_seeds(self, seat: int) -> Callable[[int], bytes]:
            return lambda rnd: os.urandom(32)

    earlier = LocalGame(["Host", "Ana", "Bo"], Settings(), Earlier(), shuffle_proofs=False)
    earlier.pump()
    commit = next(e for e in earlier.log.entries if e.author == 2 and e.kind == "commit")
    host = ReplayingHost(ids[0], tmp_path / "p0", "Host", net(), seats=3, proofs=False,
                         game_id_maker=lambda: old_id)
    host.old = (commit.msg_bytes, commit.sig)
    host.stolen = ids[2] if resigned else None
    mem = MemoryNet()
    port = await host.listen("127.0.0.1", 0, transport=mem.listen)
    peers, tasks = [], []
    for i, name in ((1, "Ana"), (2, "Bo")):
        p = PeerNode(ids[i], tmp_path / f"p{i}", name, "127.0.0.1", port, net(),
                     connect=mem.connector("127.0.0.1", port))
        peers.append(p)
        tasks.append(p.start())
        await until(lambda i=i: len(host.members) >= i, "a joiner in the lobby")
    lan = Lan(host, peers, tasks, tmp_path, mem)
    try:
        for node in (peers[1],) if resigned else tuple(peers):
            why = await lan.stopped(node)
            if resigned:
                assert "host seat 0 at fault" in why and "did not make" in why, why
            else:  # where the earlier game's entry would be here, or another one
                assert why.startswith("bad record from the host: seq ") and (
                    "host ordered a bad message: seat 2's message " in why) and (
                    "[seat 0 at fault]" in why) and "having seen" in why, why
        assert host.old is None and host.table is not None
        recs = lan.records(2)
        if resigned:  # ordered: valid to everyone but its author
            assert parse_message(_msg_of(recs[-1])).kind == "commit"
        else:  # refused: the transcripts end before it
            assert recs == lan.records(1) == host.table.log.records()[:len(recs)]
        prefix_verifies(recs)
    finally:
        await lan.close()


class TwoFacedHost(ForkingHost):
    """Forks as ForkingHost does, then at once hands Bo the other chain's record at the
    fork seq as well: two host-signed records for one seq, to one peer."""

    shown_both = False

    def _on_msg(self, conn: Conn, msg: bytes, sig: bytes) -> None:
        super()._on_msg(conn, msg, sig)
        table, at = self.table, self.fork_at
        if table is None or at is None or self.shown_both or len(table.log) <= at:
            return
        self.shown_both = True
        bo = self.conns[2]
        cells = bo.send.__closure__ or ()  # ForkingHost's wrapper keeps the plain send
        plain = next(c.cell_contents for c in cells if callable(c.cell_contents))
        plain(Rec(at, table.log.records()[at]))


@virtual_time
async def test_a_peer_shown_two_host_signed_records_for_one_seq_keeps_the_proof(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """Row 103: Bo holds the host's record at the fork seq and is then handed the other
    chain's, also host-signed. Bo stops naming the host and keeps both in GAME.fork
    (0600); `splitnet verify` on Bo's transcript then fails naming the host at that seq
    though the transcript alone verifies. A .fork file that proves nothing (garbage, two
    records of which one is not the host's) convicts nobody."""
    from splitnet.session.log import check_fork_evidence, fork_evidence
    from splitnet.verify import EXIT_FAILED, fork_proof, run_verify

    host = TwoFacedHost(Identity.generate(), tmp_path / "p0", "Host", net(), seats=3,
                        proofs=False)
    lan = await Lan.start(tmp_path, host)
    _, bo = lan.peers
    try:
        why = await lan.stopped(bo)
        assert "equivocated" in why and ".fork" in why, why
        assert bo.table is not None
        path = bo.table.files.transcript
        fork = path.with_suffix(".fork")
        assert fork.stat().st_mode & 0o777 == 0o600
        at = host.fork_at
        recs = lan.records(2)
        assert at is not None and check_fork_evidence(fork.read_bytes(), recs, host.key) == at
        prefix_verifies(recs)  # the transcript alone: a valid chain
        line = fork_proof(path, recs)
        assert line is not None and f"FAILED at entry {at} (seat 0)" in line, line
        assert run_verify(path) == EXIT_FAILED
        # nothing else convicts: garbage, and a record that is not the host's
        fork.write_bytes(b"\x00garbage")
        assert fork_proof(path, recs) is None
        other = Identity.generate()
        assert check_fork_evidence(fork_evidence("splitnet/v1/fork-records", recs[at],
                                                 recs[at]), recs, host.key) is None
        assert check_fork_evidence(fork_evidence("splitnet/v1/fork-records", recs[at],
                                                 recs[at + 1]), recs,
                                   other.public_key_bytes()) is None
    finally:
        await lan.close()
