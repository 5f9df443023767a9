"""The one line for a user who runs axhls with a Python that lacks its dependencies.

``python3 -m axhls`` or ``python3 examples/demo.py`` with the system's Python
(not the project's ``.venv``) fails on the first third-party import; that is a
set-up step the user missed, not a bug, so it gets a hint instead of a
traceback.  This module uses the standard library only, so that it works under
any Python.
"""

from __future__ import annotations

import sys

__all__ = ["REQUIRED_MODULES", "missing_dependency_line"]

#: Top-level modules of the dependencies in pyproject.toml that every command imports.
REQUIRED_MODULES = ("amaranth", "numpy", "networkx", "tqdm")


def missing_dependency_line(error: ModuleNotFoundError, program: str) -> str | None:
    """The one line to print for ``error`` raised while ``program`` imported its libraries, or
    ``None`` when the missing module is not one of :data:`REQUIRED_MODULES` (a bug, or an
    optional extra whose own message says what to install)."""
    missing = (error.name or "").partition(".")[0]
    if missing not in REQUIRED_MODULES:
        return None
    return (f"{program}: this Python ({sys.executable}) has no module {missing!r}; axhls runs in its "
            f"virtual environment: set it up with `bash dev.sh demo` in the repository, then run "
            f".venv/bin/axhls (or .venv/bin/python)")
