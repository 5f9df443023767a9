"""Python's parser behind one lock: the compiler's one way to build a syntax tree.

CPython 3.11 keeps the AST constructor's recursion depth in state that threads share, so two
threads building trees at once can fail with ``SystemError: AST constructor recursion depth
mismatch`` (python/cpython#106905).  The explorer's Dask workers compile kernels on several
threads; every ``ast.parse`` of the compiler goes through :func:`parse`, and every compilation
of a syntax tree (which converts it back through the same state) through :func:`compile_tree`.
"""

from __future__ import annotations

import ast
import threading

__all__ = ["compile_tree", "parse"]

_LOCK = threading.Lock()


def parse(source: str, filename: str = "<unknown>", mode: str = "exec") -> ast.AST:
    """:func:`ast.parse` of ``source``, one thread at a time."""
    with _LOCK:
        return ast.parse(source, filename, mode)


def compile_tree(tree: ast.AST, filename: str, mode: str):
    """:func:`compile` of syntax tree ``tree`` into a code object, one thread at a time."""
    with _LOCK:
        return compile(tree, filename, mode)
