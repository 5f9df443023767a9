"""Kernels of issue 11's three scheduler refinements (``test_refinements.py``).

Each is a pattern that cost a cycle of II the loop does not need: a read that
waited for the loop condition guarding it, an expression computed again under
another predicate, and a carried value that waited for a ``break``.
"""

import hls
from amaranth import signed, unsigned


@hls.kernel
def binary_search(a: hls.Array[signed(16), 64], n: unsigned(7), key: signed(16)) -> unsigned(7):
    lo: unsigned(7) = 0
    hi: unsigned(7) = n
    while lo < hi:
        mid = (lo + hi) >> 1
        if a[mid] < key:
            lo = mid + 1
        else:
            hi = mid
    return lo


@hls.kernel
def pick(a: hls.Array[signed(16), 32], b: hls.Array[signed(16), 32], n: unsigned(6)) -> signed(16):
    s: signed(16) = 0
    for i in range(n):
        if b[i] > 0:
            x = a[i]
        else:
            x = a[31 - i]
        s = s + x
    return s


@hls.kernel
def bubble_pass(a: hls.Array[signed(16), 32], n: unsigned(6)):
    for j in range(n - 1):
        if a[j] > a[j + 1]:
            t = a[j]
            a[j] = a[j + 1]
            a[j + 1] = t


@hls.kernel
def bubble_sort(a: hls.Array[signed(16), 32], n: unsigned(6)):
    for i in range(n):
        for j in range(n - 1 - i):
            if a[j] > a[j + 1]:
                t = a[j]
                a[j] = a[j + 1]
                a[j + 1] = t


@hls.kernel
def reread(a: hls.Array[signed(16), 32], out: hls.Array[signed(16), 32], n: unsigned(6)):
    for i in range(n):
        if a[i] > 0:
            a[i] = 0
        out[i] = a[i] + 1


@hls.kernel
def skip_to_zero(a: hls.Array[signed(16), 64], n: unsigned(7), i0: unsigned(6)) -> unsigned(7):
    i: unsigned(7) = i0
    for k in range(n):
        if a[i] == 0:
            break
        i += 1
    return i


@hls.kernel
def skip_nested(a: hls.Array[signed(8), 64], n: unsigned(7)) -> tuple[unsigned(7), signed(12)]:
    i: unsigned(7) = 0
    s: signed(12) = 0
    for k in range(n):
        if a[i] != 1:
            if a[i] == 0:
                break
            s = s + a[i]
        i += 1
    return i, s


@hls.kernel
def break_and_continue(a: hls.Array[signed(8), 64], n: unsigned(7)) -> tuple[unsigned(7), signed(12)]:
    i: unsigned(7) = 0
    s: signed(12) = 0
    for k in range(n):
        v = a[i]
        if v == 0:
            break
        elif v == 1:
            i += 2
            continue
        if v < 0:
            s = s + v
            if s < -100:
                break
            i += 1
        i += 1
    return i, s


@hls.kernel
def store_then_read(a: hls.Array[signed(16), 32], b: hls.Array[signed(16), 32], out: hls.Array[signed(16), 32],
                    n: unsigned(6)) -> signed(16):
    s: signed(16) = 0
    for i in range(n):
        if b[i] > 0:
            a[i] = b[i]
        else:
            s = s + a[i]
        out[i] = a[i]
    return s


@hls.kernel
def two_scalar_cells(a: hls.Array[signed(12), 8], b: hls.Array[signed(8), 8], n: unsigned(4)):
    # Each cell is read only in the first iteration (then forwarded): the two first reads of `a`
    # share its port one after the other (fuzzer seed 0 index 318 found the cycle between them).
    for i in range(n):
        a[0] += b[i]
        a[1] += 3
