"""The full-screen table (issue 5): refusals, the 80×24 layout, highlights from the engine,
mouse clicks, chat, and the lobby screen. Headless: a pipe for keys, a dummy output."""

from __future__ import annotations

import asyncio
import copy
import re
from collections.abc import Callable
from typing import Any

import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from splitnet.cards import pretty, rank
from splitnet.games.split.bots import make_bot
from splitnet.games.split.rules import Action, Game, Lay, TakeRow
from splitnet.ui.tui import TuiApp, run_lobby
from splitnet.ui.tui.model import KIND_LETTER
from splitnet.ui.tui.snapshot import screen_text
from tests.stand_in import LocalSession, make_local_session
from tests.test_tui_support import LEFT, drained, running_tui, send, wait_for


def state(session: LocalSession) -> tuple[Any, ...]:
    v = session.view
    return (v.phase, v.actor, copy.deepcopy(v.hands), list(v.row), len(v.events),
            v.pile_count, [(m.id, m.owner, list(m.top), m.kind) for m in v.matches],
            copy.deepcopy(v.marks), copy.deepcopy(v.round_marks))


async def my_turn(tui: TuiApp) -> None:
    s = tui.session
    assert await wait_for(lambda: s.view.actor == s.seat and s.status == "your turn"
                          and not tui.model.busy, timeout=10)


# ---------------------------------------------------------------------- refusals
async def test_illegal_keys_explain_the_rule_and_change_nothing() -> None:
    session = make_local_session(3, seed=11, bot_delay=0.0)
    async with running_tui(session) as (tui, inp):
        m = tui.model
        await my_turn(tui)
        assert session.view.phase == "draw"
        before = state(session)
        # x (discard) before drawing: the engine says R4.1, nothing moves.
        await send(tui, inp, "x")
        assert m.note is not None and m.note.kind == "error"
        assert "R4.1" in m.note.text and "draw" in m.note.text
        assert state(session) == before
        text = "\n".join(screen_text(tui.app, 80, 24))
        assert "R4.1" in text  # shown on the screen, in one line

        # Draw, then try to lay two halves of different ranks: R2.1.
        assert await send(tui, inp, "d")
        await wait_for(lambda: session.view.phase == "play")
        order = m.hand_order()
        faces = session.view.faces
        a = order[0]
        b = next(s for s in order if rank(faces[s] or 0) != rank(faces[a] or 0))
        before = state(session)
        keys = "".join("ABCDEFGHIJKLMNOPQRSTUVWXYZ"[order.index(s)] for s in (a, b)) + "l"
        await send(tui, inp, keys)
        assert m.note is not None and m.note.kind == "error"
        assert m.note.text.startswith("✗ R2.1"), m.note.text
        assert state(session) == before
        assert "R2.1" in "\n".join(screen_text(tui.app, 80, 24))

        # Skip a bonus that is not pending: R4.3 (the play phase), nothing changes.
        await send(tui, inp, "s")
        assert m.note is not None and "R4.3" in m.note.text
        assert state(session) == before


def test_out_of_turn_key_is_refused_by_the_engine_and_not_queued() -> None:
    session = make_local_session(3, seed=3, bot_delay=0.0)
    session.table.start_round()  # seat 1 (Ana) moves first; the session is not running
    with create_pipe_input() as inp, create_app_session(input=inp, output=DummyOutput()):
        tui = TuiApp(session)
        before = state(session)
        tui.press("d")
        note = tui.model.note
        assert note is not None and note.text == "✗ R3.4: it is Ana's turn, not yours"
        assert state(session) == before
        assert session.human._queue.empty()  # nothing waits to be played later


# ---------------------------------------------------------------------- 80×24
def advance(session: LocalSession, steps: int, me_seed: int = 5) -> None:
    """Play ``steps`` moves with bots for every seat (the human's seat too), stopping on
    a move of the human's seat."""
    t = session.table
    me = make_bot("heuristic", me_seed)
    t.start_round()
    for i in range(steps):
        ref = t.referee
        if ref.phase == "game_over":
            return
        if ref.phase == "round_over":
            t.start_round()
        if ref.actor == session.seat:
            if i >= steps - 10:
                return
            t.play(me.choose(t.views[session.seat], session.seat))
        else:
            t.step()


def match_visible(text: str, mid: int, kind: str) -> bool:
    k = KIND_LETTER[kind]
    return bool(re.search(rf"(#{mid} {k}\b|(^|[│ ]){mid} {k} |(^|[│ ]){mid}{k}[ 1-9AJQK])",
                          text, re.M))


@pytest.mark.parametrize(("bots", "steps", "seed"), [
    (3, 0, 1), (3, 45, 1), (3, 110, 2), (5, 60, 3), (1, 30, 2), (2, 150, 4),
])
def test_every_region_visible_at_80x24(bots: int, steps: int, seed: int) -> None:
    session = make_local_session(bots, seed=seed, bot_delay=0.0)
    advance(session, steps)
    view = session.view
    session.log.append("Bo: good luck!")
    with create_pipe_input() as inp, create_app_session(input=inp, output=DummyOutput()):
        tui = TuiApp(session)
        tui.model.sync()
        tui.model.overlay = None
        lines = screen_text(tui.app, 80, 24)
    text = "\n".join(lines)
    assert "too small" not in text.lower()
    assert all(len(ln) <= 80 for ln in lines) and len(lines) == 24
    assert f"Round {view.round_no}/3" in lines[0] and f"Pile {view.pile_count}" in lines[0]
    # every player's name, hand size and pad (four rows with the first open box's value)
    for s, name in enumerate(session.players):
        assert f"{s + 1} {name}" in text
        assert re.search(rf"\b{len(view.hands[s])} ?c", text)
    for label in ("P", "S", "W", "N"):
        rows = [ln for ln in lines if re.search(rf"(^|│) {label}(erf|tr|eak|eg)? +[■▣□‹]", ln)]
        assert sum(len(re.findall(rf"(^|│) {label}(erf|tr|eak|eg)? +[■▣□‹]", ln))
                   for ln in rows) == view.n, label
    # the current player and the dealer
    assert "▶" in text and re.search(r" D( |$)", text, re.M)
    # the discard row, every card, numbered; the hand, every card
    row_at = next(i for i, ln in enumerate(lines) if "Discard row" in ln)
    hand_at = next(i for i, ln in enumerate(lines) if "Your hand" in ln)
    row_text = "\n".join(lines[row_at:hand_at])
    for i, slot in enumerate(view.row):
        assert str(i + 1) in row_text and pretty(view.faces[slot] or 0) in row_text
    log_at = next(i for i, ln in enumerate(lines) if ln.startswith(" Log"))
    hand_text = "\n".join(lines[hand_at:log_at])
    for slot in view.hands[session.seat]:
        assert pretty(view.faces[slot] or 0) in hand_text
    # every match: id, type, two halves
    top = "\n".join(lines[1:row_at])
    for mt in view.matches:
        assert match_visible(top, mt.id, mt.kind), (mt.id, mt.kind, top)
    # the log (newest line), the chat line, what to do, the keys
    assert "Bo: good luck!" in "\n".join(lines[log_at:])
    assert "say ›" in lines[log_at]
    assert "help" in lines[-1] and "quit" in lines[-1]
    assert lines[-2].strip()


@pytest.mark.parametrize("steps", [3, 45])
def test_bigger_terminal_uses_the_room(steps: int) -> None:
    session = make_local_session(3, seed=1, bot_delay=0.0)
    advance(session, steps)
    with create_pipe_input() as inp, create_app_session(input=inp, output=DummyOutput()):
        tui = TuiApp(session)
        tui.model.sync()
        small = screen_text(tui.app, 80, 24)
        big = screen_text(tui.app, 140, 45)
        huge = screen_text(tui.app, 160, 50)
    log_small = len(small) - next(i for i, ln in enumerate(small) if ln.startswith(" Log"))
    for screen in (big, huge):
        log_big = len(screen) - next(i for i, ln in enumerate(screen) if ln.startswith(" Log"))
        assert log_big >= log_small
        assert max(len(ln) for ln in screen) > 100
        top = "\n".join(screen[:next(i for i, ln in enumerate(screen) if "Discard row" in ln)])
        # the pads as printed: every box with its value, the last ones too (138, 324)
        assert top.count(" 138") == 4 and top.count(" 324") == 4, top
        # the room is used: no empty lines but the log's (short early in a round)
        log_at = next(i for i, ln in enumerate(screen) if ln.startswith(" Log"))
        blank = sum(1 for ln in screen[:log_at] if not ln.strip())
        assert blank <= 2, "\n".join(screen)
        if len(session.log) >= 40:
            assert all(ln.strip() for ln in screen[log_at:])


def test_highlights_follow_the_engines_legal_moves(monkeypatch: pytest.MonkeyPatch) -> None:
    session = make_local_session(3, seed=4, bot_delay=0.0)
    advance(session, 0)
    t = session.table
    while t.referee.actor != session.seat:
        t.step()
    with create_pipe_input() as inp, create_app_session(input=inp, output=DummyOutput()):
        tui = TuiApp(session)
        m, p = tui.model, tui.painter
        order = m.hand_order()
        faces = session.view.faces
        # two halves of different ranks: no rule would let them lay — the engine "does"
        a = order[0]
        b = next(s for s in order if rank(faces[s] or 0) != rank(faces[a] or 0))
        fake: list[Action] = [Lay(session.seat, a, b), TakeRow(session.seat, 0)]
        calls: list[int] = []

        def legal(self: Game, seat: int) -> list[Action]:
            calls.append(seat)
            return list(fake)

        monkeypatch.setattr(Game, "legal_moves", legal)

        def forbidden(self: Game, seat: int) -> Any:
            raise AssertionError("the table must ask legal_moves, nothing else")

        monkeypatch.setattr(Game, "iter_legal_moves", forbidden)

        def highlighted(lines: list[Any], style: str) -> list[str]:
            return [f[1] for ln in lines for f in ln if style in f[0]]

        hand = p.hand(80, None)
        assert highlighted(hand, "class:playable") == [pretty(faces[s] or 0)
                                                      for s in order if s in (a, b)]
        row = p.row(80, None)
        assert "✚1" in "".join(f[1] for ln in row for f in ln)
        assert highlighted(row, "class:takeable")
        assert "2 playable" in m.instruction() or "✚" in m.instruction()
        assert calls and set(calls) == {session.seat}

        fake.clear()
        assert highlighted(p.hand(80, None), "class:playable") == []
        assert highlighted(p.row(80, None), "class:takeable") == []
        assert "✚" not in "".join(f[1] for ln in p.row(80, None) for f in ln)
        screen_text(tui.app, 80, 24)  # a full drawing asks only legal_moves too


# ---------------------------------------------------------------------- mouse and chat
def find(lines: list[str], text: str, from_bottom: bool = False) -> tuple[int, int]:
    rows = list(enumerate(lines))
    for y, ln in reversed(rows) if from_bottom else rows:
        x = ln.find(text)
        if x >= 0:
            return x, y
    raise AssertionError(f"{text!r} not on screen")


async def click(tui: TuiApp, inp: Any, x: int, y: int) -> None:
    # SGR mouse report: press then release of the left button at (x, y), 1-based.
    inp.send_text(f"\x1b[<0;{x + 1};{y + 1}M\x1b[<0;{x + 1};{y + 1}m")
    await wait_for(lambda: drained(inp))
    await asyncio.sleep(0)
    await wait_for(lambda: not tui.model.busy)


async def test_mouse_selects_a_card_and_clicks_a_key() -> None:
    session = make_local_session(3, seed=11, bot_delay=0.0)
    async with running_tui(session) as (tui, inp):
        await my_turn(tui)
        size = tui.app.output.get_size()
        tui.app.invalidate()
        await asyncio.sleep(0.1)
        lines = screen_text(tui.app, size.columns, size.rows)
        # the "d draw" hint on the keys line (the last line)
        x, y = find(lines, "d draw", from_bottom=True)
        assert y == size.rows - 1
        await click(tui, inp, x, y)
        assert await wait_for(lambda: session.view.phase == "play")
        await asyncio.sleep(0.1)
        lines = screen_text(tui.app, size.columns, size.rows)
        order = tui.model.hand_order()
        card = pretty(session.view.faces[order[2]] or 0)
        _, hy = find(lines, "Your hand")
        x = lines[hy + 2].find(card, 10)
        await click(tui, inp, x + 1, hy + 2)
        assert tui.model.selected == [order[2]]


async def test_chat_line_sends_to_the_table() -> None:
    session = make_local_session(3, seed=11, bot_delay=0.0)
    async with running_tui(session) as (tui, inp):
        await send(tui, inp, "c")
        assert tui.app.layout.has_focus(tui.chat_buffer)
        await send(tui, inp, "dlux hello")  # game keys are text while chatting
        assert tui.chat_buffer.text == "dlux hello"
        await send(tui, inp, "\r")
        assert await wait_for(lambda: any(ln == "You: dlux hello" for ln in session.log))
        assert not tui.app.layout.has_focus(tui.chat_buffer)


async def test_help_opens_and_closes() -> None:
    session = make_local_session(3, seed=11, bot_delay=0.0)
    async with running_tui(session) as (tui, inp):
        await send(tui, inp, "?")
        assert tui.model.overlay == "help"
        text = "\n".join(screen_text(tui.app, 80, 24))
        assert "Matches (R2)" in text and "7♥ 7♦" in text
        await send(tui, inp, "\x1b[6~")  # PgDn scrolls
        assert tui.model.scroll > 0
        await send(tui, inp, "?")
        assert tui.model.overlay is None


# ---------------------------------------------------------------------- the lobby
class FakeLobby:
    def __init__(self) -> None:
        self.address = "192.168.1.20:7788"
        self.code: str | None = "4831-2277"
        self.players = ["Ana"]
        self.can_start = False
        self.started_calls = 0
        self._subs: list[Callable[[], None]] = []

    async def start(self) -> None:
        self.started_calls += 1

    def subscribe(self, callback: Callable[[], None]) -> None:
        self._subs.append(callback)

    def join(self, name: str) -> None:
        self.players.append(name)
        self.can_start = len(self.players) >= 2
        for cb in self._subs:
            cb()


async def test_lobby_shows_address_players_and_starts() -> None:
    lobby = FakeLobby()
    with create_pipe_input() as inp, create_app_session(input=inp, output=DummyOutput()):
        task = asyncio.ensure_future(run_lobby(lobby))
        await asyncio.sleep(0.05)
        from prompt_toolkit.application.current import get_app

        app = get_app()
        text = "\n".join(screen_text(app, 80, 24))
        assert "192.168.1.20:7788" in text and "4831-2277" in text and "1. Ana" in text
        assert "Waiting for players" in text
        inp.send_text("s")  # cannot start alone
        await asyncio.sleep(0.05)
        assert lobby.started_calls == 0
        assert "2 to 6 players" in "\n".join(screen_text(app, 80, 24))
        lobby.join("Bo")
        text = "\n".join(screen_text(app, 80, 24))
        assert "2. Bo" in text and "start the game" in text
        inp.send_text("s")
        assert await asyncio.wait_for(task, 5) is True
        assert lobby.started_calls == 1


async def test_lobby_leave() -> None:
    lobby = FakeLobby()
    with create_pipe_input() as inp, create_app_session(input=inp, output=DummyOutput()):
        task = asyncio.ensure_future(run_lobby(lobby))
        await asyncio.sleep(0.05)
        inp.send_text("q")
        assert await asyncio.wait_for(task, 5) is False


# ---------------------------------------------------------------------- late lays (R6.2)
class RiggedDeck:
    """A fixed deck: ``first`` faces on the first slots, the rest in order."""

    def __init__(self, first: list[str]) -> None:
        from splitnet.cards import card_id

        top = [card_id(c, i % 2) for i, c in enumerate(first)]
        self.faces = top + [f for f in range(104) if f not in top]

    def begin_round(self, *args: Any) -> None:
        pass

    def private(self, seat: int, slot: int) -> int:
        return self.faces[slot]

    def public(self, slot: int) -> int:
        return self.faces[slot]

    def end_round(self) -> list[int]:
        return list(self.faces)


class ScriptBot:
    """Goes out on its first turn: draw, lay the pair, skip the bonus, discard."""

    name = "script"

    def choose(self, game: Game, seat: int) -> Action:
        from splitnet.games.split.rules import Discard, DrawPile, SkipBonus

        moves = game.legal_moves(seat)
        for kind in (Lay, SkipBonus, DrawPile, Discard):
            for mv in moves:
                if isinstance(mv, kind):
                    return mv
        raise AssertionError(moves)


async def test_late_lays_after_a_first_turn_go_out() -> None:
    from splitnet.frontend import HumanAgent
    from splitnet.games.split.rules import Settings
    from splitnet.localplay import LocalTable

    # slot 0, 2 → Ana (she plays first), slot 1, 3 → you, slot 4 the first discard,
    # slot 5 Ana's draw.
    deck = RiggedDeck(["7H", "9C", "7D", "9S", "2C", "KC"])
    table = LocalTable(["You", "Ana"], [None, ScriptBot()], deck,
                       Settings(rounds=1, hand_size=2))
    session = LocalSession(table, 0, HumanAgent())
    async with running_tui(session) as (tui, inp):
        m = tui.model
        assert await wait_for(lambda: session.view.phase == "late_lays"
                              and session.view.actor == 0 and not m.busy)
        assert "went out at once" in m.instruction() and "(R6.2)" in m.instruction()
        assert m.legal().end_late and m.legal().lays
        text = "\n".join(screen_text(tui.app, 80, 24))
        assert "l lay" in text and "e end" in text
        await send(tui, inp, "ABl")
        assert m.note is None, m.note
        assert session.view.matches[-1].owner == 0
        await send(tui, inp, "e")
        assert await wait_for(lambda: session.finished and m.overlay == "final")
        assert "GAME OVER" in "\n".join(screen_text(tui.app, 80, 24))
        await send(tui, inp, LEFT)  # the last round's results
        assert m.overlay == "summary"
        text = "\n".join(screen_text(tui.app, 80, 24))
        assert "You laid a late strong match: 9♣ 9♠" in text
        assert "GAME OVER" in text
        await send(tui, inp, "q")
        assert await wait_for(lambda: not tui.app.is_running)
