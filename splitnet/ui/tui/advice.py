"""The hint key's adviser: which move a bot would make here, and why, in words.

The table only calls a :data:`~splitnet.ui.tui.model.Hinter` — ``(this seat's view,
seat) -> (move, hint in words)`` — and shows the words with the key that plays the
move. This module provides the default one: the strong bot's ``suggest`` (its move and
its reason, from ``splitnet.bots.search``) when the bots have it, otherwise the normal
(heuristic) bot's move with the reason that bot plays by. The adviser sees only this
seat's own view (R8): the hidden cards stay hidden.
"""

from __future__ import annotations

from collections.abc import Sequence

from splitnet.cards import pretty
from splitnet.rules import (
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
    SkipBonus,
    TakeRow,
    Upgrade,
)
from splitnet.rules.scoring import signed, standing_now
from splitnet.ui.tui.model import Hinter


def default_hinter(players: Sequence[str] | None = None) -> Hinter:
    """The strong bot's ``suggest`` when the bots provide it, else the heuristic's move
    (:func:`heuristic_hint`). ``players`` name the seats in the words."""
    names = list(players) if players is not None else None
    try:
        from splitnet.bots.search import suggest  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        return lambda game, seat: heuristic_hint(game, seat, names)

    def strong(game: Game, seat: int) -> tuple[Action, str] | None:
        try:
            action, reason = suggest(game, seat, names=names)
        except ValueError:  # no decision for this seat now
            return None
        return action, str(reason)

    return strong


def heuristic_hint(game: Game, seat: int,
                   names: Sequence[str] | None = None) -> tuple[Action, str] | None:
    """The normal bot's move for ``seat`` in ``game`` (this seat's view) and, in words,
    the move and the reason that bot plays by."""
    from splitnet.bots import HeuristicBot

    if game.actor != seat:
        return None
    action = HeuristicBot(seed=seat).choose(game.clone(), seat)
    return action, f"{_what(game, seat, action, names)}: {_reason(game, seat, action)}"


def _what(game: Game, seat: int, action: Action, names: Sequence[str] | None) -> str:
    def card(slot: int) -> str:
        f = game.faces[slot]
        return pretty(f) if f is not None else "a card"

    def who(s: int) -> str:
        return names[s] if names is not None and 0 <= s < len(names) else f"seat {s + 1}"

    if isinstance(action, DrawPile):
        return "draw from the pile"
    if isinstance(action, TakeRow):
        after = len(game.row) - action.index - 1
        also = "" if after == 0 else " and the card after it" if after == 1 else (
            f" and the {after} after it")
        return f"take {card(game.row[action.index])}{also} from the row"
    if isinstance(action, Lay | LateLay):
        return f"lay {card(action.a)} {card(action.b)}"
    if isinstance(action, Upgrade):
        m = game.matches[action.match_id]
        whose = "your" if m.owner == seat else f"{who(m.owner)}'s"
        return f"put {card(action.slot)} on {whose} match #{m.id}"
    if isinstance(action, Discard):
        return f"discard {card(action.slot)}"
    if isinstance(action, BonusMark):
        return f"name {who(action.target)}"
    if isinstance(action, BonusDraw):
        return "take the bonus draw"
    if isinstance(action, SkipBonus):
        return "skip the bonus"
    if isinstance(action, BonusSwap):
        t = game.matches[action.take]
        return f"swap your match #{action.give} for {who(t.owner)}'s #{action.take}"
    if isinstance(action, EndLateLays):
        return "end your late lays"
    return str(action)


def _after(game: Game, action: Action) -> Game | None:
    g = game.clone()
    try:
        g.apply(action)
    except IllegalMove:
        return None
    return g


def _reason(game: Game, seat: int, action: Action) -> str:
    """Why the normal bot makes this move, in the words it plays by."""
    after = _after(game, action)
    if isinstance(action, DrawPile):
        return "no row card is worth the cards you would have to take along"
    if isinstance(action, TakeRow):
        n = len(game.row) - action.index
        return (f"it makes a match this turn, worth more than carrying {n} card"
                f"{'s' if n != 1 else ''}")
    if isinstance(action, Lay | LateLay | Upgrade) and after is not None:
        m = after.matches[-1] if isinstance(action, Lay | LateLay) else after.matches[
            action.match_id]
        gain = standing_now(after)[seat] - standing_now(game)[seat]
        what = {"perfect": "a perfect match, so another player marks a negative box",
                "strong": "a strong match, so you may draw a card",
                "weak": "a weak match, so you may swap matches"}[m.kind]
        took = ""
        if isinstance(action, Upgrade) and game.matches[action.match_id].owner != seat:
            took = ", and the match becomes yours"
        return f"{what}{took} ({signed(gain, plus=True)} if the round ended now)"
    if isinstance(action, Discard):
        return "of your cards it is the one the next players can use least"
    if isinstance(action, BonusMark):
        others = [s for s in range(game.n) if s != seat]
        now = standing_now(game)
        if now[action.target] == max(now[s] for s in others):
            return "they lead if the round ended now"
        return "they lead on the pads of the finished rounds"
    if isinstance(action, BonusDraw):
        return "another card to match while the pile lasts"
    if isinstance(action, SkipBonus):
        if game.pending_bonus == "strong":
            return "the pile is nearly out: a draw could end the round with your hand full"
        return "no swap gives you a safer match"
    if isinstance(action, BonusSwap):
        return "you give the match easier to upgrade and take a safer one"
    if isinstance(action, EndLateLays):
        return "no match left to lay"
    return "the normal bot's choice"
