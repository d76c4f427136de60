"""Join codes: shape, entropy, randomness source, forgiving parsing, clear errors."""

from __future__ import annotations

import doctest
import hashlib
import math
import re

import pytest

from splitnet.net import joincode
from splitnet.net.joincode import (
    ENTROPY_BITS,
    NUMBER_MAX,
    NUMBER_MIN,
    JoinCode,
    JoinCodeError,
    new_code,
    parse_code,
    word_list,
)

#: SHA-256 of the 256 words joined by "\n" (protocol/SECURE.md pins it for other
#: implementations; change the list and both must change).
WORDS_SHA256 = "044e2821aa9143a3984f758803f6f1ed8892d54b11b8919ff1fe9bc2aa276e73"


def test_doctests() -> None:
    assert doctest.testmod(joincode).failed == 0


def test_word_list_shape() -> None:
    words = word_list()
    assert len(words) == 256 and len(set(words)) == 256
    assert len({w[:3] for w in words}) == 256  # three letters name a word
    assert all(re.fullmatch(r"[a-z]{3,6}", w) for w in words)
    assert list(words) == sorted(words)
    assert hashlib.sha256("\n".join(words).encode()).hexdigest() == WORDS_SHA256


def test_entropy_at_least_16_bits() -> None:
    assert ENTROPY_BITS == pytest.approx(math.log2(98 * 256 * 256))
    assert ENTROPY_BITS > 22


def test_new_code_shape_and_round_trip() -> None:
    seen = set()
    for _ in range(300):
        code = new_code()
        text = str(code)
        assert re.fullmatch(r"\d{1,2}-[a-z]{3,6}-[a-z]{3,6}", text)
        assert NUMBER_MIN <= code.number <= NUMBER_MAX
        assert parse_code(text) == code
        assert code.secret() == text.encode()
        seen.add(text)
    assert len(seen) > 290  # fresh for every game (collisions ~ 300²/2/6.4M)


def test_new_code_uses_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []

    def fake_randbelow(n: int) -> int:
        calls.append(n)
        return n - 1

    monkeypatch.setattr(joincode.secrets, "randbelow", fake_randbelow)
    code = new_code()
    assert calls == [98, 256, 256]
    assert str(code) == f"99-{word_list()[-1]}-{word_list()[-1]}"


@pytest.mark.parametrize(
    "text",
    [
        "7-lunar-anchor",
        "7 lunar anchor",
        "  7 LUNAR   Anchor\n",
        "7_lunar_anchor",
        "7.lunar.anchor",
        "7 - lunar - anchor",
        "7lunar-anchor",
        "07-lunar-anchor",
        "7-lun-anc",
        "7-luna-ancho",
        "７－ｌｕｎａｒ－ａｎｃｈｏｒ",  # full-width, as some input methods type
        "7\u2013lunar\u2014anchor",  # en and em dashes
    ],
)
def test_forgiving_parse(text: str) -> None:
    assert str(parse_code(text)) == "7-lunar-anchor"


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ("7-lunar", "a number and two words"),
        ("7-lunar-anchor-tiger", "a number and two words"),
        ("lunar-anchor-7", "starts with its number"),
        ("x-lunar-anchor", "starts with its number"),
        ("1-lunar-anchor", "2–99, not 1"),
        ("100-lunar-anchor", "2–99, not 100"),
        ("0-lunar-anchor", "2–99, not 0"),
        ("7-lunra-anchor", "did you mean 'lunar'"),
        ("7-lunar-ancor", "did you mean 'anchor'"),
        ("7-lu-anchor", "not a word"),
        ("7-lunarx-anchor", "not a word"),
        ("7-qqqqq-anchor", "'qqqqq' is not a word of the code list"),
        ("7-" + "a" * 80, "far too long"),
    ],
)
def test_malformed_codes_say_why(text: str, words: str) -> None:
    with pytest.raises(JoinCodeError, match=re.escape(words)):
        parse_code(text)


def test_errors_are_value_errors_and_type_checked() -> None:
    assert issubclass(JoinCodeError, ValueError)
    with pytest.raises(JoinCodeError):
        parse_code(7)  # type: ignore[arg-type]
    with pytest.raises(JoinCodeError):
        JoinCode(1, "lunar", "anchor")
    with pytest.raises(JoinCodeError):
        JoinCode(7, "lunar", "nope")


def test_code_stays_out_of_repr() -> None:
    code = parse_code("7-lunar-anchor")
    assert "lunar" not in repr(code) and "anchor" not in repr(code)
    assert parse_code(code) is code
