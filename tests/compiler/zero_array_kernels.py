"""Kernels of tests/compiler/test_zero_arrays.py (in a file of their own: the compiler reads their
source): ``hls.local`` arrays that only ever hold 0, whose reads constant folding makes 0
(hls.ir.fold)."""

from amaranth import signed, unsigned

import hls

N = 16


@hls.kernel
def unwritten(a: hls.Array[signed(8), N], out: hls.Array[signed(10), N], n: unsigned(5),
              k: unsigned(3)) -> unsigned(5):
    # `buf` is never written: `out[i] = a[i]` (`a[i] + 0`), the shift and abs are 0, the
    # comparison is decided (`count` stays 0).
    buf = hls.local(signed(8), 8)
    count: unsigned(5) = 0
    for i in range(n):
        out[i] = a[i] + abs(buf[i & 7] >> k)
        if buf[(i + 1) & 7] > 3:
            count = count + 1
    return count


@hls.kernel
def parameter_read(a: hls.Array[signed(8), N], n: unsigned(5)) -> signed(12):
    # `a` is never written either, but it is a parameter: its memory is outside, not zeros.
    s: signed(12) = 0
    for i in range(n):
        s = s + a[i]
    return s


@hls.kernel
def written_with_zeros(a: hls.Array[unsigned(8), N], n: unsigned(5)) -> unsigned(12):
    # Every store to `buf` writes 0 or one of its own elements: it holds 0 throughout.
    buf = hls.local(unsigned(8), 4)
    s: unsigned(12) = 0
    for i in range(n):
        buf[i & 3] = buf[(i + 1) & 3]
        buf[(i + 2) & 3] = a[i] & 0
        s = s + a[i] + buf[(i + 3) & 3]
    return s


@hls.kernel
def written_under_a_zero(a: hls.Array[unsigned(8), N], x: unsigned(8)) -> unsigned(9):
    # `buf`'s store happens only where `flags` (never written) is non-zero: never, so `buf` is
    # never written either (a second round of folding), and `keep` is written and read.
    flags = hls.local(unsigned(1), 4)
    buf = hls.local(unsigned(8), 4)
    keep = hls.local(unsigned(8), 4)
    if flags[x & 3]:
        buf[x & 3] = a[0] + 1
    keep[x & 3] = a[1] ^ x
    return buf[(x + 1) & 3] + keep[x & 3]


@hls.kernel
def odd_bank_unwritten(a: hls.Array[unsigned(8), N], n: unsigned(4), j: unsigned(3)) -> unsigned(12):
    # Only the even elements are written: bank 1 of the cyclic partition holds 0, bank 0 does not.
    buf = hls.local(unsigned(8), 8, partition=hls.partition("cyclic", 2))
    for i in range(4):
        buf[2 * i] = a[i] + 1
    s: unsigned(12) = 0
    for i in range(n):
        s = s + buf[(2 * i + 1) & 7] + buf[(i + j) & 7]
    return s


@hls.kernel
def unwritten_registers(x: unsigned(8), y: signed(4)) -> signed(12):
    # `r` is held in registers and never written: the multiplexer on `max(y, 0)` chooses among
    # zeros, and the select after it is decided (fuzz_5_0's shape).
    r = hls.local(signed(8), 8, partition=hls.partition("complete"))
    v: signed(12) = x if r[max(y, 0) & 7] != -128 else -x
    return v - r[3]
