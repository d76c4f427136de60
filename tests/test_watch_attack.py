"""Attacks on internet watching (NETWORK.md §14.8-9, SECURE.md §12) and on the spectator
table, each written as the malicious variant against the real code path, in process on
the in-memory network with a virtual clock:

- one watch invitation's holder cannot spend the watchers' wrong-code limits: whatever
  fails on its wormhole (a JOIN under the join code nobody holds, a WATCH JOIN under a
  wrong key) is counted on that wormhole alone, never against the game's watchers on
  the LAN or through the other watch invitations (SECURITY.md, the watch invitation's
  own limits);
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from splitnet.net.config import NetSettings
from splitnet.net.joincode import parse_code
from splitnet.net.links import node_wrap
from splitnet.net.secure import AttemptLimiter
from splitnet.net.secure_watch import WatchGate
from splitnet.net.watcher import WatchNode, watch_wrap
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
