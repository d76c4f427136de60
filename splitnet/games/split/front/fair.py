"""A :class:`~splitnet.frontend.TableSession` over an in-memory fair-deck game: you and
bots on one machine, every card dealt by the mental-poker protocol among separate peers
(:class:`splitnet.games.split.local.LocalGame`) and every round audited. What ``selfplay``
and ``play`` assemble; it lives here, above the game layer, because it wires the game
to bots and a front end.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from splitnet.frontend import HumanAgent, SessionBase
from splitnet.game.table import GameError
from splitnet.games.split import describe
from splitnet.games.split.bots import Bot, choose_off_loop
from splitnet.games.split.core import GameCore
from splitnet.games.split.local import LocalGame
from splitnet.games.split.rules import Action, Game


class FairSession(SessionBase):
    """A :class:`~splitnet.frontend.TableSession`: you and bots, dealt by the fair-deck
    protocol among in-memory peers, every round audited."""

    def __init__(self, game: LocalGame[GameCore], seat: int, bots: Sequence[Bot | None],
                 human: HumanAgent, bot_delay: float = 0.0) -> None:
        super().__init__(game.names, seat)
        self.game = game
        self.core = game.cores[seat]
        self.bots = bots
        self.human = human
        self.bot_delay = bot_delay
        self._narrator = describe.Narrator(self.players, seat)
        game.listeners.append(self._on_entry)

    @property
    def view(self) -> Game:
        return self.core.engine

    @property
    def record(self) -> dict[str, Any]:
        """The game record so far: every audited round with every card open (R8.4)."""
        return self.core.record

    def _on_entry(self, author: int, kind: str, body: dict[str, Any]) -> None:
        news = self._narrator.after_entry(self.core, author, kind, body)
        self._keep_round(self.core.engine)  # (before the news: its verdict is that round's)
        self._tell(news)
        self.status = self.core.progress()
        self._changed()

    async def submit(self, action: Action) -> None:
        await self.human.submit(action)

    async def chat(self, text: str) -> None:
        self.game.send(self.seat, "chat", {"text": text[:500]})

    async def run(self) -> None:
        g = self.game
        try:
            for _ in range(1_000_000):
                if g.finished:
                    if g.verdict is not None:
                        raise g.verdict
                    break
                if g.pump():
                    await asyncio.sleep(0)
                    continue
                seat = g.mover()
                if seat is None:
                    raise RuntimeError("the game is stuck: nobody owes a message")
                if seat == self.seat:
                    self.status = "your turn"
                    self._changed()
                    await self.human.choose_and_apply(
                        self.core.engine, seat, lambda a: g.play_move(self.seat, a))
                else:
                    self.status = f"waiting for {self.players[seat]}"
                    self._changed()
                    await asyncio.sleep(self.bot_delay)
                    bot = self.bots[seat]
                    assert bot is not None
                    g.play_move(seat, await choose_off_loop(bot, g.cores[seat].engine, seat))
        except GameError as e:
            self.verdict = f"game stopped: {e}"
            self.log.append(self.verdict)
        finally:
            g.close()
        self.finished = True
        self.status = "game over"
        self._changed()

