"""Small kernels for the link's tests: each builds and simulates in about a second."""

import hls
from amaranth import signed, unsigned


@hls.kernel
def scale(a: hls.Array[signed(12), 6], gain: signed(5), n: unsigned(3)) -> signed(20):
    """Writes its array back (a 12-bit signed element takes two bytes) and returns a sum."""
    s: signed(20) = 0
    for i in range(n):
        v: signed(12) = a[i] * gain
        a[i] = v
        s = s + v
    return s


@hls.kernel
def banks(a: hls.Array[unsigned(8), 8, hls.partition("cyclic", 2)], k: unsigned(8)) -> tuple[unsigned(8), unsigned(9)]:
    """A partitioned array (two banks, two memories on the link) and a tuple result."""
    best: unsigned(8) = 0
    for i in range(8):
        a[i] = a[i] ^ k
        if a[i] > best:
            best = a[i]
    return best, k + 1


@hls.kernel
def spin(a: hls.Array[unsigned(8), 4], n: unsigned(12)) -> unsigned(16):
    """Runs for ``n`` cycles or so: long enough to find the link busy."""
    s: unsigned(16) = 0
    for i in range(n):
        s = s + a[i & 3]
    return s


@hls.kernel
def spin_twin(a: hls.Array[unsigned(8), 4], n: unsigned(12)) -> unsigned(16):
    """The interface of ``spin`` under another name: another signature word."""
    s: unsigned(16) = 0
    for i in range(n):
        s = s + a[i & 3]
    return s
