"""High Card on the fair deck (README.md "On the fair deck"), sans-IO: one seat's core,
the :class:`splitnet.game.table.NetCore` the table, the host, the joiner and the verifier
drive — exactly the interface Split's GameCore and Splito's SplitoCore give.

One deal, every message for ``"round": 1``::

    commit   every seat         its deck key share (DeckRound.commit_message)
    shuffle  seats 0 … n−1      its hop of the 16-card deck, with its proof (if proofs)
    deal     every seat         its shares of every dealt slot but its own hand's (H3)
    move     the seat to play   {"trick", "slot", "share"}: the card played, with the
                                holder's own share of its slot, so every peer reads it
    open     every seat         its seed, after the last trick → audit → the record
    chat, timeout               as every game (GAME.md); abandon is refused (H6)

A message the game refuses raises GameError naming the seat at fault, the core
unchanged; the host's timeout stops the game with a verdict naming the late seat.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from enum import Enum
from typing import Any, Final

from splitnet.crypto.deck import DeckRound
from splitnet.crypto.elgamal import card_table, initial_deck
from splitnet.crypto.errors import CheatDetected, DeckUsageError
from splitnet.game.table import (
    GameError,
    Limits,
    MemoryPledges,
    OutOfTurn,
    Pledge,
    PledgeBook,
    PledgeRefused,
    Position,
    WrongRound,
    check_timeout,
    check_waited,
    naming,
    proof_functions,
)
from splitnet.session.codec import is_int
from tests.third_game.bodies import (  # KINDS, INT_FIELDS: where callers found them
    BODIES,
    INT_FIELDS,  # noqa: F401
    KINDS,  # noqa: F401
    AbandonBody,
    ChatBody,
    CommitBody,
    DealBody,
    MoveBody,
    OpenBody,
    ShuffleBody,
    TimeoutBody,
    parse,
)
from tests.third_game.record import build_record
from tests.third_game.rules import DECK, Game, IllegalMove, Settings, dealt_slots, name

ROUND: Final = 1
#: the card points of this game's deck (not Split's nor Splito's)
DOMAIN_CARD: Final = b"splitnet/tests/highcard/v1/card"


class Stage(Enum):
    KEYS = "committing keys"
    SHUFFLE = "shuffling"
    DEAL = "dealing"
    PLAY = "playing"
    OPEN = "opening for the audit"
    OVER = "over"


class HighCardCore:
    """One peer's High Card game on the fair deck (``seat`` None: an observer)."""

    def __init__(self, game_id: bytes, players: Sequence[str], settings: Settings,
                 seat: int | None, seeds: Callable[[int], bytes] | None = None, *,
                 host: int = 0, first_dealer: int = 0, proofs: bool = True,
                 pledges: PledgeBook | None = None, limits: Limits | None = None) -> None:
        if len(players) != settings.players:
            raise ValueError(f"the settings are for {settings.players} players, not "
                             f"{len(players)} (H2)")
        self.game_id = game_id
        self.players = list(players)
        self.n = len(players)
        self.settings = settings
        self.seat = seat
        self.host = host
        self.first_dealer = first_dealer
        self.shuffle_proofs = proofs
        self.limits = limits if limits is not None else Limits()
        self.pledges: PledgeBook = pledges if pledges is not None else MemoryPledges()
        self.refused: PledgeRefused | None = None
        self.open_seats: set[int] = set()  # H6: no seat is ever given up
        self.finished = False
        self.verdict: GameError | None = None
        self._record: dict[str, Any] | None = None
        self.chat: list[tuple[int, str]] = []
        self._seed = seeds(ROUND) if seeds is not None and seat is not None else None
        prove, verify = proof_functions(game_id, self._seed) if proofs else (None, None)
        self.deck = DeckRound(game_id, ROUND, self.n, seat if self._seed else None, self._seed,
                              shuffle_prover=prove, shuffle_verifier=verify,
                              initial=initial_deck(game_id, DECK, DOMAIN_CARD),
                              table=card_table(game_id, DECK, DOMAIN_CARD), card_name=name)
        self.stage = Stage.KEYS
        #: this seat's view: its own hand's faces, and every card played
        self.engine = Game(settings, first_dealer)
        self.committed: set[int] = set()
        self.dealt_by: set[int] = set()
        self.opened: set[int] = set()
        #: what outbox() produced, by key; a reconnect forgets it (forget_unlogged)
        self._sent: set[tuple[Any, ...]] = set()
        #: our moves made so far, by (trick, plays before ours in it)
        self._moves: dict[tuple[int, int], dict[str, Any]] = {}

    # ------------------------------------------------------------------ reading
    @property
    def record(self) -> dict[str, Any] | None:
        return self._record

    @property
    def round_number(self) -> int | None:
        return None if self.finished else ROUND

    def _position(self) -> tuple[int, int]:
        return self.engine.trick_number, len(self.engine.current)

    def waiting_for(self) -> list[int]:
        if self.finished:
            return []
        if self.stage is Stage.KEYS:
            return [s for s in range(self.n) if s not in self.committed]
        if self.stage is Stage.SHUFFLE:
            nxt = self.deck.next_shuffler()
            return [] if nxt is None else [nxt]
        if self.stage is Stage.DEAL:
            return [s for s in range(self.n) if s not in self.dealt_by]
        if self.stage is Stage.PLAY:
            turn = self.engine.turn()
            return [] if turn is None else [turn]
        return [s for s in range(self.n) if s not in self.opened]

    def progress(self) -> str:
        if self.verdict is not None:
            return f"game stopped: {self.verdict}"
        if self.finished:
            return "game over"
        who = ", ".join("you" if s == self.seat else self.players[s]
                        for s in self.waiting_for())
        what = (f"trick {self.engine.trick_number} of {self.settings.hand}"
                if self.stage is Stage.PLAY else self.stage.value)
        return f"{what}: waiting for {who}" if who else what

    def owed_step(self, seat: int) -> str:
        return {Stage.KEYS: "commit", Stage.SHUFFLE: "shuffle", Stage.DEAL: "deal",
                Stage.PLAY: "move", Stage.OPEN: "open"}.get(self.stage, "open")

    def abandon_refusal(self, seat: int) -> str | None:
        return ("H6: High Card gives no seat up; a seat gone for good stops the game (the "
                "host's timeout names it)")

    def can_move(self) -> bool:
        """May this seat choose its card now (its turn, and no move of its in flight)?"""
        return (self.seat is not None and self._seed is not None and not self.finished
                and self.refused is None and self.stage is Stage.PLAY
                and self.engine.turn() == self.seat and self._position() not in self._moves)

    # ------------------------------------------------------------------ producing
    def _pledge(self, step: str, digest: bytes | None) -> None:
        """GAME.md "Pledges": the deck a message derived from our seed is on is made
        durable before the message leaves; another deck there is refused for good."""
        assert digest is not None
        have = self.pledges.pledged(ROUND, step)
        if have is None:
            self.pledges.pledge(Pledge(ROUND, step, digest))
        elif have != digest:
            self.refused = PledgeRefused(self.host, ROUND, step, "the deck is not the one we "
                                         "already sent messages on")
            raise self.refused

    def move_message(self, slot: int) -> dict[str, Any]:
        """Our play of ``slot`` (IllegalMove if the rules refuse it): the card's slot and
        our share of it, which lets every peer read it (H4.2)."""
        if not self.can_move():
            raise IllegalMove("H4.2", "you cannot play now")
        assert self.seat is not None
        self.engine.check(self.seat, slot)
        self._pledge("shares", self.deck.final_digest)
        body = {"round": ROUND, "trick": self.engine.trick_number, "slot": slot,
                "share": self.deck.shares_message([slot], "reveal")}
        self._moves[self._position()] = body
        self._sent.add(("move", self._position()))
        return body

    def outbox(self) -> list[tuple[str, dict[str, Any]]]:
        """The protocol messages this seat owes now (never its choice of card; a move
        made but not in the log after a reconnect goes again, unchanged)."""
        seat = self.seat
        if seat is None or self._seed is None or self.finished or self.refused is not None:
            return []
        out: list[tuple[str, dict[str, Any]]] = []

        def once(key: tuple[Any, ...], kind: str, make: Callable[[], dict[str, Any]]) -> None:
            if key not in self._sent:
                self._sent.add(key)
                out.append((kind, {"round": ROUND, **make()}))

        st = self.stage
        if st is Stage.KEYS and seat not in self.committed:
            once(("commit",), "commit", self.deck.commit_message)
        elif st is Stage.SHUFFLE and self.deck.next_shuffler() == seat:
            def hop() -> dict[str, Any]:
                self._pledge("shuffle", self.deck.input_digest(seat))
                return self.deck.shuffle_message()
            once(("shuffle",), "shuffle", hop)
        elif st is Stage.DEAL and seat not in self.dealt_by:
            def deal() -> dict[str, Any]:
                self._pledge("shares", self.deck.final_digest)
                return self.deck.shares_message(self._deal_slots(seat), "deal")
            once(("deal",), "deal", deal)
        elif st is Stage.PLAY and self.engine.turn() == seat:
            made = self._moves.get(self._position())
            if made is not None:
                once(("move", self._position()), "move",
                     lambda: {k: v for k, v in made.items() if k != "round"})
        elif st is Stage.OPEN and seat not in self.opened:
            def opening() -> dict[str, Any]:
                self._pledge("open", self.deck.final_digest)
                return self.deck.open_message()
            once(("open",), "open", opening)
        return out

    def _deal_slots(self, seat: int) -> list[int]:
        """H3: every dealt slot but ``seat``'s own hand's."""
        return [s for other in range(self.n) if other != seat
                for s in dealt_slots(self.settings, other)]

    # ------------------------------------------------------------------ the node's seams
    def forget_unlogged(self) -> None:
        self._sent = set()

    def move_is_legal(self, body: object) -> bool:
        """Is this the move we made at the position the game is at (a host that refuses
        it refuses a legal move)?"""
        return (not self.finished and self.stage is Stage.PLAY
                and self.engine.turn() == self.seat and isinstance(body, dict)
                and self._moves.get(self._position()) == body)

    def made_by_us(self, kind: str, body: dict[str, Any]) -> bool:
        """For an entry in our own name: is it one we made (a move), or would make now
        (what outbox() makes is a function of our seed and the log)?"""
        if self.seat is None or self._seed is None or self.finished:
            return True
        if kind == "move":
            return body in self._moves.values()
        if kind not in ("commit", "shuffle", "deal", "open"):
            return True
        saved, book = self._sent, self.pledges
        try:
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
        """Apply one ordered entry; GameError (seat at fault) leaves the core unchanged."""
        with naming(author, self.host, at):
            self._apply(author, kind, body)

    def _apply(self, author: int, kind: str, raw: dict[str, Any]) -> None:
        if self.finished:
            raise GameError(author, kind, "the game is over")
        if not 0 <= author < self.n:
            raise GameError(None, kind, f"no seat {author}")
        BODIES.check(author, kind, raw)  # a kind High Card knows; no bool for an int
        if kind != "chat" and (not is_int(raw.get("round")) or raw.get("round") != ROUND):
            raise WrongRound(author, kind, "a High Card game has one deal, round 1")
        body = parse(author, kind, raw, checked=True)  # from here on, only the typed body
        try:
            match body:
                case ChatBody(text=text):
                    self.chat.append((author, text))
                case TimeoutBody():
                    seat, waited = check_timeout(author, body, self.host, self.waiting_for())
                    step = self.owed_step(seat)
                    check_waited(author, "timeout", waited, self.limits.for_step(step),
                                 "timeout")
                    self.verdict = GameError(seat, step, f"did not answer for {waited} s "
                                             "(timed out by the host); the game stops")
                    self.finished = True
                case AbandonBody():
                    raise GameError(author, "abandon", self.abandon_refusal(0) or "")
                case CommitBody(deck=msg):
                    self._expect(self.stage is Stage.KEYS, author, "commit", "keys are in")
                    self.deck.on_commit(author, msg)
                    self.committed.add(author)
                    if len(self.committed) == self.n:
                        self.stage = Stage.SHUFFLE
                case ShuffleBody(deck=msg):
                    self._expect(self.stage is Stage.SHUFFLE, author, "shuffle",
                                 "no shuffle now")
                    self.deck.on_shuffle(author, msg)
                    if self.deck.shuffled:
                        self.stage = Stage.DEAL
                case DealBody():
                    self._apply_deal(author, body)
                case MoveBody():
                    self._apply_move(author, body)
                case OpenBody(deck=msg):
                    self._expect(self.stage is Stage.OPEN, author, "open",
                                 "the tricks are not over")
                    self.deck.on_open(author, msg)
                    self.opened.add(author)
                    if len(self.opened) == self.n:
                        self._audit()
        except CheatDetected as e:
            raise GameError(e.seat if e.seat is not None else author, e.step, e.reason) from e
        except DeckUsageError as e:
            raise GameError(author, kind, str(e)) from e

    def _expect(self, ok: bool, author: int, step: str, why: str) -> None:
        if not ok:
            raise OutOfTurn(author, step, f"out of turn: {why}")

    def _apply_deal(self, author: int, body: DealBody) -> None:
        self._expect(self.stage is Stage.DEAL and author not in self.dealt_by, author, "deal",
                     "no deal from this seat now")
        if body.shares.slots != tuple(self._deal_slots(author)):
            raise GameError(author, "deal", "H3: shares of every dealt slot but the "
                            "sender's own hand")
        self.deck.on_shares(author, body.shares.msg, "deal")
        self.dealt_by.add(author)
        if len(self.dealt_by) < self.n:
            return
        if self.seat is not None and self._seed is not None:  # our hand: now readable
            for slot in dealt_slots(self.settings, self.seat):
                card = self.deck.card(slot)
                assert card is not None
                self.engine.faces[slot] = card
        self.stage = Stage.PLAY

    def _apply_move(self, author: int, body: MoveBody) -> None:
        self._expect(self.stage is Stage.PLAY and self.engine.turn() == author, author,
                     "move", f"H4.2: it is not seat {author}'s turn")
        if body.trick != self.engine.trick_number:
            raise GameError(author, "move", f"a move is exactly trick (now "
                            f"{self.engine.trick_number}), slot and share")
        slot = body.slot
        if slot not in self.engine.hand(author):
            raise GameError(author, "move", f"H4.2: slot {slot!r} is not a card it holds")
        if body.share.slots != (slot,):
            raise GameError(author, "move", "the share is of the slot played, alone")
        deck = self.deck.fork()  # checked whole before anything changes
        deck.on_shares(author, body.share.msg, "reveal")
        card = deck.card(slot)
        if card is None:  # pragma: no cover - every other share came with the deal
            raise GameError(author, "move", f"slot {slot} cannot be read")
        self.deck = deck
        self.engine.play(author, slot, card)
        if self.engine.finished:
            self.stage = Stage.OPEN

    def _audit(self) -> None:
        """Every seed open: the deck decrypted whole, every hop and share re-made from the
        seeds (DeckRound.audit), the record from the full knowledge (H7)."""
        cards = self.deck.audit()
        hands = [[cards[s] for s in dealt_slots(self.settings, seat)]
                 for seat in range(self.n)]
        self._record = build_record(self.game_id.hex(), self.players, self.settings,
                                    self.first_dealer, hands, self.engine.tricks)
        self.stage = Stage.OVER
        self.finished = True
