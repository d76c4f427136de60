"""What ``splitnet join`` and ``splitnet bot`` share before they play: which game they
join or resume (:func:`join_choice`, :func:`pick_unfinished`), a game that is over
where its host has gone (:func:`_over_here`), and the joiner's node
(:func:`_peer_node`)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
from dataclasses import dataclass, field
from pathlib import Path

from splitnet.app.lan_common import (
    _WORMHOLE_HOST,
    _ask,
    _ask_code,
    _bot_level,
    _finished_copy,
    _parse_code,
    _print_record,
    _words_once,
)
from splitnet.app.lan_invite import _wormhole_peer
from splitnet.app.lan_session import LAN_PARTS
from splitnet.net.addrs import host_port, parse_addr
from splitnet.net.config import NetSettings, is_wormhole_code
from splitnet.net.links import node_wrap
from splitnet.net.peer import PeerNode
from splitnet.net.store import GameFiles, GameMeta, saved_games, unfinished_games
from splitnet.net.table import SeedMaker, Table, TableParts
from splitnet.session.identity import Identity
from splitnet.text import shown


@dataclass
class JoinChoice:
    """What ``splitnet join`` does (:func:`join_choice`): connect to ``addr`` (None: look
    for the games announced on the LAN) and resume ``meta`` there (None: join a game
    anew), saying ``say`` (one line, or nothing); or, with ``several``, ask which of
    those unfinished games to resume."""

    addr: str | None
    meta: GameMeta | None = None
    say: str = ""
    several: list[GameMeta] = field(default_factory=list)


def join_choice(addr: str | None, new: bool, games: list[GameMeta], *,
                guess: bool = True) -> JoinChoice:
    """The join command's decision from its address (None: none given), ``--new`` and
    the unfinished games this data dir holds as a joiner (newest first; a wormhole
    guest's are its invitation's to resume). The game joined at that very address is
    resumed; else — the same command run again, however the first run found its host
    (browsing, another of the host's addresses) — the only unfinished game is, at the
    address given (with the game's port unless it names one) or at the game's own;
    several: the player is asked which (:func:`pick_unfinished`). ``guess=False``: only
    the game at that very address (an address just picked from the LAN's)."""
    if new or (addr is not None and is_wormhole_code(addr)):
        return JoinChoice(addr)
    lan = [m for m in games if m.host and m.host != _WORMHOLE_HOST]
    if addr is not None:
        try:
            host, port = parse_addr(addr)
        except ValueError:
            return JoinChoice(addr)  # (the node says what is wrong with it)
        for m in lan:
            if m.host == host_port(host, port):
                return JoinChoice(addr, m, _resuming(m, m.host))
    if not guess or not lan:
        return JoinChoice(addr)
    if len(lan) > 1:
        return JoinChoice(addr, several=lan)
    m = lan[0]
    try:
        target = m.host if addr is None else host_port(*parse_addr(addr, m.port))
    except ValueError:
        return JoinChoice(addr)
    return JoinChoice(target, m, _resuming(m, target))


def _at_this_address(args: argparse.Namespace, data_dir: Path) -> JoinChoice:
    """The unfinished game this data dir joined at this very address (``args.addr``), to
    resume unless ``--new`` — no guess at another (:func:`join_choice`, ``guess=False``)."""
    return join_choice(args.addr, args.new,
                       unfinished_games(data_dir, "peer", skip_damaged=args.new), guess=False)


def _resuming(m: GameMeta, target: str) -> str:
    """The one line that says which unfinished game ``splitnet join`` resumes."""
    how = "" if target == m.host else f", joined at {m.host}"
    return (f"Resuming game {m.game_id} at {target} (seat {m.seat}{how}), unfinished in "
            "this data dir; splitnet join --new joins another game.")


def pick_unfinished(choice: JoinChoice, data_dir: Path) -> JoinChoice | None:
    """``choice.several`` unfinished games as a joiner: list them, newest first, each with
    the command that resumes it, and ask which (``n``: another game, as if none were
    saved). None: the player quit, or there is no answer (the list says what to run)."""
    from splitnet.app.saved import when

    games = choice.several
    print(f"Unfinished games you joined ({data_dir}):", flush=True)
    for i, m in enumerate(games, 1):
        print(f"  {i}. game {m.game_id[:8]}… at {m.host}, seat {m.seat}, from {when(m)} — "
              f"splitnet join {m.host}", flush=True)
    prompt = (f"Resume which? [1–{len(games)}, Enter: 1, n: another game, q: quit] ")
    while True:
        try:
            text = _ask(prompt).strip().lower()
        except EOFError:
            print("splitnet: no answer: run the command of the game to resume, or "
                  "splitnet join --new", flush=True)
            return None
        if text in ("q", "quit"):
            return None
        if text in ("n", "new"):
            return JoinChoice(choice.addr)
        if text == "":
            text = "1"
        if text.isdigit() and 1 <= int(text) <= len(games):
            m = games[int(text) - 1]
            return JoinChoice(m.host, m, _resuming(m, m.host))
        print(f"  ! type a number from 1 to {len(games)}, n or q", flush=True)


async def _over_here(args: argparse.Namespace, data_dir: Path, identity: Identity,
                     net: NetSettings, choice: JoinChoice) -> int | None:
    """``join``/``bot`` run again once its game is over (its final ack sent: nothing is
    left to resume at its address) and the host has gone: that game is what it was run
    for. If the newest game this data dir joined at the address is over and nothing
    answers there, say so, show its results from the saved log and end (its status).
    None: go on and join (something answers there, ``--new``, no such game)."""
    if (choice.meta is not None or args.new or not choice.addr
            or is_wormhole_code(choice.addr)):
        return None
    try:
        host, port = parse_addr(choice.addr)
    except ValueError:
        return None  # (the node says what is wrong with it)
    where = host_port(host, port)
    done = [m for m in saved_games(data_dir, "peer", finished=True, skip_damaged=True)
            if m.host == where]
    if not done or await _answers(host, port, net.connect_timeout):
        return None
    m = done[0]
    head = (f"Nothing answers at {where} any more, and game {m.game_id} you played there "
            "is over")
    try:
        table = Table.load(identity, GameFiles(data_dir, m.gid), None, LAN_PARTS)
    except (OSError, ValueError) as e:
        print(f"splitnet: {head}, but its saved log cannot be read: {shown(str(e))[:300]}",
              file=sys.stderr, flush=True)
        return 1
    try:
        if not table.core.finished:
            print(f"splitnet: {head} by its data dir, but the saved log stops at entry "
                  f"{len(table.log) - 1}, before its end: the rest is missing, and the host "
                  f"that could send it is gone ({table.files.transcript})",
                  file=sys.stderr, flush=True)
            return 1
        print(f"{head}; your saved log holds it whole (to join another game there: "
              f"splitnet {args.command} {choice.addr} --new):", flush=True)
        if not _print_record(table):
            print(f"game stopped: {table.core.verdict}", file=sys.stderr, flush=True)
            return 1
        print(f"transcript: {table.files.transcript}", flush=True)
        return 0
    finally:
        table.close()


async def _answers(host: str, port: int, timeout: float) -> bool:
    """Does anything accept a connection at ``host``:``port`` (within ``timeout`` s)?"""
    try:
        async with asyncio.timeout(timeout):
            _, writer = await asyncio.open_connection(host, port)
    except (OSError, TimeoutError):
        return False
    writer.close()
    with contextlib.suppress(OSError):
        await writer.wait_closed()
    return True


def _peer_node(args: argparse.Namespace, data_dir: Path, identity: Identity,
               net: NetSettings, seed_maker: SeedMaker | None, *,
               show_words: bool, retyped: bool = False, choice: JoinChoice,
               leaves_after: bool = False, parts: TableParts) -> tuple[PeerNode, bool]:
    """The joiner's node: resumes the unfinished game ``choice`` names (if any;
    :func:`join_choice`) with the code kept from the first time, else asks for the code.
    Also: was the code typed at the prompt (then a wrong one may be asked for again)?
    ``leaves_after``: no rematch will follow here, and the node tells the host as its
    game ends (NETWORK.md §13)."""
    if is_wormhole_code(args.addr):
        return _wormhole_peer(args, data_dir, identity, net, seed_maker,
                              show_words=show_words, parts=parts,
                              leaves_after=leaves_after), False
    try:
        host, port = parse_addr(choice.addr or "")
    except ValueError as e:
        raise SystemExit(f"splitnet: {e}") from None
    meta = choice.meta
    if choice.say:
        print(choice.say, flush=True)
    typed = False
    if args.code:
        code = _parse_code(args.code)
    elif meta is not None and meta.code:
        code = _parse_code(meta.code)
    else:
        code = _ask_code(None, "Type the join code again: " if retyped else
                         "Join code (the host shows it, e.g. 7-lunar-anchor): ")
        typed = True
    secure = _words_once(show_words)

    try:
        return PeerNode(identity, data_dir, args.name, host, port, net, seed_maker=seed_maker,
                        resume=meta, wrap=node_wrap(code, net, on_secure=secure,
                                                    identity=identity),
                        code=str(code), parts=parts, bot_level=_bot_level(args),
                        leaves_after=leaves_after,
                        rejoin_rematch=_finished_copy(data_dir)), typed
    except (OSError, ValueError) as e:
        raise SystemExit(f"splitnet: cannot resume: {e}") from None
