"""The transcript file: append-only + fsync, torn-tail repair, tamper detection."""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from splitnet.session.identity import Identity
from splitnet.session.log import Author, Log, Player
from splitnet.session.transcript import (
    MAGIC,
    TornTail,
    TranscriptError,
    TranscriptWriter,
    load_log,
    read_transcript,
    transcript_path,
)

GAME = bytes(range(16))


def _ident(i: int) -> Identity:
    return Identity.from_seed(hashlib.sha256(b"id" + bytes([i])).digest())


def _game(game_id: bytes = GAME, n_msgs: int = 3) -> Log:
    ids = [_ident(i) for i in range(3)]
    players = [Player(i, f"p{i}", k.public_key_bytes()) for i, k in enumerate(ids)]
    log, host = Log.start(ids[0], game_id=game_id, host_seat=0, players=players)
    authors = [host, *(Author(ids[i], game_id, i) for i in (1, 2))]
    for a in authors[1:]:
        log.order(*a.accept(log.header_hash), ids[0])
    for k in range(n_msgs):
        log.order(*authors[k % 3].message("chat", {"k": k}, seen=log.seen()), ids[0])
    return log


LOG = _game()
RECORDS = LOG.records()
FOREIGN = _game(bytes(16)).records()


def _file(records: list[bytes]) -> bytes:
    return MAGIC + b"".join(len(r).to_bytes(4, "big") + r for r in records)


def _write(path: Path, records: list[bytes]) -> None:
    with TranscriptWriter(path) as w:
        for r in records:
            w.append(r)


def test_roundtrip(tmp_path: Path) -> None:
    p = transcript_path(tmp_path, GAME)
    assert p == tmp_path / "games" / (GAME.hex() + ".splitlog")
    _write(p, RECORDS)
    assert p.read_bytes() == _file(RECORDS)
    assert read_transcript(p) == RECORDS
    assert load_log(p).head() == LOG.head()


def test_writer_appends_only_and_fsyncs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    p = tmp_path / "t.splitlog"
    synced: list[int] = []
    real_fsync = os.fsync

    def counting_fsync(fd: int) -> None:
        synced.append(fd)
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", counting_fsync)
    w = TranscriptWriter(p)
    n0 = len(synced)
    prefix = p.read_bytes()
    for i, r in enumerate(RECORDS):
        w.append(r)
        assert len(synced) == n0 + i + 1  # one fsync per record, before append returns
        now = p.read_bytes()
        assert now.startswith(prefix)
        prefix = now
    w.close()
    # reopening a clean file continues after the existing records
    w = TranscriptWriter(p)
    assert w.records == RECORDS and w.repaired is None
    w.close()
    with pytest.raises(ValueError, match="closed"):
        w.append(RECORDS[0])


@pytest.mark.skipif(os.name != "posix", reason="file modes are POSIX")
def test_writer_file_mode(tmp_path: Path) -> None:
    p = tmp_path / "t.splitlog"
    TranscriptWriter(p).close()
    assert stat.S_IMODE(p.stat().st_mode) & ~0o644 == 0


def test_writer_refuses_bad_records(tmp_path: Path) -> None:
    with TranscriptWriter(tmp_path / "t") as w:
        for bad in (b"", b"x" * (1 << 20), "str"):
            with pytest.raises(ValueError):
                w.append(bad)  # type: ignore[arg-type]


@pytest.mark.skipif(os.name != "posix", reason="flock is POSIX")
def test_one_writer_at_a_time(tmp_path: Path) -> None:
    p = tmp_path / "t"
    with TranscriptWriter(p), pytest.raises(TranscriptError, match="another process"):
        TranscriptWriter(p)
    TranscriptWriter(p).close()  # released on close


# ---------------------------------------------------------------- torn tails


@pytest.mark.parametrize(
    "tail",
    [
        b"\x00",  # 1 of 4 length bytes
        len(RECORDS[1]).to_bytes(4, "big")[:3],
        len(RECORDS[1]).to_bytes(4, "big"),  # length, no body
        len(RECORDS[1]).to_bytes(4, "big") + RECORDS[1][:1],
        len(RECORDS[1]).to_bytes(4, "big") + RECORDS[1][:-1],  # one byte short
        bytes(4096),  # zero-filled blocks after a crash
        len(RECORDS[1]).to_bytes(4, "big") + bytes(40),
    ],
)
def test_torn_tail_detected_and_repaired(tmp_path: Path, tail: bytes) -> None:
    p = tmp_path / "t"
    good = _file(RECORDS[:4])
    p.write_bytes(good + tail)
    with pytest.raises(TornTail) as ei:
        read_transcript(p)
    assert (ei.value.offset, ei.value.index) == (len(good), 4)
    assert ei.value.records == RECORDS[:4]
    with pytest.raises(TornTail):
        load_log(p)
    with pytest.raises(TornTail):
        TranscriptWriter(p)  # plain open refuses: appending after a torn tail would corrupt
    assert p.read_bytes() == good + tail
    assert read_transcript(p, repair=True) == RECORDS[:4]  # reading never modifies
    assert p.read_bytes() == good + tail
    assert len(load_log(p, repair=True)) == 4

    with TranscriptWriter.open_existing(p) as w:
        assert w.repaired is not None and f"cut {len(tail)} bytes" in w.repaired
        assert w.records == RECORDS[:4]
        assert p.read_bytes() == good
        for r in RECORDS[4:]:
            w.append(r)
    assert load_log(p).head() == LOG.head()


@pytest.mark.parametrize("content", [b"", b"SPLIT", MAGIC[:-1], bytes(5)])
def test_torn_magic(tmp_path: Path, content: bytes) -> None:
    p = tmp_path / "t"
    p.write_bytes(content)
    with pytest.raises(TornTail):
        read_transcript(p)
    assert read_transcript(p, repair=True) == []
    with TranscriptWriter.open_existing(p) as w:
        assert w.repaired is not None
        w.append(RECORDS[0])
    assert read_transcript(p) == RECORDS[:1]


def test_open_existing_leaves_a_clean_file_alone(tmp_path: Path) -> None:
    p = tmp_path / "t"
    p.write_bytes(_file(RECORDS))
    with TranscriptWriter.open_existing(p) as w:
        assert w.repaired is None and w.records == RECORDS
    assert p.read_bytes() == _file(RECORDS)
    with pytest.raises(FileNotFoundError):
        TranscriptWriter.open_existing(tmp_path / "missing")


@pytest.mark.parametrize(
    ("make", "offset_index"),
    [
        # the last record's length inflated by one: the bytes after it form a complete
        # record, so this is corruption, never a torn tail to cut off
        (lambda: _file(RECORDS[:-1]) + (len(RECORDS[-1]) + 1).to_bytes(4, "big")
         + RECORDS[-1], (-1, len(RECORDS) - 1)),
        (lambda: _file(RECORDS[:2]) + (0x7FFFFFFF).to_bytes(4, "big") + b"xx", (-1, 2)),
        (lambda: _file(RECORDS[:2]) + bytes(4) + RECORDS[2], (-1, 2)),
        (lambda: b"SPLITLOG/2\n" + _file(RECORDS)[len(MAGIC):], (0, 0)),
        (lambda: b"#!/bin/sh\n", (0, 0)),
        (lambda: _file(RECORDS[:2]) + (300).to_bytes(4, "big") + b"\xc1garbage", (-1, 2)),
    ],
)
def test_corruption_is_never_repaired(
    tmp_path: Path, make: object, offset_index: tuple[int, int]
) -> None:
    p = tmp_path / "t"
    data = make()  # type: ignore[operator]
    p.write_bytes(data)
    for call in (read_transcript, lambda q: read_transcript(q, repair=True), load_log,
                 TranscriptWriter.open_existing):
        with pytest.raises(TranscriptError) as ei:
            call(p)
        assert not isinstance(ei.value, TornTail)
        assert ei.value.index == offset_index[1]
        assert "at byte" in str(ei.value)
    assert p.read_bytes() == data


def test_load_log_names_record_and_seat(tmp_path: Path) -> None:
    p = tmp_path / "t"
    bad = [*RECORDS[:3], RECORDS[4]]  # record 3 missing: record 4 has the wrong seq
    p.write_bytes(_file(bad))
    with pytest.raises(TranscriptError) as ei:
        load_log(p)
    offset = len(_file(RECORDS[:3]))
    assert (ei.value.index, ei.value.offset, ei.value.seat) == (3, offset, 0)
    assert "seq" in str(ei.value)


# ---------------------------------------------------------------- tampering


def _fails(tmp_path: Path, data: bytes) -> None:
    p = tmp_path / "tampered"
    p.write_bytes(data)
    with pytest.raises(TranscriptError):
        load_log(p)


SETTINGS = settings(max_examples=300, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])


@SETTINGS
@given(st.data())
def test_any_flipped_byte_fails(tmp_path: Path, data: st.DataObject) -> None:
    f = _file(RECORDS)
    i = data.draw(st.integers(0, len(f) - 1), label="offset")
    mask = data.draw(st.integers(1, 255), label="xor")
    _fails(tmp_path, f[:i] + bytes([f[i] ^ mask]) + f[i + 1 :])


@SETTINGS
@given(st.integers(0, len(RECORDS) - 2))
def test_any_dropped_record_fails(tmp_path: Path, i: int) -> None:
    _fails(tmp_path, _file(RECORDS[:i] + RECORDS[i + 1 :]))


def test_dropping_the_last_record_gives_a_shorter_valid_log(tmp_path: Path) -> None:
    """Documented limit: a file that ends on a record boundary is a valid prefix."""
    p = tmp_path / "t"
    p.write_bytes(_file(RECORDS[:-1]))
    assert load_log(p).head() == LOG.hash_at(len(RECORDS) - 2)


@SETTINGS
@given(st.permutations(range(len(RECORDS))))
def test_any_reordering_fails(tmp_path: Path, order: list[int]) -> None:
    if order == sorted(order):
        return
    _fails(tmp_path, _file([RECORDS[i] for i in order]))


@SETTINGS
@given(
    st.integers(0, len(RECORDS)),
    st.sampled_from(RECORDS + FOREIGN + [b"\x92\xc4\x00\xc4\x40" + bytes(64)]),
)
def test_any_inserted_record_fails(tmp_path: Path, at: int, extra: bytes) -> None:
    _fails(tmp_path, _file([*RECORDS[:at], extra, *RECORDS[at:]]))
