"""Benchmarks (``splitnet bench``). Figures are printed, never asserted in tests."""

from __future__ import annotations

import hashlib
import math
import random
import statistics
import time
from collections.abc import Callable

from splitnet.bots import Bot, make_bot
from splitnet.rules import BonusMark, Game


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


def _positions(count: int, seed: int = 1) -> list[Game]:
    """Mid-round 4-player positions (0–40 heuristic moves into a round)."""
    rng = random.Random(seed)
    out: list[Game] = []
    while len(out) < count:
        g = Game(4)
        faces = list(range(104))
        rng.shuffle(faces)
        g.start_round(faces)
        bots = [make_bot("normal", len(out) * 4 + s) for s in range(4)]
        for _ in range(rng.randrange(0, 40)):
            if g.phase in ("round_over", "game_over"):
                break
            seat = g.actor
            assert seat is not None
            g.apply(bots[seat].choose(g, seat))
        if g.phase not in ("round_over", "game_over"):
            out.append(g)
    return out


def _rollouts(positions: list[Game], trusted: bool) -> tuple[int, float]:
    """Clone each position and play it to the round's end with the heuristic at every
    seat, as the strong bot's search does. Returns (moves, CPU seconds)."""
    bots = [make_bot("normal", s) for s in range(4)]
    moves = 0
    t0 = time.thread_time()
    for p in positions:
        g = p.clone()
        while g.phase not in ("round_over", "game_over"):
            seat = g.actor
            assert seat is not None
            move = bots[seat].choose(g, seat)
            if trusted:
                g.apply_trusted(move)
            else:
                g.apply(move)
            moves += 1
    return moves, time.thread_time() - t0


def _flat_rollouts(positions: list[Game]) -> tuple[int, float]:
    """The same rollouts as :func:`_rollouts` with the search's flat rollout
    (:func:`splitnet.bots.rollout.rollout`, the same moves), copying each position from
    the engine as the search does. Returns (moves, CPU seconds)."""
    from splitnet.bots.rollout import Step, rollout

    rngs = [random.Random(s) for s in range(4)]
    trace: list[Step] = []
    moves = 0
    for p in positions[:3]:  # count the moves once, outside the timing
        rollout(p, rngs, trace)
    t0 = time.thread_time()
    for p in positions:
        rollout(p, rngs)
    dt = time.thread_time() - t0
    for p in positions:
        trace.clear()
        rollout(p, rngs, trace)
        moves += len(trace)
    return moves, dt


def bench_engine(games: int = 200) -> str:
    """Whole 3-round 4-player games per second on one core, one engine, by bot kind, and
    the strong bot's rollout speed (CPU time of this thread: other load hardly counts)."""
    lines = ["engine: full 3-round 4-player games, one engine, one core (CPU time)"]
    for bot in ("random", "heuristic"):
        t0 = time.thread_time()
        actions = sum(_engine_game(bot, s) for s in range(games))
        dt = time.thread_time() - t0
        rate = games / dt
        lines.append(f"  {bot:9}: {rate:7.1f} games/s  ({actions / games:.0f} moves/game, "
                     f"{dt / actions * 1e6:.1f} µs/move incl. legal-move generation)"
                     f"  goal ≥ 100 games/s → ratio {rate / 100:.2f}")
    positions = _positions(max(20, games // 2))
    _rollouts(positions[:5], True)  # warm up
    m_t, dt_t = _rollouts(positions, True)
    m_c, dt_c = _rollouts(positions, False)
    m_f, dt_f = _flat_rollouts(positions)
    rate_t, rate_c, rate_f = m_t / dt_t, m_c / dt_c, m_f / dt_f
    lines.append(f"  rollouts (heuristic to the round's end), as the strong bot's search plays "
                 f"them (flat state, the heuristic fused in): {rate_f / 1000:.1f}k moves/s  "
                 f"goal ≥ 150k → ratio {rate_f / 150_000:.2f}")
    lines.append(f"    the same rollouts on the engine (the reference): clone + trusted apply "
                 f"{rate_t / 1000:.1f}k moves/s (flat ÷ engine {rate_f / rate_t:.2f}); "
                 f"checked apply {rate_c / 1000:.1f}k moves/s")
    return "\n".join(lines)


def bench_deck(players: list[int], proofs: bool = True) -> str:
    from splitnet.crypto.bench import bench_deck as _bench

    out = _bench(players)
    if proofs:
        out += "\n\n" + bench_deck_proofs(players)
    return out


def bench_deck_proofs(players: list[int]) -> str:
    """Round set-up with every shuffle proof made and checked, beside the same without.

    Each peer is simulated on its own machine: a peer checks the hops in the order they
    arrive (its own is not re-checked), shuffles when the previous hop is in and checked,
    and its deal shares go out once the last hop is checked. The critical path is when the
    last peer is ready to deal; CPU is all peers' thread time together.
    """
    from splitnet.crypto.bench import measure_op_costs
    from splitnet.crypto.deck import DeckRound
    from splitnet.game.core import _proof_functions

    costs = measure_op_costs(rounds=5, reps=10)
    lines = ["fair deck with shuffle proofs (Terelius–Wikström, every hop checked by every "
             "other peer) — 104 cards",
             f"per-op cost (µs): mul {costs['mul'] * 1e6:.1f}  base {costs['base'] * 1e6:.1f}",
             "players  prove/hop  verify/hop  set-up crit  set-up CPU   without proofs "
             "(crit / CPU)   crit ÷ (N·(prove+verify) + deal)  goal crit ≤ 1.5 s"]
    gid = bytes(range(16))
    for n in players:
        row = []
        for with_proofs in (True, False):
            peers = []
            for i in range(n):
                seed = hashlib.sha256(b"bench" + bytes([n, i])).digest()
                prover, verifier = (_proof_functions(gid, seed) if with_proofs
                                    else (None, None))
                peers.append(DeckRound(gid, 1, n, i, seed, shuffle_prover=prover,
                                       shuffle_verifier=verifier))
            clock = [0.0] * n
            cpu = 0.0
            commits = [p.commit_message() for p in peers]
            for j, p in enumerate(peers):
                t0 = time.thread_time()
                for i, m in enumerate(commits):
                    p.on_commit(i, m)
                dt = time.thread_time() - t0
                clock[j] += dt
                cpu += dt
            arrival = 0.0
            prove_t: list[float] = []
            verify_t: list[float] = []
            for i in range(n):
                t0 = time.thread_time()
                msg = peers[i].shuffle_message()
                peers[i].on_shuffle(i, msg)
                dt = time.thread_time() - t0
                prove_t.append(dt)
                clock[i] = max(clock[i], arrival) + dt
                cpu += dt
                arrival = clock[i]
                for j in range(n):
                    if j == i:
                        continue
                    t0 = time.thread_time()
                    peers[j].on_shuffle(i, msg)
                    dv = time.thread_time() - t0
                    verify_t.append(dv)
                    clock[j] = max(clock[j], arrival) + dv
                    cpu += dv
            # The deal: every peer makes its shares, then checks all N in one batch.
            dealt = 9 * n
            msgs = []
            for i, p in enumerate(peers):
                slots = [s for s in range(dealt) if (1 + s) % n != i] + [dealt]
                t0 = time.thread_time()
                msgs.append((i, p.shares_message(slots, "deal")))
                dt = time.thread_time() - t0
                clock[i] += dt
                cpu += dt
            ready = max(clock)
            for j, p in enumerate(peers):
                t0 = time.thread_time()
                p.on_shares_batch(msgs, "deal")
                dt = time.thread_time() - t0
                clock[j] = max(clock[j], ready) + dt
                cpu += dt
            crit = max(clock)
            row.append((crit, cpu, statistics.mean(prove_t),
                        statistics.mean(verify_t) if verify_t else 0.0))
        (crit, cpu, pv, vf), (crit0, cpu0, _, _) = row
        # The chain is sequential: each hop is proved after the previous one is checked,
        # and the last hop is checked by everyone; commit and deal as without proofs.
        model = n * (pv + vf) + max(crit0 - n * row[1][2], 0.0)
        lines.append(f"{n:7}  {pv * 1e3:7.1f} ms  {vf * 1e3:8.1f} ms  {crit:9.3f} s  "
                     f"{cpu:8.3f} s   {crit0:8.3f} s / {cpu0:6.3f} s   "
                     f"{crit / model if model else 0:29.2f}   "
                     f"{'met' if crit <= 1.5 else 'NOT met'}")
    lines.append("reference: a LibTMCG-based poker prototype needs ~30 s for 52 cards and "
                 "6 players")
    return "\n".join(lines)


# ---------------------------------------------------------------------- bots
def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a win rate (ties count as shared wins)."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    den = 1 + z * z / n
    mid = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return (max(0.0, mid - half), min(1.0, mid + half))


def seat_rotated_games(hero: Callable[[int], Bot], others: Callable[[int], Bot],
                       games: int, seed: int = 0, n: int = 4) -> tuple[float, int]:
    """``games`` games of 1 hero against n−1 others, the hero's seat rotating with the
    game number, deals fixed by ``seed`` + game number. Every bot plays on its own seat's
    view (R8) through the local table. Returns (wins, games); a shared win counts 1/k."""
    from splitnet.localplay import LocalTable, SeededShuffle

    wins = 0.0
    for i in range(games):
        hero_seat = i % n
        game_seed = seed * 100_003 + i
        agents = [hero(game_seed * 8 + s) if s == hero_seat else others(game_seed * 8 + s)
                  for s in range(n)]
        table = LocalTable([f"p{s}" for s in range(n)], agents, SeededShuffle(game_seed))
        table.run()
        winners = table.referee.winners()
        if hero_seat in winners:
            wins += 1 / len(winners)
    return wins, games


def round1_targets(level: str, games: int, seed: int = 0, n: int = 4) -> list[int]:
    """Whom the perfect bonus's mark (R5.1) hits in round 1, by seat, over seeded games of
    ``level`` bots at every seat."""
    hits = [0] * n
    for i in range(games):
        rng = random.Random(seed * 7919 + i)
        g = Game(n)
        bots = [make_bot(level, (seed * 7919 + i) * 8 + s, samples=4) for s in range(n)]
        faces = list(range(104))
        rng.shuffle(faces)
        g.start_round(faces)
        while g.phase not in ("round_over", "game_over"):
            seat = g.actor
            assert seat is not None
            move = bots[seat].choose(g, seat)
            if isinstance(move, BonusMark):
                hits[move.target] += 1
            g.apply(move)
    return hits


def bench_bots(games: int = 40, budget: float = 0.3, samples: int | None = None,
               seed: int = 0, spread_games: int = 30, levels: bool = True,
               margin: float | None = None, candidates: int | None = None) -> str:
    """The bots' benchmark: 1 strong vs 3 normal (seat-rotated, fixed seeds) with a 95%
    interval and the time per searched decision; the round-1 perfect-bonus targets by
    seat; easy against normal and against random."""
    from splitnet.bots.search import SearchConfig, StrongBot

    lines = ["bots: 4-player games, seat-rotated, fixed seeds; a shared win counts 1/k"]
    spread = round1_targets("normal", spread_games, seed)
    total = sum(spread) or 1
    lines.append(f"  round-1 perfect-bonus targets by seat, {spread_games} games of 4 normal "
                 f"bots: {' / '.join(map(str, spread))}  (largest share "
                 f"{max(spread) / total:.0%}; 25% is even)")
    strong_bots: list[StrongBot] = []

    def strong(s: int) -> Bot:
        cfg = SearchConfig(budget=budget, samples=samples)
        if margin is not None:
            cfg.margin = margin
        if candidates is not None:
            cfg.max_candidates = candidates
        b = StrongBot(s, cfg)
        strong_bots.append(b)
        return b

    t0 = time.perf_counter()
    wins, n = seat_rotated_games(strong, lambda s: make_bot("normal", s), games, seed)
    dt = time.perf_counter() - t0
    lo, hi = wilson(wins, n)
    searched = sum(b.searched for b in strong_bots)
    per = sum(b.search_time for b in strong_bots) / searched if searched else 0.0
    cpu = sum(b.search_cpu for b in strong_bots) / searched if searched else 0.0
    mode = f"{samples} samples/decision" if samples is not None else f"budget {budget:g} s"
    probe = SearchConfig()
    mode += (f", margin {probe.margin if margin is None else margin:g}, "
             f"{probe.max_candidates if candidates is None else candidates} candidates")
    lines.append(f"  1 strong ({mode}) vs 3 normal: won {wins:g} of {n} = {wins / n:.1%} "
                 f"(95% CI {lo:.1%}–{hi:.1%}); goal ≥ 40% → ratio {wins / n / 0.40:.2f}")
    sampled = sum(b.sampled for b in strong_bots)
    lines.append(f"    {searched} searched decisions ({searched / max(1, n):.0f} a game, "
                 f"{sampled / max(1, searched):.0f} samples each), "
                 f"{per * 1e3:.0f} ms each on average, {cpu * 1e3:.0f} ms of CPU "
                 f"(limit 300 ms → ratio {cpu / 0.3:.2f}); {dt:.0f} s for {n} games")
    if n:
        goal_h = 1000 * (searched / n * 0.3 + max(0.0, dt - per * searched) / n) / 3600
        lines.append(f"    this run's setting for 1000 games: ≈ {dt / n * 1000 / 3600:.1f} h; "
                     f"the goal's run (1000 games at 0.3 s a decision) ≈ {goal_h:.1f} h on "
                     "one core")
    if levels:
        lv_games = max(games, 100)
        w_n, n_n = seat_rotated_games(lambda s: make_bot("easy", s),
                                      lambda s: make_bot("normal", s), lv_games, seed + 1)
        w_r, n_r = seat_rotated_games(lambda s: make_bot("easy", s),
                                      lambda s: make_bot("random", s), lv_games, seed + 2)
        for label, w, k in (("3 normal", w_n, n_n), ("3 random", w_r, n_r)):
            a, b = wilson(w, k)
            lines.append(f"  1 easy vs {label}: won {w:g} of {k} = {w / k:.1%} "
                         f"(95% CI {a:.1%}–{b:.1%})")
    return "\n".join(lines)
