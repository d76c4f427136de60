"""The hint key's adviser: which move a bot would make here, and why, in words.

The table only calls a :data:`~splitnet.ui.tui.model.Hinter`; this module provides the
default one. When the bots offer ``suggest(game, seat) -> (action, reason)`` (the strong
bot's choice with its reason) the table uses it; until then the normal (heuristic) bot's
choice, with the reason that bot plays by. The adviser sees only this seat's own view
(R8): the hidden cards stay hidden.
"""

from __future__ import annotations

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


def default_hinter() -> Hinter:
    """The bots' own ``suggest`` when they have one, else :func:`heuristic_hint`."""
    import splitnet.bots as bots

    suggest = getattr(bots, "suggest", None)
    if callable(suggest):
        return suggest  # type: ignore[no-any-return]
    return heuristic_hint


def heuristic_hint(game: Game, seat: int) -> tuple[Action, str] | None:
    """The normal bot's move for ``seat`` in ``game`` (this seat's view) and its reason."""
    from splitnet.bots import HeuristicBot

    if game.actor != seat:
        return None
    action = HeuristicBot(seed=seat).choose(game.clone(), seat)
    return action, _reason(game, seat, action)


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
        gain = standing_now(after, seat) - standing_now(game, seat)
        what = {"perfect": "a perfect match: someone else marks a negative box",
                "strong": "a strong match: you may draw a card",
                "weak": "a weak match: you may swap matches"}[m.kind]
        took = ""
        if isinstance(action, Upgrade):
            before = game.matches[action.match_id].owner
            if before != seat:
                took = " and takes the match from its owner"
        return f"{what}{took} ({signed(gain, plus=True)} if the round ended now)"
    if isinstance(action, Discard):
        return "of your cards it is the one the next players can use least"
    if isinstance(action, BonusMark):
        others = [s for s in range(game.n) if s != seat]
        if standing_now(game, action.target) == max(standing_now(game, s) for s in others):
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
