"""One error family (splitnet.errors): bad input is a SplitnetError with a one-line
text; a verdict is a Blame carrying seat, step and reason, whichever layer found it."""

from __future__ import annotations

import ast
import importlib
import inspect
import pickle
import pkgutil
import re
from pathlib import Path

import pytest

import splitnet
from splitnet.crypto.errors import CheatDetected, DeckUsageError
from splitnet.errors import Blame, SplitnetError
from splitnet.game.table import GameError, PledgeRefused
from splitnet.games.split.rules import Discard, Game, IllegalMove, UnknownFace
from splitnet.games.splito import engine as splito_engine
from splitnet.session.log import LogError

#: ValueErrors outside the family, each with its reason (none today).
OUTSIDE: set[str] = set()

VERDICTS = [
    CheatDetected(2, "shares", "the proof does not verify"),
    CheatDetected(None, "decrypt", "slot 7 decrypts to no card"),
    GameError(1, "move", "R4.2: a play that does not beat the table"),
    GameError(None, "alarm", "false alarm"),
    LogError("bad host signature", seat=0, code="host-sig", seq=5),
    LogError("undecodable", seat=None, code="garbage"),
    PledgeRefused(0, 3, "shuffle", "R8.1: another deck"),
]


def _all_modules() -> list[str]:
    return [m.name for m in pkgutil.walk_packages(splitnet.__path__, "splitnet.")]


def test_every_bad_input_error_is_a_splitnet_error() -> None:
    stray = []
    for name in _all_modules():
        mod = importlib.import_module(name)
        for _, cls in inspect.getmembers(mod, inspect.isclass):
            full = f"{cls.__module__}.{cls.__qualname__}"
            if (cls.__module__ == name and issubclass(cls, ValueError)
                    and not issubclass(cls, SplitnetError) and full not in OUTSIDE):
                stray.append(full)
    assert stray == []
    for full in OUTSIDE:  # the exceptions are real (the list cannot go stale)
        mod, _, cls_name = full.rpartition(".")
        assert issubclass(getattr(importlib.import_module(mod), cls_name), ValueError)


@pytest.mark.parametrize("e", VERDICTS, ids=lambda e: type(e).__name__)
def test_a_verdict_names_seat_step_and_reason_on_one_line(e: Blame) -> None:
    assert isinstance(e, Blame) and isinstance(e, SplitnetError) and isinstance(e, ValueError)
    assert e.seat is None or isinstance(e.seat, int)
    assert e.step and e.reason and e.reason in str(e)
    assert "\n" not in str(e)
    if e.seat is not None:
        assert f"seat {e.seat}" in str(e)
    back = pickle.loads(pickle.dumps(e))  # verdicts cross process pools
    assert type(back) is type(e) and str(back) == str(e)
    assert (back.seat, back.step, back.reason) == (e.seat, e.step, e.reason)
    assert back.__dict__ == e.__dict__


def test_the_layers_keep_their_own_wording_and_fields() -> None:
    assert str(VERDICTS[0]) == "seat 2 cheated at step shares: the proof does not verify"
    assert str(VERDICTS[2]) == "seat 1 at move: R4.2: a play that does not beat the table"
    assert str(VERDICTS[3]) == "an unknown seat at alarm: false alarm"
    log = VERDICTS[4]
    assert isinstance(log, LogError)
    assert str(log) == "seq 5: bad host signature [seat 0 at fault]"
    assert (log.code, log.step, log.seq) == ("host-sig", "host-sig", 5)
    refused = VERDICTS[6]
    assert isinstance(refused, PledgeRefused) and refused.round_no == 3
    assert str(refused) == ("refused to send our shuffle of round 3: R8.1: another deck "
                            "[host seat 0 at fault]")


def test_each_layer_catches_only_its_own_kind() -> None:
    """One base, three classes: a deck check (except CheatDetected) never swallows a game
    verdict, and the game never mistakes a log refusal for its own."""
    kinds = (CheatDetected, GameError, LogError)
    for a in kinds:
        for b in kinds:
            assert issubclass(a, b) == (a is b)
    with pytest.raises(GameError):
        try:
            raise GameError(1, "move", "x")
        except CheatDetected:  # pragma: no cover - must not match
            pytest.fail("a GameError is not a CheatDetected")


def test_a_bad_input_error_is_one_line_whatever_it_was_given() -> None:
    e = SplitnetError("a name with a\nnewline and a\r\nCRLF and a\u2028separator")
    assert str(e) == "a name with a newline and a CRLF and a separator"


def test_a_programming_error_is_not_in_the_family() -> None:
    assert not issubclass(DeckUsageError, SplitnetError)
    assert not issubclass(DeckUsageError, ValueError)


@pytest.mark.parametrize("cls", [IllegalMove, UnknownFace, splito_engine.IllegalMove,
                                 splito_engine.UnknownFace], ids=lambda c: c.__module__
                         + "." + c.__name__)
def test_an_illegal_move_is_bad_input_citing_its_rule(cls: type[IllegalMove]) -> None:
    """Split's and Splito's IllegalMove are in the family as bad input (nothing changed),
    not verdicts: the game core makes a peer's illegal move a GameError naming it."""
    assert issubclass(cls, SplitnetError) and not issubclass(cls, Blame)
    e = cls("R4.2", "a play that does not\nbeat the table")
    assert str(e) == "R4.2: a play that does not beat the table"  # the rule first, one line
    assert (e.rule, e.reason) == ("R4.2", "a play that does not\nbeat the table")
    back = pickle.loads(pickle.dumps(e))  # they cross process pools (bots, bench)
    assert type(back) is cls and str(back) == str(e) and back.__dict__ == e.__dict__


def test_the_engine_refuses_with_the_rule_it_breaks() -> None:
    g = Game(2)
    g.start_round(faces=list(range(104)))
    with pytest.raises(SplitnetError, match=r"^R3\.4: it is seat 1's turn") as info:
        g.apply(Discard(0, g.hands[0][0]))
    assert isinstance(info.value, IllegalMove) and info.value.rule == "R3.4"


def test_every_illegal_move_the_rules_raise_cites_a_rule() -> None:
    """From the source: the first argument of every IllegalMove/UnknownFace made in
    splitnet/games/split/rules is a rule number R… (or the phase's rule, from a table of them)."""
    root = Path(splitnet.__file__).parent / "games" / "split" / "rules"
    rule = re.compile(r"^R[1-8](\.[0-9]+[a-z]?)?$")
    seen = 0
    for path in sorted(root.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id in ("IllegalMove", "UnknownFace")):
                continue
            seen += 1
            first = node.args[0]
            if isinstance(first, ast.Constant):
                assert rule.match(first.value), f"{path.name}:{node.lineno}: {first.value!r}"
            else:
                assert (isinstance(first, ast.Subscript) and isinstance(first.value, ast.Name)
                        and first.value.id == "_PHASE_RULE"), f"{path.name}:{node.lineno}"
    from splitnet.games.split.rules.engine import _PHASE_RULE

    assert all(rule.match(v) for v in _PHASE_RULE.values())
    assert seen > 20
