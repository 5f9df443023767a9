"""The compiler driver: typed kernel -> IR -> one schedule per block -> Amaranth component.

:func:`compile_kernel` is what ``Kernel.to_amaranth()``, ``to_verilog()`` and
``report()`` call.  Every schedule it uses is checked by the independent
verifier :func:`hls.schedule.verify` before any hardware is built from it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from .analysis.forwarding import insert_forwarding
from .analysis.problems import BlockProblem, build_problem
from .ir import KernelIR, PipelinedLoop, UnsupportedConstruct, build_ir
from .schedule import Schedule, minimum_ii, schedule, schedule_sequential, verify
from .schedule.mii import MIIBound

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
    schedules : dict of int to BlockSchedule
        Keyed by ``id(block)``.
    report : hls.report.Report
    compile_seconds : float
    """

    ir: KernelIR
    schedules: dict[int, BlockSchedule] = field(default_factory=dict)
    report: object = None
    compile_seconds: float = 0.0

    def schedule_of(self, block) -> BlockSchedule:
        return self.schedules[id(block)]

    def component(self):
        """A fresh ``wiring.Component`` implementing the kernel."""
        from .backend.component import KernelComponent
        return KernelComponent(self)

    def verilog(self, name: str | None = None) -> str:
        """The kernel as Verilog text (module ``name``, default the kernel's name)."""
        from amaranth.back import verilog
        component = self.component()
        return verilog.convert(component, name=name or self.ir.name,
                               emit_src=False)


def _syntax_error(ir_error: UnsupportedConstruct, filename: str):
    from .errors import KernelSyntaxError
    node = ir_error.node
    return KernelSyntaxError(filename, getattr(node, "lineno", 0), getattr(node, "col_offset", 0) + 1,
                             ir_error.message, ir_error.hint or None)


def lower(kernel, *, pipelining: bool = True) -> KernelIR:
    """The IR of ``kernel`` (an ``hls.Kernel``).

    Raises
    ------
    hls.errors.KernelSyntaxError
        For constructs outside the language, from the front end or the lowering.
    """
    from .frontend import analyze, shape_of
    typed = analyze(kernel)
    try:
        return build_ir(typed, shape_of, pipelining=pipelining)
    except UnsupportedConstruct as error:
        raise _syntax_error(error, typed.filename) from None


def compile_kernel(kernel, *, pipelining: bool = True) -> CompiledKernel:
    """Compile an ``@hls.kernel``: schedule every block and loop, ready to build hardware.

    Parameters
    ----------
    kernel : hls.Kernel
    pipelining : bool
        ``False`` runs every loop as a sequential state machine, as a baseline to
        compare pipelined schedules with.

    Returns
    -------
    CompiledKernel
        ``.component()`` elaborates a fresh Amaranth component, ``.verilog()``
        emits Verilog, ``.report`` describes the schedule of every loop.

    Raises
    ------
    hls.errors.KernelSyntaxError
        For constructs outside the language.
    """
    began = time.perf_counter()
    ir = lower(kernel, pipelining=pipelining)
    _check_clock(kernel, ir)
    compiled = CompiledKernel(ir)
    for node in ir.nodes:
        if isinstance(node, PipelinedLoop):
            compiled.schedules[id(node.body)] = _schedule_loop(ir, node)
        elif node.ops:
            compiled.schedules[id(node)] = _schedule_block(ir, node)
    compiled.compile_seconds = time.perf_counter() - began
    from .report import build_report
    compiled.report = build_report(compiled)
    return compiled


def _check_clock(kernel, ir) -> None:
    """A clock so fast that the registers alone fill the period is a user mistake."""
    from .analysis.problems import usable_period
    from .delay_model import REGISTER_SETUP
    if usable_period(ir.clock_mhz) <= 0:
        from .errors import KernelSyntaxError
        tree = getattr(kernel, "tree", None)
        fastest = 1000.0 / (REGISTER_SETUP + 0.5)
        raise KernelSyntaxError(ir.filename, getattr(tree, "lineno", 1), 1,
                                f"clock_mhz={ir.clock_mhz:g} leaves no time for logic: the registers alone "
                                f"take {REGISTER_SETUP:g} ns of its {1000.0 / ir.clock_mhz:g} ns period",
                                f"use at most about {fastest:.0f} MHz")


def _schedule_block(ir, block) -> BlockSchedule:
    problem = build_problem(block, ir.clock_mhz, ir.resources)
    sched = schedule_sequential(problem.problem)
    verify(problem.problem, sched)
    return BlockSchedule(problem, sched, max(1, _length(problem.problem, sched)))


def _schedule_loop(ir, loop: PipelinedLoop) -> BlockSchedule:
    insert_forwarding(loop)
    problem = build_problem(loop.body, ir.clock_mhz, ir.resources, loop=loop)
    bound = minimum_ii(problem.problem)
    target = loop.info.target_ii
    start_ii = bound.mii if target is None else max(target, bound.mii)
    sched = schedule(problem.problem, ii=start_ii)
    verify(problem.problem, sched)
    return BlockSchedule(problem, sched, max(1, _length(problem.problem, sched)), bound, target)
