"""Splito over the network, in process: a real host and joiners (as ``splitnet host
--game splito`` and ``join`` assemble them) on the in-memory network (tests/memnet.py)
and virtual time (tests/virtual_time.py). protocol/SPLITO_GAME.md "LAN":

- a whole game: the transcripts are identical on every peer and verify;
- S7.3 over the network: the host refuses a reveal before every commitment is in (it
  cannot see a play early: a move carries only its commitment);
- S5.6: with ``turn_timeout_s`` a seat that does not choose has its own program play its
  first card in id order to the left, at exactly that time;
- S5.7: with ``--open-hand-after`` a seat gone for good while the game waits for its
  play leaves the rotation and the game ends verified, opening nothing (S12.5); without
  it, the seat is timed out and the game stops with one line naming it (S5.6);
- NETWORK.md §13: the rematch — the same seats, the deal passed left (S4.1), the pair
  verified — and the end screen's n that asks for it.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from splitnet.app.lan_session import LAN_PARTS
from splitnet.game.rematch import PreviousGame, Rematch
from splitnet.game.table import PROTOCOL
from splitnet.games.splito import SPLITO as SPLITO_GAME
from splitnet.games.splito.core import SplitoCore, Stage, splito_header
from splitnet.games.splito.engine import IllegalMove, Phase
from splitnet.games.splito.front.lan import SplitoNetSession, splito_bot
from splitnet.games.splito.settings import SplitoSettings
from splitnet.net.config import NetSettings
from splitnet.net.host import HostNode
from splitnet.net.peer import PeerNode
from splitnet.net.table import GameChoice, TableParts
from splitnet.net.wire import WireError
from splitnet.session.identity import Identity
from splitnet.session.transcript import read_transcript
from splitnet.verify import verify_records
from tests.memnet import MemoryNet
from tests.test_net_timing import stop
from tests.virtual_time import VirtualLoop, virtual_time

D = NetSettings()
#: each peer of a table checks every other seat's hop and verify checks each again: the
#: same proofs, checked in full once per test (tests/conftest.py); what each peer's
#: checker is handed is counted by the checker, not by the proof
pytestmark = pytest.mark.usefixtures("each_shuffle_proof_checked_once")


def choice(turn_timeout: int | None = None) -> GameChoice:
    def header(n: int) -> dict[str, Any]:
        s = SplitoSettings.standard(n)
        if turn_timeout is not None:
            s = SplitoSettings.from_dict({**s.to_dict(), "turn_timeout_s": turn_timeout})
        return splito_header(s, PROTOCOL)
    return GameChoice(SPLITO_GAME, 8, header)


async def splito_table(tmp: Path, clock: VirtualLoop, mem: MemoryNet, *,
                       turn_timeout: int | None = None, net: NetSettings = D,
                       parts: TableParts = LAN_PARTS,
                       host_cls: type[HostNode] = HostNode,
                       names: tuple[str, ...] = ("Ana", "Bo"),
                       ) -> tuple[HostNode, list[PeerNode]]:
    host = host_cls(Identity.generate(), tmp / "host", "Host", net, seats=1 + len(names),
                    parts=parts, choice=choice(turn_timeout))
    port = await host.listen("127.0.0.1", 0, transport=mem.listen)
    peers = [PeerNode(Identity.generate(), tmp / n, n, "127.0.0.1", port, net,
                      connect=mem.connector("127.0.0.1", port), parts=parts)
             for n in names]
    for p in peers:
        p.start()
    await clock.until(lambda: all(p.lobby_game == "Splito" for p in peers) or
                      host.started.is_set(), "the joiners to learn the game", within=5.0)
    await clock.run_until(host.started.wait(), within=5.0)
    await clock.until(lambda: all(p.ready for p in peers), "every joiner in sync", within=5.0)
    return host, peers


def transcripts(tmp: Path) -> list[list[bytes]]:
    return [read_transcript(next((tmp / d / "games").glob("*.splitlog")), repair=True)
            for d in ("host", "Ana", "Bo")]


def core(node: HostNode | PeerNode) -> SplitoCore:
    assert node.table is not None and isinstance(node.table.core, SplitoCore)
    return node.table.core


@virtual_time
async def test_a_splito_game_over_the_network_identical_and_verified_and_no_early_reveal(
        tmp_path: Path, clock: VirtualLoop) -> None:
    mem = MemoryNet()
    host, (ana, bo) = await splito_table(tmp_path, clock, mem)
    assert ana.lobby_game == "Splito" and ana.lobby_max == 8
    host_task = asyncio.ensure_future(host.done.wait())
    # Bo is a person who has not chosen yet: turn 1 waits for Bo's commitment
    bo_s = SplitoNetSession(bo, bo.task, human=True)  # type: ignore[arg-type]
    sessions = [SplitoNetSession(host, host_task, bot=splito_bot("normal", 0)),
                SplitoNetSession(ana, ana.task, bot=splito_bot("easy", 1)),  # type: ignore[arg-type]
                bo_s]
    runs = asyncio.ensure_future(asyncio.gather(*(s.run() for s in sessions)))
    h = core(host)
    await clock.until(lambda: h.stage is Stage.PLAY and h.engine.committed(0)
                      and h.engine.committed(1), "Host and Ana committed", within=60.0)
    assert not h.engine.committed(2) and h.engine.phase is Phase.COMMIT
    assert h.progress() == "turn 1: 2 of 3 committed, waiting for Bo"
    assert bo_s.status.startswith("your play — turn 1: 2 of 3 committed, waiting for you")
    # a move carries only its commitment: the host knows no face of Ana's hand
    a = core(ana)
    kept = a.plays.chosen(1)
    assert kept is not None and h.engine.faces[kept.slot] is None
    # Ana's reveal before Bo's commitment: refused by the host (S7.3), nothing ordered
    assert ana.table is not None
    early = {"round": 1, "turn": 1, "slot": kept.slot, "card": kept.card,
             "side": kept.side, "nonce": kept.nonce, "share": a._holder_share(kept.slot)}
    counter = ana.table.author.counter
    msg, sig = ana.table.author.message("reveal", early, seen=ana.table.log.seen())
    ana.table.author.counter = counter
    before = len(host.table.log)  # type: ignore[union-attr]
    with pytest.raises(WireError, match=r"S7\.3: no play is revealed before every seat has "
                       r"committed \(commitments missing: Bo\)"):
        host.table.check(msg, sig, 1)  # type: ignore[union-attr]
    assert len(host.table.log) == before and h.engine.reveals[1] is None  # type: ignore[union-attr]
    # Bo's play from the person's front end; a second play that turn is refused
    play = bo_s.view.legal_plays(2)[0]
    await bo_s.submit(play)
    with pytest.raises(IllegalMove):
        await bo_s.submit(play)
    # the rest: Bo's person hands over to a bot of the same seat (same session API)
    bo_s.human, bo_s.bot = False, splito_bot("normal", 2)
    bo_s._wake.set()
    await clock.run_until(runs, within=3600.0)
    assert all(s.core.finished and s.core.verdict is None for s in sessions), \
        [s.verdict for s in sessions]
    recs = transcripts(tmp_path)
    assert recs[1] == recs[0] and recs[2] == recs[0]
    v = verify_records(recs[0])
    assert v.ok, v.summary
    assert v.record == h.record
    assert any(line.startswith("Dealt:") for line in bo_s.log)
    assert any(line.startswith("Turn 13 revealed") for line in bo_s.log)
    await stop(clock, host, [ana, bo], mem)


@virtual_time
async def test_s5_6_a_seat_that_does_not_choose_plays_its_first_card_left_at_its_timeout(
        tmp_path: Path, clock: VirtualLoop) -> None:
    mem = MemoryNet()
    host, (ana, bo) = await splito_table(tmp_path, clock, mem, turn_timeout=30)
    host_task = asyncio.ensure_future(host.done.wait())
    bo_s = SplitoNetSession(bo, bo.task, human=True)  # type: ignore[arg-type]
    sessions = [SplitoNetSession(host, host_task, bot=splito_bot("normal", 0)),
                SplitoNetSession(ana, ana.task, bot=splito_bot("normal", 1)),  # type: ignore[arg-type]
                bo_s]
    runs = asyncio.ensure_future(asyncio.gather(*(s.run() for s in sessions)))
    b = core(bo)
    opened = await clock.until(lambda: b.stage is Stage.PLAY and b.can_move(),
                               "Bo's first turn", within=60.0)
    expected = b.engine.timeout_play(2)
    card = b.engine.face(expected.slot)
    at = await clock.until(lambda: b.plays.chosen(1) is not None, "Bo's play", within=60.0)
    assert at - opened == pytest.approx(30.0, abs=0.05)  # exactly turn_timeout_s later
    kept = b.plays.chosen(1)
    assert kept is not None and (kept.slot, kept.side, kept.card) == (expected.slot, "left",
                                                                      card)
    assert any("Time is up (S5.6, 30 s)" in line for line in bo_s.log)
    await clock.run_until(runs, within=3600.0)  # every turn of Bo's goes the same way
    assert all(s.core.finished and s.core.verdict is None for s in sessions)
    recs = transcripts(tmp_path)
    assert recs[1] == recs[0] and recs[2] == recs[0]
    assert verify_records(recs[0]).ok
    await stop(clock, host, [ana, bo], mem)


async def bo_leaves_at_its_first_turn(
        tmp: Path, clock: VirtualLoop, mem: MemoryNet, net: NetSettings = D
) -> tuple[HostNode, PeerNode, PeerNode, list[SplitoNetSession], float]:
    """The host and Ana played by bots; Bo's process dies for good while the game waits
    for its first commitment. Returns once every session left has ended: the host, Ana,
    Bo, the sessions (host's, Ana's) and the virtual time Bo left at."""
    host, (ana, bo) = await splito_table(tmp, clock, mem, net=net)
    host_task = asyncio.ensure_future(host.done.wait())
    sessions = [SplitoNetSession(host, host_task, bot=splito_bot("normal", 0)),
                SplitoNetSession(ana, ana.task, bot=splito_bot("normal", 1))]  # type: ignore[arg-type]
    runs = asyncio.ensure_future(asyncio.gather(*(s.run() for s in sessions)))
    bo_s = SplitoNetSession(bo, bo.task, human=True)  # type: ignore[arg-type]
    bo_run = asyncio.ensure_future(bo_s.run())
    h = core(host)
    await clock.until(lambda: h.stage is Stage.PLAY and h.waiting_for() == [2],
                      "the game waits for Bo", within=600.0)
    left_at = clock.time()
    assert bo.task is not None
    bo.task.cancel()
    bo_run.cancel()
    await clock.run_until(asyncio.wait([bo.task, bo_run]), within=1.0)
    await clock.run_until(runs, within=3600.0)
    return host, ana, bo, sessions, left_at


@virtual_time
async def test_s5_7_a_seat_gone_for_good_leaves_the_rotation_and_the_game_ends_verified(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """A Splito host with ``--open-hand-after`` gives a seat gone for good up while the
    game waits for its play (S5.7): every peer applies the ``abandon``, the game plays on
    with the two seats left to a verified end that opens nothing (S12.5), the joiner is
    told who left, and nobody waits for the gone seat's final ack."""
    mem = MemoryNet()
    net = NetSettings()
    net.open_hand_after = 30.0
    host, ana, bo, sessions, waiting_since = await bo_leaves_at_its_first_turn(
        tmp_path, clock, mem, net)
    ana_s, h = sessions[1], core(host)
    assert h.verdict is None and h.finished and h.engine.gone == {2: 1}
    assert h.open_seats == {2} and h.abandonments[0][1] == 2
    assert h.abandonments[0][2] >= 30
    kinds = [e.kind for e in host.table.log.entries]  # type: ignore[union-attr]
    assert kinds.count("abandon") == 1 and "open" not in kinds and "timeout" not in kinds
    gone_at = next(e for e in host.table.log.entries if e.kind == "abandon")  # type: ignore[union-attr]
    assert gone_at.body["waited"] >= 30 and clock.time() - waiting_since >= 30
    for s in sessions:
        assert s.core.finished and s.core.verdict is None
        assert s.verdict is not None and s.verdict.startswith("Checked (S12.5)")
    assert any("Bo was given up by the host as gone for good after" in line
               and "(S5.7)" in line for line in ana_s.log), ana_s.log[-5:]
    assert any(line.startswith("Checked (S12.5)") for line in ana_s.log)
    recs = transcripts(tmp_path)
    assert recs[1] == recs[0]  # the host's and Ana's
    v = verify_records(recs[0])
    assert v.ok, v.summary
    assert "Bo left the game, given up by the host after" in v.summary
    assert v.record == h.record and v.record is not None and v.record["gone"] == [
        {"seat": 2, "turn": 1}]
    await stop(clock, host, [ana, bo], mem)


@virtual_time
async def test_s5_6_a_seat_gone_when_it_may_not_leave_stops_the_game_naming_it(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """A host without ``--open-hand-after`` does not give a Splito seat up: the seat gone
    for good is timed out and the game stops with one line naming it (S5.6)."""
    mem = MemoryNet()
    host, ana, bo, sessions, _ = await bo_leaves_at_its_first_turn(tmp_path, clock, mem)
    h = core(host)
    assert h.verdict is not None and h.verdict.seat == 2
    line = str(h.verdict)
    assert "\n" not in line and "S5.6" in line and "seat 2" in line
    assert not h.open_seats and not h.engine.gone
    kinds = [e.kind for e in host.table.log.entries]  # type: ignore[union-attr]
    assert "abandon" not in kinds and kinds[-1] == "timeout"
    for s in sessions:
        assert s.verdict is not None and "S5.6" in s.verdict
    await stop(clock, host, [ana, bo], mem)


class EagerSplitoHost(HostNode):
    """Gives Bo's seat up (S5.7) at the first beat the game waits for Bo's move, saying it
    waited 999 s; with ``drop``, first drops the move Bo sends."""

    drop = False
    dropped = False
    given_up = False

    def _on_msg(self, conn: Any, msg: bytes, sig: bytes) -> None:
        from splitnet.session.log import parse_message

        if self.drop and conn.seat == 2 and parse_message(msg).kind == "move":
            self.dropped = True
            return
        super()._on_msg(conn, msg, sig)

    def _check_timeouts(self) -> None:
        table = self.table
        if (table is None or self.given_up or not table.started or table.core.finished
                or (self.drop and not self.dropped)):
            return
        if 2 not in table.core.waiting_for() or table.core.abandon_refusal(2) is not None:
            return
        self.given_up = True
        self.send_game("abandon", {"round": 1, "seat": 2, "waited": 999})


@pytest.mark.parametrize("drop", [False, True])
@virtual_time
async def test_s5_7_a_present_seat_given_up_early_names_the_host_on_every_peer_that_saw_it(
        tmp_path: Path, clock: VirtualLoop, drop: bool) -> None:
    """SECURITY.md rows 93, 96 for Splito's ``abandon``: a host that gives Bo up at once
    (saying 999 s, where the header agrees 30 s) is refused by every peer that watched the
    wait on its own clock, naming the host; a host that first drops Bo's move and then
    gives Bo up is named by Bo at that entry ("it never ordered the message we sent"). The
    entry is the host's signed word, valid on its face, so the transcripts end there."""
    mem = MemoryNet()
    host, (ana, bo) = await splito_table(tmp_path, clock, mem, host_cls=EagerSplitoHost)
    assert isinstance(host, EagerSplitoHost)
    host.drop = drop
    sessions = []
    if drop:  # Bo plays (the host drops its move); Ana does not, so the turn waits
        sessions.append(asyncio.ensure_future(
            SplitoNetSession(bo, bo.task, bot=splito_bot("normal", 2)).run()))  # type: ignore[arg-type]
    watchers = [bo] if drop else [ana, bo]
    for p in watchers:
        assert p.task is not None
        await clock.run_until(asyncio.wait([p.task]), within=600.0)
        why = p.fatal
        assert why is not None and "host seat 0 at fault" in why, why
        assert ("never ordered the message we sent" in why if p is bo and drop
                else "saw the game wait for" in why and "the header agrees 30 s" in why), why
    assert host.given_up
    for t in sessions:
        t.cancel()
    await stop(clock, host, [ana, bo], mem)


async def stop_quietly(host: HostNode, peers: list[PeerNode], mem: MemoryNet) -> None:
    """Close a table on the real event loop (:func:`stop` is for virtual time)."""
    await host.close()
    for p in peers:
        if p.task is not None:
            p.task.cancel()
    await mem.close()


async def person_and_two_bots(tmp: Path, mem: MemoryNet
                             ) -> tuple[HostNode, list[PeerNode], list[SplitoNetSession],
                                        SplitoNetSession]:
    """On the real event loop: a host and Ana played by bots, Bo by a person (their
    sessions), all in the started game."""
    host = HostNode(Identity.generate(), tmp / "host", "Host", D, seats=3,
                    parts=LAN_PARTS, choice=choice())
    port = await host.listen("127.0.0.1", 0, transport=mem.listen)
    peers = [PeerNode(Identity.generate(), tmp / n, n, "127.0.0.1", port, D,
                      connect=mem.connector("127.0.0.1", port), parts=LAN_PARTS)
             for n in ("Ana", "Bo")]
    for p in peers:
        p.start()
    await asyncio.wait_for(host.started.wait(), 60)
    for _ in range(6000):
        if all(p.ready for p in peers):
            break
        await asyncio.sleep(0.01)
    assert all(p.ready for p in peers), "both joiners in sync"
    ana, bo = peers
    host_task = asyncio.ensure_future(host.done.wait())
    bots = [SplitoNetSession(host, host_task, bot=splito_bot("normal", 0)),
            SplitoNetSession(ana, ana.task, bot=splito_bot("normal", 1))]  # type: ignore[arg-type]
    return host, peers, bots, SplitoNetSession(bo, bo.task, human=True)  # type: ignore[arg-type]


def test_a_person_plays_a_lan_splito_game_by_lines_with_the_plain_front_end(
        tmp_path: Path) -> None:
    """app/lan_table.py hands a person's SplitoNetSession to games/splito/front/plain.py: the same
    front end as a game on this machine, playing over the network to the end. (On the
    real event loop: the front end reads its lines in a worker thread.)"""
    import io
    import time

    from splitnet.games.splito.front.plain import run_splito_plain

    async def main() -> tuple[int, str, SplitoNetSession, HostNode, list[PeerNode]]:
        mem = MemoryNet()
        loop = asyncio.get_running_loop()
        host, peers, bots, bo_s = await person_and_two_bots(tmp_path, mem)
        out = io.StringIO()

        class Person(io.StringIO):
            """Types a play when the table asks for one (bounded: 300 s in all)."""

            typed = 0

            def readline(self, size: int | None = -1) -> str:  # type: ignore[override]
                for _ in range(30_000):
                    if loop.is_closed():
                        return ""
                    if bo_s._my_turn() or bo_s.finished:
                        break
                    time.sleep(0.01)
                else:
                    return ""
                if bo_s.finished:
                    return ""
                self.typed += 1
                return "Z left\n" if self.typed == 1 else ("A left\n" if self.typed % 2
                                                            else "B r\n")

        results = await asyncio.wait_for(asyncio.gather(
            *(s.run() for s in bots), run_splito_plain(bo_s, inp=Person(), out=out)), 600)
        await stop_quietly(host, peers, mem)
        return results[-1], out.getvalue(), bo_s, host, peers

    rc, text, bo_s, _, _ = asyncio.run(main())
    assert rc == 0, text[-2000:]
    assert "'Z' is not a card of your hand" in text
    assert text.count("Your play for turn ") == 13 and "Winner:" in text
    assert bo_s.core.finished and bo_s.core.verdict is None
    recs = transcripts(tmp_path)
    assert recs[1] == recs[0] and recs[2] == recs[0] and verify_records(recs[0]).ok


async def test_a_person_plays_a_lan_splito_game_by_keys_on_the_full_screen_table(
        tmp_path: Path) -> None:
    """app/lan_table.py hands a person's SplitoNetSession to games/splito/front/tui.py as well: the
    full-screen table of a game on this machine, by keys, over the network to the end
    (real event loop, in-memory network); the bell rings at each of the 13 turns."""
    from tests.test_splito_tui import BellOutput, running
    from tests.test_tui_support import drained, wait_for

    mem = MemoryNet()
    host, peers, bots, session = await person_and_two_bots(tmp_path, mem)
    bot_runs = asyncio.gather(*(s.run() for s in bots))
    out = BellOutput()
    try:
        async with running(session, out, bell=True) as (app, inp):
            for _ in range(13):
                assert await wait_for(lambda: app.model.my_play() or session.finished, 60)
                if session.finished:
                    break
                turn = session.view.turn
                inp.send_text("A")
                inp.send_text("\x1b[C")  # →
                await wait_for(lambda: drained(inp))
                await asyncio.sleep(0.05)
                assert app.model.side == "right" and app.model.selected is not None
                inp.send_text("\r")
                assert await wait_for(lambda t=turn: session.view.turn != t or
                                      session.view.over, 60)
            assert await wait_for(lambda: session.finished, 60)
            assert await wait_for(lambda: app.model.overlay == "end", 5)
            inp.send_text("q")
            assert await wait_for(lambda: not app.app.is_running, 5)
        await asyncio.wait_for(bot_runs, 60)
    finally:
        await stop_quietly(host, peers, mem)
    assert out.bells == 13
    assert session.core.finished and session.core.verdict is None
    recs = transcripts(tmp_path)
    assert recs[1] == recs[0] and recs[2] == recs[0] and verify_records(recs[0]).ok



# ---------------------------------------------------------------------- a rematch (§13)
def previous(node: HostNode | PeerNode) -> PreviousGame:
    assert node.table is not None and node.table.core.finished
    return PreviousGame(node.table.log.header, node.table.log.head())


def splitlogs(tmp: Path, who: str) -> dict[bytes, list[bytes]]:
    return {bytes.fromhex(f.stem): read_transcript(f, repair=True)
            for f in sorted((tmp / who / "games").glob("*.splitlog"))}


async def rematch_lobby(clock: VirtualLoop, tmp: Path, mem: MemoryNet, host: HostNode,
                        peers: list[PeerNode]) -> tuple[PreviousGame, HostNode,
                                                        list[PeerNode]]:
    """NETWORK.md §13 on the in-memory LAN, whatever the game: the finished game's host
    node closes, its rematch lobby listens on the same port, and each joiner's rematch
    node comes back to it; once every seat agreed the rematch starts. Returns the game
    before, the rematch's host and its joiners, all in sync."""
    await clock.run_until(host.done.wait(), within=60.0)
    first = previous(host)
    port = host.port
    await host.close()
    again = HostNode(host.identity, tmp / "host", "Host", D, rematch_of=first,
                     parts=LAN_PARTS)
    await again.listen("127.0.0.1", port, transport=mem.listen)
    joiners = [PeerNode(p.identity, tmp / p.name, p.name, "127.0.0.1", port, D,
                        rematch_of=previous(p), connect=mem.connector("127.0.0.1", port),
                        parts=LAN_PARTS) for p in peers]
    for p in peers:
        assert p.task is not None
        p.task.cancel()
    for p in joiners:
        p.start()
    await clock.run_until(again.started.wait(), within=60.0)
    await clock.until(lambda: all(p.ready for p in joiners), "both joiners in sync",
                      within=10.0)
    return first, again, joiners


@virtual_time
async def test_a_splito_rematch_keeps_the_seats_passes_the_deal_left_and_verifies_as_a_pair(
        tmp_path: Path, clock: VirtualLoop, capsys: pytest.CaptureFixture[str]) -> None:
    """NETWORK.md §13 for Splito: after a whole game the host offers the rematch at the
    same address (no join code again), both joiners' bots agree by themselves, and the
    next game has the same seats (names, keys, order) and rules but the dealer, which
    passes left (S4.1 [decision]: rules.dealer 1 = rematch.first_dealer, so seat 2 is
    dealt the first card, S4.3); both games are byte-identical on every seat, each
    verifies, and ``splitnet verify FIRST SECOND`` checks the pair (not the other way)."""
    from splitnet.verify import chain_problem, run_verify

    mem = MemoryNet()
    host, peers = await splito_table(tmp_path, clock, mem)
    host_task = asyncio.ensure_future(host.done.wait())
    sessions = [SplitoNetSession(host, host_task, bot=splito_bot("normal", 0))] + [
        SplitoNetSession(p, p.task, bot=splito_bot("easy", i + 1))  # type: ignore[arg-type]
        for i, p in enumerate(peers)]
    await clock.run_until(asyncio.gather(*(s.run() for s in sessions)), within=3600.0)
    # the host's finished node closes; the rematch lobby listens on the same port
    first, again, joiners = await rematch_lobby(clock, tmp_path, mem, host, peers)
    assert first.header.settings["rules"]["dealer"] == 0 and "rematch" not in first.header.settings
    assert again.agreed == {0, 1, 2} and again.lobby.max_players == 8  # Splito's S2.1
    assert all(p.lobby_game == "Splito" for p in joiners)
    for p in joiners:
        assert p.offer == Rematch(first.game_id, first.head, 1)
    table = again.table
    assert table is not None and isinstance(table.core, SplitoCore)
    h = table.log.header
    assert h.game_id != first.game_id and h.players == first.header.players  # seats kept
    assert h.settings["rematch"] == {"game": first.game_id, "head": first.head,
                                     "first_dealer": 1}
    assert {k: v for k, v in h.settings["rules"].items() if k != "dealer"} == {
        k: v for k, v in first.header.settings["rules"].items() if k != "dealer"}
    for t in [table] + [p.table for p in joiners]:
        assert t is not None and t.first_dealer == 1
        assert isinstance(t.core, SplitoCore) and t.core.dealt_holder(0) == 2  # S4.3
    task2 = asyncio.ensure_future(again.done.wait())
    sessions = [SplitoNetSession(again, task2, bot=splito_bot("normal", 10))] + [
        SplitoNetSession(p, p.task, bot=splito_bot("normal", 11 + i))  # type: ignore[arg-type]
        for i, p in enumerate(joiners)]
    await clock.run_until(asyncio.gather(*(s.run() for s in sessions)), within=3600.0)
    assert all(s.core.finished and s.core.verdict is None for s in sessions), \
        [s.verdict for s in sessions]
    second = previous(again)
    games = splitlogs(tmp_path, "host")
    assert set(games) == {first.game_id, second.game_id}
    for who in ("Ana", "Bo"):
        assert splitlogs(tmp_path, who) == games  # byte-identical on every seat
    v1, v2 = verify_records(games[first.game_id]), verify_records(games[second.game_id])
    assert v1.ok and v2.ok, (v1.summary, v2.summary)
    assert v1.record is not None and v2.record is not None
    assert v1.record["settings"]["dealer"] == 0 and v2.record["settings"]["dealer"] == 1
    assert f"rematch of game {first.game_id.hex()}: Ana dealt (S4.1)" in v2.summary
    assert chain_problem(games[first.game_id], games[second.game_id]) is None
    why = chain_problem(games[second.game_id], games[first.game_id])
    assert why is not None and "header.settings.rematch: missing" in why
    files = {g: tmp_path / "Ana" / "games" / f"{g.hex()}.splitlog" for g in games}
    capsys.readouterr()
    assert run_verify([files[first.game_id], files[second.game_id]]) == 0
    out = capsys.readouterr().out
    assert out.count("shuffle fair: yes") == 2
    assert "rematch of the game before: same seats and rules, first dealer Ana (S4.1): ok" \
        in out
    assert run_verify([files[second.game_id], files[first.game_id]]) == 1
    assert "is not the rematch of" in capsys.readouterr().err
    await stop(clock, again, joiners, mem)


async def test_the_splito_end_screens_n_offers_or_agrees_to_the_rematch(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The commands' glue (app/lan_table.py): a Splito table's full-screen end screen is told
    who presses n — the host offers, a joiner agrees — and who deals the rematch (the
    dealer's left neighbour, S4.1); its n becomes the rematch, q does not."""
    from types import SimpleNamespace

    import splitnet.games.splito.front.tui as tui
    from splitnet.app import lan_table as lan
    from splitnet.session.log import Header, Player

    seen: dict[str, object] = {}
    answer = ["rematch"]

    async def fake_run(session: object, **kw: object) -> str:
        seen.update(kw)
        return answer[0]

    monkeypatch.setattr(tui, "run_splito_tui", fake_run)
    monkeypatch.setattr(lan, "_print_result", lambda session, rejoin=None: 0)
    players = tuple(Player(i, n, bytes([i + 1]) * 32) for i, n in enumerate(["Hosta", "Ana",
                                                                            "Bo"]))
    rules = {**SplitoSettings.standard(3).to_dict(), "dealer": 2}
    header = Header(b"\x01" * 16, 0, players, splito_header(SplitoSettings.from_dict(rules),
                                                            PROTOCOL))
    table = SimpleNamespace(names=[p.name for p in players],
                            log=SimpleNamespace(header=header))
    session = SimpleNamespace(table=table)
    assert await lan._splito_front_end(session, False, False, rematch="host") == (0, True)  # type: ignore[arg-type]
    assert seen["rematch"] == "host" and seen["next_dealer"] == 0  # Hosta: 2 + 1 mod 3
    assert await lan._splito_front_end(session, False, False, rematch="joiner") == (0, True)  # type: ignore[arg-type]
    assert seen["rematch"] == "joiner"
    answer[0] = "quit"
    assert await lan._splito_front_end(session, False, False, rematch="joiner") == (0, False)  # type: ignore[arg-type]
    seen.clear()
    assert await lan._splito_front_end(session, False, False) == (0, False)  # type: ignore[arg-type]
    assert "rematch" not in seen  # no rematch offered: no n


@virtual_time
async def test_a_lan_splito_peer_checks_every_other_hop_through_the_commands_checker(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """A LAN Splito table takes the checker the command set up (``host``/``join``/``bot``:
    a ProofPool, SECURITY.md §2.1, in its TableParts), and each peer, on its own machine,
    checks every other seat's hop of both chains itself: 3 peers × 4 hops not their own."""
    from dataclasses import replace

    from splitnet.game.checks import InlineChecker

    checker = InlineChecker()
    mem = MemoryNet()
    host, peers = await splito_table(tmp_path, clock, mem,
                                     parts=replace(LAN_PARTS, checker=checker))
    host_task = asyncio.ensure_future(host.done.wait())
    sessions = [SplitoNetSession(host, host_task, bot=splito_bot("easy", 0)),
                *(SplitoNetSession(p, p.task, bot=splito_bot("easy", 1 + i))  # type: ignore[arg-type]
                  for i, p in enumerate(peers))]
    runs = asyncio.ensure_future(asyncio.gather(*(s.run() for s in sessions)))
    dealt = (Stage.PLAY, Stage.PASS, Stage.OPEN, Stage.DONE)
    await clock.until(lambda: all(core(n).stage in dealt for n in (host, *peers)),
                      "every seat dealt", within=60.0)
    assert all(core(n).checker is checker for n in (host, *peers))
    assert checker.checked == 3 * 4
    runs.cancel()
    await asyncio.gather(runs, return_exceptions=True)
    await stop(clock, host, peers, mem)


def test_every_lan_command_gives_its_tables_its_own_proof_pool() -> None:
    """``host``, ``join`` and ``bot`` run under ``lan._run``, which makes the command's
    worker pool and hands it down in the tables' parts (no module global to set)."""
    import argparse

    from splitnet.app import lan
    from splitnet.game.pool import ProofPool

    seen: list[TableParts] = []

    async def main(args: argparse.Namespace, parts: TableParts) -> int:
        seen.append(parts)
        return 0

    assert lan._run(main, argparse.Namespace()) == 0
    [parts] = seen
    assert isinstance(parts.checker, ProofPool)
    assert parts.narrator == LAN_PARTS.narrator


@virtual_time
async def test_s5_7_the_hosts_table_offers_to_give_a_disconnected_seat_up_and_o_twice_does(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """The host's person, without ``--open-hand-after``: once the game has waited 30 s for
    Bo, disconnected, the host's session offers Bo's seat (S5.7) and its full-screen
    table says so; o once asks, o again gives Bo up; the game goes on to a verified end.
    A joiner's session never offers anything."""
    from splitnet.games.splito.front.tui_model import GiveUp, SplitoModel

    mem = MemoryNet()
    host, (ana, bo) = await splito_table(tmp_path, clock, mem)
    host_task = asyncio.ensure_future(host.done.wait())
    host_s = SplitoNetSession(host, host_task, bot=splito_bot("normal", 0))
    ana_s = SplitoNetSession(ana, ana.task, bot=splito_bot("normal", 1))  # type: ignore[arg-type]
    runs = asyncio.ensure_future(asyncio.gather(host_s.run(), ana_s.run()))
    bo_s = SplitoNetSession(bo, bo.task, human=True)  # type: ignore[arg-type]
    bo_run = asyncio.ensure_future(bo_s.run())
    h = core(host)
    await clock.until(lambda: h.stage is Stage.PLAY and h.waiting_for() == [2],
                      "the game waits for Bo", within=600.0)
    assert bo.task is not None
    bo.task.cancel()
    bo_run.cancel()
    await clock.run_until(asyncio.wait([bo.task, bo_run]), within=1.0)
    assert host_s.open_hand_offer() is None  # not yet: 30 s first
    await clock.until(lambda: host_s.open_hand_offer() is not None, "the host's offer",
                      within=120.0)
    offer = host_s.open_hand_offer()
    assert offer is not None and offer[0] == 2 and offer[1] >= 30
    assert ana_s.open_hand_offer() is None
    m = SplitoModel(host_s, mono=True)
    text = m.offer_text()
    assert text is not None and "Bo has been disconnected for" in text and "o gives Bo up" in text
    assert m.press("o") is None and m.confirm_open == 2
    confirm = m.offer_text()
    assert confirm is not None and confirm.startswith("Give Bo up for gone?")
    outcome = m.press("o")
    assert outcome == GiveUp(2)
    await host_s.abandon(2)
    await clock.run_until(runs, within=3600.0)
    assert h.verdict is None and h.finished and h.engine.gone == {2: 1}
    v = verify_records(transcripts(tmp_path)[0])
    assert v.ok and "Bo left the game" in v.summary, v.summary
    with pytest.raises(IllegalMove, match=r"S5\.7: Bo's seat is not to be given up now"):
        await host_s.abandon(2)
    await stop(clock, host, [ana, bo], mem)


@virtual_time
async def test_s5_7_a_seat_back_after_it_was_given_up_watches_to_the_end_sending_nothing(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """S5.7: Bo, given up as gone, starts again from its files while the game goes on: it
    gets the log, sends no move, reveal or pass any more (it left), its screen says it
    left, and it ends with the same transcript, verified."""
    from splitnet.net.store import GameFiles

    mem = MemoryNet()
    net = NetSettings()
    net.open_hand_after = 30.0
    host, (ana, bo) = await splito_table(tmp_path, clock, mem, net=net)
    host_task = asyncio.ensure_future(host.done.wait())
    ana_s = SplitoNetSession(ana, ana.task, human=True)  # type: ignore[arg-type]
    sessions = [SplitoNetSession(host, host_task, bot=splito_bot("normal", 0)), ana_s]
    runs = asyncio.ensure_future(asyncio.gather(*(s.run() for s in sessions)))
    bo_s = SplitoNetSession(bo, bo.task, human=True)  # type: ignore[arg-type]
    bo_run = asyncio.ensure_future(bo_s.run())
    h = core(host)
    await clock.until(lambda: h.stage is Stage.PLAY and set(h.waiting_for()) == {1, 2},
                      "the game waits for Ana and Bo", within=600.0)
    assert bo.task is not None and bo.table is not None
    bo.task.cancel()
    bo_run.cancel()
    await clock.run_until(asyncio.wait([bo.task, bo_run]), within=1.0)
    # Ana is there (her person thinks): the host gives Bo up, not her
    await clock.until(lambda: bool(h.engine.gone), "Bo given up", within=120.0)
    assert h.engine.gone == {2: 1}
    meta = GameFiles(tmp_path / "Bo", bo.table.game_id).load_meta()
    bo2 = PeerNode(bo.identity, tmp_path / "Bo", "Bo", "127.0.0.1", bo.port, net,
                   resume=meta, connect=mem.connector("127.0.0.1", bo.port),
                   parts=LAN_PARTS)
    t2 = bo2.start()
    await clock.until(lambda: bo2.ready, "Bo back in sync", within=60.0)
    bo2_s = SplitoNetSession(bo2, t2, bot=splito_bot("normal", 2))
    assert any("You were given up as gone for good and left the game at turn 1 (S5.7)"
               in line for line in bo2_s.log), bo2_s.log
    bo2_run = asyncio.ensure_future(bo2_s.run())
    ana_s.human, ana_s.bot = False, splito_bot("normal", 1)
    ana_s._wake.set()
    await clock.run_until(asyncio.gather(runs, bo2_run), within=3600.0)
    assert h.verdict is None and h.finished
    b2 = core(bo2)
    assert b2.finished and b2.verdict is None and b2.record == h.record
    assert not any(e.author == 2 and e.kind in ("move", "reveal", "pass")
                   for e in host.table.log.entries[-200:]  # type: ignore[union-attr]
                   if e.seq > next(x.seq for x in host.table.log.entries  # type: ignore[union-attr]
                                   if x.kind == "abandon"))
    recs = transcripts(tmp_path)
    assert recs[2] == recs[0]
    assert verify_records(recs[0]).ok
    await stop(clock, host, [ana, bo2], mem)


@virtual_time
async def test_an_eight_seat_splito_game_over_the_network_is_identical_and_verified(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """The most seats Splito has (S2.1), every bot level among them, over the network:
    every seat's transcript the same bytes, verified, the seats in their order (the
    whole path with real processes: tests/test_net_splito.py, at four seats)."""
    names = tuple(f"B{i}" for i in range(1, 8))
    mem = MemoryNet()
    host, peers = await splito_table(tmp_path, clock, mem, names=names)
    assert all(p.lobby_max == 8 for p in peers)
    host_task = asyncio.ensure_future(host.done.wait())
    levels = ["strong", "easy", "normal"]
    sessions = [SplitoNetSession(host, host_task, bot=splito_bot("normal", 0)),
                *(SplitoNetSession(p, p.task, bot=splito_bot(levels[i % 3], i))  # type: ignore[arg-type]
                  for i, p in enumerate(peers, 1))]
    await clock.run_until(asyncio.gather(*(s.run() for s in sessions)), within=3600.0)
    assert all(s.core.finished and s.core.verdict is None for s in sessions), \
        [s.verdict for s in sessions]
    recs = [read_transcript(next((tmp_path / d / "games").glob("*.splitlog")), repair=True)
            for d in ("host", *names)]
    assert all(r == recs[0] for r in recs[1:]), "transcripts differ"
    v = verify_records(recs[0])
    assert v.ok, v.summary
    assert v.record is not None and v.record["format"] == "splito-record/1"
    assert [s["name"] for s in v.record["seats"]] == ["Host", *names]
    await stop(clock, host, peers, mem)
