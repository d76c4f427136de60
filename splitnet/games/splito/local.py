"""Splito played by bots on one machine: each seat has its own engine holding only what
that seat may know (S7), a public engine holds what everyone sees (S7.4), and a
full-knowledge engine writes the record after the game (the audit of S7.5).

:class:`SeededDeal` is a **test tool**, a stand-in for the fair-deck protocol: a local
seeded shuffle that this one process knows entirely. It is not fair between players;
real games will deal through the fair-deck protocol.

>>> from splitnet.games.splito.bots import make_bot
>>> from splitnet.games.splito.settings import SplitoSettings
>>> result = play_local(SplitoSettings.standard(3), [make_bot("heuristic", s) for s in range(3)], 7)
>>> [s["score"] for s in result.record["scores"]] == [s.score for s in result.full.scores()]
True
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from splitnet.games.splito.bots import Bot
from splitnet.games.splito.cards import NUMBER_CARDS
from splitnet.games.splito.engine import Game, commitment
from splitnet.games.splito.record import build_record
from splitnet.games.splito.settings import SplitoSettings


class SeededDeal:
    """Stand-in dealer (a test tool, not fair): the objective shuffle of S4.2 and the
    deck shuffle of S4.3, both from one seed."""

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def shuffle(self, settings: SplitoSettings) -> tuple[list[str], list[str]]:
        """(objective order, deck): the top ``central_objectives`` of the objective order
        are the central objectives (S4.2); the deck is the other 107 cards (S4.3)."""
        rng = random.Random(f"splito-seeded-deal/{self.seed}")
        order = list(settings.objective_set.ids)
        rng.shuffle(order)
        deck = [*NUMBER_CARDS, *order[settings.central_objectives:]]
        rng.shuffle(deck)
        return order, deck


def local_game_id(seed: int) -> str:
    """A game id (32 hex, S12) derived from the seed: reproducible self-play only."""
    return hashlib.sha256(f"splito-local-game/{seed}".encode()).hexdigest()[:32]


@dataclass
class LocalResult:
    record: dict[str, Any]
    full: Game
    views: list[Game]
    public: Game


Observer = Callable[[str, "list[Game]", Game, Game], None]


def play_local(settings: SplitoSettings, bots: Sequence[Bot], seed: int, *,
               names: Sequence[str] | None = None,
               observer: Observer | None = None) -> LocalResult:
    """Bots play a whole game of Splito with a seeded local deal (a test tool).

    Each bot chooses on its own seat's view; the plays go through commit and reveal
    (S7.3) on every engine; hands pass left (S5.4) and each seat then learns the faces of
    the hand it received, and nothing else. ``observer(step, views, public, full)`` is
    called after the deal and after every commit and reveal round (for tests).
    """
    n = settings.players
    if len(bots) != n:
        raise ValueError(f"expected {n} bots")
    names = list(names) if names is not None else [f"{b.name}-{i}" for i, b in enumerate(bots)]
    order, deck = SeededDeal(seed).shuffle(settings)
    central = order[:settings.central_objectives]
    gid = local_game_id(seed)
    full = Game(settings, gid)
    full.deal(central, deck)
    views = [Game(settings, gid) for _ in range(n)]
    public = Game(settings, gid)
    public.deal(central)
    for s, v in enumerate(views):
        v.deal(central)
        for slot in v.hands[s]:
            v.learn(slot, deck[slot])
    nonces = random.Random(f"splito-local-nonces/{seed}")
    everyone = [full, *views, public]

    def notify(step: str) -> None:
        if observer is not None:
            observer(step, views, public, full)

    notify("deal")
    while not full.over:
        turn = full.turn
        plays = []
        for s in range(n):
            play = bots[s].choose(views[s], s)
            views[s].check_play(play)
            nonce = f"{nonces.getrandbits(128):032x}"
            card = views[s].face(play.slot)
            plays.append((play, card, nonce,
                          commitment(gid, turn, s, card, play.side, nonce)))
        for g in everyone:
            for play, _, _, digest in plays:
                g.commit(play.seat, digest)
        notify("commit")
        for g in everyone:
            for play, card, _, _ in plays:
                g.learn(play.slot, card)  # S5.3: every reveal is public
            for play, _, nonce, _ in plays:
                g.reveal(play.seat, play.slot, play.side, nonce)
        if not full.over:
            for s, v in enumerate(views):  # S5.4, S7.2: the received hand, to its holder
                for slot in v.hands[s]:
                    v.learn(slot, deck[slot])
        notify("reveal")
    return LocalResult(build_record(full, names, objective_order=order), full, views, public)
