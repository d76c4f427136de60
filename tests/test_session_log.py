"""The signed, hash-chained log: every LogError cause leaves the log unchanged."""

from __future__ import annotations

import doctest
import hashlib
from collections.abc import Callable

import pytest

from splitnet.session import log as logmod
from splitnet.session.codec import encode
from splitnet.session.identity import Identity
from splitnet.session.log import (
    MAX_MSG,
    NOTHING_SEEN,
    TAG_ENTRY,
    TAG_MSG,
    ZERO_HASH,
    Author,
    Log,
    LogError,
    Player,
    Seen,
    accept_body,
    check_ack,
    detect_fork,
    entry_hash,
    header_body,
    make_ack,
    message_bytes,
    prove_equivocation,
)

GAME = bytes(range(16))
OTHER_GAME = bytes(range(1, 17))


def ident(i: int) -> Identity:
    return Identity.from_seed(hashlib.sha256(b"id" + bytes([i])).digest())


IDS = [ident(i) for i in range(4)]
HOST = IDS[0]
PLAYERS = [Player(i, f"p{i}", IDS[i].public_key_bytes()) for i in range(3)]
STRANGER = ident(9)


def raw_record(
    seq: int, prev: bytes, msg: bytes, sig: bytes, signer: Identity = HOST
) -> bytes:
    """Build a record by hand (independently of Log.order)."""
    entry = encode([TAG_ENTRY, seq, prev, msg, sig])
    return encode([entry, signer.sign(entry)])


def raw_msg(
    author: int, counter: int, kind: str, body: dict[str, object], game: bytes = GAME, *,
    seen: Seen,
) -> bytes:
    return encode([TAG_MSG, game, author, counter, seen.seq, seen.hash, kind, body])


class Game:
    """A 3-seat game with the header, both accepts and one message of seat 1."""

    def __init__(self) -> None:
        self.log, self.host = Log.start(
            HOST, game_id=GAME, host_seat=0, players=PLAYERS, settings={"rounds": 3}
        )
        self.authors = [self.host] + [Author(IDS[i], GAME, i) for i in (1, 2)]
        for a in self.authors[1:]:
            self.log.order(*a.accept(self.log.header_hash), HOST)
        self.log.order(*self.say(1, "chat", {"text": "hi"}), HOST)

    def say(self, seat: int, kind: str, body: dict[str, object]) -> tuple[bytes, bytes]:
        """Seat's next message, made having seen this log's head."""
        return self.authors[seat].message(kind, body, seen=self.log.seen())

    def raw(self, author: int, counter: int, kind: str, body: dict[str, object]) -> bytes:
        """A message by hand, made having seen this log's head."""
        return raw_msg(author, counter, kind, body, seen=self.log.seen())

    def snapshot(self) -> tuple[object, ...]:
        lg = self.log
        return (
            len(lg), lg.head(), tuple(lg.records()), lg.accepted,
            tuple(lg.next_counter(s) for s in range(3)),
        )

    def next(self) -> tuple[int, bytes]:
        return len(self.log), self.log.head()


@pytest.fixture
def game() -> Game:
    return Game()


def test_doctests() -> None:
    assert doctest.testmod(logmod).failed == 0


def test_happy_path(game: Game) -> None:
    lg = game.log
    assert [(e.seq, e.author, e.counter, e.kind) for e in lg.entries] == [
        (0, 0, 0, "game"), (1, 1, 0, "accept"), (2, 2, 0, "accept"), (3, 1, 1, "chat"),
    ]
    assert lg.all_accepted and lg.accepted == {0, 1, 2}
    assert lg.header.players == tuple(PLAYERS) and lg.header.settings == {"rounds": 3}
    assert lg.entries[0].prev == ZERO_HASH
    for a, b in zip(lg.entries, lg.entries[1:], strict=False):
        assert b.prev == a.hash == entry_hash(a.record)
    assert lg.head() == lg.entries[-1].hash
    assert [lg.next_counter(s) for s in range(3)] == [1, 2, 1]
    # a fresh log re-verifies the same records
    again = Log.from_records(lg.records())
    assert again.head() == lg.head() and again.accepted == lg.accepted
    # the host's own messages continue at counter 1
    lg.order(*game.say(0, "deal", {"n": 1}), HOST)
    assert lg.entries[-1].counter == 1


def test_order_builds_what_a_hand_made_record_would(game: Game) -> None:
    seq, prev = game.next()
    msg, sig = game.say(2, "chat", {"text": "x"})
    assert msg == game.raw(2, 1, "chat", {"text": "x"})
    assert game.log.order(msg, sig, HOST) == raw_record(seq, prev, msg, sig)


def test_check_order_checks_without_changing_the_log(game: Game) -> None:
    before = game.snapshot()
    msg, sig = game.say(2, "chat", {"text": "x"})
    m = game.log.check_order(msg, sig)
    assert (m.author, m.counter, m.kind, m.body) == (2, 1, "chat", {"text": "x"})
    assert game.snapshot() == before
    m.body["text"] = "mutated by the caller"
    game.log.order(msg, sig, HOST)  # the fast path: no second signature check
    assert game.log.entries[-1].body == {"text": "x"}
    assert Log.from_records(game.log.records()).head() == game.log.head()
    with pytest.raises(LogError) as ei:
        game.log.check_order(msg, sig)
    assert (ei.value.code, ei.value.seat) == ("replay", 2)
    msg, _ = game.say(2, "chat", {})
    forged = STRANGER.sign(msg)
    with pytest.raises(LogError) as ei:
        game.log.check_order(msg, forged)
    assert (ei.value.code, ei.value.seat) == ("author-sig", 2)
    with pytest.raises(ValueError, match="header"):
        Log().check_order(msg, forged)


# ------------------------------------------------------------ append_record failures


def _expect(game: Game, record: object, code: str, seat: int | None) -> LogError:
    before = game.snapshot()
    with pytest.raises(LogError) as ei:
        game.log.append_record(record)  # type: ignore[arg-type]
    assert (ei.value.code, ei.value.seat) == (code, seat), str(ei.value)
    assert ei.value.seq == before[0]
    assert game.snapshot() == before, "the log changed"
    return ei.value


def test_forged_author_signature_blames_the_host(game: Game) -> None:
    """The host signed an entry whose author signature is bad: only the host can be
    blamed — otherwise any host could frame a player with a made-up signature."""
    seq, prev = game.next()
    msg = game.raw(2, 1, "chat", {"text": "I resign"})
    forged = STRANGER.sign(msg)
    err = _expect(game, raw_record(seq, prev, msg, forged), "author-sig", 0)
    assert "seat 2's signature does not verify" in str(err)


def test_forged_author_signature_in_order_blames_the_author(game: Game) -> None:
    msg = game.raw(2, 1, "chat", {"text": "x"})
    before = game.snapshot()
    with pytest.raises(LogError) as ei:
        game.log.order(msg, STRANGER.sign(msg), HOST)
    assert (ei.value.code, ei.value.seat) == ("author-sig", 2)
    with pytest.raises(LogError) as ei:
        game.log.order(msg, b"short", HOST)
    assert (ei.value.code, ei.value.seat) == ("author-sig", 2)
    assert game.snapshot() == before


def test_forged_host_signature(game: Game) -> None:
    seq, prev = game.next()
    msg, sig = game.say(2, "chat", {})
    _expect(game, raw_record(seq, prev, msg, sig, signer=STRANGER), "host-sig", 0)
    # a valid record with one bit of the host signature flipped
    good = raw_record(seq, prev, msg, sig)
    _expect(game, good[:-1] + bytes([good[-1] ^ 1]), "host-sig", 0)
    # an author re-signing the entry as if it were the host
    _expect(game, raw_record(seq, prev, msg, sig, signer=IDS[2]), "host-sig", 0)
    game.log.append_record(good)  # and the genuine one still fits


@pytest.mark.parametrize("delta", [-1, 1, 1000])
def test_wrong_seq(game: Game, delta: int) -> None:
    seq, prev = game.next()
    msg, sig = game.say(2, "chat", {})
    _expect(game, raw_record(seq + delta, prev, msg, sig), "seq", 0)


def test_wrong_prev(game: Game) -> None:
    seq, _ = game.next()
    msg, sig = game.say(2, "chat", {})
    for prev in (ZERO_HASH, game.log.hash_at(seq - 2), hashlib.sha256(b"x").digest()):
        _expect(game, raw_record(seq, prev, msg, sig), "prev", 0)


def test_replayed_message(game: Game) -> None:
    """The host orders seat 1's (validly signed) chat message a second time."""
    seq, prev = game.next()
    old = game.log.entries[3]
    err = _expect(game, raw_record(seq, prev, old.msg_bytes, old.sig), "replay", 0)
    assert "already used" in str(err)
    # and through order(): the claimed author, code replay (a retransmission)
    with pytest.raises(LogError) as ei:
        game.log.order(old.msg_bytes, old.sig, HOST)
    assert (ei.value.code, ei.value.seat) == ("replay", 1)


def test_skipped_counter(game: Game) -> None:
    seq, prev = game.next()
    msg = game.raw(2, 5, "chat", {})
    _expect(game, raw_record(seq, prev, msg, IDS[2].sign(msg)), "counter", 0)


def test_message_from_another_game(game: Game) -> None:
    seq, prev = game.next()
    elsewhere = Author(IDS[2], OTHER_GAME, 2, counter=1)
    msg, sig = elsewhere.message("chat", {}, seen=game.log.seen())
    _expect(game, raw_record(seq, prev, msg, sig), "game-id", 0)
    with pytest.raises(LogError) as ei:
        game.log.order(msg, sig, HOST)
    assert (ei.value.code, ei.value.seat) == ("game-id", None)


def test_unknown_author(game: Game) -> None:
    seq, prev = game.next()
    msg = game.raw(3, 0, "accept", accept_body(game.log.header_hash))
    sig = IDS[3].sign(msg)
    _expect(game, raw_record(seq, prev, msg, sig), "unknown-author", 0)
    with pytest.raises(LogError) as ei:
        game.log.order(msg, sig, HOST)
    assert (ei.value.code, ei.value.seat) == ("unknown-author", None)


@pytest.mark.parametrize(
    "record",
    [
        b"",
        b"\x00",
        b"garbage bytes",
        bytes(100),
        encode([b"x", bytes(64)]) + b"\x00",  # trailing byte
        encode([b"x"]),
        encode([b"x", bytes(63)]),
        encode({"entry": b"x", "sig": bytes(64)}),
        "not bytes",
    ],
)
def test_garbage_record(game: Game, record: object) -> None:
    # a record that is not even [bytes, 64 bytes] proves nothing about anyone
    _expect(game, record, "garbage", None)


def test_garbage_entry_signed_by_the_host(game: Game) -> None:
    seq, prev = game.next()
    for entry in (
        b"junk",
        encode([b"splitnet/v1/enTry", seq, prev, b"m", bytes(64)]),
        encode([TAG_ENTRY, seq, prev[:31], b"m", bytes(64)]),
        encode([TAG_ENTRY, seq, prev, b"not a message", bytes(64)]),
        encode([TAG_ENTRY, seq, prev, game.raw(1, 2, "Bad Kind", {}), bytes(64)]),
    ):
        _expect(game, encode([entry, HOST.sign(entry)]), "garbage", 0)


def test_second_header(game: Game) -> None:
    seq, prev = game.next()
    msg, sig = game.say(0, "game", header_body(GAME, 0, PLAYERS, {}))
    _expect(game, raw_record(seq, prev, msg, sig), "kind", 0)


def test_accept_rules(game: Game) -> None:
    seq, prev = game.next()
    # the host does not accept its own header
    msg, sig = game.host.accept(game.log.header_hash)
    _expect(game, raw_record(seq, prev, msg, sig), "accept", 0)
    # a seat accepts twice
    msg, sig = game.authors[1].accept(game.log.header_hash)
    _expect(game, raw_record(seq, prev, msg, sig), "accept", 0)


def test_first_message_must_be_an_accept_of_this_header() -> None:
    lg, _ = Log.start(HOST, game_id=GAME, host_seat=0, players=PLAYERS)
    a1 = Author(IDS[1], GAME, 1)
    before = lg.records()
    for kind, body in (
        ("chat", {}),
        ("accept", accept_body(hashlib.sha256(b"another header").digest())),
        ("accept", {"header": lg.header_hash, "extra": 1}),
        ("accept", {}),
    ):
        msg = raw_msg(1, 0, kind, body, seen=lg.seen())
        sig = IDS[1].sign(msg)
        with pytest.raises(LogError) as ei:
            lg.append_record(raw_record(1, lg.head(), msg, sig))
        assert (ei.value.code, ei.value.seat) == ("accept", 0)
        with pytest.raises(LogError) as ei:
            lg.order(msg, sig, HOST)
        assert (ei.value.code, ei.value.seat) == ("accept", 1)
    assert lg.records() == before and not lg.all_accepted
    lg.order(*a1.accept(lg.header_hash), HOST)
    assert lg.accepted == {0, 1}


# ------------------------------------------------------------ genesis


def _genesis(
    body: dict[str, object], *, author: int = 0, counter: int = 0, kind: str = "game",
    game: bytes = GAME, signer: Identity = HOST, host_signer: Identity = HOST,
    seq: int = 0, prev: bytes = ZERO_HASH, seen: Seen = NOTHING_SEEN,
) -> bytes:
    msg = raw_msg(author, counter, kind, body, game, seen=seen)
    return raw_record(seq, prev, msg, signer.sign(msg), host_signer)


def _header(**change: object) -> dict[str, object]:
    body = header_body(GAME, 0, PLAYERS, {})
    body.update(change)
    return body


def _players(*ps: tuple[int, str, bytes]) -> list[dict[str, object]]:
    return [{"seat": s, "name": n, "key": k} for s, n, k in ps]


K = [p.key for p in PLAYERS]


@pytest.mark.parametrize(
    ("make", "code", "seat"),
    [
        (lambda: _genesis(_header()), None, None),
        (lambda: _genesis(_header(), host_signer=STRANGER), "host-sig", 0),
        (lambda: _genesis(_header(), signer=STRANGER), "author-sig", 0),
        (lambda: _genesis(_header(), seq=1), "seq", 0),
        (lambda: _genesis(_header(), prev=b"\x01" * 32), "prev", 0),
        (lambda: _genesis(_header(), counter=1), "counter", 0),
        (lambda: _genesis(_header(), author=1), "header", 0),
        (lambda: _genesis(_header(), game=OTHER_GAME), "game-id", 0),
        (lambda: _genesis(_header(), seen=Seen(0, b"\x01" * 32)), "seen", 0),
        (lambda: _genesis(_header(), seen=Seen(1, ZERO_HASH)), "seen", 0),
        (lambda: _genesis(_header(), kind="chat"), "header", None),
        (lambda: _genesis(_header(host=3)), "header", None),
        (lambda: _genesis(_header(players=[])), "header", None),
        (lambda: _genesis(_header(players=_players((0, "a", K[0]), (2, "b", K[1])))),
         "header", None),
        (lambda: _genesis(_header(players=_players((0, "a", K[0]), (1, "b", K[0])))),
         "header", None),
        (lambda: _genesis(_header(players=_players((0, "a", K[0]), (1, "b", bytes(32))))),
         "header", None),
        (lambda: _genesis(_header(players=_players((0, "a", K[0]), (1, "\x1b[31m", K[1])))),
         "header", None),
        (lambda: _genesis(_header(settings=[])), "header", None),
        (lambda: _genesis(_header(extra=1)), "header", None),
        (lambda: b"\x92\xc4\x00\xc4\x40" + bytes(64), "garbage", None),
    ],
)
def test_genesis(make: Callable[[], bytes], code: str | None, seat: int | None) -> None:
    lg = Log()
    if code is None:
        e = lg.append_record(make())
        assert (e.seq, e.kind, lg.header.host, len(lg.header.players)) == (0, "game", 0, 3)
        return
    with pytest.raises(LogError) as ei:
        lg.append_record(make())
    assert (ei.value.code, ei.value.seat) == (code, seat), str(ei.value)
    assert len(lg) == 0 and lg.head() == ZERO_HASH


def test_header_body_validates() -> None:
    with pytest.raises(ValueError, match="same key"):
        header_body(GAME, 0, [PLAYERS[0], Player(1, "x", PLAYERS[0].key)], {})
    with pytest.raises(ValueError, match=r"header\.host"):
        header_body(GAME, 5, PLAYERS, {})
    with pytest.raises(ValueError, match="must hold the host"):
        Log.start(IDS[1], game_id=GAME, host_seat=0, players=PLAYERS)


def test_only_the_host_orders(game: Game) -> None:
    with pytest.raises(ValueError, match="only the host"):
        game.log.order(*game.say(2, "chat", {}), IDS[1])


# ------------------------------------------------------------ messages


def test_message_limits() -> None:
    with pytest.raises(ValueError, match="kind"):
        message_bytes(GAME, 0, 0, "Chat", {}, seen=NOTHING_SEEN)
    with pytest.raises(ValueError, match="kind"):
        message_bytes(GAME, 0, 0, "x" * 33, {}, seen=NOTHING_SEEN)
    with pytest.raises(ValueError, match="MAX_MSG"):
        message_bytes(GAME, 0, 0, "big", {"b": bytes(MAX_MSG)}, seen=NOTHING_SEEN)
    with pytest.raises(ValueError):
        message_bytes(GAME[:15], 0, 0, "chat", {}, seen=NOTHING_SEEN)
    with pytest.raises(TypeError):
        message_bytes(GAME, 0, 0, "chat", {"f": 1.5}, seen=NOTHING_SEEN)
    a = Author(IDS[1], GAME, 1)
    with pytest.raises(TypeError):
        a.message("chat", {"f": 1.5}, seen=NOTHING_SEEN)
    assert a.counter == 0  # a failed message does not consume a counter


def test_big_message_fits_in_a_record(game: Game) -> None:
    """A message of nearly MAX_MSG bytes still makes a record under MAX_RECORD."""
    a = game.authors[2]
    msg, sig = a.message("shuffle", {"proof": bytes(MAX_MSG - 100)}, seen=game.log.seen())
    rec = game.log.order(msg, sig, HOST)
    assert len(rec) <= logmod.MAX_RECORD
    assert Log.from_records(game.log.records()).head() == game.log.head()


# ------------------------------------------------------------ acks and forks


def test_ack_roundtrip(game: Game) -> None:
    ack = game.log.make_ack(IDS[1], seat=1)
    a = game.log.check_ack(ack)
    assert (a.seat, a.seq, a.head) == (1, len(game.log) - 1, game.log.head())
    assert check_ack(ack, game_id=GAME, keys={1: PLAYERS[1].key}) == a


def test_ack_failures(game: Game) -> None:
    keys = [p.key for p in PLAYERS]
    h = game.log.head()
    cases = [
        (make_ack(IDS[2], GAME, 3, h, seat=1), None),  # seat 2 signs as seat 1
        (make_ack(IDS[1], OTHER_GAME, 3, h, seat=1), 1),  # signed, but another game
        (make_ack(IDS[3], GAME, 3, h, seat=3), None),  # unknown seat
        (b"junk", None),
        (encode([encode([b"splitnet/v1/ACK", GAME, 1, 3, h]), bytes(64)]), None),
    ]
    for ack, seat in cases:
        with pytest.raises(LogError) as ei:
            check_ack(ack, game_id=GAME, keys=keys)
        assert (ei.value.code, ei.value.seat) == ("ack", seat), str(ei.value)


def test_detect_fork(game: Game) -> None:
    lg = game.log
    h2, h3 = lg.hash_at(2), lg.hash_at(3)
    other = hashlib.sha256(b"a different log").digest()

    def ack(i: int, seq: int, head: bytes) -> logmod.Ack:
        return lg.check_ack(make_ack(IDS[i], GAME, seq, head, seat=i))

    honest = [ack(0, 3, h3), ack(1, 3, h3), ack(2, 2, h2), ack(2, 3, h3), ack(1, 3, h3)]
    assert detect_fork(honest, host=0) is None
    fork = detect_fork([*honest, ack(2, 2, h2), ack(1, 2, other)], host=0)
    assert fork is not None and (fork.seq, fork.seat) == (2, 0)
    assert {a.seat for a in fork.evidence} == {1, 2}
    fork = detect_fork([ack(1, 3, h3), ack(1, 3, other)], host=0)
    assert fork is not None and (fork.seq, fork.seat) == (3, 1)


def test_prove_equivocation(game: Game) -> None:
    seq, prev = game.next()
    msg_a, sig_a = game.say(1, "chat", {"text": "a"})
    msg_b = game.raw(2, 1, "chat", {"text": "b"})
    rec_a = raw_record(seq, prev, msg_a, sig_a)
    rec_b = raw_record(seq, prev, msg_b, IDS[2].sign(msg_b))
    host_key = PLAYERS[0].key
    assert prove_equivocation(rec_a, rec_b, host_key) == seq
    assert prove_equivocation(rec_a, rec_a, host_key) is None
    assert prove_equivocation(rec_a, raw_record(seq + 1, prev, msg_a, sig_a), host_key) is None
    assert prove_equivocation(rec_a, raw_record(seq, prev, msg_b, sig_a, STRANGER),
                              host_key) is None
    assert prove_equivocation(rec_a, b"junk", host_key) is None
