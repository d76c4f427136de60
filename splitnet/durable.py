"""Crash-safe writes of the small files a peer keeps (meta, secrets, saved games, known
peers, the identity key): the one place that knows how to make a write durable.

A file written here is either the old version or the new one, whole, after any crash,
kill -9 or power loss — never a prefix, never an empty file: the bytes go to a fresh
temporary file in the same directory, are ``fsync``-ed, the temporary is renamed over
the target (atomic on POSIX) and the directory is ``fsync``-ed so that the rename itself
is durable. The file gets ``mode`` (0600 by default: most of these files hold secrets or
name other players) whatever the process umask, and a directory created on the way gets
0700.

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
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

__all__ = ["atomic_write", "create_new", "fsync_dir"]


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
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
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
