"""ElGamal over ristretto255 as the fair deck uses it (DESIGN "fair deck", R3.3).

A card is never k·G (that would let anyone test guesses); card ``k`` of a game is the
point ``M_k = hash_to_point("splitnet/v1/card", game_id, u64(k))`` whose discrete log
nobody knows.  A ciphertext is a pair ``(c1, c2)`` of point encodings; under the joint
key ``Y`` it encrypts ``M`` when ``c2 = M + y·c1`` with ``Y = y·G``.  The initial deck is
the *trivial* encryption ``(IDENTITY, M_k)`` of every card, computed by everyone.

>>> gid = bytes(16)
>>> pts = card_points(gid)
>>> len(pts), card_table(gid)[pts[7]]
(104, 7)
>>> x = 12345
>>> Y = group.base_mul(x)
>>> ct = remask(initial_deck(gid)[7], 777, Y)
>>> card_table(gid)[decrypt(ct, group.mul(x, ct[0]))]
7
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Final

from splitnet.cards import N_CARDS
from splitnet.crypto import group
from splitnet.crypto.seeds import u64
from splitnet.crypto.split import Splitter, parts_of, ranges, run

DOMAIN_CARD: Final = b"splitnet/v1/card"

#: (c1, c2), each a canonical 32-byte point encoding.
Ciphertext = tuple[bytes, bytes]
Deck = tuple[Ciphertext, ...]


@functools.lru_cache(maxsize=8)
def _card_data(game_id: bytes, count: int = N_CARDS,
               domain: bytes = DOMAIN_CARD) -> tuple[tuple[bytes, ...], Mapping[bytes, int]]:
    points = tuple(group.hash_to_point(domain, game_id, u64(k)) for k in range(count))
    table = {p: k for k, p in enumerate(points)}
    if len(table) != count or group.IDENTITY in table:  # pragma: no cover - 2^-240
        raise ValueError("card points collide for this game id; pick another game id")
    return points, MappingProxyType(table)


def card_points(game_id: bytes, count: int = N_CARDS,
                domain: bytes = DOMAIN_CARD) -> tuple[bytes, ...]:
    """M_0 … M_103 for a game (cached: the table is per game, not per round). Another
    game's cards (Splito's 109) take their own ``count`` and ``domain``."""
    return _card_data(game_id, count, domain)[0]


def card_table(game_id: bytes, count: int = N_CARDS,
               domain: bytes = DOMAIN_CARD) -> Mapping[bytes, int]:
    """The read-only lookup point → card id for a game."""
    return _card_data(game_id, count, domain)[1]


def initial_deck(game_id: bytes, count: int = N_CARDS, domain: bytes = DOMAIN_CARD) -> Deck:
    """The trivial encryption (IDENTITY, M_k) for k = 0…103; never sent on the wire."""
    return tuple((group.IDENTITY, m) for m in card_points(game_id, count, domain))


def remask(ct: Ciphertext, rho: int, joint_key: bytes) -> Ciphertext:
    """(c1 + ρ·G, c2 + ρ·Y): the same plaintext, unlinkable to ``ct`` without ρ."""
    c1, c2 = ct
    r1 = group.base_mul(rho)
    # The initial deck has c1 = IDENTITY: skip an addition we know the answer to.
    return (
        r1 if c1 == group.IDENTITY else group.add(c1, r1),
        group.add(c2, group.mul(rho, joint_key)),
    )


def shuffle_hop(
    deck: Sequence[Ciphertext], perm: Sequence[int], rhos: Sequence[int], joint_key: bytes,
    *, splitter: Splitter | None = None,
) -> Deck:
    """One seat's hop: ``out[i] = remask(deck[perm[i]], rhos[i], Y)``. ``splitter``: the
    re-masks, independent of each other, are cut into chunks it may run side by side
    (:mod:`splitnet.crypto.split`); the result is the same."""
    if not len(deck) == len(perm) == len(rhos):
        raise ValueError("deck, permutation and re-masks differ in length")
    chunks = [([deck[perm[i]] for i in part], [rhos[i] for i in part], joint_key)
              for part in ranges(len(perm), parts_of(splitter, len(perm)))]
    return tuple(ct for part in run(splitter, remask_chunk, chunks) for ct in part)


def remask_chunk(job: tuple[Sequence[Ciphertext], Sequence[int], bytes]) -> list[Ciphertext]:
    """A chunk of a hop (picklable): :func:`remask` of each ciphertext by its ρ."""
    cts, rhos, joint_key = job
    return [remask(ct, r, joint_key) for ct, r in zip(cts, rhos, strict=True)]


def decrypt(ct: Ciphertext, combined_share: bytes) -> bytes:
    """c2 − D where D = y·c1 is the sum of every seat's decryption share."""
    return group.sub(ct[1], combined_share)


def deck_bytes(deck: Sequence[Ciphertext]) -> bytes:
    """c1 ‖ c2 of every position in order (what the test vectors hash)."""
    return b"".join(c1 + c2 for c1, c2 in deck)
