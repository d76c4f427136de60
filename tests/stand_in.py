"""In-process stand-in sessions for the front-end tests: one human against bots on one
machine, dealt by the seeded local stand-in (:class:`splitnet.localplay.SeededShuffle`)
instead of the fair-deck protocol. Only tests use them: ``splitnet play`` and
``selfplay`` deal through the fair deck (:class:`splitnet.games.split.front.fair.FairSession`)."""

from __future__ import annotations

import asyncio
import random
import secrets
from collections.abc import Sequence

from splitnet.frontend import HumanAgent, SessionBase
from splitnet.games.split import describe
from splitnet.games.split.bots import Bot, bot_player_name, make_bot
from splitnet.games.split.rules import Action, Settings
from splitnet.localplay import LocalTable, SeededShuffle


def play_local(n: int, bots: Sequence[Bot], seed: int,
               settings: Settings | None = None) -> LocalTable:
    names = [f"{b.name}-{i}" for i, b in enumerate(bots)]
    table = LocalTable(names, bots, SeededShuffle(seed), settings)
    table.run()
    return table


class LocalSession(SessionBase):
    """A :class:`~splitnet.frontend.TableSession` for one human against bots on one
    machine, driven by asyncio so a front end can run beside it."""

    def __init__(self, table: LocalTable, seat: int, human: HumanAgent,
                 bot_delay: float = 0.0) -> None:
        super().__init__(table.players, seat)
        self.table = table
        self.view = table.views[seat]
        self.human = human
        self.bot_delay = bot_delay
        self._narrator = describe.Narrator(self.players, seat)
        table.observers.append(self._on_move)

    def _on_move(self, action: Action | None, table: LocalTable) -> None:
        view = self.view
        self.log.extend(self._narrator.after_change(view, action.seat if action else None))
        if action is not None and view.phase in ("round_over", "game_over"):
            self.verdict = ("shuffle not verified: local stand-in deal (no fair-deck "
                            "protocol in this game)")
        self._changed()

    async def submit(self, action: Action) -> None:
        await self.human.submit(action)

    async def chat(self, text: str) -> None:
        self.log.append(f"{self.players[self.seat]}: {text}")
        self._changed()

    async def run(self) -> None:
        t, ref = self.table, self.table.referee
        for _ in range(t.settings.rounds):
            t.start_round()
            while ref.phase not in ("round_over", "game_over"):
                seat = ref.actor
                assert seat is not None
                if seat == self.seat:
                    self.status = "your turn"
                    self._changed()
                    await self.human.choose_and_apply(self.view, seat, t.play)
                else:
                    self.status = f"waiting for {self.players[seat]}"
                    self._changed()
                    if self.bot_delay:
                        await asyncio.sleep(self.bot_delay)
                    else:
                        await asyncio.sleep(0)
                    t.step()
        self.finished = True
        self.status = "game over"
        self._changed()


def make_local_session(n_bots: int = 3, bot: str = "normal", seed: int | None = None,
                       name: str = "You", *, bot_delay: float = 0.4,
                       settings: Settings | None = None) -> LocalSession:
    """A :class:`LocalSession` with the human at seat 0 and ``n_bots`` seed-fixed bots.

    ``bot_delay`` paces the bots so a person can follow their moves in the log.
    """
    settings = settings or Settings()
    settings.check_players(n_bots + 1)
    seed = seed if seed is not None else secrets.randbits(32)
    rng = random.Random(seed)
    bots = [make_bot(bot, rng.randrange(2**31)) for _ in range(n_bots)]
    names = [name] + [bot_player_name(i, taken=[name]) for i in range(n_bots)]
    table = LocalTable(names, [None, *bots], SeededShuffle(seed), settings)
    return LocalSession(table, 0, HumanAgent(), bot_delay=bot_delay)
