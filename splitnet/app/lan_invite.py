"""Internet play through magic-wormhole (NETWORK.md §12): ``host --internet``'s
invitations, one per free seat (:func:`_invitations`), and a guest's way in through one
(:func:`_wormhole_peer`: its link, :class:`_Invited`; its lobby,
:class:`_InvitationLobby`)."""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from splitnet.app.lan_common import (
    _WORMHOLE_HOST,
    _bot_level,
    _finished_copy,
    _host_bot_names,
    _lobby_in_lines,
    _log,
    _previous_on_disk,
    _words_once,
    _wormhole_settings,
)
from splitnet.game.rematch import PreviousGame
from splitnet.games.split.bots import bot_label
from splitnet.net import wormhole
from splitnet.net.config import NetSettings
from splitnet.net.frames import Presence
from splitnet.net.host import HostNode
from splitnet.net.join_state import JoinState
from splitnet.net.links import node_wrap
from splitnet.net.peer import PeerFatal, PeerNode
from splitnet.net.store import (
    GameFiles,
    ResumeFile,
    invitation_resume_file,
    saved_games,
    unfinished_games,
)
from splitnet.net.table import SeedMaker, TableParts
from splitnet.net.wire import Channel, ChannelWrap, WireError, plain
from splitnet.session.identity import Identity
from splitnet.text import shown
from splitnet.ui.lobby import HostLobby, JoinLobby

# ---------------------------------------------------------------- the host's invitations


def _invitations(args: argparse.Namespace, node: HostNode, net: NetSettings,
                 lobby: Callable[[], HostLobby | None], files: GameFiles,
                 settings: wormhole.WormholeSettings) -> wormhole.Invitations:
    """``host --internet``: one wormhole waiting per free seat in the lobby (a fresh one
    as each is claimed), one while a seat is away during the game (its player's rejoin),
    none once the game is over."""
    guests: int = (args.seats or node.choice.max_players) - 1  # seats besides the host's

    def wanted() -> int:
        if node.done.is_set() or (node.rematch_of is not None and node.table is None):
            return 0  # a rematch lobby: its seats come back on their resume chains (§13)
        if node.table is not None and node.table.core.finished:
            # the game is over: a seat away now (gone after its last record) fetches the
            # end on its resume chain; no new invitation is printed after the results
            return 0
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


def _watch_invitations(args: argparse.Namespace, node: HostNode, net: NetSettings,
                       lobby: Callable[[], HostLobby | None], files: GameFiles,
                       settings: wormhole.WormholeSettings) -> wormhole.Invitations:
    """``host --internet``, a game that takes watchers: one *watch invitation* open while
    the game is not over (NETWORK.md §14.8) — a wormhole whose channels may only watch,
    served by the same :class:`~splitnet.net.watchers.Watchers` as a LAN watcher's, a
    fresh one printed as each is claimed. Each claimed one gives its watcher a resume
    secret, as a player's invitation does (kept in ``GAME_ID.watch.wormhole``): a killed
    watcher runs the same command again and meets the host on its resume wormhole. It
    is an :class:`~splitnet.net.wormhole.Invitations` of its own — its claims, failures
    and resume secrets are never the players'."""

    def wanted() -> int:
        over = node.table is not None and node.table.core.finished
        # a rematch lobby opens no invitation of any kind (NETWORK.md §13): its watch
        # invitation opens as its game starts
        rematch_lobby = node.rematch_of is not None and node.table is None
        return (0 if node.done.is_set() or over or rematch_lobby
                or node.watchers.desk.limit <= 0 else 1)

    def show(code: str) -> None:
        if args.plain or args.play_as_bot or (_lobby_in_lines(args)
                                              and not node.started.is_set()):
            print(f"Watch invitation: splitnet watch {code}  (it gives no seat)", flush=True)
        _log.info("wormhole watch invitation %s", code)
        lb = lobby()
        if lb is not None and not node.started.is_set():
            lb.changed()

    try:
        invites = wormhole.Invitations(
            settings, node.serve_channel, show, wanted, max_buffer=net.max_send_buffer,
            resume=ResumeFile(watch_resume_path(files)), watch=True,
            on_failed=lambda why: print(f"splitnet: watch invitation: {why}",
                                        file=sys.stderr, flush=True),
            names=lambda: list(dict.fromkeys([*node.lobby_names, *_host_bot_names(args)])))
    except ValueError as e:
        raise SystemExit(f"splitnet: {e}") from None
    node.subscribe(invites.refresh)
    invites.refresh()
    return invites


def watch_resume_path(files: GameFiles) -> Path:
    """``DATA_DIR/games/GAME_ID.watch.wormhole``: the host's resume secrets of the
    watchers that came through its watch invitations (the players' are in
    ``GAME_ID.wormhole``)."""
    return files.wormhole.with_name(files.wormhole.stem + ".watch.wormhole")


def _invitation_lines(invites: wormhole.Invitations | None,
                      args: argparse.Namespace) -> list[str]:
    """The full-screen lobby's lines for the invitations open (a lobby printed line by
    line has none: each invitation is printed once as it opens)."""
    if invites is None or _lobby_in_lines(args):
        return []
    codes = [i.code for i in invites.open if i.code]
    return [f"Invitation: splitnet join {c}" for c in codes] or [
        "Opening a wormhole invitation…"]


def reworded(inner: ChannelWrap, when: str, text: str) -> ChannelWrap:
    """``inner``, whose failures whose reason begins with ``when`` say ``text`` instead
    (fatal): through a wormhole whose PAKE succeeded, a refused handshake means the
    code was the other kind of invitation — a watch invitation used to join, or a join
    invitation used to watch (NETWORK.md §14.8)."""

    async def wrap(channel: Channel, role: str) -> Channel:
        try:
            return await inner(channel, role)
        except WireError as e:
            if e.reason.startswith(when):
                raise WireError(e.code, text, fatal=True) from None
            raise

    return wrap


# ---------------------------------------------------------------------- a guest's way in


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
    wrap = wormhole.per_channel_wrap(lambda pw: reworded(
        node_wrap(pw, net, on_secure=secure, identity=identity), "wrong code",
        f"the invitation {args.addr} is not a join invitation: the host took it for its "
        f"watch invitation, which gives no seat (splitnet watch {args.addr} watches) — "
        f"ask the host for a join invitation"), plain)
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
