"""The fair-deck benchmark runs and reports every step (DESIGN "bench"; R3.3, R8)."""

from __future__ import annotations

from splitnet.bench.deck import bench_deck, count_group_ops
from splitnet.crypto import group


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


def test_hop_breakdown_times_every_part_and_restores_the_prover() -> None:
    from splitnet.bench.deck import HOP_PARTS, bench_hop
    from splitnet.crypto import elgamal, seeds, shuffle_proof

    originals = [shuffle_proof._commit_permutation, shuffle_proof.prove_shuffle,
                 elgamal.shuffle_hop, seeds.derive_remasks]
    lines = bench_hop(n=8, reps=1)
    assert [shuffle_proof._commit_permutation, shuffle_proof.prove_shuffle,
            elgamal.shuffle_hop, seeds.derive_remasks] == originals
    text = "\n".join(lines)
    for label, _, _ in HOP_PARTS:
        assert label in text
    # the op counts are exact: n base-point multiplications and additions for the
    # permutation commitments, n of each kind for the re-mask of a non-trivial deck
    row = next(ln for ln in lines if "permutation commitments c" in ln)
    assert row.split()[-4:] == ["0", "8", "8", "sound"]
    row = next(ln for ln in lines if "re-mask" in ln)
    assert row.split()[-4:] == ["8", "8", "16", "pledge"]
    assert "could be made before the deck arrives" in text
