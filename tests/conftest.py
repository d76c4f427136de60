"""Suite-wide isolation: tests that announce or browse games over mDNS run inside a
network namespace of their own.

A test marked ``@pytest.mark.netns`` is about LAN announcements. Run on the machine's
own loopback it would see every other splitnet game announced there (and be seen by
them), so its result would depend on what else runs on the machine. Instead the test is
run again by a child pytest inside a fresh network namespace that holds nothing but its
own loopback interface (``ip netns add`` + ``ip netns exec``); the outer test passes or
fails with the child. Where namespaces cannot be made (not Linux, not root, no
iproute2, a kernel that refuses), the test is skipped with the reason — never run on
the shared loopback.

Every test also keeps its saved games (``splitnet play`` saves as it plays) in a
temporary data directory of its own (``XDG_DATA_HOME``), never in the user's.

Under ``--dist worksteal`` the slowest tests (tests/slowest.txt) are put first in each
worker's share of the suite, one each in turn, so the run does not end on a long test
begun last; tests that share a module-scoped fixture or event loop keep their place.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.forks import handed_out, shuffle_proofs_checked_once

INSIDE = "SPLITNET_TEST_NETNS"  # set in the child: "this process owns its namespace"
CHILD_TIMEOUT = 180.0  # seconds; a child that runs longer is killed and the test fails
ROOT = Path(__file__).resolve().parent.parent


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "netns: announces or browses over mDNS; runs in a private network "
                   "namespace (skipped where none can be made)")


def _shares_its_module(item: pytest.Item) -> bool:
    """A fixture (or an event loop) set up once for the tests of a module or class: moved
    away from them, the test would set it up again (or not be allowed to)."""
    info = getattr(item, "_fixtureinfo", None)
    if info is not None:
        for defs in info.name2fixturedefs.values():
            if any(d.scope not in ("function", "session") for d in defs):
                return True
    marker = item.get_closest_marker("asyncio")
    scope = None if marker is None else marker.kwargs.get("loop_scope")
    return scope not in (None, "function", "session")


@pytest.hookimpl(optionalhook=True)  # pytest-xdist's, in the main process, per worker
def pytest_configure_node(node: Any) -> None:
    node.workerinput["splitnet_dist"] = node.config.getoption("dist")  # "no" in a worker


@pytest.hookimpl(trylast=True)  # after -k/-m have deselected: the items that will run
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """worksteal gives each of its N workers one contiguous N-th of the items, each runs
    its own from the front and an idle one takes the back half of the longest: the k-th
    slowest test goes to the front of share k mod N."""
    workerinput = getattr(config, "workerinput", None)
    if workerinput is None or workerinput.get("splitnet_dist") != "worksteal":
        return
    workers = int(workerinput["workercount"])
    rank = {name: i for i, name in enumerate(
        line.strip() for line in (ROOT / "tests" / "slowest.txt").read_text().splitlines()
        if line.strip() and not line.startswith("#"))}
    slow = sorted((it for it in items if it.nodeid in rank and not _shares_its_module(it)),
                  key=lambda it: rank[it.nodeid])
    if workers < 2 or not slow:
        return
    moved = {id(it) for it in slow}
    rest = iter([it for it in items if id(it) not in moved])
    shares: list[list[pytest.Item]] = [[] for _ in range(workers)]
    for k, it in enumerate(slow):
        shares[k % workers].append(it)
    left = len(items)
    for w, share in enumerate(shares):  # the sizes worksteal cuts: len // workers left
        size = left // (workers - w)
        left -= size
        share.extend(next(rest) for _ in range(size - len(share)))
    items[:] = [it for share in shares for it in share] + list(rest)  # (none left)


@pytest.fixture(autouse=True)
def _own_data_dir(tmp_path_factory: pytest.TempPathFactory,
                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path_factory.mktemp("xdg-data")))


@pytest.fixture
def each_shuffle_proof_checked_once() -> Iterator[set[tuple[Any, ...]]]:
    """Within one test, a shuffle proof already accepted for exactly these arguments is not
    checked again (a module opts in with ``pytestmark = pytest.mark.usefixtures(...)``).

    An in-process game has every peer's core check every other seat's hop, and the test
    then verifies the transcript, which checks each hop once more: the same proof of the
    same decks, n times or more. Only a success is remembered, keyed by every argument of
    ``verify_shuffle`` (context, joint key, inputs, outputs, proof, game), so each distinct
    proof is still checked in full the first time, any hop that differs in a single byte
    is checked afresh, and a refusal is never remembered; nothing outlives the test. Not
    for tests about the proof itself or about which peer checks what."""
    with shuffle_proofs_checked_once() as accepted:
        yield accepted


@pytest.fixture(scope="module")
def _splito_at_play_once() -> tuple[Any, frozenset[tuple[Any, ...]]]:
    """tests/test_splito_fair.py's ``new_game(3)`` played once per module up to the first
    moment of play (its keys, both decks' shuffles with proofs and the deal: 0.55 s of
    CPU), with the shuffle proofs its peers checked on the way. No seat has chosen
    anything yet, so ``run_until`` from here goes exactly where it goes from the start
    (its bots first choose in play)."""
    from splitnet.games.splito.core import Stage
    from tests.test_splito_fair import new_game, run_until

    with shuffle_proofs_checked_once() as proven:
        game = new_game(3)
        run_until(game, lambda g: g.cores[0].stage is Stage.PLAY)
        return game, frozenset(proven)


@pytest.fixture
def splito_at_play(_splito_at_play_once: tuple[Any, frozenset[tuple[Any, ...]]],
                   each_shuffle_proof_checked_once: set[tuple[Any, ...]]) -> Iterator[Any]:
    """A copy of that game of the test's own (the module's is checked untouched after),
    the proofs checked on the way to it known to the test's memo."""
    game, proven = _splito_at_play_once
    each_shuffle_proof_checked_once.update(proven)
    yield from handed_out(game, game)


def _ip(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["ip", *args], capture_output=True, text=True, timeout=10)


def _why_no_netns() -> str | None:
    if not sys.platform.startswith("linux"):
        return "network namespaces are a Linux feature"
    if os.geteuid() != 0:
        return "creating network namespaces needs root"
    if shutil.which("ip") is None:
        return "the 'ip' command (iproute2) is not installed"
    return None


class _Namespace:
    """A fresh namespace with only ``lo`` (up), deleted on exit."""

    def __init__(self, tag: str) -> None:
        self.name = f"sntest-{os.getpid() % 100000}-{tag}"

    def __enter__(self) -> _Namespace:
        _ip("netns", "del", self.name)
        made = _ip("netns", "add", self.name)
        if made.returncode != 0:
            pytest.skip(f"'ip netns add' is not available here: {made.stderr.strip()}")
        up = _ip("-n", self.name, "link", "set", "lo", "up")
        if up.returncode != 0:
            self.__exit__()
            pytest.skip(f"could not bring up lo in a namespace: {up.stderr.strip()}")
        return self

    def __exit__(self, *exc: object) -> None:
        _ip("netns", "del", self.name)


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> bool | None:
    if pyfuncitem.get_closest_marker("netns") is None or os.environ.get(INSIDE):
        return None  # an ordinary test, or already inside its own namespace
    why = _why_no_netns()
    if why is not None:
        pytest.skip(why)
    tag = f"{abs(hash(pyfuncitem.nodeid)) % 10**6}"
    with _Namespace(tag) as ns:
        env = {**os.environ, INSIDE: ns.name, "PYTHONUNBUFFERED": "1"}
        cmd = ["ip", "netns", "exec", ns.name, sys.executable, "-m", "pytest", "-q",
               "-p", "no:cacheprovider", "--no-header", "-rfEs", pyfuncitem.nodeid]
        try:
            res = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True,
                                 timeout=CHILD_TIMEOUT)
        except subprocess.TimeoutExpired as e:
            out = e.stdout if isinstance(e.stdout, str) else ""
            pytest.fail(f"in namespace {ns.name}: no result within {CHILD_TIMEOUT:.0f} s\n"
                        f"{out[-4000:]}", pytrace=False)
    if res.returncode == 0 and " passed" in res.stdout:
        return True
    if res.returncode == 0 and " skipped" in res.stdout:
        pytest.skip(f"skipped inside its namespace: {res.stdout.strip().splitlines()[-1]}")
    pytest.fail(f"failed inside network namespace {ns.name} (exit {res.returncode}):\n"
                f"{res.stdout[-6000:]}\n{res.stderr[-2000:]}", pytrace=False)
    return None  # not reached
