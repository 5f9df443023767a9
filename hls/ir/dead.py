"""Dead-code elimination: the operations that reach nothing the kernel leaves behind, removed.

The IR builder lowers every statement of the kernel, whether or not its value is ever
used.  Synthesis would delete such logic afterwards, but the compiler schedules what it
is given: a dead recurrence can raise a loop's II, a dead read can take a memory port,
a dead division lengthens a schedule, and the report's operator counts and the delay
model's critical path would describe logic that is not built.  :func:`eliminate_dead_code`
runs on the IR :func:`hls.ir.build.build_ir` makes (:func:`hls.compiler.lower`), and again
after each round of constant folding (:mod:`hls.ir.fold`) that changed something, so that
every later pass (forwarding, schedules, reports, the back end) sees only the rest.

It is a mark and sweep over the whole kernel to a fixed point, every rule read from the
operator table (:mod:`hls.ir.ops`):

* kept from the start (the roots): every operation the table calls
  :attr:`~hls.ir.ops.Operator.observable` (a stream's read or write, a loop's ``exit``),
  every write to an array parameter (its memory is outside the component), the conditions
  of every block's exits and branch, and the writes of the variables that are always live:
  the return slots and the bounds of each pipelined loop's counter;
* a kept operation keeps its operands, its predicate and the operations its entry's
  :attr:`~hls.ir.ops.Operator.reads_operations` names;
* a kept read of a variable (``live_in``) makes the variable live, and a live variable
  keeps every ``commit`` of it, in every block; in a pipelined body the kept read also keeps
  the body's ``carry`` of the variable (the value the next iteration reads there), which
  nothing else keeps: a carry whose body no longer reads its variable goes, though the
  variable is live after the loop;
* a kept read of an ``hls.local`` array (a ``load``) keeps every write of that array.

Everything else is removed from its block.  Reads of array parameters have no side effect
(a read cannot fault) and go when their value is dead.  Variables and arrays stay declared:
a variable that lost its writes is a register nothing writes, an array that lost its
accesses a memory nothing uses, and synthesis removes both.  Which variables are live is
decided for the whole kernel, not per program point: a write whose value is overwritten
before any read stays when the variable is read somewhere.
"""

from __future__ import annotations

from .nodes import KernelIR, Op, PipelinedLoop
from .ops import operator_of

__all__ = ["eliminate_dead_code", "dead_operations"]


def eliminate_dead_code(ir: KernelIR) -> list[Op]:
    """Remove from ``ir``'s blocks every operation that reaches no output (see the module
    documentation), and add them to ``ir.removed``.

    Returns
    -------
    list of Op
        The operations removed, in program order.
    """
    blocks = ir.blocks()
    writes_of_variable: dict[str, list[Op]] = {}
    writes_of_array: dict[str, list[Op]] = {}
    #: (block, variable) -> the block's carry of it, the value its next iteration reads.
    carries: dict[tuple[int, str], Op] = {}
    block_of: dict[Op, int] = {}
    live: set[Op] = set()
    pending: list[Op] = []

    def keep(op):
        if op not in live:
            live.add(op)
            pending.append(op)

    for index, block in enumerate(blocks):
        for op in block.ops:
            block_of[op] = index
            entry = operator_of(op.kind)
            if entry.category == "carry":
                carries[index, op.attrs["var"]] = op
            elif entry.variable == "write":
                writes_of_variable.setdefault(op.attrs["var"], []).append(op)
            elif entry.writes_memory:
                writes_of_array.setdefault(op.attrs["array"], []).append(op)
            if entry.observable:
                keep(op)
    for node in ir.nodes:
        # A pipelined loop's exits are `exit` operations of its body, observable above.
        if isinstance(node, PipelinedLoop):
            continue
        for exit in node.exits:
            keep(exit.condition)
        if node.branch is not None:
            keep(node.branch[0])

    live_variables: set[str] = set()
    read_arrays: set[str] = set()

    def variable_live(var):
        if var not in live_variables:
            live_variables.add(var)
            for op in writes_of_variable.get(var, ()):
                keep(op)

    def array_read(array):
        if array not in read_arrays:
            read_arrays.add(array)
            for op in writes_of_array.get(array, ()):
                keep(op)

    for var in ir.return_vars:
        variable_live(var)
    for node in ir.nodes:
        if isinstance(node, PipelinedLoop) and node.kind == "for":
            variable_live(node.start_var)
            variable_live(node.stop_var)
    # An array parameter's memory is outside the component: whatever is written there is read.
    for array in ir.arrays:         # the parameters only (hls.local arrays are in ir.layouts)
        array_read(array)

    while pending:
        op = pending.pop()
        entry = operator_of(op.kind)
        for source in op.inputs():
            keep(source)
        if entry.reads_operations is not None:
            for source in op.attrs[entry.reads_operations]:
                keep(source)
        if entry.variable == "read":
            variable_live(op.attrs["var"])
            # In a pipelined body, the read of the iterations after the first is the carry.
            carry = carries.get((block_of[op], op.attrs["var"]))
            if carry is not None:
                keep(carry)
        if entry.reads_memory:
            array_read(op.attrs["array"])

    removed = []
    for block in blocks:
        removed += [op for op in block.ops if op not in live]
        block.ops = [op for op in block.ops if op in live]
    ir.removed.extend(removed)
    return removed


def dead_operations(ir: KernelIR) -> set[str]:
    """The keys (:attr:`~hls.ir.nodes.Op.operations`) of the source operations of which
    :func:`eliminate_dead_code` removed every copy: no hardware computes them.

    An operation is copied by unrolling and by a helper inlined twice, and one copy's result
    may be used where another's is not; it is dead only when no copy is left in a block.  Where
    value numbering made one operation of it and an equal computation that is used, it is not
    dead (the one operation is built).
    """
    removed = {key for op in ir.removed for key in op.operations}
    kept = {key for block in ir.blocks() for op in block.ops for key in op.operations}
    return removed - kept
