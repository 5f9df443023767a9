"""Nests that are not flattened (an inner ``while``, two inner loops): their inner runs overlap, or
stay sequential for a reason the report names (issue 11, hls.analysis.overlap)."""

import hls
from amaranth import signed, unsigned


@hls.kernel
def scan(a: hls.Array[signed(16), 64], out: hls.Array[signed(32), 64], w: signed(16)):
    # The exit resolves in cycle 1; the multiply and the store drain for three more.
    for r in range(8):
        base: unsigned(6) = r * 8
        j: unsigned(4) = 0
        while j < 8 and a[base + j] != 0:
            out[base + j] = a[base + j] * w
            j = j + 1


@hls.kernel
def scan_from(a: hls.Array[signed(16), 64], start: hls.Array[unsigned(4), 8], out: hls.Array[signed(32), 64],
              w: signed(16)):
    # start[r] >= 8 makes that row's run empty: its one iteration only exits.
    for r in range(8):
        base: unsigned(6) = r * 8
        j: unsigned(4) = start[r]
        while j < 8 and a[base + j] != 0:
            out[base + j] = a[base + j] * w
            j = j + 1


@hls.kernel
def scan_break(a: hls.Array[signed(16), 64], out: hls.Array[signed(32), 64], key: signed(16), w: signed(16)):
    for r in range(8):
        base: unsigned(6) = r * 8
        j: unsigned(4) = 0
        while j < 8:
            x = a[base + j]
            if x == key:
                break
            out[base + j] = x * w
            j = j + 1


@hls.kernel
def chained_rows(a: hls.Array[signed(16), 64], out: hls.Array[signed(32), 64], w: signed(16)):
    # The next run's prefix reads the previous row's last element, which the draining run may
    # still be storing: the overlap is cut to what that store leaves.
    for r in range(8):
        base: unsigned(6) = r * 8
        prev = out[(base + 63) & 63]
        j: unsigned(4) = 0
        while j < 8 and a[base + j] != 0:
            out[base + j] = a[base + j] * w + prev
            j = j + 1


@hls.kernel
def search_rows(a: hls.Array[signed(16), 64], key: hls.Array[signed(16), 8], out: hls.Array[unsigned(4), 8]):
    # A binary search per row: its result is stored right after the run. The exiting iteration
    # (lo < hi false) commits nothing, and the one before it committed lo a cycle before the
    # run passes control on: one cycle of overlap.
    for r in range(8):
        k = key[r]
        lo: unsigned(4) = 0
        hi: unsigned(4) = 8
        while lo < hi:
            mid = (lo + hi) >> 1
            if a[r * 8 + mid] < k:
                lo = mid + 1
            else:
                hi = mid
        out[r] = lo


@hls.kernel
def two_inner_loops(a: hls.Array[signed(16), 64], out: hls.Array[signed(32), 64], w: signed(16)):
    # Two loops one after another in the body (not flattened); the second reads the first's sum.
    for r in range(8):
        s: signed(32) = 0
        for j in range(8):
            s = s + a[r * 8 + j]
        for j in range(8):
            out[r * 8 + j] = a[r * 8 + j] * w + s


@hls.kernel
def outer_while(a: hls.Array[signed(16), 64], out: hls.Array[signed(32), 64], n: unsigned(4), w: signed(16)):
    r: unsigned(4) = 0
    while r < n:
        base: unsigned(6) = r * 8
        j: unsigned(4) = 0
        while j < 8 and a[base + j] != 0:
            out[base + j] = a[base + j] * w
            j = j + 1
        r = r + 1


@hls.kernel
def sequential_outer(a: hls.Array[signed(16), 64], out: hls.Array[signed(32), 64], w: signed(16)):
    for r in hls.sequential(range(8)):
        base: unsigned(6) = r * 8
        j: unsigned(4) = 0
        while j < 8 and a[base + j] != 0:
            out[base + j] = a[base + j] * w
            j = j + 1


@hls.kernel
def chained_break(a: hls.Array[signed(16), 64], out: hls.Array[signed(32), 64], t: hls.Array[signed(32), 2],
                  w: signed(16)):
    # The breaking iteration itself stores t[0] in its last cycle, and the next prefix reads it:
    # one cycle of overlap is all the store leaves (two give wrong results).
    for r in range(8):
        prev = t[0]
        j: unsigned(4) = 0
        while j < 8:
            x = a[r * 8 + j]
            t[0] = x * w + prev
            out[r * 8 + j] = prev
            j = j + 1
            if x == 0:
                break


@hls.kernel
def sum_until_zero(a: hls.Array[signed(16), 64], out: hls.Array[signed(32), 8], w: signed(16)):
    # s is updated before the break, so the breaking iteration commits it in its last cycle, and
    # it is stored right after the run: the runs stay sequential.
    for r in range(8):
        s: signed(32) = 0
        j: unsigned(4) = 0
        while j < 8:
            x = a[r * 8 + j]
            s = s + x * w
            if x == 0:
                break
            j = j + 1
        out[r] = s


@hls.kernel
def scan_divide(a: hls.Array[signed(16), 64], div: hls.Array[signed(8), 8], out: hls.Array[signed(16), 64]):
    # The divider's stages drain for many cycles after the exit: the next run's first iterations
    # enter the pipeline while the previous run's last ones are still in it.
    for r in range(8):
        base: unsigned(6) = r * 8
        d = div[r]
        j: unsigned(4) = 0
        while j < 8 and a[base + j] != 0:
            out[base + j] = a[base + j] // d
            j = j + 1


@hls.kernel
def nest_in_while(a: hls.Array[signed(16), 64], out: hls.Array[signed(32), 64], n: unsigned(3),
                  w: signed(16)):
    # The for nest is flattened into one pipelined loop, whose runs (one per outer while iteration)
    # overlap like any inner loop's.
    k: unsigned(3) = 0
    while k < n:
        for i in range(2):
            for j in range(4):
                out[k * 8 + i * 4 + j] = a[k * 8 + i * 4 + j] * w + k
        k = k + 1
