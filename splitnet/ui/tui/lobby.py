"""The lobby screen before a LAN game: the address to share, who has joined, a start key.

The screen needs only a small :class:`LobbyModel`; the networking provides it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Protocol

from prompt_toolkit.application import Application
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import HSplit, Layout, Window
from prompt_toolkit.output import Output

from splitnet.ui.tui.controls import SizedControl
from splitnet.ui.tui.render import Line, fit, on_click, right, width_of, wrap
from splitnet.ui.tui.running import redraw


class LobbyModel(Protocol):
    """What the lobby screen shows and can do.

    Optional extras, read when present: ``started: bool`` (the host started the game —
    a joining player's screen closes), ``status: str`` (one line, e.g. "connecting…"),
    ``code_label: str`` (what ``code`` is, default "Check code"; e.g. "Join code"),
    ``info: list[str]`` (more lines under the status, e.g. wrong codes so far) and
    ``notes: list[str]`` (one entry per player, in the order of ``players``, shown under
    the name — several lines if it has newlines: e.g. whether their key is known, the
    verification words of their connection), ``host: bool`` (this is the host's screen:
    it never says it waits for the host), ``watchers: list[str]`` and
    ``remove_watcher(name) -> str`` (the host's: who watches, and removing one — the
    line to show, or ValueError saying why not), ``limit: int`` (how many players the lobby is
    for, default 6), ``waiting: str`` (the line shown while it cannot be started) and
    ``why_not: str`` (what ``s`` says then).
    """

    #: the address other players type or paste to join, e.g. "192.168.1.20:7788"
    address: str
    #: a short join code / fingerprint to read out, if the network has one
    code: str | None
    #: names of the players in the lobby so far, in seat order (host first)
    players: list[str]
    #: True when this peer may start the game now (the host, with enough players for the
    #: game: R3.1, S2.1)
    can_start: bool

    async def start(self) -> None:
        """Start the game (host only)."""

    def subscribe(self, callback: Callable[[], None]) -> None:
        """``callback`` runs after every change (a player joins or leaves, the game starts)."""


class LobbyScreen:
    """The lobby as a prompt_toolkit container with its key bindings."""

    def __init__(self, lobby: LobbyModel, title: str = "splitnet") -> None:
        self.lobby = lobby
        self.title = title
        self.note = ""
        self.starting = False
        #: the host pressed w: which watcher to remove (a digit picks; w again: none)
        self.choosing = False
        self._task: asyncio.Future[None] | None = None
        self.control = SizedControl(self.render, focusable=True)
        self.container = HSplit([Window(self.control)])
        self.key_bindings = KeyBindings()
        self.on_start: Callable[[], None] = lambda: None
        self.on_leave: Callable[[], None] = lambda: None

        @self.key_bindings.add("s")
        @self.key_bindings.add("enter")
        def _start(event: KeyPressEvent) -> None:
            self.request_start()

        @self.key_bindings.add("q")
        @self.key_bindings.add("escape")
        @self.key_bindings.add("c-c")
        def _leave(event: KeyPressEvent) -> None:
            self.on_leave()

        @self.key_bindings.add("c-l")
        def _redraw(event: KeyPressEvent) -> None:
            redraw(event.app)

        @self.key_bindings.add("w")
        def _unwatch(event: KeyPressEvent) -> None:
            self.ask_unwatch()

        for digit in "123456789":
            self.key_bindings.add(digit)(self._picker(int(digit)))

    def _picker(self, k: int) -> Callable[[KeyPressEvent], None]:
        def pick(event: KeyPressEvent) -> None:
            self.unwatch(k)
        return pick

    def _watchers(self) -> list[str] | None:
        """Who watches, if this screen may remove a watcher (the host's); else None."""
        if not hasattr(self.lobby, "remove_watcher"):
            return None
        return list(getattr(self.lobby, "watchers", []))

    def ask_unwatch(self) -> None:
        """``w``: choose a watcher to remove (``w`` again: none)."""
        watchers = self._watchers()
        if watchers is None:
            return
        if self.choosing or not watchers:
            self.choosing = False
            self.note = "" if watchers else "nobody watches"
            return
        self.choosing = True
        self.note = ("remove which watcher? press its number — "
                     + " · ".join(f"{i + 1} {n}" for i, n in enumerate(watchers[:9]))
                     + " (w again: none)")

    def unwatch(self, k: int) -> None:
        """A digit while choosing: remove the ``k``-th watcher listed."""
        watchers = self._watchers()
        if not self.choosing or watchers is None:
            return
        self.choosing = False
        if not 1 <= k <= len(watchers):
            self.note = f"no watcher {k}"
            return
        try:
            self.note = self.lobby.remove_watcher(watchers[k - 1])  # type: ignore[attr-defined]
        except ValueError as e:
            self.note = str(e)

    def request_start(self) -> None:
        if self.starting:
            return
        if not self.lobby.can_start:
            n = len(self.lobby.players)
            self.note = (getattr(self.lobby, "why_not", None)
                         or ("Split needs 2 to 6 players (R3.1)" if not 2 <= n <= 6
                             else "only the host can start the game"))
            return
        self.starting = True
        self.note = "starting…"
        self._task = asyncio.ensure_future(self._start())

    async def _start(self) -> None:
        try:
            await self.lobby.start()
        except Exception as e:  # the network reports why; stay in the lobby
            self.note = f"could not start: {e}"
            self.starting = False
            return
        self.on_start()

    def render(self, width: int, height: int | None) -> list[Line]:
        lb = self.lobby
        lines: list[Line] = [fit([("class:title", f" {self.title} — lobby")], width,
                                 "class:title"), []]

        def said(text: str, style: str = "", indent: int = 2) -> list[Line]:
            """``text`` wrapped to the width, whole (never cut: a player checks these
            words and warnings by eye), its continuations under it."""
            parts = wrap(text, width - indent, width - indent - 2)
            return [[(style, " " * (indent + (2 if i else 0)) + part)]
                    for i, part in enumerate(parts)]

        label = (getattr(lb, "address_label", None)
                 or "Share this address with the other players:")
        lines += said(label)
        lines.append([("", "      "), ("class:lobby.address", f" {lb.address} ")])
        if lb.code:
            label = getattr(lb, "code_label", None) or "Check code"
            one: Line = [("", f"  {label}: "), ("class:lobby.code", lb.code)]
            if width_of(one) <= width:
                lines.append(one)
            else:  # the words (the code) on a line of their own, whole
                lines += said(f"{label}:")
                lines.append([("", "      "), ("class:lobby.code", lb.code)])
        status = getattr(lb, "status", None)
        if status:
            lines += said(status, "class:dim")
        for extra in getattr(lb, "info", None) or []:
            lines += said(extra, "class:dim")
        lines.append([])
        n = len(lb.players)
        notes: list[str] = list(getattr(lb, "notes", None) or [])
        limit = getattr(lb, "limit", None) or 6
        lines.append([("class:lobby.head", f"  Players ({n} of {limit})")])
        for i, name in enumerate(lb.players):
            tag = "  (host)" if i == 0 else ""
            lines.append([("", f"    {i + 1}. "), ("class:lobby.player", name),
                          ("class:dim", tag)])
            for part in (notes[i] if i < len(notes) else "").splitlines():
                lines += said(part, "class:dim", 7)
        lines.append([])
        waiting = getattr(lb, "waiting", None)
        if lb.can_start:
            lines.append([("", "  "), ("class:key", " s ", on_click(self.request_start)),
                          ("", " start the game with these players")])
        elif waiting:
            lines += said(waiting, "class:dim")
        elif n < 2:
            lines.append([("class:dim", "  Waiting for players to join (2–6 play)…")])
        else:
            lines.append([("class:dim", "  Waiting for the host to start the game…")])
        watchers = self._watchers()
        if watchers:
            lines.append([("", "  "), ("class:key", " w ", on_click(self.ask_unwatch)),
                          ("", " remove a watcher")])
        lines.append([("", "  "), ("class:key", " q ", on_click(lambda: self.on_leave())),
                      ("", " leave")])
        if self.note:
            lines += [[], *said(self.note, "class:note.hint")]
        return [right(ln, [], width) for ln in lines]


async def run_lobby(lobby: LobbyModel, *, title: str = "splitnet",
                    input: Input | None = None, output: Output | None = None) -> bool:
    """Show the lobby until the game starts (True) or the player leaves (False)."""
    from splitnet.ui.tui.app import STYLE

    screen = LobbyScreen(lobby, title)
    app: Application[bool] = Application(layout=Layout(screen.container),
                                         key_bindings=screen.key_bindings, style=STYLE,
                                         full_screen=True, mouse_support=True,
                                         input=input, output=output)

    def done(result: bool) -> None:
        if app.is_running and not app.is_done:
            app.exit(result=result)

    screen.on_start = lambda: done(True)
    screen.on_leave = lambda: done(False)

    def changed() -> None:
        if getattr(lobby, "started", False):
            done(True)
        app.invalidate()

    lobby.subscribe(changed)
    return await app.run_async()
