"""The full-screen table (prompt_toolkit).

``run_tui(session)`` shows one player's table for any
:class:`~splitnet.frontend.TableSession` (local, fair-deck or LAN) and plays that seat's
moves through ``session.submit``; ``play_tui()`` is ``splitnet play``: you against bots.
``run_lobby(lobby)`` is the host/join screen before a LAN game.
"""

from __future__ import annotations

from splitnet.frontend import TableSession
from splitnet.ui.tui.app import TuiApp
from splitnet.ui.tui.lobby import LobbyModel, LobbyScreen, run_lobby
from splitnet.ui.tui.local import make_local_session, play_tui


async def run_tui(session: TableSession, *, title: str = "splitnet", drive: bool = True) -> None:
    """Run the full-screen table beside ``session.run()`` in this asyncio loop.

    Returns when the player quits (q twice during a game, q once after it ends). With
    ``drive`` (the default) the table starts ``session.run()`` itself and cancels it when
    the player leaves early; pass ``drive=False`` when the caller runs the session.
    """
    await TuiApp(session, title=title).run(drive=drive)


__all__ = ["LobbyModel", "LobbyScreen", "TuiApp", "make_local_session", "play_tui",
           "run_lobby", "run_tui"]
