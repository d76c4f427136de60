"""Internet play through magic-wormhole (splitnet/net/wormhole.py, NETWORK.md §12), on
loopback: the mailbox server and the transit relay run as processes on free 127.0.0.1
ports (one pair per test process, shared by its tests), every side uses ``--relay-only``
(no direct connection is offered, so every byte goes through the relay), and the relay
sits behind a forwarder of each test's own that can cut every connection through it.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("wormhole", reason="magic-wormhole is not installed (pip install -e '.[dev]')")
pytest.importorskip("wormhole_mailbox_server", reason="magic-wormhole-mailbox-server is not "
                    "installed (pip install -e '.[dev]')")
pytest.importorskip("wormhole_transit_relay", reason="magic-wormhole-transit-relay is not "
                    "installed (pip install -e '.[dev]')")

from splitnet.verify import verify_records
from tests import forked_cli
from tests.test_net_game import (
    TIMEOUT,
    Proc,
    game_file,
    n_records,
    one_round,
    stop_where_it_may_be_given_up,
    wait_until,
)

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
        #: refusing every connection (the relay is down)
        self.down = False
        self.accepted = 0
        self.refused = 0
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
            if self.down:
                a.close()
                self.refused += 1
                continue
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


class ServerProcs:
    """The mailbox server and the transit relay, as processes on free loopback ports (the
    mailbox's database and both logs in ``tmp``)."""

    def __init__(self, tmp: Path) -> None:
        self.mailbox_port, self.relay_port = free_port(), free_port()
        log = open(tmp / "servers.log", "a")
        self.log = log
        self.procs = [
            subprocess.Popen([TWIST, "wormhole-mailbox",
                              f"--port=tcp:{self.mailbox_port}:interface=127.0.0.1"],
                             cwd=tmp, stdout=log, stderr=log),
            subprocess.Popen([TWIST, "transitrelay",
                              f"--port=tcp:{self.relay_port}:interface=127.0.0.1"],
                             cwd=tmp, stdout=log, stderr=log),
        ]
        wait_port(self.mailbox_port)
        wait_port(self.relay_port)

    def running(self) -> bool:
        return all(p.poll() is None for p in self.procs)

    def close(self) -> None:
        for p in self.procs:
            p.terminate()
        for p in self.procs:
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
        self.log.close()


class Servers:
    """What one test talks to: the worker's mailbox server, and the transit relay behind
    a forwarder of the test's own (its counts and its cuts are this test's alone)."""

    def __init__(self, procs: ServerProcs) -> None:
        self.procs = procs
        self.relay = Forwarder(procs.relay_port)
        self.args = ["--mailbox", f"ws://127.0.0.1:{procs.mailbox_port}/v1",
                     "--relay", f"tcp:127.0.0.1:{self.relay.port}", "--relay-only"]

    def close(self) -> None:
        self.relay.close()


@pytest.fixture(scope="session")
def _server_procs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[ServerProcs]]:
    """One mailbox server and one transit relay per test process, started when a test
    first needs them (about 0.8 s of CPU and 1-3 s before both listen). Tests sharing
    them stay apart: the mailbox hands each invitation a nameplate nobody else holds and
    the words are random, retry and resume codes are derived from those and from each
    wormhole's own key, and the relay pairs connections by their own handshakes."""
    held: list[ServerProcs] = []
    yield held
    for procs in held:
        procs.close()


@pytest.fixture
def servers(_server_procs: list[ServerProcs],
            tmp_path_factory: pytest.TempPathFactory) -> Iterator[Servers]:
    if not _server_procs or not _server_procs[-1].running():  # first, or one has died
        if _server_procs:
            _server_procs.pop().close()
        _server_procs.append(ServerProcs(tmp_path_factory.mktemp("wormhole-servers")))
    s = Servers(_server_procs[-1])
    yield s
    s.close()


_INVITE = re.compile(r"Invitation: splitnet join (\d+-[a-z]+-[a-z]+)")


def invitations(host: Proc) -> list[str]:
    return _INVITE.findall(host.stdout())


#: a wormhole not connected this long is given up for a resume wormhole (tests: short)
FAST = ("--net-timing", "wormhole_idle=3")


def internet_game(tmp_path: Path, servers: Servers, n: int, seed: int) -> list[Proc]:
    """A host (a bot) with --internet and n − 1 bots each through its own invitation,
    all relay only, the game under way."""
    host = Proc(tmp_path, "host", "host", "--internet", *servers.args,
                *one_round(tmp_path), *FAST, "--port", "0",
                "--bind", "127.0.0.1", "--play-as-bot", "heuristic", "--seats", str(n),
                "--no-announce", "--no-proofs", "--name", "heuristic-0",
                "--data-dir", str(tmp_path / "p0"), "--test-seed", str(seed))
    procs = [host]
    for i in range(1, n):
        wait_until(lambda i=i: len(invitations(host)) >= i, 60, f"invitation {i}")
        procs.append(Proc(tmp_path, f"bot{i}", "bot", invitations(host)[i - 1],
                          *servers.args, *FAST, "--name", f"heuristic-{i}",
                          "--data-dir", str(tmp_path / f"p{i}"), "--test-seed", str(seed)))
        wait_until(lambda i=i: host.stderr().count("joined the lobby") >= i, 60,
                   f"bot {i} to join")
    return procs


def finished_and_verified(procs: list[Proc], tmp_path: Path) -> None:
    """Every process ends well; the transcripts are byte-identical and verify."""
    for p in procs:
        rc = p.wait(TIMEOUT)
        assert rc == 0, f"{p.label} exited {rc}\n{p.stderr()[-3000:]}"
        assert "Winner:" in p.stdout(), p.stdout()[-2000:]
    files = [game_file(tmp_path / f"p{i}") for i in range(len(procs))]
    data = [f.read_bytes() for f in files if f]
    assert len(data) == len(procs) and all(d == data[0] for d in data[1:]), "transcripts differ"
    from splitnet.session.transcript import read_transcript

    v = verify_records(read_transcript(files[0]))  # type: ignore[arg-type]
    assert v.ok, v.summary


def kill_all(procs: list[Proc]) -> None:
    for p in procs:
        if p.p.poll() is None:
            p.p.kill()


def test_three_seats_through_the_relay_with_a_cut(servers: Servers, tmp_path: Path) -> None:
    """R3.1 three seats, each guest through its own wormhole (relay only); mid-game every
    connection through the relay is cut: Dilation reconnects and the game goes on; every
    transcript is byte-identical and verifies."""
    n = 3
    host = Proc(tmp_path, "host", "host", "--internet", *servers.args,
                *one_round(tmp_path), "--port", "0",
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


@pytest.fixture(scope="module")
def one_reactor() -> Iterator[None]:
    """In-process tests share one Twisted reactor, hence one event loop (they run on the
    module's, ``loop_scope="module"``): its thread pool stops after the last of them."""
    yield
    from splitnet.net import wormhole as wh

    wh.stop_twisted()


IN_PROCESS = pytest.mark.asyncio(loop_scope="module")


@IN_PROCESS
async def test_channel_round_trip_and_wrong_code(servers: Servers, one_reactor: None) -> None:
    """In process: frames both ways over a WormholeChannel through the relay; a guest with
    a wrong code is refused by the wormhole's PAKE (one guess burns the code) and the host
    opens a fresh invitation; a claimed one whose guest leaves is released and replaced."""
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
        await resume_with_counters_apart(st, accept)
    finally:
        await inv.close()


async def resume_with_counters_apart(st: object, accept: object) -> None:
    """A guest and its host meet on a resume wormhole though one of them died before it
    saved the last counter (NETWORK.md §12, "Resume"): the host waits on ``next`` and
    ``next + 1``, the guest tries ``next`` then ``next + 1``; both go on past the code
    they met on (it is never used again)."""
    from dataclasses import replace

    from splitnet.net import wormhole as wh
    from splitnet.net.store import ResumeChain

    assert isinstance(st, wh.WormholeSettings)
    quick = replace(st, idle_after=2.0)
    for host_next, guest_next in ((0, 1), (1, 0), (7, 7)):
        secret = bytes([host_next, guest_next]) * 16
        host_chain = ResumeChain(secret, host_next, peer="wormhole-resume:0")
        inv = wh.Invitations(quick, accept, lambda code: None, lambda: 0)  # type: ignore[arg-type]
        inv.chains = [host_chain]
        inv.refresh()
        if host_next == 7:
            # someone who saw the nameplate (the mailbox) claims it with a guess: the
            # wormhole's PAKE fails, both sides count that code spent and go on
            plate = wh.resume_code(secret, 7).split("-")[0]
            squat = wh.WormholeConnector(f"{plate}-a-guess", quick)
            with pytest.raises(ConnectionError, match="code is wrong"):
                await asyncio.wait_for(squat(), 30)
            await squat.close()
        guest = wh.WormholeConnector(None, quick, chain=ResumeChain(secret, guest_next))
        try:
            ch = None
            for _ in range(4):  # a code nobody waits on: the guest tries the next one
                with contextlib.suppress(ConnectionError):
                    ch = await asyncio.wait_for(guest(), 30)
                    break
            assert ch is not None, (host_next, guest_next)
            ch.send(b"back")
            assert await asyncio.wait_for(ch.recv(), 10) == b"back"
            met = max(host_next, guest_next) + (host_next == 7)  # 7: spent by a squatter
            assert guest.chain is not None and guest.chain.next == met + 1
            assert host_chain.next == met + 1
            assert wh.resume_code(secret, met) != wh.resume_code(secret, met + 1)
            ch.close()
        finally:
            await guest.close()
            await inv.close()


@IN_PROCESS
async def test_two_guests_on_one_invitation(servers: Servers, one_reactor: None) -> None:
    """Issue 23: one invitation used by two guests at once (a code read over a shoulder).
    At the very same moment — the second claims its nameplate between the first's claim
    and the first's open, so the mailbox refuses both ("crowded", it counts the second
    against the first) — the first claimant meets the host on the invitation's retry
    wormhole and gets in, the second is told at once that the invitation is used (it
    waited 60 s before, and the first never got in). Just after, when the two have let
    the nameplate go, the second is told it is unknown or already used, soon. Each time
    the host goes on: the seat's guest talks to it, and its invitation is replaced."""
    from splitnet.net import wormhole as wh

    st = wh.WormholeSettings(mailbox=servers.args[1], relay=servers.args[3], no_listen=True,
                             connect_timeout=30, claim_wait=2)
    codes: asyncio.Queue[str] = asyncio.Queue()

    async def accept(ch: object) -> None:  # echoes all but the guest's keep-alive dots
        assert isinstance(ch, wh.WormholeChannel)
        with contextlib.suppress(ConnectionError):
            while (data := await ch.recv()) is not None:
                if data != b".":
                    ch.send(data)

    inv = wh.Invitations(st, accept, codes.put_nowait, lambda: 1 - len(inv.claimed),
                         release_after=1.0)
    inv.refresh()
    try:
        for at_once in (True, False):
            code = await asyncio.wait_for(codes.get(), 30)
            began = time.monotonic()
            first, ch, refused = await two_guests(code, st, at_once)
            took = time.monotonic() - began
            said = str(refused)
            assert "already used" in said and code in said and "\n" not in said, said
            assert took < 20, (at_once, took)
            assert len(inv.claimed) == 1, (at_once, took)  # the first claimant's seat
            ch.send(b"still here")
            assert await asyncio.wait_for(ch.recv(), 10) == b"still here"
            ch.close()  # it leaves: the seat is offered again, on a fresh invitation
            await first.close()
    finally:
        await inv.close()


async def two_guests(code: str, st: Any, at_once: bool) -> tuple[Any, Any, Exception]:
    """Two guests on ``code``: the second at the very moment the first's claim was
    answered (its open of the mailbox then waits 0.5 s, so the second claims in
    between), or once the first is in. The first guest, its channel and the second's
    refusal."""
    from splitnet.net import wormhole as wh

    first, second = wh.WormholeConnector(code, st), wh.WormholeConnector(code, st)
    claimed = asyncio.Event()
    real_create = wh._create

    async def late_open(settings: Any, on_status: Any = None) -> Any:
        wh._create = real_create  # (only the first guest's first wormhole)
        w = await real_create(settings, on_status)
        connector = w._boss._RC
        send, held = connector._tx, []

        def tx(mtype: str, **kwargs: Any) -> None:  # from its open on, 0.5 s late
            if mtype == "open" and not held:
                claimed.set()
                wh._reactor.callLater(0.5, lambda: [send(m, **k) for m, k in held])
            if held or mtype == "open":
                held.append((mtype, kwargs))
            else:
                send(mtype, **kwargs)

        connector._tx = tx
        return w

    async def then_second() -> Any:
        await (claimed.wait() if at_once else asyncio.shield(got_in))
        try:
            return await second()
        finally:
            alive.cancel()

    async def keep_alive() -> None:  # the first guest's channel carries something
        ch = await asyncio.shield(got_in)
        while True:
            ch.send(b".")
            await asyncio.sleep(0.2)

    if at_once:
        wh._create = late_open
    try:
        got_in = asyncio.ensure_future(first())
        alive = asyncio.ensure_future(keep_alive())
        ch, refused = await asyncio.gather(got_in, then_second(), return_exceptions=True)
    finally:
        wh._create = real_create
        await second.close()
    assert isinstance(ch, wh.WormholeChannel), (at_once, ch)
    assert isinstance(refused, wh.WormholeFailed), (at_once, refused)
    return first, ch, refused


@IN_PROCESS
async def test_mailbox_out_of_reach_is_named(one_reactor: None) -> None:
    """Issue 23: the mailbox error did not name the server. A guest whose mailbox does
    not answer says which one (its URL), retries with each step told, and stops once
    ``connect_timeout`` is spent, saying how long it tried; the host's failure names it
    too."""
    from splitnet.net import wormhole as wh

    url = f"ws://127.0.0.1:{free_port()}/v1"  # nothing listens there
    st = wh.WormholeSettings(mailbox=url, relay="tcp:127.0.0.1:1", connect_timeout=5)
    steps: list[str] = []
    guest = wh.WormholeConnector("7-crossover-clockwork", st, on_progress=steps.append)
    began = time.monotonic()
    with pytest.raises(wh.WormholeFailed) as e:
        await guest()
    assert time.monotonic() - began < 15
    said = str(e.value)
    assert said.startswith(f"cannot reach the wormhole mailbox server {url} (")
    assert "tried for" in said and "\n" not in said, said
    assert any(s.startswith(f"reaching the wormhole mailbox server {url}") for s in steps)
    assert any("retrying" in s for s in steps), steps
    await guest.close()
    failed: asyncio.Queue[str] = asyncio.Queue()
    inv = wh.Invitations(st, lambda ch: asyncio.sleep(0), lambda code: None, lambda: 1,
                         on_failed=failed.put_nowait)
    inv.refresh()
    try:
        why = await asyncio.wait_for(failed.get(), 30)
        assert f"cannot reach the wormhole mailbox server {url}" in why, why
    finally:
        await inv.close()


def no_traceback(*procs: Proc) -> None:
    for p in procs:
        for text in (p.stdout(), p.stderr()):
            assert "Traceback" not in text and "Unhandled" not in text, (p.label, text[-3000:])


def test_two_guests_on_one_invitation_as_commands(servers: Servers, tmp_path: Path) -> None:
    """Issue 23 as reported: two ``splitnet join CODE --plain`` started together on one
    invitation. The first claimant is in the host's lobby; the other stops soon with one
    line saying the invitation is used (it waited 60 s for "cannot reach wormhole:0 …
    tried for 20 s", or neither got in). The host goes on — the other seat's invitation
    still open, each printed once — and stops on SIGTERM with no Twisted traceback
    ("Unhandled error in Deferred … Event loop is closed")."""
    host = Proc(tmp_path, "host", "host", "--internet", *servers.args, "--port", "0",
                "--bind", "127.0.0.1", "--plain", "--seats", "3", "--no-announce",
                "--no-proofs", "--name", "Ana", "--data-dir", str(tmp_path / "p0"))
    procs = [host]
    try:
        wait_until(lambda: len(invitations(host)) >= 1, 60, "the invitation")
        code = invitations(host)[0]
        began = time.monotonic()
        guests = [Proc(tmp_path, name, "join", code, *servers.args, "--plain", "--name", name,
                       "--data-dir", str(tmp_path / name)) for name in ("Bob", "Eve")]
        procs += guests
        wait_until(lambda: any(g.p.poll() is not None for g in guests), 60,
                   "one guest to be told")
        took = time.monotonic() - began
        (told,) = [g for g in guests if g.p.poll() is not None]
        (seated,) = [g for g in guests if g is not told]
        assert told.p.returncode == 1 and took < 40, (took, told.stderr())
        last = told.stderr().strip().splitlines()[-1]
        assert "already used" in last and code in last, told.stderr()
        assert "wormhole:0" not in told.stderr(), told.stderr()
        wait_until(lambda: f"{seated.label} (wormhole-" in host.stderr()
                   and "joined the lobby" in host.stderr(), 30, "the first claimant in")
        assert host.stderr().count("joined the lobby") == 1
        wait_until(lambda: len(invitations(host)) >= 2, 60, "the other seat's invitation")
        assert len(set(invitations(host))) == len(invitations(host))  # each printed once
        # (the host saw the guest join; the guest's own line may still be on its way)
        wait_until(lambda: "Joined the game hosted by Ana" in seated.stdout(), 30,
                   "the seated guest to say it joined")
        assert host.p.poll() is None  # the host goes on
        host.p.send_signal(signal.SIGTERM)
        assert host.wait(60) == 130
        assert seated.wait(60) == 1  # the host closed its lobby
        no_traceback(*procs)
    finally:
        kill_all(procs)


def lobby_host(tmp_path: Path, servers: Servers, name: str) -> Proc:
    """A host --internet named ``name`` whose seat a bot plays, its lobby open for three
    seats."""
    return Proc(tmp_path, "host", "host", "--internet", *servers.args, "--port", "0",
                "--bind", "127.0.0.1", "--play-as-bot", "heuristic", "--seats", "3",
                "--no-announce", "--no-proofs", "--name", name,
                "--data-dir", str(tmp_path / "p0"))


def test_a_spent_or_unknown_invitation_is_told_soon(servers: Servers,
                                                    tmp_path: Path) -> None:
    """Issue 23: a spent or unknown invitation waited 60–100 s under "Connecting to:
    wormhole:0", then said "cannot reach wormhole:0 — is the game still open? (… tried
    for 20 s)". Now each says what is true within seconds — nobody holds it: unknown or
    already used, and how long it tried — with the steps printed as it tries; a join
    that got in names the host it joined, not wormhole:0."""
    host = lobby_host(tmp_path, servers, "Ana")
    procs = [host]
    try:
        wait_until(lambda: len(invitations(host)) >= 1, 60, "the invitation")
        spent = invitations(host)[0]
        bot = Proc(tmp_path, "bot", "bot", spent, *servers.args, "--name", "Bo",
                   "--data-dir", str(tmp_path / "p1"))
        procs.append(bot)
        wait_until(lambda: "joined the lobby" in host.stderr(), 60, "the bot in")
        wait_until(lambda: "Joined the game hosted by Ana" in bot.stdout(), 30,
                   "the bot to say whom it joined")
        late_ones = []  # the two at once: each on its own, neither waits on the other
        for code in (spent, "999-lunar-anchor"):
            late = Proc(tmp_path, f"late-{code}", "join", code, *servers.args, "--plain",
                        "--data-dir", str(tmp_path / f"late-{code}"))
            procs.append(late)
            late_ones.append((code, time.monotonic(), late))
        for code, began, late in late_ones:
            assert late.wait(60) == 1
            took = time.monotonic() - began
            err = late.stderr()
            last = err.strip().splitlines()[-1]
            assert took < 30, (code, took, err)
            assert "unknown or already used" in last and code in last, err
            assert "tried for" in last and "wormhole:0" not in err, err
            assert "claimed; waiting for the host's answer" in err, err  # its progress
            assert "retry wormhole" in err, err
        assert host.p.poll() is None and bot.p.poll() is None
        no_traceback(*procs)
    finally:
        kill_all(procs)


def test_a_bot_by_invitation_takes_a_name_of_its_own(servers: Servers,
                                                     tmp_path: Path) -> None:
    """Issue 23: a bot given no --name joining by invitation took the host's ("Ana-2" at
    the table, "Playing as Ana" on its console). The host's wormhole tells the names at
    its table: the bot takes a friendly name none of them has (with this seed it would
    pick Ana), and says the one it plays under. Each invitation is printed once, as
    README.md words it (it was printed again as "Invite (one player each): …")."""
    host = lobby_host(tmp_path, servers, "ana")
    procs = [host]
    try:
        wait_until(lambda: len(invitations(host)) >= 2, 60, "the invitations")
        bot = Proc(tmp_path, "bot", "bot", invitations(host)[0], *servers.args,
                   "--test-seed", "2", "--data-dir", str(tmp_path / "p1"))
        procs.append(bot)
        wait_until(lambda: "joined the lobby" in host.stderr(), 60, "the bot in")
        assert "Bo (wormhole-" in host.stderr() and "ana-2" not in host.stderr().lower()
        wait_until(lambda: "Joined the game hosted by ana" in bot.stdout(), 30, "joined")
        assert "Playing as Bo (normal)" in bot.stdout() and "Ana" not in bot.stdout()
        out = host.stdout()  # (the claimed one is not replaced: one seat is left)
        assert len(set(invitations(host))) == len(invitations(host)) == 2, out
        assert "Invite (" not in out and out.count("splitnet join ") == 2 + 1, out  # + LAN
        no_traceback(*procs)
    finally:
        kill_all(procs)


def test_guest_killed_and_rejoined_with_a_fresh_invitation(servers: Servers,
                                                           tmp_path: Path) -> None:
    """A guest killed (-9) mid-game: the host shows a fresh invitation for the away seat;
    the same command with that code resumes the game in its seat (proven by its key,
    NETWORK.md §7, §12) and the game finishes with identical, verified transcripts."""
    n = 2
    host = Proc(tmp_path, "host", "host", "--internet", *servers.args,
                *one_round(tmp_path), "--port", "0",
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


def test_guest_killed_comes_back_by_itself(servers: Servers, tmp_path: Path) -> None:
    """A guest killed (-9) in the lobby, then again mid-game, each time started again
    with the same command (its spent invitation): it meets the host on a resume wormhole
    derived from the secret both kept (NETWORK.md §12, "Resume") — the second time on
    the next counter — its seat proven by its key; no new invitation is typed and the
    game of three seats finishes with identical, verified transcripts."""
    host = Proc(tmp_path, "host", "host", "--internet", *servers.args,
                *one_round(tmp_path), *FAST, "--port", "0",
                "--bind", "127.0.0.1", "--play-as-bot", "heuristic", "--seats", "3",
                "--no-announce", "--no-proofs", "--name", "heuristic-0",
                "--data-dir", str(tmp_path / "p0"), "--test-seed", "17")
    procs = [host]
    try:
        wait_until(lambda: len(invitations(host)) >= 1, 60, "the first invitation")
        bot = Proc(tmp_path, "bot1", "bot", invitations(host)[0], *servers.args, *FAST,
                   "--name", "heuristic-1", "--data-dir", str(tmp_path / "p1"),
                   "--test-seed", "17")
        procs.append(bot)
        wait_until(lambda: host.stderr().count("joined the lobby") >= 1, 60, "bot 1 in")
        bot.kill()  # in the lobby
        bot.start()  # the very same command
        wait_until(lambda: "back on resume wormhole 0" in host.stderr(), 60, "a resume")
        wait_until(lambda: host.stderr().count("joined the lobby") >= 2, 60, "bot 1 back")
        wait_until(lambda: len(invitations(host)) >= 2, 60, "the second invitation")
        procs.append(Proc(tmp_path, "bot2", "bot", invitations(host)[-1], *servers.args,
                          *FAST, "--name", "heuristic-2", "--data-dir", str(tmp_path / "p2"),
                          "--test-seed", "17"))
        wait_until(lambda: n_records(tmp_path / "p1") >= 20, 90, "the game to be under way")
        bot.kill()  # mid-game
        at = n_records(tmp_path / "p0")
        bot.start()
        wait_until(lambda: "back on resume wormhole 1" in host.stderr(), 60, "the resume")
        finished_and_verified(procs, tmp_path)
        assert "Resuming game" in bot.stdout()
        assert n_records(tmp_path / "p0") > at
        assert "wrong" not in host.stderr()  # the spent invitation was not tried again
        assert bot.stderr().count("met the host again on resume wormhole") == 2
    finally:
        kill_all(procs)


def test_host_killed_its_guests_come_back_by_themselves(servers: Servers,
                                                       tmp_path: Path) -> None:
    """The host killed (-9) mid-game of three seats and started again with the same
    command: each guest's Dilation cannot reconnect (the host's side is gone), so after
    ``wormhole_idle`` it gives that wormhole up and meets the restarted host on its resume
    wormhole; the game finishes and verifies."""
    procs = internet_game(tmp_path, servers, 3, 18)
    host = procs[0]
    try:
        wait_until(lambda: n_records(tmp_path / "p2") >= 20, 90, "the game to be under way")
        host.kill()
        host.start()
        wait_until(lambda: host.stderr().count("back on resume wormhole") >= 2, 90,
                   "both guests back")
        finished_and_verified(procs, tmp_path)
        assert host.stdout().count("Resuming unfinished game") == 1
        for bot in procs[1:]:  # the same process all along, back by itself
            assert "met the host again on resume wormhole" in bot.stderr()
    finally:
        kill_all(procs)


def test_relay_down_when_dilation_reconnects(servers: Servers, tmp_path: Path) -> None:
    """The relay goes down and every connection through it is cut: Dilation's reconnect
    finds no relay; nothing comes through that wormhole for ``wormhole_idle``, so both
    sides give it up (Dilation may stay "reconnecting" even once the relay is back); with
    the relay back they meet on a resume wormhole, through the relay again: the game
    resumes, finishes and verifies."""
    procs = internet_game(tmp_path, servers, 2, 19)
    host = procs[0]
    try:
        wait_until(lambda: n_records(tmp_path / "p1") >= 20, 90, "the game to be under way")
        servers.relay.down = True
        assert servers.relay.cut() >= 1
        wait_until(lambda: servers.relay.refused >= 1, 30, "Dilation to try the relay")
        # the relay stays down until the host gave that wormhole up (nothing could come)
        wait_until(lambda: "nothing from the guest" in host.stderr(), 60, "the host to "
                   "give the wormhole up")
        servers.relay.down = False
        wait_until(lambda: "back on resume wormhole" in host.stderr(), 60, "the resume")
        finished_and_verified(procs, tmp_path)
    finally:
        kill_all(procs)


def test_bot_killed_for_good_is_played_open_handed_through_the_relay(
        servers: Servers, tmp_path: Path) -> None:
    """R8.6 through the wormhole (as tests/test_net_game.py's LAN test): in a relay-only
    game of three seats a guest is killed (-9) mid-round and never comes back; the host,
    with ``--open-hand-after``, abandons its seat, the deal is dealt again with that seat
    open-handed and the game finishes. The open seat owes no final ack (NETWORK.md §6):
    nobody waits ``final_wait`` (beyond the test's bound) for it, nobody warns of an
    unconfirmed seat, and the two transcripts left are identical and verify."""
    from tests.test_net_game import FOREVER

    host = Proc(tmp_path, "host", "host", "--internet", *servers.args,
                *one_round(tmp_path), "--port", "0",
                "--bind", "127.0.0.1", "--play-as-bot", "heuristic", "--seats", "3",
                "--no-announce", "--no-proofs", "--name", "heuristic-0",
                "--data-dir", str(tmp_path / "p0"), "--test-seed", "20",
                "--open-hand-after", "1", "--net-timing",
                f"wormhole_idle=3,ping_interval=0.2,final_wait={FOREVER},open_hand_offer=1")
    procs = [host]
    try:
        for i in (1, 2):
            wait_until(lambda i=i: len(invitations(host)) >= i, 60, f"invitation {i}")
            procs.append(Proc(tmp_path, f"bot{i}", "bot", invitations(host)[i - 1],
                              *servers.args, "--net-timing",
                              f"wormhole_idle=3,final_wait={FOREVER},open_hand_offer=1",
                              "--name", f"heuristic-{i}", "--data-dir",
                              str(tmp_path / f"p{i}"), "--test-seed", "20"))
            wait_until(lambda i=i: host.stderr().count("joined the lobby") >= i, 60,
                       f"bot {i} to join")
        victim = procs[2]
        wait_until(lambda: n_records(tmp_path / "p2") >= 30, 90, "round 1 to be under way")
        # stopped where the host may give it up: a kill while the seat owes a reveal can
        # only be timed out (R8.6), and the game would stop instead
        stop_where_it_may_be_given_up(victim, tmp_path / "p0", 2)
        victim.kill()
        left = procs[:2]
        finished_and_verified(left, tmp_path)
        assert "no final ack" not in host.stderr(), host.stderr()[-2000:]
        assert "never confirmed" not in procs[1].stderr(), procs[1].stderr()[-2000:]
        assert "given up as gone for good" in host.stderr()
        assert servers.relay.accepted >= 2  # both guests came through the relay
        from splitnet.session.transcript import read_transcript

        f = game_file(tmp_path / "p0")
        assert f is not None
        v = verify_records(read_transcript(f))
        assert "heuristic-2 abandoned by the host" in v.summary, v.summary
    finally:
        kill_all(procs)


def test_resume_codes_are_pinned_and_fresh_per_counter() -> None:
    """The resume code of NETWORK.md §12 (its vector), a nameplate the mailbox never
    allocates (20 digits) that both magic-wormhole and its mailbox accept; another code
    for every counter and every secret. The same for an invitation's retry code."""
    from wormhole._code import validate_code
    from wormhole_mailbox_server.server import check_valid_nameplate

    from splitnet.net.wormhole import resume_code, retry_code

    code = resume_code(bytes(range(32)), 0)
    assert code == "53683511288924198750-97d7da0f7f32cee78656376df3cbf430"
    assert resume_code(bytes(range(32)), 1) == \
        "19925176236358622355-745af01ba3760d7c3b3895e1db9d0ce2"
    codes = {resume_code(bytes([s]) * 32, n) for s in range(4) for n in range(50)}
    assert len(codes) == 200
    plates = {c.split("-")[0] for c in codes}
    assert len(plates) == 200 and all(len(p) == 20 and p[0] != "0" for p in plates)
    for c in list(codes)[:10]:
        validate_code(c)
        check_valid_nameplate(c.split("-")[0])
    with pytest.raises(ValueError):
        resume_code(b"short", 0)
    # an invitation's retry wormhole (NETWORK.md §12, "Retry wormhole"): its vector, a
    # nameplate the mailbox accepts, another for every invitation
    retry = retry_code("7-crossover-clockwork")
    assert retry == "17818270784096798681-8b2629854c58f476337a2674fea95af1"
    assert retry_code(" 7-crossover-clockwork ") == retry != retry_code("7-crossover-clock")
    validate_code(retry)
    check_valid_nameplate(retry.split("-")[0])


def test_resume_file_round_trip_and_damage(tmp_path: Path) -> None:
    """The resume secrets are kept 0600 and read back; a damaged file is one line naming
    it, and the guest's file is found again from the invitation, not named by it."""
    import os

    from splitnet.net.store import ResumeChain, invitation_resume_file

    f = invitation_resume_file(tmp_path, "7-crossover-clockwork")
    assert "crossover" not in str(f.path)
    assert f.path == invitation_resume_file(tmp_path, " 7-crossover-clockwork ").path
    assert f.load() == []
    f.save([ResumeChain(b"k" * 32, 3, key=b"\x01" * 32, game_id="ab")])
    assert os.stat(f.path).st_mode & 0o777 == 0o600
    (c,) = f.load()
    assert (c.secret, c.next, c.key, c.game_id) == (b"k" * 32, 3, b"\x01" * 32, "ab")
    for bad in ("{", '{"chains": [{"secret": "00", "next": 0}]}',
                '{"chains": [{"secret": "' + "00" * 32 + '", "next": -1}]}', "[]"):
        f.path.write_text(bad)
        with pytest.raises(ValueError, match=str(f.path)) as e:
            f.load()
        assert "\n" not in str(e.value)


# ---------------------------------------------------------------------- rematch (§13)
def rematch_through_wormholes(tmp_path: Path, servers: Servers, seed: int,
                              game: list[str], timing: str) -> list[Proc]:
    """``splitnet host --internet --play-as-bot … --seats 3 --rematches 1`` (relay only)
    and two ``splitnet bot CODE --rematch``, each through its own invitation and seen
    joining the lobby."""
    host = Proc(tmp_path, "host", "host", "--internet", *servers.args, *game,
                "--net-timing", timing, "--port", "0", "--bind", "127.0.0.1",
                "--play-as-bot", "heuristic", "--seats", "3", "--rematches", "1",
                "--no-announce", "--name", "Hosta", "--data-dir", str(tmp_path / "p0"),
                "--test-seed", str(seed))
    procs = [host]
    for i, name in ((1, "Ana"), (2, "Bo")):
        wait_until(lambda i=i: len(invitations(host)) >= i, 60, f"invitation {i}")
        procs.append(Proc(tmp_path, f"bot{i}", "bot", invitations(host)[i - 1],
                          *servers.args, "--net-timing", timing, "--rematch", "--name",
                          name, "--data-dir", str(tmp_path / f"p{i}"),
                          "--test-seed", str(seed)))
        wait_until(lambda i=i: host.stderr().count("joined the lobby") >= i, 60,
                   f"bot {i} to join")
    return procs


def games_on(tmp: Path, seat: int) -> dict[str, bytes]:
    """Every transcript on a seat's disk, by game id."""
    return {f.stem: f.read_bytes() for f in (tmp / f"p{seat}" / "games").glob("*.splitlog")}


def test_a_table_through_wormholes_plays_a_rematch_with_the_same_seats(
        servers: Servers, tmp_path: Path) -> None:
    """NETWORK.md §13 through the wormholes of §12: after a game of one round the host
    offers the rematch; each guest's bot (``--rematch``) meets the host's rematch lobby
    on the next code of the resume chain they already share — no invitation is printed
    or typed for it — and agrees; the rematch is played with the same seats, the first
    deal passed left. Every process exits 0, both transcripts are byte-identical on
    every seat and ``splitnet verify FIRST SECOND`` says the second is the rematch.

    A game of Split: the wormholes and the resume chains carry frames and name no game
    (the rematch of a Splito table, same seats, deal passed left, verified as a pair:
    tests/test_net_splito.py with real processes, tests/test_net_splito_mem.py)."""
    # one round (protocol/SETTINGS.md): the rematch is what counts
    rules = [*one_round(tmp_path), "--no-proofs"]
    over = "Winner:"
    # rematch_wait: the bots' wait for an offer after the rematch too (none comes)
    timing = "wormhole_idle=3,rematch_wait=20"
    procs: list[Proc] = []
    try:
        procs += rematch_through_wormholes(tmp_path, servers, 41, rules, timing)
        host = procs[0]
        for p in procs:
            rc = p.wait(3 * TIMEOUT)
            assert rc == 0, f"{p.label} exited {rc}\n{p.stderr()[-3000:]}"
            assert p.stdout().count(over) == 2, p.stdout()[-3000:]
        out = host.stdout()
        assert "Rematch offered to the same seats" in out
        # none printed for the rematch (a loaded machine may show a fresh one during the
        # first game, for a seat whose wormhole went idle for a moment: §12)
        codes = invitations(host)[:2]  # the two the bots were started with
        assert len(codes) == 2
        assert not _INVITE.findall(out.split("Rematch offered to the same seats", 1)[1])
        for bot in procs[1:]:
            assert "no rematch: the host at invitation" in bot.stdout(), bot.stdout()[-1000:]
            assert "wormhole:0" not in bot.stdout() + bot.stderr()
            assert "met the host again on resume wormhole" in bot.stderr()
        no_traceback(*procs)
    finally:
        kill_all(procs)
    games = games_on(tmp_path, 0)
    assert len(games) == 2
    assert all(games_on(tmp_path, s) == games for s in (1, 2)), "transcripts differ"
    from splitnet.game.rematch import parse_rematch
    from splitnet.session.log import Log
    from splitnet.session.transcript import read_transcript

    def header(gid: str) -> Any:
        log = Log()
        log.append_record(read_transcript(tmp_path / "p1" / "games" / f"{gid}.splitlog")[0])
        return log.header

    (second,) = [g for g in games if parse_rematch(header(g).settings) is not None]
    (first,) = [g for g in games if g != second]
    files = [str(tmp_path / "p1" / "games" / f"{g}.splitlog") for g in (first, second)]
    out = forked_cli.run(["verify", *files], timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.count("fair: yes") == 2, out.stdout
    assert "rematch of the game before: same seats and rules" in out.stdout, out.stdout
    from splitnet.net.store import invitation_resume_file

    for seat, code in enumerate(codes, 1):  # the same command now resumes the rematch
        (chain,) = invitation_resume_file(tmp_path / f"p{seat}", code).load()
        assert chain.game_id == second and chain.next >= 1


def test_no_stranger_gets_into_a_rematch_lobby_through_a_wormhole(servers: Servers,
                                                                  tmp_path: Path) -> None:
    """The rematch lobby of a table through wormholes admits only the finished game's
    seats, proven by key (NETWORK.md §13): it opens no invitation, so Bo's spent one
    finds nobody ("unknown or already used"); someone holding Bo's resume secret but
    not his key meets the host on Bo's next resume code and is refused before the lobby
    ("to its players only"). Then the host is killed there and started again with the
    same command: it waits on the same chains again (Ana, still looking, comes back by
    herself), and Bo, killed after the game and started again with the same command,
    finds that game over in his data dir, meets the host on his chain's next code and
    agrees: the rematch is played by the same seats alone."""
    from splitnet.net.store import ResumeChain, invitation_resume_file

    timing = "wormhole_idle=3,rematch_wait=40,final_wait=5"
    procs: list[Proc] = []
    try:
        procs += rematch_through_wormholes(tmp_path, servers, 43,
                                           [*one_round(tmp_path), "--no-proofs"], timing)
        host, ana, bo = procs
        bo_code = invitations(host)[1]
        wait_until(lambda: "Winner:" in bo.stdout(), TIMEOUT, "Bo's game to end")
        bo.kill()  # before the rematch lobby opened: he is not in it
        wait_until(lambda: "Rematch offered" in host.stdout(), 60, "the offer")
        (chain,) = invitation_resume_file(tmp_path / "p2", bo_code).load()
        leaked = "1-leaked-secret"
        invitation_resume_file(tmp_path / "zed", leaked).save(
            [ResumeChain(chain.secret, chain.next)])  # his secret, not his key
        strangers = [Proc(tmp_path, label, "bot", code, *servers.args, "--net-timing",
                          timing, "--rematch", "--name", "Zed", "--data-dir",
                          str(tmp_path / label))
                     for label, code in (("eve", bo_code), ("zed", leaked))]
        procs += strangers
        eve, zed = strangers
        assert eve.wait(60) == 1 and zed.wait(60) == 1
        assert "unknown or already used" in eve.stderr(), eve.stderr()
        assert "to its players only" in zed.stderr(), zed.stderr()
        assert "met the host again on resume wormhole" in zed.stderr()  # Zed met it…
        assert host.p.poll() is None and "Rematch: Hosta, Ana agreed" in host.stdout()
        host.kill()
        host.start()  # the very same command
        wait_until(lambda: "Resuming the rematch lobby of game" in host.stdout(), 60,
                   "the host to offer the rematch again")
        bo.start()  # the very same command
        assert host.wait(TIMEOUT) == 0, host.stderr()[-3000:]
        assert host.stdout().count("Winner:") == 2, host.stdout()[-3000:]
        here = [ln for ln in host.stderr().splitlines() if "here for the rematch" in ln]
        assert len(here) == 3 and "Zed" not in " ".join(here), here  # …but never got in
        assert sum("Ana (" in ln for ln in here) == 2  # before the host's restart and after
        assert "looking for its rematch" in bo.stdout(), bo.stdout()
        for p in (ana, bo):  # (Bo's output holds his killed run's too)
            wait_until(lambda p=p: p.stdout().count("Winner:") == 2, TIMEOUT,
                       f"{p.label}'s rematch")
        out = host.stdout()  # no invitation for the rematch, before the restart or after
        assert len(invitations(host)) >= 2
        assert not _INVITE.findall(out.split("Rematch offered to the same seats", 1)[1])
        no_traceback(*procs)
    finally:
        kill_all(procs)
    games = games_on(tmp_path, 0)
    assert len(games) == 2 and all(games_on(tmp_path, s) == games for s in (1, 2))


def test_a_rematch_takes_over_the_seats_resume_chains_alone(tmp_path: Path) -> None:
    """``Invitations.hand_over`` (NETWORK.md §13 step 7): the next game's file holds the
    chains of the finished game's seats, counters as they stood, and no other (a lobby
    guest who never sat, a chain bound to no key)."""
    from splitnet.net import wormhole as wh
    from splitnet.net.store import ResumeChain, ResumeFile

    old = ResumeFile(tmp_path / "first.wormhole")
    seat, other = b"\x01" * 32, b"\x02" * 32
    old.save([ResumeChain(b"a" * 32, 5, key=seat), ResumeChain(b"b" * 32, 2, key=other),
              ResumeChain(b"c" * 32, 0)])
    invites = wh.Invitations(wh.WormholeSettings(), lambda ch: asyncio.sleep(0),
                             lambda code: None, lambda: 0, resume=old)
    new = ResumeFile(tmp_path / "rematch.wormhole")
    invites.hand_over({seat, b"\x03" * 32}, new)
    (c,) = new.load()
    assert (c.secret, c.next, c.key, c.game_id) == (b"a" * 32, 5, seat, "")
