"""No process splitnet starts leaves a file in the temp dir (protocol/SECURITY.md §6,
row 100): rbcl writes a 2.8 MB copy of libsodium there on every import and never deletes
it — one per peer, proof-checking worker and helper. splitnet/crypto/sodium.py loads the
library from memory instead, or deletes rbcl's copy once it is loaded.

Each test runs a fresh interpreter with ``TMPDIR`` set to an empty directory of its own
and counts what is in it afterwards."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: ``python -c`` code reporting how the group library was loaded (splitnet.crypto.sodium)
HOW = ("import splitnet.crypto.group, splitnet.crypto.sodium as s; "
       "print('how', s.HOW)")

#: a peer's pool: two proof-checking workers and the helper, each a spawned process that
#: imports the group; each worker is asked how it loaded it (``eval`` runs in the worker)
POOL = """
import splitnet.crypto.sodium as s
from splitnet.game.pool import ProofPool
pool = ProofPool(workers=2, helper=True).start()
assert pool.helper is not None and pool.helper.ready(120), "the helper did not start"
ex = pool._executor
assert ex is not None and len(pool.pids()) == 2, "the workers did not start"
asked = "__import__('splitnet.crypto.sodium', fromlist=['HOW']).HOW"
print('how', s.HOW, *sorted({ex.submit(eval, asked).result(120) for _ in range(8)}))
pool.close()
"""


def run_in(tmp: Path, code: str) -> str:
    """Run ``code`` in a new interpreter whose temp dir is ``tmp``; its stdout."""
    env = {**os.environ, "TMPDIR": str(tmp)}
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True,
                       text=True, timeout=300, check=False)
    assert r.returncode == 0, r.stderr[-2000:]
    return r.stdout


def left_in(tmp: Path) -> list[str]:
    return sorted(p.name for p in tmp.iterdir())


@pytest.fixture
def tmpdir_of_its_own(tmp_path: Path) -> Path:
    d = tmp_path / "tmp"
    d.mkdir()
    return d


def test_importing_the_group_leaves_nothing_in_the_temp_dir(tmpdir_of_its_own: Path) -> None:
    out = run_in(tmpdir_of_its_own, HOW)
    assert left_in(tmpdir_of_its_own) == []
    if sys.platform.startswith("linux"):
        # not "deleted" or "left": then rbcl's internals changed shape (sodium.py's
        # docstring) and a process killed while importing it would leave its copy behind
        assert out.split() == ["how", "memory"], out


def test_a_pool_of_workers_and_a_helper_leaves_nothing(tmpdir_of_its_own: Path) -> None:
    out = run_in(tmpdir_of_its_own, POOL)
    assert left_in(tmpdir_of_its_own) == []
    if sys.platform.startswith("linux"):
        assert out.split() == ["how", "memory", "memory"], out


def test_without_memfd_rbcls_own_copy_is_deleted_once_loaded(tmpdir_of_its_own: Path) -> None:
    """The fallback (no ``memfd_create``, as on macOS): rbcl writes its copy, splitnet
    deletes it right after it is loaded, and the group still works."""
    code = ("import os; del os.memfd_create\n"
            "import splitnet.crypto.group as g, splitnet.crypto.sodium as s\n"
            "assert g.add(g.base_mul(2), g.base_mul(3)) == g.base_mul(5)\n"
            "print('how', s.HOW)")
    out = run_in(tmpdir_of_its_own, code)
    assert left_in(tmpdir_of_its_own) == []
    assert out.split() == ["how", "deleted"], out


def test_a_library_that_will_not_load_from_memory_falls_back(tmpdir_of_its_own: Path) -> None:
    """rbcl's source not shaped as expected (here: the library's bytes not where rbcl 1.1
    keeps them): nothing is loaded from memory, rbcl loads its own way, splitnet deletes
    the copy."""
    code = ("import splitnet.crypto.sodium as s, re\n"
            "s._HEX = re.compile(rb'^no such line$')\n"
            "import splitnet.crypto.group as g\n"
            "assert g.mul(3, g.base_mul(5)) == g.base_mul(15)\n"
            "print('how', s.HOW)")
    out = run_in(tmpdir_of_its_own, code)
    assert left_in(tmpdir_of_its_own) == []
    assert out.split() == ["how", "deleted"], out


def test_the_copy_is_deleted_only_if_it_is_rbcls(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """The fallback deletes nothing but a ``tmp….so`` directly in the temp dir."""
    import types

    from splitnet.crypto import sodium

    other = tmp_path / "tmpkeep.so"
    other.write_bytes(b"x")
    fake = types.ModuleType("rbcl._sodium")
    fake.lib_path = str(other)  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "rbcl._sodium", fake)
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path / "elsewhere"))
    assert sodium._delete_copy() == "left" and other.exists()
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    assert sodium._delete_copy() == "deleted" and not other.exists()
    fake.lib_path = str(tmp_path / "libsodium.so")  # type: ignore[attr-defined]
    assert sodium._delete_copy() == "left"
