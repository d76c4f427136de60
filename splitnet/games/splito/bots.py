"""Computer players for Splito. A bot sees only its own seat's engine (its view, S7) and
picks one of the engine's legal plays (S5.2); it never decides a rule itself.

``make_bot(level, seed)`` builds one of :data:`BOTS` by the levels every command names
(:data:`LEVELS`: easy, normal = the heuristic, strong = the search of
:mod:`splitnet.games.splito.search`; ``random`` is a test opponent, no level). All are
deterministic given the seed (the strong one with ``samples=N``; with a time budget its
number of samples depends on the clock).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Final, Protocol

from splitnet.games.splito.cards import is_number_card, number_face
from splitnet.games.splito.engine import Game, Play
from splitnet.games.splito.objectives import Face, Objective, full_pool, missing


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
        best: list[Play] = []
        best_value = -1.0
        for play, value in self.play_values(game, seat):
            if value > best_value + 1e-12:
                best, best_value = [play], value
            elif abs(value - best_value) <= 1e-12:
                best.append(play)
        return self.rng.choice(best)

    def play_values(self, game: Game, seat: int) -> list[tuple[Play, float]]:
        """Every legal play (in the engine's order) with its value
        (left estimate + ½) × (right estimate + ½); it reads only the seat's own hand, the
        zones and the central objectives (S7)."""
        plays = game.legal_plays(seat)
        if not plays:
            raise RuntimeError(f"no legal play for seat {seat} in phase {game.phase.value}")
        pool = full_pool()
        for z in range(len(game.zones)):
            pool.subtract(game.zone_faces(z))
        left_zone, right_zone = game.seat_zones(seat)
        per_turn = 1 if game.n == 2 else 2
        capacity = per_turn * (game.turns - game.turn)  # cards that may still arrive later
        by_id = game.settings.objective_set.by_id
        central = [by_id[c] for c in game.central]
        zones = {z: (game.zone_faces(z), game.zone_objectives(z)) for z in (left_zone,
                                                                           right_zone)}
        base = {z: _estimate(f, o + central, pool, capacity) for z, (f, o) in zones.items()}
        out: list[tuple[Play, float]] = []
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
                obj = by_id[card]
                est = dict(base)
                est[target] = _estimate(faces, [*objs, obj, *central], pool, capacity)
            out.append((play, (est[left_zone] + 0.5) * (est[right_zone] + 0.5)))
        return out


def _estimate(faces: Sequence[Face], objectives: Sequence[Objective], pool: Counter[Face],
              capacity: int) -> float:
    total = 0.0
    for o in objectives:
        m = missing(o.cond, faces, pool)
        if m is not None and m <= capacity:
            total += o.points * STEP ** m
    return total


class EasyBot(HeuristicBot):
    """A beatable, human-like player: the heuristic's judgement with a person's lapses.

    It weighs only some of its hand — ``LOOK`` cards at random, as a person overlooks
    cards in a fan of thirteen — and now and then (``P_ONE_ZONE``) thinks only of the zone
    it likes best instead of left × right (S11.1). ``splitnet bench splito`` measures it
    against the normal and the random bot.
    """

    name = "easy"
    LOOK = 4
    P_ONE_ZONE = 0.3

    def choose(self, game: Game, seat: int) -> Play:
        values = self.play_values(game, seat)
        slots = sorted({p.slot for p, _ in values})
        looked = set(self.rng.sample(slots, min(self.LOOK, len(slots))))
        seen = [(p, v) for p, v in values if p.slot in looked]
        if self.rng.random() < self.P_ONE_ZONE:
            # one zone only: the side's own estimate, not the product
            return max(seen, key=lambda pv: self._one_zone(game, pv[0]))[0]
        return max(seen, key=lambda pv: pv[1])[0]

    @staticmethod
    def _one_zone(game: Game, play: Play) -> float:
        card = game.face(play.slot)
        zone = game.zone_of(play.seat, play.side)
        objs = [*game.zone_objectives(zone),
                *(game.settings.objective_set.by_id[c] for c in game.central)]
        faces = game.zone_faces(zone)
        pool = full_pool()
        for z in range(len(game.zones)):
            pool.subtract(game.zone_faces(z))
        if is_number_card(card):
            faces = [*faces, number_face(card)]
        else:
            objs.append(game.settings.objective_set.by_id[card])
        capacity = (1 if game.n == 2 else 2) * (game.turns - game.turn)
        return _estimate(faces, objs, pool, capacity)


def _strong(seed: int) -> Bot:
    from splitnet.games.splito.search import StrongBot

    return StrongBot(seed)


BOTS: dict[str, Callable[[int], Bot]] = {"random": RandomBot, "easy": EasyBot,
                                         "heuristic": HeuristicBot, "strong": _strong}
#: The levels a player chooses from, weakest first — the same names as Split's
#: (splitnet.games.split.bots.LEVELS): easy, normal (the heuristic) and strong (the search).
LEVELS: Final = ("easy", "normal", "strong")
#: Accepted but not offered: "random" (a test opponent, no level) and "heuristic", the
#: normal level's own name.
LEVEL_ALIASES: dict[str, str] = {"normal": "heuristic"}


def make_bot(name: str, seed: int = 0, *, budget: float | None = None,
             samples: int | None = None) -> Bot:
    """A Splito bot of a level (:data:`LEVELS`) or ``random``/``heuristic``, seeded.
    ``budget`` (seconds per decision) and ``samples`` (a fixed number of samples,
    deterministic) tune the strong level."""
    key = LEVEL_ALIASES.get(name.strip().lower(), name.strip().lower())
    if key == "strong":
        from splitnet.games.splito.search import SearchConfig, StrongBot

        cfg = SearchConfig(samples=samples)
        if budget is not None:
            cfg.budget = budget
        return StrongBot(seed, cfg)
    try:
        return BOTS[key](seed)
    except KeyError:
        raise ValueError(f"Splito has no {name!r} bot; choose from easy, normal (the "
                         "heuristic), strong, or random") from None
