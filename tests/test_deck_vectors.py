"""Fair-deck test vectors, checked byte for byte (protocol/DECK.md §11; R3.3, R8.4).

Regenerate (only when the protocol version changes!) with
``.venv/bin/python -m tests.test_deck_vectors --write``.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

from splitnet.crypto import elgamal, group
from splitnet.crypto.deck import shuffle_context
from splitnet.crypto.seeds import (
    derive_key,
    derive_permutation,
    derive_remasks,
    derive_shuffle_nonce_seed,
    u64,
)
from tests.test_deck_helpers import GID, Table, seed_for

PATH = Path(__file__).parent / "vectors" / "deck_v1.json"
N = 3


def compute_vectors() -> dict[str, Any]:
    t = Table(N, observer=False)
    t.commit()
    commits = [m for k, _, m, _ in t.log if k == "commit"]
    first_hop = t.peers[0].shuffle_message()
    t.send("shuffle", 0, first_hop)
    for i in range(1, N):
        t.send("shuffle", i, t.peers[i].shuffle_message())
    hop0 = first_hop["deck"]
    assert isinstance(hop0, list)
    final = t.peers[0].deck
    assert final is not None
    d_in = [t.peers[0].input_digest(i) or b"" for i in range(N)]
    draw = t.peers[1].shares_message([0], "draw")
    deal = t.peers[0].shares_message([1, 4, 7], "deal")
    t.send("shares", 1, draw, "draw")
    t.send("shares", 2, t.peers[2].shares_message([0], "draw"), "draw")
    t.send("shares", 0, deal, "deal")
    t.open_all()
    audit = t.peers[0].audit()
    return {
        "description": "splitnet fair deck (protocol splitnet/2): game_id = bytes(range(16)), "
        "round 1, 3 seats, seed_i = SHA-256(b'seat' || u64(i)), no shuffle proofs; scalars "
        "little-endian, points canonical ristretto255, all hex",
        "game_id": GID.hex(),
        "round": 1,
        "n_players": N,
        "seeds": [seed_for(i).hex() for i in range(N)],
        "card_points": {str(k): elgamal.card_points(GID)[k].hex() for k in (0, 1, 103)},
        "seats": [
            {
                "x": group.scalar_bytes(derive_key(GID, 1, i, seed_for(i))).hex(),
                "commit": c["commit"].hex(),
                "key": c["key"].hex(),
                "input_digest": d_in[i].hex(),
                "perm_first_8": derive_permutation(GID, 1, i, seed_for(i), d_in[i])[:8],
                "rho_0": group.scalar_bytes(
                    derive_remasks(GID, 1, i, seed_for(i), d_in[i])[0]
                ).hex(),
                "shuffle_context": shuffle_context(GID, 1, i, d_in[i]).hex(),
                "shuffle_nonce_seed": derive_shuffle_nonce_seed(
                    GID, 1, i, seed_for(i), d_in[i]
                ).hex(),
            }
            for i, c in enumerate(commits)
        ],
        "pok_seat_0": commits[0]["pok"].hex(),
        "joint_key": (t.peers[0].joint_key or b"").hex(),
        "hop_seat_0": {
            "positions": {str(i): [hop0[i][0].hex(), hop0[i][1].hex()] for i in (0, 1, 103)},
            "sha256": hashlib.sha256(b"".join(a + b for a, b in hop0)).hexdigest(),
        },
        "final_deck_sha256": hashlib.sha256(elgamal.deck_bytes(final)).hexdigest(),
        "final_deck_digest": (t.peers[0].final_digest or b"").hex(),
        "draw_share_seat_1_slot_0": {
            "purpose": "draw",
            "slots": draw["slots"],
            "shares": [d.hex() for d in draw["shares"]],  # type: ignore[attr-defined]
            "proof": draw["proof"].hex(),  # type: ignore[union-attr]
        },
        "deal_shares_seat_0": {
            "purpose": "deal",
            "slots": deal["slots"],
            "shares": [d.hex() for d in deal["shares"]],  # type: ignore[attr-defined]
            "proof": deal["proof"].hex(),  # type: ignore[union-attr]
        },
        "slot_0_card_for_seat_0": t.peers[0].card(0),
        "audit_first_10": audit[:10],
        "audit_sha256": hashlib.sha256(b"".join(u64(k) for k in audit)).hexdigest(),
    }


def test_r8_4_deck_vectors_byte_for_byte() -> None:
    stored = json.loads(PATH.read_text())
    assert compute_vectors() == stored


if __name__ == "__main__":  # pragma: no cover
    if "--write" in sys.argv:
        PATH.write_text(json.dumps(compute_vectors(), indent=2) + "\n")
        print(f"wrote {PATH}")
    else:
        print(json.dumps(compute_vectors(), indent=2))


def _frame(domain: bytes, *parts: bytes) -> bytes:
    """protocol/DECK.md §2 spelled out: u64be(len) ‖ bytes, for the domain and each part."""
    return b"".join(len(p).to_bytes(8, "big") + p for p in (domain, *parts))


def test_vectors_follow_the_written_layouts() -> None:
    """Recompute a few vector values from DECK.md's byte layouts alone (no splitnet hashing)."""
    v = json.loads(PATH.read_text())
    gid, seed0 = bytes.fromhex(v["game_id"]), bytes.fromhex(v["seeds"][0])
    assert seed0 == hashlib.sha256(b"seat" + (0).to_bytes(8, "big")).digest()
    one, zero = (1).to_bytes(8, "big"), (0).to_bytes(8, "big")
    commit = hashlib.sha256(_frame(b"splitnet/v1/commit", gid, one, zero, seed0)).digest()
    assert commit.hex() == v["seats"][0]["commit"]
    x = (
        int.from_bytes(
            hashlib.sha512(_frame(b"splitnet/v1/key", gid, one, zero, seed0, zero)).digest(),
            "little",
        )
        % group.L
    )
    assert x.to_bytes(32, "little").hex() == v["seats"][0]["x"]
    assert group.base_mul(x).hex() == v["seats"][0]["key"]
    m0 = group.hash_to_point(b"splitnet/v1/card", gid, zero)
    assert m0.hex() == v["card_points"]["0"]
    # the Schnorr proof: e ‖ z with R = z·G − e·Y and e = H(pok, game, round, seat, Y, R)
    pok = bytes.fromhex(v["pok_seat_0"])
    e, z = int.from_bytes(pok[:32], "little"), int.from_bytes(pok[32:], "little")
    key = bytes.fromhex(v["seats"][0]["key"])
    r = group.sub(group.base_mul(z), group.mul(e, key))
    e2 = (
        int.from_bytes(
            hashlib.sha512(_frame(b"splitnet/v1/pok", gid, one, zero, key, r)).digest(), "little"
        )
        % group.L
    )
    assert e == e2
    # the joint key is the sum of the three keys
    keys = [bytes.fromhex(s["key"]) for s in v["seats"]]
    assert group.add(group.add(keys[0], keys[1]), keys[2]).hex() == v["joint_key"]
    # seat 0's input digest: the initial deck (IDENTITY, M_k) under the joint key
    y = bytes.fromhex(v["joint_key"])
    initial = b"".join(bytes(32) + group.hash_to_point(b"splitnet/v1/card", gid, u64(k))
                       for k in range(104))
    d_in = hashlib.sha256(
        _frame(b"splitnet/v2/deck", gid, one, y, (104).to_bytes(8, "big"), initial)
    ).digest()
    assert d_in.hex() == v["seats"][0]["input_digest"]
    # seat 0's first re-mask, its permutation's first swap, its proof context and nonce seed
    rho0 = (
        int.from_bytes(
            hashlib.sha512(
                _frame(b"splitnet/v2/remask", gid, one, zero, seed0, d_in, zero, zero)
            ).digest(),
            "little",
        )
        % group.L
    )
    assert rho0.to_bytes(32, "little").hex() == v["seats"][0]["rho_0"]
    stream = hashlib.shake_256(_frame(b"splitnet/v2/perm", gid, one, zero, seed0, d_in))
    first = int.from_bytes(stream.digest(4), "big")
    assert first < 2**32 - (2**32 % 104)  # (no rejection for this vector)
    perm = list(range(104))
    t = first % 104
    perm[103], perm[t] = perm[t], perm[103]
    assert perm[103] == derive_permutation(gid, 1, 0, seed0, d_in)[103]
    ctx = _frame(b"splitnet/v2/shuffle", gid, one, zero, d_in)
    assert ctx.hex() == v["seats"][0]["shuffle_context"]
    nonce = hashlib.sha256(
        _frame(b"splitnet/v2/shuffle-proof-nonce", gid, one, zero, seed0, d_in)
    ).digest()
    assert nonce.hex() == v["seats"][0]["shuffle_nonce_seed"]
