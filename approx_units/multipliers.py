"""Multipliers, exact and approximate.

Result format: an ``n x m`` multiplier (``width=n``, ``width_b=m``, default
``m = n``) returns ``n + m`` bits. Signed variants
use sign-magnitude wrapping: the unsigned core multiplies the operands'
magnitudes (``n`` and ``m`` bits, so ``-2**(n-1)`` is handled) and the product
is negated when the signs differ; the approximation is therefore symmetric
around zero. Logarithmic multipliers saturate at ``2**(n+m) - 1`` if a
correction pushes a product past the output range.
"""

from __future__ import annotations

import functools

import numpy as np

from .structures import (adder_tree, apply_sign, exact_product, leading_one_normalise,
                         sign_magnitude)
from .unit import Param, UnitSpec, register

__all__ = ["mitchell_correction_table", "antilog"]


def _multiplier(name, summary, reference, params=(), check=None):
    # Every multiplier takes an n-bit a and an m-bit b (width_b); cores read
    # the widths from their operand nodes.
    def decorate(core):
        def describe(ops, a, b, *, width, width_b, signed, **values):
            if not signed:
                return core(ops, a, b, **values)
            sign_a, mag_a = sign_magnitude(ops, a)
            sign_b, mag_b = sign_magnitude(ops, b)
            product = core(ops, mag_a, mag_b, **values)
            return apply_sign(ops, ops.xor(sign_a, sign_b), product, width=width + width_b)
        register(UnitSpec(name=name, kind="mul", describe=describe,
                          output_width=lambda w, wb, s, v: w + wb, summary=summary,
                          reference=reference, params=tuple(params), non_square=True,
                          check=check,
                          recommended_stages=lambda w: 1 if w <= 8 else 2 if w <= 16 else 3))
        return core
    return decorate


@_multiplier("exact_mul", "exact multiplier (partial-product adder tree)", "exact reference")
def exact_mul(ops, a, b):
    return exact_product(ops, a, b)


@_multiplier("trunc_mul", "truncated (broken-array) multiplier: partial-product columns below c dropped",
             "J. M. Jou, S. R. Kuang, R. D. Chen, IEEE TCAS-II 46(6), 1999; "
             "H. R. Mahdiani et al., IEEE TCAS-I 57(4), 2010 (BAM)",
             [Param("c", default=lambda w, wb, s: w, bounds=lambda w, wb, s: (0, w + wb - 1),
                    doc="dropped partial-product columns, 0..n+m-1 (default n)")])
def trunc_mul(ops, a, b, *, c):
    return exact_product(ops, a, b, drop_below=c)


def _drum_operand(ops, x, k):
    """DRUM's operand: the k bits from the leading one, LSB forced to 1 when bits were cut."""
    position = ops.lod(x)
    cut = ops.ge(position, k)                       # more than k significant bits
    shift = ops.mux(cut, ops.sub(position, k - 1, width=position.width), ops.const(0, position.width))
    kept = ops.slice(ops.shr(x, shift), 0, k)
    return ops.or_(kept, ops.zext(cut, k)), shift


@_multiplier("drum", "dynamic range unbiased multiplier DRUM(k)",
             "S. Hashemi, R. I. Bahar, S. Reda, ICCAD 2015",
             [Param("k", default=lambda w, wb, s: min(6, w, wb), bounds=lambda w, wb, s: (2, min(w, wb)),
                    doc="bits kept from each operand's leading one, 2..min(n, m) (default min(6, n, m))")])
def drum(ops, a, b, *, k):
    ta, sa = _drum_operand(ops, a, k)
    tb, sb = _drum_operand(ops, b, k)
    product = exact_product(ops, ta, tb)
    return ops.shl(product, ops.add(sa, sb), width=a.width + b.width)


# -- logarithmic multipliers -------------------------------------------------

def antilog(ops, log_value, frac_bits: int, offset: int, out_width: int):
    """Mitchell's antilogarithm: ``floor((1 + f) * 2**(K - offset + frac_bits))``.

    ``log_value`` holds ``K * 2**frac_bits + f * 2**frac_bits`` (``0 <= f < 1``).
    Results of ``2**out_width`` or more saturate to all ones.
    """
    characteristic = ops.slice(log_value, frac_bits, log_value.width)
    mantissa = ops.cat(ops.slice(log_value, 0, frac_bits), ops.const(1, 1))     # 1.f
    left = ops.ge(characteristic, offset)
    amount_left = ops.sub(characteristic, offset, width=characteristic.width)
    amount_right = ops.sub(offset, characteristic, width=max(characteristic.width,
                                                           int(offset).bit_length()) + 1)
    overflow = ops.and_(left, ops.ge(amount_left, out_width - frac_bits))
    shifted_left = ops.shl(mantissa, amount_left, width=out_width)
    shifted_right = ops.zext(ops.shr(ops.zext(mantissa, max(out_width, mantissa.width)),
                                     amount_right), out_width)
    result = ops.mux(left, shifted_left, shifted_right)
    return ops.mux(overflow, ops.const((1 << out_width) - 1, out_width), result)


@functools.lru_cache(maxsize=None)
def mitchell_correction_table(kind: str, index_bits: int, frac_bits: int,
                              samples: int = 32) -> tuple[int, ...]:
    """Log-domain corrections of the refined Mitchell multiplier (``"mul"``) or divider (``"div"``).

    The fraction square ``[0, 1) x [0, 1)`` of the two operands' Mitchell
    fractions ``x1``, ``x2`` is split into ``2**index_bits`` x ``2**index_bits``
    regions by the top ``index_bits`` bits of each fraction. The ideal
    correction ``c*(x1, x2)`` is the amount that, added to Mitchell's log sum
    (``x1 + x2``) or difference (``x1 - x2``), makes Mitchell's piecewise-linear
    antilogarithm return the exact mantissa product ``(1+x1)(1+x2)`` or quotient
    ``(1+x1)/(1+x2)``. Each entry is the mean of ``c*`` over a
    ``samples x samples`` grid of region midpoints, rounded to ``frac_bits``
    fraction bits. Entry ``i + (j << index_bits)`` belongs to the region with
    ``x1`` index ``i`` and ``x2`` index ``j``; entries are signed integers
    in units of ``2**-frac_bits``.
    """
    regions = 1 << index_bits
    offsets = (np.arange(samples) + 0.5) / (samples * regions)
    table = []
    for j in range(regions):
        for i in range(regions):
            x1, x2 = np.meshgrid(i / regions + offsets, j / regions + offsets)
            if kind == "mul":
                exact = (1 + x1) * (1 + x2)                          # in [1, 4)
                wanted = np.where(exact < 2, exact - 1, exact / 2)   # inverse of the antilog
                ideal = wanted - (x1 + x2)
            elif kind == "div":
                exact = (1 + x1) / (1 + x2)                          # in (1/2, 2)
                wanted = np.where(exact >= 1, exact - 1, 2 * exact - 2)
                ideal = wanted - (x1 - x2)
            else:
                raise ValueError(f"kind must be 'mul' or 'div', not {kind!r}")
            table.append(int(round(float(ideal.mean()) * (1 << frac_bits))))
    return tuple(table)


def correction_lookup(ops, kind, fraction_a, fraction_b, index_bits, width):
    """The correction table as a ROM indexed by the fractions' top bits, ``width`` bits two's complement."""
    f = fraction_a.width
    t = min(index_bits, f)
    table = mitchell_correction_table(kind, t, f)
    index = ops.cat(ops.slice(fraction_a, f - t, f), ops.slice(fraction_b, f - t, f))
    return ops.lookup(index, [v % (1 << width) for v in table], width)


def mitchell_log_product(ops, a, b, *, refine_bits=0):
    """Mitchell multiplication ``a * b`` in ``n + m`` bits (0 if either is 0).

    Both fractions are aligned to the wider operand's ``max(n, m) - 1`` bits.
    """
    out = a.width + b.width
    f = max(a.width, b.width) - 1
    ka, xa = leading_one_normalise(ops, a)
    kb, xb = leading_one_normalise(ops, b)
    xa = ops.shift_left_const(xa, f - xa.width)
    xb = ops.shift_left_const(xb, f - xb.width)
    log_width = f + out.bit_length()
    log_sum = ops.add(ops.cat(xa, ka), ops.cat(xb, kb), width=log_width)
    if refine_bits:
        log_sum = ops.add(log_sum, correction_lookup(ops, "mul", xa, xb, refine_bits, log_width),
                          width=log_width)
    product = antilog(ops, log_sum, f, f, out)
    either_zero = ops.or_(ops.is_zero(a), ops.is_zero(b))
    return ops.mux(either_zero, ops.const(0, out), product)


@_multiplier("mitchell", "Mitchell logarithmic multiplier",
             "J. N. Mitchell, IRE Trans. Electronic Computers EC-11(4), 1962")
def mitchell(ops, a, b):
    return mitchell_log_product(ops, a, b)


#: Shared with the refined divider. Four bits per operand (a 256-entry table)
#: is the smallest size that meets MRED <= 0.6 % (multiplier) at 8, 16 and
#: 32 bits; three bits give about 0.75 % (benchmarks/units_accuracy.py).
index_bits_param = Param("index_bits", default=lambda w, wb, s: min(4, max(w, wb) - 1),
                         bounds=lambda w, wb, s: (1, min(6, max(w, wb) - 1)),
                         doc="top fraction bits of each operand indexing the correction table, "
                             "1..min(6, max(n, m)-1) (default min(4, max(n, m)-1): 256 entries)")


@_multiplier("mitchell_refined", "Mitchell multiplier with a log-domain correction table (RAPID/SIMDive style)",
             "Z. Ebrahimi et al., IEEE TCAD 2022 (RAPID); Z. Ebrahimi, S. Ullah, A. Kumar, GLSVLSI 2020 (SIMDive)",
             [index_bits_param])
def mitchell_refined(ops, a, b, *, index_bits):
    return mitchell_log_product(ops, a, b, refine_bits=index_bits)


def _babic_basic_block(ops, a, b):
    """One ILM step: ``(approximation, residue_a, residue_b)`` with ``a*b = approx + ra*rb``."""
    out = a.width + b.width
    ka, kb = ops.lod(a), ops.lod(b)
    ra = ops.xor(a, ops.shl(ops.const(1, 1), ka, width=a.width))     # a without its leading one
    rb = ops.xor(b, ops.shl(ops.const(1, 1), kb, width=b.width))
    terms = [ops.shl(ops.const(1, 1), ops.add(ka, kb), width=out),
             ops.shl(ops.zext(ra, out), kb, width=out),
             ops.shl(ops.zext(rb, out), ka, width=out)]
    approximation = adder_tree(ops, terms, width=out)
    either_zero = ops.or_(ops.is_zero(a), ops.is_zero(b))
    approximation = ops.mux(either_zero, ops.const(0, out), approximation)
    return approximation, ops.mux(either_zero, ops.const(0, a.width), ra), rb


@_multiplier("iterlog", "iterative logarithmic multiplier (basic block plus correction terms)",
             "Z. Babic, A. Avramovic, P. Bulic, Microprocessors and Microsystems 35(1), 2011",
             [Param("corrections", default=lambda w, wb, s: 1, bounds=lambda w, wb, s: (0, min(w, wb)),
                    doc="correction terms after the basic block, 0..min(n, m) (default 1)")])
def iterlog(ops, a, b, *, corrections):
    out = a.width + b.width
    terms = []
    for _ in range(corrections + 1):
        term, a, b = _babic_basic_block(ops, a, b)
        terms.append(term)
    return adder_tree(ops, terms, width=out)
