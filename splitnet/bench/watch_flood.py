"""``splitnet bench watch-flood``: the players' relay latency with and without 32
hostile watch attempts (NETWORK.md §14; SECURITY.md row 140).

A host and two bot joiners play a Split game on loopback TCP (join code, watch code and
encrypted channels, as ``splitnet host``/``join`` wrap them), in this process; each
record's **relay latency** is the time from the host ordering it to each joiner holding
it (verified, written and applied). The same game is played twice per ``--games``:
alone, and while another process keeps 32 hostile watch attempts going against the
host — 12 wrong watch codes (again and again), 10 half-open connections, 8 connections
past the watch code that never send ``watch``, 2 watchers let in that never read.
Figures: the median and 95th percentile of the moves' relay latency, their ratio
(flood ÷ alone), and this process's CPU time per game either way (what the attempts
cost the host: each connection, its HELLO's SPAKE2 — libsodium's since issue 24,
SECURITY.md row 147 — and what the host does to refuse or serve it). Printed, never asserted:
the in-memory test on virtual time holds that nothing a watcher does is waited for
(tests/test_watch_host.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import tempfile
import time
from pathlib import Path
from typing import Any

from splitnet.bench.net import quantile

#: the hostile attempts kept going at once, by kind
WRONG, HALF_OPEN, SILENT, DEAF = 12, 10, 8, 2


def bench_watch_flood(games: int = 2, *, rounds: int = 1, seed: int = 0,
                      timeout: float = 600.0) -> str:
    """The report (``games`` games alone and as many under the flood, ``rounds`` each)."""
    alone: list[float] = []
    flooded: list[float] = []
    cpu = {False: 0.0, True: 0.0}  # this process's CPU seconds (host + joiners)
    quiet = logging.getLogger("splitnet")  # (the host's lines on each refused attempt)
    level = quiet.level
    quiet.setLevel(logging.ERROR)
    try:
        for g in range(games):
            for flood, out in ((False, alone), (True, flooded)):
                with tempfile.TemporaryDirectory(prefix="splitnet-watch-flood-") as tmp:
                    began = time.process_time()
                    out += asyncio.run(asyncio.wait_for(
                        _game(Path(tmp), flood, rounds, seed + g), timeout))
                    cpu[flood] += time.process_time() - began
    finally:
        quiet.setLevel(level)

    def line(xs: list[float]) -> str:
        return (f"{len(xs)} relays, median {1000 * quantile(xs, 0.5):.2f} ms, "
                f"p95 {1000 * quantile(xs, 0.95):.2f} ms")

    def ratio(q: float) -> str:
        a, b = quantile(alone, q), quantile(flooded, q)
        return f"{b / a:.2f}" if a > 0 else "n/a"

    total = WRONG + HALF_OPEN + SILENT + DEAF
    return "\n".join([
        f"watch-flood: {games} game(s) of {rounds} round(s) alone and as many under the "
        "flood; host + 2 bot joiners on loopback TCP in this process, no shuffle proofs",
        "  a move's relay: from the host ordering it to each joiner holding it",
        f"    alone:               {line(alone)}",
        f"    {total} hostile attempts: {line(flooded)}",
        f"      ({WRONG} wrong watch codes again and again, {HALF_OPEN} half-open, "
        f"{SILENT} silent past the watch code, {DEAF} watchers that never read; "
        "another process)",
        f"  ratio (flood ÷ alone): median {ratio(0.5)}, p95 {ratio(0.95)} "
        "(goal: about 1 — nothing a watcher does is waited for)",
        f"  CPU of this process (host and joiners) per game: alone "
        f"{cpu[False] / games:.2f} s, under the flood {cpu[True] / games:.2f} s (what "
        "the attempts cost the host: each connection, its HELLO's SPAKE2, SECURE.md §3, "
        "and its refusal; the attacking process's own CPU is not in it, but shares the machine)",
    ])


async def _game(tmp: Path, flood: bool, rounds: int, seed: int) -> list[float]:
    """One game; the relay latencies of its moves (seconds, one per move and joiner)."""
    from splitnet.app.lan_session import LAN_PARTS, NetSession
    from splitnet.games.split.bots import make_bot
    from splitnet.games.split.local import game_settings
    from splitnet.games.split.rules import Settings
    from splitnet.net.config import NetSettings
    from splitnet.net.host import HostNode
    from splitnet.net.joincode import new_code
    from splitnet.net.links import node_wrap, secure_busy
    from splitnet.net.peer import PeerNode
    from splitnet.net.secure import AttemptLimiter
    from splitnet.net.secure_watch import WatchGate
    from splitnet.net.table import GameChoice
    from splitnet.session.identity import Identity

    net = NetSettings()
    code, watch = new_code(), new_code()
    choice = GameChoice(header=lambda n: game_settings(Settings(rounds=rounds),
                                                       shuffle_proofs=False))
    host: HostNode | None = None

    def seats() -> set[bytes]:
        return host.player_keys() if host is not None else set()

    host = HostNode(Identity.generate(), tmp / "host", "Host", net, seats=3, proofs=False,
                    choice=choice, code=str(code), busy=secure_busy, parts=LAN_PARTS,
                    wrap=node_wrap(code, net, limiter=AttemptLimiter(), seats=seats,
                                   watch=WatchGate(watch, AttemptLimiter())))
    host.watchers.desk.limit = DEAF
    port = await host.listen("127.0.0.1", 0)
    ctx = multiprocessing.get_context("spawn")
    stop = ctx.Event()
    proc = ctx.Process(target=_flood, args=(port, str(watch), stop), daemon=True) \
        if flood else None
    peers: list[PeerNode] = []
    try:
        if proc is not None:
            proc.start()
            await asyncio.sleep(1.0)  # (the attempts under way)
        for name in ("Ana", "Bo"):
            me = Identity.generate()
            peers.append(PeerNode(me, tmp / name, name, "127.0.0.1", port, net,
                                  wrap=node_wrap(code, net, identity=me), code=str(code),
                                  parts=LAN_PARTS))
        tasks = [p.start() for p in peers]
        await host.started.wait()
        while not all(p.ready for p in peers):
            await asyncio.sleep(0.01)
        assert host.table is not None
        ordered: dict[int, tuple[float, str]] = {}
        got: list[tuple[int, float]] = []
        def order(e: Any) -> None:
            ordered.setdefault(e.seq, (time.perf_counter(), e.kind))

        host.table.listeners.append(order)
        for p in peers:
            assert p.table is not None
            p.table.listeners.append(lambda e: got.append((e.seq, time.perf_counter())))
        done = asyncio.ensure_future(host.done.wait())
        sessions = [NetSession(host, done, bot=make_bot("heuristic", seed))]
        sessions += [NetSession(p, t, bot=make_bot("heuristic", seed + i + 1))
                     for i, (p, t) in enumerate(zip(peers, tasks, strict=True))]
        await asyncio.gather(*(s.run() for s in sessions))
        return [at - ordered[seq][0] for seq, at in got
                if seq in ordered and ordered[seq][1] == "move"]
    finally:
        stop.set()
        if proc is not None:
            proc.join(5.0)
            if proc.is_alive():
                proc.terminate()
                proc.join(5.0)
        await host.close()
        for p in peers:
            if p.task is not None:
                p.task.cancel()
        await asyncio.gather(*(p.task for p in peers if p.task is not None),
                             return_exceptions=True)


def _flood(port: int, watch: str, stop: Any) -> None:
    """The hostile process: keeps the attempts going until ``stop`` is set."""
    asyncio.run(_attempts(port, watch, stop))


async def _attempts(port: int, watch: str, stop: Any) -> None:
    from splitnet.net.config import NetSettings
    from splitnet.net.frames import Watch
    from splitnet.net.joincode import new_code
    from splitnet.net.watcher import watch_wrap
    from splitnet.net.wire import NET_PROTOCOL, StreamChannel, encode_typed

    net = NetSettings()
    wrong = new_code()
    while str(wrong) == watch:
        wrong = new_code()

    async def opened() -> StreamChannel:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        return StreamChannel(reader, writer)

    async def attempt(kind: str, k: int) -> None:
        ch = await opened()
        try:
            if kind == "half-open":
                await asyncio.sleep(net.handshake_timeout + 1)
                return
            secured = await watch_wrap(wrong if kind == "wrong" else watch, net)(ch, "client")
            await secured.recv()  # the challenge
            if kind == "silent":
                await asyncio.sleep(net.handshake_timeout + 1)
                return
            secured.send(encode_typed(Watch(NET_PROTOCOL, f"deaf{k}", None, 0, None)))
            await asyncio.sleep(3600)  # … and never reads again
        finally:
            ch.close()

    async def keep(kind: str, k: int) -> None:
        while not stop.is_set():
            with contextlib.suppress(Exception):
                await attempt(kind, k)
            await asyncio.sleep(0.05)

    kinds = (["wrong"] * WRONG + ["half-open"] * HALF_OPEN + ["silent"] * SILENT
             + ["deaf"] * DEAF)
    tasks = [asyncio.ensure_future(keep(kind, k)) for k, kind in enumerate(kinds)]
    while not stop.is_set():
        await asyncio.sleep(0.1)
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
