"""Numpy interpreter of a traced :class:`~approx_units.dataflow.Graph`: the bit-exact model.

Values are held in one unsigned integer dtype per graph, the narrowest of
``uint8`` .. ``uint64`` that holds its widest node, and reduced to each node's
width after every operation that can exceed it. That is exact: every operation
is bitwise, or shrinks its operand (slices, right shifts), or is arithmetic
modulo ``2**d`` (add, sub, mul, left shift) whose result is then reduced
modulo ``2**width`` with ``width <= d``. Shifts by ``d`` or more give 0 in
numpy, as the hardware's do. Graphs with nodes wider than 64 bits are refused.
A 16 x 16 multiplier (32-bit nodes) thus runs in ``uint32``, which moves half
the bytes of ``uint64`` and fills twice the SIMD lanes.

Operands are processed in blocks of :data:`BLOCK` elements so that the
intermediate arrays of a whole graph stay in the CPU cache (:func:`evaluate_tiles`
hands them out one at a time); constants stay numpy scalars and broadcast. In
an outer product ``a[:, None] x b[None, :]``, a node that reads one operand only
is evaluated once over that operand's values, and a tile's single value of an
operand is a numpy scalar. Multiplexers select without branches, and a 1-bit
scalar decides logic and selects without a pass. Temporaries a node creates are reduced in place,
constant parts of concatenations are folded, comparison results stay boolean
arrays for the 1-bit logic and multiplexer selects that consume them, and
leading-one positions come from float64 exponents; all of this is bit-identical
to the plain definitions (tests/units/test_numpy_backend_speed_paths.py).
"""

from __future__ import annotations

import numpy as np

from .dataflow import Graph

__all__ = ["evaluate", "evaluate_tiles", "value_dtype", "MAX_WIDTH", "BLOCK"]

#: The widest node this interpreter can hold exactly.
MAX_WIDTH = 64

#: Elements evaluated at a time (a few dozen arrays of this size fit in L2).
BLOCK = 1 << 16

_DTYPES = (np.uint8, np.uint16, np.uint32, np.uint64)
_BITS = {dtype: np.iinfo(dtype).bits for dtype in _DTYPES}


def value_dtype(graph: Graph) -> type:
    """The unsigned dtype the interpreter holds ``graph``'s values in: the narrowest for its widest node."""
    widest = graph.max_width
    return next(t for t in _DTYPES if _BITS[t] >= widest)


def _mask(width: int, dtype) -> np.unsignedinteger:
    return dtype((1 << width) - 1)


def _owned(value) -> bool:
    """True for a non-scalar array (a fresh temporary can then be updated in place)."""
    return isinstance(value, np.ndarray) and value.ndim > 0


def _wrap(value, width: int, natural_width: int, dtype):
    """``value mod 2**width``, skipped when ``value`` cannot reach ``2**width``.

    ``value`` must be a fresh temporary: it is reduced in place.
    """
    if width >= _BITS[dtype] or natural_width <= width:
        return value
    if _owned(value):
        np.bitwise_and(value, _mask(width, dtype), out=value)
        return value
    return value & _mask(width, dtype)


def _holds(target, other) -> bool:
    """True if ``target`` has the shape of ``target`` broadcast with ``other``.

    (Cheaper than ``np.broadcast_shapes``, which allocates arrays to find out.)
    """
    shape, other_shape = target.shape, np.shape(other)
    if shape == other_shape or not other_shape:
        return True
    if len(other_shape) > len(shape):
        return False
    return all(o == 1 or o == t for o, t in zip(other_shape[::-1], shape[::-1]))


def _or(acc, acc_owned, value, value_owned):
    """``acc | value``, in place into whichever operand is a fresh temporary of the full shape."""
    if acc_owned and _owned(value) and _holds(acc, value):
        acc |= value
        return acc
    if value_owned and _owned(acc) and _holds(value, acc):
        value |= acc
        return value
    if acc_owned and not _owned(value):
        acc |= value
        return acc
    return acc | value


def _leading_one_float(value):
    """Leading-one position of values below ``2**53`` (0 for 0), from float64 exponents.

    Such integers convert to float64 exactly, so the biased exponent field is
    ``1023 + position``; 0 converts to +0.0, whose exponent field is 0.
    """
    bits = np.asarray(value, dtype=np.float64).view(np.uint64)
    if bits.ndim == 0:
        return np.uint64(max(int(bits) >> 52, 1023) - 1023)
    bits >>= np.uint64(52)
    np.maximum(bits, np.uint64(1023), out=bits)
    bits -= np.uint64(1023)
    return bits


def _leading_one(value, width):
    """Position of the leading one of each ``width``-bit ``value`` (0 for 0), as ``uint64``; exact for any width <= 64."""
    if width <= 53:
        return _leading_one_float(value)
    value = np.asarray(value, dtype=np.uint64)
    high = value >> np.uint64(32)
    low = value & np.uint64(0xFFFFFFFF)
    return np.where(high != 0, _leading_one_float(high) + np.uint64(32), _leading_one_float(low))


def _evaluate_nodes(nodes, inputs: dict, values: dict, dtype):
    """Evaluate ``nodes`` (in topological order) into ``values``, reading earlier ones from it."""
    with np.errstate(over="ignore"):        # wrapping modulo 2**d is intended
        return _evaluate_nodes_wrapping(nodes, inputs, values, dtype)


def _cat(node, args, dtype):
    """Concatenation: constant parts folded into one constant, fresh temporaries OR-ed in place."""
    constant = 0
    acc, acc_owned = None, False
    offset = 0
    for part, value in zip(node.args, args):
        if not _owned(value):
            constant |= int(value) << offset
        else:
            shifted, owned = (value << dtype(offset), True) if offset else (value, False)
            if acc is None:
                acc, acc_owned = shifted, owned
            else:
                acc = _or(acc, acc_owned, shifted, owned)
                acc_owned = True
        offset += part.width
    if acc is None:
        return dtype(constant)
    if constant:
        acc = _or(acc, acc_owned, dtype(constant), False)
    return acc


_BOOL = np.dtype(np.bool_)


def _is_flags(value) -> bool:
    """True for a boolean array: a 1-bit node's value kept as flags (see below)."""
    return isinstance(value, np.ndarray) and value.dtype is _BOOL


def _as_integers(value, dtype):
    return value.astype(dtype) if _is_flags(value) else value


def _select(flags, if_true, if_false, width: int, dtype):
    """``np.where(flags, if_true, if_false)`` for ``width``-bit values, without branches.

    ``np.where`` branches per element, which costs up to five times more when the
    select pattern is irregular. Here ``mask`` is all ones where ``flags`` is set,
    and the result is ``((t ^ f) & mask) ^ f``, or shorter when a branch is a
    constant: ``t & mask`` for ``f == 0``, ``f & ~mask`` for ``t == 0``, and
    ``f | (mask & t)`` when ``t`` is all ones (``f`` has no bit outside ``width``).
    """
    if dtype is np.uint64:
        # In 8-byte lanes the mask's passes cost more than np.where's branches.
        return np.where(flags, if_true, if_false)
    mask = flags.astype(dtype)
    if not _owned(if_true) and if_true == 0:
        mask -= dtype(1)                                        # all ones where clear
        return _in_place(np.bitwise_and, mask, if_false)
    np.negative(mask, out=mask)                                 # all ones where set
    if not _owned(if_false) and if_false == 0:
        return _in_place(np.bitwise_and, mask, if_true)
    if not _owned(if_true) and int(if_true) == (1 << width) - 1:
        if width < _BITS[dtype]:
            mask &= if_true
        return _in_place(np.bitwise_or, mask, if_false)
    difference = np.bitwise_xor(if_true, if_false)
    if _owned(difference) and _holds(difference, mask):
        result = np.bitwise_and(difference, mask, out=difference)
    else:
        result = _in_place(np.bitwise_and, mask, difference)
    return _in_place(np.bitwise_xor, result, if_false)


def _in_place(operation, fresh, other):
    """``operation(fresh, other)``, into the temporary ``fresh`` when it has the result's shape."""
    return operation(fresh, other, out=fresh if _holds(fresh, other) else None)


def _bit_logic(op, args):
    """1-bit ``and``/``or``/``xor`` of flag arrays and 0/1 scalars, or None if another form is involved.

    A scalar operand decides the result without a pass over the other one.
    """
    arrays = [v for v in args if _is_flags(v)]
    scalars = [bool(v) for v in args if not _owned(v)]
    if len(arrays) + len(scalars) != len(args) or not arrays:
        return None
    if op == "not":
        return np.logical_not(arrays[0])
    if len(arrays) == 2:
        return np.bitwise_and(*arrays) if op == "and" else \
            np.bitwise_or(*arrays) if op == "or" else np.bitwise_xor(*arrays)
    array, scalar = arrays[0], scalars[0]
    if op == "and":
        return array if scalar else np.False_
    if op == "or":
        return np.True_ if scalar else array
    return np.logical_not(array) if scalar else array


def _evaluate_nodes_wrapping(nodes, inputs, values, dtype):
    # Comparisons leave boolean arrays (one byte per element), which logic on
    # 1-bit values and multiplexer selects use directly; any other consumer
    # sees them as integers 0/1 (converted once per evaluation and kept).
    wide = {}
    for node in nodes:
        op, w = node.op, node.width
        raw = [values[a] for a in node.args]
        if op in ("and", "or", "xor", "not") and w == 1:
            result = _bit_logic(op, raw)
            if result is not None:
                values[node] = result
                continue
        if op == "mux" and not _owned(raw[0]):
            values[node] = raw[1] if raw[0] else raw[2]
            continue
        if op == "mux" and _is_flags(raw[0]):
            values[node] = _select(raw[0], _as_integers(raw[1], dtype), _as_integers(raw[2], dtype), w, dtype)
            continue
        if op in ("eq", "lt"):
            result = (raw[0] == raw[1]) if op == "eq" else (raw[0] < raw[1])
            values[node] = result if _is_flags(result) and result.ndim else dtype(result)
            continue
        args = []
        for a, v in zip(node.args, raw):
            if _is_flags(v):
                if a not in wide:
                    wide[a] = v.astype(dtype)
                v = wide[a]
            args.append(v)
        widths = [a.width for a in node.args]
        if op == "input":
            result = inputs[node.attrs[0]]
        elif op == "const":
            result = dtype(node.attrs[0])
        elif op == "add":
            result = _wrap(args[0] + args[1], w, max(widths) + 1, dtype)
        elif op == "sub":
            result = _wrap(args[0] - args[1], w, MAX_WIDTH + 1, dtype)     # wraps modulo 2**d
        elif op == "mul":
            result = _wrap(args[0] * args[1], w, sum(widths), dtype)
        elif op == "and":
            result = args[0] & args[1]
        elif op == "or":
            result = args[0] | args[1]
        elif op == "xor":
            result = args[0] ^ args[1]
        elif op == "not":
            result = args[0] ^ _mask(w, dtype)
        elif op == "shl":
            result = _wrap(np.left_shift(args[0], args[1]), w, widths[0] + (1 << widths[1]) - 1, dtype)
        elif op == "shr":
            result = np.right_shift(args[0], args[1])
        elif op == "slice":
            lo = node.attrs[0]
            if lo:
                result = _wrap(args[0] >> dtype(lo), w, widths[0] - lo, dtype)
            elif widths[0] <= w:
                result = args[0]
            else:
                result = args[0] & _mask(w, dtype)
        elif op == "cat" and widths[0] == 1 and all(a is node.args[0] for a in node.args):
            result = args[0] * _mask(len(args), dtype)              # a replicated bit
        elif op == "cat":
            result = _cat(node, args, dtype)
        elif op == "mux":
            result = _select(args[0] != 0, args[1], args[2], w, dtype)
        elif op == "lod":
            result = _leading_one(args[0], widths[0])
            result = result.astype(dtype, copy=False) if _owned(result) else dtype(result)
        elif op == "lookup":
            result = np.asarray(node.attrs, dtype=dtype)[np.asarray(args[0]).astype(np.intp)]
        else:
            raise AssertionError(f"unknown operation {op!r}")
        values[node] = result
    return values


def _tile(value, row, rows, col, cols):
    """The part of a value (2-D, or scalar) that the tile ``[row:row+rows, col:col+cols]`` reads."""
    if not isinstance(value, np.ndarray) or value.ndim != 2:
        return value
    if value.shape[0] > 1:
        value = value[row:row + rows]
    if value.shape[1] > 1:
        value = value[:, col:col + cols]
    # One value for the whole tile (an operand of an outer product, one row per
    # tile): a numpy scalar, which the operations on it and with it run fastest on.
    return value[0, 0] if value.size == 1 else value


def evaluate(graph: Graph, inputs: dict) -> np.ndarray:
    """Evaluate ``graph`` on arrays of input bit patterns.

    Inputs broadcast together. Nodes that depend only on inputs that do not
    vary along the first axis are evaluated once, so an outer product such as
    ``{"a": a[:, None], "b": b[None, :]}`` (every pair of ``a`` and ``b``)
    computes each operand's own logic (a logarithm, a leading-one position)
    once per operand value, not once per pair, and never materialises the
    operand pairs.

    Parameters
    ----------
    graph : Graph
        A traced unit.
    inputs : dict of str to numpy.ndarray
        One array (or scalar) of non-negative bit patterns per graph input;
        values must already fit their input's width.

    Returns
    -------
    numpy.ndarray of uint64
        The output's bit pattern for every element, in the broadcast shape.

    Raises
    ------
    ValueError
        If a node of the graph is wider than :data:`MAX_WIDTH` bits.
    """
    _check_widths(graph)
    shape = np.broadcast_shapes(*(np.shape(value) for value in inputs.values()))
    arrays = _as_2d(inputs)
    output = np.empty(np.broadcast_shapes(*(a.shape for a in arrays.values())), dtype=np.uint64)
    for rows, cols, tile in _tiles(graph, arrays):
        output[rows, cols] = tile
    return output.reshape(shape)


def evaluate_tiles(graph: Graph, inputs: dict):
    """Evaluate ``graph`` one cache-sized tile at a time, for callers that reduce the output.

    A consumer that only needs a reduction of the output (the error engine's
    sums) can process each tile while it is still in the cache, instead of
    reading a whole output array back from memory.

    Parameters
    ----------
    graph : Graph
        A traced unit.
    inputs : dict of str to numpy.ndarray
        Arrays of at most two dimensions that broadcast together to ``(R, C)``;
        a 1-D array of ``n`` values counts as the column ``(n, 1)``.

    Yields
    ------
    rows, cols : slice
        The part of the ``(R, C)`` output this tile covers.
    tile : numpy.ndarray of uint64
        The output bit patterns of that part, shape ``(len(rows), len(cols))``.
        It may be a view of an input or of a value shared between tiles: do not
        modify it.

    Raises
    ------
    ValueError
        If a node is wider than :data:`MAX_WIDTH` bits, or an input has more
        than two dimensions.
    """
    _check_widths(graph)
    if any(np.ndim(value) > 2 for value in inputs.values()):
        raise ValueError(f"tiled evaluation takes inputs of at most 2 dimensions, got shapes "
                         f"{[np.shape(value) for value in inputs.values()]}")
    return _tiles(graph, _as_2d(inputs))


def _check_widths(graph: Graph) -> None:
    too_wide = [n for n in graph.nodes if n.width > MAX_WIDTH]
    if too_wide:
        node = too_wide[0]
        raise ValueError(f"the numpy model holds at most {MAX_WIDTH}-bit values, but "
                         f"node #{node.index} ({node.op}) is {node.width} bits wide")


def _as_2d(inputs: dict) -> dict:
    """The inputs as ``uint64`` arrays of two dimensions that broadcast together."""
    arrays = {name: np.asarray(value, dtype=np.uint64) for name, value in inputs.items()}
    shape = np.broadcast_shapes(*(a.shape for a in arrays.values()))
    if len(shape) > 2:
        flat = np.broadcast_arrays(*arrays.values())
        return dict(zip(arrays, (np.ascontiguousarray(a).reshape(-1, 1) for a in flat)))
    if len(shape) <= 1:
        # A vector of pairs (or one pair): blocks run down the rows.
        return {name: a.reshape(-1, 1) for name, a in arrays.items()}
    return {name: a.reshape((1,) * (2 - a.ndim) + a.shape) for name, a in arrays.items()}


def _tiles(graph: Graph, arrays: dict):
    rows_total, cols_total = np.broadcast_shapes(*(a.shape for a in arrays.values()))
    if rows_total * cols_total == 0:
        return
    by_rows = {name for name, a in arrays.items() if a.shape[0] > 1}
    by_cols = {name for name, a in arrays.items() if a.shape[1] > 1}
    depends = {}
    for node in graph.nodes:
        depends[node] = ({node.attrs[0]} if node.op == "input" else set()).union(
            *(depends[a] for a in node.args))
    if by_cols:
        # An outer product: a node that reads only one operand is evaluated once
        # over that operand's values; only nodes that read both run per tile.
        tiled = [n for n in graph.nodes if depends[n] & by_rows and depends[n] & by_cols]
    else:
        tiled = [n for n in graph.nodes if depends[n] & by_rows]
    in_tiles = set(tiled)
    dtype = value_dtype(graph)
    arrays = {name: a.astype(dtype, copy=False) for name, a in arrays.items()}
    shared = _evaluate_nodes([n for n in graph.nodes if n not in in_tiles], arrays, {}, dtype)
    read = {a for n in tiled for a in n.args if a not in in_tiles}
    read.update(() if graph.output in in_tiles else (graph.output,))

    rows = max(1, BLOCK // cols_total)
    cols = min(cols_total, BLOCK)
    for row in range(0, rows_total, rows):
        for col in range(0, cols_total, cols):
            block = {name: _tile(a, row, rows, col, cols) for name, a in arrays.items()}
            values = {node: _tile(shared[node], row, rows, col, cols) for node in read}
            _evaluate_nodes(tiled, block, values, dtype)
            tile_rows = slice(row, min(row + rows, rows_total))
            tile_cols = slice(col, min(col + cols, cols_total))
            output = np.asarray(values[graph.output]).astype(np.uint64, copy=False)
            shape = (tile_rows.stop - row, tile_cols.stop - col)
            yield tile_rows, tile_cols, output if output.shape == shape else np.broadcast_to(output, shape)
