"""Self-play: bots play whole games; the human-vs-bots session for ``play``."""

from __future__ import annotations

import random
import secrets
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from splitnet.cards import card_id, pretty
from splitnet.frontend import HumanAgent
from splitnet.games.split.bots import Bot, bot_label, bot_player_name, make_bot, open_hand_player
from splitnet.games.split.front.fair import FairSession
from splitnet.games.split.record import round_ended
from splitnet.games.split.rules import Settings
from splitnet.localplay import LocalTable, SeededShuffle

if TYPE_CHECKING:
    from splitnet.app.saved import LocalSecrets
    from splitnet.games.split.core import GameCore
    from splitnet.games.split.local import LocalGame
    from splitnet.session.log import Header
    from splitnet.session.transcript import TranscriptWriter


def summary(record: dict[str, Any]) -> str:
    """Round-by-round summary and final totals, in words."""
    players = [p["name"] for p in record["players"]]
    lines = []
    for rnd in record["rounds"]:
        end = rnd["end"]
        how = round_ended(end)
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
        from splitnet.games.split.local import LocalGame, SelfplaySecrets
        from splitnet.verify import verify_records

        path = Path(transcript) if transcript else None
        if path is not None and path.exists():
            path.unlink()  # the same arguments always give the same file
        from splitnet.game.checks import InlineChecker

        # every seat is a peer of this one process: each hop is checked once for all of
        # them (as ``splitnet play``'s and Splito selfplay's are), here, in this thread,
        # not once by each other seat; verify_records below checks every hop again
        game = LocalGame(names, settings, SelfplaySecrets(seed), shuffle_proofs=shuffle_proofs,
                         transcript=path, open_hand=open_hand_player,
                         checker=InlineChecker(share=True) if shuffle_proofs else None)
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
        from splitnet.games.split.record import dumps

        Path(record).write_text(dumps(rec), encoding="utf-8")
    return 0


def human_session(name: str, bot_names: Sequence[str], seed: int | None,
                  settings: Settings, *, bot_delay: float = 0.0,
                  shuffle_proofs: bool = True, data_dir: Path | None = None,
                  think: float | None = None) -> FairSession:
    """You (seat 0, dealing round 1, R3.2) against bots on this machine, every deal by the
    fair-deck protocol.

    With ``seed`` the bots and every peer's secrets are reproducible (testing); without,
    the secrets come from the operating system's random source. With ``data_dir`` the
    game is saved there as it is played (:mod:`splitnet.app.saved`) so that
    :func:`resume_session` can take it up again; the save records every seat's bot kind
    and seed. ``think``: the strong bots' seconds per decision (default 0.3).
    """
    from splitnet.games.split.local import game_settings

    settings.check_players(len(bot_names) + 1)
    names = [name] + [bot_player_name(i, taken=[name]) for i in range(len(bot_names))]
    return _new_session(names, 0, [None, *bot_names], seed,
                        game_settings(settings, shuffle_proofs), None, bot_delay=bot_delay,
                        data_dir=data_dir, think=think)


def rematch_session(prev: FairSession, seed: int | None, *, bot_delay: float = 0.0,
                    data_dir: Path | None = None) -> FairSession:
    """The next game of ``prev``'s table (n at its end screen; ``prev`` may be new or
    resumed from its save): the same players in the same seats with the same identity
    keys, bot kinds and rules, its header naming the game before (GAME.md "Rematch", as on
    a LAN, so ``splitnet verify FIRST SECOND`` checks the pair) and its first round dealt
    by the previous first dealer's left neighbour (R3.2); saved in ``data_dir`` and
    resumable like any game. With ``seed`` (the first game's) it is reproducible too: its
    secrets come from that seed and the previous game's id. ValueError if ``prev`` did
    not end with its audit passed."""
    from splitnet.app.saved import rematch_seed
    from splitnet.game.rematch import rematch_settings
    from splitnet.games.split.bots.search import StrongBot

    g = prev.game
    if not g.finished or g.verdict is not None:
        raise ValueError("a rematch follows a game played to its end")
    header = rematch_settings(g.log.header, g.log.head())
    kinds = [b.name if b is not None else None for b in prev.bots]
    keys = [g.source.identity_seed(s) for s in range(g.n)]
    think = next((b.config.budget for b in prev.bots if isinstance(b, StrongBot)), None)
    return _new_session(list(prev.players), prev.seat, kinds,
                        rematch_seed(seed, b"splitnet/rematch", g.log.game_id), header, keys,
                        bot_delay=bot_delay, data_dir=data_dir, think=think)


def rematch_dealer(session: FairSession) -> int:
    """The seat that deals round 1 of the rematch of ``session``'s game (R3.2: its first
    dealer's left neighbour) — whom its end screen's n names."""
    from splitnet.game.rematch import next_dealer

    return next_dealer(session.game.log.header)


def _new_session(names: list[str], seat: int, kinds: list[str | None], seed: int | None,
                 header: dict[str, Any], keys: list[bytes] | None, *,
                 bot_delay: float, data_dir: Path | None, think: float | None
                 ) -> FairSession:
    """A new Split game with this header settings map: the person at ``seat``, a bot of
    ``kinds[s]`` at every other seat (seeded from ``seed``, or at random), the seats'
    identity ``keys`` given (a rematch) or made; saved in ``data_dir`` if given."""
    from splitnet.app import saved
    from splitnet.games.split.local import LocalGame, settings_from_header

    settings, proofs = settings_from_header(header)
    rng = random.Random(seed if seed is not None else secrets.randbits(64))
    bot_seeds = [rng.randrange(2**31) if k is not None else 0 for k in kinds]
    agents: list[Bot | None] = [make_bot(k, bot_seeds[s], budget=think) if k is not None
                                else None for s, k in enumerate(kinds)]
    source, path = saved.new_source(data_dir, seed, names[seat], seat, kinds, bot_seeds,
                                    keys)
    game = LocalGame(names, settings, source, shuffle_proofs=proofs, transcript=path,
                     checker=_play_checker(proofs), open_hand=open_hand_player,
                     header=header)
    if data_dir is not None:
        saved.finish_when_over(game, data_dir)
    return FairSession(game, seat, agents, HumanAgent(), bot_delay=bot_delay)


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
    from splitnet.games.split.local import LocalGame, settings_from_header

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

    return saved.resume_local(data_dir, meta, build)
