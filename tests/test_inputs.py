"""Nothing a peer sends reaches a file or a terminal; local files get one-line errors.

The attacks of protocol/SECURITY.md §6 on the seams between the game data and the machine
it is read on: a signed header naming a file as its pad; a header or record with a rules
key missing (whose value would then depend on the reader's version); control characters
in names, chat and reasons; malformed records, transcripts and settings files given to
the command line. Tracebacks are looked for where they would show: in a process of its
own (forked with the program imported already, tests/forked_cli.py; a sample through the
whole ``python -m splitnet.cli``).
"""

from __future__ import annotations

import io
import json
import os
import random
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from splitnet.cli import main
from splitnet.games.split.local import game_settings
from splitnet.games.split.rules import Settings
from splitnet.net.table import Table
from splitnet.net.wire import WireError
from splitnet.session.identity import Identity
from splitnet.session.log import Log, Player
from splitnet.session.transcript import MAGIC
from splitnet.text import shown
from splitnet.ui.lobby import HostLobby, JoinLobby
from tests import forked_cli
from tests.virtual_time import VirtualLoop, virtual_time

SPLITNET = [sys.executable, "-m", "splitnet.cli"]
IDS = [Identity.from_seed(bytes([i + 1]) * 32) for i in range(3)]
PLAYERS = [Player(i, f"p{i}", IDS[i].public_key_bytes()) for i in range(3)]
GAME = bytes(range(16))
#: what an attacker writes to a terminal: a window title (OSC), clear screen, a cursor
#: home, a carriage return over the line, a fake log line, a right-to-left override
EVIL = ("\x1b]0;pwned\x07\x1b[2J\x1b[H\rSystem: Bo cheated\nseat 2 FAILED\u202edcba"
        "\x9b31m\x7f\x08")
RAW = ("\x1b", "\x07", "\r", "\n", "\u202e", "\x9b", "\x7f", "\x08")


def run(args: list[str], timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """``splitnet ARGS`` in a process of its own, stdin from ``/dev/null``, forked."""
    return forked_cli.run(args, timeout=timeout)


def run_real(args: list[str], timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """The same through the whole ``python -m splitnet.cli``."""
    return subprocess.run(SPLITNET + args, capture_output=True, text=True, timeout=timeout,
                          check=False, stdin=subprocess.DEVNULL)


def one_line_error(r: subprocess.CompletedProcess[str]) -> str:
    # 1: the command refused it; 2: the option was refused as it was parsed (argparse)
    assert r.returncode in (1, 2), (r.returncode, r.stdout[-500:], r.stderr[-2000:])
    assert "Traceback" not in r.stderr, r.stderr
    lines = r.stderr.splitlines()
    assert len(lines) == 1, r.stderr
    return lines[0]


def transcript_of(records: list[bytes], path: Path) -> Path:
    path.write_bytes(MAGIC + b"".join(len(r).to_bytes(4, "big") + r for r in records))
    return path


def header_with(rules: Any, **extra: Any) -> bytes:
    settings = {**game_settings(Settings(), shuffle_proofs=True), "rules": rules, **extra}
    log, _ = Log.start(IDS[0], game_id=GAME, host_seat=0, players=PLAYERS, settings=settings)
    return log.records()[0]


def no_controls(text: str) -> None:
    for c in RAW:
        assert c not in text, (c, text)


# ------------------------------------------------------------------ 1. no file named


def test_a_header_naming_a_pad_file_is_refused_and_nothing_is_opened(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A signed header whose pad is a path (a FIFO that would block whoever opens it,
    /dev/zero, a relative name) is refused by a joiner, ``verify`` and ``replay`` —
    and the file is never opened."""
    fifo = tmp_path / "pad.fifo"
    os.mkfifo(fifo)
    opened: list[str] = []
    real_open, real_io_open = os.open, io.open

    def spy(path: Any, *args: Any, **kw: Any) -> Any:
        name = os.fsdecode(path) if isinstance(path, str | bytes | os.PathLike) else ""
        opened.append(name)
        if name == pad or name.endswith(("pad.fifo", "pad.json")):
            raise AssertionError(f"opened {name}")  # and never block on the FIFO
        real = real_io_open if spy.io else real_open  # type: ignore[attr-defined]
        return real(path, *args, **kw)

    def io_spy(path: Any, *args: Any, **kw: Any) -> Any:
        spy.io = True  # type: ignore[attr-defined]
        try:
            return spy(path, *args, **kw)
        finally:
            spy.io = False  # type: ignore[attr-defined]

    spy.io = False  # type: ignore[attr-defined]

    for pad in (str(fifo), "/dev/zero", "/dev/stdin", "pad.json"):
        rules = {**Settings().to_dict(), "pad": pad}
        header = header_with(rules)
        log_file = transcript_of([header], tmp_path / "h.splitlog")
        monkeypatch.setattr(os, "open", spy)
        monkeypatch.setattr(io, "open", io_spy)
        monkeypatch.setattr("builtins.open", io_spy)
        with pytest.raises(WireError, match="inline"):  # a joiner
            Table.from_header(IDS[1], tmp_path / "data", header, None)
        assert main(["verify", str(log_file)]) == 1
        assert main(["replay", str(log_file)]) == 1
        monkeypatch.undo()
        assert pad not in opened and str(fifo) not in opened, opened
        # the real commands, in a process of their own: a FIFO opened would hang them
        for cmd in ("verify", "replay"):
            line = one_line_error(run([cmd, str(log_file)], timeout=60))
            assert "pad" in line and "inline" in line, line


# ------------------------------------------------------------------ 2. every key


def test_a_header_or_record_with_a_rules_key_missing_or_unknown_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The pad in force never depends on the reader's version: a header or a record that
    leaves out a rules key (or a pad row) or adds one is refused, not filled in."""
    full = Settings().to_dict()
    cases: list[tuple[dict[str, Any], str]] = [
        ({k: v for k, v in full.items() if k != "upgrade_takes_match"},
         "missing upgrade_takes_match"),
        ({**full, "pad": {r: v for r, v in full["pad"].items() if r != "negative"}},
         "missing negative"),
        ({**full, "bonus": 1}, "unknown key 'bonus'"),
    ]
    for rules, why in cases:
        header = header_with(rules)
        with pytest.raises(WireError, match=why):
            Table.from_header(IDS[1], tmp_path / "data", header, None)
        log_file = transcript_of([header], tmp_path / "m.splitlog")
        assert main(["verify", str(log_file)]) == 1
        assert why in capsys.readouterr().err
    for extra, why in (({"colour": "red"}, "unknown key 'colour'"),):
        with pytest.raises(WireError, match=why):
            Table.from_header(IDS[1], tmp_path / "data", header_with(full, **extra), None)
    settings = game_settings(Settings(), shuffle_proofs=True)
    del settings["shuffle_proofs"]
    log, _ = Log.start(IDS[0], game_id=GAME, host_seat=0, players=PLAYERS, settings=settings)
    with pytest.raises(WireError, match="missing shuffle_proofs"):
        Table.from_header(IDS[1], tmp_path / "data", log.records()[0], None)
    # a record's settings: the same rule
    rec = json.loads(base_record(tmp_path).read_text())
    del rec["settings"]["pad"]["weak"]
    f = tmp_path / "r.json"
    f.write_text(json.dumps(rec))
    assert main(["replay", str(f)]) == 1
    assert "missing weak" in capsys.readouterr().err


# ------------------------------------------------------------------ 3. shown, not obeyed


def test_shown_replaces_every_character_a_terminal_obeys() -> None:
    out = shown(EVIL)
    no_controls(out)
    assert out.startswith("␛]0;pwned␇␛[2J␛[H␍System: Bo cheated␊seat 2 FAILED\ufffddcba")
    for c in [chr(i) for i in range(0x20)] + [chr(i) for i in range(0x7F, 0xA0)] + [
            "\u200b", "\u200e", "\u2028", "\u2029", "\u2066", "\u2069", "\ufeff", "\ue000"]:
        assert shown(f"a{c}b")[1] != c
    assert shown("Ana — 10♥ ✓") == "Ana — 10♥ ✓"
    assert len(shown("x" * 10_000)) <= 2001


async def test_a_peers_chat_with_escapes_reaches_the_plain_front_end_shown() -> None:
    """Seat 1 signs a chat message full of escape sequences; it is ordered and applied
    by every peer; the plain front end prints it with every control shown."""
    from splitnet.games.split.front.selfplay import human_session
    from splitnet.ui.plain import run_plain

    session = human_session("You", ["heuristic"], 3, Settings(), shuffle_proofs=False)
    session.game.send(1, "chat", {"text": EVIL})  # the real signed path, every core
    assert session.game.cores[0].chat[-1] == (1, EVIL)  # the log keeps what was signed
    out = io.StringIO()
    assert await run_plain(session, inp=io.StringIO(""), out=out) == 1
    text = out.getvalue()
    assert "␛]0;pwned␇" in text and "System: Bo cheated␊seat 2 FAILED" in text
    no_controls(text.replace("\n", ""))  # the front end's own line ends only
    assert not any(EVIL.split("\n")[1] in ln and not ln.startswith(session.players[1])
                   for ln in text.splitlines())  # no fake line of its own


async def test_a_peers_chat_with_escapes_reaches_the_full_screen_table_shown() -> None:
    from prompt_toolkit.application import create_app_session
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from splitnet.games.split.front.selfplay import human_session
    from splitnet.ui.tui import TuiApp
    from splitnet.ui.tui.snapshot import screen_text

    session = human_session("You", ["heuristic"], 3, Settings(), shuffle_proofs=False)
    session.game.send(1, "chat", {"text": EVIL})
    session.status = "waiting: " + EVIL  # e.g. a reason the host sent
    for line in session.log:
        no_controls(line)
    with create_pipe_input() as inp, create_app_session(input=inp, output=DummyOutput()):
        tui = TuiApp(session)
        tui.model.sync()
        text = "\n".join(screen_text(tui.app, 100, 30))
    assert "␛]0;pwned␇" in text
    no_controls(text.replace("\n", ""))


@virtual_time
async def test_a_chat_with_escapes_over_the_lan_reaches_the_other_seats_shown(
        tmp_path: Path, clock: VirtualLoop) -> None:
    """A host and two joiners (in memory, on virtual time): Bo signs a chat full of escape
    sequences; the host orders it; Ana's session (what her front end reads) shows it harmlessly,
    while every transcript keeps exactly what Bo signed."""
    from splitnet.app.lan_session import NetSession
    from splitnet.games.split.bots import make_bot
    from tests.test_attacks_net import Lan
    from tests.virtual_time import until

    lan = await Lan.start(tmp_path)
    ana, bo = lan.peers
    try:
        ana_task = lan.tasks[0]
        session = NetSession(ana, ana_task, bot=make_bot("random", 1))
        await until(lambda: bo.ready, "Bo connected")
        assert bo.send_game("chat", {"text": EVIL})
        await until(lambda: any("pwned" in ln for ln in session.log), "the chat at Ana")
        line = next(ln for ln in session.log if "pwned" in ln)
        assert line.startswith("Bo: ␛]0;pwned␇␛[2J")
        no_controls(line)
        assert ana.table is not None and (2, EVIL) in ana.table.core.chat  # as signed
    finally:
        await lan.close()


def test_lobby_models_show_peer_text_harmlessly() -> None:
    """What the lobby screens read (the players, notes and the status a host's refusal
    set) is shown, never obeyed."""
    node = SimpleNamespace(host="127.0.0.1", port=7788, host_key=None, ch=None,
                           lobby_players=[EVIL, "Bo"], lobby_keys=[b"a", b"b"], key=b"b",
                           net_status="refused: " + EVIL, table=None,
                           subscribe=lambda cb: None)
    lobby = JoinLobby(node)
    for text in [*lobby.players, *lobby.notes, lobby.status]:
        no_controls(text)
    assert lobby.players[0].startswith("␛]0;pwned␇")
    ident = Identity.from_seed(b"h" * 32)
    member = SimpleNamespace(conn=SimpleNamespace(ch=SimpleNamespace(verification=EVIL)),
                             key=b"k", name=EVIL)
    host = SimpleNamespace(lobby_names=["you", EVIL], can_start=True, table=None,
                           identity=ident, members=[member], subscribe=lambda cb: None)
    hl = HostLobby(host, "127.0.0.1:7788", code="1234-5678")
    for text in [*hl.players, *hl.notes, hl.status]:
        no_controls(text.replace("\n", ""))  # notes keep their own line breaks
    assert "verification ␛]0;pwned" in hl.notes[1]


def test_a_hosts_reasons_on_a_joiners_console_are_shown(
        capsys: pytest.CaptureFixture[str]) -> None:
    """A host's refusal of the join code, its error reasons as logged and as the joiner's
    last word: shown, never obeyed."""
    import logging

    from splitnet.app import lan_common as netrun
    from splitnet.net.secure import R_WRONG_CODE, _decode_refuse, encode_refuse

    err = _decode_refuse(encode_refuse(R_WRONG_CODE, EVIL[:60]))
    no_controls(str(err))
    assert "␛]0;pwned" in str(err)
    netrun._setup_logging("join")
    try:
        logging.getLogger("splitnet.net").warning("the host refused our move: %s", EVIL)
        netrun._logs_on_stderr = False
        netrun._report_fatal(SimpleNamespace(  # type: ignore[arg-type]
            fatal="the host stopped the game: " + EVIL, fatal_cause=None))
    finally:
        logging.getLogger("splitnet").handlers.clear()
    text = capsys.readouterr().err
    assert text.count("␛]0;pwned␇") == 2 and len(text.splitlines()) == 2
    no_controls(text.replace("\n", ""))


def test_names_and_reasons_from_files_are_shown_by_replay_and_verify(tmp_path: Path) -> None:
    """A record whose player names carry escapes (replay), a transcript whose header
    settings carry them (verify's reason): nothing raw reaches the terminal."""
    rec = json.loads(base_record(tmp_path).read_text())
    rec["players"][1]["name"] = EVIL[:32]
    f = tmp_path / "evil.json"
    f.write_text(json.dumps(rec))
    for args in (["--all"], ["--step"]):  # the pages; the steps with the table at each
        r = run(["replay", str(f), *args])  # (stdin at its end: the first step, then quit)
        assert r.returncode == 0, r.stderr
        assert "␛]0;pwned␇" in r.stdout
        no_controls(r.stdout.replace("\n", ""))
    header = header_with(Settings().to_dict(), **{EVIL: 1})
    r = run(["verify", str(transcript_of([header], tmp_path / "e.splitlog"))])
    line = one_line_error(r)
    no_controls(line)


# ------------------------------------------------------------------ 4. local files


_BASE: dict[str, Path] = {}


def base_record(tmp_path: Path) -> Path:
    """A real game record (3 players, the seeded stand-in deal), made once per run."""
    if "record" not in _BASE:
        d = Path(os.environ.get("PYTEST_TMP", tmp_path))
        f = d / "base-record.json"
        with open(os.devnull, "w") as null:
            old, sys.stdout = sys.stdout, null
            try:
                assert main(["selfplay", "-n", "3", "-s", "5", "--local-shuffle",
                             "--record", str(f)]) == 0
            finally:
                sys.stdout = old
        _BASE["record"] = f
    return _BASE["record"]


def _paths(node: Any, at: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [at]
    if isinstance(node, dict):
        for k, v in node.items():
            out += _paths(v, (*at, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _paths(v, (*at, i))
    return out


def _get(node: Any, path: tuple[Any, ...]) -> Any:
    for k in path:
        node = node[k]
    return node


def _set(root: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    _get(root, path[:-1])[path[-1]] = value
    return root


def _wrong_type(value: Any, rng: random.Random) -> Any:
    if isinstance(value, bool):
        return rng.choice(["true", 1, None])
    if isinstance(value, int):
        return rng.choice([str(value), float(value) + 0.5, None, [value], True])
    if isinstance(value, str):
        return rng.choice([7, None, [value], {"v": value}])
    if isinstance(value, list):
        return rng.choice([{"0": value}, "list", 0, None])
    return rng.choice([[value], "object", 0, None])


def mutate(text: str, i: int) -> bytes:
    """The *i*-th of many deterministic ways to break a record (each one invalid)."""
    rng = random.Random(i)
    rec = json.loads(text)
    paths = _paths(rec)[1:]
    op = i % 10
    if op == 0:  # cut the text short
        end = text.rindex("}")
        return text[:rng.randrange(0, end)].encode()
    if op == 1:  # a byte that is not UTF-8, or a NUL byte, anywhere
        at = rng.randrange(len(text))
        return text[:at].encode() + rng.choice([b"\xff", b"\xc3", b"\0"]) + text[at:].encode()
    if op == 2:  # a field removed
        dict_paths = [p for p in paths if isinstance(_get(rec, p[:-1]), dict)]
        p = rng.choice(dict_paths)
        del _get(rec, p[:-1])[p[-1]]
    elif op == 3:  # a field added
        objs = [p for p in [(), *paths] if isinstance(_get(rec, p), dict)]
        _get(rec, rng.choice(objs))[rng.choice(["extra", "9", "", "\x1b[2J"])] = 1
    elif op in (4, 5):  # a value of the wrong type
        p = rng.choice(paths)
        if p[-1] == "name":
            _set(rec, p, rng.choice(["", "x" * 33, 5]))
        else:
            _set(rec, p, _wrong_type(_get(rec, p), rng))
    elif op == 6:  # a number out of every range, or huge
        ints = [p for p in paths if type(_get(rec, p)) is int]
        p = rng.choice(ints)
        body = json.dumps(_set(rec, p, 123456789012345)).replace(
            "123456789012345", rng.choice(["10" * 3000, "-1e999999", "1" + "0" * 20]))
        return body.encode()
    elif op == 7:  # a string that is no card, type or reason of RECORD.md
        strs = [p for p in paths if isinstance(_get(rec, p), str) and p[-1] != "name"]
        _set(rec, rng.choice(strs), rng.choice(["ZZ", "1H ", "", "\x1b[31mAS", "perfectly"]))
    elif op == 8:  # nesting deeper than anything a record has
        p = rng.choice(paths)
        depth = rng.choice([40, 5000, 200_000])
        body = json.dumps(_set(rec, p, "@@"))
        return body.replace('"@@"', "[" * depth + "]" * depth, 1).encode()
    else:  # a key twice, or NaN, or a value the top level cannot be
        choice = rng.randrange(3)
        if choice == 0:
            return text.replace('"format": ', '"format": "x", "format": ', 1).encode()
        if choice == 1:
            ints = [p for p in paths if type(_get(rec, p)) is int]
            body = json.dumps(_set(rec, rng.choice(ints), 123456789012345))
            return body.replace("123456789012345", rng.choice(["NaN", "Infinity"])).encode()
        return rng.choice([b"[]", b"null", b"\"splitnet-game-record/1\"", b"", b"{}"])
    return json.dumps(rec, indent=rng.choice([None, 1])).encode()


def test_a_thousand_mutated_records_each_get_one_line_and_exit_1(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``splitnet replay`` on 1,000 deterministic mutations of a real record: every one
    is refused with exit status 1 and one line on stderr, never a traceback (in-process,
    where an escaping exception fails the test; a sample below in real processes)."""
    text = base_record(tmp_path).read_text()
    assert main(["replay", str(base_record(tmp_path))]) == 0
    capsys.readouterr()
    f = tmp_path / "m.json"
    for i in range(1000):
        f.write_bytes(mutate(text, i))
        try:
            rc = main(["replay", str(f)])
        except SystemExit as e:  # pragma: no cover - would be a failure below
            rc = e.code  # type: ignore[assignment]
        out, err = capsys.readouterr()
        assert rc == 1, (i, rc, err, f.read_bytes()[:300])
        assert len(err.splitlines()) == 1 and err.startswith("splitnet replay: "), (i, err)
        assert out == "", i


def test_mutated_records_in_a_real_process_give_one_line_and_no_traceback(
        tmp_path: Path) -> None:
    text = base_record(tmp_path).read_text()
    for i in range(0, 1000, 97):
        f = tmp_path / f"m{i}.json"
        f.write_bytes(mutate(text, i))
        one_line_error(run_real(["replay", str(f)]))


def test_missing_unreadable_and_special_paths_get_one_line(tmp_path: Path) -> None:
    fifo = tmp_path / "f.fifo"
    os.mkfifo(fifo)
    (tmp_path / "d").mkdir()
    noread = tmp_path / "secret.splitlog"
    noread.write_bytes(MAGIC)
    noread.chmod(0)
    cases = {str(tmp_path / "missing.splitlog"): "no such", str(tmp_path / "d"): "directory",
             str(fifo): "not a regular file", "/dev/zero": "not a regular file"}
    if os.geteuid() != 0:  # root reads any file
        cases[str(noread)] = "ermission"
    for cmd in ("verify", "replay"):
        for path, why in cases.items():
            line = one_line_error(run([cmd, path]))
            assert line.startswith(f"splitnet {cmd}: ") and why in line, line


def test_a_malformed_transcript_gets_one_line_from_verify(tmp_path: Path) -> None:
    """Cut, flipped, zeroed or overlong transcripts: ``replay`` says what is wrong in one
    line and exits 1; so does ``verify``, except for a torn tail, which it reports and then
    verifies the records before it (exit 3, TRANSCRIPT.md §10)."""
    good = tmp_path / "g.splitlog"
    sf = tmp_path / "s.json"
    sf.write_text(json.dumps({"rounds": 1, "hand_size": 2}))
    assert main(["selfplay", "-n", "2", "-s", "1", "--no-proofs", "--settings", str(sf),
                 "--transcript", str(good)]) == 0
    data = good.read_bytes()
    rng = random.Random(10)
    bad = tmp_path / "b.splitlog"
    variants = [data[:len(MAGIC) + 3], data[:-1], data[:len(MAGIC)] + b"\xff" * 8,
                data + b"\0\0\0\x05abc", MAGIC + (2**31).to_bytes(4, "big") + b"x"]
    for _ in range(6):
        at = rng.randrange(len(data))
        variants.append(data[:at] + bytes([data[at] ^ (1 << rng.randrange(8))]) + data[at + 1:])
    for v in variants:
        bad.write_bytes(v)
        line = one_line_error(run(["replay", str(bad)]))
        assert line.startswith("splitnet replay: "), line
        r = run(["verify", str(bad)])
        if r.returncode == 3:  # a torn tail: said, then the records before it verified
            assert "Traceback" not in r.stderr and r.stdout == "", r.stderr
            torn, last = r.stderr.splitlines()  # TRANSCRIPT.md §10: two lines
            assert "torn tail" in torn and last.startswith("incomplete"), r.stderr
        else:
            assert one_line_error(r).strip()


@pytest.mark.parametrize(("content", "why"), [
    (b'{"rounds": 2, "pad": {"weak": [0, 1\xff]}}', "not UTF-8"),
    (b'{"rounds": 2\0}', "not valid JSON"),
    (b'{"rounds": "\0"}', "not valid JSON"),
    (b"[" * 20_000 + b"]" * 20_000, "nested more than"),
    (b'{"rounds": ' + b"9" * 5000 + b"}", "digits"),
    (b'{"rounds": 1e400}', "1…20"),
    (b'{"rounds": NaN}', "NaN"),
    (b'{"pad": {"weak": [0' + b", 1" * 5000 + b"]}}", "integers"),
    (b'{"pad": {"weak": [0, 99999999999]}}', "at most"),
    (b'{"rounds": 2, "rounds": 3}', "twice"),
    (b'{"pad": "missing.json"}', "no such pad file"),
    (b'{"pad": "/dev/zero"}', "not a regular file"),
    (b'{"pad": 7}', "settings.pad"),
    (b"", "not valid JSON"),
])
def test_bad_settings_files_get_one_line(tmp_path: Path, content: bytes, why: str) -> None:
    f = tmp_path / "s.json"
    f.write_bytes(content)
    r = run(["selfplay", "-n", "2", "--local-shuffle", "--settings", str(f)])
    line = one_line_error(r)
    assert line.startswith("splitnet: --settings ") and why in line, line


def test_oversize_and_special_settings_paths_get_one_line(tmp_path: Path) -> None:
    big = tmp_path / "big.json"
    big.write_bytes(b" " * (1 << 20) + b"{}")
    for path, why in ((big, "larger than"), (tmp_path, "directory"),
                      (tmp_path / "none.json", "no such settings file")):
        line = one_line_error(run(["selfplay", "--local-shuffle", "--settings", str(path)]))
        assert why in line, line


def test_bad_output_paths_and_player_counts_get_one_line(tmp_path: Path) -> None:
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    for args, why in (
        (["--local-shuffle", "--record", str(tmp_path / "no" / "r.json")], "no directory"),
        (["--local-shuffle", "--record", str(tmp_path)], "is a directory"),
        (["--local-shuffle", "--record", str(fifo)], "not a regular file"),
        (["--no-proofs", "--transcript", str(tmp_path)], "is a directory"),
        (["--players", "7"], "2 to 6 players (R3.1)"),
    ):
        line = one_line_error(run(["selfplay", "-n", "2", *args]))
        assert why in line, line


def test_host_reads_its_settings_file_as_play_does(tmp_path: Path) -> None:
    """protocol/SETTINGS.md: the local ``--settings FILE`` has every key optional (a
    missing one takes its docs/RULES.md default) and may name a pad file beside it.
    ``splitnet host`` read it as a header instead and refused ``{"rounds": 1}`` ("settings:
    missing hand_size, upgrade_takes_match, pad …") that ``play`` and ``selfplay`` take;
    its header now holds the complete rules, as theirs."""
    from splitnet.frontends import _split_choice
    from splitnet.games.split.rules import Settings

    f = tmp_path / "rules.json"
    f.write_text('{"rounds": 1, "pad": "pad.json"}')
    (tmp_path / "pad.json").write_text(json.dumps(Settings().pad.to_dict()))
    choice = _split_choice(str(f), None, 600.0, proofs=False)
    assert choice.header is not None
    header = choice.header(3)
    assert header["rules"] == Settings(rounds=1).to_dict() and not header["shuffle_proofs"]
    f.write_text('{"rounds": 0}')
    with pytest.raises(SystemExit) as e:
        _split_choice(str(f), None, 600.0, proofs=False)
    assert str(e.value).startswith("splitnet: ") and "rounds" in str(e.value)
    assert str(f) in str(e.value)
