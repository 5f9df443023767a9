"""Kernels that read and write ``hls.Stream`` parameters, for ``test_streams.py``.

Each one puts stream operations somewhere the stall logic could go wrong: under a
condition, in a pipelined loop at II 1, twice per iteration on one stream, beside
memory reads (which must hold their data through a stall), in a flattened nest,
after a ``break``, and in straight-line code around loops.
"""

import hls
from amaranth import signed, unsigned


@hls.kernel
def copy(s: hls.Stream[signed(16)], o: hls.Stream[signed(16)], n: unsigned(8)):
    """One token in and one out per iteration: II 1."""
    for i in range(n):
        x = s.read()
        o.write(x)


@hls.kernel
def filter_positive(s: hls.Stream[signed(12)], o: hls.Stream[signed(12)], n: unsigned(8)) -> unsigned(8):
    """A conditional write: only the positive tokens go out."""
    count: unsigned(8) = 0
    for i in range(n):
        x = s.read()
        if x > 0:
            o.write(x)
            count += 1
    return count


@hls.kernel
def merge(flags: hls.Stream[unsigned(1)], a: hls.Stream[signed(8)], b: hls.Stream[signed(8)],
          o: hls.Stream[signed(9)], n: unsigned(8)):
    """A conditional read: each flag says which of two streams the next token comes from."""
    for i in range(n):
        f = flags.read()
        if f:
            x = a.read()
        else:
            x = b.read()
        o.write(x + i)


@hls.kernel
def row_sums(s: hls.Stream[signed(8)], o: hls.Stream[signed(16)], rows: unsigned(4), cols: unsigned(4)):
    """Accumulate and emit in a flattened nest: one sum per row, written after the inner loop."""
    for r in range(rows):
        acc: signed(16) = 0
        for c in range(cols):
            x = s.read()
            acc = acc + x * (c + 1)
        o.write(acc)


@hls.kernel
def pairs(s: hls.Stream[unsigned(8)], o: hls.Stream[unsigned(9)], n: unsigned(6)):
    """Two reads of one stream per iteration (II 2 by the stream's port), kept in order."""
    for i in range(n):
        x = s.read()
        y = s.read()
        o.write(x + y)
        o.write(x - y if x > y else y - x)


@hls.kernel
def lookup(s: hls.Stream[unsigned(4)], table: hls.Array[signed(16), 16], o: hls.Stream[signed(16)],
           n: unsigned(8)):
    """A memory read addressed by a token: the read port must hold its data through a stall."""
    for i in range(n):
        k = s.read()
        o.write(table[k] + k)


@hls.kernel
def until_zero(s: hls.Stream[unsigned(8)], o: hls.Stream[unsigned(8)]) -> unsigned(8):
    """A loop that ends on a token: nothing after the exiting read may be taken."""
    count: unsigned(8) = 0
    while True:
        x = s.read()
        if x == 0:
            break
        o.write(x >> 1)
        count += 1
    return count


@hls.kernel
def framed(s: hls.Stream[unsigned(8)], o: hls.Stream[unsigned(12)]) -> unsigned(12):
    """Straight-line code around a loop: a header token gives the length, a trailer the sum."""
    n = s.read()
    total: unsigned(12) = 0
    for i in range(n):
        x = s.read()
        total = total + x
        o.write(x)
    o.write(total)
    return total


@hls.kernel
def histogram(s: hls.Stream[unsigned(3)], h: hls.Array[unsigned(8), 8], n: unsigned(8)):
    """A read-modify-write of memory driven by tokens (forwarding across a stall)."""
    for i in range(n):
        k = s.read()
        h[k] = h[k] + 1


@hls.kernel
def bursts(s: hls.Stream[unsigned(4)], o: hls.Stream[unsigned(8)], m: unsigned(4)):
    """An inner loop whose runs may overlap the outer code (hls.analysis.overlap): the next
    burst's length must still be read after the last token of this one (the divider makes the inner
    pipeline deep enough to overlap)."""
    r: unsigned(4) = 0
    while r < m:
        n = s.read()
        for i in range(n):
            x = s.read()
            o.write(x * 16 // (r + 1))
        r += 1


@hls.kernel
def reverse(s: hls.Stream[signed(8)], o: hls.Stream[signed(8)], n: unsigned(5)):
    """Tokens through an on-chip memory (hls.local) that must hold through stalls."""
    buf = hls.local(signed(8), 16)
    for i in range(n):
        x = s.read()
        buf[i] = x
    for i in range(n):
        o.write(buf[n - 1 - i])


@hls.kernel
def local_counts(s: hls.Stream[unsigned(2)], o: hls.Stream[unsigned(8)], n: unsigned(8)):
    """A read-modify-write of an on-chip memory (hls.local) at a token's address: an iteration
    reads what the one before it wrote, while that write still waits in the memory's pending
    write registers, and a stall between them must hold that write."""
    counts = hls.local(unsigned(8), 4)
    for i in range(n):
        k = s.read()
        c = counts[k] + 1
        counts[k] = c
        o.write(c)


@hls.kernel(clock_mhz=250)
def products(a: hls.Stream[signed(16)], b: hls.Stream[signed(16)], o: hls.Stream[signed(32)], n: unsigned(8)):
    """A multiplier pipelined in stages (250 MHz): its stage registers hold through stalls too."""
    for i in range(n):
        x = a.read()
        y = b.read()
        o.write(x * y)


@hls.kernel
def divide(s: hls.Stream[signed(12)], o: hls.Stream[signed(12)], d: signed(6), n: unsigned(8)):
    """Floor division and remainder by a variable: a divider unit in the stream's pipeline."""
    for i in range(n):
        x = s.read()
        o.write(x // d + x % d)
