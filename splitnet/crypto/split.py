"""Splitting a batch of independent group operations into chunks (sans-IO).

The costly parts of a shuffle, of its proof and of a proof check are each a list or a sum
of independent group operations (DECK.md §12): a re-mask per card, a commitment per
index, a term per point of a linear combination. The crypto code cuts such a batch into
``splitter.parts`` contiguous chunks and hands them to an injected :class:`Splitter`,
which runs a module-level (so picklable) chunk function on each and returns the results
in order; the caller concatenates lists and adds partial sums. Group arithmetic is
exact, so the bytes are the same however the batch is cut or wherever a chunk runs.

The crypto layer owns no process or thread: by default (``splitter=None``, or
:data:`IN_THREAD`) the batch is one chunk computed in the calling thread, exactly as
without a splitter. A process-backed splitter lives above (``splitnet.game.pool``).

>>> ranges(10, 2)
[range(0, 5), range(5, 10)]
>>> IN_THREAD.map(sum, [[1, 2], [3]])
[3, 3]
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final, Protocol, TypeVar

from splitnet.crypto import group

__all__ = ["IN_THREAD", "InThread", "Splitter", "is_identity", "parts_of", "ranges", "run",
           "term_sum"]

_A = TypeVar("_A")
_R = TypeVar("_R")


class Splitter(Protocol):
    """Runs chunk functions, possibly side by side (another core)."""

    @property
    def parts(self) -> int:
        """Into how many chunks a batch should be cut (1: not at all)."""

    def map(self, fn: Callable[[_A], _R], chunks: Sequence[_A]) -> list[_R]:
        """``[fn(c) for c in chunks]``, in order: ``fn`` is a module-level function and
        every chunk is made of bytes, ints and tuples/lists of them (picklable)."""


class InThread:
    """Every chunk in the calling thread, one after the other."""

    parts: Final = 1

    def map(self, fn: Callable[[_A], _R], chunks: Sequence[_A]) -> list[_R]:
        return [fn(c) for c in chunks]


IN_THREAD: Final = InThread()


def parts_of(splitter: Splitter | None, n: int) -> int:
    """How many chunks a batch of ``n`` items is cut into (at least 1, at most n)."""
    if splitter is None or n <= 1:
        return 1
    k = splitter.parts
    return max(1, min(n, k if isinstance(k, int) else 1))


def ranges(n: int, parts: int) -> list[range]:
    """``parts`` contiguous ranges covering 0…n−1, their lengths differing by at most 1."""
    parts = max(1, min(parts, n)) if n else 1
    q, r = divmod(n, parts)
    out: list[range] = []
    lo = 0
    for k in range(parts):
        hi = lo + q + (1 if k < r else 0)
        out.append(range(lo, hi))
        lo = hi
    return out


def run(splitter: Splitter | None, fn: Callable[[Any], _R], chunks: Sequence[Any]) -> list[_R]:
    """``fn`` on every chunk through ``splitter`` (in this thread when None or for a
    single chunk: no overhead where nothing is split)."""
    if splitter is None or len(chunks) <= 1:
        return [fn(c) for c in chunks]
    out = splitter.map(fn, chunks)
    if len(out) != len(chunks):  # a splitter bug must not become a wrong proof
        raise RuntimeError("the splitter returned a result per chunk it was not given")
    return out


def is_identity(g_coef: int, terms: Mapping[bytes, int],
                splitter: Splitter | None = None) -> bool:
    """Whether g_coef·G + Σ coefficient·point is the identity (a verifier's one random
    linear combination): one scalar multiplication per point, except coefficients ±1
    (an addition). The terms are independent: cut into chunks, each a partial sum
    (:func:`term_sum`), added at the end."""
    big_l = group.L
    items = [(x % big_l, p) for p, x in terms.items() if x % big_l and p != group.IDENTITY]
    parts = ranges(len(items), parts_of(splitter, len(items)))
    sums = run(splitter, term_sum, [(g_coef % big_l if k == 0 else None,
                                     items[p.start:p.stop]) for k, p in enumerate(parts)])
    acc = sums[0]
    for q in sums[1:]:
        acc = group.add(acc, q)
    return acc == group.IDENTITY


def term_sum(job: tuple[int | None, Sequence[tuple[int, bytes]]]) -> bytes:
    """A chunk of :func:`is_identity` (picklable): [g·G +] Σ x·P over its terms (x ≠ 0
    mod L, P not the identity); the chunk that carries g starts from g·G."""
    g, items = job
    mul, add, sub = group.mul, group.add, group.sub
    big_l = group.L
    acc = group.base_mul(g) if g is not None else group.IDENTITY
    for x, p in items:
        if x == 1:
            acc = add(acc, p)
        elif x == big_l - 1:
            acc = sub(acc, p)
        else:
            acc = add(acc, mul(x, p))
    return acc
