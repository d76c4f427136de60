"""``splitnet bench lan-load``: many LAN games at once on loopback, each checked whole.

K games of N seats run at the same time, each a ``splitnet host --play-as-bot heuristic
--seats N --no-announce`` process bound to 127.0.0.1 and N−1 ``splitnet bot``
processes, every one with its own data dir and a fixed seed (``--test-seed``, one per
game). Bots join one seat at a time across all games (seat i of every game before seat
i+1), so each game is the same game every run. Then, for every game:

* it **started with N seats** — its transcript's header names N players;
* it **finished** — every process of it exited 0 and printed the final score;
* its N transcripts are **byte-identical** and ``splitnet verify`` accepts one of them
  (they are the same bytes, so it accepts all).

Printed: games started with N seats / finished / identical / verified, the wall time, the
per-game duration (from its lobby filling to its last process ending) median and p90 —
beside one game of N seats run alone first in the same run, as the ratio to it — and
the reconnects seen (connections a joiner lost and made again; seats a host saw come
back). ``--kill``: once in each game, when it is under way, one peer chosen by the seed
is killed (SIGKILL) and started again with the same command (a bot without its code: it
resumes its saved game), and that game must still pass every check.

Bounded: every game gets at most ``timeout`` seconds, then every process still running
is killed and the game counts as not finished. Loopback only, nothing is announced. The
figures are printed; nothing is asserted (the exit status says whether every check held).
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from splitnet.session.log import Log
from splitnet.session.transcript import read_transcript

__all__ = ["LoadGame", "lan_load", "run_games"]


def _cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "splitnet.cli", *args]


def _text(path: Path) -> str:
    return path.read_text(errors="replace") if path.exists() else ""


def _quantile(xs: list[float], q: float) -> float:
    if not xs:
        return float("nan")
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))]


@dataclass(eq=False)
class Peer:
    """One process of a game, its output in files (no pipe to fill up)."""

    label: str
    args: list[str]
    out: Path
    err: Path
    proc: subprocess.Popen[bytes] | None = None
    starts: int = 0

    def start(self) -> None:
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        with open(self.out, "a") as out, open(self.err, "a") as err:
            self.proc = subprocess.Popen(_cmd(*self.args), stdout=out, stderr=err, env=env)
        self.starts += 1

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill(self) -> None:
        if self.running:
            assert self.proc is not None
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)


@dataclass(eq=False)
class LoadGame:
    """One game of the load: its processes, what it did and what was checked."""

    index: int
    n: int
    seed: int
    home: Path
    peers: list[Peer] = field(default_factory=list)
    port: int = 0
    code: str = ""
    full_at: float | None = None
    ended_at: float | None = None
    #: --kill: the seat to kill once the game is under way, then who was killed
    victim: int | None = None
    killed: str | None = None
    timed_out: bool = False
    seats: int | None = None
    finished: bool = False
    identical: bool = False
    verified: bool = False
    problem: str | None = None

    @property
    def host(self) -> Peer:
        return self.peers[0]

    @property
    def duration(self) -> float | None:
        if self.full_at is None or self.ended_at is None:
            return None
        return self.ended_at - self.full_at

    @property
    def ok(self) -> bool:
        return (self.seats == self.n and self.finished and self.identical and self.verified)

    def data(self, seat: int) -> Path:
        return self.home / f"p{seat}"

    def transcript(self, seat: int) -> Path | None:
        d = self.data(seat) / "games"
        files = sorted(d.glob("*.splitlog")) if d.is_dir() else []
        return files[0] if files else None

    def records(self) -> int:
        path = self.transcript(0)
        if path is None:
            return 0
        try:
            return len(read_transcript(path, repair=True))
        except (OSError, ValueError):
            return 0

    def reconnects(self) -> tuple[int, int]:
        """(connections to the host a joiner lost and made again, seats the host saw
        come back), from every process's log lines."""
        lost = sum(_text(p.err).count("; reconnecting") for p in self.peers[1:])
        back = _text(self.host.err).count(" is back (seat ")
        return lost, back


def _start_host(g: LoadGame, proofs: bool) -> None:
    args = ["host", "--port", "0", "--bind", "127.0.0.1", "--seats", str(g.n),
            "--play-as-bot", "heuristic", "--name", "heuristic-0", "--no-announce",
            "--data-dir", str(g.data(0)), "--test-seed", str(g.seed)]
    if not proofs:
        args.append("--no-proofs")
    host = Peer("host", args, g.home / "host.out", g.home / "host.err")
    g.peers.append(host)
    host.start()


def _host_ready(g: LoadGame) -> bool:
    out = _text(g.host.out)
    if "listening on port" not in out or "Join code: " not in out:
        return False
    g.port = int(out.split("listening on port")[1].split()[0])
    g.code = out.split("Join code: ")[1].split()[0]
    return True


def _start_bot(g: LoadGame, seat: int) -> None:
    bot = Peer(f"bot{seat}", ["bot", f"127.0.0.1:{g.port}", "--code", g.code, "--name",
                              f"heuristic-{seat}", "--data-dir", str(g.data(seat)),
                              "--test-seed", str(g.seed)],
               g.home / f"bot{seat}.out", g.home / f"bot{seat}.err")
    g.peers.append(bot)
    bot.start()


def _wait(preds: list[tuple[LoadGame, Callable[[], bool]]], until: float) -> None:
    """Poll until every game's predicate holds (or that game failed), or time is up."""
    while time.monotonic() < until:
        pending = [(g, p) for g, p in preds if g.problem is None and not p()]
        for g, _ in pending:
            if not g.host.running:
                g.problem = ("the host exited before its lobby was full: "
                             + _text(g.host.err)[-300:])
        if all(g.problem is not None for g, _ in pending):
            return
        time.sleep(0.05)
    for g, p in preds:
        if g.problem is None and not p():
            g.problem = "the lobby did not fill in time"


def _ready(g: LoadGame) -> Callable[[], bool]:
    return lambda: _host_ready(g)


def _joined(g: LoadGame, seats: int) -> Callable[[], bool]:
    """Has the lobby of ``g`` had ``seats`` joins?"""
    return lambda: _text(g.host.err).count("joined the lobby") >= seats


def _restart(peer: Peer) -> None:
    """The same command again; a bot without its code (it resumes its saved game)."""
    if "--code" in peer.args:
        i = peer.args.index("--code")
        peer.args = peer.args[:i] + peer.args[i + 2:]
    peer.start()


def _check(g: LoadGame) -> None:
    """After the game's processes ended: seats, finish, identical transcripts, verify."""
    path = g.transcript(0)
    if path is not None:
        try:
            g.seats = len(Log.from_records(read_transcript(path)).header.players)
        except (OSError, ValueError) as e:
            g.problem = g.problem or f"the host's transcript: {e}"
    g.finished = not g.timed_out and all(
        p.proc is not None and p.proc.returncode == 0 and "Winner:" in _text(p.out)
        for p in g.peers)
    if not g.finished and g.problem is None:
        bad = next((p for p in g.peers if p.proc is None or p.proc.returncode != 0),
                   g.host)
        g.problem = (f"{bad.label} exited {bad.proc.returncode if bad.proc else None}: "
                     f"{_text(bad.err)[-300:]}")
    files = [g.transcript(s) for s in range(g.n)]
    blobs = {f.read_bytes() for f in files if f is not None}
    g.identical = None not in files and len(blobs) == 1
    if g.finished and g.identical and path is not None:
        try:
            v = subprocess.run(_cmd("verify", str(path)), capture_output=True, text=True,
                               timeout=300)
            g.verified = v.returncode == 0
            if not g.verified:
                g.problem = g.problem or f"verify: {(v.stdout + v.stderr)[-300:]}"
        except subprocess.TimeoutExpired:
            g.problem = g.problem or "verify took over 300 s"


def run_games(k: int, n: int, *, seed: int, proofs: bool, timeout: float, kill: bool,
              home: Path) -> tuple[list[LoadGame], float]:
    """Run k games of n seats at once under ``home``; (the games, wall seconds)."""
    rng = random.Random(seed)
    games = [LoadGame(i, n, seed * 1000 + i, home / f"g{i}") for i in range(k)]
    t0 = time.monotonic()
    try:
        for g in games:
            g.home.mkdir(parents=True)
            _start_host(g, proofs)
        _wait([(g, _ready(g)) for g in games], t0 + 60 + 5 * k)
        for seat in range(1, n):  # seat i in every game, then seat i + 1: seats = join order
            for g in games:
                if g.problem is None:
                    _start_bot(g, seat)
            _wait([(g, _joined(g, seat)) for g in games], time.monotonic() + 60 + 5 * k)
        now = time.monotonic()
        for g in games:
            if g.problem is None:
                g.full_at = now
                if kill:
                    g.victim = rng.randrange(n)
        threshold = 10 * n  # records: the first deal done and play under way
        for _ in range(int(timeout / 0.05) + 1):
            now = time.monotonic()
            live = False
            for g in games:
                if g.ended_at is not None:
                    continue
                if g.problem is not None and not any(p.running for p in g.peers):
                    g.ended_at = now
                    continue
                if g.victim is not None and g.records() >= threshold:
                    victim = g.peers[g.victim]
                    g.victim = None
                    if victim.running:
                        victim.kill()
                        time.sleep(0.3)
                        _restart(victim)
                        g.killed = victim.label
                if any(p.running for p in g.peers):
                    if g.full_at is not None and now - g.full_at > timeout:
                        g.timed_out = True
                        g.problem = g.problem or f"not over after {timeout:g} s"
                        for p in g.peers:
                            p.kill()
                        g.ended_at = now
                    else:
                        live = True
                else:
                    g.ended_at = now
            if not live:
                break
            time.sleep(0.05)
    finally:
        for g in games:
            for p in g.peers:
                p.kill()  # only what is still running (a bounded run leaves nothing)
    wall = time.monotonic() - t0
    for g in games:
        _check(g)
    return games, wall


def lan_load(k: int, n: int, *, seed: int = 0, proofs: bool = True, timeout: float = 900.0,
             kill: bool = False, baseline: bool = True, keep: Path | None = None) -> tuple[
                 str, bool]:
    """The report and whether every game of the load passed every check."""
    if not 1 <= k <= 64:
        raise ValueError("--games must be 1–64 for lan-load")
    if not 2 <= n <= 6:
        raise ValueError("--players must be one count, 2–6 (R3.1), for lan-load")
    if keep is not None and keep.exists() and any(keep.iterdir()):
        raise ValueError(f"--keep {keep}: not a new or empty directory")
    home = keep if keep is not None else Path(tempfile.mkdtemp(prefix="splitnet-load-"))
    lines = [f"lan-load: {k} game{'s' if k != 1 else ''} × {n} seats at once on loopback "
             f"(host + {n - 1} bot process{'es' if n > 2 else ''} each, bound to 127.0.0.1, "
             f"not announced); "
             f"seeds {seed * 1000}…{seed * 1000 + k - 1}; shuffle proofs "
             f"{'on' if proofs else 'off'}"
             f"{'; one peer per game killed -9 and restarted' if kill else ''}; "
             f"{os.cpu_count()} cores"]
    alone: float | None = None
    if baseline:
        # the load's game 0 (the same seed), alone
        solo, _ = run_games(1, n, seed=seed, proofs=proofs, timeout=timeout,
                            kill=False, home=home / "alone")
        alone = solo[0].duration if solo[0].ok else None
        lines.append(f"  one game of {n} alone first: "
                     + (f"{alone:.1f} s" if alone is not None
                        else f"FAILED ({solo[0].problem})"))
    games, wall = run_games(k, n, seed=seed, proofs=proofs, timeout=timeout, kill=kill,
                            home=home / "load")
    durations = [d for g in games if (d := g.duration) is not None and g.finished]
    started = sum(1 for g in games if g.seats == n)
    lost = sum(g.reconnects()[0] for g in games)
    back = sum(g.reconnects()[1] for g in games)
    med, p90 = _quantile(durations, 0.5), _quantile(durations, 0.9)
    spread = (f"median {med:.1f} s, p90 {p90:.1f} s" if durations
              else "none finished")
    lines += [
        f"  started with {n} seats: {started}/{k}   finished: "
        f"{sum(g.finished for g in games)}/{k}   transcripts identical: "
        f"{sum(g.identical for g in games)}/{k}   verify ok: {sum(g.verified for g in games)}/{k}",
        f"  wall {wall:.1f} s; per game (lobby full → last process ended): {spread}"
        + (f" = {med / alone:.2f}× / {p90 / alone:.2f}× the game alone ({k} at once on "
           f"{os.cpu_count()} cores)" if alone and durations else ""),
        f"  reconnects seen: {lost} (connections a joiner lost and made again), "
        f"{back} seats a host saw come back"
        + (f"; killed: {', '.join(f'g{g.index}:{g.killed}' for g in games if g.killed)}"
           if kill else ""),
    ]
    bad = [g for g in games if not g.ok]
    for g in bad:
        lines.append(f"  game {g.index} (seed {g.seed}): {g.problem or 'a check failed'}")
    if bad or keep is not None:
        lines.append(f"  data dirs and logs kept in {home}")
    else:
        shutil.rmtree(home, ignore_errors=True)
    return "\n".join(lines), not bad
