"""A peer's long-term Ed25519 identity.

The key lives in ``DATA_DIR/identity.key`` as the **raw 32-byte Ed25519 private key**
(the RFC 8032 seed; no PEM, no header) — the simplest format another implementation can
read. It is created on first use with mode 0600 inside a 0700 directory, and a key file
that group or others may read or write is refused: a leaked key lets anyone sign moves in
your name.

>>> me = Identity.from_seed(bytes(32))
>>> me.public_key_bytes().hex()
'3b6a27bcceb6a42d62a3a8d02a6f0d73653215771de243a63ac048a18b59da29'
>>> me.fingerprint()
'139e-3940-e64b-5491-7220'
>>> verify(me.public_key_bytes(), b"hi", me.sign(b"hi")), verify(b"junk", b"hi", b"sig")
(True, False)
"""

from __future__ import annotations

import functools
import hashlib
import os
import stat
from pathlib import Path
from typing import Final

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)
from cryptography.hazmat.primitives.serialization import (
    Encoding,
    NoEncryption,
    PrivateFormat,
    PublicFormat,
)

from splitnet.durable import create_new
from splitnet.errors import SplitnetError

__all__ = [
    "KEY_FILE",
    "Identity",
    "IdentityError",
    "default_data_dir",
    "fingerprint",
    "is_valid_public_key",
    "verify",
]

#: Name of the key file inside the data directory.
KEY_FILE: Final = "identity.key"


class IdentityError(SplitnetError):
    """The identity key file cannot be used (reason and path in words)."""


#: the way on from a key file that cannot be used
_AWAY: Final = ("move it away and a new key is made (the players who knew the old one "
                "see a NEW key)")


def default_data_dir() -> Path:
    """``$XDG_DATA_HOME/splitnet``, or ``~/.local/share/splitnet`` when it is unset/empty."""
    xdg = os.environ.get("XDG_DATA_HOME", "")
    base = Path(xdg) if xdg and Path(xdg).is_absolute() else Path.home() / ".local" / "share"
    return base / "splitnet"


def fingerprint(public_key: bytes) -> str:
    """Short human form of a public key: the first 10 bytes of SHA-256(key) as five groups
    of four hex digits (80 bits — enough to compare two keys by eye or by voice)."""
    h = hashlib.sha256(public_key).hexdigest()[:20]
    return "-".join(h[i : i + 4] for i in range(0, 20, 4))


def verify(public_key: bytes, data: bytes, signature: bytes) -> bool:
    """True iff *signature* is a valid Ed25519 signature of *data* by *public_key*.

    Never raises: a malformed key, signature or argument of the wrong type gives False.
    Verification is OpenSSL's RFC 8032 check (cofactorless, ``S < L`` enforced).
    """
    if not (
        type(public_key) is bytes
        and type(data) is bytes
        and type(signature) is bytes
        and len(public_key) == 32
        and len(signature) == 64
    ):
        return False
    try:
        Ed25519PublicKey.from_public_bytes(public_key).verify(signature, data)
    except (InvalidSignature, ValueError, TypeError):
        return False
    return True


# --- public-key validation (pure Python, only run on the few keys in a game header) -------

_P: Final = 2**255 - 19
_L: Final = 2**252 + 27742317777372353535851937790883648493
_D: Final = -121665 * pow(121666, _P - 2, _P) % _P
_SQRT_M1: Final = pow(2, (_P - 1) // 4, _P)

_Point = tuple[int, int, int, int]  # extended coordinates (X, Y, Z, T), x = X/Z, y = Y/Z


def _decompress(b: bytes) -> _Point | None:
    n = int.from_bytes(b, "little")
    sign, y = n >> 255, n & ((1 << 255) - 1)
    if y >= _P:
        return None  # non-canonical encoding
    u, v = (y * y - 1) % _P, (_D * y * y + 1) % _P
    x = u * pow(v, 3, _P) * pow(u * pow(v, 7, _P), (_P - 5) // 8, _P) % _P
    if (v * x * x - u) % _P:
        x = x * _SQRT_M1 % _P
        if (v * x * x - u) % _P:
            return None  # not on the curve
    if x == 0 and sign:
        return None
    if x & 1 != sign:
        x = _P - x
    return (x, y, 1, x * y % _P)


def _add(p: _Point, q: _Point) -> _Point:
    # add-2008-hwcd-3 for a = -1 (complete on ed25519)
    x1, y1, z1, t1 = p
    x2, y2, z2, t2 = q
    a = (y1 - x1) * (y2 - x2) % _P
    b = (y1 + x1) * (y2 + x2) % _P
    c = 2 * _D * t1 * t2 % _P
    d = 2 * z1 * z2 % _P
    e, f, g, h = b - a, d - c, d + c, b + a
    return (e * f % _P, g * h % _P, f * g % _P, e * h % _P)


def _mul(k: int, p: _Point) -> _Point:
    r: _Point = (0, 1, 1, 0)
    while k:
        if k & 1:
            r = _add(r, p)
        p = _add(p, p)
        k >>= 1
    return r


def _is_identity(p: _Point) -> bool:
    x, y, z, _ = p
    return x % _P == 0 and (y - z) % _P == 0


def is_valid_public_key(public_key: bytes) -> bool:
    """True iff *public_key* is 32 bytes encoding, canonically, a point of the prime-order
    subgroup other than the identity — which every honestly generated Ed25519 key is.

    Refusing small-order and mixed-order keys matters: with a small-order key anyone can
    forge a fair share of "signatures", so a player could later disown its own moves.
    """
    if type(public_key) is not bytes or len(public_key) != 32:
        return False
    return _valid_point(public_key)


@functools.lru_cache(maxsize=256)
def _valid_point(public_key: bytes) -> bool:
    # A pure function of 32 bytes, ~10 ms in Python (253 doublings): a header's keys are
    # checked each time a log, a table or a saved game reads the header.
    p = _decompress(public_key)
    return p is not None and not _is_identity(p) and _is_identity(_mul(_L, p))


# --- the identity itself ----------------------------------------------------------------


class Identity:
    """An Ed25519 key pair that signs this peer's messages."""

    __slots__ = ("_private", "_public")

    def __init__(self, private_key: Ed25519PrivateKey) -> None:
        self._private = private_key
        self._public = private_key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)

    @classmethod
    def from_seed(cls, seed: bytes) -> Identity:
        """The identity whose raw private key is *seed* (32 bytes) — for tests and vectors."""
        if type(seed) is not bytes or len(seed) != 32:
            raise IdentityError("an Ed25519 private key is exactly 32 bytes")
        return cls(Ed25519PrivateKey.from_private_bytes(seed))

    @classmethod
    def generate(cls) -> Identity:
        return cls(Ed25519PrivateKey.generate())

    @classmethod
    def load(cls, path: Path) -> Identity:
        """Read a key file, refusing one that group/others can access or that is malformed."""
        # non-blocking: a FIFO put there opens at once (and is refused below), never hangs
        flags = (os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
                 | getattr(os, "O_NOCTTY", 0))
        try:
            fd = os.open(path, flags)
        except FileNotFoundError:
            raise
        except OSError as e:
            raise IdentityError(f"{path}: cannot open identity key: {e.strerror}; {_AWAY}"
                                ) from None
        try:
            st = os.fstat(fd)
        except OSError as e:
            os.close(fd)
            raise IdentityError(f"{path}: cannot read identity key: {e.strerror}") from None
        if not stat.S_ISREG(st.st_mode):
            os.close(fd)
            raise IdentityError(f"{path}: identity key is not a regular file (a directory, "
                                f"FIFO, device or socket); {_AWAY}")
        with os.fdopen(fd, "rb") as f:
            if os.name == "posix" and st.st_mode & 0o077:
                raise IdentityError(
                    f"{path}: identity key has mode {stat.S_IMODE(st.st_mode):04o}, so other "
                    f"users may read it; refusing to use it. Fix with: chmod 600 {path}"
                )
            if os.name == "posix" and hasattr(os, "getuid") and st.st_uid != os.getuid():
                raise IdentityError(f"{path}: identity key belongs to another user")
            data = f.read(33)
        if len(data) != 32:
            raise IdentityError(
                f"{path}: identity key must be exactly 32 raw bytes, found "
                f"{'more' if len(data) > 32 else len(data)}; {_AWAY}"
            )
        return cls.from_seed(data)

    @classmethod
    def load_or_create(cls, data_dir: Path) -> Identity:
        """Load ``data_dir/identity.key``, creating the directory (0700) and a fresh key
        (0600) on first use. Creation is atomic: a crash never leaves a short key file,
        and two processes starting at once end up with the same key."""
        path = data_dir / KEY_FILE
        try:
            return cls.load(path)
        except FileNotFoundError:
            pass
        ident = cls.generate()
        seed = ident._private.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())
        if not create_new(path, seed, 0o600):  # someone else created it meanwhile
            return cls.load(path)
        return ident

    def public_key_bytes(self) -> bytes:
        """The raw 32-byte public key."""
        return self._public

    def sign(self, data: bytes) -> bytes:
        """The 64-byte Ed25519 signature of *data* (deterministic, RFC 8032)."""
        return self._private.sign(data)

    def fingerprint(self) -> str:
        """See :func:`fingerprint`."""
        return fingerprint(self._public)

    verify = staticmethod(verify)

    def __repr__(self) -> str:
        return f"Identity({self.fingerprint()})"
