"""The Splito table's state between key presses (no drawing, no prompt_toolkit): what
card and side the player has chosen, which screen is open, the note shown, and what
each key does. Pure and testable; :mod:`splitnet.games.splito.front.tui` runs it.

A play takes three deliberate keys — a card's letter, a side (← or l, → or r) and Enter
— so no stray key commits one (S5.2: a committed play is final). The letters are given
when the turn opens, in S1.3's card order, and kept for the whole turn (a hand only
changes when it is passed, S5.4): a letter typed from an older screen cannot hit
another card. Esc clears the choice at once; q asks first during a game (Ctrl-C is q).
Every rule stays the engine's: a play is checked by ``view.check_play`` before it is
offered for Enter, and the session's core checks it again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from prompt_toolkit.output import ColorDepth

from splitnet.frontend import OffersOpenHand, SplitoTableSession
from splitnet.games.splito.describe import card_text
from splitnet.games.splito.engine import Game, IllegalMove, Phase, Play, Side
from splitnet.games.splito.front.table import hand_labels, played_out
from splitnet.ui.tui.model import Note, give_up_key


@dataclass(frozen=True)
class GiveUp:
    """The host confirmed (o twice): give ``seat`` up as gone for good (S5.7)."""

    seat: int


Outcome = Play | GiveUp | Literal["quit", "rematch"] | None


def can_choose(view: Game, seat: int) -> bool:
    """Is this seat's play awaited (the commit phase, no commitment of its own yet, every
    card of its hand readable, S5.2, S5.4)?"""
    return (view.phase is Phase.COMMIT and not view.committed(seat)
            and bool(view.hands[seat])
            and all(view.faces[s] is not None for s in view.hands[seat]))


class SplitoModel:
    """One player's Splito table state over a :class:`SplitoTableSession`."""

    def __init__(self, session: SplitoTableSession, *, mono: bool | None = None) -> None:
        self.session = session
        #: no colours (NO_COLOR): colours are written as letters ([R]), highlights reversed
        self.mono = (ColorDepth.from_env() == ColorDepth.DEPTH_1_BIT) if mono is None else mono
        self.selected: int | None = None  # a slot of the hand
        self.side: Side | None = None
        self.overlay: Literal["help", "end"] | None = None
        self.scroll = 0
        self.note: Note | None = None
        self.confirm_quit = False
        #: the seat o was pressed for once (the host's offer, S5.7): o again gives it up
        self.confirm_open: int | None = None
        #: a play is being sent (keys do not start another)
        self.busy = False
        #: what we committed this turn: (turn, card, side), shown until the reveal
        self.committed: tuple[int, str, Side] | None = None
        self.log_back = 0
        self._turn: int | None = None
        self._labels: list[tuple[str, int, str | None]] = []
        self._labels_key: tuple[int, frozenset[int]] | None = None
        self._end_opened = False
        #: what n does at the end screen (a new game against the same players: played
        #: here, offered by a LAN host, agreed to by a joiner), or None: no n
        self.rematch_keys: str | None = None

    # ------------------------------------------------------------------ reading
    @property
    def view(self) -> Game:
        return self.session.view

    @property
    def seat(self) -> int:
        return self.session.seat

    def my_play(self) -> bool:
        """Is our play awaited now (and not already being sent)?"""
        return (not self.session.finished and not self.busy
                and can_choose(self.view, self.seat))

    def labels(self) -> list[tuple[str, int, str | None]]:
        """The hand's letters, fixed for the turn (S5.4: the hand changes only when
        passed): (letter, slot, card id)."""
        v = self.view
        key = (v.turn, frozenset(v.hands[self.seat]))
        if key != self._labels_key or any(c is None for _, _, c in self._labels):
            self._labels = hand_labels(v, self.seat)
            self._labels_key = key
        return self._labels

    def open_hand_offer(self) -> tuple[int, int] | None:
        """(seat, seconds) the host may give up now (S5.7; a LAN host's session)."""
        s = self.session
        if isinstance(s, OffersOpenHand) and not s.finished:
            return s.open_hand_offer()
        return None

    def offer_text(self) -> str | None:
        """The host's line: who is gone, how long, and what o does (S5.7)."""
        if self.confirm_open is not None:
            who = self.name(self.confirm_open)
            return (f"Give {who} up for gone? {who} leaves the game for good (S5.7): the "
                    "hand held is set aside, the hands pass past that seat. o again "
                    "confirms, any other key keeps waiting.")
        offer = self.open_hand_offer()
        if offer is None:
            return None
        who = self.name(offer[0])
        return (f"{who} has been disconnected for {offer[1]} s and the game waits for "
                f"them — o gives {who} up (leaves the game, S5.7), or wait for them.")

    def name(self, seat: int) -> str:
        return "you" if seat == self.seat else self.session.players[seat]

    def zone_label(self, side: Side) -> str:
        from splitnet.games.splito.describe import zone_name

        z = self.view.zone_of(self.seat, side)
        return zone_name(self.view, self.session.players, z, self.seat)

    def chosen_play(self) -> Play | None:
        if self.selected is None or self.side is None:
            return None
        return Play(self.seat, self.selected, self.side)

    def selected_text(self) -> str:
        if self.selected is None:
            return ""
        label = next((lb for lb, s, _ in self.labels() if s == self.selected), "?")
        face = self.view.faces[self.selected]
        return f"{label} {card_text(self.view, face) if face is not None else '?'}"

    # ------------------------------------------------------------------ changes
    def sync(self) -> None:
        """After every change of the session: a new turn clears the choice; the end of
        the game opens the end screen (once)."""
        v = self.view
        if v.turn != self._turn:  # a new hand: nothing chosen carries over (S5.4)
            self._turn = v.turn
            self.selected = None
            self.side = None
            self.confirm_quit = False
        if self.committed is not None and (self.committed[0] != v.turn or v.over):
            self.committed = None
        if self.selected is not None and self.selected not in v.hands[self.seat]:
            self.selected = None
        if self.session.finished and v.over and not self._end_opened:
            self._end_opened = True
            self.overlay, self.scroll = "end", 0

    def after_commit(self, play: Play) -> None:
        face = self.view.faces[play.slot]
        self.committed = (self.view.turn, face or "?", play.side)
        self.selected = None
        self.side = None
        self.note = None

    def can_rematch(self) -> bool:
        """Does n start the next game now (offered, and this one played to its end)?"""
        return self.rematch_keys is not None and played_out(self.session)

    # ------------------------------------------------------------------ keys
    def press(self, key: str) -> Outcome:
        """One key; returns the play to commit (only on Enter with a card and a side
        chosen), "quit", "rematch" (n at the end, when offered), or None."""
        if key != "q":
            self.confirm_quit = False
        giving_up, self.confirm_open = self.confirm_open, None
        if giving_up is not None and key == "o":
            return GiveUp(giving_up)
        if key == "n" and self.can_rematch():
            return "rematch"
        if self.overlay is not None:
            return self._overlay_key(key)
        if len(key) == 1 and key.isupper():
            self._choose_card(key)
        elif key in ("left", "l"):
            self._choose_side("left")
        elif key in ("right", "r"):
            self._choose_side("right")
        elif key == "enter":
            return self._commit()
        elif key == "escape":
            self.selected, self.side, self.note = None, None, None
        elif key == "?":
            self.overlay, self.scroll = "help", 0
        elif key == "e":
            if self.view.over:
                self.overlay, self.scroll = "end", 0
            else:
                self.note = Note("e shows the end screen once the game is over")
        elif key == "o":
            self.confirm_open, note = give_up_key(self.open_hand_offer(), "S5.7")
            self.note = note or self.note
        elif key in ("pageup", "pagedown"):
            self.log_back = max(0, self.log_back + (3 if key == "pageup" else -3))
        elif key == "q":
            if self.session.finished or self.confirm_quit:
                return "quit"
            self.confirm_quit = True
            self.note = Note("q again leaves the table (the game is saved and can be "
                             "resumed) · any other key stays", "hint")
        elif len(key) == 1 and key.isalpha():
            self.note = Note(f"{key!r}: cards are capital letters (Shift); l/r or ←/→ "
                             "choose the side; ? shows every key")
        return None

    def _overlay_key(self, key: str) -> Outcome:
        if key in ("up", "k"):
            self.scroll = max(0, self.scroll - 1)
        elif key in ("down", "j"):
            self.scroll += 1
        elif key == "pageup":
            self.scroll = max(0, self.scroll - 10)
        elif key == "pagedown":
            self.scroll += 10
        elif key == "q":
            if self.session.finished:
                return "quit"
            self.overlay = None
        elif key in ("escape", "enter", "?", "space", "e"):
            self.overlay = None
        return None

    def _open(self) -> bool:
        if self.session.finished:
            self.note = Note("the game is over: q leaves, e shows the end screen")
            return False
        if self.busy:
            return False
        if not can_choose(self.view, self.seat):
            if self.view.committed(self.seat):
                self.note = Note("your play of this turn is committed (S5.2: final); the "
                                 "next turn opens after the reveal")
            else:
                self.note = Note("wait: the table is " + (self.session.status or "busy"))
            return False
        return True

    def _choose_card(self, letter: str) -> None:
        if not self._open():
            return
        slot = next((s for lb, s, _ in self.labels() if lb == letter), None)
        if slot is None:
            last = self.labels()[-1][0] if self.labels() else "A"
            self.note = Note(f"no card {letter}: your hand is A–{last}")
            return
        self.selected = None if self.selected == slot else slot
        self.note = None

    def _choose_side(self, side: Side) -> None:
        if not self._open():
            return
        self.side = side
        self.note = None

    def _commit(self) -> Outcome:
        if not self._open():
            return None
        play = self.chosen_play()
        if play is None:
            missing = ("a card (its letter) and a side (← or →)" if self.selected is None
                       and self.side is None else "a card (its letter)"
                       if self.selected is None else "a side (← left or → right)")
            self.note = Note(f"choose {missing}, then Enter commits")
            return None
        try:
            self.view.check_play(play)  # the engine's word, before anything is sent
        except IllegalMove as e:
            self.note = Note(f"✗ {e}", "error")
            return None
        return play
