"""``splitnet play --game splito``: you and bots at a Splito table on this machine, every
card dealt by the fair-deck protocol among separate in-memory peers
(:class:`splitnet.games.splito.core.SplitoCore`, protocol/SPLITO_GAME.md), the game kept
in the data directory as it is played (:mod:`splitnet.app.saved`) so an interrupted one
can be taken up again and a finished one checked with ``splitnet verify``.

:class:`SplitoFairSession` is a :class:`~splitnet.frontend.SplitoTableSession`: the
front ends (``splitnet.games.splito.front.plain``,
``splitnet.games.splito.front.tui``) read only it.
Every turn is simultaneous (S5.2): the bots commit one after another (each after the
pace delay, thinking off the event loop on a copy of its own view) while the table waits
for your play; nothing is revealed until every commitment is in the log (S7.3).
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import secrets
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from splitnet.frontend import SessionBase, SplitoHumanAgent
from splitnet.game.table import PROTOCOL, GameError, PledgeBook
from splitnet.games.split.local import LocalGame
from splitnet.games.splito.bots import Bot, make_bot
from splitnet.games.splito.core import SplitoCore, splito_from_header, splito_header
from splitnet.games.splito.describe import SplitoNarrator
from splitnet.games.splito.engine import Game, Phase, Play
from splitnet.games.splito.settings import SplitoSettings

if TYPE_CHECKING:
    from splitnet.app.saved import LocalSecrets
    from splitnet.session.log import Header
    from splitnet.session.transcript import TranscriptWriter



def can_choose(view: Game, seat: int) -> bool:
    """Is a play of ``seat``'s awaited now (S5.2): the commit phase, no commitment of its
    own yet, and every card of its hand readable (after a pass, S5.4, the hand is read
    once the sealed shares are in)?"""
    return (view.phase is Phase.COMMIT and not view.committed(seat)
            and bool(view.hands[seat])
            and all(view.faces[s] is not None for s in view.hands[seat]))


class SplitoFairSession(SessionBase):
    """You and bots at a Splito table on the fair deck (a SplitoTableSession)."""

    def __init__(self, game: LocalGame[SplitoCore], seat: int, bots: Sequence[Bot | None],
                 human: SplitoHumanAgent, bot_delay: float = 0.0) -> None:
        super().__init__(game.names, seat)
        self.game = game
        self.core = game.cores[seat]
        self.bots = bots
        self.human = human
        self.bot_delay = bot_delay
        self._narrator = SplitoNarrator(self.players, seat)
        #: set while the table waits for our play (the human agent is listening)
        self._human_ready = asyncio.Event()
        game.listeners.append(self._on_entry)

    @property
    def view(self) -> Game:
        return self.core.engine

    @property
    def record(self) -> dict[str, Any] | None:
        """The game record (S12) once the audit has opened every card (S7.5)."""
        return self.core.record

    def _on_entry(self, author: int, kind: str, body: dict[str, Any]) -> None:
        news = self._narrator.after_entry(self.core, author, kind, body)
        self._tell(news)
        self._status_now()
        self._changed()

    def _status_now(self) -> None:
        progress = self.core.progress()
        if can_choose(self.view, self.seat) and not self.core.finished:
            self.status = f"your play — {progress}"
        else:
            self.status = progress

    async def submit(self, play: Play) -> None:
        # The turn may have opened on this seat's view an instant before the table's loop
        # turned to wait for our play: wait for that (not for the bots).
        if not self.human.waiting and can_choose(self.view, self.seat) and not self.finished:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._human_ready.wait(), timeout=5)
        await self.human.submit(play)

    async def chat(self, text: str) -> None:
        try:
            self.game.send(self.seat, "chat", {"text": text[:500]})
        except GameError as e:  # S5.5: no chat during play unless the table agreed
            from splitnet.games.splito.engine import IllegalMove

            raise IllegalMove("S5.5", str(e).split("S5.5: ", 1)[-1]) from None

    async def run(self) -> None:
        g = self.game
        human: asyncio.Task[Play] | None = None
        try:
            for _ in range(1_000_000):
                if human is not None and human.done():
                    human.result()
                    human = None
                    self._human_ready.clear()
                if g.finished:
                    if g.verdict is not None:
                        raise g.verdict
                    break
                if g.pump():
                    await asyncio.sleep(0)
                    continue
                movers = [s for s in range(g.n) if g.cores[s].can_move()]
                if not movers:
                    if human is not None and not human.done():
                        await asyncio.wait([human], timeout=0.05)
                        continue
                    raise RuntimeError("the game is stuck: nobody owes a message")
                if self.seat in movers and human is None:
                    human = asyncio.create_task(self.human.choose_and_apply(
                        lambda p: g.play_move(self.seat, p)))
                    await asyncio.sleep(0)  # the agent is listening from here on
                    self._human_ready.set()
                    self._status_now()
                    self._changed()
                bots = [s for s in movers if s != self.seat]
                if bots:
                    await asyncio.sleep(self.bot_delay)
                    s = bots[0]
                    bot = self.bots[s]
                    assert bot is not None
                    view = g.cores[s].engine
                    play = await asyncio.to_thread(bot.choose, view.clone(), s)
                    if g.cores[s].can_move():
                        g.play_move(s, play)
                    continue
                assert human is not None
                await asyncio.wait([human])
        except GameError as e:
            self.verdict = f"game stopped: {e}"
            self.log.append(self.verdict)
        finally:
            if human is not None and not human.done():
                human.cancel()
                await asyncio.gather(human, return_exceptions=True)
            g.close()
        self.finished = True
        self.status = "game over" if g.verdict is None else f"game stopped: {g.verdict}"
        self._changed()


def _make_core(names: Sequence[str], settings: SplitoSettings
               ) -> Callable[[bytes, int, Callable[[int], bytes], PledgeBook, list[bytes]],
                             SplitoCore]:
    def make(game_id: bytes, seat: int, seeds: Callable[[int], bytes], pledges: PledgeBook,
             keys: list[bytes]) -> SplitoCore:
        return SplitoCore(game_id, list(names), settings, seat, seeds, pledges=pledges,
                          checker=checker)
    # You and the bots in one process: the other seats' shuffle proofs are checked in
    # worker processes (the machine's other core), each hop once for all the peers here
    # (protocol/SECURITY.md §2.1, "Checked once per process").
    from splitnet.game.pool import shared_pool

    checker = shared_pool()
    return make


def splito_session(name: str, bot_levels: Sequence[str], seed: int | None,
                   settings: SplitoSettings | None = None, *, bot_delay: float = 0.0,
                   data_dir: Path | None = None) -> SplitoFairSession:
    """You (seat 0) against bots of ``bot_levels`` at a Splito table (2–8 players, S2.1),
    every card dealt by the fair-deck protocol. With ``seed`` every peer's secrets and the
    bots are reproducible (testing); without, the secrets come from the OS. With
    ``data_dir`` the game is saved there as it is played (:func:`resume_splito`)."""
    from splitnet.games.split.bots import bot_player_name

    n = len(bot_levels) + 1
    settings = settings if settings is not None else SplitoSettings.standard(n)
    if settings.players != n:
        raise ValueError(f"the settings are for {settings.players} players, not {n} (S2.1)")
    names = [name] + [bot_player_name(i, taken=[name]) for i in range(len(bot_levels))]
    return _new_session(names, 0, [None, *bot_levels], seed, splito_header(settings, PROTOCOL),
                        None, bot_delay=bot_delay, data_dir=data_dir)


def splito_rematch(prev: SplitoFairSession, seed: int | None, *, bot_delay: float = 0.0,
                   data_dir: Path | None = None) -> SplitoFairSession:
    """The next game of ``prev``'s table (n at its end screen): the same players in the
    same seats with the same identity keys, bot levels and rules, its header naming the
    game before (GAME.md "Rematch", as on a LAN, so ``splitnet verify FIRST SECOND``
    checks the pair) and dealt by the previous dealer's left neighbour (S4.1
    [decision]); saved in ``data_dir`` and resumable like any game. With ``seed`` (the
    first game's) it is reproducible too: its secrets come from that seed and the
    previous game's id. ValueError if ``prev`` did not end with its audit passed."""
    from splitnet.app import saved
    from splitnet.game.rematch import rematch_settings

    g = prev.game
    if not g.finished or g.verdict is not None or prev.record is None:
        raise ValueError("a rematch follows a game played to its end")
    header = rematch_settings(g.log.header, g.log.head())
    kinds = [b.name if b is not None else None for b in prev.bots]
    keys = [g.source.identity_seed(s) for s in range(g.n)]
    seed = saved.rematch_seed(seed, b"splitnet/splito/rematch", g.log.game_id)
    return _new_session(list(prev.players), prev.seat, kinds, seed, header, keys,
                        bot_delay=bot_delay, data_dir=data_dir)


def rematch_dealer(session: SplitoFairSession) -> int:
    """The seat that deals the rematch of ``session``'s game (S4.1 [decision]: the
    dealer's left neighbour) — whom its end screen's n names."""
    from splitnet.game.rematch import next_dealer

    return next_dealer(session.game.log.header)


def _new_session(names: list[str], seat: int, kinds: list[str | None], seed: int | None,
                 header: dict[str, Any], keys: list[bytes] | None, *, bot_delay: float,
                 data_dir: Path | None) -> SplitoFairSession:
    """A new Splito game with this header settings map: the person at ``seat``, a bot of
    ``kinds[s]`` at every other seat (seeded from ``seed``, or at random), the seats'
    identity ``keys`` given (a rematch) or made; saved in ``data_dir`` if given."""
    from splitnet.app import saved

    settings, _ = splito_from_header(header)
    rng = random.Random(seed if seed is not None else secrets.randbits(64))
    bot_seeds = [rng.randrange(2**31) if k is not None else 0 for k in kinds]
    bots: list[Bot | None] = [make_bot(k, bot_seeds[s]) if k is not None else None
                              for s, k in enumerate(kinds)]
    source, path = saved.new_source(data_dir, seed, names[seat], seat, kinds, bot_seeds,
                                    keys)
    game = LocalGame(names, settings, source, transcript=path,
                     make_core=_make_core(names, settings), header=header)
    if data_dir is not None:
        saved.finish_when_over(game, data_dir)
    return SplitoFairSession(game, seat, bots, SplitoHumanAgent(), bot_delay=bot_delay)


def resume_splito(data_dir: Path, meta: Any, *, bot_delay: float = 0.0) -> SplitoFairSession:
    """Take up a saved Splito game where it stopped: the transcript is reopened (a torn
    tail from a crash is cut), every entry re-verified and re-applied to every seat with
    the seeds each seat saved (so a play committed before the stop is revealed as
    committed, S7.3), and the log narrated again. Raises
    :class:`~splitnet.app.saved.SavedGameError` (one line) if it cannot be resumed."""
    from splitnet.app import saved

    def build(h: Header, source: LocalSecrets, writer: TranscriptWriter
              ) -> tuple[LocalGame[SplitoCore], SplitoFairSession]:
        settings, _ = splito_from_header(h.settings)
        names = [p.name for p in h.players]
        game = LocalGame(names, settings, source, writer=writer,
                         make_core=_make_core(names, settings),
                         header=splito_header(settings, PROTOCOL))
        bots = [make_bot(k, source.bot_seeds[s]) if k is not None else None
                for s, k in enumerate(source.bots)]
        return game, SplitoFairSession(game, meta.seat, bots, SplitoHumanAgent(),
                                       bot_delay=bot_delay)

    return saved.resume_local(data_dir, meta, build)
