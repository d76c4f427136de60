"""A review of splitnet/3's secrets and host decisions, from outside: attacks on the pass's
proof of knowledge (SPLITO_GAME.md §6, SECURITY.md rows 90–92), on the header's `limits`
and each joiner's own clock (GAME.md "limits", NETWORK.md §7, rows 93, 96, 97), on when
an abandonment may void a deal (R8.6, rows 94, 95) and on `.fork` evidence read by
`splitnet verify` (NETWORK.md §6, TRANSCRIPT.md §10, row 103).

Each test performs its attack against the real code paths (LocalGame and the cores, or
the in-memory network on virtual time). A test marked xfail(strict) is a hole still open:
it asserts what the protocol promises and fails today for the reason given; the others
are regressions that fail if the defence they name is taken away.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from splitnet.app.lan_session import LAN_PARTS
from splitnet.crypto import group
from splitnet.game.table import GameError
from splitnet.games.split.bots import make_bot
from splitnet.games.split.local import LocalGame, RandomSecrets
from splitnet.games.split.rules import Settings
from splitnet.games.split.rules.actions import played_slots
from splitnet.games.splito.core import pass_pok, pass_scalar
from splitnet.net.host import HostNode
from splitnet.net.peer import PeerNode
from splitnet.session.identity import Identity
from splitnet.session.log import TAG_FORK_RECORDS, check_fork_evidence, fork_evidence
from splitnet.session.transcript import read_transcript
from splitnet.verify import EXIT_FAILED, EXIT_OK, fork_proof, run_verify, verify_records
from tests.memnet import MemoryNet
from tests.test_attacks_give_up import EagerHost
from tests.test_attacks_net import Lan, net
from tests.test_attacks_splito_complaint import SENDER, VICTIM, _game_at_second_pass
from tests.test_open_hand import at_play_waiting_for
from tests.test_open_hand import new_game as open_hand_game
from tests.virtual_time import VirtualLoop, until, virtual_time, within

# ------------------------------------------------------------------ .fork evidence (row 103)


#: the games here are in-process tables, every peer checking every other seat's hop
#: and verify each again: the same proofs, computed in full once per test
#: (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("each_shuffle_proof_checked_once")


def _finished_game(source: RandomSecrets, path: Path) -> list[bytes]:
    """An honest two-seat game to its end, its transcript at ``path``."""
    g = LocalGame(["Host", "Ana"], Settings(rounds=1, hand_size=3), source,
                  shuffle_proofs=False, transcript=path)
    g.run_bots([make_bot("random", 0), make_bot("random", 1)])
    g.close()
    return read_transcript(path)


def test_a_fork_file_of_records_from_two_games_of_the_same_host_convicts_nobody(
        tmp_path: Path) -> None:
    """Ana played two honest games with the same host (a rematch keeps the seats' keys; a
    LAN host's identity is kept in its data dir). She writes a `.fork` holding record 1
    of each — both validly signed by the host, both seq 1, different — beside the second
    game's transcript. `verify` must still call that game fair: nothing the host signed
    in *this* game conflicts; a file anybody could assemble convicts nobody."""
    source = RandomSecrets()  # the keys are kept from one game to the next
    first = _finished_game(source, tmp_path / "first.splitlog")
    path = tmp_path / "second.splitlog"
    second = _finished_game(source, path)
    assert verify_records(second).ok
    host_key = Identity.from_seed(source.identity_seed(0)).public_key_bytes()
    crafted = fork_evidence(TAG_FORK_RECORDS, first[1], second[1])
    path.with_suffix(".fork").write_bytes(crafted)
    assert check_fork_evidence(crafted, second, host_key) is None
    assert fork_proof(path, second) is None
    assert run_verify(path) == EXIT_OK


def test_a_fork_file_of_two_honest_records_of_one_game_convicts_nobody(
        tmp_path: Path) -> None:
    """Row 103's negative side, which holds: two different records of the honest log (at
    different seqs), or one record twice, prove nothing; verify calls the game fair. (It
    fails if prove_equivocation stopped comparing the seqs or the entries.)"""
    path = tmp_path / "game.splitlog"
    recs = _finished_game(RandomSecrets(), path)
    fork = path.with_suffix(".fork")
    for a, b in ((recs[1], recs[2]), (recs[3], recs[3]), (recs[0], recs[-1])):
        fork.write_bytes(fork_evidence(TAG_FORK_RECORDS, a, b))
        assert fork_proof(path, recs) is None
        assert run_verify(path) == EXIT_OK
    fork.write_bytes(fork_evidence("splitnet/v1/fork-acks", recs[1], recs[2]))
    assert run_verify(path) == EXIT_OK
    fork.unlink()
    assert run_verify(path) == EXIT_OK
    assert run_verify(path) != EXIT_FAILED


# ------------------------------------------------------------------ limits and own clocks


class ZeroWaitHost(EagerHost):
    """A host whose header agrees waits of 0 s, and which then gives up the first guest
    seat that owes a move at once, saying (truly, by its own header) that it waited 0 s."""

    claims = 0


@virtual_time
async def test_a_host_whose_header_agrees_no_wait_cannot_give_a_seat_up_at_once(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """The host writes limits {answer_s: 0, move_s: 0, open_hand_after_s: 0} (its own
    NetSettings of 0 s), meaning to abandon Ana, connected and about to move, at the first
    beat. Every joiner holds the header's waits to its own before it accepts (NETWORK.md
    §7): both refuse the game in one line naming the host, and no seat is given up."""
    host = ZeroWaitHost(Identity.generate(), tmp_path / "p0", "Host",
                        net(answer_timeout=0.0, move_timeout=0.0, open_hand_offer=0.0),
                        seats=3, proofs=False, parts=LAN_PARTS)
    host.kind = "abandon"
    mem = MemoryNet()
    port = await host.listen("127.0.0.1", 0, transport=mem.listen)
    peers = [PeerNode(Identity.generate(), tmp_path / f"p{i}", name, "127.0.0.1", port,
                      net(), connect=mem.connector("127.0.0.1", port), parts=LAN_PARTS)
             for i, name in ((1, "Ana"), (2, "Bo"))]
    tasks = []
    for i, p in enumerate(peers, start=1):
        tasks.append(p.start())
        await until(lambda i=i: len(host.members) >= i, "a joiner in the lobby")
    try:
        await within(host.started.wait())
        assert host.table is not None
        assert host.table.log.header.settings["limits"] == {
            "answer_s": 0, "move_s": 0, "open_hand_after_s": 0}
        for p, t in zip(peers, tasks, strict=True):
            await within(asyncio.wait([t]))
            why = p.fatal
            assert why is not None and "not joining" in why and "host seat 0 at fault" in why
            assert p.table is None  # nothing accepted, no game file made
        assert not host.given_up
    finally:
        await Lan(host, peers, tasks, tmp_path, mem).close()


@virtual_time
async def test_a_joiner_that_reconnected_mid_wait_does_not_name_an_honest_host(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """An honest host (answer limit 8 s, agreed in the header). The deal waits for Bo's
    shares, which Bo never sends. Half a second in, Ana's connection drops and she is back
    at once; 2 s later she says something in the chat. At 8 s the host times Bo out, as
    agreed. Ana did not watch the whole wait live, so (row 97) she checks nothing: she
    must not measure from the chat record and stop with "the host timed out Bo … only
    6 s [host seat 0 at fault]", as she did before her clock started only on a wait she
    saw begin. (A chat from anyone, Bo included, or any other seat's message did it.)"""
    settings = net(answer_timeout=8.0)
    host = HostNode(Identity.generate(), tmp_path / "p0", "Host", settings, seats=3,
                    proofs=False)
    lan = await Lan.start(tmp_path, host, peer_net=settings, bo_withholds=lambda k, b: (
        k == "shares" and b.get("purpose") == "deal"))
    ana, _ = lan.peers
    try:
        table = host.table
        assert table is not None
        assert table.core.limits.answer_s == 8
        await until(lambda: table.core.waiting_for() == [2], "the deal waits for Bo")
        await clock.advance(0.5)
        link = next(lk for lk in lan.mem.links if lk.client is ana.ch)
        epoch = ana.epoch
        link.client.close()  # Ana's wifi blinks
        await until(lambda: ana.epoch > epoch and ana.ready, "Ana is back")
        await clock.advance(2.0)
        assert ana.send_game("chat", {"text": "sorry, my wifi"})
        await until(lambda: table.core.finished, "the host times Bo out")
        verdict = table.core.verdict
        assert verdict is not None and verdict.seat == 2
        await clock.advance(1.0)
        assert ana.fatal is None, ana.fatal
        assert ana.table is not None and ana.table.core.verdict is not None
        assert ana.table.core.verdict.seat == 2
    finally:
        await lan.close()


# ------------------------------------------------------------------ when a deal may be voided


def test_no_abandonment_while_the_host_holds_a_reveal_that_shows_a_move_outcome() -> None:
    """Bo (seat 2) moves; the move is in the log; Bo's reveal — its share of the played
    cards, the one share still missing to read them — reaches the host, which keeps it
    unordered, reads the cards, dislikes the outcome, waits the agreed 30 s and abandons
    Bo. That is row 95's attack one step earlier (the outcome known to the host alone):
    it must be refused naming the host, and the host left to time Bo out."""
    g, _ = open_hand_game(3, proofs=False)
    bots = [make_bot("normal", i) for i in range(3)]
    for _ in range(200):  # honest play until Bo's move plays a card not yet public
        at_play_waiting_for(g, 2)
        r = g.cores[0].round
        assert r is not None
        action = bots[2].choose(g.cores[2].engine, 2)
        if any(s not in r.public for s in played_slots(action)):
            break
        g.play_move(2, action)
    g.send(2, "move", g.cores[2].move_message(action))
    r = g.cores[0].round
    assert r is not None and r.pending is not None and r.pending.seat == 2
    held = [b for k, b in g.cores[2].outbox() if k == "reveal"]
    assert held  # Bo's reveal, made from the log: the host holds it
    with pytest.raises(GameError, match=r"seat 0 at abandon: a false abandonment"):
        g.send(0, "abandon", {"round": r.number, "seat": 2, "waited": 30})


def test_an_abandonment_claiming_one_second_less_than_agreed_is_refused() -> None:
    """The floor is compared as integers: 29 against the agreed 30 is refused by the
    host's own core (it fails if check_waited compared with ≤ a margin or not at all)."""
    g, _ = open_hand_game(3, proofs=False)
    at_play_waiting_for(g, 1)
    r = g.cores[0].round
    assert r is not None
    limit = g.cores[1].limits.open_hand_after_s
    with pytest.raises(GameError, match=rf"less than the {limit} s"):
        g.send(0, "abandon", {"round": r.number, "seat": 1, "waited": limit - 1})


# ------------------------------------------------------------------ Splito pass pok (row 90)


def _pass_refused(game: Any, body: dict[str, Any], match: str) -> None:
    before = [(c.stage, len(c.sealed), c.bad_box) for c in game.cores]
    heads = len(game.log)
    with pytest.raises(GameError, match=match):
        game.send(SENDER, "pass", body)
    assert len(game.log) == heads
    assert [(c.stage, len(c.sealed), c.bad_box) for c in game.cores] == before


def test_a_pok_from_another_game_is_refused() -> None:
    """A pass's pok replayed from another game (a rematch: same seats, same turn, same
    sender and receiver, same R) proves nothing here: the challenge binds the game id.
    (It fails if pass_pok/check_pass_pok dropped the game id from the context.)"""
    game, honest, _ = _game_at_second_pass()
    seed = game.source.round_seeds(SENDER)(1)
    e = pass_scalar(game.log.game_id, seed, 2, VICTIM)
    other_game = bytes(b ^ 0xFF for b in game.log.game_id)
    replayed = pass_pok(other_game, e, 2, SENDER, VICTIM)
    assert replayed != honest["pok"]
    _pass_refused(game, {**honest, "pok": replayed, "box": bytes(len(honest["box"]))},
                  r"seat 0 at pass: S5\.4: its pok does not prove")


@pytest.mark.parametrize("eph", ["identity", "non-canonical"])
def test_a_pass_whose_eph_is_the_identity_or_not_canonical_is_refused(eph: str) -> None:
    """R = the identity (e = 0: its pok is valid, and K = x_r·R is the identity, so the
    box would open for everyone), or a point in a non-canonical spelling (the same R
    under a second encoding): refused naming the sender before anything is applied.
    (The identity case fails if decode_point let the identity through.)"""
    game, honest, _ = _game_at_second_pass()
    if eph == "identity":
        point = group.IDENTITY
        pok = pass_pok(game.log.game_id, 0, 2, SENDER, VICTIM)
        match = r"seat 0 at pass: S5\.4: eph: the identity"
    else:
        point = bytes([0xFF] * 32)  # no canonical ristretto255 encoding
        pok = honest["pok"]
        match = r"seat 0 at pass: S5\.4: eph"
    _pass_refused(game, {**honest, "eph": point, "pok": pok}, match)
