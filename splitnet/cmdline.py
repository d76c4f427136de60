"""The command line's values, checked as they are parsed, and what the terminal allows.

Every typed option of ``splitnet`` goes through one of these argparse types, so a bad
value is refused before anything runs — no data dir touched, no file made, nothing sent
— in one line naming the option (:class:`Parser` prints argparse's errors without the
usage block):

>>> count = int_in(1, 5)
>>> count("3"), _refused(count, "0"), _refused(count, "2" * 30), _refused(count, "abc")
(3, 'not 1–5: 0', 'not 1–5: a number of 30 digits', "not a whole number: 'abc'")
>>> seconds(0, 60)("0.5"), _refused(seconds(0, 60), "nan"), _refused(seconds(0, 60), "inf")
(0.5, 'not 0–60 seconds: nan', 'not 0–60 seconds: inf')
>>> port("7420"), _refused(port, "70000"), _refused(port, "-1")
(7420, 'not a port 0–65535: 70000', 'not a port 0–65535: -1')
>>> player_name("Ana"), _refused(player_name, ""), _refused(player_name, "x" * 33)
('Ana', 'a name is 1–32 characters, not 0', 'a name is 1–32 characters, not 33')
>>> _refused(player_name, "Bo\\u202e")
'a name: control character U+202E at position 2 (a host refuses it)'
>>> game_prefix("AB12"), _refused(game_prefix, "../x")
('ab12', "not a game id (1–32 hex digits): '../x'")

A player's name is held to the wire's rule for ``hello.name`` (protocol/WIRE.md,
:data:`splitnet.net.wire.NAME`: 1–32 characters, none of Unicode category C*), so a
name the host would refuse is refused here, before connecting.
"""

from __future__ import annotations

import argparse
import errno
import ipaddress
import math
import os
import socket
import stat
import sys
from collections.abc import Callable
from typing import Final, NoReturn

from splitnet.text import shown

#: the largest seed any command takes (a 63-bit number: every seed fits the places it goes)
MAX_SEED: Final = 2**63 - 1
_DIGITS: Final = 30  # a longer number is not read at all


class Parser(argparse.ArgumentParser):
    """argparse's parser, but an error is one line on stderr — ``splitnet host:
    argument --port: not a port 0–65535: 70000 (splitnet host --help lists the
    options)`` — with exit status 2, the value shown, not obeyed."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, shown(f"{self.prog}: {message} ({self.prog} --help lists the "
                           "options)") + "\n")


def _refused(kind: Callable[[str], object], text: str) -> str:
    try:
        kind(text)
    except argparse.ArgumentTypeError as e:
        return str(e)
    raise AssertionError(f"{text!r} was accepted")


def _number(text: str) -> str:
    t = text.strip()
    return f"a number of {len(t)} digits" if len(t) > 20 else shown(t, limit=40)


def int_in(lo: int, hi: int) -> Callable[[str], int]:
    """A whole number lo…hi."""

    def whole(text: str) -> int:
        t = text.strip()
        body = t[1:] if t[:1] in ("+", "-") else t
        if not body or any(c not in "0123456789" for c in body):
            raise argparse.ArgumentTypeError(
                f"not a whole number: {shown(repr(text), limit=40)}")
        if len(body) > _DIGITS or not lo <= int(t) <= hi:
            raise argparse.ArgumentTypeError(f"not {lo}–{hi}: {_number(t)}")
        return int(t)

    whole.__name__ = "int"
    return whole


def _real(text: str, lo: float, hi: float, what: str, unit: str) -> float:
    """A finite number lo…hi (``nan`` and ``inf`` refused; a long text is not read)."""
    try:
        x = float(text) if len(text) <= 64 else math.nan
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"not {what}: {shown(repr(text), limit=40)}") from None
    if not (math.isfinite(x) and lo <= x <= hi):
        raise argparse.ArgumentTypeError(f"not {lo:g}–{hi:g}{unit}: {_number(text)}")
    return x


def seconds(lo: float, hi: float) -> Callable[[str], float]:
    """A finite number of seconds lo…hi (``nan`` and ``inf`` are refused)."""

    def secs(text: str) -> float:
        return _real(text, lo, hi, "a number of seconds", " seconds")

    secs.__name__ = "float"
    return secs


#: ``--think``'s help, the same in every command that seats bots (Split's turn budget is
#: ``splitnet.games.split.bots.search.SearchConfig.turn_budget``)
THINK_HELP = ("strong bots: at most SECONDS a decision (default 0.3); Split's stops as soon "
              "as its choice is clear, and a whole turn thinks at most 0.8 s")


def fraction(text: str) -> float:
    """A number 0…1."""
    return _real(text, 0, 1, "a number", "")


def seed(text: str) -> int:
    """A seed: 0 … 2**63 − 1."""
    return int_in(0, MAX_SEED)(text)


seed.__name__ = "int"


def port(text: str) -> int:
    """A TCP port, 0 (any free one) … 65535."""
    try:
        return int_in(0, 65535)(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"not a port 0–65535: {_number(text)}") from None


port.__name__ = "int"


def local_address(text: str) -> str:
    """An IP address of this machine (or the wildcard 0.0.0.0 / ::): ``--bind``,
    ``--interface``. A name or an address no interface here has is refused, before
    anything listens."""
    try:
        addr = ipaddress.ip_address(text.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"not an IP address: {shown(repr(text), limit=60)}") from None
    family = socket.AF_INET6 if addr.version == 6 else socket.AF_INET
    try:
        with socket.socket(family, socket.SOCK_DGRAM) as s:
            s.bind((str(addr), 0))
    except OSError as e:
        why = ("no interface of this machine has it" if e.errno == errno.EADDRNOTAVAIL
               else e.strerror or str(e))
        raise argparse.ArgumentTypeError(f"{addr}: {why}") from None
    return str(addr)


def player_name(text: str) -> str:
    """A name at the table: the wire's rule for ``hello.name`` (protocol/WIRE.md)."""
    from splitnet.net.wire import NAME
    from splitnet.session.codec import SchemaError, check

    if not NAME.min_len <= len(text) <= NAME.max_len:
        raise argparse.ArgumentTypeError(
            f"a name is {NAME.min_len}–{NAME.max_len} characters, not {len(text)}")
    try:
        check(text, NAME, "a name")
    except SchemaError as e:  # a control or format character (category C*)
        raise argparse.ArgumentTypeError(f"{e} (a host refuses it)") from None
    return text


def game_prefix(text: str) -> str:
    """A game id or its first hex digits (``--resume``), or ``latest``."""
    t = text.strip().lower()
    if t == "latest":  # (play --resume alone: the newest)
        return t
    if not 1 <= len(t) <= 32 or any(c not in "0123456789abcdef" for c in t):
        raise argparse.ArgumentTypeError(
            f"not a game id (1–32 hex digits): {shown(repr(text), limit=50)}")
    return t


def data_dir(text: str) -> str:
    """``--data-dir``: a directory, or a path where one can be made (a file, a FIFO or a
    device there is refused before anything is read or written)."""
    if not text or "\0" in text:
        raise argparse.ArgumentTypeError(f"not a directory: {shown(repr(text), limit=60)}")
    try:
        st = os.stat(os.path.expanduser(text))
    except FileNotFoundError:
        return text
    except OSError as e:
        raise argparse.ArgumentTypeError(f"{shown(text)}: {e.strerror}") from None
    if not stat.S_ISDIR(st.st_mode):
        raise argparse.ArgumentTypeError(f"{shown(text)}: not a directory")
    return text


def output_file(what: str) -> Callable[[str], str]:
    """A file to write (``--record``, ``--transcript``): refused at once if it cannot be
    a regular file (a directory, FIFO or device there, no directory to make it in)."""

    def out(text: str) -> str:
        from pathlib import Path

        from splitnet.localfiles import LocalFileError, check_output

        if not text or "\0" in text:
            raise argparse.ArgumentTypeError(f"not a file name: {shown(repr(text), limit=60)}")
        try:
            check_output(Path(text), what=what)
        except LocalFileError as e:
            raise argparse.ArgumentTypeError(str(e)) from None
        return text

    out.__name__ = "path"
    return out


def new_dir(text: str) -> str:
    """A directory to make (``bench lan-load --keep``): nothing may be there yet."""
    if not text or "\0" in text:
        raise argparse.ArgumentTypeError(f"not a directory: {shown(repr(text), limit=60)}")
    if os.path.lexists(text):
        raise argparse.ArgumentTypeError(f"{shown(text)}: exists already (name a new "
                                         "directory)")
    return text


def stdin_closed() -> bool:
    """stdin is closed or ``/dev/null``: no prompt can ever be answered."""
    try:
        st = os.fstat(sys.stdin.fileno())
    except (OSError, ValueError, AttributeError):
        return True
    if not stat.S_ISCHR(st.st_mode):
        return False
    try:
        return st.st_rdev == os.stat(os.devnull).st_rdev
    except OSError:
        return False


def need_terminal(command: str) -> None:
    """The full-screen table reads keys from a terminal: with stdin not one (a pipe,
    ``/dev/null``, closed), refuse in one line before anything is made, naming
    ``--plain``."""
    try:
        tty = sys.stdin is not None and sys.stdin.isatty()
    except (OSError, ValueError):
        tty = False
    if not tty:
        raise SystemExit(f"splitnet {command}: the full-screen table needs a terminal and "
                         "stdin is not one: run it in a terminal, or pass --plain for the "
                         "line-based table")
