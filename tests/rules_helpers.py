"""Build a round with chosen cards: hands, the first discard and the top of the pile."""

from __future__ import annotations

from collections.abc import Sequence

from splitnet.cards import card_id, name
from splitnet.games.split.rules import Discard, DrawPile, Game, Settings, TakeRow


def faces_for(n: int, hands: dict[int, Sequence[str]], first: str, pile: Sequence[str] = (),
              dealer: int = 0, hand_size: int = 9) -> list[int]:
    """A full deck order (slot → card id) giving these cards to these seats.

    Cards not named fill the remaining places; named cards use copy 0 first, then 1.
    """
    used: dict[int, int] = {}

    def take(text: str) -> int:
        c = card_id(text, 0)
        k = used.get(c, 0)
        if k >= 2:
            raise ValueError(f"{text} named more than twice")
        used[c] = k + 1
        return c + k

    dealt = hand_size * n
    faces: list[int | None] = [None] * 104
    for seat, cards in hands.items():
        slots = [j for j in range(dealt) if (dealer + 1 + j) % n == seat]
        for slot, text in zip(slots, cards, strict=False):
            faces[slot] = take(text)
    faces[dealt] = take(first)
    for i, text in enumerate(pile):
        faces[dealt + 1 + i] = take(text)
    rest = [c for c in range(104) if c not in faces]
    it = iter(rest)
    return [f if f is not None else next(it) for f in faces]


def game_with(n: int, hands: dict[int, Sequence[str]], first: str = "KS",
              pile: Sequence[str] = (), settings: Settings | None = None,
              dealer: int = 0) -> Game:
    g = Game(n, settings)
    g.dealer = dealer
    g.start_round(faces_for(n, hands, first, pile, dealer, g.settings.hand_size))
    return g


def slot_of(g: Game, seat: int, text: str, nth: int = 0) -> int:
    """The slot of the nth card named ``text`` in seat's hand."""
    found = [s for s in g.hands[seat] if g.faces[s] is not None and name(g.faces[s]) == text]
    return found[nth]


def row_taken() -> Game:
    """Two players; seat 1 has just taken the row from its first card, 9D (playable with
    its 9H), with JC and 10S after it (R4.1b): the game waits for seat 1 to play 9D."""
    g = game_with(2, {1: ["9H", "2C", "3C", "4C", "5C", "6C", "7C", "8C", "JC"],
                      0: ["AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "10S"]},
                  first="9D", pile=["KD", "KH"])
    g.apply(DrawPile(1))
    g.apply(Discard(1, slot_of(g, 1, "JC")))
    g.apply(DrawPile(0))
    g.apply(Discard(0, slot_of(g, 0, "10S")))
    g.apply(TakeRow(1, 0))
    return g


def hand_names(g: Game, seat: int) -> list[str]:
    return sorted(name(f) for s in g.hands[seat] if (f := g.faces[s]) is not None)
