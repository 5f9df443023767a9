"""A 4-way opcode stream processor, after Desai (arXiv:1411.0863).

Each element carries an opcode: add, subtract, multiply-accumulate, or shift the
accumulator right and add. The multiply is off the recurrence, which keeps only
an add/subtract/select on it (target II = 1).
"""

import hls
from amaranth import signed, unsigned

from _benchmark_inputs import values

ADD, SUB, MAC, SHIFT = 0, 1, 2, 3


@hls.kernel
def stream_proc(code: hls.Array[unsigned(2), 64], x: hls.Array[signed(16), 64],
                w: signed(16), n: unsigned(7)) -> signed(40):
    acc: signed(40) = 0
    for i in range(n):
        op = code[i]
        v = x[i]
        if op == ADD:
            acc = acc + v
        elif op == SUB:
            acc = acc - v
        elif op == MAC:
            acc = acc + v * w
        else:
            acc = (acc >> 1) + v
    return acc


EXAMPLES = [
    {"code": values(41, 64, 0, 3), "x": values(42, 64, -32768, 32767), "w": -32768, "n": 64},
    {"code": values(43, 64, 0, 3), "x": values(44, 64, -100, 100), "w": 7, "n": 25},
    {"code": values(45, 64, 0, 3), "x": values(46, 64, -100, 100), "w": 7, "n": 0},   # zero trip
    {"code": [MAC] * 64, "x": [-32768] * 64, "w": -32768, "n": 64},                  # largest products
    {"code": [SUB] * 64, "x": [-32768] * 64, "w": 0, "n": 64},
    {"code": [SHIFT] * 64, "x": [-32768] * 64, "w": 1, "n": 64},                      # negative >>
]
