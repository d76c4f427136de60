"""SPAKE2 exactly as python-spake2 0.9 computes it (``SPAKE2_A``/``SPAKE2_B`` with its
default ``ParamsEd25519``), with the group operations done by libsodium's edwards25519.

python-spake2 does its scalar multiplications in pure Python (milliseconds each); a host
runs one SPAKE2 for every connection that reaches its HELLO, on its event loop, so a
flood of connections took that CPU from ordering and relaying the players' records
(issue 24, protocol/SECURITY.md row 147). Here the same exchange costs a few libsodium
calls (:func:`splitnet.crypto.sodium.library`: the libsodium rbcl bundles, which has
``crypto_scalarmult_ed25519_*`` and ``crypto_core_ed25519_*`` although rbcl wraps only
ristretto255).

Every message and every key is byte for byte python-spake2's, for every password, id,
entropy function and peer message both accept (protocol/SECURE.md "SPAKE2", checked
against the library by tests/test_pake.py). Everything python-spake2 refuses is refused
here (the subgroup check is not left to libsodium 1.0.18 alone: :func:`is_element`); in
addition an element whose 32 bytes are not the canonical encoding (y ≥ p, which
python-spake2 reduces) and a message that is not exactly 33 bytes are refused
(SECURE.md says why that is safe). Pure and sans-IO: bytes in, bytes out.

>>> a = SPAKE2_A(b"pw", idA=b"joiner", idB=b"host")
>>> b = SPAKE2_B(b"pw", idA=b"joiner", idB=b"host")
>>> ma, mb = a.start(), b.start()
>>> (len(ma), ma[:1], mb[:1])
(33, b'A', b'B')
>>> a.finish(mb) == b.finish(ma)
True
>>> SPAKE2_B(b"pw").start()[:1] == b"B"
True
"""

from __future__ import annotations

import ctypes
import functools
import hashlib
import hmac
import os
from collections.abc import Callable
from enum import Enum
from typing import ClassVar, Final

from splitnet.crypto.sodium import library
from splitnet.errors import SplitnetError

#: edwards25519's prime-order subgroup: its order, and the field's prime
L: Final = 2**252 + 27742317777372353535851937790883648493
P: Final = 2**255 - 19
#: the identity's encoding (x = 0, y = 1)
IDENTITY: Final = (1).to_bytes(32, "little")
#: python-spake2's ``ParamsEd25519`` blinding elements, from the seeds b"M", b"N" and
#: b"symmetric" (SECURE.md "SPAKE2" gives the derivation; tests/test_pake.py recomputes
#: them with the library). S is the symmetric variant's, unused by splitnet.
M: Final = bytes.fromhex("15cfd18e385952982b6a8f8c7854963b58e34388c8e6dae891db756481a02312")
N: Final = bytes.fromhex("f04f2e7eb734b2a8f8b472eaf9c3c632576ac64aea650b496a8a20ff00e583c3")
S: Final = bytes.fromhex("6f00dae87c1be1a73b5922ef431cd8f57879569c222d22b1cd71e8546ab8e6f1")
SIDE_A: Final = b"A"
SIDE_B: Final = b"B"
MSG_LEN: Final = 33  # side byte + element

#: the libsodium functions this module calls (tests/test_pake.py checks every load mode)
NEEDED: Final = ("crypto_scalarmult_ed25519_noclamp", "crypto_scalarmult_ed25519_base_noclamp",
                 "crypto_core_ed25519_add", "crypto_core_ed25519_sub",
                 "crypto_core_ed25519_is_valid_point")

Entropy = Callable[[int], bytes]


def _functions(lib: ctypes.CDLL) -> dict[str, Callable[..., int]]:
    missing = [name for name in NEEDED if not hasattr(lib, name)]
    if missing:
        raise ImportError("the libsodium rbcl bundles lacks " + ", ".join(missing)
                          + ": SPAKE2 needs it (splitnet/crypto/pake.py)")
    return {name: getattr(lib, name) for name in NEEDED}


_F: Final = _functions(library())
_VALID: Final = _F["crypto_core_ed25519_is_valid_point"]


class PakeError(SplitnetError):
    """The peer's SPAKE2 message is refused (the subclass says why)."""


class OffSides(PakeError):
    """The message's side byte is not the other side's letter."""


class NotAnElement(PakeError):
    """The message is not 33 bytes, or its element is not the canonical encoding of a
    point of the prime-order subgroup other than the identity."""


class ReflectionThwarted(PakeError):
    """The message is our own, sent back to us."""


class PakeUsageError(RuntimeError):
    """start() or finish() called out of order or twice (a programming error)."""


# ----------------------------------------------------------------- the group, libsodium
def is_element(b: bytes) -> bool:
    """``b`` is the canonical encoding of a prime-order-subgroup point ≠ the identity.

    libsodium 1.0.18's ``crypto_core_ed25519_is_valid_point`` (the one rbcl bundles)
    checks only that L·P has x = 0, so it also takes the points of order 2L, P + (0, −1),
    which python-spake2 refuses; they are told apart here by (L − 1)·P = −P, which holds
    in the subgroup and fails for them ((L − 1)·(Q + T) = −Q ≠ −Q − T, L − 1 being even).
    """
    if len(b) != 32 or int(_VALID(b)) != 1:
        return False
    return mul(L - 1, b) == sub(IDENTITY, b)


def _out(name: str, *args: bytes) -> bytes:
    r = ctypes.create_string_buffer(32)
    if int(_F[name](r, *args)) != 0:  # only on inputs this module never passes
        raise RuntimeError(f"libsodium refused {name}")
    return r.raw


def base_mul(n: int) -> bytes:
    """n·B; the identity for n ≡ 0 (libsodium refuses a zero scalar)."""
    n %= L
    if n == 0:
        return IDENTITY
    return _out("crypto_scalarmult_ed25519_base_noclamp", n.to_bytes(32, "little"))


def mul(n: int, p: bytes) -> bytes:
    """n·p for p the identity or an element (:func:`is_element`)."""
    n %= L
    if n == 0 or p == IDENTITY:
        return IDENTITY
    return _out("crypto_scalarmult_ed25519_noclamp", n.to_bytes(32, "little"), p)


def add(p: bytes, q: bytes) -> bytes:
    return _out("crypto_core_ed25519_add", p, q)


def sub(p: bytes, q: bytes) -> bytes:
    return _out("crypto_core_ed25519_sub", p, q)


@functools.lru_cache(maxsize=8)
def _blinded(w: int, blinding: bytes) -> bytes:
    """w·M or w·N: the same for every exchange on one password, so a host answering many
    connections on its code computes it once (a few passwords a process: the code, the
    watch code, a wormhole's key)."""
    return mul(w, blinding)


# --------------------------------------------------------------------- the scalars
def _hkdf(ikm: bytes, info: bytes, length: int) -> bytes:
    """HKDF-SHA256 (RFC 5869) with an empty salt, as python-spake2 calls it."""
    prk = hmac.new(b"", ikm, "sha256").digest()
    okm, t, i = b"", b"", 1
    while len(okm) < length:
        t = hmac.new(prk, t + info + bytes([i]), "sha256").digest()
        okm, i = okm + t, i + 1
    return okm[:length]


def password_to_scalar(pw: bytes) -> int:
    """w = int_be(HKDF-SHA256(pw, salt = empty, info = "SPAKE2 pw", 48 bytes)) mod L."""
    return int.from_bytes(_hkdf(pw, b"SPAKE2 pw", 48), "big") % L


def random_scalar(entropy_f: Entropy) -> int:
    """python-spake2's: ``entropy_f(64)`` read big-endian, mod L."""
    drawn = entropy_f(64)
    if not isinstance(drawn, bytes | bytearray | memoryview):
        raise TypeError("entropy_f must return bytes")
    if len(drawn) == 0:
        raise ValueError("entropy_f returned no bytes")
    return int.from_bytes(bytes(drawn), "big") % L


# ----------------------------------------------------------------------- the exchange
class _State(Enum):
    NEW = "new"
    STARTED = "started"
    FINISHED = "finished"


class _Event(Enum):
    START = "start"
    FINISH = "finish"


#: one SPAKE2 side's lifecycle: start once, then finish once (even a refused finish)
_TABLE: Final = {(_State.NEW, _Event.START): _State.STARTED,
                 (_State.STARTED, _Event.FINISH): _State.FINISHED}


class Spake2:
    """One side of an exchange (:class:`SPAKE2_A`, :class:`SPAKE2_B`): :meth:`start`
    once, then :meth:`finish` once, python-spake2's constructor and methods."""

    side: ClassVar[bytes]
    _blinding: ClassVar[bytes]    # M for A, N for B
    _unblinding: ClassVar[bytes]  # the other one

    def __init__(self, password: bytes, idA: bytes = b"", idB: bytes = b"",
                 entropy_f: Entropy = os.urandom) -> None:
        for what, value in (("password", password), ("idA", idA), ("idB", idB)):
            if not isinstance(value, bytes):
                raise TypeError(f"SPAKE2 {what} must be bytes")
        self._pw, self._id_a, self._id_b = password, idA, idB
        self._w = password_to_scalar(password)
        self._entropy = entropy_f
        self._state = _State.NEW
        self._xy = 0
        self._mine = b""  # our element (32 bytes), once started

    def _fire(self, event: _Event) -> None:
        nxt = _TABLE.get((self._state, event))
        if nxt is None:
            raise PakeUsageError(f"SPAKE2: {event.value} is not allowed once {self._state.value}")
        self._state = nxt

    def start(self) -> bytes:
        """Our message: the side byte, then xy·B + w·(M for A, N for B)."""
        self._fire(_Event.START)
        self._xy = random_scalar(self._entropy)
        self._mine = add(base_mul(self._xy), _blinded(self._w, self._blinding))
        return self.side + self._mine

    def finish(self, message: bytes) -> bytes:
        """The 32-byte key from the other side's message, or a :class:`PakeError`."""
        self._fire(_Event.FINISH)
        if not isinstance(message, bytes):
            raise TypeError("a SPAKE2 message is bytes")
        side = message[:1]
        if side not in (SIDE_A, SIDE_B) or side == self.side:
            raise OffSides(f"SPAKE2 side byte {side.hex() or 'missing'}: "
                           f"not the other side's ({self._other().decode()})")
        theirs = message[1:]
        if not is_element(theirs):  # (32 bytes: the message is MSG_LEN)
            raise NotAnElement("SPAKE2 message: not 33 bytes with a valid element")
        if theirs == self._mine:
            raise ReflectionThwarted("SPAKE2 message: our own, reflected")
        z = mul(self._xy, sub(theirs, _blinded(self._w, self._unblinding)))
        self._xy = 0  # (not needed any more)
        x_msg, y_msg = (self._mine, theirs) if self.side == SIDE_A else (theirs, self._mine)
        return transcript_key(self._pw, self._id_a, self._id_b, x_msg, y_msg, z)

    def _other(self) -> bytes:
        return SIDE_B if self.side == SIDE_A else SIDE_A


def transcript_key(pw: bytes, id_a: bytes, id_b: bytes, x: bytes, y: bytes,
                   z: bytes) -> bytes:
    """SHA-256(SHA-256(pw) ‖ SHA-256(idA) ‖ SHA-256(idB) ‖ X ‖ Y ‖ Z)."""
    h = [hashlib.sha256(v).digest() for v in (pw, id_a, id_b)]
    return hashlib.sha256(b"".join([*h, x, y, z])).digest()


class SPAKE2_A(Spake2):
    """The A side (splitnet's joiner or watcher): blinds with M."""

    side = SIDE_A
    _blinding = M
    _unblinding = N


class SPAKE2_B(Spake2):
    """The B side (splitnet's host): blinds with N."""

    side = SIDE_B
    _blinding = N
    _unblinding = M
