"""A whole High Card game on this machine: every seat's core in-process, each message
signed by its seat, ordered by the host into the hash-chained log and written to the
transcript — :class:`splitnet.games.split.local.LocalGame`, the path every game's local play
takes, given this game's core."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from splitnet.game.table import PledgeBook
from splitnet.games.split.local import LocalGame, SelfplaySecrets
from tests.third_game.bot import Bot
from tests.third_game.core import HighCardCore
from tests.third_game.rules import Settings
from tests.third_game.spec import from_header, header


def local_game(names: list[str], seed: int, transcript: Path | None = None, *, hand: int = 3,
               proofs: bool = True) -> LocalGame[HighCardCore]:
    """A new game among ``names`` (seat 0 hosts), its secrets derived from ``seed``."""
    settings_map = header(len(names), hand, proofs=proofs)
    rules, _, dealer = from_header(settings_map)

    def make(game_id: bytes, seat: int, seeds: Any, pledges: PledgeBook,
             _keys: list[bytes]) -> HighCardCore:
        return HighCardCore(game_id, names, rules, seat, seeds, first_dealer=dealer,
                            proofs=proofs, pledges=pledges)

    return LocalGame(names, rules, SelfplaySecrets(seed), transcript=transcript,
                     make_core=make, header=settings_map)


def play_local(names: list[str], seed: int, transcript: Path | None = None,
               **kw: Any) -> LocalGame[HighCardCore]:
    """A whole game played by bots (normal, then easy ones); closed when it ends."""
    game = local_game(names, seed, transcript, **kw)
    game.run_bots([Bot("normal" if s == 0 else "easy", seed + s) for s in range(len(names))])
    game.close()
    return game


__all__ = ["Settings", "local_game", "play_local"]
