"""Pipelined `for` loops whose bounds are run-time values at the edges of their shapes: the loop
control's exit test (tests/compiler/test_loop_control.py)."""

import hls
from amaranth import signed, unsigned


@hls.kernel
def up_unsigned(a: hls.Array[signed(16), 64], lo: unsigned(6), hi: unsigned(7)) -> signed(32):
    s: signed(32) = 0
    for i in range(lo, hi):
        s = s + a[i & 63]
    return s


@hls.kernel
def up_signed(a: hls.Array[signed(16), 64], lo: signed(8), hi: signed(8)) -> signed(32):
    s: signed(32) = 0
    for i in range(lo, hi):
        s = s + a[i & 63]
    return s


@hls.kernel
def up_mixed(a: hls.Array[signed(16), 64], lo: signed(5), hi: unsigned(8)) -> signed(32):
    s: signed(32) = 0
    for i in range(lo, hi):
        s = s + a[i & 63]
    return s


@hls.kernel
def up_by_three(a: hls.Array[signed(16), 64], lo: unsigned(6), hi: unsigned(7)) -> signed(32):
    s: signed(32) = 0
    for i in range(lo, hi, 3):
        s = s + a[i & 63]
    return s


@hls.kernel
def up_ii_two(a: hls.Array[signed(16), 64], n: unsigned(7)) -> signed(32):
    s: signed(32) = 0
    for i in hls.pipeline(range(n), ii=2):
        s = s + a[i & 63]
    return s
