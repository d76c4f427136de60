"""protocol/GAME.md "Rematch" test vectors, byte for byte (tests/vectors/rematch_v1.json):
a game's header, the header of its rematch (``settings.rematch`` naming the game, its
final head and the next first dealer), and headers that do not follow, each with the
field its refusal names — for Split, and in the ``splito`` part for Splito, whose
rematch also passes ``rules.dealer`` on (docs/SPLITO.md S4.1).

Regenerate (only after a deliberate format change): ``.venv/bin/python
tests/test_rematch_vectors.py --write``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from splitnet.game.rematch import (
    Rematch,
    RematchError,
    check_follows,
    first_dealer,
    next_game,
    parse_rematch,
)
from splitnet.game.table import PROTOCOL
from splitnet.games.split.local import game_settings, settings_from_header
from splitnet.games.split.rules import Settings
from splitnet.session.codec import encode
from splitnet.session.identity import Identity
from splitnet.session.log import Author, Log, Player
from tests.test_session_vectors import NAMES, seed

PATH = Path(__file__).parent / "vectors" / "rematch_v1.json"
GAME_1 = bytes(range(16))
GAME_2 = bytes(range(16, 32))


def header_log(ids: list[Identity], game_id: bytes, settings: dict[str, Any],
               order: tuple[int, ...] = (0, 1, 2)) -> Log:
    players = [Player(s, NAMES[i], ids[i].public_key_bytes()) for s, i in enumerate(order)]
    log, _ = Log.start(ids[0], game_id=game_id, host_seat=0, players=players,
                       settings=settings)
    return log


def build() -> tuple[list[Identity], Log, Log]:
    """Game 1 (its header and both accepts: its "last record" here is the second
    accept) and its rematch's header."""
    ids = [Identity.from_seed(seed(i)) for i in range(3)]
    rules = game_settings(Settings(), shuffle_proofs=False)
    g1 = header_log(ids, GAME_1, rules)
    for s in (1, 2):
        g1.order(*Author(ids[s], GAME_1, s).accept(g1.header_hash), ids[0])
    g2 = header_log(ids, GAME_2, game_settings(Settings(), shuffle_proofs=False,
                                                rematch=next_game(g1.header, g1.head())))
    return ids, g1, g2


#: (what is changed in the rematch header, the start of the refusal)
BAD = [
    ("first_dealer 0 (not passed on)", "header.settings.rematch.first_dealer: expected seat 1"),
    ("first_dealer 2", "header.settings.rematch.first_dealer: expected seat 1"),
    ("head: game 1's header hash", "header.settings.rematch.head: not the hash"),
    ("game: another id", "header.settings.rematch.game: names game"),
    ("seats 1 and 2 swapped", "header.players[1].key: not the identity key"),
    ("rounds 2", "header.settings.rules: differs"),
    ("no rematch key", "header.settings.rematch: missing"),
    ("game 1's own id", "header.game_id: the same id as the previous game"),
]


def bad_header(ids: list[Identity], g1: Log, what: str) -> Log:
    good = next_game(g1.header, g1.head())
    rules, order, gid = Settings(), (0, 1, 2), GAME_2
    r: Rematch | None = good
    if what.startswith("first_dealer"):
        r = Rematch(good.game, good.head, int(what.split()[1]))
    elif what.startswith("head"):
        r = Rematch(good.game, g1.header_hash, good.first_dealer)
    elif what.startswith("game:"):
        r = Rematch(bytes(16), good.head, good.first_dealer)
    elif what.startswith("seats"):
        order = (0, 2, 1)
    elif what.startswith("rounds"):
        rules = Settings(rounds=2)
    elif what.startswith("no rematch"):
        r = None
    elif what.startswith("game 1"):
        gid = GAME_1
    return header_log(ids, gid, game_settings(rules, shuffle_proofs=False, rematch=r), order)


def splito_rules(dealer: int = 0, **changes: Any) -> dict[str, Any]:
    from splitnet.games.splito.settings import SplitoSettings

    return {**SplitoSettings.standard(3).to_dict(), "dealer": dealer, **changes}


def splito_build() -> tuple[list[Identity], Log, Log]:
    """A Splito game 1 (S13's rules for 3 players; its header and both accepts) and its
    rematch's header, made by ``rematch_settings``."""
    from splitnet.game.rematch import rematch_settings
    from splitnet.games.splito.core import splito_header
    from splitnet.games.splito.settings import SplitoSettings

    ids = [Identity.from_seed(seed(i)) for i in range(3)]
    g1 = header_log(ids, GAME_1, splito_header(SplitoSettings.standard(3), PROTOCOL))
    for s in (1, 2):
        g1.order(*Author(ids[s], GAME_1, s).accept(g1.header_hash), ids[0])
    g2 = header_log(ids, GAME_2, rematch_settings(g1.header, g1.head()))
    return ids, g1, g2


#: Splito: (what is changed in the rematch header, the start of the refusal)
SPLITO_BAD = [
    ("rules.dealer left at 0", "header.settings.rematch.first_dealer: seat 1, but the "
                               "rules' dealer is seat 0"),
    ("both dealers 0 (not passed on)", "header.settings.rematch.first_dealer: expected "
                                       "seat 1 (the previous game's first dealer 0 + 1, S4.1)"),
    ("central_objectives 3", "header.settings.rules: differs"),
    ("no rematch key", "header.settings.rematch: missing"),
]


def splito_bad_header(ids: list[Identity], g1: Log, what: str) -> Log:
    good = next_game(g1.header, g1.head())
    rules, r = splito_rules(1), good.to_dict()
    if what.startswith("rules.dealer"):
        rules = splito_rules(0)
    elif what.startswith("both"):
        rules, r = splito_rules(0), {**r, "first_dealer": 0}
    elif what.startswith("central"):
        rules = splito_rules(1, central_objectives=3)
    settings: dict[str, Any] = {**g1.header.settings, "rules": rules, "rematch": r}
    if what.startswith("no rematch"):
        del settings["rematch"]
    return header_log(ids, GAME_2, settings)


def compute_vectors() -> dict[str, Any]:
    out = _split_vectors()
    ids, g1, g2 = splito_build()
    r = parse_rematch(g2.header.settings)
    assert r is not None
    out["splito"] = {
        "description": "the same for Splito: identities and names as above; game 1: id "
        "00..0f, settings {protocol, game: splito, rules: S13 for 3 players, dealer 0, "
        "shuffle_proofs: true}, its header and both accepts; the rematch: id 10..1f, the "
        "same seats and settings but rules.dealer 1, and settings.rematch = "
        "{first_dealer: 1, game: game 1's id, head: the hash of game 1's entry 2}",
        "game_1": {"header_record": g1.entries[0].record.hex(),
                   "records": [e.record.hex() for e in g1.entries],
                   "head": g1.head().hex(), "dealer": 0},
        "rematch": {"settings_rematch": encode(r.to_dict()).hex(),
                    "header_record": g2.entries[0].record.hex(),
                    "header_hash": g2.header_hash.hex(), "dealer": r.first_dealer},
        "refused": [{"change": what, "header_record": splito_bad_header(ids, g1, what)
                     .entries[0].record.hex(), "error": err} for what, err in SPLITO_BAD],
    }
    return out


def _split_vectors() -> dict[str, Any]:
    ids, g1, g2 = build()
    r = parse_rematch(g2.header.settings)
    assert r is not None
    return {
        "description": "protocol/GAME.md 'Rematch' vectors: identities as session_v1.json "
        "(sha256(b'id' || byte i)), names Ana, Ben, Cy; game 1: id 00..0f, its header and "
        "both accepts (its last record is entry 2); the rematch: id 10..1f, the same seats "
        "and rules, settings.rematch = {first_dealer: 1, game: game 1's id, head: the hash "
        "of game 1's entry 2}",
        "game_1": {"header_record": g1.entries[0].record.hex(),
                   "records": [e.record.hex() for e in g1.entries],
                   "head": g1.head().hex(), "first_dealer": 0},
        "rematch": {"settings_rematch": encode(r.to_dict()).hex(),
                    "header_record": g2.entries[0].record.hex(),
                    "header_hash": g2.header_hash.hex(), "first_dealer": r.first_dealer},
        "refused": [{"change": what, "header_record": bad_header(ids, g1, what)
                     .entries[0].record.hex(), "error": err} for what, err in BAD],
    }


def load() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(PATH.read_text())
    return data


def test_the_vectors_are_what_the_code_makes() -> None:
    assert load() == compute_vectors()


def test_the_rematch_header_follows_and_deals_from_seat_1() -> None:
    v = load()
    g1, g2 = Log(), Log()
    for rec in v["game_1"]["records"]:
        g1.append_record(bytes.fromhex(rec))
    g2.append_record(bytes.fromhex(v["rematch"]["header_record"]))
    assert g1.head().hex() == v["game_1"]["head"]
    assert g2.header_hash.hex() == v["rematch"]["header_hash"]
    settings_from_header(g2.header.settings)  # a valid GAME.md header
    check_follows(g1.header, g1.head(), g2.header)
    assert first_dealer(g1.header.settings, 3) == 0
    assert first_dealer(g2.header.settings, 3) == v["rematch"]["first_dealer"] == 1
    assert encode(g2.header.settings["rematch"]).hex() == v["rematch"]["settings_rematch"]


def test_each_header_that_does_not_follow_is_refused_naming_its_field() -> None:
    v = load()
    g1 = Log()
    for rec in v["game_1"]["records"]:
        g1.append_record(bytes.fromhex(rec))
    for case in v["refused"]:
        bad = Log()
        bad.append_record(bytes.fromhex(case["header_record"]))
        try:
            check_follows(g1.header, g1.head(), bad.header)
        except RematchError as e:
            assert str(e).startswith(case["error"]), (case["change"], str(e))
        else:
            raise AssertionError(f"{case['change']}: not refused")


def test_the_splito_rematch_header_follows_and_passes_the_dealer_left_s4_1() -> None:
    from splitnet.games.splito.core import splito_from_header

    v = load()["splito"]
    g1, g2 = Log(), Log()
    for rec in v["game_1"]["records"]:
        g1.append_record(bytes.fromhex(rec))
    g2.append_record(bytes.fromhex(v["rematch"]["header_record"]))
    assert g1.head().hex() == v["game_1"]["head"]
    assert g2.header_hash.hex() == v["rematch"]["header_hash"]
    rules, _ = splito_from_header(g2.header.settings)  # a valid SPLITO_GAME.md header
    assert rules.dealer == v["rematch"]["dealer"] == 1
    check_follows(g1.header, g1.head(), g2.header)
    assert first_dealer(g1.header.settings, 3) == 0 and first_dealer(g2.header.settings) == 1
    assert encode(g2.header.settings["rematch"]).hex() == v["rematch"]["settings_rematch"]
    for case in v["refused"]:
        bad = Log()
        bad.append_record(bytes.fromhex(case["header_record"]))
        try:
            check_follows(g1.header, g1.head(), bad.header)
        except RematchError as e:
            assert str(e).startswith(case["error"]), (case["change"], str(e))
        else:
            raise AssertionError(f"{case['change']}: not refused")


def test_a_splito_header_whose_two_dealers_disagree_is_refused_at_entry_0() -> None:
    """SPLITO_GAME.md §1: a rematch's ``first_dealer`` is its ``rules.dealer``; a header
    where they differ fails ``splitnet verify`` at the header, naming the field."""
    from splitnet.verify import verify_records

    ids, g1, _ = splito_build()
    bad = splito_bad_header(ids, g1, "rules.dealer left at 0")
    v = verify_records([e.record for e in bad.entries])
    assert not v.ok and v.seq == 0, v.summary
    assert v.summary.startswith("FAILED at entry 0 (seat 0): header: header.settings."
                                "rematch.first_dealer: seat 1, but the rules' dealer is seat 0"), \
        v.summary


if __name__ == "__main__" and sys.argv[1:] == ["--write"]:
    PATH.write_text(json.dumps(compute_vectors(), indent=1) + "\n")
    print(f"wrote {PATH}")


def test_a_malformed_rematch_is_refused_at_entry_0() -> None:
    """GAME.md "Rematch": a ``first_dealer`` that is no seat, or a ``rematch`` of another
    shape, fails ``splitnet verify`` at the header, naming the field."""
    from splitnet.verify import verify_records

    ids, g1, _ = build()
    good = next_game(g1.header, g1.head()).to_dict()
    for bad, err in [({**good, "first_dealer": 5}, "first_dealer: seat 5 is not among the 3"),
                     ({**good, "extra": 1}, "rematch: unknown key 'extra'"),
                     ({k: v for k, v in good.items() if k != "head"}, "rematch: missing head"),
                     ({**good, "game": b"short"}, "rematch.game: expected 16 bytes"),
                     ("yes", "rematch: expected a map")]:
        rules = {**game_settings(Settings(), shuffle_proofs=False), "rematch": bad}
        log = header_log(ids, GAME_2, rules)
        v = verify_records([e.record for e in log.entries])
        assert not v.ok and v.seq == 0, v.summary
        assert v.summary.startswith("FAILED at entry 0 (seat 0): header: "), v.summary
        assert err in v.summary, v.summary
