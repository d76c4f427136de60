"""The open-handed seat's rules O1–O7 (protocol/OPEN_HAND.md; R8.6), by their vectors
(tests/vectors/open_hand_v1.json, checked byte for byte): public positions, each with
the one move the rules choose, and one whole abandoned game whose record is pinned.

Regenerate (only after a deliberate change of the rules, which is a protocol change):
``.venv/bin/python -m tests.test_open_hand_policy --write``.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from splitnet.games.split import open_hand_policy as policy
from splitnet.games.split.bots import make_bot
from splitnet.games.split.local import LocalGame, SelfplaySecrets
from splitnet.games.split.open_hand import public_view
from splitnet.games.split.open_hand_policy import OpenHandHidden, open_hand_choice, open_hand_player
from splitnet.games.split.record import dumps
from splitnet.games.split.rules import (
    Action,
    BonusDraw,
    BonusMark,
    Game,
    LateLay,
    Lay,
    Match,
    Phase,
    RoundEnd,
    Settings,
    SkipBonus,
    TakeRow,
    Upgrade,
    action_from_dict,
    action_to_dict,
)
from splitnet.localplay import LocalTable, SeededShuffle
from splitnet.session.transcript import MAGIC, records_from_bytes
from splitnet.verify import verify_records

PATH = Path(__file__).parent / "vectors" / "open_hand_v1.json"
GAME_PATH = Path(__file__).parent / "vectors" / "open_hand_game_v1.splitlog"
GAME_SEED, GAME_NAMES, LEAVER, LEAVE_AT = 11, ("Ana", "Ben", "Cy"), 2, 40


# --------------------------------------------------------------- the position format
def pairs(view: Game, slots: list[int]) -> list[list[int]]:
    """[[slot, card id], …]: the faces of public slots (OPEN_HAND.md "Vectors")."""
    out = []
    for s in slots:
        f = view.faces[s]
        assert f is not None
        out.append([s, f])
    return out


def position(view: Game, seat: int) -> dict[str, Any]:
    """The public position the rules read, in the vectors' form."""
    return {
        "players": view.n, "seat": seat,
        "upgrade_takes_match": view.settings.upgrade_takes_match,
        "phase": str(view.phase), "pending_bonus": view.pending_bonus,
        "picked": view.picked if view.phase == "must_play" else None,
        "hand": pairs(view, view.hands[seat]), "row": pairs(view, view.row),
        "matches": [{"id": m.id, "owner": m.owner, "kind": m.kind, "top": pairs(view, m.top),
                     "under": pairs(view, m.under)} for m in view.matches],
        "pile": view.pile_count, "hand_sizes": [len(h) for h in view.hands],
        "marks": [dict(m) for m in view.marks],
        "round_marks": [dict(m) for m in view.round_marks],
    }


def build(p: dict[str, Any]) -> Game:
    """A rules engine in position ``p``, knowing only its public faces: the open seat's
    hand, the row and the matches; the other hands are unknown slots (as many as
    ``hand_sizes`` says) and the pile is the last ``pile`` slots."""
    n, seat = p["players"], p["seat"]
    g = Game(n, Settings(upgrade_takes_match=p["upgrade_takes_match"]))
    g.round_no = 1
    g.phase = Phase(p["phase"])
    g.pending_bonus = p["pending_bonus"]
    g.picked = p["picked"]
    g.turn = seat
    g.late_queue = [seat] if g.phase == "late_lays" else []
    if g.phase == "late_lays":  # someone went out on their first turn (R6.2)
        g.last_end = RoundEnd("out", (seat + n - 1) % n)
    faces: list[int | None] = [None] * 104
    known = [*p["hand"], *p["row"]]
    for m in p["matches"]:
        known += m["top"] + m["under"]
    for s, f in known:
        assert faces[s] is None
        faces[s] = f
    g.faces = faces
    g.pile_next = 104 - p["pile"]
    free = iter(s for s in range(g.pile_next) if faces[s] is None)
    g.hands = [[s for s, _ in p["hand"]] if t == seat else
               [next(free) for _ in range(p["hand_sizes"][t])] for t in range(n)]
    g.row = [s for s, _ in p["row"]]
    g.matches = [Match(m["id"], m["owner"], [s for s, _ in m["top"]],
                       [s for s, _ in m["under"]], m["kind"]) for m in p["matches"]]
    g.marks = [dict(m) for m in p["marks"]]
    g.round_marks = [dict(m) for m in p["round_marks"]]
    return g


# --------------------------------------------------------------- the positions
class Rules:
    """The rules O1–O7 at a seat, deciding on its own view (which knows no more than the
    public view plus the seat's own hand, public anyway for an open seat)."""

    name = "open-hand"

    def choose(self, game: Game, seat: int) -> Action:
        return open_hand_choice(game, seat)


def case(view: Game, seat: int) -> str | None:
    """Which rule (and which branch of it) decides in ``view``; None if uninteresting."""
    move = open_hand_choice(view, seat)
    phase = view.phase
    if phase == "draw":
        if isinstance(move, TakeRow):
            return "O1 take" if move.index < len(view.row) - 1 else "O1 take newest"
        return "O1 pile, a pick not worth it" if view.row_picks(seat) else None
    if phase == "must_play":
        return "O2 after a pick"
    if phase == "play":
        if isinstance(move, Upgrade):
            mine = view.matches[move.match_id].owner == seat
            return "O2 upgrade own" if mine else "O2 upgrade another's"
        if isinstance(move, Lay):
            return "O2 lay" if len(view.play_moves(seat)) > 1 else None
        return "O3 discard" if len(view.hands[seat]) >= 4 else None
    if phase == "bonus":
        if isinstance(move, BonusMark):
            return "O4 perfect"
        if isinstance(move, BonusDraw):
            return "O5 strong"
        if isinstance(move, SkipBonus) and view.pending_bonus == "weak":
            return "O6 weak"
    return None


def found_positions() -> list[dict[str, Any]]:
    """The first position of each case in seeded 4-seat games of the rules at every seat
    (local seeded deals, SeededShuffle(i) for i = 0, 1, …)."""
    out: dict[str, dict[str, Any]] = {}
    i = 0
    while len(out) < 11 and i < 200:
        table = LocalTable([f"p{s}" for s in range(4)], [Rules() for _ in range(4)],
                           SeededShuffle(i))
        for _ in range(table.settings.rounds):
            table.start_round()
            while table.referee.phase not in ("round_over", "game_over"):
                seat = table.referee.actor
                assert seat is not None
                view = table.views[seat]
                c = case(view, seat)
                if c is not None and c not in out and view.matches:
                    out[c] = {"rule": c, "seeded_game": i, **position(view, seat)}
                table.step()
        i += 1
    return sorted(out.values(), key=lambda p: str(p["rule"]))


def marks(p: int = 0, s: int = 0, w: int = 0, n: int = 0) -> dict[str, int]:
    return {"perfect": p, "strong": s, "weak": w, "negative": n}


def made_positions() -> list[dict[str, Any]]:
    """Positions the seeded games rarely meet, written by hand. Cards by id (R1.2, id =
    (rank·4 + suit)·2 + copy): 2♣ 8, 2♥ 12, 2♠ 14; 5♣ 33; 8♣ 56, 8♦ 58, 8♥ 60/61,
    8♠ 62/63; 9♠ 70; Q♦ 90; K♥ 101."""
    base = {"players": 3, "seat": 1, "upgrade_takes_match": True, "picked": None,
            "marks": [marks(), marks(), marks()], "round_marks": [marks(), marks(), marks()]}
    return [
        # O4 tie: seats 0 and 2 stand equal (no marks, 5 cards each): the first from the
        # open seat's left, 2
        {**base, "rule": "O4 perfect, a tie", "phase": "bonus", "pending_bonus": "perfect",
         "hand": [[3, 8], [6, 33]], "row": [[27, 90]],
         "matches": [{"id": 0, "owner": 1, "kind": "perfect", "top": [[0, 60], [9, 61]],
                      "under": []}],
         "pile": 40, "hand_sizes": [5, 2, 5]},
        # O5: two cards left in the pile: no draw
        {**base, "rule": "O5 strong, the pile nearly out", "phase": "bonus",
         "pending_bonus": "strong", "hand": [[3, 8], [6, 33], [12, 70]], "row": [[27, 90]],
         "matches": [{"id": 0, "owner": 1, "kind": "strong", "top": [[0, 60], [9, 58]],
                      "under": []}],
         "pile": 2, "hand_sizes": [4, 3, 6]},
        # O7: seat 0 went out on its first turn; of 8♠ 8♠ (perfect, v 8) and 2♣ 2♥ (weak,
        # v 4) the perfect pair first
        {**base, "rule": "O7 late lays", "phase": "late_lays", "pending_bonus": None,
         "hand": [[30, 8], [31, 62], [33, 12], [35, 63], [36, 101]], "row": [[27, 90]],
         "matches": [], "pile": 60, "hand_sizes": [0, 5, 9]},
        {**base, "rule": "O7 late lays, done", "phase": "late_lays", "pending_bonus": None,
         "hand": [[30, 8], [36, 101]], "row": [[27, 90]],
         "matches": [{"id": 0, "owner": 1, "kind": "perfect", "top": [[31, 62], [35, 63]],
                      "under": []}], "pile": 60, "hand_sizes": [0, 2, 9]},
        # O2 without upgrade_takes_match: seat 0's weak 8♥ 8♣ made strong with 8♦ (covering
        # 8♣) is worth 1; seat 1's own weak 2♣ 2♥ made strong with 2♠ (covering 2♥) 3
        {**base, "upgrade_takes_match": False, "rule": "O2 upgrade, matches not taken",
         "phase": "play", "pending_bonus": None,
         "hand": [[3, 58], [6, 14], [12, 70]], "row": [[27, 90]],
         "matches": [{"id": 0, "owner": 0, "kind": "weak", "top": [[0, 60], [9, 56]],
                      "under": []},
                     {"id": 1, "owner": 1, "kind": "weak", "top": [[1, 8], [10, 12]],
                      "under": []}],
         "pile": 40, "hand_sizes": [4, 3, 6]},
    ]


def game_record() -> tuple[bytes, str]:
    """The whole abandoned game: 3 seats (Ana, Ben, Cy), two rounds, no shuffle proofs,
    SelfplaySecrets(11); every seat plays by the rules O1–O7 on its own view; Cy falls
    silent at the 40th step of play and is abandoned: round 1 ends there (R8.6) and Cy is
    played open-handed in round 2. Its transcript and record text."""
    g = LocalGame(list(GAME_NAMES), Settings(rounds=2), SelfplaySecrets(GAME_SEED),
                  shuffle_proofs=False, open_hand=open_hand_player)
    steps = [0]

    def on_step(g: LocalGame) -> None:
        steps[0] += 1
        r = g.cores[0].round
        if steps[0] >= LEAVE_AT and not g.silent and r is not None and r.stage == "play":
            g.silent.add(LEAVER)

    g.run_bots([Rules() for _ in GAME_NAMES], open_hand_after=30, on_step=on_step)
    assert g.finished and g.verdict is None and g.cores[0].open_seats == {LEAVER}
    data = MAGIC + b"".join(len(r).to_bytes(4, "big") + r for r in g.log.records())
    return data, dumps(g.cores[0].record)


def compute_vectors() -> dict[str, Any]:
    positions = [*found_positions(), *made_positions()]
    for p in positions:
        g = build(p)
        p["move"] = action_to_dict(open_hand_choice(g, p["seat"]))
    data, record = game_record()
    return {
        "description": "the open-handed seat's rules O1-O7 (protocol/OPEN_HAND.md): public "
        "positions (cards by id R1.2, slots as GAME.md) and the move chosen; and one whole "
        "abandoned game (3 seats, 2 rounds, no shuffle proofs, every seat by O1-O7, seat 2 "
        "abandoned during the play of deal 1, which the seats present then prove): "
        "its transcript open_hand_game_v1.splitlog and the SHA-256 of its record text",
        "positions": positions,
        "game": {"transcript": GAME_PATH.name,
                 "transcript_sha256": hashlib.sha256(data).hexdigest(),
                 "record_sha256": hashlib.sha256(record.encode()).hexdigest(),
                 "open_seat": LEAVER},
    }


def text(v: dict[str, Any]) -> str:
    """The file's exact text: one position a line."""
    lines = ",\n  ".join(json.dumps(p) for p in v["positions"])
    return (f'{{\n "description": {json.dumps(v["description"])},\n'
            f' "positions": [\n  {lines}\n ],\n "game": {json.dumps(v["game"])}\n}}\n')


# --------------------------------------------------------------- the tests
@pytest.fixture(scope="module")
def vectors() -> dict[str, Any]:
    v: dict[str, Any] = json.loads(PATH.read_text())
    return v


def test_the_vector_file_is_what_the_rules_give_byte_for_byte() -> None:
    assert text(compute_vectors()) == PATH.read_text()


def test_every_rule_has_a_vector(vectors: dict[str, Any]) -> None:
    rules = {p["rule"].split()[0] for p in vectors["positions"]}
    assert rules == {f"O{i}" for i in range(1, 8)}


def test_each_position_gives_its_move(vectors: dict[str, Any]) -> None:
    """O1–O7 from the written position alone (what another implementation has)."""
    for p in vectors["positions"]:
        g = build(p)
        move = open_hand_choice(g, p["seat"])
        assert action_to_dict(move) == p["move"], p["rule"]
        g.check(move)  # a legal move
        assert action_from_dict(p["move"]) == move


def test_hand_made_positions_by_hand(vectors: dict[str, Any]) -> None:
    """The moves of the hand-written positions, worked out from OPEN_HAND.md by hand."""
    want = {"O4 perfect, a tie": {"type": "bonus_mark", "seat": 1, "target": 2},
            "O5 strong, the pile nearly out": {"type": "skip_bonus", "seat": 1},
            "O7 late lays": {"type": "late_lay", "seat": 1, "a": 31, "b": 35},
            "O7 late lays, done": {"type": "end_late_lays", "seat": 1},
            "O2 upgrade, matches not taken": {"type": "upgrade", "seat": 1, "slot": 6,
                                              "match_id": 1, "covers": 1}}
    got = {p["rule"]: p["move"] for p in vectors["positions"] if p["rule"] in want}
    assert got == want


def test_the_rules_read_only_public_cards(vectors: dict[str, Any]) -> None:
    """The same move on a view that knows more (the seat's whole engine) and on the
    public view; a view lacking one of the open seat's cards is refused in one line."""
    for p in vectors["positions"]:
        g = build(p)
        public = {s for s, f in enumerate(g.faces) if f is not None}
        assert open_hand_choice(public_view(g, public), p["seat"]) == open_hand_choice(
            g, p["seat"])
        hidden = public - {g.hands[p["seat"]][0]}
        with pytest.raises(OpenHandHidden, match=r"^R8\.6: .* slot \d+ is not public") as e:
            open_hand_choice(public_view(g, hidden), p["seat"])
        assert "\n" not in str(e.value)


def test_the_seed_changes_nothing(vectors: dict[str, Any]) -> None:
    p = vectors["positions"][0]
    moves = {open_hand_player(build(p), p["seat"], seed) for seed in (0, 1, 2**63)}
    assert len(moves) == 1


def test_not_the_seat_to_move_is_refused_in_one_line(vectors: dict[str, Any]) -> None:
    p = vectors["positions"][0]
    with pytest.raises(ValueError, match=r"^R8\.6: the open seat's player moves for the "
                       r"seat to move, not seat"):
        open_hand_choice(build(p), (p["seat"] + 1) % p["players"])


def test_the_abandoned_game_verifies_to_the_pinned_record(vectors: dict[str, Any]) -> None:
    """The stored transcript: verify derives the open seat's moves by O1–O7 and rebuilds
    the pinned record; replaying the game gives the same transcript."""
    v = vectors["game"]
    data = GAME_PATH.read_bytes()
    assert hashlib.sha256(data).hexdigest() == v["transcript_sha256"]
    result = verify_records(records_from_bytes(data, GAME_PATH))
    assert result.ok, result.summary
    assert hashlib.sha256(dumps(result.record).encode()).hexdigest() == v["record_sha256"]
    first, second = result.record["rounds"]
    assert first["end"]["reason"] == "abandoned" and first["end"]["seat"] == v["open_seat"]
    assert any(t["seat"] == v["open_seat"] for t in second["turns"])  # played by O1–O7
    again, record = game_record()
    assert again == data
    assert hashlib.sha256(record.encode()).hexdigest() == v["record_sha256"]


def test_the_rules_play_well_enough_against_the_normal_bot() -> None:
    """Not a benchmark (protocol/OPEN_HAND.md gives the figures): 40 seeded 4-seat games,
    the rules at one seat (rotating) against three normal bots, win about a quarter."""
    from splitnet.bench.split import seat_rotated_games

    wins, games = seat_rotated_games(lambda s: Rules(), lambda s: make_bot("normal", s), 40,
                                     seed=7)
    assert wins >= 0.15 * games


def test_a_view_the_engine_built_and_the_position_form_agree() -> None:
    """build(position(view)) is the same position (the format loses nothing the rules
    read): in a seeded game, at every decision of seat 0."""
    table = LocalTable(["a", "b", "c"], [Rules() for _ in range(3)], SeededShuffle(5))
    table.start_round()
    checked = 0
    while table.referee.phase not in ("round_over", "game_over"):
        seat = table.referee.actor
        assert seat is not None
        view = table.views[seat]
        if seat == 0:
            assert open_hand_choice(build(position(view, 0)), 0) == open_hand_choice(view, 0)
            checked += 1
        table.step()
    assert checked > 5


def test_the_values_are_those_of_the_document() -> None:
    assert policy.B == {"weak": 2, "strong": 4, "perfect": 6}
    assert (policy.PAIR, policy.SINGLE, policy.STRONG_DRAW_PILE) == (6, 1, 3)
    g = build(made_positions()[4])
    assert [policy.play_value(g, 1, m) for m in g.play_moves(1)] == [1, 3]
    late = build(made_positions()[2])
    assert sorted(policy.play_value(late, 1, m) for m in late.legal_moves(1)
                  if isinstance(m, LateLay)) == [4, 8]  # a lay's: B + 2


if __name__ == "__main__":  # pragma: no cover
    if "--write" in sys.argv:
        data, _ = game_record()
        GAME_PATH.write_bytes(data)
        PATH.write_text(text(compute_vectors()))
