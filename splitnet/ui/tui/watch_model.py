"""What the full-screen spectator table (``splitnet watch``) shows, as data: built from
the watcher's checker alone — :class:`splitnet.verify.LiveVerifier`'s core of no seat,
replayed from the public log — and the lines the watcher's teller gives.

Each game draws its table through its front end's ``spectator(core, names)``
(:attr:`splitnet.frontends.FrontEnd.spectator`), which returns a :class:`Spectacle`:
every hand face down with its count, the public rows, matches and zones, the score
pads, who is thinking, each round's audit so far. A spectacle is made from a core of no
seat only (:func:`no_seat` refuses any other), whose engine knows only what every seat
knows (R8, S7): a card it shows is one the log has made public, and it says which
(:attr:`Spectacle.shown`) so that a test can hold it to that.

:class:`WatchModel` is the screen's state around it: the log lines, the "catching up"
status, the help overlay, the log's scroll, and the end — the results (``splitnet
verify``'s verdict), each round's audit and the transcript's path, or the verdict of a
bad record naming the seat.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

from prompt_toolkit.formatted_text import StyleAndTextTuples

from splitnet.text import shown

Line = StyleAndTextTuples
#: a seat's score pad drawn for a width (a game without pads: no lines)
PadDrawing = Callable[[int], list[Line]]


def no_seat(core: Any) -> None:
    """Refuse a core that holds a seat: a spectator's table is drawn from what a viewer of
    no seat may read (R8, S7), never from a player's own view."""
    if getattr(core, "seat", None) is not None:
        raise ValueError("a spectator's table is drawn from a core of no seat only")


F = TypeVar("F")


class ShownFaces(Generic[F]):
    """The one way a spectator's table reads a card's face: from the no-seat engine's
    ``faces`` (what it knows is public, R8, S7), each slot read counted in
    :attr:`shown`; ``draw(face, style)`` draws it (a face it does not know: face down)."""

    def __init__(self, faces: Sequence[F | None], draw: Callable[[F | None, str], Line]
                 ) -> None:
        self.faces = faces
        self.draw = draw
        self.shown: set[int] = set()

    def frags(self, slot: int, style: str = "") -> Line:
        face = self.faces[slot]
        if face is not None:
            self.shown.add(slot)
        return self.draw(face, style)


@dataclass(frozen=True)
class SeatFacts:
    """One seat as a spectator sees it."""

    seat: int
    name: str
    #: cards in the hand, face down
    cards: int
    #: the score the seat's pad shows ("now 12", "3×4=12")
    score: str
    #: the hand's cards every seat knows (Split: taken from the discard row, or an
    #: open-handed seat's whole hand, R8.6), as fragments
    open_cards: Line = field(default_factory=list)
    #: the score pad, drawn for a column's width
    pad: PadDrawing | None = None
    #: what lies in front of the seat (Split's matches), one line each
    front: tuple[Line, ...] = ()
    #: words beside the name: "dealer", "open-handed (R8.6)", "left (S5.7)"
    tags: tuple[str, ...] = ()
    #: the game waits for this seat now
    thinking: bool = False


@dataclass(frozen=True)
class Area:
    """A public part of the table: a title and its items (cards, objectives), laid out
    left to right and wrapped to the width."""

    title: str
    items: tuple[Line, ...]
    #: what the title line ends with, flush right ("Draw pile: 40")
    tail: str = ""


@dataclass(frozen=True)
class Spectacle:
    """The table of one game as a viewer of no seat sees it at one entry."""

    #: "Split · round 2 of 3 · dealer Ana"
    title: str
    seats: tuple[SeatFacts, ...]
    areas: tuple[Area, ...]
    #: who is thinking, in words ("waiting for Ana", "shuffling: Ana ✓  Bo …")
    progress: str
    #: each round's audit so far, a line each ("round 1: audit passed …")
    audits: tuple[str, ...]
    #: the card slots whose faces this table shows, and the deal they are of (the
    #: game's round number; 0 for a game of one deal) — every one is public
    shown: frozenset[int]
    deal: int = 0
    #: the game's own style rules (its cards' colours), added to the screen's
    style: tuple[tuple[str, str], ...] = ()


#: a game's spectator table from a core of no seat and the players' names (shown())
Spectator = Callable[[Any, Sequence[str]], Spectacle]


class Watched(Protocol):
    """The watcher's node, as the screen reads it (:class:`splitnet.net.watcher.WatchNode`)."""

    status: str
    target: int
    failed: str | None
    over: bool
    path: Path | None

    @property
    def have(self) -> int: ...


@dataclass(frozen=True)
class Ending:
    """The end screen: the verdict's lines, each round's audit, the transcript."""

    ok: bool
    #: ``splitnet verify``'s verdict on everything received (its summary's lines), or the
    #: bad record's verdict naming the seat, or why the watch stopped
    lines: tuple[str, ...]
    audits: tuple[str, ...]
    path: Path | None


class WatchModel:
    """The spectator screen's state: fed each record's lines (:meth:`told`) and the
    core after it (:meth:`update`), and the end (:meth:`finish`)."""

    def __init__(self, spectator: Callable[[Any], Spectator | None] | None = None) -> None:
        #: the header's game → its spectator table (None: the game has none: log only)
        self._find = spectator
        self._spectator: Spectator | None = None
        self.names: list[str] = []
        self.log: list[str] = []
        self.table: Spectacle | None = None
        self.status = "connecting…"
        self.heading = "splitnet watch"
        self.ending: Ending | None = None
        self.help = False
        #: how many of the newest log lines are scrolled out of view
        self.log_back = 0

    def start(self, spec: Any, names: Sequence[str]) -> None:
        """The header's game and players (entry 0)."""
        self.names = [shown(n, limit=32) for n in names]
        self.heading = f"splitnet watch · {shown(getattr(spec, 'title', '?'), limit=40)}"
        self._spectator = self._find(spec) if self._find is not None else None

    def told(self, lines: Sequence[str]) -> None:
        """The teller's lines for one record (already shown(): nothing a peer chose is
        printed raw)."""
        self.log.extend(lines)
        if self.log_back:  # a reader scrolled back: keep the same lines in view
            self.log_back += len(lines)

    def update(self, core: Any, node: Watched | None = None) -> None:
        """After a record that checked out: the table from ``core`` (of no seat)."""
        if core is not None and self._spectator is not None:
            no_seat(core)
            self.table = self._spectator(core, self.names)
        if node is not None:
            self.status = status_of(node)

    def finish(self, ending: Ending, node: Watched | None = None) -> None:
        self.ending = ending
        if node is not None:
            self.status = status_of(node)

    def scroll(self, delta: int) -> None:
        """``delta`` lines back (positive: older) in the log."""
        self.log_back = max(0, min(len(self.log) - 1, self.log_back + delta)) if self.log else 0


def status_of(node: Watched) -> str:
    """The watcher's state in a few words: "catching up: 12 of 40", "watching", "the
    host is away — retrying", "game over"."""
    if node.failed is not None:
        return "stopped: a bad record"
    if node.over:
        return "game over"
    if node.have < node.target:
        return f"catching up: {node.have} of {node.target}"
    return shown(node.status, limit=80)
