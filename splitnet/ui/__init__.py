"""Front ends. Each talks to a game only through :class:`splitnet.frontend.TableSession`.

``splitnet.ui.tui`` is the full-screen table (prompt_toolkit); ``splitnet.ui.plain`` the
line-based one.
"""

from splitnet.net.config import CLOCK_STEP, clock_step

#: What ``n`` does at a Split end screen, by who presses it: in ``splitnet play``; on a
#: LAN, the host (who offers the rematch) or a joiner (who agrees to it).
REMATCH_KEYS = {
    "local": "n new game with the same players and seats ({deals} first)",
    "host": "n offer a rematch to the same seats ({deals} first; everyone must agree)",
    "joiner": "n agree to a rematch with the same seats if the host offers one ({deals} "
              "first)",
}


def time_left(seconds: float) -> str:
    """A wait's time left, as the screens show it: m:ss in steps of 15 s (CLOCK_STEP),
    rounded up ("1:45"), so a line-based screen prints it again only every 15 s."""
    step = CLOCK_STEP * clock_step(seconds)
    return f"{step // 60}:{step % 60:02d}"


def deals(name: str, yours: bool) -> str:
    """Who deals, as a sentence says it: "you deal" when it is the player's own seat
    (never "You deals"), else "Ana deals"."""
    return "you deal" if yours else f"{name} deals"
