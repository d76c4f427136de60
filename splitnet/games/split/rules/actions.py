"""The moves of Split (R4–R6), as frozen values. Cards are named by *slot*.

A slot is a position 0…103 in the round's shuffled deck. The deal, the first discard
and the draw pile are fixed positions (R3.3), so the engine never needs randomness and
every peer agrees on which slot is where even when it cannot see the faces.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class DrawPile:
    """R4.1a: draw the top card of the draw pile."""

    seat: int


@dataclass(frozen=True)
class TakeRow:
    """R4.1b: take row card ``index`` (oldest = 0) and every card discarded after it."""

    seat: int
    index: int


@dataclass(frozen=True)
class Lay:
    """R4.3a: lay two halves of one rank from the hand as a match."""

    seat: int
    a: int
    b: int


@dataclass(frozen=True)
class Upgrade:
    """R4.3b: put ``slot`` on top of half ``covers`` (0 or 1) of match ``match_id``."""

    seat: int
    slot: int
    match_id: int
    covers: int


@dataclass(frozen=True)
class Discard:
    """R4.4: discard one card on the end of the row; ends the turn."""

    seat: int
    slot: int


@dataclass(frozen=True)
class BonusMark:
    """R5.1: the perfect bonus: ``target`` marks one negative box."""

    seat: int
    target: int


@dataclass(frozen=True)
class BonusDraw:
    """R5.2: the strong bonus: draw the top card of the draw pile."""

    seat: int


@dataclass(frozen=True)
class BonusSwap:
    """R5.3: the weak bonus: exchange own match ``give`` for another's match ``take``."""

    seat: int
    give: int
    take: int


@dataclass(frozen=True)
class SkipBonus:
    """R5.4: decline an optional bonus (strong or weak)."""

    seat: int


@dataclass(frozen=True)
class LateLay:
    """R6.2: after a first-turn go-out, lay a match from the hand (no bonus)."""

    seat: int
    a: int
    b: int


@dataclass(frozen=True)
class EndLateLays:
    """R6.2: done laying late matches."""

    seat: int


Action = (
    DrawPile | TakeRow | Lay | Upgrade | Discard | BonusMark | BonusDraw | BonusSwap
    | SkipBonus | LateLay | EndLateLays
)

_KINDS: dict[str, type[Any]] = {
    "draw_pile": DrawPile,
    "take_row": TakeRow,
    "lay": Lay,
    "upgrade": Upgrade,
    "discard": Discard,
    "bonus_mark": BonusMark,
    "bonus_draw": BonusDraw,
    "bonus_swap": BonusSwap,
    "skip_bonus": SkipBonus,
    "late_lay": LateLay,
    "end_late_lays": EndLateLays,
}
_NAMES: dict[type[Any], str] = {v: k for k, v in _KINDS.items()}
_FIELDS: dict[str, tuple[str, ...]] = {
    "draw_pile": (),
    "take_row": ("index",),
    "lay": ("a", "b"),
    "upgrade": ("slot", "match_id", "covers"),
    "discard": ("slot",),
    "bonus_mark": ("target",),
    "bonus_draw": (),
    "bonus_swap": ("give", "take"),
    "skip_bonus": (),
    "late_lay": ("a", "b"),
    "end_late_lays": (),
}


def action_name(action: Action) -> str:
    return _NAMES[type(action)]


def action_to_dict(action: Action) -> dict[str, Any]:
    """``{"type": "lay", "seat": 1, "a": 12, "b": 40}`` — the form used on the wire."""
    kind = _NAMES[type(action)]
    out: dict[str, Any] = {"type": kind, "seat": action.seat}
    for f in _FIELDS[kind]:
        out[f] = getattr(action, f)
    return out


def action_from_dict(data: object) -> Action:
    """Parse the wire form strictly; ValueError names what is wrong."""
    if not isinstance(data, dict):
        raise ValueError("move: expected a map")
    kind = data.get("type")
    if not isinstance(kind, str) or kind not in _KINDS:
        raise ValueError(f"move.type: unknown move {kind!r}")
    fields = ("seat", *_FIELDS[kind])
    extra = set(data) - {"type", *fields}
    if extra:
        raise ValueError(f"move: unexpected field(s) {sorted(extra)} for {kind}")
    values: list[int] = []
    for f in fields:
        v = data.get(f)
        if not isinstance(v, int) or isinstance(v, bool) or not 0 <= v < 1024:
            raise ValueError(f"move.{f}: expected a small non-negative integer, got {v!r}")
        values.append(v)
    result: Action = _KINDS[kind](*values)
    return result


def played_slots(action: Action) -> tuple[int, ...]:
    """Slots whose faces a move makes public (R8.2): they must be revealed first."""
    if isinstance(action, Lay | LateLay):
        return (action.a, action.b)
    if isinstance(action, Upgrade):
        return (action.slot,)
    if isinstance(action, Discard):
        return (action.slot,)
    return ()
