"""The proof pool's processes (splitnet/game/pool.py) end with the peer that started
them, however it ends: ``kill -9`` of ``splitnet play`` left its two check workers and
the multiprocessing resource tracker running for good, and when they finally ended the
tracker printed its "leaked semaphore" warning over whatever full-screen table ran in
that terminal. A pool whose worker dies still gives every verdict (checked in the
caller's thread)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from splitnet.crypto.deck import HopCheck
from splitnet.game.checks import check_hop
from splitnet.game.pool import ProofPool
from tests.test_deck_helpers import GID
from tests.test_pipeline import _chain

LINUX = sys.platform.startswith("linux")


def children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (Linux: from /proc)."""
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(entry.name))
    return out


def alive(pid: int) -> bool:
    """Is ``pid`` a running process (not gone, not a zombie waiting to be reaped)?"""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def poll(pred: Callable[[], bool], within: float) -> bool:
    """``pred()`` checked until it holds, for at most ``within`` seconds."""
    end = time.monotonic() + within
    while not pred():
        if time.monotonic() > end:
            return False
        time.sleep(0.05)
    return True


@pytest.mark.skipif(not LINUX, reason="reads /proc")
def test_kill_9_of_a_peer_ends_its_workers_helper_and_resource_tracker(
        tmp_path: Path) -> None:
    """``splitnet play`` (shuffle proofs on: its pool of check workers and its helper
    run from the first deal) is killed with SIGKILL, which runs no clean-up: every
    process it started is gone soon after, and nothing is printed."""
    out, err = tmp_path / "out", tmp_path / "err"
    with out.open("wb") as o, err.open("wb") as e:
        peer = subprocess.Popen(
            [sys.executable, "-m", "splitnet.cli", "play", "--plain", "--bots", "1",
             "--data-dir", str(tmp_path / "data")],
            stdin=subprocess.PIPE, stdout=o, stderr=e)
    try:
        assert poll(lambda: "Round 1" in out.read_text(errors="replace")
                    or peer.poll() is not None, 120), "no table"
        assert peer.poll() is None, err.read_text()
        helpers = children(peer.pid)
        # the check workers (one per core), the helper with two cores, and the tracker
        assert len(helpers) >= 2, helpers
        assert all(alive(p) for p in helpers)
        peer.send_signal(signal.SIGKILL)
        peer.wait(10)
        assert poll(lambda: not any(alive(p) for p in helpers), 10), [
            Path(f"/proc/{p}/cmdline").read_bytes() for p in helpers if alive(p)]
    finally:
        if peer.poll() is None:
            peer.kill()
        assert peer.stdin is not None
        peer.stdin.close()
    said = err.read_text(errors="replace")
    assert "resource_tracker" not in said and "leaked" not in said, said


def test_a_pool_whose_worker_is_killed_still_gives_every_verdict() -> None:
    """A worker killed between checks breaks the pool: the checks already asked for and
    every later one are checked in the caller's thread, with the same verdicts."""
    peers, obs = _chain(2)
    obs.on_shuffle(0, peers[0].shuffle_message(), defer=True)
    good = obs.unchecked_hops()[0]
    bad = HopCheck(good.seat, good.context, good.joint_key, good.inputs,
                   good.outputs[1:] + good.outputs[:1], good.proof)
    pool = ProofPool(workers=2, helper=False).start()
    try:
        assert pool.submit(GID, good).result() is None  # in the workers
        pids = pool.pids()
        assert len(pids) == 2
        os.kill(pids[0], signal.SIGKILL)
        assert poll(lambda: not alive(pids[0]), 10)
        verdicts = [pool.submit(GID, h) for h in (good, bad, good)]
        assert [v.result() for v in verdicts] == [None, check_hop(GID, bad), None]
        assert check_hop(GID, bad) is not None
    finally:
        pool.close()
    assert poll(lambda: not any(alive(p) for p in pids), 10)
