"""Attacks on a round an abandonment cut short in a game without shuffle proofs (R8.6,
GAME.md "abandon" step 2, DECK.md §5.5, SECURITY.md rows 111 and 125): nobody opens such
a round — every seat present sends ``prove``, the shuffle proof its hop would have
carried. Each test plays the deviation against the real cores (the host's own check,
and every peer of a host that orders it blindly): a bad, copied, doubled, late, early or
withheld proof, an opening instead, a proof from the seat given up, and a shuffler whose
hop was not honest — who can make no proof and is the one named."""

from __future__ import annotations

from typing import Any

import pytest

from splitnet.crypto import group
from splitnet.game.table import GameError
from splitnet.games.split.core import GameCore
from splitnet.games.split.local import LocalGame
from tests.test_open_hand import abandon_body, at_play_waiting_for, new_game


def cut(n: int = 3, leaver: int = 2, proofs: bool = False) -> tuple[LocalGame, GameCore]:
    """A game of ``n`` seats, its round 1 cut short at play by ``leaver``'s abandonment:
    at stage ``prove``, no proof in yet (without shuffle proofs)."""
    g, obs = new_game(n, proofs=proofs)
    at_play_waiting_for(g, leaver)
    g.silent.add(leaver)
    g.send(0, "abandon", abandon_body(g, leaver))
    return g, obs


def proof_of(g: LocalGame, seat: int) -> dict[str, Any]:
    core = g.cores[seat]
    return {"round": 1, **core.rounds[0].deck.hop_proof_message(core._prover())}


def state(g: LocalGame, obs: GameCore) -> list[tuple[Any, ...]]:
    return [(len(g.log), c.rounds[0].stage, c.rounds[0].deck.proved, c.rounds[0].opened,
             repr(c.record)) for c in [*g.cores, obs]]


def refused_by_all(g: LocalGame, obs: GameCore, seat: int, kind: str, body: dict[str, Any],
                   match: str, named: int) -> None:
    """The host refuses it naming ``named``; ordered blindly, every peer (the observer, as
    ``splitnet verify``) refuses it the same, and nothing changes anywhere."""
    before = state(g, obs)
    with pytest.raises(GameError, match=match) as e:
        g.send(seat, kind, body)
    assert e.value.seat == named and state(g, obs) == before
    for c in [*g.cores[1:], obs]:  # ordered blindly: every peer refuses it by itself
        with pytest.raises(GameError, match=match) as e:
            c.apply(seat, kind, dict(body))
        assert e.value.seat == named
    assert state(g, obs) == before


def test_the_seats_present_prove_and_nobody_opens() -> None:
    """The honest path: each seat present owes one ``prove`` and no ``open``; once both
    are in, every peer and the observer make the same record, no seed opened."""
    g, obs = cut()
    owed = [(seat, m) for seat in range(3) for m in g.cores[seat].outbox()]
    assert [(seat, kind) for seat, (kind, _) in owed] == [(0, "prove"), (1, "prove")]
    for seat, (kind, body) in owed:  # (the seat given up, 2, proves nothing)
        g.send(seat, kind, body)
    for c in [*g.cores, obs]:
        r = c.rounds[0]
        assert (r.stage, r.deck.proved, r.opened) == ("done", {0, 1}, set())
        assert c.record == g.cores[0].record
    assert g.cores[0].record["rounds"][0]["end"]["reason"] == "abandoned"


@pytest.mark.parametrize("bad", ["copied", "garbage", "text", "extra field"])
def test_a_proof_that_does_not_prove_the_senders_hop_is_refused_naming_it(bad: str) -> None:
    """Another seat's proof (valid for that hop), random bytes, a proof that is not bytes,
    a body with another field: refused naming the sender, by the host and by every peer
    of a host that orders it blindly; nothing changes, and the honest proof goes in
    after."""
    g, obs = cut()
    g.send(0, "prove", proof_of(g, 0))
    body: dict[str, Any] = {
        "copied": proof_of(g, 0), "garbage": {"round": 1, "proof": bytes(64)},
        "text": {"round": 1, "proof": "a proof"},
        "extra field": {**proof_of(g, 1), "seed": bytes(32)},
    }[bad]
    match = {"copied": "shuffle proof is rejected", "garbage": "shuffle proof is rejected",
             "text": "expected bytes", "extra field": "seed"}[bad]
    refused_by_all(g, obs, 1, "prove", body, match, 1)
    g.send(1, "prove", proof_of(g, 1))
    assert g.cores[0].rounds[0].stage == "done" and obs.rounds[0].stage == "done"


def test_a_second_proof_and_an_opening_are_refused_naming_their_sender() -> None:
    g, obs = cut()
    g.send(1, "prove", proof_of(g, 1))
    refused_by_all(g, obs, 1, "prove", proof_of(g, 1), "duplicate hop proof", 1)
    seed = g.cores[0].rounds[0].deck.open_message()
    refused_by_all(g, obs, 0, "open", {"round": 1, **seed}, "never opened", 0)


def test_a_proof_from_the_seat_given_up_is_refused_naming_it() -> None:
    """The leaver holds a valid proof of its own hop, but it is played open-handed and
    sends nothing but chat (R8.6): refused naming it — it is not what the round waits
    for, and its hop stays the one unchecked."""
    g, obs = cut()
    refused_by_all(g, obs, 2, "prove", proof_of(g, 2), "open-handed", 2)


def test_a_proof_when_none_is_due_is_refused_naming_its_sender() -> None:
    """During play, in a game with shuffle proofs after a cut (the next deal is under
    way), and in a game without proofs before any cut: no hop proof is due."""
    g, obs = new_game(3, proofs=False)
    at_play_waiting_for(g, 1)
    refused_by_all(g, obs, 1, "prove", proof_of(g, 1), "no hop proof is due", 1)
    g, obs = cut(proofs=True)
    assert g.cores[0].round is not None and g.cores[0].round.number == 2
    body = {"round": 2, "proof": bytes(64)}
    refused_by_all(g, obs, 1, "prove", body, "no hop proof is due", 1)


def test_a_seat_that_withholds_its_proof_is_timed_out_naming_it() -> None:
    """The round waits for the proof as for any message: the host's timeout at the
    agreed answer wait names the seat at step ``prove``; a sooner one names the host, and
    the round, played out, may not be abandoned again."""
    g, obs = cut(4, 3)
    g.send(2, "prove", proof_of(g, 2))
    g.send(0, "prove", proof_of(g, 0))
    assert g.cores[0].waiting_for() == [1]
    limit = g.cores[0].limits.answer_s
    refused_by_all(g, obs, 0, "timeout", {"round": 1, "seat": 1, "waited": limit - 1},
                   "false timeout", 0)
    refused_by_all(g, obs, 0, "abandon", {"round": 1, "seat": 1, "waited": 10**4},
                   "outcome known", 0)
    g.send(0, "timeout", {"round": 1, "seat": 1, "waited": limit})
    for c in [*g.cores, obs]:
        assert c.verdict is not None and c.verdict.seat == 1 and c.verdict.step == "prove"


def test_a_shuffler_whose_hop_was_not_honest_cannot_prove_it_and_is_named() -> None:
    """Seat 2 shuffles last and plants a card no card is (slot 103's plaintext moved by
    G: nobody reads the pile's last card in a round cut early, so no alarm is raised).
    At the cut its core proves the hop its seed makes, which is not the log's: the proof
    is refused naming it, no proof of the log's hop exists, and the host's timeout names
    seat 2 — the verdict splitnet/5's openings reached ("the shuffle does not match the
    seed"), and no hand shown to anyone."""
    g, obs = new_game(3, proofs=False)
    for _ in range(100):
        r = g.cores[0].round
        if r is not None and r.stage == "shuffle" and r.deck.next_shuffler() == 2:
            break
        for seat in (0, 1, 2):
            for kind, body in g.cores[seat].outbox():
                if kind != "shuffle" or seat != 2:  # seat 2's hop is made below
                    g.send(seat, kind, body)
    honest = g.cores[2].rounds[0].deck.shuffle_message()
    deck = [list(pair) for pair in honest["deck"]]  # type: ignore[union-attr]
    c1, c2 = deck[103]
    deck[103] = [c1, group.add(c2, group.base_mul(1))]
    g.send(2, "shuffle", {"round": 1, "deck": deck, "proof": None})
    at_play_waiting_for(g, 1)
    g.silent.add(1)
    g.send(0, "abandon", abandon_body(g, 1))
    g.send(0, "prove", proof_of(g, 0))
    refused_by_all(g, obs, 2, "prove", proof_of(g, 2), "shuffle proof is rejected", 2)
    g.send(0, "timeout", {"round": 1, "seat": 2, "waited": g.cores[0].limits.answer_s})
    for c in [*g.cores, obs]:
        assert c.verdict is not None and c.verdict.seat == 2 and c.verdict.step == "prove"
        assert c.rounds[0].opened == set()
