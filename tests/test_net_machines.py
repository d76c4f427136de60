"""The node's state machines (protocol/NETWORK.md §11), each alone with an injected
clock, and wired into the host over in-memory channels (no sockets, no wall clock).

Reproduces issue 11's lobby failures: a ``--seats`` lobby that starts with fewer seats
than it was opened for, and heartbeats that ping a connection still in its handshake.
"""

from __future__ import annotations

import doctest
from pathlib import Path
from typing import Any

import pytest

from splitnet.net import (
    conn_state,
    game_state,
    join_acks,
    join_link,
    join_rematch,
    join_state,
    lobby_state,
    machine,
    waits,
)
from splitnet.net.config import NetSettings
from splitnet.net.conn_state import ConnEvent, ConnMachine, ConnState
from splitnet.net.frames import Bye, Frame, Hello, Ping
from splitnet.net.game_state import GameEvent, GameMachine, GameState
from splitnet.net.host import Conn, HostNode
from splitnet.net.join_state import JoinEvent, JoinMachine, JoinState, Retry
from splitnet.net.lobby_state import LobbyEvent, LobbyMachine, LobbyState
from splitnet.net.machine import IllegalTransition
from splitnet.net.peer import PeerNode
from splitnet.net.wire import NET_PROTOCOL, decode_frame
from splitnet.session.identity import Identity
from splitnet.ui.lobby import JoinLobby


# ---------------------------------------------------------------------- the machines alone
def test_lobby_starts_by_itself_only_when_full() -> None:
    m = LobbyMachine(seats=6)
    for n in range(1, 6):
        assert m.players(n) is LobbyState.OPEN and not m.auto_start()
    assert m.players(6) is LobbyState.FULL and m.auto_start()
    assert m.players(4) is LobbyState.OPEN and not m.auto_start()  # two left: no start
    assert m.can_begin()  # … unless the host chooses to (R3.1: 2–6)
    m.begin()
    assert m.state is LobbyState.STARTING
    with pytest.raises(IllegalTransition):
        m.begin()  # one start only
    m.fire(LobbyEvent.STARTED)
    with pytest.raises(IllegalTransition):
        m.fire(LobbyEvent.CLOSE)  # a started game is not a lobby to close


def test_lobby_without_seats_waits_for_the_host_and_refuses_one_player() -> None:
    m = LobbyMachine(seats=None)
    assert m.players(6) is LobbyState.OPEN and not m.auto_start() and not m.accepting
    m.players(1)
    assert not m.can_begin()
    with pytest.raises(ValueError, match=r"R3\.1"):
        m.begin()
    assert m.state is LobbyState.OPEN  # refused: nothing changed
    m.fire(LobbyEvent.CLOSE)
    assert not m.can_begin() and not m.accepting


def test_a_connection_is_pinged_only_past_its_hello() -> None:
    m = ConnMachine()
    assert m.state is ConnState.HANDSHAKING and not m.may_ping
    m.fire(ConnEvent.ADMIT)
    assert m.may_ping
    m.fire(ConnEvent.SEAT)
    assert m.state is ConnState.SEATED and m.may_ping
    m.fire(ConnEvent.DROP)
    assert not m.may_ping
    for e in (ConnEvent.ADMIT, ConnEvent.SEAT):
        with pytest.raises(IllegalTransition):
            m.fire(e)  # gone is final
    m.fire(ConnEvent.DROP)  # closing twice is closing once


def test_join_machine_says_lobby_only_after_a_welcome() -> None:
    m = JoinMachine()
    assert m.state is JoinState.CONNECTING
    m.fire(JoinEvent.LOBBY)
    with pytest.raises(IllegalTransition):
        m.fire(JoinEvent.LOBBY)  # welcomed once per connection
    with pytest.raises(IllegalTransition):
        m.fire(JoinEvent.OVER)  # a lobby has no log to finish
    assert m.state is JoinState.LOBBY
    m.fire(JoinEvent.LOST)
    assert m.state is JoinState.CONNECTING
    m.fire(JoinEvent.PLAY)
    assert m.in_game and m.state is JoinState.CATCHING_UP
    m.fire(JoinEvent.SYNCED)
    assert m.state is JoinState.PLAYING
    m.fire(JoinEvent.OVER)
    assert m.final
    with pytest.raises(IllegalTransition):
        m.fire(JoinEvent.PLAY)


def test_the_link_walks_every_row_of_its_table_on_an_advancing_clock() -> None:
    """join_link.py (NETWORK.md §11.9): every row of the table is taken, each by what
    the joiner meets, on a clock this test moves; what each step says is the link's
    own word, never read back from a status line."""
    from splitnet.net.join_link import (
        TABLE,
        Cause,
        End,
        Finish,
        Link,
        LinkEvent,
        LinkState,
        Log,
        Quit,
        Wait,
    )
    taken: set[tuple[LinkState, LinkEvent]] = set()
    net = NetSettings(retry_first=1.0, retry_max=2.0, first_contact=5.0, retry_total=30.0,
                      final_wait=10.0)

    def walk(link: Link) -> None:
        link.on_change = lambda old, e, new: taken.add((old, e))
    t = 0.0
    link = Link(net, "h:1", rematch=False, now=t)
    walk(link)
    link.dialing(t)
    step = link.unreachable(t, "refused", Log())  # DIALING --unreachable--> BACKING_OFF
    assert step == Wait(1.0, "cannot reach h:1 — is the game still open? (refused) — "
                             "retrying (1)")
    t += step.seconds
    link.dialing(t)  # BACKING_OFF --retry--> DIALING
    step = link.ended(t, End(Cause.SENT_AWAY, "full"), Log())  # DIALING --ended-->
    assert step == Wait(2.0, "full — retrying (1)")
    t = 6.0  # past first_contact: the next attempt that fails is the last
    link.dialing(t)
    step = link.ended(t, End(Cause.SENT_AWAY, "full"), Log())  # --out of time--> GAVE_UP
    assert step == Quit("the host at h:1 kept sending us away for 5 s: full")
    assert link.state is LinkState.GAVE_UP and link.final
    with pytest.raises(IllegalTransition):
        link.dialing(t)  # a link that gave up dials no more

    t = 100.0
    link = Link(net, "h:1", rematch=False, in_game=True, now=t)  # resumes a game
    walk(link)
    link.dialing(t)
    link.welcomed(t)  # DIALING --welcomed--> IN
    log = Log(finished=False)
    assert link.read_timeout(t, log) == net.host_timeout
    t += 50.0  # a long game: the bound counts from the end of the connection
    step = link.ended(t, End(Cause.HOST_LEFT, "restarting"), log)  # IN --ended-->
    assert step == Wait(1.0, "the host left (restarting) — retrying")
    t += 1.0
    link.dialing(t)
    step = link.ended(t, End(Cause.LOST), log)  # closed before a welcome: the line stays
    assert step == Wait(2.0, "the host left (restarting) — retrying")
    link.dialing(t := t + 2.0)
    link.welcomed(t)
    log = Log(finished=True, finished_at=t)  # the game ends while we are in
    assert link.read_timeout(t + 4.0, log) == 6.0
    assert link.read_timeout(t + 10.0, log) is None  # the final wait is over
    step = link.ended(t + 10.0, End(Cause.LOST), Log(finished=True, finished_at=t,
                                                      over=True))
    assert step == Finish() and link.state is LinkState.DONE  # BACKING_OFF --complete-->

    link = Link(net, "h:1", rematch=True)
    walk(link)
    link.fault()  # DIALING --fault--> FAILED
    for welcomed in (True, False):  # IN, BACKING_OFF --fault--> FAILED
        link = Link(net, "h:1", rematch=True)
        walk(link)
        link.dialing(0.0)
        if welcomed:
            link.welcomed(0.0)
        else:
            link.unreachable(0.0, "refused", Log())
        link.fault()
        assert link.state is LinkState.FAILED
    assert taken == set(TABLE), sorted((s.value, e.value) for s, e in set(TABLE) - taken)


def test_a_rematch_link_never_let_in_gives_up_at_rematch_wait_naming_the_game() -> None:
    """A rematch's joiner met only the finished game (not yet, §13): its bound is
    rematch_wait, not retry_total, and its line says what the host was on."""
    from splitnet.net.join_link import Cause, End, Link, Log, Quit, Wait
    net = NetSettings(rematch_wait=20.0)
    link, t = Link(net, "h:1", rematch=True), 0.0
    while True:
        link.dialing(t)
        step = link.ended(t, End(Cause.NOT_YET), Log())
        if not isinstance(step, Wait):
            break
        assert step.status == "waiting for the host to offer the rematch…"
        t += step.seconds
    assert 20.0 < t <= 22.0 and step == Quit(
        "no rematch: the host at h:1 did not offer one within 20 s (it was still on the "
        "game we finished)")


class _Finished:
    """What the rematch side asks of a finished game (game.rematch.PreviousGame): its
    id, its host and the check of an offer (here: the next first dealer is seat 1)."""

    def __init__(self, game: bytes) -> None:
        self.game_id, self.header = game, type("H", (), {"host": 0})()

    def check_offer(self, game: bytes, head: bytes, dealer: int) -> None:
        from splitnet.game.rematch import RematchError
        if dealer != 1:
            raise RematchError(f"rematch.first_dealer: expected seat 1 (R3.2), got {dealer}")


def test_the_rematch_side_walks_every_row_of_its_table() -> None:
    """join_rematch.py (NETWORK.md §11.10): each row taken by what the joiner meets; a
    yes goes out once per connection, a no with the one line it stops with."""
    from splitnet.net.frames import Answer, Bye
    from splitnet.net.join_rematch import TABLE, AnswerEvent, AnswerState, RematchSide
    taken: set[tuple[AnswerState, AnswerEvent]] = set()
    g = b"G" * 16

    def side(prev: Any = None, **kw: Any) -> RematchSide:
        s = RematchSide(prev, **{"leaves_after": False, "rejoin": False, "where": "h:1", **kw})
        s.on_change = lambda old, e, new: taken.add((old, e))
        return s
    looking = side(_Finished(g))
    looking.look_from(10.0)
    assert looking.wait_left(30.0, 120.0) == 100.0 and looking.decline("home") == Bye("home")
    assert looking.offered(g, b"", 1, [0], conn="c1", copy=None).send == Answer(g, True)
    assert looking.state is AnswerState.OFFERED and looking.wait_left(30.0, 120.0) is None
    assert looking.offered(g, b"", 1, [0, 1], conn="c1", copy=None).send is None  # (once)
    assert looking.offered(g, b"", 1, [0], conn="c2", copy=None).send == Answer(g, True)
    assert looking.clock(40.0, 90.0) and looking.offer_left(50.0) == 80.0
    assert looking.decline("") == Answer(g, False) and looking.lobby() is None
    looking.started()  # OFFERED --start--> STARTED
    assert looking.offered(g, b"", 1, [0], conn="c3", copy=None).send is None
    assert looking.stopping() is None and not looking.clock(60.0, 10.0)

    fresh = side(rejoin=True)  # IDLE --look--> LOOKING --offer--> OFFERED
    assert fresh.wants_copy()
    assert fresh.offered(g, b"", 1, [0], conn="c", copy=_Finished(g)).send == Answer(g, True)
    assert fresh.prev is not None and fresh.state is AnswerState.OFFERED
    refused = side(rejoin=True)  # IDLE --no--> DECLINED
    r = refused.offered(g, b"", 1, [0], conn="c", copy=None)
    assert r.send == Answer(g, False) and r.stop is not None and "no finished copy" in r.stop
    ignores = side()  # knows nothing of rematches: ignores the offer
    assert ignores.offered(g, b"", 1, [0], conn="c", copy=None).send is None
    ignores.started()  # IDLE --start--> STARTED

    quits = side(_Finished(g), leaves_after=True)  # LOOKING --no--> DECLINED
    r = quits.offered(g, b"", 1, [0], conn="c", copy=None)
    assert r == join_rematch.Reply(Answer(g, False), "no rematch: this seat does not stay "
                                                      "for rematches: we said no")
    bad = side(_Finished(g))
    r = bad.offered(g, b"", 0, [0], conn="c", copy=None)  # names the host, sends nothing
    assert r.send is None and r.stop == (
        "no rematch: the host's offer does not follow our game: rematch.first_dealer: "
        "expected seat 1 (R3.2), got 0 [host seat 0 at fault]")
    new_game = side(_Finished(g))
    assert new_game.lobby() == "no rematch: the host at h:1 opened a new game instead"
    assert new_game.stopping() == Bye("stopped")
    new_game.started()  # LOOKING --start--> STARTED
    then_no = side(_Finished(g))
    then_no.offered(g, b"", 1, [0], conn="c", copy=None)
    then_no.leaves_after = True
    then_no.offered(g, b"", 1, [0], conn="c", copy=None)  # OFFERED --no--> DECLINED
    assert taken == set(TABLE), sorted((s.value, e.value) for s, e in set(TABLE) - taken)


def test_retry_is_bounded_and_shorter_for_a_host_never_reached() -> None:
    t = [0.0]
    r = Retry(lambda: t[0], first=0.1, most=2.0, never_reached=20.0, total=180.0)
    waits = []
    while (w := r.failed()) is not None:
        waits.append(w)
        t[0] += w
        assert len(waits) < 1000
    assert 19.0 < t[0] <= 22.0 and max(waits) == 2.0  # gave up after ~first_contact
    r.good()  # reached once: now the long bound counts from the last good connection
    start = t[0]
    while (w := r.failed()) is not None:
        t[0] += w
    assert 180.0 < t[0] - start <= 182.0


# ---------------------------------------------------------------------- wired into the host
class MemChannel:
    """One in-memory end of a connection: what the host sends is kept, in order."""

    def __init__(self, peer: str) -> None:
        self.peer = peer
        self.sent: list[Frame] = []
        self.closed = False

    def send(self, payload: bytes) -> None:
        self.sent.append(decode_frame(payload, from_host=True))

    async def recv(self) -> bytes:  # pragma: no cover - the tests drive the host directly
        raise AssertionError("not used")

    async def drain(self) -> None:
        return None

    def close(self) -> None:
        self.closed = True

    async def wait_closed(self) -> None:
        return None

    def types(self) -> list[str]:
        return [f.T for f in self.sent]


def host(tmp_path: Path, seats: int | None) -> HostNode:
    return HostNode(Identity.generate(), tmp_path / "host", "Host", NetSettings(),
                    seats=seats, proofs=False)


def member(node: HostNode, name: str) -> tuple[Conn, MemChannel]:
    """A joiner whose hello the host accepts now (the signature checks are
    test_net_wire's; this is about the lobby's life)."""
    ch = MemChannel(f"10.0.0.{len(node.all_conns) + 2}:5000")
    conn = Conn(ch, ch.peer)
    node.all_conns.add(conn)
    conn.key = Identity.generate().public_key_bytes()
    conn.name = name
    node._let_through(conn, Hello(NET_PROTOCOL, name, conn.key, b"", None, 0, None, None))
    return conn, ch


def test_a_full_lobby_starts_with_every_seat_it_was_opened_for(tmp_path: Path) -> None:
    """Issue 11: the start used to be scheduled when the lobby filled and run later with
    whoever was left. Now it starts as it fills, with exactly ``--seats`` seats."""
    node = host(tmp_path, seats=3)
    a, _ = member(node, "Ana")
    assert node.table is None and node.lobby.state is LobbyState.OPEN
    _, bch = member(node, "Bo")
    a.close()
    node._dropped(a)  # Ana drops right after the lobby filled
    table = node.table
    assert table is not None and table.n == 3, "a --seats 3 game started without 3 seats"
    assert node.lobby.state is LobbyState.STARTED
    assert table.names == ["Host", "Ana", "Bo"]  # Ana holds her seat: she may come back
    assert node.seat_states()[1][0] == "gone" and node.seat_states()[2][0] == "ok"
    assert bch.types()[:2] == ["welcome", "lobby"] and "rec" in bch.types()


def test_a_member_gone_before_the_lobby_fills_does_not_count(tmp_path: Path) -> None:
    """A member whose connection ended (its handler not yet aware) when the last player
    arrives: the lobby is not full, nothing starts, and it fills again later."""
    node = host(tmp_path, seats=3)
    a, _ = member(node, "Ana")
    a.close()  # closed, not yet _dropped
    member(node, "Bo")
    assert node.table is None and node.lobby.state is LobbyState.OPEN
    assert node.lobby_names == ["Host", "Bo"]
    member(node, "Cy")
    assert node.table is not None and node.table.names == ["Host", "Bo", "Cy"]


async def test_the_host_can_still_start_a_smaller_table_by_choice(tmp_path: Path) -> None:
    node = host(tmp_path, seats=6)
    member(node, "Ana")
    member(node, "Bo")
    assert node.can_start and node.table is None
    await node.start()
    assert node.table is not None and node.table.n == 3
    await node.start()  # again: nothing happens
    assert node.table.n == 3


def test_the_heartbeat_never_pings_a_connection_in_its_handshake(tmp_path: Path) -> None:
    """Issue 11: a joiner that got ``ping`` where it waited for ``welcome`` dropped and
    reconnected. A connection is pinged only in a state that allows it."""
    node = host(tmp_path, seats=None)
    ch = MemChannel("10.0.0.9:5000")
    greeting = Conn(ch, ch.peer)
    node.all_conns.add(greeting)
    _, mch = member(node, "Ana")
    for k in range(1, 4):
        node._beat(greeting.last_heard + k)
    assert ch.types() == [] and mch.types().count("ping") == 3
    with pytest.raises(IllegalTransition):
        greeting.send(Ping(1))  # impossible by construction, not by care


async def test_a_host_that_closes_its_lobby_says_so(tmp_path: Path) -> None:
    node = host(tmp_path, seats=None)
    _, ch = member(node, "Ana")
    closed: list[bool] = []
    node.on_close.append(lambda: closed.append(True))
    await node.close()
    assert ch.sent[-1] == Bye("the host closed the game")
    assert node.lobby.state is LobbyState.CLOSED and closed == [True]


def test_the_host_game_machine_orders_only_when_every_seat_is_back() -> None:
    m = GameMachine(resuming=True)
    assert not m.ready
    with pytest.raises(IllegalTransition):
        m.fire(GameEvent.BYE)  # no end before the log is finished
    m.fire(GameEvent.ALL_BACK)
    assert m.ready and m.state is GameState.ORDERING
    m.fire(GameEvent.FINISH)
    with pytest.raises(IllegalTransition):
        m.fire(GameEvent.FINISH)  # one end only
    m.fire(GameEvent.BYE)
    assert m.final
    fresh = GameMachine()
    assert fresh.state is GameState.LOBBY and fresh.ready
    with pytest.raises(IllegalTransition):
        fresh.fire(GameEvent.ALL_BACK)  # only a restarted host waits for its seats


@pytest.mark.parametrize("module", [machine, lobby_state, conn_state, join_state, join_link,
                                    join_rematch, join_acks, game_state, waits])
def test_the_machines_doctests(module: Any) -> None:
    failed, tried = doctest.testmod(module)
    assert tried > 0 and failed == 0


class _Core:
    """What the watch asks of a game core: a seat owes ``step``; ``refusal`` says why it
    may not be given up (None: it may)."""

    def __init__(self, step: str = "move", refusal: str | None = None) -> None:
        self.step, self.refusal, self.round_number = step, refusal, 1

    def owed_step(self, seat: int) -> str:
        return self.step

    def abandon_refusal(self, seat: int) -> str | None:
        return self.refusal


def test_the_seat_watch_times_out_or_gives_up_by_presence_limits_and_the_cores_word() -> None:
    """NETWORK.md §7 on the watch alone (waits.py), at exact times: a seat that owes its
    move is timed out just past ``move_timeout``, an answer past ``answer_timeout``;
    gone, with ``open_hand_after``, it is given up past that wait instead — only where
    the core allows it (else the timeout); present, never given up; its clock starts
    again once its message is ordered; the lowest seat first."""
    from splitnet.net.config import NetSettings
    from splitnet.net.frames import Presence
    from splitnet.net.waits import SeatWatch

    w = SeatWatch(NetSettings(answer_timeout=30.0, move_timeout=90.0))
    w.reset({1: Presence.OK, 2: Presence.OK})
    w.track(100.0, {2})
    assert w.due(190.0, _Core("move")) is None
    due = w.due(190.5, _Core("move"))
    assert due is not None and (due.kind, due.seat, due.waited, due.body()) == (
        "timeout", 2, 90, {"round": 1, "seat": 2, "waited": 90})
    assert w.due(130.5, _Core("shares")) is not None and w.due(130.0, _Core("shares")) is None
    w.track(150.0, {2}, answered=2)  # its move was ordered: it owes the next from now
    assert w.owed_since == {2: 150.0} and w.due(190.5, _Core("move")) is None
    w.track(150.0, {1, 2})
    got = w.due(300.0, _Core("move"))
    assert got is not None and got.seat == 1  # the lowest seat first
    gone = SeatWatch(NetSettings(answer_timeout=30.0, move_timeout=90.0, open_hand_after=40.0))
    gone.reset({1: Presence.OK, 2: Presence.OK})
    gone.track(0.0, {2})
    assert gone.due(41.0, _Core("move")) is None  # present: never given up
    assert gone.dropped(2)  # (its connection gone: the peers frame is due)
    assert gone.due(40.0, _Core("move")) is None
    got = gone.due(41.0, _Core("move"))
    assert got is not None and (got.kind, got.waited) == ("abandon", 41)
    refused = gone.due(91.0, _Core("move", refusal="the deal's shares are on their way"))
    assert refused is not None and refused.kind == "timeout"  # the core's word holds
    assert gone.back(2) and gone.presence(2) is Presence.OK
    assert gone.due(60.0, _Core("move")) is None  # back before its move limit


def test_the_seat_watch_tells_a_silent_seats_quiet_time_in_5_s_steps() -> None:
    from splitnet.net.config import NetSettings
    from splitnet.net.frames import Presence
    from splitnet.net.waits import SeatWatch

    w = SeatWatch(NetSettings(silent_after=5.0))
    w.reset({1: Presence.OK})
    told = [w.heard(1, q) for q in (1.0, 4.9, 6.0, 7.0, 9.9, 10.0, 14.0, 2.0, 3.0)]
    assert told == [False, False, True, False, False, True, False, True, False]
    assert w.states == {1: (Presence.OK, 0)}
    with pytest.raises(IllegalTransition):
        w.dropped(1) and w.heard(1, 0.0)  # no heartbeat hears a seat not connected


def test_a_joiners_clocks_name_a_host_only_for_a_wait_they_saw_begin() -> None:
    """NETWORK.md §7 on the joiner's watch alone (waits.py ``HostWatch``): a seat given up
    sooner than the header agrees (less the slack) names the host — but only when this
    peer saw the wait begin live: a seat already awaited when it synced, or a wait read
    just after the program was not running, starts no clock; our own seat given up while
    a message of ours is unordered names the host at once."""
    from splitnet.game.table import Limits
    from splitnet.net.config import NetSettings
    from splitnet.net.waits import HostWatch

    net = NetSettings(host_timeout=2.0)
    limits = Limits(answer_s=60, move_s=120, open_hand_after_s=30)
    w = HostWatch(net)
    w.synced(0.0, {2}, finished=False, started=True)  # seat 2 awaited already: no clock
    w.note_waits(1.0, True, {2})
    assert w.seen(10.0, {2}, lambda s: "move") == {}
    w.note_waits(11.0, True, {1}, author=2)  # seat 2 answered; seat 1's wait begins
    assert w.seen(20.0, {1}, lambda s: "move") == {1: (9.0, "move")}

    def fault(kind: str, waited: float, seat: int = 1, **kw: object) -> str | None:
        seen = w.seen(11.0 + waited, {seat}, lambda s: "move")
        args: dict[str, object] = dict(ours=3, host=0, names=("H", "A", "B", "C"),
                                       limits=limits, in_flight=False) | kw
        return w.give_up_fault(11.0 + waited, kind, {"seat": seat, "waited": 999}, seen,
                               **args)  # type: ignore[arg-type]
    slack = w.slack()
    assert fault("timeout", 120 - slack) is None
    f = fault("timeout", 120 - slack - 0.5)
    assert f is not None and f.endswith("[host seat 0 at fault]") and "only 116 s" in f
    assert fault("abandon", 30 - slack) is None and fault("abandon", 20) is not None
    w.sent(5.0)
    f = fault("abandon", 1.0, seat=3, in_flight=True)
    assert f is not None and "never ordered the message we sent" in f
    w.slept(40.0)  # the program was not running: nothing seen before counts
    assert w.seen(41.0, {1}, lambda s: "move") == {}
    w.note_waits(41.0, True, {2}, author=1)  # read just after waking: starts nothing
    assert w.waits_seen == {} and w.waiting_before is None


def test_a_joiners_clocks_name_a_host_that_stalls() -> None:
    """``HostWatch.tick``: our message unordered past ``answer_timeout`` + grace, the
    host's own seat owing past its limit + grace, a game some seat never accepted not
    called off — each the host's fault; a restarted host holding messages starts no
    clock."""
    from splitnet.game.table import Limits
    from splitnet.net.config import NetSettings
    from splitnet.net.waits import HostView, HostWatch

    net = NetSettings(host_timeout=2.0, answer_timeout=10.0, move_timeout=20.0)
    limits = Limits(answer_s=10, move_s=20, open_hand_after_s=30)

    def view(live: bool = True, started: bool = True, owes: str | None = None) -> HostView:
        return HostView(live, started, limits, ("H", "A"), frozenset({0}), 0, owes)
    w = HostWatch(net)
    w.sent(0.0)
    assert w.tick(5.0, view(live=False)) == (None, False) and w.sent_at == 5.0
    assert w.tick(17.0, view())[0] is None
    f, _ = w.tick(17.5, view())
    assert f is not None and "has not ordered our message for 12 s" in f
    w.ordered_ours(17.5, False)
    assert w.tick(18.0, view(owes="move"))[0] is None and w.host_owes_since == 18.0
    f, _ = w.tick(40.5, view(owes="move"))
    assert f is not None and "owed its move for 22 s" in f
    w.lost()
    w.synced(50.0, set(), finished=False, started=False)
    assert w.tick(50.0, view(started=False))[0] is None
    f, _ = w.tick(63.5, view(started=False))  # max(10 + 1, 10) + 2 s later
    assert f is not None and "A has not accepted it" in f


def test_a_joiner_that_gives_up_says_why_by_the_bound_that_ran_out() -> None:
    """``GiveUp`` (join_state.py): the one line a joiner stops with names the bound of the
    state it was in — never let in (the first contact), a rematch's wait for its offer,
    or the reconnect bound after it was in — and what its attempts met."""
    from splitnet.net.join_state import GiveUp

    def g(rematch: bool, reached: bool) -> GiveUp:
        return GiveUp("10.0.0.2:7777", 120.0, 30.0, 300.0, rematch=rematch, reached=reached)
    assert g(False, False).unreachable("refused") == (
        "cannot reach 10.0.0.2:7777 — is the game still open? (refused; tried for 30 s)")
    assert g(False, True).unreachable("refused") == (
        "cannot reach the host at 10.0.0.2:7777 again (refused) for 300 s: giving up")
    assert g(True, False).unreachable("refused") == (
        "no rematch: the host at 10.0.0.2:7777 did not offer one within 120 s")
    assert g(True, False).retrying("refused", 3) == "waiting for the host to offer the rematch…"
    assert g(False, False).retrying("refused", 3).endswith("— retrying (3)")
    assert g(True, False).turned_away(None, True).endswith(
        "within 120 s (it was still on the game we finished)")
    assert g(False, False).turned_away("full", False) == (
        "the host at 10.0.0.2:7777 kept sending us away for 30 s: full")
    assert g(False, False).turned_away(None, False).startswith("cannot get into the game")
    assert g(False, True).turned_away(None, False) == (
        "lost the host at 10.0.0.2:7777 and could not get back in for 300 s")


def test_a_joiner_says_joined_only_once_the_host_welcomed_it(tmp_path: Path) -> None:
    """Issue 11: a joiner with nobody at its address showed "Joined the game hosted at
    …" and "waiting for the host to start"."""
    node = PeerNode(Identity.generate(), tmp_path / "j", "Ana", "127.0.0.1", 7499)
    lobby = JoinLobby(node)
    assert lobby.address_label == "Connecting to:" and lobby.status == "connecting…"
    node.net_status = "cannot reach 127.0.0.1:7499 — is the game still open? — retrying (1)"
    lobby.changed()
    assert lobby.status.startswith("cannot reach 127.0.0.1:7499")
    node.net_status = None
    node.session.fire(JoinEvent.LOBBY)  # what the host's welcome does
    lobby.changed()
    assert lobby.address_label == "Joined the game hosted at:"
    assert lobby.status == "in the lobby — waiting for the host to start"


def test_a_new_lobby_closes_an_older_one_left_by_a_crash(tmp_path: Path) -> None:
    """The lobby is kept on disk before its code is shown (a crashed host opens it
    again); ``host --new`` opens another and the old one is not resumed later."""
    from splitnet.app.lan_common import _keep_lobby
    from splitnet.net.store import unfinished_games

    data = tmp_path / "host"
    first, second = bytes(16), bytes([1]) * 16
    _keep_lobby(host(tmp_path, 3), data, first, 7420, "0.0.0.0", "7-lunar-anchor")
    (kept,) = unfinished_games(data, "host")
    assert (kept.gid, kept.lobby, kept.code, kept.port) == (first, True, "7-lunar-anchor",
                                                           7420)
    _keep_lobby(host(tmp_path, 3), data, second, 7420, "0.0.0.0", "8-lunar-anchor")
    assert [m.gid for m in unfinished_games(data, "host")] == [second]
