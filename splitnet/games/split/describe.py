"""Moves and events in words, from one seat's point of view (R8: hidden cards stay hidden).

>>> from splitnet.games.split.rules import Game
>>> g = Game(2); g.start_round(list(range(104)))
>>> describe_event({"type": "lay", "match_id": 0, "cards": [0, 2], "match": "strong"},
...                g, ["Ana", "Bo"], actor=1, viewer=0)
'Bo laid a strong match A♣ A♦'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from splitnet.cards import pretty
from splitnet.games.split.rules import Game
from splitnet.games.split.rules.scoring import pad_points, points_text, signed


def card_text(game: Game, slot: int) -> str:
    f = game.faces[slot]
    return pretty(f) if f is not None else "a hidden card"


def describe_event(ev: dict[str, Any], game: Game, players: Sequence[str], actor: int,
                   viewer: int | None) -> str:
    who = "You" if actor == viewer else players[actor]
    t = ev["type"]
    if t in ("draw_pile", "bonus_draw"):
        extra = " (strong bonus)" if t == "bonus_draw" else ""
        if actor == viewer:
            return f"You drew {card_text(game, ev['slot'])} from the pile{extra}"
        return f"{who} drew a card from the pile{extra}"
    if t == "take_row":
        cards = " ".join(card_text(game, s) for s in ev["cards"])
        return f"{who} took {cards} from the discard row"
    if t == "lay":
        cards = " ".join(card_text(game, s) for s in ev["cards"])
        return f"{who} laid a {ev['match']} match {cards}"
    if t == "upgrade":
        m = game.matches[ev["match_id"]]
        cards = " ".join(card_text(game, s) for s in m.top)
        owner = ev["owner_before"]
        own = "your own" if actor == viewer else "their own"
        whose = own if owner == actor else (
            "your" if owner == viewer else f"{players[owner]}'s")
        return (f"{who} upgraded {whose} match to {ev['match']} {cards} "
                f"(covering {card_text(game, ev['covers'])})")
    if t == "bonus_mark":
        target = "you" if ev["target"] == viewer else players[ev["target"]]
        return f"{who} made {target} mark a negative box (perfect bonus)"
    if t == "bonus_swap":
        other = "you" if ev["with_seat"] == viewer else players[ev["with_seat"]]
        return (f"{who} swapped match {ev['give']} for {other}'s match {ev['take']} "
                f"(weak bonus)")
    if t == "discard":
        return f"{who} discarded {card_text(game, ev['slot'])}"
    return f"{who}: {t}"


def describe_round_end(game: Game, players: Sequence[str], viewer: int | None) -> list[str]:
    end = game.last_end
    if end is None:
        return []
    who = "You" if end.seat == viewer else players[end.seat]
    lines = []
    if end.reason == "out":
        lines.append(f"Round {game.round_no} over: {who} went out.")
    elif end.reason == "abandoned":
        lines.append(f"Round {game.round_no} over: {who} was given up for gone; the round "
                     "ends as it stands (R8.6).")
    else:
        lines.append(f"Round {game.round_no} over: {who} drew the last card of the pile.")
    for ll in end.late_lays:
        cards = " ".join(card_text(game, s) for s in ll["cards"])
        lines.append(f"  {players[ll['seat']]} laid a late {ll['match']} match {cards}")
    pad = game.settings.pad
    for s, m in enumerate(end.marks):
        before = {r: game.marks[s][r] - m.get(r, 0) for r in game.marks[s]}
        gain = game.score(s) - pad_points(pad, before)
        lines.append(f"  {players[s]}: {points_text(pad, game.marks[s])} "
                     f"({signed(gain, plus=True)} this round)")
    return lines


#: what a round's passed audit checked, as its verdict line says it ("Round 2: shuffle
#: verified — …."; the end screen sums the lines up, splitnet.ui.tui.results)
AUDIT_CHECKED = "every seed matched its commitment; every shuffle, proof and share checked"


class CoreView(Protocol):
    """What :meth:`Narrator.after_entry` reads of a game core (splitnet.games.split.core)."""

    engine: Game
    rounds: Any
    verdict: Any

    @property
    def round(self) -> Any: ...


@dataclass
class EntryNews:
    lines: list[str]
    #: a new verdict line: a round's audit passed, or the game stopped
    verdict: str | None


class Narrator:
    """Turns one seat's view of the game into log lines as it changes: the deal, every
    event of every move, the round's end, and each round's audit verdict. Every session
    (local, fair-deck, LAN) narrates through one of these."""

    def __init__(self, players: Sequence[str], viewer: int | None) -> None:
        self.players = list(players)
        self.viewer = viewer
        self.round_seen = 0
        self.seen = 0
        self.audited = 0
        self.mover = 0
        self.stopped = False

    def resume(self, game: Game, audited: int) -> None:
        """Start narrating a game already under way (after a restart)."""
        self.round_seen = game.round_no
        self.seen = len(game.events)
        self.audited = audited

    def after_change(self, game: Game, actor: int | None,
                     actors: Sequence[tuple[int, int]] | None = None) -> list[str]:
        """Lines for what changed since the last call; ``actor`` made the new events —
        or, with ``actors`` ((events so far, seat) after each move of the round), the
        seat whose move made each (an open-handed seat's moves are in no entry, R8.6)."""
        out: list[str] = []
        if game.round_no != self.round_seen and game.phase != "round_over" and game.row:
            self.round_seen = game.round_no
            self.seen = 0
            dealer = ("You deal" if game.dealer == self.viewer
                      else f"{self.players[game.dealer]} deals")
            out.append(f"Round {game.round_no}: {dealer}; first discard "
                       f"{card_text(game, game.row[0])}.")
        if actor is not None and len(game.events) > self.seen:
            for i, ev in enumerate(game.events[self.seen:], self.seen):
                who = next((s for end, s in actors or () if end > i), actor)
                out.append(describe_event(ev, game, self.players, who, self.viewer))
            self.seen = len(game.events)
            if game.phase in ("round_over", "game_over"):
                out.extend(describe_round_end(game, self.players, self.viewer))
        return out

    def audit(self, audited_rounds: Sequence[int]) -> str | None:
        """The verdict line when a new round's audit has passed, else None."""
        if len(audited_rounds) <= self.audited:
            return None
        self.audited = len(audited_rounds)
        return f"Round {audited_rounds[-1]}: shuffle verified — {AUDIT_CHECKED}."

    def abandon_line(self, body: dict[str, Any], *, cut: bool = True) -> str:
        """What an ``abandon`` entry means, for everyone at the table (R8.6) — the same
        whether the host's timer made it (``--open-hand-after``) or the host chose to.
        ``cut``: during play, the round ends as it stands; else (no card dealt yet) the
        deal is dealt again."""
        seat, waited = body.get("seat"), body.get("waited")
        known = isinstance(seat, int) and 0 <= seat < len(self.players)
        name = self.players[seat] if known else "?"  # type: ignore[index]
        after = f"; the host stopped waiting after {waited} s" if isinstance(
            waited, int) else ""
        now = ("this round ends as it stands and is scored" if cut
               else "the cards are dealt again")
        if known and seat == self.viewer:
            return (f"Your seat was given up for gone: {now}; from now on your cards are "
                    f"dealt face up and the table plays them by fixed rules (R8.6{after}).")
        return (f"{name} is gone: {now}; from now on {name}'s cards are dealt face up and "
                f"the table plays them by fixed rules (R8.6{after}).")

    def after_entry(self, core: CoreView, author: int, kind: str,
                    body: dict[str, Any]) -> EntryNews:
        """Lines for one applied log entry of a fair-deck game (local or LAN)."""
        lines: list[str] = []
        if kind == "chat":
            lines.append(f"{self.players[author]}: {body.get('text')}")
        if kind == "move":
            self.mover = author
        if kind == "abandon":  # R8.6: the round ends as it stands, or a void deal
            cut = any(getattr(rd, "cut", None) == body.get("seat")
                      and getattr(rd, "number", None) == body.get("round")
                      for rd in core.rounds)
            lines.append(self.abandon_line(body, cut=cut))
            if not cut:  # nothing was dealt: nothing to tell of the deal
                self.round_seen = core.engine.round_no
                self.seen = len(core.engine.events)
        r = core.round
        own_draw_pending = r is not None and r.draw is not None and r.draw[0] == self.viewer
        # our own draw is told once its shares are in and we can read the card
        actor = (self.mover if kind in ("move", "reveal", "shares") and not own_draw_pending
                 else None)
        lines.extend(self.after_change(core.engine, actor,
                                       r.event_actors if r is not None else None))
        # game rounds, not deal numbers (a void deal, R8.6, is not a round of the game)
        audited = [rd for rd in core.rounds if rd.faces is not None]
        verdict = self.audit(list(range(1, len(audited) + 1)))
        if verdict is not None:
            lines.append(verdict)
        if core.verdict is not None and not self.stopped:
            self.stopped = True
            verdict = f"game stopped: {core.verdict}"  # (GAME.md, Verdicts)
            lines.append(verdict)
        return EntryNews(lines, verdict)
