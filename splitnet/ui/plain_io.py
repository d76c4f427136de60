"""The line-by-line terminal both plain front ends play through
(:func:`splitnet.ui.plain.run_plain` for Split,
:func:`splitnet.ui.splito_plain.run_splito_plain` for Splito): the session's log printed
as it grows, a prompt read off the event loop, and the words that leave the game.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Protocol, TextIO

from splitnet.errors import SplitnetError

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
        session.subscribe(self.flush_log)

    def say(self, text: str) -> None:
        print(text, file=self.out, flush=True)

    def flush_log(self) -> None:
        for line in self.session.log[self.printed:]:
            self.say(line)
        self.printed = len(self.session.log)

    async def ask(self, prompt: str) -> str:
        """Write ``prompt`` and read a line ("" at the end of input)."""
        self.out.write(prompt)
        self.out.flush()
        return await self.loop.run_in_executor(None, self.read_line)

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
