"""Python's parser behind one lock: the compiler's one way to build a syntax tree.

CPython 3.11 keeps the AST constructor's recursion depth in state that threads share, so two
threads building trees at once can fail with ``SystemError: AST constructor recursion depth
mismatch`` (python/cpython#106905).  The explorer's Dask workers compile kernels on several
threads; every ``ast.parse`` of the compiler goes through :func:`parse`.
"""

from __future__ import annotations

import ast
import threading

__all__ = ["parse"]

_LOCK = threading.Lock()


def parse(source: str, filename: str = "<unknown>", mode: str = "exec") -> ast.AST:
    """:func:`ast.parse` of ``source``, one thread at a time."""
    with _LOCK:
        return ast.parse(source, filename, mode)
