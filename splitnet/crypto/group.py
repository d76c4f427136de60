"""The prime-order group ristretto255, through libsodium as bundled by ``rbcl``.

This is the only module that touches ``rbcl`` (imported through
:mod:`splitnet.crypto.sodium`, so that no copy of its libsodium is left in the temp dir:
protocol/SECURITY.md §6, row 100). Conventions used everywhere else:

* a **scalar** is a Python ``int`` in ``[0, L)``; on the wire it is 32 bytes little-endian;
* a **point** is its canonical 32-byte ristretto255 encoding (``bytes``);
  the identity is 32 zero bytes.

Everything a peer receives goes through :func:`decode_point` / :func:`decode_scalar`,
which refuse non-canonical or invalid encodings with a :class:`GroupError` naming the
field. Points we compute ourselves are valid by construction and are not re-checked.

>>> P = base_mul(5)
>>> add(P, base_mul(7)) == base_mul(12)
True
>>> mul(3, P) == base_mul(15)
True
>>> decode_point(P, "example") == P
True
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import Final

from splitnet.crypto.sodium import import_rbcl
from splitnet.errors import SplitnetError

rbcl = import_rbcl()

#: Order of the ristretto255 group (2^252 + 27742317777372353535851937790883648493).
L: Final = 2**252 + 27742317777372353535851937790883648493
POINT_BYTES: Final = 32
SCALAR_BYTES: Final = 32
IDENTITY: Final = bytes(32)
#: The conventional generator: base_mul(1).
G: Final = rbcl.crypto_scalarmult_ristretto255_base_allow_scalar_zero((1).to_bytes(32, "little"))


class GroupError(SplitnetError):
    """A received group element or scalar is malformed; the message says which field."""


def scalar_bytes(s: int) -> bytes:
    return (s % L).to_bytes(SCALAR_BYTES, "little")


def decode_scalar(b: object, what: str = "scalar") -> int:
    """A canonical scalar (< L) from 32 bytes, or GroupError."""
    if not isinstance(b, bytes) or len(b) != SCALAR_BYTES:
        raise GroupError(f"{what}: expected {SCALAR_BYTES} bytes")
    s = int.from_bytes(b, "little")
    if s >= L:
        raise GroupError(f"{what}: scalar is not reduced modulo the group order")
    return s


def decode_point(b: object, what: str = "point", *, allow_identity: bool = False) -> bytes:
    """A canonical, valid ristretto255 point from 32 bytes, or GroupError.

    The identity is refused unless ``allow_identity``: a key share, a mask or a card
    point that is the identity would reveal or destroy information.
    """
    if not isinstance(b, bytes) or len(b) != POINT_BYTES:
        raise GroupError(f"{what}: expected {POINT_BYTES} bytes")
    if b[31] & 0x80:
        # libsodium ignores bit 255 when decoding, so every point would have a second
        # spelling (and bytes(31) + b"\x80" would be the identity in disguise).
        raise GroupError(f"{what}: not a canonical ristretto255 encoding (bit 255 set)")
    if b == IDENTITY:
        if allow_identity:
            return b
        raise GroupError(f"{what}: the identity element is not allowed here")
    if not rbcl.crypto_core_ristretto255_is_valid_point(b):
        raise GroupError(f"{what}: not a canonical ristretto255 encoding")
    return b


def base_mul(s: int) -> bytes:
    """s·G (s = 0 gives the identity)."""
    return bytes(rbcl.crypto_scalarmult_ristretto255_base_allow_scalar_zero(scalar_bytes(s)))


def mul(s: int, p: bytes) -> bytes:
    """s·P (the identity when s = 0 or P is the identity)."""
    if p == IDENTITY:
        return IDENTITY
    return bytes(rbcl.crypto_scalarmult_ristretto255_allow_scalar_zero(scalar_bytes(s), p))


def add(p: bytes, q: bytes) -> bytes:
    return bytes(rbcl.crypto_core_ristretto255_add(p, q))


def sub(p: bytes, q: bytes) -> bytes:
    return bytes(rbcl.crypto_core_ristretto255_sub(p, q))


def neg(p: bytes) -> bytes:
    return sub(IDENTITY, p)


def sum_points(points: Iterable[bytes]) -> bytes:
    acc = IDENTITY
    for p in points:
        acc = add(acc, p)
    return acc


def msm(scalars: Iterable[int], points: Iterable[bytes]) -> bytes:
    """Σ s_i·P_i (naively: libsodium has no multi-scalar multiplication)."""
    acc = IDENTITY
    for s, p in zip(scalars, points, strict=True):
        acc = add(acc, mul(s, p))
    return acc


def _frame(domain: bytes, parts: Iterable[bytes]) -> bytes:
    """Unambiguous concatenation: each part is prefixed by its 8-byte length."""
    out = [len(domain).to_bytes(8, "big"), domain]
    for p in parts:
        out.append(len(p).to_bytes(8, "big"))
        out.append(p)
    return b"".join(out)


def hash_to_point(domain: bytes, *parts: bytes) -> bytes:
    """A point with unknown discrete log: from_hash(SHA-512(framed domain ‖ parts))."""
    h = hashlib.sha512(_frame(domain, parts)).digest()
    return bytes(rbcl.crypto_core_ristretto255_from_hash(h))


def hash_to_scalar(domain: bytes, *parts: bytes) -> int:
    """A scalar from SHA-512(framed domain ‖ parts) reduced mod L (bias < 2^-250)."""
    h = hashlib.sha512(_frame(domain, parts)).digest()
    return int.from_bytes(h, "little") % L


def frame(domain: bytes, *parts: bytes) -> bytes:
    """The length-prefixed framing used by every hash in the protocol (see protocol/)."""
    return _frame(domain, parts)
