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
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

INSIDE = "SPLITNET_TEST_NETNS"  # set in the child: "this process owns its namespace"
CHILD_TIMEOUT = 180.0  # seconds; a child that runs longer is killed and the test fails
ROOT = Path(__file__).resolve().parent.parent


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "netns: announces or browses over mDNS; runs in a private network "
                   "namespace (skipped where none can be made)")


@pytest.fixture(autouse=True)
def _own_data_dir(tmp_path_factory: pytest.TempPathFactory,
                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path_factory.mktemp("xdg-data")))


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
