"""What a front end (plain text, full screen) talks to: a :class:`TableSession`.

A session runs a whole game for one human seat: it asks the :class:`HumanAgent` for that
seat's moves, shows progress in words, and lets the front end read the seat's own engine
(``view``) — never another seat's cards. Local games, fair-deck self-play and LAN games
all provide this same interface, so front ends hold no rules and no networking.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol, Self, SupportsIndex, overload, runtime_checkable

from splitnet.games.split.rules import Action, Game, IllegalMove
from splitnet.games.splito.engine import Game as SplitoGame
from splitnet.games.splito.engine import IllegalMove as SplitoIllegalMove
from splitnet.games.splito.engine import Play as SplitoPlay
from splitnet.text import shown


class TableSession(Protocol):
    players: list[str]
    #: the human's seat
    seat: int
    #: each seat's number on the screens, the key that names its player (a perfect
    #: bonus, R5.1): 1…n in seat order (a rematch keeps the seats, and so the keys)
    numbers: list[int]
    #: the human seat's own engine: everything it may know (R8), nothing more
    view: Game
    #: what happened, in words, oldest first
    log: list[str]
    #: what the table is waiting for now ("your turn: draw", "shuffling: Ana ✓ Bo …")
    status: str
    #: set after each round's audit: "shuffle verified …" or the verdict naming a cheater
    verdict: str | None
    finished: bool

    def subscribe(self, callback: Callable[[], None]) -> None:
        """``callback`` runs after every change (move, reveal, status, chat)."""

    async def submit(self, action: Action) -> None:
        """Play a move for the human seat; raises IllegalMove (nothing changes) if refused."""

    async def chat(self, text: str) -> None:
        """Say something to the table (shown in every player's log)."""

    async def run(self) -> None:
        """Drive the game to its end."""


class SplitoTableSession(Protocol):
    """What a Splito front end talks to (docs/SPLITO.md): the same shape as
    :class:`TableSession`, over the Splito engine. Local games (``play --game splito``)
    and LAN games provide it alike.

    ``view`` is the human seat's own :class:`splitnet.games.splito.engine.Game`: its current
    hand, the hands it held before, the zones and the central objectives (S7) — never a
    card the seat may not know. ``view.waiting_for()`` names the seats whose commitment
    (S7.3) is still missing this turn; ``view.committed(seat)`` says whether one is in."""

    players: list[str]
    seat: int
    view: SplitoGame
    log: list[str]
    status: str
    verdict: str | None
    finished: bool

    def subscribe(self, callback: Callable[[], None]) -> None:
        """``callback`` runs after every change (commitment, reveal, pass, status, chat)."""

    async def submit(self, play: SplitoPlay) -> None:
        """Commit the human seat's play for this turn (S5.2); raises
        :class:`splitnet.games.splito.engine.IllegalMove` (nothing changes) if refused."""

    async def chat(self, text: str) -> None:
        """Say something to the table (shown in every player's log)."""

    async def run(self) -> None:
        """Drive the game to its end."""


@runtime_checkable
class OffersOpenHand(Protocol):
    """A session whose seat may give another seat up for gone (the LAN host; Split:
    played open-handed, R8.6; Splito: it leaves the game, S5.7): the full-screen table's
    ``o`` and the plain front end's prompt use it."""

    def open_hand_offer(self) -> tuple[int, int] | None:
        """(seat, seconds the game has waited for it, disconnected), or None."""

    async def abandon(self, seat: int) -> None:
        """Give ``seat`` up from now on (the game's IllegalMove if that is not possible)."""


@runtime_checkable
class HoldsMoves(Protocol):
    """A session whose seat's move can wait although its engine says the turn is the
    seat's (a LAN seat: the host is out of reach, or our move is on its way to it): the
    full-screen table then says so instead of "your turn", and its move keys say why
    they do nothing."""

    def move_hold(self) -> str | None:
        """Why no move can be made now, in one sentence, or None (a move may be made, or
        the turn is not the seat's)."""


class ShownLines(list[str]):
    """A session's log: every line is passed through :func:`splitnet.text.shown` as it is
    added, so no character another peer chose (in a name, chat, a reason, a note) reaches
    a front end to be obeyed rather than shown; a line stays one line."""

    def __init__(self, lines: Iterable[str] = ()) -> None:
        super().__init__(shown(x) for x in lines)

    def append(self, line: str) -> None:
        super().append(shown(line))

    def extend(self, lines: Iterable[str]) -> None:
        super().extend(shown(x) for x in lines)

    def insert(self, index: SupportsIndex, line: str) -> None:
        super().insert(index, shown(line))

    def __iadd__(self, lines: Iterable[str]) -> Self:  # type: ignore[override,misc]
        self.extend(lines)
        return self

    @overload
    def __setitem__(self, index: SupportsIndex, line: str) -> None: ...
    @overload
    def __setitem__(self, index: slice, line: Iterable[str]) -> None: ...
    def __setitem__(self, index: SupportsIndex | slice, line: Any) -> None:
        if isinstance(index, slice):
            super().__setitem__(index, [shown(x) for x in line])
        else:
            super().__setitem__(index, shown(line))


class News(Protocol):
    """What a narrator (Split's or Splito's) makes of one log entry."""

    @property
    def lines(self) -> list[str]: ...

    @property
    def verdict(self) -> str | None: ...


@dataclass
class EndedRound:
    """A Split round as the session's seat saw it end: a copy of the seat's engine at
    that moment (the pads, the hands left, how the round ended), who dealt it, and the
    shuffle verdict its audit brought (R8.4). A front end made after the round — a
    resumed game's table, made once the saved log is replayed — shows the rounds before
    it from these, as the live table did."""

    view: Game
    dealer: int | None
    verdict: str | None = None


class SessionBase:
    """The state and notification every :class:`TableSession` shares: the narrated log,
    the status line, the verdict, and the callbacks run after each change.

    This is where text reaches the table front ends (plain and full screen): the players'
    names, every log line, the status and the verdict all pass through
    :func:`splitnet.text.shown` here — whatever a session puts in them, from whichever peer
    — so a front end can print them as they are."""

    def __init__(self, players: list[str], seat: int) -> None:
        self.players = [shown(p, limit=64) for p in players]
        self.seat = seat
        self.numbers = list(range(1, len(players) + 1))
        self._log = ShownLines()
        self._status = "starting"
        self._verdict: str | None = None
        self.finished = False
        self._subs: list[Callable[[], None]] = []
        #: every round of a Split game that has ended, oldest first (:meth:`_keep_round`)
        self.ended_rounds: list[EndedRound] = []
        self._dealt: dict[int, int] = {}  # round number → its dealer

    @property
    def log(self) -> list[str]:
        return self._log

    @log.setter
    def log(self, lines: Iterable[str]) -> None:
        self._log = ShownLines(lines)

    @property
    def status(self) -> str:
        return self._status

    @status.setter
    def status(self, text: str) -> None:
        self._status = shown(text)

    @property
    def verdict(self) -> str | None:
        return self._verdict

    @verdict.setter
    def verdict(self, text: str | None) -> None:
        self._verdict = None if text is None else shown(text)
        if self.ended_rounds:  # an audit reports after its round ended
            self.ended_rounds[-1].verdict = self._verdict

    def subscribe(self, callback: Callable[[], None]) -> None:
        self._subs.append(callback)

    def _changed(self) -> None:
        for cb in list(self._subs):
            cb()

    def _keep_round(self, view: Game) -> None:
        """After each applied entry of a Split game (``view``: the seat's engine): note
        who deals a round, and keep a copy of each round as it ends (:class:`EndedRound`)
        — a resumed game replays its saved log through here, so its table can still show
        every round."""
        end = view.last_end
        if view.phase not in ("round_over", "game_over"):
            if view.round_no:
                self._dealt[view.round_no] = view.dealer
        elif end is not None and end.marks and not (
                self.ended_rounds and self.ended_rounds[-1].view.round_no == view.round_no):
            self.ended_rounds.append(EndedRound(view.clone(),
                                                self._dealt.get(view.round_no)))

    def _tell(self, news: News) -> None:
        """A log entry in words (a narrator's news): its lines, and the verdict it
        brings, if any."""
        self.log.extend(news.lines)
        if news.verdict is not None:
            self.verdict = news.verdict


@dataclass
class _Pending:
    action: Action
    reply: asyncio.Future[None] = field(default_factory=lambda: asyncio.get_running_loop()
                                        .create_future())


class HumanAgent:
    """A seat played by a person: ``choose`` waits until the front end submits a move
    that the engine accepts; a refused move is reported back to the front end and the
    agent keeps waiting."""

    name = "human"

    def __init__(self) -> None:
        self._queue: asyncio.Queue[_Pending] = asyncio.Queue()
        self.waiting = False

    async def submit(self, action: Action) -> None:
        if not self.waiting:
            raise IllegalMove("R3.4", "it is not your turn: wait until the table asks you")
        pending = _Pending(action)
        await self._queue.put(pending)
        await pending.reply

    async def choose_and_apply(self, view: Game, seat: int,
                               apply: Callable[[Action], None]) -> Action:
        self.waiting = True
        try:
            while True:
                pending = await self._queue.get()
                try:
                    apply(pending.action)
                except IllegalMove as e:
                    pending.reply.set_exception(e)
                    continue
                pending.reply.set_result(None)
                return pending.action
        finally:
            self.waiting = False


@dataclass
class _PendingPlay:
    play: SplitoPlay
    reply: asyncio.Future[None] = field(default_factory=lambda: asyncio.get_running_loop()
                                        .create_future())


class SplitoHumanAgent:
    """A Splito seat played by a person (:class:`HumanAgent` for Splito): ``choose_and_apply``
    waits until the front end submits a play that the seat's core accepts (S5.2); a refused
    play is reported back to the front end and the agent keeps waiting. Outside the
    seat's choice (committed already, or the turn not yet open) a play is refused at once
    and nothing changes."""

    name = "human"

    def __init__(self) -> None:
        self._queue: asyncio.Queue[_PendingPlay] = asyncio.Queue()
        self.waiting = False

    async def submit(self, play: SplitoPlay) -> None:
        if not self.waiting:
            raise SplitoIllegalMove("S5.2", "no play of yours is awaited now: your play of "
                                    "this turn is committed, or the turn is not open yet")
        pending = _PendingPlay(play)
        await self._queue.put(pending)
        await pending.reply

    async def choose_and_apply(self, apply: Callable[[SplitoPlay], None]) -> SplitoPlay:
        self.waiting = True
        try:
            while True:
                pending = await self._queue.get()
                try:
                    apply(pending.play)
                except SplitoIllegalMove as e:
                    pending.reply.set_exception(e)
                    continue
                self.waiting = False
                pending.reply.set_result(None)
                return pending.play
        finally:
            self.waiting = False
