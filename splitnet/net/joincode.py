"""Join codes: the short secret a host prints and its players type (protocol/SECURE.md).

A code is a number 2–99 and two words from the 256-word list shipped in
``splitnet/data/words.txt``: ``7-lunar-anchor``. That is 98 · 256 · 256 ≈ 2²²·⁶ codes,
drawn with :mod:`secrets` afresh for every game. The code never crosses the wire: both ends
feed it into SPAKE2 (:mod:`splitnet.net.secure`), so someone who records the traffic
learns nothing they can test offline, and each connection allows one guess, which the host
counts.

Parsing forgives what people do when they type a code read aloud: any case, spaces,
dashes, underscores or dots between the parts (or none between the number and the first
word), full-width digits, and a word given by its first three or more letters (no two
words share their first three letters). Anything else is a :class:`JoinCodeError` that
says what is wrong.

>>> str(parse_code("  7 Lunar  ANCHOR "))
'7-lunar-anchor'
>>> str(parse_code("07_lun.anc"))
'7-lunar-anchor'
>>> parse_code("7-lunra-anchor")
Traceback (most recent call last):
...
splitnet.net.joincode.JoinCodeError: 'lunra' is not a word of the code list (did you mean 'lunar'?)
"""

from __future__ import annotations

import difflib
import math
import re
import secrets
import unicodedata
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Final

from splitnet.errors import SplitnetError

__all__ = [
    "ENTROPY_BITS",
    "NUMBER_MAX",
    "NUMBER_MIN",
    "JoinCode",
    "JoinCodeError",
    "new_code",
    "parse_code",
    "word_list",
]

NUMBER_MIN: Final = 2
NUMBER_MAX: Final = 99
WORD_COUNT: Final = 256
#: log2 of the number of distinct codes (≈ 22.6 bits).
ENTROPY_BITS: Final = math.log2((NUMBER_MAX - NUMBER_MIN + 1) * WORD_COUNT * WORD_COUNT)

_SEPARATORS = re.compile(r"[\s\-_.,/:;+\u2010-\u2015\u2212]+")
_SPLIT_DIGITS = re.compile(r"^(\d+)([a-z].*)$")


class JoinCodeError(SplitnetError):
    """The text is not a join code (the reason says why, in words)."""


@cache
def word_list() -> tuple[str, ...]:
    """The 256 code words, in index order (checked on load: a broken install is loud)."""
    text = resources.files("splitnet").joinpath("data/words.txt").read_text("utf-8")
    words = tuple(
        line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")
    )
    if (
        len(words) != WORD_COUNT
        or len({w[:3] for w in words}) != WORD_COUNT
        or not all(re.fullmatch(r"[a-z]{3,6}", w) for w in words)
    ):
        raise RuntimeError("splitnet/data/words.txt is damaged: expected 256 distinct words")
    return words


@cache
def _by_prefix() -> dict[str, str]:
    return {w[:3]: w for w in word_list()}


@dataclass(frozen=True, slots=True)
class JoinCode:
    """A parsed join code; ``str()`` gives the canonical form ``N-word-word``."""

    number: int
    first: str
    second: str

    def __post_init__(self) -> None:
        if not NUMBER_MIN <= self.number <= NUMBER_MAX:
            raise JoinCodeError(f"the number must be {NUMBER_MIN}–{NUMBER_MAX}")
        words = set(word_list())
        for w in (self.first, self.second):
            if w not in words:
                raise JoinCodeError(f"{w!r} is not a word of the code list")

    def __str__(self) -> str:
        return f"{self.number}-{self.first}-{self.second}"

    def __repr__(self) -> str:
        return "JoinCode(<hidden>)"  # a secret: keep it out of logs and tracebacks

    def secret(self) -> bytes:
        """The bytes both ends feed to SPAKE2 as the password: the canonical form, UTF-8."""
        return str(self).encode()


def new_code() -> JoinCode:
    """A fresh random code from the operating system's CSPRNG."""
    words = word_list()
    return JoinCode(
        NUMBER_MIN + secrets.randbelow(NUMBER_MAX - NUMBER_MIN + 1),
        words[secrets.randbelow(WORD_COUNT)],
        words[secrets.randbelow(WORD_COUNT)],
    )


def _word(token: str) -> str:
    if len(token) >= 3 and token.isascii() and token.isalpha():
        word = _by_prefix().get(token[:3])
        if word is not None and word.startswith(token):
            return word
    close = difflib.get_close_matches(token, word_list(), n=1, cutoff=0.6)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    raise JoinCodeError(f"{token[:20]!r} is not a word of the code list{hint}")


def parse_code(text: str | JoinCode) -> JoinCode:
    """Read a code as a person may type it; see the module docstring for what is forgiven."""
    if isinstance(text, JoinCode):
        return text
    if not isinstance(text, str):
        raise JoinCodeError("a join code is text")
    norm = unicodedata.normalize("NFKC", text).strip().lower()
    if not norm:
        raise JoinCodeError("the join code is empty (it looks like 7-lunar-anchor)")
    if len(norm) > 64:
        raise JoinCodeError("that is far too long for a join code (it looks like 7-lunar-anchor)")
    tokens = [t for t in _SEPARATORS.split(norm) if t]
    if tokens:
        m = _SPLIT_DIGITS.match(tokens[0])
        if m:
            tokens[:1] = [m.group(1), m.group(2)]
    if len(tokens) != 3:
        raise JoinCodeError(
            f"a join code is a number and two words, like 7-lunar-anchor; got {len(tokens)} "
            f"part{'s' if len(tokens) != 1 else ''}"
        )
    num, w1, w2 = tokens
    if not (num.isascii() and num.isdigit()):
        raise JoinCodeError(
            f"a join code starts with its number, like 7-lunar-anchor; got {num[:20]!r}"
        )
    number = int(num)
    if not NUMBER_MIN <= number <= NUMBER_MAX:
        raise JoinCodeError(f"the number of a join code is {NUMBER_MIN}–{NUMBER_MAX}, not {number}")
    return JoinCode(number, _word(w1), _word(w2))
