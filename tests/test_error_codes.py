"""The wire's error codes are data (NETWORK.md §8): one enum, the table in NETWORK.md
listing exactly its members, and a refusal's code taken from what it was refused as —
never from the wording of its reason."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import splitnet
from splitnet.game.table import GameError, OutOfTurn, UnknownKind, WrongRound
from splitnet.net.frames import HostError
from splitnet.net.peer import refused_by_host
from splitnet.net.table import game_error_code
from splitnet.net.wire import ERROR_CODES, ErrorCode, WireError

NETWORK = Path(__file__).parent.parent / "protocol" / "NETWORK.md"


def documented_codes() -> list[str]:
    """The first column of NETWORK.md §8's table, in order."""
    text = NETWORK.read_text()
    section = text[text.index("## 8. Errors"):text.index("## 9. ")]
    return re.findall(r"^\| `([a-z-]+)` \|", section, flags=re.M)


def test_network_md_lists_every_error_code_and_no_other() -> None:
    assert documented_codes() == list(ERROR_CODES)
    assert "closed" in ERROR_CODES  # the host sends it as it closes its lobby
    assert "name" not in ERROR_CODES and "shutdown" not in ERROR_CODES  # nothing sends them


def test_every_wire_error_in_the_package_is_raised_with_a_code_not_a_string() -> None:
    """mypy holds ``WireError``'s code to :class:`ErrorCode`; this holds the package's
    source to it where a value is typed Any (a frame's field): no string literal."""
    root = Path(splitnet.__file__).parent
    bad = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id == "WireError" and node.args
                    and isinstance(node.args[0], ast.Constant)):
                bad.append(f"{path.relative_to(root)}:{node.lineno}")
    assert bad == []


@pytest.mark.parametrize(("error", "code"), [
    (OutOfTurn(1, "move", "reworded: seat 2 moves now"), ErrorCode.OUT_OF_TURN),
    (WrongRound(1, "shares", "this deal is not under way"), ErrorCode.ROUND),
    (UnknownKind(1, "frob", "what is a frob?"), ErrorCode.KIND),
    # the wording that used to decide the code decides nothing now
    (GameError(1, "move", "out of turn: said in words only"), ErrorCode.ILLEGAL),
    (GameError(1, "shares", "message for round 3 during round 2"), ErrorCode.PROTOCOL),
])
def test_a_game_refusals_code_is_what_it_was_refused_as(error: GameError,
                                                        code: ErrorCode) -> None:
    assert game_error_code(error) is code


def test_a_code_the_joiner_does_not_know_is_named_shown_and_refused_as_protocol() -> None:
    e = refused_by_host(HostError("new\x1b[2Jcode", "later splitnet", True, None, None, None),
                        fatal=True)
    assert isinstance(e, WireError) and e.code is ErrorCode.PROTOCOL and e.fatal
    assert "\x1b" not in e.reason and "new" in e.reason and "later splitnet" in e.reason
    known = refused_by_host(HostError("full", "six of six", True, None, None, None),
                            fatal=True)
    assert known.code is ErrorCode.FULL and known.reason == "the host refused us: six of six"
