"""Computer players. A bot sees only its own seat's engine (its view, R8) and picks one
of the engine's legal moves; it never decides a rule itself.

Levels (:data:`LEVELS`): ``easy`` (:class:`EasyBot`, a beatable human-like player),
``normal`` (:class:`HeuristicBot`) and ``strong``
(:class:`~splitnet.games.split.bots.search.StrongBot`, a search over the heuristic; its
hint API is :func:`splitnet.games.split.bots.search.suggest`).
``make_bot(level, seed)`` builds one; :func:`bot_player_name` names bot players and
:func:`bot_label` shows one with its level.
"""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Protocol

from splitnet.cards import _KIND_TABLE, STRENGTH, match_kind
from splitnet.games.split.bots.opponents import Targeting

# the open-handed seat's player (R8.6) is no bot: the protocol's rules O1–O7
# (protocol/OPEN_HAND.md), re-exported for those who assemble a peer
from splitnet.games.split.open_hand_policy import open_hand_player as open_hand_player
from splitnet.games.split.rules import (
    Action,
    BonusDraw,
    BonusMark,
    Discard,
    DrawPile,
    EndLateLays,
    Game,
    LateLay,
    Lay,
    SkipBonus,
    TakeRow,
    Upgrade,
    standing_now,
)


class Bot(Protocol):
    name: str

    def choose(self, game: Game, seat: int) -> Action: ...


async def choose_off_loop(bot: Bot, game: Game, seat: int) -> Action:
    """``bot.choose`` for a session running in an event loop: a bot that searches (the
    strong level thinks for a time budget) thinks in a worker thread on a copy of the
    view, so the screen and the network stay responsive; the others answer at once."""
    if getattr(bot, "searches", False):
        return await asyncio.to_thread(bot.choose, game.clone(), seat)
    return bot.choose(game, seat)


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
_LAY_VALUE = {k: v + 2.0 for k, v in _KIND_VALUE.items()}  # a lay: two cards fewer in hand


def _before(hand: list[int], slot: int, match_id: int, best: Upgrade) -> bool:
    """Whether upgrade (slot, match) comes before ``best`` in the engine's order (by the
    hand card's position, then the match)."""
    i, j = hand.index(slot), hand.index(best.slot)
    return i < j or (i == j and match_id < best.match_id)


class HeuristicBot:
    """Plays to win: lays the strongest matches, upgrades (and so takes) opponents'
    matches, names the leader for the perfect bonus, takes from the row when the gain
    beats the cards it must carry, and discards what others can use least."""

    name = "heuristic"

    def __init__(self, seed: int = 0, targeting: Targeting = Targeting.NOW) -> None:
        self.rng = random.Random(seed)
        #: whom it names for the perfect bonus (R5.1): the leader now, by default
        self.targeting = targeting

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
        """The most valuable lay or upgrade (:meth:`_play_value`), the first of equals in
        the engine's order (:meth:`Game.play_moves`). Scored in place: only the chosen
        play becomes a move object (this runs at every step of the strong bot's search)."""
        if game.actor != seat:
            return None
        phase = game.phase
        if phase == "play":
            must = None
        elif phase == "must_play":
            must = game.picked
        else:
            return None
        hand = game.hands[seat]
        faces = game.faces
        n = len(hand)
        hand_faces = [faces[s] for s in hand]
        if None in hand_faces:  # never in a seat's own view (R8.3); stay exact anyway
            ranks = [-1 if f is None else f >> 3 for f in hand_faces]
        else:
            ranks = [f >> 3 for f in hand_faces]  # type: ignore[operator]
        best_v = -1e9
        best: Action | None = None
        if n >= 3:
            counts = [0] * 14
            for r in ranks:
                counts[r] += 1  # an unknown face (-1) lands in the spare last cell
            for i in range(n - 1):
                r = ranks[i]
                if r < 0 or counts[r] < 2:
                    continue
                a = hand[i]
                for j in range(i + 1, n):
                    if ranks[j] != r:
                        continue
                    b = hand[j]
                    if must is not None and must != a and must != b:
                        continue
                    k = _KIND_TABLE[faces[a] * 104 + faces[b]]  # type: ignore[operator]
                    assert k is not None  # same rank: a match (R2.1)
                    v = _LAY_VALUE[k]
                    if v > best_v:
                        best_v, best = v, Lay(seat, a, b)
        if n >= 2 and game.matches:
            in_hand = set(ranks) if must is None else {ranks[hand.index(must)]}
            takes = game.settings.upgrade_takes_match
            for m in game.matches:
                kind = m.kind
                if kind == "perfect":
                    continue
                t0, t1 = faces[m.top[0]], faces[m.top[1]]
                assert t0 is not None and t1 is not None
                r = t0 >> 3
                if r not in in_hand:
                    continue
                if m.owner == seat:
                    adj = 1.0 - _KIND_VALUE[kind]
                else:
                    adj = 1.0 + (_KIND_VALUE[kind] * 0.8 if takes else 0.0)
                need = STRENGTH[kind]
                for i, s in enumerate(hand):
                    if ranks[i] != r or (must is not None and s != must):
                        continue
                    f = faces[s]
                    assert f is not None
                    for covers, other in ((0, t1), (1, t0)):
                        k = _KIND_TABLE[f * 104 + other]
                        if k is not None and STRENGTH[k] > need:
                            v = _KIND_VALUE[k] + adj
                            if v > best_v or (v == best_v and isinstance(best, Upgrade)
                                              and _before(hand, s, m.id, best)):
                                best_v, best = v, Upgrade(seat, s, m.id, covers)
        return best

    def _greedy_gain(self, game: Game, hand: list[int], must: int | None) -> float:
        """Value of the plays a hand allows (a quick estimate for row picks)."""
        faces = game.faces
        counts = [0] * 13
        for s in hand:
            counts[self._f(game, s) >> 3] += 1
        pairs = sum(c >> 1 for c in counts)
        singles = sum(c & 1 for c in counts)
        gain = pairs * (_KIND_VALUE["strong"] + 2.0)
        if must is not None:
            fm = self._f(game, must)
            if counts[fm >> 3] < 2:
                best_up = 0.0
                for m in game.matches:
                    for covers in (0, 1):
                        f2 = faces[m.top[1 - covers]]
                        assert f2 is not None
                        k = match_kind(fm, f2)
                        if k is not None and STRENGTH[k] > STRENGTH[m.kind]:
                            best_up = max(best_up, _KIND_VALUE[k] + 1.0)
                gain += best_up
        return gain - singles * _NEG_VALUE * 0.5

    def _draw_choice(self, game: Game, seat: int, hand: list[int]) -> Action:
        """R4.1: take from the row when the plays it allows (:meth:`_greedy_gain` of the
        hand after taking, less 0.4 a card carried along) beat drawing blind.

        The same figures as calling :meth:`_greedy_gain` per row index, counted in one
        pass from the newest card back; ties go to the oldest index."""
        picks = game.row_picks(seat)
        threshold = 0.5 if game.pile_count > 1 else -1.0
        best_i, best_gain = -1, threshold
        if picks:
            faces = game.faces
            counts = [0] * 13
            for s in hand:
                counts[self._f(game, s) >> 3] += 1
            pairs = sum(c >> 1 for c in counts)
            singles = sum(c & 1 for c in counts)
            base = pairs * (_KIND_VALUE["strong"] + 2.0) - singles * _NEG_VALUE * 0.5
            row = game.row
            allowed = set(picks)
            found: list[tuple[float, int]] = []
            for i in range(len(row) - 1, picks[0] - 1, -1):
                f = faces[row[i]]
                assert f is not None
                r = f >> 3
                if counts[r] & 1:
                    pairs, singles = pairs + 1, singles - 1
                else:
                    singles += 1
                counts[r] += 1
                if i not in allowed:
                    continue
                gain = pairs * (_KIND_VALUE["strong"] + 2.0)
                if counts[r] < 2:
                    gain += self._best_upgrade_value(game, f)
                gain = gain - singles * _NEG_VALUE * 0.5 - base
                gain -= 0.4 * (len(row) - i - 1)
                found.append((gain, i))
            for gain, i in found:  # newest first: >= leaves the oldest of equals
                if gain > threshold and gain >= best_gain:
                    best_i, best_gain = i, gain
        if best_i >= 0:
            return TakeRow(seat, best_i)
        if game.pile_count == 0:
            return next(iter(game.iter_legal_moves(seat)))
        return DrawPile(seat)

    @staticmethod
    def _best_upgrade_value(game: Game, fm: int) -> float:
        faces = game.faces
        best_up = 0.0
        for m in game.matches:
            need = STRENGTH[m.kind]
            for covers in (0, 1):
                f2 = faces[m.top[1 - covers]]
                assert f2 is not None
                k = match_kind(fm, f2)
                if k is not None and STRENGTH[k] > need:
                    best_up = max(best_up, _KIND_VALUE[k] + 1.0)
        return best_up

    def _discard_choice(self, game: Game, seat: int, hand: list[int]) -> Action:
        return Discard(seat, min(hand, key=self._danger(game, seat, hand)))

    def discard_order(self, game: Game, seat: int) -> list[int]:
        """``seat``'s hand, the card this bot would rather discard first."""
        hand = game.hands[seat]
        return sorted(hand, key=self._danger(game, seat, hand))

    def _danger(self, game: Game, seat: int, hand: list[int]) -> Callable[[int], float]:
        """How much discarding each card would cost (keeping pairs, not feeding upgrades
        or the row), with a tiny seeded noise to break ties."""
        faces = game.faces
        counts = [0] * 13
        for s in hand:
            counts[self._f(game, s) >> 3] += 1
        # Upgrade chances a discard would offer (could the next player take it?), by the
        # other half's face and the match's strength — only for ranks in the hand.
        exposed: list[tuple[int, int, float]] = []
        for m in game.matches:
            if m.kind == "perfect":
                continue
            t0 = faces[m.top[0]]
            if t0 is None or not counts[t0 >> 3]:
                continue
            weight = 3.0 if m.owner == seat else 1.5
            need = STRENGTH[m.kind]
            for covers in (0, 1):
                f2 = faces[m.top[1 - covers]]
                if f2 is not None:
                    exposed.append((f2, need, weight))
        row_ranks = [0] * 13
        for slot in game.row:
            fr = faces[slot]
            if fr is not None:
                row_ranks[fr >> 3] += 1
        rng = self.rng

        def danger(s: int) -> float:
            f = self._f(game, s)
            r = f >> 3
            score = 4.0 if counts[r] >= 2 else 0.0  # keep pairs
            for f2, need, weight in exposed:
                if f2 >> 3 == r:
                    k = _KIND_TABLE[f * 104 + f2]
                    if k is not None and STRENGTH[k] > need:
                        score += weight
            score += row_ranks[r]  # matches a visible row card: a gift to the next player
            return score + rng.random() * 0.01

        return danger

    def perfect_target(self, game: Game, seat: int) -> int:
        """R5.1: the leader among the others as if the round ended now (this round's
        marks and matches count, :func:`~splitnet.games.split.rules.standing_now`); a tie is broken
        by this bot's own seeded randomness, never by seat order. Another
        :attr:`targeting` rule (the strong level's model of other players) names the
        leader by the scored rounds, ties to the lowest seat, or anyone at random."""
        others = [s for s in range(game.n) if s != seat]
        if self.targeting == Targeting.SCORE:
            return max(others, key=lambda s: (game.score(s), -s))
        if self.targeting == Targeting.ANY:
            return self.rng.choice(others)
        totals = standing_now(game)
        best = max(totals[s] for s in others)
        leaders = [s for s in others if totals[s] == best]  # as leaders_now, one pass less
        return leaders[0] if len(leaders) == 1 else self.rng.choice(leaders)

    # -- the decision ----------------------------------------------------------
    def choose(self, game: Game, seat: int) -> Action:
        phase = game.phase
        hand = game.hands[seat]
        if phase == "draw":
            return self._draw_choice(game, seat, hand)
        if phase in ("play", "must_play"):
            play = self._best_play(game, seat)
            if play is not None:
                return play
            return self._discard_choice(game, seat, hand)
        if phase == "bonus":
            if game.pending_bonus == "perfect":
                return BonusMark(seat, self.perfect_target(game, seat))
            if game.pending_bonus == "strong":
                # Draw unless the pile is nearly out (drawing the last card ends the round
                # with our hand still full).
                if game.pile_count > 2 or len(hand) <= 2:
                    return BonusDraw(seat)
                return SkipBonus(seat)
            # R5.3: a swap is of one type, and the match types are all this bot weighs, so
            # it never sees a gain in swapping (the strong level searches the swaps).
            return SkipBonus(seat)
        if phase == "late_lays":
            lays = [m for m in game.iter_legal_moves(seat) if isinstance(m, LateLay)]
            if lays:
                return max(lays, key=lambda m: self._play_value(game, seat, m))
            return EndLateLays(seat)
        raise RuntimeError(f"no move expected in phase {phase}")


class EasyBot(HeuristicBot):
    """A beatable, human-like player: the heuristic's judgement with a person's lapses.

    It looks only at the two newest cards of the row, spots an upgrade of someone's match
    only 70% of the time (and never improves its own), lays the first match it sees
    rather than the best now and then, gives the perfect bonus's mark to anyone, and
    sometimes throws away a single card it could have kept. ``splitnet bench bots``
    measures it: about 14% against three normal bots (25% is parity), above 90%
    against three random ones.
    """

    name = "easy"
    LOOK = 2  # row cards it considers, newest first
    P_SPOT_UPGRADE = 0.7
    P_FIRST_SEEN = 0.3
    P_LOOSE_DISCARD = 0.2

    def choose(self, game: Game, seat: int) -> Action:
        phase = game.phase
        rng = self.rng
        if phase == "draw":
            if game.pile_count == 0:
                return super().choose(game, seat)
            picks = [i for i in game.row_picks(seat) if i >= len(game.row) - self.LOOK]
            hand = game.hands[seat]
            best, best_gain = None, 0.5
            if picks:
                base = self._greedy_gain(game, hand, None)
                for i in picks:
                    taken = game.row[i:]
                    gain = (self._greedy_gain(game, hand + taken, taken[0]) - base
                            - 0.4 * (len(taken) - 1))
                    if gain > best_gain:
                        best, best_gain = i, gain
            return TakeRow(seat, best) if best is not None else DrawPile(seat)
        if phase in ("play", "must_play"):
            plays = game.play_moves(seat)
            seen = [m for m in plays if isinstance(m, Lay) or (
                game.matches[m.match_id].owner != seat and rng.random() < self.P_SPOT_UPGRADE)]
            if seen:
                if rng.random() < self.P_FIRST_SEEN:
                    return seen[0]
                return max(seen, key=lambda m: self._play_value(game, seat, m))
            if phase == "must_play":
                return plays[0]  # R4.1b: the picked card must be played first
            hand = game.hands[seat]
            if rng.random() < self.P_LOOSE_DISCARD:
                counts = Counter(self._f(game, s) >> 3 for s in hand)
                loose = [s for s in hand if counts[self._f(game, s) >> 3] < 2]
                if loose:
                    return Discard(seat, rng.choice(loose))
            return self._discard_choice(game, seat, hand)
        if phase == "bonus" and game.pending_bonus == "perfect":
            return BonusMark(seat, rng.choice([s for s in range(game.n) if s != seat]))
        return super().choose(game, seat)


#: The levels a player chooses from, weakest first (``play --bot``, ``selfplay --bots``,
#: ``host --bot-level``, ``bot --level``).
LEVELS: tuple[str, ...] = ("easy", "normal", "strong")
#: Accepted but not offered: "random" (uniform over legal moves: a test opponent, it wins
#: about 1 game in 1200 against the heuristic) and "heuristic", the old name of normal.
HIDDEN_LEVELS: dict[str, str] = {"random": "random", "heuristic": "normal"}
#: The friendly names bot players get, one per seat (:func:`bot_player_name`).
FRIENDLY_NAMES: tuple[str, ...] = ("Ana", "Bo", "Cy", "Dee", "Eli", "Fay", "Gus", "Hal",
                                   "Ivy", "Jo", "Kit", "Lu")


def parse_level(text: str) -> str:
    """The canonical level for ``text`` (case-insensitive); ValueError names the levels."""
    t = text.strip().lower()
    if t in LEVELS:
        return t
    if t in HIDDEN_LEVELS:
        return HIDDEN_LEVELS[t]
    raise ValueError(f"unknown bot level {text!r}; choose from {', '.join(LEVELS)}")


def bot_player_name(index: int, taken: Sequence[str] = ()) -> str:
    """The one naming scheme for bot players in every command: the ``index``-th friendly
    name (Ana, Bo, Cy, …), skipping names in ``taken``. A plain name reads well in every
    message ("it is Ana's turn"); where bots are listed, :func:`bot_label` adds the level.
    """
    free = [nm for nm in FRIENDLY_NAMES if nm not in taken] or list(FRIENDLY_NAMES)
    name = free[index % len(free)]
    if index >= len(free):
        name += str(index // len(free) + 1)
    return name


def bot_label(name: str, level: str) -> str:
    """A bot as lists show it (lobby, selfplay, the bot's console): ``Ana (strong)``."""
    return f"{name} ({parse_level(level)})"


def make_bot(level: str, seed: int = 0, *, budget: float | None = None,
             samples: int | None = None) -> Bot:
    """A bot of ``level`` (see :data:`LEVELS`), seeded. ``budget`` (seconds per decision)
    and ``samples`` (a fixed number of samples, deterministic) tune the strong level."""
    lv = parse_level(level)
    if lv == "strong":
        from splitnet.games.split.bots.search import SearchConfig, StrongBot

        cfg = SearchConfig(samples=samples)
        if budget is not None:
            cfg.budget = budget
        return StrongBot(seed, cfg)
    factory: dict[str, Callable[[int], Bot]] = {"easy": EasyBot, "normal": HeuristicBot,
                                                 "random": RandomBot}
    return factory[lv](seed)
