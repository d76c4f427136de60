"""Strict canonical msgpack codec and schema checker (splitnet.session.codec)."""

from __future__ import annotations

import doctest

import msgpack
import pytest
from hypothesis import given
from hypothesis import strategies as st

from splitnet.session import codec
from splitnet.session.codec import (
    MAX_DEPTH,
    Bool,
    Bytes,
    DecodeError,
    Int,
    List,
    Map,
    Opt,
    SchemaError,
    Str,
    Tuple,
    check,
    decode,
    encode,
)


def test_doctests() -> None:
    assert doctest.testmod(codec).failed == 0


# ------------------------------------------------------------------ encode


def test_encode_known_bytes() -> None:
    assert encode(None) == b"\xc0"
    assert encode(True) == b"\xc3"
    assert encode(5) == b"\x05"
    assert encode(-1) == b"\xff"
    assert encode(200) == b"\xcc\xc8"
    assert encode(b"ab") == b"\xc4\x02ab"  # bin, never raw str
    assert encode("ab") == b"\xa2ab"
    assert encode([1, [2]]) == b"\x92\x01\x91\x02"


def test_encode_sorts_keys_regardless_of_insertion_order() -> None:
    a = {"z": 1, "a": 2, "é": 3, "B": 4}
    b = dict(reversed(list(a.items())))
    assert encode(a) == encode(b)
    assert list(msgpack.unpackb(encode(a))) == ["B", "a", "z", "é"]


@pytest.mark.parametrize(
    "bad",
    [1.5, (1, 2), bytearray(b"x"), {1: 2}, {b"k": 1}, {"a": {2: 3}}, object(), [set()]],
)
def test_encode_refuses_other_types(bad: object) -> None:
    with pytest.raises(TypeError):
        encode(bad)


def test_encode_refuses_subclasses() -> None:
    import enum

    class E(enum.IntEnum):
        A = 1

    with pytest.raises(TypeError):
        encode(E.A)


def test_encode_range_and_depth() -> None:
    encode(2**64 - 1)
    encode(-(2**63))
    with pytest.raises(ValueError):
        encode(2**64)
    with pytest.raises(ValueError):
        encode(-(2**63) - 1)
    deep: object = 0
    for _ in range(MAX_DEPTH):
        deep = [deep]
    encode(deep)
    with pytest.raises(ValueError, match="nesting"):
        encode([deep])


# ------------------------------------------------------------------ decode

values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**64 - 1)
    | st.binary(max_size=40)
    | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=5)
    | st.dictionaries(st.text(max_size=8), inner, max_size=5),
    max_leaves=30,
)


@given(values)
def test_roundtrip(v: object) -> None:
    data = encode(v)
    assert decode(data, max_len=len(data)) == v


@given(values, st.data())
def test_any_other_encoding_of_a_value_is_refused(v: object, data: st.DataObject) -> None:
    """Decoding accepts exactly encode(v): truncations and extensions never decode to v."""
    enc = encode(v)
    cut = data.draw(st.integers(0, len(enc) - 1))
    with pytest.raises(DecodeError):
        decode(enc[:cut], max_len=1000)
    with pytest.raises(DecodeError, match="trailing"):
        decode(enc + b"\x00", max_len=1000)


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"", "empty"),
        (b"\xcb" + b"\x00" * 8, "float"),
        (b"\xca" + b"\x00" * 4, "float"),
        (b"\xd4\x01\x00", "extension type 1"),
        (b"\xc7\x00\x05", "extension type 5"),
        (b"\xd6\xff" + b"\x00" * 4, "Timestamp"),
        (b"\xcc\x05", "not canonical"),  # 5 as uint8
        (b"\xd0\x05", "not canonical"),  # 5 as int8
        (b"\xd9\x01a", "not canonical"),  # "a" as str8
        (b"\xdc\x00\x01\x01", "not canonical"),  # [1] as array16
        (b"\x81\x01\x01", "map"),  # int key
        (b"\x81\xc4\x01a\x01", "only str keys"),
        (b"\x82\xa1a\x01\xa1a\x02", "duplicate map key 'a'"),
        (b"\x82\xa1b\x01\xa1a\x02", "out of order"),
        (b"\xa1\xff", "UTF-8"),
        (b"\x01\x02", "1 trailing bytes"),
        (b"\x92\x01", "truncated"),
        (b"\xc1", "msgpack"),  # never-used byte
        (b"\xdd\xff\xff\xff\xff", "exceeds"),
        (b"\xc6\xff\xff\xff\xff", "msgpack"),
        (b"\x91" * (MAX_DEPTH + 1) + b"\x00", "nesting"),
    ],
)
def test_decode_refuses(data: bytes, reason: str) -> None:
    with pytest.raises(DecodeError, match=reason):
        decode(data, max_len=100)


def test_decode_length_limits() -> None:
    data = encode(b"x" * 50)
    assert decode(data, max_len=52) == b"x" * 50
    with pytest.raises(DecodeError, match="limit"):
        decode(data, max_len=51)
    # a short input announcing a huge array is refused before any allocation
    with pytest.raises(DecodeError):
        decode(b"\xdd\x00\x10\x00\x00" + b"\x00" * 10, max_len=100)


def test_decode_refuses_non_bytes() -> None:
    with pytest.raises(DecodeError):
        decode(bytearray(b"\x01"), max_len=10)  # type: ignore[arg-type]


@given(st.binary(max_size=64))
def test_decode_garbage_only_raises_decode_error(data: bytes) -> None:
    try:
        v = decode(data, max_len=64)
    except DecodeError:
        return
    assert encode(v) == data


# ------------------------------------------------------------------ schema

MOVE = Map(
    {
        "slots": List(Int(0, 103), max_len=9),
        "who": Map({"seat": Int(0, 5), "name": Str(8, 1, printable=True)}),
        "proof": Bytes(exact=4),
        "note": Opt(Bytes(max_len=3)),
        "pair": Tuple((Int(0, 1), Bool())),
    }
)
GOOD: dict[str, object] = {
    "slots": [1, 2],
    "who": {"seat": 0, "name": "Ana"},
    "proof": b"abcd",
    "note": None,
    "pair": [1, True],
}


def _with(path: tuple[str | int, ...], value: object) -> dict[str, object]:
    import copy

    obj = copy.deepcopy(GOOD)
    cur: object = obj
    for p in path[:-1]:
        cur = cur[p]  # type: ignore[index]
    cur[path[-1]] = value  # type: ignore[index]
    return obj


def test_schema_accepts() -> None:
    check(GOOD, MOVE, "move")
    check(_with(("note",), b"xyz"), MOVE, "move")


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        (("slots", 1), -1, "move.slots[1]: expected int 0…103, got -1"),
        (("slots", 0), True, "move.slots[0]: expected int 0…103, got True"),
        (("slots",), list(range(10)), "move.slots: expected list of 0…9 items, got list of 10"),
        (("who", "seat"), "0", "move.who.seat: expected int 0…5, got '0'"),
        (("who", "name"), "", "move.who.name: expected str of 1…8 characters, got ''"),
        (("who", "name"), "a\x1b[2J", "move.who.name: control character U+001B at position 1"),
        (("who", "name"), "a\u202eb", "move.who.name: control character U+202E"),
        (("proof",), b"abc", "move.proof: expected 4 bytes, got 3 bytes"),
        (("proof",), "abcd", "move.proof: expected 4 bytes, got 'abcd'"),
        (("note",), b"long", "move.note: expected bytes of at most 3, got 4 bytes"),
        (("pair",), [1], "move.pair: expected list of 2 items, got list of 1 items"),
        (("pair", 1), 1, "move.pair[1]: expected bool, got 1"),
        (("who",), [], "move.who: expected map, got list of 0 items"),
    ],
)
def test_schema_errors_name_the_field(
    path: tuple[str | int, ...], value: object, message: str
) -> None:
    with pytest.raises(SchemaError) as ei:
        check(_with(path, value), MOVE, "move")
    assert str(ei.value).startswith(message)


def test_schema_missing_and_unexpected_fields() -> None:
    obj = {k: v for k, v in GOOD.items() if k != "proof"}
    with pytest.raises(SchemaError, match="move: missing field 'proof'"):
        check(obj, MOVE, "move")
    with pytest.raises(SchemaError, match=r"move\.who: unexpected field 'x'"):
        check(_with(("who", "x"), 1), MOVE, "move")
    check({"anything": [1, {"x": None}]}, Map({}, extra=True), "settings")


def test_schema_error_is_a_decode_error() -> None:
    assert issubclass(SchemaError, DecodeError) and issubclass(DecodeError, ValueError)
