"""LAN discovery (protocol/DISCOVERY.md): announce and browse over mDNS.

Every test that announces or browses runs inside network namespaces it creates itself
(``@pytest.mark.netns``: a private loopback, see tests/conftest.py; or two namespaces
joined by a veth pair with 10.199.x.y/24 addresses that exist only there), so no other
splitnet game on the machine is seen and none of ours leaves the test.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import os
import secrets
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from zeroconf.asyncio import AsyncServiceInfo

from splitnet.net import discovery
from splitnet.net.discovery import (
    SERVICE_TYPE,
    BrowseEvent,
    GameBrowser,
    _parse,
    announce,
    browse,
    clean_text,
    list_games,
)

LOOPBACK = ["127.0.0.1"]
#: upper bound for any single expected event: generous, so that a loaded machine (a
#: process that takes seconds to start, a goodbye packet handled late) never fails a test
#: whose events all come; a passing test waits for the events, never for this
WAIT = 30.0


async def next_event(browser: GameBrowser, game: str, kinds: set[str]) -> BrowseEvent:
    """The next event of one of *kinds* for *game* (other games on lo are ignored)."""
    async with asyncio.timeout(WAIT):
        async for ev in browser:
            if ev.ad.game == game and ev.kind in kinds:
                return ev
    raise AssertionError(f"browsing ended before a {kinds} event for {game!r}")


@pytest.mark.netns
async def test_announce_browse_update_and_vanish_on_loopback() -> None:
    game = f"test-{secrets.token_hex(3)}"
    async with browse(None, interfaces=LOOPBACK) as browser:
        ann = await announce(game=game, host="Ana", port=7420, free=3, seats=4,
                             fingerprint="139e-3940-e64b-5491-7220", interfaces=LOOPBACK)
        try:
            ev = await next_event(browser, game, {"added"})
            ad = ev.ad
            assert (ad.game, ad.host, ad.free, ad.seats, ad.port) == (game, "Ana", 3, 4, 7420)
            assert ad.addresses == ("127.0.0.1",) and ad.target == "127.0.0.1:7420"
            assert ad.protocol == discovery.DEFAULT_PROTOCOL and ad.auth == discovery.AUTH
            assert ad.fingerprint == "139e-3940-e64b-5491-7220"
            assert "splitnet join 127.0.0.1:7420" in ad.describe()
            assert "3 seats free of 4" in ad.describe()
            await ann.update(free=2)
            ev = await next_event(browser, game, {"updated"})
            assert ev.ad.free == 2 and ann.free == 2
        finally:
            await ann.close()
        ev = await next_event(browser, game, {"removed"})
        assert ev.ad.game == game and ev.ad.name not in browser.games


@pytest.mark.netns
async def test_list_games_with_timeout() -> None:
    game = f"test-{secrets.token_hex(3)}"
    async with await announce(game=game, host="Bo", port=7421, free=1,
                              interfaces=LOOPBACK):
        games = await list_games(1.5, interfaces=LOOPBACK)
    mine = [g for g in games if g.game == game]
    assert len(mine) == 1 and mine[0].free == 1 and mine[0].seats is None


def test_announce_has_no_place_for_a_code() -> None:
    params = set(inspect.signature(announce).parameters)
    assert not {p for p in params if "code" in p or "secret" in p or "pass" in p}
    props = discovery._txt("g", "h", 1, 2, "p", "fp")
    assert set(props) == {"txtvers", "proto", "game", "host", "free", "auth", "seats", "fp"}
    assert discovery._txt("g", "h", 1, 2, "p", "fp", "splito")["kind"] == "splito"


def _info(props: dict[bytes, bytes | None], port: int = 7420) -> AsyncServiceInfo:
    return AsyncServiceInfo(SERVICE_TYPE, f"x.{SERVICE_TYPE}", port=port, properties=props,
                            server="x.local.", addresses=[bytes([10, 0, 0, 1])])


def test_hostile_announcements_are_cleaned_or_skipped() -> None:
    base = {b"txtvers": b"1", b"proto": b"splitnet-net/1", b"free": b"2", b"host": b"Ana",
            b"game": b"\x1b[2J\x1b]0;pwned\x07Evil" + b"x" * 200}
    ad = _parse(f"x.{SERVICE_TYPE}", _info(base))
    assert ad is not None and "\x1b" not in ad.game and "\x07" not in ad.game
    assert len(ad.game) <= discovery.MAX_TEXT and ad.game.startswith("␛[2J␛]0;pwned␇Evil")
    assert _parse("x", _info({**base, b"txtvers": b"2"})) is None
    assert _parse("x", _info({**base, b"free": b"many"})) is None
    assert _parse("x", _info({**base, b"free": b"-1"})) is None
    assert _parse("x", _info({**base, b"free": b"99"})) is None
    assert _parse("x", _info({**base, b"seats": b"x"})) is None
    assert _parse("x", _info({**base, b"game": b"\xff\xfe"})) is not None  # bad UTF-8: shown
    assert clean_text("a\u202eb\u200bc") == "a\ufffdb\ufffdc"  # bidi override, zero-width space


def test_an_announcement_names_its_game_kind_cleaned() -> None:
    base = {b"txtvers": b"1", b"proto": discovery.DEFAULT_PROTOCOL.encode(), b"free": b"2",
            b"host": b"Ana", b"game": b"Ana's game"}
    split = _parse(f"x.{SERVICE_TYPE}", _info(base))
    assert split is not None and split.kind is None and "(" not in split.describe()
    ad = _parse(f"x.{SERVICE_TYPE}", _info({**base, b"kind": b"splito"}))
    assert ad is not None and ad.kind == "splito"
    assert ad.describe().startswith("Ana's game (Splito) — host Ana, 2 seats free")
    evil = _parse(f"x.{SERVICE_TYPE}", _info({**base, b"kind": b"\x1b[2Jsplito" + b"y" * 40}))
    assert evil is not None and evil.kind is not None
    assert "\x1b" not in evil.describe() and len(evil.kind) <= discovery.MAX_KIND


def test_instance_label_fits_a_dns_label() -> None:
    label = discovery._instance_label("ü" * 50 + ".game", "host.name")
    assert len(label.encode()) <= 63 and "." not in label


async def test_browser_must_be_started() -> None:
    with pytest.raises(RuntimeError):
        await GameBrowser().__anext__()
    with pytest.raises(ValueError):
        await announce(game="g", host="h", port=0, free=1)


# ------------------------------------------------------------------ two namespaces

NS_HOST = textwrap.dedent("""
    import asyncio, json, sys
    from splitnet.net.discovery import announce
    from splitnet.net.secure import secure_server_handshake

    CODE, GAME = sys.argv[1], sys.argv[2]

    async def handle(r, w):
        try:
            ch = await secure_server_handshake(r, w, CODE)
            await ch.send(b"pong:" + await ch.recv())
            ch.close()
        except Exception as e:
            print(json.dumps({"host_error": repr(e)}), flush=True)

    async def main():
        server = await asyncio.start_server(handle, "0.0.0.0", 0)
        port = server.sockets[0].getsockname()[1]
        ann = await announce(game=GAME, host="nshost", port=port, free=3)
        print(json.dumps({"ready": port}), flush=True)
        loop = asyncio.get_running_loop()
        try:
            await asyncio.wait_for(loop.run_in_executor(None, sys.stdin.read), 25)
        finally:
            await ann.close()
            server.close()
        print(json.dumps({"stopped": True}), flush=True)

    asyncio.run(main())
""")

NS_BROWSER = textwrap.dedent("""
    import asyncio, json, sys
    from splitnet.net.discovery import browse
    from splitnet.net.secure import secure_client_handshake

    CODE, GAME = sys.argv[1], sys.argv[2]

    async def main():
        async with browse(25) as browser:
            async for ev in browser:
                if ev.ad.game != GAME:
                    continue
                out = {"event": ev.kind, "target": ev.ad.target, "free": ev.ad.free}
                if ev.kind == "added":
                    addr, port = ev.ad.target.rsplit(":", 1)
                    r, w = await asyncio.open_connection(addr, int(port))
                    ch = await secure_client_handshake(r, w, CODE)
                    await ch.send(b"ping")
                    out["reply"] = (await ch.recv()).decode()
                    out["words"] = ch.verification
                    ch.close()
                print(json.dumps(out), flush=True)
                if ev.kind == "removed":
                    return

    asyncio.run(main())
""")


@dataclass
class Netns:
    host: str
    browser: str
    host_ip: str
    browser_ip: str


def _ip(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["ip", *args], capture_output=True, text=True, timeout=10)


@pytest.fixture
def netns() -> Iterator[Netns]:
    if not sys.platform.startswith("linux"):
        pytest.skip("network namespaces are a Linux feature")
    if os.geteuid() != 0:
        pytest.skip("creating network namespaces needs root")
    if shutil.which("ip") is None:
        pytest.skip("the 'ip' command (iproute2) is not installed")
    tag = f"{os.getpid() % 100000}"
    subnet = 1 + os.getpid() % 250
    ns = Netns(f"sntest-h{tag}", f"sntest-b{tag}", f"10.199.{subnet}.1", f"10.199.{subnet}.2")
    veth_h, veth_b = f"snh{tag}", f"snb{tag}"

    def cleanup() -> None:
        for name in (ns.host, ns.browser):
            _ip("netns", "del", name)  # takes the veth ends (and their addresses) along

    cleanup()
    probe = _ip("netns", "add", ns.host)
    if probe.returncode != 0:
        pytest.skip(f"'ip netns add' is not available here: {probe.stderr.strip()}")
    try:
        steps = [
            ("netns", "add", ns.browser),
            ("link", "add", veth_h, "type", "veth", "peer", "name", veth_b),
            ("link", "set", veth_h, "netns", ns.host),
            ("link", "set", veth_b, "netns", ns.browser),
            ("-n", ns.host, "addr", "add", f"{ns.host_ip}/24", "dev", veth_h),
            ("-n", ns.browser, "addr", "add", f"{ns.browser_ip}/24", "dev", veth_b),
            ("-n", ns.host, "link", "set", veth_h, "up"),
            ("-n", ns.browser, "link", "set", veth_b, "up"),
            ("-n", ns.host, "link", "set", "lo", "up"),
            ("-n", ns.browser, "link", "set", "lo", "up"),
        ]
        for step in steps:
            res = _ip(*step)
            if res.returncode != 0:
                pytest.skip(f"could not set up namespaces: ip {' '.join(step)}: "
                            f"{res.stderr.strip()}")
        yield ns
    finally:
        cleanup()


async def _read_json(stream: asyncio.StreamReader, what: str) -> dict[str, object]:
    async with asyncio.timeout(WAIT + 5):
        while True:
            line = await stream.readline()
            if not line:
                raise AssertionError(f"process ended while waiting for {what}")
            if line.startswith(b"{"):
                obj: dict[str, object] = json.loads(line)
                return obj


async def test_across_two_network_namespaces(netns: Netns) -> None:
    code, game = "9-velvet-comet", f"ns-{secrets.token_hex(3)}"
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}

    async def spawn(ns: str, script: str) -> asyncio.subprocess.Process:
        return await asyncio.create_subprocess_exec(
            "ip", "netns", "exec", ns, sys.executable, "-c", script, code, game,
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE, env=env)

    host = await spawn(netns.host, NS_HOST)
    browser: asyncio.subprocess.Process | None = None
    try:
        assert host.stdout is not None and host.stdin is not None
        ready = await _read_json(host.stdout, "the host to announce")
        port = ready["ready"]
        browser = await spawn(netns.browser, NS_BROWSER)
        assert browser.stdout is not None
        added = await _read_json(browser.stdout, "the game to appear")
        assert added["event"] == "added"
        assert added["target"] == f"{netns.host_ip}:{port}" and added["free"] == 3
        assert added["reply"] == "pong:ping"  # joined with the code, across the veth
        assert isinstance(added["words"], str) and added["words"].count("-") == 3
        host.stdin.close()  # the host stops: goodbye packets
        removed = await _read_json(browser.stdout, "the game to vanish")
        assert removed["event"] == "removed" and removed["target"] == added["target"]
        assert await asyncio.wait_for(browser.wait(), WAIT) == 0
        assert await asyncio.wait_for(host.wait(), WAIT) == 0
    finally:
        for proc in (host, browser):
            if proc is not None and proc.returncode is None:
                proc.kill()
                await proc.wait()


# ------------------------------------------------------------------ splitnet browse


async def _cli(*args: str) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable, "-m", "splitnet.cli", "browse", "--interface", "127.0.0.1", *args,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)


@pytest.mark.netns
async def test_cli_browse_with_timeout_lists_and_exits() -> None:
    game = f"cli-{secrets.token_hex(3)}"
    async with await announce(game=game, host="Cy", port=7422, free=2, seats=3,
                              interfaces=LOOPBACK):
        proc = await _cli("--timeout", "2")
        out, err = await asyncio.wait_for(proc.communicate(), WAIT + 5)
    assert proc.returncode == 0, err
    text = out.decode()
    assert f"{game} — host Cy, 2 seats free of 3 — splitnet join 127.0.0.1:7422" in text


@pytest.mark.netns
async def test_cli_browse_follows_games_until_interrupted() -> None:
    import signal

    game = f"cli-{secrets.token_hex(3)}"
    proc = await _cli()
    assert proc.stdout is not None
    try:
        async def line_with(needle: str) -> str:
            async with asyncio.timeout(WAIT):
                while True:
                    line = (await proc.stdout.readline()).decode()  # type: ignore[union-attr]
                    assert line, "splitnet browse ended early"
                    if needle in line:
                        return line

        await line_with("Looking for splitnet games")
        ann = await announce(game=game, host="Di", port=7423, free=1, interfaces=LOOPBACK)
        try:
            assert (await line_with(game)).startswith(f"+ {game} — host Di, 1 seat free")
        finally:
            await ann.close()
        assert (await line_with(game)).strip() == f"- {game} (host Di) is gone"
        proc.send_signal(signal.SIGINT)
        assert await asyncio.wait_for(proc.wait(), WAIT) in (0, 130)
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()


def test_a_watchable_game_says_so_and_a_game_being_played_offers_no_seat() -> None:
    """``watch`` (watcher places free) and ``state`` ``playing`` (DISCOVERY.md): a
    browser shows where to watch, and a game being played as a game to watch, never to
    join; a malformed ``watch`` is as if not said (no watching offered), never a crash."""
    assert discovery._txt("g", "h", 1, 2, "p", "fp", watch=3)["watch"] == "3"
    assert "state" not in discovery._txt("g", "h", 1, 2, "p", "fp")
    assert discovery._txt("g", "h", 0, 2, "p", "fp", watch=0, playing=True)["state"] == \
        "playing"
    base = {b"txtvers": b"1", b"proto": discovery.DEFAULT_PROTOCOL.encode(), b"free": b"2",
            b"seats": b"4", b"host": b"Ana", b"game": b"Ana's game"}
    lobby = _parse(f"x.{SERVICE_TYPE}", _info({**base, b"watch": b"4"}))
    assert lobby is not None and lobby.watch == 4 and not lobby.playing
    assert lobby.describe() == ("Ana's game — host Ana, 2 seats free of 4 — splitnet join "
                                "10.0.0.1:7420 — watch it (4 places free): splitnet watch "
                                "10.0.0.1:7420")
    on = _parse(f"x.{SERVICE_TYPE}", _info({**base, b"free": b"0", b"watch": b"1",
                                            b"state": b"playing"}))
    assert on is not None and on.playing and on.watch == 1
    assert on.describe() == ("Ana's game — host Ana, playing — watch it (1 place free): "
                             "splitnet watch 10.0.0.1:7420")
    assert "splitnet join" not in on.describe()
    for bad in (b"-1", b"65", b"many", b"\xd9\xa3", b""):  # (an Arabic-Indic 3 too)
        ad = _parse(f"x.{SERVICE_TYPE}", _info({**base, b"watch": bad}))
        assert ad is not None and ad.watch is None and "watch" not in ad.describe(), bad
    plain = _parse(f"x.{SERVICE_TYPE}", _info(base))
    assert plain is not None and plain.watch is None and "watch" not in plain.describe()


class _Ad:
    """What the announcer reads back of its announcement, and each update it made."""

    def __init__(self, free: int, watch: int | None, playing: bool) -> None:
        self.free, self.watch, self.playing = free, watch, playing
        self.name = f"x.{SERVICE_TYPE}"
        self.updates: list[tuple[int, int | None, bool]] = []
        self.closed = False

    async def update(self, *, free: int, watch: int | None, playing: bool) -> None:
        self.free, self.watch, self.playing = free, watch, playing
        self.updates.append((free, watch, playing))

    async def close(self) -> None:
        self.closed = True


@pytest.mark.parametrize("watchers", [2, 0])
async def test_a_watchable_game_stays_announced_as_playing_until_it_is_over(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, watchers: int) -> None:
    """The host's announcer: in the lobby the seats and watcher places; when the game
    starts, a host that takes watchers goes on announcing it as playing (no seat free,
    its watcher places kept up to date) until the game is over, then withdraws it; one
    with ``--no-watchers`` withdraws it at the start, as before."""
    from splitnet.app.lan_discovery import _Announcer
    from splitnet.net.config import NetSettings
    from splitnet.net.host import HostNode
    from splitnet.session.identity import Identity

    ads: list[_Ad] = []

    async def fake_announce(**kw: object) -> _Ad:
        ad = _Ad(int(kw["free"]), kw["watch"], bool(kw["playing"]))  # type: ignore[call-overload, arg-type]
        ads.append(ad)
        return ad

    monkeypatch.setattr(discovery, "announce", fake_announce)
    node = HostNode(Identity.generate(), tmp_path, "Host", NetSettings(), seats=3,
                    proofs=False)
    node.watchers.desk.limit = watchers
    ann = _Announcer(node, "Host", 7420, "127.0.0.1", "f")
    ann.start()

    async def settle() -> None:
        for _ in range(20):
            await asyncio.sleep(0)

    await settle()
    (ad,) = ads
    assert (ad.free, ad.watch, ad.playing) == (2, watchers or None, False)
    node.started.set()
    node._changed()
    await settle()
    if watchers:
        assert not ad.closed and ad.updates[-1] == (0, 2, True)
        node.done.set()
        node._changed()
        await settle()
    assert ad.closed
    await ann.close()
