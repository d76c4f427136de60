"""A fair-deck game among separate in-memory peers on one machine.

Each seat is a :class:`~splitnet.games.split.core.GameCore` holding only its own secrets; every
message is signed by its author, ordered by the host (seat 0) into the hash-chained log,
optionally written to a transcript, and applied by every peer — the same path a LAN game
takes, without sockets. Used by ``selfplay``, by ``play`` (through
:class:`splitnet.games.split.front.fair.FairSession`) and by the tests.

A Split game's peers are GameCores (the default); any other game gives ``make_core``
(one peer's sans-IO core, :class:`TableCore`) and the header's settings map — Splito's
is :class:`splitnet.games.splito.core.SplitoCore`.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar, overload

from splitnet.game.checks import HopChecker
from splitnet.game.rematch import (
    REMATCH_KEY,
    Rematch,
    RematchError,
    first_dealer,
    parse_rematch,
)
from splitnet.game.table import (
    LIMITS_KEY,
    PROTOCOL,
    GameError,
    Limits,
    LimitsError,
    MemoryPledges,
    PledgeBook,
    Position,
    check_position,
    entry_position,
    limits_from_header,
)
from splitnet.games.split.core import GameCore
from splitnet.games.split.open_hand import OpenHandPlayer
from splitnet.games.split.rules import Settings, SettingsError
from splitnet.session.identity import Identity
from splitnet.session.log import Author, Log, Player, parse_message
from splitnet.session.transcript import TranscriptWriter
from splitnet.text import shown


class Chooser(Protocol):
    """Whatever picks a seat's moves in :meth:`LocalGame.run_bots` (a bot from
    :mod:`splitnet.games.split.bots` or :mod:`splitnet.games.splito.bots`, injected by the
    caller: the game layer knows no bots): a move of the game's kind from the seat's own view."""

    def choose(self, game: Any, seat: int) -> Any:
        """A legal move for ``seat`` from its own view ``game``."""


class TableCore(Protocol):
    """One peer's sans-IO game core, as the table drives it (GameCore, SplitoCore)."""

    finished: bool
    verdict: GameError | None
    #: this seat's view of the game (what its bot chooses from)
    engine: Any

    def apply(self, author: int, kind: str, body: dict[str, Any], *,
              at: Position | None = None) -> None: ...

    def outbox(self) -> list[tuple[str, dict[str, Any]]]: ...

    def can_move(self) -> bool: ...

    def move_message(self, action: Any) -> dict[str, Any]: ...

    def waiting_for(self) -> list[int]: ...

    @property
    def round_number(self) -> int | None:
        """The round in progress (what an ``abandon`` names), or None."""


C = TypeVar("C", bound=TableCore)
#: make_core(game id, seat, its seed source, its pledge book, every seat's identity key)
#: → that seat's core
CoreFactory = Callable[[bytes, int, Callable[[int], bytes], PledgeBook, list[bytes]], C]


def game_settings(settings: Settings, shuffle_proofs: bool,
                  rematch: Rematch | None = None,
                  limits: Limits | None = None) -> dict[str, Any]:
    """The header's settings map: the rules (protocol/SETTINGS.md), protocol options and
    the agreed waits (GAME.md "limits"); a rematch also names the game before it and its
    first dealer (GAME.md "Rematch")."""
    out: dict[str, Any] = {"protocol": PROTOCOL, "rules": settings.to_dict(),
                           "shuffle_proofs": shuffle_proofs,
                           LIMITS_KEY: (limits or Limits()).to_dict()}
    if rematch is not None:
        out[REMATCH_KEY] = rematch.to_dict()
    return out


#: the keys of a header's settings map (GAME.md), every one required
HEADER_SETTINGS_KEYS = ("protocol", "rules", "shuffle_proofs", LIMITS_KEY)
#: keys a header's settings may hold besides those: a rematch's (GAME.md "Rematch")
HEADER_OPTIONAL_KEYS = (REMATCH_KEY,)


def settings_from_header(raw: object) -> tuple[Settings, bool]:
    """The rules and the proof option of a header's settings map (GAME.md, SETTINGS.md):
    every key present, none unknown, the pad inline — nothing filled in, nothing opened."""
    if not isinstance(raw, dict):
        raise SettingsError("header.settings: expected a map")
    for key in raw:
        if key not in HEADER_SETTINGS_KEYS + HEADER_OPTIONAL_KEYS:
            raise SettingsError(f"header.settings: unknown key {shown(repr(key), limit=40)}")
    missing = [k for k in HEADER_SETTINGS_KEYS if k not in raw]
    if missing:
        raise SettingsError(f"header.settings: missing {', '.join(missing)}")
    if raw.get("protocol") != PROTOCOL:
        raise SettingsError(f"header.settings.protocol: expected {PROTOCOL!r}, "
                            f"got {shown(repr(raw.get('protocol')), limit=40)}")
    proofs = raw.get("shuffle_proofs")
    if not isinstance(proofs, bool):
        raise SettingsError("header.settings.shuffle_proofs: expected true or false")
    try:
        parse_rematch(raw)
        limits_from_header(raw)
    except (RematchError, LimitsError) as e:
        raise SettingsError(str(e)) from None
    try:
        return Settings.from_dict(raw["rules"]), proofs
    except SettingsError as e:
        raise SettingsError(f"header.settings.rules: {e}") from None


class SelfplaySecrets:
    """Every peer's secrets derived from one number, so ``selfplay --seed S`` replays
    byte for byte. Real games never use this: they take the OS random source."""

    def __init__(self, seed: int) -> None:
        self.base = hashlib.sha256(b"splitnet/selfplay/v1" + str(seed).encode()).digest()

    def _h(self, *parts: bytes) -> bytes:
        return hashlib.sha256(self.base + b"".join(len(p).to_bytes(4, "big") + p
                                                  for p in parts)).digest()

    def game_id(self) -> bytes:
        return self._h(b"game-id")[:16]

    def identity_seed(self, seat: int) -> bytes:
        return self._h(b"identity", bytes([seat]))

    def identity(self, seat: int) -> Identity:
        return Identity.from_seed(self.identity_seed(seat))

    def round_seeds(self, seat: int) -> Callable[[int], bytes]:
        return lambda rnd: self._h(b"round-seed", bytes([seat]), rnd.to_bytes(2, "big"))


class RandomSecrets:
    """Fresh secrets from the operating system for a real game on this machine."""

    def __init__(self) -> None:
        self._seeds: dict[tuple[int, int], bytes] = {}
        self._keys: dict[int, bytes] = {}

    def game_id(self) -> bytes:
        return secrets.token_bytes(16)

    def identity_seed(self, seat: int) -> bytes:
        """The seat's identity key (raw Ed25519 private key), made once (a rematch keeps
        the seats' keys, GAME.md "Rematch")."""
        return self._keys.setdefault(seat, secrets.token_bytes(32))

    def identity(self, seat: int) -> Identity:
        return Identity.from_seed(self.identity_seed(seat))

    def round_seeds(self, seat: int) -> Callable[[int], bytes]:
        def seed(rnd: int) -> bytes:
            return self._seeds.setdefault((seat, rnd), secrets.token_bytes(32))
        return seed


class KeptKeys:
    """A secrets source with the seats' identity keys given (a rematch keeps them, GAME.md
    "Rematch") and the game id and round seeds from ``inner``."""

    def __init__(self, inner: SelfplaySecrets | RandomSecrets, keys: Sequence[bytes]) -> None:
        self.inner, self.keys = inner, list(keys)

    def game_id(self) -> bytes:
        return self.inner.game_id()

    def identity_seed(self, seat: int) -> bytes:
        return self.keys[seat]

    def identity(self, seat: int) -> Identity:
        return Identity.from_seed(self.keys[seat])

    def round_seeds(self, seat: int) -> Callable[[int], bytes]:
        return self.inner.round_seeds(seat)


class LocalGame(Generic[C]):
    """Peers, the host's log and (optionally) the transcript file."""

    @overload
    def __init__(self: LocalGame[GameCore], names: Sequence[str], settings: Settings,
                 source: Any, *, shuffle_proofs: bool = True, transcript: Path | None = None,
                 writer: TranscriptWriter | None = None,
                 checker: HopChecker | None = None,
                 open_hand: OpenHandPlayer | None = None,
                 header: dict[str, Any] | None = None) -> None: ...

    @overload
    def __init__(self: LocalGame[C], names: Sequence[str], settings: Any, source: Any, *,
                 shuffle_proofs: bool = True, transcript: Path | None = None,
                 writer: TranscriptWriter | None = None, make_core: CoreFactory[C],
                 header: dict[str, Any]) -> None: ...

    def __init__(self, names: Sequence[str], settings: Any, source: Any, *,
                 shuffle_proofs: bool = True, transcript: Path | None = None,
                 writer: TranscriptWriter | None = None,
                 make_core: CoreFactory[Any] | None = None,
                 header: dict[str, Any] | None = None,
                 checker: HopChecker | None = None,
                 open_hand: OpenHandPlayer | None = None) -> None:
        """A new game; or, with ``writer`` (a reopened transcript holding at least the
        header), the saved game in it: call :meth:`replay_saved` next — after attaching
        any listener that should hear the game so far.

        ``checker``: where every peer's deferred shuffle-proof checks run (one checker
        for all the peers: a :class:`~splitnet.game.pool.ProofPool` uses the other core,
        and with ``share`` each hop is checked once for all of them); by default each
        peer checks every other seat's hop itself, in this thread. ``open_hand`` plays a
        seat the host abandons (R8.6; ``splitnet.games.split.bots.open_hand_player``): without it
        every core refuses an abandonment."""
        self.names = list(names)
        self.n = len(names)
        self.settings = settings
        ids = [source.identity(s) for s in range(self.n)]
        self.host = ids[0]
        #: where the seats' identities and seeds come from (a rematch keeps the keys)
        self.source = source
        self.listeners: list[Callable[[int, str, dict[str, Any]], None]] = []
        #: called by :meth:`close` (a saved game marks itself over here)
        self.on_close: list[Callable[[LocalGame[Any]], None]] = []
        #: records of a reopened transcript not yet re-applied (:meth:`replay_saved`)
        self.saved: list[bytes] = []
        #: seats that stopped answering (a player gone for good): they send nothing more
        #: but still read the log
        self.silent: set[int] = set()
        if writer is not None:
            self.writer: TranscriptWriter | None = writer
            self.log = Log()
            self.log.append_record(writer.records[0])
            game_id = self.log.game_id
            self.saved = list(writer.records[1:])
        else:
            game_id = source.game_id()
            players = [Player(s, nm, ids[s].public_key_bytes()) for s, nm in enumerate(names)]
            self.writer = TranscriptWriter(transcript) if transcript else None
            self.log, _ = Log.start(self.host, game_id=game_id, host_seat=0, players=players,
                                    settings=(header if header is not None else
                                              game_settings(settings, shuffle_proofs)))
            if self.writer:
                self.writer.append(self.log.records()[0])
        self.authors = [Author(ids[s], game_id, s, self.log.next_counter(s))
                        for s in range(self.n)]
        # A saved game's seeds (and pledges) are bound to its header (NETWORK.md §9).
        attach = getattr(source, "attach", None)
        if attach is not None:
            attach(self.log.header_hash)
        #: each seat's pledges (GAME.md "Pledges"): its saved store, else in memory
        book = getattr(source, "pledges", None)
        self.pledges: list[PledgeBook] = [book(s) if book is not None else MemoryPledges()
                                          for s in range(self.n)]
        keys = [p.key for p in self.log.header.players]
        if make_core is not None:
            self.cores: list[C] = [make_core(game_id, s, source.round_seeds(s),
                                             self.pledges[s], keys)
                                   for s in range(self.n)]
        else:
            # a rematch's header names round 1's dealer (R3.2); any other game: seat 0
            dealer = first_dealer(self.log.header.settings, self.n)
            self.cores = [GameCore(game_id, names, settings, s,  # type: ignore[misc]
                                   source.round_seeds(s), shuffle_proofs=shuffle_proofs,
                                   pledges=self.pledges[s], keys=keys, checker=checker,
                                   open_hand=open_hand, first_dealer=dealer)
                          for s in range(self.n)]
        if writer is None:
            self._accept_all()

    def _accept_all(self) -> None:
        """Every guest signs its acceptance of the header (the host's header is its own)."""
        for s in range(1, self.n):
            if s not in self.log.accepted:
                msg, sig = self.authors[s].accept(self.log.header_hash)
                self._append(self.log.order(msg, sig, self.host))

    def replay_saved(self) -> int:
        """Re-verify and re-apply the reopened transcript's records to every peer (each
        seat's seeds come back from its store, so its secrets are the ones it used),
        then go on from where the game stopped. Returns how many entries were replayed.
        Raises LogError or GameError if the file does not hold a valid game."""
        records, self.saved = self.saved, []
        for rec in records:
            entry = self.log.append_record(rec)
            if entry.kind == "accept":
                continue
            if not self.log.all_accepted:
                raise GameError(entry.author, entry.kind, "a game message before every "
                                "player accepted the header")
            for core in self.cores:
                core.apply(entry.author, entry.kind, dict(entry.body),
                           at=entry_position(entry))
            for cb in self.listeners:
                cb(entry.author, entry.kind, dict(entry.body))
        for s, a in enumerate(self.authors):
            a.counter = self.log.next_counter(s)
        self._accept_all()
        return len(records)

    def _append(self, record: bytes) -> None:
        if self.writer:
            self.writer.append(record)

    def send(self, seat: int, kind: str, body: dict[str, Any], *,
             host_checks: bool = True) -> None:
        """Seat signs, the host checks and orders, every peer applies.

        The host applies the message to its own core first: a message the game refuses
        raises GameError and is never ordered (the author's counter is not used up).
        ``host_checks=False`` plays a host that orders blindly, so tests can show every
        honest peer catching a bad entry by itself.
        """
        author = self.authors[seat]
        msg, sig = author.message(kind, body, seen=self.log.seen())
        m = parse_message(msg)
        if host_checks:
            try:
                self.cores[0].apply(m.author, m.kind, m.body,
                                    at=check_position(m, len(self.log), self.log.head()))
            except GameError:
                author.counter -= 1
                raise
        record = self.log.order(msg, sig, self.host)
        self._append(record)
        entry = self.log.entries[-1]
        for i, core in enumerate(self.cores):
            if not (host_checks and i == 0):
                core.apply(entry.author, entry.kind, entry.body,
                           at=entry_position(entry))
        for cb in self.listeners:
            cb(entry.author, entry.kind, entry.body)

    def pump(self) -> bool:
        """Send every protocol message any peer owes now; True if anything was sent."""
        sent = False
        for seat, core in enumerate(self.cores):
            if seat in self.silent:
                continue
            for kind, body in core.outbox():
                self.send(seat, kind, body)
                sent = True
        return sent

    def mover(self) -> int | None:
        for seat, core in enumerate(self.cores):
            if core.can_move() and seat not in self.silent:
                return seat
        return None

    def abandon(self, seat: int, waited: int) -> None:
        """The host abandons ``seat`` after ``waited`` seconds: in Split (GAME.md
        "abandon", R8.6) the seat is played open-handed from then on; in Splito it leaves
        the rotation (S5.7). The host's core refuses what its game does not allow."""
        core = self.cores[0]
        r = core.round_number
        if r is None or core.finished:
            raise GameError(0, "abandon", "the game is over")
        self.send(0, "abandon", {"round": r, "seat": seat, "waited": waited})

    def play_move(self, seat: int, action: Any) -> None:
        """Validate on the seat's own core (IllegalMove: nothing changes), then send."""
        body = self.cores[seat].move_message(action)
        self.send(seat, "move", body)  # every game's choice is a "move" entry

    @property
    def finished(self) -> bool:
        return all(c.finished for c in self.cores)

    def close(self) -> None:
        if self.writer:
            self.writer.close()
        for cb in self.on_close:
            cb(self)
        self.on_close = []

    @property
    def verdict(self) -> GameError | None:
        """Why the game stopped early (every peer reaches the same verdict), or None."""
        return self.cores[0].verdict

    def run_bots(self, bots: Sequence[Chooser | None], max_steps: int = 200_000, *,
                 open_hand_after: int | None = None,
                 on_step: Callable[[LocalGame[Any]], None] | None = None) -> None:
        """Play to the end; raises GameError if a message is refused or the game stops
        with a verdict. With ``open_hand_after``, a :attr:`silent` seat the game waits
        for is abandoned (as if that many seconds had passed) and played open-handed.
        ``on_step`` is called after every step (tests check invariants there)."""
        for _ in range(max_steps):
            if on_step is not None:
                on_step(self)
            if self.finished:
                if self.verdict is not None:
                    raise self.verdict
                return
            if self.pump():
                continue
            seat = self.mover()
            if seat is None:
                waiting = self.cores[0].waiting_for()
                if (open_hand_after is not None and waiting
                        and all(s in self.silent for s in waiting)):
                    self.abandon(waiting[0], open_hand_after)
                    continue
                raise RuntimeError("the game is stuck: nobody owes a message")
            bot = bots[seat]
            if bot is None:
                raise RuntimeError(f"seat {seat} has no bot")
            self.play_move(seat, bot.choose(self.cores[seat].engine, seat))
        raise RuntimeError("the game did not end within the step bound")
