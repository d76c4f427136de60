"""The watch code's handshake: a spectator gets an encrypted channel, never a seat
(protocol/SECURE.md §12 is the specification; this module implements it).

The host sends its HELLO before it knows what the other side holds, and a player's
HELLO → JOIN → ACCEPT stays byte for byte what it was (SECURE.md §3, the v1 vector). A
watcher answers the HELLO with a two-byte WATCH instead of a JOIN; the host then runs a
second, separate SPAKE2 on the **watch code**, with a fresh nonce and its own context
and transcript labels::

    host    → watcher  HELLO        (as for every connection)
    watcher → host     WATCH        0x06 ‖ version
    host    → watcher  WATCH HELLO  0x07 ‖ version ‖ game id ‖ nonce ‖ SPAKE2 (B side)
    watcher → host     WATCH JOIN   0x08 ‖ version ‖ SPAKE2 (A side) ‖ confirmation
    host    → watcher  ACCEPT       (or REFUSE: wrong code, limits, no watching)

A wrong watch code is counted by the watchers' own :class:`AttemptLimiter` (never the
players'), and the session it gives is marked :attr:`SecureSession.watcher`: the host
lets such a channel watch and nothing else.

>>> from splitnet.net.joincode import parse_code
>>> from splitnet.net.secure import HostHandshake
>>> join, watch = parse_code("7-lunar-anchor"), parse_code("9-comet-tiger")
>>> host = HostHandshake(join, game_id=bytes(16))
>>> w = WatchHandshake(watch)
>>> hw = HostWatch(watch, host.hello(), game_id=bytes(16))
>>> first = w.receive_hello(host.hello())
>>> step = hw.receive_watch_join(w.receive_watch_hello(hw.receive_watch(first)))
>>> session = w.receive_reply(step.reply)
>>> session.watcher, step.session.watcher, step.session.open(session.seal(b"hi"))
(True, True, b'hi')
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import secrets
from dataclasses import dataclass
from typing import Final

from splitnet.crypto.pake import SPAKE2_A, SPAKE2_B
from splitnet.net.joincode import JoinCode
from splitnet.net.secure import (
    ACCEPT_LEN,
    CONFIRM_LEN,
    GAME_ID_LEN,
    NONCE_LEN,
    PAKE_MSG_LEN,
    R_LIMIT_ADDRESS,
    R_LIMIT_GAME,
    R_MALFORMED,
    R_REPLAYED,
    R_VERSION,
    R_WRONG_CODE,
    SECURE_VERSION,
    T_ACCEPT,
    T_REFUSE,
    AttemptLimiter,
    Entropy,
    FrameLink,
    HandshakeError,
    HostStep,
    KeySchedule,
    SecureSession,
    TooManyAttempts,
    WrongCode,
    _decode_refuse,
    _finish_pake,
    _password,
    _start_pake,
    check_hello,
    encode_refuse,
    link_address,
    unanswered_error,
    wait_words,
)

__all__ = ["HostWatch", "WatchGate", "WatchHandshake", "host_watch_side", "watch_side"]

T_WATCH: Final = 0x06
T_WATCH_HELLO: Final = 0x07
T_WATCH_JOIN: Final = 0x08
WATCH_LEN: Final = 2
WATCH_HELLO_LEN: Final = 2 + GAME_ID_LEN + NONCE_LEN + PAKE_MSG_LEN  # 83
WATCH_JOIN_HEAD_LEN: Final = 2 + PAKE_MSG_LEN  # 35
WATCH_JOIN_LEN: Final = WATCH_JOIN_HEAD_LEN + CONFIRM_LEN  # 67
#: REFUSE reason: this host takes no watchers (``--no-watchers``)
R_NO_WATCHING: Final = 8

L_WATCH_CONTEXT: Final = b"splitnet/secure/v1 watch pake"
L_WATCH_TRANSCRIPT: Final = b"splitnet/secure/v1 watch transcript"


@dataclass(frozen=True, slots=True)
class WatchGate:
    """What a host needs to take watchers: the watch code and the watchers' own limiter
    (never the players')."""

    code: JoinCode | str | bytes
    limiter: AttemptLimiter


def watch_pake_ids(game_id: bytes, nonce: bytes) -> tuple[bytes, bytes]:
    """SPAKE2 ``idA`` (watcher) and ``idB`` (host) of the watch exchange."""
    ctx = L_WATCH_CONTEXT + game_id + nonce
    return ctx + b"/watcher", ctx + b"/host"


def watch_transcript_hash(hello: bytes, watch_hello: bytes, join_head: bytes) -> bytes:
    """SHA-256 over the label, the first HELLO, the WATCH HELLO and the WATCH JOIN
    without its confirmation."""
    return hashlib.sha256(L_WATCH_TRANSCRIPT + hello + watch_hello + join_head).digest()


def _watcher_session(role: str, keys: KeySchedule) -> SecureSession:
    s = SecureSession("host" if role == "host" else "joiner", keys)
    s.watcher = True
    return s


class HostWatch:
    """The host's side of the watch exchange on one connection (sans-IO), after it sent
    ``hello``: :meth:`receive_watch` → WATCH HELLO; :meth:`receive_watch_join` → a
    :class:`HostStep` (ACCEPT and a watcher's session, or a REFUSE and the error)."""

    def __init__(self, code: JoinCode | str | bytes, hello: bytes, *,
                 game_id: bytes | None = None, nonce: bytes | None = None,
                 entropy: Entropy | None = None) -> None:
        self._hello = hello
        self.game_id = hello[2:2 + GAME_ID_LEN] if game_id is None else game_id
        self.nonce = secrets.token_bytes(NONCE_LEN) if nonce is None else nonce
        id_a, id_b = watch_pake_ids(self.game_id, self.nonce)
        self._pake, msg = _start_pake(SPAKE2_B, _password(code), id_a, id_b, entropy)
        self._watch_hello = (bytes([T_WATCH_HELLO, SECURE_VERSION]) + self.game_id
                             + self.nonce + msg)
        self._asked = self._done = False

    def receive_watch(self, msg: bytes) -> bytes:
        """Take the WATCH; give the WATCH HELLO (raises :class:`HandshakeError` for
        anything else)."""
        if self._asked:
            raise HandshakeError("receive_watch called twice on one handshake")
        self._asked = True
        if len(msg) != WATCH_LEN or msg[0] != T_WATCH:
            raise HandshakeError("the watcher's WATCH message is malformed", code="malformed")
        if msg[1] != SECURE_VERSION:
            raise HandshakeError(f"the watcher speaks secure version {msg[1]}, we speak "
                                 f"{SECURE_VERSION}", code="version")
        return self._watch_hello

    def receive_watch_join(self, msg: bytes, *, limiter: AttemptLimiter | None = None,
                           address: str = "?") -> HostStep:
        """Check the WATCH JOIN against the watch code (SECURE.md §12): a replay is
        refused and not counted; an address or game past the watchers' limits is refused
        without its code being judged; a wrong code is counted against the watchers'
        limiter only."""
        if not self._asked or self._done:
            raise HandshakeError("receive_watch_join before receive_watch, or twice")
        self._done = True
        if len(msg) >= 2 and msg[0] == T_WATCH_JOIN and msg[1] != SECURE_VERSION:
            return HostStep(encode_refuse(R_VERSION, f"host speaks version {SECURE_VERSION}"),
                            error=HandshakeError("another secure version", code="version"))
        if len(msg) != WATCH_JOIN_LEN or msg[0] != T_WATCH_JOIN:
            return HostStep(encode_refuse(R_MALFORMED, "malformed WATCH JOIN"),
                            error=HandshakeError("the watcher's WATCH JOIN is malformed",
                                                 code="malformed"))
        head, confirm = msg[:WATCH_JOIN_HEAD_LEN], msg[WATCH_JOIN_HEAD_LEN:]
        if limiter is not None and limiter.replayed(head[2:]):
            return HostStep(encode_refuse(R_REPLAYED, "this WATCH JOIN was seen before"),
                            error=HandshakeError(f"a replayed WATCH JOIN from {address} "
                                                 "(not counted)", code="replayed"))
        try:
            k = _finish_pake(self._pake, head[2:], "watcher")
        except HandshakeError as e:
            return HostStep(encode_refuse(R_MALFORMED, "invalid SPAKE2 message"), error=e)
        keys = KeySchedule.derive(k, watch_transcript_hash(self._hello, self._watch_hello,
                                                           head))
        right = hmac.compare_digest(confirm, keys.confirm_joiner)
        if limiter is not None:
            limited = limit_refusal(limiter, address)
            if limited is not None:
                return limited
        if not right:
            text = ""
            if limiter is not None:
                limiter.record_failure(address)
                mine = limiter.failures_from(address)
                text = f"{mine} wrong watch code{'s' if mine != 1 else ''} from your address"
            return HostStep(encode_refuse(R_WRONG_CODE, text),
                            error=WrongCode(f"wrong watch code from {address}"))
        return HostStep(bytes([T_ACCEPT]) + keys.confirm_host,
                        session=_watcher_session("host", keys))


class WatchHandshake:
    """The watcher's side (sans-IO): :meth:`receive_hello` → WATCH;
    :meth:`receive_watch_hello` → WATCH JOIN; :meth:`receive_reply` → the session."""

    def __init__(self, code: JoinCode | str | bytes, *, entropy: Entropy | None = None) -> None:
        self._password = _password(code)
        self._entropy = entropy
        self._hello: bytes | None = None
        self._keys: KeySchedule | None = None
        self.game_id: bytes | None = None

    @property
    def sent_join(self) -> bool:
        """A WATCH JOIN was made: this attempt is one guess for whoever answers."""
        return self._keys is not None

    def receive_hello(self, msg: bytes) -> bytes:
        if self._hello is not None:
            raise HandshakeError("receive_hello called twice on one handshake")
        check_hello(msg)  # (the joiner's own check: the same HELLO, SECURE.md §12)
        self._hello = msg
        return bytes([T_WATCH, SECURE_VERSION])

    def receive_watch_hello(self, msg: bytes) -> bytes:
        if self._hello is None or self._keys is not None:
            raise HandshakeError("receive_watch_hello out of order")
        if msg[:1] == bytes([T_REFUSE]):
            raise _watch_refusal(msg)
        if len(msg) != WATCH_HELLO_LEN or msg[0] != T_WATCH_HELLO or msg[1] != SECURE_VERSION:
            raise HandshakeError("the host's answer to WATCH is not a WATCH HELLO",
                                 code="malformed")
        game_id = msg[2:2 + GAME_ID_LEN]
        nonce = msg[2 + GAME_ID_LEN:2 + GAME_ID_LEN + NONCE_LEN]
        self.game_id = game_id
        id_a, id_b = watch_pake_ids(game_id, nonce)
        pake, mine = _start_pake(SPAKE2_A, self._password, id_a, id_b, self._entropy)
        k = _finish_pake(pake, msg[2 + GAME_ID_LEN + NONCE_LEN:], "host")
        head = bytes([T_WATCH_JOIN, SECURE_VERSION]) + mine
        self._keys = KeySchedule.derive(k, watch_transcript_hash(self._hello, msg, head))
        return head + self._keys.confirm_joiner

    def receive_reply(self, msg: bytes) -> SecureSession:
        if self._keys is None:
            raise HandshakeError("receive_reply before receive_watch_hello")
        if msg[:1] == bytes([T_REFUSE]):
            raise _watch_refusal(msg)
        if len(msg) != ACCEPT_LEN or msg[0] != T_ACCEPT:
            raise HandshakeError("the host's reply is malformed", code="malformed")
        if not hmac.compare_digest(msg[1:], self._keys.confirm_host):
            raise WrongCode("the host could not prove it knows the watch code")
        return _watcher_session("watcher", self._keys)


def limit_refusal(limiter: AttemptLimiter, address: str) -> HostStep | None:
    """The REFUSE for a watch attempt from ``address`` past the watchers' limits (the
    address's, or watching closed for the game), or None if it may try."""
    try:
        limiter.check(address)
    except TooManyAttempts as e:
        if e.scope == "game":
            return HostStep(encode_refuse(
                R_LIMIT_GAME, f"watching is closed: {limiter.failures} wrong watch "
                f"codes for this game (the players' game goes on)"), error=e)
        within = f" within {wait_words(limiter.window)}" if limiter.window else ""
        return HostStep(encode_refuse(R_LIMIT_ADDRESS, f"{limiter.per_address} wrong "
                                      f"watch codes from it{within}", e.retry_after), error=e)
    return None


def _watch_refusal(msg: bytes) -> Exception:
    if msg[1:2] == bytes([R_NO_WATCHING]):
        return HandshakeError("this game cannot be watched (the host took no watchers)",
                              code="no-watching")
    e = _decode_refuse(msg)
    if isinstance(e, TooManyAttempts):
        return TooManyAttempts(str(e).replace("join attempts", "watch attempts"),
                               scope=e.scope, retry_after=e.retry_after)
    if isinstance(e, WrongCode):
        return WrongCode(str(e).replace("wrong code", "wrong watch code", 1))
    return e


async def host_watch_side(link: FrameLink, hello: bytes, msg: bytes,
                          gate: WatchGate | None, game_id: bytes | None = None,
                          entropy: Entropy | None = None) -> SecureSession:
    """The host's side once a connection answered its HELLO with WATCH (called by the
    host's join-code handshake, :func:`splitnet.net.secure.secure_wrap`)."""
    if gate is None:
        link.send(encode_refuse(R_NO_WATCHING, "this game takes no watchers"))
        await link.drain()
        raise HandshakeError(f"{link.peer} asked to watch; this game takes no watchers",
                             code="no-watching")
    # past the watchers' limits: refused at once, before any SPAKE2 of the watch code —
    # a flood of wrong watch codes then costs the host (and its players) almost nothing
    early = limit_refusal(gate.limiter, link_address(link))
    if early is not None:
        link.send(early.reply)
        await link.drain()
        assert early.error is not None
        raise early.error
    hw = HostWatch(gate.code, hello, game_id=game_id, entropy=entropy)
    link.send(hw.receive_watch(msg))
    await link.drain()
    step = hw.receive_watch_join(await link.recv(), limiter=gate.limiter,
                                 address=link_address(link))
    link.send(step.reply)
    await link.drain()
    if step.error is not None:
        raise step.error
    assert step.session is not None
    return step.session


async def watch_side(link: FrameLink, code: JoinCode | str | bytes,
                     entropy: Entropy | None = None,
                     timeout: float | None = None) -> SecureSession:
    """The watcher's side on a fresh connection (errors as
    :func:`splitnet.net.secure.secure_client_link`, and ``no-watching``): a connection
    that ends, or is silent for ``timeout``, after our WATCH JOIN — one guess of the
    watch code for whoever answers — is a :class:`HandshakeError` with code
    ``"unanswered"``, as a joiner's JOIN."""
    hs = WatchHandshake(code, entropy=entropy)
    try:
        async with asyncio.timeout(timeout):
            link.send(hs.receive_hello(await link.recv()))
            await link.drain()
            link.send(hs.receive_watch_hello(await link.recv()))
            await link.drain()
            return hs.receive_reply(await link.recv())
    except (ConnectionError, TimeoutError) as e:
        if not hs.sent_join:
            raise
        raise unanswered_error(link, e, timeout, "WATCH JOIN") from None
