"""What a Splito front end shows, read from one seat's engine (docs/SPLITO.md): the hand
with its letters, the seat's two zones (cards, the objectives that count there and
whether each is fulfilled now, the zone's points), the central objectives, every
player's projected score and whose commitment is missing. Both front ends (plain and
full screen) draw from these facts; every rule and every point comes from the engine
(``zone_results``, ``scores``, ``waiting_for``) — nothing here decides one.

>>> from splitnet.games.splito.engine import full_deck
>>> from splitnet.games.splito.settings import SplitoSettings
>>> g = Game(SplitoSettings.standard(3), game_id="0" * 32)
>>> g.deal(["OBJ01", "OBJ19"], [c for c in full_deck(g.settings) if c not in ("OBJ01", "OBJ19")])
>>> [(label, card) for label, _, card in hand_labels(g, 0)][:3]
[('A', 'R2a'), ('B', 'R3b'), ('C', 'R5a')]
>>> t = table_facts(g, ["You", "Ana", "Bo"], 0)
>>> t.left.label, t.right.label, t.left.points
('zone you|Ana', 'zone Bo|you', 0)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from splitnet.games.splito.cards import card_order
from splitnet.games.splito.describe import zone_name
from splitnet.games.splito.engine import Game, Phase, Side
from splitnet.games.splito.objectives import Objective

if TYPE_CHECKING:
    from splitnet.frontend import SplitoTableSession

#: a hand's labels, in S1.3's card order (26 letters: the 2-player variant's 26 cards)
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


@dataclass(frozen=True)
class ObjectiveLine:
    """One objective counted in a zone (S10.2): one lying there, or a central one."""

    objective: Objective
    source: str  # "zone" or "central"
    fulfilled: bool
    points: int  # what it adds to the zone now (0 if not fulfilled)


@dataclass(frozen=True)
class ZoneFacts:
    zone: int
    #: "left"/"right" for one of the viewer's zones, else None
    side: Side | None
    label: str
    cards: tuple[str, ...]  # every card lying there, by turn then seat (S5.3)
    objectives: tuple[ObjectiveLine, ...]
    points: int


@dataclass(frozen=True)
class ScoreFacts:
    seat: int
    name: str
    left: int
    right: int
    score: int


@dataclass(frozen=True)
class TableFacts:
    turn: int
    turns: int
    phase: Phase
    central: tuple[Objective, ...]
    left: ZoneFacts
    right: ZoneFacts
    #: every zone that is not one of the viewer's, in zone order
    others: tuple[ZoneFacts, ...]
    scores: tuple[ScoreFacts, ...]
    #: seats whose commitment (commit phase) or reveal (reveal phase) is missing
    waiting: tuple[int, ...]
    committed: tuple[int, ...]
    hand: tuple[tuple[str, int, str | None], ...]


def hand_labels(view: Game, seat: int) -> list[tuple[str, int, str | None]]:
    """(letter, slot, card id or None) for each card of the hand, in card order (S1.3).
    A hand does not change during a turn (S5.2–S5.4), so neither do its letters."""
    slots = sorted(view.hands[seat], key=lambda s: (
        (0, *card_order(f)) if (f := view.faces[s]) is not None else (1, 0, 0, str(s))))
    return [(LETTERS[i] if i < len(LETTERS) else "?", s, view.faces[s])
            for i, s in enumerate(slots)]


def zone_facts(view: Game, players: Sequence[str], zone: int, seat: int | None
               ) -> ZoneFacts:
    by_id = view.settings.objective_set.by_id
    results = view.zone_results(zone)
    side: Side | None = None
    if seat is not None:
        left, right = view.seat_zones(seat)
        side = "left" if zone == left else "right" if zone == right else None
    return ZoneFacts(
        zone, side, zone_name(view, players, zone, seat),
        tuple(view.zone_cards(zone)),
        tuple(ObjectiveLine(by_id[r.objective], r.source, r.fulfilled, r.points)
              for r in results),
        sum(r.points for r in results))


def table_facts(view: Game, players: Sequence[str], seat: int) -> TableFacts:
    left, right = view.seat_zones(seat)
    mine = (left, right)
    by_id = view.settings.objective_set.by_id
    scores = tuple(ScoreFacts(s.seat, players[s.seat], s.left_points, s.right_points,
                              s.score) for s in view.scores())
    waiting = tuple(view.waiting_for())
    return TableFacts(
        view.turn, view.turns, view.phase, tuple(by_id[c] for c in view.central),
        zone_facts(view, players, left, seat), zone_facts(view, players, right, seat),
        tuple(zone_facts(view, players, z, seat) for z in range(len(view.zones))
              if z not in mine),
        scores, waiting,
        tuple(s for s in range(view.n) if view.committed(s)),
        tuple(hand_labels(view, seat)))


def points_text(points: int) -> str:
    return f"{points} point{'s' if points != 1 else ''}"


#: What ``n`` does at the end screen, by who presses it (as Split's end screen,
#: splitnet.ui.tui.results.REMATCH_KEYS): in ``splitnet play``; on a LAN the host (who
#: offers the rematch) or a joiner (who agrees to it). The seats stay; the deal passes
#: to the dealer's left neighbour (S4.1 [decision]).
REMATCH_KEYS = {
    "local": "n new game with the same players and seats ({deals}, S4.1)",
    "host": "n offer a rematch to the same seats ({deals}, S4.1; everyone must agree)",
    "joiner": "n agree to a rematch with the same seats if the host offers one ({deals}, "
              "S4.1)",
}


def rematch_keys(role: str, players: Sequence[str], seat: int, dealer: int | None) -> str:
    """What n does for ``role`` (:data:`REMATCH_KEYS`) at ``seat``'s end screen, naming
    who deals the next game: "you deal" when it is this seat, else "Ana deals" (None:
    "the next player deals")."""
    from splitnet.text import shown
    from splitnet.ui import deals

    who = ("the next player deals" if dealer is None
           else deals(shown(players[dealer]), dealer == seat))
    return REMATCH_KEYS[role].format(deals=who)


def played_out(session: SplitoTableSession) -> bool:
    """Was the game played to its end, its audit passed (no "game stopped" verdict,
    S7.5)? Only then may a rematch follow."""
    return (session.finished and session.view.over
            and not (session.verdict or "").startswith("game stopped"))
