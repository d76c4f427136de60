"""The games a table can run, each looked up once by its key (as python-chess finds a
variant by its name): every layer above a game's own modules — the network's table and
lobby, the verifier, the saved games, the command line — asks :func:`game_of` (a
header's settings map) or :func:`by_key` (a ``--game`` value, a lobby's ``game``
frame) for the :class:`GameSpec` and calls it; none of them compares a game's name
(``tests/test_layering.py`` walks the code for such a comparison).

A spec only names what a table needs to know of a game: its seats, how its header is
checked, how a seat's core is built from that header (:class:`Seating`), what
:func:`~splitnet.net.store.SeedStore.check_log` pledges by, and the verifier's core of no
seat. Its functions import the game's modules when called, so looking a game up costs
nothing (``splitnet host --help`` stays light) and this package, below the network
layer, depends on no front end.

Split is the first game: its header has no ``game`` key and its lobby and announcement
name no game (the wire it has always had); every later game is named there by its key.

Split and Splito are built in (:data:`GAMES`, :data:`BY_KEY`); a game that lives outside
this package is added by :func:`register` (or for a block, :func:`registered`), and the
lookups above find it as they find those two (docs/ADDING_A_GAME.md, written from the
example game the tests add).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, Protocol

from splitnet.game.table import MoveBook, PlayBook, PledgeBook

if TYPE_CHECKING:
    from splitnet.game.checks import HopChecker
    from splitnet.game.table import NetCore
    from splitnet.session.log import Entry, Header


class SeatSecrets(PledgeBook, PlayBook, MoveBook, Protocol):
    """What a seat's core keeps and re-reads across a restart (the network's
    :class:`~splitnet.net.store.SeedStore` is one): its round seeds, pledges, and the
    plays or moves it chose (each game's core uses the books it needs)."""

    def seed(self, round_no: int) -> bytes: ...


@dataclass(frozen=True)
class Seating:
    """What a seat's core is built from: the game's header, the seat (None: a core of no
    seat, what a verifier applies the entries to), its secrets (None for no seat), and
    the proof checker from above (None: each check runs in the caller's thread)."""

    header: Header
    seat: int | None
    secrets: SeatSecrets | None = None
    checker: HopChecker | None = None


@dataclass(frozen=True)
class SeatGame:
    """A seat's core, as :attr:`GameSpec.seat` builds it, with what the table tells of
    the header: whether the deck is dealt with shuffle proofs, and round 1's dealer."""

    core: NetCore
    proofs: bool
    first_dealer: int


@dataclass(frozen=True)
class Ending:
    """What a verifier's core of no seat tells at the end of a transcript (``splitnet
    verify``, protocol/TRANSCRIPT.md §10), in its game's words: ``record`` once the game
    is over (else where it stopped, ``stopped_at``: "in round 2 (play)"), ``fault`` if
    the record fails the game's own referee, and the lines the verdict prints between
    the common ones (the game, the entries, a rematch's line) and "shuffle fair: yes":
    ``lines``; ``title`` goes before the player count ("Splito, "), ``dealt`` after the
    rematch's first dealer ("dealt first (R3.2)")."""

    record: dict[str, Any] | None
    stopped_at: str = ""
    partial: dict[str, Any] | None = None
    fault: str | None = None
    title: str = ""
    dealt: str = ""
    lines: tuple[str, ...] = ()


@dataclass(frozen=True)
class GameSpec:
    """One game, as every layer above its own modules sees it.

    ``key``: the header's ``game`` (absent for the first game, Split) and ``--game``'s
    value; ``title`` its name in words; ``min_players``…``max_players`` seats by
    ``seat_rule``; ``named``: the lobby sends a ``game`` frame and the LAN announcement
    names it (NETWORK.md §4; False only for Split, whose wire is as it always was).
    ``check_header(settings, players)`` raises ValueError for a header settings map no
    table can run with that many players (None: any count its rules allow);
    ``default_header(players, proofs)`` is the header's settings map of a game of its
    standard rules for that many players (what a host offers when told nothing else);
    ``seat(seating)`` builds a seat's core; ``pledge_position(kind, body)`` is the
    position a seat pledged at before it made such an entry (GAME.md "Pledges");
    ``record_format`` is the ``format`` of its game record; ``progress(settings,
    entries, players)`` says in a few words how far a saved game got ("round 2 of 3");
    ``ending(core, names)`` what a verifier's core of no seat tells at the end of a
    transcript (:class:`Ending`, the players' names already made safe to print)."""

    key: str
    title: str
    min_players: int
    max_players: int
    seat_rule: str
    named: bool
    check_header: Callable[[Mapping[str, Any], int | None], None]
    default_header: Callable[[int, bool], dict[str, Any]]
    seat: Callable[[Seating], SeatGame]
    pledge_position: Callable[[str, dict[str, Any]], tuple[int, str] | None]
    record_format: str
    progress: Callable[[object, Sequence[Entry], int], str]
    ending: Callable[[Any, Sequence[str]], Ending]
    #: the rule that says who deals first, and the key of the header's ``rules`` that
    #: names that seat (None: seat 0, or a rematch's ``first_dealer``, R3.2)
    dealer_rule: str = "R3.2"
    dealer_setting: str | None = None
    #: a seat pledges each move it chooses before it leaves (GAME.md "Pledges"), so a
    #: refusal of a legal move that is not the host's valid signed refusal at the seat's
    #: head is kept as evidence against the host (False: a move is a commitment, kept as
    #: it is; a bad refusal is only logged)
    moves_pledged: bool = False
    #: a kept move's wire form checked as a seat's secrets file is read (ValueError: not
    #: a move of this game; GAME.md "Pledges"), for a game whose moves are pledged
    check_move: Callable[[dict[str, Any]], None] | None = None
    #: its own modules (under ``splitnet``): the only ones that may branch on its key
    modules: tuple[str, ...] = ()


def _games() -> tuple[GameSpec, ...]:
    from splitnet.games.split import SPLIT
    from splitnet.games.splito import SPLITO

    return (SPLIT, SPLITO)


#: the built-in games, the first (Split) first: what a header without ``game`` plays
GAMES: Final = _games()
#: each built-in game by its key
BY_KEY: Final = {g.key: g for g in GAMES}
#: the game a header without a ``game`` key plays, and a host's unless told otherwise
FIRST: Final = GAMES[0]

#: the games registered from outside this package (:func:`register`), by key, in the
#: order they were registered
_ADDED: dict[str, GameSpec] = {}


def register(spec: GameSpec) -> None:
    """Add a game that lives outside this package (docs/ADDING_A_GAME.md): from then on
    :func:`by_key`, :func:`game_of`, :func:`game_of_record` and :func:`games` find it, as
    they find the built-in ones. ValueError if its key or its record's format is taken,
    or it names no key (a header without ``game`` is the first game's)."""
    if not spec.key or spec.key in BY_KEY or spec.key in _ADDED:
        raise ValueError(f"game key {spec.key!r} is taken (or empty)")
    if any(g.record_format == spec.record_format for g in games()):
        raise ValueError(f"record format {spec.record_format!r} is another game's")
    if not spec.named:
        raise ValueError("an added game is named in its header and lobby (named=True)")
    _ADDED[spec.key] = spec


def unregister(key: str) -> None:
    """Take a game :func:`register` added away again (KeyError: none by that key; a
    built-in game cannot be taken away)."""
    del _ADDED[key]


@contextmanager
def registered(spec: GameSpec) -> Iterator[GameSpec]:
    """The game registered for the ``with`` block only (a test's: no other sees it)."""
    register(spec)
    try:
        yield spec
    finally:
        if _ADDED.get(spec.key) is spec:  # (unless the block took it away itself)
            del _ADDED[spec.key]


def games() -> tuple[GameSpec, ...]:
    """Every game a table here runs: the built-in ones (:data:`GAMES`), then those
    registered (:func:`register`)."""
    return (*GAMES, *_ADDED.values())


def find(key: object) -> GameSpec | None:
    """The game of a key, or None for one no table here runs."""
    if not isinstance(key, str):
        return None
    return BY_KEY.get(key) or _ADDED.get(key)


def by_key(key: object) -> GameSpec:
    """The game of a key (KeyError for one no table runs)."""
    spec = find(key)
    if spec is None:
        raise KeyError(key)
    return spec


def game_of(settings: object) -> GameSpec:
    """The game a header's settings map names: its ``game`` key's, the first game's
    without one (or for a value no table runs: its header check then refuses it)."""
    key = settings.get("game") if isinstance(settings, Mapping) else None
    return find(key) or FIRST


def game_of_record(record: object) -> GameSpec | None:
    """The game whose record this is (by its ``format``), or None."""
    fmt = record.get("format") if isinstance(record, Mapping) else None
    return next((g for g in games() if g.record_format == fmt), None)
