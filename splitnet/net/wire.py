"""The wire messages of a LAN game and the connection they travel on (protocol/NETWORK.md).

Every frame's payload is one canonical msgpack map (:mod:`splitnet.session.codec`) with a
type field ``"t"``. :func:`decode_frame` decodes strictly and checks the schema of that
type — and that the type may travel in that direction — before anything reaches the
session, which gets it as a typed value (:mod:`splitnet.net.frames`); a failure is a
:class:`WireError` whose ``code`` goes back to the sender in an ``error`` frame.

All frames of one connection pass through one :class:`Channel` (``send``/``recv`` of
payload bytes). :class:`StreamChannel` is plain TCP; a join-code/AEAD layer wraps a
channel in another with the same two methods (:data:`ChannelWrap`), before the splitnet
handshake (``challenge``/``hello``/``welcome``) runs on it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from enum import StrEnum
from typing import Any, Final, Protocol

from splitnet.net.frames import Challenge, Frame, Hello, Presence, typed, wire_fields
from splitnet.net.framing import MAX_FRAME, FrameTooLarge, encode_frame, read_frame
from splitnet.session.codec import (
    Bool,
    Bytes,
    DecodeError,
    Int,
    List,
    Map,
    OneOf,
    Opt,
    Schema,
    SchemaError,
    Str,
    check,
    decode,
    encode,
)
from splitnet.session.identity import Identity, verify
from splitnet.session.log import (
    GAME_ID_LEN,
    HASH_LEN,
    MAX_MSG,
    MAX_RECORD,
    MAX_REFUSAL,
    MAX_SEATS,
)

__all__ = [
    "ERROR_CODES",
    "HELLO_TAG",
    "MAX_WATCHING",
    "MAX_WATCHING_NAMES",
    "NAME",
    "NET_PROTOCOL",
    "Channel",
    "ChannelClosed",
    "ChannelWrap",
    "Connect",
    "ErrorCode",
    "Listen",
    "Listening",
    "StreamChannel",
    "WireError",
    "binding_of",
    "challenge_bytes",
    "decode_frame",
    "encode_msg",
    "encode_typed",
    "hello_bytes",
    "sign_challenge",
    "sign_hello",
    "verify_challenge",
    "verify_hello",
]

#: Version string in ``challenge`` and ``hello``; a peer refuses any other.
NET_PROTOCOL: Final = "splitnet-net/2"
HELLO_TAG: Final = b"splitnet/v2/hello"
CHALLENGE_TAG: Final = b"splitnet/v2/challenge"
MAX_COUNT: Final = 2**31 - 1
#: the most watchers a host takes (``--watchers``), and so the most a ``watching`` says
MAX_WATCHING: Final = 64
#: the most watchers' names a ``watching`` frame lists (the first to come)
MAX_WATCHING_NAMES: Final = 8

class ErrorCode(StrEnum):
    """Every ``error.code`` a node sends or reports (NETWORK.md §8 says what each one
    means; a test holds the two to each other). A refusal is raised with its code as
    data — never read back from the wording of its reason, so a reworded message changes
    no code."""

    GARBAGE = "garbage"
    TOO_BIG = "too-big"
    SCHEMA = "schema"
    PROTOCOL = "protocol"
    VERSION = "version"
    AUTH = "auth"
    FULL = "full"
    CLOSED = "closed"
    STARTED = "started"
    UNKNOWN_GAME = "unknown-game"
    NOT_STARTED = "not-started"
    NOT_YOUR_SEAT = "not-your-seat"
    GAME_ID = "game-id"
    AUTHOR_SIG = "author-sig"
    REPLAY = "replay"
    COUNTER = "counter"
    SEEN = "seen"
    ACCEPT = "accept"
    UNKNOWN_AUTHOR = "unknown-author"
    KIND = "kind"
    ROUND = "round"
    OUT_OF_TURN = "out-of-turn"
    ILLEGAL = "illegal"
    CHEAT = "cheat"
    ACK = "ack"
    FORK = "fork"
    SLOW = "slow"
    TOO_MANY_ERRORS = "too-many-errors"
    REPLACED = "replaced"
    BUSY = "busy"
    REMOVED = "removed"

    @classmethod
    def received(cls, code: str) -> ErrorCode | None:
        """The code another node sent, if this node knows it (a newer node may send
        one it does not: the caller then says what it was, shown safely)."""
        try:
            return cls(code)
        except ValueError:
            return None


#: Every ``error.code``, as the strings on the wire.
ERROR_CODES: Final = tuple(c.value for c in ErrorCode)

_T = Str(16, 1)
_SEAT = Int(0, MAX_SEATS - 1)
_U31 = Int(0, MAX_COUNT)
_KEY = Bytes(exact=32)
#: a player's name (``hello.name``, ``lobby.players[].name``; WIRE.md): 1–32 characters,
#: none of Unicode category C*; ``splitnet join/bot/host --name`` hold a name to it
#: before connecting (splitnet.cmdline.player_name)
NAME: Final = Str(32, 1, printable=True)
_NAME = NAME
_GAME = Opt(Bytes(exact=GAME_ID_LEN))
_ACK = Bytes(max_len=512)
_BIND = Opt(Bytes(exact=32))

#: type → (schema, may a client send it, may the host send it)
SCHEMAS: Final[dict[str, tuple[Schema, bool, bool]]] = {
    "challenge": (Map({"t": _T, "v": Str(32, 1), "nonce": Bytes(exact=32), "key": _KEY,
                       "game": _GAME, "bind": _BIND, "sig": Bytes(exact=64)}), False, True),
    "hello": (Map({"t": _T, "v": Str(32, 1), "name": _NAME, "key": _KEY,
                   "sig": Bytes(exact=64), "game": _GAME, "have": _U31,
                   "head": Opt(Bytes(exact=HASH_LEN)), "bind": _BIND}), True, False),
    "welcome": (Map({"t": _T, "seat": Opt(_SEAT), "game": _GAME, "count": _U31,
                     "ready": Bool()}), False, True),
    "lobby": (Map({"t": _T, "players": List(Map({"name": _NAME, "key": _KEY}),
                                           max_len=MAX_SEATS),
                   "seats": Opt(Int(2, 8))}), False, True),
    # the game a lobby is for, when it is not Split (NETWORK.md §4): sent before "lobby"
    "game": (Map({"t": _T, "game": Str(16, 1, printable=True), "max": Int(2, 8)}),
             False, True),
    "rec": (Map({"t": _T, "seq": _U31, "record": Bytes(max_len=MAX_RECORD)}), True, True),
    "need": (Map({"t": _T, "from": _U31}), False, True),
    "msg": (Map({"t": _T, "msg": Bytes(max_len=MAX_MSG), "sig": Bytes(max_len=64)}),
            True, False),
    "ack": (Map({"t": _T, "ack": _ACK}), True, False),
    "acks": (Map({"t": _T, "acks": List(_ACK, max_len=MAX_SEATS)}), False, True),
    "peers": (Map({"t": _T, "peers": List(Map({"seat": _SEAT,
                                               "state": OneOf(tuple(p.value for p in Presence)),
                                               "quiet": _U31}), max_len=MAX_SEATS)}),
              False, True),
    "ping": (Map({"t": _T, "n": _U31}), True, True),
    "pong": (Map({"t": _T, "n": _U31}), True, True),
    "error": (Map({"t": _T, "code": Str(32, 1), "reason": Str(500), "fatal": Bool(),
                   "kind": Opt(Str(32, 1)), "counter": Opt(Int(0, 2**63 - 1)),
                   "refusal": Opt(Bytes(max_len=MAX_REFUSAL))}),
              False, True),
    "bye": (Map({"t": _T, "reason": Str(200)}), True, True),
    "evidence": (Map({"t": _T, "msg": Bytes(max_len=MAX_MSG), "sig": Bytes(exact=64),
                      "code": Str(32, 1), "reason": Str(500)}), False, True),
    # a rematch lobby (NETWORK.md §13): the host's offer, and each seat's answer
    "rematch": (Map({"t": _T, "game": Bytes(exact=GAME_ID_LEN),
                     "head": Bytes(exact=HASH_LEN), "first_dealer": _SEAT,
                     "agreed": List(_SEAT, max_len=MAX_SEATS)}), False, True),
    # a seat's answer to the offer (or, before its final ack, that it leaves); from the
    # host, before its bye of a finished game, that it offers no rematch of it (§13)
    "answer": (Map({"t": _T, "game": Bytes(exact=GAME_ID_LEN), "yes": Bool()}), True, True),
    # the seconds a rematch lobby still waits for every yes (§13), whenever its screens'
    # 15 s step changes: the joiners show the host's clock, not a guess
    "clock": (Map({"t": _T, "left": _U31}), False, True),
    # a joiner that is a bot says its level as it is let into a lobby (NETWORK.md §4):
    # the host's lobby lists it beside the name; nothing else reads it
    "bot": (Map({"t": _T, "level": Str(16, 1, printable=True)}), True, False),
    # a watcher's answer to the challenge (NETWORK.md §14): it is listed by name and
    # gets the log from ``have`` on; it never holds a seat
    "watch": (Map({"t": _T, "v": Str(32, 1), "name": _NAME, "game": _GAME, "have": _U31,
                   "head": Opt(Bytes(exact=HASH_LEN))}), True, False),
    # how many watch, for the players' screens (NETWORK.md §14.10): never in the log
    "watching": (Map({"t": _T, "count": Int(0, MAX_WATCHING),
                      "names": List(_NAME, max_len=MAX_WATCHING_NAMES)}), False, True),
}


class WireError(Exception):
    """Input refused at the wire: its :class:`ErrorCode` and the reason."""

    def __init__(self, code: ErrorCode, reason: str, *, fatal: bool = False) -> None:
        super().__init__(f"{code}: {reason}")
        self.code = code
        self.reason = reason
        self.fatal = fatal


def encode_msg(t: str, **fields: Any) -> bytes:
    """The payload of a frame of type ``t`` (schema-checked: a bug here is ours)."""
    obj = {"t": t, **fields}
    check(obj, SCHEMAS[t][0], t)
    return encode(obj)


def encode_typed(frame: Frame) -> bytes:
    """The payload of a typed frame (schema-checked, as :func:`encode_msg`)."""
    return encode_msg(frame.T, **wire_fields(frame))


def decode_frame(payload: bytes, *, from_host: bool) -> Frame:
    """Strictly decode one frame payload, check it against its type's schema and
    direction, and return it as its typed value (:mod:`splitnet.net.frames`)."""
    try:
        obj = decode(payload, max_len=MAX_FRAME)
    except SchemaError as e:  # pragma: no cover - decode raises no SchemaError
        raise WireError(ErrorCode.SCHEMA, str(e)) from None
    except DecodeError as e:
        raise WireError(ErrorCode.GARBAGE, f"undecodable frame: {e}") from None
    if type(obj) is not dict or type(obj.get("t")) is not str:
        raise WireError(ErrorCode.SCHEMA, "a frame must be a map with a string field 't'")
    t = obj["t"]
    spec = SCHEMAS.get(t)
    if spec is None:
        raise WireError(ErrorCode.SCHEMA, f"unknown frame type {t[:20]!r}")
    schema, client_may, host_may = spec
    if not (host_may if from_host else client_may):
        raise WireError(ErrorCode.PROTOCOL, f"a {'host' if from_host else 'client'} does not send "
                        f"{t!r} frames")
    try:
        check(obj, schema, t)
    except SchemaError as e:
        raise WireError(ErrorCode.SCHEMA, str(e)) from None
    return typed(obj)


def hello_bytes(nonce: bytes, host_key: bytes, name: str, key: bytes, game: bytes | None,
                have: int, bind: bytes | None) -> bytes:
    """What a joiner signs: proof it holds ``key``, bound to the host's fresh nonce and
    to this very connection (``bind``: the join-code channel's binding value, SECURE.md §6;
    nil on a plain channel)."""
    return encode([HELLO_TAG, nonce, host_key, name, key, game, have, bind])


def sign_hello(identity: Identity, nonce: bytes, host_key: bytes, name: str,
               game: bytes | None, have: int, bind: bytes | None) -> bytes:
    return identity.sign(hello_bytes(nonce, host_key, name, identity.public_key_bytes(),
                                     game, have, bind))


def verify_hello(hello: Hello, nonce: bytes, host_key: bytes) -> bool:
    data = hello_bytes(nonce, host_key, hello.name, hello.key, hello.game, hello.have,
                       hello.bind)
    return verify(hello.key, data, hello.sig)


def challenge_bytes(nonce: bytes, host_key: bytes, game: bytes | None,
                    bind: bytes | None) -> bytes:
    """What the host signs in its ``challenge``: its key on this very connection."""
    return encode([CHALLENGE_TAG, nonce, host_key, game, bind])


def sign_challenge(identity: Identity, nonce: bytes, game: bytes | None,
                   bind: bytes | None) -> bytes:
    return identity.sign(challenge_bytes(nonce, identity.public_key_bytes(), game, bind))


def verify_challenge(challenge: Challenge) -> bool:
    data = challenge_bytes(challenge.nonce, challenge.key, challenge.game, challenge.bind)
    return verify(challenge.key, data, challenge.sig)


def binding_of(channel: object) -> bytes | None:
    """The channel-binding value of a join-code channel (SECURE.md §6), None for a plain
    one."""
    bind = getattr(channel, "binding", None)
    return bind if isinstance(bind, bytes) else None


# --------------------------------------------------------------------------- channels


class ChannelClosed(ConnectionError):
    """The other side closed the connection (or it broke)."""


class Channel(Protocol):
    """Every frame of one connection passes through here (the AEAD seam)."""

    #: "ADDR:PORT" of the other side, for log lines
    peer: str

    def send(self, payload: bytes) -> None:
        """Queue one frame (never blocks; raises :class:`WireError` ``slow`` when the
        other side does not read and the send buffer is over its bound)."""

    async def recv(self) -> bytes:
        """The next frame's payload: raises :class:`ChannelClosed`, or
        :class:`~splitnet.net.framing.FrameTooLarge` (then close: no resync)."""

    async def drain(self) -> None:
        """Wait until the send buffer is below its bound."""

    def close(self) -> None: ...

    async def wait_closed(self) -> None: ...


#: Wraps a fresh channel (role "host" or "client") in another, e.g. after a key exchange;
#: the identity wrap is the default.
ChannelWrap = Callable[[Channel, str], Awaitable[Channel]]


class Listening(Protocol):
    """A transport accepting connections (a TCP server; in memory in the tests)."""

    def close(self) -> None:
        """Stop accepting (connections already served go on until they end)."""


#: The host's transport: ``listen(serve, bind, port)`` starts accepting connections on
#: ``bind``:``port`` (0: any free port) and runs ``serve`` on each fresh channel until it
#: ends; returns the listening end and the port it got. TCP by default
#: (:meth:`splitnet.net.host.HostNode.listen`).
Listen = Callable[[Callable[[Channel], Awaitable[None]], str, int],
                  Awaitable[tuple[Listening, int]]]

#: The joiner's transport: opens one fresh connection to the host (TCP to host:port by
#: default; a wormhole subchannel; in memory in the tests). A host nobody answers for
#: is an :class:`OSError` (e.g. ``ConnectionRefusedError``) or :class:`TimeoutError`.
Connect = Callable[[], Awaitable[Channel]]


async def plain(channel: Channel, role: str) -> Channel:
    return channel


class StreamChannel:
    """A channel over an asyncio TCP stream with a bounded send buffer."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, *,
                 max_buffer: int = 16 * 1024 * 1024) -> None:
        self.reader = reader
        self.writer = writer
        self.max_buffer = max_buffer
        info = writer.get_extra_info("peername")
        self.peer = f"{info[0]}:{info[1]}" if isinstance(info, tuple) else str(info)
        self.closed = False

    def send(self, payload: bytes) -> None:
        if self.closed or self.writer.is_closing():
            raise ChannelClosed("connection closed")
        if self.writer.transport.get_write_buffer_size() > self.max_buffer:
            self.close()
            raise WireError(ErrorCode.SLOW, f"{self.peer} does not read: more than "
                            f"{self.max_buffer} bytes waiting", fatal=True)
        self.writer.write(encode_frame(payload))

    async def recv(self) -> bytes:
        try:
            return await read_frame(self.reader)
        except FrameTooLarge:
            raise
        except (asyncio.IncompleteReadError, ConnectionError, OSError) as e:
            self.closed = True
            raise ChannelClosed(f"connection to {self.peer} closed ({type(e).__name__})") from e

    async def drain(self) -> None:
        with contextlib.suppress(ConnectionError, OSError):
            await self.writer.drain()

    def close(self) -> None:
        self.closed = True
        with contextlib.suppress(Exception):
            self.writer.close()

    async def wait_closed(self) -> None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.writer.wait_closed(), 2.0)
