"""Dividers, exact and approximate.

Quotient format: a fixed-point number with ``f = frac_bits`` fraction bits,
``q = floor(a * 2**f / b)`` for the exact divider, held in ``n + f`` bits
(unsigned). The default ``f = n`` gives ``n`` integer and ``n`` fraction bits,
so relative errors compare with the literature's, which measures Mitchell
dividers against the real-valued quotient; ``frac_bits=0`` is plain integer
division.

Signed variants (sign-magnitude wrapping) divide the magnitudes and negate
the quotient when the signs differ (so they round towards zero); their
quotient has ``n + f + 1`` bits, and ``f`` is limited to ``63 - n`` so that
it fits in 64 bits.

Division by zero returns all ones (``2**(n+f) - 1`` unsigned, ``-1``
signed), as common FPGA divider IP does; ``0 / b`` is 0.
"""

from __future__ import annotations

import functools

import numpy as np

from .multipliers import antilog
from .structures import apply_sign, leading_one_normalise, scale_by_power_of_two, sign_magnitude
from .registry import Param, UnitSpec, register

__all__ = ["mitchell_correction_table", "restoring_division"]


def _quotient_width(width, signed, values):
    return width + values["frac_bits"] + (1 if signed else 0)


def _rows_stages(width):
    # A restoring divider is 2n compare-subtract rows deep by default.
    return 2 if width <= 8 else 4 if width <= 16 else 8


def _log_stages(width):
    return 1 if width <= 8 else 2 if width <= 16 else 3


def _divider(name, summary, reference, params=(), recommended_stages=_log_stages):
    def decorate(core):
        def describe(ops, a, b, *, width, width_b, signed, frac_bits, **values):
            out = _quotient_width(width, signed, {"frac_bits": frac_bits})
            if signed:
                sign_a, a = sign_magnitude(ops, a)
                sign_b, b = sign_magnitude(ops, b)
            quotient = core(ops, a, b, width=width, frac_bits=frac_bits, **values)
            by_zero = ops.is_zero(b)
            if signed:
                quotient = apply_sign(ops, ops.xor(sign_a, sign_b), quotient, width=out)
            return ops.mux(by_zero, ops.const((1 << out) - 1, out), quotient)
        frac = Param("frac_bits", default=lambda w, wb, s: min(w, 63 - w) if s else w,
                     bounds=lambda w, wb, s: (0, min(w, 63 - w) if s else w),
                     doc="fraction bits of the quotient, 0..n (signed: 0..min(n, 63-n)); default n")
        register(UnitSpec(name=name, kind="div", describe=describe,
                          output_width=lambda w, wb, s, v: _quotient_width(w, s, v),
                          summary=summary, reference=reference, params=(frac,) + tuple(params),
                          recommended_stages=recommended_stages))
        return core
    return decorate


def restoring_division(ops, a, b, *, frac_bits: int = 0, high=None):
    """Unsigned restoring division: ``(quotient, remainder)`` of ``a * 2**frac_bits`` by ``b``.

    One compare-subtract row per quotient bit, from the top: shift the next
    dividend bit into the partial remainder and subtract the divisor if it fits.
    The quotient has ``a.width + frac_bits`` bits, the remainder ``b.width``
    (for ``b == 0`` the quotient is all ones and the remainder the low bits of
    ``a``). The rows form a chain, so pipeline registers fall between rows.

    ``high``, if given (``b.width`` bits, less than ``b``), holds the dividend's
    bits above ``a``: the division is of ``(high * 2**a.width + a) * 2**frac_bits``,
    whose quotient then still fits ``a.width + frac_bits`` bits. It is the
    partial remainder the rows start from, so rows whose quotient bit is
    known to be 0 need not be built.
    """
    dividend = ops.shift_left_const(a, frac_bits) if frac_bits else a
    steps = a.width + frac_bits
    width = b.width
    remainder = ops.const(0, width) if high is None else ops.zext(high, width)
    bits = [None] * steps
    for i in reversed(range(steps)):
        shifted = ops.cat(ops.bit(dividend, i), remainder)                 # width + 1 bits
        fits = ops.ge(shifted, b)
        remainder = ops.mux(fits, ops.sub(shifted, b, width=width), ops.slice(shifted, 0, width))
        bits[i] = fits
    return ops.cat(*bits), remainder


@_divider("exact_div", "exact restoring divider (one compare-subtract row per quotient bit)",
          "exact reference", recommended_stages=_rows_stages)
def exact_div(ops, a, b, *, width, frac_bits):
    return restoring_division(ops, a, b, frac_bits=frac_bits)[0]


@functools.lru_cache(maxsize=None)
def mitchell_correction_table(index_bits: int, frac_bits: int, samples: int = 32) -> tuple[int, ...]:
    """Log-domain corrections of the refined Mitchell divider.

    The fraction square ``[0, 1) x [0, 1)`` of the two operands' Mitchell
    fractions ``x1``, ``x2`` is split into ``2**index_bits`` x ``2**index_bits``
    regions by the top ``index_bits`` bits of each fraction. The ideal
    correction ``c*(x1, x2)`` is the amount that, added to Mitchell's log
    difference ``x1 - x2``, makes Mitchell's piecewise-linear antilogarithm
    return the exact mantissa quotient ``(1+x1)/(1+x2)``. Each entry is the
    mean of ``c*`` over a ``samples x samples`` grid of region midpoints,
    rounded to ``frac_bits`` fraction bits. Entry ``i + (j << index_bits)``
    belongs to the region with ``x1`` index ``i`` and ``x2`` index ``j``;
    entries are signed integers in units of ``2**-frac_bits``.
    """
    regions = 1 << index_bits
    offsets = (np.arange(samples) + 0.5) / (samples * regions)
    table = []
    for j in range(regions):
        for i in range(regions):
            x1, x2 = np.meshgrid(i / regions + offsets, j / regions + offsets)
            exact = (1 + x1) / (1 + x2)                          # in (1/2, 2)
            wanted = np.where(exact >= 1, exact - 1, 2 * exact - 2)   # inverse of the antilog
            table.append(int(round(float((wanted - (x1 - x2)).mean()) * (1 << frac_bits))))
    return tuple(table)


def _correction_lookup(ops, fraction_a, fraction_b, index_bits, width):
    """The correction table as a ROM indexed by the fractions' top bits, ``width`` bits two's complement."""
    f = fraction_a.width
    t = min(index_bits, f)
    table = mitchell_correction_table(t, f)
    index = ops.cat(ops.slice(fraction_a, f - t, f), ops.slice(fraction_b, f - t, f))
    return ops.lookup(index, [v % (1 << width) for v in table], width)


def mitchell_log_quotient(ops, a, b, *, width, frac_bits, refine_bits=0):
    """Mitchell division ``a / b`` as ``n + f`` bits with ``f`` fraction bits (a, b non-zero)."""
    f = width - 1
    bias = width + 1                            # keeps the biased log difference non-negative
    ka, xa = leading_one_normalise(ops, a)
    kb, xb = leading_one_normalise(ops, b)
    log_width = f + (2 * width + 1).bit_length()
    log_a = ops.add(ops.cat(xa, ka), ops.const(bias << f), width=log_width)
    difference = ops.sub(log_a, ops.cat(xb, kb), width=log_width)
    if refine_bits:
        difference = ops.add(difference, _correction_lookup(ops, xa, xb, refine_bits, log_width),
                             width=log_width)
    quotient = antilog(ops, difference, f, bias + f - frac_bits, width + frac_bits)
    return ops.mux(ops.is_zero(a), ops.const(0, width + frac_bits), quotient)


@_divider("mitchell_div", "Mitchell logarithmic divider",
          "J. N. Mitchell, IRE Trans. Electronic Computers EC-11(4), 1962")
def mitchell_div(ops, a, b, *, width, frac_bits):
    return mitchell_log_quotient(ops, a, b, width=width, frac_bits=frac_bits)


@_divider("mitchell_div_refined", "Mitchell divider with a log-domain correction table (SIMDive style)",
          "Z. Ebrahimi, S. Ullah, A. Kumar, GLSVLSI 2020 (SIMDive); Z. Ebrahimi et al., IEEE TCAD 2022 (RAPID)",
          [Param("index_bits", default=lambda w, wb, s: min(4, w - 1), bounds=lambda w, wb, s: (1, min(6, w - 1)),
                 doc="top fraction bits of each operand indexing the correction table, "
                     "1..min(6, n-1) (default min(4, n-1): 256 entries)")])
def mitchell_div_refined(ops, a, b, *, width, frac_bits, index_bits):
    return mitchell_log_quotient(ops, a, b, width=width, frac_bits=frac_bits, refine_bits=index_bits)


# -- dynamic-segment divider -------------------------------------------------

def _segment(ops, fraction, bits):
    """``bits`` bits from an operand's leading one: ``1`` then the top of its Mitchell fraction.

    Fraction bits below the segment are dropped (truncated); a segment wider
    than the operand is padded with zeros below.
    """
    kept = bits - 1
    if fraction.width >= kept:
        low = ops.slice(fraction, fraction.width - kept, fraction.width)
    elif fraction.width:
        low = ops.cat(ops.const(0, kept - fraction.width), fraction)
    else:
        low = ops.const(0, kept)
    return ops.cat(low, ops.const(1, 1))


@_divider("aaxd", "adaptively approximate divider AAXD(k): 2k-bit dividend and k-bit divisor segments "
          "from the leading ones, divided exactly, the quotient shifted into place",
          "H. Jiang, L. Liu, F. Lombardi, J. Han, DATE 2018 (adaptive approximation in arithmetic "
          "circuits: a low-power unsigned divider design)",
          [Param("k", default=lambda w, wb, s: min(6, w), bounds=lambda w, wb, s: (2, w),
                 doc="divisor segment bits (dividend segment: 2k), 2..n (default min(6, n)); "
                     "the quotient keeps k or k+1 significant bits")])
def aaxd(ops, a, b, *, width, frac_bits, k):
    # a = 2**ka * A / 2**(2k-1) with A the dividend's 2k-bit segment, b likewise
    # with the k-bit segment B (bits below the segments dropped), so
    # a * 2**f / b ~= floor(A / B) * 2**(ka - kb + f - k). A and B have their
    # top bits set, so A / B < 2**(k+1) and the exact segment divider needs
    # only k+1 compare-subtract rows: the top k-1 bits of A are below B and are
    # the partial remainder the rows start from.
    ka, xa = leading_one_normalise(ops, a)
    kb, xb = leading_one_normalise(ops, b)
    dividend = _segment(ops, xa, 2 * k)
    divisor = _segment(ops, xb, k)
    segment_quotient, _ = restoring_division(ops, ops.slice(dividend, 0, k + 1), divisor,
                                             high=ops.slice(dividend, k + 1, 2 * k))
    exponent_width = (2 * width - 2).bit_length()
    exponent = ops.sub(ops.add(ka, ops.const(width - 1), width=exponent_width), kb,
                       width=exponent_width)                     # ka - kb + n - 1, 0 .. 2n-2
    # Largest shift n - 1 + f - k on a (k+1)-bit quotient: at most n + f bits, no overflow.
    quotient = scale_by_power_of_two(ops, segment_quotient, exponent, width - 1 - frac_bits + k,
                                     width + frac_bits)
    return ops.mux(ops.is_zero(a), ops.const(0, width + frac_bits), quotient)
