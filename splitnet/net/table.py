"""One peer's copy of a started LAN game: the log, its transcript, the seat's game core
and the seat's :class:`~splitnet.session.log.Author` (sans-IO apart from the files).

The host and every joiner hold one. A joiner feeds it the host's records
(:meth:`Table.add_record`); the host validates a message by checking it against the log
(:meth:`~splitnet.session.log.Log.check_order`) and then applying it to its own core —
both leave everything unchanged when they refuse — and only then orders it
(:meth:`Table.order`). Either way every accepted entry is written to the transcript and
applied to the core, exactly the path of :class:`splitnet.games.split.local.LocalGame`.

The header's settings map names the game (:func:`splitnet.games.game_of`), and the
table has that game's :class:`~splitnet.games.GameSpec` build the seat's core, behind
:class:`~splitnet.game.table.NetCore`, the one interface the table, the host and the
joiner call: nothing here knows which game it is.

What a table needs from above the network layer — the proof checker and the narration
of a restarted game — comes in as :class:`TableParts`, from whoever
assembles a peer (``splitnet host``/``join``/``bot``: :data:`splitnet.app.lan_session.LAN_PARTS`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Protocol

from splitnet.crypto.errors import CheatDetected
from splitnet.errors import IllegalMove
from splitnet.game.checks import HopChecker
from splitnet.game.rematch import (
    PreviousGame,
    RematchError,
    check_follows,
    rematch_settings,
)
from splitnet.game.table import (
    LIMITS_KEY,
    GameError,
    Limits,
    NetCore,
    NotAnInt,
    OutOfTurn,
    UnknownKind,
    WrongRound,
    check_position,
    entry_position,
)
from splitnet.games import FIRST, GameSpec, Seating, game_of
from splitnet.net.store import GameFiles, SeedStore, Transcript
from splitnet.net.wire import ErrorCode, WireError
from splitnet.session.identity import Identity
from splitnet.session.log import Author, Entry, Log, LogError, Player

_log = logging.getLogger("splitnet.net")

SeedMaker = Callable[[bytes, int], Callable[[int], bytes]]  # (game_id, seat) → round → seed

@dataclass(frozen=True)
class GameChoice:
    """The game a host opens its lobby for: its :class:`~splitnet.games.GameSpec`, its
    seat limit (the game's, or fewer) and ``header(players)`` — the header's settings map
    for that many players (None: the game's own standard rules, with or without shuffle
    proofs as the host says: :meth:`header_for`)."""

    spec: GameSpec = FIRST
    max_players: int = FIRST.max_players
    header: Callable[[int], dict[str, Any]] | None = None

    @property
    def name(self) -> str:
        return self.spec.title

    @property
    def rule(self) -> str:
        """The rule that sets the seat limit (R3.1, S2.1)."""
        return self.spec.seat_rule

    def header_for(self, players: int, proofs: bool) -> dict[str, Any]:
        """The header's settings map for a game of ``players`` seats."""
        if self.header is not None:
            return self.header(players)
        return self.spec.default_header(players, proofs)


#: the first game (Split, 2–6 players, R3.1): a host's game unless told otherwise
SPLIT: Final = GameChoice()


def choice_of(raw: object) -> GameChoice:
    """The game (and seat limit) of a header's settings map: what a rematch lobby is for
    (NETWORK.md §13: the game of the game before)."""
    spec = game_of(raw)
    return GameChoice(spec, spec.max_players)


def check_header_settings(raw: object, players: int | None = None) -> None:
    """Refuse (ValueError) a header's settings map that no table can run (with that many
    players, when given)."""
    if not isinstance(raw, dict):
        raise ValueError("header.settings: expected a map")
    game_of(raw).check_header(raw, players)


def game_error_code(e: GameError) -> ErrorCode:
    """The wire error code for a message the game core refused — by what it was refused
    as, never by the wording of its reason (one that came too late,
    :func:`~splitnet.game.table.overtaken`: the code of what it was refused for)."""
    if isinstance(e.__cause__, GameError):
        return game_error_code(e.__cause__)
    if isinstance(e, NotAnInt):  # a bool where the body has an int (WIRE.md §4)
        return ErrorCode.SCHEMA
    cause = e.__cause__
    if isinstance(cause, CheatDetected):
        return ErrorCode.CHEAT
    if isinstance(cause, IllegalMove):  # any game's (splitnet.errors)
        return ErrorCode.ILLEGAL
    if isinstance(e, WrongRound):
        return ErrorCode.ROUND
    if isinstance(e, OutOfTurn):
        return ErrorCode.OUT_OF_TURN
    if isinstance(e, UnknownKind):
        return ErrorCode.KIND
    if e.step == "move":
        return ErrorCode.ILLEGAL
    return ErrorCode.PROTOCOL


#: the log's refusals that are wire codes of their own (NETWORK.md §8); any other is
#: ``protocol``
_LOG_CODES: Final = {c.value: c for c in (
    ErrorCode.GAME_ID, ErrorCode.AUTHOR_SIG, ErrorCode.REPLAY, ErrorCode.COUNTER,
    ErrorCode.SEEN, ErrorCode.ACCEPT, ErrorCode.UNKNOWN_AUTHOR, ErrorCode.KIND)}


def log_error_code(e: LogError) -> ErrorCode:
    return _LOG_CODES.get(e.code, ErrorCode.PROTOCOL)




class Told(Protocol):
    """What a narration makes of one entry: lines of text."""

    @property
    def lines(self) -> list[str]: ...


class Narration(Protocol):
    """Tells the log in words, entry by entry, as a restart replays it (a game's own
    narrator, from its front end: Split's :class:`splitnet.games.split.describe.Narrator`). ``core``
    is the table's core, of the game's own type (what that game's narrator reads)."""

    def after_entry(self, core: Any, author: int, kind: str,
                    body: dict[str, Any]) -> Told: ...


@dataclass(frozen=True)
class TableParts:
    """What a seat's table is assembled with from above the network layer (which knows
    no narration and no game): ``narrator(spec, names, seat)`` tells a reopened game's
    saved log in that game's words (:attr:`Table.history`; without it, or when it gives
    None for the game, nothing is told);
    ``checker`` checks the other seats' shuffle proofs (``host``, ``join`` and ``bot``
    give a worker-process pool, so the checks use the machine's other core while the
    chain goes on; without it each check runs in the peer's own thread)."""

    narrator: Callable[[GameSpec, Sequence[str], int], Narration | None] | None = None
    checker: HopChecker | None = None


class Table:
    """A started game as one seat sees it."""

    def __init__(self, identity: Identity, log: Log, seat: int, files: GameFiles,
                 transcript: Transcript, seeds: SeedStore,
                 parts: TableParts | None = None) -> None:
        parts = parts or TableParts()
        h = log.header
        #: the game this table runs (the header's)
        self.spec = game_of(h.settings)
        self.identity = identity
        self.log = log
        self.seat = seat
        self.files = files
        self.transcript = transcript
        self.seeds = seeds
        self.game_id = h.game_id
        self.names = [p.name for p in h.players]
        self.n = len(self.names)
        self.host_seat = h.host
        made = self.spec.seat(Seating(h, seat, seeds, parts.checker))
        self.core: NetCore = made.core
        self.proofs = made.proofs
        #: round 1's dealer (R3.2: seat 0, or the rematch header's; S4.1: the rules')
        self.first_dealer = made.first_dealer
        self.author = Author(identity, h.game_id, seat, log.next_counter(seat))
        self.listeners: list[Callable[[Entry], None]] = []
        #: the saved log in words, told as a restart re-applies it (:meth:`load`), so a
        #: session opened on this table shows the game so far; ``narrator`` goes on
        #: from there (None: ``parts`` gave none, nothing is told)
        self.history: list[str] = []
        self.narrator = (parts.narrator(self.spec, self.names, seat)
                         if parts.narrator is not None else None)
        #: the last entry ``narrator`` has told (0: the header, or no narrator)
        self.narrated = 0

    # ------------------------------------------------------------------ making one
    @classmethod
    def new_host(cls, identity: Identity, data_dir: Path, game_id: bytes,
                 players: list[Player], proofs: bool, seed_maker: SeedMaker | None, *,
                 parts: TableParts | None = None,
                 header: dict[str, Any] | None = None,
                 limits: Limits | None = None) -> Table:
        """The host's table of a new game. ``header``: the header's settings map, which
        names the game and its rules (:meth:`GameChoice.header_for`; None: the first
        game's standard rules, with shuffle proofs if ``proofs``). ``limits``: the waits
        this host keeps, written into the header (GAME.md "limits")."""
        if header is None:
            header = FIRST.default_header(len(players), proofs)
        if limits is not None:
            header = {**header, LIMITS_KEY: limits.to_dict()}
        check_header_settings(header)
        log, _ = Log.start(identity, game_id=game_id, host_seat=0, players=players,
                           settings=header)
        files = GameFiles(data_dir, game_id)
        transcript = Transcript(files.transcript)
        if transcript.records:
            raise ValueError(f"{files.transcript} already holds a game")
        transcript.write(log.records()[0])
        transcript.sync()
        seeds = SeedStore(files.secrets, game_id, 0, log.header_hash,
                          seed_maker(game_id, 0) if seed_maker else None,
                          check_move=game_of(header).check_move)
        return cls(identity, log, 0, files, transcript, seeds, parts)

    @classmethod
    def new_rematch(cls, identity: Identity, data_dir: Path, game_id: bytes,
                    prev: PreviousGame, seed_maker: SeedMaker | None,
                    parts: TableParts | None = None) -> Table:
        """The host's table of the rematch of ``prev``, whatever the game: its seats
        (names, keys, order) and settings, the header naming that game and the next first
        dealer (GAME.md "Rematch"; a Splito header's rules name it too, S4.1)."""
        if game_id == prev.game_id:
            raise ValueError("a rematch needs a new game id")
        return cls.new_host(identity, data_dir, game_id, list(prev.header.players),
                            prev.header.settings.get("shuffle_proofs") is True, seed_maker,
                            parts=parts, header=rematch_settings(prev.header, prev.head))

    @classmethod
    def from_header(cls, identity: Identity, data_dir: Path, header: bytes,
                    seed_maker: SeedMaker | None, *,
                    follows: PreviousGame | None = None,
                    parts: TableParts | None = None) -> Table:
        """A joiner's table from the host's header record (raises WireError). With
        ``follows``, the header must be the rematch of that game (GAME.md "Rematch"),
        checked before any file is made."""
        log = Log()
        try:
            log.append_record(header)
            check_header_settings(log.header.settings, len(log.header.players))
        except (LogError, ValueError) as e:
            raise WireError(ErrorCode.PROTOCOL, f"the host's game header is not valid: {e}",
                            fatal=True) from None
        if follows is not None:
            try:
                check_follows(follows.header, follows.head, log.header)
            except RematchError as e:
                raise WireError(ErrorCode.PROTOCOL, f"the host's rematch header does not follow "
                                f"the game we finished: {e}", fatal=True) from None
        me = identity.public_key_bytes()
        seats = [p.seat for p in log.header.players if p.key == me]
        if not seats:
            raise WireError(ErrorCode.STARTED, "the game started without this player", fatal=True)
        seat = seats[0]
        files = GameFiles(data_dir, log.game_id)
        try:  # before any file is made: secrets of another header are refused
            seeds = SeedStore(files.secrets, log.game_id, seat, log.header_hash,
                              seed_maker(log.game_id, seat) if seed_maker else None,
                              check_move=game_of(log.header.settings).check_move)
        except ValueError as e:
            raise WireError(ErrorCode.PROTOCOL, str(e), fatal=True) from None
        transcript = Transcript(files.transcript)
        if transcript.records and transcript.records[0] != header:
            transcript.close()
            raise WireError(ErrorCode.PROTOCOL,
                            f"{files.transcript} holds another game", fatal=True)
        if not transcript.records:
            transcript.write(header)
            transcript.sync()
            transcript.records = [header]
        table = cls(identity, log, seat, files, transcript, seeds, parts)
        for rec in transcript.records[1:]:  # a restart inside the accept phase
            table._replay(rec)
        return table

    @classmethod
    def load(cls, identity: Identity, files: GameFiles,
             seed_maker: SeedMaker | None = None, parts: TableParts | None = None) -> Table:
        """Reopen a game after a restart: the transcript (a torn tail is cut), then every
        entry re-verified and re-applied to a fresh core with the saved seeds — once the
        ``.secrets`` file is found to match this seat's own entries in the log
        (:meth:`SeedStore.check_log`, NETWORK.md §9): a file that does not is refused
        (:class:`~splitnet.net.store.SecretsMismatch`, one line) before any core is made
        from it, so nothing is sent and neither file changes."""
        if not files.transcript.exists():  # (opening it would make an empty one)
            raise ValueError(f"{files.transcript}: no such transcript, yet {files.meta.name} "
                             "says the game started: move that file away, or pass --new to "
                             "start another game")
        if not files.transcript.is_file():
            raise ValueError(f"{files.transcript}: not a regular file (a directory, FIFO, "
                             "device or socket): move it away, or pass --new to start another "
                             "game")
        transcript = Transcript(files.transcript)
        if transcript.repaired:
            _log.warning("%s: %s", files.transcript, transcript.repaired)
        recs = transcript.records
        if not recs:
            transcript.close()
            raise ValueError(f"{files.transcript}: empty transcript")
        log = Log()
        log.append_record(recs[0])
        me = identity.public_key_bytes()
        seats = [p.seat for p in log.header.players if p.key == me]
        if not seats:
            transcript.close()
            raise ValueError(f"{files.transcript}: this identity has no seat in that game")
        seat = seats[0]
        try:
            seeds = SeedStore(files.secrets, log.game_id, seat, log.header_hash,
                              seed_maker(log.game_id, seat) if seed_maker else None,
                              check_move=game_of(log.header.settings).check_move)
            saved = Log.from_records(recs)  # (a bad record: the replay's LogError, sooner)
            seeds.check_log([(e.kind, e.body) for e in saved.entries[1:] if e.author == seat],
                            game_of(log.header.settings).pledge_position)
        except ValueError:
            transcript.close()
            raise
        table = cls(identity, log, seat, files, transcript, seeds, parts)
        for rec in recs[1:]:
            table._replay(rec)
        table.author.counter = table.log.next_counter(seat)
        return table

    def _replay(self, record: bytes) -> None:
        entry = self.log.append_record(record)
        self._apply(entry)
        if self.narrator is None:
            return
        if entry.seq > 0 and entry.kind != "accept":
            news = self.narrator.after_entry(self.core, entry.author, entry.kind,
                                             dict(entry.body))
            self.history.extend(news.lines)
        self.narrated = entry.seq

    # ------------------------------------------------------------------ the log
    @property
    def started(self) -> bool:
        """Every seat accepted the header: game messages may flow."""
        return self.log.all_accepted

    def add_record(self, record: bytes) -> Entry:
        """Joiner: verify the host's next record, write it, apply it. LogError: the host
        sent a bad record; GameError: the host ordered a message the game refuses."""
        entry = self.log.append_record(record)
        self.transcript.write(record)
        if (entry.author == self.seat and entry.seq > 0
                and not self.core.made_by_us(entry.kind, dict(entry.body))):
            raise GameError(self.host_seat, entry.kind, f"an entry in our own name (seat "
                            f"{self.seat}) that we did not make: the host replayed a message "
                            "of ours from another game with this id, or our key is stolen")
        self._apply(entry)
        self._notify(entry)
        return entry

    def add_own_record(self, record: bytes) -> Entry:
        """Host after a restart: a record it signed earlier, handed back by a peer."""
        return self.add_record(record)

    def check(self, msg: bytes, sig: bytes, from_seat: int | None) -> None:
        """Host: refuse (WireError) what must not be ordered; on success the message has
        been applied to the host's core and MUST be ordered next (:meth:`order`)."""
        try:
            m = self.log.check_order(msg, sig)
        except LogError as e:
            raise WireError(log_error_code(e), e.reason) from None
        if from_seat is not None and m.author != from_seat:
            raise WireError(ErrorCode.NOT_YOUR_SEAT,
                            f"this connection speaks for seat {from_seat}, "
                            f"not seat {m.author}")
        if m.kind == "accept":
            return
        if not self.log.all_accepted:
            raise WireError(ErrorCode.NOT_STARTED, "game messages wait until every player accepted "
                            "the header")
        try:
            self.core.apply(m.author, m.kind, m.body,
                            at=check_position(m, len(self.log), self.log.head()))
        except GameError as e:
            raise WireError(game_error_code(e), str(e)) from None

    def order(self, msg: bytes, sig: bytes) -> Entry:
        """Host: after :meth:`check` succeeded — order, write, notify."""
        record = self.log.order(msg, sig, self.identity)
        self.transcript.write(record)
        entry = self.log.entries[-1]
        self._notify(entry)
        return entry

    def _apply(self, entry: Entry) -> None:
        if entry.seq == 0 or entry.kind == "accept":
            return
        if not self.log.all_accepted:
            raise GameError(entry.author, entry.kind, "a game message before every player "
                            "accepted the header")
        self.core.apply(entry.author, entry.kind, dict(entry.body),
                        at=entry_position(entry))

    def _notify(self, entry: Entry) -> None:
        for cb in list(self.listeners):
            cb(entry)

    def close(self) -> None:
        self.transcript.close()
