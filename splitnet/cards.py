"""The 104 half-cards of Split (R1).

A card id is ``face * 2 + copy`` (R1.2) with ``face = rank_index * 4 + suit_index``,
ranks ``A 2 … 10 J Q K`` (index 0…12) and suits ``C D H S`` (index 0…3).
The two copies of a face are interchangeable in play; the id only tells them apart.

>>> name(card_id("10H", 1))
'10H'
>>> rank(card_id("QS")), suit(card_id("QS")), is_red(card_id("QS"))
(11, 3, False)
>>> match_kind(card_id("7H"), card_id("7D"))
'strong'
"""

from __future__ import annotations

from typing import Final, Literal

RANKS: Final = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS: Final = ("C", "D", "H", "S")
SUIT_SYMBOLS: Final = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
N_CARDS: Final = 104

MatchKind = Literal["weak", "strong", "perfect"]
#: Strength order of match types (R2.5): weak < strong < perfect.
STRENGTH: Final[dict[str, int]] = {"weak": 0, "strong": 1, "perfect": 2}
KINDS: Final[tuple[MatchKind, ...]] = ("perfect", "strong", "weak")


def face(card: int) -> int:
    return card // 2


def rank(card: int) -> int:
    """Rank index 0 (A) … 12 (K)."""
    return card // 8


def suit(card: int) -> int:
    """Suit index 0 (C), 1 (D), 2 (H), 3 (S)."""
    return (card // 2) % 4


def is_red(card: int) -> bool:
    """♥ and ♦ are red, ♣ and ♠ black (R1.1)."""
    return suit(card) in (1, 2)


def name(card: int) -> str:
    """Rank + suit letter, e.g. ``"10H"``; the copy is not shown (R1.2)."""
    if not 0 <= card < N_CARDS:
        raise ValueError(f"card id {card} is outside 0…{N_CARDS - 1}")
    return RANKS[rank(card)] + SUITS[suit(card)]


def pretty(card: int) -> str:
    """Rank + suit symbol, e.g. ``"10♥"``."""
    return RANKS[rank(card)] + SUIT_SYMBOLS[SUITS[suit(card)]]


def parse_face(text: str) -> int:
    """Parse ``"10H"``, ``"qs"``, ``"7♥"`` into a face index 0…51."""
    t = text.strip().upper()
    for sym, letter in SUIT_SYMBOLS.items():
        t = t.replace(letter, sym)
    if len(t) < 2:
        raise ValueError(f"{text!r} is not a card: write rank then suit, like 7H or 10S")
    r, s = t[:-1], t[-1]
    if r == "T":
        r = "10"
    if r == "1":
        r = "A"
    if r not in RANKS or s not in SUITS:
        raise ValueError(f"{text!r} is not a card: ranks are A 2…10 J Q K, suits C D H S")
    return RANKS.index(r) * 4 + SUITS.index(s)


def card_id(text: str, copy: int = 0) -> int:
    """The id of one copy of a named face."""
    if copy not in (0, 1):
        raise ValueError("copy must be 0 or 1")
    return parse_face(text) * 2 + copy


def _match_kind(a: int, b: int) -> MatchKind | None:
    if rank(a) != rank(b):
        return None
    if suit(a) == suit(b):
        return "perfect"
    if is_red(a) == is_red(b):
        return "strong"
    return "weak"


_KIND_TABLE: Final[tuple[MatchKind | None, ...]] = tuple(
    _match_kind(a, b) for a in range(N_CARDS) for b in range(N_CARDS)
)


def match_kind(a: int, b: int) -> MatchKind | None:
    """The type of the match two halves make (R2), or None if they do not match."""
    return _KIND_TABLE[a * N_CARDS + b]
