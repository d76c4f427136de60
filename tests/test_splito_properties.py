"""Properties of whole Splito games (docs/SPLITO.md), 2–8 players: card conservation,
what each seat may know (S7), refused moves change nothing, and every score recomputed
by an independent scorer written here from Appendix A and S10–S11 alone."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from splitnet.games.splito.bots import make_bot
from splitnet.games.splito.engine import Game, IllegalMove, Play
from splitnet.games.splito.local import play_local
from splitnet.games.splito.record import check_record, dumps
from splitnet.games.splito.settings import SplitoSettings
from tests.splito_helpers import snapshot

ROOT = Path(__file__).resolve().parent.parent
OBJECTIVES = ROOT / "splitnet" / "games" / "splito" / "objectives.json"
RAW = {o["id"]: o for o in json.loads(
    OBJECTIVES.read_text("utf-8"))["objectives"]}


# ---------------------------------------------------------------- the independent scorer
def _sel(f: dict[str, Any], cards: list[tuple[int, str]]) -> list[tuple[int, str]]:
    return [(v, c) for v, c in cards if ("values" not in f or v in f["values"])
            and ("colours" not in f or c in f["colours"])]


def cond_true(cond: dict[str, Any], z: list[tuple[int, str]]) -> bool:
    """S9.3's table, read afresh (no code shared with splitnet.games.splito.objectives)."""
    op = cond["op"]
    lo, hi = cond.get("min", 0), cond.get("max", 10**9)
    if op == "count":
        return lo <= len(_sel(cond["filter"], z)) <= hi
    if op == "sum":
        return lo <= sum(v for v, _ in _sel(cond["filter"], z)) <= hi
    if op == "same_value":
        return any(sum(1 for v, _ in z if v == x) >= lo for x in range(1, 7))
    if op == "same_colour":
        return any(sum(1 for _, c in z if c == x) >= lo for x in "ROYGBP")
    if op == "distinct_values":
        return len(set(v for v, _ in _sel(cond["filter"], z))) >= lo
    if op == "distinct_colours":
        return len(set(c for _, c in _sel(cond["filter"], z))) >= lo
    if op == "run":
        n = cond["length"]
        for start in range(1, 8 - n):
            need = range(start, start + n)
            if cond["same_colour"]:
                if any(all((v, c) in z for v in need) for c in "ROYGBP"):
                    return True
            elif all(any(zv == v for zv, _ in z) for v in need):
                return True
        return False
    if op == "groups":
        keys = range(1, 7) if cond["by"] == "value" else "ROYGBP"
        idx = 0 if cond["by"] == "value" else 1
        return sum(1 for k in keys if sum(1 for card in z if card[idx] == k) >= cond["size"]) \
            >= cond["count"]
    if op == "identical":
        return sum(1 for card in set(z) if z.count(card) >= 2) >= cond["count"]
    if op == "more":
        return len(_sel(cond["a"], z)) > len(_sel(cond["b"], z))
    assert op == "all"
    return all(cond_true(c, z) for c in cond["of"])


def independent_scores(rec: dict[str, Any]) -> dict[str, Any]:
    n = rec["settings"]["players"]
    n_zones = 4 if n == 2 else n
    zones: list[list[str]] = [[] for _ in range(n_zones)]
    for t in rec["turns"]:
        for p in sorted(t["plays"], key=lambda p: p["seat"]):
            s = p["seat"]
            if n == 2:
                z = 2 * s + (0 if p["side"] == "left" else 1)
            else:
                z = s if p["side"] == "left" else (s - 1) % n
            zones[z].append(p["card"])
    points = []
    for cards in zones:
        nums = [(int(c[1]), c[0]) for c in cards if not c.startswith("OBJ")]
        objs = [c for c in cards if c.startswith("OBJ")] + rec["deal"]["central"]
        points.append(sum(RAW[o]["points"] for o in objs if cond_true(RAW[o]["cond"], nums)))
    scores, count = [], []
    for s in range(n):
        lz, rz = (2 * s, 2 * s + 1) if n == 2 else (s, (s - 1) % n)
        scores.append(points[lz] * points[rz])
        count.append(len(zones[lz]) + len(zones[rz]))
    best = max(scores)
    fewest = min(c for c, sc in zip(count, scores, strict=True) if sc == best)
    winners = [s for s in range(n) if scores[s] == best and count[s] == fewest]
    return {"zones": zones, "zone_points": points, "scores": scores, "winners": winners}


# ---------------------------------------------------------------- whole games
def check_step(step: str, views: list[Game], public: Game, full: Game) -> None:
    n = full.n
    # card conservation: every slot in exactly one place; 109 cards with the centrals
    places = [*(x for h in full.hands for x in h), *(x for z in full.zones for x in z),
              *full.set_aside_slots()]
    assert sorted(places) == list(range(full.settings.deck_size)), step
    assert len({*full.faces, *full.central}) == 109
    # S7: each seat knows exactly its hands (now and before) and the public cards
    pub = full.public_slots()
    for s, v in enumerate(views):
        known = {i for i, f in enumerate(v.faces) if f is not None}
        assert known == full.held[s] | pub, (step, s)
        assert all(v.faces[i] == full.faces[i] for i in known)
        assert v.zones == full.zones and v.hands == full.hands and v.turn == full.turn
        assert all(full.may_know(s, i) for i in known)
        assert v.faces == full.view_of(s).faces
    assert {i for i, f in enumerate(public.faces) if f is not None} == pub
    assert all(len(h) == len(full.hands[0]) for h in full.hands)  # S7.4: always equal
    assert len(full.hands) == n


BOT_MIX = st.lists(st.sampled_from(["random", "heuristic"]), min_size=8, max_size=8)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(2, 8), st.integers(0, 2**32), BOT_MIX, st.integers(0, 4))
def test_whole_games_conserve_cards_keep_knowledge_and_score_independently(
        n: int, seed: int, mix: list[str], central: int) -> None:
    s = SplitoSettings.standard(n, central_objectives=central, dealer=seed % n)
    bots = [make_bot(mix[i], seed + i) for i in range(n)]
    result = play_local(s, bots, seed, observer=check_step)
    rec = result.record
    verdict = check_record(rec)
    assert verdict.ok, verdict.faults
    mine = independent_scores(rec)
    assert [Counter(z["cards"]) for z in rec["zones"]] == [Counter(z) for z in mine["zones"]]
    assert rec["zone_points"] == mine["zone_points"]
    assert [x["score"] for x in rec["scores"]] == mine["scores"]
    assert rec["winners"] == mine["winners"]
    for v in result.views + [result.public]:  # every view derives the same result
        assert v.zone_points() == result.full.zone_points() and v.winners() == rec["winners"]


def test_many_random_games_of_every_size_verify() -> None:
    for n in range(2, 9):
        for seed in range(6):
            rec = play_local(SplitoSettings.standard(n),
                             [make_bot("random", seed * 9 + i) for i in range(n)], seed).record
            assert check_record(rec).ok
            assert rec["zone_points"] == independent_scores(rec)["zone_points"]


def test_self_play_is_deterministic() -> None:
    def run(seed: int) -> str:
        s = SplitoSettings.standard(5)
        bots = [make_bot("heuristic" if i % 2 else "random", 3 + i) for i in range(5)]
        return dumps(play_local(s, bots, seed).record)

    assert run(11) == run(11)
    assert run(11) != run(12)


# ---------------------------------------------------------------- refusals change nothing
@settings(max_examples=60, deadline=None)
@given(st.integers(2, 8), st.integers(0, 12), st.data())
def test_illegal_plays_are_refused_with_the_state_unchanged(n: int, turns: int,
                                                            data: st.DataObject) -> None:
    s = SplitoSettings.standard(n)
    full = play_local(s, [make_bot("random", i) for i in range(n)], n * 100 + turns).full
    # rebuild the game up to a chosen turn from its history
    g = Game(s, full.game_id)
    g.deal(full.central, full.faces)
    for plays in full.history[:turns]:
        g.play_turn([Play(p.seat, p.slot, p.side) for p in plays], [p.nonce for p in plays])
    seat = data.draw(st.integers(0, n - 1))
    slot = data.draw(st.integers(-2, s.deck_size + 2))
    side = data.draw(st.sampled_from(["left", "right", "middle"]))
    play = Play(seat, slot, side)  # type: ignore[arg-type]
    before = snapshot(g)
    legal = Play(seat, slot, side) in g.legal_plays(seat)  # type: ignore[arg-type]
    try:
        g.check_play(play)
        assert legal
    except IllegalMove as e:
        assert not legal and e.rule.startswith("S")
    assert snapshot(g) == before
    bad = [Play(x, g.hands[x][0] if g.hands[x] else 0, "left") for x in range(n)]
    bad[seat] = play
    try:
        g.play_turn(bad, [f"{i:032x}" for i in range(n)])
        assert legal
    except IllegalMove:
        assert not legal
        assert snapshot(g) == before
