"""Benchmark of the shuffle proof: time per hop, group operations used, and how the time
compares with the operations' own cost measured in the same run.

``python -m tests.shuffle_proof_bench [n] [reps]`` (from a checkout) prints the report. A
measuring tool, not part of the program: it lives with the tests, which check that its
operation counts match the table in protocol/SHUFFLE_PROOF.md.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from splitnet.crypto import group
from splitnet.crypto.shuffle_proof import (
    ShuffleHop,
    generators,
    proof_size,
    prove_shuffle,
    verify_shuffle,
    verify_shuffles,
)

Ciphertext = tuple[bytes, bytes]

#: group functions counted, by the name used in the report
_COUNTED = {
    "mul": "mul",
    "base_mul": "base",
    "add": "add",
    "sub": "add",
    "decode_point": "check",
    "hash_to_scalar": "h2s",
    "hash_to_point": "h2p",
}
_OPS = ("mul", "base", "add", "check")


@dataclass
class _Counts:
    n: dict[str, int] = field(default_factory=lambda: dict.fromkeys(_COUNTED.values(), 0))


@contextmanager
def _counting() -> Iterator[_Counts]:
    """Wrap the group functions with counters (slow: only for counting, never for timing)."""
    counts = _Counts()
    saved: dict[str, Callable[..., Any]] = {}
    for fname, key in _COUNTED.items():
        orig = getattr(group, fname)
        saved[fname] = orig

        def wrapped(*a: Any, _orig: Callable[..., Any] = orig, _k: str = key, **kw: Any) -> Any:
            counts.n[_k] += 1
            return _orig(*a, **kw)

        setattr(group, fname, wrapped)
    try:
        yield counts
    finally:
        for fname, orig in saved.items():
            setattr(group, fname, orig)


def _best(fn: Callable[[], object], reps: int) -> tuple[float, float]:
    """(wall-clock, CPU) seconds of the fastest of ``reps`` runs, each clock on its own.

    CPU time (this process only) is what the ratio uses: other processes sharing the
    cores slow the wall clock, not the work done here.
    """
    wall = cpu = float("inf")
    for _ in range(reps):
        w0, c0 = time.perf_counter(), time.process_time()
        fn()
        w1, c1 = time.perf_counter(), time.process_time()
        wall, cpu = min(wall, w1 - w0), min(cpu, c1 - c0)
    return wall, cpu


def _per_op_costs(batch: int = 50, rounds: int = 12) -> dict[str, float]:
    """CPU seconds per operation, measured now with distinct operands (best of many short
    batches, so that a burst of contention does not inflate it)."""
    pts = [group.base_mul(1000 + i) for i in range(batch)]
    scs = [group.hash_to_scalar(b"bench", i.to_bytes(4, "big")) for i in range(batch)]
    nxt = pts[1:] + pts[:1]
    tests: dict[str, Callable[[], object]] = {
        "mul": lambda: [group.mul(s, p) for s, p in zip(scs, pts, strict=True)],
        "base": lambda: [group.base_mul(s) for s in scs],
        "add": lambda: [group.add(p, q) for p, q in zip(pts, nxt, strict=True)],
        "check": lambda: [group.decode_point(p) for p in pts],
    }
    return {name: _best(fn, rounds)[1] / batch for name, fn in tests.items()}


def _hop(
    n: int, trivial: bool
) -> tuple[bytes, list[Ciphertext], list[Ciphertext], list[int], list[int]]:
    """A deterministic hop of n cards (trivial inputs = the first hop of a round)."""

    def sc(label: bytes, i: int) -> int:
        return group.hash_to_scalar(b"splitnet/bench/shuffle", label, i.to_bytes(4, "big"))

    pk = group.base_mul(sc(b"sk", 0))
    cards = [group.hash_to_point(b"splitnet/bench/card", k.to_bytes(4, "big")) for k in range(n)]
    if trivial:
        inputs = [(group.IDENTITY, m) for m in cards]
    else:
        inputs = [
            (group.base_mul(sc(b"r", k)), group.add(m, group.mul(sc(b"r", k), pk)))
            for k, m in enumerate(cards)
        ]
    perm = sorted(range(n), key=lambda i: sc(b"perm", i))
    rhos = [sc(b"rho", i) for i in range(n)]
    outputs = [
        (group.add(inputs[p][0], group.base_mul(r)), group.add(inputs[p][1], group.mul(r, pk)))
        for p, r in zip(perm, rhos, strict=True)
    ]
    return pk, inputs, outputs, perm, rhos


def bench_shuffle_proof(n: int = 104, reps: int = 3) -> str:
    """Prove and verify one hop of n cards ``reps`` times; returns the report.

    Times are the best of ``reps`` runs, wall clock and CPU; "model" is the number of
    group operations counted in the run times their CPU cost measured just before, and
    time/model (CPU) shows how much is spent outside libsodium (hashing, Python).
    """
    ctx = b"splitnet/bench/shuffle-proof"
    seed = bytes(range(32))
    t0 = time.perf_counter()
    generators(b"", n)
    t_gen = time.perf_counter() - t0
    cost = _per_op_costs()
    lines = [
        f"shuffle proof (Terelius–Wikström), n = {n}, proof {proof_size(n)} bytes, best of {reps}",
        "per-op CPU cost measured now: "
        f"scalarmult {cost['mul'] * 1e6:.1f} µs, base-point mult {cost['base'] * 1e6:.1f} µs, "
        f"add/sub {cost['add'] * 1e6:.1f} µs, point check {cost['check'] * 1e6:.1f} µs",
        f"generators h, h_1..h_{n}: {t_gen * 1e3:.1f} ms once (cached afterwards)",
    ]

    def line(what: str, wall: float, cpu: float, counts: _Counts, extra: str = "") -> str:
        model = sum(counts.n[k] * cost[k] for k in _OPS)
        ops = " + ".join(f"{counts.n[k]} {k}" for k in _OPS)
        return (
            f"  {what} {wall * 1e3:6.1f} ms wall, {cpu * 1e3:6.1f} ms CPU   ops: {ops}{extra}"
            f"   model {model * 1e3:5.1f} ms   CPU/model {cpu / model:.2f}"
        )

    typical = (0.0, 0.0)
    for trivial in (False, True):
        pk, inputs, outputs, perm, rhos = _hop(n, trivial)

        prove = partial(prove_shuffle, ctx, pk, inputs, outputs, perm, rhos, nonce_seed=seed)
        verify = partial(verify_shuffle, ctx, pk, inputs, outputs, prove())
        verify()
        with _counting() as c_prove:
            prove()
        with _counting() as c_verify:
            verify()
        w_prove, t_prove = _best(prove, reps)
        w_verify, t_verify = _best(verify, reps)
        lines.append(
            "first hop (inputs (IDENTITY, M_k)):"
            if trivial
            else "typical hop (re-encrypted inputs):"
        )
        lines.append(line("prove ", w_prove, t_prove, c_prove, f" (+{c_prove.n['h2s']} h2s)"))
        lines.append(line("verify", w_verify, t_verify, c_verify, f" (+{c_verify.n['h2s']} h2s)"))
        if not trivial:
            typical = (t_prove, t_verify)
    tp, tv = typical
    lines.append(
        f"6 players (typical-hop CPU times): the 6 proofs in sequence take {6 * tp * 1e3:.0f} ms;"
        f" each peer proves once and checks 5 other hops: {(tp + 5 * tv) * 1e3:.0f} ms"
    )
    chain = _chain(n, 6, ctx, seed)
    with _counting() as c_chain:
        verify_shuffles(chain)
    w_chain, t_chain = _best(lambda: verify_shuffles(chain), reps)
    lines.append("verify_shuffles, the 6 hops of a round at once:")
    lines.append(line("verify", w_chain, t_chain, c_chain))
    return "\n".join(lines)


def _chain(n: int, hops: int, ctx: bytes, seed: bytes) -> list[ShuffleHop]:
    """A round's chain of hops from the trivial deck (deterministic)."""
    pk, deck, _, _, _ = _hop(n, trivial=True)
    out: list[ShuffleHop] = []
    for k in range(hops):
        perm = sorted(range(n), key=lambda i: group.hash_to_scalar(b"p", bytes([k]), _i4(i)))
        rhos = [group.hash_to_scalar(b"r", bytes([k]), _i4(i)) for i in range(n)]
        nxt = [
            (group.add(deck[p][0], group.base_mul(r)), group.add(deck[p][1], group.mul(r, pk)))
            for p, r in zip(perm, rhos, strict=True)
        ]
        c = ctx + bytes([k])
        proof = prove_shuffle(c, pk, deck, nxt, perm, rhos, nonce_seed=seed)
        out.append(ShuffleHop(c, pk, deck, nxt, proof))
        deck = nxt
    return out


def _i4(i: int) -> bytes:
    return i.to_bytes(4, "big")


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    n = int(args[0]) if args else 104
    reps = int(args[1]) if len(args) > 1 else 3
    print(bench_shuffle_proof(n, reps))


if __name__ == "__main__":
    main()
