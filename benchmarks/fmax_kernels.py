"""Kernels with 32-bit multiplies and divides for ``benchmarks/run.py --fmax`` (issue 12: honest timing).

Besides the benchmark kernels, the clock sweep places and routes these: the
issue's 32-bit multiply, a multiply-accumulate, divisions by a variable at 8
and 32 bits (the 8-bit one is the known case whose loop control was slower
than the model said) and divisions by a constant.
"""

import hls
from amaranth import signed, unsigned

__all__ = ["FMAX_KERNELS"]


@hls.kernel
def mul_s32(x: hls.Array[signed(32), 16], y: hls.Array[signed(32), 16], q: hls.Array[signed(64), 16],
            n: unsigned(5)):
    for i in range(n):
        q[i] = x[i] * y[i]


@hls.kernel
def mac_s32(x: hls.Array[signed(32), 16], y: hls.Array[signed(32), 16], n: unsigned(5)) -> signed(64):
    s: signed(64) = 0
    for i in range(n):
        s = s + x[i] * y[i]
    return s


@hls.kernel
def floordiv_s8(x: hls.Array[signed(8), 16], d: hls.Array[signed(8), 16], q: hls.Array[signed(9), 16],
                n: unsigned(5)):
    for i in range(n):
        q[i] = x[i] // d[i]


@hls.kernel
def divmod_s32(x: hls.Array[signed(32), 16], d: hls.Array[signed(32), 16], q: hls.Array[signed(33), 16],
               r: hls.Array[signed(32), 16], n: unsigned(5)):
    for i in range(n):
        q[i] = x[i] // d[i]
        r[i] = x[i] % d[i]


@hls.kernel
def divmod_by_10_s32(x: hls.Array[signed(32), 16], q: hls.Array[signed(32), 16], r: hls.Array[signed(32), 16],
                     n: unsigned(5)):
    for i in range(n):
        q[i] = x[i] // 10
        r[i] = x[i] % 10


#: name -> kernel, in the order the sweep prints them.
FMAX_KERNELS = {kernel.name: kernel for kernel in (mul_s32, mac_s32, floordiv_s8, divmod_s32, divmod_by_10_s32)}
