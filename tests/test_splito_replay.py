"""``splitnet replay`` of Splito games (docs/SPLITO.md S12): every step shows the zones
with their cards and objectives, every hand and the projected scores (S10–S11); steps go
forwards and backwards; a bad file is refused in one line."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from splitnet.games.splito.bots import make_bot
from splitnet.games.splito.cards import is_number_card
from splitnet.games.splito.engine import zone_of
from splitnet.games.splito.local import play_local
from splitnet.games.splito.objectives import default_objective_set
from splitnet.games.splito.record import dumps
from splitnet.games.splito.replay import PROMPT_KEYS, _cards, replay_steps
from splitnet.games.splito.settings import SplitoSettings
from splitnet.replay import run_replay, step_through

SPLITNET = [sys.executable, "-m", "splitnet.cli"]
OSET = default_objective_set()


def _record(n: int, seed: int) -> dict[str, Any]:
    bots = [make_bot("normal" if i % 2 else "random", seed * 10 + i) for i in range(n)]
    return play_local(SplitoSettings.standard(n), bots, seed,
                      names=[f"p{i}" for i in range(n)]).record


def _section(table: str, start: str) -> list[str]:
    lines = table.splitlines()
    i = next(k for k, ln in enumerate(lines) if ln.startswith(start))
    return lines[i:i + 3]


@pytest.mark.parametrize(("n", "seed"), [(2, 1), (3, 2), (5, 3), (8, 4)])
def test_S5_S10_every_step_shows_the_zones_hands_and_scores_the_record_implies(
        n: int, seed: int) -> None:
    rec = _record(n, seed)
    steps = replay_steps(rec)
    turns = rec["settings"]["turns"]
    assert len(steps) == turns + 2
    assert [s.label for s in steps] == ["the deal", *(f"turn {t} of {turns}"
                                                     for t in range(1, turns + 1)),
                                        "final standing"]
    in_zone: list[list[str]] = [[] for _ in rec["zones"]]
    for t in range(turns + 1):
        table = steps[t].table
        if t:  # the zones hold every card played so far (S5.3, S6.1)
            for p in rec["turns"][t - 1]["plays"]:
                in_zone[zone_of(n, p["seat"], p["side"])].append(p["card"])
            plays = "\n".join(steps[t].lines)
            for p in rec["turns"][t - 1]["plays"]:
                assert f"p{p['seat']}" in plays and f"→ {p['side']} zone" in plays
        for z, cards in enumerate(in_zone):
            _, shown, objs = _section(table, f"zone {z} (")
            numbers = [c for c in cards if is_number_card(c)]
            assert shown == f"      cards: {_cards(numbers, OSET)}", (t, z)
            for c in cards:
                if not is_number_card(c):
                    assert c in objs
            for c in rec["deal"]["central"]:
                assert f"central {c}" in objs
        if t < turns:  # the hands as they will be played next (S5.4)
            for s in range(n):
                hand = _cards(rec["turns"][t]["hands"][s], OSET)
                assert f"      hand for turn {t + 1}: {hand}" in table.splitlines()
    final = steps[-1].table
    for sc in rec["scores"]:
        assert (f"  {sc['seat'] + 1}. p{sc['seat']}: score {sc['score']} = "
                f"{sc['left_points']} × "
                f"{sc['right_points']}") in final
    for z, pts in enumerate(rec["zone_points"]):
        assert f"{pts} point" in _section(final, f"zone {z} (")[0]
    met = Counter(r["zone"] for r in rec["objective_results"] if r["fulfilled"])
    for z in range(len(rec["zones"])):
        assert _section(final, f"zone {z} (")[2].count(" met (+") == met[z]
    assert "Winner: " in "\n".join(steps[-1].lines)


def _drive(steps: Any, commands: list[str]) -> list[str]:
    out: list[str] = []
    feed = iter(commands)

    def read() -> str:
        try:
            return next(feed)
        except StopIteration:
            raise EOFError from None

    step_through(steps, read, out.append, keys=PROMPT_KEYS)
    return out


def test_stepping_forwards_backwards_and_jumping() -> None:
    steps = replay_steps(_record(3, 5))
    out = _drive(steps, ["", "n", "p", "7", "l", "f", "zz", "99", "t", "q"])
    prompts = [o for o in out if o.startswith("[step ")]
    at = [int(p.split()[1].split("/")[0]) for p in prompts]
    assert at == [1, 2, 3, 2, 7, len(steps), 1, 1, 1, 1]
    assert all(p.endswith(PROMPT_KEYS) and "round" not in p for p in prompts)
    assert "! unknown command 'zz' — type ? for the keys" in out
    assert f"! there are steps 1–{len(steps)}" in out
    i2 = [i for i, o in enumerate(out) if o == "\n".join(steps[1].lines)]
    assert len(i2) == 2 and out[i2[0] + 1] == out[i2[1] + 1] == steps[1].table
    assert "(the end)" in prompts[5] and steps[-1].label == "final standing"


def test_replay_all_prints_every_step_with_its_table(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rec = _record(4, 6)
    f = tmp_path / "r.json"
    f.write_text(dumps(rec))
    assert run_replay(f, interactive=False) == 0
    out = capsys.readouterr().out
    steps = replay_steps(rec)
    assert out == "".join("\n".join(s.lines) + "\n" + s.table + "\n" for s in steps)
    assert run_replay(f, step=True, wait=lambda: "q") == 0
    out = capsys.readouterr().out
    assert "[step 1/15 · the deal]" in out and "hand for turn 1:" in out


def test_someone_elses_names_are_shown_not_obeyed(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rec = _record(3, 7)
    rec["seats"][1]["name"] = "\x1b[2J\x07evil"
    f = tmp_path / "r.json"
    f.write_text(json.dumps(rec))
    assert run_replay(f, interactive=False) == 0
    out = capsys.readouterr().out
    assert "evil" in out and "\x1b" not in out and "\x07" not in out


def test_S12_4_a_bad_file_gets_one_line(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    rec = _record(3, 8)
    rec["scores"][0]["score"] += 1
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(rec))
    assert run_replay(bad, interactive=False) == 1
    cap = capsys.readouterr()
    assert cap.out == "" and cap.err.count("\n") == 1
    assert "not a valid Splito record (docs/SPLITO.md S12.4): scores: differ" in cap.err
    rec = _record(3, 8)
    rec["turns"][4]["plays"][1]["card"] = rec["turns"][0]["plays"][1]["card"]
    bad.write_text(json.dumps(rec))
    assert run_replay(bad, interactive=False) == 1
    cap = capsys.readouterr()
    assert cap.out == "" and cap.err.count("\n") == 1 and "S12.4" in cap.err
    bad.write_text('{"format": "splito-record/1"')
    assert run_replay(bad, interactive=False) == 1
    cap = capsys.readouterr()
    assert cap.out == "" and cap.err.count("\n") == 1


def test_replay_a_fair_deck_transcript_step_by_step(tmp_path: Path) -> None:
    t = tmp_path / "g.splitlog"
    r = subprocess.run(SPLITNET + ["selfplay", "--game", "splito", "-n", "3", "-s", "1",
                                   "--transcript", str(t)], capture_output=True, text=True,
                       timeout=300, check=False)
    assert r.returncode == 0, r.stderr
    r = subprocess.run(SPLITNET + ["replay", "--step", str(t)], input="n\np\nl\nq\n",
                       capture_output=True, text=True, timeout=120, check=False)
    assert r.returncode == 0, r.stderr
    assert r.stdout.count("[step 1/15") == 2 and "[step 2/15 · turn 1 of 13]" in r.stdout
    assert "[step 15/15 · final standing (the end)]" in r.stdout
    assert "hand for turn 2:" in r.stdout and "Winner: " in r.stdout
    r = subprocess.run(SPLITNET + ["replay", "--all", str(t)], capture_output=True,
                       text=True, timeout=120, check=False)
    assert r.returncode == 0 and "turn 13: every play revealed together" in r.stdout


def test_S12_4_mutated_records_each_get_one_line_or_replay(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """150 deterministic mutations of a real Splito record (cut, bad bytes, a field
    removed or added, wrong types, huge numbers, deep nesting …): each one is refused
    with exit status 1 and one line on stderr, never a traceback — or, when it is still
    a valid record (a player's name changed), replayed."""
    from splitnet.cli import main
    from tests.test_inputs import mutate

    text = dumps(_record(3, 9))
    f = tmp_path / "m.json"
    refused = 0
    for i in range(150):
        f.write_bytes(mutate(text, i))
        rc = main(["replay", "--all", str(f)])
        out, err = capsys.readouterr()
        if rc == 0:
            assert err == "" and "=== Final ===" in out, i
            continue
        assert rc == 1, (i, rc, err)
        assert len(err.splitlines()) == 1 and err.startswith("splitnet replay: "), (i, err)
        assert out == "", i
        refused += 1
    assert refused >= 135, refused
