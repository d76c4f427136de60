"""The host's watch on its seats (protocol/NETWORK.md §7), sans-IO: each guest seat's
presence — the state of a small machine of its own — and since when the game waits for
it; what is due (a ``timeout`` that stops the game, or an ``abandon`` that gives a seat
up for good, R8.6/S5.7) follows from them, the game core's view and the clock alone.

Presence, one machine per guest seat (the host's own seat has none)::

            back                 quiet (≥ silent_after)
    GONE ---------> OK  <-------------------------------> SILENT
      ^             |            heard (< silent_after)     |
      +--dropped----+-------------------dropped-------------+

``back`` from any state (a seat that reconnects on a new connection is OK at once);
``heard`` and ``quiet`` only while connected (OK or SILENT). :class:`SeatWatch` is driven
by :class:`~splitnet.net.host.HostNode` — its connections, drops and heartbeats, and the
entries it orders — and tells it what to broadcast (``peers``) and what to order; it owns
no I/O, no clock (every call is given ``now``) and no game rule (the core says whom the
game waits for, at which step, and whether a seat may be given up).

>>> from splitnet.net.config import NetSettings
>>> w = SeatWatch(NetSettings(answer_timeout=60.0, move_timeout=60.0))
>>> w.reset({1: Presence.OK, 2: Presence.OK})
>>> w.heard(2, 40.0)  # quiet past silent_after: SILENT (the peers frame is due)
True
>>> w.states[2]
(<Presence.SILENT: 'silent'>, 40)
>>> w.dropped(2), w.presence(2).value
(True, 'gone')
>>> w.heard(2, 0.0)  # a seat not connected is heard from by no heartbeat
Traceback (most recent call last):
...
splitnet.net.machine.IllegalTransition: seat 2: heard is not allowed in state gone
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Final, Literal, Protocol

from splitnet.game.table import Limits
from splitnet.net.config import NetSettings, clock_step
from splitnet.net.frames import Presence
from splitnet.net.machine import Machine


class PresenceEvent(Enum):
    BACK = "back"  #: its connection is (again) the seat's
    HEARD = "heard"  #: a heartbeat found it quiet for less than ``silent_after``
    QUIET = "quiet"  #: a heartbeat found it quiet for ``silent_after`` or longer
    DROPPED = "dropped"  #: its connection is gone


_P, _E = Presence, PresenceEvent
PRESENCE_TABLE: Final[Mapping[tuple[Presence, PresenceEvent], Presence]] = {
    (_P.GONE, _E.BACK): _P.OK, (_P.OK, _E.BACK): _P.OK, (_P.SILENT, _E.BACK): _P.OK,
    (_P.OK, _E.HEARD): _P.OK, (_P.SILENT, _E.HEARD): _P.OK,
    (_P.OK, _E.QUIET): _P.SILENT, (_P.SILENT, _E.QUIET): _P.SILENT,
    (_P.OK, _E.DROPPED): _P.GONE, (_P.SILENT, _E.DROPPED): _P.GONE,
}


class Countdown:
    """A bounded wait whose time left the screens show in steps (:func:`clock_step`): the
    accepts a host waits for before it calls a game off (NETWORK.md §4), a rematch
    lobby's wait for every yes (§13). ``since`` None: not running.

    >>> c = Countdown()
    >>> c.start(100.0); c.start(105.0)  # (started once: a later start changes nothing)
    >>> c.left(130.0, 60.0), c.over(160.0, 60.0), c.over(160.5, 60.0)
    (30.0, False, True)
    >>> c.step_changed(130.0, 60.0), c.step_changed(131.0, 60.0)  # told once per step
    (True, False)
    >>> c.shift(20.0); c.left(130.0, 60.0)  # the program was away 20 s: the wait moves
    50.0
    """

    def __init__(self) -> None:
        self.since: float | None = None
        self._told: int | None = None

    def start(self, now: float) -> None:
        if self.since is None:
            self.since = now

    def stop(self) -> None:
        self.since = None

    def restart(self, now: float) -> None:
        """The whole wait again from ``now`` (if it runs)."""
        if self.since is not None:
            self.since = now

    def shift(self, gap: float) -> None:
        """The wait moves by ``gap`` s (the program was not running that long)."""
        if self.since is not None:
            self.since += gap

    def left(self, now: float, wait: float) -> float | None:
        return None if self.since is None else max(0.0, self.since + wait - now)

    def over(self, now: float, wait: float) -> bool:
        return self.since is not None and now - self.since > wait

    def step_changed(self, now: float, wait: float) -> bool:
        """Is the time left in another step than the screens were last told (then they
        are told now)?"""
        left = self.left(now, wait)
        step = None if left is None else clock_step(left)
        if step == self._told:
            return False
        self._told = step
        return True


class WaitView(Protocol):
    """What the watch asks of the game's core (:class:`~splitnet.game.table.NetCore`)."""

    def owed_step(self, seat: int) -> str: ...

    def abandon_refusal(self, seat: int) -> str | None: ...

    @property
    def round_number(self) -> int | None: ...


@dataclass(frozen=True)
class Due:
    """What the host orders now: ``kind`` "timeout" (the game stops naming ``seat``,
    which owed its ``step`` for ``waited`` s) or "abandon" (the seat, gone, is given up
    and the game goes on); the body of that entry is :meth:`body`."""

    kind: Literal["timeout", "abandon"]
    seat: int
    round_no: int
    waited: int
    step: str

    def body(self) -> dict[str, int]:
        return {"round": self.round_no, "seat": self.seat, "waited": self.waited}


class SeatWatch:
    """Every guest seat's presence and its owed-message clock (module docstring)."""

    def __init__(self, net: NetSettings) -> None:
        self.net = net
        self._seats: dict[int, Machine[Presence, PresenceEvent]] = {}
        self._quiet: dict[int, int] = {}
        #: seat → since when the game waits for a message of it (NETWORK.md §7)
        self.owed_since: dict[int, float] = {}

    # ------------------------------------------------------------------ presence
    def reset(self, seats: Mapping[int, Presence]) -> None:
        """A new game (its connected seats OK) or a restart (every guest GONE)."""
        self._seats = {s: Machine(f"seat {s}", p, PRESENCE_TABLE) for s, p in seats.items()}
        self._quiet = {s: 0 for s in seats}

    @property
    def states(self) -> dict[int, tuple[Presence, int]]:
        """seat → (presence, seconds quiet): what the ``peers`` frame tells."""
        return {s: (m.state, self._quiet[s]) for s, m in sorted(self._seats.items())}

    def presence(self, seat: int) -> Presence:
        m = self._seats.get(seat)
        return Presence.OK if m is None else m.state

    def back(self, seat: int) -> bool:
        """The seat's connection is its own (again): True if the peers frame is due."""
        return self._fire(seat, PresenceEvent.BACK, 0)

    def dropped(self, seat: int) -> bool:
        return self._fire(seat, PresenceEvent.DROPPED, 0)

    def heard(self, seat: int, quiet: float) -> bool:
        """A heartbeat found the connected seat quiet for ``quiet`` s: True if the peers
        frame is due (a new state, or a silent seat's quiet time in a new 5 s step)."""
        if quiet > self.net.silent_after:
            return self._fire(seat, PresenceEvent.QUIET, int(quiet))
        return self._fire(seat, PresenceEvent.HEARD, 0)

    def _fire(self, seat: int, event: PresenceEvent, quiet: int) -> bool:
        m = self._seats.get(seat)
        if m is None:
            m = self._seats[seat] = Machine(f"seat {seat}", Presence.GONE, PRESENCE_TABLE)
            self._quiet[seat] = 0
        old, old_quiet = m.state, self._quiet[seat]
        new = m.fire(event)
        self._quiet[seat] = quiet
        return new is not old or (new is not Presence.OK and old_quiet // 5 != quiet // 5)

    # ------------------------------------------------------------------ the clocks
    def track(self, now: float, waiting: set[int], answered: int | None = None) -> None:
        """The game waits for ``waiting`` now; ``answered``: that seat's message was just
        ordered (its clock starts again if it owes the next one)."""
        for s in list(self.owed_since):
            if s not in waiting or s == answered:
                del self.owed_since[s]
        for s in waiting:
            self.owed_since.setdefault(s, now)

    def clear(self) -> None:
        """Nothing is owed (no game under way, or it is over)."""
        self.owed_since.clear()

    def restart(self, now: float) -> None:
        """Every seat gets its whole wait again (the host was not running, or every seat
        is back after a restart)."""
        for s in self.owed_since:
            self.owed_since[s] = now

    def due(self, now: float, core: WaitView) -> Due | None:
        """What the host orders now, if anything: a seat not present (GONE or SILENT)
        that the game may give up (``core.abandon_refusal``) is, once ``open_hand_after``
        has passed with ``--open-hand-after`` set; any seat that owes a message longer
        than its limit (``answer_timeout``, ``move_timeout`` for a move) is timed out.
        The lowest seat first, one at a time."""
        for seat, since in sorted(self.owed_since.items()):
            step = core.owed_step(seat)
            r = core.round_number
            assert r is not None
            waited = now - since
            after = self.net.open_hand_after
            if (after is not None and self.presence(seat) is not Presence.OK
                    and core.abandon_refusal(seat) is None):
                # given up instead of stopping the game, where the game's core allows it;
                # resumed as usual if it is back before this
                if waited <= after:
                    continue
                return Due("abandon", seat, r, int(waited), step)
            if waited > self.net.answer_limit(step):
                return Due("timeout", seat, r, int(waited), step)
        return None


@dataclass(frozen=True)
class HostView:
    """What a joiner's watch on its host reads of the game at a heartbeat (the table)."""

    #: in sync on a live connection, the game under way and not held by a restarted host
    live: bool
    started: bool
    limits: Limits
    names: tuple[str, ...]
    accepted: frozenset[int]
    host: int
    #: the host's own seat owes the game a message, at this step (None: it owes none)
    host_owes: str | None


class HostWatch:
    """A joiner's clocks on its host (NETWORK.md §7), sans-IO: since when its oldest
    message not yet ordered was sent, since when the game waits for the host's own seat,
    since when this peer — in sync, live — saw the game *begin* to wait for each seat,
    since when it waits for the other seats' accepts, when it got the header live, and
    when it last found it had not been running. From them it names a host that drops or
    holds a message, stalls, gives a seat up or calls a game off sooner than the header
    agrees: each check returns the fault, one line ending ``[host seat H at fault]``, or
    None. It never names an honest host for a wait it did not see begin: a wait already
    under way when it (re)synced, or one read just after the program was not running,
    starts no clock. Every call is given ``now``; the joiner raises the fault."""

    def __init__(self, net: NetSettings) -> None:
        self.net = net
        #: when the oldest of our messages not yet in the log was sent (this connection)
        self.sent_at: float | None = None
        #: since when the game waits for the host's own seat
        self.host_owes_since: float | None = None
        #: since when this peer, connected and in sync, has seen the game wait for each
        #: seat: a ``timeout`` or ``abandon`` sooner than the header's limits on this
        #: clock is the host's lie
        self.waits_seen: dict[int, float] = {}
        #: the seats awaited after the last entry applied in sync (None: not seen live
        #: since the last (re)connection)
        self.waiting_before: set[int] | None = None
        #: since when this peer, in sync on this connection, has waited for the other
        #: seats' accepts (the host calls off a game some seat does not accept)
        self.accepts_since: float | None = None
        #: when this peer got the header live (None: it came back to a game under way)
        self.header_at: float | None = None
        self.accepts_step: int | None = None  # (the time left, as the screens show it)
        #: when this program last found it had not been running (:meth:`slept`)
        self.woke_at: float | None = None

    # ------------------------------------------------------------------ what happens
    def sent(self, now: float) -> None:
        """A message of ours left (its clock starts if none of ours was in flight)."""
        if self.sent_at is None:
            self.sent_at = now

    def ordered_ours(self, now: float, more_in_flight: bool) -> None:
        self.sent_at = now if more_in_flight else None

    def lost(self) -> None:
        """The connection is gone: nothing in flight, and no wait seen live across it."""
        self.sent_at = self.host_owes_since = self.accepts_since = None
        self.waits_seen.clear()
        self.waiting_before = None

    def got_header(self, now: float) -> None:
        """The header came live (just woken, it may have waited unread: not live)."""
        self.header_at = None if self.just_woke(now) else now

    def synced(self, now: float, waiting: set[int], finished: bool, started: bool) -> None:
        """Caught up: from here on this peer sees waits begin; the seats awaited now it
        saw only the end of."""
        self.waits_seen.clear()
        self.waiting_before = set() if finished else set(waiting)
        self.accepts_since = None if started else now

    def note_waits(self, now: float, live: bool, waiting: set[int],
                   author: int | None = None) -> None:
        """After an entry (by ``author``): a seat's clock starts when this peer, live,
        sees the game *begin* to wait for it — not awaited before this entry, or the
        entry is its own answer and it owes the next message."""
        if not live or self.just_woke(now):
            # (just woken: the entry may have waited unread since long before)
            self.waits_seen.clear()
            self.waiting_before = None
            return
        before = self.waiting_before
        for s in list(self.waits_seen):
            if s not in waiting or s == author:
                del self.waits_seen[s]
        if before is not None:
            for s in waiting:
                if s not in before or s == author:
                    self.waits_seen.setdefault(s, now)
        self.waiting_before = set(waiting)

    def seen(self, now: float, waiting: set[int],
             owed_step: Callable[[int], str]) -> dict[int, tuple[float, str]]:
        """How long this peer saw the game wait for each awaited seat, and for what."""
        return {s: (now - t, owed_step(s)) for s, t in self.waits_seen.items()
                if s in waiting}

    def slept(self, now: float) -> None:
        """This program did not run for a while (stopped, its machine asleep): what its
        clocks measured across the gap is nobody's doing, so they start again; the frames
        it reads now and for ``host_timeout`` after may have waited unread all along, so
        no wait is seen to begin then, and the waits seen before are forgotten."""
        self.woke_at = now
        self.waits_seen.clear()
        self.waiting_before = None
        if self.sent_at is not None:
            self.sent_at = now
        if self.host_owes_since is not None:
            self.host_owes_since = now
        if self.accepts_since is not None:
            self.accepts_since = now

    # ------------------------------------------------------------------ margins
    def late(self) -> float:
        """How far past its wait a read may return while this program runs: a read later
        than that means it was not running (:meth:`slept`)."""
        return min(1.0, self.net.host_timeout / 2)

    def slack(self) -> float:
        """The margin of the clocks on the host's give-ups and call-off: the records' way
        here (``host_timeout``) and a stop too short to be seen (:meth:`late`)."""
        return self.net.host_timeout + self.late()

    def just_woke(self, now: float) -> bool:
        woke = self.woke_at
        return woke is not None and now - woke <= self.net.host_timeout

    def accepts_left(self, now: float, answer_s: int) -> float | None:
        since = self.header_at if self.header_at is not None else self.accepts_since
        return None if since is None else max(0.0, since + answer_s - now)

    # ------------------------------------------------------------------ the checks
    def give_up_fault(self, now: float, kind: str, body: Mapping[str, object],
                      seen: Mapping[int, tuple[float, str]], *, ours: int, host: int,
                      names: tuple[str, ...], limits: Limits, in_flight: bool) -> str | None:
        """The host's ``timeout`` or ``abandon`` of a seat, held against this peer's own
        clock: given up sooner than agreed (less :meth:`slack`), or our own seat given
        up while the host had not ordered a message we sent."""
        seat = body.get("seat")
        if not isinstance(seat, int) or isinstance(seat, bool):
            return None  # (the core refused it already)
        name = names[seat] if 0 <= seat < len(names) else f"seat {seat}"
        what = "timed out" if kind == "timeout" else "gave up as gone for good"
        if kind == "abandon" and seat == ours and self.sent_at is not None and in_flight:
            return (f"the host {what} our seat, but it never ordered the message we sent "
                    f"{now - self.sent_at:.0f} s ago: it dropped it [host seat {host} at "
                    "fault]")
        observed = seen.get(seat)
        if observed is None:
            return None  # we did not see the whole wait live: nothing to hold it against
        waited, step = observed
        agreed = limits.for_step(step) if kind == "timeout" else limits.open_hand_after_s
        if waited < agreed - self.slack():
            who = "our seat" if seat == ours else name
            return (f"the host {what} {who} after it says {body.get('waited')} s, but this "
                    f"peer saw the game wait for {who} only {waited:.0f} s (the header "
                    f"agrees {agreed} s) [host seat {host} at fault]")
        return None

    def timed_us_out_fault(self, now: float, host: int) -> str | None:
        """The host timed our seat out: a message of ours it had not ordered long after
        we sent it (not one that crossed the timeout) says it dropped it."""
        if self.sent_at is not None and now - self.sent_at > self.net.host_timeout:
            return (f"the host timed us out, but it never ordered the message we sent "
                    f"{now - self.sent_at:.0f} s ago: it dropped it [host seat {host} at "
                    "fault]")
        return None

    def call_off_fault(self, now: float, why: str, *, started: bool, ours_accepted: bool,
                       host: int, answer_s: int) -> str | None:
        """The host called off a game not begun: after every accept, while ours is not
        ordered long after we sent it, or much sooner than ``answer_s`` since this peer
        got the header live, it is the host's fault."""
        if started:
            return (f"the host called off a game every seat had accepted ({why}) "
                    f"[host seat {host} at fault]")
        if (not ours_accepted and self.sent_at is not None
                and now - self.sent_at > self.net.host_timeout):
            return (f"the host called the game off ({why}), but it never ordered the accept "
                    f"we sent {now - self.sent_at:.0f} s ago: it dropped it [host seat "
                    f"{host} at fault]")
        if self.header_at is not None and now - self.header_at < answer_s - self.slack():
            return (f"the host called the game off after {now - self.header_at:.0f} s "
                    f"({why}), sooner than the {answer_s} s the header agrees for an answer "
                    f"[host seat {host} at fault]")
        return None

    def tick(self, now: float, view: HostView | None) -> tuple[str | None, bool]:
        """A look at the clocks (after each frame, and each read that timed out): the
        fault of a host that stalls — one that does not order our message within
        ``answer_timeout`` (plus ``host_timeout``), does not call off a game some seat
        has not accepted, or whose own seat owes a message longer than its limit plus
        ``host_timeout`` — and whether the screens' time left changed."""
        if view is None or not view.live:
            # a restarted host holds messages until every seat is back: clocks start after
            if self.sent_at is not None:
                self.sent_at = now
            if self.accepts_since is not None:
                self.accepts_since = now
            self.host_owes_since = None
            return None, False
        grace = self.net.host_timeout
        host = view.host
        if self.sent_at is not None and now - self.sent_at > self.net.answer_timeout + grace:
            return (f"the host has not ordered our message for {now - self.sent_at:.0f} s: "
                    f"it dropped it or stalls the game [host seat {host} at fault]"), False
        changed = False
        if view.started:
            self.accepts_since = None
        elif self.accepts_since is not None:
            left = self.accepts_left(now, view.limits.answer_s)
            shown_step = None if left is None else clock_step(left)
            if shown_step != self.accepts_step:  # (the screens show it in steps)
                self.accepts_step = shown_step
                changed = True
            # an honest host calls the game off once some accept is missing for its
            # answer wait (whole seconds in the header: its own wait is below the next)
            wait = max(view.limits.answer_s + 1, self.net.answer_timeout) + grace
            if now - self.accepts_since > wait:
                missing = [view.names[s] for s in range(len(view.names))
                           if s not in view.accepted]
                return (f"the game did not start: {', '.join(missing)} "
                        f"{'has' if len(missing) == 1 else 'have'} not accepted it for "
                        f"{now - self.accepts_since:.0f} s and the host did not call it "
                        f"off (it must after {view.limits.answer_s} s: header "
                        f"limits.answer_s) [host seat {host} at fault]"), changed
        if not view.started or view.host_owes is None:
            self.host_owes_since = None
            return None, changed
        if self.host_owes_since is None:
            self.host_owes_since = now
        step = view.host_owes
        if now - self.host_owes_since > self.net.answer_limit(step) + grace:
            return (f"the host's seat ({view.names[host]}) owed its {step} for "
                    f"{now - self.host_owes_since:.0f} s [host seat {host} at fault]"), changed
        return None, changed
