"""The plain front end (issue 12): this round's negative marks at once, the full
screen's seat numbers and keys, points with the sum written out at the end."""

from __future__ import annotations

import io
import re

from splitnet.games.split.front.selfplay import summary
from splitnet.games.split.rules import BonusDraw, DrawPile, Game
from splitnet.games.split.rules.scoring import standing_now
from splitnet.ui.plain import _player, parse_command, render_table, run_plain
from tests.stand_in import make_local_session
from tests.test_tui_table import position


def test_a_perfect_bonus_mark_shows_at_once_with_the_standing_now() -> None:
    def marked(v: Game) -> bool:
        return v.phase == "draw" and any(m["negative"] for m in v.round_marks)
    session = position(marked)
    view = session.view
    text = render_table(view, session.players, session.seat)
    s = next(s for s in range(view.n) if view.round_marks[s]["negative"])
    k = view.round_marks[s]["negative"]
    line = next(ln for ln in text.splitlines() if f" {s + 1}. {session.players[s]}" in ln)
    assert f"N{view.marks[s]['negative']}+{k}]" in line
    now = str(standing_now(view)[s]).replace("-", "−")
    assert f", {now} if the round ended now" in line
    assert re.search(r"^[> ] 1\. You \(you\): ", text, re.M)
    assert " 0. " not in text  # the numbers are the full screen's: 1…n


def test_player_numbers_and_d_for_the_strong_bonus_as_on_the_full_screen() -> None:
    players = ["You", "Ana", "Bo"]
    assert _player(players, "1") == 0 and _player(players, "3") == 2
    assert _player(players, "bo") == 2
    session = position(lambda v: v.phase == "bonus" and v.pending_bonus == "strong")
    view = session.view
    assert parse_command("d", view, session.seat, session.players, []) == BonusDraw(
        session.seat)
    session = position(lambda v: v.phase == "draw")
    assert parse_command("d", session.view, session.seat, session.players, []) == DrawPile(
        session.seat)


async def test_the_end_summary_says_points_with_the_sum() -> None:
    session = make_local_session(3, seed=4, bot_delay=0.0)
    out = io.StringIO()
    rc = await run_plain(session, inp=io.StringIO("moves\n1\n" * 800), out=out)
    assert rc == 0
    text = out.getvalue()
    end = text[text.index("=== Game over ==="):]
    view = session.view
    for s in range(view.n):
        total = str(view.score(s)).replace("-", "−")
        assert re.search(rf"{session.players[s]} +.*: total {total}\n", end), end


def test_selfplay_summary_shows_suits_as_symbols() -> None:
    from splitnet.games.split.bots import make_bot
    from tests.stand_in import play_local

    table = play_local(3, [make_bot("heuristic", i) for i in range(3)], 5)
    text = summary(table.record)
    lefts = re.findall(r"left: (.*)", text)
    assert lefts and any(x != "-" for x in lefts)
    assert all(re.fullmatch(r"-|((10|[2-9AJQK])[♣♦♥♠] ?)+", x.strip()) for x in lefts), lefts
