"""Set-ups shared without sharing state: independent copies of a game set up once (a
module builds an expensive position once and hands each test its own copy to play on, so
the tests stay isolated), and shuffle proofs computed once where the same one is checked
again and again."""

from __future__ import annotations

import contextlib
import copy
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, TypeVar

import pytest

if TYPE_CHECKING:
    from splitnet.games.split.local import LocalGame

T = TypeVar("T")


def fork(game: LocalGame[Any], state: T) -> T:
    """A deep copy of ``state`` (``game``, its cores, the bodies a test keeps of it): what
    one copy does leaves the other as it was. The game's card tables — read-only
    (``MappingProxyType``, which cannot be copied) and cached per game id — are shared,
    as ``DeckRound.fork`` shares them; functions and other immutable values are shared by
    ``copy.deepcopy`` itself."""
    from splitnet.crypto.elgamal import card_table
    from splitnet.games.splito import core as splito_core

    gid = game.log.game_id
    tables = [card_table(gid),
              card_table(gid, splito_core.N_CARDS, splito_core.DOMAIN_CARD)]
    memo: dict[int, Any] = {id(t): t for t in tables}
    return copy.deepcopy(state, memo)


def handed_out(game: LocalGame[Any], state: T) -> Iterator[T]:
    """For a test's fixture over a module's set-up: yields a :func:`fork` of ``state`` for
    one test; afterwards ``game`` (the original) is checked unchanged — its records and
    every core's state — so no test sees another's moves."""
    from tests.test_canonical_ints import fingerprint

    records, cores = game.log.records(), [fingerprint(c) for c in game.cores]
    yield fork(game, state)
    assert game.log.records() == records, "a test changed the module's game"
    assert [fingerprint(c) for c in game.cores] == cores, "a test changed the module's game"


@contextlib.contextmanager
def shuffle_proofs_checked_once() -> Iterator[set[tuple[Any, ...]]]:
    """While it lasts, ``verify_shuffle`` computes a proof only the first time it is given
    exactly these arguments (context, joint key, inputs, outputs, proof, game) and accepts
    it: a success is remembered, a refusal never, and a hop that differs in one byte is
    computed afresh. Yields the accepted keys (tests/conftest.py's
    ``each_shuffle_proof_checked_once`` is the per-test use; a module's own set-up
    fixture may use it for its build)."""
    from splitnet.crypto import shuffle_proof

    real = shuffle_proof.verify_shuffle
    accepted: set[tuple[Any, ...]] = set()

    def verify(context: bytes, pk: bytes, inputs: Any, outputs: Any, proof: bytes, *,
               context_game: bytes = b"", splitter: Any = None) -> None:
        key = (context, pk, tuple(map(tuple, inputs)), tuple(map(tuple, outputs)), proof,
               context_game)
        if key not in accepted:
            real(context, pk, inputs, outputs, proof, context_game=context_game,
                 splitter=splitter)
            accepted.add(key)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(shuffle_proof, "verify_shuffle", verify)
        yield accepted
