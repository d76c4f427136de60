"""The 109 cards of Splito (docs/SPLITO.md S1) and their stable ids (S1.3).

A number card is colour letter + value + copy letter: ``R1a`` … ``P6b`` (S1.2: values 1–6
in the colours R O Y G B P, two copies each). An objective card is named by its objective
set (``OBJ01`` … ``OBJ37`` for the project's own set, S9.4).

>>> len(NUMBER_CARDS), NUMBER_CARDS[0], NUMBER_CARDS[-1]
(72, 'R1a', 'P6b')
>>> number_face("G5b")
(5, 'G')
>>> pretty("G5b"), pretty("OBJ07")
('[G]5', 'OBJ07')
>>> sorted(["OBJ02", "P1a", "R6b", "R1a"], key=card_order)   # S1.2 colour order first
['R1a', 'R6b', 'P1a', 'OBJ02']
"""

from __future__ import annotations

from typing import Final

#: S1.2 [decision]: the six colours, in the order of every list of colours.
COLOURS: Final = ("R", "O", "Y", "G", "B", "P")
COLOUR_NAMES: Final = {"R": "red", "O": "orange", "Y": "yellow", "G": "green", "B": "blue",
                       "P": "purple"}
VALUES: Final = (1, 2, 3, 4, 5, 6)
COPIES: Final = ("a", "b")

#: S1.3: the 72 number cards in their canonical order (colour, value, copy).
NUMBER_CARDS: Final[tuple[str, ...]] = tuple(
    f"{c}{v}{k}" for c in COLOURS for v in VALUES for k in COPIES
)
_FACES: Final[dict[str, tuple[int, str]]] = {
    f"{c}{v}{k}": (v, c) for c in COLOURS for v in VALUES for k in COPIES
}
_ORDER: Final[dict[str, int]] = {card: i for i, card in enumerate(NUMBER_CARDS)}

#: S1.1: the deck holds 72 number cards and 37 objective cards.
N_NUMBER_CARDS: Final = 72
N_OBJECTIVES: Final = 37
N_CARDS: Final = N_NUMBER_CARDS + N_OBJECTIVES


def is_number_card(card: str) -> bool:
    return card in _FACES


def number_face(card: str) -> tuple[int, str]:
    """(value, colour) of a number card (S1.2); ValueError names a non-number card."""
    try:
        return _FACES[card]
    except KeyError:
        raise ValueError(f"{card!r} is not a number card (S1.3: colour, value, copy, "
                         "like R1a)") from None


def card_order(card: str) -> tuple[int, int, str]:
    """The canonical order of card ids: number cards in S1.3's order, then objective cards
    by id. S5.6 [decision]: this is the "id order" of the timeout's default play."""
    i = _ORDER.get(card)
    if i is not None:
        return (0, i, "")
    return (1, 0, card)


def pretty(card: str) -> str:
    """The seed's notation (S1.4) in plain text: ``[G]5`` is a green 5."""
    face = _FACES.get(card)
    if face is None:
        return card
    return f"[{face[1]}]{face[0]}"
