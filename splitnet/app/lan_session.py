"""What the front ends talk to in a LAN game: :class:`NetSession`, a
:class:`~splitnet.frontend.TableSession` over a host or joiner node (the lobby models the
lobby screens show are in :mod:`splitnet.ui.lobby`). Every text a front end reads from it
passes through :func:`splitnet.text.shown` (as :class:`~splitnet.frontend.SessionBase`
does for the table).

The session drives one seat — a person through a :class:`~splitnet.frontend.HumanAgent`,
or a bot — and turns the log into lines (via :mod:`splitnet.games.split.describe`, as
:class:`~splitnet.games.split.front.fair.FairSession` does) and a status line that names whoever the
table waits for, and says so when that player is silent or disconnected.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, Generic, Protocol, TypeVar

from splitnet.aio import stop, until
from splitnet.errors import SplitnetError
from splitnet.frontend import HumanAgent, SessionBase
from splitnet.games import GameSpec
from splitnet.games.split import describe
from splitnet.games.split.bots import Bot, choose_off_loop
from splitnet.games.split.core import GameCore
from splitnet.games.split.rules import Action, BonusDraw, DrawPile, Game, IllegalMove
from splitnet.net.config import NetSettings
from splitnet.net.frames import Presence
from splitnet.net.peer import PeerFatal
from splitnet.net.table import Narration, Table, TableParts
from splitnet.net.wire import WireError
from splitnet.session.log import Entry
from splitnet.text import shown
from splitnet.ui import time_left


def game_narrator(game: GameSpec, names: Sequence[str], seat: int) -> Narration | None:
    """The narrator of ``game``'s front end (None: it has none), for a reopened table."""
    from splitnet.frontends import front_end

    told = front_end(game).narrator
    return told(names, seat) if told is not None else None


#: What a LAN seat's table is assembled with from above the network layer: the
#: narration of a reopened game's saved log in its game's words (shown by the session as
#: the game so far; ``host``/``join``/``bot`` add their proof checker)
LAN_PARTS = TableParts(narrator=game_narrator)


class Node(Protocol):
    """A host or a joiner, as the session sees it."""

    table: Table | None
    net_status: str | None
    fatal: str | None
    epoch: int
    evidence: list[tuple[int, str, str]]

    @property
    def ready(self) -> bool: ...

    def subscribe(self, callback: Callable[[], None]) -> None: ...

    def send_game(self, kind: str, body: dict[str, Any]) -> bool: ...

    def seat_states(self) -> dict[int, tuple[Presence, int]]: ...

    def accepts_left(self) -> float | None: ...

    def watching_status(self) -> str: ...


#: The host is offered to play a seat open-handed (R8.6) once the game has waited this
#: long for it while it is disconnected (a key in the full-screen table, a prompt in
#: plain mode); ``host --open-hand-after`` does it without asking.
OFFER_OPEN_HAND_AFTER = NetSettings.open_hand_offer  # the header's limit agrees (GAME.md)


class SeatCore(Protocol):
    """A seat's game core (Split's GameCore, Splito's SplitoCore), as the shared part
    of its session reads it."""

    finished: bool

    @property
    def verdict(self) -> object: ...

    @property
    def record(self) -> dict[str, Any] | None: ...

    def waiting_for(self) -> list[int]: ...

    def progress(self) -> str: ...

    def can_move(self) -> bool: ...

    @property
    def round_number(self) -> int | None: ...

    def abandon_refusal(self, seat: int) -> str | None: ...


MoveT = TypeVar("MoveT")


class LanSeat(SessionBase, Generic[MoveT]):
    """What a LAN seat's session is whichever the game (:class:`NetSession` for Split,
    :class:`~splitnet.games.splito.front.lan.SplitoNetSession` for Splito): the node and its
    task, the wake-up event, the seat notes of the status line, chat, a bot's turn, and
    the run loop with its end — the node's fatal error as the verdict, and on a joiner
    the players whose ack of the final log never arrived (SECURITY.md §4). A game's
    session says when it is this seat's turn (:meth:`_my_turn`), how its bot chooses and
    how a move is sent (:meth:`_choose`, :meth:`_send_move`), what a turn does
    (:meth:`_act`) and which timers stop with the game (:meth:`_stop_timers`)."""

    core: SeatCore
    #: the game's refusal of a move (each game's rules have their own IllegalMove)
    illegal: ClassVar[type[Exception]]
    #: the rule that gives a seat gone for good up (Split R8.6: played open-handed;
    #: Splito S5.7: it leaves the rotation)
    give_up_rule: ClassVar[str]

    def __init__(self, node: Node, task: asyncio.Future[Any], table: Table,
                 bot_delay: float, clock: Callable[[], float] | None,
                 offer_after: float = OFFER_OPEN_HAND_AFTER) -> None:
        self.node = node
        self.task = task
        self.table: Table = table
        super().__init__(list(table.names), table.seat)
        self.bot_delay = bot_delay
        #: the event loop's time, as the node's (a test may give its own)
        self.clock: Callable[[], float] = clock or asyncio.get_running_loop().time
        #: players whose ack of the final log a joiner never saw (PeerNode.unconfirmed)
        self.unconfirmed: list[str] = []
        self._wake = asyncio.Event()
        self._evidence_seen = 0
        self.offer_after = offer_after
        #: seat → since when (``clock``) the game waits for it while it is disconnected
        self._gone_since: dict[int, float] = {}
        self._offer_timer: asyncio.TimerHandle | None = None

    def _changed(self) -> None:
        self._refresh()
        self._wake.set()
        super()._changed()

    # ------------------------------------------------------------------ the status line
    def _refresh(self) -> None:
        self._track_gone()
        self._track()
        self.status = self._status_line()

    def _status_line(self) -> str:
        core = self.core
        if self.finished:
            return self._over_status()
        if self.node.fatal:
            return f"game stopped: {self.node.fatal}"
        if self.node.net_status:
            return self.node.net_status
        turn = self._turn_status()
        if turn is not None:
            return turn
        if core.finished:
            return "game over" if core.verdict is None else core.progress()
        accept = self._accept_status()
        if accept is not None:
            return accept
        return self._playing_status(self._seat_notes())

    def _track(self) -> None:
        """Note the time of what the session times (called on every change)."""

    def _over_status(self) -> str:
        """The status once the session has finished."""
        return "game over"

    def _turn_status(self) -> str | None:
        """The status while a person is choosing this seat's move, if it says so alone."""
        return None

    def _playing_status(self, notes: list[str]) -> str:
        """The status during play: the game's progress, then the notes."""
        raise NotImplementedError

    def _accept_status(self) -> str | None:
        """The status while some player has not accepted the game yet, else None."""
        log = self.table.log
        if log.all_accepted:
            return None
        missing = [self.players[s] for s in range(len(self.players))
                   if s not in log.accepted]
        left = self.node.accepts_left()  # then the host calls the game off (NETWORK.md §4)
        clock = f" (called off in {time_left(left)} if not)" if left is not None else ""
        return "waiting for " + ", ".join(missing) + " to accept the game" + clock

    def _seat_notes(self) -> list[str]:
        """A note for each other seat that is silent or disconnected ("waiting for" it
        when the game waits for it)."""
        states = self.node.seat_states()
        waiting = set(self.core.waiting_for())
        notes = []
        for s, (state, quiet) in sorted(states.items()):
            if state is Presence.OK or s == self.seat:
                continue
            what = ("disconnected" if state is Presence.GONE
                    else f"not answering for {quiet} s")
            notes.append(f"waiting for {self.players[s]} ({what})" if s in waiting
                         else f"{self.players[s]} {what}")
        if self.watching:
            notes.append(self.watching)
        return notes

    @property
    def watching(self) -> str:
        """Who watches the game, as the host says (NETWORK.md §14.10): ``'2 watching (Cy,
        Di)'`` or ``''``; shown safely (names a watcher chose)."""
        return shown(self.node.watching_status(), limit=200)

    # ------------------------------------------------------------------ acting
    def _my_turn(self) -> bool:
        raise NotImplementedError

    async def _choose(self) -> MoveT:
        raise NotImplementedError

    def _send_move(self, move: MoveT) -> None:
        raise NotImplementedError

    async def _act(self) -> bool:
        """Play this seat's turn if it is one (True), else False: the loop waits."""
        raise NotImplementedError

    def _stop_timers(self) -> None:
        """Cancel the session's own timers (the game is over)."""
        if self._offer_timer is not None:
            self._offer_timer.cancel()

    # ------------------------------------------------------------------ a seat gone for good
    @property
    def hosting(self) -> bool:
        """This session plays the host's seat (the one that may abandon a seat)."""
        return self.seat == self.table.host_seat

    def _track_gone(self) -> None:
        """Note since when the game waits for each disconnected seat; wake the screen
        when one of them reaches :attr:`offer_after` (the host's offer)."""
        if not self.hosting:
            return
        core = self.core
        gone = set()
        if not (self.finished or core.finished) and self.table.log.all_accepted:
            states = self.node.seat_states()
            gone = {s for s in core.waiting_for()
                    if s != self.seat
                    and states.get(s, (Presence.OK, 0))[0] is Presence.GONE}
        now = self.clock()
        for s in list(self._gone_since):
            if s not in gone:
                del self._gone_since[s]
        for s in gone:
            self._gone_since.setdefault(s, now)
        due = [since + self.offer_after - now for since in self._gone_since.values()
               if since + self.offer_after > now]
        if self._offer_timer is not None:
            self._offer_timer.cancel()
            self._offer_timer = None
        if due:
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:  # no loop (a test driving the clock): checked when asked
                return
            self._offer_timer = loop.call_later(min(due) + 0.05, self._changed)

    def open_hand_offer(self) -> tuple[int, int] | None:
        """(seat, seconds) of a seat the host may give up now (Split: played
        open-handed, R8.6; Splito: it leaves the rotation, S5.7): the game has waited
        :attr:`offer_after` seconds or more for it while it is disconnected, and the game
        may do without it. None on every other seat and otherwise."""
        if not self.hosting or not self.node.ready or self.finished or self.core.finished:
            return None
        now = self.clock()
        for s, since in sorted(self._gone_since.items()):
            if now - since >= self.offer_after and self.core.abandon_refusal(s) is None:
                return s, int(now - since)
        return None

    async def abandon(self, seat: int) -> None:
        """The host gives ``seat`` up for gone (the entry ``--open-hand-after`` makes;
        what the seat becomes is the game's rule, :attr:`give_up_rule`). The game's
        IllegalMove (nothing sent) if the offer no longer stands — the player came back,
        or the game no longer waits for them."""
        offer = self.open_hand_offer()
        rule = self.give_up_rule
        if offer is None or offer[0] != seat:
            name = self.players[seat] if 0 <= seat < len(self.players) else f"seat {seat}"
            raise self.illegal(rule, f"{name}'s seat is not to be given up now (back, or "
                               "the game does not wait for them)")
        r = self.core.round_number
        assert r is not None  # the game waits for the seat
        try:
            sent = self.node.send_game("abandon", {"round": r, "seat": seat,
                                                   "waited": offer[1]})
        except WireError as e:
            raise self.illegal(rule, e.reason) from None
        if not sent:
            raise self.illegal("net", "not connected — try again in a moment")

    async def chat(self, text: str) -> None:
        with contextlib.suppress(WireError):
            self.node.send_game("chat", {"text": text[:500]})

    async def _bot_turn(self) -> None:
        if self.bot_delay:
            await asyncio.sleep(self.bot_delay)
        if self._my_turn():
            move = await self._choose()
            try:
                self._send_move(move)
            except self.illegal:
                await asyncio.sleep(0.05)
        await asyncio.sleep(0)

    async def run(self) -> None:
        task = self.task
        try:
            for _ in range(10_000_000):
                if task.done():
                    break
                if await self._act():
                    continue
                self._wake.clear()
                await until(self._wake, task)
            await task
            if self.node.fatal and (not self.core.finished or self.core.verdict is not None):
                self.verdict = f"game stopped: {self.node.fatal}"
                self.log.append(self.verdict)
            check = getattr(self.node, "unconfirmed", None)  # a joiner (SECURITY.md §4)
            if self.core.finished and check is not None and check():
                self.unconfirmed = [self.players[s] for s in check()]
                self.log.append("Not confirmed by " + ", ".join(self.unconfirmed) + ": their "
                                "acknowledgement of the final log never reached us (they left "
                                "early, or the host withheld it) — compare transcripts.")
        except (PeerFatal, SplitnetError) as e:  # the node stopped: the game cannot go on
            self.verdict = f"game stopped: {e}"
            self.log.append(self.verdict)
        finally:
            self.finished = True
            self._stop_timers()
            self._changed()


class NetSession(LanSeat[Action]):
    """A LAN game for one seat (a TableSession). On the host's seat it also offers to
    play a seat gone for good open-handed (:meth:`open_hand_offer`, :meth:`abandon`)."""

    core: GameCore
    illegal = IllegalMove
    give_up_rule = "R8.6"

    def __init__(self, node: Node, task: asyncio.Future[Any], *, bot: Bot | None = None,
                 human: HumanAgent | None = None, bot_delay: float = 0.0,
                 offer_after: float = OFFER_OPEN_HAND_AFTER,
                 clock: Callable[[], float] | None = None) -> None:
        if node.table is None:
            raise ValueError("the game has not started")
        if (bot is None) == (human is None):
            raise ValueError("a seat is played by exactly one of a bot or a person")
        table = node.table
        if not isinstance(table.core, GameCore):
            raise ValueError("this game is not Split: its session is SplitoNetSession")
        self.core: GameCore = table.core
        super().__init__(node, task, table, bot_delay, clock, offer_after)
        #: the seat's own engine (the core keeps this one object for the whole game)
        self.view: Game = self.core.engine
        self.bot = bot
        self.human = human
        #: more notes for the status line, e.g. the invitation for an away seat
        self.extra_notes: Callable[[], list[str]] | None = None
        self._narrator = describe.Narrator(self.players, self.seat)
        self._in_flight: int | None = None  # node epoch when our move was sent
        #: measured on this seat (``bench net``): "draw" — our private draws, from
        #: sending the move to reading the card; "setup" — each round's commit phase
        #: start to the end of the deal
        self.timings: dict[str, list[float]] = {"draw": [], "setup": []}
        self._draw_t0: float | None = None
        self._round_t0: tuple[int, float] | None = None
        self.table.listeners.append(self._on_entry)
        node.subscribe(self._on_net)
        view = self.core.engine
        if view.round_no:  # resumed mid-game
            told = self.table.narrator
            if (self.table.narrated == len(self.table.log) - 1
                    and isinstance(told, describe.Narrator)):
                # restarted from the saved transcript: the game so far, as it was told
                self.log.extend(self.table.history)
                self._narrator = told
            else:
                self._narrator.resume(view, sum(1 for r in self.core.rounds
                                                if r.faces is not None))
            self.log.append(f"Resumed the game in round {view.round_no}.")
        self._refresh()

    @property
    def record(self) -> dict[str, Any]:
        """The game record so far: every audited round with every card open (R8.4)."""
        return self.core.record

    # ------------------------------------------------------------------ the log in words
    def _measure(self, entry: Entry) -> None:
        now = time.perf_counter()
        r = self.core.round
        t0 = self._round_t0
        if r is not None and self.table.log.all_accepted:
            if r.stage == "commit" and (t0 is None or t0[0] != r.number):
                self._round_t0 = (r.number, now)
            elif r.stage == "play" and t0 is not None and t0[0] == r.number and t0[1] >= 0:
                self.timings["setup"].append(now - t0[1])
                self._round_t0 = (r.number, -1.0)
        ours = entry.kind == "shares" or (entry.kind == "move" and entry.author == self.seat)
        if self._draw_t0 is not None and ours and (r is None or r.draw is None):
            self.timings["draw"].append(now - self._draw_t0)
            self._draw_t0 = None

    def _on_entry(self, entry: Entry) -> None:
        self._measure(entry)
        author, kind, body = entry.author, entry.kind, entry.body
        if kind == "move" and author == self.seat:
            self._in_flight = None
        news = self._narrator.after_entry(self.core, author, kind, body)
        self._tell(news)
        self._changed()

    def _on_net(self) -> None:
        if self._in_flight is not None and self._in_flight != self.node.epoch:
            self._in_flight = None  # reconnected: the log says whether it arrived
        evidence = self.node.evidence
        for seat, kind, reason in evidence[self._evidence_seen:]:
            who = "You" if seat == self.seat else self.players[seat]
            self.log.append(f"Refused {who}'s {kind}: {reason} — kept as evidence, signed "
                            f"by {who}.")
        self._evidence_seen = len(evidence)
        self._changed()

    def move_hold(self) -> str | None:
        """Why this seat's move cannot be made now although its engine says the turn is
        its own (:class:`~splitnet.frontend.HoldsMoves`): the host is out of reach (the
        connection's status says what is being tried), or our move is on its way to it
        (it is in the log, so in the engine, only once the host orders it). None when a
        move may be made, or the turn is not ours."""
        if self.finished or self.core.finished or self.view.actor != self.seat:
            return None
        node = self.node
        if node.fatal:
            return f"The game stopped: {node.fatal}"
        if not node.ready:
            if self.hosting:
                return ("Your move waits until every player is back (the host restarted "
                        "and resumes the game when they are).")
            return f"Your move waits for the host ({node.net_status or 'not in sync yet'})."
        if self._in_flight is not None or self.core.kept_move() is not None:
            return "Your move is on its way to the host: it shows once the host has it."
        return None

    def _turn_status(self) -> str | None:
        if self.human is not None and self.human.waiting and self.core.can_move():
            return "your turn"
        return None

    def _playing_status(self, notes: list[str]) -> str:
        if self.extra_notes is not None:
            notes += self.extra_notes()
        base = self.core.progress()
        if any(note.startswith(f"{base} (") for note in notes):
            # "waiting for Jo (disconnected)" says all that "waiting for Jo" does: once
            return "; ".join(notes)
        return base + ("  — " + "; ".join(notes) if notes else "")

    # ------------------------------------------------------------------ acting
    def _my_turn(self) -> bool:
        return (self.node.ready and self.core.can_move() and self._in_flight is None
                and not self.core.finished)

    def _send_move(self, action: Action) -> None:
        """Check the move on our own core (IllegalMove: nothing changes), keep it — a move
        at a position is final (GAME.md "Pledges"): the core keeps it durably and the
        player is not asked again there — then send it. Not sent now (the connection just
        went), the node sends exactly this move once it is back in sync."""
        body = self.core.choose_move(action)
        self._in_flight = self.node.epoch
        if isinstance(action, DrawPile | BonusDraw):
            self._draw_t0 = time.perf_counter()
        try:
            sent = self.node.send_game("move", body)
        except WireError as e:  # the host refused its own seat's move
            self._in_flight = None
            raise IllegalMove("net", e.reason) from None
        if not sent:
            self._in_flight = None

    async def submit(self, action: Action) -> None:
        if self.human is None:
            raise IllegalMove("net", "this seat is played by a bot")
        await self.human.submit(action)

    async def _choose(self) -> Action:
        assert self.bot is not None
        return await choose_off_loop(self.bot, self.core.engine, self.seat)

    async def _act(self) -> bool:
        if not self._my_turn():
            return False
        if self.bot is not None:
            await self._bot_turn()
        else:
            await self._human_turn(self.task)
        return True

    async def _human_turn(self, task: asyncio.Future[Any]) -> None:
        human = self.human
        assert human is not None
        epoch = self.node.epoch
        choose = asyncio.create_task(human.choose_and_apply(self.core.engine, self.seat,
                                                            self._send_move))
        human.waiting = True
        self._changed()
        try:
            while not choose.done() and not task.done():
                self._wake.clear()
                await until(self._wake, choose, task)
                if not self.core.can_move() or self.node.epoch != epoch:
                    break
        finally:
            await stop(choose)  # a move it made is in the log; an error in it propagates
        self._changed()
