"""Both cores for a seat's own hop (issue "Use both cores of a machine"): the shuffle, its
proof and the proof check cut into chunks (splitnet/crypto/split.py) give the same bytes
and the same verdicts however they are cut and wherever the chunks run; the process
helper (splitnet/game/pool.py ``Helper``) that runs half of each phase falls back to the
peer's own thread — the same bytes, only later — when it is killed or hangs."""

from __future__ import annotations

import os
import signal
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import pytest

from splitnet.crypto import elgamal, group
from splitnet.crypto import shuffle_proof as sp
from splitnet.crypto.deck import DeckRound, HopCheck
from splitnet.crypto.errors import CheatDetected
from splitnet.crypto.shuffle_proof import ShuffleProofError, prove_shuffle, verify_shuffle
from splitnet.crypto.split import IN_THREAD, parts_of, ranges
from splitnet.game.checks import InlineChecker, check_hop, check_hop_part, verdict_of_parts
from splitnet.game.pool import Helper, ProofPool, _Pending
from splitnet.game.table import proof_functions
from tests.test_deck_helpers import GID, seed_for
from tests.test_pipeline import new_game, send_one, to_shuffle
from tests.test_shuffle_proof import SEED, Hop, sc

_A = TypeVar("_A")
_R = TypeVar("_R")


class Cutting:
    """An in-thread splitter that cuts into ``parts`` and records every chunk it ran."""

    def __init__(self, parts: int) -> None:
        self.parts = parts
        self.maps: list[tuple[str, int]] = []

    def map(self, fn: Callable[[_A], _R], chunks: Sequence[_A]) -> list[_R]:
        self.maps.append((fn.__name__, len(chunks)))
        return [fn(c) for c in reversed(chunks)][::-1]  # order of work is no matter


def test_ranges_cover_every_index_once_in_balanced_chunks() -> None:
    for n in (0, 1, 2, 7, 104):
        for k in (1, 2, 3, 8):
            rs = ranges(n, k)
            assert [i for r in rs for i in r] == list(range(n))
            assert max(map(len, rs)) - min(map(len, rs)) <= 1
    assert parts_of(None, 104) == 1 and parts_of(Cutting(2), 104) == 2
    assert parts_of(Cutting(5), 3) == 3 and parts_of(IN_THREAD, 104) == 1


def test_the_chain_in_closed_form_is_the_sequential_chain() -> None:
    """ĉ_i = r̂_i·G + u'_i·ĉ_(i−1) (ĉ_0 = h) and t̂_i = ω̂_i·G + ω'_i·ĉ_(i−1), as
    SHUFFLE_PROOF.md writes them, are the points the closed form computes."""
    n = 6
    h = group.hash_to_point(b"splitnet/test/split", b"h")
    u, r_hat, w_hat, w_prime = ([sc(label, i) for i in range(n)]
                                for label in ("u", "r-hat", "w-hat", "w-prime"))
    c_hat, t_hat, prev = [], [], h
    for i in range(n):
        t_hat.append(group.add(group.base_mul(w_hat[i]), group.mul(w_prime[i], prev)))
        prev = group.add(group.base_mul(r_hat[i]), group.mul(u[i], prev))
        c_hat.append(prev)
    big = sp._chain_scalars(u, r_hat, w_hat, w_prime)
    assert sp._commitment_chain((h, *big)) == (c_hat, t_hat)
    left = sp._commitment_chain((h, *(x[:2] for x in big)))
    right = sp._commitment_chain((h, *(x[2:] for x in big)))
    assert left[0] + right[0] == c_hat and left[1] + right[1] == t_hat


@pytest.mark.parametrize("parts", [2, 3, 7])
@pytest.mark.parametrize("trivial", [False, True])
def test_a_cut_proof_is_the_same_bytes_and_a_cut_check_the_same_verdict(
        parts: int, trivial: bool) -> None:
    hop = Hop(10, trivial=trivial)
    cut = Cutting(parts)
    proof = prove_shuffle(hop.ctx, hop.pk, hop.inputs, hop.outputs, hop.perm, hop.rhos,
                          nonce_seed=SEED, splitter=cut)
    assert proof == hop.proof
    assert cut.maps == [("_commit_chunk", parts), ("_commitment_chain", parts)]
    verify_shuffle(hop.ctx, hop.pk, hop.inputs, hop.outputs, proof, splitter=cut)
    assert cut.maps[-1] == ("term_sum", parts)
    bad = hop.outputs[1:] + hop.outputs[:1]
    with pytest.raises(ShuffleProofError) as plain:
        verify_shuffle(hop.ctx, hop.pk, hop.inputs, bad, proof)
    with pytest.raises(ShuffleProofError) as split:
        verify_shuffle(hop.ctx, hop.pk, hop.inputs, bad, proof, splitter=cut)
    assert str(split.value) == str(plain.value)


def test_a_cut_shuffle_is_the_same_deck() -> None:
    pk = group.base_mul(sc("sk"))
    deck = elgamal.initial_deck(GID)
    perm = sorted(range(len(deck)), key=lambda i: sc("perm", i))
    rhos = [sc("rho", i) for i in range(len(deck))]
    once = elgamal.shuffle_hop(deck, perm, rhos, pk)
    twice = elgamal.shuffle_hop(once, perm, rhos, pk)
    cut = Cutting(3)
    assert elgamal.shuffle_hop(deck, perm, rhos, pk, splitter=cut) == once
    assert elgamal.shuffle_hop(once, perm, rhos, pk, splitter=cut) == twice
    assert cut.maps == [("remask_chunk", 3)] * 2


def _hops(splitter: Any) -> list[dict[str, object]]:
    """Two seats' SHUFFLE messages (with proofs) made through ``splitter``."""
    prove, verify = proof_functions(GID, seed_for(0), splitter)
    peers = [DeckRound(GID, 1, 2, i, seed_for(i), shuffle_prover=prove,
                       shuffle_verifier=verify, splitter=splitter) for i in range(2)]
    for p in peers:
        for i, q in enumerate(peers):
            p.on_commit(i, q.commit_message())
    out = []
    for i in range(2):
        msg = peers[i].shuffle_message()
        for p in peers:
            p.on_shuffle(i, msg)  # every proof checked (through the splitter)
        out.append(msg)
    return out


def test_a_seats_hops_through_a_splitter_are_byte_identical() -> None:
    cut = Cutting(2)
    assert _hops(cut) == _hops(None)
    assert ("remask_chunk", 2) in cut.maps and ("term_sum", 2) in cut.maps


def test_a_cut_batch_check_of_the_deal_gives_the_same_verdicts() -> None:
    """The deal's share proofs checked in one batch (DeckRound.on_shares_batch) through a
    splitter: an honest deal is taken, one wrong share is still found and its seat named."""
    cut = Cutting(2)
    peers = [DeckRound(GID, 1, 3, i, seed_for(i), splitter=cut) for i in range(3)]
    for p in peers:
        for i, q in enumerate(peers):
            p.on_commit(i, q.commit_message())
    for i in range(3):
        msg = peers[i].shuffle_message()
        for p in peers:
            p.on_shuffle(i, msg)
    msgs = [(i, peers[i].shares_message([s for s in range(7) if s % 3 != i], "deal"))
            for i in range(3)]
    twin = peers[0].fork()
    peers[0].on_shares_batch(msgs, "deal")
    assert ("term_sum", 2) in cut.maps
    bad = dict(msgs[2][1])
    shares = list(bad["shares"])  # type: ignore[call-overload]
    shares[0] = group.base_mul(5)
    bad["shares"] = shares
    with pytest.raises(CheatDetected) as e:
        twin.on_shares_batch([msgs[0], msgs[1], (2, bad)], "deal")
    assert e.value.seat == 2


@pytest.mark.parametrize("parts", [1, 2, 3])
@pytest.mark.parametrize("trivial", [False, True])
def test_a_check_in_parts_accepts_what_the_whole_check_accepts(parts: int,
                                                              trivial: bool) -> None:
    hop = Hop(10, trivial=trivial)
    args = (hop.ctx, hop.pk, hop.inputs, hop.outputs, hop.proof)
    sums = [sp.verify_shuffle_part(*args, part=k, parts=parts) for k in range(parts)]
    assert sp.accepts_parts(sums) and sp.accepts_parts(sums[::-1])
    bad = (hop.ctx, hop.pk, hop.inputs, hop.outputs[1:] + hop.outputs[:1], hop.proof)
    assert not sp.accepts_parts([sp.verify_shuffle_part(*bad, part=k, parts=parts)
                                 for k in range(parts)])
    assert not sp.accepts_parts([])
    with pytest.raises(ShuffleProofError, match="part must be"):
        sp.verify_shuffle_part(*args, part=parts, parts=parts)


def _not_a_point() -> bytes:
    """32 bytes, bit 255 clear, that are no ristretto255 encoding (the group library
    would silently treat them as the identity)."""
    return bytes([1] * 31 + [0x7F])


def test_every_point_of_a_check_in_parts_is_decoded_by_some_part() -> None:
    """Part 0 decodes the statement's points, part 1 the proof's; each takes the other's as
    valid, so an invalid point makes its decoding part raise, and the verdict of the
    parts is then the whole check's, message for message."""
    hop = Hop(10)
    junk = _not_a_point()
    outputs = [*hop.outputs]
    outputs[3] = (outputs[3][0], junk)
    proof = hop.proof[:32 * 12] + junk + hop.proof[32 * 13:]  # a point of ĉ
    for ins, outs, pr, who in ((hop.inputs, outputs, hop.proof, 0),
                               (hop.inputs, hop.outputs, proof, 1)):
        with pytest.raises(ShuffleProofError):
            sp.verify_shuffle_part(hop.ctx, hop.pk, ins, outs, pr, part=who, parts=2)
        other = sp.verify_shuffle_part(hop.ctx, hop.pk, ins, outs, pr, part=1 - who, parts=2)
        assert isinstance(other, bytes)  # it did not look: the part that looks raised
        check = HopCheck(1, hop.ctx, hop.pk, tuple(ins), tuple(outs), pr)
        whole = check_hop(b"", check)
        sums = [check_hop_part(b"", check, k, 2) for k in range(2)]
        assert sums[who] is None and whole is not None
        assert verdict_of_parts(b"", check, sums) == whole


@pytest.mark.slow
def test_a_pool_with_two_workers_checks_each_hop_in_parts_with_the_same_verdicts() -> None:
    g = new_game(3, checker=InlineChecker())
    to_shuffle(g)
    assert send_one(g)
    r = g.cores[1].round
    assert r is not None
    good = r.checks[0][0]
    bad = HopCheck(good.seat, good.context, good.joint_key, good.inputs,
                   good.outputs[1:] + good.outputs[:1], good.proof)
    gid = g.cores[0].game_id
    pool = ProofPool(workers=2, helper=False).start()
    try:
        assert pool.split and pool.splitter is None
        verdicts = [pool.submit(gid, good), pool.submit(gid, bad)]
        assert all(isinstance(v, _Pending) and v.parts is not None for v in verdicts)
        assert verdicts[0].result() is None
        assert verdicts[1].result() == check_hop(gid, bad) is not None
        assert pool.submitted == 2
    finally:
        pool.close()


# ------------------------------------------------------------------ the process helper
@pytest.mark.slow
def test_the_helper_process_computes_half_and_a_killed_one_costs_time_not_bytes() -> None:
    plain = _hops(None)
    helper = Helper().start()
    try:
        assert helper.ready(timeout=60)
        helper.record = []
        assert helper.parts == 2 and helper.pid is not None and helper.pid != os.getpid()
        assert _hops(helper) == plain
        assert helper.calls >= 6 and helper.fallbacks == 0  # 2 hops × 3 phases, + checks
        call = helper.record[0]
        assert call.remote > 0 and call.local > 0 and call.ipc >= 0 and call.wall > 0
        pid = helper.pid
        assert pid is not None
        os.kill(pid, signal.SIGKILL)
        assert _hops(helper) == plain  # the first phase finds it dead: computed here
        assert helper.fallbacks == 1 and helper.parts == 1 and helper.pid is None
        calls = helper.calls
        assert _hops(helper) == plain and helper.calls == calls  # not used again
    finally:
        helper.close()


def _double_or_raise(x: object) -> object:
    """A chunk function for the helper's tests (module-level: the helper imports it)."""
    if x == "boom":
        raise ValueError("boom")
    return 2 * x  # type: ignore[operator]


@pytest.mark.slow
def test_a_chunk_that_raises_raises_in_the_peer_and_the_helper_stays_in_step() -> None:
    helper = Helper().start()
    try:
        assert helper.ready(timeout=60)
        assert helper.map(_double_or_raise, [1, 2]) == [2, 4]
        with pytest.raises(ValueError):  # the peer's own half raises
            helper.map(_double_or_raise, ["boom", 3])
        assert helper.map(_double_or_raise, [5, 6]) == [10, 12]  # its answer was drained
        with pytest.raises(ValueError):  # the helper's half raised: computed here, raises
            helper.map(_double_or_raise, [1, "boom"])
        assert helper.map(_double_or_raise, [7, 8]) == [14, 16]
        assert helper.fallbacks == 0 and helper.calls == 3
    finally:
        helper.close()


def test_the_helpers_pipe_is_an_unnamed_socket_pair_not_a_file() -> None:
    """The hop's secrets in a chunk (SECURITY.md §2.1 "Two cores") cross only a socket pair
    between the peer and its own child: no path anyone could open."""
    import socket
    import stat

    helper = Helper().start()
    try:
        conn = helper._conn
        assert conn is not None and helper.pid is not None
        assert stat.S_ISSOCK(os.fstat(conn.fileno()).st_mode)
        with socket.socket(fileno=os.dup(conn.fileno())) as sock:
            assert sock.family == socket.AF_UNIX and sock.getsockname() in ("", b"")
            assert sock.getpeername() in ("", b"")
    finally:
        helper.close()


@pytest.mark.slow
def test_a_hung_helper_is_given_up_after_its_timeout_with_the_same_bytes() -> None:
    plain = _hops(None)
    helper = Helper(timeout=0.2).start()
    try:
        assert helper.ready(timeout=60)
        assert _hops(helper) == plain and helper.calls > 0  # up and answering
        pid = helper.pid
        assert pid is not None
        os.kill(pid, signal.SIGSTOP)
        assert _hops(helper) == plain
        assert helper.fallbacks == 1 and helper.parts == 1
    finally:
        helper.close()


def test_a_helper_that_cannot_start_computes_everything_in_the_thread() -> None:
    helper = Helper()
    helper.close()  # as if it could not be started
    assert helper.start().parts == 1
    assert _hops(helper) == _hops(None) and helper.calls == 0


@pytest.mark.slow
def test_the_pool_checks_the_last_hop_now_with_its_helper_and_the_same_verdict() -> None:
    """submit(…, last=True): the hop the peer waits for is checked at once in its own
    thread and the helper (not queued in the lower-priority workers); its verdict is the
    one check_hop gives, for an honest hop and for a bad one."""
    g = new_game(3, checker=InlineChecker())
    to_shuffle(g)
    assert send_one(g)
    r = g.cores[1].round
    assert r is not None
    good = r.checks[0][0]
    bad = HopCheck(good.seat, good.context, good.joint_key, good.inputs,
                   good.outputs[1:] + good.outputs[:1], good.proof)
    pool = ProofPool(workers=1).start()
    try:
        assert pool.helper is not None and pool.helper.ready(timeout=60)
        assert pool.splitter is pool.helper and pool.splitter.parts == 2
        calls = pool.helper.calls
        gid = g.cores[0].game_id
        assert pool.submit(gid, good, last=True).result() is None
        assert pool.submit(gid, bad, last=True).result() == check_hop(gid, bad)
        assert pool.submitted == 0  # neither went to a worker
        assert pool.helper is not None and pool.helper.calls > calls
    finally:
        pool.close()
    assert pool.helper is not None and pool.helper.parts == 1


@pytest.mark.slow
def test_a_game_whose_seats_prove_with_the_helper_has_the_same_log() -> None:
    """A whole set-up with the pool's helper (own hops, the last hop's check) writes the
    log a game checking everything in one thread writes, entry for entry."""
    logs = []
    pool = ProofPool(workers=1).start()
    assert pool.helper is not None and pool.helper.ready(timeout=60)
    try:
        for checker in (None, pool):
            g = new_game(3, checker=checker)
            for _ in range(200):
                r = g.cores[0].round
                if r is not None and r.stage == "play":
                    break
                assert send_one(g)
            logs.append(g.log.records())
        assert pool.helper is not None and pool.helper.calls > 0
        assert pool.helper.fallbacks == 0
    finally:
        pool.close()
    assert logs[0] == logs[1]
