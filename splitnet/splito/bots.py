"""Computer players for Splito. A bot sees only its own seat's engine (its view, S7) and
picks one of the engine's legal plays (S5.2); it never decides a rule itself.

``make_bot(name, seed)`` builds one of :data:`BOTS`; both are deterministic given the seed.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Final, Protocol

from splitnet.splito.cards import is_number_card, number_face
from splitnet.splito.engine import Game, Play
from splitnet.splito.objectives import Face, Objective, full_pool, missing


class Bot(Protocol):
    name: str

    def choose(self, game: Game, seat: int) -> Play: ...


class RandomBot:
    """Uniform over the engine's legal plays: a random card to a random side."""

    name = "random"

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def choose(self, game: Game, seat: int) -> Play:
        plays = game.legal_plays(seat)
        if not plays:
            raise RuntimeError(f"no legal play for seat {seat} in phase {game.phase.value}")
        return self.rng.choice(plays)


#: The chance that one more needed card reaches a zone, per card (a rough constant).
STEP: Final = 0.45


class HeuristicBot:
    """Weighs both of its zones, since its score is left × right (S11.1).

    A zone's estimate sums, over the objectives that can score there (those lying in it,
    and the central ones, S10.2), points × STEP^(cards still missing), and 0 for an
    objective that can no longer be met: a broken ``max`` (S6.2), cards that are all gone
    into other zones, or more missing cards than the turns left can bring (two per turn
    into a shared zone, one into an own zone with 2 players, S8.1). The bot plays the card
    and side that maximise (left estimate + ½) × (right estimate + ½); ties go to the
    seeded random generator.
    """

    name = "heuristic"

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def choose(self, game: Game, seat: int) -> Play:
        plays = game.legal_plays(seat)
        if not plays:
            raise RuntimeError(f"no legal play for seat {seat} in phase {game.phase.value}")
        pool = full_pool()
        for z in range(len(game.zones)):
            pool.subtract(game.zone_faces(z))
        left_zone, right_zone = game.seat_zones(seat)
        per_turn = 1 if game.n == 2 else 2
        capacity = per_turn * (game.turns - game.turn)  # cards that may still arrive later
        central = [game.settings.objective_set.by_id[c] for c in game.central]
        zones = {z: (game.zone_faces(z), game.zone_objectives(z)) for z in (left_zone,
                                                                           right_zone)}
        base = {z: _estimate(f, o + central, pool, capacity) for z, (f, o) in zones.items()}
        best: list[Play] = []
        best_value = -1.0
        for play in plays:
            card = game.face(play.slot)
            target = game.zone_of(seat, play.side)
            faces, objs = zones[target]
            if is_number_card(card):
                face = number_face(card)
                after_pool = Counter(pool)
                after_pool[face] -= 1
                est = {z: _estimate([*f, face] if z == target else f, o + central,
                                    after_pool, capacity) for z, (f, o) in zones.items()}
            else:
                obj = game.settings.objective_set.by_id[card]
                est = dict(base)
                est[target] = _estimate(faces, [*objs, obj, *central], pool, capacity)
            value = (est[left_zone] + 0.5) * (est[right_zone] + 0.5)
            if value > best_value + 1e-12:
                best, best_value = [play], value
            elif abs(value - best_value) <= 1e-12:
                best.append(play)
        return self.rng.choice(best)


def _estimate(faces: Sequence[Face], objectives: Sequence[Objective], pool: Counter[Face],
              capacity: int) -> float:
    total = 0.0
    for o in objectives:
        m = missing(o.cond, faces, pool)
        if m is not None and m <= capacity:
            total += o.points * STEP ** m
    return total


BOTS: dict[str, Callable[[int], Bot]] = {"random": RandomBot, "heuristic": HeuristicBot}
#: the level names every command offers (docs/PLAYING.md) → Splito's bots; Splito has no
#: easy or strong level yet
LEVEL_ALIASES: dict[str, str] = {"normal": "heuristic"}


def make_bot(name: str, seed: int = 0) -> Bot:
    try:
        return BOTS[LEVEL_ALIASES.get(name, name)](seed)
    except KeyError:
        raise ValueError(f"Splito has no {name!r} bot; choose from normal (the heuristic) "
                         "or random") from None
