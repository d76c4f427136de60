"""The game protocol: the fair deck and the rules, driven by the ordered log (sans-IO).

A :class:`GameCore` consumes the game's log entries (author seat, kind, body) in order and
keeps one peer's knowledge: its own engine (its view, R8), the fair deck of the current
round, and — after each round's audit — a full-knowledge replay that yields the game
record. Every peer runs it; so does the verifier, as an observer with no secrets.

Per round (protocol/GAME.md)::

    commit   every seat           deck COMMIT
    shuffle  seats 0 … N−1        deck SHUFFLE (with its proof); pipelined: each proof
                                  check goes to the injected HopChecker as the hop
                                  arrives and the next seat shuffles at once; the last
                                  hop's entry takes every verdict in chain order before
                                  the deal (a bad earlier hop stops the game naming it)
    shares   every seat, "deal"   shares for every dealt slot but its own + the first discard
    move     the seat to act      {"move": …} — no shares (R8.1: the host learns no card)
    reveal   the mover, next      its shares of the played cards not yet public, only once
                                  the move is in the log; nothing else is accepted before
    shares   every other seat, "draw", after a draw from the pile: the drawn slot
    open     every seat           the round seed → audit, full replay, record
    prove    every seat present   a round cut short, dealt without shuffle proofs: the
                                  proof of its own hop, made now — never its seed
    accuse   the mover            the host's signed refusal of a move that was legal
    abandon  the host             a seat the game waits for is gone for good: during
                                  play the round ends as it stands, scored, and nobody
                                  opens it (without shuffle proofs the seats present
                                  prove their hops); before any card exists the deal is
                                  void and dealt again; from then on that seat is
                                  open-handed (R8.6)

An open-handed seat takes no part in the deck (DeckRound ``seats``): its cards are dealt
and drawn face up, and every peer derives its moves itself with the same deterministic
rules on the public state (:mod:`splitnet.games.split.open_hand_policy`); no entry carries them.

Every message this seat derives from its round seed *on a deck* — its hop (on the deck
it takes), its shares (of the final deck) and its opening — is first **pledged**: the
deck's digest goes to the seat's :class:`PledgeBook`, which the node makes durable before
the message can leave (the core owns no I/O). A different deck at the same position later
— a restart that lost the transcript's unsynced tail, then a host serving another hop —
is refused with :class:`PledgeRefused` and nothing is sent: a second hop on another
input, or shares of a second final deck, would give the seat's permutation or cards away;
so would more play in a round whose seed it opened (protocol/GAME.md, "Pledges"; R8.1).

A message that breaks the protocol or the rules raises :class:`GameError` naming the seat
at fault; the core is then unchanged. A valid entry that *completes* a check convicting a
seat — the deal's combined share proofs naming an earlier dealer, a false alarm, a reveal
showing that its move breaks the rules, a move found illegal at the audit, an accusation
proving the host refused a legal move — or the host's ``timeout`` of a seat that owes a
message is applied, and the game stops with that verdict (:attr:`GameCore.verdict`): every peer
reaches the same verdict from the same log.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from splitnet.crypto.deck import DeckRound, HopCheck, ShuffleProver
from splitnet.crypto.errors import CheatDetected, DeckUsageError
from splitnet.game.bodies import DeckMessage, parse_chat
from splitnet.game.checks import HopChecker, HopVerdict, InlineChecker

# The table's, shared by every game; re-exported here, where callers have always found them.
from splitnet.game.table import (
    PLEDGE_STEPS,
    ChosenMove,
    GameError,
    Limits,
    MemoryMoves,
    MemoryPledges,
    MoveBook,
    OutOfTurn,
    Pledge,
    PledgeBook,
    PledgeRefused,
    Position,
    WrongRound,
    check_abandon,
    check_ints,
    check_timeout,
    check_waited,
    naming,
    proof_functions,
)
from splitnet.games.split.bodies import (  # INT_FIELDS, KINDS: where callers found them
    BODIES,
    INT_FIELDS,
    KINDS,  # noqa: F401
    AbandonBody,
    AccuseBody,
    AlarmBody,
    CommitBody,
    MoveBody,
    OpenBody,
    ProveBody,
    RevealBody,
    SharesBody,
    ShuffleBody,
    SplitBody,
    TimeoutBody,
    parse,
    parse_move,
)
from splitnet.games.split.open_hand import OpenHandPlayer, open_hand_move, open_hand_seed
from splitnet.games.split.record import Recorder
from splitnet.games.split.rules import (
    Action,
    BonusDraw,
    DrawPile,
    Game,
    IllegalMove,
    Settings,
    action_to_dict,
    played_slots,
)
from splitnet.session.codec import DecodeError, is_int
from splitnet.session.identity import verify
from splitnet.session.log import LogError, check_refusal, message_hash, parse_message

_proof_functions = proof_functions  # the name it had here

#: the step a deck message's kind is logged at (GameCore._mark_sent)
_DECK_KINDS: dict[type, str] = {CommitBody: "commit", ShuffleBody: "shuffle", OpenBody: "open",
                                ProveBody: "prove"}


class OpenHandMissing(GameError):
    """This core was built without the open-hand player (``GameCore(open_hand=...)``), so
    it cannot play an abandoned seat (R8.6): the abandonment is refused and nothing
    changes. Blames nobody: the entry may be sound, this peer is assembled wrong."""

    def __init__(self, seat: int) -> None:
        super().__init__(None, "abandon", f"cannot play seat {seat} open-handed: this peer "
                         "was assembled without the open-hand player (R8.6)",
                         text=f"cannot play seat {seat} open-handed (R8.6): this peer was "
                              "assembled without the open-hand player")


@dataclass
class RoundState:
    number: int
    deck: DeckRound
    stage: str = "commit"  # commit | shuffle | deal | play | open | prove | done | void
    committed: set[int] = field(default_factory=set)
    dealt_by: set[int] = field(default_factory=set)
    deal_buffer: list[tuple[int, DeckMessage]] = field(default_factory=list)
    #: (drawer, slot, seats whose draw share is still due)
    draw: tuple[int, int, set[int]] | None = None
    #: an ordered move whose cards are not public yet: the mover owes its reveal
    pending: Pending | None = None
    opened: set[int] = field(default_factory=set)
    actions: list[Action] = field(default_factory=list)
    public: set[int] = field(default_factory=set)  # slots revealed to everyone
    faces: list[int | None] | None = None  # after the audit (None: never read, R8.6)
    #: why play stopped early (an alarm in the log); the openings will name the seat
    aborted: str | None = None
    alarm_by: int | None = None
    #: a deck anomaly this peer saw; it raises the alarm and ignores play until then
    alarm: str | None = None
    #: the seat(s) abandoned in this deal before any card existed: it is void, dealt again
    abandoned: list[int] = field(default_factory=list)
    #: the seat abandoned during this deal's play: the round ended there, scored as it
    #: stood (R8.6), and nobody opens it (without shuffle proofs: stage ``prove``)
    cut: int | None = None
    #: (engine events so far, seat) after each move: who made which events (narration;
    #: an open seat's moves are in no entry)
    event_actors: list[tuple[int, int]] = field(default_factory=list)
    #: the deferred shuffle-proof checks of the hops taken so far, in chain order
    checks: list[tuple[HopCheck, HopVerdict]] = field(default_factory=list)


@dataclass(frozen=True)
class Pending:
    """A move in the log that waits for its mover's ``reveal`` of ``slots``."""

    seat: int
    action: Action
    slots: list[int]


SeedSource = Callable[[int], bytes]  # round number → this seat's 32-byte round seed


class GameCore:
    def __init__(self, game_id: bytes, players: Sequence[str], settings: Settings,
                 seat: int | None, seeds: SeedSource | None = None, *,
                 shuffle_proofs: bool = True, host: int = 0,
                 pledges: PledgeBook | None = None, moves: MoveBook | None = None,
                 keys: Sequence[bytes] | None = None, first_dealer: int = 0,
                 checker: HopChecker | None = None, pipeline: bool = True,
                 open_hand: OpenHandPlayer | None = None,
                 limits: Limits | None = None) -> None:
        self.game_id = game_id
        #: the waits agreed in the header (GAME.md "limits"): no timeout or abandonment
        #: that claims less is taken
        self.limits = limits if limits is not None else Limits()
        self.players = list(players)
        self.n = len(players)
        self.settings = settings
        settings.check_players(self.n)
        self.seat = seat
        self.seeds = seeds
        self.shuffle_proofs = shuffle_proofs
        self.host = host  # the seat that orders the log: only it may declare a timeout
        #: where this seat's pledges are made durable (the node's); in memory by default
        self.pledges: PledgeBook = pledges if pledges is not None else MemoryPledges()
        #: this seat's chosen move, kept (durably, on a node) before it is sent: a move at
        #: a position is final (GAME.md "Pledges"); in memory by default
        self.moves: MoveBook = moves if moves is not None else MemoryMoves()
        #: set when this seat refused to send on another deck (PledgeRefused): it sends
        #: nothing more
        self.refused: PledgeRefused | None = None
        #: every seat's identity key (the header's): to check an ``accuse`` entry
        self.keys = list(keys) if keys is not None else None
        #: round 1's dealer (R3.2): 0, or in a rematch the header's (game/rematch.py)
        self.first_dealer = first_dealer
        #: where other seats' shuffle proofs are checked (injected: a process pool; by
        #: default at once, in this thread)
        self.checker: HopChecker = checker if checker is not None else InlineChecker()
        if shuffle_proofs:
            self.checker.start()  # a pool's workers come up before the first hop
        #: pipelined shuffle (GAME.md "shuffle proofs"): a hop's proof check is deferred
        #: to the checker and settled when the last hop is in; False: checked on arrival
        self.pipeline = pipeline
        #: plays an abandoned seat (R8.6), injected: the game layer knows no bots
        self.open_hand = open_hand
        # this seat's view (observer: public only)
        self.engine = Game(self.n, settings, first_dealer=first_dealer)
        self.recorder = Recorder(Game(self.n, settings, first_dealer=first_dealer), players)
        self.round: RoundState | None = None
        self.rounds: list[RoundState] = []
        self.chat: list[tuple[int, str]] = []
        self.finished = False
        #: why the game stopped early (``finished`` is then True too), or None
        self.verdict: GameError | None = None
        self._sent: set[tuple[Any, ...]] = set()  # produced by outbox() (maybe unlogged)
        self._logged: set[tuple[Any, ...]] = set()  # seen in the log from this seat
        #: seats played open-handed (R8.6): abandoned by the host, out of every later deck
        self.open_seats: set[int] = set()
        #: (deal, seat, waited) of every abandonment, in log order
        self.abandonments: list[tuple[int, int, int]] = []
        #: the hash of every log entry an applied entry followed (its ``at.prev``): what an
        #: ``accuse`` checks its refused move's ``seen`` against (TRANSCRIPT.md §3)
        self._hashes: dict[int, bytes] = {}
        self._new_round()

    # ------------------------------------------------------------------ set-up
    def _new_round(self) -> None:
        number = len(self.rounds) + 1  # deals are numbered: a void deal takes a number
        member = self.seat is not None and self.seat not in self.open_seats
        seed = self.seeds(number) if (self.seeds is not None and member) else None
        # The checker's splitter (a pool's helper process) lets this seat's own hop — the
        # re-masks and the proof, on every later seat's critical path — use both cores.
        splitter = self.checker.splitter if self.shuffle_proofs else None
        prover, verifier = (_proof_functions(self.game_id, seed, splitter)
                            if self.shuffle_proofs else (None, None))
        deck = DeckRound(self.game_id, number, self.n, self.seat if seed else None, seed,
                         shuffle_prover=prover, shuffle_verifier=verifier,
                         seats=[s for s in range(self.n) if s not in self.open_seats],
                         splitter=splitter, hop_memo=self.checker.hop_memo)
        self.round = RoundState(number, deck)
        self.rounds.append(self.round)

    # ------------------------------------------------------------------ queries
    def _dealt(self) -> int:
        return self.settings.hand_size * self.n

    def members(self) -> list[int]:
        """The seats that make the current deck (every seat not open-handed)."""
        return [s for s in range(self.n) if s not in self.open_seats]

    def deal_slots(self, seat: int) -> list[int]:
        """The slots whose deal shares ``seat`` sends: every dealt slot not its own, and
        the first discard (an open seat's slots too: they are dealt face up, R8.6)."""
        dealer, n = self.engine.dealer, self.n
        return [j for j in range(self._dealt()) if (dealer + 1 + j) % n != seat] + [self._dealt()]

    def waiting_for(self) -> list[int]:
        """Seats the game is waiting for now (for "waiting for …" lines)."""
        r = self.round
        if self.finished or r is None:
            return []
        if r.stage == "commit":
            return [s for s in self.members() if s not in r.committed]
        if r.stage == "shuffle":
            nxt = r.deck.next_shuffler()
            return [nxt] if nxt is not None else []
        if r.stage == "deal":
            return [s for s in self.members() if s not in r.dealt_by]
        if r.stage == "play":
            if r.pending is not None:
                return [r.pending.seat]
            if r.draw is not None:
                return sorted(r.draw[2])
            a = self.engine.actor
            return [a] if a is not None else []
        if r.stage == "open":
            return [s for s in self.members() if s not in r.opened]
        if r.stage == "prove":
            return [s for s in self.members() if s not in r.deck.proved]
        return []

    def progress(self) -> str:
        """"shuffling: Ana ✓  Bo …  Cy" — who has done the current step."""
        r = self.round
        if self.verdict is not None:
            return f"game stopped: {self.verdict}"
        if self.finished or r is None:
            return "game over"
        label = {"commit": "committing", "shuffle": "shuffling", "deal": "dealing",
                 "open": "opening the round for audit",
                 "prove": "proving the hops of the round cut short"}.get(r.stage)
        if label is None:
            if r.pending is not None:
                return f"{self.players[r.pending.seat]} reveals the played cards"
            if r.draw is not None:
                return f"{self.players[r.draw[0]]} draws: waiting for " + ", ".join(
                    self.players[s] for s in sorted(r.draw[2]))
            a = self.engine.actor
            return f"waiting for {self.players[a]}" if a is not None else ""
        waiting = set(self.waiting_for())
        if r.stage == "shuffle":
            nxt = r.deck.next_shuffler()
            members = list(r.deck.seats)
            waiting = set(members[members.index(nxt):]) if nxt is not None else set()
        marks = [f"{p} {'…' if s in waiting else '✓'}" for s, p in enumerate(self.players)
                 if s not in self.open_seats]
        return f"{label}: " + "  ".join(marks)

    def _at_move(self) -> bool:
        """Is it this seat's move now (whether or not it has chosen it)? Never once the
        seat is given up: every peer moves for it by OPEN_HAND.md (R8.6)."""
        r = self.round
        return (r is not None and not self.finished and r.stage == "play" and r.draw is None
                and r.pending is None and self.seat is not None
                and self.seat not in self.open_seats
                and self.engine.actor == self.seat and self.refused is None)

    def can_move(self) -> bool:
        """May this seat's player choose a move now? Not once a move is chosen at this
        position (:meth:`kept_move`): that one is sent again until it is in the log."""
        return self._at_move() and self.kept_move() is None

    def kept_move(self) -> ChosenMove | None:
        """The move this seat chose (and kept) at the position the game is at now, if it
        is this seat's move and the move is not in the log yet (GAME.md "Pledges")."""
        kept = self.moves.chosen_move()
        r = self.round
        if kept is None or r is None or not self._at_move():
            return None
        return kept if (kept.round_no, kept.at) == (r.number, len(r.actions)) else None

    # ------------------------------------------------------------------ producing
    def outbox(self) -> list[tuple[str, dict[str, Any]]]:
        """Protocol messages this seat owes now. A move comes from a player; the outbox
        only sends the one kept at this position again (:meth:`choose_move`) when the log
        lacks it — after a reconnect or a restart.

        A hop or shares are pledged first (:meth:`_pledge`): raises :class:`PledgeRefused`
        (once; then nothing more is produced) if the deck is not the one pledged before."""
        r, seat = self.round, self.seat
        if (r is None or seat is None or self.finished or self.refused is not None
                or seat in self.open_seats):
            return []
        out: list[tuple[str, dict[str, Any]]] = []

        def once(key: tuple[Any, ...], kind: str, make: Callable[[], dict[str, Any]]) -> None:
            if key not in self._sent and key not in self._logged:
                self._sent.add(key)
                out.append((kind, {"round": r.number, **make()}))

        if r.alarm is not None and r.aborted is None:
            once(("alarm", r.number), "alarm", lambda: {"reason": r.alarm})
        elif r.stage == "commit" and seat not in r.committed:
            once(("commit", r.number), "commit", r.deck.commit_message)
        elif r.stage == "shuffle" and r.deck.next_shuffler() == seat:
            def hop() -> dict[str, Any]:
                self._pledge(r, "shuffle", r.deck.input_digest(seat))
                return r.deck.shuffle_message()
            once(("shuffle", r.number), "shuffle", hop)
        elif r.stage == "deal" and seat not in r.dealt_by:
            slots = self.deal_slots(seat)

            def deal() -> dict[str, Any]:
                self._pledge(r, "shares", r.deck.final_digest)
                return {"purpose": "deal", **r.deck.shares_message(slots, "deal")}
            once(("deal", r.number), "shares", deal)
        elif r.stage == "play" and r.pending is not None and r.pending.seat == seat:
            # R8.1: our share of a played card leaves this seat only now, once the move
            # is in the log — never with the move, which the host could refuse.
            hidden = r.pending.slots

            def reveal() -> dict[str, Any]:
                self._pledge(r, "shares", r.deck.final_digest)
                return r.deck.shares_message(hidden, "reveal")
            once(("reveal", r.number, hidden[0]), "reveal", reveal)
        elif r.stage == "play" and r.draw is not None and seat in r.draw[2]:
            slot = r.draw[1]

            def draw() -> dict[str, Any]:
                self._pledge(r, "shares", r.deck.final_digest)
                return {"purpose": "draw", **r.deck.shares_message([slot], "draw")}
            once(("draw", r.number, slot), "shares", draw)
        elif (kept := self.kept_move()) is not None:
            # GAME.md "Pledges": our move at this position, chosen before, not yet in the
            # log (the host dropped or refused it, or we restarted): exactly it again
            move = dict(kept.move)
            once(("move", kept.round_no, kept.at), "move", lambda: {"move": move})
        elif r.stage == "open" and seat not in r.opened:
            def opening() -> dict[str, Any]:
                self._pledge(r, "open", r.deck.final_digest)
                return r.deck.open_message()
            once(("open", r.number), "open", opening)
        elif r.stage == "prove" and seat not in r.deck.proved:
            def proving() -> dict[str, Any]:
                # the proof of the hop the log holds: the one pledged at the shuffle
                self._pledge(r, "shuffle", r.deck.input_digest(seat))
                return r.deck.hop_proof_message(self._prover())
            once(("prove", r.number), "prove", proving)
        return out

    def _prover(self) -> ShuffleProver:
        """The shuffle prover of this game's generators, with this seat's splitter (a
        late hop proof, GAME.md "abandon" step 2, in a game dealt without proofs)."""
        seed = self.seeds(self.round.number) if self.seeds and self.round else None
        prove, _ = _proof_functions(self.game_id, seed, self.checker.splitter)
        assert prove is not None
        return cast(ShuffleProver, prove)

    def move_message(self, action: Action) -> dict[str, Any]:
        """The body of this seat's move; raises IllegalMove (nothing changes) if the
        rules refuse it (checked with our own cards' faces). It carries no share: the
        played cards are revealed by the ``reveal`` that :meth:`outbox` makes once the
        move is in the log (R8.1). Nothing is kept: a seat whose move may be dropped or
        refused (a LAN seat) makes it with :meth:`choose_move`."""
        r = self.round
        if not self._at_move() or r is None:
            raise IllegalMove("R3.4", "it is not your turn to move")
        if action.seat != self.seat:
            raise IllegalMove("R3.4", "a move must be for your own seat")
        self.engine.check(action)
        self._not_opened(r, "move")
        return {"round": r.number, "move": action_to_dict(action)}

    def choose_move(self, action: Action) -> dict[str, Any]:
        """:meth:`move_message`, and the move kept in :attr:`moves` (durably, on a node)
        before its body is returned — a move at a position is final (GAME.md "Pledges",
        R8.1): :meth:`can_move` is then false and :meth:`outbox` sends exactly this move
        again while the log lacks it. Another move at the same position is refused
        (IllegalMove, nothing changes); the same one again returns the same body."""
        body = self.move_message(action)
        r = self.round
        assert r is not None
        kept = self.kept_move()
        if kept is not None and kept.move != body["move"]:
            raise IllegalMove("R8.1", f"your move at this position is chosen already "
                              f"({kept.move.get('type')}); it is never changed, only sent "
                              "again until the host orders it")
        if kept is None:
            self.moves.choose_move(ChosenMove(r.number, len(r.actions), body["move"]))
        self._sent.add(("move", r.number, len(r.actions)))
        return body

    def move_is_legal(self, body: object) -> bool:
        """Would this seat make this move body now? (Its own full check, with its own
        cards' faces: a host that refuses such a move refuses a legal move.)"""
        r = self.round
        if not isinstance(body, dict) or r is None or self.seat is None:
            return False
        try:
            move = parse_move(self.seat, body)
            return move.round == r.number and self.move_message(move.action) == body
        except (GameError, IllegalMove):
            return False

    def _pledge(self, r: RoundState, step: str, digest: bytes | None) -> None:
        """Before a message derived from our seed on a deck is made: pledge the deck's
        digest (the book makes it durable before returning), or — when another deck was
        pledged at (round, step) — refuse for good (:class:`PledgeRefused`)."""
        assert digest is not None and step in PLEDGE_STEPS
        if step == "shares":
            self._not_opened(r, step)
        have = self.pledges.pledged(r.number, step)
        if have is None:
            self.pledges.pledge(Pledge(r.number, step, digest))
            return
        if have == digest:
            return
        if step == "shuffle":
            why = ("R8.1: the deck our hop takes is not the one we already shuffled at this "
                   "position (the log before it changed: a host serving another hop or "
                   "commit after our transcript lost its tail); a second hop on another "
                   "input would give our permutation away")
        else:
            why = ("R8.1: the final deck is not the one we already sent shares of (the log "
                   "changed under us); shares of a second deck would decrypt our cards "
                   "for the others")
        self.refused = PledgeRefused(self.host, r.number, step, why)
        raise self.refused

    def _not_opened(self, r: RoundState, step: str) -> None:
        """Refuse for good to play on in a round whose seed we already opened: a log that
        has the round still in play (the end we saw lost with our transcript's tail, and
        another continuation served) would have us play with our cards known to all."""
        if self.pledges.pledged(r.number, "open") is None:
            return
        self.refused = PledgeRefused(
            self.host, r.number, step, "R8.1: we already opened our seed for this round, yet "
            "the log has the round still in play (another end than the one we saw); with "
            "our cards known to everyone we play no further")
        raise self.refused

    # ------------------------------------------------------------------ consuming
    def apply(self, author: int, kind: str, body: dict[str, Any], *,
              at: Position | None = None) -> None:
        """Apply one ordered entry (``at``: where it stands in the log; needed for an
        ``accuse``). GameError (seat at fault) leaves the core unchanged."""
        with naming(author, self.host, at):  # SECURITY.md row 112
            self._apply_entry(author, kind, body, at)
        if at is not None and at.seq > 0:
            self._hashes[at.seq - 1] = at.prev

    def _apply_entry(self, author: int, kind: str, raw: dict[str, Any],
                     at: Position | None) -> None:
        if self.finished:
            raise GameError(author, kind, "the game is over" if self.verdict is None
                            else f"the game stopped ({self.verdict})")
        if not 0 <= author < self.n:
            raise GameError(None, kind, f"no seat {author}")
        if kind == "chat":  # GAME.md "chat": exactly {"text": ≤ 500 characters}, any time
            self.chat.append((author, parse_chat(author, raw).text))
            return
        r = self.round
        assert r is not None
        BODIES.check(author, kind, raw)  # a kind Split knows; WIRE.md §4: a bool is no int
        if author in self.open_seats:
            # An honest host refuses every such message (its own core does, here). One
            # the seat signed before it was given up, held back by the host and ordered
            # after, names the host (SECURITY rows 107 and 112: :func:`overtaken`); one
            # signed after, with the abandonment in view, names the seat.
            raise GameError(author, kind, f"R8.6: {self.players[author]}'s seat is "
                            "played open-handed, and an open seat sends nothing but chat: "
                            f"its {kind} is not to be ordered after the seat was given up "
                            "(every peer derives its moves by the rules of OPEN_HAND.md and "
                            "it takes no part in the deck)")
        rnd = raw.get("round")
        if not is_int(rnd) or rnd != r.number:
            raise WrongRound(author, kind, f"message for round {rnd!r} during "
                            f"round {r.number}")
        # From here on only the typed body is read (split/bodies.py): checked whole here.
        body = parse(author, kind, raw, checked=True)
        match body:
            case AlarmBody():
                self._apply_alarm(r, author, body)
                return
            case TimeoutBody():
                self._apply_timeout(author, body)
                return
            case AbandonBody():
                self._apply_abandon(r, author, body)
                self._auto_moves()
                return
            case AccuseBody():
                self._apply_accuse(r, author, body, at)
                return
        if r.alarm is not None and r.aborted is None and isinstance(
                body, SharesBody | MoveBody | RevealBody):
            return  # this peer already knows the round is void; the alarm is on its way
        try:
            match body:
                case CommitBody(deck=msg):
                    self._expect(r.stage == "commit", author, kind, "commitments are closed")
                    r.deck.on_commit(author, msg)
                    r.committed.add(author)
                    if len(r.committed) == len(r.deck.seats):
                        r.stage = "shuffle"
                case ShuffleBody(deck=msg):
                    self._expect(r.stage == "shuffle" and r.deck.next_shuffler() == author,
                                 author, kind,
                                 f"it is seat {r.deck.next_shuffler()}'s turn to shuffle")
                    self._apply_shuffle(r, author, msg)
                case SharesBody():
                    self._apply_shares(r, author, body)
                case MoveBody():
                    self._apply_move(r, author, body)
                case RevealBody():
                    self._apply_reveal(r, author, body)
                case ProveBody(deck=msg):
                    self._apply_prove(r, author, msg)
                case OpenBody(deck=msg):
                    if r.stage == "prove":
                        raise GameError(author, kind, "R8.6: a round cut short is never "
                                        "opened (GAME.md \"abandon\" step 2): each seat "
                                        "present proves its hop, and a seed would give its "
                                        "hand away")
                    self._expect(r.stage == "open", author, kind, "the round is not over")
                    r.deck.on_open(author, msg)
                    r.opened.add(author)
                    if set(self.members()) <= r.opened:
                        self._audit(r)
        except CheatDetected as e:
            if e.seat is None and e.step == "decrypt" and r.deck.shuffled:
                if self.shuffle_proofs:  # pragma: no cover - every hop was proved
                    raise GameError(None, "decrypt", f"{e.reason}, although every hop was "
                                    "proved (a broken proof or a bug): nobody opens") from e
                # Without proofs: a card that decrypts to nothing or twice means some
                # shuffle was dishonest and only the seeds can tell whose. Raise the
                # alarm: every seat then opens.
                r.alarm = e.reason
                return
            raise GameError(e.seat if e.seat is not None else author, e.step, e.reason) from e
        except DeckUsageError as e:
            raise GameError(author, kind, str(e)) from e
        if author == self.seat:
            self._mark_sent(r, body)
        self._auto_moves()

    def _apply_alarm(self, r: RoundState, author: int, body: AlarmBody) -> None:
        """R8.4: a card decrypted wrongly (without shuffle proofs): play stops, every seat
        opens its seed, and the audit names the cheat (or the alarm's author, falsely)."""
        if self.shuffle_proofs:
            raise GameError(author, "alarm", "with shuffle proofs every hop is proved, so "
                            "no card can decrypt wrongly: an alarm is refused and nobody "
                            "opens early (R8.4)")
        if r.aborted is not None or r.stage not in ("deal", "play"):
            raise GameError(author, "alarm", "no alarm can be raised now")
        r.aborted = body.reason
        r.alarm_by, r.draw, r.stage = author, None, "open"

    def made_by_us(self, kind: str, body: dict[str, Any]) -> bool:
        """For an entry in this seat's own name, before it is applied: is it what this
        seat makes? Every protocol message (commit, hop, deal and draw shares, opening)
        is a function of our round seed and the log, so anything else in our name is an
        old message of ours replayed by the host (a game id used twice) or a stolen key.
        So is a reveal (our shares of the cards of the move just ordered). Moves, alarms,
        accusations and chat are choices: True. So is anything we could not make now (the
        ordinary checks refuse it). It reads the raw body: it is asked before the body is
        parsed, and a body in our name that we never made is not ours, well-formed or
        not."""
        r = self.round
        if (self.seat is None or self.seeds is None or r is None or self.finished
                or kind not in ("commit", "shuffle", "shares", "open", "reveal", "prove")):
            return True
        payload = {k: v for k, v in body.items() if k not in ("round", "purpose")}
        purpose, slots = body.get("purpose"), payload.get("slots")
        try:
            if kind == "commit":
                want = r.deck.commit_message()
            elif kind == "shuffle":
                want = r.deck.shuffle_message()
            elif kind == "open":
                want = r.deck.open_message()
            elif kind == "prove":
                if r.stage != "prove":
                    return True
                want = r.deck.hop_proof_message(self._prover())
            elif kind == "reveal" and isinstance(slots, list) and slots:
                want = r.deck.shares_message(list(slots), "reveal")
            elif purpose in ("deal", "draw") and isinstance(slots, list):
                want = r.deck.shares_message(list(slots), str(purpose))
            else:
                return True
        except (DeckUsageError, CheatDetected):
            return True
        return body.get("round") != r.number or payload == want

    def forget_unlogged(self) -> None:
        """After a reconnect: whatever outbox() produced that never reached the log will
        be produced again (the log, not memory, says what was sent)."""
        self._sent = set()

    def _mark_sent(self, r: RoundState, body: SplitBody) -> None:
        match body:
            case CommitBody() | ShuffleBody() | OpenBody() | ProveBody():
                self._logged.add((_DECK_KINDS[type(body)], r.number))
            case SharesBody(purpose="deal"):
                self._logged.add(("deal", r.number))
            case SharesBody(slots=slots) | RevealBody(slots=slots) if slots:
                self._logged.add(("draw" if isinstance(body, SharesBody) else "reveal",
                                  r.number, slots[0]))

    def owed_step(self, seat: int) -> str:
        """The step a seat the game waits for owes a message at (a timeout's verdict)."""
        r = self.round
        assert r is not None
        if r.stage == "deal" or (r.stage == "play" and r.draw is not None):
            return "shares"
        if r.stage == "play" and r.pending is not None:
            return "reveal"
        return "move" if r.stage == "play" else r.stage

    def _apply_timeout(self, author: int, body: TimeoutBody) -> None:
        """The host says ``seat`` owed a message for ``waited`` seconds: the game stops
        with a verdict naming that seat — if the game really waits for it. Only the host
        orders messages, so only the host can know; it is the host's word (a seat whose
        message the host dropped knows better: protocol/SECURITY.md)."""
        seat, waited = check_timeout(author, body, self.host, self.waiting_for())
        check_waited(author, "timeout", waited, self.limits.for_step(self.owed_step(seat)),
                     "timeout")
        self._stop(GameError(seat, self.owed_step(seat), f"did not answer for {waited} s "
                             f"(timed out by the host, seat {author})"))

    def _apply_abandon(self, r: RoundState, author: int, body: AbandonBody) -> None:
        """R8.6: the host says ``seat`` is gone for good after ``waited`` seconds — if the
        game really waits for it, at a stage where no hand and no outcome can be known
        ahead of the others (:meth:`abandon_refusal`). Before any card exists the deal is
        void and dealt again; during play the round ends as it stands, scored (R6.3) —
        at once with shuffle proofs, from the cards the log reads; without, the same once
        every seat present has proved its hop (:meth:`_apply_prove`; the audit as far as
        it goes without the leaver, who proves nothing). From the next deal on ``seat`` is
        played open-handed. Anything else is a false abandonment, refused naming the
        host."""
        seat, waited = check_abandon(author, body, self.host,
                                     only_host="only the host abandons a seat",
                                     refusal=self.abandon_refusal,
                                     least=self.limits.open_hand_after_s)
        if self.open_hand is None:
            raise OpenHandMissing(seat)
        self.open_seats.add(seat)
        self.abandonments.append((r.number, seat, waited))
        r.pending, r.draw = None, None  # a reveal or draw share that will never come
        if r.stage == "play":  # R8.6 [decision]: the round ends as it stands, scored
            r.cut = seat
            self.engine.end_abandoned(seat)
            # GAME.md abandon 2: nobody opens a seed — an opening would hand a forking
            # host, on its other history, the hand of a seat it shows as a puppet there
            # (SECURITY.md row 111): every hop and share stands on its proof, and the
            # record is what the log reads. Dealt without proofs, the seats present
            # first prove their hops (``prove``), which tells nothing of any card.
            if self.shuffle_proofs:
                self._audit(r)
            else:
                self.checker.start()
                r.stage = "prove"
            return
        # commit or shuffle (abandon_refusal allows nothing else): no card exists yet,
        # nothing to open — the deal is void and dealt again
        r.abandoned.append(seat)
        self._void(r)

    @property
    def round_number(self) -> int | None:
        """The round in progress (what a ``timeout`` or ``abandon`` names), or None."""
        return None if self.round is None else self.round.number

    def abandon_refusal(self, seat: int) -> str | None:
        """Why the host may not abandon ``seat`` now (R8.6), or None if it may."""
        r = self.round
        if self.finished or r is None:
            return "the game is over"
        if not 0 <= seat < self.n or seat == self.host:
            return f"seat {seat} is not a guest's seat"
        if seat in self.open_seats:
            return f"seat {seat} is already played open-handed"
        if r.aborted is not None:
            return "an alarm's audit needs every seed (time the seat out instead)"
        if seat not in self.waiting_for():
            return f"the game does not wait for seat {seat} (it waits for {self.waiting_for()})"
        if len(self.members()) - 1 < 2:
            return ("fewer than two seats would remain to make the deck (R8.6: the host may "
                    "only time the seat out)")
        if r.stage == "deal":
            return ("the deal's shares are on their way: whoever holds them may read a hand, "
                    "so the deal is not voided now (R8.6: time the seat out instead)")
        if r.stage == "play" and r.pending is not None:
            return ("a move's reveal is on its way: whoever holds it knows the move's cards, "
                    "so the round is not cut before it (R8.6: time the seat out instead)")
        if r.stage in ("open", "prove"):
            return ("the round is over and its outcome known: it is not voided now (R8.6: "
                    "time the seat out instead)")
        return None

    def _void(self, r: RoundState) -> None:
        """The abandoned deal is over: dealt again, without the open seats' keys."""
        r.stage = "void"
        self._new_round()

    def _auto_moves(self) -> None:
        """R8.6: while an open seat is to move, every peer applies the open-hand bot's
        choice on the public state (no entry carries it)."""
        for _ in range(10_000):
            r = self.round
            if (self.finished or r is None or r.stage != "play" or r.pending is not None
                    or r.draw is not None):
                return
            seat = self.engine.actor
            if seat is None or seat not in self.open_seats:
                return
            player = self.open_hand
            if player is None:  # pragma: no cover - an abandonment without it is refused
                raise OpenHandMissing(seat)
            action = open_hand_move(self.engine, r.public, seat,
                                    open_hand_seed(self.game_id, r.number, seat,
                                                   len(r.actions)), player)
            if any(s not in r.public for s in played_slots(action)):  # pragma: no cover
                raise GameError(None, "move", "the open-hand bot played a hidden card")
            drawn = self.engine.pile_top if isinstance(action, DrawPile | BonusDraw) else None
            self.engine.apply(action)
            self._moved(r, seat, action, drawn)
        raise AssertionError("the open-hand bot did not stop")  # pragma: no cover

    def _apply_shuffle(self, r: RoundState, author: int, payload: DeckMessage) -> None:
        """A hop. Pipelined, its proof check goes to the checker now and the next seat may
        shuffle on it at once; the last hop's entry waits for every verdict, in chain
        order, before the deal can start (GAME.md "shuffle proofs"). The first rejected
        hop is named: the last hop's own refuses this entry (the core unchanged); an
        earlier one — already in the log, signed by its shuffler — stops the game."""
        if r.deck.seats[-1] != author:
            r.deck.on_shuffle(author, payload, defer=self.pipeline)
            for hop in r.deck.unchecked_hops()[len(r.checks):]:
                r.checks.append((hop, self.checker.submit(self.game_id, hop)))
            return
        trial = r.deck.fork()
        trial.on_shuffle(author, payload, defer=self.pipeline)
        checks = list(r.checks)
        for hop in trial.unchecked_hops()[len(checks):]:
            # the last hop's verdict is the one waited for: the checker may use every core
            checks.append((hop, self.checker.submit(self.game_id, hop,
                                                    last=hop.seat == author)))
        for hop, verdict in checks:
            try:
                trial.settle_hop(hop, verdict.result())
            except CheatDetected as e:
                if e.seat == author:
                    raise
                r.deck, r.checks = trial, []
                self._stop(GameError(e.seat, e.step, e.reason))
                return
        r.deck, r.checks = trial, []
        r.stage = "deal"

    def _apply_prove(self, r: RoundState, author: int, payload: DeckMessage) -> None:
        """GAME.md "abandon" step 2, a game dealt without shuffle proofs: a seat present
        proves its hop of the round the abandonment cut short — the proof it would have
        carried, checked like one (by the checker: a worker). Once every seat present
        has, the round's record is made from what the log reads; nobody opens a seed.
        A proof that does not verify is refused naming its author (nothing changes)."""
        self._expect(r.stage == "prove", author, "prove", "no hop proof is due (only a "
                     "round cut short, dealt without shuffle proofs, is proved after it)")
        hop = r.deck.hop_proof_check(author, payload)
        r.deck.on_hop_proof(hop, self.checker.submit(self.game_id, hop, last=True).result())
        if set(self.members()) <= r.deck.proved:
            self._audit(r)

    def _stop(self, verdict: GameError) -> None:
        """The entry just applied convicts a seat: the game is over, with this verdict."""
        self.verdict = verdict
        self.finished = True

    @staticmethod
    def _expect(ok: bool, author: int, step: str, why: str) -> None:
        if not ok:
            raise OutOfTurn(author, step, f"out of turn: {why}")

    def _apply_shares(self, r: RoundState, author: int, body: SharesBody) -> None:
        payload = body.deck
        if body.purpose == "deal":
            self._expect(r.stage == "deal", author, "shares", "no deal now")
            if author in r.dealt_by:
                raise GameError(author, "shares", "duplicate deal shares")
            want = self.deal_slots(author)
            if body.slots != tuple(want):
                raise GameError(author, "shares", "deal shares must cover exactly every dealt "
                                "slot but the sender's own, and the first discard")
            if body.count != len(want):
                raise GameError(author, "shares", "deal shares: expected one share per slot")
            # The deal's proofs are checked together when the last seat's shares arrive
            # (one combined check instead of N): nobody can read a card before that anyway.
            if len(r.dealt_by) + 1 < len(r.deck.seats):
                r.deal_buffer.append((author, payload))
                r.dealt_by.add(author)
                return
            # On a fork: a failed batch must leave the deck unchanged (it applies the good
            # messages before the bad one), or a corrected retry would meet them as
            # duplicates and blame their honest senders.
            trial = r.deck.fork()
            try:
                trial.on_shares_batch([*r.deal_buffer, (author, payload)], "deal")
            except CheatDetected as e:
                if e.seat is None or e.seat == author:
                    raise
                # This entry completes the deal, and an earlier dealer's shares fail: that
                # signed message is in the log already; the game stops naming its sender.
                r.dealt_by.add(author)
                self._stop(GameError(e.seat, "shares", e.reason))
                return
            r.deck = trial
            r.deal_buffer = []
            r.dealt_by.add(author)
            self._start_play(r)
        else:
            d = r.draw
            if r.stage != "play" or d is None or author not in d[2]:
                raise OutOfTurn(author, "shares", "out of turn: no draw share is due from "
                                "this seat")
            if body.slots != (d[1],):
                raise GameError(author, "shares", f"a draw share must be for slot {d[1]}")
            r.deck.on_shares(author, payload, "draw")
            d[2].discard(author)
            if not d[2]:
                r.draw = None
                if d[0] in self.open_seats:  # R8.6: an open seat draws face up
                    r.public.add(d[1])
                    self._learn(d[1])
                elif self.seat == d[0]:
                    self._learn(d[1])

    def _learn(self, slot: int) -> None:
        assert self.round is not None
        face = self.round.deck.card(slot)
        if face is None:  # pragma: no cover - all shares are in
            raise GameError(None, "decrypt", f"slot {slot} cannot be read")
        self.engine.reveal(slot, face)

    def _start_play(self, r: RoundState) -> None:
        dealt = self._dealt()
        first = r.deck.card(dealt)
        if first is None:  # pragma: no cover - every seat's share is in
            raise GameError(None, "deal", "the first discard cannot be read")
        faces: list[int | None] = [None] * 104
        faces[dealt] = first
        for slot in range(dealt):
            owner = (self.engine.dealer + 1 + slot) % self.n
            if owner in self.open_seats:  # R8.6: dealt face up, every member shared it
                faces[slot] = r.deck.card(slot)
                r.public.add(slot)
            elif owner == self.seat:
                faces[slot] = r.deck.card(slot)
        self.engine.start_round(faces)
        r.public.add(dealt)
        r.stage = "play"

    def _apply_move(self, r: RoundState, author: int, body: MoveBody) -> None:
        """A move carries no share (R8.1). What needs no hidden face is checked now: the
        turn, the slots in the mover's hand, the move's structure (Game.check_blind). A
        move that plays a card not yet public then waits for its mover's ``reveal``."""
        self._expect(r.stage == "play", author, "move", "no move is expected now")
        if r.pending is not None:
            raise OutOfTurn(author, "move", f"out of turn: {self.players[r.pending.seat]}'s "
                            f"reveal of slots {r.pending.slots} is still due")
        if r.draw is not None:
            raise OutOfTurn(author, "move", "out of turn: draw shares are still due from "
                            + ", ".join(self.players[s] for s in sorted(r.draw[2])))
        action = self._check_move(author, body.action)
        hidden = sorted({s for s in played_slots(action) if s not in r.public})
        if hidden:
            try:
                self.engine.check_blind(action)
            except IllegalMove as e:
                raise GameError(author, "move", str(e)) from e
            r.pending = Pending(author, action, hidden)
            return
        drawn = self.engine.pile_top if isinstance(action, DrawPile | BonusDraw) else None
        try:
            self.engine.apply(action)
        except (IllegalMove, ValueError) as e:
            raise GameError(author, "move", str(e)) from e
        self._moved(r, author, action, drawn)

    def _check_move(self, author: int, action: Action) -> Action:
        """What a host checks of a parsed move (:func:`parse_move`) with no hidden face:
        its seat is its signer's, it is that seat's turn, it plays cards of its hand."""
        if action.seat != author:
            raise GameError(author, "move", f"a move for seat {action.seat} signed by seat "
                            f"{author}")
        if author != self.engine.actor:
            raise OutOfTurn(author, "move", f"out of turn: it is seat {self.engine.actor}'s turn")
        hand = set(self.engine.hands[author])
        for s in played_slots(action):
            if s not in hand:
                raise GameError(author, "move", f"R4.3: slot {s} is not in seat {author}'s hand "
                                "(a card it does not hold)")
        return action

    def _apply_reveal(self, r: RoundState, author: int, body: RevealBody) -> None:
        """The mover's shares of its ordered move's cards: now every peer reads them and
        applies the move. If the open cards break the rules, the mover signed a cheat:
        the reveal is applied and the game stops naming it (GAME.md, Verdicts)."""
        p = r.pending
        if r.stage != "play" or p is None:
            raise OutOfTurn(author, "reveal", "out of turn: no reveal is due")
        if author != p.seat:
            raise OutOfTurn(author, "reveal", f"out of turn: the reveal is "
                            f"{self.players[p.seat]}'s")
        if body.slots != tuple(p.slots):
            raise GameError(author, "reveal", f"the reveal must be of slots {p.slots}, the "
                            "played cards not yet public, in increasing order")
        trial = r.deck.fork()
        trial.on_shares(author, body.deck, "reveal")
        faces = {s: f for s in p.slots if (f := trial.card(s)) is not None}
        if len(faces) != len(p.slots):  # pragma: no cover - every other share is in
            raise GameError(author, "reveal", "the revealed cards cannot be read")
        for s, f in faces.items():
            known = self.engine.faces[s]
            if known is not None and known != f:  # pragma: no cover - one deck, one face
                raise GameError(None, "decrypt", f"slot {s} reads as card {f}, known as {known}")
        r.deck = trial
        r.pending = None
        r.public.update(p.slots)
        for s, f in faces.items():
            self.engine.reveal(s, f)
        try:
            self.engine.apply(p.action)
        except (IllegalMove, ValueError) as e:
            self._stop(GameError(author, "move", f"its move {action_to_dict(p.action)}, "
                                 f"ordered and now revealed, breaks the rules: {e}"))
            return
        self._moved(r, author, p.action, None)

    def _moved(self, r: RoundState, author: int, action: Action, drawn: int | None) -> None:
        r.actions.append(action)
        r.event_actors.append((len(self.engine.events), author))
        if drawn is not None and self.engine.phase not in ("round_over", "game_over"):
            r.draw = (author, drawn, set(r.deck.seats) - {author})
        if self.engine.phase in ("round_over", "game_over"):
            r.stage = "open"

    def _apply_accuse(self, r: RoundState, author: int, body: AccuseBody,
                      at: Position | None) -> None:
        """``author`` shows the host's signed refusal of its move, made at the log head
        this entry follows, and the move: if that move passes every check a host can
        make (its signature and counter, the turn, the cards in the hand, the structure —
        Game.check_blind), the host refused a legal move and the game stops naming the
        host. Anything less is a false accusation, refused naming its author."""
        def false(why: str) -> GameError:
            return GameError(author, "accuse", f"not an accusation of the host: {why}")

        if author == self.host:
            raise false("the host cannot accuse itself")
        if self.keys is None or at is None:
            raise false("this peer cannot check it (no keys or log position)")
        raw, msg, sig = body.refusal, body.msg, body.sig
        try:
            refusal = check_refusal(raw, game_id=self.game_id, host_key=self.keys[self.host])
            m = parse_message(msg)
        except (LogError, DecodeError) as e:
            raise false(str(e)) from None
        if refusal.msg_hash != message_hash(msg, sig):
            raise false("the refusal names another message")
        if refusal.seat != author:
            raise false(f"the host refused it on seat {refusal.seat}'s connection")
        if (m.game_id != self.game_id or m.author != author or m.kind != "move"
                or not verify(self.keys[author], msg, sig)):
            raise false("msg is not a move signed by the accuser in this game")
        if m.counter != at.counter:
            raise false(f"the refused move has counter {m.counter}, not the accuser's next "
                        f"({at.counter})")
        seen = m.seen  # TRANSCRIPT.md §3: an entry of this log before the move's position
        held = at.prev if seen.seq == at.seq - 1 else self._hashes.get(seen.seq)
        if seen.seq >= at.seq or held != seen.hash:
            raise false(f"the refused move names entry {seen.seq} as seen, which is not an "
                        f"entry of this game's play before entry {at.seq} with that hash "
                        "(TRANSCRIPT.md §3): the host had to refuse it")
        if (refusal.seq, refusal.head) != (at.seq, at.prev):
            # Nothing in between, not even chat: then the game and the accuser's counter
            # are what they were when the host refused the move.
            raise false(f"the refusal was made at entry {refusal.seq}, not right before "
                        f"this one ({at.seq})")
        try:
            check_ints(author, "move", m.body, INT_FIELDS["move"])  # WIRE.md §4
            rnd = m.body.get("round")
            if not is_int(rnd) or rnd != r.number:
                raise GameError(author, "move", f"a move for round {rnd!r}")
            self._expect(r.stage == "play" and r.pending is None and r.draw is None, author,
                         "move", "no move was expected")
            action = self._check_move(author, parse_move(author, m.body).action)
            if any(s not in r.public for s in played_slots(action)):
                self.engine.check_blind(action)
            else:
                self.engine.check(action)  # every card public: the host could check it all
        except (GameError, IllegalMove) as e:
            raise false(f"the move was rightly refused ({e})") from None
        self._stop(GameError(self.host, "accuse", f"the host refused {self.players[author]}'s "
                             f"legal move {action_to_dict(action)} at entry {refusal.seq} "
                             f"(its signed refusal said {refusal.code!r}: {refusal.reason!r})"))

    def _audit(self, r: RoundState) -> None:
        # The last opening is a valid entry; what the audit finds convicts someone else
        # (or its author for an earlier message): the game stops with that verdict.
        try:
            faces: list[int | None] = (list(r.deck.audit()) if r.cut is None
                                       else self._readable_faces(r))
        except CheatDetected as e:  # pragma: no cover - an opening names the shuffler first
            self._stop(GameError(e.seat, "audit", e.reason))
            return
        if r.aborted is not None:
            self._stop(GameError(r.alarm_by, "alarm", f"false alarm: every seed and hop "
                                 f"checks out (the alarm said: {r.aborted})"))
            return
        rec = self.recorder
        try:
            rec.start_round(faces)
        except IllegalMove as e:  # pragma: no cover - deal is fixed by position
            raise GameError(None, "audit", str(e)) from e
        for a in r.actions:
            try:
                rec.apply(a)
            except IllegalMove as e:  # pragma: no cover - moves only use visible cards
                self._stop(GameError(a.seat, "audit", f"with every card open, move "
                                     f"{action_to_dict(a)} breaks the rules: {e}"))
                return
        if r.cut is not None:
            rec.end_abandoned(r.cut)  # R8.6: the round ended there, scored as it stood
        r.faces = faces
        r.stage = "done"
        if self.engine.phase == "game_over":
            self.finished = True
            self.round = None
        else:
            self._new_round()

    @staticmethod
    def _readable_faces(r: RoundState) -> list[int | None]:
        """The faces of a round cut short by an abandonment (R8.6) — without shuffle
        proofs once the seats present have opened: every slot but those that need the
        leaver's missing share (its own hand, a draw it never shared, the pile); with
        proofs nobody opens, so every slot but those whose shares are not all in the log
        (every hand's unplayed cards, the pile) — those stay unknown for good, to every
        peer alike (their holders' cores included: the record is public)."""
        return [r.deck.public_card(s) for s in range(r.deck.size)]

    @property
    def record(self) -> dict[str, Any]:
        return self.recorder.record


def pledge_position(kind: str, body: dict[str, Any]) -> tuple[int, str] | None:
    """GAME.md "Pledges": the position (round, step) this seat pledged a deck at before it
    made an entry of ``kind`` with ``body`` — a hop ("shuffle"), deal or draw shares and a
    reveal ("shares"), an opening ("open"), a late hop proof (the hop's: "shuffle"), as
    :meth:`GameCore.outbox` pledges them — or
    None for an entry not derived from its seed on a deck. A seat's own such entry in the
    log proves the pledge was made (the node checks its saved file against it)."""
    step = {"shuffle": "shuffle", "shares": "shares", "reveal": "shares",
            "open": "open", "prove": "shuffle"}.get(kind)
    rnd = body.get("round")
    if step is None or isinstance(rnd, bool) or not isinstance(rnd, int):
        return None
    return rnd, step
