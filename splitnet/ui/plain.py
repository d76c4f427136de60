"""The line-based front end (``--plain``): readable, scriptable, screen-reader friendly.

It prints what happens in words, shows the table when it is your turn, and reads one
command per line. Every move is checked by the engine; a refused move prints the reason
with its rule number and asks again. Works on any :class:`TableSession`.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Sequence
from typing import TextIO

from splitnet.aio import stop
from splitnet.cards import STRENGTH, match_kind, name, parse_face, pretty, rank
from splitnet.frontend import OffersOpenHand, TableSession
from splitnet.games.split.rules import (
    Action,
    BonusDraw,
    BonusMark,
    BonusSwap,
    Discard,
    DrawPile,
    EndLateLays,
    Game,
    IllegalMove,
    LateLay,
    Lay,
    SkipBonus,
    TakeRow,
    Upgrade,
)
from splitnet.games.split.rules.scoring import live, points_text, signed, standing_now
from splitnet.ui import REMATCH_KEYS, deals
from splitnet.ui.plain_io import CommandError, GiveUpPrompt, PlainTerminal, ask_next

HELP = """\
Commands — the full screen's keys where a line can say the same (cards are
written rank+suit: 7H, 10S, QC, AD; row cards, matches #M and players by the
numbers shown):
  d                draw the top card of the pile (R4.1a; in a strong bonus:
                   its draw)
  t N              take row card N and every card after it       (R4.1b)
  l 7H 7D          lay a match of two halves from your hand      (R4.3a)
  u 7H M [a|b]     upgrade match #M with 7H (a/b: which half to cover, if
                   both work)
  x QS             discard QS; ends your turn                    (R4.4)
  P                perfect bonus: player number P marks a negative box (R5.1;
                   or m P, m NAME)
  w MINE THEIRS    weak bonus: swap your match #MINE for match #THEIRS (R5.3)
  s                skip the strong or weak bonus (b: take the strong bonus
                   draw)
  e                done laying late matches                      (R6.2)
  r                the last round's results again
  moves            list every legal move, numbered; then a number plays it
  hint             the strong bot's move for this decision, its reason in
                   words and the command that plays it (it plays nothing; h is
                   this help)
  show             show the table again      c TEXT (or say TEXT)   chat
  ? (or help)      this text                 q (or quit)   leave (saved)
Match types: weak = same rank, different colour; strong = same rank and
colour; perfect = identical halves. Bonuses: perfect → another player marks a
negative box; strong → you may draw a card; weak → you may swap one of your
matches for another player's match of the same type."""




def render_table(view: Game, players: list[str], seat: int,
                 numbers: Sequence[int] | None = None) -> str:
    """The whole table as text, from ``seat``'s point of view; ``numbers``: each seat's
    number (the session's, default 1…n)."""
    no = _numbers(view.n, numbers)
    lines: list[str] = []
    lines.append(f"--- Round {view.round_no} of {view.settings.rounds} · dealer "
                 f"{players[view.dealer]} · draw pile {view.pile_count} cards ---")
    row = "  ".join(f"{i + 1}:{pretty(f)}" for i, s in enumerate(view.row)
                    if (f := view.faces[s]) is not None)
    lines.append(f"Discard row (oldest first): {row or '(empty)'}")
    for s in range(view.n):
        marker = ">" if s == view.actor else " "
        you = " (you)" if s == seat else ""
        marks = view.marks[s]
        # this round's bonus marks (a perfect bonus's negative box) show at once
        bonus = view.round_marks[s] if live(view) else {}
        boxes = " ".join(f"{r[0].upper()}{marks[r]}" + (f"+{bonus[r]}" if bonus.get(r) else "")
                         for r in ("perfect", "strong", "weak", "negative"))
        n_cards = len(view.hands[s])
        now = (f", {signed(standing_now(view)[s])} if the round ended now" if live(view)
               else "")
        lines.append(f"{marker} {no[s]}. {players[s]}{you}: {n_cards} "
                     f"card{'s' if n_cards != 1 else ''} in hand, score {signed(view.score(s))}"
                     f"{now}  [{boxes}]")
        for m in view.matches:
            if m.owner == s:
                halves = " ".join(pretty(f) for t in m.top if (f := view.faces[t]) is not None)
                lines.append(f"      match #{m.id}: {m.kind:7} {halves}")
    hand = sorted(view.hands[seat], key=lambda x: (view.faces[x] or 0))
    lines.append("Your hand: " + " ".join(
        pretty(f) for x in hand if (f := view.faces[x]) is not None))
    return "\n".join(lines)


def ask_text(view: Game, seat: int) -> str:
    phase = view.phase
    if phase == "draw":
        return "Your turn: draw (d) or take from the row (t N)."
    if phase == "must_play":  # R4.1b: the row card picked is played first
        face = view.faces[view.picked] if view.picked is not None else None
        card = pretty(face) if face is not None else "card"
        return f"Play the {card} you took from the row: lay (l) or upgrade (u) with it."
    if phase == "play":
        return "Lay (l), upgrade (u), or discard (x) to end your turn."
    if phase == "bonus":
        kind = view.pending_bonus
        if kind == "perfect":
            return ("Perfect bonus: type the number of the player who marks a negative "
                    "box.")
        if kind == "strong":
            return "Strong bonus: draw a card (d) or skip (s)."
        return "Weak bonus: swap matches (w MINE THEIRS) or skip (s)."
    if phase == "late_lays":
        return "Round over on a first turn: lay late matches (l) or end (e)."
    return ""


def describe_move(view: Game, players: list[str], move: Action,
                  numbers: Sequence[int] | None = None) -> str:
    def c(slot: int) -> str:
        f = view.faces[slot]
        return pretty(f) if f is not None else "?"

    if isinstance(move, DrawPile):
        return "draw from the pile"
    if isinstance(move, TakeRow):
        return f"take row card {move.index + 1} ({c(view.row[move.index])}) and after"
    if isinstance(move, Lay | LateLay):
        return f"lay {c(move.a)} {c(move.b)}"
    if isinstance(move, Upgrade):
        m = view.matches[move.match_id]
        return f"upgrade match #{m.id} covering {c(m.top[move.covers])} with {c(move.slot)}"
    if isinstance(move, Discard):
        return f"discard {c(move.slot)}"
    if isinstance(move, BonusMark):
        no = _numbers(view.n, numbers)[move.target]
        return f"make {players[move.target]} ({no}) mark a negative box"
    if isinstance(move, BonusDraw):
        return "draw a bonus card"
    if isinstance(move, BonusSwap):
        return f"swap your match #{move.give} for match #{move.take}"
    if isinstance(move, SkipBonus):
        return "skip the bonus"
    return "end late lays"


def _find_in_hand(view: Game, seat: int, text: str, exclude: tuple[int, ...] = ()) -> int:
    fc = parse_face(text)
    for s in view.hands[seat]:
        f = view.faces[s]
        if f is not None and f // 2 == fc and s not in exclude:
            return s
    raise CommandError(f"{text.upper()} is not in your hand")


def _numbers(n: int, numbers: Sequence[int] | None) -> list[int]:
    """Each seat's number: ``numbers`` (a session's), else 1…n."""
    return list(numbers) if numbers is not None else list(range(1, n + 1))


def _player(players: list[str], text: str, numbers: Sequence[int] | None = None) -> int:
    """A player by the number the table shows (1…n, as on the full screen: the session's
    ``numbers``) or by name."""
    no = _numbers(len(players), numbers)
    if text.isdigit() and int(text) in no:
        return no.index(int(text))
    for i, p in enumerate(players):
        if p.lower() == text.lower():
            return i
    raise CommandError(f"no player {text[:20]!r}: use a player number 1–{len(players)} "
                       "or a name")


def _match_no(text: str) -> int:
    """A match by the number the table shows: ``3`` or ``#3``."""
    return int(text.removeprefix("#"))


def parse_command(line: str, view: Game, seat: int, players: list[str],
                  numbered: list[Action], numbers: Sequence[int] | None = None) -> Action:
    """Turn one typed line into a move (the engine then checks it); ``numbers``: each
    seat's number (the session's, default 1…n)."""
    words = line.split()
    cmd, args = words[0].lower(), words[1:]
    try:
        if cmd.isdigit() and not numbered and view.phase == "bonus" \
                and view.pending_bonus == "perfect":
            return BonusMark(seat, _player(players, cmd, numbers))  # the full screen's key
        if cmd.isdigit():
            k = int(cmd)
            if not 1 <= k <= len(numbered):
                raise CommandError("type 'moves' first, then a number from that list")
            return numbered[k - 1]
        if cmd in ("d", "draw"):
            bonus = view.phase == "bonus" and view.pending_bonus == "strong"
            return BonusDraw(seat) if bonus else DrawPile(seat)
        if cmd in ("t", "take"):
            return TakeRow(seat, int(args[0]) - 1)
        if cmd in ("l", "lay"):
            a = _find_in_hand(view, seat, args[0])
            b = _find_in_hand(view, seat, args[1], (a,))
            return LateLay(seat, a, b) if view.phase == "late_lays" else Lay(seat, a, b)
        if cmd in ("u", "up", "upgrade"):
            slot = _find_in_hand(view, seat, args[0])
            mid = _match_no(args[1])
            m = view.match_by_id(mid)
            if m is None:
                raise CommandError(f"there is no match {mid}")
            if len(args) > 2:
                covers = {"a": 0, "b": 1, "1": 0, "2": 1}.get(args[2].lower())
                if covers is None:
                    raise CommandError("say a or b for the half to cover")
                return Upgrade(seat, slot, mid, covers)
            f = view.faces[slot]
            assert f is not None
            options = [cv for cv in (0, 1) if (o := view.faces[m.top[1 - cv]]) is not None
                       and (kind := match_kind(f, o)) is not None
                       and STRENGTH[kind] > STRENGTH[m.kind]]
            return Upgrade(seat, slot, mid, options[-1] if options else 0)
        if cmd in ("x", "discard"):
            return Discard(seat, _find_in_hand(view, seat, args[0]))
        if cmd in ("m", "mark"):
            return BonusMark(seat, _player(players, args[0], numbers))
        if cmd in ("b", "bonus"):
            return BonusDraw(seat)
        if cmd in ("w", "swap"):
            return BonusSwap(seat, _match_no(args[0]), _match_no(args[1]))
        if cmd in ("s", "skip"):
            return SkipBonus(seat)
        if cmd in ("e", "end"):
            return EndLateLays(seat)
    except (IndexError, ValueError) as e:
        if isinstance(e, CommandError):
            raise
        raise CommandError(f"could not read {line.strip()!r}: {e}. Type ? for help") from e
    raise CommandError(f"unknown command {cmd!r}. Type ? for help")


async def run_plain(session: TableSession, *, inp: TextIO | None = None,
                    out: TextIO | None = None) -> int:
    """Play through ``session`` with lines on ``inp``/``out``; returns an exit status."""
    term = PlainTerminal(session, inp or sys.stdin, out or sys.stdout)
    say, flush_log = term.say, term.flush_log
    shown_turn: tuple[int, int, str] | None = None
    numbered: list[Action] = []

    prompt = GiveUpPrompt(term, session.players, "Play {who}'s seat open-handed from now "
                          "on? This round ends as it stands (dealt again if no card is "
                          "dealt yet) and {who}'s cards are face up, played by the computer "
                          "(R8.6).")

    runner = asyncio.create_task(session.run())
    say("splitnet — Split at the terminal. Type ? for help.")
    # the LAN host's session offers a seat gone for good (R8.6)
    offering = session if isinstance(session, OffersOpenHand) else None
    try:
        while not runner.done():
            view = session.view
            offer = offering.open_hand_offer() if offering is not None else None
            if offering is not None and offer is not None and prompt.due(*offer):
                if not await prompt.ask(offering, *offer, IllegalMove):
                    offering = None  # no more input: the host cannot answer
                continue
            if view.actor != session.seat or session.status != "your turn":
                await asyncio.wait([runner], timeout=0.02)
                continue
            flush_log()
            key = (view.round_no, len(view.events), view.phase)
            if key != shown_turn:
                say(render_table(view, session.players, session.seat, session.numbers))
                term.say_watching()
                say(ask_text(view, session.seat))
                shown_turn = key
            text = await term.command(runner)
            if text is None:
                return 1
            if not text:
                continue
            low = text.lower()
            if low in ("?", "help", "h"):
                say(HELP)
                continue
            if low == "show":
                say(render_table(view, session.players, session.seat, session.numbers))
                continue
            if low == "hint":
                say(await hint_text(view, session.seat, session.players,
                                    numbers=session.numbers))
                continue
            if low == "moves":
                numbered = view.legal_moves(session.seat)
                for i, mv in enumerate(numbered):
                    say(f"  {i + 1}. "
                        f"{describe_move(view, session.players, mv, session.numbers)}")
                continue
            if low.startswith(("say ", "c ")):
                await session.chat(text.split(" ", 1)[1])
                continue
            if low in ("r", "results"):
                say(last_results(session.log))
                continue
            try:
                action = parse_command(text, view, session.seat, session.players, numbered,
                                       session.numbers)
                await session.submit(action)
            except CommandError as e:
                say(f"! {e}")
            except IllegalMove as e:
                say(f"! Not allowed — {e}")
            numbered = []
        await runner
    finally:
        await stop(runner)
    flush_log()
    view = session.view
    say("=== Game over ===")
    order = sorted(range(view.n), key=lambda s: (-view.score(s), view.marks[s]["negative"]))
    for s in order:
        say(f"  {session.players[s]:12} {points_text(view.settings.pad, view.marks[s])}")
    winners = view.winners()
    say("Winner: " + " and ".join(session.players[w] for w in winners))
    if session.verdict:
        say(session.verdict)
    return 0


async def ask_rematch(session: TableSession, next_dealer: int, *,
                      inp: TextIO | None = None, out: TextIO | None = None) -> bool:
    """After the end of a game of ``splitnet play`` (:func:`run_plain` returned 0): offer
    the next game against the same players in the same seats in one line, as the end
    screen's n does — its first round dealt by ``next_dealer`` (R3.2: the first deal
    passes left) — and read the answer: True for n (or y/yes), False for anything else or
    the end of input. Only after a game played to its end."""
    if session.view.phase != "game_over":
        return False
    who = deals(session.players[next_dealer], next_dealer == session.seat)
    return await ask_next(REMATCH_KEYS["local"].format(deals=who), inp=inp, out=out)


def command_for(view: Game, move: Action, numbers: Sequence[int] | None = None) -> str:
    """The line that plays ``move`` (what :func:`parse_command` reads back, given the same
    ``numbers``)."""

    def card(slot: int) -> str:
        f = view.faces[slot]
        return name(f) if f is not None else "?"

    if isinstance(move, DrawPile | BonusDraw):
        return "d"
    if isinstance(move, TakeRow):
        return f"t {move.index + 1}"
    if isinstance(move, Lay | LateLay):
        return f"l {card(move.a)} {card(move.b)}"
    if isinstance(move, Upgrade):
        return f"u {card(move.slot)} #{move.match_id} {'ab'[move.covers]}"
    if isinstance(move, Discard):
        return f"x {card(move.slot)}"
    if isinstance(move, BonusMark):
        return str(_numbers(view.n, numbers)[move.target])
    if isinstance(move, BonusSwap):
        return f"w #{move.give} #{move.take}"
    if isinstance(move, SkipBonus):
        return "s"
    return "e"


async def hint_text(view: Game, seat: int, players: list[str],
                    samples: int | None = None, numbers: Sequence[int] | None = None) -> str:
    """The ``hint`` command: the strong bot's suggestion for this decision with its
    reason (:func:`splitnet.games.split.bots.search.suggest`, on a copy of this seat's own view, R8,
    thought about off the event loop) and the command that plays it."""
    from splitnet.games.split.bots.search import suggest

    try:
        action, reason = await asyncio.to_thread(suggest, view.clone(), seat, names=players,
                                                 samples=samples)
    except ValueError:
        return "No decision is yours to make now."
    return f"Hint: {reason} — type: {command_for(view, action, numbers)}"


def last_results(log: list[str]) -> str:
    """The last round's end as the log told it (the full screen's ``r``)."""
    starts = [i for i, line in enumerate(log) if " over: " in line
              and line.startswith("Round ")]
    if not starts:
        return "No round has ended yet."
    out = [log[starts[-1]]]
    for line in log[starts[-1] + 1:]:
        if not line.startswith("  "):
            break
        out.append(line)
    return "\n".join(out)


def hand_text(view: Game, seat: int) -> str:
    return " ".join(pretty(f) for s in sorted(view.hands[seat], key=lambda x: view.faces[x] or 0)
                    if (f := view.faces[s]) is not None and rank(f) >= 0)
