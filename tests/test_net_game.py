"""LAN games between real processes on loopback: whole games, crashes and restarts.

Every game: ``splitnet host --play-as-bot heuristic --seats N`` and N−1 ``splitnet bot``
processes, each with its own data dir; the bots get the join code the host prints. At the
end every process has exited 0 and every transcript is byte-identical to the host's and
verifies. Shuffle proofs are on in the 4-player game and off elsewhere (they are not the
point there and cost ~40 ms per hop).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from splitnet.net.store import read_final_acks, read_meta
from splitnet.session.log import Log
from splitnet.session.transcript import read_transcript
from splitnet.verify import verify_records
from tests import forked_cli

pytestmark = pytest.mark.slow

TIMEOUT = 150.0  # one whole game, generously, on a loaded 2-core machine
#: a ``final_wait`` no test outlives: waiting it at all fails the test at its bound
FOREVER = 100_000


class Proc:
    """One ``splitnet`` process with its output in files (no pipes to fill up), forked
    from a server with the program imported already (tests/forked_cli.py: a process of
    its own, its signals and its exit as ``python -m splitnet.cli``'s)."""

    def __init__(self, tmp: Path, label: str, *args: str) -> None:
        self.label = label
        self.args = args
        self.out = tmp / f"{label}.out"
        self.err = tmp / f"{label}.err"
        self.tmp = tmp
        self.start()

    def start(self) -> None:
        # PYTHONFAULTHANDLER: a process that does not finish in time is sent SIGABRT by
        # :meth:`wait`, and prints where each of its threads was (in its stderr)
        env = dict(os.environ, PYTHONUNBUFFERED="1", PYTHONFAULTHANDLER="1")
        with open(self.out, "a") as out, open(self.err, "a") as err:
            self.p = forked_cli.popen(self.args, stdout=out.fileno(), stderr=err.fileno(),
                                      env=env)

    def stdout(self) -> str:
        return self.out.read_text(errors="replace")

    def stderr(self) -> str:
        return self.err.read_text(errors="replace")

    def kill(self) -> None:
        self.p.send_signal(signal.SIGKILL)
        self.p.wait(10)

    def wait(self, timeout: float) -> int:
        try:
            return self.p.wait(timeout)
        except subprocess.TimeoutExpired:
            self.p.send_signal(signal.SIGABRT)  # where it hangs, into its stderr
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.p.wait(5)
            self.p.kill()
            raise AssertionError(f"{self.label} did not finish in {timeout} s\n"
                                 f"--- stdout\n{self.stdout()[-3000:]}\n"
                                 f"--- stderr\n{self.stderr()[-3000:]}") from None


def wait_until(pred: Callable[[], bool], timeout: float, what: str) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def game_file(data_dir: Path) -> Path | None:
    files = sorted((data_dir / "games").glob("*.splitlog")) if (data_dir / "games").is_dir() \
        else []
    return files[0] if files else None


def host_port_and_code(host: Proc) -> tuple[int, str]:
    """The port and join code a host printed (wait for "listening on port" first)."""
    out = host.stdout()
    port = int(out.split("listening on port")[1].split()[0])
    code = out.split("Join code: ")[1].split()[0]
    return port, code


def one_round(tmp: Path) -> list[str]:
    """``--settings`` for a Split game of one round (protocol/SETTINGS.md; the header
    carries it, so every seat plays it): for a test about rematches, kills or links
    rather than a whole game's length, which the full games here cover."""
    return rounds(tmp, 1)


def rounds(tmp: Path, n: int) -> list[str]:
    """``--settings`` for a Split game of ``n`` rounds (two: a round after the one a test
    is about takes the path of every later round)."""
    f = tmp / f"rounds-{n}.json"
    f.write_text(f'{{"rounds": {n}}}')  # (a local file: every other key takes its default)
    return ["--settings", str(f)]


def rematch_table(tmp_path: Path, seed: int, host_args: list[str], bot_args: list[str],
                  procs: list[Proc]) -> None:
    """A 3-seat rematch table on loopback, appended to ``procs`` (so the caller's
    ``finally`` stops them whatever happens here): ``splitnet host … --seats 3 --rematches 1``
    with ``host_args`` (its game, bot level, timing), then Ana and Bo as ``splitnet bot
    --rematch`` with ``bot_args``, each seen joining the lobby."""
    host = Proc(tmp_path, "host", "host", *host_args, "--port", "0", "--bind", "127.0.0.1",
                "--seats", "3", "--rematches", "1", "--no-announce", "--name", "Hosta",
                "--data-dir", str(tmp_path / "p0"), "--test-seed", str(seed))
    procs.append(host)
    wait_until(lambda: "listening on port" in host.stdout(), 30, "the host to listen")
    port, code = host_port_and_code(host)
    for i, name in ((1, "Ana"), (2, "Bo")):
        procs.append(Proc(tmp_path, f"bot{i}", "bot", f"127.0.0.1:{port}", "--name", name,
                          "--code", code, "--rematch", "--data-dir", str(tmp_path / f"p{i}"),
                          "--test-seed", str(seed), *bot_args))
        wait_until(lambda i=i: host.stderr().count("joined the lobby") >= i, 30,
                   f"bot {i} to join")


def n_records(data_dir: Path) -> int:
    f = game_file(data_dir)
    return len(read_transcript(f, repair=True)) if f else 0


def _may_give_up(records: list[bytes], seat: int) -> bool:
    """Could the host give ``seat`` up at this log's head (R8.6)? Not while it owes a
    reveal or is to move (a move of its own may be on its way: its reveal would then be
    owed) — the host could only time it out."""
    from splitnet.game.table import entry_position
    from splitnet.games.split.core import GameCore
    from splitnet.verify import observer

    log = Log.from_records(records)
    core = observer(log.header)
    assert isinstance(core, GameCore)
    for e in log.entries[1:]:
        if e.kind != "accept":
            core.apply(e.author, e.kind, dict(e.body), at=entry_position(e))
    r = core.round
    return (r is not None and r.stage == "play" and core.abandon_refusal(seat) is None
            and r.pending is None and core.engine.actor != seat)


def stop_where_it_may_be_given_up(victim: Proc, host_dir: Path, seat: int) -> None:
    """Stop ``victim`` (SIGSTOP) at a moment the host may give its seat up (it sends
    nothing more: the host's log, read then, is what the decision rests on). A kill at
    a random moment lands, on a loaded machine, while the seat owes a reveal, and the
    host can then only time it out."""
    for _ in range(200):
        victim.p.send_signal(signal.SIGSTOP)
        f = game_file(host_dir)
        records = read_transcript(f, repair=True) if f else []
        if records and _may_give_up(records, seat):
            return
        victim.p.send_signal(signal.SIGCONT)
        had = len(records)
        wait_until(lambda had=had: n_records(host_dir) > had, 60, "the game to go on")
    raise AssertionError("the seat was never one the host may give up")


class Table:
    """A host process and bot processes, all on 127.0.0.1."""

    def __init__(self, tmp: Path, n: int, *host_extra: str, proofs: bool = False,
                 seed: int | None = None, bot_extra: tuple[str, ...] = ()) -> None:
        self.tmp = tmp
        self.n = n
        extra = list(host_extra) + ([] if proofs else ["--no-proofs"])
        self.seed = ["--test-seed", str(seed)] if seed is not None else []
        self.host = Proc(tmp, "host", "host", "--port", "0", "--bind", "127.0.0.1",
                         "--play-as-bot", "heuristic", "--seats", str(n), "--no-announce", "--name",
                         "heuristic-0", "--data-dir", str(tmp / "p0"), *self.seed, *extra)
        wait_until(lambda: "listening on port" in self.host.stdout(), 30, "the host to listen")
        self.port, self.code = host_port_and_code(self.host)
        self.bots: list[Proc] = []
        for i in range(1, n):
            self.bots.append(Proc(tmp, f"bot{i}", "bot", f"127.0.0.1:{self.port}", "--name",
                                  f"heuristic-{i}", "--data-dir", str(tmp / f"p{i}"),
                                  "--code", self.code, *self.seed, *bot_extra))
            # one at a time, so that seat i is bot i (seats follow join order)
            wait_until(lambda i=i: self.host.stderr().count("joined the lobby") >= i, 30,
                       f"bot {i} to join")

    @property
    def procs(self) -> list[Proc]:
        return [self.host, *self.bots]

    def finish(self) -> list[bytes]:
        """Wait for every process; all exit 0; returns the host's transcript records
        after checking every transcript is byte-identical to it."""
        for p in self.procs:
            rc = p.wait(TIMEOUT)
            assert rc == 0, f"{p.label} exited {rc}\n{p.stderr()[-3000:]}"
            assert "Totals:" in p.stdout() and "Winner:" in p.stdout(), p.stdout()[-2000:]
        files = [game_file(self.tmp / f"p{i}") for i in range(self.n)]
        assert all(files)
        data = [f.read_bytes() for f in files if f]
        assert all(d == data[0] for d in data[1:]), "transcripts differ"
        host_file = files[0]
        assert host_file is not None
        return read_transcript(host_file)

    def kill_all(self) -> None:
        for p in self.procs:
            if p.p.poll() is None:
                p.p.kill()


@pytest.fixture
def table_factory(tmp_path: Path):  # type: ignore[no-untyped-def]
    made: list[Table] = []

    def make(n: int, *extra: str, **kw: object) -> Table:
        t = Table(tmp_path, n, *extra, **kw)  # type: ignore[arg-type]
        made.append(t)
        return t

    yield make
    for t in made:
        t.kill_all()


def test_four_players_with_shuffle_proofs(table_factory, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # two rounds, not the default three: the second's hops and proofs are the same path
    # as any later round's (every seat shuffles with proofs each round)
    t = table_factory(4, *rounds(tmp_path, 2), proofs=True)
    records = t.finish()
    header = verify_records(records[:1])  # the header alone: incomplete, but parsed
    assert not header.ok
    # the transcripts are byte-identical, so verifying one verifies all four
    out = forked_cli.run(["verify", str(game_file(tmp_path / "p2"))], timeout=120)
    assert out.returncode == 0, out.stderr
    assert "shuffle proofs: checked at every hop" in out.stdout
    assert "shuffle fair: yes" in out.stdout
    assert t.host.stdout().count("shuffle verified") == 2  # after each round's audit


def test_two_players_same_game_as_in_process(table_factory) -> None:  # type: ignore[no-untyped-def]
    """With the same secrets the LAN game is move for move the in-process game."""
    from splitnet.games.split.bots import make_bot
    from splitnet.games.split.local import LocalGame, SelfplaySecrets
    from splitnet.games.split.rules import Settings

    t = table_factory(2, seed=5)
    records = t.finish()
    v = verify_records(records)
    assert v.ok, v.summary
    local = LocalGame(["heuristic-0", "heuristic-1"], Settings(), SelfplaySecrets(5),
                      shuffle_proofs=False)
    local.run_bots([make_bot("heuristic", 500), make_bot("heuristic", 501)])
    assert v.record == local.cores[0].record


def test_six_players(table_factory, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # the most seats Split has, in a game of one round: every later round takes the path
    # of the first (the rounds after it: the other tests here)
    t = table_factory(6, *one_round(tmp_path))
    v = verify_records(t.finish())
    assert v.ok, v.summary
    assert len(v.record["players"]) == 6  # type: ignore[index]


def test_bot_killed_mid_round_and_restarted(table_factory, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    t = table_factory(4, *rounds(tmp_path, 2))  # killed in the first, resumed in it
    victim = t.bots[1]
    # mid round 1: the deal is done (4 players: 16 set-up records) and play is under way
    wait_until(lambda: n_records(tmp_path / "p2") >= 40, 60, "round 1 to be under way")
    victim.kill()
    time.sleep(0.5)
    # the same command, even without the code: it finds its unfinished game (and the
    # join code kept with it) and resumes
    i = victim.args.index("--code")
    victim.args = victim.args[:i] + victim.args[i + 2:]
    victim.start()
    v = verify_records(t.finish())
    assert v.ok, v.summary
    assert "Resuming game" in victim.stdout()


def test_host_killed_and_restarted(table_factory, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    t = table_factory(3, *rounds(tmp_path, 2))  # killed in the first, resumed in it
    wait_until(lambda: n_records(tmp_path / "p0") >= 40, 60, "round 1 to be under way")
    t.host.kill()
    game_id = game_file(tmp_path / "p0").stem  # type: ignore[union-attr]
    time.sleep(0.3)
    # explicitly by id (the same command without --resume resumes it too)
    t.host.args = (*t.host.args, "--resume", game_id[:8])
    t.host.start()
    v = verify_records(t.finish())
    assert v.ok, v.summary
    assert "is back" in t.host.stderr()
    # the same join code again: the running bots reconnected with theirs
    assert t.host.stdout().count(f"Join code: {t.code}") == 2


def test_host_restarts_without_its_unsynced_tail(table_factory, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A power cut can eat the end of the host's transcript (written, not yet synced):
    the records are the host's own signed ones, so the peers hand them back."""
    t = table_factory(3, *rounds(tmp_path, 2))  # killed in the first, resumed in it
    wait_until(lambda: n_records(tmp_path / "p0") >= 40, 60, "round 1 to be under way")
    t.host.kill()
    path = game_file(tmp_path / "p0")
    assert path is not None
    recs = read_transcript(path)
    cut = sum(4 + len(r) for r in recs[-5:])
    with open(path, "r+b") as f:
        f.truncate(path.stat().st_size - cut)
    t.host.start()  # the same command: it resumes the unfinished game by itself
    v = verify_records(t.finish())
    assert v.ok, v.summary
    assert "took back record" in t.host.stderr()
    assert "Resuming unfinished game" in t.host.stdout()


def test_bot_killed_for_good_is_played_open_handed(table_factory, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """R8.6 on loopback: a bot SIGKILLed mid-round and never restarted; the host, with
    ``--open-hand-after``, abandons its seat; the round ends as it stands and the seat
    is played open-handed, the game finishes and the transcripts verify. (Every program
    here agrees to give a seat up after 1 s: ``open_hand_offer``, GAME.md limits.)"""
    # two rounds: the one cut short and a whole one with the seat open-handed
    t = table_factory(3, *rounds(tmp_path, 2), "--open-hand-after", "1", "--net-timing",
                      f"ping_interval=0.2,final_wait={FOREVER},open_hand_offer=1",
                      bot_extra=("--net-timing", f"final_wait={FOREVER},open_hand_offer=1"))
    victim = t.bots[1]
    wait_until(lambda: n_records(tmp_path / "p2") >= 30, 60, "round 1 to be under way")
    stop_where_it_may_be_given_up(victim, tmp_path / "p0", 2)
    victim.kill()
    for p in (t.host, t.bots[0]):
        # the open seat needs no final ack (NETWORK.md §6): nobody waits ``final_wait``
        # (here beyond the test's bound) for the ack of a seat gone for good
        rc = p.wait(TIMEOUT)
        assert rc == 0, f"{p.label} exited {rc}\n{p.stderr()[-3000:]}"
        assert "Totals:" in p.stdout() and "Winner:" in p.stdout(), p.stdout()[-2000:]
    assert "no final ack" not in t.host.stderr(), t.host.stderr()[-2000:]
    assert "never confirmed" not in t.bots[0].stderr(), t.bots[0].stderr()[-2000:]
    files = [game_file(tmp_path / f"p{i}") for i in range(2)]
    assert files[0] is not None and files[1] is not None
    assert files[0].read_bytes() == files[1].read_bytes(), "transcripts differ"
    v = verify_records(read_transcript(files[0]))
    assert v.ok, v.summary
    assert "heuristic-2 abandoned by the host" in v.summary
    assert "given up as gone for good" in t.host.stderr()


def test_a_bot_back_after_its_seat_went_open_handed_watches_to_the_end(  # type: ignore[no-untyped-def]
        table_factory, tmp_path: Path) -> None:
    """R8.6: a player restarted after its seat was abandoned gets the log, sends nothing
    more (its seat is the open-hand bot's) and ends with the same verified transcript.

    The game must still be on when the player is back (bots play in moments, and a
    loaded machine takes seconds to start a process): the other bot is stopped once
    the seat is given up, and goes on once the host has the player back — the host
    waits for it meanwhile (its ``silent_after`` is beyond the test's bound)."""
    t = table_factory(3, *rounds(tmp_path, 2), "--open-hand-after", "1",
                      "--net-timing", "ping_interval=0.2,final_wait=20,open_hand_offer=1,"
                      "silent_after=300",
                      bot_extra=("--net-timing", "open_hand_offer=1"))
    victim, other = t.bots[1], t.bots[0]
    wait_until(lambda: n_records(tmp_path / "p2") >= 30, 60, "round 1 to be under way")
    stop_where_it_may_be_given_up(victim, tmp_path / "p0", 2)
    victim.kill()
    wait_until(lambda: "given up as gone for good" in t.host.stderr(), 60,
               "the seat to be abandoned")
    other.p.send_signal(signal.SIGSTOP)
    try:
        i = victim.args.index("--code")
        victim.args = victim.args[:i] + victim.args[i + 2:]
        victim.start()
        wait_until(lambda: "is back (seat 2" in t.host.stderr(), 60, "the player to be back")
    finally:
        other.p.send_signal(signal.SIGCONT)
    v = verify_records(t.finish())
    assert v.ok, v.summary
    assert "heuristic-2 abandoned by the host" in v.summary


def test_a_host_killed_after_every_final_ack_ends_at_once_on_restart(  # type: ignore[no-untyped-def]
        table_factory, tmp_path: Path) -> None:
    """Issue 11: a host killed after the last record, when every bot had confirmed the
    final log and left, came back and waited ``final_wait`` for acks that could never
    come again. Each final ack is now on file (``GAME_ID.acks``) before it is relayed:
    the restarted host sees every seat confirmed and ends at once, with no warning.

    Everyone's ``final_wait`` is beyond the test's bound, so a bot leaves only once it
    has seen every final ack, and a restarted host that waited at all would fail here.
    The host is killed -9 once both bots have left (every final ack is then on file and
    was relayed: a kill the moment the file holds both could land before the second was
    relayed, and that bot would rightly wait for the host to come back); if it got to
    mark the game finished first, the meta is put back to what the kill leaves an
    instant earlier (the transcript and the acks are on disk either way)."""
    timing = ("--net-timing", f"final_wait={FOREVER}")
    t = table_factory(3, *one_round(tmp_path), *timing, bot_extra=timing)  # the end counts
    wait_until(lambda: game_file(tmp_path / "p0") is not None, 60, "the game to start")
    path = game_file(tmp_path / "p0")
    assert path is not None
    acks_file = path.with_suffix(".acks")
    for b in t.bots:  # they see every final ack relayed: they end without the host
        assert b.wait(TIMEOUT) == 0, b.stderr()[-3000:]
        assert "Winner:" in b.stdout() and "never confirmed" not in b.stderr(), b.stderr()
    if t.host.p.poll() is None:
        t.host.kill()
    assert len(read_final_acks(acks_file)) == 2
    meta_path = path.with_suffix(".meta")
    meta = read_meta(meta_path)
    if meta.finished:  # it was quicker than the kill: the state of a kill just before
        text = meta_path.read_text()
        meta_path.write_text(text.replace('"finished": true', '"finished": false'))
    assert not read_meta(meta_path).finished
    again = Proc(tmp_path, "host2", *t.host.args)  # the same command
    t.bots.append(again)  # (killed at the end if it hangs)
    assert again.wait(TIMEOUT) == 0, again.stderr()[-3000:]
    out, err = again.stdout(), again.stderr()
    assert "Resuming unfinished game" in out and "Winner:" in out, out
    assert "no final ack" not in err and "is back" not in err, err  # nobody came back
    assert read_meta(meta_path).finished
    files = [game_file(tmp_path / f"p{i}") for i in range(3)]
    data = [f.read_bytes() for f in files if f]
    assert len(data) == 3 and data[0] == data[1] == data[2], "transcripts differ"
    v = verify_records(read_transcript(path))
    assert v.ok, v.summary
