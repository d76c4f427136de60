"""Splito fair-game test vectors, checked byte for byte (protocol/SPLITO_GAME.md §10;
docs/SPLITO.md S4, S5.4, S7.3).

Regenerate (only when the protocol changes!) with
``.venv/bin/python -m tests.test_splito_vectors --write``.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from splitnet.crypto import group
from splitnet.crypto.seeds import deck_digest, u64
from splitnet.game.table import PROTOCOL, PledgeBook
from splitnet.games.split.local import LocalGame
from splitnet.games.splito.core import (
    SplitoCore,
    Stage,
    card_encodings,
    pass_scalar,
    pass_stream,
    play_nonce,
    splito_header,
)
from splitnet.games.splito.engine import Play
from splitnet.games.splito.settings import SplitoSettings
from splitnet.session.identity import Identity

PATH = Path(__file__).parent / "vectors" / "splito_game_v1.json"
GID = bytes(range(16))
N = 3


def seed_of(seat: int) -> bytes:
    return hashlib.sha256(b"seat" + u64(seat)).digest()


class Source:
    """game_id 00 … 0f; identity seeds SHA-256("id" ‖ byte(i)); seeds SHA-256("seat" ‖ u64(i))."""

    def game_id(self) -> bytes:
        return GID

    def identity(self, seat: int) -> Identity:
        return Identity.from_seed(hashlib.sha256(b"id" + bytes([seat])).digest())

    def round_seeds(self, seat: int) -> Callable[[int], bytes]:
        return lambda rnd: seed_of(seat)


def play_game() -> LocalGame[SplitoCore]:
    """Ana, Ben, Cy; default settings; every seat plays, every turn, the first card of its
    hand (in hand order) to the left."""
    settings = SplitoSettings.standard(N)
    names = ["Ana", "Ben", "Cy"]

    def make(gid: bytes, seat: int, seeds: Callable[[int], bytes], pledges: PledgeBook,
             keys: list[bytes]) -> SplitoCore:
        return SplitoCore(gid, names, settings, seat, seeds, pledges=pledges)

    return drive(LocalGame(names, settings, Source(), make_core=make,
                           header=splito_header(settings, PROTOCOL)))


def drive(game: LocalGame[SplitoCore],
          host: Callable[[LocalGame[SplitoCore]], bool] | None = None
          ) -> LocalGame[SplitoCore]:
    """Play a vector game to its end: the protocol messages in the order the local table
    pumps them (seat order), then each seat that may choose plays the first card of its
    hand (hand order) to the left; ``host``, asked before each choice, may act instead
    (True: it did)."""
    for _ in range(20_000):
        if game.finished:
            return game
        if game.pump() or (host is not None and host(game)):
            continue
        seat = game.mover()
        assert seat is not None
        hand = game.cores[seat].engine.hands[seat]
        game.play_move(seat, Play(seat, hand[0], "left"))
    raise AssertionError("the vector game did not end")


def compute_vectors() -> dict[str, Any]:
    points, _ = card_encodings(GID)
    game = play_game()
    core = game.cores[0]
    assert core.stage is Stage.DONE and core.record is not None and core.cards is not None
    entries = game.log.entries
    first_move = next(e for e in entries if e.kind == "move")
    first_reveal = next(e for e in entries if e.kind == "reveal")
    first_pass = next(e for e in entries if e.kind == "pass")
    y = core.objectives.joint_key
    assert y is not None
    obj_initial = tuple((group.IDENTITY, points[72 + j]) for j in range(37))
    e = pass_scalar(GID, seed_of(0), 1, 1)
    eph = group.base_mul(e)
    key = group.mul(e, core.cards.keys[1])
    rec = core.record
    return {
        "description": "Splito on the fair deck (protocol splitnet/6, game splito): game_id "
                       "= bytes(range(16)), players Ana, Ben, Cy, default settings, seed_i = "
                       "SHA-256('seat' || u64(i)), identity seeds SHA-256('id' || byte(i)); "
                       "every seat plays the first card of its hand to the left",
        "M_0_R1a": points[0].hex(),
        "M_72_OBJ01": points[72].hex(),
        "M_108_OBJ37": points[108].hex(),
        "sha256_of_all_109_points": hashlib.sha256(b"".join(points)).hexdigest(),
        "joint_key": y.hex(),
        "objective_deck_initial_digest": deck_digest(GID, 1, y, obj_initial).hex(),
        "central": list(rec["deal"]["central"]),
        "objective_order": list(rec["deal"]["objective_order"]),
        "deck_first_10": list(rec["deal"]["deck"][:10]),
        "nonce_seat0_turn1": play_nonce(GID, seed_of(0), 1),
        "first_move": {"seat": first_move.author, "body": dict(first_move.body)},
        "commit_the_first_reveal_opens": next(
            e.body["commit"] for e in entries if e.kind == "move"
            and e.author == first_reveal.author and e.body["turn"] == 1),
        "first_reveal": {"seat": first_reveal.author,
                         "slot": first_reveal.body["slot"],
                         "card": first_reveal.body["card"],
                         "side": first_reveal.body["side"],
                         "nonce": first_reveal.body["nonce"],
                         "share": first_reveal.body["share"]["shares"][0].hex(),
                         "proof": first_reveal.body["share"]["proof"].hex()},
        "pass_seat0_to_1_after_turn1": {"e": group.scalar_bytes(e).hex(), "eph": eph.hex(),
                                        "K": key.hex(),
                                        "pok": first_pass.body["pok"].hex(),
                                        "pad_first_32": pass_stream(GID, 1, 0, 1, eph, key,
                                                                    32).hex(),
                                        "box_sha256": hashlib.sha256(
                                            first_pass.body["box"]).hexdigest(),
                                        "box_bytes": len(first_pass.body["box"])},
        "entries": len(entries),
        "transcript_sha256": hashlib.sha256(b"".join(game.log.records())).hexdigest(),
        "zone_points": rec["zone_points"],
        "scores": [s["score"] for s in rec["scores"]],
        "winners": rec["winners"],
    }


def test_s7_3_s5_4_splito_vectors_byte_for_byte() -> None:
    want = json.loads(PATH.read_text())
    assert compute_vectors() == json.loads(json.dumps(want))


def test_the_vectors_follow_the_written_layouts() -> None:
    """SPLITO_GAME.md §3 and §6 with plain hashlib and the group: the card points, the
    play nonce, the commitment of the first move and the pass box's pad."""
    v = json.loads(PATH.read_text())
    m0 = group.hash_to_point(b"splitnet/splito/v1/card", GID, u64(0))
    assert m0.hex() == v["M_0_R1a"]
    nonce = hashlib.sha256(group.frame(b"splitnet/splito/v1/nonce", GID, seed_of(0),
                                       u64(1))).hexdigest()[:32]
    assert nonce == v["nonce_seat0_turn1"]
    r = v["first_reveal"]
    text = f"{GID.hex()}|1|{r['seat']}|{r['card']}|{r['side']}|{r['nonce']}"
    assert hashlib.sha256(text.encode()).hexdigest() == v["commit_the_first_reveal_opens"]
    p = v["pass_seat0_to_1_after_turn1"]
    e = group.hash_to_scalar(b"splitnet/splito/v1/pass-key", GID, seed_of(0), u64(1),
                             u64(1), u64(0))
    assert group.scalar_bytes(e).hex() == p["e"]
    assert group.base_mul(e).hex() == p["eph"]
    pad = hashlib.shake_256(group.frame(b"splitnet/splito/v1/pass-box", GID, u64(1), u64(0),
                                        u64(1), bytes.fromhex(p["eph"]),
                                        bytes.fromhex(p["K"]))).digest(32)
    assert pad.hex() == p["pad_first_32"]
    assert p["box_bytes"] == 12 * 128  # S5.4: 12 cards left, share ‖ proof each
    # the pok (§6): k = H_nz(pass-pok ‖ "/nonce", e, game_id, t, h, r, R), T = k·G,
    # c = H(pass-pok, game_id, t, h, r, R, T), z = k + c·e; the pass carries c ‖ z
    ctx = (GID, u64(1), u64(0), u64(1))
    k = group.hash_to_scalar(b"splitnet/splito/v1/pass-pok/nonce", group.scalar_bytes(e),
                             *ctx, group.base_mul(e), u64(0))
    t = group.base_mul(k)
    c = group.hash_to_scalar(b"splitnet/splito/v1/pass-pok", *ctx, group.base_mul(e), t)
    want = group.scalar_bytes(c) + group.scalar_bytes((k + c * e) % group.L)
    assert want.hex() == p["pok"]



def test_the_entry_table_of_splito_game_md_is_the_codes_kinds() -> None:
    """SPLITO_GAME.md §4 lists exactly the kinds SplitoCore takes."""
    import re

    from splitnet.games.splito.core import KINDS

    doc = (Path(__file__).resolve().parent.parent / "protocol" / "SPLITO_GAME.md").read_text()
    section = doc[doc.index("## 4. Entries"):doc.index("## 5.")]
    listed = set(re.findall(r"^\| `(\w+)` \|", section, re.M))
    assert listed == set(KINDS)


if __name__ == "__main__":  # pragma: no cover
    if "--write" in sys.argv:
        vectors = compute_vectors()

        def enc(o: object) -> object:
            if isinstance(o, bytes):
                return o.hex()
            raise TypeError(type(o))

        PATH.write_text(json.dumps(vectors, indent=2, default=enc) + "\n")
        print(f"wrote {PATH}")
