"""Splito's message bodies after validation (SPLITO_GAME.md §4), sans-IO: one frozen type
per kind, parsed once at the core's edge (:data:`BODIES`, a
:class:`~splitnet.game.bodies.BodyKinds`) and dispatched by type. A parser checks the
body alone — its keys, the types of its fields; what depends on the game's state (the
turn under way, the slots due, the passes due) is the core's to check, on the typed
value. What a body carries for the fair deck stays the deck's message, which the deck
checks (DECK.md); so do the proofs only the crypto can read (a pass's ``pok``, a
complaint's ``key`` and ``proof``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final, Literal

from splitnet.crypto import group
from splitnet.game.bodies import (
    SHARED_PARSERS,
    AbandonBody,
    BodyKinds,
    ChatBody,
    DeckBody,
    DeckMessage,
    RawBody,
    SharesPart,
    TimeoutBody,
    deck_parser,
    round_of,
    without,
)
from splitnet.game.table import GameError, IntPath
from splitnet.games.splito.engine import SIDES, Side
from splitnet.session.codec import is_int

__all__ = ["BODIES", "INT_FIELDS", "KINDS", "AbandonBody", "ChatBody", "CommitBody",
           "ComplainBody", "DealBody", "MoveBody", "OpenBody", "PassBody", "RevealBody",
           "SharesPart", "ShuffleBody", "SplitoBody", "TimeoutBody", "err", "parse"]

KINDS: Final = ("commit", "shuffle", "deal", "move", "reveal", "pass", "complain", "open",
                "chat", "timeout", "abandon")
_ROUND: IntPath = ("round",)
_HEX64: Final = re.compile(r"[0-9a-f]{64}")
#: Every int field of each kind's body (SPLITO_GAME.md §4, "Integer fields"): none of them
#: ever holds a bool (WIRE.md §4), checked before anything else of the entry.
INT_FIELDS: Final[dict[str, tuple[IntPath, ...]]] = {
    "commit": (_ROUND,), "shuffle": (_ROUND,),
    "deal": (_ROUND, ("central", "slots", "*"), ("hands", "slots", "*")),
    "move": (_ROUND, ("turn",)),
    "reveal": (_ROUND, ("turn",), ("slot",), ("share", "slots", "*")),
    "pass": (_ROUND, ("turn",), ("to",)), "complain": (_ROUND, ("turn",), ("from",)),
    "open": (_ROUND,), "chat": (), "timeout": (_ROUND, ("seat",), ("waited",)),
    "abandon": (_ROUND, ("seat",), ("waited",)),
}


def err(seat: int | None, step: str, rule: str, why: str) -> GameError:
    """A refusal citing its rule: ``seat S at STEP: RULE: WHY``."""
    return GameError(seat, step, f"{rule}: {why}")


def _int(author: int, step: str, rule: str, raw: RawBody, key: str, why: str) -> int:
    value = raw[key]
    if not is_int(value):
        raise err(author, step, rule, why.format(value=value))
    assert isinstance(value, int)
    return value


@dataclass(frozen=True, slots=True)
class CommitBody(DeckBody):
    """A seat's key commitment, for both decks (DECK.md ``commit``)."""


@dataclass(frozen=True, slots=True)
class ShuffleBody:
    """A hop of the objective deck or of the card deck (S4.2, S4.3)."""

    round: int
    deck_of: Literal["objectives", "cards"]
    deck: DeckMessage


@dataclass(frozen=True, slots=True)
class DealBody:
    """A seat's deal shares: of the central objectives (None: nil) and of the hands."""

    round: int
    central: SharesPart | None
    hands: SharesPart


@dataclass(frozen=True, slots=True)
class MoveBody:
    """A play's commitment for a turn (S7.3): 64 lowercase hex digits."""

    round: int
    turn: int
    commit: str


@dataclass(frozen=True, slots=True)
class RevealBody:
    """A play opened (S5.3, S7.3): the slot, its card, the side, the commitment's nonce,
    and the dealt holder's share of the slot."""

    round: int
    turn: int
    slot: int
    card: str
    side: Side
    nonce: str
    share: SharesPart


@dataclass(frozen=True, slots=True)
class PassBody:
    """A hand's sealed shares for its next holder (S5.4, SPLITO_GAME.md §6): ``eph`` the
    point's bytes and ``pok`` its proof (both checked as the pass is applied, once it is
    due), ``box`` the sealed shares."""

    round: int
    turn: int
    to: int
    eph: bytes
    pok: object
    box: bytes


@dataclass(frozen=True, slots=True)
class ComplainBody:
    """The key of a box sealed to the complainer, with its proof (checked by the deck)."""

    round: int
    turn: int
    frm: int
    key: object
    proof: object


@dataclass(frozen=True, slots=True)
class OpenBody(DeckBody):
    """A seat's seed, opened after the last turn (S7.5)."""


SplitoBody = (CommitBody | ShuffleBody | DealBody | MoveBody | RevealBody | PassBody
              | ComplainBody | OpenBody | ChatBody | TimeoutBody | AbandonBody)


def _shuffle(author: int, raw: RawBody) -> ShuffleBody:
    which = raw.get("deck_of")
    if which != "objectives" and which != "cards":
        raise GameError(author, "shuffle", 'deck_of must be "objectives" or "cards"')
    return ShuffleBody(round_of(author, "shuffle", raw), which,
                       without(raw, "round", "deck_of"))


def _deal(author: int, raw: RawBody) -> DealBody:
    if set(raw) != {"round", "central", "hands"}:
        raise GameError(author, "deal", "a deal has exactly central and hands")
    central = raw["central"]
    return DealBody(round_of(author, "deal", raw),
                    None if central is None else SharesPart.of(central),
                    SharesPart.of(raw["hands"]))


def _move(author: int, raw: RawBody) -> MoveBody:
    if set(raw) != {"round", "turn", "commit"}:
        raise err(author, "move", "S7.3", "a move is exactly {turn, commit}: the play "
                  "itself is revealed once every seat has committed")
    turn = _int(author, "move", "S7.3", raw, "turn", "a commitment for turn {value!r}: a "
                "turn is an integer")
    digest = raw["commit"]
    if not isinstance(digest, str) or not _HEX64.fullmatch(digest):
        raise err(author, "move", "S7.3", "a commitment is 64 lowercase hex digits")
    return MoveBody(round_of(author, "move", raw), turn, digest)


_REVEAL_KEYS: Final = frozenset({"turn", "slot", "card", "side", "nonce", "share"})


def _reveal(author: int, raw: RawBody) -> RevealBody:
    if set(raw) != {"round", *_REVEAL_KEYS}:
        raise err(author, "reveal", "S7.3", f"a reveal is exactly {sorted(_REVEAL_KEYS)}")
    turn = _int(author, "reveal", "S7.3", raw, "turn", "a reveal for turn {value!r}: a turn "
                "is an integer")
    slot = _int(author, "reveal", "S4.3", raw, "slot", "{value!r} is no dealt card slot")
    card, side, nonce = raw["card"], raw["side"], raw["nonce"]
    if not isinstance(card, str):
        raise err(author, "reveal", "S1.3", f"{str(card)[:20]!r} is no card id")
    sides = [s for s in SIDES if s == side]
    if not sides or not isinstance(side, str) or not isinstance(nonce, str):
        raise err(author, "reveal", "S5.2", "side is left or right; nonce a string")
    return RevealBody(round_of(author, "reveal", raw), turn, slot, card, sides[0], nonce,
                      SharesPart.of(raw["share"]))


def _pass(author: int, raw: RawBody) -> PassBody:
    if set(raw) != {"round", "turn", "to", "eph", "pok", "box"}:
        raise err(author, "pass", "S5.4", "a pass is exactly {turn, to, eph, pok, box}")
    turn = _int(author, "pass", "S5.4", raw, "turn", "turn {value!r} is no integer")
    to = _int(author, "pass", "S5.4", raw, "to", "no pass from seat " + str(author)
              + " to {value!r} is due: to is a seat")
    box, eph = raw["box"], raw["eph"]
    if not isinstance(box, bytes):
        raise err(author, "pass", "S5.4", "the box must be bytes (sealed shares)")
    if not isinstance(eph, bytes):  # a point: decoded as the pass is applied
        raise err(author, "pass", "S5.4", f"eph: expected {group.POINT_BYTES} bytes")
    return PassBody(round_of(author, "pass", raw), turn, to, eph, raw["pok"], box)


def _complain(author: int, raw: RawBody) -> ComplainBody:
    if set(raw) != {"round", "turn", "from", "key", "proof"}:
        raise err(author, "complain", "S5.4", "a complaint is exactly {turn, from, key, "
                  "proof}")
    turn, frm = raw["turn"], raw["from"]
    if not is_int(turn) or not is_int(frm):
        raise err(author, "complain", "S5.4", "no such box was sealed to this seat")
    return ComplainBody(round_of(author, "complain", raw), turn, frm, raw["key"],
                        raw["proof"])


#: Splito's kinds: each one's parser and int fields
BODIES: BodyKinds[SplitoBody] = BodyKinds(
    {"commit": deck_parser(CommitBody, "commit"), "shuffle": _shuffle, "deal": _deal,
     "move": _move, "reveal": _reveal, "pass": _pass, "complain": _complain,
     "open": deck_parser(OpenBody, "open"), **SHARED_PARSERS},
    INT_FIELDS)
assert set(KINDS) == set(BODIES.parsers) == set(INT_FIELDS)

#: the typed body of an entry (:meth:`~splitnet.game.bodies.BodyKinds.parse`)
parse = BODIES.parse
