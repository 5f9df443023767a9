"""Lowering of a :class:`~hls.frontend.TypedKernel` to the IR, with if-conversion.

The body is walked once.  Straight-line statements and ``if`` statements whose
branches hold no loop are if-converted into the current :class:`Block`:

* the condition of an ``if`` becomes a 1-bit value ``c``; the branches are
  lowered under predicates ``p & c`` and ``p & ~c``;
* a variable assigned in a branch gets ``select(c, then_value, else_value)``
  after the ``if`` (the missing side is the value before the ``if``);
* a store carries the predicate of its branch;
* ``break``/``continue``/``return`` record a predicated :class:`Exit`, and
  the statements after them run under the negation of that predicate.

Loops, and ``if`` statements containing loops, end the current block and become
control flow between blocks.  An innermost ``for`` over ``range`` without
``break``/``continue``/``return`` and not marked ``hls.sequential`` becomes a
:class:`PipelinedLoop` whose body is one block.
"""

from __future__ import annotations

import ast
import copy
import itertools

from amaranth.hdl import Const, Shape, signed, unsigned

from ..analysis.banks import static_bank
from ..syntax import parse
from ..types import shape_range
from ..analysis.values import Counter, Value, ValueAnalysis, conjuncts
from .nodes import ArrayLayout, Block, Exit, KernelIR, LoopInfo, Op, PipelinedLoop
from .ops import (APPROX_ATTR, APPROX_CALL, COUNTER_ATTR, OPERATION_ATTR, POSITION_ATTR, TEXT_ATTR, approx_operator,
                  operator_for_syntax, operator_of, stream_call)

__all__ = ["build_ir", "UnsupportedConstruct", "amaranth_shape", "amaranth_value"]


def _value_range(node: ast.expr, shape) -> tuple[int, int]:
    """The least and greatest value of a range() argument: its literal's, or its shape's."""
    literal = _literal(node)
    if isinstance(literal, int) and not isinstance(literal, bool):
        return literal, literal
    shape = Shape.cast(shape)
    if shape.signed:
        return -(1 << (shape.width - 1)), (1 << (shape.width - 1)) - 1
    return 0, (1 << shape.width) - 1


def _counter_shape(start: tuple[int, int], stop: tuple[int, int], step: int) -> Shape:
    """The narrowest shape of a ``range(start, stop, step)`` counter: every value it takes, up to
    the first one at or past ``stop`` (never more than ``step - 1`` beyond it), or ``start``
    itself when the range is empty.  The loop variable keeps its own declared shape."""
    if step > 0:
        low, high = start[0], max(start[1], stop[1] + step - 1)
    else:
        low, high = min(start[0], stop[0] + step + 1), start[1]
    return Shape.cast(range(low, max(high, low) + 1))


class UnsupportedConstruct(Exception):
    """A construct the front end accepted but the compiler cannot lower.

    Attributes
    ----------
    node : ast.AST
    message, hint : str
    """

    def __init__(self, node, message, hint=""):
        super().__init__(message)
        self.node = node
        self.message = message
        self.hint = hint


def _kinds(*syntax):
    """The IR kind of each Python operator node type, from the operator table."""
    return {node: operator_for_syntax(node).kind for node in syntax}


_BINARY = _kinds(ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod, ast.LShift, ast.RShift, ast.BitAnd,
                 ast.BitOr, ast.BitXor)
_COMPARE = _kinds(ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Eq, ast.NotEq)
_UNARY = _kinds(ast.USub, ast.Invert, ast.Not)


def amaranth_value(kind, operands):
    """The Amaranth expression for an IR operation of ``kind`` over Amaranth values.

    ``operands`` may hold Python ints for constant shift amounts.  The meaning is the
    operator table's (:meth:`hls.ir.ops.Operator.lower`): the back end builds hardware
    with it and :func:`amaranth_shape` derives result shapes from it, so they cannot
    disagree.

    Raises
    ------
    hls.ir.ops.UnknownOperatorError
        (a ``ValueError``) for a kind the table does not know.
    """
    return operator_of(kind).lower(*operands)


def amaranth_shape(kind, shapes, const_shift=None):
    """Result shape of ``kind`` over operands of ``shapes``, following Amaranth's widening."""
    constants = None if const_shift is None else {1: const_shift}
    return operator_of(kind).shape(*shapes, constants=constants)


def _contains(stmts, types):
    for stmt in stmts:
        for node in ast.walk(stmt):
            if isinstance(node, types):
                return True
    return False


def _is_structural(stmt):
    """Whether ``stmt`` needs control flow between blocks (it is or contains a loop)."""
    return _contains([stmt], (ast.For, ast.While))


def _exits_of_loop_body(stmts):
    """Whether a loop body has break/continue/return bound to this loop (or the kernel)."""
    def walk(nodes, inner):
        for node in nodes:
            if isinstance(node, (ast.Break, ast.Continue)) and not inner:
                return True
            if isinstance(node, ast.Return):
                return True
            if isinstance(node, (ast.For, ast.While)):
                if walk(node.body + node.orelse, True):
                    return True
            elif isinstance(node, ast.If):
                if walk(node.body + node.orelse, inner):
                    return True
        return False
    return walk(stmts, False)


#: Exit target inside a pipelined loop body: exits there become ``exit`` operations, not control flow.
_PIPELINE = object()


class _LoopContext:
    def __init__(self, break_target, continue_target):
        self.break_target = break_target
        self.continue_target = continue_target


class _Builder:
    def __init__(self, typed_kernel, shape_of, pipelining=True):
        self.tk = typed_kernel
        self.pipelining = pipelining
        self.shape_of = shape_of
        self.names = itertools.count()
        self.variables = dict(typed_kernel.variables)
        self.arrays = {}
        self.layouts = {}
        #: What is known of every value (banks of partitioned arrays read it as they are built).
        self.values = ValueAnalysis()
        #: A flattened nest's loop variable -> (its Counter, the predicate it was taken from the counter under).
        self.loop_variables = {}
        #: The counters of the flattened nest being built, by depth (outermost first): each level's
        #: assignment from its counter comes after those of the levels around it.
        self.nest_counters = []
        #: The block a top-level `if` branched from, by its `then` block.
        self.branched_from = {}
        self.scalar_params = []
        self.streams = {}
        for param in typed_kernel.params:
            if param.kind == "stream":
                self.streams[param.name] = (Shape.cast(param.shape), param.direction)
            elif param.kind == "array":
                self.arrays[param.name] = (Shape.cast(param.shape), int(param.depth))
                self.layouts[param.name] = ArrayLayout(Shape.cast(param.shape), int(param.depth),
                                                       getattr(param, "partition", None))
            else:
                shape = Shape.cast(param.shape)
                self.scalar_params.append((param.name, shape))
                self.variables.setdefault(param.name, shape)
        self.param_arrays = dict(self.arrays)
        for name, local in getattr(typed_kernel, "local_arrays", {}).items():
            self.arrays[name] = (Shape.cast(local.shape), int(local.depth))
            self.layouts[name] = ArrayLayout(Shape.cast(local.shape), int(local.depth), local.partition, local=True)
        self.return_vars = []
        for index, shape in enumerate(typed_kernel.return_shapes):
            self.variables[f"$ret{index}"] = Shape.cast(shape)
            self.return_vars.append(f"$ret{index}")
        self.nodes = []
        self.loops = []
        self.loop_stack = []
        self.block = None
        self.env = {}
        self.live_in_cache = {}
        self.const_cache = {}

    # -- blocks ---------------------------------------------------------------
    def new_block(self, hint):
        block = Block(f"b{len(self.nodes)}_{hint}")
        self.nodes.append(block)
        return block

    def enter(self, block):
        self.block = block
        self.env = {}
        self.live_in_cache = {}
        self.const_cache = {}
        self.value_numbers = {}
        self.store_epochs = {}
        #: ``select(keep, rest, before)`` after a statement that can only ``break`` -> ``rest``,
        #: the value when the iteration goes on (see :meth:`continuing_value`).
        self.after_break = {}

    def flush(self):
        """Write back every variable assigned in the current block."""
        for var, value in self.env.items():
            self.op("commit", [value], unsigned(0), value.lines, var=var)
        self.env = {}

    # -- operations -----------------------------------------------------------
    def op(self, kind, operands, shape, lines, predicate=None, operation=None, **attrs):
        entry = operator_of(kind)
        if entry.variable is not None:
            # Named after the variable, so that reports can say which variable carries a recurrence.
            var = self.tk.display_names.get(attrs["var"], attrs["var"]) if hasattr(self.tk, "display_names") \
                else attrs["var"]
            name = f"{entry.variable}_{var}_{next(self.names)}"
        else:
            name = f"{kind}{next(self.names)}"
        shape = Shape.cast(shape)
        key = None
        if entry.pure and entry.arity:
            # Value numbering: the same pure computation (a load, between stores to its array)
            # is made once, so `a[i] * a[i]` uses the read port once.  The leaves (constants,
            # variable reads, the counter) have caches of their own.  The predicate is not part
            # of the key: operands are values of this block, so they exist wherever either
            # computation does, and pure operations (loads included) have no side effects.
            epoch = self.store_epochs.get(attrs.get("array")) if entry.reads_memory else None
            key = (kind, tuple(id(o) for o in operands), shape, tuple(sorted(attrs.items())), epoch)
            if key in self.value_numbers:
                found = self.value_numbers[key]
                found.lines = tuple(sorted(set(found.lines) | set(lines)))
                if operation is not None:
                    found.operations = tuple(sorted({*found.operations, operation}))
                if found.predicate is not predicate:
                    # Now needed under either predicate: under what both imply (`p` for `p & c` and
                    # `p & ~c`), which was made before either, so the block stays in order.
                    found.predicate = _common_predicate(found.predicate, predicate)
                return found
        if entry.category == "memory" and self.layouts[attrs["array"]].registers:
            attrs["registers"] = True    # read without latency (see hls.analysis.block_problems)
        elif entry.reads_memory and self.layouts[attrs["array"]].local:
            # The words its read multiplexer chooses from (see hls.analysis.block_problems).
            attrs["local_depth"] = self.layouts[attrs["array"]].bank_depth
        if entry.writes_memory:
            self.store_epochs[attrs["array"]] = self.store_epochs.get(attrs["array"], 0) + 1
        op = Op(name, kind, list(operands), shape, predicate, tuple(sorted(set(lines))), attrs,
                operations=() if operation is None else (operation,))
        if kind in ("live_in", "commit"):
            op.text = var if kind == "live_in" else f"{var} (register)"
        self.block.ops.append(op)
        if key is not None:
            self.value_numbers[key] = op
        return op

    def const(self, value, shape, lines=()):
        shape = Shape.cast(shape)
        key = (value, shape)
        if key not in self.const_cache:
            self.const_cache[key] = self.op("const", [], shape, lines, value=value)
        return self.const_cache[key]

    def read_var(self, name, node):
        if name in self.env:
            return self.env[name]
        if name not in self.live_in_cache:
            if name not in self.variables:
                raise UnsupportedConstruct(node, f"variable {name!r} has no declared or inferred shape")
            self.live_in_cache[name] = self.op("live_in", [], self.variables[name], (node.lineno,), var=name)
        return self.live_in_cache[name]

    def assign_var(self, name, value, lines):
        shape = self.variables[name]
        if value.kind == "wrap" and value.shape == shape:
            wrapped = value
        else:
            wrapped = self.op("wrap", [value], shape, lines)
            if not wrapped.text:
                wrapped.text = f"{self.tk.display_names.get(name, name)} = {value.text or '...'}"
        self.env[name] = wrapped

    def and_(self, a, b, lines):
        if a is None:
            return b
        if b is None:
            return a
        return self.op("and", [a, b], unsigned(1), lines)

    def not_(self, a, lines):
        return self.op("not", [a], unsigned(1), lines)

    def or_(self, a, b, lines):
        if a is None or b is None:
            return None if a is None and b is None else (a if b is None else b)
        return self.op("or", [a, b], unsigned(1), lines)

    def truth(self, value, lines):
        if value.shape == unsigned(1):
            return value
        return self.op("bool", [value], unsigned(1), lines)

    # -- expressions ----------------------------------------------------------
    def node_shape(self, node):
        return Shape.cast(self.shape_of(node))

    def expr(self, node, pred):
        value = self._expr(node, pred)
        if not value.text:
            value.text = self.source_text(node)
        return value

    def source_text(self, node) -> str:
        """``node`` as the user would write it: the front end's temporaries and
        renamed locals show under their display names (``h[x[i]]``, not ``h[index]``)."""
        # An approximate operation is a call of an internal name; show what the user wrote.
        if any(hasattr(inner, TEXT_ATTR) for inner in ast.walk(node) if isinstance(inner, ast.Call)):
            node = _ShowApproxText().visit(copy.deepcopy(node))
        names = getattr(self.tk, "display_names", None)
        if not names:
            return ast.unparse(node)
        renamed = _RenameToDisplay(names).visit(parse(ast.unparse(node), mode="eval").body)
        return ast.unparse(renamed)

    def _expr(self, node, pred):
        lines = (node.lineno,)
        if isinstance(node, ast.Name):
            if node.id in self.arrays:
                raise UnsupportedConstruct(node, f"array {node.id!r} used as a value",
                                           f"index it, as in {node.id}[i]")
            return self.read_var(node.id, node)
        if isinstance(node, ast.Constant):
            return self.const(int(node.value), self.node_shape(node), lines)
        if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
            kind = _BINARY[type(node.op)]
            left = self.expr(node.left, pred)
            right = self.expr(node.right, pred)
            return self.op(kind, [left, right], self.node_shape(node), lines, predicate=pred,
                           operation=getattr(node, OPERATION_ATTR, None))
        if isinstance(node, ast.UnaryOp):
            operand = self.expr(node.operand, pred)
            if isinstance(node.op, ast.UAdd):
                return operand
            return self.op(_UNARY[type(node.op)], [operand], self.node_shape(node), lines)
        if isinstance(node, ast.Compare):
            result = None
            left = self.expr(node.left, pred)
            for cmp_op, comparator in zip(node.ops, node.comparators):
                if type(cmp_op) not in _COMPARE:
                    raise UnsupportedConstruct(node, f"comparison {type(cmp_op).__name__} is not supported")
                right = self.expr(comparator, pred)
                term = self.op(_COMPARE[type(cmp_op)], [left, right], unsigned(1), lines)
                result = self.and_(result, term, lines)
                left = right
            return result
        if isinstance(node, ast.BoolOp):
            kind = "land" if isinstance(node.op, ast.And) else "lor"
            values = [self.expr(value, pred) for value in node.values]
            result = values[0]
            for value in values[1:]:
                result = self.op(kind, [result, value], amaranth_shape(kind, [result.shape, value.shape]), lines)
            return self._cast(result, self.node_shape(node), lines)
        if isinstance(node, ast.IfExp):
            cond = self.truth(self.expr(node.test, pred), lines)
            body = self.expr(node.body, pred)
            orelse = self.expr(node.orelse, pred)
            return self.op("select", [cond, body, orelse], self.node_shape(node), lines)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == APPROX_CALL:
            # An approximate unit (hls.approx, @hls.kernel(approx=...)): the table's entry for its kind.
            unit = getattr(node, APPROX_ATTR)
            left, right = (self.expr(arg, pred) for arg in node.args)
            op = self.op(approx_operator(unit.kind).kind, [left, right], self.node_shape(node), lines, predicate=pred,
                         operation=getattr(node, OPERATION_ATTR), unit=unit)
            op.text = getattr(node, TEXT_ATTR)
            return op
        stream = stream_call(node)
        if stream is not None:
            # One token, taken only when the predicate holds (never speculated).
            read = self.op("stream_read", [], self.node_shape(node), lines, predicate=pred, stream=stream[1])
            read.text = f"{stream[1]}.read()"
            return read
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("min", "max", "abs"):
            args = [self.expr(arg, pred) for arg in node.args]
            if node.func.id == "abs":
                return self.op("abs", args, self.node_shape(node), lines)
            result = args[0]
            for arg in args[1:]:
                result = self.op(node.func.id, [result, arg],
                                 amaranth_shape(node.func.id, [result.shape, arg.shape]), lines)
            return self._cast(result, self.node_shape(node), lines)
        if isinstance(node, ast.Subscript):
            array = self._array_name(node)
            index = self.expr(node.slice, pred)
            layout = self.layouts[array]
            if layout.partition is None:
                return self.op("load", [index], self.arrays[array][0], lines, predicate=pred, array=array)
            bank = static_bank(index, layout, self.values, pred)
            if bank is not None:
                return self.op("load", [index], layout.shape, lines, predicate=pred, array=array, bank=bank)
            # The bank varies: read every bank at the index's offset and select by its bank bits.
            loads = [self.op("load", [index], layout.shape, lines, predicate=pred, array=array, bank=bank)
                     for bank in range(layout.banks)]
            return self.bank_multiplexer(self.bank_selector(index, layout, lines), loads, layout, lines)
        raise UnsupportedConstruct(node, f"expression {type(node).__name__} is not supported by the compiler")

    def bank_multiplexer(self, selector, loads, layout, lines):
        """``loads[selector]`` (the last bank's where ``selector`` is past the last bank) as a
        balanced tree of selects, one level per bit of ``selector``, lowest bit first.

        A chain of one select per bank, each on ``selector == bank``, is what the value means;
        but synthesis cannot know that those conditions exclude each other, and maps the
        priority chain of 16 banks to 8 LUT levels (``ecg.bandpass_stream``'s critical path,
        11.6 ns at 100 MHz), where the logic-cone model (:mod:`hls.analysis.logic_cones`)
        charges the cone of its 32 source bits 3.  A tree on the bits is ``log2(banks)``
        multiplexer levels, which the model charges as the same cone.
        """
        _, width = layout.bank_bits()
        level = loads + [loads[-1]] * ((1 << width) - len(loads))
        for bit in range(width):
            shift = self.const(bit, Const.cast(bit).shape(), lines)
            shifted = self.op("shr", [selector, shift],
                              amaranth_shape("shr", [selector.shape, shift.shape], const_shift=bit), lines) \
                if bit else selector
            one = self.const(1, unsigned(1), lines)
            chosen = self.op("and", [shifted, one], amaranth_shape("and", [shifted.shape, one.shape]), lines)
            level = [low if low is high else self.op("select", [chosen, high, low], layout.shape, lines)
                     for low, high in zip(level[::2], level[1::2])]
        return level[0]

    def bank_selector(self, index, layout, lines):
        """The bank bits of ``index`` (``index % k`` cyclic, ``index // size`` block, the index itself complete)."""
        low, width = layout.bank_bits()
        if low:
            index = self.op("shr", [index, self.const(low, Const.cast(low).shape(), lines)],
                            amaranth_shape("shr", [index.shape, Const.cast(low).shape()], const_shift=low), lines)
        mask = (1 << width) - 1
        mask_const = self.const(mask, Const.cast(mask).shape(), lines)
        return self.op("and", [index, mask_const], amaranth_shape("and", [index.shape, mask_const.shape]), lines)

    def _cast(self, value, shape, lines):
        if value.shape == shape:
            return value
        return self.op("wrap", [value], shape, lines)

    def _array_name(self, node):
        if not (isinstance(node.value, ast.Name) and node.value.id in self.arrays):
            raise UnsupportedConstruct(node, "only array parameters can be indexed",
                                       "declare the array as a parameter: a: hls.Array[shape, depth]")
        return node.value.id

    # -- statements -----------------------------------------------------------
    def stmts(self, stmts, pred):
        """Lower ``stmts`` into the current block under ``pred``.

        Returns the predicate under which control left the list through
        break/continue/return (``None`` when it never does).  Structural
        statements are only met with ``pred is None``.
        """
        exited = None
        for index, stmt in enumerate(stmts):
            if isinstance(stmt, (ast.Break, ast.Continue, ast.Return)):
                self.exit(stmt, pred)
                return self._always(pred, stmt)
            if _is_structural(stmt):
                if pred is not None:
                    raise UnsupportedConstruct(stmt, "a loop inside an if-converted branch")
                self.structural(stmt)
                continue
            first_exit = len(self.block.exits)
            stmt_exit = self.simple(stmt, pred)
            if stmt_exit is not None:
                rest = stmts[index + 1:]
                if not rest:
                    return stmt_exit
                if pred is None and any(_is_structural(s) for s in rest):
                    # The exits route control when this block ends; the rest starts a new block.
                    self.flush()
                    after = self.new_block("after_exit")
                    self.block.successor = after
                    self.enter(after)
                    self.stmts(rest, None)
                    return None
                keep = self.not_(stmt_exit, (stmt.lineno,))
                before = dict(self.env)
                rest_exit = self.stmts(rest, self.and_(pred, keep, (stmt.lineno,)))
                rest_env, self.env = self.env, dict(before)
                only_breaks = all(exit.kind == "break" for exit in self.block.exits[first_exit:])
                self.merge(keep, rest_env, before, (stmt.lineno,), base=before, after_break=only_breaks)
                return self.or_(stmt_exit, rest_exit, (stmt.lineno,))
        return exited

    def _always(self, pred, stmt):
        return pred if pred is not None else self.const(1, unsigned(1), (stmt.lineno,))

    def exit(self, stmt, pred):
        lines = (stmt.lineno,)
        if isinstance(stmt, ast.Return):
            if stmt.value is not None:
                values = stmt.value.elts if isinstance(stmt.value, ast.Tuple) else [stmt.value]
                if len(values) != len(self.return_vars):
                    raise UnsupportedConstruct(stmt, f"returns {len(values)} values, "
                                               f"the kernel declares {len(self.return_vars)}")
                results = [self.expr(value, pred) for value in values]
                for var, value in zip(self.return_vars, results):
                    self.assign_var(var, value, lines)
            kind, target = "return", None
        else:
            if not self.loop_stack:
                raise UnsupportedConstruct(stmt, f"'{type(stmt).__name__.lower()}' outside a loop")
            context = self.loop_stack[-1]
            if isinstance(stmt, ast.Break):
                kind, target = "break", context.break_target
            else:
                kind, target = "continue", context.continue_target
        self.block.exits.append(Exit(self._always(pred, stmt), kind, target, lines))

    def simple(self, stmt, pred):
        """Lower a statement without loops; returns its exit predicate or ``None``."""
        lines = (stmt.lineno,)
        if isinstance(stmt, (ast.Pass,)) or (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)):
            return None
        if isinstance(stmt, ast.Expr) and stream_call(stmt.value) is not None:
            name = stmt.value.args[0].id
            value = self.expr(stmt.value.args[1], pred)
            shape = self.streams[name][0]
            data = value if value.shape == shape else self.op("wrap", [value], shape, lines)
            write = self.op("stream_write", [data], unsigned(0), lines, predicate=pred, stream=name)
            write.text = f"{name}.write({value.text or '...'})"
            return None
        if isinstance(stmt, ast.Assign):
            if len(stmt.targets) != 1:
                raise UnsupportedConstruct(stmt, "chained assignment is not supported", "assign one target")
            target = stmt.targets[0]
            if isinstance(target, ast.Tuple):
                if not (isinstance(stmt.value, ast.Tuple) and len(stmt.value.elts) == len(target.elts)):
                    raise UnsupportedConstruct(stmt, "tuple assignment needs a tuple of the same length")
                values = [self.expr(value, pred) for value in stmt.value.elts]
                for elt, value in zip(target.elts, values):
                    self.assign(elt, value, pred, lines)
                return None
            self.assign(target, self.expr(stmt.value, pred), pred, lines)
            counted = getattr(stmt, COUNTER_ATTR, None)
            if counted is not None:
                # A flattened nest's loop variable taken from its counter: in its range
                # whenever this assignment's predicate holds (hls.frontend.flatten).
                start, stop, (step, depth, length) = self.bound(counted[0]), self.bound(counted[1]), counted[2:]
                if len(self.nest_counters) < depth:
                    raise AssertionError(f"level {depth} of a flattened nest before the levels around it")
                counter = self.counter(target.id, start, stop, step, outer=tuple(self.nest_counters[:depth]),
                                       length=length)
                self.nest_counters[depth:] = [counter]
                self.values.add_counter(self.env[target.id], counter, pred)
                self.loop_variables[target.id] = (counter, pred)
            return None
        if isinstance(stmt, ast.If):
            cond = self.truth(self.expr(stmt.test, pred), lines)
            before = dict(self.env)
            then_pred = self.and_(pred, cond, lines)
            then_exit = self.stmts(stmt.body, then_pred)
            positioned = getattr(stmt, POSITION_ATTR, None)
            if positioned is not None:
                # The body runs only in the first or the last iteration of a level's iteration
                # (hls.frontend.flatten); that level's counter is assigned in it or before it.
                depth, positions = positioned
                self.values.add_position(then_pred, self.nest_counters[depth], positions)
            then_env = self.env
            self.env = dict(before)
            not_cond = self.not_(cond, lines)
            else_exit = self.stmts(stmt.orelse, self.and_(pred, not_cond, lines))
            else_env = self.env
            self.env = dict(before)
            self.merge(cond, then_env, else_env, lines, base=before)
            if then_exit is None and else_exit is None:
                return None
            then_part = None if then_exit is None else self.and_(cond, then_exit, lines)
            else_part = None if else_exit is None else self.and_(not_cond, else_exit, lines)
            return self.or_(then_part, else_part, lines)
        raise UnsupportedConstruct(stmt, f"statement {type(stmt).__name__} is not supported by the compiler")

    def assign(self, target, value, pred, lines):
        if isinstance(target, ast.Name):
            self.assign_var(target.id, value, lines)
        elif isinstance(target, ast.Subscript):
            array = self._array_name(target)
            index = self.expr(target.slice, pred)
            shape = self.arrays[array][0]
            data = value if value.shape == shape else self.op("wrap", [value], shape, lines)
            layout = self.layouts[array]
            bank = static_bank(index, layout, self.values, pred)
            if layout.partition is None:
                stores = [self.op("store", [index, data], unsigned(0), lines, predicate=pred, array=array)]
            elif bank is not None:
                stores = [self.op("store", [index, data], unsigned(0), lines, predicate=pred, array=array,
                                  bank=bank)]
            else:
                # The bank varies: a store on every bank, each predicated on the index's bank bits.
                selector = self.bank_selector(index, layout, lines)
                stores = []
                for bank in range(layout.banks):
                    hit = self.op("eq", [selector, self.const(bank, Const.cast(bank).shape(), lines)],
                                  unsigned(1), lines)
                    stores.append(self.op("store", [index, data], unsigned(0), lines,
                                          predicate=self.and_(pred, hit, lines), array=array, bank=bank))
            for store in stores:
                store.text = f"{self.source_text(target)} = ..."
            if data is not value and not data.text:
                data.text = f"{self.source_text(target)} = {value.text or '...'}"
        else:
            raise UnsupportedConstruct(target, f"cannot assign to {type(target).__name__}")

    def merge(self, cond, then_env, else_env, lines, base, after_break=False):
        """After an if-converted ``if``: ``var = select(cond, then, else)`` for every var either side assigned.

        ``after_break`` says that ``cond`` is "no ``break`` was taken": the else side is then the
        value of an iteration that ends the loop, which no later iteration reads.
        """
        for var in sorted(set(then_env) | set(else_env)):
            then_value = then_env.get(var)
            else_value = else_env.get(var)
            if then_value is else_value:
                self.env[var] = then_value
                continue
            fallback = base.get(var) if var in base else None
            if then_value is None:
                then_value = fallback or self.read_var(var, _Line(lines[0]))
            if else_value is None:
                else_value = fallback or self.read_var(var, _Line(lines[0]))
            merged = self.op("select", [cond, then_value, else_value], self.variables[var], lines)
            merged.text = merged.text or f"{self.tk.display_names.get(var, var)} merged after line {lines[0]}"
            self.env[var] = merged
            self.merged_loop_variable(var, merged)
            if after_break:
                self.after_break[merged] = then_value

    def merged_loop_variable(self, var, merged):
        """``var = first ? counter : var`` after ``if first: var = counter`` of a flattened nest
        (under ``outer & first``) is the counter wherever ``outer`` holds: in the level's other
        iterations ``var`` still holds what its first one took (a loop variable is never assigned
        in its loop)."""
        entry = self.loop_variables.get(var)
        if entry is None:
            return
        counter, taken_under = entry
        cond, then_value, else_value = merged.operands
        if self.values.counter_of(then_value) is not counter \
                or not (operator_of(else_value.kind).variable == "read" and else_value.attrs["var"] == var):
            return
        if taken_under is cond:
            # The level's `if first:` at the top of the loop body (a flattened nest whose loop is
            # `while 1:` under its entry test): the counter in every iteration.
            self.values.add_counter(merged, counter, None)
        elif taken_under is not None and taken_under.kind == "and" and taken_under.operands[1] is cond:
            self.values.add_counter(merged, counter, taken_under.operands[0])

    def continuing_value(self, value, memo=None):
        """``value`` as an iteration that takes no ``break`` computes it.

        The merges after a ``break`` (:meth:`merge` with ``after_break``) are skipped, and the
        selects of ``if`` statements over them are made again over the skipped values.  Only the
        next iteration reads a carried value, and it exists only if this one did not break, so
        the carry takes this value and need not wait for the break's condition.
        """
        memo = {} if memo is None else memo
        if value in memo:
            return memo[value]
        result = value
        if value in self.after_break:
            result = self.continuing_value(self.after_break[value], memo)
        elif value.kind == "select":
            cond, then_value, else_value = value.operands
            then_next, else_next = self.continuing_value(then_value, memo), self.continuing_value(else_value, memo)
            if then_next is not then_value or else_next is not else_value:
                result = self.op("select", [cond, then_next, else_next], value.shape, value.lines)
                result.text = result.text or f"{value.text} (if no break)"
        memo[value] = result
        return result

    def finish_pipelined_body(self, node, commit_predicate):
        """End the body of a pipelined loop.

        The next iteration reads a variable through a ``carry`` (a register with a
        bypass, so that a value made in one cycle can be used by the next
        iteration in that same cycle); the variable's own register is written by a
        ``commit`` only in iterations that survive.  With early exits the loop
        speculates: each ``break`` (and a ``while`` condition that fails) becomes an
        ``exit`` operation; a squashed iteration never commits, and a ``while``
        iteration commits only when its condition held.  ``continue`` only
        predicates the rest of its iteration.
        """
        body = self.block
        breaks = [exit for exit in body.exits if exit.kind == "break"]
        body.exits = []
        for exit in breaks:
            op = self.op("exit", [exit.condition], unsigned(0), exit.lines)
            op.text = "break" if exit.lines[0] != node.info.line else "loop condition"
            node.exit_ops.append(op)
        for var, value in self.env.items():
            if var in self.live_in_cache:
                # An iteration that breaks has no successor to read its carry: see continuing_value.
                carried = self.continuing_value(value)
                carry = self.op("carry", [carried], unsigned(0), carried.lines, var=var)
                carry.text = f"{self.tk.display_names.get(var, var)} (next iteration)"
            self.op("commit", [value], unsigned(0), value.lines, predicate=commit_predicate, var=var)
        self.env = {}

    # -- structural statements ------------------------------------------------
    def structural(self, stmt):
        if isinstance(stmt, ast.For):
            self.for_loop(stmt)
        elif isinstance(stmt, ast.While):
            self.while_loop(stmt)
        elif isinstance(stmt, ast.If):
            self.if_region(stmt)
        else:
            raise UnsupportedConstruct(stmt, f"statement {type(stmt).__name__} is not supported by the compiler")

    def bound(self, node) -> Value:
        """What is known of a loop bound from its expression alone (no operation is made)."""
        value = _literal(node)
        if value is not None:
            return Value.of(value)
        return Value.between(*shape_range(self.node_shape(node)))

    def counter(self, var, first: Value, end: Value, step: int, outer: tuple = (), length: int | None = None) -> Counter:
        """The counter of a loop over ``range(first, end, step)`` (inside the levels ``outer`` of a
        flattened nest, each of its iterations ``length`` flattened iterations long when known)."""
        if step > 0:
            low, high = first.low, end.high - 1
        else:
            low, high = end.low + 1, first.high
        return Counter(self.tk.display_names.get(var, var), low, max(low, high),
                       first.low if first.is_constant else None, step, outer, length)

    def loop_info(self, stmt, kind):
        pragma = self.tk.loops.get(stmt)
        mode = getattr(pragma, "mode", "auto") if pragma is not None else "auto"
        target_ii = getattr(pragma, "ii", None) if pragma is not None else None
        # The front end names the remainder loop of a partial hls.unroll (same line as its loop).
        name = getattr(stmt, "hls_loop_name", f"loop_{stmt.lineno}")
        taken = {loop.name for loop in self.loops}
        unique, counter = name, 1
        while unique in taken:
            counter += 1
            unique = f"{name}_{counter}"
        info = LoopInfo(unique, stmt.lineno, kind, mode, target_ii, depth=len(self.loop_stack))
        info.flattened = tuple(getattr(pragma, "flattened", ()))
        info.note = getattr(pragma, "note", "")
        self.loops.append(info)
        return info

    def range_args(self, stmt):
        call = stmt.iter
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "range"
                and 1 <= len(call.args) <= 3 and not call.keywords):
            raise UnsupportedConstruct(stmt, "for loops must iterate over range(...)")
        args = list(call.args)
        start = args[0] if len(args) >= 2 else ast.copy_location(ast.Constant(0), call)
        stop = args[1] if len(args) >= 2 else args[0]
        step = 1
        if len(args) == 3:
            try:
                step = int(ast.literal_eval(args[2]))
            except (ValueError, TypeError, SyntaxError):
                raise UnsupportedConstruct(args[2], "the step of range() must be a constant",
                                           "compute the index from a unit-step counter") from None
            if step == 0:
                raise UnsupportedConstruct(args[2], "range() step must not be zero")
        if not isinstance(stmt.target, ast.Name):
            raise UnsupportedConstruct(stmt.target, "the loop variable must be a plain name")
        return start, stop, step

    def for_loop(self, stmt):
        info = self.loop_info(stmt, "for")
        start_node, stop_node, step = self.range_args(stmt)
        var = stmt.target.id
        try:
            info.trip_count = len(range(ast.literal_eval(start_node), ast.literal_eval(stop_node), step))
        except (ValueError, TypeError, SyntaxError):
            info.trip_count = None
        if stmt.orelse:
            raise UnsupportedConstruct(stmt, "for ... else is not supported")
        lines = (stmt.lineno,)
        start = self.expr(start_node, None)
        stop = self.expr(stop_node, None)
        var_shape = self.variables.get(var, start.shape)
        self.variables.setdefault(var, var_shape)
        counter_shape = _counter_shape(_value_range(start_node, start.shape), _value_range(stop_node, stop.shape), step)
        ctr_var, stop_var = f"${var}.{stmt.lineno}.ctr", f"${var}.{stmt.lineno}.stop"
        self.variables[ctr_var] = counter_shape
        self.variables[stop_var] = stop.shape
        self.assign_var(ctr_var, start, lines)
        self.assign_var(stop_var, stop, lines)
        first_ctr, first_stop = self.env[ctr_var], self.env[stop_var]
        self.flush()
        before = self.block

        innermost = not _contains(stmt.body, (ast.For, ast.While))
        if info.mode == "sequential":
            info.reason = "hls.sequential"
        elif not self.pipelining:
            info.reason = "pipelining turned off for this compilation"
        elif not innermost:
            info.reason = "contains an inner loop; outer loops run as state machines around it"
            if info.note:
                # Why hls.frontend.flatten left the nest as it was.
                info.reason = f"contains an inner loop and is not flattened: {info.note}; it runs as a " \
                              f"state machine around it"
                info.note = ""
        elif _contains(stmt.body, (ast.Return,)):
            info.reason = "return in the body"
        if info.mode != "sequential" and self.pipelining and innermost and not _contains(stmt.body, (ast.Return,)):
            info.pipelined = True
            body = Block(f"b{len(self.nodes)}_{info.name}_body")
            node = PipelinedLoop(info.name, info, body, counter_shape, ctr_var, stop_var, step, values=self.values,
                                 preheader=before)
            self.nodes.append(node)
            before.successor = node
            self.enter(body)
            self.loop_stack.append(_LoopContext(_PIPELINE, _PIPELINE))
            induction = self.op("induction", [], counter_shape, lines)
            self.values.add_counter(induction, self.counter(var, self.values.value(start), self.values.value(stop),
                                                            step))
            self.assign_var(var, induction, lines)
            self.stmts(stmt.body, None)
            self.loop_stack.pop()
            self.finish_pipelined_body(node, commit_predicate=None)
            after = self.new_block("after_" + info.name)
            node.successor = after
            info.exit_block = after
            self.enter(after)
            return

        # Rotated: the block before the loop tests the first iteration, the latch steps the
        # counter and tests the next one, so an iteration costs no separate header cycle.
        compare = "lt" if step > 0 else "gt"
        latch = Block(f"{info.name}_latch")
        after = Block(f"after_{info.name}")
        info.latch, info.exit_block = latch, after
        first = self.op(compare, [first_ctr, first_stop], unsigned(1), lines)
        body = self.new_block(info.name + "_body")
        before.branch = (first, body, after)
        self.enter(body)
        self.assign_var(var, self.read_var(ctr_var, stmt), lines)
        self.loop_stack.append(_LoopContext(after, latch))
        self.stmts(stmt.body, None)
        self.loop_stack.pop()
        self.flush()
        self.block.successor = latch
        latch.name = f"b{len(self.nodes)}_{latch.name}"
        self.nodes.append(latch)
        self.enter(latch)
        ctr = self.read_var(ctr_var, stmt)
        step_const = self.const(step, Const.cast(step).shape(), lines)
        self.assign_var(ctr_var, self.op("add", [ctr, step_const],
                                         amaranth_shape("add", [ctr.shape, step_const.shape]), lines), lines)
        again = self.op(compare, [self.env[ctr_var], self.read_var(stop_var, stmt)], unsigned(1), lines)
        self.flush()
        latch.branch = (again, body, after)
        after.name = f"b{len(self.nodes)}_{after.name}"
        self.nodes.append(after)
        self.enter(after)

    def while_loop(self, stmt):
        info = self.loop_info(stmt, "while")
        if stmt.orelse:
            raise UnsupportedConstruct(stmt, "while ... else is not supported")
        lines = (stmt.lineno,)
        self.flush()
        before = self.block
        innermost = not _contains(stmt.body, (ast.For, ast.While))
        if not self.pipelining:
            info.reason = "pipelining turned off for this compilation"
        elif not innermost:
            info.reason = "contains an inner loop; outer loops run as state machines around it"
        elif _contains(stmt.body, (ast.Return,)):
            info.reason = "return in the body"
        else:
            # Iteration k evaluates the condition and, speculating that it holds, the body;
            # when it does not hold the iteration exits and younger ones are squashed.
            info.pipelined = True
            body = Block(f"b{len(self.nodes)}_{info.name}_body")
            # A flattened nest is `if <entry test>: while 1: ...`: its loop starts in the empty
            # branch block, with the variables the block before the test committed.
            preheader = before
            while not preheader.ops and preheader in self.branched_from:
                preheader = self.branched_from[preheader]
            node = PipelinedLoop(info.name, info, body, None, None, None, 0, values=self.values,
                                 preheader=preheader)
            self.nodes.append(node)
            before.successor = node
            self.enter(body)
            self.loop_stack.append(_LoopContext(_PIPELINE, _PIPELINE))
            if _always_true(stmt.test):
                # `while 1:` (a flattened nest, rotated): only its breaks end it.
                cond = None
            else:
                cond = self.truth(self.expr(stmt.test, None), lines)
                self.block.exits.append(Exit(self.not_(cond, lines), "break", _PIPELINE, lines))
            self.stmts(stmt.body, cond)
            self.loop_stack.pop()
            self.finish_pipelined_body(node, commit_predicate=cond)
            after = self.new_block("after_" + info.name)
            node.successor = after
            info.exit_block = after
            self.enter(after)
            return
        header = self.new_block(info.name + "_header")
        before.successor = header
        after = Block(f"after_{info.name}")
        info.header, info.exit_block = header, after
        self.enter(header)
        cond = self.truth(self.expr(stmt.test, None), lines)
        self.flush()
        body = self.new_block(info.name + "_body")
        header.branch = (cond, body, after)
        self.enter(body)
        self.loop_stack.append(_LoopContext(after, header))
        self.stmts(stmt.body, None)
        self.loop_stack.pop()
        self.flush()
        self.block.successor = header
        after.name = f"b{len(self.nodes)}_{after.name}"
        self.nodes.append(after)
        self.enter(after)

    def if_region(self, stmt):
        lines = (stmt.lineno,)
        cond = self.truth(self.expr(stmt.test, None), lines)
        self.flush()
        before = self.block
        join = Block(f"join_{stmt.lineno}")
        then_entry = self.new_block(f"then_{stmt.lineno}")
        self.branched_from[then_entry] = before
        self.enter(then_entry)
        self.stmts(stmt.body, None)
        self.flush()
        self.block.successor = join
        if stmt.orelse:
            else_entry = self.new_block(f"else_{stmt.lineno}")
            self.enter(else_entry)
            self.stmts(stmt.orelse, None)
            self.flush()
            self.block.successor = join
        else:
            else_entry = join
        before.branch = (cond, then_entry, else_entry)
        join.name = f"b{len(self.nodes)}_{join.name}"
        self.nodes.append(join)
        self.enter(join)


def _common_predicate(a, b):
    """The nearest predicate both ``a`` and ``b`` imply (``None``, always, when there is none)."""
    enclosing = set(map(id, conjuncts(b)))
    return next((pred for pred in conjuncts(a) if id(pred) in enclosing), None)


class _Line:
    """Stands in for an AST node where only a line number is known."""

    def __init__(self, lineno):
        self.lineno = lineno
        self.col_offset = 0


def build_ir(typed_kernel, shape_of, *, pipelining: bool = True) -> KernelIR:
    """Lower a checked, typed kernel to the IR.

    Parameters
    ----------
    typed_kernel : hls.frontend.TypedKernel
    shape_of : callable
        ``shape_of(expr_node) -> Shape`` from the front end.
    pipelining : bool
        ``False`` runs every loop as a sequential state machine (for comparisons).

    Raises
    ------
    UnsupportedConstruct
        For a construct the compiler cannot lower, with the offending AST node.
    """
    builder = _Builder(typed_kernel, shape_of, pipelining)
    entry = builder.new_block("entry")
    builder.enter(entry)
    builder.stmts(list(typed_kernel.body), None)
    builder.flush()
    builder.block.successor = None
    try:
        with open(typed_kernel.filename, encoding="utf-8") as file:
            source_lines = file.read().splitlines()
    except OSError:
        source_lines = []
    return KernelIR(
        name=typed_kernel.name,
        filename=typed_kernel.filename,
        source_lines=source_lines,
        entry=entry,
        nodes=builder.nodes,
        variables=builder.variables,
        scalar_params=builder.scalar_params,
        arrays=builder.param_arrays,
        return_vars=builder.return_vars,
        loops=sorted(builder.loops, key=lambda loop: loop.line),
        layouts=builder.layouts,
        streams=builder.streams,
    )


def _always_true(node):
    """Whether the condition ``node`` is a constant that holds."""
    value = _literal(node)
    return value is not None and value != 0


def _literal(node):
    """The integer value of a constant bound, or ``None``."""
    try:
        return int(ast.literal_eval(node))
    except (ValueError, TypeError, SyntaxError):
        return None


class _ShowApproxText(ast.NodeTransformer):
    """Replaces each approximate operation (``__hls_approx(a, b)``) by the user's own text of it."""

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        text = getattr(node, TEXT_ATTR, None)
        if text is None:
            return node
        return parse(text, mode="eval").body


class _RenameToDisplay(ast.NodeTransformer):
    def __init__(self, names: dict[str, str]):
        self.names = names

    def visit_Name(self, node: ast.Name) -> ast.Name:
        return ast.Name(id=self.names.get(node.id, node.id), ctx=node.ctx)
