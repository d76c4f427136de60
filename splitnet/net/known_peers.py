"""Identity keys seen before: ``DATA_DIR/known_peers.json`` (protocol/SECURE.md,
"Known peers").

The join code proves a peer was invited; the identity key (Ed25519, signs its moves)
says who it is across games. Showing "known as Ana" for a key seen before, and "NEW key"
otherwise — loudly when the name was known with another key — lets players notice an
impostor the way ssh's known_hosts does.

>>> peers = KnownPeers(Path("/nonexistent/known_peers.json"))
>>> key = bytes.fromhex("3b6a27bcceb6a42d62a3a8d02a6f0d73653215771de243a63ac048a18b59da29")
>>> peers.describe(key, "Ana")
'NEW key for Ana (fingerprint 139e-3940-e64b-5491-7220): compare it with theirs'
>>> peers.remember(key, "Ana", when="2026-01-01T00:00:00Z")
>>> peers.describe(key, "Ana")
'known as Ana (fingerprint 139e-3940-e64b-5491-7220)'
>>> peers.describe(key, "Bob")
'known as Ana, now calls itself Bob (fingerprint 139e-3940-e64b-5491-7220)'
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Final

from splitnet.durable import atomic_write
from splitnet.errors import SplitnetError
from splitnet.session.identity import default_data_dir, fingerprint
from splitnet.text import shown

__all__ = ["FORMAT", "KNOWN_PEERS_FILE", "KnownPeer", "KnownPeers", "KnownPeersError"]

KNOWN_PEERS_FILE: Final = "known_peers.json"
FORMAT: Final = "splitnet-known-peers/1"
MAX_PEERS: Final = 10_000
#: the largest known-peers file read (10 000 entries of ~200 bytes)
MAX_FILE_BYTES: Final = 4 * 1024 * 1024


class KnownPeersError(SplitnetError):
    """The known-peers file cannot be read (path and reason in words)."""


@dataclass(frozen=True, slots=True)
class KnownPeer:
    key: bytes
    name: str
    first_seen: str
    last_seen: str

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.key)


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _clean(name: str) -> str:
    return shown(name[:32])


def _entry_problem(item: object) -> str | None:
    """What is wrong with one entry of the file, field by field (None: nothing)."""
    if not isinstance(item, dict):
        return "not an object"
    for k in ("key", "name", "first_seen", "last_seen"):
        v = item.get(k)
        if type(v) is not str or len(v) > 256:
            return f"{k!r} must be text of at most 256 characters"
    key = item["key"]
    if len(key) != 64 or any(c not in "0123456789abcdef" for c in key):
        return "'key' must be 64 lowercase hex digits (a 32-byte key)"
    return None


class KnownPeers:
    """The store, in memory; :meth:`load` reads it, :meth:`save` writes it atomically."""

    def __init__(self, path: Path, peers: dict[bytes, KnownPeer] | None = None) -> None:
        self.path = path
        self._peers: dict[bytes, KnownPeer] = dict(peers or {})

    @classmethod
    def default_path(cls, data_dir: Path | None = None) -> Path:
        return (data_dir or default_data_dir()) / KNOWN_PEERS_FILE

    @classmethod
    def load(cls, path: Path | None = None) -> KnownPeers:
        """Read the store; a missing file is an empty store, a damaged one an error."""
        from splitnet.localfiles import LocalFileError, parse_json, read_local

        path = path or cls.default_path()
        if not os.path.lexists(path):
            return cls(path)
        away = "move it away to start afresh"
        try:  # read like a peer's message: bounded, strict JSON, a regular file only
            doc = parse_json(read_local(path, limit=MAX_FILE_BYTES, what="known-peers file"),
                             path, what="known-peers file")
        except LocalFileError as e:
            raise KnownPeersError(f"{e}; {away}") from None
        if (not isinstance(doc, dict) or doc.get("format") != FORMAT
                or not isinstance(doc.get("peers"), list)):
            raise KnownPeersError(f"{path}: not a {FORMAT} file; {away}")
        peers: dict[bytes, KnownPeer] = {}
        for i, item in enumerate(doc["peers"][:MAX_PEERS]):
            why = _entry_problem(item)
            if why is not None:
                raise KnownPeersError(f"{path}: damaged known-peers file (peers[{i}]: "
                                      f"{why}); {away}")
            key = bytes.fromhex(item["key"])
            peers[key] = KnownPeer(key, _clean(item["name"]), item["first_seen"],
                                   item["last_seen"])
        return cls(path, peers)

    def __len__(self) -> int:
        return len(self._peers)

    def lookup(self, key: bytes) -> KnownPeer | None:
        return self._peers.get(key)

    def by_name(self, name: str) -> list[KnownPeer]:
        """Known peers that used *name* (case-insensitive) last time."""
        folded = name.casefold()
        return [p for p in self._peers.values() if p.name.casefold() == folded]

    def describe(self, key: bytes, name: str) -> str:
        """How to show a peer presenting *key* under *name*."""
        name = _clean(name)
        fp = fingerprint(key)
        known = self._peers.get(key)
        if known is not None:
            if known.name == name:
                return f"known as {known.name} (fingerprint {fp})"
            return f"known as {known.name}, now calls itself {name} (fingerprint {fp})"
        others = [p for p in self.by_name(name) if p.key != key]
        if others:
            return (f"NEW key for {name} (fingerprint {fp}) — WARNING: {others[0].name} was "
                    f"known with another key (fingerprint {others[0].fingerprint}); ask them "
                    f"before you trust it")
        return f"NEW key for {name} (fingerprint {fp}): compare it with theirs"

    def remember(self, key: bytes, name: str, *, when: str | None = None) -> None:
        """Record (or refresh) *key* under *name*; call :meth:`save` to keep it."""
        if type(key) is not bytes or len(key) != 32:
            raise ValueError("an identity key is 32 bytes")
        when = when or _now()
        old = self._peers.get(key)
        self._peers[key] = KnownPeer(key, _clean(name), old.first_seen if old else when, when)

    def save(self) -> None:
        """Write the store atomically (0600, directory 0700)."""
        doc = {
            "format": FORMAT,
            "peers": [
                {"key": p.key.hex(), "name": p.name, "first_seen": p.first_seen,
                 "last_seen": p.last_seen}
                for p in sorted(self._peers.values(), key=lambda p: (p.name, p.key))
            ],
        }
        text = json.dumps(doc, indent=1, ensure_ascii=False) + "\n"
        atomic_write(self.path, text.encode("utf-8"), 0o600)
