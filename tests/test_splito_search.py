"""Splito's strong level (splitnet/games/splito/search.py) and its flat rollouts
(splitnet/games/splito/flat.py): the flat heuristic is the heuristic to the last bit, the search
reads nothing its seat may not know (S7), and it is anchored on the heuristic."""

from __future__ import annotations

import copy
import random
from collections import Counter

import pytest

from splitnet.cli import main
from splitnet.games.splito.bots import LEVELS, EasyBot, HeuristicBot, RandomBot, make_bot
from splitnet.games.splito.cards import NUMBER_CARDS, number_face
from splitnet.games.splito.engine import Game, commitment
from splitnet.games.splito.flat import CELLS, compile_cond, face_index, heuristic_values, rollout
from splitnet.games.splito.local import play_local
from splitnet.games.splito.objectives import default_objective_set, holds, missing
from splitnet.games.splito.search import (
    SearchConfig,
    StrongBot,
    describe_play,
    determinize,
    flat_game,
    knowable_slots,
    suggest,
)
from splitnet.games.splito.settings import SplitoSettings


def _positions(n: int, seed: int) -> list[tuple[Game, list[Game]]]:
    """(full engine, every seat's view) at each commit phase of a heuristic game."""
    out: list[tuple[Game, list[Game]]] = []

    def obs(step: str, views: list[Game], public: Game, full: Game) -> None:
        if step in ("deal", "reveal") and not full.over:
            out.append((full.clone(), [v.clone() for v in views]))

    play_local(SplitoSettings.standard(n), [make_bot("normal", seed + s) for s in range(n)],
               seed, observer=obs)
    return out


def test_S9_3_every_compiled_condition_counts_the_missing_cards_as_missing_does() -> None:
    """Random zones and pools (every face 0–2 times in all): each of the 37 conditions
    compiled for the flat state gives what objectives.missing gives, and holds exactly
    when the condition holds."""
    oset = default_objective_set()
    compiled = [(o, compile_cond(o.cond)) for o in oset.objectives]
    rng = random.Random(5)
    faces = [number_face(c) for c in NUMBER_CARDS]
    for k in range(400):
        cards = list(faces)
        rng.shuffle(cards)
        size = rng.randrange(0, 16) if k % 4 else rng.randrange(0, 40)
        zone = cards[:size]
        rest = cards[size:]
        pool = Counter(rest[:rng.randrange(0, len(rest) + 1)])
        z, p = [0] * CELLS, [0] * CELLS
        for f in zone:
            z[face_index(f)] += 1
        for f, m in pool.items():
            p[face_index(f)] += m
        for o, fn in compiled:
            assert fn(z, p) == missing(o.cond, zone, pool), (o.id, zone, pool)
            assert (fn(z, z) == 0) == holds(o.cond, zone), (o.id, zone)


@pytest.mark.parametrize("n", [2, 3, 5, 8])
def test_the_flat_heuristic_values_every_play_exactly_as_the_heuristic(n: int) -> None:
    checked = 0
    for full, views in _positions(n, 10 + n)[::3]:
        for s in range(n):
            want = [v for _, v in HeuristicBot(0).play_values(views[s], s)]
            assert heuristic_values(flat_game(full, list(map(str, full.faces))), s) == want
            checked += 1
    assert checked >= n * 3


@pytest.mark.parametrize("n", [2, 4, 7])
def test_a_flat_rollout_plays_the_heuristics_own_game_S10_S11(n: int) -> None:
    """From the deal, the flat rollout with the heuristic bots' seeds ends in exactly the
    scores (S11.1) and card counts (S11.3) of the game those bots play on the engine."""
    seed = 30 + n
    s = SplitoSettings.standard(n)
    res = play_local(s, [HeuristicBot(100 + i) for i in range(n)], seed)
    first = _positions_of(res.full, s)
    g = flat_game(first, [str(f) for f in res.full.faces])
    rollout(g, [random.Random(100 + i) for i in range(n)])
    assert g.turn == s.turns + 1
    assert g.zone_points() == res.record["zone_points"]
    assert g.scores() == [(x["score"], x["cards_in_zones"]) for x in res.record["scores"]]


def _positions_of(full: Game, s: SplitoSettings) -> Game:
    """The same deal as ``full``, at its first turn."""
    g = Game(s, full.game_id)
    g.deal(full.central, [str(f) for f in full.faces])
    return g


def test_S7_the_search_knows_exactly_what_its_view_holds() -> None:
    for full, views in _positions(4, 3)[::2]:
        for seat, view in enumerate(views):
            known = knowable_slots(view, seat)
            assert known == {i for i, f in enumerate(view.faces) if f is not None}
            assert known == {i for i in range(len(full.faces)) if full.may_know(seat, i)}
            faces = determinize(view, seat, random.Random(1))
            assert sorted(faces) == sorted(str(f) for f in full.faces)
            assert all(faces[i] == view.faces[i] for i in known)


def _scrambled(view: Game, seat: int, rng: random.Random, truth: list[str] | None) -> Game:
    """The view with every face the seat cannot know filled in: with the true deck, or
    with the unseen cards in a random order."""
    g = view.clone()
    hidden = [i for i, f in enumerate(g.faces) if f is None]
    if truth is not None:
        fill = [truth[i] for i in hidden]
    else:
        seen = {f for f in g.faces if f is not None}
        fill = [str(c) for c in truth_pool(view) if c not in seen]
        rng.shuffle(fill)
    for i, c in zip(hidden, fill, strict=True):
        g.faces[i] = c
        g._slot_of[c] = i
    return g


def truth_pool(view: Game) -> list[str]:
    from splitnet.games.splito.engine import full_deck

    return [c for c in full_deck(view.settings) if c not in view.central]


def test_S7_scrambled_hidden_cards_do_not_change_the_strong_bots_choice() -> None:
    """The strong bot is given its view, then the same view with every face it cannot
    know filled in — with the real deck, or scrambled twice — and must choose the same
    play with the same values each time: it reads nothing its seat does not have."""
    rng = random.Random(9)
    checked = 0
    for n in (3, 5):
        for full, views in _positions(n, 40 + n)[1:10:4]:
            truth = [str(f) for f in full.faces]
            for seat in (0, n - 1):
                view = views[seat]
                bot = StrongBot(77, SearchConfig(samples=3, max_candidates=3))
                choices = []
                for variant in (None, "truth", "scramble", "scramble"):
                    b = copy.deepcopy(bot)
                    g = view if variant is None else _scrambled(
                        view, seat, rng, truth if variant == "truth" else None)
                    choices.append((b.choose(g, seat), b.last.values if b.last else None))
                assert all(c == choices[0] for c in choices), choices
                checked += 1
    assert checked == 12


def test_strong_search_is_deterministic_by_sample_count_and_anchored() -> None:
    _, views = _positions(4, 5)[2]
    view, seat = views[1], 1
    a = StrongBot(5, SearchConfig(samples=4, max_candidates=3)).decide(view, seat)
    b = StrongBot(5, SearchConfig(samples=4, max_candidates=3)).decide(view, seat)
    assert a.play == b.play and a.values == b.values and a.samples == 4 and a.searched
    assert a.values[0][0] == a.anchor == HeuristicBot(5).choose(view, seat)
    assert len(a.values) == 3 and a.play in view.legal_plays(seat)
    # A challenger needs a clear margin: with an impossible one the anchor always stays.
    c = StrongBot(5, SearchConfig(samples=4, max_candidates=3, margin=2.0)).decide(view, seat)
    assert c.play == c.anchor
    # and at least 3 samples: with 2 the anchor stays whatever the values say
    d = StrongBot(5, SearchConfig(samples=2, max_candidates=3, margin=-1.0)).decide(view, seat)
    assert d.play == d.anchor


def test_strong_bot_thinks_within_its_time_budget_mode() -> None:
    _, views = _positions(3, 2)[4]
    bot = StrongBot(1, SearchConfig(budget=0.02))
    bot.choose(views[0], 0)
    assert bot.last is not None and bot.last.samples >= 2 and bot.searched == 1
    assert len(bot.last.values) >= 2  # the anchor and at least one challenger


def test_the_last_turn_is_not_searched() -> None:
    full, views = _positions(3, 4)[-1]
    assert full.turn == full.turns
    bot = StrongBot(1, SearchConfig(samples=3))
    assert bot.choose(views[2], 2) == HeuristicBot(1).choose(views[2], 2)
    assert bot.searched == 0


def test_suggest_gives_a_legal_play_and_its_reason_in_words() -> None:
    for full, views in _positions(4, 6)[::4]:
        for seat in (0, 2):
            names = ["Ana", "Bo", "Cy", "Dee"]
            play, reason = suggest(views[seat], seat, samples=3, names=names)
            assert play in views[seat].legal_plays(seat)
            assert reason and "\n" not in reason
            assert reason.startswith(describe_play(views[seat], play, names) + ": ")
            assert "(shared with " + names[(seat + 1) % 4] in reason or (
                "(shared with " + names[(seat - 1) % 4] in reason)
            assert "deals tried" in reason or full.turn == full.turns
    _, views = _positions(3, 6)[0]
    g = views[0]
    p = g.legal_plays(0)[0]
    g.commit(0, commitment(g.game_id, g.turn, 0, g.face(p.slot), p.side, "0" * 32))
    with pytest.raises(ValueError, match="no play to choose now"):
        suggest(g, 0, samples=1)


def test_the_levels_are_named_as_splits() -> None:
    assert LEVELS == ("easy", "normal", "strong")
    assert isinstance(make_bot("easy", 1), EasyBot)
    assert type(make_bot("normal", 1)) is HeuristicBot
    assert type(make_bot("heuristic", 1)) is HeuristicBot
    assert isinstance(make_bot("random", 1), RandomBot)
    strong = make_bot("strong", 1, samples=3, budget=0.1)
    assert isinstance(strong, StrongBot) and strong.config.samples == 3
    assert strong.config.budget == 0.1


@pytest.mark.parametrize("name", ["easy", "strong"])
def test_new_levels_play_whole_legal_games(name: str) -> None:
    s = SplitoSettings.standard(3)
    bots = [make_bot(name, 1, samples=2), make_bot("normal", 2), make_bot("random", 3)]
    res = play_local(s, bots, 12)
    assert res.full.over and len(res.record["turns"]) == s.turns


def test_selfplay_splito_with_a_strong_bot_is_reproducible(
        capsys: pytest.CaptureFixture[str]) -> None:
    args = ["selfplay", "--game", "splito", "-n", "3", "-s", "2", "--local-shuffle",
            "--bots", "strong,easy,normal", "--samples", "2"]
    assert main(args) == 0
    first = capsys.readouterr().out
    assert main(args) == 0
    assert capsys.readouterr().out == first and "Winner: " in first
