"""The command line: selfplay records, the plain front end played through a pipe."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests import forked_cli

SPLITNET = [sys.executable, "-m", "splitnet.cli"]


def run(args: list[str], stdin: str = "", timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``splitnet ARGS`` in a process of its own, ``stdin`` written to it: forked with the
    program imported already (tests/forked_cli.py)."""
    return forked_cli.run(args, input=stdin, timeout=timeout)


def test_selfplay_same_arguments_same_record(tmp_path: Path) -> None:
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    for f in (a, b):
        r = run(["selfplay", "--players", "3", "--seed", "4", "--bots", "heuristic,random,random",
                 "--record", str(f)])
        assert r.returncode == 0, r.stderr
        assert "Totals:" in r.stdout and "Winner:" in r.stdout
    assert a.read_bytes() == b.read_bytes()
    rec = json.loads(a.read_text())
    assert rec["format"] == "splitnet-game-record/1" and len(rec["rounds"]) == 3


def test_selfplay_rejects_bad_arguments() -> None:
    r = run(["selfplay", "--players", "7"])
    assert r.returncode != 0 and "2 to 6 players" in (r.stderr + r.stdout)
    r = run(["selfplay", "--bots", "genius"])
    assert r.returncode != 0 and "unknown bot" in r.stderr


def test_plain_game_played_to_the_end_through_a_pipe() -> None:
    script = "hint\nt 9\nx ZZ\nhelp\n" + "moves\n1\n" * 600
    r = run(["play", "--plain", "--seed", "1", "--no-proofs"], stdin=script)
    assert r.returncode == 0, r.stderr[-2000:]
    out = r.stdout
    assert "Not allowed — R4.1b" in out  # an illegal move is explained with its rule
    assert "Hint: " in out and "— type: " in out  # the strong bot's suggestion
    assert "not a card" in out or "is not in your hand" in out
    assert "Your hand:" in out and "Discard row" in out
    assert "=== Game over ===" in out and "Winner:" in out
    assert out.count("Round 3") >= 1


def test_replay_shows_every_card_of_a_verified_transcript(tmp_path: Path) -> None:
    t = tmp_path / "g.splitlog"
    r = run(["selfplay", "--players", "2", "--seed", "1", "--no-proofs", "--transcript", str(t)])
    assert r.returncode == 0, r.stderr
    r = run(["replay", str(t)])
    assert r.returncode == 0, r.stderr
    assert "=== Round 1" in r.stdout and "=== Final ===" in r.stdout and "discards" in r.stdout
    bad = tmp_path / "bad.splitlog"
    raw = bytearray(t.read_bytes())
    raw[len(raw) // 2] ^= 1
    bad.write_bytes(bytes(raw))
    r = run(["replay", str(bad)])
    assert r.returncode == 1 and "does not verify" in r.stderr


def test_play_parses_without_the_lan_commands_and_every_other_command_still_has_them() -> None:
    # `splitnet play` starts without importing the network stack (first table after
    # launch); `host`, `join`, `bot`, a typo and the top-level help still see every command.
    import subprocess
    import sys

    code = ("import sys; from splitnet.cli import build_parser; "
            "a = build_parser(['play', '--plain']).parse_args(['play', '--plain']); "
            "print(a.command, 'splitnet.app.lan' in sys.modules, "
            "'splitnet.net.peer' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60, check=True).stdout.split()
    assert out == ["play", "False", "False"]
    from splitnet.cli import build_parser

    for argv in (["host", "--seats", "3"], ["join", "127.0.0.1:1"], ["bot", "x"], ["-h"], None):
        sub = next(a for a in build_parser(argv)._actions
                   if a.dest == "command")
        assert {"host", "join", "bot", "play"} <= set(sub.choices or ())  # type: ignore[arg-type]
