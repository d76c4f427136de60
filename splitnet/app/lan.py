"""``splitnet host``, ``join``, ``bot`` and ``watch``: the LAN and internet
commands, each run under asyncio by :func:`run_command`. They assemble a game from the
layers below: a :class:`~splitnet.net.host.HostNode` or
:class:`~splitnet.net.peer.PeerNode` (networking), its lobby screen
(:mod:`splitnet.ui.lobby`, :mod:`splitnet.ui.tui`), the seat's session
(:class:`~splitnet.app.lan_session.NetSession`: a person or a bot) and the front end.
Their command lines are parsed and checked in :mod:`splitnet.app.lan_args`, which
imports this module only once they have been accepted.

Each command is a module of its own, over the parts they share:

    lan_host       ``splitnet host``: its lobby, its bots, the games it hosts
    lan_join       ``splitnet join``: a person's seat, and the rematches they ask for
    lan_bot        ``splitnet bot``, and the host's own bots (the same code)
    lan_watch      ``splitnet watch``: a spectator who checks every record live
    lan_joiner     what join and bot share: which game they join or resume, its node
    lan_invite     internet play: the host's invitations, a guest's wormhole link
    lan_discovery  the LAN's announcements: the host's, and join's list to pick from
    lan_rematch    rematches (NETWORK.md §13): the host's offer, a seat's way back
    lan_table      a person's table: the front end until they leave
    lan_common     what every one of them uses: data dir, identity, logs, prompts,
                   a seat's session and its results, saved games
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Awaitable, Callable
from dataclasses import replace

from splitnet import aio
from splitnet.app.lan_bot import bot_main
from splitnet.app.lan_host import host_main
from splitnet.app.lan_join import join_main
from splitnet.app.lan_session import LAN_PARTS
from splitnet.app.lan_watch import watch_main
from splitnet.net import wormhole
from splitnet.net.table import TableParts


def run_command(command: str, args: argparse.Namespace) -> int:
    """Run ``host``, ``join`` or ``bot`` (as parsed by
    :func:`splitnet.app.lan_args.add_parsers`) under :func:`_run`."""
    main = {"host": host_main, "join": join_main, "bot": bot_main,
            "watch": watch_main}[command]
    return _run(main, args)


def _run(main: Callable[[argparse.Namespace, TableParts], Awaitable[int]],
         args: argparse.Namespace) -> int:
    """``main(args, parts)`` under asyncio, with Ctrl-C or SIGTERM (after a clean
    shutdown) giving status 130.

    The peers of this command check other seats' shuffle proofs in worker processes
    (protocol/GAME.md "shuffle proofs", pipelined): ``parts`` carries that pool to every
    table this command assembles. Its workers start when a game with shuffle proofs is
    set up: a game without them, or a command that ends before, starts none."""
    from splitnet.game.pool import ProofPool

    pool = ProofPool()
    parts = replace(LAN_PARTS, checker=pool)

    async def closing() -> int:
        try:
            return int(await main(args, parts))
        finally:
            await wormhole.shutdown()  # internet play: guests' wormholes, closed cleanly

    try:
        rc: int = aio.run(closing())
    except (KeyboardInterrupt, asyncio.CancelledError):
        print("splitnet: stopped", file=sys.stderr)
        return 130
    finally:
        wormhole.stop_twisted()  # internet play: its thread pool would keep us alive
        pool.close()
    return rc
