"""The help screen: the box's reference cards (R1.3) and the keys."""

from __future__ import annotations

import re

from splitnet.games.split.rules import Pad
from splitnet.ui.tui.render import Line, paper_pad, words, wrap

HELP = """\

# Matches (R2)
A match is two halves of the same rank; different ranks never match.
  Perfect   identical halves                 7♥ 7♥   K♠ K♠   (P)
  Strong    same colour, different suit      7♥ 7♦   Q♣ Q♠   (S)
  Weak      different colours                7♥ 7♣   2♦ 2♠   (W)
Weak < strong < perfect. ♥ ♦ are red, ♣ ♠ black.

# A turn (R4)
1. Draw one card: the top of the pile (d), or a row card you can play this turn together \
with every card discarded after it (t). A card taken from the row must be used in your \
first play (R4.1b).
2. Play as often as you like: lay a match from your hand (l), or upgrade any match on the \
table by putting a half from your hand on one of its halves so it gets stronger: \
weak→strong, weak→perfect, strong→perfect (u). An upgraded match becomes yours. A play \
may never empty your hand.
3. Discard one card on the end of the row (x). Empty hand after the discard: you went out.
Play passes left: to the next seat, the next column to the right.

# Bonuses (R5) — right after each match laid or upgraded
  Perfect   name another player: they mark a negative box now (their number key).
  Strong    you may draw the top card of the pile (d), or skip (s).
  Weak      you may swap one of your matches for another player's match of the same \
type: type the number shown beside the match to take (then, if several of yours fit, \
the number of yours to give; Esc steps back), or skip (s).

# End of a round (R6) and the pad (R7)
A round ends when someone goes out, or when a draw takes the last card of the pile. If \
someone goes out on their very first turn, those who have not played yet may still lay \
matches (l, then e). Then every match in front of you marks a box in its row, every \
card left in your hand a negative box. A row is worth the value of its first open box; \
total = Perfect + Strong + Weak − Negative, after 3 rounds the highest total wins.

# Keys
  ←→          move the cursor in the focused area (hand, row or table)
  ↑↓          switch area: table ↔ discard row ↔ your hand; on the table: the \
previous/next match of the same player
  Tab         next area (Shift+Tab: previous)
  Space       select the card under the cursor / mark your match for a swap
  Enter       the same; in the discard row: take the card under the cursor
  A–Z         (Shift+letter) select a hand card by its letter; during your turn the \
letters stay put (a new card gets the next letter), between turns the hand is sorted again
  1–9         aim at a row card by its number (type two digits quickly for 10+); \
in a perfect bonus: name the player with that number; in a weak bonus: the match shown \
with that number (or the cursor on it and Enter, or w)
  d           draw from the pile (also: the strong bonus draw)
  t           take the row card under the cursor and every card after it
  l           lay the two selected halves (late lays too)
  u           upgrade: the selected half onto the match under the table cursor
  x           discard the selected card
  l u x       with nothing selected they act on the card under the cursor only when \
pressed twice (the first press says what the second would do)
  s, e        skip a bonus, end late lays
  h           hint: the move a bot would make now, and why; it plays nothing, but \
selects its cards, so the key it names plays it (the hint stays until you move)
  c           chat: type, Enter sends, Esc cancels
  r           results of the last round (every pad, hands left, shuffle verdict); after \
the game the end screen
  n           after the game: a new game against the same players in the same seats (on a LAN a \
rematch with the same seats: the host's n offers it, a joiner's n agrees to it; it is \
played if every player agrees)
  o           LAN host: once the game has waited 30 s for a disconnected player, give \
their seat up for gone (R8.6; press twice): the round ends as it stands (dealt again if \
no card is dealt yet) and the computer plays their cards face up
  PgUp PgDn   scroll the log
  Esc         clear the selection and the message (answers at once)
  ?           this help
  q, Ctrl-C   quit; during a game either asks first: press it again to leave
  Ctrl-L      draw the whole screen again (if another program wrote over it)
Mouse: click a card to select it (a row card: once to aim, again to take), a match half to \
aim at it, a player's number to name them, the pile count to draw, a key below to press it.

# On the screen
Green cards can be played now (the engine's legal moves; underlined without colours, \
NO_COLOR). ✚ marks row cards you may take. [ ] is the cursor. Pads: ■ marked in \
earlier rounds, ▣ this round as it stands now (a box per match in front of the player, \
a negative box per card in hand, the bonus marks), □ open; the highlighted box is the \
row's first open box, its value is shown on the right. "now 23" is the total if the \
round ended now (R6.3). ▶ is the player to move, D the dealer. #n is a match's number, \
P/S/W its type.
"""


def help_lines(width: int, pad: Pad) -> list[Line]:
    lines: list[Line] = []
    for raw in HELP.splitlines():
        if raw.startswith("# "):
            lines.append([("class:help.head", f" {raw[2:]} ")])
            continue
        indent = len(raw) - len(raw.lstrip(" "))
        term = re.match(r"^( +\S.*?\s{2,})\S", raw)
        if term:
            cont = len(term.group(1))  # under the text of a "  term      text" line
        elif raw[:1].isdigit():
            cont = 3  # under the text of a numbered step
        else:
            cont = 0
        body = raw.strip(" ")
        for i, t in enumerate(wrap(body, width - 3 - indent, width - 3 - cont)):
            lead = " " * (indent if i == 0 else cont)
            lines.append(words(" " + lead + t))
    lines.append([])
    lines.append([("class:help.head", " The score pad of this game (R7.4) ")])
    zero = dict.fromkeys(("perfect", "strong", "weak", "negative"), 0)
    lines += [[("", " "), *ln] for ln in paper_pad(pad, zero, zero, width - 2)]
    return lines
