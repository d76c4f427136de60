"""The accept phase (protocol/NETWORK.md §4): between the header and the last seat's
accept nothing secret flows, and no clock of the game runs — so a seat that never
accepts, or a host that drops an accept, must not leave the other seats waiting for
ever. The host calls the game off once some accept is missing for its answer wait, and
every joiner holds that call-off (and the host's silence) against its own clock.

Each test runs a host and two joiners over the in-memory network on the virtual clock
(tests/test_attacks_net.py's :class:`Lan`); the rows are SECURITY.md §6's "call-off".
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from splitnet.app.lan_session import NetSession
from splitnet.games.split.bots import make_bot
from splitnet.net.frames import Frame, HostError, Msg
from splitnet.net.game_state import GameState
from splitnet.net.host import Conn, HostNode
from splitnet.net.join_state import JoinState
from splitnet.net.peer import HostClosed, PeerNode
from splitnet.net.store import read_meta
from splitnet.net.wire import ErrorCode
from splitnet.session.identity import Identity
from splitnet.session.log import parse_message
from tests.test_attacks_net import FAST, Lan, net, seats_of
from tests.virtual_time import VirtualLoop, virtual_time, within

ANSWER = FAST["answer_timeout"]


class NeverAccepts(PeerNode):
    """A joiner that takes the header and never sends its accept."""

    def send_frame(self, frame: Frame) -> None:
        if isinstance(frame, Msg) and parse_message(frame.msg).kind == "accept":
            return
        super().send_frame(frame)


class DropsBosAccept(HostNode):
    """Never orders Bo's (seat 2's) accept: the game cannot start. ``calls_off``: what
    it does then — the honest call-off ("honest"), nothing ("never"), or one at its
    first heartbeat, long before the agreed wait ("at-once")."""

    calls_off = "honest"

    def _on_msg(self, conn: Conn, msg: bytes, sig: bytes) -> None:
        if conn.seat == 2 and parse_message(msg).kind == "accept":
            return
        super()._on_msg(conn, msg, sig)

    def _check_accepts(self, now: float) -> bool:
        if self.calls_off == "never":
            return False
        if self.calls_off == "at-once" and self.table is not None and not self.table.started:
            self.call_off("Bo did not accept it within 120 s")
            return True
        return super()._check_accepts(now)


class CallsOffAStartedGame(HostNode):
    """Sends every joiner the call-off once every seat has accepted."""

    def _check_accepts(self, now: float) -> bool:
        table = self.table
        if table is not None and table.started and not self.called_off_why:
            self.called_off_why = "Bo did not accept it within 120 s"
            for c in self.conns.values():
                c.send(HostError(ErrorCode.CLOSED.value, self.called_off_why, True, None,
                                 None, None))
        return super()._check_accepts(now)


def _finished(node: HostNode | PeerNode) -> bool:
    table = node.table
    assert table is not None
    return read_meta(table.files.meta).finished


@virtual_time
async def test_a_seat_that_never_accepts_has_the_game_called_off_for_everyone(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """Bo takes its seat and never accepts. Before, Ana and the host showed "waiting for
    Bo to accept the game" for ever. Now the host calls the game off once the answer
    wait is over; Ana stops with its reason, naming nobody at fault; both save the
    game as over, so nobody is offered to resume it, and every transcript holds the
    header and Ana's accept only."""
    lan = await Lan.start(tmp_path, make_peer=seats_of(tmp_path, {2: NeverAccepts}))
    ana, host = lan.peers[0], lan.host
    try:
        began = clock.time()
        why = await lan.stopped(ana)
        assert why == ("the game did not start: the host called it off: Bo did not accept "
                       f"it within {ANSWER:g} s"), why
        assert "at fault" not in why
        assert isinstance(lan.tasks[0].exception(), HostClosed)
        assert ana.session.state is JoinState.FAILED
        await within(host.done.wait())
        assert host.game.state is GameState.CALLED_OFF
        assert host.fatal == f"the game did not start: Bo did not accept it within {ANSWER:g} s"
        assert ANSWER < clock.time() - began <= ANSWER + 2 * FAST["ping_interval"]
        assert _finished(host) and _finished(ana)
        assert host.table is not None
        assert [e.kind for e in host.table.log.entries[1:]] == ["accept"]  # Ana's
        assert len(lan.records(1)) == 2  # the header (the host's own accept) and Ana's
    finally:
        await lan.close()


@virtual_time
async def test_a_host_that_drops_an_accept_is_named_by_its_author_and_the_rest_stop(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """The host never orders Bo's accept and calls the game off "Bo did not accept":
    Bo, whose accept went out long before, names the host; Ana cannot tell the host's
    word from the truth and stops with it (nothing was lost: no secret had flowed)."""
    host = DropsBosAccept(Identity.generate(), tmp_path / "p0", "Host", net(), seats=3,
                          proofs=False)
    lan = await Lan.start(tmp_path, host)
    ana, bo = lan.peers
    try:
        why = await lan.stopped(bo)
        assert ("the host called the game off (Bo did not accept it within 1.5 s), but it "
                "never ordered the accept we sent") in why, why
        assert why.endswith("[host seat 0 at fault]"), why
        assert (await lan.stopped(ana)).startswith("the game did not start: the host called")
    finally:
        await lan.close()


@virtual_time
async def test_a_host_that_neither_orders_an_accept_nor_calls_the_game_off_is_named(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """The host drops Bo's accept and then says nothing: Bo names it (its accept was
    never ordered) and so does Ana, once the host has let the answer wait (plus her
    grace) pass without calling the game off — before, she waited for ever."""
    host = DropsBosAccept(Identity.generate(), tmp_path / "p0", "Host", net(), seats=3,
                          proofs=False)
    host.calls_off = "never"
    lan = await Lan.start(tmp_path, host)
    ana, bo = lan.peers
    try:
        began = clock.time()
        why = await lan.stopped(ana)
        assert why.startswith("the game did not start: Bo has not accepted it for "), why
        assert "the host did not call it off" in why and why.endswith("[host seat 0 at fault]")
        assert clock.time() - began > ANSWER + FAST["host_timeout"]
        assert "has not ordered our message" in await lan.stopped(bo)
        assert host.game.state is GameState.ORDERING  # (it is the liar: it goes on)
    finally:
        await lan.close()


@virtual_time
async def test_a_call_off_long_before_the_agreed_wait_names_the_host(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """The host (agreeing 4 s for an answer) calls the game off at its first heartbeat,
    saying Bo did not accept in time: Ana got the header live and holds the claim
    against her own clock — the host is named."""
    host = DropsBosAccept(Identity.generate(), tmp_path / "p0", "Host",
                          net(answer_timeout=4.0), seats=3, proofs=False)
    host.calls_off = "at-once"
    lan = await Lan.start(tmp_path, host)
    ana = lan.peers[0]
    try:
        why = await lan.stopped(ana)
        assert why.startswith("the host called the game off after 0 s (Bo did not accept "
                              "it within 120 s), sooner than the 4 s the header agrees"), why
        assert why.endswith("[host seat 0 at fault]")
        assert not _finished(ana)
    finally:
        await lan.close()


@virtual_time
async def test_a_call_off_of_a_game_every_seat_accepted_names_the_host(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """Every accept is in Ana's log: a call-off now is a lie (an honest host calls off
    only a game it cannot start), and Ana names the host."""
    host = CallsOffAStartedGame(Identity.generate(), tmp_path / "p0", "Host", net(),
                                seats=3, proofs=False)
    lan = await Lan.start(tmp_path, host)
    ana = lan.peers[0]
    try:
        why = await lan.stopped(ana)
        assert why.startswith("the host called off a game every seat had accepted"), why
        assert why.endswith("[host seat 0 at fault]")
    finally:
        await lan.close()


@virtual_time
async def test_the_screens_say_whose_accept_they_wait_for_and_until_when(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """While Bo has not accepted, the host's and Ana's status lines name him and say
    when the game is called off (in the screens' 15 s steps), counting down; then both
    say why the game did not start."""
    host = HostNode(Identity.generate(), tmp_path / "p0", "Host", net(answer_timeout=120.0),
                    seats=3, proofs=False)
    lan = await Lan.start(tmp_path, host, make_peer=seats_of(tmp_path, {2: NeverAccepts}))
    ana = lan.peers[0]
    mine = NetSession(host, asyncio.ensure_future(host.done.wait()),
                      bot=make_bot("random", 1))
    hers = NetSession(ana, lan.tasks[0], bot=make_bot("random", 2))
    try:
        await clock.advance(1.0)
        for s in (mine, hers):
            assert s.status == "waiting for Bo to accept the game (called off in 2:00 if not)", \
                s.status
        await clock.advance(20.0)
        for s in (mine, hers):
            assert s.status.endswith("(called off in 1:45 if not)"), s.status
        await clock.advance(90.0)
        for s in (mine, hers):
            assert s.status.endswith("(called off in 0:15 if not)"), s.status
        why = await lan.stopped(ana)
        assert why.endswith("Bo did not accept it within 120 s"), why
        assert hers.status == f"game stopped: {why}", hers.status
        assert mine.status == ("game stopped: the game did not start: Bo did not accept "
                               "it within 120 s"), mine.status
    finally:
        await lan.close()


@virtual_time
async def test_a_host_restarted_with_a_longer_answer_wait_calls_off_as_its_header_agrees(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """The header agrees 1 s for an answer (the host's answer_timeout of 1.5 s, rounded
    down); then the host runs with a 10 s one — as a host restarted on its game (or in
    its rematch lobby, whose header is the last game's) with another --answer-timeout.
    Bo never accepts. Before, the host waited its own 10 s before it called the game
    off, and Ana, who holds it to the header's wait, named the honest host at 2.75 s.
    Now the host calls off by the header's wait: Ana stops with its reason."""
    host = HostNode(Identity.generate(), tmp_path / "p0", "Host", net(), seats=3,
                    proofs=False)
    lan = await Lan.start(tmp_path, host, make_peer=seats_of(tmp_path, {2: NeverAccepts}))
    ana = lan.peers[0]
    host.net = net(answer_timeout=10.0)
    try:
        why = await lan.stopped(ana)
        assert why == ("the game did not start: the host called it off: Bo did not accept "
                       "it within 2 s"), why
    finally:
        await lan.close()
