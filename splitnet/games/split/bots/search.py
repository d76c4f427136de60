"""The strong level: a determinized Monte-Carlo search anchored on the heuristic.

For one decision the bot

1. takes the heuristic's move as the *anchor* and a few other legal moves as candidates;
2. samples the hidden cards (R8): every slot its seat may not know — the other hands'
   cards it never saw and the draw pile — gets a face from the cards it has not seen,
   uniformly at random. What it may know is read from the table's structure (its own
   hand, the row, the matches with their covered halves, the cards others took from the
   row), never from which faces its engine happens to hold, so a view with every hidden
   face filled in (or scrambled) gives the same choice (tests/test_bots.py);
3. plays every candidate out on the same samples with the heuristic for every seat to
   the end of the round (the candidate by :meth:`Game.apply_trusted`, the rest by the
   flat rollout of :mod:`splitnet.games.split.bots.rollout`, which plays exactly the heuristic's
   moves, about 2.5× faster than on the engine). Each other seat names its perfect
   bonus's target (R5.1) by the rule its past marks show —
   :class:`~splitnet.games.split.bots.opponents.TargetModel`, Bayes' rule over a few rules from the
   public log and table, starting from the normal heuristic's — and the end is valued
   beyond the round: the pads' marks plus the marks a seat makes in an average remaining
   round, read off the pad (R7.2), where a seat that aims by the scored pads gives its
   marks of a round to the leader at that round's start, turned into a chance of
   finishing ahead of the best opponent;
4. keeps the anchor unless another candidate is better on the same samples by a clear
   margin (paired differences, a minimum gain and a z-test) — plain best-average
   selection is worse than the heuristic.

It samples only until the choice is clear: a sequential test
(:meth:`splitnet.paired.Paired.decided`) stops once the choice the most samples
(``max_samples``, 36: as strong as the whole 0.3 s was) would make is no longer in doubt
— often well before them, from ``min_samples`` (12) on — and stops playing out the
challengers that can no longer be chosen. The clock bounds it too: at most ``budget``
seconds a decision (default 0.3, after ``min_samples``) and ``turn_budget`` seconds a
whole turn (default 0.8: the draw, every play and bonus, the discard; a decision the
turn's budget leaves without ``min_samples`` samples plays the anchor) — it stops before
a sample that would overrun, judged by the time a rollout has taken in this decision (at
its first sample: in the one before). ``samples=N`` instead evaluates exactly N samples
with no test and no clock at all (deterministic: tests, benchmarks).

The API for front ends (the hint key) is :func:`suggest`::

    action, reason = suggest(view, seat)   # view: that seat's engine; reason: words

and for the standing it aims at, :func:`splitnet.games.split.rules.standing_now`.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

from splitnet.cards import pretty
from splitnet.games.split.bots import HeuristicBot
from splitnet.games.split.bots.opponents import Targeting, TargetModel
from splitnet.games.split.bots.rollout import rollout
from splitnet.games.split.rules import (
    Action,
    BonusDraw,
    BonusMark,
    BonusSwap,
    Discard,
    DrawPile,
    Game,
    Lay,
    SkipBonus,
    TakeRow,
    Upgrade,
)
from splitnet.games.split.rules.engine import N_SLOTS
from splitnet.games.split.rules.settings import ROWS
from splitnet.paired import Paired, PairedConfig

#: Marks one seat makes in an average round with heuristic play, by number of players
#: (perfect, strong, weak, negative); measured over 60 seeded heuristic games each.
ROUND_MARKS: dict[int, tuple[float, float, float, float]] = {
    2: (2.02, 1.88, 1.25, 3.12),
    3: (2.14, 1.58, 0.74, 3.58),
    4: (2.38, 1.19, 0.43, 4.09),
    5: (2.49, 0.87, 0.31, 4.50),
    6: (2.53, 0.64, 0.28, 4.76),
}
_END = ("round_over", "game_over")


@dataclass
class SearchConfig(PairedConfig):
    """How hard the strong bot thinks (:class:`splitnet.paired.PairedConfig`).

    Sampling stops at the first of: the sequential test of
    :meth:`~splitnet.paired.Paired.decided` finds the choice ``max_samples`` samples
    would make clear (from ``min_samples`` on; ``clear_z``: how sure); ``max_samples``;
    one more sample would overrun ``budget``, the seconds per decision (after
    ``min_samples``); or it would overrun ``turn_budget``, the seconds for the whole turn
    (R4: the draw, every play and bonus, the discard — a hard bound: a decision left
    with fewer than ``min_samples`` plays the anchor). The clocks are wall time; the
    sequential test reads none, so with a clock that never binds the choice depends on
    the seeds only. ``samples``: evaluate exactly this many samples instead (no test,
    no clock: deterministic; tests, benchmarks).
    ``max_candidates``: moves compared per decision, the anchor included.
    ``margin``: the least gain in chance of winning a challenger needs over the anchor,
    and ``z``: how many standard errors of the paired difference it must clear.
    """

    min_samples: int = 12
    max_candidates: int = 7
    #: 36 samples a decision play as strongly as the whole 0.3 s did (docs/PLAYING.md)
    max_samples: int | None = 36
    turn_budget: float = 0.8
    #: roll out with the heuristic on the checked engine instead of the flat rollout
    #: (:mod:`splitnet.games.split.bots.rollout`): the same values, about 3× slower; for tests
    reference_rollouts: bool = False
    #: roll every other seat out with the perfect-bonus targeting its past marks show
    #: (:class:`splitnet.games.split.bots.opponents.TargetModel`); off: the normal rule for all
    model_targeting: bool = True
    #: value the rounds to come with those rules too (:meth:`StrongBot._value_of`)
    future_targeting: bool = True


@dataclass
class Decision:
    """What the search decided and why (for :func:`suggest` and the benchmark)."""

    action: Action
    anchor: Action
    samples: int = 0
    searched: bool = False
    #: mean value (chance of finishing ahead) per candidate, the anchor first
    values: list[tuple[Action, float]] = field(default_factory=list)


class Suggestion(NamedTuple):
    """A hint: the move, and why in words. Unpacks as ``action, reason``."""

    action: Action
    reason: str


def knowable_slots(game: Game, seat: int) -> set[int]:
    """The slots whose faces ``seat`` may know now (R8.2–R8.3): its own hand, the row,
    every half in a match (covered ones too), the cards anyone took from the row this
    round. Read from the table's structure only, never from ``game.faces``."""
    known = set(game.hands[seat])
    known.update(game.row)
    for m in game.matches:
        known.update(m.top)
        known.update(m.under)
    for ev in game.events:
        if ev["type"] == "take_row":
            known.update(ev["cards"])
    return known


def determinize(game: Game, seat: int, rng: random.Random,
                known: set[int] | None = None) -> Game:
    """A copy of ``game`` with every slot ``seat`` may not know given a face drawn at
    random from the cards it has not seen (consistent with its knowledge, R8)."""
    known = knowable_slots(game, seat) if known is None else known
    g = game.clone()
    faces = g.faces
    seen = [False] * N_SLOTS
    for s in known:
        f = faces[s]
        if f is None:
            raise ValueError(f"R8: seat {seat}'s view lacks the face of slot {s}, "
                             "which it should know")
        seen[f] = True
    hidden = [s for h in range(g.n) if h != seat for s in g.hands[h] if s not in known]
    hidden.extend(range(g.pile_next, N_SLOTS))
    pool = [c for c in range(N_SLOTS) if not seen[c]]
    if len(pool) != len(hidden):  # pragma: no cover - a card in two places
        raise ValueError("R1: the table does not account for all 104 halves")
    rng.shuffle(pool)
    for s, c in zip(hidden, pool, strict=True):
        faces[s] = c
    return g


def _pad_value(values: tuple[int, ...], marks: float) -> float:
    """R7.2 with fractional marks (an expectation): linear between boxes."""
    last = len(values) - 1
    if marks >= last:
        return float(values[last])
    k = int(marks)
    frac = marks - k
    return values[k] + frac * (values[k + 1] - values[k])


class StrongBot:
    """Determinized Monte-Carlo search over the heuristic (see the module text)."""

    name = "strong"
    searches = True  # sessions let it think off the event loop (choose_off_loop)

    def __init__(self, seed: int = 0, config: SearchConfig | None = None,
                 clock: Callable[[], float] = time.perf_counter) -> None:
        self.seed = seed
        self.config = config or SearchConfig()
        #: the wall clock the budgets are kept by (tests give a virtual one)
        self.clock = clock
        self.anchor_bot = HeuristicBot(seed)
        self._rollout_bots: list[HeuristicBot] = []
        #: the other seats' perfect-bonus rules, from the marks they gave (public)
        self.targets = TargetModel()
        self.decisions = 0
        #: searched decisions and the time they took (wall clock, seconds)
        self.searched = 0
        self.search_time = 0.0
        self.search_cpu = 0.0  # this thread's CPU time: other load on the machine aside
        self.sampled = 0  # samples over all searched decisions
        #: decisions whose sampling a budget ended before the test decided, and those of
        #: them it left without a sample (the turn's budget spent: the anchor is played)
        self.cut = 0
        self.unsampled = 0
        #: the thinking time of each turn finished (see :attr:`turns`)
        self.turn_times: list[tuple[float, float]] = []
        self._turn_key: tuple[int, int] | None = None
        self._turn_spent = (0.0, 0.0)
        #: seconds per rollout, measured: to tell whether the next sample fits
        self._per_rollout = 0.0
        self.last: Decision | None = None

    def choose(self, game: Game, seat: int) -> Action:
        return self.decide(game, seat).action

    # -- candidates ------------------------------------------------------------
    def _candidates(self, game: Game, seat: int, anchor: Action) -> list[Action]:
        phase = game.phase
        h = self.anchor_bot
        out: list[Action] = [anchor]
        if phase == "draw":
            if game.pile_count > 0:
                out.append(DrawPile(seat))
            picks = game.row_picks(seat)
            out.extend(TakeRow(seat, i) for i in reversed(picks))  # newest first
        elif phase in ("play", "must_play"):
            plays = sorted(game.play_moves(seat), key=lambda m: -h._play_value(game, seat, m))
            out.extend(plays)
            if phase == "play":
                out.extend(Discard(seat, s) for s in h.discard_order(game, seat))
        elif phase == "bonus":
            out.extend(game.legal_moves(seat))
        seen: set[Action] = set()
        faces_seen: set[tuple[str, int]] = set()
        uniq: list[Action] = []
        for m in out:
            if m in seen:
                continue
            if isinstance(m, Discard):  # the two copies of a face are alike (R1.2)
                f = game.faces[m.slot]
                assert f is not None
                key = ("discard", f >> 1)
                if key in faces_seen:
                    continue
                faces_seen.add(key)
            seen.add(m)
            uniq.append(m)
            if len(uniq) >= self.config.max_candidates:
                break
        return uniq

    # -- rollouts ----------------------------------------------------------------
    def _rollout(self, g: Game, seed: int, rules: list[Targeting]) -> None:
        bots = self._rollout_bots
        for i, b in enumerate(bots):
            b.rng.seed(seed * 8 + i)
            b.targeting = rules[i]
        for _ in range(5000):
            if g.phase in _END:
                return
            seat = g.actor
            assert seat is not None
            g.apply_trusted(bots[seat].choose(g, seat))
        raise RuntimeError("rollout did not end the round")  # pragma: no cover

    def _value(self, g: Game, seat: int, rules: list[Targeting] | None = None) -> float:
        """:meth:`_value_of` the pads of a game whose round is over."""
        return self._value_of(g, [[m[r] for r in ROWS] for m in g.marks], seat, rules)

    @staticmethod
    def _value_of(g: Game, marks: list[list[int]], seat: int,
                  rules: list[Targeting] | None = None) -> float:
        """Chance of finishing ahead of the best opponent, from the pads' ``marks`` after
        the round (per seat, in ROWS order) plus an average round's marks for each round
        still to come (R7.2–R7.3).

        An average round's negative marks are the cards left in hand plus the perfect
        bonuses' marks (R5.1), one per perfect match laid. With ``rules`` (each seat's
        :class:`Targeting`), a seat that aims by the scored pads gives all its marks of a
        round to the leader at that round's start — so leading after this round costs
        the next one's marks; the others' marks are spread evenly, as on average."""
        left = g.settings.rounds - g.round_no
        per = ROUND_MARKS.get(g.n, ROUND_MARKS[4])
        pad = g.settings.pad
        n = g.n
        rows = [pad.row(r) for r in ROWS]

        def points(m: list[float]) -> float:
            return (_pad_value(rows[0], m[0]) + _pad_value(rows[1], m[1])
                    + _pad_value(rows[2], m[2]) - _pad_value(rows[3], m[3]))

        if rules is None or left == 0 or Targeting.SCORE not in rules:
            totals = [points([m[i] + left * per[i] for i in range(4)]) for m in marks]
        else:
            fm = [[float(x) for x in m] for m in marks]
            kept = per[3] - per[0]  # cards left in hand: the negatives no bonus gives
            share = per[0] / (n - 1)
            for _ in range(left):
                start = [points(m) for m in fm]
                got = [0.0] * n
                for o in range(n):
                    if rules[o] == Targeting.SCORE:
                        t = max((s for s in range(n) if s != o),
                                key=lambda s: (start[s], -s))
                        got[t] += per[0]
                    else:
                        for s in range(n):
                            if s != o:
                                got[s] += share
                for s in range(n):
                    m = fm[s]
                    m[0] += per[0]
                    m[1] += per[1]
                    m[2] += per[2]
                    m[3] += kept + got[s]
            totals = [points(m) for m in fm]
        mine = totals[seat]
        best = max(t for s, t in enumerate(totals) if s != seat)
        scale = 6.0 + 12.0 * left
        x = (mine - best) / scale
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, x))))

    # -- the decision -------------------------------------------------------------
    def decide(self, game: Game, seat: int) -> Decision:
        start, cpu = self.clock(), time.thread_time()
        key = (game.round_no, game.turns_started[seat])
        if game.phase == "draw" or key != self._turn_key:  # R4.1: a turn starts by drawing
            if self._turn_key is not None:
                self.turn_times.append(self._turn_spent)
            self._turn_key, self._turn_spent = key, (0.0, 0.0)
        try:
            return self._decide(game, seat,
                                start + self.config.turn_budget - self._turn_spent[0])
        finally:
            wall, used = self._turn_spent
            self._turn_spent = (wall + self.clock() - start, used + time.thread_time() - cpu)

    @property
    def turns(self) -> list[tuple[float, float]]:
        """The thinking time of every turn so far, the one under way included: the sum
        of its decisions', as (wall clock, this thread's CPU) in seconds."""
        return self.turn_times + ([self._turn_spent] if self._turn_key is not None else [])

    def _decide(self, game: Game, seat: int, turn_end: float) -> Decision:
        """The decision, sampling only while the clock is before ``turn_end``."""
        self.decisions += 1
        self.targets.observe(game)
        anchor = self.anchor_bot.choose(game, seat)
        if game.phase not in ("draw", "play", "must_play", "bonus"):  # late lays: R6.2
            self.last = Decision(anchor, anchor)
            return self.last
        cands = self._candidates(game, seat, anchor)
        if len(cands) < 2:
            self.last = Decision(anchor, anchor)
            return self.last
        cfg = self.config
        if len(self._rollout_bots) != game.n:
            self._rollout_bots = [HeuristicBot(i) for i in range(game.n)]
        rngs = [random.Random(0) for _ in range(game.n)]
        rules = [Targeting.NOW] * game.n
        if cfg.model_targeting:
            rules = [Targeting.NOW if s == seat else r
                     for s, r in enumerate(self.targets.rules(game.n))]
        future = rules if cfg.future_targeting else None
        clock = self.clock
        t0, c0 = clock(), time.thread_time()
        known = knowable_slots(game, seat)
        # The samples depend on this bot's seed and the public history only.
        rng = random.Random(f"splitnet/strong/{self.seed}/{game.round_no}/"
                            f"{len(game.events)}/{game.phase}/{seat}")
        paired = Paired.of(len(cands))
        samples = cfg.samples
        fixed = samples is not None
        rolled = 0
        while True:
            live = len(cands) - len(paired.dropped)
            if not fixed:  # stop before a sample that would overrun a budget
                now = clock()
                need = live * ((now - t0) / rolled if rolled else self._per_rollout)
                if now + need > turn_end or (paired.n >= cfg.min_samples
                                             and now + need > t0 + cfg.budget):
                    self.cut += 1
                    break
            det = determinize(game, seat, rng, known)
            roll_seed = rng.randrange(2**31)
            vals: list[float | None] = []
            for i, c in enumerate(cands):
                if i in paired.dropped:  # it cannot be chosen any more: not played out
                    vals.append(None)
                    continue
                g = det.clone()
                g.apply_trusted(c)
                if cfg.reference_rollouts:
                    self._rollout(g, roll_seed, rules)
                    vals.append(self._value(g, seat, future))
                else:
                    for j, r in enumerate(rngs):
                        r.seed(roll_seed * 8 + j)
                    vals.append(self._value_of(g, rollout(g, rngs, None, rules), seat,
                                               future))
            rolled += live
            paired.add(vals)
            if samples is not None:
                if paired.n >= samples:
                    break
            elif paired.n >= cfg.min_samples and paired.decided(cfg, len(cands)):
                break
        n = paired.n
        if rolled:
            self._per_rollout = (clock() - t0) / rolled
        if n == 0:  # the turn's budget is spent: the heuristic's move
            self.unsampled += 1
            self.last = Decision(anchor, anchor)
            return self.last
        self.searched += 1
        self.sampled += n
        self.search_time += clock() - t0
        self.search_cpu += time.thread_time() - c0
        # Stopped by the clock before min_samples: too few to leave the anchor.
        best_i = paired.best(cfg, len(cands) if fixed or n >= cfg.min_samples else 1)
        self.last = Decision(cands[best_i], anchor, n, True,
                             list(zip(cands, paired.means(len(cands)), strict=True)))
        return self.last


# ------------------------------------------------------------------ hints
def describe_move(game: Game, action: Action, names: list[str] | None = None) -> str:
    """A move in words, from the mover's view: "lay 7♥ 7♦ (strong)"."""

    def card(slot: int) -> str:
        f = game.faces[slot]
        return pretty(f) if f is not None else "a card"

    def who(s: int) -> str:
        return names[s] if names is not None and 0 <= s < len(names) else f"seat {s}"

    if isinstance(action, DrawPile):
        return "draw from the pile"
    if isinstance(action, TakeRow):
        taken = game.row[action.index:]
        k = len(taken) - 1
        extra = "" if k == 0 else " and the card after it" if k == 1 else f" and the {k} after it"
        return f"take {card(taken[0])}{extra} from the row"
    if isinstance(action, Lay):
        from splitnet.cards import match_kind

        fa, fb = game.faces[action.a], game.faces[action.b]
        kind = match_kind(fa, fb) if fa is not None and fb is not None else None
        return f"lay {card(action.a)} {card(action.b)}" + (f" ({kind})" if kind else "")
    if isinstance(action, Upgrade):
        m = game.matches[action.match_id]
        whose = "your" if m.owner == action.seat else f"{who(m.owner)}'s"
        return (f"upgrade {whose} {m.kind} {card(m.top[0])} {card(m.top[1])} with "
                f"{card(action.slot)}")
    if isinstance(action, Discard):
        return f"discard {card(action.slot)}"
    if isinstance(action, BonusMark):
        return f"give {who(action.target)} the negative mark"
    if isinstance(action, BonusDraw):
        return "take the bonus card from the pile"
    if isinstance(action, BonusSwap):
        give, take = game.matches[action.give], game.matches[action.take]
        return (f"swap your {card(give.top[0])} {card(give.top[1])} for {who(take.owner)}'s "
                f"{card(take.top[0])} {card(take.top[1])}")
    if isinstance(action, SkipBonus):
        return "skip the bonus"
    return "end your late lays" if action.__class__.__name__ == "EndLateLays" else (
        "lay a late match")


def _why(game: Game, action: Action, names: list[str] | None) -> str:
    """The plain reason a move is good, by the rules it uses."""
    from splitnet.cards import match_kind
    from splitnet.games.split.rules import standing_now

    def who(s: int) -> str:
        return names[s] if names is not None and 0 <= s < len(names) else f"seat {s}"

    seat = action.seat
    if isinstance(action, Lay):
        fa, fb = game.faces[action.a], game.faces[action.b]
        kind = match_kind(fa, fb) if fa is not None and fb is not None else None
        return {"perfect": "a perfect match scores most and gives someone a negative "
                           "mark (R5.1)",
                "strong": "a strong match, and you may draw a card (R5.2)",
                "weak": "two cards out of your hand; a weak match may be swapped (R5.3)",
                }.get(kind or "", "a match")
    if isinstance(action, Upgrade):
        m = game.matches[action.match_id]
        if m.owner != seat and game.settings.upgrade_takes_match:
            return f"it takes {who(m.owner)}'s match and makes it stronger (R4.3b)"
        return "it makes the match stronger (R4.3b)"
    if isinstance(action, BonusMark):
        totals = standing_now(game)
        return (f"{who(action.target)} stands best of the others if the round ended now "
                f"({str(totals[action.target]).replace('-', '−')})")
    if isinstance(action, BonusDraw):
        return "one more card to match from"
    if isinstance(action, SkipBonus):
        if game.pending_bonus == "strong":
            return ("the pile is nearly out: drawing its last card would end the round "
                    "with your hand still full (R4.2)")
        return "no swap gains anything"
    if isinstance(action, TakeRow):
        n = len(game.row) - action.index
        carry = f", carrying {n - 1} more card{'s' if n > 2 else ''}" if n > 1 else ""
        return f"you can play it at once (R4.1b){carry}"
    if isinstance(action, DrawPile):
        return "no row card is worth what you would have to carry"
    if isinstance(action, Discard):
        return "the card you and the next players can use least"
    if isinstance(action, BonusSwap):
        return "a match less exposed to upgrades"
    return "nothing more to lay"


def suggest(game: Game, seat: int, *, budget: float = 0.3, samples: int | None = None,
            seed: int = 0, names: list[str] | None = None) -> Suggestion:
    """The strong bot's move for ``seat`` on ``game`` — that seat's own view (it reads
    nothing else, R8) — and the reason in one line of words, e.g.
    ``lay 7♥ 7♦ (strong): a strong match, and you may draw a card (R5.2); simulations
    agree: 62% chance of finishing ahead (40 deals tried)``. At most ``budget``
    seconds, less once the choice is clear (or exactly ``samples`` samples).

    It blocks for as long: a front end calls it off its event loop on a copy, e.g.
    ``await asyncio.to_thread(suggest, view.clone(), seat)``. ValueError when ``seat``
    has no decision to make now. ``names`` (by seat) make the reason name players."""
    if game.actor != seat or not game.legal_moves(seat):
        raise ValueError(f"seat {seat} has no move to make now")
    bot = StrongBot(seed, SearchConfig(budget=budget, samples=samples))
    d = bot.decide(game, seat)
    what = describe_move(game, d.action, names)
    why = _why(game, d.action, names)
    if not d.searched:
        return Suggestion(d.action, f"{what}: {why}")
    values = dict(d.values)
    mine = values[d.action]
    if d.action == d.anchor:
        sim = (f"simulations found nothing clearly better: {round(100 * mine)}% chance of "
               "finishing ahead")
    else:
        base = values[d.anchor]
        sim = (f"simulations prefer it to {describe_move(game, d.anchor, names)}: "
               f"{round(100 * mine)}% against {round(100 * base)}% chance of finishing ahead")
    return Suggestion(d.action, f"{what}: {why}; {sim} ({d.samples} deals tried)")
