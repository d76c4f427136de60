"""The adversarial simulator (splitnet/adversary.py): whole games of Split and Splito in
which one seat — the host or a guest — deviates at random at every message (drop, delay,
reorder, substitute a well-formed element, replay, refuse, order blindly, false timeouts
and abandonments at every stage, forged host messages), checked at every entry by an
oracle: nobody reads a slot beyond its entitlement (R8, S7), no honest seat is named,
every deviation ends in no effect or a verdict naming the deviator, honest peers and
``splitnet verify`` agree. A small seeded run here; the long one is
``splitnet bench adversary`` (protocol/SECURITY.md §6).

The oracle is shown to fail: with the pass's proof of knowledge switched off (the Splito
complaint oracle of SECURITY.md rows 90–92), the same simulator reports what the
adversary reads. The one finding of the simulator so far (framed-by-late-order) is fixed
and kept here as a regression."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

import pytest

import splitnet
from splitnet import adversary
from splitnet.adversary import Config, play_game
from splitnet.bots import make_bot, open_hand_player
from splitnet.game.local import LocalGame, SelfplaySecrets
from splitnet.rules import Settings
from splitnet.verify import verify_records

#: (game, shuffle proofs, adversary side, games): the suite's seeded run
RUNS = [("split", False, "host", 12), ("split", False, "guest", 12),
        ("split", True, "host", 4), ("split", True, "guest", 4),
        ("splito", True, "host", 6), ("splito", True, "guest", 6)]


@pytest.mark.parametrize(("game", "proofs", "side", "games"), RUNS)
def test_a_seeded_adversarial_run_finds_no_violation(game: str, proofs: bool, side: str,
                                                     games: int) -> None:
    cfg = Config(game=game, proofs=proofs if game == "split" else None, side=side)
    reports = [play_game(i, 2026, cfg) for i in range(games)]
    new = [str(v) for r in reports for v in r.violations if not v.known]
    assert new == []
    tried: Counter[str] = Counter()
    for r in reports:
        tried.update(r.deviations)
        assert r.outcome, r.describe()
        assert (r.adversary == 0) == (side == "host")
    assert sum(tried.values()) >= games  # the adversary did deviate
    assert len(tried) >= 3, tried
    assert sum(r.refusals for r in reports) > 0  # and was refused somewhere
    # every game ended in one of the ways the properties allow
    assert all(r.outcome.startswith(("finished", "verdict:", "entry ", "stopped:"))
               for r in reports), [r.describe() for r in reports]


def test_the_oracle_catches_the_splito_complaint_oracle_when_the_pok_check_is_off(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Rows 90–92's attack, found by the simulator itself: with every peer's check of a
    pass's pok switched off (the protocol before it), an adversary that puts another
    point in its pass's eph gets the receiver's complaint key K = x_r·R, and reads with it
    a card it never held — the oracle reports it. With the check on, the same game finds
    nothing: every such pass is refused naming its sender."""
    cfg = Config(game="splito", players=(4,), rate=(0.6, 0.6), weights={"substitute": 1},
                 substitute_kinds=("pass",), rematch=False)
    clean = play_game(0, 0, cfg)
    assert clean.violations == [] and clean.refusals > 0, clean.describe()
    monkeypatch.setattr("splitnet.game.splito_core.check_pass_pok", lambda *a: True)
    broken = play_game(0, 0, cfg)
    found = [v for v in broken.violations if v.prop == "knowledge"]
    assert found, broken.describe()
    assert "(adversary) reads card slots" in found[0].detail


def test_substitution_changes_exactly_one_well_formed_element() -> None:
    import random

    from splitnet.crypto import group

    body = {"round": 1, "purpose": "draw", "slots": [4, 9],
            "shares": [group.base_mul(5), group.base_mul(6)], "proof": bytes(range(96))}
    rng = random.Random(1)
    seen = set()
    for _ in range(60):
        out = adversary.substitute(rng, "shares", body, [group.base_mul(7)], [])
        if out is None:
            continue  # nothing to change in what it picked (the purpose's name)
        new, what = out
        seen.add(what.split(" (")[1])
        assert new["round"] == 1 and new != body
        for p in new["shares"]:
            group.decode_point(p, "share")  # still a valid point
    assert {"another point)", "a byte flipped)", "swapped)", "another int)"} <= seen


def test_a_refused_deviation_is_one_with_no_effect_on_any_core() -> None:
    """The digest the simulator compares before and after a refusal does see a change."""
    g = LocalGame(["a", "b"], Settings(rounds=1, hand_size=2), SelfplaySecrets(4),
                  shuffle_proofs=False)
    before = adversary.digest(g.cores[1])
    g.pump()
    assert adversary.digest(g.cores[1]) != before


def test_no_product_module_imports_the_simulator() -> None:
    """The simulator is for the bench and the tests: nothing else depends on it."""
    root = Path(splitnet.__file__).parent
    users = []
    for path in root.rglob("*.py"):
        if path.name in ("adversary.py", "bench_adversary.py"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([node.module or ""] if isinstance(node, ast.ImportFrom)
                     else [a.name for a in node.names] if isinstance(node, ast.Import) else [])
            if isinstance(node, ast.ImportFrom) and node.module == "splitnet":
                names += [a.name for a in node.names]
            if any(n.endswith("adversary") and "bench" not in n for n in names):
                users.append(str(path.relative_to(root)))
    assert users == []


def test_bench_adversary_reports_games_deviations_and_violations() -> None:
    from splitnet.bench_adversary import bench_adversary

    text, clean = bench_adversary(3, seed=5)
    assert clean, text
    assert text.startswith("adversarial games: 3 (run seed 5, games 0…2")
    for part in ("deviations tried:", "refusals:", "played to the end:",
                 "violations found: 0"):
        assert part in text, text


# ---------------------------------------------------------------------- findings
def test_a_message_ordered_after_the_hosts_own_abandonment_does_not_convict_its_author(
) -> None:
    g = LocalGame(["a", "b", "c"], Settings(rounds=1, hand_size=3), SelfplaySecrets(8),
                  shuffle_proofs=False, open_hand=open_hand_player)
    bots = [make_bot("random", i) for i in range(3)]
    for _ in range(500):  # play honestly until seat 1 is to move
        if g.pump():
            continue
        seat = g.mover()
        assert seat is not None
        if seat == 1:
            break
        g.play_move(seat, bots[seat].choose(g.cores[seat].engine, seat))
    body = g.cores[1].move_message(bots[1].choose(g.cores[1].engine, 1))
    msg, sig = g.authors[1].message("move", body, seen=g.log.seen())  # sent: legal now
    g.abandon(1, 30)  # the host holds it, and gives the seat up as gone (R8.6)
    g.log.order(msg, sig, g.host)  # then orders it
    v = verify_records(g.log.records())
    assert not v.ok and v.seq == len(g.log) - 1
    assert v.seat == 0, v.summary  # the host ordered it out of its time; seat 1 did not
