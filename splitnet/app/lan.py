"""``splitnet host``, ``splitnet join`` and ``splitnet bot``: the LAN commands. They
assemble a game from the layers below: a :class:`~splitnet.net.host.HostNode` or
:class:`~splitnet.net.peer.PeerNode` (networking), its lobby screen
(:mod:`splitnet.ui.lobby`, :mod:`splitnet.ui.tui`), the seat's session
(:class:`~splitnet.app.lan_session.NetSession`: a person or a bot) and the front end.
Their command lines are parsed and checked in :mod:`splitnet.app.lan_args`."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import errno
import hashlib
import logging
import os
import random
import sys
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, cast

from splitnet import aio
from splitnet.aio import stop, until
from splitnet.app.lan_args import parse_net_timing
from splitnet.app.lan_session import LAN_PARTS, LanSeat, NetSession
from splitnet.app.splito_session import SplitoNetSession
from splitnet.bots import FRIENDLY_NAMES, bot_label, bot_player_name
from splitnet.cmdline import (
    need_terminal,
    stdin_closed,
)
from splitnet.durable import open_private
from splitnet.frontends import front_end
from splitnet.game.rematch import (
    PreviousGame,
    RematchError,
    dealer_rule,
    next_dealer,
    parse_rematch,
)
from splitnet.games import by_key
from splitnet.localfiles import LocalFileError
from splitnet.net import wormhole
from splitnet.net.addrs import join_addresses, parse_addr
from splitnet.net.config import (
    DEFAULT_PORT,
    NETWORK_FILE,
    PUBLIC_MAILBOX,
    PUBLIC_RELAY,
    NetSettings,
    check_mailbox,
    check_relay,
    is_wormhole_code,
    load_internet_servers,
)
from splitnet.net.frames import Presence
from splitnet.net.host import HostNode
from splitnet.net.join_state import JoinState
from splitnet.net.joincode import JoinCode, JoinCodeError, new_code, parse_code
from splitnet.net.known_peers import KnownPeers, KnownPeersError
from splitnet.net.links import node_wrap, secure_busy
from splitnet.net.peer import PeerFatal, PeerNode
from splitnet.net.secure import AttemptLimiter, SecureError, SecureLink, WrongCode
from splitnet.net.store import (
    GameFiles,
    GameMeta,
    ResumeFile,
    games_dir,
    invitation_resume_file,
    meta_now,
    open_data_dir,
    read_meta,
    saved_games,
    unfinished_games,
)
from splitnet.net.table import SeedMaker, Table, TableParts
from splitnet.net.wire import NET_PROTOCOL, Channel, ErrorCode, plain
from splitnet.session.identity import Identity, IdentityError, default_data_dir
from splitnet.session.log import new_game_id
from splitnet.text import ShownLog, shown
from splitnet.ui import time_left
from splitnet.ui.lobby import HostLobby, JoinLobby, plain_lobby

_log = logging.getLogger("splitnet.net")


# ---------------------------------------------------------------------- shared helpers


def _data_dir(args: argparse.Namespace) -> Path:
    """The data dir, made (or closed to other local users) 0700 with its ``games/``
    (NETWORK.md §9)."""
    return open_data_dir(Path(args.data_dir).expanduser() if args.data_dir
                         else default_data_dir())


def _identity(data_dir: Path) -> Identity:
    try:
        return Identity.load_or_create(data_dir)
    except (IdentityError, OSError) as e:
        raise SystemExit(f"splitnet: {e}") from None


def _parse_code(text: str) -> JoinCode:
    try:
        return parse_code(text)
    except JoinCodeError as e:
        raise SystemExit(f"splitnet: {e}") from None


#: how often a joiner asks for the code again (a typo, or a code the host refused)
MAX_CODE_PROMPTS = 5


def _ask(prompt: str) -> str:
    """``input(prompt)`` that Ctrl-C ends at once. The prompts of ``join`` are asked from
    inside the event loop, whose own Ctrl-C handler only cancels the main task — which
    the blocked read never notices, so the next line typed was taken as the answer.
    While the prompt waits, Ctrl-C raises KeyboardInterrupt here (after ending the
    prompt's line), and the command stops as it does elsewhere: "splitnet: stopped",
    status 130."""
    import signal

    try:
        before = signal.signal(signal.SIGINT, signal.default_int_handler)
    except ValueError:  # not the main thread: nothing to change
        return input(prompt)
    try:
        return input(prompt)
    except KeyboardInterrupt:
        print(flush=True)  # "splitnet: stopped" on a line of its own
        raise
    finally:
        signal.signal(signal.SIGINT, before)


def _ask_code(given: str | None, prompt: str = "Join code (the host shows it, e.g. "
              "7-lunar-anchor): ") -> JoinCode:
    """``--code``, or the code typed at a prompt (the host shows it, e.g. 7-lunar-anchor);
    a typo ("did you mean 'lunar'?") asks again, at most :data:`MAX_CODE_PROMPTS` times."""
    if given:
        return _parse_code(given)
    for _ in range(MAX_CODE_PROMPTS):
        try:
            text = _ask(prompt)
        except EOFError:
            raise SystemExit("splitnet: no join code: type the one the host shows, or pass "
                             "--code") from None
        try:
            return parse_code(text)
        except JoinCodeError as e:
            print(f"splitnet: {e}", file=sys.stderr, flush=True)
            prompt = "Type the join code again: "
    raise SystemExit(f"splitnet: no valid join code after {MAX_CODE_PROMPTS} tries")


def _known_peers(data_dir: Path) -> KnownPeers | None:
    """Keys seen before (protocol/SECURE.md, "Known peers"); None if the file is damaged
    (it is left alone, and nothing is remembered this time)."""
    try:
        return KnownPeers.load(KnownPeers.default_path(data_dir))
    except KnownPeersError as e:
        print(f"splitnet: warning: {e}", file=sys.stderr, flush=True)
        return None


def _remember_players(known: KnownPeers | None, table: Table) -> None:
    """At the start of a game: remember every other seat's key under its name."""
    if known is None:
        return
    for p in table.log.header.players:
        if p.seat != table.seat:
            known.remember(p.key, p.name)
    try:
        known.save()
    except OSError as e:
        _log.warning("cannot save %s: %s", known.path, e)


def _report_fatal(node: PeerNode) -> None:
    """Why a joiner stops, once: the log on stderr has said it already, if it is there."""
    fatal = node.fatal
    if not fatal:
        return
    if not _logs_on_stderr:
        print(f"splitnet: {shown(fatal)}", file=sys.stderr, flush=True)
    if isinstance(node.fatal_cause, WrongCode):
        print("Check the join code with the host's screen and run the command again.",
              file=sys.stderr, flush=True)


def _net_settings(text: str | None) -> NetSettings:
    """``--net-timing ping_interval=0.2,host_timeout=2`` (tests and slow networks)."""
    try:
        return parse_net_timing(text or "")
    except ValueError as e:
        raise SystemExit(f"splitnet: --net-timing: {e}") from None


def _test_secrets(seed: int | None) -> tuple[SeedMaker | None, Callable[[], bytes] | None]:
    """``--test-seed S``: game id and round seeds derived from S (as ``selfplay --seed S``),
    so a LAN game can be compared with the in-process one. Never for a real game: anyone
    who knows S knows the deck."""
    if seed is None:
        return None, None
    from splitnet.game.local import SelfplaySecrets

    src = SelfplaySecrets(seed)

    def maker(game_id: bytes, seat: int) -> Callable[[int], bytes]:
        return src.round_seeds(seat)

    return maker, src.game_id


_logs_on_stderr = False


def _setup_logging(role: str, to_file: Path | None = None, verbose: bool = False) -> None:
    global _logs_on_stderr
    _logs_on_stderr = to_file is None
    logger = logging.getLogger("splitnet")
    logger.setLevel(logging.INFO)
    for h in list(logger.handlers):
        logger.removeHandler(h)
    if to_file is not None:
        os.close(open_private(to_file, os.O_WRONLY | os.O_APPEND))  # 0600 (NETWORK.md §9)
        handler: logging.Handler = logging.FileHandler(to_file, encoding="utf-8")
        handler.setFormatter(logging.Formatter("%(asctime)s " + role + ": %(message)s"))
    else:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("splitnet " + role + ": %(message)s"))
    handler.addFilter(ShownLog())  # log lines quote peers' reasons: shown, not obeyed
    logger.addHandler(handler)
    logger.propagate = False


def _find_game(data_dir: Path, prefix: str, role: str) -> GameMeta:
    d = games_dir(data_dir)
    hits = [p for p in d.glob(f"{prefix.lower()}*.meta")] if d.is_dir() else []
    metas = [m for m in (read_meta(p) for p in hits) if m.role == role]
    if len(metas) != 1:
        raise SystemExit(f"splitnet: {'no' if not metas else 'more than one'} {role} game "
                         f"{prefix!r} in {d}")
    return metas[0]


def _again_command(argv: list[str] | None = None) -> str:
    """The command that brings a player back to the game they left: the same one (an
    unfinished game is resumed), without ``--new``."""
    import shlex

    args = [a for a in (sys.argv[1:] if argv is None else argv) if a != "--new"]
    return shlex.join(["splitnet", *args])


def _bell_wanted(args: argparse.Namespace) -> bool:
    """The turn bell (full-screen table): on unless ``--no-bell`` or SPLITNET_NO_BELL."""
    import os

    return not (getattr(args, "no_bell", False) or os.environ.get("SPLITNET_NO_BELL"))


#: a LAN seat's session, whatever the game (FrontEnd.bot, FrontEnd.human)
AnySession = LanSeat[Any]


def _bot_session(node: HostNode | PeerNode, task: asyncio.Future[Any], level: str,
                 seed: int, think: float | None, delay: float = 0.0) -> AnySession:
    """A bot's session for whichever game the table runs (Splito: splito_bot's levels)."""
    assert node.table is not None
    return front_end(node.table.spec).bot(node, task, level, seed, think, delay)


def _human_session(node: HostNode | PeerNode, task: asyncio.Future[Any]) -> AnySession:
    assert node.table is not None
    return front_end(node.table.spec).human(node, task)


def _print_record(table: Table) -> bool:
    """The results of the table's game, if it finished with no verdict (False: it did
    not, nothing printed)."""
    core = table.core
    if not core.finished or core.verdict is not None or core.record is None:
        return False
    print(front_end(table.spec).summary(core.record), flush=True)
    return True


def _print_result(session: AnySession, rejoin: str | None = None) -> int:
    if _print_record(session.table):
        if session.unconfirmed:  # (a joiner's, whatever the game: SECURITY.md §4)
            print(f"warning: {', '.join(session.unconfirmed)} never confirmed this final log "
                  "to us (left early, or the host withheld it): compare transcripts",
                  file=sys.stderr, flush=True)
        print(f"transcript: {session.table.files.transcript}", flush=True)
        return 0
    if session.verdict is None and rejoin is not None:
        print("You left before the end; the game is saved here and your seat is kept. "
              f"To get back in, run the same command again:\n  {rejoin}",
              file=sys.stderr, flush=True)
        return 1
    print(session.verdict or "the game did not finish", file=sys.stderr, flush=True)
    return 1


def _bench_out(session: AnySession, path: str | None) -> None:
    """``--bench-out FILE``: this seat's timings and the game record, as JSON."""
    if path:
        import json

        timings = session.timings if isinstance(session, NetSession) else {}
        Path(path).write_text(json.dumps({"seat": session.seat, "timings": timings,
                                          "record": session.core.record}))


def _follow(session: AnySession, verbose: bool) -> None:
    """A bot's console: round lines, verdicts (every line with ``verbose``)."""
    printed = 0

    def show() -> None:
        nonlocal printed
        for line in session.log[printed:]:
            if verbose or line.startswith(("Round ", "  ", "Resumed", "game stopped",
                                           "Dealt:", "Audit passed", "Time is up")):
                print(line, flush=True)
        printed = len(session.log)

    session.subscribe(show)


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
        if wanted and _finished_game(session.table) is None:
            print("No rematch after a game that stopped early.", flush=True)
            wanted = False
        return rc, wanted
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
    wanted = rematch and outcome == "rematch"
    if wanted and _finished_game(session.table) is None:
        print("No rematch after a game that stopped early.", flush=True)
        wanted = False
    return rc, wanted


async def _splito_front_end(session: SplitoNetSession, plain: bool, bell: bool, *,
                            rematch: str | None = None) -> tuple[int, bool]:
    """A person's Splito table: ``splitnet.ui.splito_plain.run_splito_plain`` or
    ``splitnet.ui.tui.splito.run_splito_tui`` (each drives the session, as Split's do),
    imported only here. With ``rematch`` (who presses n: the LAN "host" offers, a
    "joiner" agrees) the end offers the next game: the exit status, and whether the
    person asked for it."""
    import importlib
    import inspect

    again = _again_command()
    dealer = next_dealer(session.table.log.header)  # its seat: "you deal" if it is ours
    try:
        if plain:
            plain_ui = importlib.import_module("splitnet.ui.splito_plain")
            run: Any = plain_ui.run_splito_plain
            kw: dict[str, Any] = {}
        else:
            run = importlib.import_module("splitnet.ui.tui.splito").run_splito_tui
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
        keys = importlib.import_module("splitnet.ui.splito_table").rematch_keys(
            rematch, session.players, session.seat, dealer)
        return rc, sys.stdin.isatty() and await plain_ui.ask_rematch(session, keys)
    return rc, outcome == "rematch"


# ---------------------------------------------------------------------- rematch (§13)


def _finished_game(table: Table | None) -> PreviousGame | None:
    """The game just played, if a rematch may follow it (over, with no verdict; Split
    or Splito)."""
    if table is None or not table.core.finished or table.core.verdict is not None:
        return None
    return PreviousGame(table.log.header, table.log.head())


def _next_dealer_name(prev: PreviousGame) -> str:
    return shown(prev.header.players[prev.next().first_dealer].name)


def _deals(prev: PreviousGame) -> str:
    """Who deals the rematch, in words: "Ana deals first" (Split, R3.2), "Ana deals,
    S4.1" (Splito, whose one deal the dealer's left neighbour receives first)."""
    name = _next_dealer_name(prev)
    rule = dealer_rule(prev.header.settings)
    return f"{name} deals first" if rule == "R3.2" else f"{name} deals, {rule}"


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


def _rematch_game_id(prev: PreviousGame, test_seed: int | None) -> bytes:
    """A new game id; with ``--test-seed``, derived from the previous one (replayable)."""
    if test_seed is None:
        return new_game_id()
    import hashlib

    return hashlib.sha256(b"splitnet/rematch" + prev.game_id).digest()[:16]


class _Offers:
    """What the host's own bots (``--bots``) learn after game ``k``: does a rematch
    follow? (They agree to every one.)"""

    def __init__(self) -> None:
        self._after: dict[int, asyncio.Future[bool]] = {}

    def _at(self, k: int) -> asyncio.Future[bool]:
        if k not in self._after:
            self._after[k] = asyncio.get_running_loop().create_future()
        return self._after[k]

    def tell(self, k: int, offered: bool) -> None:
        f = self._at(k)
        if not f.done():
            f.set_result(offered)

    async def offered(self, k: int) -> bool:
        return await self._at(k)


def _node_like(node: PeerNode, **kw: Any) -> PeerNode:
    """A new node to the host ``node`` plays with: the same identity, address, join
    code, parts and level; ``kw`` says what else it is (a rematch, a resume)."""
    kw = {"connect": node.connect, **kw}
    return PeerNode(node.identity, node.data_dir, node.name, node.host, node.port, node.net,
                    seed_maker=node.seed_maker, wrap=node.wrap, code=node.code,
                    parts=node.parts, bot_level=node.bot_level, where=node.where, **kw)


async def _rematch_peer(node: PeerNode, prev: PreviousGame) -> PeerNode:
    """A node for the rematch of ``prev`` with the host ``node`` played with (NETWORK.md
    §13). Through a wormhole, the finished game's node ends first (the host closes that
    game once every final ack is in; bounded by ``final_wait``), then the rematch meets
    the host on the next code of this seat's resume chain (:class:`_Invited`)."""
    link = node.connect
    if not isinstance(link, _Invited):
        return _node_like(node, rematch_of=prev)
    await _game_ended(node)
    link = await link.next_game()
    new = _node_like(node, rematch_of=prev, connect=link)
    link.follow(new)
    return new


#: seconds a host whose rematch lobby ended without a game goes on telling the seats
#: still coming back for it why (each joiner comes once it has checked its own copy of
#: the game, then retries every ``retry_max`` s at most; on a loaded machine that took
#: longer than the 5 s this was, and the joiner then waited ``rematch_wait`` for nothing)
TELL_THE_REST = 15.0
#: seconds a person's ``join``, quitting at the end screen, spends at most telling the
#: host it leaves (a host gone or offering nothing costs no more than that)
LEAVE_BUDGET = 5.0


async def _say_we_leave(node: PeerNode, prev: PreviousGame) -> None:
    """The person quit at the end screen: tell the host, so that a rematch it offers
    ends at once naming this seat instead of waiting ``rematch_wait`` for it (NETWORK.md
    §13). Still on the finished game, the host hears it from this seat back in that game
    (an ``answer`` no before its final ack, as a seat that never stays); in its rematch
    lobby, from a node that looks for the offer and says no to it."""
    table = node.table
    assert table is not None
    try:
        meta = table.files.load_meta()
    except (OSError, ValueError):
        return
    loop = asyncio.get_running_loop()
    deadline = loop.time() + LEAVE_BUDGET
    for how in ({"resume": meta}, {"rematch_of": prev}):  # back in the game, in the lobby
        try:
            telling = _node_like(node, leaves_after=True, **how)
        except (OSError, ValueError):
            return
        task = telling.start()
        try:
            await asyncio.wait([task], timeout=max(0.0, deadline - loop.time()))
        finally:
            await stop(task, PeerFatal)
        if telling.fatal_code is not ErrorCode.UNKNOWN_GAME:
            return  # said (or the host is gone); else it is on another game: its rematch's
        _log.info("the host is on another game (its rematch lobby): saying no there")


def _no_rematch(node: PeerNode) -> None:
    print(shown(node.fatal or "no rematch"), flush=True)


async def _game_ended(node: PeerNode) -> None:
    """Let the finished game's node take the rest of what its host sends (the host's
    word on a rematch, then its bye), bounded by ``final_wait``: the host opens no
    rematch lobby before that either (NETWORK.md §13)."""
    if node.task is not None and not node.task.done():
        await asyncio.wait([node.task], timeout=node.net.final_wait)


async def _no_offer_follows(node: PeerNode) -> bool:
    """Did the host of ``node``'s finished game say it offers no rematch of it (its
    ``answer`` no, §13)? Then there is nothing to look for: say so."""
    await _game_ended(node)
    if not node.host_offers_no_rematch:
        return False
    print(f"no rematch: the host at {shown(node.where)} offers none after this game",
          flush=True)
    return True


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
            lobby = JoinLobby(node, known=known)
            if args.plain:
                ok = await plain_lobby(lobby, node.started_evt, task, host=False)
            else:
                from splitnet.ui.tui import run_lobby

                lobby_task = asyncio.create_task(run_lobby(lobby, title="splitnet — rematch"))
                try:
                    await asyncio.wait([lobby_task, task],
                                       return_when=asyncio.FIRST_COMPLETED)
                    ok = lobby_task.done() and lobby_task.result()
                finally:
                    await stop(lobby_task)
            if not ok and node.table is None and not task.done():
                await node.decline(f"{node.name} left")  # the player left: no rematch
            if not ok or not await _wait_start(node, task, report=False):
                _no_rematch(node)
                return rc
            assert node.table is not None
            _remember_players(known, node.table)
            session = _human_session(node, task)
            rc, wanted = await _front_end(session, args.plain, data_dir, _bell_wanted(args),
                                          rematch=True)
            if wanted:
                await _game_ended(node)
        finally:
            await stop(task, PeerFatal)
    prev = _finished_game(node.table)
    if rc == 0 and prev is not None and not node.leaves_after:  # (said as its game ended)
        await _say_we_leave(node, prev)  # n was not pressed: the player leaves
    return rc


async def _offer_rematch(old: HostNode, prev: PreviousGame, *, bind: str, port: int,
                         test_seed: int | None, wrap: Any,
                         wormholes: Callable[[HostNode, GameFiles], Awaitable[None]]
                         | None = None) -> HostNode:
    """The host's rematch lobby: the finished game's node closes (after its final acks),
    a new one listens on the same address with the same join code and offers the next
    game to the same seats (NETWORK.md §13). ``wormholes`` (``host --internet``) moves
    the seats' resume chains to the new game's files before it is offered, so that it
    waits for them there (:func:`_invitations`)."""
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(old.done.wait(), old.net.final_wait)
    await old.close()
    gid = _rematch_game_id(prev, test_seed)
    node = HostNode(old.identity, old.data_dir, old.name, old.net, proofs=old.proofs,
                    seed_maker=old.seed_maker, game_id_maker=lambda: gid, wrap=wrap,
                    code=old.code, busy=secure_busy, rematch_of=prev, parts=old.parts,
                    left=old.left_after)
    port = await node.listen(bind, port)
    if wormholes is not None:
        await wormholes(node, GameFiles(old.data_dir, gid))
    # kept before it is offered: a host killed in its rematch lobby offers it again
    _keep_lobby(node, old.data_dir, gid, port, bind, old.code, rematch_of=prev.game_id.hex())
    _say_offered(prev, old.code, internet=wormholes is not None)
    return node


def _say_offered(prev: PreviousGame, code: str, *, internet: bool = False) -> None:
    how = (" (those invited through the internet by themselves, through their resume "
           "wormholes)" if internet else "")
    print(f"Rematch offered to the same seats ({_deals(prev)}); they "
          f"come back with the same join code ({code}){how}. Waiting for every player to "
          "agree…", flush=True)


def _chain_index(data_dir: Path, settings: Mapping[str, object]) -> int:
    """How many games before this one (its header ``settings``) its chain of rematches
    holds in ``data_dir`` (0: no rematch), following each header's ``rematch.game``."""
    from splitnet.session.log import Log, LogError
    from splitnet.session.transcript import TranscriptError, read_transcript

    count = 0
    for _ in range(100_000):
        try:
            r = parse_rematch(settings)
        except RematchError:
            break
        if r is None:
            break
        count += 1
        try:
            log = Log()
            log.append_record(read_transcript(GameFiles(data_dir, r.game).transcript,
                                              repair=True)[0])
        except (OSError, ValueError, IndexError, LogError, TranscriptError):
            break
        settings = log.header.settings
    return count


def _saved_previous(data_dir: Path, meta: GameMeta) -> PreviousGame:
    """The finished game a saved rematch lobby (``meta.rematch_of``) offers the rematch
    of, from this host's own files. SystemExit (one line) if they do not give it."""
    try:
        return _previous_on_disk(data_dir, bytes.fromhex(meta.rematch_of))
    except ValueError as e:
        raise SystemExit(f"splitnet: cannot offer the rematch of game {meta.rematch_of} "
                         f"again: {shown(str(e))[:200]} (start another game with --new)"
                         ) from None


def _finished_copy(data_dir: Path) -> Callable[[bytes], PreviousGame | None]:
    """How a joiner started afresh finds the game whose rematch the host offers it (its
    program was restarted in the rematch lobby, NETWORK.md §13): its own finished copy
    in ``data_dir``, or None (it then says no)."""
    def find(gid: bytes) -> PreviousGame | None:
        try:
            return _previous_on_disk(data_dir, gid)
        except ValueError as e:
            _log.warning("no finished copy of game %s here: %s", gid.hex(), e)
            return None

    return find


def _previous_on_disk(data_dir: Path, gid: bytes) -> PreviousGame:
    """A finished game of this data directory as a rematch follows it: its meta says it
    is over, its transcript gives the header and the final head (ValueError, one line,
    if they do not)."""
    from splitnet.session.log import Log, LogError
    from splitnet.session.transcript import TranscriptError, read_transcript

    files = GameFiles(data_dir, gid)
    try:
        over = files.load_meta().finished
        if over:
            log = Log()
            for rec in read_transcript(files.transcript, repair=True):
                log.append_record(rec)
            return PreviousGame(log.header, log.head())
    except (OSError, ValueError, TypeError, LogError, TranscriptError) as e:
        raise ValueError(f"{files.transcript.name}: {e}") from None
    raise ValueError(f"game {gid.hex()} is not over")


async def _rematch_lobby(node: HostNode, address: str, plain: bool,
                         known: KnownPeers | None) -> bool:
    """Until every seat agreed (True: the rematch has started) or the rematch ended
    without a game (a no, a seat that left or did not answer, the host's q)."""
    done = asyncio.create_task(node.done.wait())
    lobby = rematch_host_lobby(node, address, known)
    try:
        if plain:
            ok = await plain_lobby(lobby, node.started, done, host=False)
        else:
            from splitnet.ui.tui import run_lobby

            screen = asyncio.create_task(run_lobby(lobby, title="splitnet — rematch"))
            try:
                await until(node.started, screen, done)
                ok = node.started.is_set()
            finally:
                await stop(screen)
            if not ok and not node.done.is_set():
                node.end_rematch(f"{node.name} called off the rematch", by_host=True)
    finally:
        await stop(done)
    if not ok:
        print(shown(node.no_rematch or "no rematch"), flush=True)
        if not node.called_off:  # the seats still coming back for it are told why
            await node.tell_the_rest(max(TELL_THE_REST, 2 * node.net.retry_max + 1.0))
    return ok


def rematch_host_lobby(node: HostNode, address: str, known: KnownPeers | None) -> HostLobby:
    """The host's rematch lobby model: the host's lobby with a line saying who agreed."""
    return HostLobby(node, address, code=node.code, known=known,
                     extra=lambda: [_agreed_line(node)])


def _agreed_line(node: HostNode) -> str:
    prev = node.rematch_of
    if prev is None:
        return ""
    names = [p.name for p in prev.header.players]
    yes = [shown(names[s]) for s in sorted(node.agreed)]
    waiting = [shown(n) for s, n in enumerate(names) if s not in node.agreed]
    left = node.rematch_left()
    clock = f" ({time_left(left)} left)" if left is not None else ""
    return (f"Rematch: {', '.join(yes)} agreed" +
            (f"; waiting for {', '.join(waiting)}{clock}" if waiting else ""))


# ---------------------------------------------------------------------- host


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
        seed = test_seed * 100 + node.table.seat if test_seed is not None else _random_seed()
        session = _bot_session(node, task, level, seed, think)
        await session.run()
    finally:
        await stop(task, PeerFatal)
    if offers is not None:  # the host's own bots agree to every rematch it offers
        await _bot_rematches(node, level, seed, think, offered=offers.offered, quiet=True)


def _random_seed() -> int:
    import secrets

    return secrets.randbits(31)


_WILDCARD = ("", "0.0.0.0", "::")


class _Announcer:
    """The game on the LAN over mDNS while its lobby is open (protocol/DISCOVERY.md): the
    seats free kept up to date, withdrawn (goodbye packets) when the game starts or the
    host stops. It runs beside the lobby; when the LAN will not have it the host says so
    and goes on — joining by address works all the same. Never the join code."""

    def __init__(self, node: HostNode, name: str, port: int, bind: str,
                 fingerprint: str) -> None:
        self.node = node
        self.name = name
        self.port = port
        self.bind = bind
        self.fingerprint = fingerprint
        self.status: str | None = None
        self.on_change: Callable[[], None] = lambda: None
        self._wake = asyncio.Event()
        self._stop = False
        self._task: asyncio.Task[None] | None = None

    def free(self) -> int:
        return max(0, (self.node.seats or self.node.choice.max_players)
                   - len(self.node.lobby_names))

    def start(self) -> None:
        self.node.subscribe(self._wake.set)
        self._task = asyncio.create_task(self._run())

    def _say(self, status: str, *, warn: bool = False) -> None:
        self.status = status
        (_log.warning if warn else _log.info)("%s", status)
        self.on_change()

    async def _run(self) -> None:
        from splitnet.net.discovery import LAN_ERRORS, SERVICE_TYPE, announce

        if self.bind not in _WILDCARD and ":" in self.bind:
            self._say("not announced on the LAN (announcements are IPv4 only): players "
                      "join by address")
            return
        only = None if self.bind in _WILDCARD else [self.bind]
        try:
            ann = await announce(game=f"{self.name}'s game", host=self.name, port=self.port,
                                 free=self.free(), seats=self.node.seats,
                                 protocol=NET_PROTOCOL, fingerprint=self.fingerprint,
                                 addresses=only, interfaces=only,
                                 kind=self.node.choice.spec.key)
        except LAN_ERRORS as e:  # no multicast, zeroconf's own errors: go on
            self._say(f"could not announce the game on the LAN ({type(e).__name__}: {e}); "
                      f"players join by address", warn=True)
            return
        try:
            label = ann.name.removesuffix("." + SERVICE_TYPE)
            self._say(f"announced on the LAN as {label!r} ('splitnet join' with no "
                      f"address finds it)")
            while not self._stop and not self.node.started.is_set():
                self._wake.clear()
                free = self.free()
                if free != ann.free:
                    await ann.update(free=free)
                await self._wake.wait()
        except LAN_ERRORS as e:
            _log.warning("LAN announcement failed: %s: %s", type(e).__name__, e)
        finally:
            await ann.close()
            self._say("no longer announced on the LAN")

    async def close(self) -> None:
        """Withdraw the announcement (bounded: a stuck network does not hold the host)."""
        self._stop = True
        self._wake.set()
        task = self._task
        if task is None:
            return
        if not task.done():
            await asyncio.wait([task], timeout=3.0)
        if not task.done():  # stuck: cancelled, and its goodbye (ann.close) cut short too
            task.cancel()
            await asyncio.wait([task], timeout=1.0)
        await stop(task)


def _keep_lobby(node: HostNode, data_dir: Path, gid: bytes, port: int, bind: str,
                code: str, rematch_of: str = "") -> None:
    """Save the lobby's game id, code, port and address durably before they are printed
    (``lobby`` true; a rematch lobby also names the finished game, ``rematch_of``); mark
    it finished when the host closes its lobby (a crash leaves it to be opened again by
    the same command)."""
    files = GameFiles(data_dir, gid)
    try:
        for old in unfinished_games(data_dir, "host", skip_damaged=True):
            if old.lobby and old.gid != gid:  # --new: an older lobby is closed for good
                old.finished = True
                GameFiles(data_dir, old.gid).save_meta(old)
        files.save_meta(meta_now(game_id=gid.hex(), role="host", seat=0, name=node.name,
                                 host="", port=port, bind=bind, code=code, lobby=True,
                                 rematch_of=rematch_of))
    except OSError as e:
        raise SystemExit(f"splitnet: cannot save the game in {files.meta.parent}: "
                         f"{e.strerror or e}") from None

    def closed() -> None:
        with contextlib.suppress(OSError, ValueError):
            meta = files.load_meta()
            if meta.lobby:
                meta.finished = True
                files.save_meta(meta)

    node.on_close.append(closed)


async def host_main(args: argparse.Namespace, parts: TableParts = LAN_PARTS) -> int:
    if not (args.plain or args.play_as_bot):
        need_terminal("host")
    data_dir = _data_dir(args)
    net = _net_settings(args.net_timing)
    wh_settings = _wormhole_settings(args, net, data_dir) if args.internet else None
    identity = _identity(data_dir)
    known = _known_peers(data_dir)  # (a damaged file: its one line before anything)
    if args.open_hand_after is not None:
        least = net.open_hand_offer
        if not least <= args.open_hand_after <= 7 * 24 * 3600:
            raise SystemExit(f"splitnet: --open-hand-after must be {least:g}…604800 seconds "
                             f"(every player's program waits at least {least:g} s before a "
                             "seat is given up: GAME.md limits)")
        net.open_hand_after = args.open_hand_after
    seed_maker, game_id_maker = _test_secrets(args.test_seed)
    ui_log = None if (args.plain or args.play_as_bot) else data_dir / "net.log"
    _setup_logging("host", ui_log)
    spec = by_key(args.game)
    hosting = front_end(spec)
    if args.settings is not None and args.seats is None:
        args.seats = hosting.seats_of(args.settings)  # a file that fixes the seats
    low, high, rule = spec.min_players, spec.max_players, spec.seat_rule
    if args.seats is not None and not low <= args.seats <= high:
        raise SystemExit(f"splitnet: --seats must be {low}–{high} for {spec.title} ({rule})")
    if not 0 <= args.bots <= high - 1:
        raise SystemExit(f"splitnet: --bots must be 0–{high - 1} for {spec.title} ({rule})")
    if hosting.proofs_only is not None and args.no_proofs:
        raise SystemExit(f"splitnet: {spec.title} is dealt with shuffle proofs only "
                         f"({hosting.proofs_only}): drop --no-proofs")
    choice = hosting.choice(args.settings, args.seats, net.move_timeout, not args.no_proofs)
    meta: GameMeta | None = None
    if args.resume:
        meta = _find_game(data_dir, args.resume, "host")
    elif not args.new:
        open_games = unfinished_games(data_dir, "host")
        if open_games:
            meta = open_games[0]
            what = ("the rematch lobby of game" if meta.lobby and meta.rematch_of else
                    "the lobby of game" if meta.lobby else "unfinished game")
            print(f"Resuming {what} {meta.game_id} (use --new to start another).",
                  flush=True)
    if (args.seats is None and (meta is None or (meta.lobby and not meta.rematch_of))
            and stdin_closed()):  # the lobby would wait for an Enter that cannot come
        raise SystemExit("splitnet host: stdin is closed, so nobody can press Enter to "
                         "start the game: pass --seats N to start it when N players are in")
    # one join code per game: a restarted host reuses it, so its players reconnect
    code_text = args.code or (meta.code if meta is not None else "")
    code = _parse_code(code_text) if code_text else new_code()
    limiter = AttemptLimiter()
    lobby: HostLobby | None = None

    def refused(peer: str, e: SecureError) -> None:
        _log.warning("refused %s: %s", peer, e)
        if lobby is not None:
            lobby.changed()

    nodes: list[HostNode] = []
    wrap = node_wrap(code, net, limiter=limiter, on_refused=refused,
                 seats=lambda: nodes[0].player_keys() if nodes else set())
    if args.internet:  # a wormhole's channel: its agreed key is the password (NETWORK.md §12)
        wrap = wormhole.per_channel_wrap(
            lambda pw: node_wrap(pw, net, limiter=limiter, on_refused=refused,
                             seats=lambda: nodes[0].player_keys() if nodes else set()),
            wrap)
    if meta is not None and meta.finished:
        raise SystemExit(f"splitnet: game {meta.game_id} is already over")
    if meta is not None and meta.code != str(code):
        meta.code = str(code)
        GameFiles(data_dir, meta.gid).save_meta(meta)
    if meta is not None and not meta.lobby:
        gid = meta.gid
        try:
            node = HostNode.resume(identity, data_dir, meta, net, seed_maker=seed_maker,
                                   wrap=wrap, busy=secure_busy, parts=parts)
        except (OSError, ValueError) as e:
            raise SystemExit(f"splitnet: cannot resume game {meta.game_id}: {e}") from None
        port = args.port if args.port else meta.port  # "--port 0" again: the same port
        bind = args.bind or meta.bind or "0.0.0.0"
    elif meta is not None and meta.rematch_of:
        # killed in its rematch lobby (NETWORK.md §13): the same offer again, to the same
        # seats, with the same game id and code — the joiners looking for it get back in
        gid = meta.gid
        node = HostNode(identity, data_dir, meta.name, net, proofs=not args.no_proofs,
                        seed_maker=seed_maker, game_id_maker=lambda: gid, wrap=wrap,
                        code=str(code), busy=secure_busy,
                        rematch_of=_saved_previous(data_dir, meta), parts=parts)
        port = args.port if args.port else meta.port
        bind = args.bind or meta.bind or "0.0.0.0"
    else:
        # the game id is drawn now and kept with the code from the moment they are
        # printed: a host restarted in its lobby opens the same lobby (NETWORK.md §9)
        gid = (meta.gid if meta is not None else
               game_id_maker() if game_id_maker is not None else new_game_id())
        node = HostNode(identity, data_dir, args.name, net, seats=args.seats,
                        proofs=not args.no_proofs, seed_maker=seed_maker,
                        game_id_maker=lambda: gid, wrap=wrap, code=str(code),
                        busy=secure_busy, parts=parts, choice=choice)
        if meta is not None:
            port = args.port if args.port else meta.port  # "--port 0" again: the same
            bind = args.bind or meta.bind or "0.0.0.0"
        else:
            port = args.port if args.port is not None else DEFAULT_PORT
            bind = args.bind or "0.0.0.0"
    nodes.append(node)
    try:
        port = await node.listen(bind, port)
    except OSError as e:
        hint = ""
        if e.errno == errno.EADDRINUSE:
            hint = (" — another program (another splitnet host?) uses that port: choose "
                    "another with --port N, or --port 0 for any free one")
        raise SystemExit(f"splitnet: cannot listen on {bind}:{port}: {e.strerror or e}"
                         f"{hint}") from None
    if node.table is None:
        _keep_lobby(node, data_dir, gid, port, bind, str(code),
                    rematch_of=node.rematch_of.game_id.hex() if node.rematch_of else "")
    addrs = join_addresses(bind, port)
    print("Players join with:", flush=True)
    for a in addrs:
        print(f"  splitnet join {a}", flush=True)
    print(f"Join code: {code}", flush=True)
    print("  (tell it to the players yourself: it is never sent or announced; "
          + ("the same as before, so running players reconnect by themselves)"
             if meta is not None else "each game has its own)"), flush=True)
    print(f"Host key fingerprint: {identity.fingerprint()}", flush=True)
    print(f"listening on port {port}", flush=True)
    invites = (_invitations(args, node, net, lambda: lobby, GameFiles(data_dir, gid),
                            wh_settings) if wh_settings is not None else None)
    announcer: _Announcer | None = None
    if not args.no_announce and not node.started.is_set() and node.rematch_of is None:
        announcer = _Announcer(node, node.name, port, bind, identity.fingerprint())
        announcer.start()
    node_task = asyncio.create_task(node.done.wait())
    bot_tasks: list[asyncio.Task[None]] = []
    level = args.bot_level
    bot_names = _host_bot_names(args)
    bots_line = ("Bots here: " + ", ".join(bot_label(nm, level) for nm in bot_names)
                 if bot_names else None)
    if spec.named:  # (the first game is not: its lines are as they always were)
        bots_line = f"Game: {spec.title}, {args.seats or f'up to {high}'} seats" + (
            f"; {bots_line}" if bots_line else "")
    if bots_line:
        print(bots_line, flush=True)
    offers = _Offers()  # after each game: does a rematch follow? (for the bots here)
    own_levels: dict[bytes, str] = {}  # the bots here, by key: listed at once in the lobby
    for i, bot_name in enumerate(bot_names):
        bdir = data_dir / "bots" / f"bot{i + 1}"
        own_levels[_identity(bdir).public_key_bytes()] = level
        bot_addr = "127.0.0.1" if bind in _WILDCARD else bind
        bot_tasks.append(asyncio.create_task(_run_bot_client(
            bdir, bot_name, level, bot_addr, port, net, seed_maker,
            args.test_seed, code, args.think, offers=offers, rematch_of=node.rematch_of,
            parts=parts)))
    rc = 1
    # --rematches K counts the games after the first: a restarted host goes on counting
    # from the game it resumes (or whose rematch it offers again)
    upcoming = node.table.log.header if node.table is not None else None
    done_before = (_chain_index(data_dir, upcoming.settings) if upcoming is not None else
                   _chain_index(data_dir, node.rematch_of.header.settings) + 1
                   if node.rematch_of is not None else 0)
    rematches_left = max(0, args.rematches - done_before) if args.play_as_bot else 0

    async def rewire(rematch: HostNode, files: GameFiles) -> None:
        """``host --internet``: the finished game's wormholes close; the rematch waits
        for each seat that came through one on the next codes of its resume chain, and
        opens no invitation in its lobby (NETWORK.md §13)."""
        nonlocal invites
        assert invites is not None and rematch.rematch_of is not None and wh_settings
        old, invites = invites, None
        await old.close()
        try:
            old.hand_over({p.key for p in rematch.rematch_of.header.players},
                          ResumeFile(files.wormhole))
        except OSError as e:
            raise SystemExit(f"splitnet: cannot save {files.wormhole}: "
                             f"{e.strerror or e}") from None
        invites = _invitations(args, rematch, net, lambda: lobby, files, wh_settings)

    try:
        if not node.started.is_set() and node.rematch_of is not None:
            _say_offered(node.rematch_of, str(code), internet=invites is not None)
            if not await _rematch_lobby(node, addrs[0], bool(args.play_as_bot or args.plain),
                                        known):
                return 1
        elif not node.started.is_set():
            ann = announcer
            lobby = HostLobby(node, addrs[0], code=str(code), limiter=limiter, known=known,
                              levels=own_levels,
                              extra=lambda: ([bots_line] if bots_line else [])
                              + ([ann.status] if ann and ann.status else [])
                              + _invitation_lines(invites, args))
            if announcer is not None:
                announcer.on_change = lobby.changed
            if _lobby_in_lines(args):
                ok = await plain_lobby(lobby, node.started, node_task,
                                        host=args.seats is None)
            else:
                from splitnet.ui.tui import run_lobby

                ok = await run_lobby(lobby, title="splitnet — host")
            if not ok:
                return 1
        await node.started.wait()
        for game_no in range(1_000_000):  # a game, then each rematch (NETWORK.md §13)
            table = node.table
            assert table is not None
            _remember_players(known, table)
            # a bot host whose --rematches are spent tells the seats, before its bye,
            # that no offer follows (§13): those that stay for rematches stop at once
            node.offers_no_rematch = bool(args.play_as_bot) and rematches_left <= 0
            if args.play_as_bot:
                seed = (args.test_seed * 100 + table.seat if args.test_seed is not None
                        else _random_seed()) + 1000 * game_no
                session = _bot_session(node, node_task, args.play_as_bot, seed, args.think)
                _follow(session, args.verbose)
                await session.run()
                rc = _print_result(session)
                _bench_out(session, args.bench_out)
                wanted = rematches_left > 0
                rematches_left -= 1
            else:
                session = _human_session(node, node_task)
                if invites is not None and isinstance(session, NetSession):
                    session.extra_notes = lambda: [
                        f"to rejoin: splitnet join {i.code}" for i in invites.open if i.code]
                rc, wanted = await _front_end(session, args.plain, data_dir,
                                              _bell_wanted(args), rematch=True, host=True)
            prev = _finished_game(node.table)
            offers.tell(game_no, wanted and prev is not None)
            if not wanted or prev is None:
                break
            node = await _offer_rematch(node, prev, bind=bind, port=port,
                                        test_seed=args.test_seed, wrap=wrap,
                                        wormholes=None if invites is None else rewire)
            nodes[0] = node  # the join-code layer lets the seats' keys past its limits
            if not await _rematch_lobby(node, addrs[0], bool(args.play_as_bot or args.plain),
                                        known):
                break
            node_task = asyncio.create_task(node.done.wait())
        if bot_tasks:  # the bots here finish their game (their final acks), or are stopped
            await asyncio.wait(bot_tasks, timeout=net.final_wait)
        return rc
    finally:
        try:
            if announcer is not None:
                await announcer.close()
            for t in bot_tasks:
                await stop(t)
            await node.close()
            await stop(node_task)
        finally:
            # every wormhole closed while the loop runs, also when a stop above passed on
            # the cancellation that ends us (Ctrl-C, SIGTERM): else their tasks are
            # cancelled as the loop ends and Twisted calls into the closed loop
            if invites is not None:
                await invites.close()
                wormhole.stop_twisted()


# ---------------------------------------------------------------------- join / bot


def _words_once(show: bool) -> Callable[[SecureLink], None]:
    """The joiner's ``on_secure``: print the verification words of the first secure link
    (if ``show``), not again on every reconnect."""
    shown = False

    def secure(link: SecureLink) -> None:
        nonlocal shown
        if show and not shown:
            shown = True
            print(f"Verification: {link.verification} — compare with the host's screen",
                  flush=True)
    return secure


def _peer_node(args: argparse.Namespace, data_dir: Path, identity: Identity,
               net: NetSettings, seed_maker: SeedMaker | None, *,
               show_words: bool, retyped: bool = False,
               choice: JoinChoice | None = None,
               leaves_after: bool = False,
               parts: TableParts) -> tuple[PeerNode, bool]:
    """The joiner's node: resumes the unfinished game ``choice`` names (by default: the
    one joined at this very address, if there is one; :func:`join_choice`) with the code kept
    from the first time, else asks for the code. Also: was the code typed at the prompt
    (then a wrong one may be asked for again)? ``leaves_after``: no rematch will follow
    here, and the node tells the host as its game ends (NETWORK.md §13)."""
    if is_wormhole_code(args.addr):
        return _wormhole_peer(args, data_dir, identity, net, seed_maker,
                              show_words=show_words, parts=parts,
                              leaves_after=leaves_after), False
    if choice is None:  # (a bot: the game joined at this very address)
        choice = join_choice(args.addr, args.new,
                             unfinished_games(data_dir, "peer", skip_damaged=args.new),
                             guess=False)
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


def _bot_level(args: argparse.Namespace) -> str | None:
    """The level a ``splitnet bot`` says in the host's lobby (``--level``); None for
    ``splitnet join`` (a person)."""
    return getattr(args, "level", None)


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
            if m.host == _host_port(host, port):
                return JoinChoice(addr, m, _resuming(m, m.host))
    if not guess or not lan:
        return JoinChoice(addr)
    if len(lan) > 1:
        return JoinChoice(addr, several=lan)
    m = lan[0]
    try:
        target = m.host if addr is None else _host_port(*parse_addr(addr, m.port))
    except ValueError:
        return JoinChoice(addr)
    return JoinChoice(target, m, _resuming(m, target))


def _host_port(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


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


def _ask_again(node: PeerNode, typed: bool, tries: int) -> bool:
    """The host refused the code that was typed: say so and ask again (the host's own
    limit, 3 per address, ends this)?"""
    if not (typed and isinstance(node.fatal_cause, WrongCode) and tries < MAX_CODE_PROMPTS):
        return False
    if not _logs_on_stderr:  # else the log said it already
        print(f"splitnet: {node.fatal_cause}", file=sys.stderr, flush=True)
    return True


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
    where = _host_port(host, port)
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


async def _wait_start(node: PeerNode, task: asyncio.Future[Any], report: bool = True) -> bool:
    await until(node.started_evt, task)
    if node.table is None:
        await stop(task, PeerFatal)  # it stopped: why is node.fatal
        if report:
            _report_fatal(node)
        return False
    return True


async def _choose_game(timeout: float, interfaces: list[str] | None) -> Any:
    """``splitnet join`` with no address: the games announced on the LAN, to pick one
    (a :class:`~splitnet.net.discovery.GameAd`, or None to give up)."""
    from splitnet.net.discovery import LAN_ERRORS, list_games

    print(f"Looking for splitnet games on the LAN ({timeout:g} s)…", flush=True)
    try:
        found = await list_games(timeout, interfaces=interfaces)
    except LAN_ERRORS as e:  # no multicast on this machine
        raise SystemExit(f"splitnet: cannot look for games on the LAN ({type(e).__name__}: "
                         f"{e}); join by address: splitnet join ADDR[:PORT]") from None
    games = [g for g in found if g.address]
    if not games:
        raise SystemExit(f"No splitnet games found on the LAN in {timeout:g} s. Ask the host "
                         "for the address it shows, then: splitnet join ADDR[:PORT]")
    for i, g in enumerate(games, 1):
        note = ""
        if g.protocol != NET_PROTOCOL:
            note = f"  (speaks {g.protocol}: cannot join)"
        elif g.free == 0:
            note = "  (full)"
        print(f"  {i}. {g.describe()}{note}", flush=True)
    prompt = (f"Join which game? [1–{len(games)}, Enter: 1, q: quit] " if len(games) > 1
              else "Join it? [Enter: yes, q: quit] ")
    while True:
        try:
            text = _ask(prompt).strip().lower()
        except EOFError:
            return None
        if text in ("q", "quit", "n", "no"):
            return None
        pick = 1 if text in ("", "y", "yes") else int(text) if text.isdigit() else 0
        if not 1 <= pick <= len(games):
            print(f"Type a number from 1 to {len(games)}.", flush=True)
            continue
        ad = games[pick - 1]
        if ad.protocol != NET_PROTOCOL:
            print(f"That host speaks {ad.protocol}, this splitnet {NET_PROTOCOL}.",
                  flush=True)
            continue
        return ad


def _wormhole_settings(args: argparse.Namespace, net: NetSettings, data_dir: Path
                       ) -> wormhole.WormholeSettings:
    """The servers of internet play: ``--mailbox``/``--relay``, else the ``internet``
    entry of ``DATA_DIR/network.json``, else magic-wormhole's public ones (NETWORK.md
    §12); a bad one stops the command in one line before anything happens."""
    try:
        servers = load_internet_servers(data_dir / NETWORK_FILE)
    except LocalFileError as e:
        raise SystemExit(f"splitnet: {e}") from None
    mailbox, relay = servers.mailbox, servers.relay
    for opt, given, check in (("--mailbox", args.mailbox, check_mailbox),
                              ("--relay", args.relay, check_relay)):
        if given is not None:
            try:
                check(given)
            except ValueError as e:
                raise SystemExit(f"splitnet: {opt}: {shown(str(e))}") from None
    mailbox = args.mailbox if args.mailbox is not None else mailbox
    relay = args.relay if args.relay is not None else relay
    return wormhole.WormholeSettings(mailbox=mailbox or PUBLIC_MAILBOX,
                                     relay=relay or PUBLIC_RELAY,
                                     no_listen=args.relay_only, idle_after=net.wormhole_idle)


class _Invited:
    """How a guest through an invitation reaches its host: ``await link()`` is a fresh
    channel (a :class:`~splitnet.net.peer.PeerNode`'s ``connect``), through
    ``connector``; ``first`` runs once, after the first wormhole met (a bot takes its
    name from the host's table)."""

    def __init__(self, connector: wormhole.WormholeConnector,
                 first: Callable[[], None] | None = None) -> None:
        self.connector = connector
        self._first = first

    async def __call__(self) -> Channel:
        try:
            ch = await self.connector()
        except wormhole.WormholeFailed as e:  # used, unknown, wrong: no retry helps
            raise PeerFatal(str(e)) from None
        first, self._first = self._first, None
        if first is not None:  # (before the hello, which carries the name)
            first()
        return ch

    def follow(self, node: PeerNode) -> None:
        """The resume secret remembers ``node``'s game once it started: the same command
        then finds that game again (NETWORK.md §12)."""
        def started() -> None:
            if node.table is not None:
                self.connector.set_game(node.table.game_id.hex())

        node.subscribe(started)
        started()

    async def next_game(self) -> _Invited:
        """The link of the next game with this host, a rematch: the next code of the
        same resume chain (NETWORK.md §13); this one is retired."""
        return _Invited(await self.connector.successor())


def _wormhole_peer(args: argparse.Namespace, data_dir: Path, identity: Identity,
                   net: NetSettings, seed_maker: SeedMaker | None, *,
                   show_words: bool, parts: TableParts,
                   leaves_after: bool = False) -> PeerNode:
    """A joiner through the wormhole ``args.addr`` (a code the host printed). It resumes
    this player's latest unfinished game joined through a wormhole (the host then proves
    it is that game's host, the guest its seat, by their keys), unless ``--new``."""
    settings = _wormhole_settings(args, net, data_dir)
    # the same command again (the process was killed): the invitation is spent, its
    # resume secret brings us back to the host (NETWORK.md §12, "Resume")
    resume = invitation_resume_file(data_dir, args.addr)
    try:
        chains = [] if args.new else resume.load()
    except ValueError as e:
        raise SystemExit(f"splitnet: {e}") from None
    chain = chains[0] if chains else None
    meta = None
    if not args.new:
        for m in unfinished_games(data_dir, "peer"):
            if m.host == _WORMHOLE_HOST and (chain is None or not chain.game_id
                                             or chain.game_id == m.game_id):
                meta = m
                print(f"Resuming game {m.game_id} through the wormhole (seat {m.seat}).",
                      flush=True)
                break
    over = (chain.game_id if chain is not None and chain.game_id and meta is None
            else None)
    prev: PreviousGame | None = None  # its game is over here: only its rematch is left
    if over is not None:  # (killed in the rematch lobby, NETWORK.md §13 step 7)
        done = [m for m in saved_games(data_dir, "peer", finished=True, skip_damaged=True)
                if m.game_id == over]
        with contextlib.suppress(ValueError):
            prev = (_previous_on_disk(data_dir, bytes.fromhex(over))
                    if done and not leaves_after else None)
        if prev is None:
            raise SystemExit(f"splitnet: the invitation {args.addr} was for game {over}, "
                             f"which is over here: ask the host for a new one")
        args.name = done[0].name  # (its seat's name; a bot picks none)
        print(f"Game {over} of this invitation is over here: looking for its rematch "
              "through a resume wormhole (the host offers it to that game's seats).",
              flush=True)
    elif chain is not None and meta is None:
        print("Back to the host's lobby through a resume wormhole.", flush=True)
    secure = _words_once(show_words)
    nodes: list[PeerNode] = []

    def progress(text: str) -> None:  # the lobby's status line while the wormhole opens
        if nodes and nodes[0].session.state is JoinState.CONNECTING:
            nodes[0].net_status = text
            nodes[0]._changed()

    connector = wormhole.WormholeConnector(None if chain else args.addr, settings,
                                           max_buffer=net.max_send_buffer, resume=resume,
                                           chain=chain, on_progress=progress)

    # a bot's name, once the host's table is told
    pick: Callable[[list[str]], str] | None = getattr(args, "pick_name", None)

    def named() -> None:
        if meta is None and over is None and pick is not None:
            nodes[0].name = args.name = pick(connector.table_names)
        print(f"Playing as {bot_label(nodes[0].name, args.level)}", flush=True)

    link = _Invited(connector, named if pick is not None else None)
    wrap = wormhole.per_channel_wrap(
        lambda pw: node_wrap(pw, net, on_secure=secure, identity=identity), plain)
    host, port = _WORMHOLE_HOST.split(":")
    try:
        node = PeerNode(identity, data_dir, args.name, host, int(port), net,
                        seed_maker=seed_maker, resume=meta, wrap=wrap, connect=link,
                        parts=parts, bot_level=_bot_level(args), leaves_after=leaves_after,
                        rematch_of=prev, rejoin_rematch=_finished_copy(data_dir),
                        where=f"invitation {args.addr}")
    except (OSError, ValueError) as e:
        raise SystemExit(f"splitnet: cannot resume: {e}") from None
    nodes.append(node)
    said = not getattr(args, "plain", True)  # (the full screen's lobby names the host)

    def started() -> None:
        nonlocal said
        name = _host_name(node)
        if not said and name is not None and node.session.state in _IN_GAME:
            said = True
            print(f"Joined the game hosted by {shown(name)} (invitation {args.addr}).",
                  flush=True)

    link.follow(node)
    node.subscribe(started)
    started()
    return node


#: a joiner's states once the host let it in (join_state.py)
_IN_GAME = (JoinState.LOBBY, JoinState.CATCHING_UP, JoinState.PLAYING, JoinState.FINISHED)


def _host_name(node: PeerNode) -> str | None:
    """The host's name at the table or in the lobby (its key's), once known."""
    if node.table is not None:
        return node.table.names[node.table.host_seat]
    for name, key in zip(node.lobby_players, node.lobby_keys, strict=False):
        if key == node.host_key:
            return name
    return None


class _InvitationLobby(JoinLobby):
    """A joiner's lobby through an invitation: it names the host, by its name at the
    table, and the invitation — not the wormhole's stand-in address (wormhole:0)."""

    def __init__(self, node: PeerNode, invitation: str, **kw: Any) -> None:
        self.invitation = invitation
        super().__init__(node, **kw)

    def _sync(self) -> None:
        super()._sync()
        if self.node.session.state in _IN_GAME:
            self.address_label = "Joined the game hosted by:"
            self.address = shown(f"{_host_name(self.node) or 'the host'} (invitation "
                                 f"{self.invitation})")
        else:
            self.address_label = "Joining through the invitation:"
            self.address = self.invitation


#: what a joiner through a wormhole keeps as its host's address (the game's meta file)
_WORMHOLE_HOST = "wormhole:0"


def _invited(node: PeerNode) -> bool:
    """Did this joiner come in through a wormhole invitation (not a LAN address)?"""
    return f"{node.host}:{node.port}" == _WORMHOLE_HOST


def _invitations(args: argparse.Namespace, node: HostNode, net: NetSettings,
                 lobby: Callable[[], HostLobby | None], files: GameFiles,
                 settings: wormhole.WormholeSettings) -> wormhole.Invitations:
    """``host --internet``: one wormhole waiting per free seat in the lobby (a fresh one
    as each is claimed), one while a seat is away during the game (its player's rejoin)."""
    guests: int = (args.seats or node.choice.max_players) - 1  # seats besides the host's

    def wanted() -> int:
        if node.done.is_set() or (node.rematch_of is not None and node.table is None):
            return 0  # a rematch lobby: its seats come back on their resume chains (§13)
        if not node.started.is_set():
            through = {m.conn.peer for m in node.members
                       if m.conn is not None and m.conn.peer.startswith("wormhole-")}
            others = len(node.members) - len(through)  # by address: bots here, LAN players
            pending = sum(1 for i in invites.claimed if i.peer not in through)
            bots: int = args.bots
            return max(0, guests - max(others, bots) - len(through) - pending)
        return 1 if any(st is not Presence.OK for st, _ in node.seat_states().values()) else 0

    def show(code: str) -> None:
        # each invitation printed once, as README.md words it, where output is lines (the
        # full-screen lobby and table show them themselves: lobby info, status line)
        if args.plain or args.play_as_bot or (_lobby_in_lines(args)
                                              and not node.started.is_set()):
            print(f"Invitation: splitnet join {code}", flush=True)
        _log.info("wormhole invitation %s", code)
        lb = lobby()
        if lb is not None and not node.started.is_set():
            lb.changed()
        node._changed()  # the table's status line

    try:
        invites = wormhole.Invitations(
            settings, node.serve_channel, show, wanted,
            max_buffer=net.max_send_buffer, resume=ResumeFile(files.wormhole),
            on_failed=lambda why: print(f"splitnet: {why}", file=sys.stderr, flush=True),
            names=lambda: list(dict.fromkeys([*node.lobby_names, *_host_bot_names(args)])))
    except ValueError as e:
        raise SystemExit(f"splitnet: {e}") from None
    kept = False

    def seats() -> None:
        """Each wormhole guest's resume secret is bound to the key its handshake proved;
        at the start only the seated guests' are kept."""
        nonlocal kept
        conns = [m.conn for m in node.members if m.conn is not None]
        for c in [*conns, *node.conns.values()]:
            if c.key is not None and c.peer.startswith("wormhole-"):
                invites.bind(c.peer, c.key)
        if node.table is not None and node.ready and not kept:
            kept = True
            invites.keep(node.player_keys())
        invites.refresh()

    node.subscribe(seats)
    invites.refresh()
    return invites


def _lobby_in_lines(args: argparse.Namespace) -> bool:
    """Is the host's lobby printed line by line (:func:`plain_lobby`), not full-screen?"""
    return bool(args.play_as_bot or args.plain or args.seats is not None)


def _host_bot_names(args: argparse.Namespace) -> list[str]:
    """The names of ``host --bots``' bots, run here."""
    return [bot_player_name(i, taken=[args.name]) for i in range(args.bots)]


def _free_bot_name(index: int, names: list[str]) -> str:
    """The ``index``-th friendly name none of ``names`` has (the host makes names
    distinct regardless of case: ``ana`` would make Ana ``Ana-2``)."""
    taken = {n.lower() for n in names}
    return bot_player_name(index, taken=[nm for nm in FRIENDLY_NAMES if nm.lower() in taken])


def _invitation_lines(invites: wormhole.Invitations | None,
                      args: argparse.Namespace) -> list[str]:
    """The full-screen lobby's lines for the invitations open (a lobby printed line by
    line has none: each invitation is printed once as it opens)."""
    if invites is None or _lobby_in_lines(args):
        return []
    codes = [i.code for i in invites.open if i.code]
    return [f"Invitation: splitnet join {c}" for c in codes] or [
        "Opening a wormhole invitation…"]


async def join_main(args: argparse.Namespace, parts: TableParts = LAN_PARTS) -> int:
    if not args.plain:
        need_terminal("join")
    data_dir = _data_dir(args)
    net = _net_settings(args.net_timing)
    if args.addr and is_wormhole_code(args.addr):
        _wormhole_settings(args, net, data_dir)  # a bad server: refused before anything
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
        choice = join_choice(args.addr, args.new,
                             unfinished_games(data_dir, "peer", skip_damaged=args.new),
                             guess=False)
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
        if args.plain:
            ok = await plain_lobby(lobby, node.started_evt, task, host=False)
        else:
            from splitnet.ui.tui import run_lobby

            lobby_task = asyncio.create_task(run_lobby(lobby, title="splitnet — join"))
            try:
                await asyncio.wait([lobby_task, task], return_when=asyncio.FIRST_COMPLETED)
                ok = lobby_task.done() and lobby_task.result()
            finally:  # and wait: what is printed before the screen is restored is lost
                await stop(lobby_task)
        if not ok or not await _wait_start(node, task, report=False):
            return None
    assert node.table is not None
    _remember_players(known, node.table)
    session = _human_session(node, task)
    rc, wanted = await _front_end(session, args.plain, data_dir, _bell_wanted(args),
                                  rematch=True)
    return await _join_rematches(node, args, data_dir, known, rc, wanted)


def _bot_name_index(identity: Identity) -> int:
    """Which friendly name a bot without ``--name`` takes: one that follows from its key,
    so the same bot (the same data dir) has the same name in every game — a host that
    knows its key sees no "now calls itself" — and another bot most likely another."""
    digest = hashlib.sha256(b"splitnet bot name" + identity.public_key_bytes()).digest()
    return int.from_bytes(digest[:8], "big") % len(FRIENDLY_NAMES)


async def bot_main(args: argparse.Namespace, parts: TableParts = LAN_PARTS) -> int:
    data_dir = _data_dir(args)
    net = _net_settings(args.net_timing)
    if args.addr and is_wormhole_code(args.addr):
        _wormhole_settings(args, net, data_dir)  # a bad server: refused before anything
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
    choice = join_choice(args.addr, args.new,  # (the game joined at this very address)
                         unfinished_games(data_dir, "peer", skip_damaged=args.new),
                         guess=False)
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
        seed = (args.test_seed * 100 + table.seat if args.test_seed is not None
                else _random_seed())
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


# ---------------------------------------------------------------------- argparse


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


def run_command(command: str, args: argparse.Namespace) -> int:
    """Run ``host``, ``join`` or ``bot`` (as parsed by
    :func:`splitnet.app.lan_args.add_parsers`) under :func:`_run`."""
    main = {"host": host_main, "join": join_main, "bot": bot_main}[command]
    return _run(main, args)
