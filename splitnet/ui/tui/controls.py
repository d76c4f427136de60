"""A prompt_toolkit control whose text is drawn for the width (and height) it is given.

``FormattedTextControl`` asks for its text without saying how wide the window is; the
table needs the width to lay out card cells, seat columns and pad boxes, so
:class:`SizedControl` renders once per (render pass, width, height) and keeps the mouse
handlers of the fragments, like its parent.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from prompt_toolkit.application.current import get_app
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.layout.controls import FormattedTextControl, GetLinePrefixCallable, UIContent
from prompt_toolkit.mouse_events import MouseEvent, MouseEventType

Render = Callable[[int, int | None], Sequence[StyleAndTextTuples]]


def join_lines(lines: Sequence[StyleAndTextTuples]) -> StyleAndTextTuples:
    out: StyleAndTextTuples = []
    for i, line in enumerate(lines):
        if i:
            out.append(("", "\n"))
        out.extend(line)
    return out


class SizedControl(FormattedTextControl):
    """Text from ``render(width, height)``; ``height`` is None when only measuring."""

    def __init__(self, render: Render, *, focusable: bool = False,
                 on_scroll: Callable[[int], None] | None = None) -> None:
        self._render = render
        self._on_scroll = on_scroll
        self._size: tuple[int, int | None] = (80, None)
        self._cache_key: tuple[int, int, int | None] | None = None
        self._cached: StyleAndTextTuples = []
        super().__init__(self._text, focusable=focusable, show_cursor=False)

    def _text(self) -> StyleAndTextTuples:
        return join_lines(self._render(*self._size))

    def _get_formatted_text_cached(self) -> StyleAndTextTuples:
        key = (get_app().render_counter, *self._size)
        if key != self._cache_key:
            self._cached = self._text()
            self._cache_key = key
        return self._cached

    def preferred_height(self, width: int, max_available_height: int, wrap_lines: bool,
                         get_line_prefix: GetLinePrefixCallable | None) -> int | None:
        self._size = (width, None)
        return super().preferred_height(width, max_available_height, wrap_lines,
                                        get_line_prefix)

    def create_content(self, width: int, height: int | None) -> UIContent:
        self._size = (width, height)
        return super().create_content(width, height)

    def mouse_handler(self, mouse_event: MouseEvent) -> object:
        if self._on_scroll is not None:
            if mouse_event.event_type == MouseEventType.SCROLL_UP:
                self._on_scroll(-3)
                return None
            if mouse_event.event_type == MouseEventType.SCROLL_DOWN:
                self._on_scroll(3)
                return None
        return super().mouse_handler(mouse_event)
