"""High Card's bots: a choice of slot from the seat's own view (its hand's faces and the
trick so far), nothing else — the fair deck lets it read no other card."""

from __future__ import annotations

import random

from tests.third_game.rules import Game, rank

LEVELS = ("easy", "normal")


class Bot:
    """``easy``: a random card of its hand; ``normal``: leading, its highest; else the
    lowest card that beats the trick so far, or its lowest if none does."""

    def __init__(self, level: str = "normal", seed: int = 0) -> None:
        if level not in LEVELS:
            raise ValueError(f"level: one of {', '.join(LEVELS)}")
        self.level = level
        self.rng = random.Random(seed)

    def choose(self, game: Game, seat: int) -> int:
        slots = sorted(game.legal(seat), key=lambda s: rank(game.faces[s]))
        if not slots:
            raise ValueError(f"seat {seat} has nothing to play")
        if self.level == "easy":
            return self.rng.choice(slots)
        if not game.current:
            return slots[-1]
        best = max(rank(c) for _, c in game.current)
        return next((s for s in slots if rank(game.faces[s]) > best), slots[0])
