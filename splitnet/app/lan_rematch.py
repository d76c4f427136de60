"""Rematches (NETWORK.md §13): the game just played and who deals next; the host's
offer, its rematch lobby and the chain of games it counts; a seat's way back to its
host for the rematch, or its word that it leaves."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

from splitnet.aio import stop, until
from splitnet.app.lan_common import _keep_lobby, _log, _previous_on_disk
from splitnet.app.lan_invite import _Invited
from splitnet.game.rematch import PreviousGame, RematchError, dealer_rule, parse_rematch
from splitnet.net.host import HostNode
from splitnet.net.known_peers import KnownPeers
from splitnet.net.links import secure_busy
from splitnet.net.peer import PeerFatal, PeerNode
from splitnet.net.store import GameFiles, GameMeta
from splitnet.net.table import Table
from splitnet.net.wire import ErrorCode
from splitnet.session.log import new_game_id
from splitnet.text import shown
from splitnet.ui import time_left
from splitnet.ui.lobby import HostLobby, plain_lobby

# ------------------------------------------------------------------ the game just played


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


# ---------------------------------------------------------------------- the host's offer


def _rematch_game_id(prev: PreviousGame, test_seed: int | None) -> bytes:
    """A new game id; with ``--test-seed``, derived from the previous one (replayable)."""
    if test_seed is None:
        return new_game_id()
    import hashlib

    return hashlib.sha256(b"splitnet/rematch" + prev.game_id).digest()[:16]


#: seconds a host whose rematch lobby ended without a game goes on telling the seats
#: still coming back for it why (each joiner comes once it has checked its own copy of
#: the game, then retries every ``retry_max`` s at most; on a loaded machine that took
#: longer than the 5 s this was, and the joiner then waited ``rematch_wait`` for nothing)
TELL_THE_REST = 15.0


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


# --------------------------------------------------------------------- a seat's way back


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


def _no_rematch(node: PeerNode) -> None:
    print(shown(node.fatal or "no rematch"), flush=True)


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
