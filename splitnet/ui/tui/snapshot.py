"""Draw an application's layout into a text grid — for tests and for looking at the
table without a terminal."""

from __future__ import annotations

from prompt_toolkit.application import Application
from prompt_toolkit.application.current import set_app
from prompt_toolkit.layout.mouse_handlers import MouseHandlers
from prompt_toolkit.layout.screen import Screen, WritePosition


def screen_text(app: Application[object], width: int = 80, height: int = 24) -> list[str]:
    """The characters ``app`` would paint on a ``width`` × ``height`` terminal."""
    screen = Screen(initial_width=width, initial_height=height)
    with set_app(app):
        app.render_counter += 1
        app.layout.container.write_to_screen(screen, MouseHandlers(),
                                             WritePosition(0, 0, width, height), "",
                                             erase_bg=False, z_index=None)
        screen.draw_all_floats()
    rows = []
    for y in range(height):
        row = screen.data_buffer[y]
        rows.append("".join(row[x].char for x in range(width)).rstrip())
    return rows
