"""``splitnet replay FILE``: step through a finished game with every card open.

FILE is a transcript (``.splitlog``, verified first) or a game record (JSON,
protocol/RECORD.md, checked strictly; a Splito record, docs/SPLITO.md S12, passes the
referee first, and its steps are that game's own; anything else is
refused in one line; each game's checks and steps are its entry in
:mod:`splitnet.frontends`). At a terminal (or with ``--step``) it steps through the game one
turn at a time, forwards and backwards, showing the whole table after each step and a
prompt (:data:`STEP_HELP`); into a pipe (or with ``--all``) it prints each round's deal,
then each turn in words, and exits (a Splito game: every step with its table). Each
game's steps are its own (Split's: :mod:`splitnet.games.split.replay`); this module
holds what every game's replay shares: loading the file, and stepping through pages.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

from splitnet.games import FIRST, game_of_record
from splitnet.localfiles import (
    MAX_RECORD_BYTES,
    MAX_TRANSCRIPT_BYTES,
    LocalFileError,
    parse_json,
    read_local,
)
from splitnet.session.transcript import MAGIC, TranscriptError, records_from_bytes


def load_record(path: Path) -> dict[str, Any]:
    """The game record in *path* — a transcript (verified first) or a JSON record —
    checked strictly against RECORD.md; raises :class:`LocalFileError` (one line)."""
    data = read_local(path, limit=MAX_TRANSCRIPT_BYTES, what="transcript or game record")
    if data.startswith(MAGIC[:8]):  # b"SPLITLOG": a transcript, of any version
        from splitnet.verify import verify_records

        try:
            records = records_from_bytes(data, path)
        except TranscriptError as e:
            raise LocalFileError(path, e.args[0].removeprefix(f"{path}: ")) from None
        v = verify_records(records)
        if not v.ok or v.record is None:
            raise LocalFileError(path, f"the transcript does not verify: {v.summary}")
        rec: object = v.record
    else:
        if len(data) > MAX_RECORD_BYTES:
            raise LocalFileError(path, f"is larger than {MAX_RECORD_BYTES} bytes: not a game "
                                 "record")
        rec = parse_json(data, path, what="splitnet transcript or game record")
    from splitnet.frontends import front_end

    return front_end(game_of_record(rec) or FIRST).replay.check(rec, path)


STEP_HELP = """\
  Enter or n   next step            p   previous step
  N            go to step N         r N first step of round N
  f / l        first / last step    t   show the table again
  q            quit                 ?   this help"""


class Page(Protocol):
    """One step of any game's replay as :func:`step_through` shows it (Split's
    :class:`splitnet.games.split.replay.Step`, each other game's own): its lines, the
    table after it, its label and its round (0 for a game without rounds)."""

    @property
    def lines(self) -> list[str]: ...

    @property
    def table(self) -> str: ...

    @property
    def label(self) -> str: ...

    @property
    def round_no(self) -> int: ...



def _goto(cmd: str, cur: int, steps: Sequence[Page]) -> int | str:
    """The step a command moves to, or a one-line complaint."""
    last = len(steps) - 1
    words = cmd.split()
    if not words or words[0] in ("n", "next", "+"):
        return min(cur + 1, last)
    w = words[0]
    if w in ("p", "prev", "b", "back", "-"):
        return max(cur - 1, 0)
    if w in ("f", "first"):
        return 0
    if w in ("l", "last"):
        return last
    if w.isdigit():
        k = int(w)
        return k - 1 if 1 <= k <= len(steps) else f"there are steps 1–{len(steps)}"
    if w in ("r", "round") and len(words) == 2 and words[1].isdigit():
        r = int(words[1])
        for i, st in enumerate(steps):
            if st.round_no == r:
                return i
        return f"there is no round {r}"
    return f"unknown command {cmd[:20]!r} — type ? for the keys"


def step_through(steps: Sequence[Page], read: Callable[[], str],
                 write: Callable[[str], None], *,
                 keys: str = "Enter/n next · p back · N step · r N round · q quit · ? keys",
                 help_text: str = STEP_HELP) -> None:
    """Interactive stepping: show a step and its table, ask, move; ends on q or EOF."""
    if not steps:
        return
    cur, shown = 0, -1
    for _ in range(1_000_000):  # bounded: every answer is one line
        if cur != shown:
            st = steps[cur]
            write("\n".join(st.lines))
            write(st.table)
            shown = cur
        at_end = " (the end)" if cur == len(steps) - 1 else ""
        write(f"[step {cur + 1}/{len(steps)} · {steps[cur].label}{at_end}]  {keys}")
        try:
            cmd = read().strip().lower()
        except EOFError:
            return
        if cmd in ("q", "quit", "exit"):
            return
        if cmd in ("?", "h", "help"):
            write(help_text)
            continue
        if cmd in ("t", "table"):
            write(steps[cur].table)
            continue
        if cur == len(steps) - 1 and cmd in ("", "n", "next"):
            return  # past the last step: done
        to = _goto(cmd, cur, steps)
        if isinstance(to, str):
            write(f"! {to}")
        else:
            cur = to


def run_replay(path: Path, step: bool = False,
               wait: Callable[[], str] | None = None, *, interactive: bool | None = None) -> int:
    """Replay FILE. ``step`` (or ``interactive``, default: both ends are a terminal) steps
    through it with the table; otherwise the pages are printed one after another."""
    try:
        record = load_record(path)
    except LocalFileError as e:
        print(f"splitnet replay: {e}", file=sys.stderr)
        return 1
    if interactive is None:
        interactive = sys.stdin.isatty() and sys.stdout.isatty()
    from splitnet.frontends import front_end

    return front_end(game_of_record(record) or FIRST).replay.run(record, step or interactive,
                                                                 wait)
