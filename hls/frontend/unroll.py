"""Unrolling: ``hls.unroll`` loops, and the constant-trip loops inside ``hls.pipeline`` loops,
copied once per iteration.

:func:`unroll` is a plain function over a function body as the user wrote it (the kernel's, or a
helper's where :mod:`hls.frontend.inline` prepares a call of it). It returns a new body and leaves
the user's AST untouched:

* a fully unrolled loop becomes one deep copy of its body per iteration. In each copy the loop
  variable's names carry :data:`BOUND_ATTR`, a :class:`Bound` (the iteration's value, of the shape of
  the loop variable's range), so the walk reads them as literals while every text and position stays
  the user's (``x[t] * 3`` is still the operation's text);
* a loop unrolled by ``factor=`` becomes a loop over a new counter (a :class:`Synthetic` variable,
  named by the walk) whose body is ``factor`` copies reading :class:`CounterBound` (the counter plus
  an offset), then the remainder: more copies for constant bounds, or the user's loop from where the
  counter stopped for run-time bounds (evaluated once, into :class:`Synthetic` variables);
* a loop of no trips has no copies: its body is checked (:func:`hls.frontend.check.check`) but not
  typed;
* the bounds of a nested ``hls.unroll`` may read the variables of the loops around it: in a copy,
  they are literals, and literal operations there are folded (:func:`fold`, also used by the walk),
  so ``range(t + 1)`` has constant bounds.

Statements of a copy, and of an ``hls.pipeline`` body, carry :data:`CONTEXT_ATTR` (a
:class:`Context`): the walk folds literal operations in copies, and :mod:`hls.frontend.inline`
unrolls the helpers called there in that context. An error found here is not raised: it becomes an :class:`UnrollCheck`
statement in its place, which the walk raises when it reaches it, so that the first error in program
order is the one reported. :class:`UnrollCheck` also has the walk check the loop variable against the
scope (arrays, enclosing loops) first, and :class:`UnrollFinished` marks the end of the copies of a
loop (its variable cannot be read after it).
"""

from __future__ import annotations

import ast
import copy
import numbers
from dataclasses import dataclass

from amaranth.hdl import Shape

from . import pragmas
from .infer import binary_result
from .shapes import const_shape, range_shape
from .signature import MISSING
from .typed import SHAPE_ATTR
from ..ir.ops import operator_for_syntax

__all__ = ["unroll", "UnrollScope", "Context", "Bound", "CounterBound", "Synthetic", "UnrollCheck",
           "UnrollFinished", "fold", "constant_value", "range_parts", "BOUND_ATTR", "CONTEXT_ATTR", "SYNTHETIC_ATTR",
           "GENERATED_ATTR", "LOOP_ERROR_ATTR", "LOOP_NAME_ATTR"]

#: On a ``Name`` of an unrolled loop's variable in a copy (loads and stores): its :class:`Bound` or
#: :class:`CounterBound`.
BOUND_ATTR = "hls_bound"
#: On a statement of a copy or of an ``hls.pipeline`` body: its :class:`Context`.
CONTEXT_ATTR = "hls_unroll_context"
#: On a ``Name`` of a variable the pass introduces: its :class:`Synthetic`.
SYNTHETIC_ATTR = "hls_synthetic"
#: On a ``For`` the pass builds (its bounds typed as written, no pragma): ``True``.
GENERATED_ATTR = "hls_generated"
#: On a ``For`` that may not stand where it is (a rolled loop in a copy): ``(node, message, hint)``,
#: raised once its iterable is checked.
LOOP_ERROR_ATTR = "hls_loop_error"
#: On the ``For`` of a remainder: the loop's name in reports.
LOOP_NAME_ATTR = "hls_loop_name"

_USAGE = "for t in hls.unroll(range(8)) or hls.unroll(range(n), factor=4)"


@dataclass(frozen=True)
class Context:
    """Where a statement stands.

    Attributes
    ----------
    pipeline : bool
        In the body of an ``hls.pipeline`` loop: constant-trip loops there are unrolled, as Vitis does.
    unrolled : bool
        In a copy of an unrolled body: literal operations are folded, loops must be unrolled too.
    """

    pipeline: bool = False
    unrolled: bool = False


@dataclass(frozen=True)
class Bound:
    """The loop variable in one copy of a fully unrolled body: ``value``, of the range's ``shape``."""

    value: int
    shape: Shape


class Synthetic:
    """A variable the pass introduces; the walk names it ``base`` (made unique) when it is first set.

    Attributes
    ----------
    base : str
    display : str | None
        The user's name it stands for in reports, if any.
    joined : bool
        Its shape holds every value assigned to it (:mod:`hls.frontend.infer`), not only the first.
    """

    def __init__(self, base: str, display: str | None = None, joined: bool = False):
        self.base, self.display, self.joined = base, display, joined

    def __deepcopy__(self, memo):
        return self     # copies of a body read the same variable

    def __repr__(self):
        return f"Synthetic({self.base!r})"


@dataclass(frozen=True)
class CounterBound:
    """The loop variable in one copy of a body unrolled by ``factor=``: ``counter + offset``."""

    counter: Synthetic
    offset: int


class UnrollCheck(ast.stmt):
    """Checks the walk makes where this statement stands, in order: ``target`` (the unrolled loop's
    variable) can be assigned and is no enclosing loop's; ``walk`` (the loop's bounds) is typed; the
    :class:`Synthetic` variables of ``declare`` are named, in that order; then ``error``
    (``(node, message, hint)``), if any, is raised. Produces no code."""

    _fields = ()

    def __init__(self, at: ast.AST | None = None, target: ast.Name | None = None, walk=(), error=None,
                 declare=()):
        super().__init__()
        if at is not None:
            ast.copy_location(self, at)
        self.target, self.walk, self.error, self.declare = target, list(walk), error, list(declare)


class UnrollFinished(ast.stmt):
    """The copies of the loop over ``name`` end here (reading it after the loop is an error)."""

    _fields = ()

    def __init__(self, at: ast.AST | None = None, name: str = ""):
        super().__init__()
        if at is not None:
            ast.copy_location(self, at)
        self.name = name


@dataclass(frozen=True)
class UnrollScope:
    """What :func:`unroll` knows of the function whose body it copies.

    Attributes
    ----------
    namespace : dict
        The names the body can read (:func:`hls.frontend.signature.namespace_of`).
    hidden : frozenset[str]
        Names that are the function's own (parameters, locals, arrays): never module constants.
    arrays : dict[str, int]
        Array name -> depth (for ``len``).
    prefix : str
        Prefix of the counters' names: ``""`` in the kernel, ``"helper_"`` in an inlined helper.
    """

    namespace: dict
    hidden: frozenset
    arrays: dict
    prefix: str = ""


def unroll(body: list[ast.stmt], scope: UnrollScope, context: Context = Context()) -> list[ast.stmt]:
    """``body`` with its unrolled loops copied (see the module's docstring); ``context`` is where the
    body stands (a helper's: where it is called)."""
    unroller = _Unroller(scope)
    out = []
    for statement in body:
        out += unroller.statements([statement], context)
        unroller.declared(statement)
    return out


def fold(op: ast.operator, left: ast.Constant, right: ast.Constant, at: ast.AST) -> ast.Constant | None:
    """``left op right`` of two typed literals as a literal of the expression's shape, computed by
    the operator's golden function; ``None`` for an operation with no golden function or outside the
    language (left for :func:`hls.frontend.infer.infer_shapes` to report). The value is exact, as
    every expression is."""
    entry = operator_for_syntax(type(op))
    if entry is None or entry.golden is None:
        return None
    shape, problem = binary_result(op, left, right)
    if problem is not None:
        return None
    value = entry.golden_for((getattr(left, SHAPE_ATTR), getattr(right, SHAPE_ATTR)))(left.value, right.value)
    return _typed_constant(value, shape, at)


def constant_value(node: ast.expr, namespace: dict, hidden) -> int | None:
    """The integer value of a literal, ``-literal`` or module-level integer constant (a name neither
    in ``hidden`` nor bound by the function), else ``None``."""
    if isinstance(node, ast.Constant) and type(node.value) in (int, bool):
        return int(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        value = constant_value(node.operand, namespace, hidden)
        if value is not None:
            return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.Name) and node.id not in hidden:
        value = namespace.get(node.id, MISSING)
        if isinstance(value, numbers.Integral):
            return int(value)
    return None


def range_parts(call: ast.Call, constant_value):
    """``((start, stop, step), None)`` of a ``range`` call as written (the start a literal ``0`` for
    ``range(n)``, the step an integer found by ``constant_value``), or ``(None, (node, message, hint))``."""
    if call.keywords or not 1 <= len(call.args) <= 3:
        return None, (call, "range takes 1 to 3 positional arguments", None)
    arguments = list(call.args)
    step = 1
    if len(arguments) == 3:
        step_node = arguments.pop()
        step = constant_value(step_node)
        if step is None:
            return None, (step_node, f"the range step {ast.unparse(step_node)!r} must be an integer constant",
                          "use a constant step such as 2")
        if step <= 0:
            return None, (step_node, f"range step must be positive, not {step}",
                          "iterate forwards and compute the index, e.g. a[n - 1 - i]")
    if len(arguments) == 1:
        return (_literal(0, call), arguments[0], step), None
    return (arguments[0], arguments[1], step), None


def _typed_constant(value: int, shape: Shape, at: ast.AST) -> ast.Constant:
    node = ast.copy_location(ast.Constant(value=value), at)
    setattr(node, SHAPE_ATTR, shape)
    return node


def _binds_exit(statements: list[ast.stmt]):
    """The first ``break``/``continue`` bound to the loop whose body is ``statements``, or ``None``."""
    for statement in statements:
        if isinstance(statement, (ast.Break, ast.Continue)):
            return statement
        if isinstance(statement, ast.If):
            found = _binds_exit(statement.body) or _binds_exit(statement.orelse)
            if found is not None:
                return found
    return None


def _located(new: ast.AST, old: ast.AST) -> ast.AST:
    return ast.copy_location(new, old)


def _literal(value: int, at: ast.AST) -> ast.Constant:
    return _located(ast.Constant(value=value), at)


def _synthetic_name(variable: Synthetic, at: ast.AST, store: bool = False) -> ast.Name:
    node = _located(ast.Name(id=variable.base, ctx=ast.Store() if store else ast.Load()), at)
    setattr(node, SYNTHETIC_ATTR, variable)
    return node


def _assign(variable: Synthetic, value: ast.expr, at: ast.AST) -> ast.Assign:
    return _located(ast.Assign(targets=[_synthetic_name(variable, at, store=True)], value=value,
                               type_comment=None), at)


def _range_for(node: ast.For, target: ast.Name, arguments: list[ast.expr], body: list[ast.stmt]) -> ast.For:
    """A loop the pass builds at ``node``: ``for target in range(*arguments)``, typed as written."""
    callee = _located(ast.Name(id="range", ctx=ast.Load()), node.iter)
    iterator = _located(ast.Call(func=callee, args=arguments, keywords=[]), node.iter)
    loop = _located(ast.For(target=target, iter=iterator, body=body, orelse=[], type_comment=None), node)
    setattr(loop, GENERATED_ATTR, True)
    return loop


class _Unroller:
    def __init__(self, scope: UnrollScope):
        self.scope = scope
        #: array name -> depth, for len(): the parameters, then each hls.local once it is declared
        self.arrays = dict(scope.arrays)

    def declared(self, node: ast.stmt):
        """Record an ``hls.local`` array that ``node`` (a statement of the body's top level) declares."""
        if not (isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
                and isinstance(node.value, ast.Call) and self.resolve(node.value.func) is pragmas.local):
            return
        call = node.value
        depth = dict(zip(("shape", "depth"), call.args)).get("depth")
        for keyword in call.keywords:
            if keyword.arg == "depth":
                depth = keyword.value
        depth = None if depth is None else self.constant_value(depth)
        if depth is not None and depth >= 1:
            self.arrays[node.targets[0].id] = depth

    # -- statements ------------------------------------------------------------------------------

    def statements(self, body: list[ast.stmt], context: Context) -> list[ast.stmt]:
        out = []
        for statement in body:
            for new in self.statement(statement, context):
                if context != Context() and not hasattr(new, CONTEXT_ATTR):    # a copy keeps its own
                    new = copy.copy(new)     # never mark the user's node
                    setattr(new, CONTEXT_ATTR, context)
                out.append(new)
        return out

    def statement(self, node: ast.stmt, context: Context) -> list[ast.stmt]:
        if isinstance(node, ast.For):
            return self.loop(node, context)
        if isinstance(node, ast.While):
            if context.unrolled:
                return [UnrollCheck(node, error=(node, "a while loop inside an hls.unroll loop is not supported",
                                                 "move it out of the unrolled loop"))]
            return [self.with_bodies(node, context)]
        if isinstance(node, ast.If):
            return [self.with_bodies(node, context)]
        return [node]

    def with_bodies(self, node: ast.stmt, context: Context) -> ast.stmt:
        new = copy.copy(node)
        new.body = self.statements(node.body, context)
        if isinstance(node, ast.If):
            new.orelse = self.statements(node.orelse, context)
        return new

    def loop(self, node: ast.For, context: Context) -> list[ast.stmt]:
        callee = self.resolve(node.iter.func) if isinstance(node.iter, ast.Call) else None
        if callee is pragmas.unroll:
            range_call, factor, error = self.unroll_arguments(node.iter)
            if error is not None:
                return [UnrollCheck(node, error=error)]
            return self.unrolled(node, range_call, factor, context)
        if context.pipeline and callee is range and not _binds_exit(node.body):
            # As Vitis does: an hls.pipeline loop unrolls the constant-trip loops inside it.
            start, stop, step = self.constant_range(node.iter)
            if start is not None and stop is not None and len(range(start, stop, step)) <= pragmas.MAX_UNROLL:
                return self.unrolled(node, node.iter, None, context)
        new = copy.copy(node)
        if context.unrolled:
            # Raised by the walk once the iterable is checked; the body is never typed.
            setattr(new, LOOP_ERROR_ATTR, (node, "a loop inside an hls.unroll loop must be unrolled too",
                                           "write it as for ... in hls.unroll(range(...)), or move it out of "
                                           "the unrolled loop"))
            return [new]
        inner = Context(True, context.unrolled) if callee is pragmas.pipeline else context
        new.body = self.statements(node.body, inner)
        return [new]

    # -- unrolled loops ----------------------------------------------------------------------------

    def unroll_arguments(self, call: ast.Call):
        """``(range call, factor or None, error or None)`` of ``hls.unroll(range(...), factor=k)``."""
        if len(call.args) != 1:
            return None, None, (call, "hls.unroll takes one range(...) argument", _USAGE)
        inner = call.args[0]
        if not (isinstance(inner, ast.Call) and self.resolve(inner.func) is range):
            return None, None, (inner, f"hls.unroll must wrap range(...), not {ast.unparse(inner)!r}", _USAGE)
        factor = None
        for keyword in call.keywords:
            if keyword.arg != "factor":
                return None, None, (keyword, f"hls.unroll has no keyword {keyword.arg!r}", _USAGE)
            factor = self.constant_value(keyword.value)
            if factor is None or not 1 <= factor <= pragmas.MAX_UNROLL:
                return None, None, (keyword.value, f"hls.unroll factor must be an integer constant from 1 to "
                                    f"{pragmas.MAX_UNROLL}, not {ast.unparse(keyword.value)}", "write factor=4")
        return inner, factor, None

    def unrolled(self, node: ast.For, range_call: ast.Call, factor: int | None, context: Context) -> list[ast.stmt]:
        """Copies of the body, one per iteration (``factor`` None: a full unroll of constant bounds),
        or a loop of ``factor`` copies per iteration and a remainder."""
        exit_node = _binds_exit(node.body)
        if exit_node is not None:
            return [UnrollCheck(node, error=(exit_node, f"{'break' if isinstance(exit_node, ast.Break) else 'continue'}"
                                             f" in an unrolled loop is not supported",
                                             "use a flag variable, or a loop that is not unrolled"))]
        target = node.target
        arguments, error = self.range_arguments(range_call)
        if error is not None:
            return [UnrollCheck(node, target, error=error)]
        start, stop, step = arguments
        low, high = self.constant(start, context), self.constant(stop, context)
        if low is not None and high is not None:
            values = range(low[0], high[0], step)
            shape = range_shape(low[0], high[0], step)
            if factor is None and len(values) > pragmas.MAX_UNROLL:
                return [UnrollCheck(node, target, error=(node.iter, f"hls.unroll of {len(values)} iterations makes "
                                                         f"more than {pragmas.MAX_UNROLL} copies",
                                                         "give a factor: hls.unroll(range(...), factor=4)"))]
            if factor is None or factor >= len(values):
                return [UnrollCheck(node, target)] + self.copies(node, [Bound(value, shape) for value in values],
                                                                 context)
            if factor == 1:
                return [UnrollCheck(node, target), self.rolled(node, range_call, start, stop, step, context)]
            main = len(values) // factor * factor
            counter = Synthetic(f"{self.scope.prefix}{target.id}_unrolled", target.id)
            body = self.copies(node, [CounterBound(counter, k * step) for k in range(factor)], context)
            loop = _range_for(node, _synthetic_name(counter, target, store=True),
                              [start, _literal(low[0] + main * step, node.iter),
                               _literal(factor * step, node.iter)], body)
            remainder = self.copies(node, [Bound(value, shape) for value in values[main:]], context)
            return [UnrollCheck(node, target), loop] + remainder
        if factor is None:
            return [UnrollCheck(node, target, walk=[start, stop],
                                error=(node.iter, "hls.unroll without a factor needs constant range bounds",
                                       "give a factor for run-time bounds: hls.unroll(range(n), factor=4)"))]
        if factor == 1:
            return [UnrollCheck(node, target), self.rolled(node, range_call, start, stop, step, context)]
        return [UnrollCheck(node, target)] + self.run_time(node, range_call, start, stop, step, factor, low, high,
                                                           context)

    def run_time(self, node: ast.For, range_call: ast.Call, start: ast.expr, stop: ast.expr, step: int,
                 factor: int, low, high, context: Context) -> list[ast.stmt]:
        """A loop of ``factor`` copies per iteration, then the user's loop for the rest. Bounds are
        evaluated once, as Python does (a constant start stays a literal, so that the counter's
        residues, and so the banks of a[i + k], are known); the remainder starts where the unrolled
        loop stopped, recorded in a joined variable."""
        name = node.target.id
        out = []

        def kept(value, constant, what):
            if constant is not None:
                return lambda: _literal(constant[0], range_call)
            variable = Synthetic(f"{name}_unroll_{what}")
            out.append(_assign(variable, value, range_call))
            return lambda: _synthetic_name(variable, range_call)

        first, last = kept(start, low, "start"), kept(stop, high, "stop")
        counter = Synthetic(f"{self.scope.prefix}{name}_unrolled", name)
        following = Synthetic(f"{name}_unroll_next", joined=True)
        out.append(UnrollCheck(node, declare=[counter, following]))
        out.append(_assign(following, first(), range_call))
        counter_stop = _located(ast.BinOp(left=last(), op=ast.Sub(), right=_literal((factor - 1) * step, range_call)),
                                range_call)
        stepped = _located(ast.BinOp(left=_synthetic_name(counter, node), op=ast.Add(),
                                     right=_literal(factor * step, node.iter)), node)
        body = self.copies(node, [CounterBound(counter, k * step) for k in range(factor)], context)
        body.append(_assign(following, stepped, node))
        out.append(_range_for(node, _synthetic_name(counter, node.target, store=True),
                              [first(), counter_stop, _literal(factor * step, node.iter)], body))
        rest = self.rolled(node, range_call, _synthetic_name(following, range_call), last(), step, context)
        setattr(rest, LOOP_NAME_ATTR, f"loop_{node.lineno}_remainder")
        out.append(rest)
        return out

    def rolled(self, node: ast.For, range_call: ast.Call, start: ast.expr, stop: ast.expr, step: int,
               context: Context) -> ast.For:
        """The user's loop over ``range(start, stop, step)``, not unrolled."""
        target = copy.copy(node.target)
        return _range_for(node, target, [start, stop, _literal(step, range_call)], self.statements(node.body, context))

    def copies(self, node: ast.For, bounds: list, context: Context) -> list[ast.stmt]:
        """The loop body once per bound, its variable's names bound to it."""
        name = node.target.id
        inner = Context(context.pipeline, True)
        out = []
        for bound in bounds:
            body = copy.deepcopy(node.body)
            for statement in body:
                for leaf in ast.walk(statement):
                    if isinstance(leaf, ast.Name) and leaf.id == name:
                        setattr(leaf, BOUND_ATTR, bound)
            out += self.statements(body, inner)
        out.append(UnrollFinished(node, name))
        return out

    # -- bounds ----------------------------------------------------------------------------------

    def range_arguments(self, call: ast.Call):
        return range_parts(call, self.constant_value)

    def constant_range(self, call: ast.Call):
        """``(start, stop, step)`` of a ``range`` call whose bounds are integer constants as written
        (``None`` for a bound that is not), without checking them."""
        arguments = [self.constant_value(argument) for argument in call.args]
        if call.keywords or not 1 <= len(arguments) <= 3:
            return None, None, 1
        if len(arguments) == 1:
            return 0, arguments[0], 1
        step = arguments[2] if len(arguments) == 3 else 1
        if step is None or step <= 0:
            return None, None, 1
        return arguments[0], arguments[1], step

    def constant(self, node: ast.expr, context: Context):
        """``(value, shape)`` of a bound the walk types as a literal (a literal, a module constant, ``len``
        of an array, an enclosing unrolled loop's variable, an operation on literals in a copy), else ``None``."""
        if isinstance(node, ast.Constant):
            return (int(node.value), const_shape(int(node.value))) if type(node.value) in (int, bool) else None
        if isinstance(node, ast.Name):
            bound = getattr(node, BOUND_ATTR, None)
            if bound is not None or hasattr(node, SYNTHETIC_ATTR):
                return (bound.value, bound.shape) if isinstance(bound, Bound) else None
            value = constant_value(node, self.scope.namespace, self.scope.hidden)
            return None if value is None else (value, const_shape(value))
        if isinstance(node, ast.UnaryOp):
            if isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant) \
                    and type(node.operand.value) in (int, bool):
                return -int(node.operand.value), const_shape(-int(node.operand.value))
            operand = self.constant(node.operand, context)
            return operand if isinstance(node.op, ast.UAdd) else None
        if isinstance(node, ast.BinOp):
            left, right = self.constant(node.left, context), self.constant(node.right, context)
            if not context.unrolled or left is None or right is None:
                return None
            folded = fold(node.op, _typed_constant(*left, node), _typed_constant(*right, node), node)
            return None if folded is None else (folded.value, getattr(folded, SHAPE_ATTR))
        if isinstance(node, ast.Call) and self.resolve(node.func) is len and not node.keywords \
                and len(node.args) == 1 and isinstance(node.args[0], ast.Name) \
                and node.args[0].id in self.arrays:
            depth = self.arrays[node.args[0].id]
            return depth, const_shape(depth)
        return None

    def constant_value(self, node: ast.expr) -> int | None:
        return constant_value(node, self.scope.namespace, self.scope.hidden)

    def resolve(self, node: ast.expr):
        """The Python object a callee expression names, or ``None``."""
        if isinstance(node, ast.Name):
            return None if node.id in self.scope.hidden else self.scope.namespace.get(node.id)
        if isinstance(node, ast.Attribute):
            base = self.resolve(node.value)
            return None if base is None else getattr(base, node.attr, None)
        return None
