"""The full-screen Splito table in a real terminal: tmux runs ``splitnet play --game
splito -n 3`` (you against two bots, dealt by the fair-deck protocol), we play every
turn by keys read off the screen (a card's letter, ←, Enter), read the end screen, quit,
and check the saved transcript with ``splitnet verify``."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.test_tui_tmux import ROOT, TMUX, Pane, _alive

pytestmark = pytest.mark.skipif(TMUX is None, reason="tmux is not installed")


def test_a_whole_splito_game_by_keys_in_tmux_then_verify(tmp_path: Path) -> None:
    socket = f"splitnet-test-{os.getpid()}-splito"
    name = "splito"
    data = tmp_path / "data"
    cmd = (f"cd {ROOT} && exec {sys.executable} -m splitnet.cli play --game splito -n 3 "
           f"--seed 5 --pace 0 --data-dir {data}")
    pane = Pane(socket, name)
    pane.run("new-session", "-d", "-s", name, "-x", "80", "-y", "24", cmd)
    try:
        screen = pane.wait(lambda s: "Your play: a card A–M" in s, 60, "the first turn")
        assert "turn 1 of 13" in screen and "Central objectives" in screen
        assert "◀ LEFT zone You|Ana" in screen or "◀ LEFT zone you|Ana" in screen
        assert "If the game ended now" in screen and "Turn 1 commitments:" in screen
        pane.keys("?")
        help_screen = pane.wait(lambda s: "The seed's notation" in s or "Keys" in s, 10,
                                "the help")
        assert "Enter" in help_screen
        pane.keys("Escape")
        pane.wait(lambda s: "Your play: a card" in s, 10, "the table again")
        for turn in range(1, 14):
            pane.wait(lambda s, t=turn: f"turn {t} of 13" in s and "Your play: a card" in s,
                      60, f"turn {turn}")
            pane.keys("A")
            pane.keys("Left")
            screen = pane.wait(lambda s: "Enter commits" in s, 10, "the chosen play")
            assert re.search(r" A .+ → left \(zone you\|Ana\)", screen), screen
            pane.keys("Enter")
            if turn < 13:
                pane.wait(lambda s, t=turn: f"turn {t + 1} of 13" in s, 60,
                          f"the reveal of turn {turn}")
        screen = pane.wait(lambda s: re.search(r" wins? with \d+", s) is not None, 90,
                           "the end screen")
        assert re.search(r"left \d+ × right \d+ = \d+", screen), screen
        pane.keys("q")
        end = time.monotonic() + 15
        while time.monotonic() < end and _alive(pane, name):
            time.sleep(0.2)
        assert not _alive(pane, name), "the table did not quit"
    finally:
        subprocess.run([*pane.base, "kill-server"], capture_output=True, timeout=10)
    [log] = list((data / "games").glob("*.splitlog"))
    v = subprocess.run([sys.executable, "-m", "splitnet.cli", "verify", str(log)],
                       capture_output=True, text=True, timeout=120, check=False, cwd=ROOT)
    assert v.returncode == 0, v.stdout + v.stderr
    assert "shuffle fair: yes" in v.stdout


def test_eight_players_at_80x24_objectives_by_name_and_the_whole_status_line(
        tmp_path: Path) -> None:
    """``play --game splito -n 8`` in an 80×24 terminal: the hand and the zones named the
    objectives by bare ids ("OBJ12", "✗OBJ32") and the status line, listing all eight
    players, lost the last one. Objectives are named below the central line (which
    gives id, name and face), and the status line says who is missing, whole."""
    data = tmp_path / "data"
    pane = Pane(f"splitnet-test-{os.getpid()}-splito8", "splito8")
    pane.run("new-session", "-d", "-s", "splito8", "-x", "80", "-y", "24",
             f"cd {ROOT} && exec {sys.executable} -m splitnet.cli play --game splito -n 8 "
             f"--seed 5 --pace 0 --data-dir {data}")
    try:
        screen = pane.wait(lambda s: "Your play: a card" in s and "7 of 8" in s, 120,
                           "the first turn, the bots committed")
        lines = screen.splitlines()
        status = [ln for ln in lines if ln.strip()][-1]
        assert "…" not in status, screen
        assert status.strip() == "your play — turn 1: 7 of 8 committed, waiting for you", screen
        zones = next(i for i, ln in enumerate(lines) if "◀ LEFT" in ln)
        log = next(i for i, ln in enumerate(lines) if ln.startswith(" Log"))
        table = "\n".join(lines[zones:log])
        assert "Your hand (13)" in table and "★" in table, screen
        assert re.search(r"OBJ\d\d", table) is None, screen  # names, not ids
        assert re.search(r"OBJ\d\d", "\n".join(lines[:zones])), screen  # the central line
    finally:
        subprocess.run([*pane.base, "kill-server"], capture_output=True, timeout=10)
