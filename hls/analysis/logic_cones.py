"""LUT depth of bitwise logic: what synthesis makes of a chain of ``&``, ``|``, ``^``, selects and constant shifts.

Synthesis does not build bitwise logic operator by operator: it maps each output bit of a
combinational cone to LUT4s over the cone's input bits, so eight chained selects of a CRC-8
byte step (``crc = ((crc << 1) ^ 0x07) & 0xFF if crc & 0x80 else (crc << 1) & 0xFF``) become,
per bit, one function of at most 16 inputs: two LUT levels, not the eight selects, eight ANDs
and eight reductions that an operator-by-operator sum charges.

This module follows every bit of a block's bitwise operations (the operator table's
:attr:`hls.ir.ops.Operator.bits` transfer functions) back to the *sources* it depends on: the
bits of operations that are not bitwise (an adder's sum, a read port, a variable's register, a
loop counter).  A bit is a constant (``0``/``1``), a plain wire of one source bit (a
``(name, index)`` pair: a constant shift, a mask, a truncation) or a function of a set of source
bits (a ``frozenset`` of such pairs).  A function of ``n`` source bits is ``max(1,
ceil(log4 n))`` LUT4 levels deep (:func:`levels`), a wire or a constant none.

:func:`cone_levels` gives each bitwise operation the LUT levels of its deepest output bit and
its *increment*: its levels less the deepest of its bitwise operands'.  Charged as each
operation's delay (``increment`` times :attr:`approx_units.devices.DelayModel.cone_level`),
the delays along any chain add up to the levels of the chain's end.  That holds while the
chain is one combinational cone; where a schedule registers a bit inside it, the logic after
the register is a cone of its own, whose depth the global increments may understate:
:func:`schedule_respects_cones` recomputes the cones cut at the schedule's cycle boundaries
and tells the compiler whether the schedule's timing still holds (where it does not, the
block is scheduled again operator by operator).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..ir.ops import operator_of

__all__ = ["levels", "ConeLevels", "cone_levels", "schedule_respects_cones"]


def levels(bit) -> int:
    """LUT4 levels of one bit: 0 for a constant or a wire, else ``max(1, ceil(log4 n))``
    over its ``n`` source bits."""
    if not isinstance(bit, frozenset):
        return 0
    return max(1, math.ceil(math.log(max(1, len(bit)), 4) - 1e-9))


@dataclass(frozen=True)
class ConeLevels:
    """LUT levels of the bitwise operations of one block.

    Attributes
    ----------
    depth : dict of str to int
        Operation name -> LUT levels of its deepest output bit (only bitwise operations).
    increment : dict of str to int
        Operation name -> ``depth`` less the deepest of its bitwise operands' (at least 0):
        the LUT levels this operation adds to a chain.
    """

    depth: dict
    increment: dict


def _source(op) -> tuple:
    # The bits of an operation that is not bitwise: a wire of each of its own bits.
    return tuple((op.name, index) for index in range(op.shape.width))


def _bits_of(ops, registered=frozenset()) -> tuple[dict, dict]:
    """Bits of every operation of ``ops`` (in order), and the names of the bitwise ones; an
    operand in ``registered`` (a set of ``(user, operand)`` name pairs) is read from a
    register by that user, so its bits are sources there."""
    bits, bitwise = {}, {}
    for op in ops:
        entry = operator_of(op.kind)
        result = None
        if entry.bits is not None and all(operand.name in bits for operand in op.operands):
            # A register holds a constant bit as a constant (synthesis folds it).
            operands = [tuple(bit if isinstance(bit, int) else (operand.name, index)
                              for index, bit in enumerate(bits[operand.name]))
                        if (op.name, operand.name) in registered else bits[operand.name]
                        for operand in op.operands]
            result = entry.bits(op, *operands)
        if result is None:
            bits[op.name] = _source(op)
        else:
            bits[op.name] = tuple(result)
            bitwise[op.name] = op
    return bits, bitwise


def _depths(bits, bitwise, registered=frozenset()) -> tuple[dict, dict]:
    depth = {name: max((levels(bit) for bit in bits[name]), default=0) for name in bitwise}
    increment = {}
    for name, op in bitwise.items():
        below = max((depth[operand.name] for operand in op.operands
                     if operand.name in bitwise and (name, operand.name) not in registered), default=0)
        increment[name] = max(0, depth[name] - below)
    return depth, increment


def cone_levels(block) -> ConeLevels:
    """The LUT levels of every bitwise operation of ``block`` (its ``ops`` in dependence order),
    with every cone running back to the block's non-bitwise operations."""
    bits, bitwise = _bits_of(block.ops)
    depth, increment = _depths(bits, bitwise)
    return ConeLevels(depth, increment)


def schedule_respects_cones(block, problem, schedule, level_ns: float, epsilon: float = 1e-6) -> bool:
    """Whether ``schedule`` of ``problem`` (the block's problem, its bitwise operations timed by
    :func:`cone_levels`) leaves each bitwise result no later than its cone, cut at the
    schedule's registers, makes it.

    An operand scheduled to be ready in an earlier cycle than its user starts is read from a
    register: its bits are sources of the user's cone.  Each bitwise operation's result is
    then ready at the latest arrival of its operands in its cycle plus ``level_ns`` per LUT
    level it adds to them; the schedule holds when that is never after the time the schedule
    gave (its start offset plus its operator type's delay).
    """
    registered = set()
    for op in block.ops:
        for operand in op.operands:
            if operand.name in schedule.start and op.name in schedule.start:
                cycle, _ = schedule.ready(problem, operand.name)
                if cycle < schedule.start[op.name]:
                    registered.add((op.name, operand.name))
    bits, bitwise = _bits_of(block.ops, frozenset(registered))
    depth, increment = _depths(bits, bitwise, frozenset(registered))
    arrival = {}
    for name, op in bitwise.items():
        cycle = schedule.start[name]
        start = 0.0
        for operand in op.operands:
            if (name, operand.name) in registered:
                continue
            ready_cycle, ready_offset = schedule.ready(problem, operand.name)
            if ready_cycle == cycle:
                start = max(start, arrival.get(operand.name, ready_offset))
        arrival[name] = start + level_ns * increment[name]
        scheduled = schedule.offset(name) + problem.operator_type_of(name).incoming_delay
        if arrival[name] > scheduled + epsilon:
            return False
    return True
