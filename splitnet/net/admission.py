"""Who may connect to the host, and as what (protocol/NETWORK.md §3, §11.7), sans-IO:
a connection slot for a fresh connection, then, once its hello is checked, one verdict
from the host's phase and what the hello's key holds here.

A fresh connection's slot (:func:`slot_for`; §3.5)::

    free slot ─────────────────────────────────▶ TAKE  (join-code handshake)
    none free, one still in its handshake ─────▶ EVICT (the oldest of those: busy)
    none free, every one past its handshake ───▶ BUSY  (this one)

A hello's verdict (:data:`RULES`, then :func:`decide`'s finer checks)::

                 │ NEW key          │ MEMBER's key     │ SEAT's key
    ─────────────┼──────────────────┼──────────────────┼─────────────────────
    LOBBY        │ JOIN (or full)   │ BACK (replaces)  │      —
    CLOSED       │ closed           │ closed           │      —
    REMATCH      │ REMATCH (its machine, §11.6, decides: a stranger is refused)
    GAME         │ started          │      —           │ RESEAT (or fork)
    CALLED_OFF   │ started          │      —           │ closed

Before the table, in every phase but ``REMATCH`` (whose machine checks it itself), a
hello naming another game than the host's is refused (``unknown-game``). The host's own
key, a wrong version, channel binding or signature never get this far
(:func:`check_hello`). The decision is a function of the host's state
(:class:`AdmissionView`, a snapshot the host makes) and the hello alone: it changes
nothing, and the host does what the returned outcome says.

>>> view = AdmissionView(Phase.LOBBY, taken=("Host", "Ana"), accepting=True, limit=6)
>>> def hello(name, game=None):  # (decide reads no signature: check_hello did)
...     return Hello(NET_PROTOCOL, name, b"k" * 32, b"", game, 0, None, None)
>>> decide(view, hello("ana"))
JoinLobby(name='ana-2')
>>> decide(view, hello("Bo", game=b"g" * 16)).error.code.value
'unknown-game'
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Final

from splitnet.net.frames import Hello
from splitnet.net.wire import NET_PROTOCOL, ErrorCode, WireError, verify_hello

#: how many keys let into a lobby the host remembers, to let their reconnects past the
#: join-code limits after their connection dropped (only someone with the code adds one)
MAX_ADMITTED = 64


# ---------------------------------------------------------------------- slots
class Slot(Enum):
    TAKE = "take"  #: a slot is free: the connection starts its handshake
    EVICT = "evict"  #: the oldest connection still in the join-code handshake makes room
    BUSY = "busy"  #: every slot is past the join code (invited players): this one waits


def slot_for(securing: int, greeting: int, max_conns: int) -> Slot:
    """A fresh connection's slot, with ``securing`` connections in the join-code
    handshake and ``greeting`` past it whose hello is not accepted yet: at most
    ``max_conns`` in all (lobby members and seats use none).

    >>> slot_for(3, 4, 8).name, slot_for(3, 5, 8).name, slot_for(0, 8, 8).name
    ('TAKE', 'EVICT', 'BUSY')
    """
    if securing + greeting < max_conns:
        return Slot.TAKE
    return Slot.EVICT if securing else Slot.BUSY


# ---------------------------------------------------------------------- the hello
def check_hello(hello: Hello, nonce: bytes, bind: bytes | None,
                host_key: bytes) -> WireError | None:
    """The hello's own checks (§3 step 3), before anything reads its key: this
    protocol, this very connection's binding, its signature over our challenge, not
    the host's own key. The fatal refusal, or None."""
    if hello.v != NET_PROTOCOL:
        return WireError(ErrorCode.VERSION, f"this host speaks {NET_PROTOCOL}, not "
                         f"{hello.v!r}", fatal=True)
    if hello.bind != bind:
        return WireError(ErrorCode.AUTH, "the hello was signed for another encrypted "
                         "connection (its channel binding differs from ours): someone who "
                         "knows the join code sits between this joiner and the host",
                         fatal=True)
    if not verify_hello(hello, nonce, host_key):
        return WireError(ErrorCode.AUTH, "the hello signature does not verify", fatal=True)
    if hello.key == host_key:
        return WireError(ErrorCode.AUTH, "that is the host's own key", fatal=True)
    return None


class Phase(Enum):
    LOBBY = "lobby"  #: the lobby takes players
    CLOSED = "closed"  #: the host closed its lobby (it stops)
    REMATCH = "rematch"  #: a rematch lobby: its own machine admits (§11.6)
    GAME = "game"  #: a game was started (running, resumed after a restart, or over)
    CALLED_OFF = "called-off"  #: the game was called off before it began (§4)


class Who(Enum):
    NEW = "new"  #: a key that holds no place here
    MEMBER = "member"  #: the key of a lobby member (back on a new connection)
    SEAT = "seat"  #: the key of a guest seat of the game (of the finished one: rematch)


class Verdict(Enum):
    JOIN = "join"  #: a new lobby member, if there is room
    BACK = "back"  #: the member's new connection replaces its old one
    RESEAT = "reseat"  #: the seat's new connection, after the fork checks
    REMATCH = "rematch"  #: the rematch lobby decides
    CLOSED = "closed"  #: refused: the lobby is closed, or the game called off
    STARTED = "started"  #: refused: the game started without this key


_P, _W, _V = Phase, Who, Verdict
RULES: Final[Mapping[tuple[Phase, Who], Verdict]] = {
    (_P.LOBBY, _W.NEW): _V.JOIN,
    (_P.LOBBY, _W.MEMBER): _V.BACK,
    (_P.CLOSED, _W.NEW): _V.CLOSED,
    (_P.CLOSED, _W.MEMBER): _V.CLOSED,
    (_P.REMATCH, _W.NEW): _V.REMATCH,
    (_P.REMATCH, _W.SEAT): _V.REMATCH,
    (_P.GAME, _W.NEW): _V.STARTED,
    (_P.GAME, _W.SEAT): _V.RESEAT,
    (_P.CALLED_OFF, _W.NEW): _V.STARTED,
    (_P.CALLED_OFF, _W.SEAT): _V.CLOSED,
}


@dataclass(frozen=True)
class AdmissionView:
    """What the host's decision on a hello reads of its state (a snapshot)."""

    phase: Phase
    #: the lobby: its members' keys, the names taken (the host's first), room for one
    #: more, and how many players it takes
    members: frozenset[bytes] = frozenset()
    taken: tuple[str, ...] = ()
    accepting: bool = False
    limit: int = 0
    #: a game (or the finished game of a rematch lobby): its id, its guest seats by key,
    #: each seat's name
    game: bytes | None = None
    seats: Mapping[bytes, int] = field(default_factory=dict)
    names: tuple[str, ...] = ()
    #: a game: the records in the host's log, the hash of record i, whether the host
    #: orders (False: restarted, waiting for its seats), why it was called off
    count: int = 0
    hash_at: Callable[[int], bytes] | None = None
    ready: bool = True
    called_off_why: str = ""

    def who(self, key: bytes) -> Who:
        if self.phase in (Phase.LOBBY, Phase.CLOSED):
            return Who.MEMBER if key in self.members else Who.NEW
        return Who.SEAT if key in self.seats else Who.NEW


# ---------------------------------------------------------------------- outcomes
@dataclass(frozen=True)
class Refused:
    """Refuse the hello (fatal); ``name``: the seat's name to log it under."""

    error: WireError
    name: str | None = None


@dataclass(frozen=True)
class JoinLobby:
    """A new lobby member, under ``name`` (made distinct from the names taken)."""

    name: str


@dataclass(frozen=True)
class BackToLobby:
    """A member's new connection: it replaces the old one, under the hello's name."""

    name: str


@dataclass(frozen=True)
class ToRematch:
    """A rematch lobby's hello: its machine decides (:meth:`RematchLobby.arrive`)."""


@dataclass(frozen=True)
class BackToSeat:
    """A seat's new connection, under its name of the game; ``need``: the records
    ``[from, to)`` a restarted host lost and asks it back for (else it is sent the
    records from its ``have`` on)."""

    seat: int
    name: str
    need: tuple[int, int] | None


Outcome = Refused | JoinLobby | BackToLobby | ToRematch | BackToSeat


def decide(view: AdmissionView, hello: Hello) -> Outcome:
    """The host's verdict on a checked hello (:func:`check_hello`): module docstring."""
    if view.phase is not Phase.REMATCH and hello.game is not None and hello.game != view.game:
        if view.game is None:
            return Refused(WireError(ErrorCode.UNKNOWN_GAME, f"no game {hello.game.hex()} "
                                     "here (this host is in its lobby)", fatal=True))
        return Refused(WireError(ErrorCode.UNKNOWN_GAME, f"this host plays game "
                                 f"{view.game.hex()}, not {hello.game.hex()}", fatal=True))
    match RULES[(view.phase, view.who(hello.key))]:
        case Verdict.REMATCH:
            return ToRematch()
        case Verdict.STARTED:
            return Refused(WireError(ErrorCode.STARTED, "the game has started without this "
                                     "player", fatal=True))
        case Verdict.CLOSED:
            if view.phase is Phase.CALLED_OFF:
                return Refused(WireError(ErrorCode.CLOSED, view.called_off_why, fatal=True),
                               view.names[view.seats[hello.key]])
            return Refused(WireError(ErrorCode.CLOSED, "the host closed the game",
                                     fatal=True))
        case Verdict.BACK:
            return BackToLobby(hello.name)
        case Verdict.JOIN:
            if not view.accepting:
                return Refused(WireError(ErrorCode.FULL, f"the table is full ({view.limit} "
                                         "players)", fatal=True))
            return JoinLobby(distinct(hello.name, view.taken))
        case Verdict.RESEAT:
            return _reseat(view, hello)


def _reseat(view: AdmissionView, hello: Hello) -> Outcome:
    seat = view.seats[hello.key]
    name = view.names[seat]
    have, count = hello.have, view.count
    if have > count and view.ready:
        return Refused(WireError(ErrorCode.FORK, f"you hold {have} records but the log has "
                                 f"{count}", fatal=True), name)
    assert view.hash_at is not None
    if 0 < have <= count and view.hash_at(have - 1) != hello.head:
        return Refused(WireError(ErrorCode.FORK, f"your record {have - 1} differs from the "
                                 "host's", fatal=True), name)
    return BackToSeat(seat, name, (count, have) if have > count else None)


def distinct(name: str, taken: Collection[str]) -> str:
    """``name``, or ``name-2``, ``name-3``… : not one of ``taken`` (regardless of case).

    >>> distinct("Ana", ["Host", "ana", "Ana-2"])
    'Ana-3'
    """
    low = {x.lower() for x in taken}
    out, k = name, 2
    while out.lower() in low:
        out = f"{name[:28]}-{k}"
        k += 1
    return out


# ---------------------------------------------------------------------- keys let in
class LetIn:
    """The keys let into a lobby, oldest first: its members and those whose connection
    dropped since — at most ``limit``; a member is never forgotten. Their reconnects pass
    the join-code attempt limits (SECURE.md §7).

    >>> k = LetIn(limit=2)
    >>> for key in (b"a", b"b", b"c"):
    ...     k.add(key, members={b"a"})
    >>> sorted(k.keys)
    [b'a', b'c']
    """

    def __init__(self, limit: int = MAX_ADMITTED) -> None:
        self.limit = limit
        self._keys: dict[bytes, None] = {}

    @property
    def keys(self) -> set[bytes]:
        return set(self._keys)

    def add(self, key: bytes, members: Collection[bytes]) -> None:
        """``key`` was let in (now the newest); past ``limit`` the oldest that is not one
        of ``members`` is forgotten."""
        self._keys.pop(key, None)
        self._keys[key] = None
        if len(self._keys) > self.limit:
            old = next((k for k in self._keys if k not in members), None)
            if old is not None:
                del self._keys[old]


def player_keys(game_keys: Collection[bytes] | None, let_in: Collection[bytes],
                members: Collection[bytes]) -> set[bytes]:
    """The identity keys that hold a place here: a game's (or a finished game's, for its
    rematch lobby) guest seats when there is one, else the keys let into the lobby and
    its members. Their reconnects pass the join-code limits (SECURE.md §3, §7)."""
    if game_keys is not None:
        return set(game_keys)
    return set(let_in) | set(members)

