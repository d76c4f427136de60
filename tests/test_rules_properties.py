"""Properties over random legal play (hypothesis), bots, determinism and the record."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from splitnet.cards import name
from splitnet.games.split.bots import HeuristicBot, RandomBot, make_bot
from splitnet.games.split.rules import (
    BonusMark,
    Discard,
    DrawPile,
    Game,
    IllegalMove,
    Lay,
    TakeRow,
    Upgrade,
)
from tests.stand_in import play_local


def conservation(g: Game) -> None:
    """All 104 halves are in exactly one place (pile, row, a hand, a match top or under)."""
    places: list[int] = list(range(g.pile_next, 104)) + list(g.row)
    for h in g.hands:
        places += h
    for m in g.matches:
        places += m.top + m.under
    assert sorted(places) == list(range(104)), "a card is lost or in two places"


def check_scores(g: Game) -> None:
    pad = g.settings.pad
    for s in range(g.n):
        m = g.marks[s]
        assert g.score(s) == (pad.value("perfect", m["perfect"]) + pad.value("strong", m["strong"])
                              + pad.value("weak", m["weak"]) - pad.value("negative", m["negative"]))


def random_game(n: int, seed: int, check: bool = True) -> Game:
    rng = random.Random(seed)
    g = Game(n)
    bots = [RandomBot(seed * 7 + i) for i in range(n)]
    for _ in range(3):
        faces = list(range(104))
        rng.shuffle(faces)
        g.start_round(faces)
        steps = 0
        while g.phase not in ("round_over", "game_over"):
            seat = g.actor
            assert seat is not None
            g.apply(bots[seat].choose(g, seat))
            steps += 1
            assert steps < 5000
            if check:
                conservation(g)
        conservation(g)
        check_scores(g)
    assert g.phase == "game_over"
    return g


@settings(max_examples=60, deadline=None)
@given(n=st.integers(2, 6), seed=st.integers(0, 2**32))
def test_R1_R6_cards_are_conserved_and_scores_follow_the_pad(n: int, seed: int) -> None:
    random_game(n, seed)


def test_thousands_of_random_games_of_2_to_6_players_end_without_error() -> None:
    for i in range(1000):
        random_game(2 + i % 5, 10_000 + i, check=False)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(2, 6), seed=st.integers(0, 2**32), data=st.data())
def test_every_illegal_action_is_rejected_with_the_state_unchanged(n: int, seed: int,
                                                                    data: Any) -> None:
    rng = random.Random(seed)
    g = Game(n)
    faces = list(range(104))
    rng.shuffle(faces)
    g.start_round(faces)
    bot = RandomBot(seed)
    for _ in range(data.draw(st.integers(0, 60))):
        if g.phase in ("round_over", "game_over"):
            break
        seat = g.actor
        assert seat is not None
        g.apply(bot.choose(g, seat))
    if g.phase in ("round_over", "game_over"):
        return
    seat = data.draw(st.integers(0, n - 1))
    slot = data.draw(st.integers(0, 103))
    slot2 = data.draw(st.integers(0, 103))
    cand = data.draw(st.sampled_from([
        DrawPile(seat), TakeRow(seat, data.draw(st.integers(0, 12))), Lay(seat, slot, slot2),
        Upgrade(seat, slot, data.draw(st.integers(0, 8)), data.draw(st.integers(0, 1))),
        Discard(seat, slot), BonusMark(seat, data.draw(st.integers(0, 6)))]))
    legal = g.legal_moves(g.actor or 0)
    before = copy.deepcopy(g.__dict__)
    if cand in legal:
        g.apply(cand)
        return
    try:
        g.apply(cand)
    except IllegalMove as e:
        assert e.rule.startswith("R") and e.reason
        assert g.__dict__ == before
    else:
        raise AssertionError(f"{cand} was accepted but not generated as legal")


def test_same_seed_replays_identically() -> None:
    a = play_local(4, [make_bot("heuristic", 1), *(make_bot("random", i) for i in range(3))], 5)
    b = play_local(4, [make_bot("heuristic", 1), *(make_bot("random", i) for i in range(3))], 5)
    assert json.dumps(a.record) == json.dumps(b.record)


def test_heuristic_beats_three_random_bots_in_at_least_80_percent_of_200_games() -> None:
    wins = 0
    for seed in range(200):
        bots = [HeuristicBot(seed), RandomBot(seed + 1), RandomBot(seed + 2), RandomBot(seed + 3)]
        rot = seed % 4  # the heuristic bot sits at every seat in turn
        bots = bots[-rot:] + bots[:-rot] if rot else bots
        table = play_local(4, bots, seed)
        winners = table.record["winners"]
        assert isinstance(winners, list)
        if any(table.players[w].startswith("heuristic") for w in winners):
            wins += 1
    assert wins >= 160, f"heuristic won {wins} of 200"


def test_record_format_fields_and_events_replay() -> None:
    t = play_local(3, [make_bot("heuristic", 3), make_bot("random", 4), make_bot("random", 5)],
                   11)
    rec: dict[str, Any] = t.record
    assert rec["format"] == "splitnet-game-record/1"
    assert [p["seat"] for p in rec["players"]] == [0, 1, 2]
    assert rec["settings"]["pad"]["perfect"][:3] == [0, 6, 13]
    assert len(rec["rounds"]) == 3
    for rnd in rec["rounds"]:
        assert set(rnd) >= {"number", "dealer", "hands", "first_discard", "turns", "end"}
        assert all(len(h) == 9 for h in rnd["hands"].values())
        types = {ev["type"] for turn in rnd["turns"] for ev in turn["events"]}
        assert types <= {"draw_pile", "take_row", "lay", "upgrade", "bonus_mark", "bonus_draw",
                         "bonus_swap", "discard"}
        assert rnd["end"]["reason"] in ("out", "pile_empty")
        assert set(rnd["end"]) >= {"reason", "seat", "late_lays", "hands_left", "marks"}
    # Totals are the sums of the rounds' marks.
    for s in ("0", "1", "2"):
        for row in ("perfect", "strong", "weak", "negative"):
            assert rec["totals"][s][row] == sum(r["end"]["marks"][s][row] for r in rec["rounds"])
    # The views of the seats never knew the pile order.
    for view in t.views:
        assert all(view.faces[x] is None or x < view.pile_next for x in range(104))
    assert name(0) == "AC"


def test_R8_each_seat_view_holds_only_what_it_may_know() -> None:
    """R8.1/R8.3: a seat knows public cards and cards that have been in its own hand."""
    from splitnet.localplay import LocalTable, SeededShuffle

    bots = [make_bot("random", i) for i in range(4)]
    table = LocalTable([f"p{i}" for i in range(4)], bots, SeededShuffle(9))
    held: list[set[int]] = [set() for _ in range(4)]
    checks = 0

    def observe(action: object, t: LocalTable) -> None:
        nonlocal checks
        if action is None:
            for h in held:
                h.clear()
        for s, view in enumerate(t.views):
            held[s] |= set(view.hands[s])
            for slot in range(104):
                if view.faces[slot] is not None and t.referee.faces[slot] is None:
                    assert slot in held[s], f"seat {s} knows slot {slot} it never held"
                    checks += 1
            assert all(view.faces[x] is None for x in range(view.pile_next, 104))

    table.observers.append(observe)
    table.run()
    assert checks > 1000


@settings(max_examples=60, deadline=None)
@given(n=st.integers(2, 6), seed=st.integers(0, 2**32), heuristic=st.booleans())
def test_trusted_apply_equals_checked_apply_on_generated_moves(n: int, seed: int,
                                                                 heuristic: bool) -> None:
    """The search bots' fast path (``apply_trusted``) leaves exactly the state the checked
    ``apply`` leaves, for every kind of generated move (R4–R6), over whole games."""
    rng = random.Random(seed)
    checked, trusted = Game(n), Game(n)
    bots: list[Any] = [(HeuristicBot if heuristic else RandomBot)(seed + i) for i in range(n)]
    chooser = random.Random(seed ^ 0x5EED)
    for _ in range(3):
        faces = list(range(104))
        rng.shuffle(faces)
        checked.start_round(faces)
        trusted.start_round(faces)
        for _step in range(5000):
            if checked.phase in ("round_over", "game_over"):
                break
            seat = checked.actor
            assert seat is not None
            legal = checked.legal_moves(seat)
            # mostly the bot's move, sometimes any generated one (swaps, odd picks …)
            move = chooser.choice(legal) if chooser.random() < 0.3 else bots[seat].choose(
                checked, seat)
            assert move in legal
            checked.apply(move)
            trusted.apply_trusted(move)
            # the whole state, field by field and value by value (the values are lists,
            # dicts, ints, enums and dataclasses: == is their value, as a deep copy's)
            assert trusted.__dict__ == checked.__dict__, move
        assert checked.phase in ("round_over", "game_over")


@settings(max_examples=40, deadline=None)
@given(n=st.integers(2, 6), seed=st.integers(0, 2**32))
def test_kind_specific_generators_match_the_rules(n: int, seed: int) -> None:
    """``row_picks`` (one incremental pass) gives exactly the indices R4.1b allows as the
    checked apply judges them, and ``play_moves`` + ``discard_moves`` are the plays and
    discards of ``legal_moves``."""
    rng = random.Random(seed)
    g = Game(n)
    bots = [RandomBot(seed + i) for i in range(n)]
    for _ in range(3):
        faces = list(range(104))
        rng.shuffle(faces)
        g.start_round(faces)
        while g.phase not in ("round_over", "game_over"):
            seat = g.actor
            assert seat is not None
            if g.phase == "draw":
                accepted = []
                for i in range(len(g.row)):
                    try:
                        g.check(TakeRow(seat, i))
                    except IllegalMove:
                        continue
                    accepted.append(i)
                assert g.row_picks(seat) == accepted
                assert g.row_picks((seat + 1) % n) == []
            if g.phase in ("play", "must_play"):
                legal = g.legal_moves(seat)
                assert [m for m in legal if isinstance(m, Lay | Upgrade)] == g.play_moves(seat)
                assert [m for m in legal if isinstance(m, Discard)] == g.discard_moves(seat)
            g.apply(bots[seat].choose(g, seat))
