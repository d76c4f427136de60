"""The open-handed seat's policy: rules O1–O7 of protocol/OPEN_HAND.md (R8.6).

A seat the host abandons is played open-handed: every peer and ``splitnet verify`` apply
the same move for it, a pure function of what everybody can see. This module is that
function, written rule for rule from the document (a change here is a protocol change:
tests/vectors/open_hand_v1.json and tests/test_open_hand_policy.py pin it). It knows no
bot: the table's computer players may change without changing the protocol.

It reads only public things (R8.2, R8.6): the open seat's own hand (dealt and drawn face
up), the discard row, the matches on the table (their visible and covered halves, types
and owners), the number of cards in the pile and in every hand, the score pads' marks
and the house rules. Nothing in it is random: the seed the game core passes is unused.

Values (units of one negative box, roughly): a match type is worth ``B`` — weak 2,
strong 4, perfect 6 — and a card out of the hand 1.
"""

from __future__ import annotations

from typing import Final

from splitnet.cards import STRENGTH, MatchKind, match_kind
from splitnet.errors import SplitnetError
from splitnet.games.split.rules import (
    Action,
    BonusDraw,
    BonusMark,
    Discard,
    DrawPile,
    EndLateLays,
    Game,
    LateLay,
    Lay,
    Match,
    SkipBonus,
    TakeRow,
    Upgrade,
    standing_now,
)

#: a match type's worth (OPEN_HAND.md "Values")
B: Final[dict[str, int]] = {"weak": 2, "strong": 4, "perfect": 6}
#: score(X) of a set of halves: PAIR per two halves of a rank, −SINGLE per odd one (O1)
PAIR: Final = 6
SINGLE: Final = 1
#: O5: the strong bonus draws only while the pile holds at least this many cards
STRONG_DRAW_PILE: Final = 3


class OpenHandHidden(SplitnetError):
    """The view lacks a face the policy needs: never so for an open seat, whose every
    card is public (R8.6); one line naming the slot."""

    def __init__(self, slot: int) -> None:
        super().__init__(f"R8.6: the open seat's player reads public cards only, and slot "
                         f"{slot} is not public in this view")
        self.slot = slot


def _face(view: Game, slot: int) -> int:
    f = view.faces[slot]
    if f is None:
        raise OpenHandHidden(slot)
    return f


def upgrade_value(view: Game, seat: int, m: Match, new: MatchKind) -> int:
    """v of an upgrade of match ``m`` to type ``new`` by ``seat`` ("Values"): one's own
    match B(new) − B(old) + 1; another's B(new) + B(old) + 1 if the upgrade takes it
    (``upgrade_takes_match``), else 1 (the card out of the hand, and the bonus)."""
    if m.owner == seat:
        return B[new] - B[m.kind] + 1
    if view.settings.upgrade_takes_match:
        return B[new] + B[m.kind] + 1
    return 1


def play_value(view: Game, seat: int, play: Lay | LateLay | Upgrade) -> int:
    """v of a lay (B(type) + 2: two cards out of the hand) or an upgrade."""
    if isinstance(play, Lay | LateLay):
        kind = match_kind(_face(view, play.a), _face(view, play.b))
        assert kind is not None, "a legal lay is a match (R2.1)"
        return B[kind] + 2
    m = view.matches[play.match_id]
    kind = match_kind(_face(view, play.slot), _face(view, m.top[1 - play.covers]))
    assert kind is not None, "a legal upgrade is a match (R2.1)"
    return upgrade_value(view, seat, m, kind)


def play_key(view: Game, seat: int, play: Lay | LateLay | Upgrade) -> tuple[int, ...]:
    """The play order (smallest first): the highest v; then lays before upgrades; lays
    by (smaller slot, larger slot), upgrades by (slot, match id, covers), ascending."""
    v = play_value(view, seat, play)
    if isinstance(play, Lay | LateLay):
        return (-v, 0, min(play.a, play.b), max(play.a, play.b), 0)
    return (-v, 1, play.slot, play.match_id, play.covers)


def best_play(view: Game, seat: int,
              plays: list[Lay | Upgrade] | list[LateLay]) -> Lay | LateLay | Upgrade | None:
    """The first of ``plays`` in the play order, or None if there is none."""
    if not plays:
        return None
    return min(plays, key=lambda p: play_key(view, seat, p))


def score(view: Game, slots: list[int]) -> tuple[int, list[int]]:
    """score(X) = Σ over ranks of PAIR·⌊c/2⌋ − SINGLE·(c mod 2), c the halves of that
    rank in X (O1); and the counts c by rank."""
    counts = [0] * 13
    for s in slots:
        counts[_face(view, s) >> 3] += 1
    return sum(PAIR * (c // 2) - SINGLE * (c % 2) for c in counts), counts


def best_upgrade_value(view: Game, seat: int, card: int) -> int:
    """u: the highest v of an upgrade ``card`` would make on the table now; 0 if none."""
    best = 0
    for m in view.matches:
        for covers in (0, 1):
            kind = match_kind(card, _face(view, m.top[1 - covers]))
            if kind is not None and STRENGTH[kind] > STRENGTH[m.kind]:
                best = max(best, upgrade_value(view, seat, m, kind))
    return best


def draw_choice(view: Game, seat: int) -> TakeRow | DrawPile:
    """O1: the legal row pick (R4.1b) of the greatest gain, ties to the larger index,
    if that gain is above 0; else the pile."""
    hand = view.hands[seat]
    base, _ = score(view, hand)
    best: tuple[int, int] | None = None
    for i in view.row_picks(seat):
        taken = view.row[i:]
        after, counts = score(view, hand + taken)
        picked = _face(view, taken[0])
        gain = after - base
        if counts[picked >> 3] == 1:  # it pairs with nothing: its play is an upgrade
            gain += best_upgrade_value(view, seat, picked)
        if gain > 0 and (best is None or (gain, i) > best):
            best = (gain, i)
    return DrawPile(seat) if best is None else TakeRow(seat, best[1])


def seen(view: Game, seat: int) -> list[int]:
    """By rank: the halves in the open seat's hand, the discard row and every match on
    the table, visible or covered (O3)."""
    counts = [0] * 13
    slots = [*view.hands[seat], *view.row]
    for m in view.matches:
        slots.extend(m.top)
        slots.extend(m.under)
    for s in slots:
        counts[_face(view, s) >> 3] += 1
    return counts


def discard_choice(view: Game, seat: int) -> Discard:
    """O3: the hand card of the rank seen most; ties to the smallest slot."""
    counts = seen(view, seat)
    return Discard(seat, min(view.hands[seat],
                             key=lambda s: (-counts[_face(view, s) >> 3], s)))


def perfect_target(view: Game, seat: int) -> int:
    """O4: the other seat standing highest now (:func:`~splitnet.games.split.rules.standing_now`);
    ties to the first from the open seat's left: seat + 1, seat + 2, … (mod n)."""
    totals = standing_now(view)
    order = [(seat + k) % view.n for k in range(1, view.n)]
    best = max(totals[t] for t in order)
    return next(t for t in order if totals[t] == best)


def open_hand_choice(view: Game, seat: int) -> Action:
    """The open seat's move in ``view`` (the public view), by O1–O7."""
    phase = view.phase
    if view.actor != seat:
        raise ValueError(f"R8.6: the open seat's player moves for the seat to move, "
                         f"not seat {seat} (phase {phase}, seat {view.actor} to move)")
    for s in view.hands[seat]:  # the open seat's hand is public (R8.6)
        _face(view, s)
    if phase == "draw":
        return draw_choice(view, seat)  # O1
    if phase in ("play", "must_play"):
        play = best_play(view, seat, view.play_moves(seat))  # O2 (R4.1b: after a row
        if play is not None:                                   # pick, with the picked card)
            return play
        if phase == "must_play":  # pragma: no cover - R4.1b: a pick always leaves a play
            raise ValueError("R4.1b: no play uses the card picked from the row")
        return discard_choice(view, seat)  # O3
    if phase == "bonus":
        if view.pending_bonus == "perfect":
            return BonusMark(seat, perfect_target(view, seat))  # O4
        if view.pending_bonus == "strong" and view.pile_count >= STRONG_DRAW_PILE:
            return BonusDraw(seat)  # O5
        return SkipBonus(seat)  # O5 (a nearly empty pile), O6 (weak: never swaps)
    if phase == "late_lays":
        lays = [m for m in view.iter_legal_moves(seat) if isinstance(m, LateLay)]
        late = best_play(view, seat, lays)  # O7
        return EndLateLays(seat) if late is None else late
    raise ValueError(f"R8.6: no move is expected in phase {phase}")


def open_hand_player(view: Game, seat: int, seed: int) -> Action:
    """The open seat's player the protocol names (protocol/OPEN_HAND.md; GAME.md
    "abandon" step 5), in the shape a game core takes (``GameCore(open_hand=...)``,
    :data:`~splitnet.games.split.open_hand.OpenHandPlayer`). ``seed`` is unused: the rules
    have no randomness."""
    del seed
    return open_hand_choice(view, seat)
