"""8-tap FIR filter: y[i] = sum of h[t] * x[i - t] over the taps with i - t >= 0."""

import hls
from amaranth import signed, unsigned

from _benchmark_inputs import values

TAPS = 8


@hls.kernel
def fir(x: hls.Array[signed(16), 64], h: hls.Array[signed(16), 8], y: hls.Array[signed(36), 64],
        n: unsigned(7)):
    for i in range(n):
        acc: signed(36) = 0
        for t in range(TAPS):
            if i >= t:
                acc = acc + h[t] * x[i - t]
        y[i] = acc


EXAMPLES = [
    {"x": values(71, 64, -32768, 32767), "h": values(72, 8, -32768, 32767), "y": [0] * 64, "n": 64},
    {"x": values(73, 64, -9, 9), "h": [1, 2, 3, 4, 4, 3, 2, 1], "y": [0] * 64, "n": 20},
    {"x": values(74, 64, -9, 9), "h": [1] * 8, "y": [3] * 64, "n": 0},          # zero trip count
    {"x": [-32768] * 64, "h": [-32768] * 8, "y": [0] * 64, "n": 64},            # largest
    {"x": [32767] * 64, "h": [-32768] * 8, "y": [0] * 64, "n": 64},             # most negative
    {"x": [1] + [0] * 63, "h": values(75, 8, -32768, 32767), "y": [0] * 64, "n": 10},  # impulse
]
