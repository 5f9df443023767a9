"""Kernels of tests/compiler/test_dead_code.py (in a file of their own: the compiler reads their
source)."""

from amaranth import signed, unsigned

import hls

N = 16


@hls.kernel
def sum_only(a: hls.Array[signed(16), N], n: unsigned(5)) -> signed(24):
    s: signed(24) = 0
    for i in range(n):
        s = s + a[i]
    return s


@hls.kernel
def dead_divide(a: hls.Array[signed(16), N], n: unsigned(5)) -> signed(24):
    # `slow` goes round a divider every iteration and nothing reads it: sum_only's hardware.
    s: signed(24) = 0
    slow: signed(16) = 1
    for i in range(n):
        s = s + a[i]
        slow = slow // (a[i] | 1) + 3
    return s


@hls.kernel
def live_divide(a: hls.Array[signed(16), N], n: unsigned(5)) -> tuple[signed(24), signed(16)]:
    # dead_divide with `slow` returned: its recurrence bounds the II.
    s: signed(24) = 0
    slow: signed(16) = 1
    for i in range(n):
        s = s + a[i]
        slow = slow // (a[i] | 1) + 3
    return s, slow


@hls.kernel
def dead_read(a: hls.Array[unsigned(8), N], out: hls.Array[unsigned(9), N], n: unsigned(4)):
    # The second read of `a` feeds only `t`, which nothing reads: one read port is enough.
    for i in range(n):
        t = a[(i + 1) & (N - 1)] * 3
        out[i] = a[i] + 1


@hls.kernel
def dead_local(a: hls.Array[unsigned(8), N], x: unsigned(8)) -> unsigned(8):
    # `buf` is written and read, but what is read reaches no result: every access goes, and
    # `buf` stays declared with none.  `keep` is written, read and returned: all of it stays.
    buf = hls.local(unsigned(8), 4)
    keep = hls.local(unsigned(8), 4)
    buf[x & 3] = a[0] * x
    keep[x & 3] = a[1] + x
    v: unsigned(8) = buf[(x + 1) & 3] // (x | 1)
    return keep[x & 3] ^ x


@hls.kernel
def written_not_read(a: hls.Array[unsigned(8), N], x: unsigned(8)):
    # A store to an array parameter is an output, though the kernel never reads it back.
    a[x & (N - 1)] = x + 1


@hls.kernel
def discarded_tokens(s: hls.Stream[unsigned(8)], o: hls.Stream[unsigned(8)], n: unsigned(4)):
    # Every other token is read and dropped: the read still takes it from the stream.
    for i in range(n):
        skipped = s.read()
        kept = s.read()
        o.write(kept + 1)


@hls.kernel
def counted_while(a: hls.Array[unsigned(8), N], limit: unsigned(12)) -> unsigned(5):
    # `total` is read only by the loop's condition and `junk` by nothing: control keeps `total`.
    total: unsigned(12) = 0
    junk: unsigned(16) = 0
    i: unsigned(5) = 0
    while total < limit and i < N:
        total = total + a[i]
        junk = junk * a[i] + 1
        i = i + 1
    return i


@hls.kernel
def sequential_dead(a: hls.Array[unsigned(8), N], n: unsigned(5)) -> unsigned(12):
    # The outer loop runs as a state machine around the pipelined inner one: `dead` is
    # written in several blocks and read in none.
    s: unsigned(12) = 0
    dead: unsigned(16) = 0
    for r in hls.sequential(range(2)):
        dead = dead + r * 7
        for i in range(n):
            s = s + a[i]
            dead = dead ^ a[i]
        dead = dead // 3
    return s


@hls.kernel
def read_then_overwritten(a: hls.Array[unsigned(8), N], n: unsigned(4)) -> unsigned(8):
    # The body reads `v` only for `w`, which nothing reads, then overwrites it: `v` is returned,
    # so each iteration commits it, but no iteration reads what the one before carried.
    v: unsigned(8) = 0
    for i in range(n):
        w = v * 3
        v = a[i]
    return v


@hls.kernel(approx={"mul": ("drum", {"k": 4})})
def dead_product(a: unsigned(8), b: unsigned(8), c: unsigned(8)) -> unsigned(9):
    unused = a * b
    return a + c


@hls.kernel
def dead_call(a: unsigned(8), b: unsigned(8), c: unsigned(8)) -> unsigned(16):
    unused = hls.approx.mul(a, b, unit="mitchell")
    return hls.approx.mul(a, c, unit="drum", k=4)
