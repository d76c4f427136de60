"""A seat's ``.secrets`` file is checked against its own entries in the log when a game is
reopened (NETWORK.md §9, protocol/GAME.md "Pledges"; SECURITY.md §6 rows 101–102).

The file is trusted for what only it holds — the round seeds and the pledges — but the
log proves what the seat did with them: each of its ``commit`` entries is the commitment
to a seed, each hop, shares, reveal or opening of its own was made after a pledge. A file
that disagrees with the log is not played on:

- a seed changed after its commitment was sent would have the **honest** seat send shares
  under another key than the one it committed to, and be convicted for them (DECK.md §5.3);
- an older copy restored (the pledges made since are gone) would let the seat make a
  second hop or shares on another deck, which give its permutation or its hand away to a
  host and the last shuffler serving that deck (R8.1).

Each game is a host :class:`~splitnet.net.table.Table` and joiner tables in this process,
each with its own data dir (transcript, ``.secrets`` file), passing records as bytes as the
nodes do — the real code path of a restart (``Table.load``, which ``HostNode.resume`` and
``PeerNode(resume=…)`` call), without sockets. Both games keep the same file.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from splitnet.durable import atomic_write
from splitnet.game.table import PROTOCOL
from splitnet.games.splito.core import SplitoCore, Stage, splito_header
from splitnet.games.splito.settings import SplitoSettings
from splitnet.net.host import HostNode
from splitnet.net.peer import PeerNode
from splitnet.net.store import GameFiles, GameMeta, SeedStore, meta_now
from splitnet.net.table import Table
from splitnet.session.identity import Identity
from splitnet.session.log import Player

GID = bytes(range(120, 136))
GAMES = ["split", "splito"]


class Game:
    """A host (seat 0) and two joiners in one process, each seat with its own data dir."""

    def __init__(self, tmp: Path, game: str) -> None:
        self.tmp, self.game = tmp, game
        self.ids = [Identity.from_seed(bytes([9, s]) * 16) for s in range(3)]
        players = [Player(s, f"p{s}", self.ids[s].public_key_bytes()) for s in range(3)]
        header = (splito_header(SplitoSettings.standard(3), PROTOCOL) if game == "splito"
                  else None)
        self.host = Table.new_host(self.ids[0], tmp / "p0", GID, players, True, None,
                                   header=header)
        first = self.host.log.records()[0]
        self.tables: dict[int, Table] = {0: self.host}
        for s in (1, 2):
            self.tables[s] = Table.from_header(self.ids[s], tmp / f"p{s}", first, None)
        for s in (1, 2):
            self.submit(s, *self.tables[s].author.accept(self.host.log.header_hash))

    def files(self, seat: int) -> GameFiles:
        return GameFiles(self.tmp / f"p{seat}", GID)

    def submit(self, seat: int, msg: bytes, sig: bytes) -> None:
        """The host checks and orders; every joiner in step appends the record."""
        self.host.check(msg, sig, seat)
        entry = self.host.order(msg, sig)
        for s, t in self.tables.items():
            if s != 0 and len(t.log) == entry.seq:
                t.add_record(entry.record)

    def pump(self, until: Callable[[], bool], skip: tuple[int, ...] = ()) -> None:
        """Seats but ``skip`` send what they owe, one seat at a time, until ``until()``."""
        for _ in range(100):
            if until():
                return
            for s, t in self.tables.items():
                if s not in skip and (out := t.core.outbox()):
                    for kind, body in out:
                        self.submit(s, *t.author.message(kind, body,
                                                                     seen=t.log.seen()))
                    break
            else:
                raise AssertionError("nobody owes a message")
        raise AssertionError("never reached")

    # where the game stands, on the host's core, whatever the game
    def next_shuffler(self) -> int | None:
        c = self.host.core
        if isinstance(c, SplitoCore):
            return c.objectives.next_shuffler() if c.stage is Stage.SHUFFLE_OBJECTIVES \
                else None
        r = self.host.core.round  # type: ignore[attr-defined]
        return r.deck.next_shuffler() if r.stage == "shuffle" else None

    def dealing(self) -> bool:
        c = self.host.core
        if isinstance(c, SplitoCore):
            return c.stage is Stage.DEAL
        return self.host.core.round.stage == "deal"  # type: ignore[attr-defined]

    def dealt(self, seat: int) -> bool:
        c = self.host.core
        if isinstance(c, SplitoCore):
            return seat in c.dealt_by
        return seat in self.host.core.round.dealt_by  # type: ignore[attr-defined]

    def restart(self, seat: int) -> Table:
        """The seat's process ends and starts again from its files."""
        self.tables[seat].close()
        back = Table.load(self.ids[seat], self.files(seat))
        self.tables[seat] = back
        return back

    def close(self) -> None:
        for t in self.tables.values():
            t.close()


@pytest.fixture(params=GAMES)
def game(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    g = Game(tmp_path, request.param)
    yield g
    g.close()


def _edit_seed(g: Game, seat: int, round_no: int) -> None:
    """The seat's file with another seed for ``round_no`` (an edit): the same game, seat
    and header, so the file itself loads."""
    store = SeedStore(g.files(seat).secrets, GID, seat, g.host.log.header_hash)
    store.seeds[round_no] = bytes(reversed(store.seeds[round_no]))
    store._save()


def _refused(g: Game, seat: int, what: str) -> str:
    """Reopening the seat's game is refused with one line naming the file, what does not
    match and the way on; neither the transcript nor the secrets file changes."""
    files = g.files(seat)
    log, secrets = files.transcript.read_bytes(), files.secrets.read_bytes()
    g.tables.pop(seat).close()
    with pytest.raises(ValueError) as e:
        Table.load(g.ids[seat], files)
    line = str(e.value)
    assert "\n" not in line and "Traceback" not in line
    assert line.startswith(f"{files.secrets} does not match this game's log: ")
    assert what in line, line
    assert line.endswith("restore the newest copy of that file: this seat cannot play "
                         "on without it (GAME.md \"Pledges\")")
    assert files.transcript.read_bytes() == log and files.secrets.read_bytes() == secrets
    return line


def test_a_seed_changed_after_its_commitment_is_refused_on_load_and_nothing_is_sent(
        game: Game) -> None:
    """Row 101. Every seat committed and shuffled; seat 1's round-1 seed is changed in its
    file before it restarts. Played on (the code before the check), seat 1 deals shares
    under another key than the one it committed to: every other peer convicts it ("seat 1
    at shares: … a wrong share"), and its own node stops with "an unknown seat at decrypt
    … a bug" (Splito: naming seat 2). Its restart refuses instead, naming the file and
    the round: it sends no share, and nobody is convicted. The newest copy put back, the
    same restart resumes and deals, and the game goes on."""
    g = game
    g.pump(g.dealing)
    good = g.files(1).secrets.read_bytes()
    _edit_seed(g, 1, 1)
    _refused(g, 1, "the seed of round 1 does not open our commitment in the log")
    # the host's node, with its own honest file, goes on unharmed: nothing came from
    # seat 1, no verdict
    g.pump(lambda: g.dealt(0) and g.dealt(2), skip=(1,))
    assert g.host.log.entries[-1].author != 1 and not g.dealt(1)
    assert g.host.core.verdict is None
    # the node of the seat refuses the same way (PeerNode resumes its game at start)
    meta = GameMeta(game_id=GID.hex(), role="peer", seat=1, name="p1", host="127.0.0.1:9",
                    port=0)
    with pytest.raises(ValueError, match="does not match this game's log"):
        PeerNode(g.ids[1], g.tmp / "p1", "p1", "127.0.0.1", 9, resume=meta)
    # the way on: the newest copy of the file
    g.files(1).secrets.write_bytes(good)
    back = Table.load(g.ids[1], g.files(1))
    g.tables[1] = back
    for rec in g.host.log.records()[len(back.log):]:
        back.add_record(rec)
    g.pump(lambda: g.dealt(1))
    assert g.host.core.verdict is None and back.core.verdict is None


def test_the_hosts_own_seed_changed_is_refused_when_the_host_resumes(game: Game) -> None:
    """Row 101, the host's seat: ``HostNode.resume`` refuses with the same line, before
    it listens (nothing is ordered or relayed)."""
    g = game
    g.pump(lambda: g.next_shuffler() == 1)
    _edit_seed(g, 0, 1)
    line = _refused(g, 0, "the seed of round 1 does not open our commitment in the log")
    meta = GameMeta(game_id=GID.hex(), role="host", seat=0, name="p0", host="", port=0)
    with pytest.raises(ValueError) as e:
        HostNode.resume(g.ids[0], g.tmp / "p0", meta)
    assert str(e.value) == line


def test_splitnet_host_refuses_to_resume_with_one_line_and_a_non_zero_exit(
        tmp_path: Path) -> None:
    """Row 101 at the command line: ``splitnet host --resume`` on a game whose seed was
    changed in its ``.secrets`` file ends before it listens, with one line (no
    traceback) and exit status 1; the transcript and the file are as they were."""
    g = Game(tmp_path, "split")
    g.pump(lambda: g.next_shuffler() == 1)
    g.close()
    _edit_seed(g, 0, 1)
    files = g.files(0)
    atomic_write(tmp_path / "p0" / "identity.key", bytes([9, 0]) * 16)  # seat 0's key
    files.save_meta(meta_now(game_id=GID.hex(), role="host", seat=0, name="p0", host="",
                             port=0, code="7-lunar-anchor"))
    log, secrets = files.transcript.read_bytes(), files.secrets.read_bytes()
    out = subprocess.run([sys.executable, "-m", "splitnet.cli", "host", "--plain",
                          "--data-dir", str(tmp_path / "p0"), "--resume", GID.hex()[:8],
                          "--port", "0"], capture_output=True, text=True, timeout=60,
                         stdin=subprocess.DEVNULL)
    assert out.returncode == 1, (out.stdout, out.stderr)
    assert out.stderr == (f"splitnet: cannot resume game {GID.hex()}: {files.secrets} does "
                          "not match this game's log: the seed of round 1 does not open our "
                          "commitment in the log (it was changed after the commitment was "
                          "sent); restore the newest copy of that file: this seat cannot "
                          "play on without it (GAME.md \"Pledges\")\n")
    assert files.transcript.read_bytes() == log and files.secrets.read_bytes() == secrets


def test_an_older_copy_of_the_file_restored_is_refused_on_load(game: Game) -> None:
    """Row 102. Seat 1's file is copied once it has committed, before its hop; it then
    shuffles (Splito: both decks) and the copy is restored over the file. The log holds
    its hop, the file no pledge of the deck the hop took: with that copy seat 1 would hop
    again on whatever deck a host serves — its permutation for the host and the last
    shuffler to read its hand off. Refused on load, naming the missing pledge."""
    g = game
    g.pump(lambda: g.next_shuffler() == 1)
    old = g.files(1).secrets.read_bytes()
    g.pump(g.dealing)
    assert g.files(1).secrets.read_bytes() != old  # the hop's pledge was written
    g.files(1).secrets.write_bytes(old)
    _refused(g, 1, "it has no pledge 1:shuffle, yet the log holds our shuffle made on it "
                   "(an older copy of the file")


def test_an_older_copy_without_the_deal_pledge_is_refused_on_load(game: Game) -> None:
    """Row 102, at the deal: the copy has the hop's pledge but not the deal's, and the
    log holds seat 1's deal shares — a second set on another final deck would decrypt
    its hand for the others."""
    g = game
    g.pump(g.dealing)
    old = g.files(1).secrets.read_bytes()
    g.pump(lambda: g.dealt(1), skip=(0, 2))
    g.files(1).secrets.write_bytes(old)
    kind = "deal" if g.game == "splito" else "shares"
    _refused(g, 1, f"it has no pledge 1:shares, yet the log holds our {kind} made on it")


def test_a_lost_file_is_refused_rather_than_made_anew(game: Game) -> None:
    """Row 102, the oldest copy of all — none: the log holds seat 1's commitment, the
    file is gone. A new file with a new seed would be the changed seed of row 101; the
    restart refuses and makes no file."""
    g = game
    g.pump(lambda: g.next_shuffler() == 1)
    files = g.files(1)
    g.tables.pop(1).close()
    files.secrets.unlink()
    with pytest.raises(ValueError) as e:
        Table.load(g.ids[1], files)
    assert str(e.value) == (f"{files.secrets} does not match this game's log: it has no "
                            "seed for round 1, whose commitment is in the log; restore the "
                            "newest copy of that file: this seat cannot play on without it "
                            "(GAME.md \"Pledges\")")
    assert not files.secrets.exists()


def test_an_intact_file_resumes(game: Game) -> None:
    """The control: the file as the seat left it (seeds and every pledge) resumes, at
    each point above, and the game goes on to the play with no verdict."""
    g = game
    g.pump(lambda: g.next_shuffler() == 1)
    g.restart(1)
    g.pump(g.dealing)
    g.restart(0)
    g.host = g.tables[0]
    g.restart(1)
    g.pump(lambda: g.dealt(1), skip=(0, 2))
    g.restart(1)
    g.pump(lambda: g.dealt(0) and g.dealt(1) and g.dealt(2))
    assert all(t.core.verdict is None for t in g.tables.values())
    assert all(t.log.records() == g.host.log.records() for t in g.tables.values())
