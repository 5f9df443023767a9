"""First match per row: a ``break`` in the inner loop of a flattened nest (issue 20).

The break ends only its row's run; the next row starts with the next flattened
iteration but one, which is issued before the break's read and compare resolve.
"""

import hls
from amaranth import unsigned

from _benchmark_inputs import values


@hls.kernel
def row_first_match(a: hls.Array[unsigned(8), 64], out: hls.Array[unsigned(4), 8], key: unsigned(8),
                    rows: unsigned(4), n: unsigned(4)):
    for r in range(rows):
        for k in range(n):
            if a[r * 8 + k] == key:
                out[r] = k
                break


def _rows(matches: list[int | None], key: int, seed: int) -> list[int]:
    """Eight rows of eight values, row ``r`` holding ``key`` first at ``matches[r]`` (never for ``None``)."""
    a = [value if value != key else key + 1 for value in values(seed, 64, 0, 254)]
    for r, at in enumerate(matches):
        if at is not None:
            a[r * 8 + at] = key
            if at < 7:
                a[r * 8 + at + 1 + seed % (7 - at)] = key     # a later match that must not count
    return a


EXAMPLES = [
    {"a": _rows([3, None, 0, 7, 5, None, 1, 6], 40, 201), "out": [15] * 8, "key": 40, "rows": 8, "n": 8},
    {"a": _rows([0] * 8, 7, 202), "out": [15] * 8, "key": 7, "rows": 8, "n": 8},          # every row at once
    {"a": _rows([None] * 8, 9, 203), "out": [15] * 8, "key": 9, "rows": 8, "n": 8},       # no row matches
    {"a": _rows([7, 6, 7, 6, 7, 6, 7, 6], 255, 204), "out": [0] * 8, "key": 255, "rows": 8, "n": 8},  # at the end
    {"a": _rows([2, 4, 1, 3, 0, 5, 6, 7], 128, 205), "out": [15] * 8, "key": 128, "rows": 8, "n": 4},  # short rows
    {"a": _rows([1, 1, 1, 1, 1, 1, 1, 1], 3, 206), "out": [15] * 8, "key": 3, "rows": 0, "n": 8},     # no rows
    {"a": _rows([5, 2, 4, 0, 3, 1, 6, 7], 60, 207), "out": [15] * 8, "key": 60, "rows": 5, "n": 0},   # empty rows
]
