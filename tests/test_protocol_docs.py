"""protocol/ says what the code does: each statement an independent implementation needs
is checked here against the code (the card table, the word list, SPAKE2 from its written
definition, the record's exact text, the shuffle proof's generator context, chat, what
`splitnet verify` prints and returns)."""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from splitnet.cards import RANKS, SUITS, card_id, name, rank, suit
from splitnet.crypto import group
from splitnet.crypto.elgamal import initial_deck
from splitnet.crypto.seeds import derive_permutation, derive_remasks
from splitnet.crypto.shuffle_proof import ShuffleProofError, prove_shuffle, verify_shuffle
from splitnet.game.table import GameError
from splitnet.games.split.local import LocalGame, SelfplaySecrets
from splitnet.games.split.record import Recorder, dumps
from splitnet.games.split.rules import (
    BonusSwap,
    Discard,
    DrawPile,
    Game,
    Lay,
    Settings,
    SkipBonus,
    TakeRow,
    Upgrade,
)
from splitnet.net.joincode import word_list
from splitnet.session.transcript import read_transcript
from splitnet.verify import EXIT_FAILED, EXIT_INCOMPLETE, EXIT_OK, run_verify
from tests.rules_helpers import faces_for, slot_of

#: the games here are in-process tables, every peer checking every other seat's hop
#: and verify each again: the same proofs, computed in full once per test
#: (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("each_shuffle_proof_checked_once")


PROTOCOL = Path(__file__).resolve().parent.parent / "protocol"


def doc(name_: str) -> str:
    return (PROTOCOL / name_).read_text(encoding="utf-8")


def section(text: str, heading: str) -> str:
    """The text of the section that starts with ``heading`` (up to the next heading of
    the same or a higher level)."""
    start = text.index(heading)
    level = len(heading) - len(heading.lstrip("#"))
    rest = text[start + len(heading):]
    m = re.search(rf"^#{{1,{level}}} ", rest, re.M)
    return rest[: m.start()] if m else rest


def code_blocks(text: str) -> list[str]:
    return re.findall(r"^```[a-z]*\n(.*?)^```", text, re.M | re.S)


# ------------------------------------------------------------------ DECK.md §1.1 (R1.2)
def test_R1_2_the_card_table_of_deck_md_is_the_code_s_mapping() -> None:
    text = section(doc("DECK.md"), "### 1.1 Card ids")
    rows = re.findall(r"^\| (A|[2-9]|10|J|Q|K) \|(.*)\|$", text, re.M)
    assert [r for r, _ in rows] == list(RANKS)
    header = re.search(r"^\| rank \|(.*)\|$", text, re.M)
    assert header is not None
    suits = [c.split()[0] for c in header.group(1).split("|")]
    assert suits == list(SUITS)
    seen = []
    for rk, cells in rows:
        for s, cell in zip(suits, cells.split("|"), strict=True):
            ids = [int(x) for x in cell.split()]
            assert len(ids) == 2
            for copy, k in enumerate(ids):
                assert k == card_id(rk + s, copy)
                assert name(k) == rk + s and RANKS[rank(k)] == rk and SUITS[suit(k)] == s
                assert (rank(k), suit(k), k % 2) == (k // 8, (k // 2) % 4, copy)
            seen += ids
    assert sorted(seen) == list(range(104))


# ------------------------------------------------------------------ SECURE.md §11, §3
def test_the_word_list_of_secure_md_is_the_shipped_file() -> None:
    block = code_blocks(section(doc("SECURE.md"), "## 11. Word list"))[0]
    words: list[str] = []
    for line in block.splitlines():
        start, *row = line.split()
        assert int(start) == len(words), line
        words += row
    assert tuple(words) == word_list()
    joined = "\n".join(words).encode()
    stated = re.search(r"SHA-256 of the 256 words joined by `\\n` \(no trailing newline\) is\s+"
                       r"`([0-9a-f]{64})`", doc("SECURE.md"))
    assert stated is not None and hashlib.sha256(joined).hexdigest() == stated.group(1)


# A small, independent edwards25519 (RFC 8032 §5.1) for the SPAKE2 check: extended
# coordinates, double-and-add; slow and not constant-time, which a test does not mind.
P25519 = 2**255 - 19
L25519 = 2**252 + 27742317777372353535851937790883648493
D25519 = -121665 * pow(121666, P25519 - 2, P25519) % P25519
Pt = tuple[int, int, int, int]
IDENT: Pt = (0, 1, 1, 0)


def _add(p: Pt, q: Pt) -> Pt:
    x1, y1, z1, t1 = p
    x2, y2, z2, t2 = q
    a = (y1 - x1) * (y2 - x2) % P25519
    b = (y1 + x1) * (y2 + x2) % P25519
    c = 2 * D25519 * t1 * t2 % P25519
    d = 2 * z1 * z2 % P25519
    e, f, g, h = b - a, d - c, d + c, b + a
    return e * f % P25519, g * h % P25519, f * g % P25519, e * h % P25519


def _mul(k: int, p: Pt) -> Pt:
    out = IDENT
    while k:
        if k & 1:
            out = _add(out, p)
        p, k = _add(p, p), k >> 1
    return out


def _x_of(y: int) -> int | None:
    """The even x with (x, y) on the curve, or None."""
    xx = (y * y - 1) * pow(D25519 * y * y + 1, P25519 - 2, P25519) % P25519
    x = pow(xx, (P25519 + 3) // 8, P25519)
    if (x * x - xx) % P25519:
        x = x * pow(2, (P25519 - 1) // 4, P25519) % P25519
    if (x * x - xx) % P25519:
        return None
    return P25519 - x if x & 1 else x


def _enc(p: Pt) -> bytes:
    x, y, z, _ = p
    zi = pow(z, P25519 - 2, P25519)
    x, y = x * zi % P25519, y * zi % P25519
    return (y | ((x & 1) << 255)).to_bytes(32, "little")


def _dec(b: bytes) -> Pt:
    v = int.from_bytes(b, "little")
    y = v & ((1 << 255) - 1)
    x = _x_of(y)
    assert x is not None
    if x & 1 != v >> 255:
        x = P25519 - x
    return x, y, 1, x * y % P25519


def _hkdf48(ikm: bytes, info: bytes) -> int:
    """HKDF-SHA256 (RFC 5869), empty salt, 48 bytes, read big-endian."""
    prk = hmac.new(b"", ikm, "sha256").digest()
    okm, t = b"", b""
    for i in (1, 2):
        t = hmac.new(prk, t + info + bytes([i]), "sha256").digest()
        okm += t
    return int.from_bytes(okm[:48], "big")


def _arbitrary_element(seed: bytes) -> Pt:
    h = _hkdf48(seed, b"SPAKE2 arbitrary element") % P25519
    for plus in range(1000):
        y = (h + plus) % P25519
        x = _x_of(y)
        if x is None:
            continue
        p8 = _mul(8, (x, y, 1, x * y % P25519))
        if _enc(p8) != _enc(IDENT):
            return p8
    raise AssertionError("no element found")


def test_spake2_as_secure_md_writes_it_gives_the_vector_s_key() -> None:
    from tests.test_secure import VECTOR

    text = section(doc("SECURE.md"), "### SPAKE2")
    hexes = dict(re.findall(r"^\s*([MN]) = ([0-9a-f]{64})$", text, re.M))
    base_y = 4 * pow(5, P25519 - 2, P25519) % P25519
    base_x = _x_of(base_y)
    assert base_x is not None
    base: Pt = (base_x, base_y, 1, base_x * base_y % P25519)
    assert _enc(base).hex().startswith("5866") and _enc(base).hex().endswith("6666")
    m, n = _arbitrary_element(b"M"), _arbitrary_element(b"N")
    assert (_enc(m).hex(), _enc(n).hex()) == (hexes["M"], hexes["N"])

    pw = VECTOR["code"].encode()
    assert pw.hex() in text
    w = _hkdf48(pw, b"SPAKE2 pw") % L25519
    scalars = dict(re.findall(r"\b([xy]) =\s+`([0-9a-f]{64})`", text))
    assert w.to_bytes(32, "little").hex() in text.replace("\n", " ")

    def drawn(seed: bytes) -> int:  # SECURE.md §9: 64 bytes, big-endian, mod L
        return int.from_bytes(hashlib.shake_256(seed + (1).to_bytes(4, "big")).digest(64),
                              "big") % L25519

    x, y = drawn(b"joiner"), drawn(b"host")
    assert scalars == {"x": x.to_bytes(32, "little").hex(), "y": y.to_bytes(32, "little").hex()}
    big_x = _add(_mul(x, base), _mul(w, m))
    big_y = _add(_mul(y, base), _mul(w, n))
    hello, join = bytes.fromhex(VECTOR["hello"]), bytes.fromhex(VECTOR["join"])
    assert hello[-33:] == b"B" + _enc(big_y) and join[2:35] == b"A" + _enc(big_x)
    z_joiner = _mul(x, _add(_dec(hello[-32:]), _mul(L25519 - w, n)))
    z_host = _mul(y, _add(_dec(join[3:35]), _mul(L25519 - w, m)))
    assert _enc(z_joiner) == _enc(z_host)
    id_a, id_b = bytes.fromhex(VECTOR["idA"]), bytes.fromhex(VECTOR["idB"])
    context = b"splitnet/secure/v1 pake" + bytes.fromhex(VECTOR["game_id"]) + bytes.fromhex(
        VECTOR["nonce"])
    assert (id_a, id_b) == (context + b"/joiner", context + b"/host")
    k = hashlib.sha256(b"".join([hashlib.sha256(pw).digest(), hashlib.sha256(id_a).digest(),
                                 hashlib.sha256(id_b).digest(), _enc(big_x), _enc(big_y),
                                 _enc(z_joiner)])).digest()
    assert k.hex() == VECTOR["spake2_key"]


# ------------------------------------------------------------------ RECORD.md
def _walk_key_orders(value: Any, path: str, out: dict[str, list[str]]) -> None:
    if isinstance(value, dict):
        keys = list(value)
        if keys and all(k.isdigit() for k in keys):
            assert keys == [str(i) for i in range(len(keys))], (path, keys)
            for v in value.values():
                _walk_key_orders(v, path + "[seat]", out)
            return
        kind = value.get("type") if isinstance(value.get("type"), str) else path
        out.setdefault(kind, keys)
        assert out[kind] == keys, (kind, keys, out[kind])
        for k, v in value.items():
            _walk_key_orders(v, f"{path}.{k}" if path else k, out)
    elif isinstance(value, list):
        for v in value:
            _walk_key_orders(v, path + "[]", out)


def _documented_orders() -> dict[str, list[str]]:
    text = section(doc("RECORD.md"), "## Exact form")
    rows = re.findall(r"^\| ([^|]+) \| ([^|]+) \|$", text, re.M)
    table: dict[str, list[str]] = {}
    for obj, keys in rows:
        if obj.strip() in ("object", "---"):
            continue
        table[obj.strip()] = re.findall(r"`([a-z_\"0-9]+)`", keys)
    return table


def _swap_game_record() -> dict[str, Any]:
    """A one-round game with a take, lays, an upgrade and a weak-bonus swap of strong
    matches (R5.5), then random play to the end; recorded with non-ASCII names."""
    from splitnet.games.split.bots import make_bot

    g = Game(2, Settings(rounds=1))
    rec = Recorder(g, ["Zoë", "Bo \U0001f0cf"])
    hands = {1: ["7H", "7C", "8H", "8C", "4C", "5C", "6C", "9C", "10C"],
             0: ["2H", "2C", "3D", "3S", "4D", "KC", "6D", "9D", "10D"]}
    rec.start_round(faces_for(2, hands, "KS", ["7D"]))
    rec.apply(DrawPile(1))
    rec.apply(Lay(1, slot_of(g, 1, "7H"), slot_of(g, 1, "7C")))  # match 0: weak, no swap
    assert g.phase == "play"  # R5.4: nobody else has a match, the bonus is skipped
    rec.apply(Upgrade(1, slot_of(g, 1, "7D"), 0, 1))  # 7H 7D: strong
    rec.apply(SkipBonus(1))
    rec.apply(Discard(1, slot_of(g, 1, "10C")))
    rec.apply(TakeRow(0, 0))  # KS and 10C
    rec.apply(Lay(0, slot_of(g, 0, "KC"), slot_of(g, 0, "KS")))  # match 1: strong
    rec.apply(SkipBonus(0))
    rec.apply(Lay(0, slot_of(g, 0, "2H"), slot_of(g, 0, "2C")))  # match 2: weak
    assert g.pending_bonus == "weak"  # a strong-for-strong swap is possible
    rec.apply(BonusSwap(0, 1, 0))
    rec.apply(Discard(0, slot_of(g, 0, "9D")))
    bots = [make_bot("random", 40), make_bot("random", 41)]
    for _ in range(10_000):
        seat = g.actor
        if seat is None:
            break
        rec.apply(bots[seat].choose(g, seat))
    assert g.phase == "game_over"
    return rec.record


def test_record_md_exact_form_is_what_the_writers_produce(tmp_path: Path) -> None:
    """selfplay --record (and verify --json, the same function) write RECORD.md's exact
    form: the documented json.dumps parameters, key orders and list orders; the doc's
    excerpt is the start of the documented selfplay record."""
    from splitnet.games.split.front.selfplay import run_selfplay

    assert re.search(r"`splitnet selfplay --players 2 --seed 3 --no-proofs --record FILE`",
                     doc("RECORD.md"))
    out = tmp_path / "r.json"
    assert run_selfplay(2, ["heuristic", "heuristic"], 3, Settings(), record=str(out),
                        shuffle_proofs=False) == 0
    text = out.read_text(encoding="utf-8")
    record = json.loads(text)
    assert text == json.dumps(record, indent=1, ensure_ascii=True, separators=(",", ": ")) + "\n"
    assert text == dumps(record) and text.isascii()
    assert text.endswith("}\n") and not text.endswith("\n\n")
    assert all(line == line.rstrip() for line in text.splitlines())
    excerpt = code_blocks(section(doc("RECORD.md"), "## Exact form"))[0]
    assert text.startswith(excerpt)

    orders: dict[str, list[str]] = {}
    _walk_key_orders(record, "", orders)
    _walk_key_orders(_swap_game_record(), "", orders)
    table = _documented_orders()
    named = {
        "": "the record", "players[]": "a player", "settings": "`settings`",
        "settings.pad": "`pad`", "rounds[]": "a round", "rounds[].turns[]": "a turn",
        "rounds[].end": "`end`", "rounds[].end.late_lays[]": "a late lay",
        "rounds[].end.marks[seat]": "a seat's `marks`",
        "totals[seat]": "a seat's `totals`",
    }
    for kind, keys in orders.items():
        if kind == "seats":
            continue
        label = named.get(kind)
        if label is None:  # an event: its row names the type
            label = next(k for k in table if f"`{kind}`" in k)
        assert table[label] == keys, (kind, keys)
    assert {"bonus_swap", "upgrade", "take_row", "lay", "discard", "draw_pile"} <= set(orders)

    # Non-ASCII names are escaped exactly as documented (surrogate pair above U+FFFF).
    swap = dumps(_swap_game_record())
    assert '"name": "Zo\\u00eb"' in swap and '"name": "Bo \\ud83c\\udccf"' in swap


def test_record_md_list_orders_winners_and_hands_left() -> None:
    g = Game(3)
    g.marks = [{"perfect": 1, "strong": 0, "weak": 0, "negative": 0}] * 3
    assert g.winners() == [0, 1, 2]  # shared, in seat order
    rec = _swap_game_record()
    end = rec["rounds"][0]["end"]
    assert list(end["hands_left"]) == ["0", "1"] and rec["winners"] == sorted(rec["winners"])
    dealt = rec["rounds"][0]["hands"]
    events = [e for t in rec["rounds"][0]["turns"] for e in t["events"]]
    for seat in ("0", "1"):
        hand = list(dealt[seat])
        for t in rec["rounds"][0]["turns"]:
            for e in t["events"]:
                mine = str(t["seat"]) == seat
                if not mine:
                    continue
                if e["type"] in ("draw_pile", "bonus_draw"):
                    hand.append(e["card"])
                elif e["type"] == "take_row":
                    hand += e["cards"]
                elif e["type"] in ("discard", "upgrade"):
                    hand.remove(e["card"])
                elif e["type"] == "lay":
                    for c in e["cards"]:
                        hand.remove(c)
        assert end["hands_left"][seat] == hand, seat
    assert any(e["type"] == "bonus_swap" for e in events)


# ------------------------------------------------------------------ GAME.md
def test_the_shuffle_proof_uses_the_game_id_as_generator_context() -> None:
    """GAME.md "shuffle proofs", DECK.md §10: a hop of a real game verifies with the hop
    context and context_game = the header's game_id, and with nothing else."""
    g = LocalGame(["a", "b"], Settings(hand_size=4), SelfplaySecrets(5), shuffle_proofs=True)
    for _ in range(50):
        if any(e.kind == "shuffle" for e in g.log.entries):
            break
        for seat, core in enumerate(g.cores):
            for kind, body in core.outbox():
                g.send(seat, kind, body)
    entries = g.log.entries
    game_id = g.log.game_id
    keys = [e.body["key"] for e in entries if e.kind == "commit"]
    hop = next(e for e in entries if e.kind == "shuffle")
    assert hop.author == 0 and hop.body["round"] == 1
    pk = group.sum_points(keys)
    inputs = list(initial_deck(game_id))
    one, zero = (1).to_bytes(8, "big"), (0).to_bytes(8, "big")
    d_in = hashlib.sha256(group.frame(  # DECK.md §4: the digest of the hop's input deck
        b"splitnet/v2/deck", game_id, one, pk, (104).to_bytes(8, "big"),
        b"".join(c1 + c2 for c1, c2 in inputs))).digest()
    ctx = group.frame(b"splitnet/v2/shuffle", game_id, one, zero, d_in)
    assert len(ctx) == 123
    outputs = [tuple(c) for c in hop.body["deck"]]
    verify_shuffle(ctx, pk, inputs, outputs, hop.body["proof"], context_game=game_id)
    for other in (b"", bytes(16)):
        with pytest.raises(ShuffleProofError, match="does not fit this statement"):
            verify_shuffle(ctx, pk, inputs, outputs, hop.body["proof"], context_game=other)
    # DECK.md §10: the prover's nonce seed, so the proof is reproducible from the seed.
    seeds = g.cores[0].seeds
    assert seeds is not None
    seed = seeds(1)
    nonce = hashlib.sha256(group.frame(b"splitnet/v2/shuffle-proof-nonce", game_id, one,
                                       zero, seed, d_in)).digest()
    perm = derive_permutation(game_id, 1, 0, seed, d_in)
    rhos = derive_remasks(game_id, 1, 0, seed, d_in)
    assert prove_shuffle(ctx, pk, inputs, outputs, perm, rhos, nonce_seed=nonce,
                         context_game=game_id) == hop.body["proof"]


def test_chat_is_exactly_a_text_of_at_most_500_characters_any_time() -> None:
    g = LocalGame(["a", "b"], Settings(hand_size=4), SelfplaySecrets(6), shuffle_proofs=False)
    core = g.cores[0]
    core.apply(1, "chat", {"text": "x" * 500})  # before the first commit: fine
    for body in ({"text": "x" * 501}, {"text": 5}, {"text": "hi", "to": 0}, {}):
        with pytest.raises(GameError) as e:
            core.apply(1, "chat", body)
        assert e.value.seat == 1 and e.value.step == "chat"
    assert core.chat == [(1, "x" * 500)]


# ------------------------------------------------------------------ TRANSCRIPT.md §10
def test_verify_prints_and_returns_what_transcript_md_says(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "g.splitlog"
    g = LocalGame(["a", "b"], Settings(hand_size=4, rounds=1), SelfplaySecrets(7),
                  shuffle_proofs=False, transcript=path)
    from splitnet.games.split.bots import make_bot

    g.run_bots([make_bot("random", 0), make_bot("random", 1)])
    g.close()
    raw = path.read_bytes()
    n = len(read_transcript(path))
    table = section(doc("TRANSCRIPT.md"), "## 10. Verifying a transcript")

    def run(data: bytes, *args: bool) -> tuple[int, str, str]:
        p = tmp_path / "v.splitlog"
        p.write_bytes(data)
        rc = run_verify(p, *args)
        out, err = capsys.readouterr()
        return rc, out, err

    rc, out, err = run(raw)
    assert (rc, err) == (EXIT_OK, "") and out.endswith("shuffle fair: yes\n")
    assert f"{n} entries, signatures and hash chain: ok" in out
    rc, out, err = run(raw, True)
    assert rc == EXIT_OK and json.loads(out) == g.cores[0].record and out == dumps(
        g.cores[0].record)

    records = read_transcript(path)
    cut = len(b"SPLITLOG/1\n") + sum(4 + len(r) for r in records[:20])
    rc, out, err = run(raw[:cut])
    assert (rc, out) == (EXIT_INCOMPLETE, "")
    assert re.fullmatch(r"incomplete: the transcript ends in round 1 \(\w+\); everything up "
                        r"to entry 19 verified\n", err), err
    rc, out, err = run(raw[:cut + 9], True)  # torn inside record 20
    lines = err.splitlines()
    assert (rc, out, len(lines)) == (EXIT_INCOMPLETE, "", 2)
    assert lines[0].endswith("— a torn tail (a crash while writing); verifying the 20 "
                             "complete records before it")
    assert "record 20 at byte" in lines[0] and lines[1].startswith("incomplete:")

    bad = bytearray(raw)
    bad[cut + 40] ^= 1  # inside record 20: a signature or the chain breaks
    rc, out, err = run(bytes(bad))
    assert rc == EXIT_FAILED and out == "" and err.startswith("FAILED at entry 20 (seat ")
    rc, out, err = run(b"NOTALOG/1\n" + raw[11:])
    assert rc == EXIT_FAILED and "not a splitnet transcript (bad magic)" in err

    for needle in ("`incomplete: the transcript ends in round R (stage); everything up to "
                   "entry S verified`", "| 3 |", "| 1 |", "| 0 |", "a torn tail (a crash "
                   "while writing); verifying the I complete records before it",
                   "`FAILED at entry S (seat K): reason`"):
        assert needle in table.replace("\n", " "), needle


# ------------------------------------------------------------------ TRANSCRIPT.md §6
def test_transcript_md_s6_names_whom_the_code_names_for_a_bad_record() -> None:
    """§6 "Who is at fault": nobody for bytes that do not decode or a header that fails
    §5's shape; the host for a bad host signature (entry 0 and later) and for everything
    after it; the host again for header settings the game refuses (verify's `header: …`).
    The host is seat 1 here, so a check naming seat 0 could not pass."""
    from splitnet.games.split.local import game_settings
    from splitnet.session.codec import encode
    from splitnet.session.log import (
        NOTHING_SEEN,
        TAG_ENTRY,
        ZERO_HASH,
        Author,
        Log,
        LogError,
        Player,
        header_body,
        message_bytes,
    )
    from splitnet.verify import verify_records

    src = SelfplaySecrets(9)
    ids = [src.identity(s) for s in range(2)]
    gid = src.game_id()
    players = [Player(s, f"p{s}", ids[s].public_key_bytes()) for s in range(2)]
    host = ids[1]

    def flip(b: bytes) -> bytes:
        return bytes([b[0] ^ 1]) + b[1:]

    def record(seq: int, prev: bytes, msg: bytes, sig: bytes, *, bad_host: bool = False
               ) -> bytes:
        entry = encode([TAG_ENTRY, seq, prev, msg, sig])
        host_sig = host.sign(entry)
        return encode([entry, flip(host_sig) if bad_host else host_sig])

    def genesis(settings: dict[str, Any], *, shape_ok: bool = True,
                bad_host: bool = False) -> bytes:
        body = header_body(gid, 1, players, settings)
        if not shape_ok:  # players out of seat order: §5's shape check fails
            ps = body["players"]
            assert isinstance(ps, list)
            body["players"] = [ps[1], ps[0]]
        msg = message_bytes(gid, 1, 0, "game", body, seen=NOTHING_SEEN)
        return record(0, ZERO_HASH, msg, host.sign(msg), bad_host=bad_host)

    def blame(records: list[bytes]) -> tuple[int | None, str]:
        log = Log()
        try:
            for r in records:
                log.append_record(r)
        except LogError as e:
            return e.seat, e.code
        raise AssertionError("the log took every record")

    good = game_settings(Settings(hand_size=4), shuffle_proofs=False)
    ok0 = genesis(good)
    log = Log()
    log.append_record(ok0)
    msg, sig = Author(ids[0], gid, 0).accept(log.header_hash)
    assert blame([b"\xc1"]) == (None, "garbage")                      # step 1, entry 0
    assert blame([ok0, b"\xc1"]) == (None, "garbage")                 # step 1, entry 1
    assert blame([genesis(good, shape_ok=False)]) == (None, "header")  # step 2
    assert blame([genesis(good, bad_host=True)]) == (1, "host-sig")    # step 3, entry 0
    assert blame([ok0, record(1, log.head(), msg, sig, bad_host=True)]) == (1, "host-sig")
    assert blame([ok0, record(1, log.head(), msg, flip(sig))]) == (1, "author-sig")
    assert blame([ok0, record(2, log.head(), msg, sig)]) == (1, "seq")
    log.append_record(record(1, log.head(), msg, sig))  # the honest accept
    assert verify_records([ok0, record(1, log.entries[0].hash, msg, flip(sig))]
                          ).summary.startswith("FAILED at entry 1 (seat 1): log: ")
    assert verify_records([b"\xc1"]).summary.startswith("FAILED at entry 0 (seat unknown)")
    refused = genesis({**good, "extra": 1})  # passes §5; the game refuses its settings
    Log().append_record(refused)  # the session layer takes it
    assert verify_records([refused]).summary.startswith("FAILED at entry 0 (seat 1): header:")

    text = section(doc("TRANSCRIPT.md"), "## 6. Checking a record")
    rows = re.findall(r"^\| (.+?) \| (.+?) \| (.+?) \|$", text, re.M)[1:]
    named = [who for _, who, _ in rows]
    assert [w.startswith("nobody") for w in named] == [True, True, True, False, False]
    assert all(w.startswith("**the host**") for w in named[3:])
    codes = [set(re.findall(r"`([a-z-]+)`", c)) for _, _, c in rows]
    assert codes[:4] == [{"garbage"}, {"garbage"}, {"header"}, {"host-sig"}]
    assert {"author-sig", "seq", "prev", "replay", "counter", "game-id"} <= codes[4]
    assert "`FAILED at entry 0 (seat H): header: …`" in text.replace("\n", " ")


def test_the_incomplete_line_names_the_deal_in_progress_and_splito_s_stages() -> None:
    """TRANSCRIPT.md §10: a Split transcript cut right after round 1's last opening ends
    "in round 2 (commit)" (a deal's last opening starts the next); a Splito one names
    its stage and turn as written, and its stages are the code's."""
    from splitnet.games.split.bots import make_bot
    from splitnet.games.splito.core import Stage
    from splitnet.verify import verify_records
    from tests.test_splito_vectors import play_game

    g = LocalGame(["a", "b"], Settings(hand_size=4, rounds=2), SelfplaySecrets(8),
                  shuffle_proofs=False)
    g.run_bots([make_bot("random", 0), make_bot("random", 1)])
    entries = g.log.entries
    last_open = max(e.seq for e in entries if e.kind == "open" and e.body["round"] == 1)
    v = verify_records(g.log.records()[:last_open + 1])
    assert v.incomplete and v.summary == (f"incomplete: the transcript ends in round 2 "
                                          f"(commit); everything up to entry {last_open} "
                                          "verified")
    assert verify_records(g.log.records()[:1]).summary == (
        "incomplete: the transcript ends in round 1 (commit); everything up to entry 0 "
        "verified")

    text = section(doc("TRANSCRIPT.md"), "## 10. Verifying a transcript").replace("\n", " ")
    assert 'cut right after it ends "in round R+1 (commit)"' in text
    split_stages = re.search(r"the step that deal had reached: (.*?) \(after", text)
    assert split_stages is not None
    assert re.findall(r"`(\w+)`", split_stages.group(1)) == ["commit", "shuffle", "deal",
                                                            "play", "open"]
    m = re.search(r"where STAGE is the stage the last entry left the game in — (.*?) — and T",
                  text)
    assert m is not None
    assert re.findall(r"`(\w+)`", m.group(1)) == [  # every stage verify can end at
        s.value for s in Stage if s not in (Stage.DONE, Stage.STOPPED)]

    game = play_game()
    records = game.log.records()
    kinds = [e.kind for e in game.log.entries]
    last_card_hop = max(i for i, e in enumerate(game.log.entries)
                        if e.kind == "shuffle" and e.body["deck_of"] == "cards")
    first_pass = kinds.index("pass")
    last_reveal = max(i for i, k in enumerate(kinds) if k == "reveal")
    cuts = {2: "keys (turn 0)", last_card_hop: "deal (turn 0)",
            last_card_hop + 3: "play (turn 1)", first_pass: "pass (turn 2)",
            last_reveal: "open (turn 13)"}
    for cut, where in cuts.items():
        v = verify_records(records[:cut + 1])
        assert v.incomplete and v.summary == (f"incomplete: the transcript ends at {where}; "
                                              f"everything up to entry {cut} verified"), cut


# ------------------------------------------------------------------ GAME.md alarm, timeout
def test_an_alarm_ends_play_and_what_comes_after_it_is_refused_as_game_md_says() -> None:
    """GAME.md "alarm and open" (no shuffle proofs): the peer that read a bad card takes
    moves, reveals and shares without applying them until its alarm is in the log; the
    alarm entry makes the stage `open` for every peer, after which a move is refused
    naming its author."""
    from splitnet.games.split.bots import make_bot

    g = LocalGame(["a", "b", "c"], Settings(hand_size=4), SelfplaySecrets(11),
                  shuffle_proofs=False)
    for _ in range(100):
        r = g.cores[0].round
        if r is not None and r.stage == "play":
            break
        assert g.pump()
    finder = g.cores[2]
    r2 = finder.round
    assert r2 is not None
    r2.alarm = "a card read twice"  # as if seat 2 had read a card it saw elsewhere

    def state(i: int) -> tuple[Any, ...]:
        c = g.cores[i]
        assert c.round is not None
        return len(c.engine.events), c.engine.phase, c.round.pending, c.round.public.copy()

    before = [state(i) for i in range(3)]
    seat = g.mover()
    assert seat is not None and seat != 2
    g.play_move(seat, make_bot("random", 1).choose(g.cores[seat].engine, seat))
    assert state(2) == before[2] and state(0) != before[0]  # taken, not applied, by seat 2
    for _ in range(10):
        if any(e.kind == "alarm" for e in g.log.entries):
            break
        g.pump()
    alarm = next(e for e in g.log.entries if e.kind == "alarm")
    assert alarm.author == 2
    assert all(c.round is not None and c.round.stage == "open" for c in g.cores)
    with pytest.raises(GameError) as e:
        g.send(seat, "move", {"round": 1, "move": {"type": "draw_pile", "seat": seat}})
    assert (e.value.seat, e.value.step) == (seat, "move")
    with pytest.raises(GameError) as e:
        g.send(1, "alarm", {"round": 1, "reason": "again"})
    assert (e.value.seat, e.value.step) == (1, "alarm")

    text = section(doc("GAME.md"), "### alarm and open").replace("\n", " ")
    assert "ignores moves" not in text
    assert ("the peer that read the card takes every further `shares`, `move` and `reveal` "
            "entry without applying it") in text
    assert "every `shares`, `move` and `reveal` of the deal is **refused**" in text
    assert "**With `shuffle_proofs: true` an `alarm` is refused**" in text


def test_a_timeout_s_waited_is_an_integer_at_least_0_as_game_md_says() -> None:
    from splitnet.game.bodies import parse_timeout
    from splitnet.game.table import check_timeout as check

    def check_timeout(author: int, body: dict[str, object], host: int,
                      waiting: list[int]) -> tuple[int, int]:  # parsed, then checked
        return check(author, parse_timeout(author, body), host, waiting)

    assert check_timeout(0, {"round": 1, "seat": 1, "waited": 0}, 0, [1]) == (1, 0)
    for body in ({"round": 1, "seat": 1, "waited": -1}, {"round": 1, "seat": 1, "waited": 1.5},
                 {"round": 1, "seat": "1", "waited": 3}, {"round": 1, "seat": 2, "waited": 3}):
        with pytest.raises(GameError) as e:
            check_timeout(0, body, 0, [1])
        assert (e.value.seat, e.value.step) == (0, "timeout")  # the host, its sender
    with pytest.raises(GameError) as e:
        check_timeout(1, {"round": 1, "seat": 1, "waited": 5}, 0, [1])
    assert e.value.seat == 1  # sent by another seat: that seat
    text = section(doc("GAME.md"), "### timeout").replace("\n", " ")
    assert "(exactly these keys; integers, `waited` ≥ 0;" in text
    assert "a `waited` below `limits.move_s` for a move, or `limits.answer_s`" in text
    verdicts = section(doc("GAME.md"), "## Verdicts")
    assert ("| a timeout naming a seat the game does not wait for, with a negative or "
            "non-integer `waited`, one below the header's `limits`, or sent by another seat "
            "| timeout | its sender (the host; or the seat that sent it) |") in verdicts


# ------------------------------------------------------------------ RECORD.md marks, events
def test_record_totals_count_marks_past_a_full_row_and_score_caps_them() -> None:
    """RECORD.md: `totals` count marks (the sum of the rounds' `marks`), not boxes, past a
    full row; `score` values each row at min(k, len − 1). A one-box negative row makes
    the difference show."""
    import random

    from splitnet.games.split.bots import make_bot
    from splitnet.games.split.rules import Pad

    pad = Pad(negative=(0, 7))
    g = Game(3, Settings(rounds=3, hand_size=9, pad=pad))
    rec = Recorder(g, ["a", "b", "c"])
    bots = [make_bot("random", 50 + s) for s in range(3)]
    rng = random.Random(5)
    while g.phase != "game_over":
        faces = list(range(104))
        rng.shuffle(faces)
        rec.start_round(faces)
        while g.phase not in ("round_over", "game_over"):
            seat = g.actor
            assert seat is not None
            rec.apply(bots[seat].choose(g, seat))
    record = rec.record
    over = 0
    for s, t in record["totals"].items():
        for row in ("perfect", "strong", "weak", "negative"):
            assert t[row] == sum(r["end"]["marks"][s][row] for r in record["rounds"])
        over += t["negative"] > 1
        values = {row: pad.row(row)[min(t[row], len(pad.row(row)) - 1)]
                  for row in ("perfect", "strong", "weak", "negative")}
        assert t["score"] == (values["perfect"] + values["strong"] + values["weak"]
                              - values["negative"])
    assert over  # some seat has more marks than its negative row has boxes
    text = doc("RECORD.md").replace("\n", " ")
    assert "`totals` count marks too, not boxes" in text
    assert "keeps counting past a full row" in text


def test_a_skipped_bonus_leaves_no_event_in_the_record() -> None:
    """RECORD.md EVENT: `skip_bonus` (and a bonus skipped silently, R5.5) writes nothing;
    every event type the writers produce is in the table."""
    g = Game(2, Settings(rounds=1))
    rec = Recorder(g, ["a", "b"])
    hands: dict[int, Sequence[str]] = {
        1: ["7H", "7C", "8H", "8C", "4C", "5C", "6C", "9C", "10C"],
        0: ["2H", "2C", "3D", "3S", "4D", "KC", "6D", "9D", "10D"]}
    rec.start_round(faces_for(2, hands, "KS", ["7D"]))
    rec.apply(DrawPile(1))
    rec.apply(Lay(1, slot_of(g, 1, "7H"), slot_of(g, 1, "7C")))
    rec.apply(Upgrade(1, slot_of(g, 1, "7D"), 0, 1))
    assert g.pending_bonus == "strong"
    events = rec.record["rounds"][0]["turns"][-1]["events"]
    seen = len(events)
    rec.apply(SkipBonus(1))
    assert len(events) == seen and g.pending_bonus is None
    table = section(doc("RECORD.md"), "## EVENT")
    types = set(re.findall(r"^\| `(\w+)` \|", table, re.M))
    produced = {e["type"] for r in _swap_game_record()["rounds"] for t in r["turns"]
                for e in t["events"]}
    assert produced <= types and "skip_bonus" not in types
    assert ("a `skip_bonus`, and a bonus skipped silently because it cannot be taken (R5.5, "
            "GAME.md \"Bonus\"), leave none") in table.replace("\n", " ")


# ------------------------------------------------------------------ SPLITO_RECORD.md
def test_splito_records_always_hold_turn_hands_and_zone_seats_in_their_order() -> None:
    """SPLITO_RECORD.md: `turns[i].hands` is written for every turn (keys turn, hands,
    plays), the first equal to `deal.hands`; zone z's seats are [z, z+1 mod n] — the last
    zone [n−1, 0] — compared exactly by the referee, which also takes a turn without
    hands."""
    import copy

    from splitnet.games.splito.bots import make_bot
    from splitnet.games.splito.local import play_local
    from splitnet.games.splito.record import check_record
    from splitnet.games.splito.settings import SplitoSettings

    for n in (2, 3, 5):
        rec = play_local(SplitoSettings.standard(n), [make_bot("random", s) for s in range(n)],
                         n).record
        assert all(list(t) == ["turn", "hands", "plays"] for t in rec["turns"])
        assert rec["turns"][0]["hands"] == rec["deal"]["hands"]
        seats = [z["seats"] for z in rec["zones"]]
        assert seats == ([[0], [0], [1], [1]] if n == 2
                         else [[z, (z + 1) % n] for z in range(n)])
        if n > 2:
            assert seats[-1] == [n - 1, 0]
            bad = copy.deepcopy(rec)
            bad["zones"][-1]["seats"] = [0, n - 1]
            assert any(f.startswith(f"zone {n - 1}: seats") for f in check_record(bad).faults)
        bare = copy.deepcopy(rec)
        for t in bare["turns"]:
            del t["hands"]
        assert check_record(rec).ok and check_record(bare).ok
    text = re.sub(r"\s+", " ", doc("SPLITO_RECORD.md"))
    assert "splitnet always writes `turns[i].hands` (S12.2 makes it optional)" in text
    assert "a turn's keys are `turn`, `hands`, `plays`, in that order" in text
    assert "`zones[z].seats` is `[z, (z + 1) mod n]`, in that order" in text
    assert "so the last zone's is `[n − 1, 0]`" in text


# ------------------------------------------------------------------ SETTINGS.md "Splito"
def test_settings_md_lists_splitos_keys_and_bounds_as_the_code_checks_them(
        tmp_path: Path) -> None:
    from splitnet.frontends import _splito_choice
    from splitnet.games.splito.front.selfplay import load_settings
    from splitnet.games.splito.settings import KEYS, RECORD_KEYS, SettingsError, SplitoSettings

    text = section(doc("SETTINGS.md"), "## Splito")
    rows = re.findall(r"^\| `(\w+)` \| (.+?) \| (S[\d.]+(?:, S[\d.]+)?) \|$", text, re.M)
    assert [k for k, _, _ in rows] == list(KEYS)
    assert "fourteen" in text and len(KEYS) == 14 and "first eleven" in text
    assert len(RECORD_KEYS) == 11
    values = {k: v.replace("\\|", "|") for k, v, _ in rows}
    for n in (2, 3, 8):
        for key, want in SplitoSettings.standard(n).to_dict().items():
            if isinstance(want, str):  # a fixed value: written out in the table
                assert f'"{want}"' in values[key] or want in values[key], (key, want)
    assert values["hand_size"] == "26 with 2 players, else 13"

    def refused(**changes: Any) -> bool:
        try:
            SplitoSettings.standard(changes.pop("players", 3), **changes)
        except SettingsError:
            return True
        return False

    assert values["players"] == "integer 2…8"
    assert [refused(players=p) for p in (1, 2, 8, 9)] == [True, False, False, True]
    assert values["central_objectives"] == "integer 0…4"
    assert [refused(central_objectives=c) for c in (-1, 0, 4, 5)] == [True, False, False, True]
    assert values["dealer"] == "integer 0…`players` − 1"
    assert [refused(dealer=d) for d in (-1, 0, 2, 3)] == [True, False, False, True]
    assert values["turn_timeout_s"].startswith("`null` (off) or an integer 1…86400 (seconds)")
    assert [refused(turn_timeout_s=t) for t in (None, 0, 1, 86400, 86401, True, 1.5)] == [
        False, True, False, False, True, True, True]
    assert refused(chat_during_play=1) and not refused(show_passed_hands=True)
    d = SplitoSettings.standard(3).to_dict()
    with pytest.raises(SettingsError, match=r"settings\.hand_size: must be 13"):
        SplitoSettings.from_dict({**d, "hand_size": 13.0})  # another JSON type
    for change, line in (({"hand_size": None}, "splitnet: settings: missing key(s) "),
                         ({"pad": 1}, "splitnet: settings: unknown key(s) ['pad'] (S13)"),
                         ({"dealer": 5}, "splitnet: settings.dealer: ")):
        f = tmp_path / "s.json"
        body = {**d, **change}
        if change.get("hand_size", 0) is None:
            del body["hand_size"]
        f.write_text(json.dumps(body))
        with pytest.raises(SystemExit) as e:
            load_settings(str(f), 3)
        assert str(e.value).startswith(line), e.value
    f = tmp_path / "t.json"  # host: turn_timeout_s below the host's move_timeout
    for t, ok in ((599, True), (600, False)):
        f.write_text(json.dumps({**d, "turn_timeout_s": t}))
        if ok:
            _splito_choice(str(f), None, 600.0, True)
        else:
            with pytest.raises(SystemExit, match="must be below the host's move timeout"):
                _splito_choice(str(f), None, 600.0, True)
    assert "also below the host's `move_timeout` (600 s" in values["turn_timeout_s"]


# ------------------------------------------------------------------ SPLITO_GAME.md §4, §10
_SPLITO_GAME: list[Any] = []


def _splito_vector_game() -> Any:
    """The vector game of SPLITO_GAME.md §10, played once for these tests."""
    from tests.test_splito_vectors import play_game

    if not _SPLITO_GAME:
        _SPLITO_GAME.append(play_game())
    return _SPLITO_GAME[0]


def _splito_observer(game: Any, **changes: Any) -> Any:
    from splitnet.games.splito.core import SplitoCore
    from splitnet.games.splito.settings import SplitoSettings

    names = [p.name for p in game.log.header.players]
    return SplitoCore(game.log.game_id, names, SplitoSettings.standard(3, **changes), None)


def test_splito_chat_is_taken_or_refused_by_the_stage_entry_by_entry() -> None:
    """SPLITO_GAME.md §4 **chat**: before every entry of a whole game, an observer takes
    a chat at stages keys, objectives, cards and open and refuses it at deal, play and
    pass (S5.5) — all of them with chat_during_play — and every chat after the last
    `open`; the card deck's last hop moves the stage to deal, the last reveal to open."""
    from splitnet.games.splito.core import Stage
    from splitnet.session.log import Author, Log, Player
    from splitnet.verify import verify_records

    game = _splito_vector_game()
    closed, open_ = _splito_observer(game), _splito_observer(game, chat_during_play=True)
    seen: dict[str, set[bool]] = {}
    for e in game.log.entries:
        for core in (closed, open_):
            if e.kind in ("game", "accept"):
                continue
            stage = core.stage.value
            try:
                core.apply(1, "chat", {"text": "hi"})
                taken = True
                assert core.chat.pop() == (1, "hi")
            except GameError as err:
                taken = False
                assert (err.seat, err.step) == (1, "chat") and "S5.5" in str(err)
            if core is closed:
                seen.setdefault(stage, set()).add(taken)
            else:
                assert taken
        if e.kind in ("game", "accept"):
            continue
        before = closed.stage
        for core in (closed, open_):
            core.apply(e.author, e.kind, e.body)
        if e.kind == "shuffle" and e.body["deck_of"] == "cards" and closed.stage is not before:
            assert (before, closed.stage) == (Stage.SHUFFLE_CARDS, Stage.DEAL)
        if e.kind == "reveal" and closed.stage is Stage.OPEN:
            assert before is Stage.PLAY
    assert seen == {"keys": {True}, "objectives": {True}, "cards": {True}, "deal": {False},
                    "play": {False}, "pass": {False}, "open": {True}}
    for core in (closed, open_):
        assert core.finished
        with pytest.raises(GameError, match="the game is over"):
            core.apply(1, "chat", {"text": "gg"})
    # Before every accept: refused like any game message (verify).
    src = SelfplaySecrets(4)
    ids = [src.identity(s) for s in range(3)]
    log, _ = Log.start(ids[0], game_id=src.game_id(), host_seat=0,
                       settings=game.log.header.settings,
                       players=[Player(s, f"p{s}", ids[s].public_key_bytes())
                                for s in range(3)])
    a1 = Author(ids[1], src.game_id(), 1)
    log.order(*a1.accept(log.header_hash), ids[0])
    # seat 2 has not accepted
    log.order(*a1.message("chat", {"text": "early"}, seen=log.seen()), ids[0])
    assert verify_records(log.records()).summary == (
        "FAILED at entry 2 (seat 1): game message before every player accepted the header")

    table = section(doc("SPLITO_GAME.md"), "## 4. Entries")
    rows = re.findall(r"^  \| (.+?) \| (.+?) \| (.+?) \|$", table, re.M)[1:]
    by_stage = {st: chat.split()[0].rstrip(",") for _, stages, chat in rows
                for st in re.findall(r"`(\w+)`", stages)}
    assert by_stage == {"keys": "taken", "objectives": "taken", "cards": "taken",
                        "deal": "refused", "play": "refused", "pass": "refused",
                        "open": "taken"}
    assert [chat.split()[0].rstrip(",") for _, stages, chat in rows if stages == "—"] == [
        "refused", "refused"]
    assert "unless `rules.chat_during_play` is true: then taken" in table
    assert "counted as Unicode code points" in table.replace("\n", " ")


def test_splito_nonces_commitments_and_reveal_fields_are_checked_as_splito_game_md_lists(
        ) -> None:
    """SPLITO_GAME.md §3, §4 "What each entry must hold", §7: the play nonce is the first
    32 lowercase hex digits of its SHA-256; a commitment must be 64 lowercase hex digits
    (refused); a reveal's nonce must be a string (refused, S5.2) of 32 lowercase hex digits
    (else a verdict, S7.3, naming its author)."""
    from splitnet.games.splito.core import play_nonce

    for turn in (1, 2, 13):
        n = play_nonce(bytes(range(16)), bytes(32), turn)
        assert re.fullmatch(r"[0-9a-f]{32}", n)
        assert n == hashlib.sha256(group.frame(b"splitnet/splito/v1/nonce", bytes(range(16)),
                                               bytes(32), turn.to_bytes(8, "big"))
                                   ).hexdigest()[:32]
    game = _splito_vector_game()
    entries = [e for e in game.log.entries if e.kind not in ("game", "accept")]
    first_move = next(i for i, e in enumerate(entries) if e.kind == "move")
    first_reveal = next(i for i, e in enumerate(entries) if e.kind == "reveal")

    def at(i: int) -> Any:
        core = _splito_observer(game)
        for e in entries[:i]:
            core.apply(e.author, e.kind, e.body)
        return core

    core = at(first_move)
    m = entries[first_move]
    for commit in (m.body["commit"].upper(), m.body["commit"][:63], 5):
        with pytest.raises(GameError, match=r"S7\.3: a commitment is 64 lowercase hex digits"):
            core.apply(m.author, "move", {**m.body, "commit": commit})
    core = at(first_reveal)
    r = entries[first_reveal]
    with pytest.raises(GameError) as err:
        core.apply(r.author, "reveal", {**r.body, "nonce": 5})
    assert (err.value.seat, err.value.step) == (r.author, "reveal") and "S5.2" in str(err.value)
    assert core.verdict is None
    for nonce in (r.body["nonce"].upper(), r.body["nonce"][:31], r.body["nonce"] + "0"):
        core = at(first_reveal)
        core.apply(r.author, "reveal", {**r.body, "nonce": nonce})  # applied: a verdict
        assert core.verdict is not None and core.verdict.seat == r.author
        assert "S7.3: a nonce is 128 bits in 32 lowercase hex digits" in str(core.verdict)

    text = re.sub(r"\s+", " ", doc("SPLITO_GAME.md"))
    assert "a play's nonce: the first 32 lowercase hex digits of SHA-256" in text
    assert "nonce 32 lowercase hex digits: `[0-9a-f]{32}`" in text
    assert "`commit` is a string of 64 lowercase hex digits `[0-9a-f]{64}`" in text
    assert ("`side` `left` or `right` and `nonce` a string (S5.2)" in text
            and "`nonce` is not 32 lowercase hex digits (S7.3" in text)
    verdicts = section(doc("SPLITO_GAME.md"), "## 7. Verdicts")
    assert "| a reveal whose nonce is not a string | reveal (refused) | S5.2 | its author |" \
        in verdicts
    assert ("| a reveal whose nonce is a string but not 32 lowercase hex digits | reveal "
            "(verdict) | S7.3 | its author |") in verdicts


def test_splito_game_md_s10_says_what_each_vector_field_holds() -> None:
    """§10: the file's keys as listed; `first_reveal` is the first reveal entry flattened
    (its share point and proof from its `share` message); `transcript_sha256` hashes the
    records joined, not a .splitlog file; the table's values are the file's."""
    from splitnet.session.transcript import MAGIC
    from tests.test_splito_vectors import PATH

    vec = json.loads(PATH.read_text())
    text = section(doc("SPLITO_GAME.md"), "## 10. Test vectors")
    layout = re.sub(r"\s+", " ", text[text.index("The file is one JSON object"):])
    top = [k for k in re.findall(r"`(\w+)`", layout) if k in vec]
    assert list(dict.fromkeys(top)) == list(vec)
    m = re.search(r"`first_reveal`, the log's first `reveal` entry, flattened: (.*?); "
                  r"`pass_seat0", layout)
    assert m is not None
    fields = [k for k in re.findall(r"`(\w+)`", m.group(1)) if k in vec["first_reveal"]]
    assert list(dict.fromkeys(fields)) == list(vec["first_reveal"])
    p = re.search(r"`pass_seat0_to_1_after_turn1`: (.*?) of that `pass`", layout)
    assert p is not None and set(re.findall(r"`(\w+)`", p.group(1))) <= set(
        vec["pass_seat0_to_1_after_turn1"])

    game = _splito_vector_game()
    reveal = next(e for e in game.log.entries if e.kind == "reveal")
    share = reveal.body["share"]
    assert set(share) == {"slots", "shares", "proof"} and share["slots"] == [reveal.body["slot"]]
    assert len(share["shares"][0]) == 32 and len(share["proof"]) == 96
    assert game.cores[0].dealt_holder(reveal.body["slot"]) == reveal.author == 0
    records = game.log.records()
    joined = hashlib.sha256(b"".join(records)).hexdigest()
    splitlog = MAGIC + b"".join(len(r).to_bytes(4, "big") + r for r in records)
    assert hashlib.sha256(splitlog).hexdigest() != joined and len(records) == vec["entries"]
    assert "the SHA-256 of the log's records (TRANSCRIPT.md §4, each " in layout
    assert "not of a `.splitlog` file" in layout

    table = text[:text.index("The file is one JSON object")]
    for value in (vec["M_0_R1a"], vec["M_72_OBJ01"], vec["sha256_of_all_109_points"],
                  vec["joint_key"], vec["objective_deck_initial_digest"],
                  vec["nonce_seat0_turn1"], vec["commit_the_first_reveal_opens"],
                  vec["pass_seat0_to_1_after_turn1"]["eph"],
                  vec["pass_seat0_to_1_after_turn1"]["K"],
                  vec["pass_seat0_to_1_after_turn1"]["pad_first_32"],
                  vec["pass_seat0_to_1_after_turn1"]["box_sha256"], vec["transcript_sha256"]):
        assert f"`{value}`" in table, value
    fr = vec["first_reveal"]
    assert (f"| first reveal | seat {fr['seat']}, slot {fr['slot']}, {fr['card']}, "
            f"{fr['side']}; opens") in table
    assert f"| the whole transcript | {vec['entries']} entries, SHA-256 of its records" in table


def test_the_message_kinds_of_game_md_are_the_cores_kinds_and_each_is_a_verdict_step() -> None:
    """GAME.md "Message kinds" lists exactly the kinds GameCore takes (``prove`` came
    with splitnet/6), and "Verdicts" names each as a step."""
    from splitnet.games.split.core import INT_FIELDS, KINDS

    doc = (Path(__file__).resolve().parent.parent / "protocol" / "GAME.md").read_text()
    section = doc[doc.index("## Message kinds"):doc.index("### Integer fields")]
    assert set(re.findall(r"^\| `(\w+)` \|", section, re.M)) == set(KINDS) == set(INT_FIELDS)
    verdicts = doc[doc.index("## Verdicts"):]
    steps = verdicts[:verdicts.index("Examples:")]
    assert set(KINDS) <= set(re.findall(r"`(\w+)`", steps))
