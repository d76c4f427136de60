"""Attacks on a seat's secrets across a restart: a seat made to use its round seed twice.

Each game is a host :class:`~splitnet.net.table.Table` and joiner tables in this process,
each with its own data dir (transcript, ``.secrets`` file), passing records as bytes the
way the nodes do — the real code path of persistence and restart (``Table.load``), without
sockets. A **power loss** is the victim's transcript cut back to an earlier record (the
unsynced tail lost; the ``.secrets`` file, fsynced before each use, survives). The host
then serves *another* validly proved hop at a position the victim already built on — its
own (seat 0), or a colluding seat's — and the victim must refuse, sending nothing: a hop
on a second input would give its permutation away, shares of a second final deck its
cards (R8.1; protocol/GAME.md "Pledges", protocol/SECURITY.md §6).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from splitnet.crypto import group
from splitnet.crypto.deck import shuffle_context
from splitnet.crypto.elgamal import shuffle_hop
from splitnet.crypto.seeds import deck_digest, derive_permutation
from splitnet.crypto.shuffle_proof import prove_shuffle
from splitnet.game.table import PledgeRefused
from splitnet.net.join_state import JoinEvent
from splitnet.net.peer import PeerFatal, PeerNode
from splitnet.net.store import GameFiles, SeedStore
from splitnet.net.table import Table
from splitnet.net.wire import WireError
from splitnet.session.identity import Identity
from splitnet.session.log import Author, Log, Player
from splitnet.session.transcript import read_transcript
from splitnet.verify import verify_records

GID = bytes(range(100, 116))


class Game:
    """A host (seat 0) and joiners in one process; every seat has its own data dir."""

    def __init__(self, tmp: Path, n: int = 3, proofs: bool = True) -> None:
        self.tmp = tmp
        self.ids = [Identity.from_seed(bytes([7, s]) * 16) for s in range(n)]
        players = [Player(s, f"p{s}", self.ids[s].public_key_bytes()) for s in range(n)]
        self.host = Table.new_host(self.ids[0], tmp / "p0", GID, players, proofs, None)
        header = self.host.log.records()[0]
        self.tables: dict[int, Table] = {0: self.host}
        for s in range(1, n):
            self.tables[s] = Table.from_header(self.ids[s], tmp / f"p{s}", header, None)
        for s in range(1, n):
            t = self.tables[s]
            self.submit(s, *t.author.accept(self.host.log.header_hash))

    def submit(self, seat: int, msg: bytes, sig: bytes) -> None:
        """The host checks and orders; every joiner that is in step appends the record."""
        self.host.check(msg, sig, seat)
        entry = self.host.order(msg, sig)
        for s, t in self.tables.items():
            if s != 0 and len(t.log) == entry.seq:
                t.add_record(entry.record)

    def pump(self, until: Any, skip: tuple[int, ...] = ()) -> None:
        """Seats but ``skip`` send what they owe, one message at a time, until
        ``until(round of the host's core)`` holds."""
        for _ in range(100):
            for s, t in self.tables.items():
                r = self.host.core.round
                if until(r):
                    return
                if s not in skip and (out := t.core.outbox()):
                    (kind, body), = out
                    self.submit(s, *t.author.message(kind, body, seen=t.log.seen()))
                    break
            else:
                raise AssertionError("nobody owes a message")
        raise AssertionError("never reached")

    def entry_index(self, seat: int, kind: str) -> int:
        return next(e.seq for e in self.host.log.entries if e.author == seat and e.kind == kind)

    def power_loss(self, seat: int, keep: int) -> Table:
        """The seat's machine loses power: its transcript keeps only its first ``keep``
        records (the rest was written but never synced); it restarts from its files."""
        t = self.tables[seat]
        t.close()
        path = t.files.transcript
        records = read_transcript(path)
        assert len(records) > keep
        size = path.stat().st_size - sum(4 + len(r) for r in records[keep:])
        with open(path, "r+b") as f:
            f.truncate(size)
        back = Table.load(self.ids[seat], GameFiles(self.tmp / f"p{seat}", GID))
        assert len(back.log) == keep
        self.tables[seat] = back
        return back

    def forged_hop(self, shuffler: int, at: int) -> bytes:
        """Another validly proved hop by ``shuffler`` (the host's own seat, or a seat
        colluding with it) on the same input, at log position ``at``, ordered by the host
        on a fork of its log: a record that verifies for anyone who never saw the first."""
        fork = Log.from_records(self.host.log.records()[:at])
        deck = self.host.core.rounds[0].deck
        y = deck.joint_key
        inputs = deck._decks[shuffler]
        assert y is not None
        d_in = deck_digest(GID, 1, y, inputs)
        perm = derive_permutation(GID, 1, shuffler, bytes(32), d_in)  # not its real seed
        rhos = [1000 + k for k in range(104)]
        out = shuffle_hop(inputs, perm, rhos, y)
        ctx = shuffle_context(GID, 1, shuffler, d_in)
        proof = prove_shuffle(ctx, y, inputs, out, perm, rhos, nonce_seed=bytes(32),
                              context_game=GID)
        author = Author(self.ids[shuffler], GID, shuffler, fork.next_counter(shuffler))
        body = {"round": 1, "deck": [[a, b] for a, b in out], "proof": proof}
        msg, sig = author.message("shuffle", body, seen=fork.seen())
        return fork.order(msg, sig, self.ids[0])

    def close(self) -> None:
        for t in self.tables.values():
            t.close()


def _secrets(t: Table) -> bytes:
    return t.files.secrets.read_bytes()


@pytest.mark.parametrize("where", ["hop", "deal"])
def test_a_seat_made_to_use_its_seed_on_another_deck_after_a_power_loss_refuses(
        tmp_path: Path, where: str) -> None:
    """Seat 1 shuffles (``hop``: then loses power before its transcript synced seat 0's
    hop or its own) or also deals (``deal``: it loses seat 2's hop and everything after).
    The host serves another validly proved hop at the lost position — seat 0's own, or
    colluding seat 2's. Seat 1 applies it (it verifies), and then refuses to shuffle /
    deal on the new deck: one line naming the host, nothing signed or sent, its pledge
    on disk unchanged. (An honest restart, served the same records, goes on — below.)"""
    g = Game(tmp_path)
    try:
        if where == "hop":
            g.pump(lambda r: r.deck.next_shuffler() == 2)
            at, shuffler = g.entry_index(0, "shuffle"), 0
        else:
            g.pump(lambda r: r.stage == "deal")
            g.pump(lambda r: r.dealt_by == {1}, skip=(0, 2))
            at, shuffler = g.entry_index(2, "shuffle"), 2
        assert g.host.log.entries[-1].author == 1  # seat 1's hop / deal shares: sent
        victim = g.power_loss(1, keep=at)
        pledged = _secrets(victim)
        counter = victim.author.counter
        victim.add_record(g.forged_hop(shuffler, at))  # verifies: a valid proof
        # the joiner's node, synced with the host, pumps what it owes: it stops instead
        node = PeerNode(g.ids[1], tmp_path / "p1", "p1", "127.0.0.1", 9)
        node.table, node.ch = victim, object()  # type: ignore[assignment]
        node.session.fire(JoinEvent.PLAY)  # welcomed back to its seat …
        node.session.fire(JoinEvent.SYNCED)  # … and caught up: it sends what it owes
        with pytest.raises(PeerFatal, match=r"R8\.1: .*host seat 0 at fault") as fatal:
            node._pump()
        assert "\n" not in str(fatal.value)
        assert isinstance(victim.core.refused, PledgeRefused)
        e = victim.core.refused
        step = "shuffle" if where == "hop" else "shares"
        assert e.step == step and e.round_no == 1 and str(e) == str(fatal.value)
        # nothing new: no message made, none signed, the pledge on disk as it was, and
        # nothing more ever comes out of this core
        assert victim.core.outbox() == [] and not victim.core.can_move()
        assert victim.author.counter == counter
        assert _secrets(victim) == pledged
    finally:
        g.close()


@pytest.mark.parametrize("where", ["hop", "deal"])
def test_an_honest_restart_after_a_power_loss_makes_the_same_messages(
        tmp_path: Path, where: str) -> None:
    """The control: after the same power loss, a host serving the same records gets from
    seat 1 byte-identical messages (its hop and shares are functions of its seed and of
    the deck they are on) — the pledge refuses only another deck."""
    g = Game(tmp_path)
    try:
        if where == "hop":
            g.pump(lambda r: r.deck.next_shuffler() == 2)
            mine = g.entry_index(1, "shuffle")
        else:
            g.pump(lambda r: r.stage == "deal")
            g.pump(lambda r: r.dealt_by == {1}, skip=(0, 2))
            mine = g.entry_index(1, "shares")
        victim = g.power_loss(1, keep=mine - 1)
        victim.add_record(g.host.log.records()[mine - 1])
        (kind, body), = victim.core.outbox()
        assert kind == ("shuffle" if where == "hop" else "shares")
        assert body == dict(g.host.log.entries[mine].body)
        victim.add_record(g.host.log.records()[mine])  # made by us: accepted
        assert verify_records(victim.log.records()).reason == "the game did not finish"
    finally:
        g.close()


def test_a_seeds_file_of_another_header_with_the_same_game_id_is_refused(
        tmp_path: Path) -> None:
    """A ``.secrets`` file is bound to the header's hash: a new header under an old game
    id (another game; here a joiner whose old transcript is gone) does not get the old
    game's round seeds back — they were opened at the end of their rounds (R8.4)."""
    g = Game(tmp_path)
    g.pump(lambda r: r.stage == "shuffle")  # every seat's round-1 seed is on disk
    old_seed = SeedStore(g.tables[1].files.secrets, GID, 1, g.host.log.header_hash).seeds[1]
    g.close()
    (tmp_path / "p1" / "games" / f"{GID.hex()}.splitlog").unlink()
    players = [Player(s, f"q{s}", g.ids[s].public_key_bytes()) for s in range(3)]
    new, _ = Log.start(g.ids[0], game_id=GID, host_seat=0, players=players,
                       settings=g.host.log.header.settings)
    with pytest.raises(WireError, match="another game header with the same game id") as e:
        Table.from_header(g.ids[1], tmp_path / "p1", new.records()[0], None)
    assert e.value.fatal and "\n" not in str(e.value)
    with pytest.raises(ValueError, match="another game header"):
        SeedStore(g.tables[1].files.secrets, GID, 1, new.header_hash)
    # the same header still gets its seeds back (a restart)
    assert SeedStore(g.tables[1].files.secrets, GID, 1, g.host.log.header_hash).seeds[1] \
        == old_seed


def test_pledges_are_durable_and_another_deck_is_never_written_over_one(
        tmp_path: Path) -> None:
    from splitnet.game.table import Pledge

    path, h = tmp_path / "g.secrets", bytes(range(32))
    s = SeedStore(path, GID, 1, h)
    assert s.pledged(1, "shuffle") is None
    s.pledge(Pledge(1, "shuffle", b"a" * 32))
    s.pledge(Pledge(1, "shares", b"b" * 32))
    back = SeedStore(path, GID, 1, h)  # after a restart
    assert back.pledged(1, "shuffle") == b"a" * 32 and back.pledged(1, "shares") == b"b" * 32
    back.pledge(Pledge(1, "shuffle", b"a" * 32))  # the same: nothing to write
    with pytest.raises(ValueError, match="another deck is pledged"):
        back.pledge(Pledge(1, "shuffle", b"c" * 32))
    assert SeedStore(path, GID, 1, h).pledged(1, "shuffle") == b"a" * 32


def test_two_hops_of_one_seat_on_two_inputs_are_unrelated() -> None:
    """The leak the pledge stops, and why it would be harmless now anyway. The host gets
    seat 1 to shuffle twice: on seat 0's hop H and on H' = H + δ_k·(G, Y) at each position
    k (δ_k known to the host). With protocol 1's derivation (π, ρ from the seed alone) the
    two outputs differ at position i by exactly δ_{π(i)}·(G, Y): the host reads π off
    them. In splitnet/2 the permutation and re-masks derive from the seed and the input's
    digest, so the second hop is unrelated to the first: no difference is any δ_k·G."""
    from splitnet.crypto.deck import DeckRound
    from splitnet.crypto.seeds import derive_remasks
    from tests.test_deck_helpers import GID as DGID
    from tests.test_deck_helpers import Table as Deck
    from tests.test_deck_helpers import seed_for

    t = Deck(3, observer=False)
    t.commit()
    t.send("shuffle", 0, t.peers[0].shuffle_message())
    y, h = t.peers[1].joint_key, t.peers[1]._decks[1]
    assert y is not None
    deltas = [group.base_mul(5000 + k) for k in range(104)]
    h2 = tuple((group.add(c1, deltas[k]), group.add(c2, group.mul(5000 + k, y)))
               for k, (c1, c2) in enumerate(h))
    twin = DeckRound(DGID, 1, 3, 1, seed_for(1))  # seat 1 again, same seed
    for kind, seat, msg, _ in t.log:
        if kind == "commit":
            twin.on_commit(seat, msg)
    twin.on_shuffle(0, {"deck": [list(c) for c in h2], "proof": None})
    first = t.peers[1].shuffle_message()["deck"]
    second = twin.shuffle_message()["deck"]
    assert isinstance(first, list) and isinstance(second, list)
    where = {d: k for k, d in enumerate(deltas)}
    # protocol 1: the same π and ρ on both inputs — the differences spell π out
    d_in = t.peers[1].input_digest(1)
    assert d_in is not None
    perm = derive_permutation(DGID, 1, 1, seed_for(1), d_in)
    rhos = derive_remasks(DGID, 1, 1, seed_for(1), d_in)
    v1 = shuffle_hop(h2, perm, rhos, y)
    assert [where[group.sub(v1[i][0], first[i][0])] for i in range(104)] == perm
    # splitnet/2: nothing to read
    assert not any(group.sub(second[i][0], first[i][0]) in where for i in range(104))


def _omega_reuse_attack(hops: list[tuple[bytes, bytes, Any, Any, bytes]],
                        gid: bytes) -> list[int | None]:
    """The attack on shuffle-proof nonces reused across two statements of one seat (the
    precomputation SECURITY.md §2.1 rejects): s'_i = ω'_i + c·u_ψ(i), so with one ω' the
    difference of two proofs' s'_i is c·u_ψ(i) − c'·u'_ψ(i), which names ψ(i) among the
    public u's. Returns ψ(i) where the differences name one, else None."""
    from splitnet.crypto import shuffle_proof as sp

    a, b = (sp._prepare(ctx, y, i, o, proof, gid) for ctx, y, i, o, proof in hops)
    cand = {(a.ch * ua - b.ch * ub) % group.L: j
            for j, (ua, ub) in enumerate(zip(a.u, b.u, strict=True))}
    return [cand.get((x - z) % group.L)
            for x, z in zip(a.pr.s_prime, b.pr.s_prime, strict=True)]


def test_a_seats_proofs_on_two_inputs_share_no_nonce_so_they_do_not_give_its_permutation(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Why a hop's proof nonces stay bound to its input (SECURITY.md §2.1, "precompute";
    DECK.md §13): made ahead of the deck — one ω' for any input — two proofs of one seat
    on two inputs (a host serving another hop after a restored .secrets file, past the
    pledge) would spell its permutation out even with fresh re-masks. splitnet/2's
    derivation (π, ρ and the nonce seed from the seed and the input's digest) leaves the
    same attack nothing."""
    import hashlib

    from splitnet.crypto import elgamal, seeds
    from splitnet.crypto import shuffle_proof as sp

    gid, seed = bytes(range(16)), bytes([7]) * 32
    y = group.base_mul(group.hash_to_scalar(b"splitnet/test/key", b"y"))
    d0 = deck_digest(gid, 1, y, elgamal.initial_deck(gid))
    h = elgamal.shuffle_hop(elgamal.initial_deck(gid), derive_permutation(gid, 1, 0, seed, d0),
                            seeds.derive_remasks(gid, 1, 0, seed, d0), y)
    h2 = elgamal.shuffle_hop(h, list(range(104)), [9000 + k for k in range(104)], y)

    def hop(inputs: Any) -> tuple[bytes, bytes, Any, Any, bytes]:  # seat 1, as DeckRound
        d_in = deck_digest(gid, 1, y, inputs)
        perm = derive_permutation(gid, 1, 1, seed, d_in)
        rhos = seeds.derive_remasks(gid, 1, 1, seed, d_in)
        out = shuffle_hop(inputs, perm, rhos, y)
        ctx = shuffle_context(gid, 1, 1, d_in)
        return ctx, y, inputs, out, prove_shuffle(
            ctx, y, inputs, out, perm, rhos, context_game=gid,
            nonce_seed=seeds.derive_shuffle_nonce_seed(gid, 1, 1, seed, d_in))

    assert _omega_reuse_attack([hop(h), hop(h2)], gid) == [None] * 104
    # The rejected design: π and ω' made before the input is known (fresh ρ per input).
    perm = derive_permutation(gid, 1, 1, seed, bytes(32))
    key_prefix = group.frame(sp.DOMAIN_NONCE_KEY)

    class FixedNonceKey:
        def __getattr__(self, name: str) -> Any:
            return getattr(hashlib, name)

        @staticmethod
        def sha512(data: bytes = b"") -> Any:
            return hashlib.sha512(b"input-independent" if data.startswith(key_prefix)
                                  else data)

    monkeypatch.setattr(sp, "hashlib", FixedNonceKey())
    made = []
    for inputs, tag in ((h, 1), (h2, 2)):
        rhos = [group.hash_to_scalar(b"splitnet/test/rho", bytes([tag, k])) for k in range(104)]
        out = shuffle_hop(inputs, perm, rhos, y)
        made.append((b"ctx", y, inputs, out, prove_shuffle(
            b"ctx", y, inputs, out, perm, rhos, nonce_seed=seed, context_game=gid)))
    assert _omega_reuse_attack(made, gid) == perm


def test_a_seat_that_opened_its_seed_refuses_to_play_on_in_that_round() -> None:
    """The opening is a pledge too. Seat 1 opens its round seed at the end of the round;
    after a restart the host serves a log in which the round is still in play (the end
    seat 1 saw was lost with its transcript's tail; here: the log cut before the last
    moves) and seat 1 is to move. With its seed public its cards are known to everyone:
    it refuses to move or send anything in that round (R8.1). The honest restart — the
    round over, its opening not yet ordered — sends the same opening again."""
    from splitnet.games.split.bots import make_bot
    from splitnet.games.split.core import GameCore
    from splitnet.games.split.local import LocalGame, SelfplaySecrets
    from splitnet.games.split.rules import Settings
    from tests.test_game_fair import until

    src = SelfplaySecrets(4)
    g = LocalGame(["p0", "p1"], Settings(rounds=2, hand_size=3), src, shuffle_proofs=False)
    until(g, "open")
    (kind, body), = g.cores[1].outbox()
    g.send(1, kind, body)
    entries = [e for e in g.log.entries if e.seq > 0 and e.kind != "accept"]

    def restarted(upto: int) -> GameCore:
        core = GameCore(g.log.game_id, g.names, g.settings, 1, src.round_seeds(1),
                        shuffle_proofs=False, pledges=g.pledges[1])
        for e in entries[:upto]:
            core.apply(e.author, e.kind, dict(e.body))
        return core

    probe, last_turn = restarted(0), 0
    for k, e in enumerate(entries):  # the last point where seat 1 was to move
        if probe.can_move():
            last_turn = k
        probe.apply(e.author, e.kind, dict(e.body))
    core = restarted(last_turn)
    assert core.can_move()
    action = make_bot("random", 1).choose(core.engine, 1)
    with pytest.raises(PledgeRefused, match="already opened our seed") as refused:
        core.move_message(action)
    assert refused.value.step == "move" and core.outbox() == [] and not core.can_move()
    honest = restarted(len(entries) - 1)  # everything but our opening
    (kind2, body2), = honest.outbox()
    assert (kind2, body2) == (kind, body)


def test_a_saved_local_game_keeps_every_seats_pledges_in_its_secrets_file(
        tmp_path: Path) -> None:
    """``splitnet play`` saves local games: each seat's pledges go to its own secrets
    file, bound to the header, before its hop and deal shares are made — so a resumed
    local game is held to the same decks as a LAN seat."""
    from splitnet.app.saved import seat_secrets_path
    from splitnet.games.split.front.selfplay import human_session
    from splitnet.games.split.rules import Settings

    s = human_session("You", ["heuristic"], 5, Settings(), shuffle_proofs=False,
                      data_dir=tmp_path)
    g = s.game
    for _ in range(20):
        r = g.cores[0].round
        if r is not None and r.stage == "play":
            break
        g.pump()
    files = GameFiles(tmp_path, g.log.game_id)
    for seat in (0, 1):
        store = SeedStore(seat_secrets_path(files, seat, 0), g.log.game_id, seat,
                          g.log.header_hash)
        deck = g.cores[seat].rounds[0].deck
        assert store.pledged(1, "shuffle") == deck.input_digest(seat)
        assert store.pledged(1, "shares") == deck.final_digest
    g.close()
