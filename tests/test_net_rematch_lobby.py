"""The host's rematch lobby as a machine alone (protocol/NETWORK.md §11.6, §13): every
row of its table walked, every event without a row refused, and the whole wait driven on
a clock the test sets (the machine is given ``now``; nothing sleeps)."""

from __future__ import annotations

import doctest

import pytest

from splitnet.game.rematch import Rematch
from splitnet.net import rematch_lobby
from splitnet.net.machine import IllegalTransition
from splitnet.net.rematch_lobby import (
    TABLE,
    Admit,
    EndRematch,
    Redraw,
    Refuse,
    RematchEvent,
    RematchLobby,
    RematchState,
    SendClock,
    SendOffer,
    StartRematch,
)
from splitnet.net.wire import ErrorCode, WireError

GAME = b"G" * 16
NAMES = ("Host", "Ana", "Bo")
_S, _E = RematchState, RematchEvent


def lobby(*, left: dict[int, str] | None = None, wait: float = 120.0) -> RematchLobby:
    m = RematchLobby(GAME, Rematch(GAME, b"H" * 32, 1), host=0, names=NAMES, wait=wait,
                     left=left)
    m.offered(1000.0)
    return m


def in_state(state: RematchState) -> RematchLobby:
    """A lobby brought to ``state`` by its public events."""
    m = lobby()
    assert m.arrive(1, None) == Admit(1, "Ana", False)
    assert m.arrive(2, None) == Admit(2, "Bo", False)
    if state is _S.WAITING:
        return m
    if state is _S.ENDED:
        m.answer(2, GAME, False)
        return m
    m.answer(1, GAME, True)
    m.answer(2, GAME, True)
    if state is _S.STARTED:
        m.started()
    assert m.state is state
    return m


def test_the_machines_doctest() -> None:
    assert doctest.testmod(rematch_lobby).failed == 0


def test_every_row_of_the_table_leads_where_it_says_and_no_other_event_is_allowed() -> None:
    for state in RematchState:
        for event in RematchEvent:
            m = in_state(state)
            if (state, event) in TABLE:
                assert m.fire(event) is TABLE[(state, event)], (state, event)
            else:
                with pytest.raises(IllegalTransition):
                    m.fire(event)
                assert m.state is state  # refused: nothing changed
    # the two final states: nothing leaves them
    assert all(new is _S.STARTED for (old, _), new in TABLE.items() if old is _S.STARTED)
    assert all(new is _S.ENDED for (old, _), new in TABLE.items() if old is _S.ENDED)


def test_every_yes_starts_it_and_the_offer_goes_to_all_at_each_new_yes() -> None:
    m = in_state(_S.WAITING)
    assert m.agreed == {0}
    assert m.answer(1, GAME, True) == [SendOffer()]
    assert m.answer(1, GAME, True) == []  # said twice: once
    assert m.answer(2, GAME, True) == [SendOffer(), StartRematch()]
    assert m.state is _S.AGREED and m.agreed == {0, 1, 2}
    m.started()
    with pytest.raises(IllegalTransition):
        m.arrive(1, None)  # the rematch runs: a hello is a seat's of the game now


def test_a_seat_whose_connection_ends_loses_its_yes_and_a_full_lobby_unfills() -> None:
    m = in_state(_S.AGREED)
    assert m.dropped(2) == [SendOffer()]
    assert m.state is _S.WAITING and m.agreed == {0, 1} and m.here == {1}
    assert m.arrive(2, None) == Admit(2, "Bo", False)
    assert m.answer(2, GAME, True) == [SendOffer(), StartRematch()]


def test_only_the_finished_games_seats_get_in_and_an_answer_must_name_that_game() -> None:
    m = in_state(_S.WAITING)
    for seat in (None, 0, 7):
        e = m.arrive(seat, None)
        assert isinstance(e, WireError) and e.code is ErrorCode.STARTED and e.fatal
        assert "to its players only" in e.reason
    e = m.arrive(1, b"\x01" * 16)
    assert isinstance(e, WireError) and e.code is ErrorCode.UNKNOWN_GAME
    [refused] = m.answer(1, b"\x01" * 16, True)
    assert isinstance(refused, Refuse) and refused.error.code is ErrorCode.PROTOCOL
    assert not refused.error.fatal and "not 01010101" in refused.error.reason
    assert m.state is _S.WAITING and m.agreed == {0}  # nothing changed


@pytest.mark.parametrize(("act", "why", "gone"), [
    (lambda m: m.answer(2, GAME, False), "Bo declined the rematch", (2,)),
    (lambda m: m.leave(2, "stopped"), "Bo left: no rematch ('stopped')", (2,)),
    (lambda m: m.leave(1, ""), "Ana left: no rematch", (1,)),
    (lambda m: m.call_off("Host called off the rematch", by_host=True),
     "Host called off the rematch", ()),
])
def test_a_no_a_bye_or_the_host_ends_it_once_and_later_seats_are_told_why(
        act: object, why: str, gone: tuple[int, ...]) -> None:
    m = in_state(_S.WAITING)
    assert callable(act)
    [end] = act(m)
    assert end == EndRematch(why, gone, by_host=why.startswith("Host"))
    assert m.state is _S.ENDED and m.why == why and m.told == set(gone)
    # after the end: nothing is decided again, no offer goes out, no yes counts
    assert m.answer(1, GAME, False) == [] and m.answer(1, GAME, True) == []
    assert m.leave(1, "x") == [] and m.dropped(1) == [] and m.beat(1e9) == []
    assert m.call_off("again") == [] and m.why == why and m.agreed == {0}
    e = m.arrive(1, None)  # back for it: refused with the line that ended it
    assert isinstance(e, WireError) and e.code is ErrorCode.CLOSED and e.reason == why
    assert 1 in m.told
    m.told_seat(2)
    assert m.all_told


def test_the_wait_runs_on_the_given_clock_in_15_s_steps_then_ends_naming_the_late() -> None:
    m = in_state(_S.WAITING)
    m.answer(1, GAME, True)
    assert m.beat(1000.0) == [SendClock(120), Redraw()]
    assert m.beat(1001.0) == [Redraw()]  # the same 15 s step: the joiners are not told
    assert m.left_s(1020.0) == 100.0
    assert m.beat(1020.0) == [SendClock(100), Redraw()]  # (another step: 105 s and under)
    m.slept(30.0)  # the host's program did not run 30 s: the wait moves with it
    assert m.left_s(1020.0) == 130.0
    assert m.beat(1150.0) == [SendClock(0), Redraw()] and m.state is _S.WAITING
    assert m.beat(1150.5) == [EndRematch("no rematch: Bo did not agree within 120 s", ())]
    assert m.state is _S.ENDED and m.left_s(1150.5) is None


def test_a_seat_that_left_after_the_game_ends_it_at_the_first_beat_unless_back() -> None:
    m = lobby(left={2: "Bo"})
    m.arrive(1, None)
    assert m.beat(1000.0) == [EndRematch("no rematch: Bo left after the game", (2,))]
    assert m.told == {2}
    back = lobby(left={2: "Bo"})
    assert back.arrive(2, None) == Admit(2, "Bo", True)
    assert back.left_after == {}
    assert back.beat(1000.0) == [SendClock(120), Redraw()] and back.state is _S.WAITING


def test_a_host_that_stops_in_its_rematch_lobby_refuses_the_seats_coming_back() -> None:
    m = in_state(_S.WAITING)
    m.close()
    assert m.state is _S.ENDED and m.why is None
    e = m.arrive(1, None)
    assert isinstance(e, WireError) and e.reason == "the host closed the game"
    assert m.call_off("late") == []  # (no line of a seat's: nothing to end again)
