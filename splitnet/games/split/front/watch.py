"""Split's table for a spectator (``splitnet watch``; :mod:`splitnet.ui.tui.watch_model`):
drawn from the watcher's core of no seat, whose engine holds only the public faces
(R8): every hand face down with its count (but the cards everyone knows: those taken
from the discard row, and an open-handed seat's, dealt face up, R8.6), the discard row
and the draw pile, each seat's matches, its score pad and total, the dealer, who the
game waits for, and each round's audit as it passes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from splitnet.games.split.core import GameCore, RoundState
from splitnet.games.split.rules import Game, Match
from splitnet.games.split.rules.scoring import live, signed
from splitnet.ui.tui.model import KIND_LETTER
from splitnet.ui.tui.render import card_frags, mini_pad, pad_marks, pad_total
from splitnet.ui.tui.watch_model import (
    Area,
    Line,
    PadDrawing,
    SeatFacts,
    ShownFaces,
    Spectacle,
    no_seat,
)

#: the stages of a deal whose cards the engine shows (its play began)
_PLAYED = ("play", "open", "prove", "done")


def _match(f: ShownFaces[int], mt: Match) -> Line:
    line: Line = [("class:match.id", f" #{mt.id}"), (f"class:kind.{mt.kind}",
                                                     f" {KIND_LETTER[mt.kind]}")]
    for slot in mt.top:
        line += f.frags(slot)
    if mt.under:
        line.append(("class:dim", f" ↑{len(mt.under)}"))
    return line


def _pad(view: Game, seat: int) -> PadDrawing:
    marks = pad_marks(view, seat)
    return lambda width: mini_pad(view.settings.pad, marks, max(8, width))


def audits(core: GameCore) -> tuple[str, ...]:
    """Each deal's audit so far (GAME.md "audit"): passed, cut short (R8.6) or void."""
    out: list[str] = []
    k = 0
    for r in core.rounds:
        if r.stage == "void":
            out.append(f"deal {r.number}: void — a seat was given up before any card "
                       "existed (R8.6); dealt again")
            continue
        k += 1
        if r.stage != "done":
            continue
        how = ("every hop proved as it came" if core.shuffle_proofs
               else "every hop checked against the opened seeds")
        if r.cut is not None:
            out.append(f"round {k}: cut short (R8.6), scored as it stood; {how}")
        else:
            out.append(f"round {k}: audit passed — every seed opened, {how}, every move "
                       "legal with all cards open")
    return tuple(out)


def spectate(core: Any, names: Sequence[str]) -> Spectacle:
    """The table of ``core`` (a Split core of no seat) for a spectator."""
    no_seat(core)
    assert isinstance(core, GameCore)
    view = core.engine
    f = ShownFaces(view.faces, card_frags)
    played: RoundState | None = next(
        (r for r in reversed(core.rounds) if r.stage in _PLAYED), None)
    waiting = set(core.waiting_for())
    now = live(view)
    seats = []
    for s in range(view.n):
        hand = view.hands[s]
        open_cards: Line = []
        for slot in hand:
            if view.faces[slot] is not None:  # public: taken from the row, or R8.6
                open_cards += f.frags(slot)
        tags = (("dealer",) if view.round_no and view.dealer == s else ()) + (
            ("open-handed (R8.6)",) if s in core.open_seats else ())
        total = pad_total(view.settings.pad, pad_marks(view, s))
        seats.append(SeatFacts(
            s, names[s], len(hand), f"{'now' if now else '='} {signed(total)}",
            open_cards=open_cards, pad=_pad(view, s),
            front=tuple(_match(f, mt) for mt in view.matches if mt.owner == s),
            tags=tags, thinking=s in waiting))
    row = tuple(f.frags(slot) for slot in view.row)
    title = (f"Split · round {view.round_no} of {view.settings.rounds} · dealer "
             f"{names[view.dealer]}" if view.round_no else "Split · setting up")
    if core.finished and core.verdict is None:
        title = f"Split · game over after {view.round_no} rounds"
    areas = (Area("Discard row · oldest → newest", row or ([("class:dim", "(empty)")],),
                  tail=f"Draw pile: {view.pile_count}"),)
    return Spectacle(title, tuple(seats), areas, core.progress(), audits(core),
                     frozenset(f.shown), played.number if played is not None else 0)
