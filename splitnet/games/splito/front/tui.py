"""The full-screen Splito table (prompt_toolkit) for any
:class:`~splitnet.frontend.SplitoTableSession` — the local game and the LAN game alike.

``run_splito_tui(session)`` shows one player's table: the hand with its letters, the two
zones the player shares with the neighbours (cards, the objectives counted there and
which are fulfilled now, the points), the central objectives, every player's score if
the game ended now, whose commitment is missing, the log with each turn's plays revealed
all at once, help (``?``) with every objective card in words and in the seed's notation,
and the end screen. Keys: :mod:`splitnet.games.splito.front.tui_model`.
"""

from __future__ import annotations

from prompt_toolkit.application import Application
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import Layout, Window
from prompt_toolkit.output import Output
from prompt_toolkit.styles import Style

from splitnet.frontend import OffersOpenHand, SplitoTableSession
from splitnet.games.splito.engine import IllegalMove, Play
from splitnet.games.splito.front.table import rematch_keys
from splitnet.games.splito.front.tui_model import GiveUp, SplitoModel
from splitnet.games.splito.front.tui_render import click_card, overlay_lines, table_lines
from splitnet.ui.tui.app import ESC_WAIT, MONO, STYLE
from splitnet.ui.tui.controls import SizedControl
from splitnet.ui.tui.model import Note
from splitnet.ui.tui.render import Line
from splitnet.ui.tui.running import TableRunner

#: the six colours of S1.2 as coloured frames (the value or ◇ drawn on them)
COLOURS = {
    "sc.r": "bg:#d70000 #ffffff bold", "sc.o": "bg:#ff8700 #000000 bold",
    "sc.y": "bg:#ffd700 #000000 bold", "sc.g": "bg:#00af00 #000000 bold",
    "sc.b": "bg:#0087ff #ffffff bold", "sc.p": "bg:#af5fd7 #ffffff bold",
    "obj": "#ffd75f bold", "pts": "#d7af5f", "num": "#d0d0d0", "ok": "#87ff87 bold",
    "no": "#ff8787", "wait": "#ffd700 bold", "new": "underline", "zone.head": "bold", "zone.pts":
    "bg:#303030 #ffffff bold", "log.turn": "#ffd75f", "title.status": "bg:#ffd700 #000000 bold",
}
SPLITO_STYLE = Style([*STYLE.style_rules, *COLOURS.items()])
#: without colours: the colour letters are written out (the renderer does that) and the
#: highlights are attributes every terminal shows
SPLITO_MONO = Style([*STYLE.style_rules, *COLOURS.items(), *MONO.items(),
                     ("selected", "reverse bold"), ("zone.pts", "reverse"),
                     ("ok", "bold"), ("no", ""), ("wait", "bold")])

#: the keys the table reads (every other key is ignored, never an action)
KEYS = "lreqn?"
NAMED = {"left": "left", "right": "right", "up": "up", "down": "down", "enter": "enter",
         "escape": "escape", "pageup": "pageup", "pagedown": "pagedown", "space": "space"}


class SplitoTuiApp(TableRunner[SplitoTableSession, SplitoModel]):
    """One player's full-screen Splito table."""

    def __init__(self, session: SplitoTableSession, *, title: str = "splitnet",
                 input: Input | None = None, output: Output | None = None,
                 bell: bool = False, rejoin: str | None = None,
                 mono: bool | None = None, rematch: str | None = None,
                 next_dealer: int | None = None) -> None:
        self.session = session
        self.model = SplitoModel(session, mono=mono)
        if rematch is not None:  # n at the end: "local", the LAN "host" or a "joiner"
            self.model.rematch_keys = rematch_keys(rematch, session.players, session.seat,
                                                   next_dealer)
        self.bell = bell
        self.rejoin = rejoin
        self.outcome = "quit"
        self.error: BaseException | None = None
        self._title = title
        self._turn_seen = False
        self._closed = False
        self.app: Application[None] = Application(
            layout=Layout(Window(SizedControl(self._render, focusable=True,
                                              on_scroll=self._scroll))),
            key_bindings=self._keys(),
            style=SPLITO_MONO if self.model.mono else SPLITO_STYLE,
            full_screen=True, mouse_support=True, input=input, output=output)
        # Esc answers at once (a lone ESC byte is the Esc key after 30 ms)
        self.app.ttimeoutlen = ESC_WAIT
        self.app.timeoutlen = ESC_WAIT
        session.subscribe(self._changed)

    # ------------------------------------------------------------------ drawing
    def _render(self, width: int, height: int | None) -> list[Line]:
        h = height if height is not None else 24
        m = self.model
        if m.overlay is not None:
            return overlay_lines(m, width, h)
        lines = table_lines(m, width, h, click_card(m, self.press))
        if self.rejoin and m.confirm_quit:
            lines[-1] = [("class:note.error", f" q again leaves; come back with: "
                          f"{self.rejoin}")]
        return lines

    def _scroll(self, delta: int) -> None:
        m = self.model
        if m.overlay is not None:
            m.scroll = max(0, m.scroll + delta)
        else:
            m.log_back = max(0, m.log_back - delta)
        self.app.invalidate()

    # ------------------------------------------------------------------ keys
    def _keys(self) -> KeyBindings:
        kb = KeyBindings()

        def bind(key: str, name: str) -> None:
            @kb.add(key, eager=key == "escape")
            def _(event: KeyPressEvent) -> None:
                self.press(name)

        for k in KEYS:
            bind(k, k)
        for k in "ABCDEFGHIJKLMNOPQRSTUVWXYZjk":
            bind(k, k)
        for k, name in NAMED.items():
            bind(k, name)

        @kb.add("c-c")
        def _leave(event: KeyPressEvent) -> None:
            self.leave()

        @kb.add("c-l")
        def _redraw(event: KeyPressEvent) -> None:
            self.redraw()

        @kb.add("<any>")
        def _other(event: KeyPressEvent) -> None:
            # any other key: a word about the keys, never a move
            data = event.key_sequence[0].data if event.key_sequence else ""
            if len(data) == 1 and data.isprintable():
                self.press(data)
        return kb

    def press(self, key: str) -> None:
        m = self.model
        outcome = m.press(key)
        if outcome == "rematch":
            self.outcome = "rematch"
            self.quit()
        elif outcome == "quit":
            self.quit()
        elif isinstance(outcome, Play):
            m.busy = True
            self.app.create_background_task(self._submit(outcome))
        elif isinstance(outcome, GiveUp):
            self.app.create_background_task(self._give_up(outcome.seat))
        self.app.invalidate()

    async def _give_up(self, seat: int) -> None:
        """The host confirmed: ``seat`` leaves the game for good (S5.7)."""
        m = self.model
        session = self.session
        if isinstance(session, OffersOpenHand):
            try:
                await session.abandon(seat)
            except IllegalMove as e:
                m.note = Note(f"✗ {e}", "error")
        self.app.invalidate()

    def leave(self) -> None:
        """Ctrl-C: the same as q — during a game it asks first, after the game it quits."""
        m = self.model
        if not (self.session.finished or m.confirm_quit):
            m.overlay = None
        self.press("q")

    async def _submit(self, play: Play) -> None:
        m = self.model
        try:
            await self.session.submit(play)
        except IllegalMove as e:
            m.note = Note(f"✗ {e}", "error")
        except Exception as e:  # the session could not take the play (e.g. network)
            m.note = Note(f"✗ the play was not sent: {e}", "error")
        else:
            m.after_commit(play)
        finally:
            m.busy = False
            m.sync()
            self.app.invalidate()

    # ------------------------------------------------------------------ session events
    def _changed(self) -> None:
        if self._closed:
            return
        self.model.sync()
        self._turn_signal()
        self.app.invalidate()

    def _turn_signal(self) -> None:
        """With ``bell``: ring once and retitle the terminal when the table starts
        waiting for our play."""
        self._signal_turn(self.model.my_play(), "your play")

    # ------------------------------------------------------------------ running
    def _starting(self) -> None:
        self._turn_signal()


async def run_splito_tui(session: SplitoTableSession, *, title: str = "splitnet",
                         drive: bool = True, bell: bool = False,
                         rejoin: str | None = None, rematch: str | None = None,
                         next_dealer: int | None = None) -> str:
    """Run the full-screen Splito table beside ``session.run()`` in this asyncio loop.

    Returns ``"quit"`` when the player leaves (q twice or Ctrl-C twice during a game,
    once after it), ``"rematch"`` if they asked for the next game at the end (n, offered
    with ``rematch``: "local" — a new game here —, the LAN "host", who offers it, or a
    "joiner", who agrees to it; ``next_dealer`` is the seat that deals it, S4.1). With
    ``drive`` (the default) the table starts ``session.run()`` itself and cancels it
    when the player leaves early; pass ``drive=False`` when the caller runs the session.
    ``bell`` rings (and retitles the terminal) when the table starts waiting for your
    play; ``rejoin`` is the command that brings the player back (LAN), shown when they
    ask to leave."""
    app = SplitoTuiApp(session, title=title, bell=bell, rejoin=rejoin, rematch=rematch,
                       next_dealer=next_dealer)
    await app.run(drive=drive)
    return app.outcome


__all__ = ["SplitoTuiApp", "run_splito_tui"]
