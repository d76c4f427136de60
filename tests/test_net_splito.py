"""Splito over the LAN with real processes on loopback (protocol/SPLITO_GAME.md "LAN"):
``splitnet host --game splito --play-as-bot`` and ``splitnet bot`` processes, each with
its own data directory; the transcripts are byte-identical and ``splitnet verify``
passes. A bot killed -9 between its commitment and its reveal (S7.3) is restarted and
opens exactly the play it committed to: its chosen play was on disk before its
commitment was sent."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from splitnet.game.table import ChosenPlay
from splitnet.net.store import SeedStore
from splitnet.session.log import Log
from splitnet.session.transcript import read_transcript
from splitnet.verify import verify_records
from tests import forked_cli
from tests.test_net_game import (
    TIMEOUT,
    Proc,
    game_file,
    host_port_and_code,
    rematch_table,
    wait_until,
)

pytestmark = pytest.mark.slow


class SplitoTable:
    """A Splito host (seat 0, a bot) and ``n - 1`` bot processes, all on 127.0.0.1."""

    def __init__(self, tmp: Path, n: int, bot_extra: dict[int, tuple[str, ...]]) -> None:
        self.tmp = tmp
        self.n = n
        self.host = Proc(tmp, "host", "host", "--game", "splito", "--port", "0", "--bind",
                         "127.0.0.1", "--play-as-bot", "normal", "--seats", str(n),
                         "--no-announce", "--name", "Host", "--data-dir", str(tmp / "p0"),
                         "--test-seed", "4")
        wait_until(lambda: "listening on port" in self.host.stdout(), 30, "the host to listen")
        assert f"Game: Splito, {n} seats" in self.host.stdout()
        self.port, self.code = host_port_and_code(self.host)
        self.bots: list[Proc] = []
        for i in range(1, n):
            self.bots.append(Proc(tmp, f"bot{i}", "bot", f"127.0.0.1:{self.port}", "--name",
                                  f"B{i}", "--data-dir", str(tmp / f"p{i}"), "--code",
                                  self.code, "--test-seed", "4", *bot_extra.get(i, ())))
            wait_until(lambda i=i: self.host.stderr().count("joined the lobby") >= i, 30,
                       f"bot {i} to join")

    @property
    def procs(self) -> list[Proc]:
        return [self.host, *self.bots]

    def finish(self) -> list[bytes]:
        for p in self.procs:
            rc = p.wait(TIMEOUT)
            assert rc == 0, f"{p.label} exited {rc}\n{p.stderr()[-3000:]}"
            assert "Scores (left zone × right zone):" in p.stdout(), p.stdout()[-2000:]
        files = [game_file(self.tmp / f"p{i}") for i in range(self.n)]
        assert all(files)
        data = [f.read_bytes() for f in files if f]
        assert all(d == data[0] for d in data[1:]), "transcripts differ"
        assert files[0] is not None
        return read_transcript(files[0])

    def kill_all(self) -> None:
        for p in self.procs:
            if p.p.poll() is None:
                p.p.kill()


@pytest.fixture
def splito_table(tmp_path: Path):  # type: ignore[no-untyped-def]
    made: list[SplitoTable] = []

    def make(n: int, bot_extra: dict[int, tuple[str, ...]] | None = None) -> SplitoTable:
        t = SplitoTable(tmp_path, n, bot_extra or {})
        made.append(t)
        return t

    yield make
    for t in made:
        t.kill_all()


def test_a_four_seat_splito_game_over_the_lan_verifies(splito_table, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # every bot level among the seats; the most seats Splito has (S2.1, eight) over the
    # network: tests/test_net_splito_mem.py, in memory, where the n² checks of the hops
    # are not made again in every process
    levels = ["strong", "easy", "normal"]
    t = splito_table(4, {i: ("--level", levels[i % 3]) for i in range(1, 4)})
    records = t.finish()
    v = verify_records(records)
    assert v.ok, v.summary
    assert v.record is not None and v.record["format"] == "splito-record/1"
    assert [s["name"] for s in v.record["seats"]] == ["Host", *(f"B{i}" for i in range(1, 4))]
    out = forked_cli.run(["verify", str(game_file(tmp_path / "p3"))], timeout=120)
    assert out.returncode == 0, out.stderr
    assert "shuffle fair: yes" in out.stdout
    assert "Dealt:" in t.bots[0].stdout() and "Audit passed (S7.5)" in t.bots[0].stdout()


def _entries(data_dir: Path) -> list[tuple[int, str, dict[str, object]]]:
    f = game_file(data_dir)
    if f is None:
        return []
    log = Log()
    out = []
    for rec in read_transcript(f, repair=True):
        e = log.append_record(rec)
        if e.seq > 0:
            out.append((e.author, e.kind, dict(e.body)))
    return out


def _committed_not_revealed(data_dir: Path, seat: int) -> bool:
    """The host's log holds ``seat``'s commitment of the current turn and not yet the
    turn's reveals (one seat's commitment is still missing)."""
    entries = _entries(data_dir)
    moves = [(a, b.get("turn")) for a, k, b in entries if k == "move"]
    reveals = {b.get("turn") for _, k, b in entries if k == "reveal"}
    if not moves:
        return False
    turn = moves[-1][1]
    return turn not in reveals and (seat, turn) in moves


def _chosen(data_dir: Path, seat: int, turn: int) -> ChosenPlay | None:
    """The play ``seat`` chose for ``turn``, from its own secrets file (written there
    before its commitment is sent, S7.3)."""
    f = game_file(data_dir)
    assert f is not None
    log = Log()
    log.append_record(read_transcript(f)[0])
    return SeedStore(f.with_suffix(".secrets"), log.game_id, seat,  # type: ignore[arg-type]
                     log.header_hash).chosen(turn)


def test_a_bot_killed_between_commitment_and_reveal_opens_what_it_committed(
        splito_table, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # B2 waits a little before each commitment, so B1's is mostly in the log first; then
    # B2 is stopped (SIGSTOP), and if its secrets file holds no play of that turn it has
    # sent no commitment and cannot, so nobody can reveal: B1 is killed in that state
    # whatever the machine's speed (else B2 goes on and the next turn is tried)
    t = splito_table(3, {2: ("--delay", "0.5")})
    victim, last = t.bots
    for _ in range(13):  # a turn at a time, a game's turns at most
        wait_until(lambda: _committed_not_revealed(tmp_path / "p0", 1), 90,
                   "B1's commitment to be in the log before the turn's reveals")
        turn = [b["turn"] for a, k, b in _entries(tmp_path / "p0") if k == "move" and a == 1][-1]
        last.p.send_signal(signal.SIGSTOP)
        if _chosen(tmp_path / "p2", 2, turn) is None:
            break
        last.p.send_signal(signal.SIGCONT)
        wait_until(lambda turn=turn: any(k == "reveal" and b.get("turn") == turn
                                         for _, k, b in _entries(tmp_path / "p0")), 90,
                   f"turn {turn}'s reveals")
    else:
        raise AssertionError("B2 chose before it was stopped on every turn")
    assert _committed_not_revealed(tmp_path / "p0", 1)
    victim.kill()
    last.p.send_signal(signal.SIGCONT)
    entries = _entries(tmp_path / "p0")
    committed = [b["commit"] for a, k, b in entries if k == "move" and a == 1][-1]
    # the play was on disk before the commitment left: the secrets file holds it
    kept = _chosen(tmp_path / "p1", 1, turn)
    assert kept is not None and kept.commit == committed
    victim.start()  # the same command: it resumes its unfinished game
    v = verify_records(t.finish())
    assert v.ok, v.summary
    assert "Resuming game" in victim.stdout()
    reveal = [b for a, k, b in _entries(tmp_path / "p0")
              if k == "reveal" and a == 1 and b["turn"] == turn]
    assert len(reveal) == 1
    assert (reveal[0]["slot"], reveal[0]["side"], reveal[0]["card"]) == (
        kept.slot, kept.side, kept.card)


def test_a_splito_table_plays_a_rematch_with_the_same_seats(tmp_path: Path) -> None:
    """On loopback, NETWORK.md §13 for Splito: ``host --game splito --play-as-bot normal
    --seats 3 --rematches 1`` and two ``splitnet bot --rematch``. After the game the host
    offers the rematch (Ana deals, S4.1), both bots agree, the second game is played with
    the same seats; every process exits 0, both transcripts are byte-identical on every
    seat, and ``splitnet verify FIRST SECOND`` checks each and the pair."""
    procs: list[Proc] = []
    try:
        rematch_table(tmp_path, 8, ["--game", "splito", "--play-as-bot", "normal"],
                      ["--net-timing", "rematch_wait=20"], procs)
        host = procs[0]
        for p in procs:
            rc = p.wait(3 * TIMEOUT)
            assert rc == 0, f"{p.label} exited {rc}\n{p.stderr()[-3000:]}"
            assert p.stdout().count("Scores (left zone × right zone):") == 2, \
                p.stdout()[-3000:]
        assert "Rematch offered to the same seats (Ana deals, S4.1)" in host.stdout()
        for p in procs[1:]:
            assert "no rematch: the host at" in p.stdout(), p.stdout()[-1000:]  # after game 2
    finally:
        for p in procs:
            if p.p.poll() is None:
                p.p.kill()
    files = {s: sorted((tmp_path / f"p{s}" / "games").glob("*.splitlog")) for s in range(3)}
    data = {s: [f.read_bytes() for f in fs] for s, fs in files.items()}
    assert len(data[0]) == 2 and data[1] == data[0] and data[2] == data[0]
    by_dealer = {}
    for f in files[1]:
        v = verify_records(read_transcript(f))
        assert v.ok and v.record is not None, v.summary
        by_dealer[v.record["settings"]["dealer"]] = f
    assert set(by_dealer) == {0, 1}  # the rematch's deal passed left (S4.1)
    out = forked_cli.run(["verify", str(by_dealer[0]), str(by_dealer[1])], timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("shuffle fair: yes") == 2
    assert "rematch of the game before: same seats and rules, first dealer Ana (S4.1): ok" \
        in out.stdout
