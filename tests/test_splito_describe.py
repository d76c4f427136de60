"""The Splito narrator (splitnet/games/splito/describe.py) on a whole fair-deck game: each
seat's log tells who committed (never what, S7.3), every turn's plays at once after the
last reveal (S5.3), the passes (S5.4), the end with every score written out (S10–S11)
and the audit (S7.5); names and chat from a peer are shown, never obeyed."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from splitnet.game.table import PROTOCOL, PledgeBook
from splitnet.games.split.local import LocalGame, SelfplaySecrets
from splitnet.games.splito.bots import make_bot
from splitnet.games.splito.core import SplitoCore, splito_header
from splitnet.games.splito.describe import SplitoNarrator, card_text, zone_name
from splitnet.games.splito.engine import Phase
from splitnet.games.splito.settings import SplitoSettings
from tests.splito_helpers import new_game as engine_game
from tests.splito_helpers import play


def _fair(n: int, names: list[str]) -> LocalGame[SplitoCore]:
    settings = SplitoSettings.standard(n)

    def make(gid: bytes, seat: int, seeds: Callable[[int], bytes], pledges: PledgeBook,
             keys: list[bytes]) -> SplitoCore:
        return SplitoCore(gid, names, settings, seat, seeds, pledges=pledges)

    return LocalGame(names, settings, SelfplaySecrets(3), make_core=make,
                     header=splito_header(settings, PROTOCOL))


def test_a_whole_game_told_to_each_seat_reveals_plays_only_all_at_once_s5_3_s7_3() -> None:
    names = ["Ana", "Bo", "Cy"]
    game = _fair(3, names)
    narrators = [SplitoNarrator(names, s) for s in range(3)]
    logs: list[list[str]] = [[], [], []]
    # at each entry: the plays of the turn in progress that are not yet all revealed
    leaks: list[str] = []

    def listen(author: int, kind: str, body: dict[str, Any]) -> None:
        for s, nar in enumerate(narrators):
            core = game.cores[s]
            news = nar.after_entry(core, author, kind, body)
            eng = core.engine
            if eng.phase is Phase.REVEAL:  # some reveals in, the turn not yet told
                for r in eng.reveals:
                    if r is not None and any(f"→ {r.side} {card_text(eng, eng.face(r.slot))}"
                                             in line and f"Turn {eng.turn} " in line
                                             for line in news.lines):
                        leaks.append(f"seat {s}: turn {eng.turn} told before every reveal")
            logs[s].extend(news.lines)

    game.listeners.append(listen)
    game.send(0, "chat", {"text": "hi\x1b]0;owned\x07"})
    game.run_bots([make_bot("normal", 5 + i) for i in range(3)])
    assert not leaks
    for s in range(3):
        text = "\n".join(logs[s])
        assert "\x1b" not in text and "\x07" not in text  # shown, never obeyed
        assert "Ana: hi␛]0;owned␇" in text
        assert logs[s][0].startswith("Ana: hi")
        assert any(line.startswith("Dealt: 13 cards each") for line in logs[s])
        assert sum(line.startswith("Your hand: ") for line in logs[s]) == 1
        turns = [line for line in logs[s] if line.startswith("Turn ") and "revealed" in line]
        assert [t.split()[1] for t in turns] == [str(t) for t in range(1, 14)]
        assert all(t.count("→") == 3 for t in turns)
        assert sum("Hands passed" in line for line in logs[s]) == 12
        commits = [line for line in logs[s] if " committed " in line and " for turn " in line]
        assert len(commits) == 3 * 13
        # S7.3: another seat's commitment line names who, never the card or the side;
        # our own tells us what we chose
        theirs = [c for c in commits if not c.startswith("You committed")]
        assert len(theirs) == 2 * 13
        assert not any("→" in c or "[" in c or "OBJ" in c for c in theirs)
        ours = [c for c in commits if c.startswith("You committed")]
        assert len(ours) == 13 and all(" → " in c and "hidden until" in c for c in ours)
        final = game.cores[s].engine.scores()
        for sc in final:
            assert f"left {sc.left_points} × right {sc.right_points} = {sc.score}" in text
        assert any(line.endswith(".") and (" win" in line) for line in logs[s])
        assert any(line.startswith("Audit passed (S7.5)") for line in logs[s])
    # every seat is told the same plays (its own as "you")
    told = [[line for line in logs[s] if "revealed" in line] for s in range(3)]
    assert [t.replace("you", "Ana") for t in told[0]] == \
           [t.replace("you", "Bo") for t in told[1]]


def test_zone_names_say_whose_zones_they_are_s3_1_s8_1() -> None:
    g3 = engine_game(3)
    assert zone_name(g3, ["Ana", "Bo", "Cy"], 2, viewer=None) == "zone Cy|Ana"
    assert zone_name(g3, ["Ana", "Bo", "Cy"], 2, viewer=0) == "zone Cy|you"
    g2 = engine_game(2)
    assert zone_name(g2, ["Ana", "Bo"], 1, viewer=0) == "your right zone"
    assert zone_name(g2, ["Ana", "Bo"], 2, viewer=0) == "Bo's left zone"


def test_a_tied_game_names_the_tie_break_s11_3() -> None:
    g = engine_game(3)
    while not g.over:
        play(g, {})
    nar = SplitoNarrator(["Ana", "Bo", "Cy"], 0)
    lines = nar.after_change(g)
    assert lines[0].startswith("Dealt:") and lines[-1].endswith(".")
    winners = g.winners()
    end = lines[-1]
    for w in winners:
        assert (["you", "Bo", "Cy"][w] in end) or (w == 0 and "You" in end)
