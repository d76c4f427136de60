"""The full-screen spectator table of ``splitnet watch`` (splitnet/ui/tui/watch_*.py and
each game's split_watch.py / splito_watch.py), headless:

- what it shows is public (R8, S7): at every entry of a whole game of each kind —
  through a Split seat played open-handed (R8.6) and a Splito seat that left (S5.7) —
  every card face the spectator's table shows is one every seat at the table reads,
  and every hand is face down with its count; the oracle is shown to catch a table
  drawn from a seat's own core, and such a core is refused;
- the screen: the seats, the public rows and zones, who is thinking, the log and
  "catching up"; the end screen with the results, each round's audit and the
  transcript's path; a bad record's verdict naming the seat;
- the keys: q quits at once and stops the watch, ? help, the log scrolls; a watch that
  fails shows its verdict and raises it once the screen is closed;
- ``splitnet watch`` runs it at a terminal only (``--plain`` or a pipe: a line per event).
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import DummyOutput

from splitnet.app.lan_watch import WatchTeller
from splitnet.game.table import Limits
from splitnet.games.split.bots import make_bot
from splitnet.games.split.front import watch as split_watch
from splitnet.games.split.local import LocalGame
from splitnet.games.splito.front import watch as splito_watch
from splitnet.net.watcher import WatchFatal
from splitnet.ui.tui import watch_model
from splitnet.ui.tui.snapshot import screen_text
from splitnet.ui.tui.watch_app import WatchScreen, watch_screen
from splitnet.ui.tui.watch_model import Spectacle
from splitnet.verify import LiveVerifier, verify_records
from tests.test_open_hand import new_game as split_game
from tests.test_splito_fair import bots as splito_bots
from tests.test_splito_fair import new_game as splito_game
from tests.test_splito_gone import _commit_phase, _silent_from
from tests.test_tui_support import drained, wait_for
from tests.test_watch_verify import follow as follow_checker
from tests.test_watch_verify import split_known as checker_known

Known = Callable[[Any, int], "set[int] | None"]


def split_known(core: Any, deal: int) -> set[int] | None:
    """The slots ``core`` reads of deal ``deal`` (None: it has no such deal yet)."""
    return core.rounds[deal - 1].deck.known_slots() if len(core.rounds) >= deal else None


def splito_known(core: Any, _deal: int) -> set[int] | None:
    return core.cards.known_slots() if core.cards is not None else None


def public_check(g: LocalGame[Any], sp: Spectacle, known: Known) -> bool:
    """Every face the table shows is read by every seat (R8, S7); every hand's count is
    the seats'. Returns whether some seat read a card the table did not show (a hidden
    hand: so the check is not empty)."""
    theirs = [k for c in g.cores if (k := known(c, sp.deal)) is not None]
    if not sp.shown:
        return bool(theirs and any(theirs))
    assert theirs, "the table shows cards of a deal no seat has"
    common = set.intersection(*theirs)
    assert sp.shown <= common, f"shows slots {sorted(sp.shown - common)} not every seat reads"
    hands = g.cores[0].engine.hands
    assert [s.cards for s in sp.seats] == [len(h) for h in hands]
    return any(k - sp.shown for k in theirs)


def follow(g: LocalGame[Any], spectate: Callable[[Any, list[str]], Spectacle], known: Known,
           core_of: Callable[[LiveVerifier], Any] = lambda w: w.core
           ) -> list[tuple[bool, set[int]]]:
    """A watcher fed every record the moment the log has it; at each entry its table is
    drawn and held to :func:`public_check`. Per entry: (some card hidden, the seats whose
    whole hand, of a card or more, is shown face up)."""
    watcher = LiveVerifier()
    for rec in g.log.records():
        assert watcher.feed(rec) is None
    seen: list[tuple[bool, set[int]]] = []

    def on_entry(author: int, kind: str, body: dict[str, Any]) -> None:
        for rec in g.log.records()[watcher.entries:]:
            assert watcher.feed(rec) is None, watcher.failed
        sp = spectate(core_of(watcher), list(g.names))
        hands = g.cores[0].engine.hands
        up = {s.seat for s in sp.seats if s.open_cards and set(hands[s.seat]) <= sp.shown}
        seen.append((public_check(g, sp, known), up))

    g.listeners.append(on_entry)
    return seen


def play_with_a_seat_given_up(g: LocalGame[Any], after: int = 150) -> None:
    """Play ``g`` to its end with bots, its last seat silent from a play stage after
    ``after`` steps and so given up by the host (R8.6): played open-handed from then on."""
    n = g.n
    steps = [0]

    def on_step(g: LocalGame[Any]) -> None:
        steps[0] += 1
        r = g.cores[0].round
        if steps[0] >= after and not g.silent and r is not None and r.stage == "play":
            g.silent.add(n - 1)

    g.run_bots([make_bot("normal", i) for i in range(n)], open_hand_after=120,
               on_step=on_step)
    assert g.finished and g.cores[0].open_seats == {n - 1}


def test_the_split_spectator_shows_only_public_cards_through_an_open_handed_seat() -> None:
    """R8, R8.6: at every entry each face shown is read by every seat; the open-handed
    seat's whole hand is shown face up from the next deal (it is dealt so); the others'
    stay face down but for the cards everyone saw them take from the discard row. The
    watcher's checker on the same game reads no more than every seat (the cut round's
    unplayed cards stay unread by everyone), and reaches verify's verdict."""
    g, _ = split_game(4, False, seed=3)
    checker, _ = follow_checker(g, checker_known)
    seen = follow(g, split_watch.spectate, split_known)
    play_with_a_seat_given_up(g, 20)  # in round 1: round 2 deals it face up
    assert [r.cut for r in g.cores[0].rounds] == [3, None]
    assert any(hidden for hidden, _ in seen)
    assert any(3 in up for _, up in seen)
    assert checker.verdict().ok and checker.verdict() == verify_records(g.log.records())


def test_the_splito_spectator_shows_only_public_cards_with_a_seat_that_left() -> None:
    """S7, S5.7: the same at every entry of a Splito game a seat leaves mid-game."""
    g = splito_game(4, seed=6)
    seen = follow(g, splito_watch.spectate, splito_known)
    _silent_from(g, 2, _commit_phase(3))
    g.run_bots(splito_bots(4), open_hand_after=Limits().open_hand_after_s)
    assert g.finished and g.cores[0].engine.gone == {2: 3}
    assert any(hidden for hidden, _ in seen)
    assert not any(up for _, up in seen)  # no Splito hand is ever face up


def test_the_oracle_catches_a_table_drawn_from_a_seats_own_core(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The check above is no empty one: a Split table drawn from seat 1's core (the
    refusal of such a core switched off) shows that seat's hand face up, which the oracle
    catches; with the refusal on, such a core is refused before anything is drawn (a
    Splito table never draws a hand's faces at all: only the count)."""
    g, _ = split_game(3, False, seed=5)
    with pytest.raises(ValueError, match="no seat"):
        split_watch.spectate(g.cores[1], list(g.names))
    with pytest.raises(ValueError, match="no seat"):
        splito_watch.spectate(splito_game(3).cores[0], ["a", "b", "c"])
    monkeypatch.setattr(split_watch, "no_seat", lambda core: None)
    follow(g, split_watch.spectate, split_known, core_of=lambda _w: g.cores[1])
    with pytest.raises(AssertionError, match="not every seat reads"):
        g.run_bots([make_bot("normal", i) for i in range(3)])


# ---------------------------------------------------------------------- the screen
class Node:
    """A watcher's node as the screen reads it, with a run of our choosing."""

    def __init__(self, run: Callable[[], Any] | None = None) -> None:
        self.status = "watching"
        self.target = 0
        self.have = 0
        self.failed: str | None = None
        self.over = False
        self.path: Path | None = None
        self._run = run

    async def run(self) -> None:
        if self._run is not None:
            await self._run()
        else:
            await asyncio.sleep(3600)


@pytest.fixture
def pipe() -> Iterator[PipeInput]:
    with create_pipe_input() as inp, create_app_session(input=inp, output=DummyOutput()):
        yield inp


def fed(records: list[bytes], upto: int | None = None, node: Node | None = None
        ) -> WatchScreen:
    s = WatchScreen(WatchTeller())
    s.node = node
    for seq, rec in enumerate(records[:upto]):
        assert s.teller.verifier.feed(rec) is None
        s.on_record(seq)
    return s


def text(s: WatchScreen, w: int = 80, h: int = 24) -> str:
    return "\n".join(screen_text(s.app, w, h))  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def split_records() -> list[bytes]:
    g, _ = split_game(3, False, seed=5)
    g.run_bots([make_bot("normal", i) for i in range(3)])
    return g.log.records()


@pytest.fixture(scope="module")
def splito_records() -> list[bytes]:
    g = splito_game(3, seed=2)
    g.run_bots(splito_bots(3))
    return g.log.records()


def test_the_split_table_from_above_mid_game(pipe: PipeInput, split_records: list[bytes]
                                             ) -> None:
    node = Node()
    node.have, node.target = 60, len(split_records)
    s = fed(split_records, 60, node)
    screen = text(s, 100, 40)
    assert "splitnet watch · Split · round 1 of 2 · dealer p0" in screen
    assert f"catching up: 60 of {len(split_records)}" in screen
    assert "Discard row" in screen and "Draw pile: " in screen
    assert " cards ▒" in screen and "Perf" in screen and "Neg" in screen  # hands, pads
    assert "▶" in screen  # who the game waits for
    assert s.model.log[-1].split()[0] in screen  # the newest log line
    small = screen_text(s.app, 80, 24)  # type: ignore[arg-type]
    assert len(small) == 24 and "q quit" in small[-1] and "Log" in "\n".join(small)


def test_the_splito_table_from_above_mid_game(pipe: PipeInput, splito_records: list[bytes]
                                              ) -> None:
    s = fed(splito_records, 60)
    screen = text(s, 100, 40)
    assert "Splito · turn " in screen and "Central objectives" in screen
    assert "zone p0|p1" in screen and "points now" in screen and "revealed (S5.3)" in screen
    assert "cards ▒" in screen and "×" in screen
    for p in ("p0", "p1", "p2"):
        assert p in screen
    narrow = screen_text(s.app, 40, 30)  # type: ignore[arg-type]
    rows = [ln for ln in narrow if " cards ▒" in ln]  # too narrow for columns: a line each
    assert len(rows) == 3 and all(ln.rstrip().endswith(tuple("0123456789")) for ln in rows)


def test_a_game_without_a_spectator_table_shows_its_log(pipe: PipeInput,
                                                         split_records: list[bytes]) -> None:
    s = fed([])
    s.model = watch_model.WatchModel(lambda spec: None)
    for seq, rec in enumerate(split_records[:30]):
        assert s.teller.verifier.feed(rec) is None
        s.on_record(seq)
    screen = text(s, 100, 30)
    assert "draws no table for a watcher" in screen and s.model.log[-1][:30] in screen


@pytest.mark.parametrize("game", ["split", "splito"])
def test_the_end_screen_has_the_results_each_audit_and_the_transcript(
        pipe: PipeInput, game: str, request: pytest.FixtureRequest, tmp_path: Path) -> None:
    records = request.getfixturevalue(f"{game}_records")
    node = Node()
    node.over, node.path = True, tmp_path / ("a-long-directory-name" * 4) / "g.splitlog"
    s = fed(records, None, node)
    s.model.finish(s.ending(None), node)
    screen = text(s, 100, 40)
    assert str(node.path) in "".join(ln.strip() for ln in screen.split("Transcript:")[1]
                                     .split("(splitnet verify")[0].splitlines())
    node.path = Path("/w/watched/g.splitlog")
    s.model.finish(s.ending(None), node)
    screen = text(s, 100, 40)
    assert "The game is over" in screen and "shuffle fair: yes" in screen
    assert "winner: " in screen and "game over" in screen
    assert f"Transcript: {node.path}" in screen
    audits = s.model.ending.audits if s.model.ending else ()
    assert audits and all("audit passed" in a for a in audits)
    assert len(audits) == (2 if game == "split" else 1)  # each round (Splito: one deal)
    assert "round 1: audit passed" in screen or "the deal: audit passed" in screen


def test_a_bad_record_shows_the_verdict_naming_the_seat(
        pipe: PipeInput, split_records: list[bytes]) -> None:
    bad = bytearray(split_records[40])
    bad[-1] ^= 1
    s = fed(split_records, 40)
    failed = s.teller.verifier.feed(bytes(bad))
    assert failed is not None and failed.seat is not None
    node = Node()
    node.failed = failed.summary
    s.node = node
    s.model.finish(s.ending(WatchFatal(failed.summary)), node)
    screen = text(s, 120, 30)
    assert "The watch stopped" in screen and f"(seat {failed.seat})" in screen
    assert "FAILED at entry 40" in screen and "stopped: a bad record" in screen


def test_help_and_log_scrolling(pipe: PipeInput, split_records: list[bytes]) -> None:
    s = fed(split_records, 120)
    last = s.model.log[-1]
    s.press("?")
    assert "Watching a game" in text(s) and "q or Ctrl-C quits at once" in text(s, 100, 40)
    s.press("escape")
    assert "Watching a game" not in text(s)
    s.press("pageup")
    assert s.model.log_back == 10 and "10 newer" in text(s)
    s.press("end")
    assert s.model.log_back == 0 and last[:40] in text(s, 200, 40)


async def test_q_quits_at_once_and_stops_the_watch(pipe: PipeInput) -> None:
    s = WatchScreen(WatchTeller())
    node = Node()
    follow_task = asyncio.ensure_future(s.follow(node))
    assert await wait_for(lambda: s.app.is_running)
    pipe.send_text("q")
    await asyncio.wait_for(follow_task, 5)  # returns: nothing asked, the node stopped
    assert drained(pipe)


async def test_a_failed_watch_stays_on_screen_and_is_raised_once_closed(
        pipe: PipeInput) -> None:
    gone = asyncio.Event()

    async def run() -> None:
        gone.set()
        raise WatchFatal("cannot reach the host (OSError); gave up after 60 s")

    s = WatchScreen(WatchTeller())
    follow_task = asyncio.ensure_future(s.follow(Node(run)))
    assert await wait_for(lambda: s.app.is_running and s.model.ending is not None)
    assert "gave up after 60 s" in text(s, 100, 30) and not follow_task.done()
    pipe.send_text("\x03")  # Ctrl-C: the same as q
    with pytest.raises(WatchFatal, match="gave up"):
        await asyncio.wait_for(follow_task, 5)


def test_the_full_screen_only_at_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """``--plain`` or stdout no terminal: a line per event (None); a terminal with stdin
    no terminal: refused in one line naming --plain, as play and join do."""
    teller = WatchTeller()
    assert watch_screen(argparse.Namespace(plain=True), teller) is None
    monkeypatch.setattr("sys.stdout.isatty", lambda: False, raising=False)
    assert watch_screen(argparse.Namespace(plain=False), teller) is None

    class Tty:
        def isatty(self) -> bool:
            return True

    class NoTty:
        def isatty(self) -> bool:
            return False

    monkeypatch.setattr("sys.stdout", Tty())
    monkeypatch.setattr("sys.stdin", NoTty())
    with pytest.raises(SystemExit, match="--plain"):
        watch_screen(argparse.Namespace(plain=False), teller)


def test_the_model_refuses_a_seated_core() -> None:
    m = watch_model.WatchModel(lambda spec: split_watch.spectate)
    m.start(object(), ["a", "b", "c"])
    g, _ = split_game(3, False)
    with pytest.raises(ValueError, match="no seat"):
        m.update(g.cores[0])
    assert m.table is None


def test_names_a_host_chose_are_shown_never_obeyed(pipe: PipeInput,
                                                   split_records: list[bytes]) -> None:
    """The players' names come from the host's header: the table prints them through
    shown(), never a control character they hold."""
    m = watch_model.WatchModel(lambda spec: split_watch.spectate)
    m.start(object(), ["\x1b]0;owned\x07Ana", "Bo\x1b[2J", "Cy\r"])
    assert all(ch.isprintable() for name in m.names for ch in name)
    s = fed(split_records, 60)
    s.model.names = m.names
    s.model.update(s.teller.verifier.core)
    screen = text(s, 100, 40)
    assert "owned" in screen and "\x1b" not in screen and "\x07" not in screen


@pytest.mark.parametrize("where", ["table", "drawing"])
def test_a_table_that_cannot_be_drawn_leaves_the_log_and_the_checks(
        pipe: PipeInput, split_records: list[bytes], where: str) -> None:
    """An attack review: records that check out but that a game's spectator table
    cannot draw (here a table made to raise, as it builds or as it is drawn) must not
    end the watch with a traceback: the screen says so once in its log and shows the
    log alone, every later record still checked and told."""
    def spectate(core: Any, names: list[str]) -> Spectacle:
        sp = split_watch.spectate(core, names)
        if where == "table":
            raise IndexError("list index out of range\x1b[2J")
        seat = sp.seats[0]

        def pad(width: int) -> list[Any]:
            raise ZeroDivisionError("division by zero")
        seats = (type(seat)(**{**seat.__dict__, "pad": pad}), *sp.seats[1:])
        return type(sp)(**{**sp.__dict__, "seats": seats})

    s = WatchScreen(WatchTeller())
    s.model = watch_model.WatchModel(lambda spec: spectate)
    for seq, rec in enumerate(split_records[:40]):
        assert s.teller.verifier.feed(rec) is None
        s.on_record(seq)
        text(s, 100, 40)
    screen = text(s, 100, 40)
    said = [ln for ln in s.model.log if ln.startswith("The table cannot be drawn")]
    assert len(said) == 1 and "\x1b" not in said[0]
    assert s.model.table is None and "draws no table" in screen
    assert s.model.log[-1][:30] in screen  # the log goes on
