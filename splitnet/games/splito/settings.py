"""The agreed settings of a Splito game (docs/SPLITO.md S13).

Settings are data, and every key is explicit: :meth:`SplitoSettings.from_dict` refuses a
missing or an unknown key, so two peers can only agree on the same ruleset by holding
the same dictionary. The first eleven keys are the record's ``settings`` (S12), in its
order; ``chat_during_play``, ``show_passed_hands`` and ``turn_timeout_s`` only change how
the table behaves, not which plays are legal, so they are not recorded.

>>> s = SplitoSettings.standard(4)
>>> s.hand_size, s.turns, s.variant, s.deck_size
(13, 13, 'standard', 107)
>>> SplitoSettings.standard(2).hand_size    # S8.2
26
>>> SplitoSettings.from_dict(s.to_dict()) == s
True
>>> d = s.to_dict(); del d["dealer"]
>>> SplitoSettings.from_dict(d)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
splitnet.games.splito.settings.SettingsError: settings: missing key(s) ['dealer'] (S13: ...)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final, Literal

from splitnet.errors import SplitnetError
from splitnet.games.splito.cards import N_CARDS, N_OBJECTIVES
from splitnet.games.splito.objectives import ObjectiveSet, default_objective_set

#: S12: the record's settings keys, in the record's order.
RECORD_KEYS: Final = ("players", "variant", "hand_size", "turns", "central_objectives",
                      "pass", "dealer", "tie_break", "objective_set", "objective_set_sha256",
                      "commit")
TABLE_KEYS: Final = ("chat_during_play", "show_passed_hands", "turn_timeout_s")
KEYS: Final = RECORD_KEYS + TABLE_KEYS
#: S7.3: the commitment formula, named in the record's settings (S12).
COMMIT_FORMULA: Final = "sha256(game_id|turn|seat|card|side|nonce)"
TIE_BREAK: Final = "fewest_cards_then_shared"  # S11.3: the only value defined
PASS: Final = "left"  # S5.4: the passing direction never changes

Variant = Literal["standard", "two_player"]


class SettingsError(SplitnetError):
    """A Splito setting is not valid; the message names the key and the S-rule."""


def variant_for(players: int) -> Variant:
    """S2.1, S8: 3–8 players play the standard game, 2 the variant.

    [decision] S12 shows only ``"standard"``; the 2-player variant (S8) is written
    ``"two_player"``."""
    return "two_player" if players == 2 else "standard"


def hand_size_for(players: int) -> int:
    """S4.3, S8.2: 13 cards each, 26 in the 2-player variant."""
    return 26 if players == 2 else 13


@dataclass(frozen=True)
class SplitoSettings:
    """Everything every peer must hold identically before the deal (S13)."""

    players: int
    central_objectives: int = 2
    dealer: int = 0
    objective_set: ObjectiveSet = field(default_factory=default_objective_set, compare=False)
    chat_during_play: bool = False
    show_passed_hands: bool = False
    turn_timeout_s: int | None = None
    #: the set's identity takes part in equality (the set itself compares by it)
    objective_set_sha256: str = ""

    def __post_init__(self) -> None:
        if not self.objective_set_sha256:
            object.__setattr__(self, "objective_set_sha256", self.objective_set.sha256)
        _check_int("players", self.players, 2, 8, "S2.1")
        _check_int("central_objectives", self.central_objectives, 0, 4, "S4.2")
        _check_int("dealer", self.dealer, 0, self.players - 1, "S4.1")
        if self.objective_set_sha256 != self.objective_set.sha256:
            raise SettingsError("settings.objective_set_sha256: does not match the objective "
                                "set in use (S9.6)")
        for key in ("chat_during_play", "show_passed_hands"):
            if not isinstance(getattr(self, key), bool):
                raise SettingsError(f"settings.{key}: expected true or false (S13)")
        t = self.turn_timeout_s
        if t is not None:
            _check_int("turn_timeout_s", t, 1, 86400, "S5.6")
        if self.players * self.hand_size > self.deck_size:  # cannot happen within S13
            raise SettingsError("settings: the deck cannot fill every hand (S4.3)")

    @classmethod
    def standard(cls, players: int, **changes: Any) -> SplitoSettings:
        """The defaults of S13 for a player count."""
        return cls(players=players, **changes)

    # ------------------------------------------------------------------ derived (S13)
    @property
    def variant(self) -> Variant:
        return variant_for(self.players)

    @property
    def hand_size(self) -> int:
        return hand_size_for(self.players)

    @property
    def turns(self) -> int:
        """S5.1: as many turns as cards in a hand."""
        return self.hand_size

    @property
    def n_zones(self) -> int:
        """S3.1: one zone per pair of neighbours; S8.1: two own zones each with 2 players."""
        return 4 if self.players == 2 else self.players

    @property
    def deck_size(self) -> int:
        """S4.3: the cards shuffled for the deal (all but the central objectives)."""
        return N_CARDS - self.central_objectives

    @property
    def set_aside(self) -> int:
        """S4.4: the undealt cards."""
        return self.deck_size - self.players * self.hand_size

    # ------------------------------------------------------------------ (de)serialise
    def record_dict(self) -> dict[str, Any]:
        """The record's ``settings`` object (S12), keys in its order."""
        return {
            "players": self.players, "variant": self.variant, "hand_size": self.hand_size,
            "turns": self.turns, "central_objectives": self.central_objectives,
            "pass": PASS, "dealer": self.dealer, "tie_break": TIE_BREAK,
            "objective_set": self.objective_set.format,
            "objective_set_sha256": self.objective_set.sha256, "commit": COMMIT_FORMULA,
        }

    def to_dict(self) -> dict[str, Any]:
        """Every setting of S13, explicitly (the record's keys first)."""
        return {**self.record_dict(), "chat_during_play": self.chat_during_play,
                "show_passed_hands": self.show_passed_hands,
                "turn_timeout_s": self.turn_timeout_s}

    @classmethod
    def from_dict(cls, data: object, objective_set: ObjectiveSet | None = None,
                  *, record: bool = False) -> SplitoSettings:
        """Parse settings strictly (S13). ``record=True`` reads a record's ``settings``
        (S12: the first eleven keys only; the table keys take their defaults).
        ``objective_set`` is the set the table uses (default: the project's own, S9.4);
        the data must name its hash."""
        if not isinstance(data, dict):
            raise SettingsError("settings: expected a JSON object (S13)")
        keys = RECORD_KEYS if record else KEYS
        absent = [k for k in keys if k not in data]
        if absent:
            raise SettingsError(f"settings: missing key(s) {absent} (S13: every setting is "
                                "explicit)")
        extra = sorted(k for k in data if k not in keys)
        if extra:
            raise SettingsError(f"settings: unknown key(s) {extra} (S13)")
        oset = objective_set or default_objective_set()
        players = data["players"]
        _check_int("players", players, 2, 8, "S2.1")
        fixed: dict[str, tuple[object, str]] = {
            "variant": (variant_for(players), "S2.1, S8"),
            "hand_size": (hand_size_for(players), "S4.3, S8.2"),
            "turns": (hand_size_for(players), "S5.1"),
            "pass": (PASS, "S5.4"),
            "tie_break": (TIE_BREAK, "S11.3"),
            "objective_set": (oset.format, "S9.6"),
            "objective_set_sha256": (oset.sha256, "S9.6"),
            "commit": (COMMIT_FORMULA, "S7.3"),
        }
        for key, (want, rule) in fixed.items():
            got = data[key]
            if type(got) is not type(want) or got != want:
                per = (f" with {players} players" if key in ("variant", "hand_size", "turns")
                       else "")
                raise SettingsError(f"settings.{key}: must be {want!r}{per} ({rule}), "
                                    f"got {got!r}")
        kwargs: dict[str, Any] = {"players": players,
                                  "central_objectives": data["central_objectives"],
                                  "dealer": data["dealer"], "objective_set": oset}
        if not record:
            kwargs.update({k: data[k] for k in TABLE_KEYS})
        return cls(**kwargs)


def _check_int(key: str, v: object, lo: int, hi: int, rule: str) -> None:
    if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
        raise SettingsError(f"settings.{key}: expected an integer {lo}…{hi}, got {v!r} ({rule})")


assert N_OBJECTIVES == 37
