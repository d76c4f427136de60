"""The proof of a correct shuffle: honest hops verify, every tampering is refused.

The test vector file is rebuilt by ``python tests/test_shuffle_proof.py --write-vectors``
(only when the protocol changes on purpose: protocol/SHUFFLE_PROOF.md says what it pins).
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from splitnet.crypto import group
from splitnet.crypto import shuffle_proof as sp
from splitnet.crypto.shuffle_proof import (
    ShuffleHop,
    ShuffleProofError,
    generators,
    proof_size,
    prove_shuffle,
    verify_shuffle,
    verify_shuffles,
)

Ct = tuple[bytes, bytes]
VECTORS = Path(__file__).parent / "vectors" / "shuffle_proof_v1.json"
SEED = bytes(range(32))
CTX = b"game=test round=1 seat=0"


def sc(label: str, i: int = 0) -> int:
    """A fixed test scalar."""
    return group.hash_to_scalar(
        b"splitnet/test/shuffle-proof", label.encode(), i.to_bytes(4, "big")
    )


def card(k: int) -> bytes:
    return group.hash_to_point(b"splitnet/test/shuffle-proof/card", k.to_bytes(4, "big"))


def encrypt(m: bytes, r: int, pk: bytes) -> Ct:
    return group.base_mul(r), group.add(m, group.mul(r, pk))


def reencrypt(ct: Ct, r: int, pk: bytes) -> Ct:
    return group.add(ct[0], group.base_mul(r)), group.add(ct[1], group.mul(r, pk))


def shuffle(inputs: Sequence[Ct], perm: Sequence[int], rhos: Sequence[int], pk: bytes) -> list[Ct]:
    return [reencrypt(inputs[p], r, pk) for p, r in zip(perm, rhos, strict=True)]


class Hop:
    """A deterministic honest hop with its proof."""

    def __init__(self, n: int, *, trivial: bool = False, tag: str = "", ctx: bytes = CTX) -> None:
        self.n, self.ctx = n, ctx
        self.pk = group.base_mul(sc("sk" + tag))
        if trivial:
            self.inputs: list[Ct] = [(group.IDENTITY, card(k)) for k in range(n)]
        else:
            self.inputs = [encrypt(card(k), sc("r" + tag, k), self.pk) for k in range(n)]
        self.perm = sorted(range(n), key=lambda i: sc("perm" + tag, i))
        self.rhos = [sc("rho" + tag, i) for i in range(n)]
        self.outputs = shuffle(self.inputs, self.perm, self.rhos, self.pk)
        self.proof = prove_shuffle(
            ctx, self.pk, self.inputs, self.outputs, self.perm, self.rhos, nonce_seed=SEED
        )

    def verify(self, **changes: Any) -> None:
        args: dict[str, Any] = {
            "context": self.ctx,
            "pk": self.pk,
            "inputs": self.inputs,
            "outputs": self.outputs,
            "proof": self.proof,
        }
        args.update(changes)
        verify_shuffle(**args)


@pytest.fixture(scope="module")
def hop3() -> Hop:
    return Hop(3)


@pytest.fixture(scope="module")
def hop10() -> Hop:
    return Hop(10)


def refused(match: str | None = None) -> Any:
    """Helper for the tampering tests: the call must raise ShuffleProofError."""
    return pytest.raises(ShuffleProofError, match=match)


# --------------------------------------------------------------------------- honest proofs


@pytest.mark.parametrize("n", [2, 3, 10])
def test_honest_proof_verifies(n: int) -> None:
    hop = Hop(n)
    assert len(hop.proof) == proof_size(n) == 32 * (5 * n + 9)
    hop.verify()
    prepared = sp._prepare(hop.ctx, hop.pk, hop.inputs, hop.outputs, hop.proof, b"")
    assert not sp._failed_equations(prepared)  # batched and one-by-one checks agree
    assert len(prepared.terms) == 8 * n + 6 + 1  # + t1, which costs a subtraction only


def test_first_hop_from_trivial_encryptions_verifies() -> None:
    hop = Hop(10, trivial=True)
    assert all(c1 == group.IDENTITY for c1, _ in hop.inputs)
    hop.verify()


def test_full_deck_two_hops() -> None:
    """104 cards: the first hop from (IDENTITY, M_k), the next hop chained on its output."""
    first = Hop(104, trivial=True)
    first.verify()
    pk = first.pk
    perm = sorted(range(104), key=lambda i: sc("perm2", i))
    rhos = [sc("rho2", i) for i in range(104)]
    outputs = shuffle(first.outputs, perm, rhos, pk)
    ctx = b"game=test round=1 seat=1"
    proof = prove_shuffle(ctx, pk, first.outputs, outputs, perm, rhos, nonce_seed=SEED)
    verify_shuffle(ctx, pk, first.outputs, outputs, proof)
    with pytest.raises(ShuffleProofError):  # the hop's proof cannot stand for the other one
        verify_shuffle(ctx, pk, first.outputs, outputs, first.proof)
    verify_shuffles(
        [
            ShuffleHop(first.ctx, pk, first.inputs, first.outputs, first.proof),
            ShuffleHop(ctx, pk, first.outputs, outputs, proof),
        ]
    )
    with pytest.raises(ShuffleProofError):  # a planted card in the full deck
        planted = list(outputs)
        planted[57] = encrypt(card(3), sc("fresh"), pk)
        verify_shuffle(ctx, pk, first.outputs, planted, proof)


def test_proof_is_deterministic_in_the_nonce_seed(hop3: Hop) -> None:
    again = prove_shuffle(
        hop3.ctx, hop3.pk, hop3.inputs, hop3.outputs, hop3.perm, hop3.rhos, nonce_seed=SEED
    )
    assert again == hop3.proof
    other = prove_shuffle(
        hop3.ctx, hop3.pk, hop3.inputs, hop3.outputs, hop3.perm, hop3.rhos, nonce_seed=b"x" * 32
    )
    assert other != hop3.proof
    hop3.verify(proof=other)
    # The same seed on another statement gives unrelated nonces (no witness leak by reuse).
    ctx2 = hop3.ctx + b"!"
    p2 = prove_shuffle(
        ctx2, hop3.pk, hop3.inputs, hop3.outputs, hop3.perm, hop3.rhos, nonce_seed=SEED
    )
    assert p2[: 32 * 3] != hop3.proof[: 32 * 3]  # even the permutation commitments differ


def test_a_prover_told_its_points_are_checked_makes_the_same_proof(hop10: Hop) -> None:
    # The deck layer's prover skips re-decoding points it checked or computed; the proof
    # must be byte for byte the one the checking path makes, and a malformed shape is
    # still refused.
    fast = prove_shuffle(hop10.ctx, hop10.pk, hop10.inputs, hop10.outputs, hop10.perm,
                         hop10.rhos, nonce_seed=SEED, points_checked=True)
    assert fast == hop10.proof
    bad = [*hop10.outputs[:-1], (hop10.outputs[-1][0], b"short")]
    with pytest.raises(ShuffleProofError, match=r"outputs\[9\]: expected two 32-byte points"):
        prove_shuffle(hop10.ctx, hop10.pk, hop10.inputs, bad, hop10.perm, hop10.rhos,
                      nonce_seed=SEED, points_checked=True)


def test_generators_are_hash_derived_and_cached() -> None:
    g5 = generators(b"", 5)
    assert len(g5) == 6 and len(set(g5)) == 6 and group.G not in g5
    for k, h in enumerate(g5):
        assert h == group.hash_to_point(
            b"splitnet/v1/shuffle-proof/generator", b"", k.to_bytes(4, "big")
        )
        assert group.decode_point(h) == h
    assert generators(b"", 8)[:6] == g5  # prefix-stable
    assert generators(b"game-1", 5) != g5  # per-game sets are possible
    assert sp._generators(b"", 5) is sp._generators(b"", 5)  # cached
    g5.append(b"")
    assert len(generators(b"", 5)) == 6  # callers get a copy
    with pytest.raises(ShuffleProofError):
        generators("", 3)  # type: ignore[arg-type]
    with pytest.raises(ShuffleProofError):
        generators(b"", -1)


def test_context_game_selects_the_generators(hop3: Hop) -> None:
    proof = prove_shuffle(
        hop3.ctx,
        hop3.pk,
        hop3.inputs,
        hop3.outputs,
        hop3.perm,
        hop3.rhos,
        nonce_seed=SEED,
        context_game=b"game-7",
    )
    hop3.verify(proof=proof, context_game=b"game-7")
    with refused("rejected"):
        hop3.verify(proof=proof)
    with refused("rejected"):
        hop3.verify(context_game=b"game-7")


# --------------------------------------------------------------------------- tampering


def test_planted_card_is_refused(hop10: Hop) -> None:
    planted = list(hop10.outputs)
    planted[4] = encrypt(card(99), sc("fresh"), hop10.pk)  # a card that was never in the deck
    with refused("does not fit this statement"):
        hop10.verify(outputs=planted)
    # Nor can the shuffler prove the planted deck with the witness it has.
    proof = prove_shuffle(
        hop10.ctx, hop10.pk, hop10.inputs, planted, hop10.perm, hop10.rhos, nonce_seed=SEED
    )
    with refused("rejected"):
        hop10.verify(outputs=planted, proof=proof)


def test_planted_copy_of_an_existing_card_is_refused(hop10: Hop) -> None:
    # A fresh encryption of a card already in the deck (keeps the multiset of faces valid
    # for all but one card): still not a re-encryption of the given inputs.
    planted = list(hop10.outputs)
    planted[0] = encrypt(card(hop10.perm[1]), sc("fresh"), hop10.pk)
    with refused("does not fit this statement"):
        hop10.verify(outputs=planted)


def test_swapped_outputs_are_refused(hop10: Hop) -> None:
    swapped = list(hop10.outputs)
    swapped[2], swapped[7] = swapped[7], swapped[2]
    with refused("does not fit this statement"):
        hop10.verify(outputs=swapped)


def test_duplicated_or_dropped_card_is_refused(hop10: Hop) -> None:
    dup = list(hop10.outputs)
    dup[5] = dup[6]
    with refused("rejected"):
        hop10.verify(outputs=dup)
    with refused("outputs: expected 10 ciphertexts, got 9"):
        hop10.verify(outputs=hop10.outputs[:-1])
    with refused("outputs: expected 10 ciphertexts, got 11"):
        hop10.verify(outputs=[*hop10.outputs, hop10.outputs[0]])
    # Dropping a card and the proof along with it: the proof's length no longer fits.
    with refused("proof: expected exactly"):
        hop10.verify(inputs=hop10.inputs[:-1], outputs=hop10.outputs[:-1])


def test_modified_inputs_are_refused(hop10: Hop) -> None:
    inputs = list(hop10.inputs)
    inputs[3] = encrypt(card(50), sc("other"), hop10.pk)
    with refused("rejected"):
        hop10.verify(inputs=inputs)
    with refused("rejected"):
        hop10.verify(inputs=hop10.inputs[::-1])


def test_wrong_public_key_is_refused(hop10: Hop) -> None:
    with refused("rejected"):
        hop10.verify(pk=group.base_mul(sc("other key")))


@pytest.mark.parametrize(
    "ctx",
    [
        b"game=other round=1 seat=0",
        b"game=test round=2 seat=0",
        b"game=test round=1 seat=1",
        b"",
    ],
)
def test_replay_into_another_context_is_refused(hop3: Hop, ctx: bytes) -> None:
    with refused("rejected"):
        hop3.verify(context=ctx)


def test_wrong_witness_gives_a_refused_proof(hop3: Hop) -> None:
    rhos = [hop3.rhos[0] + 1, *hop3.rhos[1:]]
    proof = prove_shuffle(
        hop3.ctx, hop3.pk, hop3.inputs, hop3.outputs, hop3.perm, rhos, nonce_seed=SEED
    )
    with refused(r"the re-encryption check on c1 \(t4a\); the re-encryption check on c2"):
        hop3.verify(proof=proof)
    perm = [hop3.perm[1], hop3.perm[0], hop3.perm[2]]
    proof = prove_shuffle(
        hop3.ctx, hop3.pk, hop3.inputs, hop3.outputs, perm, hop3.rhos, nonce_seed=SEED
    )
    with refused(r"the re-encryption check on c1 \(t4a\); the re-encryption check on c2"):
        hop3.verify(proof=proof)


def _field_names(n: int) -> list[str]:
    return (
        [f"c_{i}" for i in range(1, n + 1)]
        + [f"ĉ_{i}" for i in range(1, n + 1)]
        + ["t1", "t2", "t3", "t4a", "t4b"]
        + [f"t̂_{i}" for i in range(1, n + 1)]
        + ["s1", "s2", "s3", "s4"]
        + [f"ŝ_{i}" for i in range(1, n + 1)]
        + [f"s'_{i}" for i in range(1, n + 1)]
    )


def test_every_field_flip_is_refused(hop3: Hop) -> None:
    """Flip a low, a middle and a high byte of every 32-byte field."""
    names = _field_names(3)
    assert len(names) * 32 == len(hop3.proof)
    for f, name in enumerate(names):
        for off in (0, 13, 31):
            bad = bytearray(hop3.proof)
            bad[32 * f + off] ^= 0x01 if off != 31 else 0x40
            with pytest.raises(ShuffleProofError) as e:
                hop3.verify(proof=bytes(bad))
            msg = str(e.value)
            assert name in msg or "rejected" in msg, (name, off, msg)


def test_random_byte_flips_are_refused(hop10: Hop) -> None:
    rng = random.Random(1)
    for pos in rng.sample(range(len(hop10.proof)), 40):
        bad = bytearray(hop10.proof)
        bad[pos] ^= 1 << rng.randrange(8)
        with refused():
            hop10.verify(proof=bytes(bad))


def test_truncated_or_extended_proof_is_refused(hop3: Hop) -> None:
    size = proof_size(3)
    for proof in (b"", hop3.proof[:-1], hop3.proof[:-32], hop3.proof + b"\0", hop3.proof * 2):
        with refused(f"proof: expected exactly {size} bytes for 3 ciphertexts"):
            hop3.verify(proof=proof)
    not_bytes: list[object] = [bytearray(hop3.proof), hop3.proof.hex(), None, list(hop3.proof)]
    for junk in not_bytes:
        with refused("proof: expected bytes"):
            hop3.verify(proof=junk)


def _replace(proof: bytes, field: int, value: bytes) -> bytes:
    return proof[: 32 * field] + value + proof[32 * field + 32 :]


@pytest.mark.parametrize("name", ["s1", "s4", "ŝ_1", "s'_3"])
def test_non_canonical_scalar_is_refused(hop3: Hop, name: str) -> None:
    f = _field_names(3).index(name)
    s = int.from_bytes(hop3.proof[32 * f : 32 * f + 32], "little")
    bad = _replace(hop3.proof, f, (s + group.L).to_bytes(32, "little"))  # same value mod L
    with refused(f"proof field {name}: scalar is not reduced"):
        hop3.verify(proof=bad)


NON_CANONICAL_POINTS = {
    "s ≥ p": b"\xff" * 31 + b"\x7f",
    "top bit set": bytes(31) + b"\x80",
    "negative s": b"\x01" + bytes(31),
    "not on the curve": b"\x02" + bytes(31),
}


@pytest.mark.parametrize("name", ["c_1", "ĉ_3", "t1", "t4b", "t̂_2"])
@pytest.mark.parametrize("enc", list(NON_CANONICAL_POINTS))
def test_non_canonical_point_is_refused(hop3: Hop, name: str, enc: str) -> None:
    f = _field_names(3).index(name)
    with refused(f"proof field {name}.*not a canonical"):
        hop3.verify(proof=_replace(hop3.proof, f, NON_CANONICAL_POINTS[enc]))


def test_identity_in_the_proof_is_refused(hop3: Hop) -> None:
    with refused("proof field c_2.*identity"):
        hop3.verify(proof=_replace(hop3.proof, 1, group.IDENTITY))


def test_non_canonical_statement_is_refused(hop3: Hop) -> None:
    bad_pt = NON_CANONICAL_POINTS["negative s"]
    with refused("public key: the identity"):
        hop3.verify(pk=group.IDENTITY)
    with refused("public key: not a canonical"):
        hop3.verify(pk=bad_pt)
    with refused(r"inputs\[1\].c2: not a canonical"):
        hop3.verify(inputs=[hop3.inputs[0], (hop3.inputs[1][0], bad_pt), hop3.inputs[2]])
    with refused(r"inputs\[0\].c2: the identity"):
        hop3.verify(inputs=[(group.IDENTITY, group.IDENTITY), *hop3.inputs[1:]])
    with refused(r"outputs\[2\].c1: the identity"):
        hop3.verify(outputs=[*hop3.outputs[:2], (group.IDENTITY, hop3.outputs[2][1])])
    with refused(r"inputs\[0\]: expected a pair"):
        hop3.verify(inputs=[hop3.inputs[0][0], *hop3.inputs[1:]])
    with refused("inputs: expected a sequence"):
        hop3.verify(inputs=b"".join(c1 + c2 for c1, c2 in hop3.inputs))
    with refused("inputs: a shuffle needs 2"):
        hop3.verify(inputs=hop3.inputs[:1], outputs=hop3.outputs[:1])
    with refused("context: expected bytes"):
        hop3.verify(context="game")


def test_random_proofs_only_raise_shuffle_proof_error(hop3: Hop) -> None:
    rng = random.Random(7)
    for _ in range(20):
        with refused():
            hop3.verify(proof=rng.randbytes(len(hop3.proof)))
    # Structurally valid points and scalars, but a forged proof.
    fields = [group.base_mul(sc("forge", i)) for i in range(3 * 3 + 5)]
    fields += [group.scalar_bytes(sc("forge-s", i)) for i in range(2 * 3 + 4)]
    with refused("rejected"):
        hop3.verify(proof=b"".join(fields))


def test_prover_refuses_malformed_arguments(hop3: Hop) -> None:
    args: dict[str, Any] = {
        "context": hop3.ctx,
        "pk": hop3.pk,
        "inputs": hop3.inputs,
        "outputs": hop3.outputs,
        "perm": hop3.perm,
        "rhos": hop3.rhos,
        "nonce_seed": SEED,
    }
    changes: list[tuple[dict[str, Any], str]] = [
        ({"perm": [0, 0, 1]}, "perm: not a permutation"),
        ({"perm": [0, 1, 3]}, "perm: not a permutation"),
        ({"perm": [0, 1]}, "perm: expected a sequence of 3"),
        ({"perm": [0, 1, True]}, "perm: not a permutation"),
        ({"rhos": [1, 2, group.L]}, "rhos: every"),
        ({"rhos": [1, 2, -1]}, "rhos: every"),
        ({"rhos": [1, 2]}, "rhos: expected a sequence of 3"),
        ({"nonce_seed": b"short"}, "nonce_seed"),
        ({"outputs": hop3.outputs[:2]}, "outputs: expected 3"),
        ({"pk": b"\x01" * 32}, "public key"),
    ]
    for change, match in changes:
        with pytest.raises(ShuffleProofError, match=match):
            prove_shuffle(**{**args, **change})


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("s1", "the permutation-commitment sum check (t1) fails"),
        ("s2", "the product check of the commitment chain (t2) fails"),
        ("s3", "the permutation-commitment opening check (t3) fails"),
        ("s4", "the re-encryption check on c1 (t4a); the re-encryption check on c2 (t4b) fails"),
        ("ŝ_7", "the commitment-chain check (t̂_7) fails"),
        (
            "s'_2",
            "(t3); the re-encryption check on c1 (t4a); the re-encryption check on c2 "
            "(t4b); the commitment-chain check (t̂_2) fails",
        ),
    ],
)
def test_failing_equation_is_named(hop10: Hop, name: str, message: str) -> None:
    """A changed response (not hashed into the challenge) breaks only its own equations."""
    f = _field_names(10).index(name)
    s = int.from_bytes(hop10.proof[32 * f : 32 * f + 32], "little")
    with pytest.raises(ShuffleProofError) as e:
        hop10.verify(proof=_replace(hop10.proof, f, group.scalar_bytes(s + 1)))
    assert str(e.value).endswith(message), str(e.value)
    assert str(e.value).startswith("shuffle proof rejected: ")


def test_statement_mismatch_is_named(hop10: Hop) -> None:
    swapped = list(hop10.outputs)
    swapped[0], swapped[1] = swapped[1], swapped[0]
    with pytest.raises(ShuffleProofError) as e:
        hop10.verify(outputs=swapped)
    assert "does not fit this statement" in str(e.value)
    assert "15 of 15 verification equations fail: t1, t2, t3, t4a, t4b, t̂_1, t̂_2, t̂_3, …" in str(
        e.value
    )


def test_bit_255_encodings_are_refused(hop3: Hop) -> None:
    """rbcl's libsodium accepts P with bit 255 set as another encoding of P: refused here."""
    p = hop3.outputs[0][1]
    alias = p[:31] + bytes([p[31] | 0x80])
    assert group.add(alias, group.IDENTITY) == p  # the alias really is the same point
    with refused(r"outputs\[0\].c2: not a canonical ristretto255 encoding \(bit 255"):
        hop3.verify(outputs=[(hop3.outputs[0][0], alias), *hop3.outputs[1:]])
    f = _field_names(3).index("ĉ_2")
    q = hop3.proof[32 * f : 32 * f + 32]
    with refused("proof field ĉ_2.*bit 255"):
        hop3.verify(proof=_replace(hop3.proof, f, q[:31] + bytes([q[31] | 0x80])))
    with refused("proof field c_1.*bit 255"):  # the identity's alias, too
        hop3.verify(proof=_replace(hop3.proof, 0, bytes(31) + b"\x80"))


def _chain(n: int, hops: int) -> list[ShuffleHop]:
    pk = group.base_mul(sc("sk"))
    deck: list[Ct] = [(group.IDENTITY, card(k)) for k in range(n)]
    out = []
    for seat in range(hops):
        perm = sorted(range(n), key=lambda i: sc(f"perm{seat}", i))
        rhos = [sc(f"rho{seat}", i) for i in range(n)]
        ctx = b"game=test round=1 seat=" + str(seat).encode()
        nxt = shuffle(deck, perm, rhos, pk)
        proof = prove_shuffle(ctx, pk, deck, nxt, perm, rhos, nonce_seed=SEED)
        out.append(ShuffleHop(ctx, pk, deck, nxt, proof))
        deck = nxt
    return out


def test_chain_of_hops_verifies_at_once_and_shares_points() -> None:
    n, k = 6, 4
    chain = _chain(n, k)
    verify_shuffles(chain)
    verify_shuffles(chain[1:3])
    prepared = [sp._prepare(*hop, b"") for hop in chain]
    distinct = set().union(*(p.terms for p in prepared))
    # generators shared by all hops, the ciphertexts between two hops shared by both
    assert len(distinct) == sum(len(p.terms) for p in prepared) - (k - 1) * (3 * n + 2)


def test_chain_names_the_failing_hop() -> None:
    chain = _chain(5, 3)
    bad = list(chain)
    bad[1] = bad[1]._replace(context=b"replayed")
    with refused("^hop 1: shuffle proof rejected: it does not fit this statement"):
        verify_shuffles(bad)
    planted = list(chain[2].outputs)
    planted[0] = encrypt(card(77), sc("fresh"), chain[2].pk)
    bad = [*chain[:2], chain[2]._replace(outputs=planted)]
    with refused("^hop 2: shuffle proof rejected"):
        verify_shuffles(bad)
    flipped = bytearray(chain[0].proof)
    flipped[5] ^= 4
    with refused("^hop 0: "):
        verify_shuffles([chain[0]._replace(proof=bytes(flipped)), *chain[1:]])
    with refused("^hop 1: proof: expected exactly"):
        verify_shuffles([chain[0], chain[1]._replace(proof=chain[1].proof[:-1])])
    with refused("hops: expected a non-empty"):
        verify_shuffles([])
    with refused("^hop 0: expected"):
        verify_shuffles([chain[0][:4]])  # type: ignore[list-item]


# --------------------------------------------------------------------------- test vectors


def build_vectors() -> dict[str, Any]:
    """The two hops of tests/vectors/shuffle_proof_v1.json, from fixed scalars."""
    n = 4
    x = sc("vector/sk")
    pk = group.base_mul(x)
    cards = [card(k) for k in range(n)]
    deck: list[Ct] = [(group.IDENTITY, m) for m in cards]
    hops = []
    for seat, perm in enumerate(([2, 0, 3, 1], [1, 3, 0, 2])):
        ctx = b"splitnet test vector: game=00 round=1 seat=" + str(seat).encode()
        rhos = [sc(f"vector/rho/{seat}", i) for i in range(n)]
        seed = bytes(range(seat, seat + 32))
        outputs = shuffle(deck, perm, rhos, pk)
        proof = prove_shuffle(ctx, pk, deck, outputs, perm, rhos, nonce_seed=seed)
        st = sp._statement(ctx, b"", pk, deck, outputs)
        pr = sp._Proof.from_bytes(proof, n)
        d_u, u = sp._challenges_u(st, pr.c)
        hops.append(
            {
                "context": ctx.hex(),
                "inputs": [[a.hex(), b.hex()] for a, b in deck],
                "perm": perm,
                "rhos": [group.scalar_bytes(r).hex() for r in rhos],
                "outputs": [[a.hex(), b.hex()] for a, b in outputs],
                "nonce_seed": seed.hex(),
                "statement_digest": st.digest.hex(),
                "u": [group.scalar_bytes(v).hex() for v in u],
                "challenge": group.scalar_bytes(sp._challenge(d_u, pr.c_hat, pr.t, pr.t_hat)).hex(),
                "proof": proof.hex(),
            }
        )
        deck = outputs
    return {
        "description": (
            "splitnet shuffle proof v1 (protocol/SHUFFLE_PROOF.md): two hops of a 4-card "
            "deck under one key, the first from trivial encryptions (IDENTITY, M_k). "
            "Scalars are 32-byte little-endian hex, points canonical ristretto255 hex, "
            "perm is 0-based: outputs[i] = inputs[perm[i]] + rhos[i]·(G, pk)."
        ),
        "n": n,
        "context_game": "",
        "secret_key": group.scalar_bytes(x).hex(),
        "pk": pk.hex(),
        "cards": [m.hex() for m in cards],
        "generators": [h.hex() for h in generators(b"", n)],
        "proof_size": proof_size(n),
        "hops": hops,
    }


def test_vectors_byte_for_byte() -> None:
    data = json.loads(VECTORS.read_text())
    assert data == build_vectors()
    # And, straight from the file, each proof verifies and a changed one does not.
    pk = bytes.fromhex(data["pk"])
    for hop in data["hops"]:
        ins = [(bytes.fromhex(a), bytes.fromhex(b)) for a, b in hop["inputs"]]
        outs = [(bytes.fromhex(a), bytes.fromhex(b)) for a, b in hop["outputs"]]
        proof = bytes.fromhex(hop["proof"])
        assert len(proof) == data["proof_size"]
        verify_shuffle(bytes.fromhex(hop["context"]), pk, ins, outs, proof)
        with pytest.raises(ShuffleProofError):
            verify_shuffle(bytes.fromhex(hop["context"]), pk, ins, outs[::-1], proof)


if __name__ == "__main__":
    if sys.argv[1:] == ["--write-vectors"]:
        VECTORS.parent.mkdir(exist_ok=True)
        VECTORS.write_text(json.dumps(build_vectors(), indent=2, ensure_ascii=False) + "\n")
        print(f"wrote {VECTORS}")
    else:
        sys.exit("usage: python tests/test_shuffle_proof.py --write-vectors")
