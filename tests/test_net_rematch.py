"""A LAN rematch (NETWORK.md §13, GAME.md "Rematch"). Host and joiner nodes in this
process, over the in-memory network on a clock the test moves (tests/memnet.py,
tests/virtual_time.py): a 3-seat game is played to its end, the host offers the rematch,
both joiners (bots: they agree) answer, and the next game starts with the same seats and
rules, its header naming the game before (id and final head) and round 1 dealt by seat
1 (R3.2: the previous first dealer + 1). A seat that declines, leaves or does not answer
ends it with one line for everyone — one seen to leave (after the game, or as its
program stops in the lobby) at once, while the host's screen counts down the wait; a
seat killed in the rematch lobby gets back in when started again; a header or offer
that does not follow the finished game is refused naming the field; nobody else gets
into a rematch lobby. Then the same on loopback with real processes, one of them killed
and restarted in the rematch (or in its lobby).
"""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path
from typing import Any, ClassVar

import pytest

from splitnet.app.lan_rematch import rematch_host_lobby
from splitnet.app.lan_session import NetSession
from splitnet.game.rematch import PreviousGame, Rematch, first_dealer
from splitnet.games import FIRST
from splitnet.games.split.bots import make_bot
from splitnet.net.frames import Answer, Offer
from splitnet.net.host import HostNode
from splitnet.net.peer import PeerNode
from splitnet.net.table import GameChoice, Table
from splitnet.session.identity import Identity
from splitnet.session.log import Player
from splitnet.session.transcript import read_transcript
from splitnet.verify import chain_problem, verify_records
from tests.test_attacks_net import Lan, net
from tests.test_net_lobby import lobby_screen
from tests.virtual_time import LIMIT, VirtualLoop, until, virtual_time, within


@pytest.fixture(autouse=True)
def one_round_games(monkeypatch: pytest.MonkeyPatch) -> None:
    """The in-process games here have one round (rules the rematch then keeps): the
    rematch is about headers and seats, not play (the loopback test plays whole games)."""
    from splitnet.games.split.local import game_settings
    from splitnet.games.split.rules import Settings

    def header_for(self: GameChoice, players: int, proofs: bool) -> dict[str, Any]:
        assert self.header is None and self.spec is FIRST  # (the host's own Split game)
        return game_settings(Settings(rounds=1), shuffle_proofs=proofs)

    monkeypatch.setattr(GameChoice, "header_for", header_for)


async def play(host: HostNode, peers: list[PeerNode], tasks: list[asyncio.Task[None]],
               seed: int) -> None:
    """Bots at every seat play the game on these nodes to its end."""
    runs = [asyncio.ensure_future(NetSession(host, asyncio.ensure_future(host.done.wait()),
                                             bot=make_bot("heuristic", seed)).run())]
    runs += [asyncio.ensure_future(NetSession(p, t, bot=make_bot("heuristic", seed + i + 1))
                                   .run()) for i, (p, t) in enumerate(zip(peers, tasks,
                                                                          strict=True))]
    await within(asyncio.gather(*runs), 20 * LIMIT)
    await within(host.done.wait())
    for p in peers:
        assert p.done and p.fatal is None, p.fatal


def finished(table: Table | None) -> PreviousGame:
    assert table is not None and table.core.finished
    return PreviousGame(table.log.header, table.log.head())


def looking_for_rematch(lan: Lan, port: int, settings: Any = None) -> PeerNode:
    """Ana's node for the rematch of the game ``lan`` finished, looking for it at
    ``port`` (not started)."""
    ana = lan.peers[0]
    return PeerNode(ana.identity, lan.tmp / "p1", ana.name, "127.0.0.1", port,
                    settings or net(), rematch_of=finished(ana.table),
                    connect=lan.mem.connector("127.0.0.1", port))


def transcripts(tmp: Path, seat: int) -> dict[bytes, list[bytes]]:
    """Every transcript on seat's disk, by game id."""
    out = {}
    for f in sorted((tmp / f"p{seat}" / "games").glob("*.splitlog")):
        out[bytes.fromhex(f.stem)] = read_transcript(f, repair=True)
    return out


async def played(tmp: Path) -> Lan:
    """A 3-seat game (host + Ana and Bo, bots everywhere) played to its end."""
    lan = await Lan.start(tmp)
    await play(lan.host, lan.peers, lan.tasks, 10)
    await within(asyncio.gather(*lan.tasks, return_exceptions=True))
    return lan


async def stop_all(lan: Lan, *tasks: asyncio.Task[None]) -> None:
    """Stop these nodes' tasks, then the whole table."""
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    await lan.close()


class Rematching:
    """The nodes of the rematch after a finished :class:`Lan` game, at the same address
    (the host's finished-game node closed first)."""

    def __init__(self, lan: Lan, host: HostNode, peers: list[PeerNode]) -> None:
        self.lan, self.host, self.peers = lan, host, peers
        self.tasks = [p.start() for p in peers]

    @classmethod
    async def open(cls, lan: Lan, host_cls: type[HostNode] = HostNode,
                   peer_cls: type[PeerNode] = PeerNode, **timing: float) -> Rematching:
        old = lan.host
        prev = finished(old.table)
        port = old.port
        await old.close()
        host = host_cls(old.identity, lan.tmp / "p0", old.name, net(**timing), proofs=False,
                        rematch_of=prev)
        await host.listen("127.0.0.1", port, transport=lan.mem.listen)
        lan.host = host  # (closed with the Lan)
        peers = [(PeerNode if i == 0 else peer_cls)(
            p.identity, lan.tmp / f"p{i + 1}", p.name, "127.0.0.1", port, net(**timing),
            rematch_of=finished(p.table), connect=lan.mem.connector("127.0.0.1", port))
            for i, p in enumerate(lan.peers)]
        return cls(lan, host, peers)

    async def close(self) -> None:
        await stop_all(self.lan, *self.tasks)


@virtual_time
async def test_a_rematch_keeps_the_seats_and_passes_the_first_deal_left(
        tmp_path: Path, clock: VirtualLoop) -> None:
    lan = await played(tmp_path)
    first = finished(lan.host.table)
    assert first_dealer(first.header.settings) == 0
    r = await Rematching.open(lan)
    try:
        await within(r.host.started.wait())
        for p in r.peers:
            await within(p.started_evt.wait())
            assert p.offer == Rematch(first.game_id, first.head, 1)
        assert r.host.agreed == {0, 1, 2}
        table = r.host.table
        assert table is not None
        h = table.log.header
        assert h.game_id != first.game_id
        assert h.players == first.header.players  # same names, keys, seat order
        assert h.settings["rematch"] == {"game": first.game_id, "head": first.head,
                                         "first_dealer": 1}
        for t in [table] + [p.table for p in r.peers]:
            assert t is not None and t.game_id == h.game_id and t.first_dealer == 1
        await play(r.host, r.peers, r.tasks, 20)
        second = finished(r.host.table)
        games = transcripts(tmp_path, 0)
        assert set(games) == {first.game_id, second.game_id}
        for seat in (1, 2):
            assert transcripts(tmp_path, seat) == games  # byte-identical on every seat
        v1, v2 = verify_records(games[first.game_id]), verify_records(games[second.game_id])
        assert v1.ok and v2.ok, (v1.summary, v2.summary)
        assert v1.record is not None and v2.record is not None
        assert v1.record["rounds"][0]["dealer"] == 0
        assert v2.record["rounds"][0]["dealer"] == 1  # R3.2: the first deal passed left
        assert f"rematch of game {first.game_id.hex()}: Ana dealt first (R3.2)" in v2.summary
        assert chain_problem(games[first.game_id], games[second.game_id]) is None
        why = chain_problem(games[second.game_id], games[first.game_id])
        assert why is not None and "header.settings.rematch: missing" in why
    finally:
        await r.close()


class HesitantPeer(PeerNode):
    """A seat whose player has not answered the offer yet (it holds it)."""

    def _on_offer(self, ch: object, f: Offer) -> None:  # type: ignore[override]
        self.offer = Rematch(f.game, f.head, f.first_dealer)
        self._changed()


@virtual_time
async def test_declining_to_a_host_that_reads_nothing_returns_within_its_bound(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """A seat says no while its host reads nothing (its connection's buffer full, so the
    drain never ends): ``decline`` gives up the wait after its 2 s and returns — the
    front end that asked goes on, no TimeoutError (a traceback) reaches it."""
    r = await Rematching.open(await played(tmp_path), peer_cls=HesitantPeer)
    try:
        bo = r.peers[1]
        await until(lambda: bo.offer is not None and bo.ch is not None, "Bo's offer")
        assert bo.ch is not None
        never: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        async def stuck() -> None:
            await never

        bo.ch.drain = stuck  # type: ignore[method-assign]
        began = asyncio.get_running_loop().time()
        await within(bo.decline("gone home"), 5.0)
        assert asyncio.get_running_loop().time() - began == pytest.approx(2.0)
    finally:
        await r.close()


@pytest.mark.parametrize(("offered", "line"), [
    (True, "Bo declined the rematch"),
    (False, "Bo left: no rematch ('gone home')"),
])
@virtual_time
async def test_a_seat_that_declines_or_leaves_ends_the_rematch_for_everyone(
        tmp_path: Path, clock: VirtualLoop, offered: bool, line: str) -> None:
    """Ana agrees; Bo's player says no to the offer (an ``answer`` no), or leaves before
    answering (a ``bye``): the host ends the rematch and every member is told, in one
    line, who ended it. No game is started, nothing is saved, and the host's saved
    rematch lobby is closed (``on_close``: a restarted host does not offer it again)."""
    r = await Rematching.open(await played(tmp_path), peer_cls=HesitantPeer)
    closed: list[str] = []
    r.host.on_close.append(lambda: closed.append("closed"))
    try:
        ana, bo = r.peers
        await until(lambda: r.host.agreed == {0, 1} and bo.offer is not None,
                    "Ana's yes and Bo's offer")
        if not offered:
            bo.offer = None  # (it leaves as if it had not seen the offer: a bye)
        await bo.decline("gone home")
        await within(r.host.done.wait())
        assert r.host.table is None and not r.host.started.is_set()
        assert r.host.no_rematch == line and closed == ["closed"]
        await within(asyncio.wait(r.tasks[:1]))
        assert ana.table is None and ana.fatal == line, ana.fatal
        for seat in (0, 1, 2):
            assert len(transcripts(tmp_path, seat)) == 1
    finally:
        await r.close()


@virtual_time
async def test_the_hosts_rematch_lobby_screen_says_what_it_waits_for(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """The host's rematch lobby (NETWORK.md §13) is for the finished game's 3 seats and
    starts by itself once each agreed: its screen counts of those 3 (not "of 6"), never
    says "waiting for players to join (2–6 play)" or "waiting for the host to start" to
    the host, and ``s`` says why it cannot start it."""
    r = await Rematching.open(await played(tmp_path), peer_cls=HesitantPeer)
    try:
        lobby = rematch_host_lobby(r.host, "127.0.0.1:7788", None)
        _, text = lobby_screen(lobby)  # nobody back yet
        assert "Rematch: Host agreed; waiting for Ana, Bo" in text
        assert "Players (1 of 3)" in text, text
        assert "Waiting for Ana, Bo to agree (Ana, Bo not back yet): the rematch" in text, text
        assert "2–6 play" not in text and "Waiting for the host" not in text, text
        bo = r.peers[1]
        await until(lambda: r.host.agreed == {0, 1} and bo.offer is not None
                    and len(r.host.members) == 2, "Ana's yes and Bo's offer")
        scr, text = lobby_screen(lobby)
        assert "Rematch: Host, Ana agreed; waiting for Bo" in text
        assert "Players (3 of 3)" in text, text
        assert "Waiting for Bo to agree: the rematch starts by itself" in text, text
        assert "Waiting for the host" not in text and " s  start" not in text, text
        scr.request_start()
        assert scr.note == ("a rematch starts by itself once every seat has agreed "
                            "(NETWORK.md §13)")
    finally:
        await r.close()


@virtual_time
async def test_a_seat_that_does_not_answer_ends_the_rematch_after_rematch_wait(
        tmp_path: Path, clock: VirtualLoop) -> None:
    r = await Rematching.open(await played(tmp_path), peer_cls=HesitantPeer,
                              rematch_wait=5.0)
    try:
        start = clock.time()
        ended = await until(lambda: r.host.done.is_set(), "the rematch to end", 60.0)
        assert 5.0 < ended - start <= 5.0 + 0.25  # at the first heartbeat past the wait
        assert r.host.no_rematch == "no rematch: Bo did not agree within 5 s"
        await within(asyncio.wait(r.tasks[:1]))
        assert r.peers[0].fatal == r.host.no_rematch
    finally:
        await r.close()


@virtual_time
async def test_a_seat_that_left_after_the_game_ends_the_rematch_at_once(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """Bo's program does not stay for a rematch (``splitnet bot`` without ``--rematch``):
    as the game ends it tells the host so, before its final ack, and exits. The host's
    player offers the rematch all the same: it does not wait ``rematch_wait`` (120 s)
    for Bo but ends at its first heartbeat, "no rematch: Bo left after the game" — and
    Ana, already looking for the offer, is told that line instead of waiting too."""
    lan = await Lan.start(tmp_path)
    lan.peers[1].leaves_after = True  # (Bo: set before the game ends)
    await play(lan.host, lan.peers, lan.tasks, 10)
    await within(asyncio.gather(*lan.tasks, return_exceptions=True))
    old = lan.host
    assert old.left_after == {2: "Bo"}
    prev, port = finished(old.table), old.port
    await old.close()
    host = HostNode(old.identity, tmp_path / "p0", old.name, net(), proofs=False,
                    rematch_of=prev, left=old.left_after)
    lan.host = host
    waiting = looking_for_rematch(lan, port)
    task = waiting.start()
    try:
        await clock.advance(0.5)  # Ana looks for the offer before it is made
        opened = clock.time()
        await host.listen("127.0.0.1", port, transport=lan.mem.listen)
        ended = await until(lambda: host.done.is_set(), "the rematch to end")
        assert ended - opened <= net().ping_interval  # at its first heartbeat
        assert host.no_rematch == "no rematch: Bo left after the game"
        assert host.table is None and not host.started.is_set()
        await within(host.tell_the_rest(5.0))
        assert host.told == {1, 2}  # Ana was told; Bo knows (he left)
        await within(asyncio.wait([task]))
        assert waiting.fatal is not None, waiting.fatal
        assert "no rematch: Bo left after the game" in waiting.fatal, waiting.fatal
        assert clock.time() - opened < 5.0  # not rematch_wait
        assert waiting.table is None and len(transcripts(tmp_path, 1)) == 1
    finally:
        await stop_all(lan, task)


@virtual_time
async def test_a_host_that_offers_no_rematch_says_so_and_the_seats_do_not_look(
        tmp_path: Path, clock: VirtualLoop, capsys: pytest.CaptureFixture[str]) -> None:
    """A bot host whose ``--rematches`` are spent knows, before the game ends, that it
    offers no rematch of it: before its bye it tells each seat so (``answer`` no from the
    host, NETWORK.md §13). A bot
    that stays for rematches (``splitnet bot --rematch``) then stops at once, "no rematch:
    the host at … offers none after this game" — it used to look for an offer for
    ``rematch_wait`` (120 s) while nothing listened. A host that says nothing leaves its
    seats looking, as before; an ``answer`` before the end is ignored."""
    from splitnet.app import lan_bot as lan_app

    lan = await Lan.start(tmp_path)
    lan.host.offers_no_rematch = True  # (set before the game ends, as host_main does)
    lan.host.conns[1].send(Answer(bytes(16), False))  # before the end: ignored
    await play(lan.host, lan.peers, lan.tasks, 10)
    await within(asyncio.gather(*lan.tasks, return_exceptions=True))
    ana, bo = lan.peers
    assert ana.host_offers_no_rematch and bo.host_offers_no_rematch
    began = clock.time()
    assert await within(lan_app._bot_rematches(ana, "heuristic", 1, None)) == 0
    assert clock.time() - began < 1.0  # at once, not rematch_wait
    assert "no rematch: the host at 127.0.0.1:" in capsys.readouterr().out
    assert len(transcripts(tmp_path, 1)) == 1  # no other game looked for
    await stop_all(lan)
    lan2 = await played(tmp_path / "b")  # a host that says nothing: the seats look
    assert not any(p.host_offers_no_rematch for p in lan2.peers)
    await lan2.close()


@pytest.mark.parametrize("host_is", ["on the finished game", "in its rematch lobby"])
@virtual_time
async def test_a_person_who_quits_at_the_end_screen_is_seen_to_leave(
        tmp_path: Path, clock: VirtualLoop, host_is: str) -> None:
    """``splitnet join``'s glue after its game (``_join_rematches``): Bo's player quits
    at the end screen (no n). The host is still on its own end screen — or already
    offering the rematch, Ana looking for it —: either way Bo's program tells it before
    it exits, so the rematch ends at once naming Bo, not after ``rematch_wait`` (120 s)
    of waiting for a seat that will not come. (Before, Bo's program just exited.)"""
    import argparse

    from splitnet.app import lan_join as glue
    from splitnet.app.lan_rematch import LEAVE_BUDGET

    lan = await played(tmp_path)
    old = lan.host
    prev, port = finished(old.table), old.port
    args = argparse.Namespace(plain=False, no_bell=True)
    tasks: list[asyncio.Task[None]] = []
    try:
        if host_is == "on the finished game":
            await within(glue._join_rematches(lan.peers[1], args, tmp_path, None, 0, False),
                         LEAVE_BUDGET + 1)
            assert old.left_after == {2: "Bo"}  # the rematch, if offered, ends at once
            return
        await old.close()
        host = HostNode(old.identity, tmp_path / "p0", old.name, net(), proofs=False,
                        rematch_of=prev, left=old.left_after)
        lan.host = host
        await host.listen("127.0.0.1", port, transport=lan.mem.listen)
        waiting = looking_for_rematch(lan, port)
        tasks.append(waiting.start())
        opened = clock.time()
        await within(glue._join_rematches(lan.peers[1], args, tmp_path, None, 0, False),
                     LEAVE_BUDGET + 1)
        await until(lambda: host.done.is_set(), "the rematch to end")
        assert host.no_rematch == "Bo declined the rematch", host.no_rematch
        assert host.table is None and not host.started.is_set()
        assert clock.time() - opened < LEAVE_BUDGET + 1  # not rematch_wait
        await within(asyncio.wait(tasks))
        assert waiting.fatal is not None and "Bo declined the rematch" in waiting.fatal
        for seat in (0, 1, 2):
            assert len(transcripts(tmp_path, seat)) == 1
    finally:
        await stop_all(lan, *tasks)


@virtual_time
async def test_a_seat_whose_program_stops_in_the_rematch_lobby_ends_it_at_once(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """Bo has the offer but has not answered; then his program stops (Ctrl-C, SIGTERM,
    its own wait: its node is cancelled). It says so as it goes, and the host ends the
    rematch at once, naming him, for Ana too — not ``rematch_wait`` later."""
    r = await Rematching.open(await played(tmp_path), peer_cls=HesitantPeer)
    try:
        ana, bo = r.peers
        await until(lambda: r.host.agreed == {0, 1} and bo.offer is not None,
                    "Ana's yes and Bo's offer")
        stopped = clock.time()
        r.tasks[1].cancel()
        await within(r.host.done.wait())
        assert r.host.no_rematch == "Bo left: no rematch ('stopped')"
        await within(asyncio.wait(r.tasks[:1]))
        assert ana.fatal == r.host.no_rematch
        assert clock.time() - stopped < 1.0
    finally:
        await r.close()


@virtual_time
async def test_the_rematch_lobby_shows_the_time_it_still_waits(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """While the host's rematch lobby waits for a yes, its line says how long it still
    waits (``rematch_wait``, counted from its offer, in steps of 15 s) and the screen is
    told each heartbeat, so the full screen counts down by itself. Ana, who agreed, sees
    the host's clock too, told in a ``clock`` frame at each step (it used to show none:
    she could not tell how long she would wait for Bo)."""
    from splitnet.ui.lobby import JoinLobby

    r = await Rematching.open(await played(tmp_path), peer_cls=HesitantPeer)
    try:
        lobby = rematch_host_lobby(r.host, "127.0.0.1:7788", None)
        ana = JoinLobby(r.peers[0])
        redraws: list[float] = []
        lobby.subscribe(lambda: redraws.append(clock.time()))
        _, text = lobby_screen(lobby)
        assert "Rematch: Host agreed; waiting for Ana, Bo (2:00 left)" in text, text
        bo = r.peers[1]
        await until(lambda: r.host.agreed == {0, 1} and bo.offer is not None, "Ana's yes")
        await clock.advance(20.0)
        _, text = lobby_screen(lobby)
        assert "Rematch: Host, Ana agreed; waiting for Bo (1:45 left)" in text, text
        assert ana.status.endswith("you agreed — waiting for Bo (1:45 left)"), ana.status
        late = [t for t in redraws if t > clock.time() - 2.0]
        assert len(late) >= 2 / net().ping_interval - 1, redraws[-20:]  # every beat
        assert r.host.rematch is not None
        offered = r.host.rematch.clock.since
        assert offered is not None
        await clock.advance(offered + 106.0 - clock.time())  # 14 s left: shown as 0:15
        assert "waiting for Bo (0:15 left)" in lobby_screen(lobby)[1]
        assert ana.status.endswith("waiting for Bo (0:15 left)"), ana.status
    finally:
        await r.close()


@virtual_time
async def test_a_joiner_looking_for_the_offer_shows_how_long_it_still_looks(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """The joiner's rematch lobby, before the host offers (its player still on the end
    screen): it says how long this joiner still looks for the offer — its own
    ``rematch_wait``, from when it started looking, in the host's steps of 15 s — as the
    host's says how long it waits; once the offer is there, who has agreed. (It used to
    show no clock at all.)"""
    from splitnet.ui.lobby import JoinLobby

    lan = await played(tmp_path)
    old = lan.host
    prev, port = finished(old.table), old.port
    await old.close()
    looking = looking_for_rematch(lan, port)
    task = looking.start()
    try:
        lobby = JoinLobby(looking)
        await until(lambda: (looking.net_status or "").startswith("waiting for the host"),
                    "Ana to look for the offer")
        lobby.changed()
        assert "waiting for the host to offer the rematch… (2:00 left)" in lobby.status
        await clock.advance(20.0)
        lobby.changed()
        assert "(1:45 left)" in lobby.status, lobby.status
        _, text = lobby_screen(lobby)
        assert "(1:45 left)" in text, text
        host = HostNode(old.identity, tmp_path / "p0", old.name, net(), proofs=False,
                        rematch_of=prev)
        lan.host = host
        await host.listen("127.0.0.1", port, transport=lan.mem.listen)
        await until(lambda: looking.offer is not None, "the offer")
        lobby.changed()
        # its own clock is over; the host's (its clock frame) says how long it waits
        assert lobby.status.startswith("rematch offered"), lobby.status
        assert lobby.status.endswith("waiting for Bo (2:00 left)"), lobby.status
        assert looking.offer_wait_left() is None
    finally:
        await stop_all(lan, task)


def kill(lan: Lan, node: PeerNode, task: asyncio.Task[None]) -> None:
    """``kill -9`` of a joiner's program: nothing more it sends arrives; the host sees
    its connection end. (Only its own: the other joiners' frames still arrive.)"""
    for link in lan.mem.links:
        if link.client is node.ch and not link.client.closed:
            link.client.drop = lambda frame: True  # (its last words are lost)
    task.cancel()


@virtual_time
async def test_a_seat_killed_in_the_rematch_lobby_gets_back_in_when_restarted(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """Bo has the offer in the rematch lobby; his program is killed (it says nothing).
    The host does not end the rematch — Bo merely dropped: its screen says he is not
    back and how long it still waits. Bo's program is started again with the same
    command: its game is over, so there is nothing to resume and it joins afresh (no
    ``rematch_of``); offered the rematch of a game it finished (its own copy in its data
    dir: ``splitnet.app.lan_common._finished_copy``), it is back for it and agrees. It used to
    sit in the lobby ignoring the offer until "no rematch: Bo did not agree within
    120 s", then stop with "the host closed the game". The rematch is played."""
    from splitnet.app.lan_common import _finished_copy

    lan = await played(tmp_path)
    r = await Rematching.open(lan, peer_cls=HesitantPeer)
    try:
        bo = r.peers[1]
        await until(lambda: r.host.agreed == {0, 1} and bo.offer is not None
                    and len(r.host.members) == 2, "Ana's yes and Bo's offer")
        kill(lan, bo, r.tasks[1])
        await until(lambda: len(r.host.members) == 1, "the host to see Bo go")
        await clock.advance(20.0)
        assert not r.host.done.is_set() and r.host.no_rematch is None
        _, text = lobby_screen(rematch_host_lobby(r.host, "127.0.0.1:7788", None))
        assert "waiting for Bo (1:45 left)" in text and "Bo not back yet" in text, text
        again = PeerNode(bo.identity, tmp_path / "p2", bo.name, "127.0.0.1", r.host.port,
                         net(), connect=lan.mem.connector("127.0.0.1", r.host.port),
                         rejoin_rematch=_finished_copy(tmp_path / "p2"))
        r.peers[1], r.tasks[1] = again, again.start()
        await within(r.host.started.wait())
        await within(again.started_evt.wait())
        assert again.fatal is None and again.rematch_of is not None
        assert r.host.agreed == {0, 1, 2}
        await play(r.host, r.peers, r.tasks, 20)
        games = transcripts(tmp_path, 0)
        assert len(games) == 2 and all(transcripts(tmp_path, s) == games for s in (1, 2))
    finally:
        await r.close()


@virtual_time
async def test_a_restarted_seat_without_its_copy_of_the_game_says_no_at_once(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """The same restart, but Bo's data dir lost its copy of the finished game (or his
    program does not stay for rematches): he cannot check the offer, so he says no at
    once, in one line saying why, and the rematch ends for everyone naming him."""
    lan = await played(tmp_path)
    r = await Rematching.open(lan, peer_cls=HesitantPeer)
    try:
        ana, bo = r.peers
        await until(lambda: r.host.agreed == {0, 1} and bo.offer is not None
                    and len(r.host.members) == 2, "Ana's yes and Bo's offer")
        kill(lan, bo, r.tasks[1])
        again = PeerNode(bo.identity, tmp_path / "empty", bo.name, "127.0.0.1", r.host.port,
                         net(), connect=lan.mem.connector("127.0.0.1", r.host.port),
                         rejoin_rematch=lambda game: None)
        r.peers[1], r.tasks[1] = again, again.start()
        await within(r.host.done.wait())
        assert r.host.no_rematch == "Bo declined the rematch"
        await within(asyncio.wait(r.tasks))
        assert again.fatal is not None, again.fatal
        assert again.fatal.startswith(f"no rematch: the host at 127.0.0.1:{r.host.port} "
                                      "offers the rematch of game "), again.fatal
        assert "holds no finished copy of it" in again.fatal and "\n" not in again.fatal
        assert ana.fatal == "Bo declined the rematch"
    finally:
        await r.close()


@virtual_time
async def test_a_joiner_with_no_offer_gives_up_after_rematch_wait(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """The host left after the game (nothing listens): the joiner looks for the offer for
    ``rematch_wait``, then stops with one line."""
    lan = await played(tmp_path)
    try:
        await lan.host.close()
        port = lan.host.port
        waiting = looking_for_rematch(lan, port, net(rematch_wait=7.0))
        start = clock.time()
        task = waiting.start()
        await within(asyncio.wait([task]), 60.0)
        assert 7.0 < clock.time() - start < 7.0 + 2.5  # (then one back-off step)
        assert waiting.fatal == (f"no rematch: the host at 127.0.0.1:{port} did not offer "
                                 "one within 7 s")
        assert waiting.table is None and len(transcripts(tmp_path, 1)) == 1
    finally:
        await lan.close()


class WrongHeaderHost(HostNode):
    """A host whose offer follows the game but whose rematch header does not."""

    change: ClassVar[dict[str, object]] = {}

    def _rematch_table(self, game_id: bytes) -> Table:
        prev = self.rematch_of
        assert prev is not None and self.offer is not None
        rematch = dataclasses.replace(self.offer, **{k: v for k, v in self.change.items()
                                                     if k in ("game", "head", "first_dealer")})
        players = list(prev.header.players)
        if self.change.get("swap"):
            players = [players[0], Player(1, players[2].name, players[2].key),
                       Player(2, players[1].name, players[1].key)]
        from splitnet.games.split.local import game_settings, settings_from_header
        rules, _ = settings_from_header(prev.header.settings)  # the game's own …
        if self.change.get("rounds"):
            rules = dataclasses.replace(rules, rounds=rules.rounds + 1)  # … or not
        from splitnet.game.table import limits_from_header
        return Table.new_host(self.identity, self.data_dir, game_id, players, False,
                              self.seed_maker,
                              header=game_settings(rules, shuffle_proofs=False, rematch=rematch),
                              limits=limits_from_header(prev.header.settings))


@pytest.mark.parametrize(("change", "field"), [
    ({"first_dealer": 0}, "header.settings.rematch.first_dealer: expected seat 1"),
    ({"first_dealer": 2}, "header.settings.rematch.first_dealer: expected seat 1"),
    ({"head": b"\x07" * 32}, "header.settings.rematch.head"),
    ({"game": b"\x07" * 16}, "header.settings.rematch.game"),
    ({"swap": True}, "header.players[1].key"),
    ({"rounds": True}, "header.settings.rules: differs"),
])
@virtual_time
async def test_a_rematch_header_that_does_not_follow_is_refused_naming_the_field(
        tmp_path: Path, clock: VirtualLoop, change: dict[str, object], field: str) -> None:
    host_cls = type("Host", (WrongHeaderHost,), {"change": change})
    r = await Rematching.open(await played(tmp_path), host_cls=host_cls)
    try:
        await within(asyncio.wait(r.tasks))
        for p in r.peers:
            assert p.table is None, "a joiner took a header that does not follow"
            assert p.fatal is not None and field in p.fatal, p.fatal
            assert "\n" not in p.fatal
            assert "does not follow the game we finished" in p.fatal
        for seat in (1, 2):  # nothing of the refused game was saved by the joiners
            assert len(transcripts(tmp_path, seat)) == 1
    finally:
        await r.close()


class WrongOfferHost(HostNode):
    def _offer_frame(self, only=None) -> None:  # type: ignore[no-untyped-def]
        assert self.offer is not None
        self.offer = dataclasses.replace(self.offer, first_dealer=0)
        super()._offer_frame(only)


@virtual_time
async def test_an_offer_that_does_not_follow_is_refused_naming_the_field(
        tmp_path: Path, clock: VirtualLoop) -> None:
    r = await Rematching.open(await played(tmp_path), host_cls=WrongOfferHost)
    try:
        await within(asyncio.wait(r.tasks))
        for p in r.peers:
            assert p.fatal is not None and "rematch.first_dealer: expected seat 1" in p.fatal
            assert "[host seat 0 at fault]" in p.fatal
        assert r.host.agreed == {0}
    finally:
        await r.close()


@virtual_time
async def test_only_the_finished_games_seats_get_into_its_rematch(
        tmp_path: Path, clock: VirtualLoop) -> None:
    lan = await played(tmp_path)
    r = await Rematching.open(lan)
    port = r.host.port
    stranger = PeerNode(Identity.generate(), tmp_path / "x", "Zed", "127.0.0.1", port,
                        net(), connect=lan.mem.connector("127.0.0.1", port))
    try:
        task = stranger.start()
        await within(asyncio.wait([task]))
        assert stranger.fatal is not None and "to its players only" in stranger.fatal
        await within(r.host.started.wait())  # the seats still get in
    finally:
        stranger.task and stranger.task.cancel()
        await r.close()


@virtual_time
async def test_a_joiner_waits_while_the_host_is_still_on_the_finished_game(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """The host's end screen is still up (its finished game's node listens): a joiner
    looking for the rematch does not rejoin that game, it waits for the offer."""
    lan = await played(tmp_path)
    port = lan.host.port
    waiting = looking_for_rematch(lan, port)
    task = waiting.start()
    try:
        await until(lambda: waiting.net_status == "waiting for the host to offer the "
                    "rematch…", "the joiner to wait")
        await clock.advance(10.0)
        assert waiting.table is None and not task.done()
        assert len(transcripts(tmp_path, 1)) == 1
    finally:
        await stop_all(lan, task)


@virtual_time
async def test_a_joiner_whose_attempt_hangs_on_a_stalled_host_still_gets_into_the_rematch(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """The race a loaded machine exposed (a host ``--rematches 1`` and bots with a short
    ``rematch_wait``): after the game the host is stalled — its socket still accepts but
    nothing answers — while Ana, done first, looks for the offer. That one attempt hangs
    until ``handshake_timeout`` (10 s), past her whole ``rematch_wait`` (8 s); she used to
    give up right there ("lost the host … could not get back in for 180 s") though the
    host opened its rematch lobby at 9 s. The bound is on when an attempt starts: an
    attempt that began in time is followed by one more, and she gets in."""
    lan = await played(tmp_path)
    old = lan.host
    prev, port = finished(old.table), old.port
    await old.close()
    stalled = asyncio.Event()

    async def not_running(ch: object) -> None:  # accepted by the kernel, never served
        await stalled.wait()

    listener, _ = await lan.mem.listen(not_running, "127.0.0.1", port)
    bo = lan.peers[1]
    timing = {"rematch_wait": 8.0, "handshake_timeout": 10.0}
    waiting = looking_for_rematch(lan, port, net(**timing))
    task = waiting.start()
    bo_task: asyncio.Task[None] | None = None
    try:
        await clock.advance(9.0)  # her first attempt still hangs; the host comes back
        assert not task.done() and waiting.table is None
        listener.close()
        host = HostNode(old.identity, tmp_path / "p0", old.name, net(**timing), proofs=False,
                        rematch_of=prev)
        await host.listen("127.0.0.1", port, transport=lan.mem.listen)
        lan.host = host
        bo_node = PeerNode(bo.identity, tmp_path / "p2", bo.name, "127.0.0.1", port,
                           net(**timing), rematch_of=finished(bo.table),
                           connect=lan.mem.connector("127.0.0.1", port))
        bo_task = bo_node.start()
        await within(host.started.wait(), 30.0)
        assert waiting.fatal is None and waiting.table is not None
        assert waiting.table.game_id == host.table.game_id  # type: ignore[union-attr]
    finally:
        stalled.set()
        for t in (task, bo_task):
            if t is not None:
                t.cancel()
        await asyncio.gather(*(t for t in (task, bo_task) if t is not None),
                             return_exceptions=True)
        await lan.close()


@virtual_time
async def test_a_joiner_whose_host_stays_on_the_finished_game_gives_up_naming_the_offer(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """The host is still on the finished game (its end screen up) for longer than the
    joiner's ``rematch_wait``: the joiner, never let into a rematch lobby, stops after
    ``rematch_wait`` saying no rematch was offered (NETWORK.md §13 step 2) — not that it
    lost a host it had reached and could not get back in for ``retry_total``."""
    lan = await played(tmp_path)
    port = lan.host.port
    waiting = looking_for_rematch(lan, port, net(rematch_wait=7.0))
    start = clock.time()
    task = waiting.start()
    try:
        await within(asyncio.wait([task]), 60.0)
        assert 7.0 < clock.time() - start < 7.0 + 2.5  # (then one back-off step)
        assert waiting.fatal == (f"no rematch: the host at 127.0.0.1:{port} did not offer "
                                 "one within 7 s (it was still on the game we finished)")
        assert waiting.table is None and len(transcripts(tmp_path, 1)) == 1
    finally:
        await stop_all(lan, task)


@virtual_time
async def test_a_joiner_who_asks_for_the_rematch_waits_for_it_and_plays_it(
        tmp_path: Path, clock: VirtualLoop, monkeypatch: pytest.MonkeyPatch) -> None:
    """``splitnet join``'s glue after its game (``_join_rematches``): the person asked
    for the rematch (n), so the joiner waits for the host's offer, agrees and plays the
    rematch on the same address. (The person's moves are a bot's here: the glue around
    them is what is tested.)"""
    import argparse

    from splitnet.app import lan_join as glue

    monkeypatch.setattr(glue, "_human_session", lambda node, task: NetSession(
        node, task, bot=make_bot("heuristic", 7)))
    ends: list[Table] = []

    async def front(session, plain, data_dir, bell=True, *, rematch=False,  # type: ignore[no-untyped-def]
                    host=False):
        await session.run()
        ends.append(session.table)
        return 0, False  # then the person quits

    monkeypatch.setattr(glue, "_front_end", front)
    lan = await played(tmp_path)
    old = lan.host
    prev = finished(old.table)
    await old.close()
    host = HostNode(old.identity, tmp_path / "p0", old.name, net(), proofs=False,
                    rematch_of=prev)
    lan.host = host
    bo_old = lan.peers[1]
    args = argparse.Namespace(plain=True, no_bell=True)
    joining = asyncio.ensure_future(glue._join_rematches(lan.peers[0], args, tmp_path, None,
                                                         0, True))
    await clock.advance(1.0)  # Ana looks for the offer before the host makes it
    assert not joining.done()
    await host.listen("127.0.0.1", old.port, transport=lan.mem.listen)
    bo = PeerNode(bo_old.identity, tmp_path / "p2", bo_old.name, "127.0.0.1", old.port,
                  net(), rematch_of=finished(bo_old.table),
                  connect=lan.mem.connector("127.0.0.1", old.port))
    bo_task = bo.start()
    try:
        await within(host.started.wait())
        await within(bo.started_evt.wait())
        await play(host, [bo], [bo_task], 40)
        assert await within(joining) == 0
        assert len(ends) == 1 and ends[0].game_id == host.table.game_id  # type: ignore[union-attr]
        assert ends[0].first_dealer == 1 and ends[0].core.finished
        assert transcripts(tmp_path, 1) == transcripts(tmp_path, 0)
    finally:
        joining.cancel()
        bo_task.cancel()
        await asyncio.gather(joining, bo_task, return_exceptions=True)
        await lan.close()


async def test_the_end_screens_n_asks_for_the_rematch_with_the_next_first_dealer(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """The commands' glue: the full-screen end screen is told who would deal first (the
    first dealer's left neighbour, R3.2) and its n becomes a rematch — but not after a
    game that stopped with a verdict."""
    from types import SimpleNamespace

    from splitnet.app import lan_table as lan
    from splitnet.games import FIRST
    from tests.test_tui_table import tui_kwargs

    seen = tui_kwargs(monkeypatch, "rematch")
    core = SimpleNamespace(finished=True, verdict=None)
    log = SimpleNamespace(header=None, head=lambda: b"\0" * 32)
    table = SimpleNamespace(first_dealer=2, n=3, core=core, log=log, spec=FIRST)  # Split's
    session = SimpleNamespace(table=table, node=None)
    assert await lan._front_end(session, False, Path("."), rematch=True) == (0, True)  # type: ignore[arg-type]
    assert seen["rematch"] is True and seen["next_dealer"] == 0  # 2 + 1 mod 3
    assert seen["rematch_as"] == "joiner"  # the end screen's n agrees, it does not offer
    assert await lan._front_end(session, False, Path("."), rematch=True, host=True) == (0, True)  # type: ignore[arg-type]
    assert seen["rematch_as"] == "host"
    core.verdict = "seat 1 at move: …"
    assert await lan._front_end(session, False, Path("."), rematch=True) == (0, False)  # type: ignore[arg-type]
    assert "No rematch after a game that stopped early." in capsys.readouterr().out


# ---------------------------------------------------------------------- real processes
def two_games_each(procs: list[Any]) -> None:
    """Every process of the table exits 0, having printed the results of two games."""
    from tests.test_net_game import TIMEOUT

    for p in procs:
        rc = p.wait(3 * TIMEOUT)
        assert rc == 0, f"{p.label} exited {rc}\n{p.stderr()[-3000:]}"
        assert p.stdout().count("Winner:") == 2, p.stdout()[-3000:]


def end_all(procs: list[Any]) -> None:
    """Stop whatever still runs (a held one is let go first, so it can be killed)."""
    import signal

    for p in procs:
        if p.p.poll() is None:
            p.p.send_signal(signal.SIGCONT)
            p.p.kill()


@pytest.mark.slow
@pytest.mark.parametrize("kill", [False, True], ids=["whole", "bot-killed-in-the-rematch"])
def test_a_lan_table_plays_a_rematch_with_the_same_seats(tmp_path: Path, kill: bool) -> None:
    """On loopback: ``splitnet host --play-as-bot heuristic --seats 3 --rematches 1`` and
    two ``splitnet bot --rematch``. The game is played, the host offers the rematch, both
    bots agree, the second game is played with the same seats and seat 1 dealing first;
    every process exits 0, both transcripts are byte-identical on every seat and
    ``splitnet verify`` checks each and the chain. With ``kill``, Bo is SIGKILLed in the
    middle of the rematch and started again with the same command (without the code): the
    rematch is a normal saved game, so it resumes it."""
    from tests import forked_cli
    from tests.test_net_game import TIMEOUT, Proc, one_round, rematch_table, wait_until

    # the bots' wait for an offer (short: after game 2 none comes). It also covers the
    # host's way from its bye to its rematch lobby, whose bounded waits alone may take
    # 6 s (a 2 s drain of each seat's bye, 2 s for the finished node's handlers) before
    # any work on a loaded machine: 8 s left too little (a bot gave up in game 1's
    # transition), 20 s leaves that work 14 s.
    timing = ["--net-timing", "rematch_wait=20"]
    procs: list[Proc] = []
    try:
        rematch_table(tmp_path, 31, ["--play-as-bot", "heuristic", "--no-proofs",
                                     *one_round(tmp_path)], timing,
                      procs)
        host = procs[0]
        if kill:
            bo = procs[2]

            def in_rematch() -> bool:
                games = sorted((tmp_path / "p2" / "games").glob("*.splitlog"))
                return len(games) == 2 and min(len(transcripts(tmp_path, 2)[g])
                                               for g in transcripts(tmp_path, 2)) >= 30
            wait_until(in_rematch, 2 * TIMEOUT, "the rematch to be under way")
            bo.kill()
            i = bo.args.index("--code")
            bo.args = bo.args[:i] + bo.args[i + 2:]
            bo.start()
        for p in procs:
            rc = p.wait(3 * TIMEOUT)
            assert rc == 0, f"{p.label} exited {rc}\n{p.stderr()[-3000:]}"
            wins = 1 if kill and p is procs[2] else 2  # (the killed run's output is lost)
            assert p.stdout().count("Winner:") >= wins, p.stdout()[-3000:]
        assert "Rematch offered to the same seats (Ana deals first)" in host.stdout()
        for p in procs[1:]:
            assert "no rematch: the host at" in p.stdout(), p.stdout()[-1000:]  # after game 2
        if kill:
            assert "Resuming game" in procs[2].stdout()
    finally:
        for p in procs:
            if p.p.poll() is None:
                p.p.kill()
    games = transcripts(tmp_path, 0)
    assert len(games) == 2
    assert all(transcripts(tmp_path, s) == games for s in (1, 2))
    logs = {}
    for recs in games.values():
        v = verify_records(recs)
        assert v.ok, v.summary
        assert v.record is not None
        logs[v.record["rounds"][0]["dealer"]] = recs
    assert set(logs) == {0, 1}  # the rematch's first deal passed left (R3.2)
    files = {bytes.fromhex(f.stem): f for f in (tmp_path / "p1" / "games").glob("*.splitlog")}
    by_dealer = {d: next(f for g, f in files.items() if games[g] == r) for d, r in logs.items()}
    out = forked_cli.run(["verify", str(by_dealer[0]), str(by_dealer[1])], timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("shuffle fair: yes") == 2
    assert "rematch of the game before: same seats and rules, first dealer Ana (R3.2): ok" \
        in out.stdout
    wrong = forked_cli.run(["verify", str(by_dealer[1]), str(by_dealer[0])], timeout=120)
    assert wrong.returncode == 1
    assert "is not the rematch of" in wrong.stderr
    assert "header.settings.rematch: missing" in wrong.stderr



def test_a_join_run_again_after_its_game_is_over_and_its_host_gone_shows_the_results(
        tmp_path: Path) -> None:
    """Ana's program was killed after the game's last record, run again — it sent its
    final ack, so her data dir marks the game over — and killed once more; her host has
    closed since (nothing listens at its address). The same command again has nothing to
    resume there: it used to try for ``first_contact`` and stop with "cannot reach … —
    is the game still open?" and status 1, though her log holds the whole game. It says
    the game is over, shows its results from that log and exits 0 — without asking for
    a code, and ``splitnet bot`` the same; ``--new`` still looks for a new game there."""
    import socket

    from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat

    from splitnet.durable import create_new
    from splitnet.net.store import GameFiles, saved_games
    from tests.test_net_game import TIMEOUT, game_file
    from tests.test_net_join import PipedProc
    from tests.virtual_time import run_virtual

    data = tmp_path / "p1"

    async def game(clock: object) -> None:
        lan = await played(tmp_path)
        await lan.close()
        # Ana's key into her data dir, as her program keeps it (the game ran in here)
        raw = lan.peers[0].identity._private.private_bytes(
            Encoding.Raw, PrivateFormat.Raw, NoEncryption())
        assert create_new(data / "identity.key", raw)

    run_virtual(game)
    [meta] = [m for m in saved_games(data, "peer", finished=True)]
    closed = socket.socket()  # bound, never listening: a connection to it is refused
    closed.bind(("127.0.0.1", 0))
    try:
        port = closed.getsockname()[1]
        addr = f"127.0.0.1:{port}"
        meta.host, meta.port = addr, port  # (the game was played on the memory network)
        GameFiles(data, meta.gid).save_meta(meta)
        common = ("--data-dir", str(data), "--net-timing", "first_contact=1")
        runs = {
            "join": ("join", addr, "--plain", "--name", "Ana", "--code", "7-lunar-anchor"),
            "join-no-code": ("join", addr, "--plain", "--name", "Ana"),
            "bot": ("bot", addr, "--name", "Ana", "--code", "7-lunar-anchor"),
        }
        for label, args in runs.items():  # (one after another, as a person runs them)
            p = PipedProc(tmp_path, label, "", *args, *common)
            rc = p.wait(TIMEOUT)
            out, err = p.stdout(), p.stderr()
            assert rc == 0, f"{label}: {rc}\n{out}\n{err}"
            assert (f"Nothing answers at {addr} any more, and game {meta.game_id} you "
                    "played there is over; your saved log holds it whole") in out, out
            assert "Winner:" in out and f"transcript: {game_file(data)}" in out, out
            assert "cannot reach" not in out + err and "Join code" not in out, (out, err)
            assert "Traceback" not in err
        new = PipedProc(tmp_path, "new", "", "join", addr, "--plain", "--name", "Ana",
                        "--code", "7-lunar-anchor", "--new", *common)
        assert new.wait(TIMEOUT) == 1
        assert "cannot reach" in new.stdout() + new.stderr()
    finally:
        closed.close()


@pytest.mark.slow
def test_a_bot_that_does_not_stay_for_rematches_ends_the_offer_at_once(
        tmp_path: Path) -> None:
    """On loopback, the reported table: ``splitnet host --play-as-bot … --rematches 1``,
    Ana a ``splitnet bot --rematch``, Bo a plain ``splitnet bot``, which exits after the
    game. Bo tells the host so as the game ends; the host's offer then ends at once,
    "no rematch: Bo left after the game" — not "did not agree within 120 s" two minutes
    later — and Ana, who looks for the offer, stops with that line. Each exits 0."""
    from tests.test_net_game import TIMEOUT, Proc, host_port_and_code, one_round, wait_until

    procs: list[Proc] = []
    try:
        host = Proc(tmp_path, "host", "host", "--play-as-bot", "heuristic", "--no-proofs",
                    *one_round(tmp_path),
                    "--port", "0", "--bind", "127.0.0.1", "--seats", "3", "--rematches", "1",
                    "--no-announce", "--name", "Hosta", "--data-dir", str(tmp_path / "p0"),
                    "--test-seed", "37")
        procs.append(host)
        wait_until(lambda: "listening on port" in host.stdout(), 30, "the host to listen")
        port, code = host_port_and_code(host)
        for i, (name, extra) in enumerate((("Ana", ["--rematch"]), ("Bo", [])), 1):
            procs.append(Proc(tmp_path, f"bot{i}", "bot", f"127.0.0.1:{port}", "--name", name,
                              "--code", code, "--data-dir", str(tmp_path / f"p{i}"),
                              "--test-seed", "37", *extra))
            wait_until(lambda i=i: host.stderr().count("joined the lobby") >= i, 30,
                       f"bot {i} to join")
        for p in procs:
            rc = p.wait(3 * TIMEOUT)
            assert rc == 0, f"{p.label} exited {rc}\n{p.stderr()[-3000:]}"
            assert p.stdout().count("Winner:") == 1, p.stdout()[-3000:]
        line = "no rematch: Bo left after the game"
        assert line in host.stdout(), host.stdout()[-2000:]
        assert line in procs[1].stdout(), procs[1].stdout()[-2000:]
        assert "did not agree" not in host.stdout() + procs[1].stdout()
    finally:
        end_all(procs)


@pytest.mark.slow
def test_a_bot_killed_in_the_rematch_lobby_gets_back_in_with_the_same_command(
        tmp_path: Path) -> None:
    """On loopback (NETWORK.md §13 step 5): Bo (``splitnet bot --rematch``) has agreed in
    the rematch lobby — Ana is held (SIGSTOP) before she could — and is SIGKILLed there,
    then started again with the same command. His game is over, so he joins afresh; the
    host offers him the rematch of the game he finished, and he is back for it (he used
    to be told "the host closed the game" once the lobby gave up on him after 120 s).
    Ana is released, the rematch is played, every process exits 0."""
    import re
    import signal

    from tests.test_net_game import TIMEOUT, Proc, one_round, rematch_table, wait_until

    procs: list[Proc] = []

    def bo_agreed() -> int:
        return len(re.findall(r"Bo \(\S+\) agrees to the rematch", procs[0].stderr()))

    try:
        rematch_table(tmp_path, 35, ["--play-as-bot", "heuristic", "--no-proofs",
                                     *one_round(tmp_path),
                                     "--net-timing", "final_wait=3"],
                      ["--net-timing", "rematch_wait=30"], procs)
        host, ana, bo = procs
        wait_until(lambda: "Winner:" in host.stdout(), 2 * TIMEOUT, "the first game's end")
        ana.p.send_signal(signal.SIGSTOP)
        wait_until(lambda: bo_agreed() == 1, 60, "Bo's yes")
        bo.kill()
        bo.start()  # the same command
        wait_until(lambda: bo_agreed() == 2, 60, "Bo's yes after his restart")
        assert "did not agree" not in host.stdout() + host.stderr()
        ana.p.send_signal(signal.SIGCONT)
        two_games_each(procs)  # (Bo's: one in each run)
        assert "the host closed the game" not in bo.stdout() + bo.stderr()
    finally:
        end_all(procs)
    games = transcripts(tmp_path, 0)
    assert len(games) == 2 and all(transcripts(tmp_path, s) == games for s in (1, 2))
    assert all(verify_records(recs).ok for recs in games.values())


@pytest.mark.slow
def test_a_host_killed_in_its_rematch_lobby_offers_it_again_when_restarted(
        tmp_path: Path) -> None:
    """On loopback (NETWORK.md §9, §13): the host is SIGKILLed in its rematch lobby — Ana
    has agreed, Bo is held (SIGSTOP) before it could — and started again with the same
    command: it does not open a fresh lobby but offers the same rematch again (the same
    game id, code and port, the seats of the finished game); Ana gets back in by herself,
    Bo agrees once released, the rematch is played (Ana deals first, R3.2) and no third
    game follows (``--rematches 1`` goes on counting across the restart)."""
    import json
    import signal

    from tests.test_net_game import (
        TIMEOUT,
        Proc,
        host_port_and_code,
        one_round,
        rematch_table,
        wait_until,
    )

    procs: list[Proc] = []
    try:
        rematch_table(tmp_path, 33, ["--play-as-bot", "heuristic", "--no-proofs",
                                     *one_round(tmp_path),
                                     "--net-timing", "final_wait=3"],
                      ["--net-timing", "rematch_wait=15"], procs)
        host = procs[0]
        port, code = host_port_and_code(host)
        bo = procs[2]
        # the host's result is printed before its rematch lobby exists: Bo cannot agree
        wait_until(lambda: "Winner:" in host.stdout(), 2 * TIMEOUT, "the first game's end")
        bo.p.send_signal(signal.SIGSTOP)
        wait_until(lambda: "Rematch offered to the same seats" in host.stdout()
                   and "agrees to the rematch" in host.stderr(), 60, "Ana's yes")
        [first] = (tmp_path / "p0" / "games").glob("*.splitlog")
        lobbies = [json.loads(m.read_text()) for m in (tmp_path / "p0" / "games").glob("*.meta")]
        [lobby] = [m for m in lobbies if m["lobby"] and not m["finished"]]
        assert lobby["rematch_of"] == first.stem and lobby["code"] == code
        host.kill()
        host.start()  # the same command
        wait_until(lambda: host.stdout().count(f"listening on port {port}") == 2, 30,
                   "the host to listen again on the same port")
        assert "Resuming the rematch lobby of game" in host.stdout()
        bo.p.send_signal(signal.SIGCONT)
        two_games_each(procs)
        assert host.stdout().count("Rematch offered to the same seats (Ana deals first)") == 2
    finally:
        end_all(procs)
    games = transcripts(tmp_path, 0)
    assert len(games) == 2 and all(transcripts(tmp_path, s) == games for s in (1, 2))
    second = next(g for g in games if bytes.fromhex(first.stem) != g)
    assert second.hex() == lobby["game_id"]  # the game id the killed host had offered
    assert chain_problem(games[bytes.fromhex(first.stem)], games[second]) is None
    assert verify_records(games[second]).ok
