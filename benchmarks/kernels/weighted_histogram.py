"""Weighted histogram ``h[x[i]] += w[i]``: a data-dependent read and write of the same array."""

import hls
from amaranth import signed, unsigned

from _benchmark_inputs import values


@hls.kernel
def weighted_histogram(x: hls.Array[unsigned(4), 64], w: hls.Array[signed(16), 64],
                       h: hls.Array[signed(24), 16], n: unsigned(7)):
    for i in range(n):
        h[x[i]] += w[i]


EXAMPLES = [
    {"x": values(121, 64, 0, 15), "w": values(122, 64, -32768, 32767), "h": [0] * 16, "n": 64},
    {"x": [9] * 64, "w": [-32768] * 64, "h": [0] * 16, "n": 64},        # one bin, most negative
    {"x": [9] * 64, "w": [32767] * 64, "h": [0] * 16, "n": 64},         # one bin, largest
    {"x": values(123, 64, 0, 15), "w": values(124, 64, -9, 9), "h": [1] * 16, "n": 0},   # zero trip
    {"x": [1, 1, 2, 1, 2, 2, 1, 0] * 8, "w": values(125, 64, -9, 9), "h": [0] * 16, "n": 64},
    {"x": values(126, 64, 0, 3), "w": values(127, 64, -32768, 32767), "h": [5] * 16, "n": 31},
]
