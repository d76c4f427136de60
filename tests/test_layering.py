"""The layering rules (the project's standing rules; issue 11 "The design change"),
checked from the source: every ``import`` of every module, parsed with ``ast``, function
bodies included (a lazy import is still a dependency).

    rules, crypto, splito  pure: no I/O layers, no game, no application above them
    session                the signed log and its files: nothing from game/net/app up
    game                   the fair-deck core: no bots, front ends, self-play, verifier,
                           command line, networking or application glue (one known debt
                           below: the open-handed seat's bot)
    net                    no front ends and no command line beyond the known debts below
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import splitnet

ROOT = Path(splitnet.__file__).parent

#: Modules with no splitnet dependencies of their own that any layer may use.
LEAVES = {"cards", "text", "durable", "errors"}

#: What each package may never import (top-level names under ``splitnet``).
APP = {"app", "cli", "selfplay", "localplay", "replay", "verify", "bench", "splito_selfplay",
       "frontend", "ui", "bots", "describe"}
FORBIDDEN: dict[str, set[str]] = {
    "rules": APP | {"crypto", "session", "game", "net", "record", "localfiles", "splito"},
    "crypto": APP | {"rules", "session", "game", "net", "record", "localfiles", "splito"},
    "splito": APP | {"crypto", "session", "game", "net"},
    "session": APP | {"game", "net"},
    "game": APP | {"net"},
    "net": {"app", "cli", "ui", "selfplay", "localplay", "replay", "bench", "frontend", "bots",
            "describe", "verify"},
}

#: What net/ still imports from above it: the bench (net/bench.py) and the seat's table
#: narration and header check (net/table.py). Until they move this list is exact (the
#: test fails if an entry disappears, so it cannot go stale, or if one is added).
NET_DEBTS = {
    ("net.bench", "bots"),
    ("net.table", "describe"),
}

#: What game/ still imports from above it, exactly: the open-handed seat's player (R8.6),
#: whose choices the protocol fixes, is splitnet.bots' heuristic. It is to be injected
#: into GameCore by whoever assembles a peer (app/, verify), as the bots are into
#: LocalGame.run_bots.
GAME_DEBTS = {
    ("game.open_hand", "bots"),
}


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


@pytest.mark.parametrize("layer", sorted(set(FORBIDDEN) - {"net"}))
def test_layer_imports_nothing_above_it(layer: str) -> None:
    debts = GAME_DEBTS if layer == "game" else set()
    assert sorted(v for v in _violations() if _top(v[0]) == layer and v not in debts) == []


def test_game_imports_from_above_only_its_known_debts() -> None:
    assert {v for v in _violations() if _top(v[0]) == "game"} == GAME_DEBTS


def test_net_imports_from_above_only_its_known_debts() -> None:
    assert {v for v in _violations() if _top(v[0]) == "net"} == NET_DEBTS


def test_nothing_below_the_application_imports_it() -> None:
    users = sorted(
        _module(p)[0] for p in ROOT.rglob("*.py")
        if _top(_module(p)[0]) in FORBIDDEN and any(_top(t) == "app" for t in imports_of(p))
    )
    assert users == []
