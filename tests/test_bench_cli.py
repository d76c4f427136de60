"""The benchmarks run and report ratios (figures are printed, never asserted)."""

from __future__ import annotations

import pytest

from splitnet.bench import bench_deck_proofs, bench_engine


def test_bench_engine_reports_games_per_second_and_the_ratio_to_the_goal() -> None:
    out = bench_engine(games=2)
    assert "random" in out and "heuristic" in out and "games/s" in out and "ratio" in out
    # the search's flat rollout beside the engine's, measured in the same run
    assert "flat state" in out and "flat ÷ engine" in out and "goal ≥ 150k" in out


def test_bench_deck_with_proofs_reports_prove_verify_and_setup() -> None:
    """Sequential and pipelined critical paths, each as a ratio to its model (N·(prove +
    verify) + deal; N·prove + verify(last hop) + deal) measured in the same run."""
    import re

    out = bench_deck_proofs([2], play=False)
    row = [ln for ln in out.splitlines() if ln.strip().startswith("2 ")]
    assert row and "ms" in row[0]
    ratios = [float(x) for x in re.findall(r"\((\d+\.\d\d)\)", row[0])]
    assert len(ratios) == 2 and all(0.5 < r < 2 for r in ratios), row[0]
    assert "pipelined crit" in out and "≤ 0.40 s at 6 players" in out


@pytest.mark.slow
def test_bench_play_setup_times_the_three_ways_of_checking() -> None:
    from splitnet.bench import bench_play_setup

    out = bench_play_setup([2], reps=1)
    row = [ln for ln in out if ln.strip().startswith("2 ")]
    assert row and row[0].count(" s (") == 3, out  # wall (thread + workers CPU) × 3
    assert any("CPU of this thread + the pool's workers" in ln for ln in out)


def test_bench_bots_reports_the_rate_with_its_interval_time_and_target_spread() -> None:
    from splitnet.bench import bench_bots

    out = bench_bots(games=2, samples=2, spread_games=2, levels=False, margin=0.05,
                     candidates=3)
    assert "1 strong (2 samples/decision, margin 0.05, 3 candidates) vs 3 normal" in out
    assert "95% CI" in out
    assert "ms each" in out and "round-1 perfect-bonus targets by seat" in out
    assert "ratio" in out and "1000 games at 0.3 s a decision" in out and "CPU" in out
