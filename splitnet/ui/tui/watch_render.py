"""Drawing the spectator table (``splitnet watch``): the whole screen as lines of styled
fragments for a width and height, a pure function of the
:class:`~splitnet.ui.tui.watch_model.WatchModel` — the title with the watcher's state,
the seats (hand counts face down, pads, matches, who is thinking), the game's public
areas, the log, the keys; the help; the end screen (the results, each round's audit,
the transcript's path) or a bad record's verdict naming the seat."""

from __future__ import annotations

from splitnet.text import shown
from splitnet.ui.tui.render import fit, flow, right, words, wrap
from splitnet.ui.tui.watch_model import Area, Line, SeatFacts, Spectacle, WatchModel

#: the keys, as the bottom line and the help name them
KEYS = (("q", "quit"), ("↑↓ PgUp PgDn", "log"), ("?", "help"), ("Ctrl-L", "redraw"))
#: the log keeps at least this many lines on screen, whatever the table needs
MIN_LOG = 3

HELP = (
    "You are watching: you hold no seat and see only what every player sees (R8, S7).",
    "Every record is checked as it arrives, as splitnet verify checks a transcript: "
    "signatures, the hash chain, every shuffle and decryption proof, every move.",
    "",
    "The seats: each hand face down with its count (▒▒), the score (Split: the pad and "
    "its total if the round ended now; Splito: left zone × right zone), ▶ the player "
    "the game waits for, D the dealer, and after known: the cards of a hand everyone "
    "knows (taken from the discard row; an open-handed seat's, R8.6).",
    "The table: Split's discard row, draw pile and each seat's matches; Splito's central "
    "objectives, every zone with its cards, objectives (✓ fulfilled now) and points, "
    "and the last turn's plays revealed.",
    "The log: every move as the table tells it, each round's audit.",
    "",
    "At the end: the results, each round's audit and the path of the saved transcript "
    "(splitnet verify and splitnet replay read it). A bad record stops the watch with "
    "the verdict naming the seat at fault.",
    "",
    "Keys: q or Ctrl-C quits at once (a watcher leaving harms nobody; run the same "
    "command again to go on) · ↑ ↓ PgUp PgDn Home End or the mouse wheel scroll the "
    "log · ? or Esc closes this help · Ctrl-L draws the screen again.",
)


def title_line(m: WatchModel, width: int) -> Line:
    table = m.table
    what = f"splitnet watch · {table.title}" if table is not None else m.heading
    bad = m.ending is not None and not m.ending.ok
    tail: Line = [("class:verdict.bad" if bad else "class:title.status", f" {m.status} ")]
    return right([("class:title", f" {what}")], tail, width, "class:title")


def _seat_head(s: SeatFacts, width: int) -> Line:
    style = "class:seat.current" if s.thinking else "class:seat"
    head: Line = [(style, ("▶" if s.thinking else " ") + s.name)]
    badge: Line = []
    for tag in s.tags:
        badge += [("class:seat.dealer" if tag == "dealer" else "class:seat.info",
                   " D " if tag == "dealer" else f" {tag}")]
    return right(head, badge, width, style)


def _cards(s: SeatFacts) -> Line:
    noun = "card" if s.cards == 1 else "cards"
    return [("class:seat.info", f" {s.cards} {noun} "), ("class:card.hidden",
                                                         "▒" * min(s.cards, 3))]


def seat_column(s: SeatFacts, width: int, room: int | None) -> list[Line]:
    lines = [_seat_head(s, width),
             right(_cards(s), [("class:seat.total", f"{s.score} ")], width)]
    if s.open_cards:
        lines.append([("class:seat.info", " known:"), *s.open_cards])
    if s.pad is not None:
        lines += [[("", " "), *ln] for ln in s.pad(width - 1)]
    front = list(s.front)
    if room is not None and len(front) > room:
        keep = max(0, room - 1)
        front = [*front[:keep], [("class:dim", f" +{len(s.front) - keep} more")]]
    return lines + front


def seats_lines(table: Spectacle, width: int, room: int | None = None) -> list[Line]:
    """The seats side by side (a column each), or a line each when the columns would be
    too narrow (many seats, a narrow terminal)."""
    n = len(table.seats)
    if not n:
        return []
    w = (width - (n - 1)) // n
    if w < 16:
        return [right(_seat_head(s, min(24, width // 3)) + _cards(s),
                      [("class:seat.total", f"{s.score} ")], width) for s in table.seats]
    cols = [seat_column(s, w, room) for s in table.seats]
    rows = max(len(c) for c in cols)
    out: list[Line] = []
    for i in range(rows):
        line: Line = []
        for k, col in enumerate(cols):
            if k:
                line.append(("class:sep", "│"))
            line += fit(col[i] if i < len(col) else [], w)
        out.append(fit(line, width))
    return out


def area_lines(a: Area, width: int) -> list[Line]:
    head = right([("class:header", f" {a.title}")],
                 [("class:header", f" {a.tail} " if a.tail else " ")], width, "class:header")
    return [head, *(fit(ln, width) for ln in flow(a.items, width, sep="  "))]


def table_lines(table: Spectacle | None, width: int, room: int | None = None,
                started: bool = False) -> list[Line]:
    if table is None:
        what = ("this game draws no table for a watcher: its log is below" if started
                else "waiting for the game's first record…")
        return [[("class:dim", f" {what}")]]
    out = seats_lines(table, width, room)
    for a in table.areas:
        out += area_lines(a, width)
    if table.progress:
        out.append(fit(words(f" ▶ {table.progress}", "class:ask.you"), width))
    return out


def end_lines(m: WatchModel, width: int) -> list[Line]:
    e = m.ending
    assert e is not None
    style = "class:verdict" if e.ok else "class:verdict.bad"
    head = "The game is over" if e.ok else "The watch stopped"
    out: list[Line] = [fit([("class:results.head", f" {head}")], width, "class:results.head")]
    for text in e.lines:
        out += [fit(words(" " + ln, style), width) for ln in wrap(text, width - 1, width - 3)]
    if e.audits:
        out.append(fit([("class:header", " Each round's audit")], width, "class:header"))
        out += [fit(words(" " + ln, "class:verdict"), width) for a in e.audits
                for ln in wrap(a, width - 1, width - 3)]
    if e.path is not None:
        path = shown(str(e.path), limit=400)
        if len(path) + 13 <= width:
            out.append(fit([("", " Transcript: "), ("class:lobby.code", path)], width))
        else:  # the whole path, over as many lines as it takes: it is to be copied
            out.append([("", " Transcript:")])
            step = max(1, width - 2)
            out += [[("", " "), ("class:lobby.code", path[i:i + step])]
                    for i in range(0, len(path), step)]
        out.append(fit([("class:dim", " (splitnet verify and splitnet replay read it)")],
                       width))
    out.append(fit([("class:ask.you", " q quits")], width))
    return out


def help_lines(width: int) -> list[Line]:
    out: list[Line] = [fit([("class:help.head", " Watching a game")], width, "class:help.head")]
    for para in HELP:
        out += [fit([("", " " + ln)], width) for ln in wrap(para, width - 2)]
    return out


def log_lines(m: WatchModel, width: int, room: int) -> list[Line]:
    """The log's newest lines that fit (``m.log_back`` of them scrolled away), oldest at
    the top, under a header saying how many newer ones are out of view."""
    back = m.log_back
    head: Line = [("class:header", " Log")]
    if back:
        head.append(("class:header.key", f"  ↓ {back} newer — PgDn"))
    room -= 1
    out: list[Line] = []
    for text in reversed(m.log[:len(m.log) - back]):
        if len(out) >= room:
            break
        style = "class:log.round" if text.startswith("Round") else "class:log"
        out = [[("", " "), *words(t, style)] for t in wrap(text, max(1, width - 1))] + out
    out = out[-room:] if room > 0 else []
    return [fit(head, width, "class:header"), *out, *([[]] * (room - len(out)))]


def keys_line(width: int) -> Line:
    line: Line = []
    for key, what in KEYS:
        line += [("", " "), ("class:key", key), ("class:key.what", f" {what} ")]
    return fit(line, width)


def screen_lines(m: WatchModel, width: int, height: int) -> list[Line]:
    """The whole screen, exactly ``height`` lines of ``width`` cells."""
    if m.help:
        body = help_lines(width)
    elif m.ending is not None:
        body = end_lines(m, width)
    else:
        body = table_lines(m.table, width, max(0, height // 4), started=bool(m.names))
    room = height - 2  # the title and the keys
    log_room = max(MIN_LOG + 1, room - len(body))
    if room - log_room < len(body):
        body = body[:max(0, room - log_room)]
        if body:
            body[-1] = fit([("class:dim", " … (a taller terminal shows the rest)")], width)
    log = log_lines(m, width, max(0, room - len(body)))
    lines = [title_line(m, width), *body, *log, keys_line(width)]
    return [fit(ln, width) for ln in lines[:height]]
