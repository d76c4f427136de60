"""The network's clocks, on virtual time over the in-memory network (tests/virtual_time.py,
tests/memnet.py): every heartbeat, silence, timeout, back-off and lockout is checked at
the exact instant it must happen (protocol/NETWORK.md §7–§8), with the real default
timings — a minute of protocol time takes milliseconds and no machine load can move it.

Issue 11's failures reproduced here: a joiner with nobody at its address retried forever
(now: "cannot reach … — is the game still open?" and a bounded give-up), and the host
pinged connections still in their handshake.
"""

from __future__ import annotations

import asyncio
import itertools
from pathlib import Path
from typing import Any

import pytest

from splitnet.app.lan_session import LAN_PARTS, NetSession
from splitnet.games.split.bots import make_bot
from splitnet.net.config import NetSettings
from splitnet.net.host import HostNode
from splitnet.net.joincode import parse_code
from splitnet.net.links import node_wrap, secure_busy
from splitnet.net.peer import HostGone, PeerFatal, PeerNode
from splitnet.net.secure import AttemptLimiter
from splitnet.net.store import unfinished_games
from splitnet.net.wire import ChannelClosed, decode_frame
from splitnet.session.identity import Identity
from splitnet.session.transcript import read_transcript
from splitnet.verify import verify_records
from tests.memnet import Link, MemoryNet
from tests.virtual_time import VirtualLoop, virtual_time

CODE = "7-lunar-anchor"
WRONG = "8-lunar-anchor"
D = NetSettings()  # the defaults, as a player runs them


def joiner(tmp: Path, mem: MemoryNet, port: int, name: str, *, net: NetSettings = D,
           local: str = "127.0.0.1", code: str | None = None,
           on_link: Any = None) -> PeerNode:
    identity = Identity.generate()
    wrap = {} if code is None else {
        "wrap": node_wrap(parse_code(code), net, identity=identity), "code": code}
    return PeerNode(identity, tmp / name, name, "127.0.0.1", port, net,
                    connect=mem.connector("127.0.0.1", port, local=local, on_link=on_link),
                    parts=LAN_PARTS, **wrap)  # type: ignore[arg-type]


async def table_of_three(tmp: Path, clock: VirtualLoop, mem: MemoryNet, *,
                         on_link: Any = None, net: NetSettings = D
                         ) -> tuple[HostNode, list[PeerNode]]:
    """A host (with ``net``) and Ana, Bo in its started game (at t=0: the deal runs in
    an instant)."""
    host = HostNode(Identity.generate(), tmp / "host", "Host", net, seats=3, proofs=False,
                    parts=LAN_PARTS)  # assembled as splitnet host/join assemble them
    port = await host.listen("127.0.0.1", 0, transport=mem.listen)
    peers = [joiner(tmp, mem, port, n, on_link=on_link) for n in ("Ana", "Bo")]
    for p in peers:
        p.start()
    await clock.run_until(host.started.wait(), within=1.0)
    await clock.until(lambda: all(p.ready for p in peers), "both joiners in sync", within=1.0)
    return host, peers


async def stop(clock: VirtualLoop, host: HostNode, peers: list[PeerNode],
               mem: MemoryNet) -> None:
    await host.close()
    for p in peers:
        if p.task is not None:
            p.task.cancel()
    await clock.run_until(mem.close(), within=5.0)


# ---------------------------------------------------------------------- a joiner alone
@virtual_time
async def test_a_joiner_with_nobody_at_its_address_backs_off_and_gives_up_in_bounded_time(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """Issue 11: it said "Joined" and retried forever. Now it tries at 0, then after
    retry_first doubling up to retry_max, says what is true while it does, and gives up
    with HostGone at the first attempt past ``first_contact`` — 20 s, exactly."""
    mem = MemoryNet()
    node = joiner(tmp_path, mem, 7499, "Ana")
    attempts: list[float] = []
    real = node.connect
    assert real is not None

    async def counting() -> Any:
        attempts.append(clock.time())
        return await real()

    node.connect = counting
    task = node.start()
    await clock.advance(0.0)
    assert node.net_status == ("cannot reach 127.0.0.1:7499 — is the game still open? "
                               "(connection refused) — retrying (1)")
    await clock.until(task.done, "it gives up", within=60.0)
    gaps = [b - a for a, b in itertools.pairwise(attempts)]
    assert gaps[:5] == pytest.approx([0.1, 0.2, 0.4, 0.8, 1.6], abs=1e-9)
    assert gaps[5:] == pytest.approx([2.0] * (len(gaps) - 5), abs=1e-9)
    assert attempts[-2] <= D.first_contact < attempts[-1]  # the first attempt past 20 s
    assert clock.time() == attempts[-1]  # … and it stops right there
    with pytest.raises(HostGone, match=r"cannot reach 127\.0\.0\.1:7499 — is the game still "
                       r"open\? \(connection refused; tried for 20 s\)"):
        task.result()
    assert node.session.final and node.fatal is not None


@virtual_time
async def test_a_joiner_whose_connections_close_before_any_welcome_gives_up_at_first_contact(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """Something at the address accepts each connection and hangs up before a welcome:
    the joiner, never let in, gives up at the first attempt past ``first_contact``
    (20 s) saying so — not that it lost a host it had reached and could not get back in
    for ``retry_total`` (180 s), the bound it never used."""
    mem = MemoryNet()

    async def hang_up(ch: Any) -> None:
        ch.close()

    await mem.listen(hang_up, "127.0.0.1", 7499)
    node = joiner(tmp_path, mem, 7499, "Ana")
    task = node.start()
    await clock.until(task.done, "it gives up", within=60.0)
    assert D.first_contact < clock.time() <= D.first_contact + D.retry_max
    with pytest.raises(HostGone, match=r"^cannot get into the game at 127\.0\.0\.1:7499: "
                       r"the connection kept closing before the host let us in \(tried "
                       r"for 20 s\)$"):
        task.result()
    await clock.run_until(mem.close(), within=5.0)


# ---------------------------------------------------------------------- a lost host, mid-game
def crash(host: HostNode) -> None:
    """The host process dies (kill -9): its connections end (the joiners see their
    stream close), nothing more goes out — no bye —, and its port refuses."""
    assert host.server is not None
    host.server.close()
    for c in list(host.all_conns):
        c.ch.close()
    for t in list(host._tasks):
        t.cancel()
    assert host.table is not None
    host.table.close()


def count_attempts(clock: VirtualLoop, node: PeerNode) -> list[float]:
    """The instants of ``node``'s connection attempts, from now on."""
    attempts: list[float] = []
    real = node.connect
    assert real is not None

    async def counting() -> Any:
        attempts.append(clock.time())
        return await real()

    node.connect = counting
    return attempts


#: the back-off after a loss: retry_first (0.1 s) doubling, then retry_max (2 s) apart
BACKOFF = [0.1, 0.2, 0.4, 0.8, 1.6]


def backs_off(attempts: list[float], lost: float) -> None:
    """The attempts after a loss at ``lost``: each exactly where the back-off puts it."""
    gaps = [b - a for a, b in itertools.pairwise([lost, *attempts])]
    assert gaps[:5] == pytest.approx(BACKOFF[:len(gaps)], abs=1e-9)
    assert gaps[5:] == pytest.approx([D.retry_max] * len(gaps[5:]), abs=1e-9)


@virtual_time
async def test_a_joiner_that_loses_its_host_mid_game_backs_off_then_gives_up_in_bounded_time(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """The host dies at t=3 mid-game and never comes back. Each joiner sees its stream
    end at once, says so, and tries again: after retry_first, doubling to retry_max, and
    gives up with HostGone at the first attempt more than ``retry_total`` (180 s) after
    the loss — exactly — with its game kept on disk to resume."""
    mem = MemoryNet()
    host, peers = await table_of_three(tmp_path, clock, mem)
    attempts = [count_attempts(clock, p) for p in peers]
    await clock.advance_to(3.0)
    crash(host)
    await clock.advance(0.0)
    for p in peers:
        assert p.net_status == "connection to the host lost — reconnecting…"
    await clock.advance(0.1)
    for p in peers:  # the first retry, refused, said as it is (the loss was failure 1)
        assert p.net_status == f"cannot reach the host at 127.0.0.1:{host.port} — retrying (2)"
    tasks = [p.task for p in peers]
    await clock.until(lambda: all(t is not None and t.done() for t in tasks),
                      "both give up", within=300.0)
    for p, tried in zip(peers, attempts, strict=True):
        backs_off(tried, 3.0)
        assert tried[-2] - 3.0 <= D.retry_total < tried[-1] - 3.0  # the first past 180 s
        assert p.task is not None
        with pytest.raises(HostGone, match=r"cannot reach the host at 127\.0\.0\.1:\d+ "
                           r"again \(connection refused\) for 180 s: giving up"):
            p.task.result()
        assert p.table is not None and unfinished_games(p.data_dir, "peer")  # to resume
    assert clock.time() == pytest.approx(attempts[0][-1], abs=1e-9)  # it stops right there
    assert len(attempts[0]) == 5 + 89  # 3.1 … 6.1, then every 2 s to 184.1
    await stop(clock, host, peers, mem)


@virtual_time
async def test_a_host_back_within_the_bound_is_rejoined_on_the_next_retry_and_the_bound_restarts(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """The host dies at t=3 and is restarted from its files at t=30 on the same port:
    both joiners are back in their seats at their next attempt (30.1, on the 2 s grid
    from 6.1). A good connection resets the back-off and the bound: the host dies again
    at t=40, the joiners retry after retry_first again, and give up at the first
    attempt more than 180 s after t=40 — not after t=3."""
    mem = MemoryNet()
    host, peers = await table_of_three(tmp_path, clock, mem)
    attempts = [count_attempts(clock, p) for p in peers]
    await clock.advance_to(3.0)
    port = host.port
    crash(host)
    await clock.advance_to(30.0)
    for tried in attempts:
        backs_off(tried, 3.0)
        assert tried[-1] == pytest.approx(28.1, abs=1e-9)
    meta = unfinished_games(tmp_path / "host", "host")[0]
    again = HostNode.resume(host.identity, tmp_path / "host", meta, D)
    await again.listen("127.0.0.1", port, transport=mem.listen)
    back = await clock.until(lambda: all(p.ready for p in peers) and len(again.conns) == 2,
                             "both back in their seats", within=5.0)
    assert back == pytest.approx(30.1, abs=1e-9)
    for tried in attempts:
        assert tried[-1] == pytest.approx(30.1, abs=1e-9)
        tried.clear()
    await clock.advance_to(40.0)
    crash(again)
    tasks = [p.task for p in peers]
    await clock.until(lambda: all(t is not None and t.done() for t in tasks),
                      "both give up", within=300.0)
    for p, tried in zip(peers, attempts, strict=True):
        backs_off(tried, 40.0)
        assert tried[-2] - 40.0 <= D.retry_total < tried[-1] - 40.0
        assert p.task is not None and isinstance(p.task.exception(), HostGone)
    await again.close()
    await stop(clock, host, peers, mem)


# ---------------------------------------------------------------------- a seat gone for good
@virtual_time
async def test_a_seat_gone_for_good_is_abandoned_at_the_first_beat_past_open_hand_after(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """R8.6 on virtual time: Bo's node dies at t=0, its connection closes, and it never
    comes back. The host (``open_hand_after`` 30 s) abandons its seat at the first
    heartbeat more than 30 s after the game started waiting for it — not before, not
    later —; the deal is dealt again with the seat played open-handed, the game ends,
    and the host's and Ana's transcripts are identical and verify."""
    mem = MemoryNet()
    patient = NetSettings(open_hand_after=30.0)
    host, (ana, bo) = await table_of_three(tmp_path, clock, mem, net=patient)
    seen: list[tuple[float, str]] = []
    host.on_entry_hooks.append(lambda e: seen.append((clock.time(), e.kind)))
    assert bo.task is not None and ana.task is not None
    bo.task.cancel()
    await clock.run_until(asyncio.wait([bo.task]), within=1.0)
    host_task = asyncio.ensure_future(host.done.wait())
    sessions = [NetSession(host, host_task, bot=make_bot("heuristic", 0)),
                NetSession(ana, ana.task, bot=make_bot("heuristic", 1))]
    runs = asyncio.ensure_future(asyncio.gather(*(s.run() for s in sessions)))
    table = host.table
    assert table is not None
    await clock.until(lambda: 2 in host.watch.owed_since, "the game waits for Bo", within=60.0)
    since = host.watch.owed_since[2]
    assert 2 not in host.conns
    abandoned = await clock.until(lambda: any(k == "abandon" for _, k in seen),
                                  "Bo's seat abandoned", within=120.0)
    # beats every second from t=0: the first one more than 30 s after the wait began
    assert abandoned == pytest.approx(int(since + 30.0) + 1.0, abs=1e-9)
    assert [k for t, k in seen if since < t < abandoned] == []  # nothing in between
    await clock.run_until(runs, within=3600.0)
    assert all(s.core.finished and s.core.verdict is None for s in sessions), \
        [s.verdict for s in sessions]
    recs = [read_transcript(next((tmp_path / d / "games").glob("*.splitlog")), repair=True)
            for d in ("host", "Ana")]
    assert recs[0] == recs[1]
    v = verify_records(recs[0])
    assert v.ok and "Bo abandoned by the host" in v.summary, v.summary
    await stop(clock, host, [ana, bo], mem)


# ---------------------------------------------------------------------- heartbeats
@virtual_time
async def test_a_slow_handshake_is_never_pinged_and_completes(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """Issue 11: the heartbeat pinged connections still in their handshake, and a joiner
    that got ``ping`` where it waited for ``welcome`` dropped. Over a link with 2.25 s of
    delay each way the handshake spans four heartbeats (1 s): the joiner's first frames
    are exactly challenge then welcome, and pings come only after."""
    mem = MemoryNet()
    host = HostNode(Identity.generate(), tmp_path / "host", "Host", D, seats=None)
    port = await host.listen("127.0.0.1", 0, transport=mem.listen)

    def slow(link: Link) -> None:
        link.client.delay = link.server.delay = 2.25

    node = joiner(tmp_path, mem, port, "Ana", on_link=slow)
    seen: list[tuple[float, str]] = []
    node.frame_hooks.append(lambda f: seen.append((clock.time(), f.T)))
    node.start()
    await clock.advance(12.0)
    # challenge at 2.25; the hello reaches the host at 4.5 (beats at 1…4 pinged nothing);
    # welcome and lobby at 6.75; the first ping, sent at the beat at 5, at 7.25
    assert seen[:4] == [(2.25, "challenge"), (6.75, "welcome"), (6.75, "lobby"),
                        (7.25, "ping")]
    assert len(mem.links) == 1 and node.epoch == 0  # one connection, never dropped
    assert host.lobby_names == ["Host", "Ana"]
    await stop(clock, host, [node], mem)


@virtual_time
async def test_a_connection_that_sends_no_hello_is_refused_at_exactly_the_handshake_timeout(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """A connection that takes the challenge and then says nothing holds a slot for at
    most ``handshake_timeout`` (10 s): the host refuses it then ("no hello within 10 s",
    fatal) and closes it — it is never pinged meanwhile, and never enters the lobby."""
    mem = MemoryNet()
    host = HostNode(Identity.generate(), tmp_path / "host", "Host", D, seats=None)
    port = await host.listen("127.0.0.1", 0, transport=mem.listen)
    ch = await mem.connector("127.0.0.1", port)()
    got: list[tuple[float, Any]] = []

    async def read() -> None:
        try:
            while True:
                frame = decode_frame(await ch.recv(), from_host=True)
                got.append((clock.time(), frame))
        except ChannelClosed:
            got.append((clock.time(), "closed"))

    reader = asyncio.ensure_future(read())
    await clock.advance(9.999)
    assert [f.T for _, f in got] == ["challenge"] and host.all_conns
    await clock.run_until(reader, within=0.001)
    (t1, chal), (t2, err), (t3, end) = got
    assert (t1, chal.T) == (0.0, "challenge")
    assert t2 == t3 == D.handshake_timeout
    assert (err.T, err.code, err.fatal) == ("error", "protocol", True)
    assert err.reason == "no hello within 10 s" and end == "closed"
    assert not host.all_conns and host.lobby_names == ["Host"]
    await host.close()
    await clock.run_until(mem.close(), within=5.0)


@virtual_time
async def test_a_seat_gone_silent_is_shown_then_dropped_at_its_instants(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """Bo's cable is pulled (nothing arrives either way; nobody is told). The host marks
    seat 2 "silent" at the first heartbeat past ``silent_after`` (5 s) and tells Ana; Bo
    reconnects at the first host frame it misses past ``host_timeout`` (10 s); the host
    never needs ``drop_after``, because the new connection replaces the old one."""
    mem = MemoryNet()
    host, (ana, bo) = await table_of_three(tmp_path, clock, mem)
    await clock.advance_to(3.0)
    link = next(lk for lk in mem.links if lk.client is bo.ch)
    heard = host.conns[2].last_heard
    assert heard == 3.0  # its pong to the beat at 3
    link.cut()
    silent_at = await clock.until(lambda: host.seat_states()[2][0] == "silent",
                                  "seat 2 shown silent", within=30.0)
    assert silent_at == 9.0  # beats at 4…8 find it quiet ≤ 5 s; at 9, 6 s > 5 s
    await clock.until(lambda: ana.seat_states().get(2, ("", 0))[0] == "silent",
                      "Ana told", within=1.0)
    assert clock.time() == 9.0
    back_at = await clock.until(lambda: bo.epoch == 1, "Bo notices", within=30.0)
    assert back_at == 3.0 + D.host_timeout  # last frame it got: the ping at 3
    await clock.until(lambda: bo.ready and host.seat_states()[2][0] == "ok",
                      "Bo back", within=5.0)
    assert clock.time() < back_at + 1.0  # retry_first later
    await stop(clock, host, [ana, bo], mem)


@virtual_time
async def test_a_connection_quiet_past_drop_after_is_closed_by_the_host(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """A member whose link is cut and that does not come back (its joiner is gone): the
    host closes that connection at the first heartbeat past ``drop_after`` (60 s) and the
    lobby loses it then — not before, not later."""
    mem = MemoryNet()
    host = HostNode(Identity.generate(), tmp_path / "host", "Host", D, seats=None)
    port = await host.listen("127.0.0.1", 0, transport=mem.listen)
    node = joiner(tmp_path, mem, port, "Ana")
    node.start()
    await clock.until(lambda: host.lobby_names == ["Host", "Ana"], "Ana in", within=1.0)
    await clock.advance_to(2.0)
    node.task.cancel()  # type: ignore[union-attr]
    mem.links[0].cut()  # and its close never arrives
    await clock.advance(0.0)
    left = await clock.until(lambda: host.lobby_names == ["Host"], "Ana dropped",
                             within=120.0)
    assert left == 2.0 + D.drop_after + 1.0  # quiet 61 s > 60 s at the beat at 63
    await stop(clock, host, [node], mem)


# ---------------------------------------------------------------------- lockouts
async def _guess(clock: VirtualLoop, mem: MemoryNet, port: int, code: str, local: str,
                 tmp: Path) -> PeerNode:
    """A joiner with ``code`` from ``local``, run until it stops (or is in)."""
    node = joiner(tmp, mem, port, f"g{len(mem.links)}", local=local, code=code)
    task = node.start()
    await clock.until(lambda: task.done() or node.session.state.value == "lobby",
                      "a verdict on the code", within=30.0)
    return node


@virtual_time
async def test_wrong_codes_lock_out_an_address_for_exactly_the_window_then_the_game(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """Per address: three wrong codes from 10.1.1.1 lock it out (SECURE.md §7) until the
    oldest is 600 s old on the host's clock — a joiner there with the right code is told
    the wait to the second and gets in once it has passed; the rest of the LAN is not
    affected. Per game: the fifth wrong code in all closes the game to every newcomer."""
    mem = MemoryNet()
    limiter = AttemptLimiter(per_address=3, per_game=5, window=600.0, clock=clock.time)
    host = HostNode(Identity.generate(), tmp_path / "host", "Host", D, seats=None,
                    code=CODE, busy=secure_busy,
                    wrap=node_wrap(parse_code(CODE), D, limiter=limiter,
                               seats=lambda: host.player_keys()))
    port = await host.listen("127.0.0.1", 0, transport=mem.listen)
    nodes: list[PeerNode] = []
    for k in range(3):
        await clock.advance_to(10.0 * k)  # wrong codes at t = 0, 10, 20
        g = await _guess(clock, mem, port, WRONG, "10.1.1.1", tmp_path)
        nodes.append(g)
        assert isinstance(g.task and g.task.exception(), PeerFatal)
        assert "wrong code" in (g.fatal or ""), g.fatal
    await clock.advance_to(100.0)
    g = await _guess(clock, mem, port, CODE, "10.1.1.1", tmp_path)
    nodes.append(g)
    assert g.fatal is not None and "try again in 8 min 20 s" in g.fatal, g.fatal  # 600-100
    other = await _guess(clock, mem, port, CODE, "10.2.2.2", tmp_path)
    nodes.append(other)
    assert other.fatal is None and "Ana" not in host.lobby_names  # in: another address
    await clock.advance_to(599.0)
    g = await _guess(clock, mem, port, CODE, "10.1.1.1", tmp_path)
    nodes.append(g)
    assert g.fatal is not None and "try again in 1 s" in g.fatal, g.fatal
    await clock.advance_to(600.0)  # the first wrong code is 600 s old: no longer counted
    g = await _guess(clock, mem, port, CODE, "10.1.1.1", tmp_path)
    nodes.append(g)
    assert g.fatal is None and g.session.state.value == "lobby"
    for k in range(2):  # wrong codes 4 and 5 for this game, from elsewhere
        nodes.append(await _guess(clock, mem, port, WRONG, f"10.3.3.{k}", tmp_path))
    g = await _guess(clock, mem, port, CODE, "10.4.4.4", tmp_path)
    nodes.append(g)
    assert g.fatal is not None and "takes no more joiners" in g.fatal, g.fatal
    assert len(host.lobby_names) == 3  # the two let in stay
    await stop(clock, host, nodes, mem)


# ---------------------------------------------------------------------- the game starts
@virtual_time
async def test_a_joiner_cut_off_as_the_game_starts_is_welcomed_back_and_plays_it(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """Found by ``splitnet bench lan-load`` at 12×6 under load: a joiner whose connection
    is lost in the lobby while the lobby fills misses the game's header; when it
    reconnects the host welcomes it back to its seat (it holds no log yet) and then sends
    the header as record 0. That header must be caught up like any record — it used to
    fire the join machine's ``play`` a second time ("play is not allowed in state
    catching-up") and the seat stopped for good, stalling the table. Now Bo reconnects
    at ``host_timeout`` after its last frame, catches up from record 0 and the game ends
    with identical, verified transcripts."""
    mem = MemoryNet()
    host = HostNode(Identity.generate(), tmp_path / "host", "Host", D, seats=4, proofs=False,
                    parts=LAN_PARTS)
    port = await host.listen("127.0.0.1", 0, transport=mem.listen)
    ana, bo, cy = (joiner(tmp_path, mem, port, n) for n in ("Ana", "Bo", "Cy"))
    for p in (ana, bo):
        p.start()
    await clock.until(lambda: host.lobby_names == ["Host", "Ana", "Bo"], "in", within=1.0)
    await clock.advance_to(2.0)
    next(lk for lk in mem.links if lk.client is bo.ch).cut()  # nothing reaches Bo
    cy.start()  # the lobby fills: the host starts with Bo's seat, its header is lost
    await clock.run_until(host.started.wait(), within=1.0)
    assert bo.table is None
    back = await clock.until(lambda: bo.ready, "Bo back in the game", within=60.0)
    assert back < 2.0 + D.host_timeout + 2.0
    host_task = asyncio.ensure_future(host.done.wait())
    sessions = [NetSession(host, host_task, bot=make_bot("heuristic", 0))] + [
        NetSession(p, p.task, bot=make_bot("heuristic", i))  # type: ignore[arg-type]
        for i, p in enumerate((ana, bo, cy), start=1)]
    await clock.run_until(asyncio.gather(*(s.run() for s in sessions)), within=3600.0)
    assert all(s.core.finished and s.core.verdict is None for s in sessions), \
        [s.verdict for s in sessions]
    recs = [read_transcript(next((tmp_path / d / "games").glob("*.splitlog")), repair=True)
            for d in ("host", "Ana", "Bo", "Cy")]
    assert all(r == recs[0] for r in recs)
    assert verify_records(recs[0]).ok
    await stop(clock, host, [ana, bo, cy], mem)
