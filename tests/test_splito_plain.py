"""The plain Splito front end (splitnet/games/splito/front/plain.py) over the local session
(splitnet/games/splito/front/fair.py): whole games played by lines, refusals naming their rule
and changing nothing, the game saved as it is played, resumed after an interruption —
even between our commitment and its reveal (S7.3) — and verified.

The ``splitnet`` commands run forked from a server with the program imported already
(tests/forked_cli.py: a process of its own, its stdin, exit and output as the command's);
the whole game through the command and the refusal of nine players run the whole
``python -m splitnet.cli``, from a cold start."""

from __future__ import annotations

import asyncio
import io
import subprocess
import sys
from pathlib import Path
from typing import Any

from splitnet.app import saved
from splitnet.games.splito import SPLITO
from splitnet.games.splito.engine import Play
from splitnet.games.splito.front.fair import (
    SplitoFairSession,
    resume_splito,
    splito_session,
)
from splitnet.games.splito.front.plain import (
    CommandError,
    parse_play,
    render_table,
    run_splito_plain,
)
from splitnet.verify import verify_records
from tests import forked_cli

SPLITNET = [sys.executable, "-m", "splitnet.cli"]


def _play(session: SplitoFairSession, script: str) -> tuple[int, str]:
    out = io.StringIO()

    async def main() -> int:
        return await run_splito_plain(session, inp=io.StringIO(script), out=out)

    return asyncio.run(main()), out.getvalue()


def _verified(session: SplitoFairSession) -> None:
    v = verify_records(session.game.log.records())
    assert v.ok and v.record is not None, v.summary
    assert v.record["format"] == "splito-record/1"


def test_an_interrupted_game_is_resumed_after_our_commitment_and_verifies_s7_3(
        tmp_path: Path) -> None:
    session = splito_session("You", ["normal", "normal"], 5, data_dir=tmp_path)
    g = session.game
    for _ in range(200):  # up to our first play (the bots do not move here)
        if g.cores[0].can_move():
            break
        assert g.pump()
    slot = sorted(g.cores[0].engine.hands[0])[3]
    card = g.cores[0].engine.face(slot)
    g.play_move(0, Play(0, slot, "right"))  # committed; then the program stops
    g.close()
    [meta] = saved.unfinished(tmp_path)
    assert saved.game_of_saved(tmp_path, meta) is SPLITO
    listed = forked_cli.run(["play", "--saved", "--data-dir", str(tmp_path)], timeout=60)
    assert f"{meta.game_id[:12]}" in listed.stdout and " Splito " in listed.stdout
    # a Split game (`play` without --game) does not offer to resume it
    split = forked_cli.run(["play", "--plain", "--no-proofs", "--seed", "1",
                            "--data-dir", str(tmp_path)], input="q\n", timeout=120)
    assert "resume your" not in split.stdout + split.stderr
    again = resume_splito(tmp_path, meta)
    assert "Resumed the game" in again.log[-1]
    assert again.view.committed(0) and again.view.turn == 1
    rc, out = _play(again, "A left\n" * 12)
    assert rc == 0, out[-2000:]
    first = next(line for line in out.splitlines() if line.startswith("Turn 1 revealed"))
    from splitnet.games.splito.describe import card_text

    assert f"you → right {card_text(again.view, card)}" in first  # what we committed
    assert again.view.over
    _verified(again)


def test_a_saved_game_is_offered_and_listed_naming_the_game_how_far_and_the_bots(
        tmp_path: Path) -> None:
    """Left at turn 4, a Splito game is listed by ``play --saved`` with its turn and
    every bot's level, the resume question names the game, the turn and the bots, and
    leaving it again names the command that offers it (``play --game splito``; ``play``
    alone starts a Split game)."""
    session = splito_session("You", ["normal", "easy"], 3, data_dir=tmp_path)
    rc, out = _play(session, "A left\n" * 3 + "q\n")
    assert rc == 1 and out.count("Your play for turn ") == 4, out[-2000:]
    [meta] = saved.unfinished(tmp_path)
    listed = forked_cli.run(["play", "--saved", "--data-dir", str(tmp_path)], timeout=60)
    assert " Splito  turn 4 of 13\n" in listed.stdout, listed.stdout
    assert "You against Ana (normal), Bo (easy)" in listed.stdout
    r = forked_cli.run(["play", "--game", "splito", "--plain", "--data-dir",
                        str(tmp_path)], input="y\nq\n", timeout=120)
    assert ("resume your Splito game from today" in r.stdout
            and "(turn 4 of 13, against 2 bots (1 normal, 1 easy))? [Y/n]" in r.stdout), \
        r.stdout[:600] + r.stderr[-1000:]
    assert "The game is saved: `splitnet play --game splito` offers to resume it" in r.stdout
    assert saved.unfinished(tmp_path) == [meta]


def test_every_zone_is_named_once_in_the_list_of_zones() -> None:
    """``zones`` (and the end screen) name another pair's zone by its label alone:
    "Zone Ana|Bo", not "Zone (zone Ana|Bo)"."""
    from splitnet.games.splito.front.plain import all_zones_text

    session = splito_session("You", ["normal", "normal", "normal"], 2)  # not saved, not run
    g = session.game
    for _ in range(300):
        if g.cores[0].can_move():
            break
        assert g.pump()
    text = all_zones_text(session.view, session.players, 0)
    g.close()
    assert "Your left zone (zone you|Ana): " in text and "Zone Ana|Bo: " in text
    assert "Zone Bo|Cy: " in text and "(zone Ana|Bo)" not in text
    assert "(zone Bo|Cy)" not in text


def test_parse_play_reads_letters_and_card_ids_and_refuses_the_rest() -> None:
    session = splito_session("You", ["normal"], 2)  # not saved, not run
    g = session.game
    for _ in range(200):
        if g.cores[0].can_move():
            break
        assert g.pump()
    view = session.view
    text = render_table(view, session.players, 0)
    # the 2-player variant's zones are the seat's own: named once, not "(your left zone)"
    assert "Your left zone: " in text and "(your left zone)" not in text
    assert "Your hand: A " in text
    hand = sorted(view.hands[0], key=lambda s: view.face(s))
    first = parse_play("a L", view, 0)
    assert first.side == "left" and first.slot in hand
    card = view.face(hand[0])
    by_id = parse_play(f"play {card} right", view, 0)
    assert view.face(by_id.slot) == card and by_id.side == "right"
    for bad in ("A", "A up", "ZZ9 left", "A left now"):
        try:
            parse_play(bad, view, 0)
        except CommandError:
            continue
        raise AssertionError(f"{bad!r} was read as a play")


def test_a_whole_game_by_lines_through_the_command_with_refusals_then_verify(
        tmp_path: Path) -> None:
    script = ("?\nobjectives\nZ left\nA up\nA\nscores\nzones\nshow\nsay hello\n"
              + "B left\n" * 12 + "A right\n")
    r = subprocess.run([*SPLITNET, "play", "--game", "splito", "-n", "3", "--plain",
                        "--seed", "4", "--data-dir", str(tmp_path)],
                       input=script, capture_output=True, text=True, timeout=300,
                       check=False)
    out = r.stdout
    assert r.returncode == 0, r.stderr[-2000:]
    assert "Notation (S1.4): ◇3 is the number 3" in out  # help: the seed's notation
    assert "OBJ37 Green and purple fives, 4 points" in out  # objectives in words
    assert "'Z' is not a card of your hand" in out
    assert "the side is left or right" in out
    assert "a play is a card and a side" in out
    assert "! Not sent — S5.5" in out  # no chat during play by default
    assert "Scores if the game ended now (left × right, S11.1)" in out
    assert "Waiting for the commitment of: you, Ana, Bo" in out
    assert out.count("Your play for turn ") == 13
    assert "You committed " in out and "(S7.3: hidden until every play is in)" in out
    assert out.count("revealed: ") == 13 and "=== Game over ===" in out and "Winner:" in out
    assert "check it with `splitnet verify" in out
    [log] = list((tmp_path / "games").glob("*.splitlog"))
    v = forked_cli.run(["verify", str(log)], timeout=300)
    assert v.returncode == 0, v.stdout + v.stderr
    # the finished game is saved, marked over and no longer offered
    assert saved.unfinished(tmp_path) == []
    bad = subprocess.run([*SPLITNET, "play", "--game", "splito", "-n", "9", "--plain"],
                         capture_output=True, text=True, timeout=60, check=False)
    assert bad.returncode != 0 and "2 to 8 players (S2.1)" in bad.stderr


def test_n_after_the_game_starts_the_next_at_the_same_seats_saved_resumed_and_verified(
        tmp_path: Path) -> None:
    """``play --game splito --plain``: after the end, n starts a new game against the
    same players and bot levels in the same seats, dealt by the dealer's left neighbour
    (S4.1 [decision]) and saved like the first; left half-way it is resumed by the same
    command, and ``splitnet verify FIRST SECOND`` checks the pair (GAME.md "Rematch")."""
    from splitnet.net.store import GameFiles
    from splitnet.session.log import Log
    from splitnet.session.transcript import read_transcript

    cmd = ["play", "--game", "splito", "-n", "3", "--plain", "--seed", "4", "--bot", "easy",
           "--data-dir", str(tmp_path)]
    r = forked_cli.run(cmd, input="A left\n" * 13 + "n\n" + "A left\n" * 5, timeout=300)
    out = r.stdout
    assert r.returncode == 1, r.stderr[-2000:]  # the input ended during the second game
    assert out.count("=== Game over ===") == 1
    assert "Next: n new game with the same players and seats (Ana deals, S4.1) · Enter or " \
           "q quits" in out
    assert out.count("Your play for turn 1:") == 2 and "check it with `splitnet verify" in out
    [meta] = saved.unfinished(tmp_path)
    assert saved.game_of_saved(tmp_path, meta) is SPLITO
    headers = {}
    for f in (tmp_path / "games").glob("*.splitlog"):
        log = Log()
        log.append_record(read_transcript(f, repair=True)[0])
        headers["rematch" in log.header.settings] = (f, log.header)
    (first, h1), (second, h2) = headers[False], headers[True]
    assert second == GameFiles(tmp_path, meta.gid).transcript and meta.seat == 0
    assert h2.players == h1.players  # the same names and identity keys, in the same seats
    assert (h1.settings["rules"]["dealer"], h2.settings["rules"]["dealer"]) == (0, 1)
    assert h2.settings["rematch"]["first_dealer"] == 1
    assert saved.load(tmp_path, meta).bots == [None, "easy", "easy"]  # the same levels
    # the same command resumes the rematch; after its end, no third game (not n)
    r = forked_cli.run(cmd, input="y\n" + "A left\n" * 13, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "Resuming the game" in r.stderr and r.stdout.count("=== Game over ===") == 1
    assert "(Bo deals, S4.1)" in r.stdout  # what n would have started: the deal passes on
    assert saved.unfinished(tmp_path) == [] and len(list((tmp_path / "games").glob(
        "*.splitlog"))) == 2
    v = forked_cli.run(["verify", str(first), str(second)], timeout=300)
    assert v.returncode == 0, v.stdout + v.stderr
    assert "rematch of the game before: same seats and rules, first dealer Ana (S4.1): ok" \
        in v.stdout and v.stdout.count("shuffle fair: yes") == 2
    v = forked_cli.run(["verify", str(second), str(first)], timeout=300)
    assert v.returncode == 1 and "header.settings.rematch: missing" in v.stderr


def test_a_rematch_follows_only_a_game_played_to_its_end() -> None:
    from splitnet.games.splito.front.fair import splito_rematch

    session = splito_session("You", ["normal"], 2)  # not run
    try:
        splito_rematch(session, 2)
    except ValueError as e:
        assert "a rematch follows a game played to its end" in str(e)
    else:
        raise AssertionError("a rematch of an unplayed game")


def test_s5_7_the_plain_host_is_asked_to_give_a_disconnected_seat_up() -> None:
    """`--plain` on the LAN host's seat: when its session offers a seat gone for good
    (S5.7), one [y/N] question names it and what leaving means; y gives it up."""
    import io

    from splitnet.games.splito.front.plain import run_splito_plain
    from tests.test_splito_tui import StandIn, _stand_in

    class Offering(StandIn):
        def __init__(self, view: Any, players: list[str]) -> None:
            super().__init__(view, players)
            self.given_up: list[int] = []

        def open_hand_offer(self) -> tuple[int, int] | None:
            return None if self.given_up else (2, 31)

        async def abandon(self, seat: int) -> None:
            self.given_up.append(seat)

    base = _stand_in(3)
    s = Offering(base.view, base.players)
    out = io.StringIO()
    code = asyncio.run(run_splito_plain(s, inp=io.StringIO("y\n"), out=out))
    text = out.getvalue()
    assert ("Bo has been disconnected for 31 s and the game waits for them. Give Bo up for "
            "gone? Bo leaves the game for good (S5.7)") in text, text
    assert s.given_up == [2] and code == 1  # (then the input ends)
