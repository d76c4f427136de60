"""``splitnet replay``: stepping forwards and backwards with the table at each step; the
table kept from the record's events agrees with how each round ended (R6.3, R8.4)."""

from __future__ import annotations

import functools
import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from splitnet.games.split.bots import make_bot
from splitnet.games.split.local import LocalGame, SelfplaySecrets
from splitnet.games.split.replay import TableState, replay_lines, replay_steps
from splitnet.games.split.rules import Settings
from splitnet.replay import run_replay, step_through
from splitnet.verify import verify_records

SPLITNET = [sys.executable, "-m", "splitnet.cli"]


def _record(n: int, seed: int) -> dict[str, Any]:
    """The verified record of a seeded game (a fresh copy each call: the same game is
    played and verified once per test process, it is the same every time)."""
    return json.loads(_record_text(n, seed))  # type: ignore[no-any-return]


@functools.cache
def _record_text(n: int, seed: int) -> str:
    game = LocalGame([f"p{i}" for i in range(n)], Settings(), SelfplaySecrets(seed),
                     shuffle_proofs=False)
    game.run_bots([make_bot("heuristic", seed * 10 + i) for i in range(n)])
    v = verify_records(game.log.records())
    assert v.ok and v.record is not None
    return json.dumps(v.record)


@pytest.mark.parametrize(("n", "seed"), [(2, 1), (3, 2), (4, 3), (6, 4)])
def test_the_table_kept_from_the_events_agrees_with_each_rounds_end(n: int, seed: int) -> None:
    rec = _record(n, seed)
    state = TableState([p["name"] for p in rec["players"]], Settings.from_dict(rec["settings"]))
    for rnd in rec["rounds"]:
        state.deal(rnd)
        marked: Counter[int] = Counter()
        for turn in rnd["turns"]:
            state.turn(turn)
            marked.update(ev["target"] for ev in turn["events"] if ev["type"] == "bonus_mark")
        assert state.marked == dict(marked)
        end = rnd["end"]
        if end["reason"] == "exhausted":
            assert state.pile == 0
        late = {int(s): end["hands_left"][s] for s in end["hands_left"]}
        for ll in end["late_lays"]:
            late[ll["seat"]] = late[ll["seat"]] + ll["cards"]
        for s in range(n):  # every card the record says was left (or laid late) is held
            assert Counter(state.hands[s]) == Counter(late[s]), (rnd["number"], s)
            kinds = Counter(m.kind for m in state.matches.values() if m.owner == s)
            kinds.update(ll["match"] for ll in end["late_lays"] if ll["seat"] == s)
            for kind in ("perfect", "strong", "weak"):  # one box per match in front (R6.3)
                assert kinds[kind] == end["marks"][str(s)][kind], (rnd["number"], s, kind)
            assert (end["marks"][str(s)]["negative"]
                    == len(end["hands_left"][str(s)]) + marked[s])
        state.end(end)
    for s in range(n):
        assert state.score(s) == rec["totals"][str(s)]["score"]


def _drive(steps: Any, commands: list[str]) -> list[str]:
    out: list[str] = []
    feed = iter(commands)

    def read() -> str:
        try:
            return next(feed)
        except StopIteration:
            raise EOFError from None

    step_through(steps, read, out.append)
    return out


def test_stepping_forwards_backwards_and_jumping() -> None:
    rec = _record(3, 2)
    steps = replay_steps(rec)
    pages = replay_lines(rec)
    assert [s.lines for s in steps] == pages
    out = _drive(steps, ["", "n", "p", "4", "r 2", "l", "f", "zz", "99", "r 9", "t", "?", "q"])
    prompts = [o for o in out if o.startswith("[step ")]
    at = [int(p.split()[1].split("/")[0]) for p in prompts]
    first_r2 = next(i for i, s in enumerate(steps) if s.round_no == 2) + 1
    # Enter, n, p, 4, r 2, l, f; then refusals, t and ? keep the place
    assert at == [1, 2, 3, 2, 4, first_r2, len(steps), 1, 1, 1, 1, 1, 1]
    assert "! unknown command 'zz' — type ? for the keys" in out
    assert f"! there are steps 1–{len(steps)}" in out and "! there is no round 9" in out
    # going back shows that step's page and its table again, word for word
    i2 = [i for i, o in enumerate(out) if o == "\n".join(steps[1].lines)]
    assert len(i2) == 2 and out[i2[0] + 1] == out[i2[1] + 1] == steps[1].table
    assert steps[-1].label == "final standing" and "(the end)" in prompts[6]
    assert any("Enter or n" in o for o in out)  # the help


def test_the_replayed_table_numbers_players_from_1_as_the_table_does() -> None:
    """The players are numbered 1…n, as the plain and full-screen tables number them
    (seats stay 0-based in the record and the protocol only)."""
    table = replay_steps(_record(3, 2))[1].table
    for s in range(3):
        assert re.search(rf"^[ >] {s + 1}\. p{s}: score ", table, re.M), table
    assert not re.search(r"^[ >] 0\. ", table, re.M)


def test_past_the_last_step_and_end_of_input_stop() -> None:
    steps = replay_steps(_record(2, 1))
    out = _drive(steps, ["l", ""])
    assert out[-1].startswith(f"[step {len(steps)}/{len(steps)}")
    out = _drive(steps, [])  # EOF at once: the first step, then out
    assert len([o for o in out if o.startswith("[step")]) == 1


def test_a_pipe_gets_the_pages_unchanged(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                         ) -> None:
    rec = _record(2, 1)
    f = tmp_path / "g.json"
    f.write_text(json.dumps(rec))
    assert run_replay(f) == 0  # not a terminal: every page, no table, no prompt
    out = capsys.readouterr().out
    assert out == "".join("\n".join(p) + "\n" for p in replay_lines(rec))
    assert run_replay(f, step=True, wait=lambda: "q") == 0
    out = capsys.readouterr().out
    assert "[step 1/" in out and "Discard row (oldest first)" in out


def test_replay_step_through_a_pipe(tmp_path: Path) -> None:
    t = tmp_path / "g.splitlog"
    r = subprocess.run(SPLITNET + ["selfplay", "-n", "2", "-s", "1", "--no-proofs",
                                   "--transcript", str(t)], capture_output=True, text=True,
                       timeout=120, check=False)
    assert r.returncode == 0, r.stderr
    r = subprocess.run(SPLITNET + ["replay", "--step", str(t)], input="n\np\nq\n",
                       capture_output=True, text=True, timeout=120, check=False)
    assert r.returncode == 0, r.stderr
    assert r.stdout.count("[step 1/") == 2 and "[step 2/" in r.stdout
    assert "hand:" in r.stdout
