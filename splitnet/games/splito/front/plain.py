"""The line-based Splito front end (``splitnet play --game splito --plain``): readable,
scriptable, screen-reader friendly. Works on any
:class:`~splitnet.frontend.SplitoTableSession` (local or LAN).

It prints what happens in words (the session's log), shows the table when your play is
awaited, and reads one command per line. A play names a card and a side in one line
(``B left``): nothing is committed by a single stray key, and the engine checks every
play (a refused one prints its S-rule and asks again). The hand's letters are the full
screen's and do not change during a turn (S5.2–S5.4: a hand only changes when it is
passed).
"""

from __future__ import annotations

import asyncio
import sys
from typing import TextIO

from splitnet.aio import stop
from splitnet.frontend import OffersOpenHand, SplitoTableSession
from splitnet.games.splito.describe import card_text
from splitnet.games.splito.engine import Game, IllegalMove, Play, Side
from splitnet.games.splito.front.table import (
    ZoneFacts,
    hand_labels,
    played_out,
    points_text,
    table_facts,
)
from splitnet.ui.plain_io import CommandError, GiveUpPrompt, PlainTerminal, ask_next

HELP = """\
Commands (a card by its letter, as the table shows it, or by its id: G5, OBJ07):
  B left  (or B l)   put card B in your left zone this turn   (S5.2)
  B right (or B r)   … in your right zone; your play is committed at once and
                     stays hidden until every player has committed (S7.3)
  show               the table again          zones     every zone of the table
  scores             every player's score if the game ended now (S11.1:
                     left × right)
  objectives         all 37 objective cards in words and in the seed's notation
  say TEXT           chat (off during play unless the table agreed, S5.5)
  ? (or help)        this text
  q (or quit)        leave (the game is saved)
  n                  after the game: the next game with the same players in the
                     same seats, the deal passed left (S4.1); on a LAN the host
                     offers it, everyone agrees
Splito: every turn everyone at once puts one card into the zone they share with
their left or right neighbour; then the hands pass left (S5.4). At the end each
zone scores its fulfilled objectives — the ones played into it and the two
central ones — for both its neighbours, and your score is left zone × right
zone (S10–S11).
Notation (S1.4): ◇3 is the number 3 on a number card; [R] is a card of colour R
(red; O orange, Y yellow, G green, B blue, P purple); [G]5 is a green 5; x, y:
any values, c, d: any colours."""


def objective_line(o: object) -> str:
    from splitnet.games.splito.objectives import Objective

    assert isinstance(o, Objective)
    return o.describe()


def zone_text(z: ZoneFacts, view: Game, title: str) -> list[str]:
    """A zone: its cards, each objective counted there (fulfilled now or not, S10.2; a
    projection until the game is over, S6.2) and its points."""
    cards = " ".join(card_text(view, c) for c in z.cards)
    now = "" if view.over else " if the game ended now"
    # the 2-player variant's zones are nobody else's: their name is the title itself
    named = title if z.label.lower() == title.lower() else f"{title} ({z.label})"
    lines = [f"{named}: {points_text(z.points)}{now}",
             f"    cards: {cards or '(none yet)'}"]
    for line in z.objectives:
        mark = "✓ fulfilled" if line.fulfilled else "✗ not yet" if not view.over else "✗ not met"
        where = "central" if line.source == "central" else "in the zone"
        o = line.objective
        lines.append(f"    {mark:12} {o.id} {o.name} ({o.points}, {where})  {o.face}")
    return lines


def render_table(view: Game, players: list[str], seat: int) -> str:
    """The table as text, from ``seat``'s point of view."""
    t = table_facts(view, players, seat)
    lines = [f"--- Splito · turn {min(t.turn, t.turns)} of {t.turns} ---"]
    lines.append("Central objectives (they count in every zone, S10.2): " + "; ".join(
        f"{o.id} {o.name} ({o.points}) {o.face}" for o in t.central))
    lines.extend(zone_text(t.left, view, "Your left zone"))
    lines.extend(zone_text(t.right, view, "Your right zone"))
    lines.append(scores_text(view, players, seat))
    if t.waiting and not view.over:
        what = "commitment" if view.phase.value == "commit" else "reveal"
        lines.append(f"Waiting for the {what} of: "
                     + ", ".join(_name(players, s, seat) for s in t.waiting))
    lines.append("Your hand: " + "  ".join(
        f"{label} {card_text(view, c) if c is not None else '(hidden)'}"
        for label, _, c in t.hand))
    return "\n".join(lines)


def _you(players: list[str], s: int, seat: int) -> str:
    return " (you)" if s == seat and players[s].lower() != "you" else ""


def _name(players: list[str], s: int, seat: int) -> str:
    return "you" if s == seat else players[s]


def scores_text(view: Game, players: list[str], seat: int) -> str:
    when = "final scores" if view.over else "scores if the game ended now"
    return f"{when.capitalize()} (left × right, S11.1): " + " · ".join(
        f"{players[s.seat]}{_you(players, s.seat, seat)} {s.left_points}×"
        f"{s.right_points}={s.score}" for s in view.scores())


def all_zones_text(view: Game, players: list[str], seat: int) -> str:
    t = table_facts(view, players, seat)
    out: list[str] = []
    for z in sorted((t.left, t.right, *t.others), key=lambda z: z.zone):
        # another pair's zone is its label alone ("Zone Ana|Bo", not "Zone (zone Ana|Bo)")
        title = {"left": "Your left zone", "right": "Your right zone"}.get(
            z.side or "", z.label[:1].upper() + z.label[1:])
        out.extend(zone_text(z, view, title))
    return "\n".join(out)


def parse_play(line: str, view: Game, seat: int) -> Play:
    """``B left`` / ``b r`` / ``G5 right`` / ``OBJ07 l`` → the play (the engine then
    checks it, S5.2)."""
    words = line.split()
    if words and words[0].lower() == "play":
        words = words[1:]
    if len(words) != 2:
        raise CommandError("a play is a card and a side, like 'B left' (? for help)")
    what, where = words
    side: Side
    if where.lower() in ("l", "left"):
        side = "left"
    elif where.lower() in ("r", "right"):
        side = "right"
    else:
        raise CommandError(f"the side is left or right (l or r), not {where[:12]!r}")
    labels = hand_labels(view, seat)
    key = what.upper()
    for label, slot, card in labels:
        if card is None:
            continue
        if len(key) == 1 and key == label:
            return Play(seat, slot, side)
        # a card id: G5 (either copy), G5A, OBJ07 (S1.3)
        if len(key) > 1 and key in (card.upper(), card.upper()[:2]):
            return Play(seat, slot, side)
    last = labels[-1][0] if labels else "A"
    raise CommandError(f"{what[:12]!r} is not a card of your hand: a letter A–{last} or "
                       "a card id like G5 or OBJ07")


def can_play(view: Game, seat: int) -> bool:
    """Is this seat's play awaited (the commit phase, not committed, hand readable)?"""
    from splitnet.games.splito.engine import Phase

    return (view.phase is Phase.COMMIT and not view.committed(seat)
            and bool(view.hands[seat])
            and all(view.faces[s] is not None for s in view.hands[seat]))


def end_text(session: SplitoTableSession) -> str:
    view = session.view
    players, seat = session.players, session.seat
    out = ["=== Game over ==="]
    if view.over:
        for s in sorted(view.scores(), key=lambda x: (-x.score, x.cards_in_zones, x.seat)):
            out.append(f"  {players[s.seat]:12} left {s.left_points} × right "
                       f"{s.right_points} = {s.score}  ({s.cards_in_zones} cards in their "
                       "zones)")
        out.append(all_zones_text(view, players, seat))
        winners = view.winners()
        out.append("Winner: " + " and ".join(players[w] for w in winners))
    if session.verdict:
        out.append(session.verdict)
    return "\n".join(out)


async def run_splito_plain(session: SplitoTableSession, *, inp: TextIO | None = None,
                           out: TextIO | None = None) -> int:
    """Play through ``session`` with lines on ``inp``/``out``; returns an exit status
    (0: the game was played to its end; 1: the player left, or input ended)."""
    term = PlainTerminal(session, inp or sys.stdin, out or sys.stdout)
    say, flush_log = term.say, term.flush_log
    shown_turn: int | None = None
    runner = asyncio.create_task(session.run())
    say("splitnet — Splito at the terminal. Type ? for help.")
    # the LAN host's session offers to give a seat gone for good up (S5.7)
    offering = session if isinstance(session, OffersOpenHand) else None
    prompt = GiveUpPrompt(term, session.players, "Give {who} up for gone? {who} leaves "
                          "the game for good (S5.7): the hand held is set aside, the hands "
                          "pass past that seat, and the others play on.")
    try:
        while not runner.done():
            view = session.view
            offer = offering.open_hand_offer() if offering is not None else None
            if offering is not None and offer is not None and prompt.due(*offer):
                if not await prompt.ask(offering, *offer, IllegalMove):
                    offering = None  # no more input: the host cannot answer
                continue
            if session.finished or not can_play(view, session.seat):
                await asyncio.wait([runner], timeout=0.02)
                continue
            flush_log()
            if view.turn != shown_turn:
                say(render_table(view, session.players, session.seat))
                term.say_watching()
                say(f"Your play for turn {view.turn}: a card and a side, like 'A left'.")
                shown_turn = view.turn
            text = await term.command(runner)
            if text is None:
                return 1
            if not text:
                continue
            low = text.lower()
            if low in ("?", "help", "h"):
                say(HELP)
            elif low == "show":
                say(render_table(view, session.players, session.seat))
            elif low == "zones":
                say(all_zones_text(view, session.players, session.seat))
            elif low == "scores":
                say(scores_text(view, session.players, session.seat))
            elif low == "objectives":
                say("\n".join(o.describe() for o in view.settings.objective_set.objectives))
            elif low.startswith(("say ", "c ")):
                try:
                    await session.chat(text.split(" ", 1)[1])
                except IllegalMove as e:
                    say(f"! Not sent — {e}")
            else:
                try:
                    play = parse_play(text, view, session.seat)
                    await session.submit(play)
                except CommandError as e:
                    say(f"! {e}")
                except IllegalMove as e:
                    say(f"! Not allowed — {e}")
        await runner
    finally:
        await stop(runner)
    flush_log()
    say(end_text(session))
    return 0


async def ask_rematch(session: SplitoTableSession, keys: str, *, inp: TextIO | None = None,
                      out: TextIO | None = None) -> bool:
    """After the end (:func:`run_splito_plain` returned 0): offer the next game in one
    line — ``keys`` says what n does (splitnet.games.splito.front.table.REMATCH_KEYS) — and
    read the answer: True for n (or y/yes), False for anything else or the end of
    input. Only after a game played to its end with no verdict."""
    return played_out(session) and await ask_next(keys, inp=inp, out=out)
