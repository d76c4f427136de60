"""Splito's strong level: a determinized Monte-Carlo search anchored on the heuristic.

For one decision (S5.2: a card of the hand and a side) the bot

1. takes the heuristic's play as the *anchor*, and as challengers the next best plays by
   the heuristic's own values (one per card face and side: the two copies of a number
   card are alike, S1.3);
2. samples the cards its seat cannot know (S7): every slot of another hand that it has
   not held, and the set-aside cards (S4.4), get the cards it has not seen, uniformly at
   random. What it may know is read from the table's structure — the slots it has held
   (its hand now and the hands it passed on, S7.2) and the zones (S7.4) — never from
   which faces its engine happens to hold, so a view with the hidden faces filled in or
   scrambled gives the same choice (tests/test_splito_search.py);
3. plays every candidate out on the same samples to the end of the game with the
   heuristic at every seat (on the flat state of :mod:`splitnet.games.splito.flat`, the
   heuristic's exact plays); the other seats' plays of this turn are the same for every
   candidate, since all choose at once (S5.3); the end is valued by the seat's lead over
   the best other score (S11), :func:`splitnet.games.splito.flat.win_value`;
4. keeps the anchor unless another candidate is better on the same samples by a clear
   margin (paired differences, a minimum gain and a z-test): plain best-average selection
   is worse than the heuristic.

The time per decision is at most ``budget`` seconds (default 0.3, wall clock: it stops
before a sample that would overrun, after ``min_samples``); ``samples=N`` evaluates
exactly N samples with no clock (deterministic: tests, benchmarks).

For front ends (a hint key): :func:`suggest` gives the play and the reason in words::

    play, reason = suggest(view, seat)   # view: that seat's engine
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import NamedTuple

from splitnet.games.splito.bots import HeuristicBot
from splitnet.games.splito.cards import COLOUR_NAMES, is_number_card, number_face, pretty
from splitnet.games.splito.engine import Game, Phase, Play, full_deck
from splitnet.games.splito.flat import (
    CELLS,
    FlatGame,
    apply_turn,
    face_index,
    flat_card,
    flat_objective,
    heuristic_play,
    rollout,
    win_value,
)
from splitnet.paired import Paired, PairedConfig

#: In budget mode the candidates are cut so that about this many samples fit.
FIT_SAMPLES = 4


@dataclass
class SearchConfig(PairedConfig):
    """How hard the strong bot thinks (:class:`splitnet.paired.PairedConfig`).

    ``budget``: seconds per decision at most (wall clock; at least ``min_samples`` are
    taken, and fewer candidates when a rollout is long: 2 players, early turns); ignored
    when ``samples`` is set. A challenger needs at least 3 samples. ``samples``: exactly
    this many samples (deterministic, no clock). ``max_candidates``: plays compared, the
    anchor included.
    ``margin``: the least gain in value (about a chance of winning) a challenger needs
    over the anchor, and ``z``: how many standard errors of the paired difference it
    must clear.
    """

    min_samples: int = 2
    max_candidates: int = 5


@dataclass
class Decision:
    """What the search decided and why (for :func:`suggest` and the benchmark)."""

    play: Play
    anchor: Play
    samples: int = 0
    searched: bool = False
    #: mean value (0–1, about a chance of winning) per candidate, the anchor first
    values: list[tuple[Play, float]] = field(default_factory=list)


class Suggestion(NamedTuple):
    """A hint: the play, and why in words. Unpacks as ``play, reason``."""

    play: Play
    reason: str


def knowable_slots(game: Game, seat: int) -> set[int]:
    """The slots whose faces ``seat`` may know now (S7.2, S7.4): every slot it has held
    (its hand and the hands it passed on) and the cards in the zones. Read from the
    table's structure only, never from ``game.faces``."""
    known = set(game.held[seat])
    for z in game.zones:
        known.update(z)
    known.update(r.slot for r in game.reveals if r is not None)
    return known


def determinize(game: Game, seat: int, rng: random.Random,
                known: set[int] | None = None) -> list[str]:
    """Every slot's face: the ones ``seat`` may know as its view holds them, every other
    (another hand's slot it has not held, a set-aside card, S4.4, S7.1) a card it has not
    seen, drawn at random — a deal consistent with what it knows."""
    known = knowable_slots(game, seat) if known is None else known
    faces: list[str | None] = [None] * len(game.faces)
    for s in known:
        f = game.faces[s]
        if f is None:
            raise ValueError(f"S7: seat {seat}'s view lacks the face of slot {s}, which it "
                             "should know")
        faces[s] = f
    seen = {f for f in faces if f is not None}
    pool = [c for c in full_deck(game.settings) if c not in seen and c not in game.central]
    hidden = [s for s in range(len(faces)) if faces[s] is None]
    if len(pool) != len(hidden):  # pragma: no cover - a card in two places
        raise ValueError("S1.1: the table does not account for all 107 cards of the deck")
    rng.shuffle(pool)
    for s, c in zip(hidden, pool, strict=True):
        faces[s] = c
    return [f for f in faces if f is not None]


def flat_game(game: Game, faces: list[str]) -> FlatGame:
    """The flat state of ``game`` with every slot's face from ``faces``."""
    by_id = game.settings.objective_set.by_id
    zones, objs = [], []
    pool = [2] * 36 + [0]
    for z in game.zones:
        counts = [0] * CELLS
        zo = []
        for slot in z:
            c = faces[slot]
            if is_number_card(c):
                i = face_index(number_face(c))
                counts[i] += 1
                pool[i] -= 1
            else:
                zo.append(flat_objective(by_id[c]))
        zones.append(counts)
        objs.append(zo)
    hands = [[flat_card(faces[s], by_id) for s in h] for h in game.hands]
    return FlatGame(game.n, game.turn, game.turns, hands, zones, objs, pool,
                    [flat_objective(by_id[c]) for c in game.central])


class StrongBot:
    """Determinized Monte-Carlo search over the heuristic (see the module text)."""

    name = "strong"
    searches = True  # sessions may let it think off the event loop

    def __init__(self, seed: int = 0, config: SearchConfig | None = None) -> None:
        self.seed = seed
        self.config = config or SearchConfig()
        self.anchor_bot = HeuristicBot(seed)
        self.decisions = 0
        #: searched decisions and the time they took (wall clock and this thread's CPU)
        self.searched = 0
        self.search_time = 0.0
        self.search_cpu = 0.0
        self.sampled = 0
        self.last: Decision | None = None

    def choose(self, game: Game, seat: int) -> Play:
        return self.decide(game, seat).play

    def _candidates(self, game: Game, seat: int, anchor: Play) -> list[Play]:
        """The anchor, then the best other plays by the heuristic's values, one per card
        face and side (S1.3: the copies are alike)."""
        values = self.anchor_bot.play_values(game, seat)
        order = sorted(range(len(values)), key=lambda i: -values[i][1])

        def key(p: Play) -> tuple[str, str]:
            c = game.face(p.slot)
            return (c[:2] if is_number_card(c) else c, p.side)

        out, seen = [anchor], {key(anchor)}
        for i in order:
            p = values[i][0]
            k = key(p)
            if k in seen:
                continue
            seen.add(k)
            out.append(p)
            if len(out) >= self.config.max_candidates:
                break
        return out

    def decide(self, game: Game, seat: int) -> Decision:
        self.decisions += 1
        anchor = self.anchor_bot.choose(game, seat)
        cands = self._candidates(game, seat, anchor)
        if len(cands) < 2 or game.turn >= game.turns:  # the last turn decides nothing
            self.last = Decision(anchor, anchor)
            return self.last
        cfg = self.config
        t0, c0 = time.perf_counter(), time.thread_time()
        known = knowable_slots(game, seat)
        hand = game.hands[seat]
        index = [2 * hand.index(c.slot) + (0 if c.side == "left" else 1) for c in cands]
        # The samples depend on this bot's seed and the public state only.
        rng = random.Random(f"splitnet/splito-strong/{self.seed}/{game.game_id}/"
                            f"{game.turn}/{seat}")
        rngs = [random.Random(0) for _ in range(game.n)]
        paired = Paired.of(len(cands))
        width = len(cands)
        while True:
            det = flat_game(game, determinize(game, seat, rng, known))
            roll_seed = rng.randrange(2**31)
            for i, r in enumerate(rngs):
                r.seed(roll_seed * 8 + i)
            others = [heuristic_play(det, s, rngs[s]) if s != seat else 0
                      for s in range(game.n)]
            vals = []
            for j, k in enumerate(index[:width]):
                g = det.copy()
                plays = list(others)
                plays[seat] = k
                apply_turn(g, plays)
                for i, r in enumerate(rngs):
                    r.seed(roll_seed * 8 + i)
                rollout(g, rngs)
                vals.append(win_value(g.scores(), seat))
                if paired.n == 0 and j == 0 and cfg.samples is None:
                    # a long game ahead (2 players: 26 turns) and a short budget: compare
                    # fewer candidates, the heuristic's best, so that a few samples fit
                    cost = time.perf_counter() - t0
                    width = max(2, min(width, int(cfg.budget / (cost * FIT_SAMPLES))))
            paired.add(vals)
            if cfg.enough(paired.n, time.perf_counter() - t0):
                break
        cands = cands[:width]
        self.searched += 1
        n = paired.n
        self.sampled += n
        self.search_time += time.perf_counter() - t0
        self.search_cpu += time.thread_time() - c0
        best_i = paired.best(cfg, len(cands) if n >= 3 else 1)  # too few samples: the anchor
        self.last = Decision(cands[best_i], anchor, n, True,
                             list(zip(cands, paired.means(width), strict=True)))
        return self.last


# ------------------------------------------------------------------ hints
def describe_play(game: Game, play: Play, names: list[str] | None = None) -> str:
    """A play in words, from the player's view: "[G]5 to your left zone (shared with
    Bo)"; ``names`` by seat (default "seat N")."""
    card = game.face(play.slot)
    zone = game.zone_of(play.seat, play.side)
    seats = [s for s in game.zone_seats(zone) if s != play.seat]
    if seats:
        s = seats[0]
        who = names[s] if names is not None and 0 <= s < len(names) else f"seat {s}"
        with_ = f" (shared with {who})"
    else:
        with_ = ""
    what = pretty(card) if is_number_card(card) else (
        f"{card} {game.settings.objective_set.by_id[card].name}".strip())
    return f"{what} to your {play.side} zone{with_}"


def _why(game: Game, play: Play) -> str:
    """The plain reason for a play, by what it does to the zone it goes to."""
    card = game.face(play.slot)
    zone = game.zone_of(play.seat, play.side)
    by_id = game.settings.objective_set.by_id
    if not is_number_card(card):
        obj = by_id[card]
        text = (obj.text or obj.name).rstrip(".")
        text = text[:1].lower() + text[1:]
        return (f"the zone can still meet it — {text} ({obj.points} point"
                f"{'s' if obj.points != 1 else ''}, S10.2)")
    faces = game.zone_faces(zone)
    objs = [*game.zone_objectives(zone), *(by_id[c] for c in game.central)]
    value, colour = number_face(card)
    after = [*faces, (value, colour)]
    done = [o for o in objs if o.fulfilled_by(after) and not o.fulfilled_by(faces)]
    if done:
        return "it fulfils " + ", ".join(f"{o.id} {o.name}".strip() for o in done) + " there"
    from splitnet.games.splito.objectives import full_pool, missing

    pool = full_pool()
    for z in range(len(game.zones)):
        pool.subtract(game.zone_faces(z))
    closer = [o for o in objs if (m0 := missing(o.cond, faces, pool)) is not None
              and (m1 := missing(o.cond, after, pool)) is not None and m1 < m0]
    if closer:
        return ("it brings " + ", ".join(f"{o.id} {o.name}".strip() for o in closer[:2])
                + " closer there")
    return (f"a {COLOUR_NAMES[colour]} {value} hurts your other zone least; your score is "
            "left × right (S11.1)")


def suggest(game: Game, seat: int, *, budget: float = 0.3, samples: int | None = None,
            seed: int = 0, names: list[str] | None = None) -> Suggestion:
    """The strong bot's play for ``seat`` on ``game`` — that seat's own view (it reads
    nothing else, S7) — and the reason in one line of words, e.g. ``[R]6 to your right
    zone (shared with seat 3): it brings OBJ07 Evens closer there; simulations prefer it
    to [O]2 to your right zone (shared with seat 3): about 56% against 43% chance of
    finishing ahead (12 deals tried)``. ``budget`` seconds (or exactly ``samples`` samples).

    It blocks for the budget: a front end calls it off its event loop on a copy, e.g.
    ``await asyncio.to_thread(suggest, view.clone(), seat)``. ValueError when ``seat``
    has no play to choose now (S5.2). ``names`` (by seat) make the reason name players."""
    if game.phase is not Phase.COMMIT or not game.legal_plays(seat):
        raise ValueError(f"seat {seat} has no play to choose now (S5.2)")
    bot = StrongBot(seed, SearchConfig(budget=budget, samples=samples))
    d = bot.decide(game, seat)
    what = describe_play(game, d.play, names)
    why = _why(game, d.play)
    if not d.searched:
        return Suggestion(d.play, f"{what}: {why}")
    values = dict(d.values)
    mine = values[d.play]
    if d.play == d.anchor:
        sim = (f"simulations found nothing clearly better: about {round(100 * mine)}% "
               "chance of finishing ahead")
    else:
        sim = (f"simulations prefer it to {describe_play(game, d.anchor, names)}: about "
               f"{round(100 * mine)}% against {round(100 * values[d.anchor])}% chance of "
               "finishing ahead")
    return Suggestion(d.play, f"{what}: {why}; {sim} ({d.samples} deals tried)")
