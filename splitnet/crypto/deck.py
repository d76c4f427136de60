"""The sans-IO fair-deck protocol of one round (DESIGN "fair deck"; RULES R3.3, R8).

One :class:`DeckRound` object per peer and round.  It never does I/O, never reads a clock
and never draws randomness: every message it produces is a deterministic function of the
seat's ``seed`` and of the messages it was fed, so a self-play transcript is reproducible.

Flow (every message, **including the peer's own**, is fed back with ``on_*`` in log
order — the log is the source of truth)::

    COMMIT   every seat, any order      commit_message()        → on_commit(seat, msg)
    SHUFFLE  seats 0, 1, …, N−1         shuffle_message()       → on_shuffle(seat, msg)
             (pipelined: on_shuffle(seat, msg, defer=True) takes the hop unchecked, the
             next seat shuffles at once; settle_hop(hop, verdict) for each unchecked_hops()
             in chain order before the first share — DECK.md §5.2)
    SHARES   deal / draw / reveal       shares_message(slots,p) → on_shares(seat, msg, p)
    OPEN     every seat, round end      open_message()          → on_open(seat, msg)
    then     audit() → the card id of every slot

Slot ``s`` is position ``s`` of the deck after the last hop; the rules layer decides
which slot goes to whom and which shares are asked for.  A peer can read slot ``s``
(:meth:`DeckRound.card`) once it has every seat's decryption share for it — its own
share it computes itself.  That is what keeps R8.1–R8.3: the deal gives a player every
share of its own slots except its own, a private draw gives the drawer every share but
its own, and a public reveal gives everybody the holder's.

Every ``on_*`` method first checks the whole message and only then changes the state;
a refused message raises :class:`CheatDetected` (seat at fault, step, reason) and leaves
the object exactly as it was.  Local misuse of the API raises :class:`DeckUsageError`.

>>> gid = bytes(range(16))
>>> peers = [DeckRound(gid, 1, 2, i, bytes([i]) * 32) for i in range(2)]
>>> for p in peers:
...     for i, q in enumerate(peers):
...         p.on_commit(i, q.commit_message())
>>> for i in range(2):
...     msg = peers[i].shuffle_message()
...     for p in peers:
...         p.on_shuffle(i, msg)
>>> msg = peers[1].shares_message([0], "draw")     # seat 1 helps seat 0 read slot 0
>>> for p in peers:
...     p.on_shares(1, msg, "draw")
>>> peers[0].card(0) is not None, peers[1].card(0)
(True, None)
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
from collections.abc import Callable, Mapping, Sequence
from typing import Final, TypeAlias, TypeVar

from splitnet.cards import N_CARDS, name
from splitnet.crypto import group
from splitnet.crypto.elgamal import (
    Ciphertext,
    Deck,
    card_table,
    decrypt,
    initial_deck,
    shuffle_hop,
)
from splitnet.crypto.errors import CheatDetected, DeckUsageError
from splitnet.crypto.proofs import (
    PURPOSES,
    SHARES_PROOF_BYTES,
    SharesStatement,
    prove_key,
    prove_shares,
    verify_key,
    verify_shares,
    verify_shares_batch,
)
from splitnet.crypto.seeds import (
    GAME_ID_BYTES,
    SEED_BYTES,
    commitment,
    deck_digest,
    derive_key,
    derive_permutation,
    derive_remasks,
    derive_shuffle_nonce_seed,
    u64,
)
from splitnet.crypto.split import Splitter

#: Recomputes a seat's hop from its opened seed (R8.4) at most once for the peers that
#: share it — the peers of one process (``splitnet play``: you and the bots), injected
#: like the proof checker: ``memo(key, compute)`` returns ``compute()``, or what an
#: earlier call with the same key computed. The key names everything the hop is a
#: function of (game, round, seat, seed and the input deck's digest, which covers the
#: joint key), so a remembered deck is exactly the one this peer would compute; what is
#: remembered is always a computed deck, never a received one (protocol/SECURITY.md §2.1,
#: "Checked once per process").
HopMemo: TypeAlias = Callable[[bytes, Callable[[], Deck]], Deck]
DOMAIN_HOP_MEMO: Final = b"splitnet/v1/memo/opened-hop"

#: A protocol message: a msgpack-ready map (values are bytes/int/str/list/dict/None).
Message: TypeAlias = dict[str, object]

#: prove_shuffle(context, joint_key, inputs, outputs, perm, rhos, nonce_seed) -> proof
#: bytes, where outputs[i] = inputs[perm[i]] + (rhos[i]·G, rhos[i]·Y) and nonce_seed is
#: the secret the proof's nonces derive from (seeds.derive_shuffle_nonce_seed). Every
#: point of ``inputs`` has been checked (a received hop's points are, in on_shuffle) and
#: ``outputs`` are this seat's own, so a prover need not decode them again.
ShuffleProver: TypeAlias = Callable[
    [
        bytes,
        bytes,
        Sequence[Ciphertext],
        Sequence[Ciphertext],
        Sequence[int],
        Sequence[int],
        bytes,
    ],
    bytes,
]
#: verify_shuffle(context, joint_key, inputs, outputs, proof) -> None, raising ValueError
#: (or a subclass) when the proof is wrong.
ShuffleVerifier: TypeAlias = Callable[
    [bytes, bytes, Sequence[Ciphertext], Sequence[Ciphertext], bytes], None
]

DOMAIN_SHUFFLE: Final = b"splitnet/v2/shuffle"
DOMAIN_HOP_CHECK: Final = b"splitnet/v2/hop-check"
MIN_PLAYERS: Final = 2
#: The deck layer takes up to 8 seats (Splito plays with up to 8, docs/SPLITO.md); Split
#: itself is for 2–6 (R3.1), which its rules check (Settings.check_players).
MAX_PLAYERS: Final = 8


def shuffle_context(game_id: bytes, round_no: int, seat: int, input_digest: bytes) -> bytes:
    """The context a shuffle proof binds: frame("splitnet/v2/shuffle", game_id, u64(round),
    u64(seat), input_digest) — the hop's position and the digest of the deck it takes."""
    return group.frame(DOMAIN_SHUFFLE, game_id, u64(round_no), u64(seat), input_digest)


@dataclasses.dataclass(frozen=True)
class HopCheck:
    """A hop taken with its proof still to be checked (``on_shuffle(…, defer=True)``):
    exactly the arguments of the shuffle verifier, so the check can run anywhere (another
    process) and its verdict be handed back with :meth:`DeckRound.settle_hop`."""

    seat: int
    context: bytes
    joint_key: bytes
    inputs: Deck
    outputs: Deck
    proof: bytes

    def digest(self, game_id: bytes) -> bytes:
        """SHA-256 of everything the check depends on (generators: ``game_id``): equal
        digests, equal verdicts."""
        parts = [u64(self.seat), self.context, self.joint_key, self.proof,
                 *(b for pair in self.inputs for b in pair),
                 *(b for pair in self.outputs for b in pair)]
        return hashlib.sha256(group.frame(DOMAIN_HOP_CHECK, game_id, *parts)).digest()


class DeckRound:
    """The fair deck of one round, seen by one peer (a player, or an observer).

    ``seat``/``seed`` None: an observer (the verifier, a spectator) holding no secret;
    it checks everything and reads only the publicly revealed slots.

    ``seats``: the seats that make this deck — commit a key share, shuffle (in
    increasing seat order), send shares and open — by default all ``n_players``. A seat
    left out (an open-handed seat, protocol/GAME.md "abandon") holds no key: a slot is
    readable once every seat of ``seats`` has shared it. At least two seats take part.

    ``splitter``: this seat's re-masks (its hop, and the hops it recomputes at the
    opening) and the batched check of a deal's share proofs are cut into chunks it may
    run side by side (:mod:`splitnet.crypto.split`; the same bytes and verdicts); by
    default in this thread.

    ``initial``/``table``: another game's deck (Splito, protocol/SPLITO_GAME.md): the
    deck the first hop takes (by default Split's trivial encryption of its 104 cards) and
    the lookup plaintext point → card id that reads it; ``card_name`` names a card id in
    messages. The deck's length is ``len(initial)``; its ciphertexts need not be trivial
    (a deck may start from another deck's, under the same keys: feed it the same COMMITs).
    """

    def __init__(
        self,
        game_id: bytes,
        round_no: int,
        n_players: int,
        seat: int | None,
        seed: bytes | None,
        *,
        shuffle_prover: ShuffleProver | None = None,
        shuffle_verifier: ShuffleVerifier | None = None,
        seats: Sequence[int] | None = None,
        initial: Deck | None = None,
        table: Mapping[bytes, int] | None = None,
        card_name: Callable[[int], str] | None = None,
        splitter: Splitter | None = None,
        hop_memo: HopMemo | None = None,
    ) -> None:
        if not isinstance(game_id, bytes) or len(game_id) != GAME_ID_BYTES:
            raise DeckUsageError(f"game_id must be {GAME_ID_BYTES} bytes")
        if isinstance(round_no, bool) or not isinstance(round_no, int) or round_no < 1:
            raise DeckUsageError("rounds are numbered from 1")
        if not MIN_PLAYERS <= n_players <= MAX_PLAYERS:
            raise DeckUsageError(f"{MIN_PLAYERS}–{MAX_PLAYERS} players, not {n_players}")
        if (seat is None) != (seed is None):
            raise DeckUsageError("give both seat and seed (a player) or neither (an observer)")
        if seat is not None and not 0 <= seat < n_players:
            raise DeckUsageError(f"seat {seat} is outside 0…{n_players - 1}")
        members = tuple(range(n_players)) if seats is None else tuple(seats)
        if (list(members) != sorted(set(members)) or len(members) < MIN_PLAYERS
                or not all(isinstance(i, int) and 0 <= i < n_players for i in members)):
            raise DeckUsageError(f"seats must be ≥ {MIN_PLAYERS} distinct seats of "
                                 f"0…{n_players - 1} in increasing order, not {seats!r}")
        if seat is not None and seat not in members:
            raise DeckUsageError(f"seat {seat} does not take part in this deck")
        if seed is not None and (not isinstance(seed, bytes) or len(seed) != SEED_BYTES):
            raise DeckUsageError(f"the seed must be {SEED_BYTES} bytes")
        self.game_id: Final = game_id
        self.round_no: Final = round_no
        self.n_players: Final = n_players
        #: the seats that make the deck, in shuffle order
        self.seats: Final = members
        self.seat: Final = seat
        self._seed = seed
        self._x: int | None = (
            None if seat is None or seed is None else derive_key(game_id, round_no, seat, seed)
        )
        self._prover = shuffle_prover
        #: cuts this seat's re-masks into chunks run side by side (the same deck)
        self._splitter = splitter
        #: recomputes an opened seat's hop once per process (None: always here)
        self._hop_memo = hop_memo
        self._verifier = shuffle_verifier
        if (initial is None) != (table is None):
            raise DeckUsageError("give both initial and table (another game's deck) or neither")
        self._table = card_table(game_id) if table is None else table
        start = initial_deck(game_id) if initial is None else tuple(initial)
        if not start:
            raise DeckUsageError("a deck holds at least one card")
        #: the number of cards (slots 0 … size−1)
        self.size: Final = len(start)
        self._name: Callable[[int], str] = (card_name if card_name is not None
                                            else name if initial is None else str)
        # --- protocol state (changed only by on_* after a message is fully verified)
        self._commits: dict[int, tuple[bytes, bytes]] = {}  # seat -> (commitment, Y_i)
        self._joint: bytes | None = None
        self._decks: list[Deck] = [start]  # [initial, after seat 0, …]
        self._shares: dict[int, dict[int, bytes]] = {}  # slot -> seat -> d
        self._opened: dict[int, int] = {}  # seat -> x_i (after a verified OPEN)
        self._proved: set[int] = set()  # seats whose hop a late proof showed honest
        self._own_hop_trusted = False
        #: hops taken with their proof check deferred, not yet settled (chain order)
        self._unchecked: list[HopCheck] = []
        self._own_local_slots: set[int] = set()  # own shares fed back as produced
        # --- caches of our own computations (never of a peer's unverified data)
        self._own_key: bytes | None = None if self._x is None else group.base_mul(self._x)
        self._sent_commit: Message | None = None
        self._sent_hop: tuple[Deck, bytes | None] | None = None
        self._sent_proof: bytes | None = None  # our late hop proof, made once
        self._sent_shares: dict[tuple[str, tuple[int, ...]], tuple[tuple[bytes, ...], bytes]] = {}
        self._own_shares: dict[int, bytes] = {}  # slot -> x·c1 (computed once)
        self._cards: dict[int, int] = {}  # slot -> card id, once decrypted
        self._card_slot: dict[int, int] = {}  # card id -> slot
        self._audit: list[int] | None = None

    def fork(self) -> DeckRound:
        """An independent copy: feed it a message to see its effect (e.g. which cards a
        reveal shows) and keep it or drop it; the original is not affected either way.

        Cheap: the shuffled decks and the card table are immutable and shared.
        """
        twin = copy.copy(self)
        twin._commits = dict(self._commits)
        twin._decks = list(self._decks)
        twin._unchecked = list(self._unchecked)
        twin._shares = {s: dict(d) for s, d in self._shares.items()}
        twin._opened = dict(self._opened)
        twin._proved = set(self._proved)
        twin._own_local_slots = set(self._own_local_slots)
        twin._sent_shares = dict(self._sent_shares)
        twin._own_shares = dict(self._own_shares)
        twin._cards = dict(self._cards)
        twin._card_slot = dict(self._card_slot)
        return twin

    # ------------------------------------------------------------------ queries

    @property
    def joint_key(self) -> bytes | None:
        """Y = Σ Y_i once every seat has committed."""
        return self._joint

    @property
    def keys(self) -> Mapping[int, bytes]:
        """The committed key share Y_i of each seat seen so far."""
        return {s: k for s, (_, k) in self._commits.items()}

    @property
    def shuffled(self) -> bool:
        """True once all N hops are in: slots exist from then on."""
        return len(self._decks) == len(self.seats) + 1

    @property
    def verified(self) -> bool:
        """True once all N hops are in and every hop's proof is checked (no deferred
        check outstanding): shares can be made and read only from then on."""
        return self.shuffled and not self._unchecked

    def unchecked_hops(self) -> list[HopCheck]:
        """The hops taken with ``defer=True`` whose verdict is not settled yet, in chain
        order (settle them in this order with :meth:`settle_hop`)."""
        return list(self._unchecked)

    def settle_hop(self, hop: HopCheck, error: str | None) -> None:
        """The verdict of a deferred proof check: ``error`` None = the proof verifies,
        else the verifier's reason. Hops are settled in chain order (DeckUsageError
        otherwise), so the first bad hop is the one named. A rejected hop raises
        CheatDetected(its seat, "shuffle", …) and stays unsettled: the deck never becomes
        :attr:`verified` and no share can be made of it."""
        if not self._unchecked or self._unchecked[0] != hop:
            raise DeckUsageError("settle deferred hop checks in chain order, each once")
        if error is not None:
            raise CheatDetected(hop.seat, "shuffle", f"the shuffle proof is rejected: {error}")
        self._unchecked.pop(0)

    @property
    def deck(self) -> Deck | None:
        """The final deck (slot s = position s), or None before the last hop."""
        return self._decks[-1] if self.shuffled else None

    def input_digest(self, seat: int) -> bytes | None:
        """:func:`~splitnet.crypto.seeds.deck_digest` of the deck ``seat``'s hop takes (the
        initial deck for seat 0, seat−1's output otherwise), once every seat has committed
        and that deck is in; else None. Everything the seat's hop derives from its seed
        is bound to it (DECK.md §4)."""
        self._check_seat(seat)
        k = self.seats.index(seat)
        if self._joint is None or k >= len(self._decks):
            return None
        return deck_digest(self.game_id, self.round_no, self._joint, self._decks[k])

    @property
    def final_digest(self) -> bytes | None:
        """:func:`~splitnet.crypto.seeds.deck_digest` of the final deck (the deck every
        share is of), or None before the last hop."""
        if not self.shuffled:
            return None
        assert self._joint is not None
        return deck_digest(self.game_id, self.round_no, self._joint, self._decks[-1])

    def next_shuffler(self) -> int | None:
        """The seat whose SHUFFLE is expected now (None before all commits / when done)."""
        if len(self._commits) < len(self.seats) or self.shuffled:
            return None
        return self.seats[len(self._decks) - 1]

    def known_slots(self) -> set[int]:
        """Slots this peer can read now (it holds or can compute every seat's share)."""
        if not self.shuffled:
            return set()
        return {s for s in range(self.size) if self._readable(s)}

    def card(self, slot: int) -> int | None:
        """The card id (0…103, ``cards.face(id)`` for its face) in ``slot``, or None if
        this peer cannot read it (yet).

        Raises CheatDetected(None, "decrypt", …) when the shares combine to a point that is
        no card or to a card already seen in another slot: some hop was not honest, and
        the openings (:meth:`on_open`) will name the seat.
        """
        _check_slot(slot, self.size)
        if slot in self._cards:
            return self._cards[slot]
        if not self.shuffled or not self._readable(slot):
            return None
        c1, c2 = self._decks[-1][slot]
        have = self._shares.get(slot, {})
        parts: list[bytes] = []
        opened_x = 0
        for i in self.seats:
            if i in have:
                parts.append(have[i])
            elif i == self.seat:
                parts.append(self._own_share(slot))
            else:
                opened_x += self._opened[i]
        if opened_x:
            parts.append(group.mul(opened_x, c1))
        acc = parts[0]
        for p in parts[1:]:
            acc = group.add(acc, p)
        k = self._table.get(decrypt((c1, c2), acc))
        if k is None:
            raise CheatDetected(None, "decrypt", f"slot {slot} decrypts to no card")
        if k in self._card_slot:
            raise CheatDetected(
                None,
                "decrypt",
                f"card {k} ({self._name(k)}) appears in slots {self._card_slot[k]} and {slot}",
            )
        self._cards[slot] = k
        self._card_slot[k] = slot
        return k

    # ------------------------------------------------------------------ COMMIT

    def commit_message(self) -> Message:
        """{"commit": 32 B, "key": Y_i (32 B), "pok": Schnorr proof (64 B)}."""
        x, seat, seed = self._secrets("commit_message")
        if self._sent_commit is None:
            assert self._own_key is not None
            self._sent_commit = {
                "commit": commitment(self.game_id, self.round_no, seat, seed),
                "key": self._own_key,
                "pok": prove_key(x, self._own_key, self.game_id, self.round_no, seat),
            }
        return dict(self._sent_commit)

    def on_commit(self, seat: int, msg: Message) -> None:
        """A seat's COMMIT: checks the key (canonical, not the identity) and its PoK."""
        step = "commit"
        self._check_seat(seat)
        if seat in self._commits:
            raise CheatDetected(seat, step, "duplicate commit")
        f = _fields(seat, step, msg, ("commit", "key", "pok"))
        com = f["commit"]
        if not isinstance(com, bytes) or len(com) != 32:
            raise CheatDetected(seat, step, "commit: expected 32 bytes")
        own = seat == self.seat and self._sent_commit is not None and f == self._sent_commit
        key = _point(seat, step, f["key"], "key")
        if not own and not _decode(
            seat, step, lambda: verify_key(f["pok"], key, self.game_id, self.round_no, seat)
        ):
            raise CheatDetected(
                seat,
                step,
                "the proof of knowledge of the key share does not verify "
                "(a rogue key, or a commit replayed from another game, round or seat)",
            )
        joint = None
        if len(self._commits) + 1 == len(self.seats):
            joint = key
            for k in (k for _, k in self._commits.values()):
                joint = group.add(joint, k)
            if joint == group.IDENTITY:
                raise CheatDetected(seat, step, "the joint key would be the identity")
        # verified: mutate
        self._commits[seat] = (com, key)
        self._joint = joint

    # ------------------------------------------------------------------ SHUFFLE

    def shuffle_message(self) -> Message:
        """{"deck": [[c1, c2] × 104], "proof": bytes | None} — our hop, in our turn."""
        _, seat, seed = self._secrets("shuffle_message")
        if self.next_shuffler() != seat:
            raise DeckUsageError(f"it is not seat {seat}'s turn to shuffle")
        if self._sent_hop is None:
            assert self._joint is not None
            inputs = self._decks[-1]
            d_in = deck_digest(self.game_id, self.round_no, self._joint, inputs)
            perm, rhos = self._hop_secrets(seat, seed, d_in)
            out = shuffle_hop(inputs, perm, rhos, self._joint, splitter=self._splitter)
            proof = (None if self._prover is None else
                     self._prove_hop(self._prover, seat, seed, d_in, inputs, out, perm, rhos))
            self._sent_hop = (out, proof)
        out, proof = self._sent_hop
        return {"deck": [[c1, c2] for c1, c2 in out], "proof": proof}

    def on_shuffle(self, seat: int, msg: Message, *, defer: bool = False) -> None:
        """A seat's SHUFFLE: in turn, 104 canonical non-identity pairs, proof if required.

        ``defer``: the proof (present, if a verifier is configured) is not checked now but
        kept as a :class:`HopCheck` (:meth:`unchecked_hops`) for :meth:`settle_hop`; the
        next hop can be made on this one's output meanwhile (DECK.md §5.2, pipelining)."""
        step = "shuffle"
        self._check_seat(seat)
        if len(self._commits) < len(self.seats):
            raise CheatDetected(seat, step, "shuffle before every seat has committed")
        done = len(self._decks) - 1
        if self.seats.index(seat) < done:
            raise CheatDetected(seat, step, "duplicate shuffle")
        if done >= len(self.seats) or seat != self.seats[done]:
            raise CheatDetected(seat, step, "out of turn: seat "
                                f"{self.seats[done] if done < len(self.seats) else '—'} "
                                "shuffles now")
        f = _fields(seat, step, msg, ("deck", "proof"))
        proof = f["proof"]
        if proof is not None and not isinstance(proof, bytes):
            raise CheatDetected(seat, step, "proof: expected bytes or nil")
        out = _parse_deck(seat, f["deck"], self.size)
        own = seat == self.seat and self._sent_hop == (out, proof)
        deferred: HopCheck | None = None
        if not own:
            for i, (c1, c2) in enumerate(out):
                _point(seat, step, c1, f"deck[{i}].c1")
                _point(seat, step, c2, f"deck[{i}].c2")
            if self._verifier is not None:
                if proof is None:
                    raise CheatDetected(seat, step, "the shuffle proof is missing")
                assert self._joint is not None
                d_in = deck_digest(self.game_id, self.round_no, self._joint, self._decks[-1])
                ctx = shuffle_context(self.game_id, self.round_no, seat, d_in)
                if defer:
                    deferred = HopCheck(seat, ctx, self._joint, self._decks[-1], out, proof)
                else:
                    try:
                        self._verifier(ctx, self._joint, self._decks[-1], out, proof)
                    except ValueError as e:
                        raise CheatDetected(seat, step,
                                            f"the shuffle proof is rejected: {e}") from e
        # verified (or its proof check deferred): mutate
        self._decks.append(out)
        if deferred is not None:
            self._unchecked.append(deferred)
        if own:
            self._own_hop_trusted = True

    # ------------------------------------------------------------------ late hop proof

    def hop_proof_message(self, prove: ShuffleProver) -> Message:
        """{"proof": bytes} — the shuffle proof of this seat's hop, made after the fact
        (a deck dealt without proofs whose round was cut short: protocol/GAME.md
        "abandon" step 2). It is the proof the hop would have carried, from the same
        seed, input and nonce seed (DECK.md §4): it shows the hop honest and tells
        nothing of the permutation, where an opening of the seed would give every card
        of the round away. Our own hop, as the log holds it."""
        _, seat, seed = self._secrets("hop_proof_message")
        if not self.shuffled:
            raise DeckUsageError("no hop to prove before the shuffle is complete")
        if self._sent_proof is None:
            inputs, out, d_in = self._hop_of(seat)
            self._sent_proof = self._prove_hop(prove, seat, seed, d_in, inputs, out,
                                               *self._hop_secrets(seat, seed, d_in))
        return {"proof": self._sent_proof}

    def _hop_secrets(self, seat: int, seed: bytes,
                     d_in: bytes) -> tuple[list[int], list[int]]:
        """(π, ρ) of ``seat``'s hop on the deck of digest ``d_in`` (DECK.md §4)."""
        return (derive_permutation(self.game_id, self.round_no, seat, seed, d_in, self.size),
                derive_remasks(self.game_id, self.round_no, seat, seed, d_in, self.size))

    def _prove_hop(self, prove: ShuffleProver, seat: int, seed: bytes, d_in: bytes,
                   inputs: Deck, out: Deck, perm: list[int], rhos: list[int]) -> bytes:
        """The shuffle proof of ``seat``'s hop ``inputs`` → ``out`` by (π, ρ), its nonces
        from the seed and the input (DECK.md §4): the same bytes whenever it is made."""
        assert self._joint is not None
        return prove(shuffle_context(self.game_id, self.round_no, seat, d_in), self._joint,
                     inputs, out, perm, rhos,
                     derive_shuffle_nonce_seed(self.game_id, self.round_no, seat, seed, d_in))

    def hop_proof_check(self, seat: int, msg: Message) -> HopCheck:
        """A seat's late hop proof (:meth:`hop_proof_message`), well formed and not a
        second one: the check to run (the caller runs it, e.g. on a worker, and calls
        :meth:`on_hop_proof` with the verdict). Raises CheatDetected naming ``seat``."""
        step = "prove"
        self._check_seat(seat)
        if not self.shuffled:
            raise CheatDetected(seat, step, "a hop proof before the shuffle is complete")
        if seat in self._proved:
            raise CheatDetected(seat, step, "duplicate hop proof")
        f = _fields(seat, step, msg, ("proof",))
        proof = f["proof"]
        if not isinstance(proof, bytes):
            raise CheatDetected(seat, step, "proof: expected bytes")
        inputs, out, d_in = self._hop_of(seat)
        assert self._joint is not None
        return HopCheck(seat, shuffle_context(self.game_id, self.round_no, seat, d_in),
                        self._joint, inputs, out, proof)

    def on_hop_proof(self, hop: HopCheck, error: str | None) -> None:
        """The verdict of :meth:`hop_proof_check`'s check: None = the proof verifies, and
        the seat's hop is proved; else CheatDetected naming it (nothing changes)."""
        if error is not None:
            raise CheatDetected(hop.seat, "prove", f"the hop's shuffle proof is rejected: "
                                f"{error}")
        self._check_seat(hop.seat)
        if hop.seat in self._proved:  # pragma: no cover - hop_proof_check refused it
            raise CheatDetected(hop.seat, "prove", "duplicate hop proof")
        self._proved.add(hop.seat)

    @property
    def proved(self) -> frozenset[int]:
        """The seats whose hop a late proof showed honest (:meth:`on_hop_proof`)."""
        return frozenset(self._proved)

    def _hop_of(self, seat: int) -> tuple[Deck, Deck, bytes]:
        """The deck ``seat``'s hop took, the deck it made, and the input's digest."""
        assert self._joint is not None
        k = self.seats.index(seat)
        inputs = self._decks[k]
        return (inputs, self._decks[k + 1],
                deck_digest(self.game_id, self.round_no, self._joint, inputs))

    # ------------------------------------------------------------------ SHARES

    def shares_message(self, slots: list[int], purpose: str) -> Message:
        """{"slots": [s…], "shares": [x_i·c1_s…], "proof": batched DLEQ (64 B)}.

        ``purpose`` is "deal", "draw" or "reveal" and is bound into the proof.
        """
        x, seat, _ = self._secrets("shares_message")
        _check_purpose(purpose)
        if not self.shuffled:
            raise DeckUsageError("no shares before the shuffle is complete")
        if self._unchecked:
            raise DeckUsageError("no shares before every hop's proof is checked (settle_hop)")
        if self._opened:
            raise DeckUsageError("the round is already being opened")
        if not slots or len(set(slots)) != len(slots):
            raise DeckUsageError("slots must be a non-empty list of distinct slots")
        for s in slots:
            _check_slot(s, self.size)
            if seat in self._shares.get(s, {}):
                raise DeckUsageError(f"seat {seat} already sent its share for slot {s}")
        key = self._sent_shares.get((purpose, tuple(slots)))
        if key is None:
            assert self._own_key is not None
            c1s = [self._decks[-1][s][0] for s in slots]
            shares = tuple(self._own_share(s) for s in slots)
            proof = prove_shares(
                x, self._own_key, self.game_id, self.round_no, seat, purpose, slots, c1s, shares
            )
            key = (shares, proof)
            self._sent_shares[(purpose, tuple(slots))] = key
        shares, proof = key
        return {"slots": list(slots), "shares": list(shares), "proof": proof}

    def on_shares(self, seat: int, msg: Message, purpose: str) -> None:
        """A SHARES message: well-formed, no share sent twice, and the batched
        Chaum–Pedersen proof verifies against the seat's committed key."""
        _check_purpose(purpose)
        checked = self._check_shares(seat, msg, purpose, {})
        if checked.statement is not None:
            ok = _decode(seat, "shares", lambda: _verify_one(checked.statement))
            if not ok:
                raise CheatDetected(seat, "shares", _BAD_SHARES)
        self._apply_shares(checked)

    def on_shares_batch(self, items: Sequence[tuple[int, Message]], purpose: str) -> None:
        """Several SHARES messages received together (e.g. all N of the deal), in log order.

        Exactly equivalent to ``for seat, msg in items: on_shares(seat, msg, purpose)`` —
        same accepted state, same CheatDetected for the first bad message, with the good
        messages before it applied — but the proofs are checked in one batch where the c1
        of a slot shared by several messages is multiplied once: the deal costs each peer
        about 35 % fewer group operations.  (On a failure it falls back to one by one to
        find and name the seat.)
        """
        _check_purpose(purpose)
        checked: list[_CheckedShares] = []
        pending: dict[int, set[int]] = {}
        try:
            for seat, msg in items:
                c = self._check_shares(seat, msg, purpose, pending)
                checked.append(c)
                for s in c.slots:
                    pending.setdefault(s, set()).add(seat)
            statements = [c.statement for c in checked if c.statement is not None]
            ok = verify_shares_batch(statements, self._splitter)
        except (CheatDetected, DeckUsageError, group.GroupError):
            ok = False
        if not ok:
            for seat, msg in items:  # the slow path names the seat and keeps the semantics
                self.on_shares(seat, msg, purpose)
            raise AssertionError("batch refused but every message verifies")  # pragma: no cover
        for c in checked:
            self._apply_shares(c)

    def _check_shares(
        self, seat: int, msg: Message, purpose: str, pending: Mapping[int, set[int]]
    ) -> _CheckedShares:
        """Everything but the proof; ``pending`` = shares of earlier messages of a batch."""
        step = "shares"
        self._check_seat(seat)
        if not self.shuffled:
            raise CheatDetected(seat, step, "shares before the shuffle is complete")
        if self._unchecked:  # our own lag, not the sender's fault
            raise DeckUsageError("settle every deferred hop check before taking shares")
        if self._opened:
            raise CheatDetected(seat, step, "shares after the round was opened")
        f = _fields(seat, step, msg, ("slots", "shares", "proof"))
        slots = _parse_slots(seat, f["slots"], self.size)
        raw = f["shares"]
        if not isinstance(raw, list | tuple) or len(raw) != len(slots):
            raise CheatDetected(seat, step, "shares: expected one share per slot")
        proof = f["proof"]
        if not isinstance(proof, bytes) or len(proof) != SHARES_PROOF_BYTES:
            raise CheatDetected(seat, step, f"proof: expected {SHARES_PROOF_BYTES} bytes")
        dup = [s for s in slots if seat in self._shares.get(s, {}) or seat in pending.get(s, ())]
        if dup:
            raise CheatDetected(seat, step, f"duplicate share for slot(s) {dup}")
        sent = self._sent_shares.get((purpose, slots)) if seat == self.seat else None
        if sent is not None and sent == (tuple(raw), proof):
            return _CheckedShares(seat, slots, sent[0], None)  # our own, as we made it
        shares = tuple(_point(seat, step, d, f"shares[{j}]") for j, d in enumerate(raw))
        statement = SharesStatement(
            self._commits[seat][1],
            self.game_id,
            self.round_no,
            seat,
            purpose,
            slots,
            [self._decks[-1][s][0] for s in slots],
            shares,
            proof,
        )
        return _CheckedShares(seat, slots, shares, statement)

    def _apply_shares(self, c: _CheckedShares) -> None:
        for s, d in zip(c.slots, c.shares, strict=True):
            self._shares.setdefault(s, {})[c.seat] = d
        if c.statement is None:
            self._own_local_slots.update(c.slots)

    def learn_shares(self, seat: int, msg: Message, purpose: str) -> None:
        """Like :meth:`on_shares`, for a share this peer may already hold because it was
        given to it alone (Splito's passed hands, protocol/SPLITO_GAME.md): the proof is
        always checked — every peer must reach the same decision — and a share already
        held must be the same (it is, when the proof holds: a share is x·c1)."""
        _check_purpose(purpose)
        fresh = {k: v for k, v in self._shares.items()}
        slots = msg.get("slots") if isinstance(msg, dict) else None
        if isinstance(slots, list | tuple):
            for s in slots:
                if isinstance(s, int) and seat in fresh.get(s, {}):
                    fresh[s] = {i: d for i, d in fresh[s].items() if i != seat}
        twin = self.fork()
        twin._shares = fresh
        checked = twin._check_shares(seat, msg, purpose, {})
        if checked.statement is not None:
            ok = _decode(seat, "shares", lambda: _verify_one(checked.statement))
            if not ok:
                raise CheatDetected(seat, "shares", _BAD_SHARES)
        for s, d in zip(checked.slots, checked.shares, strict=True):
            held = self._shares.get(s, {}).get(seat)
            if held is not None and held != d:  # pragma: no cover - the proof is sound
                raise CheatDetected(seat, "shares", f"a second share for slot {s}")
        self._apply_shares(checked)

    def exchange(self, point: bytes) -> bytes:
        """x_i·P for this seat's key share x_i (a Diffie–Hellman value with the point's
        owner, e.g. an ephemeral key R = e·G of a message sealed to this seat)."""
        x, _, _ = self._secrets("exchange")
        return group.mul(x, group.decode_point(point, "point"))

    def prove_exchange(self, point: bytes, label: int) -> tuple[bytes, bytes]:
        """(K, proof): K = x_i·P and a Chaum–Pedersen proof (purpose "complaint", slot
        ``label``) that log_G(Y_i) = log_P(K) — K shown to all opens one sealed message."""
        x, seat, _ = self._secrets("prove_exchange")
        assert self._own_key is not None
        k = self.exchange(point)
        return k, prove_shares(x, self._own_key, self.game_id, self.round_no, seat,
                               "complaint", [label], [point], [k])

    def check_exchange(self, seat: int, point: bytes, k: object, proof: object,
                       label: int) -> bytes:
        """Check a seat's :meth:`prove_exchange`; returns K (CheatDetected names the seat)."""
        self._check_seat(seat)
        kp = _point(seat, "complaint", k, "key")
        ok = _decode(seat, "complaint", lambda: verify_shares(
            proof, self._commits[seat][1], self.game_id, self.round_no, seat, "complaint",
            [label], [point], [kp]))
        if not ok:
            raise CheatDetected(seat, "complaint", "the proof of the shown key does not verify")
        return kp

    def opened_key(self, seat: int) -> int | None:
        """The key share x_i of a seat whose OPEN is in (for audits above the deck)."""
        return self._opened.get(seat)

    # ------------------------------------------------------------------ OPEN

    def open_message(self) -> Message:
        """{"seed": 32 B} — sent at the end of the round (R8.4)."""
        _, _, seed = self._secrets("open_message")
        if not self.shuffled:
            raise DeckUsageError("nothing to open before the shuffle is complete")
        return {"seed": seed}

    def on_open(self, seat: int, msg: Message) -> None:
        """A seat's OPEN: the seed matches the commitment, gives the committed key,
        reproduces the seat's hop byte for byte and every share it sent."""
        step = "open"
        self._check_seat(seat)
        if not self.shuffled:
            raise CheatDetected(seat, step, "open before the shuffle is complete")
        if seat in self._opened:
            raise CheatDetected(seat, step, "duplicate open")
        f = _fields(seat, step, msg, ("seed",))
        seed = f["seed"]
        if not isinstance(seed, bytes) or len(seed) != SEED_BYTES:
            raise CheatDetected(seat, step, f"seed: expected {SEED_BYTES} bytes")
        com, key = self._commits[seat]
        if commitment(self.game_id, self.round_no, seat, seed) != com:
            raise CheatDetected(seat, step, "the seed does not match the commitment")
        x = derive_key(self.game_id, self.round_no, seat, seed)
        own = seat == self.seat and seed == self._seed
        if not own and group.base_mul(x) != key:
            raise CheatDetected(seat, step, "the seed does not give the committed key")
        if not (own and self._own_hop_trusted):
            assert self._joint is not None
            k = self.seats.index(seat)
            d_in = deck_digest(self.game_id, self.round_no, self._joint, self._decks[k])
            joint, deck_in = self._joint, self._decks[k]

            def recompute() -> Deck:
                return shuffle_hop(
                    deck_in,
                    derive_permutation(self.game_id, self.round_no, seat, seed, d_in,
                                       self.size),
                    derive_remasks(self.game_id, self.round_no, seat, seed, d_in, self.size),
                    joint,
                    splitter=self._splitter,
                )

            if self._hop_memo is None:
                expect = recompute()
            else:
                key = hashlib.sha256(group.frame(
                    DOMAIN_HOP_MEMO, self.game_id, self.round_no.to_bytes(4, "big"),
                    seat.to_bytes(4, "big"), seed, d_in)).digest()
                expect = self._hop_memo(key, recompute)
            if expect != self._decks[k + 1]:
                pos = next(
                    i
                    for i, (a, b) in enumerate(zip(expect, self._decks[k + 1], strict=True))
                    if a != b
                )
                raise CheatDetected(
                    seat,
                    step,
                    f"the shuffle does not match the seed (first difference at position {pos})",
                )
        final = self._decks[-1]
        for s in sorted(self._shares):
            d = self._shares[s].get(seat)
            if d is None or (own and s in self._own_local_slots):
                continue
            if group.mul(x, final[s][0]) != d:
                raise CheatDetected(seat, step, f"the share sent for slot {s} is not x·c1")
        # verified: mutate
        self._opened[seat] = x

    def audit(self) -> list[int]:
        """After every seat's OPEN: the card id in each of the 104 slots (R8.4).

        Decrypts the final deck with y = Σ x_i and checks it is a permutation of all
        104 cards and agrees with every card read during play.
        """
        if len(self._opened) < len(self.seats):
            missing = [i for i in self.seats if i not in self._opened]
            raise DeckUsageError(f"audit needs every seat's opening; missing seats {missing}")
        if self._audit is None:
            y = sum(self._opened.values()) % group.L
            result: list[int] = []
            where: dict[int, int] = {}
            for s, (c1, c2) in enumerate(self._decks[-1]):
                k = self._table.get(decrypt((c1, c2), group.mul(y, c1)))
                if k is None:
                    raise CheatDetected(None, "audit", f"slot {s} decrypts to no card")
                if k in where:
                    raise CheatDetected(
                        None, "audit", f"card {k} ({self._name(k)}) is in slots {where[k]} and {s}"
                    )
                if s in self._cards and self._cards[s] != k:  # pragma: no cover - defensive
                    raise CheatDetected(None, "audit", f"slot {s} was read as another card")
                where[k] = s
                result.append(k)
            self._audit = result
        return list(self._audit)

    # ------------------------------------------------------------------ helpers

    def _secrets(self, what: str) -> tuple[int, int, bytes]:
        if self._x is None or self.seat is None or self._seed is None:
            raise DeckUsageError(f"{what}: an observer has no seat and sends nothing")
        return self._x, self.seat, self._seed

    def _check_seat(self, seat: int) -> None:
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < self.n_players:
            raise DeckUsageError(f"seat {seat!r} is outside 0…{self.n_players - 1}")
        if seat not in self.seats:
            raise DeckUsageError(f"seat {seat} does not take part in this deck (it holds no "
                                 "key share: an open-handed seat)")

    def _own_share(self, slot: int) -> bytes:
        d = self._own_shares.get(slot)
        if d is None:
            assert self._x is not None
            d = group.mul(self._x, self._decks[-1][slot][0])
            self._own_shares[slot] = d
        return d

    def public_card(self, slot: int) -> int | None:
        """The card in ``slot`` if anyone holding the log can read it — every seat's share
        sent or its seed opened — else None (this seat's own secret share not counted:
        what an observer and every peer read alike, e.g. a round an abandonment cut
        short, R8.6)."""
        _check_slot(slot, self.size)
        have = self._shares.get(slot, {})
        if not self.shuffled or not all(i in have or i in self._opened for i in self.seats):
            return None
        return self.card(slot)

    def _readable(self, slot: int) -> bool:
        have = self._shares.get(slot, {})
        return all(i in have or i == self.seat or i in self._opened for i in self.seats)


# ---------------------------------------------------------------------- parsing

_BAD_SHARES: Final = "the batched Chaum–Pedersen proof does not verify (a wrong share)"


@dataclasses.dataclass(frozen=True)
class _CheckedShares:
    """A well-formed SHARES message; ``statement`` None = our own, trusted as produced."""

    seat: int
    slots: tuple[int, ...]
    shares: tuple[bytes, ...]
    statement: SharesStatement | None


def _verify_one(st: SharesStatement | None) -> bool:
    assert st is not None
    return verify_shares(
        st.proof,
        st.key,
        st.game_id,
        st.round_no,
        st.seat,
        st.purpose,
        st.slots,
        st.c1s,
        st.shares,
    )


def _fields(seat: int, step: str, msg: object, names: tuple[str, ...]) -> dict[str, object]:
    if not isinstance(msg, dict):
        raise CheatDetected(seat, step, "the message is not a map")
    if set(msg) != set(names):
        raise CheatDetected(
            seat, step, f"the message fields are {sorted(map(str, msg))}, not {sorted(names)}"
        )
    return {k: msg[k] for k in names}


_T = TypeVar("_T")


def _decode(seat: int, step: str, fn: Callable[[], _T]) -> _T:
    try:
        return fn()
    except group.GroupError as e:
        raise CheatDetected(seat, step, str(e)) from e


def _point(seat: int, step: str, raw: object, what: str) -> bytes:
    """decode_point for a peer's field: a GroupError becomes CheatDetected naming the seat."""
    try:
        return group.decode_point(raw, what)
    except group.GroupError as e:
        raise CheatDetected(seat, step, str(e)) from e


def _parse_deck(seat: int, raw: object, size: int = N_CARDS) -> Deck:
    if not isinstance(raw, list | tuple) or len(raw) != size:
        raise CheatDetected(seat, "shuffle", f"deck: expected {size} entries")
    out: list[Ciphertext] = []
    for i, pair in enumerate(raw):
        if (
            not isinstance(pair, list | tuple)
            or len(pair) != 2
            or not isinstance(pair[0], bytes)
            or not isinstance(pair[1], bytes)
        ):
            raise CheatDetected(seat, "shuffle", f"deck[{i}]: expected a pair of byte strings")
        out.append((pair[0], pair[1]))
    return tuple(out)


def _parse_slots(seat: int, raw: object, size: int = N_CARDS) -> tuple[int, ...]:
    if not isinstance(raw, list | tuple) or not raw or len(raw) > size:
        raise CheatDetected(seat, "shares", "slots: expected a non-empty list")
    for s in raw:
        if isinstance(s, bool) or not isinstance(s, int) or not 0 <= s < size:
            raise CheatDetected(seat, "shares", f"slots: {s!r} is not a slot 0…{size - 1}")
    if len(set(raw)) != len(raw):
        raise CheatDetected(seat, "shares", "slots: a slot is listed twice")
    return tuple(raw)


def _check_slot(slot: int, size: int = N_CARDS) -> None:
    if isinstance(slot, bool) or not isinstance(slot, int) or not 0 <= slot < size:
        raise DeckUsageError(f"slot {slot!r} is outside 0…{size - 1}")


def _check_purpose(purpose: str) -> None:
    if purpose not in PURPOSES:
        raise DeckUsageError(f"purpose must be one of {sorted(PURPOSES)}, not {purpose!r}")
