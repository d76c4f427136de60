"""The shuffle-proof measuring tool (tests/shuffle_proof_bench.py) still runs, and the
group operations it counts are those protocol/SHUFFLE_PROOF.md's cost table states."""

from __future__ import annotations

import re

from tests.shuffle_proof_bench import bench_shuffle_proof


def _ops(line: str) -> tuple[int, int, int]:
    m = re.search(r"ops: (\d+) mul \+ (\d+) base \+ \d+ add \+ (\d+) check", line)
    assert m is not None, line
    return int(m[1]), int(m[2]), int(m[3])


def test_the_counted_operations_match_the_documented_table() -> None:
    n = 4
    lines = bench_shuffle_proof(n, reps=1).splitlines()
    typical = lines.index("typical hop (re-encrypted inputs):")
    first = next(i for i, x in enumerate(lines) if x.startswith("first hop"))
    # (scalar mult., base-point mult., point checks) per SHUFFLE_PROOF.md's table
    assert _ops(lines[typical + 1]) == (5 * n + 1, 3 * n + 4, 4 * n + 1)  # prove
    assert _ops(lines[typical + 2]) == (8 * n + 6, 1, 7 * n + 6)  # verify
    assert _ops(lines[first + 1]) == (4 * n + 1, 3 * n + 4, 4 * n + 1)
    assert _ops(lines[first + 2]) == (7 * n + 6, 1, 7 * n + 6)
    assert any(x.startswith("verify_shuffles") for x in lines)
