"""``splitnet verify``: audit a game from its transcript alone.

Checks, in log order: every signature and the hash chain (session layer), then — as an
observer holding no secret — every commitment, key proof, shuffle hop and its proof,
every decryption share and its proof, every move through the rules engine, each round's
openings against the commitments and hops, the full-knowledge replay of every round and
the scores. The first failure names the entry, the seat at fault and what was wrong.

What it prints and its exit status are specified in protocol/TRANSCRIPT.md §10:
0 a finished game, every check passed; 1 a check failed (or the file is no transcript);
3 incomplete: every record verified, but the game is not over (a torn tail — a crash
mid-write — is reported, and the complete records before it are verified).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from splitnet.game.rematch import (
    RematchError,
    check_follows,
    dealer_rule,
    first_dealer,
    parse_rematch,
)
from splitnet.game.table import PROTOCOL, GameError, NetCore, entry_position
from splitnet.games import Seating, game_of
from splitnet.games.split.record import dumps
from splitnet.localfiles import MAX_TRANSCRIPT_BYTES, LocalFileError, read_local
from splitnet.session.log import (
    MAX_FORK_BYTES,
    Header,
    Log,
    LogError,
    check_fork_evidence,
    older_header,
)
from splitnet.session.transcript import TornTail, TranscriptError, records_from_bytes
from splitnet.text import shown

#: Exit statuses of ``splitnet verify`` (protocol/TRANSCRIPT.md §10).
EXIT_OK, EXIT_FAILED, EXIT_INCOMPLETE = 0, 1, 3


@dataclass
class Verdict:
    ok: bool
    summary: str
    record: dict[str, Any] | None = None
    seq: int | None = None
    seat: int | None = None
    reason: str = ""
    #: Every record checked out but the game is not over (no verdict against anyone).
    incomplete: bool = False


def observer(h: Header) -> NetCore:
    """A core of no seat for the game this header starts (its game's,
    :mod:`splitnet.games`): what a verifier applies the entries to (raises ValueError for
    settings the game refuses)."""
    return game_of(h.settings).seat(Seating(h, None)).core


class LiveVerifier:
    """``splitnet verify``, one record at a time, as they arrive (a watcher follows a
    game this way): :meth:`feed` checks a record the moment it comes — every signature,
    the hash chain, and the entry applied to a core of no seat — and returns the
    failure's :class:`Verdict` at the first bad record (the same verdict, naming the
    same entry and seat, that :func:`verify_records` gives for the records so far; the
    checker then takes nothing more); :meth:`verdict` is the verdict on everything fed
    (incomplete while the game is not over). It holds no secret: what it can read is
    what anyone holding the log can (R8, S7), the public cards."""

    def __init__(self) -> None:
        self.log = Log()
        self.core: NetCore | None = None
        self._names: list[str] = []
        #: the verdict of the first bad record (nothing more is taken), or None
        self.failed: Verdict | None = None

    @property
    def entries(self) -> int:
        """How many records checked out so far."""
        return len(self.log)

    def feed(self, rec: bytes) -> Verdict | None:
        """Check the next record; None if it checks out, else the failure (kept in
        :attr:`failed`; every later call returns it again and takes nothing)."""
        if self.failed is None:
            self.failed = self._take(rec)
        return self.failed

    def _take(self, rec: bytes) -> Verdict | None:
        log = self.log
        i = len(log)
        try:
            entry = log.append_record(rec)
        except LogError as e:
            old = older_header(rec) if i == 0 else None  # splitnet/1 … /3: no `seen`
            if old is not None and (other := _other_protocol(old.settings)) is not None:
                return other
            return _fail(i, e.seat, f"log: {e}")
        if entry.seq == 0:
            h = log.header
            self._names = [p.name for p in h.players]
            if (other := _other_protocol(h.settings)) is not None:
                return other
            try:
                self.core = observer(h)
            except ValueError as e:
                return _fail(0, h.host, f"header: {e}")
            return None
        if entry.kind == "accept":
            return None
        core = self.core
        assert core is not None
        if not log.all_accepted:
            return _fail(entry.seq, entry.author, "game message before every player accepted "
                         "the header")
        try:
            core.apply(entry.author, entry.kind, entry.body, at=entry_position(entry))
        except GameError as e:
            return _fail(entry.seq, e.seat, str(e))
        if core.verdict is not None:  # a valid entry that ends the game with a verdict
            return _fail(entry.seq, core.verdict.seat, f"the game stopped: {core.verdict}")
        return None

    def verdict(self) -> Verdict:
        """The verdict on every record fed so far (protocol/TRANSCRIPT.md §10)."""
        if self.failed is not None:
            return self.failed
        core, log = self.core, self.log
        if core is None:
            return Verdict(False, "incomplete: the transcript holds no record",
                           reason="empty transcript", incomplete=True)
        names = [shown(n) for n in self._names]  # the host's text: shown, never obeyed
        end = game_of(log.header.settings).ending(core, names)
        if end.record is None:
            return Verdict(False, f"incomplete: the transcript ends {end.stopped_at}; "
                           f"everything up to entry {len(log) - 1} verified",
                           record=end.partial, reason="the game did not finish",
                           incomplete=True)
        if end.fault is not None:
            return _fail(len(log) - 1, None, end.fault)
        lines = [f"game {log.game_id.hex()} — {end.title}{len(names)} players: "
                 f"{', '.join(names)}",
                 f"{len(log)} entries, signatures and hash chain: ok"]
        rematch = parse_rematch(log.header.settings)
        if rematch is not None:  # GAME.md "Rematch": checked against that game given both
            lines.append(f"rematch of game {rematch.game.hex()}: "
                         f"{names[rematch.first_dealer]} {end.dealt}")
        lines.extend(end.lines)
        lines.append("shuffle fair: yes")
        return Verdict(True, "\n".join(lines), record=end.record)


def verify_records(records: list[bytes]) -> Verdict:
    """Verify a transcript given as its records (see protocol/TRANSCRIPT.md). The header
    names the game (:func:`splitnet.games.game_of`: Split without a ``game`` key, Splito,
    or one registered from outside the package), whose spec builds the core of no seat
    the entries are applied to and says what its end prints. The records are checked one
    by one as a :class:`LiveVerifier` checks them as they arrive: the same verdict."""
    checker = LiveVerifier()
    for rec in records:
        if (failed := checker.feed(rec)) is not None:
            return failed
    return checker.verdict()


def _other_protocol(settings: Mapping[str, object]) -> Verdict | None:
    """A header of another splitnet protocol is no transcript this splitnet can verify:
    said in one line (TRANSCRIPT.md §10), naming nobody."""
    other = settings.get("protocol")
    if not (isinstance(other, str) and other != PROTOCOL and other.startswith("splitnet/")):
        return None
    why = f"the transcript is of protocol {other[:40]!r}; this splitnet verifies {PROTOCOL} only"
    return Verdict(False, f"unsupported protocol: {why}", seq=0, reason=why)


def _fail(seq: int, seat: int | None, reason: str) -> Verdict:
    who = f"seat {seat}" if seat is not None else "seat unknown"
    reason = shown(reason)  # it may quote what a peer sent
    return Verdict(False, f"FAILED at entry {seq} ({who}): {reason}", seq=seq, seat=seat,
                   reason=reason)


def _read_records(path: Path) -> list[bytes] | None:
    """The records of the transcript at ``path`` (a torn tail cut, said on stderr), or
    None after saying on stderr why it is no transcript."""
    try:
        data = read_local(path, limit=MAX_TRANSCRIPT_BYTES, what="transcript")
    except LocalFileError as e:  # missing, a directory, a FIFO, too big: one line
        print(f"splitnet verify: {e}", file=sys.stderr)
        return None
    try:
        return records_from_bytes(data, path)
    except TornTail as e:
        # A crash mid-write: the complete records before it are still a log to verify.
        print(shown(f"splitnet verify: {e} — a torn tail (a crash while writing); verifying "
                    f"the {e.index} complete record{'s' if e.index != 1 else ''} before it"),
              file=sys.stderr)
        return e.records
    except TranscriptError as e:
        print(f"splitnet verify: {shown(str(e))}", file=sys.stderr)
        return None


def fork_proof(path: Path, records: list[bytes]) -> str | None:
    """The line convicting the host if a ``.fork`` file beside the transcript holds two
    records it signed for one seq (a joiner writes it when the host equivocates,
    NETWORK.md §6), else None. A file that proves nothing (damaged, two acks, records of
    another host) convicts nobody; a missing one is the usual case."""
    fork = path.with_suffix(".fork")
    if not records or not fork.is_file():
        return None
    try:
        data = read_local(fork, limit=MAX_FORK_BYTES, what="fork evidence")
        log = Log()
        log.append_record(records[0])
        host = log.header.host
        at = check_fork_evidence(data, records, log.header.key(host))
    except (LocalFileError, LogError):
        return None
    if at is None:
        return None
    return (f"FAILED at entry {at} (seat {host}): the host signed two different records "
            f"for seq {at} — it equivocated (the proof: {shown(str(fork))})")


def chain_problem(prev: list[bytes], records: list[bytes]) -> str | None:
    """Why the game of ``records`` is not the rematch of the (finished) game of ``prev``
    (GAME.md "Rematch": its header names that game and its final head, keeps the seats and
    rules, and its first dealer is the previous one's left neighbour, R3.2, S4.1) — one line
    naming the field — or None when it follows."""
    logs: list[Log] = []
    for recs in (prev, records[:1]):
        log = Log()
        try:
            for rec in recs:
                log.append_record(rec)
        except LogError as e:
            return f"log: {e}"
        if not recs:
            return "the transcript holds no record"
        logs.append(log)
    try:
        check_follows(logs[0].header, logs[0].head(), logs[1].header)
    except RematchError as e:
        return shown(str(e))
    return None


def run_verify(path: Path | list[Path], as_json: bool = False) -> int:
    """``splitnet verify``: the summary on stdout and 0, or what failed on stderr and 1,
    or "incomplete: …" on stderr and 3 (protocol/TRANSCRIPT.md §10). Given several
    transcripts (a game and its rematches, in order), each is verified, and each after the
    first must be the rematch of the one before it (GAME.md "Rematch")."""
    paths = path if isinstance(path, list) else [path]
    if as_json and len(paths) > 1:
        print("splitnet verify: --json takes one transcript", file=sys.stderr)
        return EXIT_FAILED
    worst = EXIT_OK
    prev: list[bytes] | None = None
    for i, p in enumerate(paths):
        records = _read_records(p)
        if records is None:
            return EXIT_FAILED
        if len(paths) > 1:
            print(f"== {shown(str(p))}", flush=True)
        v = verify_records(records)
        forked = fork_proof(p, records)
        if forked is not None:
            print(forked, file=sys.stderr, flush=True)
            return EXIT_FAILED
        if as_json and v.ok and v.record is not None:  # (every game's record: one form)
            sys.stdout.write(dumps(v.record))
        else:  # every line ours; names and reasons in it were shown() where they came in
            print(v.summary, file=sys.stdout if v.ok else sys.stderr, flush=True)
        if not v.ok:
            worst = max(worst, EXIT_INCOMPLETE if v.incomplete else EXIT_FAILED)
            if worst == EXIT_FAILED:
                return worst
        if prev is not None:
            why = chain_problem(prev, records)
            if why is not None:
                print(f"FAILED: {shown(str(p))} is not the rematch of {shown(str(paths[i - 1]))}"
                      f": {why}", file=sys.stderr, flush=True)
                return EXIT_FAILED
            log = Log()
            log.append_record(records[0])
            print(f"rematch of the game before: same seats and rules, first dealer "
                  f"{shown(log.header.players[first_dealer(log.header.settings)].name)} "
                  f"({dealer_rule(log.header.settings)}): ok", flush=True)
        prev = records
    return worst
