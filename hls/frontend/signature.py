"""The check of a function's interface: its parameters, their annotations and its return shapes.

The first pass of the front end (:func:`hls.frontend.analyze.analyze`), run on the
kernel and on every helper it inlines. A plain function over the ``def`` node and the
function's annotations: it raises :class:`~hls.errors.KernelSyntaxError` at the first
parameter or annotation outside the language and returns the :class:`Signature`.
"""

from __future__ import annotations

import ast
import builtins
import inspect
from dataclasses import dataclass

from amaranth.hdl import Shape

from ..errors import KernelSyntaxError
from ..types import ArrayType, StreamType, bare_shape_function, format_shape
from .typed import Param
from ..syntax import compile_tree

__all__ = ["Signature", "signature", "annotation_value", "namespace_of", "MISSING", "RESERVED"]

#: Prefix of the golden model's own names.
RESERVED = "__hls_"
#: An annotation that ``__annotations__`` does not hold: it is evaluated from the source.
MISSING = object()


@dataclass
class Signature:
    """A function's checked interface.

    Attributes
    ----------
    params : list of Param
        In order; an array's :class:`~hls.types.ArrayType` is in ``array_types``.
    array_types : dict of str to ArrayType
    return_shapes : list of Shape
        Empty for a function that returns nothing.
    returns_tuple : bool
        The annotation is ``tuple[...]``.
    has_return_annotation : bool
    """

    params: list[Param]
    array_types: dict[str, ArrayType]
    return_shapes: list[Shape]
    returns_tuple: bool
    has_return_annotation: bool


def namespace_of(fn) -> dict:
    """The names ``fn``'s body can read: builtins, its module's globals and its closure."""
    namespace = dict(vars(builtins))
    namespace.update(fn.__globals__)
    if fn.__closure__:
        namespace.update(inspect.getclosurevars(fn).nonlocals)
    return namespace


def _error(node: ast.AST, message: str, hint: str | None, filename: str):
    raise KernelSyntaxError.at(filename, node, message, hint)


def signature(function, *, is_kernel: bool) -> Signature:
    """The interface of ``function`` (a :class:`~hls.frontend.source.SourceFunction`); ``is_kernel``
    False for a helper, whose parameters cannot be streams.

    Raises
    ------
    hls.errors.KernelSyntaxError
        At the first parameter or annotation outside the language.
    """
    tree = function.tree
    filename = function.filename
    arguments = tree.args
    if isinstance(tree, ast.AsyncFunctionDef):
        _error(tree, "async functions are not supported", None, filename)
    for bad, what in ((arguments.vararg, "*args"), (arguments.kwarg, "**kwargs")):
        if bad is not None:
            _error(bad, f"{what} parameters are not supported",
                   "declare each parameter with its shape", filename)
    if arguments.posonlyargs or arguments.kwonlyargs:
        node = (arguments.posonlyargs + arguments.kwonlyargs)[0]
        _error(node, "positional-only and keyword-only parameters are not supported",
               "use plain parameters", filename)
    if arguments.defaults:
        _error(arguments.defaults[0], "default parameter values are not supported",
               "pass every argument explicitly", filename)
    annotations = dict(getattr(function.fn, "__annotations__", {}))
    namespace = namespace_of(function.fn)
    params, array_types = [], {}
    for arg in arguments.args:
        if arg.arg.startswith(RESERVED):
            _error(arg, f"names starting with {RESERVED} are reserved", "rename the parameter",
                   filename)
        if arg.annotation is None:
            _error(arg, f"parameter {arg.arg!r} has no type annotation",
                   f"write {arg.arg}: unsigned(8), signed(16) or hls.Array[signed(16), 64]",
                   filename)
        annotation = annotation_value(annotations.get(arg.arg, MISSING), arg.annotation,
                                      namespace, filename)
        if isinstance(annotation, ArrayType):
            if annotation.depth is None:
                _error(arg, f"array parameter {arg.arg!r} has no depth",
                       f"write hls.Array[{format_shape(annotation.shape)}, DEPTH]", filename)
            check_width(arg.annotation, annotation.shape, f"the elements of array parameter {arg.arg!r}",
                        filename)
            params.append(Param(arg.arg, "array", annotation.shape, annotation.depth,
                                arg.lineno, arg.col_offset, annotation.partition))
            array_types[arg.arg] = annotation
        elif isinstance(annotation, Shape):
            check_width(arg.annotation, annotation, f"parameter {arg.arg!r}", filename)
            params.append(Param(arg.arg, "scalar", annotation, None, arg.lineno, arg.col_offset))
        elif isinstance(annotation, StreamType):
            if not is_kernel:
                _error(arg, f"helper {function.name} takes the stream parameter {arg.arg!r}: only a "
                       f"kernel's own parameters can be streams", "read or write the stream in the "
                       "kernel and pass the helper the token", filename)
            check_width(arg.annotation, annotation.shape, f"the tokens of stream parameter {arg.arg!r}",
                        filename)
            params.append(Param(arg.arg, "stream", annotation.shape, None, arg.lineno, arg.col_offset))
        else:
            _error(arg.annotation, f"parameter {arg.arg!r} is annotated {annotation!r}, "
                   f"which is not a shape", "use unsigned(n), signed(n), "
                   "hls.Array[shape, depth] or hls.Stream[shape]", filename)
    return_shapes, returns_tuple = [], False
    has_annotation = tree.returns is not None
    if has_annotation:
        value = annotation_value(annotations.get("return", MISSING), tree.returns,
                                 namespace, filename)
        if value is None:
            has_annotation = False
        elif isinstance(value, Shape):
            return_shapes = [value]
        elif getattr(value, "__origin__", None) is tuple:
            returns_tuple = True
            return_shapes = list(value.__args__)
            for item in return_shapes:
                reject_bare_shape_function(item, tree.returns, filename)
                if not isinstance(item, Shape):
                    _error(tree.returns, f"return annotation element {item!r} is not a shape",
                           "write tuple[signed(16), unsigned(8)]", filename)
            if not return_shapes:
                _error(tree.returns, "empty tuple return annotation", None, filename)
        else:
            _error(tree.returns, f"return annotation {value!r} is not a shape",
                   "write -> signed(32) or -> tuple[signed(16), unsigned(8)]", filename)
        for shape in return_shapes:
            check_width(tree.returns, shape, f"the return value of {tree.name}", filename)
    return Signature(params, array_types, return_shapes, returns_tuple, has_annotation)


def annotation_value(value, node: ast.expr, namespace: dict, filename: str):
    """The value of the annotation ``node``: ``value`` (from ``__annotations__``), or the source
    evaluated in ``namespace`` when it is :data:`MISSING` or a string."""
    if value is MISSING or isinstance(value, str):
        try:
            value = eval(compile_tree(ast.Expression(node), filename, "eval"), namespace)
        except Exception as error:
            _error(node, f"cannot evaluate annotation {ast.unparse(node)!r}: {error}",
                   None, filename)
    reject_bare_shape_function(value, node, filename)
    return value


def reject_bare_shape_function(value, node: ast.expr, filename: str):
    """``n: unsigned`` means ``unsigned(N)``: say so, rather than show a function's repr."""
    bare = bare_shape_function(value)
    if bare is not None:
        _error(node, f"{bare} without a width is not a shape", f"write {bare}(N), e.g. {bare}(8)",
               filename)


def check_width(node: ast.expr, shape: Shape, what: str, filename: str):
    """A declared interface shape must hold more than the one value 0."""
    if shape.width == 0:
        _error(node, f"{what} is {format_shape(shape)}, which has no bits and holds only 0",
               f"give it at least one bit, e.g. {'signed' if shape.signed else 'unsigned'}(8)",
               filename)
