"""Splito over the network, in process: a real host and joiners (as ``splitnet host
--game splito`` and ``join`` assemble them) on the in-memory network (tests/memnet.py)
and virtual time (tests/virtual_time.py). protocol/SPLITO_GAME.md "LAN":

- a whole game: the transcripts are identical on every peer and verify;
- S7.3 over the network: the host refuses a reveal before every commitment is in (it
  cannot see a play early: a move carries only its commitment);
- S5.6: with ``turn_timeout_s`` a seat that does not choose has its own program play its
  first card in id order to the left, at exactly that time;
- S5.6: a seat that leaves for good stops the game with one line naming it (no
  open-handed play: a Splito hand is known to no one else).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from splitnet.app.lan_session import LAN_PARTS
from splitnet.app.splito_session import SplitoNetSession, splito_bot
from splitnet.game.local import PROTOCOL
from splitnet.game.splito_core import SplitoCore, Stage, splito_header
from splitnet.net.config import NetSettings
from splitnet.net.host import HostNode
from splitnet.net.peer import PeerNode
from splitnet.net.table import GameChoice
from splitnet.net.wire import WireError
from splitnet.session.identity import Identity
from splitnet.session.transcript import read_transcript
from splitnet.splito.engine import IllegalMove, Phase
from splitnet.splito.settings import SplitoSettings
from splitnet.verify import verify_records
from tests.memnet import MemoryNet
from tests.test_net_timing import stop
from tests.virtual_time import VirtualLoop, virtual_time

D = NetSettings()


def choice(turn_timeout: int | None = None) -> GameChoice:
    def header(n: int) -> dict[str, Any]:
        s = SplitoSettings.standard(n)
        if turn_timeout is not None:
            s = SplitoSettings.from_dict({**s.to_dict(), "turn_timeout_s": turn_timeout})
        return splito_header(s, PROTOCOL)
    return GameChoice("splito", 8, "S2.1", header)


async def splito_table(tmp: Path, clock: VirtualLoop, mem: MemoryNet, *,
                       turn_timeout: int | None = None, net: NetSettings = D
                       ) -> tuple[HostNode, list[PeerNode]]:
    host = HostNode(Identity.generate(), tmp / "host", "Host", net, seats=3,
                    parts=LAN_PARTS, choice=choice(turn_timeout))
    port = await host.listen("127.0.0.1", 0, transport=mem.listen)
    peers = [PeerNode(Identity.generate(), tmp / n, n, "127.0.0.1", port, net,
                      connect=mem.connector("127.0.0.1", port), parts=LAN_PARTS)
             for n in ("Ana", "Bo")]
    for p in peers:
        p.start()
    await clock.until(lambda: all(p.lobby_game == "Splito" for p in peers) or
                      host.started.is_set(), "the joiners to learn the game", within=5.0)
    await clock.run_until(host.started.wait(), within=5.0)
    await clock.until(lambda: all(p.ready for p in peers), "both joiners in sync", within=5.0)
    return host, peers


def transcripts(tmp: Path) -> list[list[bytes]]:
    return [read_transcript(next((tmp / d / "games").glob("*.splitlog")), repair=True)
            for d in ("host", "Ana", "Bo")]


def core(node: HostNode | PeerNode) -> SplitoCore:
    assert node.table is not None and node.table.splito_core is not None
    return node.table.splito_core


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
    assert "Bo …" in h.progress() and "your turn" in bo_s.status
    # a move carries only its commitment: the host knows no face of Ana's hand
    a = core(ana)
    kept = a.plays.chosen(1)
    assert kept is not None and h.engine.faces[kept.slot] is None
    # Ana's reveal before Bo's commitment: refused by the host (S7.3), nothing ordered
    assert ana.table is not None
    early = {"round": 1, "turn": 1, "slot": kept.slot, "card": kept.card,
             "side": kept.side, "nonce": kept.nonce, "share": a._holder_share(kept.slot)}
    counter = ana.table.author.counter
    msg, sig = ana.table.author.message("reveal", early)
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


@virtual_time
async def test_s5_6_a_seat_gone_for_good_stops_the_game_naming_it_never_open_handed(
        tmp_path: Path, clock: VirtualLoop) -> None:
    mem = MemoryNet()
    net = NetSettings()
    net.open_hand_after = 10.0  # a Split host would play Bo open-handed; Splito cannot
    host, (ana, bo) = await splito_table(tmp_path, clock, mem, net=net)
    host_task = asyncio.ensure_future(host.done.wait())
    sessions = [SplitoNetSession(host, host_task, bot=splito_bot("normal", 0)),
                SplitoNetSession(ana, ana.task, bot=splito_bot("normal", 1))]  # type: ignore[arg-type]
    runs = asyncio.ensure_future(asyncio.gather(*(s.run() for s in sessions)))
    bo_s = SplitoNetSession(bo, bo.task, human=True)  # type: ignore[arg-type]
    bo_run = asyncio.ensure_future(bo_s.run())
    h = core(host)
    # Bo leaves for good (its process dies) while the game waits for its commitment
    await clock.until(lambda: h.stage is Stage.PLAY and h.waiting_for() == [2],
                      "the game waits for Bo", within=600.0)
    assert bo.task is not None
    bo.task.cancel()
    bo_run.cancel()
    await clock.run_until(asyncio.wait([bo.task, bo_run]), within=1.0)
    await clock.run_until(runs, within=3600.0)
    assert h.verdict is not None and h.verdict.seat == 2
    line = str(h.verdict)
    assert "\n" not in line and "S5.6" in line and "cannot be replaced" in line
    assert "(seat 2)" in line or "seat 2" in line
    assert not h.open_seats
    kinds = [e.kind for e in host.table.log.entries]  # type: ignore[union-attr]
    assert "abandon" not in kinds and kinds[-1] == "timeout"
    assert h.abandon_refusal(2) is not None and "S5.6" in h.abandon_refusal(2)  # type: ignore[operator]
    for s in sessions:
        assert s.verdict is not None and "S5.6" in s.verdict
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
    """app/lan.py hands a person's SplitoNetSession to ui/splito_plain.py: the same
    front end as a game on this machine, playing over the network to the end. (On the
    real event loop: the front end reads its lines in a worker thread.)"""
    import io
    import time

    from splitnet.ui.splito_plain import run_splito_plain

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
    """app/lan.py hands a person's SplitoNetSession to ui/tui/splito.py as well: the
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

