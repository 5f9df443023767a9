"""The IR: a control-flow graph of hyperblocks, each a data-flow graph of predicated operations.

Every value is the result of exactly one :class:`Op` (SSA inside a block).
Between blocks, values travel through *variables*: a block reads a variable
with a ``live_in`` operation and writes it back with a ``commit`` operation.
In hardware each variable is one register, so the CFG runs as a state machine
whose states are blocks.

If-conversion happens while blocks are built (:mod:`hls.ir.build`): an ``if``
whose branches hold no loop becomes predicated operations in the enclosing
block.  Values merged from branches become ``select`` operations; side effects
(``store``) carry a predicate; ``break``/``continue``/``return`` become
predicated :class:`Exit` records that route control when the block finishes.

Kinds of operation
------------------
``const``           ``attrs["value"]``
``live_in``         read variable ``attrs["var"]``
``commit``          write operand 0 into variable ``attrs["var"]`` (when ``predicate``)
``carry``           in a speculative pipelined body: operand 0 is variable ``attrs["var"]``
                    for the next iteration (its ``live_in`` reads the carry register)
``exit``            in a pipelined body: when operand 0 is 1, the loop stops and younger
                    iterations are squashed
``induction``       the iteration's value of a pipelined loop's counter
``load``            ``attrs["array"]``, operand 0 the (whole array's) index; ``attrs["bank"]``
                    the bank of a partitioned array (see :class:`ArrayLayout`)
``store``           ``attrs["array"]``, operands index and value; ``attrs["bank"]`` as for loads
``select``          operands cond, if-true, if-false
``wrap``            operand 0 converted to ``shape`` (assignment semantics)
``forward``         in a pipelined body: a load's data, or the previous iteration's store
binary              ``add sub mul floordiv mod shl shr and or xor lt le gt ge eq ne min max land lor``
unary               ``neg invert not bool abs``

Every kind has an entry in the operator table :mod:`hls.ir.ops`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from amaranth.hdl import Shape
from amaranth.utils import ceil_log2

from ..types import Partition
from .ops import OPERATORS, operator_of

__all__ = ["Op", "Exit", "Block", "PipelinedLoop", "LoopInfo", "KernelIR", "ArrayLayout", "BINARY_KINDS",
           "UNARY_KINDS", "SIDE_EFFECT_KINDS"]

#: The node standing for the kernel's end in :meth:`KernelIR.cfg`.
END = "end"

#: Kinds of the operators with an Amaranth lowering, by arity (from the operator table).
BINARY_KINDS = frozenset(kind for kind, entry in OPERATORS.items() if entry.lowering is not None and entry.arity == 2)
UNARY_KINDS = frozenset(kind for kind, entry in OPERATORS.items() if entry.lowering is not None and entry.arity == 1)
#: Operations whose effect outlives the block; they run only when their block (or iteration) is valid.
SIDE_EFFECT_KINDS = frozenset(("store", "commit"))


@dataclass(frozen=True)
class ArrayLayout:
    """Where an array's elements live: one memory, banks of memories, or registers.

    Every ``load``/``store`` of a partitioned array names its bank
    (``attrs["bank"]``) and keeps the whole array's index as its operand; the
    bank's address is a bit field of that index (:meth:`offset_bits`).

    Attributes
    ----------
    shape : Shape
        Element shape.
    depth : int
    partition : Partition or None
    local : bool
        Declared with ``hls.local`` (on-chip), not a parameter (ports of the component).
    """

    shape: Shape
    depth: int
    partition: Partition | None = None
    local: bool = False

    @property
    def banks(self) -> int:
        return 1 if self.partition is None else self.partition.banks(self.depth)

    @property
    def bank_depth(self) -> int:
        return self.depth if self.partition is None else self.partition.bank_depth(self.depth)

    @property
    def registers(self) -> bool:
        """A completely partitioned local array: one register per element, read without latency."""
        return self.local and self.partition is not None and self.partition.kind == "complete"

    @property
    def index_width(self) -> int:
        """Bits of the whole array's index."""
        return ceil_log2(self.depth)

    @property
    def bank_addr_width(self) -> int:
        return ceil_log2(self.bank_depth)

    def offset_bits(self) -> tuple[int, int]:
        """``(low, width)``: the bank address is ``index[low : low + width]``."""
        if self.partition is None:
            return 0, self.index_width
        if self.partition.kind == "cyclic":
            return ceil_log2(self.partition.factor), self.bank_addr_width
        return 0, self.bank_addr_width    # block (and complete, with no address bits)

    def bank_bits(self) -> tuple[int, int]:
        """``(low, width)``: the bank of an element is ``index[low : low + width]``."""
        if self.partition is None:
            return 0, 0
        if self.partition.kind == "cyclic":
            return 0, ceil_log2(self.partition.factor)
        if self.partition.kind == "block":
            return self.bank_addr_width, ceil_log2(self.partition.factor)
        return 0, self.index_width


@dataclass(eq=False)
class Op:
    """One operation and the value it produces.

    Attributes
    ----------
    name : str
        Unique within the kernel (``"add7"``); also the operation's name in the scheduling problem.
    kind : str
        See the module documentation.
    operands : list of Op
    shape : amaranth.hdl.Shape
        Shape of the result (``unsigned(0)`` for operations without one).
    predicate : Op or None
        A 1-bit value; the operation's side effect happens only when it is 1.
        ``None`` means always.  Pure operations are speculated and carry the
        predicate only to let exclusive memory accesses share a port.
    lines : tuple of int
        The user's source lines this operation comes from.
    attrs : dict
    text : str
        How reports name it: the user's source text of the expression, or the variable.
    operations : tuple of str
        The keys (``FILE:LINE:COL``, :attr:`hls.frontend.typed.Operation.key` or
        :attr:`hls.frontend.typed.ApproxSite.key`) of the source operations it computes: one,
        or several where value numbering made one operation of equal computations; ``()`` for
        an operation no unit may replace.  :func:`hls.ir.dead.dead_operations` reads them.
    """

    name: str
    kind: str
    operands: list["Op"]
    shape: Shape
    predicate: "Op | None" = None
    lines: tuple[int, ...] = ()
    attrs: dict = field(default_factory=dict)
    text: str = ""
    operations: tuple[str, ...] = ()

    def inputs(self) -> list["Op"]:
        """Operands followed by the predicate, if any: every value this operation reads."""
        return self.operands + ([self.predicate] if self.predicate is not None else [])

    def __repr__(self):
        args = ", ".join(o.name for o in self.operands)
        extra = "".join(f" {k}={v}" for k, v in self.attrs.items())
        pred = f" if {self.predicate.name}" if self.predicate is not None else ""
        return f"<{self.name} = {self.kind}({args}){extra}{pred} : {self.shape}>"


@dataclass
class Exit:
    """A predicated transfer of control taken when a block finishes.

    Attributes
    ----------
    condition : Op
        1-bit value; when 1 the block's successor is ``target`` instead of the default.
    kind : str
        ``"break"``, ``"continue"`` or ``"return"``.
    target : Block or PipelinedLoop or None
        Resolved when the enclosing loop (or the kernel end, ``None``) is known.
    lines : tuple of int
    """

    condition: Op
    kind: Literal["break", "continue", "return"]
    target: object = None
    lines: tuple[int, ...] = ()


@dataclass(eq=False)
class Block:
    """A hyperblock: straight-line predicated operations, then a transfer of control.

    Attributes
    ----------
    name : str
    ops : list of Op
        In a topological order (operands before users).
    exits : list of Exit
        Checked in order when the block finishes; mutually exclusive by construction.
    successor : Block or PipelinedLoop or None
        Where control goes when no exit is taken; ``None`` is the kernel's end.
    branch : tuple (Op, node, node) or None
        A two-way branch on a 1-bit value instead of ``successor`` (an ``if`` whose
        branches contain loops, or a loop header).
    """

    name: str
    ops: list[Op] = field(default_factory=list)
    exits: list[Exit] = field(default_factory=list)
    successor: object = None
    branch: tuple | None = None

    def successors(self) -> list:
        targets = [exit.target for exit in self.exits]
        if self.branch is not None:
            targets += [self.branch[1], self.branch[2]]
        else:
            targets.append(self.successor)
        return targets

    def live_ins(self) -> dict[str, Op]:
        return {op.attrs["var"]: op for op in self.ops if operator_of(op.kind).variable == "read"}

    def commits(self) -> dict[str, Op]:
        return {op.attrs["var"]: op for op in self.ops if operator_of(op.kind).category == "register"}

    def __repr__(self):
        return f"<Block {self.name}: {len(self.ops)} ops>"


@dataclass(eq=False)
class LoopInfo:
    """A loop of the source program, as a region of the CFG.

    Attributes
    ----------
    name : str
        ``"loop_<line>"`` from the line of its ``for``/``while``.
    line : int
    kind : str
        ``"for"`` or ``"while"``.
    mode : str
        The pragma: ``"auto"``, ``"pipeline"`` or ``"sequential"``.
    target_ii : int or None
    pipelined : bool
    trip_count : int or None
        Known only for constant ``range`` bounds.
    header, latch : Block or None
        For sequential loops: the block testing a ``while`` condition, and the
        block stepping a ``for`` counter and testing it for the next iteration
        (``for`` loops are rotated: the block before the loop tests the first).
    body : list of Block
        For sequential loops: the blocks of the body.
    depth : int
        Nesting depth, 0 for outermost.
    exit_block : Block or None
        Where control continues after the loop.
    reason : str
        Why the loop is not pipelined (empty when it is).
    flattened : tuple of int
        For the one pipelined loop a flattened nest became
        (:mod:`hls.frontend.flatten`): the lines of the nest's loops, outermost first.
    note : str
        For a flattened nest, what became of the code between its loops.
    """

    name: str
    line: int
    kind: str
    mode: str = "auto"
    target_ii: int | None = None
    pipelined: bool = False
    trip_count: int | None = None
    header: Block | None = None
    latch: Block | None = None
    body: list = field(default_factory=list)
    depth: int = 0
    exit_block: object = None
    reason: str = ""
    flattened: tuple = ()
    note: str = ""


@dataclass(eq=False)
class PipelinedLoop:
    """An innermost loop that runs as a modulo-scheduled pipeline.

    A ``for`` over ``range``: its body is one if-converted :class:`Block`; the
    ``induction`` operation in it is the iteration's counter value.  ``start``,
    ``stop`` are variables computed before the loop (latched run-time bounds);
    ``step`` is a non-zero constant.  A ``while`` has no counter (``counter_shape``
    and the variables are ``None``): its condition is an ``exit`` operation.

    ``exit_ops`` are the body's ``exit`` operations (``break``, a ``while``
    condition that fails); a loop with any is *speculative*.

    Attributes
    ----------
    name : str
    info : LoopInfo
    body : Block
    counter_shape : Shape
        Wide enough for every counter value including the one past the end.
    start_var, stop_var : str
    step : int
    successor : Block or PipelinedLoop or None
    """

    name: str
    info: LoopInfo
    body: Block
    counter_shape: Shape
    start_var: str
    stop_var: str
    step: int
    successor: object = None
    exit_ops: list = field(default_factory=list)
    #: The builder's value analysis (:class:`hls.analysis.values.ValueAnalysis`), which knows the counters.
    values: object = None
    #: The block that runs before the loop starts, whose commits set the loop's variables.
    preheader: object = None

    @property
    def kind(self) -> str:
        """``"for"`` (a counter over ``range``) or ``"while"``."""
        return self.info.kind

    @property
    def speculative(self) -> bool:
        """Whether iterations are started before the previous ones are known to continue."""
        return bool(self.exit_ops)

    @property
    def exits(self):
        return []

    def successors(self) -> list:
        return [self.successor]

    def __repr__(self):
        return f"<PipelinedLoop {self.name}>"


@dataclass
class KernelIR:
    """The whole kernel.

    Attributes
    ----------
    name : str
    filename : str
    source_lines : list of str
        The user's file, for quoting lines in reports.
    entry : Block or PipelinedLoop
    nodes : list
        Every block and pipelined loop, entry first.
    variables : dict of str to Shape
        Every variable (user locals, scalar parameters, hidden counters, return slots).
    scalar_params : list of (str, Shape)
    arrays : dict of str to (Shape, int)
        Element shape and depth of each array parameter, in parameter order.
    layouts : dict of str to ArrayLayout
        Every array, parameters and ``hls.local`` arrays, with its partition.
    return_vars : list of str
        Variables holding the results, in order.
    loops : list of LoopInfo
        In source order.
    streams : dict of str to (Shape, str)
        Token shape and direction (``"in"`` or ``"out"``) of each stream parameter, in
        parameter order.
    removed : list of Op
        The operations dead-code elimination (:func:`hls.ir.dead.eliminate_dead_code`) took out
        of the blocks, in program order: none of them reaches a result, an array parameter, a
        stream or the control; and the stores constant folding (:func:`hls.ir.fold.fold_constants`)
        removed: stores of 0 into banks that hold only 0, stores that never happen.  Only the value analysis (:attr:`PipelinedLoop.values`) still
        records counters on some of them; its users find counters through a block's operations
        (``counters_in``) or an access's operands, so they see only those kept.
    folded : list of Op
        The operations constant folding (:func:`hls.ir.fold.fold_constants`) rewrote in place
        into a constant or a conversion of one of their operands, each as it was before (a copy:
        its kind, operands and attributes), in the order folded.
    zero_arrays : dict of str to hls.ir.fold.ZeroArray
        The ``hls.local`` arrays whose reads constant folding made the constant 0 (never
        written, or written only with 0), by name.

    The compile target (clock, resource limits) is not part of the IR: it is
    given to :func:`hls.compiler.compile_kernel`.
    """

    name: str
    filename: str
    source_lines: list[str]
    entry: object
    nodes: list
    variables: dict[str, Shape]
    scalar_params: list[tuple[str, Shape]]
    arrays: dict[str, tuple[Shape, int]]
    return_vars: list[str]
    loops: list[LoopInfo]
    layouts: dict[str, ArrayLayout] = field(default_factory=dict)
    streams: dict[str, tuple[Shape, str]] = field(default_factory=dict)
    removed: list[Op] = field(default_factory=list)
    folded: list[Op] = field(default_factory=list)
    zero_arrays: dict = field(default_factory=dict)

    def layout(self, array: str) -> ArrayLayout:
        """The layout of ``array``; an unpartitioned parameter when the IR was built without layouts."""
        if array in self.layouts:
            return self.layouts[array]
        shape, depth = self.arrays[array]
        return ArrayLayout(shape, depth)

    def built_banks(self, array: str) -> list[int | None]:
        """The banks of ``array`` the back end builds (``[None]`` for an array that is not
        partitioned; an element's index for one held in registers): every bank of a parameter
        (its ports are the component's), and of an ``hls.local`` array those some operation
        reads or writes (dead-code elimination and constant folding may leave none)."""
        layout = self.layout(array)
        banks = [None] if layout.partition is None else list(range(layout.banks))
        if not layout.local:
            return banks
        accessed = {op.attrs.get("bank") for block in self.blocks() for op in block.ops
                    if operator_of(op.kind).category == "memory" and op.attrs["array"] == array}
        return [bank for bank in banks if bank in accessed]

    def blocks(self) -> list[Block]:
        """Every block, including the bodies of pipelined loops."""
        out = []
        for node in self.nodes:
            out.append(node.body if isinstance(node, PipelinedLoop) else node)
        return out

    def cfg(self):
        """The control-flow graph as a ``networkx.DiGraph`` over nodes; :data:`END` is the kernel's end."""
        import networkx as nx   # heavy to import, and only these graph views use it
        graph = nx.DiGraph()
        for node in self.nodes:
            graph.add_node(node)
            for succ in node.successors():
                graph.add_edge(node, END if succ is None else succ)
        return graph

    def dfg(self, block: Block):
        """The data-flow graph of one block as a ``networkx.DiGraph`` over its operations."""
        import networkx as nx   # heavy to import, and only these graph views use it
        graph = nx.DiGraph()
        for op in block.ops:
            graph.add_node(op)
            for src in op.inputs():
                graph.add_edge(src, op)
        return graph

    def source_line(self, line: int) -> str:
        if 1 <= line <= len(self.source_lines):
            return self.source_lines[line - 1].strip()
        return ""
