"""S5.7: a seat gone for good leaves the rotation (the rules engine, docs/SPLITO.md)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from splitnet.splito.engine import Game, Phase, Play
from tests.splito_helpers import new_game, nonce
from tests.test_splito_rules import commit_for, refused


def first_plays(g: Game) -> list[Play]:
    return [Play(s, g.hands[s][0], "left") for s in g.playing]


def play_turn(g: Game) -> None:
    plays = first_plays(g)
    g.play_turn(plays, [nonce(g.turn, p.seat) for p in plays])


def test_S5_7_a_seat_that_leaves_sets_its_hand_aside_and_passes_skip_it() -> None:
    g = new_game(4)
    play_turn(g)
    held_by_2 = list(g.hands[2])
    held_by_1 = list(g.hands[1])
    g.abandon(2)
    assert g.gone == {2: 2} and g.aside == held_by_2 and g.hands[2] == []
    assert g.playing == [0, 1, 3] and g.waiting_for() == [0, 1, 3]
    play_turn(g)
    # S5.4 with S5.7: seat 1's hand (less its play) goes to seat 3, past the gone seat
    assert g.hands[3] == held_by_1[1:] and g.hands[2] == []
    # S5.1: as many hands as seats playing, all of one size
    assert sorted(len(g.hands[s]) for s in g.playing) == [11, 11, 11]
    while not g.over:
        play_turn(g)
    assert all(not g.hands[s] for s in range(4))
    assert 2 not in g.winners()  # S5.7 [decision]: a seat that left cannot win
    assert len(g.scores()) == 4  # its score is computed as anyone's


def test_S5_7_a_seat_leaving_last_of_the_commitments_completes_the_turns_commit_phase() -> None:
    g = new_game(3)
    for s in (0, 1):
        card = g.face(g.hands[s][0])
        g.commit(s, commit_for(g, s, card, "left"))
    g.abandon(2)
    assert g.phase is Phase.REVEAL and g.waiting_for() == [0, 1]


def test_S5_7_who_may_leave_and_when() -> None:
    g = new_game(3)
    card = g.face(g.hands[0][0])
    g.commit(0, commit_for(g, 0, card, "left"))
    refused(g, lambda: g.abandon(0), "S5.7", "has committed")
    g.abandon(1)
    refused(g, lambda: g.abandon(1), "S5.7", "already")
    refused(g, lambda: g.abandon(2), "S5.7", "at least two")
    refused(g, lambda: g.commit(1, "0" * 64), "S5.7", "plays no more")
    two = new_game(2)
    refused(two, lambda: two.abandon(1), "S5.7, S8", "2-player")
    g2 = new_game(3)
    for s in range(3):
        c = g2.face(g2.hands[s][0])
        g2.commit(s, commit_for(g2, s, c, "left"))
    refused(g2, lambda: g2.abandon(2), "S5.7", "phase reveal")


def test_S5_7_two_seats_gone_the_game_still_ends_with_every_hand_empty() -> None:
    g = new_game(5)
    g.abandon(4)
    play_turn(g)
    play_turn(g)
    g.abandon(1)
    while not g.over:
        play_turn(g)
    assert g.gone == {4: 1, 1: 3}
    assert all(not h for h in g.hands)
    assert len(g.aside) == 13 + 11
    assert set(g.winners()) <= {0, 2, 3}


def test_S5_7_on_the_fair_deck_a_gone_holders_shares_are_forwarded_by_the_hands_last_holder(
) -> None:
    """The core's pass duty once a seat has left (S5.7), driven through the engine's
    rule on every core (no `abandon` entry exists yet): the hand dealt to the gone seat
    goes on, sealed onward by whoever held it last, and S7 holds at every entry."""
    from splitnet.game.splito_core import Stage
    from tests.test_splito_fair import bots, check_knowledge, new_game, run_until

    game = new_game(4, seed=4)

    def commit_phase(turn: int) -> Callable[[Any], bool]:
        def at(g: Any) -> bool:
            e = g.cores[0].engine
            return (g.cores[0].stage is Stage.PLAY and e.turn == turn
                    and e.phase is Phase.COMMIT and not any(e.commits))
        return at

    run_until(game, commit_phase(2))
    for core in game.cores:
        core.engine.abandon(1)
    players = bots(4)
    for _ in range(20_000):
        if game.cores[0].stage is Stage.OPEN:
            break
        check_knowledge(game)
        if game.pump():
            continue
        seat = game.mover()
        assert seat is not None and seat != 1
        game.play_move(seat, players[seat].choose(game.cores[seat].engine, seat))
    eng = game.cores[0].engine
    assert eng.over and eng.gone == {1: 2}
    forwarded = [b for b in game.cores[0].sealed if b.holder == 1]
    assert forwarded and all(b.frm != 1 for b in forwarded if b.turn >= 2)
