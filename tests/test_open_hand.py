"""R8.6: a seat gone for good. The host abandons it when the game waits for it; the deal
in progress is void (opened by the seats present) and dealt again without its key; from
then on its cards are dealt face up and every peer derives its moves by the open-hand
rules (protocol/OPEN_HAND.md). The game ends and verifies; nobody reads more than the
rules let it; a false abandonment and a forged open-seat move are refused
(protocol/GAME.md "abandon")."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from splitnet.crypto.deck import DeckRound
from splitnet.crypto.errors import DeckUsageError
from splitnet.game.table import GameError
from splitnet.games.split.bots import make_bot, open_hand_player
from splitnet.games.split.core import GameCore, OpenHandMissing
from splitnet.games.split.local import LocalGame, SelfplaySecrets
from splitnet.games.split.open_hand import open_hand_seed
from splitnet.games.split.rules import DrawPile, Settings, action_to_dict
from splitnet.verify import verify_records

#: each core checks every other seat's hop and verify checks each again: the same proofs,
#: computed in full once per test (tests/conftest.py); these tests are about seats gone,
#: not about the proofs or about which peer checks what
pytestmark = pytest.mark.usefixtures("each_shuffle_proof_checked_once")

def new_game(n: int, proofs: bool, seed: int = 3) -> tuple[LocalGame, GameCore]:
    g = LocalGame([f"p{i}" for i in range(n)], Settings(rounds=2), SelfplaySecrets(seed),
                  shuffle_proofs=proofs, open_hand=open_hand_player)
    obs = GameCore(g.log.game_id, g.names, g.settings, None, shuffle_proofs=proofs,
                   open_hand=open_hand_player)
    g.listeners.append(lambda a, k, b: obs.apply(a, k, dict(b)))
    return g, obs


def check_knowledge(g: LocalGame, obs: GameCore) -> None:
    """R8 with R8.6, at this step: an open seat's cards are known to every peer and to
    the observer; a present seat's card not shown publicly is read by nobody else (not
    by the other present seats, not by the leaver reading the log)."""
    host = g.cores[0]
    r = host.round
    if r is None or r.stage != "play":
        return
    hands = host.engine.hands
    for t in range(g.n):
        for slot in hands[t]:
            if r.draw is not None and slot == r.draw[1]:
                continue  # being drawn: read once the members' draw shares are in
            if t in host.open_seats:
                assert slot in r.public
                assert obs.engine.faces[slot] is not None
                for c in g.cores:
                    assert c.engine.faces[slot] == obs.engine.faces[slot]
            elif slot not in r.public:
                assert obs.engine.faces[slot] is None
                for s, c in enumerate(g.cores):
                    if s != t:
                        assert c.engine.faces[slot] is None, (s, t, slot)
                        assert c.round is not None and c.round.deck.card(slot) is None


def play_with_leaver(n: int, proofs: bool, leave_at: int) -> tuple[LocalGame, GameCore]:
    g, obs = new_game(n, proofs)
    bots = [make_bot("normal", i) for i in range(n)]
    steps = [0]

    def on_step(g: LocalGame) -> None:
        steps[0] += 1
        r = g.cores[0].round
        if steps[0] >= leave_at and not g.silent and r is not None and r.stage == "play":
            g.silent.add(n - 1)  # the last seat stops answering mid-round, for good
        check_knowledge(g, obs)

    g.run_bots(bots, open_hand_after=120, on_step=on_step)
    return g, obs


@pytest.mark.parametrize(("n", "proofs", "leave_at"), [(3, False, 60), (4, True, 150)])
def test_seat_gone_for_good_is_played_open_handed_and_the_game_verifies(
        n: int, proofs: bool, leave_at: int) -> None:
    g, obs = play_with_leaver(n, proofs, leave_at)
    leaver = n - 1
    host = g.cores[0]
    assert g.finished and g.verdict is None and host.engine.phase == "game_over"
    assert host.open_seats == {leaver}
    # R8.6 [decision]: left during play, the round ends as it stands — scored, not void
    assert not [r for r in host.rounds if r.stage == "void"]
    cut = [r for r in host.rounds if r.cut is not None]
    assert len(cut) == 1 and cut[0].cut == leaver
    k = host.rounds.index(cut[0])
    rec_round = host.record["rounds"][k]
    assert rec_round["end"]["reason"] == "abandoned" and rec_round["end"]["seat"] == leaver
    vd = obs.rounds[k].deck
    dealt = g.settings.hand_size * n
    dealer = rec_round["dealer"]
    theirs = {j for j in range(dealt) if (dealer + 1 + j) % n == leaver}
    readable = {slot for slot in range(dealt) if vd.card(slot) is not None}
    public = obs.rounds[k].public
    hand = rec_round["hands"][str(leaver)]
    assert None in hand
    # GAME.md abandon 2, SECURITY.md row 111: nobody opens a cut round (an opening is
    # what a forking host reads a puppet's hand by); what the log reads is every card
    # played or shown, no unplayed one. Without shuffle proofs the seats present prove
    # their hops after the cut instead (``prove``): the audit of every hop but the
    # leaver's, which no seed could check either (its seed is gone)
    assert cut[0].opened == set()
    assert cut[0].deck.proved == (set() if proofs else set(range(n)) - {leaver})
    assert readable == set(range(dealt)) & public
    assert all(None in rec_round["hands"][str(s)] for s in range(n)
               if set(rec_round["end"]["hands_left"][str(s)]))
    assert theirs - readable
    left = rec_round["end"]["hands_left"][str(leaver)]
    assert left and None in left  # its cards count as negative boxes all the same
    assert rec_round["end"]["marks"][str(leaver)]["negative"] >= len(left)
    assert len(host.record["rounds"]) == g.settings.rounds
    after = host.rounds[k + 1:]
    for r in after:  # the open seat holds no key: the deck is made by the others
        assert r.deck.seats == tuple(s for s in range(n) if s != leaver)
        assert leaver not in r.committed and leaver not in r.opened
    # the open seat scored as normal, and its moves are in the record
    assert any(t["seat"] == leaver for t in host.record["rounds"][-1]["turns"])
    # every peer (the leaver reading the log too) and the verifier reach the same state
    for c in [*g.cores, obs]:
        assert c.record == host.record and c.finished and c.verdict is None
    v = verify_records(g.log.records())
    assert v.ok, v
    assert v.record == host.record


def at_play_waiting_for(g: LocalGame, seat: int) -> None:
    """Play honestly until the game waits for ``seat``'s move alone."""
    bots = [make_bot("normal", i) for i in range(g.n)]
    for _ in range(10_000):
        c = g.cores[0]
        if c.round is not None and c.round.stage == "play" and c.waiting_for() == [seat] \
                and g.cores[seat].can_move():
            return
        if g.pump():
            continue
        s = g.mover()
        assert s is not None
        g.play_move(s, bots[s].choose(g.cores[s].engine, s))
    raise AssertionError("never waited for the seat")


def abandon_body(g: LocalGame, seat: int) -> dict[str, Any]:
    r = g.cores[0].round
    assert r is not None
    return {"round": r.number, "seat": seat, "waited": 120}


def test_false_abandonment_is_refused_naming_the_host() -> None:
    g, _ = new_game(3, proofs=False)
    at_play_waiting_for(g, 1)
    cases = [(2, "does not wait for seat 2"), (0, "not a guest's seat"),
             (7, "not a guest's seat")]
    for seat, why in cases:
        for host_checks in (True, False):
            before = len(g.log)
            with pytest.raises(GameError, match=why) as e:
                g.send(0, "abandon", abandon_body(g, seat), host_checks=host_checks)
            assert e.value.seat == 0 and e.value.step == "abandon"
            if host_checks:
                assert len(g.log) == before  # never ordered
    # every honest peer refuses a false abandonment the host ordered blindly
    g2, _ = new_game(3, proofs=False)
    at_play_waiting_for(g2, 1)
    for c in g2.cores:
        with pytest.raises(GameError, match="a false abandonment") as e:
            c.apply(0, "abandon", abandon_body(g2, 2))
        assert e.value.seat == 0 and c.open_seats == set()
    # only the host abandons, and not with extra fields
    with pytest.raises(GameError, match="only the host") as e:
        g2.cores[0].apply(2, "abandon", abandon_body(g2, 1))
    assert e.value.seat == 2
    with pytest.raises(GameError, match="exactly round, seat and waited"):
        g2.cores[0].apply(0, "abandon", {**abandon_body(g2, 1), "x": 1})
    with pytest.raises(GameError, match="waited: expected an int, got true"):  # WIRE.md §4
        g2.cores[0].apply(0, "abandon", {**abandon_body(g2, 1), "waited": True})


def test_a_third_seat_cannot_leave_a_two_seat_deck_and_no_seat_twice() -> None:
    g, _ = new_game(3, proofs=False)
    at_play_waiting_for(g, 1)
    g.silent.add(1)
    g.abandon(1, 120)
    assert all(c.open_seats == {1} for c in g.cores)
    with pytest.raises(GameError, match="already played open-handed"):
        g.send(0, "abandon", abandon_body(g, 1))
    for _ in range(100):  # wait for seat 2 in the new deal
        if 2 in g.cores[0].waiting_for():
            break
        g.pump()
    with pytest.raises(GameError, match="fewer than two seats") as e:
        g.send(0, "abandon", abandon_body(g, 2))
    assert e.value.seat == 0


def test_forged_open_seat_move_is_refused() -> None:
    g, _ = new_game(3, proofs=False)
    at_play_waiting_for(g, 2)
    g.silent.add(2)
    g.abandon(2, 120)
    bots = [make_bot("normal", i) for i in range(3)]
    for _ in range(10_000):  # into the next deal's play, host to move
        r = g.cores[0].round
        if r is not None and r.stage == "play" and g.cores[0].can_move():
            break
        if g.pump():
            continue
        s = g.mover()
        assert s is not None
        g.play_move(s, bots[s].choose(g.cores[s].engine, s))
    r = g.cores[0].round
    assert r is not None
    body = {"round": r.number, "move": action_to_dict(DrawPile(2))}
    # the leaver (or whoever holds its key) sends a move, signed with the abandonment in
    # view: refused by every peer, naming the seat (held from before it and ordered
    # after, it names the host: SECURITY.md rows 107 and 112, test_adversary)
    for host_checks in (True, False):
        with pytest.raises(GameError, match=r"R8\.6: p2's seat is played open-handed") as e:
            g.send(2, "move", body, host_checks=host_checks)
        assert e.value.seat == 2
    # the host signs a move for the open seat: refused naming the host
    with pytest.raises(GameError, match="a move for seat 2 signed by seat 0") as e:
        g.send(0, "move", body, host_checks=False)
    assert e.value.seat == 0
    # nor can anyone make the open seat commit, open or share
    for kind in ("commit", "open", "shares", "reveal"):
        with pytest.raises(GameError, match="open-handed"):
            g.cores[1].apply(2, kind, {"round": r.number})


def test_leaver_back_before_the_switch_is_simply_resumed() -> None:
    g, _ = new_game(3, proofs=False)
    at_play_waiting_for(g, 2)
    g.silent.add(2)
    assert g.mover() is None and g.cores[0].waiting_for() == [2]
    g.silent.discard(2)  # back before any abandonment: the game goes on as before
    g.run_bots([make_bot("normal", i) for i in range(3)])
    assert g.finished and g.verdict is None and g.cores[0].open_seats == set()
    assert verify_records(g.log.records()).ok


def test_deck_of_some_seats() -> None:
    gid = bytes(range(16))
    seats = [0, 2]
    peers = {i: DeckRound(gid, 1, 3, i, bytes([i + 1]) * 32, seats=seats) for i in seats}
    obs = DeckRound(gid, 1, 3, None, None, seats=seats)
    with pytest.raises(DeckUsageError, match="does not take part"):
        DeckRound(gid, 1, 3, 1, b"\x01" * 32, seats=seats)
    with pytest.raises(DeckUsageError, match="≥ 2 distinct seats"):
        DeckRound(gid, 1, 3, None, None, seats=[2])
    for p in [*peers.values(), obs]:
        for i, q in peers.items():
            p.on_commit(i, q.commit_message())
    with pytest.raises(DeckUsageError, match="does not take part"):
        obs.on_commit(1, peers[0].commit_message())
    assert obs.next_shuffler() == 0
    for i in seats:
        msg = peers[i].shuffle_message()
        for p in [*peers.values(), obs]:
            p.on_shuffle(i, msg)
    assert obs.shuffled and obs.next_shuffler() is None
    for i in seats:  # both members share slot 5: everyone reads it (a face-up card)
        msg = peers[i].shares_message([5], "deal")
        for p in [*peers.values(), obs]:
            p.on_shares(i, msg, "deal")
    assert obs.card(5) is not None and obs.card(5) == peers[0].card(5) == peers[2].card(5)
    for i in seats:
        msg = peers[i].open_message()
        for p in [*peers.values(), obs]:
            p.on_open(i, msg)
    assert sorted(obs.audit()) == list(range(104))


def test_open_hand_moves_are_pinned() -> None:
    """The open-hand rules are part of the protocol (OPEN_HAND.md, O1–O7): a change to
    their choices changes every peer's derived moves, hence the game (a protocol change:
    update OPEN_HAND.md, its vectors and this). The other seats here are normal bots."""
    g, _ = play_with_leaver(3, False, 60)
    moves = [action_to_dict(a) for r in g.cores[0].rounds for a in r.actions
             if a.seat in g.cores[0].open_seats and r.stage == "done"]
    digest = hashlib.sha256(repr(moves).encode()).hexdigest()
    assert len(moves) > 5
    assert digest == PINNED, digest


PINNED = "282f6e442968f2754d317e39f0919efeae30f70320c1567bd51138bf8b813de2"


def test_narration_and_verify_tell_the_abandonment_and_name_the_open_seats_moves() -> None:
    from splitnet.games.split.describe import Narrator

    g, _ = new_game(3, proofs=False)
    lines: list[str] = []
    narrators = [Narrator(g.names, s) for s in range(3)]
    for s, nar in enumerate(narrators):
        def hear(a: int, k: str, b: dict[str, Any], nar: Narrator = nar, s: int = s) -> None:
            news = nar.after_entry(g.cores[s], a, k, b)
            if s == 0:
                lines.extend(news.lines)
        g.listeners.append(hear)
    at_play_waiting_for(g, 2)
    g.silent.add(2)
    g.run_bots([make_bot("normal", i) for i in range(3)], open_hand_after=90)
    assert any("p2 is gone: this round ends as it stands" in ln for ln in lines)
    i = next(i for i, ln in enumerate(lines) if "p2 is gone" in ln)
    after = lines[i + 1:]
    assert any(ln.startswith("Round ") and "deals" in ln for ln in after)
    assert any(ln.startswith("p2 ") for ln in after)  # the open seat's moves, by name
    audits = [ln for ln in lines if "shuffle verified" in ln]
    assert [ln.split(":")[0] for ln in audits] == ["Round 1", "Round 2"]
    v = verify_records(g.log.records())
    assert v.ok and "p2 abandoned by the host after 90 s" in v.summary


def _at_stage(g: LocalGame, stage: str, leaver: int) -> None:
    """One message at a time, until round 1 reaches ``stage`` waiting for ``leaver``."""
    bots = [make_bot("normal", i) for i in range(3)]
    for _ in range(100_000):
        r = g.cores[0].round
        if r is not None and r.stage == stage and leaver in g.cores[0].waiting_for():
            return
        sent = False
        for seat, core in enumerate(g.cores):
            out = core.outbox()
            if out:
                g.send(seat, *out[0])
                core.forget_unlogged()  # the rest is produced again next time
                sent = True
                break
        if not sent:
            s = g.mover()
            assert s is not None
            g.play_move(s, bots[s].choose(g.cores[s].engine, s))
    raise AssertionError(f"never reached {stage}")


@pytest.mark.parametrize("stage", ["deal", "open"])
def test_no_deal_is_voided_once_a_hand_or_its_outcome_can_be_known(stage: str) -> None:
    """R8.6 (SECURITY.md rows 94, 95): during the deal the host may read its own hand
    from shares it holds unordered; during the openings every play is known. An
    abandonment then would let the host have a deal it dislikes dealt again, or void a
    finished round: every peer and verify refuse it naming the host; the host can only
    time the seat out (the game stops naming the silent seat)."""
    g, _ = new_game(3, proofs=False)
    _at_stage(g, stage, 2)
    heads = len(g.log)
    why = "a hand" if stage == "deal" else "outcome known"
    with pytest.raises(GameError, match=rf"seat 0 at abandon: a false abandonment: .*{why}"):
        g.send(0, "abandon", abandon_body(g, 2), host_checks=False)
    assert len(g.log) == heads + 1  # ordered blindly; every other peer refused it
    for c in g.cores[1:]:
        assert c.open_seats == set() and c.round is not None and c.round.stage == stage
    v = verify_records(g.log.records())
    assert not v.ok and "(seat 0)" in v.summary and "false abandonment" in v.summary


@pytest.mark.parametrize("stage", ["commit", "shuffle"])
def test_abandoned_before_any_card_exists_the_deal_is_dealt_again_and_the_game_verifies(
        stage: str) -> None:
    g, obs = new_game(3, proofs=False)
    bots = [make_bot("normal", i) for i in range(3)]
    leaver = 1 if stage == "shuffle" else 2  # seat 1 shuffles after seat 0
    for _ in range(100_000):  # one message at a time, until round 1 reaches the stage
        r = g.cores[0].round
        if r is not None and r.stage == stage and leaver in g.cores[0].waiting_for():
            break
        sent = False
        for seat, core in enumerate(g.cores):
            out = core.outbox()
            if out:
                g.send(seat, *out[0])
                core.forget_unlogged()  # the rest is produced again next time
                sent = True
                break
        if not sent:
            s = g.mover()
            assert s is not None
            g.play_move(s, bots[s].choose(g.cores[s].engine, s))
    r = g.cores[0].round
    assert r is not None and r.number == 1 and r.stage == stage
    g.silent.add(leaver)
    g.run_bots(bots, open_hand_after=60, on_step=lambda g: check_knowledge(g, obs))
    host = g.cores[0]
    assert g.finished and g.verdict is None and host.open_seats == {leaver}
    assert host.rounds[0].stage == "void"
    # before the shuffle no card exists and nobody opens
    assert host.rounds[0].opened == set()
    assert len(host.record["rounds"]) == g.settings.rounds
    assert host.record["rounds"][0]["number"] == 1  # the void deal is not a round
    v = verify_records(g.log.records())
    assert v.ok and v.record == host.record == obs.record


def test_a_core_without_the_open_hand_player_refuses_an_abandonment_in_one_line() -> None:
    """The game layer knows no bots: the player is injected. A core assembled without it
    refuses a (sound) abandonment clearly, blaming nobody, and changes nothing; the same
    entry then applies on a core that has it."""
    g, _ = new_game(3, proofs=False)
    at_play_waiting_for(g, 2)
    bare = GameCore(g.log.game_id, g.names, g.settings, None, shuffle_proofs=False)
    for e in g.log.entries[1:]:
        if e.kind != "accept":
            bare.apply(e.author, e.kind, dict(e.body))
    before = (bare.record, set(bare.open_seats), len(bare.rounds), bare.engine.round_no)
    body = abandon_body(g, 2)
    assert g.cores[0].abandon_refusal(2) is None  # the abandonment itself is sound
    with pytest.raises(OpenHandMissing) as e:
        bare.apply(0, "abandon", body)
    assert e.value.seat is None and e.value.step == "abandon"
    assert str(e.value) == ("cannot play seat 2 open-handed (R8.6): this peer was "
                            "assembled without the open-hand player")
    assert "\n" not in str(e.value)
    assert (bare.record, bare.open_seats, len(bare.rounds), bare.engine.round_no) == before
    assert not bare.finished and bare.verdict is None
    bare.open_hand = open_hand_player
    bare.apply(0, "abandon", body)
    assert bare.open_seats == {2}


def test_open_hand_seed_vectors() -> None:
    gid = bytes(range(16))
    assert open_hand_seed(gid, 2, 1, 0) == 4469063530356395500
    assert open_hand_seed(gid, 3, 2, 17) == 2521946038220457080


def test_a_give_up_sooner_than_the_header_agrees_is_refused_by_every_peer_and_verify() -> None:
    """GAME.md "limits" (SECURITY.md row 93): the header agrees 30 s before an abandonment
    and 600 s for a move; an `abandon` or `timeout` that says less is refused naming the
    host — by every peer, and by verify when a host orders it anyway."""
    from splitnet.game.table import Limits

    g, _ = new_game(3, proofs=False)
    assert g.cores[1].limits == Limits(120, 600, 30)
    at_play_waiting_for(g, 1)
    r = g.cores[0].round
    assert r is not None
    for kind, waited, agreed in (("abandon", 29, 30), ("timeout", 599, 600)):
        with pytest.raises(GameError, match=rf"seat 0 at {kind}: a false \w+: it says the game "
                           rf"waited {waited} s, less than the {agreed} s"):
            g.send(0, kind, {"round": r.number, "seat": 1, "waited": waited})
    heads = len(g.log)
    with pytest.raises(GameError, match="less than the 30 s"):
        g.send(0, "abandon", {"round": r.number, "seat": 1, "waited": 0}, host_checks=False)
    assert len(g.log) == heads + 1
    v = verify_records(g.log.records())
    assert not v.ok and "(seat 0)" in v.summary and "less than the 30 s" in v.summary


def test_a_round_cut_short_is_scored_as_it_stood_and_its_hidden_cards_stay_hidden() -> None:
    """R8.6 [decision] (SECURITY.md row 104): given up during play, the round is not dealt
    again — the scores of the cut round are those of the position it stopped at (R6.3), the
    deal passes left, no peer (the leaver's own core included) writes a card into the
    record that the log does not let everyone read, and the record validates and replays
    with those cards as `?`."""
    import json

    from splitnet.games.split.record import dumps, validate_record
    from splitnet.games.split.replay import replay_steps

    g, obs = new_game(3, proofs=True)
    at_play_waiting_for(g, 2)
    view = g.cores[0].engine
    standing = [len(view.hands[s]) for s in range(3)]
    owners = [m.owner for m in view.matches]
    dealer = view.dealer
    g.silent.add(2)
    g.run_bots([make_bot("normal", i) for i in range(3)], open_hand_after=60)
    host = g.cores[0]
    first = host.record["rounds"][0]
    assert first["end"]["reason"] == "abandoned" and first["end"]["seat"] == 2
    marks = first["end"]["marks"]
    for s in range(3):  # R6.3 at the position the round stopped at
        assert len(first["end"]["hands_left"][str(s)]) == standing[s]
        assert marks[str(s)]["negative"] >= standing[s]
        assert sum(marks[str(s)][k] for k in ("perfect", "strong", "weak")) == owners.count(s)
    assert host.record["rounds"][1]["dealer"] == (dealer + 1) % 3  # R6.4: passes left
    hidden = [c for c in first["end"]["hands_left"]["2"] if c is None]
    assert hidden  # the leaver's unplayed cards: never read by anyone
    for c in [*g.cores, obs]:
        assert c.record == host.record
    validate_record(json.loads(dumps(host.record)))
    steps = replay_steps(host.record)
    assert any("?" in st.table for st in steps if st.round_no == 1)
    v = verify_records(g.log.records())
    assert v.ok and "ended as it stood" in v.summary, v.summary


@pytest.mark.parametrize("proofs", [True, False])
def test_with_shuffle_proofs_nobody_opens_a_round_cut_short_and_a_stray_opening_is_refused(
        proofs: bool) -> None:
    """GAME.md "abandon" step 2, SECURITY.md row 111: with shuffle proofs every hop and
    share stands on its proof, so a round an abandonment cut short is recorded at once
    from what the log reads, and no seat opens its seed — an opening is what a host that
    forked the log reads a puppet's whole hand by on its other history. A seat that
    opens anyway is refused naming it, by the host and by every peer of a host that
    orders it blindly, and nothing changes. Without proofs the seats present prove their
    hops after the cut (``prove``: the proof the hop would have carried) — an opening
    is refused all the same, while the proofs are due and after."""
    g, obs = new_game(3, proofs=proofs)
    at_play_waiting_for(g, 2)
    g.silent.add(2)
    g.send(0, "abandon", abandon_body(g, 2))
    cut = g.cores[0].rounds[0]
    assert cut.cut == 2
    owed = [k for c in g.cores[:2] for k, _ in c.outbox()]
    if not proofs:
        assert cut.stage == "prove" and owed == ["prove", "prove"]
        seed = g.cores[1].rounds[0].deck.open_message()
        before = (len(g.log), repr(g.cores[0].record))
        with pytest.raises(GameError, match="a round cut short is never opened") as e:
            g.send(1, "open", {"round": 1, **seed})
        assert e.value.seat == 1 and (len(g.log), repr(g.cores[0].record)) == before
        for seat in (0, 1):
            g.send(seat, "prove", {"round": 1, **g.cores[seat].rounds[0].deck
                                   .hop_proof_message(g.cores[seat]._prover())})
    assert cut.stage == "done" and cut.opened == set() and "open" not in owed
    nxt = g.cores[0].round
    assert nxt is not None and nxt.number == 2 and nxt.stage == "commit"
    for c in [*g.cores, obs]:
        assert c.record == g.cores[0].record and c.record["rounds"][0]["end"]["reason"] \
            == "abandoned"
    seed = g.cores[1].rounds[0].deck.open_message()
    before = (len(g.log), repr(g.cores[0].record))
    with pytest.raises(GameError, match="message for round 1 during round 2") as e:
        g.send(1, "open", {"round": 1, **seed})
    assert e.value.seat == 1 and (len(g.log), repr(g.cores[0].record)) == before
    g2, obs2 = new_game(3, proofs=True)
    at_play_waiting_for(g2, 2)
    g2.silent.add(2)
    g2.send(0, "abandon", abandon_body(g2, 2))
    seed = g2.cores[1].rounds[0].deck.open_message()
    for c in [*g2.cores[1:], obs2]:
        with pytest.raises(GameError, match="message for round 1 during round 2") as e:
            c.apply(1, "open", {"round": 1, **seed})
        assert e.value.seat == 1 and c.rounds[0].opened == set()
