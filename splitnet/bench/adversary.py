"""``splitnet bench adversary``: the adversarial simulator's long run (splitnet/adversary.py).

N whole games of Split and Splito, each with one dishonest seat (the host or a guest)
choosing at every message from a seeded random strategy, the oracle checking every entry.
The report: games (by game and adversary), deviations tried by kind, refusals, verdicts,
games played to the end, forked games (a host that equivocated) and the guests' messages
it cross-ordered from one fork onto the other, violations found (each with its game and
seed, so any one can be played again alone), wall time. Exit status 1 on any violation
that is not of a finding already reported (those are counted apart, by name).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

from splitnet.adversary import Config, RunReport, run


def _part(args: tuple[int, int, int]) -> RunReport:
    games, seed, first = args
    return run(games, seed, Config(), first=first)


def run_parts(games: int, seed: int, jobs: int, first: int = 0,
              progress: Callable[[RunReport], None] | None = None) -> RunReport:
    """Games ``first`` … ``first + games − 1`` of run ``seed`` in ``jobs`` processes. Each
    game is a function of (seed, its number): the figures do not depend on ``jobs``."""
    step = max(1, min(50, -(-games // max(1, jobs * 4))))
    parts = [(min(step, first + games - i), seed, i) for i in range(first, first + games, step)]
    total = RunReport()
    if jobs <= 1 or len(parts) == 1:
        for p in parts:
            total.merge(_part(p))
            if progress is not None:
                progress(total)
        return total
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(max_workers=jobs) as pool:
        for r in pool.map(_part, parts):
            total.merge(r)
            if progress is not None:
                progress(total)
    return total


def report(r: RunReport, seed: int, first: int, wall: float, jobs: int) -> str:
    new = [v for v in r.violations if not v.known]
    known = [v for v in r.violations if v.known]
    lines = [f"adversarial games: {r.games} (run seed {seed}, games {first}…{first + r.games - 1}"
             f", {jobs} process{'es' if jobs > 1 else ''}, {wall:.0f} s wall, "
             f"{wall / max(1, r.games) * jobs:.2f} s a game)"]
    for k, v in sorted(r.by_game.items()):
        lines.append(f"  {v:6}  {k}")
    lines.append(f"deviations tried: {sum(r.deviations.values())} — " + ", ".join(
        f"{k} {v}" for k, v in sorted(r.deviations.items(), key=lambda kv: -kv[1])))
    lines.append(f"refusals: {r.refusals}; games ended by a verdict or a refused entry: "
                 f"{r.verdicts}; played to the end: {r.finished}; entries: {r.entries}")
    lines.append(f"forked games (the host equivocated): {r.forked}; guests' messages "
                 f"cross-ordered onto the other fork: {r.cross_ordered}, refused there: "
                 f"{r.cross_refused}")
    lines.append(f"violations found: {len(new)}")
    lines += [f"  {v}" for v in new[:20]]
    if known:
        by: dict[str, int] = {}
        for f in known:
            by[f.prop] = by.get(f.prop, 0) + 1
        lines.append("of findings already reported (counted apart): " + ", ".join(
            f"{k} {n}" for k, n in sorted(by.items())))
        lines += [f"  e.g. {f}" for f in known[:3]]
    return "\n".join(lines)


def bench_adversary(games: int, seed: int = 0, jobs: int = 1, first: int = 0) -> tuple[str, bool]:
    """The run's report, and True if it found no new violation."""
    t0 = time.monotonic()

    def progress(so_far: RunReport) -> None:  # a long run's figures as it goes (stderr)
        new = sum(not v.known for v in so_far.violations)
        print(f"… {so_far.games} games, {sum(so_far.deviations.values())} deviations, "
              f"{new} violations, {len(so_far.violations) - new} of known findings, "
              f"{time.monotonic() - t0:.0f} s", file=sys.stderr, flush=True)

    r = run_parts(games, seed, jobs, first, progress)
    text = report(r, seed, first, time.monotonic() - t0, jobs)
    return text, not any(not v.known for v in r.violations)
