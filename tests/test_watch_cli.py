"""``splitnet watch`` as a real process on loopback (protocol/NETWORK.md §14): a host
and a bot play a whole game while a watcher, in the lobby from the start, follows it
with ``--plain``; it exits 0 with verify's verdict, its transcript byte-identical to the
players'; a wrong watch code is one line and status 1."""

from __future__ import annotations

from pathlib import Path

import pytest

from splitnet.session.transcript import read_transcript
from splitnet.verify import verify_records
from tests.test_net_game import TIMEOUT, Proc, game_file, host_port_and_code, wait_until

pytestmark = pytest.mark.slow


def test_a_watcher_follows_a_whole_game_and_ends_with_the_verdict(tmp_path: Path) -> None:
    host = Proc(tmp_path, "host", "host", "--port", "0", "--bind", "127.0.0.1",
                "--play-as-bot", "heuristic", "--seats", "2", "--no-announce", "--name",
                "Ana", "--no-proofs", "--data-dir", str(tmp_path / "p0"))
    procs = [host]
    try:
        wait_until(lambda: "listening on port" in host.stdout(), 30, "the host to listen")
        port, _code = host_port_and_code(host)
        out = host.stdout()
        watch = out.split("Watch code: ")[1].split()[0]
        assert watch != _code
        wrong = Proc(tmp_path, "wrong", "watch", f"127.0.0.1:{port}", "--plain", "--code",
                     "99-zinc-zipper" if watch != "99-zinc-zipper" else "98-zinc-zipper",
                     "--data-dir", str(tmp_path / "wrong"))
        procs.append(wrong)
        assert wrong.wait(TIMEOUT) == 1
        assert "wrong watch code" in wrong.stderr(), wrong.stderr()
        w = Proc(tmp_path, "watch", "watch", f"127.0.0.1:{port}", "--plain", "--code", watch,
                 "--name", "Cy", "--data-dir", str(tmp_path / "w"))
        procs.append(w)
        wait_until(lambda: "Cy (127.0.0.1" in host.stderr(), 30, "Cy to watch")
        bot = Proc(tmp_path, "bot", "bot", f"127.0.0.1:{port}", "--code", _code, "--name",
                   "Bo", "--data-dir", str(tmp_path / "p1"))
        procs.append(bot)
        for p in (host, bot, w):
            rc = p.wait(TIMEOUT)
            assert rc == 0, f"{p.label} exited {rc}\n{p.stderr()[-3000:]}"
        said = w.stdout()
        assert "Watching game " in said and "Split, 2 players: Ana, Bo" in said
        assert "shuffle fair: yes" in said and "Transcript: " in said
        path = Path(said.split("Transcript: ")[1].split()[0])
        players = game_file(tmp_path / "p0")
        assert players is not None and path.read_bytes() == players.read_bytes()
        assert verify_records(read_transcript(path)).ok
    finally:
        for p in procs:
            if p.p.poll() is None:
                p.p.kill()


def test_a_host_restarted_in_its_lobby_keeps_its_watch_code(tmp_path: Path) -> None:
    """The watch code is kept beside the game (NETWORK.md §9, §14): the same command
    after a kill prints the same one, so running watchers reconnect by themselves; with
    --no-watchers there is none, and the file is gone."""
    args = ["host", "--port", "0", "--bind", "127.0.0.1", "--plain", "--seats", "3",
            "--no-announce", "--no-proofs", "--data-dir", str(tmp_path / "h")]
    codes = []
    for k in range(2):
        host = Proc(tmp_path, f"host{k}", *args)
        try:
            wait_until(lambda h=host: "listening on port" in h.stdout(), 30, "the host")
            codes.append(host.stdout().split("Watch code: ")[1].split()[0])
        finally:
            host.kill()
    assert codes[0] == codes[1]
    assert list((tmp_path / "h" / "games").glob("*.watch"))
    host = Proc(tmp_path, "host2", *args, "--no-watchers")
    try:
        wait_until(lambda: "listening on port" in host.stdout(), 30, "the host")
        assert "Watch code" not in host.stdout()
    finally:
        host.kill()
    assert not list((tmp_path / "h" / "games").glob("*.watch"))
