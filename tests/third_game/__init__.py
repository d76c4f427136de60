"""High Card, the third game: a tiny hidden-hands card game on the fair deck that lives
here, outside ``splitnet/``, and plugs into the one table every game shares
(docs/ADDING_A_GAME.md is written from it; its rules are README.md here).

    rules.py    the rules (pure): settings, a seat's view, tricks, scores
    core.py     the net core (sans-IO): the fair deck's messages and the plays
    record.py   the game record and its referee
    bot.py      the bots
    spec.py     its GameSpec and its FrontEnd entry (what splitnet asks of a game)
    session.py  a LAN seat played by a bot
    local.py    a whole game on this machine, every seat in-process

:func:`registered` makes it a game the table runs for a ``with`` block (a test's
fixture): nothing outside the block, nor anything under ``splitnet/``, sees it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from splitnet import frontends
from splitnet.games import GameSpec
from tests.third_game.spec import FRONT, KEY, SPEC

__all__ = ["FRONT", "KEY", "SPEC", "registered"]


@contextmanager
def registered() -> Iterator[GameSpec]:
    """High Card (its spec and its front ends) registered for the block only."""
    with frontends.registered(FRONT):
        yield SPEC
