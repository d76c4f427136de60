"""Games across the internet: a :class:`~splitnet.net.wire.Channel` through magic-wormhole
(protocol/NETWORK.md §12, SECURITY.md §1, §2).

A wormhole has exactly two sides: the host opens one per free seat (:class:`Invitations`)
and prints its code; the guest opens the wormhole with that code (:class:`WormholeConnector`).
Both dilate it (the transit relay when no direct path exists) and every splitnet connection
is one dilation subchannel carrying the usual length-prefixed frames (:class:`WormholeChannel`).
The key the wormhole's own PAKE agreed (``derive_key``) is the password of splitnet's
SPAKE2 handshake on top (:func:`per_channel_wrap`), so the encrypted channel, the
verification words, known keys and everything above them are those of the LAN path;
nothing above the channel knows which one carries it.

An invitation is one player's: a guest that finds it already claimed, or nobody holding
it, is told so at once (:class:`WormholeFailed`). Two guests claiming it at the same
moment can make the mailbox refuse both (it counts the second's attempt against the
first): the host also waits on the invitation's *retry wormhole* (:func:`retry_code`),
where the first claimant meets it instead (NETWORK.md §12, "Retry wormhole").

Each claimed invitation also gives host and guest a resume secret (``derive_key``): a
wormhole that has carried nothing for a while is given up, and the two meet again on a
fresh *resume wormhole* whose code both derive from that secret and a counter
(:func:`resume_code`) — after a cut the relay did not carry again, or after either
process was killed and started again with the same command (NETWORK.md §12, "Resume").
The chains go on into the next game of the same seats, a rematch: the host hands the
seats' chains to the next game's file (:meth:`Invitations.hand_over`), each guest's
connector hands its chain to a fresh one (:meth:`WormholeConnector.successor`), and the
two meet on the chain's next code (NETWORK.md §13).

Twisted runs on the asyncio loop (:func:`start_twisted`, :func:`stop_twisted`). Imports of
Twisted and magic-wormhole are deferred to those calls: the reactor must be installed on
the running loop before anything imports ``twisted.internet.reactor``.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import itertools
import logging
import socket
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Final

from splitnet.net.config import PUBLIC_MAILBOX, PUBLIC_RELAY
from splitnet.net.framing import FrameTooLarge, encode_frame, read_frame
from splitnet.net.store import MAX_CHAINS, ResumeChain, ResumeFile
from splitnet.net.wire import Channel, ChannelClosed, ChannelWrap, ErrorCode, WireError

__all__ = [
    "APPID",
    "PASSWORD_PURPOSE",
    "RESUME_PURPOSE",
    "SUBPROTOCOL",
    "Invitations",
    "WormholeChannel",
    "WormholeConnector",
    "WormholeFailed",
    "WormholeSettings",
    "per_channel_wrap",
    "resume_code",
    "retry_code",
    "shutdown",
    "start_twisted",
    "stop_twisted",
    "table_names",
]

_log = logging.getLogger("splitnet.net.wormhole")

#: magic-wormhole's application id: both sides must use the same one (it scopes codes on
#: the mailbox server)
APPID: Final = "splitnet.invalid/game/v1"
#: the dilation subprotocol every splitnet connection opens
SUBPROTOCOL: Final = "splitnet-net"
#: ``derive_key`` purpose of the password of splitnet's SPAKE2 handshake (32 bytes)
PASSWORD_PURPOSE: Final = "splitnet/v1/join-password"
#: ``derive_key`` purpose of a guest's resume secret (32 bytes), from the wormhole of the
#: invitation it claimed: both sides keep it, and every later wormhole between them has a
#: code derived from it (:func:`resume_code`)
RESUME_PURPOSE: Final = "splitnet/v1/resume-secret"
#: resume nameplates are this many digits (never one the mailbox allocates: 1–999, then
#: up to 999999 when crowded; the mailbox takes at most 40)
RESUME_NAMEPLATE_DIGITS: Final = 20

_counter = itertools.count(1)
#: failures in a row to open an invitation (mailbox unreachable) before the host stops
MAX_FAILURES: Final = 3


@dataclass(frozen=True, slots=True)
class WormholeSettings:
    """Where the rendezvous (mailbox) and transit relay servers are; ``no_listen``: never
    offer a direct connection (every byte then goes through the relay)."""

    mailbox: str = PUBLIC_MAILBOX
    relay: str = PUBLIC_RELAY
    no_listen: bool = False
    #: how long a guest waits for the wormhole (mailbox, key, dilation) to come up
    connect_timeout: float = 60.0
    #: how long a guest that has claimed an invitation's nameplate waits for the host's
    #: first message (or 4 × what the claim took, if longer): the host's message waits
    #: in the mailbox, so it comes at once when the host holds the invitation
    claim_wait: float = 5.0
    #: a wormhole whose Dilation is not connected (or, on the host, that carries no
    #: splitnet connection) this long is given up: the two sides meet again on a fresh
    #: resume wormhole (NETWORK.md §12, "Resume"); also how long a guest waits on one
    #: resume code for the host
    idle_after: float = 30.0


def _derived_code(secret: bytes, plate_label: bytes, word_label: bytes) -> str:
    """A code of a 20-digit nameplate and a 32-hex-digit password, both HMAC-SHA256
    under ``secret`` (NETWORK.md §12)."""
    plate = hmac.new(secret, plate_label, hashlib.sha256).digest()
    word = hmac.new(secret, word_label, hashlib.sha256).digest()
    low = 10 ** (RESUME_NAMEPLATE_DIGITS - 1)
    return f"{low + int.from_bytes(plate, 'big') % (9 * low)}-{word[:16].hex()}"


def retry_code(code: str) -> str:
    """The code of the *retry wormhole* of the invitation ``code`` (NETWORK.md §12,
    "Retry wormhole"): as :func:`resume_code`, under the secret ``code`` (its UTF-8 bytes,
    stripped) with the labels ``"splitnet/v1/retry-nameplate"`` and
    ``"splitnet/v1/retry-password"``. The host waits on it beside the invitation's own
    wormhole; a guest goes there only when nobody answered on the invitation itself.

    >>> retry_code("7-crossover-clockwork")
    '17818270784096798681-8b2629854c58f476337a2674fea95af1'
    """
    return _derived_code(code.strip().encode(), b"splitnet/v1/retry-nameplate",
                         b"splitnet/v1/retry-password")


def resume_code(secret: bytes, n: int) -> str:
    """The code of the ``n``-th resume wormhole of the guest whose resume secret is
    ``secret`` (NETWORK.md §12, "Resume"): a nameplate of 20 digits (HMAC-SHA256 under
    the secret of ``"splitnet/v1/resume-nameplate" ‖ u64 n``, big-endian, mod 9·10^19,
    plus 10^19) and, as its password, the 32 hex digits of the first 16 bytes of the HMAC
    of ``"splitnet/v1/resume-password" ‖ u64 n``.

    >>> resume_code(bytes(range(32)), 0)
    '53683511288924198750-97d7da0f7f32cee78656376df3cbf430'
    """
    if len(secret) != 32 or not 0 <= n < 1 << 64:
        raise ValueError("a resume code needs a 32-byte secret and a counter below 2^64")
    count = n.to_bytes(8, "big")
    return _derived_code(secret, b"splitnet/v1/resume-nameplate" + count,
                         b"splitnet/v1/resume-password" + count)


# --------------------------------------------------------------------------- Twisted

_reactor: Any = None


def start_twisted() -> Any:
    """Twisted's reactor on the running asyncio loop (installed once per process)."""
    global _reactor
    if _reactor is not None:
        if getattr(_reactor, "_asyncioEventloop", None) is not asyncio.get_running_loop():
            raise RuntimeError("Twisted's reactor was installed on another asyncio loop: "
                               "internet play needs one event loop per process")
        return _reactor
    import sys

    from twisted.internet import asyncioreactor

    if "twisted.internet.reactor" in sys.modules:
        from twisted.internet import reactor as installed

        if not isinstance(installed, asyncioreactor.AsyncioSelectorReactor):
            raise RuntimeError("another Twisted reactor is already installed")
        _reactor = installed
    else:
        asyncioreactor.install(asyncio.get_running_loop())  # type: ignore[no-untyped-call]
        from twisted.internet import reactor as installed

        _reactor = installed
    _reactor.startRunning(installSignalHandlers=False)
    _patch_nodelay()
    return _reactor


def stop_twisted() -> None:
    """Stop Twisted's thread pool (else the process hangs at exit: the pool's threads
    are not daemons) and drop its connections — only while the event loop still runs:
    a connection dropped after it closed calls back into the closed loop (Twisted's
    "Unhandled error … Event loop is closed")."""
    if _reactor is None:
        return
    with contextlib.suppress(Exception):
        pool = getattr(_reactor, "threadpool", None)
        if pool is not None:
            pool.stop()
    loop = getattr(_reactor, "_asyncioEventloop", None)
    if loop is not None and not loop.is_closed():
        with contextlib.suppress(Exception):
            _reactor.disconnectAll()


#: magic-wormhole's private class patched for TCP_NODELAY (the one seam into its
#: internals, held by the ``==0.24.0`` pin and by tests/test_wormhole_seam.py): the
#: methods patched and the parameters each takes
_DILATION_SHAPE: Final = {"connectionMade": ("self",), "dataReceived": ("self", "data")}


def _dilation_protocol() -> Any | None:
    """magic-wormhole's ``DilatedConnectionProtocol``, if it still has the shape
    :func:`_add_nodelay` patches; else None, said once in the log (internet play then
    works, only slower: ~88 ms per round trip on loopback)."""
    import inspect

    try:
        from wormhole._dilation import connection

        cls: Any = connection.DilatedConnectionProtocol
        for name, params in _DILATION_SHAPE.items():
            method = inspect.getattr_static(cls, name)
            if tuple(inspect.signature(method).parameters) != params:
                raise TypeError(f"{name} takes {tuple(inspect.signature(method).parameters)}")
    except (ImportError, AttributeError, TypeError, ValueError) as e:
        _log.warning("magic-wormhole's dilation internals changed (%s): no TCP_NODELAY on "
                     "its connections", e)
        return None
    return cls


def _patch_nodelay() -> None:
    cls = _dilation_protocol()
    if cls is not None:
        _add_nodelay(cls)


def _add_nodelay(cls: Any) -> None:
    """TCP_NODELAY on our side of every connection of protocol class ``cls`` (a dilation
    connection): without it Nagle's algorithm and delayed ACKs cost ~88 ms per round trip
    on loopback (small frames). Patched once, however often it is called."""
    if getattr(cls, "_splitnet_nodelay", False):
        return
    made = cls.connectionMade

    def connection_made(self: Any) -> None:
        with contextlib.suppress(Exception):
            self.transport.setTcpNoDelay(True)
        made(self)

    cls.connectionMade = connection_made
    quickack = getattr(socket, "TCP_QUICKACK", None)  # Linux only
    if quickack is not None:
        received = cls.dataReceived

        def data_received(self: Any, data: bytes) -> None:
            # ACK at once: the relay's socket has Nagle's algorithm on, so its next small
            # record to us waits for our ACK of the last one — up to 40 ms of delayed ACK
            with contextlib.suppress(Exception):
                self.transport.getHandle().setsockopt(socket.IPPROTO_TCP, quickack, 1)
            received(self, data)

        cls.dataReceived = data_received
    cls._splitnet_nodelay = True


def _to_future(d: Any) -> asyncio.Future[Any]:
    """A Twisted Deferred as an asyncio future on the running loop."""
    return d.asFuture(asyncio.get_running_loop())  # type: ignore[no-any-return]


def _settle(*futures: asyncio.Future[Any] | None) -> None:
    """Cancel those still pending; take the exception of those that failed (seen, so
    asyncio does not report it as never retrieved)."""
    for f in futures:
        if f is None:
            continue
        if not f.done():
            f.cancel()
        elif not f.cancelled():
            f.exception()


# --------------------------------------------------------------------------- channel


class _Subchannel:
    """The Twisted protocol of one dilation subchannel: bytes in feed an asyncio stream
    reader (so :func:`read_frame` parses them exactly as on TCP); flow control by
    Twisted's producer interface."""

    def __init__(self) -> None:
        self.reader = asyncio.StreamReader(limit=1 << 20)
        self.transport: Any = None
        self.made: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.lost = asyncio.get_running_loop().create_future()
        self.paused = False
        self.waiting = 0  # bytes written while the transport asked us to pause
        #: called on every read (the wormhole's :class:`_Watch`)
        self.on_data: Callable[[], None] | None = None
        self._resumed = asyncio.Event()
        self._resumed.set()

    # IProtocol
    def makeConnection(self, transport: Any) -> None:  # Twisted's names
        self.transport = transport
        with contextlib.suppress(Exception):
            transport.registerProducer(self, True)
        if not self.made.done():
            self.made.set_result(None)

    def connectionMade(self) -> None:
        pass

    def dataReceived(self, data: bytes) -> None:
        if self.on_data is not None:
            self.on_data()
        self.reader.feed_data(data)

    def connectionLost(self, reason: Any = None) -> None:
        self.reader.feed_eof()
        self._resumed.set()
        if not self.lost.done():
            self.lost.set_result(None)

    # IPushProducer
    def pauseProducing(self) -> None:
        self.paused = True
        self._resumed.clear()

    def resumeProducing(self) -> None:
        self.paused = False
        self.waiting = 0
        self._resumed.set()

    def stopProducing(self) -> None:
        pass


class WormholeChannel:
    """A :class:`~splitnet.net.wire.Channel` over one dilation subchannel.

    ``peer`` names the wormhole (``wormhole-3:0``), not an address: every guest comes
    through the same mailbox/relay, so the join-code layer's per-address attempt limiter
    counts each wormhole on its own. ``password`` is the wormhole's agreed key for the
    splitnet handshake on top (:func:`per_channel_wrap`)."""

    def __init__(self, proto: _Subchannel, peer: str, password: bytes, *,
                 max_buffer: int = 16 * 1024 * 1024, watch_only: bool = False) -> None:
        self._proto = proto
        self.peer = peer
        self.password = password
        #: it came through a watch invitation (:class:`Invitations` with ``watch``):
        #: the host's wrap lets it watch and nothing else (:func:`per_channel_wrap`)
        self.watch_only = watch_only
        self.max_buffer = max_buffer
        self.closed = False

    def send(self, payload: bytes) -> None:
        p = self._proto
        if self.closed or p.lost.done() or p.transport is None:
            raise ChannelClosed(f"wormhole channel {self.peer} closed")
        frame = encode_frame(payload)
        if p.paused:
            p.waiting += len(frame)
            if p.waiting > self.max_buffer:
                self.close()
                raise WireError(ErrorCode.SLOW, f"{self.peer} does not read: more than "
                                f"{self.max_buffer} bytes waiting", fatal=True)
        p.transport.write(frame)

    async def recv(self) -> bytes:
        try:
            return await read_frame(self._proto.reader)
        except FrameTooLarge:
            raise
        except (asyncio.IncompleteReadError, ConnectionError, OSError) as e:
            self.closed = True
            raise ChannelClosed(f"wormhole channel {self.peer} closed "
                                f"({type(e).__name__})") from e

    async def drain(self) -> None:
        p = self._proto
        if p.paused and not p.lost.done():
            await p._resumed.wait()

    def close(self) -> None:
        self.closed = True
        p = self._proto
        if p.transport is not None and not p.lost.done():
            with contextlib.suppress(Exception):
                p.transport.loseConnection()

    async def wait_closed(self) -> None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(asyncio.shield(self._proto.lost), 2.0)


def per_channel_wrap(make: Callable[[bytes], ChannelWrap], fallback: ChannelWrap, *,
                     watch: Callable[[bytes], ChannelWrap] | None = None) -> ChannelWrap:
    """A wrap that runs ``make(password)`` on a :class:`WormholeChannel` (its wormhole's
    agreed key as the password of the splitnet handshake), ``watch(password)`` on one
    that came through a watch invitation (``watch_only``; without ``watch`` such a
    channel is closed), and ``fallback`` on any other channel (the LAN's, with the typed
    join code)."""
    wraps: dict[tuple[bool, bytes], ChannelWrap] = {}

    async def wrap(channel: Channel, role: str) -> Channel:
        password = getattr(channel, "password", None)
        if not isinstance(password, bytes):
            return await fallback(channel, role)
        only = getattr(channel, "watch_only", False) is True
        w = wraps.get((only, password))
        if w is None:
            if only and watch is None:
                channel.close()
                raise WireError(ErrorCode.CLOSED, "this game takes no watchers", fatal=True)
            w = wraps[only, password] = (watch if only and watch is not None
                                         else make)(password)
        return await w(channel, role)

    return wrap


class _Factory:
    """A Twisted protocol factory making :class:`_Subchannel` protocols."""

    def __init__(self, on_proto: Callable[[_Subchannel], None] | None = None) -> None:
        self.on_proto = on_proto

    def doStart(self) -> None:
        pass

    def doStop(self) -> None:
        pass

    def startedConnecting(self, connector: Any) -> None:
        pass

    def buildProtocol(self, addr: Any) -> _Subchannel:
        proto = _Subchannel()
        if self.on_proto is not None:
            self.on_proto(proto)
        return proto


def _factory(on_proto: Callable[[_Subchannel], None] | None = None) -> Any:
    from twisted.internet.interfaces import IProtocolFactory
    from zope.interface import alsoProvides

    f = _Factory(on_proto)
    alsoProvides(f, IProtocolFactory)
    return f


def _provide_protocol() -> None:
    from twisted.internet.interfaces import IProtocol, IPushProducer
    from zope.interface import classImplements

    classImplements(_Subchannel, IProtocol, IPushProducer)


async def _create(settings: WormholeSettings,
                  on_status: Callable[[Any], None] | None = None,
                  names: list[str] | None = None) -> Any:
    """A fresh wormhole on the mailbox server (``on_status``: magic-wormhole's status
    updates, e.g. the mailbox connection); ``names``: the host's table, told to whoever
    meets it (:func:`table_names`)."""
    start_twisted()
    _provide_protocol()
    import wormhole

    versions = {"splitnet": {"names": names}} if names is not None else {}
    return wormhole.create(APPID, settings.mailbox, _reactor, dilation=True,
                           versions=versions, on_status_update=on_status)


#: at most this many names of the host's table are taken from its wormhole
MAX_TABLE_NAMES: Final = 16


def table_names(versions: Any) -> list[str]:
    """The names at the host's table when its invitation opened, from the application
    versions its wormhole sent (``{"splitnet": {"names": [...]}}``, NETWORK.md §12);
    anything else (an older host, a malformed value) is no names.

    >>> table_names({"splitnet": {"names": ["Ana", "Bo"]}}), table_names({"x": 1})
    (['Ana', 'Bo'], [])
    """
    ours = versions.get("splitnet") if isinstance(versions, dict) else None
    names = ours.get("names") if isinstance(ours, dict) else None
    if not isinstance(names, list):
        return []
    return [n for n in names[:MAX_TABLE_NAMES] if isinstance(n, str) and 0 < len(n) <= 64]


async def _agree(w: Any) -> bytes:
    """Wait for the wormhole's PAKE; the password for splitnet's handshake. A wrong code
    is the wormhole's WrongPasswordError."""
    await _to_future(w.get_verifier())
    key = w.derive_key(PASSWORD_PURPOSE, 32)
    assert isinstance(key, bytes)
    return key


def _dilate(w: Any, settings: WormholeSettings) -> Any:
    return w.dilate(transit_relay_location=settings.relay, no_listen=settings.no_listen,
                    expected_subprotocols=[SUBPROTOCOL])


class _Watch:
    """Gives a dilated wormhole up (``give_up()``) when nothing has come from the peer
    through it for ``after`` seconds (``first`` at the start). The splitnet host pings
    every connection each second and the guest answers, so a silent wormhole is one
    whose Dilation is not carrying: the peer's process is gone, or Dilation stays
    "reconnecting" because the relay was down when it tried (a follower reports no change
    of status then, so this does not rely on Dilation's status; NETWORK.md §12,
    "Resume")."""

    def __init__(self, after: float, first: float, give_up: Callable[[], None]) -> None:
        self.after = after
        self.first = first
        self.give_up = give_up
        self._loop = asyncio.get_running_loop()
        self.start = self.last = self._loop.time()
        self.heard_any = False
        self._timer: asyncio.TimerHandle | None = self._loop.call_later(
            min(first, after), self._fire)

    def heard(self) -> None:
        self.last = self._loop.time()
        self.heard_any = True

    def _fire(self) -> None:
        now = self._loop.time()
        left = (self.after - (now - self.last) if self.heard_any
                else self.first - (now - self.start))
        if left <= 0:
            self._timer = None
            self.give_up()
        else:
            self._timer = self._loop.call_later(min(left, self.after), self._fire)

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None


async def _close_wormhole(w: Any) -> None:
    with contextlib.suppress(Exception):
        await asyncio.wait_for(_to_future(w.close()), 5.0)


# --------------------------------------------------------------------------- guest


class WormholeFailed(ConnectionError):
    """The invitation cannot let this guest in, in one line that says why: another
    player claimed it, nobody holds it (unknown, or already used), it is not the host's
    (a wrong code), or the mailbox server stayed out of reach. Final: no retry brings
    the guest in with it (the command stops and says so)."""


@dataclass(slots=True)
class _Claim:
    """How one attempt on a code went (:meth:`WormholeConnector._claim`): ``met`` (the
    wormhole and its password), ``unreachable`` (the mailbox server; nothing claimed),
    ``crowded`` (another side claimed it first), ``lonely`` (claimed, but nobody
    answered), ``wrong`` (the PAKE failed) or ``failed`` (``why``)."""

    outcome: str
    why: str = ""
    wormhole: Any = None
    password: bytes | None = None


class WormholeConnector:
    """The guest's side: ``await connector()`` is a fresh :class:`WormholeChannel` to the
    host (the ``connect`` of :class:`~splitnet.net.peer.PeerNode`).

    The first call opens the wormhole of the invitation ``code`` (one guess: the code is
    then spent) and derives from it the guest's resume secret, kept in ``resume`` (a
    :class:`~splitnet.net.store.ResumeFile`) — or, when that file holds one already (the
    same command run again after the process was killed), meets the host on a resume
    wormhole instead (NETWORK.md §12, "Resume"). A later call (a reconnect) opens a new
    subchannel on the same dilated wormhole, which survives its TCP connection breaking;
    a wormhole through which nothing came for ``settings.idle_after`` seconds (the host
    was restarted, or Dilation stays "reconnecting" because the relay was down) is given
    up, and the next call meets the host on the next resume code. A failure
    raises :class:`ConnectionError` (the node retries within its bounds); the
    invitation's own failure is a :class:`WormholeFailed`, and stays (a new code from
    the host is needed). ``on_progress`` hears each step while the first call tries
    (reaching the mailbox, waiting for the host's answer, retrying).
    """

    def __init__(self, code: str | None, settings: WormholeSettings | None = None, *,
                 max_buffer: int = 16 * 1024 * 1024, resume: ResumeFile | None = None,
                 chain: ResumeChain | None = None,
                 on_progress: Callable[[str], None] | None = None) -> None:
        self.code = code.strip() if code else None
        self.on_progress = on_progress
        #: the names at the host's table when its invitation opened (:func:`table_names`)
        self.table_names: list[str] = []
        self._said = ""
        self._reached = False  # the mailbox server answered once
        self.settings = settings or WormholeSettings()
        self.max_buffer = max_buffer
        self.resume = resume
        #: the resume secret and counter (None until the invitation's wormhole met)
        self.chain = chain
        self.peer = f"wormhole-{next(_counter)}:0"
        self._w: Any = None
        self._eps: Any = None
        self._gone: asyncio.Future[None] | None = None
        self._watch: _Watch | None = None
        self._password: bytes | None = None
        self._protos: set[_Subchannel] = set()
        self._tries = 0  # resume attempts since the counter last moved (next, next + 1, …)
        self.failed: str | None = None
        if self.chain is None and self.code is None:
            raise ValueError("a wormhole connector needs an invitation code or a resume "
                             "secret")

    def set_game(self, game_id: str) -> None:
        """The game started (or is resumed): kept with the resume secret, so the same
        command finds that game again."""
        if self.chain is not None and self.chain.game_id != game_id:
            self.chain.game_id = game_id
            self._save()

    def _save(self) -> None:
        if self.resume is not None and self.chain is not None:
            try:
                self.resume.save([self.chain])
            except OSError as e:
                _log.warning("cannot save %s: %s", self.resume.path, e.strerror or e)

    def _say(self, text: str) -> None:
        """A step of the first meeting, as it happens (the log and ``on_progress``)."""
        if text != self._said:
            self._said = text
            _log.info("%s", text)
            if self.on_progress is not None:
                self.on_progress(text)

    def _fail(self, text: str) -> WormholeFailed:
        self.failed = text
        return WormholeFailed(text)

    async def _claim(self, code: str, end: float, what: str) -> _Claim:
        """One attempt on ``code`` (``what`` names it in progress lines): claim its
        nameplate, then wait for the first message of whoever holds it — ``claim_wait``
        seconds, or 4 × what the claim took — and for the key by ``end`` (the loop's
        clock). The wormhole is closed (in the background) unless we met."""
        loop = asyncio.get_running_loop()
        mailbox = self.settings.mailbox
        connected = False
        live = True  # (a wormhole being closed still reports)

        def status(st: Any) -> None:
            nonlocal connected
            kind = type(getattr(st, "mailbox_connection", None)).__name__
            if not live or connected:
                return
            if kind == "Connected":
                connected = self._reached = True
                self._say(f"claiming {what}…")
            elif kind == "Connecting" and not self._reached:
                self._say(f"reaching the wormhole mailbox server {mailbox}…")

        w = await _create(self.settings, status)
        plate, _, words = code.partition("-")
        begun = loop.time()
        helper = w.input_code()
        # (asked before the words are given: it fires when the mailbox says "claimed")
        claimed: asyncio.Future[Any] = _to_future(helper.when_wordlist_is_available())
        helper.choose_nameplate(plate)
        agreed = asyncio.ensure_future(_agree(w))
        key: asyncio.Future[Any] | None = None
        met = False
        try:
            await asyncio.wait([claimed, agreed], timeout=max(0.0, end - loop.time()),
                               return_when=asyncio.FIRST_COMPLETED)
            if agreed.done():  # before any claim: no mailbox, or crowded
                return self._failure(agreed.exception())
            if not claimed.done():
                return (_Claim("unreachable", "no answer") if not connected else
                        _Claim("failed", f"the wormhole mailbox server {mailbox} did not "
                               f"answer our claim of {what}"))
            took = loop.time() - begun
            helper.choose_words(words)
            self._say(f"{what}: claimed; waiting for the host's answer…")
            key = _to_future(w.get_unverified_key())
            wait = min(max(self.settings.claim_wait, 4 * took), max(0.0, end - loop.time()))
            await asyncio.wait([key, agreed], timeout=wait,
                               return_when=asyncio.FIRST_COMPLETED)
            if not key.done() and not agreed.done():
                return _Claim("lonely")  # nobody holds that nameplate
            await asyncio.wait([agreed], timeout=max(0.0, end - loop.time()))
            if not agreed.done():
                return _Claim("failed", f"the host's side of {what} answered but did not "
                              f"confirm the key within {self.settings.connect_timeout:g} s")
            if agreed.exception() is not None:
                return self._failure(agreed.exception())
            met = True
            return _Claim("met", wormhole=w, password=agreed.result())
        finally:
            live = False
            _settle(claimed, key, agreed)
            if not met:
                t = asyncio.ensure_future(_close_wormhole(w))
                _pending.add(t)
                t.add_done_callback(_pending.discard)

    def _failure(self, e: BaseException | None) -> _Claim:
        name = type(e).__name__
        if name in ("ServerConnectionError", "ConnectionRefusedError", "DNSLookupError",
                    "TimeoutError", "ConnectError", "ConnectingCancelledError"):
            return _Claim("unreachable", str(e) or name)
        if name == "ServerError" and "crowded" in str(e):
            return _Claim("crowded")
        if name == "WrongPasswordError":
            return _Claim("wrong")
        if e is None:
            return _Claim("failed", "the wormhole closed")
        return _Claim("failed", _explain(e, self.settings.mailbox))

    async def _open_invitation(self, code: str) -> None:
        """Meet the host on the invitation ``code`` within ``connect_timeout``, or say
        why not (:class:`WormholeFailed`; NETWORK.md §12, "A guest's invitation").
        Nobody on its nameplate means it is unknown or spent — or that another guest
        claimed it at the very moment we did and the mailbox refused us both
        ("crowded"): the first claimant then meets the host on its retry wormhole."""
        loop = asyncio.get_running_loop()
        began = loop.time()
        end = began + self.settings.connect_timeout
        mailbox = self.settings.mailbox

        def tried() -> str:
            return f"tried for {loop.time() - began:.0f} s"

        tries = 0
        while True:
            got = await self._claim(code, end, f"the invitation {code}")
            if got.outcome != "unreachable":
                break
            tries += 1
            if loop.time() + 2.0 >= end:
                raise self._fail(f"cannot reach the wormhole mailbox server {mailbox} "
                                 f"({got.why}; {tried()}): check its address (--mailbox, "
                                 f"network.json) and this machine's connection")
            self._say(f"cannot reach the wormhole mailbox server {mailbox} ({got.why}) — "
                      f"retrying ({tries})")
            await asyncio.sleep(2.0)
        if got.outcome == "lonely" and loop.time() < end:
            self._say(f"nobody answered on the invitation {code}: trying its retry "
                      f"wormhole…")
            again = await self._claim(retry_code(code), end,
                                      f"the retry wormhole of {code}")
            if again.outcome == "met":
                _log.info("met the host on the retry wormhole of %s (another guest claimed "
                          "the invitation at the same moment)", code)
            if again.outcome in ("met", "crowded", "wrong"):
                got = again
        if got.outcome == "crowded":
            raise self._fail(f"the invitation {code} is already used: another player "
                             f"claimed it first (each lets one player in) — ask the host "
                             f"for another")
        if got.outcome == "wrong":
            raise self._fail(f"the invitation {code} is not the host's: the code is wrong "
                             f"(mistyped), or it was used and its number now belongs to "
                             f"another invitation — ask the host for a new one")
        if got.outcome == "lonely":
            raise self._fail(f"nobody answered on the invitation {code}: it is unknown or "
                             f"already used ({tried()}) — ask the host for a new one (one "
                             f"it printed, not its join code), while the host runs")
        if got.outcome != "met":
            raise self._fail(got.why)
        w, self._password = got.wormhole, got.password
        self._w = w
        self.chain = ResumeChain(w.derive_key(RESUME_PURPOSE, 32), 0)
        self._save()
        await self._table_names(w)

    async def _table_names(self, w: Any) -> None:
        """The names the host's wormhole told (sent with the key's confirmation)."""
        with contextlib.suppress(Exception):
            self.table_names = table_names(await asyncio.wait_for(
                _to_future(w.get_versions()), 2.0))

    async def _open_resume(self, chain: ResumeChain) -> None:
        n = chain.next + self._tries % 2  # the host listens on next and next + 1
        self._tries += 1
        w = await _create(self.settings)
        self._w = w
        w.set_code(resume_code(chain.secret, n))
        try:
            async with asyncio.timeout(self.settings.idle_after):
                self._password = await _agree(w)
        except TimeoutError:
            raise ConnectionError(f"the host has not come to resume wormhole {n} within "
                                  f"{self.settings.idle_after:g} s") from None
        except Exception as e:
            # spent: a side that died on it left its messages there, or another took it
            if n >= chain.next:
                chain.next, self._tries = n + 1, 0
                self._save()
            raise ConnectionError(f"resume wormhole {n}: "
                                  f"{_explain(e, self.settings.mailbox)}") from None
        chain.next, self._tries = n + 1, 0
        self._save()
        _log.info("met the host again on resume wormhole %d", n)
        await self._table_names(w)

    async def _open(self) -> None:
        """A fresh wormhole (the invitation's, else the next resume one), dilated."""
        code, self.code = self.code, None  # one guess per invitation
        chain = self.chain
        try:
            if chain is None:  # (bounded by connect_timeout itself, and says why)
                assert code is not None
                await self._open_invitation(code)
            else:
                async with asyncio.timeout(self.settings.connect_timeout):
                    await self._open_resume(chain)
        except BaseException:
            w, self._w = self._w, None
            if w is not None:
                await _close_wormhole(w)
            raise
        w = self._w
        _live.add(self)
        self._gone = asyncio.get_running_loop().create_future()
        self._watch = _Watch(self.settings.idle_after, self.settings.connect_timeout,
                             lambda: self._give_up(w))
        self._eps = _dilate(w, self.settings)

    def _give_up(self, w: Any) -> None:
        """The dilated wormhole ``w`` has not been connected for too long: drop it (its
        subchannels end, so the node reconnects) and meet on a fresh one."""
        if self._w is not w:
            return
        _log.info("nothing from the host through the wormhole for %g s: giving it up for "
                  "a fresh resume wormhole", self.settings.idle_after)
        self._w = self._eps = None
        if self._gone is not None and not self._gone.done():
            self._gone.set_result(None)
        if self._watch is not None:
            self._watch.stop()
        for p in list(self._protos):
            p.connectionLost(None)
        t = asyncio.ensure_future(_close_wormhole(w))
        _pending.add(t)
        t.add_done_callback(_pending.discard)

    async def __call__(self) -> Channel:
        if self.failed is not None:
            raise WormholeFailed(self.failed)
        if self._w is None:
            await self._open()
        gone = self._gone
        assert gone is not None and self._eps is not None
        made = _to_future(self._eps.connector_for(SUBPROTOCOL).connect(_factory()))
        done, _ = await asyncio.wait([made, gone], timeout=self.settings.connect_timeout,
                                     return_when=asyncio.FIRST_COMPLETED)
        if made not in done:
            made.cancel()
            if gone in done:
                raise ConnectionError("the wormhole was given up: meeting the host on a "
                                      "fresh one")
            raise TimeoutError("the dilated wormhole is reconnecting")
        proto: _Subchannel = made.result()
        if self._watch is not None:
            proto.on_data = self._watch.heard
        self._protos.add(proto)
        proto.lost.add_done_callback(lambda _: self._protos.discard(proto))
        assert self._password is not None
        return WormholeChannel(proto, self.peer, self._password, max_buffer=self.max_buffer)

    async def successor(self) -> WormholeConnector:
        """The connector of the next game with the same host, a rematch (NETWORK.md §13):
        it meets the host on the next code of this guest's resume chain, where the
        host's rematch lobby waits for each seat of the finished game. This one is
        retired — its wormhole closed, every later call refused — so the finished game's
        node never takes a code of the chain again."""
        if self.chain is None:
            raise WormholeFailed("no rematch through a wormhole that never met the host")
        self.failed = ("this wormhole's game is over: its rematch meets the host on the "
                       "next resume wormhole")
        await self.close()
        return WormholeConnector(None, self.settings, max_buffer=self.max_buffer,
                                 resume=self.resume, chain=self.chain,
                                 on_progress=self.on_progress)

    async def close(self) -> None:
        _live.discard(self)
        if self._watch is not None:
            self._watch.stop()
        w, self._w = self._w, None
        if w is not None:
            await _close_wormhole(w)


#: wormholes being closed in the background; guests' wormholes open
_pending: set[asyncio.Task[None]] = set()
_live: set[WormholeConnector] = set()


async def shutdown() -> None:
    """Close every guest's wormhole still open and wait (bounded) for those being
    closed: at the end of the command, while the event loop still runs (Twisted's own
    callbacks then find it running)."""
    for c in list(_live):
        await c.close()
    if _pending:
        await asyncio.wait(list(_pending), timeout=5.0)


def _explain(e: BaseException, mailbox: str) -> str:
    """A wormhole's failure in words; the mailbox server is named by its URL."""
    name = type(e).__name__
    if name == "WrongPasswordError":
        return ("the wormhole code is wrong (the other side computed another key): check "
                "it with the host; each code can be tried once")
    if name == "LonelyError":
        return "the other side of the wormhole closed before we met"
    if name in ("ServerConnectionError", "ConnectionRefusedError", "DNSLookupError"):
        return f"cannot reach the wormhole mailbox server {mailbox} ({e or name})"
    if name == "WelcomeError":
        return f"the wormhole mailbox server {mailbox} turned us away ({e})"
    if name == "ServerError" and "crowded" in str(e):
        return "the wormhole is crowded: a third side claimed it"
    return f"the wormhole failed ({name}: {e})"


# --------------------------------------------------------------------------- host


@dataclass(slots=True, eq=False)
class _Invitation:
    code: str | None = None
    wormhole: Any = None
    #: the invitation's retry wormhole (:func:`retry_code`) while it waits
    retry: Any = None
    peer: str = ""
    task: asyncio.Task[None] | None = None
    #: its task was cancelled here (else: from outside, the event loop ending)
    ours: bool = False
    claimed: bool = False
    live: int = 0  # subchannels being served
    release: asyncio.TimerHandle | None = None
    #: a resume wormhole of this guest (None: an invitation shown to be claimed)
    chain: ResumeChain | None = None
    n: int = 0  # its resume counter
    protos: set[_Subchannel] = field(default_factory=set)
    watch: _Watch | None = None


def _cancel(inv: _Invitation) -> None:
    if inv.task is not None:
        inv.ours = True
        inv.task.cancel()


class Invitations:
    """The host's side: keeps ``wanted()`` wormholes open and waiting, one per free seat,
    each with its code shown through ``on_code(code)``; a fresh one as each is claimed.
    Every subchannel a guest opens becomes a :class:`WormholeChannel` handed to
    ``accept`` (:meth:`~splitnet.net.host.HostNode.serve_channel`). A claimed wormhole
    with no connection for ``release_after`` seconds (its guest left, or never got in),
    or through which nothing came for ``settings.idle_after`` seconds, is closed, which
    frees its seat for a fresh invitation. Beside each invitation the host waits on its
    retry wormhole (:func:`retry_code`); every wormhole tells ``names()`` (the table's
    names as it opens) to whoever meets it.

    Each claimed invitation gives its guest a resume secret (kept in ``resume``, a
    :class:`~splitnet.net.store.ResumeFile`): while no wormhole of that guest is up, the
    host waits for it on the resume codes ``next`` and ``next + 1`` (NETWORK.md §12,
    "Resume"), also after a restart of the host."""

    def __init__(self, settings: WormholeSettings, accept: Callable[[Channel], Awaitable[None]],
                 on_code: Callable[[str], None], wanted: Callable[[], int], *,
                 max_buffer: int = 16 * 1024 * 1024,
                 on_failed: Callable[[str], None] | None = None,
                 release_after: float | None = None,
                 resume: ResumeFile | None = None,
                 names: Callable[[], list[str]] | None = None,
                 watch: bool = False) -> None:
        self.settings = settings
        #: watch invitations (NETWORK.md §14.8): every channel through them is
        #: ``watch_only``, which the host's wrap lets watch and nothing else
        self.watch = watch
        #: the names at the table, told to each guest whose invitation meets us
        self.names = names
        self.accept = accept
        self.on_code = on_code
        self.on_failed = on_failed
        self.wanted = wanted
        self.max_buffer = max_buffer
        self.release_after = settings.idle_after if release_after is None else release_after
        self.resume = resume
        #: every guest's resume secret (ValueError: a damaged file)
        self.chains: list[ResumeChain] = resume.load() if resume is not None else []
        for c in self.chains:
            c.peer = f"wormhole-{next(_counter)}:0"
        self.open: list[_Invitation] = []
        self.claimed: list[_Invitation] = []
        #: waiting on a guest's resume codes
        self.resuming: list[_Invitation] = []
        self._tasks: set[asyncio.Task[Any]] = set()
        self._closing = False
        self._failures = 0  # in a row, without reaching the mailbox
        #: stopped after MAX_FAILURES + 1 failures in a row (e.g. no mailbox server)
        self.gave_up = False

    # -- resume secrets
    def _save(self) -> None:
        if self.resume is not None and not self._closing:
            try:
                self.resume.save(self.chains)
            except OSError as e:
                _log.warning("cannot save %s: %s", self.resume.path, e.strerror or e)

    def _drop(self, chain: ResumeChain) -> None:
        self.chains.remove(chain)
        for inv in list(self.resuming):
            if inv.chain is chain and inv.task is not None:
                _cancel(inv)

    def bind(self, peer: str, key: bytes) -> None:
        """The connection ``peer`` proved identity ``key`` (its handshake): its resume
        secret is that player's; an older one of the same player is dropped."""
        chain = next((c for c in self.chains if c.peer == peer), None)
        if chain is None or chain.key == key:
            return
        chain.key = key
        for old in [c for c in self.chains if c.key == key and c is not chain]:
            if not any(i.chain is old for i in self.claimed):
                self._drop(old)
        self._save()

    def keep(self, keys: set[bytes]) -> None:
        """The game started with these guests' keys: every other resume secret goes."""
        gone = [c for c in self.chains if c.key not in keys]
        for c in gone:
            self._drop(c)
        if gone:
            self._save()

    def hand_over(self, keys: set[bytes], resume: ResumeFile) -> None:
        """Keep the resume secrets of the guests with these identity keys — the seats of
        a finished game — in ``resume``, the next game's file (its rematch, NETWORK.md
        §13), counters as they stand: its own wormholes then wait for each of them on
        their chain's next codes, and for nobody else. Call it once these wormholes are
        closed (:meth:`close`), so that no counter moves after it."""
        resume.save([ResumeChain(c.secret, c.next, key=c.key) for c in self.chains
                     if c.key in keys])

    # -- wormholes
    def _start(self, inv: _Invitation) -> None:
        inv.task = asyncio.ensure_future(self._run(inv))
        self._tasks.add(inv.task)
        inv.task.add_done_callback(self._tasks.discard)

    def refresh(self) -> None:
        """Open invitations until as many wait as ``wanted()`` says (call on every lobby
        or seat change), and resume wormholes for every guest that has none up."""
        if self._closing:
            return
        if not self.gave_up:
            while len(self.open) < self.wanted():
                inv = _Invitation(peer=f"wormhole-{next(_counter)}:0")
                self.open.append(inv)
                self._start(inv)
        for chain in self.chains:
            if any(i.chain is chain for i in self.claimed):
                continue
            have = {i.n for i in self.resuming if i.chain is chain}
            for n in (chain.next, chain.next + 1):
                if n not in have:
                    inv = _Invitation(peer=chain.peer, chain=chain, n=n)
                    self.resuming.append(inv)
                    self._start(inv)
            for inv in self.resuming:  # a code below the counter is spent
                if inv.chain is chain and inv.n < chain.next and inv.task is not None:
                    _cancel(inv)

    async def _run(self, inv: _Invitation) -> None:
        outside = False  # cancelled from outside: no fresh wormholes after it
        try:
            names = self.names() if self.names is not None else None
            w = await _create(self.settings, names=names)
            inv.wormhole = w
            if inv.chain is None:
                w.allocate_code()
                inv.code = await _to_future(w.get_code())
                self._failures = 0
                # where its first claimant meets us if the mailbox refused it (crowded)
                inv.retry = await _create(self.settings, names=names)
                inv.retry.set_code(retry_code(inv.code))
                self.on_code(inv.code)
            else:
                w.set_code(resume_code(inv.chain.secret, inv.n))
            try:
                if inv.retry is not None:
                    w, password = await self._agree_either(inv)
                elif inv.chain is not None:
                    password = await self._agree_resume(w)
                else:
                    password = await _agree(w)
            except Exception as e:
                why = _explain(e, self.settings.mailbox)
                if inv.chain is None:
                    _log.warning("wormhole %s: %s", inv.code, why)
                    return  # a wrong guess burns the code: a fresh one replaces it
                _log.warning("resume wormhole %d of %s: %s", inv.n, inv.peer, why)
                if inv.n >= inv.chain.next:  # spent: both sides go on to the next one
                    inv.chain.next = inv.n + 1
                    self._save()
                await asyncio.sleep(1.0)  # then the next code (never a busy loop)
                return
            chain = inv.chain
            if chain is None:
                chain = inv.chain = ResumeChain(w.derive_key(RESUME_PURPOSE, 32), 0,
                                                peer=inv.peer)
                self.chains.append(chain)
                spare = [c for c in self.chains
                         if not any(i.chain is c for i in self.claimed) and c is not chain]
                while len(self.chains) > MAX_CHAINS and spare:
                    self._drop(spare.pop(0))
                self.open.remove(inv)
            else:
                chain.next = max(chain.next, inv.n + 1)
                self.resuming.remove(inv)
                for other in self.resuming:  # the other code of this guest
                    if other.chain is chain and other.task is not None:
                        _cancel(other)
                _log.info("%s is back on resume wormhole %d", inv.peer, inv.n)
            self._save()
            inv.claimed = True
            self.claimed.append(inv)
            self.refresh()
            inv.watch = _Watch(self.settings.idle_after, self.release_after,
                               lambda: self._give_up(inv, "nothing from the guest"))
            eps = _dilate(w, self.settings)

            self._idle(inv)  # the guest's first connection is due now

            def got(proto: _Subchannel) -> None:
                if inv.watch is not None:
                    proto.on_data = inv.watch.heard
                inv.protos.add(proto)
                t = asyncio.ensure_future(self._serve(inv, proto, password))
                self._tasks.add(t)
                t.add_done_callback(self._tasks.discard)

            await _to_future(eps.listener_for(SUBPROTOCOL).listen(_factory(got)))
            await asyncio.Event().wait()  # the wormhole lives until close() cancels us
        except asyncio.CancelledError:
            outside = not inv.ours
            raise
        except Exception as e:
            text = _explain(e, self.settings.mailbox)
            if inv.chain is not None:
                _log.warning("resume wormhole of %s failed: %s", inv.peer, text)
                if not self._closing:
                    await asyncio.sleep(min(self.settings.idle_after, 2.0))
                return
            self._failures += 1
            if self._failures > MAX_FAILURES:
                self.gave_up = True
                text += f" — {MAX_FAILURES + 1} times in a row: no more invitations"
            _log.warning("wormhole invitation failed: %s", text)
            if self.on_failed is not None:
                self.on_failed(text)
            if not self.gave_up and not self._closing:
                await asyncio.sleep(2.0 ** self._failures)  # then a fresh one
        finally:
            if inv.watch is not None:
                inv.watch.stop()
            if inv.release is not None:
                inv.release.cancel()
                inv.release = None
            for lst in (self.open, self.claimed, self.resuming):
                if inv in lst:
                    lst.remove(inv)
            for p in list(inv.protos):
                p.connectionLost(None)  # its connections end with it
            if not self._closing:  # (else close() closes them)
                for w in (inv.wormhole, inv.retry):
                    if w is not None:
                        await _close_wormhole(w)
            if not self._closing and not outside:
                self.refresh()

    async def _agree_either(self, inv: _Invitation) -> tuple[Any, bytes]:
        """The PAKE of the invitation's wormhole or of its retry wormhole, whichever
        completes first (that one is the invitation's from now on); the other is closed.
        A failure of either (a wrong guess) burns the invitation."""
        main = asyncio.ensure_future(_agree(inv.wormhole))
        retry = asyncio.ensure_future(_agree(inv.retry))
        try:
            done, _ = await asyncio.wait([main, retry], return_when=asyncio.FIRST_COMPLETED)
        finally:
            _settle(main, retry)
        first = main if main in done else retry
        password = first.result()
        if first is retry:
            inv.wormhole, inv.retry = inv.retry, inv.wormhole
            _log.info("invitation %s: its guest came through the retry wormhole (another "
                      "guest claimed the invitation at the same moment)", inv.code)
        spare, inv.retry = inv.retry, None
        closing = asyncio.ensure_future(_close_wormhole(spare))
        _pending.add(closing)  # (shutdown() waits for it)
        closing.add_done_callback(_pending.discard)
        return inv.wormhole, password

    async def _agree_resume(self, w: Any) -> bytes:
        """The PAKE of a resume wormhole. A message that came on it but is never
        confirmed (``settings.idle_after``) was left there by a side that died — this
        host's own before it was restarted, waiting there for a guest that was away: a
        restarted host reads it as its peer's and would wait for ever — so that code is
        spent (:class:`ConnectionError`), as one whose PAKE failed."""
        key = _to_future(w.get_unverified_key())
        agreed = asyncio.ensure_future(_agree(w))
        try:
            await asyncio.wait([key, agreed], return_when=asyncio.FIRST_COMPLETED)
            if not agreed.done():
                await asyncio.wait([agreed], timeout=self.settings.idle_after)
            if not agreed.done():
                raise ConnectionError(f"a message on it was not confirmed within "
                                      f"{self.settings.idle_after:g} s (left by a side "
                                      f"that died on it)")
            return agreed.result()
        finally:
            _settle(key, agreed)

    async def _serve(self, inv: _Invitation, proto: _Subchannel, password: bytes) -> None:
        inv.live += 1
        if inv.release is not None:
            inv.release.cancel()
            inv.release = None
        try:
            await proto.made
            await self.accept(WormholeChannel(proto, inv.peer, password,
                                              max_buffer=self.max_buffer,
                                              watch_only=self.watch))
        finally:
            inv.live -= 1
            inv.protos.discard(proto)
            if inv.live == 0:
                self._idle(inv)

    def _give_up(self, inv: _Invitation, why: str) -> None:
        if inv.task is not None and not inv.task.done():
            _log.info("wormhole %s: %s for %g s; closing it", inv.peer, why,
                      self.settings.idle_after)
            _cancel(inv)

    def _idle(self, inv: _Invitation) -> None:
        """No connection through ``inv``: close it unless one comes within
        ``release_after`` seconds."""
        if inv.release is not None or self._closing:
            return

        def release() -> None:
            inv.release = None
            if inv.live == 0 and inv.task is not None:
                _log.info("wormhole %s: no connection for %g s; closing it", inv.peer,
                          self.release_after)
                _cancel(inv)

        inv.release = asyncio.get_running_loop().call_later(self.release_after, release)

    async def close(self) -> None:
        self._closing = True
        invs = self.open + self.claimed + self.resuming
        for t in list(self._tasks):
            t.cancel()
        for inv in invs:
            if inv.watch is not None:
                inv.watch.stop()
            if inv.release is not None:
                inv.release.cancel()
            for w in (inv.wormhole, inv.retry):
                if w is not None:
                    await _close_wormhole(w)
