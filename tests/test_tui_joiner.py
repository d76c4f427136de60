"""The full-screen table over a LAN joiner's session (splitnet/app/lan_session.py): a
joiner's move reaches its own view only when the host's log brings it back, so what the
table does after a move must not depend on the move being in the view already. On
virtual time over the in-memory network (tests/virtual_time.py, tests/memnet.py)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from splitnet.app.lan_session import LAN_PARTS, NetSession
from splitnet.bots import make_bot
from splitnet.frontend import HumanAgent
from splitnet.net.host import HostNode
from splitnet.rules import Action, TakeRow
from splitnet.session.identity import Identity
from splitnet.ui.tui.model import TableModel
from tests.memnet import Link, MemoryNet
from tests.test_net_timing import D, joiner, stop
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
    await clock.until(lambda: view.phase == "must_play", "the move back", within=60.0)
    assert view.picked is not None and view.picked in view.hands[me]
    assert table.selected == [view.picked]
    assert table.area == "hand" and table.hand_cursor_slot() == view.picked
    runs.cancel()
    await asyncio.gather(runs, return_exceptions=True)
    await stop(clock, host, [ana], mem)
