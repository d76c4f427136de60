"""``splitnet bench splito``: the Splito engine's speed, the bots' strength and the time of
a whole game on the fair deck. Figures are printed, never asserted in tests; each is
given as a ratio to a limit measured or derived in the same run.

* **engine** — whole games of heuristic self-play per second on one engine (commit and
  reveal of S7.3 included) at 2–8 players, and the strong bot's rollouts
  (:mod:`splitnet.games.splito.flat`) in plays per second. The limit for the rollouts is what
  a searched decision needs: ``FIT_SAMPLES`` × ``max_candidates`` whole-game rollouts
  from the first turn within the 0.3 s budget.
* **bots** — 1 strong vs heuristics (seat-rotated, fixed seeds, a shared win counts 1/k),
  with a Wilson 95% interval and the ratio to parity (1/n); normal vs random and easy vs
  normal and vs random likewise.
* **fair** — a whole game on the fair deck among in-memory peers (shuffles with proofs,
  private deal, commit–reveal, passed hands, audit: ``selfplay --game splito``) by player
  count, beside the same bots' game with the seeded local deal (one process knows the
  deck: the limit no fair deck can beat); and its set-up, from the first entry to the
  first play asked (a table's first screen), in wall time and CPU (the peers' thread and
  the shared proof pool's processes, which check each hop once: SECURITY.md §2.1).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from splitnet.games.splito.bots import Bot, make_bot
from splitnet.games.splito.engine import Game, commitment
from splitnet.games.splito.local import SeededDeal, local_game_id, play_local
from splitnet.games.splito.settings import SplitoSettings

PLAYERS = (2, 3, 4, 5, 6, 7, 8)


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    from splitnet.bench.split import wilson as _wilson

    return _wilson(wins, n, z)


def engine_game(n: int, seed: int) -> int:
    """One heuristic self-play game on one full-knowledge engine through commit and
    reveal (S7.3); returns the plays made."""
    settings = SplitoSettings.standard(n)
    order, deck = SeededDeal(seed).shuffle(settings)
    g = Game(settings, local_game_id(seed))
    g.deal(order[:settings.central_objectives], deck)
    bots = [make_bot("normal", seed * 10 + s) for s in range(n)]
    nonce = f"{seed:032x}"
    plays = 0
    while not g.over:
        chosen = [bots[s].choose(g, s) for s in range(n)]
        for p in chosen:
            g.commit(p.seat, commitment(g.game_id, g.turn, p.seat, g.face(p.slot), p.side,
                                        nonce))
        for p in chosen:
            g.reveal(p.seat, p.slot, p.side, nonce)
        plays += n
    return plays


def _rollout_rate(n: int, count: int, seed: int) -> tuple[float, int]:
    """Whole-game flat rollouts from the deal, as the search plays them: (plays per CPU
    second, plays per rollout)."""
    from splitnet.games.splito.flat import rollout
    from splitnet.games.splito.search import flat_game

    settings = SplitoSettings.standard(n)
    order, deck = SeededDeal(seed).shuffle(settings)
    g = Game(settings, local_game_id(seed))
    g.deal(order[:settings.central_objectives], deck)
    faces = [f for f in g.faces if f is not None]
    rngs = [random.Random(s) for s in range(n)]
    t0 = time.thread_time()
    for _ in range(count):
        rollout(flat_game(g, faces), rngs)
    dt = time.thread_time() - t0
    per = n * settings.turns
    return count * per / dt, per


def bench_engine(players: Sequence[int], games: int) -> list[str]:
    from splitnet.games.splito.search import FIT_SAMPLES, SearchConfig

    cfg = SearchConfig()
    need = FIT_SAMPLES * cfg.max_candidates / cfg.budget  # rollouts per second
    lines = [f"engine: heuristic self-play, one engine, commit + reveal (S7.3), one core "
             f"(CPU time); {games} games per player count",
             f"  rollouts: whole games from the deal on the flat state, as the strong bot "
             f"plays them; limit = {FIT_SAMPLES} samples × {cfg.max_candidates} "
             f"candidates in {cfg.budget:g} s = {need:.0f} rollouts/s"]
    for n in players:
        t0 = time.thread_time()
        plays = sum(engine_game(n, 1000 * n + i) for i in range(games))
        dt = time.thread_time() - t0
        rate, per = _rollout_rate(n, max(2, games), 7 * n)
        lines.append(f"  {n} players: {games / dt:6.1f} games/s ({plays / dt / 1000:5.1f}k "
                     f"plays/s); rollouts {rate / 1000:5.1f}k plays/s = {rate / per:5.1f} "
                     f"games/s (flat ÷ engine {rate / (plays / dt):.1f}; ÷ limit "
                     f"{rate / per / need:.2f})")
    return lines


def seat_rotated_games(hero: Callable[[int], Bot], others: Callable[[int], Bot],
                       games: int, seed: int = 0, n: int = 4) -> tuple[float, int]:
    """``games`` games of 1 hero against n−1 others, the hero's seat rotating with the
    game number, deals fixed by ``seed`` + game number, every bot on its own seat's view
    (S7) through :func:`splitnet.games.splito.local.play_local`. Returns (wins, games); a shared
    win (S11.3) counts 1/k."""
    settings = SplitoSettings.standard(n)
    wins = 0.0
    for i in range(games):
        hero_seat = i % n
        game_seed = seed * 100_003 + i
        bots = [hero(game_seed * 8 + s) if s == hero_seat else others(game_seed * 8 + s)
                for s in range(n)]
        winners = play_local(settings, bots, game_seed).record["winners"]
        if hero_seat in winners:
            wins += 1 / len(winners)
    return wins, games


def _rate_line(label: str, wins: float, games: int, n: int) -> str:
    lo, hi = wilson(wins, games)
    rate = wins / games if games else 0.0
    return (f"  {label}: won {wins:g} of {games} = {rate:.1%} (95% CI {lo:.1%}–{hi:.1%}); "
            f"parity {1 / n:.0%} → ratio {rate * n:.2f}")


def bench_bots(games: int, n: int = 4, budget: float = 0.3, samples: int | None = None,
               seed: int = 0, levels: bool = True) -> list[str]:
    from splitnet.games.splito.search import SearchConfig, StrongBot

    lines = [f"bots: {n}-player games, seat-rotated, fixed seeds; a shared win counts 1/k"]
    strong_bots: list[StrongBot] = []

    def strong(s: int) -> Bot:
        b = StrongBot(s, SearchConfig(budget=budget, samples=samples))
        strong_bots.append(b)
        return b

    t0 = time.perf_counter()
    wins, k = seat_rotated_games(strong, lambda s: make_bot("normal", s), games, seed, n)
    dt = time.perf_counter() - t0
    mode = f"{samples} samples/decision" if samples is not None else f"budget {budget:g} s"
    lines.append(_rate_line(f"1 strong ({mode}) vs {n - 1} normal", wins, k, n))
    searched = sum(b.searched for b in strong_bots)
    per = sum(b.search_time for b in strong_bots) / searched if searched else 0.0
    cpu = sum(b.search_cpu for b in strong_bots) / searched if searched else 0.0
    sampled = sum(b.sampled for b in strong_bots)
    lines.append(f"    {searched} searched decisions ({sampled / max(1, searched):.0f} samples "
                 f"each), {per * 1e3:.0f} ms each on average, {cpu * 1e3:.0f} ms of CPU "
                 f"(limit {budget * 1e3:.0f} ms → ratio {cpu / budget:.2f}); {dt:.0f} s for "
                 f"{k} games")
    if levels:
        lv = max(games, 2 * n)
        for hero, other, s in (("normal", "random", 1), ("easy", "normal", 2),
                               ("easy", "random", 3)):
            w, m = seat_rotated_games(partial(make_bot, hero), partial(make_bot, other),
                                      lv, seed + s, n)
            lines.append(_rate_line(f"1 {hero} vs {n - 1} {other}", w, m, n))
    return lines


def bench_fair(players: Sequence[int], seed: int = 0) -> list[str]:
    """A whole game on the fair deck by player count, beside the seeded local deal; and
    its set-up: from the first entry to the first play asked (the first table)."""
    import io
    from contextlib import redirect_stderr

    from splitnet.bench.split import _cpu_of, _pool_pids
    from splitnet.game.pool import shared_pool
    from splitnet.games.splito.front.selfplay import play_fair

    pool = shared_pool()  # started (and warm) before the clock: as at a table's launch
    if pool.helper is not None:
        pool.helper.ready(timeout=10.0)
    lines = ["fair deck: one whole game per player count among in-memory peers (shuffles "
             "with proofs, private deal, commit–reveal, passed hands, audit), heuristic "
             "bots, each hop checked once in the shared worker pool (SECURITY.md §2.1); "
             "limit = the same game on the seeded local deal (no crypto); CPU = this "
             "thread + the pool's processes"]
    for n in players:
        settings = SplitoSettings.standard(n)
        bots = [make_bot("normal", seed * 10 + s) for s in range(n)]
        setup: list[float] = []
        pids = _pool_pids(pool)
        t0, c0, p0 = time.perf_counter(), time.thread_time(), _cpu_of(pids)

        def clock(game: Any, t0: float = t0, c0: float = c0, p0: float = p0,
                  setup: list[float] = setup, pids: list[int] = pids) -> None:
            if not setup and any(c.can_move() for c in game.cores):
                setup.extend([time.perf_counter() - t0, time.thread_time() - c0,
                              _cpu_of(pids) - p0])

        err = io.StringIO()
        with redirect_stderr(err):
            rec = play_fair(settings, bots, seed, [f"p{s}" for s in range(n)], None,
                            on_step=clock)
        wall, cpu, pcpu = (time.perf_counter() - t0, time.thread_time() - c0,
                           _cpu_of(pids) - p0)
        bots = [make_bot("normal", seed * 10 + s) for s in range(n)]
        t1 = time.perf_counter()
        play_local(settings, bots, seed)
        local = time.perf_counter() - t1
        ok = "verified" if rec is not None else f"FAILED: {err.getvalue().strip()[:80]}"
        lines.append(f"  {n} players: {wall:6.2f} s wall, {cpu:6.2f} s + {pcpu:5.2f} s CPU, "
                     f"{ok}; local deal {local:5.2f} s → ratio {wall / local:5.1f}")
        if setup:
            sw, sc, sp = setup
            lines.append(f"    set-up to the first play asked: {sw:5.2f} s wall, {sc:5.2f} s "
                         f"+ {sp:5.2f} s CPU ({sw / wall:4.0%} of the game's wall)")
    return lines


PARTS = ("engine", "bots", "fair")


def run_bench_splito(only: str | None, players: str | None, games: int | None,
                     budget: float, samples: int | None, seed: int, *,
                     levels: bool = True) -> int:
    """``splitnet bench splito``: check the arguments (one line each), run, print."""
    parts = [p.strip() for p in (only or ",".join(PARTS)).split(",") if p.strip()]
    unknown = [p for p in parts if p not in PARTS]
    if unknown or not parts:
        raise SystemExit(f"splitnet: bench splito --only takes {', '.join(PARTS)}, not "
                         f"{only!r}")
    text = players or "2,4,8"
    try:
        counts = [int(x) for x in text.split(",")]
    except ValueError:
        raise SystemExit(f"splitnet: --players is a list of numbers like 2,4,8, not "
                         f"{text!r}") from None
    if not counts or not all(2 <= n <= 8 for n in counts):
        raise SystemExit(f"splitnet: Splito is for 2 to 8 players (S2.1), not {text!r}")
    if games is not None and games < 1:
        raise SystemExit("splitnet: --games must be at least 1")
    if samples is not None and samples < 1:
        raise SystemExit("splitnet: --samples must be at least 1")
    print(bench_splito(parts, counts, games, budget, samples, seed,
                       bots_players=counts[0] if players else 4, levels=levels))
    return 0


def bench_splito(parts: Sequence[str], players: Sequence[int], games: int | None = None,
                 budget: float = 0.3, samples: int | None = None, seed: int = 0,
                 bots_players: int = 4, levels: bool = True) -> str:
    """The sections named in ``parts`` (engine, bots, fair), one after another."""
    out: list[str] = []
    if "engine" in parts:
        out += bench_engine(players, games or 5)
    if "bots" in parts:
        out += bench_bots(games or 8, bots_players, budget, samples, seed, levels)
    if "fair" in parts:
        out += bench_fair(players, seed)
    return "\n".join(out)
