"""Kernels whose clock target the loop control cannot reach (tests/compiler/test_retarget.py)."""

from amaranth import signed, unsigned

import hls


@hls.kernel(clock_mhz=150)
def trsv(L: hls.Array[signed(16), 64], b: hls.Array[signed(16), 8], x: hls.Array[signed(16), 8], n: unsigned(4)):
    # Forward substitution: each x[i] waits on the division of the row before, so the II is the
    # divider's latency, which a faster clock stretches into more stages.
    for i in range(n):
        s: signed(32) = b[i]
        for j in range(i):
            s = s - L[i * 8 + j] * x[j]
        d = L[i * 8 + i]
        if d != 0:
            x[i] = s // d
        else:
            x[i] = 0
