"""Split's front-end parts: its local table against bots, its self-play, its
screens — what :mod:`splitnet.frontends` names for it (docs/ADDING_A_GAME.md)."""
