"""The strong level's model of how the other seats aim the perfect bonus (R5.1): the
public replay of the round's marks, and the rules it infers from them (R8: from what
every seat sees, never a hidden face)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from splitnet.games.split.bots import EasyBot, HeuristicBot, RandomBot
from splitnet.games.split.bots.opponents import (
    PRIOR,
    MarkSeen,
    Targeting,
    TargetModel,
    likelihood,
    marks_seen,
    replay,
    target_of,
)
from splitnet.games.split.rules import BonusMark, Game, Settings, standing_now
from splitnet.localplay import LocalTable, SeededShuffle

_END = ("round_over", "game_over")


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_the_public_replay_rebuilds_the_standing_at_every_mark(n: int) -> None:
    """Replaying the round's events gives every hand's size and every match's owner as
    on the table (R3.4 turns, R4 draws and takes, R5.3 swaps), and at each perfect
    bonus the giver, the target and standing_now just before the mark."""
    marks = 0
    for seed in range(6):
        rng = random.Random(seed)
        g = Game(n, Settings(upgrade_takes_match=seed % 2 == 0))
        heur = [HeuristicBot(seed * 8 + s) for s in range(n)]
        rand = [RandomBot(seed * 8 + s) for s in range(n)]  # swaps, odd picks and marks
        for _ in range(g.settings.rounds):
            faces = list(range(104))
            rng.shuffle(faces)
            g.start_round(faces)
            while g.phase not in _END:
                seat = g.actor
                assert seat is not None
                move = (rand if rng.random() < 0.3 else heur)[seat].choose(g, seat)
                before = standing_now(g)
                g.apply(move)
                seen, hands, owners = replay(g)
                if g.phase not in _END:
                    assert hands == [len(h) for h in g.hands]
                    assert owners == [m.owner for m in g.matches]
                if isinstance(move, BonusMark):
                    assert seen[-1] == MarkSeen(seat, move.target, tuple(before),
                                                tuple(g.score(s) for s in range(n)))
                    marks += 1
    assert marks >= 20


def _play(agents: list[Any], seed: int, watch: int) -> tuple[TargetModel, int]:
    """A whole seeded game on a LocalTable; seat ``watch``'s model observes its own view
    after every move, and a second model the same view with every hidden face scrambled
    — both must agree at every step (R8)."""
    n = len(agents)
    table = LocalTable([f"p{s}" for s in range(n)], agents, SeededShuffle(seed))
    model, scrambled = TargetModel(), TargetModel()
    rng = random.Random(seed)
    steps = 0
    for _ in range(table.referee.settings.rounds):
        table.start_round()
        while table.referee.phase not in _END:
            table.step()
            view = table.views[watch]
            g = view.clone()
            hidden = [s for s in range(104) if g.faces[s] is None]
            pool = [c for c in range(104) if c not in set(g.faces)]
            rng.shuffle(pool)
            for s, c in zip(hidden, pool, strict=True):
                g.faces[s] = c
            model.observe(view)
            scrambled.observe(g)
            assert model.rules(n) == scrambled.rules(n)
            assert [model.posterior(s) for s in range(n)] == [
                scrambled.posterior(s) for s in range(n)]
            steps += 1
    return model, steps


def test_the_targeting_rules_are_inferred_from_public_marks_only() -> None:
    """Seat 0 watches a normal heuristic (leader now), an old-style one (leader by the
    scored pads, lowest seat first) and the easy bot (anyone): after a game each is
    named by its rule, on the view and on a scrambled copy alike."""
    found: dict[int, list[Targeting]] = {1: [], 2: [], 3: []}
    for seed in range(6):
        agents: list[Any] = [HeuristicBot(seed * 8), HeuristicBot(seed * 8 + 1),
                             HeuristicBot(seed * 8 + 2, Targeting.SCORE),
                             EasyBot(seed * 8 + 3)]
        model, steps = _play(agents, seed, 0)
        assert steps > 100
        for s in found:
            found[s].append(model.rule(s))
        if model.rule(2) != Targeting.SCORE:  # only if no mark told the two rules apart
            assert all(target_of(Targeting.NOW, 2, m.now, m.scored)
                       == target_of(Targeting.SCORE, 2, m.now, m.scored)
                       for m in model.seen() if m.giver == 2)
    assert found[1].count(Targeting.NOW) >= 5
    assert found[2].count(Targeting.SCORE) >= 5
    assert found[3].count(Targeting.ANY) >= 4


def test_the_model_starts_from_the_normal_rule_and_forgets_a_finished_game() -> None:
    model = TargetModel()
    assert max(PRIOR, key=lambda r: PRIOR[r]) == Targeting.NOW
    assert model.rules(4) == [Targeting.NOW] * 4
    agents: list[Any] = [HeuristicBot(1), HeuristicBot(2, Targeting.SCORE),
                         HeuristicBot(3, Targeting.SCORE), HeuristicBot(4, Targeting.SCORE)]
    model, _ = _play(agents, 11, 0)
    assert model.rules(4)[1:] == [Targeting.SCORE] * 3
    # A new game (round 1 again) starts from the prior.
    g = Game(4)
    g.start_round(list(range(104)))
    model.observe(g)
    assert model.rules(4) == [Targeting.NOW] * 4 and marks_seen(g) == []


def test_a_marks_likelihood_by_rule() -> None:
    """R5.1 at round 1's start: all tied on the pads, seat 2 leading now."""
    mark = MarkSeen(giver=1, target=0, now=(-50, -54, -40, -54), scored=(0, 0, 0, 0))
    assert likelihood(Targeting.SCORE, mark) > 0.9  # lowest seat among the tied
    assert likelihood(Targeting.NOW, mark) < 0.05  # seat 2 led now
    assert likelihood(Targeting.ANY, mark) == pytest.approx(1 / 3)
