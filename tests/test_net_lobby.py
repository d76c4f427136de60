"""Issue 11's lobby failures over the whole path: real ``splitnet`` processes on
loopback, never announced (``--no-announce``).

* a joiner given an address where nobody listens says so — "cannot reach ADDR — is the
  game still open?" —, never "joined", and gives up after ``first_contact`` with a
  non-zero status;
* a host that stops its lobby says bye: its joiners stop at once with "the host closed
  the game";
* a host killed in its lobby and started again with the same command opens the same
  lobby (same game id, code and port): the player already in gets back in by itself, the
  lobby fills and the game is played to its end.
"""

from __future__ import annotations

import signal
import socket
import time
from pathlib import Path

import pytest

from splitnet.net.joincode import new_code
from splitnet.net.store import read_meta
from tests.test_net_game import TIMEOUT, Proc, host_port_and_code, wait_until
from tests.test_net_join import PipedProc

HOST = ("host", "--bind", "127.0.0.1", "--play-as-bot", "heuristic", "--no-proofs",
        "--no-announce", "--name", "Hosta")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_joiner_with_nobody_at_the_address_says_so_and_gives_up(tmp_path: Path) -> None:
    port = free_port()
    code = str(new_code())
    timing = "first_contact=1.5,retry_max=0.3"
    bot = Proc(tmp_path, "bot", "bot", f"127.0.0.1:{port}", "--code", code, "--net-timing",
               timing, "--data-dir", str(tmp_path / "b"))
    join = PipedProc(tmp_path, "join", "", "join", f"127.0.0.1:{port}", "--code", code,
                     "--plain", "--net-timing", timing, "--data-dir", str(tmp_path / "j"))
    for p in (bot, join):
        rc = p.wait(60)  # bounded: first_contact, not forever
        out, err = p.stdout(), p.stderr()
        assert rc == 1, out + err
        assert f"cannot reach 127.0.0.1:{port} — is the game still open?" in err, err
        assert "Joined" not in out and "Waiting for players" not in out, out
        assert "In the lobby" not in out and "Traceback" not in err, out + err


def test_a_host_that_stops_its_lobby_stops_its_joiners(tmp_path: Path) -> None:
    host = Proc(tmp_path, "host", *HOST, "--port", "0", "--seats", "3", "--data-dir",
                str(tmp_path / "p0"))
    bot: Proc | None = None
    try:
        wait_until(lambda: "listening on port" in host.stdout(), 30, "the host to listen")
        port, code = host_port_and_code(host)
        bot = Proc(tmp_path, "bot", "bot", f"127.0.0.1:{port}", "--code", code, "--name",
                   "Ana", "--data-dir", str(tmp_path / "p1"))
        wait_until(lambda: "joined the lobby" in host.stderr(), 30, "the bot to join")
        host.p.send_signal(signal.SIGTERM)
        assert host.wait(30) == 130
        t0 = time.monotonic()
        rc = bot.wait(30)
        assert rc == 1 and "the host closed the game" in bot.stderr(), bot.stderr()
        assert time.monotonic() - t0 < 20  # at once, not after the retry bound (180 s)
        # the closed lobby is not opened again by the next `splitnet host`
        metas = [read_meta(m) for m in (tmp_path / "p0" / "games").glob("*.meta")]
        assert len(metas) == 1 and metas[0].lobby and metas[0].finished
    finally:
        for p in (host, bot):
            if p is not None and p.p.poll() is None:
                p.kill()


@pytest.mark.slow
def test_a_host_killed_in_its_lobby_opens_the_same_lobby_again(tmp_path: Path) -> None:
    args = (*HOST, "--port", "0", "--seats", "3", "--data-dir", str(tmp_path / "p0"))
    host = Proc(tmp_path, "host", *args)
    procs = [host]
    try:
        wait_until(lambda: "listening on port" in host.stdout(), 30, "the host to listen")
        port, code = host_port_and_code(host)
        ana = Proc(tmp_path, "bot1", "bot", f"127.0.0.1:{port}", "--code", code, "--name",
                   "Ana", "--data-dir", str(tmp_path / "p1"))
        procs.append(ana)
        wait_until(lambda: "joined the lobby" in host.stderr(), 30, "Ana to join")
        host.kill()
        host = Proc(tmp_path, "host2", *args)  # the same command
        procs.append(host)
        wait_until(lambda: "listening on port" in host.stdout(), 30, "the host to listen")
        assert "Resuming the lobby of game" in host.stdout()
        assert host_port_and_code(host) == (port, code)
        # Ana gets back in by herself (no "wrong code"), then Bo fills the lobby
        wait_until(lambda: "Ana" in host.stderr() and "joined the lobby" in host.stderr(),
                   30, "Ana to rejoin")
        bo = Proc(tmp_path, "bot2", "bot", f"127.0.0.1:{port}", "--code", code, "--name",
                  "Bo", "--data-dir", str(tmp_path / "p2"))
        procs.append(bo)
        for p in (host, ana, bo):
            rc = p.wait(TIMEOUT)
            assert rc == 0, p.stdout()[-2000:] + p.stderr()[-2000:]
            assert "Winner:" in p.stdout()
        assert "wrong code" not in host.stderr() + ana.stderr()
        assert "Ana" in host.stdout() and "Bo" in host.stdout()
    finally:
        for p in procs:
            if p.p.poll() is None:
                p.kill()
