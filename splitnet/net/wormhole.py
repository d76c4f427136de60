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

Each claimed invitation also gives host and guest a resume secret (``derive_key``): a
wormhole that has carried nothing for a while is given up, and the two meet again on a
fresh *resume wormhole* whose code both derive from that secret and a counter
(:func:`resume_code`) — after a cut the relay did not carry again, or after either
process was killed and started again with the same command (NETWORK.md §12, "Resume").

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

from splitnet.net.framing import FrameTooLarge, encode_frame, read_frame
from splitnet.net.store import MAX_CHAINS, ResumeChain, ResumeFile
from splitnet.net.wire import Channel, ChannelClosed, ChannelWrap, WireError

__all__ = [
    "APPID",
    "PASSWORD_PURPOSE",
    "PUBLIC_MAILBOX",
    "PUBLIC_RELAY",
    "RESUME_PURPOSE",
    "SUBPROTOCOL",
    "Invitations",
    "WormholeChannel",
    "WormholeConnector",
    "WormholeSettings",
    "is_wormhole_code",
    "per_channel_wrap",
    "resume_code",
    "shutdown",
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
    #: a wormhole whose Dilation is not connected (or, on the host, that carries no
    #: splitnet connection) this long is given up: the two sides meet again on a fresh
    #: resume wormhole (NETWORK.md §12, "Resume"); also how long a guest waits on one
    #: resume code for the host
    idle_after: float = 30.0


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
    plate = hmac.new(secret, b"splitnet/v1/resume-nameplate" + count, hashlib.sha256).digest()
    word = hmac.new(secret, b"splitnet/v1/resume-password" + count, hashlib.sha256).digest()
    low = 10 ** (RESUME_NAMEPLATE_DIGITS - 1)
    return f"{low + int.from_bytes(plate, 'big') % (9 * low)}-{word[:16].hex()}"


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
    raises :class:`ConnectionError` (the node retries within its bounds); without a
    resume secret, a failed invitation stays failed (a new code from the host is needed).
    """

    def __init__(self, code: str | None, settings: WormholeSettings | None = None, *,
                 max_buffer: int = 16 * 1024 * 1024, resume: ResumeFile | None = None,
                 chain: ResumeChain | None = None) -> None:
        self.code = code.strip() if code else None
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

    async def _open_invitation(self, code: str) -> None:
        w = await _create(self.settings)
        self._w = w
        w.set_code(code)
        try:
            self._password = await _agree(w)
        except Exception as e:
            self.failed = _explain(e)
            raise ConnectionError(self.failed) from None
        self.chain = ResumeChain(w.derive_key(RESUME_PURPOSE, 32), 0)
        self._save()

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
            raise ConnectionError(f"resume wormhole {n}: {_explain(e)}") from None
        chain.next, self._tries = n + 1, 0
        self._save()
        _log.info("met the host again on resume wormhole %d", n)

    async def _open(self) -> None:
        """A fresh wormhole (the invitation's, else the next resume one), dilated."""
        code, self.code = self.code, None  # one guess per invitation
        chain = self.chain
        try:
            async with asyncio.timeout(self.settings.connect_timeout):
                if chain is None:
                    assert code is not None
                    await self._open_invitation(code)
                else:
                    await self._open_resume(chain)
        except BaseException as e:
            w, self._w = self._w, None
            if w is not None:
                await _close_wormhole(w)
            if isinstance(e, TimeoutError) and chain is None:
                self.failed = (f"nobody answered on the wormhole code {code} within "
                               f"{self.settings.connect_timeout:g} s: use the invitation "
                               f"the host printed (not its LAN join code), while the host "
                               f"runs")
                raise ConnectionError(self.failed) from None
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
            raise ConnectionError(self.failed)
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


@dataclass(slots=True, eq=False)
class _Invitation:
    code: str | None = None
    wormhole: Any = None
    peer: str = ""
    task: asyncio.Task[None] | None = None
    claimed: bool = False
    live: int = 0  # subchannels being served
    release: asyncio.TimerHandle | None = None
    #: a resume wormhole of this guest (None: an invitation shown to be claimed)
    chain: ResumeChain | None = None
    n: int = 0  # its resume counter
    protos: set[_Subchannel] = field(default_factory=set)
    watch: _Watch | None = None


class Invitations:
    """The host's side: keeps ``wanted()`` wormholes open and waiting, one per free seat,
    each with its code shown through ``on_code(code)``; a fresh one as each is claimed.
    Every subchannel a guest opens becomes a :class:`WormholeChannel` handed to
    ``accept`` (:meth:`~splitnet.net.host.HostNode.serve_channel`). A claimed wormhole
    with no connection for ``release_after`` seconds (its guest left, or never got in),
    or through which nothing came for ``settings.idle_after`` seconds, is closed, which
    frees its seat for a fresh invitation.

    Each claimed invitation gives its guest a resume secret (kept in ``resume``, a
    :class:`~splitnet.net.store.ResumeFile`): while no wormhole of that guest is up, the
    host waits for it on the resume codes ``next`` and ``next + 1`` (NETWORK.md §12,
    "Resume"), also after a restart of the host."""

    def __init__(self, settings: WormholeSettings, accept: Callable[[Channel], Awaitable[None]],
                 on_code: Callable[[str], None], wanted: Callable[[], int], *,
                 max_buffer: int = 16 * 1024 * 1024,
                 on_failed: Callable[[str], None] | None = None,
                 release_after: float | None = None,
                 resume: ResumeFile | None = None) -> None:
        self.settings = settings
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
                inv.task.cancel()

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
                    inv.task.cancel()

    async def _run(self, inv: _Invitation) -> None:
        try:
            w = await _create(self.settings)
            inv.wormhole = w
            if inv.chain is None:
                w.allocate_code()
                inv.code = await _to_future(w.get_code())
                self._failures = 0
                self.on_code(inv.code)
            else:
                w.set_code(resume_code(inv.chain.secret, inv.n))
            try:
                password = await _agree(w)
            except Exception as e:
                if inv.chain is None:
                    _log.warning("wormhole %s: %s", inv.code, _explain(e))
                    return  # a wrong guess burns the code: a fresh one replaces it
                _log.warning("resume wormhole %d of %s: %s", inv.n, inv.peer, _explain(e))
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
                        other.task.cancel()
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
            raise
        except Exception as e:
            text = _explain(e)
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
            inv.protos.discard(proto)
            if inv.live == 0:
                self._idle(inv)

    def _give_up(self, inv: _Invitation, why: str) -> None:
        if inv.task is not None and not inv.task.done():
            _log.info("wormhole %s: %s for %g s; closing it", inv.peer, why,
                      self.settings.idle_after)
            inv.task.cancel()

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
        invs = self.open + self.claimed + self.resuming
        for t in list(self._tasks):
            t.cancel()
        for inv in invs:
            if inv.watch is not None:
                inv.watch.stop()
            if inv.release is not None:
                inv.release.cancel()
            if inv.wormhole is not None:
                await _close_wormhole(inv.wormhole)
