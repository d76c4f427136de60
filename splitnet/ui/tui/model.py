"""The table's presenter: what the screen shows and what a key means.

Everything here is derived from the session (``players``, ``seat``, ``status``, ``log``,
``verdict``) and from read-only looks at the seat's own engine (``session.view``). Which
cards light up, which row cards may be taken, which matches an upgrade may cover — all of
it comes from ``view.legal_moves(seat)``; the presenter holds no rule of its own. A key
turns the player's selection into one move; when the selection is ambiguous the legal
moves are only used to *complete* it, and a move the engine refuses comes back as its
IllegalMove message (with the rule number) and changes nothing.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Literal

from prompt_toolkit.output import ColorDepth

from splitnet.cards import card_id, pretty, rank, suit
from splitnet.frontend import HoldsMoves, OffersOpenHand, TableSession
from splitnet.games.split.rules import (
    Action,
    BonusDraw,
    BonusMark,
    BonusSwap,
    Discard,
    DrawPile,
    EndLateLays,
    Game,
    IllegalMove,
    LateLay,
    Lay,
    Match,
    SkipBonus,
    TakeRow,
    Upgrade,
)
from splitnet.ui.tui.summary import RoundSummary

Area = Literal["table", "row", "hand"]
AREAS: tuple[Area, ...] = ("table", "row", "hand")
LABELS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
KIND_LETTER = {"perfect": "P", "strong": "S", "weak": "W"}


@dataclass
class Note:
    """One line for the player: an engine refusal (``error``) or a hint about keys."""

    text: str
    kind: Literal["error", "hint", "info"] = "hint"


def give_up_key(offer: tuple[int, int] | None, rule: str) -> tuple[int | None, Note | None]:
    """What the host's first ``o`` does: (the seat it now asks to confirm, None) while
    its session offers one (``offer``, seat and seconds), else (None, a note saying what
    ``o`` is for; ``rule``: the game's rule for a seat given up)."""
    if offer is not None:
        return offer[0], None
    return None, Note("o gives up the seat of a player the game has waited for, "
                      f"disconnected, for a while (the host only, {rule})")


@dataclass(frozen=True)
class Legal:
    """The engine's legal moves for the seat, sorted by what the screen needs."""

    moves: tuple[Action, ...]
    draw: bool
    takeable: frozenset[int]
    lays: tuple[Lay | LateLay, ...]
    upgrades: tuple[Upgrade, ...]
    discards: frozenset[int]
    marks: tuple[int, ...]
    bonus_draw: bool
    skip: bool
    swaps: tuple[BonusSwap, ...]
    end_late: bool

    @classmethod
    def of(cls, moves: list[Action]) -> Legal:
        return cls(
            moves=tuple(moves),
            draw=any(isinstance(m, DrawPile) for m in moves),
            takeable=frozenset(m.index for m in moves if isinstance(m, TakeRow)),
            lays=tuple(m for m in moves if isinstance(m, Lay | LateLay)),
            upgrades=tuple(m for m in moves if isinstance(m, Upgrade)),
            discards=frozenset(m.slot for m in moves if isinstance(m, Discard)),
            marks=tuple(m.target for m in moves if isinstance(m, BonusMark)),
            bonus_draw=any(isinstance(m, BonusDraw) for m in moves),
            skip=any(isinstance(m, SkipBonus) for m in moves),
            swaps=tuple(m for m in moves if isinstance(m, BonusSwap)),
            end_late=any(isinstance(m, EndLateLays) for m in moves),
        )

    @property
    def playable(self) -> frozenset[int]:
        """Hand slots that some legal lay or upgrade uses."""
        out: set[int] = set()
        for m in self.lays:
            out.update((m.a, m.b))
        out.update(u.slot for u in self.upgrades)
        return frozenset(out)

    def partners(self, slot: int) -> frozenset[int]:
        """Hand slots that a legal lay pairs with ``slot``."""
        return frozenset((m.b if m.a == slot else m.a) for m in self.lays if slot in (m.a, m.b))

    def covers(self, slot: int | None) -> frozenset[tuple[int, int]]:
        """(match id, half) pairs a legal upgrade covers — with ``slot``, or with any card."""
        return frozenset((u.match_id, u.covers) for u in self.upgrades
                         if slot is None or u.slot == slot)


#: the hint key's adviser: (this seat's view, seat) → (the move, its reason in words),
#: or None when it has nothing to say. It runs on a copy of the view, in a thread.
Hinter = Callable[[Game, int], tuple[Action, str] | None]


@dataclass(frozen=True)
class Confirm:
    """A move that cannot be taken back and that the player did not spell out (a card
    under the cursor, not selected): it is played only when ``key`` is pressed again."""

    key: str
    action: Action
    text: str


Intent = Action | Note | Confirm | None


class TableModel:
    """UI state (focus, cursors, selection, notes, overlays) over a :class:`TableSession`."""

    def __init__(self, session: TableSession) -> None:
        self.session = session
        self.area: Area = "hand"
        self.hand_cursor = 0
        self.row_cursor = 0
        self.table_cursor: tuple[int, int] | None = None  # (match id, half)
        self.selected: list[int] = []  # hand slots, in the order chosen
        self.marked_match: int | None = None  # one of your matches, to give in a swap
        self.note: Note | None = None
        self.overlay: Literal["help", "summary", "final"] | None = None
        self.scroll = 0
        self.log_back = 0  # how many of the newest log entries are scrolled out of view
        self.summaries: list[RoundSummary] = []
        self.summary_index = -1
        self.confirm_quit = False
        #: a move waiting for its key to be pressed a second time (see Confirm)
        self.confirm: Confirm | None = None
        #: the h key's advice, shown until the player moves or the game moves on (a
        #: message or a question shows over it meanwhile); :meth:`take_advice`
        self.hint: Note | None = None
        self._hint_at: tuple[int, str, int, int | None] | None = None
        #: our t was accepted and the card taken is to be selected once the view has it
        self._taking = False
        self.busy = False
        #: hand slot → letter index; letters stay put while a turn of ours is played
        self._letters: dict[int, int] = {}
        #: the next letter index never given this turn (a played card's stays unused)
        self._next_letter = 0
        self._dealers: dict[int, int] = {}  # round number → its dealer
        #: weak bonus: the other player's match chosen to take (then: which of ours)
        self.swap_take: int | None = None
        #: the command that brings the player back (a LAN game), else None
        self.rejoin: str | None = None
        #: the end screen offers a new game against the same players
        self.rematch_offered = False
        #: the host pressed o once: this seat is given up for gone if o comes again (R8.6)
        self.confirm_open: int | None = None
        #: a render pass number; legal moves are computed once per pass (None: every call)
        self.stamp: int | None = None
        self._legal: tuple[int, Legal] | None = None
        self._digits = ""
        self._digits_at = 0.0
        self._my_draw = False
        self._verdict = session.verdict
        #: no colours (NO_COLOR): highlights are underlined / reversed instead
        self.mono = ColorDepth.from_env() == ColorDepth.DEPTH_1_BIT
        # the rounds that ended before this table was made (a resumed game: its saved log
        # was replayed first), as the session kept them
        for kept in getattr(session, "ended_rounds", None) or []:
            summary = RoundSummary.capture(kept.view, self.players, self.seat, kept.verdict)
            if summary is not None:
                summary.dealer = kept.dealer
                self.summaries.append(summary)
        self.summary_index = len(self.summaries) - 1

    # ------------------------------------------------------------------ reading
    @property
    def view(self) -> Game:
        return self.session.view

    @property
    def seat(self) -> int:
        return self.session.seat

    @property
    def players(self) -> list[str]:
        return self.session.players

    def name(self, seat: int) -> str:
        return "You" if seat == self.seat else self.players[seat]

    def number(self, seat: int) -> int:
        """The number the screen shows for ``seat`` and the key that names its player
        (the session's ``numbers``)."""
        return self.session.numbers[seat]

    def numbered(self, key: int) -> int | None:
        """The seat whose player has number ``key``, if any."""
        return next((s for s, k in enumerate(self.session.numbers) if k == key), None)

    def number_keys(self, seats: Iterable[int]) -> str:
        """The keys naming these seats' players: ``2-4``, or ``1,3`` when not a run."""
        keys = sorted(self.number(s) for s in seats)
        if len(keys) > 1 and keys == list(range(keys[0], keys[-1] + 1)):
            return f"{keys[0]}-{keys[-1]}"
        return ",".join(map(str, keys))

    def my_turn(self) -> bool:
        return self.view.actor == self.seat

    def hold(self) -> str | None:
        """Why no move of ours can be made now although the engine says the turn is ours
        (a LAN seat whose host is out of reach, or whose move is on its way to it), in
        one sentence; None otherwise. The table then says this instead of "your turn"
        and a move key says it instead of sending."""
        s = self.session
        if not self.my_turn() or s.finished or not isinstance(s, HoldsMoves):
            return None
        return s.move_hold()

    def hold_note(self, hold: str) -> Note:
        """What a move key says while :meth:`hold` holds the move."""
        return Note(f"Nothing sent: {hold[0].lower()}{hold[1:]}")

    def moment(self) -> tuple[int, str, int, int | None]:
        """Where the game is: advice given at one moment is for that moment only."""
        v = self.view
        return (v.round_no, v.phase, len(v.events), v.actor)

    def open_hand_offer(self) -> tuple[int, int] | None:
        """(seat, seconds) the host may play open-handed now (R8.6; a LAN host's
        session), else None."""
        s = self.session
        if isinstance(s, OffersOpenHand) and not s.finished:
            return s.open_hand_offer()
        return None

    def open_hand_line(self) -> str | None:
        """The host's line naming the seat gone for good and the key that gives it up."""
        offer = self.open_hand_offer()
        if offer is None:
            return None
        who = self.players[offer[0]]
        return (f"{who} has been disconnected for {offer[1]} s and the game waits for "
                f"them — o plays {who}'s seat open-handed (R8.6), or wait for them.")

    def confirm_open_text(self) -> str:
        assert self.confirm_open is not None
        who = self.players[self.confirm_open]
        return (f"Give {who}'s seat up for gone? This round ends as it stands (dealt again "
                f"if no card is dealt yet) and from now on {who}'s cards are face up, played "
                "by the computer (R8.6). o again confirms, any other key keeps waiting.")

    def legal(self) -> Legal:
        """The engine's legal moves for this seat (the only source of highlights)."""
        if self.stamp is not None and self._legal is not None and self._legal[0] == self.stamp:
            return self._legal[1]
        legal = Legal.of(self.view.legal_moves(self.seat))
        if self.stamp is not None:
            self._legal = (self.stamp, legal)
        return legal

    def _rank_order(self, slots: list[int]) -> list[int]:
        faces = self.view.faces

        def key(slot: int) -> tuple[int, int, int]:
            f = faces[slot]
            return (99, 0, slot) if f is None else (rank(f), suit(f), slot)

        return sorted(slots, key=key)

    def letters_frozen(self) -> bool:
        """During our own turn (after the draw) the hand's letters do not move: a card
        played leaves a gap, a card drawn or taken gets the next free letter. Between our
        turns the hand is sorted again."""
        return self.my_turn() and self.view.phase in ("must_play", "play", "bonus",
                                                       "late_lays")

    def hand_order(self) -> list[int]:
        """The seat's hand in screen order: sorted by rank, then suit (♣ ♦ ♥ ♠), unknown
        faces last — except that during our turn new cards are added at the end."""
        hand = self.view.hands[self.seat]
        if not self.letters_frozen():
            self._letters = {s: i for i, s in enumerate(self._rank_order(hand))}
            self._next_letter = len(hand)
        else:
            letters = {s: i for s, i in self._letters.items() if s in hand}
            if len(letters) != len(hand):
                # counted past every letter given this turn, not from the highest one
                # still in the hand: the last-lettered card played keeps its letter too
                nxt = max(self._next_letter, max(letters.values(), default=-1) + 1)
                for s in self._rank_order([s for s in hand if s not in letters]):
                    letters[s], nxt = nxt, nxt + 1
                self._next_letter = nxt
            self._letters = letters
        return sorted(hand, key=self._letters.__getitem__)

    def letter(self, slot: int) -> str:
        """The letter of a hand card ("·" past Z)."""
        self.hand_order()
        i = self._letters.get(slot, len(LABELS))
        return LABELS[i] if i < len(LABELS) else "·"

    def card(self, slot: int) -> str:
        f = self.view.faces[slot]
        return pretty(f) if f is not None else "??"

    def table_order(self) -> list[Match]:
        """Matches in screen order: by owner's seat, then by id."""
        return sorted(self.view.matches, key=lambda m: (m.owner, m.id))

    def halves(self) -> list[tuple[int, int]]:
        return [(m.id, h) for m in self.table_order() for h in (0, 1)]

    def hand_cursor_slot(self) -> int | None:
        hand = self.hand_order()
        if not hand:
            return None
        return hand[min(self.hand_cursor, len(hand) - 1)]

    def focus_slot(self) -> int | None:
        """The hand card an upgrade or a highlight is about: the single selected card, or
        the card under the hand cursor."""
        if len(self.selected) == 1:
            return self.selected[0]
        if not self.selected and self.area == "hand":
            return self.hand_cursor_slot()
        return None

    # ------------------------------------------------------------------ keeping in step
    def sync(self) -> RoundSummary | None:
        """Bring the UI state in line with the session after a change. Returns a new
        round summary when a round has just ended."""
        view = self.view
        hand = set(view.hands[self.seat])
        self.selected = [s for s in self.selected if s in hand]
        if self.marked_match is not None:
            m = view.match_by_id(self.marked_match)
            if m is None or m.owner != self.seat:
                self.marked_match = None
        self.clamp()
        if view.phase not in ("round_over", "game_over"):
            self._dealers[view.round_no] = view.dealer
        if self.confirm is not None and (not self.my_turn() or self.hold() is not None):
            self.confirm = None
        if self.hint is not None and self._hint_at != self.moment():
            self.hint = None  # the advice was for a moment that has passed
        if self._taking:
            self._select_taken()
        if self.swap_take is not None and not (self.my_turn() and view.pending_bonus == "weak"):
            self.swap_take = None
        new: RoundSummary | None = None
        if view.phase in ("round_over", "game_over") and (
                not self.summaries or self.summaries[-1].round_no != view.round_no):
            new = RoundSummary.capture(view, self.players, self.seat, self.session.verdict)
            if new is not None:
                new.dealer = self._dealers.get(view.round_no)
                self.summaries.append(new)
                self.summary_index = len(self.summaries) - 1
                self.selected = []
                self.marked_match = None
        if self.session.verdict != self._verdict:
            self._verdict = self.session.verdict
            if self.summaries:  # an audit reports after its round ended
                self.summaries[-1].verdict = self._verdict
        self._open_hands()
        my_draw = self.my_turn() and view.phase == "draw"
        if my_draw and not self._my_draw:  # a turn of ours begins: aim at the row
            legal = self.legal()
            self.row_cursor = max(legal.takeable) if legal.takeable else len(view.row) - 1
            if self.note is not None and self.note.kind != "error":
                self.note = None
        self._my_draw = my_draw
        return new

    def _open_hands(self) -> None:
        """After a round's audit every card is open (R8.4): a session that keeps the
        verified game record lets the summary show the other players' hands left."""
        record = getattr(self.session, "record", None)
        if not isinstance(record, dict):
            return
        rounds = record.get("rounds", [])
        for summary in self.summaries:
            if all(f is not None for hand in summary.hands_left for f in hand):
                continue
            if summary.round_no > len(rounds) or "end" not in rounds[summary.round_no - 1]:
                continue
            left = rounds[summary.round_no - 1]["end"]["hands_left"]
            # a card nobody ever read (a round cut short by an abandonment, R8.6): hidden
            summary.hands_left = [[card_id(c) if c is not None else None
                                   for c in left[str(p)]]
                                  for p in range(len(summary.hands_left))]

    def clamp(self) -> None:
        view = self.view
        self.hand_cursor = max(0, min(self.hand_cursor, len(view.hands[self.seat]) - 1))
        self.row_cursor = max(0, min(self.row_cursor, len(view.row) - 1))
        halves = self.halves()
        cur = self.table_cursor
        if not halves:
            self.table_cursor = None
        elif cur is None:
            self.table_cursor = halves[0]
        elif cur not in halves:
            self.table_cursor = min(halves, key=lambda h: abs(h[0] - cur[0]))

    # ------------------------------------------------------------------ navigation
    def move(self, dx: int) -> None:
        self.note = None if self.note and self.note.kind != "error" else self.note
        if self.area == "hand":
            n = len(self.view.hands[self.seat])
            if n:
                self.hand_cursor = (self.hand_cursor + dx) % n
        elif self.area == "row":
            n = len(self.view.row)
            if n:
                self.row_cursor = (self.row_cursor + dx) % n
        else:
            halves = self.halves()
            if halves:
                i = halves.index(self.table_cursor) if self.table_cursor in halves else -dx
                self.table_cursor = halves[(i + dx) % len(halves)]

    def table_vertical(self, step: int) -> bool:
        """↑/↓ on the table: the previous/next match in the same player's column.
        Returns False at the column's end (the caller then leaves the table)."""
        cur = self.table_cursor
        if cur is None:
            return False
        m = self.view.match_by_id(cur[0])
        if m is None:
            return False
        column = [x.id for x in self.table_order() if x.owner == m.owner]
        i = column.index(m.id) + step
        if not 0 <= i < len(column):
            return False
        self.table_cursor = (column[i], cur[1])
        return True

    def home_end(self, end: bool) -> None:
        if self.area == "hand":
            self.hand_cursor = len(self.view.hands[self.seat]) - 1 if end else 0
        elif self.area == "row":
            self.row_cursor = len(self.view.row) - 1 if end else 0
        else:
            halves = self.halves()
            if halves:
                self.table_cursor = halves[-1 if end else 0]
        self.clamp()

    def switch_area(self, step: int, wrap: bool = True) -> None:
        """Move focus between table, row and hand (the table only when it has matches)."""
        areas = [a for a in AREAS if a != "table" or self.view.matches]
        i = areas.index(self.area) if self.area in areas else len(areas) - 1
        j = i + step
        if wrap:
            j %= len(areas)
        self.area = areas[max(0, min(j, len(areas) - 1))]
        self.clamp()

    def set_area(self, area: Area) -> None:
        self.area = area
        self.clamp()

    def toggle(self, slot: int) -> None:
        if slot in self.selected:
            self.selected.remove(slot)
        else:
            self.selected.append(slot)
        self.note = None

    def space(self) -> None:
        """Space: select the card under the cursor (hand), mark your match (table) for a
        swap, or — in the row — nothing but a hint."""
        if self.area == "hand":
            slot = self.hand_cursor_slot()
            if slot is not None:
                self.toggle(slot)
        elif self.area == "table":
            if self.table_cursor is None:
                return
            mid = self.table_cursor[0]
            self.marked_match = None if self.marked_match == mid else mid
        else:
            self.note = Note("t takes the row card under the cursor and every card after it")

    def select_label(self, letter: str) -> None:
        hand = self.hand_order()
        slot = next((s for s in hand if self.letter(s) == letter.upper()), None)
        if slot is not None:
            self.hand_cursor = hand.index(slot)
            self.area = "hand"
            self.toggle(slot)
        elif letter.upper() in LABELS:
            self.note = Note(f"no card has the letter {letter.upper()} now")

    def digit(self, d: str) -> Intent:
        """A number key: names a player for the perfect bonus, picks a match in the weak
        bonus's choice, else picks a row card."""
        marks = self.legal().marks
        if marks:  # the perfect bonus is pending: name a player by their number
            target = self.numbered(int(d))
            if target is None:
                return Note(f"type the number of the player to mark a negative box: "
                            f"{self.number_keys(marks)}")
            return BonusMark(self.seat, target)
        if self.swapping():
            _, ids = self.swap_choices()
            i = int(d) - 1
            if 0 <= i < len(ids):
                return self.choose_swap(ids[i])
            return Note(f"type 1–{len(ids)} (the numbers shown), or s to skip")
        now = time.monotonic()
        text = d
        if self._digits and now - self._digits_at < 1.5 and int(self._digits + d) <= len(
                self.view.row):
            text = self._digits + d
        self._digits, self._digits_at = text, now
        n = int(text)
        if 1 <= n <= len(self.view.row):
            self.row_cursor = n - 1
            self.area = "row"
            self.note = None
        elif self.view.row:
            self.note = Note(f"the row has cards 1–{len(self.view.row)}")
        return None

    # ------------------------------------------------------------------ intents
    def intent_draw(self) -> Intent:
        """d: draw the top of the pile — or take the strong bonus draw when it is offered."""
        if self.legal().bonus_draw:
            return BonusDraw(self.seat)
        return DrawPile(self.seat)

    def intent_take(self) -> Intent:
        if not self.view.row:
            return Note("the discard row is empty")
        return TakeRow(self.seat, self.row_cursor)

    def intent_lay(self) -> Intent:
        late = self.view.phase == "late_lays"
        sel = self.selected
        if len(sel) == 2:
            return (LateLay if late else Lay)(self.seat, sel[0], sel[1])
        if len(sel) > 2:
            return Note("select exactly two halves to lay (Space or their letters)")
        one = sel[0] if sel else (self.hand_cursor_slot() if self.area == "hand" else None)
        if one is None:
            return Note("select two halves of one rank first (Space or their letters)")
        options = [m for m in self.legal().lays if one in (m.a, m.b)]
        if len(options) == 1:
            if not sel:  # nothing selected: the card under the cursor, so ask
                a, b = options[0].a, options[0].b
                return Confirm("l", options[0], f"l again lays {self.card(a)} {self.card(b)} "
                               "· any other key keeps them")
            return options[0]
        if len(options) > 1:
            return Note(f"{self.card(one)} can go with several halves — select its partner too")
        return Note(f"select a partner for {self.card(one)} as well (two halves of one rank)")

    def intent_upgrade(self) -> Intent:
        intent = self._upgrade()
        if self.selected or not isinstance(intent, Upgrade) or intent not in (
                self.legal().upgrades):
            return intent
        # Nothing selected: the half is the one under the cursor (or the only one that
        # fits) — an upgrade cannot be taken back, so it waits for a second u.
        m = self.view.match_by_id(intent.match_id)
        if m is None:
            return intent
        who = "your " if m.owner == self.seat else f"{self.players[m.owner]}'s "
        return Confirm("u", intent, f"u again puts {self.card(intent.slot)} on {who}match "
                       f"#{m.id} over {self.card(m.top[intent.covers])} · any other key "
                       "keeps it")

    def _upgrade(self) -> Intent:
        sel = self.selected
        if len(sel) > 1:
            return Note("select just the one half to put on a match")
        slot = sel[0] if sel else self.hand_cursor_slot() if self.area == "hand" else None
        options = [u for u in self.legal().upgrades if slot is None or u.slot == slot]
        cur = self.table_cursor
        if cur is not None:
            on_half = [u for u in options if (u.match_id, u.covers) == cur]
            on_match = [u for u in options if u.match_id == cur[0]]
            if on_half:
                options = on_half
            elif on_match:
                options = on_match  # the other half of the match under the cursor
            elif self.area == "table" and slot is not None:
                # The player aimed at this half: let the engine say why it cannot be.
                return Upgrade(self.seat, slot, cur[0], cur[1])
        if len(options) == 1:
            return options[0]
        if slot is None:
            if options:
                return Note("select the half to put on a match first (Space or its letter)")
            return Note("select a half from your hand, then put the cursor on a match (Tab)")
        if not options:
            if cur is None:
                return Note("there is no match on the table to upgrade")
            return Upgrade(self.seat, slot, cur[0], cur[1])
        return Note(f"{self.card(slot)} fits several matches — Tab to the table and put the "
                    "cursor on one")

    def intent_discard(self) -> Intent:
        sel = self.selected
        if len(sel) > 1:
            return Note("select just the one card to discard")
        slot = sel[0] if sel else self.hand_cursor_slot() if self.area == "hand" else None
        if slot is None:
            return Note("select the card to discard (Space or its letter)")
        action = Discard(self.seat, slot)
        if not sel and slot in self.legal().discards:
            # Nothing selected: the card under the cursor — a discard ends the turn and
            # cannot be taken back, so it waits for a second x.
            return Confirm("x", action, f"x again discards {self.card(slot)} and ends your "
                           "turn · any other key keeps it")
        return action

    def intent_skip(self) -> Intent:
        return SkipBonus(self.seat)

    def intent_end_late(self) -> Intent:
        return EndLateLays(self.seat)

    def intent_swap(self) -> Intent:
        view = self.view
        chosen = {m for m in (self.marked_match,
                              self.table_cursor[0] if self.table_cursor else None)
                  if m is not None}
        options = list(self.legal().swaps)
        for mid in chosen:
            narrowed = [s for s in options if mid in (s.give, s.take)]
            if narrowed:
                options = narrowed
        if len(options) == 1:
            return options[0]
        mine = [m for m in chosen if (x := view.match_by_id(m)) and x.owner == self.seat]
        theirs = [m for m in chosen if (x := view.match_by_id(m)) and x.owner != self.seat]
        if mine and theirs:
            return BonusSwap(self.seat, mine[0], theirs[0])  # the engine explains a refusal
        if not options:
            if view.matches:
                give = mine[0] if mine else next(
                    (m.id for m in view.matches if m.owner == self.seat), 0)
                take = theirs[0] if theirs else next(
                    (m.id for m in view.matches if m.owner != self.seat), 0)
                return BonusSwap(self.seat, give, take)
            return Note("there are no matches on the table")
        return Note("several swaps are possible: mark your match with Space, put the cursor "
                    "on the one to take (Tab, ←→), then w")

    # -- the weak bonus: a guided choice -----------------------------------------
    def swapping(self) -> bool:
        """The weak bonus is ours to take (R5.3; the engine offers it only when a swap is
        possible, R5.4)."""
        return self.my_turn() and self.view.pending_bonus == "weak" and bool(
            self.legal().swaps)

    def swap_choices(self) -> tuple[Literal["take", "give"], list[int]]:
        """The step of the swap and the match ids to choose from, in screen order: first
        the other player's match to take, then (if more than one fits) ours to give."""
        swaps = self.legal().swaps
        screen = {m.id: i for i, m in enumerate(self.table_order())}
        takes = sorted({x.take for x in swaps}, key=screen.__getitem__)
        take = self.swap_take if self.swap_take in takes else (
            takes[0] if len(takes) == 1 else None)
        if take is not None:
            gives = sorted({x.give for x in swaps if x.take == take}, key=screen.__getitem__)
            if len(gives) > 1:
                return "give", gives
        return "take", takes

    def choose_swap(self, match_id: int) -> Intent:
        step, ids = self.swap_choices()
        if match_id not in ids:
            what = "to take" if step == "take" else "of yours to give"
            return Note(f"match #{match_id} is not one {what} (the numbers shown)")
        swaps = self.legal().swaps
        if step == "give":
            take = self.swap_take if self.swap_take is not None else swaps[0].take
            return BonusSwap(self.seat, match_id, take)
        gives = sorted({x.give for x in swaps if x.take == match_id})
        if len(gives) == 1:
            return BonusSwap(self.seat, gives[0], match_id)
        if self.marked_match in gives:  # one of ours marked already (Space, or a hint)
            return BonusSwap(self.seat, self.marked_match, match_id)
        self.swap_take = match_id
        return None

    def _match_words(self, mid: int, owner: bool) -> tuple[str, str]:
        """A match for the swap's choice: long (``Bo's #5 9♠9♦``) and short (``Bo #5``)."""
        m = self.view.match_by_id(mid)
        if m is None:
            return f"#{mid}", f"#{mid}"
        who = f"{self.players[m.owner]}'s " if owner else ""
        cards = "".join(self.card(s) for s in m.top)
        return f"{who}#{mid} {cards}", (f"{self.players[m.owner]} " if owner else "") + f"#{mid}"

    def swap_instruction(self, room: int = 78) -> str:
        step, ids = self.swap_choices()
        if step == "take":
            head = "Weak bonus (R5.3): take which match?"
            tail = " · s skips"
        else:
            take = self.swap_take if self.swap_take is not None else self.legal().swaps[0].take
            head = f"Give which of yours for {self._match_words(take, True)[1]}?"
            tail = " · Esc back" if self.swap_take is not None else " · s skips"
        forms = [self._match_words(mid, step == "take") for mid in ids]
        if len(ids) <= 9:
            for k in (0, 1):
                text = head + " " + "  ".join(f"{i + 1} {f[k]}" for i, f in enumerate(forms))
                if len(text + tail) <= room:
                    return text + tail
            if step == "take":
                return (f"Weak bonus (R5.3): type the number (1–{len(ids)}) of the match to "
                        f"take{tail}")
            return f"Type the number (1–{len(ids)}) of your match to give{tail}"
        return f"{head} Cursor on a green # (←→), Enter{tail}"

    def swap_number(self, match_id: int) -> int | None:
        """The number to type for this match in the swap's choice (1–9), if it is one."""
        if not self.swapping():
            return None
        _, ids = self.swap_choices()
        if len(ids) > 9 or match_id not in ids:
            return None
        return ids.index(match_id) + 1

    # ------------------------------------------------------------------ outcomes
    def after_move(self, action: Action) -> None:
        """A move was accepted: tidy the selection for what comes next."""
        self.note = None
        self.hint = None
        self.confirm_quit = False
        self._taking = isinstance(action, TakeRow)
        if isinstance(action, TakeRow):
            self.selected = []
            self.area = "hand"
            self._select_taken()
        elif isinstance(action, Lay | LateLay | Upgrade | Discard):
            self.selected = []
            if isinstance(action, Upgrade):
                self.table_cursor = (action.match_id, action.covers)
        elif isinstance(action, BonusSwap):
            self.marked_match = None
        elif isinstance(action, DrawPile | BonusDraw):
            self.area = "hand"
        self.sync()

    def _select_taken(self) -> None:
        """After our t: select the card taken, which must be played first (R4.1b). A
        session that plays the move at once (``splitnet play``, the host's seat) has it
        in the view already; a joiner's view learns it only when the host's log brings
        the move back, so :meth:`sync` calls this again until then."""
        view = self.view
        if not self._taking or not self.my_turn() or view.phase not in ("draw", "must_play"):
            self._taking = False
            return
        picked = view.picked
        if view.phase != "must_play" or picked is None:
            return  # not in our view yet
        self._taking = False
        self.selected = [picked]
        if picked in self.hand_order():
            self.area, self.hand_cursor = "hand", self.hand_order().index(picked)

    def explain(self, err: IllegalMove) -> Note:
        return Note("✗ " + self.words(str(err)), "error")

    def words(self, text: str) -> str:
        """An engine message with seats and slots named the way the screen names them."""
        n = self.view.n

        def whose(m: re.Match[str]) -> str:
            s = int(m.group(1))
            if not 0 <= s < n:
                return m.group(0)
            space = m.group(2) or ""
            if s == self.seat:
                return ("your" if space else "yours") + space
            return f"{self.players[s]}'s{space}"

        text = re.sub(r"seat (\d+)'s(\s+(?=\w))?", whose, text)
        text = re.sub(r"seat (\d+)\b",
                      lambda m: (("you" if int(m.group(1)) == self.seat
                                  else self.players[int(m.group(1))])
                                 if 0 <= int(m.group(1)) < n else m.group(0)), text)
        text = re.sub(r"slot (\d+)\b",
                      lambda m: self.card(int(m.group(1))) if int(m.group(1)) < 104
                      else m.group(0), text)
        text = re.sub(r"\bmatch (\d+)\b", r"match #\1", text)
        return text

    def take_advice(self, action: Action, words: str) -> None:
        """The h key's advice ``action``, explained by ``words``: select what it names —
        its cards, the row card, the match —, so that the key the hint names plays
        exactly that move, and keep the hint on screen until the player moves."""
        self.selected = []
        self.marked_match = None
        self.swap_take = None
        hand = self.hand_order()
        if isinstance(action, Lay | LateLay):
            self.selected = [action.a, action.b]
        elif isinstance(action, Discard | Upgrade):
            self.selected = [action.slot]
        if self.selected and self.selected[0] in hand:
            self.area, self.hand_cursor = "hand", hand.index(self.selected[0])
        if isinstance(action, Upgrade):
            self.area, self.table_cursor = "table", (action.match_id, action.covers)
        elif isinstance(action, TakeRow):
            self.area, self.row_cursor = "row", action.index
        elif isinstance(action, BonusSwap):
            self.marked_match = action.give
            self.area, self.table_cursor = "table", (action.take, 0)
        key = self.key_for(action)
        self.note = None
        self.confirm = None
        self.hint = Note(f"Hint: {words}" + (f" (key {key})" if key else ""), "info")
        self._hint_at = self.moment()

    # ------------------------------------------------------------------ words for the player
    def key_for(self, action: Action) -> str | None:
        """The key that plays ``action`` at this table (after selecting its cards)."""
        if isinstance(action, BonusMark):
            return str(self.number(action.target))
        if isinstance(action, BonusSwap):
            return str(self.swap_number(action.take) or "w")
        keys: dict[type, str] = {DrawPile: "d", BonusDraw: "d", TakeRow: "t", Lay: "l",
                                 LateLay: "l", Upgrade: "u", Discard: "x", SkipBonus: "s",
                                 EndLateLays: "e"}
        return keys.get(type(action))

    def playable_word(self) -> str:
        """How the screen marks a card that can be played now: in colour green, without
        colour (NO_COLOR) underlined."""
        return "underlined" if self.mono else "green"

    def instruction(self) -> str:
        """What the player is asked to do now, in one line."""
        view = self.view
        legal = self.legal()
        if view.phase == "game_over" or self.session.finished:
            again = ", n plays again" if self.rematch_offered else ""
            return f"Game over — r shows the end screen and every pad{again}, q quits."
        offer = self.open_hand_line()
        if offer is not None:
            return offer
        if view.phase == "round_over":
            status = f" ({self.session.status})" if self.session.status else ""
            if view.round_no == 0:
                return f"Waiting for the first deal{status}."
            return f"Round over — the next round is being dealt{status}."
        actor = view.actor
        if actor is None:
            return self.session.status
        hold = self.hold()
        if hold is not None:  # the engine's turn is ours, but no move can reach the host
            return hold
        if actor != self.seat:
            if view.phase == "late_lays":
                return f"Waiting for {self.players[actor]} to lay late matches (R6.2)."
            return f"Waiting for {self.players[actor]} — look around, pre-select if you like."
        phase = view.phase
        if phase == "draw":
            if legal.takeable:
                return "Your turn: d draws from the pile; t takes row card ✚ at [ ] and all " \
                       "after it."
            return "Your turn: d draws from the pile (no row card can be played this turn)."
        if phase == "must_play":
            picked = view.picked
            card = self.card(picked) if picked is not None else "card"
            return f"Play the {card} you took (R4.1b): select a partner + l, or u onto a match."
        if phase == "play":
            n = len(legal.playable)
            return (f"Lay (l), upgrade (u) or discard (x) to end the turn · {n} playable "
                    f"({self.playable_word()}).")
        if phase == "bonus":
            kind = view.pending_bonus
            if kind == "perfect":
                who = "  ".join(f"{self.number(t)} {self.players[t]}"
                                for t in sorted(legal.marks, key=self.number))
                return f"Perfect! Who marks a negative box (R5.1)? {who}"
            if kind == "strong":
                return "Strong match! d draws the top card of the pile (R5.2), s skips."
            return self.swap_instruction()
        if phase == "late_lays":
            end = view.last_end
            who = self.name(end.seat) if end else "A player"
            return f"{who} went out at once: lay matches (l), then e to finish (R6.2)."
        return self.session.status

    def key_hints(self) -> list[tuple[str, str]]:
        """(key, what it does) pairs for the keys line; each can also be clicked."""
        view = self.view
        legal = self.legal()
        hints: list[tuple[str, str]] = []
        held = self.hold() is not None  # no move key does anything now (instruction says why)
        if self.my_turn() and not held:
            phase = view.phase
            if phase == "draw":
                hints.append(("d", "draw"))
                if legal.takeable:
                    hints += [("t", "take"), ("1-9", "row card")]
            elif phase in ("play", "must_play"):
                hints += [("l", "lay"), ("u", "upgrade")]
                if phase == "play":
                    hints.append(("x", "discard"))
            elif phase == "bonus":
                if legal.marks:
                    hints.append((self.number_keys(legal.marks), "name player"))
                if legal.bonus_draw:
                    hints.append(("d", "draw"))
                if self.swapping():
                    _, ids = self.swap_choices()
                    if len(ids) <= 9:
                        hints.append(("1" if len(ids) == 1 else f"1-{len(ids)}", "choose"))
                    if self.swap_take is not None:
                        hints.append(("Esc", "back"))
                if legal.skip:
                    hints.append(("s", "skip"))
            elif phase == "late_lays":
                hints += [("l", "lay"), ("e", "end")]
        if view.phase == "game_over" or self.session.finished:
            hints.append(("r", "the end"))
            if self.rematch_offered:
                hints.append(("n", "new game"))
        elif self.my_turn() and not held:
            hints.append(("h", "hint"))
        offer = self.open_hand_offer()
        if offer is not None:
            hints.append(("o", f"open-hand {self.players[offer[0]]}"))
        hints += [("←→↑↓", "move"), ("Space", "select"), ("?", "help"), ("q", "quit")]
        return hints
