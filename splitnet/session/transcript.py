"""The log on disk: the transcript file (format in ``protocol/TRANSCRIPT.md``).

::

    file   = MAGIC record*
    MAGIC  = b"SPLITLOG/1\\n"                       (11 bytes)
    record = length (4 bytes, big-endian, 1 … MAX_RECORD) ‖ record bytes

The file only ever grows: :class:`TranscriptWriter` appends each record with one
``write`` on an ``O_APPEND`` descriptor followed by ``fsync``, so after a crash the file
holds every record that was acknowledged plus, at worst, a *torn tail* — a prefix of the
record being written (or zero bytes, which some file systems leave after a crash).
:func:`read_transcript` reports a torn tail as :class:`TornTail`;
:meth:`TranscriptWriter.open_existing` cuts it off and says so. A torn tail is only ever
an incomplete final record: a complete record, a wrong magic, an impossible length or a
tail that is not a prefix of some msgpack value is corruption (:class:`TranscriptError`
with the byte offset and record index) and is never "repaired".

A transcript that ends exactly on a record boundary is a valid, shorter log; the file alone
cannot tell that later records are missing (the network layer re-fetches them).
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from types import TracebackType
from typing import Final

import msgpack

from splitnet.durable import fsync_dir, open_private
from splitnet.errors import SplitnetError

from .log import MAX_RECORD, Log, LogError

__all__ = [
    "MAGIC",
    "TornTail",
    "TranscriptError",
    "TranscriptWriter",
    "load_log",
    "read_transcript",
    "transcript_path",
]

MAGIC: Final = b"SPLITLOG/1\n"
_LEN: Final = 4
_log = logging.getLogger(__name__)

try:  # POSIX: one writer per transcript
    import fcntl
except ImportError:  # pragma: no cover
    fcntl = None  # type: ignore[assignment]


class TranscriptError(SplitnetError):
    """A transcript that cannot be read as a log: where (byte offset, record index) and why.

    ``seat`` is set when a record was well framed but failed log verification (the
    :class:`~splitnet.session.log.LogError` is the ``__cause__``).
    """

    def __init__(
        self, reason: str, *, path: Path, offset: int, index: int, seat: int | None = None
    ) -> None:
        super().__init__(f"{path}: record {index} at byte {offset}: {reason}")
        self.reason = reason
        self.path = path
        self.offset = offset
        self.index = index
        self.seat = seat


class TornTail(TranscriptError):
    """The file ends inside a record (a crash mid-write). ``records`` holds the complete
    records before it; ``offset`` is where the torn record starts (the size to truncate to)."""

    def __init__(
        self, reason: str, *, path: Path, offset: int, index: int, records: list[bytes]
    ) -> None:
        super().__init__(reason, path=path, offset=offset, index=index)
        self.records = records


def transcript_path(data_dir: Path, game_id: bytes) -> Path:
    """``DATA_DIR/games/<game_id hex>.splitlog``."""
    return data_dir / "games" / f"{game_id.hex()}.splitlog"


def _is_incomplete_msgpack(data: bytes) -> bool:
    """True iff *data* is a proper prefix of some msgpack value (needs more bytes)."""
    if not data:
        return True
    u = msgpack.Unpacker(max_buffer_size=MAX_RECORD + 16, raw=True, strict_map_key=False)
    u.feed(data)
    try:
        u.skip()
    except msgpack.OutOfData:
        return True
    except Exception:
        return False
    return False


def _scan(data: bytes, path: Path) -> tuple[list[bytes], list[int], TornTail | None]:
    """Split *data* into records; returns (records, their offsets, torn tail or None)."""
    records: list[bytes] = []
    offsets: list[int] = []

    def torn(offset: int, reason: str) -> tuple[list[bytes], list[int], TornTail]:
        t = TornTail(reason, path=path, offset=offset, index=len(records), records=records)
        return records, offsets, t

    if len(data) < len(MAGIC):
        if MAGIC.startswith(data) or not data.strip(b"\0"):
            return torn(0, f"file ends inside the magic line ({len(data)} bytes)")
        raise TranscriptError("not a splitnet transcript (bad magic)", path=path, offset=0, index=0)
    if data[: len(MAGIC)] != MAGIC:
        raise TranscriptError("not a splitnet transcript (bad magic)", path=path, offset=0, index=0)
    off = len(MAGIC)
    while off < len(data):
        rest = len(data) - off
        if rest < _LEN:
            return torn(off, f"file ends inside a length prefix ({rest} of {_LEN} bytes)")
        n = int.from_bytes(data[off : off + _LEN], "big")
        if n == 0 and not data[off:].strip(b"\0"):
            return torn(off, f"file ends with {rest} zero bytes instead of a record")
        if not 1 <= n <= MAX_RECORD:
            raise TranscriptError(
                f"record length {n} is outside 1…{MAX_RECORD}",
                path=path, offset=off, index=len(records),
            )
        body = data[off + _LEN : off + _LEN + n]
        if len(body) < n:
            if _is_incomplete_msgpack(body) or not body.strip(b"\0"):
                return torn(off, f"file ends inside a record ({len(body)} of {n} bytes)")
            raise TranscriptError(
                f"record claims {n} bytes but only {len(body)} follow, and they are not an "
                "incomplete record (a corrupt length?)",
                path=path, offset=off, index=len(records),
            )
        records.append(body)
        offsets.append(off)
        off += _LEN + n
    return records, offsets, None


def read_transcript(path: Path, *, repair: bool = False) -> list[bytes]:
    """The records of a transcript file (framing only; :func:`load_log` verifies them).

    A torn tail raises :class:`TornTail` unless *repair* is true, in which case it is left
    out of the result (the file itself is never modified here; see
    :meth:`TranscriptWriter.open_existing`).
    """
    return records_from_bytes(Path(path).read_bytes(), Path(path), repair=repair)


def records_from_bytes(data: bytes, path: Path, *, repair: bool = False) -> list[bytes]:
    """The records of a transcript's bytes *data* (read from *path*), as
    :func:`read_transcript`."""
    records, _, tail = _scan(data, Path(path))
    if tail is not None and not repair:
        raise tail
    return records


def load_log(path: Path, *, repair: bool = False) -> Log:
    """Read a transcript and re-verify every record into a :class:`Log`."""
    path = Path(path)
    records, offsets, tail = _scan(path.read_bytes(), path)
    if tail is not None and not repair:
        raise tail
    log = Log()
    for i, (rec, off) in enumerate(zip(records, offsets, strict=True)):
        try:
            log.append_record(rec)
        except LogError as e:
            raise TranscriptError(str(e), path=path, offset=off, index=i, seat=e.seat) from e
    return log


class TranscriptWriter:
    """Appends records to a transcript, each one durable (fsync) before :meth:`append`
    returns. Holds an exclusive lock on the file (POSIX) so two processes cannot interleave.

    ``TranscriptWriter(path)`` creates the file (mode 0600, directory created 0700 if needed)
    or opens a clean existing one for append; an existing file with a torn tail raises
    :class:`TornTail` — use :meth:`open_existing` to repair it.
    """

    def __init__(self, path: Path, *, _repair: bool = False) -> None:
        self.path = Path(path)
        #: Complete records already in the file when it was opened.
        self.records: list[bytes] = []
        #: What :meth:`open_existing` cut off, in words (None if nothing).
        self.repaired: str | None = None
        self._fd = -1
        # 0600 in a 0700 directory whatever the umask, an older 0644 file closed too
        # (NETWORK.md §9): a live game's transcript is for its player's eyes only
        try:
            fd = open_private(self.path, os.O_RDWR | os.O_APPEND | os.O_EXCL)
            created = True
        except FileExistsError:
            fd = open_private(self.path, os.O_RDWR | os.O_APPEND, create=False)
            created = False
        try:
            self._lock(fd)
            if created:
                self._write_all(fd, MAGIC)
                os.fsync(fd)
                fsync_dir(self.path.parent)
            else:
                self._open(fd, _repair)
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd
        self.count = len(self.records)

    @classmethod
    def open_existing(cls, path: Path) -> TranscriptWriter:
        """Open a transcript after a crash: a torn tail (only an incomplete final record)
        is truncated — :attr:`repaired` says what was cut, and a warning is logged.
        Corruption anywhere else raises :class:`TranscriptError`. The file must exist."""
        if not Path(path).exists():
            raise FileNotFoundError(f"{path}: no transcript to reopen")
        return cls(path, _repair=True)

    def _lock(self, fd: int) -> None:
        if fcntl is None:  # pragma: no cover
            return
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise TranscriptError(
                "another process is writing this transcript", path=self.path, offset=0, index=0
            ) from None

    def _open(self, fd: int, repair: bool) -> None:
        size = os.fstat(fd).st_size
        data = os.pread(fd, size, 0) if size else b""
        records, _, tail = _scan(data, self.path)
        self.records = records
        if tail is None:
            return
        if not repair:
            raise tail
        cut = size - tail.offset
        os.ftruncate(fd, tail.offset)
        if tail.offset == 0:
            self._write_all(fd, MAGIC)
        os.fsync(fd)
        self.repaired = f"cut {cut} bytes of a torn record at byte {tail.offset}: {tail.reason}"
        _log.warning("%s: %s", self.path, self.repaired)

    @staticmethod
    def _write_all(fd: int, data: bytes) -> None:
        view = memoryview(data)
        while view:
            n = os.write(fd, view)
            view = view[n:]

    def append(self, record: bytes) -> None:
        """Append one record durably (write + fsync)."""
        if self._fd < 0:
            raise ValueError("transcript is closed")
        if type(record) is not bytes or not 1 <= len(record) <= MAX_RECORD:
            raise ValueError(f"a record is 1…{MAX_RECORD} bytes")
        self._write_all(self._fd, len(record).to_bytes(_LEN, "big") + record)
        os.fsync(self._fd)
        self.count += 1

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)  # also releases the lock
            self._fd = -1

    def __enter__(self) -> TranscriptWriter:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __del__(self) -> None:
        self.close()
