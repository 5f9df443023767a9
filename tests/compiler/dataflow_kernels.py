"""Chains of stream kernels (``@hls.dataflow``), for ``test_dataflow.py``."""

import hls
from amaranth import signed, unsigned

from stream_kernels import filter_positive


@hls.kernel
def smooth(s: hls.Stream[signed(12)], o: hls.Stream[signed(14)], n: unsigned(10)):
    """The sum of the last four tokens, a token in and out per cycle."""
    a: signed(12) = 0
    b: signed(12) = 0
    c: signed(12) = 0
    for i in range(n):
        x = s.read()
        o.write(x + a + b + c)
        c = b
        b = a
        a = x


@hls.kernel
def magnitude(s: hls.Stream[signed(14)], o: hls.Stream[unsigned(8)], n: unsigned(10)):
    for i in range(n):
        x = s.read()
        o.write(min(abs(x) >> 4, 255))


@hls.kernel
def runs(s: hls.Stream[unsigned(8)], o: hls.Stream[unsigned(8)], n: unsigned(10), level: unsigned(8)):
    """The length of every run of tokens above ``level``, written when it ends."""
    run: unsigned(8) = 0
    for i in range(n):
        x = s.read()
        if x > level:
            run = run + 1
        elif run > 0:
            o.write(run)
            run = 0
    if run > 0:
        o.write(run)


@hls.kernel
def pairs_sum(s: hls.Stream[unsigned(8)], o: hls.Stream[unsigned(9)], n: unsigned(6)):
    """Two tokens in, one out: II 2 by the stream's port."""
    for i in range(n):
        x = s.read()
        y = s.read()
        o.write(x + y)


@hls.kernel
def spread(s: hls.Stream[unsigned(9)], o: hls.Stream[unsigned(9)], n: unsigned(6)):
    """One token in, two out."""
    for i in range(n):
        x = s.read()
        o.write(x)
        o.write(x >> 1)


@hls.dataflow
def detector(s: hls.Stream[signed(12)], o: hls.Stream[unsigned(8)], n: unsigned(10)):
    """Three II-1 stages through two FIFOs."""
    mid = hls.fifo(signed(14))
    mag = hls.fifo(unsigned(8))
    smooth(s=s, o=mid, n=n)
    magnitude(mid, mag, n)
    runs(s=mag, o=o, n=n, level=LEVEL)


LEVEL = 96


@hls.dataflow
def rates(s: hls.Stream[unsigned(8)], o: hls.Stream[unsigned(9)], n: unsigned(6)):
    """Stages of different rates (II 2, then two writes per read) through a FIFO of one token."""
    half = hls.fifo(unsigned(9), depth=1)
    pairs_sum(s, half, n)
    spread(half, o, n)


@hls.dataflow
def two_paths(a: hls.Stream[signed(12)], b: hls.Stream[signed(12)], o: hls.Stream[signed(12)],
              p: hls.Stream[unsigned(8)], n: unsigned(8), m: unsigned(10)):
    """Two independent paths in one component: a filter, and smooth -> magnitude."""
    mid = hls.fifo(signed(14))
    filter_positive(s=a, o=o, n=n)
    smooth(b, mid, m)
    magnitude(mid, p, m)


@hls.kernel
def split(s: hls.Stream[unsigned(8)], even: hls.Stream[unsigned(8)], odd: hls.Stream[unsigned(8)], n: unsigned(6)):
    """One stream in, two out: a fork."""
    for i in range(n):
        x = s.read()
        if x & 1:
            odd.write(x)
        else:
            even.write(x)
