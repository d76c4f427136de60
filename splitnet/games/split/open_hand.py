"""The open-handed seat's player (protocol/GAME.md "abandon"; docs/RULES.md R8.6).

A seat abandoned by the host holds no key share from the next deal on: its cards are
dealt and drawn face up and every peer — and ``splitnet verify`` — derives its moves
itself, with the same deterministic rules on the same public state. Nobody sends them, so
nobody can send another one. The rules are part of the protocol: protocol/OPEN_HAND.md,
O1–O7, implemented by :mod:`splitnet.games.split.open_hand_policy` (its vectors pin them). They
are not the table's computer players, which may change freely.

The player is injected into :class:`~splitnet.games.split.core.GameCore` (``open_hand=``) by
whoever assembles a peer — the application and the verifier give
:func:`~splitnet.games.split.open_hand_policy.open_hand_player` (also reachable as
``splitnet.games.split.bots.open_hand_player``), tests may give another. A core built without it
refuses an abandonment in one line (:class:`~splitnet.games.split.core.OpenHandMissing`) and
changes nothing.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

from splitnet.games.split.rules import Action, Game

DOMAIN = b"splitnet/v2/open-hand"

#: The open seat's player: (the public view, the seat, the seed) → the seat's move. The
#: protocol fixes it: :func:`splitnet.games.split.open_hand_policy.open_hand_player` (OPEN_HAND.md),
#: which ignores the seed.
OpenHandPlayer = Callable[[Game, int, int], Action]


def open_hand_seed(game_id: bytes, deal: int, seat: int, index: int) -> int:
    """The seed the core passes to the player for the ``index``-th move of deal ``deal``:
    public data only — SHA-256(DOMAIN ‖ game_id ‖ u64(deal) ‖ u64(seat) ‖ u64(index)),
    first 8 bytes, big endian. The protocol's player uses none (OPEN_HAND.md: no rule is
    random), so another implementation need not compute it."""
    h = hashlib.sha256(DOMAIN + game_id + deal.to_bytes(8, "big") + seat.to_bytes(8, "big")
                       + index.to_bytes(8, "big"))
    return int.from_bytes(h.digest()[:8], "big")


def public_view(view: Game, public: set[int]) -> Game:
    """A copy of ``view`` knowing only the faces of the ``public`` slots: what every peer
    and the verifier know alike, whatever else this peer has seen (its own cards)."""
    g = view.clone()
    g.faces = [f if s in public else None for s, f in enumerate(g.faces)]
    return g


def open_hand_move(view: Game, public: set[int], seat: int, seed: int,
                   player: OpenHandPlayer) -> Action:
    """The open seat's move: the player's choice on the public view (R8.6)."""
    return player(public_view(view, public), seat, seed)
