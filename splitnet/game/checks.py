"""Where a peer's checks of other seats' shuffle proofs run (protocol/GAME.md, "shuffle
proofs": pipelined).

A :class:`~splitnet.game.core.GameCore` takes each hop with its proof check deferred
(``DeckRound.on_shuffle(…, defer=True)``), hands the check to a :class:`HopChecker` at
once and takes the verdicts, in chain order, only when the last hop is in — before any
share of the deck is made or read. Meanwhile the next seat shuffles. The core owns no
process or thread: whoever assembles a peer injects the checker (a process pool that uses
the machine's other core, :mod:`splitnet.app.proof_pool`); :class:`InlineChecker`, the
default, checks at once in the calling thread.

A checker may share verdicts between the peers of one process (``splitnet play``: you
and the bots): a verdict is a function of the hop's bytes and the game's generators only
(:meth:`HopCheck.digest`), and those peers are one program (protocol/SECURITY.md,
"Pipelined shuffle checks").
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Protocol

from splitnet.crypto.deck import HopCheck


class HopVerdict(Protocol):
    """A pending check (a ``concurrent.futures.Future`` will do)."""

    def result(self) -> str | None:
        """Wait for the check: None if the proof verifies, else why it is rejected."""


class HopChecker(Protocol):
    """Runs deferred shuffle-proof checks."""

    def start(self) -> object:
        """Get ready (e.g. start worker processes): called when a game with shuffle proofs
        is set up, before its first hop. Idempotent."""

    def submit(self, game_id: bytes, hop: HopCheck) -> HopVerdict:
        """Start checking ``hop``'s proof (generators of ``game_id``); return at once."""


def check_hop(game_id: bytes, hop: HopCheck) -> str | None:
    """Check one hop's shuffle proof: None if it verifies, else the verifier's reason.

    Top-level and deterministic, so a worker process can run it and every peer reaches
    the same verdict from the same bytes."""
    from splitnet.crypto.shuffle_proof import verify_shuffle

    try:
        verify_shuffle(hop.context, hop.joint_key, hop.inputs, hop.outputs, hop.proof,
                       context_game=game_id)
    except ValueError as e:
        return str(e)
    return None


class Done:
    """A verdict already known."""

    def __init__(self, verdict: str | None) -> None:
        self.verdict = verdict

    def result(self) -> str | None:
        return self.verdict


class InlineChecker:
    """Checks each hop at once in the calling thread. ``share``: remember verdicts by
    :meth:`HopCheck.digest` (the last ``keep``), so the peers of one process that share
    this checker check each hop once."""

    def __init__(self, *, share: bool = False, keep: int = 64) -> None:
        self.share = share
        self.keep = keep
        self._seen: OrderedDict[bytes, str | None] = OrderedDict()
        #: how many proofs this checker verified (the rest were shared verdicts)
        self.checked = 0

    def start(self) -> InlineChecker:
        return self

    def submit(self, game_id: bytes, hop: HopCheck) -> HopVerdict:
        key = hop.digest(game_id) if self.share else b""
        if self.share and key in self._seen:
            return Done(self._seen[key])
        verdict = check_hop(game_id, hop)
        self.checked += 1
        if self.share:
            self._seen[key] = verdict
            while len(self._seen) > self.keep:
                self._seen.popitem(last=False)
        return Done(verdict)
