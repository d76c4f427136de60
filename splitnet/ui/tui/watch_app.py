"""The full-screen spectator table of ``splitnet watch`` (prompt_toolkit): the table from
above as a viewer of no seat sees it (:mod:`splitnet.ui.tui.watch_model`, drawn by
:mod:`splitnet.ui.tui.watch_render`), following a :class:`~splitnet.net.watcher.WatchNode`
that checks every record as it arrives.

:func:`watch_screen` says whether ``splitnet watch`` runs it (a terminal, no
``--plain``); :class:`WatchScreen` is fed each record that checked out
(:meth:`WatchScreen.on_record`) and runs beside the node (:meth:`WatchScreen.follow`)
until the person quits. Keys: q or Ctrl-C quits at once (asks nothing: a watcher leaving
harms nobody), ↑ ↓ PgUp PgDn Home End and the mouse wheel scroll the log, ? help, Esc
closes it, Ctrl-L draws the screen again. The terminal is given back on every way out:
q, Ctrl-C, SIGTERM (which cancels the command's task), the host gone, a bad record.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
from typing import Any, Protocol

from prompt_toolkit.application import Application
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import Layout, Window
from prompt_toolkit.output import Output
from prompt_toolkit.styles import BaseStyle, DynamicStyle, Style

from splitnet.cmdline import need_terminal
from splitnet.frontends import front_end
from splitnet.games import game_of
from splitnet.text import shown
from splitnet.ui.tui.app import ESC_WAIT, STYLE
from splitnet.ui.tui.controls import SizedControl
from splitnet.ui.tui.running import redraw
from splitnet.ui.tui.watch_model import (
    Ending,
    Line,
    Spectator,
    Watched,
    WatchModel,
    status_of,
)
from splitnet.ui.tui.watch_render import screen_lines
from splitnet.verify import LiveVerifier

__all__ = ["WatchScreen", "watch_screen"]

#: what a key does on the spectator table (every other key does nothing)
SCROLL = {"up": 1, "down": -1, "pageup": 10, "pagedown": -10, "home": 1_000_000,
          "end": -1_000_000, "k": 1, "j": -1}


class Teller(Protocol):
    """The watcher's checker and narration (:class:`splitnet.app.lan_watch.WatchTeller`)."""

    verifier: LiveVerifier

    def told(self, seq: int) -> list[str]: ...


class Node(Watched, Protocol):
    async def run(self) -> None: ...


def spectator_of(spec: Any) -> Spectator | None:
    """The game's spectator table, from its front end (None: a game without one: the
    screen shows its log alone)."""
    return front_end(spec).spectator


def watch_screen(args: argparse.Namespace, teller: Teller) -> WatchScreen | None:
    """The full-screen table for ``splitnet watch`` — or None, a line per event: with
    ``--plain``, or when stdout is no terminal (a pipe, a file). The table reads keys: with
    stdin no terminal it refuses in one line naming ``--plain``, as ``play`` and ``join``
    do."""
    try:
        tty = sys.stdout is not None and sys.stdout.isatty()
    except (OSError, ValueError):
        tty = False
    if args.plain or not tty:
        return None
    need_terminal("watch")
    return WatchScreen(teller)


class WatchScreen:
    """The spectator table of one watched game, fed by its teller."""

    def __init__(self, teller: Teller, *, input: Input | None = None,
                 output: Output | None = None) -> None:
        self.teller = teller
        self.model = WatchModel(spectator_of)
        self.node: Node | None = None
        self._styles: dict[tuple[tuple[str, str], ...], BaseStyle] = {}
        self.app: Application[None] = Application(
            layout=Layout(Window(SizedControl(self._render, focusable=True,
                                              on_scroll=self._wheel))),
            key_bindings=self._keys(), style=DynamicStyle(self._style),
            full_screen=True, mouse_support=True, input=input, output=output,
            refresh_interval=0.5)  # (the node's state between records)
        self.app.ttimeoutlen = ESC_WAIT  # Esc answers at once
        self.app.timeoutlen = ESC_WAIT

    # ------------------------------------------------------------------ drawing
    def _render(self, width: int, height: int | None) -> list[Line]:
        if self.node is not None and self.model.ending is None:  # (retrying, catching up)
            self.model.status = status_of(self.node)
        return screen_lines(self.model, width, height if height is not None else 24)

    def _style(self) -> BaseStyle:
        table = self.model.table
        extra = table.style if table is not None else ()
        if extra not in self._styles:
            self._styles[extra] = Style([*STYLE.style_rules, *extra])
        return self._styles[extra]

    def _wheel(self, delta: int) -> None:
        self.press("up" if delta < 0 else "down", abs(delta))

    def _changed(self) -> None:
        self.app.invalidate()

    # ------------------------------------------------------------------ keys
    def _keys(self) -> KeyBindings:
        kb = KeyBindings()
        for key in ("q", "?", "escape", "c-c", "c-l", *SCROLL):
            @kb.add(key, eager=key == "escape")
            def _(event: KeyPressEvent, key: str = key) -> None:
                self.press(key)
        return kb

    def press(self, key: str, times: int = 1) -> None:
        m = self.model
        if key in ("q", "c-c"):
            if not self.app.is_done and self.app.is_running:
                self.app.exit()
            return
        if key == "c-l":
            redraw(self.app)
            return
        if key == "?":
            m.help = not m.help
        elif key == "escape":
            m.help = False
        elif key in SCROLL:
            m.scroll(SCROLL[key] * times)
        self._changed()

    # ------------------------------------------------------------------ the watch
    def on_record(self, seq: int) -> None:
        """A record that checked out (the node's ``on_record``)."""
        v = self.teller.verifier
        lines = self.teller.told(seq)
        if seq == 0:
            h = v.log.header
            self.model.start(game_of(h.settings), [p.name for p in h.players])
        self.model.told(lines)
        self.model.update(v.core, self.node)
        self._changed()

    def note(self, line: str) -> None:
        """A line of the watch's own (the host's key fingerprint) into the log."""
        self.model.told([line])
        self._changed()

    def ending(self, error: BaseException | None) -> Ending:
        """The end screen, once the node stopped (``error``: why, if it failed)."""
        v = self.teller.verifier
        table = self.model.table
        audits = table.audits if table is not None else ()
        node = self.node
        path = node.path if node is not None else None
        if v.failed is not None or (node is not None and node.failed is not None):
            text = v.failed.summary if v.failed is not None else str(error)
            return Ending(False, (shown(text, limit=600),), audits, path)
        if error is not None:
            return Ending(False, (f"the watch stopped: {shown(str(error), limit=600)}",),
                          audits, path)
        verdict = v.verdict()
        return Ending(verdict.ok, tuple(verdict.summary.splitlines()), audits, path)

    async def follow(self, node: Node) -> None:
        """Show the table beside ``node.run()`` until the person quits; the node is
        stopped if it is still running then. Raises what the node raised (a bad
        record's or a refusal's :class:`~splitnet.net.watcher.WatchFatal`) once the
        screen is closed, the terminal given back."""
        self.node = node
        self.model.status = node.status
        task: asyncio.Future[None] = asyncio.ensure_future(node.run())

        def done(t: asyncio.Future[None]) -> None:
            if t.cancelled():
                return
            self.model.finish(self.ending(t.exception()), node)
            self._changed()

        task.add_done_callback(done)
        try:
            await self.app.run_async()
        finally:
            if not task.done():
                task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.wait([task])
        if not task.cancelled() and (err := task.exception()) is not None:
            raise err
