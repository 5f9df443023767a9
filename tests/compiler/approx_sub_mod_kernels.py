"""Kernels with approximate ``-`` (an adder unit) and ``%`` (a divider unit), for tests/compiler/test_approx_sub_mod.py."""

from amaranth import signed, unsigned

import hls

N = 24


# Signed minus unsigned, and a remainder by an unsigned divisor of a signed dividend (% takes y's shape).
@hls.kernel(approx={"sub": ("loa", {"l": 3}), "mod": "mitchell_div"})
def mixed(x: hls.Array[signed(7), N], y: hls.Array[unsigned(5), N],
          d: hls.Array[signed(9), N], r: hls.Array[unsigned(5), N]):
    for i in range(N):
        d[i] = x[i] - y[i]
        r[i] = x[i] % y[i]


# Both signed, of unequal widths.
@hls.kernel(approx={"sub": ("trunc_add", {"l": 2}), "mod": ("aaxd", {"k": 3})})
def signed_both(x: hls.Array[signed(6), N], y: hls.Array[signed(4), N],
                d: hls.Array[signed(7), N], r: hls.Array[signed(4), N]):
    for i in range(N):
        d[i] = x[i] - y[i]
        r[i] = x[i] % y[i]


# Unsigned, per call, a narrow divisor.
@hls.kernel
def unsigned_calls(x: hls.Array[unsigned(8), N], y: hls.Array[unsigned(3), N],
                   d: hls.Array[signed(9), N], r: hls.Array[unsigned(3), N]):
    for i in range(N):
        d[i] = hls.approx.sub(x[i], y[i], unit="eta1", l=2)
        r[i] = hls.approx.mod(x[i], y[i], unit="mitchell_div_refined", index_bits=2)


# Exact kernels that the exhaustive tests give every unit (kernel.with_approx): each returns the
# exact operator's shape, so that the result is the operation's own value.

@hls.kernel
def sub_s3_u4(x: signed(3), y: unsigned(4)) -> signed(6):
    return x - y


@hls.kernel
def mod_s4_u3(x: signed(4), y: unsigned(3)) -> unsigned(3):
    return x % y


# A line with a `+` and a `%`, none with `-`: an operation key must name one of them.
@hls.kernel
def no_sub(x: unsigned(8), y: unsigned(8)) -> unsigned(9):
    return (x + y) % y
