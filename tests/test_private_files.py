"""Everything splitnet keeps in a data dir is for its user alone (protocol/NETWORK.md §9;
SECURITY.md §6, row 99): every file 0600, every directory — the data dir, ``games/`` —
0700, whatever the umask; a data dir or ``games/`` made by hand (or by an older version)
with mode 0755 is closed at start, and where that is not splitnet's to do one line says
why.

Every test runs under umask 022 (the common default: what was not created with an
explicit mode came out 0644 and 0755) and then walks the whole data dir."""

from __future__ import annotations

import logging
import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from splitnet.durable import open_private, private_dir, tighten_dir
from splitnet.games.split.bots import make_bot
from splitnet.games.split.front.selfplay import human_session
from splitnet.games.split.rules import Settings
from splitnet.net.store import open_data_dir
from splitnet.session.transcript import TranscriptWriter

SPLITNET = [sys.executable, "-m", "splitnet.cli"]


@pytest.fixture(autouse=True)
def umask_022() -> Iterator[None]:
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def modes(data_dir: Path) -> dict[str, str]:
    """Every entry under ``data_dir`` (itself included) whose mode is not 0600 for a file
    or 0700 for a directory, with its mode."""
    wrong: dict[str, str] = {}
    for p in [data_dir, *data_dir.rglob("*")]:
        m = stat.S_IMODE(p.lstat().st_mode)
        want = 0o700 if p.is_dir() else 0o600
        if m != want:
            wrong[str(p.relative_to(data_dir.parent))] = f"{m:04o}"
    return wrong


def local_game(data: Path) -> None:
    """A whole local game (you and a bot, a bot playing your seat), saved in ``data``."""
    s = human_session("You", ["heuristic"], 5, Settings(), shuffle_proofs=False,
                      data_dir=data)
    s.game.run_bots([make_bot("heuristic", 9), s.bots[1]])
    s.game.close()


def test_a_whole_local_game_writes_only_private_files(tmp_path: Path) -> None:
    data = tmp_path / "share" / "splitnet"  # its parents missing too
    local_game(data)
    files = sorted(p.name for p in (data / "games").iterdir())
    assert any(f.endswith(".splitlog") for f in files) and any(
        f.endswith(".secrets") for f in files), files
    assert modes(tmp_path / "share") == {}


def test_a_data_dir_made_by_hand_0755_is_closed_at_start(tmp_path: Path) -> None:
    data = tmp_path / "data"
    (data / "games").mkdir(parents=True)
    for d in (data, data / "games"):
        d.chmod(0o755)
    local_game(data)
    assert modes(data) == {}


def test_an_older_transcript_0644_is_closed_when_reopened(tmp_path: Path) -> None:
    path = tmp_path / "data" / "games" / ("ab" * 16 + ".splitlog")
    TranscriptWriter(path).close()
    path.chmod(0o644)
    TranscriptWriter.open_existing(path).close()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_the_commands_keep_the_data_dir_private(tmp_path: Path) -> None:
    """``splitnet play`` (a real process, umask 022 inherited) quit at once, then resumed
    and quit again, in a data dir made 0755 whose saved transcript was made 0644."""
    data = tmp_path / "data"
    data.mkdir(mode=0o755)
    r = subprocess.run([*SPLITNET, "play", "--plain", "--no-proofs", "--data-dir", str(data)],
                       input="d\nquit\n", capture_output=True, text=True, timeout=180,
                       check=False)
    assert "The game is saved" in r.stdout, r.stderr[-2000:]
    assert modes(data) == {}
    for p in (data, data / "games", *(data / "games").glob("*.splitlog")):
        p.chmod(0o755 if p.is_dir() else 0o644)
    r = subprocess.run([*SPLITNET, "play", "--plain", "--resume", "--data-dir", str(data)],
                       input="quit\n", capture_output=True, text=True, timeout=180,
                       check=False)
    assert "Resumed the game" in r.stdout, r.stderr[-2000:]
    assert modes(data) == {}


def test_a_watchers_and_a_hosts_bots_dirs_are_splitnets_own(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A data dir made by hand with mode 0755 that holds what a watcher (``watched/``) or
    a host with bots (``bots/``) made there is closed like any other of splitnet's, not
    left open with a warning about entries splitnet did not make."""
    data = tmp_path / "data"
    data.mkdir(mode=0o755)
    for d in ("watched", "bots", "games"):
        (data / d).mkdir(mode=0o700)
    with caplog.at_level(logging.WARNING, logger="splitnet"):
        open_data_dir(data)
    assert [r.getMessage() for r in caplog.records if str(data) in r.getMessage()] == []
    assert stat.S_IMODE(data.stat().st_mode) == 0o700


def test_a_data_dir_with_other_files_is_left_open_with_one_line(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """``--data-dir ~`` or any directory holding files splitnet did not make: not
    splitnet's to close (its other files are its owner's business) — one warning line,
    and splitnet's own files and ``games/`` are private all the same."""
    data = tmp_path / "mine"
    data.mkdir(mode=0o755)
    (data / "notes.txt").write_text("the user's own file")
    with caplog.at_level(logging.WARNING, logger="splitnet"):
        local_game(data)
        open_data_dir(data)  # a second start says nothing more
    lines = [r.getMessage() for r in caplog.records if str(data) in r.getMessage()]
    assert len(lines) == 1 and "\n" not in lines[0], lines
    assert "0755" in lines[0] and "1 entry that splitnet did not make" in lines[0]
    assert stat.S_IMODE(data.stat().st_mode) == 0o755
    assert modes(data) == {"mine": "0755", "mine/notes.txt": "0644"}


def test_a_shared_directory_is_never_closed(tmp_path: Path) -> None:
    """A sticky directory (like /tmp: shared by design) given as a data dir."""
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o1777)
    why = tighten_dir(shared)
    assert why is not None and "shared directory" in why
    assert stat.S_IMODE(shared.stat().st_mode) == 0o1777


def test_private_files_and_dirs_whatever_the_umask(tmp_path: Path) -> None:
    os.umask(0o000)
    d = private_dir(tmp_path / "a" / "b")
    os.close(open_private(d / "f", os.O_WRONLY))
    assert modes(tmp_path / "a") == {}
    (d / "f").chmod(0o666)  # an existing file of ours, opened again: closed
    os.close(open_private(d / "f", os.O_WRONLY, create=False))
    assert modes(tmp_path / "a") == {}


@pytest.mark.slow
def test_a_lan_game_writes_only_private_files(tmp_path: Path) -> None:
    """A whole two-seat LAN game between real processes (host and bot, umask 022
    inherited; the host's data dir made 0755 beforehand): transcripts, secrets, meta, the
    host's acks, identity keys and known peers — every file 0600, every directory 0700."""
    from tests.test_net_game import Table

    (tmp_path / "p0").mkdir(mode=0o755)
    t = Table(tmp_path, 2)
    try:
        t.finish()
    finally:
        t.kill_all()
    assert any((tmp_path / "p0" / "games").glob("*.acks"))
    assert {**modes(tmp_path / "p0"), **modes(tmp_path / "p1")} == {}
