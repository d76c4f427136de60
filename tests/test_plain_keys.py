"""The plain front end speaks the full screen's keys and numbers where a line can: seats
numbered from 1, a bare number names the perfect bonus's target (R5.1), d takes the
strong bonus draw (R5.2), matches as #M, c chats, r repeats the last round's results;
and the end summary writes suits as symbols."""

from __future__ import annotations

import asyncio
import random

import pytest

from splitnet.games.split.bots import HeuristicBot
from splitnet.games.split.front.selfplay import summary
from splitnet.games.split.rules import BonusDraw, BonusMark, BonusSwap, DrawPile, Game, Lay, Upgrade
from splitnet.ui.plain import (
    CommandError,
    ask_text,
    command_for,
    hint_text,
    last_results,
    parse_command,
    render_table,
)
from tests.rules_helpers import game_with, row_taken, slot_of

PLAYERS = ["Ana", "Bo", "Cy"]


def test_seats_are_numbered_from_1_as_on_the_full_screen() -> None:
    g = game_with(3, {1: ["7H", "7D", "2C", "3C", "4C", "5C", "6C", "8C", "9C"]})
    text = render_table(g, PLAYERS, 0)
    assert "  1. Ana (you)" in text and "> 2. Bo" in text and "  3. Cy" in text
    assert " 0. " not in text
    g.apply(DrawPile(1))
    g.apply(Lay(1, slot_of(g, 1, "7H"), slot_of(g, 1, "7D")))
    assert "match #0: strong" in render_table(g, PLAYERS, 0)


def test_after_taking_from_the_row_the_prompt_names_the_card_to_play_r4_1b() -> None:
    g = row_taken()  # 9D, with JC and 10S after it: 9D is the one to play
    assert g.phase == "must_play"
    assert ask_text(g, 1) == ("Play the 9♦ you took from the row: lay (l) or upgrade (u) "
                              "with it.")


def test_perfect_bonus_target_by_the_number_the_table_shows() -> None:
    g = game_with(3, {1: ["7H", "7H", "2C", "3C", "4C", "5C", "6C", "8C", "9C"]})
    g.apply(DrawPile(1))
    g.apply(Lay(1, slot_of(g, 1, "7H", 0), slot_of(g, 1, "7H", 1)))
    assert "number of the player" in ask_text(g, 1)
    assert parse_command("3", g, 1, PLAYERS, []) == BonusMark(1, 2)
    assert parse_command("m 1", g, 1, PLAYERS, []) == BonusMark(1, 0)
    assert parse_command("m cy", g, 1, PLAYERS, []) == BonusMark(1, 2)
    with pytest.raises(CommandError, match="player number 1–3"):
        parse_command("4", g, 1, PLAYERS, [])
    with pytest.raises(CommandError, match="player number 1–3"):
        parse_command("m 0", g, 1, PLAYERS, [])
    # after `moves`, a number picks from that list instead
    listed = g.legal_moves(1)
    assert parse_command("1", g, 1, PLAYERS, listed) == listed[0]


def test_a_players_number_is_the_sessions_as_on_the_full_screen() -> None:
    """In a rematch on this machine each player keeps their number (the session's
    ``numbers``): the table, a number typed, ``m N`` and the hint's command say it."""
    g = game_with(3, {1: ["7H", "7H", "2C", "3C", "4C", "5C", "6C", "8C", "9C"]})
    numbers = [3, 1, 2]  # Ana at seat 0 was player 3 in the run's first game
    assert "  3. Ana (you)" in render_table(g, PLAYERS, 0, numbers)
    g.apply(DrawPile(1))
    g.apply(Lay(1, slot_of(g, 1, "7H", 0), slot_of(g, 1, "7H", 1)))
    assert parse_command("3", g, 1, PLAYERS, [], numbers) == BonusMark(1, 0)
    assert parse_command("m 2", g, 1, PLAYERS, [], numbers) == BonusMark(1, 2)
    assert command_for(g, BonusMark(1, 2), numbers) == "2"


def test_d_is_the_strong_bonus_draw_and_matches_take_a_hash() -> None:
    g = game_with(2, {1: ["7H", "7D", "7C", "2C", "3C", "4C", "5C", "6C", "9C"]})
    g.apply(DrawPile(1))
    assert parse_command("d", g, 1, PLAYERS[:2], []) == DrawPile(1)  # (not its turn to draw)
    g.apply(Lay(1, slot_of(g, 1, "7H"), slot_of(g, 1, "7D")))
    assert "draw a card (d)" in ask_text(g, 1)
    assert parse_command("d", g, 1, PLAYERS[:2], []) == BonusDraw(1)
    assert parse_command("b", g, 1, PLAYERS[:2], []) == BonusDraw(1)
    up = parse_command("u 7c #0", g, 1, PLAYERS[:2], [])
    assert isinstance(up, Upgrade) and up.match_id == 0
    assert parse_command("w #0 3", g, 1, PLAYERS[:2], []) == BonusSwap(1, 0, 3)


def test_r_repeats_the_last_rounds_results() -> None:
    log = ["Round 1: You deal; first discard 4♦.", "Round 1 over: Bo went out.",
           "  Ana: +1 perfect → 6", "  Bo: +2 strong → 9", "Round 2: Bo deals; first …",
           "Bo drew a card"]
    assert last_results(log) == "\n".join(log[1:4])
    assert last_results(log[:1]) == "No round has ended yet."


def test_the_end_summary_writes_suits_as_symbols() -> None:
    rec = {"players": [{"seat": 0, "name": "A"}, {"seat": 1, "name": "B"}],
           "rounds": [{"number": 1, "dealer": 0, "turns": [],
                       "end": {"reason": "out", "seat": 1, "late_lays": [],
                               "hands_left": {"0": ["10H", "QS"], "1": []},
                               "marks": {"0": {"perfect": 0, "strong": 0, "weak": 0,
                                               "negative": 2},
                                         "1": {"perfect": 1, "strong": 0, "weak": 0,
                                               "negative": 0}}}}],
           "totals": {"0": {"perfect": 0, "strong": 0, "weak": 0, "negative": 2, "score": -5},
                      "1": {"perfect": 1, "strong": 0, "weak": 0, "negative": 0, "score": 6}},
           "winners": [1]}
    text = summary(rec)
    assert "left: 10♥ Q♠" in text and "10H" not in text


def _decisions(n: int, seed: int) -> list[tuple[Game, int]]:
    """Every decision of one seeded heuristic game (the whole deck known: any seat)."""
    rng = random.Random(seed)
    g = Game(n)
    bots = [HeuristicBot(seed + i) for i in range(n)]
    out: list[tuple[Game, int]] = []
    for _ in range(g.settings.rounds):
        faces = list(range(104))
        rng.shuffle(faces)
        g.start_round(faces)
        while g.phase not in ("round_over", "game_over"):
            seat = g.actor
            assert seat is not None
            out.append((g.clone(), seat))
            g.apply(bots[seat].choose(g, seat))
    return out


def test_command_for_gives_the_line_that_plays_every_legal_move() -> None:
    """What ``hint`` tells the player to type plays the hinted move (or the same move
    with the other copy of a card, R1.2)."""
    kinds = set()
    for n, seed in ((2, 1), (4, 2), (6, 3)):
        for g, seat in _decisions(n, seed)[::3]:
            legal = g.legal_moves(seat)
            for m in legal:
                line = command_for(g, m)
                parsed = parse_command(line, g, seat, ["A", "B", "C", "D", "E", "F"][:n], [])
                assert type(parsed) is type(m), (line, m)
                g.check(parsed)  # legal: raises IllegalMove otherwise
                assert command_for(g, parsed) == line
                kinds.add(type(m).__name__)
    assert {"DrawPile", "TakeRow", "Lay", "Upgrade", "Discard", "BonusMark", "BonusDraw",
            "SkipBonus"} <= kinds


def test_hint_names_the_strong_bots_move_its_reason_and_the_command() -> None:
    g, seat = _decisions(3, 5)[20]
    text = asyncio.run(hint_text(g, seat, PLAYERS, samples=3))
    assert text.startswith("Hint: ") and "\n" not in text
    line = text.rsplit("— type: ", 1)[1]
    g.check(parse_command(line, g, seat, PLAYERS, []))
    assert asyncio.run(hint_text(g, (seat + 1) % 3, PLAYERS, samples=3)) == (
        "No decision is yours to make now.")
