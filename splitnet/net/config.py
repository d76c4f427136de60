"""Timing and bounds of the LAN protocol (protocol/NETWORK.md, "Heartbeats and bounds").

Not part of the game's agreed settings: each peer may choose its own; the defaults suit
a LAN. Tests shorten them.
"""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_PORT = 7420


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
    #: a seat the game waits for that is disconnected (or silent) this long is
    #: abandoned instead of timed out: the deal is void and dealt again, the seat played
    #: open-handed (R8.6, GAME.md "abandon"); None: never (host --open-hand-after)
    open_hand_after: float | None = None
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
