"""A rematch: the next game of the same table, chained to the one before (pure; no I/O).

A table that finished a game may play another with the same seats (the same players,
identity keys and seat order, the same rules): on a LAN if every seat agrees
(protocol/NETWORK.md §13), in ``splitnet play`` when the person asks for it. That game
is a normal game with its own id and transcript; its header's ``settings`` carry one
more key (protocol/GAME.md "Rematch")::

    "rematch": {"game": <previous game id, bin 16>,
                "head": <hash of the previous game's last record, bin 32>,
                "first_dealer": <seat dealing round 1>}

and round 1's dealer is that seat (R3.2 [decision]: the previous game's first dealer's
left neighbour; a game that is no rematch has no such key and seat 0 deals first).

A game whose rules name their dealer themselves — Splito's ``dealer`` setting (S4.1,
S13) — carries it there too: the rematch's ``rules.dealer`` is its ``first_dealer``
(docs/SPLITO.md S4.1 [decision]: the previous dealer's left neighbour), the one rule a
rematch changes; each game's spec says whether its rules do so (``dealer_setting``,
:mod:`splitnet.games`). :func:`rematch_settings` makes the rematch's settings map from
the previous game's, for every game (a Splito rematch on this machine has the same
header as one on the LAN).

Every peer checks a rematch header against the game it has just finished
(:func:`check_follows`) before it accepts it, and ``splitnet verify`` does the same when
given both transcripts: a header that does not follow is refused in one line naming the
field.

>>> from splitnet.session.log import Header, Player
>>> ps = tuple(Player(i, n, bytes([i + 1]) * 32) for i, n in enumerate(["Ana", "Bo", "Cy"]))
>>> g1 = Header(b"\\x01" * 16, 0, ps, {"protocol": "splitnet/2", "rules": {}})
>>> nxt = next_game(g1, b"\\xaa" * 32)
>>> nxt.first_dealer, first_dealer(g1.settings)
(1, 0)
>>> g2 = Header(b"\\x02" * 16, 0, ps, {**g1.settings, "rematch": nxt.to_dict()})
>>> check_follows(g1, b"\\xaa" * 32, g2)
>>> next_game(g2, b"\\xbb" * 32).first_dealer
2
>>> bad = Header(b"\\x02" * 16, 0, ps, {**g1.settings, "rematch": {**nxt.to_dict(),
...                                                               "first_dealer": 0}})
>>> try:
...     check_follows(g1, b"\\xaa" * 32, bad)
... except RematchError as e:
...     print(str(e)[:72])
header.settings.rematch.first_dealer: expected seat 1 (the previous game
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from splitnet.errors import SplitnetError
from splitnet.session.log import GAME_ID_LEN, HASH_LEN, Header

__all__ = ["REMATCH_KEY", "PreviousGame", "Rematch", "RematchError",
           "check_follows", "dealer_rule", "first_dealer", "next_dealer", "next_game",
           "parse_rematch", "rematch_settings"]

#: the optional key of a header's ``settings`` that makes a game a rematch
REMATCH_KEY: Final = "rematch"
_FIELDS: Final = ("first_dealer", "game", "head")


class RematchError(SplitnetError):
    """A rematch header that is malformed or does not follow the previous game; the
    message names the field."""


@dataclass(frozen=True)
class Rematch:
    """What a rematch header says of the game before it."""

    game: bytes  #: the previous game's id
    head: bytes  #: the hash of the previous game's last record (its final head)
    first_dealer: int  #: who deals round 1 of this game (R3.2)

    def to_dict(self) -> dict[str, object]:
        return {"first_dealer": self.first_dealer, "game": self.game, "head": self.head}


def parse_rematch(settings: Mapping[str, object]) -> Rematch | None:
    """The ``rematch`` of a header's settings map, or None (no rematch); RematchError for
    a malformed one (a shape check: whether it follows needs the previous game)."""
    raw = settings.get(REMATCH_KEY)
    if raw is None and REMATCH_KEY not in settings:
        return None
    where = f"header.settings.{REMATCH_KEY}"
    if not isinstance(raw, Mapping):
        raise RematchError(f"{where}: expected a map with keys {', '.join(_FIELDS)}")
    for key in raw:
        if key not in _FIELDS:
            raise RematchError(f"{where}: unknown key {str(key)[:32]!r}")
    missing = [k for k in _FIELDS if k not in raw]
    if missing:
        raise RematchError(f"{where}: missing {', '.join(missing)}")
    game, head, dealer = raw["game"], raw["head"], raw["first_dealer"]
    if type(game) is not bytes or len(game) != GAME_ID_LEN:
        raise RematchError(f"{where}.game: expected {GAME_ID_LEN} bytes (a game id)")
    if type(head) is not bytes or len(head) != HASH_LEN:
        raise RematchError(f"{where}.head: expected {HASH_LEN} bytes (a record hash)")
    if type(dealer) is not int or not 0 <= dealer < 16:
        raise RematchError(f"{where}.first_dealer: expected a seat number")
    return Rematch(game, head, dealer)


def _dealer_key(settings: Mapping[str, object]) -> tuple[str, str] | None:
    """For a game whose ``rules`` name the first dealer themselves (its spec's
    ``dealer_setting``, splitnet.games): that key of ``rules`` and the rule that says so.
    Any other (Split, whose header has no ``game``) deals first from seat 0 or the
    rematch's first dealer (R3.2)."""
    from splitnet.games import game_of

    spec = game_of(settings)
    return None if spec.dealer_setting is None else (spec.dealer_setting, spec.dealer_rule)


def dealer_rule(settings: Mapping[str, object]) -> str:
    """The rule that says who deals first in the game of this settings map: its spec's
    ``dealer_rule`` (Split R3.2, Splito S4.1; a game whose rules name no dealer has its
    own rule too, not Split's)."""
    from splitnet.games import game_of

    return game_of(settings).dealer_rule


def first_dealer(settings: Mapping[str, object], n: int | None = None) -> int:
    """Round 1's dealer of the game with this header settings map: 0 or the rematch's
    ``first_dealer`` (R3.2); for a game whose rules name the dealer (Splito, S4.1) that
    setting, which a rematch's ``first_dealer`` must equal. Checked to be one of the
    ``n`` seats when given (RematchError naming the field)."""
    r = parse_rematch(settings)
    key = _dealer_key(settings)
    where = f"header.settings.{REMATCH_KEY}.first_dealer"
    if key is not None:
        rules = settings.get("rules")
        d = rules.get(key[0]) if isinstance(rules, Mapping) else None
        if type(d) is not int:
            raise RematchError(f"header.settings.rules.{key[0]}: expected a seat number "
                               f"({key[1]})")
        if r is not None and r.first_dealer != d:
            raise RematchError(f"{where}: seat {r.first_dealer}, but the rules' {key[0]} "
                               f"is seat {d} (the rematch's first dealer deals, {key[1]})")
        if r is None:
            where = f"header.settings.rules.{key[0]}"
    else:
        d = 0 if r is None else r.first_dealer
    if n is not None and not 0 <= d < n:
        raise RematchError(f"{where}: seat {d} is not among the {n} players")
    return d


def next_game(prev: Header, prev_head: bytes) -> Rematch:
    """The ``rematch`` of the game after ``prev``, whose log ended at ``prev_head``: the
    first deal passes to the left (R3.2; Splito S4.1 [decision])."""
    return Rematch(prev.game_id, prev_head, next_dealer(prev))


def next_dealer(prev: Header) -> int:
    """Who deals first in the rematch of ``prev``: its first dealer's left neighbour."""
    n = len(prev.players)
    return (first_dealer(prev.settings, n) + 1) % n


def rematch_settings(prev: Header, prev_head: bytes) -> dict[str, Any]:
    """The header settings map of the rematch of ``prev`` (whose log ended at
    ``prev_head``): the previous game's, with ``rematch`` naming it (:func:`next_game`)
    and, for a game whose rules name the dealer (its spec's ``dealer_setting``), that rule set
    to the new first dealer. Nothing else changes (GAME.md "Rematch")."""
    r = next_game(prev, prev_head)
    out: dict[str, Any] = {k: v for k, v in prev.settings.items() if k != REMATCH_KEY}
    key = _dealer_key(prev.settings)
    if key is not None:
        rules = prev.settings["rules"]
        assert isinstance(rules, Mapping)
        out["rules"] = {**rules, key[0]: r.first_dealer}
    out[REMATCH_KEY] = r.to_dict()
    return out


def _kept(settings: Mapping[str, object]) -> dict[str, object]:
    """What a rematch keeps of a settings map: all but ``rematch`` and the game's dealer
    rule (its spec's ``dealer_setting``)."""
    out = {k: v for k, v in settings.items() if k != REMATCH_KEY}
    key = _dealer_key(settings)
    rules = out.get("rules")
    if key is not None and isinstance(rules, Mapping):
        out["rules"] = {k: v for k, v in rules.items() if k != key[0]}
    return out


def check_follows(prev: Header, prev_head: bytes, new: Header) -> None:
    """Refuse (RematchError naming the field) a header ``new`` that is not the rematch of
    the game ``prev`` whose log ended at ``prev_head``: the same seats (names, keys, seat
    order, host), the same settings, and a ``rematch`` naming that game, that head and
    the next first dealer."""
    r = parse_rematch(new.settings)
    if r is None:
        raise RematchError(f"header.settings.{REMATCH_KEY}: missing (this header does not "
                           f"name game {prev.game_id.hex()} as the game before it)")
    if new.game_id == prev.game_id:
        raise RematchError("header.game_id: the same id as the previous game (a rematch is "
                           "a new game)")
    if len(new.players) != len(prev.players):
        raise RematchError(f"header.players: {len(new.players)} seats, the previous game "
                           f"had {len(prev.players)}")
    for p, q in zip(new.players, prev.players, strict=True):
        if p.key != q.key:
            raise RematchError(f"header.players[{p.seat}].key: not the identity key of that "
                               "seat in the previous game (a rematch keeps the seats)")
        if p.name != q.name:
            raise RematchError(f"header.players[{p.seat}].name: {p.name[:32]!r}, the previous "
                               f"game's is {q.name[:32]!r}")
    if new.host != prev.host:
        raise RematchError(f"header.host: seat {new.host}, the previous game's host was "
                           f"seat {prev.host}")
    kept_new, kept_prev = _kept(new.settings), _kept(prev.settings)
    for key in sorted(set(kept_new) | set(kept_prev), key=str):
        if kept_new.get(key) != kept_prev.get(key):
            raise RematchError(f"header.settings.{str(key)[:32]}: differs from the previous "
                               "game's (a rematch keeps the rules)")
    where = f"header.settings.{REMATCH_KEY}"
    if r.game != prev.game_id:
        raise RematchError(f"{where}.game: names game {r.game.hex()}, not the previous game "
                           f"{prev.game_id.hex()}")
    if r.head != prev_head:
        raise RematchError(f"{where}.head: not the hash of the previous game's last record "
                           f"({prev_head.hex()[:16]}…)")
    want = next_game(prev, prev_head).first_dealer
    rule = dealer_rule(prev.settings)
    if r.first_dealer != want:
        was = first_dealer(prev.settings)
        raise RematchError(f"{where}.first_dealer: expected seat {want} (the previous game's "
                           f"first dealer {was} + 1, {rule}), got {r.first_dealer}")
    first_dealer(new.settings, len(new.players))  # (a dealer rule must say the same)


@dataclass(frozen=True)
class PreviousGame:
    """A finished game a rematch follows: its header and final head."""

    header: Header
    head: bytes

    @property
    def game_id(self) -> bytes:
        return self.header.game_id

    @property
    def n(self) -> int:
        return len(self.header.players)

    def seat_of(self, key: bytes) -> int | None:
        """The seat this identity key held (and holds again in the rematch), or None."""
        return next((p.seat for p in self.header.players if p.key == key), None)

    def next(self) -> Rematch:
        """The rematch of this game (:func:`next_game`)."""
        return next_game(self.header, self.head)

    def check_offer(self, game: bytes, head: bytes, dealer: int) -> None:
        """Refuse (RematchError naming the field) a host's rematch offer that is not for
        this game, its final head and the next first dealer (NETWORK.md §13)."""
        want = self.next()
        if game != want.game:
            raise RematchError(f"rematch.game: the offer is for game {game.hex()}, not the "
                               f"game we finished ({want.game.hex()})")
        if head != want.head:
            raise RematchError("rematch.head: not the hash of the last record of the game "
                               "we finished (the host's log ended elsewhere)")
        if dealer != want.first_dealer:
            raise RematchError(f"rematch.first_dealer: expected seat {want.first_dealer} "
                               f"({dealer_rule(self.header.settings)}), got {dealer}")
