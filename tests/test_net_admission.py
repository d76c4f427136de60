"""Who may connect to the host, and as what (protocol/NETWORK.md §3, §11.7), decided
alone: the connection slots, the hello's own checks, every row of the verdict table and
the finer checks after it, and the bounded memory of the keys let in. Nothing here opens
a connection or reads a clock: the decision is a function of the host's state and the
hello (the wired host: tests/test_attacks_lobby.py, tests/test_net_lobby.py)."""

from __future__ import annotations

import doctest

import pytest

from splitnet.net import admission
from splitnet.net.admission import (
    RULES,
    AdmissionView,
    BackToLobby,
    BackToSeat,
    JoinLobby,
    LetIn,
    Phase,
    Refused,
    Slot,
    ToRematch,
    Verdict,
    Who,
    check_hello,
    decide,
    player_keys,
    slot_for,
)
from splitnet.net.frames import Hello
from splitnet.net.wire import NET_PROTOCOL, ErrorCode, hello_bytes
from splitnet.session.identity import Identity

GAME = b"g" * 16
ANA, BO, EVE = b"a" * 32, b"b" * 32, b"e" * 32
HEADS = {i: bytes([i]) * 32 for i in range(10)}


def hello(key: bytes, name: str = "Eve", *, game: bytes | None = None, have: int = 0,
          head: bytes | None = None) -> Hello:
    return Hello(NET_PROTOCOL, name, key, b"", game, have, head, None)


def view(phase: Phase, *, ready: bool = True, accepting: bool = True) -> AdmissionView:
    if phase in (Phase.LOBBY, Phase.CLOSED):
        return AdmissionView(phase, members=frozenset({ANA}), taken=("Host", "Ana"),
                             accepting=accepting, limit=3)
    if phase is Phase.REMATCH:
        return AdmissionView(phase, seats={ANA: 1, BO: 2})
    return AdmissionView(phase, game=GAME, seats={ANA: 1, BO: 2}, names=("Host", "Ana", "Bo"),
                         count=10, hash_at=HEADS.__getitem__, ready=ready,
                         called_off_why="Bo did not accept it within 120 s")


def test_the_modules_doctests() -> None:
    assert doctest.testmod(admission).failed == 0


def test_a_slot_is_taken_then_the_oldest_handshake_makes_room_then_busy() -> None:
    assert [slot_for(s, g, 4) for s, g in [(0, 0), (2, 1), (3, 0)]] == [Slot.TAKE] * 3
    assert slot_for(4, 0, 4) is Slot.EVICT and slot_for(1, 3, 4) is Slot.EVICT
    assert slot_for(0, 4, 4) is Slot.BUSY and slot_for(0, 9, 4) is Slot.BUSY


def test_a_hello_is_checked_for_version_binding_signature_and_the_hosts_key() -> None:
    host, joiner = Identity.generate(), Identity.generate()
    hk, jk = host.public_key_bytes(), joiner.public_key_bytes()
    nonce, bind = b"n" * 32, b"c" * 32

    def signed(key: bytes, *, v: str = NET_PROTOCOL, bind_: bytes | None = bind,
               signer: Identity = joiner) -> Hello:
        sig = signer.sign(hello_bytes(nonce, hk, "Ana", key, None, 0, bind_))
        return Hello(v, "Ana", key, sig, None, 0, None, bind_)

    assert check_hello(signed(jk), nonce, bind, hk) is None
    cases = [
        (signed(jk, v="splitnet-net/1"), ErrorCode.VERSION, "this host speaks"),
        (signed(jk, bind_=b"d" * 32), ErrorCode.AUTH, "another encrypted connection"),
        (signed(jk, bind_=None), ErrorCode.AUTH, "another encrypted connection"),
        (signed(hk, signer=joiner), ErrorCode.AUTH, "signature does not verify"),
        (signed(hk, signer=host), ErrorCode.AUTH, "the host's own key"),
    ]
    for h, code, words in cases:
        e = check_hello(h, nonce, bind, hk)
        assert e is not None and e.code is code and e.fatal and words in e.reason, (h, e)
        assert "\n" not in e.reason


def test_every_row_of_the_verdict_table() -> None:
    keys = {Who.NEW: EVE, Who.MEMBER: ANA, Who.SEAT: ANA}
    for (phase, who), verdict in RULES.items():
        v = view(phase)
        assert v.who(keys[who]) is who, (phase, who)
        out = decide(v, hello(keys[who], have=0))
        want = {Verdict.JOIN: JoinLobby, Verdict.BACK: BackToLobby,
                Verdict.RESEAT: BackToSeat, Verdict.REMATCH: ToRematch,
                Verdict.CLOSED: Refused, Verdict.STARTED: Refused}[verdict]
        assert isinstance(out, want), (phase, who, out)
        if isinstance(out, Refused):
            assert out.error.fatal
            assert out.error.code is (ErrorCode.CLOSED if verdict is Verdict.CLOSED
                                      else ErrorCode.STARTED)
    # a key's kind is read where it means something: no lobby member in a game, …
    assert view(Phase.GAME).who(EVE) is Who.NEW and view(Phase.LOBBY).who(BO) is Who.NEW
    # … and every (phase, kind) a key can have is in the table
    assert {(p, view(p).who(k)) for p in Phase for k in (ANA, BO, EVE)} <= set(RULES)


def test_a_lobby_takes_a_new_player_under_a_distinct_name_until_full() -> None:
    assert decide(view(Phase.LOBBY), hello(EVE, "ANA")) == JoinLobby("ANA-2")
    assert decide(view(Phase.LOBBY), hello(ANA, "Ana again")) == BackToLobby("Ana again")
    full = decide(view(Phase.LOBBY, accepting=False), hello(EVE))
    assert isinstance(full, Refused) and full.error.code is ErrorCode.FULL
    assert full.error.reason == "the table is full (3 players)"
    # a member's reconnect is let in even to a full lobby: it is already counted
    assert decide(view(Phase.LOBBY, accepting=False), hello(ANA)) == BackToLobby("Eve")


@pytest.mark.parametrize("phase", [Phase.LOBBY, Phase.CLOSED, Phase.GAME, Phase.CALLED_OFF])
def test_a_hello_for_another_game_is_refused_first_in_every_phase_but_a_rematch(
        phase: Phase) -> None:
    out = decide(view(phase), hello(ANA, game=b"x" * 16))
    assert isinstance(out, Refused) and out.error.code is ErrorCode.UNKNOWN_GAME
    assert out.error.fatal and (b"x" * 16).hex() in out.error.reason
    assert isinstance(decide(view(Phase.REMATCH), hello(ANA, game=b"x" * 16)), ToRematch)


def test_a_seat_back_gets_its_records_or_is_refused_naming_the_fork() -> None:
    v = view(Phase.GAME)
    assert decide(v, hello(BO, "bo", game=GAME, have=4, head=HEADS[3])) == BackToSeat(
        2, "Bo", None)
    assert decide(v, hello(BO)) == BackToSeat(2, "Bo", None)  # nothing held yet
    forked = decide(v, hello(BO, have=4, head=HEADS[2]))
    assert isinstance(forked, Refused) and forked.error.code is ErrorCode.FORK
    assert forked.error.reason == "your record 3 differs from the host's"
    assert forked.name == "Bo"  # (logged under its seat's name)
    more = decide(v, hello(BO, have=12))
    assert isinstance(more, Refused) and more.error.code is ErrorCode.FORK
    # a restarted host (not ready) that lost its tail asks for it back
    assert decide(view(Phase.GAME, ready=False), hello(BO, have=12)) == BackToSeat(
        2, "Bo", (10, 12))


def test_a_called_off_game_tells_its_seats_why_and_strangers_that_it_started() -> None:
    v = view(Phase.CALLED_OFF)
    out = decide(v, hello(BO))
    assert isinstance(out, Refused) and out.name == "Bo" and out.error.fatal
    assert out.error.code is ErrorCode.CLOSED and out.error.reason == v.called_off_why
    stranger = decide(v, hello(EVE))
    assert isinstance(stranger, Refused) and stranger.error.code is ErrorCode.STARTED


def test_the_keys_let_in_are_bounded_and_a_member_is_never_forgotten() -> None:
    k = LetIn(limit=3)
    for key in (ANA, BO, EVE, b"f" * 32):
        k.add(key, members={ANA})
    assert k.keys == {ANA, EVE, b"f" * 32}  # Bo, the oldest not a member, went
    k.add(EVE, members={ANA})  # let in again: now the newest
    k.add(b"g" * 32, members={ANA})
    assert k.keys == {ANA, EVE, b"g" * 32}
    assert player_keys(None, k.keys, {BO}) == {ANA, EVE, b"g" * 32, BO}
    assert player_keys({BO: 2}, k.keys, {ANA}) == {BO}  # a game: its seats alone
