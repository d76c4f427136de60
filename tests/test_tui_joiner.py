"""The full-screen table over a LAN joiner's session (splitnet/app/lan_session.py): a
joiner's move reaches its own view only when the host's log brings it back, so what the
table does after a move must not depend on the move being in the view already. On
virtual time over the in-memory network (tests/virtual_time.py, tests/memnet.py)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from splitnet.app.lan_session import LAN_PARTS, NetSession
from splitnet.frontend import HumanAgent
from splitnet.games.split.bots import make_bot
from splitnet.games.split.rules import Action, TakeRow
from splitnet.net.host import HostNode
from splitnet.session.identity import Identity
from splitnet.ui.tui import TuiApp
from splitnet.ui.tui.model import TableModel
from splitnet.ui.tui.snapshot import screen_text
from tests.memnet import Link, MemoryNet
from tests.test_net_timing import D, crash, joiner, stop
from tests.virtual_time import VirtualLoop, virtual_time


@virtual_time
async def test_a_joiners_t_selects_the_card_taken_as_the_hosts_and_the_local_tables_do(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """After t the card taken from the row is selected, to be played first (R4.1b). The
    table selected the view's ``picked`` card as soon as the move was accepted — on a
    joiner the move was only sent then, so nothing was selected; now the selection
    follows when the host's log brings the move back."""
    mem = MemoryNet()
    host = HostNode(Identity.generate(), tmp_path / "host", "Hana", D, seats=2, proofs=False,
                    parts=LAN_PARTS)
    port = await host.listen("127.0.0.1", 0, transport=mem.listen)

    def lan(link: Link) -> None:  # 20 ms each way: a move takes a while to come back
        link.client.delay = link.server.delay = 0.02

    ana = joiner(tmp_path, mem, port, "Ana", on_link=lan)
    ana.start()
    await clock.run_until(host.started.wait(), within=1.0)
    await clock.until(lambda: ana.ready, "Ana in sync", within=1.0)
    assert ana.task is not None
    host_task = asyncio.ensure_future(host.done.wait())
    hana = NetSession(host, host_task, bot=make_bot("heuristic", 0))
    human = HumanAgent()
    mine = NetSession(ana, ana.task, human=human)
    table = TableModel(mine)
    mine.subscribe(table.sync)  # as the running table does
    runs = asyncio.ensure_future(asyncio.gather(hana.run(), mine.run()))
    me, view, bot = mine.seat, mine.view, make_bot("heuristic", 1)
    take: TakeRow | None = None

    async def accepted(action: Action) -> None:
        """The table's own way to move (TuiApp._submit): submit, then tidy up."""
        await mine.submit(action)
        table.after_move(action)

    for _ in range(400):  # Ana's turns, a bot's moves, until the row can be taken
        await clock.until(lambda: human.waiting and mine.core.can_move(), "Ana's move",
                          within=600.0)
        moves = view.legal_moves(me)
        take = next((a for a in moves if isinstance(a, TakeRow)), None)
        action = take or bot.choose(view, me)
        await clock.run_until(accepted(action), within=60.0)
        if take is not None:
            break
    assert take is not None, "no row card to take in the game"
    assert view.phase == "draw"  # sent, not yet back from the host
    # the turn is still ours in the view, but the move is made: the table says where it is
    assert table.instruction() == ("Your move is on its way to the host: it shows once the "
                                   "host has it.")
    await clock.until(lambda: view.phase == "must_play", "the move back", within=60.0)
    assert view.picked is not None and view.picked in view.hands[me]
    assert table.selected == [view.picked]
    assert table.area == "hand" and table.hand_cursor_slot() == view.picked
    runs.cancel()
    await asyncio.gather(runs, return_exceptions=True)
    await stop(clock, host, [ana], mem)


@virtual_time
async def test_a_joiner_whose_host_is_gone_is_not_told_it_is_their_turn(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """The host dies while it is the joiner's turn. The joiner's engine still says the
    turn is theirs, but no move can reach the host: the table said "Your turn: d draws
    …" and d answered "it is not your turn". Now it says what is happening (the
    connection's status) instead, shows no move keys, and a move key says why it does
    nothing — and sends nothing."""
    mem = MemoryNet()
    host = HostNode(Identity.generate(), tmp_path / "host", "Hana", D, seats=2, proofs=False,
                    parts=LAN_PARTS)
    port = await host.listen("127.0.0.1", 0, transport=mem.listen)
    ana = joiner(tmp_path, mem, port, "Ana")
    ana.start()
    await clock.run_until(host.started.wait(), within=1.0)
    await clock.until(lambda: ana.ready, "Ana in sync", within=1.0)
    assert ana.task is not None
    hana = NetSession(host, asyncio.ensure_future(host.done.wait()),
                      bot=make_bot("heuristic", 0))
    human = HumanAgent()
    mine = NetSession(ana, ana.task, human=human)
    runs = asyncio.ensure_future(asyncio.gather(hana.run(), mine.run()))
    try:
        with create_pipe_input() as inp, create_app_session(input=inp,
                                                            output=DummyOutput()):
            tui = TuiApp(mine)
            m = tui.model
            await clock.until(lambda: human.waiting and mine.core.can_move()
                              and mine.view.phase == "draw", "Ana's turn", within=600.0)
            m.sync()
            assert m.instruction().startswith("Your turn")
            assert ("d", "draw") in m.key_hints()
            crash(host)
            await clock.until(lambda: not ana.ready and ana.net_status is not None,
                              "the loss seen", within=5.0)
            m.sync()
            assert mine.view.actor == mine.seat  # the engine's turn is still Ana's …
            said = m.instruction()
            assert "your turn" not in said.lower(), said  # … but the table does not say so
            assert "host" in said and ana.net_status in said, said
            screen = "\n".join(screen_text(tui.app, 80, 24))
            assert "Your turn" not in screen and "your turn" not in screen, screen
            assert "reconnecting" in screen or "retrying" in screen, screen
            keys = [k for k, _ in m.key_hints()]
            assert not {"d", "t", "l", "u", "x", "s", "e", "h"} & set(keys), keys
            tui.press("d")
            await clock.advance(0.5)
            assert m.note is not None and "host" in m.note.text, m.note
            assert "not your turn" not in m.note.text, m.note.text
            assert mine.core.kept_move() is None  # nothing chosen, nothing to send later
    finally:
        runs.cancel()
        await asyncio.gather(runs, return_exceptions=True)
        await stop(clock, host, [ana], mem)
