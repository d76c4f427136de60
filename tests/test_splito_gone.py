"""S5.7: a seat gone for good leaves the rotation (the rules engine, docs/SPLITO.md)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from splitnet.games.splito.engine import Game, Phase, Play
from tests.splito_helpers import new_game, nonce
from tests.test_splito_rules import commit_for, refused

#: each core checks every other seat's hop and verify checks each again: the same proofs,
#: computed in full once per test (tests/conftest.py); these tests are about seats gone,
#: not about the proofs or about which peer checks what
pytestmark = pytest.mark.usefixtures("each_shuffle_proof_checked_once")


def first_plays(g: Game) -> list[Play]:
    return [Play(s, g.hands[s][0], "left") for s in g.playing]


def play_turn(g: Game) -> None:
    plays = first_plays(g)
    g.play_turn(plays, [nonce(g.turn, p.seat) for p in plays])


def test_S5_7_a_seat_that_leaves_sets_its_hand_aside_and_passes_skip_it() -> None:
    g = new_game(4)
    play_turn(g)
    held_by_2 = list(g.hands[2])
    held_by_1 = list(g.hands[1])
    g.abandon(2)
    assert g.gone == {2: 2} and g.aside == held_by_2 and g.hands[2] == []
    assert g.playing == [0, 1, 3] and g.waiting_for() == [0, 1, 3]
    play_turn(g)
    # S5.4 with S5.7: seat 1's hand (less its play) goes to seat 3, past the gone seat
    assert g.hands[3] == held_by_1[1:] and g.hands[2] == []
    # S5.1: as many hands as seats playing, all of one size
    assert sorted(len(g.hands[s]) for s in g.playing) == [11, 11, 11]
    while not g.over:
        play_turn(g)
    assert all(not g.hands[s] for s in range(4))
    assert 2 not in g.winners()  # S5.7 [decision]: a seat that left cannot win
    assert len(g.scores()) == 4  # its score is computed as anyone's


def test_S5_7_a_seat_leaving_last_of_the_commitments_completes_the_turns_commit_phase() -> None:
    g = new_game(3)
    for s in (0, 1):
        card = g.face(g.hands[s][0])
        g.commit(s, commit_for(g, s, card, "left"))
    g.abandon(2)
    assert g.phase is Phase.REVEAL and g.waiting_for() == [0, 1]


def test_S5_7_who_may_leave_and_when() -> None:
    g = new_game(3)
    card = g.face(g.hands[0][0])
    g.commit(0, commit_for(g, 0, card, "left"))
    refused(g, lambda: g.abandon(0), "S5.7", "has committed")
    g.abandon(1)
    refused(g, lambda: g.abandon(1), "S5.7", "already")
    refused(g, lambda: g.abandon(2), "S5.7", "at least two")
    refused(g, lambda: g.commit(1, "0" * 64), "S5.7", "plays no more")
    two = new_game(2)
    refused(two, lambda: two.abandon(1), "S5.7, S8", "2-player")
    g2 = new_game(3)
    for s in range(3):
        c = g2.face(g2.hands[s][0])
        g2.commit(s, commit_for(g2, s, c, "left"))
    refused(g2, lambda: g2.abandon(2), "S5.7", "phase reveal")


def test_S5_7_two_seats_gone_the_game_still_ends_with_every_hand_empty() -> None:
    g = new_game(5)
    g.abandon(4)
    play_turn(g)
    play_turn(g)
    g.abandon(1)
    while not g.over:
        play_turn(g)
    assert g.gone == {4: 1, 1: 3}
    assert all(not h for h in g.hands)
    assert len(g.aside) == 13 + 11
    assert set(g.winners()) <= {0, 2, 3}


def test_S5_7_on_the_fair_deck_a_gone_holders_shares_are_forwarded_by_the_hands_last_holder(
) -> None:
    """The core's pass duty once a seat has left (S5.7): the hand dealt to the gone seat
    goes on, sealed onward by whoever held it last, and S7 holds at every entry."""
    from splitnet.games.splito.core import Stage
    from tests.test_splito_fair import bots, new_game, run_until

    game = new_game(4, seed=4)
    run_until(game, _commit_phase(2))
    game.abandon(1, 30)
    players = bots(4)
    for _ in range(20_000):
        if game.cores[0].stage is Stage.DONE:
            break
        check_knowledge_gone(game)
        if game.pump():
            continue
        seat = game.mover()
        assert seat is not None and seat != 1
        game.play_move(seat, players[seat].choose(game.cores[seat].engine, seat))
    eng = game.cores[0].engine
    assert eng.over and eng.gone == {1: 2}
    forwarded = [b for b in game.cores[0].sealed if b.holder == 1]
    assert forwarded and all(b.frm != 1 for b in forwarded if b.turn >= 2)


# ---------------------------------------------------------------------- the abandon entry
def _silent_from(game: Any, seat: int, at: Callable[[Any], bool]) -> None:
    """Play until ``at``, then ``seat`` goes silent for good (its process is gone)."""
    from tests.test_splito_fair import run_until

    run_until(game, at)
    game.silent.add(seat)


def _commit_phase(turn: int) -> Callable[[Any], bool]:
    from splitnet.games.splito.core import Stage

    def at(g: Any) -> bool:
        e = g.cores[0].engine
        return (g.cores[0].stage is Stage.PLAY and e.turn == turn
                and e.phase is Phase.COMMIT and not any(e.commits))
    return at


def _pass_stage(turn: int) -> Callable[[Any], bool]:
    """The passes after ``turn`` are due; none is in yet."""
    from splitnet.games.splito.core import Stage

    def at(g: Any) -> bool:
        c = g.cores[0]
        return (c.stage is Stage.PASS and c.engine.turn == turn + 1
                and not any(b.turn == turn for b in c.sealed))
    return at


def check_knowledge_gone(game: Any) -> None:
    """S7 at every entry, with seats gone (S5.7): every seat still playing reads exactly
    what check_knowledge allows; a seat that left reads no more than that (it gets
    nothing new); nobody reads a card of a hand set aside that it never held."""
    from tests.test_splito_fair import check_knowledge

    eng = game.cores[0].engine
    if not eng.gone:
        check_knowledge(game)
        return
    public = eng.public_slots()
    for s, core in enumerate(game.cores):
        if core.cards is None:
            continue
        known = core.cards.known_slots()
        may = {j for j in range(eng.dealt) if j in eng.held[s] or j in public}
        assert known <= may, f"seat {s} reads slots {sorted(known - may)} it must not see"
        if s not in eng.gone and game.cores[0].stage.value == "play":
            assert known == may, f"seat {s} cannot read {sorted(may - known)}"
        assert not known & set(eng.set_aside_slots()), "S4.4: a set-aside card is readable"
        assert not known & (set(eng.aside) - eng.held[s]), "S5.7: a set-aside hand is read"


@pytest.mark.parametrize(("n", "seat", "at"), [
    (4, 2, "commit 3"), (5, 1, "commit 1"), (4, 3, "pass 2"), (3, 1, "commit 6")])
def test_S5_7_a_seat_gone_for_good_leaves_and_the_game_ends_verified_with_s7_at_every_entry(
        n: int, seat: int, at: str) -> None:
    """The host's ``abandon`` of a silent seat after the agreed wait, while the turn waits
    for its commitment or for its sealed shares (another seat forwards them): every seat
    applies it, the game plays to its end, the record holds the seat that left and null
    for the cards nobody read, the referee and verify agree, and S7 holds at every entry."""
    from splitnet.game.table import Limits
    from splitnet.games.splito.core import Stage
    from splitnet.games.splito.record import check_record
    from splitnet.verify import verify_records
    from tests.test_splito_fair import bots, new_game

    game = new_game(n, seed=n + seat)
    what, turn = at.split()
    _silent_from(game, seat, (_commit_phase if what == "commit" else _pass_stage)(int(turn)))
    game.run_bots(bots(n), open_hand_after=Limits().open_hand_after_s,
                  on_step=check_knowledge_gone)
    for core in game.cores:
        assert core.stage is Stage.DONE and core.verdict is None
        assert core.engine.gone == {seat: int(turn) + (what == "pass")}
        assert core.record == game.cores[0].record  # every peer writes the same record
    kinds = [e.kind for e in game.log.entries]
    assert kinds.count("abandon") == 1 and "open" not in kinds  # S12.5: nothing opened
    rec = game.cores[0].record
    assert rec is not None and rec["gone"] == [{"seat": seat, "turn": int(turn) + (what == "pass")}]
    assert None in rec["deal"]["set_aside"] and "deck" not in rec["deal"]
    assert seat not in rec["winners"]
    verdict = check_record(rec)
    assert verdict.ok, verdict.faults
    v = verify_records(game.log.records())
    assert v.ok, v.summary
    assert f"p{seat} left the game" in v.summary, v.summary


def test_S5_7_a_seat_whose_own_hand_has_not_left_it_cannot_be_given_up_between_turns() -> None:
    """After turn 1 the hand dealt to a seat is still its own: nobody else holds its
    shares, so the pass it owes cannot be forwarded. The host's abandonment is refused
    (naming the host, changing nothing); the seat, back, passes and the game goes on."""
    from splitnet.game.table import GameError
    from splitnet.verify import verify_records
    from tests.test_splito_fair import bots, new_game

    game = new_game(4, seed=7)
    _silent_from(game, 2, _pass_stage(1))
    while game.pump():
        pass
    assert game.cores[0].waiting_for() == [2]
    before = len(game.log.entries)
    with pytest.raises(GameError, match=r"seat 0 at abandon: a false abandonment: S5\.7: "
                       r"p2 alone holds the shares"):
        game.abandon(2, 600)
    assert len(game.log.entries) == before and not game.cores[1].engine.gone
    game.silent.discard(2)
    game.run_bots(bots(4))
    assert verify_records(game.log.records()).ok


def test_S5_7_every_false_abandonment_is_refused_naming_the_host_and_changes_nothing() -> None:
    """What a host can send instead of an honest ``abandon``: too soon, of a seat the game
    does not wait for (it committed; it is revealing; the host's own), twice, from a
    guest, before the play, with fewer than two seats left, in the 2-player game, or a
    malformed body: each refused with one line naming its author, the log and every core
    unchanged."""
    from splitnet.game.table import GameError
    from tests.test_splito_fair import bots, new_game, reveal_phase, run_until

    def refused(g: Any, author: int, body: dict[str, Any], pattern: str) -> None:
        before = (len(g.log.entries), [dict(c.engine.gone) for c in g.cores])
        with pytest.raises(GameError, match=pattern) as e:
            g.send(author, "abandon", body)
        assert "\n" not in str(e.value) and e.value.seat == author
        assert before == (len(g.log.entries), [dict(c.engine.gone) for c in g.cores])

    game = new_game(4, seed=3)
    refused(game, 0, {"round": 1, "seat": 2, "waited": 60},
            r"S5\.7: a seat leaves only while the game waits for its play \(now: keys\)")
    run_until(game, _commit_phase(2))
    refused(game, 0, {"round": 1, "seat": 2, "waited": 29}, r"less than the 30 s")
    refused(game, 0, {"round": 1, "seat": 0, "waited": 60}, r"the host's own seat")
    refused(game, 1, {"round": 1, "seat": 2, "waited": 60}, r"only the host gives a seat up")
    refused(game, 0, {"round": 1, "seat": 9, "waited": 60}, r"S2\.2: there is no seat 9")
    refused(game, 0, {"round": 1, "seat": 2, "waited": -1}, r"integers ≥ 0")
    refused(game, 0, {"round": 1, "seat": 2, "waited": 60, "x": 1}, r"exactly round, seat")
    refused(game, 0, {"round": 2, "seat": 2, "waited": 60}, r"one deal, round 1")
    body = game.cores[1].move_message(bots(4)[1].choose(game.cores[1].engine, 1))
    game.send(1, "move", body)
    refused(game, 0, {"round": 1, "seat": 1, "waited": 60}, r"does not wait for p1")
    game.send(0, "abandon", {"round": 1, "seat": 3, "waited": 60})
    refused(game, 0, {"round": 1, "seat": 3, "waited": 60}, r"does not wait for p3")
    run_until(game, reveal_phase(2))
    refused(game, 0, {"round": 1, "seat": 2, "waited": 60}, r"phase reveal")
    three = new_game(3, seed=5)
    run_until(three, _commit_phase(1))
    three.send(0, "abandon", {"round": 1, "seat": 2, "waited": 60})
    refused(three, 0, {"round": 1, "seat": 1, "waited": 60}, r"at least two seats keep playing")
    two = new_game(2, seed=2)
    run_until(two, _commit_phase(1))
    refused(two, 0, {"round": 1, "seat": 1, "waited": 60}, r"2-player variant")


def test_S12_5_the_referee_refuses_a_record_that_bends_the_rule_of_a_seat_that_left() -> None:
    """A record of a game a seat left, changed where S12.5 speaks: a seat gone before
    the turn it played in, a seat named twice, a play of the gone seat, a null where a
    played card was, a `gone` in a game nobody left — each one fault line."""
    import copy

    from splitnet.game.table import Limits
    from splitnet.games.splito.record import check_record
    from tests.test_splito_fair import bots, new_game

    game = new_game(4, seed=11)
    _silent_from(game, 2, _commit_phase(3))
    game.run_bots(bots(4), open_hand_after=Limits().open_hand_after_s)
    rec = game.cores[0].record
    assert rec is not None and check_record(rec).ok

    def faults(change: Callable[[dict[str, Any]], object]) -> list[str]:
        r = copy.deepcopy(rec)
        change(r)
        v = check_record(r)
        assert not v.ok
        return v.faults

    assert any("expected exactly one play per seat still playing" in f
               for f in faults(lambda r: r["gone"][0].update(turn=2)))
    assert any("named twice" in f for f in faults(lambda r: r["gone"].append(r["gone"][0])))
    assert any("non-empty list" in f for f in faults(lambda r: r.update(gone=[])))
    assert any("expected a list of card ids (S1.3)" in f
               for f in faults(lambda r: r.pop("gone")))

    def null_played(r: dict[str, Any]) -> None:
        first = r["turns"][0]["plays"][0]["card"]
        r["deal"]["hands"] = [[None if c == first else c for c in h] for h in r["deal"]["hands"]]
    assert any("not a card of the deck" in f for f in faults(null_played))


def test_S12_5_verify_and_replay_of_a_game_a_seat_left_say_who_left_and_show_no_card_unread(
        tmp_path: Any) -> None:
    """`splitnet verify` and `splitnet replay` of a transcript whose game a seat left:
    verify passes and says who left and that nothing was opened; the replay steps through
    it, shows the departure at its turn, `?` for a card nobody read, and the leaver's
    score marked (it cannot win)."""
    import subprocess
    import sys

    from splitnet.game.table import Limits
    from splitnet.session.transcript import TranscriptWriter
    from tests.test_splito_fair import bots, new_game

    game = new_game(4, seed=11)
    _silent_from(game, 2, _commit_phase(3))
    game.run_bots(bots(4), open_hand_after=Limits().open_hand_after_s)
    path = tmp_path / "left.splitlog"
    w = TranscriptWriter(path)
    for rec in game.log.records():
        w.append(rec)
    w.close()
    cli = [sys.executable, "-m", "splitnet.cli"]
    r = subprocess.run([*cli, "verify", str(path)], capture_output=True, text=True,
                       timeout=120, check=False)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "turn 3: p2 left the game, given up by the host after 30 s" in r.stdout
    assert "not opened (S12.5)" in r.stdout
    r = subprocess.run([*cli, "replay", "--all", str(path)], capture_output=True, text=True,
                       timeout=120, check=False)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "p2 left the game before its play (S5.7)" in r.stdout
    assert "left at turn 3, cannot win (S5.7)" in r.stdout
    assert "Traceback" not in r.stderr


def test_S5_7_a_saved_game_a_seat_left_says_how_far_it_got() -> None:
    """The saved-games list's "turn t of 13" counts a turn done when every seat still
    playing revealed (S5.7), not every seat of the table."""
    from splitnet.game.table import Limits
    from splitnet.games.splito import SPLITO
    from tests.test_splito_fair import bots, new_game, run_until

    game = new_game(4, seed=12)
    _silent_from(game, 3, _commit_phase(2))
    while game.pump():
        pass
    game.abandon(3, Limits().open_hand_after_s)
    run_until(game, _commit_phase(5))
    settings = game.log.header.settings
    assert SPLITO.progress(settings, game.log.entries, 4) == "turn 5 of 13"
    game.run_bots(bots(4))
    assert SPLITO.progress(settings, game.log.entries, 4) == "all 13 turns played"
