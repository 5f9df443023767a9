"""The compiler's intermediate representation: a CFG of if-converted hyperblocks.

See :mod:`hls.ir.nodes` for the data structures, :mod:`hls.ir.build` for the
lowering from the front end's ``TypedKernel``, :mod:`hls.ir.dead` for the dead-code
elimination run on what it builds and :mod:`hls.ir.fold` for the constant folding run
between its rounds.
"""

from .nodes import ArrayLayout, Block, Exit, KernelIR, LoopInfo, Op, PipelinedLoop
from .build import UnsupportedConstruct, build_ir, amaranth_shape, amaranth_value
from .dead import dead_operations, eliminate_dead_code
from .fold import fold_constants

__all__ = ["ArrayLayout", "Block", "Exit", "KernelIR", "LoopInfo", "Op", "PipelinedLoop", "UnsupportedConstruct", "build_ir",
           "amaranth_shape", "amaranth_value", "dead_operations", "eliminate_dead_code", "fold_constants"]
