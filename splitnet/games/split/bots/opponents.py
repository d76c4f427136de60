"""How the other seats aim the perfect bonus's negative mark (R5.1), inferred from what
every seat sees.

The strong level rolls every other seat out with the heuristic; the heuristic's moves
are the same for most players, but *whom* a player names for the perfect bonus varies
from one to another and decides where most negative marks land. A few targeting rules
(:class:`Targeting`) are weighed for each seat by Bayes' rule from the marks it gave —
the target of each ``bonus_mark`` event and the standing at that moment, both public
(R8: the round's events, the scored pads, the matches and how many cards each hand
holds; never a hidden face) — starting from the normal heuristic's rule.

The standing at each past mark is rebuilt by replaying the round's public events
(:func:`marks_seen`): who moved (the turn passes left at each discard, R3.4), how many
cards each hand held, which matches each seat owned, and the marks given before.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import IntEnum

from splitnet.games.split.rules import Game
from splitnet.games.split.rules.scoring import live


class Targeting(IntEnum):
    """A rule for naming the perfect bonus's target among the other seats (R5.1)."""

    #: the leader as if the round ended now (:func:`~splitnet.games.split.rules.standing_now`), ties
    #: by the player's own randomness: the normal heuristic
    NOW = 0
    #: the leader by the scored rounds only (:meth:`Game.score`, blind to this round),
    #: ties to the lowest seat: the old heuristic's rule
    SCORE = 1
    #: anyone, uniformly (the easy bot, or a player with reasons of their own)
    ANY = 2


#: before any mark is seen: most players aim at the leader now
PRIOR: dict[Targeting, float] = {Targeting.NOW: 0.7, Targeting.SCORE: 0.15,
                                 Targeting.ANY: 0.15}
#: the chance that a player following a rule names someone else all the same
SLIP = 0.05


@dataclass(frozen=True)
class MarkSeen:
    """One perfect bonus's mark: who gave it, to whom, and the standings then."""

    giver: int
    target: int
    #: every seat's total as if the round ended just before the mark (standing_now)
    now: tuple[int, ...]
    #: every seat's total on the scored pads (Game.score)
    scored: tuple[int, ...]


def _pad_total(game: Game, marks: list[int]) -> int:
    pad = game.settings.pad
    vals = []
    for row, k in zip(("perfect", "strong", "weak", "negative"), marks, strict=True):
        vals.append(pad.value(row, k))
    return vals[0] + vals[1] + vals[2] - vals[3]


def replay(game: Game) -> tuple[list[MarkSeen], list[int], list[int]]:
    """Replay the current round's public events: the marks given, and (for checking
    against the table) every seat's hand size and every match's owner after them."""
    if not live(game):
        return [], [len(h) for h in game.hands], [m.owner for m in game.matches]
    n = game.n
    takes = game.settings.upgrade_takes_match
    hand = [game.settings.hand_size] * n
    owner: list[int] = []
    kind: list[str] = []
    given = [0] * n  # this round's bonus marks so far
    base = [[m["perfect"], m["strong"], m["weak"], m["negative"]] for m in game.marks]
    scored = tuple(_pad_total(game, b) for b in base)
    turn = (game.dealer + 1) % n  # R3.4: the dealer's left neighbour starts
    seen: list[MarkSeen] = []
    row_of = {"perfect": 0, "strong": 1, "weak": 2}
    for ev in game.events:
        t = ev["type"]
        if t == "take_row":
            hand[turn] += len(ev["cards"])
        elif t in ("draw_pile", "bonus_draw"):
            hand[turn] += 1
        elif t == "lay":
            hand[turn] -= 2
            owner.append(turn)
            kind.append(ev["match"])
        elif t == "upgrade":
            hand[turn] -= 1
            mid = ev["match_id"]
            if takes:
                owner[mid] = turn
            kind[mid] = ev["match"]
        elif t == "bonus_swap":
            owner[ev["give"]] = ev["with_seat"]
            owner[ev["take"]] = turn
        elif t == "bonus_mark":
            now = []
            for s in range(n):
                m = base[s][:]
                for o, k in zip(owner, kind, strict=True):
                    if o == s:
                        m[row_of[k]] += 1
                m[3] += given[s] + hand[s]
                now.append(_pad_total(game, m))
            seen.append(MarkSeen(turn, ev["target"], tuple(now), scored))
            given[ev["target"]] += 1
        elif t == "discard":
            hand[turn] -= 1
            if hand[turn] > 0:  # R4.5: an empty hand ends the round
                turn = (turn + 1) % n
    if game.last_end is not None:  # R6.2: the late lays after a go-out, public too
        for lay in game.last_end.late_lays:
            hand[lay["seat"]] -= 2
            owner.append(lay["seat"])
    return seen, hand, owner


def marks_seen(game: Game) -> list[MarkSeen]:
    """The perfect bonus's marks given so far this round, with the standings then."""
    return replay(game)[0]


def target_of(rule: Targeting, giver: int, now: tuple[int, ...],
              scored: tuple[int, ...]) -> list[int]:
    """The seats ``rule`` might name (one, or the tied leaders it picks among)."""
    others = [s for s in range(len(now)) if s != giver]
    if rule == Targeting.SCORE:
        return [max(others, key=lambda s: (scored[s], -s))]
    if rule == Targeting.NOW:
        best = max(now[s] for s in others)
        return [s for s in others if now[s] == best]
    return others


def likelihood(rule: Targeting, mark: MarkSeen) -> float:
    """P(this target | the giver follows ``rule``), with :data:`SLIP`."""
    n_others = len(mark.now) - 1
    picks = target_of(rule, mark.giver, mark.now, mark.scored)
    p = 1.0 / len(picks) if mark.target in picks else 0.0
    return (1.0 - SLIP) * p + SLIP / n_others


class TargetModel:
    """Each seat's targeting rule, weighed by Bayes' rule from the marks seen.

    :meth:`observe` is given the table at each of the owner's decisions; marks of
    rounds already over are kept (the round's events end with it), a new game (round
    number going back) starts again from the prior."""

    def __init__(self) -> None:
        self._round = 0
        self._done: list[MarkSeen] = []  # rounds over
        self._current: list[MarkSeen] = []

    def observe(self, game: Game) -> None:
        if not live(game):
            return
        if game.round_no < self._round:  # a new game
            self._done, self._current = [], []
        elif game.round_no > self._round:
            self._done.extend(self._current)
            self._current = []
        self._round = game.round_no
        self._current = marks_seen(game)

    def seen(self) -> list[MarkSeen]:
        """Every mark seen in this game, oldest first."""
        return [*self._done, *self._current]

    def posterior(self, seat: int) -> dict[Targeting, float]:
        """P(rule) for ``seat``, from the prior and every mark it gave."""
        logp = {r: math.log(p) for r, p in PRIOR.items()}
        for mark in self.seen():
            if mark.giver == seat:
                for r in logp:
                    logp[r] += math.log(likelihood(r, mark))
        top = max(logp.values())
        w = {r: math.exp(v - top) for r, v in logp.items()}
        total = sum(w.values())
        return {r: v / total for r, v in w.items()}

    def rule(self, seat: int) -> Targeting:
        """The most likely rule for ``seat`` (the prior's favourite on a tie)."""
        post = self.posterior(seat)
        return max(Targeting, key=lambda r: (post[r], -r))

    def rules(self, n: int) -> list[Targeting]:
        return [self.rule(s) for s in range(n)]
