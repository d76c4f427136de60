"""The strong bots' paired statistics (splitnet.paired): the anchor's test, and the
sequential test that stops sampling once the choice is clear."""

from __future__ import annotations

import random

import pytest

from splitnet.paired import Paired, PairedConfig


def _fill(paired: Paired, gains: list[float], spread: float, n: int, seed: int = 1) -> None:
    """``n`` samples: the anchor's value, and each challenger's at its mean gain plus
    noise of ``spread``."""
    rng = random.Random(seed)
    for _ in range(n):
        base = rng.random()
        paired.add([base, *(base + g + rng.gauss(0, spread) for g in gains)])


def test_the_sequential_test_keeps_the_anchor_once_no_challenger_can_reach_the_bar() -> None:
    cfg = PairedConfig(max_samples=36)
    p = Paired.of(3)
    _fill(p, [-0.05, 0.0], 0.01, 12)
    assert p.decided(cfg, 3) and p.dropped == {1, 2} and p.best(cfg, 3) == 0


def test_the_sequential_test_stops_on_a_challenger_clearly_ahead_of_all() -> None:
    cfg = PairedConfig(max_samples=36)
    p = Paired.of(3)
    _fill(p, [0.2, -0.1], 0.02, 12)
    assert p.decided(cfg, 3) and p.best(cfg, 3) == 1 and p.dropped == {2}


def test_the_sequential_test_samples_on_while_the_choice_may_still_change() -> None:
    cfg = PairedConfig(max_samples=36)
    # Two challengers about equally good: which of them is not clear yet.
    close = Paired.of(3)
    _fill(close, [0.1, 0.1], 0.05, 12)
    assert not close.decided(cfg, 3) and not close.dropped
    # A challenger near the bar (the margin): whether it clears it is not clear yet.
    near = Paired.of(2)
    _fill(near, [cfg.margin], 0.05, 12)
    assert not near.decided(cfg, 2)
    # At max_samples the choice is made, whatever it is.
    _fill(near, [cfg.margin], 0.05, 24, seed=2)
    assert near.n == 36 and near.decided(cfg, 2)
    # Without max_samples there is no such test (the budget alone ends the sampling).
    assert not close.decided(PairedConfig(), 3)


def test_a_dropped_challenger_is_never_chosen_and_keeps_the_mean_of_its_samples() -> None:
    anyone = PairedConfig(margin=-1, z=-1)  # any challenger at all would do
    p = Paired.of(2)
    p.add([0.5, 0.6])
    p.add([0.5, 0.7])
    assert p.best(anyone, 2) == 1
    p.dropped.add(1)
    p.add([0.2, None])  # not played out any more
    assert p.means(2) == pytest.approx([0.4, 0.65]) and p.best(anyone, 2) == 0
    assert p.n == 3 and len(p.diffs[1]) == 2
