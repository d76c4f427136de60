"""A watcher's side (protocol/NETWORK.md §14): connect with the watch code, take the log
so far and then each record as the host orders it, check every one, keep the transcript.

The watcher holds no seat and no secret: it says ``watch`` (not ``hello``) after the
host's ``challenge``, and then only answers pings and reports its progress (a ``ping``
whose ``n`` is the records it holds, which opens the host's window for it). Each record
is handed to ``check`` first — the application passes ``splitnet verify``'s live
checker; this layer names no game — and written to ``DATA_DIR/watched/GAME.splitlog``
whatever the check says, so ``splitnet verify`` and ``replay`` read the same file and
reach the same verdict. A bad record stops the watcher with that verdict.

A lost connection (the host dropped it as too slow, a restart, a pulled cable) is tried
again with the joiner's back-off (0.1 s doubling to 2 s, within ``retry_total``); the
watcher resumes from the records it holds, and so does a watcher run again after it was
killed (its ``watch`` frame names the game it holds part of). The transport is the
caller's (``connect``): TCP on the LAN, a watch invitation's wormhole across the internet.

Its own checks of the host (NETWORK.md §14 item 9): ``pin`` (``--host-key``) refuses a
host under any other key before the ``watch``; a resumed file's header must name the
host whose challenge we verified; within a run every reconnect shows the first key; and
:func:`watch_wrap` stops after ``MAX_UNANSWERED`` WATCH JOINs left unanswered in a row
(each one guess of the watch code for whoever answers).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from pathlib import Path

from splitnet.net.config import NetSettings
from splitnet.net.frames import Bye, Challenge, Frame, HostError, Ping, Pong, Rec, Watch, Welcome
from splitnet.net.framing import FrameTooLarge
from splitnet.net.joincode import JoinCode
from splitnet.net.secure import MAX_UNANSWERED, SecureError, SecureLink
from splitnet.net.secure_watch import watch_side
from splitnet.net.wire import (
    NET_PROTOCOL,
    Channel,
    ChannelClosed,
    ChannelWrap,
    Connect,
    ErrorCode,
    WireError,
    binding_of,
    decode_frame,
    encode_typed,
    plain,
    verify_challenge,
)
from splitnet.session.identity import fingerprint
from splitnet.session.log import Log, LogError
from splitnet.session.transcript import TranscriptWriter, read_transcript

__all__ = ["WatchFatal", "WatchNode", "check_fingerprint", "watch_wrap", "watched_path"]

_log = logging.getLogger("splitnet.net.watcher")

#: the watcher reports its progress every this many records (and on each host ping)
REPORT_EVERY = 16
#: host errors after which a watcher tries again (it resumes): nothing was judged
#: (not ``replaced``: two watchers of one name at one address would take turns forever;
#: the older one stops, saying why — a killed one's rerun is the newer)
_RETRY = (ErrorCode.SLOW.value, ErrorCode.BUSY.value)


#: a game's header names another host than the one whose challenge we verified
_OTHER_HOST = "the game's header names another host than the one we watch"


class WatchFatal(Exception):
    """The watcher stops: a bad record (the verdict), a refusal, or a host gone too long."""


def watched_path(data_dir: Path, game_id: bytes) -> Path:
    """``DATA_DIR/watched/<game id hex>.splitlog``: a watched game's transcript."""
    return data_dir / "watched" / f"{game_id.hex()}.splitlog"


def watch_wrap(code: JoinCode | str | bytes, net: NetSettings, *,
               max_unanswered: int = MAX_UNANSWERED) -> ChannelWrap:
    """The watch code's handshake (SECURE.md §12) around each fresh connection; a failed
    one is a :class:`WireError` (fatal but for a busy host or a timeout). Each WATCH JOIN
    gives whoever answers at that address one guess of the watch code: after
    ``max_unanswered`` in a row that got neither an ACCEPT nor a REFUSE (the connection
    ended, or nothing came back in time) the watcher stops, as a joiner does
    (SECURITY.md row 144)."""
    unanswered = 0

    async def wrap(channel: Channel, role: str) -> Channel:
        nonlocal unanswered
        try:
            session = await watch_side(channel, code, timeout=net.handshake_timeout)
        except SecureError as e:
            channel.close()
            if e.code == "unanswered":
                unanswered += 1
                if unanswered >= max_unanswered:
                    raise WireError(ErrorCode.AUTH, f"{e} — {unanswered} times in a row: "
                                    "stopping, since each attempt lets whoever answers "
                                    "there test one guess of the watch code; check the "
                                    "address and the code with the host", fatal=True) from None
                raise WireError(ErrorCode.AUTH, str(e)) from None
            code_ = ErrorCode.BUSY if e.code == "busy" else ErrorCode.AUTH
            raise WireError(code_, str(e), fatal=e.code not in ("busy", "timeout")) from None
        except TimeoutError:
            channel.close()
            raise WireError(ErrorCode.AUTH, "the watch handshake timed out") from None
        unanswered = 0
        return SecureLink(channel, session, closed_exc=ChannelClosed)

    return wrap


def check_fingerprint(text: str) -> str:
    """A host key fingerprint as ``--host-key`` takes it (five groups of four hex
    digits, as the host prints it; case and dashes as you like), in the host's form;
    :class:`ValueError` naming what is wrong.

    >>> check_fingerprint("AB12CD34ef56-0123-4567")
    'ab12-cd34-ef56-0123-4567'
    """
    digits = text.strip().replace("-", "").lower()
    if len(digits) != 20 or any(c not in "0123456789abcdef" for c in digits):
        raise ValueError("a host key fingerprint is 20 hex digits in five groups of four, "
                         "as the host prints it (e.g. 3f2a-91c0-5be7-d4a8-0c6e)")
    return "-".join(digits[i:i + 4] for i in range(0, 20, 4))


class WatchNode:
    """Follows one game at a host until it is over, a record is bad, or the host is
    gone for ``retry_total``. ``check(record)`` returns None or the verdict line of the
    first bad record; ``on_record(seq, record)`` hears each record that checked out."""

    def __init__(self, data_dir: Path, name: str, connect: Connect, *,
                 check: Callable[[bytes], str | None] | None = None,
                 wrap: ChannelWrap = plain, net: NetSettings | None = None,
                 on_record: Callable[[int, bytes], None] | None = None,
                 pin: str | None = None,
                 on_host: Callable[[bytes], None] | None = None,
                 resuming: bool = False) -> None:
        self.data_dir = data_dir
        self.name = name
        self.connect = connect
        self.check = check
        self.wrap = wrap
        self.net = net or NetSettings()
        self.on_record = on_record
        #: ``--host-key``: the fingerprint the host's key must have (check_fingerprint)
        self.pin = check_fingerprint(pin) if pin is not None else None
        #: hears the host's key once, as its first challenge verifies (to show it)
        self.on_host = on_host
        #: it was in this game before (a rerun that holds a watch invitation's resume
        #: secret): the long bound, ``retry_total``, counts at once, as for a joiner
        #: resuming its game — the host may take ``wormhole_idle`` to meet it again
        self.resuming = resuming
        self.log = Log()
        self.host_key: bytes | None = None
        self.writer: TranscriptWriter | None = None
        self.path: Path | None = None
        #: the first bad record's verdict line, if one came
        self.failed: str | None = None
        #: the host said the game is over, with every record sent
        self.over = False
        #: the host's record count when it welcomed us (how far the catch-up goes)
        self.target = 0
        self.connections = 0
        #: records taken back from this game's file when it resumed (a rerun), if any
        self.resumed = 0
        self.status = "connecting…"
        self._reported = 0
        self._ch: Channel | None = None
        self.task: asyncio.Task[None] | None = None

    @property
    def have(self) -> int:
        return len(self.log)

    def start(self) -> asyncio.Task[None]:
        self.task = asyncio.ensure_future(self.run())
        return self.task

    def _now(self) -> float:
        return asyncio.get_running_loop().time()

    async def run(self) -> None:
        """Connect, follow, reconnect with back-off while the host is away; return when
        the game is over; raise :class:`WatchFatal` on a bad record or a refusal."""
        try:
            gap, lost, began, reached = 0.1, None, self._now(), self.resuming
            while True:
                try:
                    raw = await self.connect()
                except (OSError, TimeoutError) as e:
                    why = f"cannot reach the host ({type(e).__name__})"
                else:
                    try:
                        await self._session(raw)
                        return
                    except WireError as e:
                        if e.fatal:
                            raise WatchFatal(f"the host refused to let us watch: {e.reason}"
                                             ) from None
                        why = e.reason
                    except (ChannelClosed, ConnectionError, TimeoutError, FrameTooLarge,
                            asyncio.IncompleteReadError) as e:
                        why = f"lost the host ({type(e).__name__}: {e})"
                    finally:
                        raw.close()
                        self._ch = None
                    if self.connections:  # it was in: the bound starts again
                        lost, gap, self.connections, reached = None, 0.1, 0, True
                now = self._now()
                if not reached and now - began > self.net.first_contact:
                    raise WatchFatal(f"{why} — is the game still open? (gave up after "
                                     f"{self.net.first_contact:g} s)")
                lost = now if lost is None else lost
                if now - lost > self.net.retry_total:
                    raise WatchFatal(f"{why}; gave up after {self.net.retry_total:g} s")
                self.status = f"{why} — retrying"
                _log.info("%s", self.status)
                await asyncio.sleep(gap)
                gap = min(2.0, gap * 2)
        finally:
            if self.writer is not None:
                self.writer.close()
                self.writer = None

    async def _recv(self, ch: Channel, timeout: float) -> Frame:
        async with asyncio.timeout(timeout):
            payload = await ch.recv()
        return decode_frame(payload, from_host=True)

    async def _session(self, raw: Channel) -> None:
        async with asyncio.timeout(self.net.handshake_timeout):
            ch = await self.wrap(raw, "client")
        self._ch = ch
        f = await self._recv(ch, self.net.handshake_timeout)
        if not isinstance(f, Challenge):
            raise WireError(ErrorCode.PROTOCOL, f"expected a challenge, got {f.T!r}", fatal=True)
        if f.bind != binding_of(ch) or not verify_challenge(f):
            raise WireError(ErrorCode.AUTH, "the host's challenge does not verify for this "
                            "connection", fatal=True)
        if self.pin is not None and fingerprint(f.key) != self.pin:
            raise WatchFatal(f"the host's key fingerprint is {fingerprint(f.key)}, not "
                             f"{self.pin} (--host-key): this is not the host you meant; "
                             "nothing was watched")
        if self.host_key is not None and f.key != self.host_key:
            raise WireError(ErrorCode.AUTH, "the host at this address has another identity "
                            "than the game's host", fatal=True)
        if self.host_key is None and self.on_host is not None:
            self.on_host(f.key)
        self.host_key = f.key
        if f.game is not None and not len(self.log):
            self._resume(f.game)
        game = self.log.game_id if len(self.log) else None
        if game is not None and f.game is not None and f.game != game:
            raise WireError(ErrorCode.UNKNOWN_GAME, "the host plays another game than the "
                            "one we watched", fatal=True)
        head = self.log.head() if len(self.log) else None
        ch.send(encode_typed(Watch(NET_PROTOCOL, self.name, game, self.have, head)))
        w = await self._recv(ch, self.net.handshake_timeout)
        while isinstance(w, Ping):
            ch.send(encode_typed(Pong(w.n)))
            w = await self._recv(ch, self.net.handshake_timeout)
        if isinstance(w, HostError):
            raise WireError(ErrorCode.received(w.code) or ErrorCode.PROTOCOL, w.reason,
                            fatal=w.fatal and w.code not in _RETRY)
        if not isinstance(w, Welcome):
            raise WireError(ErrorCode.PROTOCOL, f"expected welcome, got {w.T!r}", fatal=True)
        self.connections += 1
        self.target = w.count
        self._reported = self.have
        self.status = (f"watching (catching up: {self.have} of {w.count} records)"
                       if self.have < w.count else "watching")
        while True:
            frame = await self._recv(ch, self.net.host_timeout)
            match frame:
                case Rec(seq, record):
                    self._on_record(seq, record)
                    if self.have - self._reported >= REPORT_EVERY:
                        self._report(ch)
                case Ping(n):
                    ch.send(encode_typed(Pong(n)))
                    self._report(ch)
                case Bye(reason):
                    self.over = True
                    self.status = f"the host said: {reason}"
                    return
                case HostError(code, reason, fatal):
                    if fatal:
                        raise WireError(ErrorCode.received(code) or ErrorCode.PROTOCOL,
                                        reason, fatal=code not in _RETRY)
                    _log.warning("the host refused a frame of ours: %s: %s", code, reason)
                case _:
                    pass  # nothing else concerns a watcher (lobby, peers, acks …)

    def _report(self, ch: Channel) -> None:
        if self.have != self._reported or self.have < self.target:
            self._reported = self.have
            ch.send(encode_typed(Ping(self.have)))

    def _resume(self, game_id: bytes) -> None:
        """A game we watched part of before (killed, or dropped): take back its records."""
        path = watched_path(self.data_dir, game_id)
        if not path.exists():
            return
        self.path = path
        for rec in read_transcript(path, repair=True):
            self._take(rec, save=False)
            if self.failed == _OTHER_HOST:  # (a game another host showed under this id)
                raise WatchFatal(f"{self.failed} — in {path}, which this host's game "
                                 "cannot continue: move that file away to watch this game")
            if self.failed is not None:
                raise WatchFatal(self.failed)
        self.resumed = self.have

    def _on_record(self, seq: int, record: bytes) -> None:
        if seq < self.have:
            if self.log.entries[seq].record != record:
                self.failed = (f"the host sent two different records {seq} (equivocation) "
                               f"[host at fault]")
                raise WatchFatal(self.failed)
            return
        if seq > self.have:
            raise WireError(ErrorCode.PROTOCOL, f"record {seq} before record {self.have}")
        self._take(record, save=True)
        if self.failed is not None:
            raise WatchFatal(self.failed)
        if self.have >= self.target and "catching up" in self.status:
            self.status = "watching"

    def _take(self, record: bytes, *, save: bool) -> None:
        why = self.check(record) if self.check is not None else None
        entry = None
        if why is None:
            try:
                entry = self.log.append_record(record)
            except LogError as e:
                why = f"record {self.have}: {e}"
        if why is None and entry is not None and entry.seq == 0:
            h = self.log.header
            if self.host_key is not None and h.key(h.host) != self.host_key:
                why = _OTHER_HOST
        if save:
            self._save(record)
        if why is not None:
            self.failed = why
            return
        if self.on_record is not None and entry is not None:
            self.on_record(entry.seq, record)

    def _save(self, record: bytes) -> None:
        """Append to the transcript (a failed record too: it is the evidence, and
        ``splitnet verify`` reaches the same verdict on the file)."""
        if self.writer is None:
            if not len(self.log):  # a first record that is no header: no game to file
                return
            path = watched_path(self.data_dir, self.log.game_id)
            if self.path is None and path.exists():  # (not the file we resumed from)
                self.failed = (f"{path} already holds a watched game with this id, which "
                               "this host did not continue (another host's game under "
                               "the same id?): nothing was written; move that file away "
                               "to watch this one")
                raise WatchFatal(self.failed)
            self.path = path
            self.writer = (TranscriptWriter.open_existing(path) if path.exists()
                           else TranscriptWriter(path))
        try:
            self.writer.append(record)
        except ValueError as e:  # a record no transcript holds (empty, too long)
            _log.warning("not saved: %s", e)  # (it failed its check: the verdict stands)

    def stop(self) -> None:
        """Close the connection (the run ends as if the host had gone; a test's kill)."""
        if self._ch is not None:
            with contextlib.suppress(Exception):
                self._ch.close()
        if self.task is not None:
            self.task.cancel()
