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
adversary reads. The simulator's findings that are fixed (framed-by-late-order, the
forked host's, SECURITY.md §6) are kept here as regressions."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

import pytest

import splitnet
from splitnet import adversary
from splitnet.adversary import Config, play_game
from splitnet.game.table import GameError, Position, check_position, entry_position
from splitnet.games.split.bots import make_bot, open_hand_player
from splitnet.games.split.local import LocalGame, SelfplaySecrets
from splitnet.games.split.rules import Settings
from splitnet.net.table import game_error_code
from splitnet.session.log import parse_message
from splitnet.verify import verify_records

#: every core checks every other seat's hop and the oracle's verify checks each again: the
#: same proofs, computed in full once per test (tests/conftest.py); a hop the adversary
#: substitutes differs in its arguments and is checked afresh, a refusal is never kept
pytestmark = pytest.mark.usefixtures("each_shuffle_proof_checked_once")

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
    assert all(r.outcome.startswith(("finished", "verdict:", "entry ", "stopped:", "forked"))
               for r in reports), [r.describe() for r in reports]


@pytest.mark.parametrize("game", ["split", "splito"])
def test_the_oracle_catches_a_watcher_that_reads_a_hidden_card(
        game: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A watcher (the log alone, no seat) is held to what is public at every entry
    (R8, S7; the watch issue): made to read a card nobody may — the deck's last slot, the
    bottom of the pile — the oracle names it, and nobody else."""
    from splitnet.crypto.deck import DeckRound

    real = DeckRound.known_slots

    def leaky(self: DeckRound) -> set[int]:
        known = real(self)
        return known | {self.size - 1} if self.seat is None and known else known

    monkeypatch.setattr(DeckRound, "known_slots", leaky)
    report = play_game(0, 2026, Config(game=game, side="guest", rate=(0.0, 0.0)))
    found = [str(v) for v in report.violations]
    assert found and all("a watcher (no seat, the log alone) reads" in v for v in found), found


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
    monkeypatch.setattr("splitnet.games.splito.core.check_pass_pok", lambda *a: True)
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
        if path.relative_to(root).as_posix() in ("adversary.py", "bench/adversary.py"):
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
    from splitnet.bench.adversary import bench_adversary

    text, clean = bench_adversary(3, seed=5)
    assert clean, text
    assert text.startswith("adversarial games: 3 (run seed 5, games 0…2")
    for part in ("deviations tried:", "refusals:", "played to the end:",
                 "forked games (the host equivocated): ", "violations found: 0"):
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


def _split_at_play(seed: int = 8) -> LocalGame:
    g = LocalGame(["a", "b", "c"], Settings(rounds=1, hand_size=3), SelfplaySecrets(seed),
                  shuffle_proofs=False, open_hand=open_hand_player)
    for _ in range(500):
        if g.pump():
            continue
        r = g.cores[0].round
        assert r is not None and g.mover() is not None
        return g
    raise AssertionError("never reached the play")


def test_a_message_the_log_moved_past_names_the_host_once_ordered_and_nobody_before() -> None:
    """The late order beyond an abandonment (SECURITY.md row 112): seat 1 raises an alarm
    (R8.4) at the head it holds; the host raises one of its own first. Checked then, seat
    1's alarm is refused naming nobody — it came too late, and made in good faith; ordered
    anyway, every core and ``splitnet verify`` name the host, which alone orders."""
    g = _split_at_play()
    rnd = g.cores[0].round_number
    body = {"round": rnd, "reason": "slot 3 decrypts to no card"}
    msg, sig = g.authors[1].message("alarm", body, seen=g.log.seen())
    g.send(0, "alarm", body)  # the host's own alarm comes first
    m = parse_message(msg)
    with pytest.raises(GameError, match="came too late") as e:
        g.cores[0].apply(1, "alarm", dict(m.body),
                         at=check_position(m, len(g.log), g.log.head()))
    assert e.value.seat is None
    assert game_error_code(e.value) == "protocol"  # the code of what it was refused for
    g.log.order(msg, sig, g.host)
    entry = g.log.entries[-1]
    for core in g.cores[1:]:
        with pytest.raises(GameError, match="no alarm can be raised now") as e:
            core.apply(1, "alarm", dict(entry.body), at=entry_position(entry))
        assert e.value.seat == 0, e.value
    v = verify_records(g.log.records())
    assert not v.ok and v.seq == entry.seq and v.seat == 0, v.summary


def test_a_message_signed_at_the_head_it_meets_still_names_its_author() -> None:
    """The other side of row 112: seat 2 signs its alarm with the host's in view, so it
    saw everything the refusal rests on — every core, checked or ordered, names seat 2."""
    g = _split_at_play()
    body = {"round": g.cores[0].round_number, "reason": "slot 3 decrypts to no card"}
    g.send(0, "alarm", body)
    with pytest.raises(GameError, match="no alarm can be raised now") as e:
        g.send(2, "alarm", body)  # the host's own core refuses it
    assert e.value.seat == 2
    with pytest.raises(GameError, match="no alarm can be raised now") as e:
        g.send(2, "alarm", body, host_checks=False)  # ordered blindly
    assert e.value.seat == 2
    v = verify_records(g.log.records())
    assert not v.ok and v.seat == 2, v.summary


def test_splitos_core_names_the_host_for_an_entry_signed_before_the_ones_it_meets() -> None:
    """Row 112 in Splito: the same rule in SplitoCore.apply (game.table.overtaken)."""
    from splitnet.games.splito.core import SplitoCore
    from splitnet.games.splito.settings import SplitoSettings

    core = SplitoCore(bytes(16), ["a", "b", "c"], SplitoSettings(players=3), None, None)
    body = {"round": 1, "turn": 7, "play": []}  # nothing of the kind is due now
    for seen, named in ((3, 0), (9, 1)):
        with pytest.raises(GameError) as e:
            core.apply(1, "play", dict(body), at=Position(10, bytes(32), 1, seen))
        assert e.value.seat == named, e.value
    with pytest.raises(GameError, match="came too late") as e:
        core.apply(1, "play", dict(body), at=Position(10, bytes(32), 1, 3, ordered=False))
    assert e.value.seat is None


# ---------------------------------------------------------------------- equivocation
#: a host that forks often: the suite's seeded run with equivocation
FORKING = {**adversary.DEFAULT_WEIGHTS, "equivocate": 40}


@pytest.mark.parametrize(("game", "players", "first", "games"),
                         [("split", 3, 0, 4), ("split", 4, 4, 1), ("splito", 3, 2, 1),
                          ("splito", 4, 1, 1)])
def test_a_seeded_run_with_equivocation_forks_and_finds_nothing_new(
        game: str, players: int, first: int, games: int) -> None:
    """The host forks the log (its own move, another order of concurrent messages, or a
    timeout or abandonment on one log only) and tries to keep both forks going by
    ordering on each what the guests sign on the other. Nothing but the findings counted apart turns
    up: every fork's two records at the seq where they part prove the equivocation, and
    each log's honest seats agree with ``splitnet verify``."""
    cfg = Config(game=game, players=(players,), side="host", weights=FORKING)
    reports = [play_game(i, 2026, cfg) for i in range(first, first + games)]
    new = [str(v) for r in reports for v in r.violations if not v.known]
    assert new == []
    forked = [r for r in reports if r.forked]
    assert forked, [r.describe() for r in reports]
    assert all(r.outcome.startswith("forked — F: ") and " | G: " in r.outcome for r in forked)
    # the host tried to keep both forks going: it offered each log the other's messages
    # (those made after the fork are refused there: they name an entry of the other log)
    assert sum(r.cross_ordered + r.cross_refused for r in forked) > 0


def _fork_at_the_bonus_draw(g_lives: set[int]) -> adversary.Simulation:
    """A Split game played honestly up to the host's strong bonus, then forked: on F the
    host skips it, on G it draws the pile's top card; seat ``g_lives`` lives on G."""
    from splitnet.games.split.rules import BonusDraw, SkipBonus

    sim = adversary.Simulation(0, 0, Config(game="split", players=(3,), side="host",
                                            rate=(0, 0), rematch=False, proofs=False))
    for _ in range(3000):
        core = sim.cores[0]
        if not sim.queue and core.can_move() and BonusDraw(0) in core.engine.legal_moves(0):
            break
        assert not sim.step()
    twin = sim._fork("the host's bonus draw on G, its skip on F", g_lives=g_lives)
    sim.order(0, "move", sim.cores[0].move_message(SkipBonus(0)), checked=False)
    with sim._in(twin):
        sim.order(0, "move", sim.cores[0].move_message(BonusDraw(0)), checked=False)
    for _ in range(3000):
        if sim.step():
            break
    sim.finish()
    return sim


@pytest.mark.parametrize("g_lives", [{1}, {2}])
def test_a_fork_on_the_hosts_bonus_draw_reads_no_card_it_may_not(g_lives: set[int]) -> None:
    """The analysis to refute: on G the host draws slot j (its bonus), on F it skips; the
    next seat, drawing from the pile, takes j on F; the host would have j's shares from
    the seat that shares it on G and from the one that shares it on F. It has not: a draw
    waits for the share of every seat but the drawer, so G waits at the host's draw for
    the seat living on F, which shares j on F only once the next seat draws it there —
    a draw that seat (a puppet on F) can only make after the host's draw on G is done.
    With seat 1 on G both logs stall and the host times the missing seat out on each;
    with seat 2 on G, F goes on (seat 2's share of j, signed on G, fits F's draw) and G
    stalls. Either way the host reads nothing beyond R8, and the records at the fork
    convict it."""
    sim = _fork_at_the_bonus_draw(g_lives)
    rpt = sim.report
    assert [v for v in rpt.violations if not v.prop.startswith("fork-knowledge-puppet")] \
        == [], rpt.describe()
    f, g = sim.worlds
    assert g.g.log.entries[sim.fork_seq].body["move"]["type"] == "bonus_draw"
    assert f.g.log.entries[sim.fork_seq].body["move"]["type"] == "skip_bonus"
    # G never got the share of the drawn card from the seat living on F: the host gave
    # that seat up there (a timeout, or an abandonment that cuts the round, R8.6)
    (missing,) = {1, 2} - g_lives
    after = g.g.log.entries[sim.fork_seq + 1:]
    j = g.g.log.entries[sim.fork_seq + 1].body["slots"][0]
    assert not any(e.kind == "shares" and e.author == missing and j in e.body["slots"]
                   for e in after)
    gave_up = next(e for e in after if e.kind in ("timeout", "abandon"))
    assert gave_up.body["seat"] == missing


def test_a_forking_host_reads_no_card_hidden_from_the_seats_living_on_that_fork() -> None:
    """Found by the simulator (4 seats, seat 3 played open-handed since a void deal): the
    host orders the deal's concurrent shares in two orders, the guests living on G play
    the deal there, and the host keeps F in step by ordering their moves and shares on F
    too — a step behind. What G shows (its open seat's draws, face up; the plays) the host
    reads on F while it is still the pile there (R8): it sees F's next cards before it
    chooses its own move on F. Now that a message binds the entry its author saw
    (splitnet/4), nothing made on G after the fork is ordered on F, F waits for its
    ghosts, and this is gone."""
    r = play_game(33, 11, Config(game="split", players=(4,), side="host", weights=FORKING))
    assert r.forked
    assert [str(v) for v in r.violations if v.prop == "fork-knowledge"] == []


def test_a_forking_host_convicts_no_honest_seat_with_a_message_made_on_the_other_fork(
) -> None:
    """Found by the simulator: the host plays another card on G than on F at turn 2, so
    the hands differ by that card. The guest living on G seals its dealt hand's shares to
    the next holder for the slots that holder has on G; cross-ordered onto F the box fits
    (the same size) but one share is another slot's: the receiver, living on F, complains,
    and every peer on F and ``splitnet verify`` convict the honest guest (S5.4). Now that a
    message binds the entry its author saw (splitnet/4), the pass is refused on F (the
    host then times the puppet out there: its own word)."""
    cfg = Config(game="splito", players=(3,), side="host",
                 weights={"equivocate": 30, "substitute": 1, "delay": 1, "timeout": 0.3,
                          "abandon": 0.3})
    r = play_game(8, 7, cfg)
    assert r.forked
    assert [str(v) for v in r.violations if v.prop == "framed-by-cross-order"] == []


def _fork_abandoning_a_seat_on_one_log(proofs: bool) -> adversary.Simulation:
    """A Split game played honestly into its first round's play, then forked where the
    game waits for seat 2: on G the host gives seat 2 up (it lives on F), which cuts the
    round there (R8.6); seat 1 lives on G and is a puppet on F."""
    sim = adversary.Simulation(0, 0, Config(game="split", players=(3,), side="host",
                                            rate=(0, 0), rematch=False, proofs=proofs))
    turns = 2
    for _ in range(3000):
        core = sim.cores[0]
        if not sim.queue and core.round is not None and core.round.stage == "play" \
                and 2 in sim.obs.waiting_for():
            if turns <= 0 and core.abandon_refusal(2) is None:
                break
            turns -= 1
        assert not sim.step()
    rnd = sim.cores[0].round_number
    twin = sim._fork("an abandonment of seat 2 on G only", g_lives={1})
    with sim._in(twin):
        sim.order(0, "abandon", {"round": rnd, "seat": 2,
                                 "waited": adversary.LIMITS.open_hand_after_s},
                  checked=False, deviation="equivocate")
    for _ in range(3000):
        if sim.step():
            break
    sim.finish()
    return sim


@pytest.mark.parametrize("proofs", [True, False])
def test_a_forking_host_reads_no_hidden_card_of_a_puppet(proofs: bool) -> None:
    """Found by the simulator (game 41, run seed 11): on G the host gives up seat 2, which
    cuts the round (R8.6), and seat 1, living on G, opened its round seed as the rules
    asked. On F the round goes on with the same deck, seat 1 a puppet there: the host read
    seat 1's cards on F (its seed and seat 2's deal shares) and played on F knowing them,
    until F waited for seat 1 and the host timed it out. Nobody opens a round cut short
    (GAME.md "abandon" step 2, SECURITY.md row 111): with shuffle proofs (the default)
    every hop stands on its proof; without, seat 1 proves its hop on G after the cut
    (``prove``), which tells the host nothing of any card. The same fork shows the host
    nothing either way; this failed before (with proofs on splitnet/4, without on
    splitnet/6)."""
    sim = _fork_abandoning_a_seat_on_one_log(proofs)
    r = sim.report
    assert r.forked.startswith("an abandonment of seat 2 on G only"), r.describe()
    assert " | G: finished" in r.outcome, r.describe()
    assert [str(v) for v in r.violations] == []
    if not proofs:  # seat 1 proved its hop on G, and opened no seed of the cut round
        with sim._in(next(w for w in sim.worlds if w.name == "G")):
            cut = sim.cores[1].rounds[0]
        assert (cut.cut, cut.deck.proved, cut.opened) == (2, {0, 1}, set()), r.describe()


#: run 3 of a Splito-only configuration weighted to drops and abandonments: games whose
#: seats leave the rotation (S5.7) — a guest's drop given up, the host's own abandonment
#: (true or false), one on a forked log
_GONE_WEIGHTS = {**{k: 0.0 for k in adversary.DEFAULT_WEIGHTS}, "drop": 3.0, "abandon": 2.0,
                 "delay": 1.0, "equivocate": 1.0, "substitute": 1.0}


@pytest.mark.parametrize("index", [2, 13, 22, 30, 33, 37])
def test_a_splito_seat_gone_for_good_under_an_adversary_breaks_no_property(index: int) -> None:
    """SECURITY.md rows 86, 121, 122 under the simulator: Splito games at 4–5 seats in
    which a seat leaves (a guest that drops its messages, given up by the honest host;
    the adversary host's own abandonments, false ones refused; one on a forked log). The
    oracle checks S7 at every entry up to the end, which opens nothing (S12.5): no
    violation, and a seat gone in every game (the runs stay what they were chosen for)."""
    cfg = adversary.Config(game="splito", players=(4, 5), weights=dict(_GONE_WEIGHTS),
                           rate=(0.02, 0.05))
    sim = adversary.Simulation(index, 3, cfg)
    report = sim.run()
    assert not report.violations, [str(v) for v in report.violations]
    assert sim.obs.engine.gone, report.describe()
    if index in (13, 22, 30):  # these play on to the end with a seat gone
        assert sim.obs.finished and sim.obs.verdict is None and sim.obs.record is not None
        assert sim.obs.record["gone"], report.describe()
