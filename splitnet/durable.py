"""Crash-safe writes of the small files a peer keeps (meta, secrets, saved games, known
peers, the identity key): the one place that knows how to make a write durable.

A file written here is either the old version or the new one, whole, after any crash,
kill -9 or power loss — never a prefix, never an empty file: the bytes go to a fresh
temporary file in the same directory, are ``fsync``-ed, the temporary is renamed over
the target (atomic on POSIX) and the directory is ``fsync``-ed so that the rename itself
is durable. The file gets ``mode`` (0600 by default: most of these files hold secrets or
name other players) whatever the process umask, and a directory created on the way gets
0700.

It is also the one place that knows how a file or directory that only this user may open
is made (protocol/NETWORK.md §9: everything splitnet writes in a data dir is 0600, every
directory 0700; SECURITY.md §6, row 99): :func:`open_private` creates a file 0600 and
:func:`private_dir` a directory 0700 — with ``os.open``/``os.mkdir`` and that mode, then
``chmod``, never left to the umask — and :func:`tighten_dir` closes an existing directory
that other local users could look into.

This module imports nothing from splitnet, so every layer may use it.

>>> import tempfile
>>> d = Path(tempfile.mkdtemp())
>>> atomic_write(d / "sub" / "f.json", b"{}\\n")
>>> (d / "sub" / "f.json").read_bytes(), oct((d / "sub" / "f.json").stat().st_mode & 0o777)
(b'{}\\n', '0o600')
>>> create_new(d / "key", b"first"), create_new(d / "key", b"second")
(True, False)
>>> (d / "key").read_bytes()
b'first'
>>> os.close(open_private(d / "new" / "log", os.O_WRONLY))
>>> [oct(p.stat().st_mode & 0o777) for p in (d / "new", d / "new" / "log")]
['0o700', '0o600']
>>> import shutil; shutil.rmtree(d)  # (the example leaves nothing behind)
"""

from __future__ import annotations

import os
import secrets
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Final

__all__ = ["PRIVATE_DIR", "PRIVATE_FILE", "atomic_write", "create_new", "fsync_dir",
           "open_private", "private_dir", "tighten_dir"]

#: the mode of every file splitnet writes in a data dir, and of every directory there
PRIVATE_FILE: Final = 0o600
PRIVATE_DIR: Final = 0o700


def private_dir(path: Path) -> Path:
    """Directory ``path``, created if missing: it and each missing parent with mode 0700
    whatever the umask. An existing directory keeps its mode (:func:`tighten_dir`)."""
    path = Path(path)
    missing: list[Path] = []
    p = path
    while not p.is_dir() and p.parent != p:
        missing.append(p)
        p = p.parent
    for d in reversed(missing):
        try:
            os.mkdir(d, PRIVATE_DIR)
        except FileExistsError:
            if not d.is_dir():
                raise
            continue  # made meanwhile by another process (or one of ours)
        if os.name == "posix":
            os.chmod(d, PRIVATE_DIR)  # the umask may have taken more bits away
    return path


def open_private(path: Path, flags: int, *, create: bool = True) -> int:
    """``os.open(path, flags | O_CREAT)`` for a file only this user may open: created with
    mode 0600 whatever the umask (its directory too, 0700, if missing); an existing file
    of this user's with another mode is set to 0600. ``O_EXCL`` in ``flags`` works as
    usual; ``create=False``: only an existing file is opened (no ``O_CREAT``), and set
    to 0600 the same way. Returns the descriptor."""
    path = Path(path)
    if create:
        private_dir(path.parent)
        flags |= os.O_CREAT
    fd = os.open(path, flags, PRIVATE_FILE)
    try:
        if os.name == "posix":
            st = os.fstat(fd)
            if stat.S_IMODE(st.st_mode) != PRIVATE_FILE and st.st_uid == os.getuid():
                os.fchmod(fd, PRIVATE_FILE)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _anything(name: str) -> bool:
    return True


def tighten_dir(path: Path, ours: Callable[[str], bool] = _anything) -> str | None:
    """Close an existing directory ``path`` that group or others may enter or list: set
    it to 0700. None when it is private (now, or already; or it does not exist), else
    one line saying why it was left open: it belongs to another user, it is a shared
    directory (sticky bit, like ``/tmp``), it holds entries that are not splitnet's
    (``ours(name)`` is false: someone else's directory given as a data dir), or chmod
    failed."""
    path = Path(path)
    try:
        st = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    mode = stat.S_IMODE(st.st_mode)
    if os.name != "posix" or not stat.S_ISDIR(st.st_mode) or not mode & 0o077:
        return None
    why = ""
    if st.st_uid != os.getuid():
        why = "it belongs to another user"
    elif mode & stat.S_ISVTX:
        why = "it is a shared directory (sticky bit)"
    else:
        try:
            foreign = sum(not ours(name) for name in os.listdir(path))
        except OSError as e:
            foreign, why = 0, f"it cannot be listed ({e.strerror})"
        if foreign:
            why = (f"it holds {foreign} entr{'y' if foreign == 1 else 'ies'} that "
                   f"splitnet did not make")
    if not why:
        try:
            os.chmod(path, PRIVATE_DIR)
            return None
        except OSError as e:
            why = f"chmod failed ({e.strerror})"
    return (f"{path}: mode {mode:04o} lets other local users look into it, and {why}, so "
            f"it was left as it is (chmod 700 it, or use another --data-dir)")


def fsync_dir(path: Path) -> None:
    """Make the entries of directory ``path`` (a rename, a new file) durable."""
    if os.name != "posix":  # pragma: no cover - directories cannot be opened elsewhere
        return
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_synced(path: Path, data: bytes, mode: int) -> Path:
    """Write ``data`` to a new temporary file next to ``path``, fsynced; return its path."""
    private_dir(path.parent)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        try:
            os.fchmod(fd, mode)  # whatever the umask
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        finally:
            os.close(fd)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return tmp


def atomic_write(path: Path, data: bytes, mode: int = 0o600) -> None:
    """Replace ``path`` by ``data``, whole or not at all (tmp + fsync + rename + fsync of
    the directory). Creates missing parent directories (0700)."""
    path = Path(path)
    tmp = _write_synced(path, data, mode)
    try:
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    fsync_dir(path.parent)


def create_new(path: Path, data: bytes, mode: int = 0o600) -> bool:
    """Create ``path`` holding ``data`` if it does not exist yet, durably and never
    partially; return False (and leave the existing file alone) if it exists. Of two
    processes racing to create the same file exactly one wins, and the other then reads
    the winner's file. On a file system without hard links, falls back to a rename
    (last writer wins)."""
    path = Path(path)
    if path.exists():
        return False
    tmp = _write_synced(path, data, mode)
    try:
        try:
            os.link(tmp, path)  # fails if someone else created it meanwhile
        except FileExistsError:
            return False
        except OSError:  # no hard links on this file system: best effort
            os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    fsync_dir(path.parent)
    return True
