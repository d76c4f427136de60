"""The signed, hash-chained game log (sans-IO). Byte layouts: ``protocol/TRANSCRIPT.md``.

Every message is signed by its author; the host (the peer that orders messages) wraps it
in an *entry* carrying a sequence number and the previous entry's hash, and signs that::

    msg_bytes   = encode([b"splitnet/v2/msg", game_id, author, counter,
                          seen_seq, seen_hash, kind, body])
    sig         = Ed25519(author_key, msg_bytes)
    entry_bytes = encode([b"splitnet/v1/entry", seq, prev, msg_bytes, sig])
    host_sig    = Ed25519(host_key, entry_bytes)
    record      = encode([entry_bytes, host_sig])
    hash        = SHA-256(b"splitnet/v1/entry-hash" || record)

Signatures cover exact bytes, so nobody ever re-encodes to verify: a receiver checks the
bytes it got, then decodes them (strictly, see :mod:`.codec`).

Entry 0 is the game header (kind ``"game"``, by the host, counter 0); the keys of all
authors come from it. Each other seat's first message (its counter 0) must be its
``"accept"`` of the header hash.

**What the author had seen.** Every message names an entry its author held when it signed
(``seen``: that entry's seq and hash, :class:`Seen` — its log head), and is valid only in a
log that holds that very entry before it: a message made in one history can never be
ordered in another, so a host that forks its log keeps each honest seat in one linear
history (``protocol/SECURITY.md`` §4). Entry 0 names nothing (seq 0, zero hash).

**Who is at fault.** A record whose host signature is valid is a statement by the host,
so everything wrong inside it — wrong seq or prev, an author signature that does not
verify, a replayed counter, another game's message — is the *host's* fault: an honest host
checks all of it in :meth:`Log.order` before signing, and blaming the author instead would
let a host frame any player with a made-up signature. A record that cannot even be decoded
far enough to check the host signature proves nothing about anyone (``seat=None``); the
network layer knows which connection delivered it. Only :meth:`Log.order`, where the host
receives the author's message itself, blames the (claimed) author.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final, cast

from splitnet.errors import Blame

from .codec import (
    Bytes,
    DecodeError,
    Int,
    List,
    Map,
    Str,
    Tuple,
    check,
    decode,
    encode,
)
from .identity import Identity, is_valid_public_key, verify

__all__ = [
    "GAME_ID_LEN",
    "HASH_LEN",
    "MAX_MSG",
    "MAX_RECORD",
    "MAX_REFUSAL",
    "MAX_SEATS",
    "NOTHING_SEEN",
    "TAG_ACK",
    "TAG_ENTRY",
    "TAG_HASH",
    "TAG_MSG",
    "TAG_MSG_HASH",
    "TAG_MSG_V1",
    "TAG_REFUSAL",
    "ZERO_HASH",
    "Ack",
    "Author",
    "Entry",
    "Fork",
    "Header",
    "Log",
    "LogError",
    "Message",
    "Player",
    "Refusal",
    "Seen",
    "accept_body",
    "check_ack",
    "check_refusal",
    "detect_fork",
    "entry_hash",
    "header_body",
    "make_ack",
    "make_refusal",
    "message_bytes",
    "message_hash",
    "new_game_id",
    "older_header",
    "parse_message",
    "prove_equivocation",
]

TAG_MSG: Final = b"splitnet/v2/msg"
#: the message tag of protocols splitnet/1 … splitnet/3, whose messages named no entry
#: seen (``[tag, game_id, author, counter, kind, body]``): recognised only to say so
TAG_MSG_V1: Final = b"splitnet/v1/msg"
TAG_ENTRY: Final = b"splitnet/v1/entry"
TAG_HASH: Final = b"splitnet/v1/entry-hash"
TAG_ACK: Final = b"splitnet/v1/ack"
TAG_MSG_HASH: Final = b"splitnet/v1/msg-hash"
TAG_REFUSAL: Final = b"splitnet/v1/refusal"
#: Longest refusal reason kept in a signed refusal (characters).
MAX_REFUSAL_REASON: Final = 200

GAME_ID_LEN: Final = 16
HASH_LEN: Final = 32
SIG_LEN: Final = 64
KEY_LEN: Final = 32
#: prev of the genesis entry.
ZERO_HASH: Final = bytes(HASH_LEN)
#: Seats are 0 … MAX_SEATS-1 (the game itself allows 2–6; the session layer is generic).
MAX_SEATS: Final = 16
MAX_NAME: Final = 32
MAX_COUNTER: Final = 2**63 - 1
#: Largest author message. The largest legal one is a shuffle: 104 ElGamal ciphertexts of
#: 64 bytes (6.6 KB) plus a shuffle proof of ~20 KB — about 27 KB; 192 KiB leaves room.
MAX_MSG: Final = 192 * 1024
#: Largest record: a maximal message plus the entry/record overhead (two signatures, the
#: prev hash, the tag, seq and msgpack headers: < 200 bytes).
MAX_RECORD: Final = MAX_MSG + 1024
#: A kind names a message type: lowercase ASCII, digits, ``_ - . /``; 1–32 characters.
KIND_RE: Final = re.compile(r"[a-z][a-z0-9_./-]{0,31}")

_U63 = Int(0, MAX_COUNTER)
_SEAT = Int(0, MAX_SEATS - 1)
_RECORD = Tuple((Bytes(max_len=MAX_RECORD), Bytes(exact=SIG_LEN)))
_ENTRY = Tuple((Bytes(), _U63, Bytes(exact=HASH_LEN), Bytes(max_len=MAX_MSG), Bytes(exact=SIG_LEN)))
_MSG = Tuple((Bytes(), Bytes(exact=GAME_ID_LEN), _SEAT, _U63, _U63, Bytes(exact=HASH_LEN),
              Str(32, 1), Map({}, extra=True)))
_PLAYER = Map({"seat": _SEAT, "name": Str(MAX_NAME, 1, printable=True), "key": Bytes(KEY_LEN)})
_HEADER = Map(
    {
        "game_id": Bytes(exact=GAME_ID_LEN),
        "host": _SEAT,
        "players": List(_PLAYER, max_len=MAX_SEATS, min_len=1),
        "settings": Map({}, extra=True),
    }
)
_ACCEPT = Map({"header": Bytes(exact=HASH_LEN)})
_ACK = Tuple((Bytes(), Bytes(exact=GAME_ID_LEN), _SEAT, _U63, Bytes(exact=HASH_LEN)))
_REFUSAL = Tuple((Bytes(), Bytes(exact=GAME_ID_LEN), _U63, Bytes(exact=HASH_LEN), _SEAT,
                  Bytes(exact=HASH_LEN), Str(32, 1), Str(MAX_REFUSAL_REASON)))
#: Largest signed refusal: the body (< 400 bytes with a maximal reason in UTF-8 ≤ 800) + sig.
MAX_REFUSAL: Final = 1024


class LogError(Blame):
    """A record (or message, or ack) that must not enter the log.

    ``seat`` is the seat proven at fault, or None when the bytes prove nothing about
    anyone (undecodable before any signature could be checked). ``code`` is a short
    machine-readable cause (``garbage``, ``host-sig``, ``author-sig``, ``seq``, ``prev``,
    ``replay``, ``counter``, ``seen``, ``game-id``, ``unknown-author``, ``header``,
    ``accept``, ``kind``, ``ack``), which is also its :attr:`step`; ``seq`` is the position the
    record was offered for.
    """

    def __init__(self, reason: str, *, seat: int | None, code: str, seq: int | None = None):
        at = f"seq {seq}: " if seq is not None else ""
        who = f" [seat {seat} at fault]" if seat is not None else ""
        super().__init__(seat, code, reason, text=f"{at}{reason}{who}")
        self.code = code
        self.seq = seq


@dataclass(frozen=True, slots=True)
class Player:
    seat: int
    name: str
    key: bytes


@dataclass(frozen=True, slots=True)
class Header:
    """The parsed body of entry 0."""

    game_id: bytes
    host: int
    players: tuple[Player, ...]
    settings: Mapping[str, object]

    def key(self, seat: int) -> bytes:
        return self.players[seat].key


@dataclass(frozen=True, slots=True)
class Seen:
    """The entry an author held when it signed a message: its ``seq`` and ``hash`` —
    the author's log head (:meth:`Log.seen`). A message is valid only in a log whose
    entry ``seq`` is before it and has that ``hash`` (TRANSCRIPT.md §3)."""

    seq: int
    hash: bytes


#: the ``seen`` of entry 0, the header: nothing is before it
NOTHING_SEEN: Final = Seen(0, ZERO_HASH)


@dataclass(frozen=True, slots=True)
class Message:
    """A decoded author message (its signature not yet checked)."""

    game_id: bytes
    author: int
    counter: int
    seen: Seen
    kind: str
    body: dict[str, object]


@dataclass(frozen=True, slots=True, eq=False)
class Entry:
    """One verified log entry. ``body`` is the decoded message body: do not mutate it."""

    seq: int
    prev: bytes
    game_id: bytes
    author: int
    counter: int
    seen: Seen
    kind: str
    body: dict[str, object]
    msg_bytes: bytes
    sig: bytes
    host_sig: bytes
    record: bytes
    hash: bytes


# --------------------------------------------------------------------------- helpers


def new_game_id() -> bytes:
    """16 random bytes."""
    return os.urandom(GAME_ID_LEN)


def entry_hash(record: bytes) -> bytes:
    """SHA-256(b"splitnet/v1/entry-hash" || record) — the record *with* the host signature."""
    return hashlib.sha256(TAG_HASH + record).digest()


def message_bytes(
    game_id: bytes, author: int, counter: int, kind: str, body: Mapping[str, object], *,
    seen: Seen,
) -> bytes:
    """The exact bytes an author signs (validated: sizes, kind syntax, body a map), having
    seen the entry ``seen``."""
    if not KIND_RE.fullmatch(kind):
        raise ValueError(f"kind {kind!r}: expected 1–32 of a-z 0-9 _ . / - starting a-z")
    msg = encode([TAG_MSG, game_id, author, counter, seen.seq, seen.hash, kind, dict(body)])
    if len(msg) > MAX_MSG:
        raise ValueError(f"message of {len(msg)} bytes exceeds MAX_MSG ({MAX_MSG})")
    check(decode(msg, max_len=MAX_MSG), _MSG, "msg")
    return msg


def parse_message(msg_bytes: bytes) -> Message:
    """Strictly decode author message bytes (raises DecodeError/SchemaError)."""
    obj = decode(msg_bytes, max_len=MAX_MSG)
    if isinstance(obj, list) and obj and obj[0] == TAG_MSG_V1:
        raise DecodeError(f"msg[0]: tag {TAG_MSG_V1!r} is the message layout of protocols "
                          "splitnet/1 to splitnet/3, whose messages name no entry seen; "
                          f"this splitnet reads {TAG_MSG!r} (protocols splitnet/4 on) only")
    check(obj, _MSG, "msg")
    tag, game_id, author, counter, seen_seq, seen_hash, kind, body = cast(list[object], obj)
    if tag != TAG_MSG:
        raise DecodeError(f"msg[0]: expected tag {TAG_MSG!r}, got {tag!r}")
    assert isinstance(kind, str)
    if not KIND_RE.fullmatch(kind):
        raise DecodeError(f"msg.kind: {kind!r} is not a valid kind")
    return Message(
        cast(bytes, game_id), cast(int, author), cast(int, counter),
        Seen(cast(int, seen_seq), cast(bytes, seen_hash)), kind,
        cast(dict[str, object], body),
    )


def _parse_record(record: bytes) -> tuple[bytes, bytes]:
    obj = decode(record, max_len=MAX_RECORD)
    check(obj, _RECORD, "record")
    entry_bytes, host_sig = cast(list[bytes], obj)
    return entry_bytes, host_sig


def _parse_entry(entry_bytes: bytes) -> tuple[int, bytes, bytes, bytes]:
    obj = decode(entry_bytes, max_len=MAX_RECORD)
    check(obj, _ENTRY, "entry")
    tag, seq, prev, msg_bytes, sig = cast(list[object], obj)
    if tag != TAG_ENTRY:
        raise DecodeError(f"entry[0]: expected tag {TAG_ENTRY!r}, got {tag!r}")
    return cast(int, seq), cast(bytes, prev), cast(bytes, msg_bytes), cast(bytes, sig)


def _make_record(seq: int, prev: bytes, msg_bytes: bytes, sig: bytes, host: Identity) -> bytes:
    entry_bytes = encode([TAG_ENTRY, seq, prev, msg_bytes, sig])
    return encode([entry_bytes, host.sign(entry_bytes)])


def header_body(
    game_id: bytes,
    host: int,
    players: Sequence[Player],
    settings: Mapping[str, object],
) -> dict[str, object]:
    """The body of the ``"game"`` message (entry 0), validated like a receiver would.

    *players* must be listed in seat order 0, 1, …; each key a valid, distinct Ed25519
    public key; names 1–32 printable characters; *settings* any map (the session layer
    passes it through untouched).
    """
    body: dict[str, object] = {
        "game_id": game_id,
        "host": host,
        "players": [{"seat": p.seat, "name": p.name, "key": p.key} for p in players],
        "settings": dict(settings),
    }
    _parse_header(decode(encode(body), max_len=MAX_MSG))
    return body


def _parse_header(body: object) -> Header:
    """Schema and semantic checks of a header body; raises DecodeError/SchemaError."""
    check(body, _HEADER, "header")
    b = cast(dict[str, object], body)
    players = tuple(
        Player(cast(int, p["seat"]), cast(str, p["name"]), cast(bytes, p["key"]))
        for p in cast(list[dict[str, object]], b["players"])
    )
    for i, p in enumerate(players):
        if p.seat != i:
            raise DecodeError(f"header.players[{i}].seat: expected {i} (seat order), got {p.seat}")
        if not is_valid_public_key(p.key):
            raise DecodeError(f"header.players[{i}].key: not a valid Ed25519 public key")
        if any(q.key == p.key for q in players[:i]):
            raise DecodeError(f"header.players[{i}].key: same key as an earlier seat")
    host = cast(int, b["host"])
    if host >= len(players):
        raise DecodeError(f"header.host: seat {host} is not among the {len(players)} players")
    return Header(cast(bytes, b["game_id"]), host, players, cast(dict[str, object], b["settings"]))


def older_header(record: bytes) -> Header | None:
    """The header of a record 0 in the message layout of protocols splitnet/1 to
    splitnet/3 (:data:`TAG_MSG_V1`, no ``seen``), its host signature checked; None for
    anything else. Only so that a reader can say which protocol an old transcript is of:
    this log takes no such record."""
    try:
        entry_bytes, host_sig = _parse_record(record)
        msg_bytes = _parse_entry(entry_bytes)[2]
        obj = decode(msg_bytes, max_len=MAX_MSG)
        if not (isinstance(obj, list) and len(obj) == 6 and obj[0] == TAG_MSG_V1
                and obj[4] == "game"):
            return None
        header = _parse_header(obj[5])
    except DecodeError:
        return None
    return header if verify(header.key(header.host), entry_bytes, host_sig) else None


def accept_body(header_hash: bytes) -> dict[str, object]:
    """Body of an ``"accept"`` message: ``{"header": <hash of entry 0>}``."""
    if type(header_hash) is not bytes or len(header_hash) != HASH_LEN:
        raise ValueError("header hash must be 32 bytes")
    return {"header": header_hash}


class Author:
    """Makes one seat's signed messages, keeping its counter.

    After a restart, resume with ``counter=log.next_counter(seat)``.
    """

    def __init__(self, identity: Identity, game_id: bytes, seat: int, counter: int = 0) -> None:
        self.identity = identity
        self.game_id = game_id
        self.seat = seat
        self.counter = counter

    def message(self, kind: str, body: Mapping[str, object], *,
                seen: Seen) -> tuple[bytes, bytes]:
        """``(msg_bytes, sig)`` for the next message, made having seen the entry ``seen``
        — the head of the log this seat holds as it signs (:meth:`Log.seen`); the counter
        advances on success."""
        msg = message_bytes(self.game_id, self.seat, self.counter, kind, body, seen=seen)
        self.counter += 1
        return msg, self.identity.sign(msg)

    def accept(self, header_hash: bytes) -> tuple[bytes, bytes]:
        """The seat's ``accept`` of the header: what it has seen is that header."""
        return self.message("accept", accept_body(header_hash), seen=Seen(0, header_hash))


# --------------------------------------------------------------------------- the log


class Log:
    """Verified entries, in order. Every mutation either fully succeeds or raises
    :class:`LogError` leaving the log unchanged.

    >>> from splitnet.session.identity import Identity
    >>> ids = [Identity.from_seed(bytes([i]) * 32) for i in range(2)]
    >>> players = [Player(i, f"p{i}", k.public_key_bytes()) for i, k in enumerate(ids)]
    >>> log, host = Log.start(ids[0], game_id=bytes(16), host_seat=0, players=players)
    >>> guest = Author(ids[1], bytes(16), seat=1)
    >>> rec = log.order(*guest.accept(log.header_hash), ids[0])
    >>> [(e.seq, e.author, e.kind) for e in log.entries], log.all_accepted
    ([(0, 0, 'game'), (1, 1, 'accept')], True)
    >>> log.order(*guest.accept(log.header_hash), ids[0])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    splitnet.session.log.LogError: seq 2: 'accept' must be a non-host seat's first message ...
    """

    def __init__(self) -> None:
        self._entries: list[Entry] = []
        self._header: Header | None = None
        self._next_counter: list[int] = []
        self._accepted: set[int] = set()
        #: (seq, msg_bytes, sig) of the last successful check_order
        self._last_checked: tuple[int, bytes, bytes] | None = None

    # -- construction

    @classmethod
    def from_records(cls, records: Iterable[bytes]) -> Log:
        """A log re-verified from scratch (raises LogError; ``.seq`` is the record index)."""
        log = cls()
        for r in records:
            log.append_record(r)
        return log

    @classmethod
    def start(
        cls,
        host: Identity,
        *,
        game_id: bytes,
        host_seat: int,
        players: Sequence[Player],
        settings: Mapping[str, object] | None = None,
    ) -> tuple[Log, Author]:
        """Host side: a new log holding the header, and the host's :class:`Author`."""
        if players[host_seat].key != host.public_key_bytes():
            raise ValueError("the host's seat must hold the host identity's key")
        author = Author(host, game_id, host_seat)
        msg, sig = author.message("game", header_body(game_id, host_seat, players, settings or {}),
                                  seen=NOTHING_SEEN)
        log = cls()
        log.order(msg, sig, host)
        return log, author

    # -- views

    @property
    def entries(self) -> Sequence[Entry]:
        return self._entries

    def __len__(self) -> int:
        return len(self._entries)

    def head(self) -> bytes:
        """Hash of the last entry (``ZERO_HASH`` for an empty log)."""
        return self._entries[-1].hash if self._entries else ZERO_HASH

    def hash_at(self, seq: int) -> bytes:
        return self._entries[seq].hash

    def seen(self) -> Seen:
        """This log's head as the ``seen`` of a message signed now (:class:`Seen`)."""
        return Seen(len(self._entries) - 1, self.head()) if self._entries else NOTHING_SEEN

    def records(self) -> list[bytes]:
        return [e.record for e in self._entries]

    @property
    def header(self) -> Header:
        if self._header is None:
            raise LookupError("empty log: no header yet")
        return self._header

    @property
    def header_hash(self) -> bytes:
        return self.hash_at(0)

    @property
    def game_id(self) -> bytes:
        return self.header.game_id

    def next_counter(self, seat: int) -> int:
        """The counter *seat*'s next message must carry."""
        return self._next_counter[seat]

    @property
    def accepted(self) -> frozenset[int]:
        """Seats whose acceptance of the header is in the log (the host's is implied)."""
        return frozenset(self._accepted)

    @property
    def all_accepted(self) -> bool:
        return self._header is not None and len(self._accepted) == len(self._header.players)

    # -- verification

    def append_record(self, record: bytes) -> Entry:
        """Verify *record* completely as the next entry and append it (see module doc)."""
        entry = self._verify(record)
        self._push(entry)
        return entry

    def _push(self, entry: Entry) -> None:
        self._entries.append(entry)
        if entry.seq == 0:
            self._header = _parse_header(entry.body)
            self._next_counter = [0] * len(self._header.players)
            self._accepted = {self._header.host}
        self._next_counter[entry.author] += 1
        if entry.kind == "accept":
            self._accepted.add(entry.author)

    def _verify(self, record: bytes) -> Entry:
        seq = len(self._entries)
        if type(record) is not bytes:
            raise LogError("record is not bytes", seat=None, code="garbage", seq=seq)
        try:
            entry_bytes, host_sig = _parse_record(record)
        except DecodeError as e:
            raise LogError(f"undecodable record: {e}", seat=None, code="garbage", seq=seq) from None
        if seq == 0:
            return self._verify_genesis(record, entry_bytes, host_sig)
        header = self.header
        host = header.host

        def fail(reason: str, code: str) -> LogError:
            return LogError(reason, seat=host, code=code, seq=seq)

        if not verify(header.key(host), entry_bytes, host_sig):
            raise fail("host signature does not verify", "host-sig")
        try:
            e_seq, prev, msg_bytes, sig = _parse_entry(entry_bytes)
        except DecodeError as e:
            raise fail(f"host signed an undecodable entry: {e}", "garbage") from None
        if e_seq != seq:
            raise fail(f"entry has seq {e_seq}, expected {seq}", "seq")
        if prev != self.head():
            raise fail(f"prev {prev.hex()[:16]}… is not the hash of entry {seq - 1}", "prev")
        try:
            m = parse_message(msg_bytes)
        except DecodeError as e:
            raise fail(f"host ordered an undecodable message: {e}", "garbage") from None
        err = self._check_message(m, msg_bytes, sig)
        if err is not None:
            reason, code = err
            raise fail(f"host ordered a bad message: {reason}", code)
        return Entry(
            seq, prev, m.game_id, m.author, m.counter, m.seen, m.kind, m.body,
            msg_bytes, sig, host_sig, record, entry_hash(record),
        )

    def _check_message(self, m: Message, msg_bytes: bytes, sig: bytes) -> tuple[str, str] | None:
        """Checks of an author message against this (non-empty) log: (reason, code) or None."""
        header = self.header
        if m.game_id != header.game_id:
            return f"message is for game {m.game_id.hex()}, not {header.game_id.hex()}", "game-id"
        if m.author >= len(header.players):
            return f"author seat {m.author} is not in the game", "unknown-author"
        if not verify(header.key(m.author), msg_bytes, sig):
            return f"seat {m.author}'s signature does not verify", "author-sig"
        want = self._next_counter[m.author]
        if m.counter < want:
            return f"seat {m.author}'s counter {m.counter} was already used (replay)", "replay"
        if m.counter > want:
            return f"seat {m.author}'s counter {m.counter}, expected {want}", "counter"
        seq = len(self._entries)
        if m.seen.seq >= seq:
            return (f"seat {m.author}'s message says it was made having seen entry "
                    f"{m.seen.seq}, not before this entry ({seq})", "seen")
        if self._entries[m.seen.seq].hash != m.seen.hash:
            return (f"seat {m.author}'s message was made having seen another entry "
                    f"{m.seen.seq} than this log's: it was signed in another history",
                    "seen")
        if m.kind == "game":
            return "a second game header", "kind"
        if m.author != header.host and want == 0 and m.kind != "accept":
            return (
                f"seat {m.author}'s first message is {m.kind!r}, must be 'accept'",
                "accept",
            )
        if m.kind == "accept":
            if m.author == header.host or want != 0:
                return (
                    f"'accept' must be a non-host seat's first message (counter 0); "
                    f"seat {m.author} sent it as counter {m.counter}",
                    "accept",
                )
            try:
                check(m.body, _ACCEPT, "accept")
            except DecodeError as e:
                return str(e), "accept"
            if m.body["header"] != self.header_hash:
                return f"seat {m.author} accepted a different header", "accept"
        return None

    def _verify_genesis(self, record: bytes, entry_bytes: bytes, host_sig: bytes) -> Entry:
        def unauth(reason: str, code: str = "garbage") -> LogError:
            return LogError(reason, seat=None, code=code, seq=0)

        try:
            e_seq, prev, msg_bytes, sig = _parse_entry(entry_bytes)
            m = parse_message(msg_bytes)
        except DecodeError as e:
            raise unauth(f"undecodable genesis entry: {e}") from None
        if m.kind != "game":
            raise unauth(f"entry 0 must be the game header, got kind {m.kind!r}", "header")
        try:
            header = _parse_header(m.body)
        except DecodeError as e:
            raise unauth(f"invalid game header: {e}", "header") from None
        host = header.host

        def fail(reason: str, code: str) -> LogError:
            return LogError(reason, seat=host, code=code, seq=0)

        hkey = header.key(host)
        if not verify(hkey, entry_bytes, host_sig):
            raise fail("host signature does not verify", "host-sig")
        if e_seq != 0:
            raise fail(f"entry has seq {e_seq}, expected 0", "seq")
        if prev != ZERO_HASH:
            raise fail("genesis prev must be 32 zero bytes", "prev")
        if m.author != host:
            raise fail(f"header authored by seat {m.author}, not the host {host}", "header")
        if m.game_id != header.game_id:
            raise fail("message game_id differs from the header's game_id", "game-id")
        if not verify(hkey, msg_bytes, sig):
            raise fail("host's message signature does not verify", "author-sig")
        if m.counter != 0:
            raise fail(f"header has counter {m.counter}, expected 0", "counter")
        if m.seen != NOTHING_SEEN:
            raise fail("the header must name no entry seen (seq 0, 32 zero bytes)", "seen")
        return Entry(
            0, prev, m.game_id, m.author, 0, m.seen, m.kind, m.body,
            msg_bytes, sig, host_sig, record, entry_hash(record),
        )

    # -- host side

    def order(self, msg_bytes: bytes, sig: bytes, host: Identity) -> bytes:
        """Host side: check an author's message, make it the next entry, append it and
        return its record (to write to the transcript and broadcast).

        Raises :class:`LogError` naming the *claimed* author for a bad signature, a replayed
        or skipped counter, a ``seen`` this log does not hold before the new entry (code
        ``seen``: made in another history, or naming an entry not yet ordered) or a bad
        accept (the caller knows which connection sent it; a ``replay`` whose bytes equal
        the logged message is a harmless retransmission), and
        ``seat=None`` for an undecodable message, an unknown author or another game.
        """
        seq = len(self._entries)
        if seq == 0:
            record = _make_record(0, ZERO_HASH, msg_bytes, sig, host)
            self.append_record(record)
            return record
        if self.header.key(self.header.host) != host.public_key_bytes():
            raise ValueError("only the host identity named in the header can order entries")
        last = self._last_checked
        if last is not None and last[0] == seq and last[1] == msg_bytes and last[2] == sig:
            # check_order just checked these very bytes (signature included) against this
            # log; decode again so the entry's body cannot be one the caller has mutated.
            m = parse_message(msg_bytes)
        else:
            m = self.check_order(msg_bytes, sig)
        self._last_checked = None
        # The record is built here from checked parts and a fresh host signature, so it
        # is appended without verifying it again (append_record would re-check both
        # signatures: two Ed25519 verifications per message for nothing).
        prev = self.head()
        entry_bytes = encode([TAG_ENTRY, seq, prev, msg_bytes, sig])
        host_sig = host.sign(entry_bytes)
        record = encode([entry_bytes, host_sig])
        self._push(Entry(
            seq, prev, m.game_id, m.author, m.counter, m.seen, m.kind, m.body,
            msg_bytes, sig, host_sig, record, entry_hash(record),
        ))
        return record

    def check_order(self, msg_bytes: bytes, sig: bytes) -> Message:
        """Host side, check only: every check :meth:`order` makes of an author's message,
        without changing the log; returns the decoded message.

        A host validates a peer's message here, then applies it to its own game state
        (which may refuse it too), and only then calls :meth:`order`. Raises
        :class:`LogError` exactly as :meth:`order` would (never for the genesis entry:
        the log must hold its header).
        """
        seq = len(self._entries)
        if seq == 0:
            raise ValueError("check_order needs a log that holds its header")
        try:
            m = parse_message(msg_bytes)
        except DecodeError as e:
            reason = f"undecodable message: {e}"
            raise LogError(reason, seat=None, code="garbage", seq=seq) from None
        if type(sig) is not bytes or len(sig) != SIG_LEN:
            raise LogError("signature is not 64 bytes", seat=m.author, code="author-sig", seq=seq)
        err = self._check_message(m, msg_bytes, sig)
        if err is not None:
            reason, code = err
            seat = None if code in ("game-id", "unknown-author") else m.author
            raise LogError(reason, seat=seat, code=code, seq=seq)
        self._last_checked = (seq, msg_bytes, sig)
        return m

    # -- acknowledgements

    def make_ack(self, identity: Identity, seat: int) -> bytes:
        """This peer's ack of its current head."""
        return make_ack(identity, self.game_id, len(self) - 1, self.head(), seat=seat)

    def check_ack(self, ack: bytes) -> Ack:
        """Verify an ack by any seat of this game."""
        return check_ack(ack, game_id=self.game_id, keys=[p.key for p in self.header.players])


# --------------------------------------------------------------------------- acks / forks


@dataclass(frozen=True, slots=True)
class Ack:
    """A verified statement by *seat*: "I applied entries 0 … seq and my head is *head*"."""

    seat: int
    seq: int
    head: bytes
    raw: bytes


@dataclass(frozen=True, slots=True)
class Fork:
    """Two acks that cannot both be honest. *seat* is the culprit: the host when two seats
    saw different heads for one seq, or a seat that acked two different heads itself.

    Acks are signed by peers, not the host, so a lying peer can fake a "fork": treat a
    Fork as grounds to stop and compare host-signed records (:func:`prove_equivocation`),
    which no peer can forge.
    """

    seq: int
    seat: int
    reason: str
    evidence: tuple[Ack, Ack]


def make_ack(identity: Identity, game_id: bytes, seq: int, head_hash: bytes, *, seat: int) -> bytes:
    """``encode([encode([b"splitnet/v1/ack", game_id, seat, seq, head]), sig])``."""
    body = encode([TAG_ACK, game_id, seat, seq, head_hash])
    check(decode(body, max_len=256), _ACK, "ack")
    return encode([body, identity.sign(body)])


def check_ack(ack: bytes, *, game_id: bytes, keys: Sequence[bytes] | Mapping[int, bytes]) -> Ack:
    """Verify an ack (raises LogError code ``ack``; seat = signer when the signature or
    game is wrong, None when undecodable)."""
    try:
        outer = decode(ack, max_len=512)
        check(outer, Tuple((Bytes(max_len=256), Bytes(exact=SIG_LEN))), "ack")
        body, sig = cast(list[bytes], outer)
        inner = decode(body, max_len=256)
        check(inner, _ACK, "ack")
        tag, gid, seat, seq, head = cast(list[object], inner)
        if tag != TAG_ACK:
            raise DecodeError(f"ack[0]: expected tag {TAG_ACK!r}")
    except DecodeError as e:
        raise LogError(f"undecodable ack: {e}", seat=None, code="ack") from None
    assert isinstance(seat, int) and isinstance(seq, int) and isinstance(head, bytes)
    if isinstance(keys, Mapping):
        key = keys.get(seat)
    else:
        key = keys[seat] if seat < len(keys) else None
    if key is None:
        raise LogError(f"ack from unknown seat {seat}", seat=None, code="ack")
    if not verify(key, body, sig):
        raise LogError(f"seat {seat}'s ack signature does not verify", seat=None, code="ack")
    if gid != game_id:
        raise LogError(f"seat {seat} acked another game", seat=seat, code="ack")
    return Ack(seat, seq, head, ack)


def detect_fork(acks: Iterable[Ack], *, host: int) -> Fork | None:
    """The first contradiction among verified acks, or None.

    Same seq, different heads: from two seats → the host showed them different logs; from
    one seat → that seat signed two different heads. Include this peer's own ack.
    """
    seen: dict[int, Ack] = {}
    by_seat: dict[tuple[int, int], Ack] = {}
    for a in acks:
        mine = by_seat.setdefault((a.seat, a.seq), a)
        if mine.head != a.head:
            return Fork(a.seq, a.seat, f"seat {a.seat} acked two heads for seq {a.seq}", (mine, a))
        first = seen.setdefault(a.seq, a)
        if first.head != a.head and first.seat != a.seat:
            return Fork(
                a.seq, host,
                f"host {host} gave seats {first.seat} and {a.seat} different logs at seq {a.seq}",
                (first, a),
            )
    return None


def prove_equivocation(record_a: bytes, record_b: bytes, host_key: bytes) -> int | None:
    """The seq at which two records, both validly signed by *host_key*, conflict — the
    host's signature on two different entries with one seq is transferable proof that it
    equivocated. None if either is not host-signed/decodable or they do not conflict."""
    try:
        ea, sa = _parse_record(record_a)
        eb, sb = _parse_record(record_b)
        if ea == eb or not (verify(host_key, ea, sa) and verify(host_key, eb, sb)):
            return None
        seq_a, seq_b = _parse_entry(ea)[0], _parse_entry(eb)[0]
    except DecodeError:
        return None
    return seq_a if seq_a == seq_b else None


#: the tag of a ``.fork`` file holding two host-signed records for one seq (TRANSCRIPT.md
#: §7, NETWORK.md §6): the transferable proof that the host equivocated
TAG_FORK_RECORDS: Final = "splitnet/v1/fork-records"
#: … and of one holding two seats' signed acks of different heads at one seq
TAG_FORK_ACKS: Final = "splitnet/v1/fork-acks"
#: the largest ``.fork`` file read back (two records)
MAX_FORK_BYTES: Final = 2 * MAX_RECORD + 1024


def fork_evidence(tag: str, a: bytes, b: bytes) -> bytes:
    """The bytes of a ``.fork`` file: encode([tag, a, b]) (two records or two acks)."""
    return encode([tag, a, b])


def check_fork_evidence(data: bytes, records: Sequence[bytes], host_key: bytes) -> int | None:
    """The seq at which a ``.fork`` file proves that the host of the log ``records``
    signed two different records for one seq *of that game*, or None when it proves
    nothing: not such a file, damaged, another host's, two acks — or records of another
    game of the same host (a persistent key signs many games): one of the two must be the
    log's own record at that seq, the other an entry of the same game id."""
    try:
        obj = decode(data, max_len=MAX_FORK_BYTES)
    except DecodeError:
        return None
    if (not isinstance(obj, list) or len(obj) != 3 or obj[0] != TAG_FORK_RECORDS
            or not isinstance(obj[1], bytes) or not isinstance(obj[2], bytes)):
        return None
    at = prove_equivocation(obj[1], obj[2], host_key)
    if at is None or not 0 <= at < len(records) or records[at] not in (obj[1], obj[2]):
        return None
    other = obj[2] if records[at] == obj[1] else obj[1]
    try:
        game_of = parse_message(_parse_entry(_parse_record(other)[0])[2]).game_id
        ours = parse_message(_parse_entry(_parse_record(records[at])[0])[2]).game_id
    except (DecodeError, LogError):
        return None
    return at if game_of == ours else None


# --------------------------------------------------------------------------- refusals


def message_hash(msg_bytes: bytes, sig: bytes) -> bytes:
    """SHA-256(b"splitnet/v1/msg-hash" || encode([msg_bytes, sig])): names an author
    message as it was received — with its signature, so that a refusal of a message with
    a bad signature is no refusal of the same message correctly signed."""
    return hashlib.sha256(TAG_MSG_HASH + encode([msg_bytes, sig])).digest()


@dataclass(frozen=True, slots=True)
class Refusal:
    """A verified statement by the host: "at log position *seq*, after head *head*, I
    refused the message with hash *msg_hash*, received on *seat*'s connection (*code*:
    *reason*)"."""

    seq: int
    head: bytes
    seat: int
    msg_hash: bytes
    code: str
    reason: str
    raw: bytes


def make_refusal(host: Identity, game_id: bytes, seq: int, head: bytes, seat: int,
                 msg_bytes: bytes, sig: bytes, code: str, reason: str) -> bytes:
    """``encode([encode([b"splitnet/v1/refusal", game_id, seq, head, seat,
    message_hash(msg, sig), code, reason]), host_sig])`` — the host's signed refusal of
    an author message received on ``seat``'s connection."""
    body = encode([TAG_REFUSAL, game_id, seq, head, seat, message_hash(msg_bytes, sig), code,
                   reason[:MAX_REFUSAL_REASON]])
    check(decode(body, max_len=MAX_REFUSAL), _REFUSAL, "refusal")
    return encode([body, host.sign(body)])


def check_refusal(raw: bytes, *, game_id: bytes, host_key: bytes) -> Refusal:
    """Verify a host's signed refusal (raises LogError code ``refusal``)."""
    try:
        outer = decode(raw, max_len=MAX_REFUSAL)
        check(outer, Tuple((Bytes(max_len=MAX_REFUSAL), Bytes(exact=SIG_LEN))), "refusal")
        body, sig = cast(list[bytes], outer)
        inner = decode(body, max_len=MAX_REFUSAL)
        check(inner, _REFUSAL, "refusal")
        tag, gid, seq, head, seat, msg_hash, code, reason = cast(list[object], inner)
        if tag != TAG_REFUSAL:
            raise DecodeError(f"refusal[0]: expected tag {TAG_REFUSAL!r}")
    except DecodeError as e:
        raise LogError(f"undecodable refusal: {e}", seat=None, code="refusal") from None
    if not verify(host_key, body, sig):
        raise LogError("the refusal's host signature does not verify", seat=None,
                       code="refusal")
    if gid != game_id:
        raise LogError("a refusal from another game", seat=None, code="refusal")
    assert isinstance(seq, int) and isinstance(head, bytes) and isinstance(msg_hash, bytes)
    assert isinstance(seat, int) and isinstance(code, str) and isinstance(reason, str)
    return Refusal(seq, head, seat, msg_hash, code, reason, raw)
