"""The host's side of watching (protocol/NETWORK.md §14.10–§14.12), in process on the
in-memory network and virtual time (tests/memnet.py, tests/virtual_time.py):

- every seat's lobby and table, plain and full screen, show who watches ("2 watching
  (Cy, Di)"), from the host's ``watching`` frame — informational only;
- a lying host's ``watching`` frames — thousands of them, a huge count, control
  characters in names, more names than watchers, some in the middle of the handshake —
  change nothing but that line, which is redrawn at most every few seconds;
- the host removes a watcher from its lobby: the watcher is told so and closed, is not
  let back in from its address during the game, and does not reconnect;
- the host's list of departed watchers is bounded; closing the host ends every
  watcher's handler, also one owed the end of the log that pings and never reads;
- a watched game and its rematch: the watcher of the first game is told to run its
  command again for the rematch, a watcher of the rematch follows it, both transcripts
  verify and the pair passes ``splitnet verify FIRST SECOND``;
- the players' records are relayed with no extra (virtual) delay while 32 hostile watch
  attempts run: wrong codes, half-open connections, slow readers.
"""

from __future__ import annotations

import asyncio
import io
from pathlib import Path
from typing import Any

import pytest

from splitnet.net.frames import HostError, Ping, Watching
from splitnet.net.host import HostNode
from splitnet.net.host_conn import Conn
from splitnet.net.peer import MAX_BAD_FRAME_LINES
from splitnet.net.watcher import WatchFatal
from splitnet.net.watchers import MAX_LEFT
from splitnet.net.watching import WatchingBoard, watching_line
from splitnet.net.wire import (
    MAX_WATCHING,
    NET_PROTOCOL,
    ChannelClosed,
    ErrorCode,
    decode_frame,
    encode_typed,
)
from splitnet.session.codec import encode
from splitnet.ui.lobby import HostLobby, JoinLobby, plain_lobby
from splitnet.ui.plain_io import PlainTerminal
from splitnet.ui.tui.lobby import LobbyScreen
from tests.test_watch_mem import Table, frames_until, raw_watcher, spend_watch_codes
from tests.virtual_time import VirtualLoop, virtual_time

pytestmark = pytest.mark.usefixtures("each_shuffle_proof_checked_once")


def raw(t: str, **fields: Any) -> bytes:
    """A frame's payload as a lying host may send it: no schema check on the way out."""
    return encode({"t": t, **fields})


async def in_lobby(t: Table, *names: str) -> list[Any]:
    """These joiners started and in the lobby."""
    return await seated(t, *names, playing=False)


async def seated(t: Table, *names: str, playing: bool = True) -> list[Any]:
    """These joiners started; with ``playing``, the game under way (the lobby full) and
    every joiner in sync, else each of them in the lobby."""
    peers = [t.joiner(n) for n in names]
    for p in peers:
        p.start()
    if not playing:
        await t.clock.until(lambda: {m.name for m in t.host.members} >= set(names),
                            "joiners in the lobby", within=10.0)
        return peers
    await t.clock.run_until(t.host.started.wait(), within=10.0)
    await t.clock.until(lambda: all(p.ready for p in t.peers), "joiners in sync",
                        within=10.0)
    return peers


# ---------------------------------------------------------------------- who watches
@virtual_time
async def test_every_seat_sees_who_watches_in_the_lobby_and_at_the_table(
        tmp_path: Path, clock: VirtualLoop) -> None:
    t = Table(tmp_path, clock, splito=False)
    await t.open()
    (ana,) = await in_lobby(t, "Ana")
    assert ana.watching_status() == "" and not any("watching" in x for x in JoinLobby(ana).info)
    cy, _ = t.watcher("Cy")
    cy.start()
    await clock.until(lambda: ana.watching_status() == "1 watching (Cy)", "Ana told",
                      within=5.0)
    assert "1 watching (Cy)" in JoinLobby(ana).info  # the joiner's lobby (both screens)
    assert "1 watching (Cy)" in HostLobby(t.host, "addr").info  # the host's
    (bo,) = await seated(t, "Bo")
    # Bo came in after Cy: the host told him too
    await clock.until(lambda: bo.watching_status() == "1 watching (Cy)", "Bo told",
                      within=5.0)
    sessions = t.sessions()
    for s in sessions:  # the table: the status line's notes, on every seat, host's too
        assert "1 watching (Cy)" in s._seat_notes() and s.watching == "1 watching (Cy)"
    di, _ = t.watcher("Di")
    di.start()
    await clock.until(lambda: all(p.watching_status() == "2 watching (Cy, Di)"
                                  for p in t.peers), "both told of Di", within=5.0)
    s = sessions[1]
    s._refresh()
    assert "2 watching (Cy, Di)" in s._seat_notes()
    cy.stop()
    await clock.until(lambda: all(p.watching_status() == "1 watching (Di)" for p in t.peers),
                      "Cy gone", within=10.0)
    # never part of the log: the records are the game's alone
    table = t.host.table
    assert table is not None
    assert all(b"watching" not in r for r in table.log.records())
    await t.stop()


def test_the_plain_table_says_who_watches_when_it_changed_once_a_turn() -> None:
    class Seat:
        def __init__(self) -> None:
            self.log: list[str] = []
            self.watching = ""

        def subscribe(self, cb: Any) -> None:
            pass

    async def main() -> str:
        seat, out = Seat(), io.StringIO()
        term = PlainTerminal(seat, io.StringIO(), out)  # type: ignore[arg-type]
        term.say_watching()  # nobody, as before: nothing said
        seat.watching = "2 watching (Cy, Di)"
        term.say_watching()
        term.say_watching()  # the next turn, unchanged: nothing more
        seat.watching = ""
        term.say_watching()
        return out.getvalue()

    assert asyncio.run(main()).splitlines() == ["2 watching (Cy, Di)", "Nobody watches now."]


def test_the_watching_line_and_board_bound_what_a_host_can_make_a_screen_show() -> None:
    assert watching_line(0, []) == ""
    assert watching_line(12, ["Cy", "Di"]) == "12 watching (Cy, Di and 10 more)"
    assert "\x1b" not in watching_line(1, ["\x1b[2Jgone"])  # (shown, if one got through)
    b = WatchingBoard(gap=2.0)
    shown = [b.heard(k % 7, (), now=k / 1000) for k in range(5000)]  # 5000 in 5 s
    assert b.changes <= 1 + 5 / 2 + 1
    assert shown.count(0.0) <= 3
    assert b.heard(2, ("Cy", "Di", "Eve"), now=100.0) is None  # more names than watchers
    assert b.line() != "2 watching (Cy, Di, Eve)"


class LoudHost(HostNode):
    """A lying host: ``watching`` frames before its challenge and before its welcome
    (right and wrong ones), and any it is told to send (:meth:`flood`)."""

    def _early(self, conn: Conn) -> None:
        conn.send(Watching(3, ("Mal",)))
        conn.ch.send(raw("watching", count=10**9, names=[]))

    async def _handshake(self, conn: Conn) -> None:
        if not getattr(conn.ch, "watcher", False):  # (its lies are for the players)
            self._early(conn)
        await super()._handshake(conn)

    def _join_lobby(self, conn: Conn, outcome: Any) -> None:
        self._early(conn)
        super()._join_lobby(conn, outcome)

    def flood(self, payloads: list[bytes]) -> None:
        for c in list(self.all_conns):
            if c.m.may_ping:
                for p in payloads:
                    c.ch.send(p)


@virtual_time
async def test_a_lying_hosts_watching_frames_change_nothing_but_that_line_and_rarely(
        tmp_path: Path, clock: VirtualLoop, caplog: pytest.LogCaptureFixture) -> None:
    """SECURITY.md rows: in the handshake they are skipped (the joiner gets in, at its
    first attempt); thousands redraw a joiner's screen a few times; a huge count,
    control characters, more names than watchers are ignored; the game starts and is
    played as without them."""
    t = Table(tmp_path, clock, splito=False, host_cls=LoudHost)
    host = t.host
    assert isinstance(host, LoudHost)
    await t.open()
    (ana,) = await in_lobby(t, "Ana")
    assert len(t.mem.links) == 1  # in at its first attempt, past the frames before it
    assert ana.watching_status() == ""  # what came before the welcome showed nothing
    redraws = [0]
    ana.subscribe(lambda: redraws.__setitem__(0, redraws[0] + 1))
    before = ana.watching.changes
    good = [encode_typed(Watching(k % 5, tuple(f"w{j}" for j in range(min(k % 5, 3)))))
            for k in range(4000)]
    bad = [raw("watching", count=MAX_WATCHING + 1, names=[]),
           raw("watching", count=2**40, names=["Cy"]),
           raw("watching", count=1, names=["\x1b[2J\x07Cy"]),
           raw("watching", count=1, names=["Cy", "Di"]),
           raw("watching", count=1, names=["x" * 33])]
    for second in range(4):
        host.flood(good[second * 1000:(second + 1) * 1000] + bad)
        await clock.advance(1.0)
    await clock.advance(5.0)
    assert ana.watching.changes - before <= 1 + 4 / 2 + 1
    assert redraws[0] <= 4  # (nothing else happens in this lobby)
    assert ana.watching.shown == (3999 % 5, ("w0", "w1", "w2"))  # the last good one
    assert ana.watching_status() == "4 watching (w0, w1, w2 and 1 more)"
    assert ana.fatal is None and not ana.refusals
    (bo,) = await seated(t, "Bo")  # its handshake meets them too; the game starts
    assert len(t.mem.links) == 2
    sessions = t.sessions()
    runs = asyncio.ensure_future(asyncio.gather(*(s.run() for s in sessions)))
    for _ in range(20):  # … and all along the game
        host.flood(good[:500] + bad)
        await clock.advance(3.0)
    await clock.run_until(runs, within=7200.0)
    assert all(s.core.finished and s.core.verdict is None for s in sessions)
    players = [t.seat_transcript(n) for n in ("host", "Ana", "Bo")]
    assert players[1] == players[0] == players[2]
    assert not ana.refusals and not bo.refusals and ana.fatal is None is bo.fatal
    # 120 bad frames each, but a few lines (a plain joiner's log is its terminal)
    said = [r for r in caplog.records if "bad frame" in r.getMessage()]
    assert 0 < len(said) <= 2 * (MAX_BAD_FRAME_LINES + 1), len(said)
    await t.stop()


# ---------------------------------------------------------------------- the host removes one
@virtual_time
async def test_the_host_removes_a_watcher_who_is_told_and_not_let_back_in_from_there(
        tmp_path: Path, clock: VirtualLoop) -> None:
    t = Table(tmp_path, clock, splito=False, watchers=3)
    await t.open()
    (ana,) = await in_lobby(t, "Ana")
    cy, _ = t.watcher("Cy", local="10.3.3.3")
    task = cy.start()
    eve = await clock.run_until(raw_watcher(t, name="Eve", local="10.4.4.4"), within=10.0)
    await clock.until(lambda: t.host.watchers.count == 2, "both watching", within=5.0)
    lobby = HostLobby(t.host, "addr")
    assert lobby.watchers == ["Cy", "Eve"]
    with pytest.raises(ValueError, match=r"no watcher named 'Zed' \(watching: Cy, Eve\)"):
        lobby.remove_watcher("Zed")
    # the full-screen lobby: w, then the watcher's number
    screen = LobbyScreen(lobby)
    screen.ask_unwatch()
    assert screen.choosing and "1 Cy · 2 Eve" in screen.note
    screen.unwatch(1)
    assert screen.note == ("Cy no longer watches: removed, and not let back in from "
                           "10.3.3.3 during this game")
    await clock.until(task.done, "Cy stops", within=5.0)
    with pytest.raises(WatchFatal, match="the host removed you from watching this game"):
        task.result()
    await clock.advance(30.0)  # no reconnect: one connection from there, ever
    assert len([lk for lk in t.mem.links if lk.client_addr.startswith("10.3.3.3:")]) == 1
    # Cy's rerun — or anyone at that address — is refused for the rest of the game
    again, _ = t.watcher("Cy2", local="10.3.3.3", data="Cy")
    with pytest.raises(WatchFatal, match="removed a watcher at this address"):
        await clock.run_until(again.run(), within=20.0)
    # the host's side, frame by frame: the removed connection gets `removed`, fatal,
    # then its end
    assert lobby.remove_watcher("eve").startswith("Eve no longer watches")
    got = await clock.run_until(frames_until(eve, lambda f: isinstance(f, HostError)),
                                within=5.0)
    assert (got[-1].code, got[-1].fatal) == (ErrorCode.REMOVED.value, True)
    with pytest.raises(ChannelClosed):
        await clock.run_until(eve.recv(), within=5.0)
    assert t.host.watchers.count == 0 and ana.fatal is None
    await clock.until(lambda: ana.watching_status() == "", "Ana told", within=5.0)
    # someone elsewhere still may
    di, _ = t.watcher("Di", local="10.5.5.5")
    di.start()
    await clock.until(lambda: t.host.watchers.names() == ["Di"], "Di watching", within=5.0)
    drawn = ["".join(part[1] for part in ln) for ln in screen.render(80, None)]
    assert any(ln.split() == ["w", "remove", "a", "watcher"] for ln in drawn), drawn
    await t.stop()


def test_the_plain_lobby_takes_unwatch_name(capsys: pytest.CaptureFixture[str],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    class Lobby:
        def __init__(self) -> None:
            self.players, self.info, self.watchers = ["Host"], [], ["Cy"]

        def subscribe(self, cb: Any) -> None:
            pass

        def remove_watcher(self, name: str) -> str:
            if name.lower() != "cy":
                raise ValueError(f"no watcher named {name!r} (watching: Cy)")
            return "Cy no longer watches"

    monkeypatch.setattr("sys.stdin", io.StringIO("unwatch Cy\nunwatch Zed\nunwatch\nq\n"))

    async def main() -> bool:
        stop: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        return await plain_lobby(Lobby(), asyncio.Event(), stop, host=True)

    assert asyncio.run(main()) is False
    out = capsys.readouterr().out.splitlines()
    assert "Type 'unwatch NAME' to remove a watcher" in out[2]
    assert out[3:] == ["Cy no longer watches", "! no watcher named 'Zed' (watching: Cy)",
                       "! unwatch whom? 'unwatch NAME' (watching: Cy)"]


# ---------------------------------------------------------------------- bounds at the host
@virtual_time
async def test_the_hosts_list_of_departed_watchers_is_bounded(
        tmp_path: Path, clock: VirtualLoop) -> None:
    t = Table(tmp_path, clock, splito=False)
    await t.open()
    for k in range(MAX_LEFT + 10):
        ch = await clock.run_until(raw_watcher(t, name=f"w{k}", local=f"10.6.0.{k}"),
                                   within=10.0)
        ch.close()
        await clock.until(lambda: t.host.watchers.count == 0, "gone", within=5.0)
    left = t.host.watchers.left
    assert len(left) == MAX_LEFT and left[-1][0] == f"w{MAX_LEFT + 9}"
    assert left[0][0] == "w10"  # the oldest forgotten
    await t.stop()


# ---------------------------------------------------------------------- a flood; the close
async def pinging_never_reader(t: Table, local: str) -> tuple[Any, asyncio.Task[None]]:
    """A watcher that is let in, then pings every second and never reads: its link
    holds the host's ``drain`` as a TCP peer that does not read does (closing the
    socket does not free it)."""
    from splitnet.net.joincode import parse_code
    from splitnet.net.watcher import watch_wrap
    from tests.test_watch_mem import WATCH

    raw_ch = await t.mem.connector("127.0.0.1", t.port, local=local)()
    link = t.mem.links[-1]
    ch = await watch_wrap(parse_code(WATCH), t.net)(raw_ch, "client")
    decode_frame(await ch.recv(), from_host=True)  # the challenge
    from splitnet.net.frames import Watch

    ch.send(encode_typed(Watch(NET_PROTOCOL, "Slow", None, 0, None)))
    decode_frame(await ch.recv(), from_host=True)  # welcome

    async def held() -> None:
        await asyncio.get_running_loop().create_future()

    link.server.drain = held  # type: ignore[method-assign]

    async def pings() -> None:
        while True:
            ch.send(encode_typed(Ping(0)))
            await asyncio.sleep(1.0)

    return ch, asyncio.ensure_future(pings())


async def hostile_wave(t: Table, wave: int) -> list[asyncio.Future[Any]]:
    """32 hostile watch attempts: 12 wrong watch codes, 10 half-open connections, 10
    past the watch code that never send ``watch`` (each from its own address)."""
    from splitnet.net.joincode import parse_code
    from splitnet.net.watcher import watch_wrap
    from tests.test_watch_mem import WATCH, WRONG

    out: list[asyncio.Future[Any]] = []
    for k in range(12):
        w, _ = t.watcher(f"x{wave}-{k}", code=WRONG, local=f"10.{wave}.1.{k}")
        out.append(asyncio.ensure_future(w.run()))
    for k in range(10):
        out.append(asyncio.ensure_future(
            t.mem.connector("127.0.0.1", t.port, local=f"10.{wave}.2.{k}")()))

    async def silent(k: int) -> Any:
        r = await t.mem.connector("127.0.0.1", t.port, local=f"10.{wave}.3.{k}")()
        return await watch_wrap(parse_code(WATCH), t.net)(r, "client")

    out += [asyncio.ensure_future(silent(k)) for k in range(10)]
    return out


@virtual_time
async def test_records_are_relayed_with_no_extra_delay_through_32_hostile_watch_attempts(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """Waves of 32 hostile watch attempts all game long, two slow readers let in (one
    never reads nor pings, one pings and never reads): each record reaches every seat
    at the virtual instant the host ordered it — no wait on any watcher. Then the host
    closes: every connection handler ends, also the pinging one owed the rest."""
    t = Table(tmp_path, clock, splito=False, watchers=2)
    await t.open()
    await seated(t, "Ana", "Bo")
    host_table = t.host.table
    assert host_table is not None
    ordered: dict[int, float] = {}
    got: dict[str, dict[int, float]] = {"Ana": {}, "Bo": {}}
    host_table.listeners.append(lambda e: ordered.setdefault(e.seq, clock.time()))
    for p in t.peers:
        assert p.table is not None
        p.table.listeners.append(lambda e, d=got[p.name]: d.setdefault(e.seq, clock.time()))
    sessions = t.sessions()
    runs = asyncio.ensure_future(asyncio.gather(*(s.run() for s in sessions)))
    deaf = await clock.run_until(raw_watcher(t, name="Deaf", local="10.200.0.1"), within=10.0)
    slow, pinging = await clock.run_until(pinging_never_reader(t, "10.200.0.2"), within=10.0)
    assert t.host.watchers.count == 2
    flooded: list[int] = []
    attempts: list[asyncio.Future[Any]] = []
    for wave in range(8):
        first = len(host_table.log)
        attempts += await hostile_wave(t, wave + 1)
        await clock.advance(20.0)
        flooded += range(first, len(host_table.log))
        if runs.done():
            break
    await clock.run_until(runs, within=7200.0)
    assert all(s.core.finished and s.core.verdict is None for s in sessions)
    assert len(flooded) > 40, len(flooded)  # records ordered while attempts ran
    late = {seq: (ordered[seq], got["Ana"].get(seq), got["Bo"].get(seq))
            for seq in flooded if not (got["Ana"].get(seq) == got["Bo"].get(seq)
                                       == ordered[seq])}
    assert late == {}, late  # zero extra virtual delay, on every record
    assert not [e for e in host_table.log.entries if e.kind in ("timeout", "abandon")]
    assert t.limiter.failures == 0
    await clock.run_until(t.host.done.wait(), within=120.0)
    assert t.host.watchers.count >= 1  # the pinging one, still owed the log
    await clock.run_until(t.host.close(), within=10.0)
    assert not [x for x in t.mem.served if not x.done()]  # every handler ended
    pinging.cancel()
    for ch in (deaf, slow):
        ch.close()
    for a in attempts:
        a.cancel()
    await asyncio.gather(pinging, *attempts, return_exceptions=True)
    for a in attempts:
        if not a.cancelled() and a.exception() is None and hasattr(a.result(), "close"):
            a.result().close()
    await t.stop()


# ---------------------------------------------------------------------- a watched rematch
@virtual_time
async def test_a_watched_game_and_its_rematch_each_watched_and_verified_as_a_pair(
        tmp_path: Path, clock: VirtualLoop, capsys: pytest.CaptureFixture[str]) -> None:
    """Cy watches game 1 from its lobby; at its end the host's bye tells him to run his
    command again for a rematch, which he does (the same data dir) into the rematch
    lobby — whose host also sends lying ``watching`` frames there and in the
    handshakes. Both of his transcripts are the players', verify, and the pair passes
    ``splitnet verify FIRST SECOND``."""
    from splitnet.app.lan_session import LAN_PARTS
    from splitnet.game.rematch import PreviousGame
    from splitnet.net.joincode import parse_code
    from splitnet.net.links import node_wrap, secure_busy
    from splitnet.net.peer import PeerNode
    from splitnet.session.transcript import read_transcript
    from splitnet.verify import chain_problem, run_verify, verify_records
    from tests.test_watch_mem import CODE

    def finished(node: Any) -> PreviousGame:
        assert node.table is not None and node.table.core.finished
        return PreviousGame(node.table.log.header, node.table.log.head())

    t = Table(tmp_path, clock, splito=False)
    await t.open()
    cy, _ = t.watcher("Cy", local="10.7.0.1")
    cy.start()
    await clock.until(lambda: t.host.watchers.count == 1, "Cy watching", within=5.0)
    await seated(t, "Ana", "Bo")
    sessions = t.sessions()
    await clock.run_until(asyncio.gather(*(s.run() for s in sessions)), within=7200.0)
    assert cy.task is not None
    await clock.run_until(cy.task, within=120.0)
    assert cy.over and cy.status == ("the host said: game over — if the table plays a "
                                     "rematch, run splitnet watch again to watch it")
    first = [t.seat_transcript(n) for n in ("host", "Ana", "Bo")]
    assert cy.path is not None and read_transcript(cy.path) == first[0]
    # the rematch: the finished game's node closes, a new one listens at its port
    old = t.host
    prev, port = finished(old), old.port
    await clock.run_until(old.done.wait(), within=60.0)
    await clock.run_until(old.close(), within=10.0)
    new = LoudHost(old.identity, tmp_path / "host", "Host", t.net, proofs=False,
                   rematch_of=prev, wrap=old.wrap, busy=secure_busy, parts=LAN_PARTS,
                   code=CODE, left=old.left_after)
    new.watchers.desk.limit = 2
    t.host = new
    await new.listen("127.0.0.1", port, transport=t.mem.listen)
    cy2, cy2_v = t.watcher("Cy", local="10.7.0.1", data="Cy")  # the command run again
    cy2.start()
    await clock.until(lambda: new.watchers.count == 1, "Cy watching the rematch lobby",
                      within=10.0)
    olds, t.peers = t.peers, []
    for p in olds:
        t.peers.append(PeerNode(p.identity, tmp_path / p.name, p.name, "127.0.0.1", port,
                                t.net, connect=t.mem.connector("127.0.0.1", port),
                                wrap=node_wrap(parse_code(CODE), t.net, identity=p.identity),
                                code=CODE, parts=LAN_PARTS, rematch_of=finished(p)))
    ana, bo = t.peers
    ana.start()
    await clock.until(lambda: len(new.members) == 1, "Ana in the rematch lobby", within=30.0)
    new.flood([encode_typed(Watching(k % 3, ())) for k in range(2000)]
              + [raw("watching", count=10**6, names=["\x1b]0;x\x07"])])
    await clock.advance(3.0)
    assert ana.fatal is None and ana.watching.changes <= 4
    bo.start()
    await clock.run_until(new.started.wait(), within=60.0)
    await clock.until(lambda: all(p.ready for p in t.peers), "joiners in sync", within=10.0)
    sessions = t.sessions()
    await clock.run_until(asyncio.gather(*(s.run() for s in sessions)), within=7200.0)
    assert all(s.core.finished and s.core.verdict is None for s in sessions)
    assert cy2.task is not None
    await clock.run_until(cy2.task, within=120.0)
    table = new.table
    assert table is not None
    second = read_transcript(tmp_path / "host" / "games"
                             / f"{table.game_id.hex()}.splitlog", repair=True)
    assert cy2.path is not None and cy2.path != cy.path
    assert read_transcript(cy2.path) == second
    assert verify_records(first[0]).ok and verify_records(second).ok
    assert cy2_v.verdict() == verify_records(second)
    assert chain_problem(read_transcript(cy.path), read_transcript(cy2.path)) is None
    capsys.readouterr()
    assert run_verify([cy.path, cy2.path]) == 0
    assert "rematch of the game before: same seats and rules" in capsys.readouterr().out
    await t.stop()


@virtual_time
async def test_a_watch_attempt_past_the_limits_is_refused_before_any_spake2(
        tmp_path: Path, clock: VirtualLoop, monkeypatch: pytest.MonkeyPatch) -> None:
    """SECURITY.md row 141: once an address has spent its 3 wrong watch codes (or
    watching is closed), its next attempts are refused at their WATCH — the host draws
    no SPAKE2 of the watch code for them — with the same one line as before."""
    import splitnet.net.secure_watch as sw
    from tests.test_watch_mem import WRONG

    t = Table(tmp_path, clock, splito=False)
    await t.open()
    await spend_watch_codes(t, "10.1.1.1")
    pakes = [0]
    real = sw._start_pake

    def counted(*args: Any) -> Any:
        pakes[0] += 1
        return real(*args)

    monkeypatch.setattr(sw, "_start_pake", counted)
    for code, name in ((WRONG, "g3"), (None, "right")):  # the right code too: limited
        w, _ = t.watcher(name, local="10.1.1.1", **({"code": code} if code else {}))
        with pytest.raises(WatchFatal, match="watch attempts from this address"):
            await clock.run_until(w.run(), within=20.0)
    assert pakes[0] == 0
    assert t.watch_limiter.failures == 3 and t.watch_limiter.refused == 2
    di, _ = t.watcher("Di", local="10.1.1.2")  # another address: in, with its SPAKE2
    di.start()
    await clock.until(lambda: t.host.watchers.names() == ["Di"], "Di watching", within=5.0)
    assert pakes[0] == 2  # (the host's and Di's)
    await t.stop()


@virtual_time
async def test_watchers_coming_and_going_fast_redraw_the_hosts_screens_once_a_heartbeat(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """Whoever holds the watch code, in and out 30 times in 3 s: the host's
    lobby line on who watches changes at most once a heartbeat, as the players' does."""
    t = Table(tmp_path, clock, splito=False)
    await t.open()
    lobby = HostLobby(t.host, "addr")
    seen: list[list[str]] = []
    lobby.subscribe(lambda: seen.append([x for x in lobby.info if "watching" in x]))
    start = clock.time()
    for k in range(30):  # in for 0.05 s, out for 0.05 s: 3 s of it
        ch = await clock.run_until(raw_watcher(t, name=f"w{k}", local=f"10.8.1.{k}"),
                                   within=1.0)
        await clock.advance(0.05)
        ch.close()
        await clock.advance(0.05)
    stay = await clock.run_until(raw_watcher(t, name="Stay", local="10.8.2.1"), within=1.0)
    await clock.advance(t.net.ping_interval)
    assert [x for x in lobby.info if "watching" in x] == ["1 watching (Stay)"]
    changes = [b for a, b in zip([[]] + seen, seen, strict=False) if a != b]
    assert len(changes) <= (clock.time() - start) / t.net.ping_interval + 1, changes
    assert len(t.host.watchers.left) == 30  # (the churn was real: 30 came and went)
    stay.close()
    await t.stop()
