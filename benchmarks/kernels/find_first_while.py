"""find-first as ``while i < n and a[i] <= t``: the index of the first element above t, or n.

An early exit whose condition reads memory; ``a[i]`` is only read while ``i < n``.
"""

import hls
from amaranth import signed, unsigned

from _benchmark_inputs import values


@hls.kernel
def find_first_while(a: hls.Array[signed(16), 64], n: unsigned(7), t: signed(16)) -> unsigned(7):
    i: unsigned(7) = 0
    while i < n and a[i] <= t:
        i = i + 1
    return i


EXAMPLES = [
    {"a": values(91, 64, -100, 100), "n": 64, "t": 200},                  # never exits early
    {"a": [500] + values(92, 63, -100, 100), "n": 64, "t": 0},            # exits in the first iteration
    {"a": values(93, 32, -100, 100) + [1000] + values(94, 31, -100, 100), "n": 64, "t": 100},  # middle
    {"a": values(95, 64, -100, 100), "n": 0, "t": 0},                     # zero trip count
    {"a": [32767] * 64, "n": 64, "t": 32767},                             # max values: never
    {"a": [-32768] * 63 + [-32767], "n": 64, "t": -32768},                # exits at the last element
]
