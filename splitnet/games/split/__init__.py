"""Split (docs/RULES.md; on the fair deck, protocol/GAME.md) as a table runs it: the first
game, whose header has no ``game`` key."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from splitnet.games import Ending, GameSpec, SeatGame, Seating

if TYPE_CHECKING:
    from splitnet.session.log import Entry


def _check_header(settings: Mapping[str, Any], players: int | None) -> None:
    from splitnet.game.rematch import first_dealer
    from splitnet.games.split.local import settings_from_header

    settings_from_header(settings)
    if players is not None:
        first_dealer(settings, players)


def _default_header(_players: int, proofs: bool) -> dict[str, Any]:
    """docs/RULES.md's rules (SETTINGS.md: every default), with or without proofs."""
    from splitnet.games.split.local import game_settings
    from splitnet.games.split.rules import Settings

    return game_settings(Settings(), shuffle_proofs=proofs)


def _seat(s: Seating) -> SeatGame:
    from splitnet.game.rematch import first_dealer
    from splitnet.game.table import limits_from_header
    from splitnet.games.split.core import GameCore
    from splitnet.games.split.local import settings_from_header
    from splitnet.games.split.open_hand_policy import open_hand_player

    h = s.header
    settings, proofs = settings_from_header(h.settings)
    dealer = first_dealer(h.settings, len(h.players))  # R3.2: seat 0, or the rematch's
    secrets = s.secrets
    core = GameCore(h.game_id, [p.name for p in h.players], settings, s.seat,
                    secrets.seed if secrets is not None else None,
                    shuffle_proofs=proofs, host=h.host, pledges=secrets, moves=secrets,
                    keys=[p.key for p in h.players], first_dealer=dealer,
                    checker=s.checker, open_hand=open_hand_player,  # R8.6, OPEN_HAND.md
                    limits=limits_from_header(h.settings))
    return SeatGame(core, proofs, dealer)


def _pledge_position(kind: str, body: dict[str, Any]) -> tuple[int, str] | None:
    from splitnet.games.split.core import pledge_position

    return pledge_position(kind, body)


def _check_move(move: dict[str, Any]) -> None:
    """A kept move is a move of Split's (rules/actions.py; ValueError if not)."""
    from splitnet.games.split.rules import action_from_dict

    action_from_dict(move)


def _progress(settings: object, entries: Sequence[Entry], _players: int) -> str:
    """"round 2 of 3": the round the last entry belongs to (R3.2)."""
    from splitnet.games.split.local import settings_from_header

    rounds = [r for e in entries
              if isinstance(r := e.body.get("round"), int) and not isinstance(r, bool)]
    if not rounds:
        return "not dealt yet"
    try:
        of = f" of {settings_from_header(settings)[0].rounds}"
    except ValueError:  # a SettingsError: said when the game is resumed
        of = ""
    return f"round {max(rounds)}{of}"


def _ending(core: Any, names: Sequence[str]) -> Ending:
    """A Split verifier's end: each round's end, every abandonment (R8.6), the totals,
    the winner and the shuffle proofs (TRANSCRIPT.md §10)."""
    from splitnet.games.split.core import GameCore
    from splitnet.games.split.record import round_ended

    assert isinstance(core, GameCore)
    if not core.finished:
        stage = core.round.stage if core.round else "?"
        return Ending(None, f"in round {len(core.rounds)} ({stage})", partial=core.record)
    game = core.record
    assert game is not None
    lines = []
    for rnd in game["rounds"]:
        end = rnd["end"]
        how = round_ended(end, given_up="was given up for gone (R8.6): the round ended as "
                          "it stood")
        lines.append(f"round {rnd['number']}: {names[end['seat']]} {how}; "
                     f"{len(rnd['turns'])} turns")
    cut = {(r.number, r.cut) for r in core.rounds if r.cut is not None}
    for deal, seat, waited in core.abandonments:  # R8.6, GAME.md "abandon"
        what = ("that round ended as it stood, scored" if (deal, seat) in cut
                else "that deal was void, before any card existed, and was dealt again")
        lines.append(f"deal {deal}: {names[seat]} abandoned by the host after {waited} s — "
                     f"{what}; the seat played open-handed from then on")
    for s, t in sorted(game["totals"].items(), key=lambda kv: -kv[1]["score"]):
        lines.append(f"  {names[int(s)]:16} {t['score']:5}")
    lines.append("winner: " + " and ".join(names[w] for w in game.get("winners", [])))
    lines.append("shuffle proofs: " + ("checked at every hop" if core.shuffle_proofs
                                       else "not used (hops checked at the audit)"))
    return Ending(game, dealt="dealt first (R3.2)", lines=tuple(lines))


SPLIT = GameSpec(key="split", title="Split", min_players=2, max_players=6, seat_rule="R3.1",
                 named=False, check_header=_check_header, default_header=_default_header,
                 seat=_seat,
                 pledge_position=_pledge_position, record_format="splitnet-game-record/1",
                 progress=_progress, ending=_ending, moves_pledged=True,
                 check_move=_check_move,
                 modules=("games.split", "localplay", "app.lan_session", "ui.plain",
                          "ui.tui.app", "ui.tui.model", "ui.tui.render", "ui.tui.advice",
                          "ui.tui.summary", "ui.tui.results", "bench.split"))
