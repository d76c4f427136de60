"""``splitnet watch ADDR[:PORT]`` on the LAN and ``splitnet watch CODE`` across the
internet (a host's watch invitation, NETWORK.md §14.8): follow a game as a spectator
(protocol/NETWORK.md §14), checking every record as it arrives exactly as ``splitnet
verify`` does, and telling only what is public — at a terminal the full-screen table
from above (:mod:`splitnet.ui.tui.watch_app`), else (``--plain``, a pipe) a line per
event, the game's own narration for a viewer who holds no seat. The host's key
fingerprint is shown as it first answers (``--host-key`` pins it). At the end: the
results and each round's audit (verify's verdict) and the path of the saved transcript.
A bad record stops it at once with that verdict; run the same command again after a
drop or a kill and it goes on from its file (through a watch invitation: on the resume
wormhole its first meeting gave)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from splitnet.app.lan_common import (
    _ask_code,
    _data_dir,
    _net_settings,
    _setup_logging,
    _wormhole_settings,
)
from splitnet.app.lan_invite import reworded
from splitnet.frontends import front_end
from splitnet.games import game_of
from splitnet.net import wormhole
from splitnet.net.addrs import parse_addr
from splitnet.net.config import NetSettings, is_wormhole_code
from splitnet.net.joincode import JoinCodeError, parse_code
from splitnet.net.store import ResumeFile
from splitnet.net.table import Narration, TableParts
from splitnet.net.watcher import WatchFatal, WatchNode, watch_wrap
from splitnet.net.wire import Channel, ChannelWrap, Connect, ErrorCode, StreamChannel, WireError
from splitnet.session.identity import fingerprint
from splitnet.text import shown
from splitnet.verify import EXIT_FAILED, EXIT_INCOMPLETE, EXIT_OK, LiveVerifier

__all__ = ["WatchTeller", "watch_invitation_file", "watch_main", "wormhole_link"]


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
        try:
            news = self.narrator.after_entry(core, entry.author, entry.kind, entry.body)
        except Exception as e:  # (records that check out but that it cannot tell)
            self.narrator = None  # told no more; every record is still checked
            return [f"(this game's narration stopped at record {seq}: {type(e).__name__};"
                    f" every record is still checked)"]
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


def watch_invitation_file(data_dir: Path, code: str) -> ResumeFile:
    """``DATA_DIR/watched/invite-H.wormhole``: the resume secret a watch invitation
    gave (H: the first 32 hex digits of SHA-256 of ``"splitnet/v1/watch-invitation-file"``
    ‖ 0x00 ‖ the code), so the same command meets the host again on its next resume
    wormhole — the invitation itself is spent (NETWORK.md §14.8)."""
    h = hashlib.sha256(b"splitnet/v1/watch-invitation-file\0" + code.strip().encode())
    return ResumeFile(data_dir / "watched" / f"invite-{h.hexdigest()[:32]}.wormhole")


def _lan_hint(code: str) -> str:
    """A failed watch invitation that has the form of a LAN watch code: say how that one
    is used (with the host's address), since it is no wormhole code."""
    try:
        parse_code(code)
    except JoinCodeError:
        return ""
    return (f" — if {code} is the host's watch code (for the LAN), give it with the "
            f"host's address: splitnet watch ADDR --code {code}")


async def _refuse_plain(channel: Channel, role: str) -> Channel:
    raise WireError(ErrorCode.AUTH, "not a wormhole channel", fatal=True)


def wormhole_link(args: argparse.Namespace, data_dir: Path, net: NetSettings,
                  note: Callable[[str], None] | None = None
                  ) -> tuple[Connect, ChannelWrap, wormhole.WormholeConnector]:
    """A watcher's way in through the watch invitation ``args.addr``: its connect (a
    :class:`~splitnet.net.wormhole.WormholeConnector` whose final failures stop the
    watcher) and its wrap (the watch code's handshake with the wormhole's agreed key as
    the watch code, SECURE.md §12). Run again, it takes the resume secret the first
    meeting left and never tries the spent invitation."""
    settings = _wormhole_settings(args, net, data_dir)
    resume = watch_invitation_file(data_dir, args.addr)
    try:
        chains = resume.load()
    except ValueError as e:
        raise SystemExit(f"splitnet watch: {e}") from None
    chain = chains[0] if chains else None
    if chain is not None:
        print("Back to the host through a resume wormhole (this watch invitation was "
              "used before).", flush=True)

    def progress(text: str) -> None:  # (``note``: into the full-screen table's log)
        line = f"splitnet watch: {shown(text, limit=300)}"
        if note is not None:
            note(line)
            return
        print(line, file=sys.stderr, flush=True)

    connector = wormhole.WormholeConnector(None if chain else args.addr, settings,
                                           max_buffer=net.max_send_buffer, resume=resume,
                                           chain=chain, on_progress=progress)

    async def connect() -> Channel:
        try:
            return await connector()
        except wormhole.WormholeFailed as e:  # used, unknown, wrong: no retry helps
            raise WatchFatal(str(e) + _lan_hint(args.addr)) from None

    wrap = wormhole.per_channel_wrap(lambda pw: reworded(
        watch_wrap(pw, net), "this game cannot be watched",
        f"{args.addr} is not a watch invitation: the host took it for a player's (a join "
        f"invitation lets one player in, never a watcher) — ask the host for its watch "
        f"invitation (it prints 'Watch invitation: splitnet watch …')"), _refuse_plain)
    return connect, wrap, connector


async def watch_main(args: argparse.Namespace, parts: TableParts | None = None) -> int:
    """``splitnet watch``: 0 a finished game that verified, 1 a bad record or a refusal,
    3 the host went away before the end (everything so far verified)."""
    data_dir = _data_dir(args)
    net = _net_settings(args.net_timing)
    _setup_logging("watch", None if args.plain else data_dir / "net.log")
    teller = WatchTeller()
    screen = None if args.plain else _screen(args, teller)  # None: a line per event
    internet = is_wormhole_code(args.addr)
    connector: wormhole.WormholeConnector | None = None
    resuming = False
    if internet:
        if args.code:
            raise SystemExit("splitnet watch: a watch invitation needs no --code (the "
                             "watch code is for watching on the LAN, with the host's "
                             "address)")
        connect, wrap, connector = wormhole_link(
            args, data_dir, net, None if screen is None else screen.note)
        resuming = connector.chain is not None  # (met the host before: it waits for us)
        where = f"invitation {args.addr}"
    else:
        host, port = parse_addr(args.addr)
        code = _ask_code(args.code, "Watch code (the host shows it beside the join code): ",
                         what="watch code")
        connect, wrap, where = tcp_connect(host, port, net), watch_wrap(code, net), args.addr
    pin: str | None = getattr(args, "host_key", None)

    def say(seq: int, _record: bytes) -> None:
        if screen is not None:
            screen.on_record(seq)
            return
        for line in teller.told(seq):
            print(line, flush=True)

    def host_seen(key: bytes) -> None:
        line = f"Host key fingerprint: {fingerprint(key)}" + (
            "  (as --host-key asked)" if pin else
            "  (compare it with the one the host shows; --host-key pins it)")
        if screen is not None:
            screen.note(line)
            return
        print(line, flush=True)

    node = WatchNode(data_dir, args.name, connect, check=teller.check, wrap=wrap, net=net,
                     on_record=say, pin=pin, on_host=host_seen, resuming=resuming)
    print(f"Watching the game at {shown(where, limit=80)} …", flush=True)
    rc = EXIT_OK
    try:
        await (node.run() if screen is None else screen.follow(node))
    except WatchFatal as e:
        print(f"splitnet watch: {shown(str(e), limit=600)}", file=sys.stderr, flush=True)
        rc = EXIT_FAILED
    finally:
        if connector is not None:  # (its wormholes closed while the loop still runs)
            if node.over and connector.resume is not None:  # the game is over: nothing
                with contextlib.suppress(OSError):  # to come back to (a rerun is told the
                    connector.resume.path.unlink(missing_ok=True)  # invitation is spent)
            await connector.close()
            await wormhole.shutdown()
            wormhole.stop_twisted()
    v = teller.verifier.verdict()
    if node.failed is None and len(teller.verifier.log):
        print(v.summary, flush=True)
        if not v.ok:
            rc = EXIT_INCOMPLETE if v.incomplete else EXIT_FAILED
    elif node.failed is None and rc == EXIT_OK:  # stopped before the host's first record
        print("Nothing was watched: no record of the game came before the watch ended.",
              flush=True)
        rc = EXIT_INCOMPLETE
    if node.path is not None:
        print(f"Transcript: {node.path}  (splitnet verify / splitnet replay read it)",
              flush=True)
    return rc
