"""The plain front ends' terminal (splitnet/ui/plain_io.py): a log line that arrives while
the prompt waits is printed below the prompt and the prompt is written again; on a
terminal long lines are broken at word boundaries."""

from __future__ import annotations

import asyncio
import io
import threading
from collections.abc import Callable
from typing import TextIO, cast

from splitnet.ui.plain_io import PlainTerminal, wrap_lines


class _Session:
    def __init__(self) -> None:
        self.log: list[str] = []
        self.subs: list[Callable[[], None]] = []

    def subscribe(self, callback: Callable[[], None]) -> None:
        self.subs.append(callback)

    def tell(self, *lines: str) -> None:
        self.log.extend(lines)
        for cb in self.subs:
            cb()


class _HeldInput:
    """A line typed only once the test lets it through."""

    def __init__(self, line: str) -> None:
        self.line, self.go = line, threading.Event()

    def readline(self) -> str:
        assert self.go.wait(30)
        return self.line


async def test_a_line_told_at_the_prompt_is_followed_by_the_prompt_again() -> None:
    session, inp, out = _Session(), _HeldInput("A left\n"), io.StringIO()
    term = PlainTerminal(session, cast(TextIO, inp), out)
    answer = asyncio.create_task(term.ask("> "))
    for _ in range(100):
        if out.getvalue():
            break
        await asyncio.sleep(0)
    assert out.getvalue() == "> "
    session.tell("Ana committed a play for turn 1.", "Bo committed a play for turn 1.")
    inp.go.set()
    assert await answer == "A left\n"
    # answered (on a terminal its echo ended the prompt's line): no new line, no prompt
    term.say("You committed [R]5 → left for turn 1.")
    assert out.getvalue() == ("> \nAna committed a play for turn 1.\n"
                              "Bo committed a play for turn 1.\n> "
                              "You committed [R]5 → left for turn 1.\n")


def test_long_lines_break_at_words_under_their_column_and_codes_stay_whole() -> None:
    line = "  scores             every player's score if the game ended now (S11.1: left)"
    assert wrap_lines(line, 60) == ("  scores             every player's score if the game ended\n"
                                    "                     now (S11.1: left)")
    assert wrap_lines("Join code 7-lunar-anchor is the one to type now", 20) == \
        "Join code\n7-lunar-anchor is\nthe one to type now"
    assert wrap_lines("short\nlines stay", 20) == "short\nlines stay"
