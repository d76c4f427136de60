"""``splitnet selfplay --game splito``: bots play a whole game of Splito on this machine.

By default the game runs on the fair deck among separate in-memory peers
(:class:`splitnet.games.splito.core.SplitoCore`, protocol/SPLITO_GAME.md): every seat
shuffles both decks with proofs, is dealt privately, commits to each play before any is
revealed (S7.3) and receives the passed hands as shares sealed to it (S5.4); the
transcript is then verified as ``splitnet verify`` does, and the record is the audit's.
With ``--local-shuffle`` the deal is the seeded local stand-in
(:class:`splitnet.games.splito.local.SeededDeal`, a test tool one process knows entirely).
Either way the record (S12) is re-checked by the referee (S12.4) before it is printed
or written.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from splitnet.crypto.deck import MAX_PLAYERS as MAX_DECK_SEATS
from splitnet.game.table import GameError, PledgeBook
from splitnet.games.splito.bots import Bot, make_bot
from splitnet.games.splito.local import play_local
from splitnet.games.splito.record import check_record, dumps, summary
from splitnet.games.splito.settings import SettingsError, SplitoSettings
from splitnet.localfiles import MAX_SETTINGS_BYTES, LocalFileError, read_json

if TYPE_CHECKING:
    from splitnet.games.split.local import LocalGame
    from splitnet.games.splito.core import SplitoCore


def load_settings(path: str | None, players: int) -> SplitoSettings:
    """The defaults of S13 for ``players``, or a settings file naming every key."""
    try:
        if path is None:
            return SplitoSettings.standard(players)
        data = read_json(Path(path), limit=MAX_SETTINGS_BYTES, what="settings file")
        if not isinstance(data, dict):
            raise SettingsError(f"{path}: the settings file must hold a JSON object")
        s = SplitoSettings.from_dict(data)
    except (LocalFileError, SettingsError) as e:
        raise SystemExit(f"splitnet: {e}") from None
    if s.players != players:
        raise SystemExit(f"splitnet: the settings are for {s.players} players, not {players}")
    return s


def play_fair(settings: SplitoSettings, bots: Sequence[Bot], seed: int, names: Sequence[str],
              transcript: str | None, *,
              on_step: Callable[[LocalGame[SplitoCore]], None] | None = None
              ) -> dict[str, Any] | None:
    """Bots play on the fair deck; the verified record, or None (said on stderr).
    ``on_step``: called after every step of the game (a benchmark's clock)."""
    from splitnet.game.table import PROTOCOL
    from splitnet.games.split.local import LocalGame, SelfplaySecrets
    from splitnet.games.splito.core import SplitoCore, splito_header
    from splitnet.verify import verify_records

    if settings.players > MAX_DECK_SEATS:
        raise SystemExit(f"splitnet: the fair deck seats at most {MAX_DECK_SEATS} players "
                         f"so far, not {settings.players}")

    def make(game_id: bytes, seat: int, seeds: Callable[[int], bytes], pledges: PledgeBook,
             keys: list[bytes]) -> SplitoCore:
        return SplitoCore(game_id, names, settings, seat, seeds, pledges=pledges,
                          checker=checker)

    # the bots in one process: each hop checked once for all of them, in worker processes
    # (protocol/SECURITY.md §2.1, "Checked once per process")
    from splitnet.game.pool import shared_pool

    checker = shared_pool()

    path = Path(transcript) if transcript else None
    if path is not None and path.exists():
        path.unlink()  # the same arguments always give the same file
    game = LocalGame(names, settings, SelfplaySecrets(seed), transcript=path, make_core=make,
                     header=splito_header(settings, PROTOCOL))
    try:
        game.run_bots(bots, on_step=on_step)
    except GameError as e:  # pragma: no cover - honest bots on honest peers
        print(f"splitnet: the game stopped: {e}", file=sys.stderr)
        return None
    finally:
        game.close()
    verdict = verify_records(game.log.records())
    if not verdict.ok or verdict.record is None:
        print(f"splitnet: the game's own transcript does not verify: {verdict.summary}",
              file=sys.stderr)
        return None
    return verdict.record


def run_splito_selfplay(players: int, bot_names: Sequence[str], seed: int,
                        settings_path: str | None, *, record: str | None,
                        local_shuffle: bool, transcript: str | None,
                        samples: int | None = None) -> int:
    if transcript and local_shuffle:
        raise SystemExit("splitnet: --transcript: --local-shuffle makes no transcript")
    if not 2 <= players <= 8:
        raise SystemExit(f"splitnet: Splito is for 2 to 8 players (S2.1), not {players}")
    settings = load_settings(settings_path, players)
    try:
        # strong bots take a fixed number of samples: the same seed gives the same game
        bots = [make_bot(b, seed * 100 + i, samples=samples) for i, b in enumerate(bot_names)]
    except ValueError as e:
        raise SystemExit(f"splitnet: {e}") from None
    names = [f"{b}-{i}" for i, b in enumerate(bot_names)]
    if local_shuffle:
        rec = play_local(settings, bots, seed, names=names).record
    else:
        fair = play_fair(settings, bots, seed, names, transcript)
        if fair is None:
            return 1
        rec = fair
    verdict = check_record(rec)
    if not verdict.ok:
        print("splitnet: the game's own record does not pass the referee: "
              + "; ".join(verdict.faults), file=sys.stderr)
        return 1
    print(summary(rec))
    if record:
        Path(record).write_text(dumps(rec), encoding="utf-8")
    return 0
