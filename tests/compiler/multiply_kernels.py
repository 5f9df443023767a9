"""Kernels that multiply, or divide by a constant, in every iteration (issue 12: honest timing).

Each one's products (or quotients and remainders) are stored, so the hardware
is checked against the Python run bit for bit. The 16- and 32-bit multipliers
are slower than a 100 MHz period, so they are the pipelined library multiplier;
``mul_s8_fast`` is one at 200 MHz; the constants of the divisions are no powers
of two (the pipelined divider, the constant folded in) except in
``divmod_powers_of_two`` (wiring).
"""

import hls
from amaranth import signed, unsigned

# The clock sweep's 32-bit multiply and multiply-accumulate, checked here rather than copied.
from benchmarks.fmax_kernels import mac_s32 as mul_accumulate_s32, mul_s32  # noqa: F401


@hls.kernel
def mul_s8(x: hls.Array[signed(8), 16], y: hls.Array[signed(8), 16], q: hls.Array[signed(16), 16],
           n: unsigned(5)):
    for i in range(n):
        q[i] = x[i] * y[i]


@hls.kernel
def mul_u8(x: hls.Array[unsigned(8), 16], y: hls.Array[unsigned(8), 16], q: hls.Array[unsigned(16), 16],
           n: unsigned(5)):
    for i in range(n):
        q[i] = x[i] * y[i]


@hls.kernel
def mul_s16(x: hls.Array[signed(16), 16], y: hls.Array[signed(16), 16], q: hls.Array[signed(32), 16],
            n: unsigned(5)):
    for i in range(n):
        q[i] = x[i] * y[i]


@hls.kernel
def mul_u16(x: hls.Array[unsigned(16), 16], y: hls.Array[unsigned(16), 16], q: hls.Array[unsigned(32), 16],
            n: unsigned(5)):
    for i in range(n):
        q[i] = x[i] * y[i]


@hls.kernel
def mul_u32(x: hls.Array[unsigned(32), 16], y: hls.Array[unsigned(32), 16], q: hls.Array[unsigned(64), 16],
            n: unsigned(5)):
    for i in range(n):
        q[i] = x[i] * y[i]


@hls.kernel
def mul_s32_u16(x: hls.Array[signed(32), 16], y: hls.Array[unsigned(16), 16], q: hls.Array[signed(48), 16],
                n: unsigned(5)):
    for i in range(n):
        q[i] = x[i] * y[i]


@hls.kernel(clock_mhz=200)
def mul_s8_fast(x: hls.Array[signed(8), 16], y: hls.Array[signed(8), 16], q: hls.Array[signed(16), 16],
                n: unsigned(5)):
    for i in range(n):
        q[i] = x[i] * y[i]


@hls.kernel
def mul_constant_s32(x: hls.Array[signed(32), 16], q: hls.Array[signed(64), 16], n: unsigned(5)):
    # 0x9E3779B9 has 20 set bits: slower than a period as a chain of shifted adds.
    for i in range(n):
        q[i] = x[i] * 2654435769


@hls.kernel
def divmod_constant_s8(x: hls.Array[signed(8), 16], q: hls.Array[signed(8), 16], r: hls.Array[signed(8), 16],
                       n: unsigned(5)):
    for i in range(n):
        q[i] = x[i] // 10
        r[i] = x[i] % 7


@hls.kernel
def divmod_constant_u8(x: hls.Array[unsigned(8), 16], q: hls.Array[unsigned(8), 16], r: hls.Array[unsigned(8), 16],
                       n: unsigned(5)):
    for i in range(n):
        q[i] = x[i] // 10
        r[i] = x[i] % 7


@hls.kernel
def divmod_constant_s16(x: hls.Array[signed(16), 16], q: hls.Array[signed(16), 16], r: hls.Array[signed(16), 16],
                        n: unsigned(5)):
    for i in range(n):
        q[i] = x[i] // 10
        r[i] = x[i] % 7


@hls.kernel
def divmod_constant_u16(x: hls.Array[unsigned(16), 16], q: hls.Array[unsigned(16), 16], r: hls.Array[unsigned(16), 16],
                        n: unsigned(5)):
    for i in range(n):
        q[i] = x[i] // 10
        r[i] = x[i] % 7


@hls.kernel
def divmod_constant_s32(x: hls.Array[signed(32), 16], q: hls.Array[signed(32), 16], r: hls.Array[signed(32), 16],
                        n: unsigned(5)):
    for i in range(n):
        q[i] = x[i] // 10
        r[i] = x[i] % 7


@hls.kernel
def divmod_constant_u32(x: hls.Array[unsigned(32), 16], q: hls.Array[unsigned(32), 16], r: hls.Array[unsigned(32), 16],
                        n: unsigned(5)):
    for i in range(n):
        q[i] = x[i] // 10
        r[i] = x[i] % 7


@hls.kernel
def divmod_negative_constant_s16(x: hls.Array[signed(16), 16], q: hls.Array[signed(17), 16],
                                 r: hls.Array[signed(16), 16], n: unsigned(5)):
    for i in range(n):
        q[i] = x[i] // -3
        r[i] = x[i] % -3


@hls.kernel
def divmod_powers_of_two(x: hls.Array[signed(16), 16], q: hls.Array[signed(16), 16], r: hls.Array[unsigned(4), 16],
                         u: hls.Array[unsigned(16), 16], n: unsigned(5)):
    for i in range(n):
        q[i] = x[i] // 8
        r[i] = x[i] % 16
        u[i] = (x[i] // 1) + (x[i] % 1) + (x[i] // 0) + (x[i] % 0)


@hls.kernel(clock_mhz=200)
def mul_s32_fast(x: hls.Array[signed(32), 16], y: hls.Array[signed(32), 16], q: hls.Array[signed(64), 16],
                 n: unsigned(5)):
    # At 200 MHz no adder of the 64-bit product fits a period: the library's chunked unit.
    for i in range(n):
        q[i] = x[i] * y[i]


@hls.kernel(clock_mhz=200, resources={"mul": 1})
def mul_shared_fast(x: hls.Array[signed(16), 16], y: hls.Array[unsigned(16), 16], q: hls.Array[signed(32), 16],
                    n: unsigned(5)):
    # Two multiplies on one limited instance, timed for the shapes covering both.
    for i in range(n):
        if x[i] > 0:
            q[i] = x[i] * y[i]
        else:
            q[i] = y[i] * 3
