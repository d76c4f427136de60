"""The benchmarks run and report ratios (figures are printed, never asserted)."""

from __future__ import annotations

import random

import pytest

from splitnet.bench.split import bench_deck_proofs, bench_engine


def test_bench_engine_reports_games_per_second_and_the_ratio_to_the_goal() -> None:
    out = bench_engine(games=2)
    assert "random" in out and "heuristic" in out and "games/s" in out and "ratio" in out
    # the search's flat rollout beside the engine's, measured in the same run
    assert "flat state" in out and "flat ÷ engine" in out and "goal ≥ 150k" in out


def test_bench_deck_with_proofs_reports_prove_verify_and_setup() -> None:
    """Sequential, pipelined and both-cores critical paths, each as a ratio to its model
    (N·(prove + verify) + deal; N·prove + verify(last hop) + deal; the same on two cores)
    measured in the same run, and the wall-clock A/B of one hop with the real helper."""
    import re

    out = bench_deck_proofs([2], play=False)
    row = [ln for ln in out.splitlines() if ln.strip().startswith("2 ")]
    assert row and "ms" in row[0]
    ratios = [float(x) for x in re.findall(r"\((\d+\.\d\d)\)", row[0])]
    assert len(ratios) == 3 and all(0.5 < r < 2 for r in ratios), row[0]
    assert "both-cores crit" in out and "≤ 0.40 s at 6 players" in out
    assert "wall-clock A/B with the real helper process" in out and "0 fallbacks" in out


@pytest.mark.slow
def test_bench_play_setup_times_the_three_ways_of_checking() -> None:
    from splitnet.bench.split import bench_play_setup

    out = bench_play_setup([2], reps=1)
    row = [ln for ln in out if ln.strip().startswith("2 ")]
    assert row and row[0].count(" s (") == 3, out  # wall (thread + workers CPU) × 3
    assert any("CPU of this thread + the pool's workers and helper" in ln for ln in out)


def test_bench_bots_reports_the_rate_with_its_interval_time_and_target_spread() -> None:
    from splitnet.bench.split import bench_bots

    out = bench_bots(games=2, samples=2, spread_games=2, levels=False, margin=0.05,
                     candidates=3)
    assert "1 strong (2 samples/decision, margin 0.05, 3 candidates) vs 3 normal" in out
    assert "95% CI" in out
    assert "ms each" in out and "round-1 perfect-bonus targets by seat" in out
    assert "goal ≥ 45% → ratio" in out and "1000 games at this setting" in out and "CPU" in out
    assert "vs 3 fixed-target" in out and "goal ≥ 35%" in out
    # The strong bot's time per whole turn, from the same games, against its limit.
    turn = [ln for ln in out.splitlines() if "a whole turn" in ln]
    assert len(turn) == 2 and all("95th percentile" in ln and "max" in ln for ln in turn)
    assert all("limit 1 s → ratio" in ln for ln in turn)
    assert "a budget cut 0 decisions short" in out  # a fixed number of samples: no clock
    only = bench_bots(games=1, samples=1, spread_games=1, levels=False, normal=False)
    assert "vs 3 fixed-target" in only and "vs 3 normal" not in only


def test_bench_bots_says_what_a_win_rates_interval_shows_about_its_goal() -> None:
    from splitnet.bench.split import rate_verdict, wilson

    assert rate_verdict(*wilson(300, 600), 0.45).startswith("met")
    assert rate_verdict(*wilson(200, 600), 0.45).startswith("MISSED")
    assert rate_verdict(*wilson(18, 40), 0.45).startswith("not shown")


def test_bench_bots_without_the_clock_plays_the_default_rule_deterministically() -> None:
    """``--no-clock``: the strong bot's sequential test alone (no budget), so the same
    games give the same wins, decisions and samples however loaded the machine is."""
    import math

    from splitnet.bench.split import _run_chunks, bench_bots

    one, two = (_run_chunks("fixed", 1, 5, 1, math.inf, None, None, 3, 0, math.inf)
                for _ in range(2))
    assert (one.wins, one.searched, one.sampled) == (two.wins, two.searched, two.sampled)
    assert one.cut == 0 and one.sampled > 0
    out = bench_bots(games=1, spread_games=1, levels=False, normal=False, candidates=2,
                     clock=False)
    assert "stopping once the choice is clear; no clock (deterministic)" in out
    assert "a budget cut 0 decisions short" in out


def test_bench_bots_gives_the_same_figures_in_one_process_or_two() -> None:
    from splitnet.bench.split import _run_chunks

    one = _run_chunks("fixed", 3, 5, 1, 0.3, 2, None, 3)
    two = _run_chunks("fixed", 3, 5, 2, 0.3, 2, None, 3)
    assert (one[0], one[1], one[4]) == (two[0], two[1], two[4])  # wins, decisions, samples
    # A run split in parts (--first) plays the same games.
    parts = [_run_chunks("fixed", k, 5, 1, 0.3, 2, None, 3, a) for a, k in ((0, 1), (1, 2))]
    assert (sum(p[0] for p in parts), sum(p[1] for p in parts),
            sum(p[4] for p in parts)) == (one[0], one[1], one[4])


def test_the_fixed_target_opponent_aims_by_scored_rounds_and_lowest_seat() -> None:
    from splitnet.bench.split import FixedTargetBot
    from splitnet.games.split.rules import BonusMark, Game

    g = Game(4)
    bot = FixedTargetBot(1)
    # Every seat at 0 after no scored round: the tie goes to the lowest other seat.
    faces = list(range(104))
    random.Random(3).shuffle(faces)
    g.start_round(faces)
    marks = 0
    for _ in range(400):
        if g.phase in ("round_over", "game_over"):
            break
        seat = g.actor
        assert seat is not None
        move = bot.choose(g, seat)
        if isinstance(move, BonusMark):
            assert move.target == (1 if seat == 0 else 0)
            marks += 1
        g.apply(move)
    assert marks > 0


def test_bench_splito_reports_speed_strength_and_the_fair_game_as_ratios(
        capsys: pytest.CaptureFixture[str]) -> None:
    """Tiny: one engine game at 3 players, 2 strong-bot games of 2 samples, no levels, and
    no fair-deck game (its section is tested on its own below)."""
    from splitnet.cli import main

    assert main(["bench", "splito", "--only", "engine,bots", "--players", "3", "--games",
                 "1", "--samples", "2", "--no-levels"]) == 0
    out = capsys.readouterr().out
    assert "3 players:" in out and "games/s" in out and "rollouts" in out
    assert "÷ limit" in out and "flat ÷ engine" in out
    assert "1 strong (2 samples/decision) vs 2 normal: won" in out and "95% CI" in out
    assert "parity 33% → ratio" in out and "ms of CPU" in out


def test_bench_splito_fair_game_beside_the_local_deal() -> None:
    from splitnet.bench.splito import bench_fair

    out = bench_fair([2])
    assert len(out) == 3 and "2 players:" in out[1] and "verified" in out[1]
    assert "local deal" in out[1] and "→ ratio" in out[1]
    assert "set-up to the first play asked:" in out[2] and "of the game's wall" in out[2]


@pytest.mark.parametrize(("argv", "error"), [
    (["--only", "speed"], "--only takes engine, bots, fair"),
    (["--players", "9"], "S2.1"),
    (["--players", "x"], "list of numbers"),
    (["--samples", "0"], "argument --samples: not 1–100000: 0"),
])
def test_bench_splito_refuses_bad_arguments(argv: list[str], error: str,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    """One line naming what is wrong: the command's own check (exit with the message), or
    the option's type as it is parsed (argparse's exit 2, the line on stderr)."""
    import re

    from splitnet.cli import main

    with pytest.raises(SystemExit) as e:
        main(["bench", "splito", *argv])
    said = str(e.value) if e.value.code not in (None, 2) else capsys.readouterr().err
    assert re.search(error, said), said
    assert len(said.strip().splitlines()) == 1, said


def test_bench_net_splits_a_draws_cpu_into_its_parts() -> None:
    # The LAN code replayed on one 2-player game's draws (the replayed host must sign
    # every record exactly as the game's host did, or draw_cpu fails).
    from splitnet.bench.net import DRAW_PARTS, draw_cpu, draw_lines

    r = draw_cpu(2, 11)
    assert r["draws"] > 0
    assert set(r["total"]) == set(DRAW_PARTS) == set(r["crit"])
    assert all(v >= 0 for v in [*r["total"].values(), *r["crit"].values()])
    assert r["total"]["signatures"] > 0 and r["total"]["share proofs"] > 0
    assert r["total"]["frames"] > 0
    text = "\n".join(draw_lines(2, 11))
    assert "critical path (ms)" in text and "of the draw's CPU (goal ≤ 10%" in text


@pytest.mark.slow
def test_bench_launch_times_splitnet_play_to_its_first_hand() -> None:
    from splitnet.bench.net import launch_times

    [(first, table, main, workers)] = launch_times(runs=1, bots=1)
    assert 0 < first <= table
    assert main >= 0 and workers >= 0


def test_bench_watch_flood_reports_the_relay_with_and_without_the_flood(
        capsys: pytest.CaptureFixture[str]) -> None:
    """``splitnet bench watch-flood`` on the smallest size: one game of one round alone
    and one under the 32 hostile attempts (another process), real loopback sockets; the
    figures are printed, never asserted."""
    import re

    from splitnet.cli import main

    assert main(["bench", "watch-flood", "--games", "1", "--timeout", "300"]) == 0
    out = capsys.readouterr().out
    assert "1 game(s) of 1 round(s)" in out and "32 hostile attempts:" in out
    counts = [int(n) for n in re.findall(r"(\d+) relays, median", out)]
    assert len(counts) == 2 and all(n > 0 for n in counts), out
    assert re.search(r"ratio \(flood ÷ alone\): median \d+\.\d\d, p95 \d+\.\d\d", out), out


def test_bench_pake_reports_the_exchange_against_python_spake2(
        capsys: pytest.CaptureFixture[str]) -> None:
    """``splitnet bench pake``: ours and python-spake2's timed in the same run, as a
    ratio (SECURITY.md row 147); printed, never asserted beyond its shape."""
    import re

    from splitnet.cli import main

    assert main(["bench", "pake", "--games", "10"]) == 0
    out = capsys.readouterr().out
    assert "ours (libsodium):" in out and "python-spake2 0.9:" in out, out
    assert re.search(r"ratio \(python-spake2 ÷ ours\): exchange \d+\.\d, HELLO \d+\.\d", out)
