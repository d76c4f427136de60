"""The statistics both strong bots (Split's :mod:`splitnet.bots.search`, Splito's
:mod:`splitnet.splito.search`) decide by: every candidate is played out on the same
samples, the first candidate (the heuristic's choice, the *anchor*) is the baseline, and
another replaces it only when its paired differences clear both a minimum gain and a
z-test — plain best-average selection is worse than the heuristic. Also the rule that
ends the sampling (an exact number of samples, or a time budget). Pure: no game, no I/O.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field


@dataclass
class PairedConfig:
    """How hard a strong bot thinks (each game's ``SearchConfig`` sets its defaults).

    ``budget``: seconds per decision at most (wall clock; at least ``min_samples`` are
    taken); ignored when ``samples`` is set. ``samples``: exactly this many samples
    (deterministic, no clock). ``max_candidates``: candidates compared, the anchor
    included. ``margin``: the least gain in value a challenger needs over the anchor,
    and ``z``: how many standard errors of the paired difference it must clear.
    """

    budget: float = 0.3
    samples: int | None = None
    min_samples: int = 2
    max_candidates: int = 5
    margin: float = 0.02
    z: float = 2.0

    def enough(self, n: int, spent: float) -> bool:
        """Stop after ``n`` samples that took ``spent`` seconds? With ``samples``: once
        there are that many; else after ``min_samples``, when one more would overrun
        the budget."""
        if self.samples is not None:
            return n >= self.samples
        return n >= self.min_samples and spent * (n + 1) / n > self.budget


@dataclass
class Paired:
    """The candidates' values on the same samples: their sums, and each one's
    differences to the anchor's (the first) sample by sample."""

    sums: list[float]
    diffs: list[list[float]] = field(default_factory=list)
    n: int = 0

    @classmethod
    def of(cls, candidates: int) -> Paired:
        return cls([0.0] * candidates, [[] for _ in range(candidates)])

    def add(self, values: list[float]) -> None:
        """One sample's values, the anchor's first (fewer than the candidates: the
        first ones)."""
        for i, v in enumerate(values):
            self.sums[i] += v
            self.diffs[i].append(v - values[0])
        self.n += 1

    def means(self, width: int) -> list[float]:
        """The mean value of each of the first ``width`` candidates."""
        return [s / self.n for s in self.sums[:width]]

    def best(self, config: PairedConfig, width: int) -> int:
        """The index of the candidate to play among the first ``width``: the anchor (0)
        unless another's mean gain clears ``margin`` and ``z`` standard errors — the
        largest such gain."""
        n = self.n
        best_i, best_gain = 0, 0.0
        for i in range(1, width):
            d = self.diffs[i]
            mean = sum(d) / n
            var = sum((x - mean) ** 2 for x in d) / max(1, n - 1)
            se = math.sqrt(var / n)
            if mean > config.margin and mean > config.z * se and mean > best_gain:
                best_i, best_gain = i, mean
        return best_i
