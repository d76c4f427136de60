"""Self-play: bots play whole games; the human-vs-bots session for ``play``."""

from __future__ import annotations

import json
import random
import secrets
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from splitnet.bots import make_bot
from splitnet.frontend import HumanAgent
from splitnet.localplay import LocalSession, LocalTable, SeededShuffle
from splitnet.rules import Settings


def summary(record: dict[str, Any]) -> str:
    """Round-by-round summary and final totals, in words."""
    players = [p["name"] for p in record["players"]]
    lines = []
    for rnd in record["rounds"]:
        end = rnd["end"]
        how = "went out" if end["reason"] == "out" else "drew the last card"
        lines.append(f"Round {rnd['number']} (dealer {players[rnd['dealer']]}): "
                     f"{players[end['seat']]} {how} after {len(rnd['turns'])} turns")
        for s, m in end["marks"].items():
            left = " ".join(end["hands_left"][s]) or "-"
            lines.append(f"  {players[int(s)]:14} +P{m['perfect']} +S{m['strong']} "
                         f"+W{m['weak']} +N{m['negative']}   left: {left}")
    lines.append("Totals:")
    for s, t in sorted(record["totals"].items(), key=lambda kv: -kv[1]["score"]):
        lines.append(f"  {players[int(s)]:14} {t['score']:5}  (P{t['perfect']} S{t['strong']} "
                     f"W{t['weak']} N{t['negative']})")
    winners = record.get("winners", [])
    lines.append("Winner: " + " and ".join(players[w] for w in winners))
    return "\n".join(lines)


def run_selfplay(n: int, bot_names: Sequence[str], seed: int, settings: Settings, *,
                 record: str | None = None, transcript: str | None = None,
                 local_shuffle: bool = False) -> int:
    settings.check_players(n)
    bots = [make_bot(b, seed * 100 + i) for i, b in enumerate(bot_names)]
    names = [f"{b}-{i}" for i, b in enumerate(bot_names)]
    table = LocalTable(names, bots, SeededShuffle(seed), settings)
    rec = table.run()
    print(summary(rec))
    if record:
        Path(record).write_text(json.dumps(rec, indent=1) + "\n", encoding="utf-8")
    if transcript:
        raise SystemExit("splitnet: --transcript needs the fair-deck protocol")
    return 0


def human_session(name: str, bot_names: Sequence[str], seed: int | None,
                  settings: Settings) -> LocalSession:
    """You at seat 0 against bots, on this machine."""
    seed = seed if seed is not None else secrets.randbits(32)
    rng = random.Random(seed)
    bots = [make_bot(b, rng.randrange(2**31)) for b in bot_names]
    names = [name] + [f"{b.name.title()}{i + 1}" for i, b in enumerate(bots)]
    human = HumanAgent()
    table = LocalTable(names, [None, *bots], SeededShuffle(seed), settings)
    return LocalSession(table, 0, human, bot_delay=0.0)
