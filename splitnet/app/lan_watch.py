"""``splitnet watch ADDR[:PORT]``: follow a LAN game as a spectator (protocol/NETWORK.md
§14), checking every record as it arrives exactly as ``splitnet verify`` does, and
telling only what is public — at a terminal the full-screen table from above
(:mod:`splitnet.ui.tui.watch_app`), else (``--plain``, a pipe) a line per event, the
game's own narration for a viewer who holds no seat. At the end: the results and each
round's audit (verify's verdict) and the path of the saved transcript. A bad record
stops it at once with that verdict; run the same command again after a drop or a kill
and it goes on from its file."""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

from splitnet.app.lan_common import (
    _ask_code,
    _data_dir,
    _net_settings,
    _setup_logging,
)
from splitnet.frontends import front_end
from splitnet.games import game_of
from splitnet.net.addrs import parse_addr
from splitnet.net.config import NetSettings
from splitnet.net.table import Narration, TableParts
from splitnet.net.watcher import WatchFatal, WatchNode, watch_wrap
from splitnet.net.wire import Channel, StreamChannel
from splitnet.text import shown
from splitnet.verify import EXIT_FAILED, EXIT_INCOMPLETE, EXIT_OK, LiveVerifier

__all__ = ["WatchTeller", "watch_main"]


class WatchTeller:
    """The checker and the narration of one watched game: :meth:`check` is the
    :class:`WatchNode`'s check (verify's, record by record), :meth:`told` the lines for
    each record that checked out — as the seats' own narrators tell them, for a viewer
    of no seat, so nothing that is not public can be told."""

    def __init__(self) -> None:
        self.verifier = LiveVerifier()
        self.narrator: Narration | None = None

    def check(self, record: bytes) -> str | None:
        failed = self.verifier.feed(record)
        return None if failed is None else failed.summary

    def told(self, seq: int) -> list[str]:
        v = self.verifier
        entry = v.log.entries[seq]
        core: Any = v.core
        if seq == 0:
            h = v.log.header
            names = [shown(p.name, limit=64) for p in h.players]
            spec = game_of(h.settings)
            told = front_end(spec).narrator  # (a game without one: its entries untold)
            self.narrator = told(names, None) if told is not None else None
            return [f"Watching game {v.log.game_id.hex()}: {spec.title}, "
                    f"{len(names)} players: {', '.join(names)}"]
        if core is None or self.narrator is None or entry.kind == "accept":
            return []
        news = self.narrator.after_entry(core, entry.author, entry.kind, entry.body)
        return list(news.lines)  # (a verdict line is among them already)


def _screen(args: argparse.Namespace, teller: WatchTeller) -> Any:
    """The full-screen table (:mod:`splitnet.ui.tui.watch_app`) at a terminal, else None."""
    from splitnet.ui.tui.watch_app import watch_screen

    return watch_screen(args, teller)


def tcp_connect(host: str, port: int, net: NetSettings) -> Any:
    async def connect() -> Channel:
        async with asyncio.timeout(net.connect_timeout):
            reader, writer = await asyncio.open_connection(host, port, limit=1 << 20)
        return StreamChannel(reader, writer, max_buffer=net.max_send_buffer)
    return connect


async def watch_main(args: argparse.Namespace, parts: TableParts | None = None) -> int:
    """``splitnet watch``: 0 a finished game that verified, 1 a bad record or a refusal,
    3 the host went away before the end (everything so far verified)."""
    data_dir = _data_dir(args)
    net = _net_settings(args.net_timing)
    _setup_logging("watch", None if args.plain else data_dir / "net.log")
    teller = WatchTeller()
    screen = None if args.plain else _screen(args, teller)  # None: a line per event
    host, port = parse_addr(args.addr)
    code = _ask_code(args.code, "Watch code (the host shows it beside the join code): ",
                     what="watch code")

    def say(seq: int, _record: bytes) -> None:
        if screen is not None:
            screen.on_record(seq)
            return
        for line in teller.told(seq):
            print(line, flush=True)

    node = WatchNode(data_dir, args.name, tcp_connect(host, port, net), check=teller.check,
                     wrap=watch_wrap(code, net), net=net, on_record=say)
    print(f"Watching the game at {shown(args.addr, limit=80)} …", flush=True)
    rc = EXIT_OK
    try:
        await (node.run() if screen is None else screen.follow(node))
    except WatchFatal as e:
        print(f"splitnet watch: {shown(str(e), limit=600)}", file=sys.stderr, flush=True)
        rc = EXIT_FAILED
    v = teller.verifier.verdict()
    if node.failed is None and len(teller.verifier.log):
        print(v.summary, flush=True)
        if not v.ok:
            rc = EXIT_INCOMPLETE if v.incomplete else EXIT_FAILED
    if node.path is not None:
        print(f"Transcript: {node.path}  (splitnet verify / splitnet replay read it)",
              flush=True)
    return rc
