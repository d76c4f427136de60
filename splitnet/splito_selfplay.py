"""``splitnet selfplay --game splito``: bots play a whole game of Splito on this machine.

A test tool until the fair table runs Splito: the deal is the seeded local stand-in
(:class:`splitnet.splito.local.SeededDeal`), which one process knows entirely, so it
requires ``--local-shuffle``. Each seat's bot still plays on its own view (S7) and every
play goes through commit and reveal (S7.3); the record (S12) is re-checked by the
referee (S12.4) before it is printed or written.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from splitnet.localfiles import MAX_SETTINGS_BYTES, LocalFileError, read_json
from splitnet.splito.bots import make_bot
from splitnet.splito.local import play_local
from splitnet.splito.record import check_record, dumps, summary
from splitnet.splito.settings import SettingsError, SplitoSettings


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


def run_splito_selfplay(players: int, bot_names: Sequence[str], seed: int,
                        settings_path: str | None, *, record: str | None,
                        local_shuffle: bool, transcript: str | None) -> int:
    if not local_shuffle:
        raise SystemExit("splitnet: Splito is dealt only by the seeded local stand-in so far; "
                         "add --local-shuffle (a test tool, not a fair deal)")
    if transcript:
        raise SystemExit("splitnet: --local-shuffle makes no transcript")
    if not 2 <= players <= 8:
        raise SystemExit(f"splitnet: Splito is for 2 to 8 players (S2.1), not {players}")
    settings = load_settings(settings_path, players)
    try:
        bots = [make_bot(b, seed * 100 + i) for i, b in enumerate(bot_names)]
    except ValueError as e:
        raise SystemExit(f"splitnet: {e}") from None
    names = [f"{b}-{i}" for i, b in enumerate(bot_names)]
    rec = play_local(settings, bots, seed, names=names).record
    verdict = check_record(rec)
    if not verdict.ok:
        print("splitnet: the game's own record does not pass the referee: "
              + "; ".join(verdict.faults), file=sys.stderr)
        return 1
    print(summary(rec))
    if record:
        Path(record).write_text(dumps(rec), encoding="utf-8")
    return 0
