"""The full-screen Splito table (splitnet/ui/tui/splito*.py): no key but Enter commits a
play, and only one the engine accepts (S5.2); the hand's letters stay put during a turn;
Esc answers at once; q asks and Ctrl-C agrees; every region fits 80×24 and 160×50 uses
the room; help shows every objective in words and in the seed's notation (S1.4), with a
text mark under NO_COLOR; a whole game played by keys on the real local session."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import DummyOutput

from splitnet.games.splito.cards import card_order
from splitnet.games.splito.engine import Game, IllegalMove, Play
from splitnet.games.splito.front.fair import splito_session
from splitnet.games.splito.front.table import rematch_keys
from splitnet.games.splito.front.tui import SplitoTuiApp
from splitnet.games.splito.front.tui_model import SplitoModel
from splitnet.games.splito.front.tui_render import help_lines, overlay_lines, table_lines
from splitnet.ui.tui.render import width_of
from splitnet.verify import verify_records
from tests.splito_helpers import new_game, play
from tests.test_tui_support import drained, wait_for

#: every peer checks every other seat's hop and verify checks each again: the same
#: proofs, checked in full once per test (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("each_shuffle_proof_checked_once")


class StandIn:
    """A SplitoTableSession over a bare engine (no deck, no peers): seat 0's view is the
    whole game, which is enough to drive the table's keys and drawing."""

    def __init__(self, view: Game, players: list[str]) -> None:
        self.view = view
        self.players = players
        self.seat = 0
        self.log: list[str] = []
        self.status = "turn 1 — committing"
        self.verdict: str | None = None
        self.finished = False
        self.submitted: list[Play] = []
        self._subs: list[Callable[[], None]] = []

    def subscribe(self, callback: Callable[[], None]) -> None:
        self._subs.append(callback)

    async def submit(self, p: Play) -> None:
        self.view.check_play(p)
        self.submitted.append(p)

    async def chat(self, text: str) -> None:
        raise IllegalMove("S5.5", "no chat")

    async def run(self) -> None:
        await asyncio.sleep(3600)


def text_of(lines: list[Any]) -> str:
    return "\n".join("".join(f[1] for f in line) for line in lines)


def _stand_in(n: int = 3, turns: int = 0) -> StandIn:
    g = new_game(n, {0: ["R1a", "G5b", "OBJ07", "P6a"]}, central=("OBJ19", "OBJ30"))
    for _ in range(turns):
        play(g, {})
    return StandIn(g, ["You", "Ana", "Bo", "Cy", "Dee", "Eli", "Fay", "Gus"][:n])


def test_no_single_key_commits_only_enter_after_a_card_and_a_side_s5_2() -> None:
    s = _stand_in()
    m = SplitoModel(s, mono=False)
    m.sync()
    stray = [*"ABCDEFGHIJKLMNOPQRSTUVWXYZ", *"abcdefghijklmnopqrstuvwxyz0123456789 -,.",
             "left", "right", "up", "down", "space", "pageup", "pagedown", "escape"]
    for key in stray:
        assert m.press(key) is None, key
        m.overlay = None
        m.confirm_quit = False
    m.press("escape")
    assert m.press("enter") is None and m.note is not None and "choose" in m.note.text
    m.press("B")
    assert m.press("enter") is None and "side" in m.note.text  # type: ignore[union-attr]
    m.press("right")
    chosen = m.press("enter")
    assert isinstance(chosen, Play) and chosen.side == "right"
    order = sorted(s.view.hands[0], key=lambda x: card_order(s.view.face(x)))
    assert chosen.slot == order[1]  # B: the second card in card order (S1.3)


def test_letters_stay_put_during_a_turn_and_a_new_turn_clears_the_choice_s5_4() -> None:
    s = _stand_in()
    m = SplitoModel(s, mono=False)
    m.sync()
    before = m.labels()
    m.press("C")
    # the others commit meanwhile: the screen is drawn again and again, nothing moves
    from splitnet.games.splito.engine import commitment

    for seat in (1, 2):
        slot = s.view.hands[seat][0]
        s.view.commit(seat, commitment(s.view.game_id, 1, seat, s.view.face(slot), "left",
                                       "0" * 32))
        m.sync()
        table_lines(m, 80, 24)
        assert m.labels() == before and m.selected == before[2][1]
    # a new turn (another hand): the choice is gone, the letters are the new hand's
    s2 = _stand_in(turns=1)
    m.session = s2  # type: ignore[assignment]
    m.sync()
    assert m.selected is None and m.side is None
    assert [c for _, _, c in m.labels()] != [c for _, _, c in before]


def test_a_play_the_engine_refuses_is_not_offered_s5_2(monkeypatch: pytest.MonkeyPatch) -> None:
    s = _stand_in()
    m = SplitoModel(s, mono=False)
    m.sync()

    def refuse(self: Game, p: Play) -> None:
        raise IllegalMove("S5.2", "refused by the engine")

    monkeypatch.setattr(Game, "check_play", refuse)
    m.press("A")
    m.press("left")
    assert m.press("enter") is None
    assert m.note is not None and m.note.kind == "error" and "S5.2" in m.note.text


def test_esc_clears_and_q_asks_first() -> None:
    s = _stand_in()
    m = SplitoModel(s, mono=False)
    m.sync()
    m.press("A")
    m.press("left")
    m.press("escape")
    assert m.selected is None and m.side is None
    assert m.press("q") is None and m.confirm_quit
    assert "q again leaves" in text_of(table_lines(m, 80, 24))
    m.press("A")  # any other key stays
    assert not m.confirm_quit
    m.press("q")
    assert m.press("q") == "quit"


@pytest.mark.parametrize("n", [2, 3, 8])
def test_every_region_fits_80x24(n: int) -> None:
    s = _stand_in(n, turns=5)
    s.log.extend(f"Turn {t} revealed: a long line of plays " * 3 for t in range(1, 6))
    for mono in (False, True):
        m = SplitoModel(s, mono=mono)
        m.sync()
        lines = table_lines(m, 80, 24)
        assert len(lines) == 24 and all(width_of(line) == 80 for line in lines)
        text = text_of(lines)
        t = next(line for line in lines if "LEFT" in text_of([line]))
        assert "RIGHT" in text_of([t])
        assert "Central objectives" in text and "OBJ19" in text and "OBJ30" in text
        assert "If the game ended now (left × right, S11.1)" in text
        for sc in s.view.scores():  # the engine's scores, each written out
            assert f"{s.players[sc.seat]} {sc.left_points}×{sc.right_points}={sc.score}" in text
        assert "Turn 6 commitments:" in text and "Your hand" in text
        assert "Your play: a card A–" in text and "Log" in text
        if n <= 3:  # the last reveal, all at once (S5.3), its cards marked in the zones
            assert "Turn 5 revealed:" in text
            assert sum("class:new" in f[0] for line in lines for f in line) >= n
        lz, rz = s.view.seat_zones(0)
        pts = s.view.zone_points()
        assert f"{pts[lz]} point" in text and f"{pts[rz]} point" in text
        if mono:
            assert "[" in text_of([line for line in lines if "Your hand" in text_of([line])])
        else:
            styles = {f[0] for line in lines for f in line}
            assert any("class:sc." in st for st in styles)  # colours as coloured frames


def test_at_80x24_objectives_are_named_below_the_central_line() -> None:
    """In the hand, the zones and the last reveal an objective is its name (and its
    points in a zone), never a bare id; the central line gives id, name and face."""
    s = _stand_in(3)
    play(s.view, {0: ("OBJ07", "right")})  # Evens now lies in our right zone
    m = SplitoModel(s, mono=True)
    m.sync()
    lines = [text_of([line]) for line in table_lines(m, 80, 24)]
    zones = next(i for i, ln in enumerate(lines) if "◀ LEFT" in ln)
    below = "\n".join(lines[zones:])
    assert "OBJ" not in below, below
    assert "✗Evens ◆◆" in below and "✗★Red pair ◆" in below  # in the zone
    assert "you→right Evens" in below  # the reveal
    assert "OBJ19 Red pair" in "\n".join(lines[:zones])
    wide = "\n".join(text_of([line]) for line in table_lines(m, 160, 50))
    assert "✗OBJ07 Evens ◆◆" in wide  # with room, the id too


def test_a_big_terminal_shows_the_other_zones_and_more_log() -> None:
    s = _stand_in(4, turns=4)
    s.log.extend(f"line {i}" for i in range(60))
    m = SplitoModel(s, mono=False)
    m.sync()
    small, big = text_of(table_lines(m, 80, 24)), text_of(table_lines(m, 160, 50))
    assert "The other zones" not in small and "The other zones" in big
    assert big.count("line ") > small.count("line ") + 10
    assert "Yellow over green" in big  # objective names where there is room


def test_help_shows_every_objective_in_words_and_notation_s1_4() -> None:
    s = _stand_in()
    for mono in (False, True):
        m = SplitoModel(s, mono=mono)
        m.sync()
        lines = help_lines(m, 80)
        text = text_of(lines)
        for o in s.view.settings.objective_set.objectives:
            assert f" {o.id} {o.name}" in text
            assert o.text.split()[0] in text
        assert "The central objectives" in text and "Enter" in text and "Esc" in text
        red = [f for line in lines for f in line if "OBJ19" in text_of([line])]
        if mono:
            assert "[R] [R]" in text  # OBJ19's face, the colour as a letter
        else:
            assert "[R]" not in text_of([red])
            assert any(f[0].startswith("class:sc.r") and f[1] == "◇" for f in red)
        m.overlay = "help"
        assert len(overlay_lines(m, 80, 24)) == 24
        m.press("escape")
        assert m.overlay is None


def test_the_end_screen_names_the_winner_and_every_score() -> None:
    s = _stand_in(3, turns=13)
    s.finished = True
    s.verdict = "Audit passed (S7.5): …"
    s.log.append("Turn 13 revealed: …")
    m = SplitoModel(s, mono=False)
    m.sync()
    assert m.overlay == "end"
    text = text_of(overlay_lines(m, 80, 200))
    assert "wins with" in text or "win with" in text
    for sc in s.view.scores():
        assert f"left {sc.left_points} × right {sc.right_points} = {sc.score}" in text
    assert "Audit passed" in text and "turn by turn" in text
    assert m.press("escape") is None and m.overlay is None
    assert m.press("q") == "quit"  # after the game, q leaves at once


def test_n_at_the_end_starts_the_next_game_only_when_offered_and_played_out() -> None:
    """The end screen's n (a rematch: the same players in the same seats, the deal passed
    left, S4.1) says what it does near the top, in the prompt and at the bottom — worded
    by who presses it — and is no key before the end, without an offer, or after a game
    that stopped with a verdict."""
    s = _stand_in(3, turns=13)
    m = SplitoModel(s, mono=False)
    m.rematch_keys = rematch_keys("local", s.players, s.seat, 1)
    m.sync()
    assert m.press("n") is None  # the game is not finished yet
    s.finished = True
    s.verdict = "Audit passed (S7.5): …"
    m.sync()
    text = text_of(overlay_lines(m, 80, 200))
    assert "n new game with the same players and seats (Ana deals, S4.1)" in text
    assert " n the next game · Esc the table" in text
    assert m.press("n") == "rematch"
    m.overlay = None
    assert "n new game with the same players and seats" in text_of(table_lines(m, 100, 30))
    assert m.press("n") == "rematch"  # on the table as well
    s.verdict = "game stopped: seat 1 at reveal: …"
    assert m.press("n") is None and "n new game" not in text_of(table_lines(m, 100, 30))
    s.verdict = None
    m.rematch_keys = None  # not offered (a LAN game left by invitation, say)
    assert m.press("n") is None and " n the next game" not in text_of(overlay_lines(m, 80, 200))
    for role, words in (("host", "n offer a rematch to the same seats (Bo deals, S4.1; "
                                 "everyone must agree)"),
                        ("joiner", "n agree to a rematch with the same seats if the host "
                                   "offers one (Bo deals, S4.1)")):
        assert rematch_keys(role, s.players, s.seat, 2) == words
    # the player's own seat deals next: "you deal", not "You deals"
    assert rematch_keys("local", ["You", "Ana", "Bo"], 0, 0) == (
        "n new game with the same players and seats (you deal, S4.1)")
    assert rematch_keys("joiner", ["Ana", "Bo"], 1, 1).endswith("(you deal, S4.1)")


async def test_the_running_tables_n_ends_it_with_the_rematch_outcome() -> None:
    s = _stand_in(3, turns=13)
    s.finished = True
    with create_pipe_input() as inp, create_app_session(input=inp, output=DummyOutput()):
        app = SplitoTuiApp(s, mono=False, rematch="local", next_dealer=1)
        task = asyncio.ensure_future(app.run(drive=False))
        assert await wait_for(lambda: app.app.is_running)
        assert app.model.overlay == "end"
        inp.send_text("n")
        assert await wait_for(lambda: not app.app.is_running, 5)
        await asyncio.wait_for(task, 30)
    assert app.outcome == "rematch"


class BellOutput(DummyOutput):
    def __init__(self) -> None:
        super().__init__()
        self.bells = 0
        self.titles: list[str] = []

    def bell(self) -> None:
        self.bells += 1

    def set_title(self, title: str) -> None:
        self.titles.append(title)


@contextlib.asynccontextmanager
async def running(session: Any, out: DummyOutput, bell: bool
                  ) -> AsyncIterator[tuple[SplitoTuiApp, PipeInput]]:
    with create_pipe_input() as inp, create_app_session(input=inp, output=out):
        app = SplitoTuiApp(session, bell=bell, mono=False)
        task = asyncio.ensure_future(app.run())
        assert await wait_for(lambda: app.app.is_running)
        try:
            yield app, inp
        finally:
            if not task.done():
                app.quit()
            await asyncio.wait_for(task, 30)


async def test_a_whole_game_by_keys_with_the_bell_then_verified() -> None:
    session = splito_session("You", ["normal", "normal"], 6)
    out = BellOutput()
    async with running(session, out, bell=True) as (app, inp):
        for _ in range(13):
            assert await wait_for(lambda: app.model.my_play() or session.finished, 60)
            if session.finished:
                break
            turn = session.view.turn
            inp.send_text("Q")  # out of the hand of a late turn: refused, no play
            inp.send_text("A")
            inp.send_text("\x1b[D")  # ←
            await wait_for(lambda: drained(inp))
            await asyncio.sleep(0.05)
            assert app.model.side == "left" and app.model.selected is not None
            inp.send_text("\r")
            assert await wait_for(lambda t=turn: session.view.turn != t or session.view.over,
                                  60)
        assert await wait_for(lambda: session.finished, 60)
        assert await wait_for(lambda: app.model.overlay == "end", 5)
        inp.send_text("q")
        assert await wait_for(lambda: not app.app.is_running, 5)
    assert out.bells == 13 and "splitnet — your play" in out.titles
    v = verify_records(session.game.log.records())
    assert v.ok, v.summary


async def test_ctrl_c_agrees_with_q_during_a_game() -> None:
    s = _stand_in()
    async with running(s, DummyOutput(), bell=False) as (app, inp):
        inp.send_text("\x03")
        await wait_for(lambda: drained(inp))
        await asyncio.sleep(0.05)
        assert app.app.is_running and app.model.confirm_quit  # asks first
        inp.send_text("\x03")
        assert await wait_for(lambda: not app.app.is_running, 5)


def test_a_seat_that_left_shows_left_on_the_commit_line_and_fits_80x24_s5_7() -> None:
    """S5.7 at the table: a seat that left is neither awaited (…) nor done (✓) but `left`
    on the commitments line, and the screen still fits 80×24."""
    s = _stand_in(4, turns=2)
    s.view.abandon(2)
    m = SplitoModel(s, mono=True)
    m.sync()
    lines = table_lines(m, 80, 24)
    assert len(lines) == 24 and all(width_of(line) == 80 for line in lines)
    text = text_of(lines)
    assert "Bo left" in text and "Bo ✓" not in text and "Bo …" not in text
