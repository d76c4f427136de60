"""A host that forks its log cannot keep both histories going (protocol splitnet/4).

Before every message named the entry its author had seen (``seen``, TRANSCRIPT.md §3), a
host could sign two different records for one seq — two different moves of its own at
one position — show one history to each guest, and order each guest's later messages,
made in its own history, into the other one too wherever they were legal there: a guest
became a puppet in the other history, and the honest seats released decryption shares
there for draws its real self never made (SECURITY.md §4). Now a message is valid only in
a log that holds the entry it names, so every message made after the fork belongs to one
history: ``Log.order`` refuses it in the other (code ``seen``, naming its author), and a
record carrying it is refused by every peer and by ``splitnet verify`` (naming the host,
who signed it). The attacks here run against the real code: the session log and
LocalGame's cores, and the LAN host and joiners over the in-memory network.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from splitnet.game.table import GameError
from splitnet.games.split.core import GameCore
from splitnet.games.split.local import LocalGame
from splitnet.games.split.rules import DrawPile, TakeRow
from splitnet.games.split.rules.actions import Discard, action_to_dict
from splitnet.net.frames import Rec
from splitnet.net.host import HostNode
from splitnet.net.wire import WireError
from splitnet.session.codec import encode
from splitnet.session.identity import Identity
from splitnet.session.log import (
    TAG_ENTRY,
    Author,
    Entry,
    Log,
    LogError,
    Seen,
    make_refusal,
    parse_message,
)
from splitnet.verify import verify_records
from tests.test_attacks_net import ForkingHost, Lan, net, prefix_verifies
from tests.test_attacks_reveal import _a_joiners_turn_after_drawing, new_game, play_until
from tests.virtual_time import VirtualLoop, until, virtual_time, within


def host_record(log: Log, host: Identity, msg: bytes, sig: bytes) -> bytes:
    """The next record of ``log`` holding ``msg`` as a host that skips every check would
    sign it (Log.order refuses to)."""
    entry = encode([TAG_ENTRY, len(log), log.head(), msg, sig])
    return encode([entry, host.sign(entry)])


def refused_naming_the_host(log: Log, host: Identity, msg: bytes, sig: bytes) -> None:
    """A record of ``log``'s host carrying ``msg``: every peer's log refuses it naming the
    host (code ``seen``), and so does ``splitnet verify``, which verifies all before it."""
    record = host_record(log, host, msg, sig)
    peer = Log.from_records(log.records())
    with pytest.raises(LogError) as refused:
        peer.append_record(record)
    assert (refused.value.code, refused.value.seat) == ("seen", 0), refused.value
    assert peer.records() == log.records()
    v = verify_records([*log.records(), record])
    assert (v.ok, v.seq, v.seat) == (False, len(log), 0), v.summary
    assert v.summary.startswith(f"FAILED at entry {len(log)} (seat 0): log: ")
    assert "host ordered a bad message" in v.summary and "having seen" in v.summary


def refused_naming_the_author(log: Log, host: Identity, msg: bytes, sig: bytes,
                              author: int) -> None:
    """The host receiving ``msg``: Log.order refuses it, naming its author (code
    ``seen``), and the log is unchanged."""
    before = log.records()
    with pytest.raises(LogError) as refused:
        log.order(msg, sig, host)
    assert (refused.value.code, refused.value.seat) == ("seen", author), refused.value
    assert log.records() == before


def hosts_draw(g: LocalGame[GameCore]) -> None:
    """Play until the host (seat 0) is to draw, the pile not empty."""
    play_until(g, lambda seat, e: seat == 0 and e.phase == "draw" and e.pile_top is not None)


# ------------------------------------------------------------------ (1) two histories
def test_a_guests_message_made_after_a_fork_is_never_ordered_in_the_other_history() -> None:
    """The host forks at its own move: in history G it draws from the pile (slot j), in
    history F it takes from the discard row instead. In G both guests release their
    shares of j for the host's draw; the host offers each share to F, where the same
    slot would be drawn by the next player — the counter fits there, the signature is
    good, and the share names its slot but not who drew it. F's log refuses it, naming
    the guest, and a record carrying it is refused by every peer and by verify, naming
    the host; a message signed in F is refused in G the same way. Only messages made
    before the fork, naming the common prefix, fit either."""
    g = new_game(21, 9)
    hosts_draw(g)
    n = len(g.log)
    f = Log.from_records(g.log.records())  # history F: the log as it stood
    f_host = Author(g.host, g.log.game_id, 0, g.log.next_counter(0))
    core = g.cores[0]
    assert isinstance(core, GameCore) and core.round is not None
    j = core.engine.pile_top
    rnd = core.round.number
    # G: the host draws j; the guests' shares of j follow
    g.play_move(0, DrawPile(0))
    g.pump()
    shares = [e for e in g.log.entries[n:] if e.kind == "shares" and e.author != 0]
    assert {e.author for e in shares} == {1, 2}
    assert all(e.body["purpose"] == "draw" and e.body["slots"] == [j] for e in shares)
    assert all(e.seen.seq >= n for e in shares)  # made having seen the host's draw
    # F: the host's other move at the same position
    f.order(*f_host.message("move", {"round": rnd, "move": action_to_dict(TakeRow(0, 0))},
                            seen=f.seen()), g.host)
    assert f.hash_at(n) != g.log.hash_at(n) and f.records()[:n] == g.log.records()[:n]
    for e in shares:
        m = parse_message(e.msg_bytes)
        assert m.counter == f.next_counter(e.author)  # all but its seen would fit in F
        refused_naming_the_author(f, g.host, e.msg_bytes, e.sig, e.author)
        refused_naming_the_host(f, g.host, e.msg_bytes, e.sig)
    # the other way: what guest 2 signs having seen F never enters G
    msg, sig = Author(g.authors[2].identity, g.log.game_id, 2, g.log.next_counter(2)).message(
        "chat", {"text": "made in F"}, seen=f.seen())
    refused_naming_the_author(g.log, g.host, msg, sig, 2)
    refused_naming_the_host(g.log, g.host, msg, sig)
    # the common prefix is still common: a message that names an entry before the fork
    # fits F (as it fits any history that holds that prefix)
    old = Author(g.authors[1].identity, g.log.game_id, 1, f.next_counter(1)).message(
        "chat", {"text": "made before"}, seen=Seen(n - 1, f.hash_at(n - 1)))
    f.order(*old, g.host)
    assert verify_records(g.log.records()).reason == "the game did not finish"


# ------------------------------------------------------------------ (2) over the LAN
class ChatForkingHost(ForkingHost):
    """Forks when told (:meth:`fork`): one chat of its own in the log Ana sees, another
    in Bo's (two host-signed records for one seq), and keeps Bo's chain going as far as
    it can (ForkingHost). What Bo signs after that, it tries to order in Ana's log too:
    its own check refuses it (``seen``), so it signs the record by hand and sends it to
    Ana, whose table refuses it naming the host."""

    def fork(self) -> None:
        table = self.table
        assert table is not None and self.fork_at is None
        self.fork_at = len(table.log)
        self.bo_log = Log.from_records(table.log.records())
        author = Author(self.identity, table.game_id, table.seat, table.author.counter)
        self.bo_records[self.fork_at] = self.bo_log.order(
            *author.message("chat", {"text": "b"}, seen=self.bo_log.seen()), self.identity)
        self.show_bo_its_chain()
        assert self.send_game("chat", {"text": "a"})
        self.refused_bo: list[WireError] = []

    def _on_msg(self, conn: Any, msg: bytes, sig: bytes) -> None:
        table = self.table
        if self.fork_at is None or table is None or conn.seat != 2:
            HostNode._on_msg(self, conn, msg, sig)  # (not ForkingHost's fork of the commits)
            return
        try:
            table.check(msg, sig, 2)
        except WireError as e:  # what an honest host does: it names Bo (its word)
            self.refused_bo.append(e)
        record = host_record(table.log, self.identity, msg, sig)
        self.conns[1].send(Rec(len(table.log), record))


def _idle(lan: Lan) -> bool:
    host = lan.host.table
    core = host.core if host is not None and isinstance(host.core, GameCore) else None
    return (host is not None and core is not None and core.round is not None
            and core.round.stage == "play"
            and all(p.table is not None and len(p.table.log) == len(host.log)
                    for p in lan.peers))


@virtual_time
async def test_a_lan_host_that_forks_cannot_order_one_seats_message_in_the_others_log(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """Once the deal is done and the game waits for a move, the host forks with two
    chats of its own at one seq: Ana gets "a", Bo "b". Bo's next message is signed
    having seen "b": the host's own check refuses it in Ana's log (``seen``, naming Bo),
    and the record the host makes of it anyway stops Ana naming the host, her transcript
    ending before it. Ana's message, signed having seen "a", never reaches Bo's chain."""
    host = ChatForkingHost(Identity.generate(), tmp_path / "p0", "Host", net(), seats=3,
                           proofs=False)
    lan = await Lan.start(tmp_path, host)
    ana, bo = lan.peers
    try:
        await until(lambda: _idle(lan), "the deal")
        host.fork()
        at = host.fork_at
        assert at is not None and host.bo_log is not None
        await until(lambda: all(p.table is not None and len(p.table.log) == at + 1
                                for p in lan.peers), "the fork")
        assert ana.table is not None and bo.table is not None
        assert ana.table.log.hash_at(at) != bo.table.log.hash_at(at)
        # Ana's chat: in the host's log, never on Bo's chain
        assert ana.send_game("chat", {"text": "hello"})
        await until(lambda: host.table is not None and len(host.table.log) == at + 2,
                    "Ana's chat ordered")
        assert host.table is not None
        mine = host.table.log.entries[-1]
        assert (mine.author, mine.seen) == (1, Seen(at, ana.table.log.hash_at(at)))
        with pytest.raises(LogError) as refused:
            host.bo_log.order(mine.msg_bytes, mine.sig, host.identity)
        assert (refused.value.code, refused.value.seat) == ("seen", 1)
        assert len(bo.table.log) == at + 1 and len(host.bo_log) == at + 1
        # Bo's chat: refused by the host's check, and by Ana when it is ordered anyway
        assert bo.send_game("chat", {"text": "made in Bo's history"})
        why = await lan.stopped(ana)
        assert why.startswith(f"bad record from the host: seq {at + 2}: host ordered a bad "
                              "message: seat 2's message was made having seen another "
                              f"entry {at} than this log's") and "[seat 0 at fault]" in why
        assert [e.code for e in host.refused_bo] == ["seen"]
        recs = lan.records(1)
        assert recs == host.table.log.records() and len(recs) == at + 2
        prefix_verifies(recs)
        prefix_verifies(lan.records(2))
    finally:
        await lan.close()


# ------------------------------------------------------------------ (3) a bad `seen`
def _bad_seens(log: Log) -> dict[str, Seen]:
    n = len(log)
    return {"its own position": Seen(n, log.head()),
            "a later seq": Seen(n + 5, log.head()),
            "a seq that cannot exist": Seen(2**63 - 1, log.head()),
            "a right seq, a wrong hash": Seen(n - 1, log.hash_at(n - 2)),
            "the header with zeros": Seen(0, bytes(32))}


BAD_SEENS = ["its own position", "a later seq", "a seq that cannot exist",
             "a right seq, a wrong hash", "the header with zeros"]


@pytest.mark.parametrize("how", BAD_SEENS)
def test_a_message_naming_an_entry_the_log_does_not_hold_is_refused(how: str) -> None:
    """A seat's message whose ``seen`` is not an entry of the log before it — the
    position it would take, a later or impossible seq, or a right seq with another hash
    — is refused by the host naming that seat (``seen``: the host knows the connection),
    changes nothing, and a record of it names the host at every peer and in verify."""
    g = new_game(5, 9)
    g.pump()  # into the game: commits, hops, deal
    seen = _bad_seens(g.log)[how]
    msg, sig = Author(g.authors[1].identity, g.log.game_id, 1, g.log.next_counter(1)).message(
        "chat", {"text": "hi"}, seen=seen)
    refused_naming_the_author(g.log, g.host, msg, sig, 1)
    refused_naming_the_host(g.log, g.host, msg, sig)
    # the same message having seen the head is ordered
    msg, sig = Author(g.authors[1].identity, g.log.game_id, 1, g.log.next_counter(1)).message(
        "chat", {"text": "hi"}, seen=g.log.seen())
    g.log.order(msg, sig, g.host)


# ------------------------------------------------------------------ (4) accusations
def _move_seen(g: LocalGame[GameCore], seat: int,
               seen: Seen) -> tuple[bytes, bytes, dict[str, Any]]:
    core = g.cores[seat]
    assert isinstance(core, GameCore)
    body = core.move_message(Discard(seat, core.engine.hands[seat][0]))
    author = Author(g.authors[seat].identity, g.log.game_id, seat, g.log.next_counter(seat))
    msg, sig = author.message("move", body, seen=seen)
    return msg, sig, body


@pytest.mark.parametrize("how", ["its own position", "a right seq, a wrong hash",
                                 "an accept"])
def test_an_accusation_of_a_refusal_of_a_move_with_a_bad_seen_names_the_accuser(
        how: str) -> None:
    """A mover signs a legal move naming an entry the log does not hold before it; the
    host rightly refuses it (``seen``) with its signed refusal, and the mover accuses the
    host with it. Every core — the host's first — and verify refuse the accusation,
    naming the accuser: the move's ``seen`` is checked as the log checks it (GAME.md
    "accuse"). A move naming an accept (before play) is held to the accusation's rule
    too. The control: a move signed at an older head of this log, refused, convicts the
    host."""
    g = new_game(7, 9)
    seat = _a_joiners_turn_after_drawing(g)
    n = len(g.log)
    seen = {"its own position": Seen(n, g.log.head()),
            "a right seq, a wrong hash": Seen(n - 2, g.log.head()),
            "an accept": Seen(1, g.log.hash_at(1))}[how]
    msg, sig, body = _move_seen(g, seat, seen)
    if how != "an accept":
        refused_naming_the_author(g.log, g.host, msg, sig, seat)
    refusal = make_refusal(g.host, g.log.game_id, n, g.log.head(), seat, msg, sig, "seen",
                           "a bad seen")
    accuse = {"round": body["round"], "refusal": refusal, "msg": msg, "sig": sig}
    with pytest.raises(GameError) as e:
        g.send(seat, "accuse", accuse)  # the host's core refuses it
    assert (e.value.seat, e.value.step) == (seat, "accuse") and "as seen" in e.value.reason
    assert len(g.log) == n
    record = g.log.order(*g.authors[seat].message("accuse", accuse, seen=g.log.seen()),
                         g.host)  # a blind host orders it: every peer refuses it
    entry = g.log.entries[-1]
    assert entry.record == record
    for c in g.cores[1:]:
        assert isinstance(c, GameCore)
        with pytest.raises(GameError) as e:
            c.apply(entry.author, entry.kind, dict(entry.body), at=_at(entry))
        assert e.value.seat == seat and not c.finished
    v = verify_records(g.log.records())
    assert (v.ok, v.seq, v.seat) == (False, n, seat), v.summary


def _at(entry: Entry) -> Any:
    from splitnet.game.table import Position

    return Position(entry.seq, entry.prev, entry.counter)


def test_an_accusation_of_a_move_signed_at_an_older_head_convicts_the_host() -> None:
    """The control: a move signed before the host ordered a chat (its ``seen`` an older
    entry of this log, as a move re-sent after a while), refused with the host's signed
    refusal although it is legal: the accusation stops every peer and verify naming the
    host — each peer checks the move's ``seen`` against the log it holds."""
    g = new_game(7, 9)
    seat = _a_joiners_turn_after_drawing(g)
    early = g.log.seen()
    other = next(s for s in range(1, g.n) if s != seat)
    g.send(other, "chat", {"text": "still there?"})
    g.send(0, "chat", {"text": "yes"})
    msg, sig, body = _move_seen(g, seat, early)
    n = len(g.log)
    refusal = make_refusal(g.host, g.log.game_id, n, g.log.head(), seat, msg, sig,
                           "illegal", "refused")
    g.send(seat, "accuse", {"round": body["round"], "refusal": refusal, "msg": msg,
                            "sig": sig})
    for c in g.cores:
        v = c.verdict
        assert c.finished and v is not None and (v.seat, v.step) == (0, "accuse"), v
    res = verify_records(g.log.records())
    assert (res.ok, res.seq, res.seat) == (False, n, 0), res.summary


# ------------------------------------------------------------------ the host's wait
@virtual_time
async def test_a_held_message_is_ordered_after_the_host_moves_on(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """What ``seen`` does not forbid: a message made at an older head is still valid
    later (its ``seen`` is a prefix), so a host may hold a seat's message while it orders
    others — the honest pipelining of concurrent messages — and nobody is named."""
    lan = await Lan.start(tmp_path)
    ana, bo = lan.peers
    try:
        await until(lambda: _idle(lan), "the deal")
        table = lan.host.table
        assert table is not None and ana.table is not None
        n = len(table.log)
        held = Author(ana.table.identity, ana.table.game_id, 1,
                      ana.table.log.next_counter(1)).message(
            "chat", {"text": "sent before the host's"}, seen=ana.table.log.seen())
        assert lan.host.send_game("chat", {"text": "first"})
        lan.host._on_msg(lan.host.conns[1], *held)  # as if it came late
        await until(lambda: all(p.table is not None and len(p.table.log) == n + 2
                                for p in lan.peers), "both chats")
        assert table.log.entries[n + 1].seen.seq == n - 1
        assert ana.fatal is None and bo.fatal is None
        await within(asyncio.sleep(1.0))
        assert ana.fatal is None and bo.fatal is None
        prefix_verifies(lan.records(2))
    finally:
        await lan.close()
