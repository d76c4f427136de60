"""The full screen offers an unfinished game again: tmux runs ``splitnet play``, the
process is killed (SIGKILL) at the table, and the next ``splitnet play`` asks to resume
and shows the table with the log so far."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from splitnet.app import saved
from tests.test_tui_tmux import ROOT, TMUX, Pane

pytestmark = pytest.mark.skipif(TMUX is None, reason="tmux is not installed")


def _gone(pane: Pane, name: str) -> bool:
    end = time.monotonic() + 10
    while time.monotonic() < end:
        if subprocess.run([*pane.base, "has-session", "-t", name],
                          capture_output=True).returncode != 0:
            return True
        time.sleep(0.2)
    return False


def test_a_killed_full_screen_game_is_offered_and_resumed(tmp_path: Path) -> None:
    data = tmp_path / "data"
    socket = f"splitnet-resume-{os.getpid()}"
    cmd = (f"cd {ROOT} && exec {sys.executable} -m splitnet.cli play --no-proofs "
           f"--data-dir {data}")
    pane = Pane(socket, "first")
    try:
        pane.run("new-session", "-d", "-s", "first", "-x", "100", "-y", "30",
                 cmd + " --seed 2")
        pane.wait(lambda s: "Your hand" in s and "Round 1" in s, 30, "the table")
        pid = int(pane.run("display-message", "-p", "-t", "first", "#{pane_pid}").strip())
        os.kill(pid, signal.SIGKILL)
        assert _gone(pane, "first"), "the killed game's pane stayed"
        assert len(saved.unfinished(data)) == 1

        # a server of its own: the first one exits with its last session, and a client
        # that reaches it while it is going away fails to start a session there
        subprocess.run([*pane.base, "kill-server"], capture_output=True, timeout=10)
        pane = Pane(f"{socket}-2", "second")
        pane.run("new-session", "-d", "-s", "second", "-x", "100", "-y", "30", cmd)
        pane.wait(lambda s: "resume your Split game from today" in s
                  and "(round 1 of 3, against 3 normal bots)? [Y/n]" in s, 20, "the question")
        pane.keys("Enter")
        screen = pane.wait(lambda s: "Your hand" in s, 40, "the resumed table")
        pane.wait(lambda s: "Resumed the game" in s, 10,
                  "the log so far")
        assert "1 You" in screen
        pane.keys("q")
        pane.wait(lambda s: "Leave the game?" in s, 5, "the quit question")
        pane.keys("q")
        assert _gone(pane, "second"), "the table did not quit"
        assert len(saved.unfinished(data)) == 1  # still there for next time
    finally:
        subprocess.run([*pane.base, "kill-server"], capture_output=True, timeout=10)
