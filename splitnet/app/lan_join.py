"""``splitnet join``: a person takes a seat (found on the LAN, given by address, or
through an invitation), plays it, and plays each rematch they ask for."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import Any

from splitnet.aio import stop
from splitnet.app.lan_common import (
    MAX_CODE_PROMPTS,
    _ask_again,
    _bell_wanted,
    _check_servers,
    _data_dir,
    _human_session,
    _identity,
    _invited,
    _known_peers,
    _net_settings,
    _remember_players,
    _report_fatal,
    _setup_logging,
    _test_secrets,
    _wait_start,
)
from splitnet.app.lan_discovery import _choose_game
from splitnet.app.lan_invite import _InvitationLobby
from splitnet.app.lan_joiner import (
    _at_this_address,
    _over_here,
    _peer_node,
    join_choice,
    pick_unfinished,
)
from splitnet.app.lan_rematch import (
    _deals,
    _finished_game,
    _game_ended,
    _no_offer_follows,
    _no_rematch,
    _rematch_peer,
    _say_we_leave,
)
from splitnet.app.lan_session import LAN_PARTS
from splitnet.app.lan_table import _front_end
from splitnet.cmdline import need_terminal
from splitnet.net.known_peers import KnownPeers
from splitnet.net.peer import PeerFatal, PeerNode
from splitnet.net.store import unfinished_games
from splitnet.net.table import TableParts
from splitnet.ui.lobby import JoinLobby, plain_lobby


async def join_main(args: argparse.Namespace, parts: TableParts = LAN_PARTS) -> int:
    """``splitnet join``: the game to join or resume (asked for when there are several,
    picked from the LAN's without an address), its lobby, the game and its rematches;
    the join code asked again after a typo, :data:`MAX_CODE_PROMPTS` times at most."""
    if not args.plain:
        need_terminal("join")
    data_dir = _data_dir(args)
    net = _net_settings(args.net_timing)
    _check_servers(args, net, data_dir)
    identity = _identity(data_dir)
    seed_maker, _ = _test_secrets(args.test_seed)
    _setup_logging("join", None if args.plain else data_dir / "net.log")
    announced_fp: str | None = None
    # the same command again resumes the unfinished game, however it was joined
    choice = join_choice(args.addr, args.new,
                         unfinished_games(data_dir, "peer", skip_damaged=args.new))
    if choice.several:
        picked = pick_unfinished(choice, data_dir)
        if picked is None:
            return 1
        choice = picked
    args.addr = choice.addr
    if args.addr is None:
        ad = await _choose_game(args.browse_timeout, args.interface)
        if ad is None:
            return 1
        args.addr, announced_fp = ad.target, ad.fingerprint
        choice = _at_this_address(args, data_dir)
    over = await _over_here(args, data_dir, identity, net, choice)
    if over is not None:  # run again after its game, whose host has gone
        return over
    known = _known_peers(data_dir)
    print_fp = True
    for tries in range(1, MAX_CODE_PROMPTS + 1):
        # a line-based joiner whose input is not a terminal is never asked for a rematch
        node, typed = _peer_node(args, data_dir, identity, net, seed_maker,
                                 show_words=args.plain, retyped=tries > 1, choice=choice,
                                 leaves_after=args.plain and not sys.stdin.isatty(),
                                 parts=parts)
        task = node.start()
        again = False
        try:
            rc = await _join_game(node, task, args, data_dir, known, announced_fp, print_fp)
            if rc is None:
                again = _ask_again(node, typed, tries)
                if not again:
                    _report_fatal(node)
                    return 1
            else:
                return rc
        finally:
            await stop(task, PeerFatal)
        print_fp = False
    return 1  # pragma: no cover - _ask_again stops at MAX_CODE_PROMPTS


async def _join_game(node: PeerNode, task: asyncio.Future[Any], args: argparse.Namespace,
                     data_dir: Path, known: KnownPeers | None, announced_fp: str | None,
                     print_fp: bool) -> int | None:
    """Lobby, then the game; None when the node stopped before the game (its ``fatal``
    says why)."""
    if node.table is None:
        if print_fp:
            print(f"Your key fingerprint: {node.identity.fingerprint()}", flush=True)
        lobby = (_InvitationLobby(node, args.addr, known=known, announced_fp=announced_fp)
                 if _invited(node) else
                 JoinLobby(node, known=known, announced_fp=announced_fp))
        ok = await _lobby(lobby, task, args.plain, "splitnet — join")
        if not ok or not await _wait_start(node, task, report=False):
            return None
    rc, wanted = await _play(node, task, args, data_dir, known)
    return await _join_rematches(node, args, data_dir, known, rc, wanted)


async def _lobby(lobby: JoinLobby, task: asyncio.Future[Any], plain: bool,
                 title: str) -> bool:
    """The joiner's lobby, printed line by line (``plain``) or full-screen, until the
    game starts (True), the person leaves it, or the node stops (``task``)."""
    if plain:
        return await plain_lobby(lobby, lobby.node.started_evt, task, host=False)
    from splitnet.ui.tui import run_lobby

    lobby_task = asyncio.create_task(run_lobby(lobby, title=title))
    try:
        await asyncio.wait([lobby_task, task], return_when=asyncio.FIRST_COMPLETED)
        return lobby_task.done() and lobby_task.result()
    finally:  # and wait: what is printed before the screen is restored is lost
        await stop(lobby_task)


async def _play(node: PeerNode, task: asyncio.Future[Any], args: argparse.Namespace,
                data_dir: Path, known: KnownPeers | None) -> tuple[int, bool]:
    """The person's seat in the game ``node`` started: its exit status, and whether
    they asked for a rematch at the end."""
    assert node.table is not None
    _remember_players(known, node.table)
    session = _human_session(node, task)
    return await _front_end(session, args.plain, data_dir, _bell_wanted(args), rematch=True)


async def _join_rematches(node: PeerNode, args: argparse.Namespace, data_dir: Path,
                          known: KnownPeers | None, rc: int, wanted: bool) -> int:
    """A person after their game: while they ask for a rematch, wait for the host's
    offer (agreeing to it), play it; leaving the rematch's lobby declines."""
    while wanted and (prev := _finished_game(node.table)) is not None:
        if await _no_offer_follows(node):
            return rc
        print(f"Rematch: waiting for the host to offer it ({_deals(prev)})…", flush=True)
        node = await _rematch_peer(node, prev)  # (through a wormhole: once the game ended)
        task = node.start()
        try:
            ok = await _lobby(JoinLobby(node, known=known), task, args.plain,
                              "splitnet — rematch")
            if not ok and node.table is None and not task.done():
                await node.decline(f"{node.name} left")  # the player left: no rematch
            if not ok or not await _wait_start(node, task, report=False):
                _no_rematch(node)
                return rc
            rc, wanted = await _play(node, task, args, data_dir, known)
            if wanted:
                await _game_ended(node)
        finally:
            await stop(task, PeerFatal)
    prev = _finished_game(node.table)
    if rc == 0 and prev is not None and not node.leaves_after:  # (said as its game ended)
        await _say_we_leave(node, prev)  # n was not pressed: the player leaves
    return rc
