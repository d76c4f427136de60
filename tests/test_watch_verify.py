"""A watcher's checks, record by record (issue "Watch a game"; protocol/TRANSCRIPT.md §10):
:class:`splitnet.verify.LiveVerifier` takes each record as it arrives, exactly as
``splitnet verify`` takes the whole transcript. Whole games of both games — with and
without shuffle proofs — are followed live: at every entry the watcher has checked
everything so far and reads no card that some seat at the table cannot (R8, S7: only
what is public), and at the end it reaches verify's verdict (through a seat given up,
R8.6: tests/test_watch_tui.py, the same check beside the spectator table's on one game).
A bad record stops it at that record with verify's verdict, naming the same seat, and it
takes nothing after."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from splitnet.games.split.bots import make_bot
from splitnet.games.split.local import LocalGame
from splitnet.games.splito.core import SplitoCore
from splitnet.verify import LiveVerifier, verify_records
from tests.test_open_hand import new_game as split_game
from tests.test_splito_fair import bots as splito_bots
from tests.test_splito_fair import new_game as splito_game


def split_known(core: Any) -> tuple[int, set[int]] | None:
    r = core.round
    return None if r is None or not r.deck.shuffled else (r.number, r.deck.known_slots())


def splito_known(core: Any) -> tuple[int, set[int]] | None:
    cards = core.cards
    return None if cards is None or not cards.shuffled else (0, cards.known_slots())


def follow(g: LocalGame[Any], known: Callable[[Any], tuple[int, set[int]] | None]
           ) -> tuple[LiveVerifier, list[tuple[int, bool]]]:
    """A watcher fed every record the moment the log has it; at each entry its cards are
    checked against the seats' (what it reads, every seat reads too). Returns it and,
    per entry, how many slots it read and whether some seat read a slot it could not
    (a hidden hand: so the check is not empty)."""
    watcher = LiveVerifier()
    for rec in g.log.records():
        assert watcher.feed(rec) is None
    counts: list[tuple[int, bool]] = []

    def on_entry(author: int, kind: str, body: dict[str, Any]) -> None:
        new = g.log.records()[watcher.entries:]
        for rec in new:
            assert watcher.feed(rec) is None, watcher.failed
        mine = known(watcher.core)
        if mine is None:
            counts.append((0, False))
            return
        theirs = [known(c) for c in g.cores]
        others = [k for n, k in (t for t in theirs if t is not None) if n == mine[0]]
        assert others and mine[1] <= set.intersection(*others), (kind, mine[1])
        counts.append((len(mine[1]), any(k - mine[1] for k in others)))

    g.listeners.append(on_entry)
    return watcher, counts


@pytest.mark.parametrize(("n", "proofs"), [(3, True), (4, False)])
def test_a_split_game_watched_live_reads_only_what_is_public_and_verifies(
        n: int, proofs: bool) -> None:
    g, _ = split_game(n, proofs, seed=5)
    watcher, counts = follow(g, split_known)
    g.run_bots([make_bot("normal", i) for i in range(n)])
    assert g.finished and g.verdict is None
    assert any(read for read, _ in counts)  # it read the public cards as they came
    assert any(hidden for _, hidden in counts)  # while the seats held cards it could not
    v = watcher.verdict()
    assert v.ok and v == verify_records(g.log.records())
    assert watcher.entries == len(g.log)


def test_a_splito_game_watched_live_reads_only_what_is_public_and_verifies() -> None:
    g: LocalGame[SplitoCore] = splito_game(3, seed=2)
    watcher, counts = follow(g, splito_known)
    g.run_bots(splito_bots(3))
    assert g.finished and g.verdict is None
    assert any(read for read, _ in counts) and any(hidden for _, hidden in counts)
    v = watcher.verdict()
    assert v.ok and v == verify_records(g.log.records())


def test_a_bad_record_stops_the_watcher_with_verifys_verdict_and_nothing_after() -> None:
    """Every record of a finished game in turn damaged (a byte flipped in its
    signature's last byte or in its body): the watcher fed the transcript stops at that
    record with the verdict ``splitnet verify`` gives the whole damaged transcript,
    and refuses every record after it, good ones included."""
    g, _ = split_game(3, False, seed=7)
    g.run_bots([make_bot("normal", i) for i in range(3)])
    records = g.log.records()
    for k in range(0, len(records), max(1, len(records) // 6)):
        for where in (len(records[k]) - 1, len(records[k]) // 2):
            bad = bytearray(records[k])
            bad[where] ^= 0x01
            damaged = [*records[:k], bytes(bad), *records[k + 1:]]
            want = verify_records(damaged)
            assert not want.ok and want.seq == k, (k, want.summary)
            watcher = LiveVerifier()
            got = [watcher.feed(r) for r in damaged]
            assert got[:k] == [None] * k and got[k] == want
            assert all(x is want or x == want for x in got[k:])  # nothing more taken
            assert watcher.entries == k and watcher.verdict() == want
