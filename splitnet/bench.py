"""Benchmarks (``splitnet bench``). Figures are printed, never asserted in tests."""

from __future__ import annotations

import hashlib
import random
import statistics
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
