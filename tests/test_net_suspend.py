"""A program that was not running is not anyone's fault (protocol/NETWORK.md §7): a
terminal program is stopped by Ctrl-Z and resumed with ``fg`` minutes later, a laptop's
lid is closed mid-game. Meanwhile frames pile up in its connections, and when it runs
again every clock it keeps has jumped by the time it was away. A joiner must not name
the host for a wait it slept through, nor a host time out (or drop) the seats it did
not listen to: each notices that it was not running — its own loop's time jumped far
past anything a running node sees — and starts its clocks on the others again.

Whole games of bots, a host and two joiners over the in-memory network on the virtual
clock (tests/test_attacks_net.py's :class:`Lan`); the node that is "stopped" sleeps
where it would read its next frame (a joiner) or holds every frame and message and runs
no heartbeat (a host), as a stopped process does.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from splitnet.app.lan_session import NetSession
from splitnet.games.split.bots import make_bot
from splitnet.net.frames import Frame
from splitnet.net.host import Conn, HostNode
from splitnet.net.peer import PeerNode
from splitnet.net.wire import Channel
from splitnet.session.identity import Identity
from splitnet.session.log import Entry
from splitnet.verify import verify_records
from tests.test_attacks_net import Lan, net, seats_of
from tests.virtual_time import LIMIT, VirtualLoop, virtual_time, within

#: the host waits long here (the stopped seat must not simply be timed out for not
#: answering while it was away: that would be right); its joiners wait a minute for a move
HOST_NET = dict(answer_timeout=200.0, move_timeout=300.0, drop_after=30.0)


class StoppedJoiner(PeerNode):
    """Stopped for ``pause`` s (Ctrl-Z, then ``fg``) the first time it sees the game wait
    for the host's own move: it reads nothing meanwhile, its connection piles up."""

    pause = 75.0  # longer than its move wait for the host's seat (60 s) plus host_timeout
    paused_at: float | None = None

    async def _recv(self, ch: Channel, timeout: float) -> Frame:
        t = self.table
        if (self.paused_at is None and t is not None and t.started and not t.core.finished
                and t.host_seat in t.core.waiting_for()
                and t.core.owed_step(t.host_seat) == "move"):
            self.paused_at = self._now()
            await asyncio.sleep(self.pause)
        return await super()._recv(ch, timeout)


class StoppedHost(HostNode):
    """Stopped for ``pause`` s right after it orders the first entry that makes Ana owe
    the game a message: the record of it, and every frame after, wait in its buffers;
    what comes in waits unread; its heartbeat does not run."""

    pause = 45.0  # longer than drop_after (30 s) and than an answer wait of the joiners
    paused_at: float | None = None

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.stopped = False
        self._out: list[tuple[Conn, Frame]] = []
        self._in: list[tuple[Conn, bytes, bytes]] = []

    async def _handshake(self, conn: Conn) -> None:
        plain = conn.send

        def send(f: Frame) -> None:
            if self.stopped:
                self._out.append((conn, f))
            else:
                plain(f)
        conn.send = send  # type: ignore[method-assign]
        await super()._handshake(conn)

    def _on_entry(self, entry: Entry) -> None:
        table = self.table
        if (self.paused_at is None and table is not None and table.started
                and entry.author != 1 and not table.core.finished
                and 1 in table.core.waiting_for()):
            self.paused_at = self._now()
            self.stopped = True
            asyncio.get_running_loop().call_later(self.pause, self._resume)
        super()._on_entry(entry)

    def _resume(self) -> None:
        self.stopped = False
        out, self._out = self._out, []
        for conn, f in out:
            if not conn.closed:
                conn.send(f)
        unread, self._in = self._in, []
        for conn, msg, sig in unread:
            if not conn.closed:
                self._on_msg(conn, msg, sig)

    def _on_msg(self, conn: Conn, msg: bytes, sig: bytes) -> None:
        if self.stopped:
            self._in.append((conn, msg, sig))
            return
        super()._on_msg(conn, msg, sig)

    def _beat(self, now: float) -> None:
        if not self.stopped:
            super()._beat(now)


async def _play(lan: Lan, host_delay: float) -> None:
    """Bots at every seat (the host's thinking ``host_delay`` s a move) to the end."""
    host = lan.host
    runs = [asyncio.ensure_future(NetSession(host, asyncio.ensure_future(host.done.wait()),
                                             bot=make_bot("heuristic", 7),
                                             bot_delay=host_delay).run())]
    runs += [asyncio.ensure_future(NetSession(p, t, bot=make_bot("heuristic", 8 + i)).run())
             for i, (p, t) in enumerate(zip(lan.peers, lan.tasks, strict=True))]
    await within(asyncio.gather(*runs), 20 * LIMIT)


def _finished_alike(lan: Lan) -> None:
    nodes: list[HostNode | PeerNode] = [lan.host, *lan.peers]
    for n in nodes:
        assert n.fatal is None, n.fatal
        assert n.table is not None and n.table.core.finished, n.table and n.table.core.verdict
        assert n.table.core.verdict is None, n.table.core.verdict
    records = [lan.records(s) for s in range(3)]
    assert records[0] == records[1] == records[2]
    v = verify_records(records[0])
    assert v.ok, v.summary


@virtual_time
async def test_a_joiner_stopped_while_the_host_thinks_does_not_name_it_when_it_runs_again(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """Ana is stopped for 75 s as the host's seat begins to think (1 s a move). Its move
    is in Ana's connection long before she runs again, but behind the pings sent since:
    before, the first ping she read found the host's seat owing its move for 75 s — past
    her move wait and grace — and she stopped naming the honest host. Now she sees her
    own clock jumped, starts it on the host again, and plays the game to its end."""
    host = HostNode(Identity.generate(), tmp_path / "p0", "Host", net(**HOST_NET), seats=3,
                    proofs=False)

    lan = await Lan.start(tmp_path, host, make_peer=seats_of(tmp_path, {1: StoppedJoiner}))
    ana = lan.peers[0]
    assert isinstance(ana, StoppedJoiner)
    try:
        await _play(lan, host_delay=1.0)
        assert ana.paused_at is not None, "Ana was never stopped"
        _finished_alike(lan)
    finally:
        await lan.close()


@virtual_time
async def test_a_host_stopped_mid_game_times_out_and_drops_nobody_for_its_own_absence(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """The host is stopped for 45 s just after it orders an entry Ana must answer — its
    record still in the host's buffers. Before, its first heartbeat after it ran again
    found every connection quiet for 45 s (past drop_after, 30 s) and Ana owing her answer
    for 45 s (past her answer wait): it dropped them all and timed the honest Ana out.
    Now it sees its own clock jumped, gives every seat the whole wait again, and the
    game goes on to its end."""
    host = StoppedHost(Identity.generate(), tmp_path / "p0", "Host",
                       net(answer_timeout=20.0, move_timeout=60.0, drop_after=30.0),
                       seats=3, proofs=False)
    lan = await Lan.start(tmp_path, host)
    try:
        await _play(lan, host_delay=0.0)
        assert host.paused_at is not None, "the host was never stopped"
        _finished_alike(lan)
    finally:
        await lan.close()


class StoppedAfterItsMove(PeerNode):
    """Stopped for ``pause`` s (longer than its move wait) right after it sends its
    first move: its next turn comes and goes while it reads nothing."""

    pause = 12.0
    paused_at: float | None = None

    async def _recv(self, ch: Channel, timeout: float) -> Frame:
        if self.paused_at is None and self._moves_inflight:
            self.paused_at = self._now()
            await asyncio.sleep(self.pause)
        return await super()._recv(ch, timeout)


@virtual_time
async def test_a_joiner_timed_out_while_it_was_stopped_takes_the_verdict_naming_no_host(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """Ana is stopped for 12 s just after her move; her next turn comes at once and the
    host rightly times her out after the 4 s move wait. When she runs again she reads
    the piled-up records one after the other — the one that made her owe her move, then
    the timeout — in the same instant. Before, her clock on that wait started as she
    *read* its first record, saw the host time her seat out "after 0 s" (sooner than the
    agreed 4 s) and she stopped naming the honest host. Now the frames she reads just
    after she woke start no wait: she takes the verdict, like every other seat."""
    settings = net(move_timeout=4.0)
    host = HostNode(Identity.generate(), tmp_path / "p0", "Host", settings, seats=3,
                    proofs=False)

    lan = await Lan.start(tmp_path, host,
                          make_peer=seats_of(tmp_path, {1: StoppedAfterItsMove}, settings))
    ana = lan.peers[0]
    assert isinstance(ana, StoppedAfterItsMove)
    try:
        host_task = asyncio.ensure_future(host.done.wait())
        runs = [asyncio.ensure_future(NetSession(host, host_task,
                                                 bot=make_bot("random", 0)).run())]
        runs += [asyncio.ensure_future(NetSession(p, t, bot=make_bot("random", i + 1)).run())
                 for i, (p, t) in enumerate(zip(lan.peers, lan.tasks, strict=True))]
        await within(asyncio.wait(runs), 3 * LIMIT)
        assert ana.paused_at is not None, "Ana was never stopped"
        nodes: list[HostNode | PeerNode] = [host, *lan.peers]
        for n in nodes:
            assert n.fatal is None, n.fatal
            assert n.table is not None
            v = n.table.core.verdict
            assert v is not None and (v.seat, v.step) == (1, "move"), v
    finally:
        await lan.close()


class StoppedAsTheLobbyFills(PeerNode):
    """Stopped for ``pause`` s as its lobby fills: the header the host sends at once
    waits unread in its connection."""

    pause = 3.0
    paused_at: float | None = None

    async def _recv(self, ch: Channel, timeout: float) -> Frame:
        if self.paused_at is None and self.table is None and len(self.lobby_players) == 3:
            self.paused_at = self._now()
            await asyncio.sleep(self.pause)
        return await super()._recv(ch, timeout)


@virtual_time
async def test_a_joiner_stopped_as_the_game_starts_names_no_host_for_its_call_off(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """Ana is stopped for 3 s (four times host_timeout) as the lobby fills; Bo never
    accepts, and the host calls the game off 10 s after the start, as agreed. Before,
    Ana took the header as got live when she read it, 3 s late, held the call-off
    "after 7 s" against the agreed 10 s and named the honest host. Now a header read
    just after she woke is not got live: she stops with the host's reason."""
    from tests.test_net_accept import NeverAccepts

    host = HostNode(Identity.generate(), tmp_path / "p0", "Host", net(answer_timeout=10.0),
                    seats=3, proofs=False)

    lan = await Lan.start(tmp_path, host, make_peer=seats_of(
        tmp_path, {1: StoppedAsTheLobbyFills, 2: NeverAccepts}))
    ana = lan.peers[0]
    assert isinstance(ana, StoppedAsTheLobbyFills)
    try:
        why = await lan.stopped(ana)
        assert ana.paused_at is not None, "Ana was never stopped"
        assert why == ("the game did not start: the host called it off: Bo did not accept "
                       "it within 10 s"), why
    finally:
        await lan.close()
