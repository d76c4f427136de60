"""``splitnet selfplay --game splito``: on the fair deck (a transcript ``verify`` checks) and
with ``--local-shuffle`` (the local test entry point)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from splitnet.cli import main
from splitnet.games.splito.record import check_text
from splitnet.games.splito.settings import SplitoSettings

#: the games here are in-process tables, every peer checking every other seat's hop
#: and verify each again: the same proofs, computed in full once per test
#: (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("each_shuffle_proof_checked_once")


def test_selfplay_splito_writes_a_record_the_referee_accepts(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "a.json"
    again = tmp_path / "b.json"
    args = ["selfplay", "--game", "splito", "-n", "7", "-s", "4", "--local-shuffle",
            "--bots", "heuristic,random,random,heuristic,random,random,random"]
    assert main([*args, "--record", str(out)]) == 0
    text = capsys.readouterr().out
    assert "Scores (left zone × right zone)" in text and "Winner: " in text
    assert main([*args, "--record", str(again)]) == 0
    assert out.read_text() == again.read_text()  # same arguments, same record
    assert check_text(out.read_text()).ok
    assert json.loads(out.read_text())["settings"]["players"] == 7


def test_selfplay_splito_two_players_and_a_settings_file(tmp_path: Path) -> None:
    cfg = tmp_path / "s.json"
    cfg.write_text(json.dumps(SplitoSettings.standard(2, central_objectives=3).to_dict()))
    out = tmp_path / "r.json"
    assert main(["selfplay", "--game", "splito", "-n", "2", "--local-shuffle", "--settings",
                 str(cfg), "--record", str(out)]) == 0
    rec = json.loads(out.read_text())
    assert rec["settings"]["variant"] == "two_player" and len(rec["deal"]["central"]) == 3


@pytest.mark.parametrize(("argv", "error"), [
    (["-n", "9"], "S2.1"),
    (["-n", "9", "--local-shuffle"], "S2.1"),
    (["-n", "4", "--local-shuffle", "--transcript", "t"], "no transcript"),
    (["-n", "4", "--local-shuffle", "--settings", "/nonexistent/s.json"], "no such settings file"),
    (["-n", "4", "--local-shuffle", "--bots", "oracle"], "unknown bot level 'oracle'"),
])
def test_selfplay_splito_refuses_bad_arguments(argv: list[str], error: str) -> None:
    with pytest.raises(SystemExit, match=error):
        main(["selfplay", "--game", "splito", *argv])


def test_selfplay_splito_settings_must_name_every_key(tmp_path: Path) -> None:
    cfg = tmp_path / "s.json"
    d = SplitoSettings.standard(4).to_dict()
    del d["show_passed_hands"]
    cfg.write_text(json.dumps(d))
    with pytest.raises(SystemExit, match="missing key"):
        main(["selfplay", "--game", "splito", "-n", "4", "--local-shuffle", "--settings",
              str(cfg)])


def test_selfplay_splito_on_the_fair_deck_writes_a_transcript_verify_checks(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """S7.5, S12: the same arguments give the same transcript; verify accepts it and
    its --json is the record selfplay wrote, which the referee accepts."""
    t1, t2, rec = tmp_path / "a.splitlog", tmp_path / "b.splitlog", tmp_path / "r.json"
    args = ["selfplay", "--game", "splito", "-n", "3", "-s", "9", "--bots", "random"]
    assert main([*args, "--transcript", str(t1), "--record", str(rec)]) == 0
    assert "Winner: " in capsys.readouterr().out
    assert main([*args, "--transcript", str(t2)]) == 0
    assert t1.read_bytes() == t2.read_bytes()
    capsys.readouterr()
    assert main(["verify", str(t1)]) == 0
    out = capsys.readouterr().out
    assert "Splito, 3 players" in out and "shuffle fair: yes" in out
    assert main(["verify", "--json", str(t1)]) == 0
    assert capsys.readouterr().out == rec.read_text()
    assert check_text(rec.read_text()).ok
    for f in (t1, rec):  # replay shows the transcript and the record alike
        assert main(["replay", "--all", str(f)]) == 0
        cap = capsys.readouterr()
        assert cap.err == "" and "=== Final ===" in cap.out and "Winner: " in cap.out
    data = bytearray(t1.read_bytes())
    data[len(data) // 2] ^= 0x01
    t1.write_bytes(bytes(data))
    assert main(["verify", str(t1)]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("FAILED at entry") and "\n" not in err
