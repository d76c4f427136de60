"""Watching across the internet (protocol/NETWORK.md §14.8): ``splitnet watch CODE``
through a host's watch invitation, on loopback with the mailbox server and the transit
relay of tests/test_wormhole.py (relay only), as real processes.

A Split game is watched by two watchers — Cy from the lobby, killed mid-game and run
again with the same command (it meets the host on its resume wormhole and goes on from
its file), Di from mid-game, pinned with ``--host-key`` — and a Splito game by one
whose host is killed mid-game and restarted (the watcher comes back by itself), each
transcript byte-identical to the players' and verifying. On the way, the attacks of
SECURITY.md row 145: a join invitation used to watch, a watch invitation used to join
(refused, no seat), a wrong ``--host-key`` (one line, status 1).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from splitnet.session.transcript import read_transcript
from splitnet.verify import verify_records
from tests import test_wormhole
from tests.test_net_game import TIMEOUT, Proc, game_file, wait_until
from tests.test_wormhole import FAST, Servers, invitations, kill_all

pytestmark = pytest.mark.slow
#: the loopback mailbox server and transit relay of tests/test_wormhole.py (its fixtures)
_server_procs, servers = test_wormhole._server_procs, test_wormhole.servers

_WATCH = re.compile(r"Watch invitation: splitnet watch (\d+-[a-z]+-[a-z]+)")


def watch_invitations(host: Proc) -> list[str]:
    return _WATCH.findall(host.stdout())


def watched(data_dir: Path) -> Path | None:
    files = sorted((data_dir / "watched").glob("*.splitlog")) if (
        data_dir / "watched").is_dir() else []
    return files[0] if files else None


def n_watched(data_dir: Path) -> int:
    f = watched(data_dir)
    return len(read_transcript(f, repair=True)) if f else 0


def same_as_players(watchers: list[Proc], players: list[Path]) -> None:
    """Each process ended 0; every watcher's transcript is the players', and verifies."""
    data = [f.read_bytes() for f in map(game_file, players) if f]
    assert len(data) == len(players) and all(d == data[0] for d in data), "players differ"
    for w in watchers:
        said = w.stdout()
        assert "Transcript: " in said, said[-2000:]
        path = Path(said.split("Transcript: ")[1].split()[0])
        assert path.read_bytes() == data[0], f"{w.label}'s transcript differs"
    first = game_file(players[0])
    assert first is not None and verify_records(read_transcript(first)).ok


def ended_well(*procs: Proc) -> None:
    for p in procs:
        rc = p.wait(TIMEOUT)
        assert rc == 0, f"{p.label} exited {rc}\n{p.stdout()[-1500:]}\n{p.stderr()[-3000:]}"


def test_a_split_game_watched_through_watch_invitations(servers: Servers,
                                                        tmp_path: Path) -> None:
    """R3.1 through wormholes, watched: the attacks first, in the lobby; then Cy (from the
    lobby, killed mid-game, back by the same command), Di (mid-game, pinned)."""
    net = [*servers.args, *FAST]
    rounds = tmp_path / "two-rounds.json"
    rounds.write_text('{"rounds": 2}')  # (long enough for Cy to be back before the end)
    host = Proc(tmp_path, "host", "host", "--internet", *net, "--settings", str(rounds),
                "--port", "0", "--bind", "127.0.0.1", "--play-as-bot", "heuristic",
                "--think", "0.8", "--seats", "2", "--no-announce", "--no-proofs",
                "--name", "heuristic-0", "--data-dir", str(tmp_path / "p0"),
                "--test-seed", "21")
    procs = [host]
    try:
        wait_until(lambda: invitations(host) and watch_invitations(host), 60,
                   "both invitations")
        fp = host.stdout().split("Host key fingerprint: ")[1].split()[0]
        # a join invitation used to watch: refused, in one line (no seat, no watch)
        bad = Proc(tmp_path, "join-as-watch", "watch", invitations(host)[0], *net,
                   "--plain", "--data-dir", str(tmp_path / "x1"))
        procs.append(bad)
        assert bad.wait(TIMEOUT) == 1
        assert "is not a watch invitation" in bad.stderr(), bad.stderr()[-2000:]
        # a watch invitation used for a seat: refused, the lobby unchanged
        seat = Proc(tmp_path, "watch-as-join", "bot", watch_invitations(host)[0], *net,
                    "--name", "heuristic-9", "--data-dir", str(tmp_path / "x2"))
        procs.append(seat)
        assert seat.wait(TIMEOUT) == 1
        assert "is not a join invitation" in seat.stderr(), seat.stderr()[-2000:]
        assert "joined the lobby" not in host.stderr()
        # Cy, from the lobby: the host's fingerprint shown; pinned, it watches
        wait_until(lambda: len(watch_invitations(host)) >= 2, 60, "a fresh watch invitation")
        cy = Proc(tmp_path, "cy", "watch", watch_invitations(host)[-1], *net, "--plain",
                  "--name", "Cy", "--data-dir", str(tmp_path / "cy"))
        procs.append(cy)
        wait_until(lambda: host.stderr().count("Cy (wormhole-") >= 1, 60, "Cy watching")
        assert f"Host key fingerprint: {fp}" in cy.stdout()
        # Eve pins another key: one line, status 1, nothing watched
        wait_until(lambda: len(watch_invitations(host)) >= 3, 60, "a third watch invitation")
        eve = Proc(tmp_path, "eve", "watch", watch_invitations(host)[-1], *net, "--plain",
                   "--host-key", "0000-0000-0000-0000-0000", "--data-dir", str(tmp_path / "e"))
        procs.append(eve)
        assert eve.wait(TIMEOUT) == 1
        assert f"the host's key fingerprint is {fp}, not 0000-0000-0000-0000-0000 " \
               "(--host-key)" in eve.stderr(), eve.stderr()[-2000:]
        assert watched(tmp_path / "e") is None
        # the player, on a fresh join invitation (the one spent above was released)
        wait_until(lambda: len(invitations(host)) >= 2, 60, "a fresh join invitation")
        bot = Proc(tmp_path, "bot1", "bot", invitations(host)[-1], *net, "--think", "0.8",
                   "--name", "heuristic-1", "--data-dir", str(tmp_path / "p1"),
                   "--test-seed", "21")
        procs.append(bot)
        wait_until(lambda: n_watched(tmp_path / "cy") >= 8, 120, "Cy to follow the game")
        cy.kill()  # mid-game; the same command again
        at = n_watched(tmp_path / "cy")
        cy.start()
        di = Proc(tmp_path, "di", "watch", watch_invitations(host)[-1], *net, "--plain",
                  "--name", "Di", "--host-key", fp, "--data-dir", str(tmp_path / "di"))
        procs.append(di)
        ended_well(host, bot, cy, di)
        assert "Back to the host through a resume wormhole" in cy.stdout()
        assert "met the host again on resume wormhole" in cy.stderr()
        back = re.findall(r"Cy \(wormhole-\d+:0\) is watching from record (\d+)",
                          host.stderr())
        assert len(back) >= 2 and int(back[-1]) >= at > 0  # it went on from its file
        assert "shuffle fair: yes" in di.stdout() and "(as --host-key asked)" in di.stdout()
        same_as_players([cy, di], [tmp_path / "p0", tmp_path / "p1"])
    finally:
        kill_all(procs)


def test_a_splito_game_watched_through_a_watch_invitation(servers: Servers,
                                                          tmp_path: Path) -> None:
    """Splito through wormholes, watched from the lobby to the end, its host killed (-9)
    mid-game and started again with the same command: the watcher, the same process all
    along, meets the restarted host on its resume wormhole (the host kept the watchers'
    resume secrets, GAME_ID.watch.wormhole) as the player's bot does; the watcher's
    transcript is the players' and verifies."""
    net = [*servers.args, *FAST]
    host = Proc(tmp_path, "host", "host", "--internet", *net, "--game", "splito",
                "--port", "0", "--bind", "127.0.0.1", "--play-as-bot", "normal",
                "--seats", "2", "--no-announce", "--name", "Host",
                "--data-dir", str(tmp_path / "p0"), "--test-seed", "22")
    procs = [host]
    try:
        wait_until(lambda: invitations(host) and watch_invitations(host), 60,
                   "both invitations")
        w = Proc(tmp_path, "cy", "watch", watch_invitations(host)[0], *net, "--plain",
                 "--name", "Cy", "--data-dir", str(tmp_path / "cy"))
        procs.append(w)
        wait_until(lambda: "Cy (wormhole-" in host.stderr(), 60, "Cy watching")
        procs.append(Proc(tmp_path, "bot1", "bot", invitations(host)[0], *net, "--name",
                          "B1", "--data-dir", str(tmp_path / "p1"), "--test-seed", "22"))
        wait_until(lambda: n_watched(tmp_path / "cy") >= 10, 120, "Cy to follow the game")
        host.kill()
        host.start()
        wait_until(lambda: host.stderr().count("back on resume wormhole") >= 2, 120,
                   "the bot and Cy back")
        ended_well(*procs)
        assert host.stdout().count("Resuming unfinished game") == 1
        assert "met the host again on resume wormhole" in w.stderr()
        assert "Splito, 2 players" in w.stdout()
        same_as_players([w], [tmp_path / "p0", tmp_path / "p1"])
    finally:
        kill_all(procs)
