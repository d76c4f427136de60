"""Local games saved as they are played (``splitnet play``): killed mid-round, resumed,
finished, verified (R8.4); the list of unfinished games; what is never offered again."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from splitnet.app import saved
from splitnet.games.split.bots import make_bot
from splitnet.games.split.front.selfplay import (
    human_session,
    rematch_dealer,
    rematch_session,
    resume_session,
)
from splitnet.games.split.rules import Settings
from splitnet.net.store import GameFiles
from tests import forked_cli

SPLITNET = [sys.executable, "-m", "splitnet.cli"]
#: a scripted player: list the legal moves, play the first — always legal, so it ends
FIRST_MOVE = "moves\n1\n"


def run(args: list[str], stdin: str = "", timeout: float = 180) -> subprocess.CompletedProcess[str]:
    """``splitnet ARGS`` in a process of its own, ``stdin`` written to it: forked with the
    program imported already (tests/forked_cli.py)."""
    return forked_cli.run(args, input=stdin, timeout=timeout)


def _kill_mid_round(data: Path, own_discards: int) -> str:
    """Start a game, play until our ``own_discards``-th discard of round 1 is told, then
    SIGKILL the process (no chance to clean up). Returns what it printed."""
    # seed 4: our first-move player discards 3 times in round 1
    p = subprocess.Popen(SPLITNET + ["play", "--plain", "--no-proofs", "--seed", "4",
                                     "--data-dir", str(data)],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True)
    assert p.stdin is not None and p.stdout is not None
    p.stdin.write(FIRST_MOVE * 3000)
    p.stdin.flush()
    seen: list[str] = []
    try:
        for line in p.stdout:  # bounded: the game ends, and then the output does
            seen.append(line)
            if "Round 2:" in line:
                pytest.fail("round 1 ended before the kill")
            if sum("You discarded" in s for s in seen) >= own_discards:
                break
    finally:
        p.send_signal(signal.SIGKILL)
        p.wait(timeout=30)
    assert p.returncode == -signal.SIGKILL
    return "".join(seen)


def test_a_game_killed_mid_round_resumes_finishes_and_verifies(tmp_path: Path) -> None:
    data = tmp_path / "data"
    before = _kill_mid_round(data, 2)
    assert "Round 1:" in before
    listing = run(["play", "--saved", "--data-dir", str(data)])
    assert listing.returncode == 0 and "today" in listing.stdout, listing.stdout
    # the game, how far it got, and the players with each bot's level
    assert "Split   round 1 of 3" in listing.stdout, listing.stdout
    assert "You against Ana (normal), Bo (normal), Cy (normal)" in listing.stdout
    (meta,) = saved.unfinished(data)
    files = GameFiles(data, meta.gid)
    for secret in (files.meta, files.secrets, saved.local_path(files),
                   *files.meta.parent.glob("*.bot*.secrets")):
        assert stat.S_IMODE(secret.stat().st_mode) == 0o600, secret
    size = files.transcript.stat().st_size

    # answered on the terminal: the default (Enter) resumes
    r = run(["play", "--plain", "--data-dir", str(data)], stdin="\n" + FIRST_MOVE * 3000)
    assert r.returncode == 0, r.stderr[-2000:]
    assert ("resume your Split game from today" in r.stdout
            and "(round 1 of 3, against 3 normal bots)? [Y/n]" in r.stdout), r.stdout[:500]
    assert "Resumed the game" in r.stdout and "=== Game over ===" in r.stdout
    # the history before the kill is on screen again, in the same words
    first_round = [ln for ln in before.splitlines() if ln.startswith(("Round 1:", "Ana "))]
    assert first_round and all(ln in r.stdout for ln in first_round)
    assert files.transcript.stat().st_size > size
    assert saved.unfinished(data) == []

    v = run(["verify", str(files.transcript)])
    assert v.returncode == 0 and "shuffle fair: yes" in v.stdout, v.stdout + v.stderr
    # a finished game is not offered again: a new game starts without a question
    again = run(["play", "--plain", "--no-proofs", "--data-dir", str(data)], stdin="quit\n")
    assert "resume your" not in again.stdout and "Round 1:" in again.stdout


def test_resume_and_new_choose_without_asking(tmp_path: Path) -> None:
    data = tmp_path / "data"
    _kill_mid_round(data, 1)
    (old,) = saved.unfinished(data)
    r = run(["play", "--plain", "--no-proofs", "--new", "--data-dir", str(data)],
            stdin="quit\n")
    assert "resume your" not in r.stdout and "The game is saved" in r.stdout
    games = saved.unfinished(data)
    assert len(games) == 2 and games[1].game_id == old.game_id  # newest first
    r = run(["play", "--plain", "--resume", old.game_id[:8], "--data-dir", str(data)],
            stdin="quit\n")
    assert "resume your" not in r.stdout and "Resumed the game" in r.stdout, r.stderr
    r = run(["play", "--plain", "--resume", "ffffffff", "--data-dir", str(data)])
    assert r.returncode != 0 and "no unfinished local game 'ffffffff'" in r.stderr
    assert "Traceback" not in r.stderr


def _new_session(data: Path, seed: int) -> saved.GameMeta:
    s = human_session("You", ["heuristic"], seed, Settings(), shuffle_proofs=False,
                      data_dir=data)
    s.game.close()
    return next(m for m in saved.unfinished(data) if m.gid == s.game.log.game_id)


def test_the_list_of_unfinished_games(tmp_path: Path) -> None:
    data = tmp_path / "data"
    assert saved.unfinished(data) == []
    a = _new_session(data, 1)
    time.sleep(0.01)  # created times differ
    b = _new_session(data, 2)
    assert [m.game_id for m in saved.unfinished(data)] == [b.game_id, a.game_id]
    assert saved.find(data, "").game_id == b.game_id
    assert saved.find(data, a.game_id[:6]).game_id == a.game_id
    with pytest.raises(saved.SavedGameError, match="no unfinished"):
        saved.find(data, "zz")
    saved.finish(data, a.gid)  # a finished game is never offered
    assert [m.game_id for m in saved.unfinished(data)] == [b.game_id]
    GameFiles(data, b.gid).transcript.unlink()  # nothing to resume from
    assert saved.unfinished(data) == []
    # LAN games in the same directory are not local games
    GameFiles(data, bytes(16)).save_meta(saved.meta_now(game_id=bytes(16).hex(),
                                                        role="host", seat=0, name="h",
                                                        host="", port=1))
    assert saved.unfinished(data) == []


def test_a_game_played_to_the_end_in_process_is_marked_over(tmp_path: Path) -> None:
    data = tmp_path / "data"
    s = human_session("You", ["heuristic"], 5, Settings(), shuffle_proofs=False,
                      data_dir=data)
    s.game.run_bots([make_bot("heuristic", 9), s.bots[1]])  # a bot in our seat
    s.game.close()
    assert saved.unfinished(data) == []
    meta = GameFiles(data, s.game.log.game_id).load_meta()
    assert meta.finished and meta.role == "local"


def test_a_resumed_game_narrates_what_the_live_one_did(tmp_path: Path) -> None:
    data = tmp_path / "data"
    s = human_session("You", ["heuristic", "heuristic"], 7, Settings(),
                      shuffle_proofs=False, data_dir=data)
    me = make_bot("heuristic", 3)
    g = s.game
    for _ in range(400):  # into round 2, mid-round
        if g.pump():
            continue
        seat = g.mover()
        assert seat is not None
        g.play_move(seat, (me if seat == 0 else s.bots[seat]).choose(g.cores[seat].engine,
                                                                       seat))
        if g.cores[0].engine.round_no == 2 and len(g.cores[0].engine.events) > 6:
            break
    live = list(s.log)
    g.close()
    (meta,) = saved.unfinished(data)
    path = GameFiles(data, meta.gid).transcript
    whole = path.stat().st_size
    with path.open("ab") as f:  # killed in the middle of writing a record
        f.write((300).to_bytes(4, "big") + b"\x93\x01")
    r = resume_session(data, meta)
    assert path.stat().st_size == whole  # the torn record was cut, nothing else
    assert r.log[:len(live)] == live and r.log[-1].startswith("Resumed the game")
    assert r.view.round_no == 2 and r.view.events == g.cores[0].engine.events
    r.game.close()


def test_a_saved_game_that_is_not_what_it_claims_is_refused(tmp_path: Path) -> None:
    data = tmp_path / "data"
    meta = _new_session(data, 11)
    other = _new_session(data, 12)
    files = GameFiles(data, meta.gid)
    before = files.transcript.read_bytes()
    # another game's keys in this game's place
    os.replace(saved.local_path(GameFiles(data, other.gid)), saved.local_path(files))
    with pytest.raises(saved.SavedGameError, match="another game"):
        resume_session(data, meta)
    saved.local_path(files).write_bytes(b"\x81")
    with pytest.raises(saved.SavedGameError, match="unreadable"):
        resume_session(data, meta)
    assert files.transcript.read_bytes() == before
    r = run(["play", "--plain", "--resume", meta.game_id, "--data-dir", str(data)])
    assert r.returncode != 0 and "cannot resume" in r.stderr and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) <= 2


def test_quit_leaves_the_game_saved(tmp_path: Path) -> None:
    data = tmp_path / "data"
    r = run(["play", "--plain", "--no-proofs", "--data-dir", str(data)], stdin="d\nquit\n")
    assert "The game is saved" in r.stdout
    assert len(saved.unfinished(data)) == 1


def test_a_rematch_is_saved_with_its_header_and_resumes_dealt_by_the_next_player(
        tmp_path: Path) -> None:
    """A rematch (the end screen's n) keeps the seats, the identity keys and the bot
    kinds, and its header names the game before and round 1's dealer (GAME.md "Rematch",
    R3.2); stopped half-way it resumes with that dealer, and ``splitnet verify FIRST
    SECOND`` checks the pair — it printed "FAILED … is not the rematch" when each local
    rematch seated everyone one place on and had keys of its own."""
    from splitnet.verify import run_verify

    data = tmp_path / "data"
    kinds = ["random", "heuristic"]
    first = human_session("You", kinds, 5, Settings(rounds=2), shuffle_proofs=False,
                          data_dir=data)
    first.game.run_bots([make_bot("heuristic", 9), *first.bots[1:]])  # to the end
    first.game.close()
    assert saved.unfinished(data) == []
    first_src = saved.load(data, GameFiles(data, first.game.log.game_id).load_meta())

    again = rematch_session(first, 5, data_dir=data)
    assert again.players == ["You", "Ana", "Bo"] and again.seat == 0
    assert again.view.dealer == 1 and again.game.log.game_id != first.game.log.game_id
    assert again.game.log.header.players == first.game.log.header.players
    (meta,) = saved.unfinished(data)
    assert meta.seat == 0 and meta.name == "You"
    src = saved.load(data, meta)
    assert src.bots == first_src.bots == [None, "random", "heuristic"]
    assert src.keys == first_src.keys  # the same identities: a rematch, not new players
    # the same arguments give the same rematch (--seed): its secrets from the seed and
    # the game before, its own deal
    twin = rematch_session(first, 5)
    assert twin.game.log.records() == again.game.log.records()
    twin.game.close()

    me = make_bot("heuristic", 3)
    g = again.game
    for _ in range(200):  # part of round 1, then the program stops
        if g.pump():
            continue
        seat = g.mover()
        assert seat is not None
        g.play_move(seat, (me if seat == 0 else again.bots[seat]).choose(
            g.cores[seat].engine, seat))
        if len(g.cores[0].engine.events) > 8:
            break
    assert g.cores[0].engine.round_no == 1 and not g.finished
    live = list(again.log)
    g.close()

    r = resume_session(data, meta)
    assert r.seat == 0 and r.players == ["You", "Ana", "Bo"] and r.view.dealer == 1
    assert [b.name if b is not None else None for b in r.bots] == src.bots
    assert r.log[:len(live)] == live and r.view.events == g.cores[0].engine.events
    assert rematch_dealer(r) == 2  # and the game after passes the deal on
    r.game.run_bots([make_bot("heuristic", 4), *r.bots[1:]])
    r.game.close()
    assert saved.unfinished(data) == []
    paths = [GameFiles(data, x.game.log.game_id).transcript for x in (first, r)]
    assert run_verify(paths) == 0
    assert run_verify(paths[::-1]) == 1  # not the other way round
    # a save whose seats do not put the person where its meta says is refused
    third = rematch_session(r, None, data_dir=data)
    (meta3,) = saved.unfinished(data)
    third.game.close()
    files = GameFiles(data, meta3.gid)
    bad = saved.load(data, meta3)
    bad.bots = ["heuristic", None, "random"]
    bad.save()
    with pytest.raises(saved.SavedGameError, match="do not give you seat 1 and a bot"):
        resume_session(data, meta3)
    assert saved.unfinished(data) == [files.load_meta()]


def test_a_resumed_games_end_screen_keeps_every_round(tmp_path: Path) -> None:
    """Stopped in round 2, resumed and finished: the full screen's end screen (its model,
    splitnet.ui.tui.model.TableModel) tells round 1 as the live table did — in "Round by
    round", in the points table (whose rounds add up to the totals, R7.3), in the shuffle
    verdict (every round's audit, R8.4) — and ← goes back to round 1's results. (The
    plain front end prints no round history of its own: its log is narrated again.)"""
    from prompt_toolkit.application import create_app_session
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from splitnet.games.split.rules.scoring import pad_points
    from splitnet.ui.tui import TuiApp

    data = tmp_path / "data"
    me = make_bot("heuristic", 3)
    with create_pipe_input() as inp, create_app_session(input=inp, output=DummyOutput()):
        s = human_session("You", ["heuristic", "heuristic"], 7, Settings(),
                          shuffle_proofs=False, data_dir=data)
        live = TuiApp(s, rematch=True)  # the table that was on screen before the stop
        g = s.game
        for _ in range(2000):  # into round 2, mid-round, round 1 audited
            if g.pump():
                continue
            seat = g.mover()
            assert seat is not None
            g.play_move(seat, (me if seat == 0 else s.bots[seat]).choose(
                g.cores[seat].engine, seat))
            if g.cores[0].engine.round_no == 2 and len(g.cores[0].engine.events) > 6:
                break
        assert [x.round_no for x in live.model.summaries] == [1]
        round_1 = live.model.summaries[0]
        assert round_1.verdict is not None and round_1.verdict.startswith("Round 1: shuffle")
        g.close()  # the program stops: nothing of it is kept but the files

        (meta,) = saved.unfinished(data)
        r = resume_session(data, meta)
        tui = TuiApp(r, rematch=True)
        r.game.run_bots([me, r.bots[1], r.bots[2]])
        r.finished = True
        tui._changed()
        m = tui.model
        assert r.view.phase == "game_over" and m.overlay == "final"
        assert [x.round_no for x in m.summaries] == [1, 2, 3]
        assert m.summaries[0] == round_1  # as the live table told it
        last = m.summaries[-1]
        for p in range(r.view.n):  # the rounds' points add up to the total
            gains = [x.totals[p] - pad_points(x.pad, x.marks_before[p]) for x in m.summaries]
            assert sum(gains) == last.totals[p] == r.view.score(p)
        assert [(x.verdict or "")[:8] for x in m.summaries] == ["Round 1:", "Round 2:",
                                                                 "Round 3:"]
        text = " ".join("".join(f[1] for f in ln).strip() for ln in tui._overlay_lines(100))
        for k in (1, 2, 3):
            assert f"Round {k}: " in text and f"round {k} " in text, text
        # one sentence for the three audits, not their lines joined with ".;"
        assert "Every shuffle checked: rounds 1–3 fair (every seed matched its " in text, text
        assert ".;" not in text and "shuffle verified" not in text
        for _ in range(5):
            tui.other_round(-1)
        assert m.overlay == "summary" and m.summary_index == 0
        text = " ".join("".join(f[1] for f in ln).strip() for ln in tui._overlay_lines(100))
        assert "Round 1 of 3 over" in text, text


def test_plain_play_offers_a_new_game_against_the_same_players_as_the_end_screen_does(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """``splitnet play --plain``: after a game played to its end a line offers the next
    one, as the full screen's n does (Splito's plain table did, Split's did not); n
    plays it — the rematch of the run, saved like the first — and Enter quits."""
    import io

    import splitnet.ui.plain as plain
    from splitnet.cli import build_parser, cmd_play

    played: list[list[str]] = []

    async def to_the_end(session: object, **kw: object) -> int:
        s = session  # a FairSession: the person's seat played by a bot here
        agents = [make_bot("heuristic", 9) if b is None else b for b in s.bots]  # type: ignore[attr-defined]
        s.game.run_bots(agents)  # type: ignore[attr-defined]
        s.game.close()  # type: ignore[attr-defined]  # (as the session's run does at its end)
        played.append(list(s.players))  # type: ignore[attr-defined]
        return 0

    monkeypatch.setattr(plain, "run_plain", to_the_end)
    monkeypatch.setattr("sys.stdin", io.StringIO("n\n\n"))
    data = tmp_path / "data"
    argv = ["play", "--plain", "--seed", "3", "--no-proofs", "--bots", "2", "--new",
            "--data-dir", str(data)]
    assert cmd_play(build_parser(argv).parse_args(argv)) == 0
    assert played == [["You", "Ana", "Bo"], ["You", "Ana", "Bo"]]  # the same seats
    out = capsys.readouterr().out
    assert out.count("Next: n new game with the same players and seats (") == 2
    assert "(Ana deals first) · Enter or q quits" in out  # game 2's first dealer
    assert "(Bo deals first) · Enter or q quits" in out  # game 3's
    assert saved.unfinished(data) == []  # both played out, both saved
    assert len(list((data / "games").glob("*.splitlog"))) == 2
