"""Splito (docs/SPLITO.md; on the fair deck, protocol/SPLITO_GAME.md) as a table runs it:
its header's ``game`` is ``"splito"``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from splitnet.games import Ending, GameSpec, SeatGame, Seating

if TYPE_CHECKING:
    from splitnet.session.log import Entry

KEY = "splito"


def _check_header(settings: Mapping[str, Any], players: int | None) -> None:
    from splitnet.games.splito.core import splito_from_header

    rules, _ = splito_from_header(settings)
    if players is not None and players != rules.players:
        raise ValueError("the Splito settings are not for this many players (S2.1)")


def _default_header(players: int, _proofs: bool) -> dict[str, Any]:
    """The standard rules for that many players (S2.1); Splito is dealt with shuffle
    proofs only (SPLITO_GAME.md), whatever ``proofs`` says."""
    from splitnet.game.table import PROTOCOL
    from splitnet.games.splito.core import splito_header
    from splitnet.games.splito.settings import SplitoSettings

    return splito_header(SplitoSettings.standard(players), PROTOCOL)


def _seat(s: Seating) -> SeatGame:
    from splitnet.game.table import limits_from_header
    from splitnet.games.splito.core import SplitoCore, splito_from_header

    h = s.header
    rules, proofs = splito_from_header(h.settings)
    secrets = s.secrets
    core = SplitoCore(h.game_id, [p.name for p in h.players], rules, s.seat,
                      secrets.seed if secrets is not None else None, host=h.host,
                      pledges=secrets, plays=secrets, checker=s.checker,
                      limits=limits_from_header(h.settings))
    return SeatGame(core, proofs, rules.dealer)  # S4.1: the rules name the dealer


def _pledge_position(kind: str, body: dict[str, Any]) -> tuple[int, str] | None:
    from splitnet.games.splito.core import pledge_position

    return pledge_position(kind, body)


def _progress(settings: object, entries: Sequence[Entry], players: int) -> str:
    """"turn 12 of 13": the turn under way — the first whose plays are not all
    revealed (S5.1, S5.3)."""
    from splitnet.games.splito.core import splito_from_header

    try:
        turns: int | None = splito_from_header(settings)[0].turns
    except ValueError:  # a SettingsError: said when the game is resumed
        turns = None
    if sum(e.kind == "deal" for e in entries) < players:
        return "not dealt yet"
    playing, done, shown = players, 0, 0
    for e in entries:  # a turn is done when every seat still playing revealed (S5.7)
        if e.kind == "abandon":
            playing -= 1
        elif e.kind == "reveal":
            shown += 1
            if shown == playing:
                done, shown = done + 1, 0
    if turns is not None and done >= turns:
        return f"all {turns} turns played"
    return f"turn {done + 1}" + (f" of {turns}" if turns is not None else "")


def _ending(core: Any, names: Sequence[str]) -> Ending:
    """A Splito verifier's end: the record (S12) past the referee (S12.4), the turns, who
    left (S5.7), the scores and the winner (TRANSCRIPT.md §10)."""
    from splitnet.games.splito.core import SplitoCore
    from splitnet.games.splito.record import check_record

    assert isinstance(core, SplitoCore)
    if not core.finished or core.record is None:
        return Ending(None, f"at {core.stage.value} (turn {core.engine.turn})")
    rec = core.record
    referee = check_record(rec)
    if not referee.ok:  # pragma: no cover - the core applies the same rules
        return Ending(rec, fault="S12.4: the record fails the referee: "
                      + "; ".join(referee.faults[:3]))
    lines = [f"{len(rec['turns'])} turns: every commitment opened by its reveal, every "
             "play legal, every passed hand's sealed shares checked (S7.3, S5.4)"]
    for turn, seat, waited in core.abandonments:  # S5.7, SPLITO_GAME.md "abandon"
        lines.append(f"turn {turn}: {names[seat]} left the game, given up by the host "
                     f"after {waited} s — its hand was set aside, the passes skipped it "
                     "(S5.7)")
    if core.abandonments:
        lines.append("not opened (S12.5): the cards never played stay unread; the record is "
                     "what the log reads")
    for s in sorted(rec["scores"], key=lambda s: (-s["score"], s["seat"])):
        lines.append(f"  {names[s['seat']]:16} {s['score']:5} = {s['left_points']} × "
                     f"{s['right_points']}")
    lines.append("winner: " + " and ".join(names[w] for w in rec["winners"]))
    lines.append("shuffle proofs: checked at every hop (objective deck and card deck)")
    return Ending(rec, title="Splito, ", dealt="dealt (S4.1)", lines=tuple(lines))


SPLITO = GameSpec(key=KEY, title="Splito", min_players=2, max_players=8, seat_rule="S2.1",
                  named=True, check_header=_check_header, default_header=_default_header,
                  seat=_seat,
                  pledge_position=_pledge_position, record_format="splito-record/1",
                  progress=_progress, ending=_ending, dealer_rule="S4.1",
                  dealer_setting="dealer",
                  modules=("games.splito", "bench.splito"))
