"""if_loop (issue 4): ``t = a[i]*5; if t > 10: s += t`` - a predicated add (target II = 1)."""

import hls
from amaranth import signed, unsigned

from _benchmark_inputs import values


@hls.kernel
def if_loop(a: hls.Array[signed(16), 64], n: unsigned(7)) -> signed(32):
    s: signed(32) = 0
    for i in range(n):
        t = a[i] * 5
        if t > 10:
            s = s + t
    return s


EXAMPLES = [
    {"a": values(31, 64, -32768, 32767), "n": 64},
    {"a": values(32, 64, -5, 5), "n": 50},                   # around the threshold t > 10
    {"a": values(33, 64, -5, 5), "n": 0},                    # zero trip count
    {"a": [32767] * 64, "n": 64},                             # largest values
    {"a": [-32768] * 64, "n": 64},                            # never taken
    {"a": [2, 3] * 32, "n": 64},                              # t = 10 (not taken) and 15 (taken)
]
