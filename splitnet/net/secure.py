"""Only invited players get in: the join-code handshake and the encrypted channel
(protocol/SECURE.md is the specification; this module implements it).

The host and the joiner share a weak secret, the join code (:mod:`splitnet.net.joincode`).
They run SPAKE2 (python-spake2 0.9's, Ed25519 group, computed through libsodium by
:mod:`splitnet.crypto.pake`) on it, bound to the protocol version, the
game's id and a fresh nonce; HKDF-SHA256 over the SPAKE2 key and the transcript hash
gives a key for each direction, a key-confirmation value for each side, a verification
string both screens can show and a channel-binding value. Three messages::

    host   → joiner   HELLO    version, game id, nonce, SPAKE2 message (B side)
    joiner → host     JOIN     version, SPAKE2 message (A side), joiner's confirmation
                               [, seat proof: its identity key and signature, sealed]
    host   → joiner   ACCEPT   host's confirmation   (or REFUSE: wrong code, busy, …)

The code itself never crosses the wire, a recorded exchange gives an eavesdropper nothing
to test guesses against offline, and each connection is worth exactly one guess, which the
host counts (:class:`AttemptLimiter`). A wrong code is known on both ends after one round
trip (:class:`WrongCode`); an old JOIN replayed to a new HELLO fails like a wrong code,
because the host's SPAKE2 message and nonce are new each time — and the host recognises
it as a replay, which is no guess and is not counted. A joiner that already holds a
seat (or a place in the lobby) proves it with its identity key inside the JOIN (sealed
under the new SPAKE2 key, so only a host that knows the code reads it): the attempt
limits never refuse it, so nobody without the code can shut a player out.

After the handshake every frame (:mod:`splitnet.net.framing`) carries
``ChaCha20-Poly1305(key[direction], nonce = 0⁴ ‖ seq₆₄, ad = label ‖ direction ‖ seq₆₄,
kind ‖ payload)``; ``seq`` counts the frames of one direction from 0 and is never sent, so
a replayed, reordered, dropped, truncated or altered frame fails authentication
(:class:`FrameRejected`), and the channel refuses everything after that.

Layers, each usable alone:

* sans-IO: :class:`HostHandshake`, :class:`JoinHandshake` → :class:`SecureSession`
  (``seal``/``open``);
* :class:`AttemptLimiter` (clock injected) — wrong codes per address and per game;
* asyncio: :func:`secure_server_handshake` / :func:`secure_client_handshake` on a
  reader/writer pair → :class:`SecureChannel` (``await send``, ``await recv``; the same
  on any :class:`FrameLink`: :func:`secure_server_link` / :func:`secure_client_link`), and
  :func:`secure_wrap` for code that already holds a frame channel (sync ``send``,
  ``await recv``, ``drain``, ``close``, ``wait_closed``, ``peer``).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import ipaddress
import os
import secrets
import time
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, Literal, Protocol

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from splitnet.crypto.pake import SPAKE2_A, SPAKE2_B, PakeError, Spake2
from splitnet.errors import SplitnetError
from splitnet.net.framing import MAX_FRAME, FrameTooLarge, encode_frame, read_frame
from splitnet.net.joincode import JoinCode, parse_code, word_list
from splitnet.session.identity import Identity, verify
from splitnet.text import shown

if TYPE_CHECKING:
    from splitnet.net.secure_watch import WatchGate

__all__ = [
    "MAX_PLAINTEXT",
    "SECURE_VERSION",
    "AttemptLimiter",
    "FrameLink",
    "FrameRejected",
    "HandshakeError",
    "HostHandshake",
    "HostStep",
    "JoinHandshake",
    "SecureChannel",
    "SecureClosed",
    "SecureError",
    "SecureLink",
    "SecureSession",
    "StreamLink",
    "TooManyAttempts",
    "TryLater",
    "WrongCode",
    "refuse_busy",
    "secure_client_handshake",
    "secure_client_link",
    "secure_server_handshake",
    "secure_server_link",
    "secure_wrap",
]

# --------------------------------------------------------------------------- constants

#: Version byte of every handshake message.
SECURE_VERSION: Final = 1
GAME_ID_LEN: Final = 16
NONCE_LEN: Final = 32
PAKE_MSG_LEN: Final = 33  # side byte ('A' or 'B') + Ed25519 point
CONFIRM_LEN: Final = 32
TAG_LEN: Final = 16
#: Bytes a sealed frame adds to its payload: the kind byte and the Poly1305 tag.
OVERHEAD: Final = 1 + TAG_LEN
#: Largest payload :meth:`SecureSession.seal` takes (the sealed frame fits ``MAX_FRAME``).
MAX_PLAINTEXT: Final = MAX_FRAME - OVERHEAD
MAX_SEQ: Final = 2**64 - 1
MAX_REASON: Final = 200

# message types (first byte of every handshake frame)
T_HELLO: Final = 0x01
T_JOIN: Final = 0x02
T_ACCEPT: Final = 0x03
T_REFUSE: Final = 0x04
T_SEAT_JOIN: Final = 0x05  # a JOIN with a seat proof
T_WATCH: Final = 0x06  # a watcher's answer to HELLO (secure_watch.py, §12)

HELLO_LEN: Final = 2 + GAME_ID_LEN + NONCE_LEN + PAKE_MSG_LEN  # 83
JOIN_HEAD_LEN: Final = 2 + PAKE_MSG_LEN  # 35
JOIN_LEN: Final = JOIN_HEAD_LEN + CONFIRM_LEN  # 67
SEAT_PROOF_LEN: Final = 32 + 64 + TAG_LEN  # identity key, signature, Poly1305 tag
SEAT_JOIN_LEN: Final = JOIN_LEN + SEAT_PROOF_LEN  # 179
ACCEPT_LEN: Final = 1 + CONFIRM_LEN  # 33
#: consecutive JOINs a joiner sends without an ACCEPT before it stops: each one is a code
#: guess for whoever answers at that address (SECURE.md §7)
MAX_UNANSWERED: Final = 3
#: recent JOINs' SPAKE2 messages a host remembers to recognise a replay
SEEN_JOINS: Final = 4096

# REFUSE reason codes
R_WRONG_CODE: Final = 1
R_LIMIT_ADDRESS: Final = 2
R_LIMIT_GAME: Final = 3
R_VERSION: Final = 4
R_MALFORMED: Final = 5
R_BUSY: Final = 6
R_REPLAYED: Final = 7
#: REFUSE reasons whose text starts with a u32be wait in seconds (0: unknown)
_TIMED: Final = (R_LIMIT_ADDRESS, R_BUSY)

# record kinds (first plaintext byte of a sealed frame)
K_DATA: Final = 0x00
K_CLOSE: Final = 0x01

# domain-separation labels
_PREFIX: Final = b"splitnet/secure/v1"
L_CONTEXT: Final = _PREFIX + b" pake"
L_ID_JOINER: Final = b"/joiner"
L_ID_HOST: Final = b"/host"
L_TRANSCRIPT: Final = _PREFIX + b" transcript"
L_KEY_H2J: Final = _PREFIX + b" key host->joiner"
L_KEY_J2H: Final = _PREFIX + b" key joiner->host"
L_CONFIRM_J: Final = _PREFIX + b" confirm joiner"
L_CONFIRM_H: Final = _PREFIX + b" confirm host"
L_VERIFY: Final = _PREFIX + b" verify"
L_BINDING: Final = _PREFIX + b" binding"
L_SEAT_KEY: Final = _PREFIX + b" seat proof key"
L_SEAT_SIG: Final = _PREFIX + b" seat proof"
L_FRAME: Final = _PREFIX + b" frame"
DIR_H2J: Final = 0x01
DIR_J2H: Final = 0x02

Role = Literal["host", "joiner"]
Entropy = Callable[[int], bytes]

# --------------------------------------------------------------------------- errors


class SecureError(SplitnetError):
    """The secure layer refused something; ``code`` is a short stable name, the message
    says what happened in words."""

    code = "secure"


class HandshakeError(SecureError):
    """The handshake broke: malformed or unexpected message, other version, bad PAKE."""

    code = "handshake"

    def __init__(self, reason: str, *, code: str = "handshake") -> None:
        super().__init__(reason)
        self.code = code


class WrongCode(SecureError):
    """The two ends used different join codes (found by key confirmation)."""

    code = "wrong-code"


class TooManyAttempts(SecureError):
    """The host refuses further attempts: ``scope`` is ``"address"`` (this address used up
    its wrong codes; ``retry_after`` seconds until it may try again, None for the rest of
    the game) or ``"game"`` (the game used up its wrong codes: ask for a new game)."""

    code = "too-many-attempts"

    def __init__(self, reason: str, *, scope: Literal["address", "game"],
                 retry_after: float | None = None) -> None:
        super().__init__(reason)
        self.scope = scope
        self.retry_after = retry_after


class TryLater(SecureError):
    """The host cannot take this connection now (every connection slot is in use): try
    again after ``retry_after`` seconds (None: soon). Nothing was counted against us."""

    code = "busy"

    def __init__(self, reason: str, *, retry_after: float | None = None) -> None:
        super().__init__(reason)
        self.retry_after = retry_after


class FrameRejected(SecureError):
    """A sealed frame failed: altered, replayed, reordered, dropped or truncated. The
    channel is unusable afterwards (every later call raises again)."""

    code = "frame"


class SecureClosed(ConnectionError):
    """The channel is closed. ``clean`` is True when the other side sent its close notice
    first; False when the connection ended without one (cut, or truncated by someone)."""

    def __init__(self, reason: str, *, clean: bool) -> None:
        super().__init__(reason)
        self.clean = clean


# --------------------------------------------------------------------------- key schedule


def _hkdf(ikm: bytes, salt: bytes, label: bytes, length: int = 32) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=length, salt=salt, info=label).derive(ikm)


def pake_ids(game_id: bytes, nonce: bytes) -> tuple[bytes, bytes]:
    """SPAKE2 ``idA`` (joiner) and ``idB`` (host): the version label, game id and nonce."""
    ctx = L_CONTEXT + game_id + nonce
    return ctx + L_ID_JOINER, ctx + L_ID_HOST


def transcript_hash(hello: bytes, join_head: bytes) -> bytes:
    """SHA-256 over the label, the whole HELLO and JOIN without its confirmation."""
    return hashlib.sha256(L_TRANSCRIPT + hello + join_head).digest()


@dataclass(frozen=True, slots=True)
class KeySchedule:
    """Everything derived from the SPAKE2 key ``k`` and the transcript hash ``th``."""

    key_h2j: bytes
    key_j2h: bytes
    confirm_joiner: bytes
    confirm_host: bytes
    verify: bytes
    binding: bytes
    seat_key: bytes
    th: bytes

    @classmethod
    def derive(cls, k: bytes, th: bytes) -> KeySchedule:
        return cls(
            key_h2j=_hkdf(k, th, L_KEY_H2J),
            key_j2h=_hkdf(k, th, L_KEY_J2H),
            confirm_joiner=_hkdf(k, th, L_CONFIRM_J),
            confirm_host=_hkdf(k, th, L_CONFIRM_H),
            verify=_hkdf(k, th, L_VERIFY, 4),
            binding=_hkdf(k, th, L_BINDING),
            seat_key=_hkdf(k, th, L_SEAT_KEY),
            th=th,
        )


_SEAT_NONCE: Final = bytes(12)  # the seat-proof key is used once


def seal_seat_proof(keys: KeySchedule, identity: Identity) -> bytes:
    """The seat proof a joiner appends to its JOIN: ``ChaCha20-Poly1305(seat_key, 0¹²,
    key ‖ Ed25519(key, "splitnet/secure/v1 seat proof" ‖ th), ad = label)``."""
    plain = identity.public_key_bytes() + identity.sign(L_SEAT_SIG + keys.th)
    return ChaCha20Poly1305(keys.seat_key).encrypt(_SEAT_NONCE, plain, L_SEAT_SIG)


_DUMMY = Identity.from_seed(bytes(32))
_DUMMY_SIG = _DUMMY.sign(b"")


def open_seat_proof(keys: KeySchedule, proof: bytes) -> bytes | None:
    """The identity key a seat proof proves, or None (wrong code, altered, not signed).
    Runs one signature check either way, so its time says nothing about the code."""
    try:
        plain = ChaCha20Poly1305(keys.seat_key).decrypt(_SEAT_NONCE, proof, L_SEAT_SIG)
    except InvalidTag:
        verify(_DUMMY.public_key_bytes(), b"x", _DUMMY_SIG)
        return None
    key, sig = plain[:32], plain[32:]
    return key if verify(key, L_SEAT_SIG + keys.th, sig) else None


def verification_words(data: bytes) -> str:
    """Four bytes as four words of the code list, e.g. ``'tiger-opal-wren-delta'``."""
    words = word_list()
    return "-".join(words[b] for b in data[:4])


# --------------------------------------------------------------------------- record layer


def _nonce(seq: int) -> bytes:
    return bytes(4) + seq.to_bytes(8, "big")


def _ad(direction: int, seq: int) -> bytes:
    return L_FRAME + bytes([direction]) + seq.to_bytes(8, "big")


class SecureSession:
    """The keys of one connection after a successful handshake (sans-IO).

    ``seal`` turns a payload into the next frame to send; ``open`` takes the next frame
    received and gives its payload, or None for the other side's close notice. Sequence
    numbers are implicit, one counter per direction, so frames must be opened in the
    order they were sealed. After a refused frame the session is dead (h11-style: the
    same error again on every call).
    """

    def __init__(self, role: Role, keys: KeySchedule) -> None:
        self.role: Role = role
        self._keys = keys
        if role == "host":
            self._tx, self._rx = ChaCha20Poly1305(keys.key_h2j), ChaCha20Poly1305(keys.key_j2h)
            self._tx_dir, self._rx_dir = DIR_H2J, DIR_J2H
        else:
            self._tx, self._rx = ChaCha20Poly1305(keys.key_j2h), ChaCha20Poly1305(keys.key_h2j)
            self._tx_dir, self._rx_dir = DIR_J2H, DIR_H2J
        self.sent = 0  #: frames sealed so far (the next send sequence number)
        self.received = 0  #: frames opened so far (the next receive sequence number)
        self._dead: FrameRejected | None = None
        self._peer_closed = False
        self._closed = False
        #: made by the watch code's handshake (secure_watch.py): it may watch, never play
        self.watcher = False

    @property
    def closed(self) -> bool:
        """This side has sealed its close notice."""
        return self._closed

    @property
    def peer_role(self) -> Role:
        return "joiner" if self.role == "host" else "host"

    @property
    def verification(self) -> str:
        """Four words both ends show; they match unless someone sits in between."""
        return verification_words(self._keys.verify)

    @property
    def verification_hex(self) -> str:
        """The same four bytes as ``'1a2b-3c4d'``."""
        h = self._keys.verify.hex()
        return f"{h[:4]}-{h[4:]}"

    @property
    def binding(self) -> bytes:
        """32 bytes unique to this connection, the same at both ends: sign it into the
        splitnet hello to bind identity keys to this channel."""
        return self._keys.binding

    def _seal(self, kind: int, payload: bytes) -> bytes:
        if self._closed:
            raise SecureClosed("this side already closed the channel", clean=True)
        if self.sent > MAX_SEQ:  # pragma: no cover - 2^64 frames
            raise SecureError("sequence numbers exhausted: reconnect")
        seq = self.sent
        self.sent += 1
        return self._tx.encrypt(_nonce(seq), bytes([kind]) + payload, _ad(self._tx_dir, seq))

    def seal(self, payload: bytes) -> bytes:
        """The frame that carries *payload* (1 … :data:`MAX_PLAINTEXT` bytes)."""
        if type(payload) is not bytes:
            raise TypeError("payload must be bytes")
        if not 1 <= len(payload) <= MAX_PLAINTEXT:
            raise FrameTooLarge(len(payload), MAX_PLAINTEXT)
        return self._seal(K_DATA, payload)

    def seal_close(self) -> bytes:
        """The close notice: the last frame this side sends."""
        frame = self._seal(K_CLOSE, b"")
        self._closed = True
        return frame

    def open(self, frame: bytes) -> bytes | None:
        """The payload of the next received frame, or None for the close notice."""
        if self._dead is not None:
            raise self._dead
        seq = self.received
        who = self.peer_role
        if self._peer_closed:
            self._dead = FrameRejected(
                f"frame {seq} from the {who} arrived after its close notice: refused")
            raise self._dead
        if len(frame) < OVERHEAD:
            self._dead = FrameRejected(
                f"frame {seq} from the {who} is {len(frame)} bytes, shorter than any sealed "
                f"frame: truncated or not encrypted")
            raise self._dead
        try:
            plain = self._rx.decrypt(_nonce(seq), frame, _ad(self._rx_dir, seq))
        except InvalidTag:
            self._dead = FrameRejected(
                f"frame {seq} from the {who} failed authentication: altered, replayed, "
                f"reordered, dropped or truncated on the way; closing the connection")
            raise self._dead from None
        self.received += 1
        kind, payload = plain[0], plain[1:]
        if kind == K_CLOSE and not payload:
            self._peer_closed = True
            return None
        if kind != K_DATA or not payload:
            self._dead = FrameRejected(f"frame {seq} from the {who} has unknown kind {kind}")
            raise self._dead
        return payload


# --------------------------------------------------------------------------- handshake


def encode_refuse(reason_code: int, reason: str, retry_after: float | None = None) -> bytes:
    """A REFUSE message: type, reason code, [u32be seconds to wait, for reasons 2 and 6,]
    reason in UTF-8 (at most 200 bytes)."""
    wait = b""
    if reason_code in _TIMED:
        wait = min(2**32 - 1, max(0, round(retry_after or 0))).to_bytes(4, "big")
    return bytes([T_REFUSE, reason_code]) + wait + reason.encode()[:MAX_REASON]


def refuse_busy(link: FrameLink, reason: str, retry_after: float | None = None) -> None:
    """Tell a connection still in the handshake that the host is busy (REFUSE 6: try
    again later) — sent instead of HELLO, or instead of the answer to a JOIN."""
    with contextlib.suppress(Exception):
        link.send(encode_refuse(R_BUSY, reason, retry_after))


def wait_words(seconds: float) -> str:
    """``'9 min 40 s'``, ``'40 s'``, ``'2 h 5 min'``."""
    s = max(0, round(seconds))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60} s" if s % 60 else f"{s // 60} min"
    return f"{s // 3600} h {s % 3600 // 60} min"


def _decode_refuse(msg: bytes) -> SecureError:
    if len(msg) < 2:
        return HandshakeError("the host sent a malformed refusal", code="malformed")
    code = msg[1]
    rest = msg[2:]
    wait: float | None = None
    if code in _TIMED:
        if len(rest) < 4:
            return HandshakeError("the host sent a malformed refusal", code="malformed")
        wait = float(int.from_bytes(rest[:4], "big")) or None
        rest = rest[4:]
    text = rest[:MAX_REASON].decode("utf-8", "replace")
    text = shown(text)  # the host's words: shown, never obeyed
    if code == R_WRONG_CODE:
        return WrongCode(f"wrong code: the host did not accept it ({text})" if text
                         else "wrong code: the host did not accept it")
    if code == R_LIMIT_ADDRESS:
        when = f"try again in {wait_words(wait)}" if wait else "try again later"
        return TooManyAttempts(f"the host refuses more join attempts from this address "
                               f"({text}): {when}", scope="address", retry_after=wait)
    if code == R_LIMIT_GAME:
        return TooManyAttempts(f"the host refuses more join attempts for this game ({text})",
                               scope="game")
    if code == R_BUSY:
        when = f"in {wait_words(wait)}" if wait else "later"
        return TryLater(f"the host is busy ({text}): try again {when}", retry_after=wait)
    if code == R_VERSION:
        return HandshakeError(f"the host refused our version: {text}", code="version")
    if code == R_REPLAYED:
        return HandshakeError(f"the host took our JOIN for a replay: {text}",
                              code="replayed")
    return HandshakeError(f"the host refused the handshake: {text}", code="malformed")


def _start_pake(cls: type[Spake2], password: bytes, id_a: bytes, id_b: bytes,
                entropy: Entropy | None) -> tuple[Spake2, bytes]:
    pake = cls(password, idA=id_a, idB=id_b, entropy_f=entropy or os.urandom)
    msg = pake.start()
    assert isinstance(msg, bytes) and len(msg) == PAKE_MSG_LEN
    return pake, msg


def _finish_pake(pake: Spake2, msg: bytes, who: str) -> bytes:
    try:
        key = pake.finish(msg)
    except PakeError as e:  # bad point, reflection, wrong side: all the same to us
        raise HandshakeError(f"the {who}'s SPAKE2 message is invalid ({type(e).__name__})",
                             code="malformed") from None
    assert isinstance(key, bytes)
    return key


def _password(code: JoinCode | str | bytes) -> bytes:
    """The SPAKE2 password: a join code's canonical form, or bytes as they are (the key a
    wormhole's own PAKE agreed, NETWORK.md §12)."""
    if isinstance(code, bytes):
        return code
    return parse_code(code).secret()


@dataclass(frozen=True, slots=True)
class HostStep:
    """What the host does with a JOIN: send ``reply``; then either use ``session`` (right
    code) or close and report ``error``. ``seat`` is the identity key a valid seat proof
    showed (one of the host's ``seats``), else None."""

    reply: bytes
    session: SecureSession | None = None
    error: SecureError | None = None
    seat: bytes | None = None


class HostHandshake:
    """The host's side for one connection (sans-IO).

    >>> from splitnet.net.joincode import parse_code
    >>> code = parse_code("7-lunar-anchor")
    >>> host, joiner = HostHandshake(code, game_id=bytes(16)), JoinHandshake(code)
    >>> step = host.receive_join(joiner.receive_hello(host.hello()))
    >>> session = joiner.receive_reply(step.reply)
    >>> step.session.open(session.seal(b"hi")), session.verification == step.session.verification
    (b'hi', True)
    """

    def __init__(self, code: JoinCode | str | bytes, *, game_id: bytes | None = None,
                 nonce: bytes | None = None, entropy: Entropy | None = None) -> None:
        self.game_id = secrets.token_bytes(GAME_ID_LEN) if game_id is None else game_id
        self.nonce = secrets.token_bytes(NONCE_LEN) if nonce is None else nonce
        if len(self.game_id) != GAME_ID_LEN or len(self.nonce) != NONCE_LEN:
            raise ValueError(f"game_id is {GAME_ID_LEN} bytes and nonce {NONCE_LEN}")
        id_a, id_b = pake_ids(self.game_id, self.nonce)
        self._pake, msg = _start_pake(SPAKE2_B, _password(code), id_a, id_b, entropy)
        self._hello = bytes([T_HELLO, SECURE_VERSION]) + self.game_id + self.nonce + msg
        self._done = False

    def hello(self) -> bytes:
        """The first message, HELLO (send it as soon as the connection is accepted)."""
        return self._hello

    def receive_join(self, msg: bytes, *, limiter: AttemptLimiter | None = None,
                     address: str = "?", seats: Collection[bytes] = ()) -> HostStep:
        """Check the joiner's JOIN (SECURE.md §3, §7). Right code: ``reply`` is ACCEPT and
        ``session`` is set. Otherwise ``reply`` is a REFUSE and ``error`` says why.

        With a *limiter*: a JOIN seen before is a replay (refused, not counted); a JOIN
        whose seat proof shows one of *seats* with the right code is accepted whatever the
        limits; any other is refused without evaluation of its code when *address* or the
        game used up its wrong codes (the same refusal, right code or not, so it tells a
        guesser nothing), and a wrong code is counted against *address*. Checking and
        counting happen here, in one call: parallel connections cannot outrun them."""
        if self._done:
            raise HandshakeError("receive_join called twice on one handshake")
        self._done = True
        kind = msg[0] if msg else -1
        if len(msg) >= 2 and kind in (T_JOIN, T_SEAT_JOIN) and msg[1] != SECURE_VERSION:
            err = HandshakeError(f"the joiner speaks secure version {msg[1]}, we speak "
                                 f"{SECURE_VERSION}", code="version")
            return HostStep(encode_refuse(R_VERSION, f"host speaks version {SECURE_VERSION}"),
                            error=err)
        if not ((kind == T_JOIN and len(msg) == JOIN_LEN)
                or (kind == T_SEAT_JOIN and len(msg) == SEAT_JOIN_LEN)):
            err = HandshakeError("the joiner's JOIN message is malformed", code="malformed")
            return HostStep(encode_refuse(R_MALFORMED, "malformed JOIN"), error=err)
        head = msg[:JOIN_HEAD_LEN]
        confirm = msg[JOIN_HEAD_LEN:JOIN_LEN]
        proof = msg[JOIN_LEN:]
        if limiter is not None and limiter.replayed(head[2:]):
            # the sender does not know that SPAKE2 message's secret: no guess at all
            err = HandshakeError(f"a replayed JOIN from {address} (not counted as a guess)",
                                 code="replayed")
            return HostStep(encode_refuse(R_REPLAYED, "this JOIN was seen before"),
                            error=err)
        try:
            k = _finish_pake(self._pake, head[2:], "joiner")
        except HandshakeError as e:
            return HostStep(encode_refuse(R_MALFORMED, "invalid SPAKE2 message"), error=e)
        keys = KeySchedule.derive(k, transcript_hash(self._hello, head))
        right = hmac.compare_digest(confirm, keys.confirm_joiner)
        seat = open_seat_proof(keys, proof) if proof else None
        if seat is not None and seat not in seats:
            seat = None
        accept = HostStep(bytes([T_ACCEPT]) + keys.confirm_host,
                          session=SecureSession("host", keys), seat=seat)
        if right and seat is not None:
            return accept  # a player of this game: never refused by the limits
        if limiter is not None:
            try:
                limiter.check(address)
            except TooManyAttempts as e:  # not counted: the wait it names stays true
                if e.scope == "game":
                    reply = encode_refuse(R_LIMIT_GAME, str(e))
                else:  # the wait travels as a number; the words are the joiner's
                    within = (f" within {wait_words(limiter.window)}" if limiter.window
                              else "")
                    reply = encode_refuse(R_LIMIT_ADDRESS, f"{limiter.per_address} wrong "
                                          f"codes from it{within}", e.retry_after)
                return HostStep(reply, error=e)
        if not right:
            counts, text = "", ""
            if limiter is not None:
                limiter.record_failure(address)
                mine = limiter.failures_from(address)
                counts = (f" ({mine} of {limiter.per_address} for this address, "
                          f"{limiter.failures} of {limiter.per_game} for this game)")
                left = max(0, limiter.per_address - mine)
                text = (f"{mine} wrong code{'s' if mine != 1 else ''} from your address so "
                        f"far; {left} more allowed" if left else
                        f"{mine} wrong codes from your address: no more allowed for now")
            return HostStep(encode_refuse(R_WRONG_CODE, text),
                            error=WrongCode(f"wrong code from {address}{counts}"))
        return accept


def check_hello(msg: bytes) -> None:
    """The host's first message, as a joiner or a watcher takes it (SECURE.md §3, §12):
    raises the host's REFUSE as its error, or :class:`HandshakeError` for another
    version (``version``) or anything that is not a HELLO (``malformed``)."""
    if msg[:1] == bytes([T_REFUSE]):
        raise _decode_refuse(msg)
    if len(msg) >= 2 and msg[0] == T_HELLO and msg[1] != SECURE_VERSION:
        raise HandshakeError(f"the host speaks secure version {msg[1]}, we speak "
                             f"{SECURE_VERSION}: update one of the two", code="version")
    if len(msg) != HELLO_LEN or msg[0] != T_HELLO:
        raise HandshakeError("the host's first message is not a splitnet HELLO (is this "
                             "a splitnet game, and a version that asks for a code?)",
                             code="malformed")


class JoinHandshake:
    """The joiner's side (sans-IO): ``receive_hello`` → send JOIN; ``receive_reply`` →
    :class:`SecureSession` or an error (:class:`WrongCode`, :class:`TooManyAttempts`,
    :class:`HandshakeError`)."""

    def __init__(self, code: JoinCode | str | bytes, *, entropy: Entropy | None = None,
                 identity: Identity | None = None) -> None:
        self._password = _password(code)
        self._entropy = entropy
        #: with an identity, the JOIN carries a seat proof (SECURE.md §3)
        self.identity = identity
        self._hello: bytes | None = None
        self._keys: KeySchedule | None = None
        self.game_id: bytes | None = None
        self._done = False

    @property
    def sent_join(self) -> bool:
        """A JOIN was made: from now on this attempt is one guess for whoever answers."""
        return self._keys is not None

    def receive_hello(self, msg: bytes) -> bytes:
        """Take the host's HELLO (or REFUSE) and give the JOIN to send."""
        if self._hello is not None:
            raise HandshakeError("receive_hello called twice on one handshake")
        check_hello(msg)
        self._hello = msg
        game_id = msg[2:2 + GAME_ID_LEN]
        nonce = msg[2 + GAME_ID_LEN:2 + GAME_ID_LEN + NONCE_LEN]
        host_msg = msg[2 + GAME_ID_LEN + NONCE_LEN:]
        self.game_id = game_id
        id_a, id_b = pake_ids(game_id, nonce)
        pake, mine = _start_pake(SPAKE2_A, self._password, id_a, id_b, self._entropy)
        k = _finish_pake(pake, host_msg, "host")
        kind = T_JOIN if self.identity is None else T_SEAT_JOIN
        head = bytes([kind, SECURE_VERSION]) + mine
        keys = KeySchedule.derive(k, transcript_hash(msg, head))
        self._keys = keys
        proof = b"" if self.identity is None else seal_seat_proof(keys, self.identity)
        return head + keys.confirm_joiner + proof

    def receive_reply(self, msg: bytes) -> SecureSession:
        """Take the host's ACCEPT (→ the session) or REFUSE (→ raises)."""
        if self._keys is None or self._done:
            raise HandshakeError("receive_reply before receive_hello, or twice")
        self._done = True
        if msg[:1] == bytes([T_REFUSE]):
            raise _decode_refuse(msg)
        if len(msg) != ACCEPT_LEN or msg[0] != T_ACCEPT:
            raise HandshakeError("the host's reply is malformed", code="malformed")
        if not hmac.compare_digest(msg[1:], self._keys.confirm_host):
            raise WrongCode("the host could not prove it knows the code: not the game you "
                            "were invited to, or someone sits in between")
        return SecureSession("joiner", self._keys)


# --------------------------------------------------------------------------- attempt limits


class AttemptLimiter:
    """Wrong codes a host accepts: ``per_address`` within ``window`` seconds from one
    address (then it is refused until the oldest of them is ``window`` old; None: for the
    rest of the game) and ``per_game`` in all (then every joiner is refused: start a new
    game, with a new code). ``clock`` is injected for tests (default ``time.monotonic``).

    Check before each guess is evaluated and record each wrong code straight after, with
    no ``await`` in between: then parallel connections cannot outrun the count
    (:meth:`HostHandshake.receive_join` does both). The limits never apply to a joiner
    that proves a seat of the game (its seat proof): someone without the code cannot shut
    a player out by spending the limits. It also remembers the SPAKE2 messages of the
    last :data:`SEEN_JOINS` JOINs: one seen again is a replay (:meth:`replayed`), no guess.

    >>> t = [0.0]; lim = AttemptLimiter(per_address=2, per_game=3, window=60, clock=lambda: t[0])
    >>> lim.record_failure("10.0.0.5"); lim.record_failure("10.0.0.5")
    >>> lim.check("10.0.0.5")
    Traceback (most recent call last):
    ...
    splitnet.net.secure.TooManyAttempts: 2 wrong codes from 10.0.0.5: refused for 1 min
    >>> t[0] = 61.0; lim.check("10.0.0.5"); lim.status()
    'wrong codes: 2 of 3 allowed for this game (1 attempt refused)'
    """

    def __init__(self, *, per_address: int = 3, per_game: int = 20,
                 window: float | None = 600.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if per_address < 1 or per_game < 1:
            raise ValueError("limits must be at least 1")
        self.per_address = per_address
        self.per_game = per_game
        self.window = window
        self.clock = clock
        self.failures = 0  #: wrong codes seen in this game
        self.refused = 0  #: attempts refused because a limit was reached
        self.replays = 0  #: JOINs refused as replays (never counted as guesses)
        self._by_address: dict[str, deque[float]] = {}
        self._seen: OrderedDict[bytes, None] = OrderedDict()

    def replayed(self, pake_msg: bytes) -> bool:
        """True if a JOIN with this SPAKE2 message came before (then it is a replay: its
        sender cannot know the secret behind it, so it is not a guess); else remember it."""
        digest = hashlib.sha256(pake_msg).digest()
        if digest in self._seen:
            self._seen.move_to_end(digest)
            self.replays += 1
            return True
        self._seen[digest] = None
        if len(self._seen) > SEEN_JOINS:
            self._seen.popitem(last=False)
        return False

    def _recent(self, address: str) -> deque[float]:
        times = self._by_address.get(address)
        if times is None:
            return deque()
        if self.window is not None:
            horizon = self.clock() - self.window
            while times and times[0] <= horizon:
                times.popleft()
        if not times:
            del self._by_address[address]
        return times

    def failures_from(self, address: str) -> int:
        """Wrong codes from *address* that still count."""
        return len(self._recent(address))

    def check(self, address: str) -> None:
        """Raise :class:`TooManyAttempts` if *address* may not try (counted in ``refused``)."""
        if self.failures >= self.per_game:
            self.refused += 1
            raise TooManyAttempts(
                f"{self.failures} wrong codes for this game: it takes no more joiners; the "
                f"host must start a new game with a new code", scope="game")
        times = self._recent(address)
        if len(times) >= self.per_address:
            self.refused += 1
            if self.window is None:
                raise TooManyAttempts(
                    f"{len(times)} wrong codes from {address}: refused for the rest of the "
                    f"game", scope="address")
            wait = max(0.0, times[0] + self.window - self.clock())
            raise TooManyAttempts(
                f"{len(times)} wrong codes from {address}: refused for {wait_words(wait)}",
                scope="address", retry_after=wait)

    def record_failure(self, address: str) -> None:
        """Count one wrong code from *address*."""
        self.failures += 1
        self._recent(address)
        self._by_address.setdefault(address, deque()).append(self.clock())

    def blocked(self) -> list[str]:
        """Addresses refused right now."""
        return sorted(a for a in list(self._by_address)
                      if len(self._recent(a)) >= self.per_address)

    def status(self) -> str:
        """One line for the host's lobby, e.g. ``'wrong codes: 4 of 20 allowed for this game
        (1 address blocked, 2 attempts refused)'``."""
        line = f"wrong codes: {self.failures} of {self.per_game} allowed for this game"
        if self.failures >= self.per_game:
            line = f"wrong codes: {self.failures} — game closed to new joiners"
        extra = []
        n = len(self.blocked())
        if n:
            extra.append(f"{n} address{'es' if n != 1 else ''} blocked")
        if self.refused:
            extra.append(f"{self.refused} attempt{'s' if self.refused != 1 else ''} refused")
        if self.replays:
            extra.append(f"{self.replays} replayed JOIN{'s' if self.replays != 1 else ''} "
                         f"ignored")
        return line + (f" ({', '.join(extra)})" if extra else "")


# --------------------------------------------------------------------------- asyncio


class FrameLink(Protocol):
    """A connection that moves whole frames (the shape of ``splitnet.net.wire.Channel``)."""

    peer: str

    def send(self, payload: bytes) -> None: ...

    async def recv(self) -> bytes: ...

    async def drain(self) -> None: ...

    def close(self) -> None: ...

    async def wait_closed(self) -> None: ...


class StreamLink:
    """A :class:`FrameLink` on an asyncio reader/writer pair, with framing.py frames.
    End of stream and socket errors come out of ``recv`` as :class:`SecureClosed`."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        info = writer.get_extra_info("peername")
        if isinstance(info, tuple) and ":" in str(info[0]):
            self.peer = f"[{info[0]}]:{info[1]}"
        elif isinstance(info, tuple):
            self.peer = f"{info[0]}:{info[1]}"
        else:
            self.peer = str(info)

    def send(self, payload: bytes) -> None:
        if self.writer.is_closing():
            raise SecureClosed("connection closed", clean=False)
        self.writer.write(encode_frame(payload))

    async def recv(self) -> bytes:
        try:
            return await read_frame(self.reader)
        except (asyncio.IncompleteReadError, ConnectionError, OSError) as e:
            raise SecureClosed(f"connection to {self.peer} ended ({type(e).__name__})",
                               clean=False) from e

    async def drain(self) -> None:
        try:
            await self.writer.drain()
        except (ConnectionError, OSError) as e:
            raise SecureClosed(f"connection to {self.peer} broke ({type(e).__name__})",
                               clean=False) from e

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.writer.close()

    async def wait_closed(self) -> None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.writer.wait_closed(), 2.0)


def peer_address(peer: str) -> str:
    """The address part of ``"ADDR:PORT"`` or ``"[V6]:PORT"`` (what the limiter counts
    by): IPv6 in compressed form, IPv4-mapped IPv6 as IPv4."""
    if peer.startswith("["):
        host = peer[1:].split("]", 1)[0]
    else:
        host = peer.rsplit(":", 1)[0] if ":" in peer else peer
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return str(ip.ipv4_mapped)
    return str(ip)


def link_address(link: FrameLink) -> str:
    """The other side's address: from the socket when the link has an asyncio ``writer``
    (exact, even for IPv6), else parsed from ``link.peer``."""
    writer = getattr(link, "writer", None)
    if writer is not None:
        info = writer.get_extra_info("peername")
        if isinstance(info, tuple) and info:
            return peer_address(f"[{info[0]}]:0")
    return peer_address(link.peer)


class _SecureBase:
    def __init__(self, link: FrameLink, session: SecureSession) -> None:
        self.link = link
        self.session = session
        self.peer = link.peer

    @property
    def verification(self) -> str:
        return self.session.verification

    @property
    def binding(self) -> bytes:
        return self.session.binding

    @property
    def watcher(self) -> bool:
        """Opened with the watch code (SECURE.md §12): a spectator's channel."""
        return self.session.watcher

    def send_nowait(self, payload: bytes) -> None:
        """Seal and queue one payload (see :meth:`drain`)."""
        self.link.send(self.session.seal(payload))

    async def recv(self) -> bytes:
        """The next payload. Raises :class:`FrameRejected` (tampering: close the
        connection) or :class:`SecureClosed` (closed; ``clean`` if with a close notice)."""
        frame = await self.link.recv()
        payload = self.session.open(frame)
        if payload is None:
            raise SecureClosed(f"{self.peer} closed the channel", clean=True)
        return payload

    async def drain(self) -> None:
        await self.link.drain()

    def close(self) -> None:
        """Send the close notice (if still possible) and close the connection."""
        with contextlib.suppress(Exception):
            if not self.session.closed:
                self.link.send(self.session.seal_close())
        self.link.close()

    async def wait_closed(self) -> None:
        await self.link.wait_closed()


class SecureChannel(_SecureBase):
    """An encrypted, authenticated frame channel: ``await send(payload)``,
    ``await recv()``. ``verification`` is the four words to show; ``binding`` the
    channel-binding value."""

    async def send(self, payload: bytes) -> None:
        self.send_nowait(payload)
        await self.link.drain()


class SecureLink(_SecureBase):
    """The same channel with a non-blocking ``send`` (queue; ``await drain()`` to wait):
    the shape of ``splitnet.net.wire.Channel``, to wrap such a channel in place.

    ``closed_exc``, when given, is the exception type ``recv`` raises instead of
    :class:`SecureClosed` / :class:`FrameRejected` (the reason is kept as its message and
    the original as its ``__cause__``), so callers that handle their own "connection
    closed" error need no new ``except``."""

    def __init__(self, link: FrameLink, session: SecureSession, *,
                 closed_exc: Callable[[str], BaseException] | None = None) -> None:
        super().__init__(link, session)
        self._closed_exc = closed_exc

    def send(self, payload: bytes) -> None:
        self.send_nowait(payload)

    async def recv(self) -> bytes:
        if self._closed_exc is None:
            return await super().recv()
        try:
            return await super().recv()
        except (SecureClosed, FrameRejected) as e:
            raise self._closed_exc(str(e)) from e


async def _host_side(link: FrameLink, code: JoinCode | str | bytes, game_id: bytes | None,
                     limiter: AttemptLimiter | None, entropy: Entropy | None,
                     seats: Callable[[], Collection[bytes]] | None = None,
                     watch: WatchGate | None = None) -> SecureSession:
    address = link_address(link)
    hs = HostHandshake(code, game_id=game_id, entropy=entropy)
    link.send(hs.hello())  # always: a seat's reconnect must get through any limit
    await link.drain()
    msg = await link.recv()
    if msg[:1] == bytes([T_WATCH]):  # a watcher: the watch code's exchange (§12)
        from splitnet.net.secure_watch import host_watch_side
        return await host_watch_side(link, hs.hello(), msg, watch, game_id, entropy)
    step = hs.receive_join(msg, limiter=limiter, address=address,
                           seats=seats() if seats is not None else ())
    link.send(step.reply)
    await link.drain()
    if step.error is not None:
        raise step.error
    assert step.session is not None
    return step.session


async def _join_side(link: FrameLink, code: JoinCode | str | bytes, entropy: Entropy | None,
                     identity: Identity | None = None,
                     timeout: float | None = None) -> SecureSession:
    hs = JoinHandshake(code, entropy=entropy, identity=identity)
    try:
        async with asyncio.timeout(timeout):
            msg = await link.recv()
            link.send(hs.receive_hello(msg))
            await link.drain()
            return hs.receive_reply(await link.recv())
    except (ConnectionError, TimeoutError) as e:  # SecureClosed, or the caller's own
        if not hs.sent_join:
            raise
        raise unanswered_error(link, e, timeout, "JOIN") from None


def unanswered_error(link: FrameLink, e: BaseException, timeout: float | None,
                     what: str) -> HandshakeError:
    """The connection ended (``e`` a ConnectionError) or stayed silent for ``timeout``
    after our ``what`` (JOIN, WATCH JOIN): a :class:`HandshakeError` with code
    ``"unanswered"`` (each such attempt gave whoever answers one guess of the code)."""
    how = ("hung up" if isinstance(e, ConnectionError)
           else f"did not answer within {timeout:g} s")
    return HandshakeError(f"the host at {link.peer} {how} after our {what}, without "
                          f"accepting or refusing it", code="unanswered")


async def _handshake(coro: Awaitable[SecureSession], link: FrameLink,
                     timeout: float | None) -> SecureSession:
    try:
        async with asyncio.timeout(timeout):
            return await coro
    except TimeoutError:
        link.close()
        raise HandshakeError(f"handshake with {link.peer} took longer than {timeout} s",
                             code="timeout") from None
    except BaseException:
        link.close()
        raise


async def secure_server_handshake(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, code: JoinCode | str, *,
    game_id: bytes | None = None, limiter: AttemptLimiter | None = None,
    timeout: float | None = 10.0, entropy: Entropy | None = None,
    seats: Collection[bytes] = (),
) -> SecureChannel:
    """Run the host's side on a freshly accepted connection. Returns the channel, or
    closes the connection and raises :class:`WrongCode`, :class:`TooManyAttempts`,
    :class:`HandshakeError` (also on timeout) or :class:`SecureClosed`. A JOIN whose
    seat proof shows one of *seats* passes every limit."""
    return await secure_server_link(StreamLink(reader, writer), code, game_id=game_id,
                                    limiter=limiter, timeout=timeout, entropy=entropy,
                                    seats=seats)


async def secure_server_link(
    link: FrameLink, code: JoinCode | str, *,
    game_id: bytes | None = None, limiter: AttemptLimiter | None = None,
    timeout: float | None = 10.0, entropy: Entropy | None = None,
    seats: Collection[bytes] = (),
) -> SecureChannel:
    """:func:`secure_server_handshake` on any :class:`FrameLink` (a connection that
    already moves whole frames, e.g. an in-memory one); the limiter counts by
    :func:`link_address`."""
    session = await _handshake(_host_side(link, code, game_id, limiter, entropy,
                                          lambda: seats), link, timeout)
    return SecureChannel(link, session)


async def secure_client_handshake(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, code: JoinCode | str, *,
    timeout: float | None = 10.0, entropy: Entropy | None = None,
    identity: Identity | None = None,
) -> SecureChannel:
    """Run the joiner's side on a fresh connection to the host (same errors as
    :func:`secure_server_handshake`, and :class:`TryLater`; a connection that ends, or
    times out, after our JOIN is a :class:`HandshakeError` with code ``"unanswered"``).
    With *identity*, the JOIN carries a seat proof."""
    return await secure_client_link(StreamLink(reader, writer), code, timeout=timeout,
                                    entropy=entropy, identity=identity)


async def secure_client_link(
    link: FrameLink, code: JoinCode | str, *,
    timeout: float | None = 10.0, entropy: Entropy | None = None,
    identity: Identity | None = None,
) -> SecureChannel:
    """:func:`secure_client_handshake` on any :class:`FrameLink`."""
    session = await _handshake(_join_side(link, code, entropy, identity, timeout), link, None)
    return SecureChannel(link, session)


def secure_wrap(
    code: JoinCode | str | bytes, *, game_id: bytes | None = None,
    limiter: AttemptLimiter | None = None, timeout: float | None = 10.0,
    closed_exc: Callable[[str], BaseException] | None = None,
    error_exc: Callable[[SecureError], BaseException] | None = None,
    on_secure: Callable[[SecureLink], None] | None = None,
    on_refused: Callable[[str, SecureError], None] | None = None,
    identity: Identity | None = None,
    seats: Callable[[], Collection[bytes]] | None = None,
    max_unanswered: int = MAX_UNANSWERED,
    watch: WatchGate | None = None,
) -> Callable[[FrameLink, str], Awaitable[SecureLink]]:
    """A wrapper ``(channel, role) -> SecureLink`` for code that opens frame channels
    itself (``splitnet.net.wire.ChannelWrap``): role ``"host"`` runs the host's side
    (with *limiter*; *seats* gives the identity keys whose seat proof passes every limit:
    the game's players, or the lobby's), anything else the joiner's (with a seat proof
    by *identity*, if given).

    The joiner's side stops after *max_unanswered* JOINs in a row that got neither an
    ACCEPT nor a REFUSE (the connection closed, or nothing came back in time): each gave
    whoever answers at that address one guess of the code. That raises a
    :class:`HandshakeError` with code ``"gave-up"``; the ones before it have code
    ``"unanswered"`` (retry).

    Hooks so that the caller's error handling needs no change: ``closed_exc`` (see
    :class:`SecureLink`); ``error_exc`` turns a handshake failure (:class:`WrongCode`,
    :class:`TooManyAttempts`, :class:`TryLater`, :class:`HandshakeError`) into the
    caller's own exception (e.g. a fatal wire error); ``on_refused(peer, error)`` sees each
    failed handshake first (e.g. to log it or count it in the lobby); ``on_secure`` sees
    each new channel (e.g. to show its verification words). *watch* (the host's
    side): the watch code and the watchers' own limiter, if it takes watchers
    (SECURE.md §12; the channel of an accepted watcher has ``watcher`` set)."""
    parsed = code if isinstance(code, bytes) else parse_code(code)
    unanswered = 0

    async def wrap(channel: FrameLink, role: str) -> SecureLink:
        nonlocal unanswered
        side = (_host_side(channel, parsed, game_id, limiter, None, seats, watch)
                if role == "host"
                else _join_side(channel, parsed, None, identity, timeout))
        try:
            # the joiner's side keeps its own clock (to tell a JOIN left unanswered)
            session = await _handshake(side, channel, timeout if role == "host" else None)
        except SecureError as e:
            if e.code == "unanswered":
                unanswered += 1
                if unanswered >= max_unanswered:
                    e = HandshakeError(
                        f"{e} — {unanswered} times in a row: stopping, since each attempt "
                        f"lets whoever answers there test one guess of the code; check "
                        f"the address and the code with the host", code="gave-up")
            if on_refused is not None:
                on_refused(channel.peer, e)
            if error_exc is not None:
                raise error_exc(e) from e
            raise e from None
        unanswered = 0
        link = SecureLink(channel, session, closed_exc=closed_exc)
        if on_secure is not None:
            on_secure(link)
        return link

    return wrap
