"""The statistics both strong bots (Split's :mod:`splitnet.games.split.bots.search`, Splito's
:mod:`splitnet.games.splito.search`) decide by: every candidate is played out on the same
samples, the first candidate (the heuristic's choice, the *anchor*) is the baseline, and
another replaces it only when its paired differences clear both a minimum gain and a
z-test — plain best-average selection is worse than the heuristic. Also the rules that
end the sampling: an exact number of samples, a time budget, or (with ``max_samples``) a
sequential test that stops as soon as the choice ``max_samples`` samples would make is
clear. Pure: no game, no I/O.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field


@dataclass
class PairedConfig:
    """How hard a strong bot thinks (each game's ``SearchConfig`` sets its defaults).

    ``budget``: seconds per decision at most (wall clock; at least ``min_samples`` are
    taken); ignored when ``samples`` is set. ``samples``: exactly this many samples
    (deterministic, no clock). ``max_candidates``: candidates compared, the anchor
    included. ``margin``: the least gain in value a challenger needs over the anchor,
    and ``z``: how many standard errors of the paired difference it must clear.
    ``max_samples`` (None: no such test): the sequential test of :meth:`Paired.decided`
    — the choice is the one ``max_samples`` samples would make, and sampling stops once
    ``clear_z`` standard deviations of what the rest could still change do not change
    it (from ``min_samples`` on).
    """

    budget: float = 0.3
    samples: int | None = None
    min_samples: int = 2
    max_candidates: int = 5
    margin: float = 0.02
    z: float = 2.0
    max_samples: int | None = None
    clear_z: float = 3.0

    def enough(self, n: int, spent: float) -> bool:
        """Stop after ``n`` samples that took ``spent`` seconds? With ``samples``: once
        there are that many; else after ``min_samples``, when one more would overrun
        the budget."""
        if self.samples is not None:
            return n >= self.samples
        return n >= self.min_samples and spent * (n + 1) / n > self.budget


def _spread(d: Sequence[float]) -> tuple[float, float]:
    """The mean of ``d`` and its sample variance."""
    n = len(d)
    mean = sum(d) / n
    return mean, sum((x - mean) ** 2 for x in d) / max(1, n - 1)


@dataclass
class Paired:
    """The candidates' values on the same samples: their sums, and each one's
    differences to the anchor's (the first) sample by sample. A challenger
    :meth:`decided` found hopeless is ``dropped``: it is played out no more (its entries
    stop) and never chosen."""

    sums: list[float]
    diffs: list[list[float]] = field(default_factory=list)
    n: int = 0
    dropped: set[int] = field(default_factory=set)

    @classmethod
    def of(cls, candidates: int) -> Paired:
        return cls([0.0] * candidates, [[] for _ in range(candidates)])

    def add(self, values: Sequence[float | None]) -> None:
        """One sample's values, the anchor's first (fewer than the candidates: the
        first ones; ``None``: a candidate not played out on it, a dropped one)."""
        anchor = values[0]
        assert anchor is not None
        for i, v in enumerate(values):
            if v is not None:
                self.sums[i] += v
                self.diffs[i].append(v - anchor)
        self.n += 1

    def means(self, width: int) -> list[float]:
        """The mean value of each of the first ``width`` candidates (a dropped one's
        over the samples it was played out on)."""
        return [s / max(1, len(d)) for s, d in zip(self.sums[:width], self.diffs, strict=False)]

    def best(self, config: PairedConfig, width: int) -> int:
        """The index of the candidate to play among the first ``width``: the anchor (0)
        unless another's mean gain clears ``margin`` and ``z`` standard errors — the
        largest such gain."""
        best_i, best_gain = 0, 0.0
        for i in range(1, width):
            d = self.diffs[i]
            if i in self.dropped or not d:
                continue
            mean, var = _spread(d)
            se = math.sqrt(var / len(d))
            if mean > config.margin and mean > config.z * se and mean > best_gain:
                best_i, best_gain = i, mean
        return best_i

    def decided(self, config: PairedConfig, width: int) -> bool:
        """The sequential test (``config.max_samples`` set): is the choice that
        ``max_samples`` samples would make clear already?

        After ``n`` samples the mean at ``N = max_samples`` may still move by about
        ``sd · √(N − n) / N``; a challenger whose mean cannot reach the bar it must clear
        at ``N`` (``margin``, ``z`` standard errors) within ``clear_z`` such steps is
        dropped. The choice is clear when no challenger is left (the anchor stays), or
        when :meth:`best`'s challenger clears the bar and beats every other challenger
        left, each by ``clear_z`` steps of its own paired difference."""
        if config.max_samples is None or self.n < 2:
            return False
        n, big = self.n, config.max_samples
        if n >= big:
            return True
        step = math.sqrt(big - n) / big
        k = config.clear_z

        def bar(sd: float) -> float:  # what a mean gain must clear at N samples
            return max(config.margin, config.z * sd / math.sqrt(big))

        live = []
        for i in range(1, width):
            if i in self.dropped:
                continue
            mean, var = _spread(self.diffs[i])
            sd = math.sqrt(var)
            if mean + k * sd * step < bar(sd):
                self.dropped.add(i)
            else:
                live.append(i)
        b = self.best(config, width)
        if b == 0:
            return not live
        mean, var = _spread(self.diffs[b])
        sd = math.sqrt(var)
        if mean - k * sd * step <= bar(sd):
            return False
        for j in live:
            if j != b:
                gap, var = _spread([x - y for x, y in zip(self.diffs[b], self.diffs[j],
                                                           strict=True)])
                if gap - k * math.sqrt(var) * step <= 0:
                    return False
        return True
