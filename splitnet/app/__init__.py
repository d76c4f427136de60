"""What a command assembles from the layers below it: sessions that wire the fair-deck
game (:mod:`splitnet.game`) to bots and front ends (:mod:`splitnet.app.fair`), and the
saved games a local session resumes from (:mod:`splitnet.app.saved`).

Layering (checked by ``tests/test_layering.py``): rules and crypto import nothing above
them; the game core imports no bots, front ends, self-play, verifier or command line;
this package may import all of them, and nothing below imports it.
"""
