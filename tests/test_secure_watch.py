"""The watch code's handshake (protocol/SECURE.md §12): a byte-exact vector recomputed
from the section with the primitives called directly, and the host's checks — a wrong
watch code on both ends, counted by the watchers' limiter only; a replay not counted;
malformed and out-of-order messages; a host that takes no watchers; a player's bytes
unchanged."""

from __future__ import annotations

import asyncio
import hashlib
import json
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from splitnet.net.joincode import parse_code
from splitnet.net.secure import (
    AttemptLimiter,
    HandshakeError,
    HostHandshake,
    JoinHandshake,
    SecureSession,
    TooManyAttempts,
    WrongCode,
    secure_wrap,
)
from splitnet.net.secure_watch import (
    HostWatch,
    WatchGate,
    WatchHandshake,
    watch_side,
)
from tests.memnet import MemoryNet
from tests.test_secure import det_entropy

VECTOR_PATH = Path(__file__).parent / "vectors" / "secure_watch_v1.json"
JOIN, WATCH, WRONG = "7-lunar-anchor", "9-comet-tiger", "9-comet-toast"
GID = bytes(range(16))
NONCE = bytes(range(0x20, 0x40))
NONCE_W = bytes(range(0x60, 0x80))


Run = tuple[dict[str, bytes], SecureSession | None, Exception | None]


def run(watch: str = WATCH, *, limiter: AttemptLimiter | None = None, address: str = "a",
        hello_nonce: bytes = NONCE, seed: bytes = b"watcher") -> Run:
    """One watch exchange, deterministic; every message, the sessions or the error."""
    host = HostHandshake(JOIN, game_id=GID, nonce=hello_nonce, entropy=det_entropy(b"host"))
    hw = HostWatch(WATCH, host.hello(), nonce=NONCE_W, entropy=det_entropy(b"watch-host"))
    w = WatchHandshake(watch, entropy=det_entropy(seed))
    m = {"hello": host.hello()}
    m["watch"] = w.receive_hello(m["hello"])
    m["watch_hello"] = hw.receive_watch(m["watch"])
    m["watch_join"] = w.receive_watch_hello(m["watch_hello"])
    step = hw.receive_watch_join(m["watch_join"], limiter=limiter, address=address)
    m["reply"] = step.reply
    try:
        mine = w.receive_reply(step.reply)
    except (WrongCode, HandshakeError, TooManyAttempts) as e:
        return m, None, e
    assert step.session is not None
    m["first_frame"] = mine.seal(b"hello, host")
    assert step.session.open(m["first_frame"]) == b"hello, host"
    return m, step.session, None


def okm(k: bytes, th: bytes, label: bytes, n: int = 32) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=n, salt=th, info=label).derive(k)


def compute_vectors() -> dict[str, str]:
    m, session, err = run()
    assert session is not None and err is None
    keys = session._keys
    v = {k: b.hex() for k, b in m.items()}
    v.update(description="SECURE.md §12: the watch code's handshake (join code "
             f"{JOIN}, watch code {WATCH})", join_code=JOIN, watch_code=WATCH,
             transcript_hash=keys.th.hex(), key_watcher_to_host=keys.key_j2h.hex(),
             confirm_watcher=keys.confirm_joiner.hex(), confirm_host=keys.confirm_host.hex(),
             binding=keys.binding.hex(), verification=session.verification)
    return v


def test_the_vector_is_what_the_section_says() -> None:
    v = json.loads(VECTOR_PATH.read_text())
    assert v == compute_vectors()
    hello, watch_hello = bytes.fromhex(v["hello"]), bytes.fromhex(v["watch_hello"])
    join = bytes.fromhex(v["watch_join"])
    assert len(hello) == 83 and hello[:2] == b"\x01\x01"
    assert bytes.fromhex(v["watch"]) == b"\x06\x01"
    assert len(watch_hello) == 83 and watch_hello[:2] == b"\x07\x01"
    assert watch_hello[2:18] == GID and watch_hello[18:50] == NONCE_W
    assert len(join) == 67 and join[:2] == b"\x08\x01"
    th = hashlib.sha256(b"splitnet/secure/v1 watch transcript" + hello + watch_hello
                        + join[:35]).digest()
    assert th.hex() == v["transcript_hash"]
    # the SPAKE2 key (python-spake2 as §3 says), then §3's key schedule with th′
    from spake2 import SPAKE2_B  # (as the host computes it, independently)
    ctx = b"splitnet/secure/v1 watch pake" + GID + NONCE_W
    host = SPAKE2_B(WATCH.encode(), idA=ctx + b"/watcher", idB=ctx + b"/host",
                    entropy_f=det_entropy(b"watch-host"))
    assert host.start() == watch_hello[50:]
    k = host.finish(join[2:35])
    assert okm(k, th, b"splitnet/secure/v1 confirm joiner").hex() == v["confirm_watcher"]
    assert join[35:].hex() == v["confirm_watcher"]
    assert bytes.fromhex(v["reply"]) == b"\x03" + bytes.fromhex(v["confirm_host"])
    key = okm(k, th, b"splitnet/secure/v1 key joiner->host")
    assert key.hex() == v["key_watcher_to_host"]
    frame = ChaCha20Poly1305(key).encrypt(bytes(12), b"\x00hello, host",
                                          b"splitnet/secure/v1 frame\x02" + bytes(8))
    assert frame.hex() == v["first_frame"]


def test_a_players_handshake_is_unchanged_beside_it() -> None:
    """The HELLO is §3's; a JOIN after it goes on as in §3 (the v1 vector holds)."""
    host = HostHandshake(JOIN, game_id=GID, nonce=NONCE, entropy=det_entropy(b"host"))
    m, _, _ = run()
    assert host.hello() == m["hello"]
    step = host.receive_join(JoinHandshake(JOIN).receive_hello(host.hello()))
    assert step.session is not None and not step.session.watcher


def test_a_wrong_watch_code_fails_on_both_ends_and_is_counted_by_the_watchers_limiter() -> None:
    watchers = AttemptLimiter()
    _, session, err = run(WRONG, limiter=watchers, address="10.0.0.1")
    assert session is None and isinstance(err, WrongCode)
    assert "wrong watch code" in str(err) and "1 wrong watch code from your address" in str(err)
    assert watchers.failures == 1
    for k in range(2):  # (each its own SPAKE2 message: the same one again is a replay)
        run(WRONG, limiter=watchers, address="10.0.0.1", seed=bytes([k]))
    assert watchers.failures == 3
    _, session, err = run(WATCH, limiter=watchers, address="10.0.0.1", seed=b"r")  # locked
    assert session is None and isinstance(err, TooManyAttempts)
    assert "more watch attempts from this address" in str(err)
    _, session, _ = run(WATCH, limiter=watchers, address="10.0.0.2", seed=b"s")
    assert session is not None and session.watcher


def test_a_replayed_watch_join_is_refused_and_not_counted() -> None:
    limiter = AttemptLimiter()
    m, session, _ = run(limiter=limiter)
    assert session is not None
    host = HostHandshake(JOIN, game_id=GID)
    hw = HostWatch(WATCH, host.hello())
    hw.receive_watch(m["watch"])
    step = hw.receive_watch_join(m["watch_join"], limiter=limiter)
    assert step.error is not None and step.error.code == "replayed"
    assert limiter.failures == 0


@pytest.mark.parametrize("bad", [b"", b"\x08", b"\x02" + bytes(66), b"\x08\x01" + bytes(64),
                                 b"\x08\x01" + bytes(65) + b"x"])
def test_a_malformed_watch_join_is_refused_and_not_a_guess(bad: bytes) -> None:
    limiter = AttemptLimiter()
    hw = HostWatch(WATCH, HostHandshake(JOIN, game_id=GID).hello())
    hw.receive_watch(b"\x06\x01")
    step = hw.receive_watch_join(bad, limiter=limiter)
    assert isinstance(step.error, HandshakeError) and step.error.code == "malformed"
    assert step.reply[:2] == b"\x04\x05" and limiter.failures == 0


def test_out_of_order_and_wrong_versions_are_refused() -> None:
    hw = HostWatch(WATCH, HostHandshake(JOIN).hello())
    with pytest.raises(HandshakeError, match="before receive_watch"):
        hw.receive_watch_join(bytes(67))
    with pytest.raises(HandshakeError, match="version 2"):
        hw.receive_watch(b"\x06\x02")
    w = WatchHandshake(WATCH)
    with pytest.raises(HandshakeError, match="out of order"):
        w.receive_watch_hello(bytes(83))
    with pytest.raises(HandshakeError, match="not a splitnet HELLO"):
        w.receive_hello(b"\x07" + bytes(82))


async def _no_watchers() -> None:
    mem = MemoryNet()
    wrap = secure_wrap(parse_code(JOIN))  # a host that takes no watchers

    async def serve(ch: object) -> None:
        with pytest.raises(HandshakeError, match="takes no watchers"):
            await wrap(ch, "host")  # type: ignore[arg-type]

    _, port = await mem.listen(serve, "127.0.0.1", 0)  # type: ignore[arg-type]
    ch = await mem.connector("127.0.0.1", port)()
    with pytest.raises(HandshakeError, match="this game cannot be watched") as e:
        await watch_side(ch, WATCH)
    assert e.value.code == "no-watching"
    await mem.close()


def test_a_host_that_takes_no_watchers_says_so_in_one_line() -> None:
    asyncio.run(_no_watchers())


async def _gate() -> None:
    mem = MemoryNet()
    watchers = AttemptLimiter()
    wrap = secure_wrap(parse_code(JOIN), watch=WatchGate(parse_code(WATCH), watchers))
    got: list[bool] = []

    async def serve(ch: object) -> None:
        link = await wrap(ch, "host")  # type: ignore[arg-type]
        got.append(link.watcher)

    _, port = await mem.listen(serve, "127.0.0.1", 0)  # type: ignore[arg-type]
    session = await watch_side(await mem.connector("127.0.0.1", port)(), WATCH)
    assert session.watcher
    await asyncio.sleep(0)
    assert got == [True]
    await mem.close()


def test_the_hosts_wrap_takes_a_watcher_on_its_gate() -> None:
    asyncio.run(_gate())


if __name__ == "__main__":  # regenerate the vector file (only on purpose: SECURE.md §12)
    import sys

    if sys.argv[1:] == ["--write-vectors"]:
        VECTOR_PATH.write_text(json.dumps(compute_vectors(), indent=1) + "\n")
