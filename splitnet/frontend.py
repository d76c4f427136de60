"""What a front end (plain text, full screen) talks to: a :class:`TableSession`.

A session runs a whole game for one human seat: it asks the :class:`HumanAgent` for that
seat's moves, shows progress in words, and lets the front end read the seat's own engine
(``view``) — never another seat's cards. Local games, fair-deck self-play and LAN games
all provide this same interface, so front ends hold no rules and no networking.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from splitnet.rules import Action, Game, IllegalMove


class TableSession(Protocol):
    players: list[str]
    #: the human's seat
    seat: int
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


class SessionBase:
    """The state and notification every :class:`TableSession` shares: the narrated log,
    the status line, the verdict, and the callbacks run after each change."""

    def __init__(self, players: list[str], seat: int) -> None:
        self.players = players
        self.seat = seat
        self.log: list[str] = []
        self.status = "starting"
        self.verdict: str | None = None
        self.finished = False
        self._subs: list[Callable[[], None]] = []

    def subscribe(self, callback: Callable[[], None]) -> None:
        self._subs.append(callback)

    def _changed(self) -> None:
        for cb in list(self._subs):
            cb()


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
