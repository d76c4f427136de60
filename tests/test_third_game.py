"""The proof of "one table, any game" (issue 22): High Card, a third game with hidden
hands that lives in ``tests/third_game`` and changes no line outside it, registered for
each test that plays it (:func:`tests.third_game.registered`) —

- the registries' seam: a game added from outside ``splitnet/`` is found by key, header
  and record, and by the commands' ``--game``, for the block it is registered in only;
- played on this machine end to end, its transcript verified (``splitnet verify``) and
  replayed (``splitnet replay``), its record checked by its own referee;
- played over the in-memory LAN (a real host and joiners, virtual time), then its
  rematch: the same seats, the deal passed left, the pair verified in order;
- and nothing under ``splitnet/`` names it.
"""

from __future__ import annotations

import asyncio
import copy
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

import splitnet
from splitnet import frontends, games
from splitnet.app.lan_session import LAN_PARTS
from splitnet.game.rematch import Rematch
from splitnet.games import GameSpec
from splitnet.net.config import NetSettings
from splitnet.net.host import HostNode
from splitnet.net.peer import PeerNode
from splitnet.session.identity import Identity
from splitnet.session.transcript import read_transcript
from splitnet.verify import chain_problem, run_verify, verify_records
from tests.memnet import MemoryNet
from tests.test_net_splito_mem import previous, rematch_lobby, splitlogs
from tests.test_net_timing import stop
from tests.third_game import FRONT, KEY, SPEC, registered
from tests.third_game.bot import Bot
from tests.third_game.core import HighCardCore
from tests.third_game.local import play_local
from tests.third_game.record import check_record
from tests.third_game.session import HighCardNetSession
from tests.virtual_time import VirtualLoop, virtual_time

ROOT = Path(splitnet.__file__).parent


@pytest.fixture
def highcard() -> Iterator[GameSpec]:
    with registered() as spec:
        yield spec


# ---------------------------------------------------------------------- the seam
def test_a_registered_game_is_found_for_its_block_only_and_the_built_in_two_stay() -> None:
    built_in = games.GAMES
    assert games.find(KEY) is None and games.game_of({"game": KEY}) is games.FIRST
    with registered() as spec:
        assert spec is SPEC and games.by_key(KEY) is SPEC
        assert games.game_of({"game": KEY}) is SPEC
        assert games.game_of_record({"format": SPEC.record_format}) is SPEC
        assert games.games() == (*built_in, SPEC) and games.GAMES == built_in
        assert KEY not in games.BY_KEY  # the built-in table is as it was
        assert frontends.front_end(SPEC) is FRONT and frontends.bench_of(KEY) is None
        assert frontends.front_ends()[-1] is FRONT and KEY not in frontends.benched()
        with pytest.raises(ValueError, match="taken"):
            games.register(SPEC)
        with pytest.raises(ValueError, match="front ends already"):
            frontends.register(FRONT)
    assert games.find(KEY) is None and games.games() == built_in
    with pytest.raises(KeyError):
        games.by_key(KEY)
    with pytest.raises(KeyError):
        frontends.front_end(SPEC)
    with pytest.raises(ValueError, match="taken"):
        games.register(games.FIRST)
    from splitnet.cli import build_parser

    with pytest.raises(SystemExit):  # not registered: no command takes its key
        build_parser(["host"]).parse_args(["host", "--game", KEY])


def test_the_commands_take_a_registered_games_key(highcard: GameSpec) -> None:
    """``--game`` of ``host``, ``selfplay`` and ``play`` offer every registered game (they
    were a fixed list of the built-in two); a command High Card has says so."""
    from splitnet.cli import build_parser

    for argv in (["host", "--game", KEY, "--port", "0"], ["selfplay", "--game", KEY],
                 ["play", "--game", KEY]):
        assert build_parser(argv).parse_args(argv).game == KEY
    assert build_parser(["bench", "splito"]).parse_args(["bench", "splito"]).what == "splito"
    args = build_parser(["selfplay", "--game", KEY]).parse_args(["selfplay", "--game", KEY])
    assert frontends.front_end(games.by_key(args.game)).selfplay(args, []) == 2
    choice = FRONT.choice(None, 3, 600.0, True)
    assert choice.spec is SPEC and choice.name == "High Card" and choice.header is not None
    SPEC.check_header(choice.header(3), 3)  # (ValueError if it refused it)


def test_a_lan_seat_runs_a_registered_games_own_table_and_warns_of_an_unconfirmed_log(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``host``/``join`` give a person's seat the game's own table (FrontEnd.table; it was
    Split's for every game but Splito), with the rematch offer it is for; and a joiner's
    warning that a player never confirmed the final log is printed whatever the game (it
    was only for Split's session)."""
    from dataclasses import replace
    from types import SimpleNamespace

    from splitnet.app import lan_table as lan  # (_front_end; _print_result it imports)

    asked: list[tuple[bool, bool, str | None]] = []

    async def table(_session: object, plain: bool, bell: bool,
                    rematch: str | None) -> tuple[int, bool]:
        asked.append((plain, bell, rematch))
        return 0, True

    rec = play_local(["Ana", "Bo"], 11, hand=2).cores[0].record
    core = SimpleNamespace(finished=False, verdict=None, record=rec)
    session = SimpleNamespace(table=SimpleNamespace(spec=SPEC, core=core), unconfirmed=["Bo"])
    with frontends.registered(replace(FRONT, table=table)):
        assert asyncio.run(lan._front_end(session, True, tmp_path, False,  # type: ignore[arg-type]
                                          rematch=True, host=True)) == (0, False)
        assert asked == [(True, False, "host")]
        assert "No rematch after a game that stopped early." in capsys.readouterr().out
        core.finished = True
        session.table.files = SimpleNamespace(transcript=tmp_path / "g.splitlog")
        assert lan._print_result(session) == 0  # type: ignore[arg-type]
    cap = capsys.readouterr()
    assert "High Card — game over" in cap.out
    assert "warning: Bo never confirmed this final log" in cap.err


# ---------------------------------------------------------------------- on this machine
def test_a_local_game_verifies_replays_and_its_record_passes_its_referee(
        highcard: GameSpec, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "highcard.splitlog"
    game = play_local(["Ana", "Bo", "Cy"], 7, path)
    rec = game.cores[0].record
    assert rec is not None and all(c.record == rec for c in game.cores)
    assert check_record(rec).ok and len(rec["tricks"]) == 3 and sum(rec["won"]) == 3
    hands = rec["hands"]
    for seat, core in enumerate(game.cores):  # each seat read its own hand, no other
        seen = set(core.engine.faces.values())
        played = {c for t in rec["tricks"] for _, c in t["plays"]}
        assert seen == set(hands[seat]) | played
    from splitnet.session.log import Log

    log = Log.from_records(read_transcript(path))
    entries, settings = log.entries[1:], log.header.settings
    assert SPEC.progress(settings, entries, 3) == "all 3 tricks played"  # (saved games)
    moves = [i for i, e in enumerate(entries) if e.kind == "move"]
    assert SPEC.progress(settings, entries[:moves[0]], 3) == "not played yet"
    assert SPEC.progress(settings, entries[:moves[4]], 3) == "trick 2 of 3"
    v = verify_records(read_transcript(path))
    assert v.ok and v.record == rec, v.summary
    assert "High Card, 3 players: Ana, Bo, Cy" in v.summary
    capsys.readouterr()
    assert run_verify(path) == 0
    assert "shuffle fair: yes" in capsys.readouterr().out
    from splitnet.replay import run_replay

    assert run_replay(path, interactive=False) == 0
    out = capsys.readouterr().out
    assert out.startswith("High Card — game over") and "trick 3:" in out
    assert re.search(r"winner: \w+", out)
    bad = copy.deepcopy(rec)
    bad["tricks"][0]["winner"] = (bad["tricks"][0]["winner"] + 1) % 3
    assert not check_record(bad).ok


def test_unregistered_its_transcript_is_no_game_this_table_runs(tmp_path: Path) -> None:
    path = tmp_path / "highcard.splitlog"
    with registered():
        play_local(["Ana", "Bo"], 3, path, hand=2, proofs=False)
    v = verify_records(read_transcript(path))
    assert not v.ok and v.seq == 0 and "header" in v.summary


def test_a_changed_play_in_the_log_is_caught_by_the_verifier(highcard: GameSpec,
                                                             tmp_path: Path) -> None:
    """A play whose share is not the mover's true one (its proof does not verify): the
    host's core refuses it, naming the mover, and nothing is ordered."""
    from splitnet.game.table import GameError
    from tests.third_game.local import local_game

    game = local_game(["Ana", "Bo"], 5, hand=2)
    while game.mover() is None:
        game.pump()
    seat = game.mover()
    assert seat is not None
    core = game.cores[seat]
    slot = Bot().choose(core.engine, seat)
    body = core.move_message(slot)
    proof = body["share"]["proof"]
    forged = {**body["share"], "proof": bytes([proof[0] ^ 1]) + proof[1:]}
    before = len(game.log)
    with pytest.raises(GameError, match=rf"^seat {seat} at shares"):
        game.send(seat, "move", {**body, "share": forged})
    assert len(game.log) == before and not game.cores[0].engine.played


# ---------------------------------------------------------------------- over the LAN
D = NetSettings()


async def highcard_table(tmp: Path, clock: VirtualLoop, mem: MemoryNet
                         ) -> tuple[HostNode, list[PeerNode]]:
    host = HostNode(Identity.generate(), tmp / "host", "Host", D, seats=3, parts=LAN_PARTS,
                    choice=FRONT.choice(None, None, 600.0, True))
    port = await host.listen("127.0.0.1", 0, transport=mem.listen)
    peers = [PeerNode(Identity.generate(), tmp / n, n, "127.0.0.1", port, D,
                      connect=mem.connector("127.0.0.1", port), parts=LAN_PARTS)
             for n in ("Ana", "Bo")]
    for p in peers:
        p.start()
    await clock.run_until(host.started.wait(), within=5.0)
    await clock.until(lambda: all(p.ready for p in peers), "both joiners in sync", within=5.0)
    return host, peers


async def play_all(clock: VirtualLoop, host: HostNode, peers: list[PeerNode],
                   seed: int) -> list[HighCardNetSession]:
    task = asyncio.ensure_future(host.done.wait())
    sessions = [FRONT.bot(host, task, "normal", seed, None, 0.0)] + [
        FRONT.bot(p, p.task, "easy", seed + 1 + i, None, 0.0)  # type: ignore[arg-type]
        for i, p in enumerate(peers)]
    await clock.run_until(asyncio.gather(*(s.run() for s in sessions)), within=3600.0)
    played = [s for s in sessions if isinstance(s, HighCardNetSession)]
    assert len(played) == len(sessions)
    assert all(s.core.finished and s.core.verdict is None for s in played), \
        [s.verdict for s in played]
    return played


@virtual_time
async def test_a_lan_game_and_its_rematch_are_identical_on_every_seat_and_verify_as_a_pair(
        highcard: GameSpec, tmp_path: Path, clock: VirtualLoop,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A High Card table on the in-memory LAN: the joiners learn the game from the lobby
    and the header, every seat is played by a bot, the transcripts are byte-identical
    and verify; then the rematch at the same address — the same seats, the first dealer
    passed left (H3.1) — and ``splitnet verify FIRST SECOND`` checks the pair."""
    mem = MemoryNet()
    host, peers = await highcard_table(tmp_path, clock, mem)
    assert all(p.lobby_game == "High Card" and p.lobby_max == 4 for p in peers)
    assert host.table is not None and isinstance(host.table.core, HighCardCore)
    sessions = await play_all(clock, host, peers, 20)
    assert any(line.endswith(("plays 16", "plays 15", "plays 14")) or " plays " in line
               for line in sessions[1].log)
    # the rematch lobby on the same port; each joiner agrees to the host's offer
    first, again, joiners = await rematch_lobby(clock, tmp_path, mem, host, peers)
    assert first.header.settings["game"] == KEY and "rematch" not in first.header.settings
    assert again.agreed == {0, 1, 2} and again.lobby.max_players == 4  # High Card's H2
    for p in joiners:
        assert p.offer == Rematch(first.game_id, first.head, 1)
    table = again.table
    assert table is not None and isinstance(table.core, HighCardCore)
    assert table.first_dealer == 1 and table.core.engine.leader == 2  # H4.1
    h = table.log.header
    rematch = h.settings["rematch"]
    assert h.players == first.header.players
    assert isinstance(rematch, dict) and rematch["first_dealer"] == 1
    await play_all(clock, again, joiners, 40)
    second = previous(again)
    logs = splitlogs(tmp_path, "host")
    assert set(logs) == {first.game_id, second.game_id}
    for who in ("Ana", "Bo"):
        assert splitlogs(tmp_path, who) == logs  # byte-identical on every seat
    v1, v2 = verify_records(logs[first.game_id]), verify_records(logs[second.game_id])
    assert v1.ok and v2.ok, (v1.summary, v2.summary)
    assert v2.record is not None and v2.record["first_dealer"] == 1
    assert f"rematch of game {first.game_id.hex()}: Ana dealt first (H3.1)" in v2.summary
    assert chain_problem(logs[first.game_id], logs[second.game_id]) is None
    why = chain_problem(logs[second.game_id], logs[first.game_id])
    assert why is not None and "rematch: missing" in why
    files = [tmp_path / "Bo" / "games" / f"{g.hex()}.splitlog"
             for g in (first.game_id, second.game_id)]
    capsys.readouterr()
    assert run_verify(files) == 0
    out = capsys.readouterr().out
    assert out.count("shuffle fair: yes") == 2 and "first dealer Ana (H3.1): ok" in out
    await stop(clock, again, joiners, mem)
    # a seat's saved game reopens (NETWORK.md §9): its secrets checked against its own
    # entries by the spec's pledge positions, every entry re-applied to a fresh core
    from splitnet.net.store import GameFiles
    from splitnet.net.table import Table

    ana = joiners[0]
    reopened = Table.load(ana.identity, GameFiles(tmp_path / "Ana", second.game_id),
                          parts=LAN_PARTS)
    try:
        assert isinstance(reopened.core, HighCardCore) and reopened.core.finished
        assert reopened.core.record == v2.record and reopened.seat == 1
    finally:
        reopened.close()


# ---------------------------------------------------------------------- no line outside
def test_nothing_under_splitnet_names_the_third_game() -> None:
    """It is added from outside (its key, its title, its record's format, its package
    appear nowhere under splitnet/): every seam it uses is the one every game uses."""
    words = [re.compile(re.escape(w), re.IGNORECASE)
             for w in (KEY, SPEC.record_format, "third_game", "HighCard")]
    words.append(re.compile(rf"\b{SPEC.title}\b"))  # (Splito has an objective "High cards")
    hits = [f"{p.relative_to(ROOT)}: {w.pattern}" for p in sorted(ROOT.rglob("*"))
            if p.is_file() and p.suffix in (".py", ".md", ".txt", ".json")
            for w in words if w.search(p.read_text(encoding="utf-8"))]
    assert hits == []
