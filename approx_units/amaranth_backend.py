"""Amaranth interpreter of a traced :class:`~approx_units.dataflow.Graph`: the hardware.

Every node becomes an unsigned signal of the node's width driven by the
Amaranth expression with the same meaning (see :mod:`approx_units.dataflow`).
Pipeline registers are placed by :func:`approx_units.dataflow.pipeline`, which
may first rebuild wide operations of a pipelined unit from narrower ones
(:func:`approx_units.dataflow.lower`) so that registers can go inside them;
the numpy model keeps interpreting the graph as traced, and the two agree bit
for bit (tests/units/test_pipelining.py).
"""

from __future__ import annotations

from amaranth.hdl import Array, Cat, Const, Module, Mux, Shape, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from .dataflow import Graph, pipeline
from .devices import ECP5, DelayModel

__all__ = ["UnitSignature", "UnitComponent"]


class UnitSignature(wiring.Signature):
    """Signature of an arithmetic unit.

    Members: ``a`` and ``b`` (inputs, operand shapes), ``o`` (output, result
    shape) and, when pipelined, ``valid_in`` (input, 1 bit) and ``valid_out``
    (output, 1 bit), which follows ``valid_in`` with the unit's latency.

    Parameters
    ----------
    a_shape, b_shape, o_shape : ShapeLike
        Operand and result shapes; signed units use signed shapes.
    pipelined : bool
        Whether the unit has register stages (and so the valid signals and
        the implicit ``sync`` clock domain).
    """

    def __init__(self, a_shape, b_shape, o_shape, *, pipelined: bool):
        self.a_shape = Shape.cast(a_shape)
        self.b_shape = Shape.cast(b_shape)
        self.o_shape = Shape.cast(o_shape)
        self.pipelined = bool(pipelined)
        members = {"a": In(self.a_shape), "b": In(self.b_shape), "o": Out(self.o_shape)}
        if self.pipelined:
            members["valid_in"] = In(1)
            members["valid_out"] = Out(1)
        super().__init__(members)

    def __eq__(self, other):
        return (type(self) is type(other) and
                (self.a_shape, self.b_shape, self.o_shape, self.pipelined) ==
                (other.a_shape, other.b_shape, other.o_shape, other.pipelined))

    def __hash__(self):
        return hash((type(self), self.a_shape, self.b_shape, self.o_shape, self.pipelined))

    def __repr__(self):
        return (f"UnitSignature(a_shape={self.a_shape!r}, b_shape={self.b_shape!r}, "
                f"o_shape={self.o_shape!r}, pipelined={self.pipelined})")


def _expression(node, args):
    op = node.op
    if op == "const":
        return Const(node.attrs[0], node.width)
    if op == "add":
        return args[0] + args[1]
    if op == "sub":
        return args[0] - args[1]    # signed; assignment to the unsigned node wraps it
    if op == "mul":
        return args[0] * args[1]
    if op == "and":
        return args[0] & args[1]
    if op == "or":
        return args[0] | args[1]
    if op == "xor":
        return args[0] ^ args[1]
    if op == "not":
        return ~args[0]
    if op == "shl":
        return args[0] << args[1]
    if op == "shr":
        return args[0] >> args[1]
    if op == "slice":
        lo = node.attrs[0]
        return args[0][lo:lo + node.width]
    if op == "cat":
        return Cat(*args)
    if op == "mux":
        return Mux(args[0], args[1], args[2])
    if op == "eq":
        return args[0] == args[1]
    if op == "lt":
        return args[0] < args[1]
    if op == "lod":
        position = Const(0, node.width)
        for i in range(1, node.args[0].width):
            position = Mux(args[0][i], i, position)
        return position
    if op == "lookup":
        return Array(Const(v, node.width) for v in node.attrs)[args[0]]
    raise AssertionError(f"unknown operation {op!r}")


def _fit(expression, width):
    """``expression`` reduced modulo ``2**width`` as an unsigned value: what assigning it
    to an unsigned ``width``-bit signal gives, usable inline."""
    shape = expression.shape()
    if shape.width > width:
        return expression[:width]
    if shape.signed and shape.width < width:
        return Cat(expression.as_unsigned(), expression[-1].replicate(width - shape.width))
    return expression.as_unsigned()


class UnitComponent(wiring.Component):
    """An arithmetic unit elaborated from its traced graph.

    Parameters
    ----------
    graph : Graph
        The traced unit (inputs ``a`` and ``b``).
    signature : UnitSignature
        Port shapes; ``o`` receives the graph output's bit pattern.
    stages : int
        Register stages (the latency); must be 0 exactly when the signature
        is not pipelined.
    delay_model : DelayModel
        The device whose delays place the pipeline registers
        (:func:`approx_units.dataflow.pipeline`); ECP5 unless given.

    Raises
    ------
    ValueError
        If ``stages`` does not fit the signature.
    """

    def __init__(self, graph: Graph, signature: UnitSignature, *, stages: int, delay_model: DelayModel = ECP5):
        if signature.pipelined != (stages > 0):
            raise ValueError(f"a signature with pipelined={signature.pipelined} "
                             f"does not fit stages={stages}")
        self._graph = graph
        self._stages = stages
        self._delay_model = delay_model
        super().__init__(signature)

    def elaborate(self, platform):
        m = Module()
        graph, cut = pipeline(self._graph, self._stages, self._delay_model)
        stages = self._stages
        ports = {"a": self.a.as_unsigned(), "b": self.b.as_unsigned()}

        # A node used once, in its own segment, is inlined into its consumer's
        # expression; every other node gets a signal. Amaranth's simulator
        # re-runs a fragment's whole comb process once per delta cycle in
        # which one of its inputs changed, reading values from before the run,
        # so a deep chain of signals in one fragment costs depth x size per
        # input change (minutes for a 32-bit divider). Hence also: the signal
        # nodes are grouped by logic depth, one submodule per depth, so each
        # run does useful work. Synthesis flattens the hierarchy again.
        consumers = {}
        for node in graph.nodes:
            for arg in node.args:
                consumers.setdefault(arg, []).append(node)
        consumers.setdefault(graph.output, []).append(None)

        def inlined(node):
            users = consumers.get(node, [])
            return (node.op not in ("input", "const") and "keep" not in node.attrs and len(users) == 1 and users[0] is not None
                    and cut.segment[users[0]] == cut.segment[node])

        signals = {}        # node -> Signal (or Const) in the node's own segment
        delayed = {}        # (node, segment) -> register holding it in that later segment
        depth = {}          # signal node -> logic depth (in signals) within its segment
        levels = {}         # depth -> submodule

        def value_in(node, seg):
            """The node's value as seen by logic in segment ``seg``."""
            if node.op == "const":
                return Const(node.attrs[0], node.width)
            if inlined(node):
                return expression_of(node)
            home = cut.segment[node]
            if seg == home:
                return signals[node]
            key = (node, seg)
            if key not in delayed:
                register = Signal(node.width, name=f"n{node.index}_{node.op}_s{seg}", reset_less=True)
                m.d.sync += register.eq(value_in(node, seg - 1))
                delayed[key] = register
            return delayed[key]

        def expression_of(node):
            seg = cut.segment[node]
            return _fit(_expression(node, [value_in(a, seg) for a in node.args]), node.width)

        def depth_of(node, seg):
            if node.op in ("input", "const") or cut.segment[node] != seg:
                return 0
            if inlined(node):
                return max((depth_of(a, seg) for a in node.args), default=0)
            return depth[node]

        for node in graph.nodes:
            if node.op == "input":
                signal = Signal(node.width, name=f"n{node.index}_{node.attrs[0]}")
                m.d.comb += signal.eq(ports[node.attrs[0]])
                signals[node] = signal
            elif node.op != "const" and not inlined(node):
                seg = cut.segment[node]
                depth[node] = 1 + max((depth_of(a, seg) for a in node.args), default=0)
                if depth[node] not in levels:
                    levels[depth[node]] = m.submodules[f"depth{depth[node]}"] = Module()
                # An add traced with keep=True (Ops.add) stays its own adder in synthesis.
                signal = Signal(node.width, name=f"n{node.index}_{node.op}",
                                attrs={"keep": 1} if "keep" in node.attrs else {})
                levels[depth[node]].d.comb += signal.eq(expression_of(node))
                signals[node] = signal

        m.d.comb += self.o.eq(value_in(graph.output, stages))

        if stages:
            valid = self.valid_in
            for i in range(stages):
                register = Signal(name=f"valid_s{i + 1}")
                m.d.sync += register.eq(valid)
                valid = register
            m.d.comb += self.valid_out.eq(valid)
        return m
