"""``splitnet bot``, and the host's own bots (``host --bots``), which run the same code
in the host's process: a bot takes a seat, plays it, and agrees to every rematch the
host offers (with ``--rematch``; the host's own bots always)."""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from splitnet.aio import stop, until
from splitnet.app.lan_common import (
    MAX_CODE_PROMPTS,
    _ask_again,
    _bench_out,
    _bot_session,
    _check_servers,
    _data_dir,
    _follow,
    _identity,
    _known_peers,
    _net_settings,
    _previous_on_disk,
    _print_result,
    _remember_players,
    _report_fatal,
    _seat_seed,
    _setup_logging,
    _test_secrets,
    _wait_start,
)
from splitnet.app.lan_joiner import _at_this_address, _over_here, _peer_node
from splitnet.app.lan_rematch import (
    _finished_game,
    _game_ended,
    _no_offer_follows,
    _no_rematch,
    _Offers,
    _rematch_peer,
)
from splitnet.app.lan_session import LAN_PARTS
from splitnet.game.rematch import PreviousGame
from splitnet.games.split.bots import FRIENDLY_NAMES, bot_label, bot_player_name
from splitnet.net.config import NetSettings, is_wormhole_code
from splitnet.net.joincode import JoinCode
from splitnet.net.links import node_wrap
from splitnet.net.peer import PeerFatal, PeerNode
from splitnet.net.store import unfinished_games
from splitnet.net.table import SeedMaker, TableParts
from splitnet.session.identity import Identity


async def bot_main(args: argparse.Namespace, parts: TableParts = LAN_PARTS) -> int:
    """``splitnet bot``: a bot's seat at the host's game (and, with ``--rematch``, at
    each rematch it offers); its name, without ``--name``, follows from its key."""
    data_dir = _data_dir(args)
    net = _net_settings(args.net_timing)
    _check_servers(args, net, data_dir)
    identity = _identity(data_dir)
    seed_maker, _ = _test_secrets(args.test_seed)
    _setup_logging("bot")
    index: int | None = None
    if args.name is None:  # a friendly name of its own (two bots rarely share one)
        index = (random.Random(args.test_seed).randrange(len(FRIENDLY_NAMES))
                 if args.test_seed is not None else _bot_name_index(identity))
        args.name = bot_player_name(index)
    if index is not None and is_wormhole_code(args.addr):
        # through an invitation the host tells the names at its table as the wormhole
        # meets: the bot takes one none of them has (else the table shows "Ana-2")
        args.pick_name = lambda names, i=index: _free_bot_name(i, names)
    else:
        print(f"Playing as {bot_label(args.name, args.level)}", flush=True)
    known = _known_peers(data_dir)
    choice = _at_this_address(args, data_dir)
    over = await _over_here(args, data_dir, identity, net, choice)
    if over is not None:  # run again after its game, whose host has gone
        return over
    for tries in range(1, MAX_CODE_PROMPTS + 1):
        node, typed = _peer_node(args, data_dir, identity, net, seed_maker, show_words=True,
                                 retyped=tries > 1, leaves_after=not args.rematch,
                                 choice=choice, parts=parts)
        task = node.start()
        if await _wait_start(node, task, report=False):
            break
        if not _ask_again(node, typed, tries):
            _report_fatal(node)
            return 1
    try:
        table = node.table
        assert table is not None
        _remember_players(known, table)
        seed = _seat_seed(args.test_seed, table.seat)
        session = _bot_session(node, task, args.level, seed, args.think, args.delay)
        _follow(session, args.verbose)
        await session.run()
        _bench_out(session, args.bench_out)
        rc = _print_result(session)
        if args.rematch and rc == 0:  # it agrees to every rematch the host offers
            rc = await _bot_rematches(node, args.level, seed, args.think, delay=args.delay,
                                      verbose=args.verbose, bench_out=args.bench_out)
        return rc
    except PeerFatal as e:
        print(f"splitnet: {e}", file=sys.stderr)
        return 1
    finally:
        await stop(task, PeerFatal)


def _bot_name_index(identity: Identity) -> int:
    """Which friendly name a bot without ``--name`` takes: one that follows from its key,
    so the same bot (the same data dir) has the same name in every game — a host that
    knows its key sees no "now calls itself" — and another bot most likely another."""
    digest = hashlib.sha256(b"splitnet bot name" + identity.public_key_bytes()).digest()
    return int.from_bytes(digest[:8], "big") % len(FRIENDLY_NAMES)


def _free_bot_name(index: int, names: list[str]) -> str:
    """The ``index``-th friendly name none of ``names`` has (the host makes names
    distinct regardless of case: ``ana`` would make Ana ``Ana-2``)."""
    taken = {n.lower() for n in names}
    return bot_player_name(index, taken=[nm for nm in FRIENDLY_NAMES if nm.lower() in taken])


async def _run_bot_client(data_dir: Path, name: str, level: str, addr: str, port: int,
                          net: NetSettings, seed_maker: SeedMaker | None,
                          test_seed: int | None, code: JoinCode,
                          think: float | None = None, offers: _Offers | None = None,
                          rematch_of: PreviousGame | None = None, *,
                          parts: TableParts) -> None:
    """An in-process bot peer: the same code as ``splitnet bot``, over (loopback) TCP,
    through the same join-code handshake (it is handed the code). ``rematch_of``: the
    host (restarted) offers the rematch of that game, which this bot finished too: it
    comes back for it, as after its game (NETWORK.md §13)."""
    identity = _identity(data_dir)
    metas = unfinished_games(data_dir, "peer")
    prev = None
    if rematch_of is not None and not metas:
        with contextlib.suppress(ValueError):  # (without its own copy it cannot follow)
            prev = _previous_on_disk(data_dir, rematch_of.game_id)
    node = PeerNode(identity, data_dir, name, addr, port, net, seed_maker=seed_maker,
                    resume=metas[0] if metas else None,
                    wrap=node_wrap(code, net, identity=identity), code=str(code),
                    rematch_of=prev, parts=parts, bot_level=level)
    task = node.start()
    try:
        await until(node.started_evt, task)
        if node.table is None:  # the node stopped before the game: its log says why
            return
        seed = _seat_seed(test_seed, node.table.seat)
        session = _bot_session(node, task, level, seed, think)
        await session.run()
    finally:
        await stop(task, PeerFatal)
    if offers is not None:  # the host's own bots agree to every rematch it offers
        await _bot_rematches(node, level, seed, think, offered=offers.offered, quiet=True)


async def _bot_rematches(node: PeerNode, level: str, seed: int, think: float | None,
                         offered: Callable[[int], Any] | None = None,
                         delay: float = 0.0, verbose: bool | None = None,
                         bench_out: str | None = None, quiet: bool = False) -> int:
    """A bot after its game: it agrees to every rematch the host offers (waiting for an
    offer up to ``rematch_wait``, or — for the host's own bots — until ``offered(k)``
    says whether one follows game ``k``), plays it, and so on. The last game's status."""
    rc = 0
    k = 0
    while (prev := _finished_game(node.table)) is not None:
        if offered is not None and not await offered(k):
            break
        if offered is None and await _no_offer_follows(node):
            break
        k += 1
        node = await _rematch_peer(node, prev)
        task = node.start()
        try:
            if not await _wait_start(node, task, report=False):
                if not quiet:
                    _no_rematch(node)
                break
            session = _bot_session(node, task, level, seed + 1000 * k, think, delay)
            if verbose is not None:
                _follow(session, verbose)
            await session.run()
            _bench_out(session, bench_out)
            rc = 0 if quiet else _print_result(session)
            await _game_ended(node)
        finally:
            await stop(task, PeerFatal)
    return rc
