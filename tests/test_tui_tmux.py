"""The full-screen table in a real terminal: tmux runs ``splitnet play --seed 1`` (you
against three heuristic bots, dealt by the fair-deck protocol), we type keys and read the
screen back with ``capture-pane``."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

TMUX = shutil.which("tmux")
pytestmark = pytest.mark.skipif(TMUX is None, reason="tmux is not installed")
ROOT = Path(__file__).resolve().parent.parent


class Pane:
    def __init__(self, socket: str, name: str) -> None:
        self.base = [TMUX or "tmux", "-L", socket]
        self.name = name

    def run(self, *args: str) -> str:
        out = subprocess.run([*self.base, *args], capture_output=True, text=True,
                             timeout=10, check=True)
        return out.stdout

    def screen(self) -> str:
        return self.run("capture-pane", "-p", "-t", self.name)

    def keys(self, *keys: str) -> None:
        self.run("send-keys", "-t", self.name, *keys)

    def wait(self, pred: Callable[[str], bool], timeout: float, what: str) -> str:
        end = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < end:
            screen = self.screen()
            if pred(screen):
                return screen
            time.sleep(0.2)
        raise AssertionError(f"timed out waiting for {what}; screen:\n{screen}")


def test_play_a_turn_in_tmux() -> None:
    socket = f"splitnet-test-{os.getpid()}"
    name = "table"
    cmd = f"cd {ROOT} && exec {sys.executable} -m splitnet.cli play --seed 1"
    pane = Pane(socket, name)
    pane.run("new-session", "-d", "-s", name, "-x", "100", "-y", "30", cmd)
    try:
        screen = pane.wait(lambda s: "Your hand" in s, 20, "the table")
        assert "Discard row" in screen and "Draw pile:" in screen
        assert "1 You" in screen and "2 Ana" in screen and "4 Cy" in screen
        assert len(re.findall(r"(^|│) Perf +[■▣□]", screen, re.M)) == 4  # four pads
        assert len(re.findall(r"(^|│) Neg +[■▣□]", screen, re.M)) == 4
        screen = pane.wait(lambda s: "Your turn" in s, 40, "our turn")
        hand_before = int(re.search(r"Your hand (\d+)", screen).group(1))  # type: ignore[union-attr]
        pane.keys("d")
        screen = pane.wait(lambda s: "You drew" in s, 10, "the draw")
        assert f"Your hand {hand_before + 1}" in screen
        assert "discard (x)" in screen
        # Discard the last card of the hand (its letter), ending the turn.
        letter = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[hand_before]
        pane.keys(letter)
        pane.wait(lambda s: "selected:" in s, 5, "the selection")
        pane.keys("x")
        screen = pane.wait(lambda s: "You discarded" in s, 10, "the discard")
        # Out of turn, a move is explained with its rule number and not played.
        pane.keys("d")
        screen = pane.wait(lambda s: "R3.4" in s, 5, "the refusal")
        assert "turn, not yours" in screen
        pane.keys("?")
        screen = pane.wait(lambda s: "Matches (R2)" in s, 5, "the help screen")
        pane.keys("Escape")
        pane.wait(lambda s: "Your hand" in s, 5, "the table again")
        pane.keys("q")
        pane.wait(lambda s: "Press q again" in s, 5, "the quit question")
        pane.keys("q")
        end = time.monotonic() + 10
        while time.monotonic() < end:
            alive = subprocess.run([*pane.base, "has-session", "-t", name],
                                   capture_output=True).returncode == 0
            if not alive:
                break
            time.sleep(0.2)
        else:
            raise AssertionError("the table did not quit")
    finally:
        subprocess.run([*pane.base, "kill-server"], capture_output=True, timeout=10)
