"""Attacks on S5.7 on the fair deck (a Splito seat gone for good, SPLITO_GAME.md §4
``abandon``, §6, SECURITY.md rows 86, 121-123), through the real code path: the cores
of :class:`~splitnet.games.split.local.LocalGame`, the signed log, ``verify`` and the referee.
Each test makes the attack and asserts the property that must hold."""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from splitnet.game.table import PROTOCOL, GameError, Limits, PledgeBook
from splitnet.games.split.local import LocalGame, SelfplaySecrets
from splitnet.games.splito.cards import NUMBER_CARDS
from splitnet.games.splito.core import SplitoCore, Stage, splito_header
from splitnet.games.splito.engine import Phase
from splitnet.games.splito.objectives import default_objective_set
from splitnet.games.splito.record import check_record
from splitnet.games.splito.settings import SplitoSettings
from splitnet.verify import verify_records
from tests.forks import handed_out, shuffle_proofs_checked_once
from tests.test_splito_fair import bots, new_game, reveal_phase, run_until
from tests.test_splito_gone import (
    _commit_phase,
    _pass_stage,
    _silent_from,
    check_knowledge_gone,
)

#: every peer checks every other seat's hop and verify checks each again: the same
#: proofs, checked in full once per test (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("each_shuffle_proof_checked_once")


Game = LocalGame[SplitoCore]
WAIT = Limits().open_hand_after_s


def _send_one(game: Game, seat: int, kind: str, keep: Callable[[dict[str, Any]], bool]
              ) -> dict[str, Any]:
    """``seat`` sends the one message of ``kind`` it owes that ``keep`` picks; whatever
    else it owes now stays owed (not sent)."""
    core = game.cores[seat]
    body = next(b for k, b in core.outbox() if k == kind and keep(b))
    core.forget_unlogged()
    game.send(seat, kind, body)
    return body


def _finish(game: Game, check: Callable[[Game], None] | None = None) -> None:
    game.run_bots(bots(game.n), open_hand_after=WAIT, on_step=check)


def _verified(game: Game) -> str:
    v = verify_records(game.log.records())
    assert v.ok, v.summary
    assert v.record == game.cores[0].record
    assert all(c.record == v.record for c in game.cores)
    rec = v.record
    assert rec is not None and check_record(rec).ok, check_record(rec).faults
    return v.summary


# ---------------------------------------------------------------------- a gone seat signs
def _gone_seat_reveal(game: Game, seat: int) -> tuple[int, dict[str, Any]]:
    """A reveal ``seat`` can sign of the hand it holds (and is about to leave with): a
    card it reads, with the dealt holder's true share of it (proof and all)."""
    core = game.cores[seat]
    eng = core.engine
    slot = eng.hands[seat][0]
    share = core._holder_share(slot)
    return slot, {"round": 1, "turn": eng.turn, "slot": slot, "card": eng.face(slot),
                  "side": "left", "nonce": "0" * 32, "share": share}


def _revealing_with_a_gone_seats_reveal() -> tuple[Game, int, dict[str, Any]]:
    """A 4-seat game in turn 2's reveals, seat 2 given up before its commitment, and the
    reveal seat 2 could sign of a card of the hand set aside with it: (game, slot, body)."""
    game = new_game(4, seed=3)
    run_until(game, _commit_phase(2))
    slot, body = _gone_seat_reveal(game, 2)
    game.silent.add(2)
    game.abandon(2, WAIT)
    run_until(game, reveal_phase(2))
    return game, slot, body


GoneReveal = tuple[Game, int, dict[str, Any]]
Proven = frozenset[tuple[Any, ...]]


@pytest.fixture(scope="module")
def _gone_reveal_once() -> tuple[GoneReveal, Proven]:
    """Played once for the two tests that start there: each gets a copy, and the shuffle
    proofs its peers checked on the way, so the test's verify does not compute them
    again (tests/forks.py)."""
    with shuffle_proofs_checked_once() as proven:
        return _revealing_with_a_gone_seats_reveal(), frozenset(proven)


@pytest.fixture
def gone_reveal(_gone_reveal_once: tuple[GoneReveal, Proven],
                each_shuffle_proof_checked_once: set[tuple[Any, ...]]) -> Iterator[GoneReveal]:
    state, proven = _gone_reveal_once
    each_shuffle_proof_checked_once.update(proven)
    yield from handed_out(state[0], state)


def _seat_1_gone_in_turn_2() -> Game:
    """A 5-seat game (seed 21) where seat 1 has just been given up in turn 2's
    commitments."""
    game = new_game(5, seed=21)
    run_until(game, _commit_phase(2))
    game.silent.add(1)
    game.abandon(1, WAIT)
    return game


@pytest.fixture(scope="module")
def _seat_1_gone_once() -> tuple[Game, Proven]:
    """Played once for the three tests that start there, as :func:`_gone_reveal_once`."""
    with shuffle_proofs_checked_once() as proven:
        return _seat_1_gone_in_turn_2(), frozenset(proven)


@pytest.fixture
def seat_1_gone(_seat_1_gone_once: tuple[Game, Proven],
                each_shuffle_proof_checked_once: set[tuple[Any, ...]]) -> Iterator[Game]:
    game, proven = _seat_1_gone_once
    each_shuffle_proof_checked_once.update(proven)
    yield from handed_out(game, game)


def test_a_seat_that_left_cannot_reveal_a_card_of_its_set_aside_hand(
        gone_reveal: GoneReveal) -> None:
    """S5.7 (1): once gone "no reveal of it is taken". A seat given up (its process back,
    or never gone) signs a reveal of a card of the hand set aside with it, while the
    others' plays are being revealed. It must be refused like its commitment, changing
    nothing: not applied as a verdict that stops everyone's game (a veto on the whole game
    after seeing the others' reveals), and no card of the set-aside hand made public."""
    game, slot, body = gone_reveal
    never_held = [s for s in range(4) if slot not in game.cores[0].engine.held[s]]
    assert never_held
    before = len(game.log.entries)
    with pytest.raises(GameError, match=r"seat 2 at reveal: S5\.7: seat 2 left at turn 2"):
        game.send(2, "reveal", body)  # an honest host's own core refuses it
    assert len(game.log.entries) == before
    for core in game.cores:
        assert core.verdict is None and core.stage is Stage.PLAY
        assert core.engine.phase is Phase.REVEAL
    for s in never_held:
        cards = game.cores[s].cards
        assert cards is not None and slot not in cards.known_slots()
    _finish(game, check_knowledge_gone)
    assert game.cores[0].engine.gone == {2: 2}
    _verified(game)


def test_a_gone_seats_reveal_ordered_by_a_host_fails_verify_naming_that_seat(
        gone_reveal: GoneReveal) -> None:
    """The same reveal ordered by a host that checks nothing: every peer refuses it (one
    line naming its signer, S5.7), no peer reads the card, and ``verify`` fails there."""
    game, slot, body = gone_reveal
    for s in (1, 3):  # (the first peer's refusal stops the relay here: check each alone)
        core = game.cores[s]
        with pytest.raises(GameError, match=r"seat 2 at reveal: S5\.7"):
            core.apply(2, "reveal", body)
        assert core.verdict is None and core.cards is not None
        if slot not in core.engine.held[s]:
            assert slot not in core.cards.known_slots()
    with pytest.raises(GameError, match=r"S5\.7"):
        game.send(2, "reveal", body, host_checks=False)
    v = verify_records(game.log.records())
    assert not v.ok and not v.incomplete and "(seat 2)" in v.summary and "S5.7" in v.summary


def test_a_seat_that_left_sends_nothing_and_its_move_or_pass_is_refused() -> None:
    """A gone seat's core owes nothing and may not choose a play; a move or a pass signed
    by it is refused naming it, the log and every core unchanged."""
    game = new_game(5, seed=5)
    run_until(game, _commit_phase(2))
    game.silent.add(1)
    game.abandon(1, WAIT)
    gone = game.cores[1]
    assert gone.outbox() == [] and not gone.can_move()
    start = before = len(game.log.entries)
    with pytest.raises(GameError, match=r"seat 1 at move: S5\.7: seat 1 left at turn 2"):
        game.send(1, "move", {"round": 1, "turn": 2, "commit": "0" * 64})
    assert len(game.log.entries) == before
    run_until(game, _pass_stage(2))
    before = len(game.log.entries)
    with pytest.raises(GameError, match=r"seat 1 at pass: S5\.4: no pass from seat 1"):
        game.send(1, "pass", {"round": 1, "turn": 2, "to": 2, "eph": b"", "pok": b"",
                              "box": b""})
    assert len(game.log.entries) == before
    assert all(e.author != 1 for e in game.log.entries[start:])
    _finish(game)
    _verified(game)


# ---------------------------------------------------------------------- between turns
def test_two_seats_gone_in_a_row_the_second_the_forwarder_of_the_firsts_hand(
        seat_1_gone: Game) -> None:
    """Seat 1 leaves in turn 2; after turn 2 the hand dealt to it is forwarded by seat 2,
    its last holder. The host gives seat 2 up before that pass: refused (nobody else holds
    seat 1's shares of that hand), nothing changes. Once seat 2 has forwarded it, seat 2
    may leave while it still owes the pass of its own hand (seat 3, its last holder,
    forwards it). S7 holds at every entry, the seats that left read nothing new, and the
    game ends verified."""
    game = seat_1_gone
    run_until(game, _pass_stage(2))
    core = game.cores[0]
    assert core._pass_holder[(2, 3)] == 1  # seat 1's hand, forwarded by seat 2
    before = (len(game.log.entries), [dict(c.engine.gone) for c in game.cores])
    with pytest.raises(GameError, match=r"seat 0 at abandon: a false abandonment: S5\.7: "
                       r"p2 alone holds the shares"):
        game.abandon(2, WAIT)
    assert before == (len(game.log.entries), [dict(c.engine.gone) for c in game.cores])
    _send_one(game, 2, "pass", lambda b: b["to"] == 3)
    known = {s: set(c.cards.known_slots()) for s, c in enumerate(game.cores)
             if c.cards is not None}
    game.silent.add(2)
    game.abandon(2, WAIT)
    assert all(c.engine.gone == {1: 2, 2: 3} for c in game.cores)
    assert game.cores[0]._pass_holder.get((3, 4)) == 2  # seat 2's own hand, from seat 3

    def check(g: Game) -> None:
        check_knowledge_gone(g)
        eng = g.cores[0].engine
        public = eng.public_slots()
        for s in (1, 2):
            cards = g.cores[s].cards
            assert cards is not None and cards.known_slots() <= known[s] | public

    _finish(game, check)
    assert game.cores[0].engine.gone == {1: 2, 2: 3}
    assert "open" not in [e.kind for e in game.log.entries]
    _verified(game)


def test_after_a_pass_already_in_the_leaver_gets_no_second_box_and_nobody_a_stale_one() -> None:
    """The host gives a seat up between turns after some passes are in, among them the
    one to that seat: the passes recomputed keep those in, want none more to the leaver
    and none twice to anyone; a box to the leaver sent again is refused; S7 holds."""
    game = new_game(5, seed=9)
    run_until(game, _pass_stage(2))
    core = game.cores[0]
    due = sorted(core.passes_due)
    to_3 = next(k for k in due if k[1] == 3)
    sent = _send_one(game, to_3[0], "pass", lambda b: b["to"] == 3)  # 3 reads its hand
    assert 3 in core.waiting_for()
    game.silent.add(3)
    game.abandon(3, WAIT)
    after = game.cores[0].passes_due
    assert all(to != 3 for _, to in after) and all(frm != 3 for frm, _ in after)
    receivers = [to for _, to in after]
    assert len(receivers) == len(set(receivers))
    before = len(game.log.entries)
    with pytest.raises(GameError, match=rf"seat {to_3[0]} at pass: S5\.4: no pass from "
                       rf"seat {to_3[0]} to 3"):
        game.send(to_3[0], "pass", sent)  # the same box again
    assert len(game.log.entries) == before
    _finish(game, check_knowledge_gone)
    assert game.cores[0].engine.gone == {3: 3}
    _verified(game)


def test_a_forwarder_that_seals_wrong_shares_is_convicted_not_the_seat_that_left(
        seat_1_gone: Game) -> None:
    """The hand of a seat that left is forwarded by its last holder. If that one seals
    wrong shares, the receiver's complaint convicts the forwarder (it sealed the box) —
    never the seat that left, whose shares were true."""
    game = seat_1_gone
    run_until(game, _pass_stage(2))
    core2 = game.cores[2]
    body = dict(next(b for k, b in core2.outbox() if k == "pass" and b["to"] == 3))
    core2.forget_unlogged()
    box = bytearray(body["box"])
    box[3] ^= 1
    game.send(2, "pass", {**body, "box": bytes(box)})
    assert game.cores[3].bad_box is not None
    with pytest.raises(GameError, match=r"seat 2 at pass: S5\.4: its shares sealed to seat 3"):
        _finish(game)
    assert game.verdict is not None and game.verdict.seat == 2
    v = verify_records(game.log.records())
    assert not v.ok and "(seat 2)" in v.summary


def test_after_an_abandonment_every_seat_recognises_its_own_messages_and_no_forged_one(
        seat_1_gone: Game) -> None:
    """made_by_us with seats gone: every message a seat still playing makes — a forwarded
    pass included — is its own; the same with another box is not (a host cannot make an
    honest seat look like it forged a pass, nor slip one in its name)."""
    game = seat_1_gone
    forwarded = 0

    def check(g: Game) -> None:
        nonlocal forwarded
        for s, core in enumerate(g.cores):
            if s in g.silent:
                continue
            for kind, body in core.outbox():
                assert core.made_by_us(kind, body)
                if kind == "pass":
                    other = {**body, "box": bytes(len(body["box"]))}
                    assert not core.made_by_us(kind, other)
                    forwarded += (s, body["to"]) in core._pass_holder and \
                        core._pass_holder[(s, body["to"])] == 1
            core.forget_unlogged()

    _finish(game, check)
    assert forwarded >= 1
    _verified(game)


# ---------------------------------------------------------------------- the record
def _gone_record() -> dict[str, Any]:
    game = new_game(4, seed=11)
    _silent_from(game, 2, _commit_phase(3))
    _finish(game)
    rec = game.cores[0].record
    assert rec is not None and check_record(rec).ok
    return rec


def test_the_referee_refuses_a_card_shown_where_a_game_a_seat_left_has_null() -> None:
    """S12.5: a game a seat left is not opened, so every card never played is null in its
    record. A record that names a card there (a set-aside card, or a never-played card
    of a hand, given a face nobody could read) is refused — one fault line."""
    rec = _gone_record()
    deal = rec["deal"]
    every = [*deal["central"], *(c for h in deal["hands"] for c in h), *deal["set_aside"]]
    full = [*NUMBER_CARDS, *default_objective_set().ids]
    missing = sorted((Counter(full) - Counter(c for c in every if c is not None)).elements())

    def faults(change: Callable[[dict[str, Any]], object]) -> list[str]:
        r = copy.deepcopy(rec)
        change(r)
        v = check_record(r)
        assert not v.ok, "the referee accepted a card nobody read"
        return v.faults

    def aside(r: dict[str, Any]) -> None:
        r["deal"]["set_aside"][r["deal"]["set_aside"].index(None)] = missing[0]

    def in_hand(r: dict[str, Any]) -> None:
        hand = next(h for h in r["deal"]["hands"] if None in h)
        hand[hand.index(None)] = missing[1]
        for t in r["turns"]:  # the optional hands, kept consistent with the deal
            t.pop("hands", None)

    for change in (aside, in_hand):
        assert any("S12.5" in f and "null" in f for f in faults(change))


def test_the_referee_refuses_a_gone_list_out_of_the_order_the_seats_left() -> None:
    """S12.5: ``gone`` lists the seats in the order they left; the same departures
    listed the other way round are refused (one record per game, one form)."""
    game = new_game(5, seed=8)
    _silent_from(game, 4, _commit_phase(2))
    game.abandon(4, WAIT)
    _silent_from(game, 1, _commit_phase(3))
    _finish(game)
    rec = game.cores[0].record
    assert rec is not None and rec["gone"] == [{"seat": 4, "turn": 2}, {"seat": 1, "turn": 3}]
    assert check_record(rec).ok
    r = copy.deepcopy(rec)
    r["gone"].reverse()
    v = check_record(r)
    assert not v.ok and any("not in the order the seats left" in f for f in v.faults)


def test_the_referee_still_accepts_the_true_record_and_refuses_nulls_in_a_full_game() -> None:
    """The other side of the null rule: the record a game a seat left writes passes; a
    null in a game nobody left is refused."""
    rec = _gone_record()
    assert check_record(rec).ok
    game = new_game(3, seed=2)
    game.run_bots(bots(3))
    full = game.cores[0].record
    assert full is not None and "gone" not in full
    r = copy.deepcopy(full)
    r["deal"]["set_aside"][0] = None
    assert not check_record(r).ok


# ---------------------------------------------------------------------- names shown
def test_a_name_with_a_control_character_never_reaches_verifys_line_on_who_left() -> None:
    """verify's new line names the seat that left: the names are the header's, and a
    header with a control character (an escape sequence, a bell, a bidi override) in a
    name is refused before any game message; the lines show names through ``shown``."""
    from splitnet.session.codec import SchemaError

    settings = SplitoSettings.standard(4)
    for bad in ("a\x1b[2Jb", "c\rd\x07", "e\u202ef"):
        names = ["host", bad, "c", "d"]

        def make(gid: bytes, seat: int, seeds: Callable[[int], bytes], pledges: PledgeBook,
                 keys: list[bytes], names: list[str] = names) -> SplitoCore:
            return SplitoCore(gid, names, settings, seat, seeds, pledges=pledges)

        with pytest.raises(SchemaError, match=r"control character"):
            LocalGame(names, settings, SelfplaySecrets(4), make_core=make,
                      header=splito_header(settings, PROTOCOL))
    game = new_game(4, seed=4)
    _silent_from(game, 1, _commit_phase(2))
    _finish(game)
    summary = _verified(game)
    assert "turn 2: p1 left the game, given up by the host after 30 s" in summary
    assert all(line.isprintable() for line in summary.split("\n"))


# ---------------------------------------------------------------------- residual
@pytest.mark.xfail(strict=True, reason="S12.5: a game a seat left opens no seed, so a box "
                   "never complained about is never audited (SPLITO_GAME.md §8); a wrong "
                   "box sealed to a seat that then leaves goes unconvicted")
def test_a_wrong_box_sealed_to_a_seat_that_is_then_given_up_is_still_caught() -> None:
    """In a game nobody left, the audit convicts the sender of a wrong box its receiver
    did not complain about (test_splito_fair). Here the receiver goes silent instead of
    complaining and is given up: the sender should still be named somewhere."""
    game = new_game(4, seed=6)
    run_until(game, _pass_stage(2))
    body = dict(next(b for k, b in game.cores[0].outbox() if k == "pass"))
    game.cores[0].forget_unlogged()
    to = body["to"]
    game.silent.add(to)  # the receiver is gone before it can complain
    box = bytearray(body["box"])
    box[0] ^= 1
    game.send(0, "pass", {**body, "box": bytes(box)})
    assert game.cores[to].bad_box is not None
    _finish(game)
    assert to in game.cores[0].engine.gone
    v = verify_records(game.log.records())
    assert not v.ok and "(seat 0)" in v.summary


def test_a_leavers_old_or_held_messages_are_never_applied_after_it_left() -> None:
    """The host holds what the leaver sent before it was given up, or orders its logged
    messages again: a commitment or pass already in the log cannot be ordered twice
    (its counter is used: the log refuses the replay), and a pass it signed but the host
    held, ordered after the abandonment, is refused (no longer due) before any peer
    opens its box; every core unchanged, the game ends verified."""
    from splitnet.session.log import LogError

    game = new_game(5, seed=21)
    run_until(game, _pass_stage(2))
    core3 = game.cores[3]
    held = next(b for k, b in core3.outbox() if k == "pass")  # signed, never ordered
    core3.forget_unlogged()
    old = [e for e in game.log.entries if e.author == 3 and e.kind in ("move", "pass")]
    assert {e.kind for e in old} == {"move", "pass"}
    game.silent.add(3)
    game.abandon(3, WAIT)
    assert game.cores[0].engine.gone == {3: 3}
    state = [(len(c.sealed), sorted(c.passes_due), c.cards.known_slots() if c.cards else None)
             for c in game.cores]
    for e in old:
        with pytest.raises(LogError, match=r"replay|counter"):
            game.log.order(e.msg_bytes, e.sig, game.host)
    with pytest.raises(GameError, match=r"seat 3 at pass: S5\.4: no pass from seat 3"):
        game.send(3, "pass", held)
    assert state == [(len(c.sealed), sorted(c.passes_due),
                      c.cards.known_slots() if c.cards else None) for c in game.cores]
    _finish(game, check_knowledge_gone)
    _verified(game)
