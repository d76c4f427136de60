"""The ristretto255 wrapper refuses every malformed received element."""

from __future__ import annotations

import pytest

from splitnet.crypto import group


def test_points_round_trip_and_validate() -> None:
    p = group.base_mul(7)
    assert group.decode_point(p) == p
    assert group.add(p, group.neg(p)) == group.IDENTITY
    assert group.msm([2, 3], [p, p]) == group.mul(5, p)


@pytest.mark.parametrize("bad, why", [
    (bytes(32), "identity"),
    (bytes(31) + b"\x80", "bit 255"),
    (b"\xff" * 32, "bit 255"),
    (b"\x01" + bytes(31), "canonical"),
    (b"\x00" * 31, "32 bytes"),
    ("nope", "32 bytes"),
])
def test_malformed_points_are_refused_naming_the_field(bad: object, why: str) -> None:
    with pytest.raises(group.GroupError, match=why) as info:
        group.decode_point(bad, "share")
    assert str(info.value).startswith("share:")


def test_second_spelling_of_a_valid_point_is_refused() -> None:
    p = bytearray(group.base_mul(11))
    p[31] |= 0x80
    with pytest.raises(group.GroupError, match="bit 255"):
        group.decode_point(bytes(p))


def test_scalars_must_be_reduced() -> None:
    assert group.decode_scalar(group.scalar_bytes(5)) == 5
    with pytest.raises(group.GroupError, match="not reduced"):
        group.decode_scalar(group.L.to_bytes(32, "little"))
    assert group.decode_point(group.IDENTITY, allow_identity=True) == group.IDENTITY
