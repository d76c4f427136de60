"""The layering rules (the project's standing rules; issue 11 "The design change"),
checked from the source: every ``import`` of every module, parsed with ``ast``, function
bodies included (a lazy import is still a dependency).

    rules, crypto, splito  pure: no I/O layers, no game, no application above them
    session                the signed log and its files: nothing from game/net/app up
    games                  the games' registry (splitnet.games): below the network, above
                           each game's rules and core, which its specs import when called
    game                   the fair-deck core: no bots, front ends, self-play, verifier,
                           command line, networking or application glue (the open-handed
                           seat's player is injected: GameCore(open_hand=...))
    net                    networking only: no bots, front ends, narration, self-play,
                           verifier, benches, command line or application glue (the
                           LAN commands, their session and lobby screens are app/lan*.py
                           and ui/lobby.py; a table's parts from above come in as
                           net.table.TableParts)
    frontends              each game's front ends (splitnet.frontends.FrontEnd): the one
                           place above the games' registry that holds a table by a game's
                           key; the commands look their game's entry up, and keep no table
                           of their own (``test_no_table_by_a_games_key_outside_the_registries``)
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

import splitnet

ROOT = Path(splitnet.__file__).parent

#: Modules with no splitnet dependencies of their own that any layer may use.
LEAVES = {"cards", "text", "durable", "errors", "aio", "paired"}

#: What each package may never import (top-level names under ``splitnet``).
APP = {"app", "cli", "selfplay", "localplay", "replay", "verify", "bench", "splito_selfplay",
       "frontend", "frontends", "ui", "bots", "describe"}
FORBIDDEN: dict[str, set[str]] = {
    "rules": APP | {"crypto", "session", "game", "net", "record", "localfiles", "splito"},
    "crypto": APP | {"rules", "session", "game", "net", "record", "localfiles", "splito"},
    "splito": APP | {"crypto", "session", "game", "net"},
    "session": APP | {"game", "net"},
    "game": APP | {"net"},
    "games": APP | {"net"},
    "net": {"app", "cli", "ui", "selfplay", "localplay", "replay", "bench", "frontend",
            "frontends", "bots", "describe", "verify"},
}

#: What the network layer must never import, whatever else changes (issue 11): the
#: bots, the front ends and their screens, self-play, the verifier, narration and the
#: application glue.
NET_NEVER = {"bots", "frontend", "frontends", "ui", "selfplay", "verify", "describe", "app"}


def _module(path: Path) -> tuple[str, str]:
    """(dotted module name under splitnet, its package) for a source file."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
        return ".".join(parts), ".".join(parts)
    return ".".join(parts), ".".join(parts[:-1])


def imports_of(path: Path, pkg: str | None = None) -> set[str]:
    """Every splitnet module ``path`` (in package ``pkg``, by default where it lies)
    imports, as a name under ``splitnet`` ("" = the root)."""
    if pkg is None:
        _, pkg = _module(path)
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = pkg.split(".") if pkg else []
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(["splitnet", *base, *([node.module] if node.module else [])])
            else:
                target = node.module or ""
            names = [a.name for a in node.names]
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] == "splitnet":
                    out.add(a.name.removeprefix("splitnet").lstrip("."))
            continue
        else:
            continue
        if target.split(".")[0] != "splitnet":
            continue
        rel = target.removeprefix("splitnet").lstrip(".")
        out.add(rel)
        if rel == "":  # from splitnet import describe
            out.update(names)
    return out


#: the layer of each module a game keeps under ``games/<key>/`` (the layers above are by
#: package, so a game's rules are still rules wherever they live): Split's rules, bots,
#: record and narration, and the fair-deck core with its local game and open-handed
#: seat; every other Splito module is its pure rules (the ``splito`` layer)
GAME_LAYERS: dict[str, dict[str, str]] = {
    "split": {"rules": "rules", "bots": "bots", "record": "record", "describe": "describe",
              "replay": "replay",
              "core": "game", "local": "game", "open_hand": "game",
              "open_hand_policy": "game", "bodies": "game"},
    "splito": {"core": "game", "bodies": "game"},
}
#: the layer of each of a game's front-end parts, under ``games/<key>/front/``: its local
#: table and LAN session (the application's glue), its self-play, its screens (the UI's)
FRONT_LAYERS: dict[str, str] = {"fair": "app", "lan": "app", "selfplay": "selfplay",
                                "plain": "ui", "table": "ui", "tui": "ui",
                                "tui_model": "ui", "tui_render": "ui", "watch": "ui"}


def _top(name: str) -> str:
    """The layer of a module (a name under ``splitnet``): its top package, but for a
    game's own modules under ``games/``, the layer :data:`GAME_LAYERS` gives them (a
    game's spec, ``games.<key>``, is the ``games`` layer), and :data:`FRONT_LAYERS` those
    of its front ends' parts."""
    parts = name.split(".")
    if parts[0] == "games" and len(parts) >= 4 and parts[2] == "front":
        return FRONT_LAYERS[parts[3]]
    if parts[0] == "games" and len(parts) >= 3 and parts[1] in GAME_LAYERS:
        return GAME_LAYERS[parts[1]].get(parts[2], "splito" if parts[1] == "splito"
                                         else "games")
    return parts[0]


def _banned(mod: str, targets: set[str]) -> set[tuple[str, str]]:
    layer = _top(mod)
    banned = FORBIDDEN.get(layer, set())
    return {(mod, _top(t)) for t in targets if _top(t) != layer and _top(t) in banned}


@functools.cache
def _package_imports() -> dict[Path, frozenset[str]]:
    """:func:`imports_of` each source file of the package, parsed once per test process
    (the tests below ask the same of every file; the files do not change meanwhile)."""
    return {path: frozenset(imports_of(path)) for path in sorted(ROOT.rglob("*.py"))}


def _violations() -> set[tuple[str, str]]:
    found: set[tuple[str, str]] = set()
    for path, targets in _package_imports().items():
        found |= _banned(_module(path)[0], set(targets))
    return found


def test_the_parser_sees_relative_lazy_and_root_imports(tmp_path: Path) -> None:
    f = tmp_path / "probe.py"
    f.write_text("from .core import GameCore\nfrom .. import bots\n"
                 "def g() -> None:\n    from splitnet import describe\n    import splitnet.ui\n")
    found = imports_of(f, "game")
    assert {"game.core", "bots", "describe", "ui"} <= found
    assert _banned("game.probe", found) == {("game.probe", t) for t in ("bots", "describe", "ui")}


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_layer_imports_nothing_above_it(layer: str) -> None:
    assert sorted(v for v in _violations() if _top(v[0]) == layer) == []


def test_net_imports_no_bots_front_ends_selfplay_verifier_narration_or_app() -> None:
    assert NET_NEVER <= FORBIDDEN["net"]
    files = _package_imports()
    net = sorted(p for p in files if _top(_module(p)[0]) == "net")
    assert len(net) > 10  # the parser looked at the package
    used = {(_module(p)[0], _top(t)) for p in net for t in files[p]}
    assert sorted(u for u in used if u[1] in NET_NEVER) == []


def test_the_network_imports_no_games_own_module() -> None:
    """Networking names no game (the standing rules): no module under ``net`` imports a
    module a game calls its own (:attr:`GameSpec.modules`: its rules, core, narration,
    front ends …) — a table reaches its game through the spec, the game's errors through
    :class:`splitnet.errors.IllegalMove`, and a game's narrator comes from above
    (``TableParts.narrator``)."""
    from splitnet.games import GAMES

    own = {m for g in GAMES for m in g.modules}
    assert {"games.split", "games.splito"} <= own  # (the specs say so)
    files = _package_imports()
    used = sorted((_module(p)[0], t) for p in files if _top(_module(p)[0]) == "net"
                  for t in files[p] if any(t == m or t.startswith(m + ".") for m in own))
    assert used == []


def test_nothing_below_the_application_imports_it() -> None:
    users = sorted(
        _module(p)[0] for p, targets in _package_imports().items()
        if _top(_module(p)[0]) in FORBIDDEN and any(_top(t) == "app" for t in targets)
    )
    assert users == []


def test_the_leaves_import_no_splitnet_module() -> None:
    assert {leaf: sorted(imports_of(ROOT / f"{leaf}.py")) for leaf in sorted(LEAVES)} == {
        leaf: [] for leaf in sorted(LEAVES)}


def test_the_lan_commands_arguments_are_checked_without_the_network_stack() -> None:
    """``splitnet host``/``join``/``bot`` parse and check their arguments in
    ``app/lan_args.py``, which imports none of the network stack: a refused argument or
    ``--help`` costs what it costs for the other commands (it used to import
    ``app/lan.py`` and everything under it, a third of a second), and only an accepted
    command line loads the rest (the modules that run them: ``app/lan*.py`` but this one)."""
    import subprocess
    import sys

    probe = (
        "import sys\n"
        "from splitnet.cli import build_parser\n"
        "for argv in (['host', '--port', '0', '--seats', '3'], ['join', '10.0.0.1:7420'],\n"
        "             ['bot', '7-crossover-clockwork', '--level', 'strong']):\n"
        "    build_parser(argv).parse_args(argv)\n"
        "print(' '.join(sorted(m for m in sys.modules if m.startswith('splitnet.'))))\n")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         timeout=60, check=True).stdout.split()
    assert "splitnet.app.lan_args" in out
    commands = {f"splitnet.app.{p.stem}" for p in (ROOT / "app").glob("lan*.py")}
    assert len(commands) > 3 and "splitnet.app.lan" in commands  # (the glob found them)
    heavy = (commands - {"splitnet.app.lan_args"}) | {
        "splitnet.net.host", "splitnet.net.peer", "splitnet.net.wormhole",
        "splitnet.net.secure", "splitnet.crypto.group"}
    assert not heavy & set(out), sorted(heavy & set(out))


#: the registries, the only modules that may hold a table by a game's key: the games'
#: (splitnet.games, below the network) and the front ends' (splitnet.frontends, above it)
REGISTRIES = {"games", "frontends"}

#: the functions that return a game's spec (splitnet.games, app.saved, cli)
SPEC_OF = {"by_key", "game_of", "game_of_record", "game_of_saved", "_game_to_play"}


def _spec_names(tree: ast.Module, package: str) -> set[str]:
    """The names bound to a game's spec, or to a tuple of them (``GAMES``), where they are
    imported from, and the parameters annotated ``GameSpec``."""
    from splitnet.games import GameSpec
    from tests.test_game_seam import imported_names

    def is_specs(value: object) -> bool:
        return isinstance(value, GameSpec) or (
            isinstance(value, tuple) and bool(value)
            and all(isinstance(v, GameSpec) for v in value))

    names = imported_names(tree, package, is_specs)
    names.update(node.arg for node in ast.walk(tree) if isinstance(node, ast.arg)
                 and node.annotation is not None
                 and "GameSpec" in ast.unparse(node.annotation))
    return names


def tables_by_game(source: str, package: str = "") -> list[tuple[int, str]]:
    """Every table by a game's key in ``source``: (line, the code) of a dict display or
    comprehension whose key is a game's key, and of a lookup by one (``T[spec.key]``,
    ``T.get(spec.key)``). A game's key is one written out (``"splito"``), a name imported
    where it is one, or the ``key`` of a game's spec: a name imported as one
    (``SPLIT.key``) or annotated ``GameSpec``, a comprehension's name over the games
    (``{g.key: ... for g in GAMES}``), a ``spec``/``game`` attribute
    (``node.table.spec.key``), or what :data:`SPEC_OF` returns (``by_key(k).key``)."""
    from splitnet.games import BY_KEY
    from tests.test_game_seam import _imported_keys

    tree = ast.parse(source)
    keyed = _imported_keys(tree, package)
    specs = _spec_names(tree, package)
    for node in ast.walk(tree):  # a comprehension over the games names a game's spec
        if isinstance(node, ast.comprehension) and isinstance(node.target, ast.Name) and (
                isinstance(node.iter, ast.Name) and node.iter.id in specs):
            specs.add(node.target.id)

    def is_spec(node: ast.AST) -> bool:
        if isinstance(node, ast.Name):
            return node.id in specs
        if isinstance(node, ast.Attribute):
            return node.attr in ("spec", "game")
        if isinstance(node, ast.Call):
            f = node.func
            return (f.id if isinstance(f, ast.Name) else
                    f.attr if isinstance(f, ast.Attribute) else "") in SPEC_OF
        return False

    def is_key(node: ast.AST | None) -> bool:
        if isinstance(node, ast.Constant):
            return isinstance(node.value, str) and node.value in BY_KEY
        if isinstance(node, ast.Name):
            return node.id in keyed
        if isinstance(node, ast.Attribute):
            return node.attr == "key" and is_spec(node.value)
        return False

    found = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Dict) and any(is_key(k) for k in node.keys)) or (
                isinstance(node, ast.DictComp) and is_key(node.key)) or (
                isinstance(node, ast.Subscript) and is_key(node.slice)) or (
                isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "get" and node.args and is_key(node.args[0])):
            found.append((node.lineno, ast.unparse(node)[:80]))
    return found


def test_the_check_sees_a_table_by_a_games_key_however_it_is_written() -> None:
    def lines(source: str) -> list[int]:
        return [n for n, _ in tables_by_game(source)]

    assert lines("from splitnet.games.split import SPLIT\n"
                 "PLAY = {SPLIT.key: play}\n") == [2]
    assert lines("from splitnet.games import FIRST as G\nT = {G.key: 1}\n") == [2]
    assert lines("from splitnet.games import GAMES\nT = {g.key: g for g in GAMES}\n") == [2]
    assert lines("def f(node):\n    return T[node.table.spec.key].bot\n") == [2]
    assert lines("def f(spec: GameSpec):\n    return T.get(spec.key)\n") == [2]
    assert lines("x = T[by_key(args.game).key]\n") == [1]
    assert lines('T = {"splito": 1}\nx = T["split"]\n') == [1, 2]
    assert not lines("seen = {p.key: p for p in players}\nkeys = {m.key for m in members}\n"
                     "x = front_end(by_key(args.game)).play(args)\ny = keys[peer.key]\n")


@pytest.mark.parametrize("path", sorted(ROOT.rglob("*.py")),
                         ids=lambda p: _module(p)[0] or "splitnet")
def test_no_table_by_a_games_key_outside_the_registries(path: Path) -> None:
    """A command asks its game's entry (splitnet.frontends.front_end) or its spec
    (splitnet.games) for what it does, rather than keeping a table of its own by the
    game's key: cli.py's self-play, play and bench tables and lan.py's hosting and LAN
    session tables were five such tables, each to be extended for every new game."""
    module, package = _module(path)
    if _top(module) in REGISTRIES:
        return
    found = tables_by_game(path.read_text(encoding="utf-8"), package)
    assert not found, (f"splitnet/{path.relative_to(ROOT)} keeps a table by a game's key "
                       "(add to its game's entry in splitnet/frontends.py instead): "
                       + "; ".join(f"line {n}: {code}" for n, code in found))


def test_every_game_has_one_front_end_entry_in_the_registrys_order() -> None:
    from splitnet.frontends import FRONT_ENDS, bench_of, front_end
    from splitnet.games import GAMES, by_key

    assert [f.game for f in FRONT_ENDS] == list(GAMES)
    assert all(front_end(g).game is g for g in GAMES)
    splito_bench = front_end(by_key("splito")).bench
    assert splito_bench is not None and bench_of("splito") is splito_bench
    assert bench_of("split") is None and bench_of("engine") is None


def test_the_verifier_names_no_games_core() -> None:
    """``splitnet verify`` asks the game's spec for its end (GameSpec.ending) instead of
    branching on which core it holds: a third game needs no change here."""
    src = (Path(__file__).resolve().parent.parent / "splitnet" / "verify.py").read_text()
    names = {n.id for n in ast.walk(ast.parse(src)) if isinstance(n, ast.Name)}
    imported = {a.name for n in ast.walk(ast.parse(src)) if isinstance(n, ast.ImportFrom)
                for a in n.names}
    assert not ({"GameCore", "SplitoCore"} & (names | imported))


def test_replay_names_no_game() -> None:
    """``splitnet replay`` asks the record's game's front-end entry (FrontEnd.replay)
    for its checks and steps: it imports no game's spec or module by name."""
    src = (Path(__file__).resolve().parent.parent / "splitnet" / "replay.py").read_text()
    tree = ast.parse(src)
    mods = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    assert not {m for m in mods if m.startswith(("splitnet.games.splito", "splitnet.games."))}
    assert "SPLITO" not in {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
