"""Split's message bodies after validation (GAME.md "Message kinds"), sans-IO: one frozen
type per kind, parsed once at the core's edge (:data:`BODIES`, a
:class:`~splitnet.game.bodies.BodyKinds`) and dispatched by type. A parser checks the
body alone — its keys, the types of its fields; what depends on the game's state (whose
turn, which slots are due) is the core's to check, on the typed value. What a body
carries for the fair deck stays the deck's message (``deck``), which the deck checks.

Shares and reveals keep their ``slots`` loose (None: not a list of ints): the core refuses
such a body with the same words as slots that are not the ones due.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from splitnet.game.bodies import (
    SHARED_PARSERS,
    AbandonBody,
    BodyKinds,
    ChatBody,
    DeckBody,
    DeckMessage,
    RawBody,
    TimeoutBody,
    deck_parser,
    int_list,
    round_of,
    without,
)
from splitnet.game.table import GameError, IntPath
from splitnet.games.split.rules import Action, action_from_dict

__all__ = ["BODIES", "INT_FIELDS", "KINDS", "MOVE_INTS", "AbandonBody", "AccuseBody",
           "AlarmBody", "ChatBody", "CommitBody", "MoveBody", "OpenBody", "ProveBody",
           "RevealBody", "SharesBody", "ShuffleBody", "SplitBody", "TimeoutBody",
           "parse", "parse_move"]

#: The int fields of a move (GAME.md "move and reveal": rules/actions.py's wire form).
MOVE_INTS = ("seat", "index", "a", "b", "slot", "match_id", "covers", "target", "give", "take")
_ROUND: IntPath = ("round",)
#: Every int field of each kind's body (GAME.md "Message kinds", "Integer fields"): none of
#: them ever holds a bool (WIRE.md §4), checked before anything else of the entry.
INT_FIELDS: dict[str, tuple[IntPath, ...]] = {
    "commit": (_ROUND,), "shuffle": (_ROUND,), "shares": (_ROUND, ("slots", "*")),
    "move": (_ROUND, *(("move", f) for f in MOVE_INTS)),
    "reveal": (_ROUND, ("slots", "*")), "alarm": (_ROUND,), "open": (_ROUND,), "chat": (),
    "timeout": (_ROUND, ("seat",), ("waited",)), "accuse": (_ROUND,),
    "abandon": (_ROUND, ("seat",), ("waited",)), "prove": (_ROUND,),
}


@dataclass(frozen=True, slots=True)
class CommitBody(DeckBody):
    """A seat's deck commitment (DECK.md ``commit``)."""


@dataclass(frozen=True, slots=True)
class ShuffleBody(DeckBody):
    """A hop of the deck, with its proof when the header asks for them."""


@dataclass(frozen=True, slots=True)
class OpenBody(DeckBody):
    """A seat's round seed, opened for the audit."""


@dataclass(frozen=True, slots=True)
class ProveBody(DeckBody):
    """The late proof of a seat's hop (GAME.md "abandon" step 2)."""


@dataclass(frozen=True, slots=True)
class SharesBody:
    """Deal or draw shares: ``slots`` (None: not a list of ints), ``count`` the shares it
    carries (None: ``shares`` is not a list), the deck's message."""

    round: int
    purpose: Literal["deal", "draw"]
    slots: tuple[int, ...] | None
    count: int | None
    deck: DeckMessage


@dataclass(frozen=True, slots=True)
class MoveBody:
    """A move (rules/actions.py's wire form, parsed): it carries no share (R8.1)."""

    round: int
    action: Action


@dataclass(frozen=True, slots=True)
class RevealBody:
    """The mover's shares of its ordered move's cards not yet public."""

    round: int
    slots: tuple[int, ...] | None
    deck: DeckMessage


@dataclass(frozen=True, slots=True)
class AlarmBody:
    """A card that decrypts wrongly (without shuffle proofs): every seat opens."""

    round: int
    reason: str


@dataclass(frozen=True, slots=True)
class AccuseBody:
    """The host's signed refusal of the accuser's move, and that move as signed."""

    round: int
    refusal: bytes
    msg: bytes
    sig: bytes


SplitBody = (CommitBody | ShuffleBody | OpenBody | ProveBody | SharesBody | MoveBody
             | RevealBody | AlarmBody | AccuseBody | ChatBody | TimeoutBody | AbandonBody)


def _shares(author: int, raw: RawBody) -> SharesBody:
    purpose = raw.get("purpose")
    if purpose != "deal" and purpose != "draw":
        raise GameError(author, "shares", f"unknown purpose {purpose!r}")
    shares = raw.get("shares")
    return SharesBody(round_of(author, "shares", raw), purpose, int_list(raw.get("slots")),
                      len(shares) if isinstance(shares, list) else None,
                      without(raw, "round", "purpose"))


def parse_move(author: int, raw: RawBody) -> MoveBody:
    """A move's body: exactly round and move, the move in rules/actions.py's wire form."""
    extra = set(raw) - {"round", "move"}
    if extra:
        why = (" (since splitnet/2 a move carries no shares: its cards are revealed by "
               "a reveal once it is in the log)" if "reveal" in extra else "")
        raise GameError(author, "move", f"unexpected field(s) {sorted(extra)}{why}")
    try:
        action = action_from_dict(raw.get("move"))
    except ValueError as e:
        raise GameError(author, "move", str(e)) from e
    return MoveBody(round_of(author, "move", raw), action)


def _reveal(author: int, raw: RawBody) -> RevealBody:
    extra = set(raw) - {"round", "slots", "shares", "proof"}
    if extra:
        raise GameError(author, "reveal", f"unexpected field(s) {sorted(extra)}")
    return RevealBody(round_of(author, "reveal", raw), int_list(raw.get("slots")),
                      without(raw, "round"))


def _alarm(author: int, raw: RawBody) -> AlarmBody:
    reason = raw.get("reason")
    if set(raw) != {"round", "reason"} or not isinstance(reason, str):
        raise GameError(author, "alarm", "an alarm is exactly round and reason, a string")
    return AlarmBody(round_of(author, "alarm", raw), reason)


def _accuse(author: int, raw: RawBody) -> AccuseBody:
    def false(why: str) -> GameError:
        return GameError(author, "accuse", f"not an accusation of the host: {why}")

    if set(raw) != {"round", "refusal", "msg", "sig"}:
        raise false("an accusation has exactly round, refusal, msg and sig")
    refusal, msg, sig = raw["refusal"], raw["msg"], raw["sig"]
    if not (isinstance(refusal, bytes) and isinstance(msg, bytes) and isinstance(sig, bytes)):
        raise false("refusal, msg and sig are bytes")
    return AccuseBody(round_of(author, "accuse", raw), refusal, msg, sig)


#: Split's kinds: each one's parser and int fields
BODIES: BodyKinds[SplitBody] = BodyKinds(
    # the deck's message of a commit, hop, opening or hop proof: the body less its round
    # (the deck refuses any other key; only shares carry a purpose)
    {"commit": deck_parser(CommitBody, "commit"),
     "shuffle": deck_parser(ShuffleBody, "shuffle"), "shares": _shares,
     "move": parse_move, "reveal": _reveal, "alarm": _alarm,
     "open": deck_parser(OpenBody, "open"), "prove": deck_parser(ProveBody, "prove"),
     "accuse": _accuse, **SHARED_PARSERS},
    INT_FIELDS)
#: Split's message kinds (GAME.md "Message kinds")
KINDS = ("commit", "shuffle", "shares", "move", "reveal", "alarm", "open", "chat", "timeout",
         "accuse", "abandon", "prove")
assert set(KINDS) == set(BODIES.parsers) == set(INT_FIELDS)

#: the typed body of an entry (:meth:`~splitnet.game.bodies.BodyKinds.parse`)
parse = BODIES.parse
