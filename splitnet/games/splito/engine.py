"""The rules of Splito (docs/SPLITO.md S2–S11) as a pure, deterministic state machine.

Like Split's engine, it works on *slots* — positions 0 … deck_size−1 of the shuffled
deck of S4.3 — whose faces may be unknown to the peer running it (S7). A face becomes
known through :meth:`Game.learn` (a card of a hand this seat holds, or a revealed play),
so every peer, the verifier and the bots run this same code on their own view.

A turn is simultaneous (S5): every seat first commits to its play (S7.3), then, once all
have committed, every seat reveals it; the plays are applied together when the last
reveal is in, and the hands pass left (S5.4). The phases are :class:`Phase`; the only
way between them is :meth:`Game._transition` over :data:`TRANSITIONS`.

>>> from splitnet.games.splito.settings import SplitoSettings
>>> g = Game(SplitoSettings.standard(3), game_id="0" * 32)
>>> central = ["OBJ01", "OBJ02"]
>>> deck = [c for c in full_deck(g.settings) if c not in central]
>>> g.deal(central, deck)                # a fully known deck (self-play, audit)
>>> g.phase, g.turn, len(g.hands[0]), g.hands[1][:3]
(<Phase.COMMIT: 'commit'>, 1, 13, [0, 3, 6])
>>> g.reveal(0, 1, "left", "0" * 32)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
splitnet.games.splito.engine.IllegalMove: S7.3: no play is revealed before every seat ...
"""

from __future__ import annotations

import copy
import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Final, Literal

from splitnet.errors import IllegalMove as AnyIllegalMove
from splitnet.games.splito.cards import NUMBER_CARDS, card_order, is_number_card, number_face
from splitnet.games.splito.objectives import Face, Objective
from splitnet.games.splito.settings import SplitoSettings

Side = Literal["left", "right"]
SIDES: Final[tuple[Side, Side]] = ("left", "right")
_HEX32: Final = re.compile(r"[0-9a-f]{32}")
_HEX64: Final = re.compile(r"[0-9a-f]{64}")


class IllegalMove(AnyIllegalMove):
    """A move Splito's rules forbid. ``rule`` is the docs/SPLITO.md number; state
    unchanged."""


class UnknownFace(IllegalMove):
    """The move needs a face this peer does not know (it must be learned first)."""


class Phase(Enum):
    """The named states of a game (S4, S5, S7.3, S10.1)."""

    SETUP = "setup"    # before the deal (S4)
    COMMIT = "commit"  # S5.2, S7.3: collecting every seat's commitment for the turn
    REVEAL = "reveal"  # S5.3, S7.3: all have committed; collecting the reveals
    OVER = "over"      # S10.1: after the last turn's reveal; the scores are final


class Event(Enum):
    DEAL = "deal"                      # S4.3
    ALL_COMMITTED = "all_committed"    # S7.3
    TURN_DONE = "turn_done"            # S5.3–S5.4: plays applied, hands passed
    LAST_TURN_DONE = "last_turn_done"  # S5.1, S10.1

#: The only transitions there are.
TRANSITIONS: Final[dict[tuple[Phase, Event], Phase]] = {
    (Phase.SETUP, Event.DEAL): Phase.COMMIT,
    (Phase.COMMIT, Event.ALL_COMMITTED): Phase.REVEAL,
    (Phase.REVEAL, Event.TURN_DONE): Phase.COMMIT,
    (Phase.REVEAL, Event.LAST_TURN_DONE): Phase.OVER,
}


@dataclass(frozen=True)
class Play:
    """S5.2: a seat's choice for the turn: one card of its hand (by slot) and a side."""

    seat: int
    slot: int
    side: Side


@dataclass(frozen=True)
class PlayLog:
    """A revealed play as the record keeps it (S12): what was committed and opened."""

    seat: int
    slot: int
    side: Side
    zone: int
    commit: str
    nonce: str


@dataclass(frozen=True)
class ObjectiveResult:
    """S10.2: one objective checked against one zone."""

    zone: int
    objective: str
    source: Literal["zone", "central"]
    fulfilled: bool
    points: int


@dataclass(frozen=True)
class SeatScore:
    """S11.1, S11.3: a seat's two zones, their points, its score and its card count."""

    seat: int
    left_zone: int
    right_zone: int
    left_points: int
    right_points: int
    score: int
    cards_in_zones: int


def commitment(game_id: str, turn: int, seat: int, card: str, side: str, nonce: str) -> str:
    """S7.3: ``SHA-256(game_id | turn | seat | card | side | nonce)`` in lowercase hex.

    The fields are joined by ``|`` and encoded in UTF-8; ``turn`` (1-based, S12) and
    ``seat`` are decimal integers, ``card`` an S1.3 id, ``side`` ``left``/``right``.

    >>> commitment("0" * 32, 1, 0, "G5a", "left", "f" * 32)
    'd3918fad2aab6360456bb6def451d6b3efe1bd2edda1624d63b484642a2dc6c2'
    """
    text = f"{game_id}|{turn}|{seat}|{card}|{side}|{nonce}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def full_deck(settings: SplitoSettings) -> list[str]:
    """The 109 card ids (S1.1, S1.3): the number cards, then the objective set's cards."""
    return [*NUMBER_CARDS, *settings.objective_set.ids]


def zone_of(n: int, seat: int, side: Side) -> int:
    """S3.1: seat s's left zone is zone s, its right zone s−1 mod n.
    S8.1 (2 players): seat s owns zones 2s (left) and 2s+1 (right)."""
    if n == 2:
        return 2 * seat + (0 if side == "left" else 1)
    return seat if side == "left" else (seat - 1) % n


def zone_seats(n: int, zone: int) -> list[int]:
    """S3.1: zone z lies between seats z and z+1 mod n; S12.3: with 2 players [z // 2]."""
    if n == 2:
        return [zone // 2]
    return [zone, (zone + 1) % n]


class Game:
    """One game of Splito, seen by one peer. Mutated only by :meth:`deal`,
    :meth:`learn`, :meth:`commit` and :meth:`reveal` (and :meth:`play_turn`, which is
    commit + reveal for every seat at once).

    Every public method validates fully before changing anything, so a refused move
    (``IllegalMove``) leaves the game exactly as it was.
    """

    def __init__(self, settings: SplitoSettings, game_id: str) -> None:
        if not isinstance(game_id, str) or not _HEX32.fullmatch(game_id):
            raise ValueError("game_id: expected 32 lowercase hex digits (S12)")
        self.settings = settings
        self.game_id = game_id
        self.n = settings.players
        self.phase = Phase.SETUP
        self.turn = 0
        self.central: tuple[str, ...] = ()
        self.faces: list[str | None] = [None] * settings.deck_size
        self.hands: list[list[int]] = [[] for _ in range(self.n)]
        #: S7.2: every slot each seat has held (its hand now and the hands before).
        self.held: list[set[int]] = [set() for _ in range(self.n)]
        self.zones: list[list[int]] = [[] for _ in range(settings.n_zones)]
        self.commits: list[str | None] = [None] * self.n
        self.reveals: list[PlayLog | None] = [None] * self.n
        #: per finished turn, the plays in seat order (S12 ``turns[i].plays``)
        self.history: list[list[PlayLog]] = []
        #: per turn, each seat's hand at the start of it (S12 ``turns[i].hands``)
        self.hands_at_start: list[list[list[int]]] = []
        self._slot_of: dict[str, int] = {}
        self._objectives = settings.objective_set.by_id
        #: S5.7: seats gone for good, with the turn each left at (they play no more)
        self.gone: dict[int, int] = {}
        #: S5.7: the slots of the hands set aside when their holder left (never played)
        self.aside: list[int] = []

    # ------------------------------------------------------------------ state machine
    def _transition(self, event: Event) -> None:
        nxt = TRANSITIONS.get((self.phase, event))
        if nxt is None:  # every caller checks its phase first; this is the backstop
            raise IllegalMove("S5", f"no transition from {self.phase.value} on {event.value}")
        self.phase = nxt

    def clone(self) -> Game:
        """An independent copy (for trying a move, or a bot's look-ahead)."""
        g = copy.copy(self)
        g.faces = list(self.faces)
        g.hands = [list(h) for h in self.hands]
        g.held = [set(h) for h in self.held]
        g.zones = [list(z) for z in self.zones]
        g.commits = list(self.commits)
        g.reveals = list(self.reveals)
        g.history = [list(t) for t in self.history]
        g.hands_at_start = [[list(h) for h in t] for t in self.hands_at_start]
        g._slot_of = dict(self._slot_of)
        g.gone = dict(self.gone)
        g.aside = list(self.aside)
        return g

    # ------------------------------------------------------------------ set-up (S4)
    def deal(self, central: Sequence[str], faces: Sequence[str | None] | None = None) -> None:
        """S4.2–S4.4: lay out the central objectives (public) and deal the deck.

        ``faces`` is what this peer knows of the shuffled deck (slot → card id or None).
        Slot k < n·hand_size goes to seat (dealer + 1 + k) mod n; the rest is set aside.
        """
        if self.phase is not Phase.SETUP:
            raise IllegalMove("S4", "the cards have already been dealt")
        s = self.settings
        central = list(central)
        if len(central) != s.central_objectives:
            raise IllegalMove("S4.2", f"expected {s.central_objectives} central objectives, "
                              f"got {len(central)}")
        for c in central:
            if c not in self._objectives:
                raise IllegalMove("S4.2", f"central objective {c!r} is not an objective card "
                                  "of the set")
        if len(set(central)) != len(central):
            raise IllegalMove("S4.2", "a central objective is named twice")
        known: list[str | None] = list(faces) if faces is not None else [None] * s.deck_size
        if len(known) != s.deck_size:
            raise ValueError(f"faces: expected {s.deck_size} entries (S4.3), got {len(known)}")
        slot_of: dict[str, int] = {}
        for slot, card in enumerate(known):
            if card is None:
                continue
            self._check_deck_card(card, central)
            if card in slot_of:
                raise ValueError(f"faces: {card} lies at slots {slot_of[card]} and {slot} "
                                 "(S1.3: every card id is one card)")
            slot_of[card] = slot
        self.central = tuple(central)
        self.faces = known
        self._slot_of = slot_of
        dealt = self.n * s.hand_size
        self.hands = [[] for _ in range(self.n)]
        for k in range(dealt):
            self.hands[(s.dealer + 1 + k) % self.n].append(k)
        self.held = [set(h) for h in self.hands]
        self.turn = 1
        self.hands_at_start = [[list(h) for h in self.hands]]
        self._transition(Event.DEAL)

    def _check_deck_card(self, card: object, central: Sequence[str]) -> None:
        if not isinstance(card, str) or not (is_number_card(card) or card in self._objectives):
            raise ValueError(f"{card!r} is not a card of this game (S1.3)")
        if card in central:
            raise ValueError(f"{card} is a central objective; it is not in the deck (S4.2)")

    def learn(self, slot: int, card: str) -> None:
        """Record that ``slot`` holds ``card`` (a card of one's hand, or a revealed play).

        Who may learn which slot is the deck protocol's business (S7); this engine only
        refuses what cannot be true (ValueError)."""
        if self.phase is Phase.SETUP:
            raise ValueError("learn: nothing has been dealt yet (S4.3)")
        if not isinstance(slot, int) or not 0 <= slot < len(self.faces):
            raise ValueError(f"learn: there is no slot {slot!r} (S4.3)")
        self._check_deck_card(card, self.central)
        old = self.faces[slot]
        if old is not None:
            if old != card:
                raise ValueError(f"learn: slot {slot} is {old}, not {card}")
            return
        if card in self._slot_of:
            raise ValueError(f"learn: {card} already lies at slot {self._slot_of[card]}")
        self.faces[slot] = card
        self._slot_of[card] = slot

    # ------------------------------------------------------------------ queries
    @property
    def over(self) -> bool:
        """S10.1: the last turn's plays are revealed; the scores are final."""
        return self.phase is Phase.OVER

    @property
    def turns(self) -> int:
        return self.settings.turns

    @property
    def dealt(self) -> int:
        return self.n * self.settings.hand_size

    def set_aside_slots(self) -> range:
        """S4.4: the undealt slots, in deck order."""
        return range(self.dealt, self.settings.deck_size)

    def slot_of(self, card: str) -> int | None:
        """The slot of a card this peer knows, else None."""
        return self._slot_of.get(card)

    def face(self, slot: int) -> str:
        f = self.faces[slot]
        if f is None:
            raise UnknownFace("S7", f"slot {slot} is not known to this peer")
        return f

    def zone_of(self, seat: int, side: Side) -> int:
        return zone_of(self.n, seat, side)

    def zone_seats(self, zone: int) -> list[int]:
        return zone_seats(self.n, zone)

    def seat_zones(self, seat: int) -> tuple[int, int]:
        """(left zone, right zone) of a seat (S3.1, S8.1)."""
        return zone_of(self.n, seat, "left"), zone_of(self.n, seat, "right")

    @property
    def playing(self) -> list[int]:
        """S5.7: the seats still playing, in seat order (every seat but the gone ones)."""
        return [s for s in range(self.n) if s not in self.gone]

    def next_playing(self, seat: int) -> int:
        """S5.4, S5.7: the seat a hand held by ``seat`` passes to: the next seat to its
        left that is still playing."""
        for k in range(1, self.n):
            nxt = (seat + k) % self.n
            if nxt not in self.gone:
                return nxt
        return seat

    def abandon_refusal(self, seat: int) -> str | None:
        """S5.7: why ``seat`` may not leave the rotation now, or None if it may."""
        why = self._abandon_refused(seat)
        return None if why is None else f"{why[0]}: {why[1]}"

    def _abandon_refused(self, seat: int) -> tuple[str, str] | None:
        """:meth:`abandon_refusal` as (rule, reason)."""
        if self.n == 2:
            return ("S5.7, S8", "in the 2-player variant a seat gone for good stops the "
                    "game (a lone player would play both hands)")
        if not 0 <= seat < self.n:
            return "S2.2", f"there is no seat {seat}"
        if seat in self.gone:
            return "S5.7", f"seat {seat} left at turn {self.gone[seat]} already"
        if self.phase is not Phase.COMMIT:
            return ("S5.7", "a seat leaves only while the turn waits for its commitment "
                    f"(phase {self.phase.value})")
        if self.commits[seat] is not None:
            return ("S5.7", f"seat {seat} has committed its play of turn {self.turn}; it "
                    "cannot leave before every play is revealed")
        if len(self.playing) <= 2:
            return "S5.7", "at least two seats keep playing; the game stops instead"
        return None

    def abandon(self, seat: int) -> None:
        """S5.7: ``seat`` leaves the rotation for good: the hand it holds is set aside
        face down (never played, like S4.4's leftovers) and every later pass skips it."""
        why = self._abandon_refused(seat)
        if why is not None:
            raise IllegalMove(*why)
        self.gone[seat] = self.turn
        self.aside.extend(self.hands[seat])
        self.hands[seat] = []
        if all(self.commits[s] is not None for s in self.playing):
            self._transition(Event.ALL_COMMITTED)

    def committed(self, seat: int) -> bool:
        return self.commits[seat] is not None

    def waiting_for(self) -> list[int]:
        """The seats whose commitment (phase commit) or reveal (phase reveal) is missing."""
        if self.phase is Phase.COMMIT:
            return [s for s in self.playing if self.commits[s] is None]
        if self.phase is Phase.REVEAL:
            return [s for s in self.playing if self.reveals[s] is None]
        return []

    def public_slots(self) -> set[int]:
        """S7.4: the slots every player sees: the zones' cards and this turn's reveals."""
        out = {slot for z in self.zones for slot in z}
        out.update(r.slot for r in self.reveals if r is not None)
        return out

    def may_know(self, viewer: int, slot: int) -> bool:
        """S7.1, S7.2, S7.4: may seat ``viewer`` know the face of ``slot`` now?
        (After the game, S7.5 opens everything for the audit.)"""
        return slot in self.held[viewer] or slot in self.public_slots()

    def view_of(self, viewer: int) -> Game:
        """A copy knowing only what seat ``viewer`` may know now (S7): what its own
        engine holds on its peer. For tests and for the knowledge property."""
        g = self.clone()
        g.faces = [f if self.may_know(viewer, i) else None for i, f in enumerate(self.faces)]
        g._slot_of = {f: i for i, f in enumerate(g.faces) if f is not None}
        return g

    def zone_cards(self, zone: int) -> list[str]:
        """The ids of the cards lying in a zone, by turn then seat (S5.3, S6.1)."""
        return [self.face(s) for s in self.zones[zone]]

    def zone_faces(self, zone: int) -> list[Face]:
        """S9.2: the zone's number cards as (value, colour): what conditions look at."""
        return [number_face(c) for c in self.zone_cards(zone) if is_number_card(c)]

    def zone_objectives(self, zone: int) -> list[Objective]:
        """S9.1: the objective cards lying in a zone (claims, S6.2)."""
        return [self._objectives[c] for c in self.zone_cards(zone) if c in self._objectives]

    # ------------------------------------------------------------------ scoring (S10, S11)
    def zone_results(self, zone: int) -> list[ObjectiveResult]:
        """S10.2: each objective card lying in the zone (in zone order), then each central
        objective, checked against the zone's number cards. During the game this is a
        projection only: nothing is fulfilled early (S6.2)."""
        faces = self.zone_faces(zone)
        out = []
        for source, objs in (("zone", self.zone_objectives(zone)),
                             ("central", [self._objectives[c] for c in self.central])):
            for o in objs:
                ok = o.fulfilled_by(faces)
                out.append(ObjectiveResult(zone, o.id, source,  # type: ignore[arg-type]
                                           ok, o.points if ok else 0))
        return out

    def zone_points(self) -> list[int]:
        """S10.3: each zone's points (the sum of its fulfilled objectives)."""
        return [sum(r.points for r in self.zone_results(z)) for z in range(len(self.zones))]

    def scores(self) -> list[SeatScore]:
        """S11.1: left zone × right zone, per seat (S10.4: both neighbours get a zone's
        points in full), with S11.3's card count. A projection before the end."""
        pts = self.zone_points()
        out = []
        for seat in range(self.n):
            lz, rz = self.seat_zones(seat)
            out.append(SeatScore(seat, lz, rz, pts[lz], pts[rz], pts[lz] * pts[rz],
                                 len(self.zones[lz]) + len(self.zones[rz])))
        return out

    def winners(self) -> list[int]:
        """S11.2–S11.3: the highest score wins; among tied players the fewest cards in
        their two zones (every card lying there, not the central objectives); then the
        win is shared. Only once the game is over (S10.1)."""
        if self.phase is not Phase.OVER:
            raise IllegalMove("S10.1", f"the game is not over (phase {self.phase.value})")
        # S5.7 [decision]: a seat that left cannot win; its score is shown as anyone's
        sc = [s for s in self.scores() if s.seat not in self.gone]
        best = max(s.score for s in sc)
        tied = [s for s in sc if s.score == best]
        fewest = min(s.cards_in_zones for s in tied)
        return [s.seat for s in tied if s.cards_in_zones == fewest]

    # ------------------------------------------------------------------ moves (S5, S7.3)
    def legal_plays(self, seat: int) -> list[Play]:
        """Every play S5.2 allows ``seat`` now: any card of its hand, either side; none
        once it has committed (S5.2: final) or outside the commit phase."""
        if (self.phase is not Phase.COMMIT or not 0 <= seat < self.n or self.commits[seat]
                or seat in self.gone):
            return []
        return [Play(seat, slot, side) for slot in self.hands[seat] for side in SIDES]

    def check_play(self, play: Play) -> None:
        """Raise IllegalMove if ``play`` may not be chosen now (before committing to it)."""
        self._check_seat(play.seat)
        if self.phase is not Phase.COMMIT:
            raise IllegalMove("S5.2", f"no play is chosen now (phase {self.phase.value})")
        if self.commits[play.seat] is not None:
            raise IllegalMove("S5.2", f"seat {play.seat} has already committed this turn; "
                              "a choice is final")
        self._check_card_and_side(play.seat, play.slot, play.side)

    def timeout_play(self, seat: int) -> Play:
        """S5.6: the late player's own default play: its first card in id order, left.
        (S5.6 [decision]: id order is the canonical order of :func:`card_order`.)"""
        hand = self.hands[seat]
        if not hand:
            raise IllegalMove("S5.1", f"seat {seat} holds no card")
        slot = min(hand, key=lambda s: card_order(self.face(s)))
        return Play(seat, slot, "left")

    def _check_seat(self, seat: int) -> None:
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < self.n:
            raise IllegalMove("S2.2", f"there is no seat {seat!r}")
        if seat in self.gone:
            raise IllegalMove("S5.7", f"seat {seat} left at turn {self.gone[seat]}; it "
                              "plays no more")

    def _check_card_and_side(self, seat: int, slot: int, side: str) -> None:
        if side not in SIDES:
            raise IllegalMove("S5.2", f"the side is left or right, not {side!r}")
        if slot not in self.hands[seat]:
            raise IllegalMove("S5.2", f"slot {slot} is not a card of the hand seat {seat} "
                              f"holds in turn {self.turn} (S5.4)")

    def commit(self, seat: int, digest: str) -> None:
        """S7.3: seat publishes its commitment for this turn (64 lowercase hex)."""
        self._check_seat(seat)
        if self.phase is Phase.REVEAL:
            raise IllegalMove("S7.3", f"every seat has committed for turn {self.turn}; "
                              "the reveals are due")
        if self.phase is not Phase.COMMIT:
            raise IllegalMove("S5.1" if self.phase is Phase.OVER else "S4",
                              f"no commitment is expected (phase {self.phase.value})")
        if self.commits[seat] is not None:
            raise IllegalMove("S5.2", f"seat {seat} has already committed for turn "
                              f"{self.turn}; a choice is final")
        if not isinstance(digest, str) or not _HEX64.fullmatch(digest):
            raise IllegalMove("S7.3", "a commitment is a SHA-256 digest, 64 lowercase hex")
        self.commits[seat] = digest
        if all(self.commits[s] is not None for s in self.playing):
            self._transition(Event.ALL_COMMITTED)

    def reveal(self, seat: int, slot: int, side: Side, nonce: str) -> None:
        """S7.3: seat opens its commitment: the card (by slot, whose face this peer must
        know), the side and the nonce. The plays are applied when all are in (S5.3)."""
        self._check_seat(seat)
        if self.phase is Phase.COMMIT:
            raise IllegalMove("S7.3", "no play is revealed before every seat has committed "
                              f"(phase {self.phase.value})")
        if self.phase is not Phase.REVEAL:
            raise IllegalMove("S5.1" if self.phase is Phase.OVER else "S4",
                              f"no reveal is expected (phase {self.phase.value})")
        if self.reveals[seat] is not None:
            raise IllegalMove("S7.3", f"seat {seat} has already revealed its play")
        self._check_card_and_side(seat, slot, side)
        card = self.faces[slot]
        if card is None:
            raise UnknownFace("S7.3", f"slot {slot} must be opened before its play is checked")
        if not isinstance(nonce, str) or not _HEX32.fullmatch(nonce):
            raise IllegalMove("S7.3", "a nonce is 128 bits in 32 lowercase hex digits")
        digest = self.commits[seat]
        assert digest is not None
        if commitment(self.game_id, self.turn, seat, card, side, nonce) != digest:
            raise IllegalMove("S7.3", f"seat {seat}'s reveal ({card} {side}) does not open "
                              "its commitment")
        self.reveals[seat] = PlayLog(seat, slot, side, self.zone_of(seat, side), digest, nonce)
        if all(self.reveals[s] is not None for s in self.playing):
            self._apply_turn()

    def play_turn(self, plays: Sequence[Play], nonces: Sequence[str]) -> None:
        """Commit and reveal one play per seat at once (a full-knowledge driver: self-play,
        tests). All or nothing: a refused play changes nothing."""
        if sorted(p.seat for p in plays) != self.playing:
            raise IllegalMove("S5.1", "a turn has exactly one play per seat still playing")
        if len(nonces) != len(plays):
            raise ValueError("play_turn: one nonce per play")
        trial = self.clone()
        for p, nonce in zip(plays, nonces, strict=True):
            trial.check_play(p)
            card = trial.face(p.slot)
            trial.commit(p.seat, commitment(self.game_id, self.turn, p.seat, card, p.side,
                                            nonce))
        for p, nonce in zip(plays, nonces, strict=True):
            trial.reveal(p.seat, p.slot, p.side, nonce)
        self.__dict__.update(trial.__dict__)

    def _apply_turn(self) -> None:
        """S5.3–S5.4: put every revealed card in its zone together, then pass left."""
        logs = [r for r in self.reveals if r is not None]
        for r in logs:  # in seat order: zones list cards by turn, then seat (S5.3)
            self.zones[r.zone].append(r.slot)
            self.hands[r.seat].remove(r.slot)
        self.history.append(logs)
        self.commits = [None] * self.n
        self.reveals = [None] * self.n
        if self.turn >= self.turns:  # S5.1, S10.1: the hands are empty; the game ends
            self._transition(Event.LAST_TURN_DONE)
            return
        # S5.4: seat s's hand goes to seat s+1 (with 2 players: to the other, S8.2);
        # S5.7: to the next seat still playing, a gone seat holds none.
        passed: list[list[int]] = [[] for _ in range(self.n)]
        for s in self.playing:
            passed[self.next_playing(s)] = self.hands[s]
        self.hands = passed
        for s in range(self.n):
            self.held[s].update(self.hands[s])
        self.turn += 1
        self.hands_at_start.append([list(h) for h in self.hands])
        self._transition(Event.TURN_DONE)
