"""A seat is given up only when it is really gone (R8.6, GAME.md "limits", NETWORK.md §7;
SECURITY.md rows 93, 96, 97): a host that times out or abandons a connected, answering
seat at once — saying it waited longer than the header agrees — is refused by every
peer that watched the wait on its own clock, naming the host; a seat whose message the
host dropped and then abandoned learns it at once. On virtual time over the in-memory
network (tests/test_attacks_net.py's table: no sockets, no wall clock).
"""

from __future__ import annotations

import pytest

from splitnet.app.lan_session import LAN_PARTS
from splitnet.net.host import Conn, HostNode
from splitnet.session.identity import Identity
from splitnet.session.log import parse_message
from tests.test_attacks_net import Lan, net, prefix_verifies
from tests.virtual_time import VirtualLoop, until, virtual_time


class EagerHost(HostNode):
    """Gives up the first guest seat the game waits for at once, claiming it waited far
    longer than the header's limits: ``kind`` is ``timeout`` or ``abandon``, ``claims`` the
    ``waited`` it says."""

    kind = "timeout"
    claims = 999
    given_up = False

    def _check_timeouts(self) -> None:
        table = self.table
        if table is None or self.given_up or not table.started or table.core.finished:
            return
        waiting = [s for s in table.core.waiting_for() if s != table.host_seat]
        r = table.core.round_number
        if not waiting or r is None or table.core.owed_step(waiting[0]) != "move":
            return
        self.given_up = True
        self.send_game(self.kind, {"round": r, "seat": waiting[0], "waited": self.claims})


@pytest.mark.parametrize("kind", ["timeout", "abandon"])
@virtual_time
async def test_a_seat_given_up_at_once_is_refused_by_every_peer_on_its_own_clock(
        tmp_path: object, clock: VirtualLoop, kind: str) -> None:
    """Row 93: the header agrees 60 s for a move and 30 s before an abandonment; the
    host gives the seat to move up at the first beat, saying 999 s. Both peers saw the
    game wait well under that and stop naming the host; the entry is the host's signed
    word, valid on its face (verify cannot see clocks), so each transcript ends there."""
    from pathlib import Path

    assert isinstance(tmp_path, Path)
    host = EagerHost(Identity.generate(), tmp_path / "p0", "Host", net(), seats=3,
                     proofs=False, parts=LAN_PARTS)
    host.kind = kind
    lan = await Lan.start(tmp_path, host, parts=LAN_PARTS)
    try:
        await until(lambda: host.given_up, "the host gives a seat up")
        for p in lan.peers:
            why = await lan.stopped(p)
            assert "host seat 0 at fault" in why and "saw the game wait for" in why, why
            assert "the header agrees" in why, why
        for s in (1, 2):
            recs = lan.records(s)
            assert parse_message(_last_msg(recs)).kind == kind
            prefix_verifies(recs[:-1])
    finally:
        await lan.close()


def _last_msg(records: list[bytes]) -> bytes:
    from tests.test_attacks_net import _msg_of

    return _msg_of(records[-1])


class DropThenAbandon(HostNode):
    """Drops Bo's move and abandons Bo as soon as it may (a host that wants Bo's seat
    played by the bot), saying it waited past the agreed time."""

    dropped = False
    given_up = False

    def _on_msg(self, conn: Conn, msg: bytes, sig: bytes) -> None:
        if conn.seat == 2 and parse_message(msg).kind == "move":
            self.dropped = True
            return
        super()._on_msg(conn, msg, sig)

    def _check_timeouts(self) -> None:
        table = self.table
        if table is None or not self.dropped or self.given_up or table.core.finished:
            return
        r = table.core.round_number
        if r is None or 2 not in table.core.waiting_for():
            return
        self.given_up = True
        self.send_game("abandon", {"round": r, "seat": 2, "waited": 999})


@virtual_time
async def test_a_seat_whose_move_was_dropped_and_then_abandoned_learns_it_at_once(
        tmp_path: object, clock: VirtualLoop) -> None:
    """Row 96: Bo sends its move; the host drops it and abandons Bo's seat. Bo stops at
    that entry naming the host (before: it played on and learned nothing for 130 s)."""
    from pathlib import Path

    from splitnet.app.lan_session import NetSession
    from splitnet.games.split.bots import make_bot

    assert isinstance(tmp_path, Path)
    host = DropThenAbandon(Identity.generate(), tmp_path / "p0", "Host", net(), seats=3,
                           proofs=False, parts=LAN_PARTS)
    lan = await Lan.start(tmp_path, host, parts=LAN_PARTS)
    ana, bo = lan.peers
    import asyncio

    assert bo.task is not None
    session = NetSession(bo, bo.task, bot=make_bot("heuristic", 2))
    run = asyncio.ensure_future(session.run())
    try:
        # Ana, Bo: the first moves are the bots'; give Ana one too so the game reaches Bo
        ana_session = NetSession(ana, lan.tasks[0], bot=make_bot("heuristic", 1))
        ana_run = asyncio.ensure_future(ana_session.run())
        why = await lan.stopped(bo)
        assert host.given_up and "host seat 0 at fault" in why, why
        assert "never ordered the message we sent" in why or "saw the game wait" in why, why
        ana_run.cancel()
    finally:
        run.cancel()
        await lan.close()
