"""Game message bodies are typed after validation (splitnet/game/bodies.py): each core
parses an entry's body once, at its edge, into a frozen value of its kind's type and
reads only that; what is signed and kept is the raw body, unchanged."""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

import pytest

from splitnet.game.bodies import AbandonBody, ChatBody, DeckBody, TimeoutBody
from splitnet.game.table import GameError, NotAnInt, UnknownKind
from splitnet.games.split import bodies as split_bodies
from splitnet.games.split.bots import make_bot
from splitnet.games.split.local import LocalGame, SelfplaySecrets
from splitnet.games.split.open_hand_policy import open_hand_player
from splitnet.games.split.rules import DrawPile, Settings, action_to_dict
from splitnet.games.splito import bodies as splito_bodies
from splitnet.verify import verify_records
from tests import test_splito_fair as sf
from tests.third_game import bodies as highcard_bodies
from tests.third_game import registered
from tests.third_game.local import play_local

SPLIT_TYPES: dict[str, type] = {
    "commit": split_bodies.CommitBody, "shuffle": split_bodies.ShuffleBody,
    "shares": split_bodies.SharesBody, "move": split_bodies.MoveBody,
    "reveal": split_bodies.RevealBody, "alarm": split_bodies.AlarmBody,
    "open": split_bodies.OpenBody, "prove": split_bodies.ProveBody,
    "accuse": split_bodies.AccuseBody, "chat": ChatBody, "timeout": TimeoutBody,
    "abandon": AbandonBody,
}


SPLITO_TYPES: dict[str, type] = {
    "commit": splito_bodies.CommitBody, "shuffle": splito_bodies.ShuffleBody,
    "deal": splito_bodies.DealBody, "move": splito_bodies.MoveBody,
    "reveal": splito_bodies.RevealBody, "pass": splito_bodies.PassBody,
    "complain": splito_bodies.ComplainBody, "open": splito_bodies.OpenBody,
    "chat": ChatBody, "timeout": TimeoutBody, "abandon": AbandonBody,
}
HIGHCARD_TYPES: dict[str, type] = {
    "commit": highcard_bodies.CommitBody, "shuffle": highcard_bodies.ShuffleBody,
    "deal": highcard_bodies.DealBody, "move": highcard_bodies.MoveBody,
    "open": highcard_bodies.OpenBody, "chat": ChatBody, "timeout": TimeoutBody,
    "abandon": AbandonBody,
}
PARSE = {"split": split_bodies.parse, "splito": splito_bodies.parse,
         "highcard": highcard_bodies.parse}
TYPES = {"split": SPLIT_TYPES, "splito": SPLITO_TYPES, "highcard": HIGHCARD_TYPES}
KINDS = {"split": split_bodies.BODIES, "splito": splito_bodies.BODIES,
         "highcard": highcard_bodies.BODIES}
GAMES = ["split", "splito", "highcard"]


def split_game(seed: int = 4) -> LocalGame[Any]:
    return LocalGame([f"p{i}" for i in range(3)], Settings(rounds=1, hand_size=3),
                     SelfplaySecrets(seed), shuffle_proofs=False, open_hand=open_hand_player)


@pytest.mark.parametrize("game", GAMES)
def test_each_game_has_one_frozen_typed_body_per_kind(game: str) -> None:
    assert set(TYPES[game]) == set(KINDS[game].parsers) == set(KINDS[game].ints)
    for kind, t in TYPES[game].items():
        assert dataclasses.is_dataclass(t), kind
        assert t.__dataclass_params__.frozen, kind  # type: ignore[attr-defined]
        assert "__slots__" in t.__dict__, kind


@pytest.mark.parametrize("game", GAMES)
def test_every_entry_of_a_whole_game_parses_to_its_kind_s_type_unchanged(game: str) -> None:
    """Every entry of an honest game parses to its kind's frozen type; parsing leaves
    the raw body as it was, and the record still verifies byte for byte."""
    g: LocalGame[Any]
    if game == "split":
        g = split_game()
        g.run_bots([make_bot("random", i) for i in range(3)])
    elif game == "splito":
        g = sf.new_game(3)
        g.run_bots(sf.bots(3))
    else:
        g = play_local(["Ana", "Bo", "Cy"], 3, proofs=False)
    records = g.log.records()
    with registered():
        assert verify_records(records).ok
    seen: set[str] = set()
    for e in g.log.entries[1:]:
        if e.kind == "accept":
            continue
        raw = dict(e.body)
        before = copy.deepcopy(raw)
        body = PARSE[game](e.author, e.kind, raw)
        assert type(body) is TYPES[game][e.kind] and raw == before
        with pytest.raises(dataclasses.FrozenInstanceError):
            body.round = 2  # type: ignore[misc,union-attr]
        if isinstance(body, split_bodies.MoveBody):
            assert action_to_dict(body.action) == raw["move"]
        if isinstance(body, highcard_bodies.MoveBody):
            assert (body.trick, body.slot, body.share.msg) == (raw["trick"], raw["slot"],
                                                               raw["share"])
        if isinstance(body, splito_bodies.RevealBody):
            assert (body.card, body.side, body.share.msg) == (raw["card"], raw["side"],
                                                              raw["share"])
        seen.add(e.kind)
    assert {"commit", "shuffle", "move", "open"} <= seen, seen
    assert g.log.records() == records


MOVE = {"type": "draw_pile", "seat": 1}


@pytest.mark.parametrize(("kind", "body", "step", "want"), [
    ("shares", {"round": 1, "purpose": "peek", "slots": [0]}, "shares",
     "unknown purpose 'peek'"),
    ("move", {"round": 1, "move": MOVE, "reveal": {}}, "move",
     "since splitnet/2 a move carries no shares"),
    ("move", {"round": 1, "move": {"type": "fly", "seat": 1}}, "move",
     "move.type: unknown move 'fly'"),
    ("move", {"round": 1}, "move", "move: expected a map"),
    ("reveal", {"round": 1, "slots": [1], "shares": [], "proof": b"", "x": 1}, "reveal",
     r"unexpected field\(s\) \['x'\]"),
    ("accuse", {"round": 1, "refusal": b"", "msg": b""}, "accuse",
     "not an accusation of the host: an accusation has exactly round, refusal, msg and sig"),
    ("accuse", {"round": 1, "refusal": b"", "msg": "m", "sig": b""}, "accuse",
     "refusal, msg and sig are bytes"),
    ("timeout", {"round": 1, "seat": 1}, "timeout",
     "a timeout has exactly round, seat and waited"),
    ("timeout", {"round": 1, "seat": 1, "waited": -1}, "timeout",
     "seat and waited must be integers ≥ 0"),
    ("abandon", {"round": 1, "seat": "1", "waited": 9}, "abandon",
     "a false abandonment: seat and waited must be integers ≥ 0"),
    ("abandon", {"round": 1, "seat": 1, "waited": 9, "x": 0}, "abandon",
     "a false abandonment: an abandonment has exactly round, seat and waited"),
    ("chat", {"text": "hi", "x": 1}, "chat", "with no other key"),
    ("chat", {"text": "x" * 501}, "chat", "≤ 500 characters"),
])
def test_split_a_malformed_body_is_refused_by_its_parser_naming_its_author(
        kind: str, body: dict[str, Any], step: str, want: str) -> None:
    with pytest.raises(GameError, match=want) as e:
        split_bodies.parse(1, kind, body)
    assert (e.value.seat, e.value.step) == (1, step)


def test_split_an_unknown_kind_and_a_bool_int_are_refused_before_any_parser() -> None:
    with pytest.raises(UnknownKind):
        split_bodies.parse(2, "steal", {"round": 1})
    with pytest.raises(NotAnInt, match=r"move\.seat: expected an int, got true"):
        split_bodies.parse(2, "move", {"round": 1, "move": {"type": "draw_pile",
                                                            "seat": True}, "x": 1})


def test_split_a_body_both_malformed_and_untimely_is_refused_as_malformed() -> None:
    """GAME.md "Integer fields": a body is checked whole, after its round, before the
    game's state: a move with a stray field, sent while the seats still commit, is
    refused for its field (not as out of turn), naming its sender; nothing changes."""
    g = split_game()
    core = g.cores[0]
    assert core.round is not None and core.round.stage == "commit"
    before = (core.round.stage, set(core.round.committed))
    with pytest.raises(GameError, match=r"unexpected field\(s\) \['x'\]") as e:
        core.apply(1, "move", {"round": 1, "move": action_to_dict(DrawPile(1)), "x": 1})
    assert e.value.seat == 1 and type(e.value) is GameError
    assert (core.round.stage, set(core.round.committed)) == before
    with pytest.raises(GameError, match="out of turn"):  # the same move, well-formed
        core.apply(1, "move", {"round": 1, "move": action_to_dict(DrawPile(1))})


HEX = "ab" * 32
REVEAL = {"round": 1, "turn": 0, "slot": 3, "card": "n7", "side": "left", "nonce": "x",
          "share": {"slots": [3]}}
PASS = {"round": 1, "turn": 0, "to": 2, "eph": b"e", "pok": b"p", "box": b"b"}


@pytest.mark.parametrize(("kind", "body", "step", "want"), [
    ("shuffle", {"round": 1, "deck_of": "hands"}, "shuffle",
     'deck_of must be "objectives" or "cards"'),
    ("deal", {"round": 1, "hands": {}}, "deal", "a deal has exactly central and hands"),
    ("move", {"round": 1, "turn": 0}, "move", r"S7\.3: a move is exactly \{turn, commit\}"),
    ("move", {"round": 1, "turn": 0, "commit": HEX.upper()}, "move",
     "S7.3: a commitment is 64 lowercase hex digits"),
    ("move", {"round": 1, "turn": "0", "commit": HEX}, "move", "a turn is an integer"),
    ("reveal", {**REVEAL, "x": 1}, "reveal", r"S7\.3: a reveal is exactly \['card'"),
    ("reveal", {**REVEAL, "slot": "3"}, "reveal", "S4.3: '3' is no dealt card slot"),
    ("reveal", {**REVEAL, "card": 7}, "reveal", "S1.3: '7' is no card id"),
    ("reveal", {**REVEAL, "side": "up"}, "reveal", "S5.2: side is left or right"),
    ("reveal", {**REVEAL, "nonce": b"x"}, "reveal", "nonce a string"),
    ("pass", {**PASS, "x": 1}, "pass", r"S5\.4: a pass is exactly \{turn, to"),
    ("pass", {**PASS, "box": "b"}, "pass", "S5.4: the box must be bytes"),
    ("pass", {**PASS, "eph": "e"}, "pass", "S5.4: eph: expected 32 bytes"),
    ("pass", {**PASS, "to": "2"}, "pass", "to is a seat"),
    ("complain", {"round": 1, "turn": 0, "from": 1, "key": b""}, "complain",
     r"S5\.4: a complaint is exactly"),
    ("complain", {"round": 1, "turn": 0, "from": "1", "key": b"", "proof": b""},
     "complain", "S5.4: no such box was sealed to this seat"),
    ("timeout", {"round": 1, "seat": 1, "waited": 1.5}, "timeout",
     "seat and waited must be integers"),
])
def test_splito_a_malformed_body_is_refused_by_its_parser_naming_its_author(
        kind: str, body: dict[str, Any], step: str, want: str) -> None:
    with pytest.raises(GameError, match=want) as e:
        splito_bodies.parse(1, kind, body)
    assert (e.value.seat, e.value.step) == (1, step)


def test_splito_deal_shares_that_are_no_map_are_no_slots() -> None:
    """A deal's shares that are no map parse to no slots, which the core refuses with
    the words of shares of other slots than those due (SPLITO_GAME.md §4)."""
    body = splito_bodies.parse(0, "deal", {"round": 1, "central": 5, "hands": [1]})
    assert isinstance(body, splito_bodies.DealBody)
    assert body.central == body.hands == splito_bodies.SharesPart(None, {})
    body = splito_bodies.parse(0, "deal", {"round": 1, "central": None,
                                            "hands": {"slots": [1, 2], "shares": []}})
    assert isinstance(body, splito_bodies.DealBody)
    assert body.central is None and body.hands.slots == (1, 2)


@pytest.mark.parametrize(("body", "want"), [
    ({"round": 1, "trick": 1, "slot": 0}, "a move is exactly trick, slot and share"),
    ({"round": 1, "trick": "1", "slot": 0, "share": {}}, "a move is exactly trick"),
    ({"round": 1, "trick": 1, "slot": "0", "share": {}}, "H4.2: slot '0' is not a card"),
])
def test_highcard_a_malformed_move_is_refused_by_its_parser(body: dict[str, Any],
                                                            want: str) -> None:
    with pytest.raises(GameError, match=want) as e:
        highcard_bodies.parse(1, "move", body)
    assert (e.value.seat, e.value.step) == (1, "move")


@pytest.mark.parametrize("kind", ["commit", "shuffle", "open", "prove"])
def test_split_a_deck_body_with_a_stray_purpose_is_refused_by_the_deck(kind: str) -> None:
    """SECURITY.md row 146: a commit, hop, opening or hop proof is its round and the
    deck's message, nothing else (GAME.md "Message kinds"). The core used to drop a
    ``purpose`` key from every body before the deck saw it, so a commit carrying one was
    taken by this implementation and refused by one written from protocol/."""
    body = split_bodies.parse(1, kind, {"round": 1, "purpose": "deal", "x": b""})
    assert isinstance(body, DeckBody) and "purpose" in body.deck


def test_split_a_commit_with_a_stray_purpose_is_refused_naming_its_author() -> None:
    g = split_game()
    honest = dict(next(b for k, b in g.cores[1].outbox() if k == "commit"))
    for i, core in enumerate(g.cores):
        if i == 1:
            continue
        before = set(core.rounds[0].committed)
        with pytest.raises(GameError, match="message fields") as e:
            core.apply(1, "commit", {**honest, "purpose": "deal"})
        assert (e.value.seat, e.value.step) == (1, "commit")
        assert core.rounds[0].committed == before
    g.send(1, "commit", honest)  # the same commitment without it is taken
    assert 1 in g.cores[0].rounds[0].committed


@pytest.mark.parametrize("body", [
    {"round": 1, "reason": "two aces", "x": 1}, {"round": 1, "reason": 7}, {"round": 1}])
def test_split_an_alarm_is_exactly_its_round_and_a_reason(body: dict[str, Any]) -> None:
    """SECURITY.md row 146: an alarm is `round, reason` (GAME.md); the core used to take
    any other key, and a reason of any type."""
    with pytest.raises(GameError, match="an alarm is exactly round and reason") as e:
        split_bodies.parse(2, "alarm", body)
    assert (e.value.seat, e.value.step) == (2, "alarm")
