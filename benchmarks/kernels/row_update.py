"""A matrix-vector product accumulated into its vector, y += W x, 16 rows of 8 (issue 20): the
two-level imperfect nest reads y[r] before the inner loop and writes it after.

The read runs on the first k of each row and the write on its last: y[r] is distinct for
distinct rows, so the flattened loop reaches II 1 with no memory recurrence."""

import hls
from amaranth import signed

from _benchmark_inputs import values

ROWS, COLUMNS = 16, 8


@hls.kernel
def row_update(w: hls.Array[signed(8), 128], x: hls.Array[signed(8), 8], y: hls.Array[signed(20), 16]):
    for r in range(ROWS):
        s: signed(20) = y[r]
        for k in range(COLUMNS):
            s = s + w[r * COLUMNS + k] * x[k]
        y[r] = s


EXAMPLES = [
    {"w": values(211, 128, -128, 127), "x": values(212, 8, -128, 127), "y": values(213, 16, -50000, 50000)},
    {"w": [-128] * 128, "x": [-128] * 8, "y": [(1 << 19) - 1 - 131072] * 16},             # the largest sum
    {"w": values(214, 128, -2, 2), "x": values(215, 8, -2, 2), "y": [0] * 16},
    {"w": [127] * 128, "x": [-128] * 8, "y": [-(1 << 19) + 130048] * 16},                 # the smallest
    {"w": values(216, 128, -128, 127), "x": [0] * 8, "y": values(217, 16, -(1 << 19), (1 << 19) - 1)},
]
