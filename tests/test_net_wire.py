"""The wire: frames, strict decoding, the handshake's refusals, the files a peer keeps,
and a misbehaving peer refused with the right error while the honest ones finish."""

from __future__ import annotations

import asyncio
import os
import stat
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

import pytest

from splitnet.net.addrs import join_addresses, parse_addr
from splitnet.net.config import NetSettings
from splitnet.net.frames import CLASSES, Hello, Rec, typed
from splitnet.net.framing import MAX_FRAME, FrameDecoder, FrameTooLarge, encode_frame
from splitnet.net.host import HostNode
from splitnet.net.store import SeedStore, Transcript
from splitnet.net.wire import (
    NET_PROTOCOL,
    ChannelClosed,
    StreamChannel,
    WireError,
    decode_frame,
    encode_msg,
    sign_hello,
    verify_challenge,
    verify_hello,
)
from splitnet.session.codec import Map, encode
from splitnet.session.identity import Identity
from splitnet.session.transcript import read_transcript

# ---------------------------------------------------------------------- frames and codec


def test_frame_decoder_reassembles_and_caps() -> None:
    d = FrameDecoder()
    data = encode_frame(b"one") + encode_frame(b"two")
    out: list[bytes] = []
    for i in range(len(data)):  # one byte at a time
        out += d.feed(data[i:i + 1])
    assert out == [b"one", b"two"] and d.pending == 0
    with pytest.raises(FrameTooLarge):
        FrameDecoder().feed((MAX_FRAME + 1).to_bytes(4, "big"))
    with pytest.raises(FrameTooLarge):
        FrameDecoder().feed(bytes(4))  # a zero length is refused too
    with pytest.raises(FrameTooLarge):
        encode_frame(b"x" * (MAX_FRAME + 1))


@pytest.mark.parametrize("payload, code", [
    (b"\xc1", "garbage"),                                   # not msgpack
    (b"\xcd\x00\x01", "garbage"),                           # non-canonical int
    (encode([1, 2]), "schema"),                             # not a map
    (encode({"t": "nope"}), "schema"),                      # unknown type
    (encode({"t": "ping"}), "schema"),                      # missing field
    (encode({"t": "ping", "n": -1}), "schema"),             # out of range
    (encode({"t": "ping", "n": 1, "x": 2}), "schema"),      # unexpected field
    (encode({"t": "welcome", "seat": None, "game": None, "count": 0, "ready": True}),
     "protocol"),                                           # host-only frame from a client
])
def test_decode_frame_refuses(payload: bytes, code: str) -> None:
    with pytest.raises(WireError) as e:
        decode_frame(payload, from_host=False)
    assert e.value.code == code


def test_encode_decode_round_trip() -> None:
    f = decode_frame(encode_msg("rec", seq=3, record=b"abc"), from_host=True)
    assert f == Rec(seq=3, record=b"abc") and f.T == "rec"
    with pytest.raises(WireError):
        decode_frame(encode_msg("rec", seq=3, record=b"abc")[:-1], from_host=True)


def test_every_frame_type_is_a_typed_value_with_its_schemas_fields() -> None:
    """Past the wire's edge a frame is its typed value (splitnet/net/frames.py): one
    class per type of NETWORK.md §2, with that type's fields in its order (``need.from``,
    a Python keyword, is ``start``), and a frame built from its own wire form."""
    from splitnet.net.wire import SCHEMAS

    assert set(CLASSES) == set(SCHEMAS)
    for t, (schema, _, _) in SCHEMAS.items():
        assert isinstance(schema, Map)
        wire = [k for k in schema.fields if k != "t"]
        cls = CLASSES[t]
        assert cls.T == t
        assert [f.name for f in fields(cls)] == ["start" if k == "from" else k
                                                  for k in wire], t
    f = typed({"t": "lobby", "players": [{"name": "Ana", "key": b"k" * 32}], "seats": None})
    assert f.T == "lobby" and f.players[0].name == "Ana"  # type: ignore[union-attr]


def test_hello_signature_binds_nonce_and_host() -> None:
    me, host = Identity.generate(), Identity.generate()
    nonce = os.urandom(32)
    bind = os.urandom(32)
    sig = sign_hello(me, nonce, host.public_key_bytes(), "Ana", None, 0, bind)
    hello = Hello(NET_PROTOCOL, "Ana", me.public_key_bytes(), sig, None, 0, None, bind)
    assert verify_hello(hello, nonce, host.public_key_bytes())
    assert not verify_hello(hello, os.urandom(32), host.public_key_bytes())
    assert not verify_hello(replace(hello, name="Bo"), nonce, host.public_key_bytes())
    # bound to the connection: the same hello relayed into another channel fails
    assert not verify_hello(replace(hello, bind=os.urandom(32)), nonce,
                            host.public_key_bytes())
    assert not verify_hello(replace(hello, bind=None), nonce, host.public_key_bytes())


def test_parse_addr() -> None:
    assert parse_addr("192.168.1.20") == ("192.168.1.20", 7420)
    assert parse_addr("host.lan:99") == ("host.lan", 99)
    with pytest.raises(ValueError):
        parse_addr("x:0")
    assert join_addresses("127.0.0.1", 5) == ["127.0.0.1:5"]
    assert join_addresses("0.0.0.0", 5)[-1] == "127.0.0.1:5"


# ---------------------------------------------------------------------- files


def test_seed_store_is_private_durable_and_stable(tmp_path: Path) -> None:
    path = tmp_path / "g.secrets"
    gid = os.urandom(16)
    head = os.urandom(32)
    s = SeedStore(path, gid, 2, head)
    a = s.seed(1)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert SeedStore(path, gid, 2, head).seed(1) == a  # a restart reads the same seed back
    assert SeedStore(path, gid, 2, head).seed(2) != a
    with pytest.raises(ValueError):
        SeedStore(path, os.urandom(16), 2, head)  # another game's secrets are refused
    with pytest.raises(ValueError, match="another game header"):
        SeedStore(path, gid, 2, os.urandom(32))  # so are another header's (same game id)


def test_transcript_write_then_sync_reopen(tmp_path: Path) -> None:
    path = tmp_path / "g.splitlog"
    t = Transcript(path)
    t.write(b"\x91\x01")
    t.write(b"\x91\x02")
    assert read_transcript(path) == [b"\x91\x01", b"\x91\x02"]  # written, even unsynced
    assert t.sync() == 2
    t.close()
    t2 = Transcript(path)
    assert t2.records == [b"\x91\x01", b"\x91\x02"]
    t2.close()


# ---------------------------------------------------------------------- handshake


class Raw:
    """A hand-driven connection to a host."""

    def __init__(self, ch: StreamChannel) -> None:
        self.ch = ch

    @classmethod
    async def open(cls, port: int) -> Raw:
        r, w = await asyncio.open_connection("127.0.0.1", port)
        return cls(StreamChannel(r, w))

    async def recv(self) -> Any:
        return decode_frame(await asyncio.wait_for(self.ch.recv(), 10), from_host=True)

    def send(self, t: str, **kw: Any) -> None:
        self.ch.send(encode_msg(t, **kw))

    async def hello(self, me: Identity, *, name: str = "Eve", game: bytes | None = None,
                    version: str = NET_PROTOCOL, bad_sig: bool = False) -> Any:
        ch = await self.recv()
        assert ch.T == "challenge" and ch.v == NET_PROTOCOL
        assert verify_challenge(ch) and ch.bind is None  # a plain channel
        sig = sign_hello(me, ch.nonce, ch.key, name, game, 0, None)
        if bad_sig:
            sig = bytes([sig[0] ^ 1]) + sig[1:]
        self.send("hello", v=version, name=name, key=me.public_key_bytes(), sig=sig,
                  game=game, have=0, head=None, bind=None)
        return await self.recv()

    async def closed(self) -> bool:
        try:
            await asyncio.wait_for(self.ch.recv(), 5)
        except ChannelClosed:
            return True
        return False


@pytest.fixture
async def host(tmp_path: Path):  # type: ignore[no-untyped-def]
    node = HostNode(Identity.generate(), tmp_path / "host", "Host", NetSettings(),
                    seats=3, proofs=False)
    await node.listen("127.0.0.1", 0)
    yield node
    await node.close()


async def test_garbage_before_hello_is_refused_then_hello_works(host: HostNode) -> None:
    c = await Raw.open(host.port)
    first = await c.recv()
    assert first.T == "challenge"
    c.ch.send(b"\xc1garbage")
    err = await c.recv()
    assert (err.T, err.code, err.fatal) == ("error", "garbage", False)
    me = Identity.generate()
    sig = sign_hello(me, first.nonce, first.key, "Ana", None, 0, None)
    c.send("hello", v=NET_PROTOCOL, name="Ana", key=me.public_key_bytes(), sig=sig,
           game=None, have=0, head=None, bind=None)
    welcome = await c.recv()
    assert welcome.T == "welcome" and welcome.seat is None
    lobby = await c.recv()
    assert lobby.T == "lobby" and [p.name for p in lobby.players] == ["Host", "Ana"]


@pytest.mark.parametrize("how, code", [("bad_sig", "auth"), ("version", "version"),
                                       ("game", "unknown-game")])
async def test_bad_hello_is_refused_and_closed(host: HostNode, how: str, code: str) -> None:
    c = await Raw.open(host.port)
    kw: dict[str, Any] = {"bad_sig": how == "bad_sig"}
    if how == "version":
        kw["version"] = "splitnet-net/0"
    if how == "game":
        kw["game"] = os.urandom(16)
    err = await c.hello(Identity.generate(), **kw)
    assert (err.T, err.code, err.fatal) == ("error", code, True)
    assert await c.closed()
    assert host.lobby_names == ["Host"]  # nothing changed


async def test_oversized_frame_closes_only_that_connection(host: HostNode) -> None:
    ok = await Raw.open(host.port)
    await ok.hello(Identity.generate(), name="Ana")
    c = await Raw.open(host.port)
    await c.recv()
    c.ch.writer.write((MAX_FRAME + 1).to_bytes(4, "big"))
    err = await c.recv()
    assert (err.code, err.fatal) == ("too-big", True)
    assert await c.closed()
    assert host.lobby_names == ["Host", "Ana"]


async def test_lobby_full_and_started(host: HostNode) -> None:
    host.seats = None  # start by hand
    a, b = await Raw.open(host.port), await Raw.open(host.port)
    assert (await a.hello(Identity.generate(), name="Ana")).T == "welcome"
    assert (await b.hello(Identity.generate(), name="Ana")).T == "welcome"
    assert host.lobby_names == ["Host", "Ana", "Ana-2"]  # names made distinct
    await host.start()
    late = await Raw.open(host.port)
    err = await late.hello(Identity.generate())
    assert (err.code, err.fatal) == ("started", True)


async def test_lobby_refuses_a_seventh_player(tmp_path: Path) -> None:
    node = HostNode(Identity.generate(), tmp_path, "Host", NetSettings(), proofs=False)
    await node.listen("127.0.0.1", 0)
    try:
        conns = [await Raw.open(node.port) for _ in range(6)]
        replies = [await c.hello(Identity.generate(), name=f"P{i}")
                   for i, c in enumerate(conns)]
        assert [r.T for r in replies[:5]] == ["welcome"] * 5
        assert (replies[5].T, replies[5].code) == ("error", "full")
        assert node.can_start and len(node.lobby_names) == 6
    finally:
        await node.close()


async def test_too_many_connections_are_refused(tmp_path: Path) -> None:
    node = HostNode(Identity.generate(), tmp_path, "Host", NetSettings(max_conns=2),
                    proofs=False)
    await node.listen("127.0.0.1", 0)
    try:
        a, b = await Raw.open(node.port), await Raw.open(node.port)
        assert (await a.recv()).T == "challenge"
        assert (await b.recv()).T == "challenge"
        c = await Raw.open(node.port)
        err = await c.recv()
        assert (err.T, err.code, err.fatal) == ("error", "busy", True)
        assert await c.closed()
    finally:
        await node.close()


def test_a_seats_presence_is_one_of_three_words_and_typed() -> None:
    """``peers.state`` (NETWORK.md §2): "ok", "silent" or "gone", refused otherwise at
    the wire's edge; past it a :class:`Presence`."""
    from splitnet.net.frames import Peers, Presence

    f = decode_frame(encode({"t": "peers", "peers": [{"seat": 2, "state": "silent",
                                                      "quiet": 7}]}), from_host=True)
    assert isinstance(f, Peers) and f.peers[0].state is Presence.SILENT
    with pytest.raises(WireError) as e:
        decode_frame(encode({"t": "peers", "peers": [{"seat": 2, "state": "asleep",
                                                      "quiet": 7}]}), from_host=True)
    assert e.value.code == "schema" and "'ok', 'silent', 'gone'" in e.value.reason


def test_a_typed_frame_goes_out_as_its_wire_form_and_comes_back_the_same() -> None:
    """``encode_typed`` (what the host and the joiner send) and ``decode_frame`` are each
    other's inverse for a value of every kind, nested ones and ``need.from`` included;
    a value its schema refuses is not sent (a bug of ours, raised)."""
    from splitnet.net.frames import (
        Acks,
        Lobby,
        LobbyPlayer,
        Need,
        Offer,
        Peers,
        PeerState,
        Presence,
        Welcome,
    )
    from splitnet.net.wire import encode_typed
    from splitnet.session.codec import SchemaError

    key = bytes(range(32))
    for f, from_host in ((Need(7), True), (Acks((b"a", b"b")), True),
                         (Lobby((LobbyPlayer("Ana", key),), 3), True),
                         (Peers((PeerState(1, Presence.SILENT, 12),)), True),
                         (Offer(bytes(16), bytes(32), 1, (0, 2)), True),
                         (Welcome(None, None, 0, True), True),
                         (Rec(3, b"abc"), False)):
        assert decode_frame(encode_typed(f), from_host=from_host) == f
    with pytest.raises(SchemaError):
        encode_typed(Need(-1))
