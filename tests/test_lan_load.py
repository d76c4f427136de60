"""``splitnet bench lan-load`` (splitnet/bench/lan_load.py) on a small size: real processes on
loopback, never announced. It reports every check per game and fails when one fails."""

from __future__ import annotations

from pathlib import Path

import pytest

from splitnet.bench.lan_load import lan_load

pytestmark = pytest.mark.slow


def test_games_at_once_are_each_checked_whole(tmp_path: Path) -> None:
    report, ok = lan_load(2, 2, proofs=False, baseline=False, timeout=120,
                          keep=tmp_path / "load")
    assert ok, report
    assert "started with 2 seats: 2/2" in report and "finished: 2/2" in report, report
    assert "transcripts identical: 2/2" in report and "verify ok: 2/2" in report, report
    assert "reconnects seen: 0" in report, report
    # every game had its own data dirs: two transcripts per game, the same bytes
    for g in ("g0", "g1"):
        files = sorted((tmp_path / "load" / "load" / g).glob("p*/games/*.splitlog"))
        assert len(files) == 2 and files[0].read_bytes() == files[1].read_bytes()


def test_a_game_past_its_bound_is_killed_and_reported(tmp_path: Path) -> None:
    report, ok = lan_load(1, 2, proofs=False, baseline=False, timeout=0.2,
                          keep=tmp_path / "load")
    assert not ok
    assert "finished: 0/1" in report and "not over after 0.2 s" in report, report


def test_bad_sizes_are_refused_in_one_line(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="2–6"):
        lan_load(1, 7)
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "f").write_text("")
    with pytest.raises(ValueError, match="not a new or empty directory"):
        lan_load(1, 2, keep=tmp_path / "x")
