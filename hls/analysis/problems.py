"""Scheduling problems for the blocks of the IR.

One :class:`~hls.schedule.problem.Problem` per block: the body of a pipelined
loop becomes a cyclic problem with loop-carried dependences, any other block
an acyclic one (run once per visit).

Operator types
--------------
* ``wire`` (constants, variable reads, wraps): latency 0, no delay;
* ``reg`` (``commit``, the write of a variable's register): latency 1;
* ``read:A`` / ``write:A``: the ports of array ``A``, latency 1 (block RAM),
  ``limit`` 1 each by default (simple dual-port RAM);
* ``<kind><width>``: combinational operators with the delay of
  :func:`hls.delay_model.operator_delay`; an operator slower than the clock
  period gets ``ceil(delay / period)`` cycles of latency;
* a kind named in the kernel's ``resources`` (``"mul"``, ``"floordiv"``,
  ``"mod"``, ...) becomes one shared operator type with that ``limit``.

Dependences
-----------
* data: operand -> user, distance 0; the predicate of a store, or of an
  operation on a limited operator, -> that operation (its port or instance
  is chosen by the predicate);
* variables: ``live_in(v) -> commit(v)`` at distance 0 (the register is read
  before it is overwritten) and, in a pipelined body, ``commit(v) -> live_in(v)``
  at distance 1: the recurrence through ``v``.  In a pipelined body the
  recurrence goes through ``carry(v)`` instead (latency 0: a register with a
  bypass, so a recurrence through a one-cycle memory read still reaches II 1),
  and every ``exit`` precedes every store and commit of the next iteration
  (distance 1, kind ``exit``): a squash must come before anything younger
  becomes visible;
* memory: from :func:`hls.analysis.memdep.memory_dependences`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ..delay_model import MEMORY_CLOCK_TO_OUT, MEMORY_SETUP, REGISTER_SETUP, operator_delay
from ..ir.nodes import Block, Op, PipelinedLoop
from ..schedule.problem import Dependence, Operation, OperatorType, Problem
from .forwarding import forwarded_pairs
from .memdep import memory_dependences
from .predicates import exclusive

__all__ = ["BlockProblem", "build_problem", "usable_period"]

_FREE = frozenset(("const", "live_in", "induction", "wrap"))

#: Resource names a kernel may limit with ``resources=``, and the IR kinds they cover.
LIMITABLE = {"mul": ("mul",), "div": ("floordiv", "mod"), "floordiv": ("floordiv",), "mod": ("mod",)}


def usable_period(clock_mhz: float) -> float:
    """Clock period in ns available to logic between two registers."""
    return 1000.0 / clock_mhz - REGISTER_SETUP


@dataclass
class BlockProblem:
    """A block's scheduling problem and what the back end needs to read the schedule.

    Attributes
    ----------
    problem : Problem
    block : Block
    pipelined : bool
    ops : dict of str to Op
    slow_ops : list of Op
        Operations slower than one clock period (given multi-cycle latency).
    """

    problem: Problem
    block: Block
    pipelined: bool
    ops: dict[str, Op] = field(default_factory=dict)
    slow_ops: list[Op] = field(default_factory=list)


def _describe(op: Op, limited: str | None) -> str:
    if limited:
        return f"{limited} unit"
    return "store-to-load forwarding" if op.kind == "forward" else ""


def _operator_type(op: Op, period: float, resources: dict[str, int], array_ports: dict) -> OperatorType:
    if op.kind in _FREE:
        return OperatorType("wire")
    if op.kind == "commit":
        return OperatorType("reg", latency=1, description="variable register")
    if op.kind == "carry":
        # A register with a bypass multiplexer: the next iteration may chain on the value.
        # The multiplexer (one LUT) exists only when the schedule chains across iterations;
        # it is left out of the model rather than charged to every recurrence.
        return OperatorType("carry", description="loop-carried value")
    if op.kind == "exit":
        return OperatorType("exit", latency=1, description="loop exit")
    if op.kind == "load" and op.attrs.get("first_iteration_only"):
        return OperatorType(f"first-read:{op.attrs['array']}", latency=1, incoming_delay=MEMORY_SETUP,
                            outgoing_delay=MEMORY_CLOCK_TO_OUT,
                            description=f"first-iteration read of `{op.attrs['array']}`")
    if op.kind in ("load", "store"):
        array = op.attrs["array"]
        direction = "read" if op.kind == "load" else "write"
        return OperatorType(f"{direction}:{array}", latency=1, incoming_delay=MEMORY_SETUP,
                            outgoing_delay=MEMORY_CLOCK_TO_OUT if op.kind == "load" else 0.0,
                            limit=array_ports.get(direction, 1), description=f"{direction} port of `{array}`")
    limited = next((name for name, kinds in LIMITABLE.items() if op.kind in kinds and name in resources), None)
    if op.kind == "forward":
        # Compare the load's address with each forwarded store's, then a multiplexer per store.
        address = op.operands[1].shape.width
        delay = operator_delay("eq", 1, (address, address)) + operator_delay("select", op.shape.width) * len(
            op.attrs["stores"])
        name = f"forward{len(op.attrs['stores'])}x{op.shape.width}"
    else:
        widths = tuple(operand.shape.width for operand in op.operands)
        if op.kind in ("shl", "shr") and op.operands[1].kind == "const":
            widths = (widths[0], 0)
        constants = [operand.attrs["value"] for operand in op.operands if operand.kind == "const"]
        if op.kind == "mul" and constants and limited is None:
            # Synthesis turns a multiplication by a constant into shifts and one adder per extra
            # set bit of the constant (3 * x is x + (x << 1)).
            adders = max(bin(abs(constants[0])).count("1") - 1, 0)
            delay = adders * operator_delay("add", op.shape.width, (op.shape.width,))
        else:
            delay = operator_delay(op.kind, op.shape.width, widths)
        name = limited if limited is not None else f"{op.kind}{op.shape.width}"
    if delay <= period:
        optype = OperatorType(name, incoming_delay=delay, limit=resources.get(limited) if limited else None,
                              description=_describe(op, limited))
    else:
        latency = math.ceil(delay / period)
        optype = OperatorType(name, latency=latency, incoming_delay=delay - (latency - 1) * period,
                              limit=resources.get(limited) if limited else None,
                              description=_describe(op, limited))
    return optype


def build_problem(block: Block, clock_mhz: float, resources: dict[str, int], *,
                  loop: PipelinedLoop | None = None) -> BlockProblem:
    """The scheduling problem of ``block``; cyclic when ``loop`` is the pipelined loop it is the body of."""
    period = usable_period(clock_mhz)
    problem = Problem(period, name=loop.name if loop is not None else block.name)
    result = BlockProblem(problem, block, loop is not None)
    type_of = {op: _operator_type(op, period, resources, {}) for op in block.ops}
    for optype in type_of.values():
        previous = problem.operator_types.get(optype.name)
        # A shared (limited) type serves several widths: size it for the slowest.
        if previous is None or (optype.latency, optype.incoming_delay) > (previous.latency, previous.incoming_delay):
            problem.operator_types[optype.name] = optype
    for op in block.ops:
        problem.add_operation(Operation(op.name, type_of[op].name, op.lines, op.text))
        result.ops[op.name] = op
        if problem.operator_type_of(op.name).latency >= 1 and op.kind not in ("load", "store", "commit", "carry", "exit"):
            result.slow_ops.append(op)
    for op in block.ops:
        for operand in op.operands:
            problem.add_dependence(Dependence(operand.name, op.name, 0, "data"))
        if op.predicate is not None and (op.kind in ("store", "commit") or problem.operator_type_of(op.name).limit):
            problem.add_dependence(Dependence(op.predicate.name, op.name, 0, "control"))
    live_ins, commits = block.live_ins(), block.commits()
    carries = {op.attrs["var"]: op for op in block.ops if op.kind == "carry"}
    if loop is not None:
        # The next iteration reads the carried value; the variable's own register is only
        # written by iterations that survive, after every exit that could squash them.
        for var, carry in carries.items():
            problem.add_dependence(Dependence(live_ins[var].name, carry.name, 0, "data"))
            problem.add_dependence(Dependence(carry.name, live_ins[var].name, 1, "data"))
        effects = [op for op in block.ops if op.kind in ("store", "commit")]
        for exit in loop.exit_ops:
            for effect in effects:
                problem.add_dependence(Dependence(exit.name, effect.name, 1, "exit"))
    else:
        for var, commit in commits.items():
            if var in live_ins:
                problem.add_dependence(Dependence(live_ins[var].name, commit.name, 0, "data"))
                if loop is not None:
                    problem.add_dependence(Dependence(commit.name, live_ins[var].name, 1, "data"))
    forwarded = forwarded_pairs(block)
    for dep in memory_dependences(block, loop_step=(loop.step or 1) if loop else None,
                                  trip_count=loop.info.trip_count if loop else None):
        distance = dep.distance
        if distance >= 1 and dep.dst.attrs.get("first_iteration_only"):
            continue    # it reads the memory only before any older iteration exists
        if distance == 1 and (dep.src, dep.dst) in forwarded:
            distance = 2    # the previous iteration's store is forwarded; the one before must be in memory
        problem.add_dependence(Dependence(dep.src.name, dep.dst.name, distance, "memory"))
    for first in [op for op in block.ops if op.kind == "load" and op.attrs.get("first_iteration_only")]:
        # In the first iteration it uses the read port: before any other read of the array.
        for other in block.ops:
            if other.kind == "load" and other is not first and other.attrs["array"] == first.attrs["array"]:
                problem.add_dependence(Dependence(first.name, other.name, 0, "memory"))
    for op in block.ops:
        if op.kind == "forward":
            for store in op.attrs["stores"]:
                for source in store.inputs():
                    problem.add_dependence(Dependence(source.name, op.name, 1, "memory"))
    limited = [op for op in block.ops if problem.operator_type_of(op.name).limit]
    for i, a in enumerate(limited):
        for b in limited[i + 1:]:
            if problem.operations[a.name].operator_type == problem.operations[b.name].operator_type \
                    and exclusive(a, b):
                problem.add_exclusion(a.name, b.name)
    return result
