"""Each game's front ends, one :class:`FrontEnd` per game, looked up once by its game
(:func:`front_end`): the counterpart above the network of the games' registry
(:mod:`splitnet.games`, which sits below it and knows no front end).

An entry names what the commands do for its game — ``selfplay``, ``play`` and its own
``bench KEY`` (:mod:`splitnet.cli`), how ``host`` builds its lobby's game from the
options, and a LAN seat's sessions and results (:mod:`splitnet.app.lan`) — so a command
asks its game's entry instead of keeping a table of its own by the game's key
(``tests/test_layering.py`` walks the code for such a table outside this module).
Adding a built-in game is adding its :class:`~splitnet.games.GameSpec` and its entry
here; a game that lives outside the package gives its entry to :func:`register` (which
registers its spec too; docs/ADDING_A_GAME.md).

Every function an entry names imports what it needs when called, so looking a game up
costs nothing (``splitnet --help`` and ``splitnet host --help`` stay light). The
commands' own bodies, which share the command line's helpers, stay in
:mod:`splitnet.cli`; an entry names them through a function here that imports them.
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from splitnet import games
from splitnet.games import GameSpec
from splitnet.games.split import SPLIT
from splitnet.games.splito import SPLITO

if TYPE_CHECKING:
    from splitnet.app.lan_common import AnySession
    from splitnet.net.host import HostNode
    from splitnet.net.peer import PeerNode
    from splitnet.net.table import GameChoice, Narration
    from splitnet.ui.tui.watch_model import Spectacle


@dataclass(frozen=True)
class Replay:
    """``splitnet replay`` for one game (:attr:`FrontEnd.replay`)."""

    check: Callable[[object, Path], dict[str, Any]]
    run: Callable[[dict[str, Any], bool, Callable[[], str] | None], int]


@dataclass(frozen=True)
class FrontEnd:
    """One game, as the front ends see it.

    ``game``: its spec (:mod:`splitnet.games`). The commands: ``selfplay(args, bot
    levels)`` (``splitnet selfplay --game KEY``), ``play(args)`` (``splitnet play``, a
    person against bots on this machine) and ``bench(args)`` (``splitnet bench KEY``;
    None: the game has no benchmark of its own). Hosting (``splitnet host --game KEY``):
    the lobby's game from the options (``choice(settings file, --seats, move timeout,
    proofs)``), the seats a settings file fixes (``seats_of``, None: it fixes none),
    and, for a game dealt with shuffle proofs only, the document that says so
    (``proofs_only``: ``--no-proofs`` is then refused). A seat at a LAN table: a bot's
    session (``bot(node, task, level, seed, think, delay)``), a person's
    (``human(node, task)``), and the results of its finished record in words
    (``summary``). ``replay``: a finished game's record, the way ``splitnet replay``
    takes it — ``check(record, path)`` its game's own checks (the record, or
    LocalFileError naming the file and the first fault), ``run(record, step, wait)``
    the replay (step by step with ``step``; ``wait`` reads the next command).
    ``narrator(names, seat)``: the game's narrator (``seat`` None: a watcher's, which
    tells only what is public), which tells a reopened LAN game's saved log as it was told
    live, and a watched game (:attr:`splitnet.net.table.Table.history`; None: a
    reopened game is not told again). ``spectator(core, names)``: the full-screen table
    of ``splitnet watch`` at one entry, from the watcher's core of no seat
    (:class:`splitnet.ui.tui.watch_model.Spectacle`; None: the watcher's screen shows
    the log alone). ``table``: a person's table at a LAN seat,
    ``table(session, plain, bell, rematch)`` with ``rematch`` None (none offered),
    "host" (it offers) or "joiner" (it agrees) —
    the exit status and whether the person asked for the rematch (None: the built-in
    games' tables, which ``splitnet.app.lan`` runs itself; a game without a table for
    a person says so in ``human``)."""

    game: GameSpec
    selfplay: Callable[[argparse.Namespace, list[str]], int]
    play: Callable[[argparse.Namespace], int]
    choice: Callable[[str | None, int | None, float, bool], GameChoice]
    seats_of: Callable[[str], int | None]
    bot: Callable[[HostNode | PeerNode, asyncio.Future[Any], str, int, float | None, float],
                  AnySession]
    human: Callable[[HostNode | PeerNode, asyncio.Future[Any]], AnySession]
    summary: Callable[[dict[str, Any]], str]
    replay: Replay
    bench: Callable[[argparse.Namespace], int] | None = None
    proofs_only: str | None = None
    table: Callable[[Any, bool, bool, str | None], Awaitable[tuple[int, bool]]] | None = None
    narrator: Callable[[Sequence[str], int | None], Narration] | None = None
    spectator: Callable[[Any, Sequence[str]], Spectacle] | None = None


# ---------------------------------------------------------------------------- Split


def _split_selfplay(args: argparse.Namespace, bots: list[str]) -> int:
    from splitnet.cli import selfplay_split

    return selfplay_split(args, bots)


def _split_play(args: argparse.Namespace) -> int:
    from splitnet.cli import play_split

    return play_split(args)


def _split_choice(settings_path: str | None, _seats: int | None, _move_timeout: float,
                  proofs: bool) -> GameChoice:
    """``host --settings FILE`` for Split: the header's rules from the local file
    (SETTINGS.md: every key optional, the docs/RULES.md default for one missing)."""
    from splitnet.net.table import SPLIT as SPLIT_CHOICE
    from splitnet.net.table import GameChoice

    if settings_path is None:
        return SPLIT_CHOICE
    from splitnet.games.split.local import game_settings
    from splitnet.localfiles import LocalFileError, load_settings

    try:  # a local file, as ``play``'s: every key optional, the pad inline or a file
        rules = load_settings(Path(settings_path))
    except LocalFileError as e:
        raise SystemExit(f"splitnet: {e}") from None
    return GameChoice(header=lambda _n: game_settings(rules, shuffle_proofs=proofs))


def _split_bot(node: HostNode | PeerNode, task: asyncio.Future[Any], level: str, seed: int,
               think: float | None, delay: float) -> AnySession:
    from splitnet.app.lan_session import NetSession
    from splitnet.games.split.bots import make_bot

    return NetSession(node, task, bot=make_bot(level, seed, budget=think), bot_delay=delay)


def _split_human(node: HostNode | PeerNode, task: asyncio.Future[Any]) -> AnySession:
    from splitnet.app.lan_session import NetSession
    from splitnet.frontend import HumanAgent

    return NetSession(node, task, human=HumanAgent())


def _split_summary(record: dict[str, Any]) -> str:
    from splitnet.games.split.front.selfplay import summary

    return summary(record)


def _split_check(rec: object, path: Path) -> dict[str, Any]:
    from splitnet.games.split.record import RecordError, validate_record
    from splitnet.localfiles import LocalFileError

    try:
        return validate_record(rec)
    except RecordError as e:
        raise LocalFileError(path, f"not a valid game record (protocol/RECORD.md): {e}") from None


def _split_replay(record: dict[str, Any], step: bool, wait: Callable[[], str] | None) -> int:
    from splitnet.games.split.replay import replay_lines, replay_steps
    from splitnet.replay import step_through

    if step:
        step_through(replay_steps(record), wait or input, lambda text: print(text, flush=True))
        return 0
    for page in replay_lines(record):
        print("\n".join(page))
    return 0


def _split_narrator(names: Sequence[str], seat: int | None) -> Narration:
    from splitnet.games.split.describe import Narrator

    return Narrator(names, seat)


def _split_spectator(core: Any, names: Sequence[str]) -> Spectacle:
    from splitnet.games.split.front.watch import spectate

    return spectate(core, names)


SPLIT_FRONT = FrontEnd(SPLIT, selfplay=_split_selfplay, play=_split_play,
                       choice=_split_choice, seats_of=lambda _path: None, bot=_split_bot,
                       human=_split_human, summary=_split_summary,
                       replay=Replay(_split_check, _split_replay), narrator=_split_narrator,
                       spectator=_split_spectator)


# --------------------------------------------------------------------------- Splito


def _splito_selfplay(args: argparse.Namespace, bots: list[str]) -> int:
    from splitnet.cli import selfplay_splito

    return selfplay_splito(args, bots)


def _splito_play(args: argparse.Namespace) -> int:
    from splitnet.cli import play_splito

    return play_splito(args)


def _splito_bench(args: argparse.Namespace) -> int:
    from splitnet.cli import bench_splito

    return bench_splito(args)


def _splito_choice(settings_path: str | None, seats: int | None,
                   move_timeout: float, _proofs: bool) -> GameChoice:
    """``host --game splito``: 2–8 seats (S2.1); the header's rules are S13's defaults
    for the player count, or a settings file's (which then fixes the count; its
    ``turn_timeout_s`` must end before the host's ``move_timeout`` would stop the game)."""
    from splitnet.game.table import PROTOCOL
    from splitnet.games.splito.core import splito_header
    from splitnet.games.splito.front.selfplay import load_settings
    from splitnet.games.splito.settings import SplitoSettings
    from splitnet.net.table import GameChoice

    fixed = None
    if settings_path is not None:
        fixed = load_settings(settings_path, _settings_players(settings_path))
        if seats is not None and seats != fixed.players:
            raise SystemExit(f"splitnet: the settings are for {fixed.players} players, "
                             f"not --seats {seats}")
        t = fixed.turn_timeout_s
        if t is not None and t >= move_timeout:
            raise SystemExit(f"splitnet: turn_timeout_s {t} must be below the host's "
                             f"move timeout ({move_timeout:g} s), or no one's program "
                             "plays for a late seat before the game stops (S5.6)")

    def header(players: int) -> dict[str, Any]:
        if fixed is not None and fixed.players != players:
            raise ValueError(f"the settings file is for {fixed.players} players, not "
                             f"{players} (S2.1)")
        return splito_header(fixed or SplitoSettings.standard(players), PROTOCOL)

    return GameChoice(SPLITO, SPLITO.max_players, header)


def _settings_players(path: str) -> int:
    """The player count a Splito settings file names (its ``players``)."""
    from splitnet.localfiles import MAX_SETTINGS_BYTES, LocalFileError, read_json

    try:
        data = read_json(Path(path), limit=MAX_SETTINGS_BYTES, what="settings file")
    except LocalFileError as e:
        raise SystemExit(f"splitnet: {e}") from None
    n = data.get("players") if isinstance(data, dict) else None
    low, high = SPLITO.min_players, SPLITO.max_players
    if isinstance(n, bool) or not isinstance(n, int) or not low <= n <= high:
        raise SystemExit(f"splitnet: {path}: players must be {low}–{high} "
                         f"({SPLITO.seat_rule})")
    return n


def _splito_bot(node: HostNode | PeerNode, task: asyncio.Future[Any], level: str, seed: int,
                _think: float | None, delay: float) -> AnySession:
    from splitnet.games.splito.front.lan import SplitoNetSession, splito_bot

    return SplitoNetSession(node, task, bot=splito_bot(level, seed), bot_delay=delay)


def _splito_human(node: HostNode | PeerNode, task: asyncio.Future[Any]) -> AnySession:
    from splitnet.games.splito.front.lan import SplitoNetSession

    return SplitoNetSession(node, task, human=True)


def _splito_summary(record: dict[str, Any]) -> str:
    from splitnet.games.splito.record import summary

    return summary(record)


def _splito_check(rec: object, path: Path) -> dict[str, Any]:
    from splitnet.games.splito.record import check_record
    from splitnet.localfiles import LocalFileError

    verdict = check_record(rec)  # S12.4: the referee, before anything is shown
    if not verdict.ok:
        more = f" (and {len(verdict.faults) - 1} more)" if len(verdict.faults) > 1 else ""
        raise LocalFileError(path, "not a valid Splito record (docs/SPLITO.md S12.4): "
                             f"{verdict.faults[0]}{more}")
    assert isinstance(rec, dict)
    return rec


def _splito_replay(record: dict[str, Any], step: bool, wait: Callable[[], str] | None
                   ) -> int:
    from splitnet.games.splito import replay as splito_replay
    from splitnet.replay import step_through

    steps = splito_replay.replay_steps(record)
    if step:
        step_through(steps, wait or input, lambda text: print(text, flush=True),
                     keys=splito_replay.PROMPT_KEYS, help_text=splito_replay.STEP_HELP)
        return 0
    for st in steps:  # a Splito page says little without its zones: both, every step
        print("\n".join(st.lines))
        print(st.table)
    return 0


def _splito_narrator(names: Sequence[str], seat: int | None) -> Narration:
    from splitnet.games.splito.describe import SplitoNarrator

    return SplitoNarrator(names, seat)


def _splito_spectator(core: Any, names: Sequence[str]) -> Spectacle:
    from splitnet.games.splito.front.watch import spectate

    return spectate(core, names)


SPLITO_FRONT = FrontEnd(SPLITO, selfplay=_splito_selfplay, play=_splito_play,
                        choice=_splito_choice, seats_of=_settings_players, bot=_splito_bot,
                        human=_splito_human, summary=_splito_summary,
                        replay=Replay(_splito_check, _splito_replay), bench=_splito_bench,
                        proofs_only="protocol/SPLITO_GAME.md", narrator=_splito_narrator,
                        spectator=_splito_spectator)


#: the built-in games' front ends, in the registry's order (splitnet.games.GAMES)
FRONT_ENDS: Final = (SPLIT_FRONT, SPLITO_FRONT)
_BY_KEY: Final = {f.game.key: f for f in FRONT_ENDS}
#: the entries of games registered from outside the package (:func:`register`)
_ADDED: dict[str, FrontEnd] = {}
#: the keys of the specs :func:`register` registered itself (:func:`unregister` takes
#: them away again)
_SPECS_ADDED: set[str] = set()


def register(entry: FrontEnd) -> None:
    """Add the front ends of a game that lives outside the package, and its spec to the
    games' registry (:func:`splitnet.games.register`) unless it is there already; from
    then on :func:`front_end` and :func:`bench_of` find it (docs/ADDING_A_GAME.md).
    ValueError if the game's key is taken."""
    key = entry.game.key
    if key in _BY_KEY or key in _ADDED:
        raise ValueError(f"game key {key!r} has front ends already")
    if games.find(key) is None:
        games.register(entry.game)
        _SPECS_ADDED.add(key)
    elif games.find(key) is not entry.game:
        raise ValueError(f"game key {key!r} is another game's")
    _ADDED[key] = entry


def unregister(key: str) -> None:
    """Take an added game's front ends away again, and its spec if :func:`register`
    registered it (KeyError: none)."""
    del _ADDED[key]
    if key in _SPECS_ADDED:
        _SPECS_ADDED.discard(key)
        games.unregister(key)


@contextmanager
def registered(entry: FrontEnd) -> Iterator[FrontEnd]:
    """The game and its front ends registered for the ``with`` block only."""
    register(entry)
    try:
        yield entry
    finally:
        if _ADDED.get(entry.game.key) is entry:  # (unless the block took it away itself)
            unregister(entry.game.key)


def front_ends() -> tuple[FrontEnd, ...]:
    """Every game's front ends: the built-in ones, then the registered ones."""
    return (*FRONT_ENDS, *_ADDED.values())


def _entry(key: object) -> FrontEnd | None:
    if not isinstance(key, str):
        return None
    return _BY_KEY.get(key) or _ADDED.get(key)


def front_end(game: GameSpec) -> FrontEnd:
    """The front ends of ``game`` (KeyError for a game that has none)."""
    entry = _entry(game.key)
    if entry is None:
        raise KeyError(game.key)
    return entry


def bench_of(what: str) -> Callable[[argparse.Namespace], int] | None:
    """The benchmark ``splitnet bench WHAT`` runs when WHAT is the key of a game with
    one of its own (None: WHAT is not, a benchmark of the layers below)."""
    front = _entry(what)
    return front.bench if front is not None else None


def benched() -> tuple[str, ...]:
    """The keys of the games with a benchmark of their own (``splitnet bench KEY``)."""
    return tuple(f.game.key for f in front_ends() if f.bench is not None)
