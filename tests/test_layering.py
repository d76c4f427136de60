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
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import splitnet

ROOT = Path(splitnet.__file__).parent

#: Modules with no splitnet dependencies of their own that any layer may use.
LEAVES = {"cards", "text", "durable", "errors", "aio", "paired"}

#: What each package may never import (top-level names under ``splitnet``).
APP = {"app", "cli", "selfplay", "localplay", "replay", "verify", "bench", "splito_selfplay",
       "frontend", "ui", "bots", "describe"}
FORBIDDEN: dict[str, set[str]] = {
    "rules": APP | {"crypto", "session", "game", "net", "record", "localfiles", "splito"},
    "crypto": APP | {"rules", "session", "game", "net", "record", "localfiles", "splito"},
    "splito": APP | {"crypto", "session", "game", "net"},
    "session": APP | {"game", "net"},
    "game": APP | {"net"},
    "games": APP | {"net"},
    "net": {"app", "cli", "ui", "selfplay", "localplay", "replay", "bench", "frontend", "bots",
            "describe", "verify"},
}

#: What the network layer must never import, whatever else changes (issue 11): the
#: bots, the front ends and their screens, self-play, the verifier, narration and the
#: application glue.
NET_NEVER = {"bots", "frontend", "ui", "selfplay", "verify", "describe", "app"}


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


def _top(name: str) -> str:
    return name.split(".")[0]


def _banned(mod: str, targets: set[str]) -> set[tuple[str, str]]:
    layer = _top(mod)
    banned = FORBIDDEN.get(layer, set())
    return {(mod, _top(t)) for t in targets if _top(t) != layer and _top(t) in banned}


def _violations() -> set[tuple[str, str]]:
    found: set[tuple[str, str]] = set()
    for path in sorted(ROOT.rglob("*.py")):
        found |= _banned(_module(path)[0], imports_of(path))
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
    net = sorted(p for p in ROOT.rglob("*.py") if _top(_module(p)[0]) == "net")
    assert len(net) > 10  # the parser looked at the package
    used = {(_module(p)[0], _top(t)) for p in net for t in imports_of(p)}
    assert sorted(u for u in used if u[1] in NET_NEVER) == []


def test_nothing_below_the_application_imports_it() -> None:
    users = sorted(
        _module(p)[0] for p in ROOT.rglob("*.py")
        if _top(_module(p)[0]) in FORBIDDEN and any(_top(t) == "app" for t in imports_of(p))
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
    command line loads the rest."""
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
    heavy = {"splitnet.app.lan", "splitnet.net.host", "splitnet.net.peer",
             "splitnet.net.wormhole", "splitnet.net.secure", "splitnet.crypto.group"}
    assert not heavy & set(out), sorted(heavy & set(out))
