"""The game record (``splitnet-game-record/1``, documented in protocol/RECORD.md).

A :class:`Recorder` drives a full-knowledge :class:`~splitnet.games.split.rules.Game` (every face
known: self-play, or the verifier after the round's audit) and writes down what happened
in card names. :func:`validate_record` reads one back strictly. Pure: no I/O.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Final

from splitnet.cards import RANKS, SUITS, name
from splitnet.errors import SplitnetError
from splitnet.games.split.rules import (
    Action,
    DrawPile,
    EndLateLays,
    Game,
    LateLay,
    Settings,
    SettingsError,
    TakeRow,
)

FORMAT = "splitnet-game-record/1"


def round_ended(end: dict[str, Any], *, given_up: str = "was given up for gone (R8.6)"
                ) -> str:
    """How a recorded round ended, in words: the ``end`` of a record's round — "went
    out", "drew the last card", or ``given_up`` for a round cut short (R8.6)."""
    return {"out": "went out", "pile_empty": "drew the last card"}.get(end["reason"],
                                                                      given_up)


def dumps(record: dict[str, Any]) -> str:
    """The record's exact text, as ``selfplay --record`` writes it and ``verify --json``
    prints it (protocol/RECORD.md, "Exact form"): indent 1, ``,`` at line ends and
    ``": "`` after keys, keys in the order they were built, ASCII only (``\\uXXXX``
    escapes), one final newline."""
    return json.dumps(record, indent=1, ensure_ascii=True, separators=(",", ": ")) + "\n"


class Recorder:
    def __init__(self, game: Game, players: Sequence[str]) -> None:
        self.game = game
        self.record: dict[str, Any] = {
            "format": FORMAT,
            "players": [{"seat": i, "name": n} for i, n in enumerate(players)],
            "settings": game.settings.to_dict(),
            "rounds": [],
            "totals": {},
        }
        self._round: dict[str, Any] | None = None
        self._seen = 0
        self._partial = False

    def _card(self, slot: int) -> str | None:
        """A slot's card name; None (JSON null) only in a round cut short by an
        abandonment, for a card nobody can ever read (R8.6, RECORD.md)."""
        f = self.game.faces[slot]
        if f is None:
            if self._partial:
                return None
            raise ValueError(f"record: slot {slot} is not known")
        return name(f)

    def start_round(self, faces: Sequence[int | None]) -> None:
        """A round dealt with ``faces`` (all 104 known; or, for a round an abandonment
        cut short, what is known of it: the cards shown, and without shuffle proofs what
        the seats present could open; the rest is written null)."""
        g = self.game
        dealer = g.dealer
        self._partial = any(f is None for f in faces)
        g.start_round(list(faces))
        self._round = {
            "number": g.round_no,
            "dealer": dealer,
            "hands": {str(s): [self._card(x) for x in g.hands[s]] for s in range(g.n)},
            "first_discard": self._card(g.row[0]),
            "turns": [],
        }
        self.record["rounds"].append(self._round)
        self._seen = 0

    def apply(self, action: Action) -> None:
        g = self.game
        g.apply(action)
        rnd = self._round
        assert rnd is not None
        if isinstance(action, DrawPile | TakeRow):
            rnd["turns"].append({"seat": action.seat, "events": []})
        if not isinstance(action, LateLay | EndLateLays):
            for ev in g.events[self._seen:]:
                rnd["turns"][-1]["events"].append(self._event(ev))
        self._seen = len(g.events)
        if g.last_end is not None and g.phase in ("round_over", "game_over"):
            self._finish_round()

    def end_abandoned(self, seat: int) -> None:
        """R8.6: ``seat`` was given up during play; the round ends as it stands."""
        g = self.game
        g.end_abandoned(seat)
        self._seen = len(g.events)
        self._finish_round()

    def _event(self, ev: dict[str, Any]) -> dict[str, Any]:
        t = ev["type"]
        if t in ("draw_pile", "bonus_draw", "discard"):
            return {"type": t, "card": self._card(ev["slot"])}
        if t == "take_row":
            return {"type": t, "index": ev["index"], "cards": [self._card(s) for s in ev["cards"]]}
        if t == "lay":
            return {"type": t, "match_id": ev["match_id"],
                    "cards": [self._card(s) for s in ev["cards"]], "match": ev["match"]}
        if t == "upgrade":
            return {"type": t, "match_id": ev["match_id"], "card": self._card(ev["card"]),
                    "covers": self._card(ev["covers"]), "owner_before": ev["owner_before"],
                    "match": ev["match"]}
        return dict(ev)  # bonus_mark, bonus_swap carry no cards

    def _finish_round(self) -> None:
        g, rnd = self.game, self._round
        end = g.last_end
        assert rnd is not None and end is not None
        rnd["end"] = {
            "reason": end.reason,
            "seat": end.seat,
            "late_lays": [{"seat": ll["seat"], "cards": [self._card(s) for s in ll["cards"]],
                           "match": ll["match"]} for ll in end.late_lays],
            "hands_left": {str(s): [self._card(x) for x in h]
                           for s, h in enumerate(end.hands_left)},
            "marks": {str(s): dict(m) for s, m in enumerate(end.marks)},
        }
        self.record["totals"] = {
            str(s): {**g.marks[s], "score": g.score(s)} for s in range(g.n)
        }
        if g.phase == "game_over":
            self.record["winners"] = g.winners()
        self._round = None


# ------------------------------------------------------------------ reading one back

class RecordError(SplitnetError):
    """A game record that does not follow protocol/RECORD.md; the message names where."""


#: every card name a record may hold (RECORD.md: rank + suit letter)
CARD_NAMES: Final = frozenset(RANKS[r] + s for r in range(len(RANKS)) for s in SUITS)
MATCH_TYPES: Final = ("weak", "strong", "perfect")
ROW_NAMES: Final = ("perfect", "strong", "weak", "negative")
#: bounds no honest record comes near (a turn count, a match id, a mark count, a score)
MAX_COUNT: Final = 100_000
MAX_SCORE: Final = 10**9
#: EVENT type → its fields and what each holds (RECORD.md, EVENT)
EVENT_FIELDS: Final[dict[str, dict[str, str]]] = {
    "draw_pile": {"card": "card"},
    "take_row": {"index": "count", "cards": "cards"},
    "lay": {"match_id": "count", "cards": "pair", "match": "match"},
    "upgrade": {"match_id": "count", "card": "card", "covers": "card",
                "owner_before": "seat", "match": "match"},
    "bonus_mark": {"target": "seat"},
    "bonus_draw": {"card": "card"},
    "bonus_swap": {"give": "count", "take": "count", "with_seat": "seat"},
    "discard": {"card": "card"},
}


def validate_record(data: object) -> dict[str, Any]:
    """*data* (parsed JSON) checked strictly against RECORD.md: every field present with
    its type and range, no other field, seats in range, cards by their names, the
    settings complete (SETTINGS.md), one ROUND per round of the settings. Raises
    :class:`RecordError` naming the first field that is wrong; returns *data* unchanged."""
    v = _Check()
    top = v.obj("record", data, ("format", "players", "settings", "rounds", "totals",
                                 "winners"))
    if top["format"] != FORMAT:
        raise RecordError(f"format: expected {FORMAT!r}")
    players = v.lst("players", top["players"], 2, 6)
    for i, p in enumerate(players):
        p = v.obj(f"players[{i}]", p, ("seat", "name"))
        if p["seat"] != i or type(p["seat"]) is not int:
            raise RecordError(f"players[{i}].seat: expected {i}")
        if not isinstance(p["name"], str) or not 1 <= len(p["name"]) <= 32:
            raise RecordError(f"players[{i}].name: expected a string of 1…32 characters")
    v.n = len(players)
    try:
        settings = Settings.from_dict(top["settings"])
        settings.check_players(v.n)
    except SettingsError as e:
        raise RecordError(f"settings: {e}") from None
    rounds = v.lst("rounds", top["rounds"], settings.rounds, settings.rounds)
    for i, rnd in enumerate(rounds):
        v.round(f"rounds[{i}]", rnd, i + 1, settings.hand_size)
    for s, t in v.seats("totals", top["totals"]).items():
        t = v.obj(f"totals.{s}", t, (*ROW_NAMES, "score"))
        for row in ROW_NAMES:
            v.count(f"totals.{s}.{row}", t[row])
        v.integer(f"totals.{s}.score", t["score"], -MAX_SCORE, MAX_SCORE)
    winners = v.lst("winners", top["winners"], 1, v.n)
    for i, w in enumerate(winners):
        v.seat(f"winners[{i}]", w)
    if winners != sorted(set(winners)):
        raise RecordError("winners: expected distinct seats in increasing order")
    return top


class _Check:
    def __init__(self) -> None:
        self.n = 0
        #: in a round cut short by an abandonment (R8.6): a card nobody can read is null
        self.unknown_ok = False

    def obj(self, where: str, data: object, keys: tuple[str, ...]) -> dict[str, Any]:
        if not isinstance(data, dict):
            raise RecordError(f"{where}: expected an object")
        for k in data:
            if k not in keys:
                raise RecordError(f"{where}: unknown field {_short(k)}")
        for k in keys:
            if k not in data:
                raise RecordError(f"{where}: missing field {k!r}")
        return data

    def lst(self, where: str, data: object, lo: int, hi: int) -> list[Any]:
        if not isinstance(data, list) or not lo <= len(data) <= hi:
            raise RecordError(f"{where}: expected a list of {lo}…{hi} items")
        return data

    def integer(self, where: str, data: object, lo: int, hi: int) -> int:
        if type(data) is not int or not lo <= data <= hi:
            raise RecordError(f"{where}: expected an integer {lo}…{hi}")
        return data

    def count(self, where: str, data: object) -> int:
        return self.integer(where, data, 0, MAX_COUNT)

    def seat(self, where: str, data: object) -> int:
        return self.integer(where, data, 0, self.n - 1)

    def seats(self, where: str, data: object) -> dict[str, Any]:
        """An object keyed by every seat, "0" … "n-1"."""
        return self.obj(where, data, tuple(str(s) for s in range(self.n)))

    def card(self, where: str, data: object) -> str:
        if not isinstance(data, str) or data not in CARD_NAMES:
            raise RecordError(f"{where}: expected a card name like \"10H\" or \"QS\"")
        return data

    def hidden_card(self, where: str, data: object) -> str | None:
        """A card that may never have been read: null allowed in an abandoned round."""
        if data is None and self.unknown_ok:
            return None
        return self.card(where, data)

    def cards(self, where: str, data: object, lo: int = 0, hi: int = 104, *,
              hidden: bool = False) -> list[Any]:
        items = self.lst(where, data, lo, hi)
        for i, c in enumerate(items):
            if hidden:
                self.hidden_card(f"{where}[{i}]", c)
            else:
                self.card(f"{where}[{i}]", c)
        return items

    def match(self, where: str, data: object) -> str:
        if data not in MATCH_TYPES:
            raise RecordError(f"{where}: expected one of {', '.join(MATCH_TYPES)}")
        return str(data)

    def round(self, where: str, data: object, number: int, hand_size: int) -> None:
        rnd = self.obj(where, data, ("number", "dealer", "hands", "first_discard", "turns",
                                     "end"))
        if type(rnd["number"]) is not int or rnd["number"] != number:
            raise RecordError(f"{where}.number: expected {number}")
        self.seat(f"{where}.dealer", rnd["dealer"])
        end_raw = rnd["end"]
        self.unknown_ok = isinstance(end_raw, dict) and end_raw.get("reason") == "abandoned"
        for s, hand in self.seats(f"{where}.hands", rnd["hands"]).items():
            self.cards(f"{where}.hands.{s}", hand, hand_size, hand_size, hidden=True)
        self.card(f"{where}.first_discard", rnd["first_discard"])
        for i, turn in enumerate(self.lst(f"{where}.turns", rnd["turns"], 0, MAX_COUNT)):
            w = f"{where}.turns[{i}]"
            turn = self.obj(w, turn, ("seat", "events"))
            self.seat(f"{w}.seat", turn["seat"])
            for j, ev in enumerate(self.lst(f"{w}.events", turn["events"], 1, MAX_COUNT)):
                self.event(f"{w}.events[{j}]", ev)
        end = self.obj(f"{where}.end", rnd["end"], ("reason", "seat", "late_lays",
                                                     "hands_left", "marks"))
        w = f"{where}.end"
        if end["reason"] not in ("out", "pile_empty", "abandoned"):
            raise RecordError(f"{w}.reason: expected \"out\", \"pile_empty\" or "
                              f"\"abandoned\"")
        self.seat(f"{w}.seat", end["seat"])
        for i, ll in enumerate(self.lst(f"{w}.late_lays", end["late_lays"], 0, MAX_COUNT)):
            ll = self.obj(f"{w}.late_lays[{i}]", ll, ("seat", "cards", "match"))
            self.seat(f"{w}.late_lays[{i}].seat", ll["seat"])
            self.cards(f"{w}.late_lays[{i}].cards", ll["cards"], 2, 2)
            self.match(f"{w}.late_lays[{i}].match", ll["match"])
        for s, left in self.seats(f"{w}.hands_left", end["hands_left"]).items():
            self.cards(f"{w}.hands_left.{s}", left, hidden=True)
        for s, m in self.seats(f"{w}.marks", end["marks"]).items():
            m = self.obj(f"{w}.marks.{s}", m, ROW_NAMES)
            for row in ROW_NAMES:
                self.count(f"{w}.marks.{s}.{row}", m[row])

    def event(self, where: str, data: object) -> None:
        t = data.get("type") if isinstance(data, dict) else None
        if not isinstance(t, str) or t not in EVENT_FIELDS:
            raise RecordError(f"{where}: expected an event with a type of "
                              f"{', '.join(EVENT_FIELDS)}")
        fields = EVENT_FIELDS[t]
        ev = self.obj(where, data, ("type", *fields))
        for name_, kind in fields.items():
            w, val = f"{where}.{name_}", ev[name_]
            if kind == "card" and t in ("draw_pile", "bonus_draw"):
                self.hidden_card(w, val)  # a draw never shared, in an abandoned round
            elif kind == "card":
                self.card(w, val)
            elif kind == "cards":
                self.cards(w, val, 1, 104)
            elif kind == "pair":
                self.cards(w, val, 2, 2)
            elif kind == "match":
                self.match(w, val)
            elif kind == "seat":
                self.seat(w, val)
            else:
                self.count(w, val)


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "…"
