"""Everything a seat's 32-byte round seed determines (DESIGN "fair deck", R3.3, R8.4).

A seat's whole contribution to a round — its key share, its permutation and its 104
re-mask scalars — is derived from one secret ``seed`` so that opening the seed after the
round (R8.4) lets anyone recompute and audit it.  Each derivation uses its own domain
string and binds ``game_id``, the round number and the seat, so one seed can never be
reused across games, rounds or seats by accident.  The permutation, the re-masks and the
shuffle proof's nonce seed also bind the digest of the exact deck the hop is applied to
(:func:`deck_digest`, protocol ``splitnet/2``): a seat made to shuffle again on another
input makes an unrelated hop, so comparing two hops tells nothing about its permutation.

Integers inside hashes are 8-byte big-endian (:func:`u64`); all hashing goes through
:func:`splitnet.crypto.group.frame`.  See ``protocol/DECK.md`` for the exact layouts.

>>> gid = bytes(range(16))
>>> seed = bytes(32)
>>> d_in = bytes(32)                                 # the digest of the input deck
>>> perm = derive_permutation(gid, 1, 0, seed, d_in)
>>> sorted(perm) == list(range(104))
True
>>> derive_permutation(gid, 1, 0, seed, d_in) == perm      # deterministic
True
>>> derive_permutation(gid, 2, 0, seed, d_in) == perm      # bound to the round
False
>>> derive_permutation(gid, 1, 0, seed, bytes([1]) * 32) == perm   # and to the input
False
>>> 0 < derive_key(gid, 1, 0, seed) < group.L
True
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Sequence
from typing import Final

from splitnet.cards import N_CARDS
from splitnet.crypto import group

SEED_BYTES: Final = 32
GAME_ID_BYTES: Final = 16

DOMAIN_COMMIT: Final = b"splitnet/v1/commit"
DOMAIN_KEY: Final = b"splitnet/v1/key"
DOMAIN_PERM: Final = b"splitnet/v2/perm"
DOMAIN_REMASK: Final = b"splitnet/v2/remask"
DOMAIN_DECK_DIGEST: Final = b"splitnet/v2/deck"
DOMAIN_SHUFFLE_NONCE: Final = b"splitnet/v2/shuffle-proof-nonce"
DIGEST_BYTES: Final = 32
DOMAIN_SELFPLAY: Final = b"splitnet/v1/selfplay-seed"


def u64(n: int) -> bytes:
    """The protocol's integer encoding inside hashes: 8 bytes, big-endian, unsigned."""
    return n.to_bytes(8, "big")


def fresh_seed() -> bytes:
    """A seed for a real game: 32 bytes from the operating system's CSPRNG."""
    return secrets.token_bytes(SEED_BYTES)


def selfplay_seed(master: bytes, game_id: bytes, round_no: int, seat: int) -> bytes:
    """A reproducible seed for tests, self-play and bots-only games (never for real play:
    whoever knows ``master`` knows every card)."""
    return hashlib.sha256(
        group.frame(DOMAIN_SELFPLAY, master, game_id, u64(round_no), u64(seat))
    ).digest()


def commitment(game_id: bytes, round_no: int, seat: int, seed: bytes) -> bytes:
    """SHA-256(frame("splitnet/v1/commit", game_id, round, seat, seed)) — 32 bytes."""
    return hashlib.sha256(
        group.frame(DOMAIN_COMMIT, game_id, u64(round_no), u64(seat), seed)
    ).digest()


def nonzero_scalar(domain: bytes, *parts: bytes) -> int:
    """hash_to_scalar(domain, *parts, u64(ctr)) for ctr = 0, 1, … — the first non-zero one.

    (A zero has probability 2^-252; the counter only makes the rule total.)
    """
    ctr = 0
    while True:
        s = group.hash_to_scalar(domain, *parts, u64(ctr))
        if s:
            return s
        ctr += 1  # pragma: no cover - probability 2^-252


def hash_to_scalars(
    domain: bytes, prefix: tuple[bytes, ...], suffixes: list[tuple[bytes, ...]]
) -> list[int]:
    """``[group.hash_to_scalar(domain, *prefix, *sfx) for sfx in suffixes]``, computed by
    hashing the common framed prefix once and copying the SHA-512 state for each suffix
    (same bytes hashed, same results — about 4× faster for the 104 re-masks or the
    weights of a large SHARES message)."""
    base = hashlib.sha512(group.frame(domain, *prefix))
    out = []
    for sfx in suffixes:
        h = base.copy()
        h.update(b"".join(len(p).to_bytes(8, "big") + p for p in sfx))
        out.append(int.from_bytes(h.digest(), "little") % group.L)
    return out


def derive_key(game_id: bytes, round_no: int, seat: int, seed: bytes) -> int:
    """The seat's secret key share x_i (non-zero)."""
    return nonzero_scalar(DOMAIN_KEY, game_id, u64(round_no), u64(seat), seed)


def deck_digest(
    game_id: bytes, round_no: int, joint_key: bytes, deck: Sequence[tuple[bytes, bytes]]
) -> bytes:
    """SHA-256(frame("splitnet/v2/deck", game_id, u64(round), Y, u64(n), c1_0 ‖ c2_0 ‖ …)).

    Names one deck of one round exactly: the input of a hop (what the hop's secrets are
    derived from) or the final deck (what a seat's shares are of).
    """
    body = b"".join(c1 + c2 for c1, c2 in deck)
    return hashlib.sha256(
        group.frame(DOMAIN_DECK_DIGEST, game_id, u64(round_no), joint_key, u64(len(deck)), body)
    ).digest()


def _check_digest(d: bytes) -> None:
    if not isinstance(d, bytes) or len(d) != DIGEST_BYTES:
        raise ValueError(f"the input digest must be {DIGEST_BYTES} bytes")


def derive_remasks(
    game_id: bytes, round_no: int, seat: int, seed: bytes, input_digest: bytes,
    n: int = N_CARDS,
) -> list[int]:
    """ρ_0 … ρ_103: the scalar added to output position k of the seat's shuffle hop on
    the input deck whose :func:`deck_digest` is ``input_digest`` (``n`` positions: 104
    for Split's deck; the digest names the deck, its length included)."""
    _check_digest(input_digest)
    base = (game_id, u64(round_no), u64(seat), seed, input_digest)
    # ρ_k = nonzero_scalar(DOMAIN_REMASK, *base, u64(k)), i.e. counter 0 unless that
    # gives zero (probability 2^-252), in which case the general loop takes over.
    fast = hash_to_scalars(DOMAIN_REMASK, base, [(u64(k), u64(0)) for k in range(n)])
    return [r or nonzero_scalar(DOMAIN_REMASK, *base, u64(k)) for k, r in enumerate(fast)]


class _Shake:
    """A SHAKE-256 output stream read 4 bytes at a time (grows on demand)."""

    def __init__(self, data: bytes, initial: int = 1024) -> None:
        self._xof = hashlib.shake_256(data)
        self._buf = self._xof.digest(initial)
        self._pos = 0

    def u32(self) -> int:
        if self._pos + 4 > len(self._buf):
            # SHAKE output is prefix-stable: a longer digest extends the shorter one.
            self._buf = self._xof.digest(2 * len(self._buf))
        v = int.from_bytes(self._buf[self._pos : self._pos + 4], "big")
        self._pos += 4
        return v


def uniform_below(stream: _Shake, bound: int) -> int:
    """An unbiased integer in [0, bound) by rejection sampling on 32-bit draws."""
    if not 0 < bound <= 2**32:
        raise ValueError("bound out of range")
    limit = 2**32 - (2**32 % bound)
    while True:
        v = stream.u32()
        if v < limit:
            return v % bound


def permutation_from_stream(data: bytes, n: int = N_CARDS) -> list[int]:
    """Fisher–Yates over range(n), driven by SHAKE-256(data) (see protocol/DECK.md)."""
    stream = _Shake(data)
    perm = list(range(n))
    for i in range(n - 1, 0, -1):
        j = uniform_below(stream, i + 1)
        perm[i], perm[j] = perm[j], perm[i]
    return perm


def derive_permutation(
    game_id: bytes, round_no: int, seat: int, seed: bytes, input_digest: bytes,
    n: int = N_CARDS,
) -> list[int]:
    """π_i as a list: output position k of the seat's hop takes input position perm[k]
    (for the input deck whose :func:`deck_digest` is ``input_digest``, of ``n`` cards)."""
    _check_digest(input_digest)
    return permutation_from_stream(
        group.frame(DOMAIN_PERM, game_id, u64(round_no), u64(seat), seed, input_digest), n
    )


def derive_shuffle_nonce_seed(
    game_id: bytes, round_no: int, seat: int, seed: bytes, input_digest: bytes
) -> bytes:
    """The secret ``nonce_seed`` of the seat's shuffle proof on that input (32 bytes):
    SHA-256(frame("splitnet/v2/shuffle-proof-nonce", game_id, u64(round), u64(seat), seed,
    input_digest))."""
    _check_digest(input_digest)
    return hashlib.sha256(
        group.frame(DOMAIN_SHUFFLE_NONCE, game_id, u64(round_no), u64(seat), seed, input_digest)
    ).digest()
