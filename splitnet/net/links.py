"""Every connection of a LAN node inside the join-code handshake and encrypted channel
(protocol/SECURE.md, NETWORK.md §3.0): the wrap :class:`~splitnet.net.host.HostNode` and
:class:`~splitnet.net.peer.PeerNode` are given by ``splitnet host``, ``join`` and ``bot``
(:mod:`splitnet.app.lan`), and how a failed handshake becomes the nodes' own error."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Collection

from splitnet.net.config import NetSettings
from splitnet.net.joincode import JoinCode
from splitnet.net.secure import AttemptLimiter, SecureError, SecureLink, refuse_busy, secure_wrap
from splitnet.net.secure_watch import WatchGate
from splitnet.net.wire import Channel, ChannelClosed, ChannelWrap, ErrorCode, WireError
from splitnet.session.identity import Identity

#: join-code handshake failures a joiner retries (with back-off): nothing was judged
_RETRY = ("timeout", "unanswered", "busy")


def as_wire(e: SecureError) -> WireError:
    """A failed join-code handshake as the nodes' own error. Fatal unless it is worth
    trying again (it timed out, the host hung up after our JOIN — a few times at most —,
    or it is busy): a joiner with a wrong code stops at once instead of spending its
    attempts on reconnects, and so does one the limits refuse (the wait is in the
    reason)."""
    code = {"version": ErrorCode.VERSION, "busy": ErrorCode.BUSY}.get(e.code, ErrorCode.AUTH)
    return WireError(code, str(e), fatal=e.code not in _RETRY)


def node_wrap(code: JoinCode | bytes, net: NetSettings, *,
              limiter: AttemptLimiter | None = None,
              on_secure: Callable[[SecureLink], None] | None = None,
              on_refused: Callable[[str, SecureError], None] | None = None,
              identity: Identity | None = None,
              seats: Callable[[], Collection[bytes]] | None = None,
              watch: WatchGate | None = None) -> ChannelWrap:
    """Every connection of a node inside the join-code handshake and encrypted channel
    (protocol/SECURE.md): a joiner proves its *identity* in its JOIN, a host lets the
    keys of *seats* past its attempt limits and, with *watch*, takes watchers on their
    own code and limiter (SECURE.md §12)."""
    return secure_wrap(code, limiter=limiter, timeout=net.handshake_timeout,
                       closed_exc=ChannelClosed, error_exc=as_wire, on_secure=on_secure,
                       on_refused=on_refused, identity=identity, seats=seats,
                       watch=watch)


def watch_invitation_wrap(password: bytes, net: NetSettings, limits: AttemptLimiter, *,
                          on_refused: Callable[[str, SecureError], None] | None = None
                          ) -> ChannelWrap:
    """The host's handshake on a channel through a watch invitation (NETWORK.md §14.8,
    SECURE.md §12): the watch code's SPAKE2 with the wormhole's agreed key as the watch
    code. Its join code is a fresh random secret that nobody holds, so a JOIN on it
    never passes: a watch invitation never gives a seat. What fails on it is counted
    by a limiter of this wormhole's own, with the limits of ``limits`` (the watchers'):
    no failure there guesses anything another watcher holds (each wormhole's key is its
    own, known to whoever came through it), so one watch invitation's holder spends
    neither the players' limits nor the game's watchers' (SECURITY.md row 149)."""
    own = AttemptLimiter(per_address=limits.per_address, per_game=limits.per_game,
                         window=limits.window, clock=limits.clock)
    return node_wrap(secrets.token_bytes(32), net, limiter=own, on_refused=on_refused,
                     watch=WatchGate(password, own))


def secure_busy(channel: Channel, reason: str) -> None:
    """The host's answer to a connection it has no slot for (SECURE.md REFUSE 6)."""
    refuse_busy(channel, reason, 1.0)
