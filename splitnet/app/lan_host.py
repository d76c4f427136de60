"""``splitnet host``: the host opens a game (or resumes one, or its lobby, or a rematch
lobby it was killed in), listens where :func:`_listen_address` says, prints how to join,
runs its lobby, its own bots and its seat, and offers the rematches."""

from __future__ import annotations

import argparse
import asyncio
import errno
from pathlib import Path

from splitnet.aio import stop
from splitnet.app.lan_bot import _run_bot_client
from splitnet.app.lan_common import (
    _bell_wanted,
    _bench_out,
    _bot_session,
    _data_dir,
    _follow,
    _host_bot_names,
    _human_session,
    _identity,
    _keep_lobby,
    _known_peers,
    _lobby_in_lines,
    _log,
    _net_settings,
    _parse_code,
    _print_result,
    _random_seed,
    _remember_players,
    _setup_logging,
    _test_secrets,
    _wormhole_settings,
)
from splitnet.app.lan_discovery import _WILDCARD, _Announcer
from splitnet.app.lan_invite import _invitation_lines, _invitations
from splitnet.app.lan_rematch import (
    _chain_index,
    _finished_game,
    _offer_rematch,
    _Offers,
    _rematch_lobby,
    _saved_previous,
    _say_offered,
)
from splitnet.app.lan_session import LAN_PARTS, NetSession
from splitnet.app.lan_table import _front_end
from splitnet.bots import bot_label
from splitnet.cmdline import need_terminal, stdin_closed
from splitnet.frontends import front_end
from splitnet.games import by_key
from splitnet.net import wormhole
from splitnet.net.addrs import join_addresses
from splitnet.net.config import DEFAULT_PORT
from splitnet.net.host import HostNode
from splitnet.net.joincode import new_code
from splitnet.net.links import node_wrap, secure_busy
from splitnet.net.secure import AttemptLimiter, SecureError
from splitnet.net.store import (
    GameFiles,
    GameMeta,
    ResumeFile,
    games_dir,
    read_meta,
    unfinished_games,
)
from splitnet.net.table import TableParts
from splitnet.session.log import new_game_id
from splitnet.ui.lobby import HostLobby, plain_lobby


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


def _find_game(data_dir: Path, prefix: str, role: str) -> GameMeta:
    d = games_dir(data_dir)
    hits = [p for p in d.glob(f"{prefix.lower()}*.meta")] if d.is_dir() else []
    metas = [m for m in (read_meta(p) for p in hits) if m.role == role]
    if len(metas) != 1:
        raise SystemExit(f"splitnet: {'no' if not metas else 'more than one'} {role} game "
                         f"{prefix!r} in {d}")
    return metas[0]
