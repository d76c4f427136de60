"""Self-play: bots play whole games; the human-vs-bots session for ``play``."""

from __future__ import annotations

import random
import secrets
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from splitnet.bots import Bot, make_bot
from splitnet.cards import card_id, pretty
from splitnet.frontend import HumanAgent
from splitnet.game.local import FairSession
from splitnet.localplay import LocalTable, SeededShuffle
from splitnet.rules import Settings

BOT_NAMES = ("Ana", "Bo", "Cy", "Dee", "Eli")


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
            left = " ".join(pretty(card_id(c)) for c in end["hands_left"][s]) or "-"
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
                 local_shuffle: bool = False, shuffle_proofs: bool = True) -> int:
    """Bots play a whole game. By default every deal goes through the fair-deck protocol
    among separate in-memory peers whose secrets all derive from ``seed``; the record is
    the one ``verify`` derives from the transcript."""
    settings.check_players(n)
    bots = [make_bot(b, seed * 100 + i) for i, b in enumerate(bot_names)]
    names = [f"{b}-{i}" for i, b in enumerate(bot_names)]
    if local_shuffle:
        if transcript:
            raise SystemExit("splitnet: --local-shuffle makes no transcript")
        rec = LocalTable(names, bots, SeededShuffle(seed), settings).run()
    else:
        from splitnet.game.local import LocalGame, SelfplaySecrets
        from splitnet.verify import verify_records

        path = Path(transcript) if transcript else None
        if path is not None and path.exists():
            path.unlink()  # the same arguments always give the same file
        game = LocalGame(names, settings, SelfplaySecrets(seed), shuffle_proofs=shuffle_proofs,
                         transcript=path)
        try:
            game.run_bots(bots)
        finally:
            game.close()
        verdict = verify_records(game.log.records())
        if not verdict.ok or verdict.record is None:
            print(f"splitnet: the game's own transcript does not verify: {verdict.summary}",
                  file=sys.stderr)
            return 1
        rec = verdict.record
    print(summary(rec))
    if record:
        from splitnet.record import dumps

        Path(record).write_text(dumps(rec), encoding="utf-8")
    return 0


def human_session(name: str, bot_names: Sequence[str], seed: int | None,
                  settings: Settings, *, bot_delay: float = 0.0,
                  shuffle_proofs: bool = True, game_no: int = 0) -> FairSession:
    """You against bots on this machine, every deal by the fair-deck protocol.

    With ``seed`` the bots and every peer's secrets are reproducible (testing); without,
    the secrets come from the operating system's random source. ``game_no`` counts the
    games played in a row against the same players (a rematch): each one is seated one
    place further round the table, so the next player deals its first round (seat 0
    deals round 1, R3.2) while the order of play stays the same; with ``seed`` each
    game has its own deal.
    """
    from splitnet.game.local import LocalGame, RandomSecrets, SelfplaySecrets

    rng = random.Random(seed if seed is not None else secrets.randbits(64))
    bots = [make_bot(b, rng.randrange(2**31)) for b in bot_names]
    names = [name] + [n if n != name else f"{n}2" for n in BOT_NAMES[:len(bots)]]
    agents: list[Bot | None] = [None, *bots]
    k = game_no % len(names)
    names, agents = names[k:] + names[:k], agents[k:] + agents[:k]
    seat = (len(names) - k) % len(names)
    game_seed = None if seed is None else seed + game_no
    source = SelfplaySecrets(game_seed) if game_seed is not None else RandomSecrets()
    game = LocalGame(names, settings, source, shuffle_proofs=shuffle_proofs)
    return FairSession(game, seat, agents, HumanAgent(), bot_delay=bot_delay)
