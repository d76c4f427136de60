"""Splito on the fair deck (docs/SPLITO.md, protocol/SPLITO_GAME.md), sans-IO.

A :class:`SplitoCore` consumes the game's log entries (author seat, kind, body) in order
and keeps one peer's knowledge: its own Splito engine (its view, S7), the two fair decks
of the game, and after the audit (S7.5) the full-knowledge record (S12). Every peer runs
it; so does the verifier, as an observer with no secrets. It owns no I/O, no clock and no
randomness: every message a seat makes is a function of its seed and of the log.

The game (one deal, every message for ``"round": 1``)::

    commit   every seat            the deck key share (one key for both decks)
    shuffle  seats 0 … n−1         "objectives": the 37 objective cards (S4.2)
    shuffle  seats 0 … n−1         "cards": the 72 number cards and the objective deck
                                   after its first ``central_objectives`` slots (S4.3)
    deal     every seat            its shares of the central objectives (to all) and of
                                   every dealt card slot but its own hand's (S4.3)
    per turn t = 1 … turns:
    move     every seat, any order {"turn", "commit"}: SHA-256 commitment (S7.3)
    reveal   every seat, only once {"turn", "slot", "card", "side", "nonce", "share"}:
             every move is in      the play opened, with the dealt holder's share of
                                   the slot, so every peer reads the card (S5.3, S7.3)
    pass     the dealt holder h of a hand, after turn t < n: its shares of the hand's
             cards sealed to the seat r = h + t that now holds it and never held it (S5.4)
    complain r, if h's sealed shares do not verify: shows the box's key (the game stops)
    open     every seat, after the last turn: its seed → audit, record (S7.5)
    timeout  the host: a seat owes a message (the game stops naming it, S5.6)
    abandon  the host: a seat gone for good while the game waits for its play (or for
             its sealed shares, when another seat can forward them) leaves the rotation
             (S5.7); a game a seat left ends with no opening: its record is what the log
             reads (S12.5)

Each card slot's shares: after the deal every seat but the dealt holder has published
its share, so the holder alone reads it; the holder's share goes, sealed, to each seat the
hand reaches that has not held it (a Diffie–Hellman key on the deck key shares), and is
made public by whoever plays the card, with the holder's own proof. So a seat can read
exactly its hand, the hands it held before (S7.2) and the played cards (S7.4).

A message that breaks the protocol raises :class:`~splitnet.game.table.GameError` naming
the seat at fault (``seat S at STEP: RULE: …``); the core is then unchanged. A valid entry
that convicts its author — a reveal that does not open its commitment, a card that is not
the slot's, an illegal play, sealed shares shown not to verify — or the host's timeout is
applied, and the game stops with that verdict (:attr:`SplitoCore.verdict`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any, Final

from splitnet.crypto import group
from splitnet.crypto.deck import DeckRound, HopCheck
from splitnet.crypto.elgamal import Deck, card_points, card_table
from splitnet.crypto.errors import CheatDetected, DeckUsageError
from splitnet.crypto.proofs import SHARES_PROOF_BYTES, prove_dlog, verify_dlog
from splitnet.crypto.seeds import nonzero_scalar, u64
from splitnet.game.bodies import DeckMessage
from splitnet.game.checks import HopChecker, HopVerdict, InlineChecker
from splitnet.game.rematch import REMATCH_KEY, Rematch, RematchError, first_dealer
from splitnet.game.table import (
    LIMITS_KEY,
    ChosenPlay,
    GameError,
    Limits,
    LimitsError,
    MemoryPlays,
    MemoryPledges,
    OutOfTurn,
    PlayBook,
    Pledge,
    PledgeBook,
    PledgeRefused,
    Position,
    WrongRound,
    check_abandon,
    check_timeout,
    check_waited,
    limits_from_header,
    naming,
    proof_functions,
)
from splitnet.games.splito.bodies import (  # INT_FIELDS, KINDS: where callers found them
    BODIES,
    INT_FIELDS,  # noqa: F401
    KINDS,  # noqa: F401
    AbandonBody,
    ChatBody,
    CommitBody,
    ComplainBody,
    DealBody,
    MoveBody,
    OpenBody,
    PassBody,
    RevealBody,
    ShuffleBody,
    TimeoutBody,
    parse,
)
from splitnet.games.splito.bodies import err as _err
from splitnet.games.splito.cards import N_CARDS, N_NUMBER_CARDS, N_OBJECTIVES
from splitnet.games.splito.engine import (
    SIDES,
    Game,
    IllegalMove,
    Phase,
    Play,
    commitment,
    full_deck,
)
from splitnet.games.splito.record import build_record
from splitnet.games.splito.settings import SplitoSettings
from splitnet.session.codec import is_int

GAME: Final = "splito"
ROUND: Final = 1
DOMAIN_CARD: Final = b"splitnet/splito/v1/card"
DOMAIN_NONCE: Final = b"splitnet/splito/v1/nonce"
DOMAIN_PASS_KEY: Final = b"splitnet/splito/v1/pass-key"
DOMAIN_PASS_BOX: Final = b"splitnet/splito/v1/pass-box"
DOMAIN_PASS_POK: Final = b"splitnet/splito/v1/pass-pok"
DOMAIN_PLEDGE: Final = b"splitnet/splito/v1/pledge"
#: one sealed card share: the share (32 bytes) and its Chaum–Pedersen proof
SEALED_BYTES: Final = group.POINT_BYTES + SHARES_PROOF_BYTES

SeedSource = Callable[[int], bytes]
#: how a verdict on a hop names its chain
_DECK_NAME: Final = {"objectives": "the objective deck (S4.2)", "cards": "the card deck (S4.3)"}


class Stage(Enum):
    """The named states of a Splito game on the fair deck (protocol/SPLITO_GAME.md)."""

    KEYS = "keys"                      # every seat commits its deck key share
    SHUFFLE_OBJECTIVES = "objectives"  # S4.2: the objective cards' shuffle chain
    SHUFFLE_CARDS = "cards"            # S4.3: the deck's shuffle chain
    DEAL = "deal"                      # S4.2–S4.3: central objectives and hands
    PLAY = "play"                      # S5.2–S5.3: moves (commitments), then reveals
    PASS = "pass"                      # S5.4: sealed shares of the passed hands
    OPEN = "open"                      # S7.5: every seed, for the audit
    DONE = "done"                      # the record is written
    STOPPED = "stopped"                # a verdict ended the game


class Step(Enum):
    ALL_KEYS = "all_keys"
    OBJECTIVES_SHUFFLED = "objectives_shuffled"
    CARDS_SHUFFLED = "cards_shuffled"
    DEALT = "dealt"
    TURN_PASSES = "turn_passes"    # a turn is over, sealed shares are due
    TURN_DONE = "turn_done"        # a turn is over, nothing to pass (hands all known)
    PASSED = "passed"
    LAST_TURN = "last_turn"
    LAST_TURN_UNOPENED = "last_turn_unopened"  # a seat left (S5.7): nothing is opened
    AUDITED = "audited"
    VERDICT = "verdict"


#: The only transitions there are (a verdict stops the game from any stage).
TRANSITIONS: Final[dict[tuple[Stage, Step], Stage]] = {
    (Stage.KEYS, Step.ALL_KEYS): Stage.SHUFFLE_OBJECTIVES,
    (Stage.SHUFFLE_OBJECTIVES, Step.OBJECTIVES_SHUFFLED): Stage.SHUFFLE_CARDS,
    (Stage.SHUFFLE_CARDS, Step.CARDS_SHUFFLED): Stage.DEAL,
    (Stage.DEAL, Step.DEALT): Stage.PLAY,
    (Stage.PLAY, Step.TURN_PASSES): Stage.PASS,
    (Stage.PLAY, Step.TURN_DONE): Stage.PLAY,
    (Stage.PASS, Step.PASSED): Stage.PLAY,
    (Stage.PLAY, Step.LAST_TURN): Stage.OPEN,
    (Stage.PLAY, Step.LAST_TURN_UNOPENED): Stage.DONE,
    (Stage.OPEN, Step.AUDITED): Stage.DONE,
    **{(s, Step.VERDICT): Stage.STOPPED for s in Stage if s not in (Stage.DONE,
                                                                     Stage.STOPPED)},
}


@dataclass(frozen=True)
class Sealed:
    """A ``pass`` entry: ``frm``'s sealed shares of ``slots`` for ``to`` after ``turn``."""

    turn: int
    frm: int
    to: int
    slots: tuple[int, ...]
    eph: bytes
    box: bytes
    #: the hand's dealt holder, whose shares the box holds (the sender, SPLITO_GAME.md §6)
    holder: int


def card_encodings(game_id: bytes) -> tuple[tuple[bytes, ...], Any]:
    """The 109 Splito plaintext points M_k = hash_to_point("splitnet/splito/v1/card",
    game_id, u64(k)), k the card's index in S1.3's order (number cards, then the
    objective set's ids), and the lookup point → k."""
    return (card_points(game_id, N_CARDS, DOMAIN_CARD),
            card_table(game_id, N_CARDS, DOMAIN_CARD))


def play_nonce(game_id: bytes, seed: bytes, turn: int) -> str:
    """S7.3's nonce of a seat's play of ``turn``: 128 bits from its secret seed (fresh per
    turn, unknown to everyone else until the audit opens the seed)."""
    return hashlib.sha256(group.frame(DOMAIN_NONCE, game_id, seed, u64(turn))).hexdigest()[:32]


def pass_scalar(game_id: bytes, seed: bytes, turn: int, to: int) -> int:
    """The ephemeral key e of a ``pass`` entry (R = e·G), from the sender's seed."""
    return nonzero_scalar(DOMAIN_PASS_KEY, game_id, seed, u64(turn), u64(to))


def pass_stream(game_id: bytes, turn: int, frm: int, to: int, eph: bytes, key: bytes,
                length: int) -> bytes:
    """The pad of a sealed box: SHAKE-256(frame(domain, game_id, turn, from, to, R, K))."""
    return hashlib.shake_256(group.frame(DOMAIN_PASS_BOX, game_id, u64(turn), u64(frm),
                                         u64(to), eph, key)).digest(length)


def pass_pok(game_id: bytes, e: int, turn: int, frm: int, to: int) -> bytes:
    """The proof of a ``pass`` that its sender knows e with R = e·G (``pok``), bound to
    the game, the turn, the sender and the receiver (SPLITO_GAME.md §6). Without it the
    receiver's complaint, K = x_r·R, would decrypt whatever R the sender chose — another
    seat's box to r, or a card dealt to r (an oracle on r's key)."""
    return prove_dlog(e, group.base_mul(e), DOMAIN_PASS_POK, game_id, u64(turn), u64(frm),
                      u64(to))


def check_pass_pok(game_id: bytes, pok: object, eph: bytes, turn: int, frm: int,
                   to: int) -> bool:
    """Whether ``pok`` proves knowledge of log_G(eph) for this pass (raises GroupError
    when it is not 64 bytes of two canonical scalars)."""
    return verify_dlog(pok, eph, DOMAIN_PASS_POK, game_id, u64(turn), u64(frm), u64(to))


def _xor(a: bytes, b: bytes) -> bytes:
    return bytes(x ^ y for x, y in zip(a, b, strict=True))


class SplitoCore:
    """One peer's Splito game on the fair deck (``seat`` None: an observer)."""

    def __init__(self, game_id: bytes, players: Sequence[str], settings: SplitoSettings,
                 seat: int | None, seeds: SeedSource | None = None, *, host: int = 0,
                 pledges: PledgeBook | None = None, plays: PlayBook | None = None,
                 shuffle_proofs: bool = True, checker: HopChecker | None = None,
                 pipeline: bool = True, limits: Limits | None = None) -> None:
        if not shuffle_proofs:
            raise ValueError("Splito is dealt with shuffle proofs only "
                             "(protocol/SPLITO_GAME.md)")
        if len(players) != settings.players:
            raise ValueError(f"the settings are for {settings.players} players, not "
                             f"{len(players)} (S2.1)")
        self.game_id = game_id
        #: the waits agreed in the header (GAME.md "limits", SPLITO_GAME.md §4)
        self.limits = limits if limits is not None else Limits()
        self.players = list(players)
        self.n = len(players)
        self.settings = settings
        self.seat = seat
        self.host = host
        self.shuffle_proofs = True
        self.pledges: PledgeBook = pledges if pledges is not None else MemoryPledges()
        self.refused: PledgeRefused | None = None
        #: this seat's chosen play per turn, kept durably before its commitment is sent
        #: (protocol/SPLITO_GAME.md "Durability"): a restarted seat opens what it committed
        self.plays: PlayBook = plays if plays is not None else MemoryPlays()
        #: the seats nobody waits for any more (the table's interface asks): in Splito
        #: the seats that left the rotation (S5.7) — none is ever played open-handed
        self.open_seats: set[int] = set()
        #: (turn, seat, waited) of every seat the host gave up (S5.7), in log order
        self.abandonments: list[tuple[int, int, int]] = []
        self._seed = seeds(ROUND) if (seeds is not None and seat is not None) else None
        self.stage = Stage.KEYS
        gid = game_id.hex()
        self.engine = Game(settings, gid)  # this seat's view (observer: public only)
        self.ids = full_deck(settings)
        self._index = {c: k for k, c in enumerate(self.ids)}
        points, self._table = card_encodings(game_id)
        self._points = points
        c = settings.central_objectives
        #: where other seats' shuffle proofs are checked (injected: a process pool, shared
        #: by the peers of one process in ``splitnet play``; by default at once, here)
        self.checker: HopChecker = checker if checker is not None else InlineChecker()
        self.checker.start()  # a pool's workers come up before the first hop
        #: pipelined shuffle (SPLITO_GAME.md "Shuffle proofs"): each hop's proof check of
        #: both chains goes to the checker and every verdict is taken, in chain order, at
        #: the card deck's last hop, before any share; False: checked on arrival
        self.pipeline = pipeline
        #: the deferred checks of the hops taken so far, both chains in chain order
        #: (objectives first): (deck, hop, pending verdict)
        self._checks: list[tuple[str, HopCheck, HopVerdict]] = []
        # The checker's splitter (a pool's helper process) lets this seat's own hops — the
        # re-masks and the proof, on every later seat's critical path — use both cores.
        self._splitter = self.checker.splitter
        self._prover, self._verifier = proof_functions(game_id, self._seed, self._splitter)
        self.objectives = self._new_deck(tuple((group.IDENTITY, points[N_NUMBER_CARDS + j])
                                               for j in range(N_OBJECTIVES)))
        self.cards: DeckRound | None = None  # once the objective deck is shuffled
        self._commit_msgs: list[tuple[int, DeckMessage]] = []
        self._central = list(range(c))
        self.dealt_by: set[int] = set()
        self._deal_buffer: list[tuple[int, DeckMessage]] = []
        self._central_buffer: list[tuple[int, DeckMessage]] = []
        self.passes_due: set[tuple[int, int]] = set()  # (from, to) of the current pass
        #: (from, to) of the current pass → the dealt holder whose shares it seals
        self._pass_holder: dict[tuple[int, int], int] = {}
        self.sealed: list[Sealed] = []
        self.opened: set[int] = set()
        self._seeds_opened: dict[int, bytes] = {}
        self.chat: list[tuple[int, str]] = []
        self.finished = False
        self.verdict: GameError | None = None
        self.record: dict[str, Any] | None = None
        self.objective_order: list[str] | None = None
        self._sent: set[tuple[Any, ...]] = set()
        #: the dealt holders' share messages sealed to us, by slot (we forward the one of
        #: the card we play, S7.3)
        self.received: dict[int, dict[str, Any]] = {}
        #: a box sealed to us whose shares do not verify: we owe a complaint
        self._bad_box: Sealed | None = None
        #: after the audit: the engine knowing every face (S7.5)
        self.full: Game | None = None

    # ------------------------------------------------------------------ helpers
    def _new_deck(self, initial: Deck) -> DeckRound:
        seat = self.seat if self._seed is not None else None
        return DeckRound(self.game_id, ROUND, self.n, seat, self._seed,
                         shuffle_prover=self._prover, shuffle_verifier=self._verifier,
                         initial=initial, table=self._table, card_name=self._name,
                         splitter=self._splitter, hop_memo=self.checker.hop_memo)

    def _name(self, k: int) -> str:
        return self.ids[k] if 0 <= k < len(self.ids) else str(k)

    def _go(self, step: Step) -> None:
        nxt = TRANSITIONS.get((self.stage, step))
        if nxt is None:  # pragma: no cover - every caller checks its stage first
            raise GameError(None, self.stage.value, f"no transition on {step.value}")
        self.stage = nxt

    def _stop(self, verdict: GameError) -> None:
        self.verdict = verdict
        self.finished = True
        self._go(Step.VERDICT)

    def dealt_holder(self, slot: int) -> int:
        """S4.3: the seat card slot ``slot`` was dealt to."""
        return (self.settings.dealer + 1 + slot) % self.n

    def deal_slots(self, seat: int) -> list[int]:
        """The card slots whose deal shares ``seat`` sends: every dealt slot not its own."""
        return [j for j in range(self.engine.dealt) if self.dealt_holder(j) != seat]

    def _sealed_slots(self, frm: int, to: int) -> list[int]:
        """The slots of the hand ``to`` holds now whose pass ``frm`` seals (S5.4)."""
        return list(self.engine.hands[to]) if (frm, to) in self._pass_holder else []

    def _due_passes(self, engine: Game | None = None) -> dict[tuple[int, int], int]:
        """After a turn: (sender, receiver) → the hand's dealt holder, for every hand
        now at a seat that never held it (S5.4, S7.2). The sender is the dealt holder
        (SPLITO_GAME.md §6) or, once it has left (S5.7), the seat that held the hand this
        turn and so holds those shares with their proofs; one pass per receiver, since a
        seat holds one hand. (``engine``: another state than ours, an abandonment tried.)"""
        eng = engine if engine is not None else self.engine
        out: dict[tuple[int, int], int] = {}
        before = eng.hands_at_start[:-1]
        for r in eng.playing:
            hand = eng.hands[r]
            if not hand:
                continue
            h = self.dealt_holder(hand[0])
            if r == h or any(hand[0] in start[r] for start in before):
                continue  # r held this hand before: it reads it already
            frm = h
            if h in eng.gone:  # S5.7: forwarded by the hand's last holder
                frm = next(p for p, held in enumerate(before[-1]) if hand[0] in held)
            out[(frm, r)] = h
        return out

    def waiting_for(self) -> list[int]:
        if self.finished:
            return []
        st = self.stage
        if st is Stage.KEYS:
            return [s for s in range(self.n) if s not in {a for a, _ in self._commit_msgs}]
        if st in (Stage.SHUFFLE_OBJECTIVES, Stage.SHUFFLE_CARDS):
            deck = self.objectives if st is Stage.SHUFFLE_OBJECTIVES else self.cards
            nxt = deck.next_shuffler() if deck is not None else None
            return [nxt] if nxt is not None else []
        if st is Stage.DEAL:
            return [s for s in range(self.n) if s not in self.dealt_by]
        if st is Stage.PLAY:
            return self.engine.waiting_for()
        if st is Stage.PASS:
            return sorted({f for f, _ in self.passes_due})
        if st is Stage.OPEN:
            return [s for s in range(self.n) if s not in self.opened]
        return []

    def progress(self) -> str:
        """Where the game is, in one short line — "turn 3: 7 of 8 committed, waiting for
        Gus" (S7.3), "shuffling the cards: waiting for you" —: whose message is missing
        (this core's own seat is "you"), at most three names and a count, so that it
        fits a screen's line with 8 players."""
        if self.verdict is not None:
            return f"game stopped: {self.verdict}"
        if self.finished:
            return "game over"
        st = self.stage
        waiting = self.waiting_for()
        names = ["you" if s == self.seat else self.players[s] for s in waiting]
        who = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
        if st in (Stage.SHUFFLE_OBJECTIVES, Stage.SHUFFLE_CARDS):  # one seat at a time
            what = "objectives" if st is Stage.SHUFFLE_OBJECTIVES else "cards"
            return f"shuffling the {what}" + (f": waiting for {who}" if who else "")
        label, verb = {Stage.KEYS: ("committing keys", "in"), Stage.DEAL: ("dealing", "in"),
                       Stage.PASS: ("passing hands", "passed"),
                       Stage.OPEN: ("opening the game for audit", "in")}.get(
            st, (f"turn {self.engine.turn}",
                 "committed" if self.engine.phase is Phase.COMMIT else "revealed"))
        seats = self.n if st in (Stage.KEYS, Stage.DEAL) else len(self.engine.playing)
        done = f"{seats - len(waiting)} of {seats} {verb}"
        return f"{label}: {done}" + (f", waiting for {who}" if who else "")

    def can_move(self) -> bool:
        """May this seat choose its play now (S5.2)?"""
        return (self.seat is not None and not self.finished and self.refused is None
                and self._bad_box is None and self.stage is Stage.PLAY
                and self.seat not in self.engine.gone  # S5.7: it plays no more
                and self.engine.phase is Phase.COMMIT
                and not self.engine.committed(self.seat)
                and self.plays.chosen(self.engine.turn) is None)

    # ------------------------------------------------------------------ producing
    def move_message(self, play: Play) -> dict[str, Any]:
        """This seat's commitment to ``play`` (S7.3); IllegalMove if S5.2 refuses it.

        The play is kept in :attr:`plays` (durably, on a node) before the commitment is
        returned: once chosen, a turn's play is never changed — :meth:`outbox` sends the
        same commitment again after a reconnect or a restart if the log lacks it."""
        if not self.can_move() or self.seat is None or self._seed is None:
            kept = self.plays.chosen(self.engine.turn) if self.seat is not None else None
            if kept is not None and not self.finished:
                raise IllegalMove("S7.3", f"your play of turn {kept.turn} is chosen already "
                                  f"({kept.card} to the {kept.side}); it is never changed")
            raise IllegalMove("S5.2", "you cannot choose a play now")
        if play.seat != self.seat:
            raise IllegalMove("S5.2", "a play must be for your own seat")
        self.engine.check_play(play)
        turn = self.engine.turn
        card = self.engine.face(play.slot)
        nonce = play_nonce(self.game_id, self._seed, turn)
        digest = commitment(self.engine.game_id, turn, self.seat, card, play.side, nonce)
        self.plays.choose(ChosenPlay(turn, play.slot, play.side, card, nonce, digest))
        self._sent.add(("move", turn))
        return {"round": ROUND, "turn": turn, "commit": digest}

    def chosen(self, turn: int) -> tuple[int, str] | None:
        """(slot, side) of this seat's own play of ``turn`` once committed (its narrator
        tells its own player what it chose; nobody else learns it before the reveal)."""
        mine = self.plays.chosen(turn)
        if mine is None and turn == self.engine.turn and self.seat is not None \
                and self.engine.committed(self.seat):
            mine = self._recall(turn)
        return None if mine is None else (mine.slot, mine.side)

    def _recall(self, turn: int) -> ChosenPlay | None:
        """A play in the log that :attr:`plays` does not hold (a book that was lost, or a
        core given none): the nonce comes from our seed (:func:`play_nonce`), so the play
        of our hand whose commitment is the one logged is found by trying each (S7.3),
        and kept."""
        digest = self.engine.commits[self.seat] if self.seat is not None else None
        if digest is None or self._seed is None or self.seat is None:
            return None
        nonce = play_nonce(self.game_id, self._seed, turn)
        for slot in self.engine.hands[self.seat]:
            card = self.engine.faces[slot]
            for side in SIDES if card is not None else ():
                assert card is not None
                if commitment(self.engine.game_id, turn, self.seat, card, side,
                              nonce) == digest:
                    kept = ChosenPlay(turn, slot, side, card, nonce, digest)
                    self.plays.choose(kept)
                    return kept
        return None

    @property
    def round_number(self) -> int:
        """The round a timeout names: a Splito game has one deal, round 1."""
        return ROUND

    def abandon_refusal(self, seat: int) -> str | None:
        """Why the host may not give ``seat`` up now (S5.7), or None if it may: only a
        guest's seat the game waits for, while the turn waits for its commitment (the
        rules engine's conditions) — or, between turns, for its sealed shares if every
        pass still due can be made without it (the hand it held last goes on, sealed by
        its dealt holder or, that one gone too, by nobody: then it may not leave)."""
        name = self.players[seat] if 0 <= seat < self.n else f"seat {seat}"
        if self.finished:
            return "S5.7: the game is over"
        if not 0 <= seat < self.n:
            return f"S2.2: there is no seat {seat}"
        if seat == self.host:
            return f"S5.7: {name} is the host's own seat: the table goes with it"
        if self.stage not in (Stage.PLAY, Stage.PASS):
            return (f"S5.7: a seat leaves only while the game waits for its play (now: "
                    f"{self.stage.value})")
        if seat not in self.waiting_for():
            return f"S5.7: the game does not wait for {name}"
        why = self.engine.abandon_refusal(seat)
        if why is not None:
            return why
        if self.stage is Stage.PASS:
            trial = self.engine.clone()
            trial.abandon(seat)
            done = self._passed_to()
            if any(frm == seat for (frm, to) in self._due_passes(trial) if to not in done):
                return (f"S5.7: {name} alone holds the shares of the hand it held in turn "
                        f"{self.engine.turn - 1}, which it still owes sealed to that hand's "
                        "next seat")
        return None

    def _passed_to(self) -> set[int]:
        """The receivers of the passes already made after the turn just over."""
        return {b.to for b in self.sealed if b.turn == self.engine.turn - 1}

    def _pledge(self, position: int, step: str, digest: bytes | None) -> None:
        """GAME.md "Pledges": the deck a message derived from our seed is on is made
        durable first; another deck at the same position is refused for good."""
        assert digest is not None
        have = self.pledges.pledged(position, step)
        if have is None:
            self.pledges.pledge(Pledge(position, step, digest))
            return
        if have != digest:
            self.refused = PledgeRefused(self.host, position, step, "S7.1: the deck is not "
                                         "the one we already sent messages on")
            raise self.refused

    def _final_digest(self) -> bytes:
        assert self.cards is not None
        a, b = self.objectives.final_digest, self.cards.final_digest
        assert a is not None and b is not None
        return hashlib.sha256(group.frame(DOMAIN_PLEDGE, a, b)).digest()

    def outbox(self) -> list[tuple[str, dict[str, Any]]]:
        """Protocol messages this seat owes now (never its choice of play)."""
        seat = self.seat
        if (seat is None or self._seed is None or self.finished or self.refused is not None
                or seat in self.engine.gone):  # S5.7: a seat that left sends nothing more
            return []
        out: list[tuple[str, dict[str, Any]]] = []

        def once(key: tuple[Any, ...], kind: str, make: Callable[[], dict[str, Any]]) -> None:
            if key not in self._sent:
                self._sent.add(key)
                out.append((kind, {"round": ROUND, **make()}))

        st = self.stage
        bad = self._bad_box
        if bad is not None:
            once(("complain", bad.turn), "complain",
                 lambda: {k: v for k, v in self.complaint_message(bad).items() if k != "round"})
        elif st is Stage.KEYS and seat in self.waiting_for():
            once(("commit",), "commit", self.objectives.commit_message)
        elif st is Stage.SHUFFLE_OBJECTIVES and self.objectives.next_shuffler() == seat:
            def hop_a() -> dict[str, Any]:
                self._pledge(1, "shuffle", self.objectives.input_digest(seat))
                return {"deck_of": "objectives", **self.objectives.shuffle_message()}
            once(("shuffle", "objectives"), "shuffle", hop_a)
        elif st is Stage.SHUFFLE_CARDS and self.cards is not None \
                and self.cards.next_shuffler() == seat:
            cards = self.cards

            def hop_b() -> dict[str, Any]:
                self._pledge(2, "shuffle", cards.input_digest(seat))
                return {"deck_of": "cards", **cards.shuffle_message()}
            once(("shuffle", "cards"), "shuffle", hop_b)
        elif st is Stage.DEAL and seat not in self.dealt_by:
            once(("deal",), "deal", self._deal_message)
        elif st is Stage.PLAY and self.engine.phase is Phase.COMMIT \
                and not self.engine.committed(seat):
            # a play chosen (and kept) whose commitment the log lacks: the same one again
            turn = self.engine.turn
            kept = self.plays.chosen(turn)
            if kept is not None:
                once(("move", turn), "move", lambda: {"turn": turn, "commit": kept.commit})
        elif st is Stage.PLAY and self.engine.phase is Phase.REVEAL \
                and self.engine.reveals[seat] is None:
            turn = self.engine.turn
            mine = self.plays.chosen(turn) or self._recall(turn)
            if mine is not None and mine.commit == self.engine.commits[seat]:
                once(("reveal", turn), "reveal", lambda: self._reveal_message(turn))
        elif st is Stage.PASS:
            turn = self.engine.turn - 1
            for frm, to in sorted(self.passes_due):
                if frm == seat:
                    once(("pass", turn, to), "pass",
                         lambda to=to: self._pass_message(turn, to))  # type: ignore[misc]
        elif st is Stage.OPEN and seat not in self.opened:
            def opening() -> dict[str, Any]:
                self._pledge(1, "open", self._final_digest())
                return self.objectives.open_message()
            once(("open",), "open", opening)
        return out

    def _deal_message(self) -> dict[str, Any]:
        assert self.seat is not None and self.cards is not None
        self._pledge(1, "shares", self._final_digest())
        central = (self.objectives.shares_message(self._central, "central")
                   if self._central else None)
        return {"central": central,
                "hands": self.cards.shares_message(self.deal_slots(self.seat), "deal")}

    def _holder_share(self, slot: int) -> dict[str, Any]:
        """The dealt holder's share of ``slot`` with its own proof (purpose "pass"): ours
        if we were dealt it, else the one sealed to us when the hand reached us."""
        assert self.cards is not None and self.seat is not None
        h = self.dealt_holder(slot)
        if h == self.seat:
            return self.cards.shares_message([slot], "pass")
        msg = self.received.get(slot)
        if msg is None:  # pragma: no cover - we play only cards we can read
            raise DeckUsageError(f"no share of slot {slot} was sealed to us")
        return msg

    def _reveal_message(self, turn: int) -> dict[str, Any]:
        self._pledge(1, "shares", self._final_digest())
        kept = self.plays.chosen(turn)
        assert kept is not None
        slot, side, card, nonce = kept.slot, kept.side, kept.card, kept.nonce
        return {"turn": turn, "slot": slot, "card": card, "side": side, "nonce": nonce,
                "share": self._holder_share(slot)}

    def _pass_message(self, turn: int, to: int) -> dict[str, Any]:
        assert self.cards is not None and self.seat is not None and self._seed is not None
        self._pledge(1, "shares", self._final_digest())
        slots = self._sealed_slots(self.seat, to)
        plain = b""
        for j in slots:
            m = self._holder_share(j)  # the dealt holder's share and proof (§6)
            d, proof = m["shares"], m["proof"]
            assert isinstance(d, list) and isinstance(proof, bytes)
            plain += d[0] + proof
        e = pass_scalar(self.game_id, self._seed, turn, to)
        eph = group.base_mul(e)
        key = group.mul(e, self.cards.keys[to])
        box = _xor(plain, pass_stream(self.game_id, turn, self.seat, to, eph, key, len(plain)))
        return {"turn": turn, "to": to, "eph": eph,
                "pok": pass_pok(self.game_id, e, turn, self.seat, to), "box": box}

    def _open_box(self, s: Sealed, key: bytes) -> dict[int, dict[str, Any]]:
        """The share messages a sealed box holds, opened with its key K."""
        plain = _xor(s.box, pass_stream(self.game_id, s.turn, s.frm, s.to, s.eph, key,
                                        len(s.box)))
        out = {}
        for i, j in enumerate(s.slots):
            chunk = plain[i * SEALED_BYTES:(i + 1) * SEALED_BYTES]
            out[j] = {"slots": [j], "shares": [chunk[:group.POINT_BYTES]],
                      "proof": chunk[group.POINT_BYTES:]}
        return out

    def complaint_message(self, s: Sealed) -> dict[str, Any]:
        """The complaint of a seat whose sealed shares do not verify: the box's key with
        the proof that it is K = x·R (only this box opens with it)."""
        assert self.cards is not None
        k, proof = self.cards.prove_exchange(s.eph, s.turn)
        return {"round": ROUND, "turn": s.turn, "from": s.frm, "key": k, "proof": proof}

    # ------------------------------------------------------------------ the node's seams
    def forget_unlogged(self) -> None:
        """After a reconnect: whatever :meth:`outbox` produced that never reached the log is
        produced again (what is owed is read from the log, not from memory)."""
        self._sent = set()

    def owed_step(self, seat: int) -> str:
        """The step a seat the game waits for owes a message at (a timeout's step)."""
        if self.stage is Stage.PLAY:
            return "move" if self.engine.phase is Phase.COMMIT else "reveal"
        return {Stage.KEYS: "commit", Stage.SHUFFLE_OBJECTIVES: "shuffle",
                Stage.SHUFFLE_CARDS: "shuffle"}.get(self.stage, str(self.stage.value))

    def move_is_legal(self, body: object) -> bool:
        """Is this the commitment this seat made for the current turn (S7.3)? (A host
        that refuses it refuses a legal move.)"""
        turn = self.engine.turn
        mine = self.plays.chosen(turn)
        return (isinstance(body, dict) and mine is not None and self.seat is not None
                and not self.finished and self.stage is Stage.PLAY
                and self.engine.phase is Phase.COMMIT and not self.engine.committed(self.seat)
                and body == {"round": ROUND, "turn": turn, "commit": mine.commit}
                and is_int(body["round"]) and is_int(body["turn"]))

    def made_by_us(self, kind: str, body: dict[str, Any]) -> bool:
        """For an entry in this seat's own name, before it is applied: is it what this
        seat makes? Every protocol message is a function of our seed and the log, and a
        move must be the commitment we chose; anything else in our name is an old
        message replayed by the host or a stolen key. Chat and anything we could not
        make now (the ordinary checks refuse it) count as ours."""
        if (self.seat is None or self._seed is None or self.finished
                or kind not in ("commit", "shuffle", "deal", "move", "reveal", "pass",
                                "open")):
            return True
        if kind == "move":
            mine = self.plays.chosen(self.engine.turn)
            return mine is None or body.get("commit") == mine.commit
        saved, book = self._sent, self.pledges
        try:  # what outbox() would make now, with no side effect (nothing pledged)
            self._sent, self.pledges = set(), MemoryPledges()
            made = [b for k, b in self.outbox() if k == kind]
        except (DeckUsageError, CheatDetected):
            return True
        finally:
            self._sent, self.pledges = saved, book
        return not made or body in made

    # ------------------------------------------------------------------ consuming
    def apply(self, author: int, kind: str, body: dict[str, Any], *,
              at: Position | None = None) -> None:
        """Apply one ordered entry. GameError (seat at fault) leaves the core unchanged."""
        with naming(author, self.host, at):  # SECURITY.md row 112
            self._apply_entry(author, kind, body, at)

    def _apply_entry(self, author: int, kind: str, raw: dict[str, Any],
                     at: Position | None) -> None:
        if self.finished:
            raise GameError(author, kind, "the game is over" if self.verdict is None
                            else f"the game stopped ({self.verdict})")
        if not 0 <= author < self.n:
            raise GameError(None, kind, f"no seat {author}")
        BODIES.check(author, kind, raw)  # a kind Splito knows; WIRE.md §4: a bool is no int
        if kind != "chat":
            rnd = raw.get("round")
            if not is_int(rnd) or rnd != ROUND:
                raise WrongRound(author, kind, f"message for round {rnd!r}; a "
                                "Splito game has one deal, round 1")
        # From here on only the typed body is read (splito/bodies.py): checked whole here.
        body = parse(author, kind, raw, checked=True)
        try:
            match body:
                case ChatBody(text=text):
                    if not self.settings.chat_during_play and self.stage in (
                            Stage.DEAL, Stage.PLAY, Stage.PASS):
                        raise _err(author, "chat", "S5.5", "no chat from the deal until the "
                                   "scores are shown (chat_during_play is off)")
                    self.chat.append((author, text))
                case TimeoutBody():
                    self._apply_timeout(author, body)
                case AbandonBody():
                    self._apply_abandon(author, body)
                case CommitBody(deck=msg):
                    self._apply_commit(author, msg)
                case ShuffleBody():
                    self._apply_shuffle(author, body)
                case DealBody():
                    self._apply_deal(author, body)
                case MoveBody():
                    self._apply_move(author, body)
                case RevealBody():
                    self._apply_reveal(author, body)
                case PassBody():
                    self._apply_pass(author, body)
                case ComplainBody():
                    self._apply_complaint(author, body)
                case OpenBody(deck=msg):
                    self._apply_open(author, msg)
        except CheatDetected as e:
            raise GameError(e.seat if e.seat is not None else author, e.step, e.reason) from e
        except DeckUsageError as e:
            raise GameError(author, kind, str(e)) from e

    def _expect(self, ok: bool, author: int, step: str, why: str) -> None:
        if not ok:
            raise OutOfTurn(author, step, f"out of turn: {why}")

    def _apply_timeout(self, author: int, body: TimeoutBody) -> None:
        seat, waited = check_timeout(author, body, self.host, self.waiting_for())
        check_waited(author, "timeout", waited, self.limits.for_step(self.owed_step(seat)),
                     "timeout")
        self._stop(_err(seat, self.owed_step(seat), "S5.6", f"did not answer for {waited} s "
                        f"(timed out by the host, seat {author}); the game stops"))

    def _apply_abandon(self, author: int, body: AbandonBody) -> None:
        """S5.7: the host says ``seat`` is gone for good after ``waited`` seconds (at least
        the header's ``open_hand_after_s``), where :meth:`abandon_refusal` lets it leave.
        Its hand is set aside, every later pass skips it; a pass it owed is due from the
        hand's last holder instead (:meth:`_due_passes`). Anything else is a false
        abandonment, refused naming the host."""
        seat, waited = check_abandon(author, body, self.host,
                                     only_host="S5.7: only the host gives a seat up",
                                     refusal=self.abandon_refusal,
                                     least=self.limits.open_hand_after_s)
        self.engine.abandon(seat)
        self.open_seats.add(seat)
        self.abandonments.append((self.engine.turn, seat, waited))
        if self.stage is Stage.PASS:
            done = self._passed_to()
            self._pass_holder = {k: h for k, h in self._due_passes().items()
                                 if k[1] not in done}
            self.passes_due = set(self._pass_holder)
            if not self.passes_due:
                self._go(Step.PASSED)
                self._learn_hand()

    def _apply_commit(self, author: int, body: DeckMessage) -> None:
        self._expect(self.stage is Stage.KEYS, author, "commit", "commitments are closed")
        self.objectives.on_commit(author, body)
        self._commit_msgs.append((author, body))
        if len(self._commit_msgs) == self.n:
            self._go(Step.ALL_KEYS)

    def _apply_shuffle(self, author: int, body: ShuffleBody) -> None:
        """A hop of either chain. Pipelined, its proof check goes to the checker now and
        the next seat shuffles on it at once — the card chain starts on the objective
        deck's last hop unchecked; the card deck's last hop takes every verdict, both
        chains in chain order (objectives first), before the deal (SPLITO_GAME.md
        "Shuffle proofs"). The first rejected hop is named: this entry's own refuses
        it (the core unchanged); an earlier one — in the log, signed — stops the game."""
        msg = body.deck
        if body.deck_of == "objectives":
            self._expect(self.stage is Stage.SHUFFLE_OBJECTIVES
                         and self.objectives.next_shuffler() == author, author, "shuffle",
                         f"the objective deck is not seat {author}'s to shuffle now (S4.2)")
            self.objectives.on_shuffle(author, msg, defer=self.pipeline)
            self._submit("objectives", self.objectives)
            if self.objectives.shuffled:
                self._start_cards()
        else:
            self._expect(self.stage is Stage.SHUFFLE_CARDS and self.cards is not None
                         and self.cards.next_shuffler() == author, author, "shuffle",
                         f"the card deck is not seat {author}'s to shuffle now (S4.3)")
            assert self.cards is not None
            if self.cards.seats[-1] != author:
                self.cards.on_shuffle(author, msg, defer=self.pipeline)
                self._submit("cards", self.cards)
                return
            cards, objectives = self.cards.fork(), self.objectives.fork()
            cards.on_shuffle(author, msg, defer=self.pipeline)
            checks = list(self._checks)
            for hop in cards.unchecked_hops()[sum(d == "cards" for d, _, _ in checks):]:
                # the last hop's verdict is the one waited for: the checker may use every core
                checks.append(("cards", hop, self.checker.submit(self.game_id, hop,
                                                                 last=hop.seat == author)))
            for deck, hop, verdict in checks:
                try:
                    (cards if deck == "cards" else objectives).settle_hop(hop, verdict.result())
                except CheatDetected as e:
                    if deck == "cards" and e.seat == author:
                        raise
                    self.cards, self.objectives, self._checks = cards, objectives, []
                    self._stop(GameError(e.seat, e.step, f"{_DECK_NAME[deck]}: {e.reason}"))
                    return
            self.cards, self.objectives, self._checks = cards, objectives, []
            self._go(Step.CARDS_SHUFFLED)

    def _submit(self, which: str, deck: DeckRound) -> None:
        """Hand the checker the hops of ``deck`` just taken with their check deferred."""
        known = sum(d == which for d, _, _ in self._checks)
        for hop in deck.unchecked_hops()[known:]:
            self._checks.append((which, hop, self.checker.submit(self.game_id, hop)))

    def _start_cards(self) -> None:
        """S4.3: the deck = the 72 number cards, then the objective deck after its
        central slots, under the same keys (fed the same commitments)."""
        final = self.objectives.deck
        assert final is not None
        c = self.settings.central_objectives
        initial = tuple((group.IDENTITY, self._points[k])
                        for k in range(N_NUMBER_CARDS)) + final[c:]
        deck = self._new_deck(initial)
        for seat, msg in self._commit_msgs:
            deck.on_commit(seat, msg)
        self.cards = deck
        self._go(Step.OBJECTIVES_SHUFFLED)

    def _apply_deal(self, author: int, body: DealBody) -> None:
        self._expect(self.stage is Stage.DEAL, author, "deal", "no deal now")
        assert self.cards is not None
        if author in self.dealt_by:
            raise GameError(author, "deal", "duplicate deal shares")
        central, hands = body.central, body.hands
        if not self._central:
            if central is not None:
                raise _err(author, "deal", "S4.2", "no central objectives: central is nil")
        elif central is None or central.slots != tuple(self._central):
            raise _err(author, "deal", "S4.2", f"central shares must be of objective slots "
                       f"{self._central}")
        if hands.slots != tuple(self.deal_slots(author)):
            raise _err(author, "deal", "S4.3", "hand shares must cover exactly every dealt "
                       "slot but the sender's own hand")
        if len(self.dealt_by) + 1 < self.n:
            self._deal_buffer.append((author, hands.msg))
            if central is not None:
                self._central_buffer.append((author, central.msg))
            self.dealt_by.add(author)
            return
        cards, objectives = self.cards.fork(), self.objectives.fork()
        try:
            cards.on_shares_batch([*self._deal_buffer, (author, hands.msg)], "deal")
            if central is not None:
                objectives.on_shares_batch([*self._central_buffer, (author, central.msg)],
                                           "central")
        except CheatDetected as e:
            if e.seat is None or e.seat == author:
                raise
            self.dealt_by.add(author)  # an earlier dealer's shares fail: it is convicted
            self._stop(GameError(e.seat, "deal", e.reason))
            return
        self.cards, self.objectives = cards, objectives
        self.dealt_by.add(author)
        self._deal_buffer, self._central_buffer = [], []
        central_ids = []
        for j in self._central:
            k = self.objectives.card(j)
            if k is None or not N_NUMBER_CARDS <= k < N_CARDS:  # pragma: no cover - proved
                raise GameError(None, "deal", f"objective slot {j} is no objective card")
            central_ids.append(self.ids[k])
        faces: list[str | None] = [None] * self.settings.deck_size
        if self.seat is not None:
            for j in range(self.engine.dealt):
                if self.dealt_holder(j) == self.seat:
                    faces[j] = self._read(j)
        self.engine.deal(central_ids, faces)
        self._go(Step.DEALT)

    def _read(self, slot: int) -> str:
        assert self.cards is not None
        k = self.cards.card(slot)
        if k is None:  # pragma: no cover - every share is in
            raise GameError(None, "decrypt", f"card slot {slot} cannot be read")
        return self.ids[k]

    def _apply_move(self, author: int, body: MoveBody) -> None:
        self._expect(self.stage is Stage.PLAY and self.engine.phase is Phase.COMMIT, author,
                     "move", "S7.3: no commitment is taken now")
        if body.turn != self.engine.turn:
            raise _err(author, "move", "S7.3", f"a commitment for turn {body.turn!r} "
                       f"during turn {self.engine.turn}")
        try:
            self.engine.commit(author, body.commit)
        except IllegalMove as e:
            raise GameError(author, "move", str(e)) from e

    def _apply_reveal(self, author: int, body: RevealBody) -> None:
        """S5.3, S7.3: a play opened once every commitment of the turn is in the log, with
        the dealt holder's share of its slot; every peer reads the card and checks it."""
        if not (self.stage is Stage.PLAY and self.engine.phase is Phase.REVEAL):
            waiting = ", ".join(self.players[s] for s in self.engine.waiting_for())
            raise _err(author, "reveal", "S7.3", "no play is revealed before every seat has "
                       f"committed (commitments missing: {waiting or '—'})")
        if author in self.engine.gone:  # S5.7: no reveal of it is taken (nothing applied)
            raise _err(author, "reveal", "S5.7", f"seat {author} left at turn "
                       f"{self.engine.gone[author]}; it plays no more")
        assert self.cards is not None
        if body.turn != self.engine.turn:
            raise _err(author, "reveal", "S7.3", f"a reveal for turn {body.turn!r} during "
                       f"turn {self.engine.turn}")
        if self.engine.reveals[author] is not None:
            raise _err(author, "reveal", "S7.3", "this seat's play is already revealed")
        slot, card, side, nonce = body.slot, body.card, body.side, body.nonce
        if not 0 <= slot < self.engine.dealt:
            raise _err(author, "reveal", "S4.3", f"{slot!r} is no dealt card slot")
        if card not in self._index:
            raise _err(author, "reveal", "S1.3", f"{card[:20]!r} is no card id")
        if body.share.slots != (slot,):
            raise _err(author, "reveal", "S7.3", f"the share must be for slot {slot}")
        share = body.share.msg
        holder = self.dealt_holder(slot)
        trial = self.cards.fork()
        try:
            trial.learn_shares(holder, share, "pass")
        except CheatDetected as e:
            raise _err(author, "reveal", "S7.3", f"the share of slot {slot} (seat {holder}'s) "
                       f"does not verify: {e.reason}") from e
        k = trial.card(slot)
        if k is None:  # pragma: no cover - every other share is public since the deal
            raise GameError(None, "decrypt", f"slot {slot} cannot be read")
        self.cards = trial
        actual = self.ids[k]
        self.engine.learn(slot, actual)  # S5.3: a revealed card is public
        if actual != card:
            self._stop(_err(author, "reveal", "S7.3", f"it revealed {card} from slot {slot}, "
                            f"but slot {slot} holds {actual}"))
            return
        if slot not in self.engine.hands[author]:
            self._stop(_err(author, "reveal", "S5.2", f"slot {slot} ({card}) is not in the "
                            f"hand seat {author} holds this turn (S12.4)"))
            return
        turn = self.engine.turn
        try:
            self.engine.reveal(author, slot, side, nonce)
        except IllegalMove as e:
            self._stop(GameError(author, "reveal", str(e)))
            return
        if self.engine.turn == turn and not self.engine.over:
            return  # more reveals to come this turn
        self._turn_over(turn)

    def _turn_over(self, turn: int) -> None:
        if self.engine.over and self.engine.gone:
            self._close_unopened()
            return
        if self.engine.over:
            self._go(Step.LAST_TURN)
            return
        # S5.4: hand dealt to h is now at h + turn; sealed shares if it never held it
        self._pass_holder = self._due_passes()
        due = set(self._pass_holder)
        if due:
            self.passes_due = due
            self._go(Step.TURN_PASSES)
        else:
            self._go(Step.TURN_DONE)
            self._learn_hand()

    def _learn_hand(self) -> None:
        """S7.2: this seat now reads the hand it received."""
        if self.seat is None or self._bad_box is not None:
            return
        for j in self.engine.hands[self.seat]:
            if self.engine.faces[j] is None:
                self.engine.learn(j, self._read(j))

    def _apply_pass(self, author: int, body: PassBody) -> None:
        self._expect(self.stage is Stage.PASS, author, "pass", "S5.4: no hand is passed now")
        assert self.cards is not None
        turn, to, eph, box = body.turn, body.to, body.eph, body.box
        if turn != self.engine.turn - 1 or (author, to) not in self.passes_due:
            raise _err(author, "pass", "S5.4", f"no pass from seat {author} to {to!r} is due "
                       f"after turn {self.engine.turn - 1}")
        slots = tuple(self._sealed_slots(author, to))
        if len(box) != SEALED_BYTES * len(slots):
            raise _err(author, "pass", "S5.4", f"the box must seal {len(slots)} shares "
                       f"({SEALED_BYTES * len(slots)} bytes)")
        try:
            eph = group.decode_point(eph, "eph")
            known = check_pass_pok(self.game_id, body.pok, eph, turn, author, to)
        except group.GroupError as e:
            raise _err(author, "pass", "S5.4", str(e)) from e
        if not known:
            # Checked by every peer before the pass is applied, so a complaint about this
            # box can only show K = x_r·R = e·Y_r, which its sender already knows.
            raise _err(author, "pass", "S5.4", "its pok does not prove that the sender knows "
                       "the key e of its eph R = e·G (SPLITO_GAME.md §6)")
        holder = self._pass_holder[(author, to)]
        sealed = Sealed(turn, author, to, slots, eph, box, holder)
        if self.seat == to and self._seed is not None:
            # Ours: read the hand. Shares that do not verify stop nothing here: we owe
            # a complaint (outbox), which shows this one box to everyone.
            trial = self.cards.fork()
            opened = self._open_box(sealed, trial.exchange(eph))
            try:
                for msg in opened.values():
                    trial.learn_shares(holder, msg, "pass")
            except CheatDetected:
                self._bad_box = sealed
            else:
                self.cards = trial
                self.received.update(opened)
        self.sealed.append(sealed)
        self.passes_due.discard((author, to))
        if not self.passes_due:
            self._go(Step.PASSED)
            self._learn_hand()

    @property
    def bad_box(self) -> Sealed | None:
        """A box sealed to us whose shares do not verify (we owe a complaint)."""
        return self._bad_box

    def _apply_complaint(self, author: int, body: ComplainBody) -> None:
        """``author`` shows the key of a box sealed to it: if the shares in it do not
        verify, its sender is convicted (S5.4); otherwise the complaint is refused."""
        self._expect(self.stage in (Stage.PLAY, Stage.PASS) and self.cards is not None,
                     author, "complain", "S5.4: no hand has been passed")
        assert self.cards is not None
        turn, frm = body.turn, body.frm
        box = next((s for s in self.sealed if s.turn == turn and s.frm == frm
                    and s.to == author), None)
        if box is None:
            raise _err(author, "complain", "S5.4", "no such box was sealed to this seat")
        key = self.cards.check_exchange(author, box.eph, body.key, body.proof, box.turn)
        trial = self.cards.fork()
        try:
            for msg in self._open_box(box, key).values():
                trial.learn_shares(box.holder, msg, "pass")
        except CheatDetected:
            self._stop(_err(box.frm, "pass", "S5.4", f"its shares sealed to seat {author} "
                            f"after turn {box.turn} do not verify (shown by its complaint)"))
            return
        raise _err(author, "complain", "S5.4", "a false complaint: the shares sealed to it "
                   "verify")

    def _apply_open(self, author: int, body: DeckMessage) -> None:
        self._expect(self.stage is Stage.OPEN, author, "open", "S7.5: the game is not over")
        assert self.cards is not None
        a, b = self.objectives.fork(), self.cards.fork()
        a.on_open(author, body)
        b.on_open(author, body)
        self.objectives, self.cards = a, b
        self.opened.add(author)
        seed = body.get("seed")
        assert isinstance(seed, bytes)
        self._seeds_opened[author] = seed
        if len(self.opened) == self.n:
            self._audit()

    def _audit(self) -> None:
        """S7.5: both shuffles, the set-aside cards, every sealed box and every play,
        opened; the record (S12) from the full knowledge."""
        assert self.cards is not None
        try:
            order = [self.ids[k] for k in self.objectives.audit()]
            deck = [self.ids[k] for k in self.cards.audit()]
        except CheatDetected as e:  # pragma: no cover - the hops are proved
            self._stop(GameError(e.seat, "audit", e.reason))
            return
        c = self.settings.central_objectives
        if sorted(deck) != sorted([*self.ids[:N_NUMBER_CARDS], *order[c:]]):  # pragma: no cover
            self._stop(GameError(None, "audit", "S4.3: the deck is not the number cards and "
                                 "the objective cards after the central ones"))
            return
        for s in self.sealed:
            why = self._audit_box(s)
            if why is not None:
                self._stop(_err(s.frm, "pass", "S5.4", f"its pass to seat {s.to} after turn "
                                f"{s.turn}: {why}"))
                return
        full = Game(self.settings, self.engine.game_id)
        full.deal(order[:c], deck)
        for plays in self.engine.history:
            for p in plays:
                full.commit(p.seat, p.commit)
            for p in plays:
                full.reveal(p.seat, p.slot, p.side, p.nonce)
        self.objective_order = order
        self.record = build_record(full, self.players, objective_order=order)
        self.full = full
        self.finished = True
        self._go(Step.AUDITED)

    def _close_unopened(self) -> None:
        """S12.5: the end of a game a seat left (S5.7). Its seed never comes, so the cards
        only its share unlocks — the undealt ones, the objective deck below the central
        cards, a hand it was dealt and still held — stay unread for good, and nobody
        opens a seed: what the score rests on is in the log already (every hop proved,
        every played card's holder share proved in its reveal, every sealed share proved
        to its receiver), and an opening would show the others the hands that were set
        aside. The record is what the log reads: every played card and the central
        objectives, null for the rest, the seats that left in ``gone``."""
        eng = self.engine
        played = {p.slot for plays in eng.history for p in plays}
        public = Game(self.settings, eng.game_id)
        public.deal(list(eng.central), [eng.faces[j] if j in played else None
                                        for j in range(self.settings.deck_size)])
        for t, plays in enumerate(eng.history, start=1):
            for seat in [g for g, at in eng.gone.items() if at == t]:
                public.abandon(seat)
            for p in plays:
                public.commit(p.seat, p.commit)
            for p in plays:
                public.reveal(p.seat, p.slot, p.side, p.nonce)
        self.record = build_record(public, self.players)
        self.full = public
        self.finished = True
        self._go(Step.LAST_TURN_UNOPENED)

    def _audit_box(self, s: Sealed) -> str | None:
        """With every seed open: was the box made from the seed, and does it hold the
        sender's true shares?"""
        assert self.cards is not None
        seed = self._seeds_opened[s.frm]
        e = pass_scalar(self.game_id, seed, s.turn, s.to)
        if group.base_mul(e) != s.eph:
            return "its key is not the one its seed gives"
        x = self.cards.opened_key(s.holder)
        assert x is not None and self.cards.deck is not None
        opened = self._open_box(s, group.mul(e, self.cards.keys[s.to]))
        for j, msg in opened.items():
            shares = msg["shares"]
            assert isinstance(shares, list)
            if group.mul(x, self.cards.deck[j][0]) != shares[0]:
                return f"the sealed share of slot {j} is not its share"
        return None


def splito_from_header(raw: object) -> tuple[SplitoSettings, bool]:
    """A Splito header's settings map: {"protocol", "game": "splito", "rules",
    "shuffle_proofs"}, and a rematch's ``rematch`` (GAME.md "Rematch", whose
    ``first_dealer`` is the rules' ``dealer``, S4.1)."""
    from splitnet.games.splito.settings import SettingsError

    if not isinstance(raw, dict) or raw.get("game") != GAME:
        raise SettingsError("header.settings: not a Splito game")
    if set(raw) - {REMATCH_KEY} != {"protocol", "game", "rules", "shuffle_proofs",
                                    LIMITS_KEY}:
        raise SettingsError("header.settings: a Splito header has exactly protocol, game, "
                            "rules, shuffle_proofs and limits (and a rematch's rematch)")
    try:
        limits_from_header(raw)
    except LimitsError as e:
        raise SettingsError(str(e)) from None
    if raw["shuffle_proofs"] is not True:
        raise SettingsError("header.settings.shuffle_proofs: Splito is dealt with shuffle "
                            "proofs only")
    try:
        settings = SplitoSettings.from_dict(raw["rules"])
    except SettingsError as e:
        raise SettingsError(f"header.settings.rules: {e}") from None
    try:
        first_dealer(raw, settings.players)
    except RematchError as e:
        raise SettingsError(str(e)) from None
    return settings, True


def splito_header(settings: SplitoSettings, protocol: str,
                  rematch: Rematch | None = None,
                  limits: Limits | None = None) -> dict[str, Any]:
    """The header's settings map of a Splito game (protocol/SPLITO_GAME.md); a rematch's
    names the game before it, and its ``first_dealer`` is the rules' ``dealer`` (S4.1;
    :func:`splitnet.game.rematch.rematch_settings` makes it from the previous header)."""
    out: dict[str, Any] = {"protocol": protocol, "game": GAME, "rules": settings.to_dict(),
                           "shuffle_proofs": True,
                           LIMITS_KEY: (limits or Limits()).to_dict()}
    if rematch is not None:
        if rematch.first_dealer != settings.dealer:
            raise ValueError(f"the rematch's first dealer is seat {rematch.first_dealer}, "
                             f"the settings' dealer seat {settings.dealer} (S4.1)")
        out[REMATCH_KEY] = rematch.to_dict()
    return out


def pledge_position(kind: str, body: dict[str, Any]) -> tuple[int, str] | None:
    """GAME.md "Pledges" in Splito: the position this seat pledged a deck at before it
    made an entry of ``kind`` with ``body``, as :meth:`SplitoCore.outbox` pledges them —
    (1, "shuffle") its objective deck's hop, (2, "shuffle") its card deck's hop,
    (1, "shares") its deal, reveals and passes, (1, "open") its opening — or None for an
    entry not derived from its seed on a deck. A seat's own such entry in the log proves
    the pledge was made (the node checks its saved file against it)."""
    if kind == "shuffle":
        deck = body.get("deck_of")
        chain = 1 if deck == "objectives" else 2 if deck == "cards" else None
        return None if chain is None else (chain, "shuffle")
    step = {"deal": "shares", "reveal": "shares", "pass": "shares", "open": "open"}.get(kind)
    return None if step is None else (ROUND, step)
