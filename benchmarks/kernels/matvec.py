"""Matrix-vector product, 8x8 by 8 (nested loops; the inner loop pipelines at II = 1)."""

import hls
from amaranth import signed, unsigned

from _benchmark_inputs import values

N = 8


@hls.kernel
def matvec(m: hls.Array[signed(8), 64], v: hls.Array[signed(8), 8], out: hls.Array[signed(24), 8],
           rows: unsigned(4)):
    for i in range(rows):
        s: signed(24) = 0
        for j in range(N):
            s = s + m[i * N + j] * v[j]
        out[i] = s


EXAMPLES = [
    {"m": values(61, 64, -128, 127), "v": values(62, 8, -128, 127), "out": [0] * 8, "rows": 8},
    {"m": values(63, 64, -3, 3), "v": values(64, 8, -3, 3), "out": [0] * 8, "rows": 3},
    {"m": values(65, 64, -3, 3), "v": values(66, 8, -3, 3), "out": [9] * 8, "rows": 0},  # zero trip
    {"m": [-128] * 64, "v": [-128] * 8, "out": [0] * 8, "rows": 8},                      # largest
    {"m": [127] * 64, "v": [-128] * 8, "out": [0] * 8, "rows": 8},                       # most negative
    {"m": [1 if i % 9 == 0 else 0 for i in range(64)], "v": values(67, 8, -128, 127),
     "out": [0] * 8, "rows": 8},                                                          # identity
]
