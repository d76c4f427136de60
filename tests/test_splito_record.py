"""The Splito record (docs/SPLITO.md S12) and the referee's re-check (S12.4)."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest

from splitnet.games.splito.bots import make_bot
from splitnet.games.splito.local import play_local
from splitnet.games.splito.record import (
    DEAL_KEYS,
    SCORE_KEYS,
    TOP_KEYS,
    build_record,
    check_record,
    check_text,
    dumps,
)
from splitnet.games.splito.settings import RECORD_KEYS, SplitoSettings

Record = dict[str, Any]


def a_record(n: int = 4, seed: int = 5) -> Record:
    bots = [make_bot("heuristic" if i % 2 else "random", seed + i) for i in range(n)]
    return play_local(SplitoSettings.standard(n), bots, seed).record


REC4 = a_record()
REC2 = a_record(2, 8)


def test_S12_keys_and_their_order() -> None:
    r = REC4
    assert tuple(r) == TOP_KEYS and r["format"] == "splito-record/1"
    assert tuple(r["settings"]) == RECORD_KEYS
    assert r["settings"] == {
        "players": 4, "variant": "standard", "hand_size": 13, "turns": 13,
        "central_objectives": 2, "pass": "left", "dealer": 0,
        "tie_break": "fewest_cards_then_shared", "objective_set": "splito-objectives/1",
        "objective_set_sha256": "0235bf0e8939daef7f8b4937880bc339795375c7509c6eb82b063ec4aa0fe82b",
        "commit": "sha256(game_id|turn|seat|card|side|nonce)"}
    assert tuple(r["deal"]) == DEAL_KEYS
    assert r["deal"]["central"] == r["deal"]["objective_order"][:2]  # S12.1
    assert [tuple(t) for t in r["turns"]] == [("turn", "hands", "plays")] * 13
    assert all(tuple(p) == ("seat", "card", "side", "commit", "nonce")
               for t in r["turns"] for p in t["plays"])
    assert [t["turn"] for t in r["turns"]] == list(range(1, 14))
    assert [tuple(z) for z in r["zones"]] == [("zone", "seats", "cards")] * 4
    assert [z["seats"] for z in r["zones"]] == [[0, 1], [1, 2], [2, 3], [3, 0]]
    assert all(tuple(o) == ("zone", "objective", "source", "fulfilled", "points")
               for o in r["objective_results"])
    assert all(tuple(s) == SCORE_KEYS for s in r["scores"])
    assert len(r["game_id"]) == 32 and all(len(p["nonce"]) == 32 and len(p["commit"]) == 64
                                           for t in r["turns"] for p in t["plays"])


def test_S12_objective_results_one_per_zone_objective_and_per_zone_and_central() -> None:
    r = REC4
    in_zones = sum(1 for z in r["zones"] for c in z["cards"] if c.startswith("OBJ"))
    assert len(r["objective_results"]) == in_zones + 4 * 2
    assert sum(1 for o in r["objective_results"] if o["source"] == "central") == 8


def test_S12_3_two_player_record() -> None:
    r = REC2
    assert r["settings"]["variant"] == "two_player" and r["settings"]["turns"] == 26
    assert [z["seats"] for z in r["zones"]] == [[0], [0], [1], [1]]
    assert [(s["left_zone"], s["right_zone"]) for s in r["scores"]] == [(0, 1), (2, 3)]
    assert len(r["deal"]["set_aside"]) == 55
    assert check_record(r).ok


def test_S12_the_text_is_deterministic_and_ascii() -> None:
    text = dumps(REC4)
    assert text == dumps(a_record()) and text.isascii() and text.endswith("}\n")
    assert json.loads(text) == REC4


def test_S12_1_deck_and_objective_order_are_optional() -> None:
    r = copy.deepcopy(REC4)
    del r["deal"]["deck"], r["deal"]["objective_order"]
    assert check_record(r).ok
    r2 = copy.deepcopy(REC4)
    del r2["deal"]["objective_order"]  # each is optional on its own (S12.1)
    assert check_record(r2).ok
    r3 = copy.deepcopy(REC4)
    r3["settings"] = dict(reversed(list(r3["settings"].items())))  # JSON keys have no order
    assert check_record(r3).ok


def test_S12_2_turn_hands_are_optional_and_compared_when_present() -> None:
    r = copy.deepcopy(REC4)
    for t in r["turns"]:
        del t["hands"]
    assert check_record(r).ok
    r = copy.deepcopy(REC4)
    r["turns"][3]["hands"][0], r["turns"][3]["hands"][1] = (r["turns"][3]["hands"][1],
                                                            r["turns"][3]["hands"][0])
    assert any("S12.2" in f for f in check_record(r).faults)


def test_S12_record_needs_a_finished_fully_known_game() -> None:
    result = play_local(SplitoSettings.standard(3), [make_bot("random", i) for i in range(3)], 1)
    with pytest.raises(ValueError, match=r"S7\.5"):
        build_record(result.public, ["a", "b", "c"])


# ---------------------------------------------------------------- S12.4 every fault found
def set_card(r: Record) -> None:
    r["zones"][0]["cards"][0] = "P6b" if r["zones"][0]["cards"][0] != "P6b" else "P6a"


def swap_plays(r: Record) -> None:
    p = r["turns"][2]["plays"]
    p[0]["card"], p[1]["card"] = p[1]["card"], p[0]["card"]


def replay_card(r: Record) -> None:  # a card played twice
    r["turns"][5]["plays"][0]["card"] = r["turns"][0]["plays"][0]["card"]


def other_hand_card(r: Record) -> None:  # a card of another seat's hand, with a fresh commit
    from splitnet.games.splito.engine import commitment

    p = r["turns"][0]["plays"][0]
    p["card"] = r["turns"][0]["plays"][1]["card"]
    p["commit"] = commitment(r["game_id"], 1, 0, p["card"], p["side"], p["nonce"])


TAMPER: list[tuple[str, Callable[[Record], None], str]] = [
    ("zone card", set_card, "S5.3"),
    ("score", lambda r: r["scores"][1].update(score=r["scores"][1]["score"] + 1), "S11.1"),
    ("cards in zones", lambda r: r["scores"][0].update(cards_in_zones=1), "S11.3"),
    ("winners", lambda r: r.update(winners=[0, 1, 2, 3]), "S11.2"),
    ("zone points", lambda r: r["zone_points"].__setitem__(0, 99), "S10.3"),
    ("result", lambda r: r["objective_results"][0].update(points=9), "S10.2"),
    ("nonce", lambda r: r["turns"][4]["plays"][2].update(nonce="0" * 32), "S7.3"),
    ("side", lambda r: r["turns"][4]["plays"][2].update(
        side="right" if r["turns"][4]["plays"][2]["side"] == "left" else "left"), "S7.3"),
    ("swapped plays", swap_plays, "S5.2"),
    ("card played twice", replay_card, "played before"),
    ("another seat's card", other_hand_card, "S5.2"),
    ("missing play", lambda r: r["turns"][1]["plays"].pop(), "S5.1"),
    ("missing turn", lambda r: r["turns"].pop(), "S5.1"),
    ("settings", lambda r: r["settings"].update(hand_size=12), "S4.3"),
    ("objective hash", lambda r: r["settings"].update(objective_set_sha256="0" * 64), "S9.6"),
    ("unknown key", lambda r: r.update(extra=1), "S12"),
    ("deal partition", lambda r: r["deal"]["set_aside"].pop(), "S12.4"),
    ("deck order", lambda r: r["deal"]["deck"].reverse(), "S12.1"),
    ("central not on top", lambda r: r["deal"]["objective_order"].reverse(), "S12.1"),
    ("seats", lambda r: r["seats"].pop(), "S12"),
    ("format", lambda r: r.update(format="splito-record/2"), "S12"),
    ("game id", lambda r: r.update(game_id="XYZ"), "S12"),
]


@pytest.mark.parametrize(("what", "change", "rule"), TAMPER, ids=[t[0] for t in TAMPER])
def test_S12_4_the_referee_finds_every_difference(what: str, change: Callable[[Record], None],
                                                  rule: str) -> None:
    r = copy.deepcopy(REC4)
    change(r)
    verdict = check_record(r)
    assert verdict.code == 1 and verdict.faults, what
    assert any(rule in f for f in verdict.faults), verdict.faults


def test_S12_4_not_json_is_exit_2_and_junk_never_raises() -> None:
    assert check_text("{not json").code == 2
    assert check_text(dumps(REC4)).code == 0
    for junk in ([], 1, "x", {}, {"format": "splito-record/1"},
                 {**REC4, "turns": [1, 2]}, {**REC4, "deal": []},
                 {**REC4, "zones": None, "scores": None, "objective_results": 3},
                 {**REC4, "settings": {**REC4["settings"], "players": "4"}}):
        assert check_record(junk).code == 1


def test_S12_4_zones_and_results_are_compared_as_multisets() -> None:
    r = copy.deepcopy(REC4)
    r["zones"].reverse()
    for z in r["zones"]:
        z["cards"].reverse()
    r["objective_results"].reverse()
    assert check_record(r).ok


# ---------------------------------------------------------------- protocol/SPLITO_RECORD.md
def test_protocol_splito_record_doc_states_what_the_code_does() -> None:
    import hashlib
    import re
    from pathlib import Path

    from splitnet.games.splito.cards import card_order
    from splitnet.games.splito.engine import commitment

    doc = (Path(__file__).resolve().parent.parent / "protocol" / "SPLITO_RECORD.md").read_text(
        encoding="utf-8")
    assert '"two_player"' in doc and REC2["settings"]["variant"] == "two_player"
    assert tuple(REC4["settings"]) == RECORD_KEYS and "chat_during_play" not in REC4["settings"]
    m = re.search(r'SHA-256\("([^"]+)"\)\n  = ([0-9a-f]{64})', doc)
    assert m is not None
    assert hashlib.sha256(m[1].encode()).hexdigest() == m[2]
    gid, turn, seat, card, side, nonce = m[1].split("|")
    assert commitment(gid, int(turn), int(seat), card, side, nonce) == m[2]
    for t in REC4["turns"]:
        assert [p["seat"] for p in t["plays"]] == [0, 1, 2, 3]
        for p in t["plays"]:
            assert p["commit"] == commitment(REC4["game_id"], t["turn"], p["seat"], p["card"],
                                             p["side"], p["nonce"])
            assert re.fullmatch("[0-9a-f]{32}", p["nonce"])
    res = REC4["objective_results"]
    assert [r["zone"] for r in res] == sorted(r["zone"] for r in res)
    for z in range(4):
        sources = [r["source"] for r in res if r["zone"] == z]
        assert sources == sorted(sources, key=lambda s: s != "zone")
        assert [r["objective"] for r in res if r["zone"] == z and r["source"] == "central"] \
            == REC4["deal"]["central"]
    assert sorted(["OBJ01", "P6b", "O1a", "R6b"], key=card_order) == ["R6b", "O1a", "P6b",
                                                                       "OBJ01"]
    text = dumps(REC4)
    assert text.startswith('{\n "format": "splito-record/1",\n') and text.endswith("\n}\n")


# ---------------------------------------------------------------- junk never crashes
def _paths(obj: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(obj, dict):
        for k, v in obj.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj[:3]):
            out += _paths(v, (*prefix, i))
    return out


PATHS = [p for p in _paths(REC4) if p]
JUNK = [None, True, False, 0, 1, -1, 10**9, 1.5, "", "x", "OBJ01", "R1a", "left", [], {}, [1],
        {"a": 1}, ["R1a"], "0" * 64]


def test_S12_4_any_changed_field_is_a_fault_line_never_a_crash() -> None:
    from hypothesis import given, settings
    from hypothesis import strategies as st

    @settings(max_examples=400, deadline=None)
    @given(st.sampled_from(PATHS), st.sampled_from(JUNK), st.booleans())
    def run(path: tuple[Any, ...], value: object, delete: bool) -> None:
        r = copy.deepcopy(REC4)
        node: Any = r
        for k in path[:-1]:
            node = node[k]
        if json.dumps(node[path[-1]]) == json.dumps(value):
            return
        if delete and isinstance(node, dict):
            del node[path[-1]]
        else:
            node[path[-1]] = value
        verdict = check_record(r)
        assert all(isinstance(f, str) and "\n" not in f for f in verdict.faults)
        # a removed optional field may leave a valid record; anything else is a fault
        if verdict.ok:
            assert (delete and path[-1] in ("hands", "deck", "objective_order")) or (
                path[-1] == "name" and isinstance(value, str))

    run()


def test_S13_the_referee_checks_against_the_objective_set_it_is_given() -> None:
    """S9.6, S13: another set of 37 cards is another ruleset, named by its hash."""
    from pathlib import Path

    from splitnet.games.splito.objectives import parse_objective_set

    data = json.loads((Path(__file__).resolve().parent.parent / "splitnet" / "games"
                       / "splito" / "objectives.json").read_text("utf-8"))
    for o in data["objectives"]:
        o["points"] = 5 - o["points"]  # a house set: the hard cards are worth little
    house = parse_objective_set(data)
    s = SplitoSettings.standard(3, objective_set=house)
    rec = play_local(s, [make_bot("heuristic", i) for i in range(3)], 2).record
    assert rec["settings"]["objective_set_sha256"] == house.sha256
    assert check_record(rec, house).ok
    faults = check_record(rec).faults
    assert any("objective_set_sha256" in f and "S9.6" in f for f in faults)
