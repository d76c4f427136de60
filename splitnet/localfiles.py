"""Files the local user names on the command line: read safely, refused in one line.

Only the local user's own arguments name files (``--settings FILE``, ``verify FILE``,
``replay FILE``); nothing received from another peer — a header, a transcript, a record —
ever does (protocol/SETTINGS.md). What is named here is read once, whole, before anything
else happens:

* only a regular file is opened (a directory, FIFO, device or socket is refused before
  ``open``, and opened non-blocking so a swapped-in FIFO cannot hang us), at most a fixed
  number of bytes (``/dev/zero`` cannot exhaust memory);
* JSON is read strictly: UTF-8, no duplicate keys, no ``NaN``/``Infinity``, no number of
  more than :data:`MAX_DIGITS` digits, no nesting deeper than :data:`MAX_DEPTH`;
* every failure is a :class:`LocalFileError` whose message is one line naming the file
  and what is wrong (control characters in it are shown, not obeyed).
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any, Final

from splitnet.errors import SplitnetError
from splitnet.games.split.rules import Settings, SettingsError
from splitnet.games.split.rules.settings import DEFAULT_PAD_ROWS, ROWS
from splitnet.text import shown

#: the largest settings or pad file read
MAX_SETTINGS_BYTES: Final = 64 * 1024
#: the largest game record read (a 6-player game of 20 rounds is well under 2 MiB)
MAX_RECORD_BYTES: Final = 16 * 1024 * 1024
#: the largest transcript read
MAX_TRANSCRIPT_BYTES: Final = 256 * 1024 * 1024
MAX_DIGITS: Final = 30
MAX_DEPTH: Final = 32


class LocalFileError(SplitnetError):
    """A local file that cannot be used; the message is one line naming it."""

    def __init__(self, path: Path | str, reason: str) -> None:
        super().__init__(shown(f"{path}: {reason}"))
        self.path = path
        self.reason = reason


def read_local(path: Path, *, limit: int, what: str = "file") -> bytes:
    """The bytes of the regular file *path*, at most *limit* of them."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise LocalFileError(path, f"no such {what}") from None
    except (OSError, ValueError) as e:  # ValueError: a NUL byte in the name
        raise LocalFileError(path, _why(e)) from None
    if stat.S_ISDIR(st.st_mode):
        raise LocalFileError(path, f"is a directory, not a {what}")
    if not stat.S_ISREG(st.st_mode):
        raise LocalFileError(path, f"is not a regular file (a FIFO, device or socket): "
                             f"expected a {what}")
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)
                     | getattr(os, "O_NOCTTY", 0))
    except OSError as e:
        raise LocalFileError(path, _why(e)) from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):  # swapped between stat and open
            raise LocalFileError(path, f"is not a regular file: expected a {what}")
        chunks: list[bytes] = []
        size = 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as e:
        raise LocalFileError(path, _why(e)) from None
    finally:
        os.close(fd)
    if size > limit:
        raise LocalFileError(path, f"is larger than {limit} bytes: not a {what}")
    return b"".join(chunks)


def check_output(path: Path, *, what: str) -> None:
    """Refuse, before any work is done, an output path that cannot be written as a
    regular file: a directory, a FIFO or device, a missing parent directory."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        parent = path.parent
        if not parent.is_dir():
            raise LocalFileError(path, f"no directory {parent} to write the {what} in") from None
        return
    except (OSError, ValueError) as e:
        raise LocalFileError(path, _why(e)) from None
    if stat.S_ISDIR(st.st_mode):
        raise LocalFileError(path, f"is a directory: cannot write the {what} there")
    if not stat.S_ISREG(st.st_mode):
        raise LocalFileError(path, f"is not a regular file: cannot write the {what} there")


def _why(e: Exception) -> str:
    if isinstance(e, OSError) and e.strerror:
        return e.strerror
    return str(e)


def parse_json(data: bytes, path: Path, *, what: str) -> object:
    """*data* as strict JSON (see the module's docstring)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise LocalFileError(path, f"not a {what}: not UTF-8 (byte {e.start})") from None
    if text.startswith("\ufeff"):
        text = text[1:]
    depth = _max_depth(text)
    if depth > MAX_DEPTH:
        raise LocalFileError(path, f"not a {what}: JSON nested more than {MAX_DEPTH} deep")
    try:
        return json.loads(text, object_pairs_hook=_no_duplicates, parse_int=_int,
                          parse_constant=_no_constant)
    except json.JSONDecodeError as e:
        raise LocalFileError(path, f"not a {what}: not valid JSON ({e.msg} at line "
                             f"{e.lineno} column {e.colno})") from None
    except (ValueError, RecursionError) as e:
        raise LocalFileError(path, f"not a {what}: {e}") from None


def _max_depth(text: str) -> int:
    """How deeply brackets nest outside strings (checked before parsing, so a deep file
    never reaches the recursive parser)."""
    depth = top = 0
    in_str = esc = False
    for c in text:
        if in_str:
            if esc:
                esc = False
            elif c == "\\":
                esc = True
            elif c == '"':
                in_str = False
        elif c == '"':
            in_str = True
        elif c in "[{":
            depth += 1
            top = max(top, depth)
        elif c in "]}":
            depth -= 1
    return top


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in pairs:
        if k in out:
            raise ValueError(f"the key {shown(repr(k), limit=40)} appears twice in one object")
        out[k] = v
    return out


def _int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise ValueError(f"a number of {len(text)} digits (at most {MAX_DIGITS})")
    return int(text)


def _no_constant(text: str) -> object:
    raise ValueError(f"{text} is not a JSON number")


def read_json(path: Path, *, limit: int, what: str) -> object:
    return parse_json(read_local(path, limit=limit, what=what), path, what=what)


def load_settings(path: Path) -> Settings:
    """The local ``--settings FILE`` (protocol/SETTINGS.md): every key optional (RULES.md
    defaults), the pad inline or the path of a pad file relative to FILE. The result is
    complete and inline: it is what goes into the header."""
    data = read_json(path, limit=MAX_SETTINGS_BYTES, what="settings file")
    if not isinstance(data, dict):
        raise LocalFileError(path, "settings: expected a JSON object")
    full: dict[str, Any] = {**Settings().to_dict(), **data}
    pad = full["pad"]
    if isinstance(pad, str):
        pad_path = Path(pad)
        if not pad_path.is_absolute():
            pad_path = path.parent / pad_path
        pad = read_json(pad_path, limit=MAX_SETTINGS_BYTES, what="pad file")
    if isinstance(pad, dict):
        pad = {**{r: list(DEFAULT_PAD_ROWS[r]) for r in ROWS}, **pad}
    full["pad"] = pad
    try:
        return Settings.from_dict(full)
    except SettingsError as e:
        raise LocalFileError(path, str(e)) from None
