"""The typed kernel: what the front end hands to the IR builder.

See ``docs/architecture.md`` for the contract; the fields here may grow but
never lose or rename a field.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Literal

from amaranth.hdl import Shape

from ..types import Partition

__all__ = ["Param", "LoopPragma", "LocalArray", "TypedKernel", "ApproxSite", "Operation", "shape_of", "SHAPE_ATTR"]

#: Attribute under which the front end stores each expression node's shape.
SHAPE_ATTR = "hls_shape"

# Each operation approx= may replace, and each hls.approx call, carries its key under OPERATION_ATTR
# (hls.ir.ops's, which the IR builder reads).

# A stream read is ``x = STREAM_READ(s)`` and a write ``STREAM_WRITE(o, v)`` in a typed body (hls.ir.ops).

# An approximate unit operation is ``ast.Call(func=Name(APPROX_CALL), args=[a, b])`` in a typed
# body (the names are hls.ir.ops's, next to its approx_* entries).


@dataclass
class Param:
    """One kernel parameter.

    Attributes
    ----------
    name : str
    kind : "scalar", "array" or "stream"
    shape : Shape
        The scalar's shape, the element shape of an array, or the token shape of a stream.
    depth : int or None
        Number of elements of an array; ``None`` for scalars and streams.
    lineno, col_offset : int
        Position of the parameter in the user's file (``col_offset`` 0-based).
    partition : Partition or None
        How an array is split into banks (``hls.Array[shape, depth, hls.partition(...)]``).
    direction : "in", "out" or None
        Of a stream (``hls.Stream[shape]``): ``"in"`` when the body reads it, ``"out"`` when it
        writes it (inferred by the front end); ``None`` for scalars and arrays.
    """

    name: str
    kind: Literal["scalar", "array", "stream"]
    shape: Shape
    depth: int | None
    lineno: int
    col_offset: int
    partition: Partition | None = None
    direction: Literal["in", "out"] | None = None


@dataclass
class LocalArray:
    """An array declared in the body with ``hls.local(shape, depth, partition=...)``.

    Attributes
    ----------
    name : str
        Internal name (unique in the kernel).
    shape : Shape
        Element shape.
    depth : int
    partition : Partition or None
    lineno : int
        Line of the declaration.
    """

    name: str
    shape: Shape
    depth: int
    partition: Partition | None
    lineno: int


@dataclass
class LoopPragma:
    """How the user asked a loop to be scheduled.

    Attributes
    ----------
    mode : "auto", "pipeline" or "sequential"
        ``auto`` for plain ``range`` and ``while`` loops (innermost loops are
        pipelined), ``pipeline`` for ``hls.pipeline(...)``, ``sequential`` for
        ``hls.sequential(...)``.
    ii : int or None
        Target initiation interval of ``hls.pipeline(..., ii=k)``.
    flattened : tuple of int
        Set by :func:`hls.frontend.flatten.flatten_nests` on the ``while`` loop
        standing for a flattened nest: the lines of the nest's loops, outermost first.
    note : str
        For a flattened nest, what became of the code between its loops; for a
        loop containing others that was not flattened, why not.
    """

    mode: Literal["auto", "pipeline", "sequential"]
    ii: int | None = None
    flattened: tuple[int, ...] = ()
    note: str = ""


@dataclass(frozen=True)
class ApproxSite:
    """One operation an approximate unit was asked for (``hls.approx`` or ``approx=``).

    Attributes
    ----------
    filename : str
    lineno, col : int
        1-based position of the operation in the user's file.
    text : str
        The user's text of the operation (``x[i] * y[i]``).
    kind : str
        ``"mul"``, ``"add"``, ``"sub"``, ``"div"`` or ``"mod"``.
    unit : str
        The unit's label (``drum(k=6)``).
    origin : "kernel" or "call"
        From ``@hls.kernel(approx=...)`` or from an ``hls.approx`` call.
    shapes : tuple of Shape
        The operand shapes.
    key : str
        ``FILE:LINE:COL`` naming the operation in the IR (:attr:`hls.ir.nodes.Op.operations`):
        its :attr:`Operation.key` (the operator's position) for ``approx=``, the call's
        position for an ``hls.approx`` call.
    exact_reason : str
        Empty when the unit replaced the operation; otherwise why ``approx=`` left it
        exact (the operands are wider than the library's units, or the unit's
        parameters do not fit these widths).
    """

    filename: str
    lineno: int
    col: int
    text: str
    kind: str
    unit: str
    origin: str
    shapes: tuple
    key: str
    exact_reason: str = ""

    def to_json(self) -> dict:
        return {"file": self.filename, "line": self.lineno, "col": self.col, "text": self.text,
                "kind": self.kind, "unit": self.unit, "origin": self.origin,
                "operands": [f"{'signed' if s.signed else 'unsigned'}({s.width})" for s in self.shapes],
                "replaced": not self.exact_reason, "exact_reason": self.exact_reason or None}


@dataclass(frozen=True)
class Operation:
    """One operation a unit of ``@hls.kernel(approx=...)`` may replace: a ``*``, ``//``, ``%``, ``+`` or ``-`` whose
    operands are both not constants (the space :mod:`hls.explore` searches).

    Attributes
    ----------
    key : str
        ``FILE:LINE:COL`` (the file's base name, 1-based line and column), the key that
        ``approx=`` takes for this one operation (:func:`hls.approx.operation_key`).
    filename : str
    lineno, col : int
    text : str
        The user's text of the operation (``w_side * (a + c)``).
    kind : str
        ``"mul"``, ``"add"``, ``"sub"``, ``"div"`` or ``"mod"``.
    shapes : tuple of (Shape, Shape)
        The operand shapes of every copy of the operation in the body (helpers inlined
        twice and unrolled loops make several), without repeats.
    """

    key: str
    filename: str
    lineno: int
    col: int
    text: str
    kind: str
    shapes: tuple

    def to_json(self) -> dict:
        return {"key": self.key, "file": self.filename, "line": self.lineno, "col": self.col, "text": self.text,
                "kind": self.kind, "operands": [[f"{'signed' if s.signed else 'unsigned'}({s.width})" for s in pair]
                                                for pair in self.shapes]}


@dataclass
class TypedKernel:
    """A checked, normalised kernel with a shape on every expression.

    It does not carry the compile target (clock, resource limits): that is
    given to :func:`hls.compiler.compile_kernel` as an :class:`hls.Target`.

    Attributes
    ----------
    name : str
    filename : str
        Absolute path of the user's file.
    params : list of Param
    return_shapes : list of Shape
        ``[]`` for no return, ``[s]`` for a scalar, several for a tuple.
    variables : dict of str to Shape
        Every local (helper locals renamed unique) with its shape.
    body : list of ast.stmt
        The checked body with helpers inlined. ``lineno``/``col_offset`` are
        positions in the user's file. Every expression node has a shape
        (:func:`shape_of`).
    loops : dict of (ast.For or ast.While) to LoopPragma
        Keyed by node identity.
    display_names : dict of str to str
        Internal variable name -> the name the user wrote (they differ for
        renamed helper locals and reused loop variables); names absent here
        are unchanged.
    approximations : list of ApproxSite
        Every operation an approximate unit was asked for, in source order.
    local_arrays : dict of str to LocalArray
        Arrays declared in the body with ``hls.local``, by internal name.
    operations : list of Operation
        Every operation ``approx=`` may replace (approximated or not), in source order.
    """

    name: str
    filename: str
    params: list[Param]
    return_shapes: list[Shape]
    variables: dict[str, Shape]
    body: list[ast.stmt]
    loops: dict[ast.AST, LoopPragma]
    display_names: dict[str, str] = field(default_factory=dict)
    approximations: list = field(default_factory=list)
    local_arrays: dict[str, LocalArray] = field(default_factory=dict)
    operations: list = field(default_factory=list)

    def array(self, name: str) -> tuple[Shape, int, Partition | None]:
        """Element shape, depth and partition of array ``name`` (a parameter or a local)."""
        if name in self.local_arrays:
            local = self.local_arrays[name]
            return local.shape, local.depth, local.partition
        param = self.param(name)
        return param.shape, param.depth, param.partition

    def param(self, name: str) -> Param:
        """The parameter called ``name``; raises ``KeyError`` if there is none."""
        for param in self.params:
            if param.name == name:
                return param
        raise KeyError(name)

    def streams(self) -> dict[str, Param]:
        """The stream parameters by name, in order."""
        return {param.name: param for param in self.params if param.kind == "stream"}

    def display_name(self, name: str) -> str:
        """The user's own name for the internal variable ``name``."""
        return self.display_names.get(name, name)


def shape_of(node: ast.expr) -> Shape:
    """The Amaranth shape the front end inferred for an expression of ``TypedKernel.body``.

    Raises
    ------
    KeyError
        If ``node`` is not an expression of a typed body (for example a node of
        the user's original AST).
    """
    try:
        return getattr(node, SHAPE_ATTR)
    except AttributeError:
        raise KeyError(f"{type(node).__name__} node at line {getattr(node, 'lineno', '?')} "
                       f"has no inferred shape; is it from TypedKernel.body?") from None
