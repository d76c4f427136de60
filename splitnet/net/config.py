"""Timing and bounds of the LAN protocol (protocol/NETWORK.md, "Heartbeats and bounds"),
and the servers of internet play a data directory's ``network.json`` names (§12).

Not part of the game's agreed settings: each peer may choose its own; the defaults suit
a LAN. Tests shorten them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from splitnet.game.table import Limits

DEFAULT_PORT = 7420

#: the public servers of internet play, the ones magic-wormhole's own tool uses (run by
#: its maintainer); a data dir's ``network.json`` or ``--mailbox``/``--relay`` name others
PUBLIC_MAILBOX: Final = "ws://relay.magic-wormhole.io:4000/v1"
PUBLIC_RELAY: Final = "tcp:transit.magic-wormhole.io:4001"


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


#: a wait's time left is shown in steps of this many seconds, rounded up ("1:45"): a
#: line-based screen prints it again only at each step, and the nodes tell their screens
#: (and the host its rematch lobby's joiners, ``clock``) only when the step changes
CLOCK_STEP = 15


def clock_step(seconds: float) -> int:
    """The step of :data:`CLOCK_STEP` a time left of ``seconds`` is shown as."""
    return math.ceil(seconds / CLOCK_STEP - 1e-9)


@dataclass
class NetSettings:
    #: the host pings every connection this often; a joiner answers with pong
    ping_interval: float = 1.0
    #: a seat quiet this long is shown to the others as "not answering"
    silent_after: float = 5.0
    #: the host closes a connection quiet this long (the peer may reconnect later)
    drop_after: float = 60.0
    #: a joiner that hears nothing from the host this long reconnects
    host_timeout: float = 10.0
    #: the challenge/hello/welcome exchange must finish within this
    handshake_timeout: float = 10.0
    #: one TCP connect attempt
    connect_timeout: float = 3.0
    #: reconnect back-off: first wait, doubling up to retry_max …
    retry_first: float = 0.1
    retry_max: float = 2.0
    #: … for at most this long after the last good connection, then give up
    retry_total: float = 180.0
    #: a joiner that has never reached the host gives up after this long
    first_contact: float = 20.0
    #: a joiner acks its (durable) head at most this often
    ack_interval: float = 1.0
    #: at the end the host waits this long for every seat's final ack
    final_wait: float = 60.0
    #: the host stops the game with a ``timeout`` naming a seat that owes a protocol
    #: message (commit, hop, shares, opening) this long …
    answer_timeout: float = 120.0
    #: … or its move this long (a person thinking); a joiner names the host when the
    #: host's own seat owes one this long plus ``host_timeout``, or when a message of
    #: its own is not ordered within ``answer_timeout`` plus ``host_timeout``
    move_timeout: float = 600.0
    #: a rematch (NETWORK.md §13): a joiner waits this long for the host's offer, the
    #: host this long for every seat's answer
    rematch_wait: float = 120.0
    #: a seat the game waits for that is disconnected (or silent) this long is
    #: abandoned instead of timed out: the deal is void and dealt again, the seat played
    #: open-handed (R8.6, GAME.md "abandon"); None: never (host --open-hand-after)
    open_hand_after: float | None = None
    #: the host's player is offered to give a disconnected seat up after this long
    #: (``o`` on the table, R8.6)
    open_hand_offer: float = 30.0
    #: internet play: a wormhole whose Dilation is not connected (or, on the host, that
    #: carries no connection) this long is given up, and the two sides meet again on a
    #: fresh resume wormhole (NETWORK.md §12, "Resume")
    wormhole_idle: float = 30.0
    #: refused frames a connection may send before it is closed
    max_errors: int = 64
    #: messages a restarted host holds until every seat is back
    max_held: int = 256
    #: connections at once (players plus handshakes in progress); more are refused
    max_conns: int = 32
    #: bytes queued for a connection that does not read before it is dropped
    max_send_buffer: int = 32 * 1024 * 1024
    #: refused messages with a failed proof kept (and relayed) as evidence per seat …
    max_evidence: int = 3
    #: … and their bytes per seat (the first is always kept: one proof is enough)
    max_evidence_bytes: int = 1024 * 1024

    def limits(self) -> Limits:
        """The waits this host keeps, as its header agrees them (GAME.md "limits"): an
        abandonment no sooner than the host's own ``open_hand_after`` or its player's
        offer (``open_hand_offer``), whichever comes first."""
        hand = self.open_hand_offer
        if self.open_hand_after is not None:
            hand = min(hand, self.open_hand_after)
        return Limits.of_waits(self.answer_timeout, self.move_timeout, hand)

    def answer_limit(self, step: str) -> float:
        """How long a seat may owe the game a message at ``step`` (GameCore.owed_step)."""
        return self.move_timeout if step == "move" else self.answer_timeout


class EvidenceBudget:
    """How much evidence (signed messages refused for a failed proof) is kept per seat:
    the first ``max_evidence`` of each seat, within ``max_evidence_bytes`` — the first
    one always, since one signed failure proves the cheat (NETWORK.md §7, Evidence)."""

    def __init__(self, net: NetSettings) -> None:
        self.net = net
        self.kept: dict[int, tuple[int, int]] = {}  #: seat → (messages, bytes) kept
        self.dropped: dict[int, int] = {}  #: seat → messages not kept

    def admit(self, seat: int, size: int) -> bool:
        """Keep one more message of *seat* of *size* bytes? (Counts it either way.)"""
        n, total = self.kept.get(seat, (0, 0))
        if n == 0 or (n < self.net.max_evidence
                      and total + size <= self.net.max_evidence_bytes):
            self.kept[seat] = (n + 1, total + size)
            return True
        self.dropped[seat] = self.dropped.get(seat, 0) + 1
        return False


# --------------------------------------------------------------------------- network.json

#: the file of a data directory that names the servers of internet play
NETWORK_FILE = "network.json"
#: the longest mailbox URL or relay accepted
MAX_SERVER_LEN = 512


@dataclass(frozen=True)
class InternetServers:
    """The wormhole servers of internet play (NETWORK.md §12): ``None`` is the default
    (magic-wormhole's public servers)."""

    mailbox: str | None = None
    relay: str | None = None


def check_mailbox(url: str) -> str:
    """A mailbox (rendezvous) server's URL, ``ws://HOST:PORT/v1`` or ``wss://…``;
    ValueError (one line) otherwise."""
    from urllib.parse import urlsplit

    if not isinstance(url, str) or not url or len(url) > MAX_SERVER_LEN:
        raise ValueError(f"a mailbox is a ws:// or wss:// URL of at most {MAX_SERVER_LEN} "
                         f"characters")
    if not url.isprintable() or any(c.isspace() for c in url):
        raise ValueError("a mailbox URL has no spaces or control characters")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise ValueError(f"not a URL: {url!r}") from None
    if parts.scheme not in ("ws", "wss") or not parts.hostname:
        raise ValueError(f"a mailbox is a ws:// or wss:// URL with a host, e.g. "
                         f"ws://mailbox.example.org:4000/v1, not {url!r}")
    del port  # parsed only to refuse a bad one
    return url


def check_relay(hint: str) -> str:
    """A transit relay, ``tcp:HOST:PORT``; ValueError (one line) otherwise."""
    if not isinstance(hint, str) or len(hint) > MAX_SERVER_LEN:
        raise ValueError(f"a relay is tcp:HOST:PORT, at most {MAX_SERVER_LEN} characters")
    kind, _, rest = hint.partition(":")
    host, _, port = rest.rpartition(":")
    if (kind != "tcp" or not host or not port.isascii() or not port.isdigit()
            or not 1 <= int(port) <= 65535 or not host.isprintable()
            or any(c.isspace() or c == "/" for c in host)):
        raise ValueError(f"a relay is tcp:HOST:PORT (port 1–65535), e.g. "
                         f"tcp:relay.example.org:4001, not {hint!r}")
    return hint


def load_internet_servers(path: Path) -> InternetServers:
    """The ``internet`` entry of ``path`` (``DATA_DIR/network.json``)::

        {"internet": {"mailbox": "ws://mailbox.example.org:4000/v1",
                      "relay": "tcp:relay.example.org:4001"}}

    No file: the defaults. Both keys are optional; any other key, or a value that is not
    a server, is a :class:`~splitnet.localfiles.LocalFileError` naming the file and the
    field (read with :func:`~splitnet.localfiles.read_local`: strict JSON, bounded)."""
    from splitnet.localfiles import MAX_SETTINGS_BYTES, LocalFileError, parse_json, read_local

    if not path.exists() and not path.is_symlink():
        return InternetServers()
    obj = parse_json(read_local(path, limit=MAX_SETTINGS_BYTES, what="network file"), path,
                     what="network file")
    if not isinstance(obj, dict):
        raise LocalFileError(path, "not a network file: expected a JSON object")
    extra = sorted(set(obj) - {"internet"})
    if extra:
        raise LocalFileError(path, f"unknown field {extra[0]!r} (the one field is "
                             f"'internet')")
    entry = obj.get("internet", {})
    if not isinstance(entry, dict):
        raise LocalFileError(path, "field 'internet': expected an object with 'mailbox' "
                             "and/or 'relay'")
    extra = sorted(set(entry) - {"mailbox", "relay"})
    if extra:
        raise LocalFileError(path, f"unknown field 'internet.{extra[0]}' (expected "
                             f"'mailbox' and/or 'relay')")
    found: dict[str, str] = {}
    for name, check in (("mailbox", check_mailbox), ("relay", check_relay)):
        if name in entry:
            try:
                found[name] = check(entry[name])
            except ValueError as e:
                raise LocalFileError(path, f"field 'internet.{name}': {e}") from None
    return InternetServers(**found)
