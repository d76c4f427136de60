"""A LAN seat that restarts keeps the log history on screen: its session's narration of
the game so far is rebuilt from its saved transcript (in the words the live session
used), not started empty. No network: the table is reopened from files."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from splitnet.app import saved
from splitnet.app.lan_session import LAN_PARTS, NetSession
from splitnet.games.split import describe
from splitnet.games.split.bots import make_bot
from splitnet.games.split.front.selfplay import human_session
from splitnet.games.split.rules import Settings
from splitnet.net.frames import Presence
from splitnet.net.store import GameFiles
from splitnet.net.table import Table
from splitnet.session.transcript import TranscriptWriter, read_transcript

SEAT = 2  # a joiner's seat


class FakeNode:
    """Just what a NetSession reads from a node: connected, nothing to report."""

    def __init__(self, table: Table) -> None:
        self.table: Table | None = table
        self.net_status: str | None = None
        self.fatal: str | None = None
        self.epoch = 0
        self.evidence: list[tuple[int, str, str]] = []
        self.sent: list[tuple[str, dict[str, Any]]] = []

    @property
    def ready(self) -> bool:
        return True

    def subscribe(self, callback: Callable[[], None]) -> None:
        pass

    def send_game(self, kind: str, body: dict[str, Any]) -> bool:
        self.sent.append((kind, body))
        return True

    def seat_states(self) -> dict[int, tuple[Presence, int]]:
        return {}

    def watching_status(self) -> str:
        return ""  # (nobody watches)


def _saved_lan_seat(tmp_path: Path) -> tuple[Path, bytes, list[str], Any, list[bytes], int]:
    """Play a 3-seat game into round 2, narrating it live for SEAT; lay out SEAT's files
    as a LAN joiner keeps them (transcript + its own seeds) as they were at that point;
    then play on a little. Returns the joiner's data dir, the game id, the live
    narration, SEAT's identity, the records after the saved point and how many lines
    of narration the saved point had."""
    local = tmp_path / "local"
    s = human_session("Host", ["heuristic", "heuristic"], 21, Settings(),
                      shuffle_proofs=False, data_dir=local)
    g = s.game
    narrator = describe.Narrator(g.names, SEAT)
    live: list[str] = []
    g.listeners.append(lambda a, k, b: live.extend(
        narrator.after_entry(g.cores[SEAT], a, k, b).lines))
    g.send(SEAT, "chat", {"text": "hello"})
    bots = [make_bot("heuristic", 5), *s.bots[1:]]
    cut = told = 0
    for _ in range(1000):
        if g.pump():
            continue
        seat = g.mover()
        assert seat is not None
        bot = bots[seat]
        assert bot is not None
        g.play_move(seat, bot.choose(g.cores[seat].engine, seat))
        e = g.cores[0].engine
        if not cut and e.round_no == 2 and len(e.events) > 5:
            cut, told = len(g.log), len(live)
        if cut and len(g.log) >= cut + 6:
            break
    g.close()
    gid = g.log.game_id
    src = saved.load(local, GameFiles(local, gid).load_meta())
    records = read_transcript(GameFiles(local, gid).transcript)
    lan = tmp_path / "lan"
    files = GameFiles(lan, gid)
    with TranscriptWriter(files.transcript) as w:
        for rec in records[:cut]:
            w.append(rec)
    shutil.copy(saved.seat_secrets_path(src.files, SEAT, 0), files.secrets)
    return lan, gid, live, src.identity(SEAT), records[cut:], told


def test_a_restarted_joiner_shows_the_log_so_far(tmp_path: Path) -> None:
    lan, gid, live, ident, later, told = _saved_lan_seat(tmp_path)
    assert any(line.startswith("Round 2:") for line in live[:told])
    assert "Bo: hello" in live[:told] and len(live) > told
    table = Table.load(ident, GameFiles(lan, gid), parts=LAN_PARTS)
    assert table.seat == SEAT

    async def go() -> NetSession:
        task: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        return NetSession(FakeNode(table), task, bot=make_bot("heuristic", 1))

    session = asyncio.run(go())
    assert session.log[:told] == live[:told]  # every line, in the live words
    assert session.log[told:] == ["Resumed the game in round 2."]
    # the narration goes on from there: each later entry told once, as it was live
    for rec in later:
        table.add_record(rec)
    assert session.log[told + 1:] == live[told:]
    table.close()


def test_a_table_fed_live_does_not_claim_a_history(tmp_path: Path) -> None:
    """Only a table reopened from its file has told the log; one fed records after the
    header starts narrating where the session joins (the old resume path)."""
    lan, gid, _, ident, _, _ = _saved_lan_seat(tmp_path)
    files = GameFiles(lan, gid)
    records = files.transcript.read_bytes()
    recs = read_transcript(files.transcript)
    files.transcript.unlink()
    table = Table.from_header(ident, lan, recs[0], None, parts=LAN_PARTS)
    for rec in recs[1:]:
        table.add_record(rec)
    assert table.history == [] and table.narrated == 0

    async def go() -> NetSession:
        task: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        return NetSession(FakeNode(table), task, bot=make_bot("heuristic", 1))

    session = asyncio.run(go())
    assert session.log == ["Resumed the game in round 2."]
    assert files.transcript.read_bytes() == records
    table.close()


def test_a_table_given_no_narrator_tells_nothing(tmp_path: Path) -> None:
    """The network layer knows no narration: a table reopened without one
    (``TableParts``) re-applies the same log, tells nothing, and a session on it starts
    narrating where it joins."""
    lan, gid, _, ident, _, _ = _saved_lan_seat(tmp_path)
    told = Table.load(ident, GameFiles(lan, gid), parts=LAN_PARTS)
    told.close()
    table = Table.load(ident, GameFiles(lan, gid))
    assert table.narrator is None and table.history == [] and table.narrated == 0
    assert table.core.record == told.core.record and told.history

    async def go() -> NetSession:
        task: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        return NetSession(FakeNode(table), task, bot=make_bot("heuristic", 1))

    session = asyncio.run(go())
    assert session.log == ["Resumed the game in round 2."]
    table.close()


def test_a_node_that_stops_is_a_verdict_a_programming_error_is_not(tmp_path: Path) -> None:
    """The session's run turns the node's own stop (PeerFatal: the host is gone, refused
    us, cheated) into "game stopped: …"; a programming error in the node or the seat's
    player propagates instead of passing for a game verdict."""
    from splitnet.net.peer import PeerFatal

    lan, gid, _, ident, _, _ = _saved_lan_seat(tmp_path)

    async def run_with(exc: BaseException) -> NetSession:
        table = Table.load(ident, GameFiles(lan, gid), parts=LAN_PARTS)
        task: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        session = NetSession(FakeNode(table), task, bot=make_bot("heuristic", 1))
        task.set_exception(exc)
        try:
            await session.run()
        finally:
            table.close()
        return session

    stopped = asyncio.run(run_with(PeerFatal("the host closed the game")))
    assert stopped.verdict == "game stopped: the host closed the game" and stopped.finished
    with pytest.raises(AttributeError, match="no attribute"):
        asyncio.run(run_with(AttributeError("'NoneType' object has no attribute 'x'")))
