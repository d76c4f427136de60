"""The network-level adversary (tests/net_adversary.py): whole LAN games — Split (one
round, or three; with and without shuffle proofs; a seat gone a second given up and
played open-handed, R8.6) and Splito, three seats or more, some followed by their
rematch — of the real host and joiner nodes over the in-memory network on the virtual
clock, one of them dishonest at a seeded random subset of the frames it sends and the
messages it orders (a host also going quiet for seconds, as a stopped program).

Each game's plan names the deviations its adversary may choose; the test fails if one
of them never happened (the adversary must keep deviating) or if the oracle
(:func:`tests.net_adversary.judge`) finds an honest node convicted, crashed, stuck, or
holding a transcript that is not the others' or not fair. Card knowledge — what each
seat can read — is checked by ``splitnet/adversary.py`` on every entry of whole games
among the same cores (tests/test_adversary.py), not here. Then the findings, each kept
as a regression (protocol/SECURITY.md §6), and a check that the oracle can fail.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from splitnet.net.join_state import JoinState
from splitnet.net.peer import PeerFatal
from splitnet.session.identity import Identity
from splitnet.session.transcript import TranscriptWriter, read_transcript
from splitnet.verify import verify_records
from tests.net_adversary import GUEST_KINDS, HOST_KINDS, Game, Plan, judge, play
from tests.net_adversary import WATCHER_KINDS as WATCHER_KINDS_ALL
from tests.test_attacks_net import DroppingHost, Lan, net
from tests.virtual_time import VirtualLoop, virtual_time

#: every peer checks every other seat's hop and the oracle's verify checks each again:
#: the same proofs, computed in full once per test (tests/conftest.py); a hop the
#: adversary changes differs in its arguments and is checked afresh
pytestmark = pytest.mark.usefixtures("each_shuffle_proof_checked_once")

#: a dishonest host: what kills a guest's copy of the log at once (a frame dropped or out
#: of order), what does not, and the ways to order a message otherwise
FATAL = ("drop", "reorder")
SLOW = ("delay", "duplicate", "replay")
ORDERING = ("delay", "duplicate", "replay", "refuse")
#: a dishonest guest: on the wire, and in the messages its seat makes
WIRE = ("twice", "garbage", "silence")
MESSAGES = ("replay", "range", "turn")

PLANS = [
    Plan(1018, "host", FATAL, rate=0.01),
    Plan(1000, "host", SLOW, rate=0.02, watch=True),
    Plan(1004, "host", ORDERING, rate=0.02, proofs=True),
    Plan(1001, "host", ("delay", "duplicate", "refuse"), rate=0.01, rounds=3),
    Plan(1006, "host", ("drop", "reorder", "delay"), rate=0.02, game="splito"),
    Plan(1003, "host", ORDERING, rate=0.04, game="splito", watch=True),
    Plan(1000, "guest", WIRE, rate=0.03, watch=True),
    Plan(1006, "guest", MESSAGES, rate=0.03),
    Plan(1000, "guest", ("range", "turn", "silence"), rate=0.03, proofs=True),
    Plan(1001, "guest", MESSAGES, rate=0.1, game="splito", watch=True),
    Plan(1001, "guest", WIRE, rate=0.1, game="splito"),
    # more seats: Splito's passes go round five seats (S5), Split deals four hands (R2)
    Plan(1023, "host", ("drop", "delay", "duplicate", "refuse"), rate=0.01, game="splito",
         seats=5),
    Plan(1002, "guest", ("twice", "range", "turn", "silence"), rate=0.05, game="splito",
         seats=5),
    Plan(1008, "host", ORDERING, rate=0.01, proofs=True, seats=4, watch=True),
    # a host that goes quiet 3-12 s as a stopped program does, and a rematch after the
    # game (NETWORK.md §13) with the same dishonest seat, in the rematch's lobby too
    Plan(1001, "host", ("stall", "delay", "duplicate", "drop"), rate=0.01, rematch=True,
         watch=True),
    Plan(1006, "host", ("stall", "delay", "duplicate", "refuse"), rate=0.015, game="splito",
         rematch=True),
    Plan(1000, "guest", WIRE, rate=0.08, rematch=True),
    # a dishonest watcher (NETWORK.md §14) at a table of honest seats, the game paced so
    # that it watches live: it must change nothing and convict no one
    Plan(1000, "watcher", WATCHER_KINDS_ALL, rate=0.05, watch=True, pace=0.3),
    Plan(1000, "watcher", WATCHER_KINDS_ALL, rate=0.08, watch=True, pace=2.0,
         game="splito"),
    # a seat gone 1 s is given up and played open-handed (R8.6)
    Plan(3003, "host", ("drop", "delay", "refuse"), rate=0.02, open_hand=1.0, watch=True),
    Plan(3002, "guest", ("silence", "twice", "replay"), rate=0.05, open_hand=1.0),
]


def _id(plan: Plan) -> str:
    what = plan.game + ("-proofs" if plan.proofs else "") + (
        f"-{plan.rounds}rounds" if plan.game == "split" and plan.rounds > 1 else "") + (
        "-openhand" if plan.open_hand is not None else "") + (
        f"-{plan.seats}seats" if plan.seats != 3 else "") + (
        "-rematch" if plan.rematch else "") + ("-watched" if plan.watch else "")
    return f"{plan.side}-{what}-{'+'.join(plan.kinds)}-{plan.seed}"


def test_the_plans_use_every_deviation_on_both_sides() -> None:
    """Every deviation of a dishonest host and of a dishonest guest is in some game."""
    host = {k for p in PLANS if p.side == "host" for k in p.kinds}
    guest = {k for p in PLANS if p.side == "guest" for k in p.kinds}
    assert host == set(HOST_KINDS) and guest == set(GUEST_KINDS)
    assert {(p.game, p.proofs) for p in PLANS} == {("split", False), ("split", True),
                                                  ("splito", False)}
    assert {(p.game, p.side) for p in PLANS if p.rematch} >= {("split", "host"),
                                                             ("split", "guest"),
                                                             ("splito", "host")}
    assert {(p.game, p.side) for p in PLANS if p.watch} == {
        (g, side) for g in ("split", "splito") for side in ("host", "guest", "watcher")}
    assert {k for p in PLANS if p.side == "watcher" for k in p.kinds} == set(WATCHER_KINDS_ALL)
    assert any(p.watch and p.proofs for p in PLANS) and any(p.watch and p.rematch
                                                            for p in PLANS)


@pytest.mark.parametrize("plan", PLANS, ids=_id)
@virtual_time
async def test_a_dishonest_seat_convicts_no_honest_one(
        tmp_path: Path, clock: VirtualLoop, plan: Plan) -> None:
    game = await play(tmp_path, plan)
    missing = set(plan.kinds) - set(game.policy.used)
    assert not missing, f"the adversary never chose {sorted(missing)}\n{game.describe()}"
    bad = judge(game)
    assert not bad, "\n".join(bad) + "\n" + game.describe()
    if plan.rematch:  # both games played, as the plan is for
        assert game.first is not None and game.rematch_began, game.describe()
    if plan.open_hand is not None:  # the seat given up, as the plan is for
        table = game.nodes[0].table
        assert table is not None and any(e.kind == "abandon" for e in table.log.entries)
    if plan.watch:  # both watchers followed, one of them killed and run again
        watched = (game.first or game).watchers
        assert [w.runs for w in watched] == [2, 1], game.describe()
        assert all(w.node.have for w in watched), game.describe()


@pytest.mark.parametrize("plan", [p for p in PLANS if p.side == "watcher"], ids=_id)
@virtual_time
async def test_a_dishonest_watcher_changes_nothing_of_the_game(
        tmp_path: Path, clock: VirtualLoop, plan: Plan) -> None:
    """A dishonest watcher's game is the same game as nobody's watching: Split's
    transcripts byte for byte; Splito's record the same (its seats commit at once, and
    the order the host takes simultaneous commitments in is any arrival's)."""
    watched = (await play(tmp_path / "watched", plan)).nodes
    alone = (await play(tmp_path / "alone", dataclasses.replace(plan, watch=False,
                                                                kinds=()))).nodes
    logs = [[n.table.log.records() if n.table else [] for n in g] for g in (watched, alone)]
    if plan.game == "split":
        assert logs[0] == logs[1]
    one, two = (verify_records(g[0]) for g in logs)
    assert one.ok and two.ok and one.record == two.record, (one.summary, two.summary)


@virtual_time
async def test_watchers_change_nothing_at_an_honest_host_with_a_dishonest_guest(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """The same plan watched and not: at an honest host the players' game is the same
    byte for byte — the watchers' connections, catch-up and kill change no record, while
    a guest deviates (NETWORK.md §14: a watcher never slows or changes the table)."""
    plan = next(p for p in PLANS if p.watch and p.side == "guest" and p.game == "split")
    watched = await play(tmp_path / "watched", plan)
    alone = await play(tmp_path / "alone", dataclasses.replace(plan, watch=False))
    assert watched.watchers and not alone.watchers
    assert [n.table.log.records() if n.table else None for n in watched.nodes] \
        == [n.table.log.records() if n.table else None for n in alone.nodes]


@virtual_time
async def test_a_game_is_played_the_same_every_time(tmp_path: Path, clock: VirtualLoop) -> None:
    """The same plan twice, one game after the other: the same deviations at the same
    moments of the game, the same transcripts byte for byte (seeded keys, seeds and
    choices; virtual time)."""
    plan = PLANS[0]
    one, two = await play(tmp_path / "one", plan), await play(tmp_path / "two", plan)
    assert one.policy.notes == two.policy.notes and one.policy.notes
    for a, b in zip(one.nodes, two.nodes, strict=True):
        assert a.table is not None and b.table is not None
        assert a.table.log.records() == b.table.log.records()


# ------------------------------------------------------------------ the findings
@virtual_time
async def test_a_joiner_timed_out_after_the_host_dropped_its_message_stops_with_no_traceback(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """Found by the simulator (a host dropping a guest's message, then timing it out):
    the joiner's watchdog names the host, but its node then ended with a traceback
    (IllegalTransition: join: fail is not allowed in state finished) instead of that
    line — the timeout had finished its log, so it was marked finished before it
    failed, and its front end crashed. Now it stops FAILED, with the line."""
    host = DroppingHost(Identity.generate(), tmp_path / "p0", "Host", net(), seats=3,
                        proofs=False)
    lan = await Lan.start(tmp_path, host)
    bo = lan.peers[1]
    try:
        why = await lan.stopped(bo)
        assert "timed us out" in why and "[host seat 0 at fault]" in why, why
        e = lan.tasks[1].exception()
        assert isinstance(e, PeerFatal) and str(e) == why, repr(e)
        assert bo.session.state is JoinState.FAILED
    finally:
        await lan.close()


# ------------------------------------------------------------------ the oracle can fail
@virtual_time
async def test_the_oracle_finds_a_corrupt_transcript_and_an_honest_seat_named(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """A game the oracle passes, judged again with the honest seats' roles swapped (the
    dishonest guest's timeout now names an "honest" seat) and with one honest
    transcript's last byte flipped on disk: both are found."""
    plan = Plan(1000, "guest", ("silence",), rate=0.5)
    game = await play(tmp_path, plan)
    assert game.policy.used["silence"] and judge(game) == []
    assert game.nodes[0].table is not None and game.nodes[0].table.core.verdict is not None
    other = 2 if plan.adversary == 1 else 1
    swapped = Game(dataclasses.replace(plan, seed=plan.seed + (other - plan.adversary)),
                   game.nodes, game.policy)
    assert swapped.plan.adversary == other
    assert any("naming an honest seat" in b for b in judge(swapped)), judge(swapped)
    path = game.nodes[0].table.files.transcript
    data = bytearray(path.read_bytes())
    data[-1] ^= 1
    path.write_bytes(bytes(data))
    assert any(b.startswith("honest seat 0's transcript") for b in judge(game)), judge(game)


@virtual_time
async def test_the_oracle_finds_a_watcher_short_of_the_end_or_with_a_corrupt_file(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """A watched game the oracle passes (an honest host), judged again with one watcher's
    file cut short of the last record, and with the other's last byte flipped: both
    are found."""
    plan = next(p for p in PLANS if p.watch and p.side == "guest" and p.game == "split")
    game = await play(tmp_path, plan)
    assert judge(game) == [] and len(game.watchers) == 2
    wes, xi = game.watchers
    assert wes.node.path is not None and xi.node.path is not None
    recs = read_transcript(wes.node.path)
    wes.node.path.unlink()
    writer = TranscriptWriter(wes.node.path)
    for r in recs[:-1]:
        writer.append(r)
    writer.close()
    data = bytearray(xi.node.path.read_bytes())
    data[-1] ^= 1
    xi.node.path.write_bytes(bytes(data))
    bad = judge(game)
    assert any(b.startswith("watcher Wes") for b in bad), bad
    assert any(b.startswith("watcher Xi") for b in bad), bad


@virtual_time
async def test_the_oracle_finds_a_rematch_that_does_not_follow_its_game(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """A game and its rematch the oracle passes, judged again as if the rematch followed
    itself (its own nodes as the game before it): every honest seat's pair fails to
    chain, and the oracle says so."""
    plan = next(p for p in PLANS if p.rematch and p.side == "guest")
    game = await play(tmp_path, plan)
    assert game.first is not None and game.rematch_began and judge(game) == []
    itself = dataclasses.replace(game, first=dataclasses.replace(game, first=None))
    bad = [b for b in judge(itself) if "do not chain" in b]
    assert len(bad) == plan.seats - 1, judge(itself)
