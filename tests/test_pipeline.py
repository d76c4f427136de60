"""The pipelined shuffle chain (GAME.md "shuffle proofs", DECK.md §5.2, SECURITY.md
"Pipelined shuffle checks"): a seat shuffles as soon as the previous hop is in the log,
every peer's proof checks run meanwhile (in a worker process if one is injected), the
deal starts only once every peer has every verdict, and the first bad hop is still named
before any card is dealt (R8.1)."""

from __future__ import annotations

from typing import Any

import pytest

from splitnet.crypto.deck import DeckRound, HopCheck, HopMemo
from splitnet.crypto.errors import CheatDetected, DeckUsageError
from splitnet.game.checks import Done, HopVerdict, InlineChecker, check_hop
from splitnet.game.pool import ProofPool
from splitnet.game.table import GameError
from splitnet.games.split.bots import make_bot
from splitnet.games.split.local import LocalGame, SelfplaySecrets
from splitnet.games.split.rules import Settings
from splitnet.verify import verify_records
from tests.test_deck_helpers import GID, seed_for


def new_game(n: int, seed: int = 3, checker: Any = None, **kw: Any) -> LocalGame:
    return LocalGame([f"p{i}" for i in range(n)], Settings(hand_size=3, rounds=1),
                     SelfplaySecrets(seed), shuffle_proofs=True, checker=checker, **kw)


def send_one(g: LocalGame) -> bool:
    for seat, core in enumerate(g.cores):
        for kind, body in core.outbox():
            g.send(seat, kind, body)
            return True
    return False


def to_shuffle(g: LocalGame) -> None:
    for _ in range(100):
        r = g.cores[0].round
        if r is not None and r.stage == "shuffle":
            return
        assert send_one(g)
    raise AssertionError("no shuffle stage")


def tampered_hop(g: LocalGame, seat: int) -> dict[str, Any]:
    """Seat's honest hop with two cards swapped after proving: the proof no longer fits."""
    r = g.cores[seat].round
    assert r is not None and r.deck.next_shuffler() == seat
    body = {"round": r.number, **r.deck.shuffle_message()}
    deck = [list(ct) for ct in body["deck"]]
    deck[0], deck[1] = deck[1], deck[0]
    body["deck"] = deck
    return body


def nothing_dealt(g: LocalGame) -> None:
    """R8.1: no share of the deck exists and nobody reads any card."""
    assert not any(e.kind in ("shares", "reveal", "move") for e in g.log.entries)
    for core in g.cores:
        r = core.round
        assert r is not None and r.stage == "shuffle" and not r.deck.verified
        assert r.deck.known_slots() == set()
        assert all(f is None for f in core.engine.faces)


class Counting:
    """A shared in-line checker that counts and can hold verdicts back."""

    def __init__(self) -> None:
        self.inner = InlineChecker(share=True)
        self.asked: list[int] = []  # seat of each hop whose verdict was taken
        self.submitted: list[int] = []
        self.started = 0

    def start(self) -> Counting:
        self.started += 1
        return self

    splitter = None

    @property
    def hop_memo(self) -> HopMemo | None:
        return self.inner.hop_memo

    def submit(self, game_id: bytes, hop: HopCheck, *, last: bool = False) -> HopVerdict:
        self.submitted.append(hop.seat)
        verdict = self.inner.submit(game_id, hop, last=last)
        outer = self

        class V:
            def result(self) -> str | None:
                outer.asked.append(hop.seat)
                return verdict.result()
        return V()


@pytest.mark.slow
@pytest.mark.parametrize("k", [0, 1, 2])
def test_a_bad_hop_at_k_with_pipelining_still_blames_k_and_no_card_is_dealt(k: int) -> None:
    """The bad hop is ordered unchecked and later seats shuffle on it; the last hop's
    entry completes every peer's checks, in chain order: the game stops naming seat k,
    at step shuffle, before any share exists (GAME.md Verdicts)."""
    checker = Counting()
    g = new_game(4, checker=checker)
    to_shuffle(g)
    for _ in range(k):
        assert send_one(g)
    g.send(k, "shuffle", tampered_hop(g, k))  # the host orders it: it is not checked yet
    assert g.verdict is None and g.cores[0].round is not None
    for _ in range(3 - k):
        assert send_one(g)  # the later seats shuffle on the unchecked deck
    assert g.finished
    for core in g.cores:
        v = core.verdict
        assert v is not None and v.seat == k and v.step == "shuffle", str(v)
        assert "rejected" in v.reason
    nothing_dealt(g)
    assert [e.kind for e in g.log.entries].count("shuffle") == 4
    # splitnet verify reaches the same verdict at the same entry: the last hop
    v = verify_records(g.log.records())
    assert not v.ok and v.seat == k and v.seq == g.log.entries[-1].seq, v.summary
    with pytest.raises(GameError):  # nothing more is accepted
        g.pump()
        g.send(1, "chat", {"text": "hi"})


@pytest.mark.slow
def test_a_bad_last_hop_is_refused_naming_its_shuffler() -> None:
    g = new_game(3, checker=InlineChecker(share=True))
    to_shuffle(g)
    assert send_one(g) and send_one(g)
    bad = tampered_hop(g, 2)
    with pytest.raises(GameError) as info:
        g.send(2, "shuffle", bad)  # the host refuses it: it never enters the log
    assert info.value.seat == 2 and info.value.step == "shuffle"
    assert [e.kind for e in g.log.entries].count("shuffle") == 2
    assert g.verdict is None
    nothing_dealt(g)
    send_one(g)  # the honest hop is still accepted
    assert all(c.round is not None and c.round.stage == "deal" for c in g.cores)


@pytest.mark.slow
def test_the_next_seat_shuffles_before_any_verdict_is_taken() -> None:
    """Pipelining: every hop's check is submitted as it arrives, and no verdict is waited
    for until the last hop is in; then all, in chain order, before any deal share."""
    checker = Counting()
    g = new_game(3, checker=checker)
    to_shuffle(g)
    assert send_one(g) and send_one(g)
    assert checker.asked == [] and sorted(set(checker.submitted)) == [0, 1]
    assert checker.started == 3  # each core readied it when the game was set up
    assert send_one(g)  # the last hop: every peer takes its verdicts now
    # each peer (0, 1, 2 in turn) takes the verdicts of the others' hops in chain order
    assert checker.asked == [1, 2, 0, 2, 0, 1]
    assert all(c.round is not None and c.round.stage == "deal" for c in g.cores)
    # every peer checked every other seat's hop (its own it made): hop 2's check is
    # taken by seats 0 and 1, through the shared checker it is verified once
    assert sorted(set(checker.submitted)) == [0, 1, 2]
    assert checker.inner.checked == 3


def test_pipelined_and_sequential_checks_give_the_same_transcript() -> None:
    """The transcript format is unchanged: only when the checks run differs."""
    logs = []
    for pipeline in (True, False):
        bots = [make_bot("random", i) for i in range(2)]
        g = LocalGame(["a", "b"], Settings(hand_size=3, rounds=1), SelfplaySecrets(11),
                      shuffle_proofs=True)
        for core in g.cores:
            core.pipeline = pipeline
        g.run_bots(bots)
        logs.append(g.log.records())
    assert logs[0] == logs[1]


# ------------------------------------------------------------------ the deck layer
def _chain(n: int, *, check: bool = False) -> tuple[list[DeckRound], DeckRound]:
    from splitnet.crypto.shuffle_proof import prove_shuffle, verify_shuffle

    def prove(ctx: bytes, pk: bytes, i: Any, o: Any, perm: Any, rhos: Any, nonce: bytes) -> bytes:
        return prove_shuffle(ctx, pk, i, o, perm, rhos, nonce_seed=nonce, context_game=GID)

    def verify(ctx: bytes, pk: bytes, i: Any, o: Any, proof: bytes) -> None:
        verify_shuffle(ctx, pk, i, o, proof, context_game=GID)

    peers = [DeckRound(GID, 1, n, i, seed_for(i), shuffle_prover=prove,
                       shuffle_verifier=verify if check else None) for i in range(n)]
    obs = DeckRound(GID, 1, n, None, None, shuffle_verifier=verify)
    for p in [*peers, obs]:
        for i, q in enumerate(peers):
            p.on_commit(i, q.commit_message())
    return peers, obs


def test_deck_deferred_checks_are_settled_in_chain_order_before_any_share() -> None:
    peers, obs = _chain(2, check=True)
    for i in range(2):
        hop = peers[i].shuffle_message()
        for p in [*peers, obs]:
            p.on_shuffle(i, hop, defer=True)
    assert obs.shuffled and not obs.verified
    pending = obs.unchecked_hops()
    assert [h.seat for h in pending] == [0, 1]
    # a player's own hop is trusted as made; another seat's waits for its verdict, and
    # until then the player makes no share of the deck
    assert [h.seat for h in peers[0].unchecked_hops()] == [1]
    assert [h.seat for h in peers[1].unchecked_hops()] == [0]
    with pytest.raises(DeckUsageError, match="checked"):
        peers[0].shares_message([3], "deal")
    with pytest.raises(DeckUsageError, match="chain order"):
        obs.settle_hop(pending[1], None)
    for p in peers:
        for h in p.unchecked_hops():
            p.settle_hop(h, check_hop(GID, h))
    draw = peers[0].shares_message([5], "draw")
    with pytest.raises(DeckUsageError, match="settle"):
        obs.on_shares(0, draw, "draw")
    assert [check_hop(GID, h) for h in pending] == [None, None]
    for h in pending:
        obs.settle_hop(h, check_hop(GID, h))
    assert obs.verified and obs.unchecked_hops() == []
    obs.on_shares(0, draw, "draw")


def test_deck_a_rejected_deferred_hop_names_its_seat_and_stays_unsettled() -> None:
    peers, obs = _chain(3)
    for i in range(3):
        hop = peers[i].shuffle_message()
        if i == 1:
            deck = [list(c) for c in hop["deck"]]  # type: ignore[union-attr]
            deck[0], deck[1] = deck[1], deck[0]
            hop = {**hop, "deck": deck}
        for p in peers:  # the peers here check nothing: the next one builds on it
            p.on_shuffle(i, hop)
        obs.on_shuffle(i, hop, defer=True)
    pending = obs.unchecked_hops()
    verdicts = [check_hop(GID, h) for h in pending]
    assert verdicts[0] is None and verdicts[1] is not None
    obs.settle_hop(pending[0], verdicts[0])
    with pytest.raises(CheatDetected) as info:
        obs.settle_hop(pending[1], verdicts[1])
    assert info.value.seat == 1 and info.value.step == "shuffle"
    assert not obs.verified and [h.seat for h in obs.unchecked_hops()] == [1, 2]


def test_hop_digest_binds_every_field() -> None:
    peers, obs = _chain(2)
    hop = peers[0].shuffle_message()
    obs.on_shuffle(0, hop, defer=True)
    h = obs.unchecked_hops()[0]
    d = h.digest(GID)
    assert h.digest(bytes(16)) != d
    changed = [
        HopCheck(1, h.context, h.joint_key, h.inputs, h.outputs, h.proof),
        HopCheck(h.seat, h.context + b"x", h.joint_key, h.inputs, h.outputs, h.proof),
        HopCheck(h.seat, h.context, h.joint_key, h.inputs, h.outputs[1:] + h.outputs[:1],
                 h.proof),
        HopCheck(h.seat, h.context, h.joint_key, h.inputs, h.outputs,
                 h.proof[:-1] + bytes([h.proof[-1] ^ 1])),
    ]
    assert all(c.digest(GID) != d for c in changed)


# ------------------------------------------------------------------ the worker pool
@pytest.mark.slow
def test_a_proof_pool_checks_in_a_worker_process_and_names_a_bad_hop() -> None:
    """Real worker processes (started once, reused): an honest round reaches the deal with
    each hop checked once for the whole process; a bad first hop is named seat 0."""
    pool = ProofPool(workers=1, share=True).start()
    try:
        g = new_game(3, checker=pool)
        to_shuffle(g)
        for _ in range(3):
            assert send_one(g)
        assert all(c.round is not None and c.round.stage == "deal" for c in g.cores)
        # hops 0 and 1 in the worker; the last, waited for at once, in this thread and
        # the pool's helper (submit(…, last=True))
        assert pool.submitted == 2
        g2 = new_game(3, seed=4, checker=pool)
        to_shuffle(g2)
        g2.send(0, "shuffle", tampered_hop(g2, 0))
        assert send_one(g2) and send_one(g2)
        assert g2.verdict is not None and g2.verdict.seat == 0
        assert g2.verdict.step == "shuffle"
        nothing_dealt(g2)
    finally:
        pool.close()


def test_a_broken_pool_checks_in_the_calling_thread_with_the_same_verdicts() -> None:
    peers, obs = _chain(2)
    hop = peers[0].shuffle_message()
    obs.on_shuffle(0, hop, defer=True)
    good = obs.unchecked_hops()[0]
    bad = HopCheck(good.seat, good.context, good.joint_key, good.inputs,
                   good.outputs[1:] + good.outputs[:1], good.proof)
    pool = ProofPool(workers=1)
    pool.close()  # as if the workers could not be started
    assert pool.submit(GID, good).result() is None
    why = pool.submit(GID, bad).result()
    assert why is not None and why == check_hop(GID, bad)
    assert pool.submitted == 0
    assert Done("x").result() == "x"


@pytest.mark.slow
def test_a_proof_pools_workers_run_below_the_peers_priority_from_their_start() -> None:
    """The workers yield to the peer's own proving (and, at launch, to its start-up): each
    runs NICER below the process that started it, however often start() is called."""
    import os

    from splitnet.game.pool import NICER

    pool = ProofPool(workers=1).start()
    try:
        pool.start()
        mine = os.getpriority(os.PRIO_PROCESS, 0)
        pids = pool.pids()
        assert len(pids) == 1
        peers, obs = _chain(2)
        obs.on_shuffle(0, peers[0].shuffle_message(), defer=True)
        assert pool.submit(GID, obs.unchecked_hops()[0]).result() is None  # still checks
        assert os.getpriority(os.PRIO_PROCESS, pids[0]) == min(19, mine + NICER)
    finally:
        pool.close()
