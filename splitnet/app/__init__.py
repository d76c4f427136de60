"""What a command assembles from the layers below it: sessions that wire the fair-deck
game (:mod:`splitnet.game`) to bots and front ends (:mod:`splitnet.games.split.front.fair`), and the
saved games a local session resumes from (:mod:`splitnet.app.saved`), and the LAN
commands ``host``, ``join`` and ``bot`` (:mod:`splitnet.app.lan` and the ``lan_*`` modules
it lists) with the session that plays a seat of a LAN game
(:mod:`splitnet.app.lan_session`).

Layering (checked by ``tests/test_layering.py``): rules and crypto import nothing above
them; the game core imports no bots, front ends, self-play, verifier or command line;
this package may import all of them, and nothing below imports it.
"""
