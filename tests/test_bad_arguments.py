"""Bad arguments and damaged local files, against every subcommand, as real processes:
one line naming what was wrong, no traceback, a non-zero exit, no hang, and nothing
left in the data dir that was not there before (no half-made files).

Every run is a process of its own with its own ``--data-dir`` (a temp dir holding only an
identity key), stdin from ``/dev/null`` and a timeout (a hang is a failure): forked from
a server with the program imported already (tests/forked_cli.py: the interpreter's start
and the imports skipped, the run and its way out the same), and for a few cases of each
outcome the whole ``python -m splitnet.cli`` (``test_a_few_cases_through_the_whole_program``).
Nothing is announced on the LAN (``--no-announce``); a command that connects is pointed
at 127.0.0.1 and a port that is bound but not listening (refused at once). A host that
accepts its arguments runs until it prints ``listening on port``, and is then stopped.

The sweep builds its cases from the parser itself: each option of each subcommand with
``int`` values −1, 0, 2**70 and ``abc``, floats also ``nan`` and ``inf``, strings ``''``,
300 characters and U+202E, and paths a directory, a FIFO, ``/dev/zero`` and a missing
file. A value is either refused (one line naming the option, its value or the file) or
accepted (the command's ordinary outcome for its base arguments).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from splitnet.cli import build_parser
from tests import forked_cli

TIMEOUT = 60.0  # seconds for one process; still running after it: a hang
WORKERS = 4
CODE = "7-lunar-anchor"
KEY = bytes(range(32))  # every data dir starts with this identity key (and games/)
FAST = "first_contact=0.5,connect_timeout=0.3"  # a joiner gives up on a dead port at once


@pytest.fixture
def dead_port() -> Iterator[int]:
    """A loopback port bound by this test and never listened on: a connection to it is
    refused, and no other program can take it meanwhile."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.1", 0))
    try:
        yield s.getsockname()[1]
    finally:
        s.close()


@dataclass
class Case:
    """One command line. ``words``: refused, its one error line names one of them (the
    option, the value or the file); ``refuse``: it must be refused (else the command's
    ordinary outcome, ``fine``, is right too)."""

    label: str
    args: list[str]
    words: tuple[str, ...]
    #: ``data`` files to plant before the run: name → bytes, or "fifo"/"dir"
    plant: dict[str, bytes | str] = field(default_factory=dict)
    #: the accepted outcome: "exit0", "listens", "unreachable" or "saved"
    fine: str = "exit0"
    refuse: bool = True
    #: a text stderr must hold whatever the outcome (a warning naming a file)
    say: str | None = None
    #: a command run first in the same data dir (its files are there before)
    setup: list[str] | None = None

    def __post_init__(self) -> None:
        if self.fine == "exit0":  # the LAN commands' own ordinary outcome
            self.fine = {"host": "listens", "join": "unreachable",
                         "bot": "unreachable", "watch": "unreachable"
                         }.get(self.args[0], "exit0")


@dataclass
class Outcome:
    rc: int | None  # None: hung (killed after TIMEOUT)
    stdout: str
    stderr: str
    listened: bool
    new_files: list[str]


def _data_dir(root: Path) -> Path:
    d = root / "data"
    (d / "games").mkdir(parents=True)
    d.chmod(0o700)
    (d / "games").chmod(0o700)
    key = d / "identity.key"
    key.write_bytes(KEY)
    key.chmod(0o600)
    return d


def _plant(data: Path, plant: dict[str, bytes | str]) -> None:
    for name, what in plant.items():
        p = data / name
        p.parent.mkdir(parents=True, exist_ok=True)
        if p.exists() or p.is_symlink():
            if p.is_dir():
                p.rmdir()
            else:
                p.unlink()
        if what == "fifo":
            os.mkfifo(p, 0o600)
        elif what == "dir":
            p.mkdir(mode=0o700)
        else:
            assert isinstance(what, bytes)
            p.write_bytes(what)
            p.chmod(0o600)


def _listing(d: Path) -> set[str]:
    if not d.is_dir():
        return set()
    return {str(p.relative_to(d)) for p in d.rglob("*")}


def run_case(case: Case, root: Path, real: bool = False) -> Outcome:
    """One case: forked (tests/forked_cli.py) or, ``real``, through the whole
    ``python -m splitnet.cli``."""
    root.mkdir(parents=True)
    data = _data_dir(root)
    _plant(data, case.plant)
    env = dict(os.environ, PYTHONUNBUFFERED="1", XDG_DATA_HOME=str(root / "xdg"),
               SPLITNET_NO_BELL="1")

    def line(args: list[str]) -> list[str]:
        return [a.replace("@DATA@", str(data)).replace("@ROOT@", str(root)) for a in args]

    if case.setup is not None:
        if real:
            subprocess.run([sys.executable, "-m", "splitnet.cli", *line(case.setup)],
                           cwd=root, stdin=subprocess.DEVNULL, capture_output=True, env=env,
                           timeout=TIMEOUT, check=False)
        else:
            forked_cli.run(line(case.setup), cwd=root, env=env, timeout=TIMEOUT)
    before = _listing(data)
    args = line(case.args)
    err_path = root / "stderr"
    listened = False
    p: subprocess.Popen[str] | subprocess.Popen[bytes] | forked_cli.Child
    with open(err_path, "w") as err:
        if real:
            p = subprocess.Popen([sys.executable, "-m", "splitnet.cli", *args], cwd=root,
                                 stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=err,
                                 env=env, text=True, errors="replace")
            assert p.stdout is not None
            stdout = p.stdout
        else:
            out_r, out_w = os.pipe()
            with open(os.devnull) as null:
                try:
                    p = forked_cli.popen(args, stdin=null.fileno(), stdout=out_w,
                                         stderr=err.fileno(), cwd=root, env=env)
                except BaseException:
                    os.close(out_r)
                    raise
                finally:
                    os.close(out_w)
            stdout = open(out_r, errors="replace")
    hung = threading.Event()

    def kill() -> None:
        hung.set()
        with contextlib.suppress(ProcessLookupError):
            p.kill()

    timer = threading.Timer(TIMEOUT, kill)
    timer.start()
    out: list[str] = []
    try:
        for line in stdout:
            out.append(line)
            if case.fine == "listens" and "listening on port" in line and not listened:
                listened = True
                p.send_signal(signal.SIGTERM)
        p.wait()
    finally:
        timer.cancel()
        stdout.close()
        if p.poll() is None:
            p.kill()
            p.wait()
    return Outcome(None if hung.is_set() else p.returncode, "".join(out),
                   err_path.read_text(errors="replace"), listened,
                   sorted(_listing(data) - before))


def accepted(case: Case, o: Outcome) -> bool:
    """The command's ordinary outcome for its base arguments."""
    if case.fine == "listens":
        return o.listened and o.rc == 130
    if case.fine == "unreachable":
        return o.rc == 1 and "cannot reach" in o.stderr
    if case.fine == "saved":  # a game played until stdin ended: saved to be resumed
        return o.rc in (0, 1) and "The game is saved" in o.stdout and not o.stderr.strip()
    return o.rc == 0


def problems(case: Case, o: Outcome) -> list[str]:
    """What is wrong with the outcome (empty: all right)."""
    if o.rc is None:
        return [f"hung (killed after {TIMEOUT:g} s)"]
    bad = []
    if "Traceback" in o.stderr or "Traceback" in o.stdout:
        bad.append("a traceback")
    if case.say is not None and case.say not in o.stderr:
        bad.append(f"stderr does not say {case.say!r}")
    if accepted(case, o):
        if case.refuse:
            bad.append(f"not refused (exit {o.rc})")
        return bad
    lines = [ln for ln in o.stderr.splitlines() if ln.strip()]
    if o.rc in (0, 130):
        bad.append(f"exit {o.rc}")
    if len(lines) != 1:
        bad.append(f"refused with {len(lines)} lines on stderr, not one")
    elif not any(w in lines[0] for w in case.words):
        bad.append(f"the error line names none of {case.words}")
    if o.new_files:
        bad.append(f"refused, yet left {o.new_files[:5]} in the data dir")
    return bad


def run_all(cases: list[Case], tmp_path: Path, real: bool = False) -> None:
    def one(item: tuple[int, Case]) -> str | None:
        i, case = item
        o = run_case(case, tmp_path / f"c{i}", real)
        bad = problems(case, o)
        if not bad:
            return None
        tail = (o.stderr.strip().splitlines() or [""])[-3:]
        return f"{case.label}: {'; '.join(bad)} | stderr: {' / '.join(tail)[:400]}"

    with ThreadPoolExecutor(WORKERS) as pool:
        failures = [f for f in pool.map(one, enumerate(cases)) if f is not None]
    assert not failures, f"{len(failures)} of {len(cases)} failed:\n" + "\n".join(failures)


# ------------------------------------------------------------------ base command lines


def base(sub: str, port: int) -> tuple[list[str], str]:
    """A command line of ``sub`` that ends by itself (or listens, for a host), and the
    outcome that says it accepted its arguments."""
    d = ["--data-dir", "@DATA@"]
    dead = f"127.0.0.1:{port}"
    return {
        "selfplay": (["selfplay", "--local-shuffle", "-n", "2"], "exit0"),
        "play": (["play", "--plain", "--new", "--no-proofs", "-n", "2", *d], "saved"),
        "verify": (["verify", "@ROOT@/missing.splitlog"], "any-one-line"),
        "replay": (["replay", "@ROOT@/missing.splitlog"], "any-one-line"),
        "bench": (["bench", "bots", "--games", "1", "--samples", "2", "--spread-games", "1",
                   "--no-levels", "--no-fixed", "--no-normal"], "exit0"),
        "browse": (["browse", "--timeout", "0", "--interface", "127.0.0.1"], "exit0"),
        "host": (["host", "--plain", "--new", "--no-announce", "--bind", "127.0.0.1",
                  "--port", "0", "--seats", "2", "--no-proofs", *d], "listens"),
        "join": (["join", dead, "--plain", "--code", CODE, "--net-timing", FAST, *d],
                 "unreachable"),
        "bot": (["bot", dead, "--code", CODE, "--net-timing", FAST, *d], "unreachable"),
        "watch": (["watch", dead, "--plain", "--code", CODE, "--net-timing", FAST, *d],
                  "unreachable"),
    }[sub]


# ------------------------------------------------------------------ the reported cases

_META = {"game_id": "ab" * 16, "role": "host", "seat": 0, "name": "Host", "host": "",
         "port": 0, "bind": "127.0.0.1", "finished": False, "created": 1.0, "code": CODE,
         "lobby": True, "rematch_of": ""}
_WRONG = {"game_id": 7, "role": ["host"], "seat": "0", "name": None, "host": 1,
          "port": "80", "bind": 0, "finished": "no", "created": "yesterday", "code": 5,
          "lobby": 1, "rematch_of": 3}


def _meta(role: str, port: int = 0, /, **changes: object) -> bytes:
    m: dict[str, object] = {**_META, "role": role}
    if role == "peer":
        m.update(seat=1, name="Ana", host=f"127.0.0.1:{port}", port=0, bind="", lobby=False)
    if role == "local":
        m.update(name="You", code="", bind="", lobby=False)
    m.update(changes)
    return json.dumps(m).encode()


def reported_cases(port: int) -> list[Case]:
    """The cases of the report: each a traceback or a hang before."""
    host, _ = base("host", port)
    join, _ = base("join", port)
    bot, _ = base("bot", port)
    gid = "ab" * 16
    meta = f"games/{gid}.meta"
    out: list[Case] = []
    # damaged files in the data dir
    garbage = b"\xff\xfe\x00garbage\x80"
    out.append(Case("host: known_peers.json of garbage bytes", host, ("known_peers.json",),
                    {"known_peers.json": garbage}, fine="listens", refuse=False,
                    say="known_peers.json"))
    out.append(Case("join: known_peers.json of garbage bytes", join, ("known_peers.json",),
                    {"known_peers.json": garbage}, fine="unreachable", refuse=False,
                    say="known_peers.json"))
    for who, args in (("host", host), ("bot", bot), ("join", join)):
        for what in ("fifo", "dir", garbage):
            out.append(Case(f"{who}: identity.key is {what!r}"[:60], args,
                            ("identity.key",), {"identity.key": what}))
    for f, wrong in _WRONG.items():
        out.append(Case(f"host: meta field {f} of a wrong type",
                        [a for a in host if a != "--new"], (f"{gid}.meta",),
                        {meta: _meta("host", **{f: wrong})}))
        out.append(Case(f"bot: meta field {f} of a wrong type", bot, (f"{gid}.meta",),
                        {meta: _meta("peer", port, **{f: wrong})}))
    nonew = [a for a in host if a != "--new"]
    out += [
        Case("host: meta not JSON", nonew, (f"{gid}.meta",), {meta: garbage}),
        Case("host: meta a FIFO", nonew, (f"{gid}.meta",), {meta: "fifo"}),
        Case("host: meta of a started game, no transcript", nonew, (gid,),
             {meta: _meta("host", lobby=False)}),
        Case("host: meta with a bad code", nonew, (f"{gid}.meta",),
             {meta: _meta("host", code="not a code")}),
        Case("host: meta with a bad rematch entry", nonew, (f"{gid}.meta",),
             {meta: _meta("host", rematch_of="zz" * 16)}),
        Case("host: meta with a torn transcript", nonew, (gid,),
             {meta: _meta("host", lobby=False), f"games/{gid}.splitlog": b"\x00\x00\x01"}),
        Case("host: transcript a FIFO", nonew, (f"{gid}.splitlog",),
             {meta: _meta("host", lobby=False), f"games/{gid}.splitlog": "fifo"}),
        Case("bot: secrets a FIFO", bot, (gid,),
             {meta: _meta("peer", port), f"games/{gid}.secrets": "fifo"},
             fine="unreachable", refuse=False),
        Case("play: a local meta of a wrong type", ["play", "--plain", "--data-dir",
                                                     "@DATA@"], (f"{gid}.meta",),
             {meta: _meta("local", created="x")}),
    ]
    # names: the wire's rule (1–32 printable characters), refused before connecting
    for name in ("\u202e", "x" * 33, "", "a\nb"):
        out.append(Case(f"join --name {name!r}"[:40], [*join, "--name", name], ("--name",)))
        out.append(Case(f"bot --name {name!r}"[:40], [*bot, "--name", name], ("--name",)))
        out.append(Case(f"host --name {name!r}"[:40], [*host, "--name", name], ("--name",)))
    # stdin closed: no prompt can be answered; the option that answers it is named
    d = ["--data-dir", "@DATA@"]
    out += [
        Case("host: full screen, stdin closed", ["host", "--new", "--no-announce",
                                                 "--bind", "127.0.0.1", "--port", "0", *d],
             ("--plain",)),
        Case("host --plain without --seats, stdin closed",
             ["host", "--plain", "--new", "--no-announce", "--bind", "127.0.0.1",
              "--port", "0", *d], ("--seats",)),
        Case("host --new --resume", [*host, "--resume"], ("--resume",)),
        Case("host --rematches -1", [*host, "--rematches", "-1"], ("--rematches",)),
        Case("host --net-timing ping_interval=abc", [*host, "--net-timing",
                                                     "ping_interval=abc"], ("ping_interval",)),
        Case("host --net-timing ping_interval=-1", [*host, "--net-timing",
                                                    "ping_interval=-1"], ("ping_interval",)),
        Case("host --port -1", [*host, "--port", "-1"], ("--port",)),
        Case("host --port 70000", [*host, "--port", "70000"], ("--port",)),
        Case("host --bind bogus", [*host, "--bind", "bogus"], ("--bind",)),
        Case("browse --interface 999.1.1.1", ["browse", "--timeout", "0", "--interface",
                                              "999.1.1.1"], ("--interface",)),
        Case("browse --interface not-an-ip", ["browse", "--timeout", "0", "--interface",
                                              "not-an-ip"], ("--interface",)),
        Case("join --interface bogus", ["join", "--plain", "--code", CODE, "--interface",
                                        "bogus", *d], ("--interface",)),
        Case("selfplay --players 99999999999999999999",
             ["selfplay", "--players", "99999999999999999999"], ("--players",)),
        Case("bench bots --games -1", ["bench", "bots", "--games", "-1"], ("--games",)),
        Case("play full screen, stdin closed", ["play", "--new", *d], ("--plain",)),
        Case("play --game splito full screen, stdin closed",
             ["play", "--game", "splito", "--new", *d], ("--plain",)),
        Case("join full screen, stdin closed", ["join", f"127.0.0.1:{port}", "--code", CODE,
                                                *d], ("--plain",)),
        Case("play: resume? with stdin closed", ["play", "--plain", *d], ("--new",),
             setup=["play", "--plain", "--new", "--no-proofs", "-n", "2", *d]),
    ]
    return out


def test_the_reported_cases(tmp_path: Path, dead_port: int) -> None:
    run_all(reported_cases(dead_port), tmp_path)


#: reported cases of each outcome, run again through the whole ``python -m splitnet.cli``:
#: a host that listens and is stopped, a joiner and a bot that cannot reach their host, a
#: game saved when stdin ends, refusals of a damaged file, a name and a closed stdin
WHOLE = ("host: known_peers.json of garbage bytes", "join: known_peers.json of garbage bytes",
         "bot: secrets a FIFO", "play: resume? with stdin closed", "bot: identity.key is 'fifo'",
         "host: meta not JSON", "join --name ''", "host: full screen, stdin closed",
         "browse --interface not-an-ip", "selfplay --players 99999999999999999999")


def test_a_few_cases_through_the_whole_program(tmp_path: Path, dead_port: int) -> None:
    cases = [c for c in reported_cases(dead_port) if c.label in WHOLE]
    assert len(cases) == len(WHOLE)
    run_all(cases, tmp_path, real=True)


# ------------------------------------------------------------------ the generated sweep

_SKIP = {"help", "data_dir", "net_timing"}  # (--data-dir: its own cases below)


def _kind(a: argparse.Action) -> str | None:
    """int, float, path or str — the values the sweep gives the option; None: a flag or
    a choice (argparse itself refuses those)."""
    if a.nargs == 0 or a.choices is not None or a.dest in _SKIP:
        return None
    if a.type is int:
        return "int"
    if a.type is float:
        return "float"
    name = getattr(a.type, "__name__", "")
    if "int" in name or "port" in name or "count" in name:
        return "int"
    if "seconds" in name or "float" in name:
        return "float"
    if a.metavar in ("FILE", "DIR") or a.dest in ("file", "settings", "record",
                                                  "transcript", "keep", "bench_out"):
        return "path"
    return "str"


VALUES = {
    "int": ["-1", "0", str(2**70), "abc"],
    "float": ["-1", "0", str(2**70), "abc", "nan", "inf"],
    "str": ["", "x" * 300, "\u202e"],
    "path": ["@ROOT@/adir", "@ROOT@/afifo", "/dev/zero", "@ROOT@/missing"],
}


def sweep_cases(port: int) -> list[Case]:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    cases = []
    dirs: dict[str, bytes | str] = {"../adir": "dir", "../afifo": "fifo"}
    for name, p in sub.choices.items():
        args, fine = base(name, port)
        for a in p._actions:
            kind = _kind(a)
            if kind is None:
                continue
            opt = a.option_strings[-1] if a.option_strings else None
            for v in VALUES[kind]:
                if opt is not None:
                    line = [*args, opt, v]
                else:  # a positional: in place of the base's own
                    line = [x for x in args if not x.endswith(".splitlog")
                            and not x.startswith("127.0.0.1:")]
                    line.insert(1, v)
                shown = v.replace("@ROOT@/", "")
                words = tuple(w for w in (opt or a.dest, a.metavar, shown[:20]) if w)
                cases.append(Case(f"{name} {opt or a.dest} {shown[:20]!r}", line, words,
                                  dirs if kind == "path" else {}, fine=fine, refuse=False))
    for v in ("@ROOT@/afifo", "/dev/zero", "@ROOT@/afile"):
        for name in ("play", "host", "join", "bot"):
            args, _ = base(name, port)
            line = [x if x != "@DATA@" else v for x in args]
            cases.append(Case(f"{name} --data-dir {v}", line,
                              ("--data-dir", v.split("/")[-1]),
                              {"../afifo": "fifo", "../afile": b"x"}))
    return cases


def _is_fast(c: Case) -> bool:
    """The commands without a network stack to import, and the LAN's names and ports."""
    return (c.args[0] in ("selfplay", "play", "verify", "replay", "browse")
            or any(w in c.label for w in ("--port", "--name", "--data-dir")))


def _sweep(tmp_path: Path, port: int, fast: bool) -> None:
    """One half of the sweep: each case runs in exactly one of the two tests."""
    run_all([c for c in sweep_cases(port) if _is_fast(c) == fast], tmp_path)


def test_a_fast_sweep_of_the_local_commands_and_names(tmp_path: Path, dead_port: int) -> None:
    _sweep(tmp_path, dead_port, fast=True)


@pytest.mark.slow
def test_the_rest_of_the_sweep(tmp_path: Path, dead_port: int) -> None:
    _sweep(tmp_path, dead_port, fast=False)


def test_the_forked_runs_are_real_processes(tmp_path: Path) -> None:
    """What the cases above rely on in a forked run (tests/forked_cli.py): an uncaught
    exception shows as the interpreter shows it (a traceback on stderr, exit 1), a run
    that does not end is ended by the bounded wait, a signal reaches the run alone, and
    its stdin, working directory and environment are the ones it was given."""
    boom = forked_cli.run([], timeout=TIMEOUT, call="tests.forked_cli:_boom")
    assert boom.returncode == 1 and boom.stdout == ""
    assert boom.stderr.startswith("Traceback") and "RuntimeError" in boom.stderr
    with pytest.raises(subprocess.TimeoutExpired):  # never ends by itself: not a race
        forked_cli.run([], timeout=0.5, call="tests.forked_cli:_hang")
    out_r, out_w = os.pipe()
    with open(os.devnull) as null:
        child = forked_cli.popen([], stdin=null.fileno(), stdout=out_w, stderr=out_w,
                                 call="tests.forked_cli:_hang")
    os.close(out_w)
    with open(out_r) as out:
        assert out.readline() == "waiting\n"
        assert child.poll() is None
        child.send_signal(signal.SIGTERM)
        assert child.wait(TIMEOUT) == -signal.SIGTERM
        assert out.read() == ""
    env = dict(os.environ, SPLITNET_PROBE="seen")
    probe = forked_cli.run([], timeout=TIMEOUT, cwd=tmp_path, env=env,
                           call="tests.forked_cli:_probe")
    assert probe.returncode == 0, probe.stderr
    assert json.loads(probe.stdout) == {"cwd": str(tmp_path), "probe": "seen", "stdin": ""}
    plain = forked_cli.run(["selfplay", "--players", "abc"], timeout=TIMEOUT)
    real = subprocess.run([sys.executable, "-m", "splitnet.cli", "selfplay", "--players",
                           "abc"], capture_output=True, text=True, timeout=TIMEOUT,
                          stdin=subprocess.DEVNULL, check=False)
    assert (plain.returncode, plain.stdout, plain.stderr) == (
        real.returncode, real.stdout, real.stderr)
