"""Watching a LAN game (protocol/NETWORK.md §14, SECURE.md §12) in process: a real host
and joiners, as ``splitnet host``/``join`` wrap them (join code and watch code), and
watchers (:class:`splitnet.net.watcher.WatchNode` with ``splitnet verify``'s live
checker) on the in-memory network and virtual time (tests/memnet.py,
tests/virtual_time.py).

- a Split and a Splito game watched start to finish by two watchers — one there from
  the lobby and killed mid-game, then run again (it resumes from its file), one joining
  mid-game —, their transcripts identical to the players' and verifying; at every entry
  a watcher reads no slot that every seat does not read too (R8, S7);
- a watcher that sends game messages is refused, the game goes on unchanged;
- a wrong watch code does not touch the players' wrong-code budget, and a watch code
  gives no seat;
- a flood — more watchers than ``--watchers``, 32 wrong watch codes, half-open
  connections — leaves the players' game as it was: the same transcript as without it,
  nobody timed out or blamed;
- a LIVE watcher that stops reading is dropped as too slow, the table does not wait.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from splitnet.app.lan_session import LAN_PARTS, NetSession
from splitnet.games.split.bots import make_bot
from splitnet.games.splito.front.lan import SplitoNetSession, splito_bot
from splitnet.net.config import NetSettings
from splitnet.net.frames import (
    Ack,
    Answer,
    BotLevel,
    Challenge,
    Hello,
    HostError,
    Msg,
    Rec,
    Watch,
    Welcome,
)
from splitnet.net.host import HostNode
from splitnet.net.joincode import parse_code
from splitnet.net.links import node_wrap, secure_busy
from splitnet.net.machine import IllegalTransition, Machine
from splitnet.net.peer import PeerNode
from splitnet.net.secure import AttemptLimiter
from splitnet.net.secure_watch import WatchGate
from splitnet.net.watcher import WatchFatal, WatchNode, watch_wrap, watched_path
from splitnet.net.watchers import TABLE as WATCH_TABLE
from splitnet.net.watchers import WatchDesk, WatchEvent, WatchState
from splitnet.net.wire import (
    NET_PROTOCOL,
    WireError,
    decode_frame,
    encode_typed,
    sign_challenge,
    sign_hello,
)
from splitnet.session.identity import Identity
from splitnet.session.transcript import TranscriptWriter, read_transcript
from splitnet.verify import LiveVerifier, verify_records
from tests.memnet import MemoryNet
from tests.test_net_splito_mem import choice as splito_choice
from tests.test_net_timing import stop
from tests.test_watch_verify import split_known, splito_known
from tests.virtual_time import VirtualLoop, virtual_time

CODE = "7-lunar-anchor"
WATCH = "9-comet-tiger"
WRONG = "9-comet-toast"
D = NetSettings()
pytestmark = pytest.mark.usefixtures("each_shuffle_proof_checked_once")

Known = Callable[[Any], "tuple[int, set[int]] | None"]


class Table:
    """A host with join and watch codes, its joiners, the watchers, and each one's view
    of the cards at every entry (seq → known slots) for the knowledge check."""

    def __init__(self, tmp: Path, clock: VirtualLoop, *, splito: bool, watchers: int = 2,
                 net: NetSettings = D, host_cls: type[HostNode] = HostNode,
                 mem: MemoryNet | None = None) -> None:
        self.tmp, self.clock, self.splito, self.net = tmp, clock, splito, net
        self.mem = mem or MemoryNet()
        self.limiter = AttemptLimiter(clock=clock.time)
        self.watch_limiter = AttemptLimiter(clock=clock.time)
        kw: dict[str, Any] = {"choice": splito_choice()} if splito else {"proofs": False}
        self.host = host_cls(Identity.generate(), tmp / "host", "Host", net, seats=3,
                             parts=LAN_PARTS, code=CODE, busy=secure_busy,
                             wrap=node_wrap(parse_code(CODE), net, limiter=self.limiter,
                                            seats=lambda: self.host.player_keys(),
                                            watch=WatchGate(parse_code(WATCH),
                                                            self.watch_limiter)), **kw)
        self.host.watchers.desk.limit = watchers
        self.known = known = splito_known if splito else split_known
        self.views: dict[str, dict[int, tuple[int, set[int]] | None]] = {}
        self.port = 0
        self.peers: list[PeerNode] = []
        self.watching: list[WatchNode] = []
        self._known = known

    async def open(self) -> None:
        self.port = await self.host.listen("127.0.0.1", 0, transport=self.mem.listen)

    def joiner(self, name: str) -> PeerNode:
        identity = Identity.generate()
        p = PeerNode(identity, self.tmp / name, name, "127.0.0.1", self.port, self.net,
                     connect=self.mem.connector("127.0.0.1", self.port),
                     wrap=node_wrap(parse_code(CODE), self.net, identity=identity),
                     code=CODE, parts=LAN_PARTS)
        self.peers.append(p)
        return p

    def watcher(self, name: str, *, code: str = WATCH, local: str = "127.0.0.1",
                data: str | None = None) -> tuple[WatchNode, LiveVerifier]:
        v = LiveVerifier()
        view = self.views.setdefault(name, {})

        def check(rec: bytes) -> str | None:
            failed = v.feed(rec)
            return None if failed is None else failed.summary

        def seen(seq: int, rec: bytes) -> None:
            view[seq] = None if v.core is None else self._known(v.core)

        w = WatchNode(self.tmp / (data or name), name,
                      self.mem.connector("127.0.0.1", self.port, local=local),
                      check=check, wrap=watch_wrap(parse_code(code), self.net), net=self.net,
                      on_record=seen)
        self.watching.append(w)
        return w, v

    def track_seat(self, name: str, node: HostNode | PeerNode) -> None:
        view = self.views.setdefault(name, {})
        assert node.table is not None
        table = node.table

        def on_entry(entry: Any) -> None:
            view[entry.seq] = self._known(table.core)

        table.listeners.append(on_entry)

    def sessions(self) -> list[Any]:
        host_task = asyncio.ensure_future(self.host.done.wait())
        nodes: list[HostNode | PeerNode] = [self.host, *self.peers]
        for name, node in zip(("Host", "Ana", "Bo"), nodes, strict=True):
            self.track_seat(name, node)
        if self.splito:
            return [SplitoNetSession(n, host_task if n is self.host else n.task,  # type: ignore[arg-type]
                                     bot=splito_bot("normal", i), bot_delay=1.0)
                    for i, n in enumerate(nodes)]
        return [NetSession(n, host_task if n is self.host else n.task,  # type: ignore[arg-type]
                           bot=make_bot("heuristic", i), bot_delay=1.0)
                for i, n in enumerate(nodes)]

    def seat_transcript(self, name: str) -> list[bytes]:
        return read_transcript(next((self.tmp / name / "games").glob("*.splitlog")),
                               repair=True)

    def check_knowledge(self, watcher: str) -> tuple[int, int]:
        """At every entry the watcher read, it read no slot that every seat does not
        (the seats' views are taken from their first session on: the deal before it is
        not compared). Returns how many entries were compared and the most slots the
        watcher read at one."""
        seats = [self.views[n] for n in ("Host", "Ana", "Bo")]
        read = compared = 0
        for seq, mine in self.views[watcher].items():
            if mine is None or any(s.get(seq) is None for s in seats):
                continue
            same = [k for n, k in (s[seq] for s in seats) if n == mine[0]]  # type: ignore[misc]
            assert len(same) == 3, (seq, "the seats are in another round")
            assert mine[1] <= set.intersection(*same), (watcher, seq, mine[1])
            compared += 1
            read = max(read, len(mine[1]))
        return compared, read

    async def stop(self) -> None:
        for w in self.watching:
            w.stop()
        await stop(self.clock, self.host, self.peers, self.mem)


async def watched_game(tmp: Path, clock: VirtualLoop, *, splito: bool) -> None:
    t = Table(tmp, clock, splito=splito)
    await t.open()
    cy, _ = t.watcher("Cy")  # from the lobby on
    cy.start()
    await clock.until(lambda: t.host.watchers.count == 1, "Cy watching", within=5.0)
    assert t.host.watchers.status() == "1 watching (Cy)"
    for n in ("Ana", "Bo"):
        t.joiner(n).start()
    await clock.run_until(t.host.started.wait(), within=10.0)
    await clock.until(lambda: all(p.ready for p in t.peers), "joiners in sync", within=10.0)
    sessions = t.sessions()
    runs = asyncio.ensure_future(asyncio.gather(*(s.run() for s in sessions)))
    table = t.host.table
    assert table is not None
    # Cy is killed mid-game; Di comes in mid-game
    await clock.until(lambda: cy.have > 20, "Cy has followed", within=600.0)
    cy.stop()
    killed_at = cy.have
    di, di_v = t.watcher("Di")
    di.start()
    await clock.until(lambda: len(table.log) > killed_at + 10, "the game goes on",
                      within=600.0)
    assert not runs.done()
    # Cy's command run again: a new program, the same data dir; it resumes from its file
    cy2, cy2_v = t.watcher("Cy", data="Cy")
    t.views["Cy"] = t.views.setdefault("Cy", {})
    cy2.start()
    await clock.run_until(runs, within=7200.0)
    assert all(s.core.finished and s.core.verdict is None for s in sessions), \
        [s.verdict for s in sessions]
    await clock.until(lambda: cy2.over and di.over, "both watchers told game over",
                      within=120.0)
    assert cy2.task is not None and di.task is not None
    await clock.run_until(asyncio.gather(cy2.task, di.task), within=30.0)
    assert cy2.resumed == killed_at > 0  # it went on from its own file
    players = [t.seat_transcript(n) for n in ("host", "Ana", "Bo")]
    assert players[1] == players[0] and players[2] == players[0]
    for w in (cy2, di):
        assert w.path is not None
        assert read_transcript(w.path) == players[0]
    assert di_v.entries == len(players[0]) and cy2_v.entries == len(players[0])
    v = verify_records(players[0])
    assert v.ok and cy2_v.verdict() == v and di_v.verdict() == v
    for name in ("Cy", "Di"):
        compared, read = t.check_knowledge(name)
        assert compared > len(players[0]) // 2 and read > 0, (name, compared, read)
    # the check can fail: a watcher that read one slot a seat held hidden is caught
    seats = [t.views[n] for n in ("Host", "Ana", "Bo")]
    seq, slot = next((q, x) for q, mine in t.views["Di"].items() if mine is not None
                     and all(s.get(q) is not None for s in seats)
                     for x in seats[0][q][1] - mine[1])  # type: ignore[index]
    t.views["Eve"] = {**t.views["Di"], seq: (t.views["Di"][seq][0],  # type: ignore[index]
                                             t.views["Di"][seq][1] | {slot})}  # type: ignore[index]
    with pytest.raises(AssertionError):
        t.check_knowledge("Eve")
    assert t.host.watchers.count == 0
    await t.stop()


@virtual_time
async def test_a_split_game_watched_by_two_one_killed_and_back_one_joining_mid_game(
        tmp_path: Path, clock: VirtualLoop) -> None:
    await watched_game(tmp_path, clock, splito=False)


@virtual_time
async def test_a_splito_game_watched_by_two_one_killed_and_back_one_joining_mid_game(
        tmp_path: Path, clock: VirtualLoop) -> None:
    await watched_game(tmp_path, clock, splito=True)


# ---------------------------------------------------------------------- hostile watchers
async def raw_watcher(t: Table, *, code: str = WATCH, name: str = "Eve",
                      local: str = "127.0.0.1") -> Any:
    """A watcher's connection driven by hand: watch-code handshake, challenge, ``watch``,
    ``welcome``; returns the channel."""
    raw = await t.mem.connector("127.0.0.1", t.port, local=local)()
    ch = await watch_wrap(parse_code(code), t.net)(raw, "client")
    f = decode_frame(await ch.recv(), from_host=True)
    assert isinstance(f, Challenge)
    ch.send(encode_typed(Watch(NET_PROTOCOL, name, None, 0, None)))
    w = decode_frame(await ch.recv(), from_host=True)
    assert isinstance(w, Welcome), w
    return ch


async def spend_watch_codes(t: Table, local: str) -> None:
    """Three wrong watch codes from ``local``: the address's whole budget."""
    for k in range(3):
        w, _ = t.watcher(f"g{k}", code=WRONG, local=local)
        with pytest.raises(WatchFatal, match="wrong watch code"):
            await t.clock.run_until(w.run(), within=20.0)


async def frames_until(ch: Any, pred: Callable[[Any], bool]) -> list[Any]:
    out = []
    while True:
        f = decode_frame(await ch.recv(), from_host=True)
        out.append(f)
        if pred(f):
            return out


@virtual_time
async def test_a_watcher_sending_game_messages_is_refused_and_changes_nothing(
        tmp_path: Path, clock: VirtualLoop) -> None:
    t = Table(tmp_path, clock, splito=False)
    await t.open()
    for n in ("Ana", "Bo"):
        t.joiner(n).start()
    await clock.run_until(t.host.started.wait(), within=10.0)
    await clock.until(lambda: all(p.ready for p in t.peers), "joiners in sync", within=10.0)
    table = t.host.table
    assert table is not None
    eve = await clock.run_until(raw_watcher(t), within=10.0)
    before = list(table.log.records())
    first = table.log.entries[1]  # a real seat's signed message, replayed by the watcher
    sent = [Msg(first.record, bytes(64)), Ack(b"\x00" * 8), Rec(len(before), before[-1]),
            Answer(table.game_id, True), BotLevel("strong")]
    for f in sent:
        eve.send(encode_typed(f))
    errors = await clock.run_until(frames_until(
        eve, lambda f: isinstance(f, HostError) and f.reason.startswith("a watcher does not "
                                                                        "send bot")),
        within=10.0)
    refusals = [f for f in errors if isinstance(f, HostError)]
    assert [f.reason for f in refusals] == [
        f"a watcher does not send {f.T} frames: it only watches" for f in sent]
    assert not any(f.fatal for f in refusals)
    assert table.log.records() == before  # nothing ordered, nothing changed
    assert t.host.watchers.count == 1
    eve.close()
    await t.stop()


@virtual_time
async def test_a_wrong_watch_code_spends_no_players_budget_and_a_watch_code_gives_no_seat(
        tmp_path: Path, clock: VirtualLoop) -> None:
    t = Table(tmp_path, clock, splito=False)
    await t.open()
    await spend_watch_codes(t, "10.1.1.1")
    assert t.watch_limiter.failures == 3 and t.limiter.failures == 0
    # the address is out of watch attempts; a player there with the join code is not
    ana = PeerNode(Identity.generate(), tmp_path / "Ana", "Ana", "127.0.0.1", t.port, t.net,
                   connect=t.mem.connector("127.0.0.1", t.port, local="10.1.1.1"),
                   wrap=node_wrap(parse_code(CODE), t.net), code=CODE, parts=LAN_PARTS)
    t.peers.append(ana)
    ana.start()
    await clock.until(lambda: "Ana" in t.host.lobby_names, "Ana in the lobby", within=10.0)
    w, _ = t.watcher("late", local="10.1.1.1")  # the right watch code, same address
    with pytest.raises(WatchFatal, match="more watch attempts from this address"):
        await clock.run_until(w.run(), within=20.0)
    # the right watch code, and a hello for a seat: refused, the lobby unchanged
    raw = await t.mem.connector("127.0.0.1", t.port, local="10.2.2.2")()
    ch = await watch_wrap(parse_code(WATCH), t.net)(raw, "client")
    f = decode_frame(await ch.recv(), from_host=True)
    assert isinstance(f, Challenge)
    me = Identity.generate()
    ch.send(encode_typed(Hello(NET_PROTOCOL, "Mallory", me.public_key_bytes(),
                               sign_hello(me, f.nonce, f.key, "Mallory", None, 0, ch.binding),
                               None, 0, None, ch.binding)))
    e = await clock.run_until(frames_until(ch, lambda f: isinstance(f, HostError)),
                              within=10.0)
    assert e[-1].fatal and "a watch code gives no seat" in e[-1].reason
    assert t.host.lobby_names == ["Host", "Ana"] and t.limiter.failures == 0
    await t.stop()


@virtual_time
async def test_a_flood_of_watchers_wrong_watch_codes_and_half_open_connections_leaves_the_game(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """More watchers than the host takes (2), 32 wrong watch codes from 16 addresses, 40
    half-open connections (more than the 32 handshake slots) and Bo's cable pulled in
    the middle of it: the game ends verified, nobody timed out or blamed, Bo back in his
    seat, the players' wrong-code budget untouched."""
    t = Table(tmp_path, clock, splito=False, watchers=2)
    await t.open()
    for n in ("Ana", "Bo"):
        t.joiner(n).start()
    await clock.run_until(t.host.started.wait(), within=10.0)
    await clock.until(lambda: all(p.ready for p in t.peers), "joiners in sync", within=10.0)
    sessions = t.sessions()
    runs = asyncio.ensure_future(asyncio.gather(*(s.run() for s in sessions)))
    good = [t.watcher(f"w{k}")[0] for k in range(4)]  # two more than it takes
    tasks = [asyncio.ensure_future(w.run()) for w in good]
    await clock.until(lambda: sum(x.done() for x in tasks) == 2, "two watchers refused",
                      within=30.0)
    wrong = [t.watcher(f"x{k}", code=WRONG, local=f"10.9.{k // 2}.{k % 2}")[0]
             for k in range(32)]
    tasks += [asyncio.ensure_future(w.run()) for w in wrong]
    half = [asyncio.ensure_future(t.mem.connector("127.0.0.1", t.port,
                                                  local=f"10.8.0.{k}")())
            for k in range(40)]
    await clock.until(lambda: all(x.done() for x in tasks[4:]), "the wrong codes refused",
                      within=60.0)
    assert all(isinstance(x.exception(), WatchFatal) for x in tasks[4:])
    assert t.host.watchers.count == 2
    full = [x for x in tasks[:4] if x.done()]
    assert len(full) == 2 and all("at most 2" in str(x.exception()) for x in full), \
        [str(x.exception()) for x in full]
    bo = t.peers[1]
    raw_bo = getattr(bo.ch, "link", bo.ch)
    next(lk for lk in t.mem.links if lk.client is raw_bo).cut()  # Bo must reconnect now
    epoch = t.host.epoch
    await clock.run_until(runs, within=7200.0)
    assert all(s.core.finished and s.core.verdict is None for s in sessions), \
        [s.verdict for s in sessions]
    players = [t.seat_transcript(n) for n in ("host", "Ana", "Bo")]
    assert players[1] == players[0] and players[2] == players[0]
    v = verify_records(players[0])
    assert v.ok, v.summary
    table = t.host.table
    assert table is not None
    assert not [e for e in table.log.entries if e.kind in ("timeout", "abandon")]
    assert t.host.epoch > epoch  # Bo came back to his seat through the flood
    assert t.limiter.failures == 0 and t.watch_limiter.failures == 20  # its own, closed
    await clock.run_until(asyncio.gather(*tasks[:4], return_exceptions=True), within=120.0)
    for w in good:
        if w.path is not None:
            assert read_transcript(w.path) == players[0]
    for h in half:
        if h.done() and h.exception() is None:
            h.result().close()
    await t.stop()


@virtual_time
async def test_watch_handshakes_that_never_send_watch_take_none_of_the_players_slots(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """SECURITY.md row 132: 40 connections past the watch code (more than the players'
    32 connection slots) that take the challenge and never send ``watch``, the attack
    renewed once: they fill only the watchers' own pool (its oldest dropped), and both
    players still get into the lobby and start the game."""
    t = Table(tmp_path, clock, splito=False, watchers=2)
    await t.open()
    held: list[Any] = []

    async def silent(k: int) -> None:
        raw = await t.mem.connector("127.0.0.1", t.port, local=f"10.7.{k // 200}.{k % 200}")()
        ch = await watch_wrap(parse_code(WATCH), t.net)(raw, "client")
        assert isinstance(decode_frame(await ch.recv(), from_host=True), Challenge)
        held.append(ch)  # … and never a ``watch``

    for wave in range(2):
        await clock.run_until(asyncio.gather(*(silent(40 * wave + k) for k in range(40)),
                                             return_exceptions=True), within=5.0)
    assert len(t.host._watch_greeting) <= 4 and not t.host.all_conns
    for n in ("Ana", "Bo"):
        t.joiner(n).start()
    await clock.run_until(t.host.started.wait(), within=8.0)  # (within the 10 s hold)
    assert [m.name for m in t.host.members] == ["Ana", "Bo"]
    for ch in held:
        ch.close()
    await t.stop()


@virtual_time
async def test_a_live_watcher_that_stops_reading_is_dropped_and_the_table_does_not_wait(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """(``drop_after`` out of reach: the lag bound alone drops her, not her silence.)"""
    t = Table(tmp_path, clock, splito=False, net=NetSettings(drop_after=100_000.0))
    await t.open()
    eve = await clock.run_until(raw_watcher(t), within=10.0)  # then never reads again
    for n in ("Ana", "Bo"):
        t.joiner(n).start()
    await clock.run_until(t.host.started.wait(), within=10.0)
    await clock.until(lambda: all(p.ready for p in t.peers), "joiners in sync", within=10.0)
    sessions = t.sessions()
    await clock.run_until(asyncio.gather(*(s.run() for s in sessions)), within=7200.0)
    assert all(s.core.finished and s.core.verdict is None for s in sessions)
    assert ("Eve", f"more than {2 * 64} records behind: too slow") in t.host.watchers.left
    assert t.host.watchers.count == 0
    eve.close()
    await t.stop()


# ---------------------------------------------------------------------- the machine alone
def test_the_watcher_machine_walks_its_table_and_refuses_every_other_event() -> None:
    """NETWORK.md §11.11: every row of the table, and no move that is not one."""

    for (state, event), new in WATCH_TABLE.items():
        m = Machine("watcher", state, WATCH_TABLE)
        assert m.fire(event) is new
    for state in WatchState:
        for event in WatchEvent:
            if (state, event) not in WATCH_TABLE:
                with pytest.raises(IllegalTransition):
                    Machine("watcher", state, WATCH_TABLE).fire(event)
    # the desk: the window bounds what one watcher is owed; a LIVE one that falls
    # more than max_lag behind is dropped, one catching up never is
    desk = WatchDesk(limit=2, window=4, max_lag=8, drop_after=60.0)
    late = desk.admit(desk.arrive("10.0.0.1:1", now=0.0), "Cy", have=0, count=100, now=0.0)
    live = desk.admit(desk.arrive("10.0.0.2:1", now=0.0), "Cy", have=100, count=100, now=0.0)
    assert live.name == "Cy-2" and late.state is WatchState.CATCHING_UP
    assert list(desk.due(late, 100)) == [0, 1, 2, 3]
    desk.sent(late, 4)
    assert list(desk.due(late, 100)) == []  # nothing more until it says it holds them
    desk.progress(late, 4, count=100, now=1.0)
    assert list(desk.due(late, 100)) == [4, 5, 6, 7]
    assert desk.ordered(108) == [] and desk.ordered(109) == [live]
    assert live.gone and not late.gone and desk.names() == ["Cy"]
    assert desk.quiet(61.0) == [] and desk.quiet(61.5) == [late]
    full = WatchDesk(limit=0)
    with pytest.raises(WireError, match="this game takes no watchers"):
        full.admit(full.arrive("10.0.0.3:1", now=0.0), "Di", have=0, count=0, now=0.0)


# ---------------------------------------------------------------------- a lying host
async def watch_at(tmp: Path, serve: Any, **kw: Any) -> tuple[WatchNode, Exception | None]:
    """A watcher with verify's live checker run against ``serve`` (a made-up host on
    the in-memory network) to its end: the node, and the WatchFatal it stopped on."""
    mem = MemoryNet()
    _, port = await mem.listen(serve, "127.0.0.1", 0)
    v = LiveVerifier()

    def check(rec: bytes) -> str | None:
        failed = v.feed(rec)
        return None if failed is None else failed.summary

    node = WatchNode(tmp, "Cy", mem.connector("127.0.0.1", port), check=check, net=D, **kw)
    err: Exception | None = None
    try:
        await asyncio.wait_for(node.run(), 60)
    except WatchFatal as e:
        err = e
    await mem.close()
    return node, err


def test_a_lying_host_can_neither_crash_a_watcher_nor_write_into_another_games_file(
        tmp_path: Path) -> None:
    """SECURITY.md row 133. A host that says "lobby" and then shows a header whose game
    id is that of a game this watcher saved before (ids are public): the watcher stops
    with one line naming the file, and the file is as it was — no records of another
    game appended under that id, for ``verify`` to blame its honest host on. And a host
    that sends an empty record: the watcher stops with verify's verdict, no traceback."""
    from tests.test_open_hand import new_game

    g, _ = new_game(2, False, seed=3)
    g.run_bots([make_bot("normal", i) for i in range(2)])
    records = g.log.records()
    gid = g.log.game_id

    def lying(show: list[bytes], name_game: bool) -> Any:
        async def serve(ch: Any) -> None:
            nonce = bytes(32)
            game = gid if name_game else None
            ch.send(encode_typed(Challenge(NET_PROTOCOL, nonce, g.host.public_key_bytes(),
                                           game, None,
                                           sign_challenge(g.host, nonce, game, None))))
            with contextlib.suppress(Exception):
                w = decode_frame(await ch.recv(), from_host=False)
                assert isinstance(w, Watch)
                ch.send(encode_typed(Welcome(None, gid, len(show), True)))
                for seq in range(w.have, len(show)):
                    ch.send(encode_typed(Rec(seq, show[seq])))
                while True:
                    await ch.recv()
        return serve

    async def watch(serve: Any) -> tuple[WatchNode, BaseException | None]:
        return await watch_at(tmp_path / "w", serve)

    async def main() -> None:
        path = watched_path(tmp_path / "w", gid)  # a game watched here before, in part
        path.parent.mkdir(parents=True)
        w = TranscriptWriter(path)
        for rec in records[:5]:
            w.append(rec)
        w.close()
        saved = path.read_bytes()
        _, err = await watch(lying(records, name_game=False))
        assert isinstance(err, WatchFatal) and "already holds a watched game" in str(err)
        assert path.read_bytes() == saved
        path.unlink()
        _, err = await watch(lying([records[0], b""], name_game=True))
        assert isinstance(err, WatchFatal) and "entry 1" in str(err), err

    asyncio.run(main())


def test_a_bad_record_stops_the_watcher_with_verifys_verdict_saved_and_again_on_a_rerun(
        tmp_path: Path) -> None:
    """A host (the game's own key, plain channel) that sends a finished game's log with
    one record damaged: the watcher stops at that record with the verdict ``splitnet
    verify`` gives the damaged transcript, naming the same seat; its file holds the
    records up to and with the bad one, and verify on the file says the same; run again
    on that file, it stops at once with that verdict."""
    from tests.test_open_hand import new_game

    g, _ = new_game(3, False, seed=7)
    g.run_bots([make_bot("normal", i) for i in range(3)])
    records = g.log.records()
    k = len(records) // 2
    bad = bytearray(records[k])
    bad[-1] ^= 0x01
    damaged = [*records[:k], bytes(bad), *records[k + 1:]]
    want = verify_records(damaged)
    assert not want.ok and want.seq == k

    async def main() -> None:
        mem = MemoryNet()

        async def serve(ch: Any) -> None:  # the lying host
            nonce = bytes(32)
            gid = g.log.game_id
            ch.send(encode_typed(Challenge(NET_PROTOCOL, nonce, g.host.public_key_bytes(),
                                           gid, None, sign_challenge(g.host, nonce, gid,
                                                                     None))))
            try:
                w = decode_frame(await ch.recv(), from_host=False)
            except ConnectionError:  # (a rerun that stops on its own file first)
                return
            assert isinstance(w, Watch)
            ch.send(encode_typed(Welcome(None, gid, len(damaged), True)))
            for seq in range(w.have, len(damaged)):
                ch.send(encode_typed(Rec(seq, damaged[seq])))
            with contextlib.suppress(Exception):
                while True:
                    await ch.recv()

        _, port = await mem.listen(serve, "127.0.0.1", 0)
        for run in range(2):
            v = LiveVerifier()

            def check(rec: bytes, v: LiveVerifier = v) -> str | None:
                failed = v.feed(rec)
                return None if failed is None else failed.summary

            node = WatchNode(tmp_path / "w", "Cy", mem.connector("127.0.0.1", port),
                             check=check, net=D)
            with pytest.raises(WatchFatal) as e:
                await node.run()
            assert str(e.value) == want.summary and v.failed == want, run
            assert node.path is not None
            assert read_transcript(node.path) == damaged[:k + 1]
            assert verify_records(read_transcript(node.path)) == want
            assert node.have == k and node.connections == (1 if run == 0 else 0)
        await mem.close()

    asyncio.run(main())


@virtual_time
async def test_the_same_watcher_again_replaces_the_older_which_stops_saying_why(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """Two watchers of one name at one address (a rerun while the old program still
    runs): the newer takes over, the older stops in one line — they do not take turns."""
    t = Table(tmp_path, clock, splito=False)
    await t.open()
    old, _ = t.watcher("Cy", data="a")
    old_task = old.start()
    await clock.until(lambda: t.host.watchers.count == 1, "Cy watching", within=5.0)
    new, _ = t.watcher("Cy", data="b")
    new.start()
    await clock.until(lambda: old_task.done(), "the older one stops", within=30.0)
    with pytest.raises(WatchFatal, match="a newer watcher with this name"):
        old_task.result()
    await clock.advance_to(clock.time() + 30.0)
    assert t.host.watchers.names() == ["Cy"] and new.task is not None and not new.task.done()
    await t.stop()
