"""protocol/TRANSCRIPT.md test vectors, byte for byte (tests/vectors/session_v1.json).

Regenerate (only after a deliberate format change, with a new version tag):
``.venv/bin/python tests/test_session_vectors.py --write``.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from splitnet.session.codec import decode, encode
from splitnet.session.identity import Identity
from splitnet.session.log import (
    Author,
    Log,
    Player,
    check_refusal,
    make_ack,
    make_refusal,
    message_hash,
)
from splitnet.session.transcript import MAGIC, load_log

PATH = Path(__file__).parent / "vectors" / "session_v1.json"
GAME_ID = bytes(range(16))
NAMES = ("Ana", "Ben", "Cy")


def seed(i: int) -> bytes:
    """The i-th fixed identity: sha256(b"id" ‖ one byte i)."""
    return hashlib.sha256(b"id" + bytes([i])).digest()


def build() -> tuple[list[Identity], Log]:
    ids = [Identity.from_seed(seed(i)) for i in range(3)]
    players = [Player(i, NAMES[i], ids[i].public_key_bytes()) for i in range(3)]
    log, _host = Log.start(
        ids[0], game_id=GAME_ID, host_seat=0, players=players, settings={"rounds": 3}
    )
    a1, a2 = Author(ids[1], GAME_ID, 1), Author(ids[2], GAME_ID, 2)
    log.order(*a1.accept(log.header_hash), ids[0])
    log.order(*a2.accept(log.header_hash), ids[0])
    log.order(*a1.message("chat", {"text": "hello"}, seen=log.seen()), ids[0])
    return ids, log


def compute_vectors() -> dict[str, Any]:
    ids, log = build()
    entries = []
    for e in log.entries:
        outer = decode(e.record, max_len=1 << 20)
        assert isinstance(outer, list)
        entry_bytes, host_sig = outer
        entries.append({
            "seq": e.seq, "author": e.author, "counter": e.counter, "kind": e.kind,
            "msg_bytes": e.msg_bytes.hex(), "sig": e.sig.hex(),
            "entry_bytes": entry_bytes.hex(), "host_sig": host_sig.hex(),
            "record": e.record.hex(), "hash": e.hash.hex(),
        })
    transcript = MAGIC + b"".join(len(r).to_bytes(4, "big") + r for r in log.records())
    return {
        "description": "protocol/TRANSCRIPT.md test vectors: identities from "
        "sha256(b'id' || byte i), game_id 00..0f, host seat 0, settings {rounds: 3}; "
        "entries: header, accept by 1, accept by 2, chat by 1",
        "identities": [
            {"seed": seed(i).hex(), "public_key": k.public_key_bytes().hex(),
             "fingerprint": k.fingerprint()}
            for i, k in enumerate(ids)
        ],
        "game_id": GAME_ID.hex(),
        "entries": entries,
        "head": log.head().hex(),
        "ack_by_seat_2": make_ack(ids[2], GAME_ID, 3, log.head(), seat=2).hex(),
        "msg_hash_of_entry_3": message_hash(log.entries[3].msg_bytes,
                                            log.entries[3].sig).hex(),
        "refusal_at_seq_4": make_refusal(ids[0], GAME_ID, 4, log.head(), 1,
                                         log.entries[3].msg_bytes, log.entries[3].sig,
                                         "replay", "counter 1 was used").hex(),
        "transcript_file": transcript.hex(),
        "codec": {
            name: encode(value).hex()
            for name, value in [
                ("map_keys_sorted", {"b": 1, "a": 2, "B": 3, "ab": 4}),
                ("ints", [0, 127, 128, 255, 256, 65536, -1, -32, -33, -129, 2**32]),
                ("bin_vs_str", [b"", b"x", "", "x", None, True, False]),
            ]
        },
    }


def test_vectors_byte_for_byte() -> None:
    assert compute_vectors() == json.loads(PATH.read_text())


def test_vectors_follow_the_written_layouts() -> None:
    """Re-derive the stored bytes from TRANSCRIPT.md alone: hand-assembled msgpack,
    hashlib and cryptography's Ed25519 — no splitnet code on the checking side."""
    v = json.loads(PATH.read_text())
    keys = [bytes.fromhex(i["public_key"]) for i in v["identities"]]
    chat = v["entries"][3]
    # msg_bytes of the chat: fixarray(8), bin8 tag, bin8 game_id, author 1, counter 1,
    # seen_seq 2 and seen_hash (the head it was signed at: entry 2's hash), fixstr
    # "chat", fixmap(1) {"text": "hello"}
    want = (
        b"\x98" + b"\xc4\x0f" + b"splitnet/v2/msg" + b"\xc4\x10" + bytes(range(16))
        + b"\x01" + b"\x01" + b"\x02" + b"\xc4\x20" + bytes.fromhex(v["entries"][2]["hash"])
        + b"\xa4chat" + b"\x81" + b"\xa4text" + b"\xa5hello"
    )
    assert bytes.fromhex(chat["msg_bytes"]) == want
    # the header names nothing seen (0 and 32 zero bytes); an accept, the header it
    # accepts (0 and entry 0's hash)
    header_msg = bytes.fromhex(v["entries"][0]["msg_bytes"])
    assert header_msg.startswith(b"\x98\xc4\x0fsplitnet/v2/msg\xc4\x10" + bytes(range(16))
                                 + b"\x00\x00\x00\xc4\x20" + bytes(32) + b"\xa4game")
    for e in v["entries"][1:3]:
        assert bytes.fromhex(e["msg_bytes"]).startswith(
            b"\x98\xc4\x0fsplitnet/v2/msg\xc4\x10" + bytes(range(16)) + bytes([e["author"]])
            + b"\x00\x00\xc4\x20" + bytes.fromhex(v["entries"][0]["hash"]) + b"\xa6accept")
    prev = bytes(32)
    for i, e in enumerate(v["entries"]):
        msg, sig = bytes.fromhex(e["msg_bytes"]), bytes.fromhex(e["sig"])
        Ed25519PublicKey.from_public_bytes(keys[e["author"]]).verify(sig, msg)
        # entry_bytes: fixarray(5), bin8 tag, seq (fixint), bin8 prev, bin8/16 msg, bin8 sig
        blen = (b"\xc4" + bytes([len(msg)])) if len(msg) < 256 else (
            b"\xc5" + len(msg).to_bytes(2, "big"))
        entry = (b"\x95\xc4\x11splitnet/v1/entry" + bytes([i]) + b"\xc4\x20" + prev
                 + blen + msg + b"\xc4\x40" + sig)
        assert bytes.fromhex(e["entry_bytes"]) == entry
        host_sig = bytes.fromhex(e["host_sig"])
        Ed25519PublicKey.from_public_bytes(keys[0]).verify(host_sig, entry)
        elen = (b"\xc4" + bytes([len(entry)])) if len(entry) < 256 else (
            b"\xc5" + len(entry).to_bytes(2, "big"))
        record = b"\x92" + elen + entry + b"\xc4\x40" + host_sig
        assert bytes.fromhex(e["record"]) == record
        h = hashlib.sha256(b"splitnet/v1/entry-hash" + record).digest()
        assert bytes.fromhex(e["hash"]) == h
        prev = h
    assert v["head"] == prev.hex()
    # accept bodies sign the header hash
    for e in v["entries"][1:3]:
        assert bytes.fromhex(v["entries"][0]["hash"]) in bytes.fromhex(e["msg_bytes"])
    # the ack: [ack_bytes, sig], ack_bytes = [tag, game_id, seat, seq, head]
    ack_bytes = (b"\x95\xc4\x0fsplitnet/v1/ack\xc4\x10" + bytes(range(16)) + b"\x02\x03"
                 + b"\xc4\x20" + prev)
    ack = bytes.fromhex(v["ack_by_seat_2"])
    assert ack[:3] == b"\x92\xc4" + bytes([len(ack_bytes)])
    assert ack[3 : 3 + len(ack_bytes)] == ack_bytes
    assert ack[3 + len(ack_bytes) : 5 + len(ack_bytes)] == b"\xc4\x40"
    Ed25519PublicKey.from_public_bytes(keys[2]).verify(ack[5 + len(ack_bytes):], ack_bytes)
    # the refusal (§7a): [refusal_bytes, sig], refusal_bytes = [tag, game_id, seq, head,
    # seat, msg_hash, code, reason]; msg_hash over [msg_bytes, sig]
    chat_sig = bytes.fromhex(chat["sig"])
    signed = b"\x92\xc4" + bytes([len(want)]) + want + b"\xc4\x40" + chat_sig
    msg_hash = hashlib.sha256(b"splitnet/v1/msg-hash" + signed).digest()
    assert v["msg_hash_of_entry_3"] == msg_hash.hex()
    reason = b"counter 1 was used"
    ref_bytes = (b"\x98\xc4\x13splitnet/v1/refusal\xc4\x10" + bytes(range(16)) + b"\x04"
                 + b"\xc4\x20" + prev + b"\x01" + b"\xc4\x20" + msg_hash + b"\xa6replay"
                 + bytes([0xA0 + len(reason)]) + reason)
    ref = bytes.fromhex(v["refusal_at_seq_4"])
    assert ref[:3] == b"\x92\xc4" + bytes([len(ref_bytes)])
    assert ref[3 : 3 + len(ref_bytes)] == ref_bytes
    assert ref[3 + len(ref_bytes) : 5 + len(ref_bytes)] == b"\xc4\x40"
    Ed25519PublicKey.from_public_bytes(keys[0]).verify(ref[5 + len(ref_bytes):], ref_bytes)
    # the file: magic, then u32be length ‖ record
    f = bytes.fromhex(v["transcript_file"])
    assert f == b"SPLITLOG/1\n" + b"".join(
        len(r).to_bytes(4, "big") + r
        for r in (bytes.fromhex(e["record"]) for e in v["entries"])
    )
    assert v["codec"]["map_keys_sorted"] == "84a14203a16102a2616204a16201"


def test_vector_transcript_loads(tmp_path: Path) -> None:
    v = json.loads(PATH.read_text())
    p = tmp_path / "v.splitlog"
    p.write_bytes(bytes.fromhex(v["transcript_file"]))
    log = load_log(p)
    assert log.head().hex() == v["head"] and log.all_accepted
    assert log.check_ack(bytes.fromhex(v["ack_by_seat_2"])).seq == 3
    ref = check_refusal(bytes.fromhex(v["refusal_at_seq_4"]), game_id=log.game_id,
                        host_key=log.header.key(0))
    assert (ref.seq, ref.head, ref.seat, ref.code) == (4, log.head(), 1, "replay")
    assert ref.msg_hash.hex() == v["msg_hash_of_entry_3"]


if __name__ == "__main__":  # pragma: no cover
    if "--write" in sys.argv:
        PATH.write_text(json.dumps(compute_vectors(), indent=1) + "\n")
        print(f"wrote {PATH}")
    else:
        print(json.dumps(compute_vectors(), indent=1))
