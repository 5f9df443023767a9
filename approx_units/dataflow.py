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
estimate in ns (:func:`operand_delays`, :func:`node_delay`). Nodes are
visited in topological order and packed greedily into segments whose delay
does not exceed a target; the smallest target that needs at most
``stages + 1`` segments is found by bisection. Every value used in a later
segment than the one that computes it is registered once per segment
boundary it crosses, so every path from an input to the output crosses
exactly ``stages`` registers.

Registers can only go between nodes, so one wide node (a barrel shifter, a
256-entry table, a 32-bit leading-one detector) bounds the clock period of
any pipeline. :func:`pipeline` therefore first rebuilds such nodes from
narrower ones (:func:`lower`: a shifter's multiplexer levels, a table's
multiplexer tree over LUT4-sized tables, a leading-one detector's tree),
but only those of the slowest segment and only while that shortens the
estimated critical path; combinational units are never lowered. The numpy
model interprets the graph as traced; the lowered graph computes the same
function bit for bit.

Delay model
-----------
Each operation's delay reads the ``unit_*`` constants of a device's
:class:`~approx_units.devices.DelayModel` (ECP5 unless a model is given; the
compiler passes its target's). ECP5's were calibrated with
``benchmarks/units_delay_calibration.py``: each operation
alone between the input and output registers of the synthesis timing
wrapper, ``synth_ecp5 -nodsp -nowidelut`` and ``nextpnr-ecp5 --25k
--package CABGA256 --seed 1`` (speed grade 6), its register-to-register
path minus that of a bare wire (1.05 ns). Measured (ns), and the model::

    operation                      measured                      model
    mux, select fanout 1/4/16/64   0.66 / 0.69 / 1.94 / 2.96     0.95 + 0.3 log2(fanout / 4)
    and, 16 bits                   0.52                          0.5 (all bitwise logic)
    add 8/16/32/64 bits            1.79 / 2.07 / 2.67 / 3.84     1.5 + 0.035 per bit
    sub 16/64 bits                 2.07 / 3.75                   (as add)
    lt 8/32 bits                   2.39 / 3.40                   2.05 + 0.042 per bit
    eq (zero test) 8/32 bits       1.63 / 2.90                   0.635 log2(w) - 0.27
    lod 8/16/32 bits               2.03 / 3.74 / 5.75            1.86 log2(w) - 3.55
    lookup, 4/6/8 index bits       0.78 / 3.58 / 5.41            0.95 + 1.15 per bit above 4
    shl 32 bits by 1/2/3/5 bits    1.36 / 2.09 / 3.16 / 5.13     0.95 per level, plus the
    shr 64 bits by 6 bits          6.01                            amount's fanout (as mux)
    mul 4x4 / 6x6 / 8x8            4.58 / 5.71 / 7.17            2.0 + 0.65 per bit

Place and route of a single seed scatters by about +-0.5 ns (a 32-bit
1-level shifter measured faster than a 16-bit multiplexer), which bounds the
model's accuracy; within a large unit, routes are longer than in isolation.

Checked on whole units (``benchmarks/units_area.py``, seed 1): for the
32-bit refined Mitchell multiplier, the slowest segment plus the 1.05 ns of
a bare wire predicts 8.25 / 6.57 / 5.40 ns at 4 / 6 / 8 stages against
7.36 / 6.65 / 5.21 ns measured, and nextpnr's critical path lies in a
segment within 0.7 ns of the model's slowest. Known errors: carry chains
feeding each other directly are faster than the sum of their parts (two
10-bit adders 2.98 ns, three 3.79 ns, against 3.74 and 5.66 here), and
chains of LUT logic merge into fewer LUTs than nodes; a model crediting the
first placed registers worse (4 stages: 97 against 130 MHz, median over
five seeds), and other constants within the measurements' scatter gave the
same or slower pipelines, so the constants stay as measured in isolation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from .devices import ECP5, DelayModel

__all__ = ["Node", "Graph", "Ops", "trace", "operand_delays", "node_delay", "arrival_times",
           "lowerable", "lower", "partition", "Partition", "pipeline", "LEAF_INDEX_BITS"]


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

    def structure(self) -> tuple:
        """The graph as a hashable value: equal for two graphs exactly when they compute the same
        nodes in the same order, so their hardware and their models are the same circuit."""
        return (tuple((node.op, tuple(arg.index for arg in node.args), node.width, node.attrs)
                      for node in self.nodes), self.output.index)


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

    def add(self, a, b, width: int | None = None, *, keep: bool = False) -> Node:
        """``a + b``; default width ``max(wa, wb) + 1`` (never overflows).

        ``keep=True`` records the attribute ``"keep"``: the hardware gives the
        sum a signal of its own marked ``(* keep *)``, so that Yosys's
        ``alumacc`` does not merge this adder with the adders it feeds into
        one multi-operand ``$macc`` (which ``maccmap`` builds from LUT full
        adders, two LUT4s per bit of reduction, where a carry-chain adder
        takes one LUT equivalent). Interpreters compute the same sum.
        """
        a, b = self._as_node(a), self._as_node(b)
        return self._node("add", (a, b), width or max(a.width, b.width) + 1, ("keep",) if keep else ())

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


# -- delay model ----------------------------------------------------------------

#: A look-up table with this many index bits (or fewer) is one LUT4 per output bit.
LEAF_INDEX_BITS = 4


def _fanout_delay(fanout: int, model: DelayModel) -> float:
    """Extra routing delay of a select or shift-amount net driving ``fanout`` LUTs."""
    return model.unit_fanout * max(0.0, math.log2(fanout / 4))


def _shift_stages(node: Node) -> int:
    """Multiplexer levels of a barrel shifter: one per useful amount bit, one more
    (zeroing the result) if the amount has bits worth the whole width or more."""
    amount_bits = node.args[1].width
    useful = min(amount_bits, _bits_for(node.width - 1)) if node.width > 1 else 0
    return useful + (1 if amount_bits > useful else 0)


def operand_delays(node: Node, model: DelayModel = ECP5) -> tuple:
    """Estimated delay (ns) from each operand of ``node`` to its result on the device of
    ``model`` (its ``unit_*`` constants).

    Most operations are as slow from every operand; a multiplexer's select and
    a shifter's amount also pay for their fanout (one LUT per result bit).
    """
    op, args = node.op, node.args
    if op in ("input", "const", "slice", "cat"):
        return (0.0,) * len(args)
    if op in ("and", "or", "xor", "not"):
        return (model.unit_logic,) * len(args)
    if op == "mux":
        return (model.unit_lut + _fanout_delay(node.width, model), model.unit_lut, model.unit_lut)
    if op in ("shl", "shr"):
        data = model.unit_lut * _shift_stages(node)
        return (data, data + _fanout_delay(node.width, model))
    width = max(a.width for a in args)
    if op in ("add", "sub"):
        delay = model.unit_carry + model.unit_carry_per_bit * width
    elif op == "lt":
        delay = model.unit_compare + model.unit_compare_per_bit * width
    elif op == "eq":
        delay = max(model.unit_logic, model.unit_eq + model.unit_eq_per_log2 * math.log2(max(2, width)))
    elif op == "lod":
        delay = max(model.unit_lut, model.unit_lod + model.unit_lod_per_log2 * math.log2(max(2, width)))
    elif op == "lookup":
        delay = model.unit_lut + model.unit_table_per_bit * max(0, width - LEAF_INDEX_BITS)
    elif op == "mul":
        delay = model.unit_mul + model.unit_mul_per_bit * min(a.width for a in args)
    else:
        raise AssertionError(f"no delay estimate for operation {op!r}")
    return (delay,) * len(args)


def node_delay(node: Node, model: DelayModel = ECP5) -> float:
    """Estimated delay (ns) of one operation: from its slowest operand to its result."""
    return max(operand_delays(node, model), default=0.0)


def arrival_times(graph: Graph, model: DelayModel = ECP5) -> dict:
    """Combinational arrival time (ns after the inputs) of every node, keyed by node."""
    times = {}
    for node in graph.nodes:
        times[node] = max((times[a] + d for a, d in zip(node.args, operand_delays(node, model))),
                          default=0.0)
    return times


# -- lowering: wide operations as chains of narrow ones -----------------------------

def _lower_shift(ops: Ops, node: Node, value: Node, amount: Node) -> Node:
    # A logarithmic shifter, one multiplexer per amount bit: the structure
    # synthesis builds anyway, with a node (so a place to cut) per level.
    # A left shift grows from the value's width one level at a time, so the
    # early levels are as narrow (and their selects as lightly loaded) as in
    # the pruned netlist.
    width, left = node.width, node.op == "shl"
    x = ops.zext(value, min(width, value.width))
    useful = min(amount.width, _bits_for(width - 1)) if width > 1 else 0
    if amount.width > useful:       # shifting by the whole width or more leaves nothing
        in_range = ops.eq(ops.slice(amount, useful, amount.width), 0)
        x = ops.mux(in_range, x, ops.const(0, x.width))
    for i in range(useful):
        step = 1 << i
        if left:
            grown = min(width, x.width + step)
            shifted = ops.cat(ops.const(0, step), ops.slice(x, 0, grown - step))
            x = ops.mux(ops.bit(amount, i), shifted, ops.zext(x, grown))
        else:
            shifted = ops.cat(ops.slice(x, step, width), ops.const(0, step))
            x = ops.mux(ops.bit(amount, i), shifted, x)
    return ops.zext(x, width)


def _lower_lookup(ops: Ops, node: Node, index: Node) -> Node:
    # Tables of LEAF_INDEX_BITS index bits (one LUT4 per output bit) under a
    # multiplexer tree on the remaining index bits, most significant at the root.
    def subtable(entries, bits):
        if len(set(entries)) == 1:
            return ops.const(entries[0], node.width)
        if bits <= LEAF_INDEX_BITS:
            return ops.lookup(ops.slice(index, 0, bits), entries, node.width)
        half = len(entries) // 2
        return ops.mux(ops.bit(index, bits - 1), subtable(entries[half:], bits - 1),
                       subtable(entries[:half], bits - 1))
    return ops.zext(subtable(list(node.attrs), index.width), node.width)


def _lower_lod(ops: Ops, node: Node, value: Node) -> Node:
    # Split at the largest power of two below the width: the upper part's
    # leading one, if it has one, else the lower part's, with a top bit saying which.
    def tree(x):
        if x.width <= LEAF_INDEX_BITS:
            return ops.lod(x)
        low_width = 1 << (x.width - 1).bit_length() - 1
        low, high = ops.slice(x, 0, low_width), ops.slice(x, low_width, x.width)
        position_bits = low_width.bit_length() - 1
        upper = ops.not_(ops.eq(high, 0))
        below = ops.mux(upper, ops.zext(tree(high), position_bits), ops.zext(tree(low), position_bits))
        return ops.cat(below, upper)
    return ops.zext(tree(value), node.width)


def _lower_mul(ops: Ops, node: Node, a: Node, b: Node) -> Node:
    # Partial products summed by a balanced tree of adders, each adder a node.
    terms = [ops.shift_left_const(ops.and_(a, ops.replicate(ops.bit(b, j), a.width)), j)
             for j in range(b.width)]
    while len(terms) > 1:
        pairs = [ops.add(x, y, width=min(node.width, max(x.width, y.width) + 1))
                 for x, y in zip(terms[::2], terms[1::2])]
        terms = pairs + terms[len(pairs) * 2:]
    return ops.zext(terms[0], node.width)


def _lower_eq(ops: Ops, node: Node, a: Node, b: Node) -> Node:
    # One LUT4 per chunk (four bits against a constant, two against two),
    # then a balanced tree of ANDs.
    constant = b.attrs[0] if b.op == "const" else None
    chunk = LEAF_INDEX_BITS if constant is not None else LEAF_INDEX_BITS // 2
    width = max(a.width, b.width)
    a = ops.zext(a, width)
    if constant is None:
        b = ops.zext(b, width)
    terms = []
    for lo in range(0, width, chunk):
        hi = min(width, lo + chunk)
        expected = (ops.const((constant >> lo) % (1 << (hi - lo)), hi - lo) if constant is not None
                    else ops.slice(b, lo, hi))
        terms.append(ops.eq(ops.slice(a, lo, hi), expected))
    while len(terms) > 1:
        pairs = [ops.and_(x, y) for x, y in zip(terms[::2], terms[1::2])]
        terms = pairs + terms[len(pairs) * 2:]
    return terms[0]


def _lower_sub(ops: Ops, node: Node, minuend: Node, subtrahend: Node) -> Node:
    # (2**n - 1) - x is ~x in n bits: no carry chain.
    n = minuend.width
    return ops.zext(ops.not_(ops.zext(subtrahend, n)), node.width)


def lowerable(node: Node) -> bool:
    """Whether :func:`lower` has a narrower form for ``node``.

    Barrel shifters, look-up tables with more than :data:`LEAF_INDEX_BITS`
    index bits, leading-one detectors of more than that many bits,
    multipliers (into partial products and an adder tree), comparisons for
    equality wider than a LUT4 (into a tree), and subtractions from an
    all-ones constant.
    """
    op = node.op
    if op in ("shl", "shr"):
        return _shift_stages(node) > 1
    if op == "lookup":
        return node.args[0].width > LEAF_INDEX_BITS
    if op == "lod":
        return node.args[0].width > LEAF_INDEX_BITS
    if op == "mul":
        return min(a.width for a in node.args) > 1
    if op == "eq":
        constant = node.args[1].op == "const"
        return max(a.width for a in node.args) > (LEAF_INDEX_BITS if constant else LEAF_INDEX_BITS // 2)
    if op == "sub":
        minuend, subtrahend = node.args
        return (minuend.op == "const" and minuend.attrs[0] == (1 << minuend.width) - 1
                and subtrahend.width <= minuend.width and node.width <= minuend.width)
    return False


_LOWERINGS = {"shl": _lower_shift, "shr": _lower_shift, "lookup": _lower_lookup,
              "lod": _lower_lod, "mul": _lower_mul, "eq": _lower_eq, "sub": _lower_sub}


def lower(graph: Graph, nodes) -> Graph:
    """A copy of ``graph`` in which each of ``nodes`` is rebuilt from narrower operations.

    The result computes the same function bit for bit; the rebuilt operations
    are the structures synthesis would produce for them (a shifter's
    multiplexer levels, a table's multiplexer tree over LUT4-sized tables,
    a leading-one detector's tree, a multiplier's adder tree, an equality's
    AND tree), but as separate nodes, so that
    :func:`partition` can place registers inside them.

    Parameters
    ----------
    graph : Graph
    nodes : iterable of Node
        Nodes of ``graph``; those that are not :func:`lowerable` are copied unchanged.
    """
    chosen = {node for node in nodes if lowerable(node)}
    ops = Ops()
    copy = {}
    for node in graph.nodes:
        args = [copy[a] for a in node.args]
        if node.op == "input":
            copy[node] = ops.input(node.attrs[0], node.width)
        elif node in chosen:
            copy[node] = _LOWERINGS[node.op](ops, node, *args)
        else:
            copy[node] = ops._node(node.op, args, node.width, node.attrs)
    ops.graph.output = copy[graph.output]
    return ops.graph


# -- pipelining ---------------------------------------------------------------------

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
        Estimated combinational delay of each segment (ns).
    """
    stages: int
    segment: dict
    segment_delay: list

    @property
    def critical_path(self) -> float:
        return max(self.segment_delay)


class _Packing:
    """The graph's non-constant nodes as positions, with each operand's delay, computed
    once per :func:`partition` (which packs the same graph some fifteen times)."""

    def __init__(self, graph: Graph, model: DelayModel):
        self.nodes = [node for node in graph.nodes if node.op != "const"]
        position = {node: i for i, node in enumerate(self.nodes)}
        self.operands, self.constant_arrival, self.slowest = [], [], []
        for node in self.nodes:
            delays = operand_delays(node, model)
            self.operands.append(tuple((position[a], d) for a, d in zip(node.args, delays) if a.op != "const"))
            # A constant operand is there in every segment, from time 0.
            self.constant_arrival.append(max((d for a, d in zip(node.args, delays) if a.op == "const"),
                                             default=0.0))
            self.slowest.append(max(delays, default=0.0))

    def pack(self, target: float):
        """Greedy packing of nodes into segments of delay <= target (where possible):
        ``(segment of each node's position, delay of each segment)``."""
        segment, local = [0] * len(self.nodes), [0.0] * len(self.nodes)
        for i, operands in enumerate(self.operands):
            seg = 0
            for j, _ in operands:
                if segment[j] > seg:
                    seg = segment[j]
            # An operand from an earlier segment arrives from a register, at time 0.
            arrival, started = self.constant_arrival[i], False
            for j, delay in operands:
                if segment[j] == seg:
                    if local[j] > 0:
                        started = True
                    delay += local[j]
                if delay > arrival:
                    arrival = delay
            if started and arrival > target:
                seg, arrival = seg + 1, self.slowest[i]
            segment[i], local[i] = seg, arrival
        segment_delays = [0.0] * (max(segment, default=0) + 1)
        for seg, arrival in zip(segment, local):
            if arrival > segment_delays[seg]:
                segment_delays[seg] = arrival
        return segment, segment_delays

    def by_node(self, segment: list) -> dict:
        return dict(zip(self.nodes, segment))


def partition(graph: Graph, stages: int, model: DelayModel = ECP5) -> Partition:
    """Cut ``graph`` into ``stages + 1`` delay-balanced segments (see the module docstring),
    by the delays of the device of ``model``."""
    total = max(arrival_times(graph, model).values())
    packing = _Packing(graph, model)
    if stages == 0:
        segment, delays = packing.pack(math.inf)
        return Partition(0, packing.by_node(segment), delays)
    low = max(node_delay(n, model) for n in graph.nodes)     # no segment can be shorter
    high = max(total, low)
    best = packing.pack(high)
    if len(best[1]) > stages + 1:   # cannot happen: `high` packs into one segment
        raise AssertionError("pipeline packing failed")
    for _ in range(40):
        if high - low < 1e-3:
            break
        middle = (low + high) / 2
        candidate = packing.pack(middle)
        if len(candidate[1]) <= stages + 1:
            high, best = middle, candidate
        else:
            low = middle
    segment, delays = best
    delays = delays + [0.0] * (stages + 1 - len(delays))
    return Partition(stages, packing.by_node(segment), delays)


def pipeline(graph: Graph, stages: int, model: DelayModel = ECP5) -> tuple:
    """Lower what keeps the pipeline unbalanced, then partition: ``(graph, Partition)``,
    by the delays of the device of ``model`` (ECP5 unless given).

    Starting from ``graph``, the :func:`lowerable` nodes of the slowest
    segment are lowered (:func:`lower`) as long as that shortens the
    estimated critical path; if lowering those does not, all lowerable nodes
    are tried once more. Operations that do not limit the clock stay whole,
    and a combinational unit (``stages == 0``) is never lowered, so its
    hardware is what its description says.
    """
    cut = partition(graph, stages, model)
    if stages == 0:
        return graph, cut
    while True:
        slowest = cut.segment_delay.index(cut.critical_path)
        everywhere = [n for n in graph.nodes if lowerable(n)]
        critical = [n for n in everywhere if cut.segment.get(n) == slowest]
        for candidates in (critical, everywhere if len(everywhere) > len(critical) else []):
            if not candidates:
                continue
            lowered = lower(graph, candidates)
            lowered_cut = partition(lowered, stages, model)
            if lowered_cut.critical_path < cut.critical_path - 1e-6:
                graph, cut = lowered, lowered_cut
                break
        else:
            return graph, cut
