"""The fair-deck game among separate in-memory peers: knowledge (R8), cheats caught where
they happen with the right seat named, honest peers unchanged, transcripts verified."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from splitnet.game.table import GameError
from splitnet.games.split.bots import make_bot
from splitnet.games.split.core import GameCore
from splitnet.games.split.local import LocalGame, SelfplaySecrets
from splitnet.games.split.rules import Discard, DrawPile, Lay, Settings, action_to_dict
from splitnet.session.transcript import read_transcript
from splitnet.verify import verify_records

#: every peer checks every other seat's hop and verify checks each again: the same
#: proofs, computed in full once per test (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("each_shuffle_proof_checked_once")


def new_game(n: int, seed: int = 1, proofs: bool = False, transcript: Path | None = None,
             hand_size: int = 9, rounds: int = Settings().rounds) -> LocalGame:
    return LocalGame([f"p{i}" for i in range(n)], Settings(hand_size=hand_size, rounds=rounds),
                     SelfplaySecrets(seed), shuffle_proofs=proofs, transcript=transcript)


def state(core: GameCore) -> Any:
    r = core.round
    deck = r.deck if r else None
    return copy.deepcopy((
        core.engine.__dict__, core.finished, len(core.rounds),
        None if r is None else (r.stage, r.committed, r.dealt_by, r.deal_buffer, r.draw,
                                r.opened, r.actions, r.public),
        None if deck is None else (deck._shares, deck._cards, deck._opened, len(deck._decks),
                                   deck._commits),
    ))


def send_one(g: LocalGame) -> bool:
    """Send the first protocol message any seat owes (one at a time)."""
    for seat, core in enumerate(g.cores):
        for kind, body in core.outbox():
            g.send(seat, kind, body)
            return True
    return False


def until(g: LocalGame, stage: str, bots: list[Any] | None = None) -> None:
    """Advance honestly, one message at a time, until the round reaches ``stage``."""
    bots = bots or [make_bot("random", i) for i in range(g.n)]
    for _ in range(100_000):
        r = g.cores[0].round
        if r is not None and r.stage == stage:
            return
        if send_one(g):
            continue
        seat = g.mover()
        assert seat is not None
        g.play_move(seat, bots[seat].choose(g.cores[seat].engine, seat))
    raise AssertionError("stage never reached")


def expect_refused(g: LocalGame, seat: int, kind: str, body: dict[str, Any], step: str,
                   at_fault: int, *, host_checks: bool = False) -> GameError:
    """Send a bad message with a blind host: every honest peer refuses it, unchanged."""
    before = [state(c) for c in g.cores]
    errors = []
    for i, core in enumerate(g.cores):
        if i == seat:
            continue
        try:
            core.apply(seat, kind, copy.deepcopy(body))
        except GameError as e:
            errors.append(e)
        else:
            raise AssertionError(f"peer {i} accepted a bad {kind}")
        assert state(core) == before[i], f"peer {i} changed while refusing"
    assert all(e.seat == at_fault for e in errors), [str(e) for e in errors]
    assert all(e.step == step for e in errors), [e.step for e in errors]
    if host_checks:
        with pytest.raises(GameError):
            g.send(seat, kind, body)
    return errors[0]


# ------------------------------------------------------------------ whole games
@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_R8_each_peer_reads_exactly_public_cards_and_its_own(n: int) -> None:
    """Knowledge test: until a round is opened, each peer can decrypt exactly the public
    reveals plus the cards dealt to or drawn by it — nothing of other hands or the pile.
    Two rounds: the second is dealt after the first was opened, as every later one is."""
    g = new_game(n, seed=n, hand_size=9 if n < 6 else 5, rounds=2)
    held: list[set[int]] = [set() for _ in range(n)]
    checks = [0]

    def check(author: int, kind: str, body: dict[str, Any]) -> None:
        if kind not in ("move", "reveal", "shares"):
            return
        for s, core in enumerate(g.cores):
            r = core.round
            if r is None or r.stage not in ("play", "open") or r.opened:
                for h in held:
                    h.clear()
                continue
            held[s] |= set(core.engine.hands[s])
            known = r.deck.known_slots()
            expected = r.public | held[s]
            if r.draw is not None and r.draw[0] == s:
                expected = expected - {r.draw[1]}  # its draw shares are still coming
            assert known == expected, f"peer {s}: {known ^ expected}"
            checks[0] += 1

    g.listeners.append(check)
    g.run_bots([make_bot("random", i) for i in range(n)])
    assert checks[0] > 100
    assert verify_records(g.log.records()).ok


def test_transcript_verifies_with_proofs_and_any_changed_byte_fails(tmp_path: Path) -> None:
    path = tmp_path / "g.splitlog"
    g = new_game(2, seed=3, proofs=True, transcript=path, hand_size=5)
    g.run_bots([make_bot("heuristic", 0), make_bot("random", 1)])
    g.close()
    records = read_transcript(path)
    v = verify_records(records)
    assert v.ok, v.summary
    assert "shuffle fair: yes" in v.summary
    assert v.record == g.cores[0].record == g.cores[1].record
    raw = path.read_bytes()
    for pos in (20, len(raw) // 3, len(raw) // 2, len(raw) - 5):
        bad = bytearray(raw)
        bad[pos] ^= 0x01
        p2 = tmp_path / "bad.splitlog"
        p2.write_bytes(bytes(bad))
        try:
            res = verify_records(read_transcript(p2))
        except ValueError:
            continue  # the file layer already refuses it
        assert not res.ok
    # Dropping, reordering or inserting an entry fails too.
    assert not verify_records(records[:5] + records[6:]).ok
    assert not verify_records(records[:5] + [records[6], records[5]] + records[7:]).ok
    assert not verify_records(records[:5] + [records[4]] + records[5:]).ok
    # A transcript that stops early is reported as incomplete, not as fair.
    v = verify_records(records[: len(records) // 2])
    assert not v.ok and "incomplete" in v.summary


def test_same_seed_gives_byte_identical_transcripts(tmp_path: Path) -> None:
    out = []
    for name in ("a", "b"):
        p = tmp_path / f"{name}.splitlog"
        g = new_game(2, seed=9, transcript=p, hand_size=4)
        g.run_bots([make_bot("random", 0), make_bot("random", 1)])
        g.close()
        out.append(p.read_bytes())
    assert out[0] == out[1]


# ------------------------------------------------------------------ cheats
def test_out_of_turn_move_is_refused_naming_the_seat() -> None:
    g = new_game(3)
    until(g, "play")
    actor = g.cores[0].engine.actor
    other = (actor + 1) % 3
    body = {"round": 1, "move": action_to_dict(DrawPile(other))}
    e = expect_refused(g, other, "move", body, "move", other, host_checks=True)
    assert "out of turn" in e.reason


def test_illegal_move_is_refused_with_its_rule() -> None:
    g = new_game(3)
    until(g, "play")
    actor = g.cores[0].engine.actor
    assert actor is not None
    slot = g.cores[actor].engine.hands[actor][0]
    body = g.cores[actor].move_message(DrawPile(actor))
    body["move"] = action_to_dict(Discard(actor, slot))  # discard before drawing
    e = expect_refused(g, actor, "move", body, "move", actor, host_checks=True)
    assert "R4.3" in e.reason or "R4.1" in e.reason


def test_claiming_a_card_one_does_not_hold_is_refused() -> None:
    g = new_game(3)
    until(g, "play")
    actor = g.cores[0].engine.actor
    assert actor is not None
    g.play_move(actor, DrawPile(actor))
    g.pump()
    other = (actor + 1) % 3
    a, b = g.cores[other].engine.hands[other][:2]
    body = {"round": 1, "move": action_to_dict(Lay(actor, a, b))}
    e = expect_refused(g, actor, "move", body, "move", actor)
    assert "does not hold" in e.reason


def test_a_v1_move_carrying_its_reveal_shares_is_refused() -> None:
    """splitnet/1 sent the mover's shares with the move (the host could read the cards
    and refuse it); a move now carries none, and one that does is refused (R8.1)."""
    g = new_game(3)
    until(g, "play")
    actor = g.cores[0].engine.actor
    assert actor is not None
    g.play_move(actor, DrawPile(actor))
    g.pump()
    core = g.cores[actor]
    slot = core.engine.hands[actor][0]
    body = core.move_message(Discard(actor, slot))
    assert set(body) == {"round", "move"}
    body["reveal"] = core.round.deck.shares_message([slot], "reveal")  # type: ignore
    e = expect_refused(g, actor, "move", body, "move", actor, host_checks=True)
    assert "carries no shares" in e.reason


def test_a_wrong_reveal_share_is_caught_by_every_peer() -> None:
    g = new_game(3)
    until(g, "play")
    actor = g.cores[0].engine.actor
    assert actor is not None
    g.play_move(actor, DrawPile(actor))
    g.pump()
    core = g.cores[actor]
    slot = next(s for s in core.engine.hands[actor] if s < 27)
    g.play_move(actor, Discard(actor, slot))  # ordered; its reveal is due now
    (kind, body), = core.outbox()
    assert kind == "reveal" and body["slots"] == [slot]
    other_share = g.cores[(actor + 1) % 3].round.deck._own_share(slot)  # type: ignore
    body["shares"] = [other_share]
    e = expect_refused(g, actor, "reveal", body, "shares", actor)
    assert "proof" in e.reason


def test_deal_shares_for_the_wrong_slots_are_refused() -> None:
    g = new_game(2)
    until(g, "deal")
    core = g.cores[1]
    slots = list(range(9))  # includes seat 1's own slots: would let seat 0 read them?
    body = {"round": 1, "purpose": "deal",
            **core.round.deck.shares_message(slots, "deal")}  # type: ignore[union-attr]
    expect_refused(g, 1, "shares", body, "shares", 1)


def test_message_for_another_round_is_refused() -> None:
    g = new_game(2)
    body = {"round": 2, **g.cores[1].round.deck.commit_message()}  # type: ignore[union-attr]
    e = expect_refused(g, 1, "commit", body, "commit", 1)
    assert "round 2" in e.reason


def test_rogue_key_without_proof_of_knowledge_is_refused() -> None:
    g = new_game(2)
    body = {"round": 1, **g.cores[1].round.deck.commit_message()}  # type: ignore[union-attr]
    body["pok"] = bytes(64)
    expect_refused(g, 1, "commit", body, "commit", 1)


def test_a_planted_card_is_caught_at_the_hop_with_proofs() -> None:
    g = new_game(2, proofs=True, hand_size=4)
    until(g, "shuffle")
    send_one(g)  # seat 0 shuffles
    r = g.cores[1].round
    assert r is not None and r.stage == "shuffle"
    body = {"round": 1, **r.deck.shuffle_message()}
    deck = [list(ct) for ct in body["deck"]]
    deck[0], deck[1] = deck[1], deck[0]  # swap after proving: no longer what was proved
    body["deck"] = deck
    expect_refused(g, 1, "shuffle", body, "shuffle", 1)


def test_a_cheating_shuffle_without_proofs_is_caught_at_the_opening() -> None:
    g = new_game(2, proofs=False, hand_size=4)
    until(g, "shuffle")
    send_one(g)  # seat 0's hop
    r1 = g.cores[1].round
    assert r1 is not None
    honest = r1.deck.shuffle_message()
    # seat 1 replaces its hop by a re-randomised copy of seat 0's output, duplicating a
    # card: undetectable until the seeds are opened.
    bad = {"round": 1, "deck": [list(ct) for ct in honest["deck"]], "proof": None}
    bad["deck"][1] = bad["deck"][0]
    g.send(1, "shuffle", bad, host_checks=False)
    with pytest.raises(GameError) as info:
        g.run_bots([make_bot("random", 0), make_bot("random", 1)])
    # The duplicate shows when a card is read; play stops, every seat opens its seed at
    # once, and the opening of seat 1 does not reproduce its hop.
    assert info.value.seat == 1 and info.value.step == "open", str(info.value)
    assert g.cores[0].round is not None and g.cores[0].round.aborted
    assert g.log.entries[-1].kind in ("alarm", "open")


def test_a_wrong_seed_opening_names_the_seat() -> None:
    g = new_game(2, hand_size=3)
    until(g, "open")
    body = {"round": 1, "seed": bytes(32)}
    e = expect_refused(g, 1, "open", body, "open", 1)
    assert "commitment" in e.reason


def test_a_duplicate_commit_is_refused() -> None:
    g = new_game(2)
    until(g, "shuffle")
    body = {"round": 1, **g.cores[1].round.deck.commit_message()}  # type: ignore[union-attr]
    expect_refused(g, 1, "commit", body, "commit", 1)


def test_a_false_alarm_names_the_seat_that_raised_it() -> None:
    g = new_game(2, hand_size=4)
    until(g, "play")
    g.send(1, "alarm", {"round": 1, "reason": "I do not like my cards"})
    assert all(c.round is not None and c.round.stage == "open" for c in g.cores)
    with pytest.raises(GameError) as info:
        g.run_bots([make_bot("random", 0), make_bot("random", 1)])
    assert info.value.seat == 1 and "false alarm" in info.value.reason


def test_a_wrong_deal_share_is_caught_when_the_deal_completes_naming_its_sender() -> None:
    """The deal's proofs are checked together (one combination) when the last seat's
    shares arrive; a bad one still names its own sender, not the last one, whose valid
    entry is ordered and stops the game with that verdict on every peer."""
    g = new_game(3)
    until(g, "deal")
    bad_seat = 1
    core = g.cores[bad_seat]
    body = {"round": 1, "purpose": "deal",
            **core.round.deck.shares_message(g.cores[0].deal_slots(bad_seat), "deal")}  # type: ignore[union-attr]
    shares = list(body["shares"])
    shares[0], shares[1] = shares[1], shares[0]
    body["shares"] = shares
    g.send(bad_seat, "shares", body, host_checks=False)  # accepted for now: checked at the end
    g.send(0, "shares", {"round": 1, "purpose": "deal", **g.cores[0].round.deck.shares_message(  # type: ignore[union-attr]
        g.cores[0].deal_slots(0), "deal")})
    last = {"round": 1, "purpose": "deal", **g.cores[2].round.deck.shares_message(  # type: ignore[union-attr]
        g.cores[0].deal_slots(2), "deal")}
    g.send(2, "shares", last)  # the host orders it: it is valid, and it ends the game
    for core in g.cores:
        e = core.verdict
        assert e is not None and (e.seat, e.step) == (bad_seat, "shares"), e
        assert "proof" in e.reason and core.finished and not core.can_move()
    v = verify_records(g.log.records())
    assert (v.ok, v.seq, v.seat) == (False, len(g.log) - 1, bad_seat), v.summary
