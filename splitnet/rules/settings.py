"""The agreed settings of a game: rounds, hand size, house rules and the score pad (R7).

Settings are data. The file format is JSON (documented in ``protocol/SETTINGS.md``)::

    {"rounds": 3, "hand_size": 9, "upgrade_takes_match": true,
     "pad": {"perfect": [0, 6, ...], "strong": [...], "weak": [...], "negative": [...]}}

Every key is optional; a missing key takes the default of docs/RULES.md. ``"pad"`` may also be
the path of a JSON file holding only the pad.

>>> Settings().pad.value("perfect", 2)
13
>>> Settings().pad.value("weak", 99)   # a full row is worth its last value (R7.2)
90
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

ROWS: Final = ("perfect", "strong", "weak", "negative")

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


class SettingsError(ValueError):
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
        if not isinstance(data, dict):
            raise SettingsError("pad: expected an object with rows perfect, strong, weak, negative")
        rows: dict[str, tuple[int, ...]] = {}
        for key in data:
            if key not in ROWS:
                raise SettingsError(f"pad: unknown row {key!r} (rows are {', '.join(ROWS)})")
        for r in ROWS:
            values = data.get(r, list(DEFAULT_PAD_ROWS[r]))
            if (
                not isinstance(values, list)
                or len(values) < 2
                or not all(isinstance(v, int) and not isinstance(v, bool) for v in values)
            ):
                raise SettingsError(f"pad.{r}: expected a list of at least two integers")
            if values[0] != 0:
                raise SettingsError(f"pad.{r}: the first box shows 0 (R7.2), got {values[0]}")
            if any(b < a for a, b in itertools.pairwise(values)):
                raise SettingsError(f"pad.{r}: values must not decrease")
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
    def from_dict(cls, data: object, base_dir: Path | None = None) -> Settings:
        if not isinstance(data, dict):
            raise SettingsError("settings: expected a JSON object")
        known = {"rounds", "hand_size", "upgrade_takes_match", "pad"}
        for key in data:
            if key not in known:
                raise SettingsError(f"settings: unknown key {key!r} (known: {sorted(known)})")
        rounds = data.get("rounds", 3)
        hand = data.get("hand_size", 9)
        takes = data.get("upgrade_takes_match", True)
        for key, val, lo, hi in (("rounds", rounds, 1, 20), ("hand_size", hand, 2, 17)):
            if not isinstance(val, int) or isinstance(val, bool) or not lo <= val <= hi:
                raise SettingsError(f"settings.{key}: expected an integer {lo}…{hi}, got {val!r}")
        if not isinstance(takes, bool):
            raise SettingsError("settings.upgrade_takes_match: expected true or false")
        pad_data = data.get("pad", {})
        if isinstance(pad_data, str):
            path = Path(pad_data)
            if base_dir is not None and not path.is_absolute():
                path = base_dir / path
            pad_data = _read_json(path)
        return cls(rounds=rounds, hand_size=hand, upgrade_takes_match=takes,
                   pad=Pad.from_dict(pad_data))

    @classmethod
    def load(cls, path: Path) -> Settings:
        return cls.from_dict(_read_json(path), base_dir=path.parent)


def _read_json(path: Path) -> object:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise SettingsError(f"{path}: {e.strerror or e}") from e
    except json.JSONDecodeError as e:
        raise SettingsError(f"{path}: not valid JSON ({e})") from e
