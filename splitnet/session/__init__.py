"""Session layer: the ordered, signed, hash-chained game log (sans-IO).

- :mod:`.codec` — strict canonical msgpack and a small schema checker;
- :mod:`.identity` — a peer's Ed25519 key;
- :mod:`.log` — author messages, host-ordered entries, acks and fork detection;
- :mod:`.transcript` — the log on disk (append + fsync, torn-tail repair).

Byte layouts are specified in ``protocol/TRANSCRIPT.md`` and ``protocol/WIRE.md``.
"""
