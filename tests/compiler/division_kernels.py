"""Kernels that divide by a variable in every iteration (issue 12: pipelined division).

Each stores both the floor quotient and the remainder, so ``//`` and ``%`` of
the same operands are checked together (they read one divider unit).
"""

import hls
from amaranth import signed, unsigned

# The clock sweep's 32-bit kernel, one definition for both.
from benchmarks.fmax_kernels import divmod_s32  # noqa: F401


@hls.kernel
def divmod_s8(x: hls.Array[signed(8), 16], d: hls.Array[signed(8), 16], q: hls.Array[signed(9), 16],
              r: hls.Array[signed(8), 16], n: unsigned(5)):
    for i in range(n):
        q[i] = x[i] // d[i]
        r[i] = x[i] % d[i]


@hls.kernel
def divmod_u8(x: hls.Array[unsigned(8), 16], d: hls.Array[unsigned(8), 16], q: hls.Array[unsigned(8), 16],
              r: hls.Array[unsigned(8), 16], n: unsigned(5)):
    for i in range(n):
        q[i] = x[i] // d[i]
        r[i] = x[i] % d[i]


@hls.kernel
def divmod_s16(x: hls.Array[signed(16), 16], d: hls.Array[signed(16), 16], q: hls.Array[signed(17), 16],
               r: hls.Array[signed(16), 16], n: unsigned(5)):
    for i in range(n):
        q[i] = x[i] // d[i]
        r[i] = x[i] % d[i]


@hls.kernel
def divmod_u16(x: hls.Array[unsigned(16), 16], d: hls.Array[unsigned(16), 16], q: hls.Array[unsigned(16), 16],
               r: hls.Array[unsigned(16), 16], n: unsigned(5)):
    for i in range(n):
        q[i] = x[i] // d[i]
        r[i] = x[i] % d[i]


@hls.kernel
def divmod_u32(x: hls.Array[unsigned(32), 16], d: hls.Array[unsigned(32), 16], q: hls.Array[unsigned(32), 16],
               r: hls.Array[unsigned(32), 16], n: unsigned(5)):
    for i in range(n):
        q[i] = x[i] // d[i]
        r[i] = x[i] % d[i]


@hls.kernel
def floordiv_s16_u8(x: hls.Array[signed(16), 16], d: hls.Array[unsigned(8), 16], q: hls.Array[signed(16), 16],
                    n: unsigned(5)):
    # The kernel of issue 12.
    for i in range(n):
        q[i] = x[i] // d[i]


@hls.kernel
def mod_u8_s8(x: hls.Array[unsigned(8), 16], d: hls.Array[signed(8), 16], r: hls.Array[signed(8), 16],
              n: unsigned(5)):
    for i in range(n):
        r[i] = x[i] % d[i]


@hls.kernel(resources={"div": 1})
def shared_divider(x: hls.Array[signed(8), 16], d: hls.Array[unsigned(8), 16], q: hls.Array[signed(16), 16],
                   n: unsigned(5)):
    # One shared "div" instance for a // and a % of different operands.
    for i in range(n):
        q[i] = (x[i] // d[i]) + (d[i] % x[i])


@hls.kernel
def gcd(a: unsigned(16), b: unsigned(16)) -> unsigned(16):
    # Euclid: a recurrence through the remainder.
    while b != 0:
        t = a % b
        a = b
        b = t
    return a
