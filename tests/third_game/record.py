"""High Card's game record (README.md H7) and its referee: the record a finished game
leaves, made from the audit's full knowledge, and :func:`check_record`, which replays it
through the rules and names every fault — what ``splitnet replay`` checks a record file
by before it shows anything."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from tests.third_game.rules import DECK, Game, IllegalMove, Settings, SettingsError, name

FORMAT: Final = "highcard-record/1"


def build_record(game_id: str, players: Sequence[str], settings: Settings, first_dealer: int,
                 hands: Sequence[Sequence[int]], tricks: Sequence[Any]) -> dict[str, Any]:
    """The record: the game, its seats, the hands dealt (H3), every trick and the
    tricks each seat won (H5)."""
    won = [0] * settings.players
    for t in tricks:
        won[t.winner] += 1
    return {"format": FORMAT, "game_id": game_id, "players": list(players),
            "settings": settings.to_dict(), "first_dealer": first_dealer,
            "hands": [list(h) for h in hands],
            "tricks": [{"number": t.number, "leader": t.leader,
                        "plays": [[s, c] for s, c in t.plays], "winner": t.winner}
                       for t in tricks],
            "won": won, "winners": [s for s in range(settings.players) if won[s] == max(won)]}


@dataclass(frozen=True)
class Referee:
    """The referee's verdict: ok, or the faults found (the first is the one to tell)."""

    faults: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return not self.faults


def check_record(rec: object) -> Referee:
    """Replay ``rec`` through the rules (H2–H5): the hands are distinct cards of the deck,
    each trick is led by whom H4.1 says and played clockwise from its hands, its winner
    is its highest card, and ``won``/``winners`` are what the tricks give."""
    if not isinstance(rec, dict) or rec.get("format") != FORMAT:
        return Referee((f"not a {FORMAT} record",))
    keys = {"format", "game_id", "players", "settings", "first_dealer", "hands", "tricks",
            "won", "winners"}
    if set(rec) != keys:
        return Referee((f"a record has exactly {', '.join(sorted(keys))}",))
    try:
        settings = Settings.from_dict(rec["settings"])
    except SettingsError as e:
        return Referee((f"settings: {e}",))
    n, faults = settings.players, []
    players, dealer, hands = rec["players"], rec["first_dealer"], rec["hands"]
    if not (isinstance(players, list) and len(players) == n
            and all(isinstance(p, str) for p in players)):
        faults.append(f"players: {n} names")
    if isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer < n:
        return Referee((*faults, "first_dealer: a seat"))
    flat = [c for h in hands for c in h] if isinstance(hands, list) and all(
        isinstance(h, list) for h in hands) else None
    if (flat is None or len(hands) != n or any(len(h) != settings.hand for h in hands)
            or any(isinstance(c, bool) or not isinstance(c, int) or not 0 <= c < DECK
                   for c in flat) or len(set(flat)) != len(flat)):
        return Referee((*faults, f"hands: {n} hands of {settings.hand} distinct cards "
                        f"0–{DECK - 1} (H3)"))
    game = Game(settings, dealer)
    slot_of = {c: seat * settings.hand + i for seat, h in enumerate(hands)
               for i, c in enumerate(h)}
    tricks = rec["tricks"]
    if not isinstance(tricks, list) or len(tricks) != settings.hand:
        return Referee((*faults, f"tricks: {settings.hand} of them (H4)"))
    for t in tricks:
        num = game.trick_number
        if not isinstance(t, dict) or set(t) != {"number", "leader", "plays", "winner"}:
            return Referee((*faults, f"trick {num}: number, leader, plays and winner"))
        if t["number"] != num or t["leader"] != game.leader:
            faults.append(f"trick {num}: led by seat {game.leader} (H4.1)")
        for play in t["plays"] if isinstance(t["plays"], list) else []:
            seat, card = (play + [None, None])[:2] if isinstance(play, list) else (None, None)
            try:
                if card not in slot_of or slot_of[card] // settings.hand != seat:
                    raise IllegalMove("H4.2", f"seat {seat} did not hold card {card!r}")
                assert isinstance(seat, int) and isinstance(card, int)
                done = game.play(seat, slot_of[card], card)
            except IllegalMove as e:
                return Referee((*faults, f"trick {num}: {e}"))
            if done is not None and done.winner != t["winner"]:
                faults.append(f"trick {num}: won by seat {done.winner}, the highest card "
                              "(H4.3)")
        if len(game.tricks) != num:
            return Referee((*faults, f"trick {num}: one card from each seat (H4.2)"))
    if rec["won"] != game.won() or rec["winners"] != game.winners():
        faults.append("won/winners: not what the tricks give (H5)")
    return Referee(tuple(faults))


def trick_lines(rec: dict[str, Any]) -> list[str]:
    """Each trick in words: "trick 1: Ana 7, Bo 12 — Bo wins"."""
    names = rec["players"]
    return [f"trick {t['number']}: " + ", ".join(f"{names[s]} {name(c)}" for s, c in t["plays"])
            + f" — {names[t['winner']]} wins" for t in rec["tricks"]]


def summary(rec: dict[str, Any]) -> str:
    """The result in words (a finished LAN game's last lines)."""
    names = rec["players"]
    lines = ["High Card — game over", *trick_lines(rec)]
    lines += [f"  {names[s]:16} {w} trick{'s' if w != 1 else ''}"
              for s, w in enumerate(rec["won"])]
    lines.append("winner: " + " and ".join(names[s] for s in rec["winners"]))
    return "\n".join(lines)
