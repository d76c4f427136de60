"""Game message bodies are typed after validation (splitnet/game/bodies.py): each core
parses an entry's body once, at its edge, into a frozen value of its kind's type and
reads only that; what is signed and kept is the raw body, unchanged."""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

import pytest

from splitnet.game.bodies import AbandonBody, ChatBody, TimeoutBody
from splitnet.game.table import GameError, NotAnInt, UnknownKind
from splitnet.games.split import bodies as split_bodies
from splitnet.games.split.bots import make_bot
from splitnet.games.split.local import LocalGame, SelfplaySecrets
from splitnet.games.split.open_hand_policy import open_hand_player
from splitnet.games.split.rules import DrawPile, Settings, action_to_dict
from splitnet.verify import verify_records

SPLIT_TYPES: dict[str, type] = {
    "commit": split_bodies.CommitBody, "shuffle": split_bodies.ShuffleBody,
    "shares": split_bodies.SharesBody, "move": split_bodies.MoveBody,
    "reveal": split_bodies.RevealBody, "alarm": split_bodies.AlarmBody,
    "open": split_bodies.OpenBody, "prove": split_bodies.ProveBody,
    "accuse": split_bodies.AccuseBody, "chat": ChatBody, "timeout": TimeoutBody,
    "abandon": AbandonBody,
}


def split_game(seed: int = 4) -> LocalGame[Any]:
    return LocalGame([f"p{i}" for i in range(3)], Settings(rounds=1, hand_size=3),
                     SelfplaySecrets(seed), shuffle_proofs=False, open_hand=open_hand_player)


def test_split_has_one_typed_body_per_kind() -> None:
    assert set(SPLIT_TYPES) == set(split_bodies.KINDS) == set(split_bodies.BODIES.parsers)
    for kind, t in SPLIT_TYPES.items():
        assert dataclasses.is_dataclass(t), kind
        assert t.__dataclass_params__.frozen, kind  # type: ignore[attr-defined]
        assert "__slots__" in t.__dict__, kind


def test_every_entry_of_a_whole_split_game_parses_to_its_kind_s_type_unchanged() -> None:
    """Every entry of an honest game parses to its kind's frozen type; parsing leaves
    the raw body as it was, and the record still verifies byte for byte."""
    g = split_game()
    g.run_bots([make_bot("random", i) for i in range(3)])
    records = g.log.records()
    assert verify_records(records).ok
    seen: set[str] = set()
    for e in g.log.entries[1:]:
        if e.kind == "accept":
            continue
        raw = dict(e.body)
        before = copy.deepcopy(raw)
        body = split_bodies.parse(e.author, e.kind, raw)
        assert type(body) is SPLIT_TYPES[e.kind] and raw == before
        with pytest.raises(dataclasses.FrozenInstanceError):
            body.round = 2  # type: ignore[misc,union-attr]
        if isinstance(body, split_bodies.MoveBody):
            assert action_to_dict(body.action) == raw["move"]
        seen.add(e.kind)
    assert {"commit", "shares", "move", "open"} <= seen, seen
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
