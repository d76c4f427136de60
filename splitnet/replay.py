"""``splitnet replay FILE``: step through a finished game with every card open.

FILE is a transcript (``.splitlog``, verified first) or a game record (JSON,
protocol/RECORD.md). Prints each round's deal, then each turn in words; with ``--step``
it waits for Enter between turns.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from splitnet.cards import parse_face, pretty


def _c(text: str) -> str:
    f = parse_face(text)
    return pretty(f * 2)


def _cards(cards: list[str]) -> str:
    return " ".join(_c(c) for c in cards)


def describe_turn(turn: dict[str, Any], names: list[str]) -> list[str]:
    who = names[turn["seat"]]
    out = []
    for ev in turn["events"]:
        t = ev["type"]
        if t == "draw_pile":
            out.append(f"{who} draws {_c(ev['card'])}")
        elif t == "bonus_draw":
            out.append(f"{who} draws {_c(ev['card'])} (strong bonus)")
        elif t == "take_row":
            out.append(f"{who} takes {_cards(ev['cards'])} from the row (card {ev['index'] + 1})")
        elif t == "lay":
            out.append(f"{who} lays a {ev['match']} match {_cards(ev['cards'])} "
                       f"(#{ev['match_id']})")
        elif t == "upgrade":
            out.append(f"{who} upgrades match #{ev['match_id']} of {names[ev['owner_before']]} "
                       f"to {ev['match']}: {_c(ev['card'])} on {_c(ev['covers'])}")
        elif t == "bonus_mark":
            out.append(f"{who} makes {names[ev['target']]} mark a negative box")
        elif t == "bonus_swap":
            out.append(f"{who} swaps match #{ev['give']} for {names[ev['with_seat']]}'s "
                       f"#{ev['take']}")
        elif t == "discard":
            out.append(f"{who} discards {_c(ev['card'])}")
    return out


def replay_lines(record: dict[str, Any]) -> list[list[str]]:
    """The game as pages of lines: one page per round header and one per turn."""
    names = [p["name"] for p in record["players"]]
    pages: list[list[str]] = []
    for rnd in record["rounds"]:
        head = [f"=== Round {rnd['number']} · dealer {names[rnd['dealer']]} · first discard "
                f"{_c(rnd['first_discard'])} ==="]
        for s, cards in rnd["hands"].items():
            head.append(f"  {names[int(s)]:14} {_cards(sorted(cards, key=parse_face))}")
        pages.append(head)
        for i, turn in enumerate(rnd["turns"]):
            pages.append([f"turn {i + 1}: " + line if j == 0 else "        " + line
                          for j, line in enumerate(describe_turn(turn, names))])
        end = rnd["end"]
        how = "goes out" if end["reason"] == "out" else "draws the last card"
        tail = [f"--- {names[end['seat']]} {how} ---"]
        for ll in end["late_lays"]:
            tail.append(f"  {names[ll['seat']]} lays a late {ll['match']} match "
                        f"{_cards(ll['cards'])}")
        for s, m in end["marks"].items():
            left = _cards(end["hands_left"][s]) or "—"
            tail.append(f"  {names[int(s)]:14} +P{m['perfect']} +S{m['strong']} +W{m['weak']} "
                        f"+N{m['negative']}   left: {left}")
        pages.append(tail)
    final = ["=== Final ==="]
    for s, t in sorted(record["totals"].items(), key=lambda kv: -kv[1]["score"]):
        final.append(f"  {names[int(s)]:14} {t['score']:5}")
    pages.append(final)
    return pages


def load_record(path: Path) -> dict[str, Any]:
    data = path.read_bytes()
    if data.startswith(b"SPLITLOG"):
        from splitnet.session.transcript import read_transcript
        from splitnet.verify import verify_records

        v = verify_records(read_transcript(path))
        if not v.ok or v.record is None:
            raise ValueError(f"the transcript does not verify: {v.summary}")
        return v.record
    rec = json.loads(data)
    if not isinstance(rec, dict) or rec.get("format") != "splitnet-game-record/1":
        raise ValueError("not a splitnet transcript or game record")
    return rec


def run_replay(path: Path, step: bool = False,
               wait: Callable[[], str] | None = None) -> int:
    try:
        record = load_record(path)
    except (OSError, ValueError) as e:
        print(f"splitnet replay: {path}: {e}", file=sys.stderr)
        return 1
    wait = wait or (lambda: input())
    for page in replay_lines(record):
        print("\n".join(page))
        if step:
            try:
                if wait().strip().lower() == "q":
                    break
            except EOFError:
                break
    return 0
