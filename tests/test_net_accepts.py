"""The host's wait for every seat's accept (protocol/NETWORK.md §4), alone, on a clock
the test gives it: when it starts, the steps its screens are told, the wait held to the
header's agreed ``answer_s``, a restart's whole wait again, and the call-off's line
(wired: tests/test_net_accept.py)."""

from __future__ import annotations

import doctest

from splitnet.net import accepts
from splitnet.net.accepts import AcceptWait, CallOff, accept_wait


def test_the_modules_doctests() -> None:
    assert doctest.testmod(accepts).failed == 0


def test_the_wait_is_this_hosts_within_the_agreed_seconds_and_the_next() -> None:
    assert accept_wait(5.0, 120) == 120  # never shorter than the header agreed
    assert accept_wait(300.0, 120) == 121  # nor longer than its next second
    assert accept_wait(120.5, 120) == 120.5


def test_it_counts_from_its_first_pending_beat_and_calls_off_naming_the_missing() -> None:
    w = AcceptWait()
    assert w.beat(5.0, pending=False, wait=120, missing=[]) is None
    assert w.left(5.0, pending=True, wait=120) is None  # not counting yet
    assert w.beat(100.0, pending=True, wait=120, missing=["Bo"]) == "redraw"
    assert w.left(130.0, pending=True, wait=120) == 90.0
    assert w.beat(220.0, pending=True, wait=120, missing=["Bo"]) == "redraw"  # (0 s)
    assert w.beat(221.0, pending=True, wait=120, missing=["Ana", "Bo"]) == CallOff(
        "Ana, Bo did not accept it within 120 s")


def test_every_accept_in_stops_it_and_a_restart_gives_the_whole_wait_again() -> None:
    w = AcceptWait()
    w.beat(0.0, pending=True, wait=60, missing=["Bo"])
    w.restart(50.0)  # the host's program was not running
    assert w.left(50.0, pending=True, wait=60) == 60.0
    assert w.beat(105.0, pending=True, wait=60, missing=["Bo"]) != CallOff(
        "Bo did not accept it within 60 s")
    assert w.beat(106.0, pending=False, wait=60, missing=[]) is None
    assert w.left(106.0, pending=True, wait=60) is None  # stopped: counts afresh
    assert w.beat(200.0, pending=True, wait=60, missing=["Bo"]) == "redraw"
    assert w.left(200.0, pending=True, wait=60) == 60.0
