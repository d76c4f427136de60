"""Network layer: asyncio TCP between peers — length-prefixed frames with a hard size cap
(:mod:`.framing`), strict decoding, heartbeats, timeouts, bounded queues, reconnect. It
hands messages to the session layer and owns no game logic (``protocol/WIRE.md``)."""
