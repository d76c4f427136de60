"""A Splito complaint is no decryption oracle (S5.4; protocol/SPLITO_GAME.md §6,
SECURITY.md rows 90–92).

The attack: a seat that owes a pass to seat r puts a point R of its choosing in the
pass's ``eph`` and a box that does not open; r's honest core would then publish
K = x_r·R in its ``complain``. With R the eph of another seat's box to r, K opens that
box (the hand r held, read by a seat that never held it); with R the c1 of a card dealt
to r, K is r's decryption share of it. Every test here sends the attack through the real
cores and the real signed log; the first shows, with the pass's proof check switched
off, that the attack reads cards — so the refusals below are refusals of a real attack.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from splitnet.crypto import group
from splitnet.game.table import GameError
from splitnet.games.splito.core import Sealed, SplitoCore, Stage, pass_pok, pass_scalar
from tests.forks import handed_out, shuffle_proofs_checked_once
from tests.test_splito_fair import Game, bots, new_game, run_until

SENDER, VICTIM, OTHER = 0, 2, 1  # at 4 seats, after turn 2: 0 → 2; after turn 1: 1 → 2


def _second_pass_phase(g: Game) -> bool:
    core = g.cores[0]
    return (core.stage is Stage.PASS and core.engine.turn == 3
            and not any(s.turn == 2 and s.frm == SENDER for s in core.sealed))


Position = tuple[Game, dict[str, Any], Sealed]


def _game_at_second_pass() -> Position:
    """A 4-seat game where seat 0 owes its pass to seat 2 after turn 2; seat 2 holds the
    box seat 1 sealed to it after turn 1 (the hand dealt to seat 1, which seat 0 has
    never held)."""
    game = new_game(4, seed=7)
    run_until(game, _second_pass_phase)
    honest = dict(next(b for k, b in game.cores[SENDER].outbox() if k == "pass"))
    assert honest["to"] == VICTIM
    earlier = next(s for s in game.cores[SENDER].sealed
                   if s.frm == OTHER and s.to == VICTIM and s.turn == 1)
    return game, honest, earlier


@pytest.fixture(scope="module")
def _second_pass_once() -> Position:
    """The position, played once for the module (1.7 s of CPU): each test gets a copy.
    Each peer checks every other seat's hop: each proof is computed once (tests/forks.py)."""
    with shuffle_proofs_checked_once():
        return _game_at_second_pass()


@pytest.fixture
def at_second_pass(_second_pass_once: Position) -> Iterator[Position]:
    """A copy of the position of its own for one test (the module's original is checked
    untouched afterwards)."""
    yield from handed_out(_second_pass_once[0], _second_pass_once)


def _junk_box(honest: dict[str, Any]) -> bytes:
    return bytes(len(honest["box"]))


def _victim_cards(game: Game) -> set[int]:
    """The card slots of the hand dealt to seat 1 (passed to seat 2 after turn 1)."""
    core = game.cores[SENDER]
    return {j for j in range(core.engine.dealt) if core.dealt_holder(j) == OTHER}


def _attacker_reads(game: Game, earlier: Sealed, key: bytes) -> set[int]:
    """What seat 0 reads once it opens seat 1's box to seat 2 with ``key``."""
    core = game.cores[SENDER]
    assert core.cards is not None
    trial = core.cards.fork()
    for msg in core._open_box(earlier, key).values():
        trial.learn_shares(OTHER, msg, "pass")
    return trial.known_slots() & _victim_cards(game)


def _pok_switched_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("splitnet.games.splito.core.check_pass_pok", lambda *a: True)


def test_without_the_pok_check_a_complaint_would_give_away_a_hand_never_held(
        monkeypatch: pytest.MonkeyPatch, at_second_pass: Position) -> None:
    """The attack is real: with the check of the pass's pok off (the protocol before it),
    seat 0 reads the hand dealt to seat 1 from seat 2's honest complaint."""
    _pok_switched_off(monkeypatch)
    game, honest, earlier = at_second_pass
    game.send(SENDER, "pass", {**honest, "eph": earlier.eph, "box": _junk_box(honest)})
    victim = game.cores[VICTIM]
    assert victim.bad_box is not None
    complaint = dict(next(b for k, b in victim.outbox() if k == "complain"))
    game.send(VICTIM, "complain", complaint)
    read = _attacker_reads(game, earlier, complaint["key"])
    assert len(read) >= 10, read  # the hand seat 1 passed to seat 2: 11 cards at 4 seats


def _refused(game: Game, body: dict[str, Any]) -> None:
    before = [(c.stage, len(c.sealed), c.bad_box) for c in game.cores]
    heads = len(game.log)
    with pytest.raises(GameError, match=r"seat 0 at pass: S5\.4: its pok does not prove"):
        game.send(SENDER, "pass", body)
    assert len(game.log) == heads
    assert [(c.stage, len(c.sealed), c.bad_box) for c in game.cores] == before
    assert game.cores[VICTIM].bad_box is None  # so it owes no complaint


def _forged_bodies(game: Game, honest: dict[str, Any], earlier: Sealed
                   ) -> Iterator[tuple[str, dict[str, Any]]]:
    junk = _junk_box(honest)
    core = game.cores[SENDER]
    assert core.cards is not None and core.cards.deck is not None
    theirs = next(e.body for e in game.log.entries
                  if e.kind == "pass" and e.author == OTHER and e.body["to"] == VICTIM)
    a = 12345
    shifted = group.add(earlier.eph, group.base_mul(a))
    card = next(j for j in sorted(_victim_cards(game)))
    c1 = core.cards.deck[card][0]
    yield "another box's eph, its own pok", {**honest, "eph": earlier.eph,
                                             "pok": theirs["pok"], "box": junk}
    yield "another box's eph, the honest pok", {**honest, "eph": earlier.eph, "box": junk}
    yield "R* + a·G, a pok for a·G", {**honest, "eph": shifted,
                                       "pok": pass_pok(game.log.game_id, a, 2, SENDER, VICTIM),
                                       "box": junk}
    yield "the c1 of a card dealt to r", {**honest, "eph": c1, "box": junk}
    yield "a pok of 64 zero bytes", {**honest, "pok": bytes(64), "box": junk}


@pytest.mark.parametrize("which", range(5))
def test_a_pass_whose_eph_its_sender_cannot_prove_is_refused_and_no_complaint_follows(
        which: int, at_second_pass: Position) -> None:
    """Row 90: every R the sender does not know the logarithm of — another box's eph
    (with its pok or the sender's), R* + a·G, a card's c1 — is refused naming the sender
    before any peer applies it; seat 2 complains about nothing and reads its hand when
    the true pass comes."""
    game, honest, earlier = at_second_pass
    name, body = list(_forged_bodies(game, honest, earlier))[which]
    _refused(game, body)
    game.send(SENDER, "pass", honest)
    game.run_bots(bots(4, "heuristic"))
    assert game.finished and game.verdict is None, name


def test_a_bad_box_with_a_true_pok_convicts_its_sender_and_the_key_shown_was_its_own(
        at_second_pass: Position) -> None:
    """Row 91: the complaint still convicts a sender whose box does not open — and the K it
    shows is e·Y_r, which the sender could compute itself: the complaint tells it nothing."""
    game, honest, _ = at_second_pass
    game.send(SENDER, "pass", {**honest, "box": _junk_box(honest)})
    victim = game.cores[VICTIM]
    complaint = dict(next(b for k, b in victim.outbox() if k == "complain"))
    seed = game.source.round_seeds(SENDER)(1)
    e = pass_scalar(game.log.game_id, seed, 2, VICTIM)
    cards = game.cores[SENDER].cards
    assert cards is not None
    assert complaint["key"] == group.mul(e, cards.keys[VICTIM])
    game.send(VICTIM, "complain", complaint)
    assert game.verdict is not None and game.verdict.seat == SENDER


def test_a_host_that_orders_a_pass_with_a_false_pok_is_caught_by_every_peer(
        at_second_pass: Position) -> None:
    """Row 92: a host ordering blindly (or forging its own pass) gets the entry refused by
    every other peer's core, naming the sender; nothing is applied."""
    game, honest, earlier = at_second_pass
    bad = {**honest, "eph": earlier.eph, "box": _junk_box(honest)}
    core: SplitoCore = game.cores[VICTIM]
    with pytest.raises(GameError, match=r"seat 0 at pass: S5\.4: its pok"):
        game.send(SENDER, "pass", bad, host_checks=False)
    assert core.bad_box is None  # so it owes no complaint, shows no K
