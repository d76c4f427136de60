"""``splitnet bench pake``: the SPAKE2 of the join and watch handshakes
(:mod:`splitnet.crypto.pake`, libsodium's edwards25519) against python-spake2 0.9's
pure-Python one, measured in the same run (protocol/SECURITY.md row 147).

One **exchange** is both sides' ``start`` and ``finish`` (joiner A, host B); the host's
**HELLO** is its ``start`` alone, what every connection costs it before any limit
applies. Figures are the median of CPU time of this thread per exchange
(``time.thread_time``), and the ratio library ÷ ours. Printed, never asserted.
python-spake2 is a development dependency (pyproject.toml); without it only ours is
shown.
"""

from __future__ import annotations

import importlib
import statistics
import time
from collections.abc import Callable
from typing import Any

from splitnet.crypto import pake


def _median_s(f: Callable[[], object], n: int) -> float:
    times = []
    for _ in range(n):
        t = time.thread_time()
        f()
        times.append(time.thread_time() - t)
    return statistics.median(times)


def _timings(a_cls: Any, b_cls: Any, n: int) -> tuple[float, float]:
    """(median exchange, median HELLO) in seconds, with one implementation's classes."""
    ids = {"idA": b"splitnet/bench pake/joiner", "idB": b"splitnet/bench pake/host"}

    def exchange() -> None:
        a, b = a_cls(b"7-lunar-anchor", **ids), b_cls(b"7-lunar-anchor", **ids)
        ma, mb = a.start(), b.start()
        if a.finish(mb) != b.finish(ma):
            raise RuntimeError("bench pake: the two sides' keys differ")

    def hello() -> None:
        b_cls(b"7-lunar-anchor", **ids).start()

    exchange()  # (warm: imports, w·M and w·N)
    return _median_s(exchange, n), _median_s(hello, n)


def bench_pake(exchanges: int = 200) -> str:
    ours = _timings(pake.SPAKE2_A, pake.SPAKE2_B, exchanges)
    lines = [f"pake: SPAKE2 (python-spake2 0.9's exchange, Ed25519), median CPU of "
             f"{exchanges} exchanges each; an exchange = both sides' start + finish",
             f"  ours (libsodium):        exchange {1000 * ours[0]:.3f} ms, "
             f"host's HELLO {1000 * ours[1]:.3f} ms"]
    try:
        lib = importlib.import_module("spake2")
    except ImportError:
        lines.append("  python-spake2: not installed (pip install -e '.[dev]'), no ratio")
        return "\n".join(lines)
    theirs = _timings(lib.SPAKE2_A, lib.SPAKE2_B, max(1, exchanges // 10))
    lines += [f"  python-spake2 0.9:       exchange {1000 * theirs[0]:.3f} ms, "
              f"host's HELLO {1000 * theirs[1]:.3f} ms  ({max(1, exchanges // 10)} of each)",
              f"  ratio (python-spake2 ÷ ours): exchange {theirs[0] / ours[0]:.1f}, "
              f"HELLO {theirs[1] / ours[1]:.1f}"]
    return "\n".join(lines)
