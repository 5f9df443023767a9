"""Shape inference: the last pass of the front end (:func:`hls.frontend.analyze.analyze`).

:func:`infer_shapes` takes the body that the name walk of ``analyze`` built (names
resolved and unique, helpers inlined, unrolled loops copied, every node located at the
user's text), in which only literals have shapes, and gives every expression node its
Amaranth shape (:data:`~hls.frontend.typed.SHAPE_ATTR`) and every variable whose shape
was left open its shape: that of its first value, or for a loop variable that of its
range. On the way it replaces each operation that a unit of ``@hls.kernel(approx=...)``
takes over by that unit, records every operation ``approx=`` may name, and checks what
only shapes show (a signed shift amount, a value wider than :data:`MAX_WIDTH`, a unit
that cannot be built at its operands' widths).

:func:`binary_result` is the shape rule of one binary operator with its checks; the
walk uses it to fold operations of literals in unrolled copies.
"""

from __future__ import annotations

import ast
import linecache
import warnings
from dataclasses import dataclass, field

from amaranth.hdl import Shape

from .. import approx
from ..errors import KernelSyntaxError, KernelWarning
from ..ir.ops import APPROX_ATTR, APPROX_CALL, OPERATION_ATTR, STREAM_READ, TEXT_ATTR, operator_of
from ..types import format_shape, shape_range
from .shapes import BOOL, abs_shape, binary_shape, const_shape, mux_shape, range_shape, unary_shape
from .typed import SHAPE_ATTR, ApproxSite

__all__ = ["infer_shapes", "binary_result", "ShapeInput", "SOURCE_ATTR", "COPY_ATTR", "REUSE_ATTR", "MAX_WIDTH"]

#: Widest expression the front end accepts, in bits: Amaranth's simulator refuses wider values.
MAX_WIDTH = 65536

#: On a walked ``BinOp`` or ``hls.approx`` call: ``(filename, the user's node)``, for positions and texts.
SOURCE_ATTR = "hls_source"
#: On a walked expression copied from another (the middle of ``a < b < c``): its unit site is the original's.
COPY_ATTR = "hls_copy"
#: On a walked ``For`` whose target reuses an earlier loop's variable: ``(base, display)``; the variable
#: is kept if the shapes of the two ranges are equal, else the loop gets a fresh name from ``base``.
REUSE_ATTR = "hls_reuse"

#: The kernel operators a unit of ``@hls.kernel(approx=...)`` replaces: kind -> the exact operator's
#: Python syntax (its operator-table entry's), and back; the symbols as the report writes them.
_APPROX_EXACT = {kind: operator_of(exact).syntax[0] for kind, exact in approx.EXACT_OPERATOR.items()}
_APPROX_SYNTAX = {syntax: kind for kind, syntax in _APPROX_EXACT.items()}
_SYMBOLS = {syntax: approx.KINDS[kind] for kind, syntax in _APPROX_EXACT.items()}
#: How a hint names the units of each unit kind.
_UNIT_NOUNS = {"mul": "a multiplier", "add": "an adder", "div": "a divider"}


@dataclass
class ShapeInput:
    """What :func:`infer_shapes` needs besides the body.

    Attributes
    ----------
    filename : str
        The kernel's file (statements inlined from another file carry ``hls_filename``).
    variables : dict of str to Shape or None
        Every variable; ``None``: the shape of its first value (of its range for a loop
        variable). Filled in.
    params : dict of str to Shape
        Scalar parameters.
    arrays : dict of str to ArrayType
        Arrays by internal name (parameters and ``hls.local`` arrays).
    streams : dict of str to Shape
        Token shape of each stream parameter.
    joined : set of str
        Variables whose shape holds every value assigned to them (read only after the last).
    inferred : dict of str to tuple of (str, int)
        The user's unannotated locals: internal name -> (user name, line of the first value).
    used_names, display_names
        The walk's names; a loop that cannot reuse a variable takes a fresh one.
    kernel_approx : dict
        ``@hls.kernel(approx=...)``: kind or operation key -> hls.approx.UnitChoice.
    """

    filename: str
    variables: dict
    params: dict
    arrays: dict
    streams: dict
    joined: set = field(default_factory=set)
    inferred: dict = field(default_factory=dict)
    used_names: set = field(default_factory=set)
    display_names: dict = field(default_factory=dict)
    kernel_approx: dict = field(default_factory=dict)


def binary_result(op: ast.operator, left: ast.expr, right: ast.expr) -> tuple[Shape | None, tuple[str, str | None] | None]:
    """The shape of ``left op right`` (both typed) and ``(message, hint)`` if it is outside the
    language (then the shape is None for a signed shift amount, which has none)."""
    left_shape, right_shape = getattr(left, SHAPE_ATTR), getattr(right, SHAPE_ATTR)
    if isinstance(op, (ast.LShift, ast.RShift)) and right_shape.signed:
        symbol = "<<" if isinstance(op, ast.LShift) else ">>"
        what = (f"the constant {right.value}" if isinstance(right, ast.Constant)
                else f"{ast.unparse(right)!r}, which is {format_shape(right_shape)}")
        return None, (f"the shift amount of {symbol} must be unsigned, but it is {what}",
                       "use an unsigned variable or a non-negative constant; shift the other way "
                       "for negative amounts")
    shape = binary_shape(type(op), left_shape, right_shape)
    if shape.width > MAX_WIDTH:
        # Amaranth widens x << y by 2**len(y) - 1 bits: a 16-bit amount makes a
        # value wider than Amaranth's simulator accepts.
        if isinstance(op, ast.LShift):
            amount = right_shape.width
            return shape, (f"the result of << would be {shape.width} bits wide (the shift amount "
                           f"{ast.unparse(right)!r} has {amount} bits, so it can shift by up to "
                           f"{2 ** amount - 1}); the limit is {MAX_WIDTH}",
                           "assign the amount to a variable as narrow as the shifts you need first, "
                           "e.g. k: unsigned(5) = ...; masking with & keeps the wider width")
        return shape, (f"this expression would be {shape.width} bits wide; the limit is {MAX_WIDTH}",
                       "split it and assign the parts to narrower variables")
    return shape, None


def infer_shapes(body: list[ast.stmt], given: ShapeInput) -> tuple[list[ApproxSite], dict[str, list]]:
    """Give every expression of ``body`` (changed in place) and every open variable of
    ``given.variables`` its shape.

    Returns the approximate-unit sites found (in body order) and every operation
    ``approx=`` may replace: key -> ``[filename, lineno, col, text, kind, [shape pairs]]``.

    Raises
    ------
    hls.errors.KernelSyntaxError
        At the first operation, in body order, whose shapes are outside the language.
    """
    inference = _Inference(given)
    inference.statements(body, given.filename)
    for name, targets in inference.joined_targets.items():
        for target in targets:
            setattr(target, SHAPE_ATTR, given.variables[name])
    return inference.approximations, inference.operations


class _Inference:
    def __init__(self, given: ShapeInput):
        self.given = given
        self.approximations: list[ApproxSite] = []
        self.operations: dict[str, list] = {}
        #: a walked loop variable -> the variable the latest loop reusing it binds
        self.renamed: dict[str, str] = {}
        self.joined_targets: dict[str, list[ast.Name]] = {}

    def error(self, filename: str, node: ast.AST, message: str, hint: str | None = None):
        raise KernelSyntaxError(filename, node.lineno, node.col_offset + 1, message, hint)

    # -- statements ------------------------------------------------------------------------

    def statements(self, statements: list[ast.stmt], filename: str):
        for statement in statements:
            self.statement(statement, getattr(statement, "hls_filename", filename))

    def statement(self, node: ast.stmt, filename: str):
        if isinstance(node, ast.Assign):
            node.value = self.expr(node.value)
            self.assign(node.targets[0], node, filename)
        elif isinstance(node, ast.Expr):        # a stream write
            call = node.value
            call.args[1] = self.expr(call.args[1])
            setattr(call, SHAPE_ATTR, self.given.streams[call.args[0].id])
        elif isinstance(node, ast.If):
            node.test = self.expr(node.test)
            self.statements(node.body, filename)
            self.statements(node.orelse, filename)
        elif isinstance(node, ast.For):
            self.loop(node, filename)
        elif isinstance(node, ast.While):
            node.test = self.expr(node.test)
            self.statements(node.body, filename)
        elif isinstance(node, ast.Return) and node.value is not None:
            if isinstance(node.value, ast.Tuple):
                node.value.elts = [self.expr(value) for value in node.value.elts]
            else:
                node.value = self.expr(node.value)

    def assign(self, target: ast.expr, node: ast.Assign, filename: str):
        variables, shape = self.given.variables, getattr(node.value, SHAPE_ATTR)
        if isinstance(target, ast.Subscript):
            target.slice = self.expr(target.slice)
            setattr(target, SHAPE_ATTR, self.given.arrays[target.value.id].shape)
            return
        name = target.id
        if name in self.given.joined:
            variables[name] = shape if variables[name] is None else mux_shape(variables[name], shape)
            self.joined_targets.setdefault(name, []).append(target)
        elif variables[name] is None:
            variables[name] = shape
        elif name in self.given.inferred and not _holds(variables[name], shape):
            self.warn_narrow(name, shape, node, filename)
        setattr(target, SHAPE_ATTR, variables[name])

    def warn_narrow(self, internal: str, shape: Shape, node: ast.stmt, filename: str):
        """An unannotated local gets a value wider than the shape of its first value: it
        wraps, as documented, but that is rarely what `count = 0 ... count += 1` means."""
        name, first = self.given.inferred[internal]
        message = (f"{name!r} is {format_shape(self.given.variables[internal])}, the shape of its first value "
                   f"(line {first}); this {format_shape(shape)} value wraps to it "
                   f"(hint: declare the shape it needs where it is first assigned, e.g. "
                   f"{name}: {'signed' if shape.signed else 'unsigned'}(32) = ...)")
        warnings.warn_explicit(message, KernelWarning, filename, node.lineno)

    def loop(self, node: ast.For, filename: str):
        start, stop, step = node.iter.args
        start, stop = node.iter.args[0], node.iter.args[1] = self.expr(start), self.expr(stop)
        if isinstance(start, ast.Constant) and isinstance(stop, ast.Constant):
            shape = range_shape(start.value, stop.value, step.value)
        else:
            shape = mux_shape(getattr(start, SHAPE_ATTR), getattr(stop, SHAPE_ATTR))
        variables, walked = self.given.variables, node.target.id
        if hasattr(node, REUSE_ATTR):
            base, display = getattr(node, REUSE_ATTR)
            delattr(node, REUSE_ATTR)
            internal = self.renamed.get(walked, walked)
            if variables[internal] != shape:
                internal = self.fresh(base, display)
            self.renamed[walked] = internal
            if internal != walked:
                for child in ast.walk(node):
                    if isinstance(child, ast.Name) and child.id == walked:
                        child.id = internal
        if variables[node.target.id] is None:
            variables[node.target.id] = shape
        setattr(node.target, SHAPE_ATTR, shape)
        self.statements(node.body, filename)

    def fresh(self, base: str, display: str) -> str:
        name, counter = base, 1
        while name in self.given.used_names:
            counter += 1
            name = f"{base}_{counter}"
        self.given.used_names.add(name)
        self.given.variables[name] = None
        if display != name:
            self.given.display_names[name] = display
        return name

    # -- expressions -----------------------------------------------------------------------

    def expr(self, node: ast.expr) -> ast.expr:
        if isinstance(node, ast.Constant):
            if not hasattr(node, SHAPE_ATTR):
                setattr(node, SHAPE_ATTR, const_shape(node.value))
            return node
        if isinstance(node, ast.Name):
            shape = self.given.variables.get(node.id)
            setattr(node, SHAPE_ATTR, self.given.params[node.id] if shape is None else shape)
        elif isinstance(node, ast.Subscript):
            node.slice = self.expr(node.slice)
            setattr(node, SHAPE_ATTR, self.given.arrays[node.value.id].shape)
        elif isinstance(node, ast.BinOp):
            node.left, node.right = self.expr(node.left), self.expr(node.right)
            return self.binary(node)
        elif isinstance(node, ast.UnaryOp):
            node.operand = self.expr(node.operand)
            setattr(node, SHAPE_ATTR, unary_shape(type(node.op), getattr(node.operand, SHAPE_ATTR)))
        elif isinstance(node, ast.BoolOp):
            node.values = [self.expr(value) for value in node.values]
            setattr(node, SHAPE_ATTR, BOOL)
        elif isinstance(node, ast.Compare):
            node.left = self.expr(node.left)
            node.comparators = [self.expr(value) for value in node.comparators]
            setattr(node, SHAPE_ATTR, BOOL)
        elif isinstance(node, ast.IfExp):
            node.test, node.body, node.orelse = self.expr(node.test), self.expr(node.body), self.expr(node.orelse)
            setattr(node, SHAPE_ATTR, mux_shape(getattr(node.body, SHAPE_ATTR), getattr(node.orelse, SHAPE_ATTR)))
        elif isinstance(node, ast.Call):
            return self.call(node)
        return node

    def call(self, node: ast.Call) -> ast.expr:
        callee = node.func.id
        if callee == STREAM_READ:
            setattr(node, SHAPE_ATTR, self.given.streams[node.args[0].id])
            return node
        node.args = [self.expr(argument) for argument in node.args]
        shapes = [getattr(argument, SHAPE_ATTR) for argument in node.args]
        if callee in ("min", "max"):
            setattr(node, SHAPE_ATTR, mux_shape(*shapes))
        elif callee == "abs":
            setattr(node, SHAPE_ATTR, abs_shape(shapes[0]))
        else:
            assert callee == APPROX_CALL, callee       # an hls.approx call
            filename, user = getattr(node, SOURCE_ATTR)
            delattr(node, SOURCE_ATTR)
            unit, text = getattr(node, APPROX_ATTR), getattr(node, TEXT_ATTR)
            # Not a key approx= takes: the name of the call's operations in the IR (hls.ir.dead).
            key = approx.operation_key(filename, user.lineno, user.col_offset + 1)
            setattr(node, OPERATION_ATTR, key)
            self.unit_site(unit, shapes, filename, user, text, key, "call", record=not hasattr(node, COPY_ATTR))
            setattr(node, SHAPE_ATTR, binary_shape(_APPROX_EXACT[unit.kind], *shapes))
        return node

    def binary(self, node: ast.BinOp) -> ast.expr:
        filename, user = getattr(node, SOURCE_ATTR)
        delattr(node, SOURCE_ATTR)
        copy = hasattr(node, COPY_ATTR)
        if copy:
            delattr(node, COPY_ATTR)
        left, op, right = node.left, node.op, node.right
        shape, problem = binary_result(op, left, right)
        if problem is not None:
            self.error(filename, user, *problem)
        setattr(node, SHAPE_ATTR, shape)
        kind = _APPROX_SYNTAX.get(type(op))
        if kind is None or isinstance(left, ast.Constant) or isinstance(right, ast.Constant):
            return node
        lineno, col = _operator_position(filename, user, op)
        key = approx.operation_key(filename, lineno, col)
        text = _operation_text(user, op)
        entry = self.operations.setdefault(key, [filename, lineno, col, text, kind, []])
        shapes = (getattr(left, SHAPE_ATTR), getattr(right, SHAPE_ATTR))
        if shapes not in entry[5]:
            entry[5].append(shapes)
        setattr(node, OPERATION_ATTR, key)
        unit = self.given.kernel_approx.get(key, self.given.kernel_approx.get(kind))
        if unit is None:
            return node
        if approx.UNIT_KIND[unit.kind] != approx.UNIT_KIND[kind]:
            self.error(filename, user, f"`{text}`: approx={{{key!r}: ...}}: {unit.unit!r} is a unit for "
                       f"{approx.UNIT_KIND[unit.kind]}, and this operation is {kind}",
                       f"choose {_UNIT_NOUNS[approx.UNIT_KIND[kind]]} for {kind}")
        unit = approx.as_kind(unit, kind)       # an adder named for a `-` is a "sub"
        if not self.unit_site(unit, shapes, filename, user, text, key, "kernel", record=not copy):
            return node
        call = ast.copy_location(ast.Call(func=ast.copy_location(ast.Name(id=APPROX_CALL, ctx=ast.Load()), user),
                                          args=[left, right], keywords=[]), user)
        for name, value in ((APPROX_ATTR, unit), (TEXT_ATTR, text), (OPERATION_ATTR, key), (SHAPE_ATTR, shape)):
            setattr(call, name, value)
        if filename != self.given.filename:
            call.hls_filename = filename
        return call

    def unit_site(self, unit, shapes, filename: str, user: ast.AST, text: str, key: str, origin: str,
                  record: bool) -> bool:
        """Whether ``unit`` (an :class:`hls.approx.UnitChoice`) can be built at operand ``shapes``;
        records the site. A unit that cannot is an error for an ``hls.approx`` call; for
        ``approx=`` the operation stays exact (``False``), and the report says why."""
        # hls.unit_operators loads approx_units (and numpy): only kernels with approximate units need it.
        from ..unit_operators import UnitWidthError, approx_unit
        site = dict(filename=filename, lineno=user.lineno, col=user.col_offset + 1, text=text,
                    kind=unit.kind, unit=unit.label, origin=origin, shapes=tuple(shapes), key=key)
        try:
            approx_unit(unit, *shapes)
        except UnitWidthError as error:
            if origin == "call":
                self.error(filename, user, f"`{text}`: {error}")
            if approx.allowed_at_no_width(unit) is not None:
                # Not a unit that merely does not fit these operands: a value no width allows.
                self.error(filename, user, f"`{text}`: approx={{{unit.kind!r}: ...}}: {error}",
                           "choose a value allowed at these operand widths")
            if record:
                self.approximations.append(ApproxSite(**site, exact_reason=str(error)))
            return False
        if record:
            self.approximations.append(ApproxSite(**site))
        return True


def _operator_position(filename: str, node: ast.AST, op: ast.operator) -> tuple[int, int]:
    """``(line, column)``, 1-based, of the operator symbol of ``node`` (a BinOp or an AugAssign) in its
    file: the first ``*`` / ``+`` / ``-`` / ``//`` / ``%`` after the left operand (``(a + c) * w`` -> the ``*``). Two
    operations never share it, where the start of the expression (``a * b + c``) is shared.
    The start of ``node`` when the file cannot be read."""
    left = node.left if isinstance(node, ast.BinOp) else getattr(node, "target", None)
    symbol = _SYMBOLS.get(type(op))
    if left is not None and symbol is not None and getattr(left, "end_lineno", None) is not None:
        lineno, start = left.end_lineno, left.end_col_offset
        while lineno <= getattr(node, "end_lineno", lineno):
            text = linecache.getline(filename, lineno).encode()
            found = text.find(symbol.encode(), start)
            if found >= 0:
                return lineno, found + 1
            lineno, start = lineno + 1, 0
    return node.lineno, node.col_offset + 1


def _operation_text(node: ast.AST, op: ast.operator) -> str:
    """The user's text of an operation: ``a * b`` (``s += a * b`` gives ``s + a * b``)."""
    if isinstance(node, ast.BinOp):
        return ast.unparse(node)
    symbol = ast.unparse(ast.BinOp(left=ast.Name(id="x"), op=op, right=ast.Name(id="y")))[2:-2]
    return f"{ast.unparse(node.target)} {symbol} {ast.unparse(node.value)}"


def _holds(outer: Shape, inner: Shape) -> bool:
    """Whether every value of ``inner`` fits ``outer``."""
    (outer_low, outer_high), (inner_low, inner_high) = shape_range(outer), shape_range(inner)
    return outer_low <= inner_low and inner_high <= outer_high
