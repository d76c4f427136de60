"""Non-interactive zero-knowledge proofs of the fair deck (DESIGN "fair deck", R3.3, R8).

* :func:`prove_key` / :func:`verify_key` — a Schnorr proof of knowledge of the key share
  x_i behind Y_i = x_i·G.  The challenge binds game_id, round, seat and Y_i, which blocks
  rogue keys (Y_i chosen as a function of the others' keys, without knowing its log) and
  the replay of a commit into another game, round or seat.  64 bytes: ``e ‖ z``.
* :func:`prove_dlog` / :func:`verify_dlog` — the same Schnorr proof for any point P = e·G,
  its challenge bound to a caller's domain and context (Splito's ``pass``: knowledge of
  the ephemeral e behind R, bound to game, turn, sender, receiver; SPLITO_GAME.md §6).
* :func:`prove_shares` / :func:`verify_shares` — one batched Chaum–Pedersen proof that
  every decryption share d_s of a SHARES message satisfies log_G(Y_i) = log_{c1_s}(d_s).
  96 bytes: ``A ‖ B ‖ z`` (the commitment form, so that proofs of several messages can
  be checked together by :func:`verify_shares_batch`).

Both are Fiat–Shamir transforms with SHA-512-based challenges (``group.hash_to_scalar``)
and **deterministic nonces** derived from the secret and the whole statement, like
Ed25519/RFC 6979: the same message always gets the same proof, and two different
statements never share a nonce.  Scalars are 32 bytes little-endian.

Soundness of one SHARES proof (protocol/DECK.md §6): weights w_0 = 1, w_j = H(T, j) where
T hashes everything (game, round, seat, Y_i, purpose, slots, c1s, shares).  If some share
is wrong, d_s = x·c1_s + Δ_s with Δ ≠ 0, then D − x·C = Σ w_j Δ_j, which vanishes for at
most one value of one independent uniform weight: probability ≤ 1/L per hash query.  If
D ≠ x·C the Chaum–Pedersen proof on (G, Y_i, C, D) passes with probability ≤ 1/L per
query.  A prover making q random-oracle queries thus cheats with probability ≤ 2q/L
(L ≈ 2^252).  The cross-message batch adds ≤ 2q/L more (see verify_shares_batch).

>>> x = 4242
>>> Y = group.base_mul(x)
>>> pok = prove_key(x, Y, bytes(16), 1, 0)
>>> verify_key(pok, Y, bytes(16), 1, 0), verify_key(pok, Y, bytes(16), 1, 1)
(True, False)
>>> R = group.base_mul(99)
>>> pf = prove_dlog(99, R, b"test/pok", b"ctx")
>>> verify_dlog(pf, R, b"test/pok", b"ctx"), verify_dlog(pf, R, b"test/pok", b"other")
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

import dataclasses
import hashlib
from collections.abc import Sequence
from typing import Final

from splitnet.crypto import group
from splitnet.crypto.seeds import hash_to_scalars, nonzero_scalar, u64
from splitnet.crypto.split import Splitter, is_identity

POK_BYTES: Final = 64
SHARES_PROOF_BYTES: Final = 96

DOMAIN_POK: Final = b"splitnet/v1/pok"
DOMAIN_POK_NONCE: Final = b"splitnet/v1/pok/nonce"
DOMAIN_SHARES: Final = b"splitnet/v1/shares"
DOMAIN_SHARES_WEIGHT: Final = b"splitnet/v1/shares/weight"
DOMAIN_SHARES_NONCE: Final = b"splitnet/v1/shares/nonce"
DOMAIN_SHARES_CHALLENGE: Final = b"splitnet/v1/shares/challenge"
DOMAIN_SHARES_BATCH: Final = b"splitnet/v1/shares/batch"
DOMAIN_SHARES_BATCH_WEIGHT: Final = b"splitnet/v1/shares/batch-weight"

#: What a SHARES proof is for (bound into its transcript): Split's "deal", "draw" and
#: "reveal"; Splito's "central" (the central objectives, opened to all) and "pass" (one
#: card's share for the seat a hand passes to, S5.4) and "complaint" (a seat shows the
#: key of a sealed message to it: K = x·R for the message's R).
PURPOSES: Final = frozenset({"deal", "draw", "reveal", "central", "pass", "complaint"})


def encode_proof(e: int, z: int) -> bytes:
    return group.scalar_bytes(e) + group.scalar_bytes(z)


def decode_proof(proof: object, what: str = "proof") -> tuple[int, int]:
    """(e, z) of a Schnorr PoK from 64 bytes, or GroupError (type/length, unreduced)."""
    if not isinstance(proof, bytes) or len(proof) != POK_BYTES:
        raise group.GroupError(f"{what}: expected {POK_BYTES} bytes")
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


def prove_dlog(x: int, point: bytes, domain: bytes, *context: bytes) -> bytes:
    """Schnorr proof that the prover knows x with ``point`` = x·G, bound to ``domain`` and
    ``context``: challenge e = H(domain, *context, point, T) for T = k·G, response
    z = k + e·x; the nonce k = H_nz(domain ‖ "/nonce", x, *context, point). 64 bytes
    ``e ‖ z``, as :func:`prove_key`."""
    k = nonzero_scalar(domain + b"/nonce", group.scalar_bytes(x), *context, point)
    t = group.base_mul(k)
    e = group.hash_to_scalar(domain, *context, point, t)
    return encode_proof(e, (k + e * x) % group.L)


def verify_dlog(proof: object, point: bytes, domain: bytes, *context: bytes) -> bool:
    """True iff ``proof`` is :func:`prove_dlog`'s for the (decoded) ``point`` and context.

    Raises GroupError when the proof bytes are malformed.
    """
    e, z = decode_proof(proof, "pok")
    t = group.sub(group.base_mul(z), group.mul(e, point))
    return group.hash_to_scalar(domain, *context, point, t) == e


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


def decode_shares_proof(proof: object, what: str = "shares proof") -> tuple[bytes, bytes, int]:
    """(A, B, z) from 96 bytes, or GroupError.  A = r·G is never the identity; B = r·C
    may be (only if the weighted sum C of the c1s is, which has probability ~2^-252)."""
    if not isinstance(proof, bytes) or len(proof) != SHARES_PROOF_BYTES:
        raise group.GroupError(f"{what}: expected {SHARES_PROOF_BYTES} bytes")
    return (
        group.decode_point(proof[:32], f"{what} A"),
        group.decode_point(proof[32:64], f"{what} B", allow_identity=True),
        group.decode_scalar(proof[64:], f"{what} response"),
    )


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
    """Batched DLEQ: log_G(key) = log_{c1_s}(share_s) for every s (shares = x·c1s).

    A = r·G, B = r·C with C = Σ w_j·c1_j; e = H(T, A, B); z = r + e·x; proof A ‖ B ‖ z.
    """
    if not slots or not len(slots) == len(c1s) == len(shares):
        raise ValueError("slots, c1s and shares must be non-empty and of equal length")
    t = shares_transcript(game_id, round_no, seat, key, purpose, slots, c1s, shares)
    c = combine(batch_weights(t, len(c1s)), c1s)
    r = nonzero_scalar(DOMAIN_SHARES_NONCE, group.scalar_bytes(x), t)
    a, b = group.base_mul(r), group.mul(r, c)
    e = _shares_challenge(t, a, b)
    return a + b + group.scalar_bytes((r + e * x) % group.L)


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

    Checks z·G = A + e·Y and z·C = B + e·D with C, D the weighted sums of c1s and shares.
    Cost: 2(n−1) multiplications + 2(n−1) additions for C and D, then one base
    multiplication, three multiplications and two additions.
    Raises GroupError when the proof bytes are malformed.
    """
    a, b, z = decode_shares_proof(proof)
    if not slots or not len(slots) == len(c1s) == len(shares):
        return False
    t = shares_transcript(game_id, round_no, seat, key, purpose, slots, c1s, shares)
    e = _shares_challenge(t, a, b)
    if group.base_mul(z) != group.add(a, group.mul(e, key)):
        return False
    w = batch_weights(t, len(c1s))
    c, d = combine(w, c1s), combine(w, shares)
    return group.mul(z, c) == group.add(b, group.mul(e, d))


@dataclasses.dataclass(frozen=True)
class SharesStatement:
    """One SHARES message to check: seat ``seat`` with key ``key`` claims ``shares``."""

    key: bytes
    game_id: bytes
    round_no: int
    seat: int
    purpose: str
    slots: Sequence[int]
    c1s: Sequence[bytes]
    shares: Sequence[bytes]
    proof: object


def verify_shares_batch(statements: Sequence[SharesStatement],
                        splitter: Splitter | None = None) -> bool:
    """True iff every statement's proof holds (up to ≤ 2q/L), checked all at once.

    With E^A_i = z_i·G − e_i·Y_i − A_i and E^B_i = z_i·C_i − e_i·D_i − B_i, it checks
    Σ_i ω_i·(E^A_i + λ·E^B_i) = 0 for ω_0 = 1, ω_i, λ hashed from every statement and
    proof — one multi-scalar sum in which each distinct point appears once.  The c1 of
    a slot appears in many messages of a deal but is multiplied only once, so a peer
    checking the N−1 deal messages of the others pays ~(#slots + #shares) multiplications
    instead of ~2·#shares.  If any E ≠ 0 the sum vanishes for at most one value of one
    uniform ω_i (or of λ when only i = 0 is wrong): ≤ 2q/L for q hash queries.

    Raises GroupError when a proof is malformed.  An empty batch is true. ``splitter``:
    the sum's terms cut into chunks it may run side by side (the same verdict).
    """
    parsed = []
    for st in statements:
        a, b, z = decode_shares_proof(st.proof)
        if not st.slots or not len(st.slots) == len(st.c1s) == len(st.shares):
            return False
        t = shares_transcript(
            st.game_id, st.round_no, st.seat, st.key, st.purpose, st.slots, st.c1s, st.shares
        )
        parsed.append((st, t, a, b, z, _shares_challenge(t, a, b)))
    if not parsed:
        return True
    seed = hashlib.sha512(
        group.frame(
            DOMAIN_SHARES_BATCH,
            *(t + a + b + group.scalar_bytes(z) for _, t, a, b, z, _ in parsed),
        )
    ).digest()
    # λ = H(batch, seed, 0), ω_i = H(batch, seed, i) for i ≥ 1, ω_0 = 1
    lam, *omegas = hash_to_scalars(
        DOMAIN_SHARES_BATCH_WEIGHT, (seed,), [(u64(i),) for i in range(len(parsed))]
    )
    omegas = [1, *omegas]
    big_l = group.L
    g_coef = 0
    terms: dict[bytes, int] = {}

    def term(point: bytes, coef: int) -> None:
        terms[point] = (terms.get(point, 0) + coef) % big_l

    for (st, t, a, b, z, e), om in zip(parsed, omegas, strict=True):
        g_coef += om * z
        term(st.key, -om * e)
        term(a, -om)
        term(b, -lam * om)
        lz, le = lam * om * z % big_l, lam * om * e % big_l
        for w, c1, d in zip(batch_weights(t, len(st.c1s)), st.c1s, st.shares, strict=True):
            term(c1, lz * w)
            term(d, -le * w)
    return _is_identity(g_coef % big_l, terms, splitter)


def _is_identity(g_coef: int, terms: dict[bytes, int],
                 splitter: Splitter | None = None) -> bool:
    """g·G + Σ coef·P == identity?  Coefficients ±1 cost an addition, not a multiplication;
    the terms cut into chunks for ``splitter`` (:func:`splitnet.crypto.split.is_identity`)."""
    return is_identity(g_coef, terms, splitter)
