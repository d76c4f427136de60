"""Self-play: bots play whole games; the human-vs-bots session for ``play``."""

from __future__ import annotations

import random
import secrets
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from splitnet.app.fair import FairSession
from splitnet.bots import Bot, bot_label, bot_player_name, make_bot, open_hand_player
from splitnet.cards import card_id, pretty
from splitnet.frontend import HumanAgent
from splitnet.localplay import LocalTable, SeededShuffle
from splitnet.rules import Settings

if TYPE_CHECKING:
    from splitnet.app.saved import LocalSecrets
    from splitnet.game.core import GameCore
    from splitnet.game.local import LocalGame
    from splitnet.session.log import Header
    from splitnet.session.transcript import TranscriptWriter


def summary(record: dict[str, Any]) -> str:
    """Round-by-round summary and final totals, in words."""
    players = [p["name"] for p in record["players"]]
    lines = []
    for rnd in record["rounds"]:
        end = rnd["end"]
        how = {"out": "went out", "pile_empty": "drew the last card"}.get(
            end["reason"], "was given up for gone (R8.6)")
        lines.append(f"Round {rnd['number']} (dealer {players[rnd['dealer']]}): "
                     f"{players[end['seat']]} {how} after {len(rnd['turns'])} turns")
        for s, m in end["marks"].items():
            left = " ".join(pretty(card_id(c)) if c is not None else "?"
                            for c in end["hands_left"][s]) or "-"
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
                 local_shuffle: bool = False, shuffle_proofs: bool = True,
                 samples: int = 48) -> int:
    """Bots play a whole game. By default every deal goes through the fair-deck protocol
    among separate in-memory peers whose secrets all derive from ``seed``; the record is
    the one ``verify`` derives from the transcript. Strong bots search a fixed number of
    ``samples`` per decision (no clock), so the same arguments give the same game."""
    settings.check_players(n)
    bots = [make_bot(b, seed * 100 + i, samples=samples) for i, b in enumerate(bot_names)]
    names = [bot_player_name(i) for i in range(len(bot_names))]
    if local_shuffle:
        if transcript:
            raise SystemExit("splitnet: --transcript: --local-shuffle makes no transcript")
        rec = LocalTable(names, bots, SeededShuffle(seed), settings).run()
    else:
        from splitnet.game.local import LocalGame, SelfplaySecrets
        from splitnet.verify import verify_records

        path = Path(transcript) if transcript else None
        if path is not None and path.exists():
            path.unlink()  # the same arguments always give the same file
        game = LocalGame(names, settings, SelfplaySecrets(seed), shuffle_proofs=shuffle_proofs,
                         transcript=path, open_hand=open_hand_player)
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
    print("Bots: " + ", ".join(bot_label(nm, b) for nm, b in zip(names, bot_names,
                                                                 strict=True)))
    print(summary(rec))
    if record:
        from splitnet.record import dumps

        Path(record).write_text(dumps(rec), encoding="utf-8")
    return 0


def human_session(name: str, bot_names: Sequence[str], seed: int | None,
                  settings: Settings, *, bot_delay: float = 0.0,
                  shuffle_proofs: bool = True, data_dir: Path | None = None,
                  game_no: int = 0, think: float | None = None) -> FairSession:
    """You against bots on this machine, every deal by the fair-deck protocol.

    With ``seed`` the bots and every peer's secrets are reproducible (testing); without,
    the secrets come from the operating system's random source. With ``data_dir`` the
    game is saved there as it is played (:mod:`splitnet.app.saved`) so that
    :func:`resume_session` can take it up again. ``game_no`` counts the games played in
    a row against the same players (a rematch): each one is seated one place further
    round the table, so the next player deals its first round (seat 0 deals round 1,
    R3.2) while the order of play stays the same; with ``seed`` each game has its own
    deal. The save records the seat this gives you and every seat's bot kind and seed.
    ``think``: the strong bots' seconds per decision (default 0.3).
    """
    from splitnet.app import saved
    from splitnet.game.local import LocalGame, RandomSecrets, SelfplaySecrets

    settings.check_players(len(bot_names) + 1)
    rng = random.Random(seed if seed is not None else secrets.randbits(64))
    bot_seeds = [0] + [rng.randrange(2**31) for _ in bot_names]
    bots = [make_bot(b, bot_seeds[i + 1], budget=think) for i, b in enumerate(bot_names)]
    names = [name] + [bot_player_name(i, taken=[name]) for i in range(len(bots))]
    agents: list[Bot | None] = [None, *bots]
    kinds: list[str | None] = [None, *bot_names]
    k = game_no % len(names)
    names, agents = names[k:] + names[:k], agents[k:] + agents[:k]
    kinds, bot_seeds = kinds[k:] + kinds[:k], bot_seeds[k:] + bot_seeds[:k]
    seat = (len(names) - k) % len(names)
    game_seed = None if seed is None else seed + game_no
    source: Any = SelfplaySecrets(game_seed) if game_seed is not None else RandomSecrets()
    path = None
    if data_dir is not None:
        if isinstance(source, SelfplaySecrets):
            seeded = source
            source = saved.create(data_dir, seeded.game_id(), name, seat, kinds, bot_seeds,
                                  keys=[seeded.identity_seed(s) for s in range(len(kinds))],
                                  make=seeded.round_seeds)
        else:
            source = saved.create(data_dir, source.game_id(), name, seat, kinds, bot_seeds)
        path = source.files.transcript
    game = LocalGame(names, settings, source, shuffle_proofs=shuffle_proofs, transcript=path,
                     checker=_play_checker(shuffle_proofs),
                     open_hand=open_hand_player)
    if data_dir is not None:
        saved.finish_when_over(game, data_dir)
    session = FairSession(game, seat, agents, HumanAgent(), bot_delay=bot_delay)
    session.numbers = run_numbers(len(names), k)
    return session


def _play_checker(proofs: bool) -> Any:
    """You and the bots in one process: the other seats' shuffle proofs are checked in
    worker processes (the machine's other core), each hop once for all the peers here
    (protocol/SECURITY.md, "Pipelined shuffle checks")."""
    if not proofs:
        return None
    from splitnet.game.pool import shared_pool

    return shared_pool()


def resume_session(data_dir: Path, meta: Any, *, bot_delay: float = 0.0,
                   think: float | None = None) -> FairSession:
    """Take up a saved local game where it stopped: the transcript is reopened (a torn
    tail from a crash is cut), every entry re-verified and re-applied to every seat with
    the seeds each seat saved, and the log narrated again. Raises
    :class:`~splitnet.app.saved.SavedGameError` (one line) if it cannot be resumed."""
    from splitnet.app import saved
    from splitnet.game.local import LocalGame, settings_from_header

    def build(h: Header, source: LocalSecrets, writer: TranscriptWriter
              ) -> tuple[LocalGame[GameCore], FairSession]:
        settings, proofs = settings_from_header(h.settings)
        names = [p.name for p in h.players]
        game = LocalGame(names, settings, source, shuffle_proofs=proofs, writer=writer,
                         checker=_play_checker(proofs),
                         open_hand=open_hand_player)
        bots = [make_bot(k, source.bot_seeds[s], budget=think) if k is not None else None
                for s, k in enumerate(source.bots)]
        return game, FairSession(game, meta.seat, bots, HumanAgent(), bot_delay=bot_delay)

    session = saved.resume_local(data_dir, meta, build)
    session.numbers = run_numbers(len(session.players), place_in_run(session))
    return session


def place_in_run(session: FairSession) -> int:
    """Which game of a run against the same players ``session`` is (the ``game_no`` of
    :func:`human_session`), as far as its seats tell: the person at seat ``(n - k) % n``
    plays game ``k`` (modulo the number of players ``n``; all a resumed game knows)."""
    n = len(session.players)
    return (n - session.seat) % n


def run_numbers(n: int, game_no: int) -> list[int]:
    """Each seat's number on the screens in game ``game_no`` of a run (the session's
    ``numbers``): the number its player had in the run's first game, so that the key
    naming a player (a perfect bonus, R5.1) stays the same from game to game although
    each game seats everyone one place on.

    >>> run_numbers(4, 0), run_numbers(4, 1)  # game 1: Ana (2) sits at seat 0
    ([1, 2, 3, 4], [2, 3, 4, 1])
    """
    return [(s + game_no) % n + 1 for s in range(n)]


def rematch_session(prev: FairSession, game_no: int, seed: int | None, *,
                    bot_delay: float = 0.0, data_dir: Path | None = None) -> FairSession:
    """Game ``game_no`` of the run ``prev`` belongs to (a rematch; ``prev`` may be new or
    resumed from its save): the same person, bot kinds and rules, seated as
    :func:`human_session` seats that game, and saved in ``data_dir`` like any game."""
    from splitnet.game.local import settings_from_header

    n = len(prev.players)
    back = n - place_in_run(prev)
    kinds = [b.name if b is not None else None for b in prev.bots]
    kinds = kinds[back:] + kinds[:back]  # the first game's order: the person at seat 0
    bot_kinds = [k for k in kinds[1:] if k is not None]
    if kinds[0] is not None or len(bot_kinds) != n - 1:
        raise ValueError("a rematch needs one person and a bot at every other seat")
    from splitnet.bots.search import StrongBot

    settings, proofs = settings_from_header(prev.game.log.header.settings)
    think = next((b.config.budget for b in prev.bots if isinstance(b, StrongBot)), None)
    return human_session(prev.players[prev.seat], bot_kinds, seed, settings,
                         bot_delay=bot_delay, shuffle_proofs=proofs, data_dir=data_dir,
                         game_no=game_no, think=think)
