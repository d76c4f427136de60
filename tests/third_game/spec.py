"""High Card as the table and the commands see it: its :class:`~splitnet.games.GameSpec`
(what the network's table, the verifier, the saved games and the rematch ask of a game)
and its :class:`~splitnet.frontends.FrontEnd` (what ``host``/``join``/``bot``, ``replay``
and the LAN seat ask). Registering the entry (:func:`splitnet.frontends.register`, or
``tests.third_game.registered()``) makes the game one more a table here runs; nothing
under ``splitnet/`` names it."""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from splitnet.frontends import FrontEnd, Replay
from splitnet.games import Ending, GameSpec, SeatGame, Seating

if TYPE_CHECKING:
    from splitnet.net.table import GameChoice
    from splitnet.session.log import Entry

KEY: Final = "highcard"
TITLE: Final = "High Card"


# ------------------------------------------------------------------------- the header
def header(players: int, hand: int = 3, *, proofs: bool = True) -> dict[str, Any]:
    """The header's settings map of a High Card game (README.md "Header")."""
    from splitnet.game.table import LIMITS_KEY, PROTOCOL, Limits
    from tests.third_game.rules import Settings

    return {"protocol": PROTOCOL, "game": KEY, "rules": Settings(players, hand).to_dict(),
            "shuffle_proofs": proofs, LIMITS_KEY: Limits().to_dict()}


def from_header(raw: Mapping[str, Any]) -> tuple[Any, bool, int]:
    """(Settings, proofs, first dealer) of a header's settings map; ValueError naming
    the field for one that is not High Card's."""
    from splitnet.game.rematch import REMATCH_KEY, first_dealer
    from splitnet.game.table import LIMITS_KEY, limits_from_header
    from tests.third_game.rules import Settings, SettingsError

    want = {"protocol", "game", "rules", "shuffle_proofs", LIMITS_KEY}
    if raw.get("game") != KEY or set(raw) - {REMATCH_KEY} != want:
        raise ValueError(f"header.settings: a High Card header has exactly "
                         f"{', '.join(sorted(want))} (and a rematch's rematch)")
    limits_from_header(raw)
    if not isinstance(raw["shuffle_proofs"], bool):
        raise ValueError("header.settings.shuffle_proofs: true or false")
    try:
        settings = Settings.from_dict(raw["rules"])
    except SettingsError as e:
        raise ValueError(f"header.settings.rules: {e}") from None
    return settings, raw["shuffle_proofs"], first_dealer(raw, settings.players)


# ------------------------------------------------------------------------- the spec
def _check_header(settings: Mapping[str, Any], players: int | None) -> None:
    rules, _, _ = from_header(settings)
    if players is not None and players != rules.players:
        raise ValueError("the High Card settings are not for this many players (H2)")


def _seat(s: Seating) -> SeatGame:
    from splitnet.game.table import limits_from_header
    from tests.third_game.core import HighCardCore

    h = s.header
    rules, proofs, dealer = from_header(h.settings)
    secrets = s.secrets
    core = HighCardCore(h.game_id, [p.name for p in h.players], rules, s.seat,
                        secrets.seed if secrets is not None else None, host=h.host,
                        first_dealer=dealer, proofs=proofs, pledges=secrets,
                        limits=limits_from_header(h.settings))
    return SeatGame(core, proofs, dealer)


def pledge_position(kind: str, body: dict[str, Any]) -> tuple[int, str] | None:
    """GAME.md "Pledges", as HighCardCore pledges: its hop at (1, "shuffle"), its deal
    and its plays at (1, "shares"), its opening at (1, "open")."""
    step = {"shuffle": "shuffle", "deal": "shares", "move": "shares",
            "open": "open"}.get(kind)
    return None if step is None else (1, step)


def _progress(settings: object, entries: Sequence[Entry], players: int) -> str:
    """"trick 2 of 3": the trick under way (H4), by the plays in the log."""
    try:
        tricks: int | None = from_header(settings)[0].hand if isinstance(
            settings, Mapping) else None
    except ValueError:  # said when the game is resumed
        tricks = None
    done = sum(e.kind == "move" for e in entries) // max(players, 1)
    if not any(e.kind == "move" for e in entries):
        return "not played yet"
    if tricks is not None and done >= tricks:
        return f"all {tricks} tricks played"
    return f"trick {done + 1}" + (f" of {tricks}" if tricks is not None else "")


def _ending(core: Any, names: Sequence[str]) -> Ending:
    from tests.third_game.core import HighCardCore
    from tests.third_game.record import check_record, trick_lines

    assert isinstance(core, HighCardCore)
    if not core.finished or core.record is None:
        return Ending(None, f"at {core.stage.value}")
    rec = core.record
    referee = check_record(rec)
    if not referee.ok:  # pragma: no cover - the core applies the same rules
        return Ending(rec, fault="H7: the record fails the referee: " + referee.faults[0])
    shown_rec = {**rec, "players": list(names)}
    lines = [*trick_lines(shown_rec),
             *(f"  {names[s]:16} {w}" for s, w in enumerate(rec["won"])),
             "winner: " + " and ".join(names[s] for s in rec["winners"]),
             "shuffle proofs: " + ("checked at every hop" if core.shuffle_proofs
                                   else "not used (hops checked at the audit)")]
    return Ending(rec, title="High Card, ", dealt="dealt first (H3.1)", lines=tuple(lines))


def _record_format() -> str:
    from tests.third_game.record import FORMAT

    return FORMAT


SPEC: Final = GameSpec(key=KEY, title=TITLE, min_players=2, max_players=4, seat_rule="H2",
                       named=True, check_header=_check_header,
                       default_header=lambda n, proofs: header(n, proofs=proofs), seat=_seat,
                       pledge_position=pledge_position, record_format=_record_format(),
                       progress=_progress, ending=_ending, dealer_rule="H3.1")


# ------------------------------------------------------------------------- front ends
def _unsupported(what: str) -> Callable[..., int]:
    def run(*_args: object) -> int:
        print(f"splitnet: High Card has no {what} (it is the example game of "
              "docs/ADDING_A_GAME.md): play it with host --play-as-bot, join's bots, or "
              "splitnet bot", file=sys.stderr)
        return 2
    return run


def _choice(settings_path: str | None, seats: int | None, _move_timeout: float,
            proofs: bool) -> GameChoice:
    from splitnet.net.table import GameChoice

    if settings_path is not None:
        raise SystemExit("splitnet: High Card takes no settings file")
    return GameChoice(SPEC, seats or SPEC.max_players, lambda n: header(n, proofs=proofs))


def _bot(node: Any, task: asyncio.Future[Any], level: str, seed: int,
         _think: float | None, delay: float) -> Any:
    from tests.third_game.bot import Bot
    from tests.third_game.session import HighCardNetSession

    return HighCardNetSession(node, task, bot=Bot(level if level != "strong" else "normal",
                                                  seed), bot_delay=delay)


def _human(_node: Any, _task: asyncio.Future[Any]) -> Any:
    raise SystemExit("splitnet: High Card has no table for a person; seat a bot "
                     "(splitnet bot, host --play-as-bot)")


def _summary(record: dict[str, Any]) -> str:
    from tests.third_game.record import summary

    return summary(record)


def _check(rec: object, path: Path) -> dict[str, Any]:
    from splitnet.localfiles import LocalFileError
    from tests.third_game.record import check_record

    verdict = check_record(rec)
    if not verdict.ok:
        raise LocalFileError(path, f"not a valid High Card record (H7): {verdict.faults[0]}")
    assert isinstance(rec, dict)
    return rec


def _replay(record: dict[str, Any], step: bool, wait: Callable[[], str] | None) -> int:
    from splitnet.text import shown
    from tests.third_game.record import summary

    lines = [shown(line) for line in summary(record).splitlines()]
    print(lines[0], flush=True)
    for line in lines[1:]:
        if step:
            (wait or input)()
        print(line, flush=True)
    return 0


def _selfplay(_args: argparse.Namespace, _bots: list[str]) -> int:
    return _unsupported("self-play")()


def _play(_args: argparse.Namespace) -> int:
    return _unsupported("table for a person on this machine")()


FRONT: Final = FrontEnd(SPEC, selfplay=_selfplay, play=_play, choice=_choice,
                        seats_of=lambda _path: None, bot=_bot, human=_human,
                        summary=_summary, replay=Replay(_check, _replay))
