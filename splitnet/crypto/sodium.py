"""``rbcl`` imported without the copy of libsodium it leaves in the temp dir
(protocol/SECURITY.md §6, row 100).

rbcl ships libsodium as a hex string in ``rbcl/_sodium.py``; importing that module
writes the library to a new file in the temp dir (``NamedTemporaryFile(delete=False)``)
and loads it from there, never deleting it: 2.8 MB more in the temp dir for every process
that imports rbcl — each peer, each of its proof-checking workers and its helper
(:mod:`splitnet.game.pool`), every time. Nothing splitnet starts may leave files behind.

:func:`import_rbcl` imports rbcl so that no such file remains, whichever way works here:

``"memory"``
    The library's bytes are read out of ``rbcl/_sodium.py`` (without running it), loaded
    from an anonymous in-memory file (``memfd_create``, Linux: no file in any directory),
    and installed as the module ``rbcl._sodium`` before rbcl is imported, so rbcl's own
    ``from rbcl._sodium import _sodium`` finds the library loaded.
``"deleted"``
    Otherwise (no ``memfd_create``, the module not shaped as expected, the in-memory file
    not loadable), rbcl is imported as it is and the copy it wrote is deleted as soon as
    it is loaded: a loaded shared object stays mapped after its file is unlinked.
``"left"``
    And if even that is not possible (the copy is not where rbcl 1.1 says it is, or
    cannot be deleted), rbcl's own behaviour: the copy stays.

:data:`HOW` says which; ``tests/test_sodium_load.py`` fails loudly if it is not
``"memory"`` on Linux, that is if rbcl's internals changed shape. Either way the group
is the same libsodium, byte for byte.

:func:`library` is that libsodium itself (a :class:`ctypes.CDLL`, the whole library in
every mode), for the functions rbcl does not wrap: SPAKE2's edwards25519
(:mod:`splitnet.crypto.pake`).
"""

from __future__ import annotations

import contextlib
import ctypes
import importlib
import importlib.util
import os
import re
import sys
import tempfile
import types
from pathlib import Path
from typing import Final, Literal

How = Literal["memory", "deleted", "left"]

#: How this process loaded rbcl's libsodium (set by :func:`import_rbcl`).
HOW: How | None = None

#: ``sodium_bs = bytes.fromhex('…')`` in rbcl 1.1's ``_sodium.py`` (its template,
#: ``_sodium.tmpl``, puts the whole library on that one line)
_HEX: Final = re.compile(rb"^sodium_bs = bytes\.fromhex\('([0-9a-f]+)'\)", re.MULTILINE)
#: a function every rbcl 1.1 wrapper of the group needs, looked up to check the library
_PROBE: Final = "crypto_core_ristretto255_add"
_MODULE: Final = "rbcl._sodium"


def import_rbcl() -> types.ModuleType:
    """The ``rbcl`` module, its libsodium loaded without leaving a file behind where this
    is possible (module docstring); never worse than ``import rbcl``."""
    global HOW
    if "rbcl" not in sys.modules and HOW is None:
        fake = _from_memory()
        if fake is not None:
            sys.modules[_MODULE] = fake
            try:
                module = importlib.import_module("rbcl")
            except Exception:  # rbcl changed: import it as it is, from scratch
                for name in [n for n in sys.modules if n == "rbcl" or n.startswith("rbcl.")]:
                    del sys.modules[name]
            else:
                # the library rbcl's wrappers call is the one loaded here
                used = getattr(sys.modules.get("rbcl.rbcl"), "_sodium", None)
                if used is not None and used is getattr(fake, "_sodium", None):
                    HOW = "memory"
                    return module
    module = importlib.import_module("rbcl")
    if HOW is None:
        HOW = _delete_copy()
    return module


def library() -> ctypes.CDLL:
    """The libsodium rbcl's wrappers call, loaded as :func:`import_rbcl` could (any
    mode): the same ``CDLL`` object, so nothing is loaded twice."""
    import_rbcl()
    lib = getattr(sys.modules.get("rbcl.rbcl"), "_sodium", None)
    if not isinstance(lib, ctypes.CDLL):
        raise ImportError("rbcl's libsodium is not where rbcl 1.1 keeps it (rbcl.rbcl._sodium)")
    return lib


def _from_memory() -> types.ModuleType | None:
    """A stand-in for ``rbcl._sodium`` whose ``_sodium`` is the same library loaded from
    an anonymous in-memory file, or None (then rbcl loads it its own way)."""
    memfd_create = getattr(os, "memfd_create", None)
    if memfd_create is None or not os.path.isdir("/proc/self/fd"):
        return None
    try:
        spec = importlib.util.find_spec("rbcl")  # finds, does not run, the package
        where = spec.submodule_search_locations if spec is not None else None
        if not where:
            return None
        source = Path(next(iter(where)), "_sodium.py").read_bytes()
        found = _HEX.search(source)
        if found is None:
            return None
        library = bytes.fromhex(found.group(1).decode("ascii"))
        del source, found
        if not library.startswith(b"\x7fELF"):
            return None
        fd = memfd_create("libsodium", getattr(os, "MFD_CLOEXEC", 0))
        try:
            view = memoryview(library)
            while view:
                view = view[os.write(fd, view):]
            # dlopen maps the file; the descriptor is not needed once it is loaded
            lib = ctypes.CDLL(f"/proc/self/fd/{fd}")
        finally:
            os.close(fd)
        getattr(lib, _PROBE)
    except (OSError, ValueError, ImportError, AttributeError, UnicodeDecodeError):
        return None
    fake = types.ModuleType(_MODULE, "rbcl's libsodium, loaded from memory by splitnet")
    fake._sodium = lib  # type: ignore[attr-defined]
    return fake


def _delete_copy() -> How:
    """Delete the copy of libsodium rbcl wrote to the temp dir, now that it is loaded —
    only a file shaped like the one rbcl 1.1 writes (``tmp….so`` directly in the temp
    dir), never anything else."""
    mod = sys.modules.get(_MODULE)
    path = getattr(mod, "lib_path", None)
    if not isinstance(path, str):
        return "left"
    p = Path(path)
    if (p.parent != Path(tempfile.gettempdir()) or not p.name.startswith("tmp")
            or p.suffix not in (".so", ".pyd")):
        return "left"
    with contextlib.suppress(OSError):
        p.unlink()
        return "deleted"
    return "left"
