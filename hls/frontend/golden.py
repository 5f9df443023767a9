"""The golden model: the typed kernel body run as Python, with Amaranth's semantics.

The body of the :class:`~hls.frontend.typed.TypedKernel` (the user's own
statements, helpers inlined) is rewritten and compiled with the user's file
name and line numbers, so that:

* every assignment, array store and return wraps to its shape, as assigning to
  an Amaranth signal does;
* each operator means what its entry in the operator table (:mod:`hls.ir.ops`)
  says: Python's own operator where that is exact, the entry's golden function
  otherwise (``~x`` of an unsigned value is ``(2**width - 1) ^ x``; ``x // 0``
  and ``x % 0`` are 0, as in Amaranth);
* ``and``/``or`` give 0 or 1 and still short-circuit; comparisons give 0 or 1;
* every array access is bounds-checked (:class:`~hls.errors.KernelRuntimeError`);
* a stream read (``x = s.read()``) takes the next item of the Python iterable given for
  ``s`` (one past its end is a :class:`~hls.errors.KernelRuntimeError`), and a write
  (``o.write(v)``) appends ``v``, wrapped to the stream's shape, to the list given for ``o``;
* every local starts at 0, as a hardware register does;
* every loop counts its iterations, so that a run can be bounded
  (``max_loop_iterations=``): a ``while`` that never ends stops with
  :class:`~hls.errors.KernelLoopLimit` instead of hanging the caller.

The same compiled code runs in *checked* mode for ``axhls check``: each
assignment site whose value does not fit its shape is recorded before the
value is wrapped.
"""

from __future__ import annotations

import ast
import builtins
import math
import numbers
from dataclasses import dataclass

from amaranth.hdl import Shape

from ..errors import KernelLoopLimit, KernelRuntimeError, display_path
from ..types import fits, format_shape, shape_range
from ..ir.ops import APPROX_ATTR, APPROX_CALL, Operator, approx_operator, operator_for_syntax, operator_of, stream_call
from .typed import SHAPE_ATTR, TypedKernel
from ..syntax import compile_tree

__all__ = ["GoldenModel", "Site", "Overflow", "InputStream", "StreamSite", "check_loop_bound"]

_FUNCTION = "__hls_golden"


@dataclass(frozen=True)
class Site:
    """A place in the user's source where a value is assigned, stored or returned.

    Attributes
    ----------
    filename : str
    lineno, col : int
        1-based position of the target.
    target : str
        What the user wrote: ``s``, ``a[...]``, or ``return``.
    shape : Shape
        The shape the value wraps to.
    """

    filename: str
    lineno: int
    col: int
    target: str
    shape: Shape


@dataclass
class Overflow:
    """Values at one :class:`Site` that did not fit its shape during a checked run.

    Attributes
    ----------
    site : Site
    count : int
        How many times it happened.
    first_value : int
        The first value that did not fit (before wrapping).
    first_index : int or None
        For an array store, the index that value was stored at.
    """

    site: Site
    count: int = 0
    first_value: int = 0
    first_index: int | None = None

    def to_json(self) -> dict:
        low, high = shape_range(self.site.shape)
        return {"file": self.site.filename, "line": self.site.lineno, "col": self.site.col,
                "variable": self.site.target, "shape": format_shape(self.site.shape),
                "width": self.site.shape.width, "signed": self.site.shape.signed,
                "min": low, "max": high, "count": self.count, "first_value": self.first_value,
                "first_index": self.first_index}

    def to_text(self) -> str:
        low, high = shape_range(self.site.shape)
        times = "once" if self.count == 1 else f"{self.count} times"
        target = self.site.target
        if self.first_index is not None:
            target = target.replace("[...]", f"[{self.first_index}]")
        return (f"{display_path(self.site.filename)}:{self.site.lineno}: {target} = {self.first_value} "
                f"does not fit {format_shape(self.site.shape)} ({low}..{high}); "
                f"wrapped {times}")


@dataclass
class _LoopSite:
    filename: str
    lineno: int


@dataclass
class StreamSite:
    """Where a stream is read: the place a read past its last token is reported at."""

    filename: str
    lineno: int


class InputStream:
    """The tokens of an input stream during one run: the next item of an iterable on each read.

    Parameters
    ----------
    name : str
    shape : Shape
        Every token is checked against it as it is read.
    tokens : iterable of int

    Attributes
    ----------
    count : int
        Tokens read so far.
    """

    def __init__(self, name: str, shape: Shape, tokens):
        self.name, self.shape = name, shape
        self.tokens = iter(tokens)
        self.count = 0

    def read(self, site: StreamSite) -> int:
        """The next token.

        Raises
        ------
        hls.errors.KernelRuntimeError
            At ``site``, when the iterable has no more tokens.
        TypeError, ValueError
            A token that is not an integer, or does not fit the shape.
        """
        try:
            token = next(self.tokens)
        except StopIteration:
            raise KernelRuntimeError(site.filename, site.lineno,
                                     f"read {self.count + 1} of stream {self.name!r}, which gave only "
                                     f"{self.count} token(s)") from None
        token = _token(token, self.name, self.count, self.shape)
        self.count += 1
        return token


@dataclass
class _AccessSite:
    filename: str
    lineno: int
    array: str
    depth: int


class GoldenModel:
    """A compiled golden model of a :class:`TypedKernel`.

    Parameters
    ----------
    typed : TypedKernel

    Attributes
    ----------
    sites : list of Site
        Every assignment, store and return of the body.
    source : str
        The generated Python, for debugging.
    tokens_read : dict of str to int
        After a run: how many tokens the body read from each input stream.
    """

    def __init__(self, typed: TypedKernel):
        self.typed = typed
        self._names = frozenset(param.name for param in typed.params)
        self.sites: list[Site] = []
        self._accesses: list[_AccessSite] = []
        self._stream_sites: list[StreamSite] = []
        self.tokens_read: dict[str, int] = {}
        self._loops: list[_LoopSite] = []
        self._shapes: list[tuple[int, bool]] = []
        self._helpers: dict = {}        # generated name -> an operator's golden function
        self._helper_names: dict = {}   # (kind, operand shapes) -> generated name
        module = self._module()
        self.source = ast.unparse(module)
        # Helpers and builtins under reserved names: a kernel may call a local `range` or `int`.
        # Operators whose Python meaning differs from Amaranth's call their table entry's golden function.
        namespace: dict = {"__hls_int": int, "__hls_bool": bool, "__hls_range": range, **self._helpers,
                           "__hls_stream_read": lambda stream, site: stream.read(self._stream_sites[site]),
                           "__hls_stream_write": lambda stream, token: stream.append(token)}
        exec(compile_tree(module, typed.filename, "exec"), namespace)
        self._function = namespace[_FUNCTION]

    # -- running ---------------------------------------------------------------------------

    def bind(self, args: tuple, kwargs: dict) -> dict:
        """Check call arguments against the parameters; returns ``{name: value}``.

        Raises
        ------
        TypeError
            Missing, unexpected or wrongly typed arguments.
        ValueError
            Values that do not fit, arrays of the wrong length.
        """
        bound = self.match(args, kwargs)
        for param in self.typed.params:
            self.check_argument(param, bound[param.name])
        return bound

    def match(self, args: tuple, kwargs: dict) -> dict:
        """``{name: value}`` of the call's arguments by position and keyword, values unchecked.

        Raises
        ------
        TypeError
            Missing, unexpected or repeated arguments, or too many.
        """
        params = self.typed.params
        name = self.typed.name
        if len(args) > len(params):
            raise TypeError(f"{name}() takes {len(params)} argument(s), {len(args)} given")
        bound = {param.name: value for param, value in zip(params, args)}
        names = self._names
        for key, value in kwargs.items():
            if key in bound:
                raise TypeError(f"{name}() got argument {key!r} twice")
            if key not in names:
                raise TypeError(f"{name}() has no parameter {key!r} "
                                f"(parameters: {', '.join(p.name for p in params)})")
            bound[key] = value
        if len(bound) == len(params):
            return bound
        missing = [param.name for param in params if param.name not in bound]
        if missing:
            raise TypeError(f"{name}() is missing argument(s): {', '.join(missing)}")
        return bound

    @staticmethod
    def check_argument(param, value) -> None:
        """Check one argument against its :class:`~hls.frontend.typed.Param`.

        Raises
        ------
        TypeError
            A scalar or element that is not an integer (``bool`` is not), or an array
            that is not a list or a 1-D integer numpy array wide enough for the shape.
        ValueError
            A value that does not fit the shape, or an array of the wrong length.
        """
        low, high = shape_range(param.shape)
        if param.kind == "scalar":
            value = _integer(value, f"argument {param.name!r}")
            if not low <= value <= high:
                raise ValueError(f"argument {param.name} = {value} does not fit "
                                 f"{format_shape(param.shape)} ({low}..{high})")
            return
        if param.kind == "stream":
            _check_stream_argument(param, value)
            return
        if _is_numpy_array(value):
            if value.ndim != 1 or value.dtype.kind not in "iu":
                raise TypeError(f"array argument {param.name!r} must be a 1-D integer numpy "
                                f"array, not {value.ndim}-D {value.dtype}")
            import numpy   # optional: only when the caller passes numpy arrays
            info = numpy.iinfo(value.dtype)
            if info.min > low or info.max < high:
                raise TypeError(f"array argument {param.name!r} has dtype {value.dtype}, which "
                                f"cannot hold {format_shape(param.shape)}; use a wider dtype")
            items = value.tolist()
        elif isinstance(value, list):
            items = value
        else:
            raise TypeError(f"array argument {param.name!r} must be a list or a numpy array, "
                            f"not {type(value).__name__}")
        if len(items) != param.depth:
            raise ValueError(f"array argument {param.name!r} has {len(items)} elements; "
                             f"hls.Array[{format_shape(param.shape)}, {param.depth}] needs "
                             f"exactly {param.depth}")
        for index, item in enumerate(items):
            item = _integer(item, f"{param.name}[{index}]")
            if not low <= item <= high:
                raise ValueError(f"{param.name}[{index}] = {item} does not fit "
                                 f"{format_shape(param.shape)} ({low}..{high})")

    def call(self, args: tuple, kwargs: dict, *, max_loop_iterations: int | None = None):
        """Bind, run, write the arrays back into the caller's lists/numpy arrays, return.

        ``max_loop_iterations`` bounds the run: see :meth:`run`.
        """
        bound = self.bind(args, kwargs)
        arrays = {param.name: [int(v) for v in bound[param.name]]
                  for param in self.typed.params if param.kind == "array"}
        # Output streams append to the caller's own lists.
        arrays.update({param.name: bound[param.name] for param in self.typed.params
                       if param.kind == "stream" and param.direction == "out"})
        try:
            return self._run(bound, arrays, self._assign, self._store, max_loop_iterations)
        finally:
            # Writes are visible to the caller, as through a C pointer, even if the
            # run stopped at a bad index.
            for name, values in arrays.items():
                if values is not bound[name]:
                    bound[name][:] = values

    def run(self, bound: dict, *, max_loop_iterations: int | None = None) -> tuple[object, dict[str, list[int]]]:
        """Run on already-bound arguments without touching them.

        Parameters
        ----------
        bound : dict
            From :meth:`bind`.
        max_loop_iterations : int or None
            Stop when any one loop of the body has run more iterations than this,
            counted over the whole run (every entry of that loop); ``None``: no bound.
            The hardware starts at most one iteration of a loop per cycle (a
            flattened nest one inner or empty outer iteration), so a run stopped
            here could not finish within that many cycles either.

        Raises
        ------
        hls.errors.KernelLoopLimit
            When a loop ran more than ``max_loop_iterations`` iterations.
        hls.errors.KernelRuntimeError
            An array index out of range.

        Returns
        -------
        (result, arrays)
            The return value (``None``, ``int`` or tuple), the final contents
            of every array, and the tokens written to every output stream (under its name).
        """
        arrays = self._fresh_arrays(bound)
        return self._run(bound, arrays, self._assign, self._store, max_loop_iterations), arrays

    def run_checked(self, bound: dict, *, max_loop_iterations: int | None = None
                    ) -> tuple[object, dict[str, list[int]], list[Overflow]]:
        """Run, recording every value that did not fit where it was assigned (bounded as :meth:`run`).

        Returns
        -------
        (result, arrays, overflows)
            ``overflows`` has one :class:`Overflow` per site, in source order.
        """
        arrays = self._fresh_arrays(bound)
        overflows: dict[int, Overflow] = {}
        sites, shapes = self.sites, self._shapes

        def assign(value, site, index=None):
            width, signed = shapes[site]
            if not fits(value, Shape(width, signed)):
                overflow = overflows.get(site)
                if overflow is None:
                    overflow = overflows[site] = Overflow(sites[site], 0, value, index)
                overflow.count += 1
            return _wrap(value, width, signed)

        def store(array, index, value, site, access):
            array[self._checked_index(index, access)] = assign(value, site, index)

        result = self._run(bound, arrays, assign, store, max_loop_iterations)
        ordered = sorted(overflows.values(), key=lambda o: (o.site.filename, o.site.lineno, o.site.col))
        return result, arrays, ordered

    def _fresh_arrays(self, bound: dict) -> dict:
        """Copies of the array arguments, and an empty list for each output stream."""
        arrays = {}
        for param in self.typed.params:
            if param.kind == "array":
                arrays[param.name] = [int(v) for v in bound[param.name]]
            elif param.kind == "stream" and param.direction == "out":
                arrays[param.name] = []
        return arrays

    def _run(self, bound, arrays, assign, store, max_loop_iterations):
        check_loop_bound(max_loop_iterations)
        inputs = {p.name: InputStream(p.name, p.shape, bound[p.name]) for p in self.typed.params
                  if p.kind == "stream" and p.direction == "in"}
        values = [inputs[p.name] if p.name in inputs else arrays[p.name] if p.name in arrays else int(bound[p.name])
                  for p in self.typed.params]
        # What each loop may still run; math.inf stays inf when decremented.
        remaining = [math.inf if max_loop_iterations is None else max_loop_iterations] * len(self._loops)

        def exhausted(loop):
            where = self._loops[loop]
            raise KernelLoopLimit(where.filename, where.lineno, max_loop_iterations)

        try:
            return self._function(assign, store, self._load, remaining, exhausted, *values)
        finally:
            self.tokens_read = {name: stream.count for name, stream in inputs.items()}

    # -- run-time helpers called by the generated code -------------------------------------

    def _assign(self, value, site):
        width, signed = self._shapes[site]
        return _wrap(value, width, signed)

    def _store(self, array, index, value, site, access):
        width, signed = self._shapes[site]
        array[self._checked_index(index, access)] = _wrap(value, width, signed)

    def _load(self, array, index, access):
        return array[self._checked_index(index, access)]

    def _checked_index(self, index, access):
        where = self._accesses[access]
        if not 0 <= index < where.depth:
            raise KernelRuntimeError(where.filename, where.lineno,
                                     f"index {index} out of range for {where.array}[{where.depth}]")
        return index

    # -- code generation -------------------------------------------------------------------

    def _site(self, node: ast.AST, target: str, shape: Shape) -> ast.Constant:
        filename = getattr(node, "hls_filename", self.typed.filename)
        self.sites.append(Site(filename, node.lineno, node.col_offset + 1, target, shape))
        self._shapes.append((shape.width, shape.signed))
        return ast.Constant(len(self.sites) - 1)

    def _access(self, node: ast.Subscript) -> ast.Constant:
        name = node.value.id
        filename = getattr(node, "hls_filename", self.typed.filename)
        self._accesses.append(_AccessSite(filename, node.lineno, self.typed.display_name(name),
                                          self.typed.array(name)[1]))
        return ast.Constant(len(self._accesses) - 1)

    def _module(self) -> ast.Module:
        typed = self.typed
        arguments = [ast.arg(arg=name) for name in ("__hls_assign", "__hls_store", "__hls_load",
                                                    "__hls_remaining", "__hls_exhausted")]
        arguments += [ast.arg(arg=param.name) for param in typed.params]
        # Every local starts at 0, as a register does; Python would raise NameError
        # where a path reads a variable it did not assign.
        prologue = [ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())], value=ast.Constant(0))
                    for name in typed.variables]
        # Local arrays (hls.local) are plain lists, zero at the start of every run, as on-chip
        # memories and registers are after reset; partitioning does not change their values.
        prologue += [ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())],
                                value=ast.BinOp(left=ast.List(elts=[ast.Constant(0)], ctx=ast.Load()),
                                                op=ast.Mult(), right=ast.Constant(local.depth)))
                     for name, local in typed.local_arrays.items()]
        body = prologue + self._statements(typed.body)
        function = ast.FunctionDef(
            name=_FUNCTION, args=ast.arguments(posonlyargs=[], args=arguments, vararg=None,
                                               kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]),
            body=body or [ast.Pass()], decorator_list=[], returns=None)
        function.lineno = typed.body[0].lineno if typed.body else 1
        module = ast.fix_missing_locations(ast.Module(body=[function], type_ignores=[]))
        for node in ast.walk(module):
            # Generated nodes span no source; only their start (the user's line) matters.
            if hasattr(node, "lineno"):
                node.end_lineno, node.end_col_offset = node.lineno, node.col_offset
        return module

    def _statements(self, statements: list[ast.stmt]) -> list[ast.stmt]:
        out = []
        for statement in statements:
            out.append(ast.copy_location(self._statement(statement), statement))
        return out

    def _block(self, statements: list[ast.stmt]) -> list[ast.stmt]:
        return self._statements(statements) or [ast.Pass()]

    def _loop_body(self, loop: ast.For | ast.While) -> list[ast.stmt]:
        """The loop's body after counting the iteration against the run's bound:
        ``__hls_remaining[k] -= 1; if __hls_remaining[k] < 0: __hls_exhausted(k)``."""
        self._loops.append(_LoopSite(getattr(loop, "hls_filename", self.typed.filename), loop.lineno))
        index = ast.Constant(len(self._loops) - 1)

        def slot(context):
            return ast.Subscript(value=ast.Name(id="__hls_remaining", ctx=ast.Load()), slice=index, ctx=context)

        count = ast.AugAssign(target=slot(ast.Store()), op=ast.Sub(), value=ast.Constant(1))
        check = ast.If(test=ast.Compare(left=slot(ast.Load()), ops=[ast.Lt()], comparators=[ast.Constant(0)]),
                       body=[ast.Expr(self._call("__hls_exhausted", index))], orelse=[])
        counting = [ast.copy_location(count, loop), ast.copy_location(check, loop)]
        return counting + self._statements(loop.body)

    def _operator(self, syntax, node: ast.AST) -> Operator:
        entry = operator_for_syntax(type(syntax) if isinstance(syntax, ast.AST) else syntax)
        if entry is None or entry.golden is None:
            raise AssertionError(f"no golden semantics in the operator table for {ast.dump(node)}")
        return entry

    def _helper(self, entry: Operator, *operands: ast.expr) -> str:
        """The name under which the generated code calls ``entry``'s golden function for these operand shapes."""
        shapes = tuple(getattr(operand, SHAPE_ATTR) for operand in operands)
        key = (entry.kind, tuple((shape.width, shape.signed) for shape in shapes))
        name = self._helper_names.get(key)
        if name is None:
            name = self._helper_names[key] = f"__hls_{entry.kind}_{len(self._helper_names)}"
            self._helpers[name] = entry.golden_for(shapes)
        return name

    def _unit_helper(self, node: ast.Call) -> str:
        """The name of the golden function of an approximate unit operation (its table
        entry's: the unit's bit-exact model at the operand widths)."""
        unit = getattr(node, APPROX_ATTR)
        shapes = tuple(getattr(operand, SHAPE_ATTR) for operand in node.args)
        key = ("unit", unit, tuple((shape.width, shape.signed) for shape in shapes))
        name = self._helper_names.get(key)
        if name is None:
            name = self._helper_names[key] = f"__hls_approx_{unit.kind}_{len(self._helper_names)}"
            self._helpers[name] = approx_operator(unit.kind).golden_for(shapes, {"unit": unit})
        return name

    def _call(self, name: str, *arguments: ast.expr) -> ast.Call:
        return ast.Call(func=ast.Name(id=name, ctx=ast.Load()), args=list(arguments), keywords=[])

    def _statement(self, node: ast.stmt) -> ast.stmt:
        typed = self.typed
        if isinstance(node, ast.Expr) and stream_call(node.value) is not None:
            # o.write(v): the token wraps to the stream's shape (a site, as an assignment is).
            stream, value = node.value.args
            site = self._site(node.value, f"{stream.id}.write(...)", getattr(node.value, SHAPE_ATTR))
            return ast.Expr(self._call("__hls_stream_write", ast.Name(id=stream.id, ctx=ast.Load()),
                                       self._call("__hls_assign", self._expr(value), site)))
        if isinstance(node, ast.Assign):
            target = node.targets[0]
            value = self._expr(node.value)
            shape = getattr(target, SHAPE_ATTR)
            if isinstance(target, ast.Name):
                site = self._site(target, typed.display_name(target.id), shape)
                return ast.Assign(targets=[ast.Name(id=target.id, ctx=ast.Store())],
                                  value=self._call("__hls_assign", value, site))
            site = self._site(target, f"{target.value.id}[...]", shape)
            return ast.Expr(self._call("__hls_store", ast.Name(id=target.value.id, ctx=ast.Load()),
                                       self._expr(target.slice), value, site, self._access(target)))
        if isinstance(node, ast.Return):
            if isinstance(node.value, ast.Tuple):
                elements = [self._call("__hls_assign", self._expr(element), self._site(element, "return", shape))
                            for element, shape in zip(node.value.elts, typed.return_shapes)]
                return ast.Return(value=ast.Tuple(elts=elements, ctx=ast.Load()))
            site = self._site(node.value, "return", typed.return_shapes[0])
            return ast.Return(value=self._call("__hls_assign", self._expr(node.value), site))
        if isinstance(node, ast.If):
            return ast.If(test=self._expr(node.test), body=self._block(node.body),
                          orelse=self._statements(node.orelse))
        if isinstance(node, ast.For):
            return ast.For(target=ast.Name(id=node.target.id, ctx=ast.Store()),
                           iter=self._call("__hls_range", *map(self._expr, node.iter.args)),
                           body=self._loop_body(node), orelse=[], type_comment=None)
        if isinstance(node, ast.While):
            return ast.While(test=self._expr(node.test), body=self._loop_body(node), orelse=[])
        if isinstance(node, ast.Break):
            return ast.Break()
        if isinstance(node, ast.Continue):
            return ast.Continue()
        raise AssertionError(f"unexpected statement in a typed body: {ast.dump(node)}")

    def _expr(self, node: ast.expr) -> ast.expr:
        new = self._expr_inner(node)
        return ast.copy_location(new, node)

    def _expr_inner(self, node: ast.expr) -> ast.expr:
        if isinstance(node, ast.Constant):
            return ast.Constant(node.value)
        if isinstance(node, ast.Name):
            return ast.Name(id=node.id, ctx=ast.Load())
        if isinstance(node, ast.Subscript):
            return self._call("__hls_load", ast.Name(id=node.value.id, ctx=ast.Load()),
                              self._expr(node.slice), self._access(node))
        if isinstance(node, ast.BinOp):
            left, right = self._expr(node.left), self._expr(node.right)
            entry = self._operator(node.op, node)
            if entry.python_inline:
                return ast.BinOp(left=left, op=node.op, right=right)
            return self._call(self._helper(entry, node.left, node.right), left, right)
        if isinstance(node, ast.UnaryOp):
            operand = self._expr(node.operand)
            if isinstance(node.op, ast.UAdd):
                return operand
            entry = self._operator(node.op, node)
            if entry.python_inline:
                return ast.UnaryOp(op=node.op, operand=operand)
            return self._call(self._helper(entry, node.operand), operand)
        if isinstance(node, ast.BoolOp):
            # Kept as Python's own construct (the table marks land/lor python_inline): its
            # short-circuit guards array reads. Python's `a or b` gives a or b itself;
            # hardware gives one bit.
            values = [self._call("__hls_bool", self._expr(value)) for value in node.values]
            return self._call("__hls_int", ast.BoolOp(op=node.op, values=values))
        if isinstance(node, ast.Compare):
            # The front end splits chains: one operator per comparison.
            entry = self._operator(node.ops[0], node)
            left, right = self._expr(node.left), self._expr(node.comparators[0])
            if entry.python_inline:
                return self._call("__hls_int", ast.Compare(left=left, ops=node.ops, comparators=[right]))
            return self._call(self._helper(entry, node.left, node.comparators[0]), left, right)
        if isinstance(node, ast.IfExp):
            # Kept as Python's (select is python_inline): only the branch taken is evaluated.
            return ast.IfExp(test=self._expr(node.test), body=self._expr(node.body), orelse=self._expr(node.orelse))
        if isinstance(node, ast.Call) and node.func.id == APPROX_CALL:
            return self._call(self._unit_helper(node), *map(self._expr, node.args))
        if stream_call(node) is not None:
            self._stream_sites.append(StreamSite(getattr(node, "hls_filename", self.typed.filename), node.lineno))
            return self._call("__hls_stream_read", ast.Name(id=node.args[0].id, ctx=ast.Load()),
                              ast.Constant(len(self._stream_sites) - 1))
        if isinstance(node, ast.Call):
            entry = self._operator(getattr(builtins, node.func.id, None), node)
            return self._call(self._helper(entry, *node.args), *map(self._expr, node.args))
        raise AssertionError(f"unexpected expression in a typed body: {ast.dump(node)}")


def check_loop_bound(max_loop_iterations) -> None:
    """Raise ``ValueError`` unless ``max_loop_iterations`` is a positive ``int`` or ``None``."""
    if max_loop_iterations is not None and (isinstance(max_loop_iterations, bool)
                                            or not isinstance(max_loop_iterations, int)
                                            or max_loop_iterations < 1):
        raise ValueError(f"max_loop_iterations must be a positive integer or None, "
                         f"not {max_loop_iterations!r}")


def _wrap(value: int, width: int, signed: bool) -> int:
    value &= (1 << width) - 1
    if signed and width and value >> (width - 1):
        value -= 1 << width
    return value


def _integer(value, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{what} must be an integer, not {value!r}")
    return int(value)


def _token(value, stream: str, index: int, shape: Shape) -> int:
    """Token ``index`` of input stream ``stream`` as an int of ``shape``."""
    value = _integer(value, f"token {index} of stream {stream!r}")
    low, high = shape_range(shape)
    if not low <= value <= high:
        raise ValueError(f"token {index} of stream {stream!r} = {value} does not fit "
                         f"{format_shape(shape)} ({low}..{high})")
    return value


def _check_stream_argument(param, value):
    """An input stream takes any iterable (a list, tuple or 1-D numpy array is checked whole
    here, another iterable token by token as it is read); an output stream takes a list."""
    if param.direction == "out":
        if not isinstance(value, list):
            raise TypeError(f"output stream argument {param.name!r} must be a list the kernel appends its "
                            f"tokens to, not {type(value).__name__}")
        return
    if _is_numpy_array(value):
        value = value.tolist() if value.ndim == 1 else None
    if isinstance(value, (list, tuple)):
        for index, token in enumerate(value):
            _token(token, param.name, index, param.shape)
        return
    if isinstance(value, (str, bytes, dict)) or not hasattr(value, "__iter__"):
        raise TypeError(f"input stream argument {param.name!r} must be an iterable of integers (a list), "
                        f"not {type(value).__name__}")


def _is_numpy_array(value) -> bool:
    return type(value).__module__ == "numpy" and type(value).__name__ == "ndarray"
