"""The fair-deck benchmark runs and reports every step (DESIGN "bench"; R3.3, R8)."""

from __future__ import annotations

from splitnet.crypto import group
from splitnet.crypto.bench import bench_deck, count_group_ops


def test_bench_report_has_every_step() -> None:
    text = bench_deck([2])
    for row in (
        "commit",
        "shuffle chain",
        "deal 9x2+1",
        "private draw",
        "public reveal",
        "audit (opens)",
        "= round set-up",
        "per-op cost",
    ):
        assert row in text
    assert "== 2 players ==" in text


def test_op_counter_restores_group() -> None:
    original = group.mul
    with count_group_ops() as c:
        group.mul(3, group.base_mul(2))
        group.msm([1, 2], [group.base_mul(1), group.base_mul(2)])
    assert group.mul is original
    assert c["mul"] == 3 and c["base"] == 3 and c["add"] == 2
