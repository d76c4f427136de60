"""One connection at the host, and one lobby member (protocol/NETWORK.md §11.2): what
:class:`~splitnet.net.host.HostNode` keeps of each, and how a frame goes out on one."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass, field

from splitnet.net.conn_state import ConnEvent, ConnMachine
from splitnet.net.frames import Frame, Ping
from splitnet.net.machine import IllegalTransition
from splitnet.net.wire import Channel, ChannelClosed, WireError, encode_typed
from splitnet.session.codec import DecodeError
from splitnet.session.log import parse_message

_log = logging.getLogger("splitnet.net")


@dataclass(eq=False)
class Conn:
    """One accepted connection; where it is in its life is its :class:`ConnMachine`
    (handshaking → member → seated → gone; during the join-code handshake the host
    keeps the raw channel in ``HostNode._securing``, oldest first)."""

    ch: Channel
    peer: str
    m: ConnMachine = field(default_factory=ConnMachine)
    key: bytes | None = None
    name: str = "?"
    seat: int | None = None
    #: when its last frame arrived, on the host's clock (the event loop's time)
    last_heard: float = 0.0
    errors: int = 0
    #: a restarted host asked this peer for records [want_from, want_to)
    want_from: int | None = None
    want_to: int = 0
    ping_n: int = 0

    def who(self) -> str:
        return f"{self.name} ({self.peer})" if self.key else self.peer

    @property
    def closed(self) -> bool:
        return self.m.gone

    def send(self, frame: Frame) -> None:
        if self.closed:
            return
        if isinstance(frame, Ping) and not self.m.may_ping:
            raise IllegalTransition(f"connection: no ping while {self.m.state.value}")
        try:
            self.ch.send(encode_typed(frame))
        except WireError as e:
            _log.warning("dropping %s: %s", self.who(), e.reason)
            self.close()
        except ChannelClosed:
            self.close()

    def close(self) -> None:
        self.m.fire(ConnEvent.DROP)
        self.ch.close()


@dataclass
class Member:
    name: str
    key: bytes
    conn: Conn | None
    #: the level a bot said it plays at (its ``bot`` frame, NETWORK.md §4), else None
    level: str | None = None


async def drain(ch: Channel, limit: float) -> None:
    """Let a closing connection's last frames go out, for at most ``limit`` s."""
    with contextlib.suppress(TimeoutError, ConnectionError):
        await asyncio.wait_for(ch.drain(), limit)


def kind_counter(msg: bytes) -> tuple[str | None, int | None]:
    try:
        m = parse_message(msg)
    except DecodeError:
        return None, None
    return m.kind, m.counter
