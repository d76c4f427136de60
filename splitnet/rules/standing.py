"""The standing as it would score if the round ended now (R6.3, R7.2–R7.3).

``Game.score`` counts only the marks already on the pads: during a round it ignores this
round's negative marks from perfect bonuses (R5.1), the matches on the table and the cards
in hand. :func:`standing_now` adds them as the round's scoring would (R6.3), so bots and
front ends judge who is ahead from the same public facts:

- the pads' marks from finished rounds,
- this round's negative marks from perfect bonuses,
- one box for every match on the table, in its owner's row of its type,
- one negative box for every card in each hand (hand sizes are public, R8.2).

Everything it reads is public, so any seat's view gives every peer the same answer.
Between rounds (and at the end) the round is already scored and it equals ``Game.score``.

>>> from splitnet.rules import Game
>>> g = Game(2)
>>> g.start_round(faces=list(range(104)))
>>> standing_now(g)      # nine cards in each hand: 9 negative boxes each
[-54, -54]
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from splitnet.rules.settings import ROWS

if TYPE_CHECKING:
    from splitnet.rules.engine import Game


def marks_now(game: Game, seat: int) -> dict[str, int]:
    """``seat``'s marks per row (perfect, strong, weak, negative) if the round ended now."""
    marks = dict(game.marks[seat])
    if game.phase in ("round_over", "game_over"):
        return marks  # already scored (R6.3)
    for row, k in game.round_marks[seat].items():
        marks[row] += k
    for m in game.matches:
        if m.owner == seat:
            marks[m.kind] += 1
    marks["negative"] += len(game.hands[seat])
    return marks


def pad_total(game: Game, marks: dict[str, int]) -> int:
    """Perfect + Strong + Weak − Negative on the game's pad for these marks (R7.2–R7.3)."""
    pad = game.settings.pad
    total = 0
    for r in ROWS:
        values = pad.row(r)
        v = values[min(marks[r], len(values) - 1)]  # a full row keeps its last value
        total += -v if r == "negative" else v
    return total


def standing_now(game: Game) -> list[int]:
    """Every seat's total if the round ended now, in seat order (see the module text)."""
    n = game.n
    if game.phase in ("round_over", "game_over"):
        return [pad_total(game, game.marks[s]) for s in range(n)]
    # One pass over the table with plain lists (bots call this for every perfect bonus).
    cp, cs, cw = [0] * n, [0] * n, [0] * n
    for m in game.matches:
        kind = m.kind
        if kind == "perfect":
            cp[m.owner] += 1
        elif kind == "strong":
            cs[m.owner] += 1
        else:
            cw[m.owner] += 1
    pad = game.settings.pad
    vp, vs, vw, vn = pad.perfect, pad.strong, pad.weak, pad.negative
    lp, ls, lw, ln = len(vp) - 1, len(vs) - 1, len(vw) - 1, len(vn) - 1
    out = []
    marks, now, hands = game.marks, game.round_marks, game.hands
    for s in range(n):
        d, r = marks[s], now[s]
        out.append(vp[min(d["perfect"] + r["perfect"] + cp[s], lp)]
                   + vs[min(d["strong"] + r["strong"] + cs[s], ls)]
                   + vw[min(d["weak"] + r["weak"] + cw[s], lw)]
                   - vn[min(d["negative"] + r["negative"] + len(hands[s]), ln)])
    return out


def leaders_now(game: Game, among: list[int] | None = None) -> list[int]:
    """The seats (of ``among``, default all) with the highest :func:`standing_now`;
    more than one on a tie — the caller breaks it (a bot with its own randomness)."""
    seats = list(range(game.n)) if among is None else among
    totals = standing_now(game)
    best = max(totals[s] for s in seats)
    return [s for s in seats if totals[s] == best]
