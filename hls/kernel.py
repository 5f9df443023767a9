"""``@hls.kernel`` and ``@hls.function``: Python functions that are also hardware.

Calling a kernel runs its *golden model*: the function's own body, rewritten
so that values wrap to their declared shapes as in Amaranth (see
``docs/language.md``). ``to_amaranth()``, ``to_verilog()`` and ``report()``
compile it.
"""

from __future__ import annotations

import os
import pathlib

import artefacts

from .approx import approx_mapping
from .compiler import compile_kernel
from .frontend import analyze
from .frontend.golden import GoldenModel
from .frontend.source import SourceFunction
from .target import Target

__all__ = ["Function", "Kernel", "kernel", "function"]


class Function(SourceFunction):
    """A Python function in the kernel language; ``@hls.function`` helpers are these.

    Calls from other kernels are inlined; a call from Python runs the golden
    model. Its attributes (``fn``, ``name``, ``filename``, ``tree``) and the
    ``TypeError`` for what is not a plain Python function come from
    :class:`~hls.frontend.source.SourceFunction`.
    """

    def __init__(self, fn):
        super().__init__(fn)
        self._typed = None
        self._golden = None
        self._compiled_model = None

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

    def compiled_model(self):
        """The golden model compiled to C (:class:`hls.golden.CompiledModel`, built once): call it
        as the function itself, bit-exact with the Python run and much faster; its
        ``fallback_reason`` says why it runs the Python run instead, when it does."""
        if self._compiled_model is None:
            # hls.golden loads approx_units and numpy, and compiles C: only callers that ask need it.
            from .golden import CompiledModel
            self._compiled_model = CompiledModel(self)
        return self._compiled_model

    def __call__(self, *args, **kwargs):
        """Run the golden model.

        Array arguments (lists or 1-D integer numpy arrays of exactly ``depth``
        elements) are updated in place. An input stream's argument is any iterable
        of ints, read token by token; an output stream's is a list, to which the
        tokens are appended. Returns ``None``, an ``int``, or a tuple of ``int``.

        Raises
        ------
        TypeError
            Missing, unexpected or wrongly typed arguments.
        ValueError
            A scalar argument, array element or stream token that does not fit its
            shape, or an array of the wrong length.
        hls.errors.KernelRuntimeError
            An array index out of range, or a read past an input stream's last token,
            during the run.
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
    approx : dict, optional
        Approximate units replacing the kernel's operators: ``{"mul": ("drum", {"k": 6}),
        "div": "mitchell_div_refined", "add": ("loa", {"l": 4})}`` replaces every ``*``,
        ``//`` and ``+`` whose operands are both not constants (``"sub"``: every ``-``, by an
        adder; ``"mod"``: every ``%``, by a divider; see :mod:`hls.approx`);
        ``None`` or ``{}`` keeps exact arithmetic.

    Attributes
    ----------
    target : hls.Target
        What ``to_amaranth()``, ``to_verilog()`` and ``report()`` compile for;
        :func:`hls.compiler.compile_kernel` takes another one.
    clock_mhz : float
        ``target.clock_mhz`` (default 100).
    resources : dict of str to int
        A copy of ``target.resources``, for example ``{"mul": 1}``.
    approx : dict of str to hls.approx.UnitChoice
        The checked ``approx=`` option, by kind (``{}`` for exact arithmetic).

    Raises
    ------
    TypeError
        ``target`` together with ``clock_mhz``/``resources``, or a ``target``
        that is not an :class:`hls.Target`.
    ValueError
        Options out of range (see :class:`hls.Target`), or an ``approx=`` naming an
        unknown kind or unit, a unit of another kind, or a bad parameter.
    """

    def __init__(self, fn, *, clock_mhz: float | None = None, resources: dict[str, int] | None = None,
                 target: Target | None = None, approx: dict | None = None):
        super().__init__(fn)
        self.target: Target = _kernel_target(clock_mhz, resources, target)
        self.approx = approx_mapping(approx)

    def with_approx(self, mapping: dict | None) -> "Kernel":
        """The same function and target with another ``approx=`` mapping (``None`` or ``{}``: exact).

        Raises
        ------
        ValueError
            As the ``approx=`` option of :class:`Kernel`.
        """
        return Kernel(self.fn, target=self.target, approx=mapping)

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

    def to_verilog(self, path: str | os.PathLike | None = None, *,
                   name: str | None = None) -> str | pathlib.Path:
        """The kernel's Verilog text; or, when ``path`` is given, write it there (atomically)
        and return the :class:`pathlib.Path` written, not the text (which floods a REPL).

        Raises
        ------
        artefacts.DestinationError
            ``path`` cannot be written; checked before anything is compiled.
        """
        if path is None:
            return self._compiled().verilog(name=name)
        artefacts.check_file_destination(path)     # before the work, not after it
        artefacts.write_text(path, self._compiled().verilog(name=name), check=False)
        return pathlib.Path(path)

    def report(self):
        """The schedule report (``.to_json()`` / ``.to_text()``)."""
        return self._compiled().report


def kernel(fn=None, *, clock_mhz: float | None = None, resources: dict[str, int] | None = None,
           target: Target | None = None, approx: dict | None = None):
    """Decorator: ``@hls.kernel``, ``@hls.kernel(clock_mhz=200, resources={"mul": 1})``,
    ``@hls.kernel(target=hls.Target(...))`` or ``@hls.kernel(approx={"mul": ("drum", {"k": 6})})``.

    The options are checked here, when the decorator runs (see :class:`hls.Target` and
    :mod:`hls.approx`).
    """
    target = _kernel_target(clock_mhz, resources, target)
    approx = approx_mapping(approx)
    if fn is None:
        return lambda fn: Kernel(fn, target=target, approx=approx)
    return Kernel(fn, target=target, approx=approx)


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
