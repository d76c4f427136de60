"""One play, one encoding: a field of a game message typed int never accepts ``true`` or
``false`` (protocol/WIRE.md §4: a bool is not an int). Python's ``True == 1`` let
``"round": true`` (and Splito's ``"turn": true``) pass every ``==`` check of every kind,
so the same play could be signed in two encodings and an implementation written from
protocol/ would refuse transcripts splitnet accepted (protocol/SECURITY.md §6, row 98).

For every game message kind of Split (GAME.md) and Splito (SPLITO_GAME.md §4) that has
an int field, each such field is put to a bool in an honest message of that kind at the
moment it is due; then:

- every peer refuses it before looking at anything else, with one line naming its
  sender, and is unchanged;
- the host's ordering refuses it (nothing ordered, the counter not used up); over the
  LAN it answers an ``error`` frame with code ``schema``;
- a transcript holding it — the record signed by its author and by the host — fails
  ``splitnet verify`` at that entry naming the sender;
- the honest message (the same play, its int as an int) is accepted afterwards.
"""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Callable
from enum import Enum
from pathlib import Path
from types import FunctionType, MethodType, ModuleType
from typing import Any

import pytest

from splitnet.game.table import GameError, IntPath, NotAnInt, Position
from splitnet.games.split.bots import open_hand_player
from splitnet.games.split.core import INT_FIELDS as SPLIT_INT_FIELDS
from splitnet.games.split.core import KINDS as SPLIT_KINDS
from splitnet.games.split.local import LocalGame, SelfplaySecrets
from splitnet.games.split.rules import Discard, DrawPile, Settings, action_to_dict
from splitnet.games.splito.core import INT_FIELDS as SPLITO_INT_FIELDS
from splitnet.games.splito.core import KINDS as SPLITO_KINDS
from splitnet.games.splito.core import SplitoCore, Stage
from splitnet.games.splito.engine import Phase
from splitnet.net.frames import Msg
from splitnet.net.wire import WireError
from splitnet.session.codec import encode
from splitnet.session.log import TAG_ENTRY, Author, message_bytes, parse_message
from splitnet.verify import verify_records
from tests import test_splito_fair as sf
from tests.memnet import MemoryNet
from tests.test_attacks_game import draw_body, draw_started
from tests.test_attacks_net import Lan, _msg_of
from tests.test_attacks_reveal import _a_joiners_turn_after_drawing, _refused
from tests.test_game_fair import send_one, until
from tests.test_net_splito_mem import core as splito_core_of
from tests.test_net_splito_mem import splito_table
from tests.test_net_timing import stop
from tests.test_open_hand import abandon_body, at_play_waiting_for
from tests.virtual_time import VirtualLoop, virtual_time, within

Game = LocalGame[Any]
#: each Splito case has every peer check the other seats' hops as the game is set up, then
#: runs verify_records over the same prefix once per field it flips: the same proofs
pytestmark = pytest.mark.usefixtures("each_shuffle_proof_checked_once")
#: (the game, the sender, the kind, its honest body) at the moment that message is due
Case = tuple[Game, int, str, dict[str, Any]]


# ------------------------------------------------------------------ helpers
_SKIP = {"checker", "_table", "_points", "settings", "_prover", "_verifier", "_splitter",
         "hop_memo", "pledges", "plays", "open_hand", "seeds"}


def fingerprint(x: Any, seen: set[int] | None = None) -> Any:
    """Everything a core holds, as plain values (its injected services left out)."""
    seen = set() if seen is None else seen
    if x is None or isinstance(x, int | str | bytes | float | Enum):
        return x
    if isinstance(x, type | ModuleType | FunctionType | MethodType):
        return id(x)
    if isinstance(x, list | tuple):
        return (type(x).__name__, [fingerprint(i, seen) for i in x])
    if isinstance(x, set | frozenset):
        return ("set", frozenset(x))
    if isinstance(x, dict):
        return {k: fingerprint(v, seen) for k, v in x.items()}
    if hasattr(x, "__dict__"):
        if id(x) in seen:
            return ("seen", id(x))
        seen.add(id(x))
        return (type(x).__name__, {k: fingerprint(v, seen) for k, v in vars(x).items()
                                   if k not in _SKIP})
    return x  # frozen value objects (slots dataclasses) compare by value


def flip(body: dict[str, Any], path: IntPath) -> tuple[dict[str, Any], str, bool]:
    """``body`` with the int at ``path`` (``"*"``: the list's first item) put to a bool —
    the one it equals in Python when it is 0 or 1, else true; the field's name."""
    bad = copy.deepcopy(body)
    node: Any = bad
    where = ""
    for i, key in enumerate(path):
        idx: int | str = 0 if key == "*" else key
        where += "[0]" if key == "*" else (f".{key}" if where else key)
        if i < len(path) - 1:
            node = node[idx]
            continue
        old = node[idx]
        assert type(old) is int, (where, old)
        new = bool(old) if old in (0, 1) else True
        node[idx] = new
    return bad, where, new


def signed_record(g: Game, sender: int, kind: str, body: dict[str, Any]) -> bytes:
    """The next record of ``g``'s log holding ``body`` as signed by ``sender`` and by the
    host (a host that orders it blindly; ``g`` is not changed)."""
    msg = message_bytes(g.log.game_id, sender, g.log.next_counter(sender), kind, body,
                        seen=g.log.seen())
    sig = g.authors[sender].identity.sign(msg)
    entry = encode([TAG_ENTRY, len(g.log), g.log.head(), msg, sig])
    return encode([entry, g.host.sign(entry)])


def owed(g: Game, seat: int, kind: str) -> dict[str, Any]:
    """The ``kind`` message ``seat`` owes now (made again next time: nothing is sent)."""
    core = g.cores[seat]
    out = [b for k, b in core.outbox() if k == kind]
    core.forget_unlogged()
    assert out, f"seat {seat} owes no {kind} now"
    return copy.deepcopy(out[0])


def refused_everywhere(g: Game, sender: int, kind: str, honest: dict[str, Any],
                       paths: list[IntPath], *, accepted: bool = True) -> None:
    """Each path of ``honest`` put to a bool: refused by every peer (unchanged), by the
    host's ordering, and by verify on a host-signed record; then (``accepted``) the honest
    message goes through."""
    assert paths
    records = g.log.records()
    prefix = verify_records(records)
    assert not prefix.ok and prefix.incomplete, prefix.summary
    for path in paths:
        bad, where, value = flip(honest, path)
        want = (f"seat {sender} at {kind}: {where}: expected an int, got "
                f"{'true' if value else 'false'} (WIRE.md §4: a bool is not an int)")
        at = Position(len(g.log), g.log.head(), g.log.next_counter(sender))
        for i, core in enumerate(g.cores):
            before = fingerprint(core)
            with pytest.raises(GameError) as info:
                core.apply(sender, kind, copy.deepcopy(bad), at=at)
            err = info.value
            assert isinstance(err, NotAnInt), f"peer {i}: {err}"
            assert (err.seat, err.step, str(err)) == (sender, kind, want), f"peer {i}: {err}"
            assert fingerprint(core) == before, f"peer {i} changed while refusing {where}"
        n, counter = len(g.log), g.authors[sender].counter
        with pytest.raises(NotAnInt) as info:
            g.send(sender, kind, copy.deepcopy(bad))
        assert str(info.value) == want
        assert len(g.log) == n and g.authors[sender].counter == counter
        v = verify_records([*records, signed_record(g, sender, kind, bad)])
        assert (v.ok, v.seq, v.seat) == (False, len(records), sender), v.summary
        assert v.summary == f"FAILED at entry {len(records)} (seat {sender}): {want}"
    if accepted:
        g.send(sender, kind, honest)  # the same message with its ints as ints


# ------------------------------------------------------------------ Split (GAME.md)
def split_game(seed: int = 1) -> Game:
    return LocalGame([f"p{i}" for i in range(3)], Settings(rounds=1, hand_size=3),
                     SelfplaySecrets(seed), shuffle_proofs=False, open_hand=open_hand_player)


def _split_commit() -> Case:
    g = split_game()
    return g, 1, "commit", owed(g, 1, "commit")


def _split_shuffle() -> Case:
    g = split_game()
    until(g, "shuffle")
    return g, 0, "shuffle", owed(g, 0, "shuffle")


def _split_deal_shares() -> Case:
    g = split_game()
    until(g, "deal")
    return g, 1, "shares", owed(g, 1, "shares")


def _split_draw_shares() -> Case:
    g = split_game()
    _, slot, owing = draw_started(g)
    return g, owing, "shares", draw_body(g, owing, slot)


def _split_move() -> Case:
    g = split_game()
    until(g, "play")
    actor = g.cores[0].engine.actor
    assert actor is not None
    return g, actor, "move", g.cores[actor].move_message(DrawPile(actor))


def _split_reveal() -> Case:
    g = split_game()
    seat = _a_joiners_turn_after_drawing(g)
    g.play_move(seat, Discard(seat, g.cores[seat].engine.hands[seat][0]))
    return g, seat, "reveal", owed(g, seat, "reveal")


def _split_alarm() -> Case:
    g = split_game()
    until(g, "play")
    return g, 2, "alarm", {"round": 1, "reason": "a card read twice"}


def _split_open() -> Case:
    g = split_game()
    until(g, "open")
    return g, 1, "open", owed(g, 1, "open")


def _split_timeout() -> Case:
    g = split_game()
    send_one(g)  # seat 0 commits: the game waits for seat 1 (and 2)
    return g, 0, "timeout", {"round": 1, "seat": 1, "waited": 600}


def _split_accuse() -> Case:
    g = split_game()
    seat = _a_joiners_turn_after_drawing(g)
    refusal, msg, sig, body = _refused(g, seat, Discard(seat, g.cores[seat].engine.hands[seat][0]))
    return g, seat, "accuse", {"round": body["round"], "refusal": refusal, "msg": msg,
                               "sig": sig}


def _split_abandon() -> Case:
    g = split_game()
    at_play_waiting_for(g, 1)
    return g, 0, "abandon", abandon_body(g, 1)


SPLIT_CASES: dict[str, tuple[Callable[[], Case], list[IntPath]]] = {
    "commit": (_split_commit, [("round",)]),
    "shuffle": (_split_shuffle, [("round",)]),
    "shares-deal": (_split_deal_shares, [("round",), ("slots", "*")]),
    "shares-draw": (_split_draw_shares, [("round",), ("slots", "*")]),
    "move": (_split_move, [("round",), ("move", "seat")]),
    "reveal": (_split_reveal, [("round",), ("slots", "*")]),
    "alarm": (_split_alarm, [("round",)]),
    "open": (_split_open, [("round",)]),
    "timeout": (_split_timeout, [("round",), ("seat",), ("waited",)]),
    "accuse": (_split_accuse, [("round",)]),
    "abandon": (_split_abandon, [("round",), ("seat",), ("waited",)]),
}


@pytest.mark.parametrize("case", list(SPLIT_CASES))
def test_split_a_bool_in_any_int_field_is_refused_naming_the_sender(case: str) -> None:
    make, paths = SPLIT_CASES[case]
    g, sender, kind, honest = make()
    refused_everywhere(g, sender, kind, honest, paths)


#: a move type holding each int field of a move but ``seat`` (rules/actions.py)
_MOVE_TYPES = {"index": ("take_row", ("index",)), "a": ("lay", ("a", "b")),
               "b": ("lay", ("a", "b")), "slot": ("upgrade", ("slot", "match_id", "covers")),
               "match_id": ("upgrade", ("slot", "match_id", "covers")),
               "covers": ("upgrade", ("slot", "match_id", "covers")),
               "target": ("bonus_mark", ("target",)), "give": ("bonus_swap", ("give", "take")),
               "take": ("bonus_swap", ("give", "take"))}


@pytest.mark.parametrize("name", list(_MOVE_TYPES))
def test_split_a_bool_in_a_moves_int_field_is_refused_naming_the_mover(name: str) -> None:
    """Every int field of every move type (GAME.md "move and reveal"), one bool each."""
    g, actor, _, _ = _split_move()
    kind, fields = _MOVE_TYPES[name]
    body = {"round": 1, "move": {"type": kind, "seat": actor, **dict.fromkeys(fields, 1)}}
    refused_everywhere(g, actor, "move", body, [("move", name)], accepted=False)


def test_split_the_host_refusing_a_bool_round_move_is_no_legal_move_refused() -> None:
    """A seat sends its legal move with ``"round": true``; the host rightly refuses it.
    Accusing the host with that refusal (GAME.md "accuse") is a false accusation, refused
    naming the accuser — while ``True == 1`` made it a legal move refused, and convicted
    an honest host."""
    g = split_game()
    seat = _a_joiners_turn_after_drawing(g)
    core = g.cores[seat]
    body = core.move_message(Discard(seat, core.engine.hands[seat][0]))
    bad = {**body, "round": True}
    with pytest.raises(NotAnInt):
        g.send(seat, "move", bad)  # the host refuses it
    author = g.authors[seat]
    msg, sig = author.message("move", bad, seen=g.log.seen())
    author.counter -= 1
    from tests.test_attacks_reveal import _refusal

    refusal = _refusal(g, seat, msg, sig, "schema", "round: expected an int, got true")
    accuse = {"round": 1, "refusal": refusal, "msg": msg, "sig": sig}
    for c in g.cores:
        with pytest.raises(GameError, match=r"not an accusation of the host: the move was "
                           r"rightly refused \(seat \d at move: round: expected an int, got "
                           r"true") as info:
            c.apply(seat, "accuse", dict(accuse),
                    at=Position(len(g.log), g.log.head(), g.log.next_counter(seat)))
        assert info.value.seat == seat and not c.finished
    with pytest.raises(GameError, match=r"rightly refused"):
        g.send(seat, "accuse", accuse)
    assert g.verdict is None
    g.send(seat, "move", body)  # the move itself, its round an int, is ordered


# ------------------------------------------------------------------ Splito (SPLITO_GAME.md)
def splito_game() -> Game:
    return sf.new_game(3)


#: the cases due in play start from ``splito_game()`` as played to the first moment of
#: play, set up once per module (tests/conftest.py ``splito_at_play``): the same game
Start = Callable[[], Game]


def _at(g: Game, stop: Callable[[Game], bool]) -> Game:
    sf.run_until(g, stop)
    return g


def _splito_commit(_: Start) -> Case:
    g = splito_game()
    return g, 1, "commit", owed(g, 1, "commit")


def _splito_shuffle(_: Start) -> Case:
    g = _at(splito_game(), lambda g: g.cores[0].stage is Stage.SHUFFLE_OBJECTIVES)
    return g, 0, "shuffle", owed(g, 0, "shuffle")


def _splito_deal(_: Start) -> Case:
    g = _at(splito_game(), lambda g: g.cores[0].stage is Stage.DEAL)
    return g, 1, "deal", owed(g, 1, "deal")


def _splito_move(at_play: Start) -> Case:
    g = _at(at_play(), lambda g: g.cores[0].stage is Stage.PLAY
            and g.cores[0].engine.phase is Phase.COMMIT and not g.cores[0].engine.committed(1))
    return g, 1, "move", {"round": 1, "turn": g.cores[0].engine.turn, "commit": "0" * 64}


def _splito_reveal(at_play: Start) -> Case:
    g = _at(at_play(), sf.reveal_phase(1))
    return g, 1, "reveal", sf._true_reveal(g, 1)


def _splito_pass(at_play: Start) -> Case:
    g = _at(at_play(), sf._pass_phase)
    return g, 0, "pass", owed(g, 0, "pass")


def _splito_complain(at_play: Start) -> Case:
    g = _at(at_play(), sf._pass_phase)
    body = owed(g, 0, "pass")
    box = bytearray(body["box"])
    box[5] ^= 1  # a wrong share for seat 1, which owes a complaint
    g.send(0, "pass", {**body, "box": bytes(box)})
    return g, 1, "complain", owed(g, 1, "complain")


def _splito_open(at_play: Start) -> Case:
    g = _at(at_play(), lambda g: g.cores[0].stage is Stage.OPEN)
    return g, 1, "open", owed(g, 1, "open")


def _splito_timeout(_: Start) -> Case:
    g = splito_game()
    g.send(0, "commit", owed(g, 0, "commit"))  # the game waits for seats 1 and 2
    return g, 0, "timeout", {"round": 1, "seat": 1, "waited": 600}


SPLITO_CASES: dict[str, tuple[Callable[[Start], Case], list[IntPath]]] = {
    "commit": (_splito_commit, [("round",)]),
    "shuffle": (_splito_shuffle, [("round",)]),
    "deal": (_splito_deal, [("round",), ("central", "slots", "*"), ("hands", "slots", "*")]),
    "move": (_splito_move, [("round",), ("turn",)]),
    "reveal": (_splito_reveal, [("round",), ("turn",), ("slot",), ("share", "slots", "*")]),
    "pass": (_splito_pass, [("round",), ("turn",), ("to",)]),
    "complain": (_splito_complain, [("round",), ("turn",), ("from",)]),
    "open": (_splito_open, [("round",)]),
    "timeout": (_splito_timeout, [("round",), ("seat",), ("waited",)]),
}


@pytest.mark.parametrize("case", list(SPLITO_CASES))
def test_splito_a_bool_in_any_int_field_is_refused_naming_the_sender(
        case: str, request: pytest.FixtureRequest) -> None:
    make, paths = SPLITO_CASES[case]
    g, sender, kind, honest = make(lambda: request.getfixturevalue("splito_at_play"))
    refused_everywhere(g, sender, kind, honest, paths)


# ------------------------------------------------------------------ the tables are complete
def _int_paths(value: Any, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Where ``value`` holds ints, as paths (``"*"`` for a list's items)."""
    if type(value) is int:
        return [path]
    if isinstance(value, list):
        return [p for item in value for p in _int_paths(item, (*path, "*"))]
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in _int_paths(v, (*path, k))]
    return []


def _covered(path: tuple[str, ...], table: tuple[IntPath, ...]) -> bool:
    return path in table or (path[:1] == ("move",) and ("move", path[1]) in table)


@pytest.mark.parametrize("game", ["split", "splito"])
def test_every_int_of_every_honest_entry_is_a_listed_int_field(game: str) -> None:
    """The cores' tables of int fields (GAME.md, SPLITO_GAME.md "Integer fields") name
    every int an honest game's entries hold, of every kind there — and a kind's honest
    body re-signed, as the same play, with ``"round": true`` fails verify at that entry."""
    g: Game
    if game == "split":
        g, table = split_game(seed=4), SPLIT_INT_FIELDS
        from splitnet.games.split.bots import make_bot

        g.run_bots([make_bot("random", i) for i in range(3)])
    else:
        g, table = splito_game(), SPLITO_INT_FIELDS
        g.run_bots(sf.bots(3))
    records = g.log.records()
    assert verify_records(records).ok
    kinds: set[str] = set()
    for e in g.log.entries[1:]:
        if e.kind == "accept":
            continue
        for p in _int_paths(dict(e.body)):
            assert _covered(p, table[e.kind]), f"{e.kind}: {'.'.join(p)} is not listed"
        if e.kind in kinds or "round" not in e.body:
            continue
        kinds.add(e.kind)
        # the same play signed again with its round as a bool, at the same place
        body = {**dict(e.body), "round": True}
        msg = message_bytes(e.game_id, e.author, e.counter, e.kind, body, seen=e.seen)
        sig = g.authors[e.author].identity.sign(msg)
        entry = encode([TAG_ENTRY, e.seq, e.prev, msg, sig])
        v = verify_records([*records[:e.seq], encode([entry, g.host.sign(entry)])])
        assert (v.ok, v.seq, v.seat) == (False, e.seq, e.author), v.summary
        assert f"at {e.kind}: round: expected an int, got true" in v.summary
    assert len(kinds) >= 5, kinds


# ------------------------------------------------------------------ over the LAN
@virtual_time
async def test_lan_split_host_refuses_a_bool_round_with_a_schema_error(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """The mover's move with ``"round": true``: the LAN host answers ``schema`` and orders
    nothing; the same move with its round an int is then ordered everywhere."""
    lan = await Lan.start(tmp_path)
    host = lan.host
    try:
        await clock.until(lambda: host.table is not None and host.table.core.round is not None
                          and host.table.core.round.stage == "play"
                          and all(p.table is not None and len(p.table.log) == len(
                              host.table.log) for p in lan.peers), "the deal", within=30.0)
        assert host.table is not None
        actor = host.table.core.engine.actor
        assert actor in (1, 2)
        node = lan.peers[actor - 1]
        table = node.table
        assert table is not None and table.seat == actor
        errors: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        node.error_hooks.append(errors.put_nowait)
        n = len(host.table.log)
        honest = {"round": 1, "move": action_to_dict(DrawPile(actor))}
        other = Author(table.identity, table.game_id, actor, table.log.next_counter(actor))
        msg, sig = other.message("move", {**honest, "round": True}, seen=table.log.seen())
        node.send_frame(Msg(msg, sig))
        err = await within(errors.get())
        assert err.code == "schema", err
        assert (f"seat {actor} at move: round: expected an int, got true (WIRE.md §4: a "
                "bool is not an int)") in err.reason
        assert len(host.table.log) == n
        assert node.send_game("move", honest)
        await clock.until(lambda: all(len(lan.records(s)) > n for s in range(3)),
                          "the move", within=30.0)
        moved = parse_message(_msg_of(lan.records(0)[n]))
        assert (moved.kind, moved.author, moved.body) == ("move", actor, honest)
        assert node.fatal is None
    finally:
        await lan.close()


@virtual_time
async def test_lan_splito_host_refuses_a_bool_turn_with_a_schema_error(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """A Splito commitment with ``"turn": true`` in turn 1: the LAN host's check refuses
    it (``schema``) and orders nothing."""
    mem = MemoryNet()
    host, (ana, bo) = await splito_table(tmp_path, clock, mem)
    h: SplitoCore = splito_core_of(host)
    await clock.until(lambda: h.stage is Stage.PLAY, "the deal", within=60.0)
    assert host.table is not None and ana.table is not None
    body = {"round": 1, "turn": True, "commit": "0" * 64}
    author = Author(ana.table.identity, ana.table.game_id, 1,
                    ana.table.log.next_counter(1))
    msg, sig = author.message("move", body, seen=ana.table.log.seen())
    before = len(host.table.log)
    with pytest.raises(WireError) as info:
        host.table.check(msg, sig, 1)
    assert info.value.code == "schema"
    assert info.value.reason == ("seat 1 at move: turn: expected an int, got true "
                                 "(WIRE.md §4: a bool is not an int)")
    assert len(host.table.log) == before and not h.engine.committed(1)
    await stop(clock, host, [ana, bo], mem)


def test_each_core_lists_the_int_fields_of_every_kind_it_takes() -> None:
    assert set(SPLIT_INT_FIELDS) == set(SPLIT_KINDS)
    assert set(SPLITO_INT_FIELDS) == set(SPLITO_KINDS)
    assert SPLIT_INT_FIELDS["chat"] == () == SPLITO_INT_FIELDS["chat"]
