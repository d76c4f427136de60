"""Benchmarks (``splitnet bench``). Figures are printed, never asserted in tests."""

from __future__ import annotations

import random
import time

from splitnet.bots import make_bot
from splitnet.rules import Game


def _engine_game(bot: str, seed: int, n: int = 4) -> int:
    g = Game(n)
    bots = [make_bot(bot, seed * 10 + i) for i in range(n)]
    rng = random.Random(seed)
    actions = 0
    for _ in range(g.settings.rounds):
        faces = list(range(104))
        rng.shuffle(faces)
        g.start_round(faces)
        while g.phase not in ("round_over", "game_over"):
            seat = g.actor
            assert seat is not None
            g.apply(bots[seat].choose(g, seat))
            actions += 1
    return actions


def bench_engine(games: int = 200) -> str:
    """Whole 3-round 4-player games per second on one core, one engine, by bot kind."""
    lines = ["engine: full 3-round 4-player games, one engine, one core"]
    for bot in ("random", "heuristic"):
        t0 = time.perf_counter()
        actions = sum(_engine_game(bot, s) for s in range(games))
        dt = time.perf_counter() - t0
        rate = games / dt
        lines.append(f"  {bot:9}: {rate:7.1f} games/s  ({actions / games:.0f} moves/game, "
                     f"{dt / actions * 1e6:.1f} µs/move incl. legal-move generation)"
                     + (f"  goal ≥ 100 games/s → ratio {rate / 100:.2f}" if bot == "random"
                        else ""))
    return "\n".join(lines)


def bench_deck(players: list[int]) -> str:
    from splitnet.crypto.bench import bench_deck as _bench

    return _bench(players)
