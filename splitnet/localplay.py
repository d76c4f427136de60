"""A table of players on one machine: each seat has its own engine holding only what that
seat may know (R8), exactly as it will on separate peers.

Faces come from a :class:`FaceSource`. :class:`SeededShuffle` is the **stand-in** for
the fair-deck protocol: a local seeded shuffle that one process knows entirely. It is a
test and measuring tool (``selfplay --local-shuffle``, ``bench bots``); real games and
``selfplay`` deal through the fair-deck protocol. The in-process table *session* built
on it (one human against bots without the fair deck) is a test fixture and lives under
``tests/``.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Protocol

from splitnet.games.split.bots import Bot
from splitnet.games.split.record import Recorder
from splitnet.games.split.rules import Action, BonusDraw, DrawPile, Game, Settings, played_slots


class FaceSource(Protocol):
    """Where card faces come from, slot by slot, each only to whom the rules allow."""

    def begin_round(self, round_no: int, n: int, first_discard: int,
                    hands: Sequence[Sequence[int]]) -> None: ...
    def private(self, seat: int, slot: int) -> int: ...
    def public(self, slot: int) -> int: ...
    def end_round(self) -> list[int]: ...


class SeededShuffle:
    """Stand-in dealer: a seeded local shuffle per round (a test tool, not fair)."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.faces: list[int] = []

    def begin_round(self, round_no: int, n: int, first_discard: int,
                    hands: Sequence[Sequence[int]]) -> None:
        rng = random.Random(f"splitnet-seeded-shuffle/{self.seed}/{round_no}")
        self.faces = list(range(104))
        rng.shuffle(self.faces)

    def private(self, seat: int, slot: int) -> int:
        return self.faces[slot]

    def public(self, slot: int) -> int:
        return self.faces[slot]

    def end_round(self) -> list[int]:
        return list(self.faces)


Observer = Callable[[Action | None, "LocalTable"], None]


class LocalTable:
    """Seats with their own views, a referee engine that learns faces only as they are
    revealed, and a full-knowledge recorder filled at each round's end (the audit)."""

    def __init__(self, players: Sequence[str], agents: Sequence[Bot | None], source: FaceSource,
                 settings: Settings | None = None) -> None:
        self.settings = settings or Settings()
        self.n = len(players)
        self.players = list(players)
        self.agents = list(agents)
        self.source = source
        self.views = [Game(self.n, self.settings) for _ in range(self.n)]
        self.referee = Game(self.n, self.settings)  # public knowledge only
        self.recorder = Recorder(Game(self.n, self.settings), players)
        self._round_actions: list[Action] = []
        self.observers: list[Observer] = []

    @property
    def record(self) -> dict[str, object]:
        return self.recorder.record

    def _notify(self, action: Action | None) -> None:
        for ob in self.observers:
            ob(action, self)

    def start_round(self) -> None:
        ref = self.referee
        dealt = self.settings.hand_size * self.n
        dealer = ref.dealer
        hands = [[j for j in range(dealt) if (dealer + 1 + j) % self.n == s]
                 for s in range(self.n)]
        self.source.begin_round(ref.round_no + 1, self.n, dealt, hands)
        first = self.source.public(dealt)
        public: list[int | None] = [None] * 104
        public[dealt] = first
        ref.start_round(public)
        for s, view in enumerate(self.views):
            faces = list(public)
            for slot in hands[s]:
                faces[slot] = self.source.private(s, slot)
            view.start_round(faces)
        self._round_actions = []
        self._notify(None)

    def step(self) -> Action:
        ref = self.referee
        seat = ref.actor
        assert seat is not None
        agent = self.agents[seat]
        if agent is None:
            raise RuntimeError(f"seat {seat} has no bot: its moves come from play()")
        action = agent.choose(self.views[seat], seat)
        self.play(action)
        return action

    def play(self, action: Action) -> None:
        """Apply a move: first on the actor's own engine, which knows the faces it needs
        and refuses an illegal move without changing anything; then reveal what the move
        makes public (R8.2) and apply it on every other engine."""
        ref = self.referee
        seat = action.seat
        if seat != ref.actor:
            ref.apply(action)  # raises IllegalMove naming whose turn it is
        actor_view = self.views[seat]
        drawn = ref.pile_top if isinstance(action, DrawPile | BonusDraw) else None
        actor_view.apply(action)
        for slot in played_slots(action):
            face = self.source.public(slot)
            for g in (ref, *self.views):
                g.reveal(slot, face)
        ref.apply(action)
        for s, view in enumerate(self.views):
            if s != seat:
                view.apply(action)
        if drawn is not None:
            actor_view.reveal(drawn, self.source.private(seat, drawn))
        self._round_actions.append(action)
        if ref.phase in ("round_over", "game_over"):
            self._audit_round()
        self._notify(action)

    def _audit_round(self) -> None:
        faces = self.source.end_round()
        self.recorder.start_round(faces)
        for a in self._round_actions:
            self.recorder.apply(a)

    def run(self, max_steps: int = 100_000) -> dict[str, object]:
        for _ in range(self.settings.rounds):
            self.start_round()
            for _ in range(max_steps):
                if self.referee.phase in ("round_over", "game_over"):
                    break
                self.step()
            else:
                raise RuntimeError("round did not end within the step bound")
        return self.record
