"""Fuzzer regression: generate(seed=11, index=40), shrunk.

Found with `python benchmarks/fuzz.py --seed 11` (amaranth back end):
crash: AssertionError: not31 used at cycle 0 before it exists at 2 (at component.py:541)
"""

import hls
from amaranth import signed, unsigned

@hls.kernel(resources={'mul': 1})
def fuzz_11_40(a: hls.Array[signed(11), 8], b: hls.Array[signed(12), 8], x: signed(2), y: unsigned(2), z: unsigned(10), n: unsigned(3)) -> tuple[signed(4), signed(2)]:
    buf0 = hls.local(unsigned(9), 8, partition=hls.partition('complete'))
    v0: unsigned(3) = 6
    v1: unsigned(16) = 60530
    v2: signed(4) = 7
    v3: signed(2) = -2
    w0: unsigned(4) = 0
    w1: unsigned(4) = 0
    for i4 in range(3):
        if i4 < i4 or a[i4] != z:
            continue
        for i5 in hls.unroll(range(2)):
            buf0[0 + i5] = buf0[0 + i5 + 1]
    return (v2, v3)

ARGS = {'x': -2, 'y': 2, 'z': 980, 'n': 2, 'a': [-373, 254, -994, -849, 616, 267, 182, -37], 'b': [-244, 1, 79, 1040, -2048, 143, -1392, -355]}


def test_fuzz_11_40():
    import copy

    from sim.kernel import run

    result = run(fuzz_11_40, copy.deepcopy(ARGS), backend='amaranth')
    assert result.match, (result.outputs, result.expected)
