"""What ``splitnet watch --plain`` tells (splitnet/app/lan_watch.py): the seats' own
narration for a viewer of no seat, record by record as a watcher gets them — for a
Split and a Splito game, every move and each round's audit, and never a line of a
seat's own view (its hand, its draw, its choice)."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

import pytest

from splitnet.app.lan_watch import WatchTeller
from splitnet.games.split.bots import make_bot
from splitnet.verify import EXIT_INCOMPLETE, verify_records
from tests.test_open_hand import new_game as split_game
from tests.test_splito_fair import bots as splito_bots
from tests.test_splito_fair import new_game as splito_game

SEAT_VIEW = ("You ", "Your hand", "you drew", "You drew")


def tell(records: list[bytes]) -> list[str]:
    teller = WatchTeller()
    lines: list[str] = []
    for seq, rec in enumerate(records):
        assert teller.check(rec) is None
        lines += teller.told(seq)
    assert teller.verifier.verdict() == verify_records(records)
    return lines


def test_a_watched_split_game_is_told_as_the_public_sees_it() -> None:
    g, _ = split_game(3, True, seed=5)
    g.run_bots([make_bot("normal", i) for i in range(3)])
    lines = tell(g.log.records())
    assert lines[0].startswith("Watching game ") and ": Split, 3 players" in lines[0]
    assert any(" drew a card from the pile" in x for x in lines)
    rounds = sum(x.startswith("Round ") and " over" in x for x in lines)
    assert rounds >= 2 and sum("shuffle verified" in x for x in lines) == rounds  # once each
    assert not [x for x in lines if x.startswith(SEAT_VIEW)]


def test_a_watched_splito_game_is_told_as_the_public_sees_it() -> None:
    g = splito_game(3, seed=2)
    g.run_bots(splito_bots(3))
    lines = tell(g.log.records())
    assert ": Splito, 3 players" in lines[0]
    commits = [x for x in lines if " committed " in x]
    assert commits and all("committed a play" in x for x in commits)  # S7.3: hidden
    assert not [x for x in lines if x.startswith(SEAT_VIEW)]


def test_the_watch_command_asks_for_the_watch_code_by_its_name(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A typo asks for the *watch* code again, and giving up names it: a watcher is never
    invited to type the players' join code."""
    from splitnet.app import lan_common

    typed = iter(["7-lunar-zzzzz"])
    asked: list[str] = []

    def ask(prompt: str) -> str:
        asked.append(prompt)
        try:
            return next(typed)
        except StopIteration:
            raise EOFError from None

    monkeypatch.setattr(lan_common, "_ask", ask)
    with pytest.raises(SystemExit, match="no watch code"):
        lan_common._ask_code(None, "Watch code: ", what="watch code")
    assert asked == ["Watch code: ", "Type the watch code again: "]


def test_a_narration_that_fails_is_said_once_and_every_record_is_still_checked() -> None:
    """Records that check out but that the game's narrator cannot tell (a narrator that
    raises) give one line, then none: the watch goes on with every record checked, and
    never prints a traceback (an attack review found the plain view had no such guard)."""
    g, _ = split_game(3, True, seed=5)
    g.run_bots([make_bot("normal", i) for i in range(3)])
    records = g.log.records()
    teller = WatchTeller()
    lines: list[str] = []
    for seq, rec in enumerate(records):
        assert teller.check(rec) is None
        if seq == 3:
            class Broken:
                def after_entry(self, *_: object) -> object:
                    raise KeyError("round")
            teller.narrator = Broken()  # type: ignore[assignment]
        lines += teller.told(seq)
    stopped = [x for x in lines if "narration stopped" in x]
    assert len(stopped) == 1 and "record 3: KeyError" in stopped[0], stopped
    assert lines[-1] == stopped[0]
    assert teller.verifier.verdict() == verify_records(records)


def test_a_watch_that_ends_before_any_record_says_so_and_is_not_a_success(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A watch that ends with no record of the game (quit at once on the full-screen
    table, a host that says bye in its lobby) once exited 0 printing nothing; now one
    line says nothing was watched, and the exit is 3 (incomplete), not 0."""
    from splitnet.app import lan_watch

    async def ends(self: object) -> None:
        return None

    monkeypatch.setattr(lan_watch.WatchNode, "run", ends)
    args = argparse.Namespace(addr="127.0.0.1:9", code="9-comet-tiger", name="Cy",
                              plain=True, data_dir=str(tmp_path / "w"), net_timing=None,
                              host_key=None)
    rc = asyncio.run(lan_watch.watch_main(args))
    out = capsys.readouterr().out
    assert rc == EXIT_INCOMPLETE and "Nothing was watched" in out, (rc, out)


@pytest.mark.parametrize("over", [True, False])
def test_a_watch_invitation_s_resume_secret_goes_once_the_game_is_over(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, over: bool) -> None:
    """Watched to its end through a watch invitation, the watcher drops the resume
    secret its first meeting left (``watched/invite-H.wormhole``): a rerun of the same
    command is told at once that the invitation is spent, instead of waiting out its
    retries on a resume wormhole no host serves any more. A watch cut short keeps it
    (the rerun comes back)."""
    from splitnet.app import lan_watch
    from splitnet.net.store import ResumeFile

    secret = tmp_path / "watched" / "invite-x.wormhole"
    secret.parent.mkdir(parents=True)
    secret.write_text("{}")

    class Connector:
        resume = ResumeFile(secret)
        chain = None  # (the first meeting: no resume chain yet)

        async def close(self) -> None:
            pass

    async def run(self: lan_watch.WatchNode) -> None:
        self.over = over

    monkeypatch.setattr(lan_watch, "wormhole_link", lambda *a, **k: (None, None, Connector()))
    monkeypatch.setattr(lan_watch.WatchNode, "run", run)

    async def nothing() -> None:
        pass

    monkeypatch.setattr(lan_watch.wormhole, "shutdown", nothing)
    monkeypatch.setattr(lan_watch.wormhole, "stop_twisted", lambda: None)
    args = argparse.Namespace(addr="5-inferno-quiver", code=None, name="Cy", plain=True,
                              data_dir=str(tmp_path / "w"), net_timing=None, host_key=None)
    asyncio.run(lan_watch.watch_main(args))
    assert secret.exists() is not over
