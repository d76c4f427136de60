"""What every game on the fair table shares, whatever the game (sans-IO): where an entry
stands in the log, the error that names the seat at fault, the pledges a seat makes before
it sends anything derived from its seed on a deck (GAME.md "Pledges"), the checks of the
entries every game takes the same way — the host's ``timeout`` and ``abandon``; their
bodies, and ``chat``'s, are parsed in :mod:`splitnet.game.bodies` — and the shuffle proof
bound to the game (SHUFFLE_PROOF.md). Split's :class:`~splitnet.games.split.core.GameCore` and
Splito's :class:`~splitnet.games.splito.core.SplitoCore` are built on it; the log
(:mod:`splitnet.session.log`) and the deck (:class:`splitnet.crypto.deck.DeckRound`) are
game-agnostic already.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from splitnet.errors import Blame, SplitnetError
from splitnet.session.codec import is_int

if TYPE_CHECKING:
    from splitnet.crypto.split import Splitter
    from splitnet.game.bodies import AbandonBody, TimeoutBody

#: GAME.md "chat": the longest chat text
MAX_CHAT = 500


@dataclass(frozen=True)
class Position:
    """Where an entry stands (or will stand) in the log: its ``seq``, the log head
    ``prev`` before it, its author's ``counter``, and ``seen``: the seq of the entry its
    author had seen when it signed (TRANSCRIPT.md §3; None: not known, as if the author
    signed at ``seq − 1``). ``ordered`` is False while the host only checks a message it
    has not ordered. An ``accuse`` needs ``seq``, ``prev`` and ``counter``; ``seen`` and
    ``ordered`` decide who a refusal names (:func:`overtaken`)."""

    seq: int
    prev: bytes
    counter: int
    seen: int | None = None
    ordered: bool = True


class _Signed(Protocol):
    """A parsed message: signed at which counter, having seen what (session.log)."""

    @property
    def counter(self) -> int: ...

    @property
    def seen(self) -> Any: ...  # a session.log.Seen


class _Ordered(_Signed, Protocol):
    """A log entry: a signed message at its place in the log (session.log.Entry)."""

    @property
    def seq(self) -> int: ...

    @property
    def prev(self) -> bytes: ...


def entry_position(entry: _Ordered) -> Position:
    """The :class:`Position` of an ordered entry."""
    return Position(entry.seq, entry.prev, entry.counter, entry.seen.seq)


def check_position(message: _Signed, seq: int, head: bytes) -> Position:
    """The :class:`Position` a message the host has not ordered yet would take: ``seq`` =
    the log's length, ``head`` its head."""
    return Position(seq, head, message.counter, message.seen.seq, ordered=False)


@contextmanager
def naming(author: int, host: int, at: Position | None) -> Iterator[None]:
    """Around a core's applying of an entry: a GameError out of it names whom
    :func:`overtaken` says (its ``__cause__`` is what it was refused for)."""
    try:
        yield
    except GameError as e:
        if (named := overtaken(e, author, host, at)) is e:
            raise
        raise named  # noqa: B904 — its __cause__ is ``e``


def overtaken(e: GameError, author: int, host: int, at: Position | None) -> GameError:
    """Who a refusal names when the log moved on after the author signed (GAME.md
    "A message the log moved past", SECURITY.md row 112).

    A message the game refuses names its author only if the author signed it at the very
    head it meets (``seen = seq − 1``): then the author saw everything the refusal rests
    on. Signed at an older head, it may have been right when it was made — a move held
    while the host gave the seat up, a commit for a deal since void, an alarm raised as
    another came first. Ordered so, it names the host: only the host orders, and an
    honest host orders nothing its own core refuses. Only checked (not ordered), it names
    nobody: the host refuses it and the author, reading the entries it had not seen,
    does not send it again."""
    if (at is None or at.seen is None or e.seat != author or author == host
            or at.seen >= at.seq - 1):
        return e
    between = (f"entry {at.seen + 1}" if at.seq - at.seen == 2
               else f"entries {at.seen + 1}–{at.seq - 1}")
    since = f"signed at entry {at.seen}, before {between}"
    if at.ordered:
        out = GameError(host, e.step, f"seat {author}'s {e.step} was {since}, and the host "
                        f"ordered it after them although they make it void ({e.reason}): "
                        "only the host orders, and an honest host orders nothing the game "
                        "refuses")
    else:
        out = GameError(None, e.step, f"overtaken: seat {author}'s {e.step} was {since}, "
                        f"which make it void ({e.reason})",
                        text=f"seat {author}'s {e.step} came too late: it was {since}, "
                        f"which make it void ({e.reason})")
    out.__cause__ = e  # what it was refused for (the wire's error code: net/table.py)
    return out


class GameError(Blame):
    """A log entry breaks the game protocol or the rules: ``seat`` is at fault
    (``seat S at STEP: REASON``)."""


class UnknownKind(GameError):
    """A message kind this game does not know (its author is named)."""


class WrongRound(GameError):
    """A game message for another round (or deal) than the one under way."""


class OutOfTurn(GameError):
    """A message or move when it is not its author's turn, or not due now."""


class NotAnInt(GameError):
    """A bool where a game message's body has an int field (WIRE.md §4: a bool is not an
    int): refused before the core looks at anything else of it, naming its author."""


#: Where a kind's body holds an int field: the keys from the body down, ``"*"`` standing
#: for every item of a list (``("slots", "*")``: each slot of ``slots``).
IntPath = tuple[str, ...]


def _int_values(value: object, path: IntPath, where: str) -> list[tuple[str, object]]:
    """(name, value) of every value at ``path`` under ``value`` that is there: a missing
    key or a value of another shape is left to the core's own checks."""
    if not path:
        return [(where, value)]
    key, rest = path[0], path[1:]
    if key == "*":
        if not isinstance(value, list):
            return []
        return [hit for i, item in enumerate(value)
                for hit in _int_values(item, rest, f"{where}[{i}]")]
    if not isinstance(value, dict) or key not in value:
        return []
    return _int_values(value[key], rest, f"{where}.{key}" if where else key)


def check_ints(author: int, kind: str, body: Mapping[str, Any],
               paths: Sequence[IntPath]) -> None:
    """WIRE.md §4 for a game message's body: every field ``kind`` types int (``paths``)
    holds an int, never ``true``/``false`` — which Python's ``True == 1`` would let pass
    every ``==`` check, so one play could be signed in two encodings. Raises
    :class:`NotAnInt` naming ``author`` (the core is unchanged); values of another wrong
    type, and missing fields, are the core's own checks to refuse."""
    for path in paths:
        for where, value in _int_values(dict(body), path, ""):
            if isinstance(value, bool):
                raise NotAnInt(author, kind, f"{where}: expected an int, got "
                               f"{'true' if value else 'false'} (WIRE.md §4: a bool is "
                               "not an int)")


def same_ints(value: object, want: Sequence[int]) -> bool:
    """Is ``value`` exactly the list of ints ``want`` (no bool standing for 0 or 1)?"""
    return (isinstance(value, list) and len(value) == len(want)
            and all(is_int(v) and v == w for v, w in zip(value, want, strict=False)))


class PledgeRefused(GameError):
    """This seat refuses to send a message derived from its seed on a deck other than the
    one it already pledged at that position (round, step). A local refusal, not a verdict
    of the log: the seat stops and sends nothing more. ``seat`` is the host, which served
    the log (a fork of it, or another hop it ordered after a restart)."""

    def __init__(self, host: int, round_no: int, step: str, reason: str) -> None:
        self.round_no = round_no
        super().__init__(host, step, reason,
                         text=f"refused to send our {step} of round {round_no}: {reason} "
                              f"[host seat {host} at fault]")


#: The steps at which a seat pledges a deck: "shuffle" — the deck its hop takes;
#: "shares" — the final deck, which its deal, draw and reveal shares are of; "open" —
#: the final deck of the round whose seed it opens (after that it plays no more in it).
PLEDGE_STEPS = ("shuffle", "shares", "open")


@dataclass(frozen=True)
class Pledge:
    """What must be durable before this seat sends anything derived from its seed on a
    deck: in round ``round_no`` at ``step`` (PLEDGE_STEPS), the deck with
    ``seeds.deck_digest`` ``digest`` (32 bytes)."""

    round_no: int
    step: str
    digest: bytes


class PledgeBook(Protocol):
    """Where a seat's pledges are kept (the node layer: next to its seeds, fsynced)."""

    def pledged(self, round_no: int, step: str) -> bytes | None:
        """The digest pledged at (round, step), or None."""

    def pledge(self, p: Pledge) -> None:
        """Record ``p`` durably; return only once it would survive a power loss."""


class MemoryPledges:
    """A :class:`PledgeBook` in memory: for in-process sessions, where the seat's state
    cannot outlive the process anyway (and for tests, which keep it to "restart")."""

    def __init__(self) -> None:
        self.book: dict[tuple[int, str], bytes] = {}

    def pledged(self, round_no: int, step: str) -> bytes | None:
        return self.book.get((round_no, step))

    def pledge(self, p: Pledge) -> None:
        self.book[(p.round_no, p.step)] = p.digest


@dataclass(frozen=True)
class ChosenPlay:
    """A seat's chosen play of one simultaneous turn (Splito, S7.3): the card slot, the
    side, the card's id, the nonce and the commitment made of them. It must be durable
    before the commitment is sent: a seat restarted between its commitment and its reveal
    opens exactly this play, never another (protocol/SPLITO_GAME.md "Durability")."""

    turn: int
    slot: int
    side: str
    card: str
    nonce: str
    commit: str


class PlayBook(Protocol):
    """Where a seat's chosen plays are kept (the node layer: next to its seeds and
    pledges, fsynced). One play per turn, never replaced."""

    def chosen(self, turn: int) -> ChosenPlay | None:
        """The play chosen for ``turn``, or None."""

    def choose(self, play: ChosenPlay) -> None:
        """Record ``play`` durably (ValueError if another play is kept for its turn);
        return only once it would survive a power loss."""


class MemoryPlays:
    """A :class:`PlayBook` in memory (in-process sessions and tests, as
    :class:`MemoryPledges`)."""

    def __init__(self) -> None:
        self.book: dict[int, ChosenPlay] = {}

    def chosen(self, turn: int) -> ChosenPlay | None:
        return self.book.get(turn)

    def choose(self, play: ChosenPlay) -> None:
        have = self.book.get(play.turn)
        if have is not None and have != play:
            raise ValueError(f"turn {play.turn}: another play is chosen already")
        self.book[play.turn] = play


@dataclass(frozen=True)
class ChosenMove:
    """A Split seat's chosen move at one position (GAME.md "Pledges", R8.1): in round
    ``round_no``, after ``at`` moves of that round were applied, the move ``move`` (its
    wire form, rules/actions.py). It must be durable before the move leaves: the host
    could drop or refuse it and so ask the seat for another — every other choice at the
    same position tells it more of the hand (which hidden cards share a rank). The seat
    sends exactly this move again until it is in the log, and never another at its
    position. The position is the game's, not the log head: a chat ordered in between
    moves the head, not the choice."""

    round_no: int
    at: int
    move: dict[str, Any]


class MoveBook(Protocol):
    """Where a Split seat's chosen move is kept (the node layer: next to its seeds and
    pledges, fsynced). One move per position; a move at a later position supersedes it."""

    def chosen_move(self) -> ChosenMove | None:
        """The last move chosen, or None."""

    def choose_move(self, move: ChosenMove) -> None:
        """Record ``move`` durably (ValueError if another move is kept at its position);
        return only once it would survive a power loss."""


class MemoryMoves:
    """A :class:`MoveBook` in memory (in-process sessions and tests, as
    :class:`MemoryPledges`)."""

    def __init__(self) -> None:
        self.move: ChosenMove | None = None

    def chosen_move(self) -> ChosenMove | None:
        return self.move

    def choose_move(self, move: ChosenMove) -> None:
        have = self.move
        if (have is not None and (have.round_no, have.at) == (move.round_no, move.at)
                and have != move):
            raise ValueError(f"round {move.round_no}: another move is chosen already at "
                             "this position")
        self.move = move


#: the protocol a header's settings name (``protocol``, GAME.md), whatever the game
PROTOCOL = "splitnet/6"

#: the header settings' key of the agreed waits (GAME.md "limits")
LIMITS_KEY = "limits"
#: the largest wait a header may agree (seconds): a week
MAX_LIMIT_S = 7 * 24 * 3600


class LimitsError(SplitnetError):
    """A header's ``limits`` map is not GAME.md's (the message names the field)."""


@dataclass(frozen=True)
class Limits:
    """The waits every seat agrees to in the header (GAME.md "limits"), whole seconds:
    a ``timeout`` of a seat owing a move must say it waited at least ``move_s``, any
    other step ``answer_s``; an ``abandon`` (R8.6) at least ``open_hand_after_s``. The
    host's clock is its word, but a host that gives a seat up sooner than agreed is
    refused by every peer and by ``splitnet verify``; each peer also holds the claim
    against its own clock (NETWORK.md §7)."""

    answer_s: int = 120
    move_s: int = 600
    open_hand_after_s: int = 30

    def to_dict(self) -> dict[str, int]:
        return {"answer_s": self.answer_s, "move_s": self.move_s,
                "open_hand_after_s": self.open_hand_after_s}

    @classmethod
    def from_dict(cls, raw: object) -> Limits:
        """Exactly the three keys, each an integer (never a bool) 0 … MAX_LIMIT_S."""
        keys = ("answer_s", "move_s", "open_hand_after_s")
        if not isinstance(raw, Mapping) or set(raw) != set(keys):
            raise LimitsError(f"header.settings.{LIMITS_KEY}: expected exactly "
                              f"{', '.join(keys)}")
        for k in keys:
            v = raw[k]
            if not is_int(v) or not 0 <= v <= MAX_LIMIT_S:
                raise LimitsError(f"header.settings.{LIMITS_KEY}.{k}: an integer "
                                  f"0…{MAX_LIMIT_S} (seconds)")
        return cls(raw["answer_s"], raw["move_s"], raw["open_hand_after_s"])

    @classmethod
    def of_waits(cls, answer: float, move: float, open_hand: float) -> Limits:
        """The header's limits for a host that waits these many seconds (whole seconds,
        rounded down: a host that waited longer than ``answer`` says a ``waited`` of at
        least its floor)."""
        return cls(min(int(answer), MAX_LIMIT_S), min(int(move), MAX_LIMIT_S),
                   min(int(open_hand), MAX_LIMIT_S))

    def for_step(self, step: str) -> int:
        """The agreed wait for a seat owing ``step`` (GameCore.owed_step)."""
        return self.move_s if step == "move" else self.answer_s


def limits_from_header(raw: Mapping[str, Any]) -> Limits:
    """The agreed waits of a header's settings map (LimitsError names the field)."""
    if LIMITS_KEY not in raw:
        raise LimitsError(f"header.settings: missing {LIMITS_KEY}")
    return Limits.from_dict(raw[LIMITS_KEY])


def check_waited(author: int, step: str, waited: int, limit: int, what: str) -> None:
    """A ``timeout`` or ``abandon`` that claims less than the agreed wait is refused
    naming the host (GAME.md "limits")."""
    if waited < limit:
        raise GameError(author, step, f"a false {what}: it says the game waited {waited} s, "
                        f"less than the {limit} s every seat agreed in the header (limits)")


def check_abandon(author: int, body: AbandonBody, host: int, *, only_host: str,
                  refusal: Callable[[int], str | None], least: int) -> tuple[int, int]:
    """GAME.md "abandon" (Split, R8.6) and SPLITO_GAME.md §4 (Splito, S5.7): the host
    gives ``seat`` up after ``waited`` seconds (``body``: parsed, :mod:`splitnet.game.bodies`).
    Returns (seat, waited) when the game's ``refusal(seat)`` lets it and ``waited`` is at
    least the header's ``least``; else GameError naming the author — ``only_host`` when
    that is not the host, "a false abandonment: …" otherwise. Nothing is changed here."""
    if author != host:
        raise GameError(author, "abandon", only_host)
    why = refusal(body.seat)
    if why is not None:
        raise GameError(author, "abandon", f"a false abandonment: {why}")
    check_waited(author, "abandon", body.waited, least, "abandonment")
    return body.seat, body.waited


def check_timeout(author: int, body: TimeoutBody, host: int,
                  waiting: list[int]) -> tuple[int, int]:
    """GAME.md "timeout": the host says ``seat`` owed a message for ``waited`` seconds
    (``body``: parsed, :mod:`splitnet.game.bodies`). Returns (seat, waited) if the game
    really waits for that seat (``waiting``); else GameError naming the author. Only the
    host orders messages, so only the host can know; it is the host's word
    (protocol/SECURITY.md)."""
    if author != host:
        raise GameError(author, "timeout", "only the host declares a timeout")
    seat = body.seat
    if seat == host or seat not in waiting:
        raise GameError(author, "timeout", f"a false timeout: the game does not wait for "
                        f"seat {seat} (it waits for {waiting})")
    return seat, body.waited


def proof_functions(game_id: bytes, seed: bytes | None,
                    splitter: Splitter | None = None) -> tuple[Any, Any]:
    """The shuffle proof bound to this game's generators (a prover only for a seat with a
    seed). The prover's nonce seed comes from the deck: derived from the round seed and
    the hop's input (DECK.md §4), so transcripts are reproducible and nonces never repeat.
    ``splitter``: the proof's phases, and a check made on arrival, are cut into chunks
    it runs side by side (the peer's helper: both cores; the same bytes)."""
    from splitnet.crypto.shuffle_proof import prove_shuffle, verify_shuffle

    def verify(ctx: bytes, pk: bytes, inputs: Any, outputs: Any, proof: bytes) -> None:
        verify_shuffle(ctx, pk, inputs, outputs, proof, context_game=game_id,
                       splitter=splitter)

    if seed is None:
        return None, verify

    def prove(ctx: bytes, pk: bytes, inputs: Any, outputs: Any, perm: Any, rhos: Any,
              nonce_seed: bytes) -> bytes:
        # The deck layer hands the prover a deck whose points it checked (DeckRound
        # checks every point of a received hop) and the outputs it computed itself.
        return prove_shuffle(ctx, pk, inputs, outputs, perm, rhos, nonce_seed=nonce_seed,
                             context_game=game_id, points_checked=True, splitter=splitter)

    return prove, verify


class NetCore(Protocol):
    """One seat's sans-IO game core as a table drives it, whatever the game (each game's
    :class:`~splitnet.games.GameSpec` builds one: :class:`~splitnet.games.split.core.GameCore` and
    :class:`~splitnet.games.splito.core.SplitoCore` both are one). The host validates a
    message by :meth:`apply` to its own core; every peer applies every ordered entry."""

    finished: bool
    verdict: GameError | None
    #: this seat refused to make a message (GAME.md "Pledges"): it stops
    refused: PledgeRefused | None
    #: seats nobody waits for any more: played open-handed (R8.6) in Split, gone from
    #: the rotation (S5.7) in Splito
    open_seats: set[int]
    #: the waits agreed in the header (GAME.md "limits")
    limits: Limits

    @property
    def record(self) -> dict[str, Any] | None: ...

    @property
    def round_number(self) -> int | None:
        """The round in progress (what the host's ``timeout`` and ``abandon`` name)."""

    def apply(self, author: int, kind: str, body: dict[str, Any], *,
              at: Position | None = None) -> None: ...

    def outbox(self) -> list[tuple[str, dict[str, Any]]]: ...

    def waiting_for(self) -> list[int]: ...

    def progress(self) -> str: ...

    def can_move(self) -> bool: ...

    def owed_step(self, seat: int) -> str: ...

    def abandon_refusal(self, seat: int) -> str | None: ...

    def move_is_legal(self, body: object) -> bool: ...

    def made_by_us(self, kind: str, body: dict[str, Any]) -> bool: ...

    def forget_unlogged(self) -> None: ...
