"""The replay of a finished Splito game (``splitnet replay``), from its record
(``splito-record/1``, docs/SPLITO.md S12) after the referee has accepted it (S12.4).

Every card is shown: the game is over and audited (S7.5) — but in a game a seat left
(S5.7), which is not opened (S12.5): there a card nobody read is shown as ``?``. The
table at each step is the rules engine's own, replayed from the record's deal and
plays (commit and reveal of S7.3 included), so the zones, the objectives met so far and
the projected scores (S10–S11) are what the rules say, not a second reading of them.

Steps (:func:`replay_steps`): the deal, then one page per turn with the plays as they were
revealed together (S5.3), then the final standing, each with the table after it: the
central objectives, every zone with its cards and the objectives in it (met now or not,
S6.2), every hand (the hands as they will be played next, after the pass of S5.4) and
every player's projected score (left × right, S11.1).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from splitnet.games.splito.cards import card_order, is_number_card, pretty
from splitnet.games.splito.engine import Game, Phase, Side
from splitnet.games.splito.objectives import ObjectiveSet, default_objective_set
from splitnet.games.splito.record import summary
from splitnet.games.splito.settings import SplitoSettings
from splitnet.text import shown

#: The replay's prompt and help for Splito (steps, no rounds).
PROMPT_KEYS = "Enter/n next · p back · N step · q quit · ? keys"
STEP_HELP = """\
  Enter or n   next step            p   previous step
  N            go to step N (step 1 is the deal, step t+1 is after turn t)
  f / l        first / last step    t   show the table again
  q            quit                 ?   this help"""


def _card(card: str, oset: ObjectiveSet) -> str:
    if is_number_card(card):
        return pretty(card)
    o = oset.by_id.get(card)
    return f"{card} ({o.name}, {o.points})" if o is not None and o.name else card


def _cards(cards: Sequence[str | None], oset: ObjectiveSet) -> str:
    """Cards in S1.3's order; a card nobody read (S12.5) as ``?``, after the others."""
    read = sorted((c for c in cards if c is not None), key=card_order)
    unread = sum(c is None for c in cards)
    return " ".join([*(_card(c, oset) for c in read), *["?"] * unread]) or "(none)"


def _leave(g: Game, record: dict[str, Any], turn: int) -> list[int]:
    """S5.7, S12.5: the seats that left during ``turn`` leave the rotation (before any
    play of that turn, as the referee replays it); they are returned."""
    out = [e["seat"] for e in record.get("gone", []) if e["turn"] == turn]
    for seat in out:
        g.abandon(seat)
    return out


def _game(record: dict[str, Any], oset: ObjectiveSet) -> Game:
    """The engine at the deal of the game the record tells (S4.3)."""
    settings = SplitoSettings.from_dict(record["settings"], oset, record=True)
    deal = record["deal"]
    n, h = settings.players, settings.hand_size
    deck = [deal["hands"][(settings.dealer + 1 + k) % n][k // n] for k in range(n * h)]
    deck.extend(deal["set_aside"])  # (null: a card nobody read, S12.5)
    g = Game(settings, record["game_id"])
    g.deal(deal["central"], deck)
    return g


def _play_turn(g: Game, turn: dict[str, Any]) -> None:
    """S7.3: every seat's commitment, then every reveal, as recorded."""
    plays = sorted(turn["plays"], key=lambda p: p["seat"])
    for p in plays:
        g.commit(p["seat"], p["commit"])
    for p in plays:
        slot = g.slot_of(p["card"])
        assert slot is not None  # the referee has checked every play (S12.4)
        side: Side = "left" if p["side"] == "left" else "right"
        g.reveal(p["seat"], slot, side, p["nonce"])


def _zone_label(g: Game, zone: int, names: list[str]) -> str:
    return f"zone {zone} ({' | '.join(names[s] for s in g.zone_seats(zone))})"


def _plays_lines(g: Game, turn: dict[str, Any], names: list[str],
                 oset: ObjectiveSet) -> list[str]:
    out = []
    for p in sorted(turn["plays"], key=lambda p: p["seat"]):
        side: Side = "left" if p["side"] == "left" else "right"
        zone = g.zone_of(p["seat"], side)
        out.append(f"  {names[p['seat']]:14} {_card(p['card'], oset)} → {side} "
                   f"{_zone_label(g, zone, names)}")
    return out


def render(g: Game, names: list[str], oset: ObjectiveSet) -> str:
    """The whole table, every card open: central objectives, zones, hands, scores."""
    over = g.phase is Phase.OVER
    if over:
        head = f"--- the game is over after turn {g.turns} · final scores ---"
    else:
        head = f"--- turn {g.turn} of {g.turns} next · every card open ---"
    lines = [head, "Central objectives (count in every zone, S10.2): "
             + (", ".join(_card(c, oset) for c in g.central) or "(none)")]
    points = g.zone_points()
    met_word = "met" if over else "met now"
    for z in range(len(g.zones)):
        lines.append(f"{_zone_label(g, z, names)}: {points[z]} point"
                     f"{'s' if points[z] != 1 else ''}"
                     f"{'' if over else ' if the game ended now'}")
        numbers = [c for c in g.zone_cards(z) if is_number_card(c)]
        lines.append(f"      cards: {_cards(numbers, oset)}")
        parts = []
        for r in g.zone_results(z):
            tag = "central " if r.source == "central" else ""
            got = f"{met_word} (+{r.points})" if r.fulfilled else "not met"
            parts.append(f"{tag}{r.objective} {got}")
        lines.append(f"      objectives: {'; '.join(parts) or '(none)'}")
    hand_word = "hand" if over else f"hand for turn {g.turn}"
    for sc in g.scores():
        s = sc.seat
        left = f"; left at turn {g.gone[s]}, cannot win (S5.7)" if s in g.gone else ""
        lines.append(f"  {s + 1}. {names[s]}: score {sc.score} = {sc.left_points} × "
                     f"{sc.right_points} (left zone {sc.left_zone}, right zone "
                     f"{sc.right_zone}; {sc.cards_in_zones} cards in them{left})")
        if not over and s not in g.gone:
            lines.append(f"      {hand_word}: "
                         f"{_cards([g.faces[x] for x in g.hands[s]], oset)}")
    return "\n".join(lines)


class SplitoStep:
    """One page of the replay and the table after it (the shape of
    :class:`splitnet.games.split.replay.Step`)."""

    def __init__(self, lines: list[str], table: str, label: str) -> None:
        self.lines = lines
        self.table = table
        self.label = label
        self.round_no = 0  # Splito has no rounds


def replay_steps(record: dict[str, Any], oset: ObjectiveSet | None = None
                 ) -> list[SplitoStep]:
    """The deal, each turn, and the final standing, each with the table after it.
    ``record`` must have passed the referee (:func:`splitnet.games.splito.record.check_record`).
    The players' names are someone else's text: shown, never obeyed (splitnet.text)."""
    oset = oset or default_objective_set()
    names = [shown(s["name"]) for s in record["seats"]]
    g = _game(record, oset)
    s = g.settings
    variant = " (2-player variant: own zones, S8)" if g.n == 2 else ""
    head = [f"=== Splito · {g.n} players{variant} · {s.turns} turns · game "
            f"{record['game_id'][:12]} ===",
            "Central objectives: " + (", ".join(_card(c, oset) for c in g.central)
                                      or "(none)"),
            f"Dealt {s.hand_size} cards each (S4.3):"]
    for seat, hand in enumerate(record["deal"]["hands"]):
        head.append(f"  {names[seat]:14} {_cards(hand, oset)}")
    steps = [SplitoStep(head, render(g, names, oset), "the deal")]
    for turn in record["turns"]:
        t = turn["turn"]
        page = [f"turn {t}: every play revealed together (S5.3)"]
        for seat in _leave(g, record, t):
            page.append(f"  {names[seat]} left the game before its play (S5.7): the hand "
                        "it held is set aside, never played; the hands pass past its seat")
        page.extend(_plays_lines(g, turn, names, oset))
        _play_turn(g, turn)
        if g.phase is not Phase.OVER:
            page.append("  the hands pass left (S5.4)")
        steps.append(SplitoStep(page, render(g, names, oset), f"turn {t} of {s.turns}"))
    named = dict(record)
    named["seats"] = [{"seat": i, "name": nm} for i, nm in enumerate(names)]
    final = ["=== Final ===", *summary(named).splitlines()]
    steps.append(SplitoStep(final, render(g, names, oset), "final standing"))
    return steps
