"""The frames of the LAN protocol (protocol/NETWORK.md §2) as typed values.

:func:`splitnet.net.wire.decode_frame` checks a frame against its type's schema and
direction, then hands it on as one of these frozen values, so nothing after the wire's
edge reads a frame by string keys: the host and the joiner dispatch on its class, and
mypy sees every field. Each class's ``T`` is its wire type, and its fields are that
type's fields in NETWORK.md's order, by the same names — but for ``need.from``, a Python
keyword, which is :attr:`Need.start`. Sending goes the other way:
:func:`~splitnet.net.wire.encode_typed` turns a value back into its wire form
(:func:`wire_fields`) and checks it against the same schema.

>>> typed({"t": "rec", "seq": 3, "record": b"abc"})
Rec(seq=3, record=b'abc')
>>> typed({"t": "need", "from": 7}).start
7
>>> typed({"t": "peers", "peers": [{"seat": 1, "state": "ok", "quiet": 0}]}).peers[0].seat
1
"""

from __future__ import annotations

from dataclasses import dataclass, fields, is_dataclass
from enum import StrEnum
from types import UnionType
from typing import Any, ClassVar, Final, get_args, get_origin, get_type_hints


class Presence(StrEnum):
    """A seat's presence as the host sees it (``peers.state``, NETWORK.md §7)."""

    OK = "ok"  #: connected and answering
    SILENT = "silent"  #: connected, but quiet for ``silent_after`` or longer
    GONE = "gone"  #: not connected


@dataclass(frozen=True, slots=True)
class Challenge:
    """The host's first frame on a connection, signed for it (§3)."""

    T: ClassVar[str] = "challenge"
    v: str
    nonce: bytes
    key: bytes
    game: bytes | None
    bind: bytes | None
    sig: bytes


@dataclass(frozen=True, slots=True)
class Hello:
    """A joiner's answer to the challenge: its name and key, signed (§3)."""

    T: ClassVar[str] = "hello"
    v: str
    name: str
    key: bytes
    sig: bytes
    game: bytes | None
    have: int
    head: bytes | None
    bind: bytes | None


@dataclass(frozen=True, slots=True)
class Welcome:
    T: ClassVar[str] = "welcome"
    seat: int | None
    game: bytes | None
    count: int
    ready: bool


@dataclass(frozen=True, slots=True)
class LobbyPlayer:
    """One entry of ``lobby.players``."""

    name: str
    key: bytes


@dataclass(frozen=True, slots=True)
class Lobby:
    T: ClassVar[str] = "lobby"
    players: tuple[LobbyPlayer, ...]
    seats: int | None


@dataclass(frozen=True, slots=True)
class GameName:
    """Which game a lobby that is not Split's is for (§4): its name in words."""

    T: ClassVar[str] = "game"
    game: str
    max: int


@dataclass(frozen=True, slots=True)
class Rec:
    T: ClassVar[str] = "rec"
    seq: int
    record: bytes


@dataclass(frozen=True, slots=True)
class Need:
    """``need {from}``: hand back your records from seq ``start`` (§7)."""

    T: ClassVar[str] = "need"
    start: int


@dataclass(frozen=True, slots=True)
class Msg:
    T: ClassVar[str] = "msg"
    msg: bytes
    sig: bytes


@dataclass(frozen=True, slots=True)
class Ack:
    T: ClassVar[str] = "ack"
    ack: bytes


@dataclass(frozen=True, slots=True)
class Acks:
    T: ClassVar[str] = "acks"
    acks: tuple[bytes, ...]


@dataclass(frozen=True, slots=True)
class PeerState:
    """One entry of ``peers.peers``: a seat's presence as the host sees it."""

    seat: int
    state: Presence
    quiet: int


@dataclass(frozen=True, slots=True)
class Peers:
    T: ClassVar[str] = "peers"
    peers: tuple[PeerState, ...]


@dataclass(frozen=True, slots=True)
class Ping:
    T: ClassVar[str] = "ping"
    n: int


@dataclass(frozen=True, slots=True)
class Pong:
    T: ClassVar[str] = "pong"
    n: int


@dataclass(frozen=True, slots=True)
class HostError:
    """The host's ``error`` (§8): ``code`` as received (a joiner may not know it)."""

    T: ClassVar[str] = "error"
    code: str
    reason: str
    fatal: bool
    kind: str | None
    counter: int | None
    refusal: bytes | None


@dataclass(frozen=True, slots=True)
class Bye:
    T: ClassVar[str] = "bye"
    reason: str


@dataclass(frozen=True, slots=True)
class Evidence:
    T: ClassVar[str] = "evidence"
    msg: bytes
    sig: bytes
    code: str
    reason: str


@dataclass(frozen=True, slots=True)
class Offer:
    """``rematch``: the host's offer in a rematch lobby (§13)."""

    T: ClassVar[str] = "rematch"
    game: bytes
    head: bytes
    first_dealer: int
    agreed: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Answer:
    T: ClassVar[str] = "answer"
    game: bytes
    yes: bool


@dataclass(frozen=True, slots=True)
class Clock:
    T: ClassVar[str] = "clock"
    left: int


@dataclass(frozen=True, slots=True)
class BotLevel:
    """``bot``: a joiner that is a bot says its level (§4)."""

    T: ClassVar[str] = "bot"
    level: str


@dataclass(frozen=True, slots=True)
class Watch:
    """``watch``: a watcher's answer to the challenge instead of a ``hello`` (NETWORK.md
    §14): the name it is listed by, and the records it holds already (it resumes)."""

    T: ClassVar[str] = "watch"
    v: str
    name: str
    game: bytes | None
    have: int
    head: bytes | None


@dataclass(frozen=True, slots=True)
class Watching:
    """``watching``: how many watch the game, and the first watchers' names, for the
    players' screens (NETWORK.md §14.10). Informational only: never in the log, never a
    seat's state; a joiner shows it at most every few seconds (``net.watching``)."""

    T: ClassVar[str] = "watching"
    count: int
    names: tuple[str, ...]


Frame = (Challenge | Hello | Welcome | Lobby | GameName | Rec | Need | Msg | Ack | Acks
         | Peers | Ping | Pong | HostError | Bye | Evidence | Offer | Answer | Clock
         | BotLevel | Watch | Watching)

#: every frame class, by its wire type
CLASSES: Final[dict[str, type[Frame]]] = {c.T: c for c in get_args(Frame)}
#: a field whose wire name is not its own: (class, field) → wire name
_WIRE_NAME: Final[dict[tuple[type, str], str]] = {(Need, "start"): "from"}


#: each frame class's fields' types, and those of the items nested in frames
_HINTS: Final[dict[type, dict[str, Any]]] = {
    c: get_type_hints(c) for c in (*CLASSES.values(), LobbyPlayer, PeerState)}


def _value(tp: Any, raw: Any) -> Any:
    """``raw`` (a value its schema accepted) as type ``tp``: a tuple of ``tp``'s items,
    an optional value, a dataclass from its map, a :class:`Presence` from its word."""
    if get_origin(tp) is tuple:
        item = get_args(tp)[0]
        return tuple(_value(item, v) for v in raw)
    if get_origin(tp) is UnionType:  # (X | None)
        if raw is None:
            return None
        (tp,) = [a for a in get_args(tp) if a is not type(None)]
    if isinstance(tp, type) and is_dataclass(tp):
        return tp(**{f.name: _value(_HINTS[tp][f.name], raw[f.name]) for f in fields(tp)})
    if isinstance(tp, type) and issubclass(tp, StrEnum):
        return tp(raw)
    return raw


def typed(obj: dict[str, Any]) -> Frame:
    """The typed value of a decoded frame that its type's schema has accepted."""
    cls = CLASSES[obj["t"]]
    hints = _HINTS[cls]
    frame: Frame = cls(**{f.name: _value(hints[f.name],
                                         obj[_WIRE_NAME.get((cls, f.name), f.name)])
                          for f in fields(cls)})
    return frame


def _wire(value: object) -> object:
    if isinstance(value, tuple):
        return [_wire(v) for v in value]
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: _wire(getattr(value, f.name)) for f in fields(value)}
    if isinstance(value, StrEnum):
        return value.value
    return value


def wire_fields(frame: Frame) -> dict[str, Any]:
    """A frame's fields in their wire form (lists, maps and strings), but for ``t``.

    >>> wire_fields(Need(7)), wire_fields(Peers((PeerState(1, Presence.GONE, 0),)))
    ({'from': 7}, {'peers': [{'seat': 1, 'state': 'gone', 'quiet': 0}]})
    """
    cls = type(frame)
    return {_WIRE_NAME.get((cls, f.name), f.name): _wire(getattr(frame, f.name))
            for f in fields(frame)}
