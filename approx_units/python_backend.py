"""Python-integer interpreter of a traced :class:`~approx_units.dataflow.Graph`: the scalar model.

The numpy model (:mod:`approx_units.numpy_backend`) is fast over arrays but pays
numpy's per-call overhead on every node, about 1-3 ms per operand pair for a
16-bit Mitchell unit. A caller that evaluates one pair at a time, as a kernel's
golden model does for each operation, uses :func:`compile_scalar` instead: the
graph becomes straight-line Python over ints (one expression per node, reduced
modulo ``2**width`` as :mod:`approx_units.dataflow` defines), about 5-8 us per
pair (``benchmarks/units_speed.py`` times both). Both interpret the same graph with the same semantics;
``tests/units/test_python_backend.py`` checks them against each other bit for bit.
"""

from __future__ import annotations

from .dataflow import Graph

__all__ = ["compile_scalar"]


def _expression(node, name) -> str:
    op, args = node.op, [name(arg) for arg in node.args]
    if op == "const":
        return str(node.attrs[0])
    if op in ("add", "sub", "mul", "and", "or", "xor"):
        symbol = {"add": "+", "sub": "-", "mul": "*", "and": "&", "or": "|", "xor": "^"}[op]
        return f"({args[0]} {symbol} {args[1]})"
    if op == "not":
        return f"(~{args[0]})"
    if op == "shl":
        return f"({args[0]} << {args[1]})"
    if op == "shr":
        return f"({args[0]} >> {args[1]})"
    if op == "slice":
        return f"({args[0]} >> {node.attrs[0]})"
    if op == "cat":
        terms, offset = [], 0
        for arg, part in zip(args, node.args):
            terms.append(arg if offset == 0 else f"({arg} << {offset})")
            offset += part.width
        return "(" + " | ".join(terms) + ")"
    if op == "mux":
        return f"({args[1]} if {args[0]} else {args[2]})"
    if op == "eq":
        return f"({args[0]} == {args[1]})"
    if op == "lt":
        return f"({args[0]} < {args[1]})"
    if op == "lod":
        return f"(({args[0]}).bit_length() - 1 if {args[0]} else 0)"
    if op == "lookup":
        return f"_table{node.index}[{args[0]}]"
    raise AssertionError(f"unknown operation {op!r}")


def compile_scalar(graph: Graph):
    """``function(a, b) -> int``: the graph's output bit pattern for the operand bit patterns ``a``, ``b``.

    ``a`` and ``b`` are non-negative ints (bit patterns of the input widths; higher
    bits are ignored, as the hardware's ports would drop them).
    """
    lines = []
    namespace = {}
    names = {}

    def name(node):
        return names[node]

    for node in graph.nodes:
        names[node] = f"v{node.index}"
        mask = (1 << node.width) - 1
        if node.op == "input":
            lines.append(f"    v{node.index} = {node.attrs[0]} & {mask}")
            continue
        if node.op == "lookup":
            namespace[f"_table{node.index}"] = tuple(node.attrs)
        expression = _expression(node, name)
        if node.op in ("eq", "lt", "lookup", "const"):
            lines.append(f"    v{node.index} = {expression}" if node.op != "eq" and node.op != "lt"
                         else f"    v{node.index} = 1 if {expression} else 0")
        else:
            lines.append(f"    v{node.index} = {expression} & {mask}")
    lines.append(f"    return {names[graph.output]}")
    source = "def unit(a, b):\n" + "\n".join(lines) + "\n"
    exec(compile(source, "<approx_units scalar model>", "exec"), namespace)
    return namespace["unit"]
