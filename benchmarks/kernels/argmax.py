"""argmax with an if-update of the best value and its index (target II = 1)."""

import hls
from amaranth import signed, unsigned

from _benchmark_inputs import values


@hls.kernel
def argmax(a: hls.Array[signed(16), 64], n: unsigned(7)) -> tuple[unsigned(6), signed(16)]:
    best = a[0]
    index: unsigned(6) = 0
    for i in range(1, n):
        v = a[i]
        if v > best:
            best = v
            index = i
    return index, best


EXAMPLES = [
    {"a": values(81, 64, -32768, 32767), "n": 64},
    {"a": values(82, 64, -50, 50), "n": 30},
    {"a": values(83, 64, -50, 50), "n": 0},                      # zero trip count: a[0]
    {"a": [-32768] * 63 + [32767], "n": 64},                      # the maximum is last
    {"a": [7] * 64, "n": 64},                                     # ties keep the first
    {"a": [32767] + values(84, 63, -32768, 32767), "n": 64},      # the maximum is first
]
