"""Errors a kernel author can cause.

Both carry enough to print one line naming the user's own source:
``file:line:col: message (hint: ...)``. Columns are 1-based, as in compiler
messages (the AST's ``col_offset`` is 0-based).
"""

from __future__ import annotations

import os

__all__ = ["KernelSyntaxError", "KernelRuntimeError", "KernelLoopLimit", "KernelWarning", "display_path"]


def display_path(path: str) -> str:
    """``path`` relative to the working directory when it is below it, else unchanged."""
    try:
        relative = os.path.relpath(path)
    except ValueError:  # another drive on Windows
        return path
    return path if relative.startswith(os.pardir) else relative


class KernelSyntaxError(Exception):
    """A construct outside the kernel language.

    Parameters
    ----------
    filename : str
        Path of the file holding the construct (shown relative to the working
        directory when it is below it).
    lineno : int
        1-based line of the construct.
    col : int
        1-based column of the construct.
    message : str
        What is wrong, quoting the offending construct.
    hint : str or None
        What to write instead.

    ``str(error)`` is exactly one line:
    ``file:line:col: message (hint: hint)``.
    """

    def __init__(self, filename: str, lineno: int, col: int, message: str, hint: str | None = None):
        self.filename = filename
        self.lineno = lineno
        self.col = col
        self.message = message
        self.hint = hint
        super().__init__(self._line())

    @classmethod
    def at(cls, filename: str, node, message: str, hint: str | None = None) -> "KernelSyntaxError":
        """The error at an AST ``node`` of ``filename`` (its 0-based ``col_offset`` made 1-based; line 0
        and column 0 for a node without a position)."""
        return cls(filename, getattr(node, "lineno", 0), getattr(node, "col_offset", -1) + 1, message, hint)

    def _line(self) -> str:
        text = f"{display_path(self.filename)}:{self.lineno}:{self.col}: {self.message}"
        if self.hint:
            text += f" (hint: {self.hint})"
        return " ".join(text.splitlines())

    def __str__(self) -> str:
        return self._line()

    def __reduce__(self):  # picklable, for process pools
        return type(self), (self.filename, self.lineno, self.col, self.message, self.hint)


class KernelRuntimeError(Exception):
    """The golden (Python) run of a kernel did something the hardware cannot.

    An array index outside ``[0, depth)``, which the hardware would silently
    wrap to the address width; or a bounded run stopped by a loop that ran too
    long (:class:`KernelLoopLimit`).

    Parameters
    ----------
    filename, lineno :
        Where the faulting access is in the user's source.
    message : str
        For example ``"index -1 out of range for a[64]"``.
    """

    def __init__(self, filename: str, lineno: int, message: str):
        self.filename = filename
        self.lineno = lineno
        self.message = message
        super().__init__(f"{display_path(filename)}:{lineno}: {message}")

    def __reduce__(self):  # picklable, for process pools
        return type(self), (self.filename, self.lineno, self.message)


class KernelLoopLimit(KernelRuntimeError):
    """The golden run of a kernel was stopped: one loop ran more iterations than its bound.

    A ``while`` whose condition never becomes false would otherwise run forever
    in Python; a caller that bounds the run (``max_loop_iterations=`` of
    :meth:`hls.frontend.golden.GoldenModel.run`) gets this instead.

    Parameters
    ----------
    filename, lineno :
        Where the loop is in the user's source.
    limit : int
        The bound it reached, in iterations of that loop.
    """

    def __init__(self, filename: str, lineno: int, limit: int):
        self.limit = limit
        super().__init__(filename, lineno, f"the Python run stopped after {limit} iterations of this loop")

    def __reduce__(self):  # picklable, for process pools
        return type(self), (self.filename, self.lineno, self.limit)


class KernelWarning(UserWarning):
    """Legal kernel code that probably does not mean what it says.

    Today: an unannotated local whose later values are wider than the shape of
    its first value (``count = 0`` makes ``count`` an ``unsigned(1)``, so
    ``count += 1`` wraps). It is reported at the user's file and line.
    """
