"""The benchmarks run and report ratios (figures are printed, never asserted)."""

from __future__ import annotations

from splitnet.bench import bench_deck_proofs, bench_engine


def test_bench_engine_reports_games_per_second_and_the_ratio_to_the_goal() -> None:
    out = bench_engine(games=2)
    assert "random" in out and "heuristic" in out and "games/s" in out and "ratio" in out


def test_bench_deck_with_proofs_reports_prove_verify_and_setup() -> None:
    out = bench_deck_proofs([2])
    row = [ln for ln in out.splitlines() if ln.strip().startswith("2 ")]
    assert row and "ms" in row[0] and ("met" in row[0])
