"""Splito on the fair deck (docs/SPLITO.md, protocol/SPLITO_GAME.md): whole games among
separate in-memory peers verify; what each seat can read is exactly what S7 lets it know,
at every entry; commit–reveal (S7.3) and the hand passing (S5.4) are attacked through the
real code path (:class:`~splitnet.games.split.local.LocalGame`, the cores, the signed log and
``verify``), and every refusal names the seat and the S-rule.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from splitnet.crypto.deck import MAX_PLAYERS
from splitnet.game.checks import HopChecker, InlineChecker
from splitnet.game.table import PROTOCOL, GameError, PledgeBook
from splitnet.games.split.local import LocalGame, SelfplaySecrets
from splitnet.games.splito.bots import make_bot
from splitnet.games.splito.core import SplitoCore, Stage, splito_header
from splitnet.games.splito.engine import Phase, Play
from splitnet.games.splito.record import check_record
from splitnet.games.splito.settings import SplitoSettings
from splitnet.verify import verify_records

Game = LocalGame[SplitoCore]
#: every peer checks every other seat's hop and verify checks each once more: the same
#: proofs, checked in full once per test (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("each_shuffle_proof_checked_once")


def new_game(n: int, seed: int = 1, checker: HopChecker | None = None) -> Game:
    """``checker``: where every peer's shuffle-proof checks run (by default each peer
    checks every other seat's hop itself)."""
    settings = SplitoSettings.standard(n)
    names = [f"p{i}" for i in range(n)]

    def make(gid: bytes, seat: int, seeds: Callable[[int], bytes], pledges: PledgeBook,
             keys: list[bytes]) -> SplitoCore:
        return SplitoCore(gid, names, settings, seat, seeds, pledges=pledges, checker=checker)

    return LocalGame(names, settings, SelfplaySecrets(seed), make_core=make,
                     header=splito_header(settings, PROTOCOL))


def bots(n: int, kind: str = "random") -> list[Any]:
    return [make_bot(kind, 10 + i) for i in range(n)]


def run_until(game: Game, stop: Callable[[Game], bool], kind: str = "random",
              limit: int = 20_000) -> None:
    """Play (protocol messages first, then one seat's choice) until ``stop(game)``."""
    players = bots(game.n, kind)
    for _ in range(limit):
        if stop(game):
            return
        assert not game.finished, "the game ended before the state sought"
        if game.pump():
            continue
        seat = game.mover()
        assert seat is not None, "nobody owes a message"
        game.play_move(seat, players[seat].choose(game.cores[seat].engine, seat))
    raise AssertionError("state not reached")


def reveal_phase(turn: int) -> Callable[[Game], bool]:
    """Every seat has committed for ``turn``; no reveal is in yet."""
    def at(g: Game) -> bool:
        e = g.cores[0].engine
        return (g.cores[0].stage is Stage.PLAY and e.turn == turn and e.phase is Phase.REVEAL
                and all(r is None for r in e.reveals))
    return at


def refusal(game: Game) -> str:
    """verify's one line about the log as it stands (it must fail)."""
    v = verify_records(game.log.records())
    assert not v.ok and not v.incomplete, v.summary
    assert "\n" not in v.summary
    return v.summary


# ---------------------------------------------------------------------- knowledge (S7)
def check_knowledge(game: Game) -> None:
    """S7.1–S7.4 at this entry: each seat can read (holds every share of) exactly the card
    slots of its hand, the hands it held before and the played cards — only the central
    objectives of the objective deck — and nothing else; the set-aside cards no one."""
    ref = game.cores[0]
    if ref.stage in (Stage.OPEN, Stage.DONE):
        return  # S7.5: the game is over, everything is opened for the audit
    if ref.cards is None or not ref.cards.shuffled or ref.stage is Stage.DEAL:
        for core in game.cores:
            assert core.cards is None or core.cards.known_slots() == set()
            assert core.objectives.known_slots() == set()
        return
    eng = ref.engine
    public = eng.public_slots()
    central = set(range(game.settings.central_objectives))
    settled = ref.stage is not Stage.PASS  # during a pass a hand is on its way
    for s, core in enumerate(game.cores):
        assert core.cards is not None
        known = core.cards.known_slots()
        may = {j for j in range(eng.dealt) if j in eng.held[s] or j in public}
        assert known <= may, f"seat {s} reads slots {sorted(known - may)} it must not see"
        if settled:
            assert known == may, f"seat {s} cannot read {sorted(may - known)}"
        assert not known & set(eng.set_aside_slots()), "S4.4: a set-aside card is readable"
        assert core.objectives.known_slots() == central
        view = core.engine
        assert {j for j, f in enumerate(view.faces) if f is not None} <= may


@pytest.mark.parametrize("n", [3, 4])
def test_whole_games_verify_and_each_seat_knows_what_s7_allows_at_every_entry(n: int) -> None:
    game = new_game(n, seed=n)
    game.run_bots(bots(n, "heuristic"), on_step=check_knowledge)
    v = verify_records(game.log.records())
    assert v.ok, v.summary
    assert v.record is not None and check_record(v.record).ok
    for core in game.cores:  # every peer's audit gives the same record (S12)
        assert core.record == v.record
    assert "shuffle fair: yes" in v.summary
    assert len(v.record["turns"]) == 13


@pytest.mark.parametrize("n", [2, 5, 8])
def test_the_variant_and_larger_tables_verify_with_s7_knowledge_at_every_entry(n: int) -> None:
    """The 2-player variant (S8: two zones each, 26 cards a hand), the smallest table
    above the ones just before (5) and the largest (8, S2.1). 6 and 7 seats take no rule
    of their own (S2.1: 3–8 play the standard game): the same code at sizes in between.
    The peers share one checker, as ``splitnet play``'s do: each seat's hop is checked
    once for the table, not once by each other peer (test_splito_pipeline: where the
    checks run changes no byte), and verify goes through every hop again (its proof,
    accepted once already for the same bytes, is not computed twice: conftest.py)."""
    assert MAX_PLAYERS == 8  # the deck seats Splito's 2–8 (S2.1)
    checker = InlineChecker(share=True)
    game = new_game(n, seed=20 + n, checker=checker)
    game.run_bots(bots(n), on_step=check_knowledge)
    assert checker.checked == 2 * n  # each seat's hop of each deck, once
    v = verify_records(game.log.records())
    assert v.ok, v.summary
    assert v.record is not None and check_record(v.record).ok
    assert len(v.record["turns"]) == (26 if n == 2 else 13)  # S8.2, S5.1


def test_nobody_reads_a_play_before_its_reveal_s7_3(splito_at_play: Game) -> None:
    """Once every seat has committed, no peer — the host included — can read another
    seat's chosen card: it is in the hand of that seat only, and the commitment hides it."""
    game = splito_at_play
    run_until(game, reveal_phase(1))
    eng = game.cores[0].engine
    for s in range(3):
        for other, core in enumerate(game.cores):
            if other == s:
                continue
            assert core.cards is not None
            hidden = [j for j in eng.hands[s] if j not in eng.held[other]]
            assert hidden and not set(hidden) & core.cards.known_slots()


# ---------------------------------------------------------------------- commit–reveal
def _true_reveal(game: Game, seat: int) -> dict[str, Any]:
    out = game.cores[seat].outbox()
    assert [k for k, _ in out] == ["reveal"]
    game.cores[seat]._sent.discard(("reveal", game.cores[seat].engine.turn))
    return dict(out[0][1])


def test_a_reveal_before_every_commitment_is_refused_naming_the_seat_s7_3(
        splito_at_play: Game) -> None:
    game = splito_at_play
    run_until(game, lambda g: g.cores[0].stage is Stage.PLAY
              and g.cores[0].engine.committed(1) and not g.cores[0].engine.committed(2))
    core = game.cores[1]
    kept = core.plays.chosen(1)
    assert kept is not None
    slot, side, card, nonce = kept.slot, kept.side, kept.card, kept.nonce
    early = {"round": 1, "turn": 1, "slot": slot, "card": card, "side": side,
             "nonce": nonce, "share": core._holder_share(slot)}
    with pytest.raises(GameError, match=r"S7.3: no play is revealed before every seat has "
                       "committed"):
        game.send(1, "reveal", early)  # the host refuses it
    # A host that orders it anyway: every peer refuses the entry, and so does verify.
    with pytest.raises(GameError, match=r"S7.3"):
        game.send(1, "reveal", early, host_checks=False)
    line = refusal(game)
    assert "(seat 1)" in line and "S7.3" in line and "before every seat has committed" in line


def test_a_reveal_that_does_not_open_its_commitment_convicts_the_seat_s7_3(
        splito_at_play: Game) -> None:
    game = splito_at_play
    run_until(game, reveal_phase(1))
    body = _true_reveal(game, 2)
    body["side"] = "right" if body["side"] == "left" else "left"
    game.send(2, "reveal", body)  # a valid entry: it convicts its author
    assert game.verdict is not None and game.verdict.seat == 2
    line = refusal(game)
    assert "(seat 2)" in line and "S7.3" in line and "does not open its commitment" in line


def test_a_reveal_of_another_card_than_the_slot_holds_convicts_the_seat_s7_3(
        splito_at_play: Game) -> None:
    game = splito_at_play
    run_until(game, reveal_phase(1))
    body = _true_reveal(game, 1)
    core = game.cores[1]
    other = next(j for j in core.engine.hands[1] if j != body["slot"])
    body["card"] = core.engine.face(other)  # it claims another card of its hand
    game.send(1, "reveal", body)
    line = refusal(game)
    assert "(seat 1)" in line and "S7.3" in line and "holds" in line


def test_an_illegal_revealed_play_convicts_the_seat_s5_2(splito_at_play: Game) -> None:
    """Seat 1 commits to a card already lying in a zone (it can read it: it is public)
    and reveals it with its public share: the card is right, the play is not."""
    game = splito_at_play
    run_until(game, lambda g: g.cores[0].engine.turn == 2 and g.cores[0].stage is Stage.PLAY
              and not g.cores[1].engine.committed(1))
    core = game.cores[1]
    played = core.engine.history[0][0]  # seat 0's card of turn 1
    card = core.engine.face(played.slot)
    bad = Play(1, played.slot, "left")
    from splitnet.games.splito.engine import commitment

    nonce = "ab" * 16
    digest = commitment(core.engine.game_id, 2, 1, card, "left", nonce)
    game.send(1, "move", {"round": 1, "turn": 2, "commit": digest})
    run_until(game, reveal_phase(2))
    share = next(dict(e.body)["share"] for e in game.log.entries
                 if e.kind == "reveal" and dict(e.body).get("slot") == played.slot)
    game.send(1, "reveal", {"round": 1, "turn": 2, "slot": bad.slot, "card": card,
                            "side": "left", "nonce": nonce, "share": share})
    line = refusal(game)
    assert "(seat 1)" in line and "S5.2" in line and "is not in the hand" in line


def test_a_move_with_the_play_in_clear_or_for_another_turn_is_refused_s7_3(
        splito_at_play: Game) -> None:
    game = splito_at_play
    run_until(game, lambda g: g.cores[0].stage is Stage.PLAY)
    with pytest.raises(GameError, match=r"S7.3: a move is exactly"):
        game.send(1, "move", {"round": 1, "turn": 1, "commit": "0" * 64, "slot": 1})
    with pytest.raises(GameError, match=r"S7.3: a commitment for turn 2"):
        game.send(1, "move", {"round": 1, "turn": 2, "commit": "0" * 64})


# ---------------------------------------------------------------------- passing (S5.4)
def _pass_phase(g: Game) -> bool:
    return g.cores[0].stage is Stage.PASS and not g.cores[0].sealed


def test_a_wrong_pass_is_shown_by_the_receivers_complaint_and_convicts_the_sender_s5_4(
        splito_at_play: Game) -> None:
    game = splito_at_play
    run_until(game, _pass_phase)
    out = game.cores[0].outbox()
    body = dict(next(b for k, b in out if k == "pass"))
    box = bytearray(body["box"])
    box[5] ^= 1  # a wrong share for the receiver
    body["box"] = bytes(box)
    game.send(0, "pass", body)  # nobody else can tell: the box is sealed to seat 1
    receiver = game.cores[1]
    assert receiver.bad_box is not None and not receiver.can_move()
    with pytest.raises(GameError, match=r"S5.4"):
        game.run_bots(bots(3))
    assert game.verdict is not None and game.verdict.seat == 0
    line = refusal(game)
    assert "(seat 0)" in line and "S5.4" in line and "complaint" in line
    assert [e.kind for e in game.log.entries][-1] == "complain"


def test_a_false_complaint_is_refused_naming_the_complainer_s5_4(splito_at_play: Game) -> None:
    game = splito_at_play
    run_until(game, lambda g: g.cores[0].stage is Stage.PLAY and bool(g.cores[0].sealed))
    core = game.cores[1]
    box = next(s for s in core.sealed if s.to == 1)
    body = core.complaint_message(box)
    with pytest.raises(GameError, match=r"seat 1 at complain: S5.4: a false complaint"):
        game.send(1, "complain", body)
    # a complaint about a box sealed to someone else
    with pytest.raises(GameError, match=r"S5.4: no such box"):
        game.send(2, "complain", {**body})


def test_a_pass_to_the_wrong_seat_or_of_the_wrong_size_is_refused_s5_4(
        splito_at_play: Game) -> None:
    game = splito_at_play
    run_until(game, _pass_phase)
    body = dict(next(b for k, b in game.cores[0].outbox() if k == "pass"))
    with pytest.raises(GameError, match=r"seat 0 at pass: S5.4: no pass from seat 0 to 2"):
        game.send(0, "pass", {**body, "to": 2})
    with pytest.raises(GameError, match=r"S5.4: the box must seal"):
        game.send(0, "pass", {**body, "box": body["box"][:-1]})
    game.send(0, "pass", body)  # the true one is still accepted


def test_after_a_pass_the_receiver_reads_its_new_hand_and_no_hand_it_has_not_held(
        splito_at_play: Game) -> None:
    """S5.4, S7.2: after the first pass, seat 1 reads the hand dealt to seat 0 — and the
    hand dealt to seat 2 stays unreadable to it until that hand reaches it."""
    game = splito_at_play
    run_until(game, lambda g: g.cores[0].engine.turn == 2 and g.cores[0].stage is Stage.PLAY)
    core = game.cores[1]
    assert core.cards is not None
    eng = core.engine
    dealt_to_2 = [j for j in eng.hands[0] if core.dealt_holder(j) == 2]
    assert dealt_to_2 and not set(dealt_to_2) & core.cards.known_slots()
    assert set(eng.hands[1]) <= core.cards.known_slots()


def test_verify_refuses_a_splito_header_without_shuffle_proofs() -> None:
    game = new_game(3)
    run_until(game, lambda g: g.cores[0].stage is Stage.SHUFFLE_OBJECTIVES)
    settings = splito_header(game.settings, PROTOCOL)
    settings["shuffle_proofs"] = False
    from splitnet.games.splito.core import splito_from_header
    from splitnet.games.splito.settings import SettingsError

    with pytest.raises(SettingsError, match=r"shuffle proofs only"):
        splito_from_header(settings)


def test_a_wrong_pass_left_unchallenged_is_caught_by_the_audit_s5_4_s7_5(
        splito_at_play: Game) -> None:
    """A receiver that colludes with the sender (it got the true shares another way) makes
    no complaint: the audit, with every seed open, still convicts the sender."""
    import dataclasses

    game = splito_at_play
    run_until(game, _pass_phase)
    body = dict(next(b for k, b in game.cores[0].outbox() if k == "pass"))
    box = bytearray(body["box"])
    box[0] ^= 1
    game.send(0, "pass", {**body, "box": bytes(box)})
    receiver = game.cores[1]
    assert receiver.cards is not None and receiver.bad_box is not None
    sealed = dataclasses.replace(receiver.sealed[-1], box=body["box"])
    true_shares = receiver._open_box(sealed, receiver.cards.exchange(sealed.eph))
    for msg in true_shares.values():
        receiver.cards.learn_shares(0, msg, "pass")
    receiver.received.update(true_shares)
    receiver._bad_box = None
    with pytest.raises(GameError, match=r"seat 0 at pass: S5\.4: its pass to seat 1 after "
                       r"turn 1: the sealed share of slot \d+ is not its share"):
        game.run_bots(bots(3))
    line = refusal(game)
    assert "(seat 0)" in line and "S5.4" in line
    assert [e.kind for e in game.log.entries][-1] == "open"


def test_a_seat_that_commits_and_never_reveals_is_timed_out_and_named_s5_6(
        splito_at_play: Game) -> None:
    game = splito_at_play
    run_until(game, lambda g: g.cores[0].stage is Stage.PLAY
              and g.cores[0].engine.committed(1) and not g.cores[0].engine.committed(2))
    with pytest.raises(GameError, match=r"a false timeout: the game does not wait for seat 1"):
        game.send(0, "timeout", {"round": 1, "seat": 1, "waited": 30})
    run_until(game, reveal_phase(1))
    with pytest.raises(GameError, match=r"only the host declares a timeout"):
        game.send(1, "timeout", {"round": 1, "seat": 2, "waited": 30})
    game.send(0, "timeout", {"round": 1, "seat": 2, "waited": 130})
    assert game.verdict is not None and game.verdict.seat == 2
    line = refusal(game)
    assert "(seat 2)" in line and "seat 2 at reveal: S5.6: did not answer for 130 s" in line


def test_a_seat_that_owes_its_sealed_shares_is_timed_out_and_named_s5_6(
        splito_at_play: Game) -> None:
    game = splito_at_play
    run_until(game, _pass_phase)
    game.send(0, "timeout", {"round": 1, "seat": 1, "waited": 121})
    line = refusal(game)
    assert "seat 1 at pass: S5.6" in line


def test_a_splito_transcript_with_any_changed_byte_fails() -> None:
    game = new_game(3)
    game.run_bots(bots(3))
    records = game.log.records()
    assert verify_records(records).ok
    for i in (1, len(records) // 2, len(records) - 1):
        rec = bytearray(records[i])
        rec[len(rec) // 2] ^= 0x40
        v = verify_records([*records[:i], bytes(rec), *records[i + 1:]])
        assert not v.ok and f"FAILED at entry {i}" in v.summary


def test_chat_is_closed_from_the_deal_to_the_scores_unless_the_table_allows_it_s5_5() -> None:
    game = new_game(3)
    game.send(1, "chat", {"text": "good luck"})  # before the deal: allowed
    run_until(game, lambda g: g.cores[0].stage is Stage.PLAY)
    with pytest.raises(GameError, match=r"seat 2 at chat: S5\.5: no chat from the deal"):
        game.send(2, "chat", {"text": "I hold a red six"})
    with pytest.raises(GameError, match=r"exactly \{\"text\": …\}"):
        game.send(2, "chat", {"text": "hi", "to": 1})
    assert game.cores[0].chat == [(1, "good luck")]


JUNK: list[Any] = [None, True, -1, 2**63 - 1, "x", b"\x00" * 33, [1, [2]], {"a": 1}, [None] * 3]
FIELDS = {"commit": ("commit", "key", "pok"), "shuffle": ("deck_of", "deck", "proof"),
          "deal": ("central", "hands"), "move": ("turn", "commit"),
          "reveal": ("turn", "slot", "card", "side", "nonce", "share"),
          "pass": ("turn", "to", "eph", "pok", "box"), "complain": ("turn", "from", "key", "proof"),
          "open": ("seed",), "timeout": ("seat", "waited"), "abandon": ("seat", "waited")}


def test_junk_in_any_entry_at_any_stage_is_one_game_error_and_changes_nothing() -> None:
    """Bad input always gets a GameError naming its author and changes nothing: after
    junk of every kind at every stage, the game plays on to a verified end."""
    game = new_game(3)
    seen: set[tuple[str, str]] = set()

    def poke(g: Game) -> None:
        stage = (g.cores[0].stage.value, g.cores[0].engine.phase.value)
        if stage in seen or g.finished:
            return
        seen.add(stage)
        for kind, fields in FIELDS.items():
            for i, junk in enumerate(JUNK):
                body = {"round": 1, **{f: JUNK[(i + k) % len(JUNK)] for k, f in
                                       enumerate(fields)}}
                body[fields[i % len(fields)]] = junk
                with pytest.raises(GameError):
                    g.send(1, kind, body)

    game.run_bots(bots(3), on_step=poke)
    assert {"keys", "objectives", "cards", "deal", "play", "pass", "open"} <= {
        st for st, _ in seen}
    assert ("play", "commit") in seen and ("play", "reveal") in seen
    v = verify_records(game.log.records())
    assert v.ok, v.summary


def test_every_seat_recognises_its_own_messages_and_no_forged_one_in_its_name() -> None:
    """The node's seams (made_by_us, move_is_legal, forget_unlogged): every entry of a
    whole game is what its author makes; the same kind with another body is not."""
    game = new_game(3)
    forged = 0

    def check(g: Game) -> None:
        nonlocal forged
        for core in g.cores:
            for kind, body in core.outbox():
                assert core.made_by_us(kind, body)
                if kind in ("pass", "reveal", "deal"):
                    other = {**body, "turn": -1} if "turn" in body else {**body, "hands": {}}
                    assert not core.made_by_us(kind, other)
                    forged += 1
            core.forget_unlogged()  # nothing was sent: owed again next time

    game.run_bots(bots(3), on_step=check)
    assert forged > 20
    assert verify_records(game.log.records()).ok


@pytest.mark.parametrize(("change", "why"), [
    (lambda h: h["rules"].pop("dealer"), "missing key"),
    (lambda h: h["rules"].update(players=4), "for 4 players"),
    (lambda h: h.update(extra=1), "exactly protocol, game, rules, shuffle_proofs and limits"),
    (lambda h: h.update(game="chess"), "unknown key 'game'"),
])
def test_a_bad_splito_header_is_one_line_naming_the_host(change: Callable[[dict[str, Any]], Any],
                                                         why: str) -> None:
    from splitnet.session.log import Log, Player

    settings = SplitoSettings.standard(3)
    header = splito_header(settings, PROTOCOL)
    change(header)
    src = SelfplaySecrets(3)
    ids = [src.identity(s) for s in range(3)]
    log, _ = Log.start(ids[0], game_id=src.game_id(), host_seat=0, settings=header,
                       players=[Player(s, f"p{s}", ids[s].public_key_bytes())
                                for s in range(3)])
    v = verify_records(log.records())
    assert not v.ok and v.summary.startswith("FAILED at entry 0 (seat 0): header:")
    assert why in v.summary and "\n" not in v.summary


def test_a_splito_transcript_cut_short_is_incomplete_not_failed(splito_at_play: Game) -> None:
    game = splito_at_play
    run_until(game, reveal_phase(4))
    v = verify_records(game.log.records())
    assert not v.ok and v.incomplete
    assert v.summary.startswith("incomplete: the transcript ends at play (turn 4)")
