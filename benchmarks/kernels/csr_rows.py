"""Per-row sums and lengths of a CSR matrix, its row bounds read into variables (issue 20).

``lo = row[i]`` and ``hi = row[i + 1]`` before the inner loop are fetched one
outer iteration ahead, as bounds read in ``range(...)`` itself are, so the
outer advance does not wait on the read port.
"""

import hls
from amaranth import signed, unsigned

from _benchmark_inputs import values


@hls.kernel
def csr_rows(row: hls.Array[unsigned(7), 9], val: hls.Array[signed(8), 64], total: hls.Array[signed(16), 8],
             count: hls.Array[unsigned(4), 8], rows: unsigned(4)):
    for i in range(rows):
        lo = row[i]
        hi = row[i + 1]
        s: signed(16) = 0
        for k in range(lo, hi):
            s = s + val[k]
        total[i] = s
        count[i] = hi - lo


def _row_pointers(lengths: list[int]) -> list[int]:
    """Row bounds for rows of ``lengths`` (each 0..8) elements."""
    pointers = [0]
    for length in lengths:
        pointers.append(pointers[-1] + length)
    return pointers


EXAMPLES = [
    {"row": _row_pointers(values(211, 8, 0, 8)), "val": values(212, 64, -128, 127), "total": [0] * 8,
     "count": [0] * 8, "rows": 8},
    {"row": _row_pointers([8] * 8), "val": [-128] * 64, "total": [0] * 8, "count": [0] * 8, "rows": 8},  # dense
    {"row": _row_pointers([0] * 8), "val": values(213, 64, -128, 127), "total": [5] * 8, "count": [9] * 8,
     "rows": 8},                                                                                         # empty rows
    {"row": _row_pointers([0, 0, 3, 0, 8, 1, 0, 0]), "val": values(214, 64, -128, 127), "total": [1] * 8,
     "count": [1] * 8, "rows": 8},                                                                       # runs of empty rows
    {"row": _row_pointers(values(215, 8, 0, 8)), "val": values(216, 64, -128, 127), "total": [3] * 8,
     "count": [3] * 8, "rows": 0},                                                                       # zero trip
    {"row": _row_pointers(values(217, 8, 0, 8)), "val": values(218, 64, 0, 127), "total": [0] * 8,
     "count": [0] * 8, "rows": 5},
]
