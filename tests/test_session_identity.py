"""Ed25519 identity: key file handling, signatures, key validation."""

from __future__ import annotations

import doctest
import hashlib
import os
import stat
from pathlib import Path

import pytest

from splitnet.session import identity
from splitnet.session.identity import (
    KEY_FILE,
    Identity,
    IdentityError,
    default_data_dir,
    fingerprint,
    is_valid_public_key,
    verify,
)

posix_only = pytest.mark.skipif(os.name != "posix", reason="file modes are POSIX")


def test_doctests() -> None:
    assert doctest.testmod(identity).failed == 0


@posix_only
def test_created_with_mode_0600_in_0700_dir(tmp_path: Path) -> None:
    d = tmp_path / "data" / "splitnet"
    me = Identity.load_or_create(d)
    key = d / KEY_FILE
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    assert stat.S_IMODE(d.stat().st_mode) == 0o700
    assert key.read_bytes() != b"" and len(key.read_bytes()) == 32
    assert [p.name for p in d.iterdir()] == [KEY_FILE]  # no temp file left behind
    again = Identity.load_or_create(d)
    assert again.public_key_bytes() == me.public_key_bytes()


def test_raw_key_format(tmp_path: Path) -> None:
    seed = hashlib.sha256(b"id\x00").digest()
    (tmp_path / KEY_FILE).write_bytes(seed)
    os.chmod(tmp_path / KEY_FILE, 0o600)
    assert (
        Identity.load_or_create(tmp_path).public_key_bytes()
        == Identity.from_seed(seed).public_key_bytes()
    )


@posix_only
@pytest.mark.parametrize("mode", [0o644, 0o640, 0o604, 0o660, 0o602])
def test_refuses_key_readable_by_others(tmp_path: Path, mode: int) -> None:
    Identity.load_or_create(tmp_path)
    os.chmod(tmp_path / KEY_FILE, mode)
    with pytest.raises(IdentityError, match=f"mode {mode:04o}.*chmod 600"):
        Identity.load_or_create(tmp_path)


@posix_only
def test_refuses_symlink(tmp_path: Path) -> None:
    real = tmp_path / "real.key"
    real.write_bytes(bytes(32))
    os.chmod(real, 0o600)
    (tmp_path / KEY_FILE).symlink_to(real)
    with pytest.raises(IdentityError, match="cannot open"):
        Identity.load_or_create(tmp_path)


@pytest.mark.parametrize("content", [b"", b"x" * 31, b"x" * 33, b"x" * 100])
def test_refuses_wrong_length(tmp_path: Path, content: bytes) -> None:
    (tmp_path / KEY_FILE).write_bytes(content)
    os.chmod(tmp_path / KEY_FILE, 0o600)
    with pytest.raises(IdentityError, match="exactly 32 raw bytes"):
        Identity.load_or_create(tmp_path)


def test_default_data_dir(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert default_data_dir() == tmp_path / "splitnet"
    monkeypatch.setenv("XDG_DATA_HOME", "")
    assert default_data_dir() == Path.home() / ".local" / "share" / "splitnet"
    monkeypatch.setenv("XDG_DATA_HOME", "relative/path")  # the XDG spec says: ignore it
    assert default_data_dir() == Path.home() / ".local" / "share" / "splitnet"
    monkeypatch.delenv("XDG_DATA_HOME")
    assert default_data_dir() == Path.home() / ".local" / "share" / "splitnet"


def test_sign_verify() -> None:
    me = Identity.from_seed(bytes(range(32)))
    pub = me.public_key_bytes()
    sig = me.sign(b"data")
    assert len(sig) == 64 and sig == me.sign(b"data")  # deterministic
    assert verify(pub, b"data", sig)
    assert Identity.verify(pub, b"data", sig)
    assert not verify(pub, b"datA", sig)
    assert not verify(pub, b"data", sig[:-1] + bytes([sig[-1] ^ 1]))
    other = Identity.from_seed(bytes(32)).public_key_bytes()
    assert not verify(other, b"data", sig)


@pytest.mark.parametrize(
    ("pub", "data", "sig"),
    [
        (b"", b"d", bytes(64)),
        (b"\xff" * 32, b"d", bytes(64)),
        (bytes(32), b"d", bytes(64)),
        (b"x" * 33, b"d", bytes(64)),
        (None, b"d", bytes(64)),
        ("str" * 11, b"d", bytes(64)),
        (bytes(32), "d", bytes(64)),
        (bytes(32), b"d", None),
        (bytes(32), b"d", b"short"),
    ],
)
def test_verify_never_raises(pub: object, data: object, sig: object) -> None:
    assert verify(pub, data, sig) is False  # type: ignore[arg-type]


def test_fingerprint() -> None:
    pub = Identity.from_seed(bytes(32)).public_key_bytes()
    fp = fingerprint(pub)
    assert fp == Identity.from_seed(bytes(32)).fingerprint()
    groups = fp.split("-")
    assert len(groups) == 5 and all(len(g) == 4 for g in groups)
    assert "".join(groups) == hashlib.sha256(pub).hexdigest()[:20]


# ---------------------------------------------------------------- key validation

_SMALL_ORDER = [
    bytes(32),  # order 4
    b"\x01" + bytes(31),  # identity
    bytes.fromhex("ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"),  # order 2
    bytes.fromhex("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05"),  # 8
    bytes.fromhex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a"),  # 8
    bytes.fromhex("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85"),  # 8
]


def test_honest_keys_are_valid() -> None:
    for i in range(20):
        assert is_valid_public_key(Identity.from_seed(bytes([i]) * 32).public_key_bytes())


@pytest.mark.parametrize("pub", _SMALL_ORDER)
def test_small_order_keys_are_invalid(pub: bytes) -> None:
    assert not is_valid_public_key(pub)


def test_mixed_order_and_malformed_keys_are_invalid() -> None:
    good = Identity.from_seed(bytes(32)).public_key_bytes()
    p = identity._decompress(good)
    t = identity._decompress(_SMALL_ORDER[3])
    assert p is not None and t is not None
    x, y, z, _ = identity._add(p, t)
    zi = pow(z, identity._P - 2, identity._P)
    x, y = x * zi % identity._P, y * zi % identity._P
    mixed = (y | (x & 1) << 255).to_bytes(32, "little")
    assert identity._decompress(mixed) is not None
    assert not is_valid_public_key(mixed)
    # y >= p (non-canonical), not on the curve, wrong length
    assert not is_valid_public_key(b"\xee" + b"\xff" * 30 + b"\x7f")
    assert not is_valid_public_key((2).to_bytes(32, "little"))
    assert not is_valid_public_key(good[:31])
