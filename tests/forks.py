"""Independent copies of a game set up once: a module builds an expensive position once
and hands each test its own copy to play on, so the tests stay isolated."""

from __future__ import annotations

import copy
from typing import Any, TypeVar

from splitnet.crypto.elgamal import card_table
from splitnet.game import splito_core
from splitnet.game.local import LocalGame

T = TypeVar("T")


def fork(game: LocalGame[Any], state: T) -> T:
    """A deep copy of ``state`` (``game``, its cores, the bodies a test keeps of it): what
    one copy does leaves the other as it was. The game's card tables — read-only
    (``MappingProxyType``, which cannot be copied) and cached per game id — are shared,
    as ``DeckRound.fork`` shares them; functions and other immutable values are shared by
    ``copy.deepcopy`` itself."""
    gid = game.log.game_id
    tables = [card_table(gid),
              card_table(gid, splito_core.N_CARDS, splito_core.DOMAIN_CARD)]
    memo: dict[int, Any] = {id(t): t for t in tables}
    return copy.deepcopy(state, memo)
