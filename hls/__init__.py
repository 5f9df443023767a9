"""axhls: Python kernels to pipelined Amaranth hardware.

The kernel language (see ``docs/language.md``)::

    import hls
    from amaranth import signed, unsigned

    @hls.kernel
    def vsum(a: hls.Array[signed(16), 64], n: unsigned(7)) -> signed(32):
        s: signed(32) = 0
        for i in range(n):
            s = s + a[i]
        return s

Calling ``vsum(a=[...], n=64)`` runs the golden model; ``vsum.to_amaranth()``
builds the hardware for the kernel's target (``hls.Target``: clock, resource
limits, device), and ``hls.compiler.compile_kernel(vsum, target=...)`` for another;
``hls.build(vsum, board="ulx3s-85f", output="out")`` makes a bitstream of it with a
host link (:func:`hls.board.build.build`, imported on first use), and
``hls.board.connect(port, vsum)`` calls it on the board (``docs/board.md``).
"""

from . import approx, board
from .errors import KernelRuntimeError, KernelSyntaxError
from .frontend.pragmas import local, pipeline, sequential, unroll
from .kernel import Function, Kernel, function, kernel
from .dataflow import Dataflow, dataflow, fifo
from .target import Target
from .types import Array, Stream, partition

__all__ = ["kernel", "function", "dataflow", "fifo", "Dataflow", "Array", "Stream", "partition", "local", "pipeline",
           "sequential", "unroll", "Kernel", "Function", "Target", "KernelSyntaxError", "KernelRuntimeError", "approx",
           "board", "build"]


def __getattr__(name):
    # hls.build loads amaranth-boards and the board's tools only when it is first asked for.
    if name == "build":
        from .board.build import build
        return build
    raise AttributeError(f"module 'hls' has no attribute {name!r}")
