"""Line prompts in a real 80×24 terminal (tmux). The plain front end: every line is
broken by the program at a word boundary, never by the terminal in the middle of a word
("S" at the end of one line, "11.1)" on the next), and a line that comes while the prompt
waits is followed by the prompt again. ``splitnet join``: Ctrl-C at its code prompt."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_tui_tmux import ROOT, TMUX, Pane, open_pane

pytestmark = pytest.mark.skipif(TMUX is None, reason="tmux is not installed")


def _joined(pane: Pane) -> str:
    """The screen with every line the terminal wrapped joined again (tmux marks them;
    ``-J`` keeps trailing spaces, which the plain capture drops)."""
    joined = pane.run("capture-pane", "-p", "-J", "-t", pane.name)
    return "".join(ln.rstrip() + "\n" for ln in joined.splitlines())


def _lines(screen: str) -> str:
    return "".join(ln.rstrip() + "\n" for ln in screen.splitlines())


def test_plain_splito_at_80_columns_wraps_at_words_and_asks_again(tmp_path: Path) -> None:
    pane = open_pane("plain", f"cd {ROOT} && exec {sys.executable} -m splitnet.cli play "
                              f"--game splito -n 3 --plain --seed 5 --pace 1 --data-dir "
                              f"{tmp_path / 'data'}")
    try:
        # the bots commit a second apart while our play is asked for: each line of theirs
        # is followed by the prompt again, on a line of its own
        screen = pane.wait(lambda s: "Bo committed a play for turn 1" in s, 60,
                           "the bots' commitments")
        lines = screen.rstrip("\n").splitlines()
        assert lines[-1] == ">", screen
        assert not any(ln.startswith("> ") and "committed" in ln for ln in lines), screen
        assert _lines(screen) == _joined(pane), "the terminal broke a line itself"
        pane.keys("?", "Enter")
        screen = pane.wait(lambda s: "any values, c, d: any colours." in s, 10, "the help")
        assert "S11.1" in screen and not any(ln.startswith("11.1") for ln in
                                             screen.splitlines()), screen
        assert _lines(screen) == _joined(pane), "the terminal broke a help line itself"
        assert screen.rstrip("\n").splitlines()[-1] == ">", screen
        pane.keys("q", "Enter")
    finally:
        subprocess.run([*pane.base, "kill-server"], capture_output=True, timeout=10)


def test_ctrl_c_at_the_join_code_prompt_stops_at_once(tmp_path: Path) -> None:
    """Ctrl-C at the first "Join code" prompt of ``splitnet join`` (a terminal, as a
    player types it): the command stops there, in one line and with status 130 as
    Ctrl-C does elsewhere, no traceback — the next line typed is not taken as a code."""
    pane = open_pane("join", f"cd {ROOT} && {sys.executable} -m splitnet.cli join "
                             f"127.0.0.1:9 --data-dir {tmp_path / 'data'}; "
                             "echo \"exit status $?\"; read x")
    try:
        pane.wait(lambda s: "Join code (the host shows it" in s, 30, "the code prompt")
        pane.keys("C-c")
        screen = pane.wait(lambda s: "exit status" in s, 10, "the command to stop")
        lines = [ln for ln in screen.splitlines() if ln.strip()]
        assert lines[-2:] == ["splitnet: stopped", "exit status 130"], screen
        assert "Traceback" not in screen
    finally:
        subprocess.run([*pane.base, "kill-server"], capture_output=True, timeout=10)
