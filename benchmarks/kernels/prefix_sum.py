"""In-place prefix sum ``a[i] += a[i-1]``: an affine loop-carried dependence through memory."""

import hls
from amaranth import signed, unsigned

from _benchmark_inputs import values


@hls.kernel
def prefix_sum(a: hls.Array[signed(32), 64], n: unsigned(7)):
    for i in range(1, n):
        a[i] += a[i - 1]


EXAMPLES = [
    {"a": values(131, 64, -32768, 32767), "n": 64},
    {"a": values(132, 64, -5, 5), "n": 20},
    {"a": values(133, 64, -5, 5), "n": 0},                            # zero trip count
    {"a": values(134, 64, -5, 5), "n": 1},                            # range(1, 1): zero trip
    {"a": [2 ** 25 - 1] * 64, "n": 64},                               # largest sum
    {"a": [-2 ** 25] * 64, "n": 64},                                  # most negative sum
]
