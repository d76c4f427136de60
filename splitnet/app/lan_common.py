"""What the LAN commands (:mod:`splitnet.app.lan`) all use: the data dir, its identity,
known peers, logs and test secrets; the join code asked for, and why a joiner stops; a
seat's session (a person's or a bot's) and its results; the parts of a joiner's node
(the internet servers, the verification words); this data dir's finished games that a
rematch follows; the host's saved lobby and the host options read in several places."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from splitnet.aio import stop, until
from splitnet.app.lan_args import parse_net_timing
from splitnet.app.lan_session import LanSeat, NetSession
from splitnet.durable import open_private
from splitnet.frontends import front_end
from splitnet.game.rematch import PreviousGame
from splitnet.games.split.bots import bot_player_name
from splitnet.localfiles import LocalFileError
from splitnet.net import wormhole
from splitnet.net.config import (
    NETWORK_FILE,
    PUBLIC_MAILBOX,
    PUBLIC_RELAY,
    NetSettings,
    check_mailbox,
    check_relay,
    is_wormhole_code,
    load_internet_servers,
)
from splitnet.net.host import HostNode
from splitnet.net.joincode import JoinCode, JoinCodeError, parse_code
from splitnet.net.known_peers import KnownPeers, KnownPeersError
from splitnet.net.peer import PeerFatal, PeerNode
from splitnet.net.secure import SecureLink, WrongCode
from splitnet.net.store import GameFiles, meta_now, open_data_dir, unfinished_games
from splitnet.net.table import SeedMaker, Table
from splitnet.session.identity import Identity, IdentityError, default_data_dir
from splitnet.text import ShownLog, shown

# ------------------------------------------------------- the data dir, identity and logs


_log = logging.getLogger("splitnet.net")


def _data_dir(args: argparse.Namespace) -> Path:
    """The data dir, made (or closed to other local users) 0700 with its ``games/``
    (NETWORK.md §9)."""
    return open_data_dir(Path(args.data_dir).expanduser() if args.data_dir
                         else default_data_dir())


def _identity(data_dir: Path) -> Identity:
    try:
        return Identity.load_or_create(data_dir)
    except (IdentityError, OSError) as e:
        raise SystemExit(f"splitnet: {e}") from None


def _known_peers(data_dir: Path) -> KnownPeers | None:
    """Keys seen before (protocol/SECURE.md, "Known peers"); None if the file is damaged
    (it is left alone, and nothing is remembered this time)."""
    try:
        return KnownPeers.load(KnownPeers.default_path(data_dir))
    except KnownPeersError as e:
        print(f"splitnet: warning: {e}", file=sys.stderr, flush=True)
        return None


def _remember_players(known: KnownPeers | None, table: Table) -> None:
    """At the start of a game: remember every other seat's key under its name."""
    if known is None:
        return
    for p in table.log.header.players:
        if p.seat != table.seat:
            known.remember(p.key, p.name)
    try:
        known.save()
    except OSError as e:
        _log.warning("cannot save %s: %s", known.path, e)


def _net_settings(text: str | None) -> NetSettings:
    """``--net-timing ping_interval=0.2,host_timeout=2`` (tests and slow networks)."""
    try:
        return parse_net_timing(text or "")
    except ValueError as e:
        raise SystemExit(f"splitnet: --net-timing: {e}") from None


def _test_secrets(seed: int | None) -> tuple[SeedMaker | None, Callable[[], bytes] | None]:
    """``--test-seed S``: game id and round seeds derived from S (as ``selfplay --seed S``),
    so a LAN game can be compared with the in-process one. Never for a real game: anyone
    who knows S knows the deck."""
    if seed is None:
        return None, None
    from splitnet.games.split.local import SelfplaySecrets

    src = SelfplaySecrets(seed)

    def maker(game_id: bytes, seat: int) -> Callable[[int], bytes]:
        return src.round_seeds(seat)

    return maker, src.game_id


def _seat_seed(test_seed: int | None, seat: int) -> int:
    """A bot's seed at ``seat``: with ``--test-seed S`` one that follows from S and the
    seat (the game can be played again), else a random one."""
    if test_seed is None:
        import secrets

        return secrets.randbits(31)
    return test_seed * 100 + seat


_logs_on_stderr = False


def _setup_logging(role: str, to_file: Path | None = None) -> None:
    global _logs_on_stderr
    _logs_on_stderr = to_file is None
    logger = logging.getLogger("splitnet")
    logger.setLevel(logging.INFO)
    for h in list(logger.handlers):
        logger.removeHandler(h)
    if to_file is not None:
        os.close(open_private(to_file, os.O_WRONLY | os.O_APPEND))  # 0600 (NETWORK.md §9)
        handler: logging.Handler = logging.FileHandler(to_file, encoding="utf-8")
        handler.setFormatter(logging.Formatter("%(asctime)s " + role + ": %(message)s"))
    else:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("splitnet " + role + ": %(message)s"))
    handler.addFilter(ShownLog())  # log lines quote peers' reasons: shown, not obeyed
    logger.addHandler(handler)
    logger.propagate = False


# ------------------------------------------------- the join code, and why a joiner stops


def _parse_code(text: str) -> JoinCode:
    try:
        return parse_code(text)
    except JoinCodeError as e:
        raise SystemExit(f"splitnet: {e}") from None


#: how often a joiner asks for the code again (a typo, or a code the host refused)
MAX_CODE_PROMPTS = 5


def _ask(prompt: str) -> str:
    """``input(prompt)`` that Ctrl-C ends at once. The prompts of ``join`` are asked from
    inside the event loop, whose own Ctrl-C handler only cancels the main task — which
    the blocked read never notices, so the next line typed was taken as the answer.
    While the prompt waits, Ctrl-C raises KeyboardInterrupt here (after ending the
    prompt's line), and the command stops as it does elsewhere: "splitnet: stopped",
    status 130."""
    import signal

    try:
        before = signal.signal(signal.SIGINT, signal.default_int_handler)
    except ValueError:  # not the main thread: nothing to change
        return input(prompt)
    try:
        return input(prompt)
    except KeyboardInterrupt:
        print(flush=True)  # "splitnet: stopped" on a line of its own
        raise
    finally:
        signal.signal(signal.SIGINT, before)


def _ask_code(given: str | None, prompt: str = "Join code (the host shows it, e.g. "
              "7-lunar-anchor): ", *, what: str = "join code") -> JoinCode:
    """``--code``, or the code typed at a prompt (the host shows it, e.g. 7-lunar-anchor);
    a typo ("did you mean 'lunar'?") asks again, at most :data:`MAX_CODE_PROMPTS` times.
    ``what``: the code's name in those lines (``splitnet watch``: "watch code")."""
    if given:
        return _parse_code(given)
    for _ in range(MAX_CODE_PROMPTS):
        try:
            text = _ask(prompt)
        except EOFError:
            raise SystemExit(f"splitnet: no {what}: type the one the host shows, or pass "
                             "--code") from None
        try:
            return parse_code(text)
        except JoinCodeError as e:
            print(f"splitnet: {e}", file=sys.stderr, flush=True)
            prompt = f"Type the {what} again: "
    raise SystemExit(f"splitnet: no valid {what} after {MAX_CODE_PROMPTS} tries")


def _report_fatal(node: PeerNode) -> None:
    """Why a joiner stops, once: the log on stderr has said it already, if it is there."""
    fatal = node.fatal
    if not fatal:
        return
    if not _logs_on_stderr:
        print(f"splitnet: {shown(fatal)}", file=sys.stderr, flush=True)
    if isinstance(node.fatal_cause, WrongCode):
        print("Check the join code with the host's screen and run the command again.",
              file=sys.stderr, flush=True)


def _ask_again(node: PeerNode, typed: bool, tries: int) -> bool:
    """The host refused the code that was typed: say so and ask again (the host's own
    limit, 3 per address, ends this)?"""
    if not (typed and isinstance(node.fatal_cause, WrongCode) and tries < MAX_CODE_PROMPTS):
        return False
    if not _logs_on_stderr:  # else the log said it already
        print(f"splitnet: {node.fatal_cause}", file=sys.stderr, flush=True)
    return True


async def _wait_start(node: PeerNode, task: asyncio.Future[Any], report: bool = True) -> bool:
    await until(node.started_evt, task)
    if node.table is None:
        await stop(task, PeerFatal)  # it stopped: why is node.fatal
        if report:
            _report_fatal(node)
        return False
    return True


# ------------------------------------------------------ a seat's session and its results


#: a LAN seat's session, whatever the game (FrontEnd.bot, FrontEnd.human)
AnySession = LanSeat[Any]


def _bot_session(node: HostNode | PeerNode, task: asyncio.Future[Any], level: str,
                 seed: int, think: float | None, delay: float = 0.0) -> AnySession:
    """A bot's session for whichever game the table runs (Splito: splito_bot's levels)."""
    assert node.table is not None
    return front_end(node.table.spec).bot(node, task, level, seed, think, delay)


def _human_session(node: HostNode | PeerNode, task: asyncio.Future[Any]) -> AnySession:
    assert node.table is not None
    return front_end(node.table.spec).human(node, task)


def _print_record(table: Table) -> bool:
    """The results of the table's game, if it finished with no verdict (False: it did
    not, nothing printed)."""
    core = table.core
    if not core.finished or core.verdict is not None or core.record is None:
        return False
    print(front_end(table.spec).summary(core.record), flush=True)
    return True


def _print_result(session: AnySession, rejoin: str | None = None) -> int:
    if _print_record(session.table):
        if session.unconfirmed:  # (a joiner's, whatever the game: SECURITY.md §4)
            print(f"warning: {', '.join(session.unconfirmed)} never confirmed this final log "
                  "to us (left early, or the host withheld it): compare transcripts",
                  file=sys.stderr, flush=True)
        print(f"transcript: {session.table.files.transcript}", flush=True)
        return 0
    if session.verdict is None and rejoin is not None:
        print("You left before the end; the game is saved here and your seat is kept. "
              f"To get back in, run the same command again:\n  {rejoin}",
              file=sys.stderr, flush=True)
        return 1
    print(session.verdict or "the game did not finish", file=sys.stderr, flush=True)
    return 1


def _bench_out(session: AnySession, path: str | None) -> None:
    """``--bench-out FILE``: this seat's timings and the game record, as JSON."""
    if path:
        import json

        timings = session.timings if isinstance(session, NetSession) else {}
        Path(path).write_text(json.dumps({"seat": session.seat, "timings": timings,
                                          "record": session.core.record}))


def _follow(session: AnySession, verbose: bool) -> None:
    """A bot's console: round lines, verdicts (every line with ``verbose``)."""
    printed = 0

    def show() -> None:
        nonlocal printed
        for line in session.log[printed:]:
            if verbose or line.startswith(("Round ", "  ", "Resumed", "game stopped",
                                           "Dealt:", "Audit passed", "Time is up")):
                print(line, flush=True)
        printed = len(session.log)

    session.subscribe(show)


def _again_command(argv: list[str] | None = None) -> str:
    """The command that brings a player back to the game they left: the same one (an
    unfinished game is resumed), without ``--new``."""
    import shlex

    args = [a for a in (sys.argv[1:] if argv is None else argv) if a != "--new"]
    return shlex.join(["splitnet", *args])


def _bell_wanted(args: argparse.Namespace) -> bool:
    """The turn bell (full-screen table): on unless ``--no-bell`` or SPLITNET_NO_BELL."""
    return not (getattr(args, "no_bell", False) or os.environ.get("SPLITNET_NO_BELL"))


# ----------------------------------------------------------------------- a joiner's node


#: what a joiner through a wormhole keeps as its host's address (the game's meta file)
_WORMHOLE_HOST = "wormhole:0"


def _invited(node: PeerNode) -> bool:
    """Did this joiner come in through a wormhole invitation (not a LAN address)?"""
    return f"{node.host}:{node.port}" == _WORMHOLE_HOST


def _check_servers(args: argparse.Namespace, net: NetSettings, data_dir: Path) -> None:
    """``join``/``bot`` through an invitation: a bad server refused before anything."""
    if args.addr and is_wormhole_code(args.addr):
        _wormhole_settings(args, net, data_dir)


def _wormhole_settings(args: argparse.Namespace, net: NetSettings, data_dir: Path
                       ) -> wormhole.WormholeSettings:
    """The servers of internet play: ``--mailbox``/``--relay``, else the ``internet``
    entry of ``DATA_DIR/network.json``, else magic-wormhole's public ones (NETWORK.md
    §12); a bad one stops the command in one line before anything happens."""
    try:
        servers = load_internet_servers(data_dir / NETWORK_FILE)
    except LocalFileError as e:
        raise SystemExit(f"splitnet: {e}") from None
    mailbox, relay = servers.mailbox, servers.relay
    for opt, given, check in (("--mailbox", args.mailbox, check_mailbox),
                              ("--relay", args.relay, check_relay)):
        if given is not None:
            try:
                check(given)
            except ValueError as e:
                raise SystemExit(f"splitnet: {opt}: {shown(str(e))}") from None
    mailbox = args.mailbox if args.mailbox is not None else mailbox
    relay = args.relay if args.relay is not None else relay
    return wormhole.WormholeSettings(mailbox=mailbox or PUBLIC_MAILBOX,
                                     relay=relay or PUBLIC_RELAY,
                                     no_listen=args.relay_only, idle_after=net.wormhole_idle)


def _words_once(show: bool) -> Callable[[SecureLink], None]:
    """The joiner's ``on_secure``: print the verification words of the first secure link
    (if ``show``), not again on every reconnect."""
    shown = False

    def secure(link: SecureLink) -> None:
        nonlocal shown
        if show and not shown:
            shown = True
            print(f"Verification: {link.verification} — compare with the host's screen",
                  flush=True)
    return secure


def _bot_level(args: argparse.Namespace) -> str | None:
    """The level a ``splitnet bot`` says in the host's lobby (``--level``); None for
    ``splitnet join`` (a person)."""
    return getattr(args, "level", None)


# --------------------------------------------------------------------------- saved games


def _previous_on_disk(data_dir: Path, gid: bytes) -> PreviousGame:
    """A finished game of this data directory as a rematch follows it: its meta says it
    is over, its transcript gives the header and the final head (ValueError, one line,
    if they do not)."""
    from splitnet.session.log import Log, LogError
    from splitnet.session.transcript import TranscriptError, read_transcript

    files = GameFiles(data_dir, gid)
    try:
        over = files.load_meta().finished
        if over:
            log = Log()
            for rec in read_transcript(files.transcript, repair=True):
                log.append_record(rec)
            return PreviousGame(log.header, log.head())
    except (OSError, ValueError, TypeError, LogError, TranscriptError) as e:
        raise ValueError(f"{files.transcript.name}: {e}") from None
    raise ValueError(f"game {gid.hex()} is not over")


def _finished_copy(data_dir: Path) -> Callable[[bytes], PreviousGame | None]:
    """How a joiner started afresh finds the game whose rematch the host offers it (its
    program was restarted in the rematch lobby, NETWORK.md §13): its own finished copy
    in ``data_dir``, or None (it then says no)."""
    def find(gid: bytes) -> PreviousGame | None:
        try:
            return _previous_on_disk(data_dir, gid)
        except ValueError as e:
            _log.warning("no finished copy of game %s here: %s", gid.hex(), e)
            return None

    return find


def _keep_lobby(node: HostNode, data_dir: Path, gid: bytes, port: int, bind: str,
                code: str, rematch_of: str = "") -> None:
    """Save the lobby's game id, code, port and address durably before they are printed
    (``lobby`` true; a rematch lobby also names the finished game, ``rematch_of``); mark
    it finished when the host closes its lobby (a crash leaves it to be opened again by
    the same command)."""
    files = GameFiles(data_dir, gid)
    try:
        for old in unfinished_games(data_dir, "host", skip_damaged=True):
            if old.lobby and old.gid != gid:  # --new: an older lobby is closed for good
                old.finished = True
                GameFiles(data_dir, old.gid).save_meta(old)
        files.save_meta(meta_now(game_id=gid.hex(), role="host", seat=0, name=node.name,
                                 host="", port=port, bind=bind, code=code, lobby=True,
                                 rematch_of=rematch_of))
    except OSError as e:
        raise SystemExit(f"splitnet: cannot save the game in {files.meta.parent}: "
                         f"{e.strerror or e}") from None

    def closed() -> None:
        with contextlib.suppress(OSError, ValueError):
            meta = files.load_meta()
            if meta.lobby:
                meta.finished = True
                files.save_meta(meta)

    node.on_close.append(closed)


# -------------------------------------------------------------------- the host's options


def _lobby_in_lines(args: argparse.Namespace) -> bool:
    """Is the host's lobby printed line by line (:func:`plain_lobby`), not full-screen?"""
    return bool(args.play_as_bot or args.plain or args.seats is not None)


def _host_bot_names(args: argparse.Namespace) -> list[str]:
    """The names of ``host --bots``' bots, run here."""
    return [bot_player_name(i, taken=[args.name]) for i in range(args.bots)]
