"""The strong level's flat rollout (splitnet.games.split.bots.rollout) against the reference: the
heuristic (HeuristicBot) choosing on the checked engine. Same moves, same random draws,
same final marks, over seeded deals of 2–6 players and from every phase (R4–R6)."""

from __future__ import annotations

import random

import pytest

from splitnet.games.split.bots import HeuristicBot, RandomBot
from splitnet.games.split.bots.opponents import Targeting
from splitnet.games.split.bots.rollout import Step, rollout
from splitnet.games.split.bots.search import SearchConfig, StrongBot
from splitnet.games.split.rules import (
    Action,
    BonusDraw,
    BonusMark,
    Discard,
    DrawPile,
    EndLateLays,
    Game,
    LateLay,
    Lay,
    Settings,
    SkipBonus,
    TakeRow,
    Upgrade,
)
from splitnet.games.split.rules.actions import action_name

_END = ("round_over", "game_over")


def _step(g: Game, a: Action) -> Step:
    """An engine move in the rollout's trace form (cards by card id)."""
    f = g.faces
    if isinstance(a, TakeRow):
        return ("take_row", a.seat, a.index)
    if isinstance(a, Lay | LateLay):
        return (action_name(a), a.seat, f[a.a], f[a.b])
    if isinstance(a, Upgrade):
        return ("upgrade", a.seat, f[a.slot], a.match_id, a.covers)
    if isinstance(a, Discard):
        return ("discard", a.seat, f[a.slot])
    if isinstance(a, BonusMark):
        return ("bonus_mark", a.seat, a.target)
    assert isinstance(a, DrawPile | BonusDraw | SkipBonus | EndLateLays), a
    return (action_name(a), a.seat)


def _reference(g: Game, seeds: list[int], rules: list[Targeting] | None = None,
               ) -> tuple[list[Step], list[list[int]], list[object]]:
    """The heuristic on the checked engine (``apply``), as the search used to roll out."""
    bots = [HeuristicBot(0, Targeting.NOW if rules is None else rules[i])
            for i in range(g.n)]
    for b, s in zip(bots, seeds, strict=True):
        b.rng.seed(s)
    moves: list[Step] = []
    for _ in range(5000):
        if g.phase in _END:
            break
        seat = g.actor
        assert seat is not None
        a = bots[seat].choose(g, seat)
        assert a in g.legal_moves(seat)
        moves.append(_step(g, a))
        g.apply(a)
    assert g.phase in _END
    marks = [[m["perfect"], m["strong"], m["weak"], m["negative"]] for m in g.marks]
    return moves, marks, [b.rng.getstate() for b in bots]


def _positions(n: int, seed: int, settings: Settings | None = None) -> list[Game]:
    """Positions along a whole game of ``n`` players (every phase the rules have), the
    moves to them mixing the heuristic and random legal moves (swaps, odd picks, …)."""
    rng = random.Random(seed)
    g = Game(n, settings)
    heur = [HeuristicBot(seed * 10 + i) for i in range(n)]
    rand = [RandomBot(seed * 10 + i) for i in range(n)]
    out: list[Game] = []
    for _ in range(g.settings.rounds):
        faces = list(range(104))
        rng.shuffle(faces)
        g.start_round(faces)
        while g.phase not in _END:
            if rng.random() < 0.15:
                out.append(g.clone())
            seat = g.actor
            assert seat is not None
            bot = rand[seat] if rng.random() < 0.2 else heur[seat]
            g.apply(bot.choose(g, seat))
        out.append(g.clone())  # a finished round: nothing to play
    return out


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("seed", range(8))
def test_flat_rollout_plays_the_heuristics_moves_to_the_same_marks(n: int, seed: int) -> None:
    checked = 0
    for pos in _positions(n, seed):
        seeds = [seed * 1000 + checked * 8 + i for i in range(n)]
        before = pos.clone().__dict__
        rngs = [random.Random(s) for s in seeds]
        trace: list[Step] = []
        marks = rollout(pos, rngs, trace)
        assert pos.__dict__.keys() == before.keys()
        ref_moves, ref_marks, ref_rng = _reference(pos.clone(), seeds)
        assert trace == ref_moves
        assert marks == ref_marks
        assert [r.getstate() for r in rngs] == ref_rng  # the same random draws, too
        checked += 1
    assert checked >= 3


@pytest.mark.parametrize("n", [2, 3, 4, 6])
@pytest.mark.parametrize("seed", range(4))
def test_flat_rollout_plays_each_seats_targeting_rule(n: int, seed: int) -> None:
    """R5.1 by another rule per seat (the strong level's model of its opponents): the
    leader by the scored pads, or anyone at random — as HeuristicBot.targeting."""
    pick = random.Random(seed)
    checked = marks_given = 0
    positions = _positions(n, seed + 50)
    for pos in positions:
        rules = [pick.choice(list(Targeting)) for _ in range(n)]
        seeds = [seed * 1000 + checked * 8 + i for i in range(n)]
        rngs = [random.Random(s) for s in seeds]
        trace: list[Step] = []
        marks = rollout(pos, rngs, trace, rules)
        ref_moves, ref_marks, ref_rng = _reference(pos.clone(), seeds, rules)
        assert trace == ref_moves
        assert marks == ref_marks
        assert [r.getstate() for r in rngs] == ref_rng
        marks_given += sum(1 for t in trace if t[0] == "bonus_mark")
        checked += 1
    assert checked >= 3 and marks_given >= 3
    live = next(p for p in positions if p.phase not in _END)
    with pytest.raises(ValueError, match="targeting"):
        rollout(live, rngs, None, [Targeting.NOW])


def test_flat_rollout_follows_the_house_rule_and_pad() -> None:
    """``upgrade_takes_match`` off (R4.3b) and a short pad whose rows fill (R7.2)."""
    from splitnet.games.split.rules import Pad

    pad = Pad(perfect=(0, 5, 9), strong=(0, 3), weak=(0, 1, 2), negative=(0, 2, 5, 9))
    s = Settings(upgrade_takes_match=False, pad=pad)
    for n in (2, 4, 6):
        for seed in range(3):
            for i, pos in enumerate(_positions(n, 100 + seed, s)):
                seeds = [i * 8 + k for k in range(n)]
                trace: list[Step] = []
                marks = rollout(pos, [random.Random(x) for x in seeds], trace)
                ref_moves, ref_marks, _ = _reference(pos.clone(), seeds)
                assert (trace, marks) == (ref_moves, ref_marks)


def test_flat_rollout_refuses_a_view_with_hidden_faces() -> None:
    g = Game(3)
    faces: list[int | None] = list(range(104))
    faces[60] = None  # a draw-pile card this peer cannot see (R8.1)
    g.start_round(faces)
    with pytest.raises(ValueError, match="R8"):
        rollout(g, [random.Random(0)] * 3)


def test_the_search_decides_the_same_with_either_rollout() -> None:
    """The strong bot with the flat rollout values every candidate exactly as with the
    heuristic on the engine (``SearchConfig.reference_rollouts``)."""
    decided = 0
    for n in (2, 4, 5):
        for pos in _positions(n, 40 + n)[::3]:
            if pos.phase in _END:
                continue
            seat = pos.actor
            assert seat is not None
            fast = StrongBot(9, SearchConfig(samples=3)).decide(pos, seat)
            ref = StrongBot(9, SearchConfig(samples=3, reference_rollouts=True)).decide(
                pos, seat)
            assert (fast.action, fast.values) == (ref.action, ref.values)
            decided += fast.searched
    assert decided >= 10
