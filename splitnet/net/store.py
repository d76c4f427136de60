"""What a LAN peer keeps on disk for each game, under ``DATA_DIR/games/``::

    GAME_ID.splitlog   the transcript (protocol/TRANSCRIPT.md), appended as records arrive
    GAME_ID.secrets    this seat's round seeds and pledges (0600), bound to the game's
                       header hash: each seed fsynced before its commitment is sent
                       (without it the seat could not open the round it committed), each
                       pledge — the digest of the deck its hop or shares are on — before
                       that message is (GAME.md "Pledges"); in Splito each chosen play
                       and its nonce before its commitment is (SPLITO_GAME.md "Durability");
                       in Split the seat's chosen move and its position before the move
                       leaves (GAME.md "Pledges": a move at a position is final)
    GAME_ID.meta       JSON (0600): role, seat, host address, port, name, finished, and
                       the join code, so that a restart reconnects without asking for it;
                       a host writes it (``lobby`` true) as soon as its lobby is open
    GAME_ID.wormhole   JSON (0600), a host of internet play: each wormhole guest's resume
                       secret and counter (:class:`ResumeFile`, NETWORK.md §12 "Resume")
    invite-H.wormhole  the same, a guest's: its one resume secret, under a hash H of the
                       invitation it claimed, so the same command finds it again
    GAME_ID.refused    a joiner's record of each refusal of its legal move that came
                       without a valid signed refusal at its head (NETWORK.md §5)
    GAME_ID.acks       a host's record of who confirmed the finished log: each seat's
                       signed ack of the final record, appended (one ``write``) before it
                       is relayed, so a host restarted after the last record knows who
                       confirmed it and ends at once (NETWORK.md §6)

**Privacy.** Every file here is created with mode 0600 and every directory — the data dir
and ``games/`` — with 0700, whatever the umask (:mod:`splitnet.durable`); at start
:func:`open_data_dir` closes a data dir or ``games/`` that other local users could look
into (NETWORK.md §9).

**Durability.** A record is written (one ``write`` on the ``O_APPEND`` file, so it is in
the file as soon as the call returns and survives the process being killed) as soon as
it is ordered or received; ``fsync`` — ~4 ms on a common disk — runs off the game's path
(:class:`Transcript` syncs in a helper thread). A peer acks only heads it has synced.
After a power loss a host may restart with fewer records than its peers hold; they are
its own signed records, so a peer hands them back (NETWORK.md, "Resume").
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import math
import os
import re
import secrets
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from splitnet.crypto.seeds import commitment
from splitnet.durable import atomic_write, open_private, tighten_dir
from splitnet.errors import SplitnetError
from splitnet.game.table import PLEDGE_STEPS, ChosenMove, ChosenPlay, Pledge
from splitnet.session.codec import Bytes, DecodeError, Int, Map, Str, check, decode, encode
from splitnet.session.identity import KEY_FILE
from splitnet.session.transcript import TranscriptWriter
from splitnet.text import shown

SEED_LEN = 32
_log = logging.getLogger("splitnet.net")


def games_dir(data_dir: Path) -> Path:
    return data_dir / "games"


#: what splitnet keeps directly in a data dir (NETWORK.md §9; ``network.json`` is only
#: read): the games, a watcher's ``watched/`` (§14), the data dirs of the bots a host
#: runs (``bots/``); ``.NAME.PID.HEX.tmp``: a durable write under way (splitnet/durable.py)
DATA_DIR_NAMES = frozenset({KEY_FILE, "known_peers.json", "network.json", "net.log", "games",
                            "watched", "bots"})
_TEMPORARY = re.compile(r"\..+\.tmp")
#: what splitnet keeps in ``games/``: a game's files (``GAME_ID.…``), a guest's
#: ``invite-H.wormhole``, a durable write under way
_GAME_FILE = re.compile(r"[0-9a-f]{32}\..+|invite-[0-9a-f]{32}\.wormhole|\..+\.tmp")
_warned: set[Path] = set()


def open_data_dir(data_dir: Path) -> Path:
    """The data dir, ready for a game to be kept in: nothing is made here (each directory
    is made 0700, whatever the umask, when its first file is written), and either one
    that other local users could look into — a
    ``--data-dir`` made by hand with mode 0755, a ``games/`` made by an older version — is
    closed (chmod 700). Where that is not splitnet's to do (another user's directory, a
    shared one, one holding files splitnet did not make), one warning line says so
    (once per directory and process) and the game goes on: its own files are 0600 anyway
    (NETWORK.md §9). Returns ``data_dir``."""
    games = games_dir(data_dir)
    for d, ours in ((data_dir, _in_data_dir), (games, _in_games_dir)):
        if not d.is_dir():
            continue  # made 0700 when its first file is written (durable.private_dir)
        why = tighten_dir(d, ours)
        if why is not None and d not in _warned:
            _warned.add(d)
            _log.warning("%s", shown(why))
    return data_dir


def _in_data_dir(name: str) -> bool:
    return name in DATA_DIR_NAMES or _TEMPORARY.fullmatch(name) is not None


def _in_games_dir(name: str) -> bool:
    return _GAME_FILE.fullmatch(name) is not None


@dataclass
class GameMeta:
    game_id: str  # hex
    role: str  # "host" | "peer"
    seat: int
    name: str
    host: str  # "ADDR:PORT" a peer connects to ("" for a host)
    port: int  # a host's listening port
    bind: str = ""
    finished: bool = False
    created: float = 0.0
    #: the game's join code (protocol/SECURE.md): a secret, hence the file's mode 0600
    code: str = ""
    #: a host's lobby, not yet started (no transcript yet): a restarted host opens it
    #: again with the same game id and code, so its players get back in by themselves
    lobby: bool = False
    #: a host's rematch lobby (NETWORK.md §13): the id (hex) of the finished game it
    #: offers the rematch of, so a restarted host offers it again ("": none)
    rematch_of: str = ""

    @property
    def gid(self) -> bytes:
        return bytes.fromhex(self.game_id)


class GameFiles:
    """The paths of one game's files in a data directory."""

    def __init__(self, data_dir: Path, game_id: bytes) -> None:
        self.data_dir = data_dir
        self.game_id = game_id
        base = games_dir(data_dir) / game_id.hex()
        self.transcript = base.with_suffix(".splitlog")
        self.secrets = base.with_suffix(".secrets")
        self.meta = base.with_suffix(".meta")
        #: a host's wormhole guests' resume secrets (internet play)
        self.wormhole = base.with_suffix(".wormhole")
        self.acks = base.with_suffix(".acks")

    def load_meta(self) -> GameMeta:
        return read_meta(self.meta)

    def save_meta(self, meta: GameMeta) -> None:
        atomic_write(self.meta, (json.dumps(asdict(meta), indent=1) + "\n").encode(), 0o600)

    def mark_finished(self) -> None:
        """Save the game as over (its meta file's ``finished``): nothing offers to resume
        it. OSError or ValueError if the meta file cannot be read or written."""
        meta = self.load_meta()
        if not meta.finished:
            meta.finished = True
            self.save_meta(meta)


#: at most this many acks are read back from a ``.acks`` file (one per seat is kept)
MAX_FINAL_ACKS = 64
_ACK_MAX = 512  # an ack's size bound (session/log.py check_ack)


def append_final_ack(path: Path, ack: bytes) -> None:
    """Append one signed ack to a ``.acks`` file: ``length (4 bytes BE) ‖ ack`` in a
    single ``write`` on an ``O_APPEND`` descriptor, so it is in the file as soon as this
    returns and survives the process being killed (mode 0600; ``sync_final_acks``
    makes it durable)."""
    if not 0 < len(ack) <= _ACK_MAX:
        raise ValueError(f"an ack is 1–{_ACK_MAX} bytes, not {len(ack)}")
    fd = open_private(path, os.O_WRONLY | os.O_APPEND)
    try:
        data = len(ack).to_bytes(4, "big") + ack
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)


def sync_final_acks(path: Path) -> None:
    """fsync a ``.acks`` file if there is one."""
    with contextlib.suppress(FileNotFoundError):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def read_final_acks(path: Path) -> list[bytes]:
    """The acks in a ``.acks`` file, in file order (none if there is no file). A torn
    tail — a write cut by a crash — and anything after a length out of bounds are
    ignored: the acks are only unverified candidates, each checked by the caller
    against the game's log (``Log.check_ack`` and the head at its seq)."""
    from splitnet.localfiles import LocalFileError, read_local

    if not os.path.lexists(path):
        return []
    try:
        data = read_local(path, limit=MAX_FINAL_ACKS * (4 + _ACK_MAX), what="acks file")
    except LocalFileError as e:
        if "larger than" not in e.reason:
            raise ValueError(str(e)) from None
        data = b""  # (only candidates: too many is as if none were kept)
    out: list[bytes] = []
    i = 0
    while i + 4 <= len(data) and len(out) < MAX_FINAL_ACKS:
        n = int.from_bytes(data[i:i + 4], "big")
        if not 0 < n <= _ACK_MAX or i + 4 + n > len(data):
            break
        out.append(data[i + 4:i + 4 + n])
        i += 4 + n
    return out


class MetaError(SplitnetError):
    """A ``GAME_ID.meta`` file that cannot be used (NETWORK.md §9): one line naming the
    file, the field and the way on. Nothing was changed."""


#: the largest ``.meta`` file read (one is a few hundred bytes)
MAX_META_BYTES = 64 * 1024
#: the roles a ``.meta`` file names: a LAN host, a LAN joiner, a game on this machine
META_ROLES = ("host", "peer", "local")
_META_WAY = ("move that file away (its game is not offered again), or pass --new to "
             "start another game")
_HEX32 = re.compile(r"[0-9a-f]{32}")


def _meta_problem(k: str, v: object) -> str | None:
    """What is wrong with the value ``v`` of the field ``k`` (None: nothing). Each field
    is checked for its type first, as a peer's message is (a bool is never a number)."""
    kinds = {"seat": int, "port": int, "finished": bool, "lobby": bool, "created": float}
    want = kinds.get(k, str)
    if want is float:
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            return f"must be a number, not {_json_kind(v)}"
    elif type(v) is not want:
        kind = "a whole number" if want is int else "true or false" if want is bool else "text"
        return f"must be {kind}, not {_json_kind(v)}"
    if k == "game_id" and not _HEX32.fullmatch(str(v)):
        return "must be 32 lowercase hex digits"
    if k == "rematch_of" and v != "" and not _HEX32.fullmatch(str(v)):
        return "must be \"\" or a game id of 32 lowercase hex digits"
    if k == "role" and v not in META_ROLES:
        return f"must be one of {', '.join(META_ROLES)}"
    if k == "seat" and not 0 <= int(str(v)) < 16:
        return "must be a seat 0–15"
    if k == "port" and not 0 <= int(str(v)) <= 65535:
        return "must be a port 0–65535"
    if k == "code" and v != "":
        from splitnet.net.joincode import JoinCodeError, parse_code

        try:
            parse_code(str(v))
        except JoinCodeError as e:
            return f"is not a join code ({e})"
    if isinstance(v, str) and len(v) > 256:
        return "is longer than 256 characters"
    return None


def _json_kind(v: object) -> str:
    return ("null" if v is None else "true/false" if isinstance(v, bool) else
            "a number" if isinstance(v, (int, float)) else "text" if isinstance(v, str) else
            "a list" if isinstance(v, list) else "an object")


def read_meta(path: Path) -> GameMeta:
    """A ``.meta`` file, read like a peer's message (bounded, strict JSON, a regular
    file only — a FIFO there cannot hang us) and checked field by field; anything wrong
    is a :class:`MetaError` naming the file and the field."""
    from splitnet.localfiles import LocalFileError, parse_json, read_local

    what = "game meta file"
    try:
        raw = parse_json(read_local(path, limit=MAX_META_BYTES, what=what), path, what=what)
    except LocalFileError as e:
        raise MetaError(f"{e}: {_META_WAY}") from None
    if not isinstance(raw, dict):
        raise MetaError(f"{path}: not a {what} (not a JSON object): {_META_WAY}")
    fields = GameMeta.__dataclass_fields__
    for k in ("game_id", "role", "seat", "name", "host", "port"):
        if k not in raw:
            raise MetaError(f"{path}: no field {k!r}: {_META_WAY}")
    for k, v in raw.items():
        why = _meta_problem(k, v) if k in fields else None
        if why is not None:
            raise MetaError(f"{path}: field {k!r} {why}: {_META_WAY}")
    return GameMeta(**{k: v for k, v in raw.items() if k in fields})


def unfinished_games(data_dir: Path, role: str, *,
                     skip_damaged: bool = False) -> list[GameMeta]:
    """Games in ``data_dir`` this peer took part in as ``role`` that are not over,
    newest first. A damaged ``.meta`` file (of any role: it may be this one's) is a
    :class:`MetaError` naming it, never skipped in silence — unless ``skip_damaged``
    (``--new``: no saved game is taken up)."""
    return saved_games(data_dir, role, finished=False, skip_damaged=skip_damaged)


def saved_games(data_dir: Path, role: str, *, finished: bool,
                skip_damaged: bool = False) -> list[GameMeta]:
    """Games in ``data_dir`` this peer took part in as ``role``, over (``finished``) or
    not, newest first (a damaged ``.meta`` as for :func:`unfinished_games`)."""
    out = []
    d = games_dir(data_dir)
    if not d.is_dir():
        return []
    for p in sorted(d.glob("*.meta")):
        try:
            m = read_meta(p)
        except MetaError:
            if skip_damaged:
                continue
            raise
        if m.role == role and m.finished == finished:
            out.append(m)
    return sorted(out, key=lambda m: -m.created)


@dataclass
class ResumeChain:
    """How a guest through a wormhole and its host meet again without a new invitation
    (NETWORK.md §12, "Resume"): the secret both derived from the wormhole of the
    invitation, and the counter of the next resume wormhole (each code is used once)."""

    secret: bytes
    next: int = 0
    #: the host: the name of every connection of this guest (``wormhole-N:0``; not kept)
    peer: str = ""
    #: the host: the guest's identity key, once its handshake proved it
    key: bytes = b""
    #: the guest: its game, once it started
    game_id: str = ""


#: the most resume secrets a host keeps (oldest without a seat dropped first)
MAX_CHAINS = 12


class ResumeFile:
    """Resume secrets on disk: JSON ``{"chains": [{"secret": HEX, "next": N, "key": HEX,
    "game_id": HEX}]}``, mode 0600 (a secret: whoever holds it can meet the
    host on the next resume code — though still not take the seat, which its key
    proves), written durably on every change of a counter."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def load(self) -> list[ResumeChain]:
        """The chains kept, none if there is no file; a damaged file is a ValueError
        naming it (one line)."""
        from splitnet.localfiles import LocalFileError, parse_json, read_local

        if not os.path.lexists(self.path):
            return []
        try:
            raw: Any = parse_json(read_local(self.path, limit=MAX_META_BYTES,
                                             what="resume file"),
                                  self.path, what="resume file")
        except LocalFileError as e:
            raise ValueError(f"unreadable resume file {e}") from None
        out = []
        try:
            for c in raw["chains"][:MAX_CHAINS]:
                secret = bytes.fromhex(c["secret"])
                nxt = c["next"]
                if len(secret) != 32 or type(nxt) is not int or not 0 <= nxt < 1 << 62:
                    raise ValueError("bad secret or counter")
                out.append(ResumeChain(secret, nxt, key=bytes.fromhex(c.get("key", "")),
                                       game_id=str(c.get("game_id", ""))))
        except (KeyError, TypeError, ValueError, AttributeError) as e:
            raise ValueError(f"{self.path}: damaged resume file ({e}): move it away to "
                             "start afresh") from None
        return out

    def save(self, chains: list[ResumeChain]) -> None:
        obj = {"chains": [{"secret": c.secret.hex(), "next": c.next, "key": c.key.hex(),
                           "game_id": c.game_id} for c in chains]}
        atomic_write(self.path, (json.dumps(obj, indent=1) + "\n").encode(), 0o600)


def invitation_resume_file(data_dir: Path, code: str) -> ResumeFile:
    """Where a guest keeps the resume secret of the wormhole invitation ``code``: a hash
    of it names the file (the code itself is not written down)."""
    h = hashlib.sha256(b"splitnet/v1/invitation-file\0" + code.strip().encode()).hexdigest()
    return ResumeFile(games_dir(data_dir) / f"invite-{h[:32]}.wormhole")


HEADER_HASH_LEN = 32
_SECRETS = Map({"game_id": Bytes(exact=16), "seat": Int(0, 15),
                "header": Bytes(exact=HEADER_HASH_LEN),
                "seeds": Map({}, extra=True), "pledges": Map({}, extra=True)})
#: a Splito seat's file also keeps its chosen plays ("plays", written only once there is
#: one, so a Split game's file is unchanged; :func:`_secrets_schema`)
_PLAY = Map({"slot": Int(0, 255), "side": Str(5, 4), "card": Str(16, 1),
             "nonce": Str(64, 1), "commit": Str(64, 64)})
#: a Split seat's file also keeps its chosen move (GAME.md "Pledges"; written only once
#: there is one)
_MOVE = Map({"round": Int(1, 1 << 20), "at": Int(0, 1 << 20), "move": Map({}, extra=True)})


def keep_refusal(path: Path, record: dict[str, Any]) -> None:
    """Append one canonical msgpack map to a joiner's ``GAME_ID.refused`` file (0600,
    one ``write`` on an ``O_APPEND`` descriptor, so it is in the file as soon as this
    returns): what the host answered to a legal move of ours without a valid signed
    refusal at our head (NETWORK.md §5)."""
    fd = open_private(path, os.O_WRONLY | os.O_APPEND)
    try:
        view = memoryview(encode(record))
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)


def _secrets_schema(obj: object) -> Map:
    """The schema of a ``.secrets`` file: its optional keys only when present (a file
    without a chosen play or move is the one it always was)."""
    fields = dict(_SECRETS.fields)
    if isinstance(obj, dict):
        if "plays" in obj:
            fields["plays"] = Map({}, extra=True)
        if "move" in obj:
            fields["move"] = _MOVE
    return Map(fields)


#: what :meth:`SeedStore.check_log` needs of a game: the pledge position (round, step)
#: one of this seat's entries (kind, body) was made at, or None (``pledge_position`` of
#: splitnet.games.split.core or splitnet.games.splito.core)
PledgeAt = Callable[[str, dict[str, Any]], tuple[int, str] | None]


class SecretsMismatch(SplitnetError):
    """A ``.secrets`` file that does not match its seat's own entries in the game's log
    (NETWORK.md §9): one line naming the file, what does not match and the way on. The
    seat does not play on with it; nothing was sent or written."""


def _read_secrets(path: Path) -> bytes:
    """A ``.secrets`` file's bytes (a regular file only: a FIFO cannot hang us)."""
    from splitnet.localfiles import LocalFileError, read_local

    try:
        return read_local(path, limit=1 << 16, what="secrets file")
    except LocalFileError as e:
        raise DecodeError(e.reason) from None


class SeedStore:
    """This seat's round seeds and pledges for one game, persisted (0600, fsync) before use.

    The file is bound to the game's **header hash** (not only its id and the seat): a new
    header under an old game id — another game — is refused instead of being handed the
    old game's seeds, which were opened at the end of their rounds (R8.4).

    ``seed(round)`` returns the stored seed, or makes one (``secrets.token_bytes(32)``,
    or ``make`` — a test hook), writes the file durably and only then returns it: the
    game core asks for the seed before it builds the round's commitment.

    It is also the seat's :class:`~splitnet.game.table.PledgeBook`: ``pledge`` writes the
    digest of the deck a hop or shares are on durably before the core makes the message;
    ``pledged`` reads it back after a restart, so the core refuses another deck there.

    And it is a Splito seat's :class:`~splitnet.game.table.PlayBook`: ``choose`` writes a
    turn's chosen play (slot, side, card, nonce, commitment) durably before the core
    returns its commitment; ``chosen`` reads it back, so a seat killed between its
    commitment and its reveal opens exactly the play it committed to.

    And a Split seat's :class:`~splitnet.game.table.MoveBook`: ``choose_move`` writes the
    chosen move and its position (round, moves applied before it) durably before the
    core returns it, so the move is sent again — never another — until it is in the log,
    after a reconnect or a restart (GAME.md "Pledges").

    Reopened with the game's log, :meth:`check_log` holds the file to what the log proves
    the seat did with it, before anything is made from it (NETWORK.md §9).
    """

    def __init__(self, path: Path, game_id: bytes, seat: int, header_hash: bytes,
                 make: Callable[[int], bytes] | None = None, *,
                 check_move: Callable[[dict[str, Any]], None] | None = None) -> None:
        if type(header_hash) is not bytes or len(header_hash) != HEADER_HASH_LEN:
            raise ValueError(f"the header hash must be {HEADER_HASH_LEN} bytes")
        self.path = path
        self.game_id = game_id
        self.seat = seat
        self.header_hash = header_hash
        self.make = make
        #: the game's check of a kept move's wire form (:attr:`GameSpec.check_move`:
        #: ValueError for one that is not a move of the game; None: the map's shape only)
        self.check_move = check_move
        self.seeds: dict[int, bytes] = {}
        self.pledges: dict[tuple[int, str], bytes] = {}
        self.plays: dict[int, ChosenPlay] = {}
        self.move: ChosenMove | None = None
        if path.exists():
            self._load()

    def _load(self) -> None:
        try:
            obj = decode(_read_secrets(self.path), max_len=1 << 16)
            check(obj, _secrets_schema(obj), "secrets")
        except (OSError, DecodeError) as e:
            raise ValueError(f"{self.path}: unreadable secrets file: {e}") from None
        assert isinstance(obj, dict)
        if obj["game_id"] != self.game_id or obj["seat"] != self.seat:
            raise ValueError(f"{self.path}: secrets of another game or seat")
        if obj["header"] != self.header_hash:
            raise ValueError(f"{self.path}: secrets of another game header with the same "
                             f"game id: refusing to reuse its seeds (they may have been "
                             f"opened already); the game id was used twice")
        for k, v in obj["seeds"].items():
            if not k.isdigit() or type(v) is not bytes or len(v) != SEED_LEN:
                raise ValueError(f"{self.path}: bad seed entry {k!r}")
            self.seeds[int(k)] = v
        for k, v in obj["pledges"].items():
            rnd, _, step = k.partition(":")
            if (not rnd.isdigit() or step not in PLEDGE_STEPS or type(v) is not bytes
                    or len(v) != 32):
                raise ValueError(f"{self.path}: bad pledge entry {k!r}")
            self.pledges[(int(rnd), step)] = v
        for k, v in obj.get("plays", {}).items():
            try:
                check(v, _PLAY, f"secrets.plays.{k}")
            except DecodeError as e:
                raise ValueError(f"{self.path}: bad play entry: {e}") from None
            if not k.isdigit() or not 1 <= int(k) <= 64:
                raise ValueError(f"{self.path}: bad play entry {k!r}")
            self.plays[int(k)] = ChosenPlay(int(k), v["slot"], v["side"], v["card"],
                                            v["nonce"], v["commit"])
        if "move" in obj:
            m = obj["move"]
            try:
                check(m, _MOVE, "secrets.move")
                if self.check_move is not None:
                    self.check_move(m["move"])
            except (DecodeError, ValueError) as e:
                raise ValueError(f"{self.path}: bad move entry: {e}") from None
            self.move = ChosenMove(m["round"], m["at"], m["move"])

    def check_log(self, own: Iterable[tuple[str, dict[str, Any]]], pledge_at: PledgeAt) -> None:
        """Check the file against this seat's own entries in the log (``own``: (kind,
        body) in log order), on a restart before any seed is used (NETWORK.md §9; GAME.md
        "Pledges"). Each ``commit`` must be the commitment to the file's seed of its round
        (DECK.md §4: SHA-256 of the seed's frame, as the commit message is made): a seed
        changed since would have this honest seat send shares under another key than the
        one it committed to, and be convicted for them (DECK.md §5.3). Each hop, shares,
        reveal or opening (``pledge_at``) must have its pledge here: a file without one is
        an older copy, which would let a host serving another deck have a second hop or
        shares out of this seat (R8.1). Raises :class:`SecretsMismatch` (nothing is
        written); returns None if the file matches."""
        for kind, body in own:
            what = self._mismatch(kind, body, pledge_at)
            if what is not None:
                raise SecretsMismatch(
                    f"{self.path} does not match this game's log: {what}; restore the "
                    "newest copy of that file: this seat cannot play on without it "
                    '(GAME.md "Pledges")')

    def _mismatch(self, kind: str, body: dict[str, Any], pledge_at: PledgeAt) -> str | None:
        rnd = body.get("round")
        if kind == "commit" and type(rnd) is int:  # (another shape: the replay refuses it)
            seed = self.seeds.get(rnd)
            if seed is None:
                return f"it has no seed for round {rnd}, whose commitment is in the log"
            if commitment(self.game_id, rnd, self.seat, seed) != body.get("commit"):
                return (f"the seed of round {rnd} does not open our commitment in the log "
                        "(it was changed after the commitment was sent)")
        at = pledge_at(kind, body)
        if at is not None and at not in self.pledges:
            return (f"it has no pledge {at[0]}:{at[1]}, yet the log holds our {kind} made on "
                    "it (an older copy of the file: the pledges made since are gone)")
        return None

    def chosen(self, turn: int) -> ChosenPlay | None:
        return self.plays.get(turn)

    def choose(self, play: ChosenPlay) -> None:
        """Write the play durably (refusing to replace another one of its turn)."""
        have = self.plays.get(play.turn)
        if have is not None and have != play:
            raise ValueError(f"turn {play.turn}: another play is chosen already")
        if have is None:
            self.plays[play.turn] = play
            self._save()

    def chosen_move(self) -> ChosenMove | None:
        return self.move

    def choose_move(self, move: ChosenMove) -> None:
        """Write the move durably (refusing to replace another one at its position; a move
        at a later position supersedes it)."""
        have = self.move
        if have == move:
            return
        if have is not None and (have.round_no, have.at) == (move.round_no, move.at):
            raise ValueError(f"round {move.round_no}: another move is chosen already at "
                             "this position")
        self.move = move
        self._save()

    def pledged(self, round_no: int, step: str) -> bytes | None:
        return self.pledges.get((round_no, step))

    def pledge(self, p: Pledge) -> None:
        """Write the pledge durably (refusing to replace another one at its position)."""
        have = self.pledges.get((p.round_no, p.step))
        if have is not None and have != p.digest:
            raise ValueError(f"round {p.round_no}, {p.step}: another deck is pledged already")
        if have is None:
            self.pledges[(p.round_no, p.step)] = p.digest
            self._save()

    def seed(self, round_no: int) -> bytes:
        s = self.seeds.get(round_no)
        if s is None:
            s = self.make(round_no) if self.make else secrets.token_bytes(SEED_LEN)
            self.seeds[round_no] = s
            self._save()
        return s

    def _save(self) -> None:
        obj = {"game_id": self.game_id, "seat": self.seat, "header": self.header_hash,
               "seeds": {str(k): v for k, v in sorted(self.seeds.items())},
               "pledges": {f"{r}:{step}": d for (r, step), d in sorted(self.pledges.items())}}
        if self.plays:
            obj["plays"] = {str(t): {"slot": p.slot, "side": p.side, "card": p.card,
                                     "nonce": p.nonce, "commit": p.commit}
                            for t, p in sorted(self.plays.items())}
        if self.move is not None:
            obj["move"] = {"round": self.move.round_no, "at": self.move.at,
                           "move": self.move.move}
        atomic_write(self.path, encode(obj), 0o600)


class Transcript:
    """A game's transcript file: :meth:`write` appends a record at once (it survives the
    process being killed), :meth:`sync` makes everything written so far durable.

    Opening, repairing a torn tail and the exclusive lock are
    :class:`~splitnet.session.transcript.TranscriptWriter`'s; records are appended in its
    format (``length (4 bytes BE) ‖ record``) through a second ``O_APPEND`` descriptor so
    that ``fsync`` can run in a helper thread while the game goes on.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        if path.exists():
            self._writer = TranscriptWriter.open_existing(path)
        else:
            self._writer = TranscriptWriter(path)
        self.records: list[bytes] = list(self._writer.records)
        self.repaired = self._writer.repaired
        self._fd = os.open(path, os.O_WRONLY | os.O_APPEND)
        self._lock = threading.Lock()
        self.written = len(self.records)
        self.synced = self.written
        self._wake = threading.Condition()
        self._dirty = False
        self._stop = False
        self._thread: threading.Thread | None = None

    def write(self, record: bytes) -> None:
        data = len(record).to_bytes(4, "big") + record
        view = memoryview(data)
        while view:
            view = view[os.write(self._fd, view):]
        self.written += 1

    def sync(self) -> int:
        """fsync; returns how many records are now durable."""
        with self._lock:
            n = self.written
            if self._fd >= 0:
                os.fsync(self._fd)
            self.synced = max(self.synced, n)
            return n

    # -- background syncing (the host: durable soon after, never in the game's path)
    def start_syncer(self, interval: float = 0.05) -> None:
        def run() -> None:
            while True:
                with self._wake:
                    self._wake.wait_for(lambda: self._dirty or self._stop)
                    if self._stop:
                        return
                    self._dirty = False
                with contextlib.suppress(OSError):
                    self.sync()
                time.sleep(interval)

        self._thread = threading.Thread(target=run, name="transcript-sync", daemon=True)
        self._thread.start()

    def kick(self) -> None:
        with self._wake:
            self._dirty = True
            self._wake.notify()

    def close(self) -> None:
        if self._thread is not None:
            with self._wake:
                self._stop = True
                self._wake.notify()
            self._thread.join(5)
            self._thread = None
        if self._fd >= 0:
            with contextlib.suppress(OSError):
                self.sync()
            with self._lock:
                os.close(self._fd)
                self._fd = -1
        self._writer.close()


def meta_now(**kw: Any) -> GameMeta:
    return GameMeta(created=time.time(), **kw)
