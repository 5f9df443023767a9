"""16-bit dot product: a multiply feeding a single-add recurrence (target II = 1)."""

import hls
from amaranth import signed, unsigned

from _benchmark_inputs import values


@hls.kernel
def dot16(a: hls.Array[signed(16), 64], b: hls.Array[signed(16), 64], n: unsigned(7)) -> signed(40):
    s: signed(40) = 0
    for i in range(n):
        s = s + a[i] * b[i]
    return s


EXAMPLES = [
    {"a": values(11, 64, -32768, 32767), "b": values(12, 64, -32768, 32767), "n": 64},
    {"a": values(13, 64, -5, 5), "b": values(14, 64, -5, 5), "n": 33},
    {"a": values(15, 64, -5, 5), "b": values(16, 64, -5, 5), "n": 0},        # zero trip count
    {"a": [-32768] * 64, "b": [-32768] * 64, "n": 64},                        # largest products
    {"a": [32767] * 64, "b": [-32768] * 64, "n": 64},                         # most negative sum
    {"a": values(17, 64, 0, 1), "b": values(18, 64, -32768, 32767), "n": 1},
]
