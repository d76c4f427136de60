"""A seat's move at a position is final (protocol/GAME.md "Pledges", R8.1; SECURITY.md §6
rows 105–106): attacks of a host that collects a seat's alternative moves.

Every move a player chooses at one position tells more of the hand than the one it
plays: a second choice after a dropped or refused move (which hidden cards share a rank,
a hidden card's rank) is the host's for nothing. So the seat keeps its chosen move
durably before it leaves (its ``.secrets`` file, ``SeedStore.choose_move``), sends
exactly it again after every reconnect and restart — never asking its player again —
and holds any refusal of that legal move that is not the host's valid signed refusal at
the seat's own head against the host. A valid signed refusal stays what it was: an
accusation (tests/test_attacks_reveal.py).

Each test runs a host, Ana (seat 1) and Bo (seat 2) in this process over the in-memory
network on the virtual clock (tests/test_attacks_net.py's :class:`Lan`). The host is a
:class:`ChoosyHost`: it refuses or drops Ana's move at her first position, in one of
several ways, a few times, collecting what she sends; Ana's player is a
:class:`Fickle` bot that picks another legal move every time it is asked.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest

from splitnet.app.lan_session import NetSession
from splitnet.games import FIRST
from splitnet.games.split.bots import make_bot
from splitnet.games.split.core import GameCore
from splitnet.games.split.rules import Action, Game
from splitnet.net.host import Conn, HostNode
from splitnet.net.peer import PeerNode
from splitnet.net.store import GameFiles, SeedStore
from splitnet.net.wire import ErrorCode, WireError
from splitnet.session.codec import decode, encode
from splitnet.session.identity import Identity
from splitnet.session.log import make_refusal, parse_message
from splitnet.verify import verify_records
from tests.test_attacks_net import Lan, _msg_of, net, prefix_verifies
from tests.virtual_time import VirtualLoop, until, virtual_time, within

#: every peer checks every other seat's hop and verify checks each again: the same
#: proofs, computed in full once per test (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("each_shuffle_proof_checked_once")


Position = tuple[int, int]


def position(core: GameCore) -> Position:
    """Where the game stands for a move: the round and how many of its moves are applied."""
    r = core.round
    assert r is not None
    return r.number, len(r.actions)


class Fickle:
    """A player that picks another legal move each time it is asked (as a person asked
    again may), noting at which position of its seat's core it was asked."""

    name = "fickle"

    def __init__(self, where: Callable[[], Position], first: int = 0) -> None:
        self.where = where
        self.n = first
        self.asked: list[Position] = []

    def choose(self, game: Game, seat: int) -> Action:
        self.asked.append(self.where())
        moves = game.legal_moves(seat)
        self.n += 1
        return moves[(self.n - 1) % len(moves)]


#: the ways a host refuses a move without a refusal it can be held to
REFUSALS = ("unsigned", "unsigned-fatal", "bad-signature", "old-head", "another-message")


class ChoosyHost(HostNode):
    """Orders everything honestly but Ana's (seat 1's) move at her first position, which
    it refuses ``times`` times ``how`` — then orders the next one it gets there.
    ``shown``: every (msg, sig) of Ana's it got at that position.

    ``drop``: ignores it and closes the connection a moment later, as a lost connection
    would; ``close``: closes the connection at once, no error frame; ``ignore``: ignores
    it and keeps the connection; the :data:`REFUSALS`: an ``error`` frame with no
    signed refusal (and fatal: closing the connection), a refusal whose signature is
    broken, one signed at the entry before the head, one naming another message."""

    how = "drop"
    times = 2

    def __init__(self, *a: object, **kw: object) -> None:
        super().__init__(*a, **kw)  # type: ignore[arg-type]
        self.target: Position | None = None
        self.shown: list[tuple[bytes, bytes]] = []

    def _on_msg(self, conn: Conn, msg: bytes, sig: bytes) -> None:
        table = self.table
        m = parse_message(msg)
        if (table is None or conn.seat != 1 or m.kind != "move"
                or not isinstance(table.core, GameCore)):
            super()._on_msg(conn, msg, sig)
            return
        at = position(table.core)
        if self.target is None:
            self.target = at
        if at != self.target:
            super()._on_msg(conn, msg, sig)
            return
        self.shown.append((msg, sig))
        if len(self.shown) > self.times:
            super()._on_msg(conn, msg, sig)
            return
        how, log = self.how, table.log
        if how == "drop":
            asyncio.get_running_loop().call_later(0.25, conn.close)
            return
        if how == "close":
            conn.close()
            return
        if how == "ignore":
            return
        seq, head = len(log), log.head()
        if how == "old-head":
            seq, head = seq - 1, log.hash_at(seq - 2)
        signed = (msg, bytes([sig[0] ^ 1]) + sig[1:]) if how == "another-message" else (msg, sig)
        refusal: bytes | None = make_refusal(self.identity, table.game_id, seq, head, 1,
                                             *signed, "illegal", "R2.1: halves of "
                                             "different ranks never match")
        if how.startswith("unsigned"):
            refusal = None
        elif how == "bad-signature":
            assert refusal is not None
            refusal = refusal[:-1] + bytes([refusal[-1] ^ 1])
        e = WireError(ErrorCode.ILLEGAL, "R2.1: halves of different ranks never match",
                      fatal=how == "unsigned-fatal")
        self._refuse(conn, e, "move", m.counter, refusal)


async def _play(tmp: Path, how: str, times: int = 2) -> tuple[
        Lan, ChoosyHost, Fickle, list[NetSession], list[asyncio.Task[None]]]:
    """A game whose host is a :class:`ChoosyHost`; Ana is played by a :class:`Fickle`."""
    host = ChoosyHost(Identity.generate(), tmp / "p0", "Host", net(), seats=3, proofs=False)
    host.how, host.times = how, times
    lan = await Lan.start(tmp, host)
    ana, bo = lan.peers
    assert ana.table is not None and isinstance(ana.table.core, GameCore)
    core = ana.table.core
    fickle = Fickle(lambda: position(core))
    host_task = asyncio.ensure_future(host.done.wait())
    sessions = [NetSession(host, host_task, bot=make_bot("random", 0)),
                NetSession(ana, lan.tasks[0], bot=fickle),
                NetSession(bo, lan.tasks[1], bot=make_bot("random", 2))]
    runs = [asyncio.ensure_future(s.run()) for s in sessions]
    return lan, host, fickle, sessions, runs


def _ordered(node: PeerNode, msg: bytes) -> bool:
    """Is the move ``msg`` in this node's log?"""
    table = node.table
    return table is not None and any(e.msg_bytes == msg for e in table.log.entries)


@pytest.mark.parametrize("how", ["drop", "close"])
@virtual_time
async def test_a_move_the_host_drops_is_sent_again_the_same_and_never_chosen_again(
        tmp_path: Path, clock: VirtualLoop, how: str) -> None:
    """The host drops Ana's move twice (``drop``: ignored, then the connection lost;
    ``close``: the connection closed on it, no error frame). Each time Ana reconnects,
    catches up and sends exactly the same move again — the same signed bytes — and her
    player is asked once at that position, never again; the third copy is ordered and
    the game goes on to its end with nobody named (every transcript verifies). (Before:
    she resynchronised and her player picked again, handing the host a second, different
    move at the same position.)"""
    lan, host, fickle, sessions, runs = await _play(tmp_path, how)
    ana = lan.peers[0]
    try:
        await until(lambda: len(host.shown) >= 3, "Ana's move, sent three times")
        target = host.target
        assert target is not None
        assert fickle.asked.count(target) == 1, fickle.asked
        assert len(set(host.shown)) == 1, "the host got another move at the same position"
        assert ana.epoch >= 2  # reconnected after each drop
        msg = host.shown[0][0]
        await until(lambda: _ordered(ana, msg), "Ana's move in her log")
        assert fickle.asked.count(target) == 1
        assert ana.fatal is None and host.fatal is None
        await within(asyncio.wait(runs), 600)  # the game goes on to its end
        assert all(s.core.finished and s.core.verdict is None for s in sessions)
        assert fickle.asked.count(target) == 1 and ana.fatal is None
        recs = lan.records(1)
        assert any(_msg_of(r) == msg for r in recs)  # the very bytes ordered
        assert verify_records(recs).ok and recs == lan.records(2)
    finally:
        for t in runs:
            t.cancel()
        await lan.close()


@pytest.mark.parametrize("how", REFUSALS)
@virtual_time
async def test_a_legal_move_refused_without_a_signed_refusal_at_our_head_names_the_host(
        tmp_path: Path, clock: VirtualLoop, how: str) -> None:
    """The host refuses Ana's legal move with an ``error`` frame that holds no refusal it
    can be held to: none (also as a fatal error, closing the connection), one whose
    signature is broken, one signed at the entry before Ana's head, one naming another
    message. An honest host signs every refusal at the head whose records it sent
    first, so this is no refusal: Ana stops at once, naming the host, keeps what came in
    ``GAME_ID.refused``, and the host got one move out of her, her player asked once.
    (Before: she resynchronised and her player picked another move, twice.)"""
    lan, host, fickle, _, runs = await _play(tmp_path, how)
    ana = lan.peers[0]
    try:
        await until(lambda: ana.fatal is not None or len(host.shown) > 1, "Ana stops")
        assert len(host.shown) == 1, "the host got another move at the same position"
        why = await lan.stopped(ana)
        assert "refused our legal move" in why and "[host seat 0 at fault]" in why, why
        assert "\n" not in why
        flaw = {"unsigned": "no signed refusal", "unsigned-fatal": "no signed refusal",
                "bad-signature": "not valid", "old-head": "not at our head",
                "another-message": "another message"}[how]
        assert flaw in why, why
        assert len(host.shown) == 1 and fickle.asked.count(host.target) == 1  # type: ignore[arg-type]
        files = list((tmp_path / "p1" / "games").glob("*.refused"))
        assert len(files) == 1 and str(files[0]) in why
        kept = decode(files[0].read_bytes(), max_len=1 << 20)
        assert isinstance(kept, dict)
        assert (kept["msg"], kept["sig"]) == host.shown[0]
        assert kept["code"] == "illegal"
        assert (kept["refusal"] is None) == how.startswith("unsigned")
        assert not list((tmp_path / "p1" / "games").glob("*.accusation"))
        prefix_verifies(lan.records(1))
    finally:
        for t in runs:
            t.cancel()
        await lan.close()


@virtual_time
async def test_a_restarted_seat_sends_its_kept_move_again_and_its_player_is_not_asked(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """The host ignores Ana's move; Ana's process dies. Her ``.secrets`` file holds the
    move and its position (written before the move left); restarted from her files, she
    catches up and sends exactly that move again (the same bytes), and the new session's
    player is not asked at that position; the host orders it."""
    lan, host, _, _, runs = await _play(tmp_path, "ignore", times=1)
    ana = lan.peers[0]
    try:
        await until(lambda: len(host.shown) == 1, "Ana's move")
        assert ana.table is not None
        game_id, identity, port = ana.table.game_id, ana.identity, ana.port
        lan.tasks[0].cancel()
        runs[1].cancel()
        await within(asyncio.wait([lan.tasks[0], runs[1]]))
        files = GameFiles(tmp_path / "p1", game_id)
        secrets = decode(files.secrets.read_bytes(), max_len=1 << 16)  # as the kill left it
        meta = files.load_meta()
        ana2 = PeerNode(identity, tmp_path / "p1", "Ana", "127.0.0.1", port, net(),
                        connect=lan.mem.connector("127.0.0.1", port), resume=meta)
        lan.peers[0] = ana2
        lan.tasks[0] = ana2.start()
        assert ana2.table is not None and isinstance(ana2.table.core, GameCore)
        core = ana2.table.core
        again = Fickle(lambda: position(core), first=1)
        runs.append(asyncio.ensure_future(NetSession(ana2, lan.tasks[0], bot=again).run()))
        await until(lambda: len(host.shown) == 2, "Ana's move, sent again")
        assert host.shown[1] == host.shown[0], "the host got another move at that position"
        assert host.target not in again.asked  # the new session's player was not asked
        await until(lambda: _ordered(ana2, host.shown[0][0]), "Ana's move in her log")
        assert host.target not in again.asked and ana2.fatal is None
        # what made it so: the move and its position, in her .secrets file at the kill
        assert isinstance(secrets, dict) and host.target is not None
        assert secrets.get("move") == {"round": host.target[0], "at": host.target[1],
                                       "move": parse_message(host.shown[0][0]).body["move"]}
        header = ana2.table.log.header_hash
        kept = SeedStore(files.secrets, game_id, 1, header).chosen_move()
        assert kept is not None  # (superseded by her later moves since)
    finally:
        for t in runs:
            t.cancel()
        await lan.close()


# ------------------------------------------------------------------ the core and the file
def test_a_chosen_move_is_kept_sent_again_and_never_replaced(tmp_path: Path) -> None:
    """``GameCore.choose_move`` keeps the move (here in a seat's real ``SeedStore``)
    before returning it: the player is not asked again (``can_move`` false), another
    move at that position is refused in one line citing R8.1 (nothing changes), the same
    one again is the same body, and after a reconnect (``forget_unlogged``) the outbox
    sends exactly it again — until it is in the log. A store reopened from the file holds
    it; one whose move entry is damaged is refused naming the file."""
    from splitnet.games.split.rules import IllegalMove
    from tests.test_attacks_reveal import _a_joiners_turn_after_drawing, new_game

    g = new_game(3, 5)
    seat = _a_joiners_turn_after_drawing(g)
    core = g.cores[seat]
    store = SeedStore(tmp_path / "g.secrets", g.log.game_id, seat, g.log.header_hash)
    core.moves = store
    first, second = core.engine.legal_moves(seat)[:2]
    assert core.can_move() and core.kept_move() is None
    body = core.choose_move(first)
    assert not core.can_move() and core.outbox() == []
    with pytest.raises(IllegalMove, match=r"^R8\.1: your move at this position is chosen "
                       r"already .*never changed"):
        core.choose_move(second)
    assert core.choose_move(first) == body
    core.forget_unlogged()  # a reconnect: the log lacks it
    assert core.outbox() == [("move", body)]
    assert core.outbox() == []  # once per connection
    again = SeedStore(tmp_path / "g.secrets", g.log.game_id, seat, g.log.header_hash)
    kept = again.chosen_move()
    assert kept is not None and kept.move == body["move"] and kept == core.kept_move()
    g.send(seat, "move", body)  # in the log: the position has passed
    g.pump()
    assert core.kept_move() is None and core.outbox() != [("move", body)]
    raw = decode((tmp_path / "g.secrets").read_bytes(), max_len=1 << 16)
    assert isinstance(raw, dict)
    raw["move"]["move"] = {"type": "teleport", "seat": seat}
    (tmp_path / "g.secrets").write_bytes(encode(raw))
    SeedStore(tmp_path / "g.secrets", g.log.game_id, seat, g.log.header_hash)  # (shape only)
    with pytest.raises(ValueError, match=r"g\.secrets: bad move entry"):
        SeedStore(tmp_path / "g.secrets", g.log.game_id, seat, g.log.header_hash,
                  check_move=FIRST.check_move)  # Split's own check, as a table passes it
