"""Local games (``splitnet play``) kept in the data directory as they are played, so that
one interrupted by ``q``, Ctrl-C or a crash can be resumed, and a finished one verified.

A local game keeps the files a LAN game keeps (:mod:`splitnet.net.store`), under
``DATA_DIR/games/``::

    GAME_ID.splitlog      the transcript (protocol/TRANSCRIPT.md), each record appended
                          and fsynced as it is ordered, before any peer applies it
    GAME_ID.secrets       the player's seat's round seeds and pledges (0600, :class:`SeedStore`)
    GAME_ID.botN.secrets  bot seat N's round seeds and pledges (0600, :class:`SeedStore`)
    GAME_ID.meta          JSON (0600): role ``local``, the player's seat and name,
                          created, finished
    GAME_ID.local         the seats' identity keys and bot kinds (0600; below)

Like every file splitnet keeps there, each is 0600 and ``games/`` and the data dir 0700
(:func:`~splitnet.net.store.open_data_dir`, NETWORK.md §9).

Every seed is made and written durably by :class:`~splitnet.net.store.SeedStore` before
the commitment it determines is built, and is only ever read back for the same game
header, round and seat (the store refuses another header's or seat's file), so a resumed
seat reproduces exactly the messages it may already have sent; each seat's pledges
(protocol/GAME.md "Pledges") are kept in the same file. ``GAME_ID.local`` is a
canonical msgpack map ``{"game_id": 16 bytes, "seat": int, "keys": [32-byte Ed25519
private keys, one per seat], "bots": [kind or nil, one per seat], "bot_seeds": [int]}``
written once, before the transcript's header, and read back only for the game it names.
"""

from __future__ import annotations

import hashlib
import secrets
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from splitnet.durable import atomic_write
from splitnet.errors import SplitnetError
from splitnet.games import FIRST, GameSpec, game_of
from splitnet.net.store import (
    GameFiles,
    GameMeta,
    SeedStore,
    meta_now,
    open_data_dir,
    unfinished_games,
)
from splitnet.session.codec import (
    Bytes,
    DecodeError,
    Int,
    List,
    Map,
    Opt,
    Str,
    check,
    decode,
    encode,
)
from splitnet.session.identity import Identity
from splitnet.session.transcript import TranscriptError, TranscriptWriter

if TYPE_CHECKING:
    from splitnet.games.split.local import LocalGame
    from splitnet.session.log import Header

ROLE = "local"

_LOCAL = Map({"game_id": Bytes(exact=16), "seat": Int(0, 15),
              "keys": List(Bytes(exact=32), max_len=16, min_len=2),
              "bots": List(Opt(Str(max_len=40, printable=True)), max_len=16, min_len=2),
              "bot_seeds": List(Int(0, 2**63 - 1), max_len=16, min_len=2)})


class SavedGameError(SplitnetError):
    """A saved local game that cannot be resumed, and why (one line)."""


def local_path(files: GameFiles) -> Path:
    return files.meta.with_suffix(".local")


def seat_secrets_path(files: GameFiles, seat: int, own_seat: int) -> Path:
    """The player's seat uses the game's ``.secrets`` file (as a LAN seat does); each
    bot seat has its own."""
    if seat == own_seat:
        return files.secrets
    return files.meta.with_name(f"{files.game_id.hex()}.bot{seat}.secrets")


@dataclass
class LocalSecrets:
    """The secrets source of a saved local game (what :class:`LocalGame` asks for):
    identities from the ``.local`` file, round seeds and pledges from each seat's
    :class:`SeedStore` — made on first use and durable before they are returned. The
    stores are opened by :meth:`attach`, once the game's header exists."""

    files: GameFiles
    seat: int
    keys: list[bytes]
    bots: list[str | None]
    bot_seeds: list[int]
    #: for ``play --seed`` (testing): seat → round → seed; None: the OS random source
    make: Callable[[int], Callable[[int], bytes]] | None = None

    def __post_init__(self) -> None:
        self.stores: list[SeedStore] = []

    def attach(self, header_hash: bytes) -> None:
        """Open every seat's store for the game with this header hash (raises ValueError
        for a file of another game, header or seat)."""
        gid = self.files.game_id
        self.stores = [SeedStore(seat_secrets_path(self.files, s, self.seat), gid, s,
                                 header_hash, self.make(s) if self.make else None)
                       for s in range(len(self.keys))]

    def game_id(self) -> bytes:
        return self.files.game_id

    def identity_seed(self, seat: int) -> bytes:
        return self.keys[seat]

    def identity(self, seat: int) -> Identity:
        return Identity.from_seed(self.keys[seat])

    def round_seeds(self, seat: int) -> Callable[[int], bytes]:
        return self._store(seat).seed

    def pledges(self, seat: int) -> SeedStore:
        return self._store(seat)

    def _store(self, seat: int) -> SeedStore:
        if not self.stores:
            raise RuntimeError("LocalSecrets.attach(header_hash) first")
        return self.stores[seat]

    def save(self) -> None:
        obj = {"game_id": self.files.game_id, "seat": self.seat, "keys": list(self.keys),
               "bots": list(self.bots), "bot_seeds": list(self.bot_seeds)}
        atomic_write(local_path(self.files), encode(obj), 0o600)


def create(data_dir: Path, game_id: bytes, name: str, seat: int, bots: Sequence[str | None],
           bot_seeds: Sequence[int], keys: Sequence[bytes] | None = None,
           make: Callable[[int], Callable[[int], bytes]] | None = None) -> LocalSecrets:
    """Write a new local game's ``.local`` and ``.meta`` files (the transcript comes
    next, from :class:`~splitnet.games.split.local.LocalGame`), in a data dir and ``games/``
    that only this user may open (NETWORK.md §9)."""
    files = GameFiles(open_data_dir(data_dir), game_id)
    if files.transcript.exists():
        meta = _meta_or_none(files)
        if meta is None or meta.role != ROLE or not meta.finished:
            raise SavedGameError(f"{files.transcript} already holds a game that is not "
                                 "a finished local game")
        # ``play --seed`` makes the same game id again: the same secrets, the same game
        for p in (files.transcript, files.meta, local_path(files), files.secrets,
                  *(seat_secrets_path(files, s, seat) for s in range(len(bots)))):
            p.unlink(missing_ok=True)
    keys = list(keys) if keys is not None else [secrets.token_bytes(32) for _ in bots]
    src = LocalSecrets(files, seat, keys, list(bots), list(bot_seeds), make)
    src.save()
    files.save_meta(meta_now(game_id=game_id.hex(), role=ROLE, seat=seat, name=name,
                             host="", port=0))
    return src


def new_source(data_dir: Path | None, seed: int | None, name: str, seat: int,
               bots: Sequence[str | None], bot_seeds: Sequence[int],
               keys: Sequence[bytes] | None = None) -> tuple[Any, Path | None]:
    """The secrets of a new local game and where its transcript goes: from ``seed``
    (reproducible, for testing) or the OS random source, with the seats' identity
    ``keys`` given (a rematch keeps them, GAME.md "Rematch") or made; with ``data_dir``
    saved there (:func:`create`), else in memory and no transcript."""
    from splitnet.games.split.local import KeptKeys, RandomSecrets, SelfplaySecrets

    inner = SelfplaySecrets(seed) if seed is not None else RandomSecrets()
    if data_dir is None:
        return (KeptKeys(inner, keys) if keys is not None else inner), None
    seeded = isinstance(inner, SelfplaySecrets)
    if keys is None and seeded:
        keys = [inner.identity_seed(s) for s in range(len(bots))]
    src = create(data_dir, inner.game_id(), name, seat, bots, bot_seeds, keys=keys,
                 make=inner.round_seeds if seeded else None)
    return src, src.files.transcript


def rematch_seed(seed: int | None, tag: bytes, prev_game_id: bytes) -> int | None:
    """The ``--seed`` of the rematch of game ``prev_game_id`` of a run started with
    ``seed`` (testing): its own secrets, as reproducible; None stays None (the OS random
    source). ``tag`` keeps one game's runs apart from another's."""
    if seed is None:
        return None
    return int.from_bytes(hashlib.sha256(tag + str(seed).encode() + prev_game_id
                                         ).digest()[:7], "big")


def _meta_or_none(files: GameFiles) -> GameMeta | None:
    try:
        return files.load_meta()
    except (OSError, ValueError, TypeError):
        return None


def load(data_dir: Path, meta: GameMeta) -> LocalSecrets:
    """The secrets of a saved local game (raises :class:`SavedGameError`)."""
    files = GameFiles(data_dir, meta.gid)
    path = local_path(files)
    from splitnet.localfiles import LocalFileError, read_local

    try:  # a regular file only (a FIFO there cannot hang us), bounded
        obj = decode(read_local(path, limit=1 << 14, what="saved game's keys file"),
                     max_len=1 << 14)
        check(obj, _LOCAL, "local game")
    except LocalFileError as e:
        raise SavedGameError(str(e)) from None
    except (OSError, DecodeError) as e:
        raise SavedGameError(f"{path}: unreadable: {e}") from None
    assert isinstance(obj, dict)
    n = len(obj["keys"])
    if obj["game_id"] != meta.gid or obj["seat"] != meta.seat or not obj["seat"] < n:
        raise SavedGameError(f"{path}: the keys of another game or seat")
    if len(obj["bots"]) != n or len(obj["bot_seeds"]) != n:
        raise SavedGameError(f"{path}: {n} keys but {len(obj['bots'])} bot kinds")
    try:
        return LocalSecrets(files, meta.seat, list(obj["keys"]), list(obj["bots"]),
                            list(obj["bot_seeds"]))
    except ValueError as e:
        raise SavedGameError(str(e)) from None


def finish(data_dir: Path, game_id: bytes) -> None:
    """Mark a local game over (finished or stopped with a verdict): no longer offered."""
    files = GameFiles(data_dir, game_id)
    meta = _meta_or_none(files)
    if meta is not None and not meta.finished:
        meta.finished = True
        files.save_meta(meta)


def unfinished(data_dir: Path) -> list[GameMeta]:
    """Local games not yet over that can be reopened, newest first (a game whose
    transcript was never created is left out)."""
    out = []
    for m in unfinished_games(data_dir, ROLE):
        files = GameFiles(data_dir, m.gid)
        if files.transcript.is_file() and local_path(files).is_file():
            out.append(m)
    return out


def find(data_dir: Path, prefix: str) -> GameMeta:
    """The unfinished local game whose id starts with ``prefix`` ("" or "latest": the
    newest); raises :class:`SavedGameError`."""
    games = unfinished(data_dir)
    if prefix in ("", "latest"):
        if not games:
            raise SavedGameError(f"no unfinished local game in {data_dir}")
        return games[0]
    hits = [m for m in games if m.game_id.startswith(prefix.lower())]
    if len(hits) != 1:
        raise SavedGameError(f"{'no' if not hits else 'more than one'} unfinished local "
                             f"game {prefix!r} in {data_dir}")
    return hits[0]


def open_transcript(data_dir: Path, meta: GameMeta) -> TranscriptWriter:
    """Reopen the game's transcript for appending (a torn tail from a crash is cut)."""
    path = GameFiles(data_dir, meta.gid).transcript
    try:
        w = TranscriptWriter.open_existing(path)
    except (OSError, TranscriptError) as e:
        raise SavedGameError(str(e)) from None
    if not w.records:
        w.close()
        raise SavedGameError(f"{path}: empty transcript")
    return w


def when(meta: GameMeta, now: float | None = None) -> str:
    """"today 14:05", "yesterday 09:30" or "2026-11-28 20:15" (local time)."""
    t = datetime.fromtimestamp(meta.created)
    today = datetime.fromtimestamp(now if now is not None else time.time()).date()
    days = (today - t.date()).days
    if days == 0:
        return f"today {t:%H:%M}"
    if days == 1:
        return f"yesterday {t:%H:%M}"
    return f"{t:%Y-%m-%d %H:%M}"


@dataclass(frozen=True)
class SavedGame:
    """A saved local game as the player is told of it (:func:`describe`): which game,
    how far it got, and who plays it."""

    game: str  #: "Split" or "Splito"
    progress: str  #: "round 2 of 3", "turn 12 of 13", "not dealt yet", …
    you: str  #: the player's name at the table
    bots: tuple[tuple[str, str], ...]  #: (name, level) of every bot, in seat order

    def against(self) -> str:
        """"against 3 normal bots", "against a strong bot", "against 3 bots (2 normal,
        1 strong)"."""
        levels = [level for _, level in self.bots]
        n = len(levels)
        if len(set(levels)) == 1:
            return (f"against a{'n' if levels[0][0] in 'aeiou' else ''} {levels[0]} bot"
                    if n == 1 else f"against {n} {levels[0]} bots")
        counts = ", ".join(f"{levels.count(lv)} {lv}" for lv in dict.fromkeys(levels))
        return f"against {n} bots ({counts})"

    def players(self) -> str:
        """"You against Ana (normal), Bo (normal), Cy (strong)"."""
        from splitnet.text import shown

        return f"{shown(self.you)} against " + ", ".join(
            f"{shown(name)} ({level})" for name, level in self.bots)


def describe(data_dir: Path, meta: GameMeta) -> SavedGame:
    """Which game ``meta`` saved, how far it got and who plays it, read from its
    transcript (the entries that verify, up to the first that does not) and its
    ``.local`` file; raises :class:`SavedGameError` (one line) if they cannot be read."""
    from splitnet.games.split.bots import parse_level
    from splitnet.session.log import Log, LogError
    from splitnet.session.transcript import TranscriptError, read_transcript

    source = load(data_dir, meta)
    path = GameFiles(data_dir, meta.gid).transcript
    log = Log()
    try:
        records = read_transcript(path, repair=True)
        for record in records:
            try:
                log.append_record(record)
            except LogError:
                if not log.entries:
                    raise
                break  # resuming names the entry; told here is what verifies
    except (OSError, ValueError, TranscriptError) as e:
        raise SavedGameError(f"{path}: unreadable: {e}") from None
    if not log.entries:
        raise SavedGameError(f"{path}: empty transcript")
    h = log.header
    if len(h.players) != len(source.bots):
        raise SavedGameError(f"{path}: the transcript's players are not the saved "
                             "game's seats")
    spec = game_of(h.settings)
    entries = log.entries[1:]
    bots = []
    for s, kind in enumerate(source.bots):
        if kind is not None and s != meta.seat:
            try:
                level = parse_level(kind)
            except ValueError:
                level = kind
            bots.append((h.players[s].name, level))
    return SavedGame(spec.title, spec.progress(h.settings, entries, len(h.players)),
                     h.players[meta.seat].name, tuple(bots))


def game_of_saved(data_dir: Path, meta: GameMeta) -> GameSpec:
    """The game a saved local game's transcript header names (:mod:`splitnet.games`;
    the first game for a file that cannot be read: resuming it then says why)."""
    from splitnet.session.log import Log, LogError
    from splitnet.session.transcript import read_transcript

    try:
        records = read_transcript(GameFiles(data_dir, meta.gid).transcript, repair=True)
        head = Log()
        head.append_record(records[0])
    except (OSError, ValueError, IndexError, LogError, TranscriptError):
        return FIRST
    return game_of(head.header.settings)


__all__ = ["ROLE", "GameMeta", "LocalSecrets", "SavedGame", "SavedGameError", "create",
           "describe", "find", "finish", "game_of_saved", "load", "meta_now", "open_transcript",
           "unfinished", "when"]


#: a resumed game's session, as :func:`resume_local` sees it: what it tells the player
_Told = TypeVar("_Told", bound="_HasLog")


class _HasLog(Protocol):
    @property
    def log(self) -> list[str]: ...


def finish_when_over(game: LocalGame[Any], data_dir: Path) -> None:
    """Mark the saved game finished (:func:`finish`) when ``game`` closes over."""

    def close(g: LocalGame[Any]) -> None:
        if g.finished:
            finish(data_dir, g.log.game_id)

    game.on_close.append(close)


def resume_local(data_dir: Path, meta: GameMeta,
                 build: Callable[[Header, LocalSecrets, TranscriptWriter],
                                 tuple[LocalGame[Any], _Told]]) -> _Told:
    """Take up a saved local game (Split's or Splito's) where it stopped: the transcript
    is reopened (a torn tail from a crash is cut), its players checked against the saved
    seats (yours and a bot's every other), the game and its session made by ``build``
    (from the transcript's header, the saved seeds and the reopened transcript), every
    entry re-verified and re-applied to every seat, and the log narrated again. Raises
    :class:`SavedGameError` (one line) if it cannot be resumed."""
    from splitnet.session.log import Log

    source = load(open_data_dir(data_dir), meta)
    writer = open_transcript(data_dir, meta)
    try:
        head = Log()
        head.append_record(writer.records[0])
        h = head.header
        if len(h.players) != len(source.keys) or h.host != 0 or any(
                p.key != source.identity(p.seat).public_key_bytes() for p in h.players):
            raise SavedGameError(f"{writer.path}: the transcript's players are not "
                                 "the saved game's seats")
        if [k is None for k in source.bots] != [s == meta.seat
                                                for s in range(len(h.players))]:
            raise SavedGameError(f"{writer.path}: the saved seats do not give you seat "
                                 f"{meta.seat + 1} and a bot every other seat")
        game, session = build(h, source, writer)
        replayed = game.replay_saved()
        session.log.append(f"Resumed the game ({replayed} saved log entries checked).")
    except ValueError as e:  # every SplitnetError: a LogError, a Blame, a bad setting…
        writer.close()
        if isinstance(e, SavedGameError):
            raise
        raise SavedGameError(f"{writer.path}: {e}") from None
    finish_when_over(game, data_dir)
    if game.finished:  # it ended before the last save: nothing left to play
        game.close()
    return session
