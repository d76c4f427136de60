"""Attacks on the way into a game (protocol/SECURITY.md §6, the lobby rows): someone who
knows the join code sitting between a joiner and the host, a fake host collecting code
guesses, and someone *without* the code trying to shut a seated player out — by using up
the game's or the player's own address's wrong-code budget, by holding every connection
slot, or by replaying a recorded JOIN.

Each game runs in this process over 127.0.0.1 with the commands' own join-code wrap
(``splitnet.net.links.node_wrap``: SPAKE2, seat proofs, the attempt limiter, "busy"): a host
(seat 0) and one joiner (seat 1), bots on both seats, no shuffle proofs (not the point),
short timings. The attack runs once the game has started; then the joiner's connection
is cut, it reconnects through the attack, and the game is played to its end.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from splitnet.app.lan_session import NetSession
from splitnet.bots import make_bot
from splitnet.net.config import NetSettings
from splitnet.net.framing import read_frame, write_frame
from splitnet.net.host import HostNode
from splitnet.net.joincode import parse_code
from splitnet.net.links import node_wrap, secure_busy
from splitnet.net.peer import PeerFatal, PeerNode
from splitnet.net.secure import (
    MAX_UNANSWERED,
    R_BUSY,
    R_REPLAYED,
    T_HELLO,
    T_REFUSE,
    AttemptLimiter,
    HostHandshake,
    SecureChannel,
    TooManyAttempts,
    WrongCode,
    refuse_busy,
    secure_client_handshake,
    secure_server_handshake,
)
from splitnet.net.wire import (
    NET_PROTOCOL,
    ChannelClosed,
    decode_frame,
    encode_msg,
    sign_hello,
)
from splitnet.session.identity import Identity
from splitnet.session.transcript import read_transcript
from splitnet.verify import verify_records

LIMIT = 30.0  # seconds any one wait may take on a loaded machine
GAME_LIMIT = 150.0  # one whole two-player game
CODE = "7-lunar-anchor"
WRONG = "8-lunar-anchor"

FAST = dict(ping_interval=0.1, silent_after=0.5, host_timeout=0.8, ack_interval=0.05,
            final_wait=5.0, retry_first=0.05, retry_max=0.5, handshake_timeout=5.0)


def net(**change: float) -> NetSettings:
    return NetSettings(**{**FAST, **change})  # type: ignore[arg-type]


async def until(pred: Callable[[], bool], what: str, limit: float = LIMIT) -> None:
    for _ in range(int(limit / 0.02)):
        if pred():
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")


class Clock:
    """The attempt limiter's clock, advanced by the test."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class SecureLan:
    """A host and one joiner in this process, every connection through the join code."""

    def __init__(self, tmp: Path, limiter: AttemptLimiter, host_net: NetSettings) -> None:
        self.tmp = tmp
        self.limiter = limiter
        self.host = HostNode(Identity.generate(), tmp / "p0", "Host", host_net, seats=2,
                             proofs=False, code=CODE, busy=secure_busy,
                             wrap=node_wrap(parse_code(CODE), host_net, limiter=limiter,
                                        seats=lambda: self.host.player_keys()))
        self.port = 0
        self.peer: PeerNode | None = None
        self.task: asyncio.Task[None] | None = None

    @classmethod
    async def start(cls, tmp: Path, *, limiter: AttemptLimiter | None = None,
                    host_net: NetSettings | None = None,
                    via: Callable[[int], Any] | None = None) -> SecureLan:
        lan = cls(tmp, limiter or AttemptLimiter(clock=Clock()), host_net or net())
        lan.port = await lan.host.listen("127.0.0.1", 0)
        port = lan.port if via is None else await via(lan.port)
        identity = Identity.generate()
        peer_net = net()
        lan.peer = PeerNode(identity, tmp / "p1", "Ana", "127.0.0.1", port, peer_net,
                            wrap=node_wrap(parse_code(CODE), peer_net, identity=identity),
                            code=CODE)
        lan.task = lan.peer.start()
        await asyncio.wait_for(lan.host.started.wait(), LIMIT)
        await asyncio.wait_for(lan.peer.started_evt.wait(), LIMIT)
        await until(lambda: lan.peer is not None and lan.peer.ready, "the joiner in sync")
        return lan

    async def cut_and_reconnect(self) -> None:
        """Cut seat 1's connection at the host; wait until it is back in its seat."""
        peer = self.peer
        assert peer is not None
        old = self.host.conns[1]
        epoch = peer.epoch
        old.close()
        await until(lambda: peer.epoch > epoch, "the joiner to notice the cut")
        await until(lambda: self.host.conns.get(1) not in (None, old) and peer.ready,
                    "seat 1 to reconnect")

    async def play_to_the_end(self) -> None:
        """Bots on both seats; the game must finish with no verdict, one transcript."""
        assert self.peer is not None and self.task is not None
        host_task = asyncio.ensure_future(self.host.done.wait())
        sessions = [NetSession(self.host, host_task, bot=make_bot("heuristic", 0)),
                    NetSession(self.peer, self.task, bot=make_bot("heuristic", 1))]
        await asyncio.wait_for(asyncio.gather(*(s.run() for s in sessions)), GAME_LIMIT)
        for s in sessions:
            assert s.core.finished and s.core.verdict is None, s.verdict
        assert self.peer.fatal is None
        recs = [read_transcript(next((self.tmp / f"p{i}" / "games").glob("*.splitlog")),
                                repair=True) for i in (0, 1)]
        assert recs[0] == recs[1] and verify_records(recs[0]).ok

    async def close(self) -> None:
        await self.host.close()
        if self.task is not None:
            self.task.cancel()
            await asyncio.gather(self.task, return_exceptions=True)


async def guess(port: int, code: str, *, local: str = "127.0.0.1",
                identity: Identity | None = None) -> BaseException | SecureChannel:
    """One join attempt; what came of it."""
    r, w = await asyncio.open_connection("127.0.0.1", port, local_addr=(local, 0))
    try:
        return await secure_client_handshake(r, w, code, timeout=LIMIT, identity=identity)
    except Exception as e:
        return e
    finally:
        w.close()


# ------------------------------------------------------------------ someone in between


class Middle:
    """Someone who knows the join code between joiners and the host: two join-code
    handshakes per connection (one as the host, one as a joiner), then every splitnet
    frame relayed unchanged, in both directions — except what ``rewrite`` changes."""

    def __init__(self, target: int,
                 rewrite: Callable[[str, bytes, SecureChannel, SecureChannel], bytes]
                 | None = None) -> None:
        self.target = target
        self.rewrite = rewrite
        self.relayed: list[tuple[str, str]] = []  # (direction, frame type)
        self.server: asyncio.Server | None = None
        self.tasks: set[asyncio.Task[Any]] = set()

    async def start(self, target: int) -> int:
        self.target = target
        self.server = await asyncio.start_server(self._conn, "127.0.0.1", 0)
        return int(self.server.sockets[0].getsockname()[1])

    async def _conn(self, r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
        me = asyncio.current_task()
        assert me is not None
        self.tasks.add(me)
        try:
            joiner = await secure_server_handshake(r, w, CODE, timeout=LIMIT)
            hr, hw = await asyncio.open_connection("127.0.0.1", self.target)
            host = await secure_client_handshake(hr, hw, CODE, timeout=LIMIT)

            async def pipe(src: SecureChannel, dst: SecureChannel, way: str) -> None:
                while True:
                    payload = await src.recv()
                    t = decode_frame(payload, from_host=way == "down")["t"]
                    self.relayed.append((way, t))
                    if self.rewrite is not None:
                        payload = self.rewrite(way, payload, joiner, host)
                    await dst.send(payload)

            await asyncio.gather(pipe(joiner, host, "up"), pipe(host, joiner, "down"))
        except Exception:
            pass
        finally:
            w.close()

    async def close(self) -> None:
        if self.server is not None:
            self.server.close()
        for t in list(self.tasks):
            t.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)


async def test_someone_with_the_code_in_between_is_refused_by_the_joiner(
        tmp_path: Path) -> None:
    """A relay that knows the code runs one handshake with the joiner and another with
    the host and passes the splitnet frames on unchanged. Nobody compares verification
    words; the joiner still stops: the host's challenge is signed for the other
    encrypted connection (its channel binding is not ours). Nothing of the joiner's
    reaches the host's lobby."""
    host_net = net()
    host = HostNode(Identity.generate(), tmp_path / "p0", "Host", host_net, seats=2,
                    proofs=False, busy=secure_busy,
                    wrap=node_wrap(parse_code(CODE), host_net, limiter=AttemptLimiter()))
    port = await host.listen("127.0.0.1", 0)
    middle = Middle(port)
    mport = await middle.start(port)
    identity = Identity.generate()
    peer = PeerNode(identity, tmp_path / "p1", "Ana", "127.0.0.1", mport, net(),
                    wrap=node_wrap(parse_code(CODE), net(), identity=identity))
    try:
        with pytest.raises(PeerFatal) as e:
            await asyncio.wait_for(peer.run(), LIMIT)
        assert "auth:" in str(e.value) and "sits between" in str(e.value)
        assert "channel binding" in str(e.value)
        assert ("down", "challenge") in middle.relayed
        assert ("up", "hello") not in middle.relayed  # it stopped before signing one
        assert host.members == [] and host.lobby_names == ["Host"]
    finally:
        await middle.close()
        await host.close()


async def test_a_relayed_hello_signed_for_another_connection_is_refused_by_the_host(
        tmp_path: Path) -> None:
    """The other direction: a joiner that signs its hello for its own channel (as every
    joiner does) — relayed by someone with the code into a second connection — is
    refused by the host with a clear error naming the channel binding, and it does not
    enter the lobby. (The joiner here does not check the challenge, to reach the host's
    check; the relay changes nothing.)"""
    host_net = net()
    host = HostNode(Identity.generate(), tmp_path / "p0", "Host", host_net, seats=2,
                    proofs=False, busy=secure_busy,
                    wrap=node_wrap(parse_code(CODE), host_net, limiter=AttemptLimiter()))
    port = await host.listen("127.0.0.1", 0)
    middle = Middle(port)
    mport = await middle.start(port)
    try:
        r, w = await asyncio.open_connection("127.0.0.1", mport)
        ch = await secure_client_handshake(r, w, CODE, timeout=LIMIT)
        chal = decode_frame(await ch.recv(), from_host=True)
        assert chal["t"] == "challenge" and chal["bind"] != ch.binding
        me = Identity.generate()
        await ch.send(encode_msg(
            "hello", v=NET_PROTOCOL, name="Ana", key=me.public_key_bytes(), game=None,
            have=0, head=None, bind=ch.binding,
            sig=sign_hello(me, chal["nonce"], chal["key"], "Ana", None, 0, ch.binding)))
        err = decode_frame(await asyncio.wait_for(ch.recv(), LIMIT), from_host=True)
        while err["t"] == "ping":
            err = decode_frame(await asyncio.wait_for(ch.recv(), LIMIT), from_host=True)
        assert (err["t"], err["code"], err["fatal"]) == ("error", "auth", True)
        assert "another encrypted connection" in err["reason"]
        assert "sits between" in err["reason"]
        assert host.members == []
        w.close()
    finally:
        await middle.close()
        await host.close()


# ------------------------------------------------------------------ a fake host


async def test_a_joiner_stops_after_a_few_joins_a_fake_host_leaves_unanswered(
        tmp_path: Path) -> None:
    """A fake host (no code) sends a real HELLO, reads the JOIN — one offline guess of the
    code for it — and hangs up, again and again. ``splitnet join`` stops after
    MAX_UNANSWERED such attempts in a row, with one line saying why, and a non-zero
    exit; it never reaches a lobby."""
    joins: list[bytes] = []

    async def fake(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
        hs = HostHandshake(WRONG)
        await write_frame(w, hs.hello())
        with contextlib.suppress(Exception):
            joins.append(await read_frame(r))
        w.close()

    server = await asyncio.start_server(fake, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "splitnet.cli", "join", f"127.0.0.1:{port}", "--plain",
            "--code", CODE, "--name", "Ana", "--data-dir", str(tmp_path / "p1"),
            "--net-timing", "retry_first=0.01",
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        _, err = await asyncio.wait_for(proc.communicate(), LIMIT)
    finally:
        server.close()
    text = err.decode()
    assert proc.returncode not in (0, None)
    assert len(joins) == MAX_UNANSWERED, (len(joins), text)
    lines = [line for line in text.splitlines() if "in a row" in line]
    assert len(lines) == 1, text
    assert "stopping" in lines[0] and "guess" in lines[0], lines[0]
    assert "Traceback" not in text
    assert not list((tmp_path / "p1").glob("games/*"))


async def test_unanswered_joins_are_counted_only_in_a_row(tmp_path: Path) -> None:
    """A host that hangs up on a JOIN now and then (a restart) costs nothing: a
    successful handshake resets the count."""
    lan = await SecureLan.start(tmp_path)
    assert lan.peer is not None
    real = lan.host.wrap
    hung = 0

    async def flaky(channel: Any, role: str) -> Any:
        nonlocal hung
        if hung < MAX_UNANSWERED - 1:
            hung += 1
            channel.send(HostHandshake(CODE).hello())
            with contextlib.suppress(Exception):
                await channel.recv()
            channel.close()
            raise ChannelClosed("hung up")
        return await real(channel, role)

    try:
        for _ in range(2):
            hung = 0
            lan.host.wrap = flaky
            await lan.cut_and_reconnect()
            assert hung == MAX_UNANSWERED - 1
        lan.host.wrap = real
        await lan.play_to_the_end()
    finally:
        await lan.close()


async def test_a_busy_host_is_retried_with_back_off(tmp_path: Path) -> None:
    """'busy' is "try again later" to the joiner: REFUSE 6 instead of HELLO, three times;
    the joiner says so in its status ("the host is busy … — retrying (n)"), backs off
    (its wait doubles with n), gets back in and the game finishes."""
    lan = await SecureLan.start(tmp_path)
    peer = lan.peer
    assert peer is not None
    real = lan.host.wrap
    turned: list[int] = []
    statuses: list[str] = []
    peer.subscribe(lambda: statuses.append(peer.net_status or ""))

    async def busy(channel: Any, role: str) -> Any:
        if len(turned) < 3:
            turned.append(1)
            refuse_busy(channel, "every connection slot is in use", 1.0)
            await channel.drain()
            channel.close()
            raise ChannelClosed("busy")
        return await real(channel, role)

    try:
        lan.host.wrap = busy
        await lan.cut_and_reconnect()
        assert len(turned) == 3
        busy_lines = [st for st in statuses if st.startswith("the host is busy")]
        # the count that doubles the wait each time (retry_first · 2^n, up to retry_max)
        for n in (1, 2, 3):
            assert any(st.endswith(f"try again in 1 s — retrying ({n})")
                       for st in busy_lines), statuses
        lan.host.wrap = real
        await lan.play_to_the_end()
    finally:
        await lan.close()


# ------------------------------------------------------------------ shutting a player out


async def test_twenty_wrong_codes_from_elsewhere_do_not_shut_a_seated_player_out(
        tmp_path: Path) -> None:
    """Someone without the code spends the game's whole budget (20 wrong codes, from
    seven other addresses): the game takes no new joiner — a right code from a stranger
    is refused like a wrong one — but seat 1 reconnects (its JOIN proves its identity
    key) and the game is played to its end."""
    lan = await SecureLan.start(tmp_path)
    try:
        results = []
        for i in range(21):
            results.append(await guess(lan.port, WRONG, local=f"127.0.0.{2 + i // 3}"))
        assert sum(isinstance(r, WrongCode) for r in results) == 20
        assert isinstance(results[-1], TooManyAttempts) and results[-1].scope == "game"
        assert lan.limiter.failures == 20
        stranger = await guess(lan.port, CODE, local="127.0.0.9")
        assert isinstance(stranger, TooManyAttempts) and stranger.scope == "game"
        await lan.cut_and_reconnect()
        assert lan.limiter.failures == 20  # the reconnect was no attempt
        await lan.play_to_the_end()
    finally:
        await lan.close()


async def test_three_wrong_codes_from_the_players_own_address_do_not_block_it(
        tmp_path: Path) -> None:
    """Someone on the player's own machine or NAT (127.0.0.1, as the player) tries three
    wrong codes: that address is locked out for 600 s — a stranger there with the right
    code is told the real wait — yet seat 1, from that very address, reconnects and the
    game finishes. The wait counts down on the limiter's (injected) clock."""
    clock = Clock()
    lan = await SecureLan.start(tmp_path, limiter=AttemptLimiter(clock=clock))
    try:
        for _ in range(3):
            assert isinstance(await guess(lan.port, WRONG), WrongCode)
        clock.now += 20
        stranger = await guess(lan.port, CODE, identity=Identity.generate())
        assert isinstance(stranger, TooManyAttempts) and stranger.scope == "address"
        assert stranger.retry_after == 580
        assert "try again in 9 min 40 s" in str(stranger)
        await lan.cut_and_reconnect()
        assert lan.limiter.failures_from("127.0.0.1") == 3
        await lan.play_to_the_end()
    finally:
        await lan.close()


async def test_holding_every_connection_slot_does_not_keep_a_seated_player_out(
        tmp_path: Path) -> None:
    """Someone without the code opens all 32 connection slots, stays silent in the
    handshake, and opens a new one whenever one closes. Seat 1's reconnect takes the
    place of the oldest (which is told "busy": REFUSE 6, try again later), and the game
    is played to its end while the slots stay held."""
    lan = await SecureLan.start(tmp_path)
    held: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []
    refusals: list[bytes] = []
    stop = asyncio.Event()

    async def hold() -> None:
        r, w = await asyncio.open_connection("127.0.0.1", lan.port)
        held.append((r, w))
        try:
            hello = await read_frame(r)
            assert hello[0] == T_HELLO
            refusals.append(await read_frame(r))  # only ever "busy"
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            w.close()

    async def attacker() -> None:
        tasks: set[asyncio.Task[None]] = set()
        while not stop.is_set():
            while len([t for t in tasks if not t.done()]) < lan.host.net.max_conns:
                tasks.add(asyncio.ensure_future(hold()))
                await asyncio.sleep(0)
            await asyncio.sleep(0.02)
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    attack = asyncio.ensure_future(attacker())
    try:
        await until(lambda: len(lan.host._securing) == lan.host.net.max_conns,
                    "every slot held")
        await lan.cut_and_reconnect()
        assert refusals and all(f[0] == T_REFUSE and f[1] == R_BUSY for f in refusals)
        await lan.play_to_the_end()
        assert len(held) > lan.host.net.max_conns  # it took each freed slot again
    finally:
        stop.set()
        await attack
        await lan.close()


async def test_a_replayed_join_is_not_counted_as_a_wrong_code(tmp_path: Path) -> None:
    """Someone records seat 1's JOIN (here: a relay that keeps the first frame upwards)
    and replays it, from seat 1's own address, more often than that address may guess
    wrong. The host recognises each as a replay (REFUSE 7, nothing counted), so a
    newcomer from that address still gets in with the right code, seat 1 reconnects and
    the game finishes."""
    recorded: list[bytes] = []

    async def recording_relay(port: int) -> int:
        async def conn(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
            hr, hw = await asyncio.open_connection("127.0.0.1", port)

            async def pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter,
                           keep: bool) -> None:
                with contextlib.suppress(Exception):
                    while True:
                        frame = await read_frame(src)
                        if keep and not recorded:
                            recorded.append(frame)
                        await write_frame(dst, frame)
                dst.close()

            await asyncio.gather(pipe(r, hw, True), pipe(hr, w, False))

        server = await asyncio.start_server(conn, "127.0.0.1", 0)
        return int(server.sockets[0].getsockname()[1])

    lan = await SecureLan.start(tmp_path, via=recording_relay)
    try:
        assert recorded and len(recorded[0]) == 179  # a JOIN with its seat proof
        for _ in range(5):
            r, w = await asyncio.open_connection("127.0.0.1", lan.port)
            assert (await read_frame(r))[0] == T_HELLO
            await write_frame(w, recorded[0])
            reply = await read_frame(r)
            assert reply[:2] == bytes([T_REFUSE, R_REPLAYED])
            w.close()
        assert lan.limiter.failures == 0 and lan.limiter.replays == 5
        newcomer = await guess(lan.port, CODE)
        assert isinstance(newcomer, SecureChannel)  # the address is not locked out
        newcomer.close()
        await lan.cut_and_reconnect()
        await lan.play_to_the_end()
    finally:
        await lan.close()
