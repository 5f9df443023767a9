"""Histogram ``h[x[i]] += 1``: a read-modify-write through a data-dependent address."""

import hls
from amaranth import unsigned

from _benchmark_inputs import values


@hls.kernel
def histogram(x: hls.Array[unsigned(4), 64], h: hls.Array[unsigned(8), 16], n: unsigned(7)):
    for i in range(n):
        h[x[i]] += 1


EXAMPLES = [
    {"x": values(111, 64, 0, 15), "h": [0] * 16, "n": 64},
    {"x": [5] * 64, "h": [0] * 16, "n": 64},                        # every address collides
    {"x": [i % 16 for i in range(64)], "h": [0] * 16, "n": 64},     # never at distance < 16
    {"x": values(112, 64, 0, 15), "h": [3] * 16, "n": 0},           # zero trip count
    {"x": [3, 3, 4, 3, 4, 4, 3, 15] * 8, "h": [0] * 15 + [191], "n": 64},   # distances 1, 2, 3; max count
    {"x": values(113, 64, 0, 1), "h": [0] * 16, "n": 9},
]
