"""Issue 11's lobby failures over the whole path: real ``splitnet`` processes on
loopback, never announced (``--no-announce``); and a host killed after the last record,
in this process on virtual time over the in-memory network.

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

import asyncio
import contextlib
import signal
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from splitnet.app.lan_session import NetSession
from splitnet.games.split.bots import make_bot
from splitnet.net.host import HostNode
from splitnet.net.joincode import new_code
from splitnet.net.peer import PeerNode
from splitnet.net.store import GameFiles, read_meta, unfinished_games
from splitnet.session.identity import Identity
from splitnet.ui.lobby import HostLobby
from splitnet.ui.tui.lobby import LobbyScreen
from splitnet.verify import verify_records
from tests.memnet import MemoryNet
from tests.test_attacks_net import Lan, net
from tests.test_net_game import TIMEOUT, Proc, host_port_and_code, wait_until
from tests.test_net_join import PipedProc
from tests.test_net_timing import stop
from tests.virtual_time import VirtualLoop, until, virtual_time, within

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


@contextlib.contextmanager
def lobby_and_bot(tmp_path: Path, *bot_args: str) -> Iterator[tuple[Proc, Proc]]:
    """A ``splitnet host`` waiting in its lobby for 3 players (printed line by line) and
    a ``splitnet bot`` Ana on its way in; both killed at the end if still running."""
    host = Proc(tmp_path, "host", *HOST, "--port", "0", "--seats", "3", "--data-dir",
                str(tmp_path / "p0"))
    bot: Proc | None = None
    try:
        wait_until(lambda: "listening on port" in host.stdout(), 30, "the host to listen")
        port, code = host_port_and_code(host)
        bot = Proc(tmp_path, "bot", "bot", f"127.0.0.1:{port}", "--code", code, "--name",
                   "Ana", *bot_args, "--data-dir", str(tmp_path / "p1"))
        yield host, bot
    finally:
        for p in (host, bot):
            if p is not None and p.p.poll() is None:
                p.kill()


def test_a_host_that_stops_its_lobby_stops_its_joiners(tmp_path: Path) -> None:
    with lobby_and_bot(tmp_path) as (host, bot):
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


def test_the_hosts_console_lists_a_remote_bot_with_its_level(tmp_path: Path) -> None:
    """``splitnet host`` (its lobby printed line by line) and a ``splitnet bot --level
    strong`` on another data dir: the host's console lists the bot as PLAYING.md says,
    ``Ana (strong)`` — it printed the name alone, having never learnt the level; and it
    says the lobby once for one join (the level, which comes just after the bot is let
    in, used to print the whole lobby line again)."""
    with lobby_and_bot(tmp_path, "--level", "strong") as (host, bot):
        wait_until(lambda: "Ana (strong)" in host.stdout(), 30,
                   "the bot listed with its level")
        out = host.stdout()
        assert out.count("In the lobby: ") == 2, out  # the host alone, then with Ana
        assert "In the lobby: Hosta, Ana (strong)" in out or "\n  Ana (strong)\n" in out, out
        assert "refused" not in bot.stderr() + host.stderr(), bot.stderr() + host.stderr()
        assert host.stdout().count("verification ") == 1, host.stdout()  # said once
        host.p.send_signal(signal.SIGTERM)
        assert host.wait(30) == 130


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


# ---------------------------------------------------------------------- after the last record
def crash(host: HostNode) -> None:
    """The host process dies (kill -9) right after ordering the last record: what it
    sent is on the wire, nothing more goes out — no relayed ack, no bye."""
    assert host.server is not None
    host.server.close()
    for c in list(host.all_conns):
        c.ch.close()
    for t in list(host._tasks):
        t.cancel()
    assert host.table is not None
    host.table.close()


@virtual_time
async def test_a_host_killed_after_the_last_record_finishes_at_once_on_restart(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """Issue 11: the restarted host waited ``final_wait`` for the final acks of bots that
    had already left, and every joiner warned that the others "never confirmed the final
    log" though all transcripts were identical. Now a joiner whose log is finished keeps
    reconnecting (within ``final_wait``) until the others' final acks are relayed to it;
    the restarted host relays the acks it has to every seat that comes back and ends as
    soon as every seat has acked — long before its ``final_wait``."""
    patient = net(final_wait=600.0)  # what the host and joiners wait at most
    host = HostNode(Identity.generate(), tmp_path / "p0", "Host", patient, seats=3,
                    proofs=False)
    lan = await Lan.start(tmp_path, host, peer_net=patient)
    loop = asyncio.get_running_loop()
    restarted: list[HostNode] = []
    hosting: asyncio.Future[None] | None = None
    try:
        assert host.table is not None
        table = host.table
        host.on_entry_hooks.append(
            lambda e: loop.call_soon(crash, host) if table.core.finished else None)
        sessions = [NetSession(host, asyncio.ensure_future(host.done.wait()),
                               bot=make_bot("heuristic", 0))]
        sessions += [NetSession(p, t, bot=make_bot("heuristic", i + 1))
                     for i, (p, t) in enumerate(zip(lan.peers, lan.tasks, strict=True))]
        runs = [asyncio.ensure_future(s.run()) for s in sessions[1:]]
        hosting = asyncio.ensure_future(sessions[0].run())  # dies with the host
        await until(lambda: table.core.finished and host.server is not None
                    and not host.server.is_serving(), "the host to die at the end")
        assert not host.done.is_set()
        port = host.port
        meta = unfinished_games(tmp_path / "p0", "host")[0]
        again = HostNode.resume(host.identity, tmp_path / "p0", meta, patient)
        restarted.append(again)
        back = clock.time()
        await again.listen("127.0.0.1", port, transport=lan.mem.listen)
        await within(again.done.wait())
        assert clock.time() - back < 5.0  # at once: not final_wait (600 s)
        await within(asyncio.wait(lan.tasks))
        await within(asyncio.wait(runs))
        for p in lan.peers:
            assert p.done and p.fatal is None, p.fatal
            assert p.unconfirmed() == [], p.unconfirmed()
        recs = [lan.records(s) for s in range(3)]
        assert recs[0] == recs[1] == recs[2]
        assert verify_records(recs[0]).ok
        assert read_meta(GameFiles(tmp_path / "p0", table.game_id).meta).finished
    finally:
        for h in restarted:
            await h.close()
        if hosting is not None:
            hosting.cancel()
        for t in lan.tasks:
            t.cancel()
        await asyncio.gather(*lan.tasks, return_exceptions=True)


@virtual_time
async def test_a_host_that_hangs_up_at_the_end_leaves_its_seats_unconfirmed(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """The other side (SECURITY.md §4): a host that hangs up after the last record and
    never comes back relays no final ack. Each joiner reconnects for at most
    ``final_wait``, then ends its finished game, naming the seats that never confirmed
    its final log — hanging up hides nothing that withholding would."""
    short = net(final_wait=1.0)
    host = HostNode(Identity.generate(), tmp_path / "p0", "Host", short, seats=3,
                    proofs=False)
    lan = await Lan.start(tmp_path, host, peer_net=short)
    loop = asyncio.get_running_loop()
    hosting: asyncio.Future[None] | None = None
    try:
        assert host.table is not None
        table = host.table
        host.on_entry_hooks.append(
            lambda e: loop.call_soon(crash, host) if table.core.finished else None)
        hosting = asyncio.ensure_future(NetSession(
            host, asyncio.ensure_future(host.done.wait()), bot=make_bot("heuristic", 0)).run())
        runs = [asyncio.ensure_future(NetSession(p, t, bot=make_bot("heuristic", i + 1)).run())
                for i, (p, t) in enumerate(zip(lan.peers, lan.tasks, strict=True))]
        ended = await until(lambda: table.core.finished, "the last record")
        await within(asyncio.wait(lan.tasks))
        # each joiner kept trying for final_wait (1 s), not a moment less
        assert clock.time() - ended >= short.final_wait
        await within(asyncio.wait(runs))
        ana, bo = lan.peers
        for p in lan.peers:
            assert p.done and p.fatal is None, p.fatal
        assert (ana.unconfirmed(), bo.unconfirmed()) == ([2], [1])
        assert lan.records(1) == lan.records(2)
    finally:
        if hosting is not None:
            hosting.cancel()
        for t in lan.tasks:
            t.cancel()
        await asyncio.gather(*lan.tasks, return_exceptions=True)


# ---------------------------------------------------------------------- the host's lobby screen
def lobby_screen(lobby: object) -> tuple[LobbyScreen, str]:
    """The full-screen lobby over ``lobby`` and its text as drawn now."""
    scr = LobbyScreen(lobby, "t")  # type: ignore[arg-type]
    lines = scr.render(160, None)
    return scr, "\n".join("".join(text for _, text, *_ in line) for line in lines)


@virtual_time
async def test_the_host_can_start_a_two_player_game_from_its_lobby_screen(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """``splitnet host`` + one ``splitnet join`` (R3.1: 2 players are a game): the host's
    lobby shows its start key as soon as the joiner is in — the join's redraw comes
    after the count rose, not before — and ``s`` starts the game; never "waiting for the
    host" or "only the host can start" on the host's own screen."""
    host = HostNode(Identity.generate(), tmp_path / "p0", "Hana", net(), proofs=False)
    mem = MemoryNet()
    port = await host.listen("127.0.0.1", 0, transport=mem.listen)
    lobby = HostLobby(host, f"127.0.0.1:{port}")
    drawn: list[str] = []
    lobby.subscribe(lambda: drawn.append(lobby_screen(lobby)[1]))
    _, alone = lobby_screen(lobby)
    assert "Players (1 of 6)" in alone and "Waiting for players to join (2–6 play)" in alone
    scr, _ = lobby_screen(lobby)
    scr.request_start()
    assert scr.note == "Split needs 2 to 6 players (R3.1); 1 in the lobby"
    jo = PeerNode(Identity.generate(), tmp_path / "p1", "Jo", "127.0.0.1", port, net(),
                  connect=mem.connector("127.0.0.1", port))
    task = jo.start()
    try:
        await until(lambda: len(host.members) == 1, "Jo in the lobby")
        assert drawn, "the join redrew nothing"
        text = drawn[-1]  # what the join drew
        assert "Players (2 of 6)" in text, text
        assert " s  start the game with these players" in text, text
        assert "Waiting for the host" not in text, text
        scr, _ = lobby_screen(lobby)
        scr.request_start()
        assert scr.note == "starting…"
        await within(host.started.wait())
        assert host.table is not None and host.table.names == ["Hana", "Jo"]
    finally:
        await host.close()
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        await mem.close()


@virtual_time
async def test_the_hosts_lobby_lists_a_bot_with_its_level(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """PLAYING.md: where bots are listed — the host's lobby among them — the level
    follows, ``Ana (strong)``. The host never learnt a remote bot's level; a bot now says
    it in a ``bot`` frame as it is let into the lobby (NETWORK.md §4), and a person says
    nothing, so stays a plain name. The host's own ``--bots`` are known by their keys:
    listed with their level as soon as they are in."""
    host = HostNode(Identity.generate(), tmp_path / "p0", "Hana", net(), proofs=False)
    mem = MemoryNet()
    port = await host.listen("127.0.0.1", 0, transport=mem.listen)
    own = Identity.generate()  # a bot of the host's (``host --bots 1 --bot-level easy``)
    lobby = HostLobby(host, f"127.0.0.1:{port}", levels={own.public_key_bytes(): "easy"})
    ana = PeerNode(Identity.generate(), tmp_path / "p1", "Ana", "127.0.0.1", port, net(),
                   connect=mem.connector("127.0.0.1", port), bot_level="strong")
    bo = PeerNode(own, tmp_path / "p2", "Bo", "127.0.0.1", port, net(),
                  connect=mem.connector("127.0.0.1", port))
    jo = PeerNode(Identity.generate(), tmp_path / "p3", "Jo", "127.0.0.1", port, net(),
                  connect=mem.connector("127.0.0.1", port))
    ana.start()
    try:
        await until(lambda: "Ana (strong)" in lobby.players, "Ana's level")
        bo.start()
        await until(lambda: len(lobby.players) == 3, "Bo in the lobby")
        jo.start()
        await until(lambda: len(lobby.players) == 4, "Jo in the lobby")
        assert lobby.players == ["Hana", "Ana (strong)", "Bo (easy)", "Jo"]
        assert "Ana (strong)" in lobby_screen(lobby)[1]
        assert host.table is None and host.lobby_names == ["Hana", "Ana", "Bo", "Jo"]
        assert ana.refusals == [] and jo.refusals == []
    finally:
        await stop(clock, host, [ana, bo, jo], mem)


@virtual_time
async def test_a_bot_at_an_older_host_says_so_in_one_line_and_plays_on(
        tmp_path: Path, clock: VirtualLoop, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    """A host from before the ``bot`` frame refuses it as an unknown frame (not fatal):
    the bot says in one line that this host does not list levels, and stays in the
    lobby; the game starts with it."""
    import splitnet.net.host as host_module
    from splitnet.net.frames import Frame
    from splitnet.net.wire import ErrorCode, WireError

    real = host_module.decode_frame

    def older(payload: bytes, *, from_host: bool) -> Frame:
        f = real(payload, from_host=from_host)
        if f.T == "bot":
            raise WireError(ErrorCode.SCHEMA, "unknown frame type 'bot'")
        return f

    monkeypatch.setattr(host_module, "decode_frame", older)
    host = HostNode(Identity.generate(), tmp_path / "p0", "Hana", net(), seats=2,
                    proofs=False)
    mem = MemoryNet()
    port = await host.listen("127.0.0.1", 0, transport=mem.listen)
    lobby = HostLobby(host, f"127.0.0.1:{port}")
    ana = PeerNode(Identity.generate(), tmp_path / "p1", "Ana", "127.0.0.1", port, net(),
                   connect=mem.connector("127.0.0.1", port), bot_level="strong")
    ana.start()
    try:
        await within(host.started.wait())
        await until(lambda: ana.refusals, "the older host's refusal")
        await until(lambda: ana.ready, "Ana in her seat")
        assert lobby.players == ["Hana", "Ana"] and ana.fatal is None
        said = [r.getMessage() for r in caplog.records if "level" in r.getMessage()]
        assert said == ["the host runs an older splitnet that does not list a bot's "
                        "level (strong): it plays on without"], said
    finally:
        await stop(clock, host, [ana], mem)
