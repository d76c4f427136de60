"""Non-interactive zero-knowledge proofs of the fair deck (DESIGN "fair deck", R3.3, R8).

* :func:`prove_key` / :func:`verify_key` — a Schnorr proof of knowledge of the key share
  x_i behind Y_i = x_i·G.  The challenge binds game_id, round, seat and Y_i, which blocks
  rogue keys (Y_i chosen as a function of the others' keys, without knowing its log) and
  the replay of a commit into another game, round or seat.
* :func:`prove_shares` / :func:`verify_shares` — one batched Chaum–Pedersen proof that
  every decryption share d_s of a SHARES message satisfies log_G(Y_i) = log_{c1_s}(d_s).

Both are Fiat–Shamir transforms with SHA-512-based challenges (``group.hash_to_scalar``)
and **deterministic nonces** derived from the secret and the whole statement, like
Ed25519/RFC 6979: the same message always gets the same proof, and two different
statements never share a nonce.  A proof is 64 bytes: ``e ‖ z`` (two 32-byte
little-endian scalars).

Soundness of the batch (see protocol/DECK.md §5): weights w_0 = 1, w_j = H(T, j) where T
hashes everything (game, round, seat, Y_i, purpose, slots, c1s, shares).  If some share
is wrong, d_s = x·c1_s + Δ_s with Δ ≠ 0, then D − x·C = Σ w_j Δ_j, which vanishes for at
most one value of one independent uniform weight: probability ≤ 1/L per hash query.  If
D ≠ x·C the Chaum–Pedersen proof on (G, Y_i, C, D) passes with probability ≤ 1/L per
query.  A prover making q random-oracle queries thus cheats with probability ≤ 2q/L
(L ≈ 2^252).

>>> x = 4242
>>> Y = group.base_mul(x)
>>> pok = prove_key(x, Y, bytes(16), 1, 0)
>>> verify_key(pok, Y, bytes(16), 1, 0), verify_key(pok, Y, bytes(16), 1, 1)
(True, False)
>>> c1s = [group.base_mul(11), group.base_mul(13)]
>>> d = [group.mul(x, c) for c in c1s]
>>> pf = prove_shares(x, Y, bytes(16), 1, 0, "draw", [3, 5], c1s, d)
>>> verify_shares(pf, Y, bytes(16), 1, 0, "draw", [3, 5], c1s, d)
True
>>> verify_shares(pf, Y, bytes(16), 1, 0, "draw", [3, 5], c1s, [d[1], d[0]])
False
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Final

from splitnet.crypto import group
from splitnet.crypto.seeds import hash_to_scalars, nonzero_scalar, u64

PROOF_BYTES: Final = 64

DOMAIN_POK: Final = b"splitnet/v1/pok"
DOMAIN_POK_NONCE: Final = b"splitnet/v1/pok/nonce"
DOMAIN_SHARES: Final = b"splitnet/v1/shares"
DOMAIN_SHARES_WEIGHT: Final = b"splitnet/v1/shares/weight"
DOMAIN_SHARES_NONCE: Final = b"splitnet/v1/shares/nonce"
DOMAIN_SHARES_CHALLENGE: Final = b"splitnet/v1/shares/challenge"

PURPOSES: Final = frozenset({"deal", "draw", "reveal"})


def encode_proof(e: int, z: int) -> bytes:
    return group.scalar_bytes(e) + group.scalar_bytes(z)


def decode_proof(proof: object, what: str = "proof") -> tuple[int, int]:
    """(e, z) from 64 bytes, or GroupError (wrong type/length, unreduced scalar)."""
    if not isinstance(proof, bytes) or len(proof) != PROOF_BYTES:
        raise group.GroupError(f"{what}: expected {PROOF_BYTES} bytes")
    return (
        group.decode_scalar(proof[:32], f"{what} challenge"),
        group.decode_scalar(proof[32:], f"{what} response"),
    )


# --------------------------------------------------------------------- Schnorr PoK


def _pok_challenge(game_id: bytes, round_no: int, seat: int, key: bytes, r: bytes) -> int:
    return group.hash_to_scalar(DOMAIN_POK, game_id, u64(round_no), u64(seat), key, r)


def prove_key(x: int, key: bytes, game_id: bytes, round_no: int, seat: int) -> bytes:
    """Schnorr proof that the prover knows x with key = x·G, bound to (game, round, seat)."""
    k = nonzero_scalar(
        DOMAIN_POK_NONCE, group.scalar_bytes(x), game_id, u64(round_no), u64(seat), key
    )
    r = group.base_mul(k)
    e = _pok_challenge(game_id, round_no, seat, key, r)
    return encode_proof(e, (k + e * x) % group.L)


def verify_key(proof: object, key: bytes, game_id: bytes, round_no: int, seat: int) -> bool:
    """True iff ``proof`` is a valid PoK for the (already decoded) point ``key``.

    Raises GroupError when the proof bytes are malformed.
    """
    e, z = decode_proof(proof, "pok")
    r = group.sub(group.base_mul(z), group.mul(e, key))
    return _pok_challenge(game_id, round_no, seat, key, r) == e


# ------------------------------------------------------------ batched Chaum–Pedersen


def shares_transcript(
    game_id: bytes,
    round_no: int,
    seat: int,
    key: bytes,
    purpose: str,
    slots: Sequence[int],
    c1s: Sequence[bytes],
    shares: Sequence[bytes],
) -> bytes:
    """T = SHA-512(frame("splitnet/v1/shares", game_id, round, seat, Y_i, purpose,
    slots, c1s, shares)) — slots as concatenated u64, points concatenated."""
    return hashlib.sha512(
        group.frame(
            DOMAIN_SHARES,
            game_id,
            u64(round_no),
            u64(seat),
            key,
            purpose.encode("ascii"),
            b"".join(u64(s) for s in slots),
            b"".join(c1s),
            b"".join(shares),
        )
    ).digest()


def batch_weights(transcript: bytes, n: int) -> list[int]:
    """w_0 = 1 (saves a multiplication; still sound), w_j = H(T, j) for j ≥ 1."""
    # = group.hash_to_scalar(DOMAIN_SHARES_WEIGHT, T, u64(j)), hashed from a shared prefix
    return [
        1,
        *hash_to_scalars(DOMAIN_SHARES_WEIGHT, (transcript,), [(u64(j),) for j in range(1, n)]),
    ]


def combine(weights: Sequence[int], points: Sequence[bytes]) -> bytes:
    """Σ w_j·P_j with w_0 = 1: n−1 multiplications and n−1 additions."""
    acc = points[0]
    for w, p in zip(weights[1:], points[1:], strict=True):
        acc = group.add(acc, group.mul(w, p))
    return acc


def _shares_challenge(transcript: bytes, a: bytes, b: bytes) -> int:
    return group.hash_to_scalar(DOMAIN_SHARES_CHALLENGE, transcript, a, b)


def prove_shares(
    x: int,
    key: bytes,
    game_id: bytes,
    round_no: int,
    seat: int,
    purpose: str,
    slots: Sequence[int],
    c1s: Sequence[bytes],
    shares: Sequence[bytes],
) -> bytes:
    """Batched DLEQ: log_G(key) = log_{c1_s}(share_s) for every s (shares = x·c1s)."""
    if not slots or not len(slots) == len(c1s) == len(shares):
        raise ValueError("slots, c1s and shares must be non-empty and of equal length")
    t = shares_transcript(game_id, round_no, seat, key, purpose, slots, c1s, shares)
    c = combine(batch_weights(t, len(c1s)), c1s)
    r = nonzero_scalar(DOMAIN_SHARES_NONCE, group.scalar_bytes(x), t)
    e = _shares_challenge(t, group.base_mul(r), group.mul(r, c))
    return encode_proof(e, (r + e * x) % group.L)


def verify_shares(
    proof: object,
    key: bytes,
    game_id: bytes,
    round_no: int,
    seat: int,
    purpose: str,
    slots: Sequence[int],
    c1s: Sequence[bytes],
    shares: Sequence[bytes],
) -> bool:
    """True iff the batched proof holds; the points must already be decoded/validated.

    Cost: 2(n−1) multiplications + 2(n−1) additions for the two combinations, then
    one base multiplication, three multiplications and two subtractions.
    Raises GroupError when the proof bytes are malformed.
    """
    e, z = decode_proof(proof, "shares proof")
    if not slots or not len(slots) == len(c1s) == len(shares):
        return False
    t = shares_transcript(game_id, round_no, seat, key, purpose, slots, c1s, shares)
    w = batch_weights(t, len(c1s))
    c = combine(w, c1s)
    d = combine(w, shares)
    a = group.sub(group.base_mul(z), group.mul(e, key))
    b = group.sub(group.mul(z, c), group.mul(e, d))
    return _shares_challenge(t, a, b) == e
