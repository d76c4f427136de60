"""The standing as it would score if the round ended now (R6.3, R7) and the pad in words."""

from __future__ import annotations

import doctest
import random

import splitnet.games.split.rules.scoring as scoring
from splitnet.games.split.bots import make_bot
from splitnet.games.split.rules import BonusMark, Discard, DrawPile, Game, Lay, Pad, Phase
from splitnet.games.split.rules.scoring import marks_now, points_text, signed, standing_now
from tests.rules_helpers import game_with, slot_of


def test_doctests() -> None:
    assert doctest.testmod(scoring).failed == 0


def test_R6_3_four_perfect_matches_on_the_table_count_before_the_round_ends() -> None:
    # Seat 1 lays four perfect matches; during the round the pad has only the perfect
    # bonus's negative marks, but the standing counts the matches (and the hand).
    hand = ["7H", "7H", "8H", "8H", "9C", "9C", "10D", "10D", "2S"]
    g = game_with(2, {1: hand}, pile=["3S"])
    g.apply(DrawPile(1))
    for card in ("7H", "8H", "9C", "10D"):
        g.apply(Lay(1, slot_of(g, 1, card, 0), slot_of(g, 1, card, 1)))
        g.apply(BonusMark(1, 0))  # each perfect bonus: seat 0 marks a negative box (R5.1)
    assert g.score(0) == 0 and g.round_marks[0]["negative"] == 4
    assert marks_now(g, 1) == {"perfect": 4, "strong": 0, "weak": 0, "negative": 2}
    assert standing_now(g)[1] == 30 - 5  # perfect 4 → 30, negative 2 → −5
    # seat 0: four bonus marks and nine cards in hand
    assert standing_now(g)[0] == -Pad().value("negative", 13)
    g.apply(Discard(1, slot_of(g, 1, "2S")))
    assert standing_now(g)[1] == 30 - 2


def _end_now(g: Game) -> Game:
    """The same position with the round ended at once (the pile run out)."""
    c = g.clone()
    # A round ends only from a draw or a play (the engine's transition table); here it is
    # ended by hand from whatever the phase is, so the phase is set to one it ends from.
    c.phase = Phase.PLAY
    c._end_round("pile_empty", c.turn)
    return c


def test_standing_now_equals_the_score_if_the_round_ended_at_any_moment() -> None:
    rng = random.Random(5)
    checked = 0
    for game_no in range(6):
        n = 2 + game_no % 3
        g = Game(n)
        bots = [make_bot("heuristic", game_no * 10 + s) for s in range(n)]
        while g.phase != "game_over":
            if g.phase == "round_over":
                faces = list(range(104))
                rng.shuffle(faces)
                g.start_round(faces)
            if g.phase in ("draw", "play", "bonus", "must_play") and rng.random() < 0.3:
                ended = _end_now(g)
                if ended.phase in ("round_over", "game_over"):
                    for s in range(n):
                        assert standing_now(g)[s] == ended.score(s)
                    checked += 1
            actor = g.actor
            if actor is not None:
                g.apply(bots[actor].choose(g, actor))
        for s in range(n):  # between rounds and at the end: the pad's own total
            assert standing_now(g)[s] == g.score(s)
    assert checked > 100


def test_points_text_writes_the_sum_out_with_one_minus_sign() -> None:
    pad = Pad()
    assert points_text(pad, {"perfect": 0, "strong": 0, "weak": 0, "negative": 0}) == (
        "no marks: total 0")
    assert points_text(pad, {"weak": 2, "negative": 9}) == (
        "weak 2 → 5, negative 9 → −54: total −49")
    assert "-" not in points_text(pad, {"negative": 3})
    assert signed(-45) == "−45" and signed(3, plus=True) == "+3" and signed(0, plus=True) == "0"
