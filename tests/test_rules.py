"""One test (or more) per rule of docs/RULES.md, named by its number."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest

from splitnet.cards import N_CARDS, card_id, match_kind, name, parse_face
from splitnet.games.split.rules import (
    BonusDraw,
    BonusMark,
    BonusSwap,
    Discard,
    DrawPile,
    EndLateLays,
    Game,
    IllegalMove,
    LateLay,
    Lay,
    Pad,
    Settings,
    SettingsError,
    SkipBonus,
    TakeRow,
    UnknownFace,
    Upgrade,
    action_from_dict,
    action_to_dict,
)
from tests.rules_helpers import faces_for, game_with, hand_names, row_taken, slot_of


def snapshot(g: Game) -> dict[str, Any]:
    return copy.deepcopy(g.__dict__)


def refused(g: Game, action: Any, rule: str) -> IllegalMove:
    before = snapshot(g)
    with pytest.raises(IllegalMove) as info:
        g.apply(action)
    assert info.value.rule == rule, str(info.value)
    assert snapshot(g) == before, "a refused move changed the state"
    return info.value


# ---------------------------------------------------------------- R1, R2 cards and matches
def test_R1_1_deck_has_104_halves_two_of_each_face() -> None:
    names = [name(c) for c in range(N_CARDS)]
    assert len(names) == 104
    assert all(names.count(nm) == 2 for nm in set(names))
    assert len(set(names)) == 52


def test_R1_2_card_id_is_face_times_two_plus_copy() -> None:
    assert card_id("AC", 0) == 0 and card_id("AC", 1) == 1
    assert card_id("KS", 1) == 103
    assert parse_face("10h") == parse_face("10♥") == parse_face("TH")
    with pytest.raises(ValueError, match="not a card"):
        parse_face("11X")


@pytest.mark.parametrize("a,b,kind", [
    ("7H", "7H", "perfect"), ("7H", "7D", "strong"), ("7C", "7S", "strong"),
    ("7H", "7C", "weak"), ("7D", "7S", "weak"), ("7H", "8H", None),
])
def test_R2_match_kinds(a: str, b: str, kind: str | None) -> None:
    assert match_kind(card_id(a, 0), card_id(b, 1)) == kind


# ---------------------------------------------------------------- R3 setup
def test_R3_3_deal_one_at_a_time_from_dealers_left_and_first_discard() -> None:
    g = Game(3)
    g.dealer = 1
    g.start_round(list(range(104)))
    assert [len(h) for h in g.hands] == [9, 9, 9]
    assert g.hands[2][:3] == [0, 3, 6]  # the dealer's left neighbour gets the first card
    assert g.hands[0][0] == 1 and g.hands[1][0] == 2
    assert g.row == [27] and g.pile_count == 104 - 28


def test_R3_4_player_left_of_dealer_starts_and_play_passes_left() -> None:
    g = game_with(3, {1: ["2C"] * 2 + ["3C"] * 2 + ["4C"] * 2 + ["5C"] * 2 + ["6C"]})
    assert g.turn == 1 and g.phase == "draw"
    refused(g, DrawPile(0), "R3.4")
    g.apply(DrawPile(1))
    g.apply(Discard(1, slot_of(g, 1, "6C")))
    assert g.turn == 2


def test_R3_2_a_game_has_three_rounds_and_round_1_dealer_is_seat_0() -> None:
    g = Game(2)
    assert g.dealer == 0 and g.settings.rounds == 3


# ---------------------------------------------------------------- R4 a turn
def test_R4_1a_draw_from_pile_goes_to_hand() -> None:
    g = game_with(2, {}, pile=["QH"])
    g.apply(DrawPile(1))
    assert "QH" in hand_names(g, 1) and g.phase == "play"
    refused(g, DrawPile(1), "R4.3")  # only one draw


def test_R4_1b_take_row_card_and_everything_after_it() -> None:
    g = row_taken()  # 9D (playable with 9H), plus JC and 10S after it
    assert {"9D", "JC", "10S"} <= set(hand_names(g, 1))
    assert g.row == []
    assert g.phase == "must_play"


def test_R4_1b_pick_must_be_playable_counting_cards_taken_along() -> None:
    g = game_with(2, {1: ["2C", "3C", "4C", "5C", "6C", "7C", "8C", "JC", "AH"],
                      0: ["AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "QS"]},
                  first="9D", pile=["KD", "KH"])
    e = refused(g, TakeRow(1, 0), "R4.1b")  # nothing in hand plays with 9D
    assert "take a row card" in e.reason
    g.apply(DrawPile(1))
    g.apply(Discard(1, slot_of(g, 1, "JC")))
    g.apply(DrawPile(0))
    g.apply(Discard(0, slot_of(g, 0, "QS")))
    # Row: 9D JC QS. Seat 1 holds no J; taking JC brings QS along, but QS cannot
    # make JC playable — refused. Taking 9D brings JC and QS: still no 9 → refused.
    refused(g, TakeRow(1, 1), "R4.1b")
    refused(g, TakeRow(1, 0), "R4.1b")


def test_R4_1b_first_play_after_taking_must_use_the_picked_card() -> None:
    g = game_with(2, {1: ["9H", "5C", "5S", "4C", "6C", "7C", "8C", "JC", "AH"]},
                  first="9D", pile=["KD"])
    g.apply(TakeRow(1, 0))
    refused(g, Lay(1, slot_of(g, 1, "5C"), slot_of(g, 1, "5S")), "R4.1b")
    refused(g, Discard(1, slot_of(g, 1, "JC")), "R4.1b")
    g.apply(Lay(1, slot_of(g, 1, "9H"), slot_of(g, 1, "9D")))
    assert g.matches[0].kind == "strong"


def test_R4_2_drawing_the_last_card_ends_the_round_at_once() -> None:
    g = game_with(2, {})
    g.pile_next = 103  # one card left
    g.apply(DrawPile(1))
    assert g.phase == "round_over"
    assert g.last_end is not None and g.last_end.reason == "pile_empty"
    assert len(g.hands[1]) == 10  # the drawn card stays in the hand


def test_R4_2_a_strong_bonus_draw_of_the_last_card_ends_the_round() -> None:
    g = game_with(2, {1: ["7H", "7D", "2C", "3C", "4C", "5C", "6C", "8C", "9C"]})
    g.pile_next = 102
    g.apply(DrawPile(1))
    g.apply(Lay(1, slot_of(g, 1, "7H"), slot_of(g, 1, "7D")))
    assert g.phase == "bonus" and g.pending_bonus == "strong"
    g.apply(BonusDraw(1))
    assert g.phase == "round_over" and g.last_end is not None
    assert g.last_end.reason == "pile_empty"


def test_R4_3a_lay_a_match_and_R2_1_different_ranks_never_match() -> None:
    g = game_with(2, {1: ["7H", "7C", "8H", "3C", "4C", "5C", "6C", "9C", "10C"]})
    g.apply(DrawPile(1))
    refused(g, Lay(1, slot_of(g, 1, "7H"), slot_of(g, 1, "8H")), "R2.1")
    refused(g, Lay(1, slot_of(g, 1, "7H"), slot_of(g, 1, "7H")), "R4.3a")
    g.apply(Lay(1, slot_of(g, 1, "7H"), slot_of(g, 1, "7C")))
    assert g.matches[0].kind == "weak" and g.matches[0].owner == 1


def test_R4_3a_cannot_lay_cards_not_in_hand() -> None:
    g = game_with(2, {0: ["7H", "7C"]})
    g.apply(DrawPile(1))
    refused(g, Lay(1, slot_of(g, 0, "7H"), slot_of(g, 0, "7C")), "R4.3")


def _weak_on_table(upgrade_takes_match: bool = True) -> Game:
    s = Settings(upgrade_takes_match=upgrade_takes_match)
    g = game_with(2, {1: ["7H", "7C", "2C", "3C", "4C", "5C", "6C", "8C", "9C"],
                      0: ["7D", "7S", "2D", "3D", "4D", "5D", "6D", "8D", "7H"]},
                  settings=s)
    g.apply(DrawPile(1))
    g.apply(Lay(1, slot_of(g, 1, "7H"), slot_of(g, 1, "7C")))  # weak → no swap possible
    g.apply(Discard(1, slot_of(g, 1, "9C")))
    g.apply(DrawPile(0))
    return g


def test_R4_3b_upgrade_an_opponents_match_takes_it() -> None:
    g = _weak_on_table()
    m = g.matches[0]
    # 7D on 7C: 7H 7D = strong (covering the black half).
    covers = m.top.index(slot_of(g, 1, "7C") if False else m.top[1])
    g.apply(Upgrade(0, slot_of(g, 0, "7D"), 0, covers))
    assert m.kind == "strong" and m.owner == 0
    assert len(m.under) == 1


def test_R4_3b_upgrade_must_be_strictly_stronger() -> None:
    g = _weak_on_table()
    # 7S on 7H (covers half 0) leaves 7S 7C: strong — fine; 7S on 7C leaves 7H 7S: weak.
    refused(g, Upgrade(0, slot_of(g, 0, "7S"), 0, 1), "R4.3b")
    refused(g, Upgrade(0, slot_of(g, 0, "8D"), 0, 0), "R2.1")
    refused(g, Upgrade(0, slot_of(g, 0, "7D"), 5, 0), "R4.3b")


def test_R4_3b_weak_to_perfect_and_setting_keeps_owner() -> None:
    g = _weak_on_table(upgrade_takes_match=False)
    g.apply(Upgrade(0, slot_of(g, 0, "7H"), 0, 1))  # 7H on 7C → 7H 7H perfect
    assert g.matches[0].kind == "perfect" and g.matches[0].owner == 1
    assert g.phase == "bonus" and g.pending_bonus == "perfect"


def test_R4_3c_a_play_may_never_leave_the_hand_empty() -> None:
    g = game_with(2, {1: ["7H", "7D", "2C", "3C", "4C", "5C", "6C", "8C", "9C"]})
    g.hands[1] = [slot_of(g, 1, "7H"), slot_of(g, 1, "7D")]
    g.turns_started[1] = 2
    g.phase = "play"
    refused(g, Lay(1, g.hands[1][0], g.hands[1][1]), "R4.3c")


def test_R4_4_discard_goes_on_the_end_of_the_row_and_ends_the_turn() -> None:
    g = game_with(2, {1: ["QH"]})
    g.apply(DrawPile(1))
    g.apply(Discard(1, slot_of(g, 1, "QH")))
    assert name(g.faces[g.row[-1]] or 0) == "QH" and len(g.row) == 2
    assert g.turn == 0 and g.phase == "draw"


def test_R4_5_emptying_the_hand_by_discard_goes_out() -> None:
    g = game_with(2, {})
    g.turns_started[1] = 2  # not the first turn
    g.apply(DrawPile(1))
    g.hands[1] = g.hands[1][-1:]
    g.apply(Discard(1, g.hands[1][0]))
    assert g.last_end is not None and g.last_end.reason == "out"
    assert g.phase == "round_over"


# ---------------------------------------------------------------- R5 bonuses
def test_R5_1_perfect_bonus_names_another_player_who_marks_a_negative_box() -> None:
    g = game_with(3, {1: ["7H", "7H", "2C", "3C", "4C", "5C", "6C", "8C", "9C"]})
    g.apply(DrawPile(1))
    g.apply(Lay(1, slot_of(g, 1, "7H", 0), slot_of(g, 1, "7H", 1)))
    refused(g, SkipBonus(1), "R5.4")
    refused(g, BonusMark(1, 1), "R5.1")
    refused(g, Discard(1, slot_of(g, 1, "9C")), "R5")
    g.apply(BonusMark(1, 2))
    assert g.round_marks[2]["negative"] == 1 and g.phase == "play"


def test_R5_2_strong_bonus_draw_is_optional() -> None:
    g = game_with(2, {1: ["7H", "7D", "2C", "3C", "4C", "5C", "6C", "8C", "9C"]})
    g.apply(DrawPile(1))
    g.apply(Lay(1, slot_of(g, 1, "7H"), slot_of(g, 1, "7D")))
    n = len(g.hands[1])
    g.apply(SkipBonus(1))
    assert len(g.hands[1]) == n and g.phase == "play"


def test_R5_3_weak_bonus_swaps_same_type_matches_and_may_give_the_new_one() -> None:
    g = game_with(2, {1: ["7H", "7C", "8H", "8C", "4C", "5C", "6C", "9C", "10C"],
                      0: ["2H", "2C", "3D", "3S", "4D", "5D", "6D", "9D", "10D"]})
    g.apply(DrawPile(1))
    g.apply(Lay(1, slot_of(g, 1, "7H"), slot_of(g, 1, "7C")))
    g.apply(Discard(1, slot_of(g, 1, "10C")))
    g.apply(DrawPile(0))
    g.apply(Lay(0, slot_of(g, 0, "2H"), slot_of(g, 0, "2C")))  # weak: swap possible
    assert g.phase == "bonus" and g.pending_bonus == "weak"
    refused(g, BonusSwap(0, 0, 1), "R5.3")  # match 0 is not seat 0's
    g.apply(BonusSwap(0, 1, 0))  # give the match just laid (R5.3 decision)
    assert g.matches[0].owner == 0 and g.matches[1].owner == 1


def test_R5_3_swap_must_be_of_one_type() -> None:
    g = game_with(2, {1: ["7H", "7D", "8H", "8C", "4C", "5C", "6C", "9C", "10C"],
                      0: ["2H", "2C", "3D", "3S", "4D", "5D", "6D", "9D", "10D"]})
    g.apply(DrawPile(1))
    g.apply(Lay(1, slot_of(g, 1, "7H"), slot_of(g, 1, "7D")))  # strong
    g.apply(SkipBonus(1))
    g.apply(Lay(1, slot_of(g, 1, "8H"), slot_of(g, 1, "8C")))  # weak; a weak of 0 needed
    assert g.phase == "play"  # R5.4: no same-type match elsewhere → skipped
    g.apply(Discard(1, slot_of(g, 1, "10C")))
    g.apply(DrawPile(0))
    g.apply(Lay(0, slot_of(g, 0, "3D"), slot_of(g, 0, "3S")))  # weak
    refused(g, BonusSwap(0, 2, 0), "R5.3")  # weak for strong: refused
    g.apply(BonusSwap(0, 2, 1))


# ---------------------------------------------------------------- R6 end of a round
def test_R4_3c_the_last_lay_that_would_empty_the_hand_is_refused() -> None:
    settings = Settings(hand_size=3)
    g = game_with(3, {1: ["7H", "7D", "QS"], 2: ["5H", "5H", "KC"], 0: ["4C", "4D", "JH"]},
                  first="QH", pile=["2C"], settings=settings)
    g.apply(TakeRow(1, 0))  # QH with QS
    g.apply(Lay(1, slot_of(g, 1, "QS"), slot_of(g, 1, "QH")))
    refused(g, Lay(1, slot_of(g, 1, "7H"), slot_of(g, 1, "7D")), "R4.3c")


def test_R6_2_late_lays_then_scoring() -> None:
    settings = Settings(hand_size=4)
    g = game_with(3, {1: ["7H", "7D", "QS", "2C"], 2: ["5H", "5H", "KC", "KS"],
                      0: ["4C", "4D", "JH", "3C"]},
                  first="QH", pile=["2C"], settings=settings)
    g.apply(TakeRow(1, 0))
    g.apply(Lay(1, slot_of(g, 1, "QS"), slot_of(g, 1, "QH")))
    g.apply(Lay(1, slot_of(g, 1, "7H"), slot_of(g, 1, "7D")))
    g.apply(SkipBonus(1))
    g.apply(Discard(1, slot_of(g, 1, "2C")))  # out on the first turn
    assert g.phase == "late_lays" and g.late_queue == [2, 0]
    refused(g, LateLay(0, slot_of(g, 0, "4C"), slot_of(g, 0, "4D")), "R3.4")
    g.apply(LateLay(2, slot_of(g, 2, "5H", 0), slot_of(g, 2, "5H", 1)))
    g.apply(LateLay(2, slot_of(g, 2, "KC"), slot_of(g, 2, "KS")))  # may empty the hand
    g.apply(EndLateLays(2))
    g.apply(LateLay(0, slot_of(g, 0, "4C"), slot_of(g, 0, "4D")))
    g.apply(EndLateLays(0))
    assert g.phase == "round_over"
    end = g.last_end
    assert end is not None and [ll["seat"] for ll in end.late_lays] == [2, 2, 0]
    assert g.marks[2] == {"perfect": 1, "strong": 1, "weak": 0, "negative": 0}
    assert g.marks[0] == {"perfect": 0, "strong": 0, "weak": 1, "negative": 2}
    assert g.marks[1] == {"perfect": 0, "strong": 1, "weak": 1, "negative": 0}


def test_R6_2_no_late_lays_when_going_out_on_a_later_turn() -> None:
    g = game_with(2, {})
    g.turns_started = [1, 2]
    g.apply(DrawPile(1))
    g.hands[1] = g.hands[1][-1:]
    g.apply(Discard(1, g.hands[1][0]))
    assert g.phase == "round_over"


def test_R6_3_scoring_a_box_per_match_and_a_negative_per_card_left() -> None:
    g = game_with(2, {1: ["7H", "7D", "2C", "3C", "4C", "5C", "6C", "8C", "9C"]})
    g.apply(DrawPile(1))
    g.apply(Lay(1, slot_of(g, 1, "7H"), slot_of(g, 1, "7D")))
    g.apply(SkipBonus(1))
    g.pile_next = 103
    g.apply(Discard(1, slot_of(g, 1, "9C")))
    g.apply(DrawPile(0))  # last card: round over
    assert g.marks[1] == {"perfect": 0, "strong": 1, "weak": 0, "negative": 7}
    assert g.marks[0] == {"perfect": 0, "strong": 0, "weak": 0, "negative": 10}


def test_R6_4_dealer_rotation() -> None:
    g = game_with(2, {})
    g.pile_next = 103
    g.apply(DrawPile(1))  # pile exhausted: the deal passes left
    assert g.dealer == 1
    g.start_round(list(range(104)))
    g.turns_started = [2, 2]
    g.apply(DrawPile(0))
    g.hands[0] = g.hands[0][-1:]
    g.apply(Discard(0, g.hands[0][0]))  # seat 0 goes out: seat 0 deals next
    assert g.dealer == 0


# ---------------------------------------------------------------- R7 the pad
def test_R7_2_row_worth_first_open_box_and_full_rows_cap() -> None:
    pad = Pad()
    assert pad.value("perfect", 0) == 0 and pad.value("perfect", 1) == 6
    assert pad.value("negative", 24) == 324 and pad.value("negative", 40) == 324


def test_R7_3_total_and_tie_break_by_fewer_negatives() -> None:
    g = Game(3)
    g.marks = [{"perfect": 1, "strong": 0, "weak": 0, "negative": 0},
               {"perfect": 1, "strong": 1, "weak": 0, "negative": 2},
               {"perfect": 0, "strong": 0, "weak": 0, "negative": 0}]
    assert [g.score(s) for s in range(3)] == [6, 6 + 4 - 5, 0]  # 2 negatives: 5
    g.marks[1]["strong"] = 0
    g.marks[1]["negative"] = 0
    assert g.winners() == [0, 1]  # same total, same negatives: shared


def test_R7_4_the_default_pad_and_custom_pad_files(tmp_path: Any) -> None:
    assert Settings().pad.row("strong")[:4] == (0, 4, 9, 15)
    from splitnet.localfiles import LocalFileError, load_settings

    f = tmp_path / "s.json"
    f.write_text('{"rounds": 2, "pad": {"weak": [0, 1, 2]}}')
    s = load_settings(f)
    assert s.rounds == 2 and s.pad.value("weak", 5) == 2
    (tmp_path / "pad.json").write_text('{"strong": [0, 3, 7]}')  # a local file may name one
    f.write_text('{"pad": "pad.json"}')
    assert load_settings(f).pad.row("strong") == (0, 3, 7)
    f.write_text('{"pad": {"weak": [1, 2]}}')
    with pytest.raises(LocalFileError, match="first box shows 0"):
        load_settings(f)
    f.write_text('{"colour": 1}')
    with pytest.raises(LocalFileError, match="unknown key"):
        load_settings(f)
    # settings received from others are complete and inline: nothing is filled in
    full = Settings().to_dict()
    assert Settings.from_dict(full) == Settings()
    for key in full:
        with pytest.raises(SettingsError, match=f"missing {key}"):
            Settings.from_dict({k: v for k, v in full.items() if k != key})
    with pytest.raises(SettingsError, match="missing weak"):
        Settings.from_dict({**full, "pad": {r: v for r, v in full["pad"].items() if r != "weak"}})
    with pytest.raises(SettingsError, match="inline"):
        Settings.from_dict({**full, "pad": "pad.json"})


def test_R3_1_two_to_six_players() -> None:
    with pytest.raises(SettingsError):
        Game(1)
    with pytest.raises(SettingsError):
        Game(7)


# ---------------------------------------------------------------- R8 knowledge
def test_R8_a_view_cannot_play_cards_it_cannot_see() -> None:
    g = Game(2)
    faces: list[int | None] = [None] * 104
    faces[18] = card_id("KS")
    g.start_round(faces)
    g.apply(DrawPile(1))
    with pytest.raises(UnknownFace):
        g.apply(Discard(1, g.hands[1][0]))
    assert g.legal_moves(1) == []


def test_wire_form_of_moves_round_trips_and_is_strict() -> None:
    for a in (DrawPile(1), TakeRow(2, 3), Lay(0, 4, 5), Upgrade(1, 2, 3, 1), Discard(0, 9),
              BonusMark(0, 1), BonusDraw(1), BonusSwap(0, 1, 2), SkipBonus(3),
              LateLay(1, 2, 3), EndLateLays(2)):
        assert action_from_dict(action_to_dict(a)) == a
    with pytest.raises(ValueError, match="unknown move"):
        action_from_dict({"type": "cheat", "seat": 0})
    with pytest.raises(ValueError, match=r"move\.slot"):
        action_from_dict({"type": "discard", "seat": 0, "slot": -1})
    with pytest.raises(ValueError, match="unexpected"):
        action_from_dict({"type": "draw_pile", "seat": 0, "x": 1})


# ---------------------------------------------------------------- details docs/RULES.md fixes
def test_R4_3b_the_new_half_takes_the_covered_halfs_place() -> None:
    """docs/RULES.md R4.3b [program], GAME.md "Upgrade covers": [h0, h1] → [new, h1] or
    [h0, new]; the match keeps its id and the covered half goes under it."""
    for covers, new, kept in ((1, "7D", "7H"), (0, "7S", "7C")):
        g = _weak_on_table()
        h0, h1 = g.matches[0].top
        assert [name(g.face(h0)), name(g.face(h1))] == ["7H", "7C"]  # the lay's a, b
        slot = slot_of(g, 0, new)
        g.apply(Upgrade(0, slot, 0, covers))
        m = g.matches[0]
        assert m.top == ([slot, h1] if covers == 0 else [h0, slot])
        assert m.under == [h0 if covers == 0 else h1] and m.id == 0
        assert name(g.face(m.top[1 - covers])) == kept and m.kind == "strong"


def test_R5_5_a_pending_bonus_comes_before_any_other_move() -> None:
    g = game_with(2, {1: ["7H", "7D", "8H", "8H", "4C", "5C", "6C", "9C", "10C"]})
    g.apply(DrawPile(1))
    g.apply(Lay(1, slot_of(g, 1, "7H"), slot_of(g, 1, "7D")))  # strong: draw or skip
    assert set(g.legal_moves(1)) == {SkipBonus(1), BonusDraw(1)}
    refused(g, Lay(1, slot_of(g, 1, "8H", 0), slot_of(g, 1, "8H", 1)), "R5")
    refused(g, Discard(1, slot_of(g, 1, "9C")), "R5")
    refused(g, BonusMark(1, 0), "R5")
    refused(g, DrawPile(0), "R3.4")
    g.apply(SkipBonus(1))
    g.apply(Lay(1, slot_of(g, 1, "8H", 0), slot_of(g, 1, "8H", 1)))  # perfect: must mark
    assert g.legal_moves(1) == [BonusMark(1, 0)]
    refused(g, SkipBonus(1), "R5.4")
    refused(g, BonusDraw(1), "R5")
    g.apply(BonusMark(1, 0))
    assert g.phase == "play" and g.pending_bonus is None


def test_R5_5_the_weak_swap_exchanges_matches_of_any_one_type() -> None:
    """The weak bonus may swap perfect for perfect (or strong for strong), not only weak
    for weak; it is pending because such a pair exists, though no other weak match does."""
    g = game_with(2, {1: ["7H", "7H", "2C", "3C", "4C", "5C", "6C", "8C", "10C"],
                      0: ["8D", "8D", "9D", "9C", "4D", "5D", "6D", "2D", "3D"]})
    g.apply(DrawPile(1))
    g.apply(Lay(1, slot_of(g, 1, "7H", 0), slot_of(g, 1, "7H", 1)))  # match 0, perfect
    g.apply(BonusMark(1, 0))
    g.apply(Discard(1, slot_of(g, 1, "10C")))
    g.apply(DrawPile(0))
    g.apply(Lay(0, slot_of(g, 0, "8D", 0), slot_of(g, 0, "8D", 1)))  # match 1, perfect
    g.apply(BonusMark(0, 1))
    g.apply(Lay(0, slot_of(g, 0, "9D"), slot_of(g, 0, "9C")))  # match 2, weak
    assert g.phase == "bonus" and g.pending_bonus == "weak"
    assert set(g.legal_moves(0)) == {SkipBonus(0), BonusSwap(0, 1, 0)}
    refused(g, BonusSwap(0, 2, 0), "R5.3")  # weak for perfect
    g.apply(BonusSwap(0, 1, 0))
    assert (g.matches[0].owner, g.matches[1].owner, g.matches[2].owner) == (0, 1, 0)


def test_R5_4_a_weak_bonus_without_a_possible_swap_is_skipped_without_a_message() -> None:
    g = game_with(2, {1: ["7H", "7C", "2C", "3C", "4C", "5C", "6C", "8C", "9C"]})
    g.apply(DrawPile(1))
    g.apply(Lay(1, slot_of(g, 1, "7H"), slot_of(g, 1, "7C")))  # nobody else has a match
    assert g.phase == "play" and g.pending_bonus is None
    refused(g, SkipBonus(1), "R4.3")


def test_R6_2_late_lays_go_left_from_who_went_out_and_skip_who_had_a_turn() -> None:
    """4 players, dealer 0: seat 1 plays, then seat 2 goes out on its first turn. Seats 3
    and 0 (the dealer) have had no turn: they lay late in that order; seat 1 is skipped,
    and each of them ends with its own end_late_lays."""
    g = game_with(4, {1: ["2H", "3H", "4H", "6H"], 2: ["5H", "5H", "KC", "KS"],
                      3: ["QC", "QD", "JC", "JD"], 0: ["AC", "AS", "9C", "9D"]},
                  first="10S", pile=["2C", "3C"], settings=Settings(hand_size=4))
    g.apply(DrawPile(1))
    g.apply(Discard(1, slot_of(g, 1, "2H")))
    g.apply(DrawPile(2))
    g.apply(Lay(2, slot_of(g, 2, "5H", 0), slot_of(g, 2, "5H", 1)))
    g.apply(BonusMark(2, 1))
    g.apply(Lay(2, slot_of(g, 2, "KC"), slot_of(g, 2, "KS")))
    g.apply(SkipBonus(2))
    g.apply(Discard(2, slot_of(g, 2, "3C")))  # out, on its first turn
    assert g.phase == "late_lays" and g.late_queue == [3, 0] and g.actor == 3
    refused(g, EndLateLays(0), "R3.4")
    refused(g, LateLay(1, slot_of(g, 1, "3H"), slot_of(g, 1, "4H")), "R3.4")
    assert set(g.legal_moves(3)) >= {EndLateLays(3)}
    g.apply(LateLay(3, slot_of(g, 3, "QC"), slot_of(g, 3, "QD")))
    g.apply(LateLay(3, slot_of(g, 3, "JC"), slot_of(g, 3, "JD")))  # may empty the hand
    assert g.actor == 3  # still its turn until it says it is done
    g.apply(EndLateLays(3))
    assert g.actor == 0
    g.apply(EndLateLays(0))  # lays nothing, but must say so
    assert g.phase == "round_over" and [m.id for m in g.matches] == [0, 1, 2, 3]
    end = g.last_end
    assert end is not None and [ll["match_id"] for ll in end.late_lays] == [2, 3]


def test_R7_3_the_tie_break_counts_boxes_and_a_full_row_takes_no_more() -> None:
    """R7.2: further marks in a full row are ignored, so they break no tie (R7.3)."""
    g = Game(3, Settings(pad=Pad(negative=(0, 5))))  # one negative box
    g.marks = [{"perfect": 0, "strong": 0, "weak": 0, "negative": 1},
               {"perfect": 0, "strong": 0, "weak": 0, "negative": 3},
               {"perfect": 0, "strong": 0, "weak": 0, "negative": 0}]
    assert [g.score(s) for s in range(3)] == [-5, -5, 0] and g.winners() == [2]
    g.marks[2]["negative"] = 1
    assert [g.score(s) for s in range(3)] == [-5, -5, -5]
    assert g.winners() == [0, 1, 2]  # one box each: shared, though seat 1 has 3 marks


def test_R4_1b_a_view_that_cannot_see_the_hand_holds_the_mover_to_the_pick() -> None:
    """GAME.md "A pick others cannot check": seat 0's view does not know seat 1's hand,
    so it accepts a pick seat 1 could not play, then accepts only a play that uses it."""
    full = faces_for(2, {1: ["2C", "3C", "4C", "5C", "6C", "8C", "9C", "10C", "JC"]}, "KS")
    full_game = Game(2)
    full_game.start_round(full)
    refused(full_game, TakeRow(1, 0), "R4.1b")  # the mover's own engine refuses it
    view = [f if (j >= 18 or j % 2 == 1) else None for j, f in enumerate(full)]
    g = Game(2)
    g.start_round(view)  # seat 0 holds the odd slots (dealt first to seat 1: even slots)
    assert all(g.faces[s] is None for s in g.hands[1])
    g.apply(TakeRow(1, 0))
    assert g.phase == "must_play" and g.picked == 18
    refused(g, Discard(1, 18), "R4.1b")
    refused(g, Lay(1, g.hands[1][0], g.hands[1][1]), "R8")
    g.reveal(0, full[0])  # a play reveals its cards: 2C with the picked KS
    refused(g, Lay(1, 0, 18), "R2.1")


def test_R3_R6_the_rounds_phases_are_named_states_moved_by_one_table(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine's phases are an Enum; over whole games (and R6.2's late lays) every
    change of phase is one the transition table allows, every phase is reached, and a
    change outside it is refused (an engine bug, never a player's move)."""
    from splitnet.games.split.bots import make_bot
    from splitnet.games.split.rules.engine import TRANSITIONS, Phase

    seen: set[tuple[Phase, Phase]] = set()
    go = Game._go

    def watched(self: Game, to: Phase) -> None:
        seen.add((Phase(self.phase), to))
        go(self, to)

    monkeypatch.setattr(Game, "_go", watched)
    for seed in range(12):
        g = Game(2 + seed % 5)
        bots = [make_bot("random" if seed % 2 else "normal", seed * 10 + i) for i in range(g.n)]
        rng = random.Random(seed)
        while g.phase != Phase.GAME_OVER:
            faces = list(range(104))
            rng.shuffle(faces)
            g.start_round(faces)
            while g.phase not in (Phase.ROUND_OVER, Phase.GAME_OVER):
                seat = g.actor
                assert seat is not None
                g.apply(bots[seat].choose(g, seat))
                assert isinstance(g.phase, Phase)
    test_R6_2_late_lays_then_scoring()
    assert all(b in TRANSITIONS[a] for a, b in seen)
    assert {b for _, b in seen} == set(Phase)  # every phase is reached …
    assert {a for a, _ in seen} == set(Phase) - {Phase.GAME_OVER}  # … and left but the last
    monkeypatch.undo()
    g = Game(2)
    with pytest.raises(RuntimeError, match="from round_over to bonus"):
        g._go(Phase.BONUS)
    assert g.phase is Phase.ROUND_OVER
