"""The 37 objective cards of docs/SPLITO.md S9, one test each with hand-built zones,
and the condition language (S9.3) and the objective set (S9.6)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from splitnet.games.splito.cards import COLOURS, NUMBER_CARDS, number_face
from splitnet.games.splito.objectives import (
    DEFAULT_OBJECTIVE_SET_SHA256,
    Face,
    ObjectiveError,
    default_objective_set,
    full_pool,
    holds,
    missing,
    objective_set_sha256,
    parse_cond,
    parse_objective_set,
)

ROOT = Path(__file__).resolve().parent.parent
OBJECTIVES = ROOT / "splitnet" / "games" / "splito" / "objectives.json"
OBJ = default_objective_set().by_id


def zone(text: str) -> list[Face]:
    """``"R1 B1 G4"`` → the zone's number cards as (value, colour) (S9.2)."""
    return [(int(t[1:]), t[0]) for t in text.split()]


def check(oid: str, yes: list[str], no: list[str]) -> None:
    for z in yes:
        assert OBJ[oid].fulfilled_by(zone(z)), f"{oid} should hold for {z!r}"
    for z in no:
        assert not OBJ[oid].fulfilled_by(zone(z)), f"{oid} should not hold for {z!r}"


# ---------------------------------------------------------------- S9.4, one per card
def test_S9_4_OBJ01_two_ones() -> None:
    check("OBJ01", ["R1 B1", "R1 R1 G4"], ["", "R1 G4 B2"])


def test_S9_4_OBJ02_two_sixes() -> None:
    check("OBJ02", ["R6 P6"], ["R6 R5", "P1 P1"])


def test_S9_4_OBJ03_both_ends() -> None:
    check("OBJ03", ["R1 B6", "G6 G1 Y3"], ["R1 R1", "B6 B6", ""])


def test_S9_4_OBJ04_heavy_sum_32() -> None:
    check("OBJ04", ["R6 O6 Y6 G6 B6 P2", "R6 O6 Y6 G6 B6 P6"], ["R6 O6 Y6 G6 B6 P1", "R1"])


def test_S9_4_OBJ05_four_threes_or_fours() -> None:
    check("OBJ05", ["R3 O4 Y3 G4", "R3 R3 B3 B3 P6"], ["R3 O4 Y3 G5", "R4 R4 R4"])


def test_S9_4_OBJ06_three_fours() -> None:
    check("OBJ06", ["R4 O4 P4"], ["R4 O4 P3", "R4 R4"])


def test_S9_4_OBJ07_six_evens() -> None:
    check("OBJ07", ["R2 O4 Y6 G2 B4 P6", "R2 R2 R2 R2 R2 R2 R1"], ["R2 O4 Y6 G2 B4 P5"])


def test_S9_4_OBJ08_six_odds() -> None:
    check("OBJ08", ["R1 O3 Y5 G1 B3 P5"], ["R1 O3 Y5 G1 B3 P6", "R1 R3 R5 R1 R3"])


def test_S9_4_OBJ09_small_run_any_colours() -> None:
    check("OBJ09", ["R2 O3 Y4 G5", "R3 P4 B5 G6 G6", "R1 R2 R3 R4"], ["R1 R2 R3 R5 R6", "R1"])


def test_S9_4_OBJ10_full_run() -> None:
    check("OBJ10", ["R1 O2 Y3 G4 B5 P6", "R6 R5 R4 R3 R2 R1 R1"], ["R1 O2 Y3 G4 B5 P5"])


def test_S9_4_OBJ11_three_of_a_kind() -> None:
    check("OBJ11", ["R5 G5 P5", "R5 R5 G5"], ["R5 G5 P4", ""])


def test_S9_4_OBJ12_four_of_a_kind() -> None:
    check("OBJ12", ["R2 O2 Y2 G2"], ["R2 O2 Y2 G3"])


def test_S9_4_OBJ13_four_pairs() -> None:
    check("OBJ13", ["R1 O1 Y2 G2 B3 P3 R4 O4", "R1 R1 R1 R1 R2 R2 R3 R3 R4 R4"],
          ["R1 O1 Y2 G2 B3 P3 R4 O5", "R1 R1 R1 R1 R1 R1 R1 R1"])


def test_S9_4_OBJ14_two_triples() -> None:
    check("OBJ14", ["R1 O1 Y1 G2 B2 P2"], ["R1 O1 Y1 G2 B2 P3", "R1 R1 R1 R1 R1 R1"])


def test_S9_4_OBJ15_six_cards_no_six() -> None:
    check("OBJ15", ["R1 O2 Y3 G4 B5 P5"], ["R1 O2 Y3 G4 B5", "R1 O2 Y3 G4 B5 P5 P6"])


def test_S9_4_OBJ16_six_cards_sum_at_most_20() -> None:
    check("OBJ16", ["R1 O2 Y3 G4 B5 P5", "R1 R1 R1 R1 R1 R1"],
          ["R1 O2 Y3 G4 B5 P6", "R1 R1 R1 R1 R1"])


def test_S9_4_OBJ17_four_fives_or_sixes() -> None:
    check("OBJ17", ["R5 O6 Y5 G6"], ["R5 O6 Y5 G4"])


def test_S9_4_OBJ18_exactly_eight() -> None:
    check("OBJ18", ["R1 R2 R3 R4 R5 R6 O1 O2"], ["R1 R2 R3 R4 R5 R6 O1",
                                                  "R1 R2 R3 R4 R5 R6 O1 O2 O3"])


def test_S9_4_OBJ19_red_pair() -> None:
    check("OBJ19", ["R1 R6"], ["R1 O6"])


def test_S9_4_OBJ20_four_red_or_orange() -> None:
    check("OBJ20", ["R1 O2 R3 O4", "O1 O1 O2 O2"], ["R1 O2 R3 Y4"])


def test_S9_4_OBJ21_three_yellows() -> None:
    check("OBJ21", ["Y1 Y2 Y3"], ["Y1 Y2 O3"])


def test_S9_4_OBJ22_green_and_blue_pairs() -> None:
    check("OBJ22", ["G1 G2 B3 B4"], ["G1 G2 G3 B4", "B1 B2 B3"])


def test_S9_4_OBJ23_four_purples() -> None:
    check("OBJ23", ["P1 P2 P3 P4"], ["P1 P2 P3 R4"])


def test_S9_4_OBJ24_rainbow() -> None:
    check("OBJ24", ["R1 O1 Y1 G1 B1 P1"], ["R1 O1 Y1 G1 B1 B1"])


def test_S9_4_OBJ25_five_colours() -> None:
    check("OBJ25", ["R1 O1 Y1 G1 B1"], ["R1 O1 Y1 G1 G1"])


def test_S9_4_OBJ26_colour_four() -> None:
    check("OBJ26", ["G1 G2 G3 G4"], ["G1 G2 G3 B4"])


def test_S9_4_OBJ27_colour_five() -> None:
    check("OBJ27", ["G1 G2 G3 G4 G4"], ["G1 G2 G3 G4 B4"])


def test_S9_4_OBJ28_two_colour_triples() -> None:
    check("OBJ28", ["R1 R2 R3 B1 B2 B3"], ["R1 R2 R3 B1 B2 G3", "R1 R2 R3 R4 R5 R6"])


def test_S9_4_OBJ29_six_cards_no_blue() -> None:
    check("OBJ29", ["R1 O2 Y3 G4 P5 P6"], ["R1 O2 Y3 G4 P5", "R1 O2 Y3 G4 P5 B6"])


def test_S9_4_OBJ30_more_yellow_than_green() -> None:
    check("OBJ30", ["Y1", "Y1 Y2 G3"], ["", "Y1 G2", "G1"])


def test_S9_4_OBJ31_colour_run_of_three() -> None:
    check("OBJ31", ["G3 G4 G5", "B4 B5 B6 R1"], ["G3 G4 B5", "G3 G5 G6"])


def test_S9_4_OBJ32_twins_are_both_copies() -> None:
    check("OBJ32", ["R3 R3"], ["R3 O3", "R3"])  # S1.3: same value and same colour


def test_S9_4_OBJ33_red_six() -> None:
    check("OBJ33", ["R6"], ["O6 R5"])


def test_S9_4_OBJ34_ones_in_three_colours() -> None:
    check("OBJ34", ["R1 O1 Y1"], ["R1 R1 Y1", "R1 O2 Y1"])


def test_S9_4_OBJ35_blue_weight_10() -> None:
    check("OBJ35", ["B4 B6", "B1 B2 B3 B4"], ["B4 B5", "B4 R6"])


def test_S9_4_OBJ36_orange_ladder() -> None:
    check("OBJ36", ["O1 O2 O3 O6"], ["O1 O2 O3 O3", "O1 O2 O3 R4"])


def test_S9_4_OBJ37_green_and_purple_fives() -> None:
    check("OBJ37", ["G5 P5"], ["G5 G5", "P5 R5"])


def test_S9_4_every_card_has_its_test_and_its_points() -> None:
    names = {n for n in globals() if n.startswith("test_S9_4_OBJ")}
    assert {n[10:15] for n in names} == set(OBJ)
    table = (ROOT / "docs" / "SPLITO.md").read_text(encoding="utf-8")
    for m in re.finditer(r"^\| (OBJ\d\d) \| (\d) \| (\w+) \| `[^`]*` \| ([^|]+) \|", table,
                         re.M):
        o = OBJ[m[1]]
        assert (o.points, o.kind, o.name) == (int(m[2]), m[3], m[4].strip())


# ---------------------------------------------------------------- S9.1–S9.3, S9.6
def test_S9_1_points_are_one_to_four_and_there_are_37_cards() -> None:
    assert len(OBJ) == 37 and all(1 <= o.points <= 4 for o in OBJ.values())
    assert sorted(OBJ) == [f"OBJ{i:02}" for i in range(1, 38)]  # S1.3


def test_S9_6_objective_set_hash_is_the_documented_one() -> None:
    oset = default_objective_set()
    assert oset.sha256 == DEFAULT_OBJECTIVE_SET_SHA256
    assert DEFAULT_OBJECTIVE_SET_SHA256 in (ROOT / "docs" / "SPLITO.md").read_text("utf-8")


def test_S9_6_names_and_texts_are_not_part_of_the_hash() -> None:
    data = json.loads(OBJECTIVES.read_text("utf-8"))
    data["objectives"][0]["name"] = "Deux as"
    data["objectives"][0]["text"] = "Au moins deux cartes 1."
    assert objective_set_sha256(data) == DEFAULT_OBJECTIVE_SET_SHA256
    data["objectives"][0]["points"] = 2
    assert objective_set_sha256(data) != DEFAULT_OBJECTIVE_SET_SHA256


def test_S9_3_appendix_A_is_objectives_json() -> None:
    """The doc's normative conditions and the shipped file are the same, card by card."""
    text = (ROOT / "docs" / "SPLITO.md").read_text(encoding="utf-8")
    block = text.split("## Appendix A")[1].split("```")[1]
    rows = [line.split(" ", 2) for line in block.strip().splitlines()]
    data = json.loads(OBJECTIVES.read_text("utf-8"))
    assert [(o["id"], o["points"], o["cond"]) for o in data["objectives"]] == [
        (i, int(p), json.loads(c)) for i, p, c in rows]


@pytest.mark.parametrize(("cond", "error"), [
    ({"op": "nope"}, "unknown op"),
    ({"op": "count"}, "needs"),
    ({"op": "count", "filter": {}, "min": 1, "extra": 2}, "unknown field"),
    ({"op": "count", "filter": {"values": [7]}}, "values 1…6"),
    ({"op": "count", "filter": {"colours": ["X"]}}, "colour letters"),
    ({"op": "count", "filter": {"suits": []}}, "unknown filter field"),
    ({"op": "count", "filter": {}, "min": 3, "max": 2}, "can never hold"),
    ({"op": "count", "filter": {}, "min": True}, "integer"),
    ({"op": "run", "length": 7, "same_colour": False}, "integer 1…6"),
    ({"op": "run", "length": 3, "same_colour": 1}, "true or false"),
    ({"op": "groups", "by": "suit", "size": 2, "count": 1}, "value"),
    ({"op": "all", "of": []}, "non-empty"),
    ([], "object"),
])
def test_S9_3_conditions_are_checked_strictly(cond: object, error: str) -> None:
    with pytest.raises(ObjectiveError, match=error):
        parse_cond(cond)


def test_S9_3_filters_select_by_value_and_colour_together() -> None:
    red_six = parse_cond({"op": "count", "filter": {"values": [6], "colours": ["R"]}, "min": 1})
    assert holds(red_six, zone("R6")) and not holds(red_six, zone("R5 O6"))
    everything = parse_cond({"op": "count", "filter": {}, "min": 2})
    assert holds(everything, zone("R1 P6")) and not holds(everything, zone("R1"))


def test_S9_6_a_set_must_be_37_distinct_cards_in_id_order() -> None:
    data = json.loads(OBJECTIVES.read_text("utf-8"))
    assert parse_objective_set(data).sha256 == DEFAULT_OBJECTIVE_SET_SHA256
    bad = json.loads(json.dumps(data))
    bad["objectives"][1]["id"] = "OBJ01"
    with pytest.raises(ObjectiveError, match="twice"):
        parse_objective_set(bad)
    bad = json.loads(json.dumps(data))
    bad["objectives"].pop()
    with pytest.raises(ObjectiveError, match="37"):
        parse_objective_set(bad)
    bad = json.loads(json.dumps(data))
    bad["objectives"][0]["id"] = "R1a"  # S1.3: would collide with a number card
    with pytest.raises(ObjectiveError, match="not a valid objective card id"):
        parse_objective_set(bad)
    bad = json.loads(json.dumps(data))
    bad["objectives"][0]["points"] = 5
    with pytest.raises(ObjectiveError, match="points"):
        parse_objective_set(bad)
    bad = json.loads(json.dumps(data))
    bad["objectives"][0]["colour"] = "R"
    with pytest.raises(ObjectiveError, match="unknown field"):
        parse_objective_set(bad)


# ---------------------------------------------------------------- the estimate (bots)
faces_st = st.lists(st.sampled_from(NUMBER_CARDS), max_size=16, unique=True).map(
    lambda cs: [number_face(c) for c in cs])


@settings(max_examples=150, deadline=None)
@given(faces_st, st.sampled_from(sorted(OBJ)))
def test_S9_3_missing_is_zero_exactly_when_the_zone_fulfils(z: list[Face], oid: str) -> None:
    pool = full_pool()
    pool.subtract(z)
    m = missing(OBJ[oid].cond, z, pool)
    assert (m == 0) == OBJ[oid].fulfilled_by(z)


@settings(max_examples=150, deadline=None)
@given(faces_st, st.sampled_from(sorted(OBJ)))
def test_S6_2_missing_is_none_for_a_broken_max_and_never_negative(z: list[Face],
                                                                   oid: str) -> None:
    pool = full_pool()
    pool.subtract(z)
    m = missing(OBJ[oid].cond, z, pool)
    assert m is None or m >= 0
    if oid == "OBJ15" and any(v == 6 for v, _ in z):
        assert m is None  # a six in the zone can never leave it (S6.1)


def test_S9_3_missing_counts_cards_still_needed() -> None:
    pool = full_pool()
    assert missing(OBJ["OBJ10"].cond, zone("R1 R2 R3"), pool) == 3
    assert missing(OBJ["OBJ24"].cond, zone("R1 O1"), pool) == 4
    assert missing(OBJ["OBJ04"].cond, zone("R6 R6"), pool) == 4  # 20 more: 6+6+6+2
    no_blue_left = full_pool()
    for v in range(1, 7):
        no_blue_left[(v, "B")] = 0
    assert missing(OBJ["OBJ35"].cond, zone("B1"), no_blue_left) is None
    assert COLOURS == ("R", "O", "Y", "G", "B", "P")
