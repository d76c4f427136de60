"""Objective cards as data (docs/SPLITO.md S9): the condition language of S9.3, the
evaluator "does this zone fulfil this objective", and the objective set of S9.6.

A zone is given as its number cards, each a ``(value, colour)`` pair (S9.2: objective
cards are never cards for any condition). The conditions of ``objectives.json`` are
normative; the texts are their reading.

>>> OBJECTIVES = default_objective_set()
>>> OBJECTIVES.sha256 == DEFAULT_OBJECTIVE_SET_SHA256          # S9.6
True
>>> two_ones = OBJECTIVES.by_id["OBJ01"]
>>> two_ones.points, two_ones.name
(1, 'Two ones')
>>> holds(two_ones.cond, [(1, "R"), (1, "B"), (4, "G")]), holds(two_ones.cond, [(1, "R")])
(True, False)
>>> missing(two_ones.cond, [(1, "R")], full_pool())           # one more 1 would do
1
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any, Final, Literal

from splitnet.errors import SplitnetError
from splitnet.games.splito.cards import COLOURS, NUMBER_CARDS, VALUES, number_face

FORMAT: Final = "splito-objectives/1"
#: S9.6: the identity of the set of Appendix A.
DEFAULT_OBJECTIVE_SET_SHA256: Final = (
    "0235bf0e8939daef7f8b4937880bc339795375c7509c6eb82b063ec4aa0fe82b")

Face = tuple[int, str]  # (value, colour) of a number card


class ObjectiveError(SplitnetError):
    """An objective set or condition is not valid (S9.3, S9.6); the message names where."""


# ---------------------------------------------------------------------- the language (S9.3)
@dataclass(frozen=True)
class Filter:
    """S9.3: selects the cards whose value is in ``values`` and colour in ``colours``
    (a field that is absent does not restrict)."""

    values: frozenset[int] | None = None
    colours: frozenset[str] | None = None

    def passes(self, face: Face) -> bool:
        return ((self.values is None or face[0] in self.values)
                and (self.colours is None or face[1] in self.colours))


@dataclass(frozen=True)
class Count:
    filter: Filter
    min: int = 0
    max: int | None = None


@dataclass(frozen=True)
class Sum:
    filter: Filter
    min: int = 0
    max: int | None = None


@dataclass(frozen=True)
class SameValue:
    min: int


@dataclass(frozen=True)
class SameColour:
    min: int


@dataclass(frozen=True)
class DistinctValues:
    filter: Filter
    min: int


@dataclass(frozen=True)
class DistinctColours:
    filter: Filter
    min: int


@dataclass(frozen=True)
class Run:
    length: int
    same_colour: bool


@dataclass(frozen=True)
class Groups:
    by: Literal["value", "colour"]
    size: int
    count: int


@dataclass(frozen=True)
class Identical:
    count: int


@dataclass(frozen=True)
class More:
    a: Filter
    b: Filter


@dataclass(frozen=True)
class All:
    of: tuple[Cond, ...]


Cond = (Count | Sum | SameValue | SameColour | DistinctValues | DistinctColours | Run
        | Groups | Identical | More | All)

#: S9.3: each op's required and optional fields.
_FIELDS: Final[dict[str, tuple[frozenset[str], frozenset[str]]]] = {
    "count": (frozenset({"filter"}), frozenset({"min", "max"})),
    "sum": (frozenset({"filter"}), frozenset({"min", "max"})),
    "same_value": (frozenset({"min"}), frozenset()),
    "same_colour": (frozenset({"min"}), frozenset()),
    "distinct_values": (frozenset({"filter", "min"}), frozenset()),
    "distinct_colours": (frozenset({"filter", "min"}), frozenset()),
    "run": (frozenset({"length", "same_colour"}), frozenset()),
    "groups": (frozenset({"by", "size", "count"}), frozenset()),
    "identical": (frozenset({"count"}), frozenset()),
    "more": (frozenset({"a", "b"}), frozenset()),
    "all": (frozenset({"of"}), frozenset()),
}


def _int(data: Mapping[str, Any], key: str, where: str, lo: int = 0,
         hi: int = 1000) -> int:
    v = data[key]
    if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
        raise ObjectiveError(f"{where}.{key}: expected an integer {lo}…{hi}, got {v!r}")
    return v


def parse_filter(data: object, where: str) -> Filter:
    """S9.3 filter ``{"values": [...], "colours": [...]}``, both optional."""
    if not isinstance(data, dict):
        raise ObjectiveError(f"{where}: a filter is an object (S9.3)")
    extra = set(data) - {"values", "colours"}
    if extra:
        raise ObjectiveError(f"{where}: unknown filter field(s) {sorted(extra)} (S9.3)")
    values: frozenset[int] | None = None
    colours: frozenset[str] | None = None
    if "values" in data:
        vs = data["values"]
        if (not isinstance(vs, list) or not vs
                or not all(isinstance(v, int) and not isinstance(v, bool) and v in VALUES
                           for v in vs) or len(set(vs)) != len(vs)):
            raise ObjectiveError(f"{where}.values: expected distinct values 1…6 (S1.2)")
        values = frozenset(vs)
    if "colours" in data:
        cs = data["colours"]
        if (not isinstance(cs, list) or not cs or not all(c in COLOURS for c in cs)
                or len(set(cs)) != len(cs)):
            raise ObjectiveError(f"{where}.colours: expected distinct colour letters "
                                 f"{' '.join(COLOURS)} (S1.2)")
        colours = frozenset(cs)
    return Filter(values, colours)


def parse_cond(data: object, where: str = "cond") -> Cond:
    """A condition tree of S9.3, checked strictly: known op, exactly its fields."""
    if not isinstance(data, dict):
        raise ObjectiveError(f"{where}: a condition is an object with an op (S9.3)")
    op = data.get("op")
    if not isinstance(op, str) or op not in _FIELDS:
        raise ObjectiveError(f"{where}.op: unknown op {op!r} (S9.3: {', '.join(_FIELDS)})")
    required, optional = _FIELDS[op]
    fields = set(data) - {"op"}
    if not required <= fields:
        raise ObjectiveError(f"{where}: {op} needs {sorted(required - fields)} (S9.3)")
    if fields - required - optional:
        raise ObjectiveError(f"{where}: unknown field(s) {sorted(fields - required - optional)}"
                             f" for {op} (S9.3)")
    if op in ("count", "sum"):
        f = parse_filter(data["filter"], f"{where}.filter")
        lo = _int(data, "min", where) if "min" in data else 0
        hi = _int(data, "max", where) if "max" in data else None
        if hi is not None and hi < lo:
            raise ObjectiveError(f"{where}: max {hi} < min {lo} can never hold (S9.3)")
        return Count(f, lo, hi) if op == "count" else Sum(f, lo, hi)
    if op == "same_value":
        return SameValue(_int(data, "min", where))
    if op == "same_colour":
        return SameColour(_int(data, "min", where))
    if op == "distinct_values":
        return DistinctValues(parse_filter(data["filter"], f"{where}.filter"),
                              _int(data, "min", where))
    if op == "distinct_colours":
        return DistinctColours(parse_filter(data["filter"], f"{where}.filter"),
                               _int(data, "min", where))
    if op == "run":
        sc = data["same_colour"]
        if not isinstance(sc, bool):
            raise ObjectiveError(f"{where}.same_colour: expected true or false (S9.3)")
        return Run(_int(data, "length", where, 1, 6), sc)
    if op == "groups":
        by = data["by"]
        if by not in ("value", "colour"):
            raise ObjectiveError(f"{where}.by: expected \"value\" or \"colour\" (S9.3)")
        return Groups(by, _int(data, "size", where, 1), _int(data, "count", where, 1))
    if op == "identical":
        return Identical(_int(data, "count", where))
    if op == "more":
        return More(parse_filter(data["a"], f"{where}.a"), parse_filter(data["b"], f"{where}.b"))
    of = data["of"]
    if not isinstance(of, list) or not of:
        raise ObjectiveError(f"{where}.of: expected a non-empty list of conditions (S9.3)")
    return All(tuple(parse_cond(c, f"{where}.of[{i}]") for i, c in enumerate(of)))


# ---------------------------------------------------------------------- evaluation (S9.2)
def _key(face: Face, by: str) -> int | str:
    return face[0] if by == "value" else face[1]


def holds(cond: Cond, zone: Sequence[Face]) -> bool:
    """S9.3: is ``cond`` true of the multiset of number cards ``zone``?"""
    if isinstance(cond, Count):
        k = sum(1 for f in zone if cond.filter.passes(f))
        return cond.min <= k and (cond.max is None or k <= cond.max)
    if isinstance(cond, Sum):
        s = sum(f[0] for f in zone if cond.filter.passes(f))
        return cond.min <= s and (cond.max is None or s <= cond.max)
    if isinstance(cond, SameValue):
        return max(Counter(f[0] for f in zone).values(), default=0) >= cond.min
    if isinstance(cond, SameColour):
        return max(Counter(f[1] for f in zone).values(), default=0) >= cond.min
    if isinstance(cond, DistinctValues):
        return len({f[0] for f in zone if cond.filter.passes(f)}) >= cond.min
    if isinstance(cond, DistinctColours):
        return len({f[1] for f in zone if cond.filter.passes(f)}) >= cond.min
    if isinstance(cond, Run):
        return any(all(w in have for w in range(v, v + cond.length))
                   for have in _run_groups(zone, cond.same_colour)
                   for v in range(1, 8 - cond.length))
    if isinstance(cond, Groups):
        counts = Counter(_key(f, cond.by) for f in zone)
        return sum(1 for c in counts.values() if c >= cond.size) >= cond.count
    if isinstance(cond, Identical):
        return sum(1 for c in Counter(zone).values() if c >= 2) >= cond.count
    if isinstance(cond, More):
        return (sum(1 for f in zone if cond.a.passes(f))
                > sum(1 for f in zone if cond.b.passes(f)))
    return all(holds(c, zone) for c in cond.of)


def _run_groups(zone: Sequence[Face], same_colour: bool) -> list[set[int]]:
    if not same_colour:
        return [{f[0] for f in zone}]
    return [{f[0] for f in zone if f[1] == c} for c in COLOURS]


def full_pool() -> Counter[Face]:
    """All 72 number cards as a multiset of faces (every face twice, S1.2)."""
    return Counter(number_face(c) for c in NUMBER_CARDS)


def missing(cond: Cond, zone: Sequence[Face], pool: Mapping[Face, int]) -> int | None:
    """How many number cards must still be added to ``zone`` for ``cond`` to hold, drawing
    them from ``pool`` (the cards that could still reach it); None if that is impossible.

    Exact for every single op; for ``all`` it is the sum over the parts (an estimate).
    A broken ``max`` cannot be mended: cards never leave a zone (S6.1, S6.2). This is
    for bots and help screens; scoring uses :func:`holds` only.
    """
    if isinstance(cond, Count):
        k = sum(1 for f in zone if cond.filter.passes(f))
        if cond.max is not None and k > cond.max:
            return None
        need = max(0, cond.min - k)
        return need if need <= _pool_count(pool, cond.filter.passes) else None
    if isinstance(cond, Sum):
        s = sum(f[0] for f in zone if cond.filter.passes(f))
        if cond.max is not None and s > cond.max:
            return None
        deficit, n = cond.min - s, 0
        if deficit <= 0:
            return 0
        for face in sorted((f for f in pool if cond.filter.passes(f)), reverse=True):
            for _ in range(pool[face]):
                deficit -= face[0]
                n += 1
                if deficit <= 0:
                    return n
        return None
    if isinstance(cond, SameValue | SameColour):
        by = "value" if isinstance(cond, SameValue) else "colour"
        keys: Iterable[int | str] = VALUES if by == "value" else COLOURS
        return _best_groups(zone, pool, by, keys, cond.min, 1)
    if isinstance(cond, Groups):
        keys = VALUES if cond.by == "value" else COLOURS
        return _best_groups(zone, pool, cond.by, keys, cond.size, cond.count)
    if isinstance(cond, DistinctValues | DistinctColours):
        by = "value" if isinstance(cond, DistinctValues) else "colour"
        have = {_key(f, by) for f in zone if cond.filter.passes(f)}
        new = {_key(f, by) for f, k in pool.items() if k > 0 and cond.filter.passes(f)} - have
        need = max(0, cond.min - len(have))
        return need if need <= len(new) else None
    if isinstance(cond, Run):
        best: int | None = None
        colours: Sequence[str | None] = COLOURS if cond.same_colour else (None,)
        for colour in colours:
            have = {f[0] for f in zone if colour is None or f[1] == colour}
            avail = {f[0] for f, k in pool.items() if k > 0 and (colour is None or f[1] == colour)}
            for v in range(1, 8 - cond.length):
                window = set(range(v, v + cond.length))
                holes = window - have
                if holes <= avail and (best is None or len(holes) < best):
                    best = len(holes)
        return best
    if isinstance(cond, Identical):
        pairs = Counter(zone)
        deficits = sorted(max(0, 2 - pairs[f]) for f in full_pool()
                          if pool.get(f, 0) >= max(0, 2 - pairs[f]))
        if len(deficits) < cond.count:
            return None
        return sum(deficits[:cond.count])
    if isinstance(cond, More):
        na = sum(1 for f in zone if cond.a.passes(f))
        nb = sum(1 for f in zone if cond.b.passes(f))
        gap = max(0, nb - na + 1)
        a, b = cond.a, cond.b
        return gap if gap <= _pool_count(pool, lambda f: a.passes(f) and not b.passes(f)) else None
    total = 0
    for c in cond.of:
        m = missing(c, zone, pool)
        if m is None:
            return None
        total += m
    return total


def _pool_count(pool: Mapping[Face, int], test: Callable[[Face], bool]) -> int:
    return sum(k for f, k in pool.items() if test(f))


def _best_groups(zone: Sequence[Face], pool: Mapping[Face, int], by: str,
                 keys: Iterable[int | str], size: int, count: int) -> int | None:
    have = Counter(_key(f, by) for f in zone)
    avail = Counter[int | str]()
    for f, k in pool.items():
        avail[_key(f, by)] += k
    deficits = sorted(max(0, size - have[key]) for key in keys
                      if avail[key] >= max(0, size - have[key]))
    if len(deficits) < count:
        return None
    return sum(deficits[:count])


# ---------------------------------------------------------------------- the set (S9.6)
_ID_RE: Final = re.compile(r"[A-Za-z0-9_-]{1,32}")
_PRESENTATION: Final = frozenset({"name", "text", "kind", "face"})


@dataclass(frozen=True)
class Objective:
    """One objective card (S9.1): its id (S1.3), points 1–4, condition (S9.3)."""

    id: str
    points: int
    cond: Cond
    name: str = ""
    text: str = ""
    kind: str = ""
    face: str = ""

    def fulfilled_by(self, zone: Sequence[Face]) -> bool:
        """Does a zone holding these number cards fulfil this objective (S9.2)?"""
        return holds(self.cond, zone)

    def describe(self) -> str:
        """The card in words and in the seed's notation (S1.4, S9.4), for help screens.

        >>> print(default_objective_set().by_id["OBJ19"].describe())
        OBJ19 Red pair, 1 point  [R] [R]  At least two red cards.
        """
        points = f"{self.points} point{'s' if self.points != 1 else ''}"
        parts = [f"{self.id} {self.name}".strip() + f", {points}"]
        if self.face:
            parts.append(self.face)
        if self.text:
            parts.append(self.text)
        return "  ".join(parts)


@dataclass(frozen=True)
class ObjectiveSet:
    """The 37 objective cards of a ruleset and the set's identity (S9.6)."""

    format: str
    objectives: tuple[Objective, ...]
    sha256: str

    @property
    def by_id(self) -> dict[str, Objective]:
        return {o.id: o for o in self.objectives}

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(o.id for o in self.objectives)


def objective_set_sha256(data: Mapping[str, Any]) -> str:
    """S9.6: SHA-256 of the canonical JSON of the set's normative core."""
    core = {"format": data["format"], "colours": data["colours"],
            "objectives": [{"id": o["id"], "points": o["points"], "cond": o["cond"]}
                           for o in data["objectives"]]}
    text = json.dumps(core, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def parse_objective_set(data: object) -> ObjectiveSet:
    """Check an ``objectives.json`` document (S9.6) strictly and build the set.

    [decision] Besides ``name`` and ``text``, the presentation fields ``kind`` and
    ``face`` of S9.4's table may be present; none of the four is part of the hash.
    """
    if not isinstance(data, dict):
        raise ObjectiveError("objective set: expected a JSON object (S9.6)")
    if set(data) != {"format", "colours", "objectives"}:
        raise ObjectiveError("objective set: expected exactly the keys format, colours, "
                             f"objectives (S9.6), got {sorted(data)}")
    if data["format"] != FORMAT:
        raise ObjectiveError(f"objective set: format must be {FORMAT!r} (S9.6)")
    if data["colours"] != list(COLOURS):
        raise ObjectiveError(f"objective set: colours must be {list(COLOURS)} (S1.2)")
    objs = data["objectives"]
    if not isinstance(objs, list) or len(objs) != 37:
        raise ObjectiveError("objective set: expected a list of 37 objective cards (S1.1)")
    out: list[Objective] = []
    seen: set[str] = set()
    for i, o in enumerate(objs):
        where = f"objectives[{i}]"
        if not isinstance(o, dict):
            raise ObjectiveError(f"{where}: expected an object")
        if not {"id", "points", "cond"} <= set(o):
            raise ObjectiveError(f"{where}: needs id, points and cond (S9.6)")
        extra = set(o) - {"id", "points", "cond"} - _PRESENTATION
        if extra:
            raise ObjectiveError(f"{where}: unknown field(s) {sorted(extra)} (S9.6)")
        oid = o["id"]
        if not isinstance(oid, str) or not _ID_RE.fullmatch(oid) or number_card_like(oid):
            raise ObjectiveError(f"{where}.id: {oid!r} is not a valid objective card id (S1.3)")
        if oid in seen:
            raise ObjectiveError(f"{where}.id: {oid} appears twice (S9.6: distinct ids)")
        seen.add(oid)
        points = _int(o, "points", where, 1, 4)
        texts = {}
        for key in _PRESENTATION:
            v = o.get(key, "")
            if not isinstance(v, str):
                raise ObjectiveError(f"{where}.{key}: expected a string")
            texts[key] = v
        out.append(Objective(oid, points, parse_cond(o["cond"], f"{where}.cond"), **texts))
    if [o.id for o in out] != sorted(o.id for o in out):
        raise ObjectiveError("objective set: the cards must be listed in id order (S9.6)")
    return ObjectiveSet(FORMAT, tuple(out), objective_set_sha256(data))


def number_card_like(card: str) -> bool:
    return card in NUMBER_CARDS


@cache
def default_objective_set() -> ObjectiveSet:
    """The project's own 37 objective cards (S9.4, Appendix A), from ``objectives.json``."""
    text = resources.files("splitnet.games.splito").joinpath("objectives.json").read_text("utf-8")
    return parse_objective_set(json.loads(text))
