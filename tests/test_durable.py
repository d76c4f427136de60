"""splitnet.durable: the one crash-safe write helper every layer uses."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from splitnet import durable
from splitnet.durable import atomic_write, create_new


def _mode(p: Path) -> int:
    return stat.S_IMODE(p.stat().st_mode)


def test_atomic_write_replaces_whole_with_mode_whatever_the_umask(tmp_path: Path) -> None:
    old = os.umask(0)
    try:
        atomic_write(tmp_path / "d" / "f", b"one")
        atomic_write(tmp_path / "d" / "g", b"x", 0o644)
    finally:
        os.umask(old)
    assert (tmp_path / "d" / "f").read_bytes() == b"one"
    assert _mode(tmp_path / "d" / "f") == 0o600
    assert _mode(tmp_path / "d" / "g") == 0o644
    assert _mode(tmp_path / "d") == 0o700
    atomic_write(tmp_path / "d" / "f", b"two")
    assert (tmp_path / "d" / "f").read_bytes() == b"two"
    assert sorted(p.name for p in (tmp_path / "d").iterdir()) == ["f", "g"]


def test_atomic_write_syncs_file_before_rename_and_directory_after(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    events: list[str] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd: int) -> None:
        events.append("fsync-dir" if stat.S_ISDIR(os.fstat(fd).st_mode) else "fsync-file")
        real_fsync(fd)

    def replace(a: str | Path, b: str | Path) -> None:
        events.append("rename")
        real_replace(a, b)

    monkeypatch.setattr(durable.os, "fsync", fsync)
    monkeypatch.setattr(durable.os, "replace", replace)
    atomic_write(tmp_path / "f", b"data")
    assert events == ["fsync-file", "rename", "fsync-dir"]


@pytest.mark.parametrize("crash_in", ["write", "fsync", "replace"])
def test_a_crash_at_any_step_leaves_the_old_file_whole_and_no_debris(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, crash_in: str
) -> None:
    target = tmp_path / "f"
    atomic_write(target, b"old contents")
    real = getattr(os, crash_in)
    calls = {"n": 0}

    def crash(*args: object) -> object:
        calls["n"] += 1
        if crash_in == "write":  # half the bytes reach the disk, then the process dies
            fd, data = args
            assert isinstance(fd, int) and isinstance(data, memoryview)
            real(fd, data[: len(data) // 2])
        raise KeyboardInterrupt("killed")

    monkeypatch.setattr(durable.os, crash_in, crash)
    with pytest.raises(KeyboardInterrupt):
        atomic_write(target, b"new contents, longer than the old")
    monkeypatch.undo()
    assert calls["n"] == 1
    assert target.read_bytes() == b"old contents"
    assert [p.name for p in tmp_path.iterdir()] == ["f"]


def test_create_new_never_overwrites(tmp_path: Path) -> None:
    p = tmp_path / "sub" / "key"
    assert create_new(p, b"first")
    assert not create_new(p, b"second")
    assert p.read_bytes() == b"first"
    assert _mode(p) == 0o600
    assert [q.name for q in p.parent.iterdir()] == ["key"]


def test_create_new_loses_a_race_cleanly(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Another process creates the file between our check and our link: we keep theirs."""
    p = tmp_path / "key"
    real_link = os.link

    def link(src: str | Path, dst: str | Path) -> None:
        Path(dst).write_bytes(b"theirs")
        real_link(src, dst)

    monkeypatch.setattr(durable.os, "link", link)
    assert not create_new(p, b"ours")
    assert p.read_bytes() == b"theirs"
    assert [q.name for q in tmp_path.iterdir()] == ["key"]


def test_no_other_module_keeps_its_own_copy() -> None:
    """The atomic-write recipe lives in one place (durable.py)."""
    root = Path(durable.__file__).parent
    offenders = [
        str(f.relative_to(root))
        for f in root.rglob("*.py")
        if f.name != "durable.py"
        and ("def _fsync_dir" in (t := f.read_text()) or "def _atomic_write" in t
             or "os.replace(" in t)
    ]
    assert offenders == []
