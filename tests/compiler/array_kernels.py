"""Kernels for the tests of hls.unroll, partitioned parameter arrays and hls.local arrays."""

import hls
from amaranth import signed, unsigned


@hls.kernel
def unroll_full(a: hls.Array[signed(16), 16]) -> signed(32):
    s: signed(32) = 0
    for t in hls.unroll(range(8)):
        s = s + a[2 * t] * t
    return s


@hls.kernel
def unroll_partial(a: hls.Array[signed(16), 64], b: hls.Array[signed(16), 64], n: unsigned(7)):
    for i in hls.unroll(range(n), factor=4):
        b[i] = a[i] * 3 - i
    return


@hls.kernel
def unroll_partial_constant(a: hls.Array[signed(16), 64]) -> signed(32):
    s: signed(32) = 0
    for i in hls.unroll(range(3, 30, 2), factor=4):     # 14 iterations: 3 unrolled, 2 left over
        acc: signed(20) = a[i]
        s = s + acc
    return s


@hls.kernel
def unroll_nested(a: hls.Array[signed(16), 64], out: hls.Array[signed(32), 16], n: unsigned(5)):
    for i in range(n):
        s: signed(32) = 0
        for k in hls.unroll(range(4)):
            s = s + a[4 * i + k]
        out[i] = s


@hls.kernel
def pipeline_unrolls_inner(a: hls.Array[signed(16), 64, hls.partition("cyclic", 4)],
                           out: hls.Array[signed(32), 16], n: unsigned(5)):
    for i in hls.pipeline(range(n)):
        s: signed(32) = 0
        for k in range(4):
            s = s + a[4 * i + k]
        out[i] = s


@hls.kernel
def sum4_plain(a: hls.Array[signed(16), 64]) -> signed(32):
    s: signed(32) = 0
    for i in range(16):
        s = s + (a[4 * i] + a[4 * i + 1]) + (a[4 * i + 2] + a[4 * i + 3])
    return s


@hls.kernel
def sum4_cyclic(a: hls.Array[signed(16), 64, hls.partition("cyclic", 4)]) -> signed(32):
    s: signed(32) = 0
    for i in range(16):
        s = s + (a[4 * i] + a[4 * i + 1]) + (a[4 * i + 2] + a[4 * i + 3])
    return s


@hls.kernel
def halves_block(a: hls.Array[signed(16), 64, hls.partition("block", 2)],
                 out: hls.Array[signed(17), 32]):
    for i in range(32):
        out[i] = a[i] + a[i + 32]


@hls.kernel
def dynamic_cyclic(a: hls.Array[signed(16), 16, hls.partition("cyclic", 4)],
                   x: hls.Array[unsigned(4), 16], n: unsigned(5)) -> signed(32):
    s: signed(32) = 0
    for i in range(n):
        s = s + a[x[i]]
        a[x[i]] = a[x[i]] + 1
    return s


@hls.kernel
def dynamic_block(a: hls.Array[signed(16), 16, hls.partition("block", 4)],
                  x: hls.Array[unsigned(4), 16], n: unsigned(5)) -> signed(32):
    s: signed(32) = 0
    for i in range(n):
        a[x[i]] = a[x[i]] + i
        s = s + a[15 - x[i]]
    return s


@hls.kernel
def complete_param(a: hls.Array[signed(8), 4, hls.partition("complete")],
                   x: hls.Array[unsigned(2), 16], n: unsigned(5)) -> signed(16):
    s: signed(16) = 0
    for i in range(n):
        s = s + a[0] * a[3] + a[x[i]]
        a[x[i]] = a[1] + i
    return s


@hls.kernel
def local_memory(a: hls.Array[signed(16), 32], n: unsigned(6)) -> signed(32):
    buf = hls.local(signed(16), 32)
    for i in range(n):
        buf[31 - i] = a[i] * 2
    s: signed(32) = 0
    for i in range(32):
        s = s + buf[i] * i
    return s


@hls.kernel
def local_cyclic(a: hls.Array[signed(16), 32], n: unsigned(6)) -> signed(32):
    buf = hls.local(signed(16), 32, partition=hls.partition("cyclic", 2))
    for i in range(n):
        buf[i] = a[i]
    s: signed(32) = 0
    for i in range(16):
        s = s + buf[2 * i] - buf[2 * i + 1]
    return s


@hls.kernel
def local_registers(a: hls.Array[signed(16), 32], n: unsigned(6)) -> signed(32):
    w = hls.local(signed(16), 4, partition=hls.partition("complete"))
    s: signed(32) = 0
    for i in range(n):
        w[0] = w[1]
        w[1] = w[2]
        w[2] = w[3]
        w[3] = a[i]
        s = s + w[0] - w[3] + w[i & 3]
    return s


@hls.kernel
def register_scatter(x: hls.Array[unsigned(3), 16], v: hls.Array[signed(8), 16],
                     out: hls.Array[signed(16), 8], n: unsigned(5)):
    r = hls.local(signed(16), 8, partition=hls.partition("complete"))
    for i in range(n):
        r[x[i]] = r[x[i]] + v[i]
    for t in hls.unroll(range(8)):
        out[t] = r[t]


@hls.kernel
def unroll_step(a: hls.Array[signed(16), 64], n: unsigned(7)) -> signed(32):
    s: signed(32) = 0
    for i in hls.unroll(range(1, n, 3), factor=2):
        s = s + a[i] * i
    return s


@hls.kernel
def unroll_banked(a: hls.Array[signed(16), 64, hls.partition("cyclic", 4)],
                  b: hls.Array[signed(16), 64, hls.partition("cyclic", 4)], n: unsigned(7)):
    for i in hls.unroll(range(n), factor=4):
        b[i] = a[i] * 3 - i


@hls.kernel
def complete_six(a: hls.Array[signed(16), 6, hls.partition("complete")],
                 x: hls.Array[unsigned(3), 16], n: unsigned(5)) -> signed(32):
    s: signed(32) = 0
    for i in range(n):
        s = s + a[x[i]]
    return s
