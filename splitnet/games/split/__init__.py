"""Split (docs/RULES.md; on the fair deck, protocol/GAME.md) as a table runs it: the first
game, whose header has no ``game`` key."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from splitnet.games import GameSpec, SeatGame, Seating

if TYPE_CHECKING:
    from splitnet.session.log import Entry


def _check_header(settings: Mapping[str, Any], players: int | None) -> None:
    from splitnet.game.local import settings_from_header
    from splitnet.game.rematch import first_dealer

    settings_from_header(settings)
    if players is not None:
        first_dealer(settings, players)


def _seat(s: Seating) -> SeatGame:
    from splitnet.game.core import GameCore
    from splitnet.game.local import settings_from_header
    from splitnet.game.rematch import first_dealer
    from splitnet.game.table import limits_from_header

    h = s.header
    settings, proofs = settings_from_header(h.settings)
    dealer = first_dealer(h.settings, len(h.players))  # R3.2: seat 0, or the rematch's
    secrets = s.secrets
    core = GameCore(h.game_id, [p.name for p in h.players], settings, s.seat,
                    secrets.seed if secrets is not None else None,
                    shuffle_proofs=proofs, host=h.host, pledges=secrets, moves=secrets,
                    keys=[p.key for p in h.players], first_dealer=dealer,
                    checker=s.checker, open_hand=s.open_hand,
                    limits=limits_from_header(h.settings))
    return SeatGame(core, proofs, dealer)


def _pledge_position(kind: str, body: dict[str, Any]) -> tuple[int, str] | None:
    from splitnet.game.core import pledge_position

    return pledge_position(kind, body)


def _progress(settings: object, entries: Sequence[Entry], _players: int) -> str:
    """"round 2 of 3": the round the last entry belongs to (R3.2)."""
    from splitnet.game.local import settings_from_header

    rounds = [r for e in entries
              if isinstance(r := e.body.get("round"), int) and not isinstance(r, bool)]
    if not rounds:
        return "not dealt yet"
    try:
        of = f" of {settings_from_header(settings)[0].rounds}"
    except ValueError:  # a SettingsError: said when the game is resumed
        of = ""
    return f"round {max(rounds)}{of}"


SPLIT = GameSpec(key="split", title="Split", min_players=2, max_players=6, seat_rule="R3.1",
                 named=False, check_header=_check_header, seat=_seat,
                 pledge_position=_pledge_position, record_format="splitnet-game-record/1",
                 progress=_progress, moves_pledged=True,
                 modules=("rules", "game.core", "game.local", "game.open_hand",
                          "game.open_hand_policy", "record", "describe", "bots", "selfplay",
                          "localplay", "app.fair", "app.lan_session", "ui.plain",
                          "ui.tui.app", "ui.tui.model", "ui.tui.render", "ui.tui.advice",
                          "ui.tui.summary", "ui.tui.results", "bench.split"))
