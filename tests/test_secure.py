"""Join-code handshake (SPAKE2) and the AEAD channel: protocol/SECURE.md.

Most tests run the real asyncio adapters over TCP on 127.0.0.1 through a recording relay,
so they see exactly the bytes that cross the wire.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import doctest
import hashlib
import json
import os
import stat
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path

import msgpack
import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from spake2 import SPAKE2_B

from splitnet.net import known_peers, secure
from splitnet.net.framing import FrameDecoder, encode_frame, read_frame, write_frame
from splitnet.net.joincode import JoinCode, parse_code, word_list
from splitnet.net.known_peers import KnownPeers, KnownPeersError
from splitnet.net.secure import (
    HELLO_LEN,
    JOIN_LEN,
    MAX_PLAINTEXT,
    OVERHEAD,
    T_REFUSE,
    AttemptLimiter,
    FrameRejected,
    HandshakeError,
    HostHandshake,
    JoinHandshake,
    SecureChannel,
    SecureClosed,
    SecureSession,
    StreamLink,
    TooManyAttempts,
    WrongCode,
    peer_address,
    secure_client_handshake,
    secure_client_link,
    secure_server_handshake,
    secure_server_link,
    secure_wrap,
)
from splitnet.net.wire import challenge_bytes, hello_bytes, sign_challenge, sign_hello
from splitnet.session.identity import Identity, verify
from tests.memnet import MemoryNet
from tests.virtual_time import VirtualLoop, virtual_time

CODE = "42-walnut-harbor"
OTHER = "42-walnut-hazel"
GAME = bytes(range(16))


def det_entropy(seed: bytes) -> Callable[[int], bytes]:
    """A deterministic stand-in for os.urandom (vectors and reproducible captures)."""
    counter = [0]

    def entropy(n: int) -> bytes:
        counter[0] += 1
        return hashlib.shake_256(seed + counter[0].to_bytes(4, "big")).digest(n)

    return entropy


def sans_io_pair(code_host: str = CODE, code_join: str = CODE
                 ) -> tuple[HostHandshake, JoinHandshake]:
    return HostHandshake(code_host, game_id=GAME), JoinHandshake(code_join)


def connected() -> tuple[SecureSession, SecureSession]:
    host, joiner = sans_io_pair()
    step = host.receive_join(joiner.receive_hello(host.hello()))
    j = joiner.receive_reply(step.reply)
    assert step.session is not None
    return step.session, j


def test_doctests() -> None:
    assert doctest.testmod(secure).failed == 0
    assert doctest.testmod(known_peers).failed == 0


# ------------------------------------------------------------------ sans-IO handshake


def test_right_code_gives_matching_sessions() -> None:
    h, j = connected()
    assert h.open(j.seal(b"to host")) == b"to host"
    assert j.open(h.seal(b"to joiner")) == b"to joiner"
    assert h.verification == j.verification
    assert len(h.verification.split("-")) == 4
    assert all(w in word_list() for w in h.verification.split("-"))
    assert h.verification_hex == j.verification_hex
    assert len(h.verification_hex) == 9
    assert h.binding == j.binding and len(h.binding) == 32


def test_codes_are_compared_in_canonical_form() -> None:
    host, joiner = sans_io_pair("42-walnut-harbor", " 42 WALNUT har ")
    step = host.receive_join(joiner.receive_hello(host.hello()))
    assert step.session is not None
    joiner.receive_reply(step.reply)


def test_wrong_code_detected_on_both_ends_in_one_round_trip() -> None:
    host, joiner = sans_io_pair(CODE, OTHER)
    step = host.receive_join(joiner.receive_hello(host.hello()))
    assert isinstance(step.error, WrongCode) and step.session is None
    assert step.reply[0] == T_REFUSE
    with pytest.raises(WrongCode, match="wrong code"):
        joiner.receive_reply(step.reply)


def test_fresh_messages_every_time() -> None:
    hellos = {HostHandshake(CODE, game_id=GAME).hello() for _ in range(3)}
    assert len(hellos) == 3
    joins = set()
    for _ in range(3):
        hello = HostHandshake(CODE, game_id=GAME, nonce=bytes(32),
                              entropy=det_entropy(b"same")).hello()
        joins.add(JoinHandshake(CODE).receive_hello(hello))
    assert len(joins) == 3  # the joiner's SPAKE2 scalar is fresh even for the same HELLO


def test_sessions_differ_between_connections() -> None:
    a, _ = connected()
    b, _ = connected()
    assert a.binding != b.binding and a.verification_hex != b.verification_hex


def test_fake_host_without_the_code_is_caught_by_the_joiner() -> None:
    real = HostHandshake(CODE, game_id=GAME)
    joiner = JoinHandshake(CODE)
    joiner.receive_hello(real.hello())
    with pytest.raises(WrongCode, match="could not prove"):
        joiner.receive_reply(bytes([secure.T_ACCEPT]) + bytes(32))


def test_version_mismatch_both_ways() -> None:
    hello = bytearray(HostHandshake(CODE).hello())
    hello[1] = 2
    with pytest.raises(HandshakeError, match="version 2") as e:
        JoinHandshake(CODE).receive_hello(bytes(hello))
    assert e.value.code == "version"
    host = HostHandshake(CODE)
    joiner = JoinHandshake(CODE)
    join = bytearray(joiner.receive_hello(host.hello()))
    join[1] = 9
    step = host.receive_join(bytes(join))
    assert isinstance(step.error, HandshakeError) and step.error.code == "version"
    with pytest.raises(HandshakeError, match="refused our version") as e:
        joiner.receive_reply(step.reply)
    assert e.value.code == "version"


@pytest.mark.parametrize(
    "mangle",
    [
        lambda m: m[:-1],
        lambda m: m + b"\0",
        lambda m: b"\x07" + m[1:],
        lambda m: b"",
        lambda m: m[:2] + bytes([0x41]) + b"\xff" * 32 + m[35:],  # not a curve point
        lambda m: m[:2] + bytes([0x42]) + m[3:],  # SPAKE2 side B from a joiner
    ],
)
def test_malformed_join_is_refused_and_not_a_guess(mangle: Callable[[bytes], bytes]) -> None:
    host = HostHandshake(CODE)
    join = JoinHandshake(CODE).receive_hello(host.hello())
    step = host.receive_join(mangle(join))
    assert isinstance(step.error, HandshakeError) and not isinstance(step.error, WrongCode)
    assert step.reply[0] == T_REFUSE and step.session is None


@pytest.mark.parametrize("bad", [b"", b"\x01", b"junk" * 30, b"\x01\x01" + bytes(81)])
def test_malformed_hello_is_refused(bad: bytes) -> None:
    with pytest.raises(HandshakeError):
        JoinHandshake(CODE).receive_hello(bad)


def test_state_machines_refuse_misuse() -> None:
    host = HostHandshake(CODE)
    joiner = JoinHandshake(CODE)
    with pytest.raises(HandshakeError):
        joiner.receive_reply(b"\x03" + bytes(32))
    join = joiner.receive_hello(host.hello())
    with pytest.raises(HandshakeError):
        joiner.receive_hello(host.hello())
    host.receive_join(join)
    with pytest.raises(HandshakeError):
        host.receive_join(join)
    with pytest.raises(ValueError):
        HostHandshake(CODE, game_id=b"short")


# ------------------------------------------------------------------ record layer


def test_tampered_frames_are_refused() -> None:
    for i in (0, 5, -1):
        h, j = connected()
        frame = bytearray(j.seal(b"a move in the game"))
        frame[i] ^= 0x01
        with pytest.raises(FrameRejected, match="failed authentication"):
            h.open(bytes(frame))


def test_replay_reorder_drop_truncate_reflect_are_refused() -> None:
    h, j = connected()
    f0, f1, f2 = j.seal(b"zero"), j.seal(b"one"), j.seal(b"two")
    assert h.open(f0) == b"zero"
    with pytest.raises(FrameRejected, match="replayed"):
        h.open(f0)  # replay
    with pytest.raises(FrameRejected):
        h.open(f1)  # the session is dead after a refusal, even for the right frame

    h, j = connected()
    f0, f1 = j.seal(b"zero"), j.seal(b"one")
    with pytest.raises(FrameRejected, match="reordered"):
        h.open(f1)  # reorder / drop of frame 0

    h, j = connected()
    with pytest.raises(FrameRejected):
        h.open(j.seal(b"a longer payload")[:-3])  # truncated frame
    h, j = connected()
    with pytest.raises(FrameRejected, match="shorter than any sealed frame"):
        h.open(b"\x00" * (OVERHEAD - 1))

    h, j = connected()
    own = h.seal(b"from host")
    with pytest.raises(FrameRejected):
        h.open(own)  # reflected back at its sender
    assert f2  # (unused frame)


def test_frames_from_another_connection_are_refused() -> None:
    h1, j1 = connected()
    h2, _ = connected()
    with pytest.raises(FrameRejected):
        h2.open(j1.seal(b"for h1"))
    assert h1.received == 0


def test_close_notice_and_frames_after_it() -> None:
    h, j = connected()
    assert h.open(j.seal(b"last")) == b"last"
    assert h.open(j.seal_close()) is None
    assert j.closed
    with pytest.raises(SecureClosed):
        j.seal(b"more")
    with pytest.raises(FrameRejected, match="after its close notice"):
        h.open(b"\x00" * 40)


def test_plaintext_size_limits() -> None:
    h, j = connected()
    big = os.urandom(MAX_PLAINTEXT)
    frame = j.seal(big)
    assert len(encode_frame(frame)) == 4 + secure.MAX_FRAME
    assert h.open(frame) == big
    with pytest.raises(ValueError):
        j.seal(big + b"x")
    with pytest.raises(ValueError):
        j.seal(b"")


# ------------------------------------------------------------------ vectors


VECTOR_PATH = Path(__file__).parent / "vectors" / "secure_v1.json"
VECTOR = json.loads(VECTOR_PATH.read_text())
#: the joiner's identity key in the seat-join vector, and the host's (RFC 8032 seeds)
SEAT_SEED = bytes([7] * 32)
HOST_SEED = bytes([9] * 32)


def compute_vectors() -> dict[str, str]:
    """Every value of tests/vectors/secure_v1.json, from the implementation. Regenerate
    (only when SECURE.md changes on purpose) with
    ``.venv/bin/python -m tests.test_secure --write-vectors``."""
    code, gid = "7-lunar-anchor", bytes(range(16))
    nonce = bytes(range(0x20, 0x40))
    v: dict[str, str] = {
        "description": "protocol/SECURE.md test vector: python-spake2 0.9 (ParamsEd25519) "
                       "with entropy_f = SHAKE-256(seed || counter32_be) for seeds b'host' "
                       "and b'joiner', counter from 1; the seat join and the splitnet "
                       "challenge/hello use Ed25519 keys from the RFC 8032 seeds 07*32 "
                       "(joiner) and 09*32 (host)",
        "code": code, "game_id": gid.hex(), "nonce": nonce.hex()}
    id_a, id_b = secure.pake_ids(gid, nonce)
    v["idA"], v["idB"] = id_a.hex(), id_b.hex()
    host = HostHandshake(code, game_id=gid, nonce=nonce, entropy=det_entropy(b"host"))
    joiner = JoinHandshake(code, entropy=det_entropy(b"joiner"))
    hello = host.hello()
    join = joiner.receive_hello(hello)
    step = host.receive_join(join)
    assert step.session is not None
    session = joiner.receive_reply(step.reply)
    keys = session._keys
    v.update(hello=hello.hex(), join=join.hex(), accept=step.reply.hex(),
             spake2_key=VECTOR_K(code, id_a, id_b, join).hex(),
             transcript_hash=keys.th.hex(), key_host_to_joiner=keys.key_h2j.hex(),
             key_joiner_to_host=keys.key_j2h.hex(), confirm_joiner=keys.confirm_joiner.hex(),
             confirm_host=keys.confirm_host.hex(), verify=keys.verify.hex(),
             verification=session.verification, verification_hex=session.verification_hex,
             binding=keys.binding.hex(), first_frame_payload=b"hello, host".hex(),
             first_frame_joiner_to_host=session.seal(b"hello, host").hex())
    # the same HELLO answered by a joiner with a seat proof (a fresh host handshake
    # with the same entropy gives the same HELLO)
    me = Identity.from_seed(SEAT_SEED)
    host2 = HostHandshake(code, game_id=gid, nonce=nonce, entropy=det_entropy(b"host"))
    assert host2.hello() == hello
    seat_joiner = JoinHandshake(code, entropy=det_entropy(b"joiner"), identity=me)
    seat_join = seat_joiner.receive_hello(hello)
    step2 = host2.receive_join(seat_join, seats={me.public_key_bytes()})
    assert step2.seat == me.public_key_bytes() and step2.session is not None
    seat_session = seat_joiner.receive_reply(step2.reply)
    sk = seat_session._keys
    v.update(seat_identity_key=me.public_key_bytes().hex(), seat_join=seat_join.hex(),
             seat_transcript_hash=sk.th.hex(), seat_proof_key=sk.seat_key.hex(),
             seat_accept=step2.reply.hex(), seat_binding=sk.binding.hex())
    # the splitnet challenge and hello signed over that channel's binding (NETWORK.md §3)
    host_id = Identity.from_seed(HOST_SEED)
    chal_nonce = bytes(range(0x40, 0x60))
    bind = sk.binding
    v.update(host_identity_key=host_id.public_key_bytes().hex(),
             challenge_nonce=chal_nonce.hex(),
             challenge_signed=challenge_bytes(chal_nonce, host_id.public_key_bytes(), None,
                                              bind).hex(),
             challenge_sig=sign_challenge(host_id, chal_nonce, None, bind).hex(),
             hello_signed=hello_bytes(chal_nonce, host_id.public_key_bytes(), "Ana",
                                      me.public_key_bytes(), None, 0, bind).hex(),
             hello_sig=sign_hello(me, chal_nonce, host_id.public_key_bytes(), "Ana", None, 0,
                                  bind).hex())
    return v


def VECTOR_K(code: str, id_a: bytes, id_b: bytes, join: bytes) -> bytes:
    b = SPAKE2_B(code.encode(), idA=id_a, idB=id_b, entropy_f=det_entropy(b"host"))
    b.start()
    key: bytes = b.finish(join[2:35])
    return key


def test_vector_file_is_what_the_code_makes() -> None:
    assert compute_vectors() == VECTOR


def test_seat_join_and_bound_hello_vector() -> None:
    """The seat proof and the signed challenge/hello, recomputed from SECURE.md §3, §6
    and NETWORK.md §3 with the primitives called directly."""
    v = VECTOR
    prefix = b"splitnet/secure/v1"
    hello, seat_join = bytes.fromhex(v["hello"]), bytes.fromhex(v["seat_join"])
    assert len(seat_join) == secure.SEAT_JOIN_LEN == 179 and seat_join[:2] == b"\x05\x01"
    assert seat_join[2:35] == bytes.fromhex(v["join"])[2:35]  # the same SPAKE2 message
    gid, nonce = bytes.fromhex(v["game_id"]), bytes.fromhex(v["nonce"])
    id_a, id_b = secure.pake_ids(gid, nonce)
    k = VECTOR_K(v["code"], id_a, id_b, seat_join)
    th = hashlib.sha256(prefix + b" transcript" + hello + seat_join[:35]).digest()
    assert th.hex() == v["seat_transcript_hash"]

    def okm(label: bytes, n: int = 32) -> bytes:
        return HKDF(algorithm=hashes.SHA256(), length=n, salt=th,
                    info=prefix + label).derive(k)

    assert seat_join[35:67] == okm(b" confirm joiner")
    assert okm(b" seat proof key").hex() == v["seat_proof_key"]
    plain = ChaCha20Poly1305(okm(b" seat proof key")).decrypt(
        bytes(12), seat_join[67:], prefix + b" seat proof")
    key, sig = plain[:32], plain[32:]
    assert key.hex() == v["seat_identity_key"]
    assert verify(key, prefix + b" seat proof" + th, sig)
    assert bytes.fromhex(v["seat_accept"]) == b"\x03" + okm(b" confirm host")
    assert okm(b" binding").hex() == v["seat_binding"]
    # NETWORK.md §3: the challenge and hello sign this binding
    bind = okm(b" binding")
    hkey, cn = bytes.fromhex(v["host_identity_key"]), bytes.fromhex(v["challenge_nonce"])
    chal = msgpack.packb([b"splitnet/v2/challenge", cn, hkey, None, bind])
    assert chal.hex() == v["challenge_signed"]
    assert verify(hkey, chal, bytes.fromhex(v["challenge_sig"]))
    hel = msgpack.packb([b"splitnet/v2/hello", cn, hkey, "Ana", key, None, 0, bind])
    assert hel.hex() == v["hello_signed"]
    assert verify(key, hel, bytes.fromhex(v["hello_sig"]))


def test_vector() -> None:
    """Fixed entropy, game id and nonce give exactly the bytes of tests/vectors/secure_v1.json
    (quoted in protocol/SECURE.md); each derived value is recomputed here from its
    definition, with the primitives called directly."""
    v = VECTOR
    code, gid, nonce = v["code"], bytes.fromhex(v["game_id"]), bytes.fromhex(v["nonce"])
    host = HostHandshake(code, game_id=gid, nonce=nonce, entropy=det_entropy(b"host"))
    joiner = JoinHandshake(code, entropy=det_entropy(b"joiner"))
    hello = host.hello()
    join = joiner.receive_hello(hello)
    step = host.receive_join(join)
    assert step.session is not None
    session = joiner.receive_reply(step.reply)
    first = session.seal(bytes.fromhex(v["first_frame_payload"]))
    assert (hello.hex(), join.hex(), step.reply.hex()) == (v["hello"], v["join"], v["accept"])
    assert first.hex() == v["first_frame_joiner_to_host"]
    assert step.session.open(first) == b"hello, host"
    assert session.verification == v["verification"] == "flame-paper-oyster-earth"
    assert session.verification_hex == v["verification_hex"]

    # the spec, step by step
    prefix = b"splitnet/secure/v1"
    id_a = prefix + b" pake" + gid + nonce + b"/joiner"
    id_b = prefix + b" pake" + gid + nonce + b"/host"
    assert (id_a.hex(), id_b.hex()) == (v["idA"], v["idB"])
    assert hello == b"\x01\x01" + gid + nonce + hello[-33:] and hello[-33] == ord("B")
    assert join[:2] == b"\x02\x01" and join[2] == ord("A")
    b = SPAKE2_B(code.encode(), idA=id_a, idB=id_b, entropy_f=det_entropy(b"host"))
    assert b.start() == hello[-33:]
    k = b.finish(join[2:35])
    assert k.hex() == v["spake2_key"]
    th = hashlib.sha256(prefix + b" transcript" + hello + join[:35]).digest()
    assert th.hex() == v["transcript_hash"]

    def okm(label: bytes, n: int = 32) -> bytes:
        return HKDF(algorithm=hashes.SHA256(), length=n, salt=th,
                    info=prefix + label).derive(k)

    assert okm(b" key host->joiner").hex() == v["key_host_to_joiner"]
    assert okm(b" key joiner->host").hex() == v["key_joiner_to_host"]
    assert okm(b" confirm joiner").hex() == v["confirm_joiner"] == join[35:].hex()
    assert okm(b" confirm host").hex() == v["confirm_host"] == step.reply[1:].hex()
    assert okm(b" verify", 4).hex() == v["verify"]
    assert okm(b" binding").hex() == v["binding"] == session.binding.hex()
    words = word_list()
    assert "-".join(words[x] for x in okm(b" verify", 4)) == v["verification"]
    aead = ChaCha20Poly1305(okm(b" key joiner->host"))
    seq = 0
    sealed = aead.encrypt(bytes(4) + seq.to_bytes(8, "big"), b"\x00" + b"hello, host",
                          prefix + b" frame" + b"\x02" + seq.to_bytes(8, "big"))
    assert sealed == first


# ------------------------------------------------------------------ over TCP


@dataclass
class Relay:
    """A TCP relay on 127.0.0.1 that records every byte and can rewrite frames."""

    target: int
    hook: Callable[[str, int, bytes], list[bytes]] | None = None
    c2s: bytearray = field(default_factory=bytearray)
    s2c: bytearray = field(default_factory=bytearray)
    port: int = 0
    tasks: set[asyncio.Task[None]] = field(default_factory=set)

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                    direction: str) -> None:
        log = self.c2s if direction == "c2s" else self.s2c
        dec = FrameDecoder(max_len=1 << 20)
        n = 0
        try:
            while data := await reader.read(65536):
                log.extend(data)
                if self.hook is None:
                    writer.write(data)
                else:
                    for frame in dec.feed(data):
                        for out in self.hook(direction, n, frame):
                            writer.write(encode_frame(out))
                        n += 1
                await writer.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            with contextlib.suppress(Exception):
                writer.close()

    async def _handle(self, r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
        self.tasks.add(asyncio.current_task())  # type: ignore[arg-type]
        tr, tw = await asyncio.open_connection("127.0.0.1", self.target)
        await asyncio.gather(self._pipe(r, tw, "c2s"), self._pipe(tr, w, "s2c"))

    @property
    def wire(self) -> bytes:
        return bytes(self.c2s) + bytes(self.s2c)


@dataclass
class Host:
    """A test host: secure handshake, then echo every payload back with a prefix."""

    code: str | JoinCode
    limiter: AttemptLimiter | None = None
    timeout: float = 5.0
    errors: list[BaseException] = field(default_factory=list)
    got: list[bytes] = field(default_factory=list)
    channels: list[SecureChannel] = field(default_factory=list)
    port: int = 0
    tasks: set[asyncio.Task[None]] = field(default_factory=set)

    async def handle(self, r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
        self.tasks.add(asyncio.current_task())  # type: ignore[arg-type]
        try:
            ch = await secure_server_handshake(r, w, self.code, game_id=GAME,
                                               limiter=self.limiter, timeout=self.timeout)
            self.channels.append(ch)
            while True:
                payload = await ch.recv()
                self.got.append(payload)
                await ch.send(b"echo:" + payload)
        except Exception as e:
            self.errors.append(e)
        finally:
            w.close()


@contextlib.asynccontextmanager
async def serve(host: Host, hook: Callable[[str, int, bytes], list[bytes]] | None = None
                ) -> AsyncIterator[Relay]:
    server = await asyncio.start_server(host.handle, "127.0.0.1", 0)
    host.port = server.sockets[0].getsockname()[1]
    relay = Relay(host.port, hook)
    rserver = await asyncio.start_server(relay._handle, "127.0.0.1", 0)
    relay.port = rserver.sockets[0].getsockname()[1]
    try:
        yield relay
    finally:
        rserver.close()
        server.close()
        tasks = [t for t in host.tasks | relay.tasks if not t.done()]
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def join(port: int, code: str, *, local: str | None = None,
               timeout: float = 5.0) -> SecureChannel:
    r, w = await asyncio.open_connection(
        "127.0.0.1", port, local_addr=(local, 0) if local else None)
    return await secure_client_handshake(r, w, code, timeout=timeout)


async def wait_for(cond: Callable[[], bool], limit: float = 3.0) -> None:
    async with asyncio.timeout(limit):
        while not cond():
            await asyncio.sleep(0.01)


GAME_MSG = msgpack.packb({"t": "msg", "kind": "move", "name": "Ana-the-player",
                          "cards": [3, 17, 41], "text": "I play the queen of hearts"})


def code_encodings(code: str) -> list[bytes]:
    """Every way a careless implementation might put the code on the wire."""
    parsed = parse_code(code)
    forms = {str(parsed), str(parsed).upper(), f"{parsed.number} {parsed.first} {parsed.second}",
             f"{parsed.number}{parsed.first}{parsed.second}", f"{parsed.first}-{parsed.second}",
             f"{parsed.first}{parsed.second}", parsed.first, parsed.second,
             f"{parsed.first[:3]}-{parsed.second[:3]}"}
    out: list[bytes] = []
    for f in forms:
        raw = f.encode()
        out += [raw, f.encode("utf-16-le"), f.encode("utf-16-be"), f.encode("utf-32-le"),
                raw.hex().encode(), raw.hex().upper().encode(), base64.b64encode(raw),
                base64.b64encode(raw).rstrip(b"="), base64.b32encode(raw).rstrip(b"="),
                base64.urlsafe_b64encode(raw).rstrip(b"="), msgpack.packb(f),
                hashlib.sha256(raw).digest(), hashlib.sha256(raw).hexdigest().encode(),
                hashlib.sha512(raw).digest()[:16], hashlib.md5(raw).digest(),
                hashlib.blake2b(raw).digest()[:16]]
    words = word_list()
    # word indices as 16-bit numbers (a 3-byte form would match random bytes too often)
    idx = bytes([parsed.number]) + b"".join(
        words.index(w).to_bytes(2, "big") for w in (parsed.first, parsed.second))
    out += [idx, parsed.secret()]
    return [o for o in out if o]


async def test_channel_both_ways_and_nothing_readable_on_the_wire() -> None:
    host = Host(CODE)
    async with serve(host) as relay:
        ch = await join(relay.port, CODE)
        for i in range(3):
            await ch.send(GAME_MSG + bytes([i]))
            assert await ch.recv() == b"echo:" + GAME_MSG + bytes([i])
        await wait_for(lambda: len(host.channels) == 1)
        assert ch.verification == host.channels[0].verification
        ch.close()
        await wait_for(lambda: bool(host.errors))
    assert isinstance(host.errors[0], SecureClosed) and host.errors[0].clean
    wire = relay.wire
    # the code, in any encoding, never crosses the wire
    for enc in code_encodings(CODE):
        assert enc not in wire, enc
    # after the handshake, no plaintext: not the game message nor any long piece of it
    for piece in (GAME_MSG, b"Ana-the-player", b"queen of hearts", b"echo:", b"move",
                  msgpack.packb("Ana-the-player")):
        assert piece not in wire
    # the handshake is exactly HELLO, JOIN, ACCEPT; then only sealed frames
    c2s = FrameDecoder().feed(bytes(relay.c2s))
    s2c = FrameDecoder().feed(bytes(relay.s2c))
    assert len(s2c[0]) == HELLO_LEN and len(c2s[0]) == JOIN_LEN and s2c[1][0] == 0x03
    assert [len(f) for f in c2s[1:4]] == [len(GAME_MSG) + 1 + OVERHEAD] * 3
    assert len(c2s[4]) == OVERHEAD  # close notice


async def test_wrong_code_both_ends_and_nothing_readable() -> None:
    host = Host(CODE)
    async with serve(host) as relay:
        with pytest.raises(WrongCode, match="wrong code"):
            await join(relay.port, OTHER)
        await wait_for(lambda: bool(host.errors))
    assert isinstance(host.errors[0], WrongCode)
    assert "127.0.0.1" in str(host.errors[0])
    for code in (CODE, OTHER):
        for enc in code_encodings(code):
            assert enc not in relay.wire


async def test_recorded_wrong_code_attempt_replayed_to_a_fresh_host_is_refused() -> None:
    limiter = AttemptLimiter()
    host = Host(CODE, limiter=limiter)
    async with serve(host) as relay:
        with pytest.raises(WrongCode):
            await join(relay.port, OTHER)
        recorded_join = FrameDecoder().feed(bytes(relay.c2s))[0]
    fresh = Host(CODE, limiter=AttemptLimiter())
    async with serve(fresh) as relay2:
        r, w = await asyncio.open_connection("127.0.0.1", relay2.port)
        hello = await read_frame(r)
        assert hello[0] == 0x01
        await write_frame(w, recorded_join)
        reply = await read_frame(r)
        w.close()
        await wait_for(lambda: bool(fresh.errors))
    assert reply[0] == T_REFUSE and reply[1] == secure.R_WRONG_CODE
    assert isinstance(fresh.errors[0], WrongCode)
    assert not fresh.channels


async def test_recorded_right_code_join_replayed_is_refused_too() -> None:
    host = Host(CODE)
    async with serve(host) as relay:
        ch = await join(relay.port, CODE)
        await ch.send(b"hello")
        assert await ch.recv() == b"echo:hello"
        ch.close()
        frames = FrameDecoder().feed(bytes(relay.c2s))
        # replay the whole joiner side (JOIN and its sealed frames) to a new connection
        r, w = await asyncio.open_connection("127.0.0.1", host.port)
        await read_frame(r)
        for f in frames:
            w.write(encode_frame(f))
        await w.drain()
        reply = await read_frame(r)
        w.close()
        await wait_for(lambda: len(host.errors) == 2)
    assert reply[0] == T_REFUSE
    assert len(host.channels) == 1 and host.got == [b"hello"]


def flip_c2s(index: int) -> Callable[[str, int, bytes], list[bytes]]:
    def hook(direction: str, n: int, frame: bytes) -> list[bytes]:
        if direction == "c2s" and n == index:
            return [frame[:-1] + bytes([frame[-1] ^ 0x80])]
        return [frame]
    return hook


def replay_c2s(index: int) -> Callable[[str, int, bytes], list[bytes]]:
    def hook(direction: str, n: int, frame: bytes) -> list[bytes]:
        return [frame, frame] if direction == "c2s" and n == index else [frame]
    return hook


def reorder_c2s(first: int) -> Callable[[str, int, bytes], list[bytes]]:
    held: list[bytes] = []

    def hook(direction: str, n: int, frame: bytes) -> list[bytes]:
        if direction == "c2s" and n == first:
            held.append(frame)
            return []
        if direction == "c2s" and n == first + 1:
            return [frame, *held]
        return [frame]
    return hook


def truncate_c2s(index: int) -> Callable[[str, int, bytes], list[bytes]]:
    def hook(direction: str, n: int, frame: bytes) -> list[bytes]:
        return [frame[:-5]] if direction == "c2s" and n == index else [frame]
    return hook


@pytest.mark.parametrize(
    ("make_hook", "delivered"),
    [
        (flip_c2s, [b"first"]),  # frame "second" altered: refused, and all after it
        (replay_c2s, [b"first", b"second"]),  # the copy of "second" refused
        (reorder_c2s, [b"first"]),  # "third" arrives before "second": refused
        (truncate_c2s, [b"first"]),  # "second" cut short: refused
    ],
)
async def test_meddling_on_the_wire_is_refused(
        make_hook: Callable[[int], Callable[[str, int, bytes], list[bytes]]],
        delivered: list[bytes]) -> None:
    host = Host(CODE)
    async with serve(host, make_hook(2)) as relay:  # frame 0 is JOIN, 1 the first sealed
        ch = await join(relay.port, CODE)
        await ch.send(b"first")
        assert await ch.recv() == b"echo:first"
        await ch.send(b"second")
        await ch.send(b"third")
        await wait_for(lambda: bool(host.errors))
        ch.close()
    assert isinstance(host.errors[0], FrameRejected), host.errors
    assert host.got == delivered


async def test_connection_cut_without_close_notice() -> None:
    host = Host(CODE)
    async with serve(host) as relay:
        ch = await join(relay.port, CODE)
        await ch.send(b"x")
        await ch.recv()
        ch.link.close()  # no close notice
        await wait_for(lambda: bool(host.errors))
    err = host.errors[0]
    assert isinstance(err, SecureClosed) and not err.clean


async def test_attempt_limit_per_address_then_window_expires() -> None:
    now = [1000.0]
    limiter = AttemptLimiter(per_address=3, per_game=20, window=600, clock=lambda: now[0])
    host = Host(CODE, limiter=limiter)
    async with serve(host) as relay:
        said = ["1 wrong code from your address so far; 2 more allowed",
                "2 wrong codes from your address so far; 1 more allowed",
                "3 wrong codes from your address: no more allowed for now"]
        for text in said:
            with pytest.raises(WrongCode, match=text):
                await join(host.port, OTHER)
        assert limiter.failures == 3 and limiter.blocked() == ["127.0.0.1"]
        # the fourth attempt is refused before any PAKE — even with the right code
        with pytest.raises(TooManyAttempts, match="this address") as e:
            await join(host.port, CODE)
        assert e.value.scope == "address"
        # another address still gets in
        ch = await join(host.port, CODE, local="127.0.0.2")
        await ch.send(b"hi")
        assert await ch.recv() == b"echo:hi"
        assert "1 address blocked" in limiter.status()
        assert "3 of 20" in limiter.status()
        now[0] += 601
        ch2 = await join(host.port, CODE)
        await ch2.send(b"back")
        assert await ch2.recv() == b"echo:back"
    assert relay.port  # the relay was not used here


async def test_attempt_limit_per_game() -> None:
    limiter = AttemptLimiter(per_address=2, per_game=4, clock=lambda: 0.0)
    host = Host(CODE, limiter=limiter)
    async with serve(host):
        for last in (2, 3):
            for _ in range(2):
                with pytest.raises(WrongCode):
                    await join(host.port, OTHER, local=f"127.0.0.{last}")
        with pytest.raises(TooManyAttempts, match="for this game") as e:
            await join(host.port, CODE, local="127.0.0.9")
        assert e.value.scope == "game"
    assert limiter.failures == 4 and limiter.refused == 1
    assert "game closed to new joiners" in limiter.status()


def test_limiter_counts_before_and_after() -> None:
    lim = AttemptLimiter(per_address=3, per_game=5, window=None, clock=lambda: 0.0)
    for _ in range(3):
        lim.check("a")
        lim.record_failure("a")
    with pytest.raises(TooManyAttempts, match="rest of the game"):
        lim.check("a")
    lim.check("b")
    lim.record_failure("b")
    lim.record_failure("c")
    with pytest.raises(TooManyAttempts, match="5 wrong codes for this game"):
        lim.check("d")
    assert lim.failures_from("a") == 3 and lim.refused == 2
    with pytest.raises(ValueError):
        AttemptLimiter(per_address=0)


async def test_parallel_guesses_cannot_outrun_the_limit() -> None:
    limiter = AttemptLimiter(per_address=3, per_game=20, clock=lambda: 0.0)
    host = Host(CODE, limiter=limiter)
    async with serve(host):
        results = await asyncio.gather(*(join(host.port, OTHER) for _ in range(8)),
                                       return_exceptions=True)
    wrong = [r for r in results if isinstance(r, WrongCode)]
    refused = [r for r in results if isinstance(r, TooManyAttempts)]
    assert len(wrong) == 3 and len(refused) == 5
    assert limiter.failures == 3


@virtual_time
async def test_silent_joiner_times_out(clock: VirtualLoop) -> None:
    """On virtual time over the in-memory network: a joiner that reads the HELLO and
    sends nothing is dropped by the host at exactly its handshake timeout, with
    ``HandshakeError("timeout")``; the joiner sees its connection end then."""
    mem = MemoryNet()
    errors: list[BaseException] = []

    async def serve(channel: object) -> None:
        try:
            await secure_server_link(channel, CODE, game_id=GAME,  # type: ignore[arg-type]
                                     timeout=10.0)
        except Exception as e:
            errors.append(e)

    _, port = await mem.listen(serve, "127.0.0.1", 0)  # type: ignore[arg-type]
    ch = await mem.connector("127.0.0.1", port)()
    assert (await clock.run_until(ch.recv(), within=0.0))[0] == secure.T_HELLO
    await clock.advance(9.999)
    assert errors == []
    await clock.advance(0.001)
    assert isinstance(errors[0], HandshakeError) and errors[0].code == "timeout"
    assert "took longer than 10.0 s" in str(errors[0])
    with pytest.raises(ConnectionError):  # ChannelClosed: the host closed it at t=10
        await clock.run_until(ch.recv(), within=0.0)
    await clock.run_until(mem.close(), within=1.0)


@virtual_time
async def test_a_join_left_unanswered_is_given_up_at_the_joiners_timeout(
        clock: VirtualLoop) -> None:
    """The joiner's own clock: a host that sends a real HELLO, reads the JOIN (one guess
    of the code) and then says nothing is left at exactly the joiner's timeout, with
    ``HandshakeError("unanswered")`` — to be counted, not retried forever."""
    mem = MemoryNet()
    joins: list[float] = []

    async def fake(channel: object) -> None:
        ch = channel
        ch.send(HostHandshake(OTHER).hello())  # type: ignore[attr-defined]
        await ch.recv()  # type: ignore[attr-defined]
        joins.append(clock.time())
        with contextlib.suppress(ConnectionError):  # never a word more: until it hangs up
            await ch.recv()  # type: ignore[attr-defined]
        joins.append(clock.time())

    _, port = await mem.listen(fake, "127.0.0.1", 0)  # type: ignore[arg-type]
    raw = await mem.connector("127.0.0.1", port)()
    attempt = asyncio.ensure_future(secure_client_link(raw, CODE, timeout=7.5))
    await clock.advance(7.4)
    assert joins == [0.0] and not attempt.done()
    await clock.advance(0.1)
    assert attempt.done() and joins == [0.0, 7.5]  # it hung up then
    e = attempt.exception()
    assert isinstance(e, HandshakeError) and e.code == "unanswered", e
    assert "did not answer within 7.5 s after our JOIN" in str(e)
    await clock.run_until(mem.close(), within=1.0)


async def test_joiner_against_a_server_that_is_not_splitnet() -> None:
    async def bogus(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
        w.write(b"HTTP/1.1 400 Bad Request\r\n\r\n")
        await w.drain()
        w.close()

    server = await asyncio.start_server(bogus, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        with pytest.raises((HandshakeError, SecureClosed, ValueError)):
            await join(port, CODE, timeout=2)
    finally:
        server.close()


async def test_secure_wrap_on_a_frame_channel() -> None:
    """The seam for code that already holds a frame channel (wire.Channel's shape)."""

    class Closed(ConnectionError):
        pass

    limiter = AttemptLimiter()
    seen: list[str] = []
    host_wrap = secure_wrap(CODE, game_id=GAME, limiter=limiter, closed_exc=Closed,
                            on_secure=lambda link: seen.append(link.verification))
    results: list[object] = []

    async def handle(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
        try:
            link = await host_wrap(StreamLink(r, w), "host")
            while True:
                payload = await link.recv()
                link.send(payload[::-1])
                await link.drain()
        except Exception as e:
            results.append(e)

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        r, w = await asyncio.open_connection("127.0.0.1", port)
        link = await secure_wrap(CODE, closed_exc=Closed)(StreamLink(r, w), "client")
        link.send(b"abc")
        await link.drain()
        assert await link.recv() == b"cba"
        assert seen == [link.verification]
        link.close()
        await wait_for(lambda: bool(results))
        assert isinstance(results[0], Closed) and "closed the channel" in str(results[0])
        r, w = await asyncio.open_connection("127.0.0.1", port)
        with pytest.raises(WrongCode):
            await secure_wrap(OTHER)(StreamLink(r, w), "client")
        await wait_for(lambda: len(results) == 2)
        assert isinstance(results[1], WrongCode) and limiter.failures == 1
    finally:
        server.close()


@pytest.mark.parametrize(
    ("peer", "address"),
    [("10.0.0.5:7420", "10.0.0.5"), ("[::1]:7420", "::1"), ("[::ffff:10.0.0.5]:1", "10.0.0.5"),
     ("fe80::1:7420", "fe80::1"), ("[fe80:0::1]:9", "fe80::1"), ("unix", "unix")],
)
def test_peer_address(peer: str, address: str) -> None:
    assert peer_address(peer) == address


# ------------------------------------------------------------------ known peers


def test_known_peers_store(tmp_path: Path) -> None:
    path = tmp_path / "data" / "known_peers.json"
    peers = KnownPeers.load(path)
    assert len(peers) == 0
    ana, bob = bytes(range(32)), bytes(range(1, 33))
    assert peers.describe(ana, "Ana").startswith("NEW key for Ana (fingerprint ")
    peers.remember(ana, "Ana", when="2026-01-01T00:00:00Z")
    peers.save()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert [p.name for p in path.parent.iterdir()] == ["known_peers.json"]
    again = KnownPeers.load(path)
    assert again.describe(ana, "Ana").startswith("known as Ana (fingerprint ")
    warn = again.describe(bob, "ana")
    assert warn.startswith("NEW key for ana") and "WARNING: Ana was known with another key" in warn
    again.remember(ana, "Ana", when="2026-02-01T00:00:00Z")
    p = again.lookup(ana)
    assert p is not None and p.first_seen == "2026-01-01T00:00:00Z"
    assert p.last_seen == "2026-02-01T00:00:00Z"
    assert again.describe(ana, "Evil\x1b[2J") .endswith(")") and "\x1b" not in \
        again.describe(ana, "Evil\x1b[2J")
    with pytest.raises(ValueError):
        again.remember(b"short", "x")


@pytest.mark.parametrize("content", ["{", "[]", '{"format": "other", "peers": []}',
                                     '{"format": "splitnet-known-peers/1", "peers": [{}]}'])
def test_known_peers_damaged_file(tmp_path: Path, content: str) -> None:
    path = tmp_path / "known_peers.json"
    path.write_text(content)
    with pytest.raises(KnownPeersError, match="damaged"):
        KnownPeers.load(path)


async def test_secure_wrap_maps_handshake_errors_for_the_caller() -> None:
    """error_exc / on_refused: the LAN code keeps its own error handling unchanged."""

    class Fatal(Exception):
        def __init__(self, code: str, reason: str) -> None:
            super().__init__(f"{code}: {reason}")
            self.code = code

    def as_fatal(e: secure.SecureError) -> BaseException:
        return Fatal(e.code, str(e))

    refused: list[tuple[str, str]] = []
    limiter = AttemptLimiter(per_address=1, clock=lambda: 0.0)
    host_wrap = secure_wrap(CODE, limiter=limiter, error_exc=as_fatal,
                            on_refused=lambda peer, e: refused.append((peer, e.code)))
    host_errors: list[BaseException] = []

    async def handle(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
        try:
            await host_wrap(StreamLink(r, w), "host")
        except BaseException as e:
            host_errors.append(e)

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        for i, expect in enumerate(("wrong-code", "too-many-attempts")):
            r, w = await asyncio.open_connection("127.0.0.1", port)
            with pytest.raises(Fatal) as e:
                await secure_wrap(OTHER, error_exc=as_fatal)(StreamLink(r, w), "client")
            assert e.value.code == expect
            assert isinstance(e.value.__cause__, secure.SecureError)
            await wait_for(lambda: len(host_errors) == len(refused) == i + 1)  # noqa: B023
        assert [c for _, c in refused] == ["wrong-code", "too-many-attempts"]
        assert refused[0][0].startswith("127.0.0.1:")
        assert all(isinstance(e, Fatal) for e in host_errors)
    finally:
        server.close()


if __name__ == "__main__":  # regenerate the vector file (only on purpose: see SECURE.md §9)
    import sys

    if sys.argv[1:] == ["--write-vectors"]:
        VECTOR_PATH.write_text(json.dumps(compute_vectors(), indent=1) + "\n")


# ------------------------------------------------------------------ seat proofs, limits


def test_a_seat_proof_passes_the_limits_and_tells_a_guesser_nothing() -> None:
    """SECURE.md §7: with the game's wrong codes used up, a JOIN proving a seat (right
    code, identity key among the seats) is accepted; a right code without a seat, a seat
    proof with a wrong code and a plain wrong code all get the same refusal, byte for
    byte — so a guesser learns nothing from it — and none of them is counted."""
    me = Identity.from_seed(SEAT_SEED)
    seats = {me.public_key_bytes()}
    limiter = AttemptLimiter(per_game=1, clock=lambda: 0.0)
    limiter.record_failure("10.0.0.9")

    def attempt(code: str, identity: Identity | None) -> secure.HostStep:
        host = HostHandshake(CODE, game_id=GAME)
        join = JoinHandshake(code, identity=identity).receive_hello(host.hello())
        return host.receive_join(join, limiter=limiter, address="10.0.0.5", seats=seats)

    ok = attempt(CODE, me)
    assert ok.session is not None and ok.seat == me.public_key_bytes()
    refusals = {attempt(CODE, None).reply, attempt(CODE, Identity.generate()).reply,
                attempt(OTHER, me).reply, attempt(OTHER, None).reply}
    assert len(refusals) == 1 and next(iter(refusals))[:2] == bytes([T_REFUSE, 3])
    assert limiter.failures == 1
    # a seat proof re-sealed into another handshake does not verify (bound to th)
    host = HostHandshake(CODE, game_id=GAME)
    j = JoinHandshake(CODE, identity=me)
    other_hello = HostHandshake(CODE, game_id=GAME).hello()
    stolen = j.receive_hello(other_hello)[secure.JOIN_LEN:]
    fresh = JoinHandshake(CODE, identity=Identity.generate()).receive_hello(host.hello())
    step = host.receive_join(fresh[:secure.JOIN_LEN] + stolen, limiter=limiter,
                             address="10.0.0.5", seats=seats)
    assert step.session is None and step.seat is None


def test_a_replayed_join_is_refused_as_a_replay_and_not_counted() -> None:
    limiter = AttemptLimiter(clock=lambda: 0.0)
    host = HostHandshake(OTHER, game_id=GAME)
    join = JoinHandshake(CODE).receive_hello(host.hello())
    first = host.receive_join(join, limiter=limiter, address="10.0.0.5")
    assert isinstance(first.error, WrongCode) and limiter.failures == 1
    for _ in range(5):
        step = HostHandshake(OTHER, game_id=GAME).receive_join(
            join, limiter=limiter, address="10.0.0.5")
        assert isinstance(step.error, HandshakeError) and step.error.code == "replayed"
        assert step.reply[:2] == bytes([T_REFUSE, secure.R_REPLAYED])
    assert limiter.failures == 1 and limiter.failures_from("10.0.0.5") == 1
    assert limiter.replays == 5


@pytest.mark.parametrize("refuse, kind, wait, text", [
    (secure.encode_refuse(secure.R_BUSY, "all 32 slots in use", 1), secure.TryLater, 1.0,
     "busy (all 32 slots in use): try again in 1 s"),
    (secure.encode_refuse(secure.R_LIMIT_ADDRESS, "3 wrong codes", 580), TooManyAttempts,
     580.0, "try again in 9 min 40 s"),
    (secure.encode_refuse(secure.R_LIMIT_GAME, "20 wrong codes"), TooManyAttempts, None,
     "for this game"),
])
def test_try_again_later_refusals_say_how_long(refuse: bytes, kind: type, wait: float | None,
                                               text: str) -> None:
    """REFUSE 2 and 6 carry the wait: the joiner reports it in words (and retries a busy
    host with back-off, NETWORK.md §3)."""
    host = HostHandshake(CODE)
    joiner = JoinHandshake(CODE)
    joiner.receive_hello(host.hello())
    with pytest.raises(kind) as e:
        joiner.receive_reply(refuse)
    assert e.value.retry_after == wait and text in str(e.value)
    with pytest.raises(secure.TryLater):  # also instead of HELLO
        JoinHandshake(CODE).receive_hello(secure.encode_refuse(secure.R_BUSY, "", 0))


def test_wait_words() -> None:
    assert [secure.wait_words(s) for s in (0, 40, 60, 580, 3600 + 300)] == [
        "0 s", "40 s", "1 min", "9 min 40 s", "1 h 5 min"]
