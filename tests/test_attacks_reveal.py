"""Hidden cards stay hidden from the host (R8.1): attacks on the move → reveal flow.

Under splitnet/1 a ``move`` carried the mover's reveal shares. The host, which holds
every other seat's share of those slots from the deal and the draws, could read the
played cards and then refuse the move with a non-fatal error — and repeat that to read a
whole hand, leaving no evidence. Now a move carries no share; the mover's ``reveal``
follows only once the move is in the log, and a host that refuses a move the mover finds
legal is accused by name (protocol/GAME.md "move and reveal", "accuse";
protocol/SECURITY.md). Each test performs the attack against the real code path:
:class:`~splitnet.games.split.local.LocalGame` (the same cores, log and checks a LAN game runs)
or a patched :class:`~splitnet.net.host.HostNode` on virtual time over the in-memory
network.
"""

from __future__ import annotations

import asyncio
import collections
import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from splitnet.app.lan_session import NetSession
from splitnet.game.table import GameError
from splitnet.games.split.bots import make_bot
from splitnet.games.split.core import GameCore
from splitnet.games.split.local import LocalGame, SelfplaySecrets
from splitnet.games.split.rules import (
    Action,
    Discard,
    DrawPile,
    Game,
    LateLay,
    Lay,
    Settings,
    Upgrade,
    action_from_dict,
    action_to_dict,
    played_slots,
)
from splitnet.net.host import Conn, HostNode
from splitnet.net.wire import ErrorCode, WireError
from splitnet.session.identity import Identity
from splitnet.session.log import make_refusal, parse_message
from splitnet.verify import verify_records
from tests.test_attacks_net import Lan, _msg_of, net, stopped_at_last
from tests.virtual_time import VirtualLoop, until, virtual_time, within

PLAYS = ("lay", "upgrade", "discard", "late_lay")


def new_game(seed: int, hand_size: int, n: int = 3, rounds: int = 1) -> LocalGame:
    return LocalGame([f"p{i}" for i in range(n)], Settings(hand_size=hand_size, rounds=rounds),
                     SelfplaySecrets(seed), shuffle_proofs=False)


def hidden_from_host(host: GameCore, seat: int) -> list[int]:
    """Slots in ``seat``'s hand that are not public (the host must not read them)."""
    r = host.round
    assert r is not None
    return [s for s in host.engine.hands[seat] if s not in r.public]


class CuriousHost:
    """The host (seat 0) of a LocalGame looks at every move before ordering it and tries
    to read the cards it plays with everything it holds; after every entry it checks it
    still cannot read any card held in another seat's hand."""

    def __init__(self, g: LocalGame) -> None:
        self.g = g
        self.host = g.cores[0]
        self.seen: collections.Counter[str] = collections.Counter()
        self.tried = 0
        real = g.send

        def send(seat: int, kind: str, body: dict[str, Any], *,
                 host_checks: bool = True) -> None:
            if kind == "move" and seat != 0:
                self.peek(seat, body)
            real(seat, kind, body, host_checks=host_checks)

        g.send = send  # type: ignore[method-assign]
        g.listeners.append(self.after_entry)

    def peek(self, seat: int, body: dict[str, Any]) -> None:
        assert set(body) == {"round", "move"}, f"a move carries {sorted(body)}"
        r = self.host.round
        assert r is not None
        action = action_from_dict(body["move"])
        for s in played_slots(action):
            if s in r.public:
                continue
            self.tried += 1
            # every other seat's share of s is in the host's hands — but not the mover's
            have = set(r.deck._shares.get(s, {})) | {0}
            assert have == set(range(self.g.n)) - {seat}, (s, have)
            assert r.deck.card(s) is None and s not in r.deck.known_slots()
        self.seen[action_to_dict(action)["type"]] += 1

    def after_entry(self, author: int, kind: str, body: dict[str, Any]) -> None:
        r = self.host.round
        if r is None or r.stage not in ("play",) or r.opened:
            return  # between rounds, or the round is being opened for its audit (R8.4)
        known = r.deck.known_slots()
        for seat in range(1, self.g.n):
            for s in hidden_from_host(self.host, seat):
                assert s not in known, f"after {kind}: the host reads seat {seat}'s slot {s}"
                assert seat not in r.deck._shares.get(s, {}), (kind, seat, s)


def play(g: LocalGame, *, prefer_late: bool = True, max_steps: int = 50_000) -> None:
    """Bots play to the end; a seat that can lay a late match does (R6.2)."""
    bots = [make_bot("random", i) for i in range(g.n)]
    for _ in range(max_steps):
        if g.finished:
            return
        if g.pump():
            continue
        seat = g.mover()
        assert seat is not None, "stuck"
        e = g.cores[seat].engine
        late = [a for a in e.legal_moves(seat) if isinstance(a, LateLay)] if prefer_late else []
        g.play_move(seat, late[0] if late else bots[seat].choose(e, seat))
    raise AssertionError("the game did not end")


def test_a_curious_host_holds_no_share_of_any_played_card_before_the_move_is_ordered() -> None:
    """R8.1, every move type that plays a card (lay, upgrade, discard, late lay) and every
    other move (draws, row takes, bonus moves): when the host receives the move it holds
    every seat's share of the played cards but the mover's, and the move brings none; at
    no entry of the game can it read a card held in another seat's hand."""
    seen: collections.Counter[str] = collections.Counter()
    tried = 0
    for seed, hand in ((19, 2), (2, 5), (3, 9)):
        g = new_game(seed, hand)
        spy = CuriousHost(g)
        play(g)
        assert g.verdict is None
        assert verify_records(g.log.records()).ok
        seen += spy.seen
        tried += spy.tried
    assert all(seen[t] for t in PLAYS), seen
    assert seen["draw_pile"] and seen["take_row"] and tried > 50, (seen, tried)
    assert all(seen[t] for t in ("bonus_mark", "bonus_draw", "bonus_swap", "skip_bonus",
                                 "end_late_lays")), seen


def test_the_host_refuses_no_legal_move() -> None:
    """The other side of check_blind: every move a seat's own engine (which knows its
    cards) finds legal passes the host's check (which does not), at every turn of whole
    games — so an honest player's move is always ordered, and a refusal of one is proof
    against the host."""
    checked = 0
    for seed, hand in ((143, 2), (4, 6), (9, 9)):
        g = new_game(seed, hand)
        bots = [make_bot("random", i) for i in range(g.n)]
        for _ in range(50_000):
            if g.finished:
                break
            if g.pump():
                continue
            seat = g.mover()
            assert seat is not None
            own, host = g.cores[seat], g.cores[0]
            if seat != 0:
                r = host.round
                assert r is not None
                for a in own.engine.legal_moves(seat):
                    if any(s not in r.public for s in played_slots(a)):
                        host.engine.check_blind(a)
                    else:
                        host.engine.check(a)
                    checked += 1
            g.play_move(seat, bots[seat].choose(own.engine, seat))
        assert g.finished and g.verdict is None
    assert checked > 400, checked


def test_a_refused_move_shows_the_host_nothing_and_owes_no_reveal() -> None:
    """The splitnet/1 attack: the host reads a move's cards and refuses it. The move
    holds no share to read, and the mover's reveal is made only from the log: a move the
    host never orders makes the mover send nothing (its player may pick again)."""
    g = new_game(2, 5)
    spy = CuriousHost(g)
    seat = _a_joiners_turn_after_drawing(g)
    core = g.cores[seat]
    slot = hidden_from_host(g.cores[0], seat)[0]
    body = core.move_message(Discard(seat, slot))
    spy.peek(seat, body)  # what the host sees before deciding: nothing to read
    before = g.cores[0].round.deck.known_slots()  # type: ignore[union-attr]
    # the host drops it (or answers with an error): the mover owes nothing
    assert core.outbox() == [] and core.can_move()
    assert g.cores[0].round.deck.known_slots() == before  # type: ignore[union-attr]
    assert slot not in before


def play_until(g: LocalGame, stop: Callable[[int, Game], bool]) -> int:
    """Random bots play until the seat to move and its view satisfy ``stop``; that seat
    (nothing owed: every protocol message is sent)."""
    bots = [make_bot("random", i) for i in range(g.n)]
    for _ in range(10_000):
        if g.pump():
            continue
        seat = g.mover()
        assert seat is not None
        e = g.cores[seat].engine
        if stop(seat, e):
            return seat
        g.play_move(seat, bots[seat].choose(e, seat))
    raise AssertionError("never reached")


def _a_joiners_turn_after_drawing(g: LocalGame, matches: int = 0) -> int:
    """Advance to a non-host seat's play phase (it has drawn from the pile), with at
    least ``matches`` matches on the table."""
    seat = play_until(g, lambda seat, e: seat != 0 and e.phase == "draw"
                      and len(e.matches) >= matches)
    g.play_move(seat, DrawPile(seat))
    g.pump()
    return seat


def _bad_play(core: GameCore, seat: int, how: str) -> Action | None:
    """A play of this seat's own cards that only their faces show to break R2.1: a lay
    of two ranks, or an upgrade of a match with a card of another rank."""
    from splitnet.cards import rank

    e = core.engine
    hand = [s for s in e.hands[seat] if e.faces[s] is not None]
    if how == "lay":
        for a in hand:
            for b in hand:
                if a < b and rank(e.face(a)) != rank(e.face(b)):
                    return Lay(seat, a, b)
        return None
    for m in e.matches:
        if m.kind != "perfect":
            for s in hand:
                if rank(e.face(s)) != rank(e.face(m.top[0])):
                    return Upgrade(seat, s, m.id, 0)
    return None


@pytest.mark.parametrize("how", ["lay", "upgrade"])
def test_a_move_found_illegal_once_revealed_convicts_the_mover(how: str) -> None:
    """A lay of two halves of different ranks, or an upgrade with a half of another rank,
    passes every check the host can make without the faces (the turn, the cards in the
    hand, the match exists): it is ordered. Its reveal then shows it breaks R2.1; that
    reveal is applied and every peer — and ``verify`` — stops with a verdict naming the
    mover (GAME.md, Verdicts). An honest client never sends it: its own engine refuses
    it first."""
    g = new_game(5, 9)
    seat = _a_joiners_turn_after_drawing(g, matches=1 if how == "upgrade" else 0)
    core = g.cores[seat]
    bad = _bad_play(core, seat, how)
    assert bad is not None
    with pytest.raises(Exception, match=r"R2\.1"):
        core.move_message(bad)  # the honest path refuses it
    r = core.round
    assert r is not None
    g.send(seat, "move", {"round": r.number, "move": action_to_dict(bad)})  # host orders
    assert all(c.waiting_for() == [seat] for c in g.cores)
    assert all(c.owed_step(seat) == "reveal" for c in g.cores)
    (kind, body), = core.outbox()
    assert kind == "reveal" and body["slots"] == sorted(played_slots(bad))
    g.send(seat, kind, body)
    for c in g.cores:
        v = c.verdict
        assert c.finished and v is not None and (v.seat, v.step) == (seat, "move"), v
        assert "R2.1" in v.reason and "revealed" in v.reason
    res = verify_records(g.log.records())
    assert (res.ok, res.seq, res.seat) == (False, len(g.log) - 1, seat), res.summary


def test_nothing_happens_before_the_reveal_and_a_missing_reveal_is_timed_out() -> None:
    """While a reveal is due, every other message is refused (a move, another seat's
    reveal, a wrong reveal); the host's timeout of the mover names it at ``reveal``."""
    g = new_game(6, 9)
    seat = _a_joiners_turn_after_drawing(g)
    core = g.cores[seat]
    slot = hidden_from_host(g.cores[0], seat)[0]
    g.play_move(seat, Discard(seat, slot))
    r = core.round
    assert r is not None and r.pending is not None
    nxt = (seat + 1) % g.n
    refusals = [
        (seat, "move", {"round": r.number, "move": action_to_dict(DrawPile(seat))}),
        (nxt, "move", {"round": r.number, "move": action_to_dict(DrawPile(nxt))}),
        (nxt, "reveal", {"round": r.number,
                         **g.cores[nxt].round.deck.shares_message(  # type: ignore[union-attr]
                             [g.cores[nxt].engine.hands[nxt][0]], "reveal")}),
        (seat, "reveal", {"round": r.number, **core.round.deck.shares_message(  # type: ignore
            [s for s in core.engine.hands[seat] if s != slot][:1], "reveal")}),
    ]
    for author, kind, body in refusals:
        for c in g.cores:
            if c is g.cores[author]:
                continue
            with pytest.raises(GameError) as info:
                c.apply(author, kind, copy.deepcopy(body))
            assert info.value.seat == author, info.value
    g.send(0, "timeout", {"round": r.number, "seat": seat, "waited": 120})
    for c in g.cores:
        assert c.verdict is not None and (c.verdict.seat, c.verdict.step) == (seat, "reveal")


# ------------------------------------------------------------------ refusing a legal move
def _refusal(g: LocalGame, seat: int, msg: bytes, sig: bytes, code: str = "illegal",
             reason: str = "R2.1: halves of different ranks never match",
             host: Identity | None = None) -> bytes:
    """The host's signed refusal, at its log head, of (msg, sig) received on ``seat``'s
    connection."""
    return make_refusal(host or g.host, g.log.game_id, len(g.log), g.log.head(), seat, msg,
                        sig, code, reason)


def _refused(g: LocalGame, seat: int, action: Action) -> tuple[bytes, bytes, bytes,
                                                                dict[str, Any]]:
    """The host receives ``seat``'s move and refuses it: its signed refusal at its log
    head. Returns (refusal, msg, sig, body); the mover's counter is not used up."""
    body = g.cores[seat].move_message(action)
    author = g.authors[seat]
    msg, sig = author.message("move", body, seen=g.log.seen())
    author.counter -= 1
    return _refusal(g, seat, msg, sig), msg, sig, body


def test_a_host_that_refuses_a_legal_move_is_accused_and_the_game_stops_naming_it() -> None:
    """The host refuses a legal discard (it cannot know the face, and refusing reads
    nothing now). The mover's own engine finds the move legal on the same head, so it
    relays the host's signed refusal through the log: once ordered, every peer — and
    ``verify`` — stops with a verdict naming the host."""
    g = new_game(7, 9)
    seat = _a_joiners_turn_after_drawing(g)
    core = g.cores[seat]
    slot = core.engine.hands[seat][0]
    refusal, msg, sig, body = _refused(g, seat, Discard(seat, slot))
    assert core.move_is_legal(body)
    accuse = {"round": body["round"], "refusal": refusal, "msg": msg, "sig": sig}
    g.send(seat, "accuse", accuse)
    for c in g.cores:
        v = c.verdict
        assert c.finished and v is not None and (v.seat, v.step) == (0, "accuse"), v
        assert "refused" in v.reason and "legal move" in v.reason
    res = verify_records(g.log.records())
    assert (res.ok, res.seq, res.seat) == (False, len(g.log) - 1, 0), res.summary
    assert "at accuse:" in res.reason


@pytest.mark.parametrize("how", ["out of turn", "old head", "a chat in between",
                                 "a skipped counter", "forged", "another message",
                                 "bad signature", "another connection", "not the mover's"])
def test_a_false_accusation_is_refused_naming_the_accuser(how: str) -> None:
    """An accusation counts only for a refusal signed by the host, of that very signed
    move received on the mover's own connection, at a log head where the game stood as
    this entry follows (nothing in between, not even chat), of a move that passes every
    check a host can make — what an honest host never refuses. Anything else is refused,
    naming the accuser; the game goes on. (A refusal for a bad signature or a skipped
    counter, or of the move relayed by a colluder on another seat's connection, would
    otherwise let a seat or two frame an honest host.)"""
    g = new_game(8, 9)
    seat = _a_joiners_turn_after_drawing(g)
    core = g.cores[seat]
    author = seat
    slot = core.engine.hands[seat][0]
    refusal, msg, sig, body = _refused(g, seat, Discard(seat, slot))
    other = next(s for s in range(1, g.n) if s != seat)
    if how == "out of turn":  # a move refused rightly: another seat's turn
        a = g.authors[other]
        body = {"round": body["round"], "move": action_to_dict(DrawPile(other))}
        msg, sig = a.message("move", body, seen=g.log.seen())
        a.counter -= 1
        refusal = _refusal(g, other, msg, sig, "out-of-turn", "out of turn")
        author = other
    elif how == "old head":  # the game moved on since the refusal
        g.play_move(seat, Discard(seat, slot))
        for _ in range(3):
            g.pump()
    elif how == "a chat in between":
        g.send(other, "chat", {"text": "still there?"})
    elif how == "a skipped counter":  # rightly refused (counter), a chat fills the gap
        author_ = g.authors[seat]
        author_.counter += 1
        msg, sig = author_.message("move", body, seen=g.log.seen())
        author_.counter -= 2
        refusal = _refusal(g, seat, msg, sig, "counter", "counter skipped")
        g.send(seat, "chat", {"text": "oops"})  # now the accusation's counter is msg's
    elif how == "forged":
        refusal = _refusal(g, seat, msg, sig, host=Identity.generate())
    elif how == "another message":
        other_body = core.move_message(Discard(seat, core.engine.hands[seat][1]))
        other_msg, other_sig = g.authors[seat].message("move", other_body,
                                                       seen=g.log.seen())
        g.authors[seat].counter -= 1
        refusal = _refusal(g, seat, other_msg, other_sig)
    elif how == "bad signature":  # rightly refused (author-sig), then accused correctly signed
        refusal = _refusal(g, seat, msg, bytes([sig[0] ^ 1]) + sig[1:], "author-sig",
                           "signature does not verify")
    elif how == "another connection":  # a colluder sent it (not-your-seat)
        refusal = _refusal(g, other, msg, sig, "not-your-seat",
                           f"this connection speaks for seat {other}")
    elif how == "not the mover's":  # a third seat relays the mover's refused move
        author = other
    accuse = {"round": body["round"], "refusal": refusal, "msg": msg, "sig": sig}
    with pytest.raises(GameError) as info:
        g.send(author, "accuse", accuse)
    assert (info.value.seat, info.value.step) == (author, "accuse"), info.value
    assert all(not c.finished for c in g.cores)
    for i, c in enumerate(g.cores):  # every peer refuses it by itself, too
        if i != 0:
            with pytest.raises(GameError):
                c.apply(author, "accuse", dict(accuse))


# ------------------------------------------------------------------ over the network
class RefusingHost(HostNode):
    """Refuses Ana's (seat 1's) first move that plays a card with a plausible error, as
    an honest host refuses an illegal move — and orders everything else honestly,
    including Ana's accusation."""

    refused = 0
    fatal = False

    def _on_msg(self, conn: Conn, msg: bytes, sig: bytes) -> None:
        table = self.table
        m = parse_message(msg)
        if (table is not None and conn.seat == 1 and m.kind == "move" and not self.refused
                and played_slots(action_from_dict(m.body["move"]))):
            self.refused += 1
            e = WireError(ErrorCode.ILLEGAL, "R2.1: halves of different ranks never match",
                          fatal=self.fatal)
            refusal = make_refusal(self.identity, table.game_id, len(table.log),
                                   table.log.head(), 1, msg, sig, e.code.value, e.reason)
            self._refuse(conn, e, m.kind, m.counter, refusal)
            return
        super()._on_msg(conn, msg, sig)


@pytest.mark.parametrize("fatal", [False, True], ids=["then-orders-it", "and-hangs-up"])
@virtual_time
async def test_a_lan_host_that_refuses_a_legal_move_is_named_by_every_peer(
        tmp_path: Path, fatal: bool, clock: VirtualLoop) -> None:
    """On the in-memory network: the host refuses Ana's legal move. Ana's peer checks the signed
    refusal against its own log head and engine, stops with a one-line accusation naming
    the host and keeps the evidence; the accusation it sent is ordered (this host orders
    everything else honestly), and Bo and the host's own core stop with a verdict naming
    the host. Bo's transcript verifies up to that entry, which names seat 0. A host that
    makes its refusal fatal (closing the connection) keeps the accusation from the log —
    but Ana still stops naming it."""
    host = RefusingHost(Identity.generate(), tmp_path / "p0", "Host", net(), seats=3,
                        proofs=False)
    host.fatal = fatal
    lan = await Lan.start(tmp_path, host)
    ana, bo = lan.peers
    host_task = asyncio.ensure_future(host.done.wait())
    sessions = [NetSession(host, host_task, bot=make_bot("random", 0)),
                *(NetSession(p, t, bot=make_bot("random", i + 1))
                  for i, (p, t) in enumerate(zip(lan.peers, lan.tasks, strict=True)))]
    runs = [asyncio.ensure_future(s.run()) for s in sessions]
    try:
        why = await lan.stopped(ana)
        assert host.refused == 1
        assert "refused our legal move" in why and "host seat 0 at fault" in why, why
        assert "\n" not in why
        assert list((tmp_path / "p1" / "games").glob("*.accusation"))
        if fatal:
            assert "only this peer can accuse it" in why, why
            return
        assert "we accuse it through the log" in why, why
        await until(lambda: bo.table is not None and bo.table.core.finished, "Bo stops")
        assert bo.table is not None
        v = bo.table.core.verdict
        assert v is not None and (v.seat, v.step) == (0, "accuse"), v
        assert host.table is not None and host.table.core.verdict is not None
        await within(asyncio.wait(runs))
        assert "seat 0 at accuse" in (sessions[2].verdict or ""), sessions[2].verdict
        recs = lan.records(2)
        assert parse_message(_msg_of(recs[-1])).kind == "accuse"
        stopped_at_last(recs, 0, "accuse")
    finally:
        for t in runs:
            t.cancel()
        await lan.close()


@virtual_time
async def test_a_lan_seat_that_withholds_its_reveal_is_timed_out_at_reveal(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """On the in-memory network: Bo (seat 2) makes its move but never sends the reveal. Nothing
    else is accepted meanwhile; after ``answer_timeout`` the host orders a ``timeout``
    naming seat 2 at step ``reveal``, and every peer stops with that verdict."""
    host = HostNode(Identity.generate(), tmp_path / "p0", "Host", net(), seats=3,
                    proofs=False)
    lan = await Lan.start(tmp_path, host, bo_withholds=lambda k, b: k == "reveal")
    host_task = asyncio.ensure_future(host.done.wait())
    sessions = [NetSession(host, host_task, bot=make_bot("random", 0)),
                *(NetSession(p, t, bot=make_bot("random", i + 1))
                  for i, (p, t) in enumerate(zip(lan.peers, lan.tasks, strict=True)))]
    runs = [asyncio.ensure_future(s.run()) for s in sessions]
    try:
        await within(host.done.wait())
        for node in (host, *lan.peers):
            assert node.table is not None
            v = node.table.core.verdict
            assert v is not None and (v.seat, v.step) == (2, "reveal"), v
        recs = lan.records(1)
        assert parse_message(_msg_of(recs[-1])).kind == "timeout"
        assert parse_message(_msg_of(recs[-2])).kind == "move"
        assert parse_message(_msg_of(recs[-2])).author == 2
        stopped_at_last(recs, 2, "reveal")
    finally:
        for t in runs:
            t.cancel()
        await lan.close()


class PeekingHost(HostNode):
    """Before checking any joiner's move, tries to read the cards it plays."""

    tried = 0
    leaks: list[str]  # set by the test

    def _on_msg(self, conn: Conn, msg: bytes, sig: bytes) -> None:
        table = self.table
        m = parse_message(msg)
        if table is not None and m.kind == "move" and conn.seat not in (None, 0):
            if set(m.body) != {"round", "move"}:
                self.leaks.append(f"a move carries {sorted(m.body)}")
            r = table.core.round
            assert r is not None
            for s in played_slots(action_from_dict(m.body["move"])):
                if s not in r.public:
                    self.tried += 1
                    if r.deck.card(s) is not None or conn.seat in r.deck._shares.get(s, {}):
                        self.leaks.append(f"slot {s} of seat {conn.seat} is readable")
        super()._on_msg(conn, msg, sig)


@virtual_time
async def test_a_lan_host_reading_the_moves_it_receives_finds_no_card(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """On the in-memory network, bots play; the host inspects every joiner's move before ordering
    it: none carries a share, and no played card is readable with what the host holds."""
    host = PeekingHost(Identity.generate(), tmp_path / "p0", "Host", net(), seats=3,
                       proofs=False)
    host.leaks = []
    lan = await Lan.start(tmp_path, host)
    host_task = asyncio.ensure_future(host.done.wait())
    sessions = [NetSession(host, host_task, bot=make_bot("random", 0)),
                *(NetSession(p, t, bot=make_bot("random", i + 1))
                  for i, (p, t) in enumerate(zip(lan.peers, lan.tasks, strict=True)))]
    runs = [asyncio.ensure_future(s.run()) for s in sessions]
    try:
        await until(lambda: host.tried >= 12 or host.done.is_set(), "joiners' plays")
        assert host.tried >= 12 and host.leaks == [] and host.fatal is None
        assert all(p.fatal is None for p in lan.peers)
        assert host.table is not None and host.table.core.verdict is None
    finally:
        for t in runs:
            t.cancel()
        await lan.close()


def test_blind_check_reads_no_face() -> None:
    """Game.check_blind refuses what is wrong whatever the faces (a half not in the hand,
    the same half twice, a discard before drawing, an upgrade of a missing match) and
    passes what only the faces could refuse."""
    g = Game(2, Settings(hand_size=5))
    faces: list[int | None] = [None] * 104
    faces[10] = 0  # the first discard
    g.start_round(faces)
    seat = g.turn
    a, b = g.hands[seat][:2]
    for bad in (Discard(seat, a), Lay(seat, a, a), Lay(seat, a, 200),
                Upgrade(seat, a, 5, 0)):
        with pytest.raises(Exception):  # noqa: B017 - IllegalMove, whichever rule
            g.check_blind(bad)
    g.apply(DrawPile(seat))
    g.check_blind(Lay(seat, a, b))  # whether they match, only the faces can tell
    g.check_blind(Discard(seat, a))
    with pytest.raises(Exception):  # noqa: B017
        g.check_blind(Upgrade(seat, a, 0, 0))  # no match on the table


@pytest.mark.parametrize("other", ["splitnet/1", "splitnet/4", "splitnet/5"])
def test_verify_says_in_one_line_that_a_transcript_of_another_protocol_is_one(
        other: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """splitnet/1 moves carried their shares; splitnet/4 opened a round an abandonment
    cut short, with proofs too, and splitnet/5 without proofs (GAME.md): none of their
    transcripts is this protocol's.
    ``splitnet verify`` says so in one line and exits non-zero."""
    from splitnet.games.split.local import game_settings
    from splitnet.session.log import Log, Player
    from splitnet.session.transcript import TranscriptWriter
    from splitnet.verify import PROTOCOL, run_verify

    assert PROTOCOL == "splitnet/6"
    ids = [Identity.generate() for _ in range(2)]
    settings = dict(game_settings(Settings(), shuffle_proofs=True), protocol=other)
    log, _ = Log.start(ids[0], game_id=bytes(16), host_seat=0, settings=settings,
                       players=[Player(i, f"p{i}", k.public_key_bytes())
                                for i, k in enumerate(ids)])
    path = tmp_path / "old.splitlog"
    w = TranscriptWriter(path)
    w.append(log.records()[0])
    w.close()
    v = verify_records(log.records())
    assert not v.ok and v.seat is None and v.summary == (
        f"unsupported protocol: the transcript is of protocol '{other}'; this splitnet "
        "verifies splitnet/6 only")
    assert run_verify(path) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unsupported protocol" in err and "splitnet/6" in err


def test_verify_says_in_one_line_that_a_splitnet_3_transcript_is_another_protocol(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A splitnet/3 transcript's messages are in the old layout, without ``seen``
    (``splitnet/v1/msg``, TRANSCRIPT.md §3): no record of it is taken, but ``splitnet
    verify`` reads its host-signed header far enough to say in one line which protocol it
    is of, naming nobody; the same bytes with a bad host signature are just a failure."""
    from splitnet.games.split.local import game_settings
    from splitnet.session.codec import encode
    from splitnet.session.log import TAG_ENTRY, TAG_MSG_V1, ZERO_HASH, Player, header_body
    from splitnet.session.transcript import TranscriptWriter
    from splitnet.verify import run_verify

    ids = [Identity.generate() for _ in range(2)]
    settings = dict(game_settings(Settings(), shuffle_proofs=True), protocol="splitnet/3")
    body = header_body(bytes(16), 0, [Player(i, f"p{i}", k.public_key_bytes())
                                      for i, k in enumerate(ids)], settings)
    msg = encode([TAG_MSG_V1, bytes(16), 0, 0, "game", body])  # splitnet/3's layout
    entry = encode([TAG_ENTRY, 0, ZERO_HASH, msg, ids[0].sign(msg)])
    record = encode([entry, ids[0].sign(entry)])
    path = tmp_path / "old.splitlog"
    w = TranscriptWriter(path)
    w.append(record)
    w.close()
    v = verify_records([record])
    assert not v.ok and v.seat is None and v.summary == (
        "unsupported protocol: the transcript is of protocol 'splitnet/3'; this splitnet "
        "verifies splitnet/6 only")
    assert run_verify(path) == 1
    err = capsys.readouterr().err
    assert err == v.summary + "\n"
    forged = encode([entry, ids[1].sign(entry)])  # not the header's host
    v = verify_records([forged])
    assert v.summary.startswith("FAILED at entry 0 (seat unknown): log: ") and (
        "splitnet/1 to splitnet/3" in v.summary), v.summary
