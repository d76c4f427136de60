"""The lobby before a LAN game, as the front ends show it: the lobby models
(:class:`HostLobby`, :class:`JoinLobby`) that the full-screen lobby
(:func:`splitnet.ui.tui.run_lobby`) and the plain one (:func:`plain_lobby`) read, over a
host or joiner node. Every text they show from a node passes through
:func:`splitnet.text.shown`."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from typing import Any

from splitnet.aio import until
from splitnet.game.rematch import dealer_rule
from splitnet.games import FIRST
from splitnet.games.split.bots import LEVELS, bot_label
from splitnet.net.join_state import JoinState
from splitnet.net.lobby_state import MIN_PLAYERS
from splitnet.text import shown
from splitnet.ui import time_left


class HostLobby:
    """The host's lobby (splitnet.ui.tui.LobbyModel): the address and join code to share,
    the wrong codes so far, and for each joiner the verification words of its connection
    and whether its key is known (``known``: a :class:`~splitnet.net.known_peers.KnownPeers`)."""

    def __init__(self, node: Any, address: str, *, code: str | None = None,
                 limiter: Any = None, known: Any = None,
                 extra: Callable[[], list[str]] | None = None,
                 levels: dict[bytes, str] | None = None) -> None:
        self.node = node
        self.extra = extra  # more info lines, e.g. whether the game is announced
        #: the levels of the host's own bots (``--bots``), by key: known here, so listed
        #: as soon as they are in (a bot elsewhere says its own, ``Member.level``)
        self.levels = levels or {}
        self.address = address
        self.join_code = code
        self.limiter = limiter
        self.known = known
        self.code: str | None = code or node.identity.fingerprint()
        self.code_label = "Join code" if code else "Check code"
        self.status = ("waiting for players — share the address and the join code" if code
                       else "waiting for players — share the address above")
        self.info: list[str] = []
        self.players: list[str] = []  # as listed: a bot with its level, ``Ana (strong)``
        self.names: list[str] = []  # the same players by name alone
        self.notes: list[str] = []
        self.can_start = False
        self.started = False
        #: this is the host's screen (it never waits "for the host")
        self.host = True
        #: how many players the lobby is for: its seats (--seats, a rematch's), or the
        #: game's most (R3.1: 6; Splito S2.1: 8)
        self.limit = 6
        #: what the lobby waits for while it cannot be started, and why ``s`` cannot
        self.waiting = ""
        self.why_not = ""
        self._subs: list[Callable[[], None]] = []
        node.subscribe(self.changed)
        self._sync()

    def _sync(self) -> None:
        node = self.node
        self.names = [shown(n, limit=64) for n in node.lobby_names]
        levels = [getattr(m, "level", None) or self.levels.get(getattr(m, "key", b""))
                  for m in node.members]  # (the host: none)
        self.players = [shown(_listed(n, levels[i - 1] if 0 < i <= len(levels) else None),
                              limit=64) for i, n in enumerate(node.lobby_names)]
        self.can_start = bool(node.can_start)
        self.started = node.table is not None
        self._waiting()
        self.info = [f"Host key fingerprint: {node.identity.fingerprint()}"]
        if self.limiter is not None:
            self.info.append(self.limiter.status())
        if self.extra is not None:
            self.info += self.extra()
        self.info += _watching(node)
        notes = ["you"]
        for m in node.members:
            parts = []
            words = getattr(m.conn.ch, "verification", None) if m.conn is not None else None
            if words:
                parts.append(f"verification {words}")
            if self.known is not None:
                parts.append(self.known.describe(m.key, m.name))
            notes.append("\n".join(shown(p) for p in parts))
        self.notes = notes

    def _waiting(self) -> None:
        node, n = self.node, len(self.players)
        lobby, prev = getattr(node, "lobby", None), getattr(node, "rematch_of", None)
        if lobby is None:  # (a stand-in node: the screen's own defaults)
            return
        self.limit = lobby.limit
        if prev is not None:  # a rematch starts by itself once every seat agreed (§13)
            agreed, here = set(node.agreed), {prev.seat_of(m.key) for m in node.members}
            names = [p.name for p in prev.header.players]
            wanted = [shown(x) for s, x in enumerate(names) if s not in agreed]
            away = [shown(x) for s, x in enumerate(names) if s not in agreed | here]
            self.waiting = (f"Waiting for {', '.join(wanted)} to agree"
                            + (f" ({', '.join(away)} not back yet)" if away else "")
                            + ": the rematch starts by itself")
            self.why_not = ("a rematch starts by itself once every seat has agreed "
                            "(NETWORK.md §13)")
            return
        low, high = MIN_PLAYERS, lobby.max_players
        self.waiting = (f"Waiting for players to join ({low}–{high} play)…" if n < low else
                        "Starting the game…")
        if lobby.seats is not None and n < low:
            self.waiting = (f"Waiting for players to join: the game starts by itself "
                            f"with {lobby.seats} ({low} or more can start it)…")
        self.why_not = (f"{lobby.game} needs {low} to {high} players ({lobby.rule}); "
                        f"{n} in the lobby" if not low <= n <= high else
                        "the game is starting already")

    def changed(self) -> None:
        """Re-read the node (and the limiter) and tell the screen."""
        self._sync()
        for cb in list(self._subs):
            cb()

    async def start(self) -> None:
        await self.node.start()
        self._sync()

    @property
    def watchers(self) -> list[str]:
        """Who watches, by the names the host lists them (NETWORK.md §14)."""
        watchers = getattr(self.node, "watchers", None)
        return [shown(n, limit=32) for n in watchers.names()] if watchers is not None else []

    def remove_watcher(self, name: str) -> str:
        """The host removes the watcher listed as ``name`` (it is told so, and not let
        back in from its address during this game): the line to show; ValueError (one
        line) if nobody watches by that name."""
        line = self.node.watchers.remove(name)
        self.changed()
        return shown(str(line))

    def subscribe(self, callback: Callable[[], None]) -> None:
        self._subs.append(callback)


def _watching(node: Any) -> list[str]:
    """The lobby's line on who watches the game (NETWORK.md §14.10), if anyone does: the
    host's own count, or what it told a joiner."""
    watching = getattr(node, "watching_status", None)  # (a stand-in node: none)
    line = watching() if watching is not None else ""
    return [shown(line, limit=200)] if line else []


def _listed(name: str, level: str | None) -> str:
    """A lobby member as the host's lobby lists it: a bot that said its level (its
    ``bot`` frame, NETWORK.md §4) with it, ``Ana (strong)``; a person by name."""
    if level is None:
        return name
    return bot_label(name, level) if level in LEVELS else f"{name} (bot)"


#: a joiner's session states in which the host has welcomed it
_JOINED = (JoinState.LOBBY, JoinState.CATCHING_UP, JoinState.PLAYING, JoinState.FINISHED)


class JoinLobby:
    """A joiner's lobby (splitnet.ui.tui.LobbyModel): the verification words of the
    connection (to compare with the host's screen), the host's key fingerprint, and
    whether each player's key is known (``known``, as for :class:`HostLobby`)."""

    def __init__(self, node: Any, *, known: Any = None,
                 announced_fp: str | None = None) -> None:
        self.node = node
        self.known = known
        self.announced_fp = announced_fp  # the host key fingerprint its announcement gave
        self.address = f"{node.host}:{node.port}"
        self.address_label = "Joined the game hosted at:"
        self.can_start = False
        self.code: str | None = None
        self.code_label = "Verification"
        self.info: list[str] = []
        self.players: list[str] = []
        self.notes: list[str] = []
        self.status = "connecting…"
        self.started = False
        self.host = False
        self.limit = 6  # (as for HostLobby: the seats, or the game's most)
        self.why_not = "only the host can start the game"
        self._subs: list[Callable[[], None]] = []
        node.subscribe(self.changed)
        self._sync()

    def _sync(self) -> None:
        from splitnet.session.identity import fingerprint

        node = self.node
        key = node.host_key
        words = getattr(node.ch, "verification", None)
        if words:
            self.code = words
            self.code_label = "Verification (the host's screen shows the same words)"
        elif key:  # no join-code layer: the host's key is what there is to compare
            self.code, self.code_label = fingerprint(key), "Check code"
        else:
            self.code = None
        self.info = [f"Host key fingerprint: {fingerprint(key)}"] if key and words else []
        game = getattr(node, "lobby_game", FIRST.title)
        if game != FIRST.title:  # the host named its game (a "game" frame, NETWORK.md §4)
            seats = node.lobby_seats
            self.info.insert(0, shown(f"Game: {game}, " + (f"{seats} seats" if seats else
                                      f"up to {getattr(node, 'lobby_max', 8)} seats")))
        if key and self.announced_fp and self.announced_fp != fingerprint(key):
            self.info.append(f"WARNING: the game's announcement gave another fingerprint "
                             f"({self.announced_fp}): ask the host which is theirs")
        self.info += _watching(node)
        self.players = [shown(n, limit=64) for n in node.lobby_players]
        prev = getattr(node, "rematch_of", None)
        seats = getattr(node, "lobby_seats", None)
        self.limit = (int(prev.n) if prev is not None else int(seats) if seats
                      else int(getattr(node, "lobby_max", 6)))
        keys = list(getattr(node, "lobby_keys", []))
        notes = []
        for i, name in enumerate(self.players):
            k = keys[i] if i < len(keys) else None
            if k == node.key:
                notes.append("you")
            elif k is not None and self.known is not None:
                notes.append(self.known.describe(k, name))
            else:
                notes.append("")
        self.notes = [shown(n) for n in notes]
        # say only what is true: "joined" once the host welcomed us (join_state.py)
        machine = getattr(node, "session", None)  # (a stand-in node may have none)
        joined = machine is None or machine.state in _JOINED
        self.address_label = "Joined the game hosted at:" if joined else "Connecting to:"
        self.status = shown(node.net_status or ("in the lobby — waiting for the host to "
                                                "start" if joined else "connecting…"))
        looking = getattr(node, "offer_wait_left", None)
        left = looking() if looking is not None else None
        if left is not None:  # (None: not looking for an offer, or offered)
            self.status += f" ({time_left(left)} left)"  # its own wait (§13), not the host's
        offer = getattr(node, "offer", None)
        if offer is not None and prev is not None and not node.net_status:
            # a rematch (NETWORK.md §13): who deals first, who has agreed so far
            names = [p.name for p in prev.header.players]
            agreed = set(getattr(node, "offer_agreed", []))
            waiting = [shown(n) for s, n in enumerate(names) if s not in agreed]
            rule = dealer_rule(prev.header.settings)  # Split's first deal, Splito's deal
            deals = "deals first" if rule == "R3.2" else f"deals ({rule})"
            clock = getattr(node, "offer_left", None)
            left = clock() if clock is not None else None  # the host's own clock (§13)
            until = f" ({time_left(left)} left)" if left is not None else ""
            self.status = shown(f"rematch offered, {names[offer.first_dealer]} {deals}; "
                                "you agreed — " + (f"waiting for {', '.join(waiting)}{until}"
                                                   if waiting else "starting"))
        self.started = node.table is not None

    def changed(self) -> None:
        self._sync()
        for cb in list(self._subs):
            cb()

    async def start(self) -> None:
        raise ValueError("only the host can start the game")

    def subscribe(self, callback: Callable[[], None]) -> None:
        self._subs.append(callback)


async def plain_lobby(lobby: Any, started: asyncio.Event, stop: asyncio.Future[Any],
                       host: bool) -> bool:
    """The lobby on a plain terminal: print who is in; the host types Enter to start."""
    shown: list[str] = []  # the players by name, as last printed
    labels: list[str] = []  # and as listed (a bot's level follows its name)
    said: dict[str, str] = {}  # what was last printed for each player and info line
    if isinstance(lobby, HostLobby) and lobby.info:
        said["info 0"] = lobby.info[0]  # host_main printed its fingerprint already

    def show() -> None:
        nonlocal shown, labels
        if getattr(lobby, "started", False):
            return  # the game is on: the lobby has nothing more to say
        names = list(getattr(lobby, "names", None) or lobby.players)  # (a level may follow)
        if names != shown:
            shown, labels = names, list(lobby.players)
            print("In the lobby: " + ", ".join(labels), flush=True)
        elif lobby.players != labels:  # a bot's level came just after it joined
            for old, new in zip(labels, lobby.players, strict=False):
                if old != new:
                    print(f"  {new}", flush=True)
            labels = list(lobby.players)
        notes = list(getattr(lobby, "notes", []))
        for i, label in enumerate(lobby.players):
            note = notes[i] if i < len(notes) else ""
            who = names[i] if i < len(names) else label
            if note and note != "you" and said.get(f"player {who}") != note:
                said[f"player {who}"] = note
                print(f"  {who}: " + note.replace("\n", " · "), flush=True)
        for i, line in enumerate(getattr(lobby, "info", [])):
            if said.get(f"info {i}") != line:
                said[f"info {i}"] = line
                print(line, flush=True)

    lobby.subscribe(show)
    show()
    loop = asyncio.get_running_loop()
    reader: asyncio.Future[str] | None = None
    if host:
        most = getattr(getattr(lobby, "node", None), "lobby", None)
        most = getattr(most, "max_players", 6)
        print(f"Press Enter to start the game when everyone is in (2–{most} players).",
              flush=True)
        if hasattr(lobby, "remove_watcher"):
            print("Type 'unwatch NAME' to remove a watcher (it is not let back in from "
                  "its address during this game).", flush=True)
    while not started.is_set() and not stop.done():
        if host and reader is None:  # a thread blocked on stdin (it cannot be cancelled)
            reader = loop.run_in_executor(None, sys.stdin.readline)
        await until(started, stop, *([reader] if reader is not None else []))
        if reader is not None and reader.done():
            line = reader.result()
            reader = None
            if not line:  # no more input: nobody can start the game any more
                print("splitnet host: end of input, so nobody can press Enter to start the "
                      "game: pass --seats N to start it when N players are in",
                      file=sys.stderr, flush=True)
                return False
            if line.strip().lower() in ("", "s", "start"):
                try:
                    await lobby.start()
                except ValueError as e:
                    print(f"! {e}", flush=True)
            elif line.strip().lower() in ("q", "quit"):
                return False
            elif line.strip().lower().split(" ", 1)[0] == "unwatch" and hasattr(
                    lobby, "remove_watcher"):
                name = line.strip()[len("unwatch"):].strip()
                try:
                    print(lobby.remove_watcher(name) if name else
                          "! unwatch whom? 'unwatch NAME' (watching: "
                          + (", ".join(lobby.watchers) or "nobody") + ")", flush=True)
                except ValueError as e:
                    print(f"! {e}", flush=True)
    return started.is_set()
