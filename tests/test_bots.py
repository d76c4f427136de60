"""Bots: the standing they aim at (R5.1, R6.3), the levels, the strong level's search and
its respect of what its seat may know (R8), the hint API."""

from __future__ import annotations

import asyncio
import copy
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from splitnet.games.split.bots import (
    LEVELS,
    EasyBot,
    HeuristicBot,
    bot_label,
    bot_player_name,
    choose_off_loop,
    make_bot,
    parse_level,
)
from splitnet.games.split.bots.search import (
    SearchConfig,
    StrongBot,
    describe_move,
    determinize,
    knowable_slots,
    suggest,
)
from splitnet.games.split.rules import (
    BonusMark,
    DrawPile,
    Game,
    Lay,
    Settings,
    leaders_now,
    marks_now,
    pad_points,
    standing_now,
)
from splitnet.localplay import LocalTable, SeededShuffle
from tests.rules_helpers import game_with, slot_of

# ---------------------------------------------------------------- standing_now


def test_R6_3_standing_now_counts_this_rounds_marks_matches_and_hands() -> None:
    g = game_with(3, {1: ["7H", "7H", "2C", "3D", "4S", "5C", "6D", "8S", "9C"]})
    assert g.turn == 1
    assert standing_now(g) == [-54, -54, -54]  # nine cards in every hand (R6.3)
    g.apply(DrawPile(1))
    g.apply(Lay(1, slot_of(g, 1, "7H"), slot_of(g, 1, "7H", 1)))  # perfect (R2.2)
    g.apply(BonusMark(1, 2))  # R5.1: seat 2 marks a negative box now
    m = marks_now(g, 1)
    assert m == {"perfect": 1, "strong": 0, "weak": 0, "negative": 8}
    assert marks_now(g, 2)["negative"] == 10
    assert all(g.score(s) == 0 for s in range(3))  # the pads: nothing scored yet
    pad = g.settings.pad
    assert standing_now(g) == [-pad.value("negative", 9), 6 - pad.value("negative", 8),
                               -pad.value("negative", 10)]
    assert leaders_now(g) == [1] and leaders_now(g, [0, 2]) == [0]


@pytest.mark.parametrize("n", [2, 4, 6])
def test_R7_standing_now_is_the_pad_of_marks_now_and_the_pads_between_rounds(n: int) -> None:
    g = Game(n)
    bots = [HeuristicBot(s) for s in range(n)]
    rng = random.Random(3 + n)
    pad = g.settings.pad
    for _ in range(3):
        faces = list(range(104))
        rng.shuffle(faces)
        g.start_round(faces)
        while g.phase not in ("round_over", "game_over"):
            seat = g.actor
            assert seat is not None
            assert standing_now(g) == [pad_points(pad, marks_now(g, s)) for s in range(n)]
            g.apply(bots[seat].choose(g, seat))
        assert standing_now(g) == [g.score(s) for s in range(n)]


def test_R5_1_the_bonus_mark_goes_to_the_leader_as_if_the_round_ended_now() -> None:
    # Seat 2 has two perfect matches on the table this round; every pad is still empty
    # (game.score would call it a four-way tie and the old bot chose seat 0).
    g = game_with(4, {1: ["7H", "7H", "2C", "3D", "4S", "5C", "6D", "8S", "9C"]})
    g.matches = []
    from splitnet.games.split.rules import Match

    free = [s for s in range(g.pile_next, 104)]
    for i, (a, b) in enumerate(((free[0], free[1]), (free[2], free[3]))):
        g.faces[a], g.faces[b] = 8 * (i + 1), 8 * (i + 1)  # two identical halves
        g.matches.append(Match(i, 2, [a, b], [], "perfect"))
    assert leaders_now(g, [0, 2, 3]) == [2]
    assert HeuristicBot(0).perfect_target(g, 1) == 2


def test_R5_1_ties_are_broken_by_the_bots_own_randomness_not_by_seat() -> None:
    g = game_with(4, {1: ["7H", "7H", "2C", "3D", "4S", "5C", "6D", "8S", "9C"]})
    assert len(set(standing_now(g))) == 1
    targets = {HeuristicBot(seed).perfect_target(g, 1) for seed in range(40)}
    assert targets == {0, 2, 3}


def test_round_one_targets_are_spread_over_the_seats() -> None:
    from splitnet.bench.split import round1_targets

    hits = round1_targets("normal", 12, seed=5)
    assert sum(hits) > 0 and max(hits) < 0.6 * sum(hits)
    assert all(h > 0 for h in hits)


# ---------------------------------------------------------------- levels and names


def test_levels_names_and_aliases() -> None:
    assert LEVELS == ("easy", "normal", "strong")
    assert parse_level("Strong") == "strong" and parse_level("heuristic") == "normal"
    assert parse_level("random") == "random"
    with pytest.raises(ValueError, match="unknown bot level 'genius'; choose from easy"):
        parse_level("genius")
    assert [bot_player_name(i) for i in range(3)] == ["Ana", "Bo", "Cy"]
    assert bot_player_name(0, taken=["Ana"]) == "Bo"
    assert bot_player_name(12) == "Ana2"
    assert bot_label("Ana", "heuristic") == "Ana (normal)"
    assert isinstance(make_bot("easy", 1), EasyBot)
    assert isinstance(make_bot("normal", 1), HeuristicBot)
    strong = make_bot("strong", 1, budget=0.05)
    assert isinstance(strong, StrongBot) and strong.config.budget == 0.05


def _table_game(levels: list[str], seed: int, samples: int = 2) -> LocalTable:
    agents: list[Any] = [make_bot(lv, seed * 8 + s, samples=samples)
                         for s, lv in enumerate(levels)]
    names = [bot_player_name(s) for s in range(len(levels))]
    table = LocalTable(names, agents, SeededShuffle(seed), Settings())
    table.run()  # every move goes through each seat's checked apply on its own view
    return table


@pytest.mark.parametrize("seed", [1, 2])
def test_every_level_plays_whole_games_on_its_own_view(seed: int) -> None:
    table = _table_game(["easy", "strong", "normal", "random"], seed)
    assert table.referee.phase == "game_over"
    assert table.players[1] == "Bo"


def test_easy_is_beatable_but_not_random() -> None:
    from splitnet.bench.split import seat_rotated_games

    vs_normal, n = seat_rotated_games(lambda s: EasyBot(s), lambda s: HeuristicBot(s), 40)
    vs_random, m = seat_rotated_games(lambda s: EasyBot(s), lambda s: make_bot("random", s),
                                      20)
    assert vs_normal / n < 0.25  # loses to the normal level (parity is 25%)
    assert vs_random / m > 0.6  # and plays far better than chance


# ---------------------------------------------------------------- the strong level


def _decisions(seed: int, limit: int) -> list[tuple[Game, int, list[int]]]:
    """(the strong seat's view, its seat, the true deck) at its first decisions."""
    bots: list[Any] = [make_bot("normal", seed * 8 + s) for s in range(4)]
    source = SeededShuffle(seed)
    table = LocalTable([f"p{s}" for s in range(4)], bots, source, Settings())
    out: list[tuple[Game, int, list[int]]] = []
    for _ in range(3):
        table.start_round()
        while table.referee.phase not in ("round_over", "game_over") and len(out) < limit:
            seat = table.referee.actor
            assert seat is not None
            if seat == 1 and len(table.views[1].legal_moves(1)) > 1:
                out.append((table.views[1].clone(), 1, list(source.faces)))
            table.step()
        if len(out) >= limit:
            break
        while table.referee.phase not in ("round_over", "game_over"):
            table.step()
    return out


def _scrambled(view: Game, seat: int, rng: random.Random, truth: list[int] | None) -> Game:
    """The view with every face the seat cannot know filled in: with the true deck, or
    with the unseen cards in a random order."""
    g = view.clone()
    hidden = [s for s in range(104) if g.faces[s] is None]
    if truth is not None:
        for s in hidden:
            g.faces[s] = truth[s]
        return g
    seen = {f for f in g.faces if f is not None}
    pool = [c for c in range(104) if c not in seen]
    rng.shuffle(pool)
    for s, c in zip(hidden, pool, strict=True):
        g.faces[s] = c
    return g


def test_R8_the_strong_bot_knows_exactly_what_its_view_holds() -> None:
    for view, seat, _truth in _decisions(4, 40):
        known = knowable_slots(view, seat)
        assert known == {s for s in range(104) if view.faces[s] is not None}
        g = determinize(view, seat, random.Random(1))
        assert sorted(f for f in g.faces if f is not None) == list(range(104))
        assert all(g.faces[s] == view.faces[s] for s in known)


def test_R8_scrambled_hidden_cards_do_not_change_the_strong_bots_choice() -> None:
    """The strong bot is given its view, then the same view with every face it cannot
    know filled in — with the real deck, or scrambled twice — and must choose the same
    move each time: it reads nothing its seat does not have."""
    rng = random.Random(9)
    checked = 0
    for view, seat, truth in _decisions(6, 14):
        bot = StrongBot(77, SearchConfig(samples=6))
        choices = []
        for variant in (None, truth, "scramble", "scramble"):
            b = copy.deepcopy(bot)
            g = view if variant is None else _scrambled(
                view, seat, rng, truth if isinstance(variant, list) else None)
            choices.append((b.choose(g, seat), b.last.values if b.last else None))
        assert all(c == choices[0] for c in choices), choices
        checked += 1
    assert checked == 14


def test_strong_search_is_deterministic_by_sample_count_and_anchored() -> None:
    view, seat, _ = _decisions(3, 5)[-1]
    a = StrongBot(5, SearchConfig(samples=8)).decide(view, seat)
    b = StrongBot(5, SearchConfig(samples=8)).decide(view, seat)
    assert a.action == b.action and a.values == b.values and a.samples == 8
    assert a.values[0][0] == a.anchor == HeuristicBot(5).choose(view, seat)
    # A challenger needs a clear margin: with an impossible one the anchor always stays.
    c = StrongBot(5, SearchConfig(samples=8, margin=2.0)).decide(view, seat)
    assert c.action == c.anchor


def test_strong_bot_thinks_within_its_time_budget_mode() -> None:
    view, seat, _ = _decisions(2, 3)[-1]
    bot = StrongBot(1, SearchConfig(budget=0.02, min_samples=2))
    bot.choose(view, seat)
    assert bot.last is not None and bot.last.samples >= 2 and bot.searched == 1


def test_the_strong_bot_stops_sampling_once_the_choice_is_clear() -> None:
    """At the default setting a decision samples until the sequential test finds the
    choice that ``max_samples`` samples would make clear — between ``min_samples`` and
    ``max_samples``, often fewer than the most. With a clock that stands still no budget
    binds, and the choices and sample counts depend on the seeds alone."""
    cfg = SearchConfig()
    assert cfg.samples is None and cfg.max_samples is not None
    runs = []
    for _ in range(2):
        bot = StrongBot(5, SearchConfig(), clock=lambda: 0.0)
        runs.append([(d.action, d.samples, d.values) for d in
                     (bot.decide(view, seat) for view, seat, _ in _decisions(3, 16))])
        assert bot.cut == 0
    assert runs[0] == runs[1]
    counts = [k for _, k, _ in runs[0] if k]
    assert counts and all(cfg.min_samples <= k <= cfg.max_samples for k in counts)
    assert min(counts) < cfg.max_samples


def test_a_strong_bots_whole_turn_keeps_within_its_turn_budget(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Time here is virtual: every rollout costs 5 ms of it. Over a whole game no turn
    of the strong bot (R4: its draw, plays, bonuses and discard together) thinks longer
    than ``turn_budget``; the long turns are cut short, and a decision the budget left
    with fewer than ``min_samples`` samples plays the normal bot's move."""
    from splitnet.bench.split import seat_rotated_games
    from splitnet.games.split.bots import search

    now = [0.0]
    real = search.rollout

    def costly(*args: Any) -> list[list[int]]:
        now[0] += 0.005
        return real(*args)

    monkeypatch.setattr(search, "rollout", costly)
    cfg = SearchConfig(turn_budget=0.25)
    bots: list[StrongBot] = []
    seen: list[Any] = []

    def strong(s: int) -> StrongBot:
        bot = StrongBot(s, cfg, clock=lambda: now[0])
        decide = bot.decide

        def watched(game: Game, seat: int) -> Any:
            seen.append(decide(game, seat))
            return seen[-1]

        monkeypatch.setattr(bot, "decide", watched)
        bots.append(bot)
        return bot

    seat_rotated_games(strong, lambda s: make_bot("normal", s), 1, seed=3)
    [bot] = bots
    assert len(bot.turns) > 5 and max(w for w, _ in bot.turns) <= cfg.turn_budget + 1e-9
    assert bot.cut > 0 and bot.unsampled > 0
    short = [d for d in seen if 0 < d.samples < cfg.min_samples]
    assert short and all(d.action == d.anchor for d in short), len(short)
    assert any(d.samples >= cfg.min_samples for d in seen)


def test_think_help_states_the_strong_bots_budgets() -> None:
    from splitnet.cmdline import THINK_HELP

    cfg = SearchConfig()
    assert f"default {cfg.budget:g})" in THINK_HELP
    assert f"a whole turn thinks at most {cfg.turn_budget:g} s" in THINK_HELP


def test_suggest_gives_a_legal_move_and_its_reason_in_words() -> None:
    for view, seat, _ in _decisions(8, 6):
        action, reason = suggest(view, seat, samples=4, names=["A", "B", "C", "D"])
        assert action in view.legal_moves(seat)
        assert reason and "\n" not in reason
        assert reason.startswith(describe_move(view, action, ["A", "B", "C", "D"]) + ": ")
        assert "deals tried" in reason or view.phase == "late_lays"
    view, seat, _ = _decisions(8, 1)[0]
    with pytest.raises(ValueError, match="has no move to make now"):
        suggest(view, (seat + 1) % 4, samples=1)


def test_choose_off_loop_thinks_on_a_copy_and_gives_the_same_move() -> None:
    view, seat, _ = _decisions(5, 2)[-1]
    before = copy.deepcopy(view.__dict__)
    direct = StrongBot(3, SearchConfig(samples=3)).choose(view, seat)
    off = asyncio.run(choose_off_loop(StrongBot(3, SearchConfig(samples=3)), view, seat))
    assert off == direct and view.__dict__ == before


def test_selfplay_with_strong_bots_same_arguments_same_record(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from splitnet.games.split.front.selfplay import run_selfplay

    recs = []
    for name in ("a.json", "b.json"):
        path = tmp_path / name
        assert run_selfplay(3, ["strong", "normal", "easy"], 2, Settings(), local_shuffle=True,
                            record=str(path), samples=2) == 0
        recs.append(path.read_bytes())
    assert recs[0] == recs[1]
    players = [p["name"] for p in json.loads(recs[0])["players"]]
    assert players == ["Ana", "Bo", "Cy"]
    assert "Bots: Ana (strong), Bo (normal), Cy (easy)" in capsys.readouterr().out


@pytest.mark.slow
async def test_lan_levels_host_bots_and_names(tmp_path: Path) -> None:
    """``host --play-as-bot strong --think S --bots 1 --bot-level easy`` on loopback: the
    levels and the naming scheme of the LAN commands, played to the end."""
    from tests.test_net_game import TIMEOUT, Proc

    host = Proc(tmp_path, "host", "host", "--port", "0", "--bind", "127.0.0.1",
                "--play-as-bot", "strong", "--think", "0.02", "--name", "Ana",
                "--seats", "2", "--bots", "1", "--bot-level", "easy", "--no-announce",
                "--no-proofs", "--data-dir", str(tmp_path / "p0"))
    try:
        assert await asyncio.to_thread(host.wait, TIMEOUT) == 0, host.stderr()[-2000:]
        out = host.stdout()
        assert "Bots here: Bo (easy)" in out  # the host is Ana: its bots skip the name
        assert "Bo: verification " in out and "Winner:" in out
    finally:
        if host.p.poll() is None:
            host.p.kill()
    bad = subprocess.run([sys.executable, "-m", "splitnet.cli", "bot", "127.0.0.1:1",
                          "--level", "genius"], capture_output=True, text=True, timeout=60,
                         check=False)
    assert bad.returncode == 2 and "unknown bot level 'genius'" in bad.stderr


def test_a_lan_bot_keeps_its_name_from_game_to_game(tmp_path: Path) -> None:
    """``splitnet bot`` without ``--name`` took a friendly name at random on every run,
    so a host that had played with the same bot (the same data dir, so the same key)
    warned "known as Gus, now calls itself Dee". Its name now follows from its key: the
    same on every run."""
    from tests.test_bad_arguments import CODE, FAST
    from tests.test_net_lobby import free_port

    def named(data: Path) -> str:
        run = subprocess.run([sys.executable, "-m", "splitnet.cli", "bot",
                              f"127.0.0.1:{free_port()}", "--code", CODE, "--net-timing",
                              FAST, "--data-dir", str(data)],
                             capture_output=True, text=True, timeout=60, check=False)
        assert run.returncode == 1 and "cannot reach" in run.stderr, run.stderr  # no host
        said = [ln for ln in run.stdout.splitlines() if ln.startswith("Playing as ")]
        assert len(said) == 1 and said[0].endswith(" (normal)"), run.stdout
        return said[0]

    first = named(tmp_path / "b1")
    assert [named(tmp_path / "b1") for _ in range(3)] == [first] * 3
