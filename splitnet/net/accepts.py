"""The host's wait for every seat's accept of the header (protocol/NETWORK.md §4), sans-IO:
from the first heartbeat after the start (or after a restart), every seat must accept
within the wait, else the host calls the game off — nothing secret flows before every
accept is in, so nobody loses anything by it, and no table waits for ever for a seat
that never takes its place::

    not pending ──▶ (stopped)      pending: within the wait ──▶ redraw (a new 15 s step)
                                   pending: past the wait ──▶ call off, naming the missing

The wait is this host's ``answer_timeout``, but within the header's agreed ``answer_s``
(whole seconds) and the next second: the joiners hold the call-off to that (§7), also
when this host runs with another wait than the one it agreed (restarted on the game, or
a rematch, whose header is the last game's).

>>> accept_wait(120.0, 60), accept_wait(120.0, 200), accept_wait(120.0, 119)
(61, 200, 120.0)
>>> w = AcceptWait()
>>> w.beat(10.0, pending=True, wait=61, missing=["Bo"])  # its first beat: 61 s from now
'redraw'
>>> w.left(10.5, pending=True, wait=61), w.beat(10.5, pending=True, wait=61, missing=[])
(60.5, None)
>>> w.beat(71.5, pending=True, wait=61, missing=["Bo"])
CallOff(why='Bo did not accept it within 61 s')
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from splitnet.net.waits import Countdown


@dataclass(frozen=True)
class CallOff:
    """Call the game off, telling every seat ``why``."""

    why: str


def accept_wait(answer_timeout: float, agreed_s: int) -> float:
    """How long an accept may be missing: this host's ``answer_timeout`` (as it runs
    now), under a header that agreed ``agreed_s``."""
    return min(max(answer_timeout, agreed_s), agreed_s + 1)


class AcceptWait:
    """The accept wait's clock (module docstring); ``pending``: there is a game, not
    yet started (some accept is missing) and not over; ``wait``: :func:`accept_wait`."""

    def __init__(self) -> None:
        self.clock = Countdown()

    def beat(self, now: float, *, pending: bool, wait: float,
             missing: Sequence[str]) -> CallOff | Literal["redraw"] | None:
        """A heartbeat at ``now``: the call-off (``missing``: the names of the seats
        that have not accepted), or "redraw" when the time left enters another step the
        screens show, or nothing."""
        if not pending:
            self.clock.stop()
            return None
        self.clock.start(now)  # (from its first heartbeat: never sooner than a seat saw it)
        if not self.clock.over(now, wait):
            return "redraw" if self.clock.step_changed(now, wait) else None
        return CallOff(f"{', '.join(missing)} did not accept it within {wait:g} s")

    def left(self, now: float, *, pending: bool, wait: float) -> float | None:
        """Seconds before the call-off (None: nothing pending, or not counting yet)."""
        return self.clock.left(now, wait) if pending else None

    def restart(self, now: float) -> None:
        """The whole wait again from ``now`` (the host's program was not running)."""
        self.clock.restart(now)
