"""Peer-supplied text made harmless for a terminal: the one function every display path uses.

Names, chat, error and evidence reasons, notes — anything another peer (or a transcript or
record someone else wrote) chose — may hold characters that a terminal obeys rather than
shows: ESC sequences (cursor moves, clear screen, OSC window titles, hyperlinks), carriage
returns and backspaces that overwrite what is on the line, line feeds that fake a new log
line, bidirectional overrides that reverse what follows. :func:`shown` replaces every such
character by a visible stand-in, so the text still shows *that* something was there:

>>> shown("hi\\x1b]0;owned\\x07 there")
'hi␛]0;owned␇ there'
>>> shown("fine\\r\\nSystem: Bo cheated")
'fine␍␊System: Bo cheated'
>>> shown("abc\\u202edcba") == "abc\\ufffddcba"   # a right-to-left override
True

C0 controls and DEL become their Unicode control pictures (U+2400…U+2421, ``\\x1b`` → ␛);
every other control, format, surrogate, private-use or unassigned character (category
C*: C1 controls, bidi overrides and isolates, zero-width characters, …) and the line and
paragraph separators become U+FFFD; other spaces (no-break, em, …) a plain space. Pure; no I/O.
"""

from __future__ import annotations

import logging
import unicodedata
from typing import Final

#: replaces every character that is not shown as itself
REPLACEMENT: Final = "\ufffd"

#: display at most this many characters of one peer-supplied text
MAX_SHOWN: Final = 2000


def _stand_in(c: str) -> str:
    o = ord(c)
    if o < 0x20:
        return chr(0x2400 + o)
    if o == 0x7F:
        return "\u2421"
    if unicodedata.category(c) == "Zs":  # a space other than U+0020 (no-break, em, …)
        return " "
    return REPLACEMENT


def shown(text: object, *, limit: int = MAX_SHOWN) -> str:
    """*text* (any value: non-strings are shown with ``str``) with every character a
    terminal could act on replaced by a visible stand-in, at most *limit* characters."""
    s = text if isinstance(text, str) else str(text)
    if len(s) > limit:
        s = s[:limit] + "…"
    if s.isprintable():  # the common case: nothing to replace (spaces are printable)
        return s
    return "".join(c if c.isprintable() else _stand_in(c) for c in s)



class ShownLog(logging.Filter):
    """A log handler's filter: each record's message (which may quote a peer's reason)
    through :func:`shown` before it is written to a terminal or a log file."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg, record.args = shown(record.getMessage()), None
        return True
