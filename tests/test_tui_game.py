"""A whole game against bots, played to the end through keystrokes alone (issue 5)."""

from __future__ import annotations

import time

from splitnet.ui.tui.snapshot import screen_text
from tests.stand_in import make_local_session
from tests.test_tui_support import player_keys, running_tui, send, wait_for


async def test_whole_game_by_keys() -> None:
    session = make_local_session(3, "heuristic", seed=7, bot_delay=0.0)
    started = time.monotonic()
    moves = 0
    async with running_tui(session) as (tui, inp):
        m = tui.model
        for _ in range(4000):
            assert time.monotonic() - started < 60, "game took too long"
            await wait_for(lambda: session.finished or m.overlay is not None or (
                session.view.actor == session.seat and not m.busy), timeout=5)
            if m.overlay == "final" and session.finished:
                text = "\n".join(screen_text(tui.app, 80, 60))  # the end screen
                assert "GAME OVER" in text and "Shuffle: " in text
                assert (session.verdict or "")[:40] in text.replace("\n│   ", " ")
                assert "Standings: 1." in text
                for name in session.players:
                    assert name in text
                assert "Perfect" in text and "Negative" in text  # the paper pads
                inp.send_text("q")
                break
            if m.overlay is not None:
                assert await send(tui, inp, "\r")
                continue
            assert session.view.actor == session.seat, session.status
            keys = player_keys(tui, take_row=moves % 3 == 0)
            assert await send(tui, inp, keys), (
                f"keys {keys!r} did nothing in phase {session.view.phase}")
            if m.note is not None and m.note.kind == "error":
                raise AssertionError(f"keys {keys!r} refused: {m.note.text}")
            moves += 1
        else:
            raise AssertionError("the game did not end")
        assert await wait_for(lambda: not tui.app.is_running, timeout=5)
    view = session.view
    assert session.finished and view.phase == "game_over"
    assert len(tui.model.summaries) == 3
    last = tui.model.summaries[-1]
    assert last.game_over and last.winners == view.winners()
    assert last.totals == [view.score(s) for s in range(view.n)]
    assert all(s.verdict for s in tui.model.summaries)
    assert moves > 20
