"""find-first as a ``for`` loop with ``break``: the index of the first element above t, or n."""

import hls
from amaranth import signed, unsigned

from _benchmark_inputs import values


@hls.kernel
def find_first_break(a: hls.Array[signed(16), 64], n: unsigned(7), t: signed(16)) -> unsigned(7):
    found = n
    for i in range(n):
        if a[i] > t:
            found = i
            break
    return found


EXAMPLES = [
    {"a": values(101, 64, -100, 100), "n": 64, "t": 200},                 # never exits early
    {"a": [500] + values(102, 63, -100, 100), "n": 64, "t": 0},           # exits in the first iteration
    {"a": values(103, 40, -100, 100) + [1000] + values(104, 23, -100, 100), "n": 64, "t": 100},  # middle
    {"a": values(105, 64, -100, 100), "n": 0, "t": 0},                    # zero trip count
    {"a": [32767] * 64, "n": 64, "t": 32767},                             # max values: never
    {"a": [-32768] * 63 + [-32767], "n": 64, "t": -32768},                # exits at the last element
]
