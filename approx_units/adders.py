"""Adders, exact and approximate.

Result format: an ``n``-bit adder returns ``n + 1`` bits, the carry out
included; unsigned results are in ``0 .. 2**(n+1) - 2`` for exact addition.
Signed variants take two's complement operands and return the ``n + 1``-bit
two's complement sum: the approximate core runs on the operand bit patterns
unchanged, and the top bit is ``a[n-1] ^ b[n-1] ^ carry`` as for a
sign-extended addition, so the approximation of the low bits is the same in
both variants.
"""

from __future__ import annotations

from .structures import chunked_add
from .registry import Param, UnitSpec, register

__all__ = []


def _signed_fixup(ops, a, b, unsigned_sum, *, width, signed):
    """Turn an ``n+1``-bit unsigned sum into the two's complement sum of sign-extended operands."""
    if not signed:
        return unsigned_sum
    top = ops.xor(ops.xor(ops.bit(a, width - 1), ops.bit(b, width - 1)), ops.bit(unsigned_sum, width))
    return ops.cat(ops.slice(unsigned_sum, 0, width), top)


def _upper_sum(ops, a, b, lo, width):
    """``a[lo:] + b[lo:]`` with ``width - lo + 1`` bits."""
    return chunked_add(ops, ops.slice(a, lo, width), ops.slice(b, lo, width), width=width - lo + 1)


def _upper_sum_carrying_and(ops, a, b, lo, width):
    """``a[lo:] + b[lo:] + (a[lo-1] & b[lo-1])`` with ``width - lo + 1`` bits.

    Adding from bit ``lo - 1`` up and dropping the sum's bottom bit gives the same value:
    bit ``lo - 1`` of the sum carries exactly ``a[lo-1] & b[lo-1]`` into bit ``lo``. That is
    one carry chain one bit longer, where a separate carry-in is a second chain on ECP5
    (``loa`` at 24 bits, l = 4: 5.92 ns placed, against 5.18 ns for the exact adder).
    """
    total = chunked_add(ops, ops.slice(a, lo - 1, width), ops.slice(b, lo - 1, width), width=width - lo + 2)
    return ops.slice(total, 1, width - lo + 2)


def _adder(name, summary, reference, params=(), check=None):
    def decorate(core):
        def describe(ops, a, b, *, width, width_b, signed, **values):
            return _signed_fixup(ops, a, b, core(ops, a, b, width=width, **values),
                                 width=width, signed=signed)
        register(UnitSpec(name=name, kind="add", describe=describe,
                          output_width=lambda w, wb, s, v: w + 1, summary=summary,
                          reference=reference, params=tuple(params), check=check,
                          recommended_stages=lambda w: 1 if w >= 16 else 0))
        return core
    return decorate


_l_param = Param("l", default=lambda w, wb, s: w // 2, bounds=lambda w, wb, s: (1, w - 1),
                 doc="approximated low bits, 1..n-1 (default n/2)")


@_adder("exact_add", "exact adder (ripple carry)", "exact reference")
def exact_add(ops, a, b, *, width):
    return chunked_add(ops, a, b, width=width + 1)


@_adder("loa", "lower-part OR adder", "H. R. Mahdiani et al., IEEE TCAS-I 57(4), 2010", [_l_param])
def loa(ops, a, b, *, width, l):
    low = ops.or_(ops.slice(a, 0, l), ops.slice(b, 0, l))
    return ops.cat(low, _upper_sum_carrying_and(ops, a, b, l, width))


@_adder("trunc_add", "truncated adder (low l result bits are 0)",
        "truncation baseline, e.g. Jiang et al., ACM JETC 13(4), 2017", [_l_param])
def trunc_add(ops, a, b, *, width, l):
    return ops.cat(ops.const(0, l), _upper_sum(ops, a, b, l, width))


@_adder("eta1", "error-tolerant adder type I",
        "N. Zhu, W. L. Goh, K. S. Yeo, IEEE TVLSI 18(8), 2010", [_l_param])
def eta1(ops, a, b, *, width, l):
    # From the top of the inaccurate part down: XOR until the first position
    # where both bits are 1; that bit and every lower bit become 1. "Some position
    # at or above i has both bits 1" is a suffix OR, built as a log-depth prefix
    # network (shifted copies ORed in) rather than a chain of l ORs: the chain
    # placed 4.53 ns at 16 bits with l = 12, against 3.12 ns for the exact adder.
    low_a, low_b = ops.slice(a, 0, l), ops.slice(b, 0, l)
    saturate = ops.and_(low_a, low_b)
    shift = 1
    while shift < l:
        shifted = ops.cat(ops.slice(saturate, shift, l), ops.const(0, shift))
        saturate = ops.or_(saturate, shifted)
        shift *= 2
    return ops.cat(ops.or_(ops.xor(low_a, low_b), saturate), _upper_sum(ops, a, b, l, width))


def _gear_check(width, width_b, signed, values):
    r, p = values["r"], values["p"]
    if r + p > width:
        raise ValueError(f"gear needs r + p <= width; got r={r}, p={p}, width={width}")
    if (width - r - p) % r:
        raise ValueError(f"gear needs (width - r - p) divisible by r; got width={width}, "
                         f"r={r}, p={p} (width - r - p = {width - r - p})")


@_adder("gear", "generic accuracy-configurable adder GeAr(N, R, P) (covers ACA, ESA)",
        "M. Shafique et al., DAC 2015", [
            Param("r", default=lambda w, wb, s: 2, bounds=lambda w, wb, s: (1, w),
                  doc="result bits per sub-adder, 1..n (default 2); (n - r - p) must be a multiple of r"),
            Param("p", default=lambda w, wb, s: 2 + w % 2, bounds=lambda w, wb, s: (0, w - 1),
                  doc="carry-prediction bits per sub-adder, 0..n-1 (default 2 for even n, 3 for odd n)"),
        ], check=_gear_check)
def gear(ops, a, b, *, width, r, p):
    # Sub-adder i adds bits [i*r, i*r + r + p); the first keeps all its bits,
    # the others only their top r bits (the low p bits predict the carry);
    # the last one also gives the carry out.
    length = r + p
    count = (width - length) // r + 1
    parts = []
    for i in range(count):
        lo = i * r
        a_part, b_part = ops.slice(a, lo, lo + length), ops.slice(b, lo, lo + length)
        total = ops.add(a_part, b_part, width=length + 1)
        first = 0 if i == 0 else p
        last = length + 1 if i == count - 1 else length
        parts.append(ops.slice(total, first, last))
    return ops.cat(*parts)


@_adder("hoaaned", "hardware-optimised approximate adder with near-normal error distribution "
        "(HOERAA family, LUT-friendly)",
        'P. Balasubramanian et al., "Hardware optimized approximate adder with normal error '
        'distribution" (HOAANED), 2020; successor of HOERAA, P. Balasubramanian, D. L. Maskell, '
        'Electronics 8(11):1212, 2019', [_l_param])
def hoaaned(ops, a, b, *, width, l):
    # Low l-2 result bits are constant 1s; bit l-2 is a OR b; the carry into
    # the exact part is the AND of the operands' bit l-1; bit l-1 is the OR of
    # bit l-1 when there is no such carry (that is, their XOR), forced to 1 by
    # the AND of bit l-2.
    if l == 1:
        low = [ops.or_(ops.bit(a, 0), ops.bit(b, 0))]
    else:
        below = ops.and_(ops.bit(a, l - 2), ops.bit(b, l - 2))
        top = ops.or_(ops.xor(ops.bit(a, l - 1), ops.bit(b, l - 1)), below)
        low = ([ops.const((1 << (l - 2)) - 1, l - 2)] if l > 2 else []) + \
            [ops.or_(ops.bit(a, l - 2), ops.bit(b, l - 2)), top]
    return ops.cat(*low, _upper_sum_carrying_and(ops, a, b, l, width))
