"""Strict, canonical msgpack for everything splitnet signs, hashes or reads from a peer.

Only six kinds of value exist on the wire: ``None``, ``bool``, ``int`` (−2⁶³ … 2⁶⁴−1),
``bytes``, ``str`` and ``list``/``dict`` of those, dicts with ``str`` keys only. Floats,
tuples, extension types and subclasses (``IntEnum``, ``bytearray`` …) are refused.

:func:`encode` is *canonical*: map keys are written in ascending order of their UTF-8 bytes
(equal to code-point order, i.e. Python's ``sorted``) and every integer, string, binary,
array and map header takes the shortest msgpack form. So two equal values always give the
same bytes, whatever the insertion order of their dicts.

:func:`decode` accepts **only** canonical input: anything :func:`encode` would not have
produced — a non-minimal integer, keys out of order or repeated, a float, an ext type,
invalid UTF-8, trailing bytes, nesting deeper than :data:`MAX_DEPTH` — raises
:class:`DecodeError` with the reason in words. Every accepted byte string is therefore the
unique encoding of its value.

>>> encode({"b": 1, "a": [True, None, b"\\x00"]}).hex()
'82a16193c3c0c40100a16201'
>>> decode(bytes.fromhex("82a16193c3c0c40100a16201"), max_len=100)
{'a': [True, None, b'\\x00'], 'b': 1}
>>> decode(bytes.fromhex("82a16201a16193c3c0c40100"), max_len=100)
Traceback (most recent call last):
...
splitnet.session.codec.DecodeError: map keys out of order: 'a' after 'b'

:func:`check` validates a decoded value against a small schema (:class:`Int`,
:class:`Bool`, :class:`Bytes`, :class:`Str`, :class:`List`, :class:`Tuple`, :class:`Map`,
:class:`Opt`)
and names the field at fault:

>>> move = Map({"slots": List(Int(0, 103), max_len=9)})
>>> check({"slots": [4, 7, -1]}, move, "move")
Traceback (most recent call last):
...
splitnet.session.codec.SchemaError: move.slots[2]: expected int 0…103, got -1
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final, NoReturn, TypeGuard

import msgpack

from splitnet.errors import SplitnetError

__all__ = [
    "MAX_DEPTH",
    "Bool",
    "Bytes",
    "DecodeError",
    "Int",
    "List",
    "Map",
    "OneOf",
    "Opt",
    "Schema",
    "SchemaError",
    "Str",
    "Tuple",
    "check",
    "decode",
    "encode",
    "is_int",
]

#: Deepest nesting of lists/maps accepted by :func:`encode` and :func:`decode`.
MAX_DEPTH: Final = 32
_INT_MIN: Final = -(2**63)
_INT_MAX: Final = 2**64 - 1


class DecodeError(SplitnetError):
    """Bytes that are not one strict, canonical splitnet msgpack value (reason in words)."""


class SchemaError(DecodeError):
    """A decoded value that does not have the expected shape: ``"<path>: <what is wrong>"``."""


# --------------------------------------------------------------------------- encode


def _normalise(obj: object, depth: int) -> object:
    """Type-check *obj* and return an equal value whose dicts are in canonical key order."""
    t = type(obj)
    if obj is None or t is bool or t is bytes or t is str:
        return obj
    if t is int:
        assert isinstance(obj, int)
        if not _INT_MIN <= obj <= _INT_MAX:
            raise ValueError(f"int {obj} outside msgpack's range −2**63 … 2**64−1")
        return obj
    if t is list or t is dict:
        if depth >= MAX_DEPTH:
            raise ValueError(f"nesting deeper than {MAX_DEPTH} levels")
        if isinstance(obj, list):
            return [_normalise(v, depth + 1) for v in obj]
        assert isinstance(obj, dict)
        for k in obj:
            if type(k) is not str:
                raise TypeError(f"map key {k!r} is {type(k).__name__}, only str keys allowed")
        return {k: _normalise(obj[k], depth + 1) for k in sorted(obj)}
    raise TypeError(
        f"cannot encode {t.__name__}: only None, bool, int, bytes, str, list and "
        "dict with str keys"
    )


def encode(obj: object) -> bytes:
    """Canonical msgpack bytes of *obj* (see the module docstring).

    Raises ``TypeError`` for a value of another type (or a subclass, or a non-str map key)
    and ``ValueError`` for an int outside msgpack's range or nesting deeper than
    :data:`MAX_DEPTH`.
    """
    packed = msgpack.packb(_normalise(obj, 0), use_bin_type=True)
    assert isinstance(packed, bytes)
    return packed


# --------------------------------------------------------------------------- decode


def _refuse_ext(code: int, data: bytes) -> NoReturn:
    raise DecodeError(f"extension type {code} is not allowed")


def _pairs(pairs: list[tuple[object, object]]) -> dict[str, object]:
    out: dict[str, object] = {}
    prev: str | None = None
    for k, v in pairs:
        if type(k) is not str:
            raise DecodeError(f"map key {k!r} is {type(k).__name__}, only str keys allowed")
        if prev is not None and k <= prev:
            if k == prev:
                raise DecodeError(f"duplicate map key {k!r}")
            raise DecodeError(f"map keys out of order: {k!r} after {prev!r}")
        out[k] = v
        prev = k
    return out


def _walk(obj: object, depth: int) -> None:
    """Refuse types msgpack-python can produce but splitnet never sends (float, Timestamp)."""
    t = type(obj)
    if obj is None or t in (bool, int, bytes, str):
        return
    if t is list or t is dict:
        if depth >= MAX_DEPTH:
            raise DecodeError(f"nesting deeper than {MAX_DEPTH} levels")
        assert isinstance(obj, list | dict)
        for v in obj if isinstance(obj, list) else obj.values():
            _walk(v, depth + 1)
        return
    raise DecodeError(f"value of type {t.__name__} is not allowed")


def decode(data: bytes, *, max_len: int) -> object:
    """Decode exactly one canonical value from *data* (at most *max_len* bytes).

    Every length inside (str, bin, array, map) is bounded by *max_len* too, so a short
    input cannot announce a huge allocation. Any failure raises :class:`DecodeError`.
    """
    if type(data) is not bytes:
        raise DecodeError(f"expected bytes, got {type(data).__name__}")
    if len(data) > max_len:
        raise DecodeError(f"{len(data)} bytes, more than the limit of {max_len}")
    if not data:
        raise DecodeError("empty input")
    try:
        obj = msgpack.unpackb(
            data,
            raw=False,
            strict_map_key=True,
            use_list=True,
            ext_hook=_refuse_ext,
            object_pairs_hook=_pairs,
            max_bin_len=max_len,
            max_str_len=max_len,
            max_array_len=max_len,
            max_map_len=max_len // 2,
            max_ext_len=max_len,
        )
    except DecodeError:
        raise
    except msgpack.ExtraData as e:
        raise DecodeError(f"{len(e.extra)} trailing bytes after the value") from None
    except UnicodeDecodeError as e:
        raise DecodeError(f"invalid UTF-8 in a string: {e.reason}") from None
    except Exception as e:  # msgpack raises ValueError/FormatError/StackError/...
        reason = str(e) or type(e).__name__
        if "incomplete" in reason.lower():
            reason = "truncated input"
        raise DecodeError(f"not valid msgpack: {reason}") from None
    _walk(obj, 0)
    try:
        canonical = encode(obj)
    except (TypeError, ValueError) as e:  # pragma: no cover - _walk already refused these
        raise DecodeError(str(e)) from None
    if canonical != data:
        raise DecodeError("not canonical: a length or integer is not in its shortest form")
    return obj


# --------------------------------------------------------------------------- schema


def is_int(obj: object) -> TypeGuard[int]:
    """An int, never a bool (WIRE.md §4): msgpack's ``true`` is not the integer 1, though
    ``True == 1`` in Python — one value, one encoding, so one signature. The one test every
    field typed int is held to (:class:`Int`, and each game core's own checks)."""
    return type(obj) is int


@dataclass(frozen=True)
class Int:
    """An int (never a bool: :func:`is_int`) with ``lo <= value <= hi``."""

    lo: int
    hi: int

    def describe(self) -> str:
        return f"int {self.lo}…{self.hi}"


@dataclass(frozen=True)
class Bool:
    def describe(self) -> str:
        return "bool"


@dataclass(frozen=True)
class Bytes:
    """Bytes of exactly *exact* bytes, or of at most *max_len* bytes."""

    exact: int | None = None
    max_len: int | None = None

    def describe(self) -> str:
        if self.exact is not None:
            return f"{self.exact} bytes"
        return f"bytes of at most {self.max_len}" if self.max_len is not None else "bytes"


@dataclass(frozen=True)
class Str:
    """A str of *min_len* … *max_len* characters; *printable* refuses control/format
    characters (Unicode category C*), which could rewrite a peer's terminal."""

    max_len: int
    min_len: int = 0
    printable: bool = False

    def describe(self) -> str:
        return f"str of {self.min_len}…{self.max_len} characters"


@dataclass(frozen=True)
class OneOf:
    """A str that is one of *values* (a field whose words are all the protocol has)."""

    values: tuple[str, ...]

    def describe(self) -> str:
        return "one of " + ", ".join(repr(v) for v in self.values)


@dataclass(frozen=True)
class List:
    """A list of *min_len* … *max_len* items, each matching *item*."""

    item: Schema
    max_len: int
    min_len: int = 0

    def describe(self) -> str:
        return f"list of {self.min_len}…{self.max_len} items"


@dataclass(frozen=True)
class Tuple:
    """A list of exactly ``len(items)`` values, the i-th matching ``items[i]`` (a record)."""

    items: tuple[Schema, ...]

    def describe(self) -> str:
        return f"list of {len(self.items)} items"


@dataclass(frozen=True)
class Map:
    """A map with exactly the keys of *fields* (all required; use :class:`Opt` for a value
    that may be nil). With ``extra=True`` other keys are allowed and left unchecked —
    ``Map({}, extra=True)`` is "any map"."""

    fields: Mapping[str, Schema] = field(default_factory=dict)
    extra: bool = False

    def describe(self) -> str:
        return "map"


@dataclass(frozen=True)
class Opt:
    """*inner*, or nil."""

    inner: Schema

    def describe(self) -> str:
        return f"nil or {self.inner.describe()}"


Schema = Int | Bool | Bytes | Str | OneOf | List | Tuple | Map | Opt


def _got(obj: object) -> str:
    if isinstance(obj, bool) or obj is None:
        return repr(obj)
    if isinstance(obj, int):
        return str(obj)
    if isinstance(obj, bytes):
        return f"{len(obj)} bytes"
    if isinstance(obj, str):
        return f"str of {len(obj)} characters" if len(obj) > 20 else repr(obj)
    if isinstance(obj, list):
        return f"list of {len(obj)} items"
    if isinstance(obj, dict):
        return "map"
    return type(obj).__name__


def check(obj: object, schema: Schema, what: str) -> None:
    """Raise :class:`SchemaError` ``"<what>.<path>: expected …, got …"`` unless *obj* fits."""

    def fail(expected: str) -> NoReturn:
        raise SchemaError(f"{what}: expected {expected}, got {_got(obj)}")

    if isinstance(schema, Opt):
        if obj is not None:
            check(obj, schema.inner, what)
        return
    if isinstance(schema, Int):
        if not is_int(obj) or not schema.lo <= obj <= schema.hi:
            fail(schema.describe())
    elif isinstance(schema, Bool):
        if type(obj) is not bool:
            fail("bool")
    elif isinstance(schema, Bytes):
        if type(obj) is not bytes:
            fail(schema.describe())
        if schema.exact is not None and len(obj) != schema.exact:
            fail(schema.describe())
        if schema.max_len is not None and len(obj) > schema.max_len:
            fail(schema.describe())
    elif isinstance(schema, Str):
        if type(obj) is not str or not schema.min_len <= len(obj) <= schema.max_len:
            fail(schema.describe())
        if schema.printable:
            for i, ch in enumerate(obj):
                if unicodedata.category(ch).startswith("C"):
                    raise SchemaError(
                        f"{what}: control character U+{ord(ch):04X} at position {i}"
                    )
    elif isinstance(schema, OneOf):
        if type(obj) is not str or obj not in schema.values:
            fail(schema.describe())
    elif isinstance(schema, List):
        if type(obj) is not list or not schema.min_len <= len(obj) <= schema.max_len:
            fail(schema.describe())
        for i, item in enumerate(obj):
            check(item, schema.item, f"{what}[{i}]")
    elif isinstance(schema, Tuple):
        if type(obj) is not list or len(obj) != len(schema.items):
            fail(schema.describe())
        for i, (item, sub) in enumerate(zip(obj, schema.items, strict=True)):
            check(item, sub, f"{what}[{i}]")
    elif isinstance(schema, Map):
        if type(obj) is not dict:
            fail("map")
        for name, sub in schema.fields.items():
            if name not in obj:
                raise SchemaError(f"{what}: missing field {name!r}")
            check(obj[name], sub, f"{what}.{name}")
        if not schema.extra:
            for name in obj:
                if name not in schema.fields:
                    raise SchemaError(f"{what}: unexpected field {name!r}")
    else:  # pragma: no cover - exhaustive
        raise TypeError(f"not a schema: {schema!r}")
