"""A LAN Splito game for one seat: :class:`SplitoNetSession`, the
:class:`~splitnet.frontend.SplitoTableSession` over a host or joiner node (the Split
session is :class:`~splitnet.app.lan_session.NetSession`).

The session drives one seat — a person (the front end calls :meth:`submit`) or a Splito
bot (:mod:`splitnet.games.splito.bots`) — on the seat's own
:class:`~splitnet.games.splito.core.SplitoCore`: ``view`` is that core's engine (the seat's
hand, the hands it held, the zones and the central objectives, S7), the log is told in
lines as entries arrive (:class:`~splitnet.games.splito.describe.SplitoNarrator`, as for a game
on this machine) and the status names whose commitment is still missing (S7.3).

S5.6: with the table's ``turn_timeout_s``, a seat that has not chosen its play that long
after its turn opened has it chosen by its own program — this session, which alone knows
the hand: its first card in id order, to the left (:meth:`Game.timeout_play`). No one
else can (the host never sees a hand). A seat gone for good stops the game (the host's
``timeout`` names it), unless the host gives it up and the others play on without it
(S5.7: ``--open-hand-after``, or the host's person at :meth:`open_hand_offer`;
protocol/SPLITO_GAME.md).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

from splitnet.app.lan_session import OFFER_OPEN_HAND_AFTER, LanSeat, Node
from splitnet.frontend import SplitoTableSession
from splitnet.games.splito.bots import Bot, make_bot
from splitnet.games.splito.core import SplitoCore, Stage
from splitnet.games.splito.describe import SplitoNarrator
from splitnet.games.splito.engine import Game, IllegalMove, Phase, Play
from splitnet.net.wire import WireError
from splitnet.session.log import Entry


def splito_bot(level: str, seed: int) -> Bot:
    """The Splito bot for a command's ``--level``: the same names as Split's — easy,
    normal (the heuristic that weighs both zones), strong (the search,
    :mod:`splitnet.games.splito.search`); ValueError naming the choices."""
    return make_bot(level, seed)


class SplitoNetSession(LanSeat[Play]):
    """A LAN Splito game for one seat (a SplitoTableSession): a person's or a bot's."""

    core: SplitoCore
    illegal = IllegalMove
    give_up_rule = "S5.7"

    def __init__(self, node: Node, task: asyncio.Future[Any], *, bot: Bot | None = None,
                 human: bool = False, bot_delay: float = 0.0,
                 clock: Callable[[], float] | None = None,
                 offer_after: float = OFFER_OPEN_HAND_AFTER) -> None:
        table = node.table
        if table is None:
            raise ValueError("the game has not started")
        if not isinstance(table.core, SplitoCore):
            raise ValueError("this game is not Splito: its session is NetSession")
        if (bot is None) == (not human):
            raise ValueError("a seat is played by exactly one of a bot or a person")
        self.core: SplitoCore = table.core
        super().__init__(node, task, table, bot_delay, clock, offer_after)
        #: the seat's own engine (the core keeps this one object for the whole game)
        self.view: Game = self.core.engine
        self.bot = bot
        self.human = human
        #: S5.6: the table's limit on choosing a play (None: no limit)
        self.turn_timeout: int | None = self.core.settings.turn_timeout_s
        #: (turn, since when this seat may choose its play), for S5.6
        self._turn_open: tuple[int, float] | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._narrator = SplitoNarrator(self.players, self.seat)
        table.listeners.append(self._on_entry)
        node.subscribe(self._on_net)
        told = table.narrator
        resumed = self.core.stage in (Stage.PLAY, Stage.PASS) and self.view.turn > 1
        if (resumed and table.narrated == len(table.log) - 1
                and isinstance(told, SplitoNarrator)):
            # restarted from the saved transcript: the game so far, as it was told
            self.log.extend(table.history)
            self._narrator = told
            self.log.append(f"Resumed the game: {self._where()}.")
        elif resumed:
            self._narrator.resume(self.view)  # (caught up over the network: not told)
            self.log.append(f"Resumed the game: {self._where()}.")
        else:
            self.log.extend(self._narrator.after_change(self.view))  # the deal, if done
        if self.seat in self.view.gone:  # S5.7: given up while this program was away
            self.log.append(f"You were given up as gone for good and left the game at turn "
                            f"{self.view.gone[self.seat]} (S5.7): you watch the others play "
                            "to the end.")
        self._refresh()

    @property
    def record(self) -> dict[str, Any] | None:
        """The game record (S12) once the audit wrote it, else None."""
        return self.core.record

    def _where(self) -> str:
        if self.core.stage in (Stage.PLAY, Stage.PASS):
            return f"turn {self.view.turn} of {self.view.turns}"
        return str(self.core.stage.value)

    # ------------------------------------------------------------------ the log in words
    def _name(self, seat: int) -> str:
        return "You" if seat == self.seat else self.players[seat]

    def _on_entry(self, entry: Entry) -> None:
        news = self._narrator.after_entry(self.core, entry.author, entry.kind,
                                          dict(entry.body))
        self._tell(news)
        self._changed()

    def _on_net(self) -> None:
        evidence = getattr(self.node, "evidence", [])
        for seat, kind, reason in evidence[self._evidence_seen:]:
            who = self._name(seat)
            self.log.append(f"Refused {who}'s {kind}: {reason} — kept as evidence.")
        self._evidence_seen = len(evidence)
        self._changed()

    def _track(self) -> None:
        self._track_turn()

    def _over_status(self) -> str:
        return "game over" if self.core.verdict is None else self.core.progress()

    def _playing_status(self, notes: list[str]) -> str:
        base = self.core.progress()
        if self.human and self._my_turn():
            base = "your play — " + base  # (as on this machine: splito_fair)
            if self._turn_open is not None and self.turn_timeout is not None:
                left = self._turn_open[1] + self.turn_timeout - self.clock()
                notes.append(f"{max(0, int(left))} s left, then your first card goes "
                             "left (S5.6)")
        return base + ("  — " + "; ".join(notes) if notes else "")

    # ------------------------------------------------------------------ S5.6
    def _track_turn(self) -> None:
        """Note when this seat's turn opened; with ``turn_timeout_s``, wake when it is up."""
        if not self._my_turn():
            if self._turn_open is not None and self.view.turn != self._turn_open[0]:
                self._turn_open = None
            return
        turn = self.view.turn
        if self._turn_open is None or self._turn_open[0] != turn:
            self._turn_open = (turn, self.clock())
            if self.turn_timeout is not None:
                if self._timer is not None:
                    self._timer.cancel()
                with contextlib.suppress(RuntimeError):  # no loop: checked when asked
                    self._timer = asyncio.get_running_loop().call_later(
                        self.turn_timeout + 0.01, self._wake.set)

    def time_is_up(self) -> bool:
        """S5.6: this seat's time to choose its play this turn is over."""
        return (self.turn_timeout is not None and self._turn_open is not None
                and self._my_turn() and self._turn_open[0] == self.view.turn
                and self.clock() - self._turn_open[1] >= self.turn_timeout)

    # ------------------------------------------------------------------ acting
    def _my_turn(self) -> bool:
        core = self.core
        return (self.node.ready and core.can_move() and not core.finished
                and core.engine.phase is Phase.COMMIT)

    def _send_move(self, play: Play) -> None:
        """Check the play on our own core (IllegalMove: nothing changes); it is kept
        durably, then its commitment is sent (the core sends it again if it is lost)."""
        body = self.core.move_message(play)
        try:
            sent = self.node.send_game("move", body)
        except WireError as e:  # the host refused its own seat's commitment
            raise IllegalMove("net", e.reason) from None
        if not sent:
            self.log.append("Your play is kept; its commitment goes out as soon as the host "
                            "is reached.")
        self._changed()

    async def submit(self, play: Play) -> None:
        """Commit the person's play of this turn (S5.2, S7.3); IllegalMove if refused."""
        if not self.human:
            raise IllegalMove("S5.2", "this seat is played by a bot")
        if not self._my_turn() and self.core.can_move() and not self.finished:
            # the game lets us play and the node is an instant from ready (in sync with
            # the host): wait for it (bounded) rather than refuse a play made in time
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(5.0):
                    while not self._my_turn() and self.core.can_move():
                        self._wake.clear()
                        await self._wake.wait()
        if not self._my_turn():
            raise IllegalMove("S5.2", "you cannot choose a play now: "
                              + (self.node.net_status or self.core.progress()))
        turn = self.view.turn
        self._send_move(play)
        # back once the commitment is in the log (the view says so, as a front end reads
        # it), the connection is lost (it is resent from the kept play), or after 30 s
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(30.0):
                while (not self.finished and self.node.ready and self.view.turn == turn
                       and not self.view.committed(self.seat)):
                    self._wake.clear()
                    await self._wake.wait()

    def _timeout_play(self) -> None:
        play = self.view.timeout_play(self.seat)
        self.log.append(f"Time is up (S5.6, {self.turn_timeout} s): your own program plays "
                        f"your first card, {self.view.face(play.slot)}, to the left.")
        self._send_move(play)

    async def _act(self) -> bool:
        if not self._my_turn():
            return False
        if self.time_is_up():
            with contextlib.suppress(IllegalMove):
                self._timeout_play()
            await asyncio.sleep(0)
            return True
        if self.bot is not None:
            await self._bot_turn()
            return True
        return False

    def _stop_timers(self) -> None:
        super()._stop_timers()
        if self._timer is not None:
            self._timer.cancel()

    async def _choose(self) -> Play:
        bot = self.bot
        assert bot is not None
        if getattr(bot, "searches", False):  # a search thinks on a copy, off the loop
            return await asyncio.to_thread(bot.choose, self.view.clone(), self.seat)
        return bot.choose(self.view, self.seat)


def as_table_session(session: SplitoNetSession) -> SplitoTableSession:
    """A SplitoNetSession is what a Splito front end reads (checked by the type checker)."""
    return session
