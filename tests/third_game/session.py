"""A High Card seat at a LAN table: the session a bot plays through, over a host or
joiner node — :class:`splitnet.app.lan_session.LanSeat`, which every game's LAN session
shares (the status line, chat, a bot's turn, the run loop and its end), with the four
things that are the game's: whose turn it is, how its bot chooses, how a move is sent,
what a turn does."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from splitnet.app.lan_session import LanSeat, Node
from splitnet.net.wire import WireError
from splitnet.session.log import Entry
from tests.third_game.bot import Bot
from tests.third_game.core import HighCardCore
from tests.third_game.rules import IllegalMove, name


class HighCardNetSession(LanSeat[int]):
    """One High Card seat on the LAN, played by a bot."""

    core: HighCardCore
    illegal = IllegalMove
    give_up_rule = "H6"

    def __init__(self, node: Node, task: asyncio.Future[Any], *, bot: Bot,
                 bot_delay: float = 0.0, clock: Callable[[], float] | None = None) -> None:
        table = node.table
        if table is None:
            raise ValueError("the game has not started")
        if not isinstance(table.core, HighCardCore):
            raise ValueError("this table does not play High Card")
        self.core = table.core
        super().__init__(node, task, table, bot_delay, clock)
        self.bot = bot
        table.listeners.append(self._on_entry)
        node.subscribe(self._changed)
        self._refresh()

    def _on_entry(self, entry: Entry) -> None:
        if entry.kind == "move":
            seat = entry.author
            card = self.core.engine.tricks[-1].plays[-1][1] if not self.core.engine.current \
                else self.core.engine.current[-1][1]
            self.log.append(f"{self.players[seat]} plays {name(card)}")
        self._changed()

    def _playing_status(self, notes: list[str]) -> str:
        return self.core.progress() + ("  — " + "; ".join(notes) if notes else "")

    def _my_turn(self) -> bool:
        return self.node.ready and self.core.can_move()

    async def _choose(self) -> int:
        return self.bot.choose(self.core.engine, self.seat)

    def _send_move(self, move: int) -> None:
        body = self.core.move_message(move)
        try:
            self.node.send_game("move", body)
        except WireError as e:  # the host refused it
            raise IllegalMove("net", e.reason) from None
        self._changed()

    async def _act(self) -> bool:
        if not self._my_turn():
            return False
        await self._bot_turn()
        return True
