"""Drawing the table: each region as lines of styled fragments for a given width.

Pure functions of the :class:`~splitnet.ui.tui.model.TableModel` (plus click handlers that
call back into the app). Widths are counted in terminal cells; the suit symbols are one
cell wide.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import partial
from typing import Protocol

from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.mouse_events import MouseEvent, MouseEventType
from prompt_toolkit.utils import get_cwidth

from splitnet.cards import is_red, pretty
from splitnet.games.split.rules import Game, Match, Pad
from splitnet.games.split.rules.scoring import live, marks_now, pad_points, signed
from splitnet.games.split.rules.settings import ROWS
from splitnet.ui.tui.model import KIND_LETTER, TableModel

Line = StyleAndTextTuples
ROW_NAMES = {"perfect": "Perfect", "strong": "Strong", "weak": "Weak", "negative": "Negative"}
SHORT_ROW = {"perfect": "P", "strong": "S", "weak": "W", "negative": "N"}
MID_ROW = {"perfect": "Perf", "strong": "Str", "weak": "Weak", "negative": "Neg"}


class Ui(Protocol):
    """What a click may do (the app implements it)."""

    def press(self, key: str) -> None: ...
    def chatting(self) -> bool: ...
    def click_hand(self, index: int) -> None: ...
    def click_row(self, index: int) -> None: ...
    def click_half(self, match_id: int, half: int) -> None: ...
    def click_seat(self, seat: int) -> None: ...


#: the keys line while the chat line is being typed (the table's keys type letters there)
CHAT_KEYS = (("Enter", "send"), ("Esc", "cancel"))


def on_click(fn: Callable[[], None]) -> Callable[[MouseEvent], object]:
    def handler(ev: MouseEvent) -> object:
        if ev.event_type == MouseEventType.MOUSE_UP:
            fn()
            return None
        return NotImplemented

    return handler


# ---------------------------------------------------------------------- line helpers
def width_of(line: Line) -> int:
    return sum(get_cwidth(f[1]) for f in line)


def fit(line: Line, width: int, fill: str = "") -> Line:
    """Cut a line to ``width`` cells (ending in …) or pad it with spaces in style ``fill``."""
    out: Line = []
    used = 0
    for frag in line:
        w = get_cwidth(frag[1])
        if used + w <= width:
            out.append(frag)
            used += w
            continue
        room = width - used - 1
        text = ""
        for ch in frag[1]:
            if get_cwidth(text + ch) > room:
                break
            text += ch
        if len(frag) == 3:
            out.append((frag[0], text + "…", frag[2]))
        else:
            out.append((frag[0], text + "…"))
        used += get_cwidth(text) + 1
        break
    if used < width:
        out.append((fill, " " * (width - used)))
    return out


def right(line: Line, tail: Line, width: int, fill: str = "") -> Line:
    """``line`` on the left, ``tail`` flush right, within ``width`` cells."""
    tw = width_of(tail)
    if tw >= width:
        return fit(tail, width, fill)
    return fit(line, width - tw, fill) + tail


def suit_style(face: int | None) -> str:
    if face is None:
        return "class:card.hidden"
    return "class:card.red" if is_red(face) else "class:card.black"


def card_frags(face: int | None, extra: str = "", width: int = 3) -> Line:
    """A half as rank + suit symbol in its colour, right-aligned in ``width`` cells."""
    text = pretty(face) if face is not None else "▒▒"
    pad = " " * max(0, width - get_cwidth(text))
    return [(extra, pad), (f"{suit_style(face)} {extra}", text)]


def card_cell(face: int | None, extra: str, cursor: bool, bracket_style: str,
              click: Callable[[MouseEvent], object] | None = None) -> Line:
    """A card in a 5-cell slot: ``  7♥ `` / `` 10♥ ``, with the cursor ``[7♥]``."""
    text = pretty(face) if face is not None else "▒▒"
    pad = " " * max(0, 3 - get_cwidth(text))
    left, rt = ("[", "]") if cursor else (" ", " ")
    frags: Line = [("", pad), (bracket_style, left), (f"{suit_style(face)} {extra}", text),
                   (bracket_style, rt)]
    if click is None:
        return frags
    return [(f[0], f[1], click) for f in frags]


CARD_RE = re.compile(r"(10|[2-9AJQK])([♣♦♥♠])")


def words(text: str, style: str = "") -> Line:
    """Plain words with any card names in them coloured by suit."""
    out: Line = []
    pos = 0
    for m in CARD_RE.finditer(text):
        if m.start() > pos:
            out.append((style, text[pos:m.start()]))
        red = m.group(2) in "♥♦"
        out.append((f"{style} {'class:card.red' if red else 'class:card.black'}", m.group(0)))
        pos = m.end()
    if pos < len(text):
        out.append((style, text[pos:]))
    return out


def wrap(text: str, width: int, rest: int | None = None) -> list[str]:
    """Greedy word wrap: the first line to ``width`` cells, later ones to ``rest``
    (default ``width``); words longer than a line are cut."""
    out: list[str] = []
    for para in text.split("\n"):
        line = ""
        for word in para.split(" "):
            w = max(1, width if not out else rest or width)
            cand = word if not line else line + " " + word
            if get_cwidth(cand) <= w:
                line = cand
                continue
            if line:
                out.append(line)
                w = max(1, rest or width)
            while get_cwidth(word) > w:
                out.append(word[:w])
                word = word[w:]
            line = word
        out.append(line)
    return out


def flow(items: Sequence[Line], width: int, indent: str = " ", sep: str = " ") -> list[Line]:
    """Items laid out left to right, wrapped to ``width`` cells."""
    lines: list[Line] = []
    cur: Line = [("", indent)] if indent else []
    used = len(indent)
    for item in items:
        w = width_of(item)
        if used + len(sep) + w > width and used > len(indent):
            lines.append(cur)
            cur, used = ([("", indent)] if indent else []), len(indent)
        if used > len(indent):
            cur.append(("", sep))
            used += len(sep)
        cur.extend(item)
        used += w
    if used > len(indent) or not lines:
        lines.append(cur)
    return lines


# ---------------------------------------------------------------------- pad drawing
def pad_marks(view: Game, seat: int) -> dict[str, tuple[int, int]]:
    """Per pad row: (marks from finished rounds, marks this round as it stands now).

    During a round "this round" is what R6.3 would mark if the round ended now: the
    bonus marks so far, a box per match in front of the seat, a negative box per card in
    its hand (rules.scoring); once the round is scored the marks are all on the pad.
    """
    done = view.marks[seat]
    now = marks_now(view, seat)
    return {r: (done[r], now[r] - done[r]) for r in ROWS}


def pad_total(pad: Pad, marks: dict[str, tuple[int, int]]) -> int:
    """The pad's total as written on it: P + S + W − N, each row's first open box."""
    return pad_points(pad, {r: a + b for r, (a, b) in marks.items()})


def pad_boxes(pad: Pad, row: str, done: int, now: int, cells: int) -> Line:
    """A pad row as boxes: ■ marked, ▣ marked this round, □ open; the first open box
    (the row's value, R7.2) stands out. Shows a window around it when space is short."""
    n = len(pad.row(row))
    marked = done + now
    first_open = min(marked, n - 1)

    def box(i: int) -> tuple[str, str] | tuple[str, str, Callable[[MouseEvent], object]]:
        if i == first_open:
            return ("class:pad.open", "□")
        if i < done:
            return ("class:pad.mark", "■")
        if i < marked:
            return ("class:pad.new", "▣")
        return ("class:pad.box", "□")

    if cells <= 0:
        return []
    if n <= cells:
        return [box(i) for i in range(n)]
    # A window: the first open box with up to two open boxes after it (when there is
    # room), marked boxes before it, ‹ › where boxes are left out.
    if cells < 3:
        return [box(first_open)][:cells]
    more_l: tuple[str, str] = ("class:pad.more", "‹")
    more_r: tuple[str, str] = ("class:pad.more", "›")
    last = min(n - 1, first_open + (2 if cells >= 10 else 0))
    if last <= cells - 2:
        return [*(box(i) for i in range(cells - 1)), more_r]
    if last >= n - 2:
        return [more_l, *(box(i) for i in range(n - (cells - 1), n))]
    start = last + 1 - (cells - 2)
    return [more_l, *(box(i) for i in range(start, last + 1)), more_r]


def mini_pad(pad: Pad, marks: dict[str, tuple[int, int]], width: int) -> list[Line]:
    """Four pad rows in ``width`` cells: label, boxes, value of the first open box."""
    names = MID_ROW if width >= 22 else SHORT_ROW
    lw = max(len(x) for x in names.values()) + 1
    texts = {}
    for r in ROWS:
        value = pad.value(r, sum(marks[r]))
        texts[r] = ("−" if r == "negative" and value else "") + str(value)
    vw = max(4, 1 + max(len(t) for t in texts.values()))
    cells = min(width - lw - vw, max(len(pad.row(r)) for r in ROWS))
    lines = []
    for r in ROWS:
        done, now = marks[r]
        label: Line = [(f"class:pad.label.{r}", names[r].ljust(lw))]
        boxes = pad_boxes(pad, r, done, now, cells)
        lines.append([*fit(label + boxes, lw + cells),
                      (f"class:pad.value.{r}", texts[r].rjust(vw))])
    return lines


def paper_pad(pad: Pad, before: dict[str, int], now: dict[str, int], width: int,
              names: dict[str, str] = ROW_NAMES) -> list[Line]:
    """The pad as printed: every box with its value; crossed boxes are marked (this
    round's in a second colour); the first open box is framed. Wraps long rows."""
    lines: list[Line] = []
    lw = max(len(x) for x in names.values()) + 1 if names is not ROW_NAMES else 10
    for r in ROWS:
        values = pad.row(r)
        marked = before[r] + now[r]
        first_open = min(marked, len(values) - 1)
        cells: Line = []
        for i, v in enumerate(values):
            if i == first_open:
                cells.append(("class:pad.open", f"[{v}]".rjust(5)))
            elif i < before[r]:
                cells.append(("class:pad.mark", f"{v}✗".rjust(5)))
            elif i < marked:
                cells.append(("class:pad.new", f"{v}✗".rjust(5)))
            else:
                cells.append(("class:pad.box", f"{v}".rjust(4) + " "))
        per = max(1, (width - lw) // 5)
        for j in range(0, len(cells), per):
            label = names[r] if j == 0 else ""
            lines.append([(f"class:pad.label.{r}", label.ljust(lw)), *cells[j:j + per]])
    return lines


# ---------------------------------------------------------------------- the painter
class Painter:
    def __init__(self, model: TableModel, ui: Ui, title: str = "splitnet") -> None:
        self.m = model
        self.ui = ui
        self.title = title
        #: lines the seats region may use at most, worked out by the layout (None: any)
        self.seat_room: int | None = None

    # -- title bar ---------------------------------------------------------
    def title_bar(self, width: int, height: int | None) -> list[Line]:
        m, view = self.m, self.m.view
        info = ""
        if view.round_no:
            info = (f"Round {view.round_no}/{view.settings.rounds} · Dealer "
                    f"{m.name(view.dealer)} · Pile {view.pile_count}")
        status = f" {m.session.status} " if m.session.status else ""
        tail: Line = [("class:title.status", status)]
        if m.busy:
            tail = [("class:title", " … "), *tail]
        room = width - width_of(tail) - len(info) - 2
        say = " · totals: if the round ended now"
        if info and live(view) and room >= len(say) + len(self.title) + 3:
            info += say  # what "now" beside each total means
            room -= len(say)
        title = f" {self.title} ·" if room >= len(self.title) + 3 else ""
        return [right([("class:title", f"{title} {info}")], tail, width, "class:title")]

    # -- seats: name, hand size, pad, matches ------------------------------
    def seats(self, width: int, height: int | None) -> list[Line]:
        view = self.m.view
        n = view.n
        w = max(8, (width - (n - 1)) // n)
        room = height if height is not None else self.seat_room
        body = None if room is None else max(0, room - 6)
        # Room to spare (a tall terminal): every pad as printed, each box with its value.
        own = max((sum(1 for mt in view.matches if mt.owner == s) for s in range(n)), default=0)
        paper = w >= 30 and room is not None and room >= 2 + self._paper_lines(w) + own
        cols = [self.seat_column(s, w, body, paper) for s in range(n)]
        rows = max(len(c) for c in cols)
        lines: list[Line] = []
        for i in range(rows):
            line: Line = []
            for s, col in enumerate(cols):
                if s:
                    line.append(("class:sep", "│"))
                line += fit(col[i] if i < len(col) else [], w)
            lines.append(fit(line, width))
        return lines

    def _paper_lines(self, w: int) -> int:
        zero = dict.fromkeys(ROWS, 0)
        return len(paper_pad(self.m.view.settings.pad, zero, zero, w - 1, MID_ROW))

    def seat_column(self, s: int, w: int, body: int | None, paper: bool = False) -> list[Line]:
        m, view = self.m, self.m.view
        legal = m.legal()
        current = view.actor == s
        you = s == m.seat
        head_style = "class:seat.current" if current else (
            "class:seat.you" if you else "class:seat")
        num_style = "class:seat.target" if s in legal.marks else head_style
        marker = "▶" if current else " "
        name = m.players[s] + (" (you)" if you and w >= 16 and m.players[s] != "You" else "")
        head: Line = [(head_style, marker), (num_style, f"{m.number(s)}",
                                             on_click(lambda: self.ui.click_seat(s))),
                      (head_style, f" {name}")]
        badge: Line = [("class:seat.dealer", " D ")] if view.dealer == s else []
        lines = [right(head, badge, w, head_style)]
        marks = pad_marks(view, s)
        total = pad_total(view.settings.pad, marks)
        cards = len(view.hands[s])
        noun = (" card" if cards == 1 else " cards") if w >= 15 else "c"
        # The total as the round would score if it ended now ("now"), else the pad's.
        now = "now " if live(view) and w >= 17 else "= "
        lines.append(right([("class:seat.info", f" {cards}{noun}")],
                           [("class:seat.total", f"{now}{signed(total)} ")], w))
        if paper:
            before = {r: marks[r][0] for r in ROWS}
            this = {r: marks[r][1] for r in ROWS}
            lines += [[("", " "), *ln] for ln in paper_pad(view.settings.pad, before, this,
                                                           w - 1, MID_ROW)]
            body = None
        else:
            lines += [[("", " "), *ln] for ln in mini_pad(view.settings.pad, marks, w - 2)]
        own = [mt for mt in m.table_order() if mt.owner == s]
        cur = m.table_cursor
        at = next((i for i, mt in enumerate(own) if cur and mt.id == cur[0]), 0)
        if body is not None and len(own) > body and w >= 19:
            # Short of lines: two matches a line, in the compact form.
            per = (w + 1) // 10
            mlines = []
            for i in range(0, len(own), per):
                line: Line = []
                for j, mt in enumerate(own[i:i + per]):
                    line += ([("", " ")] if j else []) + self.match_frags(mt, "compact")
                mlines.append(line)
            at //= per
        else:
            form = "wide" if w >= 16 else "narrow"
            mlines = [self.match_frags(mt, form) for mt in own]
        if body is not None and len(mlines) > body:
            mlines = self._window(mlines, at, body)
        return lines + mlines

    def _window(self, mlines: list[Line], at: int, body: int) -> list[Line]:
        """``body`` lines of ``mlines`` keeping line ``at`` (the table cursor) in view."""
        if body <= 0:
            return []
        start = max(0, min(at - body + 2, len(mlines) - body + 1))
        shown = mlines[start:start + body - 1]
        rest = len(mlines) - start - len(shown)
        more = f" +{rest} more" if rest else ""
        before = f" {start} above" if start else ""
        return [*shown, [("class:dim", " " + ((before + more).strip() or "…"))]]

    def match_frags(self, mt: Match, form: str) -> Line:
        """A match: id, type letter, the two visible halves. ``wide`` ``#3 S  9♦  [9♥]``,
        ``narrow`` ``3 S 9♦ 9♥``, ``compact`` `` 3S 9♦ 9♥`` (9 cells)."""
        m, view = self.m, self.m.view
        legal = m.legal()
        covers = legal.covers(m.focus_slot()) if view.actor == m.seat else frozenset()
        swap_ids = set(m.swap_choices()[1]) if m.swapping() else set()
        id_style = "class:match.id"
        if mt.id == m.marked_match:
            id_style = "class:match.marked"
        elif mt.id in swap_ids:
            id_style = "class:match.swappable"
        first = on_click(partial(self.ui.click_half, mt.id, 0))
        letter = KIND_LETTER[mt.kind]
        kind_style = f"class:kind.{mt.kind}"
        # In the weak bonus's choice a match shows the number to type instead of its id.
        choice = m.swap_number(mt.id)
        ident = f"#{mt.id}" if choice is None else f"{choice}▸"
        if choice is not None:
            id_style = "class:match.choice"
        line: Line
        if form == "wide":
            line = [(id_style, ident.rjust(3), first), (kind_style, f" {letter}", first)]
        elif form == "narrow":
            line = [(id_style, ident.lstrip("#"), first), (kind_style, f" {letter} ", first)]
        else:
            ident = ident.lstrip("#")
            pad = " " * max(0, 2 - len(ident))
            line = [("", pad), (id_style, ident, first), (kind_style, letter, first)]
        for h in (0, 1):
            slot = mt.top[h]
            focus = m.table_cursor == (mt.id, h) and m.area == "table"
            extra = "class:target" if (mt.id, h) in covers else ""
            click = on_click(partial(self.ui.click_half, mt.id, h))
            if form == "wide":
                if focus:
                    extra += " class:cursor"
                line += card_cell(view.faces[slot], extra, focus, "class:cursor", click)
                continue
            if focus:
                extra += " reverse"
            line += [(f[0], f[1], click) for f in card_frags(view.faces[slot], extra)]
            if form == "narrow":
                line.append(("", " ", click))
        if mt.under and form == "wide":
            line.append(("class:dim", f" ↑{len(mt.under)}"))
        if mt.id == m.marked_match and form != "compact":
            line.append(("class:match.marked", "⇄"))
        return line

    # -- discard row -------------------------------------------------------
    def row(self, width: int, height: int | None) -> list[Line]:
        m, view = self.m, self.m.view
        legal = m.legal()
        focus = m.area == "row"
        head_style = "class:header.focus" if focus else "class:header"
        take = " · ✚ = you may take it (t)" if legal.takeable else ""
        head: Line = [(head_style, f" Discard row {len(view.row)} · oldest → newest{take}")]
        pile: Line = [(head_style, " Draw pile: "),
                      ("class:header.pile", f"{view.pile_count}",
                       on_click(lambda: self.ui.press("d"))), (head_style, " ")]
        lines = [right(head, pile, width, head_style)]
        per = max(1, width // 5)
        cells = list(enumerate(view.row))
        if not cells:
            return [*lines, [("class:dim", "  (empty)")], []]
        for j in range(0, len(cells), per):
            nums: Line = []
            cards: Line = []
            for i, slot in cells[j:j + per]:
                can = i in legal.takeable
                cur = i == m.row_cursor
                click = on_click(partial(self.ui.click_row, i))
                mark = "✚" if can else " "
                num_style = "class:row.take" if can else "class:row.num"
                nums += [(num_style, f"{mark}{i + 1}".rjust(4) + " ", click)]
                extra = "class:takeable" if can else ""
                bstyle = "class:cursor" if focus else "class:cursor.dim"
                cards += card_cell(view.faces[slot], extra, cur, bstyle, click)
            lines += [nums, cards]
        return lines

    # -- your hand ---------------------------------------------------------
    def hand(self, width: int, height: int | None) -> list[Line]:
        m, view = self.m, self.m.view
        legal = m.legal()
        focus = m.area == "hand"
        head_style = "class:header.focus" if focus else "class:header"
        order = m.hand_order()
        mine = view.actor == m.seat
        playable = legal.playable if mine else frozenset()
        partners: frozenset[int] = frozenset()
        if mine and len(m.selected) == 1:
            partners = legal.partners(m.selected[0])
        picked = view.picked if view.phase == "must_play" else None
        hint = f" · {m.playable_word()} = can be played now" if playable else ""
        how = "letters kept this turn" if m.letters_frozen() else "sorted by rank"
        head: Line = [(head_style, f" Your hand {len(order)} · {how}{hint}")]
        sel = f"selected: {' '.join(m.card(s) for s in m.selected)} " if m.selected else ""
        lines = [right(head, [(head_style, sel)], width, head_style)]
        if not order:
            return [*lines, [("class:dim", "  (no cards)")], []]
        per = max(1, width // 5)
        for j in range(0, len(order), per):
            labels: Line = []
            cards: Line = []
            for i in range(j, min(j + per, len(order))):
                slot = order[i]
                click = on_click(partial(self.ui.click_hand, i))
                selected = slot in m.selected
                label = m.letter(slot)
                lstyle = ("class:label.selected" if selected else
                          "class:label.play" if slot in playable else "class:label")
                labels += [("", "  ", click), (lstyle, label, click), ("", "  ", click)]
                extra = ("class:selected" if selected else
                         "class:picked" if slot == picked else
                         "class:partner" if slot in partners else
                         "class:playable" if slot in playable else "")
                cur = i == m.hand_cursor and focus
                cards += card_cell(view.faces[slot], extra, cur, "class:cursor", click)
            lines += [labels, cards]
        return lines

    # -- log and chat ------------------------------------------------------
    def log_header(self, width: int, height: int | None) -> list[Line]:
        back = self.m.log_back
        head: Line = [("class:header", " Log")]
        if back:
            head.append(("class:header.key", f"  ↑ {back} newer hidden — PgDn"))
        tail: Line = [("class:header", " say › "),
                      ("class:header.key", "c", on_click(lambda: self.ui.press("c"))),
                      ("class:header", " to chat · "),
                      ("class:header.key", "r", on_click(lambda: self.ui.press("r"))),
                      ("class:header", " last results ")]
        return [right(head, tail, width, "class:header")]

    def log(self, width: int, height: int | None) -> list[Line]:
        """The newest lines of ``session.log`` that fit, oldest at the top."""
        room = 4 if height is None else height
        out: list[Line] = []
        log = self.m.session.log
        self.m.log_back = max(0, min(self.m.log_back, len(log) - 1))
        for text in reversed(log[:len(log) - self.m.log_back]):
            if len(out) >= room:
                break
            style = "class:log.you" if text.startswith(("You ", "You:")) else (
                "class:log.round" if text.startswith("Round") else "class:log")
            wrapped = wrap(text, max(1, width - 1))
            out = [[("", " "), *words(t, style)] for t in wrapped] + out
        out = out[-room:] if room else []
        return [[] for _ in range(room - len(out))] + out

    # -- what to do now and the keys --------------------------------------
    def status(self, width: int, height: int | None) -> list[Line]:
        m = self.m
        note = m.note
        if m.confirm_quit:
            back = (" (the same command brings you back)" if m.rejoin else "")
            text = f"Leave the game{back}? q or Ctrl-C again quits, any other key stays."
            style = "class:note.error"
        elif m.confirm_open is not None:
            text, style = m.confirm_open_text(), "class:note.error"
        elif m.confirm is not None:
            text, style = m.confirm.text, "class:note.error"
        elif note is not None:
            text, style = note.text, f"class:note.{note.kind}"
        elif m.hint is not None:  # the h key's advice stays until the player moves
            note = m.hint
            text, style = note.text, f"class:note.{note.kind}"
        else:
            style = "class:ask.you" if m.my_turn() else "class:ask"
            text = m.instruction()
        keys: Line = []
        if self.ui.chatting():  # the keys go to the chat line: only its own keys work
            for key, what in CHAT_KEYS:
                keys += [("", " "), ("class:key", key), ("class:key.what", f" {what} ")]
        else:
            for key, what in m.key_hints():
                click = on_click(partial(self.ui.press, key))
                keys += [("", " "), ("class:key", key, click),
                         ("class:key.what", f" {what} ", click)]
        if get_cwidth(text) + 1 > width and (note is not None or m.confirm is not None
                                             or m.confirm_open is not None):
            # A long message (a hint, a refusal) takes the keys' line for a moment.
            two = wrap(text, width - 1, width - 3)
            if len(two) > 1:
                rest = " ".join(two[1:])
                return [fit(words(" " + two[0], style), width),
                        fit(words("   " + rest, style), width)]
        return [fit(words(" " + text, style), width), fit(keys, width)]
