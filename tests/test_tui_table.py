"""Issue 12 at the full-screen table: scores a player can read, keys a player does not
regret, the hint, the bell, the end screen. Headless (pipe input, dummy output)."""

from __future__ import annotations

import re

import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from splitnet.describe import describe_event, describe_round_end
from splitnet.rules import Game
from splitnet.rules.scoring import standing_now
from splitnet.ui.tui import TuiApp, make_local_session
from splitnet.ui.tui.snapshot import screen_text
from tests.test_tui import advance


def table_text(session: object, width: int = 80, height: int = 24) -> str:
    with create_pipe_input() as inp, create_app_session(input=inp, output=DummyOutput()):
        tui = TuiApp(session)  # type: ignore[arg-type]
        tui.model.sync()
        tui.model.overlay = None
        return "\n".join(screen_text(tui.app, width, height))


# ---------------------------------------------------------------------- scores
def test_seat_totals_are_the_standing_if_the_round_ended_now() -> None:
    session = make_local_session(3, seed=1, bot_delay=0.0)
    advance(session, 45)
    view = session.view
    assert any(m.kind == "perfect" for m in view.matches)
    text = table_text(session)
    for s in range(view.n):
        now = standing_now(view, s)
        shown = f"now {now}".replace("-", "−")
        assert shown in text, (shown, text)
    # round 1: every pad is still empty, yet the matches on the table count already
    assert all(view.score(s) == 0 for s in range(view.n))
    assert any(standing_now(view, s) > 0 for s in range(view.n))
    assert "-" not in text.split("Discard row")[0]  # one minus sign: −


def test_one_card_is_not_cards() -> None:
    session = make_local_session(3, seed=1, bot_delay=0.0)
    advance(session, 45)
    view = session.view
    seat = next(s for s in range(view.n) if s != session.seat)
    del view.hands[seat][1:]
    text = table_text(session)
    assert "1 card " in text and "1 cards" not in text


def test_no_color_says_underlined_not_green(monkeypatch: pytest.MonkeyPatch) -> None:
    session = make_local_session(3, seed=1, bot_delay=0.0)
    advance(session, 45)
    assert "green = can be played now" in table_text(session)
    monkeypatch.setenv("NO_COLOR", "1")
    text = table_text(session)
    assert "green" not in text and "underlined = can be played now" in text


def test_your_own_match_and_points_in_the_log() -> None:
    g = Game(2)
    g.start_round(list(range(104)))
    g.matches.append(__import__("splitnet.rules", fromlist=["Match"]).Match(0, 1, [0, 2]))
    ev = {"type": "upgrade", "match_id": 0, "card": 4, "covers": 2, "owner_before": 1,
          "match": "perfect"}
    assert describe_event(ev, g, ["Ana", "Bo"], actor=1, viewer=1).startswith(
        "You upgraded your own match")
    assert describe_event(ev, g, ["Ana", "Bo"], actor=1, viewer=0).startswith(
        "Bo upgraded their own match")
    # a round's end in points, the sum written out, one minus sign
    session = make_local_session(1, seed=2, bot_delay=0.0)
    advance(session, 10_000)
    lines = [ln for ln in session.log if ln.startswith("  ") and "total" in ln]
    assert len(lines) == 2 * 3
    assert all(re.search(r": total −?\d+ \([+−]?\d+ this round\)$", ln) for ln in lines), lines
    assert not any("-" in ln for ln in lines)
    g2 = session.view
    assert describe_round_end(g2, session.players, 0)[-1].endswith(
        f"total {g2.score(1)}".replace("-", "−") + lines[-1][lines[-1].index(" ("):])
