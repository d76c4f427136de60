"""A person's table at a LAN seat: the front end (plain or full-screen, Split's or
Splito's) until they leave, with the rematch its end offers (:func:`_front_end`)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any, cast

from splitnet.app.lan_common import AnySession, _again_command, _invited, _print_result
from splitnet.app.lan_rematch import _deals, _finished_game
from splitnet.app.lan_session import NetSession
from splitnet.frontends import front_end
from splitnet.game.rematch import next_dealer
from splitnet.games.splito.front.lan import SplitoNetSession
from splitnet.net.peer import PeerNode
from splitnet.net.table import Table


async def _front_end(session: AnySession, plain: bool, data_dir: Path,
                     bell: bool = True, *, rematch: bool = False,
                     host: bool = False) -> tuple[int, bool]:
    """The person's table until they leave: the exit status, and whether they asked for
    a rematch at the end (offered with ``rematch``; on the host: it offers one). A
    Splito table has its own front ends, with the same rematch; a game added from
    outside the package brings its own (FrontEnd.table)."""
    own = front_end(session.table.spec).table
    offered = ("host" if host else "joiner") if rematch else None
    if own is not None or isinstance(session, SplitoNetSession):
        if own is not None:
            rc, wanted = await own(session, plain, bell, offered)
        else:
            assert isinstance(session, SplitoNetSession)
            rc, wanted = await _splito_front_end(session, plain, bell, rematch=offered)
        return rc, _rematch_if_over(session, wanted)
    session = cast(NetSession, session)  # (any other game's table is Split's)
    if plain:
        from splitnet.ui.plain import run_plain

        rc = await run_plain(session)
        return rc, rematch and rc == 0 and await _ask_rematch(session.table, host)
    from splitnet.ui.tui import run_tui

    again = _again_command()
    offer: dict[str, Any] = {}
    if rematch:  # n at the end screen; the first deal passes left (R3.2)
        table = session.table
        offer = {"rematch": True, "next_dealer": (table.first_dealer + 1) % table.n,
                 "rematch_as": "host" if host else "joiner"}
    # an internet guest's invitation is spent once the game is over: running it again
    # resumes that game, it joins no other (NETWORK.md §12); the rematch (n) needs none
    invited = not host and isinstance(session.node, PeerNode) and _invited(session.node)
    another = (None if not invited else
               "ask the host for a new invitation (the rematch needs none; this one is "
               "spent)"
               if rematch else
               "ask the host for a new invitation (this one is spent) and run "
               "`splitnet join` with it")
    outcome = await run_tui(session, bell=bell, rejoin=again, another=another, **offer)
    rc = _print_result(session, rejoin=again)
    return rc, _rematch_if_over(session, rematch and outcome == "rematch")


def _rematch_if_over(session: AnySession, wanted: bool) -> bool:
    """The rematch a person asked for at the end screen (``wanted``), if the game is one
    a rematch may follow: else they are told so."""
    if wanted and _finished_game(session.table) is None:
        print("No rematch after a game that stopped early.", flush=True)
        return False
    return wanted


async def _splito_front_end(session: SplitoNetSession, plain: bool, bell: bool, *,
                            rematch: str | None = None) -> tuple[int, bool]:
    """A person's Splito table: ``splitnet.games.splito.front.plain.run_splito_plain`` or
    ``splitnet.games.splito.front.tui.run_splito_tui`` (each drives the session, as Split's do),
    imported only here. With ``rematch`` (who presses n: the LAN "host" offers, a
    "joiner" agrees) the end offers the next game: the exit status, and whether the
    person asked for it."""
    import importlib
    import inspect

    again = _again_command()
    dealer = next_dealer(session.table.log.header)  # its seat: "you deal" if it is ours
    try:
        if plain:
            plain_ui = importlib.import_module("splitnet.games.splito.front.plain")
            run: Any = plain_ui.run_splito_plain
            kw: dict[str, Any] = {}
        else:
            run = importlib.import_module("splitnet.games.splito.front.tui").run_splito_tui
            kw = {"title": "splitnet", "drive": True, "bell": bell, "rejoin": again}
            if rematch is not None:
                kw.update(rematch=rematch, next_dealer=dealer)
    except (ImportError, AttributeError):
        raise SystemExit("splitnet: this build has no Splito table front end yet; play a "
                         "Splito seat with splitnet bot, or host --play-as-bot") from None
    outcome = run(session, **kw)
    if inspect.isawaitable(outcome):
        outcome = await outcome
    rc = _print_result(session, rejoin=again)
    if rematch is None or rc != 0:
        return rc, False
    if plain:  # asked of a terminal only: piped input ends with the game (as Split's)
        keys = importlib.import_module("splitnet.games.splito.front.table").rematch_keys(
            rematch, session.players, session.seat, dealer)
        return rc, sys.stdin.isatty() and await plain_ui.ask_rematch(session, keys)
    return rc, outcome == "rematch"


async def _ask_rematch(table: Table, host: bool) -> bool:
    """The plain front end's end: a rematch with the same seats? (Asked only of a
    terminal: piped input ends with the game.)"""
    prev = _finished_game(table)
    if prev is None or not sys.stdin.isatty():
        return False
    how = ("you offer it; everyone must agree" if host
           else "if the host offers it; everyone must agree")
    print(f"Rematch with the same seats ({_deals(prev)}; {how})? "
          "n: yes, Enter: quit", flush=True)
    line = await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    return line.strip().lower() in ("n", "y", "yes")
