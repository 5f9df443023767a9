"""Whether each stream parameter of a kernel is an input or an output.

Two plain functions of the front end's pipeline (:func:`hls.frontend.analyze.analyze`):
:func:`stream_uses` runs on the kernel's source before its body is typed, and
:func:`set_directions` after, once every other construct of the body has been checked.
The direction comes from the text, so also from code the front end then drops (a loop
of no trips that ``hls.pipeline`` unrolls).
"""

from __future__ import annotations

import ast

from ..errors import KernelSyntaxError
from .typed import Param

__all__ = ["stream_uses", "set_directions"]


def _error(node: ast.AST, message: str, hint: str, filename: str):
    raise KernelSyntaxError(filename, node.lineno, node.col_offset + 1, message, hint)


def stream_uses(tree: ast.FunctionDef, streams, filename: str) -> dict[str, dict[str, ast.AST]]:
    """Every ``s.read()`` and ``s.write(...)`` in ``tree`` of a stream named in ``streams``:
    stream name -> {``"read"`` or ``"write"``: the first call that does it}.

    Raises
    ------
    hls.errors.KernelSyntaxError
        At the first call that writes a stream read earlier in the source, or reads one written earlier.
    """
    calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call)
             and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name)
             and node.func.value.id in streams and node.func.attr in ("read", "write")]
    found: dict[str, dict[str, ast.AST]] = {}
    for call in sorted(calls, key=lambda node: (node.lineno, node.col_offset)):
        name, kind = call.func.value.id, call.func.attr
        uses = found.setdefault(name, {})
        other = "write" if kind == "read" else "read"
        if other in uses:
            done = {"read": "read", "write": "written"}
            _error(call, f"stream {name!r} is {done[kind]} here and {done[other]} on line {uses[other].lineno}: "
                   f"a stream parameter is either an input (read) or an output (written)",
                   "use one stream parameter for the tokens in and another for the tokens out", filename)
        uses.setdefault(kind, call)
    return found


def set_directions(params: list[Param], uses: dict[str, dict[str, ast.AST]], filename: str):
    """Set :attr:`Param.direction` of every stream parameter from ``uses`` (:func:`stream_uses`).

    Raises
    ------
    hls.errors.KernelSyntaxError
        At the first stream parameter that is neither read nor written.
    """
    for param in params:
        if param.kind == "stream":
            used = uses.get(param.name, {})
            if not used:
                _error(ast.Name(id=param.name, lineno=param.lineno, col_offset=param.col_offset),
                       f"stream parameter {param.name!r} is never read or written, so it is neither an "
                       f"input nor an output", f"read it (x = {param.name}.read()) or write it "
                       f"({param.name}.write(v)), or remove the parameter", filename)
            param.direction = "in" if "read" in used else "out"
