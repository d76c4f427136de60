"""The ``splitnet`` command."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import sys
from pathlib import Path
from typing import Any

from splitnet.cmdline import (
    THINK_HELP,
    Parser,
    data_dir,
    fraction,
    game_prefix,
    int_in,
    local_address,
    need_terminal,
    new_dir,
    output_file,
    player_name,
    seconds,
    seed,
)
from splitnet.errors import SplitnetError
from splitnet.frontends import bench_of, benched, front_end
from splitnet.games import FIRST, GameSpec, by_key
from splitnet.games import games as all_games
from splitnet.games.split import SPLIT
from splitnet.games.split.bots import LEVELS, parse_level
from splitnet.games.split.rules import Settings, SettingsError
from splitnet.games.splito import SPLITO
from splitnet.text import shown

DESCRIPTION = """\
splitnet — the card game Split, peer to peer, with a deck nobody can stack.

  splitnet play                 you against 3 bots, full screen (--plain: line-based);
                                saved as you play: an unfinished game is offered again
                                (--bot easy|normal|strong: the bots' level)
  splitnet play --game splito   Splito (docs/SPLITO.md) against 3 bots (-n 2–8 players)
  splitnet selfplay -n 4 -s 7   bots play a whole game; prints the summary
  splitnet verify FILE          audit a finished game's transcript
  splitnet replay FILE          step through a finished game, every card open (n/p/q)
  splitnet host                 open a game on the LAN (prints the address and join code)
  splitnet host --game splito   a Splito table on the LAN (2–8 seats; join learns the game)
  splitnet join [ADDR[:PORT]]   join a LAN game (asks for the code; no address: browse)
  splitnet bot ADDR --code C    add a bot to a LAN game (--level easy|normal|strong)
  splitnet watch ADDR           watch a LAN game with its watch code, every proof checked:
                                the table from above, full screen (--plain: a line each)
  splitnet host --internet      also invite players anywhere (prints splitnet join CODE)
  splitnet join CODE            join through that invitation (bot CODE: a bot)
  splitnet watch CODE --plain   watch through its watch invitation, every proof checked
  splitnet browse [--timeout S] list the games announced on the LAN
  splitnet bench engine|bots|deck|net|wormhole|lan-load|splito|adversary  measure speed
                                (bots: strength too; lan-load: many LAN games at once,
                                each checked; splito: its engine, bots and fair-deck game;
                                adversary: games with a dishonest seat, every entry checked;
                                also watch-flood: the players' relay beside 32 hostile
                                watch attempts)
"""


def _bots_arg(text: str, n: int, opt: str = "--bots") -> list[str]:
    try:
        names = [parse_level(t) for t in text.split(",") if t.strip()]
    except ValueError as e:
        raise SystemExit(f"splitnet: {opt}: {shown(str(e))}") from None
    if not names:
        raise SystemExit(f"splitnet: {opt}: name a bot level ({', '.join(LEVELS)})")
    if len(names) == 1:
        return names * n
    if len(names) != n:
        raise SystemExit(f"splitnet: {opt} names {len(names)} bots for {n} players")
    return names


def _think(seconds: float) -> float:
    if not 0.01 <= seconds <= 60:
        raise SystemExit("splitnet: --think must be 0.01–60 seconds")
    return seconds


def _settings(path: str | None) -> Settings:
    if path is None:
        return Settings()
    from splitnet.localfiles import LocalFileError, load_settings

    try:
        return load_settings(Path(path))
    except LocalFileError as e:
        raise SystemExit(f"splitnet: --settings {e}") from None


def cmd_selfplay(args: argparse.Namespace) -> int:
    from splitnet.localfiles import LocalFileError, check_output

    names = _bots_arg(args.bots, args.players)
    if args.samples < 1:
        raise SystemExit("splitnet: --samples must be at least 1")
    try:
        for out, what in ((args.record, "record"), (args.transcript, "transcript")):
            if out is not None:
                check_output(Path(out), what=what)
    except LocalFileError as e:
        raise SystemExit(f"splitnet: {e}") from None
    return front_end(by_key(args.game)).selfplay(args, names)


def selfplay_split(args: argparse.Namespace, names: list[str]) -> int:
    """``selfplay`` for Split (its entry, :data:`splitnet.frontends.SPLIT_FRONT`)."""
    from splitnet.games.split.front.selfplay import run_selfplay

    return run_selfplay(args.players, names, args.seed, _settings(args.settings),
                        record=args.record, transcript=args.transcript, samples=args.samples,
                        local_shuffle=args.local_shuffle, shuffle_proofs=not args.no_proofs)


def selfplay_splito(args: argparse.Namespace, names: list[str]) -> int:
    """``selfplay --game splito`` (:data:`splitnet.frontends.SPLITO_FRONT`)."""
    from splitnet.games.splito.front.selfplay import run_splito_selfplay

    return run_splito_selfplay(args.players, names, args.seed, args.settings,
                               record=args.record, local_shuffle=args.local_shuffle,
                               transcript=args.transcript, samples=args.samples)


def _data_dir(args: argparse.Namespace) -> Path:
    """The data dir, made (or closed to other local users) 0700 with its ``games/``
    (protocol/NETWORK.md §9)."""
    from splitnet.net.store import open_data_dir
    from splitnet.session.identity import default_data_dir

    return open_data_dir(Path(args.data_dir) if getattr(args, "data_dir", None)
                         else default_data_dir())


def _list_saved(data_dir: Path) -> int:
    from splitnet.app import saved

    games = saved.unfinished(data_dir)
    if not games:
        print(f"No unfinished local game in {data_dir}.")
        return 0
    print("Unfinished local games, newest first (resume one with "
          "`splitnet play --resume ID`):")
    for m in games:
        try:
            game = saved.describe(data_dir, m)
        except saved.SavedGameError as e:  # resuming it says the same
            print(f"  {m.game_id[:12]}  {saved.when(m):18}  cannot be resumed: {e}")
            continue
        print(f"  {m.game_id[:12]}  {saved.when(m):18}  {game.game:6}  {game.progress}")
        print(f"  {'':12}  {game.players()}")
    return 0


def _ask_resume(data_dir: Path, meta: Any) -> bool:
    """Ask on the terminal (plain and full screen alike) before the game starts, naming
    the game, how far it got and whom it is against."""
    from splitnet.app import saved

    when = saved.when(meta)
    try:
        game = saved.describe(data_dir, meta)
        what = f"your {game.game} game from {when} ({game.progress}, {game.against()})"
    except saved.SavedGameError:  # resuming it says why
        what = f"the unfinished game from {when}"
    try:
        answer = input(f"splitnet: resume {what}? [Y/n] ")
    except EOFError:  # nobody can answer: the option that does is named
        print(flush=True)  # (ends the prompt's line)
        raise SystemExit(f"splitnet: {what} is saved and stdin is closed, so nobody "
                         "answers 'resume?': pass --resume to take it up, or --new to "
                         "start another") from None
    return answer.strip().lower() not in ("n", "no")


def _play_session(args: argparse.Namespace, pace: float) -> Any:
    """A new saved game, or the saved one the player takes up again."""
    from splitnet.app import saved
    from splitnet.games.split.front.selfplay import human_session, resume_session

    data_dir = _data_dir(args)
    think = _think(args.think)
    meta = None
    try:
        if args.resume is not None:
            meta = saved.find(data_dir, args.resume)
        elif not args.new:  # (a saved game of another game is offered by its --game)
            games = [m for m in saved.unfinished(data_dir)
                     if saved.game_of_saved(data_dir, m) is SPLIT]
            if games and _ask_resume(data_dir, games[0]):
                meta = games[0]
        if meta is not None:
            print(f"Resuming the game from {saved.when(meta)} ({meta.game_id[:12]}): "
                  "checking its log…", file=sys.stderr, flush=True)
            return resume_session(data_dir, meta, bot_delay=pace, think=think)
    except saved.SavedGameError as e:
        raise SystemExit(f"splitnet: cannot resume: {e} (start another game with --new)"
                         ) from None
    names = _bots_arg(args.bot, args.bots, "--bot")
    try:
        return human_session(args.name, names, args.seed, _settings(args.settings),
                             bot_delay=pace, shuffle_proofs=not args.no_proofs,
                             data_dir=data_dir, think=think)
    except (saved.SavedGameError, OSError) as e:
        raise SystemExit(f"splitnet: cannot save the game in {data_dir}: {e}") from None


def _after_play(session: Any, again: str = "splitnet play") -> None:
    """What becomes of the game: its transcript, or the command (``again``) that offers
    to resume it."""
    game = session.game
    path = game.writer.path if game.writer is not None else None
    if path is None:
        return
    if game.finished:
        print(f"Transcript: {path} — check it with `splitnet verify {path}`.", flush=True)
    else:
        print(f"The game is saved: `{again}` offers to resume it (`--new` starts "
              "another).", flush=True)


def _splito_session(args: argparse.Namespace, pace: float) -> Any:
    """``play --game splito``: a new saved Splito game, or the saved one taken up again
    (an unfinished Splito game is offered as a Split one is)."""
    from splitnet.app import saved
    from splitnet.games.splito.front.fair import resume_splito, splito_session

    data_dir = _data_dir(args)
    n = args.players if args.players is not None else 4
    if not 2 <= n <= 8:
        raise SystemExit(f"splitnet: Splito is for 2 to 8 players (S2.1), not {n}")
    if args.settings is not None:
        raise SystemExit("splitnet: --settings is for Split; Splito plays the settings of "
                         "docs/SPLITO.md S13 for its player count")
    if args.no_proofs:
        raise SystemExit("splitnet: Splito is dealt with shuffle proofs only "
                         "(protocol/SPLITO_GAME.md)")
    if args.bots is not None:
        raise SystemExit("splitnet: Splito counts its players with -n (2–8, you included)")
    meta = None
    try:
        if args.resume is not None:
            meta = saved.find(data_dir, args.resume)
        elif not args.new:
            games = [m for m in saved.unfinished(data_dir)
                     if saved.game_of_saved(data_dir, m) is SPLITO]
            if games and _ask_resume(data_dir, games[0]):
                meta = games[0]
        if meta is not None:
            print(f"Resuming the game from {saved.when(meta)} ({meta.game_id[:12]}): "
                  "checking its log…", file=sys.stderr, flush=True)
            return resume_splito(data_dir, meta, bot_delay=pace)
    except saved.SavedGameError as e:
        raise SystemExit(f"splitnet: cannot resume: {e} (start another game with --new)"
                         ) from None
    levels = _bots_arg(args.bot, n - 1, "--bot")
    try:
        return splito_session(args.name, levels, args.seed, bot_delay=pace,
                              data_dir=data_dir)
    except ValueError as e:  # a level Splito has no bot for
        if isinstance(e, saved.SavedGameError):
            raise SystemExit(f"splitnet: cannot save the game in {data_dir}: {e}") from None
        raise SystemExit(f"splitnet: {e}") from None
    except OSError as e:
        raise SystemExit(f"splitnet: cannot save the game in {data_dir}: {e}") from None


#: the command that offers an unfinished Splito game again (`splitnet play` offers Split's)
SPLITO_AGAIN = "splitnet play --game splito"


def play_splito(args: argparse.Namespace) -> int:
    """``play --game splito`` (:data:`splitnet.frontends.SPLITO_FRONT`)."""
    from splitnet.app import saved
    from splitnet.games.splito.front.fair import rematch_dealer, splito_rematch

    pace = 0.0 if args.plain else args.pace
    played = [_splito_session(args, pace)]
    data_dir = _data_dir(args)

    async def one(session: Any) -> tuple[int, bool]:
        """A game at the table: its exit status, and whether n asked for the next."""
        if args.plain:
            from splitnet.games.splito.front.plain import ask_rematch, run_splito_plain
            from splitnet.games.splito.front.table import rematch_keys

            rc = await run_splito_plain(session)
            keys = rematch_keys("local", session.players, session.seat,
                                rematch_dealer(session))
            return rc, rc == 0 and await ask_rematch(session, keys)
        from splitnet.games.splito.front.tui import run_splito_tui

        outcome = await run_splito_tui(session, title="splitnet", rematch="local",
                                       next_dealer=rematch_dealer(session))
        return 0, outcome == "rematch"

    async def main() -> int:
        # n at the end starts the next game against the same players in the same seats,
        # dealt by the dealer's left neighbour (S4.1 [decision]) and saved like the first
        for _ in range(10_000):
            rc, again = await one(played[-1])
            if not again:
                return rc
            _after_play(played[-1], SPLITO_AGAIN)
            try:
                played.append(splito_rematch(played[-1], args.seed, bot_delay=pace,
                                             data_dir=data_dir))
            except (saved.SavedGameError, OSError) as e:
                raise SystemExit(f"splitnet: cannot save the game in {data_dir}: {e}"
                                 ) from None
        return 0

    try:
        return asyncio.run(main())
    finally:
        _after_play(played[-1], SPLITO_AGAIN)


def _game_to_play(args: argparse.Namespace) -> GameSpec:
    """``play --resume ID`` takes the saved game up as the game it is; otherwise
    ``--game``'s."""
    if args.resume is not None:
        from splitnet.app import saved

        data_dir = _data_dir(args)
        try:
            return saved.game_of_saved(data_dir, saved.find(data_dir, args.resume))
        except saved.SavedGameError:
            pass  # (said when it is resumed)
    return by_key(args.game)


def cmd_play(args: argparse.Namespace) -> int:
    if args.saved:
        return _list_saved(_data_dir(args))
    if not args.plain:
        need_terminal("play")
    return front_end(_game_to_play(args)).play(args)


def play_split(args: argparse.Namespace) -> int:
    """``play`` for Split (:data:`splitnet.frontends.SPLIT_FRONT`)."""
    if args.players is not None:
        if args.bots is not None and args.bots != args.players - 1:
            raise SystemExit("splitnet: --players and --bots disagree")
        args.bots = args.players - 1
    if args.bots is None:
        args.bots = 3
    if not 1 <= args.bots <= 5:
        raise SystemExit("splitnet: --bots must be 1–5 (2–6 players in all)")
    from splitnet.app import saved
    from splitnet.games.split.front.selfplay import rematch_dealer, rematch_session

    data_dir = _data_dir(args)
    pace = 0.0 if args.plain else args.pace
    played = [_play_session(args, pace)]

    async def game() -> tuple[int, bool]:
        """The game in ``played[-1]``: its exit status, and was a new one asked for?"""
        if args.plain:
            from splitnet.ui.plain import ask_rematch, run_plain

            rc = await run_plain(played[-1])
            return rc, rc == 0 and await ask_rematch(played[-1], rematch_dealer(played[-1]))
        from splitnet.ui.tui import run_tui

        return 0, await run_tui(played[-1], title="splitnet", rematch=True,
                                next_dealer=rematch_dealer(played[-1])) == "rematch"

    async def tui() -> int:
        # At the end (n on the end screen, n at the plain prompt) the next game of the
        # same table starts (a rematch: the same seats, the deal passed left, R3.2),
        # saved like the first.
        for _ in range(10_000):
            rc, again = await game()
            if not again:
                return rc
            try:
                played.append(rematch_session(played[-1], args.seed, bot_delay=pace,
                                              data_dir=data_dir))
            except (saved.SavedGameError, OSError) as e:
                raise SystemExit(f"splitnet: cannot save the game in {data_dir}: {e}"
                                 ) from None
        return 0

    try:
        return asyncio.run(tui())
    finally:
        for session in played:
            _after_play(session)


def bench_splito(args: argparse.Namespace) -> int:
    """``bench splito`` (:data:`splitnet.frontends.SPLITO_FRONT`)."""
    from splitnet.bench.splito import run_bench_splito

    return run_bench_splito(args.only, args.players, args.games, _think(args.think),
                            args.samples, args.seed, levels=not args.no_levels)


def cmd_bench(args: argparse.Namespace) -> int:
    from splitnet.bench import split as bench

    game_bench = bench_of(args.what)  # a game's own benchmark (``bench splito``)
    if game_bench is not None:
        return game_bench(args)
    if args.what == "adversary":
        from splitnet.bench.adversary import bench_adversary

        if not 1 <= args.jobs <= 64:
            raise SystemExit("splitnet: --jobs is a number of processes, 1 to 64")
        if args.first < 0 or (args.games is not None and args.games < 1):
            raise SystemExit("splitnet: --games is at least 1 and --first 0 or more")
        text, clean = bench_adversary(args.games or 200, args.seed, args.jobs, args.first)
        print(text)
        return 0 if clean else 1
    if args.what == "pake":
        from splitnet.bench.pake import bench_pake

        print(bench_pake(args.games or 200))
        return 0
    if args.what == "watch-flood":
        from splitnet.bench.watch_flood import bench_watch_flood

        print(bench_watch_flood(args.games or 2, seed=args.seed, timeout=args.timeout))
        return 0
    if args.what == "lan-load":
        from splitnet.bench.lan_load import lan_load

        try:
            n = int(args.players or "6")
        except ValueError:
            raise SystemExit(f"splitnet: bench lan-load takes one seat count 2–6 (R3.1), "
                             f"not {args.players!r}") from None
        try:
            report, ok = lan_load(args.games or 12, n, seed=args.seed,
                                  proofs=not args.no_proofs, timeout=args.timeout,
                                  kill=args.kill, baseline=not args.no_baseline,
                                  keep=Path(args.keep) if args.keep else None)
        except ValueError as e:
            raise SystemExit(f"splitnet: {e}") from None
        print(report)
        return 0 if ok else 1
    text = args.players or "2,4,6"
    try:
        players = [int(x) for x in text.split(",")]
    except ValueError:
        raise SystemExit(f"splitnet: --players is a list of numbers like 2,4,6, not "
                         f"{text!r}") from None
    # The deck layer takes 2–8 seats (Splito); a Split game over the net 2–6 (R3.1).
    top = 8 if args.what == "deck" else 6
    if args.what in ("deck", "net", "wormhole") and not all(2 <= n <= top for n in players):
        raise SystemExit(f"splitnet: bench {args.what} takes 2–{top} players, not "
                         f"{text!r}")
    if args.what == "engine":
        print(bench.bench_engine(args.games or 200))
    elif args.what == "bots":
        if args.samples is not None and args.samples < 1:
            raise SystemExit("splitnet: --samples must be at least 1")
        if not 1 <= args.jobs <= 64:
            raise SystemExit("splitnet: --jobs is a number of processes, 1 to 64")
        if args.first < 0:
            raise SystemExit("splitnet: --first is a game number, 0 or more")
        if args.candidates is not None and args.candidates < 2:
            raise SystemExit("splitnet: --candidates must be at least 2")
        if args.margin is not None and not 0 <= args.margin < 1:
            raise SystemExit("splitnet: --margin is a gain in chance of winning, 0 to 1")
        print(bench.bench_bots(args.games or 40, budget=_think(args.think),
                               samples=args.samples, seed=args.seed,
                               spread_games=args.spread_games, levels=not args.no_levels,
                               margin=args.margin, candidates=args.candidates,
                               jobs=args.jobs, fixed=not args.no_fixed,
                               normal=not args.no_normal, first=args.first,
                               clock=not args.no_clock))
    elif args.what == "deck":
        print(bench.bench_deck(players, proofs=not args.no_proofs))
    elif args.what == "net":
        from splitnet.bench.net import bench_net

        print(bench_net(players, proofs=not args.no_proofs))
    elif args.what == "wormhole":
        from splitnet.bench.net import bench_wormhole

        print(bench_wormhole(players, proofs=not args.no_proofs))
    else:
        raise SystemExit(f"splitnet: unknown benchmark {args.what!r}")
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    from splitnet.verify import run_verify

    return run_verify([Path(f) for f in args.file], as_json=args.json)


def cmd_replay(args: argparse.Namespace) -> int:
    from splitnet.replay import run_replay

    return run_replay(Path(args.file), step=args.step, interactive=False if args.all else None)


def cmd_browse(args: argparse.Namespace) -> int:
    from splitnet.net.discovery import run_browse

    return run_browse(args.timeout, interfaces=args.interface)


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The whole command line; given ``argv``, the LAN commands (``host``, ``join``,
    ``bot``: the network stack, a third of a second to import) are only added when the
    command is not one of the others, so ``splitnet play`` starts without them."""
    p = Parser(prog="splitnet", description=DESCRIPTION,
               formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND",
                           title="commands (splitnet COMMAND --help for its options)")

    sp = sub.add_parser("selfplay", help="bots play a whole game; prints a summary",
                        description="Bots play a whole game among separate in-memory peers "
                                    "through the fair-deck protocol; prints the summary. The "
                                    "same arguments always give the same transcript and record.")
    sp.add_argument("--game", choices=tuple(g.key for g in all_games()), default=FIRST.key,
                    help="split (default) or splito (docs/SPLITO.md; on the fair deck, "
                         "protocol/SPLITO_GAME.md)")
    sp.add_argument("--players", "-n", type=int_in(1, 99), default=4,
                    help="2–6 for Split, 2–8 for Splito (default 4)")
    sp.add_argument("--seed", "-s", type=seed, default=0,
                    help="derives every peer's secrets: same seed, same game")
    sp.add_argument("--bots", default="normal",
                    help="one bot level for every seat, or a comma list per seat "
                         f"({', '.join(LEVELS)}; default normal)")
    sp.add_argument("--samples", type=int_in(1, 100_000), default=48, metavar="N",
                    help="strong bots: samples per decision (a fixed count, not a time, so "
                         "the same seed gives the same game; default 48)")
    sp.add_argument("--record", metavar="FILE", type=output_file("record"),
                    help="write the game record (JSON)")
    sp.add_argument("--transcript", metavar="FILE", type=output_file("transcript"),
                    help="write the signed transcript")
    sp.add_argument("--settings", metavar="FILE", help="settings JSON (protocol/SETTINGS.md)")
    sp.add_argument("--local-shuffle", action="store_true",
                    help="deal with the seeded local stand-in instead of the fair-deck "
                         "protocol (a test tool: no transcript)")
    sp.add_argument("--no-proofs", action="store_true",
                    help="skip the zero-knowledge shuffle proofs (hops are still checked "
                         "at each round's audit)")
    sp.set_defaults(func=cmd_selfplay)

    pl = sub.add_parser("play", help="play against bots on this machine",
                        description="Play Split (or Splito: --game splito) against bots on "
                                    "this machine, full screen (--plain: line based). Press "
                                    "? in the game for the keys.")
    pl.add_argument("--game", choices=tuple(g.key for g in all_games()), default=FIRST.key,
                    help="split (default) or splito (docs/SPLITO.md; dealt on the fair "
                         "deck, protocol/SPLITO_GAME.md)")
    pl.add_argument("--plain", action="store_true", help="line-based front end")
    pl.add_argument("--players", "-n", type=int_in(1, 99), default=None,
                    help="players in all, you included: 2–6 for Split, 2–8 for Splito "
                         "(default 4)")
    pl.add_argument("--bots", type=int_in(1, 5), default=None,
                    help="Split: number of bots, 1–5 (default 3; the same as -n minus 1)")
    pl.add_argument("--bot", default="normal", metavar="LEVEL",
                    help=f"the bots' level: {', '.join(LEVELS)} (default normal); or a "
                         "comma list, one per bot (Splito: the levels docs/PLAYING.md lists)")
    pl.add_argument("--think", type=seconds(0.01, 60), default=0.3, metavar="SECONDS",
                    help=THINK_HELP)
    pl.add_argument("--name", default="You", type=player_name,
                    help="your name at the table (1–32 characters)")
    pl.add_argument("--seed", type=seed, default=None,
                    help="fix the bots and deal (testing; replaces a finished game with "
                         "the same seed; strong bots still think by the clock)")
    pl.add_argument("--settings", metavar="FILE", help="settings JSON (protocol/SETTINGS.md)")
    pl.add_argument("--pace", type=seconds(0, 10), default=0.4, metavar="SECONDS",
                    help="pause before each bot move so you can follow it (default 0.4)")
    pl.add_argument("--no-proofs", action="store_true",
                    help="skip the shuffle proofs (hops are still checked at each audit)")
    pl.add_argument("--data-dir", metavar="DIR", type=data_dir,
                    help="where games are saved as they are played (default: "
                         "$XDG_DATA_HOME/splitnet or ~/.local/share/splitnet)")
    pl.add_argument("--resume", nargs="?", const="latest", metavar="GAME_ID",
                    type=game_prefix,
                    help="take up an unfinished game without asking (the newest, or the "
                         "one whose id starts with GAME_ID)")
    pl.add_argument("--new", action="store_true",
                    help="start a new game even if an unfinished one is saved")
    pl.add_argument("--saved", action="store_true",
                    help="list the unfinished games that can be resumed, and exit")
    pl.set_defaults(func=cmd_play)

    vf = sub.add_parser("verify", help="audit a game transcript; exit 0 if all is fair",
                        description="Audit a game from its transcript alone (every signature, "
                                    "proof, move and shuffle). Exit status 0: a finished game, "
                                    "all fair; 1: a check failed (the entry and the seat at "
                                    "fault are named) or the file is no transcript; 3: "
                                    "incomplete (everything present verified, game not over).")
    vf.add_argument("file", nargs="+",
                    help="a .splitlog transcript; several: a game and its rematches, in "
                         "order (each must follow the one before it)")
    vf.add_argument("--json", action="store_true", help="print the verified game record")
    vf.set_defaults(func=cmd_verify)

    rp = sub.add_parser("replay", help="step through a finished game, every card open",
                        description="Show a finished game (Split or Splito) turn by turn "
                                    "with every card open, from its transcript (verified "
                                    "first) or its game record (checked first).")
    rp.add_argument("file", help="a transcript (.splitlog, verified first) or a game record")
    rp.add_argument("--step", action="store_true",
                    help="step through it even when input is not a terminal (the default "
                         "at a terminal): Enter/n next, p back, N go to step N, r N round "
                         "N, q quit; the whole table is shown after each step")
    rp.add_argument("--all", action="store_true",
                    help="print the whole game at once, as into a pipe")
    rp.set_defaults(func=cmd_replay)

    bn = sub.add_parser("bench", help="benchmarks: speed of engine, deck, net; bot strength",
                        description="Measure speed: rules-engine games and rollouts per "
                                    "second, the bots' strength and time per decision and per "
                                    "turn, the "
                                    "fair-deck protocol's costs, or a LAN game on loopback "
                                    "beside the same game in one process, or the "
                                    "wormhole relay path beside the LAN path, or many LAN "
                                    "games at once on loopback (lan-load: each checked to "
                                    "start with every seat, finish, and leave identical "
                                    "transcripts that verify); splito: Splito's engine and "
                                    "rollout speed, its bots' strength and a whole game on "
                                    "the fair deck by player count; adversary: whole "
                                    "games with one dishonest seat choosing at every "
                                    "message among honest, drop, delay, reorder, "
                                    "substitute, replay and more, an oracle checking what "
                                    "each seat can read and whom each verdict names (exit "
                                    "1 on a violation); watch-flood: the players' relay "
                                    "latency on loopback with and without 32 hostile "
                                    "watch attempts, as a ratio; pake: the handshakes' "
                                    "SPAKE2 (libsodium) against python-spake2's, as a "
                                    "ratio.")
    bn.add_argument("what", choices=["engine", "bots", "deck", "net", "wormhole",
                                     "lan-load", *benched(), "adversary", "watch-flood",
                                     "pake"])
    bn.add_argument("--only", default=None, metavar="PARTS",
                    help="splito: a comma list of engine, bots, fair (default all three)")
    bn.add_argument("--players", default=None,
                    help="player counts (default 2,4,6): deck 2–8 (Splito seats up to 8), "
                         "net and wormhole 2–6 (R3.1); lan-load: the seats of each game "
                         "(default 6); splito: engine and fair 2–8 (default 2,4,8), bots "
                         "the first count (default 4)")
    bn.add_argument("--no-proofs", action="store_true",
                    help="net: games without shuffle proofs; deck: skip the section with "
                         "shuffle proofs")
    bn.add_argument("--games", type=int_in(1, 10_000_000), default=None,
                    help="engine: games per bot kind (default 200); bots: games of 1 strong "
                         "vs 3 normal (default 40; the goal's figure needs ≥ 1000); "
                         "lan-load: games at once (default 12); splito: engine games per "
                         "player count (default 5) and strong-bot games (default 8); "
                         "adversary: adversarial games (default 200); watch-flood: games "
                         "of one round alone and under the flood (default 2 each); pake: "
                         "exchanges timed (default 200; a tenth of them for "
                         "python-spake2)")
    bn.add_argument("--think", type=seconds(0.01, 60), default=0.3, metavar="SECONDS",
                    help="bots, splito: " + THINK_HELP.removeprefix("strong bots: "))
    bn.add_argument("--samples", type=int_in(1, 100_000), default=None, metavar="N",
                    help="bots, splito: N samples per decision instead of a time "
                         "(deterministic)")
    bn.add_argument("--margin", type=fraction, default=None, metavar="P",
                    help="bots: the gain in chance of winning another move needs over the "
                         "normal bot's to be chosen (default 0.02)")
    bn.add_argument("--candidates", type=int_in(1, 1000), default=None, metavar="K",
                    help="bots: moves compared per decision (default 7)")
    bn.add_argument("--seed", type=seed, default=0,
                    help="bots, lan-load, adversary: the games' base seed (lan-load: game i "
                         "of seed S plays --test-seed S×1000+i; default 0)")
    bn.add_argument("--timeout", type=seconds(1, 86_400), default=900.0, metavar="SECONDS",
                    help="lan-load: each game's bound; still running after it, it is "
                         "killed and counts as not finished (default 900); watch-flood: "
                         "each game's bound")
    bn.add_argument("--kill", action="store_true",
                    help="lan-load: in each game, once it is under way, kill -9 one peer "
                         "(host or bot, chosen by the seed) and start it again")
    bn.add_argument("--no-baseline", action="store_true",
                    help="lan-load: skip the one game run alone first (the figures' "
                         "reference)")
    bn.add_argument("--keep", metavar="DIR", default=None, type=new_dir,
                    help="lan-load: keep every data dir and log in DIR (a new directory)")
    bn.add_argument("--spread-games", type=int_in(1, 10_000_000), default=30, metavar="N",
                    help="bots: games for the round-1 target spread (default 30)")
    bn.add_argument("--no-levels", action="store_true",
                    help="bots, splito: skip the easy-vs-normal/random games")
    bn.add_argument("--no-fixed", action="store_true",
                    help="bots: skip 1 strong vs 3 heuristics with fixed targeting")
    bn.add_argument("--no-normal", action="store_true",
                    help="bots: skip 1 strong vs 3 normal bots")
    bn.add_argument("--no-clock", action="store_true",
                    help="bots: the strong bot's rule without its time budgets "
                         "(deterministic, as a machine that no budget binds on plays it; "
                         "the turn times show what the budgets would cut)")
    bn.add_argument("--first", type=int_in(0, 10_000_000), default=0, metavar="I",
                    help="bots, adversary: number the games from I (a run split in "
                         "parts: --first 0 and --first 500 of --games 500 are the games "
                         "of --games 1000; default 0)")
    bn.add_argument("--jobs", "-j", type=int_in(1, 256), default=1, metavar="J",
                    help="bots, adversary: play the games in J processes (the figures do "
                         "not depend on it — bots: while no budget cuts a strong bot's "
                         "decision short; default 1)")
    bn.set_defaults(func=cmd_bench)

    br = sub.add_parser("browse", help="list the games announced on the LAN",
                        description="List the splitnet games announced on the LAN (mDNS), "
                                    "with the command that joins each.")
    br.add_argument("--timeout", type=seconds(0, 86_400), default=None, metavar="S",
                    help="listen S seconds, list what was found and exit (default: show "
                         "games as they appear and vanish until Ctrl-C)")
    br.add_argument("--interface", action="append", metavar="ADDR", type=local_address,
                    help="only the interface with this address (repeatable; e.g. 127.0.0.1)")
    br.set_defaults(func=cmd_browse)

    command = next((a for a in (argv or []) if not a.startswith("-")), None)
    if argv is None or command not in sub.choices:
        from splitnet.app.lan_args import add_parsers

        add_parsers(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = build_parser(argv).parse_args(argv)
    try:
        rc: int = args.func(args)
    except KeyboardInterrupt:
        return 130
    except SettingsError as e:  # the settings and the player count do not fit (R3.1, R3.3)
        print(f"splitnet: {e}", file=sys.stderr)
        return 1
    except SplitnetError as e:  # bad input (a damaged file in the data dir…): one line
        print(f"splitnet: {shown(str(e))}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # whoever read our output stopped (`| head`): stop quietly
        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except OSError as e:  # writing an output file the user named
        print(f"splitnet: {shown(str(e))}", file=sys.stderr)
        return 1
    return rc


if __name__ == "__main__":
    sys.exit(main())
