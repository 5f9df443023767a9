"""Chains of stream kernels (``@hls.dataflow``), for ``test_dataflow.py``: the kernels of
``examples/streams.py`` and of ``stream_kernels.py``, and two of their own."""

import os

import hls
from amaranth import signed, unsigned

from axhls.loading import import_file
from stream_kernels import filter_positive, pairs

_EXAMPLES = import_file(os.path.join(os.path.dirname(__file__), "..", "..", "examples", "streams.py"))
smooth, magnitude, runs = _EXAMPLES.moving_sum, _EXAMPLES.magnitude, _EXAMPLES.threshold_runs


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
def rates(s: hls.Stream[unsigned(8)], o: hls.Stream[unsigned(9)], n: unsigned(6), m: unsigned(6)):
    """Stages of different rates (two tokens in and two out at II 2, then one in and two out)
    through a FIFO of one token."""
    half = hls.fifo(unsigned(9), depth=1)
    pairs(s, half, n)
    spread(half, o, m)


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


@hls.kernel
def late_copy(s: hls.Stream[signed(14)], o: hls.Stream[signed(14)], n: unsigned(10)):
    """Runs a loop of 24 iterations before it reads its first token: its FIFO must hold
    what the writer makes meanwhile."""
    warm: signed(14) = 0
    for j in range(24):
        warm = warm + j
    for i in range(n):
        x = s.read()
        o.write(x + warm)


@hls.dataflow
def lagging(s: hls.Stream[signed(12)], o: hls.Stream[signed(14)], n: unsigned(10)):
    """An II-1 writer, and a reader that starts late: the FIFO's depth comes from the lead."""
    mid = hls.fifo(signed(14))
    smooth(s, mid, n)
    late_copy(mid, o, n)


@hls.kernel
def fork(s: hls.Stream[signed(12)], a: hls.Stream[signed(12)], b: hls.Stream[signed(12)], n: unsigned(10)):
    """Each token to both branches of a fork."""
    for i in range(n):
        x = s.read()
        a.write(x)
        b.write(x >> 1)


@hls.kernel
def delay4(s: hls.Stream[signed(12)], o: hls.Stream[signed(12)], n: unsigned(10)):
    """The tokens four places late: it reads five before it writes its first (``n >= 4``)."""
    a = s.read()
    b = s.read()
    c = s.read()
    d = s.read()
    for i in range(n - 4):
        x = s.read()
        o.write(a)
        a = b
        b = c
        c = d
        d = x
    o.write(a)
    o.write(b)
    o.write(c)
    o.write(d)


@hls.kernel
def join(a: hls.Stream[signed(12)], b: hls.Stream[signed(12)], o: hls.Stream[signed(13)], n: unsigned(10)):
    """The two branches again, token by token."""
    for i in range(n):
        x = a.read()
        y = b.read()
        o.write(x - y)


@hls.dataflow
def diamond(s: hls.Stream[signed(12)], o: hls.Stream[signed(13)], n: unsigned(10)):
    """A fork whose branches join again, one four tokens longer than the other: the short
    branch's FIFO must hold what the long one keeps in flight, or the chain deadlocks."""
    long = hls.fifo(signed(12))
    short = hls.fifo(signed(12))
    late = hls.fifo(signed(12))
    fork(s, long, short, n)
    delay4(long, late, n)
    join(late, short, o, n)
