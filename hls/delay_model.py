"""Per-operator combinational delays for Lattice ECP5, used to chain operations.

The scheduler chains combinational operators within one clock period
(:mod:`hls.schedule.problem`); it needs, for every operator of the IR, the
delay in nanoseconds from its inputs to its result.  This module is the one
place those numbers live.

Where the numbers come from
---------------------------
They are **estimates** for an ECP5-25 at speed grade 6 built with
``synth_ecp5 -nodsp -nowidelut`` and nextpnr-ecp5, not a fit:

* a LUT4 level plus local routing costs about 0.5 ns (``LUT``);
* a ripple-carry adder uses the CCU2C carry chain: about 0.9 ns to enter and
  leave the chain plus about 0.05 ns per bit (``CARRY_BASE``, ``CARRY_PER_BIT``),
  so a 32-bit add is about 2.5 ns;
* comparisons are subtractions on the carry chain;
* a multiplier built from LUTs (no DSP) is an array of adders: roughly
  ``log2(width)`` carry chains deep, about 0.9 ns each plus routing; a 16x16
  multiply comes to about 7 ns, which fits a 100 MHz clock but does not chain;
* a divider or modulo of width ``w`` is ``w`` subtract-and-select rows, each a
  carry chain, so it is far longer than one cycle at any useful width;
* a synchronous block-RAM read has its address at the input register
  (``MEMORY_SETUP``) and data out of the port after ``MEMORY_CLOCK_TO_OUT``.

Delays are kept below the clock period when they fit and are reported as
they are otherwise: an operation whose delay exceeds the period makes
chaining impossible and the report lists it under ``"timing"``.
"""

from __future__ import annotations

import math

from amaranth.hdl import Shape

__all__ = ["operator_delay", "LUT", "CARRY_BASE", "CARRY_PER_BIT", "MEMORY_SETUP", "MEMORY_CLOCK_TO_OUT",
           "REGISTER_SETUP"]

#: One LUT4 level plus local routing, in ns.
LUT = 0.5
#: Entering and leaving a CCU2C carry chain, in ns.
CARRY_BASE = 0.9
#: Carry propagation per bit (two bits per CCU2C slice), in ns.
CARRY_PER_BIT = 0.05
#: Logic in front of a block RAM's address/data registers, in ns.
MEMORY_SETUP = 0.6
#: Block RAM clock-to-output, in ns.
MEMORY_CLOCK_TO_OUT = 2.0
#: Flip-flop clock-to-out plus setup, in ns; reserved out of every period.
REGISTER_SETUP = 0.6


def _carry(width: int) -> float:
    return CARRY_BASE + CARRY_PER_BIT * max(1, width)


def operator_delay(kind: str, width: int, operand_widths: tuple[int, ...] = ()) -> float:
    """Combinational delay of one operator, in nanoseconds.

    Parameters
    ----------
    kind : str
        The IR operation kind (``"add"``, ``"mul"``, ``"lt"``, ``"select"``, ...).
    width : int
        Width of the result in bits.
    operand_widths : tuple of int
        Widths of the operands, where they matter (multipliers, dividers, shifts).

    Raises
    ------
    ValueError
        For an unknown ``kind``.
    """
    widest = max((width, *operand_widths), default=width)
    if kind in ("const", "live_in", "induction", "wrap", "commit", "cast"):
        return 0.0
    if kind in ("add", "sub", "neg", "abs"):
        return _carry(widest) + (LUT if kind == "abs" else 0.0)
    if kind in ("lt", "le", "gt", "ge", "min", "max"):
        # A subtraction on the carry chain; min/max add the select behind it.
        return _carry(widest) + (LUT if kind in ("min", "max") else 0.0)
    if kind in ("eq", "ne", "bool", "not"):
        # A reduction tree of LUT4s: log4(width) levels.
        return LUT * max(1, math.ceil(math.log(max(2, widest), 4)))
    if kind in ("and", "or", "xor", "invert", "land", "lor", "select"):
        return LUT
    if kind in ("shl", "shr"):
        # Constant shifts are wires; variable shifts are a barrel shifter of
        # log2(width) mux levels (the front end passes operand widths).
        if len(operand_widths) == 2 and operand_widths[1] == 0:
            return 0.0
        return LUT * max(1, math.ceil(math.log2(max(2, widest))))
    if kind == "mul":
        a, b = (operand_widths + (width, width))[:2]
        narrow = max(1, min(a, b))
        return _carry(a + b) * max(1, math.ceil(math.log2(narrow + 1))) + LUT
    if kind in ("floordiv", "mod"):
        a = operand_widths[0] if operand_widths else width
        return (_carry(widest) + LUT) * max(1, a)
    raise ValueError(f"no delay model for operator kind {kind!r}")
