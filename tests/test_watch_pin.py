"""The watcher's own defences (protocol/NETWORK.md §14.9, SECURITY.md rows 143–145) and
the host's handshake on a watch invitation's channel (§14.8), in process on the
in-memory network:

- ``--host-key``: a watcher pinned to one host's fingerprint refuses any other in one
  line, before it sends its ``watch``, and writes nothing; pinned to the right one it
  watches; either way it is told the host's key as it first answers;
- a rerun resumes from its file only under the host its header names: another host
  that holds the watch code and claims that game is refused, the file unchanged;
- a watcher stops after ``MAX_UNANSWERED`` WATCH JOINs in a row that got neither an
  ACCEPT nor a REFUSE (each gave whoever answers one guess of the watch code);
- a watch invitation's channel lets watch and nothing else: a JOIN on it never passes
  (and is counted on that wormhole alone, never by the players' limiter), a ``hello`` after its
  watch handshake is refused; a join invitation's channel takes no watcher.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from splitnet.app.lan_session import LAN_PARTS
from splitnet.games.split.bots import make_bot
from splitnet.net import wormhole
from splitnet.net.config import NetSettings
from splitnet.net.frames import Bye, Challenge, Hello, HostError, Rec, Watch, Welcome
from splitnet.net.host import HostNode
from splitnet.net.joincode import parse_code
from splitnet.net.links import node_wrap, secure_busy, watch_invitation_wrap
from splitnet.net.secure import AttemptLimiter, HostHandshake
from splitnet.net.secure_watch import HostWatch
from splitnet.net.watcher import WatchFatal, WatchNode, check_fingerprint, watch_wrap, watched_path
from splitnet.net.wire import (
    NET_PROTOCOL,
    Channel,
    ChannelWrap,
    Connect,
    WireError,
    decode_frame,
    encode_typed,
    sign_challenge,
    sign_hello,
)
from splitnet.session.identity import Identity, fingerprint
from splitnet.session.transcript import TranscriptWriter
from tests.memnet import MemoryNet
from tests.test_net_timing import stop
from tests.test_watch_mem import CODE, WATCH, frames_until, watch_at
from tests.virtual_time import VirtualLoop, virtual_time

D = NetSettings()


def a_game() -> tuple[Any, list[bytes]]:
    from tests.test_open_hand import new_game

    g, _ = new_game(2, False, seed=5)
    g.run_bots([make_bot("normal", i) for i in range(2)])
    return g, g.log.records()


def showing(key_of: Identity, gid: bytes | None, records: list[bytes]) -> Any:
    """A host (plain channel) whose challenge is signed by ``key_of`` and names the game
    ``gid``; it sends ``records`` from the watcher's ``have`` on, then ``bye``."""
    async def serve(ch: Any) -> None:
        nonce = bytes(32)
        ch.send(encode_typed(Challenge(NET_PROTOCOL, nonce, key_of.public_key_bytes(), gid,
                                       None, sign_challenge(key_of, nonce, gid, None))))
        with contextlib.suppress(Exception):
            w = decode_frame(await ch.recv(), from_host=False)
            assert isinstance(w, Watch)
            ch.send(encode_typed(Welcome(None, gid, len(records), True)))
            for seq in range(w.have, len(records)):
                ch.send(encode_typed(Rec(seq, records[seq])))
            ch.send(encode_typed(Bye("game over")))
            while True:
                await ch.recv()
    return serve


def test_a_pinned_watcher_refuses_another_host_and_follows_the_right_one(
        tmp_path: Path) -> None:
    """SECURITY.md row 143. Whoever knows the watch code and answers at the address can
    show a made-up game that verifies (its own keys, its own signatures): the watcher is
    told the host's fingerprint as it first answers, and with ``--host-key`` refuses any
    other key in one line before its ``watch`` — nothing watched, no file."""
    g, records = a_game()
    impostor = Identity.generate()
    real = fingerprint(g.host.public_key_bytes())

    async def main() -> None:
        seen: list[bytes] = []
        node, err = await watch_at(tmp_path / "w", showing(impostor, None, records),
                                   pin=real.upper().replace("-", ""), on_host=seen.append)
        assert isinstance(err, WatchFatal), err
        assert f"the host's key fingerprint is {fingerprint(impostor.public_key_bytes())}, " \
               f"not {real} (--host-key)" in str(err)
        assert node.have == 0 and not (tmp_path / "w" / "watched").exists()
        assert seen == []  # (refused before it is shown as the host)
        node, err = await watch_at(tmp_path / "w", showing(g.host, None, records), pin=real,
                                   on_host=seen.append)
        assert err is None and node.over and node.have == len(records)
        assert seen == [g.host.public_key_bytes()]

    asyncio.run(main())
    with pytest.raises(ValueError, match="20 hex digits"):
        check_fingerprint("3f2a-91c0-5be7-d4a8")


def test_a_rerun_resumes_only_under_the_host_its_file_names(tmp_path: Path) -> None:
    """SECURITY.md row 143. A watcher killed mid-game is run again; at the address now
    answers another host that holds the watch code and claims that very game (ids are
    public): the file's header names the game's host, so the watcher stops in one line
    and the file is as it was; the real host is followed to the end from the file."""
    g, records = a_game()
    gid = g.log.game_id
    path = watched_path(tmp_path / "w", gid)
    path.parent.mkdir(parents=True)
    w = TranscriptWriter(path)
    for rec in records[:6]:
        w.append(rec)
    w.close()
    saved = path.read_bytes()

    async def main() -> None:
        node, err = await watch_at(tmp_path / "w", showing(Identity.generate(), gid, records))
        assert isinstance(err, WatchFatal) and "names another host" in str(err), err
        assert path.read_bytes() == saved
        node, err = await watch_at(tmp_path / "w", showing(g.host, gid, records))
        assert err is None and node.over and node.resumed == 6 and node.have == len(records)

    asyncio.run(main())


def test_a_watcher_stops_after_three_watch_joins_left_unanswered(tmp_path: Path) -> None:
    """SECURITY.md row 144. Something at the address runs the host's side of the watch
    handshake up to the WATCH JOIN — which lets it test one guess of the watch code
    offline — and hangs up, again and again: the watcher stops after ``MAX_UNANSWERED``
    (3) in a row, saying why, as a joiner does; it never gives a fourth guess."""
    code = parse_code(WATCH)
    joins: list[bytes] = []

    async def guesser(ch: Any) -> None:
        with contextlib.suppress(Exception):
            host = HostHandshake(parse_code(CODE), game_id=bytes(16))
            ch.send(host.hello())
            hw = HostWatch(code, host.hello(), game_id=bytes(16))
            ch.send(hw.receive_watch(await ch.recv()))
            joins.append(await ch.recv())  # one guess to test offline, then hang up
        ch.close()

    async def main() -> None:
        mem = MemoryNet()
        _, port = await mem.listen(guesser, "127.0.0.1", 0)
        node = WatchNode(tmp_path / "w", "Cy", mem.connector("127.0.0.1", port),
                         wrap=watch_wrap(code, D), net=D)
        with pytest.raises(WatchFatal, match="3 times in a row: stopping"):
            await asyncio.wait_for(node.run(), 60)
        await mem.close()

    asyncio.run(main())
    assert len(joins) == 3


@virtual_time
async def test_a_rerun_that_met_the_host_before_waits_the_long_bound(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """NETWORK.md §14 item 8: a watcher run again with a watch invitation's resume
    secret may wait ``wormhole_idle`` (30 s) for the host to give its killed wormhole up
    and meet it again — longer than ``first_contact`` (20 s): it counts ``retry_total``
    at once, as a joiner resuming its game, and watches; a first run gives up."""
    g, records = a_game()
    mem = MemoryNet()
    _, port = await mem.listen(showing(g.host, None, records), "127.0.0.1", 0)
    inner = mem.connector("127.0.0.1", port)

    comes = [clock.time() + 30.0]  # the host comes to the resume wormhole 30 s on

    async def connect() -> Channel:
        if clock.time() < comes[0]:
            raise ConnectionError("the host has not come to resume wormhole 0")
        return await inner()

    first = WatchNode(tmp_path / "a", "Cy", connect, net=D)
    with pytest.raises(WatchFatal, match="gave up after 20 s"):
        await clock.run_until(first.run(), within=60.0)
    comes[0] = clock.time() + 30.0
    again = WatchNode(tmp_path / "b", "Cy", connect, net=D, resuming=True)
    await clock.run_until(again.run(), within=60.0)
    assert again.over and again.have == len(records)
    await mem.close()


# ------------------------------------------------ a watch invitation's channel at the host
PW_WATCH, PW_JOIN = bytes(range(32)), bytes(range(32, 64))
#: client addresses standing for a watch invitation's wormhole and a join invitation's
THROUGH_WATCH, THROUGH_JOIN = "10.9.9.9", "10.8.8.8"


def tagged(ch: Channel) -> Channel:
    """The host's side of a connection as a wormhole would hand it over: the channel of
    a watch invitation (``watch_only``) or of a join invitation, with its password."""
    peer = ch.peer.rsplit(":", 1)[0]
    if peer in (THROUGH_WATCH, THROUGH_JOIN):
        ch.password = PW_WATCH if peer == THROUGH_WATCH else PW_JOIN  # type: ignore[attr-defined]
        ch.watch_only = peer == THROUGH_WATCH  # type: ignore[attr-defined]
    return ch


async def internet_host(tmp: Path, mem: MemoryNet, tag: Callable[[Channel], Channel],
                        limiter: AttemptLimiter, watch_limiter: AttemptLimiter,
                        lan: ChannelWrap) -> tuple[HostNode, Callable[[str], Connect]]:
    """A host with the wrap of ``host --internet`` (its players' ``limiter``, its
    watchers' ``watch_limiter``, ``lan`` for a channel of no wormhole) listening on
    ``mem``, whose connections ``tag`` makes a wormhole's; and a connector from an
    address."""
    host: HostNode = HostNode(
        Identity.generate(), tmp / "host", "Host", D, seats=3, parts=LAN_PARTS,
        code=CODE, busy=secure_busy, proofs=False,
        wrap=wormhole.per_channel_wrap(
            lambda pw: node_wrap(pw, D, limiter=limiter, seats=lambda: host.player_keys()),
            lan, watch=lambda pw: watch_invitation_wrap(pw, D, watch_limiter)))

    async def transport(serve: Any, bind: str, port: int) -> Any:
        return await mem.listen(lambda ch: serve(tag(ch)), bind, port)

    port = await host.listen("127.0.0.1", 0, transport=transport)

    def connect(local: str) -> Connect:
        return mem.connector("127.0.0.1", port, local=local)

    return host, connect


@virtual_time
async def test_a_watch_invitation_lets_watch_and_never_gives_a_seat(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """SECURITY.md row 145, NETWORK.md §14.8, with the host's wrap of ``host
    --internet``: through a watch invitation's channel a watcher gets in; a JOIN there
    is refused and counted on that wormhole alone (both limiters untouched), a
    ``hello`` after its watch handshake is refused; through a join invitation's channel
    a watcher is refused ("cannot be watched") while a player gets in."""
    mem = MemoryNet()
    limiter, watch_limiter = AttemptLimiter(clock=clock.time), AttemptLimiter(clock=clock.time)
    host, connect = await internet_host(tmp_path, mem, tagged, limiter, watch_limiter,
                                        node_wrap(parse_code(CODE), D, limiter=limiter))

    cy = WatchNode(tmp_path / "cy", "Cy", connect(THROUGH_WATCH), wrap=watch_wrap(PW_WATCH, D),
                   net=D)
    cy.start()
    await clock.until(lambda: host.watchers.count == 1, "Cy watching", within=10.0)
    me = Identity.generate()
    raw = await connect(THROUGH_WATCH)()
    with pytest.raises(WireError, match="wrong code"):  # a seat through a watch invitation
        await clock.run_until(node_wrap(PW_WATCH, D, identity=me)(raw, "client"), within=10.0)
    assert watch_limiter.failures == 0 and limiter.failures == 0  # (row 149)
    raw = await connect(THROUGH_WATCH)()
    ch = await clock.run_until(watch_wrap(PW_WATCH, D)(raw, "client"), within=10.0)
    f = decode_frame(await clock.run_until(ch.recv(), within=10.0), from_host=True)
    assert isinstance(f, Challenge)
    ch.send(encode_typed(Hello(NET_PROTOCOL, "Mallory", me.public_key_bytes(),
                               sign_hello(me, f.nonce, f.key, "Mallory", None, 0, ch.binding),
                               None, 0, None, ch.binding)))
    e = await clock.run_until(frames_until(ch, lambda f: isinstance(f, HostError)),
                              within=10.0)
    assert e[-1].fatal and "a watch code gives no seat" in e[-1].reason
    di = WatchNode(tmp_path / "di", "Di", connect(THROUGH_JOIN), wrap=watch_wrap(PW_JOIN, D),
                   net=D)
    with pytest.raises(WatchFatal, match="cannot be watched"):  # a join invitation
        await clock.run_until(di.run(), within=20.0)
    raw = await connect(THROUGH_JOIN)()
    ana = await clock.run_until(node_wrap(PW_JOIN, D, identity=me)(raw, "client"),
                                within=10.0)
    assert not getattr(ana, "watcher", False)  # a player's channel: the hello's to send
    assert host.lobby_names == ["Host"] and host.watchers.count == 1
    assert limiter.failures == 0
    ch.close()
    ana.close()
    cy.stop()
    await stop(clock, host, [], mem)


def test_a_lan_watch_code_given_as_a_watch_invitation_is_told_how_it_is_used() -> None:
    """``splitnet watch 9-comet-tiger`` (the LAN watch code, without the address) is taken
    for a watch invitation; when that fails, the line says how a watch code is given."""
    from splitnet.app.lan_watch import _lan_hint

    assert "splitnet watch ADDR --code 9-comet-tiger" in _lan_hint(WATCH)
    assert _lan_hint("7-crossover-clockwork") == ""  # a wormhole code: no such hint
