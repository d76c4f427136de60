"""Attacks on the way into a game (protocol/SECURITY.md §6, the lobby rows): someone who
knows the join code sitting between a joiner and the host, a fake host collecting code
guesses, and someone *without* the code trying to shut a seated player out — by using up
the game's or the player's own address's wrong-code budget, by holding every connection
slot, or by replaying a recorded JOIN.

Each game runs in this process on virtual time over the in-memory network
(tests/virtual_time.py, tests/memnet.py: no sockets, no wall clock; the addresses are the
memory network's, so "another address" is just another name) with the commands' own
join-code wrap (``splitnet.net.links.node_wrap``: SPAKE2, seat proofs, the attempt
limiter on the loop's clock, "busy") and the real default timings: a host (seat 0) and
one joiner (seat 1), bots on both seats, no shuffle proofs (not the point). The attacker's
raw attempts run the same join-code handshake over that network
(:func:`~splitnet.net.secure.secure_client_link`). The attack runs once the game has
started (or, for a lobby member, while the lobby waits); then the joiner's connection
is cut, it reconnects through the attack — each retry at its exact instant — and the
game is played to its end (a seat restarted in a rematch lobby likewise gets in). A
stranger that claims a lobby member's or a seat's key to pass the spent limits is
refused. One test, the fake
host, runs ``splitnet join`` as a real process on loopback: the whole path to its exit.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest

from splitnet.app.lan_session import NetSession
from splitnet.games.split.bots import make_bot
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
    secure_client_link,
    secure_server_link,
)
from splitnet.net.wire import (
    NET_PROTOCOL,
    Channel,
    ChannelClosed,
    decode_frame,
    encode_msg,
    sign_hello,
)
from splitnet.session.identity import Identity
from splitnet.session.transcript import read_transcript
from splitnet.verify import verify_records
from tests.memnet import MemoryNet
from tests.virtual_time import LIMIT, VirtualLoop, running, until, virtual_time, within

T = TypeVar("T")
GAME_LIMIT = 600.0  # one whole two-player game, in loop time
CODE = "7-lunar-anchor"
WRONG = "8-lunar-anchor"
D = NetSettings()  # the defaults, as a player runs them


class SecureLan:
    """A host and one joiner in this process, every connection through the join code.
    With ``seats`` 2 the game starts as she joins; with more, she waits in the lobby."""

    def __init__(self, tmp: Path, mem: MemoryNet, limiter: AttemptLimiter,
                 seats: int = 2) -> None:
        self.tmp = tmp
        self.mem = mem
        self.limiter = limiter
        self.host = HostNode(Identity.generate(), tmp / "p0", "Host", D, seats=seats,
                             proofs=False, code=CODE, busy=secure_busy,
                             wrap=node_wrap(parse_code(CODE), D, limiter=limiter,
                                        seats=lambda: self.host.player_keys()))
        self.port = 0
        self.identity = Identity.generate()
        self.peer: PeerNode | None = None
        self.task: asyncio.Task[None] | None = None

    @classmethod
    async def start(cls, tmp: Path, *, limiter: AttemptLimiter | None = None,
                    via: Callable[[MemoryNet, int], Awaitable[int]] | None = None,
                    seats: int = 2) -> SecureLan:
        """``via(mem, port)``: a relay in front of the host; the port the joiner uses."""
        mem = MemoryNet()
        lan = cls(tmp, mem, limiter or AttemptLimiter(clock=running().time), seats)
        lan.port = await lan.host.listen("127.0.0.1", 0, transport=mem.listen)
        port = lan.port if via is None else await via(mem, lan.port)
        identity = lan.identity
        lan.peer = PeerNode(identity, tmp / "p1", "Ana", "127.0.0.1", port, D,
                            wrap=node_wrap(parse_code(CODE), D, identity=identity),
                            code=CODE, connect=mem.connector("127.0.0.1", port))
        lan.task = lan.peer.start()
        if seats > 2:
            await until(lambda: lan.in_lobby() is not None, "the joiner in the lobby")
            return lan
        await within(lan.host.started.wait())
        await within(lan.peer.started_evt.wait())
        await until(lambda: lan.peer is not None and lan.peer.ready, "the joiner in sync")
        return lan

    def in_lobby(self) -> Any:
        """Her connection at the host, if she is in its lobby and knows it."""
        peer = self.peer
        member = next((m for m in self.host.members if m.key == self.identity
                       .public_key_bytes()), None)
        if (member is None or member.conn is None or member.conn.closed or peer is None
                or peer.session.state.value != "lobby"):
            return None
        return member.conn

    async def cut_and_reconnect(self) -> tuple[float, float]:
        """Cut seat 1's connection at the host; wait until it is back in its seat. When
        it was cut, and when it was back."""
        peer = self.peer
        assert peer is not None
        old = self.host.conns[1]
        epoch = peer.epoch
        cut = running().time()
        old.close()
        await until(lambda: peer.epoch > epoch, "the joiner to notice the cut")
        back = await until(lambda: self.host.conns.get(1) not in (None, old) and peer.ready,
                           "seat 1 to reconnect")
        return cut, back

    async def play_to_the_end(self) -> None:
        """Bots on both seats; the game must finish with no verdict, one transcript."""
        assert self.peer is not None and self.task is not None
        host_task = asyncio.ensure_future(self.host.done.wait())
        sessions = [NetSession(self.host, host_task, bot=make_bot("heuristic", 0)),
                    NetSession(self.peer, self.task, bot=make_bot("heuristic", 1))]
        await within(asyncio.gather(*(s.run() for s in sessions)), GAME_LIMIT)
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
            await within(asyncio.gather(self.task, return_exceptions=True))
        await within(self.mem.close())


async def guess(mem: MemoryNet, port: int, code: str, *, local: str = "127.0.0.1",
                identity: Identity | None = None) -> BaseException | SecureChannel:
    """One join attempt from ``local`` over the memory network; what came of it."""
    ch = await mem.connector("127.0.0.1", port, local=local)()
    try:
        return await secure_client_link(ch, code, timeout=LIMIT, identity=identity)
    except Exception as e:
        return e
    finally:
        ch.close()


# ------------------------------------------------------------------ someone in between


class Middle:
    """Someone who knows the join code between joiners and the host: two join-code
    handshakes per connection (one as the host, one as a joiner), then every splitnet
    frame relayed unchanged, in both directions — except what ``rewrite`` changes. It
    listens on the same memory network; its handler tasks end with the network."""

    def __init__(self, mem: MemoryNet, target: int,
                 rewrite: Callable[[str, bytes, SecureChannel, SecureChannel], bytes]
                 | None = None) -> None:
        self.mem = mem
        self.target = target
        self.rewrite = rewrite
        self.relayed: list[tuple[str, str]] = []  # (direction, frame type)

    async def start(self) -> int:
        _, port = await self.mem.listen(self._conn, "127.0.0.1", 0)
        return port

    async def _conn(self, channel: Channel) -> None:
        try:
            joiner = await secure_server_link(channel, CODE, timeout=LIMIT)
            raw = await self.mem.connector("127.0.0.1", self.target)()
            host = await secure_client_link(raw, CODE, timeout=LIMIT)

            async def pipe(src: SecureChannel, dst: SecureChannel, way: str) -> None:
                while True:
                    payload = await src.recv()
                    t = decode_frame(payload, from_host=way == "down").T
                    self.relayed.append((way, t))
                    if self.rewrite is not None:
                        payload = self.rewrite(way, payload, joiner, host)
                    await dst.send(payload)

            await asyncio.gather(pipe(joiner, host, "up"), pipe(host, joiner, "down"))
        except Exception:
            pass
        finally:
            channel.close()


def open_host(tmp: Path, mem: MemoryNet) -> HostNode:
    """A host behind the join code (with its limiter on the loop's clock)."""
    return HostNode(Identity.generate(), tmp / "p0", "Host", D, seats=2, proofs=False,
                    busy=secure_busy,
                    wrap=node_wrap(parse_code(CODE), D,
                                   limiter=AttemptLimiter(clock=running().time)))


@virtual_time
async def test_someone_with_the_code_in_between_is_refused_by_the_joiner(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """A relay that knows the code runs one handshake with the joiner and another with
    the host and passes the splitnet frames on unchanged. Nobody compares verification
    words; the joiner still stops — at once, on the first frame it gets: the host's
    challenge is signed for the other encrypted connection (its channel binding is not
    ours). Nothing of the joiner's reaches the host's lobby."""
    mem = MemoryNet()
    host = open_host(tmp_path, mem)
    port = await host.listen("127.0.0.1", 0, transport=mem.listen)
    middle = Middle(mem, port)
    mport = await middle.start()
    identity = Identity.generate()
    peer = PeerNode(identity, tmp_path / "p1", "Ana", "127.0.0.1", mport, D,
                    wrap=node_wrap(parse_code(CODE), D, identity=identity),
                    connect=mem.connector("127.0.0.1", mport))
    try:
        with pytest.raises(PeerFatal) as e:
            await within(peer.run())
        assert clock.time() == 0.0  # no retry, no timeout: refused on the spot
        assert "auth:" in str(e.value) and "sits between" in str(e.value)
        assert "channel binding" in str(e.value)
        assert ("down", "challenge") in middle.relayed
        assert ("up", "hello") not in middle.relayed  # it stopped before signing one
        assert host.members == [] and host.lobby_names == ["Host"]
    finally:
        await host.close()
        await within(mem.close())


@virtual_time
async def test_a_relayed_hello_signed_for_another_connection_is_refused_by_the_host(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """The other direction: a joiner that signs its hello for its own channel (as every
    joiner does) — relayed by someone with the code into a second connection — is
    refused by the host with a clear error naming the channel binding, and it does not
    enter the lobby. (The joiner here does not check the challenge, to reach the host's
    check; the relay changes nothing.) The refusal is the host's next frame: with no
    time passing, no heartbeat comes in between."""
    mem = MemoryNet()
    host = open_host(tmp_path, mem)
    port = await host.listen("127.0.0.1", 0, transport=mem.listen)
    middle = Middle(mem, port)
    mport = await middle.start()
    try:
        ch = await secure_client_link(await mem.connector("127.0.0.1", mport)(), CODE,
                                      timeout=LIMIT)
        chal = decode_frame(await within(ch.recv()), from_host=True)
        assert chal.T == "challenge" and chal.bind != ch.binding
        me = Identity.generate()
        await ch.send(encode_msg(
            "hello", v=NET_PROTOCOL, name="Ana", key=me.public_key_bytes(), game=None,
            have=0, head=None, bind=ch.binding,
            sig=sign_hello(me, chal.nonce, chal.key, "Ana", None, 0, ch.binding)))
        err = decode_frame(await within(ch.recv()), from_host=True)
        assert clock.time() == 0.0
        assert (err.T, err.code, err.fatal) == ("error", "auth", True)
        assert "another encrypted connection" in err.reason
        assert "sits between" in err.reason
        assert host.members == []
        ch.close()
    finally:
        await host.close()
        await within(mem.close())


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


@virtual_time
async def test_a_fake_host_gets_its_few_guesses_at_the_back_off_instants(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """The same fake host in this process, on virtual time: the joiner's JOINs reach it
    at 0, then ``retry_first`` and twice that later — MAX_UNANSWERED in all — and the
    node stops right after the last with a fatal "gave-up" naming the guesses; it never
    waits out a timeout, and never reaches a lobby."""
    mem = MemoryNet()
    joins: list[float] = []

    async def fake(channel: Channel) -> None:
        channel.send(HostHandshake(WRONG).hello())
        with contextlib.suppress(ChannelClosed):
            await channel.recv()
            joins.append(clock.time())
        channel.close()

    _, port = await mem.listen(fake, "127.0.0.1", 0)
    identity = Identity.generate()
    peer = PeerNode(identity, tmp_path / "p1", "Ana", "127.0.0.1", port, D,
                    wrap=node_wrap(parse_code(CODE), D, identity=identity), code=CODE,
                    connect=mem.connector("127.0.0.1", port))
    with pytest.raises(PeerFatal, match=r"3 times in a row: stopping, since each attempt "
                                        r"lets whoever answers there test one guess"):
        await within(peer.run())
    assert joins == pytest.approx([0.0, 0.1, 0.3], abs=1e-9)
    assert len(joins) == MAX_UNANSWERED and clock.time() == joins[-1]
    assert peer.session.state.value != "lobby" and peer.table is None
    await within(mem.close())


@virtual_time
async def test_unanswered_joins_are_counted_only_in_a_row(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """A host that hangs up on a JOIN now and then (a restart) costs nothing: a
    successful handshake resets the count. Each hang-up is retried after the back-off
    (``retry_first`` doubling), twice in a row, and the game is played to its end."""
    lan = await SecureLan.start(tmp_path)
    assert lan.peer is not None
    real = lan.host.wrap
    hung: list[float] = []

    async def flaky(channel: Any, role: str) -> Any:
        if len(hung) < MAX_UNANSWERED - 1:
            hung.append(clock.time())
            channel.send(HostHandshake(CODE).hello())
            with contextlib.suppress(Exception):
                await channel.recv()
            channel.close()
            raise ChannelClosed("hung up")
        return await real(channel, role)

    try:
        for _ in range(2):
            hung.clear()
            lan.host.wrap = flaky
            cut, back = await lan.cut_and_reconnect()
            assert len(hung) == MAX_UNANSWERED - 1
            # retry_first after the cut, then the wait doubles with each hang-up
            assert [t - cut for t in hung] == pytest.approx([0.1, 0.3], abs=1e-9)
            assert back - cut == pytest.approx(0.7, abs=1e-9)
        lan.host.wrap = real
        await lan.play_to_the_end()
    finally:
        await lan.close()


@virtual_time
async def test_a_busy_host_is_retried_with_back_off(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """'busy' is "try again later" to the joiner: REFUSE 6 instead of HELLO, three times;
    the joiner says so in its status ("the host is busy … — retrying (n)"), backs off —
    its wait doubles with n, each attempt at its exact instant —, gets back in and the
    game finishes."""
    lan = await SecureLan.start(tmp_path)
    peer = lan.peer
    assert peer is not None
    real = lan.host.wrap
    turned: list[float] = []
    statuses: list[str] = []
    peer.subscribe(lambda: statuses.append(peer.net_status or ""))

    async def busy(channel: Any, role: str) -> Any:
        if len(turned) < 3:
            turned.append(clock.time())
            refuse_busy(channel, "every connection slot is in use", 1.0)
            await channel.drain()
            channel.close()
            raise ChannelClosed("busy")
        return await real(channel, role)

    try:
        lan.host.wrap = busy
        cut, back = await lan.cut_and_reconnect()
        # retry_first (0.1 s) after the cut, then 0.2, 0.4, 0.8: retry_first · 2^n
        assert [t - cut for t in turned] == pytest.approx([0.1, 0.3, 0.7], abs=1e-9)
        assert back - cut == pytest.approx(1.5, abs=1e-9)
        busy_lines = [st for st in statuses if st.startswith("the host is busy")]
        for n in (1, 2, 3):
            assert any(st.endswith(f"try again in 1 s — retrying ({n})")
                       for st in busy_lines), statuses
        lan.host.wrap = real
        await lan.play_to_the_end()
    finally:
        await lan.close()


# ------------------------------------------------------------------ shutting a player out


async def spend_the_games_codes(lan: SecureLan) -> None:
    """Someone without the code uses up the game's 20 wrong codes, from seven other
    addresses (3 each, the last one 2); the 21st attempt is refused unjudged."""
    results = []
    for i in range(21):
        results.append(await within(guess(lan.mem, lan.port, WRONG,
                                          local=f"10.0.0.{2 + i // 3}")))
    assert sum(isinstance(r, WrongCode) for r in results) == 20
    assert isinstance(results[-1], TooManyAttempts) and results[-1].scope == "game"
    assert lan.limiter.failures == 20


@virtual_time
async def test_twenty_wrong_codes_from_elsewhere_do_not_shut_a_seated_player_out(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """Someone without the code spends the game's whole budget (20 wrong codes, from
    seven other addresses): the game takes no new joiner — a right code from a stranger
    is refused like a wrong one — but seat 1 reconnects (its JOIN proves its identity
    key) and the game is played to its end."""
    lan = await SecureLan.start(tmp_path)
    try:
        await spend_the_games_codes(lan)
        stranger = await within(guess(lan.mem, lan.port, CODE, local="10.0.0.9"))
        assert isinstance(stranger, TooManyAttempts) and stranger.scope == "game"
        await lan.cut_and_reconnect()
        assert lan.limiter.failures == 20  # the reconnect was no attempt
        await lan.play_to_the_end()
    finally:
        await lan.close()


@virtual_time
async def test_twenty_wrong_codes_from_elsewhere_do_not_shut_a_lobby_member_out(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """The same budget spent while the game is still in its lobby (3 seats, Ana in):
    her connection drops — the host takes her out of the lobby as it notices — and her
    reconnect, whose JOIN proves the key the host let into this lobby, passes the
    spent limits (it used to be refused: "20 wrong codes for this game: it takes no
    more joiners"). She is back in the lobby on her first retry, nothing is counted,
    and the game the host then starts is played to its end."""
    lan = await SecureLan.start(tmp_path, seats=3)
    peer = lan.peer
    assert peer is not None
    try:
        await spend_the_games_codes(lan)
        old = lan.in_lobby()
        cut = clock.time()
        old.close()
        await until(lambda: lan.host.members == [], "the host to take her out")
        back = await until(lambda: lan.in_lobby() not in (None, old), "Ana back in the lobby")
        assert back - cut == pytest.approx(D.retry_first, abs=1e-9)  # her first retry
        assert peer.fatal is None
        assert lan.limiter.failures == 20 and lan.limiter.refused == 1  # (the 21st guess)
        assert lan.host.lobby_names == ["Host", "Ana"]
        await lan.host.start()  # the host's choice: the two of them
        await within(peer.started_evt.wait())
        await until(lambda: peer.ready, "Ana in sync")
        await lan.play_to_the_end()
    finally:
        await lan.close()


class Claim:
    """A seat proof's signer that names ``key`` but signs with ``sign``: a stranger
    claiming a lobby member's key (its own signature, or one the member made for
    another handshake)."""

    def __init__(self, key: bytes, sign: Callable[[bytes], bytes]) -> None:
        self.key, self._sign = key, sign

    def public_key_bytes(self) -> bytes:
        return self.key

    def sign(self, data: bytes) -> bytes:
        return self._sign(data)


@virtual_time
async def test_a_stranger_cannot_pass_the_spent_limits_as_a_lobby_member(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """The way past the limits is a seat proof: a member key's signature over this very
    handshake, sealed under the key of the right code. Once the game's 20 codes are
    spent, a stranger is refused unjudged — with the right code — whether it proves its
    own key, names Ana's key (a member, in the lobby) over its own signature, or seals
    a signature Ana made for another handshake (not fresh: another nonce and SPAKE2
    message); none of it is counted or lets anyone in, and Ana's own proof still
    does."""
    from splitnet.net.secure import L_SEAT_SIG

    lan = await SecureLan.start(tmp_path, seats=3)
    try:
        await spend_the_games_codes(lan)
        ana = lan.identity
        me = Identity.generate()
        stale = ana.sign(L_SEAT_SIG + bytes(32))  # Ana's, over another transcript hash
        tries: list[Any] = [
            me,
            Claim(ana.public_key_bytes(), me.sign),
            Claim(ana.public_key_bytes(), lambda data: stale),
        ]
        for code in (CODE, WRONG):
            for who in tries:
                r = await within(guess(lan.mem, lan.port, code, local="10.0.0.99",
                                       identity=who))
                assert isinstance(r, TooManyAttempts) and r.scope == "game", (code, who, r)
        assert lan.limiter.failures == 20
        assert lan.host.lobby_names == ["Host", "Ana"]
        own = await within(guess(lan.mem, lan.port, CODE, local="10.0.0.99", identity=ana))
        assert isinstance(own, SecureChannel)  # the member's own proof, from anywhere
    finally:
        await lan.close()


@virtual_time
async def test_a_seat_restarted_in_a_rematch_lobby_passes_the_spent_limits_a_stranger_not(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """After the game the host offers its rematch on the same port, with the same code
    and limiter (one run of the host). Someone without the code spends the 20 wrong
    codes. Ana's program, killed in the rematch lobby, is started again: nothing to
    resume, so it joins afresh — its JOIN proves her key, a seat of the finished game,
    so it passes the spent limits; offered the rematch of the game she finished, she
    finds her copy and agrees, and the rematch starts. A stranger with the right code
    naming her key over its own signature is refused unjudged, and counted nothing."""
    from splitnet.app.lan_common import _finished_copy
    from splitnet.game.rematch import PreviousGame

    lan = await SecureLan.start(tmp_path)
    try:
        await lan.play_to_the_end()
        old = lan.host
        assert old.table is not None
        prev = PreviousGame(old.table.log.header, old.table.log.head())
        await old.close()
        rematch = HostNode(old.identity, tmp_path / "p0", "Host", D, proofs=False, code=CODE,
                           busy=secure_busy, rematch_of=prev,
                           wrap=node_wrap(parse_code(CODE), D, limiter=lan.limiter,
                                          seats=lambda: rematch.player_keys()))
        lan.host = rematch
        await rematch.listen("127.0.0.1", lan.port, transport=lan.mem.listen)
        await spend_the_games_codes(lan)
        ana = lan.identity
        claim = Claim(ana.public_key_bytes(), Identity.generate().sign)
        forged = await within(guess(lan.mem, lan.port, CODE, local="10.0.0.99",
                                    identity=claim))
        assert isinstance(forged, TooManyAttempts) and forged.scope == "game"
        again = PeerNode(ana, tmp_path / "p1", "Ana", "127.0.0.1", lan.port, D,
                         wrap=node_wrap(parse_code(CODE), D, identity=ana), code=CODE,
                         connect=lan.mem.connector("127.0.0.1", lan.port),
                         rejoin_rematch=_finished_copy(tmp_path / "p1"))
        lan.peer, lan.task = again, again.start()
        await within(rematch.started.wait())
        await within(again.started_evt.wait())
        assert again.fatal is None and again.table is not None
        assert again.table.game_id == rematch.table.game_id  # type: ignore[union-attr]
        assert lan.limiter.failures == 20
    finally:
        await lan.close()


@virtual_time
async def test_three_wrong_codes_from_the_players_own_address_do_not_block_it(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """Someone on the player's own machine or NAT (127.0.0.1, as the player) tries three
    wrong codes: that address is locked out for 600 s — a stranger there with the right
    code, 20 s later, is told the real wait — yet seat 1, from that very address,
    reconnects and the game finishes. The wait counts down on the host's loop clock."""
    lan = await SecureLan.start(tmp_path)
    try:
        first = clock.time()
        for _ in range(3):
            assert isinstance(await within(guess(lan.mem, lan.port, WRONG)), WrongCode)
        await clock.advance_to(first + 20.0)
        stranger = await within(guess(lan.mem, lan.port, CODE, identity=Identity.generate()))
        assert isinstance(stranger, TooManyAttempts) and stranger.scope == "address"
        assert stranger.retry_after == 580
        assert "try again in 9 min 40 s" in str(stranger)
        await lan.cut_and_reconnect()
        assert lan.limiter.failures_from("127.0.0.1") == 3
        await lan.play_to_the_end()
    finally:
        await lan.close()


@virtual_time
async def test_holding_every_connection_slot_does_not_keep_a_seated_player_out(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """Someone without the code opens all 32 connection slots, stays silent in the
    handshake, and opens a new one whenever one closes. Seat 1's reconnect takes the
    place of the oldest (which is told "busy": REFUSE 6, try again later) on its first
    retry, and the game is played to its end while the slots stay held; a silent
    handshake is closed at exactly ``handshake_timeout``."""
    lan = await SecureLan.start(tmp_path)
    held: list[float] = []  # when each was opened
    ended: list[tuple[float, float]] = []  # (opened, closed) of each closed by the host
    refusals: list[bytes] = []
    stop = asyncio.Event()

    async def hold() -> None:
        opened = clock.time()
        ch = await lan.mem.connector("127.0.0.1", lan.port, local="10.6.6.6")()
        held.append(opened)
        try:
            hello = await ch.recv()
            assert hello[0] == T_HELLO
            refusals.append(await ch.recv())  # only ever "busy"
        except ChannelClosed:
            ended.append((opened, clock.time()))
        finally:
            ch.close()

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
        cut, back = await lan.cut_and_reconnect()
        assert back - cut == pytest.approx(D.retry_first, abs=1e-9)  # its first retry
        assert refusals and all(f[0] == T_REFUSE and f[1] == R_BUSY for f in refusals)
        await clock.advance(2 * D.handshake_timeout)
        assert ended and all(b - a == pytest.approx(D.handshake_timeout, abs=1e-9)
                             for a, b in ended), ended[:3]
        await lan.play_to_the_end()
        assert len(held) > lan.host.net.max_conns  # it took each freed slot again
    finally:
        stop.set()
        await within(attack)
        await lan.close()


@virtual_time
async def test_a_replayed_join_is_not_counted_as_a_wrong_code(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """Someone records seat 1's JOIN (here: a relay that keeps the first frame upwards)
    and replays it, from seat 1's own address, more often than that address may guess
    wrong. The host recognises each as a replay (REFUSE 7, nothing counted), so a
    newcomer from that address still gets in with the right code, seat 1 reconnects and
    the game finishes."""
    recorded: list[bytes] = []

    async def recording_relay(mem: MemoryNet, port: int) -> int:
        async def conn(down: Channel) -> None:
            up = await mem.connector("127.0.0.1", port)()

            async def pipe(src: Channel, dst: Channel, keep: bool) -> None:
                with contextlib.suppress(Exception):
                    while True:
                        frame = await src.recv()
                        if keep and not recorded:
                            recorded.append(frame)
                        dst.send(frame)
                dst.close()

            await asyncio.gather(pipe(down, up, True), pipe(up, down, False))

        _, relay = await mem.listen(conn, "127.0.0.1", 0)
        return relay

    lan = await SecureLan.start(tmp_path, via=recording_relay)
    try:
        assert recorded and len(recorded[0]) == 179  # a JOIN with its seat proof
        for _ in range(5):
            ch = await lan.mem.connector("127.0.0.1", lan.port)()
            assert (await within(ch.recv()))[0] == T_HELLO
            ch.send(recorded[0])
            reply = await within(ch.recv())
            assert reply[:2] == bytes([T_REFUSE, R_REPLAYED])
            ch.close()
        assert lan.limiter.failures == 0 and lan.limiter.replays == 5
        newcomer = await within(guess(lan.mem, lan.port, CODE))
        assert isinstance(newcomer, SecureChannel)  # the address is not locked out
        await lan.cut_and_reconnect()
        await lan.play_to_the_end()
    finally:
        await lan.close()
