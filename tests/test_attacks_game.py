"""Attacks on the game protocol by a dishonest peer or host, over the real protocol: every
message is signed by its author and ordered into the host-signed hash-chained log of a
:class:`~splitnet.games.split.local.LocalGame`; each peer is a separate
:class:`~splitnet.games.split.core.GameCore` holding only its own secrets.

Each attack is shown twice where it can be: an honest host refuses the message (it never
reaches the log, the game goes on), and a *blind* host orders it anyway — then every
honest peer catches it by itself at the same step naming the same seat, keeps its state,
and ``splitnet verify`` on the transcript fails exactly at that entry while everything
before it verifies. The table of attacks is protocol/SECURITY.md.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from splitnet.crypto import group
from splitnet.crypto.elgamal import card_points
from splitnet.crypto.errors import DeckUsageError
from splitnet.crypto.proofs import prove_key
from splitnet.crypto.seeds import derive_key
from splitnet.game.table import GameError
from splitnet.games.split.bots import make_bot
from splitnet.games.split.core import GameCore
from splitnet.games.split.local import LocalGame, SelfplaySecrets
from splitnet.games.split.rules import DrawPile, Lay, Settings, action_to_dict
from splitnet.session.codec import encode
from splitnet.session.log import TAG_ENTRY, Log, LogError
from splitnet.verify import verify_records
from tests.test_game_fair import send_one, state, until


def new_game(n: int = 2, *, seed: int = 1, proofs: bool = False, hand_size: int = 3,
             rounds: int = 1, source: SelfplaySecrets | None = None) -> LocalGame:
    return LocalGame([f"p{i}" for i in range(n)], Settings(rounds=rounds, hand_size=hand_size),
                     source or SelfplaySecrets(seed), shuffle_proofs=proofs)


def host_refuses(g: LocalGame, seat: int, kind: str, body: dict[str, Any], step: str,
                 at_fault: int) -> GameError:
    """An honest host applies the message to its own core first: refused, nothing ordered,
    the author's counter not used up."""
    n, counter = len(g.log), g.authors[seat].counter
    with pytest.raises(GameError) as e:
        g.send(seat, kind, copy.deepcopy(body))
    assert (e.value.seat, e.value.step) == (at_fault, step), str(e.value)
    assert len(g.log) == n and g.authors[seat].counter == counter
    return e.value


def order_blind(g: LocalGame, seat: int, kind: str, body: dict[str, Any]) -> int:
    """A blind host: the author signs, the host checks only the log layer (signature,
    counter) and orders it. Returns the entry's seq; nobody has applied it yet."""
    msg, sig = g.authors[seat].message(kind, copy.deepcopy(body), seen=g.log.seen())
    g.log.order(msg, sig, g.host)
    return len(g.log) - 1


def caught_by_all(g: LocalGame, seq: int, at_fault: int, step: str, reason: str = "",
                  *, skip: tuple[int, ...] = ()) -> None:
    """Every peer but the author (and ``skip``) refuses entry ``seq`` naming ``at_fault`` at
    ``step`` and keeps its state; the transcript verifies up to ``seq`` and fails there."""
    e = g.log.entries[seq]
    for i, core in enumerate(g.cores):
        if i == e.author or i in skip:
            continue
        before = state(core)
        with pytest.raises(GameError) as info:
            core.apply(e.author, e.kind, copy.deepcopy(dict(e.body)))
        err = info.value
        assert (err.seat, err.step) == (at_fault, step), f"peer {i}: {err}"
        assert reason in err.reason, f"peer {i}: {err}"
        assert state(core) == before, f"peer {i} changed while refusing"
    pinned(g.log.records(), seq, at_fault)


def pinned(records: list[bytes], seq: int, at_fault: int | None) -> None:
    """``splitnet verify``: everything before entry ``seq`` verifies (an incomplete game),
    and the transcript fails exactly at ``seq`` naming ``at_fault``."""
    before = verify_records(records[:seq])
    assert before.reason == "the game did not finish", before.summary
    v = verify_records(records[: seq + 1])
    assert (v.ok, v.seq, v.seat) == (False, seq, at_fault), v.summary


def stopped(g: LocalGame, at_fault: int, step: str, reason: str = "") -> None:
    """A valid entry ended the game with a verdict: every peer reached the same one."""
    for i, core in enumerate(g.cores):
        v = core.verdict
        assert v is not None and (v.seat, v.step) == (at_fault, step), f"peer {i}: {v}"
        assert reason in v.reason and core.finished and not core.can_move()
        assert core.outbox() == [] and core.waiting_for() == []
    pinned(g.log.records(), len(g.log) - 1, at_fault)


def draw_started(g: LocalGame) -> tuple[int, int, int]:
    """Play until a seat draws from the pile: (drawer, slot, a seat owing a draw share
    other than the host where possible)."""
    until(g, "play")
    actor = g.cores[0].engine.actor
    assert actor is not None
    g.play_move(actor, DrawPile(actor))
    r = g.cores[0].round
    assert r is not None and r.draw is not None
    drawer, slot, due = r.draw
    owing = max(due)
    return drawer, slot, owing


def draw_body(g: LocalGame, seat: int, slot: int, purpose: str = "draw") -> dict[str, Any]:
    r = g.cores[seat].round
    assert r is not None
    return {"round": r.number, "purpose": "draw", **r.deck.shares_message([slot], purpose)}


def alias(point: bytes) -> bytes:
    """The same point with bit 255 set: libsodium decodes it as the same point."""
    return point[:31] + bytes([point[31] | 0x80])


# ------------------------------------------------------------------ decryption shares
def test_a_wrong_draw_share_is_caught_naming_its_sender() -> None:
    g = new_game(3)
    _, slot, bad = draw_started(g)
    body = draw_body(g, bad, slot)
    body["shares"] = [group.base_mul(12345)]  # not x_bad·c1: the drawer would misread
    host_refuses(g, bad, "shares", body, "shares", bad)
    seq = order_blind(g, bad, "shares", body)
    caught_by_all(g, seq, bad, "shares", "proof")


def test_a_right_share_with_a_bad_proof_is_caught_naming_its_sender() -> None:
    """The share is x·c1 but the proof is not for this statement: one made for a reveal of
    the same slot (the purpose is bound), or one with a changed response."""
    g = new_game(3)
    _, slot, bad = draw_started(g)
    good = draw_body(g, bad, slot)
    other_purpose = dict(good, proof=draw_body(g, bad, slot, "reveal")["proof"])
    assert other_purpose["shares"] == good["shares"]
    pf = good["proof"]
    z = (int.from_bytes(pf[64:], "little") + 1) % group.L
    tweaked = dict(good, proof=pf[:64] + group.scalar_bytes(z))
    for body in (other_purpose, tweaked):
        host_refuses(g, bad, "shares", body, "shares", bad)
    seq = order_blind(g, bad, "shares", other_purpose)
    caught_by_all(g, seq, bad, "shares", "proof")


def test_a_point_alias_with_bit_255_set_is_refused() -> None:
    """The same share encoded with bit 255 set (libsodium would decode it as the same
    point) is refused: every value must have one encoding, or signed bytes and hashed
    transcripts could disagree."""
    g = new_game(3)
    _, slot, bad = draw_started(g)
    body = draw_body(g, bad, slot)
    share = body["shares"][0]
    assert group.add(alias(share), group.IDENTITY) == share
    body["shares"] = [alias(share)]
    e = host_refuses(g, bad, "shares", body, "shares", bad)
    assert "bit 255" in e.reason
    seq = order_blind(g, bad, "shares", body)
    caught_by_all(g, seq, bad, "shares", "bit 255")


def test_a_bad_last_deal_share_is_refused_and_a_corrected_one_completes_the_deal() -> None:
    """The deal's proofs are checked together when the last seat's shares arrive. If the
    last one is bad, the host refuses it and no share of the batch is kept: the seat's
    corrected shares then complete the deal (the earlier, honest dealers are not blamed
    for 'duplicate' shares)."""
    g = new_game(3)
    until(g, "deal")
    for seat in (0, 1):
        g.send(seat, "shares", g.cores[seat].outbox()[0][1])
    kind, honest = g.cores[2].outbox()[0]
    bad = dict(honest, shares=[honest["shares"][1], honest["shares"][0], *honest["shares"][2:]])
    host_refuses(g, 2, "shares", bad, "shares", 2)
    g.send(2, kind, honest)
    assert all(c.round is not None and c.round.stage == "play" for c in g.cores)
    assert all(c.verdict is None for c in g.cores)


# ------------------------------------------------------------------ keys and replays
def test_a_rogue_key_share_without_proof_of_knowledge_is_refused() -> None:
    """Seat 1 waits for seat 0's key Y_0 and announces Y_1 = T − Y_0: the joint key would
    be T, whose log seat 1 knows, so it alone could read every card. It cannot prove
    knowledge of log Y_1."""
    g = new_game(2)
    send_one(g)  # seat 0 commits
    r0 = g.cores[0].round
    assert r0 is not None
    y0 = r0.deck.keys[0]
    target = group.base_mul(1234)
    rogue = group.sub(target, y0)
    assert group.add(rogue, y0) == target
    r1 = g.cores[1].round
    assert r1 is not None
    body = {"round": 1, **r1.deck.commit_message(), "key": rogue,
            "pok": prove_key(999, rogue, g.log.game_id, 1, 1)}
    host_refuses(g, 1, "commit", body, "commit", 1)
    seq = order_blind(g, 1, "commit", body)
    caught_by_all(g, seq, 1, "commit", "proof of knowledge")


class _OtherGame(SelfplaySecrets):
    """The same players (identities, seeds) in another game."""

    def game_id(self) -> bytes:
        return b"\x07" * 16


def test_a_message_from_another_game_is_refused() -> None:
    """Seat 1's signed commit from game A, sent in game B (same players): the signature
    covers game A's id, so the log layer refuses it (the host names seat 1; a host that
    orders it anyway is named by every peer). Re-signed into game B, its proof of
    knowledge still binds game A."""
    a, b = new_game(2), new_game(2, source=_OtherGame(1))
    for g in (a, b):
        send_one(g)  # seat 0 commits
    send_one(a)  # seat 1 commits in game A
    old = a.log.entries[-1]
    assert old.author == 1 and old.kind == "commit"
    with pytest.raises(LogError) as e:
        b.log.check_order(old.msg_bytes, old.sig)
    assert e.value.code == "game-id"
    # a host that orders it regardless: every peer refuses the record, naming the host
    records = b.log.records()
    bad = _host_record(b, len(records), old.msg_bytes, old.sig)
    with pytest.raises(LogError) as e:
        Log.from_records([*records, bad])
    assert (e.value.code, e.value.seat) == ("game-id", 0)
    pinned([*records, bad], len(records), 0)
    # the same body, signed anew for game B by seat 1
    body = dict(old.body)
    host_refuses(b, 1, "commit", body, "commit", 1)
    seq = order_blind(b, 1, "commit", body)
    caught_by_all(b, seq, 1, "commit", "proof of knowledge")


def test_a_message_from_another_round_is_refused() -> None:
    """Round 2: seat 1's round-1 commit replayed verbatim (its counter is used: the log
    layer refuses it), re-signed as it was (a message for round 1), and re-signed with
    its round field changed to 2 (the proof of knowledge binds round 1)."""
    g = new_game(2, rounds=2, hand_size=2)
    bots = [make_bot("random", 0), make_bot("random", 1)]
    for _ in range(5000):
        r = g.cores[0].round
        if r is not None and r.number == 2:
            break
        if not send_one(g):
            seat = g.mover()
            assert seat is not None
            g.play_move(seat, bots[seat].choose(g.cores[seat].engine, seat))
    else:
        raise AssertionError("round 2 never came")
    first = next(e for e in g.log.entries if e.kind == "commit" and e.author == 1)
    assert first.body["round"] == 1
    with pytest.raises(LogError) as e:
        g.log.check_order(first.msg_bytes, first.sig)
    assert (e.value.code, e.value.seat) == ("replay", 1)
    as_it_was = dict(first.body)
    err = host_refuses(g, 1, "commit", as_it_was, "commit", 1)
    assert "round 1 during round 2" in err.reason
    moved = dict(first.body, round=2)
    host_refuses(g, 1, "commit", moved, "commit", 1)
    seq = order_blind(g, 1, "commit", moved)
    caught_by_all(g, seq, 1, "commit", "proof of knowledge")


def _host_record(g: LocalGame, seq: int, msg: bytes, sig: bytes) -> bytes:
    """A record the host signs around any author message and signature it likes."""
    entry = encode([TAG_ENTRY, seq, g.log.head(), msg, sig])
    return encode([entry, g.host.sign(entry)])


def test_a_forged_author_signature_is_refused_and_a_host_that_orders_it_is_named() -> None:
    """A message claiming seat 1 with a signature seat 1 never made: the host refuses it
    (naming the claimed author — it knows the connection it came from); a host that forges
    or orders it anyway signed the entry, so every peer names the host, not seat 1."""
    g = new_game(2)
    send_one(g)  # seat 0 commits
    r1 = g.cores[1].round
    assert r1 is not None
    forger = SelfplaySecrets(99).identity(1)
    msg, _ = g.authors[1].message("chat", {"text": "I concede"}, seen=g.log.seen())
    g.authors[1].counter -= 1
    sig = forger.sign(msg)
    with pytest.raises(LogError) as e:
        g.log.check_order(msg, sig)
    assert (e.value.code, e.value.seat) == ("author-sig", 1)
    records = g.log.records()
    bad = _host_record(g, len(records), msg, sig)
    with pytest.raises(LogError) as e:
        Log.from_records([*records, bad])
    assert (e.value.code, e.value.seat) == ("author-sig", 0)
    pinned([*records, bad], len(records), 0)


# ------------------------------------------------------------------ moves
@pytest.mark.parametrize("how", ["out of turn", "a card it does not hold"])
def test_a_bad_move_ordered_by_a_blind_host_is_pinned_on_the_mover(how: str) -> None:
    """(test_game_fair shows every peer refusing these; here the transcript names the
    mover at that entry too.)"""
    g = new_game(3)
    until(g, "play")
    actor = g.cores[0].engine.actor
    assert actor is not None
    if how == "out of turn":
        seat = (actor + 1) % 3
        body = {"round": 1, "move": action_to_dict(DrawPile(seat))}
        reason = "out of turn"
    else:
        g.play_move(actor, DrawPile(actor))
        g.pump()
        seat = actor
        other = (actor + 1) % 3
        a, b = g.cores[other].engine.hands[other][:2]
        body = {"round": 1, "move": action_to_dict(Lay(actor, a, b))}
        reason = "does not hold"
    host_refuses(g, seat, "move", body, "move", seat)
    seq = order_blind(g, seat, "move", body)
    caught_by_all(g, seq, seat, "move", reason)


# ------------------------------------------------------------------ shuffles
def _hop_with_proof(g: LocalGame, seat: int) -> dict[str, Any]:
    r = g.cores[seat].round
    assert r is not None
    return {"round": 1, **r.deck.shuffle_message()}


@pytest.mark.slow
@pytest.mark.parametrize("cheat", ["plant a card", "duplicate a card", "replay hop 0's proof",
                                   "replay hop 0"])
def test_a_dishonest_hop_is_refused_at_the_shuffle_with_proofs(cheat: str) -> None:
    """Seat 1's hop with an honest proof attached, but: a card's ciphertext replaced by a
    fresh encryption of a card of its choosing (a planted card); one ciphertext copied over
    another (a card duplicated, another dropped); its honest deck with seat 0's proof; or
    seat 0's whole hop (deck and proof) as its own. Every peer refuses it at the shuffle,
    before any card is dealt, naming seat 1."""
    g = new_game(2, proofs=True)
    until(g, "shuffle")
    send_one(g)  # seat 0's hop (proved)
    hop0 = g.log.entries[-1].body
    body = _hop_with_proof(g, 1)
    deck = [list(ct) for ct in body["deck"]]
    r = g.cores[1].round
    assert r is not None and r.deck.joint_key is not None
    if cheat == "plant a card":
        rho = 777
        m = card_points(g.log.game_id)[5]
        deck[0] = [group.base_mul(rho), group.add(m, group.mul(rho, r.deck.joint_key))]
    elif cheat == "duplicate a card":
        deck[1] = deck[0]
    elif cheat == "replay hop 0's proof":
        body["proof"] = hop0["proof"]
    else:
        deck, body["proof"] = [list(ct) for ct in hop0["deck"]], hop0["proof"]
    body["deck"] = deck
    seq = order_blind(g, 1, "shuffle", body)
    caught_by_all(g, seq, 1, "shuffle", "shuffle proof is rejected")


def test_a_point_alias_in_a_hop_is_refused_naming_the_shuffler() -> None:
    g = new_game(2)
    until(g, "shuffle")
    send_one(g)
    body = _hop_with_proof(g, 1)
    body["deck"] = [list(ct) for ct in body["deck"]]
    body["deck"][5][1] = alias(body["deck"][5][1])
    host_refuses(g, 1, "shuffle", body, "shuffle", 1)
    seq = order_blind(g, 1, "shuffle", body)
    caught_by_all(g, seq, 1, "shuffle", "deck[5].c2")


# ------------------------------------------------------------------ alarms and openings
def test_a_false_alarm_stops_the_game_at_the_last_opening_whoever_sends_it() -> None:
    """The alarmist opens first; the last opening comes from an honest seat. That entry is
    valid: the host orders it, and every peer stops the game naming the alarmist (the
    honest seat's opening is not refused, which would stall the game)."""
    g = new_game(2)
    until(g, "play")
    g.send(1, "alarm", {"round": 1, "reason": "I do not like my cards"})
    r1 = g.cores[1].round
    assert r1 is not None
    g.send(1, "open", {"round": 1, **r1.deck.open_message()})
    send_one(g)  # seat 0's opening, the last one
    assert g.log.entries[-1].author == 0
    stopped(g, 1, "alarm", "false alarm")
    with pytest.raises(GameError, match="false alarm"):
        g.run_bots([make_bot("random", 0), make_bot("random", 1)])


def test_an_alarm_with_shuffle_proofs_on_is_refused_naming_the_alarmist_and_nobody_opens(
) -> None:
    """With every hop proved no card can decrypt wrongly, so an alarm can only be a
    ploy: it would make every honest seat open its seed at once — its key share too —
    and the alarmist would read all 104 slots before being convicted. An honest host
    refuses it; ordered by a blind host, every peer refuses it naming the alarmist. Nobody
    opens, play stays where it was (R8.1, R8.4; GAME.md "alarm and open")."""
    g = new_game(2, proofs=True)
    until(g, "play")
    body = {"round": 1, "reason": "slot 5 decrypts to no card"}
    host_refuses(g, 1, "alarm", body, "alarm", 1)
    seq = order_blind(g, 1, "alarm", body)
    caught_by_all(g, seq, 1, "alarm", "an alarm is refused")
    for core in g.cores:
        r = core.round
        assert r is not None and r.stage == "play" and r.aborted is None and not r.opened
        assert all(kind != "open" for kind, _ in core.outbox())


def test_the_last_dealer_reads_its_own_hand_first_and_can_only_abort() -> None:
    """What the last seat to send its deal shares can see before it acts: every other
    seat's shares are in the log, so (reading ahead of the protocol, which applies the
    deal only once it is complete) it can read its own hand and the first discard —
    nothing else: every other slot still lacks another seat's share. The seats that dealt
    before it can read nothing yet (each lacks the last dealer's shares of its own hand).
    Its only response is to abort: the host's ``timeout`` stops the game naming it at
    ``shares`` (SECURITY.md §4; R8.1)."""
    g = new_game(3)
    until(g, "deal")
    for seat in (0, 1):
        for kind, body in g.cores[seat].outbox():
            g.send(seat, kind, body)
    dealt = g.settings.hand_size * 3
    for seat, core in enumerate(g.cores):
        r = core.round
        assert r is not None and r.stage == "deal"
        ahead = r.deck.fork()
        ahead.on_shares_batch(r.deal_buffer, "deal")  # a node reading ahead
        own = set(range(dealt)) - set(core.deal_slots(seat))
        assert ahead.known_slots() == (own | {dealt} if seat == 2 else set())
    g.send(0, "timeout", {"round": 1, "seat": 2, "waited": 120})
    stopped(g, 2, "shares", "did not answer for 120 s")


def test_the_last_opener_reads_every_card_first_and_can_only_abort() -> None:
    """What the last seat to open its seed can see before it acts: every other seed is
    open, so with its own it reads all 104 slots — the unplayed hands and the rest of the
    pile. The round is over (its play is fixed in the log, the next round has fresh
    seeds), so this changes nothing; the seats that opened before it can read nothing
    more than before (the audit needs its seed). Its only response is to abort: the
    host's ``timeout`` stops the game naming it at ``open`` (SECURITY.md §4; R8.4)."""
    g = new_game(3)
    until(g, "open")
    for seat in (0, 1):
        for kind, body in g.cores[seat].outbox():
            g.send(seat, kind, body)
    r2 = g.cores[2].round
    assert r2 is not None
    ahead = r2.deck.fork()
    ahead.on_open(2, r2.deck.open_message())
    assert sorted(ahead.audit()) == list(range(104))
    for seat in (0, 1):
        r = g.cores[seat].round
        assert r is not None
        with pytest.raises(DeckUsageError, match="missing seats \\[2\\]"):
            r.deck.fork().audit()
    g.send(0, "timeout", {"round": 1, "seat": 2, "waited": 120})
    stopped(g, 2, "open", "did not answer for 120 s")


def test_refusing_to_open_ends_in_a_timeout_naming_the_seat() -> None:
    """Seat 1 never opens its seed. The host (NETWORK.md §7 decides when) orders a
    ``timeout``: every peer checks the game does wait for seat 1, and stops naming it."""
    g = new_game(2)
    until(g, "open")
    send_one(g)  # seat 0 opens; seat 1 does not
    assert g.cores[0].waiting_for() == [1]
    g.send(0, "timeout", {"round": 1, "seat": 1, "waited": 120})
    stopped(g, 1, "open", "did not answer for 120 s")


def test_refusing_to_send_a_draw_share_ends_in_a_timeout_naming_the_seat() -> None:
    g = new_game(3)
    drawer, slot, late = draw_started(g)
    for seat in sorted(set(range(3)) - {drawer, late}):
        g.send(seat, "shares", draw_body(g, seat, slot))
    g.send(0, "timeout", {"round": 1, "seat": late, "waited": 120})
    stopped(g, late, "shares", "did not answer")


@pytest.mark.parametrize("who", ["a seat that owes nothing", "the host itself",
                                 "a seat that is not the host"])
def test_a_false_timeout_is_refused_naming_its_sender(who: str) -> None:
    g = new_game(3)
    drawer, slot, late = draw_started(g)
    for seat in sorted(set(range(3)) - {drawer, late}):
        g.send(seat, "shares", draw_body(g, seat, slot))
    assert g.cores[0].waiting_for() == [late]
    other = next(s for s in (1, 2) if s != late)
    sender, named = 0, late
    if who == "a seat that owes nothing":
        named = other
    elif who == "the host itself":
        named = 0
    else:
        sender = other
    body = {"round": 1, "seat": named, "waited": 60}
    host_refuses(g, sender, "timeout", body, "timeout", sender)
    seq = order_blind(g, sender, "timeout", body)
    caught_by_all(g, seq, sender, "timeout")


# ------------------------------------------------------------------ who can read what
def test_an_eavesdropper_reads_only_the_public_cards() -> None:
    """Everything on the wire is the log. An observer core fed the whole log (what an
    eavesdropper on a plain connection, or the verifier, sees) reads exactly the public
    slots — the first discard and played cards — never a hand or the pile."""
    g = new_game(3)
    eve = GameCore(g.log.game_id, g.names, g.settings, None, shuffle_proofs=False)
    g.listeners.append(lambda a, k, b: eve.apply(a, k, copy.deepcopy(b)))
    for e in g.log.entries[1:]:
        if e.kind != "accept":
            eve.apply(e.author, e.kind, copy.deepcopy(dict(e.body)))
    bots = [make_bot("random", i) for i in range(3)]
    checked = 0
    for _ in range(200):
        r = eve.round
        if r is None or r.stage == "open":
            break
        if r.stage == "play":
            assert r.deck.known_slots() == r.public
            assert not any(eve.engine.faces[s] is not None for h in eve.engine.hands for s in h
                           if s not in r.public)
            checked += 1
        if not send_one(g):
            seat = g.mover()
            assert seat is not None
            g.play_move(seat, bots[seat].choose(g.cores[seat].engine, seat))
    assert checked > 3


def test_every_other_seat_together_still_cannot_read_a_hand() -> None:
    """Reading a slot takes every seat's key share: seats 1 and 2 pooling their secret
    seeds, with every share in the log, still cannot read seat 0's hand; seat 0 alone
    can. (Each hand is hidden from any coalition that excludes its holder.)"""
    g = new_game(3)
    until(g, "play")
    src, gid = SelfplaySecrets(1), g.log.game_id
    x = {s: derive_key(gid, 1, s, src.round_seeds(s)(1)) for s in range(3)}
    r = g.cores[0].round
    assert r is not None and r.deck.deck is not None
    table = {p: k for k, p in enumerate(card_points(gid))}
    for slot in g.cores[0].engine.hands[0]:
        c1, c2 = r.deck.deck[slot]
        coalition = group.sub(c2, group.mul((x[1] + x[2]) % group.L, c1))
        assert coalition not in table
        everyone = group.sub(coalition, group.mul(x[0], c1))
        assert table[everyone] == r.deck.card(slot)


def test_without_proofs_the_last_shuffler_can_see_every_card_until_its_opening() -> None:
    """The limit of ``shuffle_proofs: false``: the last shuffler replaces its hop by fresh
    encryptions of all 104 cards in an order it chose. Every card still appears once, so
    nobody notices during play — and it knows every hand. Its opening cannot reproduce
    that hop from its committed seed: it is refused, naming the shuffler, and (as it can
    never open) the game ends with its timeout. With proofs the hop is refused at once."""
    g = new_game(2)
    until(g, "shuffle")
    send_one(g)  # seat 0's honest hop
    r1 = g.cores[1].round
    assert r1 is not None and r1.deck.joint_key is not None
    y, points = r1.deck.joint_key, card_points(g.log.game_id)
    order = list(range(104))[::-1]  # the cheater's chosen deck: slot s holds card order[s]
    deck = [[group.base_mul(1000 + s), group.add(points[order[s]],
                                                   group.mul(1000 + s, y))] for s in range(104)]
    seq = order_blind(g, 1, "shuffle", {"round": 1, "deck": deck, "proof": None})
    e = g.log.entries[seq]
    for core in g.cores:
        core.apply(e.author, e.kind, copy.deepcopy(dict(e.body)))
    until(g, "play")
    r0 = g.cores[0].round
    assert r0 is not None and r0.alarm is None
    hand0 = g.cores[0].engine.hands[0]
    assert [r0.deck.card(s) for s in hand0] == [order[s] for s in hand0]  # seat 1 knew
    until(g, "open")
    send_one(g)  # seat 0 opens
    body = {"round": 1, **r1.deck.open_message()}
    host_refuses(g, 1, "open", body, "open", 1)
    seq = order_blind(g, 1, "open", body)
    caught_by_all(g, seq, 1, "open", "does not match the seed")


def test_the_attack_table_cites_only_tests_that_exist() -> None:
    """protocol/SECURITY.md §6 names a test for every attack: each one must exist."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    text = (root / "protocol" / "SECURITY.md").read_text()
    table = text[text.index("## 6. The attacks"):]
    cited = re.findall(r"(test_\w+)::(test_\w+)", table)
    assert len(cited) > 60
    missing = []
    for module, name in cited:
        source = (root / "tests" / f"{module}.py").read_text()
        if not re.search(rf"^(async )?def {name}\(", source, re.M):
            missing.append(f"{module}::{name}")
    assert not missing, missing
    rows = re.findall(r"^\| (\d+) \|", table, re.M)
    assert rows == [str(i) for i in range(1, len(rows) + 1)] and len(rows) >= 30
