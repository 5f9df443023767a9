"""``@hls.kernel`` and ``@hls.function``: Python functions that are also hardware.

Calling a kernel runs its *golden model*: the function's own body, rewritten
so that values wrap to their declared shapes as in Amaranth (see
``docs/language.md``). ``to_amaranth()``, ``to_verilog()`` and ``report()``
compile it.
"""

from __future__ import annotations

import ast
import functools
import linecache
import numbers
import os
import warnings

import artefacts

__all__ = ["Function", "Kernel", "kernel", "function"]


class Function:
    """A Python function in the kernel language; ``@hls.function`` helpers are these.

    Calls from other kernels are inlined; a call from Python runs the golden
    model.

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
        self._typed = None
        self._golden = None

    @property
    def tree(self) -> ast.FunctionDef:
        """The function's definition, parsed from its file (positions are the file's)."""
        if self._tree is None:
            self._tree = _find_definition(self.fn, self.filename)
        return self._tree

    def analyze(self):
        """The :class:`~hls.frontend.TypedKernel` of this function (computed once).

        Raises
        ------
        hls.errors.KernelSyntaxError
            For any construct outside the kernel language.
        """
        if self._typed is None:
            from .frontend import analyze
            self._typed = analyze(self)
        return self._typed

    @property
    def params(self):
        """The :class:`~hls.frontend.Param` list."""
        return self.analyze().params

    @property
    def return_shapes(self):
        """Shapes returned: ``[]``, ``[shape]`` or one per tuple element."""
        return self.analyze().return_shapes

    def golden_model(self):
        """The compiled :class:`~hls.frontend.golden.GoldenModel` (built once)."""
        if self._golden is None:
            from .frontend.golden import GoldenModel
            self._golden = GoldenModel(self.analyze())
        return self._golden

    def __call__(self, *args, **kwargs):
        """Run the golden model.

        Array arguments (lists or 1-D integer numpy arrays of exactly ``depth``
        elements) are updated in place. Returns ``None``, an ``int``, or a tuple
        of ``int``.

        Raises
        ------
        TypeError
            Missing, unexpected or wrongly typed arguments.
        ValueError
            A scalar argument or array element that does not fit its shape, or
            an array of the wrong length.
        hls.errors.KernelRuntimeError
            An array index out of range during the run.
        """
        return self.golden_model().call(args, kwargs)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name} from {self.filename}>"


class Kernel(Function):
    """A top-level kernel: compiles to an Amaranth component.

    Attributes
    ----------
    clock_mhz : float
        Clock target of the scheduler (default 100).
    resources : dict of str to int
        Limits on operator instances, for example ``{"mul": 1}``.
    """

    def __init__(self, fn, *, clock_mhz: float = 100.0, resources: dict[str, int] | None = None):
        super().__init__(fn)
        if isinstance(clock_mhz, bool) or not isinstance(clock_mhz, numbers.Real) or not clock_mhz > 0:
            raise ValueError(f"clock_mhz must be a positive number of MHz, not {clock_mhz!r}")
        resources = {} if resources is None else resources
        if not isinstance(resources, dict):
            raise TypeError(f"resources must be a dict such as {{'mul': 1}}, not {resources!r}")
        for key, value in resources.items():
            if not isinstance(key, str):
                raise TypeError(f"resource names are strings such as 'mul', not {key!r}")
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"resource limit {key!r} must be a positive integer, not {value!r}")
        self.clock_mhz = float(clock_mhz)
        self.resources = dict(resources)

    def _compiled(self):
        from .compiler import compile_kernel
        return compile_kernel(self)

    def to_amaranth(self):
        """A fresh Amaranth ``wiring.Component`` implementing the kernel."""
        return self._compiled().component()

    def to_verilog(self, path: str | os.PathLike | None = None, *, name: str | None = None) -> str:
        """The kernel's Verilog; also written to ``path`` (atomically) when given."""
        if path is not None:
            artefacts.check_file_destination(path)     # before the work, not after it
        text = self._compiled().verilog(name=name)
        if path is not None:
            artefacts.write_text(path, text, check=False)
        return text

    def report(self):
        """The schedule report (``.to_json()`` / ``.to_text()``)."""
        return self._compiled().report


def kernel(fn=None, *, clock_mhz: float = 100.0, resources: dict[str, int] | None = None):
    """Decorator: ``@hls.kernel`` or ``@hls.kernel(clock_mhz=200, resources={"mul": 1})``."""
    if fn is None:
        return lambda fn: Kernel(fn, clock_mhz=clock_mhz, resources=resources)
    return Kernel(fn, clock_mhz=clock_mhz, resources=resources)


def function(fn):
    """Decorator for helpers that kernels call; inlined at each call site."""
    return Function(fn)


def write_atomically(path: str | os.PathLike, text: str) -> None:
    """Write ``text`` to ``path`` atomically; kept for old callers, see :func:`artefacts.write_text`.

    Raises
    ------
    artefacts.DestinationError
        The destination cannot be written (the message names ``path``).
    """
    artefacts.write_text(path, text)


def _find_definition(fn, filename: str) -> ast.FunctionDef:
    linecache.checkcache(filename)  # the file may have been rewritten since it was cached
    lines = linecache.getlines(filename)
    if not lines:
        raise TypeError(f"cannot read the source of {fn.__name__} from {filename}; "
                        f"kernels must be defined in a Python file")
    tree = ast.parse("".join(lines), filename)
    first_line = fn.__code__.co_firstlineno
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == fn.__name__:
            start = node.decorator_list[0].lineno if node.decorator_list else node.lineno
            if first_line in (start, node.lineno):
                return node
    raise TypeError(f"cannot find the definition of {fn.__name__} in {filename} "
                    f"(the file changed since it was imported?)")


#: Names that moved to the command-line package :mod:`axhls.loading`.  They load
#: ``FILE.py:KERNEL`` specs and JSON argument files for the command line and raise
#: its ``CommandError``, so they belong there; the library never uses them.
_MOVED_TO_COMMAND_LINE = ("load_kernel", "load_args", "user_errors", "import_file")


def __getattr__(name):
    # Compatibility only: old code imported these from here.  The import happens on
    # such a lookup alone, so the library itself never loads the command line.
    if name in _MOVED_TO_COMMAND_LINE:
        warnings.warn(f"hls.kernel.{name} moved to axhls.loading.{name}", DeprecationWarning, stacklevel=2)
        import axhls.loading
        return getattr(axhls.loading, name)
    raise AttributeError(f"module 'hls.kernel' has no attribute {name!r}")
