"""The final acks a host keeps (``GAME_ID.acks``, protocol/NETWORK.md §6 and §9): the
file format against its vector, a torn or bad file, and a restarted host that goes by
what is on file — only the acks that check against its log count."""

from __future__ import annotations

import asyncio
import json
import os
import stat
from pathlib import Path

import pytest

from splitnet.app.lan_session import NetSession
from splitnet.games.split.bots import make_bot
from splitnet.net.host import HostNode
from splitnet.net.store import (
    GameFiles,
    append_final_ack,
    read_final_acks,
    read_meta,
    unfinished_games,
)
from splitnet.session.identity import Identity
from splitnet.session.log import make_ack
from tests.test_attacks_net import Lan, net
from tests.virtual_time import LIMIT, VirtualLoop, virtual_time, within

VECTORS = Path(__file__).parent / "vectors" / "session_v1.json"


def test_the_file_format_matches_its_vector(tmp_path: Path) -> None:
    ack = bytes.fromhex(json.loads(VECTORS.read_text())["ack_by_seat_2"])
    path = tmp_path / "g.acks"
    append_final_ack(path, ack)
    assert path.read_bytes() == bytes.fromhex("0000008d") + ack  # NETWORK.md §9
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    append_final_ack(path, ack[:-1] + b"\x00")
    assert read_final_acks(path) == [ack, ack[:-1] + b"\x00"]  # unverified candidates


def test_a_torn_or_bad_file_gives_what_precedes_the_damage(tmp_path: Path) -> None:
    path = tmp_path / "g.acks"
    assert read_final_acks(path) == []  # no file: nobody confirmed yet
    append_final_ack(path, b"a" * 10)
    whole = path.read_bytes()
    path.write_bytes(whole + (50).to_bytes(4, "big") + b"cut")  # a write cut by a kill
    assert read_final_acks(path) == [b"a" * 10]
    path.write_bytes(whole + bytes(4) + whole)  # a zero length: nothing after it counts
    assert read_final_acks(path) == [b"a" * 10]
    path.write_bytes(whole + (513).to_bytes(4, "big") + b"x" * 513)  # over an ack's bound
    assert read_final_acks(path) == [b"a" * 10]
    with pytest.raises(ValueError, match="an ack is 1–512 bytes"):
        append_final_ack(path, b"x" * 513)
    with pytest.raises(ValueError):
        append_final_ack(path, b"")


@virtual_time
async def test_a_restarted_host_counts_only_acks_that_check_against_its_log(
        tmp_path: Path, clock: VirtualLoop, caplog: pytest.LogCaptureFixture) -> None:
    """A whole game in this process: the host keeps both joiners' final acks. Restarted on
    that log with the file as it was, it ends at once (``final_wait`` is 600 s); with
    seat 2's ack replaced by one of another head, it counts seat 1 only and waits for
    seat 2 (with a warning naming the file), the bad ack ignored."""
    patient = net(final_wait=600.0)
    host = HostNode(Identity.generate(), tmp_path / "p0", "Host", patient, seats=3, proofs=False)
    lan = await Lan.start(tmp_path, host, peer_net=patient)
    again: list[HostNode] = []
    try:
        sessions = [NetSession(host, asyncio.ensure_future(host.done.wait()),
                               bot=make_bot("heuristic", 0))]
        sessions += [NetSession(p, t, bot=make_bot("heuristic", i + 1))
                     for i, (p, t) in enumerate(zip(lan.peers, lan.tasks, strict=True))]
        await within(asyncio.gather(*(s.run() for s in sessions)), LIMIT * 4)
        assert host.done.is_set() and host.table is not None
        table = host.table
        last = len(table.log) - 1
        files = GameFiles(tmp_path / "p0", table.game_id)
        kept = read_final_acks(files.acks)
        assert sorted(table.log.check_ack(a).seat for a in kept) == [1, 2]
        assert all(table.log.check_ack(a).seq == last for a in kept)
        for p in lan.peers:
            assert p.unconfirmed() == []
        await host.close()
        await asyncio.gather(*lan.tasks, return_exceptions=True)

        meta = files.load_meta()
        meta.finished = False  # as a kill before the host marked it leaves it
        files.save_meta(meta)
        node = HostNode.resume(host.identity, tmp_path / "p0",
                               unfinished_games(tmp_path / "p0", "host")[0], patient)
        again.append(node)
        back = clock.time()
        await within(node.done.wait())
        assert clock.time() - back < 1.0  # at once: nobody to wait for, not final_wait
        await node.close()
        assert read_meta(files.meta).finished

        bo = lan.peers[1]
        wrong = make_ack(bo.identity, table.game_id, last, bytes(32), seat=2)
        ana_ack = next(a for a in kept if table.log.check_ack(a).seat == 1)
        files.acks.write_bytes(b"")
        append_final_ack(files.acks, ana_ack)
        append_final_ack(files.acks, wrong)
        meta.finished = False
        files.save_meta(meta)
        node = HostNode.resume(host.identity, tmp_path / "p0", meta, patient)
        again.append(node)
        assert node.missing_final_acks() == [2]
        assert "ignored seat 2's ack of seq" in caplog.text
        await clock.advance(599.0)
        assert not node.done.is_set()  # seat 2 has not confirmed: it is waited for …
        await within(node.done.wait())  # … final_wait (600 s), then named
        assert "no final ack from Bo" in caplog.text
    finally:
        for h in again:
            await h.close()
        for t in lan.tasks:
            t.cancel()
        await asyncio.gather(*lan.tasks, return_exceptions=True)
