"""The full-screen table in a real terminal: tmux runs ``splitnet play --seed 1`` (you
against three heuristic bots, dealt by the fair-deck protocol), we type keys and read the
screen back with ``capture-pane``; and ``splitnet watch``'s table from above, beside a
host and a bot."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from splitnet.app import saved
from splitnet.net.store import GameFiles
from splitnet.session.log import Header, Log
from splitnet.session.transcript import read_transcript

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


def open_pane(name: str, cmd: str, width: int = 80, height: int = 24) -> Pane:
    """A tmux server of this test's own running ``cmd`` in session ``name``, a terminal
    of ``width`` × ``height`` (kill it with ``kill-server`` on ``pane.base``)."""
    pane = Pane(f"splitnet-{name}-{os.getpid()}", name)
    pane.run("new-session", "-d", "-s", name, "-x", str(width), "-y", str(height), cmd)
    return pane


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
        pane.wait(lambda s: "q or Ctrl-C again quits" in s, 5, "the quit question")
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


def _alive(pane: Pane, name: str) -> bool:
    return subprocess.run([*pane.base, "has-session", "-t", name],
                          capture_output=True).returncode == 0


def _ask_line(screen: str) -> str:
    """The line that says what the table asks (the last but one of the screen)."""
    lines = [ln for ln in screen.splitlines() if ln.strip()]
    return lines[-2] if len(lines) >= 2 else ""


def test_a_whole_game_and_a_rematch_in_tmux(tmp_path: Path) -> None:
    """``splitnet play`` to the end screen by keys read off the screen, then n for a new
    game against the same players in the same seats (the next player deals first, R3.2),
    played to the end too, then q; ``splitnet verify FIRST SECOND`` checks the pair.
    Two-round games without shuffle proofs keep it short."""
    settings = tmp_path / "short.json"
    settings.write_text('{"rounds": 2}')
    socket = f"splitnet-test-{os.getpid()}-game"
    name = "game"
    data = tmp_path / "data"
    cmd = (f"cd {ROOT} && exec {sys.executable} -m splitnet.cli play --seed 3 --pace 0 "
           f"--no-proofs --settings {settings} --data-dir {data}")
    pane = Pane(socket, name)
    pane.run("new-session", "-d", "-s", name, "-x", "100", "-y", "30", cmd)
    try:
        pane.wait(lambda s: "Round 1/2 · Dealer You" in s, 30, "the first deal")
        finals = 0
        hinted = False
        end = time.monotonic() + 180
        while time.monotonic() < end:
            screen = pane.screen()
            ask = _ask_line(screen)
            if "The end —" in screen:
                assert "GAME OVER" in screen and "Round by round" in screen
                assert "Standings: 1." in screen
                finals += 1
                if finals == 1:
                    assert "n new game with the same players and seats (Ana deals " \
                        "first)" in screen
                    pane.keys("n")
                    screen = pane.wait(lambda s: "Round 1/2 · Dealer Ana" in s, 30,
                                       "the new game, dealt by Ana")
                    assert "The end" not in screen
                    # the rematch is saved as it is played, with you in your seat
                    (meta,) = saved.unfinished(data)
                    assert meta.seat == 0 and meta.name == "You"
                    assert saved.load(data, meta).bots == [None] + ["heuristic"] * 3
                    continue
                pane.keys("q")
                break
            if "Results —" in screen:
                pane.keys("Enter")
                pane.wait(lambda s: "Results —" not in s, 10, "the table after the results")
                continue
            elif "Your turn: d draws" in ask:
                pane.keys("d")
            elif "Lay (l), upgrade (u) or discard (x)" in ask:
                if not hinted:  # the hint names a move and its reason; Esc clears it
                    pane.keys("h")
                    hint = pane.wait(lambda s: "(key " in s, 10, "the hint")
                    assert "Hint: " in hint and ": " in hint.split("Hint: ")[1]
                    pane.keys("Escape")
                    pane.wait(lambda s: "Lay (l)" in _ask_line(s), 5, "the question again")
                    hinted = True
                assert "selected:" not in screen
                pane.keys("A")  # select the first card (letters stay put this turn) …
                pane.wait(lambda s: "selected:" in s, 5, "the selection")
                pane.keys("x")  # … and discard it: an explicit selection needs one x
            elif "went out at once" in ask:
                pane.keys("e")
            else:
                time.sleep(0.1)
                continue
            pane.wait(lambda s, a=ask: _ask_line(s) != a or "Results —" in s
                      or "The end —" in s, 20, f"an answer to {ask.strip()!r}")
            assert "again discards" not in pane.screen()
        else:
            raise AssertionError(f"the games did not end; screen:\n{pane.screen()}")
        assert finals == 2 and hinted
        end = time.monotonic() + 10
        while time.monotonic() < end and _alive(pane, name):
            time.sleep(0.2)
        assert not _alive(pane, name), "the table did not quit"
        finished = [GameFiles(data, bytes.fromhex(p.stem)).load_meta()
                    for p in (data / "games").glob("*.meta")]
        assert [m.seat for m in finished] == [0, 0] and all(m.finished for m in finished)
        # the first game and its rematch, checked as a pair (GAME.md "Rematch")
        first, second = sorted((data / "games").glob("*.splitlog"),
                               key=lambda p: "rematch" in _header(p).settings)
        v = subprocess.run([sys.executable, "-m", "splitnet.cli", "verify", str(first),
                            str(second)], capture_output=True, text=True, timeout=120,
                           check=False)
        assert v.returncode == 0, v.stdout + v.stderr
        assert "first dealer Ana (R3.2): ok" in v.stdout
    finally:
        subprocess.run([*pane.base, "kill-server"], capture_output=True, timeout=10)


def _header(path: Path) -> Header:
    """The header of the transcript at ``path``."""
    log = Log()
    log.append_record(read_transcript(path)[0])
    return log.header


def _key_bar(screen: str) -> str:
    """The screen's last line that is not blank: the keys line."""
    return [ln for ln in screen.splitlines() if ln.strip()][-1]


def test_the_key_bar_shows_the_chat_keys_while_chat_is_typed(tmp_path: Path) -> None:
    """The full screen at 80×24: c opens the chat line; while it is typed the keys line
    shows only what works there (Enter send, Esc cancel), not the table's keys, which
    would type letters into the message; Esc gives the table's keys back."""
    pane = open_pane("chat", f"cd {ROOT} && exec {sys.executable} -m splitnet.cli play "
                             f"--seed 1 --no-proofs --data-dir {tmp_path / 'data'}")
    try:
        pane.wait(lambda s: "Your hand" in s and "(no cards)" not in s, 30, "the deal")
        pane.keys("c")
        # the chat line takes the place of the log's header ("… say › c to chat …")
        screen = pane.wait(lambda s: "say ›" in s and "c to chat" not in s, 10,
                           "the chat line")
        bar = _key_bar(screen)
        assert "Enter send" in bar and "Esc cancel" in bar, screen
        assert "? help" not in bar and "q quit" not in bar and "move" not in bar, screen
        pane.keys("Escape")
        screen = pane.wait(lambda s: "c to chat" in s, 10, "the table's keys again")
        assert "? help" in _key_bar(screen), screen
    finally:
        subprocess.run([*pane.base, "kill-server"], capture_output=True, timeout=10)


@pytest.mark.parametrize("game", ["split", "splito"])
def test_ctrl_l_draws_the_table_again_over_what_another_program_printed(
        tmp_path: Path, game: str) -> None:
    """Another program's lines over the full-screen table (a helper process's warning
    did so) stay until the table happens to redraw those cells; Ctrl-L draws the whole
    screen again at once, in both games."""
    what = "--game splito -n 3" if game == "splito" else "--no-proofs"
    pane = open_pane(f"redraw-{game}", f"cd {ROOT} && exec {sys.executable} -m splitnet.cli "
                                       f"play {what} --seed 1 --data-dir {tmp_path / 'd'}")
    try:
        # the table waits for us: nothing on it changes by itself until we move
        ready = "2 of 3 committed, waiting for you" if game == "splito" else "Your turn"
        pane.wait(lambda s: ready in s, 90, "the table waiting for us")
        tty = pane.run("display-message", "-p", "-t", pane.name, "#{pane_tty}").strip()
        with open(tty, "w", encoding="utf-8") as term:
            term.write("\x1b[6;1HWARNING: SOMETHING ELSE WROTE HERE\r\n" * 2)
        pane.wait(lambda s: "SOMETHING ELSE" in s, 10, "the other program's lines")
        pane.keys("C-l")
        pane.wait(lambda s: "SOMETHING ELSE" not in s and ready in s, 10, "the table redrawn")
    finally:
        subprocess.run([*pane.base, "kill-server"], capture_output=True, timeout=10)


def test_watch_full_screen_in_tmux(tmp_path: Path) -> None:
    """``splitnet watch`` at a real terminal: the table from above (hands face down with
    their counts, the discard row, the pads, the log), the help; q quits at once and
    gives the terminal back, where the verdict so far and the transcript's path are
    printed (status 3: the game was not over); the same command goes on from its file,
    and SIGTERM gives the terminal back too (status 130)."""
    from tests.test_net_game import Proc, host_port_and_code, wait_until

    host = Proc(tmp_path, "host", "host", "--port", "0", "--bind", "127.0.0.1",
                "--play-as-bot", "heuristic", "--seats", "2", "--no-announce", "--name",
                "Ana", "--no-proofs", "--data-dir", str(tmp_path / "p0"))
    procs = [host]
    pane: Pane | None = None
    try:
        wait_until(lambda: "listening on port" in host.stdout(), 30, "the host to listen")
        port, code = host_port_and_code(host)
        watch = host.stdout().split("Watch code: ")[1].split()[0]
        procs.append(Proc(tmp_path, "bot", "bot", f"127.0.0.1:{port}", "--code", code,
                          "--name", "Bo", "--delay", "3",  # a long game: we quit mid-way
                          "--data-dir", str(tmp_path / "p1")))
        cmd = (f"cd {ROOT} && {sys.executable} -m splitnet.cli watch 127.0.0.1:{port} "
               f"--code {watch} --data-dir {tmp_path / 'w'}; echo EXIT=$?; ")
        cmd += cmd.replace("EXIT=", "AGAIN=") + "sleep 60"  # then run again, and killed
        pane = open_pane("watch", cmd, 100, 30)
        screen = pane.wait(lambda s: "Discard row" in s and " cards ▒" in s, 60,
                           "the table from above")
        assert "splitnet watch · Split · round 1 of" in screen and "Ana" in screen
        assert "Bo" in screen and "Draw pile: " in screen and "Log" in screen
        assert len(re.findall(r"(^|│) Perf +[■▣□]", screen, re.M)) == 2  # two pads
        pane.keys("?")
        pane.wait(lambda s: "Watching a game" in s, 10, "the help")
        pane.keys("Escape")
        pane.wait(lambda s: "Discard row" in s, 10, "the table again")
        pane.keys("q")
        screen = pane.wait(lambda s: "EXIT=" in s, 20, "the watcher to quit")
        assert "EXIT=3" in screen and "incomplete: " in screen and "Transcript: " in screen
        assert "Discard row" not in screen  # the terminal is given back, the table gone
        # The same command goes on from its file; SIGTERM gives the terminal back too.
        pane.wait(lambda s: "Discard row" in s and "EXIT=" not in s, 30, "the table again")
        shell = int(pane.run("list-panes", "-t", "watch", "-F", "#{pane_pid}").split()[0])
        child = int(Path(f"/proc/{shell}/task/{shell}/children").read_text().split()[0])
        os.kill(child, signal.SIGTERM)
        screen = pane.wait(lambda s: "AGAIN=" in s, 20, "the killed watcher to end")
        assert "AGAIN=130" in screen and "Discard row" not in screen
    finally:
        if pane is not None:
            subprocess.run([*pane.base, "kill-server"], capture_output=True, timeout=10)
        for p in procs:
            if p.p.poll() is None:
                p.p.kill()
