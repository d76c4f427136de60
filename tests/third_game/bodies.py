"""High Card's message bodies after validation (README.md "On the fair deck"): one frozen
type per kind, parsed once at the core's edge (:data:`BODIES`, the
:class:`~splitnet.game.bodies.BodyKinds` every game gives) and dispatched by type. A
parser checks the body alone — its keys and the types of its fields; the trick under
way, the slots due and the cards held are the core's to check, on the typed value."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from splitnet.game.bodies import (
    SHARED_PARSERS,
    AbandonBody,
    BodyKinds,
    ChatBody,
    DeckBody,
    RawBody,
    SharesPart,
    TimeoutBody,
    deck_parser,
    round_of,
    without,
)
from splitnet.game.table import GameError, IntPath
from splitnet.session.codec import is_int

__all__ = ["BODIES", "INT_FIELDS", "KINDS", "AbandonBody", "ChatBody", "CommitBody",
           "DealBody", "HighCardBody", "MoveBody", "OpenBody", "ShuffleBody", "TimeoutBody",
           "parse"]

KINDS: Final = ("commit", "shuffle", "deal", "move", "open", "chat", "timeout", "abandon")
_R: IntPath = ("round",)
INT_FIELDS: Final[dict[str, tuple[IntPath, ...]]] = {
    "commit": (_R,), "shuffle": (_R,), "deal": (_R, ("slots", "*")),
    "move": (_R, ("trick",), ("slot",), ("share", "slots", "*")), "open": (_R,),
    "chat": (), "timeout": (_R, ("seat",), ("waited",)), "abandon": (_R, ("seat",), ("waited",)),
}


@dataclass(frozen=True, slots=True)
class CommitBody(DeckBody):
    """A seat's deck key share (DeckRound.commit_message)."""


@dataclass(frozen=True, slots=True)
class ShuffleBody(DeckBody):
    """A seat's hop of the 16-card deck."""


@dataclass(frozen=True, slots=True)
class OpenBody(DeckBody):
    """A seat's seed, after the last trick."""


@dataclass(frozen=True, slots=True)
class DealBody:
    """A seat's shares of every dealt slot but its own hand's (H3)."""

    round: int
    shares: SharesPart


@dataclass(frozen=True, slots=True)
class MoveBody:
    """The card played: its trick, its slot, the holder's own share of the slot."""

    round: int
    trick: int
    slot: int
    share: SharesPart


HighCardBody = (CommitBody | ShuffleBody | OpenBody | DealBody | MoveBody | ChatBody
                | TimeoutBody | AbandonBody)


def _deal(author: int, raw: RawBody) -> DealBody:
    return DealBody(round_of(author, "deal", raw), SharesPart.of(without(raw, "round")))


def _move(author: int, raw: RawBody) -> MoveBody:
    if set(raw) != {"round", "trick", "slot", "share"} or not is_int(raw["trick"]):
        raise GameError(author, "move", "a move is exactly trick, slot and share")
    slot = raw["slot"]
    if not is_int(slot):
        raise GameError(author, "move", f"H4.2: slot {slot!r} is not a card it holds")
    return MoveBody(round_of(author, "move", raw), raw["trick"], slot,
                    SharesPart.of(raw["share"]))


#: High Card's kinds: each one's parser and int fields
BODIES: BodyKinds[HighCardBody] = BodyKinds(
    {"commit": deck_parser(CommitBody, "commit"),
     "shuffle": deck_parser(ShuffleBody, "shuffle"), "deal": _deal, "move": _move,
     "open": deck_parser(OpenBody, "open"),
     **SHARED_PARSERS},
    INT_FIELDS)
assert set(KINDS) == set(BODIES.parsers) == set(INT_FIELDS)

#: the typed body of an entry (:meth:`~splitnet.game.bodies.BodyKinds.parse`)
parse = BODIES.parse
