"""Support for the full-screen table tests (no tests here): drive the table headlessly —
a pipe for keys, a dummy output, and a little "player" that picks the keys a person would
press."""

from __future__ import annotations

import asyncio
import contextlib
import select
import time
from collections.abc import AsyncIterator, Callable

from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import DummyOutput

from splitnet.games.split.rules import BonusSwap, LateLay, Lay, Upgrade
from splitnet.ui.tui import TuiApp
from splitnet.ui.tui.model import TableModel
from tests.stand_in import LocalSession

UP, DOWN, RIGHT, LEFT = "\x1b[A", "\x1b[B", "\x1b[C", "\x1b[D"


async def wait_for(pred: Callable[[], bool], timeout: float = 5.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return True
        await asyncio.sleep(0.002)
    return pred()


def drained(inp: PipeInput) -> bool:
    """True when the app has read every key sent (and so handled it: prompt_toolkit
    processes keys in the same callback that reads them)."""
    fd = inp.fileno()
    return not select.select([fd], [], [], 0)[0]


async def send(tui: TuiApp, inp: PipeInput, keys: str, timeout: float = 5.0) -> bool:
    """Type ``keys`` and wait until they are handled and any move they sent is answered.
    Returns whether anything visible changed."""
    before = signature(tui)
    inp.send_text(keys)
    await wait_for(lambda: drained(inp), timeout)
    await asyncio.sleep(0)
    await wait_for(lambda: not tui.model.busy, timeout)
    return signature(tui) != before


@contextlib.asynccontextmanager
async def running_tui(session: LocalSession) -> AsyncIterator[tuple[TuiApp, PipeInput]]:
    """The table running on a pipe input and a dummy output, beside ``session.run()``."""
    with create_pipe_input() as inp, create_app_session(input=inp, output=DummyOutput()):
        tui = TuiApp(session)
        task = asyncio.ensure_future(tui.run())
        assert await wait_for(lambda: tui.app.is_running)
        try:
            yield tui, inp
        finally:
            if not task.done():
                tui.quit()
            await asyncio.wait_for(task, 10)


def signature(tui: TuiApp) -> tuple[object, ...]:
    m, v = tui.model, tui.session.view
    return (v.round_no, v.phase, v.actor, len(v.hands[m.seat]), len(v.row), len(v.matches),
            v.pile_count, v.pending_bonus, m.note.text if m.note else None,
            tuple(m.selected), m.marked_match, m.overlay, m.area, m.table_cursor,
            m.row_cursor, m.hand_cursor, tui.session.finished)


def label(m: TableModel, slot: int) -> str:
    return m.letter(slot)


def clear_selection(m: TableModel) -> str:
    return "".join(label(m, s) for s in m.selected)


def goto_area(m: TableModel, area: str, start: str | None = None) -> str:
    order = ["table", "row", "hand"]
    if area == "table" and not m.view.matches:
        return ""
    d = order.index(area) - order.index(start or m.area)
    return (DOWN if d > 0 else UP) * abs(d)


def goto_half(m: TableModel, match_id: int, half: int, start: str | None = None) -> str:
    keys = goto_area(m, "table", start)
    halves = m.halves()
    cur = halves.index(m.table_cursor) if m.table_cursor in halves else 0
    d = halves.index((match_id, half)) - cur
    return keys + (RIGHT if d > 0 else LEFT) * abs(d)


def player_keys(tui: TuiApp, take_row: bool) -> str:
    """The keys a person would press now, read off the screen's model (legal moves)."""
    m = tui.model
    v = m.view
    legal = m.legal()
    phase = v.phase
    if phase == "draw":
        if take_row and legal.takeable:
            i = max(legal.takeable)
            return str(i + 1) + "t" if i < 9 else goto_area(m, "row") + "t"
        return "d"
    if phase in ("play", "must_play"):
        lays = [x for x in legal.lays if isinstance(x, Lay)]
        if lays:
            lay = max(lays, key=lambda x: (x.a == v.picked or x.b == v.picked))
            return clear_selection(m) + label(m, lay.a) + label(m, lay.b) + "l"
        if legal.upgrades:
            up = legal.upgrades[0]
            return (clear_selection(m) + label(m, up.slot) + goto_half(m, up.match_id, up.covers,
                                                                   "hand") + "u")
        hand = m.hand_order()
        return clear_selection(m) + label(m, hand[-1]) + "x"
    if phase == "bonus":
        if legal.marks:
            return str(legal.marks[0] + 1)
        if legal.bonus_draw:
            return "d" if v.pile_count > 3 else "s"
        swaps: list[BonusSwap] = list(legal.swaps)
        if swaps and len(swaps) == 1:
            return "w"
        return "s"
    if phase == "late_lays":
        late = [x for x in legal.lays if isinstance(x, LateLay)]
        if late:
            return clear_selection(m) + label(m, late[0].a) + label(m, late[0].b) + "l"
        return "e"
    raise AssertionError(f"no key for phase {phase}")


__all__ = ["DOWN", "LEFT", "RIGHT", "UP", "Upgrade", "goto_half", "player_keys",
           "running_tui", "signature", "wait_for"]
