"""Numpy interpreter of a traced :class:`~approx_units.dataflow.Graph`: the bit-exact model.

Values are held in ``uint64`` arrays and reduced to each node's width after
every operation, which reproduces the hardware exactly as long as no node is
wider than 64 bits; wider graphs are refused.
"""

from __future__ import annotations

import numpy as np

from .dataflow import Graph

__all__ = ["evaluate", "MAX_WIDTH"]

#: The widest node this interpreter can hold exactly.
MAX_WIDTH = 64

_ONE = np.uint64(1)


def _mask(width: int) -> np.uint64:
    return np.uint64((1 << width) - 1)


def _wrap(value, width: int):
    return value if width >= 64 else value & _mask(width)


def _shift_left(value, amount, width):
    # numpy (like C) leaves shifts by >= 64 undefined; such shifts give 0 here.
    amount = amount.astype(np.uint64)
    in_range = amount < np.uint64(width)
    shifted = np.left_shift(value, np.where(in_range, amount, 0).astype(np.uint64))
    return np.where(in_range, _wrap(shifted, width), np.uint64(0))


def _shift_right(value, amount, width):
    amount = amount.astype(np.uint64)
    in_range = amount < np.uint64(width)
    shifted = np.right_shift(value, np.where(in_range, amount, 0).astype(np.uint64))
    return np.where(in_range, shifted, np.uint64(0))


def _leading_one(value, width):
    position = np.zeros(value.shape, dtype=np.uint64)
    for i in range(1, width):
        position += (value >> np.uint64(i)) != 0
    return position


def evaluate(graph: Graph, inputs: dict) -> np.ndarray:
    """Evaluate ``graph`` on arrays of input bit patterns.

    Parameters
    ----------
    graph : Graph
        A traced unit.
    inputs : dict of str to numpy.ndarray
        One array of non-negative bit patterns per graph input, all of one
        shape (values must already fit their input's width).

    Returns
    -------
    numpy.ndarray of uint64
        The output's bit pattern for every element.

    Raises
    ------
    ValueError
        If a node of the graph is wider than :data:`MAX_WIDTH` bits.
    """
    too_wide = [n for n in graph.nodes if n.width > MAX_WIDTH]
    if too_wide:
        node = too_wide[0]
        raise ValueError(f"the numpy model holds at most {MAX_WIDTH}-bit values, but "
                         f"node #{node.index} ({node.op}) is {node.width} bits wide")
    shape = np.broadcast_shapes(*(np.shape(v) for v in inputs.values()))
    values = {}
    for node in graph.nodes:
        op, w = node.op, node.width
        args = [values[a] for a in node.args]
        if op == "input":
            result = np.broadcast_to(np.asarray(inputs[node.attrs[0]], dtype=np.uint64), shape)
        elif op == "const":
            result = np.full(shape, node.attrs[0], dtype=np.uint64)
        elif op == "add":
            result = _wrap(args[0] + args[1], w)
        elif op == "sub":
            result = _wrap(args[0] - args[1], w)    # uint64 wraps modulo 2**64
        elif op == "mul":
            result = _wrap(args[0] * args[1], w)
        elif op == "and":
            result = args[0] & args[1]
        elif op == "or":
            result = args[0] | args[1]
        elif op == "xor":
            result = args[0] ^ args[1]
        elif op == "not":
            result = args[0] ^ _mask(w)
        elif op == "shl":
            result = _shift_left(args[0], args[1], w)
        elif op == "shr":
            result = _shift_right(args[0], args[1], node.args[0].width)
        elif op == "slice":
            result = _wrap(args[0] >> np.uint64(node.attrs[0]), w)
        elif op == "cat":
            result = np.zeros(shape, dtype=np.uint64)
            offset = 0
            for part, value in zip(node.args, args):
                result = result | (value << np.uint64(offset))
                offset += part.width
        elif op == "mux":
            result = np.where(args[0] != 0, args[1], args[2])
        elif op == "eq":
            result = (args[0] == args[1]).astype(np.uint64)
        elif op == "lt":
            result = (args[0] < args[1]).astype(np.uint64)
        elif op == "lod":
            result = _leading_one(args[0], node.args[0].width)
        elif op == "lookup":
            result = np.asarray(node.attrs, dtype=np.uint64)[args[0].astype(np.intp)]
        else:
            raise AssertionError(f"unknown operation {op!r}")
        values[node] = np.asarray(result, dtype=np.uint64)
    return values[graph.output]
