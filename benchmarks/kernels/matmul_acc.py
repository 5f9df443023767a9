"""Matrix-matrix product accumulated into its result, C += A x B, 8x8 by 8x8 (issue 20): an
imperfect nest that reads each C element before the inner loop and writes it after.

Flattened, the read of C[i * 8 + j] runs on the first k iteration of each (i, j) and the write
on the last; C's index is distinct for distinct (i, j), so no read ever follows the write of
its element, and the memory dependence analysis proves it: II 1."""

import hls
from amaranth import signed

from _benchmark_inputs import values

N = 8


@hls.kernel
def matmul_acc(a: hls.Array[signed(8), 64], b: hls.Array[signed(8), 64], c: hls.Array[signed(24), 64]):
    for i in range(N):
        for j in range(N):
            s: signed(24) = c[i * N + j]
            for k in range(N):
                s = s + a[i * N + k] * b[k * N + j]
            c[i * N + j] = s


EXAMPLES = [
    {"a": values(201, 64, -128, 127), "b": values(202, 64, -128, 127), "c": values(203, 64, -100000, 100000)},
    {"a": [1 if i % 9 == 0 else 0 for i in range(64)], "b": values(204, 64, -128, 127), "c": [5] * 64},
    {"a": [-128] * 64, "b": [-128] * 64, "c": [(1 << 23) - 1 - 131072] * 64},        # the largest sum
    {"a": values(205, 64, -3, 3), "b": values(206, 64, -3, 3), "c": values(207, 64, -9, 9)},
    {"a": [0] * 64, "b": values(208, 64, -128, 127), "c": values(209, 64, -(1 << 23), (1 << 23) - 1)},  # zero
    {"a": [127] * 64, "b": [-128] * 64, "c": [-(1 << 23) + 130048] * 64},               # the smallest
]
