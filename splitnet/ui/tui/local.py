"""``splitnet play``: you against bots on this machine, at the full-screen table."""

from __future__ import annotations

import asyncio
import random
import secrets
import sys

from splitnet.bots import bot_player_name, make_bot
from splitnet.frontend import HumanAgent
from splitnet.localplay import LocalSession, LocalTable, SeededShuffle
from splitnet.rules import Settings, SettingsError


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


def play_tui(n_bots: int = 3, bot: str = "normal", seed: int | None = None,
             name: str = "You", *, settings: Settings | None = None) -> int:
    """Play one game against bots at the full-screen table; returns an exit status."""
    from splitnet.ui.tui import run_tui

    try:
        session = make_local_session(n_bots, bot, seed, name, settings=settings)
    except (ValueError, SettingsError) as e:
        print(f"splitnet: {e}", file=sys.stderr)
        return 2
    asyncio.run(run_tui(session, title="splitnet"))
    return 0
