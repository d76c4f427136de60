"""Splito's two shuffle chains, pipelined (protocol/SPLITO_GAME.md "Shuffle proofs",
SECURITY.md §2.1): every hop's proof check is deferred to the injected checker — a worker
pool shared by the peers of one process — the card chain starts on the objective deck
unchecked, and every verdict is taken, both chains in chain order, at the card deck's last
hop: the first bad hop is still named, before any share (S7, R8.1), and the transcript is
the same bytes with or without the pool."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from splitnet.game.checks import HopChecker, InlineChecker
from splitnet.game.pool import ProofPool
from splitnet.game.table import PROTOCOL, GameError, PledgeBook
from splitnet.games.split.local import LocalGame, SelfplaySecrets
from splitnet.games.splito.bots import make_bot
from splitnet.games.splito.core import SplitoCore, Stage, splito_header
from splitnet.games.splito.settings import SplitoSettings
from splitnet.verify import verify_records
from tests.test_pipeline import Counting

Game = LocalGame[SplitoCore]


def new_game(n: int, seed: int = 5, checker: HopChecker | None = None,
             pipeline: bool = True) -> Game:
    settings = SplitoSettings.standard(n)
    names = [f"p{s}" for s in range(n)]

    def make(gid: bytes, seat: int, seeds: Callable[[int], bytes], pledges: PledgeBook,
             keys: list[bytes]) -> SplitoCore:
        return SplitoCore(gid, names, settings, seat, seeds, pledges=pledges,
                          checker=checker, pipeline=pipeline)

    return LocalGame(names, settings, SelfplaySecrets(seed), make_core=make,
                     header=splito_header(settings, PROTOCOL))


def send_one(g: Game) -> tuple[int, str, dict[str, Any]] | None:
    for seat, core in enumerate(g.cores):
        for kind, body in core.outbox():
            g.send(seat, kind, body)
            return seat, kind, body
    return None


def to_hop(g: Game, deck: str, seat: int) -> None:
    """Send every message due until ``seat`` is to make its hop of ``deck``."""
    for _ in range(200):
        c = g.cores[0]
        d = c.objectives if deck == "objectives" else c.cards
        want = Stage.SHUFFLE_OBJECTIVES if deck == "objectives" else Stage.SHUFFLE_CARDS
        if c.stage is want and d is not None and d.next_shuffler() == seat:
            return
        assert send_one(g) is not None
    raise AssertionError(f"no hop of seat {seat} on {deck}")


def tampered_hop(g: Game, deck: str, seat: int) -> dict[str, Any]:
    """The seat's honest hop with two cards swapped after proving: the proof fails."""
    c = g.cores[seat]
    d = c.objectives if deck == "objectives" else c.cards
    assert d is not None and d.next_shuffler() == seat
    body: dict[str, Any] = {"round": 1, "deck_of": deck, **d.shuffle_message()}
    cts = [list(ct) for ct in body["deck"]]
    cts[0], cts[1] = cts[1], cts[0]
    body["deck"] = cts
    return body


def nothing_dealt(g: Game, bad: str = "cards") -> None:
    """No share of either deck exists, nobody reads any card (S7, R8.1); the chain with
    the bad hop never becomes verified (no share of it can be made)."""
    assert not any(e.kind in ("deal", "move", "reveal", "pass") for e in g.log.entries)
    for core in g.cores:
        assert core.objectives.known_slots() == set()
        assert core.cards is None or core.cards.known_slots() == set()
        chain = core.objectives if bad == "objectives" else core.cards
        assert chain is not None and not chain.verified
        assert all(f is None for f in core.engine.faces)


@pytest.mark.slow
@pytest.mark.parametrize(("deck", "k"), [("objectives", 0), ("objectives", 2), ("cards", 1)])
def test_a_bad_splito_hop_is_named_at_the_last_hop_before_any_deal(deck: str, k: int) -> None:
    """The bad hop is ordered unchecked, the later hops — the card chain too — are made on
    it; the card deck's last hop takes every verdict in chain order: the game stops naming
    seat k at step shuffle, before any share; `splitnet verify` says the same."""
    checker = Counting()
    g = new_game(3, checker=checker)
    to_hop(g, deck, k)
    g.send(k, "shuffle", tampered_hop(g, deck, k))  # the host orders it: not checked yet
    assert g.cores[0].verdict is None and checker.asked == []
    for _ in range(20):
        if g.finished:
            break
        assert send_one(g) is not None  # the later seats shuffle on the unchecked deck
    assert g.finished
    for core in g.cores:
        v = core.verdict
        assert v is not None and v.seat == k and v.step == "shuffle", str(v)
        assert "rejected" in v.reason and ("objective" if deck == "objectives"
                                           else "card deck") in v.reason
        assert core.stage is Stage.STOPPED
    nothing_dealt(g, deck)
    assert [e.kind for e in g.log.entries].count("shuffle") == 6
    res = verify_records(g.log.records())
    assert not res.ok and res.seat == k and res.seq == g.log.entries[-1].seq, res.summary
    with pytest.raises(GameError):
        g.send(1, "chat", {"text": "hi"})


@pytest.mark.slow
def test_a_bad_last_splito_hop_is_refused_naming_its_shuffler() -> None:
    g = new_game(3, checker=InlineChecker(share=True))
    to_hop(g, "cards", 2)
    with pytest.raises(GameError) as info:
        g.send(2, "shuffle", tampered_hop(g, "cards", 2))  # never enters the log
    assert info.value.seat == 2 and info.value.step == "shuffle"
    assert g.cores[0].verdict is None and [e.kind for e in g.log.entries].count("shuffle") == 5
    nothing_dealt(g)
    assert send_one(g) is not None  # the honest hop is still taken: the deal is next
    assert all(c.stage is Stage.DEAL for c in g.cores)


@pytest.mark.slow
def test_no_splito_verdict_is_waited_for_before_the_card_decks_last_hop() -> None:
    """Pipelining across both chains: seat 0 starts the card deck on the objective deck
    unchecked; every verdict is taken at the last hop, objectives first, and each hop is
    checked once for all three peers (the shared checker)."""
    checker = Counting()
    g = new_game(3, checker=checker)
    to_hop(g, "cards", 2)
    assert checker.asked == []
    assert send_one(g) is not None
    assert all(c.stage is Stage.DEAL for c in g.cores)
    # peer 0 takes hops 1, 2 of the objective deck, then 1, 2 of the card deck; and so on
    assert checker.asked[:4] == [1, 2, 1, 2]
    assert checker.inner.checked == 6  # 6 hops, each checked once for the process


@pytest.mark.slow
def test_a_splito_transcript_is_the_same_bytes_with_the_pool_and_checked_on_arrival() -> None:
    """Same seeds → the same transcript: where and when the checks run changes no byte;
    and a bad objective hop is named seat 0 through real worker processes."""
    pool = ProofPool(workers=1, share=True).start()
    logs = []
    try:
        for checker, pipeline in ((None, False), (pool, True)):
            g = new_game(3, seed=9, checker=checker, pipeline=pipeline)
            g.run_bots([make_bot("random", s) for s in range(3)])
            logs.append(g.log.records())
        assert logs[0] == logs[1]
        assert pool.submitted == 5  # 6 hops: 5 in the worker, the last one at once
        g2 = new_game(3, seed=4, checker=pool)
        to_hop(g2, "objectives", 0)
        g2.send(0, "shuffle", tampered_hop(g2, "objectives", 0))
        for _ in range(10):
            if g2.finished:
                break
            assert send_one(g2) is not None
        assert g2.verdict is not None and g2.verdict.seat == 0
        nothing_dealt(g2, "objectives")
    finally:
        pool.close()
