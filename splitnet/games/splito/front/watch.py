"""Splito's table for a spectator (``splitnet watch``; :mod:`splitnet.ui.tui.watch_model`):
drawn from the watcher's core of no seat, whose engine holds only the public faces (S7):
every hand face down with its count, the central objectives, every zone's cards and
objectives with its points now, the last turn's plays revealed (S5.3), each seat's
score if the game ended now (S11.1), who has not committed (or revealed) yet, who left
(S5.7), and at the end the audit (S7.5)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from prompt_toolkit.output import ColorDepth

from splitnet.games.splito.cards import card_order, is_number_card
from splitnet.games.splito.core import SplitoCore
from splitnet.games.splito.engine import Game
from splitnet.games.splito.front.table import points_text, zone_facts
from splitnet.games.splito.front.tui import COLOURS
from splitnet.games.splito.front.tui_render import _objective_item, card_frags, diamonds, notation
from splitnet.ui.tui.watch_model import (
    Area,
    Line,
    SeatFacts,
    ShownFaces,
    Spectacle,
    no_seat,
)

#: without colours (NO_COLOR): the highlights as attributes, the colours as letters
_MONO = (("ok", "bold"), ("no", ""), ("wait", "bold"), ("zone.pts", "reverse"))


def _zone(f: ShownFaces[str], view: Game, names: Sequence[str], zone: int, wide: bool) -> Area:
    z = zone_facts(view, names, zone, None)
    numbers: list[tuple[tuple[int, int, str], Line]] = []
    for s in view.zones[zone]:
        frags = f.frags(s)  # (an objective lying here is named below, with its mark)
        if (c := view.faces[s]) is not None and is_number_card(c):
            numbers.append((card_order(c), frags))
    items: list[Line] = [fr for _, fr in sorted(numbers, key=lambda t: t[0])]
    items += [_objective_item(o.objective, o.fulfilled, o.source == "central", wide)
              for o in z.objectives]
    now = "" if view.over else " now"
    return Area(z.label, tuple(items) or ([("class:dim", "no card yet")],),
                tail=f"{points_text(z.points)}{now}")


def audits(core: SplitoCore) -> tuple[str, ...]:
    """The one audit of a Splito game, at its end (S7.5), once it passed."""
    if not core.finished or core.verdict is not None or core.record is None:
        return ()
    return ("the deal: audit passed — every seed opened, every hop of both decks proved, "
            "every commitment opened by its reveal and every play legal (S7.5)",)


def spectate(core: Any, names: Sequence[str], *, mono: bool | None = None) -> Spectacle:
    """The table of ``core`` (a Splito core of no seat) for a spectator."""
    no_seat(core)
    assert isinstance(core, SplitoCore)
    view = core.engine
    if mono is None:
        mono = ColorDepth.from_env() == ColorDepth.DEPTH_1_BIT
    by_id = view.settings.objective_set.by_id
    f = ShownFaces(view.faces, lambda face, style: card_frags(face, mono, style, by_id))
    waiting = set(core.waiting_for())
    scores = {s.seat: s for s in view.scores()}
    seats = []
    for s in range(view.n):
        sc = scores[s]
        tags = ("left (S5.7)",) if s in view.gone else ()
        seats.append(SeatFacts(s, names[s], len(view.hands[s]),
                               f"{sc.left_points}×{sc.right_points}={sc.score}",
                               tags=tags, thinking=s in waiting))
    central: list[Line] = []
    for c in view.central:
        o = by_id[c]
        central.append([("class:obj", o.id), ("", f" {o.name} "), ("class:pts",
                                                                  diamonds(o.points)),
                        ("", " "), *notation(o.face, mono)])
    areas = [Area("Central objectives (count in every zone)", tuple(central))] if central \
        else []
    areas += [_zone(f, view, names, z, False) for z in range(len(view.zones))]
    if view.history:
        plays = tuple([("class:seat", names[p.seat]), ("", f" → {p.side} "),
                       *f.frags(p.slot, "class:new")] for p in view.history[-1])
        areas.append(Area(f"Turn {len(view.history)} revealed (S5.3)", plays))
    if view.over:
        title = f"Splito · game over after {view.turns} turns"
    elif view.turn:
        title = f"Splito · turn {min(view.turn, view.turns)} of {view.turns}"
    else:
        title = "Splito · setting up"
    style = tuple(COLOURS.items()) + (_MONO if mono else ())
    return Spectacle(title, tuple(seats), tuple(areas), core.progress(), audits(core),
                     frozenset(f.shown), 0, style=style)
