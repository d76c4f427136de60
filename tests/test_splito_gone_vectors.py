"""Vectors of a Splito game a seat left (protocol/SPLITO_GAME.md §10, "A game a seat
left"; docs/SPLITO.md S5.7, S12.5), checked byte for byte: an implementation written
from protocol/ reproduces the forwarded pass, the transcript and the unopened record.

Regenerate (only when the protocol changes!) with
``.venv/bin/python -m tests.test_splito_gone_vectors --write``.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from splitnet.crypto import group
from splitnet.crypto.seeds import u64
from splitnet.game.table import PROTOCOL, PledgeBook
from splitnet.games.split.local import LocalGame
from splitnet.games.splito.core import SplitoCore, Stage, splito_header
from splitnet.games.splito.engine import Phase
from splitnet.games.splito.record import check_record, dumps
from splitnet.games.splito.settings import SplitoSettings
from splitnet.verify import verify_records
from tests.test_splito_vectors import GID, Source, drive, seed_of

#: the game is an in-process table, every peer checking every other seat's hop and
#: verify each again: the same proofs, computed in full once per test
#: (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("each_shuffle_proof_checked_once")


PATH = Path(__file__).parent / "vectors" / "splito_gone_v1.json"
NAMES = ["Ana", "Ben", "Cy", "Dee"]
#: Dee (seat 3) is given up at the start of turn 2, before any commitment of it
GONE, AT_TURN, WAITED = 3, 2, 30


def play_game() -> LocalGame[SplitoCore]:
    """Ana, Ben, Cy, Dee; default settings; every seat still playing plays, every turn,
    the first card of its hand (hand order) to the left; messages in the order the local
    table pumps them (seat order); at the start of turn 2, before any commitment, the
    host gives Dee up (``abandon`` with ``waited`` 30)."""
    settings = SplitoSettings.standard(len(NAMES))

    def make(gid: bytes, seat: int, seeds: Callable[[int], bytes], pledges: PledgeBook,
             keys: list[bytes]) -> SplitoCore:
        return SplitoCore(gid, NAMES, settings, seat, seeds, pledges=pledges)

    def give_dee_up(game: LocalGame[SplitoCore]) -> bool:
        eng = game.cores[0].engine
        if (game.cores[0].stage is Stage.PLAY and eng.turn == AT_TURN and not eng.gone
                and eng.phase is Phase.COMMIT and not any(eng.commits)):
            game.abandon(GONE, WAITED)
            return True
        return False

    return drive(LocalGame(NAMES, settings, Source(), make_core=make,
                           header=splito_header(settings, PROTOCOL)), give_dee_up)


def compute_vectors(game: LocalGame[SplitoCore] | None = None) -> dict[str, Any]:
    game = game or play_game()
    core = game.cores[0]
    assert core.stage is Stage.DONE and core.record is not None
    entries = game.log.entries
    gone_at = next(e for e in entries if e.kind == "abandon")
    # the first pass a seat makes for a hand dealt to the seat that left (SPLITO_GAME.md §6)
    first = next(s for s in core.sealed if s.holder == GONE and s.frm != GONE)
    entry = next(e for e in entries if e.kind == "pass" and e.author == first.frm
                 and e.body["turn"] == first.turn and e.body["to"] == first.to)
    rec = core.record
    return {
        "description": "A Splito game a seat left (protocol splitnet/6, game splito): as "
                       "splito_game_v1.json's inputs but players Ana, Ben, Cy, Dee; every "
                       "seat still playing plays the first card of its hand to the left; "
                       "at the start of turn 2, before any commitment, the host gives Dee "
                       "(seat 3) up with waited 30",
        "abandon": {"seq": gone_at.seq, "body": dict(gone_at.body)},
        "first_forwarded_pass": {"turn": first.turn, "from": first.frm, "to": first.to,
                                 "dealt_holder": first.holder,
                                 "eph": entry.body["eph"].hex(),
                                 "pok": entry.body["pok"].hex(),
                                 "box_sha256": hashlib.sha256(entry.body["box"]).hexdigest(),
                                 "box_bytes": len(entry.body["box"])},
        "opens": sum(e.kind == "open" for e in entries),
        "entries": len(entries),
        "transcript_sha256": hashlib.sha256(b"".join(game.log.records())).hexdigest(),
        "record_sha256": hashlib.sha256(dumps(rec).encode()).hexdigest(),
        "gone": rec["gone"],
        "unread": sum(c is None for h in rec["deal"]["hands"] for c in h)
        + sum(c is None for c in rec["deal"]["set_aside"]),
        "zone_points": rec["zone_points"],
        "scores": [s["score"] for s in rec["scores"]],
        "winners": rec["winners"],
    }


def test_s5_7_s12_5_a_game_a_seat_left_byte_for_byte_verified_and_refereed() -> None:
    want = json.loads(PATH.read_text())
    game = play_game()
    got = compute_vectors(game)
    assert got == json.loads(json.dumps(want))
    assert got["opens"] == 0 and GONE not in got["winners"]
    assert got["first_forwarded_pass"]["from"] != GONE  # the hand's last holder sends it
    # SPLITO_GAME.md §6: its key comes from the forwarder's own seed, for (turn, receiver)
    p = got["first_forwarded_pass"]
    e = group.hash_to_scalar(b"splitnet/splito/v1/pass-key", GID, seed_of(p["from"]),
                             u64(p["turn"]), u64(p["to"]), u64(0))
    assert group.base_mul(e).hex() == p["eph"]
    v = verify_records(game.log.records())
    assert v.ok, v.summary
    assert v.record is not None and check_record(v.record).ok




if __name__ == "__main__":  # pragma: no cover
    if "--write" in sys.argv:
        PATH.write_text(json.dumps(compute_vectors(), indent=2) + "\n")
        print(f"wrote {PATH}")
