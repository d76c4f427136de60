"""Issue 12 at the full-screen table: scores a player can read, keys a player does not
regret, the hint, the bell, the end screen. Headless (pipe input, dummy output)."""

from __future__ import annotations

import contextlib
import random
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.keys import Keys
from prompt_toolkit.output import DummyOutput

from splitnet.games.split.bots import make_bot
from splitnet.games.split.bots.search import knowable_slots, suggest
from splitnet.games.split.describe import describe_event, describe_round_end
from splitnet.games.split.rules import Action, Discard, DrawPile, Game, Lay, TakeRow, Upgrade
from splitnet.games.split.rules.scoring import standing_now
from splitnet.ui.tui import TuiApp
from splitnet.ui.tui.advice import default_hinter
from splitnet.ui.tui.model import LABELS, Note
from splitnet.ui.tui.snapshot import screen_text
from tests.stand_in import LocalSession, make_local_session
from tests.test_tui import advance
from tests.test_tui_support import RIGHT, running_tui, send, wait_for


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
        now = standing_now(view)[s]
        shown = f"now {now}".replace("-", "−")
        assert shown in text, (shown, text)
    # round 1: every pad is still empty, yet the matches on the table count already
    assert all(view.score(s) == 0 for s in range(view.n))
    assert any(standing_now(view)[s] > 0 for s in range(view.n))
    assert "-" not in text.split("Discard row")[0]  # one minus sign: −
    assert "totals: if the round ended now" in table_text(session, 120, 30).splitlines()[0]


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
    from splitnet.games.split.rules import Match
    g.matches.append(Match(0, 1, [0, 2]))
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


# ---------------------------------------------------------------------- keys
def position(pred: Callable[[Game], bool], seed: int = 1, limit: int = 3000) -> LocalSession:
    """A local session stopped at a move of the human's seat where ``pred(view)`` holds
    (the human's earlier moves played by a bot)."""
    session = make_local_session(3, seed=seed, bot_delay=0.0)
    t = session.table
    me = make_bot("heuristic", 99)
    for _ in range(limit):
        ref = t.referee
        if ref.phase == "game_over":
            break
        if ref.phase == "round_over":
            t.start_round()
            continue
        if ref.actor == session.seat:
            if pred(session.view):
                return session
            t.play(me.choose(t.views[session.seat], session.seat))
        else:
            t.step()
    raise AssertionError("no such position")


@contextlib.contextmanager
def table(session: LocalSession, **kw: Any) -> Iterator[tuple[TuiApp, list[Action]]]:
    """The table over a session that is not running; moves go to a list."""
    with create_pipe_input() as inp, create_app_session(input=inp, output=DummyOutput()):
        tui = TuiApp(session, **kw)
        tui.model.sync()
        sent: list[Action] = []
        tui.submit = sent.append  # type: ignore[method-assign]
        yield tui, sent


def test_x_with_nothing_selected_asks_for_a_second_x() -> None:
    session = position(lambda v: v.phase == "play")
    with table(session) as (tui, sent):
        m = tui.model
        m.set_area("hand")
        slot = m.hand_cursor_slot()
        assert slot is not None
        tui.press("x")
        assert sent == [] and m.confirm is not None
        assert f"x again discards {m.card(slot)}" in "\n".join(screen_text(tui.app, 80, 24))
        tui.press("right")  # any other key keeps the card …
        assert m.confirm is None and sent == []
        slot = m.hand_cursor_slot()
        tui.press("x")
        tui.press("x")  # … the second x discards the card that was under the cursor
        assert sent == [Discard(session.seat, slot)]
        # an explicit selection discards at once
        sent.clear()
        other = m.hand_order()[-1]
        m.select_label(m.letter(other))
        tui.press("x")
        assert sent == [Discard(session.seat, other)]


def test_x_that_the_rules_refuse_is_explained_at_once() -> None:
    session = position(lambda v: v.phase == "draw")
    with table(session) as (tui, sent):
        tui.model.set_area("hand")
        tui.press("x")
        assert tui.model.confirm is None and sent == [Discard(session.seat,
                                                              tui.model.hand_cursor_slot() or 0)]


def test_u_with_nothing_selected_asks_for_a_second_u() -> None:
    def one_upgrade(v: Game) -> bool:
        return v.phase == "play" and len([m for m in v.legal_moves(0)
                                          if isinstance(m, Upgrade)]) == 1
    session = position(one_upgrade)
    with table(session) as (tui, sent):
        m = tui.model
        up = m.legal().upgrades[0]
        m.set_area("row")  # the cursor is not even on the hand: u alone used to upgrade
        tui.press("u")
        assert sent == [] and m.confirm is not None and m.confirm.action == up
        assert "u again puts" in m.confirm.text
        tui.press("escape")
        assert m.confirm is None
        tui.press("u")
        tui.press("u")
        assert sent == [up]
        sent.clear()
        m.select_label(m.letter(up.slot))  # selected: at once
        tui.press("u")
        assert sent == [up]


def test_hand_letters_stay_put_during_a_turn() -> None:
    def lay_and_more(v: Game) -> bool:
        return v.phase == "draw" and len(v.hands[0]) >= 6
    session = position(lay_and_more, seed=4)
    with table(session) as (tui, _):
        m = tui.model
        before = {s: m.letter(s) for s in m.hand_order()}
        assert [m.letter(s) for s in m.hand_order()] == sorted(before.values())
        t = session.table
        t.play(DrawPile(session.seat))  # a drawn card goes to the end, nothing moves
        drawn = next(s for s in m.hand_order() if s not in before)
        assert {s: m.letter(s) for s in before} == before
        assert m.letter(drawn) == LABELS[len(before)]
        assert "A" in before.values()
        # a card leaving the hand leaves a gap; the others keep their letters
        gone = m.hand_order()[0]
        session.view.hands[session.seat].remove(gone)
        assert all(m.letter(s) == before[s] for s in before if s != gone)
        m.select_label("A")
        assert m.selected == [] and m.note is not None and "no card has the letter A" in (
            m.note.text)
        session.view.hands[session.seat].append(gone)
        # the turn over (it is someone else's), the hand is sorted again
        v = session.view
        hand = v.hands[session.seat]
        assert hand
        v.turn = (session.seat + 1) % v.n
        v.phase = "draw"
        order = m.hand_order()
        assert [m.letter(s) for s in order] == list(LABELS[:len(order)])


def test_a_letter_names_one_card_for_the_whole_turn() -> None:
    """PLAYING.md: during your turn "a card you play leaves its letter unused — so a
    letter typed from what you saw a moment ago never hits another card". The next
    letter was counted from the highest letter still in the hand, so when the card with
    the last letter was played, the next card to come (the strong bonus's draw, R5.2)
    took that letter: J was 10♠, then 10♦, then 4♦ within one turn."""
    session = position(lambda v: v.phase == "draw" and len(v.hands[0]) >= 3, seed=4)
    with table(session) as (tui, _):
        m = tui.model
        view = session.view
        session.table.play(DrawPile(session.seat))
        assert m.letters_frozen()
        hand = view.hands[session.seat]
        named = {s: m.letter(s) for s in m.hand_order()}
        used = set(named.values())
        for _ in range(3):  # the card with the last letter goes, a new card comes
            last = max(m.hand_order(), key=m.letter)
            hand.remove(last)
            m.hand_order()  # the screen is drawn in between
            new = next(s for s in range(104) if s not in hand and s not in named)
            hand.append(new)
            named[new] = m.letter(new)
            assert named[new] not in used, f"{named[new]} named another card this turn"
            used.add(named[new])
            assert all(m.letter(s) == named[s] for s in hand)


async def test_escape_answers_at_once_and_clears_the_selection() -> None:
    session = make_local_session(3, seed=11, bot_delay=0.0)
    async with running_tui(session) as (tui, inp):
        assert tui.app.ttimeoutlen <= 0.05 and tui.app.timeoutlen <= 0.05
        escape = [b for b in tui.app.key_bindings.bindings  # type: ignore[union-attr]
                  if b.keys == (Keys.Escape,)]
        assert escape and all(b.eager() for b in escape)
        await wait_for(lambda: session.view.actor == session.seat and not tui.model.busy)
        await send(tui, inp, "A")
        assert tui.model.selected
        await send(tui, inp, "\x1b")
        assert await wait_for(lambda: not tui.model.selected)


@pytest.mark.parametrize(("first", "second"), [("\x03", "\x03"), ("q", "\x03"),
                                              ("\x03", "q")])
async def test_ctrl_c_and_q_agree_ask_first_then_leave(first: str, second: str) -> None:
    session = make_local_session(3, seed=11, bot_delay=0.0)
    async with running_tui(session) as (tui, inp):
        await wait_for(lambda: session.view.actor == session.seat)
        if first == "\x03":  # Ctrl-C asks from any screen (q closes the help first)
            await send(tui, inp, "?")
            assert tui.model.overlay == "help"
        await send(tui, inp, first)
        assert tui.app.is_running and tui.model.confirm_quit
        if first == "\x03":
            assert tui.model.overlay is None  # the question is on the table
        text = "\n".join(screen_text(tui.app, 80, 24))
        assert "q or Ctrl-C again quits" in text
        await send(tui, inp, "d")  # any other key stays
        assert not tui.model.confirm_quit
        inp.send_text(first + second)
        assert await wait_for(lambda: not tui.app.is_running)


# ---------------------------------------------------------------------- the hint
async def test_hint_key_shows_the_advisers_move_and_reason() -> None:
    asked: list[tuple[int, int]] = []

    def adviser(view: Game, seat: int) -> tuple[Action, str] | None:
        asked.append((seat, len(view.hands[seat])))
        return DrawPile(seat), "draw from the pile: the row holds nothing for you"

    session = make_local_session(3, seed=11, bot_delay=0.0)
    async with running_tui(session) as (tui, inp):
        tui.hint = adviser
        await send(tui, inp, "h")
        if session.view.actor != session.seat:
            assert tui.model.note is not None and "wait for your turn" in tui.model.note.text
        await wait_for(lambda: session.view.actor == session.seat and not tui.model.busy)
        await send(tui, inp, "h")
        assert await wait_for(lambda: tui.model.hint is not None)
        assert tui.model.hint is not None
        assert tui.model.hint.text == ("Hint: draw from the pile: the row holds nothing "
                                       "for you (key d)")
        assert asked == [(session.seat, 9)]
        assert session.view.phase == "draw"  # a hint plays nothing


async def test_a_hint_selects_what_it_names_and_stays_until_the_player_moves() -> None:
    """The hint named a card and its key, but selected nothing: x then acted on the card
    under the cursor ("x again discards …"), and the hint line was gone. Now the hint
    selects the card it names, stays on screen while the player looks around, and its
    key plays exactly that move."""
    session = make_local_session(3, seed=11, bot_delay=0.0)
    async with running_tui(session) as (tui, inp):
        m = tui.model
        me = session.seat
        assert await wait_for(lambda: session.view.actor == me and not m.busy)
        await send(tui, inp, "d")
        assert await wait_for(lambda: session.view.phase == "play" and not m.busy)
        hand = m.hand_order()
        under = m.hand_cursor_slot()
        slot = hand[3] if under in hand[:2] else hand[0]  # neither under nor next to it
        card = m.card(slot)
        tui.hint = lambda view, seat: (Discard(seat, slot), f"discard {card}: it scores least")
        await send(tui, inp, "h")
        assert await wait_for(lambda: m.hint is not None)
        assert m.selected == [slot]
        said = f"Hint: discard {card}: it scores least (key x)"
        assert said in "\n".join(screen_text(tui.app, 80, 24))
        await send(tui, inp, RIGHT)  # looking around keeps the hint
        assert said in "\n".join(screen_text(tui.app, 80, 24))
        assert m.hand_cursor_slot() != slot
        await send(tui, inp, "x")  # the key the hint names does what it says, at once
        assert await wait_for(lambda: slot not in session.view.hands[me])
        assert m.confirm is None and m.hint is None


def test_a_hints_key_plays_the_move_it_names() -> None:
    """Whatever the advice — a lay, an upgrade, a row card —, the key the hint names
    plays that move, not the card under the cursor."""
    def lay_and_upgrade(v: Game) -> bool:
        moves = v.legal_moves(0)
        return v.phase == "play" and any(isinstance(x, Lay) for x in moves) and any(
            isinstance(x, Upgrade) for x in moves)

    session = position(lay_and_upgrade)
    with table(session) as (tui, sent):
        m = tui.model
        moves = m.legal().moves
        lay = next(x for x in moves if isinstance(x, Lay))
        up = next(x for x in moves if isinstance(x, Upgrade))
        for action, key in ((lay, "l"), (up, "u"), (Discard(session.seat, lay.a), "x")):
            m.set_area("row")  # the cursor elsewhere
            m.take_advice(action, "because")
            assert m.hint is not None and m.hint.text.endswith(f"(key {key})")
            tui.press(key)
            assert sent[-1] == action and m.confirm is None, (action, m.confirm)
    session = position(lambda v: v.phase == "draw" and len(v.legal_moves(0)) > 2)
    with table(session) as (tui, sent):
        m = tui.model
        take = next(x for x in m.legal().moves if isinstance(x, TakeRow))
        m.row_cursor = 0 if take.index else len(m.view.row) - 1
        m.take_advice(take, "because")
        tui.press("t")
        assert sent == [take]


def test_default_hint_is_the_strong_bots_move_with_a_reason() -> None:
    session = position(lambda v: v.phase == "play" and any(
        isinstance(m, Lay) for m in v.legal_moves(0)))
    view = session.view
    hinter = default_hinter(session.players, samples=4)
    advice = hinter(view.clone(), session.seat)
    assert advice is not None
    action, reason = advice
    assert action in view.legal_moves(session.seat)
    assert (action, reason) == suggest(view.clone(), session.seat, names=session.players,
                                       samples=4)
    assert reason and "\n" not in reason
    # the adviser reads only this seat's view (R8): the faces it cannot know — the others'
    # hands, the pile —, filled in with the unseen cards in a random order, change nothing
    known = knowable_slots(view, session.seat)
    hidden = [s for s in range(104) if s not in known]
    assert hidden and all(view.faces[s] is None for s in hidden)
    seen = {view.faces[s] for s in known}
    rng = random.Random(3)
    for _ in range(2):
        scrambled = view.clone()
        pool = [c for c in range(104) if c not in seen]
        rng.shuffle(pool)
        for slot, face in zip(hidden, pool, strict=True):
            scrambled.faces[slot] = face
        assert hinter(scrambled, session.seat) == advice


# ---------------------------------------------------------------------- the bell
class Recorder(DummyOutput):
    def __init__(self) -> None:
        self.calls: list[str] = []

    def bell(self) -> None:
        self.calls.append("bell")

    def set_title(self, title: str) -> None:
        self.calls.append(f"title {title}")


@pytest.mark.parametrize("bell", [True, False])
def test_bell_and_title_when_our_turn_begins(bell: bool) -> None:
    session = make_local_session(3, seed=3, bot_delay=0.0)
    session.table.start_round()  # Ana (seat 1) moves first
    out = Recorder()
    with create_pipe_input() as inp, create_app_session(input=inp, output=out):
        tui = TuiApp(session, bell=bell, title="splitnet")
        t = session.table
        while t.referee.actor != session.seat:
            t.step()  # the observers tell the table after each move
        rung = out.calls.count("bell")
        t.play(make_bot("heuristic", 1).choose(session.view, session.seat))
        while t.referee.actor == session.seat:
            t.play(make_bot("heuristic", 1).choose(session.view, session.seat))
        while t.referee.actor != session.seat:
            t.step()
        assert tui is not None
    if bell:
        assert rung == 1 and out.calls.count("bell") == 2
        assert "title splitnet — your turn" in out.calls and "title splitnet" in out.calls
    else:
        assert out.calls == []


# ---------------------------------------------------------------------- the weak bonus
def weak_bonus(v: Game) -> bool:
    return v.phase == "bonus" and v.pending_bonus == "weak"


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_weak_bonus_swap_is_a_short_guided_choice_in_80_columns(seed: int) -> None:
    session = position(weak_bonus, seed=seed, limit=20_000)
    with table(session) as (tui, sent):
        m = tui.model
        swaps = set(m.legal().swaps)
        assert swaps
        lines = screen_text(tui.app, 80, 24)
        ask = lines[-2]
        assert ask.startswith((" Weak bonus (R5.3)", " Give which")) and "…" not in ask, ask
        assert "s skips" in ask
        assert "1" in lines[-1] and "choose" in lines[-1]
        step, ids = m.swap_choices()
        keys = 0
        while not sent:
            assert keys < 2
            tui.press("1")
            keys += 1
            if not sent:  # a second step: which of ours to give
                assert m.swap_choices()[0] == "give"
                ask = screen_text(tui.app, 80, 24)[-2]
                assert ask.startswith((" Give which of yours", " Type the number")), ask
                assert "…" not in ask
                tui.press("escape")  # back one step, and on again
                assert m.swap_take is None
                tui.press("1")
        assert len(sent) == 1 and sent[0] in swaps
        assert sent[0].take == ids[0] or step == "give"


def test_no_swap_on_offer_without_a_weak_bonus() -> None:
    session = position(lambda v: v.phase == "play")
    with table(session) as (tui, _):
        m = tui.model
        assert not m.swapping()
        assert "choose" not in screen_text(tui.app, 80, 24)[-1]


# ---------------------------------------------------------------------- the end and a rematch
def finished_game(rematch: bool = True, rejoin: str | None = None) -> tuple[TuiApp, Any]:
    session = make_local_session(3, seed=2, bot_delay=0.0)
    tui = TuiApp(session, rematch=rematch, rejoin=rejoin, next_dealer=1)
    advance(session, 100_000)  # the table follows every move (it is subscribed)
    session.finished = True
    tui._changed()
    return tui, session


def test_end_screen_shows_winner_every_pad_and_the_story() -> None:
    with create_pipe_input() as inp, create_app_session(input=inp, output=DummyOutput()):
        tui, session = finished_game()
        view = session.view
        assert view.phase == "game_over" and tui.model.overlay == "final"
        text = "\n".join("".join(f[1] for f in ln) for ln in tui._overlay_lines(80))
    win = view.winners()
    assert f"GAME OVER — {tui.model.name(win[0])}" in text
    for r in (1, 2, 3):
        assert f"Round {r}: " in text and f"round {r}" in text
    assert text.count("Perfect ") == view.n and text.count("Negative ") == view.n
    for s in range(view.n):
        assert f"{tui.model.name(s)} — " in text  # every pad, in points
        assert f"total {view.score(s)}".replace("-", "−") in text
    assert "n new game with the same players and seats (Ana deals first)" in text
    assert all(len(ln) <= 80 for ln in text.splitlines())


def test_the_end_screen_says_you_deal_when_your_seat_deals_next() -> None:
    """A joiner whose seat deals the rematch's first round reads "you deal first", never
    "You deals first"."""
    with create_pipe_input() as inp, create_app_session(input=inp, output=DummyOutput()):
        tui, _ = finished_game()
        tui.next_dealer = tui.model.seat
        text = " ".join("".join(f[1] for f in ln).strip() for ln in tui._overlay_lines(80))
    assert "n new game with the same players and seats (you deal first)" in text
    assert "deals first" not in text


def test_n_at_the_end_asks_for_a_rematch_only_when_offered() -> None:
    with create_pipe_input() as inp, create_app_session(input=inp, output=DummyOutput()):
        tui, _ = finished_game(rematch=False)
        tui.press("n")
        assert tui.outcome == "quit"
        assert "new game" not in "\n".join(screen_text(tui.app, 80, 24))
        tui, _ = finished_game(rematch=True)
        tui.close_overlay()
        assert "n plays again" in "\n".join(screen_text(tui.app, 100, 24))
        tui.press("n")
        assert tui.outcome == "rematch"


def test_a_rematch_keeps_the_seats_and_passes_the_first_deal_left() -> None:
    """The next game of a local table (the end screen's n) keeps every player in their
    seat — and so their number, on screen and as a key (a perfect bonus, R5.1) — and
    its first round is dealt by the previous first dealer's left neighbour (R3.2)."""
    from splitnet.games.split.bots import make_bot
    from splitnet.games.split.front.selfplay import human_session, rematch_dealer, rematch_session
    from splitnet.games.split.rules import Settings

    names = ["heuristic"] * 3
    first = human_session("You", names, 5, Settings(rounds=1), shuffle_proofs=False)
    assert first.players == ["You", "Ana", "Bo", "Cy"] and first.seat == 0
    assert first.view.dealer == 0 and rematch_dealer(first) == 1
    games = [first]
    for k in (1, 2):
        prev = games[-1]
        prev.game.run_bots([make_bot("heuristic", 9), *prev.bots[1:]])
        prev.game.close()
        games.append(rematch_session(prev, 5))
        g = games[-1]
        assert g.players == first.players and g.seat == 0
        assert g.view.dealer == k and rematch_dealer(g) == k + 1  # the deal passes left
        assert g.game.log.header.players == first.game.log.header.players  # same keys
        assert g.game.log.game_id != prev.game.log.game_id  # a new game
        text = table_text(g)
        assert all(f"{k} {p}" in text for p, k in (("Ana", 2), ("Bo", 3), ("Cy", 4))), text
    games[-1].game.close()


def test_a_players_number_key_is_the_number_the_table_shows() -> None:
    """The keys that name a player (a perfect bonus, R5.1) are the numbers the table
    shows for the seats (the session's ``numbers``), whatever they are."""
    from splitnet.games.split.rules import BonusMark

    session = position(lambda v: v.phase == "bonus" and v.pending_bonus == "perfect")
    session.numbers = [4, 1, 2, 3]  # the seats' numbers in some game of a run
    with table(session) as (tui, sent):
        m = tui.model
        target = max(m.legal().marks)
        who = f"{session.numbers[target]} {session.players[target]}"
        assert who in m.instruction()
        assert ("1-3", "name player") in m.key_hints()
        tui.press(str(session.numbers[target]))
        assert sent == [BonusMark(session.seat, target)]
        tui.press("7")  # nobody's number
        assert len(sent) == 1 and m.note is not None and "1-3" in m.note.text


# ---------------------------------------------------------------------- LAN: bell, way back
def test_lan_leaving_says_the_same_command_gets_back_in(
        capsys: pytest.CaptureFixture[str]) -> None:
    from types import SimpleNamespace

    from splitnet.app import lan_common as run

    assert run._again_command(["join", "10.0.0.5:7420", "--new", "--name", "Al Bo"]) == (
        "splitnet join 10.0.0.5:7420 --name 'Al Bo'")
    def unfinished(verdict: object) -> SimpleNamespace:
        return SimpleNamespace(core=SimpleNamespace(finished=False, verdict=verdict,
                                                    record=None))

    left = SimpleNamespace(table=unfinished(None), verdict=None)
    assert run._print_result(left, rejoin="splitnet join 10.0.0.5:7420") == 1  # type: ignore[arg-type]
    err = capsys.readouterr().err
    assert "You left before the end" in err and "\n  splitnet join 10.0.0.5:7420\n" in err
    stopped = SimpleNamespace(table=unfinished("x"), verdict="game stopped: timeout")
    assert run._print_result(stopped, rejoin="splitnet host") == 1  # type: ignore[arg-type]
    assert "game stopped: timeout" in capsys.readouterr().err


def tui_kwargs(monkeypatch: pytest.MonkeyPatch, outcome: str = "quit") -> dict[str, Any]:
    """What ``join``/``host``'s glue (``_front_end``) passes the full-screen table: filled
    in as it runs it (the table itself is stood in for, leaving with ``outcome``)."""
    import splitnet.ui.tui as tui_pkg
    from splitnet.app import lan_table

    seen: dict[str, Any] = {}

    async def fake_run_tui(session: Any, **kw: Any) -> str:
        seen.update(kw)
        return outcome

    monkeypatch.setattr(tui_pkg, "run_tui", fake_run_tui)
    monkeypatch.setattr(lan_table, "_print_result", lambda session, rejoin=None: 0)
    return seen


async def test_lan_table_rings_unless_told_not_to(monkeypatch: pytest.MonkeyPatch) -> None:
    import argparse
    from types import SimpleNamespace

    from splitnet.app import lan_common as run
    from splitnet.app.lan_table import _front_end

    seen = tui_kwargs(monkeypatch)
    monkeypatch.delenv("SPLITNET_NO_BELL", raising=False)
    monkeypatch.setattr("sys.argv", ["splitnet", "join", "h:1", "--new"])
    parser = argparse.ArgumentParser()
    from splitnet.app.lan_args import add_parsers

    add_parsers(parser.add_subparsers())
    args = parser.parse_args(["join", "h:1"])
    assert run._bell_wanted(args)
    from splitnet.games import FIRST

    session = SimpleNamespace(node=None, table=SimpleNamespace(spec=FIRST))  # (Split's table)
    await _front_end(session, False, Path("."), run._bell_wanted(args))  # type: ignore[arg-type]
    assert seen == {"bell": True, "rejoin": "splitnet join h:1", "another": None}
    assert not run._bell_wanted(parser.parse_args(["host", "--no-bell"]))
    monkeypatch.setenv("SPLITNET_NO_BELL", "1")
    assert not run._bell_wanted(args)


def test_a_long_hint_takes_two_lines_instead_of_being_cut() -> None:
    session = position(lambda v: v.phase == "play")
    with table(session) as (tui, _):
        reason = ("a perfect match: another player marks a negative box, and it becomes "
                  "yours (+25 if the round ended now)")
        tui.model.note = Note(f"Hint: put 7♥ on Bo's match #3 (u) — {reason}", "info")
        last = screen_text(tui.app, 80, 24)[-2:]
        assert "…" not in "".join(last)
        assert " ".join(x.strip() for x in last).endswith(reason)
        tui.model.note = None
        assert "quit" in screen_text(tui.app, 80, 24)[-1]  # the keys are back


def test_l_on_the_card_under_the_cursor_asks_for_a_second_l() -> None:
    def one_partner(v: Game) -> bool:
        lays = [m for m in v.legal_moves(0) if isinstance(m, Lay)]
        return v.phase == "play" and any(
            sum(1 for x in lays if s in (x.a, x.b)) == 1 for x in lays for s in (x.a, x.b))
    session = position(one_partner)
    with table(session) as (tui, sent):
        m = tui.model
        lays = m.legal().lays
        slot = next(s for x in lays for s in (x.a, x.b)
                    if sum(1 for y in lays if s in (y.a, y.b)) == 1)
        m.set_area("hand")
        m.hand_cursor = m.hand_order().index(slot)
        tui.press("l")
        assert sent == [] and m.confirm is not None and m.confirm.text.startswith("l again lays")
        tui.press("l")
        assert len(sent) == 1 and slot in (sent[0].a, sent[0].b)  # type: ignore[union-attr]


def test_default_hint_asks_the_strong_bots_suggest_for_this_seat_only(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from splitnet.ui.tui import advice

    calls: list[tuple[int, Any, Any]] = []

    def fake(game: Game, seat: int, *, names: Any = None,
             samples: Any = None) -> tuple[Action, str]:
        calls.append((seat, names, samples))
        if game.actor != seat:
            raise ValueError("no move to make now")
        return DrawPile(seat), "draw from the pile: simulations agree"

    monkeypatch.setattr(advice, "suggest", fake)
    session = position(lambda v: v.phase == "draw")
    hinter = default_hinter(session.players)
    assert hinter(session.view, session.seat) == (DrawPile(session.seat),
                                                  "draw from the pile: simulations agree")
    assert hinter(session.view, (session.seat + 1) % session.view.n) is None
    assert calls[0] == (session.seat, session.players, None)


def test_rounds_looked_back_at_after_the_game_lead_on_to_the_end_screen() -> None:
    with create_pipe_input() as inp, create_app_session(input=inp, output=DummyOutput()):
        tui, _ = finished_game()
        for _ in range(5):
            tui.other_round(-1)
        assert tui.model.overlay == "summary" and tui.model.summary_index == 0
        text = "\n".join("".join(f[1] for f in ln) for ln in tui._overlay_lines(80))
        assert "later rounds and the end screen" in text and "under way" not in text
        for _ in range(3):
            tui.other_round(1)
        assert tui.model.overlay == "final"


def test_a_lan_end_screen_says_how_to_play_another_game() -> None:
    with create_pipe_input() as inp, create_app_session(input=inp, output=DummyOutput()):
        tui, _ = finished_game(rematch=False, rejoin="splitnet join 10.0.0.5:7420")
        text = " ".join("".join(f[1] for f in ln).strip() for ln in tui._overlay_lines(80))
    assert "another game: quit and run `splitnet join 10.0.0.5:7420` again" in text
    assert "n new game" not in text


@pytest.mark.parametrize("invited", [False, True])
def test_an_internet_guests_end_screen_does_not_send_it_back_to_its_spent_invitation(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, invited: bool) -> None:
    """``join``'s glue (``_front_end``) for a guest joined through an invitation: its end
    screen says to ask the host for a new one — running the spent invitation again only
    resumes the finished game. Joined on the LAN, the same command joins the next game."""
    import asyncio

    from splitnet.app import lan_table as glue
    from splitnet.net.config import NetSettings
    from splitnet.net.peer import PeerNode
    from splitnet.session.identity import Identity

    node = PeerNode(Identity.generate(), tmp_path, "Jo", "wormhole" if invited else
                    "10.0.0.5", 0 if invited else 7420, NetSettings())
    from types import SimpleNamespace

    from splitnet.games import FIRST

    session = type("S", (), {"node": node, "table": SimpleNamespace(spec=FIRST)})()
    seen = tui_kwargs(monkeypatch)
    assert asyncio.run(glue._front_end(session, False, tmp_path)) == (0, False)
    with create_pipe_input() as inp, create_app_session(input=inp, output=DummyOutput()):
        tui, _ = finished_game(rematch=False, rejoin=seen["rejoin"])
        tui.another = seen["another"]
        text = " ".join("".join(f[1] for f in ln).strip() for ln in tui._overlay_lines(80))
    text = " ".join(text.split())
    if invited:
        assert "another game: ask the host for a new invitation (this one is spent)" in text
        assert "quit and run" not in text
    else:
        assert seen["another"] is None and "another game: quit and run `" in text


def test_an_internet_guests_end_screen_offers_the_rematch_and_says_what_another_game_needs(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An internet guest's end screen when the rematch may follow (NETWORK.md §13): n
    agrees to it, through the same wormholes; any other game needs a new invitation,
    the one used being spent — not "ask for a new invitation" as the only way on."""
    import asyncio
    from types import SimpleNamespace

    from splitnet.app import lan_table as glue
    from splitnet.net.config import NetSettings
    from splitnet.net.peer import PeerNode
    from splitnet.session.identity import Identity

    node = PeerNode(Identity.generate(), tmp_path, "Jo", "wormhole", 0, NetSettings())
    from splitnet.games import FIRST

    session = SimpleNamespace(node=node, table=SimpleNamespace(first_dealer=0, n=3, spec=FIRST))
    seen = tui_kwargs(monkeypatch)
    assert asyncio.run(glue._front_end(session, False, tmp_path, rematch=True)) == (0, False)  # type: ignore[arg-type]
    assert seen["rematch"] and seen["rematch_as"] == "joiner"
    with create_pipe_input() as inp, create_app_session(input=inp, output=DummyOutput()):
        tui, _ = finished_game(rematch=True, rejoin=seen["rejoin"])
        tui.rematch_as = "joiner"
        tui.another = seen["another"]
        text = " ".join("".join(f[1] for f in ln).strip() for ln in tui._overlay_lines(80))
    text = " ".join(text.split())
    assert "n agree to a rematch with the same seats if the host offers one" in text, text
    assert ("another game: ask the host for a new invitation (the rematch needs none; this "
            "one is spent)") in text, text


@pytest.mark.parametrize(("role", "words"), [
    ("host", "n offer a rematch to the same seats (Ana deals first; everyone must agree)"),
    ("joiner", "n agree to a rematch with the same seats if the host offers one (Ana deals "
               "first)"),
])
def test_a_lan_end_screen_words_n_for_who_presses_it(role: str, words: str) -> None:
    with create_pipe_input() as inp, create_app_session(input=inp, output=DummyOutput()):
        tui, _ = finished_game()
        tui.rematch_as = role
        text = " ".join("".join(f[1] for f in ln).strip() for ln in tui._overlay_lines(200))
    assert words in text and "n new game" not in text
