"""Build Splito games with chosen cards, and play turns by card id."""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

from splitnet.games.splito.engine import Game, Play, Side
from splitnet.games.splito.settings import SplitoSettings

GAME_ID = "0123456789abcdef0123456789abcdef"


def deck_for(settings: SplitoSettings, hands: Mapping[int, Sequence[str]],
             central: Sequence[str]) -> list[str]:
    """A deck order (S4.3) giving these cards first in these seats' hands; the other
    cards fill the remaining slots in canonical order."""
    n, h = settings.players, settings.hand_size
    deck: list[str | None] = [None] * settings.deck_size
    named: set[str] = set()
    for seat, cards in hands.items():
        slots = [k for k in range(n * h) if (settings.dealer + 1 + k) % n == seat]
        for slot, card in zip(slots, cards, strict=False):
            assert card not in named and card not in central, card
            deck[slot] = card
            named.add(card)
    from splitnet.games.splito.engine import full_deck

    rest = iter(c for c in full_deck(settings) if c not in named and c not in central)
    return [c if c is not None else next(rest) for c in deck]


def new_game(n: int, hands: Mapping[int, Sequence[str]] | None = None,
             central: Sequence[str] = ("OBJ01", "OBJ02"), **changes: Any) -> Game:
    s = SplitoSettings.standard(n, central_objectives=len(central), **changes)
    g = Game(s, GAME_ID)
    g.deal(list(central), deck_for(s, hands or {}, central))
    return g


def nonce(turn: int, seat: int) -> str:
    return f"{turn:016x}{seat:016x}"


def play(g: Game, choices: Mapping[int, tuple[str, Side]]) -> None:
    """One whole turn; seats not named play their first card to the left."""
    plays = []
    for s in range(g.n):
        if s in choices:
            card, side = choices[s]
            slot = g.slot_of(card)
            assert slot is not None, card
            plays.append(Play(s, slot, side))
        else:
            plays.append(Play(s, g.hands[s][0], "left"))
    g.play_turn(plays, [nonce(g.turn, s) for s in range(g.n)])


def snapshot(g: Game) -> dict[str, Any]:
    d = {k: v for k, v in g.__dict__.items() if k not in ("settings", "_objectives")}
    return copy.deepcopy(d)
