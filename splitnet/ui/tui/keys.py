"""Key bindings. Three modes, each guarded by a Condition filter: the table, an overlay
(help or results) and the chat line. Every table key goes through ``TuiApp.press`` —
the same path a click on its hint takes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from prompt_toolkit.filters import Condition, has_focus
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent

from splitnet.ui.tui.model import LABELS

if TYPE_CHECKING:
    from splitnet.ui.tui.app import TuiApp

TABLE_KEYS = "dtluxsewcrhno?q"
NAMED = {
    "left": "left", "right": "right", "up": "up", "down": "down", "tab": "tab",
    "s-tab": "s-tab", "home": "home", "end": "end", "space": "space", "enter": "enter",
    "escape": "escape", "pageup": "pageup", "pagedown": "pagedown",
}


def build_key_bindings(t: TuiApp) -> KeyBindings:
    kb = KeyBindings()
    chatting = has_focus(t.chat_buffer)
    overlay = Condition(lambda: t.model.overlay is not None)
    table = ~chatting & ~overlay

    def bind(key: str, name: str) -> None:
        @kb.add(key, filter=table, eager=key == "escape")
        def _(event: KeyPressEvent) -> None:
            t.press(name)

    for k in TABLE_KEYS:
        bind(k, k)
    for k in "0123456789":
        bind(k, k)
    for k in LABELS:
        bind(k, k)
    for k, name in NAMED.items():
        bind(k, name)

    @kb.add("c-c")
    def _leave(event: KeyPressEvent) -> None:
        t.leave()  # like q: asks first during a game

    @kb.add("c-l")
    def _redraw(event: KeyPressEvent) -> None:
        t.redraw()  # on every screen, the chat line too

    # -- overlays: scroll and close ----------------------------------------
    def scroll(key: str, delta: int) -> None:
        @kb.add(key, filter=overlay)
        def _(event: KeyPressEvent) -> None:
            t.scroll(delta)

    for key, delta in (("up", -1), ("down", 1), ("pageup", -10), ("pagedown", 10),
                       ("home", -10_000), ("end", 10_000), ("k", -1), ("j", 1)):
        scroll(key, delta)

    for key in ("escape", "enter", "space", "?"):
        @kb.add(key, filter=overlay, eager=key == "escape")
        def _close(event: KeyPressEvent) -> None:
            t.close_overlay()

    @kb.add("q", filter=overlay)
    def _q(event: KeyPressEvent) -> None:
        if t.model.overlay in ("summary", "final") and t.session.finished:
            t.quit()
        else:
            t.close_overlay()

    @kb.add("n", filter=overlay)
    def _n(event: KeyPressEvent) -> None:
        if t.session.finished and t.model.rematch_offered:
            t.press("n")

    @kb.add("left", filter=overlay)
    def _earlier(event: KeyPressEvent) -> None:
        t.other_round(-1)

    @kb.add("right", filter=overlay)
    def _later(event: KeyPressEvent) -> None:
        t.other_round(1)

    @kb.add("r", filter=overlay)
    def _r(event: KeyPressEvent) -> None:
        t.close_overlay()

    # -- chat line -----------------------------------------------------------
    @kb.add("escape", filter=chatting, eager=True)
    def _cancel(event: KeyPressEvent) -> None:
        t.cancel_chat()

    return kb
