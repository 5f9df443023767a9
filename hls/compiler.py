"""The compiler driver: typed kernel -> IR -> one schedule per block -> Amaranth component.

:func:`compile_kernel` is what ``Kernel.to_amaranth()``, ``to_verilog()`` and
``report()`` call.  Every schedule it uses is checked by the independent
verifier :func:`hls.schedule.verify` before any hardware is built from it.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

from amaranth.back import verilog as amaranth_verilog

from .analysis.forwarding import insert_forwarding
from .analysis.overlap import overlap_runs
from .analysis.block_problems import BlockProblem, build_problem
from .analysis.logic_cones import schedule_respects_cones
from .backend.component import KernelComponent
from .errors import KernelSyntaxError
from .frontend import shape_of
from .frontend.flatten import flatten_nests
from .ir import KernelIR, PipelinedLoop, UnsupportedConstruct, build_ir, eliminate_dead_code, fold_constants
from .report import build_report
from .schedule import Schedule, minimum_ii, schedule, schedule_sequential, verify
from .schedule.mii import MIIBound
from .target import Target

__all__ = ["compile_kernel", "CompiledKernel", "BlockSchedule"]


@dataclass
class BlockSchedule:
    """The schedule of one block and what it was derived from.

    Attributes
    ----------
    problem : BlockProblem
    schedule : Schedule
    length : int
        Cycles from the block's (or iteration's) first cycle to the cycle after
        its last side effect: the depth of a pipelined body, the number of
        cycles a block run once takes.
    bound : MIIBound or None
        For a pipelined body, its minimum II and what imposes it.
    target_ii : int or None
        The II the user asked for with ``hls.pipeline(..., ii=k)``.
    """

    problem: BlockProblem
    schedule: Schedule
    length: int
    bound: MIIBound | None = None
    target_ii: int | None = None

    @property
    def ii(self) -> int:
        return self.schedule.ii

    @property
    def start(self) -> dict[str, int]:
        return self.schedule.start


def _length(problem, sched) -> int:
    # The schedule's one definition of depth: from cycle 0 to the cycle after the last result.
    return sched.depth(problem)


@dataclass
class CompiledKernel:
    """A compiled kernel.

    Attributes
    ----------
    ir : KernelIR
    target : Target
        What it was compiled for.
    schedules : dict of int to BlockSchedule
        Keyed by ``id(block)``.
    report : hls.report.Report
    compile_seconds : float
    approximations : list of hls.frontend.typed.ApproxSite
        The operations approximate units were asked for (``hls.approx``, ``approx=``).
    overlaps : dict of str to hls.analysis.overlap.Overlap
        For every pipelined loop nested in another loop, by loop name: how many
        cycles before its drain completes it passes control on (0: its runs are
        sequential, and why).
    narrowing : bool
        Registers take the widths the value analysis proves (:mod:`hls.analysis.registers`).
    """

    ir: KernelIR
    target: Target = field(default_factory=Target)
    schedules: dict[int, BlockSchedule] = field(default_factory=dict)
    report: object = None
    compile_seconds: float = 0.0
    approximations: list = field(default_factory=list)
    overlaps: dict = field(default_factory=dict)
    narrowing: bool = True

    def schedule_of(self, block) -> BlockSchedule:
        return self.schedules[id(block)]

    def component(self):
        """A fresh ``wiring.Component`` implementing the kernel."""
        return KernelComponent(self)

    def verilog(self, name: str | None = None) -> str:
        """The kernel as Verilog text (module ``name``, default the kernel's name)."""
        component = self.component()
        return amaranth_verilog.convert(component, name=name or self.ir.name, emit_src=False)


def _syntax_error(ir_error: UnsupportedConstruct, filename: str):
    node = ir_error.node
    return KernelSyntaxError(filename, getattr(node, "lineno", 0), getattr(node, "col_offset", 0) + 1,
                             ir_error.message, ir_error.hint or None)


def lower(kernel, *, pipelining: bool = True) -> KernelIR:
    """The IR of ``kernel`` (an ``hls.Kernel``), without its dead code (:mod:`hls.ir.dead`) and
    with its constants folded (:mod:`hls.ir.fold`): every pass after this one sees only the
    operations that reach an output, and no logic whose value is known.

    Raises
    ------
    hls.errors.KernelSyntaxError
        For constructs outside the language, from the front end or the lowering.
    """
    # The kernel's own analysis, made once: analysing again would repeat its warnings.
    typed = kernel.analyze()
    if pipelining:
        # Loop nests become one pipelined loop; the golden model keeps the user's own nest.
        typed = flatten_nests(typed)
    try:
        ir = build_ir(typed, shape_of, pipelining=pipelining)
    except UnsupportedConstruct as error:
        raise _syntax_error(error, typed.filename) from None
    eliminate_dead_code(ir)
    # Reads of local arrays that hold only 0 become 0, and what follows from them folds; the
    # operations that fed them are then dead, and a store removed may leave an array unwritten.
    while fold_constants(ir):
        eliminate_dead_code(ir)
    return ir


def compile_kernel(kernel, *, target: Target | None = None, pipelining: bool = True,
                   overlap: bool = True, retarget: bool = True, narrowing: bool = True) -> CompiledKernel:
    """Compile an ``@hls.kernel``: schedule every block and loop, ready to build hardware.

    Parameters
    ----------
    kernel : hls.Kernel
    target : hls.Target or None
        What to compile for; ``None`` is the kernel's own target (from
        ``@hls.kernel(clock_mhz=..., resources=...)`` or ``target=``).  One
        kernel compiles for any number of targets.
    pipelining : bool
        ``False`` runs every loop as a sequential state machine, as a baseline to
        compare pipelined schedules with.
    overlap : bool
        ``False`` lets every run of an inner pipelined loop drain before the code
        after it starts, even where :mod:`hls.analysis.overlap` proves that the
        next run may start during the drain (a baseline for the overlap).
    retarget : bool
        Where the kernel cannot reach the target's clock, build the design of fewest
        microseconds among those for lower clocks (:func:`_fastest_reachable`; the report's
        ``requested_clock_mhz`` and ``timing`` say so).  ``False`` builds for the target's
        clock regardless, as the clock sweep does to check the claims of deep pipelines.
    narrowing : bool
        ``False`` gives every pipeline register its operation's shape and every carried
        variable a register of its own, instead of the widths the value analysis proves
        (:mod:`hls.analysis.registers`): the baseline of ``benchmarks/register_bits.py``.

    Returns
    -------
    CompiledKernel
        ``.component()`` elaborates a fresh Amaranth component, ``.verilog()``
        emits Verilog, ``.report`` describes the schedule of every loop.

    Raises
    ------
    hls.errors.KernelSyntaxError
        For constructs outside the language.
    TypeError
        If ``target`` is not an :class:`hls.Target`.
    """
    if target is None:
        target = kernel.target
    if not isinstance(target, Target):
        raise TypeError(f"target must be an hls.Target, not {target!r}")
    compiled = _compile_for(kernel, target, pipelining, overlap)
    compiled = _fastest_reachable(kernel, compiled, pipelining, overlap) if retarget else compiled
    compiled.narrowing = narrowing
    return compiled


#: When a kernel cannot reach the clock asked for, the clocks tried step down from its claim by
#: this factor, :data:`RETARGET_STEPS` times at most.  A slower clock can chain a recurrence into
#: fewer cycles (fir's multiply-accumulate: II 2 for 121.9 MHz, II 1 for 120), so the fastest
#: design may lie well below the claim.
RETARGET_STEP = 0.96
RETARGET_COARSE_STEP = 0.92
RETARGET_STEPS = 16
RETARGET_BISECTIONS = 5


def _compile_for(kernel, target: Target, pipelining: bool, overlap: bool) -> CompiledKernel:
    began = time.perf_counter()
    ir = lower(kernel, pipelining=pipelining)
    compiled = CompiledKernel(ir, target, approximations=list(kernel.analyze().approximations))
    for node in ir.nodes:
        if isinstance(node, PipelinedLoop):
            compiled.schedules[id(node.body)] = _schedule_loop(target, node)
        elif node.ops:
            compiled.schedules[id(node)] = _schedule_block(target, node)
    compiled.overlaps = overlap_runs(ir, compiled.schedule_of, enabled=overlap)
    compiled.compile_seconds = time.perf_counter() - began
    compiled.report = build_report(compiled)
    return compiled


def cycles_per_pass(compiled: CompiledKernel) -> int:
    """Cycles of one pass through the kernel with every loop taken once: each pipelined
    loop's II plus each block's length.  Trip counts are unknown at compile time; this
    weighs every loop's steady state equally, which is what a clock target trades against."""
    return sum(scheduled.ii if scheduled.bound is not None else scheduled.length
               for scheduled in compiled.schedules.values())


def _fill_cycles(compiled: CompiledKernel) -> int:
    # Each pipelined loop's depth: its fill and drain, paid once a run.
    return sum(scheduled.length for scheduled in compiled.schedules.values() if scheduled.bound is not None)


def _microseconds_per_pass(compiled: CompiledKernel) -> float:
    return cycles_per_pass(compiled) / compiled.report.data["claimed_clock_mhz"]


def _reaches(compiled: CompiledKernel) -> bool:
    return compiled.report.data["claimed_clock_mhz"] >= compiled.target.clock_mhz


def _fastest_reachable(kernel, compiled: CompiledKernel, pipelining: bool, overlap: bool) -> CompiledKernel:
    """Where ``compiled`` claims a lower clock than it was scheduled for, a design built for a
    lower clock may be faster: its schedule is not stretched for a period the kernel never runs
    at (a triangular solve for 150 MHz: II 73 at a claimed 105 MHz; for 105 MHz: II 37).

    Clocks from the one asked for down to the claim in steps of :data:`RETARGET_COARSE_STEP`, then
    the claims of those designs and clocks from the claim down in steps of :data:`RETARGET_STEP`,
    fastest first, are compiled until no slower clock can beat the best design found (none is
    taken to save more cycles than the design for half the claim, whose schedule has the most
    time per cycle), or :data:`RETARGET_STEPS` designs are built; then :data:`RETARGET_BISECTIONS`
    steps between the best and the next clock tried above it look for a faster clock at its II.  The design kept has the fewest microseconds per pass
    (:func:`cycles_per_pass` at its claimed clock), then the fewest microseconds of pipeline fill,
    then was compiled first; the report explains the choice against the clock asked for.  A
    search, not a proof: a faster design may lie at a clock it did not try."""
    asked = compiled.target
    if _reaches(compiled):
        return compiled
    designs = [compiled]

    def build(clock):
        designs.append(_compile_for(kernel, asked.replace(clock_mhz=clock), pipelining, overlap))
        return designs[-1]

    def key(design):
        return (round(_microseconds_per_pass(design), 9), not _reaches(design),
                round(_fill_cycles(design) / design.report.data["claimed_clock_mhz"], 9), designs.index(design))

    top = compiled.report.data["claimed_clock_mhz"]
    fewest = cycles_per_pass(build(math.floor(top * 5) / 10))
    # From the clock asked for down to the claim in coarse steps (a design for a clock between
    # them may reach more than the claim: gsumif for 250 MHz claims 112.9, for 118.3 reaches it),
    # then every claim of those designs and clocks from the claim down in fine steps, fastest first.
    for step in range(1, RETARGET_STEPS):
        clock = math.floor(asked.clock_mhz * RETARGET_COARSE_STEP ** step * 10) / 10
        if clock <= top or len(designs) > RETARGET_STEPS // 2:
            break
        build(clock)
    fine = {math.floor(top * RETARGET_STEP ** step * 10) / 10 for step in range(RETARGET_STEPS)}
    fine |= {design.report.data["claimed_clock_mhz"] for design in designs}
    for clock in sorted(fine - {design.target.clock_mhz for design in designs}, reverse=True):
        # No slower clock saves more cycles than the design for half the claim: below this one,
        # nothing can beat the best found.
        if fewest / clock > _microseconds_per_pass(min(designs, key=key)) + 1e-9 or len(designs) > RETARGET_STEPS:
            break
        build(clock)
    best = min(designs, key=key)
    # Between the best design and the next clock tried above it, the clock where the schedule
    # gains its cycles lies somewhere: bisect for it (fir: 108.3 MHz found, 112.3 the highest
    # clock at the same II).
    above = [design.target.clock_mhz for design in designs if design.target.clock_mhz > best.target.clock_mhz]
    if _reaches(best) and above:
        low, high = best.target.clock_mhz, min(above)
        for _ in range(RETARGET_BISECTIONS):
            middle = math.floor((low + high) * 5) / 10
            if middle <= low:
                break
            candidate = build(middle)
            if _reaches(candidate) and key(candidate) < key(best):
                best, low = candidate, middle
            else:
                high = middle
    if best is compiled:
        return compiled
    data = best.report.data
    data["requested_clock_mhz"] = asked.clock_mhz
    limits = [f"at {asked.clock_mhz:g} MHz: {line}" for line in compiled.report.data.get("timing", [])
              if "claimed to reach" in line]
    data["timing"] = [
        f"asked for {asked.clock_mhz:g} MHz, the kernel is claimed to reach "
        f"{compiled.report.data['claimed_clock_mhz']:g} MHz there ({cycles_per_pass(compiled)} cycles per "
        f"pass: {_microseconds_per_pass(compiled):.3f} us); built for {best.target.clock_mhz:g} MHz instead, "
        f"the fastest of {len(designs)} designs tried: {cycles_per_pass(best)} cycles per pass, "
        f"{_microseconds_per_pass(best):.3f} us", *limits, *data.get("timing", [])]
    return best


def _cones_hold(target, problem, sched) -> bool:
    # Bitwise logic is timed by its LUT cones; where the schedule registers a bit inside a
    # cone, the cones after the register may be deeper than the timing said.
    return schedule_respects_cones(problem.block, problem.problem, sched, target.delay_model.cone_level)


def _schedule_block(target, block) -> BlockSchedule:
    for cones in (True, False):
        problem = build_problem(block, target, cones=cones)
        sched = schedule_sequential(problem.problem, problem.earliest_cycle)
        if not cones or _cones_hold(target, problem, sched):
            break
    verify(problem.problem, sched)
    return BlockSchedule(problem, sched, max(1, _length(problem.problem, sched)))


def _schedule_loop(target, loop: PipelinedLoop) -> BlockSchedule:
    insert_forwarding(loop)
    for cones in (True, False):
        problem = build_problem(loop.body, target, loop=loop, cones=cones)
        bound = minimum_ii(problem.problem)
        target_ii = loop.info.target_ii
        start_ii = bound.mii if target_ii is None else max(target_ii, bound.mii)
        sched = schedule(problem.problem, ii=start_ii, bound=bound)   # the MII once, not twice
        if not cones or _cones_hold(target, problem, sched):
            break
    verify(problem.problem, sched)
    return BlockSchedule(problem, sched, max(1, _length(problem.problem, sched)), bound, target_ii)
