"""Small kernels that pin down the places where Python and hardware could differ.

Each is simulated against its own Python run in ``test_semantics.py``.
"""

import hls
from amaranth import signed, unsigned


@hls.kernel
def arith(a: hls.Array[signed(8), 16], b: hls.Array[signed(8), 16], out: hls.Array[signed(16), 16],
          n: unsigned(5)):
    for i in range(n):
        x = a[i]
        y = b[i]
        out[i] = (x // y) + (x % y) * 3 - (x >> 2) + ((y << 1) ^ x)


@hls.kernel
def bits(a: hls.Array[unsigned(6), 16], n: unsigned(5)) -> unsigned(16):
    s: unsigned(16) = 0
    for i in range(n):
        v = a[i]
        t: unsigned(6) = ~v
        s = s + (t & 0x1F) + min(v, 20) + max(v, 9) + abs(v - 32)
    return s


@hls.kernel
def logic(a: hls.Array[signed(8), 16], n: unsigned(5)) -> tuple[unsigned(8), signed(16)]:
    hits: unsigned(8) = 0
    acc: signed(16) = 0
    for i in range(n):
        v = a[i]
        if v > 0 and v & 1:
            hits = hits + 1
        elif v < -10 or not v:
            acc = acc - 1
        else:
            acc = acc + (v if v > 5 else -v)
        if -3 < v < 3:
            acc = acc + 100
    return hits, acc


@hls.kernel
def control(a: hls.Array[unsigned(8), 16], n: unsigned(5), limit: unsigned(12)) -> unsigned(12):
    total: unsigned(12) = 0
    i: unsigned(5) = 0
    while i < n:
        v = a[i]
        i = i + 1
        if v == 0:
            continue
        total = total + v
        if total > limit:
            break
    return total


@hls.kernel
def branchy_loops(a: hls.Array[unsigned(8), 16], mode: unsigned(1)) -> unsigned(16):
    s: unsigned(16) = 0
    if mode:
        for i in range(16):
            s = s + a[i]
    else:
        for i in hls.sequential(range(0, 16, 2)):
            s = s + a[i] * 2
    return s


@hls.kernel
def pragma_ii(a: hls.Array[unsigned(8), 16], b: hls.Array[unsigned(16), 16], n: unsigned(5)):
    for i in hls.pipeline(range(n), ii=2):
        b[i] = a[i] * a[i]


@hls.kernel(resources={"mul": 1})
def one_multiplier(a: hls.Array[signed(8), 16], b: hls.Array[signed(8), 16], n: unsigned(5)) -> signed(24):
    s: signed(24) = 0
    for i in range(n):
        x = a[i]
        y = b[i]
        s = s + x * y + x * 3
    return s


@hls.kernel
def shift_window(a: hls.Array[signed(16), 16], b: hls.Array[signed(16), 16]):
    for i in range(1, 16):
        b[i] = a[i] + a[i - 1]


@hls.kernel
def in_place(a: hls.Array[unsigned(8), 16]):
    for i in range(1, 16):
        a[i] = a[i] + a[i - 1]


@hls.kernel
def exclusive_stores(a: hls.Array[signed(8), 16], pos: hls.Array[signed(8), 16], neg: hls.Array[signed(8), 16]):
    for i in range(16):
        v = a[i]
        if v >= 0:
            pos[i] = v
        else:
            neg[i] = v
            pos[i] = 0


@hls.kernel
def later_use(a: hls.Array[signed(16), 16], out: hls.Array[signed(16), 16]):
    prev: signed(16) = 0
    for i in range(16):
        old = prev
        prev = a[i]
        out[i] = (old * prev) >> 4


@hls.kernel
def first_match_store(a: hls.Array[unsigned(8), 16], b: hls.Array[unsigned(8), 16], t: unsigned(8),
                      n: unsigned(5)) -> unsigned(5):
    found: unsigned(5) = 16
    for i in range(n):
        b[i] = a[i] + 1
        if a[i] == t:
            found = i
            break
        b[i] = a[i] + 2
    return found


@hls.kernel
def countdown(a: hls.Array[unsigned(8), 16], x: unsigned(8)) -> tuple[unsigned(8), unsigned(8)]:
    steps: unsigned(8) = 0
    while x > 3:
        a[x & 15] = steps
        x = x - 3
        steps = steps + 1
        if x == 7:
            continue
        a[(x + 1) & 15] = x
    return x, steps


@hls.kernel
def skip_odd(a: hls.Array[unsigned(8), 16], n: unsigned(5)) -> unsigned(12):
    s: unsigned(12) = 0
    for i in range(n):
        if a[i] & 1:
            continue
        s = s + a[i]
    return s


@hls.kernel
def scatter_add(x: hls.Array[unsigned(3), 16], w: hls.Array[signed(8), 16], h: hls.Array[signed(12), 8],
                n: unsigned(5)):
    for i in range(n):
        h[x[i]] = h[x[i]] + w[i]


@hls.kernel
def two_stores(x: hls.Array[unsigned(3), 16], h: hls.Array[unsigned(8), 8], n: unsigned(5)):
    for i in range(n):
        u = x[i]
        v = (u + 3) & 7
        if h[u] < h[v]:
            h[u] = h[v] + 1
            h[v] = h[u] + 2
        else:
            h[v] = h[u] + i


@hls.kernel
def running_max(a: hls.Array[signed(8), 16], start: unsigned(4), n: unsigned(5)):
    for i in range(start, n):
        if a[i - 1] > a[i]:
            a[i] = a[i - 1]


@hls.kernel
def many_stores(x: hls.Array[unsigned(3), 16], h: hls.Array[unsigned(8), 8], n: unsigned(5)):
    for i in range(n):
        v = h[x[i]] + 1
        if v & 1:
            h[0] = v
        if v & 2:
            h[1] = v + 1
        if v & 4:
            h[2] = v + 2
        if v & 8:
            h[3] = v + 3
        if v & 16:
            h[4] = v + 4
        if v & 32:
            h[5] = v + 5
        if v & 64:
            h[6] = v + 6
        h[7] = v
