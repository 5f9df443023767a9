"""Inlining: a function body made ready for the walk, with every helper call in it prepared.

:func:`inline` is a plain function over a kernel (a :class:`~hls.frontend.source.SourceFunction`) and
its checked interface. It returns the kernel's :class:`Body`: its statements unrolled
(:func:`hls.frontend.unroll.unroll`), its final ``return`` split off and checked against the
annotation, and each call of a helper (an ``@hls.function`` or ``@hls.kernel``) in it, by node, a
:class:`HelperCall`: the helper's interface (:func:`hls.frontend.signature.signature`), the call's
arguments bound to its parameters, and the helper's own :class:`Body`, checked
(:func:`hls.frontend.check.check`) and unrolled in the :class:`~hls.frontend.unroll.Context` of the
call (a helper called in a copy of an unrolled body, or in an ``hls.pipeline`` loop, is unrolled as
if written there), with the helper calls in it prepared in turn. The user's AST is left untouched.

What depends only on the text is decided here; what depends on the walk's scope at the call is left
to the walk of :mod:`hls.frontend.analyze`, which binds each call where it reaches it: that an
array argument names an array of the caller (a parameter, or an ``hls.local`` declared so far) of
the parameter's shape and depth, that a constant argument fits its parameter, the argument values,
and the fresh names of the parameters and results (in the order the walk meets them).

An error found here is not raised: it is kept on the :class:`HelperCall` (or the :class:`Body`) and
raised by the walk when it reaches the call (or the body's end), so that the first error in program
order is the one reported, as for :mod:`hls.frontend.unroll`. A call is prepared wherever the
callee's name reads a helper from the module (a local variable that shadows it by then is the walk's
to see), so some prepared calls are never bound.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from ..errors import KernelSyntaxError
from .check import check
from .signature import Signature, namespace_of
from .signature import signature as signature_of
from .source import SourceFunction
from .unroll import CONTEXT_ATTR, Context, UnrollCheck, UnrollFinished, UnrollScope, unroll

__all__ = ["inline", "Body", "HelperCall"]


@dataclass
class Body:
    """A function's body ready for the walk, where it stands.

    Attributes
    ----------
    function : SourceFunction
    signature : Signature
    namespace : dict
        The names the body can read (:func:`hls.frontend.signature.namespace_of`).
    assigned : frozenset[str]
        The user's names the body assigns somewhere (Python makes them local).
    statements : list[ast.stmt]
        The body unrolled, without its docstring and its final ``return``.
    final : ast.Return or None
        The final ``return``, when it gives a value.
    returned : list[ast.expr]
        The values ``final`` gives (one per element of a returned tuple); empty without ``final``.
    return_error : KernelSyntaxError or None
        The final ``return`` does not match the annotation (or is missing): raised once ``statements``
        are walked.
    calls : dict[ast.Call, HelperCall]
        Every helper call in ``statements`` and ``returned``, by node identity.
    """

    function: SourceFunction
    signature: Signature
    namespace: dict
    assigned: frozenset
    statements: list[ast.stmt]
    final: ast.Return | None
    returned: list[ast.expr]
    return_error: KernelSyntaxError | None = None
    calls: dict = field(default_factory=dict)


@dataclass
class HelperCall:
    """A call of ``helper``, prepared.

    Attributes
    ----------
    helper : SourceFunction
    error : KernelSyntaxError or None
        Raised where the call stands, before anything else: it is in a part of an expression Python
        may not evaluate or evaluates repeatedly, it is recursive, the helper's interface is wrong, the
        call uses another number of results than the helper returns, or the arguments do not bind.
        The other fields are empty then.
    signature : Signature or None
        The helper's interface.
    arguments : list[ast.expr]
        The argument of each parameter, in the parameters' order.
    body_error : KernelSyntaxError or None
        The helper's body is outside the language (:func:`hls.frontend.check.check`): raised once the
        arguments are bound (``body`` is ``None`` then).
    body : Body or None
        The helper's body where the call stands.
    """

    helper: SourceFunction
    error: KernelSyntaxError | None = None
    signature: Signature | None = None
    arguments: list = field(default_factory=list)
    body_error: KernelSyntaxError | None = None
    body: Body | None = None


def inline(kernel: SourceFunction, signature: Signature) -> Body:
    """The body of ``kernel`` (checked by :func:`hls.frontend.check.check`; ``signature`` its interface)
    ready for the walk, every helper call in it prepared (see the module's docstring)."""
    return _body(kernel, signature, Context(), (kernel,), prefix="")


def _body(function: SourceFunction, signature: Signature, context: Context, calling: tuple,
          prefix: str) -> Body:
    """``function``'s body in ``context``; ``calling``: the functions being inlined around it, itself
    last; ``prefix``: of the unrolled loops' counters."""
    tree = function.tree
    statements = list(tree.body)
    if statements and isinstance(statements[0], ast.Expr) and isinstance(statements[0].value, ast.Constant) \
            and isinstance(statements[0].value.value, str):
        statements = statements[1:]  # docstring
    final = statements[-1] if statements and isinstance(statements[-1], ast.Return) else None
    if final is not None:
        statements = statements[:-1]
    namespace = namespace_of(function.fn)
    assigned = frozenset(_assigned_names(tree.body))
    hidden = frozenset(param.name for param in signature.params) | assigned
    arrays = {name: array_type.depth for name, array_type in signature.array_types.items()}
    body = Body(function, signature, namespace, assigned,
                statements=unroll(statements, UnrollScope(namespace, hidden, arrays, prefix), context),
                final=None, returned=[])
    if final is None or final.value is None:
        if signature.return_shapes:
            body.return_error = KernelSyntaxError.at(
                function.filename, tree, f"{tree.name} declares a return shape but does not end with a return "
                "statement", "end the body with return VALUE")
    else:
        values = final.value.elts if isinstance(final.value, ast.Tuple) else [final.value]
        if not signature.return_shapes:
            body.return_error = KernelSyntaxError.at(
                function.filename, final, f"{tree.name} returns a value but has no return annotation",
                "annotate the shape, e.g. def f(...) -> signed(32):")
        elif signature.returns_tuple != isinstance(final.value, ast.Tuple) or \
                len(values) != len(signature.return_shapes):
            body.return_error = KernelSyntaxError.at(
                function.filename, final, f"return gives {len(values)} value(s) but the annotation declares "
                f"{len(signature.return_shapes)}", "return one value per declared shape")
        body.final, body.returned = final, values
    calls = _Calls(body, calling)
    calls.statements(body.statements, context)
    for value in body.returned:
        calls.expression(value, context)
    return body


class _Calls:
    """Finds the helper calls of a body, and prepares each."""

    def __init__(self, body: Body, calling: tuple):
        self.body = body
        self.calling = calling

    def statements(self, statements: list[ast.stmt], context: Context):
        for statement in statements:
            self.statement(statement, getattr(statement, CONTEXT_ATTR, context))

    def statement(self, node: ast.stmt, context: Context):
        if isinstance(node, UnrollFinished):
            return
        if isinstance(node, UnrollCheck):
            for expression in node.walk:
                self.expression(expression, context)
            return
        for name, value in ast.iter_fields(node):
            if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
                self.statements(value, context)
            elif isinstance(value, list):
                for item in value:
                    self.expression(item, context)
            elif isinstance(node, ast.While) and name == "test":
                self.expression(value, context, "a while condition")
            elif isinstance(node, ast.Expr):
                self.expression(value, context, results=0)      # a call for its effect alone
            elif isinstance(node, ast.Assign) and name == "value" and isinstance(node.targets[0], ast.Tuple):
                self.expression(value, context, results=len(node.targets[0].elts))
            elif isinstance(value, ast.AST):
                self.expression(value, context)

    def expression(self, node, context: Context, conditional: str | None = None, results: int = 1):
        """Prepares the helper calls in ``node``; ``conditional`` names the part of an expression Python
        may not evaluate (or evaluates repeatedly) that it stands in; ``results``: the values a call
        that is ``node`` itself gives to where it stands."""
        if isinstance(node, ast.Call):
            helper = self.resolve(node.func)
            if isinstance(helper, SourceFunction):
                self.body.calls[node] = self.call(node, helper, context, conditional, results)
        if isinstance(node, ast.BoolOp):
            self.expression(node.values[0], context, conditional)
            inner = conditional or f"the right operand of {'and' if isinstance(node.op, ast.And) else 'or'}"
            for value in node.values[1:]:
                self.expression(value, context, inner)
            return
        if isinstance(node, ast.IfExp):
            self.expression(node.test, context, conditional)
            for branch in (node.body, node.orelse):
                self.expression(branch, context, conditional or "a conditional expression")
            return
        for child in ast.iter_child_nodes(node):
            self.expression(child, context, conditional)

    def resolve(self, node: ast.expr):
        """The object a callee expression names in the module, or ``None``."""
        if isinstance(node, ast.Name):
            return self.body.namespace.get(node.id)
        if isinstance(node, ast.Attribute):
            base = self.resolve(node.value)
            return None if base is None else getattr(base, node.attr, None)
        return None

    def call(self, call: ast.Call, helper: SourceFunction, context: Context, conditional: str | None,
             results: int) -> HelperCall:
        """``helper`` called at ``call``, which gives ``results`` values (0: any) to where it stands."""
        filename = self.body.function.filename
        if conditional is not None:
            return HelperCall(helper, KernelSyntaxError.at(
                filename, call, f"helper call {helper.name}(...) in {conditional}",
                "assign the call's result to a variable first"))
        if helper in self.calling:
            return HelperCall(helper, KernelSyntaxError.at(filename, call, f"recursive call to {helper.name}",
                                                           "recursion is not supported; use a loop"))
        try:
            signature = signature_of(helper, is_kernel=False)
        except KernelSyntaxError as error:
            return HelperCall(helper, error)
        returns = len(signature.return_shapes)
        if returns != results and results != 0:
            message = f"{helper.name} returns no value" if not returns else \
                f"{helper.name} returns {returns} value(s), but {results} are used here"
            return HelperCall(helper, KernelSyntaxError.at(filename, call, message))
        arguments = _bind(call, signature, helper, filename)
        if isinstance(arguments, KernelSyntaxError):
            return HelperCall(helper, arguments)
        try:
            check(helper.tree, helper.filename, is_kernel=False)
        except KernelSyntaxError as error:
            return HelperCall(helper, signature=signature, arguments=arguments, body_error=error)
        body = _body(helper, signature, context, self.calling + (helper,), prefix=f"{helper.name}_")
        return HelperCall(helper, signature=signature, arguments=arguments, body=body)


def _bind(call: ast.Call, signature: Signature, helper: SourceFunction,
          filename: str) -> list[ast.expr] | KernelSyntaxError:
    """The argument of each parameter of ``helper`` at ``call``, in order, or the error."""
    names = [param.name for param in signature.params]
    bound: dict[str, ast.expr] = {}
    for argument in call.args:
        if isinstance(argument, ast.Starred):
            return KernelSyntaxError.at(filename, argument, "starred arguments are not supported")
        if len(bound) >= len(names):
            return KernelSyntaxError.at(filename, call, f"{helper.name} takes {len(names)} argument(s), "
                                        f"{len(call.args)} given")
        bound[names[len(bound)]] = argument
    for keyword in call.keywords:
        if keyword.arg is None:
            return KernelSyntaxError.at(filename, keyword, "**arguments are not supported")
        if keyword.arg not in names:
            return KernelSyntaxError.at(filename, keyword, f"{helper.name} has no parameter {keyword.arg!r}")
        if keyword.arg in bound:
            return KernelSyntaxError.at(filename, keyword, f"{helper.name} got {keyword.arg!r} twice")
        bound[keyword.arg] = keyword.value
    missing = [name for name in names if name not in bound]
    if missing:
        return KernelSyntaxError.at(filename, call, f"{helper.name} is missing argument(s) {', '.join(missing)}")
    return [bound[name] for name in names]


def _assigned_names(body: list[ast.stmt]) -> set[str]:
    names = set()
    for statement in body:
        for node in ast.walk(statement):
            if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.For)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    for leaf in ast.walk(target):
                        if isinstance(leaf, ast.Name) and isinstance(leaf.ctx, ast.Store):
                            names.add(leaf.id)
    return names
