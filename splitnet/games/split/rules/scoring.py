"""Scores as a player reads them (R6.3, R7): the standing if the round ended now, and a
pad's points row by row.

Pure functions of a :class:`~splitnet.games.split.rules.engine.Game` (any seat's view: they use only
what every seat knows — the matches on the table and how many cards each hand holds).
The bots judge who leads with the same :func:`standing_now` the front ends show.

>>> from splitnet.games.split.rules import Game
>>> g = Game(2); g.start_round(list(range(104)))
>>> marks_now(g, 0)["negative"]   # nine cards in hand: nine negative boxes
9
>>> standing_now(g)
[-54, -54]
>>> points_text(Pad(), {"perfect": 3, "strong": 4, "weak": 0, "negative": 5})
'perfect 3 → 21, strong 4 → 22, negative 5 → −20: total 23'
"""

from __future__ import annotations

from splitnet.games.split.rules.engine import Game
from splitnet.games.split.rules.settings import ROWS, Pad

MINUS = "−"  # U+2212: the one minus sign every screen uses


def signed(n: int, plus: bool = False) -> str:
    """``n`` with the typographic minus (and ``+`` for positive numbers with ``plus``)."""
    if n < 0:
        return f"{MINUS}{-n}"
    return f"+{n}" if plus and n > 0 else str(n)


def live(game: Game) -> bool:
    """True while a round is being played: its marks are not yet on the pads."""
    return game.phase not in ("round_over", "game_over") and len(game.round_marks) == game.n


def marks_now(game: Game, seat: int) -> dict[str, int]:
    """``seat``'s marks per pad row if the round ended now (R6.3): the marks of earlier
    rounds, this round's bonus marks, a box per match in front of the seat, a negative
    box per card in its hand. Between rounds: the marks on the pad."""
    marks = dict(game.marks[seat])
    if not live(game):
        return marks
    for row, k in game.round_marks[seat].items():
        marks[row] += k
    for m in game.matches:
        if m.owner == seat:
            marks[m.kind] += 1
    marks["negative"] += len(game.hands[seat])
    return marks


def pad_points(pad: Pad, marks: dict[str, int]) -> int:
    """A pad's total (R7.3): Perfect + Strong + Weak − Negative, each row worth the value
    of its first open box (R7.2)."""
    v = {r: pad.value(r, marks.get(r, 0)) for r in ROWS}
    return v["perfect"] + v["strong"] + v["weak"] - v["negative"]


def standing_now(game: Game) -> list[int]:
    """Every seat's total as it would score if the round ended now, in seat order
    (equals :meth:`Game.score` between rounds): :func:`pad_points` of :func:`marks_now`
    for every seat, in one pass over the table — bots call it for every perfect bonus
    (R5.1), thousands of times a decision in the strong level's search."""
    n = game.n
    pad = game.settings.pad
    if not live(game):
        return [pad_points(pad, game.marks[s]) for s in range(n)]
    cp, cs, cw = [0] * n, [0] * n, [0] * n
    for m in game.matches:
        kind = m.kind
        if kind == "perfect":
            cp[m.owner] += 1
        elif kind == "strong":
            cs[m.owner] += 1
        else:
            cw[m.owner] += 1
    vp, vs, vw, vn = pad.perfect, pad.strong, pad.weak, pad.negative
    lp, ls, lw, ln = len(vp) - 1, len(vs) - 1, len(vw) - 1, len(vn) - 1
    out = []
    marks, now, hands = game.marks, game.round_marks, game.hands
    for s in range(n):
        d, r = marks[s], now[s]  # a full row keeps its last value (R7.2)
        out.append(vp[min(d["perfect"] + r["perfect"] + cp[s], lp)]
                   + vs[min(d["strong"] + r["strong"] + cs[s], ls)]
                   + vw[min(d["weak"] + r["weak"] + cw[s], lw)]
                   - vn[min(d["negative"] + r["negative"] + len(hands[s]), ln)])
    return out


def leaders_now(game: Game, among: list[int] | None = None) -> list[int]:
    """The seats (of ``among``, default all) with the highest :func:`standing_now`;
    more than one on a tie — the caller breaks it (a bot with its own randomness, never
    by seat order)."""
    seats = list(range(game.n)) if among is None else among
    totals = standing_now(game)
    best = max(totals[s] for s in seats)
    return [s for s in seats if totals[s] == best]


def points_text(pad: Pad, marks: dict[str, int]) -> str:
    """A pad in words, the sum written out: rows with marks as ``row k → value``
    (negative values with a minus), then the total."""
    parts = []
    for r in ROWS:
        k = marks.get(r, 0)
        if k:
            v = pad.value(r, k)
            parts.append(f"{r} {k} → {signed(-v if r == 'negative' else v)}")
    head = ", ".join(parts) if parts else "no marks"
    return f"{head}: total {signed(pad_points(pad, marks))}"
