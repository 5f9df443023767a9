"""The operator layer: a traced dataflow graph of width-tracked bit vectors.

Every unit in :mod:`approx_units` is a Python function written once against
:class:`Ops`. Calling it with an :class:`Ops` tracer records a :class:`Graph`
of :class:`Node` objects; two interpreters give that one graph its meaning:

* :mod:`approx_units.numpy_backend` evaluates it over numpy arrays (the model);
* :mod:`approx_units.amaranth_backend` elaborates it into hardware.

So the model and the hardware cannot drift: there is nothing to keep in step.

Semantics
---------
All values are **unsigned** bit vectors with an explicit width. Each
operation's result is defined as an exact integer function of its operands,
reduced modulo ``2**width`` of the node. These are exactly the semantics of
the corresponding Amaranth expression assigned to an unsigned signal of that
width (Amaranth widens, then the assignment truncates or zero-extends).
Signed units reinterpret bit patterns at their ports only.

Pipelining
----------
:func:`partition` places pipeline registers. Each operation has a delay
estimate in "LUT levels" (:func:`node_delay`): wiring (slices, concatenation,
constants) is free, bitwise logic, multiplexers and table look-ups cost one
level, a carry chain costs one level plus one per 16 bits, a barrel shifter
one level per bit of shift amount. Nodes are visited in topological order and
packed greedily into segments whose delay does not exceed a target; the
smallest target that needs at most ``stages + 1`` segments is found by
bisection. Every value used in a later segment than the one that computes it
is registered once per segment boundary it crosses, so every path from an
input to the output crosses exactly ``stages`` registers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

__all__ = ["Node", "Graph", "Ops", "trace", "node_delay", "arrival_times",
           "partition", "Partition"]


@dataclass(eq=False)
class Node:
    """One operation of a traced graph.

    Attributes
    ----------
    op : str
        Operation name, one of :data:`Ops.OPERATIONS`.
    args : tuple of Node
        Operand nodes.
    width : int
        Result width in bits; the result is reduced modulo ``2**width``.
    attrs : tuple
        Operation-specific constants (a constant's value, slice bounds, a
        look-up table, an input's name).
    index : int
        Position in the graph's topological order.
    """
    op: str
    args: tuple
    width: int
    attrs: tuple = ()
    index: int = -1

    def __repr__(self):
        return f"Node(#{self.index} {self.op} width={self.width})"


@dataclass
class Graph:
    """A traced unit: nodes in topological order, named inputs, one output."""
    nodes: list = field(default_factory=list)
    inputs: dict = field(default_factory=dict)
    output: Node | None = None

    @property
    def max_width(self) -> int:
        return max(node.width for node in self.nodes)


def _bits_for(value: int) -> int:
    """Number of bits needed to hold the unsigned integer ``value`` (at least 1)."""
    return max(1, int(value).bit_length())


class Ops:
    """Tracer: each method records one node and returns it.

    Integer arguments are accepted wherever a node is expected and become
    constants of the smallest width that holds them.
    """

    OPERATIONS = ("input", "const", "add", "sub", "and", "or", "xor", "not",
                  "shl", "shr", "slice", "cat", "mux", "eq", "lt", "mul",
                  "lod", "lookup")

    def __init__(self):
        self.graph = Graph()

    # -- construction -----------------------------------------------------

    def _node(self, op, args, width, attrs=()):
        if width < 1:
            raise ValueError(f"operation {op!r} would have width {width}; widths must be >= 1")
        node = Node(op, tuple(args), int(width), tuple(attrs), len(self.graph.nodes))
        self.graph.nodes.append(node)
        return node

    def _as_node(self, value):
        if isinstance(value, Node):
            return value
        if isinstance(value, int) and value >= 0:
            return self.const(value)
        raise TypeError(f"expected a Node or a non-negative int, not {value!r}")

    def input(self, name: str, width: int) -> Node:
        node = self._node("input", (), width, (name,))
        self.graph.inputs[name] = node
        return node

    def const(self, value: int, width: int | None = None) -> Node:
        if value < 0:
            raise ValueError(f"constants are unsigned; got {value}")
        width = _bits_for(value) if width is None else width
        return self._node("const", (), width, (int(value) % (1 << width),))

    # -- arithmetic -------------------------------------------------------

    def add(self, a, b, width: int | None = None) -> Node:
        """``a + b``; default width ``max(wa, wb) + 1`` (never overflows)."""
        a, b = self._as_node(a), self._as_node(b)
        return self._node("add", (a, b), width or max(a.width, b.width) + 1)

    def sub(self, a, b, width: int | None = None) -> Node:
        """``(a - b) mod 2**width``; default width ``max(wa, wb) + 1`` (two's complement)."""
        a, b = self._as_node(a), self._as_node(b)
        return self._node("sub", (a, b), width or max(a.width, b.width) + 1)

    def mul(self, a, b) -> Node:
        """``a * b`` with width ``wa + wb``."""
        a, b = self._as_node(a), self._as_node(b)
        return self._node("mul", (a, b), a.width + b.width)

    # -- logic ------------------------------------------------------------

    def and_(self, a, b) -> Node:
        a, b = self._as_node(a), self._as_node(b)
        return self._node("and", (a, b), max(a.width, b.width))

    def or_(self, a, b) -> Node:
        a, b = self._as_node(a), self._as_node(b)
        return self._node("or", (a, b), max(a.width, b.width))

    def xor(self, a, b) -> Node:
        a, b = self._as_node(a), self._as_node(b)
        return self._node("xor", (a, b), max(a.width, b.width))

    def not_(self, a) -> Node:
        """Bitwise complement within ``a``'s width."""
        a = self._as_node(a)
        return self._node("not", (a,), a.width)

    # -- shifts and bit fields ----------------------------------------------

    def shl(self, a, amount, width: int) -> Node:
        """``(a << amount) mod 2**width`` for a node ``amount`` (a barrel shifter)."""
        a, amount = self._as_node(a), self._as_node(amount)
        return self._node("shl", (a, amount), width)

    def shr(self, a, amount) -> Node:
        """``a >> amount`` (logical) for a node ``amount``; width of ``a``."""
        a, amount = self._as_node(a), self._as_node(amount)
        return self._node("shr", (a, amount), a.width)

    def slice(self, a, lo: int, hi: int) -> Node:
        """Bits ``lo`` (inclusive) to ``hi`` (exclusive) of ``a``, as Amaranth's ``a[lo:hi]``."""
        a = self._as_node(a)
        if not 0 <= lo < hi <= a.width:
            raise ValueError(f"slice [{lo}:{hi}] out of range for a {a.width}-bit value")
        return self._node("slice", (a,), hi - lo, (lo,))

    def bit(self, a, i: int) -> Node:
        return self.slice(a, i, i + 1)

    def cat(self, *parts) -> Node:
        """Concatenation, first part in the least significant bits (as Amaranth's ``Cat``)."""
        parts = [self._as_node(p) for p in parts]
        return self._node("cat", parts, sum(p.width for p in parts))

    def zext(self, a, width: int) -> Node:
        """``a`` zero-extended (or truncated) to ``width`` bits."""
        a = self._as_node(a)
        if width == a.width:
            return a
        if width < a.width:
            return self.slice(a, 0, width)
        return self.cat(a, self.const(0, width - a.width))

    def shift_left_const(self, a, amount: int) -> Node:
        """``a << amount`` by a constant, widening: a concatenation with zeros."""
        a = self._as_node(a)
        return a if amount == 0 else self.cat(self.const(0, amount), a)

    def replicate(self, bit, count: int) -> Node:
        bit = self._as_node(bit)
        return self.cat(*([bit] * count))

    # -- selection and comparison -----------------------------------------

    def mux(self, sel, if_true, if_false) -> Node:
        """``if_true`` when the 1-bit ``sel`` is 1, else ``if_false``; width is the wider."""
        sel, t, f = self._as_node(sel), self._as_node(if_true), self._as_node(if_false)
        if sel.width != 1:
            raise ValueError(f"mux select must be 1 bit wide, not {sel.width}")
        return self._node("mux", (sel, t, f), max(t.width, f.width))

    def eq(self, a, b) -> Node:
        a, b = self._as_node(a), self._as_node(b)
        return self._node("eq", (a, b), 1)

    def lt(self, a, b) -> Node:
        """Unsigned ``a < b``."""
        a, b = self._as_node(a), self._as_node(b)
        return self._node("lt", (a, b), 1)

    def ge(self, a, b) -> Node:
        return self.not_(self.lt(a, b))

    def is_zero(self, a) -> Node:
        return self.eq(a, 0)

    def lod(self, a) -> Node:
        """Position of the leading one of ``a`` (0 when ``a`` is 0)."""
        a = self._as_node(a)
        return self._node("lod", (a,), _bits_for(a.width - 1))

    def lookup(self, index, table, width: int) -> Node:
        """``table[index]``: a constant table (a ROM) with ``2**index.width`` entries."""
        index = self._as_node(index)
        table = tuple(int(v) % (1 << width) for v in table)
        if len(table) != 1 << index.width:
            raise ValueError(f"a table indexed by {index.width} bits needs "
                             f"{1 << index.width} entries, not {len(table)}")
        return self._node("lookup", (index,), width, table)


def trace(description, *, a_width: int, b_width: int, **params) -> Graph:
    """Trace ``description(ops, a, b, **params)`` into a :class:`Graph`.

    The description returns the output node; the graph keeps every node
    created, in creation (topological) order.
    """
    ops = Ops()
    a = ops.input("a", a_width)
    b = ops.input("b", b_width)
    output = description(ops, a, b, **params)
    ops.graph.output = ops._as_node(output)
    return ops.graph


# -- delay model and pipelining ---------------------------------------------

def node_delay(node: Node) -> float:
    """Estimated delay of one operation, in LUT levels (see the module docstring)."""
    op = node.op
    if op in ("input", "const", "slice", "cat"):
        return 0.0
    if op in ("add", "sub", "lt"):
        return 1.0 + max(a.width for a in node.args) / 16
    if op == "eq":
        return float(max(1, math.ceil(math.log(node.args[0].width, 4))))     # a tree of 4-input LUTs
    if op in ("shl", "shr"):
        return float(node.args[1].width)
    if op == "lod":
        return 1.0 + math.ceil(math.log2(max(2, node.args[0].width)))
    if op == "mul":
        wa, wb = (a.width for a in node.args)
        return 1.0 + math.ceil(math.log2(max(2, min(wa, wb)))) * (1 + (wa + wb) / 16)
    return 1.0      # bitwise logic, mux, lookup


def arrival_times(graph: Graph) -> dict:
    """Combinational arrival time of every node (LUT levels), keyed by node."""
    times = {}
    for node in graph.nodes:
        start = max((times[a] for a in node.args), default=0.0)
        times[node] = start + node_delay(node)
    return times


@dataclass
class Partition:
    """Where the pipeline registers go.

    Attributes
    ----------
    stages : int
        Number of register stages.
    segment : dict
        Segment (0 .. stages) of each non-constant node; a value computed in
        segment ``s`` and used in segment ``t > s`` passes ``t - s`` registers.
        The output is taken after ``stages - segment[output]`` more registers.
    segment_delay : list of float
        Estimated combinational delay of each segment (LUT levels).
    """
    stages: int
    segment: dict
    segment_delay: list

    @property
    def critical_path(self) -> float:
        return max(self.segment_delay)


def _pack(graph: Graph, target: float):
    """Greedy packing of nodes into segments of delay <= target (where possible)."""
    segment, local = {}, {}
    for node in graph.nodes:
        if node.op == "const":
            continue    # constants exist in every segment and are never registered
        live = [a for a in node.args if a.op != "const"]
        seg = max((segment[a] for a in live), default=0)
        start = max((local[a] for a in live if segment[a] == seg), default=0.0)
        delay = node_delay(node)
        if start > 0 and start + delay > target:
            seg, start = seg + 1, 0.0
        segment[node], local[node] = seg, start + delay
    count = max(segment.values()) + 1
    delays = [0.0] * count
    for node, seg in segment.items():
        delays[seg] = max(delays[seg], local[node])
    return segment, delays


def partition(graph: Graph, stages: int) -> Partition:
    """Cut ``graph`` into ``stages + 1`` delay-balanced segments (see the module docstring)."""
    total = max(arrival_times(graph).values())
    if stages == 0:
        segment, delays = _pack(graph, math.inf)
        return Partition(0, segment, delays)
    low = max(node_delay(n) for n in graph.nodes)     # no segment can be shorter
    high = max(total, low)
    best = _pack(graph, high)
    if len(best[1]) > stages + 1:   # cannot happen: `high` packs into one segment
        raise AssertionError("pipeline packing failed")
    for _ in range(40):
        if high - low < 1e-3:
            break
        middle = (low + high) / 2
        candidate = _pack(graph, middle)
        if len(candidate[1]) <= stages + 1:
            high, best = middle, candidate
        else:
            low = middle
    segment, delays = best
    delays = delays + [0.0] * (stages + 1 - len(delays))
    return Partition(stages, segment, delays)
