"""``@hls.kernel`` and ``@hls.function``: Python functions that are also hardware.

Calling a kernel runs its *golden model*: the function's own body, rewritten
so that values wrap to their declared shapes as in Amaranth (see
``docs/language.md``). ``to_amaranth()``, ``to_verilog()`` and ``report()``
compile it.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import sys
import tempfile
import traceback

from .compiler import compile_kernel
from .frontend import analyze
from .frontend.golden import GoldenModel
from .frontend.source import SourceFunction
from .target import Target

__all__ = ["Function", "Kernel", "kernel", "function", "load_kernel", "load_args", "user_errors", "import_file"]


class Function(SourceFunction):
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
        super().__init__(fn)
        self._typed = None
        self._golden = None

    def analyze(self):
        """The :class:`~hls.frontend.TypedKernel` of this function (computed once).

        Raises
        ------
        hls.errors.KernelSyntaxError
            For any construct outside the kernel language.
        """
        if self._typed is None:
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

    Parameters
    ----------
    fn : function
    clock_mhz : float, optional
    resources : dict of str to int, optional
        Shorthand for ``target=Target(clock_mhz=..., resources=...)``.
    target : hls.Target, optional
        The kernel's default compile target; not together with ``clock_mhz`` or
        ``resources``.

    Attributes
    ----------
    target : hls.Target
        What ``to_amaranth()``, ``to_verilog()`` and ``report()`` compile for;
        :func:`hls.compiler.compile_kernel` takes another one.
    clock_mhz : float
        ``target.clock_mhz`` (default 100).
    resources : dict of str to int
        A copy of ``target.resources``, for example ``{"mul": 1}``.

    Raises
    ------
    TypeError
        ``target`` together with ``clock_mhz``/``resources``, or a ``target``
        that is not an :class:`hls.Target`.
    ValueError
        Options out of range (see :class:`hls.Target`).
    """

    def __init__(self, fn, *, clock_mhz: float | None = None, resources: dict[str, int] | None = None,
                 target: Target | None = None):
        super().__init__(fn)
        self.target: Target = _kernel_target(clock_mhz, resources, target)

    @property
    def clock_mhz(self) -> float:
        return self.target.clock_mhz

    @property
    def resources(self) -> dict[str, int]:
        return dict(self.target.resources)

    def _compiled(self):
        # Compiled afresh for each call: the result depends on the target, which may be
        # replaced (kernel.target = ...), and the caller gets a fresh component.
        return compile_kernel(self, target=self.target)

    def to_amaranth(self):
        """A fresh Amaranth ``wiring.Component`` implementing the kernel."""
        return self._compiled().component()

    def to_verilog(self, path: str | os.PathLike | None = None, *, name: str | None = None) -> str:
        """The kernel's Verilog; also written to ``path`` (atomically) when given."""
        text = self._compiled().verilog(name=name)
        if path is not None:
            write_atomically(path, text)
        return text

    def report(self):
        """The schedule report (``.to_json()`` / ``.to_text()``)."""
        return self._compiled().report


def kernel(fn=None, *, clock_mhz: float | None = None, resources: dict[str, int] | None = None,
           target: Target | None = None):
    """Decorator: ``@hls.kernel``, ``@hls.kernel(clock_mhz=200, resources={"mul": 1})`` or
    ``@hls.kernel(target=hls.Target(...))``.

    The options are checked here, when the decorator runs (see :class:`hls.Target`).
    """
    target = _kernel_target(clock_mhz, resources, target)
    if fn is None:
        return lambda fn: Kernel(fn, target=target)
    return Kernel(fn, target=target)


def _kernel_target(clock_mhz, resources, target) -> Target:
    """The target of ``@hls.kernel(...)``'s options; unset options take :class:`Target`'s defaults."""
    if target is None:
        options = {"clock_mhz": clock_mhz, "resources": resources}
        return Target(**{key: value for key, value in options.items() if value is not None})
    if clock_mhz is not None or resources is not None:
        raise TypeError("give @hls.kernel either target= or clock_mhz=/resources=, not both")
    if not isinstance(target, Target):
        raise TypeError(f"target must be an hls.Target, not {target!r}")
    return target


def function(fn):
    """Decorator for helpers that kernels call; inlined at each call site."""
    return Function(fn)


def write_atomically(path: str | os.PathLike, text: str) -> None:
    """Write ``text`` to ``path`` via a temporary file in the same directory and ``os.replace``."""
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    handle, temporary = tempfile.mkstemp(dir=directory, prefix=".", suffix=".tmp")
    try:
        with os.fdopen(handle, "w") as file:
            file.write(text)
        # mkstemp creates 0600; give the artefact the permissions open() would.
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


# -- loading kernels and arguments for the command line ---------------------------------------

@contextlib.contextmanager
def user_errors():
    """Turn kernel errors into one-line :class:`hls.cli.CommandError` for the command line.

    :class:`~hls.errors.KernelSyntaxError` exits with status 2 (bad input);
    :class:`~hls.errors.KernelRuntimeError` with status 1 (the run failed, for
    example an index out of range for the given arguments).
    """
    from .cli import CommandError
    from .errors import KernelRuntimeError, KernelSyntaxError
    try:
        yield
    except KernelSyntaxError as error:
        raise CommandError(str(error), 2) from None
    except KernelRuntimeError as error:
        raise CommandError(str(error), 1) from None


def load_kernel(spec: str) -> Kernel:
    """The kernel named by ``FILE.py:KERNEL``, imported by path and checked.

    The kernel is analysed before it is returned, so a construct outside the
    language is reported here as ``file:line:col: message (hint: ...)``.

    Raises
    ------
    hls.cli.CommandError
        One line, status 2: malformed spec, missing file, import failure, no
        kernel of that name, or a kernel outside the language.
    """
    from .cli import CommandError
    path, colon, name = spec.rpartition(":")
    if not colon or not path or not name:
        raise CommandError(f"{spec}: expected FILE.py:KERNEL")
    module = import_file(path)
    found = getattr(module, name, None)
    if found is None:
        kernels = sorted(key for key, value in vars(module).items() if isinstance(value, Kernel))
        raise CommandError(f"{path}: no kernel named {name!r} "
                           f"(kernels in this file: {', '.join(kernels) or 'none'})")
    if not isinstance(found, Kernel):
        raise CommandError(f"{path}: {name!r} is not an @hls.kernel")
    with user_errors():
        found.analyze()
    return found


def import_file(path: str):
    """Import the Python file ``path`` as a module, with its directory on ``sys.path``
    while it runs (so it can import its neighbours, as ``python FILE.py`` would).

    Raises
    ------
    hls.cli.CommandError
        One line, status 2: missing file, syntax error, or an exception while importing.
    """
    from .cli import CommandError
    if not os.path.isfile(path):
        raise CommandError(f"{path}: no such file")
    module_name = "_axhls_user_" + "".join(c if c.isalnum() else "_" for c in os.path.abspath(path))
    module_spec = importlib.util.spec_from_file_location(module_name, path)
    if module_spec is None or module_spec.loader is None:
        raise CommandError(f"{path}: not a Python file")
    module = importlib.util.module_from_spec(module_spec)
    directory = os.path.dirname(os.path.abspath(path))
    added = directory not in sys.path
    if added:
        sys.path.insert(0, directory)
    sys.modules[module_name] = module
    try:
        module_spec.loader.exec_module(module)
    except SyntaxError as error:
        sys.modules.pop(module_name, None)
        raise CommandError(f"{error.filename or path}:{error.lineno}:{error.offset or 0}: "
                           f"{error.msg}") from None
    except Exception as error:
        sys.modules.pop(module_name, None)
        # Name the user's line (for example a bad hls.Array annotation, evaluated at import).
        line = [frame.lineno for frame in traceback.extract_tb(error.__traceback__)
                if os.path.abspath(frame.filename) == os.path.abspath(path)]
        where = f"{path}:{line[-1]}" if line else path
        message = " ".join(str(error).splitlines())
        raise CommandError(f"{where}: importing it failed: {type(error).__name__}: {message}") from None
    finally:
        if added:
            sys.path.remove(directory)
    return module


def load_args(path: str, kernel: Function) -> dict:
    """The arguments in the JSON file ``path``, checked against ``kernel``'s parameters.

    The file holds one object mapping each parameter name to an integer
    (scalars) or a list of integers (arrays, exactly ``depth`` elements).

    Raises
    ------
    hls.cli.CommandError
        One line, status 2: missing file, bad JSON, or arguments not matching
        the parameters.
    hls.errors.KernelSyntaxError
        If the kernel itself is outside the language (its parameters cannot be known).
    """
    from .cli import CommandError
    try:
        with open(path) as file:
            data = json.load(file)
    except FileNotFoundError:
        raise CommandError(f"{path}: no such file") from None
    except json.JSONDecodeError as error:
        raise CommandError(f"{path}:{error.lineno}:{error.colno}: bad JSON: {error.msg}") from None
    except OSError as error:
        raise CommandError(f"{path}: {error.strerror}") from None
    if not isinstance(data, dict):
        raise CommandError(f"{path}: expected a JSON object mapping parameter names to values")
    with user_errors():
        model = kernel.golden_model()
    try:
        return model.bind((), data)
    except (TypeError, ValueError) as error:
        raise CommandError(f"{path}: {error}") from None
