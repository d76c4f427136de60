"""A game message's body after validation, whatever the game (sans-IO).

A log entry's body arrives as the decoded map its author signed. A core checks it once,
at its edge — :meth:`BodyKinds.parse`: a kind the game knows, no bool in an int field
(WIRE.md §4), exactly the keys of its kind, each of its type — and from then on reads only
the frozen typed value its kind's parser made (a ``ChatBody``, a Split ``MoveBody`` …),
dispatched by type (``match body: case ChatBody(text=text): …``), so every field the game
reads is one the type checker knows. A body that fails is refused with the
:class:`~splitnet.game.table.GameError` naming its author, and the core is unchanged (a
parser has no side effect).

The typed value is for reading only: what is signed, hashed, stored and sent is the raw
body's canonical encoding, as before (TRANSCRIPT.md, RECORD.md) — never the typed value.
What a body carries for the fair deck (a commitment, a hop, shares, an opening) stays the
deck's own message (:data:`DeckMessage`), which :class:`~splitnet.crypto.deck.DeckRound`
checks field by field (DECK.md) as it always has.

The kinds every game takes the same way — ``chat`` and the host's ``timeout`` and
``abandon`` (GAME.md) — are parsed here; each game registers its own kinds with them in
one :class:`BodyKinds`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeAlias, TypeVar

from splitnet.game.table import (
    MAX_CHAT,
    GameError,
    IntPath,
    UnknownKind,
    WrongRound,
    check_ints,
)
from splitnet.session.codec import is_int

#: a body as its author signed it (the decoded map)
RawBody: TypeAlias = Mapping[str, Any]
#: the part of a body that is the deck's own message (DECK.md), checked by the deck
DeckMessage: TypeAlias = dict[str, Any]


class Body(Protocol):
    """A game message's body after validation: a frozen value of its kind's own type
    (its fields typed; the raw body it came from is what stays signed)."""


#: a game's bodies (the union of its kinds' types)
B = TypeVar("B", bound=Body, covariant=True)


@dataclass(frozen=True)
class BodyKinds(Generic[B]):
    """A game's message kinds: each kind's parser — (author, raw body) → its typed body,
    or GameError naming the author — and its int fields (WIRE.md §4)."""

    parsers: Mapping[str, Callable[[int, RawBody], B]]
    ints: Mapping[str, Sequence[IntPath]]

    def __contains__(self, kind: object) -> bool:
        return kind in self.parsers

    def check(self, author: int, kind: str, raw: RawBody) -> None:
        """What comes before anything else of an entry: a kind this game knows
        (UnknownKind), no bool in an int field (NotAnInt, WIRE.md §4)."""
        if kind not in self.parsers:
            raise UnknownKind(author, kind, f"unknown message kind {kind!r}")
        check_ints(author, kind, raw, self.ints.get(kind, ()))

    def parse(self, author: int, kind: str, raw: RawBody, *, checked: bool = False) -> B:
        """The typed body of ``raw`` (:meth:`check` first unless ``checked``); GameError
        naming ``author`` for a body its kind does not allow. Nothing is changed."""
        if not checked:
            self.check(author, kind, raw)
        return self.parsers[kind](author, raw)


def round_of(author: int, kind: str, raw: RawBody) -> int:
    """A body's ``round``: an int (the core has refused another round already, in its
    own words; this is the parser's own check)."""
    rnd = raw.get("round")
    if not is_int(rnd):
        raise WrongRound(author, kind, f"message for round {rnd!r}")
    assert isinstance(rnd, int)
    return rnd


def without(raw: RawBody, *keys: str) -> DeckMessage:
    """``raw`` less ``keys``: the deck's message a body carries."""
    return {k: v for k, v in raw.items() if k not in keys}


def int_list(value: object) -> tuple[int, ...] | None:
    """``value`` as a tuple of ints if it is a list of ints (never a bool), else None."""
    if not isinstance(value, list) or not all(is_int(v) for v in value):
        return None
    return tuple(value)


@dataclass(frozen=True, slots=True)
class SharesPart:
    """A deck SHARES message inside a body (DECK.md §5.3): its ``slots`` (None: not a
    list of ints) and the message, which the deck checks. A value that is no map is no
    slots and an empty message: a core refuses it as shares of other slots than those
    due, in the words it uses for those."""

    slots: tuple[int, ...] | None
    msg: DeckMessage

    @classmethod
    def of(cls, value: object) -> SharesPart:
        if not isinstance(value, dict):
            return cls(None, {})
        return cls(int_list(value.get("slots")), dict(value))


@dataclass(frozen=True, slots=True)
class ChatBody:
    """GAME.md "chat": ``{"text": ≤ 500 characters}``, at any time."""

    text: str


def parse_chat(author: int, raw: RawBody) -> ChatBody:
    """GAME.md "chat": exactly {"text": ≤ 500 characters}, or GameError."""
    text = raw.get("text")
    if set(raw) != {"text"}:
        raise GameError(author, "chat", 'a chat body is exactly {"text": …}, with '
                        "no other key")
    if not isinstance(text, str) or len(text) > MAX_CHAT:
        raise GameError(author, "chat", "chat text must be a string of ≤ 500 characters")
    return ChatBody(text)


@dataclass(frozen=True, slots=True)
class DeckBody:
    """A body that is a deck's message and its round (a commitment, a hop, an opening):
    each game's kind of it is its own subclass, so it is dispatched by type."""

    round: int
    deck: DeckMessage


D = TypeVar("D", bound=DeckBody)


def deck_parser(cls: type[D], kind: str, *strip: str) -> Callable[[int, RawBody], D]:
    """The parser of a kind whose body is its round and the deck's message: the body
    less ``round`` (and ``strip``), which the deck checks field by field."""
    def parse(author: int, raw: RawBody) -> D:
        return cls(round_of(author, kind, raw), without(raw, "round", *strip))
    return parse


@dataclass(frozen=True, slots=True)
class HostWordBody:
    """The host's word on a seat: ``seat`` owed a message for ``waited`` seconds."""

    round: int
    seat: int
    waited: int


@dataclass(frozen=True, slots=True)
class TimeoutBody(HostWordBody):
    """GAME.md "timeout": the host says ``seat`` owed a message for ``waited`` seconds."""


@dataclass(frozen=True, slots=True)
class AbandonBody(HostWordBody):
    """GAME.md "abandon": the host gives ``seat`` up after ``waited`` seconds."""


def _seat_waited(author: int, kind: str, raw: RawBody,
                 fail: Callable[[str], GameError]) -> tuple[int, int, int]:
    """(round, seat, waited) of a host's word on a seat: exactly those keys, ints."""
    if set(raw) != {"round", "seat", "waited"}:
        raise fail(f"a{'n abandonment' if kind == 'abandon' else ' timeout'} has exactly "
                   "round, seat and waited")
    seat, waited = raw["seat"], raw["waited"]
    if not is_int(waited) or waited < 0 or not is_int(seat):
        raise fail("seat and waited must be integers ≥ 0")
    return round_of(author, kind, raw), seat, waited


def parse_timeout(author: int, raw: RawBody) -> TimeoutBody:
    """GAME.md "timeout": exactly round, seat and waited (≥ 0), or GameError."""
    return TimeoutBody(*_seat_waited(author, "timeout", raw,
                                     lambda why: GameError(author, "timeout", why)))


def parse_abandon(author: int, raw: RawBody) -> AbandonBody:
    """GAME.md "abandon": exactly round, seat and waited (≥ 0), or GameError."""
    return AbandonBody(*_seat_waited(
        author, "abandon", raw,
        lambda why: GameError(author, "abandon", f"a false abandonment: {why}")))


#: the bodies every game takes the same way
SharedBody: TypeAlias = ChatBody | TimeoutBody | AbandonBody
#: the parsers of the kinds every game takes the same way
SHARED_PARSERS: Mapping[str, Callable[[int, RawBody], SharedBody]] = {
    "chat": parse_chat, "timeout": parse_timeout, "abandon": parse_abandon}
