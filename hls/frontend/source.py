"""A Python function whose source the front end reads: the base of ``hls.Function`` and ``hls.Kernel``.

The front end recognises helper calls (``@hls.function``, ``@hls.kernel``) by
this class, so it needs nothing from :mod:`hls.kernel`, which builds on the
front end.
"""

from __future__ import annotations

import ast
import functools
import linecache
import os

from ..syntax import parse

__all__ = ["SourceFunction"]


class SourceFunction:
    """A plain Python function and its parsed definition.

    Attributes
    ----------
    fn : function
        The user's function.
    name : str
    filename : str
        Absolute path of the file defining it.

    Raises
    ------
    TypeError
        If ``fn`` is not a plain Python function whose source can be read.
    """

    def __init__(self, fn):
        if not callable(fn) or not hasattr(fn, "__code__"):
            raise TypeError(f"@hls.kernel / @hls.function decorate a Python function, not {fn!r}")
        functools.update_wrapper(self, fn)
        self.fn = fn
        self.name: str = fn.__name__
        self.filename: str = os.path.abspath(fn.__code__.co_filename)
        self._tree: ast.FunctionDef | None = None

    @property
    def tree(self) -> ast.FunctionDef:
        """The function's definition, parsed from its file (positions are the file's)."""
        if self._tree is None:
            self._tree = _find_definition(self.fn, self.filename)
        return self._tree


def _find_definition(fn, filename: str) -> ast.FunctionDef:
    linecache.checkcache(filename)  # the file may have been rewritten since it was cached
    lines = linecache.getlines(filename)
    if not lines:
        raise TypeError(f"cannot read the source of {fn.__name__} from {filename}; "
                        f"kernels must be defined in a Python file")
    tree = parse("".join(lines), filename)
    first_line = fn.__code__.co_firstlineno
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == fn.__name__:
            start = node.decorator_list[0].lineno if node.decorator_list else node.lineno
            if first_line in (start, node.lineno):
                return node
    raise TypeError(f"cannot find the definition of {fn.__name__} in {filename} "
                    f"(the file changed since it was imported?)")
