"""What both full-screen tables — Split's :class:`~splitnet.ui.tui.app.TuiApp` and
Splito's :class:`~splitnet.games.splito.front.tui.SplitoTuiApp` — do around the game itself:
the bell and the terminal title when the table starts waiting for this player, leaving
(``quit``), drawing the whole screen again (Ctrl-L), a session that stopped with an
error (said on the table, raised once the player leaves), and running the table beside
``session.run()``.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any, Generic, Protocol, TypeVar

from prompt_toolkit.application import Application

from splitnet.ui.tui.model import Note


class _Runs(Protocol):
    """The session, as the running table sees it."""

    async def run(self) -> None: ...


class _Notes(Protocol):
    """The table's model, as the running table sees it."""

    note: Note | None

    def sync(self) -> object: ...


S = TypeVar("S", bound=_Runs)
M = TypeVar("M", bound=_Notes)


def redraw(app: Application[Any]) -> None:
    """Clear the terminal and draw ``app``'s screen again, whole (Ctrl-L)."""
    app.renderer.clear()
    app.invalidate()


class TableRunner(Generic[S, M]):
    """The running of a full-screen table (a base of both tables). The table sets the
    attributes below, and its :meth:`_changed` redraws after each change."""

    app: Application[None]
    session: S
    model: M
    bell: bool
    error: BaseException | None
    _title: str
    _turn_seen: bool
    _closed: bool

    def _changed(self) -> None:
        raise NotImplementedError

    def _signal_turn(self, mine: bool, what: str) -> None:
        """With ``bell``: ring once and retitle the terminal (``title — what``) when
        ``mine`` becomes true; the title alone again when it becomes false."""
        if mine == self._turn_seen:
            return
        self._turn_seen = mine
        if not self.bell:
            return
        out = self.app.output
        if mine:
            out.bell()
            out.set_title(f"{self._title} — {what}")
        else:
            out.set_title(self._title)
        out.flush()

    def _starting(self) -> None:
        """Run once just before the table is shown."""

    def quit(self) -> None:
        if not self.app.is_done and self.app.is_running:
            self.app.exit()

    def redraw(self) -> None:
        """Ctrl-L: draw the whole screen again (another program's output over it, a
        terminal that lost track)."""
        redraw(self.app)

    def _runner_done(self, task: asyncio.Future[None]) -> None:
        if task.cancelled():
            return
        err = task.exception()
        if err is not None:
            self.error = err
            self.model.note = Note(f"✗ the game stopped: {err!r} — q quits", "error")
        self._changed()

    async def run(self, *, drive: bool = True) -> None:
        """Show the table until the player quits. With ``drive`` the table also runs
        ``session.run()`` beside itself and cancels it if the player leaves early."""
        self.model.sync()
        runner: asyncio.Future[None] | None = None
        if drive:
            runner = asyncio.ensure_future(self.session.run())
            runner.add_done_callback(self._runner_done)
        try:
            self._starting()
            await self.app.run_async()
        finally:
            self._closed = True
            if self.bell and self._turn_seen:  # leave no "your turn" title behind
                self.app.output.clear_title()
                self.app.output.flush()
            if runner is not None and not runner.done():
                runner.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await runner
        if self.error is not None:
            raise self.error
