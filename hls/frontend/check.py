"""The check of a function body against the kernel language's subset of Python.

A pass of the front end (:func:`hls.frontend.analyze.analyze`), run on the kernel's body
and on each helper's body before it is inlined: a plain function over the ``def`` node
that raises :class:`~hls.errors.KernelSyntaxError` at the first construct, in source
order, that the text alone shows to be outside the language (statements and expressions
the language lacks, ``for``/``while`` ... ``else``, targets that cannot be assigned,
``break`` outside a loop, a ``return`` before the end). It reads no names: what a name
means (an array, a stream, a helper, a constant) is checked as the body is typed.

Three forms depend on what a call's callee is, so they are left to the typing walk:
an argument that is a constant, a tuple or ``*starred`` (``unit="drum"`` and
``hls.partition("cyclic", 4)`` take strings; a helper call's ``*args`` has a message of
its own). :func:`unsupported_expression` and :func:`constant_problem` give that walk the
same messages.
"""

from __future__ import annotations

import ast

from ..errors import KernelSyntaxError

__all__ = ["check", "unsupported_expression", "constant_problem", "COMPARISONS"]

#: Statements outside the language, with the message and hint for each.
_UNSUPPORTED_STATEMENTS = {
    ast.Try: ("exceptions (try) are not supported", "check conditions with if"),
    ast.Raise: ("exceptions (raise) are not supported", "return a status value instead"),
    ast.With: ("with statements are not supported", None),
    ast.AsyncWith: ("with statements are not supported", None),
    ast.AsyncFor: ("async for is not supported", "use for over range(...)"),
    ast.Import: ("imports inside a kernel are not supported", "import at module level"),
    ast.ImportFrom: ("imports inside a kernel are not supported", "import at module level"),
    ast.Global: ("global is not supported", "pass the value as a parameter or an array"),
    ast.Nonlocal: ("nonlocal is not supported", "pass the value as a parameter or an array"),
    ast.FunctionDef: ("nested functions are not supported",
                      "define an @hls.function helper at module level"),
    ast.AsyncFunctionDef: ("nested functions are not supported",
                           "define an @hls.function helper at module level"),
    ast.ClassDef: ("classes are not supported inside a kernel", None),
    ast.Delete: ("del is not supported", None),
    ast.Assert: ("assert is not supported in a kernel", "check the condition in a test of the golden model"),
    ast.Match: ("match statements are not supported", "use if/elif/else"),
}
if hasattr(ast, "TryStar"):
    _UNSUPPORTED_STATEMENTS[ast.TryStar] = _UNSUPPORTED_STATEMENTS[ast.Try]

#: The statements of the language.
_STATEMENTS = (ast.Pass, ast.Expr, ast.Assign, ast.AnnAssign, ast.AugAssign, ast.If, ast.For, ast.While,
               ast.Break, ast.Continue, ast.Return)

_UNSUPPORTED_EXPRESSIONS = {
    ast.List: ("lists cannot be built in a kernel", "pass an hls.Array parameter"),
    ast.Tuple: ("tuples are only supported in assignments and return", None),
    ast.Set: ("sets are not supported", None),
    ast.Dict: ("dicts are not supported", "use an hls.Array indexed by an integer key"),
    ast.ListComp: ("comprehensions are not supported", "write a for loop over range(...)"),
    ast.SetComp: ("comprehensions are not supported", "write a for loop over range(...)"),
    ast.DictComp: ("comprehensions are not supported", "write a for loop over range(...)"),
    ast.GeneratorExp: ("generator expressions are not supported", "write a for loop over range(...)"),
    ast.Lambda: ("lambdas are not supported", "define an @hls.function helper at module level"),
    ast.Yield: ("generators (yield) are not supported", "return a tuple or write to an array"),
    ast.YieldFrom: ("generators (yield) are not supported", "return a tuple or write to an array"),
    ast.Await: ("await is not supported", None),
    ast.JoinedStr: ("strings are not supported", None),
    ast.NamedExpr: ("assignment expressions (:=) are not supported", "assign in a statement first"),
    ast.Starred: ("starred expressions are not supported", None),
    ast.Slice: ("slicing is not supported", "index one element at a time in a loop"),
}

_BINARY_OPERATORS = {
    ast.Div: ("/ is true division, which gives floats", "use // for integer (floor) division"),
    ast.Pow: ("** is not supported", "use * or a shift (1 << n)"),
    ast.MatMult: ("@ is not supported", None),
}

#: The comparisons of the language.
COMPARISONS = (ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE)
_OTHER_COMPARISONS = {ast.Is: "is", ast.IsNot: "is not", ast.In: "in", ast.NotIn: "not in"}


def unsupported_expression(node: ast.expr) -> tuple[str, str | None] | None:
    """``(message, hint)`` if ``node``'s kind of expression is outside the language, else ``None``."""
    return _UNSUPPORTED_EXPRESSIONS.get(type(node))


def constant_problem(value) -> tuple[str, str | None] | None:
    """``(message, hint)`` if the literal ``value`` is not an integer (or a bool), else ``None``."""
    if type(value) in (int, bool):
        return None
    if isinstance(value, float):
        return f"floats are not supported: {value!r}", "use integers (fixed point: scale by a power of two)"
    if isinstance(value, (str, bytes)):
        return f"strings are not supported: {value!r}", None
    if value is None:
        return "None is not a value in a kernel", "use 0"
    return f"constant {value!r} is not supported", "use an integer"


def check(tree: ast.FunctionDef, filename: str, is_kernel: bool) -> None:
    """Check the body of ``tree`` (the ``def`` of a kernel, or of a helper with ``is_kernel``
    false) against the language's constructs.

    Takes the function's AST and the file it is in; gives nothing (the AST is not changed).

    Raises
    ------
    hls.errors.KernelSyntaxError
        At the first construct outside the language, in source order.
    """
    _Checker(filename, "kernel" if is_kernel else "helper").body(tree.body)


class _Checker:
    def __init__(self, filename: str, what: str):
        self.filename = filename
        self.what = what
        self.loop_depth = 0

    def error(self, node: ast.AST, message: str, hint: str | None = None):
        raise KernelSyntaxError.at(self.filename, node, message, hint)

    def body(self, statements: list[ast.stmt]):
        final = statements[-1] if statements and isinstance(statements[-1], ast.Return) else None
        for statement in statements:
            for node in _own_statements(statement):
                if isinstance(node, ast.Return) and node is not final:
                    self.error(node, f"return must be the last statement of the {self.what}",
                               "assign the result to a variable, break out of loops, and return it at the end")
        self.statements(statements)

    def statements(self, statements: list[ast.stmt]):
        for statement in statements:
            self.statement(statement)

    def statement(self, node: ast.stmt):
        if type(node) in _UNSUPPORTED_STATEMENTS:
            self.error(node, *_UNSUPPORTED_STATEMENTS[type(node)])
        if not isinstance(node, _STATEMENTS):
            self.error(node, f"{type(node).__name__} statements are not supported")
        if isinstance(node, ast.Expr):
            if not (isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)):
                self.expr(node.value)       # a string on its own is a comment
        elif isinstance(node, ast.Assign):
            self.assign(node)
        elif isinstance(node, ast.AnnAssign):
            if not isinstance(node.target, ast.Name):
                self.error(node.target, "only plain names can be annotated",
                           "annotate the variable where it is first assigned")
            if node.value is not None:
                self.expr(node.value)
        elif isinstance(node, ast.AugAssign):
            self.target(node.target)
            self.expr(node.value)
            if type(node.op) in _BINARY_OPERATORS:
                self.error(node, f"operator {type(node.op).__name__} is not supported")
        elif isinstance(node, ast.If):
            self.expr(node.test)
            self.statements(node.body)
            self.statements(node.orelse)
        elif isinstance(node, (ast.For, ast.While)):
            self.loop(node)
        elif isinstance(node, (ast.Break, ast.Continue)):
            if not self.loop_depth:
                self.error(node, f"{'break' if isinstance(node, ast.Break) else 'continue'} outside a loop")
        elif isinstance(node, ast.Return) and node.value is not None:
            if isinstance(node.value, ast.Tuple):
                self.expressions(node.value.elts)
            else:
                self.expr(node.value)

    def loop(self, node: ast.For | ast.While):
        if node.orelse:
            what = "for" if isinstance(node, ast.For) else "while"
            self.error(node.orelse[0], f"{what} ... else is not supported", "use a flag variable")
        if isinstance(node, ast.For):
            if not isinstance(node.target, ast.Name):
                self.error(node.target, "a for loop must bind a single name", "write for i in range(n):")
            self.expr(node.iter)
        else:
            self.expr(node.test)
        self.loop_depth += 1
        self.statements(node.body)
        self.loop_depth -= 1

    def assign(self, node: ast.Assign):
        if len(node.targets) != 1:
            self.error(node, "chained assignment (a = b = ...) is not supported",
                       "write one assignment per variable")
        target, value = node.targets[0], node.value
        if not isinstance(target, ast.Tuple):
            self.target(target)
            self.expr(value)
            return
        for element in target.elts:
            if not isinstance(element, (ast.Name, ast.Subscript)):
                self.bad_target(element)
        if isinstance(value, ast.Tuple):
            if len(value.elts) != len(target.elts):
                self.error(node, f"cannot unpack {len(value.elts)} values into {len(target.elts)} names")
            self.expressions(value.elts)
        elif isinstance(value, ast.Call):
            self.expr(value)
        else:
            self.error(value, "only a tuple or a helper returning a tuple can be unpacked")
        for element in target.elts:
            self.target(element)

    def target(self, target: ast.expr):
        if isinstance(target, ast.Subscript):
            self.subscript(target)
        elif not isinstance(target, ast.Name):
            self.bad_target(target)

    def bad_target(self, target: ast.expr):
        if isinstance(target, ast.Attribute):
            self.error(target, "attribute assignment is not supported")
        if isinstance(target, ast.Starred):
            self.error(target, "starred assignment is not supported")
        self.error(target, f"cannot assign to {ast.unparse(target)!r}")

    def expressions(self, nodes: list[ast.expr]):
        for node in nodes:
            self.expr(node)

    def expr(self, node: ast.expr):
        problem = unsupported_expression(node)
        if problem is not None:
            self.error(node, *problem)
        if isinstance(node, ast.Constant):
            problem = constant_problem(node.value)
            if problem is not None:
                self.error(node, *problem)
        elif isinstance(node, ast.BinOp):
            if type(node.op) in _BINARY_OPERATORS:
                self.error(node, *_BINARY_OPERATORS[type(node.op)])
            self.expressions([node.left, node.right])
        elif isinstance(node, ast.Compare):
            for op in node.ops:
                if not isinstance(op, COMPARISONS):
                    self.error(node, f"the {_OTHER_COMPARISONS[type(op)]!r} comparison is not supported",
                               "compare integers with == != < <= > >=")
            self.expressions([node.left, *node.comparators])
        elif isinstance(node, ast.Subscript):
            self.subscript(node)
        elif isinstance(node, ast.Call):
            # What a constant, tuple or *starred argument means depends on the callee.
            arguments = node.args + [keyword.value for keyword in node.keywords if keyword.arg is not None]
            self.expressions([argument for argument in arguments
                              if not isinstance(argument, (ast.Constant, ast.Tuple, ast.Starred))])
        elif isinstance(node, (ast.UnaryOp, ast.BoolOp, ast.IfExp)):
            self.expressions([child for child in ast.iter_child_nodes(node) if isinstance(child, ast.expr)])
        # A Name is checked as the body is typed, and so is an Attribute (a stream's has a message of its own).

    def subscript(self, node: ast.Subscript):
        if isinstance(node.value, ast.Subscript):
            self.error(node, "arrays are one-dimensional", "flatten the index: img[y * W + x]")
        if not isinstance(node.slice, ast.Tuple):     # a[i, j]: an error once a is known to be an array
            self.expr(node.slice)


def _own_statements(statement: ast.stmt):
    """``statement`` and the statements nested in it, but not those of a nested ``def``,
    ``class`` or ``lambda``: a ``return`` there is that function's, and the nested
    definition itself is the error to report."""
    yield statement
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return
    for child in ast.iter_child_nodes(statement):
        if isinstance(child, ast.stmt):
            yield from _own_statements(child)
        elif isinstance(child, ast.excepthandler) or type(child).__name__ == "match_case":
            for inner in child.body:
                yield from _own_statements(inner)
