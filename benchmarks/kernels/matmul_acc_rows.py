"""Matrix-matrix product accumulated into its result over a run-time number of rows, C += A x B
with A and C n x 16 and B 16 x 16 (issue 20): matmul_acc's imperfect nest, 16 wide, with
``range(n)`` for the rows (``n: unsigned(7)``).

The exact dependence test follows neither the nest's 16 x 16 iterations per row for each of n's
128 values nor more than 1,024 iterations, so the nest's structure decides: C[i * 16 + j] is
distinct for distinct (i, j) (16 > 15, whatever i's range), read only in the first iteration of
each (i, j) and written only in its last, so no read of an element follows its write: II 1."""

import hls
from amaranth import signed, unsigned

from _benchmark_inputs import values

N = 16


@hls.kernel
def matmul_acc_rows(a: hls.Array[signed(8), 256], b: hls.Array[signed(8), 256], c: hls.Array[signed(24), 256],
                    n: unsigned(7)):
    for i in range(n):
        for j in range(N):
            s: signed(24) = c[i * N + j]
            for k in range(N):
                s = s + a[i * N + k] * b[k * N + j]
            c[i * N + j] = s


EXAMPLES = [
    {"a": values(211, 256, -128, 127), "b": values(212, 256, -128, 127), "c": values(213, 256, -100000, 100000),
     "n": 4},
    {"a": [1 if i % 17 == 0 else 0 for i in range(256)], "b": values(214, 256, -128, 127), "c": [5] * 256,
     "n": 1},                                                                          # one row of the identity
    {"a": values(215, 256, -3, 3), "b": values(216, 256, -3, 3), "c": values(217, 256, -9, 9), "n": 16},
    {"a": values(218, 256, -128, 127), "b": values(219, 256, -128, 127), "c": values(220, 256, -9, 9), "n": 0},
    {"a": [-128] * 256, "b": [-128] * 256, "c": [(1 << 23) - 1 - 262144] * 256, "n": 2},   # the largest sums
    {"a": [127] * 256, "b": [-128] * 256, "c": [-(1 << 23) + 260096] * 256, "n": 3},       # the smallest
]
