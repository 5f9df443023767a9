"""Insertion sort with an inner ``while`` whose condition reads the array."""

import hls
from amaranth import signed, unsigned

from _benchmark_inputs import values


@hls.kernel
def insertion_sort(a: hls.Array[signed(16), 32], n: unsigned(6)):
    for i in range(1, n):
        key = a[i]
        j: signed(7) = i - 1
        while j >= 0 and a[j] > key:
            a[j + 1] = a[j]
            j = j - 1
        a[j + 1] = key


EXAMPLES = [
    {"a": values(141, 32, -32768, 32767), "n": 32},
    {"a": list(range(32)), "n": 32},                     # sorted: the inner loop exits at once
    {"a": list(range(31, -1, -1)), "n": 32},             # reversed: it never exits early
    {"a": values(142, 32, -5, 5), "n": 0},               # zero trip count
    {"a": values(143, 32, -5, 5), "n": 17},              # duplicates, a prefix only
    {"a": [32767, -32768] * 16, "n": 32},                # extreme values
]
