"""gsumif (issue 4): a branch inside the loop; both arms end in an add or subtract (target II = 1)."""

import hls
from amaranth import signed, unsigned

from _benchmark_inputs import values


@hls.kernel
def gsumif(a: hls.Array[signed(16), 64], n: unsigned(7)) -> signed(32):
    s: signed(32) = 0
    for i in range(n):
        d = a[i]
        if d >= 0:
            s = s + d * d
        else:
            s = s - d
    return s


# s is signed(32) as in the issue, so squares are kept below 2**31 / 64 (no example wraps).
EXAMPLES = [
    {"a": values(21, 64, -5792, 5792), "n": 64},
    {"a": values(22, 64, -10, 10), "n": 40},
    {"a": values(23, 64, -10, 10), "n": 0},                  # zero trip count
    {"a": [-32768] * 64, "n": 64},                            # every iteration takes the else arm
    {"a": [5792] * 64, "n": 64},                              # largest sum that fits signed(32)
    {"a": [0] * 64, "n": 64},                                 # d == 0 takes the then arm
]
