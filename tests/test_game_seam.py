"""One table, any game (splitnet.games): above a game's own modules nothing compares
against a game's key — the network's table and lobby, the verifier, the saved games and
the commands look the game up once (:func:`splitnet.games.game_of`,
:func:`~splitnet.games.by_key`) and call its :class:`~splitnet.games.GameSpec`.

The check walks every module's syntax tree: a comparison (``==``, ``!=``, ``in``, ``is``,
a ``match`` case) or a dict literal's key whose value is a game's key — written out
(``"splito"``) or as a name imported from a module where it is one (``GAME``) — is a
branch on the game, allowed only in that game's own modules (its spec's ``modules``)."""

from __future__ import annotations

import ast
import importlib
from collections.abc import Callable
from pathlib import Path

import pytest

import splitnet
from splitnet.games import BY_KEY, FIRST, GAMES, by_key, game_of, game_of_record

ROOT = Path(splitnet.__file__).parent

#: modules that still branch on the game, each with the reason it may
NOT_YET: dict[str, str] = {
    "adversary": "the adversarial simulator drives each game's own messages (its "
                 "deviations are each game's kinds); it is split per game with the "
                 "game packages",
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _owned(module: str) -> bool:
    """Whether ``module`` (under splitnet) is one game's own, or the registry."""
    if module == "games" or module.startswith("games."):
        return True
    return any(module == m or module.startswith(m + ".") for g in GAMES for m in g.modules)


def imported_names(tree: ast.Module, package: str, keep: Callable[[object], bool]
                   ) -> set[str]:
    """The names a module (``tree``, of ``package``) imports from splitnet whose value,
    where they come from, ``keep`` accepts (under the name they are imported as)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom) or node.module is None:
            continue
        if node.level:
            base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
            source = ".".join(["splitnet", *[b for b in base if b], node.module])
        else:
            source = node.module
        if not source.startswith("splitnet"):
            continue
        try:
            mod = importlib.import_module(source)
        except ImportError:
            continue
        names.update(a.asname or a.name for a in node.names
                     if keep(getattr(mod, a.name, None)))
    return names


def _imported_keys(tree: ast.Module, package: str) -> set[str]:
    """The names this module imports that are bound to a game's key where they come
    from (``from splitnet.games.splito.core import GAME as SPLITO``)."""
    names = imported_names(tree, package, lambda v: isinstance(v, str) and v in BY_KEY)
    for node in tree.body:  # a module's own constant bound to a key
        if (isinstance(node, ast.Assign | ast.AnnAssign) and isinstance(node.value, ast.Constant)
                and node.value.value in BY_KEY):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(t.id for t in targets if isinstance(t, ast.Name))
    return names


def game_branches(source: str, package: str = "") -> list[tuple[int, str]]:
    """Every comparison against a game's key in ``source``: (line, the code)."""
    tree = ast.parse(source)
    keyed = _imported_keys(tree, package)

    def is_key(node: ast.AST | None) -> bool:
        if isinstance(node, ast.Constant):
            return isinstance(node.value, str) and node.value in BY_KEY
        if isinstance(node, ast.Name):
            return node.id in keyed
        if isinstance(node, ast.Tuple | ast.List | ast.Set):
            return any(is_key(e) for e in node.elts)
        return False

    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare) and any(is_key(x) for x in (node.left,
                                                                     *node.comparators)):
            found.append((node.lineno, ast.unparse(node)))
        elif isinstance(node, ast.MatchValue) and is_key(node.value):
            found.append((node.lineno, f"case {ast.unparse(node.value)}"))
        elif isinstance(node, ast.Dict) and any(is_key(k) for k in node.keys):
            found.append((node.lineno, ast.unparse(node)[:80]))
    return found


def test_the_check_sees_a_branch_on_the_game_however_it_is_written() -> None:
    assert [line for line, _ in game_branches('if args.game == "splito":\n    pass\n')] == [1]
    assert game_branches('x = "split" in (a, b)\n')
    assert game_branches("from splitnet.games.splito.core import GAME as G\nok = k != G\n")
    assert game_branches('match key:\n    case "split":\n        pass\n')
    assert game_branches('RULES = {"splito": 1}\n')
    assert not game_branches("if spec.named:\n    pass\nx = by_key(k).title\n")
    assert not game_branches('if kind == "splitnet":\n    pass\n')


@pytest.mark.parametrize("path", sorted(ROOT.rglob("*.py")), ids=lambda p: _module_name(p))
def test_nothing_above_a_games_own_modules_branches_on_its_key(path: Path) -> None:
    module = _module_name(path)
    if _owned(module) or module in NOT_YET:
        return
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = game_branches(path.read_text(encoding="utf-8"), package)
    assert not found, (f"splitnet/{path.relative_to(ROOT)} branches on the game (take its "
                       f"GameSpec instead, splitnet.games): " + "; ".join(
                           f"line {n}: {code}" for n, code in found))


def test_each_game_is_found_by_its_key_its_header_and_its_record() -> None:
    assert [g.key for g in GAMES] == ["split", "splito"] and FIRST is by_key("split")
    for g in GAMES:
        assert by_key(g.key) is g and game_of_record({"format": g.record_format}) is g
        assert g.min_players >= 2 and g.max_players <= 8  # the fair deck's seats
        for m in g.modules:
            importlib.import_module(f"splitnet.{m}")
    assert game_of({}) is FIRST and game_of({"game": "splito"}) is by_key("splito")
    assert game_of({"game": "chess"}) is FIRST  # (whose header check then refuses it)
    with pytest.raises(KeyError):
        by_key("chess")
    assert not FIRST.named and all(g.named for g in GAMES[1:])


def test_a_lobby_counts_its_free_seats_by_its_own_games_limit(tmp_path: Path) -> None:
    """A host without ``--seats`` announces (and, through the internet, invites) as many
    seats as its game takes: Splito 8 (S2.1), Split 6 (R3.1) — a Splito host once said
    6 − n and opened only 5 invitations."""
    from splitnet.app.lan_discovery import _Announcer
    from splitnet.games.splito import SPLITO
    from splitnet.net.config import NetSettings
    from splitnet.net.host import HostNode
    from splitnet.net.table import SPLIT, GameChoice
    from splitnet.session.identity import Identity

    for choice, free in ((GameChoice(SPLITO, SPLITO.max_players), 7), (SPLIT, 5)):
        node = HostNode(Identity.generate(), tmp_path / choice.spec.key, "Host",
                        NetSettings(), choice=choice)
        assert _Announcer(node, "Host", 7420, "127.0.0.1", "f").free() == free
