"""The game record (``splitnet-game-record/1``, documented in protocol/RECORD.md).

A :class:`Recorder` drives a full-knowledge :class:`~splitnet.rules.Game` (every face
known: self-play, or the verifier after the round's audit) and writes down what happened
in card names. Pure: no I/O.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from splitnet.cards import name
from splitnet.rules import Action, DrawPile, EndLateLays, Game, LateLay, TakeRow

FORMAT = "splitnet-game-record/1"


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

    def _card(self, slot: int) -> str:
        f = self.game.faces[slot]
        if f is None:
            raise ValueError(f"record: slot {slot} is not known")
        return name(f)

    def start_round(self, faces: Sequence[int]) -> None:
        g = self.game
        dealer = g.dealer
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
