"""An in-memory network for the host and its joiners in one process: no sockets (no tests
in here; tests/test_virtual_time.py tests it).

:class:`MemoryNet` hands out the host's transport (:meth:`MemoryNet.listen`, a
:data:`splitnet.net.wire.Listen`) and the joiners' (:meth:`MemoryNet.connector`, a
:data:`splitnet.net.wire.Connect`). Each connection is a :class:`Link` between two
:class:`MemoryChannel` ends with the semantics of the TCP channel
(:class:`splitnet.net.wire.StreamChannel`): frames arrive whole and in order; ``send``
never blocks, and a sender whose frames the other side does not read past
``max_buffer`` bytes gets ``WireError("slow")`` and the connection closes; a frame over
``MAX_FRAME`` is ``FrameTooLarge``; ``close`` delivers what was sent before it, then
end-of-stream (``ChannelClosed`` on the other side's ``recv``). Faults are injected per
link: a ``delay`` per direction (frames stay in order), a ``drop`` predicate per
direction (those frames are lost), and :meth:`Link.cut` — a pulled cable: nothing more
arrives either way and neither side is told (only timeouts can find out).

Delays are measured on the event loop's clock, so on a
:class:`tests.virtual_time.VirtualLoop` they are exact.
"""

from __future__ import annotations

import asyncio
import errno
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from splitnet.net.framing import MAX_FRAME, FrameTooLarge
from splitnet.net.wire import Channel, ChannelClosed, Connect, ErrorCode, Listening, WireError

__all__ = ["Link", "MemoryChannel", "MemoryNet"]

#: how early asyncio's loop runs a timer (``BaseEventLoop._clock_resolution``)
_RESOLUTION = time.get_clock_info("monotonic").resolution
_EOF = None  # in a channel's flight queue: the other side closed after what came before


class MemoryChannel:
    """One end of an in-memory connection (the :class:`~splitnet.net.wire.Channel`
    interface)."""

    def __init__(self, link: Link, peer: str, max_buffer: int) -> None:
        self.link = link
        #: "ADDR:PORT" of the other side
        self.peer = peer
        self.max_buffer = max_buffer
        self.other: MemoryChannel | None = None
        self.closed = False
        #: lost frames injected on the way out: a frame for which it is true is lost
        self.drop: Callable[[bytes], bool] | None = None
        #: seconds each frame sent here takes to arrive
        self.delay = 0.0
        self.sent = 0  #: frames sent (lost ones included)
        self._inbox: deque[bytes] = deque()
        self._inbox_bytes = 0
        self._eof = False
        self._flight: deque[tuple[float, bytes | None]] = deque()
        self._flight_bytes = 0
        self._timer: asyncio.TimerHandle | None = None
        self._readable: asyncio.Future[None] | None = None
        self._writable: asyncio.Future[None] | None = None

    # ------------------------------------------------------------------ sending
    def _queued(self) -> int:
        """Bytes sent from here and not yet read by the other side."""
        assert self.other is not None
        return self._flight_bytes + self.other._inbox_bytes

    def send(self, payload: bytes) -> None:
        if self.closed:
            raise ChannelClosed("connection closed")
        if not 1 <= len(payload) <= MAX_FRAME:
            raise FrameTooLarge(len(payload), MAX_FRAME)
        if self._queued() > self.max_buffer:
            self.close()
            raise WireError(ErrorCode.SLOW, f"{self.peer} does not read: more than "
                            f"{self.max_buffer} bytes waiting", fatal=True)
        self.sent += 1
        if self.link.is_cut or (self.drop is not None and self.drop(payload)):
            return
        self._put(bytes(payload))

    def _put(self, item: bytes | None) -> None:
        assert self.other is not None
        if self.delay <= 0 and not self._flight:
            self.other._arrive(item)
            return
        loop = asyncio.get_running_loop()
        self._flight.append((loop.time() + self.delay, item))
        self._flight_bytes += len(item or b"")
        if self._timer is None:
            self._timer = loop.call_at(self._flight[0][0], self._land)

    def _land(self) -> None:
        """Deliver every frame in flight that is due, in order."""
        assert self.other is not None
        self._timer = None
        # asyncio runs a timer up to its clock resolution early (its `when` computed by
        # another sum may be a hair after the loop's now): what is due within it lands,
        # else this timer would be scheduled again for the same instant, forever
        now = asyncio.get_running_loop().time() + _RESOLUTION
        while self._flight and self._flight[0][0] <= now:
            _, item = self._flight.popleft()
            self._flight_bytes -= len(item or b"")
            if not self.link.is_cut:
                self.other._arrive(item)
        if self._flight:
            self._timer = asyncio.get_running_loop().call_at(self._flight[0][0], self._land)

    def _arrive(self, item: bytes | None) -> None:
        if self.closed:
            return
        if item is _EOF:
            self._eof = True
        else:
            self._inbox.append(item)
            self._inbox_bytes += len(item)
        _wake(self._readable)

    async def drain(self) -> None:
        """Wait until what was sent from here is below half the buffer bound (or the
        connection is closed)."""
        while not self.closed and self.other is not None and not self.other.closed \
                and self._queued() > self.max_buffer // 2:
            self._writable = asyncio.get_running_loop().create_future()
            await self._writable

    # ------------------------------------------------------------------ receiving
    async def recv(self) -> bytes:
        while True:
            if self._inbox:
                payload = self._inbox.popleft()
                self._inbox_bytes -= len(payload)
                if self.other is not None:
                    _wake(self.other._writable)
                return payload
            if self.closed:
                raise ChannelClosed(f"connection to {self.peer} closed")
            if self._eof:
                self.closed = True
                raise ChannelClosed(f"connection to {self.peer} closed (by the other side)")
            self._readable = asyncio.get_running_loop().create_future()
            await self._readable

    # ------------------------------------------------------------------ the end
    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        self._inbox.clear()
        self._inbox_bytes = 0
        _wake(self._readable)
        if self.other is not None:
            _wake(self.other._writable)
            if not self.link.is_cut:
                self._put(_EOF)  # after what was sent before (TCP: FIN after data)

    async def wait_closed(self) -> None:
        return None


def _wake(fut: asyncio.Future[None] | None) -> None:
    if fut is not None and not fut.done():
        fut.set_result(None)


@dataclass(eq=False)
class Link:
    """One connection: the joiner's end and the host's end."""

    client: MemoryChannel = field(init=False)
    server: MemoryChannel = field(init=False)
    client_addr: str
    server_addr: str
    max_buffer: int
    is_cut: bool = False

    def __post_init__(self) -> None:
        self.client = MemoryChannel(self, self.server_addr, self.max_buffer)
        self.server = MemoryChannel(self, self.client_addr, self.max_buffer)
        self.client.other, self.server.other = self.server, self.client

    def cut(self) -> None:
        """A pulled cable: nothing more arrives, either way; nobody is told."""
        self.is_cut = True


class _Listener:
    def __init__(self, net: MemoryNet, port: int,
                 serve: Callable[[Channel], Awaitable[None]]) -> None:
        self.net, self.port, self.serve = net, port, serve
        self.closed = False

    def is_serving(self) -> bool:
        return not self.closed

    def close(self) -> None:
        self.closed = True
        if self.net.listeners.get(self.port) is self:
            del self.net.listeners[self.port]


class MemoryNet:
    """Listeners by port and the links between them and their joiners."""

    def __init__(self, *, max_buffer: int = 32 * 1024 * 1024) -> None:
        self.max_buffer = max_buffer
        self.listeners: dict[int, _Listener] = {}
        self.links: list[Link] = []
        #: the host-side handler tasks (each connection's serve), kept to be awaited
        self.served: set[asyncio.Task[None]] = set()
        #: exceptions a handler raised (a bug: serve_channel ends every connection itself)
        self.crashes: list[BaseException] = []
        self._ports = 7420
        self._clients = 50000

    async def listen(self, serve: Callable[[Channel], Awaitable[None]], bind: str,
                     port: int) -> tuple[Listening, int]:
        if port == 0:
            while self._ports in self.listeners:
                self._ports += 1
            port = self._ports
        if port in self.listeners:
            raise OSError(errno.EADDRINUSE, "Address already in use")
        listener = _Listener(self, port, serve)
        self.listeners[port] = listener
        return listener, port

    def connector(self, host: str, port: int, *, local: str = "127.0.0.1",
                  on_link: Callable[[Link], None] | None = None) -> Connect:
        """The joiner's transport to ``host``:``port`` from address ``local``;
        ``on_link`` sees each new link (to inject faults on it)."""

        async def connect() -> Channel:
            listener = self.listeners.get(port)
            if listener is None:
                raise ConnectionRefusedError(errno.ECONNREFUSED, "Connection refused")
            self._clients += 1
            link = Link(f"{local}:{self._clients}", f"{host}:{port}", self.max_buffer)
            self.links.append(link)
            if on_link is not None:
                on_link(link)
            task = asyncio.get_running_loop().create_task(listener.serve(link.server))
            self.served.add(task)
            task.add_done_callback(self._served)
            return link.client

        return connect

    def _served(self, task: asyncio.Task[None]) -> None:
        self.served.discard(task)
        if not task.cancelled() and task.exception() is not None:
            self.crashes.append(task.exception())  # type: ignore[arg-type]

    def links_to(self, port: int) -> list[Link]:
        return [lk for lk in self.links if lk.server_addr.endswith(f":{port}")]

    async def close(self) -> None:
        """End every handler still running (their channels close under them) and check
        that none crashed."""
        for lk in self.links:
            lk.client.close()
            lk.server.close()
        if self.served:
            await asyncio.wait(set(self.served))
        assert not self.crashes, f"a connection handler raised: {self.crashes[0]!r}"
