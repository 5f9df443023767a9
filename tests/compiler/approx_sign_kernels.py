"""Kernels of mixed signs and widths for the sign and error-bound tests of approximate units (issue 20)."""

from amaranth import signed, unsigned

import hls


# The two reproducers of issue 20: the unit's magnitude overflowed the signed product and wrapped.

@hls.kernel(approx={"mul": ("drum", {"k": 5})})
def smul(x: signed(12), h: unsigned(9)) -> signed(21):
    return x * h


@hls.kernel(approx={"mul": ("drum", {"k": 3})})
def narrow_smul(x: unsigned(3), h: signed(12)) -> signed(15):
    return x * h


# Exact kernels that the exhaustive tests give every unit (kernel.with_approx). Each returns the
# exact operator's shape, so that the result is the operation's own value.

@hls.kernel
def mul_s3_u6(x: signed(3), y: unsigned(6)) -> signed(9):
    return x * y


@hls.kernel
def mul_u6_s3(x: unsigned(6), y: signed(3)) -> signed(9):
    return x * y


@hls.kernel
def mul_s4_s4(x: signed(4), y: signed(4)) -> signed(8):
    return x * y


@hls.kernel
def mul_u3_u3(x: unsigned(3), y: unsigned(3)) -> unsigned(6):
    return x * y


@hls.kernel
def div_s3_u6(x: signed(3), y: unsigned(6)) -> signed(3):
    return x // y


@hls.kernel
def div_u6_s3(x: unsigned(6), y: signed(3)) -> signed(7):
    return x // y


@hls.kernel
def div_s4_s4(x: signed(4), y: signed(4)) -> signed(5):
    return x // y


@hls.kernel
def div_u3_u6(x: unsigned(3), y: unsigned(6)) -> unsigned(3):
    return x // y


# The fuzzer's reproducer of a sum that wrapped (issue 22, seed 22): eta1 on signed(2) operands,
# padded to the unit's 4 bits, gave -5 for -2 + -2, which wrapped to 3 in signed(3).

@hls.kernel(approx={"add": ("eta1", {"l": 2})})
def narrow_sadd(x: signed(2), h: signed(2)) -> signed(3):
    return x + h
