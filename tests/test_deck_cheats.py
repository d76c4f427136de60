"""Every misbehaviour is caught at the step where it happens, naming the right seat,
and the honest peers' state is left exactly unchanged (R3.3 fair shuffle, R8.1–R8.4)."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from splitnet.crypto import group
from splitnet.crypto.deck import DeckRound, Message, shuffle_context
from splitnet.crypto.elgamal import deck_bytes
from splitnet.crypto.errors import CheatDetected
from splitnet.crypto.proofs import prove_key
from splitnet.crypto.seeds import commitment, derive_shuffle_nonce_seed
from tests.test_deck_helpers import GID, Table, seed_for, snapshot


def refused(
    peers: list[DeckRound],
    kind: str,
    seat: int,
    msg: Any,
    *extra: str,
    step: str,
    reason: str,
    fault: int | None = -1,
) -> None:
    """Every peer refuses (seat, msg) with CheatDetected(fault, step, …reason…) and its
    state is unchanged afterwards."""
    fault = seat if fault == -1 else fault
    for p in peers:
        before = snapshot(p)
        with pytest.raises(CheatDetected) as e:
            getattr(p, f"on_{kind}")(seat, msg, *extra)
        assert e.value.seat == fault, str(e.value)
        assert e.value.step == step, str(e.value)
        assert reason in e.value.reason, str(e.value)
        assert snapshot(p) == before, f"state of seat {p.seat} changed by a refused message"


def with_field(msg: Message, **fields: object) -> Message:
    out = dict(msg)
    out.update(fields)
    return out


def flip(b: bytes, i: int = 0) -> bytes:
    return b[:i] + bytes([b[i] ^ 1]) + b[i + 1 :]


# ---------------------------------------------------------------------------- COMMIT


def test_commit_bad_schnorr_proof() -> None:
    t = Table(3)
    msg = t.peers[1].commit_message()
    refused(
        t.everyone,
        "commit",
        1,
        with_field(msg, pok=flip(msg["pok"], 40)),  # type: ignore[arg-type]
        step="commit",
        reason="proof of knowledge",
    )


def test_commit_rogue_key() -> None:
    """A key chosen as target − Y_0 (its log unknown) cannot be proved."""
    t = Table(2)
    t.send("commit", 0, t.peers[0].commit_message())
    y0 = t.peers[0].keys[0]
    rogue = group.sub(group.base_mul(1234), y0)  # joint key would be 1234·G
    msg = t.peers[1].commit_message()
    fake = with_field(msg, key=rogue, pok=prove_key(999, rogue, GID, 1, 1))
    refused(t.everyone, "commit", 1, fake, step="commit", reason="rogue key")


@pytest.mark.parametrize("where", ["another round", "another seat", "another game"])
def test_commit_replay_is_refused(where: str) -> None:
    """The PoK binds game_id, round and seat."""
    src = Table(3)
    msg = src.peers[1].commit_message()
    if where == "another round":
        t, seat = Table(3, round_no=2), 1
    elif where == "another seat":
        t, seat = Table(3), 2
    else:
        t, seat = Table(3, game_id=bytes(16)), 1
    refused(t.everyone, "commit", seat, msg, step="commit", reason="replayed")


@pytest.mark.parametrize(
    ("field", "value", "reason"),
    [
        ("key", b"\xff" * 32, "not a canonical ristretto255 encoding"),
        ("key", bytes(32), "identity"),
        ("key", b"\x01" * 31, "expected 32 bytes"),
        ("commit", b"short", "expected 32 bytes"),
        ("pok", b"\x00" * 63, "expected 64 bytes"),
        ("pok", group.scalar_bytes(1) + group.L.to_bytes(32, "little"), "not reduced"),
    ],
)
def test_commit_malformed(field: str, value: bytes, reason: str) -> None:
    t = Table(2)
    msg = with_field(t.peers[1].commit_message(), **{field: value})
    refused(t.everyone, "commit", 1, msg, step="commit", reason=reason)


def test_commit_malformed_message_shape() -> None:
    t = Table(2)
    msg = t.peers[1].commit_message()
    refused(t.everyone, "commit", 1, [msg], step="commit", reason="not a map")
    refused(t.everyone, "commit", 1, with_field(msg, extra=1), step="commit", reason="fields")


def test_commit_duplicate() -> None:
    t = Table(2)
    t.commit()
    refused(t.everyone, "commit", 1, t.peers[1].commit_message(), step="commit", reason="duplicate")


# --------------------------------------------------------------------------- SHUFFLE


def test_shuffle_before_commits_and_out_of_turn() -> None:
    t = Table(3)
    for i in range(2):
        t.send("commit", i, t.peers[i].commit_message())
    hop = Table(3).setup().log[3][2]  # a well-formed hop from an identical table
    refused(t.everyone, "shuffle", 0, hop, step="shuffle", reason="before every seat")
    t.send("commit", 2, t.peers[2].commit_message())
    refused(t.everyone, "shuffle", 1, hop, step="shuffle", reason="out of turn")


def _first_hop(t: Table) -> Message:
    t.commit()
    return t.peers[0].shuffle_message()


@pytest.mark.parametrize(
    ("mutate", "reason"),
    [
        (lambda d: d[:103], "expected 104 entries"),
        (lambda d: [*d[:5], [d[5][0], b"\xff" * 32], *d[6:]], "deck[5].c2: not a canonical"),
        (lambda d: [[bytes(32), d[0][1]], *d[1:]], "deck[0].c1: the identity"),
        (lambda d: [[d[0][0]], *d[1:]], "deck[0]: expected a pair"),
        (lambda d: [[d[0][0], "text"], *d[1:]], "deck[0]: expected a pair"),
    ],
)
def test_shuffle_malformed(mutate: Any, reason: str) -> None:
    t = Table(2)
    hop = _first_hop(t)
    refused(
        t.everyone,
        "shuffle",
        0,
        with_field(hop, deck=mutate(hop["deck"])),
        step="shuffle",
        reason=reason,
    )


def test_shuffle_duplicate() -> None:
    t = Table(2)
    hop = _first_hop(t)
    t.send("shuffle", 0, hop)
    refused(t.everyone, "shuffle", 0, hop, step="shuffle", reason="duplicate")


# ---------------------------------------------------------------------------- SHARES


def test_shares_wrong_share() -> None:
    """A share that is not x·c1 (here: a valid point of the right shape)."""
    t = Table(3).setup()
    msg = t.peers[1].shares_message([4], "draw")
    bad = with_field(msg, shares=[group.base_mul(77)])
    refused(t.everyone, "shares", 1, bad, "draw", step="shares", reason="wrong share")


def test_shares_one_wrong_share_in_a_deal() -> None:
    """The batched proof catches a single wrong share among many (R3.3 deal)."""
    t = Table(3).setup()
    slots = list(range(1, 12))
    msg = t.peers[2].shares_message(slots, "deal")
    shares = list(msg["shares"])  # type: ignore[call-overload]
    shares[6] = group.add(shares[6], group.base_mul(1))
    refused(
        t.everyone,
        "shares",
        2,
        with_field(msg, shares=shares),
        "deal",
        step="shares",
        reason="does not verify",
    )
    swapped = list(msg["shares"])  # type: ignore[call-overload]
    swapped[0], swapped[1] = swapped[1], swapped[0]
    refused(
        t.everyone,
        "shares",
        2,
        with_field(msg, shares=swapped),
        "deal",
        step="shares",
        reason="does not verify",
    )


@pytest.mark.parametrize("bad", [0, 1, 2])
def test_shares_batch_names_the_bad_message(bad: int) -> None:
    """A wrong share inside a batch of deal messages: the messages before it are applied,
    the bad one is refused naming its seat, the rest are not applied — exactly as when
    the messages are fed one by one."""
    t = Table(3).setup()
    owner = {s: s % 3 for s in range(9)}
    msgs = []
    for i, p in enumerate(t.peers):
        msg = p.shares_message([s for s, o in owner.items() if o != i] + [9], "deal")
        if i == bad:
            shares = list(msg["shares"])  # type: ignore[call-overload]
            shares[2] = group.add(shares[2], group.G)
            msg = with_field(msg, shares=shares)
        msgs.append((i, msg))
    ref = Table(3).setup()
    for i, q in enumerate(ref.peers):  # the same own-message caches as in t
        q.shares_message([s for s, o in owner.items() if o != i] + [9], "deal")
    for p, q in zip(t.everyone, ref.everyone, strict=True):
        with pytest.raises(CheatDetected) as e:
            p.on_shares_batch(msgs, "deal")
        assert (e.value.seat, e.value.step) == (bad, "shares")
        assert "does not verify" in e.value.reason
        for seat, msg in msgs[:bad]:
            q.on_shares(seat, msg, "deal")
        assert snapshot(p) == snapshot(q)


def test_shares_batch_duplicate_inside_the_batch() -> None:
    t = Table(2).setup()
    msg = t.peers[1].shares_message([3], "draw")
    for p in t.everyone:
        with pytest.raises(CheatDetected, match="duplicate share"):
            p.on_shares_batch([(1, msg), (1, msg)], "draw")
        assert 3 in p._shares and p._shares[3] == {1: msg["shares"][0]}  # type: ignore[index]


def test_shares_right_share_bad_proof() -> None:
    t = Table(3).setup()
    msg = t.peers[0].shares_message([9, 10], "draw")
    pf = msg["proof"]
    assert isinstance(pf, bytes)
    z = (int.from_bytes(pf[64:], "little") + 1) % group.L
    refused(
        t.everyone,
        "shares",
        0,
        with_field(msg, proof=pf[:64] + group.scalar_bytes(z)),
        "draw",
        step="shares",
        reason="does not verify",
    )
    # the proof binds the purpose: a "draw" proof is no "reveal" proof
    refused(t.everyone, "shares", 0, msg, "reveal", step="shares", reason="does not verify")
    # … and the seat: seat 0's shares are no proof for seat 2
    refused(t.everyone, "shares", 2, msg, "draw", step="shares", reason="does not verify")


@pytest.mark.parametrize(
    ("fields", "reason"),
    [
        ({"shares": [b"\xff" * 32]}, "shares[0]: not a canonical"),
        ({"shares": [bytes(32)]}, "shares[0]: the identity"),
        ({"shares": []}, "one share per slot"),
        ({"slots": [104]}, "is not a slot"),
        ({"slots": [True]}, "is not a slot"),
        ({"slots": []}, "non-empty"),
        ({"slots": [3, 3], "shares": [b"\x00" * 32] * 2}, "listed twice"),
        ({"proof": b"\x00" * 10}, "expected 96 bytes"),
        ({"proof": b"\xff" * 96}, "shares proof A: not a canonical"),
        ({"proof": bytes(96)}, "shares proof A: the identity"),
        ({"proof": group.G * 2 + b"\xff" * 32}, "not reduced"),
    ],
)
def test_shares_malformed(fields: dict[str, object], reason: str) -> None:
    t = Table(2).setup()
    msg = with_field(t.peers[1].shares_message([3], "draw"), **fields)
    refused(t.everyone, "shares", 1, msg, "draw", step="shares", reason=reason)


def test_shares_out_of_phase_and_duplicates() -> None:
    t = Table(2)
    t.commit()
    early = Table(2).setup().peers[1].shares_message([3], "draw")
    refused(t.everyone, "shares", 1, early, "draw", step="shares", reason="before the shuffle")
    t.shuffle()
    t.send("shares", 1, early, "draw")
    refused(t.everyone, "shares", 1, early, "draw", step="shares", reason="duplicate share")
    t.open_all()
    late = Table(2).setup().peers[0].shares_message([8], "draw")
    refused(t.everyone, "shares", 0, late, "draw", step="shares", reason="after the round")


# ------------------------------------------------------------------------------ OPEN


def test_open_seed_not_matching_commitment() -> None:
    t = Table(3).setup()
    refused(
        t.everyone,
        "open",
        2,
        {"seed": seed_for(7)},
        step="open",
        reason="does not match the commitment",
    )
    refused(t.everyone, "open", 2, {"seed": b"x"}, step="open", reason="expected 32 bytes")


def test_open_key_not_from_seed() -> None:
    """Seat 1 commits to seed A but plays (key, hop, shares) with seed B."""
    t = Table(2)
    seed_a = seed_for(1)
    cheat = DeckRound(GID, 1, 2, 1, seed_for(99))
    t.peers[1] = cheat
    msg = with_field(cheat.commit_message(), commit=commitment(GID, 1, 1, seed_a))
    t.send("commit", 0, t.peers[0].commit_message())
    t.send("commit", 1, msg)
    t.shuffle()
    honest = [t.peers[0], t.observer]
    refused(honest, "open", 1, {"seed": seed_a}, step="open", reason="committed key")  # type: ignore[arg-type]
    refused(honest, "open", 1, {"seed": seed_for(99)}, step="open", reason="commitment")  # type: ignore[arg-type]


def _last_hop_cheat(t: Table, plant: Any) -> None:
    """Everyone commits and shuffles; the last seat's hop is altered by ``plant``."""
    t.commit()
    for i, p in enumerate(t.peers[:-1]):
        t.send("shuffle", i, p.shuffle_message())
    last = t.n - 1
    hop = t.peers[last].shuffle_message()
    deck = [list(c) for c in hop["deck"]]  # type: ignore[union-attr]
    plant(deck, t.peers[0].joint_key)
    for p in t.everyone:  # no shuffle proof: a well-formed hop is accepted here
        p.on_shuffle(last, {"deck": deck, "proof": None})


def _reveal_all(t: Table, slots: list[int]) -> None:
    for i, p in enumerate(t.peers):
        t.send("shares", i, p.shares_message(slots, "reveal"), "reveal")


def _copy_slot_7_into_3(deck: list[list[bytes]], y: bytes) -> None:
    """The last shuffler's cheat: slot 7's card re-masked into slot 3."""
    r = 4242
    deck[3] = [group.add(deck[7][0], group.base_mul(r)), group.add(deck[7][1], group.mul(r, y))]


def _last_open_refused_at_position_3(t: Table) -> None:
    """Seats 0 and 1 open; the last seat's open is refused by everyone (R8.4)."""
    for i in range(2):
        t.send("open", i, t.peers[i].open_message())
    refused(
        [*t.peers[:2], t.observer],
        "open",
        2,
        t.peers[2].open_message(),
        step="open",
        reason="does not match the seed (first difference at position 3)",
    )


def test_planted_duplicate_card() -> None:
    """The last shuffler copies slot 7's card into slot 3 (dropping another): readers see
    the duplicate as soon as both are open, and the open names the seat (R8.4)."""
    t = Table(3)

    _last_hop_cheat(t, _copy_slot_7_into_3)
    _reveal_all(t, [3, 7])
    assert t.observer is not None
    first = t.observer.card(3)
    with pytest.raises(CheatDetected) as e:
        t.observer.card(7)
    assert (e.value.seat, e.value.step) == (None, "decrypt")
    assert f"card {first}" in e.value.reason and "slots 3 and 7" in e.value.reason
    _last_open_refused_at_position_3(t)


def test_r8_4_a_shared_memo_recomputes_each_opened_hop_once_and_still_refuses_a_bad_one(
) -> None:
    """The peers of one process share the recomputation of opened hops (``hop_memo``,
    protocol/SECURITY.md §2.1 "Checked once per process"): an honest round opens with each
    seat's hop recomputed once, not once per peer, to the same end as without the memo; a
    hop that does not match its seed is refused by every peer that shares the memo, the
    first to recompute it and those that get the remembered deck (what is remembered is
    the computed deck, never the received one)."""
    from splitnet.game.checks import OpenedHops

    memo = OpenedHops()
    honest = Table(3, hop_memo=memo).setup()
    honest.deal()
    honest.open_all()
    plain = Table(3).setup()
    plain.deal()
    plain.open_all()
    assert memo.computed == 3  # 3 peers + the observer would recompute 3 × 3 hops

    def state(t: Table) -> list[dict[str, Any]]:
        return [{k: v for k, v in snapshot(p).items() if k != "_hop_memo"} for p in t.everyone]

    assert state(honest) == state(plain)

    t = Table(3, hop_memo=OpenedHops())
    _last_hop_cheat(t, _copy_slot_7_into_3)
    _last_open_refused_at_position_3(t)


def test_planted_non_card() -> None:
    t = Table(2)

    def plant(deck: list[list[bytes]], y: bytes) -> None:
        r = 77
        junk = group.hash_to_point(b"junk", b"")
        deck[5] = [group.base_mul(r), group.add(junk, group.mul(r, y))]

    _last_hop_cheat(t, plant)
    _reveal_all(t, [5])
    for p in t.everyone:
        with pytest.raises(CheatDetected, match="slot 5 decrypts to no card"):
            p.card(5)
    t.send("open", 0, t.peers[0].open_message())
    refused(
        [t.peers[0], t.observer],
        "open",
        1,
        t.peers[1].open_message(),
        step="open",  # type: ignore[list-item]
        reason="does not match the seed",
    )


def test_audit_catches_duplicated_or_dropped_card() -> None:
    """Defence in depth: the audit decrypts every slot and wants each card exactly once
    (white-box: the final deck is altered after the openings were checked)."""
    t = Table(2).setup()
    t.open_all()
    obs = t.observer
    assert obs is not None
    deck = list(obs._decks[-1])
    deck[10] = deck[20]
    obs._decks[-1] = tuple(deck)
    with pytest.raises(CheatDetected) as e:
        obs.audit()
    assert (e.value.seat, e.value.step) == (None, "audit") and "slots 10 and 20" in e.value.reason
    deck[10] = (deck[10][0], group.hash_to_point(b"junk", b""))
    obs._decks[-1] = tuple(deck)
    with pytest.raises(CheatDetected, match="slot 10 decrypts to no card"):
        obs.audit()


def test_open_rechecks_every_share() -> None:
    """Defence in depth: at the open every share a seat sent must equal x·c1."""
    t = Table(2).setup()
    t.draw(4, drawer=0)
    obs = t.observer
    assert obs is not None
    obs._shares[4][1] = group.base_mul(5)  # white-box: as if a bad share had slipped in
    refused([obs], "open", 1, t.peers[1].open_message(), step="open", reason="slot 4")


def test_open_duplicate_and_early() -> None:
    t = Table(2)
    t.commit()
    refused(t.everyone, "open", 0, {"seed": seed_for(0)}, step="open", reason="before the shuffle")
    t.shuffle()
    t.send("open", 0, t.peers[0].open_message())
    refused(t.everyone, "open", 0, t.peers[0].open_message(), step="open", reason="duplicate")


# ---------------------------------------------------------------- shuffle-proof seam


def _fake_prover(ctx: bytes, pk: bytes, inputs: Any, outputs: Any, perm: Any, rhos: Any,
                 nonce_seed: bytes) -> bytes:
    return hashlib.sha256(ctx + pk + deck_bytes(inputs) + deck_bytes(outputs)).digest()


def _fake_verifier(ctx: bytes, pk: bytes, inputs: Any, outputs: Any, proof: bytes) -> None:
    if proof != hashlib.sha256(ctx + pk + deck_bytes(inputs) + deck_bytes(outputs)).digest():
        raise ValueError("fake proof mismatch")


def test_shuffle_proof_seam() -> None:
    """The prover/verifier pair plugs in; the context binds game, round, seat and the
    digest of the hop's input deck, and the nonce seed is the one derived from the seat's
    seed and that digest (DECK.md §4, §10)."""
    seen: list[tuple[bytes, bytes]] = []

    def prover(*a: Any) -> bytes:
        seen.append((a[0], a[6]))
        return _fake_prover(*a)

    t = Table(3, shuffle_prover=prover, shuffle_verifier=_fake_verifier).setup()
    digests = [t.peers[0].input_digest(i) for i in range(3)]
    assert len(set(digests)) == 3 and all(d is not None and len(d) == 32 for d in digests)
    assert seen == [
        (shuffle_context(GID, 1, i, d), derive_shuffle_nonce_seed(GID, 1, i, seed_for(i), d))
        for i, d in enumerate(digests)
        if d is not None
    ]
    assert all(p.shuffled for p in t.everyone)
    # a wrong and a missing proof are refused, naming the shuffler
    u = Table(2, shuffle_prover=_fake_prover, shuffle_verifier=_fake_verifier)
    u.commit()
    hop = u.peers[0].shuffle_message()
    refused(
        u.everyone,
        "shuffle",
        0,
        with_field(hop, proof=b"\x00" * 32),
        step="shuffle",
        reason="fake proof mismatch",
    )
    refused(u.everyone, "shuffle", 0, with_field(hop, proof=None), step="shuffle", reason="missing")


@pytest.mark.slow
def test_real_shuffle_proof_round() -> None:
    """With splitnet.crypto.shuffle_proof plugged in, a tampered hop is refused at once."""
    sp = pytest.importorskip("splitnet.crypto.shuffle_proof")

    def prove(ctx: bytes, pk: bytes, i: Any, o: Any, perm: Any, rhos: Any, nonce: bytes) -> bytes:
        return sp.prove_shuffle(ctx, pk, i, o, perm, rhos, nonce_seed=nonce)  # type: ignore[no-any-return]

    t = Table(2, shuffle_prover=prove, shuffle_verifier=sp.verify_shuffle)
    t.commit()
    hop = t.peers[0].shuffle_message()
    deck = [list(c) for c in hop["deck"]]  # type: ignore[union-attr]
    deck[0], deck[1] = deck[1], deck[0]
    refused(t.everyone, "shuffle", 0, with_field(hop, deck=deck), step="shuffle", reason="rejected")
    t.send("shuffle", 0, hop)


@pytest.mark.slow
def test_eight_seats_with_real_shuffle_proofs() -> None:
    """The deck takes 8 seats (Splito, docs/SPLITO.md): eight proved hops verify, and a
    tampered eighth hop is refused naming seat 7. Only the observer checks the proofs here
    (the peers are the same code; eight checkers would cost eight times as much)."""
    sp = pytest.importorskip("splitnet.crypto.shuffle_proof")

    def prove(ctx: bytes, pk: bytes, i: Any, o: Any, perm: Any, rhos: Any, nonce: bytes) -> bytes:
        return sp.prove_shuffle(ctx, pk, i, o, perm, rhos, nonce_seed=nonce)  # type: ignore[no-any-return]

    peers = [DeckRound(GID, 1, 8, i, seed_for(i), shuffle_prover=prove) for i in range(8)]
    obs = DeckRound(GID, 1, 8, None, None, shuffle_verifier=sp.verify_shuffle)
    for p in [*peers, obs]:
        for i, q in enumerate(peers):
            p.on_commit(i, q.commit_message())
    for i in range(7):
        hop = peers[i].shuffle_message()
        assert hop["proof"] is not None
        for p in [*peers, obs]:
            p.on_shuffle(i, hop)
    hop = peers[7].shuffle_message()
    deck = [list(c) for c in hop["deck"]]  # type: ignore[union-attr]
    deck[3], deck[4] = deck[4], deck[3]
    refused([obs], "shuffle", 7, with_field(hop, deck=deck), step="shuffle", reason="rejected")
    obs.on_shuffle(7, hop)
    assert obs.shuffled and obs.next_shuffler() is None
