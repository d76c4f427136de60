"""Only invited players get in: ``splitnet host`` / ``join`` / ``bot`` processes on
loopback with the join code (protocol/SECURE.md) and LAN announcements
(protocol/DISCOVERY.md).

* a wrong code is refused at once — one message, exit status ≠ 0, one attempt counted —
  and the game stays open: a bot with the right code joins it and the game is played;
* that bot talks to the host through a relay that records every byte: nothing of the game
  is readable on the wire (names, frame types, the protocol string, the code);
* a player with no address browses the LAN, picks the game, types the code at the prompt
  and plays it to the end through the plain front end; both screens show the same
  verification words; the game is announced until it starts, and never the code;
* ``--no-announce`` keeps a game off the LAN; a host that stops withdraws its announcement.

The tests that announce or browse (``@pytest.mark.netns``) run in a network namespace of
their own (tests/conftest.py), so other games announced on the machine cannot disturb them.
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import signal
import stat
from pathlib import Path

import pytest

from splitnet.app import lan_joiner as netrun
from splitnet.net.config import NetSettings
from splitnet.net.discovery import GameAd, GameBrowser, browse, list_games
from splitnet.net.framing import read_frame
from splitnet.net.host import HostNode
from splitnet.net.joincode import new_code, parse_code
from splitnet.net.known_peers import KnownPeers
from splitnet.net.links import as_wire
from splitnet.net.peer import PeerFatal, PeerNode
from splitnet.net.secure import AttemptLimiter, secure_client_handshake, secure_wrap
from splitnet.net.store import GameFiles, GameMeta, unfinished_games
from splitnet.net.wire import NET_PROTOCOL, ChannelClosed
from splitnet.session.identity import Identity
from splitnet.ui.lobby import HostLobby, JoinLobby
from splitnet.ui.tui.lobby import LobbyScreen
from tests import forked_cli
from tests.test_net_game import TIMEOUT, Proc, game_file, host_port_and_code, wait_until
from tests.virtual_time import VirtualLoop, virtual_time

LOOPBACK = ["127.0.0.1"]
HOST = ("host", "--port", "0", "--bind", "127.0.0.1", "--play-as-bot", "heuristic",
        "--no-proofs")


class PipedProc(Proc):
    """A process whose standard input is a file (what a person would type)."""

    def __init__(self, tmp: Path, label: str, stdin: str, *args: str) -> None:
        self.stdin = tmp / f"{label}.in"
        self.stdin.write_text(stdin)
        super().__init__(tmp, label, *args)

    def start(self) -> None:
        with open(self.out, "a") as out, open(self.err, "a") as err, \
                open(self.stdin) as inp:
            self.p = forked_cli.popen(self.args, stdin=inp.fileno(), stdout=out.fileno(),
                                      stderr=err.fileno(),
                                      env={**os.environ, "PYTHONUNBUFFERED": "1",
                                           "PYTHONFAULTHANDLER": "1"})


def start_host(tmp: Path, name: str, *extra: str) -> tuple[Proc, int, str]:
    host = Proc(tmp, "host", *HOST, "--name", name, "--data-dir", str(tmp / "p0"), *extra)
    wait_until(lambda: "listening on port" in host.stdout(), 30, "the host to listen")
    port, code = host_port_and_code(host)
    return host, port, code


def other_code(code: str) -> str:
    c = parse_code(code)
    return f"{c.number % 98 + 2}-{c.first}-{c.second}"  # another number: a wrong code


async def ours(name: str, timeout: float = 1.5) -> list[GameAd]:
    """The games on loopback whose host is *name*."""
    return [g for g in await list_games(timeout, interfaces=LOOPBACK) if g.host == name]


async def watch(browser: GameBrowser, name: str, kind: str) -> GameAd:
    """The next *kind* event ("added", "removed") for the game hosted by *name*."""
    async with asyncio.timeout(15):
        async for ev in browser:
            if ev.ad.host == name and ev.kind == kind:
                return ev.ad
    raise AssertionError(f"browsing ended before {name}'s game was {kind}")


class Relay:
    """A TCP relay on 127.0.0.1 that keeps every byte it passes on."""

    def __init__(self, port: int) -> None:
        self.target = port
        self.up = bytearray()  # joiner → host
        self.down = bytearray()  # host → joiner
        self.server: asyncio.Server | None = None

    async def start(self) -> int:
        self.server = await asyncio.start_server(self._conn, "127.0.0.1", 0)
        return int(self.server.sockets[0].getsockname()[1])

    async def _conn(self, r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
        hr, hw = await asyncio.open_connection("127.0.0.1", self.target)

        async def pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter,
                       keep: bytearray) -> None:
            try:
                while data := await src.read(65536):
                    keep += data
                    dst.write(data)
                    await dst.drain()
            except (ConnectionError, OSError):
                pass
            finally:
                dst.close()

        await asyncio.gather(pipe(r, hw, self.up), pipe(hr, w, self.down))

    def close(self) -> None:
        if self.server is not None:
            self.server.close()


@pytest.mark.slow
@pytest.mark.netns
async def test_wrong_code_refused_then_an_invited_bot_plays_and_the_wire_is_opaque(
        tmp_path: Path) -> None:
    name = f"Wiretap{secrets.token_hex(3)}"
    host, port, code = await asyncio.to_thread(start_host, tmp_path, name, "--seats", "2",
                                               "--no-announce")
    relay = Relay(port)
    procs = [host]
    try:
        # --no-announce: not on the LAN, while a wrong code is tried
        browsing = asyncio.ensure_future(ours(name))
        wrong = Proc(tmp_path, "wrong", "join", f"127.0.0.1:{port}", "--plain", "--code",
                     other_code(code), "--name", "Mallory", "--data-dir",
                     str(tmp_path / "pw"))
        procs.append(wrong)
        rc = await asyncio.to_thread(wrong.wait, 30)
        assert rc != 0
        err = wrong.stderr()
        assert "wrong code" in err and "Check the join code" in err, err
        assert err.count("wrong code:") == 1, err  # one message, no reconnect loop
        assert not list((tmp_path / "pw").glob("games/*"))
        assert await browsing == []
        await asyncio.to_thread(wait_until, lambda: "1 of 20 allowed" in host.stdout(), 10,
                                "the host's lobby to count the wrong code")
        assert host.stderr().count("wrong code from 127.0.0.1") == 1  # one attempt counted
        assert host.p.poll() is None  # the game is still open
        # the invited bot, through the relay
        rport = await relay.start()
        bot = Proc(tmp_path, "bot", "bot", f"127.0.0.1:{rport}", "--code", code, "--name",
                   "Ana-the-bot", "--data-dir", str(tmp_path / "p1"))
        procs.append(bot)
        for p in (host, bot):
            rc = await asyncio.to_thread(p.wait, TIMEOUT)
            assert rc == 0, p.stderr()[-2000:]
            assert "Winner:" in p.stdout()
        words = bot.stdout().split("Verification: ")[1].split()[0]
        assert f"Ana-the-bot: verification {words}" in host.stdout()
        files = [game_file(tmp_path / d) for d in ("p0", "p1")]
        assert files[0] is not None and files[1] is not None
        assert files[0].read_bytes() == files[1].read_bytes()
        # the whole game crossed the relay, and none of it is readable there
        wire = bytes(relay.up + relay.down)
        assert len(relay.up) > 5_000 and len(relay.down) > 50_000
        plain = [name.encode(), b"Ana-the-bot", NET_PROTOCOL.encode(), b"challenge",
                 b"welcome", b"\xa5hello", b"splitnet/v1", b"splitnet/v2", code.encode(),
                 Identity.load_or_create(tmp_path / "p1").public_key_bytes()]
        for word in code.split("-")[1:]:
            plain.append(word.encode())
        for text in plain:
            assert text not in wire, text
        assert files[0].read_bytes()[:2000] not in wire
    finally:
        relay.close()
        for p in procs:
            if p.p.poll() is None:
                p.p.kill()


@pytest.mark.slow
@pytest.mark.netns
async def test_join_browses_the_lan_and_plays_with_the_code_typed(tmp_path: Path) -> None:
    name = f"Lan{secrets.token_hex(3)}"
    browser = await browse(None, interfaces=LOOPBACK).start()
    host, port, code = await asyncio.to_thread(start_host, tmp_path, name, "--seats", "2")
    procs = [host]
    try:
        # announced (on loopback: the host listens there), with the seats free, never
        # the code
        ad = await watch(browser, name, "added")
        assert (ad.port, ad.free, ad.seats, ad.target) == (port, 1, 2, f"127.0.0.1:{port}")
        fp = host.stdout().split("Host key fingerprint: ")[1].split()[0]
        assert ad.fingerprint == fp
        assert code not in repr(ad)
        # no address: browse, pick the game (Enter), type the code, play by numbers
        script = "\n" + code.upper().replace("-", " ") + "\n" + "moves\n1\n" * 600
        join = PipedProc(tmp_path, "join", script, "join", "--plain", "--name", "Bea",
                         "--interface", "127.0.0.1", "--browse-timeout", "3",
                         "--data-dir", str(tmp_path / "p1"))
        procs.append(join)
        await asyncio.to_thread(wait_until, lambda: "game " in host.stderr()
                                and " started: " in host.stderr(), 30, "the game to start")
        # the game started: no longer announced
        assert (await watch(browser, name, "removed")).port == port
        for p in (host, join):
            rc = await asyncio.to_thread(p.wait, TIMEOUT)
            assert rc == 0, p.stdout()[-1500:] + p.stderr()[-1500:]
        out = join.stdout()
        assert f"1. {name}'s game — host {name}, 1 seat free of 2" in out
        assert "=== Game over ===" in out and "Winner:" in out
        # the same four words on both screens
        words = out.split("Verification: ")[1].split()[0]
        assert len(words.split("-")) == 4
        assert f"Bea: verification {words}" in host.stdout()
        # the host was a new key to Bea, and Bea to the host; both remember it now
        assert f"NEW key for {name}" in out
        assert "NEW key for Bea" in host.stdout()
        for d, other in (("p0", "Bea"), ("p1", name)):
            known = KnownPeers.load(KnownPeers.default_path(tmp_path / d))
            assert len(known) == 1 and len(known.by_name(other)) == 1
        # the code is kept with the game, readable by its owner only
        for d in ("p0", "p1"):
            metas = list((tmp_path / d / "games").glob("*.meta"))
            assert len(metas) == 1 and json.loads(metas[0].read_text())["code"] == code
            assert stat.S_IMODE(metas[0].stat().st_mode) == 0o600
    finally:
        await browser.close()
        for p in procs:
            if p.p.poll() is None:
                p.p.kill()


@pytest.mark.slow
@pytest.mark.netns
async def test_a_host_that_stops_leaves_the_lan_list(tmp_path: Path) -> None:
    name = f"Stop{secrets.token_hex(3)}"
    browser = await browse(None, interfaces=LOOPBACK).start()
    host, _, _ = await asyncio.to_thread(start_host, tmp_path, name, "--seats", "3")
    try:
        await watch(browser, name, "added")
        host.p.send_signal(signal.SIGTERM)
        await watch(browser, name, "removed")  # at once: goodbye packets
        assert await asyncio.to_thread(host.wait, 10) == 130
        assert "no longer announced on the LAN" in host.stderr()
    finally:
        await browser.close()
        if host.p.poll() is None:
            host.p.kill()


@pytest.mark.slow
async def test_in_process_bots_get_the_code(tmp_path: Path) -> None:
    """``host --bots K``: the bots run in the host's process and join through the same
    handshake, handed the code."""
    host = Proc(tmp_path, "host", *HOST, "--seats", "2", "--bots", "1", "--no-announce",
                "--data-dir", str(tmp_path / "p0"))
    try:
        assert await asyncio.to_thread(host.wait, TIMEOUT) == 0, host.stderr()[-2000:]
        assert "Ana: verification " in host.stdout() and "Winner:" in host.stdout()
    finally:
        if host.p.poll() is None:
            host.p.kill()


def screen(lobby: object) -> str:
    lines = LobbyScreen(lobby, "t").render(160, None)  # type: ignore[arg-type]
    return "\n".join("".join(text for _, text, *_ in line) for line in lines)


def test_a_joiners_lobby_at_80x24_shows_the_four_words_and_the_whole_warning(
        tmp_path: Path) -> None:
    """The verification words are the one check a player makes by eye (README): at
    80×24 the joiner's lobby cut them ("border-bison-salmon-ta…") and the new-key
    warning with them. Every word and the whole warning are on the screen now."""
    from types import SimpleNamespace

    from prompt_toolkit.application import Application, create_app_session
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.layout import Layout
    from prompt_toolkit.output import DummyOutput

    from splitnet.ui.tui.snapshot import screen_text

    longest = [w for w in (Path(netrun.__file__).parent.parent / "data" / "words.txt")
               .read_text().split() if len(w) == 6 and w.isalpha()]
    words = "-".join(longest[:4])  # four words of six letters: the longest there are
    host, me, before = Identity.generate(), Identity.generate(), Identity.generate()
    known = KnownPeers(tmp_path / "known_peers.json")
    known.remember(before.public_key_bytes(), "Hana")  # Hana had another key last time
    node = SimpleNamespace(
        host="192.168.100.200", port=7420, host_key=host.public_key_bytes(),
        ch=SimpleNamespace(verification=words), lobby_game="Split", rematch_of=None,
        lobby_players=["Hana", "Ana"], lobby_keys=[host.public_key_bytes(),
                                                   me.public_key_bytes()],
        key=me.public_key_bytes(), net_status="", table=None, lobby_seats=None,
        lobby_max=6, subscribe=lambda callback: None)
    lobby = JoinLobby(node, known=known)
    warning = known.describe(host.public_key_bytes(), "Hana")
    assert "WARNING" in warning
    with create_pipe_input() as inp, create_app_session(input=inp, output=DummyOutput()):
        app: Application[None] = Application(
            layout=Layout(LobbyScreen(lobby, "splitnet").container), full_screen=True)
        rows = screen_text(app, 80, 24)  # type: ignore[arg-type]
    text = "\n".join(rows)
    assert words in text, text
    assert warning in " ".join(row.strip() for row in rows), text
    assert "Verification (the host's screen shows the same words)" in text


async def test_lobbies_show_the_code_the_words_and_known_keys(tmp_path: Path) -> None:
    """In one process: what both lobby screens show, a wrong code counted on the host's."""
    code = new_code()
    net = NetSettings(retry_first=0.05)
    limiter = AttemptLimiter()
    host = HostNode(Identity.generate(), tmp_path / "h", "Host", net, proofs=False,
                    wrap=secure_wrap(code, limiter=limiter, closed_exc=ChannelClosed,
                                     error_exc=as_wire), code=str(code))
    port = await host.listen("127.0.0.1", 0)
    ana_id, bob_then = Identity.generate(), Identity.generate()
    known = KnownPeers(tmp_path / "h" / "known_peers.json")
    known.remember(ana_id.public_key_bytes(), "Ana")
    known.remember(bob_then.public_key_bytes(), "Bob")
    lobby = HostLobby(host, f"127.0.0.1:{port}", code=str(code), limiter=limiter,
                      known=known)

    def joiner(ident: Identity, d: str, name: str, c: object) -> PeerNode:
        return PeerNode(ident, tmp_path / d, name, "127.0.0.1", port, net,
                        wrap=secure_wrap(c, closed_exc=ChannelClosed,  # type: ignore[arg-type]
                                         error_exc=as_wire), code=str(c))

    ana = joiner(ana_id, "a", "Ana", code)
    bob = joiner(Identity.generate(), "b", "Bob", code)  # Bob, with another key than before
    wrong = joiner(Identity.generate(), "w", "Eve", other_code(str(code)))
    tasks = [n.start() for n in (ana, bob, wrong)]
    try:
        with pytest.raises(PeerFatal, match="wrong code"):
            await asyncio.wait_for(tasks[2], 10)
        for _ in range(200):
            if len(host.members) == 2 and ana.ch is not None and bob.ch is not None:
                break
            await asyncio.sleep(0.05)
        join_lobby = JoinLobby(ana, known=KnownPeers(tmp_path / "a" / "known_peers.json"))
        for _ in range(100):
            if len(join_lobby.players) == 3:
                break
            await asyncio.sleep(0.05)
        lobby.changed()
        text = screen(lobby)
        assert f"Join code: {code}" in text
        assert "wrong codes: 1 of 20 allowed for this game" in text
        assert f"verification {ana.ch.verification}" in text
        assert f"verification {bob.ch.verification}" in text
        assert "known as Ana" in text
        assert "NEW key for Bob" in text and "WARNING: Bob was known with another key" in text
        mine = screen(join_lobby)
        assert f"Verification (the host's screen shows the same words): " \
               f"{ana.ch.verification}" in mine
        assert f"Host key fingerprint: {host.identity.fingerprint()}" in mine
        assert "NEW key for Host" in mine and "you" in mine
    finally:
        await host.close()
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
async def test_a_host_stopped_during_handshakes_prints_no_traceback(
        tmp_path: Path, sig: signal.Signals) -> None:
    """SIGTERM or Ctrl-C while connections are still in their handshakes — one silent
    after the HELLO, one half-way through a JOIN frame, one past the join code but not
    yet through the splitnet hello: the host says "stopped" and nothing else, with
    status 130."""
    host, port, code = await asyncio.to_thread(start_host, tmp_path, "Stopper",
                                               "--seats", "3", "--no-announce")
    writers = []
    try:
        r1, w1 = await asyncio.open_connection("127.0.0.1", port)
        assert (await read_frame(r1))[0] == 0x01  # HELLO, then nothing
        r2, w2 = await asyncio.open_connection("127.0.0.1", port)
        await read_frame(r2)
        w2.write((67).to_bytes(4, "big") + b"\x02\x01")  # a JOIN frame cut short
        r3, w3 = await asyncio.open_connection("127.0.0.1", port)
        ch = await secure_client_handshake(r3, w3, code, timeout=10)
        await ch.recv()  # the challenge; no hello follows
        writers += [w1, w2, w3]
        await asyncio.sleep(0.2)
        host.p.send_signal(sig)
        rc = await asyncio.to_thread(host.wait, 20)
        err = host.stderr()
        assert rc == 130, err
        assert "Traceback" not in err and "Exception" not in err, err
        assert err.strip().splitlines()[-1] == "splitnet: stopped", err
    finally:
        for w in writers:
            w.close()
        if host.p.poll() is None:
            host.kill()


@pytest.mark.slow
async def test_a_typo_or_a_wrong_code_asks_again(tmp_path: Path) -> None:
    """Typed at the prompt: a word that is not in the list is explained ("did you
    mean …?") and asked for again; a code the host refuses is asked for again too (the
    host's limit, 3 per address, still counts it); the third answer is right and the
    bot plays the game to its end."""
    host, port, code = await asyncio.to_thread(start_host, tmp_path, "Asker",
                                               "--seats", "2", "--no-announce")
    c = parse_code(code)
    typo = f"{c.number}-{c.first}-{c.second[:-1]}q"
    script = f"{typo}\n{other_code(code)}\n{code}\n"
    bot = PipedProc(tmp_path, "bot", script, "bot", f"127.0.0.1:{port}", "--name", "Ana",
                    "--data-dir", str(tmp_path / "p1"))
    try:
        for p in (host, bot):
            rc = await asyncio.to_thread(p.wait, TIMEOUT)
            assert rc == 0, p.stdout()[-1500:] + p.stderr()[-1500:]
        out = bot.stdout() + bot.stderr()
        assert "did you mean" in out and out.count("Type the join code again: ") == 2
        assert bot.stderr().count("wrong code:") == 1
        assert "Winner:" in bot.stdout()
        assert host.stderr().count("wrong code from 127.0.0.1") == 1
    finally:
        for p in (host, bot):
            if p.p.poll() is None:
                p.p.kill()


async def test_a_port_in_use_suggests_another(tmp_path: Path) -> None:
    """`splitnet host --port P` with P taken: one line naming the port and --port."""
    sock = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
    port = sock.sockets[0].getsockname()[1]
    try:
        p = Proc(tmp_path, "host", "host", "--port", str(port), "--bind", "127.0.0.1",
                 "--no-announce", "--plain", "--seats", "2", "--data-dir", str(tmp_path / "p0"))
        rc = await asyncio.to_thread(p.wait, 30)
        err = p.stderr().strip().splitlines()
        assert rc != 0 and len(err) == 1, err
        assert f"cannot listen on 127.0.0.1:{port}" in err[0] and "--port" in err[0]
        assert "Traceback" not in p.stderr()
    finally:
        sock.close()


# ---------------------------------------------------------------------- the same command again
def saved_join(data: Path, n: int, host: str, created: float, *, role: str = "peer",
               finished: bool = False) -> GameMeta:
    """A meta file as a joiner's node writes it when its game starts (NETWORK.md §9)."""
    m = GameMeta(game_id=f"{n:02x}" * 16, role=role, seat=n, name="Jo", host=host,
                 port=int(host.rsplit(":", 1)[1]), finished=finished, created=created,
                 code="7-lunar-anchor")
    GameFiles(data, m.gid).save_meta(m)
    return m


def test_the_join_command_run_again_resumes_the_one_unfinished_game(tmp_path: Path) -> None:
    """``splitnet join --name Jo`` browsed, picked 192.168.1.20:7521 and typed the code;
    killed. The same command again — or ``join 127.0.0.1``, or the exact address —
    resumes that game with its kept code, saying so in one line; ``--new`` does not.
    Finished games, a host's games and a wormhole guest's do not count."""
    data = tmp_path / "j"
    game = saved_join(data, 1, "192.168.1.20:7521", 200.0)
    saved_join(data, 2, "192.168.1.30:7420", 300.0, finished=True)
    saved_join(data, 3, "192.168.1.40:7420", 400.0, role="host")
    saved_join(data, 4, "wormhole:0", 500.0)
    games = [m for m in unfinished_games(data, "peer") if m.host != "wormhole:0"]
    assert games == [game]
    everyone = unfinished_games(data, "peer")
    for addr, target in ((None, "192.168.1.20:7521"), ("127.0.0.1", "127.0.0.1:7521"),
                         ("192.168.1.20:7521", "192.168.1.20:7521"),
                         ("localhost:7600", "localhost:7600")):
        choice = netrun.join_choice(addr, False, everyone)
        assert choice.meta == game and choice.addr == target, (addr, choice)
        assert choice.say.startswith(f"Resuming game {game.game_id} at {target}"), choice.say
        assert "\n" not in choice.say and "--new" in choice.say, choice.say
    for addr in (None, "127.0.0.1"):
        assert netrun.join_choice(addr, True, everyone) == netrun.JoinChoice(addr)
    assert netrun.join_choice(None, False, []) == netrun.JoinChoice(None)  # browse


def test_the_join_command_with_several_unfinished_games_asks_which(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Two unfinished games as a joiner: the same command asks which to resume (newest
    first, each with the command that resumes it); the exact address of one resumes it
    without asking; no answer (end of input) lists them and exits."""
    data = tmp_path / "j"
    old = saved_join(data, 1, "192.168.1.20:7521", 200.0)
    new = saved_join(data, 2, "10.0.0.7:7420", 300.0)
    games = unfinished_games(data, "peer")
    choice = netrun.join_choice(None, False, games)
    assert choice.meta is None and choice.several == [new, old]
    assert netrun.join_choice("10.0.0.7", False, games).meta == new  # its exact address
    answers = iter(["2"])
    monkeypatch.setattr("builtins.input", lambda prompt: print(prompt) or next(answers))
    picked = netrun.pick_unfinished(choice, data)
    out = capsys.readouterr().out
    assert picked is not None and picked.meta == old and picked.addr == old.host
    assert picked.say.startswith(f"Resuming game {old.game_id} at {old.host}")
    assert "splitnet join 10.0.0.7:7420" in out and "splitnet join 192.168.1.20:7521" in out
    assert out.index(new.game_id[:8]) < out.index(old.game_id[:8])  # newest first

    def no_input(prompt: str) -> str:
        raise EOFError

    monkeypatch.setattr("builtins.input", no_input)
    assert netrun.pick_unfinished(choice, data) is None
    assert "splitnet join 192.168.1.20:7521" in capsys.readouterr().out
    answers = iter(["n"])  # another game: look for one on the LAN
    monkeypatch.setattr("builtins.input", lambda prompt: next(answers))
    assert netrun.pick_unfinished(choice, data) == netrun.JoinChoice(None)


@pytest.mark.parametrize(("host", "saved"), [("127.0.0.1", "127.0.0.1"), ("::1", "[::1]")])
@virtual_time
async def test_a_joiner_saves_its_hosts_address_as_join_reads_it_back(
        tmp_path: Path, clock: VirtualLoop, host: str, saved: str) -> None:
    """The address a joiner keeps with its game is ``HOST:PORT`` as ``splitnet join``
    compares and parses it (an IPv6 host in brackets): so running the same command at
    that address again resumes the game ("the game joined at this very address"). It
    was saved without the brackets, which never matched."""
    from tests.test_attacks_net import Lan, net

    def make(seat: int, name: str, port: int, connect: object) -> PeerNode:
        return PeerNode(Identity.generate(), tmp_path / f"p{seat}", name, host, port,
                        net(), connect=connect)  # type: ignore[arg-type]
    lan = await Lan.start(tmp_path, make_peer=make)
    try:
        for seat in (1, 2):
            metas = unfinished_games(tmp_path / f"p{seat}", "peer")
            assert [m.host for m in metas] == [f"{saved}:{lan.host.port}"]
            choice = netrun.join_choice(f"{saved}:{lan.host.port}", False, metas)
            assert choice.meta == metas[0], choice
    finally:
        await lan.close()
