"""``splitnet host``: the host opens a game (or resumes one, or its lobby, or a rematch
lobby it was killed in), listens where :func:`_listen_address` says, prints how to join,
runs its lobby, its own bots and its seat, and offers the rematches."""

from __future__ import annotations

import argparse
import asyncio
import errno
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Any

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
    _remember_players,
    _seat_seed,
    _setup_logging,
    _test_secrets,
    _wormhole_settings,
)
from splitnet.app.lan_discovery import _Announcer
from splitnet.app.lan_invite import _invitation_lines, _invitations, _watch_invitations
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
from splitnet.cmdline import need_terminal, stdin_closed
from splitnet.durable import atomic_write
from splitnet.frontends import front_end
from splitnet.game.rematch import PreviousGame
from splitnet.games import GameSpec, by_key
from splitnet.games.split.bots import bot_label
from splitnet.net import wormhole
from splitnet.net.addrs import WILDCARD, join_addresses
from splitnet.net.config import DEFAULT_PORT, NetSettings
from splitnet.net.host import HostNode
from splitnet.net.joincode import JoinCode, new_code, parse_code
from splitnet.net.known_peers import KnownPeers
from splitnet.net.links import node_wrap, secure_busy, watch_invitation_wrap
from splitnet.net.secure import AttemptLimiter, SecureError
from splitnet.net.secure_watch import WatchGate
from splitnet.net.store import (
    GameFiles,
    GameMeta,
    ResumeFile,
    games_dir,
    read_meta,
    unfinished_games,
)
from splitnet.net.table import GameChoice, SeedMaker, TableParts
from splitnet.session.identity import Identity
from splitnet.session.log import new_game_id
from splitnet.ui.lobby import HostLobby, plain_lobby


async def host_main(args: argparse.Namespace, parts: TableParts = LAN_PARTS) -> int:
    """``splitnet host``: the exit status of its last game (1: none was played)."""
    if not (args.plain or args.play_as_bot):
        need_terminal("host")
    data_dir = _data_dir(args)
    net = _net_settings(args.net_timing)
    wh_settings = _wormhole_settings(args, net, data_dir) if args.internet else None
    identity = _identity(data_dir)
    known = _known_peers(data_dir)  # (a damaged file: its one line before anything)
    _open_hand_after(args, net)
    seed_maker, game_id_maker = _test_secrets(args.test_seed)
    ui_log = None if (args.plain or args.play_as_bot) else data_dir / "net.log"
    _setup_logging("host", ui_log)
    spec = by_key(args.game)
    choice = _game_choice(args, spec, net)
    meta = _saved_game(args, data_dir)
    if (args.seats is None and (meta is None or (meta.lobby and not meta.rematch_of))
            and stdin_closed()):  # the lobby would wait for an Enter that cannot come
        raise SystemExit("splitnet host: stdin is closed, so nobody can press Enter to "
                         "start the game: pass --seats N to start it when N players are in")
    # one join code per game: a restarted host reuses it, so its players reconnect
    code_text = args.code or (meta.code if meta is not None else "")
    h = _Hosting(args, data_dir, net, known, wh_settings, parts,
                 _parse_code(code_text) if code_text else new_code(),
                 watch=_saved_watch_code(data_dir, meta))
    if meta is not None and meta.finished:
        raise SystemExit(f"splitnet: game {meta.game_id} is already over")
    if meta is not None and meta.code != str(h.code):
        meta.code = str(h.code)
        GameFiles(data_dir, meta.gid).save_meta(meta)
    node, gid = _host_node(h, identity, meta, seed_maker, game_id_maker, choice)
    node.watchers.desk.limit = h.watchers
    _keep_watch_code(data_dir, gid, h.watch_code)
    h.bind, port = _listen_address(args, meta)
    h.nodes.append(node)
    h.port = await _listen(node, h.bind, port)
    if node.table is None:
        _keep_lobby(node, data_dir, gid, h.port, h.bind, str(h.code),
                    rematch_of=node.rematch_of.game_id.hex() if node.rematch_of else "")
    h.addrs = join_addresses(h.bind, h.port)
    print("Players join with:", flush=True)
    for a in h.addrs:
        print(f"  splitnet join {a}", flush=True)
    print(f"Join code: {h.code}", flush=True)
    print("  (tell it to the players yourself: it is never sent or announced; "
          + ("the same as before, so running players reconnect by themselves)"
             if meta is not None else "each game has its own)"), flush=True)
    if h.watch_code is not None:
        print(f"Watch code: {h.watch_code}  (splitnet watch {h.addrs[0]} — up to "
              f"{h.watchers} watchers at once; it gives no seat)", flush=True)
    print(f"Host key fingerprint: {identity.fingerprint()}", flush=True)
    print(f"listening on port {h.port}", flush=True)
    if wh_settings is not None:
        h.invite(node, GameFiles(data_dir, gid), wh_settings)
    if not args.no_announce and node.rematch_of is None and (
            not node.started.is_set() or h.watchers > 0):  # (a game resumed: to watch)
        h.announcer = _Announcer(node, node.name, h.port, h.bind, identity.fingerprint())
        h.announcer.start()
    h.node_task = asyncio.create_task(node.done.wait())
    try:
        bots_line = _start_bots(h, spec, node.rematch_of, seed_maker)
        return await _host_games(h, node, bots_line)
    finally:
        await h.close()


def _listen_address(args: argparse.Namespace, meta: GameMeta | None) -> tuple[str, int]:
    """Where the host listens (address, port): ``--bind`` and ``--port`` if given, else
    the saved game's (``meta``: a game resumed, a lobby or rematch lobby opened again) —
    where its players look for it; ``--port 0`` again is that same port too — else every
    address, on :data:`~splitnet.net.config.DEFAULT_PORT` (``--port 0``: any free one)."""
    if meta is not None:
        return args.bind or meta.bind or "0.0.0.0", args.port if args.port else meta.port
    return args.bind or "0.0.0.0", args.port if args.port is not None else DEFAULT_PORT


async def _listen(node: HostNode, bind: str, port: int) -> int:
    """``node`` listening on ``bind``:``port``: the port (``port`` 0: the one it got); a
    port in use, or any other refusal, stops the command in one line."""
    try:
        return await node.listen(bind, port)
    except OSError as e:
        hint = ""
        if e.errno == errno.EADDRINUSE:
            hint = (" — another program (another splitnet host?) uses that port: choose "
                    "another with --port N, or --port 0 for any free one")
        raise SystemExit(f"splitnet: cannot listen on {bind}:{port}: {e.strerror or e}"
                         f"{hint}") from None


def _open_hand_after(args: argparse.Namespace, net: NetSettings) -> None:
    """``--open-hand-after SECONDS``, checked against the least every program waits."""
    if args.open_hand_after is None:
        return
    least = net.open_hand_offer
    if not least <= args.open_hand_after <= 7 * 24 * 3600:
        raise SystemExit(f"splitnet: --open-hand-after must be {least:g}…604800 seconds "
                         f"(every player's program waits at least {least:g} s before a "
                         "seat is given up: GAME.md limits)")
    net.open_hand_after = args.open_hand_after


def _game_choice(args: argparse.Namespace, spec: GameSpec, net: NetSettings) -> GameChoice:
    """The lobby's game from ``--game``, ``--settings``, ``--seats`` (a settings file may
    fix them), ``--bots`` and ``--no-proofs``, each checked against the game's limits."""
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
    return hosting.choice(args.settings, args.seats, net.move_timeout, not args.no_proofs)


def _saved_game(args: argparse.Namespace, data_dir: Path) -> GameMeta | None:
    """The game this host takes up again: ``--resume``'s, else (unless ``--new``) its
    newest unfinished one — a game, its lobby or a rematch lobby — said in one line."""
    if args.resume:
        return _find_game(data_dir, args.resume, "host")
    if args.new:
        return None
    open_games = unfinished_games(data_dir, "host")
    if not open_games:
        return None
    meta = open_games[0]
    what = ("the rematch lobby of game" if meta.lobby and meta.rematch_of else
            "the lobby of game" if meta.lobby else "unfinished game")
    print(f"Resuming {what} {meta.game_id} (use --new to start another).", flush=True)
    return meta


def _find_game(data_dir: Path, prefix: str, role: str) -> GameMeta:
    d = games_dir(data_dir)
    hits = [p for p in d.glob(f"{prefix.lower()}*.meta")] if d.is_dir() else []
    metas = [m for m in (read_meta(p) for p in hits) if m.role == role]
    if len(metas) != 1:
        raise SystemExit(f"splitnet: {'no' if not metas else 'more than one'} {role} game "
                         f"{prefix!r} in {d}")
    return metas[0]


def _host_node(h: _Hosting, identity: Identity, meta: GameMeta | None,
               seed_maker: SeedMaker | None, game_id_maker: Callable[[], bytes] | None,
               choice: GameChoice) -> tuple[HostNode, bytes]:
    """The host's node and its game id: the saved game ``meta`` resumed, its rematch
    lobby offered again, its lobby opened again, or a new game's lobby."""
    args, data_dir, net, parts, code = h.args, h.data_dir, h.net, h.parts, str(h.code)
    wrap = h.wrap
    if meta is not None and not meta.lobby:
        try:
            return HostNode.resume(identity, data_dir, meta, net, seed_maker=seed_maker,
                                   wrap=wrap, busy=secure_busy, parts=parts), meta.gid
        except (OSError, ValueError) as e:
            raise SystemExit(f"splitnet: cannot resume game {meta.game_id}: {e}") from None
    if meta is not None and meta.rematch_of:
        # killed in its rematch lobby (NETWORK.md §13): the same offer again, to the same
        # seats, with the same game id and code — the joiners looking for it get back in
        gid = meta.gid
        return HostNode(identity, data_dir, meta.name, net, proofs=not args.no_proofs,
                        seed_maker=seed_maker, game_id_maker=lambda: gid, wrap=wrap,
                        code=code, busy=secure_busy,
                        rematch_of=_saved_previous(data_dir, meta), parts=parts), gid
    # the game id is drawn now and kept with the code from the moment they are
    # printed: a host restarted in its lobby opens the same lobby (NETWORK.md §9)
    gid = (meta.gid if meta is not None else
           game_id_maker() if game_id_maker is not None else new_game_id())
    return HostNode(identity, data_dir, args.name, net, seats=args.seats,
                    proofs=not args.no_proofs, seed_maker=seed_maker,
                    game_id_maker=lambda: gid, wrap=wrap, code=code,
                    busy=secure_busy, parts=parts, choice=choice), gid


class _Hosting:
    """What the parts of ``splitnet host`` share while it hosts: its options, data dir
    and join code, the join-code layer of every connection (:attr:`wrap`) with its limit
    on attempts, where it listens, and — as the command goes on — the lobby screen's
    model, the invitations open (``--internet``), the LAN announcement, the bots run
    here, and the node of the game on (each rematch's replaces it: :attr:`nodes`)."""

    def __init__(self, args: argparse.Namespace, data_dir: Path, net: NetSettings,
                 known: KnownPeers | None, wh_settings: wormhole.WormholeSettings | None,
                 parts: TableParts, code: JoinCode, *, watch: JoinCode | None = None) -> None:
        self.args, self.data_dir, self.net, self.known = args, data_dir, net, known
        self.wh_settings, self.parts, self.code = wh_settings, parts, code
        self.limiter = AttemptLimiter()
        self.lobby: HostLobby | None = None
        self.invites: wormhole.Invitations | None = None
        self.announcer: _Announcer | None = None
        self.offers = _Offers()  # after each game: does a rematch follow? (for the bots)
        self.bot_tasks: list[asyncio.Task[None]] = []
        self.own_levels: dict[bytes, str] = {}  # the bots here, by key: listed at once
        self.nodes: list[HostNode] = []  # the node of the game on, once there is one
        self.node_task: asyncio.Task[bool] | None = None
        self.bind, self.port, self.addrs = "", 0, [""]
        #: spectators (NETWORK.md §14): their own code and limiter, never the players'
        self.watchers = 0 if args.no_watchers else args.watchers
        self.watch_code: JoinCode | None = (
            None if not self.watchers else
            watch if watch is not None and str(watch) != str(code) else _watch_code(code))
        self.watch_limiter = AttemptLimiter()
        gate = (WatchGate(self.watch_code, self.watch_limiter)
                if self.watch_code is not None else None)
        self.wrap: Any = node_wrap(code, net, limiter=self.limiter, on_refused=self._refused,
                                   seats=self._seats, watch=gate)
        #: ``--internet`` with watchers: the watch invitation open (NETWORK.md §14.8)
        self.watch_invites: wormhole.Invitations | None = None
        if args.internet:  # a wormhole's channel: its agreed key is the password (§12)
            self.wrap = wormhole.per_channel_wrap(
                lambda pw: node_wrap(pw, net, limiter=self.limiter, on_refused=self._refused,
                                     seats=self._seats), self.wrap,
                watch=None if gate is None else lambda pw: watch_invitation_wrap(
                    pw, net, self.watch_limiter, on_refused=self._refused))

    def _seats(self) -> Collection[bytes]:
        """The seats' keys, which the join-code layer lets past its limits."""
        return self.nodes[0].player_keys() if self.nodes else set()

    def _refused(self, peer: str, e: SecureError) -> None:
        _log.warning("refused %s: %s", peer, e)
        if self.lobby is not None:
            self.lobby.changed()

    def invite(self, node: HostNode, files: GameFiles,
               settings: wormhole.WormholeSettings) -> None:
        """``--internet``: the invitations of ``node``'s game (:func:`_invitations`)."""
        self.invites = _invitations(self.args, node, self.net, lambda: self.lobby, files,
                                    settings)
        if self.watch_code is not None:
            self.watch_invites = _watch_invitations(self.args, node, self.net,
                                                    lambda: self.lobby, files, settings)

    async def rewire(self, rematch: HostNode, files: GameFiles) -> None:
        """``host --internet``: the finished game's wormholes close; the rematch waits
        for each seat that came through one on the next codes of its resume chain, and
        opens no invitation in its lobby (NETWORK.md §13)."""
        assert self.invites is not None and rematch.rematch_of is not None
        assert self.wh_settings is not None
        old, self.invites = self.invites, None
        await old.close()
        watch, self.watch_invites = self.watch_invites, None
        if watch is not None:  # (its watchers' chains end with the game: a fresh one)
            await watch.close()
        try:
            old.hand_over({p.key for p in rematch.rematch_of.header.players},
                          ResumeFile(files.wormhole))
        except OSError as e:
            raise SystemExit(f"splitnet: cannot save {files.wormhole}: "
                             f"{e.strerror or e}") from None
        self.invite(rematch, files, self.wh_settings)

    def rejoin_notes(self) -> list[str]:
        """The table's notes on an internet game: each invitation open, to rejoin by."""
        open_ = self.invites.open if self.invites is not None else []
        return [f"to rejoin: splitnet join {i.code}" for i in open_ if i.code]

    async def close(self) -> None:
        """Everything the host started, stopped: its announcement, its bots, its node,
        and every wormhole."""
        try:
            if self.announcer is not None:
                await self.announcer.close()
            for t in self.bot_tasks:
                await stop(t)
            if self.nodes:
                await self.nodes[0].close()
            if self.node_task is not None:
                await stop(self.node_task)
        finally:
            # every wormhole closed while the loop runs, also when a stop above passed on
            # the cancellation that ends us (Ctrl-C, SIGTERM): else their tasks are
            # cancelled as the loop ends and Twisted calls into the closed loop
            if self.watch_invites is not None:
                await self.watch_invites.close()
            if self.invites is not None:
                await self.invites.close()
                wormhole.stop_twisted()


def _start_bots(h: _Hosting, spec: GameSpec, rematch_of: PreviousGame | None,
                seed_maker: SeedMaker | None) -> str | None:
    """``--bots K``: each bot here started, as a peer of this host over loopback (its
    data dir ``DATA_DIR/bots/botN``); the lobby's line that names them (and a named
    game), printed."""
    args = h.args
    level = args.bot_level
    bot_names = _host_bot_names(args)
    bots_line = ("Bots here: " + ", ".join(bot_label(nm, level) for nm in bot_names)
                 if bot_names else None)
    if spec.named:  # (the first game is not: its lines are as they always were)
        seats = args.seats or f"up to {spec.max_players}"
        bots_line = f"Game: {spec.title}, {seats} seats" + (
            f"; {bots_line}" if bots_line else "")
    if bots_line:
        print(bots_line, flush=True)
    for i, bot_name in enumerate(bot_names):
        bdir = h.data_dir / "bots" / f"bot{i + 1}"
        h.own_levels[_identity(bdir).public_key_bytes()] = level
        bot_addr = "127.0.0.1" if h.bind in WILDCARD else h.bind
        h.bot_tasks.append(asyncio.create_task(_run_bot_client(
            bdir, bot_name, level, bot_addr, h.port, h.net, seed_maker,
            args.test_seed, h.code, args.think, offers=h.offers, rematch_of=rematch_of,
            parts=h.parts)))
    return bots_line


async def _host_games(h: _Hosting, node: HostNode, bots_line: str | None) -> int:
    """The lobby (or the rematch lobby the host was killed in), then the game, then each
    rematch the host offers and every seat agrees to (NETWORK.md §13): the last game's
    exit status."""
    args, data_dir = h.args, h.data_dir
    lines = bool(args.play_as_bot or args.plain)  # (a rematch lobby: printed line by line)
    rematches_left = (max(0, args.rematches - _games_before(data_dir, node))
                      if args.play_as_bot else 0)
    if not node.started.is_set() and node.rematch_of is not None:
        _say_offered(node.rematch_of, str(h.code), internet=h.invites is not None)
        if not await _rematch_lobby(node, h.addrs[0], lines, h.known):
            return 1
    elif not node.started.is_set() and not await _host_lobby(h, node, bots_line):
        return 1
    await node.started.wait()
    rc = 1
    for game_no in range(1_000_000):  # a game, then each rematch (NETWORK.md §13)
        table = node.table
        assert table is not None and h.node_task is not None
        _remember_players(h.known, table)
        # a bot host whose --rematches are spent tells the seats, before its bye,
        # that no offer follows (§13): those that stay for rematches stop at once
        node.offers_no_rematch = bool(args.play_as_bot) and rematches_left <= 0
        if args.play_as_bot:
            seed = _seat_seed(args.test_seed, table.seat) + 1000 * game_no
            session = _bot_session(node, h.node_task, args.play_as_bot, seed, args.think)
            _follow(session, args.verbose)
            await session.run()
            rc = _print_result(session)
            _bench_out(session, args.bench_out)
            wanted = rematches_left > 0
            rematches_left -= 1
        else:
            session = _human_session(node, h.node_task)
            if h.invites is not None and isinstance(session, NetSession):
                session.extra_notes = h.rejoin_notes
            rc, wanted = await _front_end(session, args.plain, data_dir,
                                          _bell_wanted(args), rematch=True, host=True)
        prev = _finished_game(node.table)
        h.offers.tell(game_no, wanted and prev is not None)
        if not wanted or prev is None:
            break
        node = await _offer_rematch(node, prev, bind=h.bind, port=h.port,
                                    test_seed=args.test_seed, wrap=h.wrap,
                                    wormholes=None if h.invites is None else h.rewire)
        h.nodes[0] = node  # the join-code layer lets the seats' keys past its limits
        node.watchers.desk.limit = h.watchers  # (a watcher runs its command again)
        if not await _rematch_lobby(node, h.addrs[0], lines, h.known):
            break
        h.node_task = asyncio.create_task(node.done.wait())
    if h.bot_tasks:  # the bots here finish their game (their final acks), or are stopped
        await asyncio.wait(h.bot_tasks, timeout=h.net.final_wait)
    return rc


async def _host_lobby(h: _Hosting, node: HostNode, bots_line: str | None) -> bool:
    """The host's lobby until the game starts (True) or the host leaves it: printed line
    by line (``--seats``, ``--plain``, ``--play-as-bot``) or full-screen."""
    ann, args = h.announcer, h.args
    assert h.node_task is not None
    h.lobby = lobby = HostLobby(
        node, h.addrs[0], code=str(h.code), limiter=h.limiter, known=h.known,
        levels=h.own_levels,
        extra=lambda: ([bots_line] if bots_line else []) + _watch_lines(h, node)
        + ([ann.status] if ann and ann.status else [])
        + _invitation_lines(h.invites, args))
    if ann is not None:
        ann.on_change = lobby.changed
    if _lobby_in_lines(args):
        return await plain_lobby(lobby, node.started, h.node_task, host=args.seats is None)
    from splitnet.ui.tui import run_lobby

    return await run_lobby(lobby, title="splitnet — host")


def _watch_code(code: JoinCode) -> JoinCode:
    """A watch code for this run of the host: drawn like a join code, never the same."""
    while True:
        watch = new_code()
        if str(watch) != str(code):
            return watch


def _watch_path(data_dir: Path, gid: bytes) -> Path:
    """``DATA_DIR/games/GAME_ID.watch``: the watch code of a game, kept beside its meta
    file so a restarted host uses the same one (its watchers reconnect by themselves)."""
    return GameFiles(data_dir, gid).meta.with_suffix(".watch")


def _saved_watch_code(data_dir: Path, meta: GameMeta | None) -> JoinCode | None:
    """The watch code kept for the game being resumed, if any (a damaged file: none)."""
    if meta is None:
        return None
    try:
        return parse_code(_watch_path(data_dir, meta.gid).read_text().strip())
    except (OSError, ValueError):
        return None


def _keep_watch_code(data_dir: Path, gid: bytes, code: JoinCode | None) -> None:
    path = _watch_path(data_dir, gid)
    if code is None:
        path.unlink(missing_ok=True)
    else:
        atomic_write(path, f"{code}\n".encode(), 0o600)


def _watch_lines(h: _Hosting, node: HostNode) -> list[str]:
    """The lobby's lines on watching: the code, wrong watch codes (who watches: the
    lobby's own line, HostLobby)."""
    if h.watch_code is None:
        return ["not watchable (--no-watchers)"]
    lines = [f"Watch code: {h.watch_code} (up to {h.watchers} watchers)"]
    if h.watch_invites is not None and not _lobby_in_lines(h.args):
        lines += [f"Watch invitation: splitnet watch {i.code}"
                  for i in h.watch_invites.open if i.code]
    if h.watch_limiter.failures or h.watch_limiter.refused:
        lines.append("watchers' " + h.watch_limiter.status())
    return lines


def _games_before(data_dir: Path, node: HostNode) -> int:
    """How many games of its chain of rematches came before ``node``'s (``--rematches K``
    counts the games after the first: a restarted host goes on counting from the game
    it resumes, or whose rematch it offers again)."""
    if node.table is not None:
        return _chain_index(data_dir, node.table.log.header.settings)
    if node.rematch_of is not None:
        return _chain_index(data_dir, node.rematch_of.header.settings) + 1
    return 0
