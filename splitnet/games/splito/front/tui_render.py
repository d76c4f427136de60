"""Drawing the Splito table: the whole screen as lines of styled fragments for a width
and height. Pure functions of the :class:`~splitnet.games.splito.front.tui_model.SplitoModel`
(plus click handlers); every fact shown comes from the engine through
:mod:`splitnet.games.splito.front.table`.

The seed's notation (S1.4): a number card is its colour and value — in colour, the value
on its colour (``5`` on green); without colours (NO_COLOR) ``[G]5``. On objective cards
◇3 is the number 3, and a colour is a white diamond in a coloured frame (``◇`` on red),
written ``[R]`` without colours.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from prompt_toolkit.mouse_events import MouseEvent

from splitnet.games.splito.cards import COLOUR_NAMES, card_order, is_number_card, number_face
from splitnet.games.splito.describe import card_text
from splitnet.games.splito.engine import Game
from splitnet.games.splito.front.table import (
    TableFacts,
    ZoneFacts,
    points_text,
    table_facts,
)
from splitnet.games.splito.front.tui_model import SplitoModel
from splitnet.games.splito.objectives import Objective
from splitnet.ui.tui.render import Line, fit, flow, on_click, width_of, wrap

Click = Callable[[MouseEvent], object]
_TOKEN = re.compile(r"\[([ROYGBP])\]")


# ---------------------------------------------------------------------- cards and marks
def card_frags(card: str | None, mono: bool, style: str = "",
               objectives: Mapping[str, Objective] | None = None, wide: bool = False) -> Line:
    """One card: a number card in its colour (``[G]5`` without colours); an objective
    card by its name when ``objectives`` name it (``Four purples``; wide: ``OBJ23 Four
    purples``), else by its id; an unknown card as ▒▒."""
    if card is None:
        return [(f"class:card.hidden {style}", "▒▒")]
    if is_number_card(card):
        value, colour = number_face(card)
        if mono:
            return [(style, f"[{colour}]{value}")]
        return [(f"class:sc.{colour.lower()} {style}", f"{colour}{value}")]
    obj = objectives.get(card) if objectives is not None else None
    if obj is None:
        return [(f"class:obj {style}", card)]
    return [(f"class:obj {style}", f"{obj.id} {obj.name}" if wide else obj.name)]


def notation(text: str, mono: bool, style: str = "") -> Line:
    """An objective's face in the seed's notation: ``[R]`` becomes a white diamond in a
    red frame (kept as ``[R]`` without colours)."""
    if mono:
        return [(style, text)]
    out: Line = []
    pos = 0
    for m in _TOKEN.finditer(text):
        if m.start() > pos:
            out.append((f"class:num {style}", text[pos:m.start()]))
        out.append((f"class:sc.{m.group(1).lower()} {style}", "◇"))
        pos = m.end()
    if pos < len(text):
        out.append((f"class:num {style}", text[pos:]))
    return out


def diamonds(points: int) -> str:
    """S1.4: an objective's points as small black diamonds."""
    return "◆" * points


# ---------------------------------------------------------------------- regions
def title_line(m: SplitoModel, t: TableFacts, width: int) -> Line:
    turn = f"turn {min(t.turn, t.turns)} of {t.turns}"
    what = ("game over" if m.view.over else "you left the game (S5.7)"
            if m.seat in m.view.gone else "your play" if m.my_play()
            else "committed — waiting" if m.view.committed(m.seat) else "waiting")
    left: Line = [("class:title", f" splitnet · Splito · {turn} ")]
    tail: Line = [("class:title.status", f" {what} ")]
    return fit(left, width - width_of(tail), "class:title") + tail


def central_lines(m: SplitoModel, t: TableFacts, width: int) -> list[Line]:
    items: list[Line] = []
    wide = width >= 110
    for o in t.central:
        item: Line = [("class:obj", o.id), ("", f" {o.name} " if wide or width >= 80 else " "),
                      ("class:pts", diamonds(o.points)), ("", " ")]
        item += notation(o.face, m.mono)
        items.append(item)
    head: Line = [("class:label", "Central objectives (count in every zone):")]
    return flow([head, *items], width, indent=" ", sep="   ")


def _objective_item(line_obj: Objective, fulfilled: bool, central: bool, wide: bool) -> Line:
    """An objective counted in a zone: ✓ or ✗, ★ if central, its name (wide: its id
    and name) and its points — ``✗★Red pair ◆``."""
    mark = ("class:ok", "✓") if fulfilled else ("class:no", "✗")
    item: Line = [mark, ("class:obj", "★" if central else "")]
    if wide:
        item += [("class:obj", line_obj.id), ("", f" {line_obj.name}")]
    else:
        item.append(("class:obj", line_obj.name))
    item.append(("class:pts", " " + diamonds(line_obj.points)))
    return item


def zone_lines(m: SplitoModel, z: ZoneFacts, width: int, *, title: str,
               wide: bool) -> list[Line]:
    """A zone: its title and points (a projection until the end, S6.2), its number
    cards in card order, its objective cards and the central ones, each ✓ fulfilled now
    or ✗ not (S10.2)."""
    now = "" if m.view.over else " now"
    head: Line = [("class:zone.head", f"{title} "), ("class:label", z.label)]
    pts: Line = [("class:zone.pts", f" {points_text(z.points)}{now} ")]
    lines: list[Line] = [fit(head, width - width_of(pts)) + pts]
    numbers = sorted((c for c in z.cards if is_number_card(c)), key=card_order)
    fresh = last_revealed(m.view)
    if numbers:
        lines += flow([card_frags(c, m.mono, "class:new" if c in fresh else "")
                       for c in numbers], width)
    else:
        lines.append([("class:dim", " no number card yet")])
    return lines + flow([_objective_item(o.objective, o.fulfilled, o.source == "central",
                                         wide) for o in z.objectives], width, sep="  ")


def last_revealed(view: Game) -> set[str]:
    """The cards of the last turn's reveal (S5.3), marked where they now lie."""
    if not view.history:
        return set()
    return {f for p in view.history[-1] if (f := view.faces[p.slot]) is not None}


def reveal_lines(m: SplitoModel, width: int) -> list[Line]:
    """The last turn's plays, all at once (S5.3): who put which card to which side."""
    v = m.view
    if not v.history:
        return []
    items: list[Line] = [[("class:label", f"Turn {len(v.history)} revealed:")]]
    for p in v.history[-1]:
        face = v.faces[p.slot]
        items.append([("class:seat.you" if p.seat == m.seat else "class:seat",
                       m.name(p.seat)), ("", f" {p.side} " if width >= 100 else f"→{p.side} "),
                      *card_frags(face, m.mono, "class:new", v.settings.objective_set.by_id)])
    return flow(items, width, sep="  ")


def scores_lines(m: SplitoModel, t: TableFacts, width: int) -> list[Line]:
    label = ("Final scores (left × right, S11.1):" if m.view.over
             else "If the game ended now (left × right, S11.1):")
    items: list[Line] = []
    for s in t.scores:
        style = "class:seat.you" if s.seat == m.seat else "class:seat"
        items.append([(style, m.session.players[s.seat]),
                      ("", f" {s.left}×{s.right}="), ("class:seat.total", str(s.score))])
    items[0] = [("class:label", label + " "), *items[0]]
    return flow(items, width, sep=" · " if width >= 60 else " ")


def commit_line(m: SplitoModel, t: TableFacts, width: int) -> list[Line]:
    v = m.view
    if v.over:
        return []
    what = "commitments" if t.phase.value == "commit" else "reveals"
    items: list[Line] = [[("class:label", f"Turn {t.turn} {what}:")]]
    for s in range(v.n):
        done = s not in t.waiting
        seat = ("class:seat.you" if s == m.seat else "class:seat", m.name(s))
        if s in v.gone:  # S5.7: it plays no more
            items.append([seat, ("class:dim", " left")])
            continue
        items.append([seat, ("class:ok" if done else "class:wait", " ✓" if done else " …")])
    if t.waiting:
        items.append([("class:dim", "(… still missing)")])
    return flow(items, width, sep="  ")


def hand_lines(m: SplitoModel, width: int, click: Callable[[int], Click] | None) -> list[Line]:
    v = m.view
    items: list[Line] = [[("class:label", f"Your hand ({len(v.hands[m.seat])}):")]]
    open_ = m.my_play()
    for label, slot, card in m.labels():
        chosen = slot == m.selected
        style = "class:selected" if chosen else ""
        item: Line = [("class:key" if open_ else "class:dim", label), ("", " ")]
        item += card_frags(card, m.mono, style, v.settings.objective_set.by_id,
                           wide=width >= 110)
        if click is not None:
            handler = click(slot)
            item = [(f[0], f[1], handler) for f in item]
        items.append(item)
    return flow(items, width, sep="  ")


def prompt_line(m: SplitoModel, width: int) -> Line:
    v = m.view
    if m.session.finished:
        again = f"{m.rematch_keys} · " if m.can_rematch() else ""
        return fit([("class:ask", f" The game is over: {again}e the end screen · ? help · "
                     "q quit")], width)
    if m.committed is not None:
        _, card, side = m.committed
        return fit([("class:ask.you", f" Committed: {card_text(v, card)} → {side}"),
                    ("class:ask", " — hidden until every play is in (S7.3)")], width)
    if not m.my_play():
        return fit([("class:ask", " Waiting: " + m.session.status)], width)
    if m.selected is None:
        last = m.labels()[-1][0] if m.labels() else "A"
        chosen = f", side {m.side} chosen" if m.side else ""
        return fit([("class:ask.you", f" Your play: a card A–{last}{chosen}"),
                    ("class:ask", ", then ← left / → right, then Enter · ? help")], width)
    sel = m.selected_text()
    if m.side is None:
        return fit([("class:ask.you", f" {sel}: "),
                    ("class:ask", f"← left ({m.zone_label('left')}) or → right "
                     f"({m.zone_label('right')}) · Esc clears")], width)
    return fit([("class:ask.you", f" {sel} → {m.side} ({m.zone_label(m.side)})"),
                ("class:ask", ": Enter commits (final, S5.2) · Esc clears")], width)


def note_line(m: SplitoModel, width: int) -> Line:
    if m.confirm_quit:
        return fit([("class:note.error", " Leave the table? q again leaves (the game is "
                     "saved); any other key stays")], width)
    if m.note is not None:
        return fit([(f"class:note.{m.note.kind}", " " + m.note.text)], width)
    offer = m.offer_text()
    if offer is not None:
        return fit([("class:note.error" if m.confirm_open is not None else "class:note.hint",
                     " " + offer)], width)
    return fit([("class:dim", " " + (m.session.verdict or m.session.status))], width)


def log_lines(m: SplitoModel, width: int, height: int) -> list[Line]:
    rows: list[Line] = []
    for text in m.session.log:
        style = ("class:log.turn" if text.startswith("Turn ") else
                 "class:log.you" if text.startswith("You ") else "class:log")
        for i, part in enumerate(wrap(text, width - 1, width - 3)):
            rows.append([(style, (" " if i == 0 else "   ") + part)])
    end = max(0, len(rows) - m.log_back)
    return rows[max(0, end - height):end]


# ---------------------------------------------------------------------- the screen
def table_lines(m: SplitoModel, width: int, height: int,
                click: Callable[[int], Click] | None = None) -> list[Line]:
    """The table at ``width`` × ``height``: every region, the log taking what is left."""
    t = table_facts(m.view, m.session.players, m.seat)
    wide = width >= 110
    top: list[Line] = [title_line(m, t, width)]
    top += central_lines(m, t, width)
    if width >= 64:
        col = (width - 1) // 2
        left = zone_lines(m, t.left, col, title="◀ LEFT", wide=wide)
        right = zone_lines(m, t.right, width - col - 1, title="RIGHT ▶", wide=wide)
        for i in range(max(len(left), len(right))):
            a = left[i] if i < len(left) else []
            b = right[i] if i < len(right) else []
            top.append(fit(a, col) + [("class:sep", "│")] + fit(b, width - col - 1))
    else:
        top += zone_lines(m, t.left, width, title="◀ LEFT", wide=False)
        top += zone_lines(m, t.right, width, title="RIGHT ▶", wide=False)
    top += scores_lines(m, t, width)
    top += commit_line(m, t, width)
    top += hand_lines(m, width, click)
    bottom = [prompt_line(m, width), note_line(m, width)]
    room = height - len(top) - len(bottom)
    revealed = reveal_lines(m, width)
    if revealed and room - len(revealed) >= 5:  # the log keeps at least 4 lines
        top += revealed
        room -= len(revealed)
    others: list[Line] = []
    if t.others and room >= 14:  # a big terminal: the rest of the table too
        others.append([("class:label", " The other zones:")])
        for z in t.others:
            zl = zone_lines(m, z, width, title="·", wide=wide)
            if len(others) + len(zl) > room // 2:
                others.append([("class:dim", " … (more zones: a taller terminal shows them)")])
                break
            others += zl
    room -= len(others)
    if room < 3:  # too small: keep the log's last lines and cut the zones' middle
        cut = 3 - room
        keep = max(2, len(top) - cut)
        top = top[:keep]
        room = height - len(top) - len(bottom) - len(others)
    log_head: Line = fit([("class:header", " Log "),
                          ("class:dim", " (PgUp/PgDn scroll)" if m.log_back == 0
                           else f" ({m.log_back} back · PgDn)")], width, "class:header")
    logs = log_lines(m, width, max(0, room - 1))
    body = [*top, *others, log_head, *logs]
    body += [[]] * max(0, height - len(body) - len(bottom))
    return [fit(line, width) for line in [*body[:height - len(bottom)], *bottom]]


# ---------------------------------------------------------------------- help
KEYS = [
    ("A–Z", "choose a card of your hand by its letter (again: unchoose); the letters are "
            "fixed for the whole turn"),
    ("← / l", "put it in your LEFT zone (the one you share with your left neighbour)"),
    ("→ / r", "put it in your RIGHT zone"),
    ("Enter", "commit the play — final (S5.2) and hidden until every player has "
              "committed (S7.3)"),
    ("Esc", "clear the choice (at once)"),
    ("PgUp/PgDn", "scroll the log"),
    ("e", "the end screen (after the game)"),
    ("o", "the host: give up a player the game has waited for, disconnected, 30 s or "
          "more (o twice): they leave the game and the others play on (S5.7)"),
    ("n", "after the game: a new game against the same players in the same seats, the "
          "deal passed left (S4.1); on a LAN the host offers it and everyone must agree"),
    ("?", "this help (Esc closes, ↑↓ scroll)"),
    ("q", "leave: asks first during a game (Ctrl-C is the same); the game is saved"),
    ("Ctrl-L", "draw the whole screen again (if another program wrote over it)"),
]

RULES = (
    "Splito (docs/SPLITO.md). Every turn everyone at once chooses one card of their hand "
    "and a side; when all have committed, the plays are revealed together and each card "
    "lies face up in the zone between its player and that neighbour (S5.2–S5.3). Then "
    "every hand passes to the left neighbour (S5.4). After the last turn each zone scores "
    "the objective cards lying in it and the two central objectives that its number "
    "cards fulfil (S10.2) — for both its neighbours — and your score is your left zone "
    "× your right zone (S11.1): a zone worth 0 makes 0. The highest score wins; a tie "
    "goes to fewer cards in one's two zones (S11.3). An objective in a zone is only a "
    "claim: ✓ means fulfilled now, and it still has to be at the end (S6.2). Telling "
    "others what you hold or want is not allowed (S5.5).")


def legend(mono: bool) -> list[Line]:
    out: list[Line] = [[("class:help.head", " The seed's notation (S1.4) ")]]
    colours: Line = [("", " Colours: ")]
    for c, nm in COLOUR_NAMES.items():
        colours += card_frags(f"{c}5a", mono) + [("", f" {nm}  ")]
    out.append(colours)
    out.append([("", " On objective cards: ")] + notation("◇3", mono)
               + [("", " the number 3 · ")] + notation("[R]", mono)
               + [("", " a card of colour red (R) · x, y: any values · c, d: any colours · "
                   "◆ a point · ★ a central objective")])
    return out


def objective_lines(o: Objective, width: int, mono: bool) -> list[Line]:
    head: Line = [("class:obj", f" {o.id}"), ("", f" {o.name}  "),
                  ("class:pts", diamonds(o.points)),
                  ("", f" {o.points} point{'s' if o.points != 1 else ''}  ")]
    head += notation(o.face, mono)
    text: list[Line] = [[("", "     " + part)] for part in wrap(o.text, width - 6)]
    return [fit(head, width), *text]


def help_lines(m: SplitoModel, width: int) -> list[Line]:
    v = m.view
    out: list[Line] = [[("class:help.head", " Keys ")]]
    for k, what in KEYS:
        parts = wrap(what, max(10, width - 14))
        out.append([("class:key", f" {k:9} "), ("", " " + parts[0])])
        out += [[("", " " * 12 + p)] for p in parts[1:]]
    out.append([])
    out.append([("class:help.head", " The game ")])
    out += [[("", " " + p)] for p in wrap(RULES, width - 2)]
    out.append([])
    out += legend(m.mono)
    by_id = v.settings.objective_set.by_id
    seen: list[str] = []
    groups: list[tuple[str, list[str]]] = [
        ("The central objectives (S4.2)", list(v.central)),
        ("Objectives in your hand", [c for _, _, c in m.labels() if c is not None
                                     and c in by_id]),
        ("Objectives in the zones", [c for z in range(len(v.zones))
                                     for c in v.zone_cards(z) if c in by_id]),
        ("Every objective card (S9.4)", list(by_id)),
    ]
    for title, ids in groups:
        ids = [c for c in ids if c not in seen]
        if not ids:
            continue
        out.append([])
        out.append([("class:help.head", f" {title} ")])
        for c in ids:
            seen.append(c)
            out += objective_lines(by_id[c], width, m.mono)
    return out


# ---------------------------------------------------------------------- the end
def end_lines(m: SplitoModel, width: int) -> list[Line]:
    """The end screen: the winner, every player's score written out, every zone's
    objectives that scored (S10–S11), the audit's verdict, the game turn by turn."""
    v: Game = m.view
    players = m.session.players
    out: list[Line] = []
    if v.over:
        winners = v.winners()
        names = " and ".join("You" if w == m.seat else players[w] for w in winners)
        verb = "win" if len(winners) > 1 or winners[0] == m.seat else "wins"
        out.append([("class:results.head", f" {names} {verb} with "
                     f"{v.scores()[winners[0]].score} ")])
        if m.can_rematch():  # what comes next, near the top where it is seen
            assert m.rematch_keys is not None
            out += [[("class:ask.you", (" " if i == 0 else "   ") + t)]
                    for i, t in enumerate(wrap(f"{m.rematch_keys} · q quits", width - 2,
                                               width - 4))]
        out.append([])
        for s in sorted(v.scores(), key=lambda x: (-x.score, x.cards_in_zones, x.seat)):
            style = "class:results.you" if s.seat == m.seat else "class:results.player"
            out.append([(style, f" {players[s.seat]:14}"),
                        ("", f" left {s.left_points} × right {s.right_points} = "),
                        ("class:results.stand", str(s.score)),
                        ("class:dim", f"   ({s.cards_in_zones} cards in the two zones, "
                                      "S11.3)")])
        out.append([])
        by_id = v.settings.objective_set.by_id
        for z in range(len(v.zones)):
            results = v.zone_results(z)
            scored = [r for r in results if r.fulfilled]
            from splitnet.games.splito.describe import zone_name

            label = zone_name(v, players, z, m.seat)
            sums = " + ".join(f"{'★' if r.source == 'central' else ''}{r.objective} "
                              f"{by_id[r.objective].name} {r.points}" for r in scored)
            total = points_text(sum(r.points for r in scored))
            text = f"{label}: {sums or 'nothing fulfilled'} = {total}"
            parts = wrap(text, width - 2, width - 4)
            out.append([("class:seat", " " + parts[0])])
            out += [[("", "   " + p)] for p in parts[1:]]
    if m.session.verdict:
        out.append([])
        bad = m.session.verdict.startswith("game stopped")
        out += [[("class:verdict.bad" if bad else "class:verdict", " " + part)]
                for part in wrap(m.session.verdict, width - 2)]
    story = [line for line in m.session.log if line.startswith("Turn ")]
    if story:
        out.append([])
        out.append([("class:help.head", " The game, turn by turn ")])
        for text in story:
            parts = wrap(text, width - 2, width - 4)
            out.append([("", " " + parts[0])])
            out += [[("", "   " + p)] for p in parts[1:]]
    out.append([])
    again = "n the next game · " if m.can_rematch() else ""
    out.append([("class:dim", f" {again}Esc the table · ↑↓ scroll · q quit")])
    return out


def overlay_lines(m: SplitoModel, width: int, height: int) -> list[Line]:
    lines = help_lines(m, width) if m.overlay == "help" else end_lines(m, width)
    m.scroll = max(0, min(m.scroll, len(lines) - height))
    shown = lines[m.scroll:m.scroll + height]
    return [fit(line, width) for line in shown] + [fit([], width)] * (height - len(shown))


def click_card(m: SplitoModel, press: Callable[[str], None]) -> Callable[[int], Click]:
    """A click on a hand card presses its letter."""
    def for_slot(slot: int) -> Click:
        label = next((lb for lb, s, _ in m.labels() if s == slot), None)
        return on_click(lambda: press(label) if label else None)
    return for_slot
