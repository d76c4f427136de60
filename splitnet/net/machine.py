"""The engine of the node's small state machines (protocol/NETWORK.md §11).

Each machine — the host's lobby (:mod:`splitnet.net.lobby_state`), one accepted
connection (:mod:`splitnet.net.conn_state`), a joiner's session
(:mod:`splitnet.net.join_state`) — names its states in an :class:`~enum.Enum` and its
events in another, and gives one table ``{(state, event): next_state}``. An event with no
row for the current state is refused with :class:`IllegalTransition` and changes
nothing: a lifecycle bug is a loud error, never a silently wrong flag.

>>> from enum import Enum
>>> class S(Enum):
...     A = "a"
...     B = "b"
>>> class E(Enum):
...     GO = "go"
>>> m = Machine("demo", S.A, {(S.A, E.GO): S.B})
>>> m.fire(E.GO)
<S.B: 'b'>
>>> m.fire(E.GO)
Traceback (most recent call last):
...
splitnet.net.machine.IllegalTransition: demo: go is not allowed in state b
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from enum import Enum
from typing import Generic, TypeVar

S = TypeVar("S", bound=Enum)
E = TypeVar("E", bound=Enum)


class IllegalTransition(RuntimeError):
    """An event the machine's table has no row for in its current state."""


class Machine(Generic[S, E]):
    """A state and its transition table; ``on_change(old, event, new)`` hears every move."""

    def __init__(self, name: str, initial: S, table: Mapping[tuple[S, E], S],
                 on_change: Callable[[S, E, S], None] | None = None) -> None:
        self.name = name
        self.state = initial
        self.table = table
        self.on_change = on_change

    def can(self, event: E) -> bool:
        return (self.state, event) in self.table

    def fire(self, event: E) -> S:
        try:
            new = self.table[(self.state, event)]
        except KeyError:
            raise IllegalTransition(f"{self.name}: {event.value} is not allowed in state "
                                    f"{self.state.value}") from None
        old, self.state = self.state, new
        if self.on_change is not None:
            self.on_change(old, event, new)
        return new
