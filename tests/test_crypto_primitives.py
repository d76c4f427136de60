"""Seed derivations, ElGamal hops and the two proofs of the fair deck (R3.3, R8.4)."""

from __future__ import annotations

import dataclasses
import doctest
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from splitnet.bench import deck as deck_bench
from splitnet.cards import N_CARDS
from splitnet.crypto import deck, elgamal, errors, group, proofs, seeds
from splitnet.crypto.seeds import (
    derive_key,
    derive_permutation,
    derive_remasks,
    permutation_from_stream,
    u64,
    uniform_below,
)

GID = bytes(range(16))
FAST = settings(max_examples=25, deadline=None)


@pytest.mark.parametrize("module", [errors, seeds, elgamal, proofs, deck, deck_bench])
def test_doctests(module: object) -> None:
    result = doctest.testmod(module)  # type: ignore[arg-type]
    assert result.failed == 0


# ----------------------------------------------------------------------------- seeds


D_IN = bytes(32)  # an input deck's digest


@FAST
@given(seed=st.binary(min_size=32, max_size=32), rnd=st.integers(1, 3), seat=st.integers(0, 5),
       d_in=st.binary(min_size=32, max_size=32))
def test_r3_3_permutation_is_a_permutation_bound_to_its_context(
    seed: bytes, rnd: int, seat: int, d_in: bytes
) -> None:
    perm = derive_permutation(GID, rnd, seat, seed, d_in)
    assert sorted(perm) == list(range(N_CARDS))
    assert perm == derive_permutation(GID, rnd, seat, seed, d_in)
    assert perm != derive_permutation(GID, rnd, seat + 1, seed, d_in)
    assert perm != derive_permutation(GID, rnd + 1, seat, seed, d_in)
    assert perm != derive_permutation(bytes(16), rnd, seat, seed, d_in)
    other = bytes([d_in[0] ^ 1]) + d_in[1:]
    assert perm != derive_permutation(GID, rnd, seat, seed, other)


def test_r8_1_everything_a_hop_derives_is_bound_to_its_input_deck() -> None:
    """splitnet/2: permutation, re-masks and the proof's nonce seed all change with the
    digest of the deck the hop takes, so two hops by one seat on two inputs are unrelated
    (comparing them tells nothing about either permutation); a digest that is not 32
    bytes is refused."""
    seed, d2 = bytes(32), bytes([1]) * 32
    assert derive_permutation(GID, 1, 0, seed, D_IN) != derive_permutation(GID, 1, 0, seed, d2)
    r1, r2 = derive_remasks(GID, 1, 0, seed, D_IN), derive_remasks(GID, 1, 0, seed, d2)
    assert not set(r1) & set(r2)
    n1 = seeds.derive_shuffle_nonce_seed(GID, 1, 0, seed, D_IN)
    assert len(n1) == 32 and n1 != seeds.derive_shuffle_nonce_seed(GID, 1, 0, seed, d2)
    assert n1 != seeds.derive_shuffle_nonce_seed(GID, 1, 1, seed, D_IN)
    deck = elgamal.initial_deck(GID)
    y = group.base_mul(5)
    d = seeds.deck_digest(GID, 1, y, deck)
    assert len(d) == 32 and d != seeds.deck_digest(GID, 2, y, deck)
    assert d != seeds.deck_digest(GID, 1, group.base_mul(6), deck)
    assert d != seeds.deck_digest(GID, 1, y, deck[::-1])
    for bad in (b"", bytes(31), bytes(33)):
        with pytest.raises(ValueError, match="32 bytes"):
            derive_permutation(GID, 1, 0, seed, bad)
        with pytest.raises(ValueError, match="32 bytes"):
            derive_remasks(GID, 1, 0, seed, bad)


def test_r3_3_fisher_yates_is_unbiased_on_small_decks() -> None:
    """All 6 orders of 3 cards come out equally often (chi-square, 6000 draws)."""
    counts = Counter(tuple(permutation_from_stream(u64(i), 3)) for i in range(6000))
    assert len(counts) == 6
    chi2 = sum((c - 1000) ** 2 / 1000 for c in counts.values())
    assert chi2 < 20.5  # p ≈ 0.001 for 5 degrees of freedom


class _Scripted:
    """A fake stream returning given 32-bit values."""

    def __init__(self, values: list[int]) -> None:
        self.values = values

    def u32(self) -> int:
        return self.values.pop(0)


def test_uniform_below_rejects_the_biased_tail() -> None:
    limit = 2**32 - (2**32 % 104)  # the first value that would favour low results
    s = _Scripted([2**32 - 1, limit, limit - 1])
    assert uniform_below(s, 104) == (limit - 1) % 104  # type: ignore[arg-type]
    assert s.values == []
    with pytest.raises(ValueError):
        uniform_below(_Scripted([0]), 0)  # type: ignore[arg-type]


def test_key_and_remasks_are_non_zero_and_distinct() -> None:
    x = derive_key(GID, 1, 0, bytes(32))
    rhos = derive_remasks(GID, 1, 0, bytes(32), D_IN)
    assert 0 < x < group.L and len(set(rhos)) == N_CARDS and all(0 < r < group.L for r in rhos)
    assert x != derive_key(GID, 1, 1, bytes(32))


def test_selfplay_seed_and_commitment_bind_their_context() -> None:
    a = seeds.selfplay_seed(b"m", GID, 1, 0)
    assert len(a) == 32 and a != seeds.selfplay_seed(b"m", GID, 1, 1)
    assert seeds.commitment(GID, 1, 0, a) != seeds.commitment(GID, 2, 0, a)
    assert len(seeds.fresh_seed()) == 32


# --------------------------------------------------------------------------- ElGamal

scalars = st.integers(1, group.L - 1)


@FAST
@given(x=scalars, rho=scalars, rho2=scalars, k=st.integers(0, N_CARDS - 1))
def test_remask_keeps_the_card(x: int, rho: int, rho2: int, k: int) -> None:
    y = group.base_mul(x)
    ct = elgamal.remask(elgamal.remask(elgamal.initial_deck(GID)[k], rho, y), rho2, y)
    assert ct[0] == group.base_mul(rho + rho2)
    assert elgamal.card_table(GID)[elgamal.decrypt(ct, group.mul(x, ct[0]))] == k


def test_shuffle_hop_permutes_and_remasks() -> None:
    x = 31337
    y = group.base_mul(x)
    perm = derive_permutation(GID, 1, 0, bytes(32), D_IN)
    rhos = list(range(1, N_CARDS + 1))
    out = elgamal.shuffle_hop(elgamal.initial_deck(GID), perm, rhos, y)
    table = elgamal.card_table(GID)
    for i in (0, 1, 50, 103):
        assert table[elgamal.decrypt(out[i], group.mul(x, out[i][0]))] == perm[i]
        assert out[i][0] == group.base_mul(rhos[i])
    with pytest.raises(ValueError):
        elgamal.shuffle_hop(out, perm[:-1], rhos, y)


def test_card_points_are_per_game() -> None:
    assert elgamal.card_points(GID)[0] != elgamal.card_points(bytes(16))[0]
    assert len(set(elgamal.card_points(GID))) == N_CARDS


# ---------------------------------------------------------------------------- proofs


@FAST
@given(x=scalars, seat=st.integers(0, 5))
def test_schnorr_pok_binds_game_round_seat_key(x: int, seat: int) -> None:
    y = group.base_mul(x)
    pok = proofs.prove_key(x, y, GID, 2, seat)
    assert proofs.verify_key(pok, y, GID, 2, seat)
    assert not proofs.verify_key(pok, y, GID, 3, seat)
    assert not proofs.verify_key(pok, y, GID, 2, seat + 1)
    assert not proofs.verify_key(pok, y, bytes(16), 2, seat)
    assert not proofs.verify_key(pok, group.base_mul(x + 1), GID, 2, seat)
    assert pok == proofs.prove_key(x, y, GID, 2, seat)  # deterministic nonce


def test_proof_decoding_is_strict() -> None:
    with pytest.raises(group.GroupError, match="expected 64 bytes"):
        proofs.decode_proof(b"\x00" * 65)
    with pytest.raises(group.GroupError, match="not reduced"):
        proofs.decode_proof(group.L.to_bytes(32, "little") * 2)


@FAST
@given(
    x=scalars,
    n=st.integers(1, 6),
    data=st.data(),
)
def test_batched_dleq_catches_any_single_wrong_share(x: int, n: int, data: st.DataObject) -> None:
    """R8.2/R8.3: a share that is not x·c1 is refused, wherever it sits in the batch."""
    y = group.base_mul(x)
    slots = list(range(10, 10 + n))
    c1s = [group.base_mul(1000 + s) for s in slots]
    shares = [group.mul(x, c) for c in c1s]
    pf = proofs.prove_shares(x, y, GID, 1, 2, "deal", slots, c1s, shares)
    assert proofs.verify_shares(pf, y, GID, 1, 2, "deal", slots, c1s, shares)
    j = data.draw(st.integers(0, n - 1))
    delta = data.draw(scalars)
    bad = list(shares)
    bad[j] = group.add(bad[j], group.base_mul(delta))
    assert not proofs.verify_shares(pf, y, GID, 1, 2, "deal", slots, c1s, bad)
    # and an honest prover cannot prove a wrong share either
    pf_bad = proofs.prove_shares(x, y, GID, 1, 2, "deal", slots, c1s, bad)
    assert not proofs.verify_shares(pf_bad, y, GID, 1, 2, "deal", slots, c1s, bad)


def test_batched_dleq_binds_context() -> None:
    x = 99
    y = group.base_mul(x)
    c1s = [group.base_mul(5), group.base_mul(6)]
    d = [group.mul(x, c) for c in c1s]
    pf = proofs.prove_shares(x, y, GID, 1, 0, "draw", [1, 2], c1s, d)
    assert proofs.verify_shares(pf, y, GID, 1, 0, "draw", [1, 2], c1s, d)
    assert not proofs.verify_shares(pf, y, GID, 1, 0, "draw", [2, 1], c1s, d)
    assert not proofs.verify_shares(pf, y, GID, 2, 0, "draw", [1, 2], c1s, d)
    assert not proofs.verify_shares(pf, y, GID, 1, 0, "deal", [1, 2], c1s, d)
    assert not proofs.verify_shares(pf, y, GID, 1, 0, "draw", [1], c1s[:1], d[:1])
    with pytest.raises(ValueError):
        proofs.prove_shares(x, y, GID, 1, 0, "draw", [], [], [])


@FAST
@given(
    prefix=st.lists(st.binary(max_size=40), max_size=3),
    suffix=st.lists(st.binary(max_size=9), max_size=3),
)
def test_hash_to_scalars_equals_hash_to_scalar(prefix: list[bytes], suffix: list[bytes]) -> None:
    """The prefix-cached hashing is byte-for-byte group.hash_to_scalar."""
    got = seeds.hash_to_scalars(b"splitnet/v1/x", tuple(prefix), [tuple(suffix), ()])
    assert got == [
        group.hash_to_scalar(b"splitnet/v1/x", *prefix, *suffix),
        group.hash_to_scalar(b"splitnet/v1/x", *prefix),
    ]


@FAST
@given(data=st.data(), k=st.integers(1, 4))
def test_batch_verification_of_several_messages(data: st.DataObject, k: int) -> None:
    """verify_shares_batch accepts honest statements and refuses any single bad one."""
    xs = [data.draw(scalars) for _ in range(k)]
    sts = []
    for seat, x in enumerate(xs):
        y = group.base_mul(x)
        slots = data.draw(st.lists(st.integers(0, 5), min_size=1, max_size=4, unique=True))
        c1s = [group.base_mul(100 + s) for s in slots]  # shared slots share their c1
        shares = [group.mul(x, c) for c in c1s]
        pf = proofs.prove_shares(x, y, GID, 1, seat, "deal", slots, c1s, shares)
        sts.append(proofs.SharesStatement(y, GID, 1, seat, "deal", slots, c1s, shares, pf))
    assert proofs.verify_shares_batch(sts)
    assert proofs.verify_shares_batch([])
    i = data.draw(st.integers(0, k - 1))
    j = data.draw(st.integers(0, len(sts[i].shares) - 1))
    bad = list(sts[i].shares)
    bad[j] = group.add(bad[j], group.G)
    sts[i] = dataclasses.replace(sts[i], shares=bad)
    assert not proofs.verify_shares_batch(sts)
    # a proof moved to another statement fails as well
    if k > 1:
        sts[i] = dataclasses.replace(sts[i], shares=sts[i].shares, proof=sts[(i + 1) % k].proof)
        assert not proofs.verify_shares_batch(sts)
