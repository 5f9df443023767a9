"""Check a kernel against the language, inline its helpers, and infer every shape.

:func:`analyze` runs the front end's passes in order: the interface check
(:func:`hls.frontend.signature.signature`), the check of the body's constructs
(:func:`hls.frontend.check.check`), each stream's direction
(:func:`hls.frontend.directions.stream_uses`), inlining (:func:`hls.frontend.inline.inline`: the
body unrolled by :func:`hls.frontend.unroll.unroll`, and each helper call in it prepared with the
helper's interface, its bound arguments and its own body, checked and unrolled where it is called),
then one walk of that body that builds a *new* body (the user's AST is left untouched, so a helper
can be inlined many times):

* names are resolved: parameters, locals, loop variables, module-level integer
  constants (folded into literals), helpers, ``range``/``min``/``max``/``abs``/``len``
  and the loop pragmas; a use that the name's meaning rules out raises
  :class:`~hls.errors.KernelSyntaxError` at the offending node; an unrolled loop's
  variable in a copy is a literal (or the unrolled counter plus an offset), and literal
  operations in a copy are folded;
* forms are normalised (see ``docs/architecture.md``), and each helper call is bound where the
  walk reaches it (what needs the caller's scope: array arguments against the caller's arrays,
  constant arguments against their parameters, fresh names for the parameters and results), then
  the helper's prepared body is walked in its own scope: its statements become assignments to
  fresh variables placed before the statement that used them. Errors the passes before the walk
  found are raised by it where it reaches them, so the first error in the text is the one reported.

The walk gives shapes only to literals (a declared variable keeps its declared shape).
:func:`hls.frontend.infer.infer_shapes` then gives every expression node its Amaranth
shape (:func:`~hls.frontend.typed.shape_of`) and every other variable its own, and replaces
the operations ``approx=`` units take over. Last,
:func:`hls.frontend.directions.set_directions` sets each stream's direction and the
``approx=`` keys are checked against the operations found.
"""

from __future__ import annotations

import ast
import numbers
from dataclasses import dataclass, field

from amaranth.hdl import Shape

from .. import approx
from ..errors import KernelSyntaxError
from ..types import ArrayType, Partition, fits, format_shape, shape_range, wrap
from . import pragmas
from .check import check, constant_problem, unsupported_expression
from .directions import set_directions, stream_uses
from .inline import Body, inline
from .signature import MISSING, RESERVED, annotation_value
from .signature import signature as signature_of
from .source import SourceFunction
from .infer import COPY_ATTR, REUSE_ATTR, SOURCE_ATTR, ShapeInput, infer_shapes
from .shapes import const_shape
from .unroll import (BOUND_ATTR, CONTEXT_ATTR, GENERATED_ATTR, LOOP_ERROR_ATTR, LOOP_NAME_ATTR, SYNTHETIC_ATTR, Bound, Context,
                     constant_value, fold, range_parts)
from ..ir.ops import APPROX_ATTR, APPROX_CALL, STREAM_READ, STREAM_WRITE, TEXT_ATTR
from .typed import SHAPE_ATTR, LocalArray, LoopPragma, Operation, Param, TypedKernel

__all__ = ["analyze"]

#: hls.approx's functions, the kind each one is.
_APPROX_FUNCTIONS = {approx.mul: "mul", approx.add: "add", approx.sub: "sub", approx.div: "div", approx.mod: "mod"}


def analyze(function) -> TypedKernel:
    """Check ``function`` (a :class:`~hls.frontend.source.SourceFunction`: an ``hls.Function`` or ``hls.Kernel``)
    and return its :class:`TypedKernel`.

    Raises
    ------
    hls.errors.KernelSyntaxError
        At the first construct outside the kernel language.
    """
    return _Analyzer(function).run()


@dataclass
class _Scope:
    """Name bindings of one function body (the kernel's or an inlined helper's) as the walk goes."""

    body: Body
    #: user name -> internal scalar name
    names: dict[str, str] = field(default_factory=dict)
    #: user name -> (internal array name, type)
    arrays: dict[str, tuple[str, ArrayType]] = field(default_factory=dict)
    #: user name -> the stream parameter (only in the kernel's own body)
    streams: dict[str, Param] = field(default_factory=dict)
    #: user names readable at this point of the walk
    defined: set[str] = field(default_factory=set)
    #: user names declared by annotation (the shape is fixed)
    annotated: set[str] = field(default_factory=set)
    #: user names of loop variables of enclosing loops
    active_loop_vars: set[str] = field(default_factory=set)
    #: user names of loop variables of loops that have ended
    finished_loop_vars: set[str] = field(default_factory=set)
    #: internal names of loop variables
    loop_variables: set[str] = field(default_factory=set)
    loop_depth: int = 0
    #: user names the body assigns somewhere (Python makes them local), but its hls.local arrays
    local_names: set[str] = field(init=False)

    def __post_init__(self):
        self.local_names = set(self.body.assigned)

    @property
    def function(self):
        return self.body.function

    @property
    def filename(self) -> str:
        return self.body.function.filename

    @property
    def namespace(self) -> dict:
        return self.body.namespace


def _set_shape(node: ast.AST, shape: Shape) -> ast.AST:
    setattr(node, SHAPE_ATTR, shape)
    return node


def _located(new: ast.AST, old: ast.AST) -> ast.AST:
    return ast.copy_location(new, old)


def _constant(value: int, at: ast.AST) -> ast.Constant:
    return _set_shape(_located(ast.Constant(value=value), at), const_shape(value))


class _Analyzer:
    def __init__(self, function):
        self.root = function
        self.display_names: dict[str, str] = {}
        self.loops: dict[ast.AST, LoopPragma] = {}
        self.used_names: set[str] = set()
        #: every variable -> its declared shape, or None: the shape of its first value (hls.frontend.infer)
        self.variables: dict[str, Shape | None] = {}
        #: variables whose shape holds every value assigned to them
        self.joined: set[str] = set()
        #: unannotated locals (shape from their first value) -> (user name, line of that value)
        self.inferred: dict[str, tuple[str, int]] = {}
        self.pending: list[ast.stmt] = []
        self.scope: _Scope | None = None
        #: ``@hls.kernel(approx=...)``: kind -> the hls.approx.UnitChoice replacing its operator.
        self.kernel_approx: dict = dict(getattr(function, "approx", None) or {})
        self.local_arrays: dict[str, LocalArray] = {}
        #: Where the statement being walked stands (hls.frontend.unroll): in a copy of an unrolled
        #: body literal operations are folded.
        self.context = Context()
        #: hls.frontend.unroll's variables -> their names
        self.synthetic: dict = {}
        self.if_depth = 0
        #: The value of the assignment being analysed: the one place a stream read may stand.
        self.stream_read_site = None

    # -- errors ----------------------------------------------------------------------------

    def error(self, node: ast.AST, message: str, hint: str | None = None):
        raise KernelSyntaxError.at(self.scope.filename, node, message, hint)

    # -- entry point -----------------------------------------------------------------------

    def run(self) -> TypedKernel:
        function = self.root
        tree = function.tree
        signature = signature_of(function, is_kernel=True)
        check(tree, function.filename, is_kernel=True)
        for param in signature.params:
            self.used_names.add(param.name)
        kernel_body = inline(function, signature)
        scope = _Scope(kernel_body)
        self.scope = scope
        prologue = []
        assigned = kernel_body.assigned
        for param in signature.params:
            if param.kind == "array":
                scope.arrays[param.name] = (param.name, signature.array_types[param.name])
            elif param.kind == "stream":
                scope.streams[param.name] = param
                if param.name in assigned:
                    self.error(tree, f"stream parameter {param.name!r} is assigned in the body",
                               f"read tokens with x = {param.name}.read(), write them with {param.name}.write(v)")
            elif param.name in assigned:
                # The body assigns a scalar parameter: work on a local copy so that
                # parameters stay read-only inputs for the back end.
                local = self.fresh(f"{param.name}_local", param.name, param.shape)
                scope.names[param.name] = local
                prologue.append(self.assign_name(local, self.name_load(param.name, tree), tree))
            else:
                scope.names[param.name] = param.name
            scope.defined.add(param.name)
        uses = stream_uses(tree, scope.streams, function.filename)
        body = prologue + self.walk_body(kernel_body)
        arrays = {param.name: signature.array_types[param.name] for param in signature.params if param.kind == "array"}
        arrays.update({name: ArrayType(local.shape, local.depth, local.partition)
                       for name, local in self.local_arrays.items()})
        approximations, operations = infer_shapes(body, ShapeInput(
            filename=function.filename, variables=self.variables,
            params={param.name: param.shape for param in signature.params if param.kind == "scalar"},
            arrays=arrays, streams={param.name: param.shape for param in signature.params if param.kind == "stream"},
            joined=self.joined, inferred=self.inferred, used_names=self.used_names,
            display_names=self.display_names, kernel_approx=self.kernel_approx))
        set_directions(signature.params, uses, function.filename)
        used = {site.kind for site in approximations if site.origin == "kernel"}
        for key in self.kernel_approx:
            if approx.is_operation_key(key) and key not in operations:
                listed = ", ".join(operations) or "none"
                self.error(tree, f"approx={{{key!r}: ...}}: no operation a unit may replace is written at {key}",
                           f"the kernel's operations (FILE:LINE:COL): {listed}")
        for kind, unit in self.kernel_approx.items():
            if approx.is_operation_key(kind):
                continue
            problem = None if kind in used else approx.allowed_at_no_width(unit)
            if problem is not None:
                self.error(tree, f"approx={{{kind!r}: ...}}: {unit.unit!r}: {problem}",
                           "choose a value some operand width allows")
        return TypedKernel(
            name=function.name,
            filename=function.filename,
            params=signature.params,
            return_shapes=signature.return_shapes,
            variables=self.variables,
            body=body,
            loops=self.loops,
            display_names=self.display_names,
            approximations=sorted(approximations, key=lambda site: (site.filename, site.lineno, site.col)),
            local_arrays=self.local_arrays,
            operations=[Operation(key, filename, lineno, col, text, kind, tuple(shapes))
                        for key, (filename, lineno, col, text, kind, shapes)
                        in sorted(operations.items(), key=lambda item: item[1][:3])],
        )

    # -- bodies ----------------------------------------------------------------------------

    def walk_body(self, body: Body, result_names: list[str] | None = None) -> list[ast.stmt]:
        """The walked statements of ``body`` (prepared by hls.frontend.inline, in the current scope); the
        final ``return`` becomes a ``Return`` (the kernel, no ``result_names``) or assignments to
        ``result_names`` (an inlined helper)."""
        out = self.statements(body.statements)
        if body.return_error is not None:
            raise body.return_error
        if body.final is None:
            return out
        for value, shape in zip(body.returned, body.signature.return_shapes):
            self.check_constant_fits(value, shape, f"the return value of {body.function.tree.name}")
        saved, self.pending = self.pending, []
        new_values = [self.expr(value) for value in body.returned]
        out.extend(self.pending)
        self.pending = saved
        final = body.final
        if result_names is None:
            if body.signature.returns_tuple:
                value = _located(ast.Tuple(elts=new_values, ctx=ast.Load()), final.value)
            else:
                value = new_values[0]
            out.append(_located(ast.Return(value=value), final))
        else:
            for name, value in zip(result_names, new_values):
                out.append(self.assign_name(name, value, final))
        return out

    def statements(self, statements: list[ast.stmt]) -> list[ast.stmt]:
        out = []
        for statement in statements:
            saved, self.pending = self.pending, []
            new = self.statement(statement)
            out.extend(self.pending)
            out.extend(new)
            self.pending = saved
        return out

    def statement(self, node: ast.stmt) -> list[ast.stmt]:
        handler = getattr(self, f"statement_{type(node).__name__}")
        context = getattr(node, CONTEXT_ATTR, None)
        if context is None or context == self.context:
            return handler(node)
        saved, self.context = self.context, context
        try:
            return handler(node)
        finally:
            self.context = saved

    def statement_UnrollCheck(self, node) -> list[ast.stmt]:
        """hls.frontend.unroll's checks of an unrolled loop, where it stands."""
        if node.target is not None:
            self.check_assignable(node.target)
            if node.target.id in self.scope.active_loop_vars:
                self.error(node.target, f"loop variable {node.target.id!r} is already used by an enclosing loop",
                           "use a different name for the inner loop")
        for expression in node.walk:
            self.expr(expression)
        for variable in node.declare:
            self.synthetic_name(variable)
        if node.error is not None:
            self.error(*node.error)
        return []

    def statement_UnrollFinished(self, node) -> list[ast.stmt]:
        scope = self.scope
        if node.name in scope.names or node.name in scope.local_names:
            scope.finished_loop_vars.add(node.name)
        return []

    def statement_Pass(self, node: ast.Pass) -> list[ast.stmt]:
        return []

    def statement_Expr(self, node: ast.Expr) -> list[ast.stmt]:
        value = node.value
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            return []  # a string used as a comment
        stream = self.stream_method(value)
        if stream is not None and stream[1] == "write":
            return [self.stream_write(stream[0], value, node)]
        if stream is not None and stream[1] == "read":
            self.error(value, f"the token {ast.unparse(value)} takes would be lost",
                       f"assign it to a variable: x = {ast.unparse(value)}")
        if isinstance(value, ast.Call):
            callee = self.resolve(value.func)
            if callee is print:
                self.error(value, "print is not supported in a kernel",
                           "return the value, or print the result of calling the kernel in Python")
            if isinstance(callee, SourceFunction):
                self.helper_call(value)
                return []
        self.expr(value)  # reports constructs outside the language (yield, lambda, ...) first
        self.error(node, f"expression statement {ast.unparse(node)!r} has no effect",
                   "assign its value to a variable")

    def statement_Assign(self, node: ast.Assign) -> list[ast.stmt]:
        self.stream_read_site = node.value
        target = node.targets[0]
        synthetic = getattr(target, SYNTHETIC_ATTR, None)
        if synthetic is not None:
            return [self.assign_name(self.synthetic_name(synthetic), self.expr(node.value), node)]
        if isinstance(target, ast.Tuple):
            return self.tuple_assign(target, node.value, node)
        if isinstance(target, ast.Subscript):
            index, array, array_type = self.array_access(target)
            self.check_constant_fits(node.value, array_type.shape, f"an element of {target.value.id}")
            value = self.expr(node.value)
            return [self.store(array, array_type, index, value, target, node)]
        if isinstance(node.value, ast.Call) and self.resolve(node.value.func) is pragmas.local:
            return self.local_array(target, node.value, node)
        self.check_constant_name(target, node.value)
        value = self.expr(node.value)
        return [self.assign_user_name(target, value, node)]

    def local_array(self, target: ast.Name, call: ast.Call, node: ast.stmt) -> list[ast.stmt]:
        """``buf = hls.local(shape, depth, partition=...)``: declares an array; no code."""
        scope = self.scope
        name = target.id
        usage = "buf = hls.local(signed(16), 64) or hls.local(signed(16), 64, partition=hls.partition(\"cyclic\", 4))"
        if scope.function is not self.root or scope.loop_depth or self.if_depth:
            self.error(node, "hls.local arrays must be declared at the top level of the kernel body",
                       "declare it before the loops that use it (it is zero at the start of every run)")
        if name in scope.arrays:
            self.error(target, f"array {name!r} is already declared", "declare each array once")
        if name in scope.names:
            self.error(target, f"{name!r} is already a scalar variable", "use another name for the array")
        if name.startswith(RESERVED):
            self.error(target, f"names starting with {RESERVED} are reserved", "rename the array")
        arguments = list(call.args)
        keywords = {keyword.arg: keyword.value for keyword in call.keywords}
        for keyword in call.keywords:
            if keyword.arg not in ("shape", "depth", "partition"):
                self.error(keyword, f"hls.local has no keyword {keyword.arg!r}", usage)
        names = ["shape", "depth", "partition"]
        if len(arguments) > 3:
            self.error(call, "hls.local takes shape, depth and optionally partition", usage)
        values = dict(zip(names, arguments))
        for key, value in keywords.items():
            if key in values:
                self.error(value, f"hls.local got {key!r} twice", usage)
            values[key] = value
        if "shape" not in values or "depth" not in values:
            self.error(call, "hls.local needs an element shape and a depth", usage)
        shape = annotation_value(MISSING, values["shape"], scope.namespace, scope.filename)
        if not isinstance(shape, Shape):
            self.error(values["shape"], f"the element shape {ast.unparse(values['shape'])!r} of hls.local "
                       f"is not an Amaranth shape", usage)
        depth = self.constant_value(values["depth"])
        if depth is None or depth < 1:
            self.error(values["depth"], f"the depth of hls.local must be a positive integer constant, "
                       f"not {ast.unparse(values['depth'])!r}", usage)
        partition = None
        if "partition" in values:
            partition = annotation_value(MISSING, values["partition"], scope.namespace, scope.filename)
            if partition is not None and not isinstance(partition, Partition):
                self.error(values["partition"], f"partition= must be hls.partition(...), not "
                           f"{ast.unparse(values['partition'])!r}", usage)
            problem = partition.check(depth) if partition is not None else None
            if problem is not None:
                self.error(values["partition"], problem, "choose a factor that fits the depth")
        internal = self.fresh(self.local_base(name), name, shape)
        del self.variables[internal]   # an array, not a variable
        array_type = ArrayType(shape, depth, partition)
        scope.arrays[name] = (internal, array_type)
        scope.local_names.discard(name)
        self.local_arrays[internal] = LocalArray(internal, shape, depth, partition, node.lineno)
        return []

    def statement_AnnAssign(self, node: ast.AnnAssign) -> list[ast.stmt]:
        scope = self.scope
        self.stream_read_site = node.value
        name = node.target.id
        shape = annotation_value(MISSING, node.annotation, scope.namespace, scope.filename)
        if isinstance(shape, ArrayType):
            self.error(node, f"an array cannot be declared by annotation ({name!r})",
                       f"declare a local array as {name} = hls.local(shape, depth), or pass an hls.Array parameter")
        if not isinstance(shape, Shape):
            self.error(node.annotation, f"annotation {ast.unparse(node.annotation)!r} of {name!r} "
                       f"is not a shape", "write unsigned(n) or signed(n)")
        self.check_assignable(node.target)
        if self.context.unrolled and name in scope.names and name in scope.annotated \
                and self.variables[scope.names[name]] == shape:
            # The same declaration in the next copy of an unrolled body: a plain assignment.
            if node.value is None:
                return []
            self.check_constant_fits(node.value, shape, repr(name))
            value = self.expr(node.value)
            scope.defined.add(name)
            return [self.assign_name(scope.names[name], value, node, user_target=node.target)]
        if name in scope.names and name in scope.annotated:
            self.error(node, f"{name!r} is already declared as "
                       f"{format_shape(self.variables[scope.names[name]])}",
                       "declare each variable once")
        if name in scope.names and name in scope.defined and name not in scope.finished_loop_vars:
            self.error(node, f"{name!r} is annotated after it was first assigned",
                       "annotate the first assignment")
        internal = self.fresh(self.local_base(name), name, shape)
        scope.names[name] = internal
        scope.annotated.add(name)
        scope.finished_loop_vars.discard(name)
        if node.value is None:
            return []
        self.check_constant_fits(node.value, shape, repr(name))
        value = self.expr(node.value)
        scope.defined.add(name)
        return [self.assign_name(internal, value, node, user_target=node.target)]

    def statement_AugAssign(self, node: ast.AugAssign) -> list[ast.stmt]:
        target = node.target
        if isinstance(target, ast.Name):
            load = _located(ast.Name(id=target.id, ctx=ast.Load()), target)
            if hasattr(target, BOUND_ATTR):
                setattr(load, BOUND_ATTR, getattr(target, BOUND_ATTR))
            current = self.expr(load)
            value = self.binary(node.op, current, self.expr(node.value), node)
            return [self.assign_user_name(target, value, node)]
        index, array, array_type = self.array_access(target)
        if not isinstance(index, (ast.Name, ast.Constant)):
            # Evaluate a computed index once: the array is read once and written once.
            temporary = self.fresh("index", ast.unparse(target.slice))
            self.pending.append(self.assign_name(temporary, index, target.slice))
            index = self.name_load(temporary, target.slice)
        load = self.load(array, array_type, index, target)
        value = self.binary(node.op, load, self.expr(node.value), node)
        return [self.store(array, array_type, self.copy_expr(index), value, target, node)]

    def tuple_assign(self, target: ast.Tuple, value: ast.expr, node: ast.stmt) -> list[ast.stmt]:
        if isinstance(value, ast.Call):
            callee = self.resolve(value.func)
            if isinstance(callee, SourceFunction):
                results = self.helper_call(value)
            else:
                self.error(value, "only a helper returning a tuple can be unpacked",
                           "assign each value separately")
        else:
            # Evaluate every right-hand value before assigning any (a, b = b, a).
            for element, user_value in zip(target.elts, value.elts):
                if isinstance(element, ast.Name):
                    self.check_constant_name(element, user_value)
                elif isinstance(element.value, ast.Name) and element.value.id in self.scope.arrays:
                    self.check_constant_fits(user_value, self.scope.arrays[element.value.id][1].shape,
                                             f"an element of {element.value.id}")
            results = []
            for element in value.elts:
                new = self.expr(element)
                temporary = self.fresh("tuple", None)
                self.pending.append(self.assign_name(temporary, new, element))
                results.append(self.name_load(temporary, element))
        out = []
        for element, result in zip(target.elts, results):
            if isinstance(element, ast.Name):
                out.append(self.assign_user_name(element, result, node))
            else:
                index, array, array_type = self.array_access(element)
                out.append(self.store(array, array_type, index, result, element, node))
        return out

    def statement_If(self, node: ast.If) -> list[ast.stmt]:
        test = self.expr(node.test)
        self.if_depth += 1
        body = self.statements(node.body)
        orelse = self.statements(node.orelse)
        self.if_depth -= 1
        return [_located(ast.If(test=test, body=body, orelse=orelse), node)]

    def statement_For(self, node: ast.For) -> list[ast.stmt]:
        if hasattr(node, GENERATED_ATTR):
            return self.generated_for(node)
        pragma, range_call = self.loop_iterable(node.iter)
        if hasattr(node, LOOP_ERROR_ATTR):
            self.error(*getattr(node, LOOP_ERROR_ATTR))
        start, stop, step = self.range_arguments(range_call)
        return self.typed_for(node, pragma, start, stop, step)

    def generated_for(self, node: ast.For) -> list[ast.stmt]:
        """A loop hls.frontend.unroll built: over its counter (a loop of copies), or the user's
        variable (a remainder, or a factor of 1)."""
        start, stop, step = (self.expr(argument) for argument in node.iter.args)
        synthetic = getattr(node.target, SYNTHETIC_ATTR, None)
        if synthetic is None:
            loops = self.typed_for(node, LoopPragma("auto"), start, stop, step)
            if hasattr(node, LOOP_NAME_ATTR):
                setattr(loops[0], LOOP_NAME_ATTR, getattr(node, LOOP_NAME_ATTR))
            return loops
        counter = self.synthetic_name(synthetic)
        self.scope.loop_variables.add(counter)
        self.scope.loop_depth += 1
        body = self.statements(node.body)
        self.scope.loop_depth -= 1
        return [self.for_node(node, counter, start, stop, step, body, LoopPragma("auto"))]

    def typed_for(self, node: ast.For, pragma: LoopPragma, start: ast.expr, stop: ast.expr,
                  step: ast.Constant, body_of=None) -> list[ast.stmt]:
        """The typed ``for`` loop over ``range(start, stop, step)`` (typed bounds) binding the
        user's ``node.target``; ``body_of()``, if given, makes its body instead of the user's."""
        scope = self.scope
        name = node.target.id
        self.check_assignable(node.target)
        if name in scope.active_loop_vars:
            self.error(node.target, f"loop variable {name!r} is already used by an enclosing loop",
                       "use a different name for the inner loop")
        previous = scope.names.get(name)
        # A loop variable of an earlier loop is reused if the two ranges have the same shape
        # (hls.frontend.infer decides).
        reuse = (self.local_base(name), name) if previous in scope.loop_variables else None
        if reuse is not None:
            internal = previous
        else:
            internal = self.fresh(self.local_base(name), name)
            scope.loop_variables.add(internal)
        scope.names[name] = internal
        scope.annotated.discard(name)
        scope.finished_loop_vars.discard(name)
        scope.active_loop_vars.add(name)
        scope.defined.add(name)
        scope.loop_depth += 1
        body = self.statements(node.body) if body_of is None else body_of()
        scope.loop_depth -= 1
        scope.active_loop_vars.discard(name)
        scope.defined.discard(name)
        scope.finished_loop_vars.add(name)
        loop = self.for_node(node, internal, start, stop, step, body, pragma)
        if reuse is not None:
            setattr(loop, REUSE_ATTR, reuse)
        return [loop]

    def for_node(self, node: ast.For, internal: str, start: ast.expr, stop: ast.expr,
                 step: ast.Constant, body: list[ast.stmt], pragma: LoopPragma) -> ast.For:
        target = _located(ast.Name(id=internal, ctx=ast.Store()), node.target)
        callee = _located(ast.Name(id="range", ctx=ast.Load()), node.iter)
        iterator = _located(ast.Call(func=callee, args=[start, stop, step], keywords=[]), node.iter)
        loop = self.in_file(_located(ast.For(target=target, iter=iterator, body=body, orelse=[],
                                             type_comment=None), node))
        self.loops[loop] = pragma
        return loop

    def loop_iterable(self, node: ast.expr) -> tuple[LoopPragma, ast.Call]:
        hint = "iterate over range(...), hls.pipeline(range(...), ii=k) or hls.sequential(range(...))"
        if not isinstance(node, ast.Call):
            self.error(node, f"for loops must iterate over range(...), not {ast.unparse(node)!r}", hint)
        callee = self.resolve(node.func)
        if callee is range:
            return LoopPragma("auto"), node
        if callee is pragmas.pipeline or callee is pragmas.sequential:
            what = "hls.pipeline" if callee is pragmas.pipeline else "hls.sequential"
            if len(node.args) != 1:
                self.error(node, f"{what} takes one range(...) argument", hint)
            inner = node.args[0]
            if not (isinstance(inner, ast.Call) and self.resolve(inner.func) is range):
                self.error(inner, f"{what} must wrap range(...), not {ast.unparse(inner)!r}", hint)
            ii = None
            for keyword in node.keywords:
                if callee is pragmas.pipeline and keyword.arg == "ii":
                    value = self.constant_value(keyword.value)
                    if value is None or value < 1:
                        self.error(keyword.value, f"ii must be a positive integer constant, "
                                   f"not {ast.unparse(keyword.value)!r}", "write ii=1")
                    ii = value
                else:
                    self.error(keyword, f"{what} has no keyword {keyword.arg!r}",
                               "hls.pipeline(range(n), ii=k)" if callee is pragmas.pipeline else None)
            return LoopPragma("pipeline" if callee is pragmas.pipeline else "sequential", ii), inner
        self.error(node, f"for loops must iterate over range(...), not {ast.unparse(node)!r}", hint)

    def range_arguments(self, call: ast.Call):
        """Typed ``(start, stop, step)`` of a ``range`` call."""
        arguments, error = range_parts(call, self.constant_value)
        if error is not None:
            self.error(*error)
        start, stop, step = arguments
        return self.expr(start), self.expr(stop), _constant(step, call)

    def statement_While(self, node: ast.While) -> list[ast.stmt]:
        test = self.expr(node.test)
        self.scope.loop_depth += 1
        body = self.statements(node.body)
        self.scope.loop_depth -= 1
        loop = self.in_file(_located(ast.While(test=test, body=body, orelse=[]), node))
        self.loops[loop] = LoopPragma("auto")
        return [loop]

    def statement_Break(self, node: ast.Break) -> list[ast.stmt]:
        return [_located(ast.Break(), node)]

    def statement_Continue(self, node: ast.Continue) -> list[ast.stmt]:
        return [_located(ast.Continue(), node)]

    # -- assignment helpers ----------------------------------------------------------------

    def check_constant_fits(self, value: ast.expr, shape: Shape, target: str):
        """A constant the user wrote into a declared shape must fit it.

        ``s: unsigned(4) = 100`` would otherwise wrap silently to 4. Values computed
        at run time still wrap, as documented; only a literal, ``-literal`` or a
        module-level constant is checked here (an unrolled loop's variable is not).
        """
        if isinstance(value, ast.Name) and hasattr(value, BOUND_ATTR):
            return
        constant = self.constant_value(value)
        if constant is None or fits(constant, shape):
            return
        low, high = shape_range(shape)
        written = ast.unparse(value)
        shown = str(constant) if written == str(constant) else f"{written} = {constant}"
        self.error(value, f"constant {shown} does not fit {target} ({format_shape(shape)}, "
                   f"range {low}..{high})",
                   f"declare {format_shape(_shape_holding(constant, shape))}, or write "
                   f"{wrap(constant, shape)} if the wrapped value is meant")

    def check_constant_name(self, target: ast.Name, value: ast.expr):
        """:meth:`check_constant_fits` for an assignment to the user's ``target`` when its shape is
        declared (annotated, or a parameter); an unannotated local takes its first value's shape."""
        scope = self.scope
        name = target.id
        if name in scope.finished_loop_vars or name in scope.active_loop_vars or hasattr(target, BOUND_ATTR):
            return      # a new variable, or an error of its own (assigning to a loop variable)
        internal = scope.names.get(name)
        if internal is None or internal in self.inferred or internal in scope.loop_variables:
            return
        self.check_constant_fits(value, self.variables[internal], repr(name))

    def check_assignable(self, target: ast.Name):
        scope = self.scope
        name = target.id
        if name.startswith(RESERVED):
            self.error(target, f"names starting with {RESERVED} are reserved", "rename the variable")
        if name in scope.arrays:
            self.error(target, f"cannot assign to array {'parameter ' if name not in self.root_locals() else ''}{name!r}",
                       f"write its elements: {name}[i] = ...")
        if name in scope.active_loop_vars or hasattr(target, BOUND_ATTR):
            self.error(target, f"cannot assign to loop variable {name!r} inside its loop",
                       "use a while loop to change the counter, or a different variable")

    def root_locals(self) -> set[str]:
        """User names of the arrays declared with hls.local in the current scope."""
        return {name for name, (internal, _) in self.scope.arrays.items() if internal in self.local_arrays}

    def assign_user_name(self, target: ast.Name, value: ast.expr, node: ast.stmt) -> ast.stmt:
        """``name = value`` for a name the user wrote; the first assignment fixes its shape."""
        scope = self.scope
        name = target.id
        self.check_assignable(target)
        internal = scope.names.get(name)
        if internal is None or name in scope.finished_loop_vars:
            internal = self.fresh(self.local_base(name), name)
            scope.names[name] = internal
            scope.finished_loop_vars.discard(name)
            self.inferred[internal] = (name, node.lineno)
        scope.defined.add(name)
        return self.assign_name(internal, value, node, user_target=target)

    def assign_name(self, internal: str, value: ast.expr, node: ast.AST,
                    user_target: ast.AST | None = None) -> ast.Assign:
        target = _located(ast.Name(id=internal, ctx=ast.Store()), user_target or node)
        return self.in_file(_located(ast.Assign(targets=[target], value=value, type_comment=None), node))

    def in_file(self, node: ast.AST) -> ast.AST:
        # Statements and loads inlined from a helper in another file say so, for
        # run-time error messages of the golden model.
        if self.scope.filename != self.root.filename:
            node.hls_filename = self.scope.filename
        return node

    def store(self, array: str, array_type: ArrayType, index: ast.expr, value: ast.expr,
              target: ast.AST, node: ast.stmt) -> ast.Assign:
        array_node = _located(ast.Name(id=array, ctx=ast.Load()), target)
        subscript = _located(ast.Subscript(value=array_node, slice=index, ctx=ast.Store()), target)
        return self.in_file(_located(ast.Assign(targets=[subscript], value=value, type_comment=None), node))

    def fresh(self, base: str, display: str | None, shape: Shape | None = None) -> str:
        """A new variable's unique name; its ``shape`` None: the shape of its first value (hls.frontend.infer)."""
        name, counter = base, 1
        while name in self.used_names:
            counter += 1
            name = f"{base}_{counter}"
        self.used_names.add(name)
        self.variables[name] = shape
        if display is not None and display != name:
            self.display_names[name] = display
        return name

    def local_base(self, name: str) -> str:
        if self.scope.function is self.root:
            return name
        return f"{self.scope.function.name}_{name}"

    # -- expressions -----------------------------------------------------------------------

    def name_load(self, internal: str, at: ast.AST) -> ast.Name:
        return _located(ast.Name(id=internal, ctx=ast.Load()), at)

    def copy_expr(self, node: ast.expr) -> ast.expr:
        """A structural copy (an index used both to load and to store, the middle of ``a < b < c``),
        keeping literals' shapes; a copied operation's unit site is the original's."""
        new = type(node)(**{name: getattr(node, name) for name in node._fields})
        for name, value in ast.iter_fields(new):
            if isinstance(value, ast.expr):
                setattr(new, name, self.copy_expr(value))
            elif isinstance(value, list):
                setattr(new, name, [self.copy_expr(v) if isinstance(v, ast.expr) else v for v in value])
        _located(new, node)
        for name in (SHAPE_ATTR, APPROX_ATTR, TEXT_ATTR, SOURCE_ATTR, "hls_filename"):
            if hasattr(node, name):
                setattr(new, name, getattr(node, name))
        if hasattr(node, SOURCE_ATTR):
            setattr(new, COPY_ATTR, True)
        return new

    def constant_value(self, node: ast.expr) -> int | None:
        """The integer value of a literal, ``-literal`` or module-level integer constant."""
        return constant_value(node, self.scope.namespace, self.scope.names.keys() | self.scope.arrays.keys())

    def synthetic_name(self, variable) -> str:
        """The name of hls.frontend.unroll's ``variable`` (a new one when it is first set)."""
        if variable not in self.synthetic:
            self.synthetic[variable] = self.fresh(variable.base, variable.display)
            if variable.joined:
                self.joined.add(self.synthetic[variable])
        return self.synthetic[variable]

    def expr(self, node: ast.expr) -> ast.expr:
        problem = unsupported_expression(node)     # a call's argument (hls.frontend.check leaves them)
        if problem is not None:
            self.error(node, *problem)
        return getattr(self, f"expr_{type(node).__name__}")(node)

    def expr_Constant(self, node: ast.Constant) -> ast.expr:
        problem = constant_problem(node.value)     # a call's argument (hls.frontend.check leaves them)
        if problem is not None:
            self.error(node, *problem)
        return _constant(int(node.value), node)

    def expr_Name(self, node: ast.Name) -> ast.expr:
        scope = self.scope
        name = node.id
        if hasattr(node, SYNTHETIC_ATTR):
            return self.name_load(self.synthetic[getattr(node, SYNTHETIC_ATTR)], node)
        if name in scope.arrays:
            self.error(node, f"array {name!r} can only be indexed", f"write {name}[i]")
        if name in scope.streams:
            self.error(node, f"stream {name!r} is not a value", f"read a token with x = {name}.read(), or "
                       f"write one with {name}.write(v)")
        bound = getattr(node, BOUND_ATTR, None)
        if isinstance(bound, Bound):
            return _set_shape(_located(ast.Constant(value=bound.value), node), bound.shape)
        if bound is not None:       # hls.unroll(..., factor=): the counter plus an offset
            load = self.name_load(self.synthetic[bound.counter], node)
            return load if bound.offset == 0 else self.binary(ast.Add(), load, _constant(bound.offset, node), node)
        if name in scope.names or name in scope.local_names:
            if name in scope.finished_loop_vars:
                self.error(node, f"loop variable {name!r} is read after its loop",
                           "copy it to another variable inside the loop")
            if name not in scope.defined:
                self.error(node, f"{name!r} is read before it is assigned", "assign it first")
            return self.name_load(scope.names[name], node)
        value = scope.namespace.get(name, MISSING)
        if value is MISSING:
            self.error(node, f"unknown name {name!r}")
        if isinstance(value, numbers.Integral):  # also numpy integers
            return _constant(int(value), node)
        if isinstance(value, numbers.Real):
            self.error(node, f"{name!r} is the float {value!r}; floats are not supported",
                       "use an integer constant")
        self.error(node, f"{name!r} is not a kernel variable or an integer constant "
                   f"(it is {type(value).__name__})", "only parameters, locals and module-level "
                   "integer constants can be read")

    def expr_Attribute(self, node: ast.Attribute) -> ast.expr:
        if isinstance(node.value, ast.Name) and node.value.id in self.scope.streams:
            name = node.value.id
            self.error(node, f"stream {name!r} has no attribute {node.attr!r} in a kernel",
                       f"read a token with x = {name}.read(), or write one with {name}.write(v)")
        self.error(node, f"attribute access {ast.unparse(node)!r} is not supported",
                   "only hls.pipeline/hls.sequential loops and helper calls use attributes")

    def expr_Subscript(self, node: ast.Subscript) -> ast.expr:
        index, array, array_type = self.array_access(node)
        return self.load(array, array_type, index, node)

    def array_access(self, node: ast.Subscript) -> tuple[ast.expr, str, ArrayType]:
        scope = self.scope
        if not isinstance(node.value, ast.Name) or node.value.id not in scope.arrays:
            self.error(node.value, f"{ast.unparse(node.value)!r} is not an array parameter",
                       "only hls.Array parameters can be indexed")
        if isinstance(node.slice, ast.Tuple):
            self.error(node.slice, "arrays are one-dimensional", "flatten the index: img[y * W + x]")
        array, array_type = scope.arrays[node.value.id]
        index = self.expr(node.slice)
        if isinstance(index, ast.Constant) and not 0 <= index.value < array_type.depth:
            self.error(node.slice, f"index {index.value} out of range for "
                       f"{node.value.id}[{array_type.depth}]",
                       f"indices go from 0 to {array_type.depth - 1}")
        return index, array, array_type

    def load(self, array: str, array_type: ArrayType, index: ast.expr, at: ast.AST) -> ast.expr:
        array_node = _located(ast.Name(id=array, ctx=ast.Load()), at)
        return self.in_file(_located(ast.Subscript(value=array_node, slice=index, ctx=ast.Load()), at))

    def expr_BinOp(self, node: ast.BinOp) -> ast.expr:
        return self.binary(node.op, self.expr(node.left), self.expr(node.right), node)

    def binary(self, op: ast.operator, left: ast.expr, right: ast.expr, node: ast.AST) -> ast.expr:
        """``left op right`` at the user's ``node`` (a BinOp or an AugAssign); its shape, and whether a
        unit of ``approx=`` takes it over, are for :func:`hls.frontend.infer.infer_shapes`."""
        if self.context.unrolled and isinstance(left, ast.Constant) and isinstance(right, ast.Constant):
            # In a copy of an unrolled body the loop variable is a literal: `3 * t + 1` is folded,
            # so that no operator is built (or timed) for it.
            folded = fold(op, left, right, node)
            if folded is not None:
                return folded
        new = _located(ast.BinOp(left=left, op=op, right=right), node)
        setattr(new, SOURCE_ATTR, (self.scope.filename, node))
        return new

    def expr_UnaryOp(self, node: ast.UnaryOp) -> ast.expr:
        if isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant) \
                and type(node.operand.value) in (int, bool):
            return _constant(-int(node.operand.value), node)  # a negative literal
        operand = self.expr(node.operand)
        if isinstance(node.op, ast.UAdd):
            return operand
        return _located(ast.UnaryOp(op=node.op, operand=operand), node)

    def expr_BoolOp(self, node: ast.BoolOp) -> ast.expr:
        values = [self.expr(value) for value in node.values]
        return _located(ast.BoolOp(op=node.op, values=values), node)

    def expr_Compare(self, node: ast.Compare) -> ast.expr:
        operands = [self.expr(node.left)] + [self.expr(c) for c in node.comparators]
        comparisons = []
        for index, op in enumerate(node.ops):
            left = operands[index] if index == 0 else self.copy_expr(operands[index])
            comparisons.append(_located(ast.Compare(left=left, ops=[op], comparators=[operands[index + 1]]), node))
        if len(comparisons) == 1:
            return comparisons[0]
        # a < b < c is (a < b) and (b < c); b has no side effects, so evaluating it twice is safe.
        return _located(ast.BoolOp(op=ast.And(), values=comparisons), node)

    def expr_IfExp(self, node: ast.IfExp) -> ast.expr:
        test, body, orelse = self.expr(node.test), self.expr(node.body), self.expr(node.orelse)
        return _located(ast.IfExp(test=test, body=body, orelse=orelse), node)

    def expr_Call(self, node: ast.Call) -> ast.expr:
        stream = self.stream_method(node)
        if stream is not None:
            name, method = stream
            if method == "write":
                self.error(node, f"{name}.write(...) is a statement and has no value",
                           f"write the token on a line of its own: {name}.write(v)")
            if node is not self.stream_read_site:
                self.error(node, f"{ast.unparse(node)} must be the whole value of an assignment",
                           f"take the token first: x = {name}.read(), then use x")
            return self.stream_read(name, node)
        callee = self.resolve(node.func)
        name = ast.unparse(node.func)
        if callee in (min, max):
            if node.keywords or len(node.args) < 2:
                self.error(node, f"{name} takes two or more values", f"{name}(a, b)")
            arguments = [self.expr(argument) for argument in node.args]
            result = arguments[0]
            for argument in arguments[1:]:  # min(a, b, c) is min(min(a, b), c)
                callee_node = _located(ast.Name(id=callee.__name__, ctx=ast.Load()), node.func)
                result = _located(ast.Call(func=callee_node, args=[result, argument], keywords=[]), node)
            return result
        if callee is abs:
            if node.keywords or len(node.args) != 1:
                self.error(node, "abs takes one value")
            argument = self.expr(node.args[0])
            callee_node = _located(ast.Name(id="abs", ctx=ast.Load()), node.func)
            return _located(ast.Call(func=callee_node, args=[argument], keywords=[]), node)
        if callee is len:
            if node.keywords or len(node.args) != 1 or not isinstance(node.args[0], ast.Name) \
                    or node.args[0].id not in self.scope.arrays:
                self.error(node, "len takes one array parameter", "len(a)")
            return _constant(self.scope.arrays[node.args[0].id][1].depth, node)
        if isinstance(callee, SourceFunction):
            return self.helper_call(node)[0]
        if _is_approx_function(callee):
            return self.approx_call(node, _APPROX_FUNCTIONS[callee], name)
        if callee is range:
            self.error(node, "range(...) can only be iterated by a for loop")
        if callee is pragmas.pipeline or callee is pragmas.sequential or callee is pragmas.unroll:
            self.error(node, f"{name}(...) can only be iterated by a for loop")
        if callee is pragmas.local:
            self.error(node, "hls.local(...) can only be assigned to a name",
                       "declare it as buf = hls.local(signed(16), 64)")
        if callee is print:
            self.error(node, "print is not supported in a kernel",
                       "return the value, or print the result of calling the kernel in Python")
        if callee in (float, str, dict, list, tuple, set):
            self.error(node, f"{name}() is not supported (kernels compute on integers and arrays)")
        self.error(node, f"unknown call {name}(...)",
                   "only @hls.function / @hls.kernel helpers, min, max, abs and len can be called")

    def approx_call(self, node: ast.Call, kind: str, name: str) -> ast.expr:
        """``hls.approx.mul(a, b, unit="...", param=value)``: that unit at the operand widths."""
        usage = f"write {name}(a, b, unit=\"{_example_unit(kind)}\")"
        if len(node.args) != 2 or any(isinstance(argument, ast.Starred) for argument in node.args):
            self.error(node, f"{name} takes two operands and unit=", usage)
        unit, params = None, {}
        for keyword in node.keywords:
            if keyword.arg is None:
                self.error(keyword, f"**arguments are not supported in {name}", usage)
            if keyword.arg == "unit":
                if not (isinstance(keyword.value, ast.Constant) and isinstance(keyword.value.value, str)):
                    self.error(keyword.value, f"unit= of {name} must be a string literal naming the unit", usage)
                unit = keyword.value.value
                continue
            value = self.constant_value(keyword.value)
            if value is None:
                self.error(keyword.value, f"parameter {keyword.arg}= of {name} must be an integer constant",
                           "unit parameters are fixed when the hardware is built")
            params[keyword.arg] = value
        if unit is None:
            self.error(node, f"{name} needs unit=", usage)
        try:
            choice = approx.choice(kind, unit, params, where=name)
        except ValueError as error:
            self.error(node, str(error))
        left, right = self.expr(node.args[0]), self.expr(node.args[1])
        # Whether the unit can be built at the operands' widths is for hls.frontend.infer.
        call = _located(ast.Call(func=_located(ast.Name(id=APPROX_CALL, ctx=ast.Load()), node),
                                 args=[left, right], keywords=[]), node)
        for attribute, value in ((APPROX_ATTR, choice), (TEXT_ATTR, ast.unparse(node)),
                                 (SOURCE_ATTR, (self.scope.filename, node))):
            setattr(call, attribute, value)
        return self.in_file(call)

    # -- streams ------------------------------------------------------------------------------

    def stream_method(self, node: ast.expr) -> tuple[str, str] | None:
        """``(stream, "read" or "write")`` for a call of a stream parameter's method, else ``None``;
        any other method of a stream is an error."""
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name) and node.func.value.id in self.scope.streams):
            return None
        name, method = node.func.value.id, node.func.attr
        if method not in ("read", "write"):
            self.error(node.func, f"stream {name!r} has no method {method!r} in a kernel",
                       f"read a token with x = {name}.read(), or write one with {name}.write(v)")
        if node.keywords or any(isinstance(argument, ast.Starred) for argument in node.args) \
                or len(node.args) != (0 if method == "read" else 1):
            usage = f"x = {name}.read()" if method == "read" else f"{name}.write(v)"
            self.error(node, f"{name}.{method} takes {'no arguments' if method == 'read' else 'one value'}",
                       f"write {usage}")
        return name, method

    def stream_read(self, name: str, node: ast.Call) -> ast.expr:
        """``x = s.read()``: the value of the assignment is the typed read of one token."""
        stream = _located(ast.Name(id=name, ctx=ast.Load()), node.func.value)
        call = ast.Call(func=_located(ast.Name(id=STREAM_READ, ctx=ast.Load()), node), args=[stream], keywords=[])
        return self.in_file(_located(call, node))

    def stream_write(self, name: str, call: ast.Call, node: ast.stmt) -> ast.stmt:
        """``o.write(v)``: one token, ``v`` wrapped to the stream's shape."""
        shape = self.scope.streams[name].shape
        self.check_constant_fits(call.args[0], shape, f"a token of stream {name!r}")
        value = self.expr(call.args[0])
        stream = _located(ast.Name(id=name, ctx=ast.Load()), call.func.value)
        new = ast.Call(func=_located(ast.Name(id=STREAM_WRITE, ctx=ast.Load()), call), args=[stream, value],
                       keywords=[])
        _located(new, call)
        return self.in_file(_located(ast.Expr(value=new), node))

    def resolve(self, node: ast.expr):
        """The Python object a callee expression names, or ``None`` if it is not a plain
        name or attribute chain."""
        if isinstance(node, ast.Name):
            if node.id in self.scope.names or node.id in self.scope.arrays:
                return None
            return self.scope.namespace.get(node.id)
        if isinstance(node, ast.Attribute):
            base = self.resolve(node.value)
            return None if base is None else getattr(base, node.attr, None)
        return None

    # -- inlining ---------------------------------------------------------------------------

    def helper_call(self, call: ast.Call) -> list[ast.expr]:
        """Bind the helper call ``call`` (prepared by hls.frontend.inline) in the caller's scope and walk
        the helper's body in its own: its statements go to ``self.pending``; returns loads of its
        result variables."""
        prepared = self.scope.body.calls[call]
        if prepared.error is not None:
            raise prepared.error
        caller, helper, signature = self.scope, prepared.helper, prepared.signature
        names, arrays, setup = {}, {}, []
        for param, argument in zip(signature.params, prepared.arguments):
            if param.kind == "array":
                if not isinstance(argument, ast.Name) or argument.id not in caller.arrays:
                    self.error(argument, f"argument {param.name!r} of {helper.name} must be an array "
                               f"parameter", None)
                array, array_type = caller.arrays[argument.id]
                expected = signature.array_types[param.name]
                # The helper reads and writes the caller's array, however it is partitioned.
                if (array_type.shape, array_type.depth) != (expected.shape, expected.depth):
                    self.error(argument, f"{argument.id} is {array_type!r} but {helper.name} expects "
                               f"{expected!r} for {param.name!r}")
                arrays[param.name] = (array, array_type)
            else:
                self.check_constant_fits(argument, param.shape, f"parameter {param.name!r} of {helper.name}")
                value = self.expr(argument)
                names[param.name] = self.fresh(f"{helper.name}_{param.name}", param.name, param.shape)
                setup.append(self.assign_name(names[param.name], value, argument))
        result_names = [self.fresh(f"{helper.name}_result", f"{helper.name}()", shape)
                        for shape in signature.return_shapes]
        if prepared.body_error is not None:
            raise prepared.body_error
        self.scope = _Scope(prepared.body, names=names, arrays=arrays, defined=set(names) | set(arrays))
        try:
            body = self.walk_body(prepared.body, result_names)
        finally:
            self.scope = caller
        self.pending.extend(setup + body)
        return [self.name_load(name, call) for name in result_names]


def _is_approx_function(callee) -> bool:
    try:
        return callee in _APPROX_FUNCTIONS
    except TypeError:       # an unhashable value is none of them
        return False


def _example_unit(kind: str) -> str:
    return {"mul": "mitchell", "add": "loa", "sub": "loa", "div": "mitchell_div", "mod": "mitchell_div"}[kind]


def _shape_holding(value: int, like: Shape) -> Shape:
    """The narrowest shape that holds ``value`` and every value of ``like``: of ``like``'s
    signedness, or signed when ``value`` is negative."""
    if like.signed or value < 0:
        needed = (value if value >= 0 else ~value).bit_length() + 1
        return Shape(max(needed, like.width + (not like.signed)), True)
    return Shape(max(1, value.bit_length()), False)
