"""The rules of Split (docs/RULES.md R3–R7) as a pure, deterministic state machine.

The engine works on *slots* (positions in the round's shuffled deck) whose faces may be
unknown to the peer running it (R8). A face becomes known through :meth:`Game.reveal`
(a public reveal, or a private draw to this peer). A move that needs a face the engine
does not know is refused, so every peer, the verifier and the bots run this same code.

>>> from splitnet.games.split.rules.actions import DrawPile, Discard
>>> g = Game(2)
>>> g.start_round(faces=list(range(104)))   # a fully known deck (self-play, audit)
>>> g.turn, g.phase
(1, <Phase.DRAW: 'draw'>)
>>> g.apply(DrawPile(1))
>>> g.hands[1][-1]   # the top of the pile was slot 19 (9 cards each, then the first discard)
19
>>> g.apply(Discard(0, g.hands[0][0]))
Traceback (most recent call last):
...
splitnet.games.split.rules.engine.IllegalMove: R3.4: it is seat 1's turn, not seat 0's
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Final

from splitnet.cards import _KIND_TABLE, STRENGTH, MatchKind, match_kind, rank
from splitnet.errors import IllegalMove as AnyIllegalMove
from splitnet.games.split.rules.actions import (
    Action,
    BonusDraw,
    BonusMark,
    BonusSwap,
    Discard,
    DrawPile,
    EndLateLays,
    LateLay,
    Lay,
    SkipBonus,
    TakeRow,
    Upgrade,
)
from splitnet.games.split.rules.settings import Settings

N_SLOTS: Final = 104


class Phase(StrEnum):
    """Where a round stands (R3–R6): the engine's named states. A member equals its
    string (``Phase.DRAW == "draw"``), the name the record, the front ends and the bots
    read."""

    DRAW = "draw"  # R4.1: the player to move draws (pile or row)
    MUST_PLAY = "must_play"  # R4.1b: took from the row; the first play uses the picked card
    PLAY = "play"  # R4.3: lay or upgrade, then discard
    BONUS = "bonus"  # R5: a bonus is pending for the mover
    LATE_LAYS = "late_lays"  # R6.2: those without a turn lay their matches
    ROUND_OVER = "round_over"  # R6.3: scored; the next round may be dealt (R3.2)
    GAME_OVER = "game_over"  # R7.3: the last round is scored


_END: Final = frozenset({Phase.LATE_LAYS, Phase.ROUND_OVER, Phase.GAME_OVER})
#: The one transition table of a round (R3–R6): the phases each phase may move to. The
#: round ends (→ late lays or scored) from a draw that empties the pile (R4.2) or a
#: discard that empties a hand (R4.5); a bonus draw ends it from play, where a bonus
#: draw is made (R5.2); a seat given up for gone (R8.6) ends it, scored, from any phase
#: of play.
TRANSITIONS: Final[dict[Phase, frozenset[Phase]]] = {
    Phase.ROUND_OVER: frozenset({Phase.DRAW}),
    Phase.DRAW: frozenset({Phase.PLAY, Phase.MUST_PLAY}) | _END,
    Phase.MUST_PLAY: frozenset({Phase.PLAY, Phase.ROUND_OVER, Phase.GAME_OVER}),
    Phase.PLAY: frozenset({Phase.PLAY, Phase.BONUS, Phase.DRAW}) | _END,
    Phase.BONUS: frozenset({Phase.PLAY, Phase.ROUND_OVER, Phase.GAME_OVER}),
    Phase.LATE_LAYS: frozenset({Phase.ROUND_OVER, Phase.GAME_OVER}),
    Phase.GAME_OVER: frozenset(),
}


class IllegalMove(AnyIllegalMove):
    """A move Split's rules forbid — bad input in the error family (:mod:`splitnet.errors`):
    one line, the state unchanged. ``rule`` is the docs/RULES.md number, cited first in
    the message (``"R4.2: …"``); ``reason`` is the rest. It is not a verdict: the game
    core turns a peer's illegal move into a :class:`~splitnet.errors.Blame` naming it."""


class UnknownFace(IllegalMove):
    """The move names a slot whose face this peer does not know (it must be revealed)."""


@dataclass(slots=True)
class Match:
    """A match on the table (R2, R4.3): two visible halves, possibly covered halves."""

    id: int
    owner: int
    top: list[int]  # two slots
    under: list[int] = field(default_factory=list)
    kind: MatchKind = "weak"


@dataclass
class RoundEnd:
    reason: str  # "out" | "pile_empty" | "abandoned" (R8.6)
    seat: int
    late_lays: list[dict[str, Any]] = field(default_factory=list)
    marks: list[dict[str, int]] = field(default_factory=list)
    hands_left: list[list[int]] = field(default_factory=list)


def _marks() -> dict[str, int]:
    return {"perfect": 0, "strong": 0, "weak": 0, "negative": 0}


class Game:
    """One whole game: rounds, turns, the score pads. Mutated only by :meth:`apply`.

    Every public method validates fully before changing anything, so a refused move
    (``IllegalMove``) leaves the game exactly as it was.
    """

    def __init__(self, n_players: int, settings: Settings | None = None, *,
                 first_dealer: int = 0) -> None:
        self.settings = settings or Settings()
        self.settings.check_players(n_players)
        if type(first_dealer) is not int or not 0 <= first_dealer < n_players:
            raise ValueError(f"first dealer: expected a seat 0…{n_players - 1}, "
                             f"got {first_dealer!r}")
        self.n = n_players
        self.round_no = 0
        # R3.2 [decision]: round 1's dealer is seat 0; in a rematch, the previous game's
        # first dealer's left neighbour
        self.dealer = first_dealer
        self.phase = Phase.ROUND_OVER
        self.faces: list[int | None] = [None] * N_SLOTS
        self.hands: list[list[int]] = [[] for _ in range(n_players)]
        self.pile_next = N_SLOTS
        self.row: list[int] = []
        self.matches: list[Match] = []
        self.turn = 0
        self.turns_started: list[int] = [0] * n_players
        self.picked: int | None = None
        self.pending_bonus: MatchKind | None = None
        self.round_marks: list[dict[str, int]] = []
        self.marks: list[dict[str, int]] = [_marks() for _ in range(n_players)]
        self.late_queue: list[int] = []
        self.last_end: RoundEnd | None = None
        self.ends: list[RoundEnd] = []
        #: Events of the current round, in order (the game record's vocabulary, by slot).
        self.events: list[dict[str, Any]] = []

    # ------------------------------------------------------------------ round set-up
    def start_round(self, faces: Sequence[int | None] | None = None) -> None:
        """Deal the next round (R3.3): slot j < hand_size·n goes to seat dealer+1+j.

        ``faces`` gives the faces this peer knows (slot → card id or None). The first
        discard (slot hand_size·n) must be known to start the row.
        """
        if self.phase not in ("round_over",):
            raise IllegalMove("R6.1", "the current round has not ended")
        if self.round_no >= self.settings.rounds:
            raise IllegalMove("R3.2", f"the game has only {self.settings.rounds} rounds")
        known: list[int | None] = list(faces) if faces is not None else [None] * N_SLOTS
        if len(known) != N_SLOTS:
            raise ValueError("faces: expected 104 entries")
        dealt = self.settings.hand_size * self.n
        if known[dealt] is None:
            raise UnknownFace("R3.3", "the first discard must be revealed to start the row")
        self.round_no += 1
        self.faces = known
        self.hands = [[] for _ in range(self.n)]
        for j in range(dealt):
            self.hands[(self.dealer + 1 + j) % self.n].append(j)
        self.row = [dealt]
        self.pile_next = dealt + 1
        self.matches = []
        self.turn = (self.dealer + 1) % self.n  # R3.4
        self.turns_started = [0] * self.n
        self.turns_started[self.turn] = 1
        self.picked = None
        self.pending_bonus = None
        self.round_marks = [_marks() for _ in range(self.n)]
        self.late_queue = []
        self.last_end = None
        self.events = []
        self._go(Phase.DRAW)

    def _go(self, to: Phase) -> None:
        """Move to phase ``to``, by :data:`TRANSITIONS` only (a move the table lacks is a
        bug in this engine, never a player's: their moves are checked before)."""
        if to not in TRANSITIONS[Phase(self.phase)]:
            raise RuntimeError(f"the engine went from {self.phase} to {to}")
        self.phase = to

    def clone(self) -> Game:
        """An independent copy (cheaper than deepcopy): for trying a move.

        Events, finished rounds and their dicts are never changed in place once
        appended, so the copy shares them; everything a move mutates is copied.
        """
        g = Game.__new__(Game)
        d = g.__dict__
        d.update(self.__dict__)
        g.faces = self.faces[:]
        g.hands = [h[:] for h in self.hands]
        g.row = self.row[:]
        g.matches = [Match(m.id, m.owner, m.top[:], m.under[:], m.kind) for m in self.matches]
        g.turns_started = self.turns_started[:]
        g.round_marks = [m.copy() for m in self.round_marks]
        g.marks = [m.copy() for m in self.marks]
        g.late_queue = self.late_queue[:]
        g.events = self.events[:]
        g.ends = self.ends[:]
        if self.last_end is not None:
            e = self.last_end
            g.last_end = RoundEnd(e.reason, e.seat, list(e.late_lays), list(e.marks),
                                  list(e.hands_left))
        return g

    def check(self, action: Action) -> None:
        """Raise IllegalMove if ``action`` is refused now; never changes this game."""
        self.clone().apply(action)

    def check_blind(self, action: Action) -> None:
        """Raise IllegalMove if ``action`` is refused whatever the faces of the cards it
        plays: the part of :meth:`check` that reads no played card's face (R8.1). A host
        checks this much of a move before ordering it; the cards are revealed only after
        (protocol/GAME.md, "move and reveal"). A move that passes may still break the
        rules once its cards are open — that is the mover's cheat. Moves that play no
        card get the full :meth:`check`. Never changes this game."""
        if not isinstance(action, Lay | Upgrade | Discard | LateLay):
            self.check(action)
            return
        self._check_actor(action.seat)
        seat = action.seat
        hand = self.hands[seat]
        if isinstance(action, Lay | LateLay):
            if isinstance(action, Lay):
                self._check_phase("play", "must_play", what="lay a match")
            else:
                self._check_phase("late_lays", what="lay a late match")
            if action.a == action.b:
                raise IllegalMove("R4.3a", "a match needs two different halves")
            played: tuple[int, ...] = (action.a, action.b)
        elif isinstance(action, Upgrade):
            self._check_phase("play", "must_play", what="upgrade")
            played = (action.slot,)
        else:
            self._check_phase("play", what="discard")
            played = (action.slot,)
        for s in played:
            if s not in hand:
                raise IllegalMove("R4.3", f"slot {s} is not in seat {seat}'s hand")
        if isinstance(action, Upgrade):
            m = self.match_by_id(action.match_id)
            if m is None:
                raise IllegalMove("R4.3b", f"there is no match {action.match_id} on the table")
            if action.covers not in (0, 1):
                raise IllegalMove("R4.3b", "covers must name half 0 or half 1 of the match")
            if STRENGTH[m.kind] == max(STRENGTH.values()):
                raise IllegalMove("R4.3b", f"nothing is stronger than the {m.kind} match")
        if isinstance(action, Lay | Upgrade):
            self._check_uses_pick(played)
            self._check_not_emptying(seat, len(played))

    def reveal(self, slot: int, face: int) -> None:
        """Record that slot holds card ``face`` (a public reveal or a private draw)."""
        if not 0 <= slot < N_SLOTS or not 0 <= face < N_SLOTS:
            raise ValueError(f"reveal: slot {slot} / card {face} out of range")
        old = self.faces[slot]
        if old is not None and old != face:
            raise ValueError(f"reveal: slot {slot} was already card {old}, not {face}")
        self.faces[slot] = face

    # ------------------------------------------------------------------ queries
    @property
    def pile_count(self) -> int:
        return N_SLOTS - self.pile_next

    @property
    def pile_top(self) -> int | None:
        return self.pile_next if self.pile_next < N_SLOTS else None

    @property
    def actor(self) -> int | None:
        """The seat whose move is expected now (None between rounds / at the end)."""
        if self.phase == "late_lays":
            return self.late_queue[0] if self.late_queue else None
        if self.phase in ("round_over", "game_over"):
            return None
        return self.turn

    def match_by_id(self, match_id: int) -> Match | None:
        if 0 <= match_id < len(self.matches):
            return self.matches[match_id]
        return None

    def face(self, slot: int) -> int:
        f = self.faces[slot]
        if f is None:
            raise UnknownFace("R8", f"slot {slot} has not been revealed to this peer")
        return f

    def score(self, seat: int) -> int:
        """Perfect + Strong + Weak − Negative on the pad (R7.3), marks so far."""
        pad, m = self.settings.pad, self.marks[seat]
        return (pad.value("perfect", m["perfect"]) + pad.value("strong", m["strong"])
                + pad.value("weak", m["weak"]) - pad.value("negative", m["negative"]))

    def winners(self) -> list[int]:
        """Highest total wins; ties broken by fewer negative boxes, then shared (R7.3).

        Boxes, not marks: a full row takes no more marks (R7.2), so two players whose
        negative rows are both full are tied on boxes however many marks they got."""
        full = self.settings.pad.boxes("negative")

        def rank(s: int) -> tuple[int, int]:
            return self.score(s), -min(self.marks[s]["negative"], full)

        best = max(rank(s) for s in range(self.n))
        return [s for s in range(self.n) if rank(s) == best]

    # ------------------------------------------------------------------ checks
    def _check_actor(self, seat: int) -> None:
        if not 0 <= seat < self.n:
            raise IllegalMove("R3.1", f"there is no seat {seat}")
        if self.phase in ("round_over", "game_over"):
            raise IllegalMove("R6.1", "the round is over; no move is expected")
        actor = self.actor
        if seat != actor:
            raise IllegalMove("R3.4", f"it is seat {actor}'s turn, not seat {seat}'s")

    def _check_phase(self, *allowed: str, what: str) -> None:
        if self.phase not in allowed:
            raise IllegalMove(_PHASE_RULE[self.phase],
                              f"cannot {what} now: {_PHASE_ASK[self.phase]}")

    def _check_in_hand(self, seat: int, slot: int) -> int:
        if slot not in self.hands[seat]:
            raise IllegalMove("R4.3", f"slot {slot} is not in seat {seat}'s hand")
        return self.face(slot)

    def _pair_kind(self, seat: int, a: int, b: int) -> MatchKind:
        if a == b:
            raise IllegalMove("R4.3a", "a match needs two different halves")
        fa, fb = self._check_in_hand(seat, a), self._check_in_hand(seat, b)
        kind = match_kind(fa, fb)
        if kind is None:
            raise IllegalMove("R2.1", "halves of different ranks never match")
        return kind

    def _upgrade_kind(self, seat: int, slot: int, match_id: int, covers: int) -> MatchKind:
        f = self._check_in_hand(seat, slot)
        m = self.match_by_id(match_id)
        if m is None:
            raise IllegalMove("R4.3b", f"there is no match {match_id} on the table")
        if covers not in (0, 1):
            raise IllegalMove("R4.3b", "covers must name half 0 or half 1 of the match")
        other = self.face(m.top[1 - covers])
        kind = match_kind(f, other)
        if kind is None:
            raise IllegalMove("R2.1", "the half must be of the match's rank")
        if STRENGTH[kind] <= STRENGTH[m.kind]:
            raise IllegalMove("R4.3b", f"that would make a {kind} match, which is not "
                              f"stronger than the {m.kind} match it covers")
        return kind

    def _check_not_emptying(self, seat: int, n_cards: int) -> None:
        if len(self.hands[seat]) - n_cards < 1:
            raise IllegalMove("R4.3c", "a play may never leave the hand empty: keep a card "
                              "to discard")

    def _check_uses_pick(self, slots: Sequence[int]) -> None:
        if self.phase == "must_play" and self.picked not in slots:
            raise IllegalMove("R4.1b", "the first play after taking from the row must use "
                              "the card you picked")

    # ------------------------------------------------------------------ apply
    def apply(self, action: Action) -> None:
        """Apply one move, or raise IllegalMove and change nothing."""
        self._check_actor(action.seat)
        seat = action.seat
        if isinstance(action, DrawPile):
            self._check_phase("draw", what="draw")
            self._draw_pile(seat, "draw_pile")
        elif isinstance(action, TakeRow):
            self._check_phase("draw", what="take from the row")
            self._take_row(seat, action.index)
        elif isinstance(action, Lay):
            self._check_phase("play", "must_play", what="lay a match")
            kind = self._pair_kind(seat, action.a, action.b)
            self._check_uses_pick((action.a, action.b))
            self._check_not_emptying(seat, 2)
            self._lay(seat, action.a, action.b, kind)
        elif isinstance(action, Upgrade):
            self._check_phase("play", "must_play", what="upgrade")
            kind = self._upgrade_kind(seat, action.slot, action.match_id, action.covers)
            self._check_uses_pick((action.slot,))
            self._check_not_emptying(seat, 1)
            self._upgrade(seat, action.slot, action.match_id, action.covers, kind)
        elif isinstance(action, Discard):
            self._check_phase("play", what="discard")
            self._check_in_hand(seat, action.slot)
            self._discard(seat, action.slot)
        elif isinstance(action, BonusMark):
            self._check_bonus("perfect", "name a player to mark a negative box")
            if action.target == seat or not 0 <= action.target < self.n:
                raise IllegalMove("R5.1", "the perfect bonus must name another player")
            self._mark(action)
        elif isinstance(action, BonusDraw):
            self._check_bonus("strong", "draw from the pile")
            self._bonus_draw(action)
        elif isinstance(action, BonusSwap):
            self._check_bonus("weak", "swap matches")
            give, take = self.match_by_id(action.give), self.match_by_id(action.take)
            if give is None or take is None:
                raise IllegalMove("R5.3", "both matches of a swap must be on the table")
            if give.owner != seat:
                raise IllegalMove("R5.3", f"match {give.id} is not yours to give")
            if take.owner == seat:
                raise IllegalMove("R5.3", "the match you take must be another player's")
            if give.kind != take.kind:
                raise IllegalMove("R5.3", f"a swap is of one type: {give.kind} for "
                                  f"{give.kind}, not {take.kind}")
            self._swap(action)
        elif isinstance(action, SkipBonus):
            if self.phase != "bonus":
                raise IllegalMove(_PHASE_RULE[self.phase], "there is no bonus to skip")
            if self.pending_bonus == "perfect":
                raise IllegalMove("R5.4", "a perfect match's bonus target must be named")
            self._bonus_done()
        elif isinstance(action, LateLay):
            self._check_phase("late_lays", what="lay a late match")
            self._late_lay(seat, action.a, action.b, self._pair_kind(seat, action.a, action.b))
        elif isinstance(action, EndLateLays):
            self._check_phase("late_lays", what="end late lays")
            self._end_late_lays(action)
        else:  # pragma: no cover - exhaustive
            raise IllegalMove("R4", f"unknown move {action!r}")

    # ------------------------------------------------------------------ trusted apply
    def apply_trusted(self, action: Action) -> None:
        """Apply a move that this engine's own generators produced for this very state
        (:meth:`iter_legal_moves`, :meth:`play_moves`, :meth:`row_picks` …), skipping
        the checks :meth:`apply` makes: the search bots' fast path.

        Never use it on a move from anywhere else (a peer, a user, a file): an illegal
        move here corrupts the state. The game core and the verifier use :meth:`apply`.
        On a generated move both give the same state (tests/test_rules_properties.py).
        """
        _TRUSTED[type(action)](self, action)

    def _t_draw_pile(self, a: DrawPile) -> None:
        self._draw_pile(a.seat, "draw_pile")

    def _t_take_row(self, a: TakeRow) -> None:
        self._take(a.seat, a.index)

    def _t_lay(self, a: Lay) -> None:
        f = self.faces
        kind = match_kind(f[a.a], f[a.b])  # type: ignore[arg-type]
        assert kind is not None
        self._lay(a.seat, a.a, a.b, kind)

    def _t_upgrade(self, a: Upgrade) -> None:
        f = self.faces
        kind = match_kind(f[a.slot], f[self.matches[a.match_id].top[1 - a.covers]])  # type: ignore[arg-type]
        assert kind is not None
        self._upgrade(a.seat, a.slot, a.match_id, a.covers, kind)

    def _t_discard(self, a: Discard) -> None:
        self._discard(a.seat, a.slot)

    def _t_late_lay(self, a: LateLay) -> None:
        f = self.faces
        kind = match_kind(f[a.a], f[a.b])  # type: ignore[arg-type]
        assert kind is not None
        self._late_lay(a.seat, a.a, a.b, kind)

    def _t_skip(self, a: SkipBonus) -> None:
        self._bonus_done()

    def _mark(self, a: BonusMark) -> None:
        self.round_marks[a.target]["negative"] += 1
        self.events.append({"type": "bonus_mark", "target": a.target})
        self._bonus_done()

    def _bonus_draw(self, a: BonusDraw) -> None:
        self.pending_bonus = None
        self._go(Phase.PLAY)
        self._draw_pile(a.seat, "bonus_draw")

    def _swap(self, a: BonusSwap) -> None:
        give, take = self.matches[a.give], self.matches[a.take]
        other = take.owner
        give.owner, take.owner = other, a.seat
        self.events.append({"type": "bonus_swap", "give": give.id, "take": take.id,
                            "with_seat": other})
        self._bonus_done()

    def _late_lay(self, seat: int, a: int, b: int, kind: MatchKind) -> None:
        self.hands[seat].remove(a)
        self.hands[seat].remove(b)
        m = Match(len(self.matches), seat, [a, b], [], kind)
        self.matches.append(m)
        assert self.last_end is not None
        self.last_end.late_lays.append({"seat": seat, "match_id": m.id,
                                        "cards": [a, b], "match": kind})

    def _end_late_lays(self, a: EndLateLays) -> None:
        self.late_queue.pop(0)
        if not self.late_queue:
            self._score_round()

    def _check_bonus(self, kind: str, what: str) -> None:
        if self.phase != "bonus" or self.pending_bonus != kind:
            pending = self.pending_bonus
            if self.phase == "bonus":
                raise IllegalMove("R5", f"cannot {what}: the pending bonus is {pending}'s")
            raise IllegalMove(_PHASE_RULE[self.phase], f"cannot {what}: {_PHASE_ASK[self.phase]}")

    def _draw_pile(self, seat: int, event: str) -> None:
        if self.pile_next >= N_SLOTS:  # cannot happen: R4.2 ends the round first
            raise IllegalMove("R4.2", "the draw pile is empty")
        slot = self.pile_next
        self.pile_next += 1
        self.hands[seat].append(slot)
        self.events.append({"type": event, "slot": slot})
        if event == "draw_pile":
            self._go(Phase.PLAY)
        if self.pile_next >= N_SLOTS:  # R4.2: the last card ends the round at once
            self._end_round("pile_empty", seat)

    def _take_row(self, seat: int, index: int) -> None:
        if not 0 <= index < len(self.row):
            raise IllegalMove("R4.1b", f"the discard row has no card {index}")
        taken = self.row[index:]
        picked = taken[0]
        # R4.1b [decision]: the picked card must be playable with the hand after taking.
        # Checked here when this peer knows the whole hand; otherwise the must_play phase
        # enforces it (the first play must use the picked card).
        hand_after = self.hands[seat] + taken
        if all(self.faces[s] is not None for s in hand_after):
            if not self._pick_playable(hand_after, picked):
                raise IllegalMove("R4.1b", "you may only take a row card that you can play "
                                  "this turn (a match or an upgrade with it)")
        self._take(seat, index)

    def _take(self, seat: int, index: int) -> None:
        taken = self.row[index:]
        picked = taken[0]
        del self.row[index:]
        self.hands[seat].extend(taken)
        self.picked = picked
        self.events.append({"type": "take_row", "index": index, "cards": list(taken)})
        self._go(Phase.MUST_PLAY)

    def _pick_playable(self, hand: list[int], picked: int) -> bool:
        if len(hand) < 2:
            return False
        fp = self.face(picked)
        if len(hand) >= 3:
            for s in hand:
                if s != picked and rank(self.face(s)) == rank(fp):
                    return True
        rp = rank(fp)
        for m in self.matches:
            if m.kind == "perfect" or rank(self.face(m.top[0])) != rp:
                continue
            for covers in (0, 1):
                k = match_kind(fp, self.face(m.top[1 - covers]))
                if k is not None and STRENGTH[k] > STRENGTH[m.kind]:
                    return True
        return False

    def _lay(self, seat: int, a: int, b: int, kind: MatchKind) -> None:
        self.hands[seat].remove(a)
        self.hands[seat].remove(b)
        m = Match(len(self.matches), seat, [a, b], [], kind)
        self.matches.append(m)
        self.picked = None
        self.events.append({"type": "lay", "match_id": m.id, "cards": [a, b], "match": kind})
        self._start_bonus(seat, kind)

    def _upgrade(self, seat: int, slot: int, match_id: int, covers: int,
                 kind: MatchKind) -> None:
        m = self.matches[match_id]
        self.hands[seat].remove(slot)
        covered = m.top[covers]
        m.under.append(covered)
        m.top[covers] = slot
        owner_before = m.owner
        if self.settings.upgrade_takes_match:
            m.owner = seat
        m.kind = kind
        self.picked = None
        self.events.append({"type": "upgrade", "match_id": match_id, "card": slot,
                            "covers": covered, "owner_before": owner_before, "match": kind})
        self._start_bonus(seat, kind)

    def _start_bonus(self, seat: int, kind: MatchKind) -> None:
        self._go(Phase.PLAY)
        if kind == "strong" and self.pile_count == 0:
            return  # R5.4: cannot be taken, skipped
        if kind == "weak" and not self._swap_possible(seat):
            return  # R5.4
        self.pending_bonus = kind
        self._go(Phase.BONUS)

    def _swap_possible(self, seat: int) -> bool:
        mine = {m.kind for m in self.matches if m.owner == seat}
        return any(m.owner != seat and m.kind in mine for m in self.matches)

    def _bonus_done(self) -> None:
        self.pending_bonus = None
        self._go(Phase.PLAY)

    def _discard(self, seat: int, slot: int) -> None:
        self.face(slot)
        self.hands[seat].remove(slot)
        self.row.append(slot)
        self.events.append({"type": "discard", "slot": slot})
        if not self.hands[seat]:  # R4.5: gone out
            self._end_round("out", seat)
            return
        self.turn = (seat + 1) % self.n  # R3.4: play passes left
        self.turns_started[self.turn] += 1
        self._go(Phase.DRAW)

    def end_abandoned(self, seat: int) -> None:
        """R8.6 [decision]: ``seat`` is given up for gone during play — the round ends at
        once as it stands and is scored by R6.3 (a match in front of its owner, a negative
        box per card in hand, read or not); the deal passes left (R6.4). A pending bonus
        or late lay is dropped. IllegalMove if no round is being played."""
        if self.phase in ("round_over", "game_over"):
            raise IllegalMove("R8.6", "no round is being played")
        if not 0 <= seat < self.n:
            raise IllegalMove("R8.6", f"no seat {seat}")
        if self.phase == Phase.LATE_LAYS:  # the round has ended; its late lays stop here
            self.late_queue = []
            self._score_round()
            return
        self._end_round("abandoned", seat)

    def _end_round(self, reason: str, seat: int) -> None:
        self.last_end = RoundEnd(reason, seat)
        self.pending_bonus = None
        self.picked = None
        # R6.2: going out on one's own first turn lets those without a turn lay matches.
        if reason == "out" and self.turns_started[seat] == 1:
            self.late_queue = [s for s in ((seat + i) % self.n for i in range(1, self.n))
                               if self.turns_started[s] == 0]
        if self.late_queue:
            self._go(Phase.LATE_LAYS)
        else:
            self._score_round()

    def _score_round(self) -> None:
        """R6.3: a box per match in front of its owner, a negative box per card in hand."""
        end = self.last_end
        assert end is not None
        for m in self.matches:
            self.round_marks[m.owner][m.kind] += 1
        for s in range(self.n):
            self.round_marks[s]["negative"] += len(self.hands[s])
            for row, k in self.round_marks[s].items():
                self.marks[s][row] += k
        end.marks = [dict(m) for m in self.round_marks]
        end.hands_left = [list(h) for h in self.hands]
        self.ends.append(end)
        # R6.4 [decision]: the player who went out deals next; else the deal passes left.
        self.dealer = end.seat if end.reason == "out" else (self.dealer + 1) % self.n
        self._go(Phase.GAME_OVER if self.round_no >= self.settings.rounds
                 else Phase.ROUND_OVER)

    # ------------------------------------------------------------------ legal moves
    def legal_moves(self, seat: int) -> list[Action]:
        """Every legal move for ``seat`` now, from what this peer knows (its view)."""
        return list(self.iter_legal_moves(seat))

    def iter_legal_moves(self, seat: int) -> Iterator[Action]:
        if seat != self.actor:
            return
        phase = self.phase
        hand = self.hands[seat]
        if phase == "draw":
            if self.pile_next < N_SLOTS:
                yield DrawPile(seat)
            for i in self.row_picks(seat):
                yield TakeRow(seat, i)
            return
        if phase in ("play", "must_play"):
            yield from self.play_moves(seat)
            if phase == "play":
                yield from self.discard_moves(seat)
            return
        if phase == "bonus":
            kind = self.pending_bonus
            if kind == "perfect":
                for t in range(self.n):
                    if t != seat:
                        yield BonusMark(seat, t)
                return
            yield SkipBonus(seat)
            if kind == "strong":
                yield BonusDraw(seat)
            else:
                for mine in self.matches:
                    if mine.owner == seat:
                        for theirs in self.matches:
                            if theirs.owner != seat and theirs.kind == mine.kind:
                                yield BonusSwap(seat, mine.id, theirs.id)
            return
        if phase == "late_lays":
            yield EndLateLays(seat)
            for a, b in self._pairs(hand, None):
                yield LateLay(seat, a, b)

    def row_picks(self, seat: int) -> list[int]:
        """The row indices ``seat`` may take now (R4.1b), oldest first; [] outside its
        draw. One pass from the newest card back, counting ranks as cards are added,
        instead of rebuilding ``hand + row[i:]`` for every index."""
        if seat != self.actor or self.phase != "draw":
            return []
        faces = self.faces
        counts = [0] * 13
        for s in self.hands[seat]:
            f = faces[s]
            if f is None:
                return []  # R4.1b is checked only on a fully known hand
            counts[f >> 3] += 1
        size = len(self.hands[seat])
        up_ranks, up_faces = self._upgradable_faces()
        out: list[int] = []
        row = self.row
        for i in range(len(row) - 1, -1, -1):
            f = faces[row[i]]
            if f is None:
                break  # every smaller index takes this card too
            r = f >> 3
            counts[r] += 1
            size += 1
            if (size >= 3 and counts[r] >= 2) or r in up_ranks or f >> 1 in up_faces:
                out.append(i)
        out.reverse()
        return out

    def _upgradable_faces(self) -> tuple[set[int], set[int]]:
        """What could upgrade some match on the table now (R4.3b), as (ranks, faces):
        a card upgrades when its rank is in ``ranks`` or its face (id // 2) in ``faces``.

        By R2 a weak match's two tops differ in colour, so any half of its rank shares
        a colour with one of them and makes a strong or perfect match: the whole rank
        upgrades it. A strong match (same colour, two suits) is upgraded only to perfect,
        by the face of one of its tops. Perfect matches cannot be upgraded.
        """
        ranks: set[int] = set()
        faces_ok: set[int] = set()
        faces = self.faces
        for m in self.matches:
            kind = m.kind
            if kind == "weak":
                f = faces[m.top[0]]
                assert f is not None
                ranks.add(f >> 3)
            elif kind == "strong":
                for s in m.top:
                    f = faces[s]
                    assert f is not None
                    faces_ok.add(f >> 1)
        return ranks, faces_ok

    def play_moves(self, seat: int) -> list[Lay | Upgrade]:
        """The lays and upgrades ``seat`` may make now (R4.3a/b; after a row pick only
        those using the picked card, R4.1b) — no discards."""
        if seat != self.actor or self.phase not in ("play", "must_play"):
            return []
        must = self.picked if self.phase == "must_play" else None
        return list(self._play_moves(seat, self.hands[seat], must))

    def discard_moves(self, seat: int) -> list[Discard]:
        """The discards ``seat`` may make now (R4.4)."""
        if seat != self.actor or self.phase != "play":
            return []
        faces = self.faces
        return [Discard(seat, s) for s in self.hands[seat] if faces[s] is not None]

    def _pairs(self, hand: list[int], must: int | None) -> Iterator[tuple[int, int]]:
        faces = self.faces
        for i, a in enumerate(hand):
            fa = faces[a]
            if fa is None:
                continue
            ra = fa // 8
            for b in hand[i + 1:]:
                fb = faces[b]
                if fb is not None and fb // 8 == ra and (must is None or must in (a, b)):
                    yield a, b

    def _play_moves(self, seat: int, hand: list[int], must: int | None) -> Iterator[Lay | Upgrade]:
        if len(hand) >= 3:
            for a, b in self._pairs(hand, must):
                yield Lay(seat, a, b)
        if len(hand) >= 2 and self.matches:
            faces = self.faces
            targets = []
            for m in self.matches:
                if m.kind == "perfect":
                    continue
                t0, t1 = faces[m.top[0]], faces[m.top[1]]
                assert t0 is not None and t1 is not None
                targets.append((t0 >> 3, m.id, t0, t1, STRENGTH[m.kind]))
            if not targets:
                return
            for s in hand if must is None else [must]:
                f = faces[s]
                if f is None:
                    continue
                r = f >> 3
                row = f * N_SLOTS
                for tr, mid, t0, t1, need in targets:
                    if tr != r:
                        continue
                    k = _KIND_TABLE[row + t1]
                    if k is not None and STRENGTH[k] > need:
                        yield Upgrade(seat, s, mid, 0)
                    k = _KIND_TABLE[row + t0]
                    if k is not None and STRENGTH[k] > need:
                        yield Upgrade(seat, s, mid, 1)


_TRUSTED: Final[dict[type[Any], Callable[[Game, Any], None]]] = {
    DrawPile: Game._t_draw_pile,
    TakeRow: Game._t_take_row,
    Lay: Game._t_lay,
    Upgrade: Game._t_upgrade,
    Discard: Game._t_discard,
    BonusMark: Game._mark,
    BonusDraw: Game._bonus_draw,
    BonusSwap: Game._swap,
    SkipBonus: Game._t_skip,
    LateLay: Game._t_late_lay,
    EndLateLays: Game._end_late_lays,
}

_PHASE_ASK: Final = {
    "draw": "you must first draw (from the pile or the row)",
    "must_play": "you must first play the card you took from the row",
    "play": "you may lay, upgrade or discard",
    "bonus": "a bonus must be resolved first",
    "late_lays": "only late matches may be laid",
    "round_over": "the round is over",
    "game_over": "the game is over",
}
_PHASE_RULE: Final = {
    "draw": "R4.1",
    "must_play": "R4.1b",
    "play": "R4.3",
    "bonus": "R5",
    "late_lays": "R6.2",
    "round_over": "R6.1",
    "game_over": "R7.3",
}
