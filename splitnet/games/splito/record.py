"""The Splito game record (``splito-record/1``, docs/SPLITO.md S12) and the referee's
re-check of a record against the rules (S12.4).

:func:`build_record` writes the record of a finished game from an engine that knows every
face (self-play, or any peer after the audit of S7.5). :func:`check_record` is the
referee: it re-derives the deal, every play's legality, the zones, every objective result,
the zone points, the scores and the winners from the record's deal and plays, and lists
every difference as a fault naming its S-rule. Pure: no I/O.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from splitnet.games.splito.engine import (
    SIDES,
    Game,
    IllegalMove,
    Phase,
)
from splitnet.games.splito.objectives import ObjectiveSet, default_objective_set
from splitnet.games.splito.settings import SettingsError, SplitoSettings

FORMAT: Final = "splito-record/1"
#: S12: the record's keys, in its order.
TOP_KEYS: Final = ("format", "game_id", "settings", "seats", "deal", "turns", "zones",
                   "objective_results", "zone_points", "scores", "winners")
#: S12.5: the optional key of a game a seat left (S5.7), after ``seats``
GONE_KEY: Final = "gone"
DEAL_KEYS: Final = ("objective_order", "deck", "central", "hands", "set_aside")
SCORE_KEYS: Final = ("seat", "left_zone", "right_zone", "left_points", "right_points",
                     "score", "cards_in_zones")


def dumps(record: dict[str, Any]) -> str:
    """The record's exact text: indent 1, keys in the order S12 lists them, ASCII only,
    one final newline (the same form as Split's records)."""
    return json.dumps(record, indent=1, ensure_ascii=True, separators=(",", ": ")) + "\n"


def build_record(game: Game, names: Sequence[str], *,
                 objective_order: Sequence[str] | None = None,
                 with_hands: bool = True) -> dict[str, Any]:
    """The S12 record of a finished game whose every face ``game`` knows — or, in a
    game a seat left (S5.7, S12.5), every face that was read: every played card and the
    central objectives; the cards never played stay null (that game is not opened).

    ``objective_order`` is the opened shuffle of the 37 objective cards (S4.2, S7.5); with
    it the record also carries ``deal.deck`` (S12.1). ``with_hands`` writes the optional,
    redundant ``turns[i].hands`` (S12.2).
    """
    if game.phase is not Phase.OVER:
        raise ValueError("record: the game is not over (S10.1)")
    if len(names) != game.n:
        raise ValueError(f"record: expected {game.n} names")
    played = {p.slot for plays in game.history for p in plays}
    if game.gone:
        if objective_order is not None:
            raise ValueError("record: a game a seat left is not opened (S5.7, S12.5)")
        if any(game.faces[j] is None for j in played):
            raise ValueError("record: every played card must be known (S5.3)")
    elif any(f is None for f in game.faces):
        raise ValueError("record: every card must be known (the audit of S7.5)")

    def card(slot: int) -> str | None:
        return game.faces[slot]

    deal: dict[str, Any] = {}
    if objective_order is not None:
        order = list(objective_order)
        if sorted(order) != sorted(game.settings.objective_set.ids):
            raise ValueError("record: objective_order must hold every objective card once")
        if tuple(order[:len(game.central)]) != game.central:
            raise ValueError("record: the central objectives are the top of the objective "
                             "order (S4.2, S12.1)")
        deal["objective_order"] = order
        deal["deck"] = [card(s) for s in range(len(game.faces))]
    deal["central"] = list(game.central)
    deal["hands"] = [[card(s) for s in h] for h in game.hands_at_start[0]]
    deal["set_aside"] = [card(s) for s in game.set_aside_slots()]
    turns = []
    for t, plays in enumerate(game.history):
        entry: dict[str, Any] = {"turn": t + 1}
        if with_hands:
            entry["hands"] = [[card(s) for s in h] for h in game.hands_at_start[t]]
        entry["plays"] = [{"seat": p.seat, "card": card(p.slot), "side": p.side,
                           "commit": p.commit, "nonce": p.nonce} for p in plays]
        turns.append(entry)
    results = [r for z in range(len(game.zones)) for r in game.zone_results(z)]
    out: dict[str, Any] = {
        "format": FORMAT,
        "game_id": game.game_id,
        "settings": game.settings.record_dict(),
        "seats": [{"seat": i, "name": n} for i, n in enumerate(names)],
    }
    if game.gone:  # S12.5, in the order the seats left
        out[GONE_KEY] = [{"seat": s, "turn": t} for s, t in game.gone.items()]
    out.update({
        "deal": deal,
        "turns": turns,
        "zones": [{"zone": z, "seats": game.zone_seats(z), "cards": game.zone_cards(z)}
                  for z in range(len(game.zones))],
        "objective_results": [{"zone": r.zone, "objective": r.objective, "source": r.source,
                               "fulfilled": r.fulfilled, "points": r.points} for r in results],
        "zone_points": game.zone_points(),
        "scores": [{k: getattr(s, k) for k in SCORE_KEYS} for s in game.scores()],
        "winners": game.winners(),
    })
    return out


# ---------------------------------------------------------------------- the referee
class _Stop(Exception):
    """A fault after which nothing further can be derived."""


@dataclass
class Verdict:
    """The referee's finding: ``code`` 0 (all agrees), 1 (faults), 2 (not JSON)."""

    code: int
    faults: list[str]
    game: Game | None = None

    @property
    def ok(self) -> bool:
        return self.code == 0


def check_text(text: str, objective_set: ObjectiveSet | None = None) -> Verdict:
    """Check a record's text (S12.4): exit code 2 if it is not JSON."""
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as e:
        return Verdict(2, [f"not JSON: {e}"])
    return check_record(data, objective_set)


def check_record(data: object, objective_set: ObjectiveSet | None = None) -> Verdict:
    """S12.4: everything the referee checks; every difference is one fault line."""
    faults: list[str] = []
    game: Game | None = None
    try:
        game = _check(data, objective_set or default_objective_set(), faults)
    except _Stop as e:
        faults.append(str(e))
    return Verdict(1 if faults else 0, faults, game)


def _is_int(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _same(a: object, b: object) -> bool:
    """Equal as JSON values (so ``true`` is not ``1``, nor ``1.0`` ``1``)."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def _str_list(v: object, where: str) -> list[str]:
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        raise _Stop(f"{where}: expected a list of card ids (S1.3)")
    return v


def _card_list(v: object, where: str, unread: bool) -> list[str | None]:
    """A list of card ids — where a seat left (S12.5), null for a card nobody read."""
    if not unread:
        return list(_str_list(v, where))
    if not isinstance(v, list) or not all(x is None or isinstance(x, str) for x in v):
        raise _Stop(f"{where}: expected a list of card ids or null (S1.3, S12.5)")
    return v


def _gone(raw: object, game: Game) -> dict[int, int]:
    """S12.5: ``gone``, the seats that left (S5.7) in the order they left, each with the
    turn it left at — seat → turn."""
    where = f"{GONE_KEY}: expected a non-empty list of {{seat, turn}} (S12.5)"
    if not isinstance(raw, list) or not raw:
        raise _Stop(where)
    out: dict[int, int] = {}
    for g in raw:
        if (not isinstance(g, dict) or set(g) != {"seat", "turn"} or not _is_int(g["seat"])
                or not _is_int(g["turn"])):
            raise _Stop(where)
        seat, turn = g["seat"], g["turn"]
        if not 0 <= seat < game.n or seat in out or not 1 <= turn <= game.settings.turns:
            raise _Stop(f"{GONE_KEY}: seat {seat} at turn {turn}: no such seat or turn, or "
                        "a seat named twice (S12.5)")
        if out and turn < max(out.values()):
            raise _Stop(f"{GONE_KEY}: seat {seat} at turn {turn} after a seat that left later: "
                        "not in the order the seats left (S12.5)")
        out[seat] = turn
    return out


def _check(data: object, oset: ObjectiveSet, faults: list[str]) -> Game:
    if not isinstance(data, dict):
        raise _Stop("record: expected a JSON object (S12)")
    keys = list(data)
    absent = [k for k in TOP_KEYS if k not in data]
    if absent:
        raise _Stop(f"record: missing key(s) {absent} (S12)")
    extra = [k for k in keys if k not in (*TOP_KEYS, GONE_KEY)]
    if extra:
        faults.append(f"record: unknown key(s) {extra} (S12)")
    if data["format"] != FORMAT:
        raise _Stop(f"record.format: expected {FORMAT!r}, got {data['format']!r} (S12)")
    try:
        settings = SplitoSettings.from_dict(data["settings"], oset, record=True)
    except SettingsError as e:
        raise _Stop(f"{e}") from None
    n = settings.players
    game_id = data["game_id"]
    try:
        game = Game(settings, game_id)
    except ValueError as e:
        raise _Stop(f"record.{e}") from None
    seats = data["seats"]
    if (not isinstance(seats, list) or len(seats) != n
            or any(not isinstance(s, dict) or set(s) != {"seat", "name"}
                   or not _same(s["seat"], i)
                   or not isinstance(s["name"], str) for i, s in enumerate(seats))):
        faults.append(f"seats: expected {n} entries {{seat: i, name}} in seat order (S12)")
    gone = _gone(data.get(GONE_KEY), game) if GONE_KEY in data else {}
    _check_deal(data["deal"], game, oset, faults, unread=bool(gone))
    _replay(data["turns"], game, faults, gone)
    if gone:  # S12.5: nothing is opened, so a card never played was read by nobody
        played = {p.slot for plays in game.history for p in plays}
        shown = [j for j, f in enumerate(game.faces) if f is not None and j not in played]
        if shown:
            faults.append(f"deal: {len(shown)} card(s) never played are not null, but a game "
                          "a seat left is not opened: nobody read them (S12.5)")
    _check_results(data, game, faults)
    return game


def _check_deal(deal: object, game: Game, oset: ObjectiveSet, faults: list[str], *,
                unread: bool = False) -> None:
    s = game.settings
    n, h = s.players, s.hand_size
    if not isinstance(deal, dict):
        raise _Stop("deal: expected an object (S12)")
    for key in ("central", "hands", "set_aside"):
        if key not in deal:
            raise _Stop(f"deal: missing {key!r} (S12)")
    unknown = [k for k in deal if k not in DEAL_KEYS]
    if unknown:
        faults.append(f"deal: unknown key(s) {unknown} (S12)")
    central = _str_list(deal["central"], "deal.central")
    hands_raw = deal["hands"]
    if not isinstance(hands_raw, list) or len(hands_raw) != n:
        raise _Stop(f"deal.hands: expected {n} hands (S4.3)")
    hands = [_card_list(hd, f"deal.hands[{i}]", unread) for i, hd in enumerate(hands_raw)]
    for i, hd in enumerate(hands):
        if len(hd) != h:
            raise _Stop(f"deal.hands[{i}]: expected {h} cards, got {len(hd)} (S4.3)")
    rest = _card_list(deal["set_aside"], "deal.set_aside", unread)
    if unread and len(rest) != s.deck_size - n * h:  # (else the partition's count says it)
        raise _Stop(f"deal.set_aside: expected {s.deck_size - n * h} cards, got {len(rest)} "
                    "(S4.4, S12.4)")
    every = [*central, *(c for hd in hands for c in hd), *rest]
    full = [*(c for c in _number_cards()), *oset.ids]
    read = Counter(c for c in every if c is not None)
    if unread and (any(k > 1 for k in read.values()) or not read <= Counter(full)):
        dup = sorted(c for c, k in read.items() if k > 1)
        alien = sorted(set(read) - set(full))
        raise _Stop(f"deal: not a partition of the 109 cards (S12.4, S12.5): twice "
                    f"{dup[:5]}, unknown {alien[:5]}")
    if unread and ("objective_order" in deal or "deck" in deal):
        faults.append("deal: a game a seat left is not opened: no objective_order or deck "
                      "(S12.5)")
    if not unread and Counter(every) != Counter(full):
        dup = sorted(c for c, k in read.items() if k > 1)
        lost = sorted(set(full) - set(read))
        alien = sorted(set(read) - set(full))
        raise _Stop(f"deal: not a partition of the 109 cards (S12.4): twice {dup[:5]}, "
                    f"missing {lost[:5]}, unknown {alien[:5]}")
    # S4.3: the k-th card of the deck goes to seat (dealer + 1 + k) mod n.
    deck: list[str | None] = []
    for k in range(n * h):
        deck.append(hands[(s.dealer + 1 + k) % n][k // n])
    deck.extend(rest)
    if "objective_order" in deal and not unread:
        order = _str_list(deal["objective_order"], "deal.objective_order")
        if sorted(order) != sorted(oset.ids):
            faults.append("deal.objective_order: must hold each objective card once (S4.2)")
        elif order[:len(central)] != central:
            faults.append("deal.central: is not the top of objective_order (S4.2, S12.1)")
    if "deck" in deal and not unread:
        shown = _card_list(deal["deck"], "deal.deck", unread)
        if shown != deck:
            faults.append("deal.hands / deal.set_aside: are not what S4.3 deals from deal.deck "
                          "(S12.1)")
    try:
        game.deal(central, deck)
    except (IllegalMove, ValueError) as e:
        raise _Stop(f"deal: {e}") from None


def _number_cards() -> tuple[str, ...]:
    from splitnet.games.splito.cards import NUMBER_CARDS

    return NUMBER_CARDS


def _replay(turns: object, game: Game, faults: list[str],
            gone: dict[int, int] | None = None) -> None:
    """Every turn's plays against the rules; a seat of ``gone`` (S12.5) leaves the
    rotation at the start of the turn it left at, before any play of it (S5.7: it may
    leave only before its own commitment, so where among the others' it left changes
    nothing)."""
    n, total = game.n, game.settings.turns
    gone = gone or {}
    if not isinstance(turns, list):
        raise _Stop("turns: expected a list (S12)")
    if len(turns) != total:
        faults.append(f"turns: expected {total} turns, got {len(turns)} (S5.1: every dealt "
                      "card is played)")
    for t, entry in enumerate(turns[:total], start=1):
        where = f"turns[{t - 1}]"
        if (not isinstance(entry, dict) or "plays" not in entry
                or not _same(entry.get("turn"), t)):
            raise _Stop(f"{where}: expected {{turn: {t}, plays, hands?}} (S12)")
        unknown = sorted(set(entry) - {"turn", "hands", "plays"})
        if unknown:
            faults.append(f"{where}: unknown key(s) {unknown} (S12)")
        if "hands" in entry:  # S12.2: optional, redundant, must agree
            shown = entry["hands"]
            derived = [[game.faces[x] for x in hd] for hd in game.hands]
            if (not isinstance(shown, list) or len(shown) != n
                    or any(not isinstance(hd, list) or Counter(map(_freeze, hd))
                           != Counter(map(_freeze, d))
                           for hd, d in zip(shown, derived, strict=False))):
                faults.append(f"{where}.hands: not the hands derived from the deal and the "
                              "plays (S12.2, S5.4)")
        for seat in [s for s, at in gone.items() if at == t]:
            try:
                game.abandon(seat)
            except IllegalMove as e:
                raise _Stop(f"{GONE_KEY}: seat {seat} cannot leave at turn {t}: {e}") from None
        plays = entry["plays"]
        if (not isinstance(plays, list) or len(plays) != len(game.playing)
                or any(not isinstance(p, dict) for p in plays)
                or sorted(p.get("seat", -1) for p in plays if _is_int(p.get("seat", -1)))
                != game.playing):
            raise _Stop(f"{where}.plays: expected exactly one play per seat still playing "
                        "(S5.1, S5.7, S12.4)")
        for p in plays:
            if set(p) != {"seat", "card", "side", "commit", "nonce"}:
                raise _Stop(f"{where}.plays: seat {p['seat']}: expected keys seat, card, side, "
                            "commit, nonce (S12)")
        for p in sorted(plays, key=lambda p: p["seat"]):
            try:
                game.commit(p["seat"], p["commit"])
            except IllegalMove as e:
                raise _Stop(f"{where}: seat {p['seat']}: {e}") from None
        for p in sorted(plays, key=lambda p: p["seat"]):
            seat, card, side = p["seat"], p["card"], p["side"]
            slot = game.slot_of(card) if isinstance(card, str) else None
            if slot is None:
                raise _Stop(f"{where}: seat {seat} plays {card!r}, not a card of the deck "
                            "(S1.3)")
            if any(slot in z for z in game.zones):
                raise _Stop(f"{where}: seat {seat} plays {card}, which was played before "
                            "(S5.2, S6.1)")
            if slot not in game.hands[seat]:
                raise _Stop(f"{where}: seat {seat} plays {card}, which is not in the hand it "
                            "holds after the passes (S5.2, S5.4)")
            if side not in SIDES:
                raise _Stop(f"{where}: seat {seat}: side {side!r} is not left or right (S5.2)")
            try:
                game.reveal(seat, slot, side, p["nonce"])
            except IllegalMove as e:
                raise _Stop(f"{where}: seat {seat}: {e}") from None
    if game.phase is not Phase.OVER:
        raise _Stop(f"turns: the game is not over after {len(turns)} turns (S5.1, S10.1)")


def _check_results(data: dict[str, Any], game: Game, faults: list[str]) -> None:
    n_z = len(game.zones)
    zones = data["zones"]
    derived_zones = {z: (game.zone_seats(z), Counter(game.zone_cards(z))) for z in range(n_z)}
    if not isinstance(zones, list) or len(zones) != n_z:
        faults.append(f"zones: expected {n_z} zones (S3.1, S12.3)")
    else:
        seen: set[int] = set()
        for i, zd in enumerate(zones):
            if not isinstance(zd, dict) or set(zd) != {"zone", "seats", "cards"}:
                faults.append(f"zones[{i}]: expected {{zone, seats, cards}} (S12)")
                continue
            z = zd["zone"]
            if not _is_int(z) or z not in derived_zones or z in seen:
                faults.append(f"zones[{i}]: no zone {z!r}, or named twice (S3.1)")
                continue
            seen.add(z)
            seats, cards = derived_zones[z]
            if not _same(zd["seats"], seats):
                faults.append(f"zone {z}: seats {zd['seats']!r}, derived {seats} (S3.1, S12.3)")
            if not isinstance(zd["cards"], list) or Counter(map(str, zd["cards"])) != cards:
                faults.append(f"zone {z}: cards differ from the plays (S5.3, S6.1)")
    results = [tuple(_freeze(x) for x in (r.zone, r.objective, r.source, r.fulfilled,
                                          r.points))
               for z in range(n_z) for r in game.zone_results(z)]
    shown = data["objective_results"]
    keys = ("zone", "objective", "source", "fulfilled", "points")
    if (not isinstance(shown, list)
            or any(not isinstance(r, dict) or set(r) != set(keys) for r in shown)):
        faults.append("objective_results: expected a list of {zone, objective, source, "
                      "fulfilled, points} (S12)")
    else:
        got = Counter(tuple(_freeze(r[k]) for k in keys) for r in shown)
        want: Counter[tuple[str, ...]] = Counter(results)
        if got != want:
            wrong = sorted(map(str, (want - got).keys()))[:3]
            faults.append(f"objective_results: differ from the derived ones (S10.2), e.g. "
                          f"derived {', '.join(wrong) or '-'} not shown")
    if not _same(data["zone_points"], game.zone_points()):
        faults.append(f"zone_points: {data['zone_points']!r}, derived {game.zone_points()} "
                      "(S10.3)")
    scores = [{k: getattr(s, k) for k in SCORE_KEYS} for s in game.scores()]
    if not _same(data["scores"], scores):
        faults.append(f"scores: differ from the derived {[s['score'] for s in scores]} "
                      "(S11.1, S11.3)")
    winners = game.winners()
    if not _same(data["winners"], winners):
        faults.append(f"winners: {data['winners']!r}, derived {winners} (S11.2, S11.3)")


def _freeze(v: object) -> str:
    return json.dumps(v, sort_keys=True)


def summary(record: dict[str, Any]) -> str:
    """The end of a game in words: each zone's points and fulfilled objectives, each
    player's score (left × right, S11.1) and the winners (S11.2–S11.3)."""
    names = [s["name"] for s in record["seats"]]
    fulfilled: dict[int, list[str]] = {}
    for r in record["objective_results"]:
        if r["fulfilled"]:
            tag = r["objective"] + ("*" if r["source"] == "central" else "")
            fulfilled.setdefault(r["zone"], []).append(tag)
    lines = [f"Central objectives: {' '.join(record['deal']['central']) or '-'}"]
    for z in record["zones"]:
        who = " | ".join(names[s] for s in z["seats"])
        got = " ".join(fulfilled.get(z["zone"], [])) or "-"
        lines.append(f"  zone {z['zone']} ({who}): {record['zone_points'][z['zone']]:3} points"
                     f", {len(z['cards'])} cards; fulfilled: {got}")
    lines.append("Scores (left zone × right zone):")
    gone = {g["seat"]: g["turn"] for g in record.get(GONE_KEY, [])}
    for s in sorted(record["scores"], key=lambda s: (-s["score"], s["seat"])):
        left = (f"; left at turn {gone[s['seat']]}, cannot win (S5.7)"
                if s["seat"] in gone else "")
        lines.append(f"  {names[s['seat']]:14} {s['score']:5} = {s['left_points']} × "
                     f"{s['right_points']}   ({s['cards_in_zones']} cards in its zones{left})")
    lines.append("Winner: " + " and ".join(names[w] for w in record["winners"]))
    return "\n".join(lines)
