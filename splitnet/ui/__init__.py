"""Front ends. Each talks to a game only through :class:`splitnet.frontend.TableSession`.

``splitnet.ui.tui`` is the full-screen table (prompt_toolkit); ``splitnet.ui.plain`` the
line-based one.
"""


def deals(name: str, yours: bool) -> str:
    """Who deals, as a sentence says it: "you deal" when it is the player's own seat
    (never "You deals"), else "Ana deals"."""
    return "you deal" if yours else f"{name} deals"
