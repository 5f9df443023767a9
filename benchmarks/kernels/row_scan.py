"""Each row of a 16x16 matrix scaled by ``gain`` up to its first zero: one terminated record per row.

The inner loop is a ``while`` (its trip count is decided by the data), so the
nest is not flattened; its runs overlap instead (issue 11): each run passes
control on while its last iterations (the multiply and the store) drain, and
the next row's run starts meanwhile.
"""

import hls
from amaranth import signed, unsigned

from _benchmark_inputs import values


@hls.kernel
def row_scan(a: hls.Array[signed(16), 256], out: hls.Array[signed(32), 256], gain: signed(16)):
    for r in range(16):
        base: unsigned(8) = r * 16
        j: unsigned(5) = 0
        while j < 16 and a[base + j] != 0:
            out[base + j] = a[base + j] * gain
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
    {"a": [0] * 256, "out": [5] * 256, "gain": 3},                        # every run empty
    {"a": [32767] * 256, "out": [0] * 256, "gain": 32767},                # no terminator, extreme values
    {"a": _terminated(172), "out": values(173, 256, -99, 99), "gain": -32768},
    {"a": [0, 1] * 128, "out": [0] * 256, "gain": 1},                       # every row starts with its terminator
    {"a": ([1] * 16 + [0] * 16) * 8, "out": [9] * 256, "gain": -1},       # full and empty rows alternate
]
