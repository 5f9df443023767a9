"""Matrix-matrix product, 8x8 by 8x8: a three-level nest, flattened into one pipelined loop
of 512 iterations (the accumulator is reset on the first k of each (i, j), stored on the last)."""

import hls
from amaranth import signed

from _benchmark_inputs import values

N = 8


@hls.kernel
def matmul(a: hls.Array[signed(8), 64], b: hls.Array[signed(8), 64], c: hls.Array[signed(24), 64]):
    for i in range(N):
        for j in range(N):
            s: signed(24) = 0
            for k in range(N):
                s = s + a[i * N + k] * b[k * N + j]
            c[i * N + j] = s


EXAMPLES = [
    {"a": values(181, 64, -128, 127), "b": values(182, 64, -128, 127), "c": [0] * 64},
    {"a": [1 if i % 9 == 0 else 0 for i in range(64)], "b": values(183, 64, -128, 127), "c": [5] * 64},  # identity
    {"a": [-128] * 64, "b": [-128] * 64, "c": [0] * 64},                                 # largest
    {"a": [127] * 64, "b": [-128] * 64, "c": [0] * 64},                                  # most negative
    {"a": values(184, 64, -3, 3), "b": values(185, 64, -3, 3), "c": values(186, 64, -9, 9)},
    {"a": [0] * 64, "b": values(187, 64, -128, 127), "c": [7] * 64},                     # zero
]
