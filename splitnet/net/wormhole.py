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

Twisted runs on the asyncio loop (:func:`start_twisted`, :func:`stop_twisted`). Imports of
Twisted and magic-wormhole are deferred to those calls: the reactor must be installed on
the running loop before anything imports ``twisted.internet.reactor``.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import socket
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Final

from splitnet.net.framing import FrameTooLarge, encode_frame, read_frame
from splitnet.net.wire import Channel, ChannelClosed, ChannelWrap, WireError

__all__ = [
    "APPID",
    "PASSWORD_PURPOSE",
    "PUBLIC_MAILBOX",
    "PUBLIC_RELAY",
    "SUBPROTOCOL",
    "Invitations",
    "WormholeChannel",
    "WormholeConnector",
    "WormholeSettings",
    "is_wormhole_code",
    "per_channel_wrap",
    "start_twisted",
    "stop_twisted",
]

_log = logging.getLogger("splitnet.net.wormhole")

#: magic-wormhole's application id: both sides must use the same one (it scopes codes on
#: the mailbox server)
APPID: Final = "splitnet.invalid/game/v1"
#: the public servers magic-wormhole's own tool uses (run by its maintainer)
PUBLIC_MAILBOX: Final = "ws://relay.magic-wormhole.io:4000/v1"
PUBLIC_RELAY: Final = "tcp:transit.magic-wormhole.io:4001"
#: the dilation subprotocol every splitnet connection opens
SUBPROTOCOL: Final = "splitnet-net"
#: ``derive_key`` purpose of the password of splitnet's SPAKE2 handshake (32 bytes)
PASSWORD_PURPOSE: Final = "splitnet/v1/join-password"

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


def is_wormhole_code(text: str) -> bool:
    """Does ``text`` look like a wormhole code (``7-crossover-clockwork``: a nameplate
    number and at least two words) rather than an address?

    >>> is_wormhole_code("7-crossover-clockwork"), is_wormhole_code("192.168.1.5:4747")
    (True, False)
    >>> is_wormhole_code("myhost"), is_wormhole_code("12-a-b-c")
    (False, True)
    """
    parts = text.strip().split("-")
    return (len(parts) >= 3 and parts[0].isascii() and parts[0].isdigit()
            and all(p.isascii() and p.isalpha() for p in parts[1:]))


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
    """Stop Twisted's thread pool and drop its connections (else the process hangs at
    exit: the pool's threads are not daemons)."""
    if _reactor is None:
        return
    with contextlib.suppress(Exception):
        pool = getattr(_reactor, "threadpool", None)
        if pool is not None:
            pool.stop()
    with contextlib.suppress(Exception):
        _reactor.disconnectAll()


def _patch_nodelay() -> None:
    """TCP_NODELAY on our side of every dilation connection: without it Nagle's algorithm
    and delayed ACKs cost ~88 ms per round trip on loopback (small frames)."""
    from wormhole._dilation import connection

    cls: Any = connection.DilatedConnectionProtocol
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
                 max_buffer: int = 16 * 1024 * 1024) -> None:
        self._proto = proto
        self.peer = peer
        self.password = password
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
                raise WireError("slow", f"{self.peer} does not read: more than "
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


def per_channel_wrap(make: Callable[[bytes], ChannelWrap], fallback: ChannelWrap
                     ) -> ChannelWrap:
    """A wrap that runs ``make(password)`` on a :class:`WormholeChannel` (its wormhole's
    agreed key as the password of the splitnet handshake) and ``fallback`` on any other
    channel (the LAN's, with the typed join code)."""
    wraps: dict[bytes, ChannelWrap] = {}

    async def wrap(channel: Channel, role: str) -> Channel:
        password = getattr(channel, "password", None)
        if not isinstance(password, bytes):
            return await fallback(channel, role)
        w = wraps.get(password)
        if w is None:
            w = wraps[password] = make(password)
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


async def _create(settings: WormholeSettings) -> Any:
    start_twisted()
    _provide_protocol()
    import wormhole

    return wormhole.create(APPID, settings.mailbox, _reactor, dilation=True)


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


async def _close_wormhole(w: Any) -> None:
    with contextlib.suppress(Exception):
        await asyncio.wait_for(_to_future(w.close()), 5.0)


# --------------------------------------------------------------------------- guest


class WormholeConnector:
    """The guest's side: ``await connector()`` is a fresh :class:`WormholeChannel` to the
    host (the ``connect`` of :class:`~splitnet.net.peer.PeerNode`). The first call opens
    the wormhole with the code and dilates it; each later call (a reconnect) opens a new
    subchannel on the same dilated wormhole, which survives its TCP connection breaking
    (it reconnects through the mailbox by itself). A wormhole that failed raises
    :class:`ConnectionError` (the node retries, then gives up: a new code from the host
    is then needed)."""

    def __init__(self, code: str, settings: WormholeSettings | None = None, *,
                 max_buffer: int = 16 * 1024 * 1024) -> None:
        self.code = code.strip()
        self.settings = settings or WormholeSettings()
        self.max_buffer = max_buffer
        self.peer = f"wormhole-{next(_counter)}:0"
        self._w: Any = None
        self._eps: Any = None
        self._password: bytes | None = None
        self.failed: str | None = None

    async def _open(self) -> None:
        w = await _create(self.settings)
        self._w = w
        w.set_code(self.code)
        try:
            self._password = await _agree(w)
        except Exception as e:
            self.failed = _explain(e)
            raise ConnectionError(self.failed) from None
        self._eps = _dilate(w, self.settings)

    async def __call__(self) -> Channel:
        if self.failed is not None:
            raise ConnectionError(self.failed)
        first = self._w is None
        try:
            async with asyncio.timeout(self.settings.connect_timeout):
                if first:
                    await self._open()
                proto: _Subchannel = await _to_future(
                    self._eps.connector_for(SUBPROTOCOL).connect(_factory()))
        except TimeoutError:
            if not first:
                raise  # the dilated wormhole is reconnecting: try again
            self.failed = (f"nobody answered on the wormhole code {self.code} within "
                           f"{self.settings.connect_timeout:g} s: use the invitation the "
                           f"host printed (not its LAN join code), while the host runs")
            raise ConnectionError(self.failed) from None
        assert self._password is not None
        return WormholeChannel(proto, self.peer, self._password, max_buffer=self.max_buffer)

    async def close(self) -> None:
        if self._w is not None:
            await _close_wormhole(self._w)


def _explain(e: BaseException) -> str:
    name = type(e).__name__
    if name == "WrongPasswordError":
        return ("the wormhole code is wrong (the other side computed another key): check "
                "it with the host; each code can be tried once")
    if name == "LonelyError":
        return "the host's side of the wormhole closed before we met"
    if name in ("ServerConnectionError", "ConnectionRefusedError", "DNSLookupError"):
        return f"cannot reach the wormhole mailbox server ({e})"
    return f"the wormhole failed ({name}: {e})"


# --------------------------------------------------------------------------- host


@dataclass(slots=True)
class _Invitation:
    code: str | None = None
    wormhole: Any = None
    peer: str = ""
    task: asyncio.Task[None] | None = None
    claimed: bool = False
    live: int = 0  # subchannels being served
    release: asyncio.TimerHandle | None = None


class Invitations:
    """The host's side: keeps ``wanted()`` wormholes open and waiting, one per free seat,
    each with its code shown through ``on_code(code)``; a fresh one as each is claimed.
    Every subchannel a guest opens becomes a :class:`WormholeChannel` handed to
    ``accept`` (:meth:`~splitnet.net.host.HostNode.serve_channel`). A claimed wormhole
    with no connection for ``release_after`` seconds (its guest left, or never got in) is
    closed, which frees its seat for a fresh invitation."""

    def __init__(self, settings: WormholeSettings, accept: Callable[[Channel], Awaitable[None]],
                 on_code: Callable[[str], None], wanted: Callable[[], int], *,
                 max_buffer: int = 16 * 1024 * 1024,
                 on_failed: Callable[[str], None] | None = None,
                 release_after: float = 30.0) -> None:
        self.settings = settings
        self.accept = accept
        self.on_code = on_code
        self.on_failed = on_failed
        self.wanted = wanted
        self.max_buffer = max_buffer
        self.release_after = release_after
        self.open: list[_Invitation] = []
        self.claimed: list[_Invitation] = []
        self._tasks: set[asyncio.Task[Any]] = set()
        self._closing = False
        self._failures = 0  # in a row, without reaching the mailbox
        #: stopped after MAX_FAILURES + 1 failures in a row (e.g. no mailbox server)
        self.gave_up = False

    def refresh(self) -> None:
        """Open invitations until as many wait as ``wanted()`` says (call on every lobby
        or seat change)."""
        if self._closing or self.gave_up:
            return
        while len(self.open) < self.wanted():
            inv = _Invitation(peer=f"wormhole-{next(_counter)}:0")
            self.open.append(inv)
            inv.task = asyncio.ensure_future(self._run(inv))
            self._tasks.add(inv.task)
            inv.task.add_done_callback(self._tasks.discard)

    async def _run(self, inv: _Invitation) -> None:
        try:
            w = await _create(self.settings)
            inv.wormhole = w
            w.allocate_code()
            inv.code = await _to_future(w.get_code())
            self._failures = 0
            self.on_code(inv.code)
            try:
                password = await _agree(w)
            except Exception as e:
                _log.warning("wormhole %s: %s", inv.code, _explain(e))
                return  # a wrong guess burns the code: a fresh one replaces it
            inv.claimed = True
            self.open.remove(inv)
            self.claimed.append(inv)
            self.refresh()
            eps = _dilate(w, self.settings)

            self._idle(inv)  # the guest's first connection is due now

            def got(proto: _Subchannel) -> None:
                t = asyncio.ensure_future(self._serve(inv, proto, password))
                self._tasks.add(t)
                t.add_done_callback(self._tasks.discard)

            await _to_future(eps.listener_for(SUBPROTOCOL).listen(_factory(got)))
            await asyncio.Event().wait()  # the wormhole lives until close() cancels us
        except asyncio.CancelledError:
            raise
        except Exception as e:
            self._failures += 1
            text = _explain(e)
            if self._failures > MAX_FAILURES:
                self.gave_up = True
                text += f" — {MAX_FAILURES + 1} times in a row: no more invitations"
            _log.warning("wormhole invitation failed: %s", text)
            if self.on_failed is not None:
                self.on_failed(text)
            if not self.gave_up and not self._closing:
                await asyncio.sleep(2.0 ** self._failures)  # then a fresh one
        finally:
            if inv in self.open:
                self.open.remove(inv)
            if inv in self.claimed:
                self.claimed.remove(inv)
            if inv.wormhole is not None and not self._closing:
                await _close_wormhole(inv.wormhole)
            if not self._closing:
                self.refresh()

    async def _serve(self, inv: _Invitation, proto: _Subchannel, password: bytes) -> None:
        inv.live += 1
        if inv.release is not None:
            inv.release.cancel()
            inv.release = None
        try:
            await proto.made
            await self.accept(WormholeChannel(proto, inv.peer, password,
                                              max_buffer=self.max_buffer))
        finally:
            inv.live -= 1
            if inv.live == 0:
                self._idle(inv)

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
                inv.task.cancel()

        inv.release = asyncio.get_running_loop().call_later(self.release_after, release)

    async def close(self) -> None:
        self._closing = True
        invs = self.open + self.claimed
        for t in list(self._tasks):
            t.cancel()
        for inv in invs:
            if inv.wormhole is not None:
                await _close_wormhole(inv.wormhole)
