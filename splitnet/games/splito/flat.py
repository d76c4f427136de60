"""A flat Splito state for the strong bot's rollouts: the heuristic's exact judgement
(:class:`splitnet.games.splito.bots.HeuristicBot`) on count arrays instead of the engine.

The engine (:mod:`splitnet.games.splito.engine`) checks every move and keeps slots, faces,
commitments and history; a rollout needs none of that. Here a zone is a list of 37
counts — one per number-card face (value, colour), :func:`face_index`, plus an always-zero
cell — and the objectives lying in it; the pool (the number cards not yet in any zone, as
the heuristic counts it) is the same kind of list. Every condition of S9.3 is compiled
once into a function of (zone counts, pool counts) that returns exactly what
:func:`splitnet.games.splito.objectives.missing` returns, so :func:`heuristic_values` gives the
heuristic's values to the last bit (tests/test_splito_search.py checks it on many
positions) and a rollout plays the heuristic's own plays, many times faster.

Pure and deterministic: no I/O; the only randomness is the ``random.Random`` passed in.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from operator import itemgetter, mul
from typing import Final

from splitnet.games.splito.bots import STEP
from splitnet.games.splito.cards import COLOURS, VALUES, is_number_card, number_face
from splitnet.games.splito.objectives import (
    All,
    Cond,
    Count,
    DistinctColours,
    DistinctValues,
    Filter,
    Groups,
    Identical,
    More,
    Objective,
    Run,
    SameColour,
    SameValue,
    Sum,
)

#: 36 faces and one cell that is always 0 (so that an itemgetter always has two indices
#: and returns a tuple).
CELLS: Final = 37
ZERO: Final = 36
FACES: Final[tuple[tuple[int, str], ...]] = tuple((v, c) for v in VALUES for c in COLOURS)
_VAL: Final = tuple(f[0] for f in FACES)

Counts = list[int]
Missing = Callable[[Counts, Counts], "int | None"]


def face_index(face: tuple[int, str]) -> int:
    """The cell of a number-card face: value-major, colours in S1.2's order."""
    return (face[0] - 1) * 6 + COLOURS.index(face[1])


def _getter(indices: Sequence[int]) -> Callable[[Counts], tuple[int, ...]]:
    return itemgetter(*indices, ZERO)


def _mask(flt: Filter) -> list[int]:
    return [i for i, f in enumerate(FACES) if flt.passes(f)]


def compile_cond(cond: Cond) -> Missing:
    """``cond`` as a function (zone, pool) → cards still missing, or None if impossible:
    the same value as :func:`splitnet.games.splito.objectives.missing` (S9.3)."""
    if isinstance(cond, Count):
        g = _getter(_mask(cond.filter))
        lo, hi = cond.min, cond.max

        def count(z: Counts, p: Counts) -> int | None:
            k = sum(g(z))
            if hi is not None and k > hi:
                return None
            need = lo - k
            if need <= 0:
                return 0
            return need if need <= sum(g(p)) else None
        return count
    if isinstance(cond, Sum):
        mask = _mask(cond.filter)
        g = _getter(mask)
        vals = (*(_VAL[i] for i in mask), 0)
        # missing() fills the deficit from the highest faces first
        order = sorted(mask, key=lambda i: FACES[i], reverse=True)
        lo, hi = cond.min, cond.max

        def total(z: Counts, p: Counts) -> int | None:
            s: int = sum(map(mul, g(z), vals))
            if hi is not None and s > hi:
                return None
            deficit = lo - s
            if deficit <= 0:
                return 0
            n = 0
            for i in order:
                c = p[i]
                if c > 0:
                    v = _VAL[i]
                    want = -(-deficit // v)
                    if want <= c:
                        return n + want
                    deficit -= c * v
                    n += c
            return None
        return total
    if isinstance(cond, SameValue | SameColour | Groups):
        if isinstance(cond, Groups):
            by, size, cnt = cond.by, cond.size, cond.count
        else:
            by = "value" if isinstance(cond, SameValue) else "colour"
            size, cnt = cond.min, 1
        # a value's faces are a run of 6 cells, a colour's every 6th cell (face_index)
        slices = ([slice(6 * k, 6 * k + 6) for k in range(6)] if by == "value"
                  else [slice(k, 36, 6) for k in range(6)])

        def best_groups(z: Counts, p: Counts) -> int | None:
            deficits = []
            for sl in slices:
                d = size - sum(z[sl])
                if d <= 0:
                    if cnt == 1:
                        return 0
                    deficits.append(0)
                elif sum(p[sl]) >= d:
                    deficits.append(d)
            if len(deficits) < cnt:
                return None
            deficits.sort()
            return sum(deficits[:cnt])
        return best_groups
    if isinstance(cond, DistinctValues | DistinctColours):
        by = "value" if isinstance(cond, DistinctValues) else "colour"
        passing = set(_mask(cond.filter))
        keyed = []
        for k in (VALUES if by == "value" else COLOURS):
            idx = [i for i in sorted(passing)
                   if (FACES[i][0] if by == "value" else FACES[i][1]) == k]
            if idx:
                keyed.append(_getter(idx))
        lo = cond.min

        def distinct(z: Counts, p: Counts) -> int | None:
            have = new = 0
            for gk in keyed:
                if any(gk(z)):
                    have += 1
                elif any(gk(p)):
                    new += 1
            need = lo - have
            if need <= 0:
                return 0
            return need if need <= new else None
        return distinct
    if isinstance(cond, Run):
        length = cond.length
        starts = range(0, 7 - length)
        same = cond.same_colour
        # a colour's six values are every 6th cell; a value's six colours a run of 6
        by_colour = [slice(c, 36, 6) for c in range(6)]
        by_value = [slice(6 * k, 6 * k + 6) for k in range(6)]

        def run(z: Counts, p: Counts) -> int | None:
            if same:
                lines = [(z[sl], p[sl]) for sl in by_colour]
            else:
                lines = [([any(z[sl]) for sl in by_value], [any(p[sl]) for sl in by_value])]
            best: int | None = None
            for have, avail in lines:
                for v in starts:
                    holes = 0
                    for w in range(v, v + length):
                        if not have[w]:
                            if not avail[w]:
                                break
                            holes += 1
                    else:
                        if holes == 0:
                            return 0
                        if best is None or holes < best:
                            best = holes
            return best
        return run
    if isinstance(cond, Identical):
        cnt = cond.count

        def identical(z: Counts, p: Counts) -> int | None:
            deficits = []
            for i in range(36):
                d = 2 - z[i]
                if d < 0:
                    d = 0
                if p[i] >= d:
                    deficits.append(d)
            if len(deficits) < cnt:
                return None
            deficits.sort()
            return sum(deficits[:cnt])
        return identical
    if isinstance(cond, More):
        ga, gb = _getter(_mask(cond.a)), _getter(_mask(cond.b))
        only_a = _getter([i for i, f in enumerate(FACES)
                          if cond.a.passes(f) and not cond.b.passes(f)])

        def more(z: Counts, p: Counts) -> int | None:
            gap = sum(gb(z)) - sum(ga(z)) + 1
            if gap <= 0:
                return 0
            return gap if gap <= sum(only_a(p)) else None
        return more
    assert isinstance(cond, All)
    parts = [compile_cond(c) for c in cond.of]

    def every(z: Counts, p: Counts) -> int | None:
        tot = 0
        for part in parts:
            m = part(z, p)
            if m is None:
                return None
            tot += m
        return tot
    return every


@dataclass(frozen=True)
class FlatObjective:
    """An objective card compiled: its id, points and condition (S9.3)."""

    id: str
    points: int
    missing: Missing

    def holds(self, zone: Counts) -> bool:
        """S9.3: fulfilled now (no card missing; the pool does not matter then)."""
        return self.missing(zone, zone) == 0


@cache
def _compiled(obj: Objective) -> FlatObjective:
    return FlatObjective(obj.id, obj.points, compile_cond(obj.cond))


def flat_objective(obj: Objective) -> FlatObjective:
    return _compiled(obj)


#: STEP ** m, computed as the heuristic computes it (the same floats).
_POW: Final = tuple(STEP ** m for m in range(200))


def estimate(zone: Counts, objectives: Sequence[FlatObjective], pool: Counts,
             capacity: int) -> float:
    """The heuristic's estimate of a zone (bots._estimate), on counts."""
    total = 0.0
    for o in objectives:
        m = o.missing(zone, pool)
        if m is not None and m <= capacity:
            total += o.points * _POW[m]
    return total


@dataclass
class FlatGame:
    """What a rollout needs of a game: the hands (a number card as its face's cell 0–35,
    an objective card as its :class:`FlatObjective`), the zones' counts and objectives,
    the pool, the central objectives, the turn (S5)."""

    n: int
    turn: int
    turns: int
    hands: list[list[int | FlatObjective]]
    zones: list[Counts]
    zone_objs: list[list[FlatObjective]]
    pool: Counts
    central: list[FlatObjective]

    def copy(self) -> FlatGame:
        return FlatGame(self.n, self.turn, self.turns, [list(h) for h in self.hands],
                        [list(z) for z in self.zones], [list(o) for o in self.zone_objs],
                        list(self.pool), self.central)

    def zone_of(self, seat: int, left: bool) -> int:
        """S3.1, S8.1."""
        if self.n == 2:
            return 2 * seat + (0 if left else 1)
        return seat if left else (seat - 1) % self.n

    def zone_points(self) -> list[int]:
        """S10.2–S10.3: each zone's fulfilled objectives (its own, then the central)."""
        out = []
        for z, objs in zip(self.zones, self.zone_objs, strict=True):
            out.append(sum(o.points for o in (*objs, *self.central) if o.holds(z)))
        return out

    def scores(self) -> list[tuple[int, int]]:
        """S11.1, S11.3: (score, cards in the two zones) per seat."""
        pts = self.zone_points()
        cards = [sum(z[:36]) + len(o) for z, o in zip(self.zones, self.zone_objs,
                                                         strict=True)]
        out = []
        for s in range(self.n):
            lz, rz = self.zone_of(s, True), self.zone_of(s, False)
            out.append((pts[lz] * pts[rz], cards[lz] + cards[rz]))
        return out


def flat_card(card: str, by_id: dict[str, Objective]) -> int | FlatObjective:
    if is_number_card(card):
        return face_index(number_face(card))
    return flat_objective(by_id[card])


def heuristic_values(g: FlatGame, seat: int) -> list[float]:
    """The heuristic's value of each (card, side) of ``seat``'s hand, in the engine's
    order of legal plays (each card: left, then right): (left estimate + ½) × (right
    estimate + ½), exactly as :meth:`HeuristicBot.play_values` computes it."""
    lz, rz = g.zone_of(seat, True), g.zone_of(seat, False)
    pool = g.pool
    capacity = (1 if g.n == 2 else 2) * (g.turns - g.turn)
    central = g.central
    zl, zr = g.zones[lz], g.zones[rz]
    ol, orr = g.zone_objs[lz] + central, g.zone_objs[rz] + central
    base_l = base_r = -1.0
    out: list[float] = []
    cache_num: dict[int, tuple[float, float]] = {}
    for card in g.hands[seat]:
        if isinstance(card, int):
            got = cache_num.get(card)
            if got is None:
                pool[card] -= 1
                el, er = estimate(zl, ol, pool, capacity), estimate(zr, orr, pool, capacity)
                zl[card] += 1
                el_in = estimate(zl, ol, pool, capacity)
                zl[card] -= 1
                if lz == rz:  # pragma: no cover - zones are distinct (S3.1, S8.1)
                    er_in = el_in
                else:
                    zr[card] += 1
                    er_in = estimate(zr, orr, pool, capacity)
                    zr[card] -= 1
                pool[card] += 1
                got = ((el_in + 0.5) * (er + 0.5), (el + 0.5) * (er_in + 0.5))
                cache_num[card] = got
            out.extend(got)
        else:
            if base_l < 0:
                base_l = estimate(zl, ol, pool, capacity)
                base_r = estimate(zr, orr, pool, capacity)
            el_in = estimate(zl, [*g.zone_objs[lz], card, *central], pool, capacity)
            er_in = estimate(zr, [*g.zone_objs[rz], card, *central], pool, capacity)
            out.append((el_in + 0.5) * (base_r + 0.5))
            out.append((base_l + 0.5) * (er_in + 0.5))
    return out


def heuristic_play(g: FlatGame, seat: int, rng: random.Random) -> int:
    """The heuristic's choice as an index into the plays of :func:`heuristic_values`
    (2 × hand position + 0 for left, 1 for right); ties to ``rng`` as the bot does."""
    values = heuristic_values(g, seat)
    best: list[int] = []
    best_value = -1.0
    for i, value in enumerate(values):
        if value > best_value + 1e-12:
            best, best_value = [i], value
        elif abs(value - best_value) <= 1e-12:
            best.append(i)
    return rng.choice(best)


def apply_turn(g: FlatGame, plays: Sequence[int]) -> None:
    """S5.3–S5.4: every seat's play (an index as :func:`heuristic_play` returns) goes to
    its zone; then the hands pass left."""
    n = g.n
    for seat in range(n):
        k = plays[seat]
        card = g.hands[seat].pop(k >> 1)
        z = g.zone_of(seat, not k & 1)
        if isinstance(card, int):
            g.zones[z][card] += 1
            g.pool[card] -= 1
        else:
            g.zone_objs[z].append(card)
    if g.turn < g.turns:
        g.hands = [g.hands[(s - 1) % n] for s in range(n)]
    g.turn += 1


def rollout(g: FlatGame, rngs: Sequence[random.Random]) -> None:
    """Play ``g`` to the end of the game (S5.1) with the heuristic at every seat."""
    while g.turn <= g.turns:
        apply_turn(g, [heuristic_play(g, s, rngs[s]) for s in range(g.n)])


def win_value(scores: Sequence[tuple[int, int]], seat: int, scale: float = 12.0) -> float:
    """How good the end is for ``seat``, 0–1: a logistic of its score's lead over the
    best other score (S11.1), with S11.3's card count deciding a tied score a little."""
    mine, cards = scores[seat]
    best = max((s for i, s in enumerate(scores) if i != seat), key=lambda s: (s[0], -s[1]))
    lead = float(mine - best[0])
    if lead == 0:
        lead = 0.25 if cards < best[1] else -0.25 if cards > best[1] else 0.0
    x = lead / scale
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, x))))
