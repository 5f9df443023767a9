"""Lower-triangular matrix-vector product: a triangular nest (row i has i + 1 terms) with a
run-time row count, flattened into one pipelined loop of n (n + 1) / 2 iterations."""

import hls
from amaranth import signed, unsigned

from _benchmark_inputs import values

N = 8


@hls.kernel
def trmv(m: hls.Array[signed(8), 64], x: hls.Array[signed(8), 8], y: hls.Array[signed(20), 8],
         n: unsigned(4)):
    for i in range(n):
        s: signed(20) = 0
        for j in range(i + 1):
            s = s + m[i * N + j] * x[j]
        y[i] = s


EXAMPLES = [
    {"m": values(191, 64, -128, 127), "x": values(192, 8, -128, 127), "y": [0] * 8, "n": 8},
    {"m": values(193, 64, -3, 3), "x": values(194, 8, -3, 3), "y": [0] * 8, "n": 3},
    {"m": values(195, 64, -3, 3), "x": values(196, 8, -3, 3), "y": [9] * 8, "n": 0},   # zero trip
    {"m": [-128] * 64, "x": [-128] * 8, "y": [0] * 8, "n": 8},                          # largest
    {"m": [127] * 64, "x": [-128] * 8, "y": [0] * 8, "n": 8},                           # most negative
    {"m": values(197, 64, -128, 127), "x": values(198, 8, -128, 127), "y": [1] * 8, "n": 1},  # one term
]
