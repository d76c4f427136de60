"""The one place splitnet reaches into magic-wormhole's internals: TCP_NODELAY (and, on
Linux, TCP_QUICKACK) on every dilation connection (net/wormhole.py). The pin in
pyproject.toml keeps the patched class as it is; these tests fail loudly the day it
changes shape, instead of internet play silently getting ~88 ms slower a round trip."""

from __future__ import annotations

import re
import socket
from importlib.metadata import version
from pathlib import Path
from typing import Any

from splitnet.net import wormhole


def test_the_pinned_magic_wormhole_is_the_one_installed() -> None:
    pyproject = (Path(__file__).parent.parent / "pyproject.toml").read_text()
    pinned = re.search(r'"magic-wormhole(?:\[[a-z,]+\])?==([0-9.]+)"', pyproject)
    assert pinned is not None, "magic-wormhole is no longer pinned: see net/wormhole.py"
    assert version("magic-wormhole") == pinned.group(1)


def test_the_dilation_class_still_has_the_shape_that_is_patched() -> None:
    cls = wormhole._dilation_protocol()
    assert cls is not None, "magic-wormhole's DilatedConnectionProtocol changed shape"
    assert cls.__name__ == "DilatedConnectionProtocol"


class _Handle:
    def __init__(self) -> None:
        self.options: list[tuple[int, int, int]] = []

    def setsockopt(self, level: int, option: int, value: int) -> None:
        self.options.append((level, option, value))


class _Transport:
    def __init__(self) -> None:
        self.nodelay: list[bool] = []
        self.handle = _Handle()

    def setTcpNoDelay(self, on: bool) -> None:  # (Twisted's name)
        self.nodelay.append(on)

    def getHandle(self) -> _Handle:  # (Twisted's name)
        return self.handle


class _Protocol:
    """A stand-in with the patched methods' shape, recording that they still run."""

    def __init__(self) -> None:
        self.transport = _Transport()
        self.calls: list[Any] = []

    def connectionMade(self) -> None:
        self.calls.append("made")

    def dataReceived(self, data: bytes) -> None:
        self.calls.append(data)


def test_the_patch_sets_nodelay_and_quickack_and_still_runs_the_originals() -> None:
    wormhole._add_nodelay(_Protocol)
    wormhole._add_nodelay(_Protocol)  # once only: the originals are not wrapped twice
    p = _Protocol()
    p.connectionMade()
    p.dataReceived(b"x")
    assert p.calls == ["made", b"x"]
    assert p.transport.nodelay == [True]
    quickack = getattr(socket, "TCP_QUICKACK", None)
    assert p.transport.handle.options == (
        [(socket.IPPROTO_TCP, quickack, 1)] if quickack is not None else [])


def test_a_changed_dilation_class_is_said_once_and_not_patched(monkeypatch: Any,
                                                               caplog: Any) -> None:
    from wormhole._dilation import connection

    class Changed:
        def connectionMade(self, reason: object) -> None:  # a new shape
            pass

        def dataReceived(self, data: bytes) -> None:
            pass

    monkeypatch.setattr(connection, "DilatedConnectionProtocol", Changed)
    assert wormhole._dilation_protocol() is None
    assert "dilation internals changed" in caplog.text
    assert not getattr(Changed, "_splitnet_nodelay", False)
