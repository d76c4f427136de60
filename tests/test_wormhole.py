"""Internet play through magic-wormhole (splitnet/net/wormhole.py, NETWORK.md §12), on
loopback: the mailbox server and the transit relay run as processes on free 127.0.0.1
ports (the mailbox's database in tmp_path), every side uses ``--relay-only`` (no direct
connection is offered, so every byte goes through the relay), and the relay sits behind a
forwarder of this test that can cut every connection through it.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("wormhole", reason="magic-wormhole is not installed (pip install -e '.[dev]')")
pytest.importorskip("wormhole_mailbox_server", reason="magic-wormhole-mailbox-server is not "
                    "installed (pip install -e '.[dev]')")
pytest.importorskip("wormhole_transit_relay", reason="magic-wormhole-transit-relay is not "
                    "installed (pip install -e '.[dev]')")

from splitnet.verify import verify_records
from tests.test_net_game import TIMEOUT, Proc, game_file, n_records, wait_until

pytestmark = pytest.mark.slow

TWIST = str(Path(sys.executable).parent / "twist")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_port(port: int, timeout: float = 30.0) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.5):
            return
        time.sleep(0.1)
    raise AssertionError(f"nothing listens on 127.0.0.1:{port} after {timeout} s")


class Forwarder:
    """TCP on 127.0.0.1 to a target port, in threads; :meth:`cut` closes every connection
    through it (it goes on accepting new ones)."""

    def __init__(self, target: int) -> None:
        self.target = target
        self.srv = socket.create_server(("127.0.0.1", 0))
        self.srv.settimeout(0.2)
        self.port = int(self.srv.getsockname()[1])
        self.socks: list[socket.socket] = []
        self.lock = threading.Lock()
        self.stop = False
        self.accepted = 0
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self) -> None:
        while not self.stop:
            try:
                a, _ = self.srv.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            try:
                b = socket.create_connection(("127.0.0.1", self.target), 5)
            except OSError:
                a.close()
                continue
            for s in (a, b):
                s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            with self.lock:
                self.socks += [a, b]
                self.accepted += 1
            for src, dst in ((a, b), (b, a)):
                threading.Thread(target=self._pump, args=(src, dst), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := src.recv(65536):
                dst.sendall(data)
        for s in (src, dst):
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)

    def cut(self) -> int:
        with self.lock:
            socks, self.socks = self.socks, []
        for s in socks:
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
            s.close()
        return len(socks) // 2

    def close(self) -> None:
        self.stop = True
        self.srv.close()
        self.cut()


class Servers:
    def __init__(self, tmp: Path) -> None:
        self.mailbox_port, relay_port = free_port(), free_port()
        log = open(tmp / "servers.log", "a")
        self.log = log
        self.procs = [
            subprocess.Popen([TWIST, "wormhole-mailbox",
                              f"--port=tcp:{self.mailbox_port}:interface=127.0.0.1"],
                             cwd=tmp, stdout=log, stderr=log),
            subprocess.Popen([TWIST, "transitrelay",
                              f"--port=tcp:{relay_port}:interface=127.0.0.1"],
                             cwd=tmp, stdout=log, stderr=log),
        ]
        wait_port(self.mailbox_port)
        wait_port(relay_port)
        self.relay = Forwarder(relay_port)
        self.args = ["--mailbox", f"ws://127.0.0.1:{self.mailbox_port}/v1",
                     "--relay", f"tcp:127.0.0.1:{self.relay.port}", "--relay-only"]

    def close(self) -> None:
        self.relay.close()
        for p in self.procs:
            p.terminate()
        for p in self.procs:
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
        self.log.close()


@pytest.fixture
def servers(tmp_path: Path) -> Iterator[Servers]:
    s = Servers(tmp_path)
    yield s
    s.close()


_INVITE = re.compile(r"Invitation: splitnet join (\d+-[a-z]+-[a-z]+)")


def invitations(host: Proc) -> list[str]:
    return _INVITE.findall(host.stdout())


def test_three_seats_through_the_relay_with_a_cut(servers: Servers, tmp_path: Path) -> None:
    """R3.1 three seats, each guest through its own wormhole (relay only); mid-game every
    connection through the relay is cut: Dilation reconnects and the game goes on; every
    transcript is byte-identical and verifies."""
    n = 3
    host = Proc(tmp_path, "host", "host", "--internet", *servers.args, "--port", "0",
                "--bind", "127.0.0.1", "--play-as-bot", "heuristic", "--seats", str(n),
                "--no-announce", "--no-proofs", "--name", "heuristic-0",
                "--data-dir", str(tmp_path / "p0"), "--test-seed", "15")
    procs = [host]
    try:
        for i in range(1, n):
            # one invitation per free seat; a fresh one as each is claimed
            wait_until(lambda i=i: len(invitations(host)) >= i, 60, f"invitation {i}")
            code = invitations(host)[i - 1]
            procs.append(Proc(tmp_path, f"bot{i}", "bot", code, *servers.args, "--name",
                              f"heuristic-{i}", "--data-dir", str(tmp_path / f"p{i}"),
                              "--test-seed", "15"))
            wait_until(lambda i=i: host.stderr().count("joined the lobby") >= i, 60,
                       f"bot {i} to join")
        assert len(set(invitations(host))) == len(invitations(host))  # each code once
        wait_until(lambda: n_records(tmp_path / "p2") >= 20, 90, "the game to be under way")
        assert servers.relay.cut() >= 2  # both guests' dilation connections went down
        for p in procs:
            rc = p.wait(TIMEOUT)
            assert rc == 0, f"{p.label} exited {rc}\n{p.stderr()[-3000:]}"
            assert "Winner:" in p.stdout(), p.stdout()[-2000:]
        assert servers.relay.accepted > 2 * (n - 1)  # the guests reconnected through it
        files = [game_file(tmp_path / f"p{i}") for i in range(n)]
        data = [f.read_bytes() for f in files if f]
        assert len(data) == n and all(d == data[0] for d in data[1:]), "transcripts differ"
        from splitnet.session.transcript import read_transcript

        v = verify_records(read_transcript(files[0]))  # type: ignore[arg-type]
        assert v.ok, v.summary
    finally:
        for p in procs:
            if p.p.poll() is None:
                p.p.kill()


async def test_channel_round_trip_and_wrong_code(servers: Servers) -> None:
    """In process: frames both ways over a WormholeChannel through the relay; a guest with
    a wrong code is refused by the wormhole's PAKE (one guess burns the code) and the host
    opens a fresh invitation; a claimed one whose guest leaves is released and replaced.
    (In-process tests share one Twisted reactor, hence one event loop: keep them in one.)"""
    from splitnet.net import wormhole as wh

    st = wh.WormholeSettings(mailbox=servers.args[1], relay=servers.args[3], no_listen=True,
                             connect_timeout=30)
    codes: asyncio.Queue[str] = asyncio.Queue()
    got: list[str] = []

    async def accept(ch: object) -> None:
        assert isinstance(ch, wh.WormholeChannel)
        got.append(ch.peer)
        with contextlib.suppress(ConnectionError):
            for _ in range(100):
                ch.send(await ch.recv())

    inv = wh.Invitations(st, accept, codes.put_nowait, lambda: 1 - len(inv.claimed),
                         release_after=0.5)
    inv.refresh()
    try:
        code = await asyncio.wait_for(codes.get(), 30)
        nameplate = code.split("-")[0]
        bad = wh.WormholeConnector(f"{nameplate}-wrong-guess", st)
        with pytest.raises(ConnectionError, match="code is wrong"):
            await bad()
        await bad.close()
        fresh = await asyncio.wait_for(codes.get(), 30)
        assert fresh != code
        good = wh.WormholeConnector(fresh, st)
        ch = await good()
        for i in range(20):
            ch.send(bytes([i]) * (i * 1000 + 1))
            assert await asyncio.wait_for(ch.recv(), 10) == bytes([i]) * (i * 1000 + 1)
        assert len(got) == 1 and got[0].startswith("wormhole-")
        assert isinstance(ch, wh.WormholeChannel) and len(ch.password) == 32
        assert codes.empty() and len(inv.claimed) == 1  # the one seat is taken
        ch.close()  # the guest leaves: its wormhole is released, the seat offered again
        again = await asyncio.wait_for(codes.get(), 30)
        assert again not in (code, fresh) and not inv.claimed
        await good.close()
        # a code nobody holds (e.g. the LAN join code typed instead): a clear refusal
        nobody = wh.WormholeConnector("99-lunar-anchor", wh.WormholeSettings(
            mailbox=st.mailbox, relay=st.relay, no_listen=True, connect_timeout=2))
        with pytest.raises(ConnectionError, match="nobody answered"):
            await nobody()
        with pytest.raises(ConnectionError, match="nobody answered"):
            await nobody()  # it stays refused: no new wormhole per retry
        await nobody.close()
    finally:
        await inv.close()
        wh.stop_twisted()


def test_guest_killed_and_rejoined_with_a_fresh_invitation(servers: Servers,
                                                           tmp_path: Path) -> None:
    """A guest killed (-9) mid-game: the host shows a fresh invitation for the away seat;
    the same command with that code resumes the game in its seat (proven by its key,
    NETWORK.md §7, §12) and the game finishes with identical, verified transcripts."""
    n = 2
    host = Proc(tmp_path, "host", "host", "--internet", *servers.args, "--port", "0",
                "--bind", "127.0.0.1", "--play-as-bot", "heuristic", "--seats", str(n),
                "--no-announce", "--no-proofs", "--name", "heuristic-0",
                "--data-dir", str(tmp_path / "p0"), "--test-seed", "16")
    procs = [host]
    try:
        wait_until(lambda: len(invitations(host)) >= 1, 60, "the invitation")
        bot = Proc(tmp_path, "bot1", "bot", invitations(host)[0], *servers.args, "--name",
                   "heuristic-1", "--data-dir", str(tmp_path / "p1"), "--test-seed", "16")
        procs.append(bot)
        wait_until(lambda: n_records(tmp_path / "p1") >= 20, 90, "the game to be under way")
        assert len(invitations(host)) == 1  # the only seat is taken: nothing more offered
        bot.kill()
        wait_until(lambda: len(invitations(host)) >= 2, 60, "a fresh invitation")
        bot.args = ("bot", invitations(host)[1], *bot.args[2:])
        bot.start()
        for p in procs:
            rc = p.wait(TIMEOUT)
            assert rc == 0, f"{p.label} exited {rc}\n{p.stderr()[-3000:]}"
            assert "Winner:" in p.stdout(), p.stdout()[-2000:]
        assert "Resuming game" in bot.stdout()
        files = [game_file(tmp_path / f"p{i}") for i in range(n)]
        data = [f.read_bytes() for f in files if f]
        assert len(data) == n and data[0] == data[1], "transcripts differ"
        from splitnet.session.transcript import read_transcript

        v = verify_records(read_transcript(files[0]))  # type: ignore[arg-type]
        assert v.ok, v.summary
    finally:
        for p in procs:
            if p.p.poll() is None:
                p.p.kill()


def test_bench_wormhole_reports_the_relay_beside_the_lan() -> None:
    """``splitnet bench wormhole`` (its own process: one Twisted reactor per process):
    figures printed (never asserted), the same game both ways."""
    out = subprocess.run([sys.executable, "-m", "splitnet.cli", "bench", "wormhole",
                          "--players", "2", "--no-proofs"], capture_output=True, text=True,
                         timeout=TIMEOUT)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "through the relay p50" in out.stdout and "same game: yes" in out.stdout, out.stdout
