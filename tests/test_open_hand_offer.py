"""R8.6 on the host's screen: a seat the game has waited for, disconnected, for a while
is offered to the host — a line naming it and the key ``o`` in the full-screen table
(pressed twice: ask, then confirm), a prompt in plain mode. Either makes the same
``abandon`` entry ``host --open-hand-after`` makes, through the host's own path (signed,
checked on its core, ordered); the others read it in the log. A player back in time is
offered no more. The clock is the test's: no wall-clock waits."""

from __future__ import annotations

import asyncio
import io
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from splitnet.app import saved
from splitnet.app.lan_session import LAN_PARTS, NetSession
from splitnet.frontend import HumanAgent
from splitnet.games.split import describe
from splitnet.games.split.bots import make_bot
from splitnet.games.split.front.selfplay import human_session
from splitnet.games.split.rules import IllegalMove, Settings
from splitnet.net.frames import Presence
from splitnet.net.store import GameFiles
from splitnet.net.table import Table
from splitnet.session.log import Entry
from splitnet.session.transcript import TranscriptWriter, read_transcript
from splitnet.ui.plain import run_plain
from splitnet.ui.plain_io import REASK_OPEN_HAND
from splitnet.ui.tui import TuiApp
from splitnet.ui.tui.snapshot import screen_text
from tests.virtual_time import VirtualLoop, virtual_time

LEAVER = 2


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class HostSeat:
    """Just what a NetSession reads from the host's node, and the host's own way of
    saying something (HostNode.send_game: signed, checked on its core, ordered)."""

    def __init__(self, table: Table) -> None:
        self.table: Table | None = table
        self.net_status: str | None = None
        self.fatal: str | None = None
        self.epoch = 0
        self.evidence: list[tuple[int, str, str]] = []
        self.states: dict[int, tuple[Presence, int]] = {1: (Presence.OK, 0),
                                                      LEAVER: (Presence.GONE, 0)}
        self.sent: list[tuple[str, dict[str, Any]]] = []
        self._subs: list[Callable[[], None]] = []

    @property
    def ready(self) -> bool:
        return True

    def subscribe(self, callback: Callable[[], None]) -> None:
        self._subs.append(callback)

    def changed(self) -> None:
        for cb in list(self._subs):
            cb()

    def watching_status(self) -> str:
        return ""  # (nobody watches)

    def send_game(self, kind: str, body: dict[str, Any]) -> bool:
        table = self.table
        assert table is not None
        msg, sig = table.author.message(kind, body, seen=table.log.seen())
        table.check(msg, sig, table.seat)
        table.order(msg, sig)
        self.sent.append((kind, body))
        return True

    def seat_states(self) -> dict[int, tuple[Presence, int]]:
        return dict(self.states)


def host_waiting_for_the_leaver(tmp_path: Path) -> tuple[Path, bytes, Any]:
    """A 3-seat game played (host at seat 0, bots elsewhere) until it waits for the
    leaver's move alone; the host's files laid out as a LAN host keeps them."""
    local = tmp_path / "local"
    s = human_session("Host", ["heuristic", "heuristic"], 7, Settings(),
                      shuffle_proofs=False, data_dir=local)
    g = s.game
    bots = [make_bot("heuristic", 5), *s.bots[1:]]
    for _ in range(2000):
        c = g.cores[0]
        r = c.round
        if (r is not None and r.stage == "play" and c.waiting_for() == [LEAVER]
                and g.cores[LEAVER].can_move()):
            break
        if g.pump():
            continue
        seat = g.mover()
        assert seat is not None
        bot = bots[seat]
        assert bot is not None
        g.play_move(seat, bot.choose(g.cores[seat].engine, seat))
    else:  # pragma: no cover
        raise AssertionError("the game never waited for the leaver alone")
    g.close()
    gid = g.log.game_id
    src = saved.load(local, GameFiles(local, gid).load_meta())
    lan = tmp_path / "lan"
    files = GameFiles(lan, gid)
    with TranscriptWriter(files.transcript) as w:
        for rec in read_transcript(GameFiles(local, gid).transcript):
            w.append(rec)
    shutil.copy(saved.seat_secrets_path(src.files, 0, 0), files.secrets)
    return lan, gid, src.identity(0)


@pytest.fixture
def host_table(tmp_path: Path):  # type: ignore[no-untyped-def]
    lan, gid, ident = host_waiting_for_the_leaver(tmp_path)
    table = Table.load(ident, GameFiles(lan, gid), parts=LAN_PARTS)
    assert table.seat == table.host_seat == 0
    assert table.core.waiting_for() == [LEAVER]
    yield table
    table.close()


def host_session(table: Table, clock: Clock) -> tuple[NetSession, HostSeat]:
    node = HostSeat(table)
    task: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
    return NetSession(node, task, human=HumanAgent(), clock=clock), node


def test_the_offer_comes_after_the_wait_and_goes_when_the_player_is_back(
        host_table: Table) -> None:
    clock = Clock()

    async def go() -> None:
        session, node = host_session(host_table, clock)
        assert session.hosting and session.open_hand_offer() is None
        clock.now += 29
        node.changed()
        assert session.open_hand_offer() is None
        clock.now += 2
        assert session.open_hand_offer() == (LEAVER, 31)
        node.states[LEAVER] = (Presence.OK, 0)  # back in time: simply resumed
        node.changed()
        assert session.open_hand_offer() is None
        with pytest.raises(IllegalMove, match="not to be given up now"):
            await session.abandon(LEAVER)
        node.states[LEAVER] = (Presence.GONE, 0)  # gone again: the wait starts over
        node.changed()
        clock.now += 29
        assert session.open_hand_offer() is None
        assert node.sent == [] and host_table.core.open_seats == set()

    asyncio.run(go())


def test_only_the_hosts_seat_is_offered_anything(tmp_path: Path) -> None:
    lan, gid, _ = host_waiting_for_the_leaver(tmp_path)
    src = saved.load(tmp_path / "local", GameFiles(tmp_path / "local", gid).load_meta())
    joiner = tmp_path / "joiner"
    files = GameFiles(joiner, gid)
    files.transcript.parent.mkdir(parents=True)
    shutil.copy(GameFiles(lan, gid).transcript, files.transcript)
    shutil.copy(saved.seat_secrets_path(src.files, 1, 0), files.secrets)
    table = Table.load(src.identity(1), files, parts=LAN_PARTS)
    clock = Clock()

    async def go() -> None:
        node = HostSeat(table)
        task: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        session = NetSession(node, task, human=HumanAgent(), clock=clock)
        clock.now += 3600
        node.changed()
        assert not session.hosting and session.open_hand_offer() is None

    asyncio.run(go())
    table.close()


def test_the_full_screen_table_names_the_seat_and_o_twice_abandons_it(
        host_table: Table) -> None:
    clock = Clock()
    heard: list[Entry] = []

    async def go() -> None:
        session, node = host_session(host_table, clock)
        host_table.listeners.append(heard.append)
        with create_pipe_input() as inp, create_app_session(input=inp, output=DummyOutput()):
            tui = TuiApp(session)
            m = tui.model
            m.sync()
            tui.press("o")  # too early: says what o is for, changes nothing
            assert m.confirm_open is None and m.note is not None and "R8.6" in m.note.text
            clock.now += 45
            node.changed()
            m.sync()
            m.note = None
            assert m.instruction() == (
                "Bo has been disconnected for 45 s and the game waits for them — o plays "
                "Bo's seat open-handed (R8.6), or wait for them.")
            assert ("o", "open-hand Bo") in m.key_hints()
            text = "\n".join(screen_text(tui.app, 100, 30))
            assert "Bo has been disconnected for 45 s" in text and "open-hand Bo" in text
            tui.press("o")
            assert m.confirm_open == LEAVER
            text = "\n".join(screen_text(tui.app, 100, 30))
            assert "Give Bo's seat up for gone?" in text
            tui.press("right")  # any other key keeps waiting
            assert m.confirm_open is None
            await asyncio.sleep(0)
            assert node.sent == []
            tui.press("o")
            tui.press("o")  # confirmed
            for _ in range(100):
                if node.sent:
                    break
                await asyncio.sleep(0.01)
        assert node.sent == [("abandon", {"round": 1, "seat": LEAVER, "waited": 45})]
        assert [e.kind for e in heard] == ["abandon"]
        core = host_table.core
        assert core.open_seats == {LEAVER} and core.abandonments == [(1, LEAVER, 45)]
        assert session.open_hand_offer() is None  # done: no second offer
        said = [ln for ln in session.log if "Bo is gone" in ln]
        assert said == ["Bo is gone: this round ends as it stands and is scored; from now "
                        "on Bo's cards are dealt face up and the table plays them by fixed "
                        "rules (R8.6; the host stopped waiting after 45 s)."]

    asyncio.run(go())


def test_plain_mode_prompts_the_host_no_waits_yes_abandons(host_table: Table) -> None:
    clock = Clock()
    out = io.StringIO()

    class Answers(io.StringIO):
        """The host's answers, one per prompt; the test's clock moves after a no."""

        def readline(self, size: int | None = -1) -> str:
            line = super().readline()
            if line.startswith("n"):
                clock.now += REASK_OPEN_HAND
            return line

    async def go() -> int:
        session, _ = host_session(host_table, clock)

        def over(entry: Entry) -> None:
            if entry.kind == "abandon":
                assert isinstance(session.task, asyncio.Future)
                session.task.set_result(None)  # the test's node ends here

        host_table.listeners.append(over)
        clock.now += 31  # the game has waited 31 s when the front end looks
        # bounded: a front end that never asks fails here instead of hanging
        return await asyncio.wait_for(run_plain(session, inp=Answers("n\ny\n"), out=out),
                                      60)

    asyncio.run(go())
    text = out.getvalue()
    prompt = ("Bo has been disconnected for 31 s and the game waits for them. Play Bo's seat "
              "open-handed from now on? This round ends as it stands (dealt again if no "
              "card is dealt yet) and Bo's cards are face up, played by the computer "
              "(R8.6). [y/N] ")
    assert prompt in text
    assert f"Waiting for Bo (asked again in {REASK_OPEN_HAND} s)." in text
    assert "Bo has been disconnected for 91 s" in text  # asked again after the no
    assert text.count("[y/N]") == 2
    assert host_table.core.open_seats == {LEAVER}
    assert host_table.core.abandonments == [(1, LEAVER, 91)]
    assert "Bo is gone: this round ends as it stands" in text


def test_the_narration_tells_the_leaver_itself_what_happened() -> None:
    """The seat given up reads it in its own words when it comes back (a bot watching to
    the end, a person restarted); everyone else reads it under the seat's name."""
    body = {"round": 2, "seat": LEAVER, "waited": 120}
    assert describe.Narrator(["Host", "Ana", "Bo"], LEAVER).abandon_line(body) == (
        "Your seat was given up for gone: this round ends as it stands and is scored; "
        "from now on your cards are dealt face up and the table plays them by fixed rules "
        "(R8.6; the host stopped waiting after 120 s).")
    assert describe.Narrator(["Host", "Ana", "Bo"], 1).abandon_line(
        body, cut=False).startswith("Bo is gone: the cards are dealt again")


# ------------------------------------------------------------------ the whole path
@pytest.mark.slow
@virtual_time
async def test_on_the_lan_the_hosts_offer_gives_a_killed_seat_up_and_the_game_verifies(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """A real host and two joiners over the in-memory network on virtual time, each
    assembled as ``splitnet host``/``join`` assemble them (LAN_PARTS). Bo's node dies
    for good; the game goes on until it waits for Bo, then waits. No offer before 30 s of
    that; then the host's session offers Bo's seat, the host takes it, every peer plays
    Bo open-handed to the end, and the host's and Ana's transcripts are the same and
    verify, telling the abandonment."""
    from splitnet.net.config import NetSettings
    from splitnet.net.host import HostNode
    from splitnet.net.peer import PeerNode
    from splitnet.session.identity import Identity
    from splitnet.verify import verify_records
    from tests.memnet import MemoryNet

    # no timer of the host's own: the seat waits for the host's person (answer and move
    # timeouts far off)
    net = NetSettings(ping_interval=0.125, silent_after=0.5, host_timeout=0.75,
                      ack_interval=0.0625, final_wait=3.0, retry_first=0.0625,
                      retry_total=5.0, answer_timeout=3600.0, move_timeout=3600.0)
    mem = MemoryNet()
    host = HostNode(Identity.generate(), tmp_path / "p0", "Host", net, seats=3, proofs=False,
                    parts=LAN_PARTS)
    port = await host.listen("127.0.0.1", 0, transport=mem.listen)
    peers = [PeerNode(Identity.generate(), tmp_path / f"p{i}", name, "127.0.0.1", port, net,
                      connect=mem.connector("127.0.0.1", port), parts=LAN_PARTS)
             for i, name in ((1, "Ana"), (2, "Bo"))]
    tasks = []
    try:
        for i, p in enumerate(peers, 1):
            tasks.append(p.start())
            await clock.until(lambda i=i: len(host.members) >= i, "a joiner", within=30)
        await clock.run_until(host.started.wait(), within=30)
        ana, bo = peers
        await clock.run_until(ana.started_evt.wait(), within=30)
        await clock.run_until(bo.started_evt.wait(), within=30)
        tasks[1].cancel()  # Bo's process dies for good
        await asyncio.gather(tasks[1], return_exceptions=True)
        host_task = asyncio.ensure_future(host.done.wait())
        me = NetSession(host, host_task, bot=make_bot("heuristic", 0))
        ana_s = NetSession(ana, tasks[0], bot=make_bot("heuristic", 1))
        runs = [asyncio.ensure_future(s.run()) for s in (me, ana_s)]
        assert host.table is not None
        core = host.table.core
        since = await clock.until(lambda: LEAVER in core.waiting_for()
                                  and host.seat_states().get(LEAVER, ("ok", 0))[0] == "gone",
                                  "the game to wait for Bo, gone", within=120)
        await clock.advance(29.0)
        assert me.open_hand_offer() is None and ana_s.open_hand_offer() is None
        offered = await clock.until(lambda: me.open_hand_offer() is not None, "the offer",
                                    within=5)
        assert 30.0 <= offered - since <= 30.25
        offer = me.open_hand_offer()
        assert offer is not None and offer[0] == LEAVER and ana_s.open_hand_offer() is None
        await me.abandon(LEAVER)
        await clock.run_until(asyncio.gather(*runs), within=600)
        assert core.finished and core.verdict is None and core.open_seats == {LEAVER}
        for s in (me, ana_s):
            assert not (s.verdict or "").startswith("game stopped"), s.verdict
        told = [ln for ln in ana_s.log if ln.startswith("Bo is gone")]
        assert told and told[0].endswith(f"(R8.6; the host stopped waiting after "
                                         f"{offer[1]} s).")
        recs = [read_transcript(next((tmp_path / f"p{s}" / "games").glob("*.splitlog")),
                                repair=True) for s in (0, 1)]
        assert recs[0] == recs[1]
        v = verify_records(recs[0])
        assert v.ok and f"Bo abandoned by the host after {offer[1]} s" in v.summary
    finally:
        await host.close()
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await mem.close()
