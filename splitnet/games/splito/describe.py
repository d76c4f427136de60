"""Splito in words, from one seat's point of view (docs/SPLITO.md; S7: hidden cards stay
hidden): the lines a session adds to its log as the game's entries are applied.

Every Splito session (local, LAN, replay) narrates through a :class:`SplitoNarrator`:
who has committed (never what, S7.3), every turn's plays revealed all at once (S5.3),
the hands passed (S5.4), the end with every score written out (S10–S11) and the audit's
verdict (S7.5). Names and chat pass through :func:`splitnet.text.shown`, as every line
of a session's log does.

>>> from splitnet.games.splito.engine import Game, Play, full_deck
>>> from splitnet.games.splito.settings import SplitoSettings
>>> g = Game(SplitoSettings.standard(3), game_id="0" * 32)
>>> central = ["OBJ01", "OBJ19"]
>>> g.deal(central, [c for c in full_deck(g.settings) if c not in central])
>>> zone_name(g, ["Ana", "Bo", "Cy"], 0, viewer=1)
'zone Ana|you'
>>> g.play_turn([Play(s, g.hands[s][0], "left") for s in range(3)], ["0" * 32] * 3)
>>> print(describe_turn(g, ["Ana", "Bo", "Cy"], viewer=0, turn=1).replace(" · ", "\\n"))
Turn 1 revealed: you → left [R]2 (zone you|Bo)
Bo → left [R]1 (zone Bo|Cy)
Cy → left [R]1 (zone Cy|you)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from splitnet.games.splito.cards import is_number_card, pretty
from splitnet.games.splito.engine import Game, Phase, PlayLog
from splitnet.text import shown


def card_text(game: Game, card: str) -> str:
    """A card in the seed's notation (S1.4) in plain text: ``[G]5`` a green 5; an
    objective card by its id and name: ``OBJ07 Evens (2)``."""
    if is_number_card(card):
        return pretty(card)
    obj = game.settings.objective_set.by_id.get(card)
    if obj is None:
        return shown(card, limit=32)
    return f"{obj.id} {obj.name} ({obj.points})".replace("  ", " ")


def _who(players: Sequence[str], seat: int, viewer: int | None, *, capital: bool = False
         ) -> str:
    if seat == viewer:
        return "You" if capital else "you"
    return shown(players[seat], limit=64)


def zone_name(game: Game, players: Sequence[str], zone: int, viewer: int | None) -> str:
    """``zone Ana|Bo`` (S3.1: between seat z and seat z+1); with 2 players, whose left or
    right zone it is (S8.1)."""
    seats = game.zone_seats(zone)
    if game.n == 2:
        side = "left" if zone % 2 == 0 else "right"
        owner = seats[0]
        whose = "your" if owner == viewer else f"{shown(players[owner], limit=64)}'s"
        return f"{whose} {side} zone"
    return "zone " + "|".join(_who(players, s, viewer) for s in seats)


def describe_play(game: Game, players: Sequence[str], play: PlayLog,
                  viewer: int | None) -> str:
    """``Ana → left [G]5 (zone Ana|Bo)``: one revealed play (S5.3)."""
    face = game.faces[play.slot]
    card = card_text(game, face) if face is not None else "a hidden card"
    return (f"{_who(players, play.seat, viewer)} → {play.side} {card} "
            f"({zone_name(game, players, play.zone, viewer)})")


def describe_turn(game: Game, players: Sequence[str], viewer: int | None,
                  turn: int) -> str:
    """Turn ``turn``'s plays, every one at once, in seat order (S5.3)."""
    plays = game.history[turn - 1]
    return (f"Turn {turn} revealed: "
            + " · ".join(describe_play(game, players, p, viewer) for p in plays))


def describe_end(game: Game, players: Sequence[str], viewer: int | None) -> list[str]:
    """The final scores, each written out, and the winner (S10–S11)."""
    lines = ["Game over (S10.1): every zone scored."]
    scores = game.scores()
    for s in sorted(scores, key=lambda x: (-x.score, x.cards_in_zones, x.seat)):
        whose = "your" if s.seat == viewer else "their"
        left = (f"; left at turn {game.gone[s.seat]}: cannot win, S5.7"
                if s.seat in game.gone else "")
        lines.append(f"  {_who(players, s.seat, viewer, capital=True)}: left "
                     f"{s.left_points} × right {s.right_points} = {s.score} "
                     f"({s.cards_in_zones} cards in {whose} zones{left})")
    winners = game.winners()
    names = " and ".join(_who(players, w, viewer, capital=i == 0)
                         for i, w in enumerate(winners))
    best = scores[winners[0]].score
    tied = [s.seat for s in scores if s.score == best and s.seat not in game.gone]
    why = ""
    if len(tied) > 1 and len(winners) < len(tied):
        why = " (S11.3: fewest cards in their zones)"
    elif len(winners) > 1:
        why = " (S11.3: a shared win)"
    verb = "win" if len(winners) > 1 or winners[0] == viewer else "wins"
    lines.append(f"{names} {verb} with {best}{why}.")
    return lines


class SplitoCoreView(Protocol):
    """What :meth:`SplitoNarrator.after_entry` reads of a core
    (:class:`splitnet.games.splito.core.SplitoCore`)."""

    engine: Game
    verdict: Any
    record: dict[str, Any] | None

    @property
    def finished(self) -> bool: ...


@dataclass
class EntryNews:
    lines: list[str]
    #: a new verdict line: the audit passed, or the game stopped
    verdict: str | None


class SplitoNarrator:
    """Turns one seat's view of a Splito game into log lines as its entries are applied."""

    def __init__(self, players: Sequence[str], viewer: int | None) -> None:
        self.players = [shown(p, limit=64) for p in players]
        self.viewer = viewer
        self.dealt = False
        self.turns_told = 0
        self.committed: set[tuple[int, int]] = set()
        self.ended = False
        self.audited = False
        self.stopped = False

    def resume(self, game: Game) -> None:
        """Start narrating a game already under way (its past is not told again)."""
        self.dealt = game.phase is not Phase.SETUP
        self.turns_told = len(game.history)
        self.ended = game.over

    def deal_lines(self, game: Game) -> list[str]:
        central = ", ".join(card_text(game, c) for c in game.central) or "none"
        lines = [f"Dealt: {game.settings.hand_size} cards each, {game.turns} turns; "
                 f"central objectives (they count in every zone, S10.2): {central}."]
        if self.viewer is not None and self.viewer not in game.gone:  # (S5.7: none)
            lines.append("Your hand: " + hand_text(game, self.viewer) + ".")
        return lines

    def after_change(self, game: Game) -> list[str]:
        """Lines for the turns revealed (and the end reached) since the last call."""
        out: list[str] = []
        if not self.dealt and game.phase is not Phase.SETUP:
            self.dealt = True
            out.extend(self.deal_lines(game))
        while self.turns_told < len(game.history):
            self.turns_told += 1
            out.append(describe_turn(game, self.players, self.viewer, self.turns_told))
            if self.turns_told < game.turns:
                out.append(self.pass_line(game))
        if game.over and not self.ended:
            self.ended = True
            out.extend(describe_end(game, self.players, self.viewer))
        return out

    def pass_line(self, game: Game) -> str:
        """S5.4: the hands pass left (with 2 players, to the other)."""
        left = len(game.playing) - 1
        n_cards = game.settings.hand_size - self.turns_told
        past = (" past " + ", ".join(_who(self.players, g, self.viewer) for g in game.gone)
                + " (S5.7)") if game.gone else ""
        if self.viewer is None or self.viewer in game.gone:
            return f"Hands passed left{past} ({n_cards} cards each, S5.4)."
        frm = _who(self.players, next(s for s in game.playing
                                      if game.next_playing(s) == self.viewer), None)
        if left == 1:
            return f"Hands passed (S5.4): you now hold the {n_cards} cards {frm} held."
        return (f"Hands passed left{past} (S5.4): you now hold the {n_cards} cards {frm} "
                "held.")

    def after_entry(self, core: SplitoCoreView, author: int, kind: str,
                    body: dict[str, Any]) -> EntryNews:
        """Lines for one applied log entry of a Splito game (local or LAN)."""
        game = core.engine
        lines: list[str] = []
        verdict: str | None = None
        if kind == "chat":
            lines.append(f"{self.players[author]}: {shown(body.get('text'), limit=500)}")
        elif kind == "move":
            turn = body.get("turn")
            key = (turn if isinstance(turn, int) else game.turn, author)
            if key not in self.committed:
                self.committed.add(key)
                missing = [_who(self.players, s, self.viewer) for s in game.waiting_for()] \
                    if game.phase is Phase.COMMIT else []
                who = _who(self.players, author, self.viewer, capital=True)
                tail = (f"; waiting for {', '.join(missing)}" if missing
                        else "; every play is in: revealing")
                what = "a play"
                chosen = getattr(core, "chosen", None)
                mine = chosen(key[0]) if author == self.viewer and chosen else None
                if mine is not None:  # our own choice, told to us alone
                    face = game.faces[mine[0]]
                    if face is not None:
                        what = f"{card_text(game, face)} → {mine[1]}"
                rule = "S7.3: hidden until every play is in" if what != "a play" else "S7.3"
                lines.append(f"{who} committed {what} for turn {key[0]} ({rule}){tail}.")
        elif kind == "abandon" and core.verdict is None:
            seat, waited = body.get("seat"), body.get("waited")
            if isinstance(seat, int) and seat in game.gone:
                who = _who(self.players, seat, self.viewer, capital=True)
                verb = "were" if seat == self.viewer else "was"
                lines.append(f"{who} {verb} given up by the host as gone for good after "
                             f"{waited} s: left the game at turn {game.gone[seat]} (S5.7) — "
                             "the hand held is set aside, the hands pass past that seat, "
                             "its zones stay; a seat that left cannot win.")
        if kind in ("deal", "reveal", "pass", "move", "abandon"):
            lines.extend(self.after_change(game))
        if core.record is not None and not self.audited:
            self.audited = True
            verdict = ("Audit passed (S7.5): every seed matched its commitment; both "
                       "shuffles, every proof, share, sealed pass and play checked."
                       if not game.gone else
                       "Checked (S12.5): both shuffles' proofs, every share, sealed pass "
                       "and play; a seat left, so nothing is opened and the cards never "
                       "played stay unread.")
            lines.append(verdict)
        if core.verdict is not None and not self.stopped:
            self.stopped = True
            verdict = f"game stopped: {core.verdict}"
            lines.append(verdict)
        return EntryNews(lines, verdict)


def hand_text(game: Game, seat: int) -> str:
    """A hand as text, number cards first in S1.3 order, then objectives (unknown cards
    are counted, never guessed)."""
    from splitnet.games.splito.cards import card_order

    known = sorted((f for s in game.hands[seat] if (f := game.faces[s]) is not None),
                   key=card_order)
    hidden = len(game.hands[seat]) - len(known)
    parts = [card_text(game, c) if not is_number_card(c) else pretty(c) for c in known]
    if hidden:
        parts.append(f"{hidden} hidden")
    return " ".join(parts) if parts else "(empty)"
