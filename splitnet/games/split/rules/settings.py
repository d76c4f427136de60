"""The agreed settings of a game: rounds, hand size, house rules and the score pad (R7).

Settings are data, documented in ``protocol/SETTINGS.md``::

    {"rounds": 3, "hand_size": 9, "upgrade_takes_match": true,
     "pad": {"perfect": [0, 6, ...], "strong": [...], "weak": [...], "negative": [...]}}

:meth:`Settings.from_dict` reads them from a header, a transcript or a record: every key
present, the pad inline, nothing filled in and nothing opened (pure; no I/O). The local
``--settings FILE``, with its defaults (docs/RULES.md) and pad file, is read by
:mod:`splitnet.localfiles`.

>>> Settings().pad.value("perfect", 2)
13
>>> Settings().pad.value("weak", 99)   # a full row is worth its last value (R7.2)
90
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any, Final

from splitnet.errors import SplitnetError

ROWS: Final = ("perfect", "strong", "weak", "negative")
KEYS: Final = ("rounds", "hand_size", "upgrade_takes_match", "pad")
#: a pad row has at most this many boxes, and no box shows more than MAX_VALUE
MAX_BOXES: Final = 200
MAX_VALUE: Final = 10**6

#: R7.4: the value of a row's first open box after k marks, k = 0, 1, 2, …
DEFAULT_PAD_ROWS: Final[dict[str, tuple[int, ...]]] = {
    "perfect": (0, 6, 13, 21, 30, 40, 51, 63, 76, 90, 105, 121, 138),
    "strong": (0, 4, 9, 15, 22, 30, 39, 49, 60, 72, 85, 99, 114),
    "weak": (0, 2, 5, 9, 14, 20, 27, 35, 44, 54, 65, 77, 90),
    "negative": (
        0, 2, 5, 9, 14, 20, 27, 35, 44, 54, 65, 77, 90, 104, 119, 135, 152, 170, 189, 209,
        230, 252, 275, 299, 324,
    ),
}


class SettingsError(SplitnetError):
    """A settings or pad file is not valid; the message names the field."""


@dataclass(frozen=True)
class Pad:
    """The score pad (R7.1–R7.2): per row, the value shown after k marks."""

    perfect: tuple[int, ...] = DEFAULT_PAD_ROWS["perfect"]
    strong: tuple[int, ...] = DEFAULT_PAD_ROWS["strong"]
    weak: tuple[int, ...] = DEFAULT_PAD_ROWS["weak"]
    negative: tuple[int, ...] = DEFAULT_PAD_ROWS["negative"]

    def row(self, name: str) -> tuple[int, ...]:
        if name not in ROWS:
            raise KeyError(name)
        values: tuple[int, ...] = getattr(self, name)
        return values

    def value(self, row: str, marks: int) -> int:
        """A row is worth the value of its first open box; a full row its last (R7.2)."""
        values = self.row(row)
        return values[min(marks, len(values) - 1)]

    def boxes(self, row: str) -> int:
        """How many marks fill the row."""
        return len(self.row(row)) - 1

    def to_dict(self) -> dict[str, list[int]]:
        return {r: list(self.row(r)) for r in ROWS}

    @classmethod
    def from_dict(cls, data: object) -> Pad:
        """A pad with every row given (R7.4); a missing or unknown row is refused."""
        if not isinstance(data, dict):
            raise SettingsError("pad: expected an object with rows perfect, strong, weak, negative")
        _exact_keys("pad", data, ROWS)
        rows: dict[str, tuple[int, ...]] = {}
        for r in ROWS:
            values = data[r]
            if (
                not isinstance(values, list)
                or not 2 <= len(values) <= MAX_BOXES + 1
                or not all(isinstance(v, int) and not isinstance(v, bool) for v in values)
            ):
                raise SettingsError(f"pad.{r}: expected a list of 2…{MAX_BOXES + 1} integers")
            if values[0] != 0:
                raise SettingsError(f"pad.{r}: the first box shows 0 (R7.2), "
                                    f"got {_short(values[0])}")
            if any(b < a for a, b in itertools.pairwise(values)):
                raise SettingsError(f"pad.{r}: values must not decrease")
            if values[-1] > MAX_VALUE:
                raise SettingsError(f"pad.{r}: values are at most {MAX_VALUE}")
            rows[r] = tuple(values)
        return cls(**rows)


@dataclass(frozen=True)
class Settings:
    """Everything every peer must agree on before the first deal."""

    rounds: int = 3
    hand_size: int = 9
    upgrade_takes_match: bool = True
    pad: Pad = field(default_factory=Pad)

    def check_players(self, n: int) -> None:
        if not 2 <= n <= 6:
            raise SettingsError(f"Split is for 2 to 6 players (R3.1), not {n}")
        if self.hand_size * n + 2 > 104:
            raise SettingsError(f"{n} hands of {self.hand_size} leave no draw pile")

    def to_dict(self) -> dict[str, Any]:
        return {
            "rounds": self.rounds,
            "hand_size": self.hand_size,
            "upgrade_takes_match": self.upgrade_takes_match,
            "pad": self.pad.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: object) -> Settings:
        """The settings of a header, transcript or record: every key present, the pad
        inline (protocol/SETTINGS.md). Nothing is filled in from defaults, so the rules in
        force never depend on the reader's version, and nothing names a file."""
        if not isinstance(data, dict):
            raise SettingsError("settings: expected a JSON object")
        _exact_keys("settings", data, KEYS)
        rounds, hand, takes = data["rounds"], data["hand_size"], data["upgrade_takes_match"]
        for key, val, lo, hi in (("rounds", rounds, 1, 20), ("hand_size", hand, 2, 17)):
            if not isinstance(val, int) or isinstance(val, bool) or not lo <= val <= hi:
                raise SettingsError(f"settings.{key}: expected an integer {lo}…{hi}, "
                                    f"got {_short(val)}")
        if not isinstance(takes, bool):
            raise SettingsError("settings.upgrade_takes_match: expected true or false")
        if not isinstance(data["pad"], dict):
            raise SettingsError("settings.pad: expected an object holding the pad's rows "
                                "(a pad is always given inline)")
        return cls(rounds=rounds, hand_size=hand, upgrade_takes_match=takes,
                   pad=Pad.from_dict(data["pad"]))


def _exact_keys(where: str, data: dict[Any, Any], keys: tuple[str, ...]) -> None:
    for key in data:
        if key not in keys:
            raise SettingsError(f"{where}: unknown key {_short(key)} (keys are {', '.join(keys)})")
    missing = [k for k in keys if k not in data]
    if missing:
        raise SettingsError(f"{where}: missing {', '.join(missing)} (every key is required; "
                            "nothing is filled in from defaults)")


def _short(value: object) -> str:
    """*value* for an error message, short (a huge integer is not even converted)."""
    if isinstance(value, int) and not -10**40 < value < 10**40:
        return f"an integer of {value.bit_length()} bits"
    if isinstance(value, dict | list) and len(value) > 8:
        return f"a {type(value).__name__} of {len(value)} items"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "…"
