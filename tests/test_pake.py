"""splitnet.crypto.pake against python-spake2 0.9, the reference (protocol/SECURE.md
"SPAKE2"): the same messages from the same entropy, the same keys across the two
implementations in both roles, every refusal of the library made, and the only extra
refusals the ones SECURE.md lists (non-canonical encodings, messages not 33 bytes)."""

from __future__ import annotations

import hashlib
import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import spake2
from spake2.ed25519_basic import Base
from spake2.parameters.ed25519 import ParamsEd25519

from splitnet.crypto import pake
from splitnet.crypto.sodium import library
from splitnet.net.secure import T_REFUSE, HandshakeError, HostHandshake, JoinHandshake, WrongCode
from tests.test_sodium_load import run_in

Entropy = Callable[[int], bytes]

#: the curve's 8 points of small order (the identity among them), canonical encodings
SMALL_ORDER = [bytes.fromhex(h) for h in (
    "0100000000000000000000000000000000000000000000000000000000000000",
    "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    "0000000000000000000000000000000000000000000000000000000000000000",
    "0000000000000000000000000000000000000000000000000000000000000080",
    "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
    "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85",
    "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
    "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa")]


def fixed(data: bytes) -> Entropy:
    return lambda n: data


def library_refuses(side: type[Any], message: bytes) -> bool:
    peer = side(b"pw", entropy_f=fixed(b"\x07" * 64))
    peer.start()
    try:
        peer.finish(message)
    except Exception:  # the library raises assorted kinds (ValueError, its own, …)
        return True
    return False


def ours_refuses(side: type[pake.Spake2], message: bytes) -> bool:
    peer = side(b"pw", entropy_f=fixed(b"\x07" * 64))
    peer.start()
    try:
        peer.finish(message)
    except pake.PakeError:
        return True
    return False


def test_the_constants_are_the_librarys() -> None:
    params = ParamsEd25519
    assert pake.M == params.M.to_bytes() and pake.N == params.N.to_bytes()
    assert pake.S == params.S.to_bytes()
    assert pake.base_mul(1) == Base.to_bytes()
    assert pake.L == params.group.order()
    for e in (pake.M, pake.N, pake.S):
        assert pake.is_element(e)
    assert pake.password_to_scalar(b"") == params.group.password_to_scalar(b"")


def test_the_libsodium_functions_are_there_and_their_absence_is_loud() -> None:
    lib = library()
    for name in pake.NEEDED:
        assert hasattr(lib, name), name

    class Without:  # a libsodium without the edwards25519 scalar multiplication
        def __getattr__(self, name: str) -> Any:
            if name == "crypto_scalarmult_ed25519_noclamp":
                raise AttributeError(name)
            return getattr(lib, name)

    with pytest.raises(ImportError, match="lacks crypto_scalarmult_ed25519_noclamp"):
        pake._functions(Without())  # type: ignore[arg-type]


EXCHANGE = ("import spake2, splitnet.crypto.sodium as s\n"
            "from splitnet.crypto import pake\n"
            "a = pake.SPAKE2_A(b'pw', entropy_f=lambda n: b'\\x05' * n)\n"
            "b = spake2.SPAKE2_B(b'pw', entropy_f=lambda n: b'\\x06' * n)\n"
            "ma, mb = a.start(), b.start()\n"
            "assert a.finish(mb) == b.finish(ma)\n"
            "print('how', s.HOW)")


@pytest.mark.parametrize("prelude, how", [("", "memory"),
                                          ("import os; del os.memfd_create\n", "deleted")])
def test_spake2_runs_on_the_libsodium_of_each_load_mode(tmp_path: Path, prelude: str,
                                                        how: str) -> None:
    """sodium.py's modes (its docstring): the library it loads, from memory or from
    rbcl's deleted copy, is the whole libsodium, edwards25519 included."""
    if how == "memory" and not sys.platform.startswith("linux"):
        pytest.skip("memfd_create is Linux's")
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    assert run_in(tmp, prelude + EXCHANGE).split() == ["how", how]


def _case(rng: random.Random) -> tuple[bytes, bytes, bytes, Entropy, Entropy]:
    def blob(top: int) -> bytes:
        return rng.randbytes(rng.randrange(top))

    def entropy() -> Entropy:
        kind = rng.randrange(10)
        if kind == 0:  # the scalar 0: x·B is the identity
            return fixed(bytes(64))
        if kind == 1:  # a multiple of L: the scalar 0 again, after reduction
            return fixed((pake.L * rng.randrange(1, 2**250)).to_bytes(64, "big"))
        if kind == 2:  # other lengths than the 64 bytes asked for (read all the same)
            return fixed(rng.randbytes(rng.choice((1, 31, 32, 65, 100))))
        seed = rng.randbytes(8)
        return lambda n: hashlib.shake_256(seed).digest(n)

    return blob(40), blob(90), blob(90), entropy(), entropy()


@pytest.mark.parametrize("chunk", range(8))
def test_the_same_messages_and_keys_as_the_library(chunk: int) -> None:
    """2000 random exchanges (250 a chunk): passwords, ids and entropy functions (the
    zero scalar and lengths other than 64 among them); our A and the library's give the
    same message from the same entropy, as do the B sides; each finishes on the other
    implementation's message in either order with the one key of the exchange."""
    rng = random.Random(f"pake {chunk}")
    for _ in range(250):
        pw, id_a, id_b, ea, eb = _case(rng)
        ours_a = pake.SPAKE2_A(pw, idA=id_a, idB=id_b, entropy_f=ea)
        ours_b = pake.SPAKE2_B(pw, idA=id_a, idB=id_b, entropy_f=eb)
        lib_a = spake2.SPAKE2_A(pw, idA=id_a, idB=id_b, entropy_f=ea)
        lib_b = spake2.SPAKE2_B(pw, idA=id_a, idB=id_b, entropy_f=eb)
        ma, mb = ours_a.start(), ours_b.start()
        assert (ma, mb) == (lib_a.start(), lib_b.start())
        if rng.randrange(2):  # our A with the library's B, or the library's A with our B
            keys = [ours_a.finish(mb), lib_b.finish(ma), lib_a.finish(mb), ours_b.finish(ma)]
        else:
            keys = [lib_b.finish(ma), ours_a.finish(mb), ours_b.finish(ma), lib_a.finish(mb)]
        assert len(set(keys)) == 1 and len(keys[0]) == 32


def test_a_wrong_password_or_id_gives_another_key() -> None:
    a = pake.SPAKE2_A(b"pw", idA=b"a", idB=b"b")
    b = spake2.SPAKE2_B(b"pv", idA=b"a", idB=b"b")
    ma, mb = a.start(), b.start()
    assert a.finish(mb) != b.finish(ma)
    a = pake.SPAKE2_A(b"pw", idA=b"a", idB=b"b")
    b = spake2.SPAKE2_B(b"pw", idA=b"a", idB=b"c")
    ma, mb = a.start(), b.start()
    assert a.finish(mb) != b.finish(ma)


def _element(seed: int) -> bytes:
    return pake.base_mul(seed)


def _flip_to_noncanonical(e: bytes) -> bytes | None:
    """The same point written with y + p (only for y < 19), else None."""
    v = int.from_bytes(e, "little")
    y, sign = v & ((1 << 255) - 1), v >> 255
    return None if y + pake.P >= 1 << 255 else ((y + pake.P) | (sign << 255)).to_bytes(32,
                                                                                      "little")


REFUSED: list[tuple[str, Callable[[bytes, bytes], bytes]]] = [
    # (name, message from (our side's letter, the other side's letter))
    ("own side", lambda me, other: me + _element(5)),
    ("unknown side", lambda me, other: b"S" + _element(5)),
    ("no side", lambda me, other: b""),
    ("side only", lambda me, other: other),
    ("identity", lambda me, other: other + SMALL_ORDER[0]),
    ("identity with the sign bit", lambda me, other: other + SMALL_ORDER[0][:31] + b"\x80"),
    ("identity as y = p + 1", lambda me, other: other + (pake.P + 1).to_bytes(32, "little")),
    ("identity, one byte", lambda me, other: other + b"\x01"),
    ("off the curve", lambda me, other: other + (2).to_bytes(32, "little")),
    ("mixed order", lambda me, other: other + pake.add(_element(5), SMALL_ORDER[4])),
    ("order 2L", lambda me, other: other + pake.add(_element(5), SMALL_ORDER[1])),
    ("short", lambda me, other: other + _element(5)[:31]),
    ("long", lambda me, other: other + _element(5) + b"\x00"),
    ("garbage 0xff", lambda me, other: other + b"\xff" * 32),
] + [(f"small order {i}", lambda me, other, i=i: other + SMALL_ORDER[i])  # type: ignore[misc]
     for i in range(1, 8)]


@pytest.mark.parametrize("ours, theirs", [(pake.SPAKE2_A, spake2.SPAKE2_A),
                                          (pake.SPAKE2_B, spake2.SPAKE2_B)])
@pytest.mark.parametrize("name, make", REFUSED, ids=[n for n, _ in REFUSED])
def test_each_malformed_message_is_refused(ours: type[pake.Spake2], theirs: type[Any],
                                           name: str, make: Callable[[bytes, bytes], bytes]
                                           ) -> None:
    """Refused by us with a PakeError (and, where python-spake2 refuses it too, checked
    that it does; SECURE.md lists the ones it takes: the identity in disguise, short or
    long messages)."""
    other = pake.SIDE_B if ours.side == pake.SIDE_A else pake.SIDE_A
    message = make(ours.side, other)
    assert ours_refuses(ours, message), name
    taken_by_library = {"identity with the sign bit", "identity as y = p + 1",
                        "identity, one byte", "long", "short"}  # (5·B's first 31 bytes decode)
    assert library_refuses(theirs, message) == (name not in taken_by_library), name


@pytest.mark.parametrize("ours", [pake.SPAKE2_A, pake.SPAKE2_B])
def test_our_own_message_reflected_is_refused(ours: type[pake.Spake2]) -> None:
    me = ours(b"pw")
    mine = me.start()
    other = pake.SIDE_B if ours.side == pake.SIDE_A else pake.SIDE_A
    with pytest.raises(pake.ReflectionThwarted):
        me.finish(other + mine[1:])
    lib = (spake2.SPAKE2_A if ours.side == pake.SIDE_A else spake2.SPAKE2_B)(b"pw")
    lib_mine = lib.start()
    with pytest.raises(spake2.spake2.ReflectionThwarted):
        lib.finish(other + lib_mine[1:])


def test_random_messages_refused_by_the_library_are_refused_and_the_rest_agree() -> None:
    """300 random 33-byte messages with the right side byte: whatever the library
    refuses we refuse; whatever it takes we take with the same key, but for a
    non-canonical encoding (which we refuse)."""
    rng = random.Random("garbage")
    taken = 0
    for i in range(300):
        body = rng.randbytes(32) if i % 3 else pake.base_mul(rng.randrange(1, pake.L))
        if i % 30 == 1:
            body = _flip_to_noncanonical(body) or body
        message = b"B" + body
        ours = pake.SPAKE2_A(b"pw", idA=b"a", entropy_f=fixed(b"\x09" * 64))
        lib = spake2.SPAKE2_A(b"pw", idA=b"a", entropy_f=fixed(b"\x09" * 64))
        assert ours.start() == lib.start()
        try:
            want = lib.finish(message)
        except Exception:
            with pytest.raises(pake.PakeError):
                ours.finish(message)
            continue
        if int.from_bytes(body, "little") & ((1 << 255) - 1) >= pake.P:
            with pytest.raises(pake.NotAnElement):
                ours.finish(message)
            continue
        assert ours.finish(message) == want
        taken += 1
    assert taken >= 90  # the multiples of B, at least


def test_points_of_order_2l_are_refused_though_libsodium_1_0_18_takes_them() -> None:
    """libsodium 1.0.18's is_valid_point checks only x(L·P) = 0, so Q + (0, −1) passes
    it; python-spake2 refuses such a point, and so does pake.is_element."""
    rng = random.Random("2L")
    for _ in range(20):
        q = pake.base_mul(rng.randrange(1, pake.L))
        p = pake.add(q, SMALL_ORDER[1])
        assert int(pake._VALID(p)) == 1  # (a fixed libsodium would make this check moot)
        assert not pake.is_element(p) and pake.is_element(q)
        assert ours_refuses(pake.SPAKE2_B, b"A" + p)
        assert library_refuses(spake2.SPAKE2_B, b"A" + p)


def test_the_noncanonical_encodings_the_library_takes_are_refused() -> None:
    """Every y ≥ p, either sign: the library takes some (the identity as y = p + 1);
    libsodium refuses them all."""
    taken = []
    for v in range(19):
        for sign in (0, 1):
            body = ((pake.P + v) | (sign << 255)).to_bytes(32, "little")
            assert ours_refuses(pake.SPAKE2_A, b"B" + body)
            if not library_refuses(spake2.SPAKE2_A, b"B" + body):
                taken.append((v, sign))
    assert taken == [(1, 0), (1, 1)]  # the identity, written y = p + 1


def test_start_and_finish_once_each_in_order() -> None:
    a = pake.SPAKE2_A(b"pw")
    with pytest.raises(pake.PakeUsageError):
        a.finish(b"B" + _element(3))
    a.start()
    with pytest.raises(pake.PakeUsageError):
        a.start()
    with pytest.raises(pake.OffSides):
        a.finish(b"A" + _element(3))
    with pytest.raises(pake.PakeUsageError):  # even a refused finish was the one finish
        a.finish(b"B" + _element(3))


def test_arguments_are_bytes() -> None:
    with pytest.raises(TypeError):
        pake.SPAKE2_A("pw")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        pake.SPAKE2_B(b"pw", idA="x")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="no bytes"):
        pake.SPAKE2_B(b"pw", entropy_f=fixed(b"")).start()
    b = pake.SPAKE2_B(b"pw")
    b.start()
    with pytest.raises(TypeError):
        b.finish("A" + "x" * 32)  # type: ignore[arg-type]


def test_the_group_helpers() -> None:
    assert pake.base_mul(0) == pake.base_mul(pake.L) == pake.IDENTITY
    assert pake.mul(0, pake.M) == pake.mul(5, pake.IDENTITY) == pake.IDENTITY
    assert pake.add(pake.base_mul(2), pake.base_mul(3)) == pake.base_mul(5)
    assert pake.sub(pake.base_mul(2), pake.base_mul(2)) == pake.IDENTITY
    assert pake.mul(3, pake.base_mul(5)) == pake.base_mul(15)
    assert not pake.is_element(pake.IDENTITY) and not pake.is_element(bytes(31))


#: elements python-spake2 0.9 or libsodium 1.0.18 alone would take (SECURE.md "SPAKE2")
DISGUISED = {"identity as y = p + 1": (pake.P + 1).to_bytes(32, "little"),
             "identity with the sign bit": SMALL_ORDER[0][:31] + b"\x80",
             "order 2L": pake.add(_element(5), SMALL_ORDER[1])}


@pytest.mark.parametrize("name", DISGUISED)
def test_a_host_refuses_a_join_with_such_an_element_and_counts_no_guess(name: str) -> None:
    """SECURITY.md row 148: the host answers REFUSE malformed, not a wrong code."""
    host = HostHandshake("42-walnut-harbor")
    join = JoinHandshake("42-walnut-harbor").receive_hello(host.hello())
    step = host.receive_join(join[:3] + DISGUISED[name] + join[35:])
    assert isinstance(step.error, HandshakeError) and not isinstance(step.error, WrongCode)
    assert step.error.code == "malformed" and step.session is None
    assert step.reply[0] == T_REFUSE


@pytest.mark.parametrize("name", DISGUISED)
def test_a_joiner_refuses_a_hello_with_such_an_element(name: str) -> None:
    hello = HostHandshake("42-walnut-harbor").hello()
    with pytest.raises(HandshakeError, match="SPAKE2 message is invalid"):
        JoinHandshake("42-walnut-harbor").receive_hello(hello[:-32] + DISGUISED[name])


WITHOUT_SPAKE2 = """
import sys
sys.modules['spake2'] = None  # python-spake2 absent: importing it fails
from splitnet.net.secure import HostHandshake, JoinHandshake
import splitnet.net.secure_watch
host = HostHandshake('42-walnut-harbor')
joiner = JoinHandshake('42-walnut-harbor')
step = host.receive_join(joiner.receive_hello(host.hello()))
assert step.session is not None
print('verified', joiner.receive_reply(step.reply).verification == step.session.verification)
"""


def test_the_handshakes_run_without_python_spake2(tmp_path: Path) -> None:
    """SECURITY.md row 147: the runtime's SPAKE2 is splitnet.crypto.pake; python-spake2
    is the tests' reference only (pyproject.toml's dev extras)."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    assert run_in(tmp, WITHOUT_SPAKE2).split() == ["verified", "True"]


def test_secure_md_states_the_constants() -> None:
    text = (Path(__file__).parent.parent / "protocol" / "SECURE.md").read_text()
    for name, value in (("M", pake.M), ("N", pake.N), ("S", pake.S)):
        assert f"{name} = {value.hex()}" in text, name
