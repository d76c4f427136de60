"""One test (or more) per rule of docs/SPLITO.md, named by its number."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from splitnet.games.splito.cards import N_CARDS, NUMBER_CARDS, card_order, number_face
from splitnet.games.splito.engine import (
    TRANSITIONS,
    Game,
    IllegalMove,
    Phase,
    Play,
    UnknownFace,
    commitment,
    full_deck,
    zone_of,
    zone_seats,
)
from splitnet.games.splito.settings import KEYS, RECORD_KEYS, SettingsError, SplitoSettings
from tests.splito_helpers import GAME_ID, deck_for, new_game, nonce, play, snapshot


def refused(g: Game, call: Callable[[], Any], rule: str, match: str = "") -> IllegalMove:
    before = snapshot(g)
    with pytest.raises(IllegalMove, match=match) as info:
        call()
    assert info.value.rule == rule, str(info.value)
    assert snapshot(g) == before, "a refused move changed the state"
    return info.value


def commit_for(g: Game, seat: int, card: str, side: str) -> str:
    return commitment(g.game_id, g.turn, seat, card, side, nonce(g.turn, seat))


# ---------------------------------------------------------------- S1 cards
def test_S1_1_109_cards_72_numbers_37_objectives() -> None:
    deck = full_deck(SplitoSettings.standard(4))
    assert len(deck) == len(set(deck)) == N_CARDS == 109
    assert sum(1 for c in deck if c.startswith("OBJ")) == 37


def test_S1_2_values_1_to_6_in_6_colours_two_copies() -> None:
    faces = [number_face(c) for c in NUMBER_CARDS]
    assert len(faces) == 72 and all(faces.count(f) == 2 for f in set(faces))
    assert {c for _, c in faces} == set("ROYGBP") and {v for v, _ in faces} == set(range(1, 7))


def test_S1_3_card_ids_are_colour_value_copy() -> None:
    assert NUMBER_CARDS[:3] == ("R1a", "R1b", "R2a") and NUMBER_CARDS[-1] == "P6b"
    assert number_face("R1a") == number_face("R1b")
    with pytest.raises(ValueError, match="not a number card"):
        number_face("OBJ01")


# ---------------------------------------------------------------- S2, S3 seats and zones
def test_S2_2_left_is_the_next_seat_and_S3_1_zones_lie_between_neighbours() -> None:
    for n in range(3, 9):
        for s in range(n):
            assert zone_of(n, s, "left") == s and zone_of(n, s, "right") == (s - 1) % n
            assert s in zone_seats(n, zone_of(n, s, "left"))
            assert s in zone_seats(n, zone_of(n, s, "right"))
        assert zone_seats(n, n - 1) == [n - 1, 0]


def test_S3_2_every_zone_is_shared_by_two_neighbours_with_3_players_every_pair() -> None:
    pairs = {frozenset(zone_seats(3, z)) for z in range(3)}
    assert pairs == {frozenset({0, 1}), frozenset({1, 2}), frozenset({0, 2})}


# ---------------------------------------------------------------- S4 set-up
@pytest.mark.parametrize(("n", "dealt", "aside"), [
    (2, 52, 55), (3, 39, 68), (4, 52, 55), (5, 65, 42), (6, 78, 29), (7, 91, 16), (8, 104, 3)])
def test_S4_3_deal_table(n: int, dealt: int, aside: int) -> None:
    g = new_game(n)
    assert sum(len(h) for h in g.hands) == dealt
    assert len(g.set_aside_slots()) == aside  # S4.4
    assert all(len(h) == g.settings.hand_size for h in g.hands)


def test_S4_3_the_kth_card_goes_to_seat_dealer_plus_1_plus_k() -> None:
    g = new_game(4, dealer=2)
    assert g.hands[3][:3] == [0, 4, 8] and g.hands[2][:2] == [3, 7]


def test_S4_2_central_objectives_are_objective_cards_outside_the_deck() -> None:
    s = SplitoSettings.standard(3)
    g = Game(s, GAME_ID)
    deck = deck_for(s, {}, ("OBJ05", "OBJ06"))
    refused(g, lambda: g.deal(["R1a", "OBJ06"], deck), "S4.2", "not an objective")
    refused(g, lambda: g.deal(["OBJ05"], deck), "S4.2", "expected 2")
    refused(g, lambda: g.deal(["OBJ05", "OBJ05"], deck), "S4.2", "twice")
    with pytest.raises(ValueError, match="central objective"):
        g.deal(["OBJ05", "OBJ06"], [*deck[:-1], "OBJ05"])
    g.deal(["OBJ05", "OBJ06"], deck)
    assert g.central == ("OBJ05", "OBJ06") and len(g.faces) == 107
    refused(g, lambda: g.deal(["OBJ05", "OBJ06"], deck), "S4", "already")


def test_S4_2_central_objectives_setting_0_to_4() -> None:
    for c in range(5):
        g = new_game(8, central=[f"OBJ0{i + 1}" for i in range(c)])
        assert len(g.faces) == 109 - c and len(g.set_aside_slots()) == 109 - c - 104
    with pytest.raises(SettingsError, match="central_objectives"):
        SplitoSettings.standard(4, central_objectives=5)


def test_S4_4_a_hand_may_hold_only_objective_cards() -> None:
    objs = [f"OBJ{i:02}" for i in range(3, 16)]
    g = new_game(3, {0: objs})
    assert sorted(g.face(s) for s in g.hands[0]) == objs


# ---------------------------------------------------------------- S5 a turn
def test_S5_1_turns_equal_the_hand_size_and_the_hands_end_empty() -> None:
    for n in (2, 3, 8):
        g = new_game(n)
        for _ in range(g.settings.turns):
            assert not g.over
            play(g, {})
        assert g.over and all(not h for h in g.hands)
        assert sum(len(z) for z in g.zones) == n * g.settings.hand_size


def test_S5_2_any_card_of_the_hand_either_side_and_nothing_else() -> None:
    g = new_game(3, {0: ["R1a", "OBJ07"], 1: ["B2a"]})
    legal = g.legal_plays(0)
    assert len(legal) == 26 and {p.side for p in legal} == {"left", "right"}
    assert {p.slot for p in legal} == set(g.hands[0])
    other = g.slot_of("B2a")
    assert other is not None
    refused(g, lambda: g.check_play(Play(0, other, "left")), "S5.2", "not a card of the hand")
    refused(g, lambda: g.check_play(Play(0, g.hands[0][0], "up")), "S5.2",  # type: ignore[arg-type]
            "left or right")


def test_S5_2_a_commitment_is_final() -> None:
    g = new_game(3, {0: ["R1a"]})
    g.commit(0, commit_for(g, 0, "R1a", "left"))
    refused(g, lambda: g.commit(0, commit_for(g, 0, "R1a", "right")), "S5.2", "final")
    assert g.legal_plays(0) == []
    slot = g.slot_of("R1a")
    assert slot is not None
    refused(g, lambda: g.check_play(Play(0, slot, "right")), "S5.2", "final")


def test_S5_3_plays_are_applied_together_when_the_last_reveal_is_in() -> None:
    g = new_game(3, {0: ["R1a"], 1: ["B2a"], 2: ["OBJ09"]})
    cards = {0: ("R1a", "left"), 1: ("B2a", "right"), 2: ("OBJ09", "left")}
    for s, (c, side) in cards.items():
        g.commit(s, commit_for(g, s, c, side))
    assert g.phase is Phase.REVEAL
    for s in (2, 0):
        c, side = cards[s]
        g.reveal(s, g.slot_of(c) or 0, side, nonce(1, s))  # type: ignore[arg-type]
        assert all(not z for z in g.zones), "a play landed before every reveal was in"
    g.reveal(1, g.slot_of("B2a") or 0, "right", nonce(1, 1))
    assert [g.zone_cards(z) for z in range(3)] == [["R1a", "B2a"], [], ["OBJ09"]]
    assert g.turn == 2 and g.phase is Phase.COMMIT


def test_S5_4_the_rest_of_each_hand_passes_left() -> None:
    g = new_game(4)
    before = [list(h) for h in g.hands]
    played = {s: before[s][0] for s in range(4)}
    play(g, {})
    for s in range(4):
        assert g.hands[(s + 1) % 4] == [x for x in before[s] if x != played[s]]


def test_S5_6_timeout_plays_the_first_card_in_id_order_to_the_left() -> None:
    g = new_game(3, {0: ["OBJ03", "P6b", "R2b", "G1a"]})
    p = g.timeout_play(0)
    hand_cards = sorted((g.face(s) for s in g.hands[0]), key=card_order)
    assert g.face(p.slot) == hand_cards[0] and p.side == "left"
    assert card_order("R6b") < card_order("O1a") < card_order("OBJ01")


# ---------------------------------------------------------------- S6 zones
def test_S6_1_cards_never_leave_a_zone() -> None:
    g = new_game(3)
    seen: list[list[int]] = [[] for _ in range(3)]
    for _ in range(13):
        play(g, {})
        for z in range(3):
            assert g.zones[z][:len(seen[z])] == seen[z]
            seen[z] = list(g.zones[z])


def test_S6_2_a_breakable_objective_that_breaks_later_does_not_score() -> None:
    # OBJ15: at least six cards and no six. The zone fulfils it, then a six arrives.
    g = new_game(3, central=())
    g.zones[0] = [g.slot_of(c) or 0 for c in ("OBJ15", "R1a", "R2a", "R3a", "R4a", "R5a",
                                              "O1a")]
    assert g.zone_results(0) == [g.zone_results(0)[0]] and g.zone_results(0)[0].points == 3
    g.zones[0].append(g.slot_of("P6a") or 0)
    res = g.zone_results(0)[0]
    assert (res.objective, res.fulfilled, res.points) == ("OBJ15", False, 0)


# ---------------------------------------------------------------- S7 knowledge, commit-reveal
def test_S7_2_a_seat_knows_the_hands_it_holds_and_has_held() -> None:
    g = new_game(4)
    first = set(g.hands[0])
    play(g, {})
    assert all(g.may_know(0, s) for s in first)       # passed on, still remembered
    assert all(g.may_know(0, s) for s in g.hands[0])  # the hand received
    assert not any(g.may_know(0, s) for s in g.hands[2])
    assert not any(g.may_know(0, s) for s in g.set_aside_slots())


def test_S7_4_every_zone_card_is_public() -> None:
    g = new_game(5)
    play(g, {})
    for z in g.zones:
        for slot in z:
            assert all(g.may_know(v, slot) for v in range(5))


def test_S7_3_commitment_formula() -> None:
    import hashlib

    text = f"{GAME_ID}|3|1|OBJ22|right|{'a' * 32}"
    assert commitment(GAME_ID, 3, 1, "OBJ22", "right", "a" * 32) == hashlib.sha256(
        text.encode()).hexdigest()


def test_S7_3_no_reveal_before_every_commitment() -> None:
    g = new_game(3, {0: ["R1a"]})
    slot = g.slot_of("R1a")
    assert slot is not None
    g.commit(0, commit_for(g, 0, "R1a", "left"))
    refused(g, lambda: g.reveal(0, slot, "left", nonce(1, 0)), "S7.3", "every seat")
    g.commit(1, commit_for(g, 1, g.face(g.hands[1][0]), "left"))
    g.commit(2, commit_for(g, 2, g.face(g.hands[2][0]), "left"))
    refused(g, lambda: g.commit(1, "0" * 64), "S7.3", "reveals are due")


def test_S7_3_a_reveal_must_open_its_commitment() -> None:
    g = new_game(3, {0: ["R1a", "R1b"]})
    for s in range(3):
        g.commit(s, commit_for(g, s, g.face(g.hands[s][0]), "left"))
    a, b = g.slot_of("R1a"), g.slot_of("R1b")
    assert a is not None and b is not None
    refused(g, lambda: g.reveal(0, a, "right", nonce(1, 0)), "S7.3", "does not open")
    refused(g, lambda: g.reveal(0, b, "left", nonce(1, 0)), "S7.3", "does not open")
    refused(g, lambda: g.reveal(0, a, "left", "f" * 32), "S7.3", "does not open")
    refused(g, lambda: g.reveal(0, a, "left", "F" * 32), "S7.3", "lowercase")
    g.reveal(0, a, "left", nonce(1, 0))
    refused(g, lambda: g.reveal(0, a, "left", nonce(1, 0)), "S7.3", "already revealed")


def test_S7_3_commitments_are_bound_to_game_turn_and_seat() -> None:
    base = commitment(GAME_ID, 1, 0, "R1a", "left", "0" * 32)
    assert base != commitment("f" * 32, 1, 0, "R1a", "left", "0" * 32)
    assert base != commitment(GAME_ID, 2, 0, "R1a", "left", "0" * 32)
    assert base != commitment(GAME_ID, 1, 1, "R1a", "left", "0" * 32)
    g = new_game(3)
    refused(g, lambda: g.commit(0, "xyz"), "S7.3", "64 lowercase hex")
    refused(g, lambda: g.commit(3, "0" * 64), "S2.2", "no seat")


def test_S7_3_a_reveal_needs_the_face_of_its_slot() -> None:
    s = SplitoSettings.standard(3)
    g = Game(s, GAME_ID)
    g.deal(["OBJ01", "OBJ02"])  # a view that knows nothing
    deck = deck_for(s, {}, ("OBJ01", "OBJ02"))
    for seat in range(3):
        g.commit(seat, commitment(GAME_ID, 1, seat, deck[g.hands[seat][0]], "left",
                                  nonce(1, seat)))
    slot = g.hands[0][0]
    refused(g, lambda: g.reveal(0, slot, "left", nonce(1, 0)), "S7.3", "opened")
    with pytest.raises(UnknownFace):
        g.reveal(0, slot, "left", nonce(1, 0))
    g.learn(slot, deck[slot])
    g.reveal(0, slot, "left", nonce(1, 0))


def test_S7_learning_refuses_what_cannot_be_true() -> None:
    g = new_game(3)
    with pytest.raises(ValueError, match="is R1a"):
        g.learn(g.slot_of("R1a") or 0, "R1b")
    with pytest.raises(ValueError, match="central objective"):
        g.learn(0, "OBJ01")
    with pytest.raises(ValueError, match="not a card"):
        g.learn(0, "Z9z")


# ---------------------------------------------------------------- phases
def test_phases_are_an_enum_with_one_transition_table() -> None:
    assert set(TRANSITIONS.values()) | {Phase.SETUP} == set(Phase)
    g = Game(SplitoSettings.standard(3), GAME_ID)
    refused(g, lambda: g.commit(0, "0" * 64), "S4", "phase setup")
    refused(g, lambda: g.reveal(0, 0, "left", "0" * 32), "S4", "phase setup")
    g = new_game(3)
    for _ in range(13):
        play(g, {})
    refused(g, lambda: g.commit(0, "0" * 64), "S5.1", "phase over")
    refused(g, lambda: g.reveal(0, 0, "left", "0" * 32), "S5.1", "phase over")
    assert g.legal_plays(0) == []


def test_illegal_transitions_are_refused() -> None:
    from splitnet.games.splito.engine import Event

    g = new_game(3)
    for event in (Event.DEAL, Event.TURN_DONE, Event.LAST_TURN_DONE):
        refused(g, lambda e=event: g._transition(e), "S5", "no transition")  # type: ignore[misc]
    assert g.phase is Phase.COMMIT


def test_S10_1_winners_only_when_the_game_is_over() -> None:
    g = new_game(3)
    refused(g, g.winners, "S10.1", "not over")


# ---------------------------------------------------------------- S8 two players
def test_S8_1_two_players_own_two_zones_each() -> None:
    assert [zone_of(2, s, side) for s in (0, 1) for side in ("left", "right")] == [0, 1, 2, 3]
    assert [zone_seats(2, z) for z in range(4)] == [[0], [0], [1], [1]]  # S12.3
    g = new_game(2, {0: ["R1a"], 1: ["B1a"]})
    play(g, {0: ("R1a", "right"), 1: ("B1a", "left")})
    assert g.zone_cards(1) == ["R1a"] and g.zone_cards(2) == ["B1a"]


def test_S8_2_two_players_26_cards_26_turns_hands_pass_to_the_other() -> None:
    g = new_game(2)
    assert g.settings.hand_size == g.settings.turns == 26 and len(g.set_aside_slots()) == 55
    h0 = list(g.hands[0])
    play(g, {})
    assert g.hands[1] == h0[1:]
    for _ in range(25):
        play(g, {})
    assert g.over and all(len(g.zones[2 * s]) + len(g.zones[2 * s + 1]) == 26 for s in (0, 1))


def test_S8_3_central_objectives_count_for_each_of_the_4_zones() -> None:
    g = new_game(2, {0: ["R1a", "R1b"], 1: ["O1a", "O1b"]}, central=("OBJ01",))
    play(g, {0: ("R1a", "left"), 1: ("O1a", "left")})
    g.zones[0].append(g.slot_of("R1b") or 0)  # build the zones directly: R1 R1 / O1 O1
    g.zones[2].append(g.slot_of("O1b") or 0)
    assert g.zone_points() == [1, 0, 1, 0]


def test_S8_4_a_tied_two_player_game_is_shared() -> None:
    g = new_game(2, central=())
    for _ in range(26):
        play(g, {})
    sc = g.scores()
    if sc[0].score == sc[1].score:
        assert g.winners() == [0, 1]
    assert sc[0].cards_in_zones == sc[1].cards_in_zones == 26


# ---------------------------------------------------------------- S9.2, S10, S11 scoring
def zone_game(n: int, zones: dict[int, list[str]], central: tuple[str, ...]) -> Game:
    """A finished-looking game whose zones hold exactly these cards (for scoring)."""
    g = new_game(n, central=central)
    for z, cards in zones.items():
        g.zones[z] = [g.slot_of(c) or 0 for c in cards]
    return g


def test_S9_2_only_the_zones_number_cards_count() -> None:
    # OBJ11 three of a kind; the objective cards in the zone are not cards.
    g = zone_game(3, {0: ["R1a", "O1a", "OBJ11", "OBJ03"], 1: ["Y1a"]}, ())
    assert [r.fulfilled for r in g.zone_results(0)] == [False, False]
    g = zone_game(3, {0: ["R1a", "O1a", "Y1a", "OBJ11"]}, ())
    assert g.zone_results(0)[0].fulfilled and g.zone_points()[0] == 1


def test_S9_1_an_objective_in_a_zone_scores_only_there() -> None:
    g = zone_game(3, {0: ["OBJ19"], 1: ["R1a", "R2a"]}, ())
    assert g.zone_points() == [0, 0, 0]


def test_S10_2_central_objectives_score_in_every_zone_card_by_card() -> None:
    g = zone_game(4, {0: ["R1a", "R1b", "R6a"], 1: ["R6b", "O6a"], 2: ["O1a", "Y6a"]},
                  ("OBJ01", "OBJ02", "OBJ03"))
    res = {(r.zone, r.objective): r.points for r in g.zone_results(0) + g.zone_results(1)
           + g.zone_results(2)}
    assert res[(0, "OBJ01")] == 1 and res[(0, "OBJ02")] == 0 and res[(0, "OBJ03")] == 1
    assert res[(1, "OBJ02")] == 1 and res[(2, "OBJ03")] == 1
    assert g.zone_points() == [2, 1, 1, 0]  # S10.3


def test_S10_2_results_list_zone_objectives_then_centrals() -> None:
    g = zone_game(3, {0: ["OBJ19", "R1a", "R2a", "OBJ33"]}, ("OBJ01", "OBJ02"))
    assert [(r.objective, r.source) for r in g.zone_results(0)] == [
        ("OBJ19", "zone"), ("OBJ33", "zone"), ("OBJ01", "central"), ("OBJ02", "central")]
    assert [r.points for r in g.zone_results(0)] == [1, 0, 0, 0]


def test_S10_4_and_S11_1_score_is_left_zone_times_right_zone() -> None:
    g = zone_game(3, {0: ["OBJ19", "R1a", "R2a"], 1: ["OBJ33", "R6a"], 2: []}, ("OBJ01",))
    assert g.zone_points() == [1, 2, 0]
    sc = g.scores()
    assert [(s.left_zone, s.right_zone) for s in sc] == [(0, 2), (1, 0), (2, 1)]
    assert [s.score for s in sc] == [0, 2, 0]  # S11.1: a zone worth 0 scores 0


def finished(n: int) -> Game:
    g = new_game(n, central=())
    for _ in range(g.settings.turns):
        play(g, {})
    return g


def test_S11_2_and_S11_3_highest_score_then_fewest_cards_then_shared() -> None:
    g = finished(4)
    # zone points 2, 3, 2, 3 → every seat scores 6; cards decide, then the win is shared
    for z, cards in {0: ["OBJ33", "R6a"], 1: ["OBJ33", "R6a", "OBJ19", "R1a"],
                     2: ["OBJ33", "R6a"], 3: ["OBJ33", "R6a", "OBJ19", "R1a"]}.items():
        g.zones[z] = [g.slot_of(c) or 0 for c in cards]
    assert g.zone_points() == [2, 3, 2, 3]
    assert {s.score for s in g.scores()} == {6}
    assert [s.cards_in_zones for s in g.scores()] == [6, 6, 6, 6]
    assert g.winners() == [0, 1, 2, 3]
    g.zones[3].append(g.slot_of("B1a") or 0)  # seats 3 and 0 now hold 7 cards
    assert g.zone_points() == [2, 3, 2, 3] and g.winners() == [1, 2]
    g.zones[2].append(g.slot_of("OBJ02") or 0)  # an objective card counts (S11.3)
    assert g.zone_points() == [2, 3, 2, 3] and g.winners() == [1]


# ---------------------------------------------------------------- S13 settings
def test_S13_every_key_is_explicit_and_unknown_keys_are_refused() -> None:
    d = SplitoSettings.standard(5).to_dict()
    assert tuple(d) == KEYS and tuple(SplitoSettings.standard(5).record_dict()) == RECORD_KEYS
    for key in KEYS:
        partial = {k: v for k, v in d.items() if k != key}
        with pytest.raises(SettingsError, match="missing"):
            SplitoSettings.from_dict(partial)
    with pytest.raises(SettingsError, match="unknown"):
        SplitoSettings.from_dict({**d, "rounds": 3})


@pytest.mark.parametrize(("key", "value", "rule"), [
    ("players", 9, "S2.1"), ("players", 1, "S2.1"), ("variant", "two_player", "S2.1"),
    ("hand_size", 12, "S4.3"), ("turns", 26, "S5.1"), ("pass", "right", "S5.4"),
    ("central_objectives", 5, "S4.2"), ("dealer", 5, "S4.1"), ("dealer", True, "S4.1"),
    ("tie_break", "shared", "S11.3"), ("objective_set", "x", "S9.6"),
    ("objective_set_sha256", "0" * 64, "S9.6"), ("commit", "sha256(x)", "S7.3"),
    ("chat_during_play", 1, "S13"), ("turn_timeout_s", 0, "S5.6"),
])
def test_S13_values_outside_the_rules_are_refused(key: str, value: object, rule: str) -> None:
    d = SplitoSettings.standard(5).to_dict()
    d[key] = value
    with pytest.raises(SettingsError, match=rf"settings\.{key}.*{rule}|{rule}"):
        SplitoSettings.from_dict(d)


def test_S13_two_players_is_the_variant() -> None:
    d = SplitoSettings.standard(2).to_dict()
    assert (d["variant"], d["hand_size"], d["turns"]) == ("two_player", 26, 26)
    assert SplitoSettings.from_dict(d) == SplitoSettings.standard(2)
    t = SplitoSettings.from_dict({**SplitoSettings.standard(6).to_dict(), "turn_timeout_s": 30,
                                  "dealer": 5, "central_objectives": 0})
    assert (t.turn_timeout_s, t.dealer, t.central_objectives) == (30, 5, 0)
