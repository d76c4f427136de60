"""Finding games on the LAN with multicast DNS service discovery (protocol/DISCOVERY.md).

A host announces ``_splitnet._tcp.local.`` with a TXT record that tells the game's name,
the host's name, the seats free and the protocol version — never the join code (that is
typed, not discovered). :func:`announce` returns an :class:`Announcement` to update (seats
free) and close; :func:`browse` gives a :class:`GameBrowser`, an async iterator of
:class:`BrowseEvent` (added / updated / removed) as games appear and vanish.

Everything read from the network is untrusted: names are cut short and stripped of
control characters before anyone prints them, and malformed announcements are skipped.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import socket
import sys
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Final, Literal, TextIO

import ifaddr
from zeroconf import Error as ZeroconfError
from zeroconf import InterfaceChoice, IPVersion, ServiceStateChange, Zeroconf
from zeroconf.asyncio import AsyncServiceBrowser, AsyncServiceInfo, AsyncZeroconf

from splitnet import aio
from splitnet.games import find
from splitnet.text import shown

__all__ = [
    "DEFAULT_PROTOCOL",
    "LAN_ERRORS",
    "SERVICE_TYPE",
    "TXT_VERSION",
    "Announcement",
    "BrowseEvent",
    "GameAd",
    "GameBrowser",
    "announce",
    "browse",
    "list_games",
    "run_browse",
]

SERVICE_TYPE: Final = "_splitnet._tcp.local."
#: What the LAN may answer announcing or browsing with — no multicast here, a name
#: clash, zeroconf's own errors: the caller says so and goes on without discovery
#: (joining by address works all the same). Anything else is a bug, and propagates.
LAN_ERRORS: Final = (OSError, ZeroconfError)
#: Version of the TXT layout (key ``txtvers``).
TXT_VERSION: Final = "1"
#: The network protocol a host speaks (key ``proto``; the LAN code passes its own).
DEFAULT_PROTOCOL: Final = "splitnet-net/2"
#: What a joiner must do to get in (key ``auth``): the join code over SPAKE2.
AUTH: Final = "code/spake2-v1"
#: Record lifetimes: short, so a host that crashed without saying goodbye drops out of
#: every list within two minutes.
TTL: Final = 120
MAX_TEXT: Final = 40
MAX_SEATS: Final = 16
MAX_KIND: Final = 16
#: watcher places an announcement may give (``watch``; ``splitnet host --watchers`` ≤ 64)
MAX_WATCH: Final = 64


def clean_text(value: str, limit: int = MAX_TEXT) -> str:
    """Printable text of at most *limit* characters: control and format characters (and
    so terminal escape sequences) are shown, not obeyed (:func:`splitnet.text.shown`)."""
    return shown(value[:limit * 2]).strip()[:limit]


def _instance_label(game: str, host: str) -> str:
    label = clean_text(f"{game} ({host})" if host else game, 60).replace(".", " ")
    while len(label.encode()) > 63:  # a DNS label is at most 63 bytes
        label = label[:-1]
    return label or "splitnet game"


@dataclass(frozen=True, slots=True)
class GameAd:
    """One announced game, as a browser sees it."""

    name: str  #: the service instance name (unique on the LAN)
    game: str
    host: str
    free: int
    seats: int | None
    protocol: str
    auth: str | None
    fingerprint: str | None
    addresses: tuple[str, ...]
    port: int
    #: which game the table plays (``kind``: "split", "splito"; None: not said, Split)
    kind: str | None = None
    #: watcher places free now (``watch``); None: the game cannot be watched (not said)
    watch: int | None = None
    #: the game has begun (``state`` ``playing``): no seat to join, only watching
    playing: bool = False

    @property
    def address(self) -> str | None:
        return self.addresses[0] if self.addresses else None

    @property
    def target(self) -> str:
        """What to give ``splitnet join``: ``ADDR:PORT``."""
        return f"{self.address or '?'}:{self.port}"

    def describe(self) -> str:
        seats = f"{self.free} seat{'s' if self.free != 1 else ''} free"
        if self.seats is not None:
            seats += f" of {self.seats}"
        extra = "" if self.protocol == DEFAULT_PROTOCOL else f" [{self.protocol}]"
        spec = find(self.kind)  # (a game no table here runs: its word)
        named = spec.named if spec is not None else bool(self.kind)
        kind = f" ({spec.title if spec else (self.kind or '').title()})" if named else ""
        watch = ""
        if self.watch is not None:
            places = "no place free" if self.watch == 0 else (
                f"{self.watch} place{'s' if self.watch != 1 else ''} free")
            watch = f" — watch it ({places}): splitnet watch {self.target}"
        if self.playing:
            return f"{self.game}{kind} — host {self.host}, playing{watch}{extra}"
        return (f"{self.game}{kind} — host {self.host}, {seats} — splitnet join "
                f"{self.target}{watch}{extra}")


@dataclass(frozen=True, slots=True)
class BrowseEvent:
    kind: Literal["added", "updated", "removed"]
    ad: GameAd


# --------------------------------------------------------------------------- TXT


def _txt(game: str, host: str, free: int, seats: int | None, protocol: str,
         fingerprint: str | None, kind: str | None = None, watch: int | None = None,
         playing: bool = False) -> dict[str, str]:
    props = {"txtvers": TXT_VERSION, "proto": protocol, "game": clean_text(game),
             "host": clean_text(host), "free": str(free), "auth": AUTH}
    if kind is not None:
        props["kind"] = clean_text(kind, MAX_KIND)
    if watch is not None:
        props["watch"] = str(watch)
    if playing:
        props["state"] = "playing"
    if seats is not None:
        props["seats"] = str(seats)
    if fingerprint:
        props["fp"] = clean_text(fingerprint, 64)
    return props


def _parse(name: str, info: AsyncServiceInfo) -> GameAd | None:
    """The ad in *info*, or None when it is malformed (never trusted further)."""
    props: dict[str, str] = {}
    for k, v in info.properties.items():
        if not isinstance(k, bytes) or v is None:
            continue
        props[k.decode("utf-8", "replace").lower()] = v.decode("utf-8", "replace")
    if props.get("txtvers") != TXT_VERSION or info.port is None:
        return None
    try:
        free = int(props.get("free", ""))
        seats = int(props["seats"]) if "seats" in props else None
    except ValueError:
        return None
    if not 0 <= free <= MAX_SEATS or (seats is not None and not 0 <= seats <= MAX_SEATS):
        return None
    addresses = tuple(info.parsed_addresses(IPVersion.V4Only))
    fp = props.get("fp")
    kind = clean_text(props.get("kind", ""), MAX_KIND).lower() or None
    watch_text = props.get("watch", "")  # (malformed: as if not said — no watching)
    watch = int(watch_text) if watch_text.isdecimal() and watch_text.isascii() \
        and int(watch_text) <= MAX_WATCH else None
    return GameAd(
        name=clean_text(name.removesuffix("." + SERVICE_TYPE), 80),
        game=clean_text(props.get("game", "")) or "(unnamed game)",
        host=clean_text(props.get("host", "")) or "?",
        free=free, seats=seats, protocol=clean_text(props.get("proto", "?"), 32),
        auth=clean_text(props["auth"], 32) if "auth" in props else None,
        fingerprint=clean_text(fp, 64) if fp else None,
        addresses=addresses, port=int(info.port), kind=kind, watch=watch,
        playing=props.get("state") == "playing",
    )


# --------------------------------------------------------------------------- announce


def _local_ipv4() -> list[str]:
    """This machine's IPv4 addresses other than loopback (127.0.0.1 when none)."""
    found: list[str] = []
    for adapter in ifaddr.get_adapters():
        for ip in adapter.ips:
            if isinstance(ip.ip, str) and not ip.ip.startswith("127.") and ip.ip not in found:
                found.append(ip.ip)
    return found or ["127.0.0.1"]


def _zeroconf(interfaces: Sequence[str] | None) -> AsyncZeroconf:
    return AsyncZeroconf(interfaces=list(interfaces) if interfaces else InterfaceChoice.All,
                         ip_version=IPVersion.V4Only)


class Announcement:
    """A game being announced: :meth:`update` the seats free, :meth:`close` to withdraw
    (sends goodbye packets, so browsers drop it at once). Also an async context manager."""

    def __init__(self, azc: AsyncZeroconf, info: AsyncServiceInfo, props: dict[str, str],
                 pending: Awaitable[object] | None = None) -> None:
        self._azc = azc
        self.info = info
        self._props = props
        self.closed = False
        self._pending = pending  # the announcement packets still being sent

    async def _settle(self) -> None:
        pending, self._pending = self._pending, None
        if pending is not None:
            with contextlib.suppress(Exception):
                await pending

    @property
    def name(self) -> str:
        """The instance name actually registered (renamed on a clash: "Ana (2)")."""
        return self.info.name

    @property
    def free(self) -> int:
        return int(self._props["free"])

    @property
    def watch(self) -> int | None:
        w = self._props.get("watch")
        return None if w is None else int(w)

    @property
    def playing(self) -> bool:
        return self._props.get("state") == "playing"

    async def update(self, *, free: int | None = None, seats: int | None = None,
                     game: str | None = None, watch: int | None = None,
                     playing: bool | None = None) -> None:
        """Change what the TXT record says (e.g. seats free after someone joins, watcher
        places, the game begun)."""
        if self.closed:
            raise RuntimeError("announcement closed")
        if watch is not None and not 0 <= watch <= MAX_WATCH:
            raise ValueError(f"watcher places must be 0–{MAX_WATCH}")
        if free is not None:
            self._props["free"] = str(free)
        if watch is not None:
            self._props["watch"] = str(watch)
        if playing:
            self._props["state"] = "playing"
        if seats is not None:
            self._props["seats"] = str(seats)
        if game is not None:
            self._props["game"] = clean_text(game)
        self.info = AsyncServiceInfo(
            SERVICE_TYPE, self.info.name, port=self.info.port, properties=dict(self._props),
            server=self.info.server, host_ttl=TTL, other_ttl=TTL,
            addresses=self.info.addresses)
        await self._settle()
        self._pending = await self._azc.async_update_service(self.info)

    async def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        await self._settle()
        with contextlib.suppress(Exception):
            # the first await queues the goodbye packets, the second waits until sent
            await (await self._azc.async_unregister_service(self.info))
        await self._azc.async_close()

    async def __aenter__(self) -> Announcement:
        return self

    async def __aexit__(self, et: type[BaseException] | None, e: BaseException | None,
                        tb: TracebackType | None) -> None:
        await self.close()


async def announce(*, game: str, host: str, port: int, free: int, seats: int | None = None,
                   protocol: str = DEFAULT_PROTOCOL, fingerprint: str | None = None,
                   addresses: Sequence[str] | None = None,
                   interfaces: Sequence[str] | None = None,
                   kind: str | None = None, watch: int | None = None,
                   playing: bool = False) -> Announcement:
    """Announce a game listening on *port*. *addresses* defaults to this machine's IPv4
    addresses (or *interfaces* when given); *interfaces* limits mDNS to those interface
    addresses (e.g. ``["127.0.0.1"]`` in tests); *kind* names the game played ("split",
    "splito"); *watch*, the watcher places free (None: it cannot be watched);
    *playing*, the game has begun (no seat to join: only to watch). Neither
    the join code nor the watch code is ever part of it."""
    if not 0 < port < 65536:
        raise ValueError("port must be 1–65535")
    if not 0 <= free <= MAX_SEATS:
        raise ValueError(f"free seats must be 0–{MAX_SEATS}")
    if watch is not None and not 0 <= watch <= MAX_WATCH:
        raise ValueError(f"watcher places must be 0–{MAX_WATCH}")
    addrs = list(addresses or interfaces or _local_ipv4())
    props = _txt(game, host, free, seats, protocol, fingerprint, kind, watch, playing)
    azc = _zeroconf(interfaces)
    server = f"splitnet-{secrets.token_hex(4)}.local."
    info = AsyncServiceInfo(
        SERVICE_TYPE, f"{_instance_label(game, host)}.{SERVICE_TYPE}", port=port,
        properties=dict(props), server=server, host_ttl=TTL, other_ttl=TTL,
        addresses=[socket.inet_aton(a) for a in addrs])
    try:
        # returns once the name is settled (probing); the announcements go on meanwhile
        pending = await azc.async_register_service(info, allow_name_change=True)
    except BaseException:
        await azc.async_close()
        raise
    return Announcement(azc, info, props, pending)


# --------------------------------------------------------------------------- browse


class GameBrowser:
    """Async iterator of :class:`BrowseEvent`; ``games`` holds what is announced now.

    ::

        async with browse(timeout=3) as browser:
            async for event in browser:
                print(event.kind, event.ad.describe())

    With a timeout the iteration ends after that many seconds; without one it goes on until
    the caller stops (leave the ``async with`` to close the sockets).
    """

    def __init__(self, timeout: float | None = None,
                 interfaces: Sequence[str] | None = None) -> None:
        self.timeout = timeout
        self.interfaces = interfaces
        self.games: dict[str, GameAd] = {}
        self._changes: asyncio.Queue[tuple[str, ServiceStateChange]] = asyncio.Queue()
        self._azc: AsyncZeroconf | None = None
        self._browser: AsyncServiceBrowser | None = None
        self._deadline: float | None = None

    async def start(self) -> GameBrowser:
        loop = asyncio.get_running_loop()
        if self.timeout is not None:
            self._deadline = loop.time() + self.timeout
        self._azc = _zeroconf(self.interfaces)

        def on_change(zeroconf: Zeroconf, service_type: str, name: str,
                      state_change: ServiceStateChange) -> None:
            self._changes.put_nowait((name, state_change))

        self._browser = AsyncServiceBrowser(self._azc.zeroconf, [SERVICE_TYPE],
                                            handlers=[on_change])
        return self

    async def close(self) -> None:
        if self._browser is not None:
            with contextlib.suppress(Exception):
                await self._browser.async_cancel()
            self._browser = None
        if self._azc is not None:
            await self._azc.async_close()
            self._azc = None

    async def __aenter__(self) -> GameBrowser:
        return await self.start()

    async def __aexit__(self, et: type[BaseException] | None, e: BaseException | None,
                        tb: TracebackType | None) -> None:
        await self.close()

    def __aiter__(self) -> GameBrowser:
        return self

    async def _resolve(self, name: str) -> GameAd | None:
        assert self._azc is not None
        info = AsyncServiceInfo(SERVICE_TYPE, name)
        if not await info.async_request(self._azc.zeroconf, 2000):
            return None
        return _parse(name, info)

    async def __anext__(self) -> BrowseEvent:
        if self._azc is None:
            raise RuntimeError("use 'async with browse(...)' (or await start()) first")
        loop = asyncio.get_running_loop()
        while True:
            left = None if self._deadline is None else self._deadline - loop.time()
            if left is not None and left <= 0:
                raise StopAsyncIteration
            try:
                async with asyncio.timeout(left):
                    name, change = await self._changes.get()
            except TimeoutError:
                raise StopAsyncIteration from None
            if change is ServiceStateChange.Removed:
                gone = self.games.pop(name, None)
                if gone is not None:
                    return BrowseEvent("removed", gone)
                continue
            ad = await self._resolve(name)
            if ad is None:
                continue
            old = self.games.get(name)
            self.games[name] = ad
            if old is None:
                return BrowseEvent("added", ad)
            if old != ad:
                return BrowseEvent("updated", ad)


def browse(timeout: float | None = None, *,
           interfaces: Sequence[str] | None = None) -> GameBrowser:
    """A :class:`GameBrowser` (use with ``async with``)."""
    return GameBrowser(timeout, interfaces)


async def list_games(timeout: float, *,
                     interfaces: Sequence[str] | None = None) -> list[GameAd]:
    """The games announced after listening for *timeout* seconds."""
    async with browse(timeout, interfaces=interfaces) as browser:
        async for _ in browser:
            pass
        return sorted(browser.games.values(), key=lambda a: (a.game.lower(), a.name))


def run_browse(timeout: float | None, *, interfaces: Sequence[str] | None = None,
               out: TextIO | None = None) -> int:
    """``splitnet browse``: print games as they appear and vanish (until Ctrl-C), or with
    a timeout list what was found and exit."""
    stream = out or sys.stdout

    def say(line: str) -> None:
        print(line, file=stream, flush=True)

    async def watch() -> None:
        say("Looking for splitnet games on the LAN (Ctrl-C to stop)…")
        async with browse(None, interfaces=interfaces) as browser:
            async for ev in browser:
                mark = {"added": "+", "updated": "~", "removed": "-"}[ev.kind]
                if ev.kind == "removed":
                    say(f"{mark} {ev.ad.game} (host {ev.ad.host}) is gone")
                else:
                    say(f"{mark} {ev.ad.describe()}")

    if timeout is None:
        try:
            aio.run(watch())  # Ctrl-C stops it, however busy the machine
        except KeyboardInterrupt:
            return 0
        return 0
    games = asyncio.run(list_games(timeout, interfaces=interfaces))
    if not games:
        say(f"No splitnet games found on the LAN in {timeout:g} s.")
        return 0
    say(f"{len(games)} game{'s' if len(games) != 1 else ''} on the LAN:")
    for ad in games:
        say(f"  {ad.describe()}")
    return 0
