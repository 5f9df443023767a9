"""Each element's energy ``x * x * gain`` along each row of a 16x16 matrix, up to the row's first
zero: one terminated record per row.

The inner loop is a ``while`` (its trip count is decided by the data), so the
nest is not flattened; its runs overlap instead (issue 11). The exit resolves
in the second cycle of an iteration, and the two pipelined multiplies and the
store drain for five more: each run passes control on at once, so the outer
loop's step, the next row's prefix and the next run's first iterations start
while the last ones are still in the multipliers.
"""

import hls
from amaranth import signed, unsigned

from _benchmark_inputs import values


@hls.kernel
def row_scan(a: hls.Array[signed(16), 256], out: hls.Array[signed(48), 256], gain: signed(16)):
    for r in range(16):
        base: unsigned(8) = r * 16
        j: unsigned(5) = 0
        while j < 16 and a[base + j] != 0:
            x = a[base + j]
            out[base + j] = x * x * gain
            j = j + 1


def _terminated(seed: int) -> list[int]:
    """Rows of non-zero values, each cut by a zero at a seeded place (or not at all)."""
    cuts = values(seed, 16, 0, 16)
    rows = []
    for r, cut in enumerate(cuts):
        row = [v or 1 for v in values(seed + 1 + r, 16, -30000, 30000)]
        if cut < 16:
            row[cut] = 0
        rows += row
    return rows


EXAMPLES = [
    {"a": _terminated(171), "out": [0] * 256, "gain": -7},
    {"a": [0] * 256, "out": [5] * 256, "gain": 3},                          # every run empty
    {"a": [-32768] * 256, "out": [0] * 256, "gain": -32768},                # no terminator, extreme values
    {"a": _terminated(172), "out": values(173, 256, -99, 99), "gain": 32767},
    {"a": [0, 1] * 128, "out": [0] * 256, "gain": 1},                       # every row starts with its terminator
    {"a": ([9] * 16 + [0] * 16) * 8, "out": [9] * 256, "gain": -1},         # full and empty rows alternate
]
