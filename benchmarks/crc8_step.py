"""CRC-8 (polynomial 0x07) over a byte array, the byte step's eight bit steps unrolled (target II = 1).

Synthesis maps the unrolled step to one cone of at most 16 input bits per output bit (two LUT
levels); the delay model times it so (hls.analysis.logic_cones), not as 8 chained selects.
"""

import hls
import random

from amaranth import unsigned


def values(seed, count, low, high):
    rng = random.Random(seed)
    return [rng.randint(low, high) for _ in range(count)]


@hls.kernel
def crc8_step(data: hls.Array[unsigned(8), 64], n: unsigned(7)) -> unsigned(8):
    crc: unsigned(8) = 0
    for i in range(n):
        crc = crc ^ data[i]
        for b in hls.unroll(range(8)):
            if crc & 0x80:
                crc = ((crc << 1) ^ 0x07) & 0xFF
            else:
                crc = (crc << 1) & 0xFF
    return crc


EXAMPLES = [
    {"data": values(91, 64, 0, 255), "n": 64},
    {"data": values(92, 64, 0, 255), "n": 9},
    {"data": values(93, 64, 0, 255), "n": 0},                  # zero trip count
    {"data": [0xFF] * 64, "n": 64},
]
