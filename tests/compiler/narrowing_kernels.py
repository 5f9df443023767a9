"""Kernels of tests/compiler/test_register_narrowing.py (in a file of their own: the compiler reads
their source)."""

from amaranth import unsigned

import hls

N = 16


@hls.kernel
def sum16(a: hls.Array[unsigned(8), N]) -> unsigned(32):
    # s holds at most 16 * 255 = 4080: 12 bits, not 32.
    s: unsigned(32) = 0
    for i in range(N):
        s = s + a[i]
    return s


@hls.kernel
def scale(a: hls.Array[unsigned(12), N], out: hls.Array[unsigned(8), N], peak: unsigned(12), n: unsigned(5)):
    # The store's index waits for the divider: late stages count it instead of carrying it.
    for i in range(n):
        out[i] = min(a[i] * 255 // peak, 255)


@hls.kernel
def scale_until(a: hls.Array[unsigned(12), N], out: hls.Array[unsigned(8), N], peak: unsigned(12),
                n: unsigned(5)) -> unsigned(5):
    # The same with an early exit: squashed iterations never reach the late stages.
    count: unsigned(5) = 0
    for i in range(n):
        if a[i] == 0:
            break
        out[i] = min(a[i] * 255 // peak, 255)
        count = count + 1
    return count
