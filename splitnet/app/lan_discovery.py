"""The LAN's announcements (protocol/DISCOVERY.md): the host's game announced while
its lobby is open (:class:`_Announcer`), and ``splitnet join`` without an address
picking one of the games announced (:func:`_choose_game`)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from splitnet.aio import stop
from splitnet.app.lan_common import _ask, _log
from splitnet.net.addrs import WILDCARD
from splitnet.net.host import HostNode
from splitnet.net.wire import NET_PROTOCOL


class _Announcer:
    """The game on the LAN over mDNS while its lobby is open (protocol/DISCOVERY.md): the
    seats free and the watcher places free kept up to date; when the game starts,
    withdrawn (goodbye packets) — or, when the host takes watchers, announced as playing
    until the game is over, so that ``splitnet browse`` shows where to watch it — and
    withdrawn when the host stops. It runs beside the lobby; when the LAN will not have it
    the host says so and goes on — joining by address works all the same. Never the join
    code, never the watch code."""

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
        if self.node.started.is_set():
            return 0
        return max(0, (self.node.seats or self.node.choice.max_players)
                   - len(self.node.lobby_names))

    def watch(self) -> int | None:
        """Watcher places free now; None when the host takes no watchers."""
        from splitnet.net.discovery import MAX_WATCH

        limit = self.node.watchers.desk.limit
        return None if limit <= 0 else max(0, min(limit, MAX_WATCH) - self.node.watchers.count)

    def _on(self) -> bool:
        """Still to be announced: the lobby is open, or the game is on and watchable."""
        if self._stop:
            return False
        if not self.node.started.is_set():
            return True
        return self.watch() is not None and not self.node.done.is_set()

    def start(self) -> None:
        self.node.subscribe(self._wake.set)
        self._task = asyncio.create_task(self._run())

    def _say(self, status: str, *, warn: bool = False) -> None:
        self.status = status
        (_log.warning if warn else _log.info)("%s", status)
        self.on_change()

    async def _run(self) -> None:
        from splitnet.net.discovery import LAN_ERRORS, SERVICE_TYPE, announce

        if self.bind not in WILDCARD and ":" in self.bind:
            self._say("not announced on the LAN (announcements are IPv4 only): players "
                      "join by address")
            return
        only = None if self.bind in WILDCARD else [self.bind]
        try:
            ann = await announce(game=f"{self.name}'s game", host=self.name, port=self.port,
                                 free=self.free(), seats=self.node.seats,
                                 protocol=NET_PROTOCOL, fingerprint=self.fingerprint,
                                 addresses=only, interfaces=only,
                                 kind=self.node.choice.spec.key, watch=self.watch(),
                                 playing=self.node.started.is_set())
        except LAN_ERRORS as e:  # no multicast, zeroconf's own errors: go on
            self._say(f"could not announce the game on the LAN ({type(e).__name__}: {e}); "
                      f"players join by address", warn=True)
            return
        try:
            label = ann.name.removesuffix("." + SERVICE_TYPE)
            self._say(f"announced on the LAN as {label!r} ('splitnet join' with no "
                      f"address finds it)")
            while self._on():
                self._wake.clear()
                free, watch, playing = self.free(), self.watch(), self.node.started.is_set()
                if (free, watch, playing) != (ann.free, ann.watch, ann.playing):
                    await ann.update(free=free, watch=watch, playing=playing)
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
        elif g.playing:
            note = "  (playing: no seat to join)"
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
        if ad.playing:
            print("That game is being played: no seat to join"
                  + (f" (watch it: splitnet watch {ad.target})" if ad.watch is not None
                     else "") + ".", flush=True)
            continue
        if ad.protocol != NET_PROTOCOL:
            print(f"That host speaks {ad.protocol}, this splitnet {NET_PROTOCOL}.",
                  flush=True)
            continue
        return ad
