"""The open-handed seat's player (protocol/GAME.md "abandon"; docs/RULES.md R8.6).

A seat abandoned by the host holds no key share from the next deal on: its cards are
dealt and drawn face up and every peer — and ``splitnet verify`` — derives its moves
itself, with the same deterministic bot on the same public state. Nobody sends them, so
nobody can send another one. The bot is part of the protocol: a change to its choices is
a protocol change (the test vector in tests/test_open_hand.py pins them).

The game layer knows no bots: the player is injected into
:class:`~splitnet.game.core.GameCore` (``open_hand=``) by whoever assembles a peer — the
application (``splitnet.bots.open_hand_player``, the bot the protocol names), the
verifier, the tests. A core built without it refuses an abandonment in one line
(:class:`OpenHandMissing`) and changes nothing.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

from splitnet.rules import Action, Game

#: the bot that plays an open hand (splitnet.bots.HeuristicBot, the "normal" level)
OPEN_HAND_BOT = "heuristic"
DOMAIN = b"splitnet/v2/open-hand"

#: The open seat's player: (the public view, the seat, the seed) → the seat's move. The
#: protocol fixes it (``splitnet.bots.open_hand_player``: :data:`OPEN_HAND_BOT`).
OpenHandPlayer = Callable[[Game, int, int], Action]


def open_hand_seed(game_id: bytes, deal: int, seat: int, index: int) -> int:
    """The bot's seed for the ``index``-th move of deal ``deal``: public data only —
    SHA-256(DOMAIN ‖ game_id ‖ u64(deal) ‖ u64(seat) ‖ u64(index)), first 8 bytes, big
    endian."""
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
