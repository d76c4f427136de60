"""What a joiner checks of its host, and how it stops (protocol/NETWORK.md §3, §5, §7):
the host's challenge, the limits of a header, a refusal of our move, the evidence it
shows against another seat. Each takes what it checks as arguments (no connection, no
clock); a fault is :class:`PeerFatal` with one line naming who is at fault.
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

from splitnet.durable import open_private
from splitnet.game.rematch import PreviousGame
from splitnet.game.table import Limits
from splitnet.net.config import EvidenceBudget
from splitnet.net.frames import Challenge, Evidence, Frame, HostError
from splitnet.net.store import keep_refusal
from splitnet.net.table import Table
from splitnet.net.wire import (
    NET_PROTOCOL,
    ChannelClosed,
    ErrorCode,
    WireError,
    encode_typed,
    verify_challenge,
)
from splitnet.session.codec import DecodeError, encode
from splitnet.session.identity import verify
from splitnet.session.log import LogError, Refusal, check_refusal, message_hash, parse_message
from splitnet.text import shown

_log = logging.getLogger("splitnet.net")

#: one of our moves as it went out: (msg bytes, sig, body)
Sent = tuple[bytes, bytes, dict[str, Any]]


#: a host's fatal errors that end this connection only: the joiner reconnects
_CLOSED_BY_HOST: Final = frozenset({ErrorCode.REPLACED, ErrorCode.SLOW,
                                    ErrorCode.TOO_MANY_ERRORS, ErrorCode.TOO_BIG})


def refused_by_host(f: HostError, *, fatal: bool) -> WireError:
    """The host's ``error`` frame ``f`` as this joiner's error: its code, if this
    splitnet knows it (NETWORK.md §8), else ``protocol`` naming the code it sent."""
    code = ErrorCode.received(f.code)
    if code is None:
        return WireError(ErrorCode.PROTOCOL, f"the host refused us with a code this "
                         f"splitnet does not know ({shown(f.code, limit=32)!r}): "
                         f"{f.reason}", fatal=fatal)
    return WireError(code, f"the host refused us: {f.reason}", fatal=fatal)


class PeerFatal(Exception):
    """The game cannot go on for this peer (the reason, in words, names who is at fault)."""


class HostGone(PeerFatal):
    """The host could not be reached (again) within the retry bound."""


class HostClosed(PeerFatal):
    """The host closed its lobby: there is no game to wait for."""


class RematchNotYet(ChannelClosed):
    """The host is still on the game we finished: its rematch is not offered yet."""


class HostLeft(ChannelClosed):
    """The host said bye in a game not over: one that shut down may resume it."""

    def __init__(self, reason: str) -> None:
        super().__init__(f"the host said bye: {reason}")
        self.reason = reason


def check_challenge(f: Frame, bind: bytes | None, *, game_host: bytes | None,
                    prev: PreviousGame | None) -> Challenge:
    """The host's first frame on a connection whose channel binding is ``bind``: a
    challenge of our protocol, signed, for this connection, from the game's host
    (``game_host``: its key, in a game) or — looking for a rematch, ``prev`` — from the
    host of the game we finished, no longer on it (else :class:`RematchNotYet`)."""
    if not isinstance(f, Challenge):
        raise WireError(ErrorCode.PROTOCOL, f"expected a challenge, got {f.T!r}")
    if f.v != NET_PROTOCOL:
        raise WireError(ErrorCode.VERSION, f"the host speaks {f.v!r}, not {NET_PROTOCOL}",
                        fatal=True)
    if f.bind != bind:
        raise WireError(ErrorCode.AUTH, "the host's challenge was signed for another encrypted "
                        "connection (its channel binding differs from ours): someone who "
                        "knows the join code sits between us and the host", fatal=True)
    if not verify_challenge(f):
        raise WireError(ErrorCode.AUTH, "the host's challenge signature does not verify",
                        fatal=True)
    if game_host is not None and f.key != game_host:
        raise WireError(ErrorCode.AUTH, "the host at this address has another identity than "
                        "the game's host", fatal=True)
    if prev is not None:
        if f.key != prev.header.key(prev.header.host):
            raise WireError(ErrorCode.AUTH,
                            "the host at this address has another identity than "
                            "the host of the game we finished", fatal=True)
        if f.game == prev.game_id:  # still on the game we finished: not yet
            raise RematchNotYet("the host has not offered the rematch yet")
    return f


def check_limits(header: bytes, mine: Limits) -> None:
    """A header whose agreed waits (GAME.md "limits") are shorter than this player's
    own is not joined: with waits of 0 s a host could give any seat up at once and no
    clock could tell (NETWORK.md §7). One line naming the host and the wait."""
    from splitnet.game.table import LimitsError, limits_from_header
    from splitnet.session.log import Log

    try:
        log = Log()
        log.append_record(header)
        theirs = limits_from_header(log.header.settings)
    except (LogError, LimitsError, DecodeError):
        return  # Table.from_header refuses it with the reason
    for what, have, want in (("answer_s", theirs.answer_s, mine.answer_s),
                             ("move_s", theirs.move_s, mine.move_s),
                             ("open_hand_after_s", theirs.open_hand_after_s,
                              mine.open_hand_after_s)):
        if have < want:
            raise PeerFatal(f"the host's game gives a seat up after {have} s "
                            f"(header limits.{what}), sooner than the {want} s this "
                            f"player waits: not joining [host seat {log.header.host} "
                            "at fault]")



def judge_refused_move(table: Table | None, f: HostError, sent: Sent | None,
                       send_game: Callable[[str, dict[str, Any]], bool]) -> None:
    """The host refused our move. A move at a position is final (GAME.md "Pledges"):
    the seat sends it again, never another, so only a refusal the host can be held to
    may stop it. If our own engine finds the move legal at our head (with our own
    cards' faces, at our next counter: nothing earlier of ours was refused first):

    - the host's signed refusal names that move, our connection and our head: the
      host refused a legal move — keep the evidence, send the accusation through the
      log (the other peers stop naming the host if it orders it) and stop;
    - anything else — no refusal, one that does not verify, of another message or
      connection, signed at an older head — is no refusal at all (an honest host
      signs every one, at the head whose records it sent first): a Split seat keeps
      what came in ``GAME_ID.refused`` and stops naming the host (NETWORK.md §5).

    Otherwise — the log moved on, or an earlier message of ours was refused first —
    the refusal may be right: resynchronise as usual (the same move goes again)."""
    if table is None or sent is None or f.counter is None:
        return
    msg, sig, body = sent
    if (f.counter != table.log.next_counter(table.seat)
            or not table.core.move_is_legal(body)):
        return
    host = table.host_seat
    raw = f.refusal
    ref, flaw = refusal_of(table, raw, msg, sig)
    if ref is None:
        if not table.spec.moves_pledged:  # (a commitment is kept as it is)
            _log.warning("the host's refusal of our move is not valid: %s", flaw)
            return
        n = len(table.log)
        kept = table.files.transcript.with_suffix(".refused")
        with contextlib.suppress(OSError):
            keep_refusal(kept, {"code": f.code, "reason": f.reason, "refusal": raw,
                                "seq": n, "head": table.log.head(), "msg": msg,
                                "sig": sig})
        # (the code and reason are the host's text: quoted, control characters escaped)
        raise PeerFatal(f"the host refused our legal move ({f.code!r}: "
                        f"{f.reason[:120]!r}) at entry {n} with {flaw}: a move at a "
                        f"position is final and only a refusal signed at our head "
                        f"counts (GAME.md \"Pledges\"); kept in {kept} "
                        f"[host seat {host} at fault]")
    path = table.files.transcript.with_suffix(".accusation")
    with contextlib.suppress(OSError), _append_private(path) as out:
        out.write(encode({"refusal": raw, "msg": msg, "sig": sig}))
    table.author.counter = f.counter  # the refused move never took its counter
    relayed = (not f.fatal and send_game(
        "accuse", {"round": body["round"], "refusal": raw, "msg": msg, "sig": sig}))
    how = ("we accuse it through the log" if relayed
           else "it closed the connection, so only this peer can accuse it")
    # (the code and reason are the host's text: quoted, control characters escaped)
    raise PeerFatal(f"the host refused our legal move ({ref.code!r}: {ref.reason[:120]!r}) "
                    f"at entry {ref.seq}: {how}; evidence kept in {path} "
                    f"[host seat {host} at fault]")


def refusal_of(table: Table, raw: bytes | None, msg: bytes,
               sig: bytes) -> tuple[Refusal | None, str]:
    """The host's signed refusal of our message ``msg``/``sig`` on our connection at
    our log head (TRANSCRIPT.md §7a), or None and what is wrong with ``raw``."""
    if raw is None:
        return None, "no signed refusal"
    try:
        ref = check_refusal(raw, game_id=table.game_id,
                            host_key=table.log.header.key(table.host_seat))
    except LogError as e:
        return None, f"a refusal that is not valid ({e.reason})"
    n = len(table.log)
    if ref.msg_hash != message_hash(msg, sig):
        return None, "a refusal of another message"
    if ref.seat != table.seat:
        return None, f"a refusal of a message on seat {ref.seat}'s connection"
    if ref.seq != n:
        return None, f"a refusal signed at entry {ref.seq}, not at our head (entry {n})"
    if ref.head != table.log.head():
        return None, f"a refusal signed at another head than ours at entry {n}"
    return ref, ""


def take_evidence(table: Table, f: Evidence,
                  budget: EvidenceBudget) -> tuple[int, str, str] | None:
    """The host refused another seat's message for a failed proof and shows it: it
    counts only if that seat's signature verifies (the host cannot forge it). Returns
    (seat, kind, reason) to keep, or None (not signed by its author, or past ``budget``)."""
    try:
        m = parse_message(f.msg)
    except DecodeError:
        return None
    header = table.log.header
    if (m.game_id != table.game_id or m.author >= len(header.players)
            or not verify(header.key(m.author), f.msg, f.sig)):
        _log.warning("the host sent evidence that is not signed by its author")
        return None
    if not budget.admit(m.author, len(f.msg) + len(f.sig)):
        return None  # the first of that seat is proof enough
    path = table.files.transcript.with_suffix(".evidence")
    with contextlib.suppress(OSError), _append_private(path) as out:
        out.write(encode_typed(f))
    return m.author, m.kind, f.reason



def _append_private(path: Path) -> Any:
    """An evidence file opened for appending, 0600 (NETWORK.md §9)."""
    return os.fdopen(open_private(path, os.O_WRONLY | os.O_APPEND), "ab")


def _write_private(path: Path, data: bytes) -> None:
    """An evidence file written whole, 0600 (NETWORK.md §9)."""
    with os.fdopen(open_private(path, os.O_WRONLY | os.O_TRUNC), "wb") as out:
        out.write(data)


