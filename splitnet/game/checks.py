"""Where a peer's checks of other seats' shuffle proofs run (protocol/GAME.md, "shuffle
proofs": pipelined).

A :class:`~splitnet.games.split.core.GameCore` takes each hop with its proof check deferred
(``DeckRound.on_shuffle(…, defer=True)``), hands the check to a :class:`HopChecker` at
once and takes the verdicts, in chain order, only when the last hop is in — before any
share of the deck is made or read. Meanwhile the next seat shuffles. The core owns no
process or thread: whoever assembles a peer injects the checker (a process pool that uses
the machine's other core, :mod:`splitnet.game.pool`); :class:`InlineChecker`, the
default, checks at once in the calling thread. A checker also hands the core its
:attr:`HopChecker.splitter`, through which the seat's own hop uses both cores (the pool's
helper process; :mod:`splitnet.crypto.split`), and is told which hop is the last
(``submit(…, last=True)``), whose verdict the seat waits for next.

A checker may share verdicts between the peers of one process (``splitnet play``: you
and the bots): a verdict is a function of the hop's bytes and the game's generators only
(:meth:`HopCheck.digest`), and those peers are one program (protocol/SECURITY.md,
"Pipelined shuffle checks").
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Protocol

from splitnet.crypto.deck import HopCheck, HopMemo
from splitnet.crypto.elgamal import Deck
from splitnet.crypto.split import Splitter


class HopVerdict(Protocol):
    """A pending check (a ``concurrent.futures.Future`` will do)."""

    def result(self) -> str | None:
        """Wait for the check: None if the proof verifies, else why it is rejected."""


class HopChecker(Protocol):
    """Runs deferred shuffle-proof checks."""

    def start(self) -> object:
        """Get ready (e.g. start worker processes): called when a game with shuffle proofs
        is set up, before its first hop. Idempotent."""

    def submit(self, game_id: bytes, hop: HopCheck, *, last: bool = False) -> HopVerdict:
        """Start checking ``hop``'s proof (generators of ``game_id``); return at once.
        ``last``: the chain's last hop, whose verdict is waited for next (a checker may
        check it at once, with every core it has)."""

    @property
    def splitter(self) -> Splitter | None:
        """What the peer's own shuffle and proof may cut their phases for (another core:
        :mod:`splitnet.crypto.split`), or None: in the peer's thread."""

    @property
    def hop_memo(self) -> HopMemo | None:
        """For a checker shared by the peers of one process: recomputes an opened seat's
        hop (R8.4, ``DeckRound.on_open``) once for all of them (:class:`OpenedHops`), or
        None: each peer recomputes it."""


class OpenedHops:
    """The hops recomputed from opened seeds (R8.4) by the peers of one process, the last
    ``keep`` of them, so that each is recomputed once, not once per peer: a deck is a
    function of its key (``DeckRound.on_open`` makes it), and only decks computed here are
    kept, never received ones. Call it as ``memo(key, compute)``."""

    def __init__(self, keep: int = 64) -> None:
        self.keep = keep
        self._decks: OrderedDict[bytes, Deck] = OrderedDict()
        self._lock = threading.Lock()
        #: how many hops were recomputed (the rest were shared)
        self.computed = 0

    def __deepcopy__(self, memo: dict[int, object]) -> OpenedHops:
        return self  # a shared service, like the checker that holds it: not a peer's state

    def __call__(self, key: bytes, compute: Callable[[], Deck]) -> Deck:
        with self._lock:
            deck = self._decks.get(key)
        if deck is None:
            deck = compute()  # outside the lock: at worst two peers compute the same deck
            with self._lock:
                self.computed += 1
                self._decks[key] = deck
                while len(self._decks) > self.keep:
                    self._decks.popitem(last=False)
        return deck


def check_hop(game_id: bytes, hop: HopCheck, splitter: Splitter | None = None) -> str | None:
    """Check one hop's shuffle proof: None if it verifies, else the verifier's reason.

    Top-level and deterministic, so a worker process can run it and every peer reaches
    the same verdict from the same bytes (``splitter``: the check's terms cut in chunks,
    the same verdict)."""
    from splitnet.crypto.shuffle_proof import verify_shuffle

    try:
        verify_shuffle(hop.context, hop.joint_key, hop.inputs, hop.outputs, hop.proof,
                       context_game=game_id, splitter=splitter)
    except ValueError as e:
        return str(e)
    return None


def check_hop_part(game_id: bytes, hop: HopCheck, part: int, parts: int) -> bytes | None:
    """Part ``part`` of ``parts`` of :func:`check_hop` (top-level: a worker runs it): its
    partial sum, or None if the part found the hop malformed. :func:`verdict_of_parts`
    makes the verdict of all the parts."""
    from splitnet.crypto.shuffle_proof import verify_shuffle_part

    try:
        return verify_shuffle_part(hop.context, hop.joint_key, hop.inputs, hop.outputs,
                                   hop.proof, part=part, parts=parts, context_game=game_id)
    except ValueError:
        return None


def verdict_of_parts(game_id: bytes, hop: HopCheck, sums: list[bytes | None]) -> str | None:
    """The verdict of a check made in parts: None (accepted) when every part returned and
    their sums add up to the identity; otherwise :func:`check_hop`'s, whole, here — the
    same verdict and message a check in one piece gives (a bad hop costs a second check,
    an honest one nothing)."""
    from splitnet.crypto.shuffle_proof import accepts_parts

    done = [x for x in sums if x is not None]
    if len(done) == len(sums) and accepts_parts(done):
        return None
    return check_hop(game_id, hop)


class Done:
    """A verdict already known."""

    def __init__(self, verdict: str | None) -> None:
        self.verdict = verdict

    def result(self) -> str | None:
        return self.verdict


class InlineChecker:
    """Checks each hop at once in the calling thread. ``share``: remember verdicts by
    :meth:`HopCheck.digest` (the last ``keep``), so the peers of one process that share
    this checker check each hop once. ``splitter``: every check, and the peer's own
    proving, cut in chunks it runs (:mod:`splitnet.crypto.split`)."""

    def __init__(self, *, share: bool = False, keep: int = 64,
                 splitter: Splitter | None = None) -> None:
        self.share = share
        self.keep = keep
        self._splitter = splitter
        self._seen: OrderedDict[bytes, str | None] = OrderedDict()
        #: how many proofs this checker verified (the rest were shared verdicts)
        self.checked = 0
        self._opened = OpenedHops(keep) if share else None

    def start(self) -> InlineChecker:
        return self

    @property
    def splitter(self) -> Splitter | None:
        return self._splitter

    @property
    def hop_memo(self) -> HopMemo | None:
        return self._opened

    def submit(self, game_id: bytes, hop: HopCheck, *, last: bool = False) -> HopVerdict:
        key = hop.digest(game_id) if self.share else b""
        if self.share and key in self._seen:
            return Done(self._seen[key])
        verdict = check_hop(game_id, hop, splitter=self._splitter)
        self.checked += 1
        if self.share:
            self._seen[key] = verdict
            while len(self._seen) > self.keep:
                self._seen.popitem(last=False)
        return Done(verdict)
