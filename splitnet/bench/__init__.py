"""``splitnet bench``: every benchmark in one package, above the layers it times (it may
use any of them; none of them uses it).

    split      the rules engine, the bots' strength and time per decision and per turn,
               the fair-deck costs of a round of Split (``bench engine|bots|deck``)
    splito     Splito's engine, rollouts, bots and a whole game on the fair deck
    deck       the group operations and hops of the deck protocol (protocol/DECK.md §12)
    net        a LAN game on loopback beside the same game in one process, and the
               wormhole relay beside the LAN (``bench net|wormhole``)
    lan_load   many LAN games at once on loopback, each checked (``bench lan-load``)
    adversary  games with one dishonest seat and the oracle (``bench adversary``)
    watch_flood  the players' relay under 32 hostile watch attempts (``bench watch-flood``)
    pake       the handshakes' SPAKE2 against python-spake2's (``bench pake``)

Speed is reported as ratios against a limit measured in the same run, never asserted in
the tests.
"""
