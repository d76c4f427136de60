"""An adversarial simulator: whole games, one seat dishonest, an oracle on every entry.

Each game is a :class:`~splitnet.games.split.local.LocalGame` of Split (with or without shuffle
proofs, a first game or a rematch, with the open-hand player so a seat can be abandoned,
R8.6) or of Splito (a first game or a rematch), among separate in-memory cores on one
signed, hash-chained log. One seat — the host (seat 0) or a guest, chosen by the game's
seed — is the **adversary**: at every message it would send (its core's outbox, its
move) and, as the host, at every message it orders, it picks from a seeded random
strategy among

    honest       the message as its core made it
    drop         never sent (a guest's: the honest host gives it up — a timeout, or an
                 abandonment: in Split the seat is played open-handed, in Splito it
                 leaves the rotation, S5.7; the host's own: the game stops there, and
                 the joiners' clocks name the host)
    delay        sent later, after the other seats' messages (a host holds a guest's)
    reorder      a host orders the messages owed at once in another order
    substitute   one well-formed element changed: a point for another valid point (a·G,
                 or one from another entry), a share, an eph (Splito: another box's, or a
                 card's c1), a commitment, a byte of a proof or box, an int, two list
                 elements swapped
    replay       an earlier message of its own, signed again
    refuse       a host refuses a guest's legal move (Split: the guest accuses it)
    blind        a host orders an entry without checking it (its own substituted one)
    timeout      a host's timeout of any seat, at any stage, its ``waited`` below or at
                 the header's ``limits``
    abandon      a host's abandonment (R8.6, S5.7) of any seat at any stage, the same
    forge        a guest sends what only the host may (timeout, abandon)
    equivocate   a host (3+ seats) forks the log: see below

**Equivocation.** At an ordering step — mostly its own move (another legal one: the
pile for the discard row, ``bonus_draw`` for ``skip_bonus``, another discard; in Splito
another card), else another order of concurrent messages, or a timeout or abandonment
on one log only — the host keeps from then on two logs, F and a copy G (``deepcopy`` of
the game, its cores, observer and bots, sharing only what is immutable), with different
host-signed records at the fork's seq. The honest guests are split into two non-empty
groups, each living on one log: a guest's node follows its log only; its core on the
other log (a ghost) applies the entries and is never asked for a message. Both logs go
on, the host playing each with its own core and bot, and **cross-ordering**: whatever a
guest signs on its own log is ordered on the other too whenever that log and the host's
core there take it (the guest is a puppet there); one that does not fit is given up —
no violation. A log that waits for a ghost stalls while the other goes on; then the host
times the ghost out (its word, as for any seat it gave up). The oracle reads across the
forks: on each log the host may know only that log's public cards and what it held
there, its knowledge being its core's deck taught every share and opening its core
holds on the other log (the same deck until a new deal) — counted while that log's deal
is played, not while it waits for a ghost (then at its next entry), nor once the deal or
the game is over there. A slot beyond that is named by
whose it is: a seat living on that log or the pile (``fork-knowledge``), or a puppet
(``fork-knowledge-puppet``); a verdict on one log naming a seat that is a puppet there
is ``framed-by-cross-order``. At the end the two records where the logs part must prove
the equivocation (``prove_equivocation``, a ``.fork`` file's ``check_fork_evidence``):
the logs never diverge silently. Every message is signed by :func:`_sign` with the log
entry its author had seen when it made it, so that once the envelope binds it, a message
made on one fork is refused on the other and cross-ordering ends there.

An **oracle** follows what every party has seen. After every entry, for every seat, the
card slots its core can decrypt must be within what the rules let it know — the public
cards and the hands it held (R8; S7: Splito's passed hands) — computed from an honest
observer core (seat None) that reads the same log; for the adversary, also what it could
read with everything it saw besides its core (a Splito complaint's key used on every box
sealed to the complainer and as the complainer's share of every card; a Split draw share
it dropped). So is a **watcher** — a core of no seat fed the log alone, what ``splitnet
verify`` and a spectator hold: it may read the public cards only (and what the adversary
shows of its own hand). The properties checked per game:

    knowledge     no seat, and no watcher, reads a slot beyond its entitlement (R8, S7)
    naming        no honest seat is named by a verdict or a refusal — except the host's
                  word: a ``timeout`` of a seat the adversary host itself did not wait for
                  (SECURITY.md §4; the victim's node names the host, NETWORK.md §7)
    effect        every deviation ends in no effect (refused, every core unchanged — a
                  digest before and after) or a verdict naming the deviator
    agreement     every honest core ends in the same state (finished, verdict, record),
                  and ``splitnet verify`` on the log agrees with them
    progress      the game never waits for an honest seat that owes nothing

Findings (counted apart, by name, each kept as a regression in tests/test_adversary.py):

    framed-by-late-order   a guest's message made before entries it had not seen,
                           ordered after them: a move held while the host gave the seat
                           up (R8.6), a commit for a deal since void, a draw share no
                           longer due once the round was cut — every core and ``splitnet
                           verify`` named the honest guest. Fixed: a refused message
                           names its author only if signed at the head it meets; held
                           and ordered later it names the host, only checked it names
                           nobody (SECURITY.md rows 107 and 112; game.table.overtaken)
    fork-knowledge         a forked host keeps the lagging log in step with what the
                           guests sign on the leading one, and reads on the lagging log,
                           while it is played, what the leading one has shown: the pile's
                           next cards (Split: an open seat's face-up draws, the plays)
    framed-by-cross-order  a guest's message made for one log, ordered on the other where
                           the host's other move changed the state: a pass whose box now
                           seals another slot's share (the receiver's complaint convicts
                           its sender), a reveal of a slot not in the hand there, an
                           upgrade that no longer fits — every peer there and ``splitnet
                           verify`` convict the honest guest
    fork-knowledge-puppet  what a guest shows on its own log the host reads on the other,
                           where that seat is a puppet holding the same cards: its plays,
                           and — until splitnet/6, without shuffle proofs, the host
                           cutting the round on the guest's log (R8.6) — its round seed,
                           which gave its hand away on the other (a cut round is never
                           opened now: its seats prove their hops instead)

Since splitnet/4 a message binds the entry its author saw, so no message made on one fork
after it parts can be ordered on the other: ``fork-knowledge`` and
``framed-by-cross-order`` are gone (their tests pass, and they are violations again
should they recur); ``fork-knowledge-puppet`` is not: a seat's cards on both forks are
one hand (what bounds it: the other fork then waits for the puppet, and the host can
only time it out there).
No seat living on a log ever has a card of its own read there: its share of its own
hidden card leaves it only on its own log, and only as the rules show it.

Pure and sans-IO: no clock, no files; the randomness is ``random.Random`` seeded per game.
Nothing in the product depends on this module (``splitnet bench adversary`` and the
tests use it).
"""

from __future__ import annotations

import copy
import hashlib
import random
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from splitnet.crypto import group
from splitnet.crypto.errors import CheatDetected, DeckUsageError
from splitnet.game.checks import InlineChecker
from splitnet.game.rematch import first_dealer, next_game
from splitnet.game.table import (
    PROTOCOL,
    GameError,
    Limits,
    PledgeBook,
    PledgeRefused,
    check_position,
    entry_position,
)
from splitnet.games.split.bots import make_bot, open_hand_player
from splitnet.games.split.core import GameCore
from splitnet.games.split.local import LocalGame, SelfplaySecrets, game_settings
from splitnet.games.split.rules import Settings, action_to_dict
from splitnet.games.splito.bots import make_bot as make_splito_bot
from splitnet.games.splito.core import SplitoCore, Stage, splito_header
from splitnet.games.splito.engine import Play
from splitnet.games.splito.settings import SplitoSettings
from splitnet.session.log import (
    TAG_FORK_RECORDS,
    Author,
    LogError,
    Player,
    Seen,
    check_fork_evidence,
    fork_evidence,
    make_refusal,
    parse_message,
    prove_equivocation,
)
from splitnet.session.log import Log as SignedLog
from splitnet.verify import verify_records

#: how often each deviation is picked when the adversary deviates
DEFAULT_WEIGHTS: dict[str, float] = {"drop": 1, "delay": 2, "reorder": 2, "substitute": 5,
                                     "replay": 2, "refuse": 1, "blind": 2, "timeout": 1,
                                     "abandon": 1, "forge": 1, "equivocate": 2}
#: an ``equivocate`` picked where the host's own move is not at stake (the order of
#: concurrent messages, a timeout or abandonment on one log only) forks this often: the
#: host's own move, which changes the game most, is the usual fork
_FORK_ELSEWHERE = 0.1
LIMITS = Limits()
#: the oracle's name for a watcher: a core of no seat fed the log (SECURITY.md §7)
WATCHER = -1
#: kinds after which the oracle looks again (what can change what a seat reads)
_SEEN = {"shares", "reveal", "deal", "pass", "complain", "abandon"}
#: violations of a finding already reported and not yet fixed (module docstring,
#: "Findings"): counted apart. The fixed ones (``framed-by-late-order``,
#: ``fork-knowledge``, ``framed-by-cross-order``) are violations again should they recur
KNOWN = ("fork-knowledge-puppet",)


@dataclass
class Config:
    """What a run plays: the share of Splito games, the deviation rate range and
    weights, and (for the tests) a fixed game, adversary seat or kinds to substitute."""

    splito_share: float = 0.3
    rate: tuple[float, float] = (0.02, 0.2)
    weights: dict[str, float] = field(default_factory=lambda: dict(DEFAULT_WEIGHTS))
    game: str | None = None            # "split" / "splito": only that game
    players: tuple[int, ...] | None = None
    adversary: int | None = None       # a fixed adversary seat
    side: str | None = None            # "host" / "guest": the adversary's side only
    proofs: bool | None = None         # Split: fixed shuffle_proofs
    rematch: bool | None = None
    #: substitute only in entries of these kinds (None: any)
    substitute_kinds: tuple[str, ...] | None = None
    max_steps: int = 6000


@dataclass
class Violation:
    game: int
    seed: int
    prop: str  # knowledge | naming | effect | agreement | progress | crash | KNOWN
    detail: str

    @property
    def known(self) -> bool:
        return self.prop in KNOWN

    def __str__(self) -> str:
        return f"game {self.game} (seed {self.seed}): {self.prop}: {self.detail}"


@dataclass
class GameReport:
    index: int
    seed: int
    game: str
    players: int
    adversary: int
    proofs: bool
    rematch: bool
    outcome: str = ""
    deviations: Counter[str] = field(default_factory=Counter)
    refusals: int = 0
    verdict_seat: int | None = None
    entries: int = 0
    violations: list[Violation] = field(default_factory=list)
    #: how the host forked the log ("" if it did not)
    forked: str = ""
    #: puppets' messages ordered on the other log, and those it refused
    cross_ordered: int = 0
    cross_refused: int = 0

    def describe(self) -> str:
        what = (f"{self.game} {self.players}p, adversary seat {self.adversary}"
                f"{' (host)' if self.adversary == 0 else ''}"
                f"{', proofs' if self.proofs and self.game == 'split' else ''}"
                f"{', rematch' if self.rematch else ''}")
        fork = f", forked: {self.forked}" if self.forked else ""
        return f"game {self.index} (seed {self.seed}): {what}{fork}: {self.outcome}"


class _Source(SelfplaySecrets):
    """Selfplay secrets with another game id (the game before a rematch: the same keys)."""

    def __init__(self, seed: int, salt: bytes) -> None:
        super().__init__(seed)
        self.salt = salt

    def game_id(self) -> bytes:
        return hashlib.sha256(self.base + self.salt).digest()[:16]


# ---------------------------------------------------------------------- digests
def _deck_digest(deck: Any) -> Any:
    if deck is None:
        return None
    return (len(deck._decks), len(deck._commits), sorted(deck._opened),
            sorted((s, tuple(sorted(d))) for s, d in deck._shares.items()),
            len(deck._unchecked))


def digest(core: Any) -> str:
    """A cheap digest of a core's state: what a refused entry must leave unchanged."""
    if isinstance(core, GameCore):
        r = core.round
        parts: Any = (core.finished, str(core.verdict), len(core.rounds),
                      sorted(core.open_seats), len(core.chat), core.engine.phase,
                      core.engine.actor, len(core.engine.events),
                      [list(h) for h in core.engine.hands], list(core.engine.faces),
                      None if r is None else (
                          r.stage, sorted(r.committed), sorted(r.dealt_by),
                          len(r.deal_buffer), repr(r.draw), repr(r.pending),
                          sorted(r.opened), len(r.actions), sorted(r.public), r.aborted,
                          r.alarm, list(r.abandoned), _deck_digest(r.deck)))
    else:
        e = core.engine
        parts = (core.finished, str(core.verdict), core.stage.value, len(core.chat),
                 e.turn, str(e.phase), repr(e.commits), repr(e.reveals),
                 [list(h) for h in e.hands], list(e.faces), sorted(core.dealt_by),
                 sorted(core.passes_due), len(core.sealed), sorted(core.opened),
                 core.bad_box is None, _deck_digest(core.objectives),
                 _deck_digest(core.cards))
    return hashlib.sha256(repr(parts).encode()).hexdigest()


# ---------------------------------------------------------------------- substitution
def _leaves(obj: Any, path: tuple[Any, ...] = ()) -> list[tuple[tuple[Any, ...], Any]]:
    out: list[tuple[tuple[Any, ...], Any]] = []
    if isinstance(obj, dict):
        for k, v in obj.items():
            if k == "round":
                continue
            out += _leaves(v, (*path, k))
    elif isinstance(obj, list):
        if len(obj) >= 2:
            out.append((path, obj))
        for i, v in enumerate(obj):
            out += _leaves(v, (*path, i))
    else:
        out.append((path, obj))
    return out


def _set(obj: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    head, rest = path[0], path[1:]
    if isinstance(obj, dict):
        return {**obj, head: _set(obj[head], rest, value)}
    copy = list(obj)
    copy[head] = _set(copy[head], rest, value)
    return copy


def _is_point(b: bytes) -> bool:
    try:
        group.decode_point(b, "x")
    except group.GroupError:
        return False
    return True


def substitute(rng: random.Random, kind: str, body: dict[str, Any], pool: list[bytes],
               extra: list[bytes]) -> tuple[dict[str, Any], str] | None:
    """``body`` with one well-formed element changed, and what was changed; None if it
    holds nothing to change. ``pool``: points seen in the log; ``extra``: points this
    kind of entry may be tempted with (another box's eph, a card's c1)."""
    if kind == "pass" and extra and rng.random() < 0.6:
        eph = rng.choice(extra)
        if eph != body.get("eph"):
            return {**body, "eph": eph}, "eph (another's point)"
    leaves = [(p, v) for p, v in _leaves(body) if isinstance(v, bytes | str | int | list)
              and not isinstance(v, bool)]
    if not leaves:
        return None
    path, v = rng.choice(leaves)
    where = ".".join(str(p) for p in path)
    if isinstance(v, list):
        i, j = rng.sample(range(len(v)), 2)
        w = list(v)
        w[i], w[j] = w[j], w[i]
        if w == v:
            return None
        return _set(body, path, w), f"{where} (swapped)"
    if isinstance(v, bytes):
        if len(v) == group.POINT_BYTES and _is_point(v):
            if pool and rng.random() < 0.5:
                new = rng.choice(pool)
            else:
                new = group.base_mul(rng.randrange(1, group.L))
            if new == v:
                return None
            return _set(body, path, new), f"{where} (another point)"
        if not v:
            return None
        b = bytearray(v)
        b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
        return _set(body, path, bytes(b)), f"{where} (a byte flipped)"
    if isinstance(v, str):
        if v in ("left", "right"):
            return _set(body, path, "right" if v == "left" else "left"), f"{where} (side)"
        hexdigits = "0123456789abcdef"
        if v and all(c in hexdigits for c in v):
            i = rng.randrange(len(v))
            c = hexdigits[(hexdigits.index(v[i]) + 1 + rng.randrange(15)) % 16]
            return _set(body, path, v[:i] + c + v[i + 1:]), f"{where} (a hex digit)"
        return None
    new_int = max(0, v + rng.choice((-2, -1, 1, 2)))
    if new_int == v:
        return None
    return _set(body, path, new_int), f"{where} (another int)"


def _points_in(obj: Any, out: list[bytes]) -> None:
    if isinstance(obj, dict):
        for v in obj.values():
            _points_in(v, out)
    elif isinstance(obj, list):
        for v in obj:
            _points_in(v, out)
    elif isinstance(obj, bytes) and len(obj) == group.POINT_BYTES:
        out.append(obj)


# ---------------------------------------------------------------------- one game
def _sign(author: Author, kind: str, body: dict[str, Any], seen: Seen) -> tuple[bytes, bytes]:
    """``author``'s next message (``(msg_bytes, sig)``), made having seen the entry
    ``seen`` of its log — the one place the simulator signs. The envelope binds ``seen``
    (TRANSCRIPT.md §3): a message made on one fork after the fork is refused on the other
    (the log names no entry it holds), so a host's cross-order of it fails."""
    return author.message(kind, body, seen=seen)


def _shown(move: Any) -> str:
    """A move as a report names it."""
    if isinstance(move, Play):
        return f"card slot {move.slot} to the {move.side}"
    return str(action_to_dict(move)).replace("'", "")


@dataclass
class _Msg:
    seat: int
    kind: str
    body: dict[str, Any]
    hold: int = 0  # steps it is held back (delay)
    #: the adversary has already chosen for it (sent as it is now)
    decided: bool = False
    #: the log entry its author had seen when it made it (its head then)
    seen: Seen | None = None


class _GameOver(Exception):
    pass


@dataclass
class _World:
    """One log the host keeps and everything on it: the LocalGame (every seat's core),
    the observer, the bots and the simulator's bookkeeping. Before an equivocation there
    is one; after it two (forks F and G), each a copy of the other at the fork."""

    name: str  # "F" / "G" once forked
    g: LocalGame[Any]
    obs: Any
    bots: list[Any]
    #: the seats whose own node follows this log (the host's always): the others' cores
    #: here are ghosts — they apply every entry, and are never asked for a message
    lives: set[int]
    queue: list[_Msg] = field(default_factory=list)
    #: seats the adversary host gave up without waiting (the host's word)
    silenced: set[int] = field(default_factory=set)
    sent: list[tuple[str, dict[str, Any]]] = field(default_factory=list)  # the adversary's
    held: dict[int, list[set[int]]] = field(default_factory=dict)  # round → seat → held
    dealt: dict[int, list[set[int]]] = field(default_factory=dict)  # round → seat → dealt
    seen_keys: list[tuple[int, bytes]] = field(default_factory=list)  # (complainer, K)
    seen_shares: list[tuple[int, int, dict[str, Any]]] = field(default_factory=list)
    adv_core_ok: bool = True
    stopped: str | None = None
    refused_entry: tuple[int, GameError] | None = None
    #: messages signed by this log's puppets on the other log, to be ordered here:
    #: (seat, kind, msg_bytes, sig, the entry its author had seen)
    inbox: list[tuple[int, str, bytes, bytes, Seen]] = field(default_factory=list)
    #: how many messages the inbox has had (a stalled log is tried again when it grows)
    received: int = 0
    #: waiting for a ghost while the other log can still go on: ``received`` then
    stalled: int | None = None
    #: the host's patience with a stalled log is over: it times the ghost out
    force: bool = False
    done: bool = False

    def copy(self, name: str, lives: set[int]) -> _World:
        """An independent copy (fork G): nothing mutable is shared but what is immutable
        or a pure service (log entries, identities, card tables, shuffled decks, the
        proof checker)."""
        memo: dict[int, Any] = {}
        share: list[Any] = [*self.g.log.entries, self.g.host,
                            *(a.identity for a in self.g.authors)]
        for core in [*self.g.cores, self.obs]:
            share.append(core.checker)
            share += [getattr(core, k) for k in ("_table", "_points", "ids") if hasattr(core, k)]
            decks = ([r.deck for r in core.rounds] if isinstance(core, GameCore)
                     else [core.objectives, core.cards])
            for d in decks:
                if d is not None:
                    share += [d._table, *d._decks]
        for x in share:
            memo[id(x)] = x
        twin: _World = copy.deepcopy(self, memo)
        twin.name, twin.lives = name, set(lives)
        return twin


class Simulation:
    """One adversarial game (see the module docstring)."""

    def __init__(self, index: int, seed: int, config: Config) -> None:
        self.index, self.seed, self.cfg = index, seed, config
        rng = self.rng = random.Random(f"splitnet/adversary/{seed}/{index}")
        game = config.game or ("splito" if rng.random() < config.splito_share else "split")
        self.splito = game == "splito"
        if config.players:
            n = rng.choice(config.players)
        else:
            n = rng.choice((3, 3, 4, 2)) if self.splito else rng.choice((2, 3, 3, 4))
        self.n = n
        self.proofs = True if self.splito else (
            config.proofs if config.proofs is not None else rng.random() < 0.3)
        self.is_rematch = config.rematch if config.rematch is not None else rng.random() < 0.2
        host = rng.random() < 0.5 if config.side is None else config.side == "host"
        self.adv = config.adversary if config.adversary is not None else (
            0 if host else rng.randrange(1, n))
        lo, hi = config.rate
        self.rate = rng.uniform(lo, hi)
        self.report = GameReport(index, seed, game, n, self.adv, self.proofs, self.is_rematch)
        self.game_seed = rng.randrange(1 << 30)
        g, obs, bots = self._build()
        #: the logs the host keeps: one, or after an equivocation two (forks F and G)
        self.worlds = [_World("", g, obs, bots, set(range(n)))]
        #: the world being played now (every per-log attribute below is its)
        self.w = self.worlds[0]
        self.pool: list[bytes] = []
        #: the seq at which the host equivocated (the two logs differ from there), or None
        self.fork_seq: int | None = None
        #: (log, seat) → slots already reported read beyond entitlement (each once)
        self._reported: dict[tuple[str, int], set[int]] = {}

    # -------------------------------------------------------------- the world
    @property
    def g(self) -> LocalGame[Any]:
        return self.w.g

    @property
    def obs(self) -> Any:
        return self.w.obs

    @property
    def bots(self) -> list[Any]:
        return self.w.bots

    @property
    def queue(self) -> list[_Msg]:
        return self.w.queue

    @queue.setter
    def queue(self, q: list[_Msg]) -> None:
        self.w.queue = q

    @property
    def silenced(self) -> set[int]:
        return self.w.silenced

    @property
    def sent(self) -> list[tuple[str, dict[str, Any]]]:
        return self.w.sent

    @property
    def held(self) -> dict[int, list[set[int]]]:
        return self.w.held

    @property
    def dealt(self) -> dict[int, list[set[int]]]:
        return self.w.dealt

    @property
    def seen_keys(self) -> list[tuple[int, bytes]]:
        return self.w.seen_keys

    @property
    def seen_shares(self) -> list[tuple[int, int, dict[str, Any]]]:
        return self.w.seen_shares

    @property
    def adv_core_ok(self) -> bool:
        return self.w.adv_core_ok

    @adv_core_ok.setter
    def adv_core_ok(self, ok: bool) -> None:
        self.w.adv_core_ok = ok

    @property
    def stopped(self) -> str | None:
        return self.w.stopped

    @stopped.setter
    def stopped(self, why: str | None) -> None:
        self.w.stopped = why

    @property
    def refused_entry(self) -> tuple[int, GameError] | None:
        return self.w.refused_entry

    @refused_entry.setter
    def refused_entry(self, e: tuple[int, GameError] | None) -> None:
        self.w.refused_entry = e

    @property
    def forked(self) -> bool:
        return len(self.worlds) > 1

    def other(self) -> _World:
        """The other log (forked only)."""
        return self.worlds[1] if self.w is self.worlds[0] else self.worlds[0]

    @contextmanager
    def _in(self, w: _World) -> Iterator[None]:
        was, self.w = self.w, w
        try:
            yield
        finally:
            self.w = was

    # -------------------------------------------------------------- set-up
    def _build(self) -> tuple[LocalGame[Any], Any, list[Any]]:
        n, names = self.n, [f"p{i}" for i in range(self.n)]
        # The peers of one process check each hop once (the verdict is a function of the
        # hop's bytes), as ``splitnet play`` does; verify checks every hop again.
        checker = InlineChecker(share=True)
        source = SelfplaySecrets(self.game_seed)
        prev = None
        if self.is_rematch:  # the game before: the same seats and keys, another id
            before = _Source(self.game_seed, b"previous")
            players = [Player(s, nm, before.identity(s).public_key_bytes())
                       for s, nm in enumerate(names)]
            prev = (before, players)
        rematch = None
        if self.splito:
            if prev is not None:
                settings0 = SplitoSettings.standard(n)
                log0, _ = SignedLog.start(prev[0].identity(0), game_id=prev[0].game_id(),
                                          host_seat=0, players=prev[1],
                                          settings=splito_header(settings0, PROTOCOL))
                rematch = next_game(log0.header, log0.head())
            settings = SplitoSettings.standard(
                n, **({"dealer": rematch.first_dealer} if rematch else {}))
            header = splito_header(settings, PROTOCOL, rematch)

            def make(gid: bytes, seat: int, seeds: Callable[[int], bytes],
                     pledges: PledgeBook, keys: list[bytes]) -> SplitoCore:
                return SplitoCore(gid, names, settings, seat, seeds, pledges=pledges,
                                  checker=checker)

            g: LocalGame[Any] = LocalGame(names, settings, source, make_core=make,
                                          header=header)
            obs: Any = SplitoCore(g.log.game_id, names, settings, None, checker=checker)
            bots: list[Any] = [make_splito_bot("random", self.game_seed + i)
                               for i in range(n)]
        else:
            settings_s = Settings(rounds=1 if self.rng.random() < 0.85 else 2,
                                  hand_size=self.rng.choice((2, 3, 3, 4)))
            if prev is not None:
                log0, _ = SignedLog.start(prev[0].identity(0), game_id=prev[0].game_id(),
                                          host_seat=0, players=prev[1],
                                          settings=game_settings(settings_s, self.proofs))
                rematch = next_game(log0.header, log0.head())
            header = game_settings(settings_s, self.proofs, rematch)
            fd = first_dealer(header, n)
            proofs = self.proofs

            def make_split(gid: bytes, seat: int, seeds: Callable[[int], bytes],
                           pledges: PledgeBook, keys: list[bytes]) -> GameCore:
                return GameCore(gid, names, settings_s, seat, seeds, shuffle_proofs=proofs,
                                pledges=pledges, keys=keys, first_dealer=fd,
                                open_hand=open_hand_player, checker=checker)

            g = LocalGame(names, settings_s, source, make_core=make_split, header=header)
            keys = [p.key for p in g.log.header.players]
            obs = GameCore(g.log.game_id, names, settings_s, None, shuffle_proofs=proofs,
                           keys=keys, first_dealer=fd, open_hand=open_hand_player,
                           checker=checker)
            bots = [make_bot("random", self.game_seed + i) for i in range(n)]
        return g, obs, bots

    # -------------------------------------------------------------- helpers
    def violation(self, prop: str, detail: str) -> None:
        if self.forked:
            detail = f"on log {self.w.name}: {detail}"
        self.report.violations.append(Violation(self.index, self.seed, prop, detail))

    @property
    def cores(self) -> list[Any]:
        return self.g.cores

    def honest(self) -> list[int]:
        return [s for s in range(self.n) if s != self.adv]

    def living(self) -> list[int]:
        """The honest seats whose node follows this log (every honest seat, unforked):
        the peers whose judgement of an entry counts here — a ghost's core applies the
        entries, but no node of that seat reads this log."""
        return [s for s in self.honest() if s in self.w.lives]

    def deviate(self) -> str | None:
        """The adversary's choice now: None (honest) or a deviation."""
        if self.rng.random() >= self.rate:
            return None
        kinds = [k for k, w in self.cfg.weights.items() if w > 0]
        return self.rng.choices(kinds, [self.cfg.weights[k] for k in kinds])[0]

    def allowed_name(self, seat: int | None, kind: str | None = None) -> bool:
        return seat == self.adv or (kind == "timeout" and seat in self.silenced)

    # -------------------------------------------------------------- ordering
    def order(self, seat: int, kind: str, body: dict[str, Any], *, checked: bool,
              deviation: str | None = None, seen: Seen | None = None) -> bool:
        """``seat`` signs; the host (``checked``: applying it to its own core first)
        orders it; every other core applies it. True if it entered the log."""
        if all(self.cores[s].finished for s in self.living()):
            return False  # the game is over: nothing more is ordered
        author = self.g.authors[seat]
        seen = seen or self.g.log.seen()
        msg, sig = _sign(author, kind, body, seen)
        if self._order_signed(seat, kind, msg, sig, seen, checked=checked,
                              deviation=deviation):
            return True
        author.counter -= 1  # refused: the counter is not used up
        return False

    def _order_signed(self, seat: int, kind: str, msg: bytes, sig: bytes, seen: Seen, *,
                      checked: bool, deviation: str | None = None) -> bool:
        """The host orders a signed message (see :meth:`order`); True if it entered the
        log. A cross-order (a puppet's message signed on the other log) that this log or
        the host's core here refuses is no deviation of anyone's: it is simply not
        ordered."""
        g = self.g
        cross = deviation == "cross-order"
        m = parse_message(msg)
        host = self.cores[0]
        if checked:
            before = digest(host)
            try:
                host.apply(m.author, m.kind, m.body,
                           at=check_position(m, len(g.log), g.log.head()))
            except GameError as e:
                if digest(host) != before:
                    self.violation("effect", f"the host's core changed while refusing "
                                   f"{kind} of seat {seat}: {e}")
                if cross:
                    return False  # perhaps later (it is tried again at every step)
                self.report.refusals += 1
                # a message the log moved past names nobody (game.table.overtaken)
                if e.seat is not None and not self.allowed_name(e.seat):
                    self.violation("naming", f"the host refused seat {seat}'s {kind} "
                                   f"naming seat {e.seat} ({deviation or 'honest'}): {e}")
                return False
        try:
            g.log.order(msg, sig, g.host)
        except LogError as e:
            self.report.refusals += 1
            if checked:  # pragma: no cover - the core accepted what the log refuses
                self.violation("agreement", f"the log refused what the host's core took: {e}")
            return False
        entry = g.log.entries[-1]
        at = entry_position(entry)
        errors: dict[int, GameError] = {}
        changed: list[int] = []
        for i, core in enumerate(self.cores):
            if checked and i == 0:
                continue
            if i == self.adv and not self.adv_core_ok:
                continue
            before = digest(core)
            try:
                core.apply(entry.author, entry.kind, dict(entry.body), at=at)
            except GameError as e:
                if i not in self.w.lives:
                    continue  # a ghost: this log is none of its node's
                errors[i] = e
                if digest(core) != before:
                    changed.append(i)
        try:
            self.obs.apply(entry.author, entry.kind, dict(entry.body), at=at)
        except GameError as e:
            errors[-1] = e
        if self.adv in errors:
            self.adv_core_ok = False
            del errors[self.adv]
        if changed:
            self.violation("effect", f"cores {changed} changed while refusing entry "
                           f"{entry.seq} ({kind} of seat {seat})")
        judges = [i for i in (*self.living(), -1) if not (checked and i == 0)]
        if errors:
            if set(errors) != set(judges):
                self.violation("agreement", f"entry {entry.seq} ({kind} of seat {seat}) "
                               f"refused by {sorted(errors)} only: "
                               + "; ".join(str(e) for e in errors.values()))
            seats = {e.seat for e in errors.values()}
            first = next(iter(errors.values()))
            # Live peers name the host for an entry the game refuses (net/peer.py);
            # verify and the cores name the entry's fault: it must be the adversary's.
            if not all(self.allowed_name(s) for s in seats):
                self.violation("naming",
                               f"entry {entry.seq} ({kind} of seat {seat}, "
                               f"{deviation or 'honest'}) refused naming "
                               f"{sorted(map(str, seats))}: {first}")
            self.refused_entry = (entry.seq, first)
            self.report.refusals += 1
            raise _GameOver("entry refused")
        if seat == self.adv:
            self.sent.append((kind, dict(entry.body)))
        elif self.forked and seat in self.w.lives and not self.other().done:
            other = self.other()  # cross-ordered there, if it fits (_cross_order)
            other.inbox.append((seat, kind, msg, sig, seen))
            other.received += 1
        self.after_entry(entry.author, kind, dict(entry.body))
        return True

    def after_entry(self, author: int, kind: str, body: dict[str, Any]) -> None:
        _points_in(body, self.pool)
        if len(self.pool) > 200:
            del self.pool[:100]
        if kind == "complain" and isinstance(body.get("key"), bytes):
            self.seen_keys.append((author, body["key"]))
        if kind in _SEEN:
            self.check_knowledge()

    # -------------------------------------------------------------- oracle
    def check_knowledge(self) -> None:
        # Once forked, what enters one log can change what the host reads on the other:
        # it counts there when that log goes on (not while it waits for a ghost: what
        # the host read is checked at its next entry).
        for w in self.worlds:
            if w is not self.w and (w.done or w.stalled is not None):
                continue
            with self._in(w):
                if self.splito:
                    self._splito_knowledge()
                else:
                    self._split_knowledge()

    def _knowledge(self, seat: int, bad: set[int], hands: list[Any], what: str) -> None:
        """Report slots ``bad`` that ``seat`` reads beyond its entitlement (once each).
        On a forked log the victim is named: a seat living on this log, the pile (no
        hand), or a puppet — a seat whose own node is on the other log, whose cards here
        the host plays against the seats that live here."""
        key = (self.w.name, seat)
        bad = bad - self._reported.setdefault(key, set())
        if not bad:
            return
        self._reported[key] |= bad
        who = ("a watcher (no seat, the log alone)" if seat == WATCHER
               else f"seat {seat}{' (adversary)' if seat == self.adv else ''}")
        if not self.forked:
            self.violation("knowledge", f"{who} reads {what} {sorted(bad)}")
            return
        owner = {j: next((k for k, h in enumerate(hands) if j in h), None) for j in bad}
        puppet = {j for j in bad if owner[j] is not None and owner[j] not in self.w.lives}
        for prop, slots in (("fork-knowledge", bad - puppet),
                            ("fork-knowledge-puppet", puppet)):
            if slots:
                whose = ", ".join(f"{j} (" + ("in no hand" if owner[j] is None
                                              else f"seat {owner[j]}'s") + ")"
                                  for j in sorted(slots))
                self.violation(prop, f"{who} reads {what} {whose} — hidden on this log, "
                               f"read with the other log's shares (fork: "
                               f"{self.report.forked})")

    def _adv_split_deck(self, number: int) -> Any:
        """The adversary's view of deal ``number``'s deck on this log: its core's, with the
        draw shares it dropped; None if it has none."""
        rd = next((x for x in reversed(self.cores[self.adv].rounds) if x.number == number),
                  None)
        if rd is None:
            return None
        deck = rd.deck
        if self.seen_shares:
            deck = deck.fork()
            for rnd, frm, msg in self.seen_shares:
                if rnd == number:
                    try:
                        deck.learn_shares(frm, msg, "draw")
                    except (CheatDetected, DeckUsageError):
                        pass
        return deck

    def _adv_splito_deck(self) -> Any:
        core = self.cores[self.adv]
        if core.cards is None:
            return None
        return self._with_keys(core) if self.seen_keys else core.cards

    def _across(self, deck: Any, number: int | None) -> Any:
        """Once forked, the host's deck on this log taught what its core holds on the
        other: every share and opening there — those in the log, and those sealed to it
        (Splito) — of the same final deck (a deck shuffled after the fork is another,
        whose shares fit nothing here)."""
        if not self.forked or self.obs.finished:
            return deck  # (a game over on this log: nothing more is played on it)
        with self._in(self.other()):
            theirs = (self._adv_splito_deck() if number is None
                      else self._adv_split_deck(number))
        if (theirs is None or not deck.shuffled or not theirs.shuffled
                or deck.deck != theirs.deck or deck._commits != theirs._commits):
            return deck
        twin = deck.fork()
        for slot, d in theirs._shares.items():
            for seat, share in d.items():
                twin._shares.setdefault(slot, {}).setdefault(seat, share)
        for seat, x in theirs._opened.items():
            twin._opened.setdefault(seat, x)
        return twin

    def _split_knowledge(self) -> None:
        obs = self.obs
        r = obs.round
        if r is None or r.stage not in ("play", "open", "prove") or r.opened:
            return
        held = self.held.setdefault(r.number, [set() for _ in range(self.n)])
        if r.number not in self.dealt:
            self.dealt[r.number] = [set(h) for h in obs.engine.hands]
        for s in range(self.n):
            held[s] |= set(obs.engine.hands[s])
        for s, core in enumerate(self.cores):
            if (s == self.adv and not self.adv_core_ok) or s not in self.w.lives:
                continue
            cr = core.round
            if cr is None or cr.number != r.number:
                continue
            deck = cr.deck
            if s == self.adv:  # (across the forks only while this log's round is played)
                deck = self._adv_split_deck(r.number)
                if r.stage == "play":
                    deck = self._across(deck, r.number)
            known = deck.known_slots()
            may = r.public | held[s] | held[self.adv]  # (the adversary may show its own)
            if r.draw is not None and r.draw[0] in obs.open_seats:
                may = may | {r.draw[1]}  # R8.6: an open seat draws face up
            if s == self.adv and r.pending is not None:
                # a move in the log whose reveal the host holds: the cards it reads a
                # moment early were about to be public (SECURITY.md §4, a withheld reveal)
                may = may | set(r.pending.slots)
            if not known <= may:
                self._knowledge(s, known - may, obs.engine.hands,
                                f"round {r.number}'s slots (R8: neither public nor ever in "
                                "its hand)")
        # a watcher: the log alone, no seat (what `splitnet verify` and a spectator
        # hold) reads what is public, and what the adversary shows of its own hand
        watch = r.public | held[self.adv]
        if r.draw is not None and r.draw[0] in obs.open_seats:
            watch = watch | {r.draw[1]}
        if not (seen := r.deck.known_slots()) <= watch:
            self._knowledge(WATCHER, seen - watch, obs.engine.hands,
                            f"round {r.number}'s slots (R8: not public)")

    def _split_void_rounds(self) -> None:
        """R8.6: a void deal's openings show the present seats' cards, never the leaver's
        that were not public."""
        for k, r in enumerate(self.obs.rounds):
            if r.stage != "void" or not r.abandoned or r.number not in self.dealt:
                continue
            hidden = set().union(*(self.dealt[r.number][s] for s in r.abandoned)) - r.public
            for s, core in enumerate(self.cores):
                if s in r.abandoned or (s == self.adv and not self.adv_core_ok):
                    continue
                if k >= len(core.rounds):
                    continue
                mine = self.held.get(r.number, [set()] * self.n)[s]
                bad = (core.rounds[k].deck.known_slots() & hidden) - mine
                if bad:
                    self.violation("knowledge", f"seat {s} reads the abandoned seat's "
                                   f"slots {sorted(bad)} of void deal {r.number} (R8.6)")

    def _splito_knowledge(self) -> None:
        obs = self.obs
        # (a game stopped by a verdict is checked too: what was read stays read)
        # (a game a seat left ends at DONE opening nothing, S12.5: checked to its end)
        if obs.stage is Stage.OPEN or obs.opened or obs.cards is None \
                or (obs.stage is Stage.DONE and not obs.engine.gone) \
                or not obs.cards.shuffled or obs.stage is Stage.DEAL or not obs.dealt_by \
                or len(obs.dealt_by) < self.n:
            return
        eng = obs.engine
        public = eng.public_slots()
        for s, core in enumerate(self.cores):
            if (s == self.adv and not self.adv_core_ok) or s not in self.w.lives:
                continue
            if core.cards is None:
                continue
            deck = self._across(self._adv_splito_deck(), None) if s == self.adv \
                else core.cards
            known = deck.known_slots()
            # what the adversary may read it may show anyone (its own cards: a reveal
            # that convicts it still shows its share); the honest seats' are the point
            may = {j for j in range(eng.dealt)
                   if j in eng.held[s] or j in public or j in eng.held[self.adv]}
            if not known <= may:
                self._knowledge(s, known - may, eng.hands,
                                "card slots (S7: neither played nor in a hand it held)")
        watch = {j for j in range(eng.dealt) if j in public or j in eng.held[self.adv]}
        if not (seen := obs.cards.known_slots()) <= watch:  # a watcher: the log alone
            self._knowledge(WATCHER, seen - watch, eng.hands, "card slots (S7: not public)")

    def _with_keys(self, core: SplitoCore) -> Any:
        """What the adversary reads with every complaint key it saw: each box sealed to
        the complainer opened with it, and the key taken as the complainer's share of any
        card (SECURITY.md rows 90–92)."""
        assert core.cards is not None
        trial = core.cards.fork()
        deck = trial.deck
        for r, key in self.seen_keys:
            for box in core.sealed:
                if box.to != r:
                    continue
                try:
                    for msg in core._open_box(box, key).values():
                        trial.learn_shares(box.holder, msg, "pass")
                except (CheatDetected, DeckUsageError, group.GroupError):
                    continue
            victim = self.cores[r].cards
            if victim is None or deck is None:
                continue
            try:
                x = victim._secrets("oracle")[0]
            except DeckUsageError:
                continue
            for j in range(len(deck)):
                if group.mul(x, deck[j][0]) == key:
                    trial._shares.setdefault(j, {})[r] = key
        return trial

    # -------------------------------------------------------------- the game
    def run(self) -> GameReport:
        try:
            steps = 0
            while not self.step():
                steps += 1
                if steps >= self.cfg.max_steps * len(self.worlds):
                    self.violation("progress", f"no end within {self.cfg.max_steps} steps"
                                   + (" a log" if self.forked else ""))
                    for w in self.worlds:
                        w.stopped = w.stopped or "step bound"
                    break
        except Exception as e:  # a crash is a finding, reported with its game
            self.violation("crash", f"{type(e).__name__}: {e}")
            self.stopped = "crash"
            self.report.outcome = f"crash: {type(e).__name__}: {e}"
            return self.report
        self.finish()
        return self.report

    def step(self) -> bool:
        """One thing happens (on one of the logs, once forked); True when the game is
        over (on every log)."""
        if not self.forked:
            try:
                return self._step_world()
            except _GameOver as e:
                self.stopped = self.stopped or str(e)
                return True
        open_ = [w for w in self.worlds if not w.done]
        if not open_:
            return True
        live = [w for w in open_ if w.stalled is None or w.received > w.stalled]
        if not live:  # every log waits for a ghost: the host gives up waiting
            for w in open_:
                w.force = True
            live = open_
        w = self.rng.choice(live)
        with self._in(w):
            w.stalled = None
            try:
                w.done = self._step_world()
            except _GameOver as e:
                w.stopped = w.stopped or str(e)
                w.done = True
        return all(x.done for x in self.worlds)

    def _step_world(self) -> bool:
        """One thing happens on the current log; True when its game is over."""
        if all(self.cores[s].finished for s in self.living()):
            return True
        if self.w.inbox and self._cross_order():
            return False
        self._collect()
        if self.adv == 0:
            self._host_extra()
            if all(self.cores[s].finished for s in self.living()):
                return True
        if self.queue:
            return self._deliver()
        mover = next((s for s in sorted(self.w.lives) if s not in self.g.silent
                      and self.cores[s].can_move()), None)
        if mover is not None:
            self._move(mover)
            return False
        return self._stuck()

    def _cross_order(self) -> bool:
        """The adversary host keeps this log going with what its puppets signed on the
        other: each seat's oldest such message is ordered here if the log and the host's
        core accept it now (one a step); one the log refuses never fits (its counter or,
        with a message bound to the log its author saw, that log) and is given up. True
        if one entered the log."""
        tried: set[int] = set()
        for item in list(self.w.inbox):
            seat, kind, msg, sig, seen = item
            if seat in tried:
                continue
            tried.add(seat)
            try:
                self.g.log.check_order(msg, sig)
            except LogError:
                self.w.inbox.remove(item)
                self.report.cross_refused += 1
                continue
            if self._order_signed(seat, kind, msg, sig, seen, checked=True,
                                  deviation="cross-order"):
                self.w.inbox.remove(item)
                self.g.authors[seat].counter = self.g.log.next_counter(seat)
                self.report.cross_ordered += 1
                return True
        return False

    def _collect(self) -> None:
        for s, core in enumerate(self.cores):
            if s in self.g.silent or (s == self.adv and not self.adv_core_ok) \
                    or s not in self.w.lives:
                continue
            try:
                out = core.outbox()
            except PledgeRefused as e:
                if not self.allowed_name(e.seat):
                    self.violation("naming", f"seat {s} refused to go on naming seat "
                                   f"{e.seat}: {e}")
                self.g.silent.add(s)
                continue
            except (DeckUsageError, CheatDetected, GameError):
                if s == self.adv:
                    self.adv_core_ok = False
                    continue
                raise
            for kind, body in out:
                self.queue.append(_Msg(s, kind, body, seen=self.g.log.seen()))

    def _move(self, seat: int) -> None:
        core = self.cores[seat]
        action = self.bots[seat].choose(core.engine, seat)
        if seat == 0 and self._may_fork() and self.deviate() == "equivocate":
            legal = (core.engine.legal_plays(0) if self.splito
                     else core.engine.legal_moves(0))
            others = [a for a in legal if a != action]
            if others:
                self._equivocate_move(action, self.rng.choice(others))
                return
        body = core.move_message(action)
        self.queue.append(_Msg(seat, "move", body, seen=self.g.log.seen()))

    # -------------------------------------------------------------- equivocation
    def _may_fork(self) -> bool:
        """The host may fork the log: it is the adversary, two guests at least can be
        split between the forks, and it has not forked yet."""
        return (self.adv == 0 and self.n >= 3 and not self.forked and self.adv_core_ok
                and self.cfg.weights.get("equivocate", 0) > 0)

    def _fork(self, how: str, g_lives: set[int] | None = None) -> _World:
        """From now on two logs: this one (F) and a copy (G); the guests are split in two
        non-empty groups (``g_lives``: G's, else at random), each living on one of them.
        Returns G."""
        if g_lives is None:
            guests = list(range(1, self.n))
            self.rng.shuffle(guests)
            k = self.rng.randrange(1, len(guests))
            g_lives = set(guests[k:])
        twin = self.w.copy("G", {0, *g_lives})
        self.w.name, self.w.lives = "F", set(range(self.n)) - g_lives
        self.worlds.append(twin)
        # A guest signs a message once, on the log it follows: one made before the fork
        # and still held is the host's to order there (and to cross-order here).
        for w in self.worlds:
            w.queue = [m for m in w.queue if m.seat in w.lives]
        self.fork_seq = len(self.g.log)
        self.report.deviations["equivocate"] += 1
        self.report.forked = (f"{how} at entry {self.fork_seq}; on F live seats "
                              f"{sorted(self.w.lives - {0})}, on G {sorted(twin.lives - {0})}")
        return twin

    def _equivocate_move(self, mine: Any, theirs: Any) -> None:
        """The host's own move: one in F, another legal one in G, at the same seq."""
        twin = self._fork(f"the host's move {_shown(mine)} / {_shown(theirs)}")
        self.order(0, "move", self.cores[0].move_message(mine), checked=False,
                   deviation="equivocate")
        with self._in(twin):
            self.order(0, "move", self.cores[0].move_message(theirs), checked=False,
                       deviation="equivocate")

    def _equivocate_order(self, ready: list[_Msg]) -> None:
        """Concurrent messages: F orders one of them next, G another."""
        twin = self._fork("the order of concurrent messages")
        picked: list[tuple[int, str, Any]] = []
        for w in (self.w, twin):
            with self._in(w):
                here = [m for m in self.queue if m in ready or w is twin]
                here = [m for m in here if (m.seat, m.kind, m.body) not in picked] or here
                if not here:
                    continue
                m = self.rng.choice(here)
                picked.append((m.seat, m.kind, m.body))
                self.queue.remove(m)
                self.order(m.seat, m.kind, m.body, checked=False, deviation="equivocate",
                           seen=m.seen)
        self.report.forked += ": " + " / ".join(f"{k} of seat {s}" for s, k, _ in picked)

    def _equivocate_extra(self) -> None:
        """A timeout or abandonment of a seat the game waits for, in G only."""
        waiting = [s for s in self.obs.waiting_for() if s != 0]
        core = self.cores[0]
        rnd = core.round_number
        if not waiting or rnd is None:
            return
        seat = self.rng.choice(waiting)
        kind = ("abandon" if core.abandon_refusal(seat) is None
                and self.rng.random() < 0.5 else "timeout")
        what = "an abandonment" if kind == "abandon" else "a timeout"
        twin = self._fork(f"{what} of seat {seat} on G only")
        with self._in(twin):
            waited = (LIMITS.open_hand_after_s if kind == "abandon"
                      else LIMITS.for_step(self.obs.owed_step(seat)))
            if kind == "timeout":
                self.silenced.add(seat)
            self.order(0, kind, {"round": rnd, "seat": seat, "waited": waited},
                       checked=False, deviation="equivocate")

    def _deliver(self) -> bool:
        q = self.queue
        for m in q:
            m.hold = max(0, m.hold - 1)
        ready = [m for m in q if m.hold == 0] or q
        dev = self.deviate() if self.adv == 0 and len(ready) > 1 else None
        if dev == "equivocate" and self._may_fork() and self.rng.random() < _FORK_ELSEWHERE:
            self._equivocate_order(ready)
            return False
        if dev == "reorder":
            self.report.deviations["reorder"] += 1
            m = self.rng.choice(ready)
        else:
            m = ready[0]
        q.remove(m)
        if m.seat == self.adv and not m.decided:
            self._adversary_sends(m)
        elif self.adv == 0 and m.seat != 0:
            self._host_orders_guest(m)
        else:
            self.order(m.seat, m.kind, m.body, checked=self.adv != 0 or m.seat != 0,
                       seen=m.seen)
        return False

    def _adversary_sends(self, m: _Msg) -> None:
        dev = self.deviate()
        rpt = self.report.deviations
        host = self.adv == 0
        if dev == "drop":
            rpt["drop"] += 1
            self.g.silent.add(self.adv)
            self.queue = [x for x in self.queue if x.seat != self.adv]
            if host:
                self.stopped = "the host stopped answering (its joiners' clocks name it)"
                raise _GameOver(self.stopped)
            return
        if dev == "delay" and len(self.queue) > 0:
            rpt["delay"] += 1
            m.hold, m.decided = self.rng.randrange(1, 6), True
            self.queue.append(m)
            return
        if dev == "replay" and self.sent:
            rpt["replay"] += 1
            kind, body = self.rng.choice(self.sent)
            self.order(self.adv, kind, body, checked=not host, deviation="replay")
        elif dev == "forge" and not host:
            rpt["forge"] += 1
            kind = self.rng.choice(("timeout", "abandon"))
            rnd = self.cores[self.adv].round_number or 1
            target = self.rng.randrange(self.n)
            self.order(self.adv, kind, {"round": rnd, "seat": target,
                                        "waited": self.rng.choice((0, 600, 10_000))},
                       checked=True, deviation="forge")
        elif dev in ("substitute", "blind") and (self.cfg.substitute_kinds is None
                                                 or m.kind in self.cfg.substitute_kinds):
            bad = substitute(self.rng, m.kind, m.body, self.pool, self._extra(m))
            if bad is not None:
                rpt["substitute"] += 1
                body, _ = bad
                if self.order(self.adv, m.kind, body, checked=not host,
                              deviation="substitute"):
                    return  # in the log: what follows is the game's
        # honest (or after a refused deviation: the true message)
        self.order(m.seat, m.kind, m.body, checked=not host, seen=m.seen)

    def _extra(self, m: _Msg) -> list[bytes]:
        """Points a Splito pass may be tempted with: other boxes' ephs, cards' c1."""
        if m.kind != "pass" or not self.splito:
            return []
        core = self.cores[self.adv]
        out = [s.eph for s in core.sealed]
        if core.cards is not None and core.cards.deck is not None:
            out += [core.cards.deck[j][0] for j in self.rng.sample(
                range(core.engine.dealt), min(3, core.engine.dealt))]
        return out

    def _host_orders_guest(self, m: _Msg) -> None:
        """The adversary host with a guest's message in hand."""
        dev = self.deviate()
        rpt = self.report.deviations
        if dev == "drop":
            rpt["drop"] += 1
            self.silenced.add(m.seat)
            self.g.silent.add(m.seat)
            self._remember_dropped(m)
            self.queue = [x for x in self.queue if x.seat != m.seat]
            return
        if dev == "delay" and len(self.queue) > 0 and not m.decided:
            rpt["delay"] += 1
            m.hold, m.decided = self.rng.randrange(1, 6), True
            self.queue.append(m)
            return
        if dev == "refuse" and m.kind == "move" and not self.splito:
            rpt["refuse"] += 1
            self._refuse(m)
            return
        if dev == "blind":
            rpt["blind"] += 1
            self.order(m.seat, m.kind, m.body, checked=False, deviation="blind", seen=m.seen)
            return
        self.order(m.seat, m.kind, m.body, checked=False, seen=m.seen)

    def _remember_dropped(self, m: _Msg) -> None:
        """What the host learnt from a guest message it never ordered."""
        if self.splito and m.kind == "complain" and isinstance(m.body.get("key"), bytes):
            self.seen_keys.append((m.seat, m.body["key"]))
        if not self.splito and m.kind == "shares" and m.body.get("purpose") == "draw":
            r = self.cores[0].round
            if r is not None:
                msg = {k: v for k, v in m.body.items() if k not in ("round", "purpose")}
                self.seen_shares.append((r.number, m.seat, msg))

    def _refuse(self, m: _Msg) -> None:
        """The host refuses a guest's move and signs its refusal; the guest, finding its
        move legal, accuses the host (GAME.md "accuse")."""
        g = self.g
        author = g.authors[m.seat]
        msg, sig = _sign(author, "move", m.body, m.seen or g.log.seen())
        author.counter -= 1
        refusal = make_refusal(g.host, g.log.game_id, len(g.log), g.log.head(), m.seat, msg,
                               sig, "illegal", "refused")
        guest = self.cores[m.seat]
        if not guest.move_is_legal(m.body):
            if m.seen is None or m.seen == g.log.seen():
                self.violation("agreement", f"seat {m.seat}'s own move is not legal to itself")
            # else made before entries it had not seen (the host held it): the guest
            # does not accuse, it resynchronises (net/peer.py) — nothing to find here
            return
        body = {"round": m.body["round"], "refusal": refusal, "msg": msg, "sig": sig}
        self.order(m.seat, "accuse", body, checked=False, deviation="refuse")

    def _host_extra(self) -> None:
        """The adversary host's own initiatives: a timeout or abandonment of any seat."""
        dev = self.deviate()
        if dev == "equivocate" and self._may_fork() and self.rng.random() < _FORK_ELSEWHERE:
            self._equivocate_extra()
            return
        if dev not in ("timeout", "abandon"):
            return
        self.report.deviations[dev] += 1
        core = self.cores[0]
        rnd = core.round_number
        if rnd is None:
            return
        waiting = self.obs.waiting_for()
        seat = self.rng.choice(waiting) if waiting and self.rng.random() < 0.7 \
            else self.rng.randrange(self.n)
        step = self.obs.owed_step(seat) if seat in waiting else "move"
        limit = (LIMITS.open_hand_after_s if dev == "abandon" else LIMITS.for_step(step))
        waited = self.rng.choice((0, max(0, limit - 1), limit, limit + 7))
        if dev == "timeout" and seat != 0:
            self.silenced.add(seat)
        self.order(0, dev, {"round": rnd, "seat": seat, "waited": waited}, checked=False,
                   deviation=dev)
        if dev == "abandon" and seat in self.obs.open_seats:
            self.silenced.add(seat)

    def _stuck(self) -> bool:
        """Nobody owes a message: the host gives up a seat the game waits for, or it is
        over."""
        waiting = self.obs.waiting_for()
        if self.obs.finished or not waiting:
            if all(self.cores[s].finished for s in self.living()):
                return True
            self.violation("progress", f"the game waits for nobody and is not over "
                           f"(observer: {self.obs.progress()})")
            return True
        honest_waited = [s for s in waiting if s != self.adv and s not in self.silenced
                         and s not in self.g.silent]
        ghosts = [s for s in waiting if s not in self.w.lives]
        if self.forked and ghosts and not self.w.force:
            # A fork waits for a seat that lives on the other log: what that seat signs
            # there may yet be ordered here; the host plays the other log meanwhile.
            self.w.stalled = self.w.received
            return False
        if self.w.force:
            self.w.force = False
            gone = [x for x in self.w.inbox if x[0] in ghosts]
            self.report.cross_refused += len(gone)  # given up: they never fit
            self.w.inbox = [x for x in self.w.inbox if x[0] not in ghosts]
        if self.adv == 0:
            if 0 in waiting:
                self.stopped = "the host stopped answering (its joiners' clocks name it)"
                return True
            seat = self.rng.choice(ghosts or waiting)
            self.silenced.add(seat)
        else:
            if honest_waited:
                self.violation("progress", f"the game waits for honest seat(s) "
                               f"{honest_waited} that owe nothing "
                               f"({self.obs.progress()})")
                return True
            seat = waiting[0]
        core = self.cores[0]
        rnd = core.round_number
        assert rnd is not None
        if self.rng.random() < 0.5 and core.abandon_refusal(seat) is None:
            # Split: played open-handed; Splito: it leaves the rotation (S5.7)
            kind, waited = "abandon", LIMITS.open_hand_after_s
        else:
            kind, waited = "timeout", LIMITS.for_step(self.obs.owed_step(seat))
        self.order(0, kind, {"round": rnd, "seat": seat, "waited": waited},
                   checked=self.adv != 0)
        if kind == "abandon" and not self.splito:
            self.g.silent.discard(seat)  # its moves are now every peer's to derive
        return False

    # -------------------------------------------------------------- the end
    def finish(self) -> None:
        if not self.forked:
            self._finish_log()
            return
        rpt, outcomes, entries, verdicts = self.report, [], 0, []
        for w in self.worlds:
            with self._in(w):
                self._finish_log()
                outcomes.append(f"{w.name}: {rpt.outcome}")
                entries += rpt.entries
                verdicts.append(rpt.verdict_seat)
        rpt.outcome = "forked — " + " | ".join(outcomes)
        rpt.entries = entries
        rpt.verdict_seat = next((v for v in verdicts if v is not None), None)
        self._check_fork_proof()

    def _check_fork_proof(self) -> None:
        """"Honest peers' logs never diverge silently": the two records at the first seq
        where the logs differ are a transferable proof naming the host — what a peer that
        compares transcripts (or is handed the other record) holds."""
        f, g = (w.g.log.records() for w in self.worlds)
        at = next((i for i in range(min(len(f), len(g))) if f[i] != g[i]), None)
        if at is None:  # one log is the other's prefix: no two records for one seq
            self.report.forked += " (the logs never diverged)"
            return
        key = self.worlds[0].g.log.header.key(0)
        evidence = fork_evidence(TAG_FORK_RECORDS, f[at], g[at])
        proofs = (prove_equivocation(f[at], g[at], key), check_fork_evidence(evidence, f, key),
                  check_fork_evidence(evidence, g, key))
        if proofs != (at, at, at):
            with self._in(self.worlds[0]):
                self.violation("agreement", f"the logs differ at entry {at}, yet its two "
                               f"records prove nothing against the host: {proofs}")

    def _finish_log(self) -> None:
        rpt = self.report
        rpt.entries = len(self.g.log)
        if not self.splito:
            self._split_void_rounds()
        v = verify_records(self.g.log.records())
        honest = [self.cores[s] for s in self.living()]
        if self.refused_entry is not None:
            seq, err = self.refused_entry
            rpt.outcome = f"entry {seq} refused by every honest peer: {err}"
            rpt.verdict_seat = err.seat
            if (v.ok, v.seq, v.seat) != (False, seq, err.seat):
                self.violation("agreement", f"verify says {v.summary!r}, the peers refused "
                               f"entry {seq} naming seat {err.seat}")
            return
        states = {(c.finished, None if c.verdict is None else (c.verdict.seat,
                                                               c.verdict.step))
                  for c in honest}
        if len(states) != 1:
            self.violation("agreement", f"honest cores end apart: {states}")
        records = {repr(c.record) for c in honest}
        if len(records) != 1:
            self.violation("agreement", "honest cores' records differ")
        ref = honest[0]
        if ref.verdict is not None:
            last = self.g.log.entries[-1]
            rpt.verdict_seat = ref.verdict.seat
            rpt.outcome = f"verdict: {ref.verdict}"
            if not self.allowed_name(ref.verdict.seat, last.kind):
                framed = self.forked and ref.verdict.seat not in self.w.lives
                self.violation("framed-by-cross-order" if framed else "naming",
                               f"the verdict names honest seat {ref.verdict.seat}"
                               f"{' (a puppet on this log)' if framed else ''}: {ref.verdict}")
            if (v.ok, v.seq, v.seat) != (False, len(self.g.log) - 1, ref.verdict.seat):
                self.violation("agreement", f"verify says {v.summary!r}; the peers' verdict "
                               f"is {ref.verdict}")
        elif ref.finished:
            rpt.outcome = "finished"
            if not v.ok or v.record != ref.record:
                self.violation("agreement", f"the peers finished but verify says "
                               f"{v.summary.splitlines()[0]!r}")
        else:
            rpt.outcome = f"stopped: {self.stopped or 'unfinished'}"
            if not v.incomplete:
                self.violation("agreement", f"an unfinished game, yet verify says "
                               f"{v.summary.splitlines()[0]!r}")


def play_game(index: int, seed: int = 0, config: Config | None = None) -> GameReport:
    """Play adversarial game ``index`` of run ``seed``."""
    return Simulation(index, seed, config or Config()).run()


@dataclass
class RunReport:
    games: int = 0
    by_game: Counter[str] = field(default_factory=Counter)
    deviations: Counter[str] = field(default_factory=Counter)
    refusals: int = 0
    verdicts: int = 0
    finished: int = 0
    entries: int = 0
    violations: list[Violation] = field(default_factory=list)
    forked: int = 0
    cross_ordered: int = 0
    cross_refused: int = 0

    def add(self, g: GameReport) -> None:
        self.games += 1
        self.by_game[f"{g.game}{' proofs' if g.proofs and g.game == 'split' else ''}"
                     f"{' rematch' if g.rematch else ''}"
                     f" adversary {'host' if g.adversary == 0 else 'guest'}"] += 1
        self.deviations.update(g.deviations)
        self.refusals += g.refusals
        self.verdicts += g.verdict_seat is not None
        self.finished += g.outcome == "finished"
        self.entries += g.entries
        self.violations += g.violations
        self.forked += bool(g.forked)
        self.cross_ordered += g.cross_ordered
        self.cross_refused += g.cross_refused

    def merge(self, other: RunReport) -> None:
        self.games += other.games
        self.by_game.update(other.by_game)
        self.deviations.update(other.deviations)
        self.refusals += other.refusals
        self.verdicts += other.verdicts
        self.finished += other.finished
        self.entries += other.entries
        self.violations += other.violations
        self.forked += other.forked
        self.cross_ordered += other.cross_ordered
        self.cross_refused += other.cross_refused


def run(games: int, seed: int = 0, config: Config | None = None, first: int = 0) -> RunReport:
    """Games ``first`` … ``first + games − 1`` of run ``seed``."""
    out = RunReport()
    for i in range(first, first + games):
        out.add(play_game(i, seed, config))
    return out
