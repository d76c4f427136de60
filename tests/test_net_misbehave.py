"""A misbehaving peer: a test client that speaks the protocol itself, plays its seat
honestly, and in between sends every kind of bad input. Each one is refused with the
right error code, and nobody's state or saved log changes: the honest host and bot
processes finish the game, and all three transcripts are identical and verify (real
processes on loopback: the whole path, the first test).

The others run in this process on virtual time over the in-memory network
(tests/virtual_time.py, tests/memnet.py) with the real default timings, and check when
things happen, to the instant: a failed proof refused and relayed as evidence one hop
later, and the cheat's node resynchronising after ``retry_first``; a seat gone silent
shown as "not answering" at the first heartbeat past ``silent_after``, then
"disconnected" the moment its connection ends.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import pytest

from splitnet.app.lan_session import NetSession
from splitnet.games.split.bots import make_bot
from splitnet.games.split.rules import Discard, DrawPile, action_to_dict
from splitnet.net.config import NetSettings
from splitnet.net.framing import MAX_FRAME
from splitnet.net.host import HostNode
from splitnet.net.peer import PeerNode
from splitnet.net.secure import SecureLink, secure_wrap
from splitnet.net.store import GameFiles
from splitnet.net.wire import (
    NET_PROTOCOL,
    ChannelClosed,
    StreamChannel,
    decode_frame,
    encode_msg,
    sign_hello,
)
from splitnet.session.codec import encode
from splitnet.session.identity import Identity
from splitnet.session.log import Author, Entry, make_ack
from splitnet.session.transcript import read_transcript
from splitnet.verify import verify_records
from tests.memnet import Link, MemoryNet
from tests.test_net_game import TIMEOUT, Proc, game_file, host_port_and_code, wait_until
from tests.virtual_time import VirtualLoop, virtual_time

D = NetSettings()  # the defaults, as a player runs them
GAME_LIMIT = 3600.0  # one whole game, in loop time
HOP = 0.125  # each memory link's delay, each way


class Evil:
    """Bad input over the evil node's own (authenticated) connection."""

    def __init__(self, node: PeerNode, code: str) -> None:
        self.node = node
        self.code = code
        self.errors: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        node.error_hooks.append(self.errors.put_nowait)
        self.seen: list[tuple[str, str]] = []

    @property
    def table(self) -> Any:
        assert self.node.table is not None
        return self.node.table

    def author(self, game_id: bytes | None = None) -> Author:
        """A throwaway author at the next free counter (the honest one is untouched)."""
        t = self.table
        return Author(t.identity, game_id or t.game_id, t.seat, t.log.next_counter(t.seat))

    def send_payload(self, payload: bytes) -> None:
        assert self.node.ch is not None
        self.node.ch.send(payload)

    def send_msg(self, msg: bytes, sig: bytes) -> None:
        self.send_payload(encode_msg("msg", msg=msg, sig=sig))

    async def expect(self, code: str, what: str) -> None:
        f = await asyncio.wait_for(self.errors.get(), 20)
        self.seen.append((what, f.code))
        assert f.code == code, f"{what}: expected {code}, got {f}"

    def draw_body(self, round_no: int | None = None) -> dict[str, Any]:
        r = self.table.core.round
        return {"round": round_no if round_no is not None else r.number,
                "move": action_to_dict(DrawPile(self.table.seat))}

    async def at_our_turn(self) -> None:
        t = self.table
        seat = t.seat
        # undecodable, off-schema and wrong-direction frames
        self.send_payload(b"\xc1\x00junk")
        await self.expect("garbage", "garbage frame")
        self.send_payload(encode({"t": "msg", "msg": 5, "sig": b""}))
        await self.expect("schema", "msg with an int for bytes")
        self.send_payload(encode({"t": "hack"}))
        await self.expect("schema", "unknown frame type")
        self.send_payload(encode({"t": "welcome", "seat": 0, "game": None, "count": 0,
                                  "ready": True}))
        await self.expect("protocol", "a host-only frame")
        # bad signature
        msg, sig = self.author().message("move", self.draw_body(), seen=t.log.seen())
        self.send_msg(msg, bytes([sig[0] ^ 0x80]) + sig[1:])
        await self.expect("author-sig", "a flipped signature bit")
        # a message signed as another seat
        other = (seat + 1) % t.n
        fake = Author(t.identity, t.game_id, other, t.log.next_counter(other))
        self.send_msg(*fake.message("chat", {"text": "hi"}, seen=t.log.seen()))
        await self.expect("author-sig", "a message claiming another seat")
        # another game, another round
        self.send_msg(*self.author(os.urandom(16)).message("move", self.draw_body(),
                                                           seen=t.log.seen()))
        await self.expect("game-id", "a message for another game")
        self.send_msg(*self.author().message(
            "move", self.draw_body(t.core.round.number + 1), seen=t.log.seen()))
        await self.expect("round", "a message for another round")
        # a replay of our own logged accept
        accept: Entry = next(e for e in t.log.entries if e.author == seat and
                             e.kind == "accept")
        self.send_msg(accept.msg_bytes, accept.sig)
        await self.expect("replay", "a replayed message")
        # out of turn: a commitment during play
        self.send_msg(*self.author().message("commit", {"round": t.core.round.number},
                                            seen=t.log.seen()))
        await self.expect("out-of-turn", "a commitment during play")
        # illegal: discard a card we do not hold, in the draw phase
        not_mine = next(s for s in range(104) if s not in t.core.engine.hands[seat])
        body = {"round": t.core.round.number, "move": action_to_dict(Discard(seat, not_mine))}
        self.send_msg(*self.author().message("move", body, seen=t.log.seen()))
        await self.expect("illegal", "an illegal move")
        # acks: undecodable, and of a head the host never had
        self.send_payload(encode_msg("ack", ack=b"junk"))
        await self.expect("ack", "a garbage ack")
        self.send_payload(encode_msg("ack", ack=make_ack(t.identity, t.game_id, 1, bytes(32),
                                                         seat=seat)))
        await self.expect("fork", "an ack of a head the host never had")
        self.send_payload(encode_msg("rec", seq=5, record=b"\x90"))
        await self.expect("protocol", "records nobody asked for")
        # strangers: another game's id, and a key with no seat
        for game, code in ((os.urandom(16), "unknown-game"), (None, "started")):
            r, w = await asyncio.open_connection(self.node.host, self.node.port)
            ch = await secure_wrap(self.code, closed_exc=ChannelClosed)(StreamChannel(r, w),
                                                                       "client")
            chal = decode_frame(await ch.recv(), from_host=True)
            me = Identity.generate()
            ch.send(encode_msg("hello", v=NET_PROTOCOL, name="Mallory",
                               key=me.public_key_bytes(), game=game, have=0, head=None,
                               bind=ch.binding,
                               sig=sign_hello(me, chal.nonce, chal.key, "Mallory",
                                              game, 0, ch.binding)))
            err = decode_frame(await asyncio.wait_for(ch.recv(), 10), from_host=True)
            while err.T == "ping":  # the host pings every connection, this one too
                err = decode_frame(await asyncio.wait_for(ch.recv(), 10), from_host=True)
            self.seen.append(("a stranger's hello", err.code))
            assert err.code == code
            ch.close()
        # last: an oversized frame. The host closes this connection (a stream cannot
        # resync); the node reconnects and resumes by itself.
        assert isinstance(self.node.ch, SecureLink)
        epoch = self.node.epoch
        # under the encryption: a length prefix the host reads before anything else
        self.node.ch.link.writer.write((MAX_FRAME + 1).to_bytes(4, "big"))  # type: ignore[attr-defined]
        await self.expect("too-big", "an oversized frame")
        for _ in range(200):
            if self.node.epoch != epoch and self.node.ready:
                break
            await asyncio.sleep(0.05)
        assert self.node.ready

    def unasked_draw_share(self) -> bool:
        """Our draw share for the top of the pile while nobody is drawing it."""
        t = self.table
        r = t.core.round
        top = t.core.engine.pile_top
        if r is None or r.draw is not None or top is None:
            return False
        body = {"round": r.number, "purpose": "draw",
                **r.deck.shares_message([top], "draw")}
        self.send_msg(*self.author().message("shares", body, seen=t.log.seen()))
        return True

    def out_of_turn(self, entry: Entry) -> bool:
        """Called on every entry, before the node reacts to it: the first time another
        seat has drawn and our draw share is still due, send a move of our own first.
        It reaches the host before our share (one ordered connection), so it is out of
        turn however far the host's view has run ahead of ours."""
        t = self.table
        r = t.core.round
        if (r is None or r.stage != "play" or r.draw is None or r.draw[0] == t.seat
                or t.seat not in r.draw[2] or not self.node.ready or self.node._inflight):
            return False
        self.send_msg(*self.author().message("move", self.draw_body(), seen=t.log.seen()))
        return True


@pytest.mark.slow
async def test_misbehaving_peer_is_refused_while_the_others_finish(tmp_path: Path) -> None:
    host = Proc(tmp_path, "host", "host", "--port", "0", "--bind", "127.0.0.1",
                "--play-as-bot", "heuristic", "--seats", "3", "--no-proofs", "--no-announce",
                "--data-dir", str(tmp_path / "p0"), "--name", "Host")
    try:
        await asyncio.to_thread(wait_until, lambda: "listening on port" in host.stdout(), 30,
                                "the host")
        port, code = host_port_and_code(host)
        bot = Proc(tmp_path, "bot", "bot", f"127.0.0.1:{port}", "--data-dir",
                   str(tmp_path / "p1"), "--name", "Honest", "--code", code)
        await asyncio.to_thread(wait_until,
                                lambda: "joined the lobby" in host.stderr(), 30, "the bot")
        # Mallory was invited (knows the code): what it sends comes through the
        # encrypted channel, and is refused by what the host checks above it
        node = PeerNode(Identity.generate(), tmp_path / "p2", "Mallory", "127.0.0.1", port,
                        NetSettings(), wrap=secure_wrap(code, closed_exc=ChannelClosed))
        task = node.start()
        await asyncio.wait_for(node.started_evt.wait(), 30)
        evil = Evil(node, code)
        busy = True
        session = NetSession(node, task, bot=make_bot("heuristic", 1))
        real_turn = session._my_turn
        session._my_turn = lambda: not busy and real_turn()  # type: ignore[method-assign]
        sent_oot = False

        def on_entry(entry: Entry) -> None:
            nonlocal sent_oot
            if not sent_oot:
                sent_oot = evil.out_of_turn(entry)

        assert node.table is not None
        node.table.listeners.insert(0, on_entry)
        runner = asyncio.ensure_future(session.run())
        for _ in range(1200):  # until it is our turn, at most 60 s
            if node.ready and node.table.core.can_move() and not node._inflight:
                if not sent_oot:
                    # Nobody drew before our turn came: send a draw share that no draw
                    # asked for instead — out of turn just as deterministically.
                    sent_oot = evil.unasked_draw_share()
                if sent_oot:
                    break
            await asyncio.sleep(0.05)
        await evil.expect("out-of-turn", "a move out of turn")
        await evil.at_our_turn()
        busy = False
        session._changed()
        await asyncio.wait_for(runner, TIMEOUT)
        assert node.table.core.finished, session.verdict
        for p in (host, bot):
            rc = await asyncio.to_thread(p.wait, TIMEOUT)
            assert rc == 0, p.stderr()[-2000:]
        files = [game_file(tmp_path / f"p{i}") for i in range(3)]
        data = [f.read_bytes() for f in files if f is not None]
        assert len(data) == 3 and data[0] == data[1] == data[2]
        v = verify_records(read_transcript(files[0]))  # type: ignore[arg-type]
        assert v.ok, v.summary
        # every refusal was logged by the host, in words
        err = host.stderr()
        for code in ("garbage", "schema", "protocol", "author-sig", "game-id", "round",
                     "replay", "out-of-turn", "illegal", "ack", "fork", "too-big",
                     "unknown-game", "started"):
            assert f": {code}: " in err, code
        assert len(evil.seen) == 18
    finally:
        for p in ("host", "bot"):
            proc = locals().get(p)
            if isinstance(proc, Proc) and proc.p.poll() is None:
                proc.p.kill()


class Table:
    """A host (seat 0) and Ana, Bo (seats 1, 2 in join order) on the memory network,
    every link ``HOP`` s each way; ``opened`` notes when each joiner's links were made."""

    def __init__(self, tmp: Path, clock: VirtualLoop, mem: MemoryNet, net: NetSettings,
                 host: HostNode, port: int, bo: PeerNode | None = None) -> None:
        self.tmp, self.clock, self.mem, self.net = tmp, clock, mem, net
        self.host, self.port = host, port
        self.opened: dict[str, list[float]] = {"Ana": [], "Bo": []}
        self.ana = self.joiner("Ana", "a")
        self.bo = bo or self.joiner("Bo", "b")
        self.tasks: list[asyncio.Task[None]] = []

    @classmethod
    async def start(cls, tmp: Path, clock: VirtualLoop, net: NetSettings = D) -> Table:
        mem = MemoryNet()
        host = HostNode(Identity.generate(), tmp / "h", "Host", net, seats=3, proofs=False)
        port = await host.listen("127.0.0.1", 0, transport=mem.listen)
        t = cls(tmp, clock, mem, net, host, port)
        t.tasks.append(t.ana.start())
        await clock.until(lambda: len(host.members) == 1, "Ana first", within=5.0)
        t.tasks.append(t.bo.start())
        await clock.run_until(host.started.wait(), within=5.0)
        for node in (t.ana, t.bo):
            await clock.run_until(node.started_evt.wait(), within=5.0)
        return t

    def joiner(self, name: str, d: str, identity: Identity | None = None,
               resume: Any = None) -> PeerNode:
        def hop(link: Link) -> None:
            link.client.delay = link.server.delay = HOP
            self.opened[name].append(self.clock.time())

        return PeerNode(identity or Identity.generate(), self.tmp / d, name, "127.0.0.1",
                        self.port, self.net, resume=resume,
                        connect=self.mem.connector("127.0.0.1", self.port, on_link=hop))

    async def close(self) -> None:
        await self.host.close()
        for t in self.tasks:
            t.cancel()
        await self.clock.run_until(asyncio.gather(*self.tasks, return_exceptions=True),
                                   within=30.0)
        await self.clock.run_until(self.mem.close(), within=30.0)


@virtual_time
async def test_a_failed_proof_is_shown_to_everyone_as_signed_evidence(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """A seat sends one draw share with a broken proof. The host refuses it ('cheat') the
    moment it arrives (one hop after it was sent) and hands the other seats the signed
    message (one hop later, as the cheat gets its refusal); the cheat's node drops that
    connection, resynchronises on a new one ``retry_first`` later, sends a good share,
    and the game ends — no timeout involved."""
    t = await Table.start(tmp_path, clock)
    host, honest, cheat = t.host, t.ana, t.bo
    try:
        assert cheat.table is not None
        core = cheat.table.core
        real_outbox = core.outbox
        broken_at: list[float] = []

        def outbox() -> list[tuple[str, dict[str, Any]]]:
            out = []
            for kind, body in real_outbox():
                if not broken_at and kind == "shares" and body.get("purpose") == "draw":
                    broken_at.append(clock.time())
                    p = body["proof"]
                    body = {**body, "proof": bytes([p[0] ^ 1]) + p[1:]}
                out.append((kind, body))
            return out

        core.outbox = outbox  # type: ignore[method-assign]
        host_task = asyncio.ensure_future(host.done.wait())
        sessions = [NetSession(host, host_task, bot=make_bot("heuristic", 0)),
                    NetSession(honest, t.tasks[0], bot=make_bot("heuristic", 1)),
                    NetSession(cheat, t.tasks[1], bot=make_bot("heuristic", 2))]
        runs = asyncio.ensure_future(asyncio.gather(*(s.run() for s in sessions)))
        refused_at = await clock.until(lambda: bool(host.evidence), "the host refuses it",
                                       within=GAME_LIMIT)
        sent = broken_at[0]
        assert refused_at == pytest.approx(sent + HOP, abs=1e-9)
        relayed_at = await clock.until(lambda: bool(honest.evidence), "Ana gets it",
                                       within=5.0)
        assert relayed_at == pytest.approx(sent + 2 * HOP, abs=1e-9)
        assert "cheat" in [c for c, *_ in cheat.refusals]  # told in the same instant
        again = await clock.until(lambda: len(t.opened["Bo"]) == 2, "Bo's new connection",
                                  within=5.0)
        assert again == pytest.approx(sent + 2 * HOP + D.retry_first, abs=1e-9)
        await clock.run_until(runs, within=GAME_LIMIT)
        assert all(s.core.finished for s in sessions), [s.verdict for s in sessions]
        cheat_seat = cheat.table.seat
        for node in (host, honest):
            assert [(s, k) for s, k, _ in node.evidence] == [(cheat_seat, "shares")]
        assert any("kept as evidence" in line for line in sessions[1].log)
        files = [game_file(tmp_path / d) for d in ("h", "a", "b")]
        data = {f.read_bytes() for f in files if f is not None}
        assert len(data) == 1
        assert list((tmp_path / "a" / "games").glob("*.evidence"))
        assert len(t.opened["Bo"]) == 2 and len(t.opened["Ana"]) == 1  # one resync, Bo's
    finally:
        await t.close()


@virtual_time
async def test_evidence_kept_and_relayed_per_seat_is_bounded(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """A seated cheater sends one draw share with a broken proof — and then 40 more, each
    different, signed and refused. Each is refused ('cheat'), but the host keeps and
    relays only the first ``max_evidence`` of that seat within ``max_evidence_bytes``
    (one is proof enough): the `.evidence` files and the lists on every peer stay within
    the bound, and the game still ends normally."""
    net = NetSettings(max_evidence=3, max_evidence_bytes=64 * 1024)
    t = await Table.start(tmp_path, clock, net)
    host, honest, cheat = t.host, t.ana, t.bo
    flood = 40
    try:
        assert cheat.table is not None and host.table is not None
        table = cheat.table
        real_outbox = table.core.outbox
        broken = False

        def outbox() -> list[tuple[str, dict[str, Any]]]:
            nonlocal broken
            out = []
            for kind, body in real_outbox():
                if not broken and kind == "shares" and body.get("purpose") == "draw":
                    broken = True
                    p = body["proof"]
                    counter = table.log.next_counter(table.seat)
                    for i in range(flood):  # signed, each one different, all refused
                        bad = {**body, "proof": p[:i] + bytes([p[i] ^ 1]) + p[i + 1:]}
                        msg, sig = Author(cheat.identity, table.game_id, table.seat,
                                          counter).message(kind, bad, seen=table.log.seen())
                        host._on_msg(host.conns[table.seat], msg, sig)
                    body = {**body, "proof": bytes([p[0] ^ 1]) + p[1:]}
                out.append((kind, body))
            return out

        table.core.outbox = outbox  # type: ignore[method-assign]
        host_task = asyncio.ensure_future(host.done.wait())
        sessions = [NetSession(host, host_task, bot=make_bot("heuristic", 0)),
                    NetSession(honest, t.tasks[0], bot=make_bot("heuristic", 1)),
                    NetSession(cheat, t.tasks[1], bot=make_bot("heuristic", 2))]
        await clock.run_until(asyncio.gather(*(s.run() for s in sessions)),
                              within=GAME_LIMIT)
        assert broken
        assert all(s.core.finished and s.core.verdict is None for s in sessions)
        assert "cheat" in [c for c, *_ in cheat.refusals]
        seat = table.seat
        # every one was refused as a cheat: 3 kept, the rest counted and dropped
        assert [s for s, *_ in host.evidence] == [seat] * 3
        assert [s for s, *_ in honest.evidence] == [seat] * 3
        assert host.evidence_kept.dropped[seat] == flood + 1 - 3
        for d in ("h", "a"):
            files = list((tmp_path / d / "games").glob("*.evidence"))
            assert len(files) == 1
            assert files[0].stat().st_size <= 3 * 1024 + net.max_evidence_bytes
    finally:
        await t.close()


@virtual_time
async def test_a_gone_seat_whose_move_is_awaited_is_named_once_in_the_status(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """Bo's move is awaited (nobody plays its seat: its node deals, no one moves) when
    its connection goes: the status says "waiting for Bo (disconnected)" once, not
    "waiting for Bo  — waiting for Bo (disconnected)"."""
    t = await Table.start(tmp_path, clock)
    host = t.host
    try:
        host_task = asyncio.ensure_future(host.done.wait())
        watch = NetSession(host, host_task, bot=make_bot("heuristic", 0))
        others = [watch, NetSession(t.ana, t.tasks[0], bot=make_bot("heuristic", 1))]
        runs = [asyncio.ensure_future(s.run()) for s in others]
        await clock.until(lambda: watch.status == "waiting for Bo", "Bo's move awaited",
                          within=600.0)
        t.tasks[1].cancel()  # Bo's process dies
        await clock.run_until(asyncio.wait([t.tasks[1]]), within=1.0)
        for s in others:
            await clock.until(lambda s=s: "(disconnected)" in s.status, "Bo gone", within=5.0)
            assert s.status == "waiting for Bo (disconnected)", s.status
        for r in runs:
            r.cancel()
        await clock.run_until(asyncio.gather(*runs, return_exceptions=True), within=30.0)
    finally:
        await t.close()


@virtual_time
async def test_status_names_a_silent_then_a_disconnected_seat(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """The others' status line says whom the table waits for and why: a seat that stops
    answering — "not answering" from the first heartbeat past ``silent_after`` (5 s)
    after the last frame the host heard from it, on the host's line and one hop later on
    Ana's —, then one whose connection is gone — "disconnected" the moment its close
    arrives. It comes back from its files and the game ends."""
    t = await Table.start(tmp_path, clock)
    host, ana, bo = t.host, t.ana, t.bo
    try:
        host_task = asyncio.ensure_future(host.done.wait())
        watch = NetSession(host, host_task, bot=make_bot("heuristic", 0))
        others = [watch, NetSession(ana, t.tasks[0], bot=make_bot("heuristic", 1))]
        runs = [asyncio.ensure_future(s.run()) for s in others]
        # Bo freezes: it takes frames in but answers nothing, not even pings
        bo._handle = lambda ch, f: None  # type: ignore[method-assign]
        frozen = clock.time()
        await clock.until(lambda: host.table is not None
                          and host.table.core.waiting_for() == [2], "the table waits for Bo",
                          within=10.0)
        heard = host.conns[2].last_heard
        assert frozen <= heard <= frozen + HOP  # the last frame Bo sent before it froze
        silent = await clock.until(lambda: "waiting for Bo (not answering" in watch.status,
                                   "the host shows Bo silent", within=30.0)
        # beats every second from t=0: the first one more than 5 s after it last heard Bo
        assert silent == pytest.approx(int(heard + D.silent_after) + D.ping_interval,
                                       abs=1e-9)
        told = await clock.until(lambda: "waiting for Bo (not answering" in others[1].status,
                                 "Ana shows Bo silent", within=5.0)
        assert told == pytest.approx(silent + HOP, abs=1e-9)
        # then Bo's process dies: the connection is gone
        t.tasks[1].cancel()
        gone = clock.time()
        await clock.run_until(asyncio.wait([t.tasks[1]]), within=1.0)
        seen = await clock.until(lambda: "waiting for Bo (disconnected)" in watch.status,
                                 "the host shows Bo gone", within=5.0)
        assert seen == pytest.approx(gone + HOP, abs=1e-9)  # its close, one hop on
        seen_ana = await clock.until(
            lambda: "waiting for Bo (disconnected)" in others[1].status,
            "Ana shows Bo gone", within=5.0)
        assert seen_ana == pytest.approx(seen + HOP, abs=1e-9)
        # Bo starts again from its files and the game ends for everyone
        assert bo.table is not None
        meta = GameFiles(tmp_path / "b", bo.table.game_id).load_meta()
        bo2 = t.joiner("Bo", "b", identity=bo.identity, resume=meta)
        t2 = bo2.start()
        t.tasks.append(t2)
        s2 = NetSession(bo2, t2, bot=make_bot("heuristic", 2))
        await clock.run_until(asyncio.gather(s2.run(), *runs), within=GAME_LIMIT)
        assert all(s.core.finished for s in (*others, s2))
    finally:
        await t.close()
