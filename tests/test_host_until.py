"""The host's bounded waits (``HostNode._until``: the final acks, the accepts, a
rematch's answers) end at their deadline on any clock, even when a change wakes them
a hair before it — found by the LAN simulator with watchers (tests/net_adversary.py):
0.1 + 0.2 s is 0.30000000000000004, so a wake at 0.3 s left a remainder far below the
clock's resolution, whose timeout fired at once without time passing, again and again:
the loop never went idle."""

from __future__ import annotations

import asyncio
from pathlib import Path

from splitnet.net.config import NetSettings
from splitnet.net.host import HostNode
from splitnet.session.identity import Identity
from tests.virtual_time import VirtualLoop, virtual_time


@virtual_time
async def test_a_wait_woken_a_hair_before_its_deadline_ends_at_the_deadline(
        tmp_path: Path, clock: VirtualLoop) -> None:
    host = HostNode(Identity.generate(), tmp_path, "Host", NetSettings(), seats=3,
                    proofs=False)
    loop = asyncio.get_running_loop()
    await clock.run_until(asyncio.sleep(0.1 - loop.time()), within=1.0)
    assert loop.time() + 0.2 > 0.3  # (the deadline a float's hair after the wake)
    loop.call_at(0.3, host._stirred.set)  # a change just before the deadline
    woken = 0

    def done() -> bool:
        nonlocal woken
        woken += 1
        assert woken < 100, "the wait spins at its deadline"
        return False

    await clock.run_until(host._until(done, 0.2), within=1.0)
    assert 0.3 <= loop.time() <= 0.3 + 1e-9 and woken <= 3
