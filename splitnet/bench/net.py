"""``splitnet bench net``: what the network costs, beside the same game in one process.

For each player count, one whole game of heuristic bots twice, with the same secrets
(``--test-seed``) so both are the same game move for move:

* **in-process** — :class:`~splitnet.games.split.local.LocalGame`: every peer's core in one
  process, no sockets, no files;
* **network** — ``splitnet host --play-as-bot`` and N−1 ``splitnet bot`` processes on
  loopback TCP (join code and encrypted channel, as in a real game), each verifying,
  writing and applying every record.

Figures: **round set-up** (from the start of a round's commit phase to the end of its
deal — commitments, every shuffle hop with its proof, every deal share) and the
**private draw** latency (from the drawer sending its move until it can read the card: the
move and every other seat's decryption share, each checked). Printed, never asserted.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from splitnet.games.split.bots import make_bot, open_hand_player
from splitnet.games.split.local import LocalGame, SelfplaySecrets
from splitnet.games.split.rules import BonusDraw, DrawPile, Settings
from splitnet.net.frames import Frame, Msg, Rec

GOAL_SETUP = 1.20  # network round set-up ≤ 120 % of in-process
GOAL_DRAW_MS = 2.0  # network adds ≤ 2 ms to a draw's p99 (at 6 players)


def quantile(xs: list[float], q: float) -> float:
    if not xs:
        return float("nan")
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))]


def in_process(n: int, seed: int, proofs: bool) -> dict[str, Any]:
    """One game among in-memory peers, timed as the network game is."""
    names = [f"heuristic-{i}" for i in range(n)]
    game = LocalGame(names, Settings(), SelfplaySecrets(seed), shuffle_proofs=proofs,
                     open_hand=open_hand_player)
    bots = [make_bot("heuristic", seed * 100 + i) for i in range(n)]
    setup: list[float] = []
    draws: list[float] = []
    host = game.cores[0]
    t_round = time.perf_counter()
    round_no = 1
    t0 = time.perf_counter()
    for _ in range(1_000_000):
        if game.finished:
            break
        if game.pump():
            r = host.round
            if r is not None and r.number != round_no:
                round_no, t_round = r.number, time.perf_counter()
            continue
        seat = game.mover()
        if seat is None:
            raise RuntimeError("the game is stuck")
        r = host.round
        if r is not None and r.number == round_no and t_round >= 0:
            setup.append(time.perf_counter() - t_round)
            t_round = -1.0
        action = bots[seat].choose(game.cores[seat].engine, seat)
        if isinstance(action, DrawPile | BonusDraw):
            t = time.perf_counter()
            game.play_move(seat, action)
            while (rd := game.cores[seat].round) is not None and rd.draw:
                if not game.pump():
                    break
            draws.append(time.perf_counter() - t)
        else:
            game.play_move(seat, action)
    wall = time.perf_counter() - t0
    return {"setup": setup, "draw": draws, "wall": wall, "record": game.cores[0].record}


def _cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "splitnet.cli", *args]


def _wait_for(path: Path, text: str, count: int, timeout: float) -> str:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        data = path.read_text(errors="replace") if path.exists() else ""
        if data.count(text) >= count:
            return data
        time.sleep(0.05)
    raise TimeoutError(f"{path}: no {count}× {text!r} within {timeout} s")


def network(n: int, seed: int, proofs: bool, timeout: float = 300.0,
            wormhole: list[str] | None = None) -> dict[str, Any]:
    """One game among a host and n−1 bot processes on loopback; with ``wormhole`` (the
    ``--mailbox``/``--relay`` arguments), the bots join through wormhole invitations."""
    with tempfile.TemporaryDirectory(prefix="splitnet-bench-") as tmp:
        d = Path(tmp)
        common = ["--test-seed", str(seed), "--new"]
        host_args = ["host", "--port", "0", "--bind", "127.0.0.1", "--seats", str(n),
                     "--play-as-bot", "heuristic", "--name", "heuristic-0",
                     "--data-dir", str(d / "p0"), "--bench-out", str(d / "p0.json"),
                     "--no-announce", *common]
        if not proofs:
            host_args.append("--no-proofs")
        if wormhole is not None:
            host_args += ["--internet", *wormhole]
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        procs = []
        with open(d / "host.out", "w") as out, open(d / "host.err", "w") as err:
            procs.append(subprocess.Popen(_cmd(*host_args), stdout=out, stderr=err, env=env))
        text = _wait_for(d / "host.out", "listening on port", 1, 30)
        port = text.split("listening on port")[1].split()[0]
        code = text.split("Join code: ")[1].split()[0]  # every connection is encrypted
        t0 = time.perf_counter()
        for i in range(1, n):
            target = [f"127.0.0.1:{port}", "--code", code]
            if wormhole is not None:
                text = _wait_for(d / "host.out", "Invitation: splitnet join ", i, 60)
                invite = text.split("Invitation: splitnet join ")[i].split()[0]
                target = [invite, *wormhole]
            with open(d / f"p{i}.out", "w") as out, open(d / f"p{i}.err", "w") as err:
                procs.append(subprocess.Popen(_cmd(
                    "bot", *target, "--name", f"heuristic-{i}",
                    "--data-dir",
                    str(d / f"p{i}"), "--bench-out", str(d / f"p{i}.json"), *common),
                    stdout=out, stderr=err, env=env))
            _wait_for(d / "host.err", "joined the lobby", i, 30)  # seat i = join order
        try:
            for p in procs:
                p.wait(timeout=timeout)
        finally:
            for p in procs:
                if p.poll() is None:
                    p.kill()
        wall = time.perf_counter() - t0
        bad = [i for i, p in enumerate(procs) if p.returncode != 0]
        if bad:
            log = (d / ("host.err" if bad[0] == 0 else f"p{bad[0]}.err")).read_text()
            raise RuntimeError(f"process {bad[0]} failed:\n{log[-2000:]}")
        res = [json.loads((d / f"p{i}.json").read_text()) for i in range(n)]
        logs = sorted({p.read_bytes() for p in d.glob("p*/games/*.splitlog")})
    return {"setup": res[0]["timings"]["setup"],
            "draw": [x for r in res for x in r["timings"]["draw"]],
            "wall": wall, "record": res[0]["record"], "identical": len(logs) == 1}


def bench_net(players: list[int], *, proofs: bool = True, seed: int = 11) -> str:
    lines = [f"net: host + bot processes on loopback TCP vs the same game in one process "
             f"(LocalGame); heuristic bots, seed {seed}, shuffle proofs "
             f"{'on' if proofs else 'off'}; {os.cpu_count()} cores",
             "  players | round set-up (mean s)        | private draw p50 / p99 (ms)"
             "                  | same game",
             "          | in-proc  network   ratio     | in-proc          network"
             "          Δp99  |"]
    for n in players:
        local = in_process(n, seed, proofs)
        net = network(n, seed, proofs)
        ls, ns = (sum(x["setup"]) / max(1, len(x["setup"])) for x in (local, net))
        l50, l99 = quantile(local["draw"], 0.5) * 1e3, quantile(local["draw"], 0.99) * 1e3
        n50, n99 = quantile(net["draw"], 0.5) * 1e3, quantile(net["draw"], 0.99) * 1e3
        same = net["record"] == local["record"] and net["identical"]
        lines.append(f"  {n:7} | {ls:7.3f}  {ns:7.3f}  {ns / ls:6.2f}×    | "
                     f"{l50:6.2f} / {l99:6.2f}  {n50:6.2f} / {n99:6.2f}  {n99 - l99:+6.2f} | "
                     f"{'yes' if same else 'NO'}")
        lines.append(f"          | whole game: in-process {local['wall']:.1f} s, network "
                     f"{net['wall']:.1f} s; {len(net['draw'])} draws")
        lines.extend(draw_lines(n, seed))
    lines.append(f"  goals: network round set-up ≤ {GOAL_SETUP:.2f}× in-process; a draw's "
                 f"p99 + ≤ {GOAL_DRAW_MS:g} ms at 6 players; frames ≤ "
                 f"{GOAL_NET_SHARE:.0%} of a draw's CPU")
    return "\n".join(lines)


def draw_lines(n: int, seed: int) -> list[str]:
    """:func:`draw_cpu` as report lines: a draw's CPU per part, all processes together and
    on its critical path, each part as a share of the draw's CPU."""
    r = draw_cpu(n, seed)
    tot, crit = sum(r["total"].values()), sum(r["crit"].values())
    parts = "  ".join(f"{p} {r['total'][p] * 1e3:.2f} ({r['total'][p] / tot:.0%})"
                      for p in DRAW_PARTS)
    cparts = "  ".join(f"{p} {r['crit'][p] * 1e3:.2f} ({r['crit'][p] / crit:.0%})"
                       for p in DRAW_PARTS)
    share = r["total"]["frames"] / tot
    return [f"          | a draw's CPU (the LAN code on this game's {r['draws']} draws, no "
            f"sockets): {tot * 1e3:.2f} ms in all {n} processes, {crit * 1e3:.2f} ms on "
            "its critical path",
            f"          |   all (ms): {parts}",
            f"          |   critical path (ms): {cparts}",
            f"          |   frames (msgpack + encryption) {share:.0%} of the draw's CPU "
            f"(goal ≤ {GOAL_NET_SHARE:.0%}: {'met' if share <= GOAL_NET_SHARE else 'MISSED'})"
            f"; the p99 above adds sockets, the event loop and the other processes"]


# --------------------------------------------------------------------------- wormhole


class LoopbackServers:
    """magic-wormhole's mailbox server and transit relay as processes on free loopback
    ports (the mailbox's database in ``workdir``); ``args`` for the commands, relay only."""

    def __init__(self, workdir: Path) -> None:
        import socket

        def free() -> int:
            with socket.socket() as sock:
                sock.bind(("127.0.0.1", 0))
                return int(sock.getsockname()[1])

        twist = str(Path(sys.executable).parent / "twist")
        self.mailbox_port, self.relay_port = free(), free()
        self.procs = [subprocess.Popen(
            [twist, *what, f"--port=tcp:{port}:interface=127.0.0.1"], cwd=workdir,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for what, port in ((["wormhole-mailbox"], self.mailbox_port),
                               (["transitrelay"], self.relay_port))]
        self.mailbox = f"ws://127.0.0.1:{self.mailbox_port}/v1"
        self.relay = f"tcp:127.0.0.1:{self.relay_port}"
        self.args = ["--mailbox", self.mailbox, "--relay", self.relay, "--relay-only"]
        for port in (self.mailbox_port, self.relay_port):
            end = time.monotonic() + 30
            while True:
                try:
                    socket.create_connection(("127.0.0.1", port), 0.5).close()
                    break
                except OSError:
                    if time.monotonic() > end:
                        self.close()
                        raise RuntimeError(f"the wormhole server on port {port} did not "
                                           "start (are magic-wormhole-mailbox-server and "
                                           "magic-wormhole-transit-relay installed?)") from None
                    time.sleep(0.1)

    def close(self) -> None:
        for p in self.procs:
            p.terminate()
        for p in self.procs:
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()


async def _round_trips(mailbox: str, relay: str, count: int) -> tuple[list[float],
                                                                     list[float]]:
    """Round trips of a 100-byte frame: over a loopback TCP StreamChannel, and over a
    WormholeChannel through the relay (no direct path offered)."""
    import asyncio

    from splitnet.net import wormhole as wh
    from splitnet.net.wire import Channel, StreamChannel

    async def echo(ch: Channel) -> None:
        try:
            for _ in range(count):
                ch.send(await ch.recv())
        except ConnectionError:
            pass

    async def measure(ch: Channel) -> list[float]:
        out = []
        for _ in range(count):
            t = time.perf_counter()
            ch.send(b"x" * 100)
            await ch.recv()
            out.append(time.perf_counter() - t)
        return out

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await echo(StreamChannel(reader, writer))

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    direct = StreamChannel(reader, writer)
    tcp = await measure(direct)
    direct.close()
    server.close()

    settings = wh.WormholeSettings(mailbox=mailbox, relay=relay, no_listen=True,
                                   connect_timeout=30)
    codes: asyncio.Queue[str] = asyncio.Queue()
    inv = wh.Invitations(settings, echo, codes.put_nowait, lambda: 1)
    inv.refresh()
    try:
        code = await asyncio.wait_for(codes.get(), 30)
        guest = wh.WormholeConnector(code, settings)
        ch = await guest()
        relayed = await measure(ch)
        ch.close()
        await guest.close()
    finally:
        await inv.close()
        wh.stop_twisted()
    return tcp, relayed


def bench_wormhole(players: list[int], *, proofs: bool = False, seed: int = 11,
                   count: int = 200) -> str:
    """``splitnet bench wormhole``: the relay path beside the LAN path, on loopback."""
    import asyncio

    with tempfile.TemporaryDirectory(prefix="splitnet-bench-wh-") as tmp:
        servers = LoopbackServers(Path(tmp))
        try:
            tcp, relayed = asyncio.run(_round_trips(servers.mailbox, servers.relay, count))
            t50, r50 = quantile(tcp, 0.5) * 1e3, quantile(relayed, 0.5) * 1e3
            t99, r99 = quantile(tcp, 0.99) * 1e3, quantile(relayed, 0.99) * 1e3
            lines = [f"wormhole: magic-wormhole mailbox + transit relay on loopback, relay "
                     f"only (no direct path); {os.cpu_count()} cores",
                     f"  frame round trip ({count}× 100 bytes): loopback TCP, both ends in this "
                     f"process, p50 {t50:.2f} ms "
                     f"p99 {t99:.2f} ms; through the relay p50 {r50:.2f} ms p99 {r99:.2f} ms"
                     f" (+{r50 - t50:.2f} ms p50, {r50 / t50:.1f}×)",
                     "  players | round set-up (mean s)     | private draw p50 / p99 (ms)",
                     "          | LAN      relay    ratio   | LAN              relay"]
            for n in players:
                lan = network(n, seed, proofs)
                rel = network(n, seed, proofs, wormhole=servers.args)
                ls, rs = (sum(x["setup"]) / max(1, len(x["setup"])) for x in (lan, rel))
                l50, l99 = (quantile(lan["draw"], q) * 1e3 for q in (0.5, 0.99))
                n50, n99 = (quantile(rel["draw"], q) * 1e3 for q in (0.5, 0.99))
                same = rel["record"] == lan["record"] and rel["identical"]
                lines.append(f"  {n:7} | {ls:7.3f}  {rs:7.3f}  {rs / ls:5.2f}×  | "
                             f"{l50:6.2f} / {l99:6.2f}  {n50:6.2f} / {n99:6.2f}  "
                             f"same game: {'yes' if same else 'NO'}")
            lines.append(f"  goal: the relay adds a few ms per round trip (shuffle proofs "
                         f"{'on' if proofs else 'off'}, heuristic bots, seed {seed})")
        finally:
            servers.close()
    return "\n".join(lines)


# --------------------------------------------------------------------------- a draw's CPU

#: Where a private draw's CPU goes, by part (:func:`draw_cpu`).
DRAW_PARTS = ("frames", "signatures", "share proofs", "log decode", "game core")
GOAL_NET_SHARE = 0.10  # frames (msgpack + encryption) ≤ 10 % of a draw's CPU


class _Clock:
    """CPU seconds of this thread spent in named parts; a part inside another is taken
    out of the outer one (a signature check inside a log append counts as signatures)."""

    def __init__(self) -> None:
        self.spent: dict[str, float] = dict.fromkeys(DRAW_PARTS, 0.0)
        self._stack: list[list[Any]] = []

    def run(self, part: str, fn: Any, *args: Any, **kwargs: Any) -> Any:
        self._stack.append([part, 0.0])
        t0 = time.thread_time()
        try:
            return fn(*args, **kwargs)
        finally:
            dt = time.thread_time() - t0
            _, inner = self._stack.pop()
            self.spent[part] += dt - inner
            if self._stack:
                self._stack[-1][1] += dt

    def wrap(self, part: str, fn: Any) -> Any:
        def inner(*args: Any, **kwargs: Any) -> Any:
            return self.run(part, fn, *args, **kwargs)
        return inner


def draw_cpu(n: int, seed: int) -> dict[str, Any]:
    """What each process of a LAN game spends on a private draw (R8.3), from the real code
    a host and its joiners run on the records of one game, without the sockets.

    One game of heuristic bots is played in one process (no shuffle proofs: a draw's cost
    does not depend on them); then its log is replayed as the host (a seat's frame opened,
    the message checked, applied to its core, ordered, the record sealed for each joiner)
    and as every joiner (the record's frame opened, the record verified — the author's and
    the host's Ed25519 signatures — and applied; its own draw shares made, signed and
    sealed), each call's CPU put in a part: **frames** (msgpack frame encoding and schema
    check, ChaCha20-Poly1305), **signatures** (Ed25519 signing and checking), **share
    proofs** (making and checking the decryption shares' DLEQ proofs), **log decode**
    (the record's msgpack and checks), **game core** (the rest of applying an entry).

    Returns per part the CPU of every process together per draw (``total``), the
    critical path's CPU (``crit``: drawer's move → host → the slowest seat's shares → host
    → drawer, every seat's shares made in parallel) and the draw count.
    """
    from splitnet.crypto import deck as deck_mod
    from splitnet.game.table import MemoryPledges, entry_position
    from splitnet.games.split.core import GameCore
    from splitnet.net.secure import KeySchedule, SecureSession
    from splitnet.session import log as log_mod
    from splitnet.session.identity import Identity
    from splitnet.session.log import Log

    names = [f"heuristic-{i}" for i in range(n)]
    source = SelfplaySecrets(seed)
    game = LocalGame(names, Settings(), source, shuffle_proofs=False,
                     open_hand=open_hand_player)
    bots = [make_bot("heuristic", seed * 100 + i) for i in range(n)]
    for _ in range(1_000_000):
        if game.finished:
            break
        if game.pump():
            continue
        seat = game.mover()
        if seat is None:
            raise RuntimeError("the game is stuck")
        game.play_move(seat, bots[seat].choose(game.cores[seat].engine, seat))
    entries = game.log.entries
    # The draws: a move followed at once by every other seat's draw shares.
    draw_of: dict[int, int] = {}  # seq → the seq of the draw move it belongs to
    for e in entries:
        if e.kind == "shares" and dict(e.body).get("purpose") == "draw":
            prev = e.seq - 1
            draw_of[e.seq] = draw_of.get(prev, prev)
    for m in set(draw_of.values()):
        draw_of[m] = m
    draws = sorted(set(draw_of.values()))

    clock = _Clock()
    wrapped = [(log_mod, "verify", "signatures"), (Identity, "sign", "signatures"),
               (deck_mod, "verify_shares", "share proofs"),
               (deck_mod, "verify_shares_batch", "share proofs"),
               (deck_mod, "prove_shares", "share proofs")]
    saved = {(obj, attr): getattr(obj, attr) for obj, attr, _ in wrapped}
    keys = KeySchedule.derive(bytes(32), bytes(32))
    settings = game.cores[0].settings
    header_keys = [p.key for p in game.log.header.players]
    host_id = source.identity(0)
    host_log = Log()
    logs = [Log() for _ in range(n)]
    cores = [GameCore(game.log.game_id, names, settings, s, source.round_seeds(s),
                      shuffle_proofs=False, pledges=MemoryPledges(), keys=header_keys,
                      open_hand=open_hand_player) for s in range(n)]
    to_host = [SecureSession("host", keys) for _ in range(n)]
    from_seat = [SecureSession("joiner", keys) for _ in range(n)]
    to_seat = [SecureSession("host", keys) for _ in range(n)]
    at_seat = [SecureSession("joiner", keys) for _ in range(n)]
    # per draw: CPU of (role, step, seq) — role "host" or a seat, seq the record's
    per: dict[int, dict[tuple[str, str, int], dict[str, float]]] = {d: {} for d in draws}

    def account(d: int | None, key: tuple[str, str, int], before: dict[str, float]) -> None:
        if d is None:
            return
        now = dict(clock.spent)
        cell = per[d].setdefault(key, dict.fromkeys(DRAW_PARTS, 0.0))
        for p in DRAW_PARTS:
            cell[p] += now[p] - before[p]

    try:
        for obj, attr, part in wrapped:
            setattr(obj, attr, clock.wrap(part, getattr(obj, attr)))
        for e in entries:
            rec = e.record
            d = draw_of.get(e.seq)
            if e.seq == 0:
                host_log.append_record(rec)
                for lg in logs:
                    lg.append_record(rec)
                continue
            at = entry_position(e)
            # the author: its message signed and sealed (a draw share also made here)
            b0 = dict(clock.spent)
            if d is not None and e.kind == "shares":
                clock.run("game core", cores[e.author].outbox)
            if d is not None:
                clock.run("signatures", source.identity(e.author).sign, e.msg_bytes)
            f = Msg(e.msg_bytes, e.sig)  # the host's own message: no frame
            if e.author != 0:
                frame = clock.run("frames", _seal, from_seat[e.author], "msg",
                                  msg=e.msg_bytes, sig=e.sig)
            account(d, (str(e.author), "send", e.seq), b0)
            # the host: open, check, apply, order, seal for every joiner
            b0 = dict(clock.spent)
            if e.author != 0:
                opened = clock.run("frames", _open, to_host[e.author], frame, False)
                assert isinstance(opened, Msg)
                f = opened
            m = clock.run("log decode", host_log.check_order, f.msg, f.sig)
            if e.kind != "accept":
                clock.run("game core", cores[0].apply, m.author, m.kind, m.body, at=at)
            record = clock.run("log decode", host_log.order, f.msg, f.sig, host_id)
            assert record == rec, "the replayed host must sign the same record"
            out = [clock.run("frames", _seal, to_seat[s], "rec", seq=e.seq, record=record)
                   for s in range(1, n)]
            account(d, ("host", "order", e.seq), b0)
            # each joiner: open, verify, apply
            for s in range(1, n):
                b0 = dict(clock.spent)
                got = clock.run("frames", _open, at_seat[s], out[s - 1], True)
                assert isinstance(got, Rec)
                entry = clock.run("log decode", logs[s].append_record, got.record)
                if e.kind != "accept":
                    clock.run("game core", cores[s].apply, entry.author, entry.kind,
                              dict(entry.body), at=at)
                account(d, (str(s), "receive", e.seq), b0)
    finally:
        for (obj, attr), fn in saved.items():
            setattr(obj, attr, fn)
    return _draw_summary(n, entries, draws, per)


def _seal(session: Any, t: str, **fields: Any) -> bytes:
    from splitnet.net.wire import encode_msg

    frame: bytes = session.seal(encode_msg(t, **fields))
    return frame


def _open(session: Any, frame: bytes, from_host: bool) -> Frame:
    from splitnet.net.wire import decode_frame

    return decode_frame(session.open(frame) or b"", from_host=from_host)


def _draw_summary(n: int, entries: Any, draws: list[int],
                  per: dict[int, dict[tuple[str, str, int], dict[str, float]]]
                  ) -> dict[str, Any]:
    zero = dict.fromkeys(DRAW_PARTS, 0.0)
    total = dict(zero)
    crit = dict(zero)
    for d in draws:
        cells = per[d]

        def cell(role: int | str, step: str, seq: int) -> dict[str, float]:
            return cells.get((str(role), step, seq), zero)  # noqa: B023 (used at once)

        for c in cells.values():
            for p in DRAW_PARTS:
                total[p] += c[p] / len(draws)
        drawer = entries[d].author
        shares = [e for e in entries[d + 1: d + n] if e.kind == "shares"]
        # the drawer's move → the host orders it → each seat takes it and sends its
        # shares (in parallel: the slowest counts) → the host orders each → the drawer
        # takes each (the host's own part of a step is in its "order")
        path = [cell(drawer, "send", d), cell("host", "order", d)]
        if shares:
            path.append(max((_add(cell(e.author, "receive", d), cell(e.author, "send", e.seq))
                             for e in shares), key=lambda c: sum(c.values())))
        for e in shares:
            path += [cell("host", "order", e.seq), cell(drawer, "receive", e.seq)]
        for c in path:
            for p in DRAW_PARTS:
                crit[p] += c[p] / len(draws)
    return {"total": total, "crit": crit, "draws": len(draws)}


def _add(a: dict[str, float], b: dict[str, float]) -> dict[str, float]:
    return {p: a.get(p, 0.0) + b.get(p, 0.0) for p in DRAW_PARTS}


# --------------------------------------------------------------------------- launch

GOAL_FIRST_TABLE = 1.5  # seconds from `splitnet play` to the first hand on screen


def _proc_cpu(pid: int) -> tuple[float, float]:
    """(CPU seconds of process ``pid``, of its living children together), from /proc
    (zeros where that is not available)."""
    tick = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100

    def cpu(p: int) -> float:
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / tick
        except (OSError, IndexError, ValueError):
            return 0.0

    try:
        kids = [int(x) for x in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except (OSError, ValueError):
        kids = []
    return cpu(pid), sum(cpu(k) for k in kids)


def launch_times(runs: int = 2, bots: int = 3,
                 seed: int = 7) -> list[tuple[float, float, float, float]]:
    """``splitnet play --plain`` (you + ``bots`` bots, shuffle proofs on) started as a
    process ``runs`` times: (seconds to its first line, seconds to the first round's
    line — the first hand dealt and on screen —, the CPU seconds the process and its
    proof workers had used by then), wall clock from just before the process is started.
    One run before them, not counted, writes the bytecode into a temporary cache, as an
    installed copy has it (even where the environment says not to write bytecode)."""
    out: list[tuple[float, float, float, float]] = []
    with tempfile.TemporaryDirectory(prefix="splitnet-launch-") as tmp:
        env = dict(os.environ, PYTHONPYCACHEPREFIX=str(Path(tmp) / "pyc"),
                   PYTHONUNBUFFERED="1")
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        for k in range(runs + 1):
            cmd = _cmd("play", "--plain", "--bots", str(bots), "--seed", str(seed), "--new",
                       "--pace", "0", "--data-dir", str(Path(tmp) / f"d{k}"))
            t0 = time.perf_counter()
            p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, env=env)
            first = table = float("nan")
            assert p.stdout is not None and p.stdin is not None
            try:
                for _, raw in zip(range(10_000), p.stdout, strict=False):
                    now = time.perf_counter() - t0
                    if first != first:
                        first = now
                    if raw.startswith(b"Round 1"):
                        table = now
                        main, workers = _proc_cpu(p.pid)
                        break
                p.stdin.write(b"q\n")
                p.stdin.close()
                p.wait(timeout=60)
            finally:
                if p.poll() is None:
                    p.kill()
                    p.wait()
            if table != table:
                raise RuntimeError("splitnet play showed no first round")
            if k:
                out.append((first, table, main, workers))
    return out


def launch_lines(runs: int = 2) -> list[str]:
    """:func:`launch_times` as report lines, beside the bare interpreter's start and the
    import of the command line measured in the same run (the machine's load varies)."""
    def started(*args: str) -> float:
        t0 = time.perf_counter()
        subprocess.run([sys.executable, *args], check=True, capture_output=True)
        return time.perf_counter() - t0

    bare = min(started("-c", "pass") for _ in range(3))
    cli = min(started("-c", "import splitnet.cli") for _ in range(2))
    times = launch_times(runs)
    first = min(t[1] for t in times)
    # on 2 free cores: the process's own CPU, or half of it and its workers' together
    free = min(max(m, (m + w) / 2) for _, _, m, w in times)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return [f"first table after launch: `splitnet play --plain` (you + 3 bots, proofs on) "
            f"to the first round's hand, best of {runs} (load average {load:.1f} on "
            f"{os.cpu_count()} cores)",
            "  runs — first line / first hand (CPU by then: process + proof workers): "
            + "; ".join(f"{a:.2f} s / {b:.2f} s ({m:.2f} + {w:.2f} s)"
                        for a, b, m, w in times),
            f"  the same run: bare interpreter {bare:.2f} s, import of the command line "
            f"{cli:.2f} s",
            f"  goal ≤ {GOAL_FIRST_TABLE} s: {first:.2f} s wall "
            f"{'met' if first <= GOAL_FIRST_TABLE else 'MISSED'} "
            f"({first / GOAL_FIRST_TABLE:.2f}× the limit); on 2 free cores ≈ {free:.2f} s "
            f"({free / GOAL_FIRST_TABLE:.2f}×)"]
