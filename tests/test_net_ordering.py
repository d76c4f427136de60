"""What becomes of a joiner's message and ack at the host (protocol/NETWORK.md §5, §6,
§11.8), decided alone: the message's route, the ack's checks, the book of every seat's
highest ack, which final ack goes on file before it is relayed, what a seat coming back
is shown, and whom a finished game still waits for (wired: tests/test_final_acks.py,
tests/test_attacks_net.py)."""

from __future__ import annotations

import doctest

from splitnet.net import ordering
from splitnet.net.ordering import AckBook, Route, Take, judge_ack, route
from splitnet.net.wire import ErrorCode


def test_the_modules_doctests() -> None:
    assert doctest.testmod(ordering).failed == 0


def test_a_message_is_refused_held_or_checked() -> None:
    def r(**kw: object) -> Route:
        args: dict[str, object] = {"seated": True, "called_off": False, "ready": True,
                                   "held": 0, "max_held": 2} | kw
        return route(**args)  # type: ignore[arg-type]

    assert r() is Route.CHECK
    assert r(seated=False) is Route.NOT_STARTED
    assert r(seated=False, called_off=True, ready=False) is Route.NOT_STARTED  # first
    assert r(called_off=True) is Route.CALLED_OFF
    assert r(called_off=True, ready=False) is Route.CALLED_OFF  # before any holding
    assert r(ready=False, held=1) is Route.HOLD
    assert r(ready=False, held=2) is Route.TOO_MANY
    assert r(held=9) is Route.CHECK  # (only a resuming host holds)


def test_an_ack_must_be_the_connections_seat_and_the_hosts_head() -> None:
    head = b"h" * 32
    assert judge_ack(1, 1, 4, head, 5, head) is None
    seat = judge_ack(1, 2, 4, head, 5, head)
    assert seat is not None and seat.code is ErrorCode.NOT_YOUR_SEAT and not seat.fatal
    for seq, count, at in [(4, 5, b"x" * 32), (5, 5, None), (9, 5, None)]:
        fork = judge_ack(1, 1, seq, head, count, at)
        assert fork is not None and fork.code is ErrorCode.FORK
        assert fork.reason == f"your ack of seq {seq} does not match the host's log"


def test_the_book_keeps_each_seats_highest_ack_and_its_first_final_one_on_file() -> None:
    book = AckBook(host=0)
    assert book.take(2, 3, b"2@3", last=3, finished=False) == Take(keep=False)
    assert book.take(2, 1, b"2@1", last=3, finished=False) == Take(keep=False)
    assert book.acked == {2: 3} and book.last == {2: b"2@3"}  # an older ack: relayed only
    # the last record of a game not over is not final; the finished log's is, once
    assert book.take(1, 5, b"1@5", last=5, finished=True) == Take(keep=True)
    assert book.take(1, 5, b"1@5'", last=5, finished=True) == Take(keep=False)
    assert book.last[1] == b"1@5"
    assert book.shown_to(1) == (b"2@3",) and book.shown_to(3) == (b"1@5", b"2@3")


def test_a_finished_game_waits_for_every_guest_seat_but_the_excused() -> None:
    book = AckBook(host=1)  # (the host's seat need not be 0: it confirms nothing)
    book.take(0, 7, b"0@7", last=7, finished=True)
    book.take(2, 6, b"2@6", last=7, finished=True)
    assert book.missing(range(4), last=7, excused=set()) == [2, 3]
    assert book.missing(range(4), last=7, excused={3}) == [2]  # open-handed and gone
    book.load(2, 7, b"2@7")  # a kept final ack read back after a restart
    book.load(2, 5, b"2@5")  # (an older one changes nothing)
    assert book.missing(range(4), last=7, excused={3}) == []
    assert book.last[2] == b"2@7"
