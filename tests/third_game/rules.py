"""High Card's rules (README.md H1–H5), pure: no deck, no I/O.

A seat's view (:class:`Game`) knows which slots each seat was dealt (H3) and the faces of
the cards it may read: its own hand, and every card once played. A card is an int,
0 … DECK − 1; its rank is one more (H1): there are no ties."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from splitnet.errors import IllegalMove as AnyIllegalMove

#: H1: the deck's cards, ranked 1 … 16
DECK = 16
MIN_PLAYERS, MAX_PLAYERS = 2, 4
MIN_HAND, MAX_HAND = 1, 4


class SettingsError(ValueError):
    """A settings map that is not High Card's (the message names the field)."""


class IllegalMove(AnyIllegalMove):
    """A play High Card's rules refuse: ``rule`` and why (the network knows a refused
    move by this base class: its wire code is ``illegal``, NETWORK.md §8)."""


def rank(card: int) -> int:
    """H1: a card's rank."""
    return card + 1


def name(card: int) -> str:
    """A card in words: its rank."""
    return str(rank(card)) if 0 <= card < DECK else f"card {card}"


@dataclass(frozen=True)
class Settings:
    """H2, H3: how many play, and how many cards each is dealt (one trick per card)."""

    players: int
    hand: int = 3

    def __post_init__(self) -> None:
        for key, low, high in (("players", MIN_PLAYERS, MAX_PLAYERS),
                               ("hand", MIN_HAND, MAX_HAND)):
            v = getattr(self, key)
            if isinstance(v, bool) or not isinstance(v, int) or not low <= v <= high:
                raise SettingsError(f"{key}: an integer {low}–{high}")

    def to_dict(self) -> dict[str, Any]:
        return {"players": self.players, "hand": self.hand}

    @classmethod
    def from_dict(cls, raw: object) -> Settings:
        if not isinstance(raw, Mapping) or set(raw) != {"players", "hand"}:
            raise SettingsError("expected exactly players and hand")
        return cls(raw["players"], raw["hand"])


@dataclass(frozen=True)
class Trick:
    """One trick: who led it, the (seat, card) played in order, and its winner."""

    number: int
    leader: int
    plays: tuple[tuple[int, int], ...]
    winner: int | None


def dealt_slots(settings: Settings, seat: int) -> list[int]:
    """H3: the deck slots dealt to ``seat`` (seat s gets slots s·hand … s·hand + hand − 1)."""
    return list(range(seat * settings.hand, (seat + 1) * settings.hand))


@dataclass
class Game:
    """A seat's view of one deal (an observer's: faces of played cards only)."""

    settings: Settings
    first_dealer: int = 0
    #: slot → card, for the slots this view can read
    faces: dict[int, int] = field(default_factory=dict)
    played: set[int] = field(default_factory=set)
    tricks: list[Trick] = field(default_factory=list)
    #: the plays of the trick under way
    current: list[tuple[int, int]] = field(default_factory=list)

    @property
    def n(self) -> int:
        return self.settings.players

    @property
    def leader(self) -> int:
        """H4.1: the dealer's left neighbour leads the first trick, each winner the next."""
        if not self.tricks:
            return (self.first_dealer + 1) % self.n
        last = self.tricks[-1].winner
        assert last is not None
        return last

    @property
    def trick_number(self) -> int:
        return len(self.tricks) + 1

    @property
    def finished(self) -> bool:
        return len(self.tricks) == self.settings.hand

    def turn(self) -> int | None:
        """H4.2: the seat to play now (clockwise from the leader), None once over."""
        if self.finished:
            return None
        return (self.leader + len(self.current)) % self.n

    def hand(self, seat: int) -> list[int]:
        """The slots ``seat`` still holds."""
        return [s for s in dealt_slots(self.settings, seat) if s not in self.played]

    def legal(self, seat: int) -> list[int]:
        """H4.2: any card of its hand, on its turn (there is no suit to follow)."""
        return self.hand(seat) if self.turn() == seat else []

    def check(self, seat: int, slot: int) -> None:
        if self.turn() != seat:
            raise IllegalMove("H4.2", f"it is not seat {seat}'s turn")
        if slot not in self.hand(seat):
            raise IllegalMove("H4.2", f"slot {slot} is not a card seat {seat} holds")

    def play(self, seat: int, slot: int, card: int) -> Trick | None:
        """Play ``card`` (the face of ``slot``); the trick if this play ended it (H4.3)."""
        self.check(seat, slot)
        self.faces[slot] = card
        self.played.add(slot)
        self.current.append((seat, card))
        if len(self.current) < self.n:
            return None
        winner = max(self.current, key=lambda p: rank(p[1]))[0]  # H4.3: the highest
        trick = Trick(self.trick_number, self.leader, tuple(self.current), winner)
        self.tricks.append(trick)
        self.current = []
        return trick

    def won(self) -> list[int]:
        """H5: the tricks each seat won."""
        out = [0] * self.n
        for t in self.tricks:
            assert t.winner is not None
            out[t.winner] += 1
        return out

    def winners(self) -> list[int]:
        """H5: the seats with the most tricks (all of them on a tie)."""
        won = self.won()
        return [s for s in range(self.n) if won[s] == max(won)]
