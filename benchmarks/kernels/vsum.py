"""Vector sum: the simplest recurrence, a single add (target II = 1)."""

import hls
from amaranth import signed, unsigned

from _benchmark_inputs import values


@hls.kernel
def vsum(a: hls.Array[signed(16), 64], n: unsigned(7)) -> signed(32):
    s: signed(32) = 0
    for i in range(n):
        s = s + a[i]
    return s


EXAMPLES = [
    {"a": values(1, 64, -32768, 32767), "n": 64},
    {"a": values(2, 64, -100, 100), "n": 17},
    {"a": values(3, 64, 0, 10), "n": 0},                 # zero trip count
    {"a": [32767] * 64, "n": 64},                         # largest sum
    {"a": [-32768] * 64, "n": 64},                        # most negative sum
    {"a": values(4, 64, -32768, 32767), "n": 1},
]
