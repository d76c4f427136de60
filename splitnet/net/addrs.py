"""Addresses: what a host prints for others to join, and parsing ``ADDR[:PORT]``."""

from __future__ import annotations

import contextlib
import socket
import struct
import sys

from splitnet.net.config import DEFAULT_PORT


def parse_addr(text: str, default_port: int = DEFAULT_PORT) -> tuple[str, int]:
    """``"192.168.1.20:7420"`` → (host, port); ``"[fe80::1]:7420"``, ``"host"`` too.

    >>> parse_addr("10.0.0.2"), parse_addr("10.0.0.2:99"), parse_addr("[::1]:5")
    (('10.0.0.2', 7420), ('10.0.0.2', 99), ('::1', 5))
    """
    text = text.strip()
    if text.startswith("["):
        host, _, rest = text[1:].partition("]")
        port = int(rest[1:]) if rest.startswith(":") else default_port
    elif text.count(":") == 1:
        host, p = text.split(":")
        port = int(p)
    else:
        host, port = text, default_port
    if not host or not 0 < port < 65536:
        raise ValueError(f"not an address: {text!r} (expected ADDR or ADDR:PORT)")
    return host, port


def _linux_ipv4(name: str) -> str | None:
    import fcntl

    SIOCGIFADDR = 0x8915
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        packed = struct.pack("256s", name.encode()[:15])
        res = fcntl.ioctl(s.fileno(), SIOCGIFADDR, packed)
        return socket.inet_ntoa(res[20:24])
    except OSError:
        return None
    finally:
        s.close()


def local_addresses() -> list[str]:
    """Every IPv4 address of this machine's interfaces, non-loopback first, then
    127.0.0.1."""
    found: list[str] = []
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError):
            for _, name in socket.if_nameindex():
                a = _linux_ipv4(name)
                if a and a not in found:
                    found.append(a)
    if not any(not a.startswith("127.") for a in found):
        with contextlib.suppress(OSError):  # the address of the default route
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            try:
                s.connect(("192.0.2.1", 9))  # TEST-NET-1: nothing is sent
                a = s.getsockname()[0]
                if a not in found:
                    found.append(a)
            finally:
                s.close()
        with contextlib.suppress(OSError):
            for a in socket.gethostbyname_ex(socket.gethostname())[2]:
                if a not in found:
                    found.append(a)
    outer = [a for a in found if not a.startswith("127.") and a != "0.0.0.0"]
    return outer + ["127.0.0.1"]


#: the ``bind`` addresses that listen on every address of this machine
WILDCARD = ("", "0.0.0.0", "::")


def join_addresses(bind: str, port: int) -> list[str]:
    """What to tell the other players: ``ADDR:PORT`` for each address they can use."""
    if bind in WILDCARD:
        addrs = local_addresses()
    else:
        addrs = [bind]
    return [host_port(a, port) for a in addrs]


def host_port(host: str, port: int) -> str:
    """``HOST:PORT``, an IPv6 address in brackets (``[::1]:7420``), as :func:`parse_addr`
    reads it back."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
