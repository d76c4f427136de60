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

from collections.abc import Callable
from dataclasses import dataclass, fields, is_dataclass
from enum import StrEnum
from typing import Any, ClassVar, Final


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


Frame = (Challenge | Hello | Welcome | Lobby | GameName | Rec | Need | Msg | Ack | Acks
         | Peers | Ping | Pong | HostError | Bye | Evidence | Offer | Answer | Clock
         | BotLevel)

#: wire type → its typed value, built from a frame its schema has accepted
_BUILD: Final[dict[str, Callable[[dict[str, Any]], Frame]]] = {
    "challenge": lambda o: Challenge(o["v"], o["nonce"], o["key"], o["game"], o["bind"],
                                     o["sig"]),
    "hello": lambda o: Hello(o["v"], o["name"], o["key"], o["sig"], o["game"], o["have"],
                             o["head"], o["bind"]),
    "welcome": lambda o: Welcome(o["seat"], o["game"], o["count"], o["ready"]),
    "lobby": lambda o: Lobby(tuple(LobbyPlayer(p["name"], p["key"]) for p in o["players"]),
                             o["seats"]),
    "game": lambda o: GameName(o["game"], o["max"]),
    "rec": lambda o: Rec(o["seq"], o["record"]),
    "need": lambda o: Need(o["from"]),
    "msg": lambda o: Msg(o["msg"], o["sig"]),
    "ack": lambda o: Ack(o["ack"]),
    "acks": lambda o: Acks(tuple(o["acks"])),
    "peers": lambda o: Peers(tuple(PeerState(p["seat"], Presence(p["state"]), p["quiet"])
                                   for p in o["peers"])),
    "ping": lambda o: Ping(o["n"]),
    "pong": lambda o: Pong(o["n"]),
    "error": lambda o: HostError(o["code"], o["reason"], o["fatal"], o["kind"], o["counter"],
                                 o["refusal"]),
    "bye": lambda o: Bye(o["reason"]),
    "evidence": lambda o: Evidence(o["msg"], o["sig"], o["code"], o["reason"]),
    "rematch": lambda o: Offer(o["game"], o["head"], o["first_dealer"], tuple(o["agreed"])),
    "answer": lambda o: Answer(o["game"], o["yes"]),
    "clock": lambda o: Clock(o["left"]),
    "bot": lambda o: BotLevel(o["level"]),
}

#: every frame class, by its wire type
CLASSES: Final[dict[str, type[Frame]]] = {
    c.T: c for c in (Challenge, Hello, Welcome, Lobby, GameName, Rec, Need, Msg, Ack, Acks,
                     Peers, Ping, Pong, HostError, Bye, Evidence, Offer, Answer, Clock,
                     BotLevel)}


def typed(obj: dict[str, Any]) -> Frame:
    """The typed value of a decoded frame that its type's schema has accepted."""
    return _BUILD[obj["t"]](obj)


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
    out = {f.name: _wire(getattr(frame, f.name)) for f in fields(frame)}
    if isinstance(frame, Need):
        out["from"] = out.pop("start")
    return out
