"""The command lines of ``splitnet host``, ``join`` and ``bot`` (the LAN and internet
commands), apart from :mod:`splitnet.app.lan`, which runs them: parsing and checking
their arguments needs none of the network stack (a third of a second to import), so an
argument that is refused, and ``--help``, cost no more than for the other commands."""

from __future__ import annotations

import argparse
import ipaddress
import math
import re
from collections.abc import Callable
from dataclasses import fields
from typing import Any

from splitnet.cmdline import (
    THINK_HELP,
    data_dir,
    game_prefix,
    int_in,
    local_address,
    output_file,
    player_name,
    port,
    seconds,
    seed,
)
from splitnet.games import FIRST, games
from splitnet.games.split.bots import parse_level
from splitnet.net.addrs import parse_addr
from splitnet.net.config import (
    DEFAULT_PORT,
    PUBLIC_MAILBOX,
    PUBLIC_RELAY,
    NetSettings,
    is_wormhole_code,
)
from splitnet.net.joincode import JoinCodeError, parse_code
from splitnet.text import shown


def parse_net_timing(text: str) -> NetSettings:
    """Each ``K=V``: a field of :class:`NetSettings`, a count 1…10⁹ or a finite number
    of seconds above 0 and at most 10⁹ (a ValueError names the one that is not)."""
    net = NetSettings()
    known = {f.name: f.type for f in fields(NetSettings)}
    for part in text.split(",") if text else []:
        k, _, v = part.partition("=")
        k = k.strip()
        if k not in known:
            raise ValueError(f"unknown timing {shown(repr(k), limit=40)}; one of "
                             f"{', '.join(known)}")
        try:
            x: float = int(v) if known[k] in ("int", int) else float(v)
        except ValueError:
            x = math.nan
        if not (math.isfinite(x) and 0 < x <= 1e9):
            what = "count" if known[k] in ("int", int) else "number of seconds"
            raise ValueError(f"{k} must be a {what} above 0 and at most 1e9, not "
                             f"{shown(repr(v.strip()), limit=40)}")
        setattr(net, k, x)
    return net


def _code_arg(text: str) -> str:
    """``--code``, checked as it is parsed (protocol/SECURE.md: a number and two words)."""
    try:
        parse_code(text)
    except JoinCodeError as e:
        raise argparse.ArgumentTypeError(shown(str(e))) from None
    return text


#: a host name: dot-separated labels of 1–63 letters, digits and hyphens (RFC 1123)
_HOSTNAME = re.compile(r"(?=.{1,253}$)(?!-)[A-Za-z0-9-]{1,63}(?<!-)"
                       r"(\.(?!-)[A-Za-z0-9-]{1,63}(?<!-))*\.?")


def _addr_arg(text: str) -> str:
    """``join``/``bot``'s ADDR[:PORT] or invitation CODE, checked as it is parsed: an IP
    address or a host name (RFC 1123), with a port 1–65535 — refused here, not by the
    resolver when the first connection is tried."""
    if is_wormhole_code(text):
        return text
    try:
        host, _ = parse_addr(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(shown(str(e), limit=120)) from None
    try:
        ipaddress.ip_address(host)
    except ValueError:
        if not _HOSTNAME.fullmatch(host):
            raise argparse.ArgumentTypeError(
                f"not an IP address or host name: {shown(repr(host), limit=60)} (expected "
                "ADDR[:PORT], or an invitation code like 7-crossover-clockwork)") from None
    return text


def _host_key_arg(text: str) -> str:
    """``watch --host-key``: a host key fingerprint as the host prints it."""
    from splitnet.net.watcher import check_fingerprint

    try:
        return check_fingerprint(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _net_timing(text: str) -> str:
    """``--net-timing``, checked as it is parsed."""
    try:
        parse_net_timing(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    return text


def _command(name: str) -> Callable[[argparse.Namespace], int]:
    """The ``func`` of a subcommand: :func:`splitnet.app.lan.run_command`, imported only
    once the arguments have been accepted."""
    def run(args: argparse.Namespace) -> int:
        from splitnet.app.lan import run_command

        return run_command(name, args)
    return run


def add_parsers(sub: Any) -> None:
    """Add ``host``, ``join``, ``bot`` and ``watch`` to the ``splitnet`` command."""
    from splitnet.games.split.bots import LEVELS

    def level(text: str) -> str:
        try:
            return parse_level(text)
        except ValueError as e:
            raise argparse.ArgumentTypeError(str(e)) from None

    levels = ", ".join(LEVELS)

    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument("--mailbox", metavar="URL", default=None,
                       help="the wormhole rendezvous (mailbox) server for internet play "
                            "(default: the 'internet' entry of DATA_DIR/network.json, "
                            f"else the public {PUBLIC_MAILBOX})")
        p.add_argument("--relay", metavar="tcp:HOST:PORT", default=None,
                       help="the wormhole transit relay for internet play (default: "
                            "DATA_DIR/network.json's, else the public "
                            f"{PUBLIC_RELAY})")
        p.add_argument("--relay-only", action="store_true", help=argparse.SUPPRESS)
        p.add_argument("--data-dir", metavar="DIR", type=data_dir,
                       help="identity key and saved games (default: "
                            "$XDG_DATA_HOME/splitnet or ~/.local/share/splitnet)")
        p.add_argument("--new", action="store_true",
                       help="start afresh even if this data dir has an unfinished game "
                            "(join, bot: or a finished one at this address, whose host "
                            "has gone)")
        p.add_argument("--net-timing", metavar="K=V,…", type=_net_timing,
                       help=argparse.SUPPRESS)
        p.add_argument("--test-seed", type=seed, help=argparse.SUPPRESS)
        p.add_argument("--bench-out", metavar="FILE", type=output_file("bench output"),
                       help=argparse.SUPPRESS)
        p.add_argument("--verbose", "-v", action="store_true",
                       help="print every move (bots)")

    bell_help = ("no terminal bell (and title) when your turn begins; also "
                 "SPLITNET_NO_BELL=1")
    code_help = ("the join code the host shows, e.g. 7-lunar-anchor (asked for when "
                 "missing; kept with the game, so a restart reconnects without it)")

    h = sub.add_parser(
        "host", help="open a game on the LAN and play in it",
        description="Open a game on the LAN. Prints the address to join and a join code "
                    "(e.g. 7-lunar-anchor) — tell both to the players; only someone who "
                    "types the code gets in, and every connection is encrypted. The game "
                    "is announced on the LAN (never the code) until it starts.")
    h.add_argument("--port", type=port, default=None,
                   help=f"TCP port to listen on (default {DEFAULT_PORT}; 0: any free port)")
    h.add_argument("--bind", default=None, type=local_address,
                   help="address to listen on (default: all)")
    h.add_argument("--name", default="Host", type=player_name,
                   help="your name at the table (1–32 characters)")
    h.add_argument("--game", choices=tuple(g.key for g in games()), default=FIRST.key,
                   help="the game: split (default) or splito (2–8 players, docs/SPLITO.md); "
                        "players who join learn it from the host")
    h.add_argument("--settings", metavar="FILE", default=None,
                   help="the game's rules from a JSON file (Split: protocol/SETTINGS.md; "
                        "Splito: docs/SPLITO.md S13, whose players fixes the seat count)")
    h.add_argument("--seats", type=int_in(2, 8), default=None,
                   help="start automatically when this many players (Split 2–6, Splito "
                        "2–8) are in")
    h.add_argument("--bots", type=int_in(0, 7), default=0,
                   help="add K bot players (run here)")
    h.add_argument("--bot-level", "--level", default="normal", type=level, metavar="LEVEL",
                   help=f"level of the --bots players: {levels} (default normal)")
    h.add_argument("--play-as-bot", metavar="LEVEL", type=level, default=None,
                   help="a bot of this level plays the host's seat (no screen)")
    h.add_argument("--think", type=seconds(0.01, 60), default=0.3, metavar="SECONDS",
                   help=THINK_HELP)
    h.add_argument("--resume", metavar="GAME_ID", type=game_prefix,
                   help="resume this unfinished game (id or "
                   "its first hex digits); an unfinished game is resumed anyway unless --new")
    h.add_argument("--rematches", type=int_in(0, 1_000_000), default=0, metavar="K",
                   help="with --play-as-bot: offer K rematches to the same seats, one after "
                        "another (a person offers one with n at the end screen)")
    h.add_argument("--plain", action="store_true", help="line-based front end")
    h.add_argument("--no-bell", action="store_true", help=bell_help)
    h.add_argument("--no-proofs", action="store_true",
                   help="skip the zero-knowledge shuffle proofs (tests/benchmarks; the header "
                        "records it and every hop is still checked at each round's audit)")
    h.add_argument("--no-announce", action="store_true",
                   help="do not announce the game on the LAN (players join by address)")
    h.add_argument("--open-hand-after", type=seconds(0, 7 * 24 * 3600), default=None,
                   metavar="SECONDS",
                   help="a player the game waits for who is gone this long is not waited "
                        "for any more: the round ends as it stands and fixed rules play "
                        "that seat open-handed, its cards face up (R8.6); in Splito the "
                        "player leaves the game and the others play on (S5.7; at least "
                        f"{NetSettings.open_hand_offer:g} s; default: not by itself — after "
                        f"{NetSettings.open_hand_offer:g} s the host's screen offers it, else the "
                        "game waits and then times the seat out)")
    h.add_argument("--code", type=_code_arg,  # a fixed join code: tests, scripts
                   help=argparse.SUPPRESS)
    h.add_argument("--watchers", type=int_in(1, 64), default=4, metavar="N",
                   help="how many people may watch at once with the watch code it prints "
                        "(splitnet watch ADDR; with --internet also a watch invitation: "
                        "splitnet watch CODE; default 4); a watcher gets no seat and "
                        "sees only what is public. Every player's lobby and table show "
                        "how many watch; the host's lobby removes one (plain: 'unwatch "
                        "NAME'; full screen: w and its number), refused from its address "
                        "for the rest of the game")
    h.add_argument("--no-watchers", action="store_true",
                   help="print no watch code or watch invitation: nobody can watch this "
                        "game")
    h.add_argument("--internet", action="store_true",
                   help="also invite players anywhere through magic-wormhole: prints an "
                        "invitation (splitnet join 7-crossover-clockwork) for each free "
                        "seat, a fresh one as each is claimed, and a watch invitation "
                        "(splitnet watch CODE) unless --no-watchers")
    common(h)
    h.set_defaults(func=_command("host"))

    j = sub.add_parser(
        "join", help="join a game on the LAN",
        description="Join a game on the LAN with the address and join code the host shows. "
                    "Without an address, lists the games announced on the LAN to pick "
                    "one. Then shows four verification words: the host's screen shows the "
                    "same four for you unless someone sits in between.")
    j.add_argument("addr", metavar="ADDR[:PORT] | CODE", nargs="?", default=None,
                   type=_addr_arg,
                   help="the host's address (default: look for games on the LAN), or the "
                        "invitation code of a host --internet (e.g. 7-crossover-clockwork: "
                        "joins through magic-wormhole, no join code needed)")
    j.add_argument("--code", type=_code_arg, help=code_help)
    j.add_argument("--name", default="Player", type=player_name,
                   help="your name at the table (1–32 characters)")
    j.add_argument("--browse-timeout", type=seconds(0, 3600), default=3.0, metavar="S",
                   help="without an address: look for games this long (default 3)")
    j.add_argument("--interface", action="append", metavar="ADDR", type=local_address,
                   help="without an address: look only on the interface with this "
                        "address (repeatable; e.g. 127.0.0.1)")
    j.add_argument("--plain", action="store_true", help="line-based front end")
    j.add_argument("--no-bell", action="store_true", help=bell_help)
    common(j)
    j.set_defaults(func=_command("join"))

    b = sub.add_parser("bot", help="join a game on the LAN as a bot",
                       description="A bot joins a game on the LAN, with the host's address "
                                   "and join code, and plays whichever game the host runs "
                                   "(Split or Splito, at the level given: easy, normal or "
                                   "strong).")
    b.add_argument("addr", metavar="ADDR[:PORT] | CODE", type=_addr_arg,
                   help="the host's address, or the invitation code of a host --internet")
    b.add_argument("--code", type=_code_arg, help=code_help)
    b.add_argument("--level", default="normal", type=level, metavar="LEVEL",
                   help=f"{levels} (default normal)")
    b.add_argument("--think", type=seconds(0.01, 60), default=0.3, metavar="SECONDS",
                   help=THINK_HELP)
    b.add_argument("--name", default=None, type=player_name,
                   help="the bot's name at the table (default: a friendly name, e.g. Ana, "
                        "that follows from its key: the same in every game played "
                        "from the same data dir)")
    b.add_argument("--delay", type=seconds(0, 60), default=0.0,
                   help="seconds to wait before a move")
    b.add_argument("--rematch", action="store_true",
                   help="after a game, stay for the host's rematch offers and agree to each "
                        "(each waited for up to 120 s); without it the bot tells the host, "
                        "as its game ends, that it leaves")
    common(b)
    b.set_defaults(func=_command("bot"))

    w = sub.add_parser("watch", help="watch a game on the LAN or across the internet",
                       description="Watch a game: on the LAN with the host's address and "
                                   "the watch code it shows, across the internet with the "
                                   "watch invitation a host --internet prints (splitnet "
                                   "watch CODE). Every record is checked as it arrives, as "
                                   "splitnet verify checks a transcript; only what is "
                                   "public is shown. The host's key fingerprint is shown "
                                   "on connecting (--host-key pins it). At the end: the "
                                   "results, each round's audit and the saved "
                                   "transcript's path. Run the same command again after a "
                                   "drop or a kill to go on.")
    w.add_argument("addr", metavar="ADDR[:PORT]|CODE", type=_addr_arg,
                   help="the host's LAN address, or its watch invitation (e.g. "
                        "7-crossover-clockwork; never a join invitation)")
    w.add_argument("--code", type=_code_arg,
                   help="on the LAN: the watch code the host shows (asked for when "
                        "missing); a watch invitation needs none")
    w.add_argument("--host-key", metavar="FINGERPRINT", type=_host_key_arg, default=None,
                   help="watch only a host whose key has this fingerprint (the 'Host key "
                        "fingerprint' it prints): anyone else is refused in one line")
    w.add_argument("--name", default="Watcher", type=player_name,
                   help="the name the host lists you by (1–32 characters)")
    w.add_argument("--plain", action="store_true",
                   help="a line per event (the default when stdout is no terminal); "
                        "without it, at a terminal: the full-screen table from above "
                        "(q quits, ↑ ↓ PgUp PgDn scroll the log, ? help)")
    w.add_argument("--data-dir", metavar="DIR", type=data_dir,
                   help="where the transcript is kept (default: the usual data dir)")
    w.add_argument("--mailbox", metavar="URL", default=None,
                   help="with a watch invitation: the wormhole mailbox server (as for "
                        "join)")
    w.add_argument("--relay", metavar="tcp:HOST:PORT", default=None,
                   help="with a watch invitation: the wormhole transit relay (as for join)")
    w.add_argument("--relay-only", action="store_true", help=argparse.SUPPRESS)
    w.add_argument("--net-timing", metavar="K=V,…", type=_net_timing, help=argparse.SUPPRESS)
    w.set_defaults(func=_command("watch"))
