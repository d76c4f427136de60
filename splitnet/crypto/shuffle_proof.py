"""Non-interactive zero-knowledge proof of a correct shuffle (re-encryption mix).

The proof of Terelius and Wikström (TW10, Wikström 2009) as written out in pseudo-code by
Haenni, Locher, Koenig and Dubuis, *Pseudo-code algorithms for verifiable re-encryption
mix-nets* (FC 2017 workshops, algorithms GenShuffleProof / CheckShuffleProof), moved to the
additive prime-order group ristretto255 and made non-interactive with Fiat–Shamir.
``protocol/SHUFFLE_PROOF.md`` is the specification; this module follows it line by line.

Statement (everything public): a hop context, a joint public key ``pk`` and two lists of
``n`` ElGamal ciphertexts. The prover knows a permutation ``perm`` and scalars ``rhos`` with::

    outputs[i] = (inputs[perm[i]][0] + rhos[i]·G, inputs[perm[i]][1] + rhos[i]·pk)

and proves it without revealing anything about ``perm`` or ``rhos``.

>>> from splitnet.crypto import group
>>> pk = group.base_mul(7)
>>> inputs = [(group.IDENTITY, group.hash_to_point(b"doc", bytes([k]))) for k in range(3)]
>>> perm, rhos = [2, 0, 1], [11, 12, 13]
>>> outputs = [(group.add(inputs[p][0], group.base_mul(r)),
...             group.add(inputs[p][1], group.mul(r, pk))) for p, r in zip(perm, rhos)]
>>> proof = prove_shuffle(b"ctx", pk, inputs, outputs, perm, rhos, nonce_seed=bytes(32))
>>> len(proof) == proof_size(3)
True
>>> verify_shuffle(b"ctx", pk, inputs, outputs, proof)          # returns None: accepted
>>> try:
...     verify_shuffle(b"other ctx", pk, inputs, outputs, proof)
... except ShuffleProofError as e:
...     print(str(e).split(":")[0])
shuffle proof rejected

Costs for n ciphertexts (libsodium has no multi-scalar multiplication, so every term of
every linear combination is one scalar multiplication): proving takes 5n + 1 scalar
multiplications, 3n + 4 base-point multiplications and about 6n additions; verifying takes
8n + 6 scalar multiplications, one base-point multiplication and about 8n additions,
because all n + 5 verification equations are checked at once as one random linear
combination (see the protocol document). Both need n fewer scalar multiplications when the
inputs are trivial encryptions (c1 = IDENTITY, the first hop of a round).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Final, NamedTuple

from splitnet.crypto import group
from splitnet.crypto.split import Splitter, is_identity, parts_of, ranges, run, term_sum
from splitnet.errors import SplitnetError

__all__ = [
    "MAX_N",
    "MIN_N",
    "ShuffleHop",
    "ShuffleProofError",
    "accepts_parts",
    "generators",
    "proof_size",
    "prove_shuffle",
    "verify_shuffle",
    "verify_shuffle_part",
    "verify_shuffles",
]

L: Final = group.L
P: Final = group.POINT_BYTES
S: Final = group.SCALAR_BYTES
IDENTITY: Final = group.IDENTITY

MIN_N: Final = 2
#: Far above a deck of 104; bounds the work a malformed call can cause (indices are 4 bytes).
MAX_N: Final = 1 << 16

_D: Final = b"splitnet/v1/shuffle-proof/"
DOMAIN_GENERATOR: Final = _D + b"generator"
DOMAIN_STATEMENT: Final = _D + b"statement"
DOMAIN_PERMUTATION_COMMITMENT: Final = _D + b"permutation-commitment"
DOMAIN_U: Final = _D + b"u"
DOMAIN_CHALLENGE: Final = _D + b"challenge"
DOMAIN_BATCH: Final = _D + b"batch"
DOMAIN_BATCH_WEIGHT: Final = _D + b"batch-weight"
DOMAIN_BATCH_HOPS: Final = _D + b"batch-hops"
DOMAIN_BATCH_HOP_WEIGHT: Final = _D + b"batch-hop-weight"
DOMAIN_NONCE_KEY: Final = _D + b"nonce-key"
DOMAIN_NONCE: Final = _D + b"nonce"

Ciphertext = tuple[bytes, bytes]


class ShuffleProofError(SplitnetError):
    """A shuffle proof (or its statement) is malformed or false; the message says what."""


# --------------------------------------------------------------------------- generators


def _index(i: int) -> bytes:
    return i.to_bytes(4, "big")


@lru_cache(maxsize=16)
def _generators(context_game: bytes, n: int) -> tuple[bytes, ...]:
    return tuple(
        group.hash_to_point(DOMAIN_GENERATOR, context_game, _index(k)) for k in range(n + 1)
    )


def generators(context_game: bytes, n: int) -> list[bytes]:
    """The independent generators ``[h, h_1, …, h_n]`` (n + 1 points).

    ``h_k = hash_to_point(b"splitnet/v1/shuffle-proof/generator", context_game, k)`` with
    k as 4 bytes big-endian (h = h_0): nobody knows a discrete-log relation between them,
    G or any key. The list for n is a prefix of the list for n + 1. Results are cached per
    (context_game, n); the default ``context_game`` of the proof functions is ``b""``.
    """
    if not isinstance(context_game, bytes):
        raise ShuffleProofError("context_game: expected bytes")
    if not isinstance(n, int) or isinstance(n, bool) or not 0 <= n <= MAX_N:
        raise ShuffleProofError(f"generators: n must be an integer in 0…{MAX_N}")
    return list(_generators(context_game, n))


def proof_size(n: int) -> int:
    """Bytes in a proof for n ciphertexts: (3n + 5) points and (2n + 4) scalars."""
    return (3 * n + 5) * P + (2 * n + 4) * S


# --------------------------------------------------------------------------- statement


@dataclass(frozen=True, slots=True)
class _Statement:
    n: int
    pk: bytes
    a: list[bytes]  # inputs' first components  (c1 = r·G), identity allowed
    b: list[bytes]  # inputs' second components (c2 = M + r·pk)
    a_out: list[bytes]
    b_out: list[bytes]
    context_game: bytes
    digest: bytes  # D_stmt


def _decode(b: object, what: str, *, allow_identity: bool = False) -> bytes:
    # The libsodium bundled by rbcl ignores bit 255 when it checks an encoding, so every
    # point (the identity included) has a second, non-canonical encoding with that bit set.
    if isinstance(b, bytes) and len(b) == P and b[-1] & 0x80:
        raise ShuffleProofError(f"{what}: not a canonical ristretto255 encoding (bit 255 set)")
    try:
        return group.decode_point(b, what, allow_identity=allow_identity)
    except group.GroupError as e:
        raise ShuffleProofError(str(e)) from None


def _ciphertexts(
    cts: object, n: int | None, what: str, *, c1_identity: bool, check: bool = True
) -> tuple[list[bytes], list[bytes]]:
    if not isinstance(cts, Sequence) or isinstance(cts, bytes | str):
        raise ShuffleProofError(f"{what}: expected a sequence of ciphertexts")
    if n is not None and len(cts) != n:
        raise ShuffleProofError(f"{what}: expected {n} ciphertexts, got {len(cts)}")
    first: list[bytes] = []
    second: list[bytes] = []
    for k, ct in enumerate(cts):
        if not isinstance(ct, tuple | list) or len(ct) != 2:
            raise ShuffleProofError(f"{what}[{k}]: expected a pair (c1, c2)")
        if check:
            first.append(_decode(ct[0], f"{what}[{k}].c1", allow_identity=c1_identity))
            second.append(_decode(ct[1], f"{what}[{k}].c2"))
        elif all(isinstance(x, bytes) and len(x) == P for x in ct):
            first.append(ct[0])
            second.append(ct[1])
        else:
            raise ShuffleProofError(f"{what}[{k}]: expected two {P}-byte points")
    return first, second


def _statement(
    context: object, context_game: object, pk: object, inputs: object, outputs: object,
    *, check_points: bool = True,
) -> _Statement:
    """Validate the public statement and compute its digest D_stmt (``check_points``
    False: the ciphertexts' points are taken as valid, their shape is still checked)."""
    if not isinstance(context, bytes):
        raise ShuffleProofError("context: expected bytes")
    if not isinstance(context_game, bytes):
        raise ShuffleProofError("context_game: expected bytes")
    pk_ = _decode(pk, "public key")
    a, b = _ciphertexts(inputs, None, "inputs", c1_identity=True, check=check_points)
    n = len(a)
    if not MIN_N <= n <= MAX_N:
        raise ShuffleProofError(f"inputs: a shuffle needs {MIN_N}…{MAX_N} ciphertexts, got {n}")
    a_out, b_out = _ciphertexts(outputs, n, "outputs", c1_identity=False, check=check_points)
    parts: list[bytes] = [context, context_game, _index(n), pk_]
    for x, y in zip(a, b, strict=True):
        parts += (x, y)
    for x, y in zip(a_out, b_out, strict=True):
        parts += (x, y)
    digest = hashlib.sha512(group.frame(DOMAIN_STATEMENT, *parts)).digest()
    return _Statement(n, pk_, a, b, a_out, b_out, context_game, digest)


def _challenges_u(st: _Statement, c: Sequence[bytes]) -> tuple[bytes, list[int]]:
    """D_u = H(D_stmt ‖ c_1 … c_n), then u_i = H_scalar(D_u ‖ i) for i = 1…n."""
    d_u = hashlib.sha512(group.frame(DOMAIN_PERMUTATION_COMMITMENT, st.digest, *c)).digest()
    return d_u, [group.hash_to_scalar(DOMAIN_U, d_u, _index(i)) for i in range(1, st.n + 1)]


def _challenge(
    d_u: bytes, c_hat: Sequence[bytes], t: Sequence[bytes], t_hat: Sequence[bytes]
) -> int:
    return group.hash_to_scalar(DOMAIN_CHALLENGE, d_u, *c_hat, *t, *t_hat)


# --------------------------------------------------------------------------- proof data


@dataclass(frozen=True, slots=True)
class _Proof:
    c: list[bytes]  # permutation commitments c_1…c_n
    c_hat: list[bytes]  # commitment chain ĉ_1…ĉ_n
    t: list[bytes]  # t1, t2, t3, t4a, t4b
    t_hat: list[bytes]  # t̂_1…t̂_n
    s: list[int]  # s1, s2, s3, s4
    s_hat: list[int]  # ŝ_1…ŝ_n
    s_prime: list[int]  # s'_1…s'_n

    def to_bytes(self) -> bytes:
        sb = group.scalar_bytes
        return b"".join(
            [
                *self.c,
                *self.c_hat,
                *self.t,
                *self.t_hat,
                *(sb(x) for x in self.s),
                *(sb(x) for x in self.s_hat),
                *(sb(x) for x in self.s_prime),
            ]
        )

    @classmethod
    def from_bytes(cls, data: object, n: int, *, check_points: bool = True) -> _Proof:
        if not isinstance(data, bytes):
            raise ShuffleProofError("proof: expected bytes")
        if len(data) != proof_size(n):
            raise ShuffleProofError(
                f"proof: expected exactly {proof_size(n)} bytes for {n} ciphertexts, "
                f"got {len(data)}"
            )
        pos = 0

        def points(count: int, name: Callable[[int], str]) -> list[bytes]:
            nonlocal pos
            out = []
            for k in range(1, count + 1):
                raw = data[pos : pos + P]
                out.append(_decode(raw, f"proof field {name(k)}") if check_points else raw)
                pos += P
            return out

        def scalars(count: int, name: Callable[[int], str]) -> list[int]:
            nonlocal pos
            out = []
            for k in range(1, count + 1):
                try:
                    out.append(group.decode_scalar(data[pos : pos + S], f"proof field {name(k)}"))
                except group.GroupError as e:
                    raise ShuffleProofError(str(e)) from None
                pos += S
            return out

        c = points(n, lambda k: f"c_{k} (permutation commitment)")
        c_hat = points(n, lambda k: f"ĉ_{k} (commitment chain)")
        t = points(5, lambda k: ("t1", "t2", "t3", "t4a", "t4b")[k - 1])
        t_hat = points(n, lambda k: f"t̂_{k}")
        s = scalars(4, lambda k: f"s{k}")
        s_hat = scalars(n, lambda k: f"ŝ_{k}")
        s_prime = scalars(n, lambda k: f"s'_{k}")
        assert pos == len(data)
        return cls(c, c_hat, t, t_hat, s, s_hat, s_prime)


# --------------------------------------------------------------------------- helpers


def _lincomb(terms: Sequence[tuple[int, bytes]]) -> bytes:
    """Σ s·P over the terms, skipping zero scalars and identity points."""
    mul, add = group.mul, group.add
    acc: bytes | None = None
    for s, p in terms:
        s %= L
        if s == 0 or p == IDENTITY:
            continue
        q = mul(s, p)
        acc = q if acc is None else add(acc, q)
    return IDENTITY if acc is None else acc


def _check_perm(perm: object, n: int) -> list[int]:
    if not isinstance(perm, Sequence) or len(perm) != n:
        raise ShuffleProofError(f"perm: expected a sequence of {n} indices")
    seen = bytearray(n)
    out: list[int] = []
    for p in perm:
        if not isinstance(p, int) or isinstance(p, bool) or not 0 <= p < n or seen[p]:
            raise ShuffleProofError(f"perm: not a permutation of 0…{n - 1}")
        seen[p] = 1
        out.append(p)
    return out


def _check_rhos(rhos: object, n: int) -> list[int]:
    if not isinstance(rhos, Sequence) or len(rhos) != n:
        raise ShuffleProofError(f"rhos: expected a sequence of {n} scalars")
    out: list[int] = []
    for r in rhos:
        if not isinstance(r, int) or isinstance(r, bool) or not 0 <= r < L:
            raise ShuffleProofError("rhos: every re-encryption scalar must be an int in [0, L)")
        out.append(r)
    return out


# --------------------------------------------------------------------------- prover


def prove_shuffle(
    context: bytes,
    pk: bytes,
    inputs: Sequence[Ciphertext],
    outputs: Sequence[Ciphertext],
    perm: Sequence[int],
    rhos: Sequence[int],
    *,
    nonce_seed: bytes,
    context_game: bytes = b"",
    points_checked: bool = False,
    splitter: Splitter | None = None,
) -> bytes:
    """Prove that ``outputs[i] = inputs[perm[i]] + rhos[i]·(G, pk)`` for all i.

    ``context`` binds the hop (game id, round, shuffler seat); ``nonce_seed`` is a secret
    (at least 16 bytes) from which every random value of the proof is derived, together
    with the statement and the witness, so the same call always returns the same bytes and
    two different statements never share nonces. ``context_game`` selects the generator set
    (see :func:`generators`); prover and verifier must use the same one.

    The witness is trusted: if ``outputs`` do not match ``perm``/``rhos`` the result is a
    proof that :func:`verify_shuffle` rejects. Raises :class:`ShuffleProofError` on
    malformed arguments. ``points_checked``: the caller has already checked every point
    of ``inputs`` and ``outputs`` (the deck layer checks a received deck's points, and its
    own outputs it computed), so they are not decoded again (the same proof, 2n fewer
    point validations; the shapes are still checked). ``splitter``: every costly phase is
    a batch of independent group operations, cut into chunks it may run side by side
    (:mod:`splitnet.crypto.split`): the same proof bytes, by default in this thread.
    """
    st = _statement(context, context_game, pk, inputs, outputs,
                    check_points=points_checked is not True)
    n = st.n
    psi = _check_perm(perm, n)
    rho = _check_rhos(rhos, n)
    if not isinstance(nonce_seed, bytes) or len(nonce_seed) < 16:
        raise ShuffleProofError("nonce_seed: expected at least 16 secret bytes")

    gens = _generators(context_game, n)
    h, hs = gens[0], gens[1:]

    key = hashlib.sha512(
        group.frame(
            DOMAIN_NONCE_KEY,
            nonce_seed,
            st.digest,
            b"".join(_index(p) for p in psi),
            b"".join(group.scalar_bytes(r) for r in rho),
        )
    ).digest()

    def nonces(label: bytes, count: int) -> list[int]:
        return [
            group.hash_to_scalar(DOMAIN_NONCE, key, label, _index(i)) for i in range(1, count + 1)
        ]

    r = nonces(b"r", n)
    r_hat = nonces(b"r-hat", n)
    w1, w2, w3, w4 = nonces(b"omega", 4)
    w_hat = nonces(b"omega-hat", n)
    w_prime = nonces(b"omega-prime", n)

    # Phase 1, before the challenges u: c, Σ ω'_i·h_i and Σ ω'_i·e_ψ(i), by index i.
    parts = ranges(n, parts_of(splitter, n))
    first = run(splitter, _commit_chunk, [
        ([r[psi[i]] for i in p], hs[p.start:p.stop], w_prime[p.start:p.stop],
         [st.a[psi[i]] for i in p], [st.b[psi[i]] for i in p]) for p in parts])
    c = [IDENTITY] * n
    for p, (c_part, _, _, _) in zip(parts, first, strict=True):
        for i, ci in zip(p, c_part, strict=True):
            c[psi[i]] = ci
    d_u, u = _challenges_u(st, c)
    u_prime = [u[j] for j in psi]
    # Phase 2, the commitment chain in closed form (SHUFFLE_PROOF.md §5, "Commitment
    # chain"): ĉ_i = R_i·G + U_i·h and t̂_i = T_i·G + V_i·h, no point depends on another.
    big_r, big_u, big_t, big_v = _chain_scalars(u_prime, r_hat, w_hat, w_prime)
    second = run(splitter, _commitment_chain, [
        (h, big_r[p.start:p.stop], big_u[p.start:p.stop], big_t[p.start:p.stop],
         big_v[p.start:p.stop]) for p in parts])
    c_hat = [x for part, _ in second for x in part]
    t_hat = [x for _, part in second for x in part]
    k = (sum(wp * rh for wp, rh in zip(w_prime, rho, strict=True)) - w4) % L
    base_mul = group.base_mul
    t = [
        base_mul(w1),
        base_mul(w2),
        group.add(base_mul(w3), _total([t3 for _, t3, _, _ in first])),
        group.add(_total([t4a for _, _, t4a, _ in first]), base_mul(k)),
        group.add(_total([t4b for _, _, _, t4b in first]), group.mul(k, st.pk)),
    ]
    ch = _challenge(d_u, c_hat, t, t_hat)
    return _respond(ch, c, c_hat, t, t_hat, (w1, w2, w3, w4), w_hat, w_prime,
                    r, r_hat, u, u_prime, rho).to_bytes()


# The prover's phases, one function each so a benchmark can time them (bench/deck.py)
# and so what depends on the input deck and what does not is visible in the code
# (SHUFFLE_PROOF.md §5; DECK.md §13, "No input-independent precomputation"). Each works
# on a chunk of the indices (module-level and picklable: a splitter may run it in
# another process); in this thread, without a splitter, the chunk is all of them.

_CommitJob = tuple[list[int], Sequence[bytes], list[int], list[bytes], list[bytes]]
_ChainJob = tuple[bytes, list[int], list[int], list[int], list[int]]


def _commit_chunk(job: _CommitJob) -> tuple[list[bytes], bytes, bytes, bytes]:
    """Phase 1 on indices i of a chunk, given r_ψ(i), h_i, ω'_i, e_ψ(i) = (a, b):
    (c_ψ(i) in the chunk's order, its part of Σ ω'_i·h_i, of Σ ω'_i·a_ψ(i), of Σ ω'_i·b_ψ(i))."""
    rs, hs, w_prime, a, b = job
    t4a, t4b = _commit_reencryption(w_prime, a, b)
    return _commit_permutation(rs, hs), _commit_nonces(hs, w_prime), t4a, t4b


def _commit_permutation(rs: Sequence[int], hs: Sequence[bytes]) -> list[bytes]:
    """c_{ψ(i)} = r_{ψ(i)}·G + h_i (commits to the columns of the permutation matrix), for
    the r_{ψ(i)} given in the order of i: a base-point multiplication each; depends on ψ
    and r only, not on the decks."""
    base_mul, add = group.base_mul, group.add
    return [add(base_mul(x), hi) for x, hi in zip(rs, hs, strict=True)]


def _commit_nonces(hs: Sequence[bytes], w_prime: Sequence[int]) -> bytes:
    """Σ ω'_i·h_i, t3's part that costs (t3 = ω3·G + the sum; t1 = ω1·G, t2 = ω2·G): a
    scalar multiplication per index that touches no deck (but ω' must be fresh for every
    statement: SECURITY.md §2.1, "Precompute")."""
    return _lincomb(list(zip(w_prime, hs, strict=True)))


def _commit_reencryption(
    w_prime: Sequence[int], a: Sequence[bytes], b: Sequence[bytes]
) -> tuple[bytes, bytes]:
    """Σ ω'_i·a_ψ(i), Σ ω'_i·b_ψ(i): t4a, t4b are Σ ω'_i·e'_i = Σ ω'_i·e_ψ(i) + (Σ ω'_i ρ_i)·(G,
    pk) — the same value as from the outputs, and free of multiplications wherever an
    input c1 is the identity (first hop): up to 2 scalar multiplications per index on the
    input deck."""
    return (_lincomb(list(zip(w_prime, a, strict=True))),
            _lincomb(list(zip(w_prime, b, strict=True))))


def _chain_scalars(
    u_prime: Sequence[int], r_hat: Sequence[int], w_hat: Sequence[int],
    w_prime: Sequence[int],
) -> tuple[list[int], list[int], list[int], list[int]]:
    """The chain in closed form (scalars only): with ĉ_0 = h = 0·G + 1·h and ĉ_i = r̂_i·G +
    u'_i·ĉ_(i−1), ĉ_i = R_i·G + U_i·h where R_i = r̂_i + u'_i·R_(i−1), U_i = u'_i·U_(i−1), and
    t̂_i = ω̂_i·G + ω'_i·ĉ_(i−1) = T_i·G + V_i·h with T_i = ω̂_i + ω'_i·R_(i−1), V_i = ω'_i·U_(i−1)."""
    big_r: list[int] = []
    big_u: list[int] = []
    big_t: list[int] = []
    big_v: list[int] = []
    r_prev, u_prev = 0, 1
    for up, rh, wh, wp in zip(u_prime, r_hat, w_hat, w_prime, strict=True):
        big_t.append((wh + wp * r_prev) % L)
        big_v.append(wp * u_prev % L)
        r_prev = (rh + up * r_prev) % L
        u_prev = up * u_prev % L
        big_r.append(r_prev)
        big_u.append(u_prev)
    return big_r, big_u, big_t, big_v


def _commitment_chain(job: _ChainJob) -> tuple[list[bytes], list[bytes]]:
    """ĉ_i = R_i·G + U_i·h and t̂_i = T_i·G + V_i·h for a chunk of i (:func:`_chain_scalars`):
    2 scalar and 2 base-point multiplications per index — the same count as the sequential
    ĉ_i = r̂_i·G + u'_i·ĉ_(i−1), t̂_i = ω̂_i·G + ω'_i·ĉ_(i−1), and the same points — bound to
    the statement through u'."""
    h, big_r, big_u, big_t, big_v = job
    base_mul, mul, add = group.base_mul, group.mul, group.add
    c_hat = [add(base_mul(x), mul(y, h)) for x, y in zip(big_r, big_u, strict=True)]
    t_hat = [add(base_mul(x), mul(y, h)) for x, y in zip(big_t, big_v, strict=True)]
    return c_hat, t_hat


def _total(points: Sequence[bytes]) -> bytes:
    """The sum of a batch's partial sums (no addition for a single one)."""
    acc = points[0]
    for p in points[1:]:
        acc = group.add(acc, p)
    return acc


def _respond(
    ch: int, c: list[bytes], c_hat: list[bytes], t: list[bytes], t_hat: list[bytes],
    w: tuple[int, int, int, int], w_hat: Sequence[int], w_prime: Sequence[int],
    r: Sequence[int], r_hat: Sequence[int], u: Sequence[int], u_prime: Sequence[int],
    rho: Sequence[int],
) -> _Proof:
    """The responses (integer arithmetic only) and the proof."""
    w1, w2, w3, w4 = w
    r_bar = sum(r) % L
    r_tilde = sum(x * y for x, y in zip(r, u, strict=True)) % L
    r_chain = 0  # ĉ_n = r_chain·G + (Π u_i)·h
    for x, y in zip(r_hat, u_prime, strict=True):
        r_chain = (x + y * r_chain) % L
    r_prime = sum(x * y for x, y in zip(u_prime, rho, strict=True)) % L
    return _Proof(
        c=c,
        c_hat=c_hat,
        t=t,
        t_hat=t_hat,
        s=[
            (w1 + ch * r_bar) % L,
            (w2 + ch * r_chain) % L,
            (w3 + ch * r_tilde) % L,
            (w4 + ch * r_prime) % L,
        ],
        s_hat=[(x + ch * y) % L for x, y in zip(w_hat, r_hat, strict=True)],
        s_prime=[(x + ch * y) % L for x, y in zip(w_prime, u_prime, strict=True)],
    )


# --------------------------------------------------------------------------- verifier


def verify_shuffle(
    context: bytes,
    pk: bytes,
    inputs: Sequence[Ciphertext],
    outputs: Sequence[Ciphertext],
    proof: bytes,
    *,
    context_game: bytes = b"",
    splitter: Splitter | None = None,
) -> None:
    """Accept (return None) or raise :class:`ShuffleProofError` saying what failed.

    Every point and scalar is decoded strictly (canonical encodings, exact length); an
    input c1 may be the identity (trivial encryption), no other point may. ``splitter``:
    the one linear combination's terms are cut into chunks it may run side by side
    (partial sums added at the end: the same verdict), by default in this thread.
    """
    hop = _prepare(context, pk, inputs, outputs, proof, context_game)
    if not _is_zero(hop.g_coef, hop.terms, splitter):
        raise ShuffleProofError(_rejection(hop.st.n, _failed_equations(hop)))


def verify_shuffle_part(
    context: bytes,
    pk: bytes,
    inputs: Sequence[Ciphertext],
    outputs: Sequence[Ciphertext],
    proof: bytes,
    *,
    part: int,
    parts: int,
    context_game: bytes = b"",
) -> bytes:
    """Part ``part`` (0 … parts−1) of :func:`verify_shuffle`'s check, so that the parts of
    one check can run in different processes side by side: its partial sum of the one
    random linear combination (:func:`accepts_parts` adds them up).

    Each part derives the whole combination but multiplies only its chunk of the terms,
    and decodes only its share of the points: part 0 the statement's, part 1 the proof's
    (a single part, both), the others taking them as valid. Raises
    :class:`ShuffleProofError` if what it decodes is malformed. The proof is accepted iff
    every part returns and :func:`accepts_parts` is true: every point is then decoded
    strictly by some part. Otherwise the verdict, and the message that says what failed,
    is :func:`verify_shuffle`'s (the same bytes give the same verdict either way)."""
    if not all(isinstance(x, int) and not isinstance(x, bool) for x in (part, parts)) or not (
            0 <= part < parts):
        raise ShuffleProofError(f"part must be in 0…parts−1, not {part!r} of {parts!r}")
    hop = _prepare(context, pk, inputs, outputs, proof, context_game,
                   check_statement=part == 0, check_proof=part == 1 or parts == 1)
    items = [(x % L, p) for p, x in hop.terms.items() if x % L and p != IDENTITY]
    cut = ranges(len(items), parts)
    chunk = cut[part] if part < len(cut) else range(0)
    return term_sum((hop.g_coef % L if part == 0 else None, items[chunk.start:chunk.stop]))


def accepts_parts(sums: Sequence[bytes]) -> bool:
    """Whether the partial sums of every part of a check (:func:`verify_shuffle_part`,
    in any order) add up to the identity: the proof is accepted."""
    if not sums:
        return False
    acc = sums[0]
    for q in sums[1:]:
        acc = group.add(acc, q)
    return acc == IDENTITY


class ShuffleHop(NamedTuple):
    """One proven hop, as :func:`verify_shuffles` takes it."""

    context: bytes
    pk: bytes
    inputs: Sequence[Ciphertext]
    outputs: Sequence[Ciphertext]
    proof: bytes


def verify_shuffles(hops: Sequence[ShuffleHop], *, context_game: bytes = b"",
                    splitter: Splitter | None = None) -> None:
    """Check several hops at once; same verdict as :func:`verify_shuffle` on each.

    All the hops' equations become one random linear combination, in which a point that
    occurs in several hops costs one scalar multiplication: the generators are shared by
    all hops and the outputs of a hop are the inputs of the next, so a chain of k hops of
    n cards costs about (8k − 3(k − 1))·n instead of 8k·n scalar multiplications. Meant
    for audits and catching up; while proofs arrive one by one, checking each as it comes
    (:func:`verify_shuffle`) keeps the wait after the last one shortest. The error names
    the first failing hop (0-based) and what failed in it.
    """
    if not isinstance(hops, Sequence) or not hops:
        raise ShuffleProofError("hops: expected a non-empty sequence of hops")
    prepared: list[_Hop] = []
    for k, hop in enumerate(hops):
        if not isinstance(hop, tuple) or len(hop) != 5:
            raise ShuffleProofError(f"hop {k}: expected (context, pk, inputs, outputs, proof)")
        try:
            prepared.append(_prepare(*hop, context_game))
        except ShuffleProofError as e:
            raise ShuffleProofError(f"hop {k}: {e}") from None
    # Per-hop multipliers γ (γ_0 = 1), fixed only once every hop's proof is.
    d = hashlib.sha512(group.frame(DOMAIN_BATCH_HOPS, *(h.d_b for h in prepared))).digest()
    gammas = [1] + [
        group.hash_to_scalar(DOMAIN_BATCH_HOP_WEIGHT, d, _index(k)) for k in range(1, len(prepared))
    ]
    g_coef = 0
    terms: dict[bytes, int] = {}
    for gamma, ph in zip(gammas, prepared, strict=True):
        g_coef += gamma * ph.g_coef
        for p, x in ph.terms.items():
            terms[p] = (terms.get(p, 0) + gamma * x) % L
    if _is_zero(g_coef, terms, splitter):
        return
    for k, ph in enumerate(prepared):
        if not _is_zero(ph.g_coef, ph.terms, splitter):
            raise ShuffleProofError(f"hop {k}: " + _rejection(ph.st.n, _failed_equations(ph)))
    raise ShuffleProofError("shuffle proofs rejected: the combined verification equation fails")


@dataclass(frozen=True, slots=True)
class _Hop:
    st: _Statement
    pr: _Proof
    gens: tuple[bytes, ...]
    u: list[int]
    ch: int
    d_b: bytes
    g_coef: int  # coefficient of G in the combined equation
    terms: dict[bytes, int]  # point → coefficient (mod L) in the combined equation


def _prepare(
    context: object,
    pk: object,
    inputs: object,
    outputs: object,
    proof: object,
    context_game: object,
    *,
    check_statement: bool = True,
    check_proof: bool = True,
) -> _Hop:
    """Decode a hop strictly, derive its challenges and its combined equation (the
    ``check_*`` False: those points taken as valid, their shapes still checked)."""
    st = _statement(context, context_game, pk, inputs, outputs, check_points=check_statement)
    n = st.n
    pr = _Proof.from_bytes(proof, n, check_points=check_proof)
    assert isinstance(proof, bytes)
    d_u, u = _challenges_u(st, pr.c)
    ch = _challenge(d_u, pr.c_hat, pr.t, pr.t_hat)
    gens = _generators(st.context_game, n)
    # Batch weights, derived after the whole proof is fixed: β_1 = 1, then β_2…β_{n+5}.
    d_b = hashlib.sha512(group.frame(DOMAIN_BATCH, st.digest, proof)).digest()
    beta = [1] + [
        group.hash_to_scalar(DOMAIN_BATCH_WEIGHT, d_b, _index(k)) for k in range(2, n + 6)
    ]
    g_coef, terms = _combination(st, pr, gens, u, ch, beta)
    return _Hop(st, pr, gens, u, ch, d_b, g_coef, terms)


def _is_zero(g_coef: int, terms: dict[bytes, int], splitter: Splitter | None = None) -> bool:
    """Whether g_coef·G + Σ coefficient·point is the identity.

    One scalar multiplication per point, except coefficients ±1 (an addition). The terms
    are independent: cut into chunks (``splitter``), each a partial sum, added at the end
    (:func:`splitnet.crypto.split.is_identity`).
    """
    return is_identity(g_coef, terms, splitter)


_EQUATIONS: Final = {
    "t1": "the permutation-commitment sum check (t1)",
    "t2": "the product check of the commitment chain (t2)",
    "t3": "the permutation-commitment opening check (t3)",
    "t4a": "the re-encryption check on c1 (t4a)",
    "t4b": "the re-encryption check on c2 (t4b)",
}


def _rejection(n: int, failed: Sequence[str]) -> str:
    """The error message for the equations that failed (keys of _EQUATIONS or t̂_i)."""
    if not failed:  # cannot happen short of a bug: the equations are the batch's parts
        return "shuffle proof rejected: the combined verification equation fails"
    shown = ", ".join(failed[:8]) + (", …" if len(failed) > 8 else "")
    if "t1" in failed and len(failed) > (n + 5) // 2:
        return (
            "shuffle proof rejected: it does not fit this statement (context, public key, "
            "inputs, outputs or generator set differ from what was proved, or the proof was "
            f"altered); {len(failed)} of {n + 5} verification equations fail: {shown}"
        )
    chain = [f for f in failed if f not in _EQUATIONS]
    parts = [_EQUATIONS[f] for f in failed if f in _EQUATIONS]
    if chain:
        parts.append(f"the commitment-chain check ({', '.join(chain[:8])})")
    return "shuffle proof rejected: " + "; ".join(parts) + " fails"


def _combination(
    st: _Statement,
    pr: _Proof,
    gens: Sequence[bytes],
    u: Sequence[int],
    ch: int,
    beta: Sequence[int],
) -> tuple[int, dict[bytes, int]]:
    """Σ_k β_k·(right-hand side_k − t_k) over the n + 5 equations, as (G coefficient,
    {point: coefficient}); the proof is accepted iff it is the identity.

    Terms with a common base are merged, so checking costs one scalar multiplication per
    distinct point (8n + 6, t1 is a subtraction) and a single base-point multiplication.
    """
    n = st.n
    h, hs = gens[0], gens[1:]
    b1, b2, b3, b4a, b4b = beta[:5]
    v = beta[5:]
    s1, s2, s3, s4 = pr.s
    sp = pr.s_prime
    u_prod = 1
    for x in u:
        u_prod = u_prod * x % L

    g_coef = (
        b1 * s1
        + b2 * s2
        + b3 * s3
        - b4a * s4
        + sum(x * y for x, y in zip(v, pr.s_hat, strict=True))
    ) % L
    terms: list[tuple[int, bytes]] = [
        (-b4b * s4, st.pk),
        (b2 * ch * u_prod + v[0] * sp[0], h),  # h = ĉ_0
        (-b1, pr.t[0]),
    ]
    terms += [(b1 * ch + b3 * x, hi) for x, hi in zip(sp, hs, strict=True)]
    terms += [(-ch * (b1 + b3 * x), ci) for x, ci in zip(u, pr.c, strict=True)]
    terms += [(-b4a * ch * x, ai) for x, ai in zip(u, st.a, strict=True)]
    terms += [(-b4b * ch * x, bi) for x, bi in zip(u, st.b, strict=True)]
    terms += [(b4a * x, ai) for x, ai in zip(sp, st.a_out, strict=True)]
    terms += [(b4b * x, bi) for x, bi in zip(sp, st.b_out, strict=True)]
    terms += [(-v[i] * ch + v[i + 1] * sp[i + 1], pr.c_hat[i]) for i in range(n - 1)]
    terms.append((-(v[n - 1] + b2) * ch, pr.c_hat[n - 1]))
    terms += [(-b, t) for b, t in zip((b2, b3, b4a, b4b), pr.t[1:], strict=True)]
    terms += [(-x, t) for x, t in zip(v, pr.t_hat, strict=True)]
    merged: dict[bytes, int] = {}
    for x, p in terms:
        merged[p] = (merged.get(p, 0) + x) % L
    return g_coef, merged


def _failed_equations(hop: _Hop) -> list[str]:
    """Check the n + 5 equations one by one (slow path, to name what failed).

    Returns the names of the failing ones: "t1" … "t4b" and "t̂_i" (1-based i).
    """
    st, pr, gens, u, ch = hop.st, hop.pr, hop.gens, hop.u, hop.ch
    n = st.n
    base_mul, sub = group.base_mul, group.sub
    h, hs = gens[0], gens[1:]
    s1, s2, s3, s4 = pr.s
    t1, t2, t3, t4a, t4b = pr.t
    sp = pr.s_prime
    u_prod = 1
    for x in u:
        u_prod = u_prod * x % L
    failed: list[str] = []

    c_bar = sub(group.sum_points(pr.c), group.sum_points(hs))
    if sub(base_mul(s1), group.mul(ch, c_bar)) != t1:
        failed.append("t1")
    c_chain = sub(pr.c_hat[n - 1], group.mul(u_prod, h))
    if sub(base_mul(s2), group.mul(ch, c_chain)) != t2:
        failed.append("t2")
    t3_ = _lincomb(
        [
            (s3, group.G),
            *zip(sp, hs, strict=True),
            *((-ch * x, ci) for x, ci in zip(u, pr.c, strict=True)),
        ]
    )
    if t3_ != t3:
        failed.append("t3")
    t4a_ = _lincomb(
        [
            (-s4, group.G),
            *zip(sp, st.a_out, strict=True),
            *((-ch * x, ai) for x, ai in zip(u, st.a, strict=True)),
        ]
    )
    if t4a_ != t4a:
        failed.append("t4a")
    t4b_ = _lincomb(
        [
            (-s4, st.pk),
            *zip(sp, st.b_out, strict=True),
            *((-ch * x, bi) for x, bi in zip(u, st.b, strict=True)),
        ]
    )
    if t4b_ != t4b:
        failed.append("t4b")
    prev = h
    for i in range(n):
        lhs = _lincomb([(pr.s_hat[i], group.G), (sp[i], prev), (-ch, pr.c_hat[i])])
        if lhs != pr.t_hat[i]:
            failed.append(f"t̂_{i + 1}")
        prev = pr.c_hat[i]
    return failed
