"""Kernels with approximate units, per call (hls.approx) and per kernel (approx=), for the tests."""

from amaranth import signed, unsigned

import hls

N = 24


@hls.kernel
def mul_u16(x: hls.Array[unsigned(16), N], y: hls.Array[unsigned(16), N], q: hls.Array[unsigned(32), N]):
    for i in range(N):
        q[i] = x[i] * y[i]


@hls.kernel
def mul_s16(x: hls.Array[signed(16), N], y: hls.Array[signed(16), N], q: hls.Array[signed(32), N]):
    for i in range(N):
        q[i] = x[i] * y[i]


@hls.kernel
def mul_mixed(x: hls.Array[signed(12), N], y: hls.Array[unsigned(6), N], q: hls.Array[signed(18), N]):
    for i in range(N):
        q[i] = x[i] * y[i] + 3 * x[i]       # 3 * x has a constant operand: it stays exact


@hls.kernel
def div_u16_u8(x: hls.Array[unsigned(16), N], d: hls.Array[unsigned(8), N], q: hls.Array[unsigned(16), N]):
    for i in range(N):
        q[i] = x[i] // d[i]


@hls.kernel
def div_s16_u8(x: hls.Array[signed(16), N], d: hls.Array[unsigned(8), N], q: hls.Array[signed(16), N]):
    for i in range(N):
        q[i] = x[i] // d[i]


@hls.kernel
def add_s12(x: hls.Array[signed(12), N], y: hls.Array[signed(12), N], q: hls.Array[signed(13), N]):
    for i in range(N):
        q[i] = x[i] + y[i]


@hls.function
def square(v: signed(16)) -> signed(32):
    return v * v


@hls.kernel
def mac(x: hls.Array[signed(16), N], y: hls.Array[signed(16), N], n: unsigned(5)) -> signed(40):
    s: signed(40) = 0
    for i in range(n):
        s += x[i] * y[i] + square(x[i])
    return s


@hls.kernel
def per_call(x: hls.Array[unsigned(16), N], y: hls.Array[unsigned(16), N], d: hls.Array[unsigned(8), N],
             p: hls.Array[unsigned(32), N], s: hls.Array[unsigned(17), N], q: hls.Array[unsigned(16), N]):
    for i in range(N):
        p[i] = hls.approx.mul(x[i], y[i], unit="mitchell_refined")
        s[i] = hls.approx.add(x[i], y[i], unit="loa", l=5)
        q[i] = hls.approx.div(x[i], d[i], unit="mitchell_div_refined", index_bits=3)


@hls.kernel
def per_call_signed(x: hls.Array[signed(16), N], y: hls.Array[signed(16), N], p: hls.Array[signed(32), N]):
    for i in range(N):
        p[i] = hls.approx.mul(x[i], y[i], unit="drum", k=6) - x[i] * y[i]


@hls.kernel(resources={"mul": 1})
def two_products(x: hls.Array[unsigned(16), N], y: hls.Array[unsigned(16), N], q: hls.Array[unsigned(33), N]):
    for i in range(N):
        q[i] = x[i] * y[i] + y[i] * x[i]


@hls.kernel
def per_call_8(x: hls.Array[signed(8), N], y: hls.Array[unsigned(8), N], p: hls.Array[signed(16), N],
               s: hls.Array[signed(10), N], q: hls.Array[signed(9), N]):
    for i in range(N):
        p[i] = hls.approx.mul(x[i], y[i], unit="mitchell")
        s[i] = hls.approx.add(x[i], y[i], unit="gear", r=3, p=3)
        q[i] = hls.approx.div(x[i], y[i], unit="mitchell_div")


@hls.kernel(approx={"mul": ("drum", {"k": 6})})
def accumulate_squares(a: hls.Array[signed(16), 16], n: unsigned(5)) -> signed(40):
    s: signed(40) = 0
    for i in range(n):
        d = a[i]
        s = s + d * d
    return s
