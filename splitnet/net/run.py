"""``splitnet host``, ``splitnet join`` and ``splitnet bot``: the LAN commands."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import sys
from collections.abc import Callable
from dataclasses import fields
from pathlib import Path
from typing import Any

from splitnet.bots import make_bot
from splitnet.frontend import HumanAgent
from splitnet.net.addrs import join_addresses, parse_addr
from splitnet.net.config import DEFAULT_PORT, NetSettings
from splitnet.net.host import MAX_PLAYERS, HostNode
from splitnet.net.peer import PeerFatal, PeerNode
from splitnet.net.session import HostLobby, JoinLobby, NetSession
from splitnet.net.store import GameMeta, games_dir, read_meta, unfinished_games
from splitnet.net.table import SeedMaker
from splitnet.session.identity import Identity, IdentityError, default_data_dir

_log = logging.getLogger("splitnet.net")


# ---------------------------------------------------------------------- shared helpers


def _data_dir(args: argparse.Namespace) -> Path:
    return Path(args.data_dir).expanduser() if args.data_dir else default_data_dir()


def _identity(data_dir: Path) -> Identity:
    try:
        return Identity.load_or_create(data_dir)
    except (IdentityError, OSError) as e:
        raise SystemExit(f"splitnet: {e}") from None


def _net_settings(text: str | None) -> NetSettings:
    """``--net-timing ping_interval=0.2,host_timeout=2`` (tests and slow networks)."""
    net = NetSettings()
    if not text:
        return net
    known = {f.name: f.type for f in fields(NetSettings)}
    for part in text.split(","):
        k, _, v = part.partition("=")
        k = k.strip()
        if k not in known:
            raise SystemExit(f"splitnet: unknown timing {k!r}; one of {', '.join(known)}")
        setattr(net, k, int(v) if known[k] in ("int", int) else float(v))
    return net


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


def _setup_logging(role: str, to_file: Path | None = None, verbose: bool = False) -> None:
    logger = logging.getLogger("splitnet")
    logger.setLevel(logging.INFO)
    for h in list(logger.handlers):
        logger.removeHandler(h)
    if to_file is not None:
        to_file.parent.mkdir(parents=True, exist_ok=True)
        handler: logging.Handler = logging.FileHandler(to_file, encoding="utf-8")
        handler.setFormatter(logging.Formatter("%(asctime)s " + role + ": %(message)s"))
    else:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("splitnet " + role + ": %(message)s"))
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


def _print_result(session: NetSession) -> int:
    from splitnet.selfplay import summary

    core = session.core
    if core.finished:
        print(summary(core.record), flush=True)
        print(f"transcript: {session.table.files.transcript}", flush=True)
        return 0
    print(session.verdict or "the game did not finish", file=sys.stderr, flush=True)
    return 1


def _bench_out(session: NetSession, path: str | None) -> None:
    """``--bench-out FILE``: this seat's timings and the game record, as JSON."""
    if path:
        import json

        Path(path).write_text(json.dumps({"seat": session.seat, "timings": session.timings,
                                          "record": session.core.record}))


def _follow(session: NetSession, verbose: bool) -> None:
    """A bot's console: round lines, verdicts (every line with ``verbose``)."""
    printed = 0

    def show() -> None:
        nonlocal printed
        for line in session.log[printed:]:
            if verbose or line.startswith(("Round ", "  ", "Resumed", "game stopped")):
                print(line, flush=True)
        printed = len(session.log)

    session.subscribe(show)


async def _front_end(session: NetSession, plain: bool, data_dir: Path) -> int:
    if plain:
        from splitnet.ui.plain import run_plain

        return await run_plain(session)
    from splitnet.ui.tui import run_tui

    await run_tui(session)
    return _print_result(session)


async def _plain_lobby(lobby: Any, started: asyncio.Event, stop: asyncio.Future[Any],
                       host: bool) -> bool:
    """The lobby on a plain terminal: print who is in; the host types Enter to start."""
    shown: list[str] = []

    def show() -> None:
        nonlocal shown
        if lobby.players != shown:
            shown = list(lobby.players)
            print("In the lobby: " + ", ".join(shown), flush=True)

    lobby.subscribe(show)
    show()
    loop = asyncio.get_running_loop()
    reader: asyncio.Future[str] | None = None
    if host:
        print("Press Enter to start the game when everyone is in (2–6 players).", flush=True)
    try:
        while not started.is_set() and not stop.done():
            waits: list[asyncio.Future[Any]] = [asyncio.ensure_future(started.wait()), stop]
            if host:
                if reader is None:
                    reader = loop.run_in_executor(None, sys.stdin.readline)
                waits.append(reader)
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
            waits[0].cancel()
            if reader is not None and reader.done():
                line = reader.result()
                reader = None
                if not line:
                    host = False  # no more input: wait for --seats or nothing
                    continue
                if line.strip().lower() in ("", "s", "start"):
                    try:
                        await lobby.start()
                    except ValueError as e:
                        print(f"! {e}", flush=True)
                elif line.strip().lower() in ("q", "quit"):
                    return False
    finally:
        pass
    return started.is_set()


# ---------------------------------------------------------------------- host


async def _run_bot_client(data_dir: Path, name: str, level: str, addr: str, port: int,
                          net: NetSettings, seed_maker: SeedMaker | None,
                          test_seed: int | None) -> None:
    """An in-process bot peer: the same code as ``splitnet bot``, over (loopback) TCP."""
    identity = _identity(data_dir)
    metas = unfinished_games(data_dir, "peer")
    node = PeerNode(identity, data_dir, name, addr, port, net, seed_maker=seed_maker,
                    resume=metas[0] if metas else None)
    task = node.start()
    waiter = asyncio.ensure_future(node.started_evt.wait())
    await asyncio.wait([task, waiter], return_when=asyncio.FIRST_COMPLETED)
    waiter.cancel()
    if node.table is None:
        await task
        return
    seed = test_seed * 100 + node.table.seat if test_seed is not None else None
    bot = make_bot(level, seed if seed is not None else _random_seed())
    session = NetSession(node, task, bot=bot)
    await session.run()


def _random_seed() -> int:
    import secrets

    return secrets.randbits(31)


def _stop_on_sigterm() -> None:
    """SIGTERM ends the command like Ctrl-C: cleanly (a host says bye to everyone)."""
    import signal

    task = asyncio.current_task()
    if task is not None:
        with contextlib.suppress(NotImplementedError, RuntimeError):
            asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, task.cancel)


async def host_main(args: argparse.Namespace) -> int:
    _stop_on_sigterm()
    data_dir = _data_dir(args)
    identity = _identity(data_dir)
    net = _net_settings(args.net_timing)
    seed_maker, game_id_maker = _test_secrets(args.test_seed)
    ui_log = None if (args.plain or args.play_as_bot) else data_dir / "net.log"
    _setup_logging("host", ui_log)
    if args.seats is not None and not 2 <= args.seats <= MAX_PLAYERS:
        raise SystemExit("splitnet: --seats must be 2–6 (R3.1)")
    if not 0 <= args.bots <= 5:
        raise SystemExit("splitnet: --bots must be 0–5")
    meta: GameMeta | None = None
    if args.resume:
        meta = _find_game(data_dir, args.resume, "host")
    elif not args.new:
        open_games = unfinished_games(data_dir, "host")
        if open_games:
            meta = open_games[0]
            print(f"Resuming unfinished game {meta.game_id} (use --new to start another).",
                  flush=True)
    if meta is not None:
        if meta.finished:
            raise SystemExit(f"splitnet: game {meta.game_id} is already over")
        try:
            node = HostNode.resume(identity, data_dir, meta, net, seed_maker=seed_maker)
        except (OSError, ValueError) as e:
            raise SystemExit(f"splitnet: cannot resume game {meta.game_id}: {e}") from None
        port = args.port if args.port else meta.port  # "--port 0" again: the same port
        bind = args.bind or meta.bind or "0.0.0.0"
    else:
        node = HostNode(identity, data_dir, args.name, net, seats=args.seats,
                        proofs=not args.no_proofs, seed_maker=seed_maker,
                        game_id_maker=game_id_maker)
        port = args.port if args.port is not None else DEFAULT_PORT
        bind = args.bind or "0.0.0.0"
    try:
        port = await node.listen(bind, port)
    except OSError as e:
        raise SystemExit(f"splitnet: cannot listen on {bind}:{port}: {e}") from None
    addrs = join_addresses(bind, port)
    print("Players join with:", flush=True)
    for a in addrs:
        print(f"  splitnet join {a}", flush=True)
    print(f"Host key fingerprint: {identity.fingerprint()}", flush=True)
    print(f"listening on port {port}", flush=True)
    node_task = asyncio.ensure_future(node.done.wait())
    bot_tasks = []
    level = args.bot_level
    for i in range(args.bots):
        bdir = data_dir / "bots" / f"bot{i + 1}"
        bot_addr = "127.0.0.1" if bind in ("", "0.0.0.0", "::") else bind
        bot_tasks.append(asyncio.ensure_future(_run_bot_client(
            bdir, f"{level.title()}{i + 1}", level, bot_addr, port, net, seed_maker,
            args.test_seed)))
    rc = 1
    try:
        if not node.started.is_set():
            if args.play_as_bot or args.plain or args.seats is not None:
                ok = await _plain_lobby(HostLobby(node, addrs[0]), node.started, node_task,
                                        host=args.seats is None)
            else:
                from splitnet.ui.tui import run_lobby

                ok = await run_lobby(HostLobby(node, addrs[0]), title="splitnet — host")
            if not ok:
                return 1
        await node.started.wait()
        if args.play_as_bot:
            table = node.table
            assert table is not None
            seed = (args.test_seed * 100 + table.seat if args.test_seed is not None
                    else _random_seed())
            session = NetSession(node, node_task, bot=make_bot(args.play_as_bot, seed))
            _follow(session, args.verbose)
            await session.run()
            rc = _print_result(session)
            _bench_out(session, args.bench_out)
        else:
            session = NetSession(node, node_task, human=HumanAgent())
            rc = await _front_end(session, args.plain, data_dir)
        for t in bot_tasks:
            with contextlib.suppress(asyncio.TimeoutError, Exception):
                await asyncio.wait_for(t, net.final_wait)
        return rc
    finally:
        for t in bot_tasks:
            t.cancel()
        await node.close()


# ---------------------------------------------------------------------- join / bot


def _peer_node(args: argparse.Namespace, data_dir: Path, identity: Identity,
               net: NetSettings, seed_maker: SeedMaker | None) -> PeerNode:
    try:
        host, port = parse_addr(args.addr)
    except ValueError as e:
        raise SystemExit(f"splitnet: {e}") from None
    meta = None
    if not args.new:
        for m in unfinished_games(data_dir, "peer"):
            if m.host == f"{host}:{port}":
                meta = m
                print(f"Resuming game {m.game_id} at {m.host} (seat {m.seat}).", flush=True)
                break
    try:
        return PeerNode(identity, data_dir, args.name, host, port, net, seed_maker=seed_maker,
                        resume=meta)
    except (OSError, ValueError) as e:
        raise SystemExit(f"splitnet: cannot resume: {e}") from None


async def _wait_start(node: PeerNode, task: asyncio.Future[Any]) -> bool:
    waiter = asyncio.ensure_future(node.started_evt.wait())
    await asyncio.wait([task, waiter], return_when=asyncio.FIRST_COMPLETED)
    waiter.cancel()
    if node.table is None:
        with contextlib.suppress(Exception):
            await task
        if node.fatal:
            print(f"splitnet: {node.fatal}", file=sys.stderr, flush=True)
        return False
    return True


async def join_main(args: argparse.Namespace) -> int:
    _stop_on_sigterm()
    data_dir = _data_dir(args)
    identity = _identity(data_dir)
    net = _net_settings(args.net_timing)
    seed_maker, _ = _test_secrets(args.test_seed)
    _setup_logging("join", None if args.plain else data_dir / "net.log")
    node = _peer_node(args, data_dir, identity, net, seed_maker)
    task = node.start()
    try:
        if node.table is None:
            print(f"Your key fingerprint: {identity.fingerprint()}", flush=True)
            if args.plain:
                ok = await _plain_lobby(JoinLobby(node), node.started_evt, task, host=False)
            else:
                from splitnet.ui.tui import run_lobby

                lobby_task = asyncio.ensure_future(run_lobby(JoinLobby(node),
                                                             title="splitnet — join"))
                await asyncio.wait([lobby_task, task], return_when=asyncio.FIRST_COMPLETED)
                ok = lobby_task.done() and lobby_task.result()
                if not lobby_task.done():
                    lobby_task.cancel()
            if not ok or not await _wait_start(node, task):
                if node.fatal:
                    print(f"splitnet: {node.fatal}", file=sys.stderr)
                return 1
        session = NetSession(node, task, human=HumanAgent())
        return await _front_end(session, args.plain, data_dir)
    finally:
        task.cancel()
        with contextlib.suppress(BaseException):
            await task


async def bot_main(args: argparse.Namespace) -> int:
    _stop_on_sigterm()
    data_dir = _data_dir(args)
    identity = _identity(data_dir)
    net = _net_settings(args.net_timing)
    seed_maker, _ = _test_secrets(args.test_seed)
    _setup_logging("bot")
    if args.name is None:
        args.name = f"{args.level.title()}Bot"
    node = _peer_node(args, data_dir, identity, net, seed_maker)
    task = node.start()
    try:
        if not await _wait_start(node, task):
            return 1
        table = node.table
        assert table is not None
        seed = (args.test_seed * 100 + table.seat if args.test_seed is not None
                else _random_seed())
        session = NetSession(node, task, bot=make_bot(args.level, seed),
                             bot_delay=args.delay)
        _follow(session, args.verbose)
        await session.run()
        _bench_out(session, args.bench_out)
        return _print_result(session)
    except PeerFatal as e:
        print(f"splitnet: {e}", file=sys.stderr)
        return 1
    finally:
        task.cancel()
        with contextlib.suppress(BaseException):
            await task


# ---------------------------------------------------------------------- argparse


def _run(main: Any) -> int:
    """asyncio.run, with Ctrl-C or SIGTERM (after a clean shutdown) giving status 130."""
    try:
        rc: int = asyncio.run(main)
    except (KeyboardInterrupt, asyncio.CancelledError):
        print("splitnet: stopped", file=sys.stderr)
        return 130
    return rc



def add_parsers(sub: Any) -> None:
    """Add ``host``, ``join`` and ``bot`` to the ``splitnet`` command."""
    from splitnet.bots import BOTS

    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument("--data-dir", metavar="DIR",
                       help="identity key and saved games (default: "
                            "$XDG_DATA_HOME/splitnet or ~/.local/share/splitnet)")
        p.add_argument("--new", action="store_true",
                       help="start afresh even if this data dir has an unfinished game")
        p.add_argument("--net-timing", metavar="K=V,…", help=argparse.SUPPRESS)
        p.add_argument("--test-seed", type=int, help=argparse.SUPPRESS)
        p.add_argument("--bench-out", metavar="FILE", help=argparse.SUPPRESS)
        p.add_argument("--verbose", "-v", action="store_true",
                       help="print every move (bots)")

    h = sub.add_parser("host", help="open a game on the LAN and play in it")
    h.add_argument("--port", type=int, default=None,
                   help=f"TCP port to listen on (default {DEFAULT_PORT}; 0: any free port)")
    h.add_argument("--bind", default=None, help="address to listen on (default: all)")
    h.add_argument("--name", default="Host", help="your name at the table")
    h.add_argument("--seats", type=int, default=None,
                   help="start automatically when this many players (2–6) are in")
    h.add_argument("--bots", type=int, default=0, help="add K bot players (run here)")
    h.add_argument("--bot-level", default="heuristic", choices=sorted(BOTS),
                   help="kind of the --bots players")
    h.add_argument("--play-as-bot", metavar="LEVEL", choices=sorted(BOTS), default=None,
                   help="a bot plays the host's seat (no screen)")
    h.add_argument("--resume", metavar="GAME_ID", help="resume this unfinished game (id or "
                   "its first hex digits); an unfinished game is resumed anyway unless --new")
    h.add_argument("--plain", action="store_true", help="line-based front end")
    h.add_argument("--no-proofs", action="store_true",
                   help="skip the zero-knowledge shuffle proofs (tests/benchmarks; the header "
                        "records it and every hop is still checked at each round's audit)")
    common(h)
    h.set_defaults(func=lambda a: _run(host_main(a)))

    j = sub.add_parser("join", help="join a game on the LAN")
    j.add_argument("addr", metavar="ADDR[:PORT]")
    j.add_argument("--name", default="Player", help="your name at the table")
    j.add_argument("--plain", action="store_true", help="line-based front end")
    common(j)
    j.set_defaults(func=lambda a: _run(join_main(a)))

    b = sub.add_parser("bot", help="join a game on the LAN as a bot")
    b.add_argument("addr", metavar="ADDR[:PORT]")
    b.add_argument("--level", default="heuristic", choices=sorted(BOTS))
    b.add_argument("--name", default=None, help="the bot's name at the table")
    b.add_argument("--delay", type=float, default=0.0, help="seconds to wait before a move")
    common(b)
    b.set_defaults(func=lambda a: _run(bot_main(a)))
