"""The compiler's intermediate representation: a CFG of if-converted hyperblocks.

See :mod:`hls.ir.nodes` for the data structures and :mod:`hls.ir.build` for the
lowering from the front end's ``TypedKernel``.
"""

from .nodes import ArrayLayout, Block, Exit, KernelIR, LoopInfo, Op, PipelinedLoop
from .build import UnsupportedConstruct, build_ir, amaranth_shape, amaranth_value

__all__ = ["ArrayLayout", "Block", "Exit", "KernelIR", "LoopInfo", "Op", "PipelinedLoop", "UnsupportedConstruct", "build_ir",
           "amaranth_shape", "amaranth_value"]
