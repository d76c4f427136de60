"""The full-screen table: layout, styles, and the loop beside ``session.run()``."""

from __future__ import annotations

import asyncio
import copy
import re
from collections.abc import Callable
from typing import Any

from prompt_toolkit.application import Application
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.filters import Condition, has_focus
from prompt_toolkit.input import Input
from prompt_toolkit.layout import (
    ConditionalContainer,
    Dimension,
    Float,
    FloatContainer,
    HSplit,
    Layout,
    VSplit,
    Window,
)
from prompt_toolkit.layout.controls import BufferControl
from prompt_toolkit.output import Output
from prompt_toolkit.styles import Style
from prompt_toolkit.widgets import Frame

from splitnet.frontend import OffersOpenHand, TableSession
from splitnet.games.split.rules import Action, IllegalMove
from splitnet.ui.tui.controls import SizedControl
from splitnet.ui.tui.help import help_lines
from splitnet.ui.tui.keys import build_key_bindings
from splitnet.ui.tui.model import Confirm, Hinter, Intent, Note, TableModel, give_up_key
from splitnet.ui.tui.render import Line, Painter, fit
from splitnet.ui.tui.results import final_lines, summary_lines
from splitnet.ui.tui.running import TableRunner

#: seconds a lone ESC byte waits for the rest of an escape sequence (an arrow key's bytes
#: arrive together; a person's Esc should answer at once)
ESC_WAIT = 0.03

STYLE = Style.from_dict({
    "title": "bg:#005f87 #ffffff bold",
    "title.status": "bg:#ffd700 #000000 bold",
    "header": "bg:#303030 #bcbcbc",
    "header.focus": "bg:#005f5f #ffffff bold",
    "header.pile": "bold underline",
    "header.key": "bg:#303030 #ffffff bold",
    "chat.input": "bg:#1c1c1c #ffffff",
    "sep": "#585858",
    "seat": "bold",
    "seat.you": "bold #5fd7ff",
    "seat.current": "bg:#ffd700 #000000 bold",
    "seat.dealer": "bg:#5f5faf #ffffff bold",
    "seat.target": "bg:#d70000 #ffffff bold",
    "seat.info": "#a8a8a8",
    "seat.total": "bold",
    "pad.label.perfect": "#ffd75f",
    "pad.label.strong": "#5fd7ff",
    "pad.label.weak": "#bcbcbc",
    "pad.label.negative": "#ff8787",
    "pad.mark": "#9e9e9e",
    "pad.new": "#ffd700 bold",
    "pad.box": "#585858",
    "pad.open": "bg:#4e4e4e #ffffff bold",
    "pad.more": "#585858",
    "pad.value.perfect": "bold",
    "pad.value.strong": "bold",
    "pad.value.weak": "bold",
    "pad.value.negative": "#ff8787 bold",
    "kind.perfect": "#ffd75f bold",
    "kind.strong": "#5fd7ff bold",
    "kind.weak": "#bcbcbc bold",
    "match.id": "#8a8a8a",
    "match.marked": "bg:#af8700 #000000 bold",
    "match.swappable": "#87ff87 bold",
    "match.choice": "bg:#87ff87 #000000 bold",
    "card.red": "#ff5f5f bold",
    "card.black": "bold",
    "card.hidden": "#585858",
    "playable": "bg:#005f00",
    "takeable": "bg:#005f00",
    "target": "bg:#005f00",
    "partner": "bg:#005f5f",
    "picked": "bg:#875f00 underline",
    "selected": "bg:#af8700",
    "cursor": "#ffffff bold",
    "cursor.dim": "#808080",
    "row.num": "#808080",
    "row.take": "#87ff87 bold",
    "label": "#808080",
    "label.play": "#87ff87 bold",
    "label.selected": "bg:#af8700 #000000 bold",
    "log": "",
    "log.you": "#87d7ff",
    "log.round": "#ffd75f bold",
    "chat.hint": "#5fafff bold",
    "dim": "#808080",
    "note.error": "#ff5f5f bold",
    "note.hint": "#ffd75f",
    "note.info": "#87ff87",
    "ask": "#bcbcbc",
    "ask.you": "#ffffff bold",
    "key": "bg:#4e4e4e #ffffff bold",
    "key.what": "#bcbcbc",
    "help.head": "bg:#005f87 #ffffff bold",
    "results.head": "bg:#005f87 #ffffff bold",
    "results.stand": "bold",
    "results.you": "bg:#303030 #5fd7ff bold",
    "results.player": "bg:#303030 #ffffff bold",
    "verdict": "#87ff87",
    "verdict.bad": "bg:#d70000 #ffffff bold",
    "lobby.address": "bg:#005f87 #ffffff bold",
    "lobby.code": "#ffd75f bold",
    "lobby.head": "bold underline",
    "lobby.player": "bold",
    "frame.border": "#5f87af",
    "frame.label": "#ffffff bold",
})


#: Without colours (NO_COLOR) the highlights that were only a background colour are
#: drawn with attributes every terminal shows.
MONO = {
    "playable": "underline", "takeable": "underline", "target": "underline",
    "partner": "underline", "selected": "reverse", "label.selected": "reverse bold",
    "picked": "reverse underline", "seat.current": "reverse bold", "seat.target": "reverse",
    "match.marked": "reverse bold", "match.choice": "reverse bold", "pad.open": "reverse",
    "pad.new": "bold",
}
MONO_STYLE = Style([*STYLE.style_rules, *MONO.items()])


class _SeatsWindow(Window):
    """The seats region: before measuring itself it learns how many lines the rest of the
    screen leaves it, so the matches can switch to two a line instead of being cut."""

    def __init__(self, painter: Painter, others: Callable[[int], int], **kw: Any) -> None:
        super().__init__(**kw)
        self._painter = painter
        self._others = others

    def preferred_height(self, width: int, max_available_height: int) -> Dimension:
        self._painter.seat_room = max(6, max_available_height - self._others(width))
        return super().preferred_height(width, max_available_height)


class TuiApp(TableRunner[TableSession, TableModel]):
    """One player's full-screen table over a :class:`TableSession`."""

    def __init__(self, session: TableSession, *, title: str = "splitnet",
                 input: Input | None = None, output: Output | None = None,
                 hint: Hinter | None = None, bell: bool = False,
                 rejoin: str | None = None, rematch: bool = False,
                 next_dealer: int | None = None, rematch_as: str = "local",
                 another: str | None = None) -> None:
        self.session = session
        self.model = TableModel(session)
        #: the hint key's adviser: (this seat's view, seat) → (move, reason); None: no h
        self.hint = hint
        #: ring the bell and set the terminal title when a turn of ours begins (LAN)
        self.bell = bell
        #: the command that brings the player back to this game (LAN), said on leaving
        self.rejoin = rejoin
        self.model.rejoin = rejoin
        #: how to get into another game, said at the end (default: run ``rejoin`` again)
        self.another = another
        #: offer a new game against the same players at the end (``splitnet play``; on a
        #: LAN, the same seats if everyone agrees), whose first dealer is this seat
        self.model.rematch_offered = rematch
        self.next_dealer = next_dealer
        #: who presses n at the end: "local" (``splitnet play``), "host" (offers the LAN
        #: rematch) or "joiner" (agrees to it); the end screen words the key so
        self.rematch_as = rematch_as
        #: what the player chose at the end: "rematch" or "quit"
        self.outcome = "quit"
        self._title = title
        self._turn_seen = False
        self._hint_task: asyncio.Future[None] | None = None
        self.painter = Painter(self.model, self, title)
        self.error: BaseException | None = None
        self._closed = False
        self.chat_buffer = Buffer(multiline=False, accept_handler=self._send_chat)
        self.app: Application[None] = Application(
            layout=self._layout(), key_bindings=build_key_bindings(self),
            style=MONO_STYLE if self.model.mono else STYLE,
            full_screen=True, mouse_support=True, input=input, output=output)
        # Legal moves are worked out once per drawing of the screen (many parts use them).
        self._frame = 0

        def before(_: object) -> None:
            self._frame += 1
            self.model.stamp = self._frame

        def after(_: object) -> None:
            self.model.stamp = None

        self.app.before_render += before
        self.app.after_render += after
        # Esc answers at once: a lone ESC byte is taken as the Esc key after 30 ms (not
        # prompt_toolkit's 0.5 s), and no binding waits for a longer key sequence.
        self.app.ttimeoutlen = ESC_WAIT
        self.app.timeoutlen = ESC_WAIT
        session.subscribe(self._changed)

    # ------------------------------------------------------------------ layout
    def _layout(self) -> Layout:
        p = self.painter
        m = self.model
        chatting = has_focus(self.chat_buffer)
        self._main = Window(SizedControl(p.status, focusable=True), height=2)

        def seats_height() -> Dimension:
            return Dimension(min=7 if m.view.matches else 6, weight=4)

        body = HSplit([
            Window(SizedControl(p.title_bar), height=1),
            _SeatsWindow(p, self._other_lines, content=SizedControl(p.seats),
                         height=seats_height, dont_extend_height=True),
            Window(SizedControl(p.row), height=Dimension(min=3), dont_extend_height=True),
            Window(SizedControl(p.hand), height=Dimension(min=3), dont_extend_height=True),
            ConditionalContainer(
                VSplit([Window(SizedControl(lambda w, h: [[("class:chat.hint", " say › ")]]),
                               width=7, height=1),
                        Window(BufferControl(self.chat_buffer), height=1,
                               style="class:chat.input")]),
                filter=chatting),
            ConditionalContainer(Window(SizedControl(p.log_header), height=1),
                                 filter=~chatting),
            Window(SizedControl(p.log), height=Dimension(min=2, preferred=5, weight=1)),
            self._main,
        ])

        def overlay(kind: str, title: str) -> Float:
            ctl = SizedControl(self._overlay_render, on_scroll=self.scroll)
            return Float(ConditionalContainer(
                Frame(Window(ctl), title=title),
                filter=Condition(lambda: m.overlay == kind)),
                top=0, bottom=0, left=0, right=0)

        root = FloatContainer(body, floats=[
            overlay("help", "Help — ? or Esc closes, ↑↓ scroll"),
            overlay("summary", "Results — Esc/Enter closes, ↑↓ scroll"),
            overlay("final", "The end — ↑↓ scroll, Esc the table"),
        ])
        return Layout(root, focused_element=self._main)

    def _other_lines(self, width: int) -> int:
        """Lines everything but the seats needs: title, row, hand, log (header + 3), the
        status lines."""
        p = self.painter
        return 1 + len(p.row(width, None)) + len(p.hand(width, None)) + 4 + 2

    def _overlay_lines(self, width: int) -> list[Line]:
        m = self.model
        if m.overlay == "help":
            return help_lines(width, m.view.settings.pad)
        if m.overlay == "summary" and m.summaries:
            return summary_lines(m.summaries[m.summary_index], width,
                                 after_game=self.session.finished)
        if m.overlay == "final" and m.summaries:
            nxt = self.next_dealer if m.rematch_offered else None
            return final_lines(m.summaries, width, nxt, again=m.rejoin, role=self.rematch_as,
                               another=self.another)
        return []

    def _overlay_render(self, width: int, height: int | None) -> list[Line]:
        lines = self._overlay_lines(width)
        if height is None:
            return lines
        m = self.model
        m.scroll = max(0, min(m.scroll, len(lines) - height))
        return [fit(ln, width) for ln in lines[m.scroll:m.scroll + height]]

    # ------------------------------------------------------------------ session events
    def _changed(self) -> None:
        if self._closed:
            return
        if self.model.sync() is not None:
            self.open_summary()
        self._turn_signal()
        self.app.invalidate()

    def _turn_signal(self) -> None:
        """With ``bell``: ring once and retitle the terminal when a turn of ours begins
        (the terminal may be in the background while the others play)."""
        self._signal_turn(self.model.my_turn() and not self.session.finished, "your turn")

    def open_summary(self) -> None:
        m = self.model
        if not m.summaries:
            m.note = Note("no round has ended yet")
            return
        m.summary_index = len(m.summaries) - 1
        m.overlay = "final" if m.summaries[-1].game_over else "summary"
        m.scroll = 0

    # ------------------------------------------------------------------ moves
    def act(self, intent: Intent) -> None:
        if intent is None:
            return
        if isinstance(intent, Note):
            self.model.note = intent
            return
        if isinstance(intent, Confirm):
            hold = self.model.hold()
            if hold is not None:  # a second press would send nothing either
                self.model.note = self.model.hold_note(hold)
                return
            self.model.confirm = intent
            return
        self.submit(intent)

    # ------------------------------------------------------------------ the hint
    def ask_hint(self) -> None:
        m = self.model
        if self.hint is None:
            m.note = Note("no hint here")
            return
        if not m.my_turn() or self.session.finished:
            m.note = Note("a hint is for your own move: wait for your turn")
            return
        hold = m.hold()
        if hold is not None:
            m.note = Note(hold)
            return
        if self._hint_task is not None and not self._hint_task.done():
            return
        m.note = Note("thinking…", "info")
        self._hint_task = self.app.create_background_task(self._hint())

    async def _hint(self) -> None:
        m = self.model
        hint = self.hint
        assert hint is not None
        view = self.session.view.clone()  # the adviser works on a copy, off the loop
        seat = self.session.seat
        asked = m.moment()
        try:
            advice = await asyncio.to_thread(hint, view, seat)
        except Exception as e:  # shown, never raised into the event loop
            m.note = Note(f"✗ no hint: {e}", "error")
        else:
            if m.moment() != asked:  # the game moved on meanwhile
                if m.note is not None and m.note.text == "thinking…":
                    m.note = None
            elif advice is None:
                m.note = Note("no hint for this moment")
            else:
                m.take_advice(*advice)
        self.app.invalidate()

    def submit(self, action: Action) -> None:
        m = self.model
        if m.busy:
            return
        hold = m.hold()
        if hold is not None:  # our turn, but the move cannot reach the host: say why
            m.note = m.hold_note(hold)
            return
        view = self.session.view
        if self.session.finished or view.actor != self.session.seat:
            # Not this seat's move: a session may queue a move submitted now and play it
            # later, so ask the engine — on a copy — why it is refused, and send nothing.
            try:
                copy.deepcopy(view).apply(action)
            except IllegalMove as e:
                m.note = m.explain(e)
            else:
                m.note = Note("wait for your turn")
            return
        m.busy = True
        self.app.create_background_task(self._submit(action))

    async def _submit(self, action: Action) -> None:
        m = self.model
        try:
            await self.session.submit(action)
        except IllegalMove as e:
            m.note = m.explain(e)
        except Exception as e:  # the session could not take the move (e.g. network)
            m.note = Note(f"✗ the move was not sent: {e}", "error")
        else:
            m.after_move(action)
        finally:
            m.busy = False
            self.app.invalidate()

    # ------------------------------------------------------------------ keys and clicks
    def press(self, key: str) -> None:
        """One key (or a click on its hint): the same code path for both."""
        m = self.model
        if key != "q":
            m.confirm_quit = False
        giving_up, m.confirm_open = m.confirm_open, None
        if giving_up is not None and key == "o":
            self.app.create_background_task(self._abandon(giving_up))
            self.app.invalidate()
            return
        pending, m.confirm = m.confirm, None
        if pending is not None and key == pending.key:
            self.submit(pending.action)
            self.app.invalidate()
            return
        simple = {
            "d": m.intent_draw, "t": m.intent_take, "l": m.intent_lay, "u": m.intent_upgrade,
            "x": m.intent_discard, "s": m.intent_skip, "e": m.intent_end_late,
            "w": m.intent_swap,
        }
        if key in simple:
            if m.note is not None and m.note.kind == "error":
                m.note = None
            self.act(simple[key]())
        elif key in ("left", "right"):
            m.move(-1 if key == "left" else 1)
        elif key in ("up", "down"):
            step = -1 if key == "up" else 1
            if m.area != "table" or not m.table_vertical(step):
                m.switch_area(step, wrap=False)
        elif key in ("tab", "s-tab"):
            m.switch_area(-1 if key == "tab" else 1, wrap=True)
        elif key in ("pageup", "pagedown"):
            m.log_back = max(0, m.log_back + (3 if key == "pageup" else -3))
        elif key in ("home", "end"):
            m.home_end(key == "end")
        elif key in ("space", "Space"):
            m.space()
        elif key == "enter":
            if m.area == "row":
                self.act(m.intent_take())
            elif m.area == "table" and m.swapping() and m.table_cursor is not None:
                self.act(m.choose_swap(m.table_cursor[0]))
            else:
                m.space()
        elif key == "escape":
            if m.swap_take is not None:  # one step back in the swap's choice
                m.swap_take = None
            else:
                m.selected = []
                m.marked_match = None
            m.note = None
            m.hint = None
        elif key.isdigit() and len(key) == 1:
            self.act(m.digit(key))
        elif len(key) == 1 and key.isupper():
            m.select_label(key)
        elif key == "c":
            self.app.layout.focus(self.chat_buffer)
        elif key == "?":
            m.overlay, m.scroll = "help", 0
        elif key == "r":
            self.open_summary()
        elif key == "h":
            self.ask_hint()
        elif key == "o":
            m.confirm_open, note = give_up_key(m.open_hand_offer(), "R8.6")
            m.note = note or m.note
        elif key == "n" and self.session.finished and m.rematch_offered:
            self.outcome = "rematch"
            self.quit()
        elif key == "q":
            if self.session.finished or m.confirm_quit:
                self.quit()
            else:
                m.confirm_quit = True
        elif re.fullmatch(r"\d([-,]\d)*", key):
            m.note = Note("type the number shown (a row card's, or a player's for the "
                          "perfect bonus)")
        elif key == "←→↑↓":
            m.note = Note("arrows move the cursor; ↑↓ and Tab switch between table, row, hand")
        self.app.invalidate()

    async def _abandon(self, seat: int) -> None:
        """The host confirmed: ``seat`` is played open-handed from now on (R8.6)."""
        m = self.model
        session = self.session
        assert isinstance(session, OffersOpenHand)
        try:
            await session.abandon(seat)
        except IllegalMove as e:
            m.note = Note(f"✗ {e}", "error")
        self.app.invalidate()

    def leave(self) -> None:
        """Ctrl-C: the same as q — during a game it asks first (from any screen), after
        the game it quits."""
        m = self.model
        m.confirm = None
        m.confirm_open = None
        if self.app.layout.has_focus(self.chat_buffer):
            self.cancel_chat()
        if not (self.session.finished or m.confirm_quit):
            m.overlay = None
        self.press("q")

    def click_hand(self, index: int) -> None:
        m = self.model
        m.confirm_quit = False
        m.confirm = None
        m.confirm_open = None
        order = m.hand_order()
        if 0 <= index < len(order):
            m.area, m.hand_cursor = "hand", index
            m.toggle(order[index])
        self.app.invalidate()

    def click_row(self, index: int) -> None:
        m = self.model
        m.confirm_quit = False
        m.confirm = None
        m.confirm_open = None
        if m.area == "row" and m.row_cursor == index:
            self.act(m.intent_take())
        else:
            m.area, m.row_cursor = "row", index
        self.app.invalidate()

    def click_half(self, match_id: int, half: int) -> None:
        m = self.model
        m.confirm_quit = False
        m.confirm = None
        m.confirm_open = None
        again = m.area == "table" and m.table_cursor == (match_id, half)
        m.area, m.table_cursor = "table", (match_id, half)
        if m.swapping():
            self.act(m.choose_swap(match_id))
        elif again:
            self.act(m.intent_upgrade())
        self.app.invalidate()

    def click_seat(self, seat: int) -> None:
        if self.model.legal().marks:
            self.press(str(self.model.number(seat)))

    def scroll(self, delta: int) -> None:
        self.model.scroll = max(0, self.model.scroll + delta)
        self.app.invalidate()

    def other_round(self, step: int) -> None:
        """← →: the results of the other rounds; after the last, the end screen."""
        m = self.model
        if not m.summaries:
            return
        end = m.summaries[-1].game_over
        if m.overlay == "final":
            if step < 0:
                m.overlay, m.summary_index = "summary", len(m.summaries) - 1
        elif m.overlay == "summary":
            i = m.summary_index + step
            if i >= len(m.summaries) and end:
                m.overlay = "final"
            m.summary_index = max(0, min(len(m.summaries) - 1, i))
        m.scroll = 0
        self.app.invalidate()

    def close_overlay(self) -> None:
        self.model.overlay = None
        self.app.invalidate()

    # ------------------------------------------------------------------ chat
    def _send_chat(self, buf: Buffer) -> bool:
        text = buf.text.strip()
        if text:
            self.app.create_background_task(self._chat(text))
        self.app.layout.focus(self._main)
        return False  # clears the buffer

    async def _chat(self, text: str) -> None:
        try:
            await self.session.chat(text)
        except Exception as e:  # shown, never raised into the event loop
            self.model.note = Note(f"✗ chat not sent: {e}", "error")
            self.app.invalidate()

    def chatting(self) -> bool:
        """Is the chat line being typed (it has the keyboard)?"""
        return bool(self.app.layout.has_focus(self.chat_buffer))

    def cancel_chat(self) -> None:
        self.chat_buffer.reset()
        self.app.layout.focus(self._main)
