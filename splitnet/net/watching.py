"""Who watches, as the players see it (protocol/NETWORK.md §14.10): the host's side that
tells each player connection, and the joiner's side that shows it — both sans-IO.

The host tells every lobby member and seat how many watch and the first
:data:`~splitnet.net.wire.MAX_WATCHING_NAMES` watchers' names in a ``watching`` frame,
at most once a heartbeat and only when that changed since the connection was last told
(:class:`WatchingTold`). It is informational only: no record, no seat's state, no clock
and no blame depends on it, and a joiner that never gets one shows nobody watching.

The joiner shows what it was told at most once every ``gap`` seconds
(:class:`WatchingBoard`): a host that sends thousands of them redraws its players'
screens no more often than that, and a frame that says something impossible (more
names than watchers) is ignored.

>>> b = WatchingBoard(gap=2.0)
>>> b.heard(2, ("Cy", "Di"), now=0.0), b.line()
(0.0, '2 watching (Cy, Di)')
>>> b.heard(3, ("Cy", "Di", "Eve"), now=0.5), b.line()  # too soon: shown at 2.0
(1.5, '2 watching (Cy, Di)')
>>> b.heard(1, ("Cy",), now=1.0)  # (replaces what waits; its timer runs already)
>>> b.flush(now=2.0), b.line()
(True, '1 watching (Cy)')
>>> b.heard(5, ("Cy", "Di", "Eve", "Fay", "Gus", "Hal"), now=9.0)  # more names than 5
>>> b.lost(), b.line()
(True, '')
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable
from dataclasses import dataclass, field
from typing import Final, TypeVar

from splitnet.net.wire import MAX_WATCHING_NAMES
from splitnet.text import shown

__all__ = ["WATCHING_GAP", "WatchingBoard", "WatchingTold", "watching_line"]

#: a joiner redraws for a ``watching`` frame at most once every this many seconds
WATCHING_GAP: Final = 2.0

Said = tuple[int, tuple[str, ...]]
K = TypeVar("K", bound=Hashable)


def watching_line(count: int, names: Iterable[str]) -> str:
    """``'2 watching (Cy, Di)'``, ``'12 watching (Cy, … and 4 more)'``, or ``''``: names a
    watcher chose, shown safely (no control character reaches a screen)."""
    listed = [shown(n, limit=32) for n in names]
    if count <= 0:
        return ""
    more = count - len(listed)
    tail = f" and {more} more" if more > 0 and listed else ""
    return f"{count} watching" + (f" ({', '.join(listed)}{tail})" if listed else "")


@dataclass
class WatchingTold:
    """The host's side: what each player connection was last told, so that a
    ``watching`` goes out only when it changed (keys: the connections, by identity)."""

    told: dict[Hashable, Said] = field(default_factory=dict)

    @staticmethod
    def said(count: int, names: Iterable[str]) -> Said:
        return count, tuple(names)[:MAX_WATCHING_NAMES]

    def due(self, conns: Iterable[K], now: Said) -> list[K]:
        """The connections to send ``now`` to (nobody watching is what a connection that
        was never told knows already); forgets the connections no longer given."""
        live = list(conns)
        keep = set(live)
        self.told = {c: s for c, s in self.told.items() if c in keep}
        out = [c for c in live if self.told.get(c, (0, ())) != now]
        for c in out:
            self.told[c] = now
        return out


class WatchingBoard:
    """The joiner's side: what its screens show of the host's ``watching`` frames —
    changed at most every ``gap`` s, reset when the connection is lost."""

    def __init__(self, gap: float = WATCHING_GAP) -> None:
        self.gap = gap
        self.shown: Said = (0, ())
        self.pending: Said | None = None
        #: how often what is shown changed (a flood's bound is on this)
        self.changes = 0
        self._last = -math.inf

    def line(self) -> str:
        return watching_line(*self.shown)

    def heard(self, count: int, names: tuple[str, ...], *, now: float) -> float | None:
        """A ``watching`` frame. Returns 0.0: shown now (redraw); a delay: it is shown
        at :meth:`flush` after that many seconds (set a timer); None: nothing to do
        (the same as shown, impossible, or waiting already with its timer set)."""
        if len(names) > count:
            return None  # more names than watchers: not a count to show
        said: Said = (count, names)
        waiting = self.pending is not None
        if said == self.shown:
            self.pending = None
            return None
        if now - self._last >= self.gap:
            self._show(said, now)
            return 0.0
        self.pending = said
        return None if waiting else self._last + self.gap - now

    def flush(self, *, now: float) -> bool:
        """The timer :meth:`heard` asked for: True if what is shown changed."""
        said, self.pending = self.pending, None
        if said is None or said == self.shown:
            return False
        self._show(said, now)
        return True

    def lost(self) -> bool:
        """The connection ended: nothing is known until the host says again (True if
        something was shown)."""
        self.pending = None
        if self.shown == (0, ()):
            return False
        self.shown = (0, ())
        self.changes += 1
        return True

    def _show(self, said: Said, now: float) -> None:
        self.shown, self._last = said, now
        self.changes += 1
