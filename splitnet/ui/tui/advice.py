"""The hint key's adviser: which move the strong bot would make here, and why, in words.

The table only calls a :data:`~splitnet.ui.tui.model.Hinter` — ``(this seat's view,
seat) -> (move, hint in words)`` — and shows the words with the key that plays the
move. This module provides the default one: the strong bot's ``suggest`` (its move and
its reason, from :mod:`splitnet.games.split.bots.search`). The adviser sees only this seat's own
view (R8): the hidden cards stay hidden.
"""

from __future__ import annotations

from collections.abc import Sequence

from splitnet.games.split.bots.search import suggest
from splitnet.games.split.rules import Action, Game
from splitnet.ui.tui.model import Hinter


def default_hinter(players: Sequence[str] | None = None, *,
                   samples: int | None = None) -> Hinter:
    """The strong bot's ``suggest`` for this seat's decision (None when it has none).
    ``players`` name the seats in the words; ``samples`` fixes the search's sample count
    instead of its time budget (the same advice every time, e.g. in tests)."""
    names = list(players) if players is not None else None

    def strong(game: Game, seat: int) -> tuple[Action, str] | None:
        try:
            action, reason = suggest(game, seat, names=names, samples=samples)
        except ValueError:  # no decision for this seat now
            return None
        return action, str(reason)

    return strong
