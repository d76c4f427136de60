"""Computer players. A bot sees only its own seat's engine (its view, R8) and picks one
of the engine's legal moves; it never decides a rule itself.

``make_bot(name, seed)`` builds one of :data:`BOTS`.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from typing import Protocol

from splitnet.cards import STRENGTH, match_kind, rank
from splitnet.rules import (
    Action,
    BonusDraw,
    BonusMark,
    BonusSwap,
    Discard,
    DrawPile,
    EndLateLays,
    Game,
    LateLay,
    Lay,
    SkipBonus,
    TakeRow,
    Upgrade,
)


class Bot(Protocol):
    name: str

    def choose(self, game: Game, seat: int) -> Action: ...


class RandomBot:
    """Uniform over the engine's legal moves."""

    name = "random"

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def choose(self, game: Game, seat: int) -> Action:
        moves = game.legal_moves(seat)
        if not moves:
            raise RuntimeError(f"no legal move for seat {seat} in phase {game.phase}")
        return self.rng.choice(moves)


# Value of a match on the pad, roughly (marginal box values early in a game).
_KIND_VALUE = {"perfect": 7.0, "strong": 5.0, "weak": 3.0}
_NEG_VALUE = 3.0


class HeuristicBot:
    """Plays to win: lays the strongest matches, upgrades (and so takes) opponents'
    matches, names the leader for the perfect bonus, takes from the row when the gain
    beats the cards it must carry, and discards what others can use least."""

    name = "heuristic"

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    # -- helpers ---------------------------------------------------------------
    @staticmethod
    def _f(game: Game, slot: int) -> int:
        f = game.faces[slot]
        assert f is not None, "a bot only handles cards its seat can see"
        return f

    def _play_value(self, game: Game, seat: int, move: Action) -> float:
        if isinstance(move, Lay | LateLay):
            k = match_kind(self._f(game, move.a), self._f(game, move.b))
            assert k is not None
            return _KIND_VALUE[k] + 2.0  # two cards fewer in hand
        if isinstance(move, Upgrade):
            m = game.matches[move.match_id]
            k = match_kind(self._f(game, move.slot), self._f(game, m.top[1 - move.covers]))
            assert k is not None
            gain = _KIND_VALUE[k] + 1.0
            if m.owner == seat:
                gain -= _KIND_VALUE[m.kind]
            elif game.settings.upgrade_takes_match:
                gain += _KIND_VALUE[m.kind] * 0.8  # the opponent loses it
            return gain
        return 0.0

    def _best_play(self, game: Game, seat: int) -> Action | None:
        plays = [m for m in game.iter_legal_moves(seat) if isinstance(m, Lay | Upgrade)]
        if not plays:
            return None
        # Keep a weak pair back when a strong/perfect partner for it may still come?
        # Simpler and better in practice: play the most valuable play now.
        return max(plays, key=lambda m: self._play_value(game, seat, m))

    def _greedy_gain(self, game: Game, hand: list[int], must: int | None) -> float:
        """Value of the plays a hand allows (a quick estimate for row picks)."""
        faces = [self._f(game, s) for s in hand]
        by_rank = Counter(rank(f) for f in faces)
        pairs = sum(c // 2 for c in by_rank.values())
        gain = pairs * (_KIND_VALUE["strong"] + 2.0)
        if must is not None:
            fm = self._f(game, must)
            if by_rank[rank(fm)] < 2:
                best_up = 0.0
                for m in game.matches:
                    for covers in (0, 1):
                        f2 = game.faces[m.top[1 - covers]]
                        assert f2 is not None
                        k = match_kind(fm, f2)
                        if k is not None and STRENGTH[k] > STRENGTH[m.kind]:
                            best_up = max(best_up, _KIND_VALUE[k] + 1.0)
                gain += best_up
        singles = sum(c % 2 for c in by_rank.values())
        return gain - singles * _NEG_VALUE * 0.5

    def _discard_choice(self, game: Game, seat: int, hand: list[int]) -> Action:
        faces = {s: self._f(game, s) for s in hand}
        counts = Counter(rank(f) for f in faces.values())

        def danger(s: int) -> float:
            f = faces[s]
            score = 0.0
            if counts[rank(f)] >= 2:
                score += 4.0  # keep pairs
            for m in game.matches:  # could the next player take it to upgrade?
                for covers in (0, 1):
                    f2 = game.faces[m.top[1 - covers]]
                    if f2 is None:
                        continue
                    k = match_kind(f, f2)
                    if k is not None and STRENGTH[k] > STRENGTH[m.kind]:
                        score += 3.0 if m.owner == seat else 1.5
            for r in game.row:  # matches a visible row card: a gift to the next player
                fr = game.faces[r]
                if fr is not None and rank(fr) == rank(f):
                    score += 1.0
            return score + self.rng.random() * 0.01

        return Discard(seat, min(hand, key=danger))

    # -- the decision ----------------------------------------------------------
    def choose(self, game: Game, seat: int) -> Action:
        phase = game.phase
        hand = game.hands[seat]
        if phase == "draw":
            base = self._greedy_gain(game, hand, None)
            best: Action = DrawPile(seat)
            best_gain = 0.5 if game.pile_count > 1 else -1.0
            for move in game.iter_legal_moves(seat):
                if isinstance(move, TakeRow):
                    taken = game.row[move.index:]
                    gain = self._greedy_gain(game, hand + taken, taken[0]) - base
                    gain -= 0.4 * (len(taken) - 1)
                    if gain > best_gain:
                        best, best_gain = move, gain
            if isinstance(best, DrawPile) and game.pile_count == 0:
                return next(iter(game.iter_legal_moves(seat)))
            return best
        if phase in ("play", "must_play"):
            play = self._best_play(game, seat)
            if play is not None:
                return play
            return self._discard_choice(game, seat, hand)
        if phase == "bonus":
            if game.pending_bonus == "perfect":
                others = [s for s in range(game.n) if s != seat]
                return BonusMark(seat, max(others, key=lambda s: (game.score(s), -s)))
            if game.pending_bonus == "strong":
                # Draw unless the pile is nearly out (drawing the last card ends the round
                # with our hand still full).
                if game.pile_count > 2 or len(hand) <= 2:
                    return BonusDraw(seat)
                return SkipBonus(seat)
            swaps = [m for m in game.iter_legal_moves(seat) if isinstance(m, BonusSwap)]
            # Give away the match most exposed to upgrades, take the least exposed.
            if swaps:
                def exposure(mid: int) -> int:
                    m = game.matches[mid]
                    return 2 - STRENGTH[m.kind]
                best_swap = max(swaps, key=lambda s: exposure(s.give) - exposure(s.take))
                if exposure(best_swap.give) > exposure(best_swap.take):
                    return best_swap
            return SkipBonus(seat)
        if phase == "late_lays":
            lays = [m for m in game.iter_legal_moves(seat) if isinstance(m, LateLay)]
            if lays:
                return max(lays, key=lambda m: self._play_value(game, seat, m))
            return EndLateLays(seat)
        raise RuntimeError(f"no move expected in phase {phase}")


BOTS: dict[str, Callable[[int], Bot]] = {"random": RandomBot, "heuristic": HeuristicBot}


def make_bot(name: str, seed: int = 0) -> Bot:
    try:
        return BOTS[name](seed)
    except KeyError:
        raise ValueError(f"unknown bot {name!r}; choose from {', '.join(BOTS)}") from None
