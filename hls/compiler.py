"""The compiler driver: typed kernel -> IR -> one schedule per block -> Amaranth component.

:func:`compile_kernel` is what ``Kernel.to_amaranth()``, ``to_verilog()`` and
``report()`` call.  Every schedule it uses is checked by the independent
verifier :func:`hls.schedule.verify` before any hardware is built from it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from amaranth.back import verilog as amaranth_verilog

from .analysis.forwarding import insert_forwarding
from .analysis.overlap import overlap_runs
from .analysis.block_problems import BlockProblem, build_problem
from .backend.component import KernelComponent
from .errors import KernelSyntaxError
from .frontend import shape_of
from .frontend.flatten import flatten_nests
from .ir import KernelIR, PipelinedLoop, UnsupportedConstruct, build_ir
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
    """

    ir: KernelIR
    target: Target = field(default_factory=Target)
    schedules: dict[int, BlockSchedule] = field(default_factory=dict)
    report: object = None
    compile_seconds: float = 0.0
    approximations: list = field(default_factory=list)
    overlaps: dict = field(default_factory=dict)

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
    """The IR of ``kernel`` (an ``hls.Kernel``).

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
        return build_ir(typed, shape_of, pipelining=pipelining)
    except UnsupportedConstruct as error:
        raise _syntax_error(error, typed.filename) from None


def compile_kernel(kernel, *, target: Target | None = None, pipelining: bool = True,
                   overlap: bool = True) -> CompiledKernel:
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


def _schedule_block(target, block) -> BlockSchedule:
    problem = build_problem(block, target)
    sched = schedule_sequential(problem.problem)
    verify(problem.problem, sched)
    return BlockSchedule(problem, sched, max(1, _length(problem.problem, sched)))


def _schedule_loop(target, loop: PipelinedLoop) -> BlockSchedule:
    insert_forwarding(loop)
    problem = build_problem(loop.body, target, loop=loop)
    bound = minimum_ii(problem.problem)
    target = loop.info.target_ii
    start_ii = bound.mii if target is None else max(target, bound.mii)
    sched = schedule(problem.problem, ii=start_ii)
    verify(problem.problem, sched)
    return BlockSchedule(problem, sched, max(1, _length(problem.problem, sched)), bound, target)
