"""Collatz step count ``while x != 1``, with a step limit so that x = 0 terminates."""

import hls
from amaranth import unsigned

LIMIT = 1000


@hls.kernel
def collatz(x0: unsigned(16)) -> unsigned(10):
    x: unsigned(32) = x0
    steps: unsigned(10) = 0
    while x != 1 and steps < LIMIT:
        if x & 1:
            x = 3 * x + 1
        else:
            x = x >> 1
        steps = steps + 1
    return steps


EXAMPLES = [
    {"x0": 27},       # 111 steps, peaks at 9232
    {"x0": 1},        # exits before the first iteration
    {"x0": 2},        # one step
    {"x0": 0},        # never reaches 1: stopped by the limit
    {"x0": 65535},    # the largest start
    {"x0": 97},       # 118 steps
]
