"""Attacks on internet watching (NETWORK.md §14.8-9, SECURE.md §12) and on the spectator
table, each written as the malicious variant against the real code path, in process on
the in-memory network with a virtual clock:

- one watch invitation's holder cannot spend the watchers' wrong-code limits: whatever
  fails on its wormhole (a JOIN under the join code nobody holds, a WATCH JOIN under a
  wrong key) is counted on that wormhole alone, never against the game's watchers on
  the LAN or through the other watch invitations (SECURITY.md, the watch invitation's
  own limits, row 149);
- watchers churning the watch invitation never touch the players' resume secrets:
  ``MAX_CHAINS`` bounds each kind of invitation in its own file (row 151);
- nothing a peer chose names a file the watcher writes, and every one is private
  (row 152);
- a host's reasons (a refused frame's, a ``bye``'s, a fatal error's) reach the
  watcher's lines shown, never obeyed (row 153);
- a file another host planted under a game's id is named, with what to do (row 154).

(The spectator table that cannot be drawn, row 150, is in tests/test_watch_tui.py.)
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import itertools
import re
import stat
from pathlib import Path
from typing import Any

import pytest

from splitnet.net import wormhole
from splitnet.net.config import NetSettings
from splitnet.net.joincode import parse_code
from splitnet.net.links import node_wrap
from splitnet.net.secure import AttemptLimiter
from splitnet.net.secure_watch import WatchGate
from splitnet.net.watcher import WatchFatal, WatchNode, watch_wrap
from splitnet.net.wire import Channel, WireError
from splitnet.session.identity import Identity
from tests.memnet import MemoryNet
from tests.test_net_timing import stop
from tests.test_watch_mem import CODE, WATCH
from tests.test_watch_pin import internet_host
from tests.virtual_time import VirtualLoop, virtual_time

D = NetSettings()


def through_wormhole(ch: Channel) -> Channel:
    """The host's side of a connection from ``10.9.9.K`` as a watch invitation's
    wormhole K hands it over (``watch_only``, its own agreed key); any other address
    is a LAN connection."""
    peer = ch.peer.rsplit(":", 1)[0]
    if peer.startswith("10.9.9."):
        ch.password = key_of(int(peer.rsplit(".", 1)[1]))  # type: ignore[attr-defined]
        ch.watch_only = True  # type: ignore[attr-defined]
    return ch


def key_of(k: int) -> bytes:
    return bytes([k]) * 32


@virtual_time
async def test_one_watch_invitation_cannot_shut_the_game_s_watchers_out(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """Mallory holds one watch invitation. Through its wormhole she sends JOINs (under
    the join code nobody holds: each one certainly wrong) and WATCH JOINs under a wrong
    key, three every ten minutes, for an hour and more — twenty-one failures, past the
    watchers' ``per_game`` (20). Not one of them guessed anything anybody else holds
    (each wormhole's key is its own), so none is counted against the others: a LAN
    watcher with the watch code and a watcher through another watch invitation still
    get in; Mallory's wormhole is refused once its own limits are spent."""
    mem = MemoryNet()
    limiter, watch_limiter = AttemptLimiter(clock=clock.time), AttemptLimiter(clock=clock.time)
    host, connect = await internet_host(
        tmp_path, mem, through_wormhole, limiter, watch_limiter,
        node_wrap(parse_code(CODE), D, limiter=limiter,
                  watch=WatchGate(parse_code(WATCH), watch_limiter)))

    mallory = connect("10.9.9.1")  # her one watch invitation
    me = Identity.generate()
    reasons: list[str] = []
    for batch in range(7):
        for attempt in range(3):
            raw = await mallory()
            if (batch + attempt) % 2:
                what = node_wrap(key_of(1), D, identity=me)(raw, "client")  # a seat
            else:
                what = watch_wrap(b"\xff" * 32, D)(raw, "client")  # a wrong key
            with pytest.raises(WireError) as e:
                await clock.run_until(what, within=10.0)
            reasons.append(e.value.reason)
            raw.close()
        await clock.run_until(asyncio.sleep(601.0), within=700.0)
    assert all(r.startswith(("wrong code", "wrong watch code")) for r in reasons[:20])
    assert "refuses more watch attempts" in reasons[20]  # (her wormhole's own limits)
    assert limiter.failures == 0  # (never the players')

    cy = WatchNode(tmp_path / "cy", "Cy", connect("127.0.0.1"),
                   wrap=watch_wrap(parse_code(WATCH), D), net=D)
    cy.start()
    await clock.until(lambda: host.watchers.count == 1 or cy.task is None or cy.task.done(),
                      "Cy watching or refused", within=20.0)
    di = WatchNode(tmp_path / "di", "Di", connect("10.9.9.2"), wrap=watch_wrap(key_of(2), D),
                   net=D)
    di.start()
    await clock.until(lambda: host.watchers.count == 2 or di.task is None or di.task.done(),
                      "Di watching or refused", within=20.0)
    for node in (cy, di):
        assert node.task is not None and not node.task.done(), node.task.exception()
    assert host.watchers.count == 2
    cy.stop()
    di.stop()
    await stop(clock, host, [], mem)


# ------------------------------------- the host's resume secrets of watch invitations
class _Deferred:
    """A Twisted Deferred as the wormhole module reads one (``asFuture``)."""

    def __init__(self, value: Any = None, *, never: bool = False) -> None:
        self.value, self.never = value, never
        self.fut: asyncio.Future[Any] | None = None

    def asFuture(self, loop: asyncio.AbstractEventLoop) -> asyncio.Future[Any]:
        self.fut = loop.create_future()
        if not self.never:
            self.fut.set_result(self.value)
        return self.fut


class _Mailbox:
    """Stands for the mailbox server: every wormhole the host opens is listed; a test
    makes one's PAKE complete (:meth:`claim`, a guest with its code)."""

    def __init__(self) -> None:
        self.made: list[_FakeWormhole] = []
        self.codes = itertools.count(1)

    async def create(self, settings: Any, on_status: Any = None, names: Any = None) -> Any:
        w = _FakeWormhole(self)
        self.made.append(w)
        return w

    def open_invitation(self, code: str) -> _FakeWormhole | None:
        """The wormhole of this code whose PAKE is awaited, if any."""
        return next((w for w in self.made if w.code == code and w.verifier.fut is not None
                     and not w.verifier.fut.done()), None)


class _FakeWormhole:
    def __init__(self, box: _Mailbox) -> None:
        self.box = box
        self.code: str | None = None
        self.verifier = _Deferred(never=True)
        self.key = next(box.codes).to_bytes(32, "big")  # (each wormhole's own)

    def allocate_code(self) -> None:
        self.code = f"{next(self.box.codes)}-invitation"

    def set_code(self, code: str) -> None:
        self.code = code

    def get_code(self) -> _Deferred:
        return _Deferred(self.code)

    def get_verifier(self) -> _Deferred:
        return self.verifier

    def get_unverified_key(self) -> _Deferred:
        return _Deferred(never=True)

    def derive_key(self, purpose: str, n: int) -> bytes:
        return hashlib.sha256(self.key + purpose.encode()).digest()[:n]

    def dilate(self, **kw: Any) -> Any:
        listener = type("L", (), {"listen": lambda _s, _f: _Deferred()})()
        return type("E", (), {"listener_for": lambda _s, _p: listener})()

    def close(self) -> _Deferred:
        return _Deferred()

    def claim(self) -> None:
        assert self.verifier.fut is not None
        self.verifier.fut.set_result(b"verifier")


@virtual_time
async def test_watchers_churning_watch_invitations_never_touch_the_players_resume_secrets(
        tmp_path: Path, clock: VirtualLoop, monkeypatch: pytest.MonkeyPatch) -> None:
    """The host's resume secrets are kept per kind of invitation: ``MAX_CHAINS`` (12)
    bounds each ``Invitations`` of its own, in its own file. A player claimed a join
    invitation (and left: no connection through it); then thirteen watchers claim the
    watch invitation one after the other and leave. The player's resume secret, in
    ``GAME_ID.wormhole``, is untouched — the host still waits for it on its resume
    codes; the watchers' file ``GAME_ID.watch.wormhole`` holds twelve, the first
    watcher's dropped (that watcher, killed now, would need a fresh watch invitation)."""
    from splitnet.app.lan_invite import watch_resume_path
    from splitnet.net.store import MAX_CHAINS, GameFiles, ResumeFile

    box = _Mailbox()
    monkeypatch.setattr(wormhole, "_create", box.create)
    files = GameFiles(tmp_path, bytes(16))

    async def accept(ch: Channel) -> None:
        raise AssertionError("no connection comes in this test")

    def invitations(path: Path, watch: bool) -> wormhole.Invitations:
        return wormhole.Invitations(wormhole.WormholeSettings(), accept, lambda code: None,
                                    lambda: 1, resume=ResumeFile(path), watch=watch,
                                    release_after=1.0)

    players = invitations(files.wormhole, False)
    watchers = invitations(watch_resume_path(files), True)
    players.refresh()
    watchers.refresh()
    def open_of(invs: wormhole.Invitations) -> _FakeWormhole | None:
        code = next((i.code for i in invs.open if i.code), None)
        return box.open_invitation(code) if code is not None else None

    await clock.until(lambda: open_of(players) is not None, "an invitation", within=5)
    first = open_of(players)
    assert first is not None
    first.claim()
    await clock.until(lambda: len(players.chains) == 1, "the player's chain", within=5)
    player_chain = players.chains[0]
    player_file = files.wormhole.read_bytes()
    firsts = []
    for _ in range(MAX_CHAINS + 1):
        await clock.until(lambda: open_of(watchers) is not None, "a watch invitation", within=10)
        w = open_of(watchers)
        assert w is not None
        w.claim()
        await clock.until(lambda: bool(watchers.claimed), "claimed", within=5)
        firsts.append(watchers.claimed[-1].chain)
        await clock.until(lambda: not watchers.claimed, "the watcher left", within=5)
    assert players.chains == [player_chain] and files.wormhole.read_bytes() == player_file
    assert any(i.chain is player_chain for i in players.resuming)  # still waited for
    assert len(watchers.chains) == MAX_CHAINS and firsts[0] not in watchers.chains
    assert len(ResumeFile(watch_resume_path(files)).load()) == MAX_CHAINS
    await players.close()
    await watchers.close()


# ------------------------------------------------------------------- the watcher's files
def test_no_peer_chooses_where_a_watcher_writes_and_everything_is_private(
        tmp_path: Path) -> None:
    """The watcher's files: the transcript is named by the game id's hex digits (16
    bytes by the wire's schema, whatever the host sends), the watch invitation's resume
    file by a hash of the code the person typed (never the code itself: a code holding
    ``../`` or a control character stays a file in ``watched/``); the directory is 0700,
    every file 0600."""
    from splitnet.app.lan_watch import watch_invitation_file
    from splitnet.net.store import ResumeChain
    from tests.test_watch_pin import a_game, showing, watch_at

    g, records = a_game()
    data = tmp_path / "w"

    async def main() -> None:
        node, err = await watch_at(data, showing(g.host, None, records))
        assert err is None and node.over and node.path is not None
        assert node.path == data / "watched" / f"{g.log.game_id.hex()}.splitlog"

    asyncio.run(main())
    climb = "/".join([".."] * 3) + "/etc/x"  # (spelt so: no document names such a path)
    for code in (climb, "7-a\x1b]0;x\x07/..", "7-crossover-clockwork"):
        f = watch_invitation_file(data, code)
        assert f.path.parent == data / "watched"
        assert re.fullmatch(r"invite-[0-9a-f]{32}\.wormhole", f.path.name)
        f.save([ResumeChain(bytes(32), 0)])
    assert stat.S_IMODE((data / "watched").stat().st_mode) == 0o700
    for p in (data / "watched").iterdir():
        assert stat.S_IMODE(p.stat().st_mode) == 0o600, p
    assert len(list((data / "watched").iterdir())) == 4


# ------------------------------------------------- a host's words on the watcher's output
@pytest.mark.parametrize("fatal", [False, True])
def test_a_host_s_reasons_reach_the_watcher_s_lines_shown_never_obeyed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        fatal: bool) -> None:
    """Everything the host chose and the watcher prints — a refused frame's reason, a
    ``bye``'s, a fatal error's (500 characters of terminal commands) — goes through
    ``shown``: ``splitnet watch --plain`` prints no control character, whichever way the
    watch ends."""
    import argparse

    from splitnet.app import lan_watch
    from splitnet.net.frames import Bye, Challenge, HostError, Rec, Welcome
    from splitnet.net.wire import NET_PROTOCOL, decode_frame, encode_typed, plain, sign_challenge
    from tests.test_watch_pin import a_game

    g, records = a_game()
    evil = "\x1b]0;owned\x07\x1b[2J\r\x08" * 30

    async def serve(ch: Any) -> None:
        nonce = bytes(32)
        ch.send(encode_typed(Challenge(NET_PROTOCOL, nonce, g.host.public_key_bytes(), None,
                                       None, sign_challenge(g.host, nonce, None, None))))
        decode_frame(await ch.recv(), from_host=False)
        ch.send(encode_typed(Welcome(None, g.log.game_id, len(records), True)))
        for seq in range(10):
            ch.send(encode_typed(Rec(seq, records[seq])))
        ch.send(encode_typed(HostError("protocol", evil[:500], False, None, None, None)))
        ch.send(encode_typed(HostError("auth", evil[:500], True, None, None, None) if fatal
                             else Bye(evil[:200])))
        with contextlib.suppress(Exception):
            while True:
                await ch.recv()

    async def main() -> int:
        mem = MemoryNet()
        _, port = await mem.listen(serve, "127.0.0.1", 0)
        monkeypatch.setattr(lan_watch, "tcp_connect",
                            lambda host, p, net: mem.connector("127.0.0.1", port))
        monkeypatch.setattr(lan_watch, "watch_wrap", lambda code, net: plain)
        args = argparse.Namespace(addr="127.0.0.1:9", code="9-comet-tiger", name="Cy",
                                  plain=True, data_dir=str(tmp_path / "w"), net_timing=None,
                                  host_key=None)
        try:
            return await asyncio.wait_for(lan_watch.watch_main(args), 30)
        finally:
            await mem.close()

    rc = asyncio.run(main())
    out = capsys.readouterr()
    assert rc != 0 and "owned" in out.out + out.err
    for text in (out.out, out.err):
        assert all(c.isprintable() or c == "\n" for c in text), repr(text[:200])


def test_a_file_another_host_planted_under_a_game_s_id_is_named_with_what_to_do(
        tmp_path: Path) -> None:
    """Game ids are public: a host the watcher once watched shows it a game of its own
    under the id of another host's game, and the watcher files it there. When the watcher
    then watches the real game, the file's header names another host: it stops — the
    file is kept, unchanged — and the line names the file and says to move it away
    (it said only that a header names another host)."""
    from splitnet.session.log import Log, Player
    from tests.test_watch_pin import a_game, showing, watch_at

    g, records = a_game()
    gid = g.log.game_id
    mallory = Identity.generate()
    players = [Player(0, "Mallory", mallory.public_key_bytes()),
               Player(1, "Bo", Identity.generate().public_key_bytes())]
    planted, _ = Log.start(mallory, game_id=gid, host_seat=0, players=players,
                           settings=dict(g.log.header.settings))
    data = tmp_path / "w"

    async def main() -> None:
        node, err = await watch_at(data, showing(mallory, None, planted.records()))
        assert err is None and node.path is not None
        saved = node.path.read_bytes()
        node, err = await watch_at(data, showing(g.host, gid, records))
        assert isinstance(err, WatchFatal), err
        assert "names another host" in str(err) and str(node.path) in str(err)
        assert "move that file away" in str(err)
        assert node.path is not None and node.path.read_bytes() == saved

    asyncio.run(main())
