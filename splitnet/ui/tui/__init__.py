"""The full-screen table (prompt_toolkit).

``run_tui(session)`` shows one player's table for any
:class:`~splitnet.frontend.TableSession` (local, fair-deck or LAN) and plays that seat's
moves through ``session.submit``.
``run_lobby(lobby)`` is the host/join screen before a LAN game.
"""

from __future__ import annotations

from splitnet.frontend import TableSession
from splitnet.ui.tui.advice import default_hinter
from splitnet.ui.tui.app import TuiApp
from splitnet.ui.tui.lobby import LobbyModel, LobbyScreen, run_lobby
from splitnet.ui.tui.model import Hinter


async def run_tui(session: TableSession, *, title: str = "splitnet", drive: bool = True,
                  hint: Hinter | None = None, bell: bool = False, rejoin: str | None = None,
                  rematch: bool = False, next_dealer: int | None = None,
                  rematch_as: str = "local", another: str | None = None) -> str:
    """Run the full-screen table beside ``session.run()`` in this asyncio loop.

    Returns when the player leaves (q or Ctrl-C twice during a game, once after it ends):
    ``"rematch"`` if they asked for a new game at the end screen (offered with
    ``rematch``), else ``"quit"``. With ``drive`` (the default) the table starts
    ``session.run()`` itself and cancels it when the player leaves early; pass
    ``drive=False`` when the caller runs the session. ``hint`` advises the h key (default:
    :func:`~splitnet.ui.tui.advice.default_hinter`); ``bell`` rings when a turn of ours
    begins; ``rejoin`` says how to come back (LAN); ``next_dealer`` is the seat that would
    deal first in the rematch (default: seat 1, as a ``splitnet play`` rematch seats it);
    ``rematch_as`` is who presses n: "local", the LAN "host" (offers) or a "joiner"
    (agrees); ``another`` says at the end how to get into another game (default: run
    ``rejoin`` again).
    """
    app = TuiApp(session, title=title, hint=hint or default_hinter(session.players), bell=bell,
                 rejoin=rejoin, rematch=rematch, next_dealer=next_dealer,
                 rematch_as=rematch_as, another=another)
    await app.run(drive=drive)
    return app.outcome


__all__ = ["LobbyModel", "LobbyScreen", "TuiApp", "run_lobby", "run_tui"]
