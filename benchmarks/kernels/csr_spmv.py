"""CSR sparse matrix-vector product: the inner loop's bounds are read from memory."""

import hls
from amaranth import signed, unsigned

from _benchmark_inputs import values


@hls.kernel
def csr_spmv(row: hls.Array[unsigned(7), 9], col: hls.Array[unsigned(3), 64],
             val: hls.Array[signed(8), 64], x: hls.Array[signed(8), 8],
             y: hls.Array[signed(24), 8], rows: unsigned(4)):
    for i in range(rows):
        s: signed(24) = 0
        for k in range(row[i], row[i + 1]):
            s = s + val[k] * x[col[k]]
        y[i] = s


def _csr(dense: list[list[int]]) -> dict:
    """CSR arrays of an 8x8 dense matrix, padded to the kernel's depths."""
    row, col, val = [0], [], []
    for line in dense:
        for j, value in enumerate(line):
            if value:
                col.append(j)
                val.append(value)
        row.append(len(col))
    return {"row": row, "col": col + [0] * (64 - len(col)), "val": val + [0] * (64 - len(val))}


def _dense(seed: int, density: int) -> list[list[int]]:
    mask = values(seed, 64, 0, 99)
    entries = values(seed + 1, 64, -128, 127)
    return [[entries[8 * i + j] if mask[8 * i + j] < density else 0 for j in range(8)] for i in range(8)]


EXAMPLES = [
    {**_csr(_dense(151, 30)), "x": values(153, 8, -128, 127), "y": [0] * 8, "rows": 8},
    {**_csr(_dense(154, 100)), "x": values(156, 8, -128, 127), "y": [0] * 8, "rows": 8},   # dense
    {**_csr([[0] * 8] * 8), "x": values(157, 8, -128, 127), "y": [4] * 8, "rows": 8},      # empty rows
    {**_csr([[-128] * 8] * 8), "x": [-128] * 8, "y": [0] * 8, "rows": 8},                  # largest
    {**_csr(_dense(158, 50)), "x": values(160, 8, -128, 127), "y": [1] * 8, "rows": 0},    # zero trip
    {**_csr([[0] * 8] * 3 + [[5] * 8] + [[0] * 8] * 4), "x": list(range(8)), "y": [0] * 8, "rows": 5},
]
