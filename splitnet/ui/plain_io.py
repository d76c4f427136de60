"""The line-by-line terminal both plain front ends play through
(:func:`splitnet.ui.plain.run_plain` for Split,
:func:`splitnet.games.splito.front.plain.run_splito_plain` for Splito): the session's log printed
as it grows, a prompt read off the event loop, and the words that leave the game.

On a terminal every line is wrapped at word boundaries to its width (a line the terminal
broke itself could split "S11.1" in two), continuation lines indented under the text they
continue; into a pipe lines go as they are. A line of the log that arrives while the
prompt waits starts below it, and the prompt is shown again after it, so whoever reads
line by line (a screen reader too) knows an answer is still wanted.
"""

from __future__ import annotations

import asyncio
import os
import re
import sys
import textwrap
from collections.abc import Callable
from typing import Protocol, TextIO

from splitnet.errors import SplitnetError
from splitnet.frontend import OffersOpenHand

#: what leaves the game at the prompt (exit status 1)
QUIT_WORDS = ("quit", "q", "exit")


class CommandError(SplitnetError):
    """A line the prompt does not understand (said with ``!``; nothing changes)."""


class _Logged(Protocol):
    """A session, as the terminal prints it."""

    @property
    def log(self) -> list[str]: ...

    def subscribe(self, callback: Callable[[], None]) -> None: ...


class PlainTerminal:
    """One player's plain terminal: ``say`` a line, print the log's new lines
    (``flush_log``, run after each change of the session), read a line."""

    def __init__(self, session: _Logged, inp: TextIO, out: TextIO) -> None:
        self.session = session
        self.out = out
        self.read_line: Callable[[], str] = inp.readline
        self.loop = asyncio.get_running_loop()
        self.printed = 0
        #: the prompt waiting for its answer, and whether the cursor stands just after it
        self._prompt: str | None = None
        self._after_prompt = False
        self._watching = ""  # who watches, as last said (say_watching)
        session.subscribe(self.flush_log)

    def say_watching(self) -> None:
        """With the table at our turn: who watches the game (a LAN session's
        ``watching``, NETWORK.md §14.10), said when it changed since it was last said —
        once a turn at most, however often the host changes it."""
        now = str(getattr(self.session, "watching", "") or "")
        if now != self._watching:
            self.say(now if now else "Nobody watches now.")
            self._watching = now

    def say(self, text: str) -> None:
        if self._after_prompt:  # below the waiting prompt, not after it
            self.out.write("\n")
            self._after_prompt = False
        width = terminal_width(self.out)
        print(text if width is None else wrap_lines(text, width), file=self.out, flush=True)

    def flush_log(self) -> None:
        new = self.session.log[self.printed:]
        self.printed = len(self.session.log)
        for line in new:
            self.say(line)
        if new and self._prompt is not None:  # still waiting for an answer: ask again
            self._show_prompt()

    def _show_prompt(self) -> None:
        assert self._prompt is not None
        self.out.write(self._prompt)
        self.out.flush()
        self._after_prompt = True

    def _read(self) -> str:
        line = self.read_line()
        self._prompt, self._after_prompt = None, False  # answered: Enter ended its line
        return line

    async def ask(self, prompt: str) -> str:
        """Write ``prompt`` and read a line ("" at the end of input); a line of the log
        that comes meanwhile is printed below it and the prompt written again."""
        self._prompt = prompt
        self._show_prompt()
        try:
            return await self.loop.run_in_executor(None, self._read)
        finally:
            self._prompt, self._after_prompt = None, False

    async def command(self, runner: asyncio.Future[None]) -> str | None:
        """Read a command at the ``> `` prompt, stripped ("" for an empty line). None
        when the player leaves — the end of input or a quit word — with ``runner`` (the
        session's run) cancelled."""
        line = await self.ask("> ")
        if not line:
            self.say("\n(end of input: leaving the game)")
            runner.cancel()
            return None
        text = line.strip()
        if text.lower() in QUIT_WORDS:
            runner.cancel()
            return None
        return text


#: a host who answered no is asked again about the same seat after this many seconds
REASK_OPEN_HAND = 60


class GiveUpPrompt:
    """The LAN host's question about a seat gone for good, asked when the session offers
    it (:class:`~splitnet.frontend.OffersOpenHand`) — once per wait, and again
    :data:`REASK_OPEN_HAND` seconds after a no. ``what`` says what giving up does."""

    def __init__(self, term: PlainTerminal, players: list[str], what: str) -> None:
        self.term = term
        self.players = players
        self.what = what
        self.asked: dict[int, int] = {}

    def due(self, seat: int, waited: int) -> bool:
        """Ask now? Not yet asked, gone again since, or answered no a while ago."""
        last = self.asked.get(seat)
        return last is None or waited < last or waited >= last + REASK_OPEN_HAND

    async def ask(self, offering: OffersOpenHand, seat: int, waited: int,
                  refused: type[Exception]) -> bool:
        """Ask; on yes give the seat up (``refused``: the game's IllegalMove, said in one
        line). False: no more input."""
        self.term.flush_log()
        self.asked[seat] = waited
        who = self.players[seat]
        line = await self.term.ask(f"{who} has been disconnected for {waited} s and the "
                                   f"game waits for them. {self.what.format(who=who)} [y/N] ")
        if not line:
            return False
        if line.strip().lower() not in ("y", "yes"):
            self.term.say(f"Waiting for {who} (asked again in {REASK_OPEN_HAND} s).")
            return True
        try:
            await offering.abandon(seat)
        except refused as e:
            self.term.say(f"! {e}")
        return True


async def ask_next(keys: str, *, inp: TextIO | None = None,
                   out: TextIO | None = None) -> bool:
    """After a game of ``splitnet play``: offer the next one in one line — ``keys`` says
    what n does, in the end screen's words — and read the answer: True for n (or y/yes),
    False for anything else or the end of input."""
    o = out or sys.stdout
    o.write(f"Next: {keys} · Enter or q quits\n> ")
    o.flush()
    line = await asyncio.get_running_loop().run_in_executor(None, (inp or sys.stdin).readline)
    return line.strip().lower() in ("n", "y", "yes")


def terminal_width(out: TextIO) -> int | None:
    """The columns of the terminal ``out`` writes to; None when it is no terminal (a pipe,
    a file, a test's buffer: lines are left whole there)."""
    try:
        if not out.isatty():
            return None
        return os.get_terminal_size(out.fileno()).columns
    except (OSError, ValueError, AttributeError):
        return None


#: where a line's text column starts: after its indentation, or after a gap of two or
#: more spaces that follows the first words ("  scores             every player's …")
_COLUMN = re.compile(r"^( *)(?:\S.*?\S? {2,}(?=\S))?")


def wrap_lines(text: str, width: int) -> str:
    """``text`` with every line longer than ``width`` broken at word boundaries (never
    inside a word, nor at a hyphen: a join code stays whole), each continuation
    indented under the start of the text it continues.

    >>> print(wrap_lines("  scores     every score if the game ended now (S11.1)", 40))
      scores     every score if the game
                 ended now (S11.1)
    """
    out: list[str] = []
    for line in text.split("\n"):
        if len(line) <= width:
            out.append(line)
            continue
        m = _COLUMN.match(line)
        column = m.end() if m is not None else 0
        indent = " " * (column if column <= width // 2 else len(line) - len(line.lstrip()))
        out.extend(textwrap.wrap(line, width, subsequent_indent=indent,
                                 break_long_words=False, break_on_hyphens=False,
                                 replace_whitespace=False, drop_whitespace=True)
                   or [line])
    return "\n".join(out)
