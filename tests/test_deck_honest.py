"""Honest rounds of the fair deck (R3.3, R8.1–R8.4) with 2…8 peers and an observer."""

from __future__ import annotations

import pytest

from splitnet.cards import N_CARDS
from splitnet.crypto.deck import DeckRound
from splitnet.crypto.errors import CheatDetected, DeckUsageError
from tests.test_deck_helpers import GID, HAND, Table, seed_for, snapshot


def expected_knowledge(t: Table, seat: int | None) -> set[int]:
    """R8: a player reads its own slots and the public ones; an observer the public ones."""
    own = {s for s, o in t.owner.items() if o == seat}
    return own | t.public


def check_knowledge(t: Table) -> None:
    for p in t.peers:
        assert p.known_slots() == expected_knowledge(t, p.seat), f"seat {p.seat}"
    assert t.observer is not None
    assert t.observer.known_slots() == t.public


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6, 7, 8])
def test_r3_3_r8_honest_round(n: int) -> None:
    """R3.3 deal, R8.3 private draws, R8.2 public reveals, R8.4 open and audit."""
    t = Table(n).setup()
    assert all(p.shuffled for p in t.everyone)
    assert len({p.deck for p in t.everyone}) == 1  # everyone holds the same final deck
    discard = t.deal(batch=n % 2 == 0)  # half the sizes check the deal as one batch
    check_knowledge(t)
    # every reader of a slot reads the same card
    first = t.observer.card(discard) if t.observer else None
    assert first is not None and all(p.card(discard) == first for p in t.peers)
    # two private draws, then a public reveal of a drawn card and of a dealt card
    pile = HAND * n + 1
    t.draw(pile, drawer=0)
    t.draw(pile + 1, drawer=n - 1)
    check_knowledge(t)
    drawn = t.peers[0].card(pile)
    assert drawn is not None and t.peers[1].card(pile) is None
    t.reveal([pile], holder=0)
    dealt = next(s for s, o in t.owner.items() if o == 1)
    t.reveal([dealt], holder=1)
    check_knowledge(t)
    assert all(p.card(pile) == drawn for p in t.everyone)
    # open (R8.4): afterwards everyone reads everything, and all audits agree
    t.open_all()
    audits = [p.audit() for p in t.everyone]
    assert sorted(audits[0]) == list(range(N_CARDS))
    assert all(a == audits[0] for a in audits)
    for p in t.everyone:
        assert p.known_slots() == set(range(N_CARDS))
        assert [p.card(s) for s in range(N_CARDS)] == audits[0]


def test_r8_1_knowledge_step_by_step() -> None:
    """R8.1: nobody (not even the observer) reads a slot before the rules reveal it."""
    t = Table(3)
    assert all(p.known_slots() == set() for p in t.everyone)
    t.commit()
    assert all(p.known_slots() == set() for p in t.everyone)
    t.shuffle()
    assert all(p.known_slots() == set() for p in t.everyone)  # shuffled, nothing dealt
    # the deal, message by message: a hand becomes readable once every *other* seat has
    # sent its deal shares; the first discard once all have
    owner = {s: s % 3 for s in range(HAND * 3)}
    for i, p in enumerate(t.peers):
        slots = [s for s, o in owner.items() if o != i] + [27]
        t.send("shares", i, p.shares_message(slots, "deal"), "deal")
        sent = set(range(i + 1))
        for q in t.peers:
            hand = {s for s, o in owner.items() if o == q.seat}
            want = hand | {27} if sent >= {0, 1, 2} - {q.seat} else set()
            assert q.known_slots() == want
        assert t.observer is not None
        assert t.observer.known_slots() == ({27} if i == 2 else set())
    t.owner = owner
    t.public.add(27)
    check_knowledge(t)
    # a draw: readable by the drawer only once every other share is in
    t.send("shares", 1, t.peers[1].shares_message([40], "draw"), "draw")
    assert 40 not in t.peers[0].known_slots()
    t.send("shares", 2, t.peers[2].shares_message([40], "draw"), "draw")
    t.owner[40] = 0
    check_knowledge(t)
    # the draw pile order stays unknown to all (R8.1)
    pile = set(range(41, N_CARDS))
    assert all(not (p.known_slots() & pile) for p in t.everyone)
    assert all(p.card(60) is None for p in t.everyone)


def test_transcript_is_deterministic() -> None:
    """Self-play reproducibility: same seeds → byte-identical messages."""

    def run() -> list[object]:
        t = Table(3, observer=False).setup()
        t.deal(2)
        t.draw(10, 0)
        t.reveal([10], 0)
        t.open_all()
        return [m for _, _, m, _ in t.log]

    assert run() == run()


def test_own_messages_are_idempotent_safe() -> None:
    """Feeding one's own message back works once; a second copy is a duplicate."""
    t = Table(2).setup()
    p = t.peers[0]
    with pytest.raises(CheatDetected) as e:
        p.on_commit(0, p.commit_message())
    assert (e.value.seat, e.value.step) == (0, "commit") and "duplicate" in e.value.reason
    with pytest.raises(CheatDetected, match="duplicate"):
        p.on_shuffle(0, t.log[2][2])
    t.deal(1)
    msg = t.log[-2][2]
    with pytest.raises(CheatDetected, match="duplicate share"):
        p.on_shares(0, msg, "deal")
    with pytest.raises(DeckUsageError, match="already sent"):
        p.shares_message([1], "deal")


def test_fork_is_independent() -> None:
    """A fork can try a reveal (R8.2) without changing the original."""
    t = Table(2).setup()
    t.deal(1)
    msg = t.peers[1].shares_message([1], "reveal")
    trial = t.peers[0].fork()
    trial.on_shares(1, msg, "reveal")
    assert trial.card(1) is not None and t.peers[0].card(1) is None
    t.peers[0].on_shares(1, msg, "reveal")  # the original still accepts it
    assert t.peers[0].card(1) == trial.card(1)


def test_api_misuse_is_a_usage_error() -> None:
    obs = DeckRound(GID, 1, 2, None, None)
    with pytest.raises(DeckUsageError):
        obs.commit_message()
    with pytest.raises(DeckUsageError):
        DeckRound(GID, 1, 9, 0, seed_for(0))  # the deck takes 2–8 seats
    with pytest.raises(DeckUsageError):
        DeckRound(GID, 1, 1, 0, seed_for(0))
    with pytest.raises(DeckUsageError):
        DeckRound(GID, 1, 2, 0, None)
    with pytest.raises(DeckUsageError):
        DeckRound(GID[:8], 1, 2, 0, seed_for(0))
    t = Table(2)
    with pytest.raises(DeckUsageError, match="turn"):
        t.peers[1].shuffle_message()
    with pytest.raises(DeckUsageError):
        t.peers[0].shares_message([0], "deal")  # before the shuffle
    t.setup()
    with pytest.raises(DeckUsageError):
        t.peers[0].shares_message([0], "peek")
    with pytest.raises(DeckUsageError):
        t.peers[0].shares_message([0, 0], "draw")
    with pytest.raises(DeckUsageError):
        t.peers[0].card(104)
    with pytest.raises(DeckUsageError, match="missing"):
        t.peers[0].audit()
    with pytest.raises(DeckUsageError):
        t.peers[0].on_commit(5, {})


def test_batch_equals_one_by_one() -> None:
    """on_shares_batch leaves exactly the state of on_shares called in order."""
    a, b = Table(3).setup(), Table(3).setup()
    a.deal(batch=True)
    b.deal(batch=False)
    for p, q in zip(a.everyone, b.everyone, strict=True):
        assert snapshot(p) == snapshot(q)
        assert p.known_slots() == q.known_slots()
