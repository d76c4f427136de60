"""Pure, deterministic rules of Split (docs/RULES.md). No I/O, no randomness, no clocks."""

from splitnet.games.split.rules.actions import (
    Action,
    BonusDraw,
    BonusMark,
    BonusSwap,
    Discard,
    DrawPile,
    EndLateLays,
    LateLay,
    Lay,
    SkipBonus,
    TakeRow,
    Upgrade,
    action_from_dict,
    action_to_dict,
    played_slots,
)
from splitnet.games.split.rules.engine import Game, IllegalMove, Match, Phase, RoundEnd, UnknownFace
from splitnet.games.split.rules.scoring import leaders_now, marks_now, pad_points, standing_now
from splitnet.games.split.rules.settings import Pad, Settings, SettingsError

__all__ = [
    "Action", "BonusDraw", "BonusMark", "BonusSwap", "Discard", "DrawPile", "EndLateLays",
    "Game", "IllegalMove", "LateLay", "Lay", "Match", "Pad", "Phase", "RoundEnd", "Settings",
    "SettingsError", "SkipBonus", "TakeRow", "UnknownFace", "Upgrade", "action_from_dict",
    "action_to_dict", "leaders_now", "marks_now", "pad_points", "played_slots", "standing_now",
]
